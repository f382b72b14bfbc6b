/*
 * check_histogram.c
 *	Unit tests of the log-linear delay histogram: bucket bounds, the
 *	12.5% resolution, and quantiles.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>

#include "runtime/metrics/histogram.h"
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

static Suite *
histogram_suite(void)
{
	Suite *s = suite_create("histogram");
	TCase *t = tcase_create("histogram");

	tcase_add_test(t, test_small_values_have_a_bucket_each);
	tcase_add_test(t, test_bucket_lower_bound_is_within_an_eighth);
	tcase_add_test(t, test_quantiles);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	return wm_check_main(histogram_suite());
}
