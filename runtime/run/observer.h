/*
 * observer.h
 *	The process that watches a real run: it samples every subtask's
 *	metrics block, publishes each snapshot to its readers with RCU, and
 *	shows the job while it runs (runtime/observe/view.h).
 *
 * Why a process of its own (doc/architecture.md section 6): its readers
 * are threads, and the supervisor, which forks the workers (and will fork
 * them again to restart them), must stay single-threaded; a child forked
 * from a threaded process may call only async-signal-safe functions. The
 * supervisor forks the observer once, before the workers; it maps the
 * segment through the fork, reads the blocks and nothing else, and never
 * forks. It learns that the job ended when the supervisor closes the
 * pipe it holds (EOF), shows the last snapshot and exits; the supervisor
 * waits for it before the summary, so the two never interleave.
 *
 * Alerts ([job] alert_*, runtime/observe/alerts.h): the sampler feeds
 * each snapshot to the alert machine and prints each alert raised as one
 * line on `fd` (on a screen, the latest few under it instead), unless
 * --quiet asked for nothing before the summary; the observer then runs
 * without a view, for the alerts alone. It hands the alerts to the
 * supervisor in a small shared mapping the supervisor made before the
 * fork (struct handoff in observer.c): appended while the job runs, the
 * whole list with the episodes' ends written before the observer exits.
 * The supervisor reads it only after reaping the observer, and checks
 * what it reads (wm_observer_alerts()).
 *
 * Threads of the observer: the main one samples every `interval_ns` and
 * publishes (rcu_xchg_pointer(), the old snapshot freed by call_rcu()
 * once no reader can hold it); the view's thread reads the current
 * snapshot under rcu_read_lock() and draws it; the timeline's thread,
 * woken at each publication, writes each snapshot it sees as JSON lines
 * (and counts the ones a slow disk made it miss); with --prometheus, the
 * endpoint's thread (endpoint.h) renders the current one for each
 * scrape. No reader waits for the sampler or the sampler for a reader,
 * and none touches anything a worker reads.
 *
 * With --report (o->recording set) the sampler also feeds every snapshot
 * to a recorder (runtime/chart/recorder.h) on the grid --sim uses for the
 * same job, in processing time. The page needs the job's summary, which
 * the supervisor builds only after reaping the observer, so the recorder
 * goes to the supervisor rather than the summary to the observer: once
 * the last sample is in, the observer packs it into a second mapping the
 * supervisor made before the fork (struct recording in observer.c), and
 * the supervisor unpacks and checks it after reaping
 * (wm_observer_recording()). This is the alerts' hand-over again: no
 * pipe to drain while waiting, no fork from the threaded observer, and
 * an observer killed at the end hands over nothing rather than half.
 *
 * With --prometheus the observer listens before the supervisor forks any
 * worker and says on a second pipe, in one line, whether it serves:
 * wm_observer_start() returns only once it knows, so that a port that
 * cannot be had fails the job before it starts.
 */
#ifndef WM_RUNTIME_RUN_OBSERVER_H
#define WM_RUNTIME_RUN_OBSERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ipc/shm.h"
#include "runtime/chart/recorder.h"
#include "runtime/conf/topology.h"
#include "runtime/plan/plan.h"
#include "runtime/report/report.h"
#include "runtime/run/endpoint.h"

/* What a real run shows while it runs (wmrun --live, --quiet). */
enum wm_live {
	WM_LIVE_OFF,	/* --quiet: nothing before the summary */
	WM_LIVE_LINES,	/* timestamped lines, for a log */
	WM_LIVE_SCREEN, /* a screen redrawn in place on a terminal */
};

struct wm_observe_options {
	enum wm_live live;
	const char *metrics; /* --metrics FILE (timeline.h); NULL */
	int fd;		     /* where the view writes: 2 */
	/* WM_LIVE_SCREEN: the terminal on fd, its description read
	 * (terminal.h) */
	const struct wm_terminal *terminal;
	int64_t interval_ns; /* between samples (real time) */
	int64_t redraw_ns;   /* between screens (real time) */
	int64_t status_ns;   /* between status lines (real time) */
	/* --prometheus (.on false: none): the observer serves the
	 * exposition of its current snapshot (endpoint.h) */
	struct wm_listen prometheus;
	/* --report: where the supervisor leaves the observer's recorder
	 * after the job (NULL: no report asked, nothing recorded) */
	struct wm_recorder **recording;
};

struct handoff;
struct recording;
struct wm_terminal;

struct wm_observer {
	pid_t pid;  /* 0: none */
	int end_fd; /* the supervisor's end of the pipe; -1 */
	bool reaped;
	bool writes;		     /* a metrics file */
	struct handoff *alerts;	     /* shared with the observer; NULL: none */
	struct recording *recording; /* likewise, --report's; NULL */
	size_t recording_size;
	const struct wm_topology *topo;
	const struct wm_plan *plan;
};

/*
 * Fork the observer of the job whose segment is `seg`, after opening the
 * --metrics file if asked (so that a file that cannot be made fails the
 * job before any worker starts), and with --prometheus wait until it
 * listens, 30 s at most (the stop signals are blocked meanwhile: an
 * observer stopped or stuck before it answers is killed, and named). 0,
 * or an exit status with a message in err: 74 for the metrics file, 71
 * for a pipe, a fork or the alerts' mapping refused or an endpoint that
 * could not listen or did not answer (the observer is then gone again).
 * With nothing to show, write, serve or watch (WM_LIVE_OFF, no metrics
 * file, no endpoint, no alert configured) nothing is started and
 * obs->pid is 0.
 */
int wm_observer_start(struct wm_observer *obs,
		      const struct wm_observe_options *o,
		      const struct wm_topology *topo,
		      const struct wm_plan *plan, const struct wm_shm *seg,
		      char *err, size_t errlen);

/* The job ended: the observer shows and writes the last snapshot and
 * exits; wait for it, at most a few seconds (then it is killed, and its
 * view just stops). 0, or the observer's failure as an exit status
 * (EX_IOERR: the metrics file could not be written, or is cut short). */
int wm_observer_finish(struct wm_observer *obs);

/* After wm_observer_finish(): the alerts the observer raised into `rep`
 * (a summary, or one with no subtasks: nothing to give them to), and the
 * shared mapping released. 0, or -ENOMEM. An alert that names nothing of
 * this job is a broken observer, left out with a notice. */
int wm_observer_alerts(struct wm_observer *obs, struct wm_job_report *rep);

/* After wm_observer_finish(): --report's recorder as the observer handed
 * it over, checked, and the shared mapping released; NULL (with a
 * message) if it handed over none or one that does not fit the plan, or
 * none was asked. The caller frees it. */
struct wm_recorder *wm_observer_recording(struct wm_observer *obs);

#endif /* WM_RUNTIME_RUN_OBSERVER_H */
