/*
 * check_window_assign.c
 *	Unit tests of time windows and the tumbling, sliding and session
 *	assigners (operators/window_assign.c): conformance cases W-13 to W-20
 *	of doc/semantics.md section 10.6, plus the edges of time.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>

#include "operators/window_assign.h"
#include "tests/unit/check_main.h"

/* Collect all windows of ts; returns how many (at most cap). */
static int
assign_all(const struct wm_window_assigner *a, wm_ts_t ts,
	   struct wm_time_window *out, int cap)
{
	struct wm_window_iter it;
	struct wm_time_window w;
	int n = 0;

	ck_assert_int_eq(wm_window_assign(a, ts, &it), 0);
	while (wm_window_next(&it, &w)) {
		ck_assert_int_lt(n, cap);
		out[n++] = w;
	}
	return n;
}

/* Assert ts gets exactly the windows starting at starts[] (in that order)
 * with the assigner's size. */
static void
expect_windows(const struct wm_window_assigner *a, wm_ts_t ts,
	       const int64_t *starts, int n)
{
	struct wm_time_window got[64];
	int m = assign_all(a, ts, got, 64);

	ck_assert_msg(m == n, "ts %lld: %d windows, expected %d", (long long)ts,
		      m, n);
	for (int i = 0; i < n; i++) {
		ck_assert_msg(got[i].start == starts[i] &&
				      got[i].end == starts[i] + a->size,
			      "ts %lld window %d: [%lld,%lld), expected "
			      "[%lld,%lld)",
			      (long long)ts, i, (long long)got[i].start,
			      (long long)got[i].end, (long long)starts[i],
			      (long long)(starts[i] + a->size));
	}
}

static void
expect_tumbling(const struct wm_window_assigner *a, wm_ts_t ts, int64_t start)
{
	expect_windows(a, ts, &start, 1);
}

/* ---- tcase time_window ---- */

START_TEST(test_start_with_offset_handles_negative_timestamps)
{
	/* W-13, size 7. */
	static const int64_t off0[][2] = {{-8, -14}, {-7, -7}, {-6, -7},
					  {-1, -7},  {1, 0},   {6, 0},
					  {7, 7},    {8, 7}};
	static const int64_t off3[][2] = {
		{-10, -11}, {-9, -11}, {-3, -4}, {-2, -4}, {-1, -4},
		{1, -4},    {2, -4},   {3, 3},	 {9, 3},   {10, 10}};
	static const int64_t offm2[][2] = {
		{-12, -16}, {-7, -9}, {-4, -9}, {-3, -9}, {-2, -2}, {-1, -2},
		{1, -2},    {2, -2},  {3, -2},	{4, -2},  {7, 5},   {12, 12}};

	for (size_t i = 0; i < sizeof(off0) / sizeof(off0[0]); i++)
		ck_assert_int_eq(wm_window_start_with_offset(off0[i][0], 0, 7),
				 off0[i][1]);
	for (size_t i = 0; i < sizeof(off3) / sizeof(off3[0]); i++)
		ck_assert_int_eq(wm_window_start_with_offset(off3[i][0], 3, 7),
				 off3[i][1]);
	for (size_t i = 0; i < sizeof(offm2) / sizeof(offm2[0]); i++)
		ck_assert_int_eq(
			wm_window_start_with_offset(offm2[i][0], -2, 7),
			offm2[i][1]);
}
END_TEST

START_TEST(test_start_with_offset_for_utc_plus_8_day)
{
	/* W-14. */
	ck_assert_int_eq(wm_window_start_with_offset(1470902048450LL,
						     -28800000LL, 86400000LL),
			 1470844800000LL);
}
END_TEST

START_TEST(test_start_with_offset_wraps_like_java_at_extremes)
{
	/* MAX - 1750 lies in [MAX - 1807, MAX - 807) for size 1000 (W-12). */
	ck_assert_int_eq(wm_window_start_with_offset(WM_TS_MAX - 1750, 0, 1000),
			 WM_TS_MAX - 1807);
	/* MIN % 1000 = -808 in Java: the start would be below MIN, so it
	 * wraps to MIN - (-808 + 1000) = MAX - 191. */
	ck_assert_int_eq(wm_window_start_with_offset(WM_TS_MIN, 0, 1000),
			 WM_TS_MAX - 191);
}
END_TEST

START_TEST(test_touching_windows_intersect)
{
	/* W-15. */
	struct wm_time_window a = {10, 20};

	ck_assert(wm_window_intersects(a, a));
	ck_assert(wm_window_intersects(a, (struct wm_time_window){20, 30}));
	ck_assert(!wm_window_intersects(a, (struct wm_time_window){21, 30}));
	ck_assert(wm_window_intersects(a, (struct wm_time_window){19, 22}));
	ck_assert(wm_window_intersects((struct wm_time_window){19, 22}, a));
	ck_assert(!wm_window_intersects((struct wm_time_window){0, 9}, a));
}
END_TEST

START_TEST(test_cover_spans_both_windows)
{
	struct wm_time_window c;

	c = wm_window_cover((struct wm_time_window){10, 20},
			    (struct wm_time_window){15, 30});
	ck_assert_int_eq(c.start, 10);
	ck_assert_int_eq(c.end, 30);
	c = wm_window_cover((struct wm_time_window){-5, 0},
			    (struct wm_time_window){-20, -10});
	ck_assert_int_eq(c.start, -20);
	ck_assert_int_eq(c.end, 0);
}
END_TEST

START_TEST(test_max_timestamp_is_end_minus_one_wrapping)
{
	ck_assert_int_eq(
		wm_window_max_timestamp((struct wm_time_window){0, 2000}),
		1999);
	ck_assert_int_eq(wm_window_max_timestamp(
				 (struct wm_time_window){-1000, WM_TS_MIN}),
			 WM_TS_MAX);
}
END_TEST

/* ---- tcase tumbling ---- */

START_TEST(test_tumbling_assigns_one_aligned_window)
{
	struct wm_window_assigner a;
	const char *why = NULL;

	/* W-16. */
	ck_assert_int_eq(wm_window_tumbling(&a, 5000, 0, &why), 0);
	expect_tumbling(&a, 0, 0);
	expect_tumbling(&a, 4999, 0);
	expect_tumbling(&a, 5000, 5000);
	expect_tumbling(&a, -1, -5000);

	ck_assert_int_eq(wm_window_tumbling(&a, 5000, 100, &why), 0);
	expect_tumbling(&a, 100, 100);
	expect_tumbling(&a, 5099, 100);
	expect_tumbling(&a, 5100, 5100);

	ck_assert_int_eq(wm_window_tumbling(&a, 5000, -100, &why), 0);
	expect_tumbling(&a, 0, -100);
	expect_tumbling(&a, 4899, -100);
	expect_tumbling(&a, 4900, 4900);

	ck_assert_int_eq(wm_window_tumbling(&a, 5000, 1000, &why), 0);
	expect_tumbling(&a, 1000, 1000);
	expect_tumbling(&a, 5999, 1000);
	expect_tumbling(&a, 6000, 6000);
	ck_assert_ptr_null(why);
}
END_TEST

START_TEST(test_tumbling_rejects_invalid_parameters)
{
	struct wm_window_assigner a;
	const char *why;

	/* W-17. */
	why = NULL;
	ck_assert_int_eq(wm_window_tumbling(&a, -1000, 0, &why), -EINVAL);
	ck_assert_ptr_nonnull(why);
	why = NULL;
	ck_assert_int_eq(wm_window_tumbling(&a, 10000, 20000, &why), -EINVAL);
	ck_assert_ptr_nonnull(why);
	why = NULL;
	ck_assert_int_eq(wm_window_tumbling(&a, 10000, -11000, &why), -EINVAL);
	ck_assert_ptr_nonnull(why);
	/* The limits themselves. */
	ck_assert_int_eq(wm_window_tumbling(&a, 0, 0, &why), -EINVAL);
	ck_assert_int_eq(wm_window_tumbling(&a, 10, 10, &why), -EINVAL);
	ck_assert_int_eq(wm_window_tumbling(&a, 10, -10, &why), -EINVAL);
	ck_assert_int_eq(wm_window_tumbling(&a, 10, WM_TS_MIN, &why), -EINVAL);
	ck_assert_int_eq(wm_window_tumbling(&a, 10, 9, &why), 0);
	ck_assert_int_eq(wm_window_tumbling(&a, 10, -9, &why), 0);
}
END_TEST

START_TEST(test_record_without_timestamp_is_rejected)
{
	struct wm_window_assigner a;
	struct wm_window_iter it;
	const char *why;

	ck_assert_int_eq(wm_window_tumbling(&a, 1000, 0, &why), 0);
	ck_assert_int_eq(wm_window_assign(&a, WM_TS_MIN, &it), -EINVAL);
	ck_assert_int_eq(wm_window_sliding(&a, 1000, 100, 0, &why), 0);
	ck_assert_int_eq(wm_window_assign(&a, WM_TS_MIN, &it), -EINVAL);
	/* One millisecond later is a valid timestamp. */
	ck_assert_int_eq(wm_window_assign(&a, WM_TS_MIN + 1, &it), 0);
}
END_TEST

START_TEST(test_tumbling_window_end_wraps_past_max)
{
	struct wm_window_assigner a;
	struct wm_time_window w[2];
	const char *why;

	ck_assert_int_eq(wm_window_tumbling(&a, 1000, 0, &why), 0);
	/* MAX % 1000 = 807: the window starting at MAX - 807 ends past MAX,
	 * which Java wraps to MIN + 192. */
	ck_assert_int_eq(assign_all(&a, WM_TS_MAX - 5, w, 2), 1);
	ck_assert_int_eq(w[0].start, WM_TS_MAX - 807);
	ck_assert_int_eq(w[0].end, WM_TS_MIN + 192);
	ck_assert_int_eq(wm_window_max_timestamp(w[0]), WM_TS_MIN + 191);
}
END_TEST

/* ---- tcase sliding ---- */

START_TEST(test_sliding_assigns_latest_start_first)
{
	struct wm_window_assigner a;
	const char *why;

	/* W-18. */
	ck_assert_int_eq(wm_window_sliding(&a, 5000, 1000, 0, &why), 0);
	ck_assert_uint_eq(a.max_windows, 5);
	expect_windows(&a, 0, (int64_t[]){0, -1000, -2000, -3000, -4000}, 5);
	expect_windows(&a, 4999, (int64_t[]){4000, 3000, 2000, 1000, 0}, 5);
	expect_windows(&a, 5000, (int64_t[]){5000, 4000, 3000, 2000, 1000}, 5);
}
END_TEST

START_TEST(test_sliding_honours_offset)
{
	struct wm_window_assigner a;
	const char *why;

	/* W-19. */
	ck_assert_int_eq(wm_window_sliding(&a, 5000, 1000, 100, &why), 0);
	expect_windows(&a, 100, (int64_t[]){100, -900, -1900, -2900, -3900}, 5);
	expect_windows(&a, 5100, (int64_t[]){5100, 4100, 3100, 2100, 1100}, 5);
	ck_assert_int_eq(wm_window_sliding(&a, 5000, 1000, -100, &why), 0);
	expect_windows(&a, 0, (int64_t[]){-100, -1100, -2100, -3100, -4100}, 5);
	expect_windows(&a, 4900, (int64_t[]){4900, 3900, 2900, 1900, 900}, 5);
}
END_TEST

START_TEST(test_sliding_size_not_multiple_of_slide)
{
	struct wm_window_assigner a;
	const char *why;

	/* size 5, slide 2: ceil(5/2) = 3 windows at most, fewer at some
	 * timestamps. */
	ck_assert_int_eq(wm_window_sliding(&a, 5, 2, 0, &why), 0);
	ck_assert_uint_eq(a.max_windows, 3);
	expect_windows(&a, 0, (int64_t[]){0, -2, -4}, 3);
	expect_windows(&a, 1, (int64_t[]){0, -2}, 2);
	expect_windows(&a, -1, (int64_t[]){-2, -4}, 2);
	expect_windows(&a, -2, (int64_t[]){-2, -4, -6}, 3);
}
END_TEST

START_TEST(test_sliding_rejects_invalid_parameters)
{
	struct wm_window_assigner a;
	const char *why;

	/* W-20. */
	why = NULL;
	ck_assert_int_eq(wm_window_sliding(&a, -2000, 1000, 0, &why), -EINVAL);
	ck_assert_ptr_nonnull(why);
	why = NULL;
	ck_assert_int_eq(wm_window_sliding(&a, 2000, -1000, 0, &why), -EINVAL);
	ck_assert_ptr_nonnull(why);
	why = NULL;
	ck_assert_int_eq(wm_window_sliding(&a, -20000, 10000, -1000, &why),
			 -EINVAL);
	ck_assert_ptr_nonnull(why);
	why = NULL;
	ck_assert_int_eq(wm_window_sliding(&a, 20000, 10000, -11000, &why),
			 -EINVAL);
	ck_assert_ptr_nonnull(why);
	why = NULL;
	ck_assert_int_eq(wm_window_sliding(&a, 20000, 10000, 11000, &why),
			 -EINVAL);
	ck_assert_ptr_nonnull(why);
	ck_assert_int_eq(wm_window_sliding(&a, 1000, 0, 0, &why), -EINVAL);
	ck_assert_int_eq(wm_window_sliding(&a, 20000, 10000, 10000, &why),
			 -EINVAL);
	ck_assert_int_eq(wm_window_sliding(&a, 20000, 10000, 9999, &why), 0);
}
END_TEST

START_TEST(test_sliding_limits_slides_per_size)
{
	struct wm_window_assigner a;
	const char *why = NULL;

	ck_assert_int_eq(wm_window_sliding(&a, 10000000, 1, 0, &why), 0);
	ck_assert_uint_eq(a.max_windows, 10000000);
	ck_assert_int_eq(wm_window_sliding(&a, 10000001, 1, 0, &why), -EINVAL);
	ck_assert_ptr_nonnull(why);
}
END_TEST

START_TEST(test_sliding_near_min_wraps_like_java)
{
	struct wm_window_assigner a;
	struct wm_time_window w[8];
	const char *why;

	ck_assert_int_eq(wm_window_sliding(&a, 3000, 1000, 0, &why), 0);
	/* ts - size wraps to a huge value, so Flink's loop never runs
	 * (MIN % 1000 = -808: the start MIN + 808 itself does not wrap). */
	ck_assert_int_eq(assign_all(&a, WM_TS_MIN + 813, w, 8), 0);
	/* Here the start wraps too (MIN + 5 - 197), to just below MAX, and
	 * Java's loop runs over three windows up there. */
	ck_assert_int_eq(assign_all(&a, WM_TS_MIN + 5, w, 8), 3);
	ck_assert_int_eq(w[0].start, WM_TS_MAX - 191);
	ck_assert_int_eq(w[1].start, WM_TS_MAX - 1191);
	ck_assert_int_eq(w[2].start, WM_TS_MAX - 2191);
	/* Far enough from MIN, the usual windows. */
	ck_assert_int_eq(assign_all(&a, WM_TS_MIN + 10000, w, 8), 3);
}
END_TEST

/* ---- tcase session ---- */

START_TEST(test_session_assigns_ts_to_ts_plus_gap)
{
	struct wm_window_assigner a;
	struct wm_time_window w[2];
	const char *why;

	ck_assert_int_eq(wm_window_session(&a, 3000, &why), 0);
	ck_assert_int_eq(a.kind, WM_WINDOW_SESSION);
	ck_assert_int_eq(assign_all(&a, 1000, w, 2), 1);
	ck_assert_int_eq(w[0].start, 1000);
	ck_assert_int_eq(w[0].end, 4000);
	ck_assert_int_eq(assign_all(&a, -1, w, 2), 1);
	ck_assert_int_eq(w[0].start, -1);
	ck_assert_int_eq(w[0].end, 2999);
	/* Not aligned: every timestamp starts its own window. */
	ck_assert_int_eq(assign_all(&a, 1001, w, 2), 1);
	ck_assert_int_eq(w[0].start, 1001);
}
END_TEST

START_TEST(test_session_rejects_gap_not_positive)
{
	struct wm_window_assigner a;
	const char *why;

	why = NULL;
	ck_assert_int_eq(wm_window_session(&a, 0, &why), -EINVAL);
	ck_assert_ptr_nonnull(why);
	why = NULL;
	ck_assert_int_eq(wm_window_session(&a, -3000, &why), -EINVAL);
	ck_assert_ptr_nonnull(why);
	ck_assert_int_eq(wm_window_session(&a, WM_TS_MIN, &why), -EINVAL);
	ck_assert_int_eq(wm_window_session(&a, 1, &why), 0);
	ck_assert_int_eq(wm_window_session(&a, WM_TS_MAX, &why), 0);
}
END_TEST

START_TEST(test_session_window_wraps_like_java)
{
	struct wm_window_assigner a;
	struct wm_time_window w[2];
	const char *why;

	ck_assert_int_eq(wm_window_session(&a, 10, &why), 0);
	ck_assert_int_eq(assign_all(&a, WM_TS_MAX - 5, w, 2), 1);
	ck_assert_int_eq(w[0].start, WM_TS_MAX - 5);
	ck_assert_int_eq(w[0].end, WM_TS_MIN + 4);
	/* EventTimeSessionWindows does not reject the "no timestamp"
	 * marker: it is a timestamp like any other there. */
	ck_assert_int_eq(assign_all(&a, WM_TS_MIN, w, 2), 1);
	ck_assert_int_eq(w[0].start, WM_TS_MIN);
	ck_assert_int_eq(w[0].end, WM_TS_MIN + 10);
}
END_TEST

static Suite *
window_assign_suite(void)
{
	Suite *s = suite_create("window_assign");
	TCase *tc;

	tc = tcase_create("time_window");
	tcase_add_test(tc, test_start_with_offset_handles_negative_timestamps);
	tcase_add_test(tc, test_start_with_offset_for_utc_plus_8_day);
	tcase_add_test(tc, test_start_with_offset_wraps_like_java_at_extremes);
	tcase_add_test(tc, test_touching_windows_intersect);
	tcase_add_test(tc, test_cover_spans_both_windows);
	tcase_add_test(tc, test_max_timestamp_is_end_minus_one_wrapping);
	suite_add_tcase(s, tc);

	tc = tcase_create("tumbling");
	tcase_add_test(tc, test_tumbling_assigns_one_aligned_window);
	tcase_add_test(tc, test_tumbling_rejects_invalid_parameters);
	tcase_add_test(tc, test_record_without_timestamp_is_rejected);
	tcase_add_test(tc, test_tumbling_window_end_wraps_past_max);
	suite_add_tcase(s, tc);

	tc = tcase_create("session");
	tcase_add_test(tc, test_session_assigns_ts_to_ts_plus_gap);
	tcase_add_test(tc, test_session_rejects_gap_not_positive);
	tcase_add_test(tc, test_session_window_wraps_like_java);
	suite_add_tcase(s, tc);

	tc = tcase_create("sliding");
	tcase_add_test(tc, test_sliding_assigns_latest_start_first);
	tcase_add_test(tc, test_sliding_honours_offset);
	tcase_add_test(tc, test_sliding_size_not_multiple_of_slide);
	tcase_add_test(tc, test_sliding_rejects_invalid_parameters);
	tcase_add_test(tc, test_sliding_limits_slides_per_size);
	tcase_add_test(tc, test_sliding_near_min_wraps_like_java);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(window_assign_suite());
}
