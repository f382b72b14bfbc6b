/*
 * supervisor.c
 *	Create the segment, fork and pin one process per subtask, wait, and
 *	stop everything cleanly when one fails or the user interrupts.
 *
 * The supervisor never touches a ring (PostgreSQL's postmaster): a worker
 * that crashes cannot take it down, and it reads the workers' metrics
 * blocks only. Signals: SIGCHLD, SIGINT, SIGTERM and SIGHUP are blocked
 * before the placement and the forks and taken with sigwaitinfo(); each
 * child unblocks them, leaves SIGINT and SIGHUP to the supervisor
 * (ignored: a terminal's Ctrl-C reaches the whole group), asks for SIGKILL
 * when the supervisor dies (PR_SET_PDEATHSIG, then re-checks its parent,
 * which may have died before the prctl), pins itself and runs its
 * subtask.
 *
 * Stopping: the first SIGINT, SIGTERM or SIGHUP sets the segment's stop
 * flag (wm_shm_request_stop()); the sources end their streams with
 * END(STOP), the rings drain and every worker exits with its final
 * figures. A second signal, or STOP_GRACE_NS without the drain ending,
 * sends SIGTERM to the workers left. A worker that fails stops the others
 * with SIGKILL.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sysexits.h>
#include <unistd.h>

#include "ipc/shm.h"
#include "runtime/affinity.h"
#include "ipc/clock.h"
#include "runtime/placement.h"
#include "runtime/supervisor.h"
#include "runtime/worker.h"

struct child {
	pid_t pid;
	bool done;
	uint64_t max_rss_kib; /* ru_maxrss from wait4(), once done */
};

/*
 * CPUs for the subtasks (-1 each when they cannot be pinned: a warning),
 * and each ring's pages bound to its consumer's NUMA node (a no-op on one
 * node, but exercised). Returns 0, or EX_CONFIG with err set when an
 * explicit [job] cpus list does not fit the job or the machine.
 */
static int
place(const struct wm_topology *t, const struct wm_plan *plan,
      const struct wm_shm *seg, int *cpu, char *err, size_t errlen)
{
	struct wm_affinity *a = NULL;
	struct wm_affinity_plan *ap = NULL;
	char why[256];
	int status = 0;

	for (uint32_t i = 0; i < plan->n_subtasks; i++)
		cpu[i] = -1;
	bool opened = wm_affinity_open(NULL, &a, why, sizeof(why)) == 0;

	if (!opened ||
	    wm_placement_plan(a, t, plan, &ap, why, sizeof(why)) != 0) {
		/* A CPU list the machine cannot follow is the user's to
		 * fix; a machine we cannot read is not. */
		if (t->job.cpus != NULL) {
			snprintf(err, errlen, "%s", why);
			status = opened ? EX_CONFIG : EX_OSERR;
		} else {
			fprintf(stderr,
				"wmrun: warning: subtasks are not pinned: "
				"%s\n",
				why);
		}
		goto out;
	}
	for (uint32_t i = 0; i < plan->n_subtasks; i++)
		cpu[i] = (int)ap->place[i].cpu;
	for (uint32_t c = 0; c < plan->n_channels; c++)
		if (wm_affinity_bind_memory(a, wm_shm_ring(seg, c),
					    wm_shm_channel(seg, c)->ring_bytes,
					    ap->ring_node[c], why,
					    sizeof(why)) != 0) {
			fprintf(stderr,
				"wmrun: warning: ring pages stay where "
				"they are: %s\n",
				why);
			break;
		}
out:
	wm_affinity_plan_free(ap);
	wm_affinity_close(a);
	return status;
}

static void
child_main(const struct wm_topology *t, const struct wm_plan *plan, uint32_t id,
	   int fd, int cpu, pid_t parent, struct wm_sink **sinks,
	   struct wm_sink **lates, const sigset_t *old_mask)
{
	struct wm_worker_args args = {
		.topo = t,
		.plan = plan,
		.subtask = id,
		.shm_fd = fd,
		.wait = plan->n_subtasks >
					(uint32_t)sysconf(_SC_NPROCESSORS_ONLN)
				? WM_WAIT_YIELD
				: WM_WAIT_FUTEX,
		.sinks = sinks,
		.lates = lates,
		.cells = t->job.ring_cells,
	};
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	struct sigaction ign = {.sa_handler = SIG_IGN};

	/* Die with the supervisor, even if it already died. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(EX_OSERR);
	/* Ctrl-C reaches the whole process group: the supervisor alone
	 * decides how the job stops (a stop request, then SIGTERM). */
	sigaction(SIGINT, &ign, NULL);
	sigaction(SIGHUP, &ign, NULL);
	sigaction(SIGTERM, &dfl, NULL);
	sigprocmask(SIG_SETMASK, old_mask, NULL);
	if (cpu >= 0) {
		struct wm_affinity *a = NULL;
		char err[256];

		if (wm_affinity_open(NULL, &a, err, sizeof(err)) == 0)
			wm_affinity_pin_self(a, (unsigned)cpu, err,
					     sizeof(err));
		wm_affinity_close(a);
	}
	_exit(wm_worker_run(&args));
}

static const char *
subtask_name(const struct wm_topology *t, const struct wm_plan *plan,
	     uint32_t id, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%u", t->stages[plan->subtasks[id].stage].name,
		 plan->subtasks[id].index);
	return buf;
}

/* How long a stopped job may take to drain before its workers are
 * terminated: rings hold at most ring_size each, which the workers move in
 * milliseconds; seconds leave room for a loaded machine. */
#define STOP_GRACE_NS ((int64_t)5000000000)

/* sigtimedwait() until the CLOCK_MONOTONIC time `by`: -1 with EAGAIN once
 * it has passed. */
static int
wait_signal_until(const sigset_t *mask, siginfo_t *info, int64_t by)
{
	int64_t left = by - wm_monotonic_ns();
	struct timespec ts;

	if (left <= 0) {
		errno = EAGAIN;
		return -1;
	}
	ts.tv_sec = left / 1000000000;
	ts.tv_nsec = left % 1000000000;
	return sigtimedwait(mask, info, &ts);
}

static void
kill_all(struct child *children, uint32_t n, int sig)
{
	for (uint32_t i = 0; i < n; i++)
		if (children[i].pid > 0 && !children[i].done)
			kill(children[i].pid, sig);
}

/* Reap every child that exited; returns the job's exit status if one
 * failed (0 otherwise) and describes the first failure in err (left alone
 * once set). */
static int
reap(const struct wm_topology *t, const struct wm_plan *plan,
     struct child *children, uint32_t *running, char *err, size_t errlen)
{
	int failure = 0, st;
	struct rusage ru;
	pid_t pid;

	while ((pid = wait4(-1, &st, WNOHANG, &ru)) > 0) {
		char name[128];

		for (uint32_t i = 0; i < plan->n_subtasks; i++) {
			if (children[i].pid != pid)
				continue;
			children[i].done = true;
			children[i].max_rss_kib = (uint64_t)ru.ru_maxrss;
			(*running)--;
			if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
				break;
			/* A worker's sysexits code (bad trace data, an
			 * unreadable file) is the job's; anything else is a
			 * failed worker. */
			failure = WIFEXITED(st) &&
						  WEXITSTATUS(st) >= EX__BASE &&
						  WEXITSTATUS(st) <= EX__MAX
					  ? WEXITSTATUS(st)
					  : 1;
			/* Name the first worker that failed: the others
			 * were stopped because of it. */
			if (err[0] == '\0') {
				if (WIFSIGNALED(st))
					snprintf(err, errlen,
						 "worker \"%s\" (pid %d) was "
						 "terminated by signal %d: %s",
						 subtask_name(t, plan, i, name,
							      sizeof(name)),
						 (int)pid, WTERMSIG(st),
						 strsignal(WTERMSIG(st)));
				else
					snprintf(err, errlen,
						 "worker \"%s\" (pid %d) "
						 "exited with status %d",
						 subtask_name(t, plan, i, name,
							      sizeof(name)),
						 (int)pid, WEXITSTATUS(st));
			}
			break;
		}
	}
	return failure;
}

int
wm_supervisor_run(const struct wm_topology *t, struct wm_job_report *rep,
		  char *err, size_t errlen)
{
	struct wm_plan *plan = wm_plan_new(t);
	struct wm_shm_channel_spec *specs = NULL;
	struct child *children = NULL;
	struct wm_sink **sinks = NULL, **lates = NULL;
	int *cpu = NULL;
	struct wm_shm seg = {.fd = -1};
	sigset_t mask, old;
	bool blocked = false; /* mask holds the signals, old the caller's */
	uint32_t running = 0;
	bool stopping = false; /* a stop was requested and is draining */
	int64_t stop_by = 0;
	int status = 0;
	int64_t start;

	err[0] = '\0';
	memset(rep, 0, sizeof(*rep));
	if (plan == NULL)
		return EX_OSERR;
	specs = calloc(plan->n_channels ? plan->n_channels : 1, sizeof(*specs));
	children = calloc(plan->n_subtasks, sizeof(*children));
	sinks = calloc(t->n_stages, sizeof(*sinks));
	lates = calloc(t->n_stages, sizeof(*lates));
	cpu = calloc(plan->n_subtasks, sizeof(*cpu));
	if (!specs || !children || !sinks || !lates || !cpu) {
		status = EX_OSERR;
		goto out;
	}
	struct wm_shm_spec spec =
		wm_plan_shm_spec(plan, t->job.ring_cells, specs);

	if (wm_shm_create(&spec, &seg, err, errlen) != 0) {
		status = EX_OSERR;
		goto out;
	}
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *st = &t->stages[s];
		int r = 0;

		if (st->kind == WM_STAGE_SINK)
			r = wm_sink_open(&sinks[s], &st->u.sink,
					 &t->stages[st->inputs[0].stage], err,
					 errlen);
		else if (st->kind == WM_STAGE_WINDOW &&
			 st->u.window.late_output != NULL)
			r = wm_sink_open_late(&lates[s],
					      st->u.window.late_output, err,
					      errlen);
		if (r == 0 && ((sinks[s] != NULL && wm_sink_flush(sinks[s])) ||
			       (lates[s] != NULL && wm_sink_flush(lates[s])))) {
			snprintf(err, errlen,
				 "could not write the header of %s's output "
				 "\"%s\"",
				 st->name,
				 st->kind == WM_STAGE_SINK
					 ? st->u.sink.path
					 : st->u.window.late_output);
			r = -EIO;
		}
		if (r != 0) {
			status = r == -ENOMEM ? EX_OSERR : EX_IOERR;
			goto out;
		}
	}
	/* From here on a Ctrl-C waits for the workers: one that comes while
	 * the machine is read and the workers are forked (a second, on a
	 * loaded machine) stops the job as soon as it runs, with its
	 * summary, instead of killing the supervisor silently. Not before
	 * the sinks are open: opening a FIFO waits for a reader, and must
	 * stay interruptible. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &old);
	blocked = true;
	status = place(t, plan, &seg, cpu, err, errlen);
	if (status != 0)
		goto out;
	fflush(stdout);
	fflush(stderr);
	start = wm_monotonic_ns();
	pid_t self = getpid();

	for (uint32_t i = 0; i < plan->n_subtasks; i++) {
		pid_t pid = fork();

		if (pid == 0)
			child_main(t, plan, i, seg.fd, cpu[i], self, sinks,
				   lates, &old);
		if (pid < 0) {
			snprintf(err, errlen, "could not fork: %s",
				 strerror(errno));
			status = EX_OSERR;
			kill_all(children, i, SIGKILL);
			break;
		}
		children[i].pid = pid;
		running++;
	}
	while (running > 0) {
		siginfo_t info;
		int sig = stopping ? wait_signal_until(&mask, &info, stop_by)
				   : sigwaitinfo(&mask, &info);

		if (sig < 0 && errno == EAGAIN) {
			/* The stop did not drain in time: end it now. The
			 * summary then says what was in flight. */
			kill_all(children, plan->n_subtasks, SIGTERM);
			stopping = false;
		} else if (sig == SIGCHLD) {
			int failed =
				reap(t, plan, children, &running, err, errlen);

			if (failed && status == 0) {
				status = failed;
				kill_all(children, plan->n_subtasks, SIGKILL);
			}
		} else if (sig > 0 && status == 0) {
			/* Interrupted: the sources end their streams, the
			 * rings drain, every worker finishes with its
			 * figures; the summary is exact. */
			status = 128 + sig;
			snprintf(err, errlen, "stopped by signal %d: %s", sig,
				 strsignal(sig));
			wm_shm_request_stop(&seg);
			stopping = true;
			stop_by = wm_monotonic_ns() + STOP_GRACE_NS;
		} else if (sig > 0 && stopping) {
			/* A second signal: do not wait for the drain. */
			kill_all(children, plan->n_subtasks, SIGTERM);
			stopping = false;
		}
	}
	/* A stop signal that came after the last worker ended finds the job
	 * over: take it now, or restoring the mask would let it kill the
	 * supervisor before the summary and the sinks' last writes. */
	while (sigtimedwait(&mask, NULL, &(struct timespec){0, 0}) > 0)
		;
	sigprocmask(SIG_SETMASK, &old, NULL);
	blocked = false;
	/* Processing time ran from the start line (shm.h), if every
	 * subtask reached it; else from the forks. */
	int64_t started = wm_shm_started(&seg);
	int64_t wall = wm_monotonic_ns() - (started != 0 ? started : start);

	if (wm_report_collect(rep, t, plan, wm_shm_metrics(&seg, 0),
			      wm_shm_header(&seg)->metrics_stride,
			      wm_scale_ns(wall, t->job.speed), wall,
			      false) != 0 &&
	    status == 0)
		status = EX_OSERR;
	rep->stopped = status > 128;
	rep->shm_bytes = seg.size;
	for (uint32_t i = 0; i < rep->n_subtasks; i++)
		rep->subtasks[i].max_rss_kib = children[i].max_rss_kib;
out:
	for (uint32_t s = 0; sinks != NULL && s < t->n_stages; s++) {
		if (wm_sink_close(sinks[s]) != 0 && status == 0) {
			snprintf(err, errlen, "could not write sink \"%s\"",
				 t->stages[s].name);
			status = EX_IOERR;
		}
		if (lates != NULL && wm_sink_close(lates[s]) != 0 &&
		    status == 0) {
			snprintf(err, errlen,
				 "could not write the late output of \"%s\"",
				 t->stages[s].name);
			status = EX_IOERR;
		}
	}
	/* After a failed placement: a signal that came meanwhile now takes
	 * its default action. */
	if (blocked)
		sigprocmask(SIG_SETMASK, &old, NULL);
	wm_shm_detach(&seg);
	if (seg.fd >= 0)
		close(seg.fd);
	free(specs);
	free(children);
	free(sinks);
	free(lates);
	free(cpu);
	wm_plan_free(plan);
	return status;
}
