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
 *   records_windowed, late_records_dropped, late_records_side_output,
 *   records_in_no_window    what the window stages did with what they
 *                           read; the four add up to records_read when
 *                           every source feeds a window (conservation)
 *   windows_fired(_late), results_written
 *   fire_delay_ms           processing time from a window's end to its
 *                           on-time firing: p50 and p99 from the merged
 *                           histograms (each within 12.5% below the true
 *                           value), max exact; windows at the ends of the
 *                           int64 range are left out and counted
 *                           (fire_delays_excluded)
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

#include "runtime/metrics/metrics.h"
#include "runtime/plan/plan.h"
#include "runtime/engine/progress.h"
#include "runtime/conf/topology.h"
#include "runtime/observe/alerts.h"

/* A partition's gaps in processing time between consecutive records, as
 * the advice reads them from its histogram (runtime/report/advice.h). */
struct wm_gap_figures {
	uint64_t n; /* gaps measured: records - 1 */
	/* Percentiles as the histogram gives them: the lower bound of the
	 * bucket (within 12.5% below the true value), and the bucket's
	 * upper end, which the true p99 is below; -1 without gaps. */
	int64_t p50_ms, p99_ms, p99_upper_ms;
	/* A second, longer mode above the p99 (a partition that comes in
	 * bursts: the time between them), the upper end of its buckets;
	 * -1 if none. */
	int64_t period_ms;
	int64_t max_ms; /* the longest silence, exact (metrics.h gap_max_ms) */
};

struct wm_partition_report {
	uint32_t partition;
	uint32_t stage;
	uint32_t subtask; /* index within its stage */
	uint64_t records;
	int64_t alignment_paused_ns; /* not read: watermark alignment */
	struct wm_progress_reading wm;
	struct wm_gap_figures gaps;
	int64_t disorder_max_ms; /* 0: none (metrics.h) */
};

struct wm_subtask_report {
	uint32_t stage, index;
	uint64_t records_in, records_out;
	uint64_t bad_records_skipped; /* malformed trace lines */
	uint64_t records_windowed, late_dropped, late_side_output;
	uint64_t other_dropped, windows_fired, windows_fired_late;
	uint64_t results;
	/* Peak resident set of its process in KiB (real runs; 0 in --sim):
	 * wait4()'s ru_maxrss, which counts the segment pages it touched and
	 * the pages still shared with the supervisor after fork. */
	uint64_t max_rss_kib;
	int64_t alignment_waiting_ns; /* read nothing: watermark alignment */
	int64_t cpu_wait_ns; /* real time runnable, not running (real runs) */
	/* The most processing time it was behind the records' schedule on
	 * what moved its watermarks (metrics.h; real runs). */
	int64_t late_max_ns;
	/* What ended the longest stall, the one that held the watermark:
	 * for an operator the upstream subtask (plan id) whose input did,
	 * for a source the partition (id) at the multiplexer's minimum;
	 * UINT32_MAX: unknown (the stall was still open). Names: subtasks
	 * "stage/index", partitions "stage-partition", as Kafka names them. */
	uint32_t held_by;
	/* The same for a stall still open when the figures were read (a job
	 * stopped while stalled, or a live reading); UINT32_MAX if none. */
	uint32_t held_by_now;
	struct wm_progress_reading wm; /* its output watermark */
	/* A source: its records' disorder; a window: its late records'
	 * lateness and the largest (-1: none). Histograms in ms, as the
	 * block has them (metrics.h), for the advice. */
	uint64_t disorder[WM_HISTOGRAM_BUCKETS];
	uint64_t lateness[WM_HISTOGRAM_BUCKETS];
	int64_t lateness_max_ms;
	uint32_t n_partitions;
	struct wm_partition_report *partitions; /* into the report's array */
	/* A source fed from outside (metrics.h): the outages it rode out,
	 * their processing time, whether it is without brokers at the end,
	 * and the exit code and why it stopped the job with (0, ""). */
	uint32_t source_outages;
	int64_t source_outage_ns;
	bool source_unreachable;
	uint32_t source_exit_code;
	char source_why[256];
};

/* One edge between stages: what its upstream subtasks sent on it (every
 * copy of a broadcast counted) and what its downstream subtasks received
 * on that input. */
struct wm_edge_report {
	uint32_t from, to; /* stages */
	uint32_t input;	   /* of `to` */
	uint64_t sent, received;
};

/* Checkpoints of a --sim run ([job] checkpoint_interval). */
/* One restart of a real run: when, why, from what, and how long event
 * time was held after it. */
#define WM_RESTART_NOTES 16
struct wm_restart_note {
	int64_t at_ns;		/* processing time of the failure */
	uint64_t restored_from; /* checkpoint id; 0: from the start */
	/* Processing time of that checkpoint's trigger (0: from the start):
	 * the job replays what came after it, a backlog of at_ns minus
	 * this. */
	int64_t checkpoint_ns;
	/* From the restore until every window subtask's watermark was back
	 * where the supervisor last saw it before the failure; -1: never,
	 * before the job ended or failed again. */
	int64_t held_ns;
	int64_t delay_ns; /* the restart strategy's, processing time */
	uint32_t attempt; /* the strategy's count (restart_strategy.h) */
	char cause[240];  /* the failure, as the supervisor named it */
};

struct wm_checkpoint_summary {
	uint64_t completed;
	uint64_t last_id;
	uint64_t bytes_total; /* the blobs of every one completed */
	uint64_t last_bytes;
	int64_t duration_max_ns; /* trigger to commit, processing time */
	int64_t duration_total_ns;
	/* The longest alignment of any subtask's barriers, real runs
	 * (Flink's checkpointAlignmentTime). */
	int64_t alignment_max_ns;
	uint64_t timed_out; /* given up after checkpoint_timeout */
	uint64_t failed;    /* the store failed (a full disk): aborted */
	/* The crash of [job] fail_at and the restore that followed, or the
	 * job's failure if the restart strategy gave up (gave_up). */
	bool restarted;
	bool gave_up;
	int64_t restart_ns; /* processing time of the crash */
	/* The restart strategy (restart_strategy.h's name of its kind), its
	 * count of attempts after the crash, and the delay it chose: the
	 * restore was at restart_ns + delay_ns, nothing ran meanwhile. */
	const char *strategy;
	uint32_t attempt;
	int64_t delay_ns;
	uint64_t restored_from;	  /* checkpoint id; 0: none, from scratch */
	int64_t restored_from_ns; /* when that checkpoint was triggered */
	/* Read before the crash and read again after the restore (the
	 * records after the checkpoint's positions): every other figure
	 * counts each record once, as the run that survived read it. */
	uint64_t records_replayed;
	uint64_t results_again; /* emitted before the crash, and again */
	/* From the restore (not the crash) until every window subtask's
	 * watermark is back where it was at the crash; -1: never, before the
	 * job ended. */
	int64_t held_ns;
	/* A real run's restarts (the first WM_RESTART_NOTES of them noted;
	 * of the fields above it sets only restarted, restart_ns, strategy,
	 * attempt and gave_up). */
	uint32_t restarts;
	struct wm_restart_note notes[WM_RESTART_NOTES];
};

struct wm_job_report {
	bool sim;
	bool stopped;	 /* by a signal: figures as of then */
	bool failed;	 /* a worker failed: figures as last published */
	int64_t end_ns;	 /* processing time when the job ended */
	int64_t wall_ns; /* real time the run took */
	uint64_t records_read;
	uint64_t bad_records_skipped; /* on_bad_record = skip */
	uint64_t records_windowed;
	uint64_t late_dropped; /* numLateRecordsDropped */
	uint64_t late_side_output;
	uint64_t other_dropped; /* in no window, not late (time's ends) */
	uint64_t windows_fired;
	uint64_t windows_fired_late;
	uint64_t results_written;
	/* The flow into the window stages: records they received, and how
	 * many they should have (each record read once per path to a window,
	 * times the parallelism of a broadcast edge on the way); and whether
	 * each window stage accounts for what it received. */
	uint64_t records_to_windows;
	uint64_t records_due_to_windows;
	bool windows_account;
	/* Every edge, and what was sent on them but not received: records
	 * in flight when a stop or a failure cut the job short (a job that
	 * ran to its end has none). edges_consistent is false if an edge
	 * received more than was sent (figures of processes that died at
	 * different times). */
	uint32_t n_edges;
	struct wm_edge_report *edges;
	uint64_t in_flight;
	bool edges_consistent;
	/* On-time firings left out of fire_delay_ms: windows at the ends of
	 * the int64 range of time (more than 2^62 ms from 1970, or wrapped
	 * there as Flink's do, their end below their start), whose delay
	 * says only how far from processing time they lie. */
	uint64_t fire_delays_excluded;
	int64_t fire_delay_p50_ms, fire_delay_p99_ms, fire_delay_max_ms;
	uint64_t shm_bytes;  /* the shared segment of a real run; 0 in --sim */
	uint32_t n_subtasks; /* the plan's, in plan order */
	struct wm_subtask_report *subtasks;
	uint32_t n_partitions;
	struct wm_partition_report *partitions;
	/* The alerts raised, in order: the first n_alerts of alerts_raised
	 * (alerts.h keeps WM_ALERTS_KEPT). */
	uint32_t n_alerts;
	struct wm_alert *alerts;
	uint64_t alerts_raised;
	bool checkpointing; /* [job] checkpoint_interval set */
	struct wm_checkpoint_summary checkpoints;
};

/*
 * Fill `rep` from the metrics blocks of every subtask of `plan`: block i
 * at base + i x stride. `end_ns` and `wall_ns` as above. 0 or -ENOMEM.
 * Free with wm_report_free().
 */
int wm_report_collect(struct wm_job_report *rep, const struct wm_topology *topo,
		      const struct wm_plan *plan, const void *base,
		      size_t stride, int64_t end_ns, int64_t wall_ns, bool sim);
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

/* A real run's scheduling noise as the run measured it: the most
 * processing time any subtask fell behind the records' schedule
 * (late_max_ns); 0 under --sim, whose schedule is exact. */
int64_t wm_report_noise_ns(const struct wm_job_report *rep);

/* The summary for people (what wmrun prints at the end), and as one JSON
 * object (--summary FILE). */
void wm_report_print(FILE *f, const struct wm_topology *topo,
		     const struct wm_job_report *rep);
void wm_report_print_json(FILE *f, const struct wm_topology *topo,
			  const struct wm_job_report *rep);

#endif /* WM_RUNTIME_REPORT_REPORT_H */
