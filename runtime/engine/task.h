/*
 * task.h
 *	One subtask of a job: the operators of its stage between its input
 *	channels and its output edges, whatever carries the frames.
 *
 * The same code runs in a worker process (frames from rings, real clock)
 * and in the --sim driver (frames from in-memory queues, simulated clock):
 * a task only reacts to calls, and speaks through struct wm_task_out.
 *
 *   source   partitions (source_gen) -> records out; their watermarks and
 *            idleness (source_watermarks) -> edges
 *   keyby    input valve -> records re-routed by key; valve output -> edges
 *   window   one valve per logical input (two inputs combined as Flink's
 *            two-input operators) -> window operator -> results to the
 *            chained sink; watermarks and statuses -> edges
 *   join     a valve per side, combined as a two-input operator -> the
 *            join operator -> pairs to the chained sink; watermarks and
 *            statuses -> edges
 *
 * Input channels are numbered across logical inputs: input 0's channels
 * first. Every record is accounted for (struct wm_task_counters).
 *
 * Records come in one at a time as frames (wm_task_input()), or as a run
 * read in place from a ring's cells (wm_task_input_records(), the
 * workers' data path) or held as records (wm_task_input_run(), --sim's
 * queues), and go out one at a time (wm_task_out.record),
 * which the driver may stage: the task asks nothing of when they arrive,
 * as long as each channel keeps its order (a frame sent after a record
 * never arrives before it).
 */
#ifndef WM_RUNTIME_ENGINE_TASK_H
#define WM_RUNTIME_ENGINE_TASK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ipc/frame.h"
#include "operators/edge.h"
#include "operators/multi_input.h"
#include "operators/source_gen.h"
#include "operators/source_watermarks.h"
#include "operators/valve.h"
#include "operators/window.h"
#include "runtime/metrics/metrics.h"
#include "runtime/plan/plan.h"
#include "runtime/conf/topology.h"

struct wm_task_out {
	/* Send one frame other than a record (a watermark, status, END or
	 * barrier) on channel `channel` of output edge `edge`. */
	void (*frame)(struct wm_task_out *out, uint32_t edge, uint32_t channel,
		      const struct wm_frame *f);
	/* Send one record on channel `channel` of output edge `edge`; the
	 * task counted it sent before the call (metrics.h). */
	void (*record)(struct wm_task_out *out, uint32_t edge, uint32_t channel,
		       const struct wm_record *r);
	/* Send `n` records (n >= 1) on channel `channel` of output edge
	 * `edge`, in order, as one run; the task counted them sent before
	 * the call. NULL: the task sends them one by one through `record`,
	 * which a driver that stages records one at a time needs no more
	 * than. */
	void (*records)(struct wm_task_out *out, uint32_t edge,
			uint32_t channel, const struct wm_record *r,
			uint32_t n);
	/* One window result for the chained sink. */
	void (*result)(struct wm_task_out *out,
		       const struct wm_window_result *r, wm_ts_t watermark,
		       int64_t fire_time_ms);
	/* One pair of a join for the chained sink, emitted when the join's
	 * watermark was `watermark`. */
	void (*pair)(struct wm_task_out *out, const struct wm_join_result *r,
		     wm_ts_t watermark, int64_t fire_time_ms);
	/* A late record for late output `k` of the stage (only when it has
	 * one, wm_stage_late_output()): a window's record late for all its
	 * windows (0), an interval join's late record of side k. */
	void (*late)(struct wm_task_out *out, unsigned k,
		     const struct wm_record *r);
	/* The task's snapshot for checkpoint `id` (`len` bytes, valid during
	 * the call): a source's when triggered, any other's when its
	 * barriers aligned. The driver keeps it; NULL: a driver that takes
	 * no checkpoint. */
	void (*snapshot)(struct wm_task_out *out, int64_t id, const void *bytes,
			 size_t len);
};

/* A `record` for drivers whose channels carry frames (--sim's queues,
 * direct calls): the record's frame, through out->frame. */
void wm_task_record_as_frame(struct wm_task_out *out, uint32_t edge,
			     uint32_t channel, const struct wm_record *r);

struct wm_task_counters {
	uint64_t records_in; /* read from partitions or input channels */
	/* Sent on edges; for a window, which sends none, its results and
	 * late side output (Flink's numRecordsOut: what it emitted). */
	uint64_t records_out;
	uint64_t watermarks_out;
	uint64_t statuses_out;
};

struct wm_task;

/*
 * The task for subtask `id` of `plan`, the plan of `topo` (both outlive
 * the task), writing to `out` and publishing to its block, partition
 * entries and fire delays in `metrics`, a zeroed metrics area laid out by
 * `plan` (wm_plan_block(), wm_plan_partitions(), wm_plan_fire_delays();
 * the task is their only writer). Its input channels, output edges and
 * their channels are the plan's (wm_plan_subtask). A source stage reads
 * `src`, the record source its driver opened for it (runtime/source/sources.h:
 * the subtask's partitions, generated or replayed; -EINVAL if it is
 * missing); the task owns it from the call on, and frees it, even when the
 * call fails. NULL for other stages. NULL with errno on failure.
 */
struct wm_task *wm_task_new(const struct wm_topology *topo,
			    const struct wm_plan *plan, uint32_t id,
			    struct wm_task_out *out, void *metrics,
			    struct wm_record_source *src);

/* Lines of the replayed trace skipped as bad that this subtask reports
 * (wm_sources_open()'s count), for the summary. */
void wm_task_bad_records(struct wm_task *task, uint64_t n);

/* The keys the task takes are strings (one key type a stage: replay.c):
 * a window's results and a join's pairs as records carry the string-key
 * flag, those of a window or a window join restored from a checkpoint
 * that fire before any record arrives too. Set by the driver (wm_sources_new_task()) before the first run;
 * no flag until then. */
void wm_task_string_keys(struct wm_task *task);

/* The job's event-time clock: the epoch milliseconds its processing time
 * 0 stands for (runtime/source/sources.h, wm_sources_clock_zero_ms()).
 * Fire delays and the emit lag are read on it, and it is published for
 * the lags an observer reads. Set by the driver before the first run
 * (a real run's at its start line); 0 until then. */
void wm_task_set_clock_zero(struct wm_task *task, int64_t ms);
void wm_task_free(struct wm_task *task);

/* Input channels of this task, and the edges out of it. */
uint32_t wm_task_input_channels(const struct wm_task *task);
uint32_t wm_task_output_edges(const struct wm_task *task);
uint32_t wm_task_edge_channels(const struct wm_task *task, uint32_t edge);

/* A frame arrived on input channel `channel`. Returns 0, -EBADMSG for a
 * frame this task cannot take (a corrupt stream), or -ENOMEM when a window
 * could not allocate the state of the record (it went into none of its
 * windows and was not counted: the job must stop, as Flink's fails;
 * wm_task_why() says what). */
int wm_task_input(struct wm_task *task, uint32_t channel,
		  const struct wm_frame *f, int64_t now_ns);

/* A run of `n` records arrived on input channel `channel`, in the `n`
 * RECORD cells at `cells`, which the caller owns until the call returns
 * (ring.h, wm_ring_peek_records()): read where they lie, all at `now_ns`.
 * Returns as wm_task_input() does; after a failure the records from the
 * failed one on are neither taken nor counted received. */
int wm_task_input_records(struct wm_task *task, uint32_t channel,
			  const struct wm_cell *cells, uint32_t n,
			  int64_t now_ns);

/* The same for a run the driver holds as records (--sim's queues,
 * sim_queue.h): `n` records at `r`, in arrival order, all at `now_ns`. */
int wm_task_input_run(struct wm_task *task, uint32_t channel,
		      const struct wm_record *r, uint32_t n, int64_t now_ns);

/* What the last failed wm_task_input() could not do, for a message. */
const char *wm_task_why(const struct wm_task *task);

/* The real time the task's process has waited for a CPU so far (runnable,
 * not running: the kernel's run delay), as the runtime last read it: each
 * stall then says how much of it was the process not being scheduled
 * (progress.h). Never called under --sim, whose processing time has no
 * scheduler. */
void wm_task_cpu_wait(struct wm_task *task, int64_t waited_ns);

/* The task runs on a real scheduler at [job] speed `speed`: its
 * watermarks' updates are taken when the records' schedule says (a
 * source's own, or what a frame carries), and a still stretch that only
 * its lateness made a stall is counted apart (progress.h). Call once,
 * before the first input; never under --sim. */
void wm_task_count_noise(struct wm_task *task, double speed);

/*
 * A window on processing time (`time = processing`, operators/window.h)
 * fires its windows on the processing-time clock, inputs or not: the
 * driver runs wm_task_run_timers() at wm_task_timers_due(), the
 * processing time (ns) from which its next timer fires, or later
 * (INT64_MAX: none, a finished task, or no such window). A task also
 * fires what fell due before any input it takes. Its timers pending when
 * its inputs end never fire, as Flink's are dropped at the end of input.
 */
int64_t wm_task_timers_due(const struct wm_task *task);
void wm_task_run_timers(struct wm_task *task, int64_t now_ns);

/* Every input delivered END. */
bool wm_task_inputs_done(const struct wm_task *task);

/* Records a source emits per wm_task_run_source() call at most. */
#define WM_TASK_SOURCE_BURST 256u

/* Sources: emit the records due by `now_ns` (processing time since the
 * job started; at most WM_TASK_SOURCE_BURST) and run the periodic
 * watermark tick if due. Returns the processing time of the next thing to
 * do (<= now_ns: call again at once; INT64_MAX: nothing). When every
 * partition is finished, or [job] processing_time has passed, ends the
 * stream: MAX watermark, then END. */
int64_t wm_task_run_source(struct wm_task *task, int64_t now_ns);

/*
 * A source whose records arrive from outside (operators/source_gen.h,
 * set_wake): hand its record source `wake(arg)`, which it calls from any
 * thread when records may have arrived; false (nothing done) for a
 * source driven by processing time alone, or a task that is no source.
 */
bool wm_task_source_set_wake(struct wm_task *task, void (*wake)(void *arg),
			     void *arg);

/*
 * Whether a source can go on, as of its last run: its record source's
 * health() (exit_code 0 and the outages it rode out), or the task's own
 * EX_SOFTWARE when the record source broke its interface (a partition it
 * may not list). Once exit_code is set it stays, the source emits
 * nothing more and wm_task_run_source() returns INT64_MAX: the driver
 * stops the job with that code and `why` (a worker fails, supervisor.h).
 * NULL for a task that is no source.
 */
const struct wm_source_health *
wm_task_source_health(const struct wm_task *task);

/* When a source's next record is due, or its input ends ([job]
 * processing_time): INT64_MAX when neither will happen from the passage of
 * time alone (partitions silent for ever, or all held back by watermark
 * alignment), only watermark ticks and alignment updates. */
int64_t wm_task_source_input_due(const struct wm_task *task);

/*
 * Jumping over time in which a source can change nothing (--sim): a
 * partition silent for years is billions of periodic ticks and alignment
 * updates that each change nothing. Stepping through them gives the same
 * output as jumping, only slower.
 *
 * wm_task_source_next_event() is the earliest time, for a source that ran
 * last at or before `from_ns` (and nothing ran it since), at which running
 * it can change anything: its first run; its next record due or the end
 * of its input (wm_task_source_input_due()); the first periodic tick that
 * can change anything (operators/source_watermarks.h); the first
 * alignment update at or after `from_ns` if one can change anything now:
 * its own report changed, or the group's reports did. Ticks and updates
 * due before that time, from `from_ns` on, change nothing, as long as no
 * other source of its alignment group runs meanwhile (a report of theirs
 * may change: ask again, with the time of their run). A value <= from_ns:
 * run it at once; INT64_MAX: never from the passage of time alone.
 *
 * wm_task_source_skip(), just before running the source at `now_ns`, the
 * time next_event() gave (or a later one asked again gave), takes the
 * ticks and updates due before `now_ns` as run on time: their schedules
 * move on as running each on time would have moved them (the next one
 * plus whole intervals), so the output is the same as stepping through
 * them. After a run that left records due (wm_task_run_source() returned
 * at most its now_ns) it does nothing: the caller comes back when it can,
 * and what fell due meanwhile runs late, as in a real run.
 */
int64_t wm_task_source_next_event(const struct wm_task *task, int64_t from_ns);
void wm_task_source_skip(struct wm_task *task, int64_t now_ns);

/* A source replaying the backlog of a restore with checkpoint_watermarks
 * runs one instant of its due times a run (task_source.c, replay_due()):
 * the instant its next run at `now_ns` takes, earlier than now_ns; now_ns
 * for a source not replaying (or done, or whose input ended in the
 * backlog). Moves the schedule over the ticks before it that change
 * nothing, as _skip() does. A driver that runs several sources at once
 * (--sim) runs, of those due, only the ones at the earliest instant, so
 * that their backlogs go downstream in the order of the run without the
 * crash. */
int64_t wm_task_source_backlog_instant(struct wm_task *task, int64_t now_ns);

/* Stop a source now, as Flink's stop without drain: END(STOP) on every
 * output and no MAX watermark, so windows still open stay unfired (their
 * records are in them); the tasks downstream pass END(STOP) on once all
 * their inputs ended, and finish. A finished source is left alone. */
void wm_task_stop_source(struct wm_task *task);

/* The task finished: a source that sent END, or a task whose inputs all
 * ended (it then sent END itself). */
bool wm_task_finished(const struct wm_task *task);

const struct wm_task_counters *wm_task_counters(const struct wm_task *task);

/*
 * Watermark alignment: if this task is a source of an alignment group, it
 * talks to the group through the metrics blocks of the plan's subtasks
 * in `metrics`, the area wm_task_new() was given (the segment's, or
 * --sim's; its own block included). Call once, before the first run; a
 * task that is not aligned is left alone. Every
 * watermark_alignment_update_interval it reports into its block, reads
 * the group's reports and pauses what runs ahead (operators/alignment.h);
 * partitions only if the record source can pause them. 0, -EINVAL (called
 * before) or -ENOMEM.
 */
int wm_task_align(struct wm_task *task, void *metrics);

/* A source cannot send (`blocked`: its output ring is full) or can again:
 * its idleness clock stops meanwhile (doc/semantics.md section 2.7). */
void wm_task_backpressure(struct wm_task *task, bool blocked, int64_t now_ns);

/* Write every figure to the metrics block, open stretches counted up to
 * `now_ns`, or up to the task's own time if a send that waited for room
 * moved it later (wm_task_backpressure()). Window fire delays are written
 * as they happen. Call it after a batch of work and at the end (then set
 * `finished`, metrics.h). */
void wm_task_publish(const struct wm_task *task, int64_t now_ns);

/*
 * Checkpoints ([job] checkpoint_interval; --sim and real runs). A task
 * with inputs aligns the BARRIER frames of its channels
 * (operators/barrier_align.h): a channel that delivered the pending
 * checkpoint's barrier is blocked, and the driver delivers nothing more of
 * it while wm_task_input_blocked() says so; once aligned the task hands
 * its snapshot to out->snapshot and forwards the barrier. Watermarks and
 * idleness are in no snapshot (Flink; doc/semantics.md section 12).
 *
 * wm_task_trigger_checkpoint(): a source that has not finished snapshots
 * its record source's position and sends BARRIER(id), stamped `now_ns`, on
 * every output channel. 0, -EINVAL (not a running source) or the
 * snapshot's error (-ENOTSUP: its record source cannot say its position).
 *
 * wm_task_restore(): a new task (nothing taken yet: -EINVAL otherwise)
 * takes the state of a snapshot it handed out: a source seeks its record
 * source to the position (the records after it come again, those already
 * due at once), a window restores its operator. 0 or the reader's error.
 */
int wm_task_trigger_checkpoint(struct wm_task *task, int64_t id,
			       int64_t now_ns);
bool wm_task_input_blocked(const struct wm_task *task, uint32_t channel);
/* How long the last aligned checkpoint's barriers took to align: first
 * to last (Flink's checkpointAlignmentTime); 0 for a source or before
 * any. Valid in the out->snapshot call that follows the alignment. */
int64_t wm_task_last_alignment_ns(const struct wm_task *task);

/* The driver aborted checkpoint `id` (its checkpoint_timeout passed, as
 * Flink's coordinator aborts one and notifies every task): a task still
 * aligning it unblocks every channel and forgets it, so that its barriers
 * still to come are ignored (operators/barrier_align.h, the cancel of
 * section 11.4). A task that aligned it already, or takes no checkpoint,
 * is left alone. */
void wm_task_abort_checkpoint(struct wm_task *task, int64_t id);
int wm_task_restore(struct wm_task *task, const void *bytes, size_t len);

/* A new task that replaces one lost at `now_ns` (a crash) starts its
 * watermarks' stretches (stalls, idleness: progress.h) then, not at 0. */
void wm_task_restarted_at(struct wm_task *task, int64_t now_ns);

/* The window operator of a window task (NULL otherwise). */
const struct wm_window *wm_task_window(const struct wm_task *task);
/* A join task's records, both sides': kept by its operator, and late or
 * refused (its counters); false for a task that is no join. */
bool wm_task_join_records(const struct wm_task *task, uint64_t *kept,
			  uint64_t *elsewhere);

#endif /* WM_RUNTIME_ENGINE_TASK_H */
