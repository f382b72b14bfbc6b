/*
 * histogram.h
 *	Log-linear histogram of non-negative durations in milliseconds, for
 *	percentiles merged across processes: each worker fills its own in
 *	its metrics block, the supervisor adds them up.
 *
 * Values below 8 have a bucket each; above, every power of two is split
 * into 8 buckets, so a reported percentile is within 12.5% below the
 * true value. 488 buckets cover every non-negative int64.
 */
#ifndef WM_RUNTIME_HISTOGRAM_H
#define WM_RUNTIME_HISTOGRAM_H

#include <stdatomic.h>
#include <stdint.h>

#define WM_HISTOGRAM_BUCKETS 488 /* the bucket of INT64_MAX is the last */

static inline unsigned
wm_histogram_bucket(int64_t v)
{
	uint64_t d = v < 0 ? 0 : (uint64_t)v;
	unsigned k;

	if (d < 8)
		return (unsigned)d;
	k = 63u - (unsigned)__builtin_clzll(d); /* 3..63 */
	return (k - 2) * 8 + (unsigned)((d >> (k - 3)) & 7);
}

/* The smallest value that falls in bucket `b`. */
static inline int64_t
wm_histogram_lower(unsigned b)
{
	unsigned k, m;

	if (b < 8)
		return (int64_t)b;
	k = b / 8 + 2; /* <= 62 */
	m = b % 8;
	return (int64_t)((uint64_t)(8u + m) << (k - 3));
}

/* The smallest value above bucket `b`: every value in it is below this
 * (INT64_MAX for the last, which holds INT64_MAX itself). */
static inline int64_t
wm_histogram_upper(unsigned b)
{
	return b + 1 < WM_HISTOGRAM_BUCKETS ? wm_histogram_lower(b + 1)
					    : INT64_MAX;
}

/* The counts of `counts`, added up. */
static inline uint64_t
wm_histogram_total(const uint64_t *counts)
{
	uint64_t total = 0;

	for (unsigned b = 0; b < WM_HISTOGRAM_BUCKETS; b++)
		total += counts[b];
	return total;
}

/* The lower bound of the bucket holding the q-th quantile (0 < q <= 1)
 * of `n` counts, or -1 if there are none. */
static inline int64_t
wm_histogram_quantile(const uint64_t *counts, double q)
{
	uint64_t total = wm_histogram_total(counts), seen = 0;

	if (total == 0)
		return -1;
	for (unsigned b = 0; b < WM_HISTOGRAM_BUCKETS; b++) {
		seen += counts[b];
		if ((double)seen >= q * (double)total)
			return wm_histogram_lower(b);
	}
	return wm_histogram_lower(WM_HISTOGRAM_BUCKETS - 1);
}

#endif /* WM_RUNTIME_HISTOGRAM_H */
