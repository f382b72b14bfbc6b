/*
 * alignment.c
 *	Watermark alignment rules (alignment.h).
 */
#include "config.h"

#include "operators/alignment.h"

bool
wm_alignment_report(wm_ts_t latest, bool idle, bool finished, wm_ts_t *report)
{
	if (finished) {
		*report = WM_TS_MAX;
		return true;
	}
	/* SourceOperator.emitLatestWatermark: nothing while uninitialized,
	 * idle or not. */
	if (latest == WM_TS_MIN)
		return false;
	*report = idle ? WM_TS_MAX : latest;
	return true;
}

wm_ts_t
wm_alignment_max_allowed(wm_ts_t group_min, int64_t drift_ms)
{
	if (group_min > WM_TS_MAX - drift_ms)
		return WM_TS_MAX;
	return group_min + drift_ms;
}
