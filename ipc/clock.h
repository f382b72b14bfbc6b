/*
 * clock.h
 *	The real clock: CLOCK_MONOTONIC in nanoseconds, the same in every
 *	process of a job. Waits are timed with it (wait.c), the job's start
 *	line is read on it (shm.h), and processing time is its distance from
 *	that start times `speed` (runtime/worker.c).
 */
#ifndef WM_IPC_CLOCK_H
#define WM_IPC_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t
wm_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif /* WM_IPC_CLOCK_H */
