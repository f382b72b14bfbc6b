/*
 * exactly_once.h
 *	A job's file outputs made exactly-once by its checkpoints, as both
 *	drivers set them up: which outputs are files, their committer
 *	(runtime/checkpoint/part_commit.h), where each window subtask's parts
 *	go, and, for a real run's supervisor, the parts its workers sealed.
 *
 * Outputs are numbered as the committer's: every sink stage and every
 * window's late side output that writes to a regular file, in stage
 * order, sinks before late outputs. A stream (standard output, a FIFO)
 * cannot take back what it was given: it stays at-least-once, and a notice
 * says so when the job starts; so does a source's recording
 * (--record-trace), written by the source as it reads.
 */
#ifndef WM_RUNTIME_RUN_EXACTLY_ONCE_H
#define WM_RUNTIME_RUN_EXACTLY_ONCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/checkpoint/part_commit.h"
#include "runtime/conf/topology.h"
#include "runtime/io/sink.h"
#include "runtime/plan/plan.h"

/*
 * The committer of `t`'s file outputs, opened (with their headers) as
 * `stage_sinks` and `late_sinks` say (by stage; NULL where none), into
 * *commit, and *output_of (2 x n_stages, malloc'd: [s] the output of sink
 * stage s, [n_stages + s] that of window s's late output, -1 for none or a
 * stream). Both NULL, and 0, when no output is a file. Nothing is
 * recovered yet: the caller recovers to where the job starts. 0 or a
 * negative errno with a message.
 */
int wm_exactly_once_set_up(struct wm_part_commit **commit, int32_t **output_of,
			   const struct wm_topology *t,
			   struct wm_sink *const *stage_sinks,
			   struct wm_sink *const *late_sinks, char *err,
			   size_t errlen);

/* The path of window subtask `sub`'s part `epoch` of sink stage `stage`'s
 * output (`late`: its own stage's late output) in the committer's run
 * `run` (wm_part_commit_run()), in buf, which it returns. */
const char *wm_exactly_once_part_path(const struct wm_topology *t, uint64_t run,
				      const struct wm_plan_subtask *sub,
				      uint32_t stage, bool late, uint64_t epoch,
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

#endif /* WM_RUNTIME_RUN_EXACTLY_ONCE_H */
