/*
 * check_restart_strategy.c
 *	Unit tests of Flink's restart strategies (runtime/restart/): none
 *	gives up at once; fixed-delay restarts `attempts` times after its
 *	delay, then gives up; exponential-delay grows its backoff by the
 *	multiplier up to the maximum, merges failures into the pending
 *	restart, starts again after a failure-free stretch of the reset
 *	threshold, gives up after its attempts, and draws its jitter within
 *	[-jitter x backoff, +jitter x backoff] clamped to [initial, max].
 *	The cases are those of Flink's rules (doc/semantics.md section 13).
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>

#include "runtime/restart/restart_strategy.h"
#include "tests/unit/check_main.h"

#define MS 1000000LL
#define S (1000 * MS)

/* A random source that returns `word` every time. */
static uint64_t
fixed_word(void *ctx)
{
	return *(const uint64_t *)ctx;
}

static struct wm_restart_decision
fail_at(struct wm_restart_strategy *s, int64_t now_ns)
{
	struct wm_restart_decision d;

	wm_restart_strategy_failure(s, now_ns, &d);
	return d;
}

/* exponential-delay without jitter. */
static struct wm_restart_config
exponential(int64_t initial_ms, int64_t max_ms, double multiplier,
	    int64_t reset_ms)
{
	struct wm_restart_config c =
		wm_restart_config_default(WM_RESTART_EXPONENTIAL_DELAY);

	c.initial_delay_ms = initial_ms;
	c.max_delay_ms = max_ms;
	c.multiplier = multiplier;
	c.reset_threshold_ms = reset_ms;
	c.jitter = 0;
	return c;
}

/* ---------------------------------------------------------------------
 * none and fixed-delay
 * --------------------------------------------------------------------- */

START_TEST(test_none_gives_up_at_the_first_failure)
{
	struct wm_restart_config c = wm_restart_config_default(WM_RESTART_NONE);
	struct wm_restart_strategy s;
	struct wm_restart_decision d;

	wm_restart_strategy_init(&s, &c, NULL, NULL);
	d = fail_at(&s, 5 * S);
	ck_assert(!d.restart);
	ck_assert_uint_eq(d.attempt, 1);
	ck_assert_int_eq(d.delay_ns, 0);
}
END_TEST

START_TEST(test_fixed_delay_restarts_attempts_times_then_gives_up)
{
	struct wm_restart_config c =
		wm_restart_config_default(WM_RESTART_FIXED_DELAY);
	struct wm_restart_strategy s;
	struct wm_restart_decision d;

	c.attempts = 3;
	c.delay_ms = 10000;
	wm_restart_strategy_init(&s, &c, NULL, NULL);
	/* Failures far apart: fixed-delay never forgets one. */
	for (uint32_t i = 1; i <= 3; i++) {
		d = fail_at(&s, (int64_t)i * 3600 * S);
		ck_assert(d.restart);
		ck_assert(d.new_attempt);
		ck_assert_uint_eq(d.attempt, i);
		ck_assert_int_eq(d.delay_ns, 10 * S);
	}
	d = fail_at(&s, 4 * 3600 * S);
	ck_assert(!d.restart);
	ck_assert_uint_eq(d.attempt, 4);
}
END_TEST

START_TEST(test_fixed_delay_of_zero_attempts_never_restarts)
{
	struct wm_restart_config c =
		wm_restart_config_default(WM_RESTART_FIXED_DELAY);
	struct wm_restart_strategy s;

	c.attempts = 0;
	wm_restart_strategy_init(&s, &c, NULL, NULL);
	ck_assert(!fail_at(&s, 0).restart);
}
END_TEST

START_TEST(test_fixed_delay_defaults_to_one_attempt_of_one_second)
{
	struct wm_restart_config c =
		wm_restart_config_default(WM_RESTART_FIXED_DELAY);
	struct wm_restart_strategy s;
	struct wm_restart_decision d;

	wm_restart_strategy_init(&s, &c, NULL, NULL);
	d = fail_at(&s, 7 * S);
	ck_assert(d.restart);
	ck_assert_int_eq(d.delay_ns, 1 * S);
	ck_assert(!fail_at(&s, 3600 * S).restart);
}
END_TEST

/* ---------------------------------------------------------------------
 * exponential-delay
 * --------------------------------------------------------------------- */

/* Each failure 1 ms after the previous restart: 1, 2, 4, 8 s, then the
 * 10 s cap. */
START_TEST(test_exponential_doubles_up_to_the_maximum)
{
	static const int64_t want_s[] = {1, 2, 4, 8, 10, 10, 10};
	struct wm_restart_config c = exponential(1000, 10000, 2.0, 3600000);
	struct wm_restart_strategy s;
	int64_t t = 100 * S;

	wm_restart_strategy_init(&s, &c, NULL, NULL);
	for (uint32_t i = 0; i < sizeof(want_s) / sizeof(*want_s); i++) {
		struct wm_restart_decision d = fail_at(&s, t);

		ck_assert(d.restart);
		ck_assert(d.new_attempt);
		ck_assert_uint_eq(d.attempt, i + 1);
		ck_assert_int_eq(d.delay_ns, want_s[i] * S);
		t += d.delay_ns + 1 * MS;
	}
}
END_TEST

/* Flink's defaults: 1 s x 1.5 per attempt, truncated to whole
 * milliseconds as Java's (long) does, up to 1 min. */
START_TEST(test_exponential_defaults_grow_by_one_and_a_half_to_a_minute)
{
	static const int64_t want_ms[] = {1000,	 1500,	2250,  3375,  5062,
					  7593,	 11390, 17085, 25628, 38443,
					  57665, 60000, 60000};
	struct wm_restart_config c =
		wm_restart_config_default(WM_RESTART_EXPONENTIAL_DELAY);
	struct wm_restart_strategy s;
	int64_t t = 0;

	c.jitter = 0;
	wm_restart_strategy_init(&s, &c, NULL, NULL);
	for (uint32_t i = 0; i < sizeof(want_ms) / sizeof(*want_ms); i++) {
		struct wm_restart_decision d = fail_at(&s, t);

		ck_assert(d.restart);
		ck_assert_int_eq(d.delay_ns, want_ms[i] * MS);
		t += d.delay_ns + 10 * S;
	}
}
END_TEST

/* Running the reset threshold without a failure, counted from when the
 * last restart was due, starts the backoff and the count again; a
 * nanosecond less does not. */
START_TEST(test_exponential_resets_after_the_threshold_of_running)
{
	struct wm_restart_config c = exponential(1000, 60000, 2.0, 600000);
	struct wm_restart_strategy s;
	struct wm_restart_decision d;

	wm_restart_strategy_init(&s, &c, NULL, NULL);
	d = fail_at(&s, 0); /* restart due at 1 s */
	d = fail_at(&s, 1 * S + 600 * S - 1);
	ck_assert_int_eq(d.delay_ns, 2 * S); /* not reset */
	ck_assert_uint_eq(d.attempt, 2);
	/* due at 601 s - 1 ns + 2 s = 603 s - 1 ns */
	d = fail_at(&s, 603 * S - 1 + 600 * S);
	ck_assert(d.restart);
	ck_assert(d.new_attempt);
	ck_assert_uint_eq(d.attempt, 1);
	ck_assert_int_eq(d.delay_ns, 1 * S);
}
END_TEST

/* A failure while a restart still waits is the same attempt: it waits
 * for what is left. */
START_TEST(test_exponential_merges_a_failure_into_the_pending_restart)
{
	struct wm_restart_config c = exponential(4000, 60000, 2.0, 600000);
	struct wm_restart_strategy s;
	struct wm_restart_decision d;

	wm_restart_strategy_init(&s, &c, NULL, NULL);
	d = fail_at(&s, 10 * S); /* due at 14 s */
	d = fail_at(&s, 11 * S);
	ck_assert(d.restart);
	ck_assert(!d.new_attempt);
	ck_assert_uint_eq(d.attempt, 1);
	ck_assert_int_eq(d.delay_ns, 3 * S);
	d = fail_at(&s, 14 * S); /* at the due time: still merged */
	ck_assert(!d.new_attempt);
	ck_assert_int_eq(d.delay_ns, 0);
	d = fail_at(&s, 14 * S + 1);
	ck_assert(d.new_attempt);
	ck_assert_uint_eq(d.attempt, 2);
	ck_assert_int_eq(d.delay_ns, 8 * S);
}
END_TEST

/* attempts-before-reset-backoff: that many restarts, then the job fails,
 * unless the backoff was reset before. */
START_TEST(test_exponential_gives_up_after_its_attempts_unless_reset)
{
	struct wm_restart_config c = exponential(1000, 60000, 2.0, 600000);
	struct wm_restart_strategy s;
	struct wm_restart_decision d;
	int64_t t = 0;

	c.attempts = 2;
	wm_restart_strategy_init(&s, &c, NULL, NULL);
	d = fail_at(&s, t);
	t += d.delay_ns + 1;
	d = fail_at(&s, t);
	ck_assert(d.restart);
	/* A long stretch of running: the count starts again. */
	t += d.delay_ns + 600 * S;
	d = fail_at(&s, t);
	ck_assert(d.restart);
	ck_assert_uint_eq(d.attempt, 1);
	t += d.delay_ns + 1;
	d = fail_at(&s, t);
	ck_assert(d.restart);
	t += d.delay_ns + 1;
	d = fail_at(&s, t);
	ck_assert(!d.restart);
	ck_assert_uint_eq(d.attempt, 3);
	ck_assert_int_eq(d.delay_ns, 0);
}
END_TEST

/* The jitter: backoff 8 s with factor 0.25 draws in [-2 s, +2 s], both
 * ends reachable; the first attempt's negative jitter is clamped to the
 * initial backoff, and a large one to the maximum. */
START_TEST(test_exponential_jitter_stays_within_its_range)
{
	struct wm_restart_config c = exponential(1000, 9000, 2.0, 600000);
	struct wm_restart_strategy s;
	uint64_t word = 0;
	int64_t t = 0, lowest = INT64_MAX, highest = 0;

	c.jitter = 0.25;
	/* Word w draws w mod n - offset: 0 is the lowest. */
	wm_restart_strategy_init(&s, &c, fixed_word, &word);
	ck_assert_int_eq(fail_at(&s, 0).delay_ns, 1 * S); /* 750 ms, clamped */
	/* Words 0 .. 4000 cover the n = 4001 draws of the 8 s backoff. */
	for (word = 0; word < 4001; word++) {
		struct wm_restart_decision d;

		wm_restart_strategy_init(&s, &c, fixed_word, &word);
		t = 0;
		for (int i = 0; i < 3; i++) { /* 1, 2, 4 s, jittered */
			d = fail_at(&s, t);
			t += d.delay_ns + 1;
		}
		d = fail_at(&s, t); /* 8 s +- 2 s, capped at 9 s */
		ck_assert_uint_eq(d.attempt, 4);
		ck_assert_int_ge(d.delay_ns, 6 * S);
		ck_assert_int_le(d.delay_ns, 9 * S);
		ck_assert_int_eq(d.delay_ns % MS, 0);
		if (d.delay_ns < lowest)
			lowest = d.delay_ns;
		if (d.delay_ns > highest)
			highest = d.delay_ns;
	}
	ck_assert_int_eq(lowest, 6 * S);
	ck_assert_int_eq(highest, 9 * S);
}
END_TEST

/* The default jitter of 0.1 on the first second: [1 s, 1.1 s]. */
START_TEST(test_exponential_default_first_delay_is_one_to_one_point_one_s)
{
	struct wm_restart_config c =
		wm_restart_config_default(WM_RESTART_EXPONENTIAL_DELAY);
	struct wm_restart_strategy s;
	uint64_t top = 200; /* n - 1 for the offset of 100 ms */

	wm_restart_strategy_init(&s, &c, fixed_word, &top);
	ck_assert_int_eq(fail_at(&s, 0).delay_ns, 1100 * MS);
}
END_TEST

/* Java's arithmetic: a backoff grown past Long.MAX_VALUE saturates, and
 * a positive jitter added to it wraps negative, so Flink's delay falls
 * back to the initial backoff. */
START_TEST(test_exponential_saturated_backoff_wraps_as_in_java)
{
	struct wm_restart_config c = exponential(1, 10000, 2.0, 3600000);
	struct wm_restart_strategy s;
	uint64_t word = 0;
	struct wm_restart_decision d;
	int64_t t = 0;

	c.jitter = 0.5;
	wm_restart_strategy_init(&s, &c, fixed_word, &word);
	for (int i = 0; i < 64; i++) {
		d = fail_at(&s, t);
		ck_assert(d.restart);
		t += d.delay_ns + 1;
	}
	/* Attempt 65: 2^64 ms saturates at Long.MAX_VALUE; the highest draw
	 * (word n - 1, n = 2^63 + 1) adds half of it. */
	word = (uint64_t)1 << 63;
	d = fail_at(&s, t);
	ck_assert_uint_eq(d.attempt, 65);
	ck_assert_int_eq(d.delay_ns, 1 * MS);
}
END_TEST

/* ---------------------------------------------------------------------
 * configuration
 * --------------------------------------------------------------------- */

START_TEST(test_config_defaults_are_flinks)
{
	struct wm_restart_config e =
		wm_restart_config_default(WM_RESTART_EXPONENTIAL_DELAY);
	struct wm_restart_config f =
		wm_restart_config_default(WM_RESTART_FIXED_DELAY);
	char why[128];

	ck_assert_int_eq(e.initial_delay_ms, 1000);
	ck_assert_int_eq(e.max_delay_ms, 60000);
	ck_assert(e.multiplier == 1.5);
	ck_assert_int_eq(e.reset_threshold_ms, 3600000);
	ck_assert(e.jitter == 0.1);
	ck_assert_uint_eq(e.attempts, 2147483647u);
	ck_assert_uint_eq(f.attempts, 1);
	ck_assert_int_eq(f.delay_ms, 1000);
	ck_assert_int_eq(wm_restart_config_check(&e, why, sizeof(why)), 0);
	ck_assert_int_eq(wm_restart_config_check(&f, why, sizeof(why)), 0);
	ck_assert_str_eq(wm_restart_kind_name(e.kind), "exponential-delay");
	ck_assert_str_eq(wm_restart_kind_name(f.kind), "fixed-delay");
	ck_assert_str_eq(wm_restart_kind_name(WM_RESTART_NONE), "none");
}
END_TEST

START_TEST(test_config_check_refuses_what_flink_refuses)
{
	struct wm_restart_config c;
	char why[128];

#define REFUSED(field, value, text)                                            \
	do {                                                                   \
		c = wm_restart_config_default(WM_RESTART_EXPONENTIAL_DELAY);   \
		c.field = (value);                                             \
		ck_assert_int_eq(                                              \
			wm_restart_config_check(&c, why, sizeof(why)),         \
			-EINVAL);                                              \
		ck_assert_str_eq(why, text);                                   \
	} while (0)
	REFUSED(initial_delay_ms, 0, "initial-backoff must be at least 1 ms");
	REFUSED(initial_delay_ms, 60001,
		"initial-backoff cannot be higher than max-backoff");
	REFUSED(multiplier, 1.0, "backoff-multiplier must be greater than 1");
	REFUSED(reset_threshold_ms, 0,
		"reset-backoff-threshold must be at least 1 ms");
	REFUSED(jitter, 1.5, "jitter-factor must be between 0 and 1");
	REFUSED(attempts, 0,
		"attempts-before-reset-backoff must be between 1 and "
		"2147483647");
#undef REFUSED
	c = wm_restart_config_default(WM_RESTART_FIXED_DELAY);
	c.attempts = 0;
	ck_assert_int_eq(wm_restart_config_check(&c, why, sizeof(why)), 0);
	c.delay_ms = -1;
	ck_assert_int_eq(wm_restart_config_check(&c, why, sizeof(why)),
			 -EINVAL);
}
END_TEST

static Suite *
restart_strategy_suite(void)
{
	Suite *s = suite_create("restart_strategy");
	TCase *fixed = tcase_create("fixed");
	TCase *exp = tcase_create("exponential");
	TCase *conf = tcase_create("config");

	tcase_add_test(fixed, test_none_gives_up_at_the_first_failure);
	tcase_add_test(fixed,
		       test_fixed_delay_restarts_attempts_times_then_gives_up);
	tcase_add_test(fixed, test_fixed_delay_of_zero_attempts_never_restarts);
	tcase_add_test(fixed,
		       test_fixed_delay_defaults_to_one_attempt_of_one_second);
	tcase_add_test(exp, test_exponential_doubles_up_to_the_maximum);
	tcase_add_test(
		exp,
		test_exponential_defaults_grow_by_one_and_a_half_to_a_minute);
	tcase_add_test(exp,
		       test_exponential_resets_after_the_threshold_of_running);
	tcase_add_test(
		exp,
		test_exponential_merges_a_failure_into_the_pending_restart);
	tcase_add_test(
		exp, test_exponential_gives_up_after_its_attempts_unless_reset);
	tcase_add_test(exp, test_exponential_jitter_stays_within_its_range);
	tcase_add_test(
		exp,
		test_exponential_default_first_delay_is_one_to_one_point_one_s);
	tcase_add_test(exp,
		       test_exponential_saturated_backoff_wraps_as_in_java);
	tcase_add_test(conf, test_config_defaults_are_flinks);
	tcase_add_test(conf, test_config_check_refuses_what_flink_refuses);
	suite_add_tcase(s, fixed);
	suite_add_tcase(s, exp);
	suite_add_tcase(s, conf);
	return s;
}

int
main(void)
{
	return wm_check_main(restart_strategy_suite());
}
