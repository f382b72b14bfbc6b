/*
 * schedstat.h
 *	How long a process waited for a CPU: the kernel's run delay, the
 *	second figure of /proc/PID/schedstat (ns runnable but not running),
 *	for a worker's own stall accounting and for the observer, which
 *	reads every worker's while the worker itself cannot (a process that
 *	is not scheduled publishes nothing, least of all that it waits).
 */
#ifndef WM_BASE_SCHEDSTAT_H
#define WM_BASE_SCHEDSTAT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* /proc/PID/schedstat (0: this process's, /proc/self) opened to be read
 * again and again; -1 where the kernel has none (no CONFIG_SCHEDSTATS,
 * /proc not mounted, the process gone). */
int wm_schedstat_open(pid_t pid);

/* Its run delay now into *waited_ns: one pread, a few microseconds.
 * False, *waited_ns untouched, if it could not be read. */
bool wm_schedstat_read(int fd, int64_t *waited_ns);

#endif /* WM_BASE_SCHEDSTAT_H */
