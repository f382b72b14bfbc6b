/*
 * check_nexmark_source.c
 *	Unit tests of a Nexmark stream as narrow records: the subtasks of a
 *	source together emit exactly the stream's events of their kind, each
 *	once, in its partition (number mod partitions), each when it is due;
 *	key and value are the event's fields as the generator makes them;
 *	the partitions end at the stream's last event; a checkpoint taken
 *	anywhere resumes with exactly the records after it.
 *
 * Expected records are made from the generator's events directly
 * (wm_nexmark_gen_event(), extra and all), not from the source's code.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/snap.h"
#include "operators/nexmark_source.h"
#include "operators/source_gen.h"
#include "tests/unit/check_main.h"

#define EVENTS 5000u
#define PARTITIONS 5u

static struct wm_nexmark_source_conf
conf(enum wm_nexmark_kind kind, const char *key, const char *value)
{
	struct wm_nexmark_source_conf c = {
		.events = EVENTS,
		.partitions = PARTITIONS,
		.kind = kind,
	};

	wm_nexmark_config_defaults(&c.gen);
	c.gen.seed = 42;
	c.gen.base_time = 1436918400000; /* 2015-07-15 */
	c.gen.events_per_second = 700;	 /* several events a millisecond */
	ck_assert_ptr_null(wm_nexmark_config_check(&c.gen));
	ck_assert_int_eq(wm_nexmark_field_parse(key, kind, &c.key), 0);
	ck_assert_int_eq(wm_nexmark_field_parse(value, kind, &c.value), 0);
	return c;
}

/* Subtask `subtask` of `parallelism` as a record source. */
static struct wm_record_source *
subtask_source(const struct wm_nexmark_source_conf *c, uint32_t subtask,
	       uint32_t parallelism)
{
	uint32_t owned[PARTITIONS];
	size_t n =
		wm_source_gen_partitions_of(subtask, parallelism, c->partitions,
					    "nexmark", owned, PARTITIONS);
	struct wm_nexmark_source *s =
		wm_nexmark_source_new(c, owned, (uint32_t)n);

	ck_assert_ptr_nonnull(s);
	return wm_nexmark_source_base(s);
}

/* The record event n makes, by the generator and the fields alone. */
static struct wm_record
expected(const struct wm_nexmark_source_conf *c, uint64_t n)
{
	struct wm_nexmark_event e;

	wm_nexmark_gen_event(&c->gen, n, &e);
	return (struct wm_record){
		.ts = wm_nexmark_field_value(&e, WM_NEXMARK_FIELD_DATE_TIME),
		.key = wm_nexmark_field_value(&e, c->key),
		.value = wm_nexmark_field_value(&e, c->value),
		.partition = (uint32_t)(n % c->partitions),
	};
}

static int64_t
due_of(const struct wm_nexmark_source_conf *c, uint64_t n)
{
	return (wm_nexmark_gen_time(&c->gen, n) - c->gen.base_time) * 1000000;
}

/* Every record of src, polled at the due time it names, into out[]
 * (room for EVENTS); the count. Checks that nothing comes before its
 * time. */
static uint32_t
drain(struct wm_record_source *src, struct wm_record *out, int64_t *at)
{
	uint32_t n = 0;

	while (!src->ops->finished(src)) {
		int64_t due = src->ops->next_due_ns(src);

		ck_assert_int_ne(due, INT64_MAX);
		/* Just before: nothing. */
		ck_assert_int_eq(src->ops->next(src, due - 1, &out[n]), 0);
		while (src->ops->next(src, due, &out[n]) == 1) {
			ck_assert_uint_lt(n, EVENTS);
			at[n++] = due;
		}
	}
	ck_assert_int_eq(src->ops->next_due_ns(src), INT64_MAX);
	return n;
}

START_TEST(test_subtasks_emit_the_streams_bids_once_each_when_due)
{
	struct wm_nexmark_source_conf c =
		conf(WM_NEXMARK_BID, "auction", "price");
	static struct wm_record got[EVENTS];
	static int64_t at[EVENTS];
	static bool seen[EVENTS];
	uint32_t bids = 0, total = 0;

	memset(seen, 0, sizeof(seen));
	for (uint64_t n = 0; n < EVENTS; n++)
		bids += wm_nexmark_gen_kind(&c.gen, n) == WM_NEXMARK_BID;
	for (uint32_t sub = 0; sub < 2; sub++) {
		struct wm_record_source *src = subtask_source(&c, sub, 2);
		uint32_t owned[PARTITIONS];
		size_t n_owned = wm_source_gen_partitions_of(
			sub, 2, PARTITIONS, "nexmark", owned, PARTITIONS);
		uint32_t k = drain(src, got, at);
		uint64_t n = 0;

		ck_assert_uint_eq(src->ops->n_partitions(src), n_owned);
		ck_assert_uint_eq(src->ops->n_finished(src), n_owned);
		for (uint32_t i = 0; i < k; i++, n++) {
			struct wm_record want;

			/* The next bid in one of the subtask's partitions. */
			for (;; n++) {
				bool mine = false;

				ck_assert_uint_lt(n, EVENTS);
				for (size_t j = 0; j < n_owned; j++)
					mine |= owned[j] == n % PARTITIONS;
				if (mine && wm_nexmark_gen_kind(&c.gen, n) ==
						    WM_NEXMARK_BID)
					break;
			}
			want = expected(&c, n);
			ck_assert(memcmp(&got[i], &want, sizeof(want)) == 0);
			ck_assert_int_eq(at[i], due_of(&c, n));
			ck_assert(!seen[n]);
			seen[n] = true;
		}
		total += k;
		src->ops->free(src);
	}
	ck_assert_uint_eq(total, bids);
	for (uint64_t n = 0; n < EVENTS; n++)
		ck_assert(seen[n] ==
			  (wm_nexmark_gen_kind(&c.gen, n) == WM_NEXMARK_BID));
}
END_TEST

START_TEST(test_each_partition_ascends_and_holds_its_numbers)
{
	struct wm_nexmark_source_conf c = conf(WM_NEXMARK_BID, "bidder", "1");
	struct wm_record_source *src = subtask_source(&c, 0, 1);
	static struct wm_record got[EVENTS];
	static int64_t at[EVENTS];
	int64_t last[PARTITIONS];
	uint32_t k = drain(src, got, at), n = 0;

	for (uint32_t p = 0; p < PARTITIONS; p++)
		last[p] = INT64_MIN;
	/* One subtask owns every partition: its records are the stream's
	 * bids in event order. */
	for (uint64_t e = 0; e < EVENTS; e++) {
		struct wm_record want;

		if (wm_nexmark_gen_kind(&c.gen, e) != WM_NEXMARK_BID)
			continue;
		want = expected(&c, e);
		ck_assert_uint_lt(n, k);
		ck_assert_uint_eq(got[n].partition, e % PARTITIONS);
		ck_assert_int_eq(got[n].ts, want.ts);
		ck_assert_int_eq(got[n].key, want.key);
		ck_assert_int_eq(got[n].value, 1);
		ck_assert_int_ge(got[n].ts, last[got[n].partition]);
		last[got[n].partition] = got[n].ts;
		n++;
	}
	ck_assert_uint_eq(n, k);
	src->ops->free(src);
}
END_TEST

START_TEST(test_persons_and_auctions_by_their_fields)
{
	struct wm_nexmark_source_conf p = conf(WM_NEXMARK_PERSON, "id", "1");
	struct wm_nexmark_source_conf a =
		conf(WM_NEXMARK_AUCTION, "seller", "category");
	struct wm_record_source *ps = subtask_source(&p, 0, 1);
	struct wm_record_source *as = subtask_source(&a, 0, 1);
	static struct wm_record got[EVENTS];
	static int64_t at[EVENTS];
	uint32_t k = drain(ps, got, at);

	/* One person in every 50 events, ids from 1000 in turn. */
	ck_assert_uint_eq(k, EVENTS / 50);
	for (uint32_t i = 0; i < k; i++)
		ck_assert_int_eq(got[i].key, 1000 + i);
	k = drain(as, got, at);
	ck_assert_uint_eq(k, EVENTS / 50 * 3);
	for (uint32_t i = 0, n = 0; i < k; i++) {
		while (wm_nexmark_gen_kind(&a.gen, n) != WM_NEXMARK_AUCTION)
			n++;
		ck_assert_int_eq(got[i].key, expected(&a, n).key);
		ck_assert_int_ge(got[i].value, 10);
		ck_assert_int_le(got[i].value, 14);
		n++;
	}
	ps->ops->free(ps);
	as->ops->free(as);
}
END_TEST

START_TEST(test_fields_are_refused_where_a_kind_has_none)
{
	enum wm_nexmark_field f;

	ck_assert_int_eq(wm_nexmark_field_parse("price", WM_NEXMARK_PERSON, &f),
			 -1);
	ck_assert_int_eq(wm_nexmark_field_parse("id", WM_NEXMARK_BID, &f), -1);
	ck_assert_int_eq(wm_nexmark_field_parse("Price", WM_NEXMARK_BID, &f),
			 -1);
	ck_assert_int_eq(
		wm_nexmark_field_parse("initialBid", WM_NEXMARK_AUCTION, &f),
		0);
	ck_assert_str_eq(wm_nexmark_field_name(f), "initialBid");
	ck_assert_int_eq(wm_nexmark_field_parse("dateTime", WM_NEXMARK_BID, &f),
			 0);
	{
		char list[128];

		ck_assert_uint_eq(wm_nexmark_fields_of(WM_NEXMARK_BID, list,
						       sizeof(list)),
				  strlen(list));
		ck_assert_str_eq(list, "1, auction, bidder, price, dateTime");
		ck_assert_uint_eq(wm_nexmark_fields_of(WM_NEXMARK_PERSON, list,
						       sizeof(list)),
				  strlen(list));
		ck_assert_str_eq(list, "1, id, dateTime");
	}
}
END_TEST

START_TEST(test_the_stream_ends_with_its_last_event)
{
	/* The last event of 5000 is a bid (id 4999, offset 49): the
	 * partitions end at its time, not before, also for persons, whose
	 * last record comes earlier. */
	struct wm_nexmark_source_conf c = conf(WM_NEXMARK_PERSON, "id", "1");
	struct wm_record_source *src = subtask_source(&c, 0, 1);
	int64_t end = due_of(&c, EVENTS - 1);
	struct wm_record r;

	while (src->ops->next(src, end - 1, &r) == 1)
		;
	ck_assert(!src->ops->finished(src));
	ck_assert_int_eq(src->ops->next_due_ns(src), end);
	ck_assert_uint_eq(src->ops->n_finished(src), 0);
	ck_assert_int_eq(src->ops->next(src, end, &r), 0);
	ck_assert(src->ops->finished(src));
	ck_assert_uint_eq(src->ops->n_finished(src), PARTITIONS);
	src->ops->free(src);
}
END_TEST

/* A job bounded later in processing time keeps the partitions open past
 * the last event until its end, and no record comes meanwhile; an
 * earlier bound changes nothing. */
START_TEST(test_the_partitions_stay_open_until_a_later_end)
{
	struct wm_nexmark_source_conf c = conf(WM_NEXMARK_BID, "bidder", "1");
	int64_t last = due_of(&c, EVENTS - 1);
	struct wm_record_source *src;
	struct wm_record r;

	c.end_ms = last / 1000000 + 9000;
	src = subtask_source(&c, 0, 1);
	while (src->ops->next(src, last, &r) == 1)
		;
	ck_assert(!src->ops->finished(src));
	ck_assert_int_eq(src->ops->next_due_ns(src), c.end_ms * 1000000);
	ck_assert_int_eq(src->ops->next(src, c.end_ms * 1000000 - 1, &r), 0);
	ck_assert(!src->ops->finished(src));
	ck_assert_int_eq(src->ops->next(src, c.end_ms * 1000000, &r), 0);
	ck_assert(src->ops->finished(src));
	src->ops->free(src);

	c.end_ms = last / 1000000 - 1;
	src = subtask_source(&c, 0, 1);
	while (src->ops->next(src, last, &r) == 1)
		;
	ck_assert(src->ops->finished(src));
	src->ops->free(src);
}
END_TEST

START_TEST(test_a_checkpoint_resumes_with_the_records_after_it)
{
	struct wm_nexmark_source_conf c =
		conf(WM_NEXMARK_BID, "auction", "price");
	static struct wm_record all[EVENTS], rest[EVENTS];
	static int64_t at[EVENTS];
	struct wm_record_source *whole = subtask_source(&c, 1, 2);
	uint32_t k = drain(whole, all, at);

	for (uint32_t cut = 0; cut <= k; cut += k / 7) {
		struct wm_record_source *src = subtask_source(&c, 1, 2);
		struct wm_record_source *again = subtask_source(&c, 1, 2);
		struct wm_snap_writer w;
		struct wm_snap_reader r;
		struct wm_record x;
		uint32_t n;

		for (uint32_t i = 0; i < cut; i++)
			ck_assert_int_eq(src->ops->next(src, INT64_MAX - 2, &x),
					 1);
		wm_snap_writer_init(&w);
		src->ops->snapshot(src, &w);
		ck_assert_int_eq(wm_snap_writer_error(&w), 0);
		wm_snap_reader_init(&r, w.buf, w.len);
		ck_assert_int_eq(again->ops->restore(again, &r), 0);
		n = drain(again, rest, at);
		ck_assert_uint_eq(cut + n, k);
		ck_assert(memcmp(rest, all + cut, n * sizeof(rest[0])) == 0);
		/* Another split of the stream is refused. */
		{
			struct wm_record_source *other =
				subtask_source(&c, 0, 2);

			wm_snap_reader_init(&r, w.buf, w.len);
			ck_assert_int_eq(other->ops->restore(other, &r),
					 -EINVAL);
			other->ops->free(other);
		}
		wm_snap_writer_release(&w);
		src->ops->free(src);
		again->ops->free(again);
	}
	whole->ops->free(whole);
}
END_TEST

START_TEST(test_a_run_is_what_single_calls_give)
{
	struct wm_nexmark_source_conf c =
		conf(WM_NEXMARK_BID, "auction", "price");
	struct wm_record_source *one = subtask_source(&c, 0, 2);
	struct wm_record_source *run = subtask_source(&c, 0, 2);
	struct wm_record a[64], b[64];
	int64_t due[64];

	for (int64_t now = 0; !one->ops->finished(one); now += 7000000) {
		uint32_t k = run->ops->next_run(run, now, b, due, 64), n = 0;

		while (n < 64) {
			int64_t d = one->ops->next_due_ns(one);

			if (one->ops->next(one, now, &a[n]) == 0)
				break;
			ck_assert_int_eq(due[n], d);
			n++;
		}
		ck_assert_uint_eq(k, n);
		ck_assert(memcmp(a, b, n * sizeof(a[0])) == 0);
		ck_assert(one->ops->finished(one) == run->ops->finished(run) ||
			  n == 64);
	}
	one->ops->free(one);
	run->ops->free(run);
}
END_TEST

static Suite *
nexmark_source_suite(void)
{
	Suite *s = suite_create("nexmark_source");
	TCase *records = tcase_create("records");
	TCase *lifecycle = tcase_create("lifecycle");

	tcase_add_test(records,
		       test_subtasks_emit_the_streams_bids_once_each_when_due);
	tcase_add_test(records,
		       test_each_partition_ascends_and_holds_its_numbers);
	tcase_add_test(records, test_persons_and_auctions_by_their_fields);
	tcase_add_test(records, test_fields_are_refused_where_a_kind_has_none);
	tcase_add_test(lifecycle, test_the_stream_ends_with_its_last_event);
	tcase_add_test(lifecycle,
		       test_the_partitions_stay_open_until_a_later_end);
	tcase_add_test(lifecycle,
		       test_a_checkpoint_resumes_with_the_records_after_it);
	tcase_add_test(lifecycle, test_a_run_is_what_single_calls_give);
	suite_add_tcase(s, records);
	suite_add_tcase(s, lifecycle);
	return s;
}

int
main(void)
{
	return wm_check_main(nexmark_source_suite());
}
