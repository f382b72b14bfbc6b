/*
 * sweep_progress.h
 *	How far a sweep is, for the person waiting on it: runs done of all,
 *	and the time left at the pace so far.
 *
 * A line "wmrun: --sweep: D of N runs done, T so far, about L left" on
 * the given stream as runs end: after every run where runs are long
 * (real jobs, one after another), at most once every `every_ns` where
 * they are short (--sim, several at once), and a last line "N of N runs
 * done in T" when lines were said before it. The time left is the time
 * so far over the runs done, times the runs left: runs of one sweep
 * differ in their settings, not their length, more often than not.
 *
 * Pure: the clock comes in as arguments (CLOCK_MONOTONIC nanoseconds).
 */
#ifndef WM_RUNTIME_STUDY_SWEEP_PROGRESS_H
#define WM_RUNTIME_STUDY_SWEEP_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct wm_sweep_progress {
	FILE *out; /* NULL: says nothing */
	size_t runs, done;
	int64_t start_ns, every_ns;
	int64_t said_ns; /* when the last line was said; -1: none yet */
};

/* A sweep of `runs` runs starting at now_ns, a line at most every
 * every_ns (0: after each run) into out (NULL: none). */
void wm_sweep_progress_start(struct wm_sweep_progress *p, FILE *out,
			     size_t runs, int64_t now_ns, int64_t every_ns);

/* A run ended at now_ns. */
void wm_sweep_progress_run_done(struct wm_sweep_progress *p, int64_t now_ns);

#endif /* WM_RUNTIME_STUDY_SWEEP_PROGRESS_H */
