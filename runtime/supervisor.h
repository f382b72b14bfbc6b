/*
 * supervisor.h
 *	Run a job as processes: one per subtask, pinned, over the shared
 *	segment's rings (supervisor.c says how it starts and stops them).
 */
#ifndef WM_RUNTIME_SUPERVISOR_H
#define WM_RUNTIME_SUPERVISOR_H

#include <stddef.h>

#include "runtime/sim.h"
#include "runtime/topology.h"

/*
 * Run `topo` to its end. Returns 0 when every worker finished; 1 when one
 * failed or died (err names it: subtask, pid, signal or exit status; the
 * others were stopped); 128 + n when signal n stopped the job; a sysexits
 * code when the segment, a fork or an output failed. *report holds what
 * the workers counted (fire delay percentiles from a merged log-linear
 * histogram: within 12.5% below the true value; the maximum is exact) and
 * the memory they used; it is zeroed first, so free(report->max_rss_kib)
 * is right after any return.
 */
int wm_supervisor_run(const struct wm_topology *topo,
		      struct wm_sim_report *report, char *err, size_t errlen);

#endif /* WM_RUNTIME_SUPERVISOR_H */
