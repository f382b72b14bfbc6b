/*
 * check_alignment.c
 *	Unit tests of the watermark alignment rules (operators/alignment.h,
 *	doc/semantics.md section 3.7).
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>

#include "operators/alignment.h"
#include "tests/unit/check_main.h"

START_TEST(test_nothing_is_reported_before_a_watermark)
{
	wm_ts_t r = 42;

	/* FLINK-32414: uninitialized, idle or not, sends nothing. */
	ck_assert(!wm_alignment_report(WM_TS_MIN, false, false, &r));
	ck_assert(!wm_alignment_report(WM_TS_MIN, true, false, &r));
	ck_assert_int_eq(r, 42);
}
END_TEST

START_TEST(test_reports_are_the_watermark_or_max)
{
	wm_ts_t r;

	ck_assert(wm_alignment_report(1000, false, false, &r));
	ck_assert_int_eq(r, 1000);
	/* An idle subtask must not hold the group back. */
	ck_assert(wm_alignment_report(1000, true, false, &r));
	ck_assert_int_eq(r, WM_TS_MAX);
	/* Nor a finished one, whatever it emitted. */
	ck_assert(wm_alignment_report(WM_TS_MIN, false, true, &r));
	ck_assert_int_eq(r, WM_TS_MAX);
	ck_assert(wm_alignment_report(5, true, true, &r));
	ck_assert_int_eq(r, WM_TS_MAX);
}
END_TEST

START_TEST(test_max_allowed_adds_the_drift_and_saturates)
{
	ck_assert_int_eq(wm_alignment_max_allowed(1000, 500), 1500);
	ck_assert_int_eq(wm_alignment_max_allowed(-2000, 500), -1500);
	ck_assert_int_eq(wm_alignment_max_allowed(1000, 0), 1000);
	ck_assert_int_eq(wm_alignment_max_allowed(WM_TS_MAX - 10, 11),
			 WM_TS_MAX);
	ck_assert_int_eq(wm_alignment_max_allowed(WM_TS_MAX, 1), WM_TS_MAX);
	ck_assert_int_eq(wm_alignment_max_allowed(WM_TS_MAX - 10, 10),
			 WM_TS_MAX);
}
END_TEST

START_TEST(test_only_a_watermark_above_max_allowed_holds_back)
{
	ck_assert(!wm_alignment_holds_back(1500, 1500));
	ck_assert(wm_alignment_holds_back(1501, 1500));
	ck_assert(!wm_alignment_holds_back(WM_TS_MIN, 1500));
	/* Before the first announcement nothing holds back. */
	ck_assert(!wm_alignment_holds_back(WM_TS_MAX - 1, WM_TS_MAX));
}
END_TEST

static Suite *
alignment_suite(void)
{
	Suite *s = suite_create("alignment");
	TCase *t = tcase_create("alignment");

	tcase_add_test(t, test_nothing_is_reported_before_a_watermark);
	tcase_add_test(t, test_reports_are_the_watermark_or_max);
	tcase_add_test(t, test_max_allowed_adds_the_drift_and_saturates);
	tcase_add_test(t, test_only_a_watermark_above_max_allowed_holds_back);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	return wm_check_main(alignment_suite());
}
