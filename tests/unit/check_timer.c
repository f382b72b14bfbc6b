/*
 * check_timer.c
 *	Unit tests of the event-time timer set (operators/timer.c): set
 *	semantics, firing order, firing during firing, growth, and a
 *	randomized comparison against a brute-force model.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/types.h>

#include "operators/timer.h"
#include "tests/unit/check_main.h"

static struct wm_timer_service *svc;

static void
setup(void)
{
	svc = wm_timer_new();
	ck_assert_ptr_nonnull(svc);
}

static void
teardown(void)
{
	wm_timer_free(svc);
	svc = NULL;
}

/* Pop the next due timer and check it is (ts, key, ns). */
#define POP_EXPECT(ts_, key_, ns_)                                             \
	do {                                                                   \
		struct wm_timer t_;                                            \
		ck_assert_msg(wm_timer_pop_due(svc, &t_),                      \
			      "expected a due timer (%lld, %lld, %lld)",       \
			      (long long)(ts_), (long long)(key_),             \
			      (long long)(ns_));                               \
		ck_assert_int_eq(t_.ts, (ts_));                                \
		ck_assert_int_eq(t_.key, (key_));                              \
		ck_assert_int_eq(t_.ns, (ns_));                                \
	} while (0)

#define POP_NONE()                                                             \
	do {                                                                   \
		struct wm_timer t_;                                            \
		ck_assert(!wm_timer_pop_due(svc, &t_));                        \
	} while (0)

/* ---- tcase set: a set of triples ---- */

START_TEST(test_new_service_is_empty_at_min_watermark)
{
	struct wm_timer t;

	ck_assert_uint_eq(wm_timer_count(svc), 0);
	ck_assert_int_eq(wm_timer_watermark(svc), WM_TS_MIN);
	ck_assert(!wm_timer_peek(svc, &t));
	POP_NONE();
}
END_TEST

START_TEST(test_duplicate_add_is_noop)
{
	ck_assert_int_eq(wm_timer_add(svc, 1999, 2, 0), 1);
	ck_assert_int_eq(wm_timer_add(svc, 1999, 2, 0), 0);
	ck_assert_int_eq(wm_timer_add(svc, 1999, 2, 0), 0);
	ck_assert_uint_eq(wm_timer_count(svc), 1);
	/* Differing in any one component is another timer. */
	ck_assert_int_eq(wm_timer_add(svc, 1998, 2, 0), 1);
	ck_assert_int_eq(wm_timer_add(svc, 1999, 1, 0), 1);
	ck_assert_int_eq(wm_timer_add(svc, 1999, 2, 1000), 1);
	ck_assert_uint_eq(wm_timer_count(svc), 4);

	wm_timer_set_watermark(svc, WM_TS_MAX);
	POP_EXPECT(1998, 2, 0);
	POP_EXPECT(1999, 1, 0);
	POP_EXPECT(1999, 2, 0);
	POP_EXPECT(1999, 2, 1000);
	POP_NONE();
}
END_TEST

START_TEST(test_delete_removes_only_that_timer)
{
	ck_assert_int_eq(wm_timer_add(svc, 10, 1, 0), 1);
	ck_assert_int_eq(wm_timer_add(svc, 20, 1, 0), 1);
	ck_assert_int_eq(wm_timer_add(svc, 30, 1, 0), 1);
	ck_assert(wm_timer_delete(svc, 20, 1, 0));
	ck_assert(!wm_timer_contains(svc, 20, 1, 0));
	ck_assert(wm_timer_contains(svc, 10, 1, 0));
	ck_assert(wm_timer_contains(svc, 30, 1, 0));
	ck_assert_uint_eq(wm_timer_count(svc), 2);

	wm_timer_set_watermark(svc, 100);
	POP_EXPECT(10, 1, 0);
	POP_EXPECT(30, 1, 0);
	POP_NONE();
}
END_TEST

START_TEST(test_delete_of_missing_timer_is_noop)
{
	ck_assert(!wm_timer_delete(svc, 5, 5, 5));
	ck_assert_int_eq(wm_timer_add(svc, 5, 5, 5), 1);
	ck_assert(!wm_timer_delete(svc, 5, 5, 6));
	ck_assert(wm_timer_delete(svc, 5, 5, 5));
	ck_assert(!wm_timer_delete(svc, 5, 5, 5));
	ck_assert_uint_eq(wm_timer_count(svc), 0);
	/* Deleted timers can be added again. */
	ck_assert_int_eq(wm_timer_add(svc, 5, 5, 5), 1);
	ck_assert_uint_eq(wm_timer_count(svc), 1);
}
END_TEST

START_TEST(test_reserve_makes_room_for_adds)
{
	ck_assert_int_eq(wm_timer_reserve(svc, 5000), 0);
	for (int i = 0; i < 5000; i++)
		ck_assert_int_eq(wm_timer_add(svc, i, 0, 0), 1);
	ck_assert_uint_eq(wm_timer_count(svc), 5000);
	ck_assert_int_eq(wm_timer_reserve(svc, SIZE_MAX), -ENOMEM);
	ck_assert_uint_eq(wm_timer_count(svc), 5000);
}
END_TEST

/* ---- tcase order: what fires, and when ---- */

START_TEST(test_equal_timestamps_fire_by_key_then_namespace)
{
	/* Added in scrambled order. */
	ck_assert_int_eq(wm_timer_add(svc, 2999, 2, 0), 1);
	ck_assert_int_eq(wm_timer_add(svc, 2999, 1, 1000), 1);
	ck_assert_int_eq(wm_timer_add(svc, 999, 3, -2000), 1);
	ck_assert_int_eq(wm_timer_add(svc, 2999, 1, 0), 1);
	ck_assert_int_eq(wm_timer_add(svc, 2999, -7, 5), 1);
	ck_assert_int_eq(wm_timer_add(svc, 1999, 2, -1000), 1);

	wm_timer_set_watermark(svc, 3000);
	POP_EXPECT(999, 3, -2000);
	POP_EXPECT(1999, 2, -1000);
	POP_EXPECT(2999, -7, 5);
	POP_EXPECT(2999, 1, 0);
	POP_EXPECT(2999, 1, 1000);
	POP_EXPECT(2999, 2, 0);
	POP_NONE();
}
END_TEST

START_TEST(test_only_timers_at_or_below_watermark_are_due)
{
	struct wm_timer t;

	ck_assert_int_eq(wm_timer_add(svc, 1999, 1, 0), 1);
	ck_assert_int_eq(wm_timer_add(svc, 2000, 1, 0), 1);
	wm_timer_set_watermark(svc, 1998);
	POP_NONE();
	wm_timer_set_watermark(svc, 1999);
	POP_EXPECT(1999, 1, 0);
	POP_NONE();
	ck_assert(wm_timer_peek(svc, &t));
	ck_assert_int_eq(t.ts, 2000);
	ck_assert_int_eq(wm_timer_watermark(svc), 1999);
}
END_TEST

START_TEST(test_negative_timestamps_order_before_positive)
{
	ck_assert_int_eq(wm_timer_add(svc, 1, 0, 0), 1);
	ck_assert_int_eq(wm_timer_add(svc, -1, 0, 0), 1);
	ck_assert_int_eq(wm_timer_add(svc, WM_TS_MIN, 0, 0), 1);
	ck_assert_int_eq(wm_timer_add(svc, -1001, 0, 0), 1);

	/* A timer at WM_TS_MIN is due even at the initial watermark. */
	POP_EXPECT(WM_TS_MIN, 0, 0);
	POP_NONE();
	wm_timer_set_watermark(svc, 0);
	POP_EXPECT(-1001, 0, 0);
	POP_EXPECT(-1, 0, 0);
	POP_NONE();
}
END_TEST

START_TEST(test_max_watermark_fires_everything)
{
	ck_assert_int_eq(wm_timer_add(svc, WM_TS_MAX, 1, 0), 1);
	ck_assert_int_eq(wm_timer_add(svc, WM_TS_MAX - 1, 1, 0), 1);
	ck_assert_int_eq(wm_timer_add(svc, 0, 1, 0), 1);
	wm_timer_set_watermark(svc, WM_TS_MAX);
	POP_EXPECT(0, 1, 0);
	POP_EXPECT(WM_TS_MAX - 1, 1, 0);
	POP_EXPECT(WM_TS_MAX, 1, 0);
	POP_NONE();
	ck_assert_uint_eq(wm_timer_count(svc), 0);
}
END_TEST

/*
 * One watermark fired as the window fires it: set it, then pop until
 * nothing is due. Firing the first timer adds more and deletes one, as a
 * window's trigger may.
 */
START_TEST(test_timers_added_while_firing_fire_in_same_pass)
{
	static const wm_ts_t order[] = {100, 50, 150, 200};
	struct wm_timer t;
	size_t fired = 0;

	ck_assert_int_eq(wm_timer_add(svc, 100, 1, 0), 1);
	ck_assert_int_eq(wm_timer_add(svc, 180, 1, 0), 1);
	ck_assert_int_eq(wm_timer_add(svc, 200, 1, 0), 1);
	wm_timer_set_watermark(svc, 200);
	while (wm_timer_pop_due(svc, &t)) {
		ck_assert_uint_lt(fired, sizeof(order) / sizeof(order[0]));
		ck_assert_int_eq(t.ts, order[fired]);
		fired++;
		/* The timer being fired is already gone. */
		ck_assert(!wm_timer_contains(svc, t.ts, t.key, t.ns));
		if (t.ts != 100)
			continue;
		/* Due in this pass (also one earlier than the current). */
		ck_assert_int_eq(wm_timer_add(svc, 150, 9, 0), 1);
		ck_assert_int_eq(wm_timer_add(svc, 50, 9, 0), 1);
		/* Not due. */
		ck_assert_int_eq(wm_timer_add(svc, 201, 9, 0), 1);
		/* Deleting a pending due timer keeps it from firing. */
		ck_assert(wm_timer_delete(svc, 180, 1, 0));
	}
	ck_assert_uint_eq(fired, 4);
	ck_assert_int_eq(wm_timer_watermark(svc), 200);
	ck_assert_uint_eq(wm_timer_count(svc), 1);
	ck_assert(wm_timer_contains(svc, 201, 9, 0));
}
END_TEST

START_TEST(test_lower_watermark_is_accepted_like_flink)
{
	ck_assert_int_eq(wm_timer_add(svc, 10, 0, 0), 1);
	wm_timer_set_watermark(svc, 5);
	wm_timer_set_watermark(svc, 3);
	ck_assert_int_eq(wm_timer_watermark(svc), 3);
	POP_NONE();
}
END_TEST

/* ---- tcase model: randomized against a brute-force set ---- */

struct model {
	struct wm_timer *t;
	size_t n;
};

static bool
model_before(const struct wm_timer *a, const struct wm_timer *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts;
	if (a->key != b->key)
		return a->key < b->key;
	return a->ns < b->ns;
}

static ssize_t
model_find(const struct model *m, const struct wm_timer *t)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->t[i].ts == t->ts && m->t[i].key == t->key &&
		    m->t[i].ns == t->ns)
			return (ssize_t)i;
	return -1;
}

static ssize_t
model_min(const struct model *m)
{
	ssize_t best = -1;

	for (size_t i = 0; i < m->n; i++)
		if (best < 0 || model_before(&m->t[i], &m->t[best]))
			best = (ssize_t)i;
	return best;
}

static void
random_ops_match_model(unsigned seed, int ops, int64_t ts_range)
{
	struct model m = {.t = calloc((size_t)ops, sizeof(struct wm_timer)),
			  .n = 0};
	wm_ts_t watermark = WM_TS_MIN;

	ck_assert_ptr_nonnull(m.t);
	srandom(seed);
	for (int op = 0; op < ops; op++) {
		struct wm_timer t;
		long dice = random() % 100;
		ssize_t at;

		t.ts = random() % ts_range - ts_range / 2;
		t.key = random() % 4;
		t.ns = (random() % 3) * 1000 - 1000;
		at = model_find(&m, &t);
		if (dice < 55) {
			ck_assert_int_eq(wm_timer_add(svc, t.ts, t.key, t.ns),
					 at < 0 ? 1 : 0);
			if (at < 0)
				m.t[m.n++] = t;
		} else if (dice < 80) {
			ck_assert_int_eq(
				wm_timer_delete(svc, t.ts, t.key, t.ns),
				at >= 0);
			if (at >= 0)
				m.t[at] = m.t[--m.n];
		} else if (dice < 95) {
			ck_assert_int_eq(
				wm_timer_contains(svc, t.ts, t.key, t.ns),
				at >= 0);
		} else {
			/* Advance a little and drain everything due. */
			struct wm_timer got;

			if (watermark == WM_TS_MIN)
				watermark = -ts_range / 2;
			watermark += random() % (ts_range / 8 + 1);
			wm_timer_set_watermark(svc, watermark);
			for (;;) {
				ssize_t best = model_min(&m);
				bool due =
					best >= 0 && m.t[best].ts <= watermark;

				ck_assert_int_eq(wm_timer_pop_due(svc, &got),
						 due);
				if (!due)
					break;
				ck_assert_int_eq(got.ts, m.t[best].ts);
				ck_assert_int_eq(got.key, m.t[best].key);
				ck_assert_int_eq(got.ns, m.t[best].ns);
				m.t[best] = m.t[--m.n];
			}
		}
		ck_assert_uint_eq(wm_timer_count(svc), m.n);
	}
	/* Drain: the rest comes out in model order. */
	wm_timer_set_watermark(svc, WM_TS_MAX);
	while (m.n > 0) {
		struct wm_timer got;
		ssize_t best = model_min(&m);

		ck_assert(wm_timer_pop_due(svc, &got));
		ck_assert_int_eq(got.ts, m.t[best].ts);
		ck_assert_int_eq(got.key, m.t[best].key);
		ck_assert_int_eq(got.ns, m.t[best].ns);
		m.t[best] = m.t[--m.n];
	}
	POP_NONE();
	free(m.t);
}

START_TEST(test_random_ops_match_model_dense)
{
	/* Few distinct triples: many duplicates and misses. */
	random_ops_match_model(42, 20000, 64);
}
END_TEST

START_TEST(test_random_ops_match_model_growing)
{
	/* Many distinct triples: the heap and the index grow repeatedly. */
	random_ops_match_model(7, 20000, 1000000);
}
END_TEST

START_TEST(test_many_timers_pop_sorted)
{
	enum { N = 100000 };
	struct wm_timer prev, t;
	size_t n = 0;

	srandom(3);
	for (int i = 0; i < N; i++)
		ck_assert_int_ge(wm_timer_add(svc, random() % 10000 - 5000,
					      random() % 16, random() % 8),
				 0);
	wm_timer_set_watermark(svc, WM_TS_MAX);
	while (wm_timer_pop_due(svc, &t)) {
		if (n > 0)
			ck_assert(model_before(&prev, &t));
		prev = t;
		n++;
	}
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_eq(wm_timer_count(svc), 0);
}
END_TEST

static Suite *
timer_suite(void)
{
	Suite *s = suite_create("timer");
	TCase *tc;

	tc = tcase_create("set");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_new_service_is_empty_at_min_watermark);
	tcase_add_test(tc, test_duplicate_add_is_noop);
	tcase_add_test(tc, test_delete_removes_only_that_timer);
	tcase_add_test(tc, test_delete_of_missing_timer_is_noop);
	tcase_add_test(tc, test_reserve_makes_room_for_adds);
	suite_add_tcase(s, tc);

	tc = tcase_create("order");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_equal_timestamps_fire_by_key_then_namespace);
	tcase_add_test(tc, test_only_timers_at_or_below_watermark_are_due);
	tcase_add_test(tc, test_negative_timestamps_order_before_positive);
	tcase_add_test(tc, test_max_watermark_fires_everything);
	tcase_add_test(tc, test_timers_added_while_firing_fire_in_same_pass);
	tcase_add_test(tc, test_lower_watermark_is_accepted_like_flink);
	suite_add_tcase(s, tc);

	tc = tcase_create("model");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_random_ops_match_model_dense);
	tcase_add_test(tc, test_random_ops_match_model_growing);
	tcase_add_test(tc, test_many_timers_pop_sorted);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(timer_suite());
}
