/*
 * report_internal.h
 *	What the summary for people (report_print.c) and its JSON
 *	(report_json.c) both read off a collected report, written once in
 *	report.c so that the two say the same. For runtime/report/ only.
 */
#ifndef WM_RUNTIME_REPORT_REPORT_INTERNAL_H
#define WM_RUNTIME_REPORT_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/conf/topology.h"
#include "runtime/report/job_report.h"

/* "finished", "stopped" or "failed": how the job ended. */
const char *wm_report_outcome(const struct wm_job_report *rep);

/* What held subtask s's longest stall (or holds it now), `who` as its
 * figures give it, named into buf: "events/2" (an upstream subtask) or
 * "events-13" (a partition of a source); false if unknown. */
bool wm_report_held_by_name(const struct wm_topology *t,
			    const struct wm_job_report *rep,
			    const struct wm_subtask_report *s, uint32_t who,
			    char *buf, size_t len);

/* The stalls within scheduling noise of every subtask and partition
 * (progress.h), added up. */
void wm_report_noise_total(const struct wm_job_report *rep, uint64_t *stalls,
			   int64_t *stalled_ns, int64_t *starved_ns);

#endif /* WM_RUNTIME_REPORT_REPORT_INTERNAL_H */
