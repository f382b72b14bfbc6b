/*
 * histogram.h
 *	Log-linear histograms of non-negative durations in milliseconds, for
 *	percentiles merged across processes: each worker fills its own in
 *	its metrics block, the supervisor adds them up.
 *
 * A shape (struct wm_histogram_shape) has 2^sub_bits sub-buckets per
 * power of two: values below 2^sub_bits have a bucket each; above, every
 * power of two is split into 2^sub_bits buckets, so a reported percentile
 * (a bucket's lower bound) is within 2^-sub_bits below the true value.
 * Values beyond the last bucket fall into it: its lower bound is then a
 * bound only, its upper end INT64_MAX.
 *
 * Three shapes, one set of functions: WM_HISTOGRAM, 8 sub-buckets and 488
 * buckets covering every non-negative int64 (fire delays as a live view
 * plots them, disorder, lateness: one a subtask), WM_HISTOGRAM_GAPS, the
 * same 8 sub-buckets up to 2^22 ms (about 70 min) in 160 buckets, one a
 * source partition (metrics.h: a third of the size, and below the range
 * the same buckets, so the same percentiles), and WM_HISTOGRAM_FINE,
 * 1024 sub-buckets over every non-negative int64 in 55,296 buckets (the
 * summary's fire-delay percentiles, one a window subtask). The
 * wm_histogram_*() wrappers without a shape are WM_HISTOGRAM's.
 *
 * WM_HISTOGRAM_FINE is HdrHistogram's layout for 3 significant digits
 * (2048 sub-buckets below 2^11, 1024 a power of two above): every value
 * below 2048 has a bucket of its own, so its percentile is exact, and
 * above, a bucket's lower bound is at most 2^-10 (0.098 %) below any
 * value in it, 8 ms at 9 s, 16 s at 8 h. Its counts take 432 KiB, which
 * is why only window subtasks have one (runtime/plan/plan.h).
 */
#ifndef WM_LIB_HISTOGRAM_H
#define WM_LIB_HISTOGRAM_H

#include <stdatomic.h>
#include <stdint.h>

struct wm_histogram_shape {
	unsigned sub_bits; /* 1..10 */
	unsigned buckets;  /* >= 2^sub_bits */
};

/* Buckets of a shape whose last bucket holds the values below 2^bits
 * (bits > sub_bits) at full resolution. */
#define WM_HISTOGRAM_BUCKETS_BELOW(sub_bits, bits)                             \
	(((bits) - (sub_bits) + 1u) << (sub_bits))

#define WM_HISTOGRAM_BUCKETS 488 /* the bucket of INT64_MAX is the last */
#define WM_HISTOGRAM_GAPS_BUCKETS WM_HISTOGRAM_BUCKETS_BELOW(3u, 22u)
#define WM_HISTOGRAM ((struct wm_histogram_shape){3, WM_HISTOGRAM_BUCKETS})
#define WM_HISTOGRAM_GAPS                                                      \
	((struct wm_histogram_shape){3, WM_HISTOGRAM_GAPS_BUCKETS})

#define WM_HISTOGRAM_FINE_BUCKETS WM_HISTOGRAM_BUCKETS_BELOW(10u, 63u)
#define WM_HISTOGRAM_FINE                                                      \
	((struct wm_histogram_shape){10, WM_HISTOGRAM_FINE_BUCKETS})

_Static_assert(WM_HISTOGRAM_BUCKETS == WM_HISTOGRAM_BUCKETS_BELOW(3u, 63u),
	       "the 488 buckets reach INT64_MAX");
/* WM_HISTOGRAM_FINE's buckets in groups of 1024 (the values below 1024,
 * then each power of two from 2^10 up): group of bucket b, b >> 10. A
 * reader that knows which groups hold counts reads those alone. */
#define WM_HISTOGRAM_FINE_GROUPS 54u
#define WM_HISTOGRAM_FINE_GROUP_BITS 10u

_Static_assert(WM_HISTOGRAM_FINE_BUCKETS ==
		       WM_HISTOGRAM_FINE_GROUPS << WM_HISTOGRAM_FINE_GROUP_BITS,
	       "the fine shape is 54 groups of 1024 buckets");

/* The bucket of `v` (negative counts as 0; beyond the last: the last).
 * No division: a bit scan, two shifts and a mask. */
static inline unsigned
wm_histogram_shape_bucket(struct wm_histogram_shape h, int64_t v)
{
	uint64_t d = v < 0 ? 0 : (uint64_t)v;
	unsigned k, b;

	if (d < (1u << h.sub_bits))
		return (unsigned)d;
	k = 63u - (unsigned)__builtin_clzll(d); /* sub_bits..63 */
	b = ((k - h.sub_bits + 1) << h.sub_bits) |
	    (unsigned)((d >> (k - h.sub_bits)) & ((1u << h.sub_bits) - 1));
	return b < h.buckets ? b : h.buckets - 1;
}

/* The smallest value that falls in bucket `b` by its own range. */
static inline int64_t
wm_histogram_shape_lower(struct wm_histogram_shape h, unsigned b)
{
	unsigned k, m;

	if (b < (1u << h.sub_bits))
		return (int64_t)b;
	k = (b >> h.sub_bits) + h.sub_bits - 1; /* <= 62 */
	m = b & ((1u << h.sub_bits) - 1);
	return (int64_t)((uint64_t)((1u << h.sub_bits) + m)
			 << (k - h.sub_bits));
}

/* The smallest value above bucket `b`: every value in it is below this
 * (INT64_MAX for the last, which holds every value beyond). */
static inline int64_t
wm_histogram_shape_upper(struct wm_histogram_shape h, unsigned b)
{
	return b + 1 < h.buckets ? wm_histogram_shape_lower(h, b + 1)
				 : INT64_MAX;
}

/* The counts of `counts` (h.buckets of them), added up. */
static inline uint64_t
wm_histogram_shape_total(struct wm_histogram_shape h, const uint64_t *counts)
{
	uint64_t total = 0;

	for (unsigned b = 0; b < h.buckets; b++)
		total += counts[b];
	return total;
}

/* The lower bound of the bucket holding the q-th quantile (0 < q <= 1)
 * of `counts`, or -1 if there are none. The q-th quantile is the
 * nearest rank's: of N values, the ceil(q N)-th smallest, so one of the
 * values counted (q N in a double is exact enough: with q = 0.5 or 0.99
 * and N below 2^40 its error is below 1e-5, and 0.99 as a double is
 * below 0.99, so it never passes a whole number). */
static inline int64_t
wm_histogram_shape_quantile(struct wm_histogram_shape h, const uint64_t *counts,
			    double q)
{
	uint64_t total = wm_histogram_shape_total(h, counts), seen = 0;

	if (total == 0)
		return -1;
	for (unsigned b = 0; b < h.buckets; b++) {
		seen += counts[b];
		if ((double)seen >= q * (double)total)
			return wm_histogram_shape_lower(h, b);
	}
	return wm_histogram_shape_lower(h, h.buckets - 1);
}

static inline unsigned
wm_histogram_bucket(int64_t v)
{
	return wm_histogram_shape_bucket(WM_HISTOGRAM, v);
}

static inline int64_t
wm_histogram_lower(unsigned b)
{
	return wm_histogram_shape_lower(WM_HISTOGRAM, b);
}

static inline int64_t
wm_histogram_upper(unsigned b)
{
	return wm_histogram_shape_upper(WM_HISTOGRAM, b);
}

static inline uint64_t
wm_histogram_total(const uint64_t *counts)
{
	return wm_histogram_shape_total(WM_HISTOGRAM, counts);
}

static inline int64_t
wm_histogram_quantile(const uint64_t *counts, double q)
{
	return wm_histogram_shape_quantile(WM_HISTOGRAM, counts, q);
}

#endif /* WM_LIB_HISTOGRAM_H */
