/*
 * check_source_gen.c
 *	Unit tests of the synthetic source generator (operators/source_gen.c):
 *	determinism, arrival spacing, merge order, out-of-orderness, key
 *	distributions, values, silences, limits, next_due_ns, Flink's split
 *	assignment and the wm_record_source interface.
 *
 * Statistical tests use fixed seeds, so they are deterministic; their
 * tolerances are still set several standard deviations wide, so that a
 * change of the random streams does not turn them into false alarms.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/countof.h"
#include "operators/source_gen.h"
#include "tests/unit/check_main.h"
#include "tests/unit/hot_assert.h"

#define MS 1000000LL /* ns */
#define SEC 1000000000LL

static struct wm_source_gen *
gen_new_ok(const struct wm_source_gen_conf *c)
{
	struct wm_source_gen *g = wm_source_gen_new(c);

	ck_assert_msg(g != NULL, "wm_source_gen_new failed: errno %d", errno);
	return g;
}

/* One partition per id in ids[0..n), rate, in order, one key. */
static void
conf_base(struct wm_source_gen_conf *c, const uint32_t *ids, uint32_t n,
	  double rate)
{
	wm_source_gen_conf_init(c);
	c->partitions = ids;
	c->n_partitions = n;
	c->rate = rate;
	c->seed = 42;
}

/* Drain everything due at now; returns the count. */
static size_t
drain(struct wm_source_gen *g, int64_t now, struct wm_record *out, size_t cap)
{
	struct wm_record r;
	size_t n = 0;

	while (wm_source_gen_next(g, now, &r) == 1) {
		if (n < cap)
			out[n] = r;
		n++;
	}
	return n;
}

/* ---- tcase determinism ---- */

static void
conf_rich(struct wm_source_gen_conf *c, const uint32_t *ids, uint32_t n)
{
	conf_base(c, ids, n, 1000);
	c->out_of_orderness_ms = 50;
	c->late_fraction = 0.1;
	c->late_by_ms = 100;
	c->keys = 1000;
	c->zipf = true;
	c->zipf_exponent = 1.1;
	c->value_cycle = 7;
}

START_TEST(test_same_seed_gives_identical_records)
{
	static const uint32_t ids[] = {0, 1, 2, 3};
	struct wm_source_gen_conf c;
	struct wm_source_gen *a, *b;
	struct wm_record ra, rb;
	int64_t now = 0;

	conf_rich(&c, ids, 4);
	a = gen_new_ok(&c);
	b = gen_new_ok(&c);
	for (int i = 0; i < 20000; i++) {
		int na, nb;

		if (i % 100 == 0)
			now += 37 * MS;
		na = wm_source_gen_next(a, now, &ra);
		nb = wm_source_gen_next(b, now, &rb);
		if (na != nb)
			ck_abort_msg("record %d: next gave %d and %d", i, na,
				     nb);
		if (na == 1 && memcmp(&ra, &rb, sizeof(ra)) != 0)
			ck_abort_msg("record %d differs", i);
	}
	wm_source_gen_free(a);
	wm_source_gen_free(b);
}
END_TEST

START_TEST(test_different_seed_gives_different_records)
{
	static const uint32_t ids[] = {0, 1};
	struct wm_source_gen_conf c;
	struct wm_source_gen *a, *b;
	struct wm_record ra, rb;
	int same_key = 0, same_ts = 0;

	conf_rich(&c, ids, 2);
	c.zipf = false;
	a = gen_new_ok(&c);
	c.seed = 43;
	b = gen_new_ok(&c);
	for (int i = 0; i < 2000; i++) {
		ck_assert_int_eq(wm_source_gen_next(a, 10 * SEC, &ra), 1);
		ck_assert_int_eq(wm_source_gen_next(b, 10 * SEC, &rb), 1);
		/* Arrival order does not depend on the seed. */
		ck_assert_uint_eq(ra.partition, rb.partition);
		same_key += ra.key == rb.key;
		same_ts += ra.ts == rb.ts;
	}
	/* 1000 uniform keys: about 2 equal by chance. */
	ck_assert_int_lt(same_key, 20);
	/* 51 delays, mostly: about 2000/51 + late ones equal. */
	ck_assert_int_lt(same_ts, 200);
	wm_source_gen_free(a);
	wm_source_gen_free(b);
}
END_TEST

START_TEST(test_partition_stream_does_not_depend_on_subtask)
{
	static const uint32_t alone[] = {3};
	static const uint32_t mixed[] = {5, 3, 0};
	struct wm_source_gen_conf c;
	struct wm_source_gen *a, *b;
	struct wm_record ra, rb;
	int n = 0;

	conf_rich(&c, alone, 1);
	a = gen_new_ok(&c);
	conf_rich(&c, mixed, 3);
	b = gen_new_ok(&c);
	while (n < 3000) {
		ck_assert_int_eq(wm_source_gen_next(b, 60 * SEC, &rb), 1);
		if (rb.partition != 3)
			continue;
		ck_assert_int_eq(wm_source_gen_next(a, 60 * SEC, &ra), 1);
		if (memcmp(&ra, &rb, sizeof(ra)) != 0)
			ck_abort_msg("record %d of partition 3 differs", n);
		n++;
	}
	wm_source_gen_free(a);
	wm_source_gen_free(b);
}
END_TEST

/* ---- tcase arrivals ---- */

/* A rate and the first arrivals of its one partition (a row a rate). */
struct spacing_row {
	double rate;
	int n;
	int64_t expect[8];
};

static const struct spacing_row spacing_rows[] = {
	{1000, 5, {0, 1 * MS, 2 * MS, 3 * MS, 4 * MS}},
	{3, 7, {0, 333333333, 666666666, SEC, 1333333333, 1666666666, 2 * SEC}},
	{2.5, 6, {0, 400 * MS, 800 * MS, 1200 * MS, 1600 * MS, 2 * SEC}},
	{0.3, 4, {0, 3333333333LL, 6666666666LL, 10 * SEC}},
};

/* Each record is due exactly at floor(k x 10^9 / rate): not a ns before. */
START_TEST(test_paced_arrivals_are_exactly_spaced)
{
	static const uint32_t ids[] = {0};
	const struct spacing_row *row = &spacing_rows[_i];
	const int64_t *expect = row->expect;
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record r;

	conf_base(&c, ids, 1, row->rate);
	g = gen_new_ok(&c);
	for (int k = 0; k < row->n; k++) {
		int64_t due = wm_source_gen_next_due_ns(g);

		ck_assert_msg(due == expect[k],
			      "rate %g: arrival %d due at %lld, expected %lld",
			      row->rate, k, (long long)due,
			      (long long)expect[k]);
		if (expect[k] > 0)
			ck_assert_msg(
				wm_source_gen_next(g, expect[k] - 1, &r) == 0,
				"rate %g: arrival %d a ns early", row->rate, k);
		ck_assert_msg(wm_source_gen_next(g, expect[k], &r) == 1,
			      "rate %g: arrival %d not due", row->rate, k);
		ck_assert_msg(r.ts == expect[k] / MS,
			      "rate %g: arrival %d has ts %lld", row->rate, k,
			      (long long)r.ts);
		ck_assert_msg(wm_source_gen_next(g, expect[k], &r) == 0,
			      "rate %g: arrival %d came twice", row->rate, k);
	}
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_whole_rates_stay_exact_far_out)
{
	static const uint32_t ids[] = {0};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record r;
	int64_t skip = 5000 * SEC; /* arrival 5 x 10^9 at 1M/s */

	conf_base(&c, ids, 1, 1000000);
	/* Jump far ahead with a silence, then check the spacing. */
	c.n_silences = 1;
	c.silences = &(struct wm_source_gen_silence){0, 0, 0, skip / MS, 0, 0};
	g = gen_new_ok(&c);
	for (int64_t k = 0; k < 5; k++) {
		ck_assert_int_eq(wm_source_gen_next_due_ns(g), skip + k * 1000);
		ck_assert_int_eq(wm_source_gen_next(g, skip + k * 1000, &r), 1);
	}
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_records_carry_arrival_time_not_poll_time)
{
	static const uint32_t ids[] = {0};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	static struct wm_record out[2000];
	size_t n;

	conf_base(&c, ids, 1, 1000);
	g = gen_new_ok(&c);
	/* Polled once, a second late: every arrival up to 1 s, in order. */
	n = drain(g, SEC, out, 2000);
	ck_assert_uint_eq(n, 1001);
	for (size_t i = 0; i < n; i++)
		if (out[i].ts != (int64_t)i)
			ck_abort_msg("record %zu has ts %lld", i,
				     (long long)out[i].ts);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), 1001 * MS);
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_skew_multiplies_rate)
{
	static const uint32_t ids[] = {0, 1, 2, 3};
	static const double skew[] = {1, 4, 0.5};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_source_partition_stats st;
	static const uint64_t expect[] = {1001, 4001, 501, 1001};

	conf_base(&c, ids, 4, 1000);
	c.skew = skew;
	c.n_skew = 3; /* partition 3: no entry, multiplier 1 */
	g = gen_new_ok(&c);
	drain(g, SEC, NULL, 0);
	for (uint32_t i = 0; i < 4; i++) {
		wm_source_gen_partition_stats(g, i, SEC, &st);
		ck_assert_uint_eq(st.partition, ids[i]);
		ck_assert_uint_eq(st.emitted, expect[i]);
		ck_assert_uint_eq(st.skipped, 0);
	}
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_ties_go_by_partition_id)
{
	static const uint32_t ids[] = {5, 2, 9};
	static const uint32_t order[] = {2, 5, 9, 2, 5, 9};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record out[8];

	conf_base(&c, ids, 3, 10);
	g = gen_new_ok(&c);
	ck_assert_uint_eq(drain(g, 100 * MS, out, 8), 6);
	for (int i = 0; i < 6; i++)
		ck_assert_uint_eq(out[i].partition, order[i]);
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_merge_is_earliest_arrival_first)
{
	static const uint32_t ids[] = {0, 1, 2};
	static const double skew[] = {1, 1.5, 0.7};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record r;
	int64_t prev_due = -1;
	uint32_t prev_part = 0;

	conf_base(&c, ids, 3, 1000);
	c.skew = skew;
	c.n_skew = 3;
	g = gen_new_ok(&c);
	for (int i = 0; i < 10000; i++) {
		int64_t due = wm_source_gen_next_due_ns(g);

		/* Nothing is due a nanosecond early... */
		if (wm_source_gen_next(g, due - 1, &r) != 0)
			ck_abort_msg("record %d came before its due time", i);
		/* ...and the one due comes out, in (due, partition) order. */
		if (wm_source_gen_next(g, due, &r) != 1)
			ck_abort_msg("record %d not due at next_due_ns", i);
		if (due < prev_due ||
		    (due == prev_due && r.partition <= prev_part))
			ck_abort_msg("record %d out of order: %lld/%u after "
				     "%lld/%u",
				     i, (long long)due, r.partition,
				     (long long)prev_due, prev_part);
		if (r.ts != due / MS)
			ck_abort_msg("record %d: ts %lld, arrival %lld ns", i,
				     (long long)r.ts, (long long)due);
		prev_due = due;
		prev_part = r.partition;
	}
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_fast_mode_takes_turns_by_skew)
{
	static const uint32_t ids[] = {0, 1, 2};
	static const double skew[] = {1, 2, 1};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record out[3000];
	unsigned count[3] = {0, 0, 0};

	conf_base(&c, ids, 3, INFINITY);
	g = gen_new_ok(&c);
	ck_assert_int_le(wm_source_gen_next_due_ns(g), 0);
	for (int i = 0; i < 9; i++) {
		ck_assert_int_eq(wm_source_gen_next(g, 7 * MS, &out[i]), 1);
		ck_assert_uint_eq(out[i].partition, (uint32_t)i % 3);
		ck_assert_int_eq(out[i].ts, 7);
	}
	ck_assert_int_le(wm_source_gen_next_due_ns(g), 7 * MS);
	wm_source_gen_free(g);

	c.skew = skew;
	c.n_skew = 3;
	g = gen_new_ok(&c);
	for (int i = 0; i < 3000; i++) {
		ck_assert_int_eq(wm_source_gen_next(g, 0, &out[i]), 1);
		count[out[i].partition]++;
	}
	ck_assert_uint_eq(count[0], 750);
	ck_assert_uint_eq(count[1], 1500);
	ck_assert_uint_eq(count[2], 750);
	wm_source_gen_free(g);
}
END_TEST

/* Partitions 0, 1, 2 at 700 records/s skewed 1, 3 and 0.25, 0 and 1
 * silent from 300 ms to 800 ms. */
static void
conf_skewed_with_silence(struct wm_source_gen_conf *c)
{
	static const uint32_t ids[] = {0, 1, 2};
	static const double skew[] = {1, 3, 0.25};
	static const struct wm_source_gen_silence silence = {0,	  1, 300,
							     800, 0, 0};

	conf_base(c, ids, 3, 700);
	c->skew = skew;
	c->n_skew = 3;
	c->n_silences = 1;
	c->silences = &silence;
}

START_TEST(test_next_due_ns_after_nothing_due_is_in_the_future)
{
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record r;
	uint64_t emitted = 0;

	conf_skewed_with_silence(&c);
	g = gen_new_ok(&c);
	/* Poll at odd times: after a 0 the next due time is later, and
	 * nothing comes out before it. */
	for (int64_t now = 0; now < 2 * SEC; now += 1234567) {
		int64_t due;

		while (wm_source_gen_next(g, now, &r) == 1)
			emitted++;
		due = wm_source_gen_next_due_ns(g);
		if (due <= now)
			ck_abort_msg("due %lld not after now %lld",
				     (long long)due, (long long)now);
		if (due - 1 > now && wm_source_gen_next(g, due - 1, &r) != 0)
			ck_abort_msg("record before due %lld", (long long)due);
		if (wm_source_gen_next(g, due, &r) != 1)
			ck_abort_msg("nothing at due %lld", (long long)due);
		emitted++;
	}
	ck_assert_uint_gt(emitted, 1000);
	wm_source_gen_free(g);
}
END_TEST

/* Each partition's own next due time is when its next record comes: the
 * record next() returns is from a partition whose due time is the
 * generator's, none is due earlier, and a silent partition's is the
 * silence's end. Finished: never; paused or fast: the generator cannot
 * say. */
START_TEST(test_each_partition_says_when_its_next_record_is_due)
{
	static const uint32_t ids[] = {0, 1, 2};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record r;
	uint64_t checked = 0;

	conf_skewed_with_silence(&c);
	c.end_ts = 2000;
	g = gen_new_ok(&c);
	for (;;) {
		int64_t due = wm_source_gen_next_due_ns(g), part[3];

		if (due == INT64_MAX)
			break;
		for (uint32_t i = 0; i < 3; i++) {
			part[i] = wm_source_gen_partition_next_due_ns(g, i);
			ck_assert_int_ge(part[i], due);
		}
		if (due >= 300 * MS && due < 800 * MS) {
			ck_assert_int_ge(part[0], 800 * MS);
			ck_assert_int_ge(part[1], 800 * MS);
		}
		if (wm_source_gen_next(g, due, &r) != 1)
			continue; /* a partition finished at the end */
		ck_assert_int_eq(part[r.partition], due);
		checked++;
	}
	ck_assert_uint_gt(checked, 1000);
	for (uint32_t i = 0; i < 3; i++)
		ck_assert_int_eq(wm_source_gen_partition_next_due_ns(g, i),
				 INT64_MAX);
	wm_source_gen_free(g);

	g = gen_new_ok(&c);
	wm_source_gen_pause(g, 2, true, 0);
	ck_assert_int_eq(wm_source_gen_partition_next_due_ns(g, 2),
			 WM_RECORD_SOURCE_DUE_UNKNOWN);
	ck_assert_int_eq(wm_source_gen_partition_next_due_ns(g, 0), 0);
	wm_source_gen_free(g);

	conf_base(&c, ids, 3, INFINITY);
	g = gen_new_ok(&c);
	ck_assert_int_eq(wm_source_gen_partition_next_due_ns(g, 0),
			 WM_RECORD_SOURCE_DUE_UNKNOWN);
	wm_source_gen_free(g);
}
END_TEST

/* ---- tcase out_of_order ---- */

START_TEST(test_delays_within_bound_and_late_fraction)
{
	static const uint32_t ids[] = {0};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record r;
	const int n = 100000;
	int late = 0, min_in = 1000, max_in = -1, min_late = 1000,
	    max_late = -1;
	double sum_in = 0;

	conf_base(&c, ids, 1, 1000);
	c.out_of_orderness_ms = 50;
	c.late_fraction = 0.2;
	c.late_by_ms = 100;
	c.start_epoch_ms = 1700000000000LL;
	g = gen_new_ok(&c);
	for (int k = 0; k < n; k++) {
		int64_t d;

		if (wm_source_gen_next(g, 200 * SEC, &r) != 1)
			ck_abort_msg("record %d missing", k);
		d = c.start_epoch_ms + k - r.ts;
		if (d < 0 || d > 150)
			ck_abort_msg("record %d: delay %lld", k, (long long)d);
		if (d > 50) {
			late++;
			min_late = d < min_late ? (int)d : min_late;
			max_late = d > max_late ? (int)d : max_late;
		} else {
			sum_in += (double)d;
			min_in = d < min_in ? (int)d : min_in;
			max_in = d > max_in ? (int)d : max_in;
		}
	}
	/* sd of the fraction: sqrt(0.2 x 0.8 / 1e5) = 0.0013 */
	ck_assert_msg(fabs((double)late / n - 0.2) < 0.01, "late fraction %f",
		      (double)late / n);
	ck_assert_int_eq(min_in, 0);
	ck_assert_int_eq(max_in, 50);
	ck_assert_int_eq(min_late, 51);
	ck_assert_int_eq(max_late, 150);
	/* Uniform on 0..50: mean 25, sd of the mean about 0.05. */
	ck_assert_msg(fabs(sum_in / (n - late) - 25.0) < 0.5, "mean delay %f",
		      sum_in / (n - late));
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_no_late_records_without_late_by)
{
	static const uint32_t ids[] = {0};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record r;

	conf_base(&c, ids, 1, 1000);
	c.out_of_orderness_ms = 20;
	c.late_fraction = 0.5;
	c.late_by_ms = 0;
	g = gen_new_ok(&c);
	for (int k = 0; k < 10000; k++) {
		int64_t d;

		if (wm_source_gen_next(g, 20 * SEC, &r) != 1)
			ck_abort_msg("record %d missing", k);
		d = k - r.ts;
		if (d < 0 || d > 20)
			ck_abort_msg("record %d: delay %lld", k, (long long)d);
	}
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_in_order_without_bound)
{
	static const uint32_t ids[] = {0, 1};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record r;
	wm_ts_t last[2] = {WM_TS_MIN, WM_TS_MIN};

	conf_base(&c, ids, 2, 333);
	c.start_epoch_ms = -5000;
	g = gen_new_ok(&c);
	for (int i = 0; i < 5000; i++) {
		ck_assert_int_eq(wm_source_gen_next(g, 100 * SEC, &r), 1);
		if (r.ts < last[r.partition])
			ck_abort_msg("record %d goes backwards", i);
		last[r.partition] = r.ts;
	}
	ck_assert_int_ge(last[0], -5000 + 7500 - 1);
	wm_source_gen_free(g);
}
END_TEST

/* ---- tcase keys ---- */

/* Draw n keys from one fast-mode partition into counts[0..keys). */
static void
draw_keys(uint64_t keys, bool zipf, double s, int n, unsigned *counts)
{
	static const uint32_t ids[] = {0};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record r;

	conf_base(&c, ids, 1, INFINITY);
	c.keys = keys;
	c.zipf = zipf;
	c.zipf_exponent = s;
	c.seed = 7;
	g = gen_new_ok(&c);
	for (int i = 0; i < n; i++) {
		if (wm_source_gen_next(g, 0, &r) != 1)
			ck_abort_msg("record %d missing", i);
		if (r.key < 0 || (uint64_t)r.key >= keys)
			ck_abort_msg("key %lld out of range", (long long)r.key);
		counts[r.key]++;
	}
	wm_source_gen_free(g);
}

/* Pearson's chi-square of counts[0..k) against probabilities p[]. */
static double
chi_square(const unsigned *counts, const double *p, size_t k, int n)
{
	double chi = 0;

	for (size_t i = 0; i < k; i++) {
		double e = p[i] * n;

		chi += (counts[i] - e) * (counts[i] - e) / e;
	}
	return chi;
}

START_TEST(test_uniform_keys_pass_chi_square)
{
	static unsigned counts[100];
	double p[100];
	double chi;

	for (int i = 0; i < 100; i++)
		p[i] = 0.01;
	draw_keys(100, false, 0, 100000, counts);
	chi = chi_square(counts, p, 100, 100000);
	/* 99 degrees of freedom: mean 99, sd 14; 1e-4 quantile 148. */
	ck_assert_msg(chi < 160, "chi-square %f", chi);
	ck_assert_msg(chi > 50, "chi-square %f: suspiciously even", chi);
}
END_TEST

/* Zipf(keys, s) drawn n times: its chi-square against the exact
 * probabilities must stay under limit. */
struct zipf_row {
	uint64_t keys;
	double s;
	int n;
	double limit;
};

static const struct zipf_row zipf_rows[] = {
	/* 49 degrees of freedom: 1e-4 quantile 90. */
	{50, 1.2, 200000, 100},
	{50, 0.7, 200000, 100},
	{50, 1.0, 200000, 100},
	{50, 3.0, 200000, 100},
	/* 999: mean 999, sd 45. */
	{1000, 1.0, 200000, 1250},
	{2, 1.0, 100000, 20},
};

START_TEST(test_zipf_keys_match_distribution)
{
	uint64_t keys = zipf_rows[_i].keys;
	double s = zipf_rows[_i].s;
	int n = zipf_rows[_i].n;
	double limit = zipf_rows[_i].limit;
	unsigned *counts = calloc(keys, sizeof(*counts));
	double *p = calloc(keys, sizeof(*p));
	double norm = 0, chi;

	ck_assert_ptr_nonnull(counts);
	ck_assert_ptr_nonnull(p);
	for (uint64_t j = 0; j < keys; j++) {
		p[j] = pow((double)(j + 1), -s);
		norm += p[j];
	}
	for (uint64_t j = 0; j < keys; j++)
		p[j] /= norm;
	draw_keys(keys, true, s, n, counts);
	chi = chi_square(counts, p, keys, n);
	ck_assert_msg(chi < limit,
		      "zipf(%llu, %g): chi-square %f over %llu "
		      "bins",
		      (unsigned long long)keys, s, chi,
		      (unsigned long long)keys);
	free(counts);
	free(p);
}
END_TEST

START_TEST(test_zipf_rank_one_is_most_frequent_over_a_million_keys)
{
	unsigned *counts = calloc(1000000, sizeof(*counts));
	double h = 0;
	unsigned above = 0;

	ck_assert_ptr_nonnull(counts);
	for (int j = 1; j <= 1000000; j++)
		h += pow(j, -1.1);
	draw_keys(1000000, true, 1.1, 200000, counts);
	/* Ranks 1..5 in order with a clear margin (expected about 24800,
	 * 11600, 7400, 5400, 4200; sd at most 160). */
	for (int j = 0; j < 4; j++) {
		double e = 200000 * pow(j + 1, -1.1) / h;

		ck_assert_msg(fabs(counts[j] - e) < 6 * sqrt(e),
			      "rank %d: %u, expected %f", j + 1, counts[j], e);
		ck_assert_uint_gt(counts[j], counts[j + 1] + 500);
	}
	/* The tail beyond rank 1000 holds its share too. */
	for (int j = 1000; j < 1000000; j++)
		above += counts[j];
	{
		double tail = 0;

		for (int j = 1001; j <= 1000000; j++)
			tail += pow(j, -1.1);
		tail *= 200000 / h;
		ck_assert_msg(fabs(above - tail) < 6 * sqrt(tail),
			      "tail: %u, expected %f", above, tail);
	}
	free(counts);
}
END_TEST

START_TEST(test_single_key_is_zero)
{
	unsigned counts[1] = {0};

	draw_keys(1, true, 1.0, 1000, counts);
	ck_assert_uint_eq(counts[0], 1000);
}
END_TEST

/* ---- tcase values ---- */

START_TEST(test_values_cycle_per_partition)
{
	static const uint32_t ids[] = {0, 1};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record out[20];
	int64_t sum = 0;

	conf_base(&c, ids, 2, 1000);
	g = gen_new_ok(&c);
	ck_assert_uint_eq(drain(g, 9 * MS, out, 20), 20);
	for (int i = 0; i < 20; i++)
		ck_assert_int_eq(out[i].value, 1);
	for (int i = 0; i < 20; i++)
		ck_assert_uint_eq(out[i].flags, 0);
	wm_source_gen_free(g);

	c.value_cycle = 3;
	g = gen_new_ok(&c);
	ck_assert_uint_eq(drain(g, 9 * MS, out, 20), 20);
	for (int i = 0; i < 20; i++) {
		/* Records alternate 0, 1; each partition counts its own. */
		ck_assert_int_eq(out[i].value, 1 + (i / 2) % 3);
		sum += out[i].value;
	}
	/* n = 10 per partition = 3 x 3 + 1: 10 + 3 x 3 + 0 = 19 each. */
	ck_assert_int_eq(sum, 38);
	wm_source_gen_free(g);
}
END_TEST

/*
 * c's first 600 records, paced a record a call (drained at 199 ms) and
 * fast in runs (of 7, the caller's clock 2 ms on a run, so that event
 * time moves; the whole rounds write a partition at a time), each checked
 * by expect(out, 600, arg): marks must land on the same records either
 * way.
 */
static void
check_marks_paced_and_fast(struct wm_source_gen_conf *c,
			   void (*expect)(const struct wm_record *out, size_t n,
					  const void *arg),
			   const void *arg)
{
	struct wm_source_gen *g;
	struct wm_record out[600];
	uint32_t got = 0, n;

	c->rate = 1000;
	g = gen_new_ok(c);
	ck_assert_uint_eq(drain(g, 199 * MS, out, 600), 600);
	expect(out, 600, arg);
	wm_source_gen_free(g);

	c->rate = INFINITY;
	g = gen_new_ok(c);
	for (int64_t now = 0;
	     got < 600 &&
	     (n = wm_source_gen_next_run(g, now, out + got, NULL,
					 600 - got < 7 ? 600 - got : 7)) > 0;
	     now += 2 * MS)
		got += n;
	ck_assert_uint_eq(got, 600);
	expect(out, 600, arg);
	wm_source_gen_free(g);
}

/* c with the n punctuations pu is refused. */
static void
check_punctuations_refused(struct wm_source_gen_conf *c,
			   const struct wm_source_gen_punctuation *pu,
			   uint32_t n)
{
	c->punctuations = pu;
	c->n_punctuations = n;
	errno = 0;
	ck_assert_ptr_null(wm_source_gen_new(c));
	ck_assert_int_eq(errno, EINVAL);
}

/*
 * Punctuations mark every n-th record of their partitions, counted by
 * partition, and nothing else. Two punctuations may not share a
 * partition, and a count of 0 marks nothing and is refused.
 */
static void
expect_marks(const struct wm_record *out, size_t n, const void *arg)
{
	const uint32_t *ids = arg;
	uint64_t seen[3] = {0};

	for (size_t i = 0; i < n; i++) {
		uint32_t k = out[i].partition == ids[0]	  ? 0
			     : out[i].partition == ids[1] ? 1
							  : 2;
		uint64_t nth = ++seen[k];
		bool marked =
			(k == 0 && nth % 3 == 0) || (k == 1 && nth % 5 == 0);

		ck_assert_msg(
			out[i].flags == (marked ? WM_RECORD_PUNCTUATE : 0),
			"record %zu (partition %u, its %llu-th): flags %u", i,
			out[i].partition, (unsigned long long)nth,
			out[i].flags);
	}
	ck_assert_uint_gt(seen[2], 0);
}

START_TEST(test_punctuations_mark_every_nth_record_of_their_partitions)
{
	static const uint32_t ids[] = {4, 7, 9};
	/* By count: every_ms 0. */
	static const struct wm_source_gen_punctuation pu[] = {{4, 4, 3, 0},
							      {6, 8, 5, 0}};
	static const struct wm_source_gen_punctuation overlap[] = {
		{4, 6, 3, 0}, {6, 8, 5, 0}};
	static const struct wm_source_gen_punctuation never[] = {{4, 4, 0, 0}};
	struct wm_source_gen_conf c;

	conf_base(&c, ids, 3, 1000);
	c.keys = 16;
	c.n_punctuations = 2;
	c.punctuations = pu;
	check_marks_paced_and_fast(&c, expect_marks, ids);
	check_punctuations_refused(&c, overlap, 2);
	check_punctuations_refused(&c, never, 1);
}
END_TEST

/*
 * A punctuation by event time (partitions 4 and 7 here, by 40 ms slots
 * from the epoch) marks each partition's first record, then each whose
 * timestamp reaches a slot after the last marked one's, out of order or
 * not: a record behind the last mark is never marked. Both a count and a
 * period, or neither, is refused.
 */
static void
expect_time_marks(const struct wm_record *out, size_t n, const void *arg)
{
	const int64_t every = *(const int64_t *)arg;
	wm_ts_t next[2] = {WM_TS_MIN, WM_TS_MIN};
	uint64_t marks = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t k = out[i].partition == 4 ? 0 : 1;
		bool marked = out[i].partition != 9 && out[i].ts >= next[k];

		if (marked) {
			next[k] = (out[i].ts / every + 1) * every;
			marks++;
		}
		ck_assert_msg(
			out[i].flags == (marked ? WM_RECORD_PUNCTUATE : 0),
			"record %zu (partition %u, ts %lld): flags %u", i,
			out[i].partition, (long long)out[i].ts, out[i].flags);
	}
	/* About one a slot of each of two partitions, and not every record:
	 * the rule was tried both ways. */
	ck_assert_uint_gt(marks, 10);
	ck_assert_uint_lt(marks, n / 3);
}

START_TEST(test_punctuations_by_time_mark_a_record_a_slot)
{
	static const uint32_t ids[] = {4, 7, 9};
	static const int64_t every = 40;
	static const struct wm_source_gen_punctuation pu[] = {
		{.first_partition = 4, .last_partition = 7, .every_ms = 40}};
	static const struct wm_source_gen_punctuation both[] = {
		{.first_partition = 4,
		 .last_partition = 4,
		 .every_records = 3,
		 .every_ms = 40}};
	static const struct wm_source_gen_punctuation neither[] = {
		{.first_partition = 4, .last_partition = 4}};
	struct wm_source_gen_conf c;

	conf_base(&c, ids, 3, 1000);
	c.keys = 16;
	c.start_epoch_ms = 1000003; /* slots do not start with the job */
	c.out_of_orderness_ms = 25;
	c.n_punctuations = 1;
	c.punctuations = pu;
	check_marks_paced_and_fast(&c, expect_time_marks, &every);
	check_punctuations_refused(&c, both, 1);
	check_punctuations_refused(&c, neither, 1);
}
END_TEST

/* ---- tcase random_silences ---- */

/*
 * Partitions 0 and 1 at 10 records/s for 10^4 s, each silent a fraction
 * 0.2 of the time in periods of mean 1 s: which of their 10^5 arrivals each
 * one emitted, as bitmaps by arrival index (ts / 100 ms, in order).
 */
#define RSIL_ARRIVALS 100000u

static void
rsil_run(const uint32_t *ids, uint32_t n, uint64_t seed,
	 unsigned char emitted[][RSIL_ARRIVALS])
{
	static const struct wm_source_gen_random_silence rs = {0, 1, 0.2, 1000};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record r;

	conf_base(&c, ids, n, 10);
	c.seed = seed;
	c.end_ts = RSIL_ARRIVALS * 100;
	c.n_random_silences = 1;
	c.random_silences = &rs;
	g = gen_new_ok(&c);
	memset(emitted, 0, (size_t)n * RSIL_ARRIVALS);
	while (wm_source_gen_next(g, c.end_ts * MS, &r) == 1) {
		WM_HOT_ASSERT(r.ts % 100 == 0 && r.ts / 100 < RSIL_ARRIVALS,
			      "record at %lld", (long long)r.ts);
		emitted[r.partition == ids[0] ? 0 : 1][r.ts / 100] = 1;
	}
	ck_assert(wm_source_gen_finished(g));
	wm_source_gen_free(g);
}

/*
 * Tolerances. The silent time over a horizon T of an alternating process
 * with independent exponential periods of means a (sending) and b (silent)
 * is asymptotically normal with variance 2 a^2 b^2 T / (a + b)^3 (the
 * renewal-reward central limit theorem), so the silent fraction has
 * variance 2 b p (1 - p)^2 / T with b = D, p = b / (a + b): here
 * 2 x 1 s x 0.2 x 0.64 / 10^4 s, a standard deviation of 0.0051. Sampling
 * at the arrivals (every 0.1 s, ten per mean period) adds little. Both
 * partitions silent at once is, if they are independent, a process of
 * fraction p^2 = 0.04 whose silent periods have mean D / 2 (the minimum of
 * two exponential remainders), standard deviation about
 * sqrt(2 x 0.5 x 0.04 x 0.92^2 / 10^4) = 0.0018. Both tolerances are
 * five of those.
 */
START_TEST(test_random_silence_long_run_fraction_and_independence)
{
	static const uint32_t ids[] = {0, 1};
	static unsigned char emitted[2][RSIL_ARRIVALS];
	unsigned silent[2] = {0, 0}, both = 0;

	rsil_run(ids, 2, 42, emitted);
	for (uint32_t k = 0; k < RSIL_ARRIVALS; k++) {
		silent[0] += !emitted[0][k];
		silent[1] += !emitted[1][k];
		both += !emitted[0][k] && !emitted[1][k];
	}
	for (int i = 0; i < 2; i++)
		ck_assert_msg(fabs(silent[i] / (double)RSIL_ARRIVALS - 0.2) <
				      0.026,
			      "partition %d silent %u of %u arrivals", i,
			      silent[i], RSIL_ARRIVALS);
	ck_assert_msg(fabs(both / (double)RSIL_ARRIVALS - 0.04) < 0.009,
		      "both silent at %u of %u arrivals", both, RSIL_ARRIVALS);
}
END_TEST

/* The same seed gives the same silences; a partition's do not depend on
 * the other partitions of its subtask, and differ from another's. */
START_TEST(test_random_silence_is_deterministic_per_partition)
{
	static const uint32_t both[] = {0, 1}, one[] = {1};
	static unsigned char a[2][RSIL_ARRIVALS], b[2][RSIL_ARRIVALS];
	static unsigned char alone[1][RSIL_ARRIVALS];

	rsil_run(both, 2, 42, a);
	rsil_run(both, 2, 42, b);
	ck_assert(memcmp(a, b, sizeof(a)) == 0);
	rsil_run(one, 1, 42, alone);
	ck_assert(memcmp(a[1], alone[0], RSIL_ARRIVALS) == 0);
	ck_assert(memcmp(a[0], a[1], RSIL_ARRIVALS) != 0);
	rsil_run(both, 2, 43, b);
	ck_assert(memcmp(a[0], b[0], RSIL_ARRIVALS) != 0);
}
END_TEST

/* Only the partitions named are silenced; a bad fraction or mean is
 * refused. */
START_TEST(test_random_silence_range_and_bad_values)
{
	static const uint32_t ids[] = {0, 1, 2};
	struct wm_source_gen_random_silence rs = {1, 1, 0.5, 100};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_source_partition_stats st;

	conf_base(&c, ids, 3, 100);
	c.end_ts = 100000;
	c.n_random_silences = 1;
	c.random_silences = &rs;
	g = gen_new_ok(&c);
	drain(g, c.end_ts * MS, NULL, 0);
	for (uint32_t i = 0; i < 3; i++) {
		wm_source_gen_partition_stats(g, i, c.end_ts * MS, &st);
		ck_assert_uint_eq(st.emitted + st.skipped, 10000);
		if (i == 1)
			ck_assert(st.skipped > 3500 && st.skipped < 6500);
		else
			ck_assert_uint_eq(st.skipped, 0);
	}
	wm_source_gen_free(g);
	rs.fraction = 1;
	errno = 0;
	ck_assert(wm_source_gen_new(&c) == NULL && errno == EINVAL);
	rs.fraction = 0;
	ck_assert(wm_source_gen_new(&c) == NULL && errno == EINVAL);
	rs.fraction = 0.5;
	rs.mean_ms = 0;
	ck_assert(wm_source_gen_new(&c) == NULL && errno == EINVAL);
}
END_TEST

/* ---- tcase silences ---- */

START_TEST(test_silence_skips_arrivals_and_resumes)
{
	static const uint32_t ids[] = {0, 1};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_source_partition_stats st;
	struct wm_record r;
	unsigned emitted[2] = {0, 0};

	conf_base(&c, ids, 2, 1000);
	c.n_silences = 1;
	c.silences = &(struct wm_source_gen_silence){0, 0, 100, 200, 0, 0};
	g = gen_new_ok(&c);
	while (wm_source_gen_next(g, 150 * MS, &r) == 1) {
		emitted[r.partition]++;
		if (r.partition == 0 && r.ts >= 100)
			ck_abort_msg("partition 0 emitted at %lld while silent",
				     (long long)r.ts);
	}
	ck_assert_uint_eq(emitted[0], 100);
	ck_assert_uint_eq(emitted[1], 151);
	/* Arrivals 100..150 of partition 0 were skipped by now. */
	wm_source_gen_partition_stats(g, 0, 150 * MS, &st);
	ck_assert_uint_eq(st.skipped, 51);
	ck_assert_uint_eq(st.emitted, 100);
	ck_assert(!st.finished);
	/* Partition 1 is next; partition 0 resumes exactly at 200 ms. */
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), 151 * MS);
	drain(g, 199 * MS, NULL, 0);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), 200 * MS);
	ck_assert_int_eq(wm_source_gen_next(g, 200 * MS, &r), 1);
	ck_assert_uint_eq(r.partition, 0);
	ck_assert_int_eq(r.ts, 200);
	drain(g, 300 * MS, NULL, 0);
	wm_source_gen_partition_stats(g, 0, 300 * MS, &st);
	ck_assert_uint_eq(st.emitted, 100 + 101);
	ck_assert_uint_eq(st.skipped, 100);
	wm_source_gen_partition_stats(g, 1, 300 * MS, &st);
	ck_assert_uint_eq(st.emitted, 301);
	ck_assert_uint_eq(st.skipped, 0);
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_silence_covers_only_its_partition_range)
{
	static const uint32_t ids[] = {1, 2, 3, 4};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_source_partition_stats st;
	static const uint64_t expect[] = {11, 1, 1, 11};

	conf_base(&c, ids, 4, 100);
	c.n_silences = 1;
	c.silences = &(struct wm_source_gen_silence){2, 3, 5, 1000, 0, 0};
	g = gen_new_ok(&c);
	drain(g, 100 * MS, NULL, 0);
	for (uint32_t i = 0; i < 4; i++) {
		wm_source_gen_partition_stats(g, i, 100 * MS, &st);
		ck_assert_uint_eq(st.emitted, expect[i]);
		ck_assert_uint_eq(st.skipped, 11 - expect[i]);
	}
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_overlapping_silences_chain)
{
	static const uint32_t ids[] = {0};
	static const struct wm_source_gen_silence sil[] = {
		{0, 0, 150, 300, 0, 0},
		{0, 5, 100, 200, 0, 0},
		{0, 0, 300, 310, 0, 0},
	};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record r;

	conf_base(&c, ids, 1, 1000);
	c.n_silences = 3;
	c.silences = sil;
	g = gen_new_ok(&c);
	ck_assert_uint_eq(drain(g, 99 * MS, NULL, 0), 100);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), 310 * MS);
	ck_assert_int_eq(wm_source_gen_next(g, 310 * MS, &r), 1);
	ck_assert_int_eq(r.ts, 310);
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_silence_for_ever)
{
	static const uint32_t ids[] = {0, 1};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_source_partition_stats st;
	struct wm_record r;

	/* Unbounded: partition 1 never comes back and never finishes. */
	conf_base(&c, ids, 2, 1000);
	c.n_silences = 1;
	c.silences = &(struct wm_source_gen_silence){1, 1, 50, INT64_MAX, 0, 0};
	g = gen_new_ok(&c);
	drain(g, 10 * SEC, NULL, 0);
	wm_source_gen_partition_stats(g, 1, 10 * SEC, &st);
	ck_assert_uint_eq(st.emitted, 50);
	ck_assert_uint_eq(st.skipped, 10001 - 50);
	wm_source_gen_free(g);

	/* Only that partition: nothing is ever due. */
	conf_base(&c, ids + 1, 1, 1000);
	c.n_silences = 1;
	c.silences = &(struct wm_source_gen_silence){1, 1, 50, INT64_MAX, 0, 0};
	g = gen_new_ok(&c);
	ck_assert_uint_eq(drain(g, 49 * MS, NULL, 0), 50);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), INT64_MAX);
	ck_assert_int_eq(wm_source_gen_next(g, INT64_MAX, &r), 0);
	ck_assert(!wm_source_gen_finished(g));
	wm_source_gen_free(g);

	/* With an event-time end, it finishes when its clock gets there. */
	c.end_ts = 1000;
	g = gen_new_ok(&c);
	ck_assert_uint_eq(drain(g, 49 * MS, NULL, 0), 50);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), SEC);
	ck_assert_int_eq(wm_source_gen_next(g, SEC - 1, &r), 0);
	ck_assert(!wm_source_gen_finished(g));
	ck_assert_int_eq(wm_source_gen_next(g, SEC, &r), 0);
	ck_assert(wm_source_gen_finished(g));
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), INT64_MAX);
	wm_source_gen_partition_stats(g, 0, 5 * SEC, &st);
	ck_assert(st.finished);
	ck_assert_uint_eq(st.emitted, 50);
	ck_assert_uint_eq(st.skipped, 950);
	wm_source_gen_free(g);

	/* Silent from the start: nothing at all. */
	c.silences = &(struct wm_source_gen_silence){0, 9, 0, INT64_MAX, 0, 0};
	g = gen_new_ok(&c);
	ck_assert_int_eq(wm_source_gen_next(g, 0, &r), 0);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), SEC);
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_fast_mode_silence_sits_out_without_catch_up)
{
	static const uint32_t ids[] = {0, 1};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record r;
	unsigned count[2] = {0, 0};

	conf_base(&c, ids, 2, INFINITY);
	c.n_silences = 1;
	c.silences = &(struct wm_source_gen_silence){0, 0, 0, 10, 0, 0};
	g = gen_new_ok(&c);
	for (int i = 0; i < 100; i++) {
		ck_assert_int_eq(wm_source_gen_next(g, 5 * MS, &r), 1);
		ck_assert_uint_eq(r.partition, 1);
	}
	/* Both silent: nothing until the silence ends. */
	c.silences = &(struct wm_source_gen_silence){0, 1, 0, 10, 0, 0};
	wm_source_gen_free(g);
	g = gen_new_ok(&c);
	ck_assert_int_eq(wm_source_gen_next(g, 5 * MS, &r), 0);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), 10 * MS);
	wm_source_gen_free(g);

	/* Partition 0 returns at 10 ms and takes turns from then on. */
	c.silences = &(struct wm_source_gen_silence){0, 0, 0, 10, 0, 0};
	g = gen_new_ok(&c);
	for (int i = 0; i < 1000; i++)
		ck_assert_int_eq(wm_source_gen_next(g, 9 * MS, &r), 1);
	for (int i = 0; i < 100; i++) {
		ck_assert_int_eq(wm_source_gen_next(g, 10 * MS, &r), 1);
		count[r.partition]++;
	}
	ck_assert_uint_ge(count[0], 49);
	ck_assert_uint_le(count[0], 51);
	wm_source_gen_free(g);
}
END_TEST

/* Partitions of g that have finished. */
static uint32_t
n_finished(const struct wm_source_gen *g)
{
	struct wm_source_partition_stats st;
	uint32_t n = 0;

	for (uint32_t i = 0; i < wm_source_gen_n_partitions(g); i++) {
		wm_source_gen_partition_stats(g, i, 0, &st);
		n += st.finished;
	}
	return n;
}

/*
 * Poll only at due times up to `until`, as the runtime does when it sleeps
 * until next_due_ns(): nothing comes out 1 ns before a due time, and at it
 * a record arrives at exactly that time (no delays) or a partition
 * finishes. Returns the records.
 */
static uint64_t
step_through_due_times(struct wm_source_gen *g, int64_t until)
{
	struct wm_record r;
	uint64_t n = 0;
	int64_t due;

	while ((due = wm_source_gen_next_due_ns(g)) <= until) {
		uint32_t finished = n_finished(g);

		if (due > 0 && wm_source_gen_next(g, due - 1, &r) != 0)
			ck_abort_msg("record 1 ns before due %lld",
				     (long long)due);
		if (wm_source_gen_next(g, due, &r) == 1) {
			WM_HOT_ASSERT(r.ts == due / MS,
				      "record at %lld, due %lld",
				      (long long)r.ts, (long long)due);
			n += 1 + drain(g, due, NULL, 0);
		} else if (n_finished(g) == finished) {
			ck_abort_msg("nothing at due %lld", (long long)due);
		}
	}
	return n;
}

#define MIN (60 * SEC)

/* Partitions ids[0..n) at 1000/s for 1 h of event time, with one
 * silence. */
static struct wm_source_gen *
gen_hour_with_silence(const uint32_t *ids, uint32_t n,
		      const struct wm_source_gen_silence *silence)
{
	struct wm_source_gen_conf c;

	conf_base(&c, ids, n, 1000);
	c.end_ts = 3600 * 1000;
	c.n_silences = 1;
	c.silences = silence;
	return gen_new_ok(&c);
}

START_TEST(test_periodic_silence_removes_exactly_its_windows)
{
	static const uint32_t ids[] = {0, 1};
	struct wm_source_partition_stats st;
	struct wm_record r;
	/* Silent for 2 min at the start of every 10 min, over 1 h at
	 * 1000/s: 6 x 120000 arrivals skipped, the rest emitted. */
	struct wm_source_gen *g = gen_hour_with_silence(
		ids, 2,
		&(struct wm_source_gen_silence){0, 0, 0, INT64_MAX, 10 * 60000,
						2 * 60000});

	while (wm_source_gen_next(g, 2 * 3600 * SEC, &r) == 1)
		if (r.partition == 0 && r.ts % 600000 < 120000)
			ck_abort_msg("record at %lld in a silence",
				     (long long)r.ts);
	ck_assert(wm_source_gen_finished(g));
	wm_source_gen_partition_stats(g, 0, 2 * 3600 * SEC, &st);
	ck_assert_uint_eq(st.emitted, 3600000 - 720000);
	ck_assert_uint_eq(st.skipped, 720000);
	wm_source_gen_partition_stats(g, 1, 2 * 3600 * SEC, &st);
	ck_assert_uint_eq(st.emitted, 3600000);
	ck_assert_uint_eq(st.skipped, 0);
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_periodic_silence_within_from_and_to)
{
	static const uint32_t ids[] = {0};
	struct wm_source_partition_stats st;
	struct wm_record r;
	/* Windows [5, 7), [15, 17), [25, 27) min; the one at 35 min would
	 * start at `to`, so it does not. */
	struct wm_source_gen *g = gen_hour_with_silence(
		ids, 1,
		&(struct wm_source_gen_silence){0, 0, 5 * 60000, 35 * 60000,
						10 * 60000, 2 * 60000});

	ck_assert_uint_eq(drain(g, 5 * MIN - 1, NULL, 0), 300000);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), 7 * MIN);
	ck_assert_int_eq(wm_source_gen_next(g, 7 * MIN - 1, &r), 0);
	ck_assert_int_eq(wm_source_gen_next(g, 7 * MIN, &r), 1);
	ck_assert_int_eq(r.ts, 7 * 60000);
	/* Mid-window, the skips so far: the first window, then the
	 * arrivals at or before 16 min of the second. */
	drain(g, 16 * MIN, NULL, 0);
	wm_source_gen_partition_stats(g, 0, 16 * MIN, &st);
	ck_assert_uint_eq(st.skipped, 120000 + 60001);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), 17 * MIN);
	drain(g, 35 * MIN - 1, NULL, 0);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), 35 * MIN);
	drain(g, 2 * 3600 * SEC, NULL, 0);
	ck_assert(wm_source_gen_finished(g));
	wm_source_gen_partition_stats(g, 0, 2 * 3600 * SEC, &st);
	ck_assert_uint_eq(st.skipped, 3 * 120000);
	ck_assert_uint_eq(st.emitted, 3600000 - 3 * 120000);
	wm_source_gen_free(g);
}
END_TEST

/* Arrivals of rate 7.5/s before 10 s that no silence of sil[] covers,
 * counted one by one: t_k = floor(k x 10^9 / 7.5). */
static uint64_t
count_uncovered(const struct wm_source_gen_silence *sil, uint32_t n)
{
	uint64_t count = 0;

	for (uint64_t k = 0;; k++) {
		int64_t t_ms = (int64_t)((double)k * 1e9 / 7.5) / MS;
		bool silent = false;

		if (t_ms >= 10000)
			return count;
		for (uint32_t i = 0; i < n; i++) {
			const struct wm_source_gen_silence *s = &sil[i];
			int64_t at = t_ms - s->from_ms;

			if (t_ms < s->from_ms || t_ms >= s->to_ms)
				continue;
			silent |= s->period_ms == 0 ||
				  at % s->period_ms < s->length_ms;
		}
		count += !silent;
	}
}

START_TEST(test_periodic_silence_due_times_are_exact)
{
	static const uint32_t ids[] = {0};
	/* Whole milliseconds, so that the count by ms above is exact. */
	static const struct wm_source_gen_silence sil[] = {
		{0, 0, 250, INT64_MAX, 1000, 300},
		{0, 0, 1400, 2600, 0, 0},
		{0, 0, 5000, 9000, 700, 699},
	};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;

	conf_base(&c, ids, 1, 7.5);
	c.end_ts = 10000;
	c.n_silences = 3;
	c.silences = sil;
	g = gen_new_ok(&c);
	ck_assert_uint_eq(step_through_due_times(g, 20 * SEC),
			  count_uncovered(sil, 3));
	ck_assert(wm_source_gen_finished(g));
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_periodic_silences_that_cover_all_time)
{
	static const uint32_t ids[] = {0};
	struct wm_source_gen_silence sil[] = {
		{0, 0, 0, INT64_MAX, 10, 5},
		{0, 0, 5, INT64_MAX, 10, 5},
	};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_source_partition_stats st;
	struct wm_record r;

	/* Each is silent half the time, together always: silent for ever,
	 * and an unbounded generator says so instead of walking on. */
	conf_base(&c, ids, 1, 1000);
	c.n_silences = 2;
	c.silences = sil;
	g = gen_new_ok(&c);
	ck_assert_int_eq(wm_source_gen_next(g, 3600 * SEC, &r), 0);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), INT64_MAX);
	ck_assert(!wm_source_gen_finished(g));
	wm_source_gen_free(g);

	/* Bounded: it finishes at the end, every arrival skipped. */
	c.end_ts = 60000;
	g = gen_new_ok(&c);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), 60 * SEC);
	ck_assert_int_eq(wm_source_gen_next(g, 60 * SEC, &r), 0);
	ck_assert(wm_source_gen_finished(g));
	wm_source_gen_partition_stats(g, 0, 60 * SEC, &st);
	ck_assert_uint_eq(st.skipped, 60000);
	wm_source_gen_free(g);

	/* The second stops at 100 ms: the first alone is left, and the
	 * partition speaks in its gaps, from 105 ms on. */
	sil[1].to_ms = 100;
	c.end_ts = WM_TS_MAX;
	g = gen_new_ok(&c);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), 105 * MS);
	ck_assert_uint_eq(drain(g, 110 * MS - 1, NULL, 0), 5);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), 115 * MS);
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_fast_mode_periodic_silence_sits_out)
{
	static const uint32_t ids[] = {0};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record r;

	conf_base(&c, ids, 1, INFINITY);
	c.n_silences = 1;
	c.silences =
		&(struct wm_source_gen_silence){0, 0, 0, INT64_MAX, 100, 30};
	g = gen_new_ok(&c);
	ck_assert_int_eq(wm_source_gen_next(g, 10 * MS, &r), 0);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), 30 * MS);
	ck_assert_int_eq(wm_source_gen_next(g, 30 * MS, &r), 1);
	ck_assert_int_eq(wm_source_gen_next(g, 99 * MS, &r), 1);
	ck_assert_int_eq(wm_source_gen_next(g, 100 * MS, &r), 0);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), 130 * MS);
	ck_assert_int_eq(wm_source_gen_next(g, 130 * MS, &r), 1);
	ck_assert_int_eq(r.ts, 130);
	wm_source_gen_free(g);
}
END_TEST

/* The generator with one partition at `rate` and one silence or burst
 * must be refused (EINVAL); `what` and `name` say which in a failure. */
static void
expect_refused(const char *what, const char *name, double rate,
	       const struct wm_source_gen_silence *silence,
	       const struct wm_source_gen_burst *burst)
{
	static const uint32_t ids[] = {0};
	struct wm_source_gen_conf c;

	conf_base(&c, ids, 1, rate);
	c.n_silences = silence != NULL;
	c.silences = silence;
	c.n_bursts = burst != NULL;
	c.bursts = burst;
	errno = 0;
	ck_assert_msg(wm_source_gen_new(&c) == NULL, "accepted %s: %s", what,
		      name);
	ck_assert_msg(errno == EINVAL, "%s: %s: errno %d, not EINVAL", what,
		      name, errno);
}

/* A silence the generator must refuse, and what is wrong with it. */
static const struct {
	const char *name;
	struct wm_source_gen_silence silence;
} bad_silences[] = {
	{"length = period", {0, 0, 0, INT64_MAX, 100, 100}},
	{"length > period", {0, 0, 0, INT64_MAX, 100, 200}},
	{"no length", {0, 0, 0, INT64_MAX, 100, 0}},
	{"negative period", {0, 0, 0, INT64_MAX, -1, 0}},
};

START_TEST(test_invalid_periodic_silence_is_refused)
{
	expect_refused("silence", bad_silences[_i].name, 1000,
		       &bad_silences[_i].silence, NULL);
}
END_TEST

/* ---- tcase bursts ---- */

START_TEST(test_burst_multiplies_rate_in_its_window)
{
	static const uint32_t ids[] = {0, 1};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_source_partition_stats st;
	struct wm_record r;
	uint64_t in_burst = 0;

	/* x5 from 10 s for 30 s at 1000/s over 60 s: 30 s x 4000/s more. */
	conf_base(&c, ids, 2, 1000);
	c.end_ts = 60000;
	c.n_bursts = 1;
	c.bursts = &(struct wm_source_gen_burst){0, 0, 10000, 40000, 0, 0, 5};
	g = gen_new_ok(&c);
	ck_assert_uint_eq(drain(g, 10 * SEC - 1, NULL, 0), 2 * 10000);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), 10 * SEC);
	while (wm_source_gen_next(g, 40 * SEC - 1, &r) == 1)
		in_burst += r.partition == 0;
	ck_assert_uint_eq(in_burst, 150000);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), 40 * SEC);
	drain(g, 100 * SEC, NULL, 0);
	ck_assert(wm_source_gen_finished(g));
	wm_source_gen_partition_stats(g, 0, 100 * SEC, &st);
	ck_assert_uint_eq(st.emitted, 60000 + 30 * 4000);
	wm_source_gen_partition_stats(g, 1, 100 * SEC, &st);
	ck_assert_uint_eq(st.emitted, 60000);
	wm_source_gen_free(g);
}
END_TEST

/* The arrival times of g (one partition, no delays) up to `until`, as the
 * due times it announces, against expect[0..n). */
static void
check_arrival_times(struct wm_source_gen *g, const int64_t *expect, size_t n)
{
	struct wm_record r;

	for (size_t i = 0; i < n; i++) {
		int64_t due = wm_source_gen_next_due_ns(g);

		if (due != expect[i])
			ck_abort_msg("arrival %zu at %lld, expected %lld", i,
				     (long long)due, (long long)expect[i]);
		ck_assert_int_eq(wm_source_gen_next(g, due, &r), 1);
		ck_assert_int_eq(wm_source_gen_next(g, due, &r), 0);
	}
}

START_TEST(test_burst_edges_restart_the_arrival_clock)
{
	static const uint32_t ids[] = {0};
	/* 3/s, x2 in [500 ms, 1500 ms): segment 0 has arrivals 0, 1 (at
	 * 0 and 333333333); arrival 2 would be at 666666666, so it starts
	 * segment 1 at its edge and the next ones come every 10^9/6 ns;
	 * arrival 8 would be at 1.5 s, so it starts segment 2 there. */
	static const int64_t expect[] = {
		0,	    333333333,	500000000,  666666666,
		833333333,  1000000000, 1166666666, 1333333333,
		1500000000, 1833333333, 2166666666, 2500000000,
	};
	/* 1/s, x2 in [0, 2 s), x3 in [1 s, 3 s): rates 2, 6, 3 then 1. */
	static const int64_t overlap[] = {
		0,	    500000000,	1000000000, 1166666666, 1333333333,
		1500000000, 1666666666, 1833333333, 2000000000, 2333333333,
		2666666666, 3000000000, 4000000000,
	};
	static const struct wm_source_gen_burst two[] = {
		{0, 0, 0, 2000, 0, 0, 2},
		{0, 0, 1000, 3000, 0, 0, 3},
	};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;

	conf_base(&c, ids, 1, 3);
	c.n_bursts = 1;
	c.bursts = &(struct wm_source_gen_burst){0, 0, 500, 1500, 0, 0, 2};
	g = gen_new_ok(&c);
	check_arrival_times(g, expect, sizeof(expect) / sizeof(expect[0]));
	wm_source_gen_free(g);

	conf_base(&c, ids, 1, 1);
	c.n_bursts = 2;
	c.bursts = two;
	g = gen_new_ok(&c);
	check_arrival_times(g, overlap, sizeof(overlap) / sizeof(overlap[0]));
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_periodic_burst_due_times_are_exact)
{
	static const uint32_t ids[] = {2};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;

	/* x5 every 1 h for 1 min at 10/s over 3 h: 3 x 60 s x 40/s more,
	 * polled only at the due times. */
	conf_base(&c, ids, 1, 10);
	c.end_ts = 3 * 3600 * 1000;
	c.n_bursts = 1;
	c.bursts = &(struct wm_source_gen_burst){
		2, 2, 0, INT64_MAX, 3600 * 1000, 60000, 5};
	g = gen_new_ok(&c);
	ck_assert_uint_eq(step_through_due_times(g, 4 * 3600 * SEC),
			  3 * 3600 * 10 + 3 * 60 * 40);
	ck_assert(wm_source_gen_finished(g));
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_silence_during_burst_skips_at_the_burst_rate)
{
	static const uint32_t ids[] = {0};
	static const struct wm_source_gen_silence quiet = {0,	  0, 8000,
							   12000, 0, 0};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_source_partition_stats st;

	/* x5 until 10 s, silent from 8 s to 12 s: 2 s at 5000/s and 2 s at
	 * 1000/s skipped, over 20 s. */
	conf_base(&c, ids, 1, 1000);
	c.end_ts = 20000;
	c.n_bursts = 1;
	c.bursts = &(struct wm_source_gen_burst){0, 0, 0, 10000, 0, 0, 5};
	c.n_silences = 1;
	c.silences = &quiet;
	g = gen_new_ok(&c);
	ck_assert_uint_eq(drain(g, 11 * SEC, NULL, 0), 40000);
	/* Skips pending across the edge, counted up to now either side. */
	wm_source_gen_partition_stats(g, 0, 9 * SEC, &st);
	ck_assert_uint_eq(st.skipped, 5001);
	wm_source_gen_partition_stats(g, 0, 11 * SEC, &st);
	ck_assert_uint_eq(st.skipped, 10000 + 1001);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), 12 * SEC);
	drain(g, 30 * SEC, NULL, 0);
	wm_source_gen_partition_stats(g, 0, 30 * SEC, &st);
	ck_assert_uint_eq(st.skipped, 12000);
	ck_assert_uint_eq(st.emitted, 60000 - 12000);
	wm_source_gen_free(g);
}
END_TEST

/* Partition 1's records of g up to 2 s into out[0..4000); the count. */
static size_t
records_of_partition_1(struct wm_source_gen *g, struct wm_record *out)
{
	struct wm_record r;
	size_t n = 0;

	while (wm_source_gen_next(g, 2 * SEC, &r) == 1)
		if (r.partition == 1 && n < 4000)
			out[n++] = r;
	wm_source_gen_free(g);
	return n;
}

START_TEST(test_burst_leaves_other_partitions_alone)
{
	static const uint32_t ids[] = {0, 1};
	static struct wm_record a[4000], b[4000];
	struct wm_source_gen_conf c;
	size_t n;

	conf_rich(&c, ids, 2);
	n = records_of_partition_1(gen_new_ok(&c), a);
	ck_assert_uint_eq(n, 2001);
	c.n_bursts = 1;
	c.bursts = &(struct wm_source_gen_burst){0, 0, 100, 900, 0, 0, 7};
	ck_assert_uint_eq(records_of_partition_1(gen_new_ok(&c), b), n);
	ck_assert(memcmp(a, b, n * sizeof(a[0])) == 0);
}
END_TEST

START_TEST(test_fast_mode_burst_raises_the_share)
{
	static const uint32_t ids[] = {0, 1};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record r;
	unsigned before = 0, during = 0;

	conf_base(&c, ids, 2, INFINITY);
	c.n_bursts = 1;
	c.bursts = &(struct wm_source_gen_burst){0, 0, 10, 20, 0, 0, 3};
	g = gen_new_ok(&c);
	for (int i = 0; i < 400; i++) {
		ck_assert_int_eq(wm_source_gen_next(g, 5 * MS, &r), 1);
		before += r.partition == 0;
	}
	for (int i = 0; i < 400; i++) {
		ck_assert_int_eq(wm_source_gen_next(g, 10 * MS, &r), 1);
		during += r.partition == 0;
	}
	ck_assert_uint_eq(before, 200);
	ck_assert_uint_ge(during, 298);
	ck_assert_uint_le(during, 302);
	wm_source_gen_free(g);
}
END_TEST

/* A burst the generator must refuse at 10^15 records/s, and what is wrong
 * with it. */
static const struct {
	const char *name;
	struct wm_source_gen_burst burst;
} bad_bursts[] = {
	{"factor 0", {0, 0, 0, INT64_MAX, 0, 0, 0}},
	{"factor -2", {0, 0, 0, INT64_MAX, 0, 0, -2}},
	{"factor NaN", {0, 0, 0, INT64_MAX, 0, 0, NAN}},
	{"factor infinite", {0, 0, 0, INT64_MAX, 0, 0, INFINITY}},
	{"rate x factor overflows", {0, 0, 0, INT64_MAX, 0, 0, 1e300}},
	{"length = period", {0, 0, 0, INT64_MAX, 1000, 1000, 2}},
	{"first partition > last", {1, 0, 0, INT64_MAX, 0, 0, 2}},
	{"to < from", {0, 0, 20, 10, 0, 0, 2}},
};

START_TEST(test_invalid_burst_is_refused)
{
	expect_refused("burst", bad_bursts[_i].name, 1e15, NULL,
		       &bad_bursts[_i].burst);
}
END_TEST

START_TEST(test_burst_count_without_bursts_is_refused)
{
	static const uint32_t ids[] = {0};
	struct wm_source_gen_conf c;

	conf_base(&c, ids, 1, 1000);
	c.n_bursts = 1; /* bursts NULL */
	ck_assert_ptr_null(wm_source_gen_new(&c));
}
END_TEST

/* ---- tcase limits ---- */

/* ---- outages ---- */

START_TEST(test_outage_delivers_its_backlog_when_it_ends)
{
	static const uint32_t ids[] = {0, 1};
	static const struct wm_source_gen_silence outage = {.first_partition =
								    1,
							    .last_partition = 1,
							    .from_ms = 1000,
							    .to_ms = 3000};
	static struct wm_record out[8000];
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	size_t n;

	conf_base(&c, ids, 2, 1000);
	c.n_outages = 1;
	c.outages = &outage;
	g = wm_source_gen_new(&c);
	ck_assert_ptr_nonnull(g);
	/* Up to 3 s (exclusive) partition 1 is read only before 1 s. */
	n = drain(g, 3 * SEC - 1, out, 8000);
	ck_assert_uint_eq(n, 3000 + 1000);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), 3 * SEC);
	/* At 3 s its 2000 held records are due, oldest first, with the
	 * event times of their arrivals; partition 0's arrival at 3 s is due
	 * then too and goes first (ties by partition id). */
	n = drain(g, 3 * SEC, out, 8000);
	ck_assert_uint_eq(n, 2002);
	ck_assert_uint_eq(out[0].partition, 0);
	ck_assert_int_eq(out[0].ts, 3000);
	for (size_t i = 1; i <= 2000; i++) {
		ck_assert_uint_eq(out[i].partition, 1);
		ck_assert_int_eq(out[i].ts, 1000 + (int64_t)i - 1);
	}
	ck_assert_int_eq(out[2001].ts, 3000);
	/* Nothing was skipped: an outage delays, a silence drops. */
	struct wm_source_partition_stats st;

	wm_source_gen_partition_stats(g, 1, 3 * SEC, &st);
	ck_assert_uint_eq(st.emitted, 3001);
	ck_assert_uint_eq(st.skipped, 0);
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_periodic_outages_chain_and_hold)
{
	static const uint32_t ids[] = {4};
	/* Held for 200 ms of every second, and once from 150 ms to 250 ms:
	 * together [0, 250) of the first second. */
	static const struct wm_source_gen_silence outages[] = {
		{.first_partition = 4,
		 .last_partition = 4,
		 .from_ms = 0,
		 .to_ms = INT64_MAX,
		 .period_ms = 1000,
		 .length_ms = 200},
		{.first_partition = 0,
		 .last_partition = 7,
		 .from_ms = 150,
		 .to_ms = 250},
	};
	static struct wm_record out[2000];
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;

	conf_base(&c, ids, 1, 100);
	c.n_outages = 2;
	c.outages = outages;
	g = wm_source_gen_new(&c);
	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), 250 * MS);
	ck_assert_uint_eq(drain(g, 250 * MS - 1, out, 2000), 0);
	/* Arrivals 0..240 ms (25 of them) at 250 ms. */
	ck_assert_uint_eq(drain(g, 250 * MS, out, 2000), 26);
	ck_assert_int_eq(out[24].ts, 240);
	ck_assert_int_eq(out[25].ts, 250);
	/* 260..990, then the second second: 1000..1190 held until 1200. */
	ck_assert_uint_eq(drain(g, 1200 * MS - 1, out, 2000), 74);
	ck_assert_uint_eq(drain(g, 1200 * MS, out, 2000), 21);
	wm_source_gen_free(g);
}
END_TEST

/* ---- pausing partitions (watermark alignment) ---- */

START_TEST(test_paused_partition_keeps_its_backlog)
{
	static const uint32_t ids[] = {0, 1};
	static struct wm_record out[8000];
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	size_t n;

	conf_base(&c, ids, 2, 1000);
	g = wm_source_gen_new(&c);
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(drain(g, SEC - 1, out, 8000), 2000);
	wm_source_gen_pause(g, 0, true, SEC - 1);
	/* Partition 1 goes on alone; partition 0 is never due. */
	n = drain(g, 3 * SEC - 1, out, 8000);
	ck_assert_uint_eq(n, 2000);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(out[i].partition, 1);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), 3 * SEC);
	/* Back: its 2000 arrivals of 1 s to 3 s are due at once, oldest
	 * first, stamped with their arrival times. */
	wm_source_gen_pause(g, 0, false, 3 * SEC - 1);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), SEC);
	n = drain(g, 3 * SEC - 1, out, 8000);
	ck_assert_uint_eq(n, 2000);
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_eq(out[i].partition, 0);
		ck_assert_int_eq(out[i].ts, 1000 + (int64_t)i);
	}
	ck_assert_uint_eq(drain(g, 5 * SEC - 1, out, 8000), 4000);
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_every_partition_paused_is_never_due)
{
	static const uint32_t ids[] = {3};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record r;

	conf_base(&c, ids, 1, 10);
	c.end_ts = 1000; /* ends at 1 s */
	g = wm_source_gen_new(&c);
	ck_assert_ptr_nonnull(g);
	wm_source_gen_pause(g, 0, true, 0);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), INT64_MAX);
	/* A paused partition does not even finish. */
	ck_assert_int_eq(wm_source_gen_next(g, 2 * SEC, &r), 0);
	ck_assert(!wm_source_gen_finished(g));
	wm_source_gen_pause(g, 0, false, 2 * SEC);
	for (int i = 0; i < 10; i++) {
		ck_assert_int_eq(wm_source_gen_next(g, 2 * SEC, &r), 1);
		ck_assert_int_eq(r.ts, i * 100);
	}
	ck_assert_int_eq(wm_source_gen_next(g, 2 * SEC, &r), 0);
	ck_assert(wm_source_gen_finished(g));
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_fast_mode_paused_partition_sits_out)
{
	static const uint32_t ids[] = {0, 1};
	static struct wm_record out[64];
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;

	conf_base(&c, ids, 2, INFINITY);
	g = wm_source_gen_new(&c);
	ck_assert_ptr_nonnull(g);
	wm_source_gen_pause(g, 1, true, 0);
	for (int i = 0; i < 10; i++) {
		ck_assert_int_eq(wm_source_gen_next(g, i, &out[0]), 1);
		ck_assert_uint_eq(out[0].partition, 0);
	}
	/* No catch-up: they take turns again at once. */
	wm_source_gen_pause(g, 1, false, 10);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(wm_source_gen_next(g, 10 + i, &out[i]), 1);
	for (int i = 0; i < 10; i++)
		ck_assert_uint_eq(out[i].partition, (uint32_t)(i % 2 == 0));
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_record_limit_finishes_partitions)
{
	static const uint32_t ids[] = {0, 1};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_source_partition_stats st;
	struct wm_record r;

	conf_base(&c, ids, 2, 1000);
	c.max_records = 5;
	g = gen_new_ok(&c);
	ck_assert_uint_eq(drain(g, 3 * MS, NULL, 0), 8);
	ck_assert(!wm_source_gen_finished(g));
	ck_assert_int_eq(wm_source_gen_next(g, 4 * MS, &r), 1);
	ck_assert_int_eq(wm_source_gen_next(g, 4 * MS, &r), 1);
	/* The last record finishes both at once. */
	ck_assert(wm_source_gen_finished(g));
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), INT64_MAX);
	ck_assert_int_eq(wm_source_gen_next(g, 100 * SEC, &r), 0);
	wm_source_gen_partition_stats(g, 1, 100 * SEC, &st);
	ck_assert(st.finished);
	ck_assert_uint_eq(st.emitted, 5);
	wm_source_gen_free(g);

	/* Fast mode too. */
	conf_base(&c, ids, 2, INFINITY);
	c.max_records = 1000;
	g = gen_new_ok(&c);
	ck_assert_uint_eq(drain(g, 0, NULL, 0), 2000);
	ck_assert(wm_source_gen_finished(g));
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), INT64_MAX);
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_event_time_end_finishes_partitions)
{
	static const uint32_t ids[] = {0, 1};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record r;
	size_t n = 0;

	conf_base(&c, ids, 2, 1000);
	c.out_of_orderness_ms = 30;
	c.start_epoch_ms = 1700000000000LL;
	c.end_ts = c.start_epoch_ms + 1000;
	g = gen_new_ok(&c);
	/* Exactly the arrivals before 1 s: 1000 per partition, all before
	 * the end, even when polled long after. */
	while (wm_source_gen_next(g, 999 * MS, &r) == 1) {
		if (r.ts >= c.end_ts)
			ck_abort_msg("ts %lld at or past the end",
				     (long long)r.ts);
		n++;
	}
	ck_assert_uint_eq(n, 2000);
	ck_assert(!wm_source_gen_finished(g));
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), SEC);
	ck_assert_int_eq(wm_source_gen_next(g, 5 * SEC, &r), 0);
	ck_assert(wm_source_gen_finished(g));
	wm_source_gen_free(g);

	/* Polled only once, long after the end: the same 2000. */
	g = gen_new_ok(&c);
	ck_assert_uint_eq(drain(g, 60 * SEC, NULL, 0), 2000);
	ck_assert(wm_source_gen_finished(g));
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_fast_mode_event_time_end)
{
	static const uint32_t ids[] = {0, 1};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record r;

	conf_base(&c, ids, 2, INFINITY);
	c.end_ts = 100;
	g = gen_new_ok(&c);
	ck_assert_int_eq(wm_source_gen_next(g, 99 * MS, &r), 1);
	ck_assert_int_eq(r.ts, 99);
	ck_assert(!wm_source_gen_finished(g));
	ck_assert_int_eq(wm_source_gen_next(g, 100 * MS, &r), 0);
	ck_assert(wm_source_gen_finished(g));
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), INT64_MAX);
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_zero_limits_finish_at_once)
{
	static const uint32_t ids[] = {0, 1};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record r;

	conf_base(&c, ids, 2, 1000);
	c.max_records = 0;
	g = gen_new_ok(&c);
	ck_assert(wm_source_gen_finished(g));
	ck_assert_int_eq(wm_source_gen_next(g, SEC, &r), 0);
	wm_source_gen_free(g);

	conf_base(&c, ids, 2, 1000);
	c.start_epoch_ms = 500;
	c.end_ts = 500;
	g = gen_new_ok(&c);
	ck_assert(wm_source_gen_finished(g));
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), INT64_MAX);
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_subtask_without_partitions)
{
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record r;

	conf_base(&c, NULL, 0, 1000);
	g = gen_new_ok(&c);
	ck_assert(!wm_source_gen_finished(g));
	ck_assert_int_eq(wm_source_gen_next(g, SEC, &r), 0);
	ck_assert_int_eq(wm_source_gen_next_due_ns(g), INT64_MAX);
	wm_source_gen_free(g);

	c.max_records = 10;
	g = gen_new_ok(&c);
	ck_assert(wm_source_gen_finished(g));
	wm_source_gen_free(g);
}
END_TEST

START_TEST(test_invalid_configuration_is_refused)
{
	static const uint32_t ids[] = {0, 1};
	static const uint32_t dup[] = {3, 1, 3};
	static const double bad_skew[] = {1, 0};
	struct wm_source_gen_conf c;
	int n = 0;

#define REFUSE(field_, value_)                                                 \
	do {                                                                   \
		conf_base(&c, ids, 2, 1000);                                   \
		c.field_ = value_;                                             \
		errno = 0;                                                     \
		ck_assert_msg(wm_source_gen_new(&c) == NULL,                   \
			      "accepted " #field_ " = " #value_);              \
		ck_assert_int_eq(errno, EINVAL);                               \
		n++;                                                           \
	} while (0)

	REFUSE(rate, 0);
	REFUSE(rate, -1);
	REFUSE(rate, NAN);
	REFUSE(keys, 0);
	REFUSE(out_of_orderness_ms, -1);
	REFUSE(late_by_ms, -1);
	REFUSE(late_fraction, 1.5);
	REFUSE(late_fraction, -0.1);
	REFUSE(n_silences, 1); /* silences NULL */
	REFUSE(n_skew, 2);     /* skew NULL */
	conf_base(&c, dup, 3, 1000);
	ck_assert_ptr_null(wm_source_gen_new(&c));
	ck_assert_int_eq(errno, EINVAL);
	conf_base(&c, ids, 2, 1000);
	c.zipf = true;
	c.zipf_exponent = 0;
	ck_assert_ptr_null(wm_source_gen_new(&c));
	conf_base(&c, ids, 2, 1000);
	c.skew = bad_skew;
	c.n_skew = 2;
	ck_assert_ptr_null(wm_source_gen_new(&c));
	conf_base(&c, ids, 2, 1000);
	c.n_silences = 1;
	c.silences = &(struct wm_source_gen_silence){0, 1, 200, 100, 0, 0};
	ck_assert_ptr_null(wm_source_gen_new(&c));
	c.silences = &(struct wm_source_gen_silence){1, 0, 0, 100, 0, 0};
	ck_assert_ptr_null(wm_source_gen_new(&c));
	ck_assert_int_eq(n, 10);
#undef REFUSE
}
END_TEST

/* ---- tcase assignment ---- */

START_TEST(test_split_owner_matches_flink_by_hand)
{
	/* "a".hashCode() = 97; 97 * 31 = 3007. */
	ck_assert_uint_eq(wm_source_gen_split_owner("a", 0, 4), 3007 % 4);
	ck_assert_uint_eq(wm_source_gen_split_owner("a", 1, 4), 0);
	ck_assert_uint_eq(wm_source_gen_split_owner("a", 0, 7), 4);
	/* "orders".hashCode() = -1008770331; x 31 wraps to -1207109189;
	 * & 0x7FFFFFFF = 940374459; % 4 = 3, % 7 = 3. */
	ck_assert_uint_eq(wm_source_gen_split_owner("orders", 0, 4), 3);
	ck_assert_uint_eq(wm_source_gen_split_owner("orders", 5, 4), 0);
	ck_assert_uint_eq(wm_source_gen_split_owner("orders", 6, 7), 2);
	/* "clicks".hashCode() = -1357714453; x 31 = 860524917; % 8 = 5. */
	ck_assert_uint_eq(wm_source_gen_split_owner("clicks", 0, 8), 5);
	ck_assert_uint_eq(wm_source_gen_split_owner("clicks", 3, 8), 0);
	ck_assert_uint_eq(wm_source_gen_split_owner("clicks", 4, 5), 1);
	/* No topic: partition % parallelism. */
	ck_assert_uint_eq(wm_source_gen_split_owner(NULL, 13, 4), 1);
	ck_assert_uint_eq(wm_source_gen_split_owner(NULL, 3, 1), 0);
}
END_TEST

START_TEST(test_partitions_are_assigned_once_and_balanced)
{
	static const char *const topics[] = {NULL, "a", "orders", "clicks"};
	uint32_t out[64];
	unsigned seen[64];

	for (size_t t = 0; t < 4; t++)
		for (uint32_t par = 1; par <= 9; par++)
			for (uint32_t parts = 0; parts <= 40; parts++) {
				size_t lo = parts / par, total = 0;

				memset(seen, 0, sizeof(seen));
				for (uint32_t s = 0; s < par; s++) {
					size_t n = wm_source_gen_partitions_of(
						s, par, parts, topics[t], out,
						64);

					if (n != lo && n != lo + 1)
						ck_abort_msg("unbalanced: %zu",
							     n);
					for (size_t i = 0; i < n; i++) {
						seen[out[i]]++;
						if (i > 0 &&
						    out[i] <= out[i - 1])
							ck_abort_msg(
								"not "
								"ascending");
						if (wm_source_gen_split_owner(
							    topics[t], out[i],
							    par) != s)
							ck_abort_msg("owner "
								     "differs");
					}
					total += n;
				}
				ck_assert_uint_eq(total, parts);
				for (uint32_t p = 0; p < parts; p++)
					if (seen[p] != 1)
						ck_abort_msg(
							"partition %u seen "
							"%u times",
							p, seen[p]);
			}
}
END_TEST

START_TEST(test_partitions_of_respects_cap)
{
	uint32_t out[3] = {99, 99, 99};

	/* Subtask 1 of 4, no topic: 1, 5, 9, 13. */
	ck_assert_uint_eq(wm_source_gen_partitions_of(1, 4, 16, NULL, out, 2),
			  4);
	ck_assert_uint_eq(out[0], 1);
	ck_assert_uint_eq(out[1], 5);
	ck_assert_uint_eq(out[2], 99);
	ck_assert_uint_eq(wm_source_gen_partitions_of(1, 4, 16, NULL, NULL, 0),
			  4);
}
END_TEST

/* ---- tcase interface ---- */

START_TEST(test_record_source_ops_drive_the_generator)
{
	static const uint32_t ids[] = {4, 6};
	struct wm_source_gen_conf c;
	struct wm_record_source *src;
	struct wm_source_partition_stats st;
	struct wm_record r;
	int n = 0;

	conf_base(&c, ids, 2, 100);
	c.end_ts = 1000;
	src = wm_source_gen_source(gen_new_ok(&c));
	ck_assert_uint_eq(src->ops->n_partitions(src), 2);
	while (!wm_record_source_finished(src)) {
		int64_t due = wm_record_source_next_due_ns(src);

		ck_assert_int_ne(due, INT64_MAX);
		while (wm_record_source_next(src, due, &r) == 1)
			n++;
	}
	ck_assert_int_eq(n, 200);
	src->ops->partition_stats(src, 1, 2 * SEC, &st);
	ck_assert_uint_eq(st.partition, 6);
	ck_assert_uint_eq(st.emitted, 100);
	ck_assert(st.finished);
	wm_record_source_free(src);
}
END_TEST

START_TEST(test_partitions_are_reported_in_the_order_they_finish)
{
	/* Ids in no order; partition id p runs (p + 1) times as fast, so id
	 * 4 (local 2) finishes first and id 0 (local 3) last. */
	static const uint32_t ids[] = {3, 1, 4, 0, 2};
	static const double skew[] = {1, 2, 3, 4, 5};
	static const uint32_t order[] = {2, 0, 4, 1, 3};
	struct wm_source_gen_conf c;
	struct wm_record_source *src;
	struct wm_record r;
	uint32_t seen = 0;

	conf_base(&c, ids, 5, 100);
	c.skew = skew;
	c.n_skew = 5;
	c.max_records = 10;
	src = wm_source_gen_source(gen_new_ok(&c));
	while (!wm_record_source_finished(src)) {
		int64_t due = wm_record_source_next_due_ns(src);
		uint32_t n;

		while (wm_record_source_next(src, due, &r) == 1)
			;
		n = src->ops->n_finished(src);
		/* The ones reported are exactly the finished ones. */
		for (uint32_t i = 0; i < 5; i++) {
			struct wm_source_partition_stats st;
			bool listed = false;

			src->ops->partition_stats(src, i, due, &st);
			for (uint32_t k = 0; k < n; k++)
				listed |= src->ops->finished_partition(src,
								       k) == i;
			if (listed != st.finished)
				ck_abort_msg("local %u: finished %d, listed %d",
					     i, st.finished, listed);
		}
		for (; seen < n; seen++)
			ck_assert_uint_eq(
				src->ops->finished_partition(src, seen),
				order[seen]);
	}
	ck_assert_uint_eq(seen, 5);
	wm_record_source_free(src);
}
END_TEST

static Suite *
source_gen_suite(void)
{
	Suite *s = suite_create("source_gen");
	TCase *tc;

	tc = tcase_create("determinism");
	tcase_add_test(tc, test_same_seed_gives_identical_records);
	tcase_add_test(tc, test_different_seed_gives_different_records);
	tcase_add_test(tc, test_partition_stream_does_not_depend_on_subtask);
	suite_add_tcase(s, tc);

	tc = tcase_create("arrivals");
	tcase_add_loop_test(tc, test_paced_arrivals_are_exactly_spaced, 0,
			    (int)N_ELEMS(spacing_rows));
	tcase_add_test(tc, test_whole_rates_stay_exact_far_out);
	tcase_add_test(tc, test_records_carry_arrival_time_not_poll_time);
	tcase_add_test(tc, test_skew_multiplies_rate);
	tcase_add_test(tc, test_ties_go_by_partition_id);
	tcase_add_test(tc, test_merge_is_earliest_arrival_first);
	tcase_add_test(tc, test_fast_mode_takes_turns_by_skew);
	tcase_add_test(tc, test_next_due_ns_after_nothing_due_is_in_the_future);
	tcase_add_test(tc,
		       test_each_partition_says_when_its_next_record_is_due);
	suite_add_tcase(s, tc);

	tc = tcase_create("out_of_order");
	tcase_add_test(tc, test_delays_within_bound_and_late_fraction);
	tcase_add_test(tc, test_no_late_records_without_late_by);
	tcase_add_test(tc, test_in_order_without_bound);
	suite_add_tcase(s, tc);

	tc = tcase_create("keys");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_uniform_keys_pass_chi_square);
	tcase_add_loop_test(tc, test_zipf_keys_match_distribution, 0,
			    (int)N_ELEMS(zipf_rows));
	tcase_add_test(tc,
		       test_zipf_rank_one_is_most_frequent_over_a_million_keys);
	tcase_add_test(tc, test_single_key_is_zero);
	suite_add_tcase(s, tc);

	tc = tcase_create("values");
	tcase_add_test(tc, test_values_cycle_per_partition);
	tcase_add_test(
		tc,
		test_punctuations_mark_every_nth_record_of_their_partitions);
	tcase_add_test(tc, test_punctuations_by_time_mark_a_record_a_slot);
	suite_add_tcase(s, tc);

	tc = tcase_create("silences");
	tcase_add_test(tc, test_silence_skips_arrivals_and_resumes);
	tcase_add_test(tc, test_silence_covers_only_its_partition_range);
	tcase_add_test(tc, test_overlapping_silences_chain);
	tcase_add_test(tc, test_silence_for_ever);
	tcase_add_test(tc, test_fast_mode_silence_sits_out_without_catch_up);
	tcase_add_test(tc, test_outage_delivers_its_backlog_when_it_ends);
	tcase_add_test(tc, test_periodic_outages_chain_and_hold);
	tcase_add_test(tc, test_paused_partition_keeps_its_backlog);
	tcase_add_test(tc, test_every_partition_paused_is_never_due);
	tcase_add_test(tc, test_fast_mode_paused_partition_sits_out);
	tcase_add_test(tc, test_periodic_silence_removes_exactly_its_windows);
	tcase_add_test(tc, test_periodic_silence_within_from_and_to);
	tcase_add_test(tc, test_periodic_silence_due_times_are_exact);
	tcase_add_test(tc, test_periodic_silences_that_cover_all_time);
	tcase_add_test(tc, test_fast_mode_periodic_silence_sits_out);
	tcase_add_loop_test(tc, test_invalid_periodic_silence_is_refused, 0,
			    (int)N_ELEMS(bad_silences));
	suite_add_tcase(s, tc);

	tc = tcase_create("random_silences");
	tcase_add_test(tc,
		       test_random_silence_long_run_fraction_and_independence);
	tcase_add_test(tc, test_random_silence_is_deterministic_per_partition);
	tcase_add_test(tc, test_random_silence_range_and_bad_values);
	suite_add_tcase(s, tc);

	tc = tcase_create("bursts");
	tcase_add_test(tc, test_burst_multiplies_rate_in_its_window);
	tcase_add_test(tc, test_burst_edges_restart_the_arrival_clock);
	tcase_add_test(tc, test_periodic_burst_due_times_are_exact);
	tcase_add_test(tc, test_silence_during_burst_skips_at_the_burst_rate);
	tcase_add_test(tc, test_burst_leaves_other_partitions_alone);
	tcase_add_test(tc, test_fast_mode_burst_raises_the_share);
	tcase_add_loop_test(tc, test_invalid_burst_is_refused, 0,
			    (int)N_ELEMS(bad_bursts));
	tcase_add_test(tc, test_burst_count_without_bursts_is_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_test(tc, test_record_limit_finishes_partitions);
	tcase_add_test(tc, test_event_time_end_finishes_partitions);
	tcase_add_test(tc, test_fast_mode_event_time_end);
	tcase_add_test(tc, test_zero_limits_finish_at_once);
	tcase_add_test(tc, test_subtask_without_partitions);
	tcase_add_test(tc, test_invalid_configuration_is_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("assignment");
	tcase_add_test(tc, test_split_owner_matches_flink_by_hand);
	tcase_add_test(tc, test_partitions_are_assigned_once_and_balanced);
	tcase_add_test(tc, test_partitions_of_respects_cap);
	suite_add_tcase(s, tc);

	tc = tcase_create("interface");
	tcase_add_test(tc, test_record_source_ops_drive_the_generator);
	tcase_add_test(tc,
		       test_partitions_are_reported_in_the_order_they_finish);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(source_gen_suite());
}
