/*
 * window_join.h
 *	The keyed event-time window join (Flink's JoinedStreams, what
 *	a.join(b).where(k).equalTo(k).window(W).apply(f) builds): both sides'
 *	records are kept per key and window, and when a window fires every
 *	left record of it is paired with every right record of it.
 *
 * Flink builds it as a coGroup: each side is tagged, the two are unioned,
 * keyed, and given to an ordinary WindowOperator that keeps the window's
 * records in a list, with the window's assigner, the EventTimeTrigger and
 * the allowed lateness. This operator is that window operator with the
 * coGroup as its window function. Semantics are doc/semantics.md section
 * 15.2, exactly; where they are the window operator's, section 7:
 *  - a record goes into each of its windows (tumbling, sliding; sessions
 *    merge as in section 7.10) whose cleanup time maxTs + L is above the
 *    watermark, appended to its side's list of that key and window; a
 *    window whose maxTs the watermark already passed fires at once with
 *    its full contents (a late firing), else a timer at maxTs is set; a
 *    cleanup timer at maxTs + L drops the window's lists;
 *  - a record that went into no window and is late itself (ts + L <=
 *    watermark) is dropped and counted: a join has no late side output;
 *  - a firing window with contents emits join(l, r) for every left record
 *    l (outer loop) and every right record r (inner loop), each in list
 *    order, timestamped with the window's maxTs; nothing when a side is
 *    empty. A late firing emits every pair of the window again;
 *  - a record without a timestamp (WM_TS_MIN) is refused by tumbling and
 *    sliding windows (Flink's assigners throw); sessions take it.
 *
 * List order is arrival order, except that a session merge appends the
 * absorbed windows' lists to the state window's in window start order
 * (Flink appends them in the order of a hash set, which nothing may
 * depend on: section 15.2).
 *
 * The combination of the two inputs' watermarks and statuses happens
 * before this operator, as for the interval join: it is given one
 * watermark.
 *
 * State: per live (key, window) the left and the right list of (timestamp,
 * value), linked through one pool of records so that a session merge
 * joins lists without allocating; the timers (timer.h); for sessions the
 * merging window sets (merging_windows.h). Cost per record: per window a
 * state probe, a record from the pool and two timer probes; per firing a
 * step per pair. Used by one thread only; no locking.
 */
#ifndef WM_OPERATORS_WINDOW_JOIN_H
#define WM_OPERATORS_WINDOW_JOIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "operators/interval_join.h"
#include "operators/output.h"
#include "operators/window_assign.h"

struct wm_window_join_config {
	struct wm_window_assigner assigner; /* set up and validated */
	int64_t allowed_lateness;	    /* L >= 0, milliseconds */
};

/* Where the operator's output goes; embed it and recover the container
 * with wm_container_of(). Both must be set. A pair's timestamp is the
 * maxTs of the window that fired it. */
struct wm_window_join_output {
	void (*pair)(struct wm_window_join_output *out,
		     const struct wm_join_result *result);
	struct wm_output base; /* forwarded watermarks and statuses */
};

/*
 * What happened to the records of each side. Every call of
 * wm_window_join_process_element() that does not return -ENOMEM counts
 * in records_in and in exactly one of the next four:
 *
 *   records_in == records_kept + late_records_dropped
 *		   + records_ignored + records_rejected
 */
struct wm_window_join_side_counters {
	uint64_t records_in;
	uint64_t records_kept; /* in at least one window */
	/* Flink's numLateRecordsDropped: late for all its windows. */
	uint64_t late_records_dropped;
	/* In no window, yet not late: only Java's wrap-around at the ends of
	 * time does that (window.h's records_ignored). */
	uint64_t records_ignored;
	/* No timestamp (-EINVAL) or a session merge Flink refuses (-ERANGE). */
	uint64_t records_rejected;
};

struct wm_window_join_counters {
	struct wm_window_join_side_counters side[2];
	uint64_t pairs; /* results emitted */
	/* Firings of windows with contents, by their timer at maxTs and by a
	 * record within the allowed lateness; one with a side empty counts,
	 * pairing nothing. */
	uint64_t windows_fired;
	uint64_t windows_fired_late;
};

bool wm_window_join_counters_balanced(const struct wm_window_join_counters *c);

struct wm_window_join;

/* An operator for `config` (copied); NULL with errno EINVAL and *why set
 * (static string: an assigner not set up, a negative lateness), or
 * ENOMEM. */
struct wm_window_join *
wm_window_join_new(const struct wm_window_join_config *config,
		   const char **why);
void wm_window_join_free(struct wm_window_join *op);

/*
 * A record of side `side`: it goes into its windows, and the pairs of the
 * late firings it causes go to `out` before the call returns. 0; -EINVAL
 * for a record without a timestamp in tumbling or sliding windows, -ERANGE
 * for a session merge Flink refuses (window.h says when), both counted
 * rejected with nothing else changed; -ENOMEM when a table, the timers or
 * the record pool could not grow: nothing counted, kept or emitted, the
 * record in none of its windows (room for all of them is made first).
 */
int wm_window_join_process_element(struct wm_window_join *op,
				   enum wm_join_side side,
				   const struct wm_record *record,
				   struct wm_window_join_output *out);

/* The combined watermark moved to `watermark`: the due timers fire in
 * timer order (their pairs go to `out`), then the watermark goes to
 * out->base. Never allocates, never fails. */
void wm_window_join_process_watermark(struct wm_window_join *op,
				      wm_ts_t watermark,
				      struct wm_window_join_output *out);

/* Forward a status unchanged (the output deduplicates). */
void wm_window_join_process_status(struct wm_window_join *op,
				   enum wm_status status,
				   struct wm_window_join_output *out);

wm_ts_t wm_window_join_watermark(const struct wm_window_join *op);
const struct wm_window_join_counters *
wm_window_join_counters(const struct wm_window_join *op);

/* Records held in side `side`'s lists over all windows (a record once for
 * each window it is in); live (key, window) states (sessions: one per
 * in-flight session); pending timers. For metrics and tests. */
size_t wm_window_join_buffered(const struct wm_window_join *op,
			       enum wm_join_side side);
size_t wm_window_join_window_count(const struct wm_window_join *op);
size_t wm_window_join_timer_count(const struct wm_window_join *op);

/*
 * Checkpoints, as Flink's WindowOperator checkpoints its keyed state and
 * its timers and not its watermark: wm_window_join_snapshot() writes the
 * configuration, every window's two lists in order, the timers, the
 * session sets and the counters; wm_window_join_restore() reads them into
 * a new operator of the same configuration (-EINVAL otherwise, or if it
 * processed anything), 0 or the reader's error; after an error, free the
 * operator. The restored watermark is WM_TS_MIN.
 */
struct wm_snap_writer;
struct wm_snap_reader;

void wm_window_join_snapshot(const struct wm_window_join *op,
			     struct wm_snap_writer *w);
int wm_window_join_restore(struct wm_window_join *op, struct wm_snap_reader *r);

/* The watermark alone, for the beyond-Flink checkpoint_watermarks mode,
 * as window.h's: restoring it fires nothing (every timer due at it fired
 * before the snapshot). 0 or the reader's error. */
void wm_window_join_snapshot_watermark(const struct wm_window_join *op,
				       struct wm_snap_writer *w);
int wm_window_join_restore_watermark(struct wm_window_join *op,
				     struct wm_snap_reader *r);

#endif /* WM_OPERATORS_WINDOW_JOIN_H */
