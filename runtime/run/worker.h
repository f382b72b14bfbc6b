/*
 * worker.h
 *	One subtask as a process: its task (task.h) between the rings of the
 *	shared segment, on the real clock.
 *
 * The worker maps the segment itself (after fork, from the inherited
 * descriptor) and checks it before use; reads its input rings fairly
 * through a gate; pushes its frames into its output rings, waiting when
 * one is full; and sleeps on its doorbell when it has nothing to do,
 * after ringing (fenced) everyone it publishes to. Processing time is the
 * monotonic clock since the job started, times the job's speed.
 *
 * Its figures live in its metrics block in the segment (metrics.h):
 * written by this worker only, read by the supervisor at any time. A
 * window worker writes its results into the sinks it inherited, whole
 * lines gathered and written when it has nothing else to do (sink.h).
 *
 * With checkpoints ([job] checkpoint_interval) a source takes the
 * checkpoint the supervisor triggers in the segment, and every worker
 * writes its snapshot into the checkpoint's directory, acknowledges it in
 * its metrics block and wakes the supervisor with SIGUSR1
 * (coordinator.h). While a checkpoint's barriers align, the channels that
 * delivered theirs are left unread (gate.h).
 *
 * The first failure (a wait that fails, an output that cannot be written,
 * a record whose window state cannot be allocated, a corrupt frame) is
 * reported on one line of stderr, naming the subtask, and ends the worker
 * with its sysexits code: nothing more is sent or written, and the
 * supervisor stops the job.
 */
#ifndef WM_RUNTIME_RUN_WORKER_H
#define WM_RUNTIME_RUN_WORKER_H

#include <stdint.h>

#include "ipc/wait.h"
#include "runtime/plan/plan.h"
#include "runtime/source/replay.h"
#include "runtime/io/sink.h"
#include "runtime/conf/topology.h"

struct wm_keys;

struct wm_worker_args {
	const struct wm_topology *topo;
	const struct wm_plan *plan;
	uint32_t subtask;
	int shm_fd;
	enum wm_wait_mode wait; /* how to wait for rings */
	/* by stage (inherited, opened): a sink stage's, or the recording
	 * of a recorded source (--record-trace) */
	struct wm_sink **sinks;
	/* every stage's late outputs (wm_late_sink_index()), NULL where
	 * none (inherited, opened) */
	struct wm_sink **lates;
	/* by stage: the replayed traces the supervisor read (inherited,
	 * never written: their pages stay shared) */
	struct wm_replay_trace *const *traces;
	/* The job's string-key dictionary (keys.h; NULL: none), shared with
	 * every process of the job: where a source that learns keys as it
	 * runs (Kafka) interns them. */
	struct wm_keys *keys;
	uint32_t cells; /* ring size, for nothing but checks */
	/* Checkpoints (coordinator.h): the complete checkpoint to restore
	 * the subtask from before it starts (0: none); the processing time
	 * origin of the job's first attempt, which a restarted job keeps
	 * (0: this is the first, the start line is the origin); and a
	 * window's watermark as the supervisor last saw it before the
	 * crash (WM_TS_MIN: none), to measure how long the restored job
	 * holds event time back (metrics.h, caught_up_ns). */
	uint64_t restore_from;
	/* Exactly-once file outputs (exactly_once.h; NULL: none): by
	 * stage, the output of each sink stage and late output that is a
	 * file. A window writes those into parts of its own, the first of
	 * epoch first_epoch, sealed at each checkpoint, never into the
	 * file, which only the supervisor appends to. */
	const int32_t *output_of;
	uint64_t first_epoch;
	uint64_t run; /* the committer's run id, in its parts' names */
	int64_t job_start_ns;
	/* A resumed job (wmrun --resume) on its first attempt: the
	 * processing time its checkpoint was taken at, from which it goes
	 * on; 0 otherwise. */
	int64_t resumed_at_ns;
	int64_t crash_watermark;
};

/* Run the subtask to its end. Returns an exit status (0, or a sysexits
 * code after printing "wmrun[stage/i]: error: ..." to stderr). */
int wm_worker_run(const struct wm_worker_args *args);

#endif /* WM_RUNTIME_RUN_WORKER_H */
