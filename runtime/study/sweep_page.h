/*
 * sweep_page.h
 *	The report of a --sweep (wmrun --sweep ... --report FILE.html): what
 *	each run measured (sweep.h's rows) drawn against the swept value as
 *	one self-contained HTML page of inline SVG (runtime/chart/svg.h),
 *	with the sweep's table under the plots.
 *
 * Plots, in order: "stall fraction", "fire delay p50", "fire delay p99",
 * "fire delay max", "late ratio". The first axis is x; every combination
 * of the other axes' values is a curve of its own in every plot, named
 * (data-series) as the plot ("stall fraction") when there is one axis,
 * else as the plot and the combination ("stall fraction at
 * events.watermark_at=subtask"). The x axis is numeric when every value
 * of the first axis is a number (events.parallelism=1,2,4,8), a duration
 * in human units when every value is one (idle_timeout=1s,30s,5min),
 * else categorical, a column per value in the order given
 * (none,1s,30s; split,subtask). A run that failed before reading
 * anything, or whose windows never fired on time (fire delays only),
 * leaves a gap in its curves.
 * Pure: writes to `f` only.
 */
#ifndef WM_RUNTIME_STUDY_SWEEP_PAGE_H
#define WM_RUNTIME_STUDY_SWEEP_PAGE_H

#include <stdio.h>

#include "runtime/study/sweep.h"

/* The page of sweep `s` whose rows[] (one per combination, in order)
 * wm_sweep_run() filled; `name` is the topology's, for the title. */
void wm_sweep_page_write(FILE *f, const struct wm_sweep *s,
			 const struct wm_sweep_row *rows, const char *name);

#endif /* WM_RUNTIME_STUDY_SWEEP_PAGE_H */
