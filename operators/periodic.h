/*
 * periodic.h
 *	The schedule of periodic watermark emission, shared by the places
 *	that generate watermarks at a source (source_watermarks.c per
 *	split, subtask_watermarks.c per subtask).
 *
 * Flink reschedules each emission one interval after the previous one
 * ran (a fixed delay, not a fixed rate), and an interval of 0 schedules
 * nothing. Times are monotonic nanoseconds from 0; INT64_MAX = never.
 */
#ifndef WM_OPERATORS_PERIODIC_H
#define WM_OPERATORS_PERIODIC_H

#include <stdint.h>

#include "base/time.h"

/* The emission after one that ran at `now_ns`: now + interval,
 * saturating (one after the end of time never comes); never with
 * interval 0. */
static inline int64_t
wm_periodic_after(int64_t interval_ms, int64_t now_ns)
{
	return interval_ms == 0 ? INT64_MAX
				: wm_ns_after_ms(now_ns, interval_ms);
}

/* Where the schedule stands at `now_ns` if the emissions due before it
 * count as run on time: unchanged unless `next_ns` is before now_ns and
 * the first emission that can change anything (`next_change`) is not;
 * then the first of the schedule at or after now_ns. */
static inline int64_t
wm_periodic_skip(int64_t next_ns, int64_t interval_ms, int64_t next_change,
		 int64_t now_ns)
{
	if (next_ns >= now_ns || next_change < now_ns)
		return next_ns;
	return wm_ns_schedule_at_or_after(next_ns, interval_ms, now_ns);
}

#endif /* WM_OPERATORS_PERIODIC_H */
