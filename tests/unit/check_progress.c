/*
 * check_progress.c
 *	Unit tests of stall and idle accounting (runtime/engine/progress.h): what
 *	counts as a stall, what as idle time, and readings with stretches
 *	still open.
 */
#include "config.h"

#include <check.h>
#include <signal.h>
#include <stdlib.h>

#include "runtime/engine/progress.h"
#include "tests/unit/check_main.h"

#define S 1000000000LL /* one second in ns */

static struct wm_progress_reading
read_at(const struct wm_progress *p, int64_t now)
{
	struct wm_progress_reading r;

	wm_progress_read(p, now, &r);
	return r;
}

START_TEST(test_regular_advances_never_stall)
{
	struct wm_progress p;

	wm_progress_init(&p, 10 * S);
	for (int64_t t = 1; t <= 100; t++)
		wm_progress_watermark(&p, t * 1000, t * S, 7);
	struct wm_progress_reading r = read_at(&p, 105 * S);

	ck_assert_int_eq(r.watermark, 100000);
	ck_assert_int_eq(r.stalled_ns, 0);
	ck_assert_uint_eq(r.stalls, 0);
	ck_assert_int_eq(r.idle_ns, 0);
}
END_TEST

START_TEST(test_a_long_gap_counts_whole)
{
	struct wm_progress p;

	wm_progress_init(&p, 10 * S);
	wm_progress_watermark(&p, 1, 2 * S, 7);
	wm_progress_watermark(&p, 2, 32 * S, 7); /* 30 s still */
	wm_progress_watermark(&p, 3, 42 * S, 7); /* exactly 10 s: not */
	wm_progress_watermark(&p, 4, 53 * S, 7); /* 11 s */
	struct wm_progress_reading r = read_at(&p, 53 * S);

	ck_assert_int_eq(r.stalled_ns, 41 * S);
	ck_assert_int_eq(r.longest_stall_ns, 30 * S);
	ck_assert_uint_eq(r.stalls, 2);
}
END_TEST

START_TEST(test_no_advance_is_ignored)
{
	struct wm_progress p;

	wm_progress_init(&p, 10 * S);
	wm_progress_watermark(&p, 5, 1 * S, 7);
	/* The same or an older watermark does not end the stretch. */
	wm_progress_watermark(&p, 5, 8 * S, 7);
	wm_progress_watermark(&p, 4, 9 * S, 7);
	wm_progress_watermark(&p, 6, 20 * S, 7);
	ck_assert_int_eq(read_at(&p, 20 * S).stalled_ns, 19 * S);
}
END_TEST

START_TEST(test_idle_time_is_not_stalled_time)
{
	struct wm_progress p;

	wm_progress_init(&p, 10 * S);
	wm_progress_watermark(&p, 1, 1 * S, 7);
	wm_progress_status(&p, true, 5 * S, 7);	    /* 4 s still: no stall */
	wm_progress_status(&p, true, 6 * S, 7);	    /* no change */
	wm_progress_status(&p, false, 3605 * S, 7); /* idle for an hour */
	wm_progress_watermark(&p, 2, 3610 * S, 7);  /* 5 s after ACTIVE */
	struct wm_progress_reading r = read_at(&p, 3610 * S);

	ck_assert_int_eq(r.idle_ns, 3600 * S);
	ck_assert_int_eq(r.stalled_ns, 0);
	ck_assert_uint_eq(r.to_idle, 1);
	ck_assert_uint_eq(r.to_active, 1);
	ck_assert(!r.idle);
}
END_TEST

START_TEST(test_going_idle_closes_a_stall)
{
	struct wm_progress p;

	wm_progress_init(&p, 10 * S);
	wm_progress_watermark(&p, 1, 0, 7);
	wm_progress_status(&p, true, 40 * S, 7); /* held 40 s, then idle */
	struct wm_progress_reading r = read_at(&p, 100 * S);

	ck_assert_int_eq(r.stalled_ns, 40 * S);
	ck_assert_int_eq(r.idle_ns, 60 * S);
	ck_assert(r.idle);
}
END_TEST

START_TEST(test_open_stretches_count_up_to_the_reading)
{
	struct wm_progress p;

	wm_progress_init(&p, 10 * S);
	wm_progress_watermark(&p, 1, 1 * S, 7);
	ck_assert_int_eq(read_at(&p, 11 * S).stalled_ns, 0);
	struct wm_progress_reading r = read_at(&p, 31 * S);

	ck_assert_int_eq(r.stalled_ns, 30 * S);
	ck_assert_uint_eq(r.stalls, 1);
	/* A reading changes nothing: the stretch is still open. */
	ck_assert_int_eq(p.stalled_ns, 0);
	wm_progress_watermark(&p, 2, 41 * S, 7);
	ck_assert_int_eq(read_at(&p, 41 * S).stalled_ns, 40 * S);
	ck_assert_uint_eq(read_at(&p, 41 * S).stalls, 1);
}
END_TEST

START_TEST(test_nothing_counts_after_max)
{
	struct wm_progress p;

	wm_progress_init(&p, 10 * S);
	wm_progress_status(&p, true, 1 * S, 7);
	wm_progress_watermark(&p, WM_TS_MAX, 3 * S, 7);
	wm_progress_status(&p, true, 4 * S, 7);
	struct wm_progress_reading r = read_at(&p, 1000 * S);

	ck_assert_int_eq(r.watermark, WM_TS_MAX);
	ck_assert_int_eq(r.idle_ns, 2 * S);
	ck_assert_int_eq(r.stalled_ns, 0);
	ck_assert(!r.idle);
}
END_TEST

START_TEST(test_the_longest_stall_names_what_ended_it)
{
	struct wm_progress p;

	wm_progress_init(&p, 10 * S);
	wm_progress_watermark(&p, 1, 0, 3);
	wm_progress_watermark(&p, 2, 20 * S, 4); /* 20 s, ended by 4 */
	wm_progress_watermark(&p, 3, 25 * S, 5); /* 5 s: no stall */
	wm_progress_status(&p, true, 55 * S, 6); /* 30 s, ended by 6 */
	wm_progress_status(&p, false, 60 * S, 1);
	wm_progress_watermark(&p, 4, 75 * S, 2); /* 15 s */
	ck_assert_uint_eq(read_at(&p, 75 * S).longest_cause, 6);
	/* Still open and longer: nothing ended it yet. */
	ck_assert_uint_eq(read_at(&p, 200 * S).longest_cause,
			  WM_PROGRESS_NO_CAUSE);
	ck_assert_uint_eq(p.longest_cause, 6);
}
END_TEST

/* The longest stall carries how much the followed count of time waiting
 * for a CPU grew during it, counted from the start of the still stretch
 * (the last advance, or the return to ACTIVE); a shorter stall, however
 * starved, does not replace it, and an idle stretch is not a stall. */
START_TEST(test_the_longest_stall_says_how_starved_it_was)
{
	struct wm_progress p;
	int64_t waited = 5 * S;

	wm_progress_init(&p, 10 * S);
	wm_progress_follow_starvation(&p, &waited);
	wm_progress_watermark(&p, 1000, 1 * S, 0); /* still from 1 s */
	waited += 2 * S;
	wm_progress_watermark(&p, 2000, 31 * S, 0); /* 30 s, 2 s starved */
	ck_assert_int_eq(read_at(&p, 31 * S).longest_starved_ns, 2 * S);
	waited += 9 * S;
	wm_progress_watermark(&p, 3000, 51 * S, 0); /* 20 s: shorter */
	ck_assert_int_eq(read_at(&p, 51 * S).longest_starved_ns, 2 * S);
	/* Idle, then back: the still stretch starts at the return. */
	wm_progress_status(&p, true, 52 * S, 0);
	waited += 100 * S;
	wm_progress_status(&p, false, 60 * S, 0);
	waited += 3 * S;
	struct wm_progress_reading r = read_at(&p, 100 * S); /* 40 s, open */

	ck_assert(r.stalled_now);
	ck_assert_int_eq(r.longest_stall_ns, 40 * S);
	ck_assert_int_eq(r.longest_starved_ns, 3 * S);
}
END_TEST

/* A real run's tracker closes a still stretch when the update that ended
 * it was due by the records' schedule, not when its late process made it
 * (progress.h `due`): a process 300 s late on a watermark that --sim
 * moves every second stalls nothing, and the stretch is noise, counted
 * apart; a silence of 30 s in the schedule is a stall as long whatever
 * the process's lateness; a backlog emitted at once starts the next
 * stretch at its last record's due. A tracker that counts no noise
 * (--sim) takes every update at its time, as ever. */
START_TEST(test_a_real_run_takes_updates_when_they_were_due)
{
	struct wm_progress p, sim;
	struct wm_progress_due due = {0, 0};
	int64_t waited = 0;

	wm_progress_init(&p, 10 * S);
	wm_progress_follow_starvation(&p, &waited);
	wm_progress_follow_due(&p, &due);
	wm_progress_count_noise(&p, 2000);
	wm_progress_init(&sim, 10 * S);
	wm_progress_follow_due(&sim, &due);
	due = (struct wm_progress_due){1 * S, 1 * S};
	wm_progress_watermark(&p, 1000, 1 * S, 0);
	wm_progress_watermark(&sim, 1000, 1 * S, 0);
	/* 300 s late: records due at 2 s to 302 s came out at 303 s. */
	waited += 150000000;
	due = (struct wm_progress_due){2 * S, 302 * S};
	wm_progress_watermark(&p, 2000, 303 * S, 1);
	wm_progress_watermark(&sim, 2000, 303 * S, 1);
	/* a silence of 30 s by the schedule, the update 5 s late */
	due = (struct wm_progress_due){332 * S, 332 * S};
	wm_progress_watermark(&p, 3000, 337 * S, 2);
	due = (struct wm_progress_due){341 * S, 341 * S};
	wm_progress_watermark(&p, 4000, 341 * S, 3); /* 9 s: no stall */
	struct wm_progress_reading r = read_at(&p, 341 * S);

	ck_assert_uint_eq(r.noise_stalls, 1);
	ck_assert_int_eq(r.noise_stalled_ns, 302 * S);
	ck_assert_int_eq(r.noise_starved_ns, 150000000);
	ck_assert_uint_eq(r.stalls, 1);
	ck_assert_int_eq(r.stalled_ns, 30 * S);
	ck_assert_int_eq(r.longest_stall_ns, 30 * S);
	ck_assert_uint_eq(r.longest_cause, 2);
	ck_assert_int_eq(r.longest_starved_ns, 0);
	/* A reading less the lateness, before the last update, reads as
	 * of it: nothing open. */
	r = read_at(&p, 340 * S);
	ck_assert(!r.stalled_now);
	r = read_at(&sim, 303 * S);
	ck_assert_uint_eq(r.noise_stalls, 0);
	ck_assert_uint_eq(r.stalls, 1);
	ck_assert_int_eq(r.longest_stall_ns, 302 * S);
}
END_TEST

/* A real run's idle switch is due when the schedule says: the stretch
 * before it ends then, and the idle one begins then. */
START_TEST(test_a_late_idle_switch_is_no_stall)
{
	struct wm_progress p;
	struct wm_progress_due due = {0, 0};

	wm_progress_init(&p, 10 * S);
	wm_progress_follow_due(&p, &due);
	wm_progress_count_noise(&p, 2000);
	due = (struct wm_progress_due){8 * S, 8 * S};
	wm_progress_status(&p, true, 20 * S, 0); /* found 12 s late */
	due = (struct wm_progress_due){30 * S, 30 * S};
	wm_progress_status(&p, false, 31 * S, 0);
	struct wm_progress_reading r = read_at(&p, 31 * S);

	ck_assert_uint_eq(r.stalls, 0);
	ck_assert_uint_eq(r.noise_stalls, 1);
	ck_assert_int_eq(r.idle_ns, 22 * S);
	ck_assert_int_eq(r.since_ns, 30 * S);
}
END_TEST

START_TEST(test_a_reading_says_when_the_present_state_began)
{
	struct wm_progress p;

	wm_progress_init(&p, 10 * S);
	ck_assert_int_eq(read_at(&p, 5 * S).since_ns, 0);
	wm_progress_watermark(&p, 1, 7 * S, 0);
	wm_progress_watermark(&p, 1, 9 * S, 0); /* no advance */
	ck_assert_int_eq(read_at(&p, 20 * S).since_ns, 7 * S);
	wm_progress_status(&p, true, 30 * S, 0);
	ck_assert_int_eq(read_at(&p, 40 * S).since_ns, 30 * S);
	wm_progress_status(&p, false, 50 * S, 0);
	ck_assert_int_eq(read_at(&p, 60 * S).since_ns, 50 * S);
}
END_TEST

#ifdef WM_ASSERT_ENABLED
/* Checked builds only (base/assert.h): a reading before the last update
 * breaks progress.h's contract, and the tracker says so at once instead
 * of counting an idle stretch as negative. */
START_TEST(test_reading_before_the_last_update_is_a_broken_invariant)
{
	struct wm_progress p;

	wm_progress_init(&p, 10 * S);
	wm_progress_status(&p, true, 5 * S, WM_PROGRESS_NO_CAUSE);
	(void)read_at(&p, 4 * S);
}
END_TEST
#endif

static Suite *
progress_suite(void)
{
	Suite *s = suite_create("progress");
	TCase *t = tcase_create("progress");

	tcase_add_test(t, test_regular_advances_never_stall);
	tcase_add_test(t, test_a_long_gap_counts_whole);
	tcase_add_test(t, test_no_advance_is_ignored);
	tcase_add_test(t, test_idle_time_is_not_stalled_time);
	tcase_add_test(t, test_going_idle_closes_a_stall);
	tcase_add_test(t, test_open_stretches_count_up_to_the_reading);
	tcase_add_test(t, test_nothing_counts_after_max);
	tcase_add_test(t, test_the_longest_stall_names_what_ended_it);
	tcase_add_test(t, test_the_longest_stall_says_how_starved_it_was);
	tcase_add_test(t, test_a_real_run_takes_updates_when_they_were_due);
	tcase_add_test(t, test_a_late_idle_switch_is_no_stall);
	tcase_add_test(t, test_a_reading_says_when_the_present_state_began);
#ifdef WM_ASSERT_ENABLED
	tcase_add_test_raise_signal(
		t, test_reading_before_the_last_update_is_a_broken_invariant,
		SIGABRT);
#endif
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	return wm_check_main(progress_suite());
}
