/*
 * clock.h
 *	The real clock of a job: CLOCK_MONOTONIC in nanoseconds. Processing
 *	time is its distance from the job's start times `speed` (worker.c);
 *	the supervisor and --sim also time the run with it.
 */
#ifndef WM_RUNTIME_CLOCK_H
#define WM_RUNTIME_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t
wm_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif /* WM_RUNTIME_CLOCK_H */
