/*
 * supervisor.h
 *	Run a job as processes: one per subtask, pinned, over the shared
 *	segment's rings (supervisor.c says how it starts and stops them).
 */
#ifndef WM_RUNTIME_RUN_SUPERVISOR_H
#define WM_RUNTIME_RUN_SUPERVISOR_H

#include <signal.h>
#include <stddef.h>

#include "runtime/report/report.h"
#include "runtime/conf/topology.h"
#include "runtime/run/observer.h"

/*
 * Run `topo` to its end. Returns 0 when every worker finished; 1 when one
 * failed or died (err names it: subtask, pid, signal or exit status; the
 * others were stopped); 128 + n when signal n stopped the job; a sysexits
 * code when a replayed trace is bad or unreadable (read before anything
 * is created: replay.h), or the segment, a fork or an output failed. *report holds what
 * the workers published in their metrics blocks (report.h) once the
 * workers ran, and the memory they used (zeroed if none could start);
 * free it with wm_report_free(). With `observe` (NULL: nothing), an
 * observer shows the job while it runs (observer.h).
 */
int wm_supervisor_run(const struct wm_topology *topo,
		      const struct wm_observe_options *observe,
		      struct wm_job_report *report, char *err, size_t errlen);

/* The signals a job's supervisor takes while the job runs, into *mask:
 * SIGCHLD, and those of SIGINT, SIGTERM and SIGHUP the caller did not
 * leave ignored (an ignored one stays ignored by the whole job). Also what
 * a real sweep, which runs jobs one after another, takes. */
void wm_supervisor_stop_signals(sigset_t *mask);

#endif /* WM_RUNTIME_RUN_SUPERVISOR_H */
