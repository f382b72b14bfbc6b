/*
 * window.h
 *	The keyed event-time window operator (Flink's WindowOperator with an
 *	EventTimeTrigger, optionally purging, and an incremental aggregate of
 *	count, sum, min and max per key and window), for tumbling, sliding
 *	and session (merging) windows.
 *
 * Semantics are doc/semantics.md sections 7.3-7.9, exactly:
 *  - an element goes into each of its windows that is not late
 *    (cleanupTime(w) = maxTs(w) + L, or WM_TS_MAX on overflow, > watermark);
 *    a window whose maxTs the watermark already passed fires at once with
 *    its full contents (a "late firing"); otherwise a timer at maxTs is set;
 *    a cleanup timer at cleanupTime(w) is set unless it is WM_TS_MAX;
 *  - an element late for all its windows, and late itself (ts + L <=
 *    watermark), goes to the late side output if one is configured, or is
 *    counted as dropped; an element late for only some of its sliding
 *    windows is silently left out of those;
 *  - a watermark first fires every due timer in (timestamp, key, window
 *    start) order, each emitting its window's result if it has contents and
 *    dropping all of its state at cleanup time, and only then is forwarded.
 *
 * Processing-time windows (the config's processing_time: Flink's
 * TumblingProcessingTimeWindows and SlidingProcessingTimeWindows with
 * their ProcessingTimeTrigger; tumbling and sliding only, no allowed
 * lateness, no side output): a record goes into the windows of the
 * processing time it arrives at, the last wm_window_advance_time()
 * gave, whatever its timestamp, and is never late; a window's one timer
 * is at its maxTs on the processing-time clock, where it fires and
 * cleans its state (cleanupTime(w) = maxTs), once processing time is
 * past it (FLINK-9857: a timer at t fires from t + 1 ms on, since
 * processing time t does not say that no record of t will come).
 * Watermarks pass through unchanged and fire nothing.
 *
 * Results carry full accumulated contents (refinements, not deltas) unless
 * the trigger purges. Output happens synchronously, in order, through
 * struct wm_window_output. The operator keeps its own watermark (WM_TS_MIN
 * at start) and never invents one.
 *
 * Session windows follow section 7.10 (Flink's merging branch): a record's
 * window [ts, ts + gap) merges with every intersecting (or touching)
 * session of its key; a merge registers the trigger timer of the result if
 * its maxTs is still ahead of the watermark, deletes the absorbed windows'
 * trigger and cleanup timers and merges their aggregates; then the element
 * is dropped if the resulting session is late, and otherwise added and
 * triggered as above. Because merging can move a session's end past the
 * watermark, an element older than the watermark may still be accepted.
 * Results report the merged window.
 *
 * State: one hash table entry per live (key, window), keyed by (key, window
 * start); for sessions, by (key, state window start), the state window
 * being one original window of the session (merging_windows.h). A timer's
 * namespace is the window start. Plugin aggregates (a user's, in C) keep
 * their accumulators in a second table with the same keys
 * (window_plugins.h), made, fed, merged, read and dropped with the
 * entries; checkpoints hold them as their plugin's bytes.
 *
 * Cost per record: per window, one state probe (none when the record's key
 * and window are the last record's), plus two timer-set probes when the
 * (key, window) is new; sessions: one probe of the key's session set, a
 * state probe, and two timer probes, plus timer deletions and state folds
 * when sessions merge. No allocation except amortised growth of the
 * tables. Records come one at a time (wm_window_process_element()) or as
 * a run, an array and a count (wm_window_process_run()), with the same
 * effect. Used by one thread only; no locking.
 */
#ifndef WM_OPERATORS_WINDOW_H
#define WM_OPERATORS_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "operators/output.h"
#include "operators/window_assign.h"
#include "operators/window_plugins.h"

struct wm_window_config {
	struct wm_window_assigner assigner; /* set up and validated */
	int64_t allowed_lateness;	    /* L >= 0, milliseconds */
	/* PurgingTrigger.of(EventTimeTrigger): every FIRE is FIRE_AND_PURGE,
	 * so each result holds only what arrived since the previous one. */
	bool purging;
	/* A late side output is configured (sideOutputLateData): records late
	 * for all their windows go to wm_window_output.late instead of being
	 * counted as dropped. */
	bool late_side_output;
	/* Windows on processing time (see the top): tumbling or sliding, no
	 * lateness, no side output. */
	bool processing_time;
	/* A user's aggregate functions beside count, sum, min and max
	 * (wmrun/plugin.h; operators/window_plugins.h): each (key, window)
	 * with contents has an accumulator of each, and every result
	 * carries their results. */
	unsigned n_plugin_aggregates;
	struct wm_window_plugin_aggregate
		plugin_aggregates[WM_WINDOW_PLUGIN_AGGREGATES];
};

/* One firing of one window. */
struct wm_window_result {
	int64_t key;
	struct wm_time_window window;
	wm_ts_t timestamp; /* output timestamp: the window's maxTs */
	int64_t count;	   /* > 0: an empty window never fires */
	int64_t sum;	   /* wraps like a Java long */
	int64_t min;
	int64_t max;
	/* Fired by an element that arrived after the watermark passed the
	 * window's maxTs (allowed lateness); false for the timer firing. */
	bool late_firing;
	/* The plugin aggregates' results, n_plugin_aggregates of them in
	 * the configuration's order, valid during the output's call; NULL
	 * without plugin aggregates. */
	const union wmrun_value *plugin_results;
};

/* Average as Flink's AggregateFunction would give it: sum / count. */
static inline double
wm_window_result_avg(const struct wm_window_result *r)
{
	return (double)r->sum / (double)r->count;
}

/*
 * Where the operator's output goes. Embed it and recover the container with
 * wm_container_of(). `result` and `base` callbacks must be set; `late` must
 * be set if the configuration has a late side output. A result is emitted
 * before the watermark that caused it; a late record is passed unchanged.
 */
struct wm_window_output {
	void (*result)(struct wm_window_output *out,
		       const struct wm_window_result *result);
	void (*late)(struct wm_window_output *out,
		     const struct wm_record *record);
	struct wm_output base; /* forwarded watermarks and statuses */
};

/*
 * What happened to the records, for metrics and for checking that none is
 * lost. Every call of wm_window_process_element() that does not return
 * -ENOMEM counts in records_in and in exactly one of the next five:
 *
 *   records_in == records_accepted + late_records_dropped
 *		   + late_records_side_output + records_ignored
 *		   + records_rejected
 *
 * (wm_window_counters_balanced() checks it.)
 */
struct wm_window_counters {
	uint64_t records_in;
	/* Added to at least one window (perhaps left out of others). */
	uint64_t records_accepted;
	/* Flink's numLateRecordsDropped: late for all windows, no side
	 * output configured. */
	uint64_t late_records_dropped;
	uint64_t late_records_side_output;
	/*
	 * In no window, yet not late either. Only Java wrap-around at the
	 * ends of time does that (a window end wrapping past WM_TS_MAX, or ts
	 * - size wrapping below WM_TS_MIN): Flink loses such a record without
	 * counting it; we count it here.
	 */
	uint64_t records_ignored;
	/*
	 * Flink fails the job on them; we return an error: no timestamp
	 * (WM_TS_MIN; tumbling and sliding windows only, -EINVAL), or a
	 * session merge Flink refuses (-ERANGE, see
	 * wm_window_process_element()).
	 */
	uint64_t records_rejected;
	/* Results emitted by timers (on time) and by late elements. */
	uint64_t windows_fired;
	uint64_t windows_fired_late;
};

static inline bool
wm_window_counters_balanced(const struct wm_window_counters *c)
{
	return c->records_in == c->records_accepted + c->late_records_dropped +
					c->late_records_side_output +
					c->records_ignored +
					c->records_rejected;
}

struct wm_window;

/*
 * A window operator for `config` (copied). NULL with errno EINVAL and *why
 * set to a message (static string) if the configuration is invalid, or
 * with errno ENOMEM.
 */
struct wm_window *wm_window_new(const struct wm_window_config *config,
				const char **why);
void wm_window_free(struct wm_window *op);

/*
 * Process one record (key, ts, value). Results of late firings and a late
 * side-output record are emitted through `out` before this returns.
 * Returns 0; -EINVAL if the record has no timestamp (counted as rejected;
 * session windows accept WM_TS_MIN as a timestamp, as Flink's session
 * assigner does); -ERANGE (session windows, counted as rejected, nothing
 * else changed) if merging the record's session would produce a window
 * whose maxTs + allowed lateness, computed with Java's wrap-around, is <=
 * the watermark: Flink throws UnsupportedOperationException ("the end
 * timestamp of an event-time window cannot become earlier than the current
 * watermark by merging"). Merged sessions cover live ones, so only an
 * overflowing maxTs + L (a huge allowed lateness) can cause it. -ENOMEM if
 * a table could not grow: nothing was counted or emitted, and the record
 * went into none of its windows (room for all of them is reserved before
 * the first is touched). The operator stays consistent; the caller stops
 * the job on -ENOMEM, as Flink fails it.
 */
int wm_window_process_element(struct wm_window *op,
			      const struct wm_record *record,
			      struct wm_window_output *out);

/*
 * Process the run records[0..n) (Flink: processElement() on each, in
 * order): the effect is exactly that of wm_window_process_element() on each
 * record in turn, the same results, side output, state, timers and
 * counters, in the same order, the records failing with -EINVAL or -ERANGE
 * counted as rejected and the run going on after them. What a run pays
 * once: the reading of the watermark (records do not move it) and the
 * choice of the assigner's branch; a tumbling window is reused from record
 * to record while timestamps stay inside it, and a record of the same key
 * and window as the last one finds its state without hashing (both also
 * hold between single calls). A tumbling run counts the records that need
 * their aggregate alone once for all of them; the counters are up to date
 * whenever the operator emits. A record whose (key, window) state exists
 * needs no memory, in a run or alone.
 *
 * Returns the number of records taken: n, or i < n if records[i] found no
 * memory (-ENOMEM of wm_window_process_element(): records[0..i) processed,
 * records[i] counted nowhere, in none of its windows, nothing emitted for
 * it; records after it not looked at). `late` (room for n) receives the
 * indexes, ascending, of the records taken that the operator judged late
 * (isElementLate(): dropped or sent to the side output), *n_late how many,
 * so that a caller can count per record what the counters count in all.
 */
size_t wm_window_process_run(struct wm_window *op,
			     const struct wm_record *records, size_t n,
			     struct wm_window_output *out, size_t *late,
			     size_t *n_late);

/*
 * Advance event time to `watermark`: fire every timer with timestamp <=
 * watermark (results go to `out` in timer order), then forward the
 * watermark to out->base. Never allocates, never fails. WM_TS_MAX fires
 * everything.
 */
void wm_window_process_watermark(struct wm_window *op, wm_ts_t watermark,
				 struct wm_window_output *out);

/*
 * Processing time is `now_ms` (ms, never lower than before): a
 * processing-time window fires every timer before it (timestamp <
 * now_ms), in timer order, and takes the records that follow into the
 * windows of now_ms. Nothing for event-time windows.
 */
void wm_window_advance_time(struct wm_window *op, int64_t now_ms,
			    struct wm_window_output *out);

/* The processing time (ms) from which wm_window_advance_time() fires the
 * next timer of a processing-time window: its timestamp + 1. INT64_MAX:
 * none, or event-time windows. */
int64_t wm_window_next_time(const struct wm_window *op);

/* Forward a watermark status unchanged (the output deduplicates). */
void wm_window_process_status(struct wm_window *op, enum wm_status status,
			      struct wm_window_output *out);

/* The operator's event-time watermark (WM_TS_MIN before the first), also
 * for processing-time windows, which pass it on. */
wm_ts_t wm_window_watermark(const struct wm_window *op);

const struct wm_window_counters *wm_window_counters(const struct wm_window *op);

/* Live (key, window) states and pending timers, for tests and metrics. */
size_t wm_window_state_count(const struct wm_window *op);
size_t wm_window_timer_count(const struct wm_window *op);
/* In-flight session windows over all keys; 0 for other assigners. */
size_t wm_window_session_count(const struct wm_window *op);

/*
 * Checkpoints (doc/semantics.md, "What a checkpoint holds"). As Flink's
 * WindowOperator checkpoints its keyed state and its timers, and not its
 * watermark:
 *
 * wm_window_snapshot() writes a section holding the configuration (so that
 * a restore can refuse another one), every live (key, window) accumulator,
 * the session windows of every key, every pending timer (trigger and
 * cleanup) and the counters; never the watermark. Errors are the
 * writer's. Called between two calls of the operator, never during one.
 *
 * wm_window_restore() reads it into `op`, which must be new (nothing
 * processed: -EINVAL otherwise), made with the same configuration
 * (-EINVAL otherwise). Returns 0 or the reader's error (-EBADMSG for a
 * malformed section, -ENOTSUP for another version, -ENOMEM); on error the
 * operator holds part of the snapshot and must be freed. The restored
 * operator's watermark is WM_TS_MIN, as after a restore in Flink: the
 * timers fire again only when watermarks pass them anew, and a record
 * that was late before the snapshot may be accepted after the restore,
 * for any window that still has state or none at all.
 */
struct wm_snap_writer;
struct wm_snap_reader;

void wm_window_snapshot(const struct wm_window *op, struct wm_snap_writer *w);
int wm_window_restore(struct wm_window *op, struct wm_snap_reader *r);

/*
 * The watermark alone, for the beyond-Flink checkpoint_watermarks mode:
 * its own section, written after wm_window_snapshot()'s or anywhere the
 * caller likes. wm_window_restore_watermark() sets the watermark of a
 * restored operator (fires nothing: every timer due at that watermark
 * had fired before the snapshot). 0 or the reader's error.
 */
void wm_window_snapshot_watermark(const struct wm_window *op,
				  struct wm_snap_writer *w);
int wm_window_restore_watermark(struct wm_window *op, struct wm_snap_reader *r);

#endif /* WM_OPERATORS_WINDOW_H */
