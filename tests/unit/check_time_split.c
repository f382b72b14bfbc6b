/*
 * check_time_split.c
 *	Unit tests of a subtask's split of real time into idle,
 *	back-pressured and busy: totals, the wait going on, and a reader that
 *	never sees half of an update while the writer runs in another thread.
 */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <stdbool.h>

#include "runtime/metrics/time_split.h"
#include "tests/unit/check_main.h"

START_TEST(test_waits_add_up_by_kind)
{
	struct wm_time_split t = {0};
	struct wm_time_totals tot;

	wm_time_split_end(&t, 50); /* no wait began: nothing */
	wm_time_split_begin(&t, WM_TIME_IDLE, 100);
	wm_time_split_end(&t, 130);
	wm_time_split_begin(&t, WM_TIME_BACKPRESSURED, 200);
	wm_time_split_end(&t, 207);
	wm_time_split_begin(&t, WM_TIME_IDLE, 300);
	wm_time_split_end(&t, 301);
	ck_assert(wm_time_split_read(&t, 1000, &tot));
	ck_assert_int_eq(tot.idle_ns, 31);
	ck_assert_int_eq(tot.backpressured_ns, 7);
}
END_TEST

START_TEST(test_the_wait_going_on_counts_up_to_the_reader)
{
	struct wm_time_split t = {0};
	struct wm_time_totals tot;

	wm_time_split_begin(&t, WM_TIME_IDLE, 100);
	wm_time_split_end(&t, 110);
	wm_time_split_begin(&t, WM_TIME_BACKPRESSURED, 500);
	ck_assert(wm_time_split_read(&t, 800, &tot));
	ck_assert_int_eq(tot.idle_ns, 10);
	ck_assert_int_eq(tot.backpressured_ns, 300);
	/* A reader whose clock reads before the writer's: nothing open. */
	ck_assert(wm_time_split_read(&t, 400, &tot));
	ck_assert_int_eq(tot.backpressured_ns, 0);
}
END_TEST

START_TEST(test_a_writer_dead_mid_update_is_not_waited_for)
{
	struct wm_time_split t = {0};
	struct wm_time_totals tot = {-1, -1};

	wm_time_split_lock(&t); /* and never unlocks */
	ck_assert(!wm_time_split_read(&t, 1000, &tot));
	ck_assert_int_eq(tot.idle_ns, -1);
}
END_TEST

/*
 * The writer's waits: wait k begins at WAIT_GAP * k and lasts
 * 1 + k % 7 ns, all idle. Closed, the total after k waits is closed(k);
 * open during wait k it is closed(k) + now - WAIT_GAP * k. A torn reading
 * (a total of one update with the kind or start of another) matches
 * neither.
 */
#define WAIT_GAP 1000
#define WAITS 400000

static int64_t
closed(int64_t k)
{
	int64_t sum = 28 * (k / 7);

	for (int64_t i = 0; i < k % 7; i++)
		sum += 1 + i;
	return sum;
}

static void *
writer(void *arg)
{
	struct wm_time_split *t = arg;

	for (int64_t k = 0; k < WAITS; k++) {
		wm_time_split_begin(t, WM_TIME_IDLE, WAIT_GAP * k);
		wm_time_split_end(t, WAIT_GAP * k + 1 + k % 7);
	}
	return NULL;
}

/* Whether `idle`, read at `now`, is one of the totals the writer ever
 * had: closed after some k waits, or open during wait k. */
static bool
consistent(int64_t idle, int64_t now)
{
	/* closed(7 q) = 28 q, and closed grows within the next 7 waits. */
	for (int64_t k = 7 * (idle / 28); k <= 7 * (idle / 28) + 7; k++)
		if (k <= WAITS && closed(k) == idle)
			return true;
	/* Open: now - idle = WAIT_GAP * k - closed(k), which lies between
	 * (WAIT_GAP - 7) k and WAIT_GAP k. */
	int64_t x = now - idle;

	for (int64_t k = x / WAIT_GAP; k <= x / (WAIT_GAP - 7) + 1; k++)
		if (k >= 0 && k < WAITS &&
		    closed(k) + now - WAIT_GAP * k == idle)
			return true;
	return false;
}

START_TEST(test_a_concurrent_reader_sees_whole_updates)
{
	static struct wm_time_split t;
	const int64_t now = (int64_t)WAIT_GAP * WAITS * 4;
	pthread_t th;
	uint64_t reads = 0;

	ck_assert_int_eq(pthread_create(&th, NULL, writer, &t), 0);
	for (;;) {
		struct wm_time_totals tot;
		bool done =
			atomic_load_explicit(&t.since_ns,
					     memory_order_relaxed) ==
				(int64_t)WAIT_GAP * (WAITS - 1) &&
			atomic_load_explicit(&t.kind, memory_order_relaxed) ==
				WM_TIME_BUSY;

		if (!wm_time_split_read(&t, now, &tot))
			continue; /* the writer kept it busy: try again */
		reads++;
		if (!consistent(tot.idle_ns, now))
			ck_abort_msg("torn reading: idle %lld after %llu reads",
				     (long long)tot.idle_ns,
				     (unsigned long long)reads);
		ck_assert_int_eq(tot.backpressured_ns, 0);
		if (done)
			break;
	}
	pthread_join(th, NULL);
	ck_assert_uint_gt(reads, 0);
}
END_TEST

static Suite *
time_split_suite(void)
{
	Suite *s = suite_create("time_split");
	TCase *t = tcase_create("time_split");

	tcase_add_test(t, test_waits_add_up_by_kind);
	tcase_add_test(t, test_the_wait_going_on_counts_up_to_the_reader);
	tcase_add_test(t, test_a_writer_dead_mid_update_is_not_waited_for);
	tcase_add_test(t, test_a_concurrent_reader_sees_whole_updates);
	tcase_set_timeout(t, 60);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	return wm_check_main(time_split_suite());
}
