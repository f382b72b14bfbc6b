/*
 * combine.c
 *	Flink's CombinedWatermarkStatus: minimum over non-idle inputs, never
 *	backwards.
 *
 * O(n) per update, as in Flink: a source subtask has few partitions and an
 * operator few logical inputs. The valve, which can have thousands of
 * channels, uses a heap instead.
 */
#include "config.h"

#include <errno.h>

#include "operators/behaviour.h"
#include "operators/combine.h"
#include "lib/snap.h"

void
wm_combined_init(struct wm_combined *c, unsigned behaviour)
{
	c->watermark = WM_TS_MIN;
	c->all_idle = false;
	/* A study policy replaces the flag's rule (behaviour.h). */
	c->flush_max = (behaviour & WM_ALL_IDLE_POLICY) == 0 &&
		       wm_behaviour_has(behaviour, WM_MUX_ALLIDLE_FLUSH_MAX);
	c->flush_end = wm_behaviour_has(behaviour, WM_ALL_IDLE_MAX);
}

bool
wm_combined_update(struct wm_combined *c,
		   struct wm_partial_watermark *const *parts, size_t n)
{
	wm_ts_t min_active = WM_TS_MAX;
	wm_ts_t max_all = WM_TS_MIN;
	bool any_active = false, any_counted = false;

	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct wm_partial_watermark *p = parts[i];

		if (p->watermark > max_all)
			max_all = p->watermark;
		if (p->idle)
			continue;
		any_active = true;
		/* Joining inputs behind the combined value wait (combine.h). */
		if (p->joining && p->watermark < c->watermark)
			continue;
		any_counted = true;
		if (p->watermark < min_active)
			min_active = p->watermark;
	}
	c->all_idle = !any_active;
	wm_ts_t candidate;

	if (!c->all_idle) {
		/* Active but all joining: no minimum, nothing moves. */
		if (!any_counted)
			return false;
		candidate = min_active;
	} else if (c->flush_end) {
		candidate = WM_TS_MAX;
	} else if (c->flush_max) {
		candidate = max_all;
	} else {
		return false; /* Flink released, or WM_ALL_IDLE_HOLD */
	}

	if (candidate <= c->watermark)
		return false;
	c->watermark = candidate;
	return true;
}

#define COMBINED_SNAP_TAG WM_SNAP_TAG('C', 'O', 'M', 'B')
#define COMBINED_SNAP_VERSION 1

void
wm_combined_snapshot(const struct wm_combined *c,
		     struct wm_partial_watermark *const *parts, size_t n,
		     struct wm_snap_writer *w)
{
	wm_snap_begin(w, COMBINED_SNAP_TAG, COMBINED_SNAP_VERSION);
	wm_snap_put_bool(w, c->flush_max);
	wm_snap_put_bool(w, c->flush_end);
	wm_snap_put_i64(w, c->watermark);
	wm_snap_put_bool(w, c->all_idle);
	wm_snap_put_u64(w, n);
	for (size_t i = 0; i < n; i++) {
		wm_snap_put_i64(w, parts[i]->watermark);
		wm_snap_put_bool(w, parts[i]->idle);
		wm_snap_put_bool(w, parts[i]->joining);
	}
	wm_snap_end(w);
}

int
wm_combined_restore(struct wm_combined *c,
		    struct wm_partial_watermark *const *parts, size_t n,
		    struct wm_snap_reader *r)
{
	bool same;
	wm_ts_t watermark;
	bool all_idle;

	if (wm_snap_enter(r, COMBINED_SNAP_TAG, COMBINED_SNAP_VERSION) != 0)
		return wm_snap_reader_error(r);
	same = wm_snap_get_bool(r) == c->flush_max;
	same &= wm_snap_get_bool(r) == c->flush_end;
	watermark = wm_snap_get_i64(r);
	all_idle = wm_snap_get_bool(r);
	same &= wm_snap_get_u64(r) == n;
	if (wm_snap_reader_error(r) == 0 && !same)
		return wm_snap_reader_fail(r, -EINVAL);
	for (size_t i = 0; i < n && wm_snap_reader_error(r) == 0; i++) {
		parts[i]->watermark = wm_snap_get_i64(r);
		parts[i]->idle = wm_snap_get_bool(r);
		parts[i]->joining = wm_snap_get_bool(r);
	}
	if (wm_snap_leave(r) != 0)
		return wm_snap_reader_error(r);
	c->watermark = watermark;
	c->all_idle = all_idle;
	return 0;
}
