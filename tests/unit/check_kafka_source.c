/*
 * check_kafka_source.c
 *	The Kafka record source against librdkafka's mock cluster, in this
 *	process: it delivers exactly the records produced, each partition in
 *	order with its timestamp, key and value; its subtasks own the
 *	partitions as Flink's enumerator assigns them; it starts and stops
 *	where it is told; pausing, a snapshot and restore, bad records, and
 *	brokers that fail, go away, move leaders or answer slowly lose
 *	nothing and repeat nothing.
 *
 * Waiting: every wait polls with a deadline (DEADLINE_S), never a sleep
 * that assumes the machine is fast.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include "base/countof.h"
#include "lib/snap.h"
#include "runtime/source/kafka_client.h"
#include "runtime/source/kafka_source.h"
#include "runtime/io/keys.h"
#include "tests/unit/check_main.h"

/* The longest any wait here takes before the test fails. */
#define DEADLINE_S 60

#define TOPIC "events"

/*
 * The row a table-driven test plays, as `scenario "NAME": `, leading the
 * failure messages of the helpers below ("" in the other tests).
 */
static char in_row[160];

static void
play_row(const char *name)
{
	snprintf(in_row, sizeof(in_row), "scenario \"%s\": ", name);
}

struct cluster {
	rd_kafka_t *producer; /* owns the mock cluster */
	rd_kafka_mock_cluster_t *mc;
	const char *bootstraps;
};

static void
cluster_up(struct cluster *c, int brokers)
{
	char err[256], n[8];
	rd_kafka_conf_t *conf = rd_kafka_conf_new();

	snprintf(n, sizeof(n), "%d", brokers);
	ck_assert_int_eq(rd_kafka_conf_set(conf, "test.mock.num.brokers", n,
					   err, sizeof(err)),
			 RD_KAFKA_CONF_OK);
	ck_assert_int_eq(
		rd_kafka_conf_set(conf, "log_level", "3", err, sizeof(err)),
		RD_KAFKA_CONF_OK);
	c->producer = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
	ck_assert_msg(c->producer != NULL, "%s", err);
	c->mc = rd_kafka_handle_mock_cluster(c->producer);
	ck_assert_ptr_nonnull(c->mc);
	c->bootstraps = rd_kafka_mock_cluster_bootstraps(c->mc);
}

static void
cluster_down(struct cluster *c)
{
	rd_kafka_destroy(c->producer);
}

static void
topic(struct cluster *c, const char *name, int partitions, int replicas)
{
	ck_assert_int_eq(
		rd_kafka_mock_topic_create(c->mc, name, partitions, replicas),
		0);
}

/* Record k of partition p: key k % 5, value p * 1000 + k, timestamp
 * 1000 + 10 k (each partition's own, so that a record says where it
 * came from and where in its partition). */
static int64_t
value_of(int p, int k)
{
	return (int64_t)p * 1000 + k;
}

static void
produce_raw(struct cluster *c, const char *t, int p, const char *key,
	    const char *value, int64_t ts)
{
	ck_assert_int_eq(
		rd_kafka_producev(c->producer, RD_KAFKA_V_TOPIC(t),
				  RD_KAFKA_V_PARTITION(p),
				  RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
				  RD_KAFKA_V_KEY(key, key ? strlen(key) : 0),
				  RD_KAFKA_V_VALUE((void *)value,
						   value ? strlen(value) : 0),
				  RD_KAFKA_V_TIMESTAMP(ts), RD_KAFKA_V_END),
		0);
}

/* Records first..first+n-1 of partition p, flushed. */
static void
produce(struct cluster *c, int p, int first, int n)
{
	for (int k = first; k < first + n; k++) {
		char key[24], value[24];

		snprintf(key, sizeof(key), "%d", k % 5);
		snprintf(value, sizeof(value), "%" PRId64, value_of(p, k));
		produce_raw(c, TOPIC, p, key, value, 1000 + 10 * (int64_t)k);
	}
	ck_assert_int_eq(rd_kafka_flush(c->producer, DEADLINE_S * 1000), 0);
}

/* A source stage reading TOPIC, its values numbers. */
struct stage {
	struct wm_stage st;
	struct wm_kafka_conf kc;
};

static void
stage_init(struct stage *s, const struct cluster *c, uint32_t parallelism,
	   uint32_t room)
{
	memset(s, 0, sizeof(*s));
	s->st.kind = WM_STAGE_SOURCE;
	s->st.name = (char *)"src";
	s->st.parallelism = parallelism;
	s->st.u.source.partitions = room;
	s->st.u.source.key_type = WM_KEY_TYPE_LONG;
	s->st.u.source.kind = WM_SOURCE_KAFKA;
	s->st.u.source.kafka = &s->kc;
	s->kc.bootstrap_servers = (char *)c->bootstraps;
	s->kc.topic = (char *)TOPIC;
	s->kc.starting.position = WM_KAFKA_EARLIEST;
	s->kc.stopping.position = WM_KAFKA_UNBOUNDED;
	s->kc.value_format = WM_KAFKA_VALUE_NUMBER;
	s->kc.broker_timeout_ms = 30000;
}

static struct wm_record_source *
open_source(struct stage *s, uint32_t index)
{
	char err[256];
	int code = 0;
	struct wm_record_source *src = wm_kafka_source_open(
		&s->st, index, NULL, &code, err, sizeof(err));

	ck_assert_msg(src != NULL, "%sopen: %d %s", in_row, code, err);
	return src;
}

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* What a source delivered, in order. */
struct got {
	struct wm_record rec[4096];
	size_t n;
};

/*
 * Read until `want` records came, or until done(src) says so, polling:
 * next() never blocks, and between empty polls the test waits a
 * millisecond. Fails at the deadline.
 */
static void
read_until(struct wm_record_source *src, struct got *g, size_t want,
	   bool (*done)(struct wm_record_source *))
{
	int64_t end = now_ns() + (int64_t)DEADLINE_S * 1000000000;

	while (g->n < want && (done == NULL || !done(src))) {
		struct wm_record r;

		ck_assert_msg(now_ns() < end,
			      "%sonly %zu of %zu records within %d s", in_row,
			      g->n, want, DEADLINE_S);
		if (wm_record_source_next(src, now_ns(), &r) == 1) {
			ck_assert_uint_lt(g->n,
					  sizeof(g->rec) / sizeof(g->rec[0]));
			g->rec[g->n++] = r;
		} else {
			usleep(1000);
		}
	}
}

/* Nothing more within a short while (a bounded look: what must not come
 * would have come with the rest). */
static void
nothing_more(struct wm_record_source *src, int ms)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;
	struct wm_record r;

	while (now_ns() < end) {
		ck_assert_msg(wm_record_source_next(src, now_ns(), &r) == 0,
			      "%sunexpected record p%u value %" PRId64, in_row,
			      r.partition, r.value);
		usleep(1000);
	}
}

/*
 * g holds exactly records first[p]..end[p]-1 of each partition p of
 * `parts` (and nothing else), each partition in order, with the
 * timestamp, key and value they were produced with.
 */
static void
check_exactly(const struct got *g, int parts, const int *first, const int *end)
{
	int next[64];
	size_t total = 0;

	for (int p = 0; p < parts; p++) {
		next[p] = first[p];
		total += (size_t)(end[p] - first[p]);
	}
	for (size_t i = 0; i < g->n; i++) {
		const struct wm_record *r = &g->rec[i];
		int p = (int)r->partition, k;

		ck_assert_msg(p < parts, "%srecord of partition %d", in_row, p);
		k = next[p]++;
		ck_assert_msg(k < end[p], "%sp%d: one record too many", in_row,
			      p);
		ck_assert_msg(r->value == value_of(p, k) &&
				      r->ts == 1000 + 10 * (int64_t)k &&
				      r->key == k % 5 && r->flags == 0,
			      "%sp%d record %d: value %" PRId64 " ts %" PRId64
			      " key %" PRId64 " flags %u",
			      in_row, p, k, r->value, r->ts, r->key,
			      (unsigned)r->flags);
	}
	for (int p = 0; p < parts; p++)
		ck_assert_msg(next[p] == end[p], "%sp%d: read up to %d, not %d",
			      in_row, p, next[p], end[p]);
	ck_assert_msg(g->n == total, "%s%zu records, not %zu", in_row, g->n,
		      total);
}

static bool
is_finished(struct wm_record_source *src)
{
	return wm_record_source_finished(src);
}

/* ---- delivery ---- */

START_TEST(test_delivers_every_record_in_partition_order)
{
	static struct got g;
	struct cluster c;
	struct stage s;
	struct wm_record_source *src;
	const int first[3] = {0, 0, 0}, end[3] = {40, 25, 0};
	struct wm_source_partition_stats ps;

	g.n = 0;
	cluster_up(&c, 1);
	topic(&c, TOPIC, 3, 1);
	produce(&c, 0, 0, 40);
	produce(&c, 1, 0, 25);
	stage_init(&s, &c, 1, 3);
	src = open_source(&s, 0);
	ck_assert_uint_eq(src->ops->n_partitions(src), 3);
	read_until(src, &g, 1, NULL);
	/* The rest of the fetch is queued: due now, the wake will not say
	 * it again. */
	ck_assert_int_le(wm_record_source_next_due_ns(src), now_ns());
	read_until(src, &g, 65, NULL);
	nothing_more(src, 200);
	check_exactly(&g, 3, first, end);
	src->ops->partition_stats(src, 0, 0, &ps);
	ck_assert_uint_eq(ps.partition, 0);
	ck_assert_uint_eq(ps.emitted, 40);
	ck_assert(!wm_record_source_finished(src)); /* unbounded */
	/* Nothing queued: the driver sleeps until librdkafka wakes it, or
	 * until the brokers' silence is looked at, half a broker timeout
	 * (30 s) after the last record. */
	ck_assert_int_gt(wm_record_source_next_due_ns(src), now_ns());
	ck_assert_int_le(wm_record_source_next_due_ns(src),
			 now_ns() + 15 * (int64_t)1000000000);
	wm_record_source_free(src);
	cluster_down(&c);
}
END_TEST

static atomic_int wakes;

static void
count_wake(void *arg)
{
	(void)arg;
	atomic_fetch_add(&wakes, 1);
}

/* The wake function is called when records arrive, from librdkafka's
 * thread: the driver needs nothing else to learn of them. */
START_TEST(test_arriving_records_wake_the_driver)
{
	static struct got g;
	struct cluster c;
	struct stage s;
	struct wm_record_source *src;
	int64_t end = now_ns() + (int64_t)DEADLINE_S * 1000000000;
	int before;

	g.n = 0;
	cluster_up(&c, 1);
	topic(&c, TOPIC, 1, 1);
	stage_init(&s, &c, 1, 1);
	src = open_source(&s, 0);
	ck_assert_ptr_nonnull(src->ops->set_wake);
	src->ops->set_wake(src, count_wake, NULL);
	nothing_more(src, 300); /* assigned; nothing to read */
	before = atomic_load(&wakes);
	produce(&c, 0, 0, 3);
	while (atomic_load(&wakes) == before)
		ck_assert_msg(now_ns() < end, "never woken");
	read_until(src, &g, 3, NULL);
	ck_assert_uint_eq(g.n, 3);
	wm_record_source_free(src);
	cluster_down(&c);
}
END_TEST

/* Flink's split assignment: every partition read by exactly the subtask
 * wm_source_gen_split_owner() names, for parallelism 1 to 4. */
START_TEST(test_subtasks_own_partitions_as_flink_assigns_them)
{
	struct cluster c;
	struct stage s;

	cluster_up(&c, 1);
	topic(&c, TOPIC, 7, 1);
	for (uint32_t par = 1; par <= 4; par++) {
		int owners[7] = {0};

		stage_init(&s, &c, par, 8);
		for (uint32_t sub = 0; sub < par; sub++) {
			struct wm_record_source *src = open_source(&s, sub);
			uint32_t mine[8];
			size_t n = wm_source_gen_partitions_of(sub, par, 7,
							       TOPIC, mine, 8);

			ck_assert_uint_eq(src->ops->n_partitions(src), n);
			for (uint32_t i = 0; i < n; i++) {
				struct wm_source_partition_stats ps;

				src->ops->partition_stats(src, i, 0, &ps);
				ck_assert_uint_eq(ps.partition, mine[i]);
				ck_assert_uint_eq(
					wm_source_gen_split_owner(
						TOPIC, ps.partition, par),
					sub);
				owners[ps.partition]++;
			}
			wm_record_source_free(src);
		}
		for (int p = 0; p < 7; p++)
			ck_assert_int_eq(owners[p], 1);
	}
	cluster_down(&c);
}
END_TEST

/* ---- where reading starts and stops ---- */

/*
 * Where a source starts and stops: the records in each partition before
 * the open and after it (before the first read), the starting and stopping
 * offsets, how many records to read (SIZE_MAX: until the source finishes)
 * and exactly which must have come. A new case is a row.
 */
struct position_row {
	const char *name;
	int partitions;
	int before[3];
	struct wm_kafka_offsets starting, stopping;
	int after[3];
	size_t want;
	int first[3], end[3];
};

static const struct position_row position_rows[] = {
	/* Produced after the open, before the first read: read. */
	{
		.name = "latest_starts_at_the_end_at_open",
		.partitions = 2,
		.before = {10, 4},
		.starting = {.position = WM_KAFKA_LATEST},
		.stopping = {.position = WM_KAFKA_UNBOUNDED},
		.after = {3, 2},
		.want = 5,
		.first = {10, 4},
		.end = {13, 6},
	},
	/* Offsets as given; partitions not listed, and one whose offset is
	 * not in the log (partition 2's 100 is past its end), from their
	 * first offset. */
	{
		.name = "explicit_offsets_and_earliest_for_the_rest",
		.partitions = 3,
		.before = {5, 10, 4},
		.starting = {.position = WM_KAFKA_OFFSETS,
			     .n = 2,
			     .partitions = (uint32_t[]){1, 2},
			     .offsets = (int64_t[]){7, 100}},
		.stopping = {.position = WM_KAFKA_UNBOUNDED},
		.want = 12,
		.first = {0, 7, 0},
		.end = {5, 10, 4},
	},
	{
		.name = "explicit_stopping_offsets",
		.partitions = 2,
		.before = {9, 9},
		.starting = {.position = WM_KAFKA_EARLIEST},
		.stopping = {.position = WM_KAFKA_OFFSETS,
			     .n = 2,
			     .partitions = (uint32_t[]){0, 1},
			     .offsets = (int64_t[]){4, 0}},
		.want = SIZE_MAX,
		.first = {0, 0},
		.end = {4, 0},
	},
};

START_TEST(test_reads_from_and_to_the_positions_given)
{
	const struct position_row *row = &position_rows[_i];
	static struct got g;
	struct cluster c;
	struct stage s;
	struct wm_record_source *src;

	play_row(row->name);
	g.n = 0;
	cluster_up(&c, 1);
	topic(&c, TOPIC, row->partitions, 1);
	for (int p = 0; p < row->partitions; p++)
		if (row->before[p] > 0)
			produce(&c, p, 0, row->before[p]);
	stage_init(&s, &c, 1, (uint32_t)row->partitions);
	s.kc.starting = row->starting;
	s.kc.stopping = row->stopping;
	src = open_source(&s, 0);
	for (int p = 0; p < row->partitions; p++)
		if (row->after[p] > 0)
			produce(&c, p, row->before[p], row->after[p]);
	read_until(src, &g, row->want,
		   row->want == SIZE_MAX ? is_finished : NULL);
	nothing_more(src, 200);
	check_exactly(&g, row->partitions, row->first, row->end);
	wm_record_source_free(src);
	cluster_down(&c);
}
END_TEST

/* Bounded by the end at open: what came later is not read, every
 * partition finishes (the empty one at once), and so does the source. */
START_TEST(test_bounded_source_stops_at_the_end_it_found)
{
	static struct got g;
	struct cluster c;
	struct stage s;
	struct wm_record_source *src;
	const int first[3] = {0, 0, 0}, end[3] = {6, 3, 0};

	g.n = 0;
	cluster_up(&c, 1);
	topic(&c, TOPIC, 3, 1);
	produce(&c, 0, 0, 6);
	produce(&c, 1, 0, 3);
	stage_init(&s, &c, 1, 3);
	s.kc.stopping.position = WM_KAFKA_LATEST;
	src = open_source(&s, 0);
	/* Partition 2 is empty: finished before anything is read. */
	ck_assert_uint_eq(src->ops->n_finished(src), 1);
	ck_assert_uint_eq(src->ops->finished_partition(src, 0), 2);
	produce(&c, 0, 6, 4);
	read_until(src, &g, SIZE_MAX, is_finished);
	check_exactly(&g, 3, first, end);
	ck_assert_uint_eq(src->ops->n_finished(src), 3);
	nothing_more(src, 200);
	wm_record_source_free(src);
	cluster_down(&c);
}
END_TEST

/* With a group.id a snapshot commits the positions; a source starting
 * at the committed offsets begins there, one of a group that committed
 * nothing at the first offsets. */
START_TEST(test_committed_offsets_after_a_snapshot)
{
	static struct got g, h;
	struct cluster c;
	struct stage s;
	struct wm_record_source *src;
	struct wm_snap_writer w;
	int first[2] = {0, 0}, end[2] = {10, 6};

	g.n = h.n = 0;
	cluster_up(&c, 1);
	topic(&c, TOPIC, 2, 1);
	produce(&c, 0, 0, 10);
	stage_init(&s, &c, 1, 2);
	s.kc.group_id = (char *)"readers";
	src = open_source(&s, 0);
	read_until(src, &g, 4, NULL);
	wm_snap_writer_init(&w);
	wm_record_source_snapshot(src, &w);
	wm_snap_writer_release(&w);
	/* Closing the consumer waits for the commit under way. */
	wm_record_source_free(src);
	produce(&c, 1, 0, 6);
	s.kc.starting.position = WM_KAFKA_COMMITTED;
	src = open_source(&s, 0);
	read_until(src, &h, 12, NULL);
	nothing_more(src, 200);
	first[0] = 4;
	check_exactly(&h, 2, first, end);
	wm_record_source_free(src);
	/* A group that committed nothing: the first offsets. */
	h.n = 0;
	s.kc.group_id = (char *)"newcomers";
	src = open_source(&s, 0);
	read_until(src, &h, 16, NULL);
	first[0] = 0;
	check_exactly(&h, 2, first, end);
	wm_record_source_free(src);
	cluster_down(&c);
}
END_TEST

/* ---- pause, snapshot, restore ---- */

START_TEST(test_paused_partition_keeps_every_record)
{
	static struct got g;
	struct cluster c;
	struct stage s;
	struct wm_record_source *src;
	const int first[2] = {0, 0}, end[2] = {300, 300};
	size_t p0 = 0;

	g.n = 0;
	cluster_up(&c, 1);
	topic(&c, TOPIC, 2, 1);
	produce(&c, 0, 0, 300);
	produce(&c, 1, 0, 300);
	stage_init(&s, &c, 1, 2);
	src = open_source(&s, 0);
	read_until(src, &g, 20, NULL);
	/* Paused with records of it fetched and queued. */
	src->ops->pause(src, 0, true, now_ns());
	for (size_t i = 0; i < g.n; i++)
		p0 += g.rec[i].partition == 0;
	read_until(src, &g, 20 + (300 - (g.n - p0)), NULL);
	for (size_t i = 20; i < g.n; i++)
		ck_assert_uint_eq(g.rec[i].partition, 1);
	nothing_more(src, 200);
	src->ops->pause(src, 0, false, now_ns());
	read_until(src, &g, 600, NULL);
	nothing_more(src, 200);
	check_exactly(&g, 2, first, end);
	wm_record_source_free(src);
	cluster_down(&c);
}
END_TEST

static struct wm_kafka_property small_batches[] = {
	{(char *)"fetch.message.max.bytes", (char *)"1024", 0, 0},
};

/*
 * Paused and resumed around a single read, all along, while the source
 * holds fetched records of both partitions, interleaved (small batches,
 * small fetches, all fetched before the reading ends): each pause finds
 * records of the paused partition taken from librdkafka's queue and not
 * read yet, some after those of the other one. None lost, none twice.
 */
START_TEST(test_pause_between_reads_keeps_every_record)
{
	static struct got g;
	struct cluster c;
	struct stage s;
	struct wm_record_source *src;
	const int first[2] = {0, 0}, end[2] = {300, 300};
	int64_t deadline = now_ns() + (int64_t)DEADLINE_S * 1000000000;

	g.n = 0;
	cluster_up(&c, 1);
	topic(&c, TOPIC, 2, 1);
	for (int k = 0; k < 300; k += 10) {
		produce(&c, 0, k, 10);
		produce(&c, 1, k, 10);
	}
	stage_init(&s, &c, 1, 2);
	s.kc.n_properties = 1;
	s.kc.properties = small_batches;
	src = open_source(&s, 0);
	while (g.n < 600) {
		struct wm_record r;

		ck_assert_msg(now_ns() < deadline,
			      "only %zu of 600 records within %d s", g.n,
			      DEADLINE_S);
		/* A pause costs a fetch after it: one every 40 records. */
		read_until(src, &g, g.n + 40 < 600 ? g.n + 40 : 600, NULL);
		src->ops->pause(src, 0, true, now_ns());
		if (wm_record_source_next(src, now_ns(), &r) == 1) {
			ck_assert_uint_eq(r.partition, 1);
			ck_assert_uint_lt(g.n,
					  sizeof(g.rec) / sizeof(g.rec[0]));
			g.rec[g.n++] = r;
		}
		src->ops->pause(src, 0, false, now_ns());
	}
	nothing_more(src, 200);
	check_exactly(&g, 2, first, end);
	wm_record_source_free(src);
	cluster_down(&c);
}
END_TEST

START_TEST(test_restore_continues_with_exactly_the_rest)
{
	static struct got g, h;
	struct cluster c;
	struct stage s;
	struct wm_record_source *src;
	struct wm_snap_writer w;
	struct wm_snap_reader r;
	int first[3] = {0, 0, 0}, end[3] = {50, 50, 50};

	g.n = h.n = 0;
	cluster_up(&c, 1);
	topic(&c, TOPIC, 3, 1);
	for (int p = 0; p < 3; p++)
		produce(&c, p, 0, 50);
	stage_init(&s, &c, 1, 3);
	src = open_source(&s, 0);
	read_until(src, &g, 70, NULL);
	wm_snap_writer_init(&w);
	wm_record_source_snapshot(src, &w);
	ck_assert_int_eq(wm_snap_writer_error(&w), 0);
	wm_record_source_free(src);
	/* Where each partition stood: the rest starts there. */
	for (int p = 0; p < 3; p++)
		end[p] = 0;
	for (size_t i = 0; i < g.n; i++)
		end[g.rec[i].partition]++;
	check_exactly(&g, 3, first, end);
	for (int p = 0; p < 3; p++) {
		first[p] = end[p];
		end[p] = 60;
		produce(&c, p, 50, 10);
	}
	src = open_source(&s, 0);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_record_source_restore(src, &r), 0);
	read_until(src, &h, 180 - 70, NULL);
	nothing_more(src, 200);
	check_exactly(&h, 3, first, end);
	wm_snap_writer_release(&w);
	wm_record_source_free(src);
	cluster_down(&c);
}
END_TEST

/* A checkpoint naming partitions the source did not find at its start
 * (discovered before the checkpoint: here, a second cluster whose topic
 * has more): they join after the others, whose records continue. */
START_TEST(test_restore_brings_partitions_discovered_before)
{
	static struct got g, h;
	struct cluster small, big;
	struct stage s;
	struct wm_record_source *src;
	struct wm_snap_writer w;
	struct wm_snap_reader r;
	struct wm_source_partition_stats ps;
	const int first[2] = {2, 2}, end[2] = {5, 5};

	g.n = h.n = 0;
	cluster_up(&big, 1);
	topic(&big, TOPIC, 4, 1);
	for (int p = 0; p < 4; p++)
		produce(&big, p, 0, 2);
	stage_init(&s, &big, 1, 4);
	src = open_source(&s, 0);
	read_until(src, &g, 8, NULL);
	wm_snap_writer_init(&w);
	wm_record_source_snapshot(src, &w);
	wm_record_source_free(src);
	cluster_up(&small, 1);
	topic(&small, TOPIC, 2, 1);
	for (int p = 0; p < 2; p++)
		produce(&small, p, 0, 5);
	stage_init(&s, &small, 1, 4);
	src = open_source(&s, 0);
	ck_assert_uint_eq(src->ops->n_partitions(src), 2);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_record_source_restore(src, &r), 0);
	ck_assert_uint_eq(src->ops->n_partitions(src), 4);
	for (uint32_t i = 0; i < 4; i++) {
		src->ops->partition_stats(src, i, 0, &ps);
		ck_assert_uint_eq(ps.partition, i);
	}
	read_until(src, &h, 6, NULL);
	nothing_more(src, 200);
	check_exactly(&h, 2, first, end);
	wm_snap_writer_release(&w);
	wm_record_source_free(src);
	cluster_down(&small);
	cluster_down(&big);
}
END_TEST

/* ---- bad records ---- */

START_TEST(test_bad_record_stops_the_source_naming_where)
{
	static struct got g;
	struct cluster c;
	struct stage s;
	struct wm_record_source *src;
	struct wm_source_health h;
	int64_t end = now_ns() + (int64_t)DEADLINE_S * 1000000000;

	g.n = 0;
	cluster_up(&c, 1);
	topic(&c, TOPIC, 1, 1);
	produce(&c, 0, 0, 2);
	produce_raw(&c, TOPIC, 0, "1", "12x", 5000);
	produce(&c, 0, 3, 2);
	stage_init(&s, &c, 1, 1);
	src = open_source(&s, 0);
	read_until(src, &g, 2, NULL);
	do {
		struct wm_record rec;

		ck_assert_msg(now_ns() < end, "the bad record never came");
		ck_assert_int_eq(wm_record_source_next(src, now_ns(), &rec), 0);
		src->ops->health(src, &h);
		usleep(1000);
	} while (h.exit_code == 0);
	ck_assert_int_eq(h.exit_code, EX_DATAERR);
	ck_assert_str_eq(h.why, "kafka: topic \"events\" partition 0 offset "
				"2: invalid value \"12x\"");
	wm_record_source_free(src);
	cluster_down(&c);
}
END_TEST

START_TEST(test_bad_records_skipped_and_counted)
{
	static struct got g;
	struct cluster c;
	struct stage s;
	struct wm_record_source *src;
	struct wm_source_health h;
	struct wm_source_partition_stats ps;
	const int first[1] = {0}, end[1] = {6};

	g.n = 0;
	cluster_up(&c, 1);
	topic(&c, TOPIC, 1, 1);
	produce(&c, 0, 0, 3);
	produce_raw(&c, TOPIC, 0, "1", "", 5000);
	produce_raw(&c, TOPIC, 0, NULL, "7", 5000); /* no key */
	produce(&c, 0, 3, 3);
	stage_init(&s, &c, 1, 1);
	s.st.u.source.skip_bad_records = true;
	src = open_source(&s, 0);
	read_until(src, &g, 6, NULL);
	nothing_more(src, 200);
	check_exactly(&g, 1, first, end);
	src->ops->partition_stats(src, 0, 0, &ps);
	ck_assert_uint_eq(ps.skipped, 2);
	src->ops->health(src, &h);
	ck_assert_int_eq(h.exit_code, 0);
	wm_record_source_free(src);
	cluster_down(&c);
}
END_TEST

/* CSV and JSON values through the replay's field parser: timestamp, key
 * (a string, interned) and value from the value; the Kafka key and
 * timestamp ignored. */
START_TEST(test_csv_and_json_values)
{
	static struct got g;
	struct cluster c;
	struct stage s;
	struct wm_record_source *src;
	struct wm_keys *keys = wm_keys_new();
	char err[256];
	int code;
	int64_t user7;
	size_t at;
	const enum wm_kafka_field csv[] = {
		WM_KAFKA_FIELD_SKIP, WM_KAFKA_FIELD_KEY,
		WM_KAFKA_FIELD_TIMESTAMP, WM_KAFKA_FIELD_VALUE};

	g.n = 0;
	cluster_up(&c, 1);
	topic(&c, TOPIC, 1, 1);
	topic(&c, "json", 1, 1);
	produce_raw(&c, TOPIC, 0, NULL, "x,user7,1500,42\n", 1);
	produce_raw(&c, TOPIC, 0, NULL, "x,\"us,er\",1600,43", 1);
	produce_raw(&c, "json", 0, NULL,
		    "{\"value\": 5, \"other\": \"a}\", \"key\": \"user7\", "
		    "\"timestamp\": 2500}",
		    1);
	ck_assert_int_eq(rd_kafka_flush(c.producer, DEADLINE_S * 1000), 0);
	stage_init(&s, &c, 1, 1);
	s.st.u.source.key_type = WM_KEY_TYPE_STRING;
	s.kc.value_format = WM_KAFKA_VALUE_CSV;
	s.kc.n_fields = 4;
	memcpy(s.kc.fields, csv, sizeof(csv));
	s.kc.timestamp_from_value = s.kc.key_from_value = true;
	src = wm_kafka_source_open(&s.st, 0, keys, &code, err, sizeof(err));
	ck_assert_msg(src != NULL, "%s", err);
	read_until(src, &g, 2, NULL);
	wm_record_source_free(src);
	ck_assert_int_eq(wm_keys_intern(keys, "user7", 5, &user7, &at), 0);
	ck_assert_int_eq(g.rec[0].ts, 1500);
	ck_assert_int_eq(g.rec[0].key, user7);
	ck_assert_uint_eq(g.rec[0].flags, 1u << 1); /* a string key */
	ck_assert_int_eq(g.rec[0].value, 42);
	ck_assert_int_eq(g.rec[1].ts, 1600);
	ck_assert_int_ne(g.rec[1].key, user7);
	ck_assert_int_eq(g.rec[1].value, 43);
	s.kc.topic = (char *)"json";
	s.kc.value_format = WM_KAFKA_VALUE_JSON;
	s.kc.n_fields = 3;
	s.kc.fields[0] = WM_KAFKA_FIELD_TIMESTAMP;
	s.kc.fields[1] = WM_KAFKA_FIELD_KEY;
	s.kc.fields[2] = WM_KAFKA_FIELD_VALUE;
	src = wm_kafka_source_open(&s.st, 0, keys, &code, err, sizeof(err));
	ck_assert_msg(src != NULL, "%s", err);
	read_until(src, &g, 3, NULL);
	ck_assert_int_eq(g.rec[2].ts, 2500);
	ck_assert_int_eq(g.rec[2].key, user7);
	ck_assert_int_eq(g.rec[2].value, 5);
	wm_record_source_free(src);
	wm_keys_free(keys);
	cluster_down(&c);
}
END_TEST

/* ---- the probe ---- */

START_TEST(test_probe_tells_what_is_wrong)
{
	struct cluster c;
	struct stage s;
	struct wm_kafka_property bad = {(char *)"fetch.wait.max.ms",
					(char *)"soon", 7, 1};
	uint32_t n = 0;
	char err[256], want[256];
	int64_t t0;

	cluster_up(&c, 1);
	topic(&c, TOPIC, 5, 1);
	stage_init(&s, &c, 1, 8);
	ck_assert_int_eq(wm_kafka_probe(&s.kc, &n, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 5);
	/* The mock creates topics asked for (it speaks an old Metadata):
	 * the brokers' answer for one that does not exist is set. */
	rd_kafka_mock_topic_set_error(c.mc, "nosuch",
				      RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART);
	s.kc.topic = (char *)"nosuch";
	ck_assert_int_eq(wm_kafka_probe(&s.kc, &n, err, sizeof(err)),
			 EX_CONFIG);
	snprintf(want, sizeof(want),
		 "kafka: topic \"nosuch\" does not exist on %s", c.bootstraps);
	ck_assert_str_eq(err, want);
	rd_kafka_mock_topic_set_error(
		c.mc, "secret", RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);
	s.kc.topic = (char *)"secret";
	ck_assert_int_eq(wm_kafka_probe(&s.kc, &n, err, sizeof(err)),
			 EX_NOPERM);
	s.kc.topic = (char *)TOPIC;
	s.kc.n_properties = 1;
	s.kc.properties = &bad;
	ck_assert_int_eq(wm_kafka_probe(&s.kc, &n, err, sizeof(err)),
			 EX_CONFIG);
	ck_assert_msg(strstr(err, "kafka.fetch.wait.max.ms") != NULL, "%s",
		      err);
	s.kc.n_properties = 0;
	/* Nothing listens there: unavailable within the timeout. */
	s.kc.bootstrap_servers = (char *)"127.0.0.1:1";
	s.kc.broker_timeout_ms = 1000;
	t0 = now_ns();
	ck_assert_int_eq(wm_kafka_probe(&s.kc, &n, err, sizeof(err)),
			 EX_UNAVAILABLE);
	ck_assert_int_lt(now_ns() - t0, (int64_t)DEADLINE_S * 1000000000);
	ck_assert_msg(strstr(err, "no broker of 127.0.0.1:1") != NULL, "%s",
		      err);
	cluster_down(&c);
}
END_TEST

/* ---- faults ---- */

static struct wm_kafka_property small_fetches[] = {
	{(char *)"fetch.message.max.bytes", (char *)"1024", 0, 0},
	{(char *)"queued.min.messages", (char *)"10", 0, 0},
};

/* Read the first half, have the fault, produce nothing more, read the
 * second half: exactly the 2 x n records, in order. */
static void
read_across(struct cluster *c, int partitions, int n,
	    void (*fault)(struct cluster *c, struct wm_record_source *src,
			  struct got *g),
	    void (*heal)(struct cluster *c))
{
	static struct got g;
	struct stage s;
	struct wm_record_source *src;
	int first[4] = {0}, end[4];

	g.n = 0;
	for (int p = 0; p < partitions; p++) {
		produce(c, p, 0, n);
		end[p] = n;
	}
	stage_init(&s, c, 1, (uint32_t)partitions);
	/* Small fetches, few queued: most records are still in the broker
	 * when the fault comes. */
	s.kc.n_properties = 2;
	s.kc.properties = small_fetches;
	src = open_source(&s, 0);
	read_until(src, &g, (size_t)(partitions * n / 2), NULL);
	fault(c, src, &g);
	if (heal != NULL)
		heal(c);
	read_until(src, &g, (size_t)(partitions * n), NULL);
	nothing_more(src, 300);
	check_exactly(&g, partitions, first, end);
	wm_record_source_free(src);
}

static void
all_down_until_noticed(struct cluster *c, struct wm_record_source *src,
		       struct got *g)
{
	int64_t end = now_ns() + (int64_t)DEADLINE_S * 1000000000;
	struct wm_source_health h;
	struct wm_record r;

	rd_kafka_mock_broker_set_down(c->mc, 1);
	do {
		ck_assert_msg(now_ns() < end, "%sthe outage went unnoticed",
			      in_row);
		/* Records already fetched may still come. */
		if (wm_record_source_next(src, now_ns(), &r) == 1 && g != NULL)
			g->rec[g->n++] = r;
		src->ops->health(src, &h);
		usleep(1000);
	} while (!h.unreachable);
	ck_assert_msg(h.exit_code == 0 && h.outages == 0,
		      "%sexit code %d, %" PRIu64 " outages", in_row,
		      h.exit_code, (uint64_t)h.outages);
}

static void
broker_up(struct cluster *c)
{
	rd_kafka_mock_broker_set_up(c->mc, 1);
}

static void
fetch_errors(struct cluster *c, struct wm_record_source *src, struct got *g)
{
	(void)src;
	(void)g;
	rd_kafka_mock_push_request_errors(
		c->mc, 1 /* Fetch */, 4,
		RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
		RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT,
		RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART,
		RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION);
}

static void
leader_moves(struct cluster *c, struct wm_record_source *src, struct got *g)
{
	(void)src;
	(void)g;
	rd_kafka_mock_partition_set_leader(c->mc, TOPIC, 0, 2);
	rd_kafka_mock_partition_set_leader(c->mc, TOPIC, 1, 3);
}

static void
slow_broker(struct cluster *c, struct wm_record_source *src, struct got *g)
{
	(void)src;
	(void)g;
	rd_kafka_mock_broker_set_rtt(c->mc, 1, 300);
}

/*
 * A fault halfway through reading a topic of two partitions (read_across):
 * the cluster it needs, the records per partition, the fault and what
 * heals it (NULL: it heals itself). A new fault is a row.
 */
struct fault_row {
	const char *name;
	int brokers;  /* in the cluster */
	int replicas; /* of each partition */
	int records;  /* per partition */
	void (*fault)(struct cluster *c, struct wm_record_source *src,
		      struct got *g);
	void (*heal)(struct cluster *c);
};

static const struct fault_row fault_rows[] = {
	/* Few records per fetch: most are still in the broker when it
	 * goes down. */
	{"broker_down_and_up_loses_and_repeats_nothing", 1, 1, 2000,
	 all_down_until_noticed, broker_up},
	{"fetch_errors_lose_and_repeat_nothing", 1, 1, 2000, fetch_errors,
	 NULL},
	{"leader_change_loses_and_repeats_nothing", 3, 3, 2000, leader_moves,
	 NULL},
	{"slow_broker_loses_and_repeats_nothing", 1, 1, 500, slow_broker, NULL},
};

START_TEST(test_fault_loses_and_repeats_nothing)
{
	const struct fault_row *row = &fault_rows[_i];
	struct cluster c;

	play_row(row->name);
	cluster_up(&c, row->brokers);
	topic(&c, TOPIC, 2, row->replicas);
	read_across(&c, 2, row->records, row->fault, row->heal);
	cluster_down(&c);
}
END_TEST

/* Drive src as the driver would until its health says stop, into *h:
 * no record may come meanwhile. */
static void
until_unhealthy(struct wm_record_source *src, struct wm_source_health *h)
{
	int64_t end = now_ns() + (int64_t)DEADLINE_S * 1000000000;

	do {
		struct wm_record r;
		int64_t due = wm_record_source_next_due_ns(src);

		ck_assert_msg(now_ns() < end, "never unavailable");
		/* Sleep as the driver would: until next_due_ns(), or a
		 * millisecond standing in for a wake. */
		while (due != INT64_MAX && now_ns() < due && now_ns() < end)
			usleep(1000);
		ck_assert_int_eq(wm_record_source_next(src, now_ns(), &r), 0);
		src->ops->health(src, h);
		usleep(1000);
	} while (h->exit_code == 0);
}

/* A source with a broker timeout of 1 s that read its one partition's
 * three records, on a cluster of one broker. */
static struct wm_record_source *
three_read(struct cluster *c, struct stage *s, struct got *g)
{
	struct wm_record_source *src;

	g->n = 0;
	cluster_up(c, 1);
	topic(c, TOPIC, 1, 1);
	produce(c, 0, 0, 3);
	stage_init(s, c, 1, 1);
	s->kc.broker_timeout_ms = 1000;
	src = open_source(s, 0);
	read_until(src, g, 3, NULL);
	return src;
}

/* No broker for broker_timeout: the source says the job must stop, and
 * why, and next_due_ns() brought the driver back for it. */
START_TEST(test_broker_gone_beyond_the_timeout_is_unavailable)
{
	static struct got g;
	struct cluster c;
	struct stage s;
	struct wm_record_source *src;
	struct wm_source_health h;
	char want[128];

	src = three_read(&c, &s, &g);
	rd_kafka_mock_broker_set_down(c.mc, 1);
	until_unhealthy(src, &h);
	ck_assert_int_eq(h.exit_code, EX_UNAVAILABLE);
	snprintf(want, sizeof(want), "kafka: no broker of %s reachable for 1 s",
		 c.bootstraps);
	ck_assert_str_eq(h.why, want);
	ck_assert(h.unreachable);
	ck_assert_int_ge(h.outage_ns, 1000000000);
	ck_assert_int_eq(wm_record_source_next_due_ns(src), INT64_MAX);
	wm_record_source_free(src);
	cluster_down(&c);
}
END_TEST

/* A broker whose connections stay up but which answers nothing (a frozen
 * process: here every answer comes after 30 s) fails no connection, and
 * librdkafka reports nothing: after broker_timeout of silence the source
 * says the job must stop, as for a broker gone. */
START_TEST(test_frozen_broker_beyond_the_timeout_is_unavailable)
{
	static struct got g;
	struct cluster c;
	struct stage s;
	struct wm_record_source *src;
	struct wm_source_health h;
	int64_t frozen;
	char want[128];

	src = three_read(&c, &s, &g);
	rd_kafka_mock_broker_set_rtt(c.mc, 1, 30000);
	frozen = now_ns();
	until_unhealthy(src, &h);
	ck_assert_int_eq(h.exit_code, EX_UNAVAILABLE);
	snprintf(want, sizeof(want), "kafka: no broker of %s answered for 1 s",
		 c.bootstraps);
	ck_assert_str_eq(h.why, want);
	/* Not at once: the last answer came at most a question's interval
	 * (a third of the timeout) before the freeze. */
	ck_assert_int_ge(now_ns() - frozen, 500000000);
	ck_assert_int_eq(wm_record_source_next_due_ns(src), INT64_MAX);
	rd_kafka_mock_broker_set_rtt(c.mc, 1, 0);
	wm_record_source_free(src);
	cluster_down(&c);
}
END_TEST

/* A broker that comes back before the timeout: one outage counted, its
 * length in outage_ns, reading on. */
START_TEST(test_outage_ridden_out_is_counted)
{
	struct cluster c;
	struct stage s;
	struct wm_record_source *src;
	struct wm_source_health h;
	int64_t end = now_ns() + (int64_t)DEADLINE_S * 1000000000;
	static struct got g;

	g.n = 0;
	cluster_up(&c, 1);
	topic(&c, TOPIC, 1, 1);
	stage_init(&s, &c, 1, 1);
	src = open_source(&s, 0);
	nothing_more(src, 200);
	all_down_until_noticed(&c, src, NULL);
	rd_kafka_mock_broker_set_up(c.mc, 1);
	/* No record comes: the watch's metadata answer ends the outage. */
	do {
		struct wm_record r;

		ck_assert_msg(now_ns() < end, "the outage never ended");
		(void)wm_record_source_next(src, now_ns(), &r);
		src->ops->health(src, &h);
		usleep(1000);
	} while (h.unreachable);
	ck_assert_uint_eq(h.outages, 1);
	ck_assert_int_gt(h.outage_ns, 0);
	ck_assert_int_eq(h.exit_code, 0);
	produce(&c, 0, 0, 3);
	read_until(src, &g, 3, NULL);
	wm_record_source_free(src);
	cluster_down(&c);
}
END_TEST

static Suite *
kafka_suite(void)
{
	Suite *s = suite_create("kafka_source");
	TCase *read = tcase_create("read");
	TCase *faults = tcase_create("faults");

	/* x CK_TIMEOUT_MULTIPLIER (10 in make check): room for the waits'
	 * deadlines on a loaded machine. */
	tcase_set_timeout(read, 30);
	tcase_set_timeout(faults, 30);
	tcase_add_test(read, test_delivers_every_record_in_partition_order);
	tcase_add_test(read, test_arriving_records_wake_the_driver);
	tcase_add_test(read,
		       test_subtasks_own_partitions_as_flink_assigns_them);
	tcase_add_loop_test(read, test_reads_from_and_to_the_positions_given, 0,
			    (int)N_ELEMS(position_rows));
	tcase_add_test(read, test_bounded_source_stops_at_the_end_it_found);
	tcase_add_test(read, test_committed_offsets_after_a_snapshot);
	tcase_add_test(read, test_paused_partition_keeps_every_record);
	tcase_add_test(read, test_pause_between_reads_keeps_every_record);
	tcase_add_test(read, test_restore_continues_with_exactly_the_rest);
	tcase_add_test(read, test_restore_brings_partitions_discovered_before);
	tcase_add_test(read, test_bad_record_stops_the_source_naming_where);
	tcase_add_test(read, test_bad_records_skipped_and_counted);
	tcase_add_test(read, test_csv_and_json_values);
	tcase_add_test(read, test_probe_tells_what_is_wrong);
	tcase_add_loop_test(faults, test_fault_loses_and_repeats_nothing, 0,
			    (int)N_ELEMS(fault_rows));
	tcase_add_test(faults,
		       test_broker_gone_beyond_the_timeout_is_unavailable);
	tcase_add_test(faults, test_outage_ridden_out_is_counted);
	tcase_add_test(faults,
		       test_frozen_broker_beyond_the_timeout_is_unavailable);
	suite_add_tcase(s, read);
	suite_add_tcase(s, faults);
	return s;
}

int
main(void)
{
	return wm_check_main(kafka_suite());
}
