/*
 * clock.h
 *	The real clock: CLOCK_MONOTONIC in nanoseconds, the same in every
 *	process of a job. Waits are timed with it (wait.c), the job's start
 *	line is read on it (shm.h), and processing time is its distance from
 *	that start times `speed` (runtime/run/worker.c). The wall clock is
 *	read only to place a real run's processing time on the epoch
 *	(wm_wall_ms_at()), for event time that is epoch time.
 */
#ifndef WM_BASE_CLOCK_H
#define WM_BASE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t
wm_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The wall-clock time (CLOCK_REALTIME, milliseconds since the epoch) at
 * the monotonic instant `mono_ns`: now on the wall clock less how long ago
 * it was on the monotonic one, so that a wall clock stepped since does not
 * move an instant already taken. */
static inline int64_t
wm_wall_ms_at(int64_t mono_ns)
{
	struct timespec wall;
	int64_t ago_ns = wm_monotonic_ns() - mono_ns;

	clock_gettime(CLOCK_REALTIME, &wall);
	return ((int64_t)wall.tv_sec * 1000000000 + wall.tv_nsec - ago_ns) /
	       1000000;
}

/*
 * `ns` times `factor` (a job's speed, or its inverse), saturated to the
 * int64 range. Processing time is real time times the speed: at speed 1e9
 * it passes INT64_MAX nanoseconds after 9 s, and a cast of a double past
 * the range is undefined (it gave INT64_MIN: a clock gone backwards, and
 * every later record late). Saturated, time stops at the end of time.
 */
static inline int64_t
wm_scale_ns(int64_t ns, double factor)
{
	double x = (double)ns * factor;

	/* 2^63 is exact in a double; anything at or past it does not fit. */
	if (!(x < 9223372036854775808.0))
		return INT64_MAX;
	if (x < -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)x;
}

#endif /* WM_BASE_CLOCK_H */
