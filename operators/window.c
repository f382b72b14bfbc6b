/*
 * window.c
 *	The event-time window operator: processElement, onEventTime and
 *	processWatermark of Flink's WindowOperator, with EventTimeTrigger
 *	(optionally purging) and a count/sum/min/max aggregate: the
 *	non-merging branch (tumbling, sliding) and the merging branch
 *	(sessions).
 *
 * State table (lib/hash_table.h): 64-byte entries (one cache line
 * each) keyed by (key, window start), load at most 3/4. An entry exists
 * exactly while its window has contents (count > 0; a count of 0 marks an
 * empty slot): Flink's "state.get() != null". Purging and cleanup remove
 * the entry, and the table's backward-shift removal keeps a long-running
 * operator's probes as short as a fresh one's.
 *
 * Timers: each (key, window) has at most two, both in namespace = window
 * start: the trigger timer at maxTs and the cleanup timer at maxTs + L (the
 * same timer when L = 0). Timers are not removed when a purge empties a
 * window, exactly as in Flink; they fire, find nothing, and emit nothing.
 *
 * Timer registration. Flink registers both timers on every element, and
 * the timer set drops the duplicates. We skip the two probes when the
 * element's (key, window) entry already exists, because then both timers
 * are known to be present or no longer needed: the entry's creation
 * registered the cleanup timer (unless it saturated at WM_TS_MAX) and, if
 * maxTs was still ahead, the trigger timer. A cleanup timer leaves only
 * together with the entry; a trigger timer leaves when it fires (the
 * watermark has passed maxTs, so the element fires the window instead of
 * registering) or with the entry, whose cleanup deletes it. This needs
 * watermarks that never go back: after a lower watermark (which Flink
 * accepts; the valve never sends one) the operator registers on every
 * element, exactly like Flink.
 * The skip is not valid for session windows, whose state entry is keyed by
 * the state window while the timers live in the namespace of the (merged)
 * window, which changes with every merge: an existing entry says nothing
 * about the current window's timers. The merging branch registers on every
 * element, as Flink does; the timer set drops the duplicates.
 *
 * Sessions (the merging branch, doc/semantics.md section 7.10). The per-key
 * windows and their state windows live in operators/merging_windows.c. A
 * record's window [ts, ts + gap) is added to its key's set; each merge
 * calls back here (session_merge: EventTimeTrigger.onMerge, clearing the
 * absorbed windows' trigger and cleanup timers, merging their states into
 * the state window), then the element goes into the state window of the
 * window it ended up in, unless that window is late. A timer's namespace
 * is a window start; the window is found again in the key's set by its
 * start, which is unique there (windows of a key that share a start
 * intersect, so they are merged), and a timer whose window has left the set
 * does nothing, as in Flink. Timers are deleted whenever their window
 * leaves the set, so a later window with the same start never meets a
 * stale timer.
 *
 * The fast path reserves table and timer room before it changes a window,
 * so a failed growth leaves every window either fully updated or untouched.
 *
 * Processing time. A processing-time window is this machinery on another
 * clock: a record is judged as a record whose timestamp is the processing
 * time it arrives at (each run copied into `arrivals` with that
 * timestamp, its own left behind), and the timer service's watermark is
 * the processing time less 1 ms, so that a timer fires once processing
 * time is past it. A record's windows then all end after the timers'
 * watermark: never late, never a late firing, and with no lateness the
 * one timer at maxTs both fires and cleans. The event-time watermark is
 * kept apart (event_watermark), passed on, and fires nothing.
 *
 * Runs. wm_window_process_run() is processElement() on each record in
 * turn; what it pays once is what no record can change: the watermark
 * (only process_watermark() moves it) and the assigner's branch. Two
 * shortcuts serve runs and single records alike, and neither can change a
 * result, because each is checked before it is used:
 *  - a tumbling window is kept with its maxTs and cleanup time and reused
 *    for every later timestamp inside it (span_set()). That is the window
 *    wm_window_assign() gives only where the assigner's arithmetic does
 *    not wrap: with the window and the offset within +-2^62, ts - offset
 *    and the start are exact for every ts inside. Windows beyond that are
 *    never reused: records at the ends of time are assigned afresh,
 *    wrapping as Flink's do;
 *  - the slot where the last lookup of a key found or put its window's
 *    entry is kept (hint_holds()): a record of the same key looks there
 *    first, and takes the entry only if that slot still holds its key and
 *    window. A run of one key in one window probes and hashes once.
 * A tumbling run goes further (tumbling_run()): a record in the kept
 * window, on time, whose entry exists, needs the aggregate alone, and
 * takes the short way, its counting done once for a stretch of such
 * records and the entry of the key before it taken without a probe;
 * every other record goes the whole way, the counters brought up to date
 * first. A window with plugin aggregates never takes the short way: each
 * record goes to the plugin's add(), found by the entry's hash in the
 * accumulators' table (window_plugins.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "lib/hash.h"
#include "operators/merging_windows.h"
#include "lib/snap.h"
#include "operators/timer.h"
#include "operators/window.h"

struct window_state {
	uint64_t hash; /* window_hash(key, start), for moves */
	int64_t key;
	wm_ts_t start; /* sessions: the state window's start */
	wm_ts_t end;   /* sessions: unused */
	int64_t count; /* > 0 in every occupied slot; 0 marks an empty one */
	int64_t sum;   /* Java-wrapping */
	int64_t min;
	int64_t max;
};

_Static_assert(sizeof(struct window_state) == 64,
	       "a window state entry fills one cache line");

struct window_key {
	int64_t key;
	wm_ts_t start;
};

#define WM_HT_PREFIX state_table
#define WM_HT_ENTRY struct window_state
#define WM_HT_KEY struct window_key
/* The key and the start are compared alone: comparing the stored hash
 * first would add a load and a test to a probe that hits, the common one,
 * and the key rejects as many slots. */
#define WM_HT_EMPTY(e) ((e)->count == 0)
#define WM_HT_HASH(tb, e) ((e)->hash)
#define WM_HT_MATCH(tb, e, k, hash_)                                           \
	((void)(hash_), (e)->key == (k).key && (e)->start == (k).start)
#define WM_HT_MIN_SLOTS 256
#define WM_HT_FILL(slots) ((slots) / 4 * 3)
#define WM_HT_ALIGN sizeof(struct window_state)
#include "lib/hash_table.h"

/* A window with the times a record in it is judged by. */
struct window_span {
	struct wm_time_window w;
	wm_ts_t max_ts;
	wm_ts_t cleanup;    /* cleanupTime(w) */
	uint64_t start_mix; /* window_start_mix(w.start) */
};

/* What the element functions return for a record taken and judged late,
 * besides 0 and the public errors. */
#define RECORD_LATE 1

/* Timestamps and window bounds within +-2^62, and an offset within that,
 * keep every step of the tumbling assigner's arithmetic from wrapping. */
#define SPAN_BOUND ((int64_t)1 << 62)

struct wm_window {
	struct wm_window_config conf;
	struct wm_timer_service *timers; /* also holds the watermark */
	/* Session windows: the merging window sets; NULL otherwise. */
	struct wm_merging_windows *sessions;
	struct state_table states;
	/* A watermark lower than the current one was processed: from then
	 * on, register timers on every element, as Flink does. */
	bool watermark_regressed;
	struct wm_window_counters counters;
	/* Tumbling: the window of the last record that computed one, reused
	 * for every timestamp in [span_lo, span_hi] (empty when the window
	 * may not be reused); see "Runs" at the top. */
	struct window_span span;
	wm_ts_t span_lo, span_hi;
	/* The key of the last record whose state was looked up, and the slot
	 * of its window's entry then: a guess, checked before it is used (the
	 * slot may have emptied or changed hands since). */
	int64_t hint_key;
	size_t hint;
	/* Processing-time windows (see the top): the processing time records
	 * arrive at now (ms), the event-time watermark passed on, and room
	 * for ARRIVALS records stamped with now_ms. */
	int64_t now_ms;
	wm_ts_t event_watermark;
	struct wm_record *arrivals;
	/* The plugin aggregates' accumulators (NULL: none), in step with
	 * the state entries, and their results for the result being
	 * emitted. */
	struct wm_window_plugins *plugins;
	union wmrun_value plugin_results[WM_WINDOW_PLUGIN_AGGREGATES];
};

/* Records a processing-time run is stamped with its arrival in, at most. */
#define ARRIVALS 256

/*
 * The hash of (key, window start): the start through the finaliser, once
 * a window (a tumbling window's once for all the records in it, see
 * "Runs"), exclusive-ored with the key, then Fibonacci hashing with both
 * halves folded (wm_hash_fibonacci_low()): seven instructions a record,
 * where the finaliser over both was eleven and more. For the keys of one
 * window the finalised start is a constant, and the folds keep small,
 * consecutive, strided or high-bit-only keys as spread as the finaliser
 * does (check_hash_table): issue 26's job, 1,024 keys in 2,048 slots,
 * looks at 1.33 slots a probe (doc/performance.md section 9.26). Windows
 * of the same key get unrelated constants.
 *
 * Hostile keys: no unseeded hash protects a table against keys chosen to
 * collide, and this one is no weaker than the finaliser it replaced
 * (wm_hash_mix64() over the whole pair): both are public bijections, so
 * whoever can choose keys can invert either to fill one run of slots.
 * What input does by accident, keys alike in their low bits or apart
 * only in their high ones, both spread. A job fed by an adversary would
 * need a secret seed (a random odd multiplier, as in the universal
 * multiply-shift family); nothing in the job gives one today, and a seed
 * from the clock would make --sim's checkpoints differ from run to run.
 */
static inline uint64_t
window_start_mix(wm_ts_t start)
{
	return wm_hash_mix64((uint64_t)start);
}

static inline uint64_t
window_hash_mixed(int64_t key, uint64_t start_mix)
{
	return wm_hash_fibonacci_low((uint64_t)key ^ start_mix);
}

static inline uint64_t
window_hash(int64_t key, wm_ts_t start)
{
	return window_hash_mixed(key, window_start_mix(start));
}

/*
 * Find (key, start). Returns true with *idx at its entry, or false with
 * *idx at the empty slot where it would go.
 */
static inline bool
state_find(const struct wm_window *op, int64_t key, wm_ts_t start,
	   uint64_t hash, size_t *idx)
{
	struct window_key k = {.key = key, .start = start};

	return state_table_lookup(&op->states, k, hash, idx);
}

/*
 * Whether (key, start)'s entry is in the slot where the last lookup, of
 * the same key, found or put its window's entry (op->hint). Removals shift
 * entries and growth moves them all, so the slot is checked: the entry
 * there, if any, is (key, start)'s exactly when its key and start are,
 * entries being unique.
 */
static inline bool
hint_holds(const struct wm_window *op, int64_t key, wm_ts_t start)
{
	const struct window_state *e;

	if (key != op->hint_key || op->hint > op->states.mask)
		return false;
	e = &op->states.slots[op->hint];
	return e->count != 0 && e->key == key && e->start == start;
}

/* Create an empty state entry at free slot idx (room reserved). */
static inline struct window_state *
state_insert(struct wm_window *op, size_t idx, uint64_t hash, int64_t key,
	     wm_ts_t start, wm_ts_t end)
{
	struct window_state *e = state_table_insert_at(&op->states, idx);

	e->hash = hash;
	e->key = key;
	e->start = start;
	e->end = end;
	e->count = 0;
	e->sum = 0;
	e->min = INT64_MAX;
	e->max = INT64_MIN;
	return e;
}

/* Remove the entry in slot idx and its plugin accumulators. */
static inline void
state_remove(struct wm_window *op, size_t idx)
{
	const struct window_state *e = &op->states.slots[idx];

	if (op->plugins != NULL)
		wm_window_plugins_remove(op->plugins, e->hash, e->key,
					 e->start);
	state_table_remove_at(&op->states, idx);
}

/*
 * The record into the plugin accumulators of the window whose state entry
 * has `hash`, before the entry is made or added to (nothing to do without
 * plugin aggregates): 0 or -ENOMEM with nothing changed.
 */
static inline int
plugins_add(struct wm_window *op, uint64_t hash, const struct wm_record *rec,
	    wm_ts_t start)
{
	if (__builtin_expect(op->plugins == NULL, 1))
		return 0;
	return wm_window_plugins_add(op->plugins, hash, rec->key, start,
				     rec->value, rec->ts);
}

/* Emit contents `e` for window `w` (for sessions not e's own window). */
static void
result_emit(struct wm_window *op, const struct window_state *e,
	    struct wm_time_window w, bool late_firing,
	    struct wm_window_output *out)
{
	struct wm_window_result r;

	r.plugin_results = NULL;
	if (op->plugins != NULL) {
		wm_window_plugins_results(op->plugins, e->hash, e->key,
					  e->start, op->plugin_results);
		r.plugin_results = op->plugin_results;
	}

	r.key = e->key;
	r.window = w;
	r.timestamp = wm_window_max_timestamp(w);
	r.count = e->count;
	r.sum = e->sum;
	r.min = e->min;
	r.max = e->max;
	r.late_firing = late_firing;
	if (late_firing)
		op->counters.windows_fired_late++;
	else
		op->counters.windows_fired++;
	out->result(out, &r);
}

/* Emit the contents of a tumbling or sliding window; max_ts is its maxTs. */
static inline void
window_emit(struct wm_window *op, const struct window_state *e, wm_ts_t max_ts,
	    bool late_firing, struct wm_window_output *out)
{
	struct wm_time_window w = {.start = e->start, .end = e->end};

	(void)max_ts;
	result_emit(op, e, w, late_firing, out);
}

struct wm_window *
wm_window_new(const struct wm_window_config *config, const char **why)
{
	const struct wm_window_assigner *a = &config->assigner;
	struct wm_window *op;

	if (wm_window_check_config(a, config->allowed_lateness, why) != 0) {
		errno = EINVAL;
		return NULL;
	}
	if (config->processing_time &&
	    (a->kind == WM_WINDOW_SESSION || config->allowed_lateness != 0 ||
	     config->late_side_output)) {
		*why = "invalid processing-time window: tumbling or sliding, "
		       "never late";
		errno = EINVAL;
		return NULL;
	}
	op = calloc(1, sizeof(*op));
	if (op == NULL)
		return NULL;
	op->conf = *config;
	op->event_watermark = WM_TS_MIN;
	if (config->processing_time &&
	    (op->arrivals = malloc(ARRIVALS * sizeof(*op->arrivals))) == NULL) {
		free(op);
		errno = ENOMEM;
		return NULL;
	}
	op->span_lo = 1; /* no timestamp reuses a window yet */
	op->span_hi = 0;
	state_table_init(&op->states);
	op->timers = wm_timer_new();
	if (a->kind == WM_WINDOW_SESSION)
		op->sessions = wm_merging_new();
	if (config->n_plugin_aggregates > 0) {
		op->plugins =
			wm_window_plugins_new(config->plugin_aggregates,
					      config->n_plugin_aggregates, why);
		if (op->plugins == NULL) {
			int err = errno;

			wm_window_free(op);
			errno = err;
			return NULL;
		}
	}
	/* The first 256 state slots now, as the timers' first memory. */
	if (op->timers == NULL ||
	    (a->kind == WM_WINDOW_SESSION && op->sessions == NULL) ||
	    state_table_reserve(&op->states, 1) != 0) {
		wm_window_free(op);
		errno = ENOMEM;
		return NULL;
	}
	return op;
}

void
wm_window_free(struct wm_window *op)
{
	if (op == NULL)
		return;
	wm_timer_free(op->timers);
	wm_merging_free(op->sessions);
	wm_window_plugins_free(op->plugins);
	state_table_destroy(&op->states);
	free(op->arrivals);
	free(op);
}

/* The aggregate of entry e takes value v. */
static inline void
state_add(struct window_state *e, int64_t v)
{
	e->count++;
	e->sum = wm_ts_add(e->sum, v); /* Java long addition */
	if (v < e->min)
		e->min = v;
	if (v > e->max)
		e->max = v;
}

/*
 * Add the record to window w (not late; start_mix is
 * window_start_mix(w.start)) and run the trigger on it: Flink's loop body
 * in processElement(). Returns 0 or -ENOMEM before any change.
 */
static inline __attribute__((always_inline)) int
window_add(struct wm_window *op, const struct wm_record *rec,
	   struct wm_time_window w, uint64_t start_mix, wm_ts_t max_ts,
	   wm_ts_t cleanup, wm_ts_t watermark, struct wm_window_output *out)
{
	struct window_state *e;
	bool timer_set = false;
	bool register_timers, found;
	uint64_t hash = 0;
	size_t idx;

	if (hint_holds(op, rec->key, w.start)) {
		found = true;
		idx = op->hint;
	} else {
		hash = window_hash_mixed(rec->key, start_mix);
		found = state_find(op, rec->key, w.start, hash, &idx);
		/* Only a new entry needs room (as on the short way of a
		 * tumbling run); growth moves every entry, so its slot is
		 * found anew. */
		if (!found && !state_table_has_room(&op->states, 1)) {
			if (state_table_reserve(&op->states, 1) != 0)
				return -ENOMEM;
			(void)state_find(op, rec->key, w.start, hash, &idx);
		}
		op->hint_key = rec->key;
		op->hint = idx;
	}
	/* See "Timer registration" at the top of the file. */
	register_timers = !found || op->watermark_regressed;
	if (register_timers && wm_timer_reserve(op->timers, 2) != 0)
		return -ENOMEM;
	if (plugins_add(op, found ? op->states.slots[idx].hash : hash, rec,
			w.start) != 0)
		return -ENOMEM;
	if (found)
		e = &op->states.slots[idx];
	else
		e = state_insert(op, idx, hash, rec->key, w.start, w.end);
	state_add(e, rec->value);

	/* EventTimeTrigger.onElement(). */
	if (max_ts <= watermark) {
		window_emit(op, e, max_ts, true, out);
		if (op->conf.purging)
			state_remove(op, idx);
	} else if (register_timers) {
		(void)wm_timer_add(op->timers, max_ts, rec->key, w.start);
		timer_set = true;
	}

	/* registerCleanupTimer(); with L = 0 it is the timer just set. */
	if (register_timers && cleanup != WM_TS_MAX &&
	    !(timer_set && cleanup == max_ts))
		(void)wm_timer_add(op->timers, cleanup, rec->key, w.start);
	return 0;
}

/* The end of processElement(): count the record, and send it to the late
 * side output if it went into no window and is late itself. Returns
 * RECORD_LATE if it was judged late (dropped or side output), else 0. */
static inline int
record_done(struct wm_window *op, const struct wm_record *rec, bool skipped,
	    wm_ts_t watermark, struct wm_window_output *out)
{
	op->counters.records_in++;
	if (!skipped) {
		op->counters.records_accepted++;
	} else if (wm_ts_add(rec->ts, op->conf.allowed_lateness) <= watermark) {
		/* isElementLate(). */
		if (op->conf.late_side_output) {
			op->counters.late_records_side_output++;
			out->late(out, rec);
		} else {
			op->counters.late_records_dropped++;
		}
		return RECORD_LATE;
	} else {
		op->counters.records_ignored++;
	}
	return 0;
}

/* A record Flink fails the job on: counted, and `err` returned. */
static int
record_rejected(struct wm_window *op, int err)
{
	op->counters.records_in++;
	op->counters.records_rejected++;
	return err;
}

/* The merge function's precondition in Flink (wm_merging_check_result()). */
static int
session_check(void *ctx, int64_t key, struct wm_time_window result)
{
	struct wm_window *op = ctx;

	(void)key;
	return wm_merging_check_result(op->timers, op->conf.allowed_lateness,
				       result);
}

/* mergeNamespaces() for one source: fold state window `from` into `to`. */
static void
session_merge_state(struct wm_window *op, int64_t key, wm_ts_t to, wm_ts_t from)
{
	uint64_t to_hash = window_hash(key, to);
	uint64_t from_hash = window_hash(key, from);
	struct window_state *src, *dst;
	size_t from_idx, to_idx;

	if (!state_find(op, key, from, from_hash, &from_idx))
		return;
	if (op->plugins != NULL)
		wm_window_plugins_merge(op->plugins, key, to, to_hash, from,
					from_hash);
	src = &op->states.slots[from_idx];
	if (!state_find(op, key, to, to_hash, &to_idx)) {
		/* Filling an empty slot moves no other entry. */
		dst = state_insert(op, to_idx, to_hash, key, to, src->end);
		dst->count = src->count;
		dst->sum = src->sum;
		dst->min = src->min;
		dst->max = src->max;
	} else {
		dst = &op->states.slots[to_idx];
		dst->count += src->count;
		dst->sum = wm_ts_add(dst->sum, src->sum);
		if (src->min < dst->min)
			dst->min = src->min;
		if (src->max > dst->max)
			dst->max = src->max;
	}
	state_table_remove_at(&op->states, from_idx);
}

/*
 * The merge function of Flink's processElement(): the timers of
 * onMerge() and of the absorbed windows (wm_merging_merge_timers()), then
 * the states merged into the state window.
 */
static void
session_merge(void *ctx, int64_t key, struct wm_time_window result,
	      const struct wm_merging_entry *merged, size_t n,
	      wm_ts_t state_start)
{
	struct wm_window *op = ctx;

	wm_merging_merge_timers(op->timers, op->conf.allowed_lateness, key,
				result, merged, n);
	for (size_t i = 0; i < n; i++)
		if (merged[i].state_start != state_start)
			session_merge_state(op, key, state_start,
					    merged[i].state_start);
}

/* processElement(), merging branch (doc/semantics.md section 7.10). */
static int
session_element(struct wm_window *op, const struct wm_record *rec,
		wm_ts_t watermark, struct wm_window_output *out)
{
	struct wm_merging_callbacks cb = {
		.check = session_check,
		.merge = session_merge,
		.ctx = op,
	};
	struct wm_time_window w;
	struct wm_merging_entry act;
	struct window_state *e;
	wm_ts_t max_ts, cleanup;
	bool skipped = true;
	uint64_t hash;
	size_t idx;
	int err;

	w.start = rec->ts;
	w.end = wm_ts_add(rec->ts, op->conf.assigner.size);
	/* Room for the state window of a merge and of the element, and for
	 * the timers of onMerge, onElement and the cleanup; merges only free
	 * entries otherwise. */
	if (state_table_reserve(&op->states, 2) != 0 ||
	    wm_timer_reserve(op->timers, 3) != 0 ||
	    (op->plugins != NULL &&
	     wm_window_plugins_reserve(op->plugins, 2) != 0))
		return -ENOMEM;
	err = wm_merging_add(op->sessions, rec->key, w, &cb, &act);
	if (err == -ENOMEM)
		return err;
	if (err != 0)
		return record_rejected(op, err);
	max_ts = wm_window_max_timestamp(act.window);
	cleanup = wm_window_cleanup_time(max_ts, op->conf.allowed_lateness);
	if (cleanup <= watermark) {
		/* isWindowLate(): the session is gone, drop the element. */
		(void)wm_merging_retire(op->sessions, rec->key, act.window);
	} else {
		skipped = false;
		hash = window_hash(rec->key, act.state_start);
		/* A plugin made no accumulator: the merges stand, as a
		 * failed Flink job's state would; the job stops. */
		if (plugins_add(op, hash, rec, act.state_start) != 0)
			return -ENOMEM;
		if (state_find(op, rec->key, act.state_start, hash, &idx))
			e = &op->states.slots[idx];
		else
			e = state_insert(op, idx, hash, rec->key,
					 act.state_start, act.window.end);
		state_add(e, rec->value);
		/* EventTimeTrigger.onElement() on the merged window. */
		if (max_ts <= watermark) {
			result_emit(op, e, act.window, true, out);
			if (op->conf.purging)
				state_remove(op, idx);
		} else {
			(void)wm_timer_add(op->timers, max_ts, rec->key,
					   act.window.start);
		}
		/* registerCleanupTimer(). */
		if (cleanup != WM_TS_MAX)
			(void)wm_timer_add(op->timers, cleanup, rec->key,
					   act.window.start);
	}
	return record_done(op, rec, skipped, watermark, out);
}

/* onEventTime(), merging branch: the timer's namespace is a window start. */
static void
session_on_event_time(struct wm_window *op, const struct wm_timer *t,
		      struct wm_window_output *out)
{
	struct wm_merging_entry ent;
	wm_ts_t max_ts, cleanup;
	bool fire, clean, found;
	size_t idx;

	/* Flink: getStateWindow() == null, the window is gone: ignore. */
	if (!wm_merging_find(op->sessions, t->key, t->ns, &ent))
		return;
	max_ts = wm_window_max_timestamp(ent.window);
	cleanup = wm_window_cleanup_time(max_ts, op->conf.allowed_lateness);
	fire = t->ts == max_ts;
	clean = t->ts == cleanup;
	if (!fire && !clean)
		return;
	found = state_find(op, t->key, ent.state_start,
			   window_hash(t->key, ent.state_start), &idx);
	if (fire && found)
		result_emit(op, &op->states.slots[idx], ent.window, false, out);
	if (found && ((fire && op->conf.purging) || clean))
		state_remove(op, idx);
	if (clean) {
		/* clearAllState(): trigger.clear(), retireWindow(). */
		(void)wm_timer_delete(op->timers, max_ts, t->key,
				      ent.window.start);
		(void)wm_merging_retire(op->sessions, t->key, ent.window);
	}
}

/*
 * The tumbling window of `ts` (not WM_TS_MIN) into op->span, as
 * wm_window_assign() makes it, and the timestamps that may reuse it into
 * [span_lo, span_hi]: all of the window's, where no step of the assigner's
 * arithmetic can wrap for any of them (see "Runs" at the top), else none.
 */
static void
span_set(struct wm_window *op, wm_ts_t ts)
{
	const struct wm_window_assigner *a = &op->conf.assigner;
	struct window_span *s = &op->span;

	s->w.start = wm_window_start_with_offset(ts, a->offset, a->slide);
	s->w.end = wm_ts_add(s->w.start, a->size);
	s->max_ts = wm_window_max_timestamp(s->w);
	s->cleanup =
		wm_window_cleanup_time(s->max_ts, op->conf.allowed_lateness);
	s->start_mix = window_start_mix(s->w.start);
	if (a->offset > -SPAN_BOUND && a->offset < SPAN_BOUND &&
	    s->w.start >= -SPAN_BOUND && s->w.start <= ts && ts < s->w.end &&
	    s->w.end <= SPAN_BOUND) {
		op->span_lo = s->w.start;
		op->span_hi = s->max_ts;
	} else {
		op->span_lo = 1;
		op->span_hi = 0;
	}
}

/* processElement() for a tumbling window: its one window, taken from the
 * last record's where it holds the timestamp. Inline: a run's loop is this
 * body (doc/performance.md section 9.23). */
static inline __attribute__((always_inline)) int
tumbling_element(struct wm_window *op, const struct wm_record *rec,
		 wm_ts_t watermark, struct wm_window_output *out)
{
	const struct window_span *s = &op->span;
	bool skipped = true;

	if (!(rec->ts >= op->span_lo && rec->ts <= op->span_hi)) {
		if (rec->ts == WM_TS_MIN)
			return record_rejected(op, -EINVAL);
		span_set(op, rec->ts);
	}
	/* isWindowLate(): the window is gone, drop the record. */
	if (s->cleanup > watermark) {
		if (window_add(op, rec, s->w, s->start_mix, s->max_ts,
			       s->cleanup, watermark, out) != 0)
			return -ENOMEM;
		skipped = false;
	}
	return record_done(op, rec, skipped, watermark, out);
}

/* processElement() for a sliding window, or any non-merging one. */
static int
sliding_element(struct wm_window *op, const struct wm_record *rec,
		wm_ts_t watermark, struct wm_window_output *out)
{
	int64_t lateness = op->conf.allowed_lateness;
	struct wm_window_iter it;
	struct wm_time_window w;
	bool skipped = true;

	if (wm_window_assign(&op->conf.assigner, rec->ts, &it) != 0)
		return record_rejected(op, -EINVAL);
	/* All or nothing: room for every window the record enters before it
	 * enters any, so that running out of memory leaves it in none (no
	 * late firing emitted, nothing counted) rather than in some of its
	 * windows, which would be a wrong result. One more walk of the
	 * windows, no probe: arithmetic per window. */
	if (op->conf.assigner.max_windows > 1) {
		struct wm_window_iter count = it;
		size_t open = 0;

		while (wm_window_next(&count, &w))
			open += wm_window_cleanup_time(
					wm_window_max_timestamp(w), lateness) >
				watermark;
		if (state_table_reserve(&op->states, open) != 0 ||
		    wm_timer_reserve(op->timers, 2 * open) != 0 ||
		    (op->plugins != NULL &&
		     wm_window_plugins_reserve(op->plugins, open) != 0))
			return -ENOMEM;
	}
	while (wm_window_next(&it, &w)) {
		wm_ts_t max_ts = wm_window_max_timestamp(w);
		wm_ts_t cleanup = wm_window_cleanup_time(max_ts, lateness);

		/* isWindowLate(): this window is gone, drop the record for
		 * it alone. */
		if (cleanup <= watermark)
			continue;
		/* Cannot fail after the reservation (a single window
		 * reserves in window_add()). */
		if (window_add(op, rec, w, window_start_mix(w.start), max_ts,
			       cleanup, watermark, out) != 0)
			return -ENOMEM;
		skipped = false;
	}
	return record_done(op, rec, skipped, watermark, out);
}

/* One record judged by `watermark`: 0 or RECORD_LATE if taken, else a
 * negative errno as wm_window_process_element() returns it. */
static inline __attribute__((always_inline)) int
element(struct wm_window *op, enum wm_window_kind kind,
	const struct wm_record *rec, wm_ts_t watermark,
	struct wm_window_output *out)
{
	if (kind == WM_WINDOW_TUMBLING)
		return tumbling_element(op, rec, watermark, out);
	if (kind == WM_WINDOW_SESSION)
		return session_element(op, rec, watermark, out);
	return sliding_element(op, rec, watermark, out);
}

int
wm_window_process_element(struct wm_window *op, const struct wm_record *rec,
			  struct wm_window_output *out)
{
	struct wm_record arrived;
	int r;

	if (op->conf.processing_time) {
		arrived = *rec;
		arrived.ts = op->now_ms;
		rec = &arrived;
	}
	r = element(op, op->conf.assigner.kind, rec,
		    wm_timer_watermark(op->timers), out);
	return r == RECORD_LATE ? 0 : r;
}

/* The run's loop for windows of one kind (a constant: each call site
 * compiles to a loop of its own, with no test of the kind inside). */
static inline __attribute__((always_inline)) size_t
run(struct wm_window *op, enum wm_window_kind kind,
    const struct wm_record *records, size_t n, struct wm_window_output *out,
    size_t *late, size_t *n_late)
{
	/* Records do not move the watermark: one reading judges the run. */
	wm_ts_t watermark = wm_timer_watermark(op->timers);
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		int r = element(op, kind, &records[i], watermark, out);

		if (r == RECORD_LATE)
			late[k++] = i;
		else if (__builtin_expect(r == -ENOMEM, 0))
			break;
	}
	*n_late = k;
	return i;
}

/*
 * The short way of a tumbling run (tumbling_run()): what a record needs
 * of processElement() when its timestamp is in the kept window (op->span),
 * that window is on time (maxTs > watermark, hence cleanupTime too: the
 * window is not late and the trigger does not fire), timers go by the skip
 * of "Timer registration" (no regression), and the record's (key, window)
 * entry exists: the aggregate alone. The window's trigger neither fires
 * nor registers (the entry's creation did), and the record is counted in
 * and accepted, which the run does once for all the records of a stretch.
 * Nothing on the short way changes the table or the kept window, so a
 * record of the key before it takes that key's entry without a probe.
 *
 * short_way_open(): whether a record may take the short way as op stands
 * under `watermark` (the kept window on time, no regression).
 */
static inline bool
short_way_open(const struct wm_window *op, wm_ts_t watermark)
{
	return op->span.max_ts > watermark && !op->watermark_regressed &&
	       op->span_lo <= op->span_hi && op->plugins == NULL;
}

/* Records from `rec` on, up to `end`, along the short way (open): the
 * first that cannot take it, or end. */
static inline __attribute__((always_inline)) const struct wm_record *
short_way_run(struct wm_window *op, const struct wm_record *rec,
	      const struct wm_record *end)
{
	/* Read once: the entries' stores cannot alias them, and nothing
	 * here changes the table or the kept window. */
	struct state_table tb = {.slots = op->states.slots,
				 .mask = op->states.mask};
	wm_ts_t lo = op->span_lo;
	uint64_t width = (uint64_t)op->span_hi - (uint64_t)lo;
	wm_ts_t start = op->span.w.start;
	uint64_t start_mix = op->span.start_mix;
	struct window_state *last = NULL; /* last_key's entry */
	int64_t last_key = 0;

	for (; rec != end; rec++) {
		struct window_key wk = {.key = rec->key, .start = start};
		size_t idx;

		/* One comparison for both bounds: lo <= ts <= lo + width. */
		if ((uint64_t)rec->ts - (uint64_t)lo > width)
			break;
		/* Laid out for keys that change from record to record (issue
		 * 26's job): the probe falls through to the aggregate. */
		if (__builtin_expect(rec->key != last_key || last == NULL, 1)) {
			if (!state_table_lookup(
				    &tb, wk,
				    window_hash_mixed(rec->key, start_mix),
				    &idx))
				break;
			last = &tb.slots[idx];
			last_key = rec->key;
		}
		state_add(last, rec->value);
	}
	return rec;
}

/* short_way_run() in a loop of its own, for long runs: there it keeps all
 * it needs in registers, where tumbling_run()'s would spill some; a short
 * run does better without the call. */
static __attribute__((noinline)) const struct wm_record *
short_way_run_long(struct wm_window *op, const struct wm_record *rec,
		   const struct wm_record *end)
{
	return short_way_run(op, rec, end);
}

/* Records from which a run's short way is worth a call. */
#define SHORT_WAY_LONG 8

/* Records that took the short way, into the counters. */
static inline void
count_accepted(struct wm_window *op, uint64_t n)
{
	op->counters.records_in += n;
	op->counters.records_accepted += n;
}

/*
 * The run's loop for tumbling windows: stretches of records along the
 * short way, and each record that cannot take it through
 * tumbling_element(), the counters brought up to date first, so that
 * whatever it emits finds them as the record before it left them; the
 * short way is set again after it from what it changed.
 */
static size_t
tumbling_run(struct wm_window *op, const struct wm_record *records, size_t n,
	     struct wm_window_output *out, size_t *late, size_t *n_late)
{
	wm_ts_t watermark = wm_timer_watermark(op->timers);
	bool open = short_way_open(op, watermark);
	size_t i = 0, k = 0;

	while (i < n) {
		int r;

		if (open) {
			const struct wm_record *stop =
				n - i >= SHORT_WAY_LONG
					? short_way_run_long(op, &records[i],
							     &records[n])
					: short_way_run(op, &records[i],
							&records[n]);
			size_t taken = (size_t)(stop - &records[i]);

			count_accepted(op, taken);
			i += taken;
			if (i == n)
				break;
		}
		r = tumbling_element(op, &records[i], watermark, out);
		if (r == RECORD_LATE)
			late[k++] = i;
		else if (__builtin_expect(r == -ENOMEM, 0))
			break;
		i++;
		open = short_way_open(op, watermark);
	}
	*n_late = k;
	return i;
}

/* The run of an event-time window, or of a processing-time window's
 * records stamped with their arrival. */
static size_t
kind_run(struct wm_window *op, const struct wm_record *records, size_t n,
	 struct wm_window_output *out, size_t *late, size_t *n_late)
{
	switch (op->conf.assigner.kind) {
	case WM_WINDOW_TUMBLING:
		return tumbling_run(op, records, n, out, late, n_late);
	case WM_WINDOW_SESSION:
		return run(op, WM_WINDOW_SESSION, records, n, out, late,
			   n_late);
	default:
		return run(op, WM_WINDOW_SLIDING, records, n, out, late,
			   n_late);
	}
}

size_t
wm_window_process_run(struct wm_window *op, const struct wm_record *records,
		      size_t n, struct wm_window_output *out, size_t *late,
		      size_t *n_late)
{
	size_t done = 0;

	if (!op->conf.processing_time)
		return kind_run(op, records, n, out, late, n_late);
	/* Stamped ARRIVALS at a time; never late (see the top), so `late`
	 * stays empty, but its indexes would be the run's. */
	*n_late = 0;
	while (done < n) {
		size_t chunk = n - done < ARRIVALS ? n - done : ARRIVALS;
		size_t took, chunk_late;

		for (size_t i = 0; i < chunk; i++) {
			op->arrivals[i] = records[done + i];
			op->arrivals[i].ts = op->now_ms;
		}
		took = kind_run(op, op->arrivals, chunk, out, late + *n_late,
				&chunk_late);
		for (size_t i = 0; i < chunk_late; i++)
			late[*n_late + i] += done;
		*n_late += chunk_late;
		done += took;
		if (took < chunk)
			break;
	}
	return done;
}

/* Flink's onEventTime() for one timer of a non-merging window. */
static void
window_on_event_time(struct wm_window *op, const struct wm_timer *t,
		     struct wm_window_output *out)
{
	struct wm_time_window w;
	wm_ts_t max_ts, cleanup;
	bool fire, clean, found;
	size_t idx;

	w.start = t->ns;
	w.end = wm_ts_add(w.start, op->conf.assigner.size);
	max_ts = wm_window_max_timestamp(w);
	cleanup = wm_window_cleanup_time(max_ts, op->conf.allowed_lateness);
	/* EventTimeTrigger.onEventTime(): FIRE only at maxTs. */
	fire = t->ts == max_ts;
	clean = t->ts == cleanup;
	if (!fire && !clean)
		return;
	found = state_find(op, t->key, w.start, window_hash(t->key, w.start),
			   &idx);
	if (fire && found && op->states.slots[idx].count > 0)
		window_emit(op, &op->states.slots[idx], max_ts, false, out);
	if (found && ((fire && op->conf.purging) || clean))
		state_remove(op, idx);
	/* clearAllState(): trigger.clear() deletes the trigger timer. */
	if (clean)
		(void)wm_timer_delete(op->timers, max_ts, t->key, w.start);
}

/* The timers due under the timer service's watermark, fired in order. */
static void
fire_due(struct wm_window *op, struct wm_window_output *out)
{
	struct wm_timer t;

	if (op->sessions != NULL) {
		while (wm_timer_pop_due(op->timers, &t))
			session_on_event_time(op, &t, out);
	} else {
		while (wm_timer_pop_due(op->timers, &t))
			window_on_event_time(op, &t, out);
	}
}

void
wm_window_process_watermark(struct wm_window *op, wm_ts_t watermark,
			    struct wm_window_output *out)
{
	if (op->conf.processing_time) {
		op->event_watermark = watermark;
		wm_output_watermark(&out->base, watermark);
		return;
	}
	if (watermark < wm_timer_watermark(op->timers))
		op->watermark_regressed = true;
	wm_timer_set_watermark(op->timers, watermark);
	fire_due(op, out);
	wm_output_watermark(&out->base, watermark);
}

void
wm_window_advance_time(struct wm_window *op, int64_t now_ms,
		       struct wm_window_output *out)
{
	if (!op->conf.processing_time || now_ms <= op->now_ms)
		return;
	op->now_ms = now_ms;
	/* Timers before now_ms are due: a watermark of now_ms - 1. */
	wm_timer_set_watermark(op->timers, now_ms - 1);
	fire_due(op, out);
}

int64_t
wm_window_next_time(const struct wm_window *op)
{
	struct wm_timer t;

	if (!op->conf.processing_time || !wm_timer_peek(op->timers, &t))
		return INT64_MAX;
	return t.ts < INT64_MAX ? t.ts + 1 : INT64_MAX;
}

void
wm_window_process_status(struct wm_window *op, enum wm_status status,
			 struct wm_window_output *out)
{
	(void)op;
	wm_output_status(&out->base, status);
}

wm_ts_t
wm_window_watermark(const struct wm_window *op)
{
	return op->conf.processing_time ? op->event_watermark
					: wm_timer_watermark(op->timers);
}

const struct wm_window_counters *
wm_window_counters(const struct wm_window *op)
{
	return &op->counters;
}

size_t
wm_window_state_count(const struct wm_window *op)
{
	return state_table_count(&op->states);
}

size_t
wm_window_timer_count(const struct wm_window *op)
{
	return wm_timer_count(op->timers);
}

size_t
wm_window_session_count(const struct wm_window *op)
{
	return op->sessions != NULL ? wm_merging_count(op->sessions) : 0;
}

/* ---- checkpoints ---- */

#define WINDOW_SNAP_TAG WM_SNAP_TAG('W', 'I', 'N', 'D')
#define WINDOW_SNAP_VERSION 1
#define WINDOW_WM_SNAP_TAG WM_SNAP_TAG('W', 'I', 'W', 'M')
#define WINDOW_WM_SNAP_VERSION 1
/* A state entry in a snapshot: key, start, end, count, sum, min, max. */
#define WINDOW_SNAP_STATE_BYTES (7 * 8)

/* The configuration's kind word: the assigner's kind, with this bit for
 * processing-time windows (event-time snapshots keep their bytes). */
#define SNAP_PROCESSING_TIME (1u << 16)

static uint32_t
snap_kind(const struct wm_window_config *c)
{
	return (uint32_t)c->assigner.kind |
	       (c->processing_time ? SNAP_PROCESSING_TIME : 0);
}

static void
snap_put_config(struct wm_snap_writer *w, const struct wm_window_config *c)
{
	wm_snap_put_u32(w, snap_kind(c));
	wm_snap_put_i64(w, c->assigner.size);
	wm_snap_put_i64(w, c->assigner.slide);
	wm_snap_put_i64(w, c->assigner.offset);
	wm_snap_put_u32(w, c->assigner.max_windows);
	wm_snap_put_i64(w, c->allowed_lateness);
	wm_snap_put_bool(w, c->purging);
	wm_snap_put_bool(w, c->late_side_output);
}

/* The snapshot's configuration is op's: else -EINVAL (a snapshot of
 * another job, or of this job before its windows changed). */
static int
snap_check_config(struct wm_snap_reader *r, const struct wm_window_config *c)
{
	bool same = wm_snap_get_u32(r) == snap_kind(c);

	same &= wm_snap_get_i64(r) == c->assigner.size;
	same &= wm_snap_get_i64(r) == c->assigner.slide;
	same &= wm_snap_get_i64(r) == c->assigner.offset;
	same &= wm_snap_get_u32(r) == c->assigner.max_windows;
	same &= wm_snap_get_i64(r) == c->allowed_lateness;
	same &= wm_snap_get_bool(r) == c->purging;
	same &= wm_snap_get_bool(r) == c->late_side_output;
	if (wm_snap_reader_error(r) == 0 && !same)
		wm_snap_reader_fail(r, -EINVAL);
	return wm_snap_reader_error(r);
}

static void
snap_put_counters(struct wm_snap_writer *w, const struct wm_window_counters *c)
{
	wm_snap_put_u64(w, c->records_in);
	wm_snap_put_u64(w, c->records_accepted);
	wm_snap_put_u64(w, c->late_records_dropped);
	wm_snap_put_u64(w, c->late_records_side_output);
	wm_snap_put_u64(w, c->records_ignored);
	wm_snap_put_u64(w, c->records_rejected);
	wm_snap_put_u64(w, c->windows_fired);
	wm_snap_put_u64(w, c->windows_fired_late);
}

static int
snap_get_counters(struct wm_snap_reader *r, struct wm_window_counters *c)
{
	c->records_in = wm_snap_get_u64(r);
	c->records_accepted = wm_snap_get_u64(r);
	c->late_records_dropped = wm_snap_get_u64(r);
	c->late_records_side_output = wm_snap_get_u64(r);
	c->records_ignored = wm_snap_get_u64(r);
	c->records_rejected = wm_snap_get_u64(r);
	c->windows_fired = wm_snap_get_u64(r);
	c->windows_fired_late = wm_snap_get_u64(r);
	if (wm_snap_reader_error(r) == 0 && !wm_window_counters_balanced(c))
		wm_snap_reader_fail(r, -EBADMSG);
	return wm_snap_reader_error(r);
}

void
wm_window_snapshot(const struct wm_window *op, struct wm_snap_writer *w)
{
	const struct state_table *st = &op->states;

	wm_snap_begin(w, WINDOW_SNAP_TAG, WINDOW_SNAP_VERSION);
	snap_put_config(w, &op->conf);
	snap_put_counters(w, &op->counters);
	wm_snap_put_bool(w, op->watermark_regressed);
	wm_snap_put_u64(w, state_table_count(st));
	for (size_t i = 0; state_table_count(st) > 0 && i <= st->mask; i++) {
		const struct window_state *e = &st->slots[i];

		if (e->count == 0)
			continue;
		wm_snap_put_i64(w, e->key);
		wm_snap_put_i64(w, e->start);
		wm_snap_put_i64(w, e->end);
		wm_snap_put_i64(w, e->count);
		wm_snap_put_i64(w, e->sum);
		wm_snap_put_i64(w, e->min);
		wm_snap_put_i64(w, e->max);
	}
	wm_timer_snapshot(op->timers, w);
	if (op->sessions != NULL)
		wm_merging_snapshot(op->sessions, w);
	if (op->plugins != NULL)
		wm_window_plugins_snapshot(op->plugins, w);
	wm_snap_end(w);
}

/* The accumulators, into op's empty table: 0 or the reader's error. */
static int
restore_states(struct wm_window *op, struct wm_snap_reader *r)
{
	uint64_t n = wm_snap_get_count(r, WINDOW_SNAP_STATE_BYTES);

	if (n > 0 && state_table_reserve(&op->states, (size_t)n) != 0)
		return wm_snap_reader_fail(r, -ENOMEM);
	for (uint64_t i = 0; i < n && wm_snap_reader_error(r) == 0; i++) {
		struct window_state v = {0};
		struct window_state *e;
		size_t idx;

		v.key = wm_snap_get_i64(r);
		v.start = wm_snap_get_i64(r);
		v.end = wm_snap_get_i64(r);
		v.count = wm_snap_get_i64(r);
		v.sum = wm_snap_get_i64(r);
		v.min = wm_snap_get_i64(r);
		v.max = wm_snap_get_i64(r);
		v.hash = window_hash(v.key, v.start);
		/* An entry exists only with contents; a tumbling or sliding
		 * window's end follows from its start; no entry twice. */
		if (wm_snap_reader_error(r) != 0 || v.count <= 0 ||
		    (op->sessions == NULL &&
		     v.end != wm_ts_add(v.start, op->conf.assigner.size)) ||
		    state_find(op, v.key, v.start, v.hash, &idx))
			return wm_snap_reader_fail(r, -EBADMSG);
		e = state_table_insert_at(&op->states, idx);
		*e = v;
	}
	return wm_snap_reader_error(r);
}

/* The plugin accumulators, one set for each state entry and no other:
 * 0 or the reader's error. */
static int
restore_plugins(struct wm_window *op, struct wm_snap_reader *r)
{
	const struct state_table *st = &op->states;

	if (wm_window_plugins_restore(op->plugins, r, window_hash) != 0)
		return wm_snap_reader_error(r);
	if (wm_window_plugins_count(op->plugins) != state_table_count(st))
		return wm_snap_reader_fail(r, -EBADMSG);
	for (size_t i = 0; state_table_count(st) > 0 && i <= st->mask; i++) {
		const struct window_state *e = &st->slots[i];

		if (e->count != 0 &&
		    !wm_window_plugins_has(op->plugins, e->hash, e->key,
					   e->start))
			return wm_snap_reader_fail(r, -EBADMSG);
	}
	return 0;
}

int
wm_window_restore(struct wm_window *op, struct wm_snap_reader *r)
{
	struct wm_window_counters counters;
	bool regressed;

	if (op->counters.records_in != 0 || state_table_count(&op->states) ||
	    wm_timer_count(op->timers) != 0 ||
	    wm_timer_watermark(op->timers) != WM_TS_MIN)
		return wm_snap_reader_fail(r, -EINVAL);
	if (wm_snap_enter(r, WINDOW_SNAP_TAG, WINDOW_SNAP_VERSION) != 0 ||
	    snap_check_config(r, &op->conf) != 0 ||
	    snap_get_counters(r, &counters) != 0)
		return wm_snap_reader_error(r);
	regressed = wm_snap_get_bool(r);
	if (restore_states(op, r) != 0 || wm_timer_restore(op->timers, r) != 0)
		return wm_snap_reader_error(r);
	if (op->sessions != NULL && wm_merging_restore(op->sessions, r) != 0)
		return wm_snap_reader_error(r);
	if (op->plugins != NULL && restore_plugins(op, r) != 0)
		return wm_snap_reader_error(r);
	if (wm_snap_leave(r) != 0)
		return wm_snap_reader_error(r);
	op->counters = counters;
	/*
	 * The watermark starts again at WM_TS_MIN, below the one the
	 * snapshot was taken at: a regression, after which an existing
	 * entry no longer says that its trigger timer is set (it may have
	 * fired). So register on every element, as Flink does, unless there
	 * is no entry to mislead (see "Timer registration" at the top).
	 */
	op->watermark_regressed =
		regressed || state_table_count(&op->states) > 0;
	return 0;
}

void
wm_window_snapshot_watermark(const struct wm_window *op,
			     struct wm_snap_writer *w)
{
	wm_snap_begin(w, WINDOW_WM_SNAP_TAG, WINDOW_WM_SNAP_VERSION);
	wm_snap_put_i64(w, wm_timer_watermark(op->timers));
	wm_snap_put_bool(w, op->watermark_regressed);
	wm_snap_end(w);
}

int
wm_window_restore_watermark(struct wm_window *op, struct wm_snap_reader *r)
{
	wm_ts_t watermark;
	bool regressed;

	if (wm_snap_enter(r, WINDOW_WM_SNAP_TAG, WINDOW_WM_SNAP_VERSION) != 0)
		return wm_snap_reader_error(r);
	watermark = wm_snap_get_i64(r);
	regressed = wm_snap_get_bool(r);
	if (wm_snap_leave(r) != 0)
		return wm_snap_reader_error(r);
	wm_timer_set_watermark(op->timers, watermark);
	/* The watermark did not go back after all: the entries' timers are
	 * as the skip expects, unless they were not before. */
	op->watermark_regressed = regressed;
	return 0;
}
