/*
 * noise.h
 *	Which watermark stalls of a real run are its scheduler's doing, not
 *	its data's: the stall length within a run's scheduling noise at its
 *	speed, for the stall accounting (runtime/engine/progress.h), the
 *	summary and a live view alike.
 *
 * A real run's processing time is real time times [job] speed, so every
 * real millisecond a worker does not run is `speed` milliseconds in which
 * its watermark cannot move: at speed 2000, two seconds. Most of that the
 * kernel counts, as the worker's run delay (its time runnable but not
 * running, "waiting for a CPU"), and a stall is charged what its process
 * waited over it. What no count sees is bounded by WM_NOISE_REAL_NS of
 * real time:
 *
 *   2 ms   the worker reads its run delay at most once a millisecond,
 *          before its work (runtime/run/worker.c), so a stall's charge can
 *          miss up to 1 ms at its start and 1 ms at its end;
 *   2 ms   as much again for what no counter covers: a sleeping worker's
 *          timer firing late (timer slack, interrupts), and the time from
 *          its clock reading to its work.
 *
 * A stall of S ns of processing time whose process waited W ns of real
 * time for a CPU over it is within the noise when what the wait does not
 * explain, S - W x speed, is at most WM_NOISE_REAL_NS x speed: such a stall
 * is no finding, and is counted apart. A stall of a job on an idle machine
 * is noise if it is shorter than WM_NOISE_REAL_NS x speed (8 s at speed
 * 2000, below the default 10 s stall threshold); on a loaded one, however
 * long it is, if its process's wait explains it. --sim has no scheduler:
 * no noise at all.
 *
 * Pure and static inline: no state, no I/O.
 */
#ifndef WM_RUNTIME_NOISE_H
#define WM_RUNTIME_NOISE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/clock.h"

/* Real time a worker can lose to the machine without its run delay
 * showing it (the derivation above). */
#define WM_NOISE_REAL_NS 4000000

/* The processing time within a real run's scheduling noise at `speed`
 * (> 0): WM_NOISE_REAL_NS scaled, saturated. */
static inline int64_t
wm_noise_ns(double speed)
{
	return wm_scale_ns(WM_NOISE_REAL_NS, speed);
}

/* Whether a stall of `stall_ns` of processing time, over which its
 * process waited `cpu_wait_ns` of real time for a CPU, is within the
 * scheduling noise of a real run at `speed` (> 0). */
static inline bool
wm_noise_stall(int64_t stall_ns, int64_t cpu_wait_ns, double speed)
{
	int64_t waited = wm_scale_ns(cpu_wait_ns, speed);

	return waited >= stall_ns || stall_ns - waited <= wm_noise_ns(speed);
}

#endif /* WM_RUNTIME_NOISE_H */
