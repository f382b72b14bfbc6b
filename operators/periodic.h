/*
 * periodic.h
 *	The schedule of periodic watermark emission, shared by the places
 *	that generate watermarks at a source (source_watermarks.c per
 *	split, subtask_watermarks.c per subtask).
 *
 * Flink reschedules each emission one interval after the previous one
 * ran (a fixed delay, not a fixed rate), and an interval of 0 schedules
 * nothing. Times are monotonic nanoseconds from 0; INT64_MAX = never.
 *
 * Each owner keeps the schedule in two fields of its own: when the next
 * emission is due (INT64_MAX before the start) and whether input reached
 * it since the last one (true before the first). An emission with no
 * input since the last repeats what it sent then, which the owner's
 * output drops, unless one of the owner's timers reaches a change; that
 * is what lets the --sim driver jump over emissions (next_change, skip).
 * Static inline: the owners poll it on the record path.
 */
#ifndef WM_OPERATORS_PERIODIC_H
#define WM_OPERATORS_PERIODIC_H

#include <stdbool.h>
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

/* Whether the emission due at `*next_ns` is due at `now_ns`; if it is,
 * the next one is scheduled one interval after now_ns (Flink registers
 * the next timer at the time the callback ran plus the interval, so a
 * late emission delays all that follow) and the caller runs this one. */
static inline bool
wm_periodic_poll(int64_t *next_ns, int64_t interval_ms, int64_t now_ns)
{
	if (now_ns < *next_ns)
		return false;
	*next_ns = wm_periodic_after(interval_ms, now_ns);
	return true;
}

/* Whether an owner must ask its timers for the next emission that can
 * change anything: not if none is scheduled, nor after input (then the
 * next one due, `next_ns`, can). */
static inline bool
wm_periodic_quiet(int64_t next_ns, bool input_since)
{
	return next_ns != INT64_MAX && !input_since;
}

/* The due time of the first emission from `next_ns` on that can change
 * anything, for a quiet owner whose timers next reach a change at `at`
 * (INT64_MAX: never, and then no emission ever can). */
static inline int64_t
wm_periodic_next_change(int64_t next_ns, int64_t interval_ms, int64_t at)
{
	if (at == INT64_MAX)
		return INT64_MAX;
	return wm_ns_schedule_at_or_after(next_ns, interval_ms, at);
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
