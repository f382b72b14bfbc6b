/*
 * stats.h
 *	Timing and summary statistics shared by the wmbench benchmarks.
 *
 * Every benchmark repeats a measurement R times and reports the median,
 * the minimum and the maximum of the R samples, as one line of key=value
 * pairs that scripts can grep and compare:
 *
 *	<prefix> metric=<name> median=X min=Y max=Z
 *	<prefix> metric=<name> ratio=X
 *
 * where <prefix> names the benchmark and its parameters
 * ("bench=valve channels=256 impl=heap"). Targets are ratios measured in
 * one run (doc/performance.md section 1), so the ratio line exists for
 * that.
 *
 * No state is kept between calls; the functions are safe from any thread.
 */
#ifndef WM_BENCH_STATS_H
#define WM_BENCH_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Median, minimum and maximum of a set of samples. */
struct wm_stats {
	double median;
	double min;
	double max;
};

/* CLOCK_MONOTONIC in nanoseconds: for intervals only, never for dates. */
uint64_t wm_stats_now_ns(void);

/*
 * Summarize n >= 1 samples. Sorts samples[] in place (pass a copy if the
 * order matters); the median of an even count is the mean of the middle
 * two.
 */
struct wm_stats wm_stats_summarize(double *samples, size_t n);

/* Print "<prefix> metric=<metric> median=X min=Y max=Z[ <suffix>]\n" with
 * three decimals; suffix (NULL for none) adds context such as "probe_ns=P". */
void wm_stats_print(FILE *out, const char *prefix, const char *metric,
		    const struct wm_stats *stats, const char *suffix);

/* Print "<prefix> metric=<metric> ratio=X\n" with three decimals. */
void wm_stats_print_ratio(FILE *out, const char *prefix, const char *metric,
			  double ratio);

#endif /* WM_BENCH_STATS_H */
