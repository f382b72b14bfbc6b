/*
 * check_heartbeats.c
 *	Heartbeats merged into a generator's records (operators/heartbeats.h):
 *	their times, timestamps and order among the records, silent or not,
 *	up to the end; runs that equal record-at-a-time reading; a pause's
 *	backlog; a checkpoint's restore; bad schedules refused.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/snap.h"
#include "operators/heartbeats.h"
#include "operators/source_gen.h"
#include "tests/unit/check_main.h"

#define MS 1000000LL
#define MAX_SEEN 4096

/* A generator of partitions 0..n-1 at `rate` a second (INFINITY: fast),
 * ending at end_ms of event time, partition `silent` (or none: -1)
 * silent for ever from silent_from_ms, with `hb` merged in. */
static struct wm_record_source *
source(uint32_t n, double rate, int64_t end_ms, int silent,
       int64_t silent_from_ms, const struct wm_heartbeat *hb, uint32_t n_hb)
{
	static const uint32_t ids[] = {0, 1, 2, 3};
	struct wm_source_gen_silence sil = {
		.first_partition = (uint32_t)silent,
		.last_partition = (uint32_t)silent,
		.from_ms = silent_from_ms,
		.to_ms = INT64_MAX,
	};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record_source *src;

	wm_source_gen_conf_init(&c);
	c.n_partitions = n;
	c.partitions = ids;
	c.rate = rate;
	c.keys = 5;
	c.seed = 7;
	c.end_ts = end_ms;
	if (silent >= 0) {
		c.n_silences = 1;
		c.silences = &sil;
	}
	g = wm_source_gen_new(&c);
	ck_assert_ptr_nonnull(g);
	src = wm_heartbeats_wrap(wm_source_gen_source(g), hb, n_hb, isinf(rate),
				 0, wm_source_gen_end_ns(g));
	ck_assert_ptr_nonnull(src);
	return src;
}

struct seen {
	struct wm_record rec;
	int64_t at; /* the now_ns it was read at */
};

/* Records read at one now_ns in fast mode, where some always are due. */
#define FAST_READS 10

/* Everything src gives, read at the times it says are due (paced: all
 * that is due) or every step_ns (fast: FAST_READS), up to until_ns, a run
 * of up to `run` at a time (1: next()). */
static size_t
drain(struct wm_record_source *src, int64_t until_ns, int64_t step_ns,
      uint32_t run, struct seen *out)
{
	size_t n = 0;
	int64_t now = 0;

	while (now <= until_ns && !wm_record_source_finished(src)) {
		struct wm_record recs[16];
		uint32_t got, read = 0;

		do {
			uint32_t cap = step_ns > 0 && FAST_READS - read < run
					       ? FAST_READS - read
					       : run;

			if (cap == 1)
				got = (uint32_t)wm_record_source_next(src, now,
								      &recs[0]);
			else
				got = wm_record_source_next_run(src, now, recs,
								NULL, cap);
			for (uint32_t i = 0; i < got; i++) {
				ck_assert_uint_lt(n, MAX_SEEN);
				out[n].rec = recs[i];
				out[n++].at = now;
			}
			read += got;
		} while (got > 0 && (step_ns == 0 || read < FAST_READS));
		if (step_ns > 0)
			now += step_ns;
		else {
			int64_t due = wm_record_source_next_due_ns(src);

			ck_assert_int_gt(due, now);
			now = due;
		}
	}
	return n;
}

static bool
is_beat(const struct seen *s)
{
	return (s->rec.flags & WM_RECORD_HEARTBEAT) != 0;
}

/* One partition at 1/s with a heartbeat every 400 ms, to 5 s: the records
 * at 0..4 s, the heartbeats at 400 ms .. 4.8 s, each read when due, the
 * heartbeat first where both are due at once (2 s, 4 s), none at the end. */
START_TEST(test_order_and_timestamps)
{
	const struct wm_heartbeat hb = {0, 0, 400};
	struct wm_record_source *src = source(1, 1.0, 5000, -1, 0, &hb, 1);
	static struct seen seen[MAX_SEEN];
	size_t n = drain(src, INT64_MAX, 0, 1, seen), beats = 0, records = 0;

	ck_assert_uint_eq(n, 5 + 12);
	for (size_t i = 0; i < n; i++) {
		if (is_beat(&seen[i])) {
			beats++;
			ck_assert_int_eq(seen[i].rec.ts, (int64_t)beats * 400);
			ck_assert_int_eq(seen[i].at, (int64_t)beats * 400 * MS);
			ck_assert_int_eq(seen[i].rec.key, 0);
			ck_assert_int_eq(seen[i].rec.value, 0);
			ck_assert_uint_eq(seen[i].rec.partition, 0);
		} else {
			ck_assert_int_eq(seen[i].at,
					 (int64_t)records * 1000 * MS);
			records++;
		}
		if (i > 0)
			ck_assert_int_ge(seen[i].at, seen[i - 1].at);
	}
	/* 2 s: heartbeat 5 then record 2; 4 s: heartbeat 10 then record 4. */
	for (size_t i = 0; i + 1 < n; i++)
		if (seen[i].at == seen[i + 1].at)
			ck_assert(is_beat(&seen[i]) && !is_beat(&seen[i + 1]));
	ck_assert(wm_record_source_finished(src));
	wm_record_source_free(src);
}
END_TEST

/* A partition silent for ever from 1 s sends its heartbeats still, up to
 * the end; its neighbour without a heartbeat sends none. */
START_TEST(test_silent_partition_beats_on)
{
	const struct wm_heartbeat hb = {1, 1, 250};
	struct wm_record_source *src = source(2, 10.0, 3000, 1, 1000, &hb, 1);
	static struct seen seen[MAX_SEEN];
	size_t n = drain(src, INT64_MAX, 0, 1, seen);
	size_t beats = 0, late_records = 0;

	for (size_t i = 0; i < n; i++) {
		if (is_beat(&seen[i])) {
			ck_assert_uint_eq(seen[i].rec.partition, 1);
			beats++;
		} else if (seen[i].rec.partition == 1 &&
			   seen[i].at >= 1000 * MS) {
			late_records++;
		}
	}
	ck_assert_uint_eq(beats, 11); /* 250 ms .. 2750 ms */
	ck_assert_uint_eq(late_records, 0);
	wm_record_source_free(src);
}
END_TEST

/* Runs of every length give what next() gives, paced and fast. */
START_TEST(test_runs_equal_records)
{
	const struct wm_heartbeat hb[2] = {{0, 0, 130}, {2, 3, 70}};
	static struct seen one[MAX_SEEN], runs[MAX_SEEN];

	for (int fast = 0; fast < 2; fast++)
		for (uint32_t cap = 2; cap <= 16; cap += 7) {
			double rate = fast ? INFINITY : 37.0;
			int64_t step = fast ? 3 * MS : 0;
			int64_t until = fast ? 600 * MS : INT64_MAX;
			struct wm_record_source *a =
				source(4, rate, 900, 3, 200, hb, 2);
			struct wm_record_source *b =
				source(4, rate, 900, 3, 200, hb, 2);
			size_t n = drain(a, until, step, 1, one);
			size_t m = drain(b, until, step, cap, runs);

			ck_assert_uint_eq(n, m);
			for (size_t i = 0; i < n; i++) {
				ck_assert_int_eq(one[i].rec.ts, runs[i].rec.ts);
				ck_assert_int_eq(one[i].rec.key,
						 runs[i].rec.key);
				ck_assert_uint_eq(one[i].rec.flags,
						  runs[i].rec.flags);
				ck_assert_uint_eq(one[i].rec.partition,
						  runs[i].rec.partition);
				ck_assert_int_eq(one[i].at, runs[i].at);
			}
			wm_record_source_free(a);
			wm_record_source_free(b);
		}
}
END_TEST

/* A paused partition sends nothing; resumed, the heartbeats it owes come
 * at once, in order, each with its own timestamp. */
START_TEST(test_pause_keeps_the_backlog)
{
	const struct wm_heartbeat hb = {0, 0, 100};
	struct wm_record_source *src = source(1, 1.0, 10000, 0, 0, &hb, 1);
	struct wm_record r;

	ck_assert_int_eq(wm_record_source_next(src, 100 * MS, &r), 1);
	ck_assert_int_eq(r.ts, 100);
	src->ops->pause(src, 0, true, 150 * MS);
	ck_assert_int_eq(wm_record_source_next(src, 450 * MS, &r), 0);
	src->ops->pause(src, 0, false, 450 * MS);
	for (int64_t ts = 200; ts <= 400; ts += 100) {
		ck_assert_int_eq(wm_record_source_next(src, 450 * MS, &r), 1);
		ck_assert_int_eq(r.ts, ts);
	}
	ck_assert_int_eq(wm_record_source_next(src, 450 * MS, &r), 0);
	ck_assert_int_eq(wm_record_source_next_due_ns(src), 500 * MS);
	wm_record_source_free(src);
}
END_TEST

/* A restored source goes on with the heartbeats after the snapshot's,
 * those due since at once; another schedule's snapshot is refused. */
START_TEST(test_restore_goes_on)
{
	const struct wm_heartbeat hb = {0, 1, 300};
	const struct wm_heartbeat other = {0, 0, 300};
	struct wm_record_source *a = source(2, 5.0, 4000, 1, 500, &hb, 1);
	struct wm_record_source *b = source(2, 5.0, 4000, 1, 500, &hb, 1);
	struct wm_record_source *c = source(2, 5.0, 4000, 1, 500, &other, 1);
	static struct seen rest[MAX_SEEN];
	struct wm_snap_writer w;
	struct wm_snap_reader r;
	struct wm_record rec;
	size_t n = 0;

	while (wm_record_source_next(a, 1000 * MS, &rec) == 1)
		;
	wm_snap_writer_init(&w);
	wm_record_source_snapshot(a, &w);
	ck_assert_int_eq(wm_snap_writer_error(&w), 0);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_record_source_restore(b, &r), 0);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_ne(wm_record_source_restore(c, &r), 0);
	wm_record_source_free(c);
	/* Both from 1 s on, read at 1.7 s: the same records and beats. */
	while (wm_record_source_next(a, 1700 * MS, &rec) == 1)
		rest[n++].rec = rec;
	ck_assert_uint_gt(n, 0);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(wm_record_source_next(b, 1700 * MS, &rec), 1);
		ck_assert_int_eq(rec.ts, rest[i].rec.ts);
		ck_assert_uint_eq(rec.flags, rest[i].rec.flags);
		ck_assert_uint_eq(rec.partition, rest[i].rec.partition);
	}
	ck_assert_int_eq(wm_record_source_next(b, 1700 * MS, &rec), 0);
	wm_snap_writer_release(&w);
	wm_record_source_free(a);
	wm_record_source_free(b);
}
END_TEST

START_TEST(test_bad_schedules_refused)
{
	const struct wm_heartbeat twice[2] = {{0, 1, 100}, {1, 1, 200}};
	const struct wm_heartbeat zero = {0, 0, 0};
	const struct wm_heartbeat reversed = {1, 0, 100};
	const struct wm_heartbeat *bad[3] = {twice, &zero, &reversed};
	const uint32_t n_bad[3] = {2, 1, 1};
	static const uint32_t ids[] = {0, 1};

	for (int i = 0; i < 3; i++) {
		struct wm_source_gen_conf c;
		struct wm_source_gen *g;

		wm_source_gen_conf_init(&c);
		c.n_partitions = 2;
		c.partitions = ids;
		c.rate = 1.0;
		g = wm_source_gen_new(&c);
		ck_assert_ptr_nonnull(g);
		errno = 0;
		ck_assert_ptr_null(wm_heartbeats_wrap(wm_source_gen_source(g),
						      bad[i], n_bad[i], false,
						      0, INT64_MAX));
		ck_assert_int_eq(errno, EINVAL);
	}
}
END_TEST

static Suite *
heartbeats_suite(void)
{
	Suite *s = suite_create("heartbeats");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_order_and_timestamps);
	tcase_add_test(tc, test_silent_partition_beats_on);
	tcase_add_test(tc, test_runs_equal_records);
	tcase_add_test(tc, test_pause_keeps_the_backlog);
	tcase_add_test(tc, test_restore_goes_on);
	tcase_add_test(tc, test_bad_schedules_refused);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(heartbeats_suite());
}
