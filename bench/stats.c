/*
 * stats.c
 *	Monotonic clock, median/min/max of repeated measurements, and the
 *	key=value result lines of wmbench.
 */
#include "config.h"

#include <stdlib.h>
#include <time.h>

#include "bench/stats.h"
#include "base/clock.h"

uint64_t
wm_stats_now_ns(void)
{
	return (uint64_t)wm_monotonic_ns();
}

static int
compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct wm_stats
wm_stats_summarize(double *samples, size_t n)
{
	struct wm_stats s;

	qsort(samples, n, sizeof(samples[0]), compare_double);
	s.min = samples[0];
	s.max = samples[n - 1];
	if (n % 2 == 1)
		s.median = samples[n / 2];
	else
		s.median = (samples[n / 2 - 1] + samples[n / 2]) / 2;
	return s;
}

void
wm_stats_print(FILE *out, const char *prefix, const char *metric,
	       const struct wm_stats *stats, const char *suffix)
{
	fprintf(out, "%s metric=%s median=%.3f min=%.3f max=%.3f%s%s\n", prefix,
		metric, stats->median, stats->min, stats->max,
		suffix ? " " : "", suffix ? suffix : "");
}

void
wm_stats_print_ratio(FILE *out, const char *prefix, const char *metric,
		     double ratio)
{
	fprintf(out, "%s metric=%s ratio=%.3f\n", prefix, metric, ratio);
}
