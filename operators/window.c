/*
 * window.c
 *	The event-time window operator: processElement, onEventTime and
 *	processWatermark of Flink's WindowOperator for non-merging assigners,
 *	with EventTimeTrigger (optionally purging) and a count/sum/min/max
 *	aggregate.
 *
 * State table: open addressing with linear probing over 64-byte entries
 * (one cache line each), keyed by (key, window start), load at most 3/4.
 * An entry exists exactly while its window has contents (count > 0):
 * Flink's "state.get() != null". Purging and cleanup remove the entry;
 * removal shifts the rest of the cluster back, so there are no tombstones
 * and a long-running operator's probes do not degrade.
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
 *
 * The fast path reserves table and timer room before it changes a window,
 * so a failed growth leaves every window either fully updated or untouched.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "operators/timer.h"
#include "operators/window.h"

#define WINDOW_MIN_SLOTS 256
/* Far below the point where slots * 64 bytes would overflow size_t. */
#define WINDOW_MAX_SLOTS ((size_t)1 << 40)

struct window_state {
	uint64_t hash; /* of (key, start), never 0; 0 marks an empty slot */
	int64_t key;
	wm_ts_t start;
	wm_ts_t end;
	int64_t count; /* > 0 in every occupied slot */
	int64_t sum;   /* Java-wrapping */
	int64_t min;
	int64_t max;
};

_Static_assert(sizeof(struct window_state) == 64,
	       "a window state entry fills one cache line");

struct wm_window {
	struct wm_window_config conf;
	struct wm_timer_service *timers; /* also holds the watermark */
	struct window_state *table;
	size_t mask;	/* slots - 1; slots is a power of two */
	size_t used;	/* occupied slots */
	size_t grow_at; /* grow before used exceeds this */
	/* A watermark lower than the current one was processed: from then
	 * on, register timers on every element, as Flink does. */
	bool watermark_regressed;
	struct wm_window_counters counters;
};

static inline uint64_t
window_hash(int64_t key, wm_ts_t start)
{
	/* MurmurHash3's finaliser over the key spread by an odd constant and
	 * the start rotated, so that neither aligned starts nor small keys
	 * pile up in the low bits the index uses. */
	uint64_t s = (uint64_t)start;
	uint64_t x =
		(uint64_t)key * 0x9e3779b97f4a7c15ULL ^ (s << 29 | s >> 35);

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x != 0 ? x : 1;
}

/* Flink's cleanupTime(): maxTs + L, or WM_TS_MAX if that overflows. */
static inline wm_ts_t
window_cleanup_time(wm_ts_t max_ts, int64_t lateness)
{
	wm_ts_t t = wm_ts_add(max_ts, lateness);

	return t >= max_ts ? t : WM_TS_MAX;
}

/*
 * Find (key, start). Returns true with *idx at its entry, or false with
 * *idx at the empty slot where it would go.
 */
static inline bool
state_find(const struct wm_window *op, int64_t key, wm_ts_t start,
	   uint64_t hash, size_t *idx)
{
	size_t i = hash & op->mask;

	for (;;) {
		const struct window_state *e = &op->table[i];

		if (e->hash == 0) {
			*idx = i;
			return false;
		}
		if (e->hash == hash && e->key == key && e->start == start) {
			*idx = i;
			return true;
		}
		i = (i + 1) & op->mask;
	}
}

/* Empty slot `hole`, shifting back the later members of its cluster that
 * may live closer to their home slot. */
static void
state_remove(struct wm_window *op, size_t hole)
{
	size_t j = hole;

	for (;;) {
		const struct window_state *e;
		size_t home;

		j = (j + 1) & op->mask;
		e = &op->table[j];
		if (e->hash == 0)
			break;
		home = e->hash & op->mask;
		/* Movable iff the hole lies on its probe path. */
		if (((j - home) & op->mask) >= ((j - hole) & op->mask)) {
			op->table[hole] = *e;
			hole = j;
		}
	}
	op->table[hole].hash = 0;
	op->used--;
}

static int
state_resize(struct wm_window *op, size_t slots)
{
	struct window_state *old = op->table;
	size_t old_slots = old != NULL ? op->mask + 1 : 0;
	struct window_state *table;

	table = aligned_alloc(sizeof(*table), slots * sizeof(*table));
	if (table == NULL)
		return -ENOMEM;
	memset(table, 0, slots * sizeof(*table));
	op->table = table;
	op->mask = slots - 1;
	op->grow_at = slots / 4 * 3;
	for (size_t i = 0; i < old_slots; i++) {
		size_t idx;

		if (old[i].hash == 0)
			continue;
		(void)state_find(op, old[i].key, old[i].start, old[i].hash,
				 &idx);
		table[idx] = old[i];
	}
	free(old);
	return 0;
}

/* Room for one more entry; 0 or -ENOMEM (nothing changed). */
static inline int
state_reserve(struct wm_window *op)
{
	size_t slots = op->mask + 1;

	if (op->used + 1 <= op->grow_at)
		return 0;
	if (slots >= WINDOW_MAX_SLOTS)
		return -ENOMEM;
	return state_resize(op, slots * 2);
}

static void
window_emit(struct wm_window *op, const struct window_state *e, wm_ts_t max_ts,
	    bool late_firing, struct wm_window_output *out)
{
	struct wm_window_result r;

	r.key = e->key;
	r.window.start = e->start;
	r.window.end = e->end;
	r.timestamp = max_ts;
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

struct wm_window *
wm_window_new(const struct wm_window_config *config, const char **why)
{
	const struct wm_window_assigner *a = &config->assigner;
	struct wm_window *op;

	if ((a->kind != WM_WINDOW_TUMBLING && a->kind != WM_WINDOW_SLIDING) ||
	    a->size <= 0 || a->slide <= 0 || a->max_windows == 0) {
		*why = "invalid window assigner: not set up";
		errno = EINVAL;
		return NULL;
	}
	if (config->allowed_lateness < 0) {
		*why = "invalid allowed lateness: must not be negative";
		errno = EINVAL;
		return NULL;
	}
	op = calloc(1, sizeof(*op));
	if (op == NULL)
		return NULL;
	op->conf = *config;
	op->timers = wm_timer_new();
	if (op->timers == NULL || state_resize(op, WINDOW_MIN_SLOTS) != 0) {
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
	free(op->table);
	free(op);
}

/*
 * Add the record to window w (not late) and run the trigger on it: Flink's
 * loop body in processElement(). Returns 0 or -ENOMEM before any change.
 */
static inline int
window_add(struct wm_window *op, const struct wm_record *rec,
	   struct wm_time_window w, wm_ts_t max_ts, wm_ts_t cleanup,
	   wm_ts_t watermark, struct wm_window_output *out)
{
	uint64_t hash = window_hash(rec->key, w.start);
	struct window_state *e;
	bool timer_set = false;
	bool register_timers;
	size_t idx;

	if (state_reserve(op) != 0)
		return -ENOMEM;
	/* See "Timer registration" at the top of the file. */
	register_timers = !state_find(op, rec->key, w.start, hash, &idx) ||
			  op->watermark_regressed;
	if (register_timers && wm_timer_reserve(op->timers, 2) != 0)
		return -ENOMEM;
	if (op->table[idx].hash == 0) {
		e = &op->table[idx];
		e->hash = hash;
		e->key = rec->key;
		e->start = w.start;
		e->end = w.end;
		e->count = 0;
		e->sum = 0;
		e->min = INT64_MAX;
		e->max = INT64_MIN;
		op->used++;
	}
	e = &op->table[idx];
	e->count++;
	e->sum = wm_ts_add(e->sum, rec->value); /* Java long addition */
	if (rec->value < e->min)
		e->min = rec->value;
	if (rec->value > e->max)
		e->max = rec->value;

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

int
wm_window_process_element(struct wm_window *op, const struct wm_record *rec,
			  struct wm_window_output *out)
{
	wm_ts_t watermark = wm_timer_watermark(op->timers);
	int64_t lateness = op->conf.allowed_lateness;
	struct wm_window_iter it;
	struct wm_time_window w;
	bool skipped = true;

	if (wm_window_assign(&op->conf.assigner, rec->ts, &it) != 0) {
		op->counters.records_in++;
		op->counters.records_rejected++;
		return -EINVAL;
	}
	while (wm_window_next(&it, &w)) {
		wm_ts_t max_ts = wm_window_max_timestamp(w);
		wm_ts_t cleanup = window_cleanup_time(max_ts, lateness);

		/* isWindowLate(): this window is gone, drop the record for
		 * it alone. */
		if (cleanup <= watermark)
			continue;
		if (window_add(op, rec, w, max_ts, cleanup, watermark, out) !=
		    0)
			return -ENOMEM;
		skipped = false;
	}

	op->counters.records_in++;
	if (!skipped) {
		op->counters.records_accepted++;
	} else if (wm_ts_add(rec->ts, lateness) <= watermark) {
		/* isElementLate(). */
		if (op->conf.late_side_output) {
			op->counters.late_records_side_output++;
			out->late(out, rec);
		} else {
			op->counters.late_records_dropped++;
		}
	} else {
		op->counters.records_ignored++;
	}
	return 0;
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
	cleanup = window_cleanup_time(max_ts, op->conf.allowed_lateness);
	/* EventTimeTrigger.onEventTime(): FIRE only at maxTs. */
	fire = t->ts == max_ts;
	clean = t->ts == cleanup;
	if (!fire && !clean)
		return;
	found = state_find(op, t->key, w.start, window_hash(t->key, w.start),
			   &idx);
	if (fire && found && op->table[idx].count > 0)
		window_emit(op, &op->table[idx], max_ts, false, out);
	if (found && ((fire && op->conf.purging) || clean))
		state_remove(op, idx);
	/* clearAllState(): trigger.clear() deletes the trigger timer. */
	if (clean)
		(void)wm_timer_delete(op->timers, max_ts, t->key, w.start);
}

void
wm_window_process_watermark(struct wm_window *op, wm_ts_t watermark,
			    struct wm_window_output *out)
{
	struct wm_timer t;

	if (watermark < wm_timer_watermark(op->timers))
		op->watermark_regressed = true;
	wm_timer_set_watermark(op->timers, watermark);
	while (wm_timer_pop_due(op->timers, &t))
		window_on_event_time(op, &t, out);
	wm_output_watermark(&out->base, watermark);
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
	return wm_timer_watermark(op->timers);
}

const struct wm_window_counters *
wm_window_counters(const struct wm_window *op)
{
	return &op->counters;
}

size_t
wm_window_state_count(const struct wm_window *op)
{
	return op->used;
}

size_t
wm_window_timer_count(const struct wm_window *op)
{
	return wm_timer_count(op->timers);
}
