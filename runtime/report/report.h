/*
 * report.h
 *	The job summary: the subtasks' metrics blocks (metrics.h) added up per
 *	job, per stage and per partition, printed for people or as JSON.
 *
 * Both drivers fill it the same way: the --sim driver from the blocks it
 * keeps in memory, the supervisor from the blocks in the shared segment,
 * at the end of the job (and, for a live view, while it runs).
 *
 * Figures (every one is defined by metrics.h and progress.h):
 *   records_read            records the sources emitted
 *   bad_records_skipped     malformed trace lines skipped (on_bad_record
 *                           = skip): not records, not in records_read
 *   heartbeats              heartbeats the sources' watermark generators
 *                           saw, then dropped: not records either
 *   records_windowed, late_records_dropped, late_records_side_output,
 *   records_in_no_window    what the window stages did with what they
 *                           read; the four add up to records_read when
 *                           every source feeds a window (conservation)
 *   windows_fired(_late), results_written
 *   fire_delay_ms           processing time from a window's end to its
 *                           on-time firing (below 0 counts as 0): p50
 *                           and p99 the nearest rank's delay from the
 *                           window subtasks' WM_HISTOGRAM_FINE counts
 *                           added up (exact below 2048 ms, at most 2^-10
 *                           below above: 3 significant digits), max
 *                           exact; -1 without an on-time firing; windows
 *                           at the ends of the int64 range are left out
 *                           and counted (fire_delays_excluded). The text
 *                           gives them in the summary's units, the JSON
 *                           in ms
 *   records_per_s           records_read per second of wall-clock time
 *                           (real runs) or of simulated time (--sim, so
 *                           that its summary stays byte-identical)
 *   per subtask             records in/out, its output watermark's stalls
 *                           and idle time (progress.h), how much of the
 *                           longest stall its process waited for a CPU
 *                           (real time; cpu_wait_ms in all), what held its
 *                           longest stall (longest_stall_held_by) and
 *                           what holds it now if it is stalled
 *                           (held_by_now): an upstream subtask
 *                           "stage/index" or a partition "stage-id"
 *   scheduling noise        real runs: the most processing time a
 *                           subtask fell behind the records' schedule on
 *                           what moved its watermarks, as this run
 *                           measured it in any of its attempts
 *                           (scheduling_noise_ms,
 *                           late_max_ms per subtask), and the still
 *                           stretches that only this lateness made look
 *                           stalls (runtime/engine/progress.h), counted
 *                           apart and in no other stall figure
 *                           (noise_stalls, noise_stalled_ms and
 *                           noise_cpu_wait_ms per subtask, per partition
 *                           and in all). A run that fell behind by more
 *                           than the stall threshold says so in one line
 *                           at the top of the summary
 *   outcome                 finished, stopped (by a signal: figures as of
 *                           then) or failed (a worker or an output failed:
 *                           figures as last published); wall_time_ms in
 *                           real runs
 *   edges                   per edge between stages, records sent and
 *                           received; records_in_flight, what a stop or a
 *                           failure left between them
 *   per source partition    records, its watermark's stalls, idle time,
 *                           idle/active transitions and the time
 *                           watermark alignment kept it from being read
 *   gaps, disorder,         per partition its gaps between records
 *   lateness                (p50, p99, a burst period, the longest
 *                           silence), per source subtask its records'
 *                           disorder, per window subtask its late
 *                           records' lateness: what the advice at the
 *                           end (advice.h: what held event time, the
 *                           settings advised) is made from
 *   alerts                  with [job] alert_* only: every alert raised
 *                           (runtime/observe/alerts.h), when, how long its
 *                           condition had held and when it ended, as the
 *                           driver that watched the job hands them over
 */
#ifndef WM_RUNTIME_REPORT_REPORT_H
#define WM_RUNTIME_REPORT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "runtime/conf/topology.h"
#include "runtime/observe/alerts.h"
#include "runtime/plan/plan.h"
#include "runtime/report/job_report.h"

/*
 * Fill `rep` from the metrics blocks and partitions of every subtask of
 * `plan` in `metrics`, a metrics area laid out by it (plan.h). `end_ns`
 * and `wall_ns` as above. 0 or -ENOMEM.
 * Free with wm_report_free().
 */
int wm_report_collect(struct wm_job_report *rep, const struct wm_topology *topo,
		      const struct wm_plan *plan, const void *metrics,
		      int64_t end_ns, int64_t wall_ns, bool sim);
void wm_report_free(struct wm_job_report *rep);

/* The alerts the driver's machine raised, copied into `rep`: `n` of
 * `raised`. 0 or -ENOMEM. */
int wm_report_set_alerts(struct wm_job_report *rep,
			 const struct wm_alert *alerts, uint32_t n,
			 uint64_t raised);

/* Every record is accounted for: every record a window stage received is
 * in a window, late (dropped or side output) or in no window; and every
 * record sent on an edge was received by the stage at its end, or, when a
 * stop or a failure cut the job short, is counted in flight. */
bool wm_report_accounted(const struct wm_job_report *rep);

/* records_per_s: records read per second of wall-clock time (real runs)
 * or of simulated time (--sim); 0 for a job that took no time. */
double wm_report_records_per_s(const struct wm_job_report *rep);

/* The fire delays' p50, p99 and max in the summary's units ("9.0 s",
 * "7 h 59 min"), for the text and the report page; the JSON has the
 * milliseconds. Meaningless when fire_delay_p50_ms is -1 (no on-time
 * firing). */
struct wm_report_delays {
	char p50[48], p99[48], max[48];
};
void wm_report_fire_delays(const struct wm_job_report *rep,
			   struct wm_report_delays *d);

/* The summary for people (what wmrun prints at the end), and as one JSON
 * object on a line (--summary FILE). wm_report_print_json(): 0, -ENOMEM
 * when the summary could not be built or written for want of memory
 * (nothing or part of it written: write it into memory, and keep it only
 * on 0), or -EIO when `f` refused a write (ferror(f)). */
void wm_report_print(FILE *f, const struct wm_topology *topo,
		     const struct wm_job_report *rep);
int wm_report_print_json(FILE *f, const struct wm_topology *topo,
			 const struct wm_job_report *rep);

#endif /* WM_RUNTIME_REPORT_REPORT_H */
