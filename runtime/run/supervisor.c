/*
 * supervisor.c
 *	Create the segment, fork and pin one process per subtask, wait, and
 *	stop everything cleanly when one fails or the user interrupts.
 *
 * The supervisor never touches a ring (PostgreSQL's postmaster): a worker
 * that crashes cannot take it down, and it reads the workers' metrics
 * blocks only. Signals: SIGCHLD and the stop signals (SIGINT, SIGTERM,
 * SIGHUP) are blocked before the placement and the forks and taken with
 * sigtimedwait(). A stop signal that the caller left ignored (nohup's
 * SIGHUP, a background command's SIGINT) stays ignored, by the whole
 * job. Each child unblocks the signals, leaves SIGINT and SIGHUP to the
 * supervisor (ignored: a terminal's Ctrl-C reaches the whole group), asks
 * for SIGKILL when the supervisor dies (PR_SET_PDEATHSIG, then re-checks
 * its parent, which may have died before the prctl), pins itself where
 * the supervisor's plan says and runs its subtask. SIGPIPE is ignored by
 * the whole job (main.c): a reader that went away is a write error (exit
 * 74), not a death.
 *
 * Stopping, as a state machine:
 *
 *   RUNNING   --stop signal-->  DRAINING: the segment's stop flag is set
 *                               (wm_shm_request_stop()); sources end their
 *                               streams with END(STOP), the rings drain and
 *                               every worker exits with its final figures
 *   DRAINING  --STOP_GRACE_NS-->  TERMINATING: each worker left is named
 *                               for not having stopped (the job failed:
 *                               exit 1), then sent SIGTERM and SIGCONT (a
 *                               stopped process acts on SIGTERM only once
 *                               continued)
 *   DRAINING  --second signal-->  TERMINATING at once, the user's choice:
 *                               still 128 + n, the summary says what was
 *                               in flight
 *   TERMINATING --TERM_GRACE_NS-->  SIGKILL to the workers left, which
 *                               ends even a stopped process
 *   any       --a worker fails-->  KILLING: SIGKILL to the others; a stop
 *                               signal then is kept, and the job is not
 *                               restarted
 *
 * A worker that fails (dies by a signal, or exits non-zero) is named with
 * its pid and signal or status in every case, during a stop too, and the
 * job's exit status says so: the worker's sysexits code, or 1; a worker
 * that had to be killed because it did not stop also makes it 1. Only a
 * stop that every worker finished is 128 + n.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sysexits.h>
#include <unistd.h>

#include "base/clock.h"
#include "runtime/checkpoint/dir_lock.h"
#include "lib/units.h"
#include "ipc/shm.h"
#include "runtime/plan/affinity.h"
#include "base/exit.h"
#include "runtime/io/keys.h"
#include "base/log.h"
#include "runtime/metrics/metrics.h"
#include "runtime/plan/placement.h"
#include "runtime/restart/restart_strategy.h"
#include "runtime/run/coordinator.h"
#include "runtime/checkpoint/exactly_once.h"
#include "runtime/run/observer.h"
#include "runtime/run/supervisor.h"
#include "runtime/source/sources.h"
#include "runtime/run/supervisor_job.h"
#include "runtime/run/worker.h"
#include "runtime/source/record_trace.h"

/* How long a stopped job may take to drain before its workers are
 * terminated: rings hold at most ring_size each, which the workers move in
 * milliseconds; seconds leave room for a loaded machine. */
#define STOP_GRACE_NS ((int64_t)5000000000)
/* How long a terminated worker may take to go before it is killed. */
#define TERM_GRACE_NS ((int64_t)2000000000)

/* The CPUs the supervisor's plan gave each subtask, and the machine they
 * are on: the children pin themselves from these, inherited through fork,
 * without reading the machine again. */
struct placement {
	struct wm_affinity *machine; /* NULL: not pinned */
	int *cpu;		     /* by subtask; -1: not pinned */
	uint32_t allowed_cpus;	     /* the CPUs this job may use */
};

/* The CPUs this process may run on (taskset, cgroup cpusets), when the
 * machine could not be read. */
static uint32_t
allowed_by_affinity(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
	return (uint32_t)CPU_COUNT(&set);
}

/*
 * CPUs for the subtasks (-1 each when they cannot be pinned: a warning),
 * and each ring's pages bound to its consumer's NUMA node (a no-op on one
 * node, but exercised). Returns 0, or EX_CONFIG with err set when an
 * explicit [job] cpus list does not fit the job or the machine.
 */
static int
place(const struct wm_topology *t, const struct wm_plan *plan,
      const struct wm_shm *seg, struct placement *pl, char *err, size_t errlen)
{
	struct wm_affinity_plan *ap = NULL;
	char why[256];
	int status = 0;

	for (uint32_t i = 0; i < plan->n_subtasks; i++)
		pl->cpu[i] = -1;
	bool opened =
		wm_affinity_open(NULL, &pl->machine, why, sizeof(why)) == 0;

	pl->allowed_cpus = opened ? wm_affinity_allowed_pus(pl->machine)
				  : allowed_by_affinity();
	if (!opened || wm_placement_plan(pl->machine, t, plan, &ap, why,
					 sizeof(why)) != 0) {
		/* A CPU list the machine cannot follow is the user's to
		 * fix; a machine we cannot read is not. */
		if (t->job.cpus != NULL) {
			snprintf(err, errlen, "%s", why);
			status = opened ? EX_CONFIG : EX_OSERR;
		} else {
			wm_log("wmrun: warning: subtasks are not pinned: %s",
			       why);
		}
		goto out;
	}
	for (uint32_t i = 0; i < plan->n_subtasks; i++)
		pl->cpu[i] = (int)ap->place[i].cpu;
	for (uint32_t c = 0; c < plan->n_channels; c++)
		if (wm_affinity_bind_memory(pl->machine, wm_shm_ring(seg, c),
					    wm_shm_channel(seg, c)->ring_bytes,
					    ap->ring_node[c], why,
					    sizeof(why)) != 0) {
			wm_log("wmrun: warning: ring pages stay where they "
			       "are: %s",
			       why);
			break;
		}
out:
	wm_affinity_plan_free(ap);
	return status;
}

static void
child_main(const struct job *j, uint32_t id, int fd, const struct placement *pl,
	   pid_t parent, struct wm_sink **sinks, struct wm_sink **lates,
	   struct wm_replay_trace **traces, const sigset_t *old_mask)
{
	const struct wm_topology *t = j->t;
	const struct wm_plan *plan = j->plan;
	struct wm_worker_args args = {
		.topo = t,
		.plan = plan,
		.subtask = id,
		.restore_from = j->restore_from,
		.output_of = j->output_of,
		.first_epoch = wm_coordinator_first_epoch(j->coordinator),
		.run = j->commit != NULL ? wm_part_commit_run(j->commit) : 0,
		.job_start_ns = j->job_start_ns,
		.resumed_at_ns = j->resumed_at_ns,
		.crash_watermark = j->crash_watermark[id],
		.shm_fd = fd,
		.wait = wm_placement_wait_mode(plan, pl->allowed_cpus),
		.sinks = sinks,
		.lates = lates,
		.traces = traces,
		.keys = j->keys,
		.cells = t->job.ring_cells,
	};
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	struct sigaction ign = {.sa_handler = SIG_IGN};
	char name[128];

	/* Die with the supervisor, even if it already died. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(EX_OSERR);
	/* ps, top and pgrep show which subtask a process runs: its name
	 * is "stage/index" (the kernel keeps 15 bytes of it). */
	prctl(PR_SET_NAME,
	      wm_plan_subtask_name(plan, t, id, name, sizeof(name)), 0, 0, 0);
	/* Ctrl-C reaches the whole process group: the supervisor alone
	 * decides how the job stops (a stop request, then SIGTERM). */
	sigaction(SIGINT, &ign, NULL);
	sigaction(SIGHUP, &ign, NULL);
	sigaction(SIGTERM, &dfl, NULL);
	sigprocmask(SIG_SETMASK, old_mask, NULL);
	if (pl->cpu[id] >= 0) {
		char err[256];

		if (wm_affinity_pin_self(pl->machine, (unsigned)pl->cpu[id],
					 err, sizeof(err)) != 0)
			wm_log("wmrun[%s]: warning: %s", name, err);
	}
	_exit(wm_worker_run(&args));
}

/* Send `sig` to every worker left (and SIGCONT after it, for one that is
 * stopped). */
static void
kill_all(struct job *j, int sig)
{
	for (uint32_t i = 0; i < j->plan->n_subtasks; i++) {
		struct child *c = &j->children[i];

		if (c->pid <= 0 || c->done)
			continue;
		c->signalled = true;
		kill(c->pid, sig);
		if (sig != SIGKILL)
			kill(c->pid, SIGCONT);
	}
}

/* The first failure of the job: its status and message; later ones (the
 * workers it brought down) are not the cause. Kills the other workers. */
static void job_failed(struct job *j, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
job_failed(struct job *j, int status, const char *fmt, ...)
{
	va_list ap;

	if (j->failure != 0)
		return;
	j->failure = status;
	va_start(ap, fmt);
	vsnprintf(j->err, j->errlen, fmt, ap);
	va_end(ap);
	if (j->stop_signal != 0) {
		size_t len = strlen(j->err);

		snprintf(j->err + len, j->errlen - len,
			 " (while the job stopped on signal %d)",
			 j->stop_signal);
	}
	/* The rings of a dead worker never drain: nothing left waits for
	 * the others to finish. */
	kill_all(j, SIGKILL);
	j->phase = KILLING;
}

/* Worker `id` (`name`, `pid`) exited with `status`, not 0: the job fails
 * with it, and with its source's why when its source said it cannot go
 * on (task.h, wm_task_source_health()): the worker exited after
 * publishing it, and the reap orders that before this read. */
static void
worker_exited(struct job *j, uint32_t id, const char *name, pid_t pid,
	      int status)
{
	char why[256];

	if (j->seg != NULL &&
	    wm_metrics_source_failure(
		    wm_plan_block(j->plan, wm_shm_metrics_area(j->seg), id),
		    why, sizeof(why)) != 0) {
		job_failed(j, wm_exit_of_worker(status),
			   "worker \"%s\" (pid %d) exited with status %d: "
			   "its source cannot go on: %s",
			   name, (int)pid, status, why);
		return;
	}
	job_failed(j, wm_exit_of_worker(status),
		   "worker \"%s\" (pid %d) exited with status %d", name,
		   (int)pid, status);
}

/* Reap every child that exited; a failure is the job's (job_failed()). */
static void
reap(struct job *j)
{
	struct rusage ru;
	pid_t pid;
	int st;

	while ((pid = wait4(-1, &st, WNOHANG, &ru)) > 0) {
		char name[128];

		if (pid == j->observer.pid) {
			/* Gone before the job: the view stops, the job goes
			 * on (its results do not depend on being watched). */
			j->observer.reaped = true;
			j->observer_status =
				WIFEXITED(st) ? WEXITSTATUS(st) : 1;
			wm_log("wmrun: notice: the live view stopped "
			       "(status %d); the job goes on",
			       j->observer_status);
			continue;
		}
		for (uint32_t i = 0; i < j->plan->n_subtasks; i++) {
			if (j->children[i].pid != pid)
				continue;
			j->children[i].done = true;
			/* The peak over every attempt of the subtask. */
			if ((uint64_t)ru.ru_maxrss > j->children[i].max_rss_kib)
				j->children[i].max_rss_kib =
					(uint64_t)ru.ru_maxrss;
			j->running--;
			if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
				break;
			if (WIFSIGNALED(st) && j->children[i].signalled)
				break; /* ours: the stop or a failure */
			wm_plan_subtask_name(j->plan, j->t, i, name,
					     sizeof(name));
			if (WIFSIGNALED(st))
				job_failed(j, 1,
					   "worker \"%s\" (pid %d) was "
					   "terminated by signal %d: %s",
					   name, (int)pid, WTERMSIG(st),
					   strsignal(WTERMSIG(st)));
			else
				worker_exited(j, i, name, pid, WEXITSTATUS(st));
			break;
		}
	}
}

/* Whether process `pid` is stopped (SIGSTOP, a debugger): its state in
 * /proc/PID/stat, the letter after the parenthesised name. */
static bool
is_stopped(pid_t pid)
{
	char path[64], buf[512];
	const char *end;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	end = strrchr(buf, ')'); /* the name may hold anything */
	return end != NULL && end[1] == ' ' && (end[2] == 'T' || end[2] == 't');
}

/* The drain did not end in time: every worker left is named (a stopped
 * one, the likely cause, said so and named first), and fails the job (its
 * figures are not final), then is told to go. */
static void
terminate_stragglers(struct job *j)
{
	int grace = (int)(STOP_GRACE_NS / 1000000000);

	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < j->plan->n_subtasks; i++) {
			struct child *c = &j->children[i];
			bool stopped;
			char name[128];

			if (c->pid <= 0 || c->done)
				continue;
			stopped = is_stopped(c->pid);
			if (stopped != (pass == 0))
				continue;
			wm_plan_subtask_name(j->plan, j->t, i, name,
					     sizeof(name));
			wm_log("wmrun: worker \"%s\" (pid %d) %sdid not stop "
			       "within %d s of the stop request: terminating "
			       "it",
			       name, (int)c->pid,
			       stopped ? "is stopped (SIGSTOP) and " : "",
			       grace);
			if (j->failure == 0) {
				j->failure = 1;
				snprintf(
					j->err, j->errlen,
					"worker \"%s\" (pid %d) %sdid not stop "
					"within %d s of the stop request on "
					"signal %d",
					name, (int)c->pid,
					stopped ? "was stopped and " : "",
					grace, j->stop_signal);
			}
		}
	kill_all(j, SIGTERM);
	j->phase = TERMINATING;
	j->deadline = wm_monotonic_ns() + TERM_GRACE_NS;
}

/* sigtimedwait() until the CLOCK_MONOTONIC time `by` (INT64_MAX: no
 * limit): the signal, or -1 with EAGAIN once `by` has passed. A signal
 * already pending is taken even then: a stop that came while the job
 * was busy (a restart with no delay) must not wait for the next attempt. */
static int
wait_signal_until(const sigset_t *mask, int64_t by)
{
	siginfo_t info;
	int64_t left;
	struct timespec ts = {0, 0};

	if (by == INT64_MAX)
		return sigwaitinfo(mask, &info);
	left = by - wm_monotonic_ns();
	if (left > 0) {
		ts.tv_sec = left / 1000000000;
		ts.tv_nsec = left % 1000000000;
	}
	return sigtimedwait(mask, &info, &ts);
}

/* The coordinator's look at the segment, when it asked for one or an
 * acknowledgement woke the supervisor: a checkpoint that failed or timed
 * out is a warning, the job goes on. */
static void
coordinate(struct job *j, struct wm_shm *seg)
{
	char why[1024];

	if (j->coordinator == NULL || j->phase != RUNNING)
		return;
	int r = wm_coordinator_look(j->coordinator, seg, wm_monotonic_ns(),
				    wm_supervisor_job_origin(j, seg), why,
				    sizeof(why));

	/* The parts of a complete checkpoint not all in their files: the
	 * job fails, and its restart's recovery finishes the commit. */
	if (r == -ECANCELED)
		job_failed(j, EX_IOERR, "%s", why);
	else if (r != 0)
		wm_log("wmrun: warning: %s", why);
}

/* When [job] fail_at's crash is due (monotonic ns; INT64_MAX: none left). */
static int64_t
injection_due(const struct job *j, const struct wm_shm *seg)
{
	int64_t origin = wm_supervisor_job_origin(j, seg);

	/* Before the start line nothing is due yet: fail_at needs
	 * checkpoints, whose coordinator looks for the start line
	 * (wm_coordinator_deadline()) and wakes the supervisor. */
	if (j->t->job.fail_at_ms == INT64_MAX || j->fail_injected ||
	    j->phase != RUNNING || origin == 0)
		return INT64_MAX;
	return origin + wm_scale_ns(wm_ms_to_ns(j->t->job.fail_at_ms),
				    1 / j->t->job.speed);
}

/* [job] fail_at in a real run: a real crash, SIGKILL to the last subtask
 * (a window's, in any job with one: the state a restore brings back),
 * once, which the job must then survive as any other crash. */
static void
inject_failure(struct job *j, const struct wm_shm *seg)
{
	uint32_t victim = j->plan->n_subtasks - 1;
	struct child *c = &j->children[victim];
	char name[128];

	if (injection_due(j, seg) > wm_monotonic_ns() ||
	    wm_shm_started(seg) == 0)
		return;
	j->fail_injected = true;
	if (c->pid <= 0 || c->done)
		return;
	wm_log("wmrun: notice: fail_at: killing worker \"%s\" (pid %d) with "
	       "SIGKILL",
	       wm_plan_subtask_name(j->plan, j->t, victim, name, sizeof(name)),
	       (int)c->pid);
	kill(c->pid, SIGKILL);
}

/* Follow the job until every worker is gone (the state machine at the top
 * of the file). */
static void
supervise(struct job *j, struct wm_shm *seg, const sigset_t *mask)
{
	while (j->running > 0) {
		bool timed = j->phase == DRAINING || j->phase == TERMINATING;
		int64_t by = timed ? j->deadline : INT64_MAX;
		int64_t look =
			j->phase == RUNNING
				? wm_coordinator_deadline(j->coordinator,
							  wm_monotonic_ns())
				: INT64_MAX;
		int64_t inject = injection_due(j, seg);
		int sig;

		if (inject < look)
			look = inject;
		sig = wait_signal_until(mask, look < by ? look : by);
		coordinate(j, seg);
		inject_failure(j, seg);
		if (sig == SIGUSR1 || (sig < 0 && errno == EAGAIN && look < by))
			continue; /* an acknowledgement, or the coordinator's */
		if (sig < 0 && errno == EAGAIN) {
			if (j->phase == DRAINING) {
				terminate_stragglers(j);
			} else if (j->phase == TERMINATING) {
				/* SIGKILL ends even a process that is
				 * stopped and never saw the SIGTERM. */
				kill_all(j, SIGKILL);
				j->phase = KILLING;
			}
		} else if (sig == SIGCHLD) {
			reap(j);
		} else if (sig > 0 && j->phase == RUNNING) {
			/* Interrupted: the sources end their streams, the
			 * rings drain, every worker finishes with its
			 * figures; the summary is exact. */
			j->stop_signal = sig;
			snprintf(j->err, j->errlen, "stopped by signal %d: %s",
				 sig, strsignal(sig));
			wm_shm_request_stop(seg);
			j->phase = DRAINING;
			j->deadline = wm_monotonic_ns() + STOP_GRACE_NS;
		} else if (sig > 0 && j->phase == DRAINING) {
			/* A second signal: the user does not want to wait
			 * for the drain. The summary then says what was in
			 * flight. */
			kill_all(j, SIGTERM);
			j->phase = TERMINATING;
			j->deadline = wm_monotonic_ns() + TERM_GRACE_NS;
		} else if (sig > 0 && j->stop_signal == 0) {
			/* KILLING: a failed attempt torn down. The stop is
			 * the user's last word: no restart follows
			 * (wm_supervisor_restartable()). */
			size_t len = strlen(j->err);

			j->stop_signal = sig;
			snprintf(j->err + len, j->errlen - len,
				 "; not restarted: stopped by signal %d", sig);
		}
	}
}

/* SIGCHLD, and the stop signals the caller did not leave ignored: nohup
 * ignores SIGHUP, a shell without job control starts a background command
 * with SIGINT ignored, and what the caller ignored the whole job ignores
 * (a blocked signal would be queued, ignored or not: those are not
 * blocked). */
void
wm_supervisor_stop_signals(sigset_t *mask)
{
	static const int stops[] = {SIGINT, SIGTERM, SIGHUP};

	sigemptyset(mask);
	sigaddset(mask, SIGCHLD);
	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++) {
		struct sigaction now;

		if (sigaction(stops[i], NULL, &now) == 0 &&
		    now.sa_handler == SIG_IGN)
			continue;
		sigaddset(mask, stops[i]);
	}
}

/* Open every sink, late output and recording of a source (the supervisor
 * writes their headers; the workers inherit them, and the string keys of
 * `traces` they print). 0 or an exit status with err set. */
static int
open_outputs(const struct wm_topology *t, struct wm_replay_trace **traces,
	     const struct wm_keys *keys, struct wm_sink **sinks,
	     struct wm_sink **lates, char *err, size_t errlen)
{
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *st = &t->stages[s];
		int r = 0;

		if (st->kind == WM_STAGE_SOURCE && st->u.source.record != NULL)
			r = wm_sink_open_recording(
				&sinks[s], st, st->u.source.record,
				wm_replay_stage_keys(traces, t, s, keys),
				wm_record_trace_columns(
					st, traces != NULL ? traces[s] : NULL),
				err, errlen);
		else if (st->kind == WM_STAGE_SINK &&
			 t->stages[st->inputs[0].stage].kind == WM_STAGE_MAP)
			r = wm_sources_open_map_sink(t, s, &sinks[s], err,
						     errlen);
		else if (st->kind == WM_STAGE_SINK)
			r = (t->job.resume ? wm_sink_open_kept : wm_sink_open)(
				&sinks[s], st, &t->stages[st->inputs[0].stage],
				wm_replay_stage_keys(traces, t, s, keys), err,
				errlen);
		for (unsigned k = 0; r == 0 && k < WM_STAGE_LATE_OUTPUTS; k++)
			if (wm_stage_late_output(st, k) != NULL)
				r = (t->job.resume ? wm_sink_open_late_kept
						   : wm_sink_open_late)(
					&lates[wm_late_sink_index(s, k)], st, k,
					wm_replay_stage_keys(traces, t, s,
							     keys),
					err, errlen);
		if (r != 0)
			return wm_exit_status(WM_EXIT_OUTPUT, r);
	}
	return 0;
}

/* Close the outputs; the results of a failed job stay only where some
 * were written (sink.h). An exit status, or `status` unchanged. */
static int
close_outputs(const struct wm_topology *t, struct wm_sink **sinks,
	      struct wm_sink **lates, int status, char *err, size_t errlen)
{
	bool failed = status != 0 && status < 128;

	for (uint32_t s = 0; s < t->n_stages; s++) {
		char why[512];

		if (wm_sink_close(sinks[s], failed, why, sizeof(why)) != 0 &&
		    status == 0) {
			snprintf(err, errlen, "%s", why);
			status = EX_IOERR;
		}
		for (unsigned k = 0; k < WM_STAGE_LATE_OUTPUTS; k++)
			if (wm_sink_close(lates[wm_late_sink_index(s, k)],
					  failed, why, sizeof(why)) != 0 &&
			    status == 0) {
				snprintf(err, errlen, "%s", why);
				status = EX_IOERR;
			}
	}
	return status;
}

/* One worker process per subtask, each pinned where `pl` says, with the
 * outputs and traces it inherits; the caller's signal mask `old` is the
 * children's. A fork that fails fails the job. */
static void
launch(struct job *j, const struct wm_shm *seg, const struct placement *pl,
       struct wm_sink **sinks, struct wm_sink **lates,
       struct wm_replay_trace **traces, const sigset_t *old)
{
	pid_t self = getpid();

	/* Nothing buffered may be written twice, by parent and child. */
	fflush(stdout);
	fflush(stderr);
	for (uint32_t i = 0; i < j->plan->n_subtasks; i++) {
		pid_t pid = fork();

		if (pid == 0)
			child_main(j, i, seg->fd, pl, self, sinks, lates,
				   traces, old);
		if (pid < 0) {
			job_failed(j, EX_OSERR, "could not fork: %s",
				   strerror(errno));
			return;
		}
		j->children[i].pid = pid;
		j->running++;
	}
}

/* What the workers published into the segment, as the job's summary, and
 * each worker's peak memory. 0 or -ENOMEM. */
static int
summarize(const struct job *j, const struct wm_shm *seg, int64_t forked_ns,
	  struct wm_job_report *rep)
{
	/* Processing time ran from the start line (shm.h), if every
	 * subtask reached it, else from the forks; a restarted job's from
	 * its first attempt's, a resumed job's from its checkpoint's time.
	 * Real time counts from this run's first start line. */
	int64_t origin = wm_supervisor_job_origin(j, seg),
		now = wm_monotonic_ns();
	int64_t first = origin != 0 ? origin + wm_scale_ns(j->resumed_at_ns,
							   1 / j->t->job.speed)
				    : forked_ns;
	int64_t processing = wm_scale_ns(
		now - (origin != 0 ? origin : forked_ns), j->t->job.speed);
	int r = wm_report_collect(rep, j->t, j->plan, wm_shm_metrics_area(seg),
				  processing, now - first, false);

	if (r != 0)
		return r;
	rep->stopped = j->stop_signal != 0;
	rep->failed = j->failure != 0;
	rep->shm_bytes = seg->size;
	rep->checkpointing = j->coordinator != NULL;
	rep->checkpoints = j->restarts;
	wm_coordinator_figures(j->coordinator, &rep->checkpoints);
	for (uint32_t i = 0; i < rep->n_subtasks; i++) {
		struct wm_subtask_report *s = &rep->subtasks[i];

		s->max_rss_kib = j->children[i].max_rss_kib;
		if (j->children[i].late_max_ns > s->late_max_ns)
			s->late_max_ns = j->children[i].late_max_ns;
	}
	return 0;
}

/* What a run holds from its set-up to its end, released by tear_down(). */
struct resources {
	struct wm_shm_channel_spec *specs;
	struct wm_replay_trace **traces; /* by stage, the replayed ones */
	/* by stage; every stage's late outputs (wm_late_sink_index()) */
	struct wm_sink **sinks, **lates;
	struct placement pl;
	struct wm_shm seg;
	int lock_fd; /* the checkpoint directory's (dir_lock.h); -1: none */
};

/* The job's keys are strings somewhere: a trace's, or those a source
 * learns as the job runs (Kafka). */
static bool
string_keys(const struct wm_topology *t, struct wm_replay_trace *const *traces)
{
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *st = &t->stages[s];

		if (st->kind != WM_STAGE_SOURCE)
			continue;
		if (traces[s] != NULL ? wm_replay_keys(traces[s]) != NULL
				      : st->u.source.kind == WM_SOURCE_KAFKA &&
						st->u.source.key_type ==
							WM_KEY_TYPE_STRING)
			return true;
	}
	return false;
}

/*
 * The checkpoints of a job that takes them: its exactly-once outputs
 * (exactly_once.h), the coordinator over the store (a directory of
 * another job's is refused; a resumed job starts from the latest complete
 * checkpoint there), the outputs recovered to where the job starts, the
 * restart strategy. 0 or an exit status with err set.
 */
static int
set_up_checkpoints(struct job *j, struct resources *res)
{
	const struct wm_topology *t = j->t;
	int r = wm_exactly_once_set_up(&j->commit, &j->output_of, t, res->sinks,
				       res->lates, j->err, j->errlen);

	if (r != 0)
		return wm_exit_status(WM_EXIT_OUTPUT, r);
	r = wm_coordinator_new(&j->coordinator, t, j->plan, j->commit,
			       j->output_of, j->keys, j->err, j->errlen);
	if (r != 0)
		return r == -ENOMEM   ? EX_OSERR
		       : r == -ENOENT ? EX_NOINPUT
		       : r == -EXDEV || r == -EBADMSG || r == -ENOSPC
			       ? EX_DATAERR
			       : EX_CANTCREAT;
	r = wm_coordinator_recover_outputs(j->coordinator, j->err, j->errlen);
	if (r != 0)
		return r == -EBADMSG ? EX_DATAERR
				     : wm_exit_status(WM_EXIT_OUTPUT, r);
	j->restart_draws.seed = t->job.seed;
	wm_restart_strategy_init(&j->restart, &t->job.restart, wm_restart_draw,
				 &j->restart_draws);
	j->restore_from = wm_coordinator_restore_id(j->coordinator);
	j->resumed_at_ns =
		wm_ms_to_ns(wm_coordinator_restore_time_ms(j->coordinator));
	return 0;
}

/*
 * Everything the workers inherit, before any signal is blocked: the
 * traces, read and checked here, once, before anything is created (a bad
 * line is reported once and leaves no output behind; the workers inherit
 * the records through fork), the segment, and the outputs, whose headers
 * the supervisor writes. 0 or an exit status with err set.
 */
static int
set_up(struct job *j, struct resources *res)
{
	const struct wm_topology *t = j->t;
	const struct wm_plan *plan = j->plan;
	struct wm_shm_spec spec;
	int r;

	res->specs = calloc(plan->n_channels ? plan->n_channels : 1,
			    sizeof(*res->specs));
	j->children = calloc(plan->n_subtasks, sizeof(*j->children));
	j->crash_watermark =
		calloc(plan->n_subtasks, sizeof(*j->crash_watermark));
	res->sinks = calloc(t->n_stages, sizeof(*res->sinks));
	res->lates = calloc((size_t)t->n_stages * WM_STAGE_LATE_OUTPUTS,
			    sizeof(*res->lates));
	res->pl.cpu = calloc(plan->n_subtasks, sizeof(*res->pl.cpu));
	if (!res->specs || !j->children || !res->sinks || !res->lates ||
	    !res->pl.cpu || !j->crash_watermark)
		return EX_OSERR;
	for (uint32_t id = 0; id < plan->n_subtasks; id++)
		j->crash_watermark[id] = WM_TS_MIN;
	r = wm_replay_read_all(t, &res->traces, j->err, j->errlen);
	if (r != 0)
		return wm_exit_status(WM_EXIT_INPUT, r);
	if (string_keys(t, res->traces)) {
		j->keys = wm_replay_all_keys(res->traces, t->n_stages);
		j->own_keys = j->keys == NULL;
		if (j->own_keys && (j->keys = wm_keys_new()) == NULL)
			return EX_OSERR;
	}
	spec = wm_plan_shm_spec(plan, t->job.ring_cells, res->specs);
	if (wm_shm_create(&spec, &res->seg, j->err, j->errlen) != 0)
		return EX_OSERR;
	/* The checkpoint directory is this job's before any output or part
	 * is made: a second job on it is refused with nothing touched. */
	if (t->job.checkpoint_interval_ms != INT64_MAX &&
	    (r = wm_dir_lock_take(t->job.checkpoint_dir, !t->job.resume,
				  &res->lock_fd, j->err, j->errlen)) != 0)
		return r == -EBUSY    ? EX_TEMPFAIL
		       : r == -ENOENT ? EX_NOINPUT /* --resume: no DIR */
				      : wm_exit_status(WM_EXIT_OUTPUT, r);
	r = open_outputs(t, res->traces, j->keys, res->sinks, res->lates,
			 j->err, j->errlen);
	if (r != 0 || t->job.checkpoint_interval_ms == INT64_MAX)
		return r;
	return set_up_checkpoints(j, res);
}

/* The outputs closed (a failed job's status decides what stays), and
 * everything else released; the job's final status. */
static int
tear_down(struct job *j, struct resources *res, int status)
{
	if (res->sinks != NULL && res->lates != NULL)
		status = close_outputs(j->t, res->sinks, res->lates, status,
				       j->err, j->errlen);
	wm_affinity_close(res->pl.machine);
	wm_shm_detach(&res->seg);
	if (res->seg.fd >= 0)
		close(res->seg.fd);
	free(res->specs);
	free(j->children);
	free(j->crash_watermark);
	wm_coordinator_free(j->coordinator);
	wm_part_commit_free(j->commit);	   /* touches no file */
	wm_dir_lock_release(res->lock_fd); /* after the last file closed */
	free(j->output_of);
	free(res->sinks);
	free(res->lates);
	free(res->pl.cpu);
	wm_replay_free_all(res->traces, j->t->n_stages);
	if (j->own_keys)
		wm_keys_free(j->keys);
	return status;
}

/* Wait `delay_ns` of processing time before a restart, as the strategy
 * said (a delay is a duration of the job, as --sim takes it: at speed 2000
 * a second's backoff is half a millisecond): a stop signal meanwhile ends
 * the job instead (true), with nothing running. */
static bool
stopped_while_down(struct job *j, const sigset_t *mask, int64_t delay_ns)
{
	int64_t until =
		wm_monotonic_ns() + wm_scale_ns(delay_ns, 1 / j->t->job.speed);

	for (;;) {
		int sig = wait_signal_until(mask, until);

		if (sig < 0 && errno == EAGAIN)
			return false;
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
			/* The user's stop, not the crash, ends the job. */
			j->failure = 0;
			j->stop_signal = sig;
			snprintf(j->err, j->errlen,
				 "stopped by signal %d: %s, while the job "
				 "waited to restart",
				 sig, strsignal(sig));
			return true;
		}
		if (sig == SIGCHLD)
			reap(j); /* the observer */
	}
}

/*
 * The job's attempts, forked at monotonic `start`: each launched and
 * supervised, then restarted as the restart strategy says, until one ends
 * well, is stopped or is not restarted; then the end of the checkpoints
 * (the last parts committed when every worker ended well, a failed job
 * keeping only what a resume needs) and the observer's. The job's exit
 * status, err saying why if it is not 0 or 128 + n.
 */
static int
run_attempts(struct job *j, struct resources *res, const sigset_t *mask,
	     const sigset_t *old, int64_t start)
{
	char why[1024];
	int status, watched;

	j->first_fork_ns = start;
	for (;;) {
		int64_t delay = 0;
		int r;

		launch(j, &res->seg, &res->pl, res->sinks, res->lates,
		       res->traces, old);
		supervise(j, &res->seg, mask);
		wm_supervisor_note_unrestorable(j, &res->seg);
		if (!wm_supervisor_restartable(j, &delay))
			break;
		r = wm_supervisor_restart(j, &res->seg, delay);
		if (r != 0) {
			j->failure = r;
			break;
		}
		if (stopped_while_down(j, mask, delay))
			break;
		wm_supervisor_restarted(j, &res->seg);
	}
	wm_supervisor_note_hold(j, &res->seg);
	/* A checkpoint cut short by the end is removed. */
	if (wm_coordinator_workers_gone(j->coordinator, why, sizeof(why)) != 0)
		wm_log("wmrun: warning: %s", why);
	if (wm_coordinator_finish_outputs(j->coordinator, j->failure == 0, why,
					  sizeof(why)) != 0 &&
	    j->failure == 0) {
		j->failure = EX_IOERR;
		snprintf(j->err, j->errlen, "%s", why);
	}
	/* Its last screen before the summary, never beside it. An observer
	 * that could not write the metrics file said so; the job did not do
	 * all it was asked. */
	watched = wm_observer_finish(&j->observer);
	if (j->observer.reaped && j->observer_status != 0)
		watched = j->observer_status;
	status = j->failure != 0       ? j->failure
		 : j->stop_signal != 0 ? 128 + j->stop_signal
				       : 0;
	if (status == 0 && watched == EX_IOERR) {
		status = EX_IOERR;
		snprintf(j->err, j->errlen,
			 "the job ran, but its metrics file is incomplete");
	}
	return status;
}

int
wm_supervisor_run(const struct wm_topology *t,
		  const struct wm_observe_options *observe,
		  struct wm_job_report *rep, char *err, size_t errlen)
{
	struct wm_plan *plan = wm_plan_new(t);
	struct resources res = {.seg = {.fd = -1}, .lock_fd = -1};
	struct job j = {.t = t, .plan = plan, .err = err, .errlen = errlen};
	sigset_t mask, old;
	bool launched;
	int status;
	int64_t start = 0;

	err[0] = '\0';
	memset(rep, 0, sizeof(*rep));
	if (plan == NULL)
		return EX_OSERR;
	status = set_up(&j, &res);
	if (status != 0)
		goto out;
	j.seg = &res.seg;
	/* From here on a Ctrl-C waits for the workers: one that comes while
	 * the machine is read and the workers are forked (a second, on a
	 * loaded machine) stops the job as soon as it runs, with its
	 * summary, instead of killing the supervisor silently. Not before
	 * the sinks are open: opening a FIFO waits for a reader, and must
	 * stay interruptible. */
	wm_supervisor_stop_signals(&mask);
	/* The workers' acknowledgements of checkpoints (worker.h). */
	if (j.coordinator != NULL)
		sigaddset(&mask, SIGUSR1);
	sigprocmask(SIG_BLOCK, &mask, &old);
	status = place(t, plan, &res.seg, &res.pl, err, errlen);
	/* The observer before the workers: it is forked while this process
	 * has no thread, and forks nothing itself (observer.h). */
	if (status == 0 && observe != NULL)
		status = wm_observer_start(&j.observer, observe, t, plan,
					   &res.seg, err, errlen);
	launched = status == 0;
	if (launched) {
		start = wm_monotonic_ns();
		status = run_attempts(&j, &res, &mask, &old, start);
	}
	/* A stop signal that came after the last worker ended finds the job
	 * over: take it now, or restoring the mask would let it kill the
	 * supervisor before the summary and the sinks' last writes. (After
	 * a failed placement, one that came meanwhile: the job never ran.) */
	while (sigtimedwait(&mask, NULL, &(struct timespec){0, 0}) > 0)
		;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (launched && summarize(&j, &res.seg, start, rep) != 0 && status == 0)
		status = EX_OSERR;
	/* The observer was reaped: its alerts are all written, and
	 * --report's samples. */
	if (wm_observer_alerts(&j.observer, rep) != 0 && status == 0)
		status = EX_OSERR;
	if (observe != NULL && observe->recording != NULL)
		*observe->recording = wm_observer_recording(&j.observer);
out:
	status = tear_down(&j, &res, status);
	wm_plan_free(plan);
	return status;
}
