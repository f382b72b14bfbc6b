/*
 * sim_job.h
 *	The --sim job as its driver's two files share it: its tasks, their
 *	in-memory queues and the job's state (sim.c: instants, channels,
 *	sampling; sim_checkpoint.c: rules 8 and 9, the checkpoints, the
 *	crash and the restore). For runtime/run/sim*.c only.
 */
#ifndef WM_RUNTIME_RUN_SIM_JOB_H
#define WM_RUNTIME_RUN_SIM_JOB_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ipc/frame.h"
#include "runtime/chart/recorder.h"
#include "runtime/checkpoint/checkpoint_cycle.h"
#include "runtime/checkpoint/exactly_once.h"
#include "runtime/engine/task.h"
#include "runtime/observe/alerts.h"
#include "runtime/observe/snapshot.h"
#include "runtime/plan/plan.h"
#include "runtime/report/job_report.h"
#include "runtime/restart/restart_strategy.h"
#include "runtime/run/sim_queue.h"
#include "runtime/source/replay.h"

struct sim;

struct sim_route {
	struct wm_sim_queue *queue;
	uint32_t channel;
};

struct sim_task {
	struct wm_task_out out; /* first: recovered with wm_container_of */
	struct sim *sim;
	struct wm_task *task;
	const struct wm_plan_subtask *sub; /* its place in the plan */
	struct wm_sim_queue in; /* what its input channels delivered */
	/* Where each output channel leads, by edge (routes[e][c]): the
	 * consumer's queue and its input channel there, looked up once
	 * (wire()) rather than through the plan for every record. */
	struct sim_route **routes;
	int64_t next_due;	/* sources: when to run it next */
	bool charged;		/* next_due pays for records (rule 1) */
	bool aligned;		/* a source of an alignment group */
	struct wm_sink **sinks; /* chained sinks of a window, NULL-ended */
	/* Its stage's late outputs (wm_stage_late_output()), NULL where
	 * none. */
	struct wm_sink *late[WM_STAGE_LATE_OUTPUTS];
	/* Exactly-once outputs (exactly_once.h): which of sinks[] (and late)
	 * are parts of this subtask's own, and the epoch of the parts open;
	 * the others are the stage's file or stream, written straight
	 * through. */
	struct wm_window_parts parts;
	bool *holding; /* by input channel, while settling: frames held
			* back (rule 8); NULL when the job takes no
			* checkpoint */
};

struct sim {
	const struct wm_topology *topo;
	struct wm_plan
		*plan; /* subtasks and channels, as workers number them */
	uint32_t n_tasks;
	struct sim_task *tasks; /* by plan subtask id */
	/* By stage: the sink of a sink stage, the recording of a recorded
	 * source (--record-trace). */
	struct wm_sink **stage_sinks;
	/* Every stage's late outputs (wm_late_sink_index()), NULL where
	 * none. */
	struct wm_sink **late_sinks;
	/* The committer of the outputs that are files, with checkpoints
	 * (NULL: none), and each output's number in it
	 * (wm_exactly_once_slot()), -1 for a stream. */
	struct wm_part_commit *commit;
	int32_t *output_of;
	struct wm_replay_trace **traces; /* by stage: replayed, read first */
	int64_t now_ns;
	/* The job failed: -ENOMEM (a queue or a window's state could not
	 * grow) or -EIO (an output could not be written), why says what;
	 * it stops at the end of the instant. */
	/* The queue a task's input swaps with while it is drained
	 * (settle()), kept from one instant to the next with its arrays:
	 * an instant allocates nothing once the queues have grown. */
	struct wm_sim_queue spare;
	int error;
	char why[512];
	int stopped_by; /* the signal that stopped the job, or 0 */
	void *metrics;	/* the metrics area, laid out as in the segment */
	/* Alerts ([job] alert_*; NULL: none): the last snapshot, the
	 * sampling grid, and the last instant run since that snapshot
	 * (-1: none), watch_until(). */
	struct wm_alerts *alerts;
	struct wm_snapshot *snap;
	int64_t sample_every_ns;
	int64_t changed_at_ns;
	/* The report's samples (NULL: no report asked), on the recorder's
	 * grid (rule 7): apart from the alerts', with their own snapshot
	 * before and their own last instant run since a sample (-1: none),
	 * so that neither sampler changes what the other sees. */
	struct wm_recorder *rec;
	struct wm_snapshot *rec_snap;
	int64_t rec_changed_at_ns;
	/* Checkpoints ([job] checkpoint_interval; NULL: none), their life
	 * as a real run's (checkpoint_cycle.h) on --sim's clock. */
	struct wm_checkpoint_cycle *cycle;
	int lock_fd; /* the directory's lock (dir_lock.h); -1: none */
	/* [job] fail_at (INT64_MAX: none, or done), and after the crash
	 * the window watermarks of the crash to catch up with (by plan id;
	 * NULL: caught up, or none). */
	int64_t fail_ns;
	wm_ts_t *crash_watermarks;
	/* [job] restart_strategy, its jitter's draws (a stream of the job's
	 * seed), and between the crash and the restore (rule 9) the time of
	 * the restore (INT64_MAX: the job is not down) and the counts at
	 * the crash. gave_up: the strategy failed the job at the crash. */
	struct wm_restart_strategy restart;
	struct wm_restart_draws restart_draws;
	int64_t restore_ns;
	uint64_t read_at_crash, results_at_crash;
	bool gave_up;
	/* The restart's figures; the checkpoints' counts are the cycle's. */
	struct wm_checkpoint_summary checkpoints;
};

/* Whether `st` runs a source. */
static inline bool
wm_sim_is_source(const struct sim *sim, const struct sim_task *st)
{
	return sim->topo->stages[st->sub->stage].kind == WM_STAGE_SOURCE;
}

/* The job failed (`error` < 0, `why` saying why): the first failure stops
 * it at the end of the instant; later ones follow from it. */
static inline void
wm_sim_failed(struct sim *sim, int error, const char *why)
{
	if (sim->error != 0)
		return;
	sim->error = error;
	snprintf(sim->why, sizeof(sim->why), "%s", why);
}

/* An output's errno as the job's failure: an output file that cannot be
 * opened is an output error (-EIO, exit 74), as in a real run: its errno
 * (ENOENT, EACCES) must not read as a missing input; -ENOMEM stays. */
static inline int
wm_sim_output_error(int r)
{
	return r == -ENOMEM ? r : -EIO;
}

/* Rule 8: the checkpoints of [job] checkpoint_dir set up (none without
 * [job] checkpoint_interval), with the outputs they make exactly-once. */
int wm_sim_checkpoints_set_up(struct sim *sim, char *err, size_t errlen);
/* A task's snapshot callback (wm_task_out.snapshot). */
void wm_sim_snapshot(struct wm_task_out *out, int64_t id, const void *bytes,
		     size_t len);
/* The next checkpoint triggered at `t` if it is due. */
int wm_sim_trigger_checkpoint(struct sim *sim, int64_t t, char *err,
			      size_t errlen);
/* When the pending checkpoint times out; INT64_MAX: none pending. */
int64_t wm_sim_checkpoint_deadline(const struct sim *sim);
/* The pending checkpoint given up past its timeout. */
int wm_sim_time_out_checkpoint(struct sim *sim, int64_t t, char *err,
			       size_t errlen);
/* Rule 9: the crash of [job] fail_at, and the restore after the restart
 * strategy's delay. */
int wm_sim_crash(struct sim *sim, char *err, size_t errlen);
int wm_sim_restore(struct sim *sim, char *err, size_t errlen);
/* After an instant following the restore: the hold ends once every
 * window's watermark is back where it was at the crash. */
void wm_sim_watch_catch_up(struct sim *sim);
/* The exactly-once outputs at the job's end (`r` < 0: it failed). */
int wm_sim_end_outputs(struct sim *sim, int r, char *err, size_t errlen);

#endif /* WM_RUNTIME_RUN_SIM_JOB_H */
