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
	c->flush_max = wm_behaviour_has(behaviour, WM_MUX_ALLIDLE_FLUSH_MAX);
}

bool
wm_combined_update(struct wm_combined *c,
		   struct wm_partial_watermark *const *parts, size_t n)
{
	wm_ts_t min_active = WM_TS_MAX;
	wm_ts_t max_all = WM_TS_MIN;
	bool any_active = false;

	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct wm_partial_watermark *p = parts[i];

		if (p->watermark > max_all)
			max_all = p->watermark;
		if (!p->idle) {
			any_active = true;
			if (p->watermark < min_active)
				min_active = p->watermark;
		}
	}
	c->all_idle = !any_active;
	if (c->all_idle && !c->flush_max)
		return false;
	wm_ts_t candidate = c->all_idle ? max_all : min_active;

	if (candidate <= c->watermark)
		return false;
	c->watermark = candidate;
	return true;
}
