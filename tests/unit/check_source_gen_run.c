/*
 * check_source_gen_run.c
 *	Unit tests of the generator's runs (wm_source_gen_next_run()): a run
 *	of up to cap records is exactly what cap calls of next() return, with
 *	the due times next_due_ns() said before each, and leaves the
 *	generator as they leave it, in every mode the generator has.
 *
 * Each test drives two generators of one configuration side by side over
 * the same instants, one a record a call and the other in runs of varying
 * length, and compares every record, every due time, and what the two
 * say of themselves after each step (next due, finishing order, per
 * partition counters). Fast mode's round (source_gen.c) is what the
 * configurations aim at: rounds that finish partitions, rounds that do
 * not form (unequal steps, too many partitions, a silence, a burst edge,
 * a pause), and draws of every kind.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "base/countof.h"
#include "operators/source_gen.h"
#include "tests/unit/check_main.h"

#define MS 1000000LL /* ns */
#define RUN_MAX 100u

/* How a test moves time and what it does between steps. */
struct drive {
	int64_t step_ns; /* now moves by this after each round of calls */
	uint32_t steps;
	/* Pause local partition pause_index in steps [pause_from, pause_to)
	 * (pause_to 0: never). */
	uint32_t pause_index, pause_from, pause_to;
};

static void
assert_same_record(const struct wm_record *a, const struct wm_record *b,
		   uint64_t at)
{
	ck_assert_msg(
		a->ts == b->ts && a->key == b->key && a->value == b->value &&
			a->flags == b->flags && a->partition == b->partition,
		"record %llu differs: next() gave (%lld, %lld, %lld, "
		"p%u), the run (%lld, %lld, %lld, p%u)",
		(unsigned long long)at, (long long)a->ts, (long long)a->key,
		(long long)a->value, a->partition, (long long)b->ts,
		(long long)b->key, (long long)b->value, b->partition);
}

/* What the two say of themselves after a step. */
static void
assert_same_state(const struct wm_source_gen *one,
		  const struct wm_source_gen *run, int64_t now)
{
	struct wm_record_source *a =
		wm_source_gen_source((struct wm_source_gen *)one);
	struct wm_record_source *b =
		wm_source_gen_source((struct wm_source_gen *)run);
	uint32_t finished = a->ops->n_finished(a);

	ck_assert_int_eq(wm_source_gen_next_due_ns(one),
			 wm_source_gen_next_due_ns(run));
	ck_assert(wm_source_gen_finished(one) == wm_source_gen_finished(run));
	ck_assert_uint_eq(finished, b->ops->n_finished(b));
	for (uint32_t k = 0; k < finished; k++)
		ck_assert_uint_eq(a->ops->finished_partition(a, k),
				  b->ops->finished_partition(b, k));
	for (uint32_t i = 0; i < wm_source_gen_n_partitions(one); i++) {
		struct wm_source_partition_stats sa, sb;

		wm_source_gen_partition_stats(one, i, now, &sa);
		wm_source_gen_partition_stats(run, i, now, &sb);
		ck_assert_uint_eq(sa.emitted, sb.emitted);
		ck_assert_uint_eq(sa.skipped, sb.skipped);
		ck_assert(sa.finished == sb.finished);
	}
}

/*
 * Drive both generators of `c` as `d` says, up to three runs an instant,
 * the run's length going round 1..RUN_MAX; returns the records compared, which the caller checks is
 * what the configuration makes (the comparison is not empty).
 */
static uint64_t
drive_both(const struct wm_source_gen_conf *c, const struct drive *d)
{
	struct wm_source_gen *one = wm_source_gen_new(c);
	struct wm_source_gen *run = wm_source_gen_new(c);
	struct wm_record got[RUN_MAX], want;
	int64_t due[RUN_MAX];
	uint64_t compared = 0;
	uint32_t cap = 1;

	ck_assert_msg(one != NULL && run != NULL,
		      "wm_source_gen_new failed: errno %d", errno);
	for (uint32_t step = 0; step < d->steps; step++) {
		int64_t now = (int64_t)step * d->step_ns;

		if (d->pause_to > 0 &&
		    (step == d->pause_from || step == d->pause_to)) {
			bool paused = step == d->pause_from;

			wm_source_gen_pause(one, d->pause_index, paused, now);
			wm_source_gen_pause(run, d->pause_index, paused, now);
		}
		/* Fast mode has records at every instant: a few runs an
		 * instant, then time moves on. */
		for (uint32_t calls = 0; calls < 3; calls++) {
			uint32_t n =
				wm_source_gen_next_run(run, now, got, due, cap);
			uint32_t k;

			for (k = 0; k < cap; k++) {
				int64_t due_one =
					wm_source_gen_next_due_ns(one);

				if (wm_source_gen_next(one, now, &want) != 1)
					break;
				ck_assert_msg(k < n,
					      "the run stopped at %u of %u, "
					      "next() had more at %lld",
					      n, cap, (long long)now);
				assert_same_record(&want, &got[k], compared);
				ck_assert_int_eq(due_one, due[k]);
				compared++;
			}
			ck_assert_uint_eq(k, n);
			assert_same_state(one, run, now);
			cap = cap % RUN_MAX + 1;
			if (n == 0)
				break;
		}
	}
	wm_source_gen_free(one);
	wm_source_gen_free(run);
	return compared;
}

static void
conf_fast(struct wm_source_gen_conf *c, const uint32_t *ids, uint32_t n)
{
	wm_source_gen_conf_init(c);
	c->partitions = ids;
	c->n_partitions = n;
	c->rate = INFINITY;
	c->keys = 1024;
	c->seed = 7;
}

/* Partitions ids 0..n-1 into ids[]. */
static const uint32_t *
ids_upto(uint32_t *ids, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		ids[i] = i;
	return ids;
}

/* Plain draws, equal steps: rounds all along, the partitions finishing
 * at max_records inside them, one after another as their runs start
 * where the last one ended. */
START_TEST(test_fast_rounds_finish_partitions)
{
	uint32_t ids[8];
	struct wm_source_gen_conf c;
	struct drive d = {.step_ns = MS, .steps = 400};

	conf_fast(&c, ids_upto(ids, 8), 8);
	c.max_records = 997;
	ck_assert_uint_eq(drive_both(&c, &d), 8u * 997);
}
END_TEST

/* Every kind of draw: late records, delays, Zipf keys, a value cycle, an
 * event-time end, through rounds. */
START_TEST(test_fast_rounds_with_every_draw)
{
	uint32_t ids[5];
	struct wm_source_gen_conf c;
	struct drive d = {.step_ns = MS, .steps = 300};
	uint64_t n;

	conf_fast(&c, ids_upto(ids, 5), 5);
	c.out_of_orderness_ms = 30;
	c.late_fraction = 0.2;
	c.late_by_ms = 50;
	c.zipf = true;
	c.zipf_exponent = 1.2;
	c.value_cycle = 9;
	c.end_ts = 250;
	n = drive_both(&c, &d);
	ck_assert_uint_gt(n, 1000);
}
END_TEST

/* Rounds that cannot form: unequal steps (skew), more partitions than a
 * round takes, and silences, outages and bursts whose edges fall between
 * and inside runs, with random silences on top. */
START_TEST(test_fast_without_rounds)
{
	static const double skew[] = {1, 3, 1, 2};
	static const struct wm_source_gen_silence silences[] = {
		{.first_partition = 1,
		 .last_partition = 2,
		 .from_ms = 20,
		 .to_ms = INT64_MAX,
		 .period_ms = 50,
		 .length_ms = 15},
	};
	static const struct wm_source_gen_silence outages[] = {
		{.first_partition = 0,
		 .last_partition = 0,
		 .from_ms = 33,
		 .to_ms = 61},
	};
	static const struct wm_source_gen_burst bursts[] = {
		{.first_partition = 2,
		 .last_partition = 3,
		 .from_ms = 10,
		 .to_ms = 200,
		 .period_ms = 40,
		 .length_ms = 25,
		 .factor = 4},
	};
	static const struct wm_source_gen_random_silence rsil[] = {
		{.first_partition = 0,
		 .last_partition = 39,
		 .fraction = 0.2,
		 .mean_ms = 7},
	};
	uint32_t ids[40];
	struct wm_source_gen_conf c;
	struct drive d = {.step_ns = MS, .steps = 250};

	conf_fast(&c, ids_upto(ids, 4), 4);
	c.skew = skew;
	c.n_skew = N_ELEMS(skew);
	ck_assert_uint_gt(drive_both(&c, &d), 1000);

	conf_fast(&c, ids_upto(ids, 40), 40);
	c.max_records = 301;
	ck_assert_uint_eq(drive_both(&c, &d), 40u * 301);

	conf_fast(&c, ids_upto(ids, 6), 6);
	c.silences = silences;
	c.n_silences = N_ELEMS(silences);
	c.outages = outages;
	c.n_outages = N_ELEMS(outages);
	c.bursts = bursts;
	c.n_bursts = N_ELEMS(bursts);
	ck_assert_uint_gt(drive_both(&c, &d), 1000);

	c.random_silences = rsil;
	c.n_random_silences = N_ELEMS(rsil);
	ck_assert_uint_gt(drive_both(&c, &d), 1000);
}
END_TEST

/* A partition paused and resumed between runs: the round forms without
 * it, and again with it back at the current virtual time. */
START_TEST(test_fast_pause_between_rounds)
{
	uint32_t ids[6];
	struct wm_source_gen_conf c;
	struct drive d = {.step_ns = MS,
			  .steps = 200,
			  .pause_index = 3,
			  .pause_from = 40,
			  .pause_to = 90};

	conf_fast(&c, ids_upto(ids, 6), 6);
	ck_assert_uint_gt(drive_both(&c, &d), 1000);
}
END_TEST

/* Paced mode goes record by record in a run; the run still has to give
 * what next() gives, due times and skipped arrivals included. */
START_TEST(test_paced_runs)
{
	static const struct wm_source_gen_silence silences[] = {
		{.first_partition = 0,
		 .last_partition = 1,
		 .from_ms = 300,
		 .to_ms = 700},
	};
	uint32_t ids[4];
	struct wm_source_gen_conf c;
	struct drive d = {.step_ns = 7 * MS, .steps = 200};

	conf_fast(&c, ids_upto(ids, 4), 4);
	c.rate = 2000;
	c.out_of_orderness_ms = 20;
	c.silences = silences;
	c.n_silences = N_ELEMS(silences);
	ck_assert_uint_gt(drive_both(&c, &d), 4000);
}
END_TEST

static Suite *
source_gen_run_suite(void)
{
	Suite *s = suite_create("source_gen_run");
	TCase *tc = tcase_create("runs");

	tcase_add_test(tc, test_fast_rounds_finish_partitions);
	tcase_add_test(tc, test_fast_rounds_with_every_draw);
	tcase_add_test(tc, test_fast_without_rounds);
	tcase_add_test(tc, test_fast_pause_between_rounds);
	tcase_add_test(tc, test_paced_runs);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(source_gen_run_suite());
}
