/*
 * recorder.h
 *	A job's snapshots (runtime/observe/snapshot.h) kept compactly over
 *	its whole run, for the report's plots: per subtask its output
 *	watermark and newest event time, when it was idle and when stalled;
 *	per source partition its records and idleness; late records by
 *	partition; and the fire delays of the last snapshot.
 *
 * Memory is bounded: time is cut into buckets of `step` ns of processing
 * time from the first snapshot, at most `max_buckets` of them. A snapshot
 * goes into the bucket of its processing time; when it falls past the
 * last, adjacent buckets merge two by two and the step doubles, as often
 * as needed. A merged bucket keeps what a plot must not lose: the lowest,
 * highest and last value of every series, the earliest start of an idle
 * or stalled state seen in it, the last counts. So a series never holds
 * more than max_buckets points, whatever the job's length, and its peaks
 * survive. A bucket no snapshot fell in is empty (a driver skips
 * samples that could see nothing new: sim.h rule 6).
 *
 * Fed by one sampler (the --sim driver, or a real run's observer) and
 * read by the drawer after the job; no locking, no I/O, no clock.
 */
#ifndef WM_RUNTIME_CHART_RECORDER_H
#define WM_RUNTIME_CHART_RECORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/conf/topology.h"
#include "runtime/metrics/metrics.h"
#include "runtime/observe/snapshot.h"
#include "runtime/plan/plan.h"

/* Values are doubles (event times in ms, exact below 2^53); NAN: none
 * (a watermark not yet set, no record yet). Times "from": processing
 * time in ns, INT64_MAX: not in that state within the bucket. */
struct wm_rec_subtask {
	double wm_lo, wm_hi, wm_last;	 /* output watermark, ms */
	double new_lo, new_hi, new_last; /* newest event time, ms */
	int64_t idle_from;		 /* output IDLE since */
	int64_t stall_from;		 /* a stall (held > threshold) since */
};

struct wm_rec_partition {
	uint64_t records; /* emitted so far, at the bucket's last sample */
	int64_t idle_from;
};

struct wm_recorder {
	int64_t step_ns;	    /* width of a bucket now */
	int64_t origin_ns;	    /* processing time bucket 0 starts at */
	int64_t stall_threshold_ns; /* [job] stall_threshold */
	uint32_t max_buckets;	    /* even, >= 2 */
	uint32_t n_buckets;	    /* used: the last holds the newest sample */
	uint64_t samples;	    /* snapshots fed */
	uint32_t n_subtasks;	    /* the plan's */
	uint32_t n_partitions;	    /* of every subtask, in plan order */
	uint32_t *first_partition;  /* by subtask: its first in the arrays */
	uint32_t *partition_id;	    /* by partition, as the snapshots say */
	/* By bucket: how many snapshots fell in it (0: empty) and the
	 * processing time of its last one. */
	uint32_t *count;
	int64_t *at_ns;
	/* [bucket * n_subtasks + subtask], [bucket * n_partitions + p],
	 * [bucket * WM_METRICS_LATE_PARTITIONS + partition id] */
	struct wm_rec_subtask *subtasks;
	struct wm_rec_partition *partitions;
	uint64_t *late; /* late records so far, over every window subtask */
	/* The newest snapshot's fire delays (histogram.h): they only grow,
	 * so the last one fed is the job's. */
	uint64_t fire_delays[WM_HISTOGRAM_BUCKETS];
};

/* Buckets of a report's recorder: enough for a smooth curve a page wide,
 * and a bound on its memory however long the job. */
#define WM_RECORDER_BUCKETS 2048

/*
 * A report's first grid step, ns of processing time: `every_ns` if > 0,
 * else about a thousandth of the job's length when [job] says it,
 * rounded to a human step (1 s, 5 s, 1 min ...); else 1 s, the recorder
 * widening it as the job runs. The same for --sim and a real run, so
 * that one job's pages look alike.
 */
int64_t wm_recorder_first_step_ns(const struct wm_topology *topo,
				  int64_t every_ns);

/*
 * A recorder for the subtasks of `plan`, buckets `step_ns` wide at first
 * (> 0), at most `max_buckets` (rounded up to even, at least 2), stalls
 * being watermarks held `stall_threshold_ns` or longer (progress.h).
 * NULL, errno ENOMEM.
 */
struct wm_recorder *wm_recorder_new(const struct wm_plan *plan, int64_t step_ns,
				    uint32_t max_buckets,
				    int64_t stall_threshold_ns);
void wm_recorder_free(struct wm_recorder *r);

/* Keep `snap` (of the plan's subtasks; processing times not decreasing
 * from one call to the next). */
void wm_recorder_feed(struct wm_recorder *r, const struct wm_snapshot *snap);

/* The first processing time a sample should be taken at after `ns`: the
 * next bucket's start (a finer sample would merge into this bucket). */
int64_t wm_recorder_next_due(const struct wm_recorder *r, int64_t ns);

/*
 * A recorder as bytes, to hand it to another process (a real run's
 * observer to its supervisor, observer.h): the size a recorder of `plan`
 * with `max_buckets` needs packed (the same rounding as
 * wm_recorder_new()); `r` packed into the `len` bytes at `buf` (0, or
 * -ENOSPC if they are too few); and a new recorder from such bytes,
 * which are checked first as another process's (header, sizes, the
 * plan's counts): NULL, errno EINVAL if they do not describe a recorder
 * of `plan` with `max_buckets`, ENOMEM.
 */
size_t wm_recorder_pack_size(const struct wm_plan *plan, uint32_t max_buckets);
int wm_recorder_pack(const struct wm_recorder *r, void *buf, size_t len);
struct wm_recorder *wm_recorder_unpack(const struct wm_plan *plan,
				       uint32_t max_buckets, const void *buf,
				       size_t len);

#endif /* WM_RUNTIME_CHART_RECORDER_H */
