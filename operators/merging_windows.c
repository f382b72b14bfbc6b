/*
 * merging_windows.c
 *	Per-key merging window sets: a key -> sorted window array hash table
 *	and Flink's merge sweep over it.
 *
 * Slot of the table (lib/hash_table.h; 64 bytes, one cache line,
 * load at most 3/4): the key, the number of windows n (0 marks an empty
 * slot), the heap capacity (0: windows inline, at most INLINE_WINDOWS),
 * and the "irregular" flag. Windows are sorted by start; a new window goes
 * after the existing ones with an equal start, where Flink's stable sort
 * puts it.
 *
 * The sweep (Flink's TimeWindow.mergeWindows()): walk the windows in start
 * order keeping the cover of the current run; a window that intersects the
 * cover joins the run, any other starts the next run. If no two
 * neighbours of the old array intersect ("regular"), every run of the old
 * array is a single window, so adding one window can only change the run
 * that contains it, and that run starts at its left neighbour or at itself:
 * the sweep can begin there and stop after that run. Merging can leave the
 * cover intersecting its left neighbour only when windows wrap around the
 * end of time; that pair is checked after every change, and a key where it
 * happens is marked irregular and swept in full from then on, exactly as
 * Flink sweeps every time, until a full sweep finds it regular again.
 *
 * Each addition first sweeps without changing anything, asking the owner
 * to check every merge, then sweeps again to merge. So a vetoed addition
 * leaves nothing changed, and room for the new window is reserved before
 * either sweep.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"
#include "operators/merging_windows.h"
#include "lib/snap.h"
#include "operators/timer.h"

#define INLINE_WINDOWS 2
#define MERGING_MAX_WINDOWS ((uint32_t)1 << 30)

struct merging_slot {
	int64_t key;
	uint32_t n;		/* windows; 0 = empty slot */
	uint32_t cap : 31;	/* heap capacity; 0 = inline */
	uint32_t irregular : 1; /* neighbours may intersect: sweep in full */
	union {
		struct wm_merging_entry in[INLINE_WINDOWS];
		struct wm_merging_entry *heap;
	} u;
};

_Static_assert(sizeof(struct merging_slot) == 64,
	       "a merging slot fills one cache line");

#define WM_HT_PREFIX key_table
#define WM_HT_ENTRY struct merging_slot
#define WM_HT_KEY int64_t
#define WM_HT_EMPTY(e) ((e)->n == 0)
#define WM_HT_HASH(tb, e) wm_hash_mix64((uint64_t)(e)->key)
#define WM_HT_MATCH(tb, e, k, hash) ((e)->key == (k))
#define WM_HT_MIN_SLOTS 64
#define WM_HT_FILL(slots) ((slots) / 4 * 3)
#define WM_HT_ALIGN sizeof(struct merging_slot)
#include "lib/hash_table.h"

struct wm_merging_windows {
	struct key_table keys; /* one slot per key with windows */
	size_t windows;	       /* windows over all keys */
};

static inline struct wm_merging_entry *
slot_windows(struct merging_slot *s)
{
	return s->cap == 0 ? s->u.in : s->u.heap;
}

static inline const struct wm_merging_entry *
slot_windows_const(const struct merging_slot *s)
{
	return s->cap == 0 ? s->u.in : s->u.heap;
}

static inline bool
window_eq(struct wm_time_window a, struct wm_time_window b)
{
	return a.start == b.start && a.end == b.end;
}

/* Found: true, *idx at the key's slot; else false, *idx at an empty slot. */
static inline bool
slot_find(const struct wm_merging_windows *mw, int64_t key, size_t *idx)
{
	return key_table_lookup(&mw->keys, key, wm_hash_mix64((uint64_t)key),
				idx);
}

/* Room for one more window in slot s; 0 or -ENOMEM (nothing changed). */
static int
slot_reserve(struct merging_slot *s)
{
	struct wm_merging_entry *a;
	uint32_t cap;

	if (s->n + 1 <= (s->cap == 0 ? INLINE_WINDOWS : s->cap))
		return 0;
	if (s->n >= MERGING_MAX_WINDOWS)
		return -ENOMEM;
	cap = s->cap == 0 ? 2 * INLINE_WINDOWS : 2 * s->cap;
	if (s->cap == 0) {
		a = malloc(cap * sizeof(*a));
		if (a == NULL)
			return -ENOMEM;
		memcpy(a, s->u.in, s->n * sizeof(*a));
	} else {
		a = realloc(s->u.heap, cap * sizeof(*a));
		if (a == NULL)
			return -ENOMEM;
	}
	s->u.heap = a;
	s->cap = cap;
	return 0;
}

/* First index whose start is > start (upper bound). */
static size_t
after_start(const struct wm_merging_entry *a, size_t n, wm_ts_t start)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid].window.start <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* First index whose start is >= start (lower bound). */
static size_t
at_start(const struct wm_merging_entry *a, size_t n, wm_ts_t start)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid].window.start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool
all_neighbours_apart(const struct wm_merging_entry *a, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (wm_window_intersects(a[i - 1].window, a[i].window))
			return false;
	return true;
}

struct sweep {
	struct wm_merging_entry *a;
	size_t n; /* windows, the new one included */
	size_t p; /* index of the new window */
	size_t from;
	bool local; /* stop after the run holding p */
	int64_t key;
	const struct wm_merging_callbacks *cb;
};

/*
 * One pass of Flink's sweep over a[from .. n). With apply false, only ask
 * cb->check about each merge and return its first error. With apply true,
 * merge: call cb->merge, compact the array, and return the new count in
 * *n_out and the index of the new window's run in *result.
 */
static int
sweep_pass(const struct sweep *sw, bool apply, size_t *n_out, size_t *result)
{
	struct wm_merging_entry *a = sw->a;
	size_t n = sw->n, p = sw->p;
	size_t out = sw->from, i = sw->from;

	while (i < n) {
		struct wm_time_window cover = a[i].window;
		size_t j = i + 1, k, first;
		bool has_new;

		while (j < n && wm_window_intersects(cover, a[j].window)) {
			cover = wm_window_cover(cover, a[j].window);
			j++;
		}
		has_new = i <= p && p < j;
		/* The run's existing windows: all but the new one. */
		k = j - i - (has_new ? 1 : 0);
		first = has_new && p == i ? i + 1 : i;
		if (j - i == 1) {
			if (apply)
				a[out] = a[i];
		} else if (has_new && k == 1 &&
			   window_eq(a[first].window, cover)) {
			/* Inside one existing window (or equal to it): that
			 * window is the result; Flink calls no merge. */
			if (apply)
				a[out] = a[first];
		} else if (!apply) {
			if (sw->cb->check != NULL) {
				int err = sw->cb->check(sw->cb->ctx, sw->key,
							cover);

				if (err != 0)
					return err;
			}
		} else {
			struct wm_merging_entry merged;

			if (has_new && p != j - 1) {
				/* Move the new window to the end of the run
				 * so the existing ones are contiguous. */
				struct wm_merging_entry nw = a[p];

				memmove(&a[p], &a[p + 1],
					(j - p - 1) * sizeof(*a));
				a[j - 1] = nw;
			}
			merged.window = cover;
			merged.state_start = a[i].state_start;
			sw->cb->merge(sw->cb->ctx, sw->key, cover, &a[i], k,
				      merged.state_start);
			a[out] = merged;
		}
		if (apply && has_new)
			*result = out;
		out++;
		i = j;
		if (sw->local && has_new)
			break;
	}
	if (apply) {
		memmove(&a[out], &a[i], (n - i) * sizeof(*a));
		*n_out = out + (n - i);
	}
	return 0;
}

struct wm_merging_windows *
wm_merging_new(void)
{
	struct wm_merging_windows *mw = calloc(1, sizeof(*mw));

	if (mw == NULL)
		return NULL;
	key_table_init(&mw->keys);
	/* The first 64 slots now: a set that cannot have them fails here. */
	if (key_table_reserve(&mw->keys, 1) != 0) {
		free(mw);
		errno = ENOMEM;
		return NULL;
	}
	return mw;
}

void
wm_merging_free(struct wm_merging_windows *mw)
{
	struct merging_slot *s;
	size_t pos = 0;

	if (mw == NULL)
		return;
	while ((s = key_table_next(&mw->keys, &pos)) != NULL)
		if (s->cap != 0)
			free(s->u.heap);
	key_table_destroy(&mw->keys);
	free(mw);
}

int
wm_merging_add(struct wm_merging_windows *mw, int64_t key,
	       struct wm_time_window window,
	       const struct wm_merging_callbacks *cb,
	       struct wm_merging_entry *actual)
{
	struct merging_slot *s;
	struct wm_merging_entry *a;
	struct sweep sw;
	size_t idx, n, result = 0;
	int err;

	if (!slot_find(mw, key, &idx)) {
		/* A key's first window: nothing to merge with. */
		if (!key_table_has_room(&mw->keys, 1)) {
			if (key_table_reserve(&mw->keys, 1) != 0)
				return -ENOMEM;
			(void)slot_find(mw, key, &idx);
		}
		s = key_table_insert_at(&mw->keys, idx);
		s->key = key;
		s->n = 1;
		s->cap = 0;
		s->irregular = 0;
		s->u.in[0].window = window;
		s->u.in[0].state_start = window.start;
		mw->windows++;
		*actual = s->u.in[0];
		return 0;
	}
	s = &mw->keys.slots[idx];
	if (slot_reserve(s) != 0)
		return -ENOMEM;
	a = slot_windows(s);
	n = s->n;
	sw.p = after_start(a, n, window.start);
	memmove(&a[sw.p + 1], &a[sw.p], (n - sw.p) * sizeof(*a));
	a[sw.p].window = window;
	a[sw.p].state_start = window.start;
	sw.a = a;
	sw.n = n + 1;
	sw.local = !s->irregular;
	sw.from = sw.local && sw.p > 0 ? sw.p - 1 : 0;
	sw.key = key;
	sw.cb = cb;

	err = sweep_pass(&sw, false, NULL, NULL);
	if (err != 0) {
		memmove(&a[sw.p], &a[sw.p + 1], (n - sw.p) * sizeof(*a));
		return err;
	}
	(void)sweep_pass(&sw, true, &n, &result);
	mw->windows += n;
	mw->windows -= s->n;
	s->n = (uint32_t)n;
	if (sw.local)
		s->irregular =
			result > 0 && wm_window_intersects(a[result - 1].window,
							   a[result].window);
	else
		s->irregular = !all_neighbours_apart(a, n);
	*actual = a[result];
	return 0;
}

bool
wm_merging_find(const struct wm_merging_windows *mw, int64_t key, wm_ts_t start,
		struct wm_merging_entry *entry)
{
	const struct merging_slot *s;
	const struct wm_merging_entry *a;
	size_t idx, i;

	if (!slot_find(mw, key, &idx))
		return false;
	s = &mw->keys.slots[idx];
	a = slot_windows_const(s);
	if (s->n == 1) {
		i = 0; /* the common case: one session per key */
	} else {
		i = at_start(a, s->n, start);
		if (i == s->n)
			return false;
	}
	if (a[i].window.start != start)
		return false;
	*entry = a[i];
	return true;
}

bool
wm_merging_retire(struct wm_merging_windows *mw, int64_t key,
		  struct wm_time_window window)
{
	struct merging_slot *s;
	struct wm_merging_entry *a;
	size_t idx, i;

	if (!slot_find(mw, key, &idx))
		return false;
	s = &mw->keys.slots[idx];
	a = slot_windows(s);
	for (i = at_start(a, s->n, window.start);
	     i < s->n && a[i].window.start == window.start; i++)
		if (window_eq(a[i].window, window))
			break;
	if (i == s->n || !window_eq(a[i].window, window))
		return false;
	mw->windows--;
	if (--s->n == 0) {
		if (s->cap != 0)
			free(s->u.heap);
		key_table_remove_at(&mw->keys, idx);
		return true;
	}
	memmove(&a[i], &a[i + 1], (s->n - i) * sizeof(*a));
	/* The new neighbours were never compared by a sweep. */
	if (i > 0 && i < s->n &&
	    wm_window_intersects(a[i - 1].window, a[i].window))
		s->irregular = 1;
	return true;
}

size_t
wm_merging_count(const struct wm_merging_windows *mw)
{
	return mw->windows;
}

size_t
wm_merging_key_count(const struct wm_merging_windows *mw)
{
	return key_table_count(&mw->keys);
}

size_t
wm_merging_windows_of(const struct wm_merging_windows *mw, int64_t key,
		      struct wm_merging_entry *out, size_t cap)
{
	const struct merging_slot *s;
	size_t idx;

	if (!slot_find(mw, key, &idx))
		return 0;
	s = &mw->keys.slots[idx];
	memcpy(out, slot_windows_const(s),
	       (s->n < cap ? s->n : cap) * sizeof(*out));
	return s->n;
}

#define MERGING_SNAP_TAG WM_SNAP_TAG('S', 'E', 'S', 'S')
#define MERGING_SNAP_VERSION 1
/* The least bytes of a key (key, flag, count, one window) and of a window
 * (start, end, state start) in a snapshot. */
#define MERGING_SNAP_KEY_BYTES (8 + 1 + 8 + 24)
#define MERGING_SNAP_WINDOW_BYTES 24

int
wm_merging_check_result(const struct wm_timer_service *timers, int64_t lateness,
			struct wm_time_window result)
{
	if (wm_ts_add(wm_window_max_timestamp(result), lateness) <=
	    wm_timer_watermark(timers))
		return -ERANGE;
	return 0;
}

void
wm_merging_merge_timers(struct wm_timer_service *timers, int64_t lateness,
			int64_t key, struct wm_time_window result,
			const struct wm_merging_entry *merged, size_t n)
{
	wm_ts_t max_ts = wm_window_max_timestamp(result);

	if (max_ts > wm_timer_watermark(timers))
		(void)wm_timer_add(timers, max_ts, key, result.start);
	for (size_t i = 0; i < n; i++) {
		struct wm_time_window m = merged[i].window;
		wm_ts_t m_max = wm_window_max_timestamp(m);
		wm_ts_t m_cleanup = wm_window_cleanup_time(m_max, lateness);

		(void)wm_timer_delete(timers, m_max, key, m.start);
		if (m_cleanup != WM_TS_MAX)
			(void)wm_timer_delete(timers, m_cleanup, key, m.start);
	}
}

void
wm_merging_snapshot(const struct wm_merging_windows *mw,
		    struct wm_snap_writer *w)
{
	wm_snap_begin(w, MERGING_SNAP_TAG, MERGING_SNAP_VERSION);
	wm_snap_put_u64(w, key_table_count(&mw->keys));
	for (size_t i = 0; key_table_count(&mw->keys) > 0 && i <= mw->keys.mask;
	     i++) {
		const struct merging_slot *s = &mw->keys.slots[i];
		const struct wm_merging_entry *a = slot_windows_const(s);

		if (s->n == 0)
			continue;
		wm_snap_put_i64(w, s->key);
		/* Kept as it was: it says how the next addition sweeps. */
		wm_snap_put_bool(w, s->irregular);
		wm_snap_put_u64(w, s->n);
		for (uint32_t j = 0; j < s->n; j++) {
			wm_snap_put_i64(w, a[j].window.start);
			wm_snap_put_i64(w, a[j].window.end);
			wm_snap_put_i64(w, a[j].state_start);
		}
	}
	wm_snap_end(w);
}

/* One key's windows from the reader into a new slot: 0 or an error. */
static int
restore_key(struct wm_merging_windows *mw, struct wm_snap_reader *r)
{
	int64_t key = wm_snap_get_i64(r);
	bool irregular = wm_snap_get_bool(r);
	uint64_t n = wm_snap_get_count(r, MERGING_SNAP_WINDOW_BYTES);
	struct merging_slot *s;
	struct wm_merging_entry *a;
	size_t idx;

	if (wm_snap_reader_error(r) != 0)
		return wm_snap_reader_error(r);
	if (n == 0 || n > MERGING_MAX_WINDOWS || slot_find(mw, key, &idx))
		return wm_snap_reader_fail(r, -EBADMSG);
	if (!key_table_has_room(&mw->keys, 1)) {
		if (key_table_reserve(&mw->keys, 1) != 0)
			return wm_snap_reader_fail(r, -ENOMEM);
		(void)slot_find(mw, key, &idx);
	}
	s = key_table_insert_at(&mw->keys, idx);
	s->key = key;
	s->n = (uint32_t)n; /* occupied; removed again on any error */
	s->cap = 0;
	s->irregular = irregular;
	if (n > INLINE_WINDOWS) {
		s->u.heap = malloc(n * sizeof(*s->u.heap));
		if (s->u.heap == NULL) {
			key_table_remove_at(&mw->keys, idx);
			return wm_snap_reader_fail(r, -ENOMEM);
		}
		s->cap = (uint32_t)n;
	}
	a = slot_windows(s);
	for (uint64_t j = 0; j < n; j++) {
		a[j].window.start = wm_snap_get_i64(r);
		a[j].window.end = wm_snap_get_i64(r);
		a[j].state_start = wm_snap_get_i64(r);
		if (j > 0 && a[j].window.start < a[j - 1].window.start)
			wm_snap_reader_fail(r, -EBADMSG);
	}
	if (wm_snap_reader_error(r) == 0 && !irregular &&
	    !all_neighbours_apart(a, (size_t)n))
		wm_snap_reader_fail(r, -EBADMSG);
	if (wm_snap_reader_error(r) != 0) {
		if (s->cap != 0)
			free(s->u.heap);
		key_table_remove_at(&mw->keys, idx);
		return wm_snap_reader_error(r);
	}
	mw->windows += n;
	return 0;
}

int
wm_merging_restore(struct wm_merging_windows *mw, struct wm_snap_reader *r)
{
	uint64_t keys;

	if (wm_snap_enter(r, MERGING_SNAP_TAG, MERGING_SNAP_VERSION) != 0)
		return wm_snap_reader_error(r);
	keys = wm_snap_get_count(r, MERGING_SNAP_KEY_BYTES);
	for (uint64_t i = 0; i < keys; i++)
		if (restore_key(mw, r) != 0)
			return wm_snap_reader_error(r);
	return wm_snap_leave(r);
}
