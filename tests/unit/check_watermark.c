/*
 * check_watermark.c
 *	Unit tests of the generators and of idleness (flink-semantics.md §1,
 *	cases G-1..G-14), including the timeout boundary and the rejection of
 *	zero and negative idle timeouts.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "operators/behaviour.h"
#include "operators/idle.h"
#include "operators/watermark.h"
#include "tests/unit/recorder.h"
#include "tests/unit/check_main.h"

#define MS(x) ((int64_t)(x)*WM_IDLE_NS_PER_MS)

static struct wm_watermark_generator
make(enum wm_watermark_kind kind, int64_t bound, int64_t idle_ms,
     unsigned behaviour)
{
	struct wm_watermark_strategy s = {
		.kind = kind,
		.out_of_orderness_ms = bound,
		.with_idleness = idle_ms != 0,
		.idle_timeout_ms = idle_ms,
		.behaviour = behaviour,
	};
	struct wm_watermark_generator g;

	ck_assert_int_eq(wm_watermark_init(&g, &s), 0);
	return g;
}

static struct recorder rec;

static void
setup(void)
{
	recorder_init(&rec);
}

static void
events(struct wm_watermark_generator *g, const wm_ts_t *ts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		wm_watermark_on_event(g, ts[i], 0, &rec.out);
}

START_TEST(test_bounded_first_watermark_is_min)
{
	/* G-1 */
	struct wm_watermark_generator g =
		make(WM_WATERMARK_BOUNDED, 10, 0, WM_BEHAVIOUR_RELEASED);

	wm_watermark_on_periodic(&g, MS(1), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(MIN)");
}
END_TEST

START_TEST(test_bounded_subtracts_bound_and_one)
{
	/* G-2, G-3, G-4 */
	struct wm_watermark_generator g =
		make(WM_WATERMARK_BOUNDED, 10, 0, WM_BEHAVIOUR_RELEASED);
	const wm_ts_t g3[] = {12345, 12300, 12340, 12280};

	events(&g, (wm_ts_t[]){1337}, 1);
	ck_assert_str_eq(recorder_take(&rec), ""); /* events never emit */
	wm_watermark_on_periodic(&g, MS(1), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(1326)");

	g = make(WM_WATERMARK_BOUNDED, 10, 0, WM_BEHAVIOUR_RELEASED);
	events(&g, g3, 4);
	wm_watermark_on_periodic(&g, MS(1), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(12334)");

	g = make(WM_WATERMARK_BOUNDED, 10, 0, WM_BEHAVIOUR_RELEASED);
	events(&g, (wm_ts_t[]){723456}, 1);
	wm_watermark_on_periodic(&g, MS(1), &rec.out);
	wm_watermark_on_periodic(&g, MS(2), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(723445) W(723445)");
}
END_TEST

START_TEST(test_ascending_is_max_minus_one)
{
	/* G-5, G-6, G-7 */
	struct wm_watermark_generator g =
		make(WM_WATERMARK_ASCENDING, 0, 0, WM_BEHAVIOUR_RELEASED);

	wm_watermark_on_periodic(&g, MS(1), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(MIN)");
	events(&g, (wm_ts_t[]){1337}, 1);
	wm_watermark_on_periodic(&g, MS(2), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(1336)");
	g = make(WM_WATERMARK_ASCENDING, 0, 0, WM_BEHAVIOUR_RELEASED);
	events(&g, (wm_ts_t[]){12345, 12340}, 2);
	wm_watermark_on_periodic(&g, MS(1), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(12344)");
}
END_TEST

START_TEST(test_bounded_handles_extreme_timestamps)
{
	struct wm_watermark_generator g =
		make(WM_WATERMARK_BOUNDED, 1000, 0, WM_BEHAVIOUR_RELEASED);

	events(&g, (wm_ts_t[]){WM_TS_MIN}, 1);
	wm_watermark_on_periodic(&g, MS(1), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(MIN)");
	events(&g, (wm_ts_t[]){WM_TS_MAX}, 1);
	wm_watermark_on_periodic(&g, MS(2), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(9223372036854774806)");
}
END_TEST

START_TEST(test_punctuated_emits_at_once_and_never_periodically)
{
	struct wm_watermark_generator g =
		make(WM_WATERMARK_PUNCTUATED, 0, 0, WM_BEHAVIOUR_RELEASED);

	wm_watermark_on_event(&g, 100, 0, &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "");
	wm_watermark_on_event(&g, 150, WM_RECORD_PUNCTUATE, &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(150)");
	wm_watermark_on_periodic(&g, MS(1), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "");
}
END_TEST

START_TEST(test_invalid_strategies_are_rejected)
{
	struct wm_watermark_strategy s = {.kind = WM_WATERMARK_BOUNDED,
					  .out_of_orderness_ms = -1};
	struct wm_watermark_generator g;
	const char *why = NULL;

	ck_assert_int_eq(wm_watermark_strategy_check(&s, &why), -EINVAL);
	ck_assert_ptr_nonnull(why);
	ck_assert_int_eq(wm_watermark_init(&g, &s), -EINVAL);
	s = (struct wm_watermark_strategy){.kind = WM_WATERMARK_ASCENDING,
					   .out_of_orderness_ms = 5};
	ck_assert_int_eq(wm_watermark_init(&g, &s), -EINVAL);
}
END_TEST

START_TEST(test_zero_or_negative_idle_timeout_is_rejected)
{
	/* G-8: withIdleness(0) and withIdleness(-1) are errors. */
	struct wm_watermark_strategy s = {.kind = WM_WATERMARK_BOUNDED,
					  .with_idleness = true};
	struct wm_watermark_generator g;
	struct wm_idle_timer t;
	const char *why = NULL;

	s.idle_timeout_ms = 0;
	ck_assert_int_eq(wm_watermark_strategy_check(&s, &why), -EINVAL);
	ck_assert_int_eq(wm_watermark_init(&g, &s), -EINVAL);
	s.idle_timeout_ms = -1;
	ck_assert_int_eq(wm_watermark_init(&g, &s), -EINVAL);
	ck_assert_int_eq(wm_idle_init(&t, 0), -EINVAL);
	ck_assert_int_eq(wm_idle_init(&t, -1), -EINVAL);
	ck_assert_int_eq(wm_idle_init(&t, 1), 0);
}
END_TEST

START_TEST(test_idle_timer_flink_cases)
{
	struct wm_idle_timer t;
	int64_t now = MS(1000);

	/* G-9 */
	wm_idle_init(&t, 10);
	ck_assert(!wm_idle_check(&t, now));
	/* G-10: the countdown starts at that first quiet probe. */
	now += MS(11);
	ck_assert(wm_idle_check(&t, now));
	/* G-12 */
	wm_idle_activity(&t);
	ck_assert(!wm_idle_check(&t, now));

	/* G-11: stays idle, no re-anchoring. */
	wm_idle_init(&t, 122);
	ck_assert(!wm_idle_check(&t, now));
	now += MS(123);
	ck_assert(wm_idle_check(&t, now));
	ck_assert(wm_idle_check(&t, now));
	now += MS(100);
	ck_assert(wm_idle_check(&t, now));

	/* G-13: idle, activity, active, anchor, idle again. */
	wm_idle_activity(&t);
	ck_assert(!wm_idle_check(&t, now));
	ck_assert(!wm_idle_check(&t, now));
	now += MS(123);
	ck_assert(wm_idle_check(&t, now));
}
END_TEST

START_TEST(test_idle_timeout_boundary_is_strict)
{
	/* G-14: timeout 10 ms, probes every 5 ms, one record at t=4: probe
	 * 5 sees it, 10 anchors, 20 is exactly 10 ms (not idle), 25 idle. */
	struct wm_watermark_generator g =
		make(WM_WATERMARK_NONE, 0, 10, WM_BEHAVIOUR_RELEASED);

	wm_watermark_on_event(&g, 4, 0, &rec.out);
	for (int t = 5; t <= 20; t += 5) {
		wm_watermark_on_periodic(&g, MS(t), &rec.out);
		ck_assert_msg(strcmp(recorder_take(&rec), "") == 0,
			      "idle too early at t=%d", t);
	}
	wm_watermark_on_periodic(&g, MS(25), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "IDLE");
}
END_TEST

START_TEST(test_idle_timer_ignores_a_clock_read_backwards)
{
	/* Timeout 10 ms: the countdown starts at the quiet probe at 100 ms;
	 * a reading of 50 ms (a clock read out of order) is no time passed,
	 * not the wrapped-around eternity an unsigned difference makes it. */
	struct wm_idle_timer t;

	ck_assert_int_eq(wm_idle_init(&t, 10), 0);
	wm_idle_activity(&t);
	ck_assert(!wm_idle_check(&t, MS(90)));
	ck_assert(!wm_idle_check(&t, MS(100)));
	ck_assert(!wm_idle_check(&t, MS(50)));
	ck_assert(!wm_idle_check(&t, MS(110)));
	ck_assert(wm_idle_check(&t, MS(111)));
}
END_TEST

START_TEST(test_idle_generator_is_silent_and_marks_idle_once)
{
	struct wm_watermark_generator g =
		make(WM_WATERMARK_BOUNDED, 0, 100, WM_BEHAVIOUR_RELEASED);

	wm_watermark_on_event(&g, 50, 0, &rec.out);
	wm_watermark_on_periodic(&g, MS(100), &rec.out); /* activity */
	wm_watermark_on_periodic(&g, MS(200), &rec.out); /* anchor */
	wm_watermark_on_periodic(&g, MS(300), &rec.out); /* == 100: no */
	ck_assert_str_eq(recorder_take(&rec), "W(49) W(49) W(49)");
	wm_watermark_on_periodic(&g, MS(301), &rec.out);
	wm_watermark_on_periodic(&g, MS(400), &rec.out);
	/* No watermark while idle, and IDLE only once. */
	ck_assert_str_eq(recorder_take(&rec), "IDLE");
	/* A record ends idleness at the next probe, via a watermark only:
	 * the wrapper never sends ACTIVE itself. */
	wm_watermark_on_event(&g, 60, 0, &rec.out);
	wm_watermark_on_periodic(&g, MS(500), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(59)");
}
END_TEST

START_TEST(test_idle_mark_repeats_without_mark_once_flag)
{
	/* Before FLINK-28975 markIdle was sent on every idle probe. */
	struct wm_watermark_generator g = make(WM_WATERMARK_BOUNDED, 0, 100, 0);

	wm_watermark_on_periodic(&g, MS(100), &rec.out); /* anchor */
	ck_assert_str_eq(recorder_take(&rec), "W(MIN)");
	wm_watermark_on_periodic(&g, MS(201), &rec.out);
	wm_watermark_on_periodic(&g, MS(300), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "IDLE IDLE");
}
END_TEST

START_TEST(test_countdown_started_at_clock_zero_is_forgotten)
{
	/* Flink encodes "no countdown" as start 0 (clock_zero_quirk.source). */
	struct wm_idle_timer t;

	wm_idle_init(&t, 10);
	ck_assert(!wm_idle_check(&t, 0));      /* anchor at 0 = none */
	ck_assert(!wm_idle_check(&t, MS(20))); /* anchors now */
	ck_assert(!wm_idle_check(&t, MS(30)));
	ck_assert(wm_idle_check(&t, MS(31)));
}
END_TEST

static Suite *
watermark_suite(void)
{
	Suite *s = suite_create("watermark");
	TCase *gen = tcase_create("generators");
	TCase *idle = tcase_create("idleness");

	tcase_add_checked_fixture(gen, setup, NULL);
	tcase_add_checked_fixture(idle, setup, NULL);
	tcase_add_test(gen, test_bounded_first_watermark_is_min);
	tcase_add_test(gen, test_bounded_subtracts_bound_and_one);
	tcase_add_test(gen, test_ascending_is_max_minus_one);
	tcase_add_test(gen, test_bounded_handles_extreme_timestamps);
	tcase_add_test(gen,
		       test_punctuated_emits_at_once_and_never_periodically);
	tcase_add_test(gen, test_invalid_strategies_are_rejected);
	tcase_add_test(idle, test_zero_or_negative_idle_timeout_is_rejected);
	tcase_add_test(idle, test_idle_timer_flink_cases);
	tcase_add_test(idle, test_idle_timeout_boundary_is_strict);
	tcase_add_test(idle, test_idle_timer_ignores_a_clock_read_backwards);
	tcase_add_test(idle, test_idle_generator_is_silent_and_marks_idle_once);
	tcase_add_test(idle, test_idle_mark_repeats_without_mark_once_flag);
	tcase_add_test(idle, test_countdown_started_at_clock_zero_is_forgotten);
	suite_add_tcase(s, gen);
	suite_add_tcase(s, idle);
	return s;
}

int
main(void)
{
	return wm_check_main(watermark_suite());
}
