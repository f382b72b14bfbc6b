/*
 * merging_windows.h
 *	The in-flight merging (session) windows of every key (Flink's
 *	MergingWindowSet, one per key, plus TimeWindow.mergeWindows()).
 *
 * Per key, a set of windows, each mapped to its "state window": the
 * original window in whose namespace the merged window's contents stay, so
 * that a merge moves the contents of the absorbed state windows into one
 * and never re-keys the survivor (doc/semantics.md section 7.10). The
 * window operator keys its state table by (key, state window start) and its
 * timers by (key, window start).
 *
 * Adding a window does what Flink's addWindow() does: take the set plus the
 * new window, sort by start (the new window after existing ones with the
 * same start), sweep, and merge every run of windows that intersect the
 * running cover (touching windows intersect). For each run of two or more
 * windows the merge callback gets the cover, the existing windows of the
 * run (never the new one: it has no state) and the state window chosen for
 * the cover, except when the new window lies inside one existing window,
 * which is then simply the result (Flink skips the callback there too).
 *
 * Representation: a hash table (open addressing, linear probing, no
 * tombstones) from key to a slot holding the key's windows sorted by start,
 * inline for up to two windows, else in a heap array. A key whose set
 * empties loses its slot. With ordinary windows, neighbours in start order
 * never intersect, so the sweep only needs to look at the new window's
 * neighbourhood: a binary search and at most two memmoves per addition.
 * Windows whose ends wrap past WM_TS_MAX can break that ("irregular" set);
 * such a key is swept in full on every addition, as Flink always does.
 *
 * Deviations from Flink, unobservable by the window operator: the state
 * window of a merge is that of the existing window with the lowest start
 * (Flink takes the first of a HashSet); a new window equal to an existing
 * one is that window (Flink remaps it to itself, which differs only for
 * windows that wrap around the end of time).
 *
 * Nothing here is an error on the fast path; growth failure is -ENOMEM
 * with nothing changed. Used by one thread only; no locking.
 */
#ifndef WM_OPERATORS_MERGING_WINDOWS_H
#define WM_OPERATORS_MERGING_WINDOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "operators/output.h"
#include "operators/window_assign.h"

/* One in-flight window and the start of its state window. */
struct wm_merging_entry {
	struct wm_time_window window;
	wm_ts_t state_start;
};

/*
 * What the owner does about merges; see wm_merging_add(). `check` may be
 * NULL. Neither may call into the set.
 */
struct wm_merging_callbacks {
	/* Veto a merge into `result` (Flink's merge function throwing):
	 * return a negative errno to abandon the addition unchanged. */
	int (*check)(void *ctx, int64_t key, struct wm_time_window result);
	/*
	 * Windows merged[0 .. n) (n >= 1, in start order, entries still in
	 * the set) merge into `result`, whose state window starts at
	 * `state_start` (the state window of one of them): move the state
	 * of the others' state windows there, clear their triggers.
	 */
	void (*merge)(void *ctx, int64_t key, struct wm_time_window result,
		      const struct wm_merging_entry *merged, size_t n,
		      wm_ts_t state_start);
	void *ctx;
};

struct wm_merging_windows;

/* An empty set of sets; NULL with errno ENOMEM. */
struct wm_merging_windows *wm_merging_new(void);
void wm_merging_free(struct wm_merging_windows *mw);

/*
 * Add `window` to the windows of `key` (Flink's addWindow()). Calls
 * cb->check for every merge about to happen, then, if none objected,
 * cb->merge for each, and stores in *actual the window the new one ended up
 * in (itself, a merge result, or an existing window containing it) with its
 * state window. Returns 0, -ENOMEM (nothing changed, no callback) or the
 * error of cb->check (nothing changed).
 */
int wm_merging_add(struct wm_merging_windows *mw, int64_t key,
		   struct wm_time_window window,
		   const struct wm_merging_callbacks *cb,
		   struct wm_merging_entry *actual);

/*
 * Find the in-flight window of `key` starting at `start` (the namespace
 * of a timer); false if there is none (Flink's getStateWindow() == null).
 */
bool wm_merging_find(const struct wm_merging_windows *mw, int64_t key,
		     wm_ts_t start, struct wm_merging_entry *entry);

/* Remove `window` of `key` (Flink's retireWindow()); false if it was not
 * in the set, which Flink treats as a bug. */
bool wm_merging_retire(struct wm_merging_windows *mw, int64_t key,
		       struct wm_time_window window);

/* In-flight windows of all keys, and keys with at least one. */
size_t wm_merging_count(const struct wm_merging_windows *mw);
size_t wm_merging_key_count(const struct wm_merging_windows *mw);

/*
 * Copy up to `cap` windows of `key`, in start order, to out[]; returns how
 * many the key has. For tests and debugging.
 */
size_t wm_merging_windows_of(const struct wm_merging_windows *mw, int64_t key,
			     struct wm_merging_entry *out, size_t cap);

/*
 * What an event-time window operator does about its timers on a merge, as
 * Flink's merge function in WindowOperator.processElement() does it, for
 * timers (timer.h) whose namespace is the window start and an allowed
 * lateness L >= 0 (doc/semantics.md section 7.10). Both operators that
 * merge windows (window.c, window_join.c) call these from their
 * callbacks.
 */
struct wm_timer_service;

/*
 * The merge function's precondition, for cb->check: `result`'s maxTs + L,
 * computed with Java's wrap-around, must be above the timers' watermark;
 * else -ERANGE (Flink throws UnsupportedOperationException and the job
 * fails). A merge result covers windows that are not late, so only an
 * overflowing maxTs + L (a huge lateness) fails it. 0 otherwise.
 */
int wm_merging_check_result(const struct wm_timer_service *timers,
			    int64_t lateness, struct wm_time_window result);

/*
 * The merge's timers, for cb->merge: EventTimeTrigger.onMerge() sets the
 * trigger timer of `result` at its maxTs if that is above the watermark,
 * then each of merged[0 .. n) loses its trigger timer (trigger.clear())
 * and its cleanup timer (deleteCleanupTimer()). Needs room for one timer
 * (wm_timer_reserve()).
 */
void wm_merging_merge_timers(struct wm_timer_service *timers, int64_t lateness,
			     int64_t key, struct wm_time_window result,
			     const struct wm_merging_entry *merged, size_t n);

struct wm_snap_writer;
struct wm_snap_reader;

/* Write every key's windows, with their state windows, as a section of
 * the snapshot; errors are the writer's. */
void wm_merging_snapshot(const struct wm_merging_windows *mw,
			 struct wm_snap_writer *w);

/*
 * Fill `mw` (empty, as a new set is) from a section written by
 * wm_merging_snapshot(): 0, or the reader's error: -EBADMSG for a blob
 * no set could have written (a key twice, a key without windows, windows
 * out of start order, two of one key that intersect in a set marked
 * regular), -ENOMEM. On error `mw` holds part of it: free it.
 */
int wm_merging_restore(struct wm_merging_windows *mw, struct wm_snap_reader *r);

#endif /* WM_OPERATORS_MERGING_WINDOWS_H */
