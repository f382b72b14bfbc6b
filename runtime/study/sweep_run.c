/*
 * sweep_run.c
 *	Run a sweep's combinations under --sim, one process each (sweep.h).
 *
 * The parent loads every combination's topology first, so that a bad
 * value is refused before anything runs; then it forks up to `jobs`
 * children at a time. A child runs its topology, writes its row (smaller
 * than PIPE_BUF, so in one write that never blocks) to its pipe and
 * exits; the parent reaps it and reads the row into its place. A child
 * that dies without a row gets a row saying how it died.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sysexits.h>
#include <unistd.h>

#include "runtime/conf/ini.h"
#include "runtime/conf/topology.h"
#include "runtime/io/exit.h"
#include "runtime/run/sim.h"
#include "runtime/study/override.h"
#include "runtime/study/sweep.h"

static_assert(sizeof(struct wm_sweep_row) <= PIPE_BUF,
	      "a row must go through a pipe in one atomic write");

#define MAX_COMBINATIONS 10000

struct child {
	pid_t pid;
	int fd; /* read end of its pipe */
	size_t combination;
};

/* Combination i's overrides into ov (the swept values, then every sink
 * and late output to standard output, which the children discard), and
 * its topology loaded into *t. 0, or the exit status after a message. */
static int
load_combination(const struct wm_sweep *s, const struct wm_topology *base,
		 size_t i, const char *text, size_t len, const char *name,
		 struct wm_topology **t, char *err, size_t errlen)
{
	size_t n = s->n_axes + 2 * (size_t)base->n_stages;
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
		ov[k++] =
			(struct wm_override){s->axes[a].section, s->axes[a].key,
					     s->axes[a].values[idx[a]]};
	for (uint32_t st = 0; st < base->n_stages; st++) {
		const struct wm_stage *g = &base->stages[st];

		if (g->kind == WM_STAGE_SINK)
			ov[k++] = (struct wm_override){g->name, "path", "-"};
		if (g->kind == WM_STAGE_WINDOW && g->u.window.late_output)
			ov[k++] = (struct wm_override){g->name, "late_output",
						       "-"};
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
	r = wm_topology_load_buffer(ot.text, ot.len, name, t, &ierr);
	if (r != 0) {
		/* Lines of the user's file; one the sweep added has none. */
		ierr.line = wm_override_orig_line(&ot, ierr.line);
		if (ierr.line == 0)
			ierr.col = 0;
		wm_ini_error_format(&ierr, msg, sizeof(msg));
		snprintf(err, errlen, "--sweep combination %s: %s", what, msg);
	}
	wm_override_text_free(&ot);
	return r == 0 ? 0 : wm_exit_status(WM_EXIT_INPUT, r);
}

/* In the child: run `t`, its row to `fd`, exit. */
static void
run_child(const struct wm_topology *t, int fd)
{
	struct wm_job_report rep = {0};
	struct wm_sweep_row row = {0};
	int null = open("/dev/null", O_WRONLY);
	int r;

	/* The sinks write to standard output: the table is the result. */
	if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
		_exit(EX_OSERR);
	r = wm_sim_run(t, &rep, row.error, sizeof(row.error));
	row.status = r > 0    ? r
		     : r != 0 ? wm_exit_status(WM_EXIT_SIM, r)
			      : EX_OK;
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

/* Reap one child of `kids`, read its row; returns how many remain. */
static size_t
reap_one(struct child *kids, size_t n, struct wm_sweep_row *rows)
{
	int st;
	pid_t pid;

	do
		pid = waitpid(-1, &st, 0);
	while (pid < 0 && errno == EINTR);
	for (size_t k = 0; k < n; k++) {
		struct wm_sweep_row *row = &rows[kids[k].combination];
		ssize_t got;

		if (kids[k].pid != pid)
			continue;
		do
			got = read(kids[k].fd, row, sizeof(*row));
		while (got < 0 && errno == EINTR);
		if (got != (ssize_t)sizeof(*row) || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0) {
			memset(row, 0, sizeof(*row));
			row->status = WIFSIGNALED(st) ? 128 + WTERMSIG(st)
				      : WIFEXITED(st) && WEXITSTATUS(st)
					      ? WEXITSTATUS(st)
					      : EX_SOFTWARE;
			snprintf(row->error, sizeof(row->error),
				 WIFSIGNALED(st) ? "the run was terminated by "
						   "signal %d"
						 : "the run ended without its "
						   "figures (exit %d)",
				 WIFSIGNALED(st) ? WTERMSIG(st)
						 : WEXITSTATUS(st));
		}
		close(kids[k].fd);
		kids[k] = kids[n - 1];
		return n - 1;
	}
	return n; /* not ours: a child of a caller */
}

int
wm_sweep_run(const struct wm_sweep *s, const char *text, size_t len,
	     const char *name, unsigned jobs, struct wm_sweep_row *rows,
	     char *err, size_t errlen)
{
	size_t n = wm_sweep_combinations(s);
	struct wm_topology *base = NULL, **topos;
	struct child *kids;
	struct wm_ini_error ierr;
	size_t running = 0, next = 0;
	int status = 0;

	if (n > MAX_COMBINATIONS) {
		snprintf(err, errlen,
			 "--sweep makes %zu combinations: at most %d can run",
			 n, MAX_COMBINATIONS);
		return EX_USAGE;
	}
	if (wm_topology_load_buffer(text, len, name, &base, &ierr) != 0) {
		wm_ini_error_format(&ierr, err, errlen);
		return EX_CONFIG;
	}
	topos = calloc(n, sizeof(*topos));
	kids = calloc(jobs ? jobs : 1, sizeof(*kids));
	if (topos == NULL || kids == NULL) {
		snprintf(err, errlen, "out of memory");
		status = EX_OSERR;
	}
	for (size_t i = 0; status == 0 && i < n; i++)
		status = load_combination(s, base, i, text, len, name,
					  &topos[i], err, errlen);
	while (status == 0 && (next < n || running > 0)) {
		int fds[2];
		pid_t pid;

		if (running == (jobs ? jobs : 1) || next == n) {
			running = reap_one(kids, running, rows);
			continue;
		}
		if (pipe(fds) != 0 || (pid = fork()) < 0) {
			snprintf(err, errlen, "could not start a run: %s",
				 strerror(errno));
			status = EX_OSERR;
			break;
		}
		if (pid == 0) {
			close(fds[0]);
			run_child(topos[next], fds[1]);
		}
		close(fds[1]);
		kids[running++] = (struct child){pid, fds[0], next++};
	}
	while (running > 0)
		running = reap_one(kids, running, rows);
	for (size_t i = 0; topos != NULL && i < n; i++)
		wm_topology_free(topos[i]);
	free(topos);
	free(kids);
	wm_topology_free(base);
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
