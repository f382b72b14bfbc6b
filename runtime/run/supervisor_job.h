/*
 * supervisor_job.h
 *	A real run's job as its supervisor follows it, shared by the
 *	supervisor's two files (supervisor.c: the segment, the forks,
 *	waiting and stopping; supervisor_restart.c: the restart after a
 *	failed attempt).
 *	For runtime/run/supervisor*.c only.
 */
#ifndef WM_RUNTIME_RUN_SUPERVISOR_JOB_H
#define WM_RUNTIME_RUN_SUPERVISOR_JOB_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ipc/shm.h"
#include "runtime/io/keys.h"
#include "runtime/plan/plan.h"
#include "runtime/report/job_report.h"
#include "runtime/restart/restart_strategy.h"
#include "runtime/run/coordinator.h"
#include "runtime/run/observer.h"

struct child {
	pid_t pid;
	bool done;
	/* Told to go (SIGTERM, SIGKILL): its death by that signal is the
	 * stop's doing, not a failure of its own. */
	bool signalled;
	uint64_t max_rss_kib; /* ru_maxrss from wait4(), once done */
	/* The most its earlier attempts fell behind the records' schedule
	 * (metrics.h late_max_ns), which a restart's new metrics block
	 * forgets: the run's scheduling noise is of all of them. */
	int64_t late_max_ns;
};

enum phase { RUNNING, DRAINING, TERMINATING, KILLING };

/* One run of a job, as the supervisor follows it. */
struct job {
	const struct wm_topology *t;
	const struct wm_plan *plan;
	struct child *children;
	uint32_t running;
	enum phase phase;
	int64_t deadline; /* of DRAINING and TERMINATING */
	int stop_signal;  /* the signal that asked for the stop, 0 */
	int failure;	  /* exit status of the first failure, 0 */
	char *err;	  /* what the job's status says */
	size_t errlen;
	struct wm_observer observer; /* pid 0: none */
	int observer_status;	     /* once reaped */
	/* The segment, once set up: a failed source's why is in its
	 * subtask's metrics block (metrics.h, source_why). */
	const struct wm_shm *seg;
	/* Checkpoints (coordinator.h; NULL: none) and restarts: the
	 * checkpoint the workers start from, the first attempt's start line
	 * (0 before it is known: processing time runs on from it), each
	 * window's watermark at the last failure (WM_TS_MIN: none), the
	 * peak memory of each subtask over every attempt. */
	struct wm_coordinator *coordinator;
	uint64_t restore_from;
	int64_t job_start_ns;
	int64_t *crash_watermark;
	struct wm_checkpoint_summary restarts; /* the notes and count */
	bool fail_injected; /* [job] fail_at's kill was sent */
	/* Exactly-once file outputs (exactly_once.h; NULL: none). */
	struct wm_part_commit *commit;
	int32_t *output_of;
	/* [job] restart_strategy, and its jitter's draws (a stream of the
	 * job's seed, as --sim's). */
	struct wm_restart_strategy restart;
	struct wm_restart_draws restart_draws;
	/* The monotonic instant of the first attempt's forks: the restart
	 * strategy's clock counts from it (strategy_now()). */
	int64_t first_fork_ns;
	/* The checkpoint the last attempt could not restore (0: none):
	 * the next restores the one before it, or the job fails. */
	uint64_t unrestorable;
	/* A resumed job's processing time at its start (its checkpoint's
	 * trigger), in ns; 0 for a new job. */
	int64_t resumed_at_ns;
	/* The job's string-key dictionary (keys.h; NULL: no string keys):
	 * the traces' (theirs), or one of its own (own_keys) for a job that
	 * replays nothing and whose sources learn keys as they run. Made
	 * before any fork: every worker shares it, and so does every
	 * restart, which needs nothing reloaded. */
	struct wm_keys *keys;
	bool own_keys;
};

/* The monotonic instant at which the job's processing time was 0: the
 * first attempt's start line, moved back by a resumed job's processing
 * time at its start; 0 while no start line is known. */
static inline int64_t
wm_supervisor_job_origin(const struct job *j, const struct wm_shm *seg)
{
	int64_t started = wm_shm_started(seg);

	if (j->job_start_ns != 0)
		return j->job_start_ns;
	if (started == 0)
		return 0;
	return started - wm_scale_ns(j->resumed_at_ns, 1 / j->t->job.speed);
}

/* After an attempt: a worker that could not restore the checkpoint it
 * started from makes the attempt's failure that (65), and the restore
 * falls back to the checkpoint before it. */
void wm_supervisor_note_unrestorable(struct job *j, const struct wm_shm *seg);
/* Whether the failed attempt restarts, after *delay_ns of processing
 * time ([job] restart_strategy); if not, err says why. */
bool wm_supervisor_restartable(struct job *j, int64_t *delay_ns);
/* Every worker gone: the restart noted, the restore chosen and the outputs
 * recovered to it, and the segment cleared, for a launch after the
 * restart strategy's delay_ns (which the caller waits, a stop meanwhile
 * ending the job). 0, or an exit status with err set. */
int wm_supervisor_restart(struct job *j, struct wm_shm *seg, int64_t delay_ns);
/* The delay over: the job ready to launch again. */
void wm_supervisor_restarted(struct job *j, struct wm_shm *seg);
/* The last restart's note, once its attempt ended: how long it held event
 * time back. */
void wm_supervisor_note_hold(struct job *j, const struct wm_shm *seg);

#endif /* WM_RUNTIME_RUN_SUPERVISOR_JOB_H */
