/*
 * job_page.h
 *	The report of one job (wmrun --report FILE.html): its recorder
 *	(recorder.h) and its summary (runtime/report/report.h) drawn as one
 *	self-contained HTML page with inline SVG (svg.h).
 *
 * First the answer, as the summary gives it (runtime/report/advice.h): what
 * held event time, idleness flapping and the advice, in a <section
 * class="answer">. Then the plots, in order (doc/semantics.md, "The
 * report", says how to read them):
 *   per subtask     its output watermark against processing time, the
 *                   newest event time it saw beside it (the lag is the
 *                   gap), IDLE spans shaded, stalls marked under it
 *   partitions      one row each: when records came, when it was silent,
 *                   when it was IDLE
 *   fire delay      the on-time firings' delays, as the merged histogram
 *   late records    over time, one line per source partition that had any
 *   summary         the job's figures and each subtask's, as a table
 * Series names (data-series) are "STAGE/INDEX watermark", "STAGE/INDEX
 * newest event time", "STAGE/INDEX idle", "STAGE/INDEX stall",
 * "STAGE-ID records", "STAGE-ID silent", "STAGE-ID idle", "fire delay",
 * "late partition ID" (svg.h says what a DOM reader finds).
 * Pure: writes to `f` only.
 */
#ifndef WM_RUNTIME_CHART_JOB_PAGE_H
#define WM_RUNTIME_CHART_JOB_PAGE_H

#include <stdio.h>

#include "runtime/chart/recorder.h"
#include "runtime/conf/topology.h"
#include "runtime/report/report.h"

void wm_job_page_write(FILE *f, const struct wm_topology *topo,
		       const struct wm_recorder *rec,
		       const struct wm_job_report *rep);

#endif /* WM_RUNTIME_CHART_JOB_PAGE_H */
