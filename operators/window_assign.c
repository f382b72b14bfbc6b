/*
 * window_assign.c
 *	Window start computation and the tumbling, sliding and session
 *	assigners.
 *
 * Validation follows Flink's constructors, with one difference: Flink tests
 * Math.abs(offset) >= size, and Math.abs(Long.MIN_VALUE) is negative, so
 * Flink lets offset = Long.MIN_VALUE through (and with size <= 0 fails later
 * with a division by zero). We compare magnitudes exactly and reject it.
 */
#include "config.h"

#include <errno.h>

#include "operators/window_assign.h"

/* |offset| < limit for limit > 0, without negating WM_TS_MIN. */
static bool
offset_within(int64_t offset, int64_t limit)
{
	return offset < limit && offset > -limit;
}

wm_ts_t
wm_window_start_with_offset(wm_ts_t ts, int64_t offset, int64_t size)
{
	/* C's % truncates toward zero like Java's, so the remainder has the
	 * sign of the (wrapped) dividend; size > 0 rules out INT64_MIN % -1. */
	int64_t r = wm_ts_sub(ts, offset) % size;

	if (r < 0)
		return wm_ts_sub(ts, r + size);
	return wm_ts_sub(ts, r);
}

int
wm_window_tumbling(struct wm_window_assigner *a, int64_t size, int64_t offset,
		   const char **why)
{
	if (size <= 0) {
		*why = "invalid tumbling window size: must be positive";
		return -EINVAL;
	}
	if (!offset_within(offset, size)) {
		*why = "invalid tumbling window offset: its absolute value "
		       "must "
		       "be less than the window size";
		return -EINVAL;
	}
	a->kind = WM_WINDOW_TUMBLING;
	a->size = size;
	a->slide = size;
	a->offset = offset;
	a->max_windows = 1;
	return 0;
}

int
wm_window_sliding(struct wm_window_assigner *a, int64_t size, int64_t slide,
		  int64_t offset, const char **why)
{
	if (size <= 0) {
		*why = "invalid sliding window size: must be positive";
		return -EINVAL;
	}
	if (slide <= 0) {
		*why = "invalid sliding window slide: must be positive";
		return -EINVAL;
	}
	if (!offset_within(offset, slide)) {
		*why = "invalid sliding window offset: its absolute value must "
		       "be less than the slide";
		return -EINVAL;
	}
	if (size / slide > WM_WINDOW_MAX_SLIDES_PER_SIZE) {
		*why = "invalid sliding window: the size must not exceed "
		       "10000000 slides";
		return -EINVAL;
	}
	a->kind = WM_WINDOW_SLIDING;
	a->size = size;
	a->slide = slide;
	a->offset = offset;
	/* ceil(size / slide) <= 10000001 fits; no more starts can lie in
	 * (ts - size, ts] without wrapping. */
	a->max_windows = (uint32_t)(size / slide + (size % slide != 0));
	return 0;
}

int
wm_window_session(struct wm_window_assigner *a, int64_t gap, const char **why)
{
	if (gap <= 0) {
		*why = "invalid session window gap: must be positive";
		return -EINVAL;
	}
	a->kind = WM_WINDOW_SESSION;
	a->size = gap;
	a->slide = gap;
	a->offset = 0;
	a->max_windows = 1;
	return 0;
}

int
wm_window_check_config(const struct wm_window_assigner *a,
		       int64_t allowed_lateness, const char **why)
{
	if ((a->kind != WM_WINDOW_TUMBLING && a->kind != WM_WINDOW_SLIDING &&
	     a->kind != WM_WINDOW_SESSION) ||
	    a->size <= 0 || a->slide <= 0 || a->max_windows == 0) {
		*why = "invalid window assigner: not set up";
		return -EINVAL;
	}
	if (allowed_lateness < 0) {
		*why = "invalid allowed lateness: must not be negative";
		return -EINVAL;
	}
	return 0;
}

int
wm_window_assign(const struct wm_window_assigner *a, wm_ts_t ts,
		 struct wm_window_iter *it)
{
	if (a->kind == WM_WINDOW_SESSION) {
		/* EventTimeSessionWindows: [ts, ts + gap), no check of ts. */
		it->next = ts;
		it->bound = ts;
		it->size = a->size;
		it->slide = a->size;
		it->left = 1;
		it->sliding = false;
		return 0;
	}
	if (ts == WM_TS_MIN)
		return -EINVAL;
	it->next = wm_window_start_with_offset(ts, a->offset, a->slide);
	it->size = a->size;
	it->slide = a->slide;
	it->left = a->max_windows;
	it->sliding = a->kind == WM_WINDOW_SLIDING;
	/* Flink's loop bound, wrapped like Java: when ts - size wraps to a
	 * large value Flink assigns no window at all, and so do we. */
	it->bound = wm_ts_sub(ts, a->size);
	return 0;
}
