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

#include "operators/behaviour.h"
#include "operators/combine.h"

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
