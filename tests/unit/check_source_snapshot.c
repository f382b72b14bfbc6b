/*
 * check_source_snapshot.c
 *	Unit tests of sources' positions (the record-source ops snapshot and
 *	restore): a generator (paced, with silences, random silences, bursts,
 *	outages and late records; fast) and a replayed trace, split after
 *	any record, restored into a new source, emit exactly the records
 *	after the split, each at the time it was due before; polled late,
 *	the records due in the meantime come at once, in order. Malformed
 *	or foreign positions are refused.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/snap.h"
#include "operators/source_gen.h"
#include "runtime/source/replay.h"
#include "tests/unit/check_main.h"

#define MS 1000000LL

/* A record and the poll time that returned it. */
struct got {
	struct wm_record rec;
	int64_t now;
};

struct run {
	struct got *g;
	size_t n, cap;
};

static void
run_push(struct run *run, const struct wm_record *rec, int64_t now)
{
	if (run->n == run->cap) {
		run->cap = run->cap ? 2 * run->cap : 1024;
		run->g = realloc(run->g, run->cap * sizeof(*run->g));
		ck_assert_ptr_nonnull(run->g);
	}
	run->g[run->n++] = (struct got){.rec = *rec, .now = now};
}

/*
 * Poll src every `step` ns from `from` until it finishes (or `until`),
 * taking every record due; stop after `limit` records (the split), and
 * return the poll time reached.
 */
static int64_t
poll(struct wm_record_source *src, int64_t from, int64_t step, int64_t until,
     size_t limit, struct run *run)
{
	int64_t now = from;
	struct wm_record rec;

	for (; now <= until && !wm_record_source_finished(src); now += step) {
		while (run->n < limit && wm_record_source_next(src, now, &rec))
			run_push(run, &rec, now);
		if (run->n == limit)
			return now;
	}
	return now;
}

static void
assert_same_records(const struct got *a, const struct got *b, size_t n,
		    bool same_time)
{
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(memcmp(&a[i].rec, &b[i].rec, sizeof(a[i].rec)) ==
				      0,
			      "record %zu differs", i);
		if (same_time)
			ck_assert_int_eq(a[i].now, b[i].now);
	}
}

static void
snapshot_source(const struct wm_record_source *src, struct wm_snap_writer *w)
{
	wm_snap_writer_init(w);
	wm_record_source_snapshot(src, w);
	ck_assert_int_eq(wm_snap_writer_error(w), 0);
}

static int
restore_source(struct wm_record_source *src, const void *bytes, size_t len)
{
	struct wm_snap_reader r;

	wm_snap_reader_init(&r, bytes, len);
	return wm_record_source_restore(src, &r);
}

/* ---- the generator ---- */

static const uint32_t parts[] = {0, 3, 5};
static const struct wm_source_gen_silence silences[] = {
	{.first_partition = 3,
	 .last_partition = 3,
	 .from_ms = 200,
	 .to_ms = 900},
	{.first_partition = 0,
	 .last_partition = 5,
	 .from_ms = 100,
	 .to_ms = INT64_MAX,
	 .period_ms = 500,
	 .length_ms = 60},
};
static const struct wm_source_gen_silence outages[] = {
	{.first_partition = 5,
	 .last_partition = 5,
	 .from_ms = 300,
	 .to_ms = 700},
};
static const struct wm_source_gen_burst bursts[] = {
	{.first_partition = 0,
	 .last_partition = 3,
	 .from_ms = 400,
	 .to_ms = 1200,
	 .factor = 3.5},
};
/* Marks by count and by event time: a restore must go on marking the
 * records it would have (the slot of the last mark is in the snapshot). */
static const struct wm_source_gen_punctuation punctuations[] = {
	{.first_partition = 0, .last_partition = 0, .every_records = 3},
	{.first_partition = 3, .last_partition = 5, .every_ms = 45},
};
static const struct wm_source_gen_random_silence random_silences[] = {
	{.first_partition = 0,
	 .last_partition = 5,
	 .fraction = 0.3,
	 .mean_ms = 40},
};

static struct wm_record_source *
new_gen(bool fast)
{
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;

	wm_source_gen_conf_init(&c);
	c.n_partitions = 3;
	c.partitions = parts;
	c.rate = fast ? INFINITY : 250.5;
	c.out_of_orderness_ms = 30;
	c.late_fraction = 0.1;
	c.late_by_ms = 100;
	c.keys = 50;
	c.zipf = true;
	c.value_cycle = 7;
	c.n_silences = 2;
	c.silences = silences;
	c.n_outages = fast ? 0 : 1;
	c.outages = outages;
	c.n_bursts = 1;
	c.bursts = bursts;
	c.n_random_silences = 1;
	c.random_silences = random_silences;
	c.n_punctuations = 2;
	c.punctuations = punctuations;
	c.seed = 42;
	c.start_epoch_ms = 1000000;
	c.end_ts = c.start_epoch_ms + 2000;
	if (fast)
		c.max_records = 700;
	g = wm_source_gen_new(&c);
	ck_assert_ptr_nonnull(g);
	return wm_source_gen_source(g);
}

static void
assert_same_stats(const struct wm_record_source *a,
		  const struct wm_record_source *b, int64_t now)
{
	ck_assert_uint_eq(a->ops->n_finished(a), b->ops->n_finished(b));
	for (uint32_t i = 0; i < a->ops->n_partitions(a); i++) {
		struct wm_source_partition_stats sa, sb;

		a->ops->partition_stats(a, i, now, &sa);
		b->ops->partition_stats(b, i, now, &sb);
		ck_assert_uint_eq(sa.partition, sb.partition);
		ck_assert_uint_eq(sa.emitted, sb.emitted);
		ck_assert_uint_eq(sa.skipped, sb.skipped);
		ck_assert_int_eq(sa.finished, sb.finished);
	}
}

/* Split a generator after each of `splits` records: the same records,
 * polled at the same times, and the same counters at the end. */
static void
gen_split(bool fast, const size_t *splits, size_t n_splits)
{
	const int64_t step = 3 * MS + 17, end = 3000 * MS;
	struct wm_record_source *whole = new_gen(fast);
	struct run all = {0};

	poll(whole, 0, step, end, SIZE_MAX, &all);
	ck_assert(wm_record_source_finished(whole));
	ck_assert_uint_gt(all.n, 600);
	for (size_t s = 0; s < n_splits; s++) {
		struct wm_record_source *before = new_gen(fast), *after;
		struct run pre = {0}, post = {0};
		struct wm_snap_writer w;
		int64_t at;

		ck_assert_uint_lt(splits[s], all.n);
		at = poll(before, 0, step, end, splits[s], &pre);
		snapshot_source(before, &w);
		after = new_gen(fast);
		ck_assert_int_eq(restore_source(after, wm_snap_writer_bytes(&w),
						wm_snap_writer_len(&w)),
				 0);
		assert_same_stats(before, after, at);
		/* The poll at `at` may have more records due. */
		poll(after, at, step, end, SIZE_MAX, &post);
		ck_assert_uint_eq(pre.n + post.n, all.n);
		assert_same_records(all.g, pre.g, pre.n, true);
		assert_same_records(all.g + pre.n, post.g, post.n, true);
		assert_same_stats(whole, after, end);
		wm_snap_writer_release(&w);
		wm_record_source_free(before);
		wm_record_source_free(after);
		free(pre.g);
		free(post.g);
	}
	wm_record_source_free(whole);
	free(all.g);
}

START_TEST(test_paced_generator_split_anywhere)
{
	static const size_t splits[] = {1, 2, 17, 100, 233, 400, 599};

	gen_split(false, splits, sizeof(splits) / sizeof(splits[0]));
}
END_TEST

START_TEST(test_fast_generator_split_anywhere)
{
	static const size_t splits[] = {1, 5, 99, 350, 698};

	gen_split(true, splits, sizeof(splits) / sizeof(splits[0]));
}
END_TEST

/* Restarted late, a paced generator owes the records due meanwhile: all
 * at once, in the order and with the event times they had. */
START_TEST(test_generator_restarted_late_emits_a_backlog)
{
	const int64_t step = 3 * MS + 17, end = 3000 * MS;
	struct wm_record_source *whole = new_gen(false), *before, *after;
	struct run all = {0}, pre = {0}, post = {0};
	struct wm_snap_writer w;
	struct wm_record rec;
	int64_t at, late = 1500 * MS;

	poll(whole, 0, step, end, SIZE_MAX, &all);
	before = new_gen(false);
	at = poll(before, 0, step, end, 150, &pre);
	ck_assert_int_lt(at, late);
	snapshot_source(before, &w);
	after = new_gen(false);
	ck_assert_int_eq(restore_source(after, wm_snap_writer_bytes(&w),
					wm_snap_writer_len(&w)),
			 0);
	while (wm_record_source_next(after, late, &rec))
		run_push(&post, &rec, late);
	/* The backlog: exactly the records due by `late`, which the whole
	 * run, polling every step, took at most a step after it. */
	ck_assert_uint_gt(post.n, 100);
	ck_assert_int_lt(all.g[pre.n + post.n - 1].now, late + step);
	ck_assert_int_gt(all.g[pre.n + post.n].now, late);
	poll(after, late, step, end, SIZE_MAX, &post);
	ck_assert_uint_eq(pre.n + post.n, all.n);
	assert_same_records(all.g + pre.n, post.g, post.n, false);
	wm_snap_writer_release(&w);
	wm_record_source_free(whole);
	wm_record_source_free(before);
	wm_record_source_free(after);
	free(all.g);
	free(pre.g);
	free(post.g);
}
END_TEST

START_TEST(test_generator_refuses_foreign_positions)
{
	struct wm_record_source *a = new_gen(false), *b;
	struct wm_snap_writer w;
	struct run run = {0};

	poll(a, 0, MS, 3000 * MS, 50, &run);
	snapshot_source(a, &w);
	/* Fast and paced are two configurations. */
	b = new_gen(true);
	ck_assert_int_eq(restore_source(b, wm_snap_writer_bytes(&w),
					wm_snap_writer_len(&w)),
			 -EINVAL);
	wm_record_source_free(b);
	/* A source that has emitted is no new source. */
	ck_assert_int_eq(restore_source(a, wm_snap_writer_bytes(&w),
					wm_snap_writer_len(&w)),
			 -EINVAL);
	for (size_t len = 0; len < wm_snap_writer_len(&w); len++) {
		uint8_t *copy = malloc(len ? len : 1);

		ck_assert_ptr_nonnull(copy);
		memcpy(copy, wm_snap_writer_bytes(&w), len);
		b = new_gen(false);
		ck_assert_int_eq(restore_source(b, copy, len), -EBADMSG);
		wm_record_source_free(b);
		free(copy);
	}
	wm_snap_writer_release(&w);
	wm_record_source_free(a);
	free(run.g);
}
END_TEST

/* ---- the replayed trace ---- */

static struct wm_replay_trace *trace;
static char trace_path[] = "/tmp/check_source_snapshot.XXXXXX";

/* Four partitions, out of order within each, arrivals interleaved. */
static void
trace_setup(void)
{
	char err[256];
	int fd = mkstemp(trace_path);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "partition,timestamp,key,value,arrival\n");
	for (int i = 0; i < 400; i++)
		fprintf(f, "%d,%d,%d,%d,%d\n", (i * 7) % 4,
			1000 + i * 3 - (i * 13) % 40, i % 9, i, i / 3);
	ck_assert_int_eq(fclose(f), 0);
	trace = wm_replay_read(trace_path, 4, WM_REPLAY_ARRIVAL,
			       WM_KEY_TYPE_LONG, NULL, false, err, sizeof(err));
	ck_assert_msg(trace != NULL, "%s", err);
}

static void
trace_teardown(void)
{
	wm_replay_free(trace);
	unlink(trace_path);
	/* The template again, for the next test when Check does not fork. */
	strcpy(trace_path + strlen(trace_path) - 6, "XXXXXX");
}

static const uint32_t mine[] = {3, 0, 2};

static struct wm_record_source *
new_replay(void)
{
	struct wm_record_source *src = wm_replay_source(trace, mine, 3);

	ck_assert_ptr_nonnull(src);
	return src;
}

START_TEST(test_replay_split_anywhere)
{
	struct wm_record_source *whole = new_replay();
	struct run all = {0};

	poll(whole, 0, MS / 2, 1000 * MS, SIZE_MAX, &all);
	ck_assert_uint_eq(all.n, 300); /* three partitions of four */
	for (size_t k = 1; k < all.n; k += 7) {
		struct wm_record_source *before = new_replay(), *after;
		struct run pre = {0}, post = {0};
		struct wm_snap_writer w;
		int64_t at;

		at = poll(before, 0, MS / 2, 1000 * MS, k, &pre);
		snapshot_source(before, &w);
		after = new_replay();
		ck_assert_int_eq(restore_source(after, wm_snap_writer_bytes(&w),
						wm_snap_writer_len(&w)),
				 0);
		assert_same_stats(before, after, at);
		poll(after, at, MS / 2, 1000 * MS, SIZE_MAX, &post);
		ck_assert_uint_eq(pre.n + post.n, all.n);
		assert_same_records(all.g + pre.n, post.g, post.n, true);
		ck_assert(wm_record_source_finished(after));
		assert_same_stats(whole, after, 1000 * MS);
		wm_snap_writer_release(&w);
		wm_record_source_free(before);
		wm_record_source_free(after);
		free(pre.g);
		free(post.g);
	}
	wm_record_source_free(whole);
	free(all.g);
}
END_TEST

START_TEST(test_replay_restarted_late_emits_a_backlog)
{
	struct wm_record_source *whole = new_replay(), *before, *after;
	struct run all = {0}, pre = {0}, post = {0};
	struct wm_snap_writer w;
	struct wm_record rec;

	poll(whole, 0, MS / 2, 1000 * MS, SIZE_MAX, &all);
	before = new_replay();
	(void)poll(before, 0, MS / 2, 1000 * MS, 40, &pre);
	snapshot_source(before, &w);
	after = new_replay();
	ck_assert_int_eq(restore_source(after, wm_snap_writer_bytes(&w),
					wm_snap_writer_len(&w)),
			 0);
	/* Long after the last arrival: everything left at once. */
	while (wm_record_source_next(after, 10000 * MS, &rec))
		run_push(&post, &rec, 10000 * MS);
	ck_assert_uint_eq(pre.n + post.n, all.n);
	assert_same_records(all.g + pre.n, post.g, post.n, false);
	wm_snap_writer_release(&w);
	wm_record_source_free(whole);
	wm_record_source_free(before);
	wm_record_source_free(after);
	free(all.g);
	free(pre.g);
	free(post.g);
}
END_TEST

/* A partition paused for alignment holds its due records back, unsent:
 * a snapshot taken then must not count them, and a restored source
 * (which reads everything again) sends them. Each partition's records
 * before the snapshot and after the restore are all of its records, in
 * order. */
START_TEST(test_replay_snapshot_while_paused_keeps_the_held_records)
{
	struct wm_record_source *whole = new_replay(), *before, *after;
	struct run all = {0}, pre = {0}, post = {0};
	struct wm_snap_writer w;
	int64_t at;

	poll(whole, 0, MS / 2, 1000 * MS, SIZE_MAX, &all);
	before = new_replay();
	before->ops->pause(before, 0, true, 0); /* partition mine[0] */
	at = poll(before, 0, MS / 2, 60 * MS, SIZE_MAX, &pre);
	snapshot_source(before, &w);
	after = new_replay();
	ck_assert_int_eq(restore_source(after, wm_snap_writer_bytes(&w),
					wm_snap_writer_len(&w)),
			 0);
	poll(after, at, MS / 2, 1000 * MS, SIZE_MAX, &post);
	ck_assert_uint_eq(pre.n + post.n, all.n);
	for (size_t k = 0; k < sizeof(mine) / sizeof(mine[0]); k++) {
		size_t a = 0, b = 0, c = 0, held = 0;

		for (; a < all.n; a++) {
			const struct got *want = &all.g[a];
			const struct got *got;

			if (want->rec.partition != mine[k])
				continue;
			while (b < pre.n && pre.g[b].rec.partition != mine[k])
				b++;
			if (b < pre.n) {
				got = &pre.g[b++];
			} else {
				while (c < post.n &&
				       post.g[c].rec.partition != mine[k])
					c++;
				ck_assert_uint_lt(c, post.n);
				got = &post.g[c++];
				held += k == 0;
			}
			ck_assert_mem_eq(&got->rec, &want->rec,
					 sizeof(got->rec));
		}
		if (k == 0)
			ck_assert_uint_eq(held,
					  100); /* none sent while paused */
	}
	wm_snap_writer_release(&w);
	wm_record_source_free(whole);
	wm_record_source_free(before);
	wm_record_source_free(after);
	free(all.g);
	free(pre.g);
	free(post.g);
}
END_TEST

/* A position names partitions by id: one this source does not read, an
 * offset past a partition's records, a used source: refused. */
START_TEST(test_replay_refuses_foreign_positions)
{
	static const uint32_t others[] = {1, 2};
	struct wm_record_source *a = new_replay(), *b;
	struct wm_snap_writer w;
	struct run run = {0};

	poll(a, 0, MS / 2, 1000 * MS, 60, &run);
	snapshot_source(a, &w);
	b = wm_replay_source(trace, others, 2);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(restore_source(b, wm_snap_writer_bytes(&w),
					wm_snap_writer_len(&w)),
			 -EINVAL);
	wm_record_source_free(b);
	ck_assert_int_eq(restore_source(a, wm_snap_writer_bytes(&w),
					wm_snap_writer_len(&w)),
			 -EINVAL);
	wm_snap_writer_release(&w);

	/* Partition 3 at offset 101: it has 100 records. */
	wm_snap_writer_init(&w);
	wm_snap_begin(&w, WM_SNAP_TAG('R', 'P', 'L', 'Y'), 1);
	wm_snap_put_u64(&w, 1);
	wm_snap_put_u32(&w, 3);
	wm_snap_put_u64(&w, 101);
	wm_snap_end(&w);
	b = new_replay();
	ck_assert_int_eq(restore_source(b, wm_snap_writer_bytes(&w),
					wm_snap_writer_len(&w)),
			 -EINVAL);
	/* Refused, and untouched: it still replays from the start. */
	wm_record_source_free(b);
	wm_snap_writer_release(&w);

	snapshot_source(a, &w);
	for (size_t len = 0; len < wm_snap_writer_len(&w); len++) {
		b = new_replay();
		ck_assert_int_eq(
			restore_source(b, wm_snap_writer_bytes(&w), len),
			-EBADMSG);
		wm_record_source_free(b);
	}
	wm_snap_writer_release(&w);
	wm_record_source_free(a);
	free(run.g);
}
END_TEST

static Suite *
source_snapshot_suite(void)
{
	Suite *s = suite_create("source_snapshot");
	TCase *tc;

	tc = tcase_create("generator");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_paced_generator_split_anywhere);
	tcase_add_test(tc, test_fast_generator_split_anywhere);
	tcase_add_test(tc, test_generator_restarted_late_emits_a_backlog);
	tcase_add_test(tc, test_generator_refuses_foreign_positions);
	suite_add_tcase(s, tc);

	tc = tcase_create("replay");
	tcase_add_checked_fixture(tc, trace_setup, trace_teardown);
	tcase_add_test(tc, test_replay_split_anywhere);
	tcase_add_test(tc, test_replay_restarted_late_emits_a_backlog);
	tcase_add_test(
		tc, test_replay_snapshot_while_paused_keeps_the_held_records);
	tcase_add_test(tc, test_replay_refuses_foreign_positions);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(source_snapshot_suite());
}
