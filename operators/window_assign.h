/*
 * window_assign.h
 *	Time windows and the event-time window assigners: which windows a
 *	record with timestamp ts belongs to (Flink's TimeWindow,
 *	TumblingEventTimeWindows, SlidingEventTimeWindows).
 *
 * A window is the half-open interval [start, end); its last timestamp
 * ("max timestamp") is end - 1. All arithmetic on window bounds is Java's
 * wrapping long arithmetic (wm_ts_add, wm_ts_sub), because Flink computes
 * them that way and the edge cases near WM_TS_MIN and WM_TS_MAX are part of
 * the observable behaviour (doc/semantics.md sections 7.1 and 7.2, case
 * W-12).
 *
 * An assigner is validated once, when it is set up; assignment itself never
 * fails except for a record without a timestamp (WM_TS_MIN), which Flink
 * rejects. Windows come out through an iterator, in Flink's order (sliding:
 * latest start first), so that a record belonging to many sliding windows
 * needs no buffer. Nothing here allocates.
 */
#ifndef WM_OPERATORS_WINDOW_ASSIGN_H
#define WM_OPERATORS_WINDOW_ASSIGN_H

#include <stdbool.h>
#include <stdint.h>

#include "operators/output.h"

/* Flink rejects sliding windows with more than this many slides per size. */
#define WM_WINDOW_MAX_SLIDES_PER_SIZE 10000000

struct wm_time_window {
	wm_ts_t start; /* first timestamp inside */
	wm_ts_t end;   /* first timestamp after; may have wrapped */
};

/* The last timestamp inside the window: end - 1, wrapping like Java. */
static inline wm_ts_t
wm_window_max_timestamp(struct wm_time_window w)
{
	return wm_ts_sub(w.end, 1);
}

/* Whether two windows intersect; touching windows do ([10,20), [20,30)). */
static inline bool
wm_window_intersects(struct wm_time_window a, struct wm_time_window b)
{
	return a.start <= b.end && a.end >= b.start;
}

/* The smallest window covering both. */
static inline struct wm_time_window
wm_window_cover(struct wm_time_window a, struct wm_time_window b)
{
	struct wm_time_window c;

	c.start = a.start < b.start ? a.start : b.start;
	c.end = a.end > b.end ? a.end : b.end;
	return c;
}

/*
 * Flink's WindowOperator.cleanupTime(): a window whose last timestamp is
 * max_ts keeps its state until the watermark reaches max_ts + L (allowed
 * lateness L >= 0), or for ever (WM_TS_MAX) if that overflows. The window
 * is late once its cleanup time is <= the watermark (doc/semantics.md
 * section 7.4).
 */
static inline wm_ts_t
wm_window_cleanup_time(wm_ts_t max_ts, int64_t lateness)
{
	wm_ts_t t = wm_ts_add(max_ts, lateness);

	return t >= max_ts ? t : WM_TS_MAX;
}

/*
 * Start of the window of size `size` (> 0) that contains `ts` when windows
 * are aligned to `offset` (Flink's getWindowStartWithOffset): correct for
 * negative timestamps, wrapping like Java at the extremes.
 */
wm_ts_t wm_window_start_with_offset(wm_ts_t ts, int64_t offset, int64_t size);

enum wm_window_kind {
	WM_WINDOW_TUMBLING = 1,
	WM_WINDOW_SLIDING = 2,
	/* Event-time sessions: merging windows (operators/merging_windows.h). */
	WM_WINDOW_SESSION = 3,
};

/* A validated assigner; set it up with wm_window_tumbling(),
 * wm_window_sliding() or wm_window_session(), then treat it as read-only. */
struct wm_window_assigner {
	enum wm_window_kind kind;
	int64_t size;	/* window length, > 0; the gap for sessions */
	int64_t slide;	/* distance between starts; == size for tumbling and
			 * sessions */
	int64_t offset; /* alignment, |offset| < slide; 0 for sessions */
	uint32_t max_windows; /* most windows one record can belong to */
};

/*
 * Set up a tumbling assigner (Flink's TumblingEventTimeWindows.of(size,
 * offset), aligned stagger). Requires size > 0 and |offset| < size. Returns 0,
 * or -EINVAL with *why set to a message for the user (a static string).
 */
int wm_window_tumbling(struct wm_window_assigner *a, int64_t size,
		       int64_t offset, const char **why);

/*
 * Set up a sliding assigner (Flink's SlidingEventTimeWindows.of(size, slide,
 * offset)). Requires size > 0, slide > 0, |offset| < slide and
 * size / slide <= WM_WINDOW_MAX_SLIDES_PER_SIZE. Returns 0, or -EINVAL with
 * *why set as above.
 */
int wm_window_sliding(struct wm_window_assigner *a, int64_t size, int64_t slide,
		      int64_t offset, const char **why);

/*
 * Set up an event-time session assigner (Flink's
 * EventTimeSessionWindows.withGap(gap)): each record gets [ts, ts + gap),
 * the end wrapping like Java; the window operator merges intersecting
 * windows of a key. Requires gap > 0. Returns 0, or -EINVAL with *why set
 * as above.
 */
int wm_window_session(struct wm_window_assigner *a, int64_t gap,
		      const char **why);

/*
 * What an event-time window operator (window.h, window_join.h) checks of
 * its configuration: `a` set up by one of the three functions above, and
 * an allowed lateness >= 0. Returns 0, or -EINVAL with *why set as above.
 */
int wm_window_check_config(const struct wm_window_assigner *a,
			   int64_t allowed_lateness, const char **why);

/* Where an assignment is; owned by the caller, opaque otherwise. */
struct wm_window_iter {
	wm_ts_t next;  /* start of the next window */
	wm_ts_t bound; /* sliding: starts must be > ts - size */
	int64_t size;
	int64_t slide;
	uint32_t left; /* windows still allowed */
	bool sliding;
};

/*
 * Begin assigning `ts` to windows. Returns 0, or -EINVAL if ts is WM_TS_MIN
 * ("no timestamp": Flink's tumbling and sliding assigners throw; its session
 * assigner does not check, and neither do we: ts = WM_TS_MIN gets
 * [WM_TS_MIN, WM_TS_MIN + gap)). Then call wm_window_next() until it returns
 * false.
 */
int wm_window_assign(const struct wm_window_assigner *a, wm_ts_t ts,
		     struct wm_window_iter *it);

/*
 * Store the next window in *w and return true, or return false when there
 * are no more. Order is Flink's: the single tumbling or session window;
 * sliding windows from the latest start to the earliest.
 */
static inline bool
wm_window_next(struct wm_window_iter *it, struct wm_time_window *w)
{
	wm_ts_t start = it->next;

	if (it->left == 0 || (it->sliding && !(start > it->bound)))
		return false;
	it->left--;
	it->next = wm_ts_sub(start, it->slide);
	/* A start that wraps past WM_TS_MIN ends the loop. Flink would go on
	 * from WM_TS_MAX for about 2^64 / slide rounds; stopping is the only
	 * useful reading. */
	if (it->next > start)
		it->left = 0;
	w->start = start;
	w->end = wm_ts_add(start, it->size);
	return true;
}

#endif /* WM_OPERATORS_WINDOW_ASSIGN_H */
