/*
 * time.h
 *	Event time and processing time, as every layer counts them.
 *
 * Time is Java's: signed 64-bit milliseconds. WM_TS_MIN doubles as Flink's
 * "no timestamp" and "no watermark yet"; WM_TS_MAX is the end-of-time
 * watermark that a finished bounded source sends. Flink computes on these
 * values with Java's wrapping arithmetic in a few places (window starts,
 * cleanup times); wm_ts_add() and wm_ts_sub() reproduce that without
 * relying on undefined signed overflow in C.
 *
 * Nothing here allocates or performs I/O; base/ depends on nothing.
 */
#ifndef WM_BASE_TIME_H
#define WM_BASE_TIME_H

#include <stdint.h>

typedef int64_t wm_ts_t;

#define WM_TS_MIN INT64_MIN
#define WM_TS_MAX INT64_MAX
/* A day of milliseconds: the live view's and the origin's unit. */
#define WM_MS_PER_DAY ((int64_t)24 * 60 * 60 * 1000)

/*
 * Processing time is int64 nanoseconds from 0 (the job's start); durations
 * are configured in milliseconds. Both conversions saturate at INT64_MAX,
 * which every user reads as "never": a duration beyond about 292 years
 * does not wrap into the past. Arguments are >= 0.
 */
static inline int64_t
wm_ms_to_ns(int64_t ms)
{
	return ms > INT64_MAX / 1000000 ? INT64_MAX : ms * 1000000;
}

/* now_ns plus ms milliseconds. */
static inline int64_t
wm_ns_after_ms(int64_t now_ns, int64_t ms)
{
	return ms > (INT64_MAX - now_ns) / 1000000 ? INT64_MAX
						   : now_ns + ms * 1000000;
}

/*
 * A fixed-delay schedule run on time is next_ns, then one period after each
 * run: next_ns + k x period. The first of its times at or after at_ns
 * (next_ns itself if at_ns <= next_ns); INT64_MAX once past the end of
 * time, where wm_ns_after_ms() saturates too. next_ns >= 0, period_ms > 0
 * unless next_ns is INT64_MAX.
 */
static inline int64_t
wm_ns_schedule_at_or_after(int64_t next_ns, int64_t period_ms, int64_t at_ns)
{
	int64_t period_ns, k;

	if (at_ns <= next_ns)
		return next_ns;
	period_ns = wm_ms_to_ns(period_ms);
	k = (at_ns - next_ns - 1) / period_ns + 1;
	return k > (INT64_MAX - next_ns) / period_ns ? INT64_MAX
						     : next_ns + k * period_ns;
}

/* Java long addition and subtraction: two's complement wrap-around. */
static inline wm_ts_t
wm_ts_add(wm_ts_t a, int64_t b)
{
	return (wm_ts_t)((uint64_t)a + (uint64_t)b);
}

static inline wm_ts_t
wm_ts_sub(wm_ts_t a, int64_t b)
{
	return (wm_ts_t)((uint64_t)a - (uint64_t)b);
}

#endif /* WM_BASE_TIME_H */
