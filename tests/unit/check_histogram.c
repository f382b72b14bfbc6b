/*
 * check_histogram.c
 *	Unit tests of the log-linear delay histogram: bucket bounds, the
 *	12.5% resolution, and quantiles; the gaps' shape, the same buckets
 *	over a bounded range; the fine shape's 3 significant digits and
 *	nearest-rank quantiles.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lib/histogram.h"
#include "runtime/metrics/metrics.h"
#include "tests/unit/check_main.h"

START_TEST(test_small_values_have_a_bucket_each)
{
	for (int64_t v = 0; v < 8; v++) {
		ck_assert_uint_eq(wm_histogram_bucket(v), (unsigned)v);
		ck_assert_int_eq(wm_histogram_lower((unsigned)v), v);
	}
	ck_assert_uint_eq(wm_histogram_bucket(-5), 0);
}
END_TEST

START_TEST(test_bucket_lower_bound_is_within_an_eighth)
{
	uint64_t x = 12345;

	for (int i = 0; i < 200000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		int64_t v = (int64_t)(x >> (1 + x % 62));
		unsigned b = wm_histogram_bucket(v);
		int64_t lo = wm_histogram_lower(b);

		if (b >= WM_HISTOGRAM_BUCKETS || lo > v ||
		    (double)(v - lo) > (double)v / 8.0 ||
		    (b + 1 < WM_HISTOGRAM_BUCKETS &&
		     wm_histogram_lower(b + 1) <= v))
			ck_abort_msg("value %lld: bucket %u lower %lld",
				     (long long)v, b, (long long)lo);
	}
	ck_assert_uint_eq(wm_histogram_bucket(INT64_MAX),
			  WM_HISTOGRAM_BUCKETS - 1);
}
END_TEST

START_TEST(test_quantiles)
{
	uint64_t counts[WM_HISTOGRAM_BUCKETS] = {0};

	ck_assert_int_eq(wm_histogram_quantile(counts, 0.5), -1);
	for (int64_t v = 1; v <= 100; v++)
		counts[wm_histogram_bucket(v * 1000)]++;
	/* The median of 1000..100000 is 50000 or so; the bucket's lower
	 * bound is at most 12.5% below. */
	int64_t p50 = wm_histogram_quantile(counts, 0.5);
	int64_t p99 = wm_histogram_quantile(counts, 0.99);

	ck_assert_int_le(p50, 50000);
	ck_assert_int_ge(p50, 50000 * 7 / 8 - 1000);
	ck_assert_int_le(p99, 99000);
	ck_assert_int_ge(p99, 99000 * 7 / 8);
}
END_TEST

/* Below 2^22 ms a gap has the bucket, bounds and so percentiles it has in
 * the full shape; above, it falls into the last bucket, which ends at
 * INT64_MAX. */
START_TEST(test_gaps_shape_is_the_full_one_cut_at_its_range)
{
	const struct wm_histogram_shape g = WM_HISTOGRAM_GAPS;
	const int64_t top = (int64_t)1 << 22;
	uint64_t x = 777;

	ck_assert_uint_eq(g.buckets, 160);
	for (int i = 0; i < 200000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		int64_t v = (int64_t)(x >> (1 + x % 62));
		unsigned b = wm_histogram_shape_bucket(g, v);

		if (v < top ? b != wm_histogram_bucket(v) ||
				      wm_histogram_shape_lower(g, b) !=
					      wm_histogram_lower(b)
			    : b != g.buckets - 1)
			ck_abort_msg("gap %lld: bucket %u", (long long)v, b);
	}
	ck_assert_uint_eq(wm_histogram_shape_bucket(g, top - 1), 159);
	ck_assert_uint_eq(wm_histogram_shape_bucket(g, top), 159);
	ck_assert_uint_eq(wm_histogram_shape_bucket(g, INT64_MAX), 159);
	ck_assert_int_eq(wm_histogram_shape_upper(g, 158),
			 wm_histogram_lower(159));
	ck_assert_int_eq(wm_histogram_shape_upper(g, 159), INT64_MAX);
}
END_TEST

/* The summary's shape, HdrHistogram's for 3 significant digits: a value
 * below 2048 has a bucket of its own; above, its bucket's lower bound is
 * within 2^-10 of it (below), the buckets follow one another with no gap,
 * and each lies in one group of 1024, which is one power of two. */
START_TEST(test_fine_shape_keeps_three_significant_digits)
{
	const struct wm_histogram_shape h = WM_HISTOGRAM_FINE;
	uint64_t x = 4242;

	for (int64_t v = 0; v < 2048; v++)
		ck_assert_int_eq(wm_histogram_shape_lower(
					 h, wm_histogram_shape_bucket(h, v)),
				 v);
	for (int i = 0; i < 200000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		int64_t v = (int64_t)(x >> (1 + x % 62));
		unsigned b = wm_histogram_shape_bucket(h, v);
		int64_t lo = wm_histogram_shape_lower(h, b);
		int64_t hi = wm_histogram_shape_upper(h, b);
		unsigned g = b >> WM_HISTOGRAM_FINE_GROUP_BITS;

		if (b >= h.buckets || lo > v || v >= hi ||
		    (v >= 2048 && (double)(v - lo) * 1024.0 > (double)v) ||
		    g >= WM_HISTOGRAM_FINE_GROUPS ||
		    (g > 0 && (lo < (int64_t)1 << (g + 9) ||
			       (g < 53 && v >= (int64_t)1 << (g + 10)))))
			ck_abort_msg("value %lld: bucket %u [%lld, %lld)",
				     (long long)v, b, (long long)lo,
				     (long long)hi);
	}
	for (unsigned b = 0; b + 1 < h.buckets; b++)
		if (wm_histogram_shape_upper(h, b) <=
		    wm_histogram_shape_lower(h, b))
			ck_abort_msg("bucket %u is empty", b);
	ck_assert_uint_eq(wm_histogram_shape_bucket(h, INT64_MAX),
			  h.buckets - 1);
	/* The quick start's fire delays: p50 9000 ms, a multiple of its
	 * bucket's 8 ms, as it is; p99 29400 ms in a bucket 16 ms wide. */
	ck_assert_int_eq(
		wm_histogram_shape_lower(h, wm_histogram_shape_bucket(h, 9000)),
		9000);
	ck_assert_int_eq(wm_histogram_shape_lower(
				 h, wm_histogram_shape_bucket(h, 29400)),
			 29392);
}
END_TEST

static int
compare_int64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Quantiles of the fine shape are the nearest rank's value (the
 * ceil(q N)-th smallest) to its bucket: N random values, sorted, give
 * the same as the counts. */
START_TEST(test_fine_quantiles_are_the_nearest_ranks)
{
	const struct wm_histogram_shape h = WM_HISTOGRAM_FINE;
	const double qs[] = {0.5, 0.99};
	uint64_t *counts = calloc(h.buckets, sizeof(*counts));
	int64_t v[1000];
	uint64_t x = 99;

	ck_assert_ptr_nonnull(counts);
	for (size_t n = 1; n <= 1000; n += 37) {
		memset(counts, 0, h.buckets * sizeof(*counts));
		for (size_t i = 0; i < n; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			v[i] = (int64_t)(x >> (40 + x % 24));
			counts[wm_histogram_shape_bucket(h, v[i])]++;
		}
		qsort(v, n, sizeof(v[0]), compare_int64);
		for (size_t k = 0; k < 2; k++) {
			size_t rank =
				(size_t)((n * (size_t)(qs[k] * 100) + 99) /
					 100);
			int64_t want = wm_histogram_shape_lower(
				h, wm_histogram_shape_bucket(h, v[rank - 1]));

			ck_assert_msg(wm_histogram_shape_quantile(
					      h, counts, qs[k]) == want,
				      "n %zu, q %.2f: %lld, not %lld", n, qs[k],
				      (long long)wm_histogram_shape_quantile(
					      h, counts, qs[k]),
				      (long long)want);
		}
	}
	free(counts);
}
END_TEST

/* A job of 65536 partitions over 4 + 4 subtasks has 8 blocks of 16384
 * partition entries: the entry is what the segment grows by. */
START_TEST(test_a_partitions_metrics_stay_small)
{
	ck_assert_uint_le(sizeof(struct wm_partition_metrics), 1536);
}
END_TEST

static Suite *
histogram_suite(void)
{
	Suite *s = suite_create("histogram");
	TCase *t = tcase_create("histogram");

	tcase_add_test(t, test_small_values_have_a_bucket_each);
	tcase_add_test(t, test_bucket_lower_bound_is_within_an_eighth);
	tcase_add_test(t, test_quantiles);
	tcase_add_test(t, test_gaps_shape_is_the_full_one_cut_at_its_range);
	tcase_add_test(t, test_fine_shape_keeps_three_significant_digits);
	tcase_add_test(t, test_fine_quantiles_are_the_nearest_ranks);
	tcase_add_test(t, test_a_partitions_metrics_stay_small);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	return wm_check_main(histogram_suite());
}
