/*
 * check_wait.c
 *	Unit tests for the waiter's spin budget (ipc/wait.h): how it grows
 *	after waits that spinning ended or that slept only briefly, how it
 *	shrinks after long sleeps, and that two busy peers cannot lock each
 *	other into sleeping. Only the adaptation is tested here, with the
 *	waits' lengths given; the futex protocol itself runs between threads
 *	(check_ring_threads) and processes (check_ring_process).
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/clock.h"
#include "ipc/wait.h"
#include "tests/unit/check_main.h"
#include "tests/unit/futex_faults.h"

/* A cross-process futex wake-up on this kind of machine (the paced
 * benchmark's median latency): what a waiter whose peer slept waits at
 * least. */
#define WAKE_UP_NS 8000
/* Longest wait that still counts as soon (wait.h). */
#define SOON_NS(w) ((int64_t)(w).spin_max_ns * 3 / 2)

static struct wm_waiter
futex_waiter(void)
{
	static struct wm_doorbell db;
	struct wm_waiter w;

	wm_doorbell_init(&db);
	wm_waiter_init(&w, &db, WM_WAIT_FUTEX);
	return w;
}

START_TEST(spun_waits_double_the_budget_up_to_the_cap)
{
	struct wm_waiter w = futex_waiter();

	w.spin_ns = 0;
	wm_waiter_spun(&w);
	ck_assert_uint_gt(w.spin_ns, 0);
	for (int i = 0; i < 64; i++) {
		uint32_t before = w.spin_ns;

		wm_waiter_spun(&w);
		ck_assert_uint_eq(w.spin_ns, before * 2 < w.spin_max_ns
						     ? before * 2
						     : w.spin_max_ns);
	}
	ck_assert_uint_eq(w.spin_ns, w.spin_max_ns);
}
END_TEST

START_TEST(a_long_sleep_halves_the_budget_to_zero)
{
	struct wm_waiter w = futex_waiter();
	int64_t long_wait = SOON_NS(w) + 1;
	int sleeps = 0;

	w.spin_ns = w.spin_max_ns;
	while (w.spin_ns != 0) {
		uint32_t before = w.spin_ns;

		wm_waiter_slept(&w, long_wait);
		ck_assert_uint_eq(w.spin_ns, before / 2 < WM_WAIT_FIRST_SPIN_NS
						     ? 0
						     : before / 2);
		sleeps++;
	}
	/* An idle stream stops spinning after a few waits: log2 of the
	 * cap over the first step, not log2 of the cap in nanoseconds. */
	ck_assert_int_le(sleeps, 8);
	wm_waiter_slept(&w, long_wait);
	ck_assert_uint_eq(w.spin_ns, 0);
}
END_TEST

START_TEST(a_short_sleep_grows_the_budget)
{
	struct wm_waiter w = futex_waiter();

	w.spin_ns = 0;
	wm_waiter_slept(&w, SOON_NS(w));
	ck_assert_uint_gt(w.spin_ns, 0);
	w.spin_ns = 1000;
	wm_waiter_slept(&w, WAKE_UP_NS);
	ck_assert_uint_eq(w.spin_ns, 2000);
}
END_TEST

/*
 * Two peers that answer each other at once (ping-pong, or a busy stream
 * with back-pressure). Once one sleeps, the other's wait includes its
 * wake-up; if that is longer than the other's budget, it sleeps too. The
 * model: a wait lasts the answer time if the peer was awake, or a wake-up
 * if it slept; it sleeps if that is longer than its budget. Both peers
 * start just under the wake-up, as after a hiccup halved them. They must
 * end up spinning, not sleeping on every message for ever.
 */
START_TEST(two_busy_peers_do_not_lock_each_other_asleep)
{
	struct wm_waiter a = futex_waiter(), b = futex_waiter();
	struct wm_waiter *side[2] = {&a, &b};
	const int64_t answer_ns = 500;
	bool peer_slept = true;
	int sleeps_in_last_half = 0;

	a.spin_ns = b.spin_ns = WAKE_UP_NS / 4;
	for (int msg = 0; msg < 1000; msg++) {
		struct wm_waiter *w = side[msg % 2];
		int64_t waited = peer_slept ? WAKE_UP_NS : answer_ns;

		if (waited <= (int64_t)w->spin_ns) {
			wm_waiter_spun(w);
			peer_slept = false;
		} else {
			wm_waiter_slept(w, waited + WAKE_UP_NS);
			peer_slept = true;
			sleeps_in_last_half += msg >= 500;
		}
	}
	ck_assert_int_eq(sleeps_in_last_half, 0);
	ck_assert_uint_ge(a.spin_ns, WAKE_UP_NS);
	ck_assert_uint_ge(b.spin_ns, WAKE_UP_NS);
}
END_TEST

/* A paced stream whose gaps are longer than the cap, as an operator whose
 * input is slower than it (32 records every 50 us): the budget falls to
 * zero, so an idle consumer burns no CPU between batches. */
START_TEST(gaps_longer_than_the_cap_stop_the_spinning)
{
	struct wm_waiter w = futex_waiter();
	const int64_t gap_ns = 50000;

	for (int batch = 0; batch < 64; batch++) {
		if (gap_ns <= (int64_t)w.spin_ns)
			wm_waiter_spun(&w);
		else
			wm_waiter_slept(&w, gap_ns + WAKE_UP_NS);
	}
	ck_assert_uint_eq(w.spin_ns, 0);
}
END_TEST

/* Processing time and wait lengths scale real time by the job's speed:
 * past the int64 range they saturate, never wrap (a cast of a double out
 * of range is undefined and gave INT64_MIN). */
START_TEST(scaled_times_saturate)
{
	ck_assert_int_eq(wm_scale_ns(1000, 2.5), 2500);
	ck_assert_int_eq(wm_scale_ns(1000, 0.5), 500);
	ck_assert_int_eq(wm_scale_ns(10000000000, 1e9), INT64_MAX);
	ck_assert_int_eq(wm_scale_ns(INT64_MAX, 1.0), INT64_MAX);
	ck_assert_int_eq(wm_scale_ns(INT64_MAX - 5, 1 / 0.5), INT64_MAX);
	ck_assert_int_eq(wm_scale_ns(-10000000000, 1e9), INT64_MIN);
	ck_assert_int_eq(wm_scale_ns(0, 1e9), 0);
}
END_TEST

/* A wait whose timeout runs past the end of time waits like one without
 * a timeout: start + timeout must not overflow into the past (undefined;
 * the sanitizer build stops on it). With no spin budget, the third look
 * is the one after the deadline is computed. */
static bool
ready_at_third_look(void *arg)
{
	int *calls = arg;

	return ++*calls >= 3;
}

START_TEST(a_timeout_past_the_end_of_time_is_none)
{
	struct wm_waiter w = futex_waiter();
	int calls = 0;

	w.spin_ns = w.spin_max_ns = 0;
	ck_assert_int_eq(wm_wait(&w, ready_at_third_look, &calls, INT64_MAX),
			 0);
	ck_assert_int_eq(calls, 3);
}
END_TEST

static bool
never_ready(void *arg)
{
	(void)arg;
	return false;
}

/*
 * A FUTEX_WAIT that fails (the filter of futex_faults.h answers ENOSYS,
 * in this forked test only) ends the wait with that error, and the owner
 * is no longer marked asleep: a waker must not take the flag and make a
 * wake-up call for a sleep that is not happening. The flag used to stay
 * set. Timed and untimed waits both.
 */
START_TEST(a_failing_futex_ends_the_wait_marked_awake)
{
	struct wm_waiter w = futex_waiter();

	if (wm_futex_faults_install(WM_FUTEX_FAIL_ALL) != 0)
		ck_abort_msg("could not install the futex filter");
	w.spin_ns = w.spin_max_ns = 0;
	ck_assert_int_eq(wm_wait(&w, never_ready, NULL, -1), -ENOSYS);
	uint32_t asleep = atomic_load(&w.db->sleeping);

	ck_assert_uint_eq(asleep, 0);
	ck_assert_int_eq(wm_wait(&w, never_ready, NULL, 1000000000), -ENOSYS);
	asleep = atomic_load(&w.db->sleeping);
	ck_assert_uint_eq(asleep, 0);
}
END_TEST

static Suite *
wait_suite(void)
{
	Suite *s = suite_create("wait");
	TCase *tc = tcase_create("budget");

	tcase_add_test(tc, spun_waits_double_the_budget_up_to_the_cap);
	tcase_add_test(tc, a_long_sleep_halves_the_budget_to_zero);
	tcase_add_test(tc, a_short_sleep_grows_the_budget);
	tcase_add_test(tc, two_busy_peers_do_not_lock_each_other_asleep);
	tcase_add_test(tc, gaps_longer_than_the_cap_stop_the_spinning);
	suite_add_tcase(s, tc);

	tc = tcase_create("time");
	tcase_add_test(tc, scaled_times_saturate);
	tcase_add_test(tc, a_timeout_past_the_end_of_time_is_none);
	suite_add_tcase(s, tc);

	/* Forked (the Check default): the filter stays in the child. */
	tc = tcase_create("errors");
	tcase_add_test(tc, a_failing_futex_ends_the_wait_marked_awake);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(wait_suite());
}
