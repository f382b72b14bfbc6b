/*
 * interval_join.h
 *	The keyed event-time interval join (Flink's IntervalJoinOperator,
 *	what keyBy(..).intervalJoin(..).between(lower, upper) builds): a
 *	two-input operator that pairs each left record with every right
 *	record of its key whose timestamp lies within [left + lower, left +
 *	upper], as the records meet.
 *
 * Semantics are doc/semantics.md section 15.1, exactly:
 *  - bounds: lower <= upper (as given); an exclusive bound moves by one
 *    millisecond inwards (lower + 1, upper - 1), after which the interval
 *    may be empty and nothing ever pairs;
 *  - a record without a timestamp (WM_TS_MIN) is refused (Flink throws:
 *    the job fails);
 *  - a record is late when the watermark is not MIN and its timestamp is
 *    below it (ts < watermark; ts == watermark is on time): it goes to its
 *    side's late output if one is configured, else it is dropped and
 *    counted; a late record joins nothing and is kept nowhere;
 *  - an on-time record is kept in its side's buffer of its key, then
 *    paired with every record of the other side's buffer of its key in the
 *    interval (for a right record r, the left records l with r - upper <=
 *    l <= r - lower), computed with Java's wrapping long arithmetic. Each
 *    pair is one result, timestamped max(left ts, right ts), emitted
 *    before the call returns;
 *  - a cleanup timer per (key, side, timestamp): a left record at t is
 *    kept until the watermark reaches t + upper (t when upper <= 0), a
 *    right one until t - lower (t when lower >= 0); the timer then drops
 *    every record of that side, key and timestamp. A watermark first
 *    fires its due timers, then goes on to out->base. A timer set at or
 *    below the current watermark fires with the next watermark.
 *
 * The combination of the two inputs' watermarks and statuses (Flink's
 * processWatermark1/2, multi_input.h) happens before this operator: it is
 * given the combined watermark.
 *
 * Pairs from one record come in the other side's timestamp order, records
 * of one timestamp in arrival order. Flink's order there is its state's
 * map order (a heap backend's hash order); nothing else may depend on it,
 * and the cross-checks compare results sorted.
 *
 * State: per key, each side's records (timestamp and value, 16 bytes) in
 * a buffer sorted by timestamp, records of one timestamp in arrival
 * order; a cleanup timer per bucket in a binary heap. Cost per record:
 * one probe of the key table, an insertion into a sorted buffer (at its
 * end for records in timestamp order), a binary search of the other
 * side's buffer and a step per pair, a heap push and pop per bucket.
 * Used by one thread only; no locking.
 */
#ifndef WM_OPERATORS_INTERVAL_JOIN_H
#define WM_OPERATORS_INTERVAL_JOIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "operators/output.h"

enum wm_join_side {
	WM_JOIN_LEFT = 0,  /* Flink's first input (processElement1) */
	WM_JOIN_RIGHT = 1, /* the second */
};

struct wm_interval_join_config {
	int64_t lower, upper; /* ms, lower <= upper, as between() takes them */
	bool lower_exclusive; /* lowerBoundExclusive() */
	bool upper_exclusive; /* upperBoundExclusive() */
	/* sideOutputLeftLateData() / sideOutputRightLateData(): late
	 * records of that side go to wm_interval_join_output.late. */
	bool late_output[2];
};

/* One pair. */
struct wm_join_result {
	int64_t key;
	wm_ts_t left_ts, right_ts;
	int64_t left_value, right_value;
	wm_ts_t timestamp; /* max(left_ts, right_ts) */
};

/* Where the operator's output goes; embed it and recover the container
 * with wm_container_of(). `pair` and `base` must be set, `late` when a
 * side has a late output. */
struct wm_interval_join_output {
	void (*pair)(struct wm_interval_join_output *out,
		     const struct wm_join_result *result);
	void (*late)(struct wm_interval_join_output *out,
		     enum wm_join_side side, const struct wm_record *record);
	struct wm_output base; /* forwarded watermarks and statuses */
};

/*
 * What happened to the records of each side. Every call of
 * wm_interval_join_process_element() that does not return -ENOMEM counts
 * in records_in and in exactly one of the next four:
 *
 *   records_in == records_kept + late_records_dropped
 *		   + late_records_side_output + records_rejected
 */
struct wm_interval_join_side_counters {
	uint64_t records_in;
	uint64_t records_kept; /* buffered (and perhaps paired) */
	uint64_t late_records_dropped;
	uint64_t late_records_side_output;
	uint64_t records_rejected; /* no timestamp */
	uint64_t records_cleaned;  /* dropped from the buffer by a timer */
};

struct wm_interval_join_counters {
	struct wm_interval_join_side_counters side[2];
	uint64_t pairs; /* results emitted */
};

bool
wm_interval_join_counters_balanced(const struct wm_interval_join_counters *c);

struct wm_interval_join;

/* An operator for `config` (copied); NULL with errno EINVAL and *why set
 * (static string: lower > upper), or ENOMEM. */
struct wm_interval_join *
wm_interval_join_new(const struct wm_interval_join_config *config,
		     const char **why);
void wm_interval_join_free(struct wm_interval_join *op);

/*
 * A record of side `side`: its pairs and, when late with a late output,
 * the record itself go to `out` before the call returns. 0; -EINVAL for a
 * record without a timestamp (counted rejected, nothing else changed);
 * -ENOMEM when a buffer, the key table or the timers could not grow:
 * nothing counted, kept or emitted, the operator as before.
 */
int wm_interval_join_process_element(struct wm_interval_join *op,
				     enum wm_join_side side,
				     const struct wm_record *record,
				     struct wm_interval_join_output *out);

/* The combined watermark moved to `watermark`: the due cleanup timers
 * fire, then the watermark goes to out->base. Never fails. */
void wm_interval_join_process_watermark(struct wm_interval_join *op,
					wm_ts_t watermark,
					struct wm_interval_join_output *out);

/* Forward a status unchanged (the output deduplicates). */
void wm_interval_join_process_status(struct wm_interval_join *op,
				     enum wm_status status,
				     struct wm_interval_join_output *out);

wm_ts_t wm_interval_join_watermark(const struct wm_interval_join *op);
const struct wm_interval_join_counters *
wm_interval_join_counters(const struct wm_interval_join *op);

/* Records held in side `side`'s buffers, over all keys; keys with any;
 * pending cleanup timers. For metrics, the memory estimate and tests. */
size_t wm_interval_join_buffered(const struct wm_interval_join *op,
				 enum wm_join_side side);
size_t wm_interval_join_key_count(const struct wm_interval_join *op);
size_t wm_interval_join_timer_count(const struct wm_interval_join *op);

/* Bytes of state per buffered record, as the memory estimate counts it
 * (runtime/plan/footprint.c): the record in its buffer, a buffer's
 * growth room and its share of a timer. */
#define WM_INTERVAL_JOIN_RECORD_BYTES 64

/*
 * Checkpoints, as Flink's operator checkpoints its keyed buffers and its
 * timers and not its watermark: wm_interval_join_snapshot() writes the
 * configuration, every buffered record and the counters (the timers are
 * those of the buffers' buckets, pushed again by the restore);
 * wm_interval_join_restore() reads them into a new operator of the same
 * configuration (-EINVAL otherwise, or if it processed anything), 0 or
 * the reader's error; after an error, free the operator. The restored
 * watermark is WM_TS_MIN.
 */
struct wm_snap_writer;
struct wm_snap_reader;

void wm_interval_join_snapshot(const struct wm_interval_join *op,
			       struct wm_snap_writer *w);
int wm_interval_join_restore(struct wm_interval_join *op,
			     struct wm_snap_reader *r);

/* The watermark alone, for the beyond-Flink checkpoint_watermarks mode
 * (as window.h's): restoring it fires nothing, every timer due at it
 * having fired before the snapshot. 0 or the reader's error. */
void wm_interval_join_snapshot_watermark(const struct wm_interval_join *op,
					 struct wm_snap_writer *w);
int wm_interval_join_restore_watermark(struct wm_interval_join *op,
				       struct wm_snap_reader *r);

#endif /* WM_OPERATORS_INTERVAL_JOIN_H */
