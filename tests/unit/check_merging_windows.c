/*
 * check_merging_windows.c
 *	Unit tests of the per-key merging window sets
 *	(operators/merging_windows.c): Flink's MergingWindowSet.addWindow()
 *	with TimeWindow.mergeWindows(), the merge callback's arguments, vetoed
 *	merges, retiring, many keys, and randomized comparisons against a
 *	model that sorts and sweeps the whole set on every addition, as Flink
 *	does, including windows that wrap around the end of time.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/merging_windows.h"
#include "tests/unit/check_main.h"

/* ---- recording callbacks ---- */

#define MAX_MERGES 64
#define MAX_MERGED 256

struct merge_call {
	int64_t key;
	struct wm_time_window result;
	struct wm_merging_entry merged[MAX_MERGED];
	size_t n;
	wm_ts_t state_start;
};

static struct merge_call calls[MAX_MERGES];
static size_t ncalls;
static size_t nchecks;
static int veto; /* check returns this */

static int
rec_check(void *ctx, int64_t key, struct wm_time_window result)
{
	(void)ctx;
	(void)key;
	(void)result;
	nchecks++;
	return veto;
}

static void
rec_merge(void *ctx, int64_t key, struct wm_time_window result,
	  const struct wm_merging_entry *merged, size_t n, wm_ts_t state_start)
{
	struct merge_call *c;

	(void)ctx;
	if (ncalls >= MAX_MERGES || n > MAX_MERGED)
		ck_abort_msg("too many merges");
	c = &calls[ncalls++];
	c->key = key;
	c->result = result;
	memcpy(c->merged, merged, n * sizeof(*merged));
	c->n = n;
	c->state_start = state_start;
}

static const struct wm_merging_callbacks cbs = {
	.check = rec_check,
	.merge = rec_merge,
	.ctx = NULL,
};

static struct wm_merging_windows *mw;

static void
setup(void)
{
	mw = wm_merging_new();
	ck_assert_ptr_nonnull(mw);
	ncalls = 0;
	nchecks = 0;
	veto = 0;
}

static void
teardown(void)
{
	wm_merging_free(mw);
	mw = NULL;
}

static struct wm_time_window
win(wm_ts_t start, wm_ts_t end)
{
	struct wm_time_window w = {.start = start, .end = end};

	return w;
}

/* Add [start, end) to key; expect it to end up in [rs, re). */
static struct wm_merging_entry
add(int line, int64_t key, wm_ts_t start, wm_ts_t end, wm_ts_t rs, wm_ts_t re)
{
	struct wm_merging_entry act;

	ck_assert_msg(wm_merging_add(mw, key, win(start, end), &cbs, &act) == 0,
		      "line %d: add failed", line);
	ck_assert_msg(act.window.start == rs && act.window.end == re,
		      "line %d: ended up in [%lld,%lld), expected [%lld,%lld)",
		      line, (long long)act.window.start,
		      (long long)act.window.end, (long long)rs, (long long)re);
	return act;
}

#define ADD(key, s, e, rs, re) add(__LINE__, (key), (s), (e), (rs), (re))

/* Expect key's windows to be exactly the (start, end, state) triples. */
static void
expect_set(int line, int64_t key, const wm_ts_t (*want)[3], size_t n)
{
	struct wm_merging_entry got[64];
	size_t m = wm_merging_windows_of(mw, key, got, 64);

	ck_assert_msg(m == n, "line %d: key %lld has %zu windows, expected %zu",
		      line, (long long)key, m, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(got[i].window.start == want[i][0] &&
				      got[i].window.end == want[i][1] &&
				      got[i].state_start == want[i][2],
			      "line %d: window %zu is [%lld,%lld) state %lld, "
			      "expected [%lld,%lld) state %lld",
			      line, i, (long long)got[i].window.start,
			      (long long)got[i].window.end,
			      (long long)got[i].state_start,
			      (long long)want[i][0], (long long)want[i][1],
			      (long long)want[i][2]);
}

#define EXPECT_SET(key, ...)                                                   \
	do {                                                                   \
		static const wm_ts_t want_[][3] = {__VA_ARGS__};               \
		expect_set(__LINE__, (key), want_,                             \
			   sizeof(want_) / sizeof(want_[0]));                  \
	} while (0)

/* ---- tcase add ---- */

START_TEST(test_disjoint_windows_stay_apart_in_start_order)
{
	ADD(1, 50, 60, 50, 60);
	ADD(1, 10, 20, 10, 20);
	ADD(1, 30, 40, 30, 40);
	ADD(2, 15, 25, 15, 25);
	ck_assert_uint_eq(ncalls, 0);
	ck_assert_uint_eq(nchecks, 0);
	EXPECT_SET(1, {10, 20, 10}, {30, 40, 30}, {50, 60, 50});
	EXPECT_SET(2, {15, 25, 15});
	ck_assert_uint_eq(wm_merging_count(mw), 4);
	ck_assert_uint_eq(wm_merging_key_count(mw), 2);
}
END_TEST

START_TEST(test_touching_windows_merge)
{
	/* W-15: [10,20) and [20,30) intersect. */
	ADD(1, 10, 20, 10, 20);
	ADD(1, 20, 30, 10, 30);
	ck_assert_uint_eq(nchecks, 1);
	ck_assert_uint_eq(ncalls, 1);
	ck_assert_int_eq(calls[0].key, 1);
	ck_assert_int_eq(calls[0].result.start, 10);
	ck_assert_int_eq(calls[0].result.end, 30);
	/* Only the existing window: the new one has no state. */
	ck_assert_uint_eq(calls[0].n, 1);
	ck_assert_int_eq(calls[0].merged[0].window.start, 10);
	ck_assert_int_eq(calls[0].merged[0].window.end, 20);
	ck_assert_int_eq(calls[0].state_start, 10);
	EXPECT_SET(1, {10, 30, 10});

	/* One apart: no merge. */
	ADD(1, 31, 40, 31, 40);
	ck_assert_uint_eq(ncalls, 1);
	EXPECT_SET(1, {10, 30, 10}, {31, 40, 31});
}
END_TEST

START_TEST(test_new_window_before_a_session_keeps_its_state_window)
{
	ADD(1, 100, 130, 100, 130);
	ADD(1, 80, 110, 80, 130);
	ck_assert_uint_eq(ncalls, 1);
	ck_assert_int_eq(calls[0].state_start, 100);
	EXPECT_SET(1, {80, 130, 100});
	ADD(1, 60, 85, 60, 130);
	EXPECT_SET(1, {60, 130, 100});
	ck_assert_uint_eq(ncalls, 2);
	ck_assert_int_eq(calls[1].merged[0].window.start, 80);
	ck_assert_int_eq(calls[1].merged[0].state_start, 100);
}
END_TEST

START_TEST(test_window_inside_a_session_calls_no_merge)
{
	ADD(1, 0, 30, 0, 30);
	ADD(1, 20, 50, 0, 50);
	ck_assert_uint_eq(ncalls, 1);
	ADD(1, 5, 35, 0, 50);  /* inside */
	ADD(1, 0, 50, 0, 50);  /* equal */
	ADD(1, 20, 50, 0, 50); /* inside, touching the end */
	ck_assert_uint_eq(ncalls, 1);
	ck_assert_uint_eq(nchecks, 1);
	EXPECT_SET(1, {0, 50, 0});
}
END_TEST

START_TEST(test_bridging_window_merges_three_sessions)
{
	ADD(7, 0, 10, 0, 10);
	ADD(7, 40, 50, 40, 50);
	ADD(7, 20, 30, 20, 30);
	ADD(7, 100, 110, 100, 110);
	ck_assert_uint_eq(ncalls, 0);
	ADD(7, 5, 45, 0, 50);
	ck_assert_uint_eq(ncalls, 1);
	ck_assert_int_eq(calls[0].result.start, 0);
	ck_assert_int_eq(calls[0].result.end, 50);
	ck_assert_uint_eq(calls[0].n, 3);
	ck_assert_int_eq(calls[0].merged[0].window.start, 0);
	ck_assert_int_eq(calls[0].merged[1].window.start, 20);
	ck_assert_int_eq(calls[0].merged[2].window.start, 40);
	ck_assert_int_eq(calls[0].state_start, 0);
	EXPECT_SET(7, {0, 50, 0}, {100, 110, 100});
	ck_assert_uint_eq(wm_merging_count(mw), 2);
}
END_TEST

START_TEST(test_vetoed_merge_changes_nothing)
{
	struct wm_merging_entry act;

	ADD(1, 0, 10, 0, 10);
	ADD(1, 20, 30, 20, 30);
	veto = -ERANGE;
	ck_assert_int_eq(wm_merging_add(mw, 1, win(5, 25), &cbs, &act),
			 -ERANGE);
	ck_assert_uint_eq(ncalls, 0);
	EXPECT_SET(1, {0, 10, 0}, {20, 30, 20});
	ck_assert_uint_eq(wm_merging_count(mw), 2);
	/* No merge, no check: the veto cannot apply. */
	ADD(1, 40, 50, 40, 50);
	veto = 0;
	ADD(1, 5, 25, 0, 30);
	EXPECT_SET(1, {0, 30, 0}, {40, 50, 40});
}
END_TEST

START_TEST(test_find_and_retire)
{
	struct wm_merging_entry e;

	ADD(1, 0, 10, 0, 10);
	ADD(1, 5, 20, 0, 20);
	ADD(1, 30, 40, 30, 40);
	ADD(1, 50, 60, 50, 60);
	ck_assert(wm_merging_find(mw, 1, 0, &e));
	ck_assert_int_eq(e.window.end, 20);
	ck_assert(wm_merging_find(mw, 1, 50, &e));
	ck_assert(!wm_merging_find(mw, 1, 5, &e));
	ck_assert(!wm_merging_find(mw, 2, 0, &e));
	ck_assert(!wm_merging_retire(mw, 1, win(0, 10))); /* absorbed */
	ck_assert(wm_merging_retire(mw, 1, win(30, 40)));
	ck_assert(!wm_merging_retire(mw, 1, win(30, 40)));
	EXPECT_SET(1, {0, 20, 0}, {50, 60, 50});
	ck_assert(wm_merging_retire(mw, 1, win(0, 20)));
	ck_assert(wm_merging_retire(mw, 1, win(50, 60)));
	ck_assert_uint_eq(wm_merging_count(mw), 0);
	ck_assert_uint_eq(wm_merging_key_count(mw), 0);
	ck_assert(!wm_merging_find(mw, 1, 50, &e));
	ADD(1, 0, 10, 0, 10);
	ck_assert_uint_eq(wm_merging_key_count(mw), 1);
}
END_TEST

START_TEST(test_many_keys_and_many_windows_per_key)
{
	enum { KEYS = 5000, PER_KEY = 9 };
	struct wm_merging_entry e;

	for (int64_t k = 0; k < KEYS; k++)
		for (int64_t i = PER_KEY - 1; i >= 0; i--) {
			struct wm_merging_entry act;

			if (wm_merging_add(mw, k * 7919,
					   win(i * 100, i * 100 + 10), &cbs,
					   &act) != 0)
				ck_abort_msg("add failed");
		}
	ck_assert_uint_eq(wm_merging_key_count(mw), KEYS);
	ck_assert_uint_eq(wm_merging_count(mw), KEYS * PER_KEY);
	ck_assert_uint_eq(ncalls, 0);
	for (int64_t k = 0; k < KEYS; k++) {
		if (!wm_merging_find(mw, k * 7919, 300, &e) ||
		    e.window.end != 310)
			ck_abort_msg("key %lld lost a window", (long long)k);
	}
	/* Retire every other key completely. */
	for (int64_t k = 0; k < KEYS; k += 2)
		for (int64_t i = 0; i < PER_KEY; i++)
			if (!wm_merging_retire(mw, k * 7919,
					       win(i * 100, i * 100 + 10)))
				ck_abort_msg("retire failed");
	ck_assert_uint_eq(wm_merging_key_count(mw), KEYS / 2);
	for (int64_t k = 1; k < KEYS; k += 2)
		if (!wm_merging_find(mw, k * 7919, 800, &e))
			ck_abort_msg("key %lld lost a window", (long long)k);
}
END_TEST

/* ---- tcase random: against a full-sweep model ---- */

struct mentry {
	struct wm_time_window w;
	wm_ts_t state;
};

struct mmodel {
	struct mentry e[512];
	size_t n;
};

static bool
w_eq(struct wm_time_window a, struct wm_time_window b)
{
	return a.start == b.start && a.end == b.end;
}

/*
 * Flink's addWindow() by brute force: append, stable sort by start, sweep
 * the whole set. Expected merge calls go to want[]; returns the index of
 * the window the new one ended up in.
 */
static size_t
model_add(struct mmodel *m, struct wm_time_window w, struct merge_call *want,
	  size_t *nwant)
{
	struct mentry all[513], out[513];
	size_t n = 0, p = 0, nout = 0, result = 0;
	bool placed = false;

	for (size_t i = 0; i < m->n; i++) {
		if (!placed && m->e[i].w.start > w.start) {
			p = n;
			all[n].w = w;
			all[n++].state = w.start;
			placed = true;
		}
		all[n++] = m->e[i];
	}
	if (!placed) {
		p = n;
		all[n].w = w;
		all[n++].state = w.start;
	}
	for (size_t i = 0; i < n;) {
		struct wm_time_window cover = all[i].w;
		struct mentry ex[513] = {{{0, 0}, 0}};
		size_t j = i + 1, k = 0;
		bool has_new = false;

		while (j < n && wm_window_intersects(cover, all[j].w)) {
			cover = wm_window_cover(cover, all[j].w);
			j++;
		}
		for (size_t q = i; q < j; q++) {
			if (q == p)
				has_new = true;
			else
				ex[k++] = all[q];
		}
		if (j - i == 1) {
			out[nout] = all[i];
		} else if (has_new && k == 1 && w_eq(ex[0].w, cover)) {
			out[nout] = ex[0];
		} else {
			struct merge_call *c = &want[(*nwant)++];

			c->result = cover;
			c->n = k;
			for (size_t q = 0; q < k; q++) {
				c->merged[q].window = ex[q].w;
				c->merged[q].state_start = ex[q].state;
			}
			c->state_start = ex[0].state;
			out[nout].w = cover;
			out[nout].state = ex[0].state;
		}
		if (has_new)
			result = nout;
		nout++;
		i = j;
	}
	memcpy(m->e, out, nout * sizeof(*out));
	m->n = nout;
	return result;
}

static void
compare_sets(struct mmodel *m, int64_t key, int step)
{
	struct wm_merging_entry got[512];
	size_t n = wm_merging_windows_of(mw, key, got, 512);

	if (n != m->n)
		ck_abort_msg("step %d key %lld: %zu windows, model %zu", step,
			     (long long)key, n, m->n);
	for (size_t i = 0; i < n; i++)
		if (!w_eq(got[i].window, m->e[i].w) ||
		    got[i].state_start != m->e[i].state)
			ck_abort_msg("step %d key %lld window %zu: [%lld,%lld) "
				     "state %lld, model [%lld,%lld) state %lld",
				     step, (long long)key, i,
				     (long long)got[i].window.start,
				     (long long)got[i].window.end,
				     (long long)got[i].state_start,
				     (long long)m->e[i].w.start,
				     (long long)m->e[i].w.end,
				     (long long)m->e[i].state);
}

static int64_t
rnd64(void)
{
	return (int64_t)(((uint64_t)random() << 33) ^
			 ((uint64_t)random() << 11) ^ (uint64_t)random());
}

/*
 * Random additions and retirements on a few keys. `wrap`: windows near the
 * end of time with huge lengths, so that ends wrap past WM_TS_MAX and the
 * sets become irregular.
 */
static void
random_matches_model(unsigned seed, bool wrap)
{
	enum { KEYS = 4, STEPS = 3000 };
	static struct mmodel model[KEYS];
	static struct merge_call want[MAX_MERGES];

	srandom(seed);
	memset(model, 0, sizeof(model));
	for (int step = 0; step < STEPS; step++) {
		int64_t key = random() % KEYS;
		struct mmodel *m = &model[key];
		struct wm_merging_entry act;
		struct wm_time_window w;
		size_t nwant = 0, r;

		if (m->n > 0 && random() % 3 == 0) {
			size_t i = (size_t)random() % m->n;

			if (!wm_merging_retire(mw, key, m->e[i].w))
				ck_abort_msg("step %d: retire failed", step);
			memmove(&m->e[i], &m->e[i + 1],
				(m->n - i - 1) * sizeof(m->e[0]));
			m->n--;
			compare_sets(m, key, step);
			continue;
		}
		if (m->n >= 500)
			continue;
		if (wrap) {
			int64_t len = (int64_t)((uint64_t)rnd64() >> 1);

			w.start = WM_TS_MAX - (rnd64() & ((1LL << 62) - 1));
			if (random() % 2)
				w.start = WM_TS_MIN +
					  (rnd64() & ((1LL << 62) - 1));
			w.end = wm_ts_add(w.start, len == 0 ? 1 : len);
		} else {
			w.start = random() % 2000;
			w.end = w.start + 1 + random() % 40;
		}
		ncalls = 0;
		r = model_add(m, w, want, &nwant);
		if (wm_merging_add(mw, key, w, &cbs, &act) != 0)
			ck_abort_msg("step %d: add failed", step);
		if (!w_eq(act.window, m->e[r].w) ||
		    act.state_start != m->e[r].state)
			ck_abort_msg("step %d: ended up in [%lld,%lld), model "
				     "[%lld,%lld)",
				     step, (long long)act.window.start,
				     (long long)act.window.end,
				     (long long)m->e[r].w.start,
				     (long long)m->e[r].w.end);
		if (ncalls != nwant)
			ck_abort_msg("step %d: %zu merges, model %zu", step,
				     ncalls, nwant);
		/* The set merges runs in start order, as the model does. */
		for (size_t c = 0; c < ncalls; c++) {
			if (!w_eq(calls[c].result, want[c].result) ||
			    calls[c].n != want[c].n ||
			    calls[c].state_start != want[c].state_start)
				ck_abort_msg("step %d: merge %zu differs", step,
					     c);
			for (size_t q = 0; q < want[c].n; q++)
				if (!w_eq(calls[c].merged[q].window,
					  want[c].merged[q].window) ||
				    calls[c].merged[q].state_start !=
					    want[c].merged[q].state_start)
					ck_abort_msg("step %d: merge %zu "
						     "window %zu differs",
						     step, c, q);
		}
		compare_sets(m, key, step);
	}
}

START_TEST(test_random_matches_full_sweep_model)
{
	for (unsigned seed = 1; seed <= 10; seed++) {
		random_matches_model(seed, false);
		teardown();
		setup();
	}
}
END_TEST

START_TEST(test_random_wrapping_windows_match_full_sweep_model)
{
	for (unsigned seed = 100; seed <= 110; seed++) {
		random_matches_model(seed, true);
		teardown();
		setup();
	}
}
END_TEST

static Suite *
merging_windows_suite(void)
{
	Suite *s = suite_create("merging_windows");
	TCase *tc;

	tc = tcase_create("add");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_disjoint_windows_stay_apart_in_start_order);
	tcase_add_test(tc, test_touching_windows_merge);
	tcase_add_test(tc,
		       test_new_window_before_a_session_keeps_its_state_window);
	tcase_add_test(tc, test_window_inside_a_session_calls_no_merge);
	tcase_add_test(tc, test_bridging_window_merges_three_sessions);
	tcase_add_test(tc, test_vetoed_merge_changes_nothing);
	tcase_add_test(tc, test_find_and_retire);
	tcase_add_test(tc, test_many_keys_and_many_windows_per_key);
	suite_add_tcase(s, tc);

	tc = tcase_create("random");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_random_matches_full_sweep_model);
	tcase_add_test(tc, test_random_wrapping_windows_match_full_sweep_model);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(merging_windows_suite());
}
