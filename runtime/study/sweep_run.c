/*
 * sweep_run.c
 *	Run a sweep's combinations, one process each (sweep.h): under --sim
 *	up to `jobs` at once, real jobs one after another.
 *
 * The parent loads every combination's topology first, so that a bad
 * value is refused before anything runs; then it forks the children. A
 * child runs its topology, writes its row (smaller than PIPE_BUF, so in
 * one write that never blocks) to its pipe and exits; the parent reaps it
 * and reads the row into its place. A child that dies without a row gets
 * a row saying how it died.
 *
 * A real run's child is the job's supervisor (supervisor.h), in a process
 * group of its own, so that a terminal's Ctrl-C reaches the sweep alone
 * and the sweep passes each stop signal on to the running job exactly
 * once (the supervisor takes a second one as "stop now, do not drain").
 * The sweep takes its stop signals with sigtimedwait(), never lost
 * between two looks; after one it starts no further run.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sysexits.h>
#include <unistd.h>

#include "runtime/conf/ini.h"
#include "runtime/conf/topology.h"
#include "base/clock.h"
#include "base/exit.h"
#include "base/log.h"
#include "runtime/source/kafka_topology.h"
#include "runtime/run/sim.h"
#include "runtime/run/supervisor.h"
#include "runtime/study/override.h"
#include "runtime/study/sweep.h"
#include "runtime/study/sweep_progress.h"

static_assert(sizeof(struct wm_sweep_row) <= PIPE_BUF,
	      "a row must go through a pipe in one atomic write");

#define MAX_COMBINATIONS 10000

struct child {
	pid_t pid;
	int fd; /* read end of its pipe */
	size_t combination;
};

/*
 * Combination i's checkpoints, if it takes any, into a directory of its
 * own, DIR/run-<i + 1> (the row's number): runs share no directory, which
 * one job at a time may hold (runtime/checkpoint/dir_lock.h), and none
 * numbers or deletes another's checkpoints. DIR is made here, before any
 * run, so that each run makes its own one level down as a job does. 0,
 * or the exit status after a message.
 */
static int
own_checkpoint_dir(struct wm_topology *t, size_t i, char *err, size_t errlen)
{
	char *dir = t->job.checkpoint_dir, *own;

	if (dir == NULL || t->job.checkpoint_interval_ms == INT64_MAX)
		return 0;
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		int e = errno;

		snprintf(err, errlen,
			 "could not create checkpoint directory \"%s\": %s",
			 dir, strerror(e));
		return wm_exit_status(WM_EXIT_OUTPUT, -e);
	}
	if (asprintf(&own, "%s/run-%zu", dir, i + 1) < 0) {
		snprintf(err, errlen, "out of memory");
		return EX_OSERR;
	}
	t->job.checkpoint_dir = own;
	free(dir);
	return 0;
}

/* The topology of `len` bytes at `text` with the sweep's --set settings
 * in it, into *t: 0, or what wm_topology_load_doc() or the settings say
 * (ierr filled). The settings come after the swept keys, so that a --set
 * of a swept key would win: main() refuses that pair. */
static int
load_with_settings(const struct wm_sweep *s, const char *text, size_t len,
		   const char *name, struct wm_topology **t,
		   struct wm_ini_error *ierr)
{
	struct wm_ini_doc *doc;
	int r = wm_ini_parse_buffer(text, len, name, &wm_topology_ini_options,
				    &doc, ierr);

	*t = NULL;
	if (r == 0)
		r = wm_key_settings_apply(doc, s->sets, s->n_sets, ierr);
	if (r == 0)
		r = wm_topology_load_doc(doc, name, t, ierr);
	/* A message about a setting names its option, which is the
	 * caller's, not the document's. */
	wm_ini_free(doc);
	return r;
}

/* Combination i's overrides into ov (the swept values, then every sink
 * and late output to standard output, which the children discard), and
 * its topology loaded into *t. 0, or the exit status after a message. */
static int
load_combination(const struct wm_sweep *s, const struct wm_topology *base,
		 size_t i, const char *text, size_t len, const char *name,
		 struct wm_topology **t, char *err, size_t errlen)
{
	size_t n = s->n_axes +
		   (1 + WM_STAGE_LATE_OUTPUTS) * (size_t)base->n_stages;
	struct wm_override *ov = calloc(n ? n : 1, sizeof(*ov));
	size_t idx[WM_SWEEP_MAX_AXES];
	struct wm_override_text ot;
	struct wm_ini_error ierr;
	char what[1024], msg[1024];
	size_t k = 0, bad;
	int r;

	if (ov == NULL)
		return EX_OSERR;
	wm_sweep_combination(s, i, idx);
	for (size_t a = 0; a < s->n_axes; a++)
		ov[k++] = (struct wm_override){
			.section = s->axes[a].section,
			.key = s->axes[a].key,
			.value = s->axes[a].values[idx[a]]};
	for (uint32_t st = 0; st < base->n_stages; st++) {
		const struct wm_stage *g = &base->stages[st];

		if (g->kind == WM_STAGE_SINK)
			ov[k++] = (struct wm_override){.section = g->name,
						       .key = "path",
						       .value = "-"};
		for (unsigned l = 0; l < WM_STAGE_LATE_OUTPUTS; l++) {
			const char *key;
			char **f = wm_stage_late_output_field(
				(struct wm_stage *)g, l, &key);

			if (f != NULL && *f != NULL)
				ov[k++] =
					(struct wm_override){.section = g->name,
							     .key = key,
							     .value = "-"};
		}
	}
	wm_sweep_describe(s, i, what, sizeof(what));
	r = wm_override_apply(text, len, name, ov, k, &ot, &bad, msg,
			      sizeof(msg));
	free(ov);
	if (r != 0) {
		if (r == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		else if (bad < s->n_axes)
			snprintf(err, errlen, "invalid --sweep \"%s=...\": %s",
				 s->axes[bad].option, msg);
		else
			snprintf(err, errlen, "%s", msg);
		return r == -ENOMEM ? EX_OSERR : EX_USAGE;
	}
	r = load_with_settings(s, ot.text, ot.len, name, t, &ierr);
	if (r != 0) {
		/* Lines of the user's file; one the sweep added has none. */
		ierr.line = wm_override_orig_line(&ot, ierr.line);
		if (ierr.line == 0)
			ierr.col = 0;
		wm_ini_error_format(&ierr, msg, sizeof(msg));
		snprintf(err, errlen, "--sweep combination %s: %s", what, msg);
	}
	wm_override_text_free(&ot);
	if (r == 0)
		return own_checkpoint_dir(*t, i, err, errlen);
	return wm_exit_status(WM_EXIT_INPUT, r);
}

/* In the child: run `t`, in this process on simulated time or (`sim`
 * false) as a supervised real job, its row to `fd`, exit. */
static void
run_child(const struct wm_topology *t, bool sim, int fd)
{
	/* Nothing to show while it runs: the table is what the sweep
	 * prints. */
	const struct wm_observe_options quiet = {
		.live = WM_LIVE_OFF,
		.fd = STDERR_FILENO,
		.interval_ns = 250000000,
		.redraw_ns = 1000000000,
		.status_ns = 5000000000,
	};
	struct wm_job_report rep = {0};
	struct wm_sweep_row row = {0};
	int null = open("/dev/null", O_WRONLY);
	int r;

	/* The sinks write to standard output: the table is the result. */
	if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
		_exit(EX_OSERR);
	if (sim) {
		r = wm_sim_run(t, &rep, row.error, sizeof(row.error));
		row.status = r > 0    ? r
			     : r != 0 ? wm_exit_status(WM_EXIT_SIM, r)
				      : EX_OK;
	} else {
		row.status = wm_supervisor_run(t, &quiet, &rep, row.error,
					       sizeof(row.error));
	}
	if (rep.subtasks != NULL) {
		wm_sweep_row_from_report(t, &rep, &row);
		if (row.status == EX_OK && !row.accounted) {
			row.status = EX_SOFTWARE;
			snprintf(row.error, sizeof(row.error),
				 "the summary does not account for every "
				 "record: an internal error");
		}
	}
	if (write(fd, &row, sizeof(row)) != (ssize_t)sizeof(row))
		_exit(EX_IOERR);
	_exit(0);
}

/* In the child of a real run: a process group of its own (the sweep
 * passes stop signals on), stopped (drained) if the sweep dies, the
 * caller's signal mask back; then the run. Never returns. */
static void
real_child(const struct wm_topology *t, pid_t sweep, const sigset_t *old,
	   int fd)
{
	if (setpgid(0, 0) != 0 || prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 ||
	    getppid() != sweep)
		_exit(EX_OSERR);
	/* A stop signal that comes before the supervisor blocks its own
	 * kills this process at once: no worker has started yet, and the
	 * sweep counts the run as not run. */
	sigprocmask(SIG_SETMASK, old, NULL);
	run_child(t, false, fd);
}

/* Fork the child that runs `t` (on simulated time, or a real job:
 * real_child(), the caller's mask `old` to restore), its row to come
 * through a pipe: its pid and the pipe's read end into *pid and *fd. 0,
 * or EX_OSERR after a message in err. */
static int
start_run(const struct wm_topology *t, bool sim, const sigset_t *old,
	  pid_t *pid, int *fd, char *err, size_t errlen)
{
	pid_t sweep = getpid();
	int fds[2];

	if (pipe(fds) != 0) {
		snprintf(err, errlen, "could not start a run: %s",
			 strerror(errno));
		return EX_OSERR;
	}
	*pid = fork();
	if (*pid < 0) {
		snprintf(err, errlen, "could not start a run: %s",
			 strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return EX_OSERR;
	}
	if (*pid == 0) {
		close(fds[0]);
		if (sim)
			run_child(t, true, fds[1]);
		real_child(t, sweep, old, fds[1]);
	}
	close(fds[1]);
	*fd = fds[0];
	return 0;
}

/* The row of a child that ended with wait status `st`, from its pipe
 * `fd`, or one saying how it died without one. Whether it sent one. */
static bool
read_row(int fd, int st, struct wm_sweep_row *row)
{
	ssize_t got;

	do
		got = read(fd, row, sizeof(*row));
	while (got < 0 && errno == EINTR);
	if (got == (ssize_t)sizeof(*row) && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0)
		return true;
	memset(row, 0, sizeof(*row));
	row->status = WIFSIGNALED(st)			 ? 128 + WTERMSIG(st)
		      : WIFEXITED(st) && WEXITSTATUS(st) ? WEXITSTATUS(st)
							 : EX_SOFTWARE;
	snprintf(row->error, sizeof(row->error),
		 WIFSIGNALED(st)
			 ? "the run was terminated by signal %d"
			 : "the run ended without its figures (exit %d)",
		 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	return false;
}

/* Reap one child of `kids`, read its row, count it in `progress`;
 * returns how many remain. */
static size_t
reap_one(struct child *kids, size_t n, struct wm_sweep_row *rows,
	 struct wm_sweep_progress *progress)
{
	int st;
	pid_t pid;

	do
		pid = waitpid(-1, &st, 0);
	while (pid < 0 && errno == EINTR);
	for (size_t k = 0; k < n; k++) {
		if (kids[k].pid != pid)
			continue;
		read_row(kids[k].fd, st, &rows[kids[k].combination]);
		close(kids[k].fd);
		wm_sweep_progress_run_done(progress, wm_monotonic_ns());
		kids[k] = kids[n - 1];
		return n - 1;
	}
	return n; /* not ours: a child of a caller */
}

/* Every combination's topology into (*topos)[], the base one into
 * *base, before anything runs (Kafka topics probed for `real` runs). 0,
 * or the exit status after a message in err; either way free them with
 * free_all(). */
static int
load_all(const struct wm_sweep *s, const char *text, size_t len,
	 const char *name, bool real, struct wm_topology **base,
	 struct wm_topology ***topos, char *err, size_t errlen)
{
	size_t n = wm_sweep_combinations(s);
	struct wm_ini_error ierr;
	int status = 0;

	*base = NULL;
	*topos = NULL;
	if (n > MAX_COMBINATIONS) {
		snprintf(err, errlen,
			 "--sweep makes %zu combinations: at most %d can run",
			 n, MAX_COMBINATIONS);
		return EX_USAGE;
	}
	if (load_with_settings(s, text, len, name, base, &ierr) != 0) {
		wm_ini_error_format(&ierr, err, errlen);
		return EX_CONFIG;
	}
	*topos = calloc(n, sizeof(**topos));
	if (*topos == NULL) {
		snprintf(err, errlen, "out of memory");
		return EX_OSERR;
	}
	for (size_t i = 0; status == 0 && i < n; i++) {
		status = load_combination(s, *base, i, text, len, name,
					  &(*topos)[i], err, errlen);
		if (status == 0)
			status = wm_kafka_topology_prepare((*topos)[i], !real,
							   err, errlen);
	}
	return status;
}

static void
free_all(struct wm_topology *base, struct wm_topology **topos, size_t n)
{
	for (size_t i = 0; topos != NULL && i < n; i++)
		wm_topology_free(topos[i]);
	free(topos);
	wm_topology_free(base);
}

int
wm_sweep_run(const struct wm_sweep *s, const char *text, size_t len,
	     const char *name, unsigned jobs, FILE *progress_out,
	     struct wm_sweep_row *rows, char *err, size_t errlen)
{
	size_t n = wm_sweep_combinations(s);
	struct wm_topology *base, **topos;
	struct child *kids = calloc(jobs ? jobs : 1, sizeof(*kids));
	struct wm_sweep_progress progress;
	size_t running = 0, next = 0;
	int status =
		load_all(s, text, len, name, false, &base, &topos, err, errlen);

	/* Short runs: a line a second at most. */
	wm_sweep_progress_start(&progress, progress_out, n, wm_monotonic_ns(),
				1000000000);

	if (status == 0 && kids == NULL) {
		snprintf(err, errlen, "out of memory");
		status = EX_OSERR;
	}
	while (status == 0 && (next < n || running > 0)) {
		int fd;
		pid_t pid;

		if (running == (jobs ? jobs : 1) || next == n) {
			running = reap_one(kids, running, rows, &progress);
			continue;
		}
		status = start_run(topos[next], true, NULL, &pid, &fd, err,
				   errlen);
		if (status != 0)
			break;
		kids[running++] = (struct child){pid, fd, next++};
	}
	while (running > 0)
		running = reap_one(kids, running, rows, &progress);
	free_all(base, topos, n);
	free(kids);
	return status;
}

/* The first stop signal pending, taken, or 0 (SIGCHLDs are taken too). */
static int
pending_stop(const sigset_t *mask)
{
	const struct timespec now = {0, 0};
	int sig;

	while ((sig = sigtimedwait(mask, NULL, &now)) > 0)
		if (sig != SIGCHLD)
			return sig;
	return 0;
}

/* Wait for the real run `pid`, passing each stop signal on to it (the
 * first into *stopped); its wait status. */
static int
wait_real(pid_t pid, const sigset_t *mask, int *stopped)
{
	const struct timespec tick = {1, 0};
	int st;

	for (;;) {
		pid_t got = waitpid(pid, &st, WNOHANG);
		int sig;

		if (got == pid)
			return st;
		if (got < 0 && errno != EINTR)
			return W_EXITCODE(EX_OSERR, 0);
		/* A SIGCHLD, a stop signal, or a second to look again: a
		 * SIGCHLD taken by an earlier look is not lost, only late. */
		sig = sigtimedwait(mask, NULL, &tick);
		if (sig > 0 && sig != SIGCHLD) {
			if (*stopped == 0)
				*stopped = sig;
			kill(pid, sig);
		}
	}
}

int
wm_sweep_run_real(const struct wm_sweep *s, const char *text, size_t len,
		  const char *name, FILE *progress_out,
		  struct wm_sweep_row *rows, int *stopped, char *err,
		  size_t errlen)
{
	size_t n = wm_sweep_combinations(s);
	struct wm_topology *base, **topos;
	int status =
		load_all(s, text, len, name, true, &base, &topos, err, errlen);
	struct wm_sweep_progress progress;
	sigset_t mask, old, keep;

	/* Long runs: a line after each. */
	wm_sweep_progress_start(&progress, progress_out, n, wm_monotonic_ns(),
				0);

	*stopped = 0;
	wm_supervisor_stop_signals(&mask);
	sigprocmask(SIG_BLOCK, &mask, &old);
	for (size_t i = 0; status == 0 && i < n; i++) {
		char what[1024];
		int fd, st;
		pid_t pid;

		if (*stopped == 0)
			*stopped = pending_stop(&mask);
		if (*stopped != 0) {
			rows[i].skipped = true;
			continue;
		}
		wm_sweep_describe(s, i, what, sizeof(what));
		wm_log("wmrun: --sweep run %zu of %zu: %s", i + 1, n, what);
		fflush(stderr);
		status = start_run(topos[i], false, &old, &pid, &fd, err,
				   errlen);
		if (status != 0)
			break;
		st = wait_real(pid, &mask, stopped);
		/* Killed by the stop before its supervisor took the stop
		 * signals: it never ran (no worker had started). */
		if (!read_row(fd, st, &rows[i]) && *stopped != 0 &&
		    WIFSIGNALED(st) && WTERMSIG(st) == *stopped)
			rows[i].skipped = true;
		else if (*stopped != 0)
			rows[i].cut = true;
		close(fd);
		if (*stopped == 0)
			wm_sweep_progress_run_done(&progress,
						   wm_monotonic_ns());
	}
	/* The stop signals stay blocked: the caller prints the rows and
	 * exits, and one that comes now finds nothing left to stop. One
	 * that came after the last run still says the sweep was stopped. */
	if (status == 0 && *stopped == 0)
		*stopped = pending_stop(&mask);
	keep = old;
	sigaddset(&keep, SIGINT);
	sigaddset(&keep, SIGTERM);
	sigaddset(&keep, SIGHUP);
	sigprocmask(SIG_SETMASK, &keep, NULL);
	free_all(base, topos, n);
	return status;
}

unsigned
wm_sweep_jobs(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 1;
	return CPU_COUNT(&set) > 0 ? (unsigned)CPU_COUNT(&set) : 1;
}
