/*
 * check_multi_input.c
 *	Unit tests of the combination of an operator's logical inputs
 *	(doc/semantics.md section 6.2, cases T-1 and T-2), each input fed by its
 *	own valve, and of behaviour-flag parsing.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "operators/behaviour.h"
#include "operators/multi_input.h"
#include "operators/valve.h"
#include "tests/unit/recorder.h"
#include "tests/unit/check_main.h"

static struct recorder rec;

static void
setup(void)
{
	recorder_init(&rec);
}

static void
in_wm(struct wm_multi_input *mi, int i, wm_ts_t w)
{
	wm_output_watermark(wm_multi_input_port(mi, (size_t)i), w);
}

static void
in_status(struct wm_multi_input *mi, int i, enum wm_status s)
{
	wm_output_status(wm_multi_input_port(mi, (size_t)i), s);
}

START_TEST(test_two_inputs_minimum_and_idle_flush_rules)
{
	/* T-1, released and with WM_MUX_ALLIDLE_FLUSH_MAX. */
	for (int flag = 0; flag < 2; flag++) {
		struct wm_multi_input mi;

		ck_assert_int_eq(
			wm_multi_input_init(
				&mi, 2, &rec.out,
				WM_BEHAVIOUR_RELEASED |
					(flag ? WM_MUX_ALLIDLE_FLUSH_MAX : 0)),
			0);
		in_wm(&mi, 0, 5);
		ck_assert_str_eq(recorder_take(&rec), "");
		in_wm(&mi, 1, 3);
		ck_assert_str_eq(recorder_take(&rec), "W(3)");
		in_status(&mi, 1, WM_STATUS_IDLE);
		ck_assert_str_eq(recorder_take(&rec), "W(5)");
		in_status(&mi, 0, WM_STATUS_IDLE);
		/* max(5, 3) = 5 is not above 5: IDLE alone either way */
		ck_assert_str_eq(recorder_take(&rec), "IDLE");
		in_status(&mi, 1, WM_STATUS_ACTIVE);
		ck_assert_str_eq(recorder_take(&rec), "ACTIVE");
		ck_assert_int_eq(wm_multi_input_combined(&mi), 5);
		wm_multi_input_destroy(&mi);
	}
}
END_TEST

START_TEST(test_reactivated_input_holds_back_unlike_valve)
{
	/* T-2 */
	struct wm_multi_input mi;

	wm_multi_input_init(&mi, 2, &rec.out, WM_BEHAVIOUR_RELEASED);
	in_wm(&mi, 0, 10);
	in_wm(&mi, 1, 7);
	ck_assert_str_eq(recorder_take(&rec), "W(7)");
	in_status(&mi, 1, WM_STATUS_IDLE);
	ck_assert_str_eq(recorder_take(&rec), "W(10)");
	in_status(&mi, 1, WM_STATUS_ACTIVE);
	ck_assert_str_eq(recorder_take(&rec), ""); /* operator never idle */
	in_wm(&mi, 0, 12);
	ck_assert_str_eq(recorder_take(&rec), ""); /* input 1 at 7 holds */
	in_wm(&mi, 1, 11);
	ck_assert_str_eq(recorder_take(&rec), "W(11)");
	ck_assert_int_eq(wm_multi_input_watermark(&mi, 0), 12);
	ck_assert_int_eq(wm_multi_input_watermark(&mi, 1), 11);
	wm_multi_input_destroy(&mi);
}
END_TEST

START_TEST(test_all_idle_flush_max_with_flag)
{
	struct wm_multi_input mi;

	wm_multi_input_init(&mi, 2, &rec.out, WM_BEHAVIOUR_MASTER);
	in_wm(&mi, 0, 10);
	in_wm(&mi, 1, 4);
	in_status(&mi, 1, WM_STATUS_IDLE);
	in_wm(&mi, 0, 20);
	in_status(&mi, 0, WM_STATUS_IDLE);
	ck_assert_str_eq(recorder_take(&rec), "W(4) W(10) W(20) IDLE");
	wm_multi_input_destroy(&mi);

	/* Flag on, inputs idle at different heights: the maximum flushes. */
	wm_multi_input_init(&mi, 2, &rec.out, WM_BEHAVIOUR_MASTER);
	in_wm(&mi, 0, 10);
	in_wm(&mi, 1, 4);
	in_status(&mi, 0, WM_STATUS_IDLE);
	in_status(&mi, 1, WM_STATUS_IDLE);
	ck_assert_str_eq(recorder_take(&rec), "W(4) W(10) IDLE");
	wm_multi_input_destroy(&mi);

	/* Flink 2.1 has no flush; 2.3, the released default, has it. */
	wm_multi_input_init(&mi, 2, &rec.out, WM_BEHAVIOUR_FLINK_2_1);
	in_wm(&mi, 0, 10);
	in_wm(&mi, 1, 4);
	in_status(&mi, 0, WM_STATUS_IDLE);
	in_status(&mi, 1, WM_STATUS_IDLE);
	ck_assert_str_eq(recorder_take(&rec), "W(4) IDLE");
	wm_multi_input_destroy(&mi);

	wm_multi_input_init(&mi, 2, &rec.out, WM_BEHAVIOUR_RELEASED);
	in_wm(&mi, 0, 10);
	in_wm(&mi, 1, 4);
	in_status(&mi, 0, WM_STATUS_IDLE);
	in_status(&mi, 1, WM_STATUS_IDLE);
	ck_assert_str_eq(recorder_take(&rec), "W(4) W(10) IDLE");
	wm_multi_input_destroy(&mi);
}
END_TEST

/* The study policies (doc/semantics.md section 9.6) replace the all-idle
 * rule of the two-input combination too, flag or not. */
START_TEST(test_all_idle_policy_replaces_the_flush)
{
	static const struct {
		unsigned behaviour;
		const char *expected;
	} cases[] = {
		{WM_BEHAVIOUR_MASTER, "W(4) W(10) IDLE"},
		{WM_BEHAVIOUR_MASTER | WM_ALL_IDLE_HOLD, "W(4) IDLE"},
		{WM_BEHAVIOUR_RELEASED | WM_ALL_IDLE_MAX, "W(4) W(MAX) IDLE"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wm_multi_input mi;

		wm_multi_input_init(&mi, 2, &rec.out, cases[i].behaviour);
		in_wm(&mi, 0, 10);
		in_wm(&mi, 1, 4);
		in_status(&mi, 0, WM_STATUS_IDLE);
		in_status(&mi, 1, WM_STATUS_IDLE);
		ck_assert_str_eq(recorder_take(&rec), cases[i].expected);
		wm_multi_input_destroy(&mi);
	}
}
END_TEST

START_TEST(test_valves_feed_the_inputs)
{
	/* Two inputs of two channels each; an input's valve output is what
	 * the combination sees. */
	struct wm_multi_input mi;
	struct wm_valve *v0 = wm_valve_new(2, WM_BEHAVIOUR_RELEASED);
	struct wm_valve *v1 = wm_valve_new(2, WM_BEHAVIOUR_RELEASED);

	wm_multi_input_init(&mi, 2, &rec.out, WM_BEHAVIOUR_RELEASED);
	wm_valve_input_watermark(v0, 0, 30, wm_multi_input_port(&mi, 0));
	wm_valve_input_watermark(v0, 1, 20, wm_multi_input_port(&mi, 0));
	wm_valve_input_watermark(v1, 0, 25, wm_multi_input_port(&mi, 1));
	ck_assert_str_eq(recorder_take(&rec), "");
	wm_valve_input_status(v1, 1, WM_STATUS_IDLE,
			      wm_multi_input_port(&mi, 1));
	ck_assert_str_eq(recorder_take(&rec), "W(20)");
	wm_valve_input_status(v1, 0, WM_STATUS_IDLE,
			      wm_multi_input_port(&mi, 1));
	/* input 1's valve flushes 25 then goes idle; input 0 alone: 20 */
	ck_assert_str_eq(recorder_take(&rec), "");
	wm_valve_input_watermark(v0, 1, 40, wm_multi_input_port(&mi, 0));
	ck_assert_str_eq(recorder_take(&rec), "W(30)");
	wm_valve_free(v0);
	wm_valve_free(v1);
	wm_multi_input_destroy(&mi);
}
END_TEST

START_TEST(test_zero_inputs_rejected)
{
	struct wm_multi_input mi;

	ck_assert_int_eq(wm_multi_input_init(&mi, 0, &rec.out, 0), -EINVAL);
}
END_TEST

START_TEST(test_behaviour_settings_parse)
{
	unsigned f = 0;
	const char *bad = NULL;
	int bad_len = 0;

	ck_assert_int_eq(wm_behaviour_parse("released", &f, &bad, &bad_len), 0);
	ck_assert_uint_eq(f, WM_BEHAVIOUR_RELEASED);
	/* A setting chooses Flink flags only: the all-idle policy stays. */
	f = WM_ALL_IDLE_HOLD;
	ck_assert_int_eq(wm_behaviour_parse("master", &f, &bad, &bad_len), 0);
	ck_assert_uint_eq(f, WM_BEHAVIOUR_MASTER | WM_ALL_IDLE_HOLD);
	ck_assert_int_eq(wm_behaviour_parse("released", &f, &bad, &bad_len), 0);
	ck_assert_uint_eq(f, WM_BEHAVIOUR_RELEASED | WM_ALL_IDLE_HOLD);
	f = 0;
	ck_assert_int_eq(wm_behaviour_parse("master", &f, &bad, &bad_len), 0);
	ck_assert_uint_eq(f, WM_BEHAVIOUR_MASTER);
	ck_assert_int_eq(
		wm_behaviour_parse("flink-2.1, valve_flush_unconditional", &f,
				   &bad, &bad_len),
		0);
	ck_assert_uint_eq(f, WM_IDLE_MARK_ONCE | WM_VALVE_FLUSH_UNCONDITIONAL);
	/* The baselines: released is the newest, 2.3, which is 2.1 and the
	 * all-idle flush to the maximum. */
	ck_assert_int_eq(wm_behaviour_parse("Flink-2.3", &f, &bad, &bad_len),
			 0);
	ck_assert_uint_eq(f, WM_IDLE_MARK_ONCE | WM_MUX_ALLIDLE_FLUSH_MAX);
	ck_assert_uint_eq(WM_BEHAVIOUR_RELEASED, WM_BEHAVIOUR_FLINK_2_3);
	ck_assert_int_eq(wm_behaviour_parse("released,-MUX_ALLIDLE_FLUSH_MAX",
					    &f, &bad, &bad_len),
			 0);
	ck_assert_uint_eq(f, WM_BEHAVIOUR_FLINK_2_1);
	ck_assert_int_eq(wm_behaviour_parse("flink-2.2", &f, &bad, &bad_len),
			 -EINVAL);
	ck_assert_int_eq(bad_len, 9);
	ck_assert_int_eq(wm_behaviour_parse("-flink-2.1", &f, &bad, &bad_len),
			 -EINVAL);
	ck_assert_int_eq(wm_behaviour_parse("master,-MUX_REACTIVATE", &f, &bad,
					    &bad_len),
			 0);
	ck_assert_uint_eq(f, WM_BEHAVIOUR_MASTER & ~WM_MUX_REACTIVATE);
	ck_assert_int_eq(
		wm_behaviour_parse("released,VALVE_FLUSH", &f, &bad, &bad_len),
		-EINVAL);
	ck_assert_int_eq(bad_len, 11);
	ck_assert(strncmp(bad, "VALVE_FLUSH", 11) == 0);
	ck_assert_int_eq(wm_behaviour_parse("", &f, &bad, &bad_len), -EINVAL);
	for (unsigned bit = 1; bit & WM_BEHAVIOUR_ALL; bit <<= 1) {
		const char *name = wm_behaviour_name(bit);

		ck_assert_ptr_nonnull(name);
		f = 0;
		ck_assert_int_eq(wm_behaviour_parse(name, &f, &bad, &bad_len),
				 0);
		ck_assert_uint_eq(f, bit);
	}
	ck_assert_ptr_null(wm_behaviour_name(WM_IDLE_MARK_ONCE | 2));
}
END_TEST

START_TEST(test_behaviour_difference_is_a_setting)
{
	char buf[256];
	unsigned f = WM_BEHAVIOUR_FLINK_2_3;
	const char *bad;
	int bad_len;

	ck_assert_str_eq(wm_behaviour_difference(WM_BEHAVIOUR_FLINK_2_3,
						 WM_BEHAVIOUR_RELEASED, buf,
						 sizeof(buf)),
			 "");
	ck_assert_str_eq(wm_behaviour_difference(
				 WM_BEHAVIOUR_FLINK_2_1 | WM_MUX_REACTIVATE,
				 WM_BEHAVIOUR_FLINK_2_3, buf, sizeof(buf)),
			 "-MUX_ALLIDLE_FLUSH_MAX,+MUX_REACTIVATE");
	/* Applied to the base, the difference gives the flags back. */
	wm_behaviour_difference(WM_BEHAVIOUR_MASTER & ~WM_IDLE_MARK_ONCE,
				WM_BEHAVIOUR_FLINK_2_3, buf, sizeof(buf));
	ck_assert_int_eq(wm_behaviour_parse(buf, &f, &bad, &bad_len), 0);
	ck_assert_uint_eq(f, WM_BEHAVIOUR_MASTER & ~WM_IDLE_MARK_ONCE);
	/* Truncated at a whole flag, terminated. */
	ck_assert_str_eq(wm_behaviour_difference(WM_BEHAVIOUR_MASTER,
						 WM_BEHAVIOUR_FLINK_2_1, buf,
						 30),
			 "+MUX_ALLIDLE_FLUSH_MAX");
}
END_TEST

static Suite *
multi_input_suite(void)
{
	Suite *s = suite_create("multi_input");
	TCase *combine = tcase_create("combine");
	TCase *flags = tcase_create("behaviour");

	tcase_add_checked_fixture(combine, setup, NULL);
	tcase_add_test(combine, test_two_inputs_minimum_and_idle_flush_rules);
	tcase_add_test(combine, test_reactivated_input_holds_back_unlike_valve);
	tcase_add_test(combine, test_all_idle_flush_max_with_flag);
	tcase_add_test(combine, test_all_idle_policy_replaces_the_flush);
	tcase_add_test(combine, test_valves_feed_the_inputs);
	tcase_add_test(combine, test_zero_inputs_rejected);
	tcase_add_test(flags, test_behaviour_settings_parse);
	tcase_add_test(flags, test_behaviour_difference_is_a_setting);
	suite_add_tcase(s, combine);
	suite_add_tcase(s, flags);
	return s;
}

int
main(void)
{
	return wm_check_main(multi_input_suite());
}
