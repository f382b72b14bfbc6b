/*
 * sim.h
 *	--sim: every subtask of a job in one process, on simulated processing
 *	time, running the very same task code as the worker processes.
 *
 * The rules, precise enough that an independent implementation of
 * Flink's semantics produces the same output from the same topology:
 *
 *  1. Time. Processing time starts at 0 and jumps from event to event;
 *     `speed` does not apply (nothing waits). The events are the source
 *     subtasks' next due times: a record's arrival (source_gen.h) or a
 *     periodic watermark tick (every watermark_interval, the first one
 *     interval after 0, then one interval after each tick ran). A source
 *     with records due at every instant (an unlimited rate, or the backlog
 *     of a partition that alignment paused) emits at most 256 per instant
 *     and is charged 1 us of processing time per record, so time moves on
 *     and ticks happen; a tick or update that falls due meanwhile runs
 *     late, at the end of the charge, and the next is due one interval
 *     after that.
 *     Time jumps over what cannot change anything: a tick with no
 *     record since the previous one (its watermarks are out already) and
 *     no idleness countdown to start or to expire at it (announced
 *     already, or not yet due: operators/source_watermarks.h), and an
 *     alignment update that would report what the last one reported and
 *     read the reports the last one read (runtime/engine/task.h). Such a
 *     tick or update is not run but counted as run on time: the next one
 *     is due exactly whole intervals later, as if each had run. The output is
 *     byte for byte that of running every one; a trace with years
 *     between records, or partitions silent for years, take as long as
 *     their records.
 *  2. At each instant t (the earliest next event over all sources), every
 *     source subtask with an event due at t runs, in stage order then
 *     subtask order: first its watermark alignment update if due (aligned
 *     sources, every update interval, the first one interval after 0: it
 *     reports, then reads the group's reports as they stand, those of
 *     subtasks that ran earlier at t included, and pauses or resumes),
 *     then all its records due at or before t (earliest arrival first,
 *     ties by partition; none while it waits for alignment, none of a
 *     paused partition), each followed by its partition's watermark
 *     generator, then its tick if due. A source whose partitions all
 *     finished sends MAX (unless IDLE is announced: released Flink loses
 *     it) and END, and reports MAX to its alignment group.
 *  3. Transport has no delay, never reorders a channel and never fills
 *     (so no source is ever back-pressured: idleness clocks stop only for
 *     alignment). Every frame a subtask sends is queued for its
 *     receiver; after the sources of an instant ran, queues are drained
 *     in stage order then subtask order, each receiver taking its whole
 *     queue in arrival order (records of one channel with nothing
 *     between them as one run, sim_queue.h), again and again until every
 *     queue is empty, all at the same instant t.
 *  4. The job ends when every source finished and every queue is empty.
 *     Window results are written by the window's subtasks (the sink is
 *     chained) in the order they fire; fire_time is t in milliseconds.
 *     A job that cannot end is refused (-EINVAL, naming the source's
 *     section): a generating source without any [job] run length, and
 *     sources left with no event that can change anything, ever (a
 *     partition silent for ever short of [job] records, or held back for
 *     ever behind one, once idleness and alignment have done all they
 *     can).
 *  5. Stop. The first SIGINT, SIGTERM or SIGHUP (unless ignored when the
 *     job started, as nohup and background jobs leave some) stops the
 *     job after the instant at hand, as a real run's stop: every source
 *     ends its stream with END(STOP) (no MAX watermark, so windows still
 *     open stay unfired), the queues drain at that instant, and the job
 *     ends there, its figures as of then, every record accounted for.
 *  6. Alerts ([job] alert_*, runtime/observe/alerts.h). The job is
 *     sampled at every multiple of the smallest duration of any tier,
 *     and at every moment an episode going on reaches its next tier; a
 *     sample at s sees the job as it stood just before s (after every
 *     instant before s), and prints the alerts it raised on stderr. A
 *     job without alerts is never sampled for them.
 *  7. Report (wm_sim_run_recorded()). The job is sampled at 0 before
 *     anything ran, at the first point of the recorder's grid
 *     (runtime/chart/recorder.h, its buckets) after every instant that
 *     ran, and at its end; a sample at s sees the job as it stood just
 *     before s. These samples are apart from the alerts': neither sees
 *     the other's, and neither changes the job's output or summary.
 *  8. Checkpoints ([job] checkpoint_interval, checkpoint_dir). Checkpoint
 *     n is triggered every interval of processing time (the first one
 *     interval after 0), before the sources run at that instant, while
 *     none is being taken (one at a time) and no source has finished:
 *     every source snapshots its position and sends BARRIER(n) on every
 *     output channel. A task aligns the barriers of its input channels
 *     (operators/barrier_align.h): the frames of a channel that delivered
 *     the barrier stay in its queue, in order, until every channel has
 *     (a frame held in a round holds the channel's later frames of that
 *     round too); aligned, it snapshots and forwards the barrier. When
 *     every subtask has handed its snapshot, the checkpoint is committed
 *     to the store (runtime/checkpoint/checkpoint_store.h); its duration
 *     is processing time from trigger to commit, 0 unless alignment
 *     held frames past the instant. One not committed [job]
 *     checkpoint_timeout after its trigger is aborted then (counted timed
 *     out; every task aligning it lets go); one the store fails is given
 *     up with a warning (counted failed), and the job goes on. Ids follow
 *     those already in the directory. Every rule of this one is a real
 *     run's too (runtime/checkpoint/checkpoint_cycle.h, which both
 *     drivers call). Checkpoints change nothing of the output.
 *  9. Restart ([job] fail_at). At fail_at, before anything else at that
 *     instant, every subtask crashes: its state and every queued frame
 *     are lost, a checkpoint being taken is aborted. The restart
 *     strategy ([job] restart_strategy, runtime/restart/, its jitter
 *     drawn from a stream of the job's seed) decides: the job fails
 *     there (none, or no attempt left: wm_sim_run() returns 1), or
 *     after its delay (0: at the same instant) of processing time in
 *     which nothing runs and no checkpoint is triggered (the next is
 *     the first of rule 8's grid at or after the restore), every
 *     subtask starts again as new from the latest complete checkpoint
 *     this run took (none: from the start), its metrics block as at the
 *     job's start with the snapshot's counts. Sources seek to their positions
 *     and run at once: records due since are a backlog (rule 1's
 *     charge). No watermark is restored: every input at MIN and ACTIVE,
 *     idleness countdowns and periodic ticks starting again; with [job]
 *     checkpoint_watermarks they are restored instead, countdowns and
 *     ticks on the processing time, which runs on through the crash,
 *     and the backlogs run at the restore's instant t before anything
 *     else at t, one instant of their due times at a time, as they ran
 *     before (wm_task_source_backlog_instant()): the sources at the
 *     earliest backlog instant run it, in subtask order, and it settles,
 *     until none is left before t; then the sources run at t as at any
 *     instant. So every source's backlog goes downstream in the order of
 *     the run without the crash, in no processing time (no rule 1
 *     charge: it was all due).
 *     Results fired after the checkpoint are fired again: a file sink or
 *     late output file gets each once (exactly-once: its parts after the
 *     checkpoint were never committed, runtime/checkpoint/part_commit.h),
 *     standard output or a FIFO twice (at-least-once).
 * 10. Processing-time windows ([window] time = processing). Their timers
 *     are events too: at an instant t, after rule 9 and before the
 *     sources run, each window whose next timer is due by t fires what
 *     fell due, in subtask order (wm_task_run_timers()); records that
 *     arrive at t go into the windows of t. Timers pending when the
 *     window's inputs end never fire (Flink drops them at the end of
 *     input).
 *
 * Same topology and seed: byte-identical output, every run.
 */
#ifndef WM_RUNTIME_RUN_SIM_H
#define WM_RUNTIME_RUN_SIM_H

#include <stdint.h>
#include <stdio.h>

#include "runtime/chart/recorder.h"
#include "runtime/report/report.h"
#include "runtime/conf/topology.h"

/*
 * Run `topo` to its end. Sinks write to their paths ("-": stdout), late
 * side outputs to theirs. Returns 0 with `report` filled (free it with
 * wm_report_free()), or a negative errno with a message in err (-EIO for
 * an output that could not be written: exit 74; -EBUSY for a checkpoint
 * directory another running job holds, runtime/checkpoint/dir_lock.h:
 * exit 75; -EPROTO for a frame a task refused, an internal error: 70).
 * Stopped by the first SIGINT, SIGTERM or SIGHUP that is not ignored
 * (rule 5), it returns
 * 128 + the signal's number, the exit status of a real run stopped so,
 * with `report` filled (marked stopped) and err saying which signal.
 * A job its restart strategy failed at fail_at (rule 9) returns 1, a
 * real run's status for a dead worker, with `report` filled (marked
 * failed) and err naming the crash.
 */
int wm_sim_run(const struct wm_topology *topo, struct wm_job_report *report,
	       char *err, size_t errlen);

/*
 * wm_sim_run(), the job sampled for a report (rule 7) into a new
 * recorder left in *rec (the caller frees it; NULL if the job never
 * started), its grid starting `every_ns` apart (<= 0: from the job's
 * length, or 1 s).
 */
int wm_sim_run_recorded(const struct wm_topology *topo, int64_t every_ns,
			struct wm_recorder **rec, struct wm_job_report *report,
			char *err, size_t errlen);

#endif /* WM_RUNTIME_RUN_SIM_H */
