/*
 * exactly_once.h
 *	A job's file outputs made exactly-once by its checkpoints, as both
 *	drivers set them up: which outputs are files, their committer
 *	(runtime/checkpoint/part_commit.h), where each window subtask's parts
 *	go, and, for a real run's supervisor, the parts its workers sealed.
 *
 * Outputs are numbered as the committer's: every sink stage and every
 * late output (a window's, an interval join's two: wm_stage_late_output())
 * that writes to a regular file, in stage order, sinks before late
 * outputs. An output's slot among all of them is wm_exactly_once_slot(). A stream (standard output, a FIFO)
 * cannot take back what it was given: it stays at-least-once, and a notice
 * says so when the job starts; so does a source's recording
 * (--record-trace), written by the source as it reads.
 */
#ifndef WM_RUNTIME_CHECKPOINT_EXACTLY_ONCE_H
#define WM_RUNTIME_CHECKPOINT_EXACTLY_ONCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/checkpoint/part_commit.h"
#include "runtime/conf/topology.h"
#include "runtime/io/sink.h"
#include "runtime/plan/plan.h"
#include "runtime/source/replay.h"

/* The outputs a job can have: a sink a stage, WM_STAGE_LATE_OUTPUTS late
 * outputs a stage. */
#define WM_EXACTLY_ONCE_SLOTS(t) ((1 + WM_STAGE_LATE_OUTPUTS) * (t)->n_stages)

/* The slot of sink stage `stage`'s output (late < 0), or of late output
 * `late` of `stage`: sinks first, then each stage's late outputs. */
static inline uint32_t
wm_exactly_once_slot(const struct wm_topology *t, uint32_t stage, int late)
{
	return late < 0 ? stage
			: t->n_stages + stage * WM_STAGE_LATE_OUTPUTS +
				  (uint32_t)late;
}

/*
 * The committer of `t`'s file outputs, opened (with their headers) as
 * `stage_sinks` (by stage) and `late_sinks` (wm_late_sink_index()) say,
 * NULL where none, into *commit, and *output_of (WM_EXACTLY_ONCE_SLOTS,
 * malloc'd: by wm_exactly_once_slot(), the committer's output, -1 for
 * none or a stream). Both NULL, and 0, when no output is a file. Nothing
 * is recovered yet: the caller recovers to where the job starts. 0 or a
 * negative errno with a message.
 */
int wm_exactly_once_set_up(struct wm_part_commit **commit, int32_t **output_of,
			   const struct wm_topology *t,
			   struct wm_sink *const *stage_sinks,
			   struct wm_sink *const *late_sinks, char *err,
			   size_t errlen);

/* The path of window or join subtask `sub`'s part `epoch` of sink stage
 * `stage`'s output (late < 0), or of its own stage's late output `late`,
 * in the committer's run `run` (wm_part_commit_run()), in buf, which it
 * returns. */
const char *wm_exactly_once_part_path(const struct wm_topology *t, uint64_t run,
				      const struct wm_plan_subtask *sub,
				      uint32_t stage, int late, uint64_t epoch,
				      char *buf, size_t len);

/*
 * A real run's supervisor learns what a worker sealed from the disk: every
 * part of window subtask `sub` (of every file output it feeds) with an
 * epoch in (after, up_to] is a sealed one (a worker fsyncs a part and its
 * name before it acknowledges, and an open part is never below up_to
 * + 1), and the committer is told with its size. Acknowledgements a busy
 * supervisor missed (one overwritten by the next) cost nothing: the parts
 * are on disk. 0 or a negative errno with a message.
 */
int wm_exactly_once_found_sealed(struct wm_part_commit *commit,
				 const int32_t *output_of,
				 const struct wm_topology *t,
				 const struct wm_plan_subtask *sub,
				 uint64_t after, uint64_t up_to, char *err,
				 size_t errlen);

/*
 * The parts one window subtask writes its file outputs into, one an epoch
 * (part_commit.h), for a real run's worker and --sim's task alike: each
 * output the driver keeps a sink for (its `slot`) that is a file output of
 * the committer becomes a part of this subtask's own while the job runs.
 * Outputs that are streams stay as they are, written straight through.
 */
struct wm_window_part {
	struct wm_sink **slot; /* the driver's: the sink written */
	uint32_t stage;	       /* the sink stage; its own, for a late output */
	int late;	 /* its late output (wm_stage_late_output()); -1 */
	uint32_t output; /* the committer's (exactly_once.h) */
	bool open;	 /* a part of this subtask's is in *slot */
};

struct wm_window_parts {
	const struct wm_topology *t;
	const struct wm_plan_subtask *sub;
	uint64_t run;	/* the committer's (wm_part_commit_run()) */
	uint64_t epoch; /* of the parts open */
	uint32_t n;
	struct wm_window_part
		v[WM_TOPOLOGY_MAX_OUTPUTS + WM_STAGE_LATE_OUTPUTS];
};

/* Window subtask `sub`'s parts of run `run`, none yet. */
void wm_window_parts_init(struct wm_window_parts *p,
			  const struct wm_topology *t,
			  const struct wm_plan_subtask *sub, uint64_t run);

/* The driver's sink for sink stage `stage` (late < 0), or for late
 * output `late` of the subtask's own stage, is in *slot: a part if
 * output_of (wm_exactly_once_set_up()'s; NULL: none) makes it a file
 * output, else nothing to do. */
void wm_window_parts_add(struct wm_window_parts *p, struct wm_sink **slot,
			 uint32_t stage, int late, const int32_t *output_of);

/* Open the parts of `epoch` in the slots added (keys as
 * wm_replay_stage_keys() takes them). 0 or a negative errno with a
 * message; a part that could not be opened is not open. */
int wm_window_parts_open(struct wm_window_parts *p, uint64_t epoch,
			 struct wm_replay_trace *const *traces,
			 const struct wm_keys *keys, char *err, size_t errlen);

/*
 * Seal every part open (wm_sink_seal()) and go on into those of epoch
 * `next` (0: none, the last parts); `sealed` (NULL: none) is told each
 * sealed part's output, epoch and size, and may fail the seal with a
 * negative errno. 0 or the first negative errno, with a message.
 */
int wm_window_parts_seal(struct wm_window_parts *p, uint64_t next,
			 int (*sealed)(void *ctx, uint32_t output,
				       uint64_t epoch, uint64_t bytes),
			 void *ctx, char *err, size_t errlen);

/* Close every part open (`discard`: the job did not end well, as
 * wm_sink_close() takes it); its slot is then NULL. */
void wm_window_parts_close(struct wm_window_parts *p, bool discard);

#endif /* WM_RUNTIME_CHECKPOINT_EXACTLY_ONCE_H */
