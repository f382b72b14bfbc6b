/*
 * job_report.h
 *	The job summary's figures as data: what report.c collects from the
 *	metrics blocks, report_print.c and report_json.c print, and advice.c
 *	reads. Types and what is derived from them alone, so that the report
 *	and the advice stand on it and neither on the other (the report's
 *	files call the advice; the advice calls nothing of theirs). Each
 *	figure is described in report.h.
 */
#ifndef WM_RUNTIME_REPORT_JOB_REPORT_H
#define WM_RUNTIME_REPORT_JOB_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/checkpoint/checkpoint_cycle.h"
#include "runtime/engine/progress.h"
#include "runtime/metrics/metrics.h"
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
	uint64_t heartbeats;	      /* a source's, dropped there */
	uint64_t records_windowed, late_dropped, late_side_output;
	uint64_t other_dropped, windows_fired, windows_fired_late;
	uint64_t windows_open; /* with contents: at the end */
	uint64_t results;      /* a window's results, a join's pairs */
	/* A join's, by side (metrics.h): records taken, late, held in its
	 * buffers at the end. */
	uint64_t join_in[2], join_late[2], join_late_out[2], join_buffered[2];
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
	/* What the checkpoints came to (checkpoint_cycle.h); the alignment
	 * is a real run's alone (Flink's checkpointAlignmentTime). */
	struct wm_checkpoint_tally tally;
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
/* A map's rows (doc/semantics.md 16.6), summed over the subtasks of the
 * source it is chained into: given, kept, dropped by its where, and
 * failed by cause (enum wm_expr_status; [0] unused). */
struct wm_map_report {
	uint32_t stage;
	uint64_t in, out, filtered;
	uint64_t errors[WM_METRICS_MAP_CAUSES];
};

struct wm_job_report {
	bool sim;
	/* The job's event-time clock at processing time 0, epoch ms
	 * (runtime/source/sources.h), as its subtasks held it. */
	int64_t clock_zero_ms;
	bool stopped;	 /* by a signal: figures as of then */
	bool failed;	 /* a worker failed: figures as last published */
	int64_t end_ns;	 /* processing time when the job ended */
	int64_t wall_ns; /* real time the run took */
	uint64_t records_read;
	uint64_t bad_records_skipped; /* on_bad_record = skip */
	/* Heartbeats the sources' generators saw and dropped: no records,
	 * outside records_read and the accounting. */
	uint64_t heartbeats;
	uint64_t records_windowed;
	uint64_t late_dropped; /* numLateRecordsDropped */
	uint64_t late_side_output;
	uint64_t other_dropped; /* in no window, not late (time's ends) */
	uint64_t windows_fired;
	uint64_t windows_fired_late;
	/* Windows with contents at the end: a stop's, or a processing-time
	 * window's whose timer was pending at the end of input (Flink drops
	 * them) */
	uint64_t windows_open;
	uint64_t results_written;
	/* The joins' (their subtasks' figures are not in the windows'
	 * above): records taken by side, kept, late by side (dropped, and to
	 * the late outputs), without a timestamp, pairs written, records
	 * held in their buffers at the end. */
	uint64_t join_in[2], records_joined, join_late[2], join_late_out[2];
	uint64_t join_rejected;
	uint64_t pairs_written, join_buffered;
	bool has_joins, has_windows;
	/* The flow into the window stages: records they received, and how
	 * many they should have (each record read once per path to a window,
	 * times the parallelism of a broadcast edge on the way); and whether
	 * each window and join stage accounts for what it received. */
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
	/* The maps, in stage order; maps_account: every row given to each
	 * is kept, filtered or an error, none unaccounted. */
	uint32_t n_maps;
	struct wm_map_report *maps;
	bool maps_account;
};

/* A real run's scheduling noise as the run measured it: the most
 * processing time any subtask fell behind the records' schedule
 * (late_max_ns); 0 under --sim, whose schedule is exact. */
static inline int64_t
wm_job_report_noise_ns(const struct wm_job_report *rep)
{
	int64_t noise = 0;

	for (uint32_t i = 0; !rep->sim && i < rep->n_subtasks; i++)
		if (rep->subtasks[i].late_max_ns > noise)
			noise = rep->subtasks[i].late_max_ns;
	return noise;
}

#endif /* WM_RUNTIME_REPORT_JOB_REPORT_H */
