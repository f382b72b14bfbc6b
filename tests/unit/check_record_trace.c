/*
 * check_record_trace.c
 *	--record-trace's writer: the arrival written, the trace of each
 *	source, the replay topology, and a recorded source whose trace
 *	replays to the same records at the same times.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/conf/topology.h"
#include "runtime/source/record_trace.h"
#include "runtime/source/replay.h"
#include "runtime/io/sink.h"
#include "runtime/source/sources.h"
#include "tests/unit/check_main.h"

static const char job[] = "[job]\n"
			  "event_time = 10 s\n"
			  "seed = 5\n"
			  "[source \"clicks\"]   # quoted\n"
			  "partitions = 3\n"
			  "rate = 7/s\n"
			  "out_of_orderness = 1 s\n"
			  "silence = 1 from 2 s to 4 s\n"
			  "silence = 2 from 5 s to 6 s\n"
			  "keys = 4\n"
			  "[window w]\n"
			  "input = clicks\n"
			  "size = 1 s\n"
			  "[sink out]\n"
			  "input = w\n"
			  "path = /dev/null\n";

static struct wm_topology *
load(const char *text)
{
	struct wm_topology *t = NULL;
	struct wm_ini_error err;
	int r = wm_topology_load_buffer(text, strlen(text), "test.conf", &t,
					&err);

	ck_assert_msg(r == 0, "%s:%d:%d: %s", err.file, err.line, err.col,
		      err.msg);
	return t;
}

START_TEST(test_arrival_rounds_up_to_the_millisecond)
{
	ck_assert_int_eq(wm_record_trace_arrival_ms(0), 0);
	ck_assert_int_eq(wm_record_trace_arrival_ms(1), 1);
	ck_assert_int_eq(wm_record_trace_arrival_ms(999999), 1);
	ck_assert_int_eq(wm_record_trace_arrival_ms(1000000), 1);
	ck_assert_int_eq(wm_record_trace_arrival_ms(1000001), 2);
	ck_assert_int_eq(wm_record_trace_arrival_ms(142857142), 143);
}
END_TEST

START_TEST(test_trace_path_names_the_source_when_there_are_several)
{
	static const struct {
		const char *path, *name;
		uint32_t n;
		const char *want;
	} cases[] = {
		{"rec.csv", "a", 1, "rec.csv"},
		{"rec.csv", "a", 2, "rec.a.csv"},
		{"rec", "a", 2, "rec.a"},
		{"dir.d/rec", "a", 2, "dir.d/rec.a"},
		{"dir/.rec", "a", 2, "dir/.rec.a"},
		{"a.b.csv", "events", 3, "a.b.events.csv"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *got = wm_record_trace_path(cases[i].path, cases[i].name,
						 cases[i].n);

		ck_assert_str_eq(got, cases[i].want);
		free(got);
	}
}
END_TEST

/* The replay topology loads, replays the recording with arrival pacing
 * until the generator's end, and keeps the watermark strategy. */
START_TEST(test_replay_topology_replays_the_recording)
{
	struct wm_topology *t = load(job), *replay;
	const struct wm_source_conf *sc;
	char *text;

	t->stages[0].u.source.record = strdup("my \"rec\".csv");
	text = wm_record_trace_topology(t, job, strlen(job), NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(strstr(text, "\n# rate = 7/s\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n# silence = 2 from 5 s"));
	ck_assert_ptr_nonnull(strstr(text, "\nout_of_orderness = 1 s\n"));
	replay = load(text);
	sc = &replay->stages[0].u.source;
	ck_assert_str_eq(sc->replay, "my \"rec\".csv");
	ck_assert_int_eq(sc->pacing, WM_REPLAY_ARRIVAL);
	ck_assert_int_eq(sc->replay_end_ms, 10000);
	ck_assert_int_eq(sc->out_of_orderness_ms, 1000);
	ck_assert_int_eq(sc->partitions, 3);
	wm_topology_free(replay);
	wm_topology_free(t);
	free(text);
}
END_TEST

/* A Kafka source's replay reads the partitions the job read, not the
 * room it kept for more (its own `partitions` key left as a comment):
 * the others would hold the replay's watermarks back. Without a count,
 * the room. */
START_TEST(test_kafka_replay_has_the_partitions_read)
{
	static const char kafka_job[] =
		"[source events]\npartitions = 40\n"
		"kafka.bootstrap_servers = b:9092\nkafka.topic = t\n"
		"[window w]\ninput = events\nsize = 1 s\n"
		"[sink out]\ninput = w\npath = /dev/null\n";
	const uint32_t read[3] = {2, 0, 0};
	struct wm_topology *t = load(kafka_job), *replay;
	char *text;

	t->stages[0].u.source.record = strdup("rec.csv");
	text = wm_record_trace_topology(t, kafka_job, strlen(kafka_job), read);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(strstr(text, "\n# partitions = 40\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n# kafka.topic = t\n"));
	replay = load(text);
	ck_assert_uint_eq(replay->stages[0].u.source.partitions, 2);
	ck_assert_ptr_null(replay->stages[0].u.source.kafka);
	ck_assert_int_eq(replay->stages[0].u.source.kind, WM_SOURCE_REPLAY);
	wm_topology_free(replay);
	free(text);

	text = wm_record_trace_topology(t, kafka_job, strlen(kafka_job), NULL);
	ck_assert_ptr_nonnull(text);
	replay = load(text);
	ck_assert_uint_eq(replay->stages[0].u.source.partitions, 40);
	wm_topology_free(replay);
	wm_topology_free(t);
	free(text);
}
END_TEST

/* A Nexmark source's replay reads its trace with the bound the source
 * had, the benchmark's 4 s by default, which a replaying source would not
 * default to; its generator and nexmark.* keys are left as comments. */
START_TEST(test_nexmark_replay_keeps_its_watermark_bound)
{
	static const char nexmark_job[] =
		"[source bids]\ngenerator = nexmark\nnexmark.events = 100\n"
		"nexmark.key = bidder\n"
		"[window w]\ninput = bids\nsize = 1 s\n"
		"[sink out]\ninput = w\npath = /dev/null\n";
	struct wm_topology *t = load(nexmark_job), *replay;
	char *text;

	t->stages[0].u.source.record = strdup("rec.csv");
	text = wm_record_trace_topology(t, nexmark_job, strlen(nexmark_job),
					NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(strstr(text, "\n# generator = nexmark\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n# nexmark.key = bidder\n"));
	replay = load(text);
	ck_assert_int_eq(replay->stages[0].u.source.kind, WM_SOURCE_REPLAY);
	ck_assert_int_eq(
		replay->stages[0].u.source.strategy.out_of_orderness_ms, 4000);
	wm_topology_free(replay);
	wm_topology_free(t);
	free(text);
}
END_TEST

/* The replay ends when the recorded job ended its generated partitions:
 * the earlier of its run lengths in event and processing time; a job
 * bounded by records ends them one by one, after their last records. */
START_TEST(test_replay_ends_where_the_run_length_ended_the_job)
{
	static const struct {
		const char *lengths;
		int64_t end_ms;
	} cases[] = {
		{"event_time = 10 s\n", 10000},
		{"processing_time = 2 h\n", 7200000},
		{"event_time = 1 h\nprocessing_time = 20 min\n", 1200000},
		{"event_time = 20 min\nprocessing_time = 1 h\n", 1200000},
		{"records = 100\n", -1},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[512];
		struct wm_topology *t;

		snprintf(text, sizeof(text),
			 "[job]\n%s[source s]\nrate = 1/s\n[window w]\n"
			 "input = s\nsize = 1 s\n[sink out]\ninput = w\n"
			 "path = /dev/null\n",
			 cases[i].lengths);
		t = load(text);
		ck_assert_int_eq(wm_record_trace_end_ms(t), cases[i].end_ms);
		wm_topology_free(t);
	}
}
END_TEST

/*
 * A recorded generator returns what the generator returns, and its trace,
 * replayed, releases the same records in the same order at the same
 * whole milliseconds, and ends when the generator did.
 */
START_TEST(test_recorded_source_replays_to_the_same_records)
{
	struct wm_topology *t = load(job), *gen_t = load(job);
	char path[] = "/tmp/check_record_trace.XXXXXX";
	struct wm_record_source *gen, *rec, *play;
	struct wm_replay_trace *trace;
	struct wm_sink *sink;
	struct wm_record a, b, r;
	uint32_t parts[3] = {0, 1, 2};
	uint64_t bad;
	char err[512];
	int fd = mkstemp(path);
	size_t n = 0;

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(wm_sink_open_recording(
				 &sink, &t->stages[0], path, NULL,
				 wm_record_trace_columns(&t->stages[0], NULL),
				 err, sizeof(err)),
			 0);
	rec = wm_record_trace_source(wm_sources_open(t, 0, 0, NULL, &bad),
				     sink);
	gen = wm_sources_open(gen_t, 0, 0, NULL, &bad);
	ck_assert_ptr_nonnull(rec);
	/* Polled every 0.3 ms: arrivals fall between whole milliseconds. */
	for (int64_t now = 0; !wm_record_source_finished(gen); now += 300000)
		while (wm_record_source_next(gen, now, &a) == 1) {
			ck_assert_int_eq(wm_record_source_next(rec, now, &b),
					 1);
			ck_assert_int_eq(a.ts, b.ts);
			ck_assert_int_eq(a.key, b.key);
			ck_assert_int_eq(a.partition, b.partition);
			n++;
		}
	ck_assert_int_gt(n, 100);
	ck_assert(!wm_sink_failed(sink));
	ck_assert_int_eq(wm_sink_close(sink, false, err, sizeof(err)), 0);
	wm_record_source_free(rec);
	wm_record_source_free(gen);

	trace = wm_replay_read(path, 3, WM_REPLAY_ARRIVAL, WM_KEY_TYPE_LONG,
			       NULL, false, err, sizeof(err));
	ck_assert_msg(trace != NULL, "%s", err);
	play = wm_replay_source(trace, parts, 3);
	gen = wm_sources_open(gen_t, 0, 0, NULL, &bad);
	/* The replay has each record at the first whole millisecond at or
	 * after the generator gave it, in the order it gave them. */
	for (int64_t now = 0; !wm_record_source_finished(gen); now += 300000)
		while (wm_record_source_next(gen, now, &a) == 1) {
			int64_t due = wm_record_trace_arrival_ms(now) * 1000000;

			ck_assert_int_eq(wm_record_source_next(play, due, &r),
					 1);
			ck_assert_int_eq(a.ts, r.ts);
			ck_assert_int_eq(a.key, r.key);
			ck_assert_int_eq(a.partition, r.partition);
		}
	ck_assert(wm_record_source_finished(play));
	wm_record_source_free(gen);
	wm_record_source_free(play);
	wm_replay_free(trace);
	unlink(path);
	wm_topology_free(t);
	wm_topology_free(gen_t);
}
END_TEST

static Suite *
record_trace_suite(void)
{
	Suite *s = suite_create("record_trace");
	TCase *names = tcase_create("names");
	TCase *topology = tcase_create("topology");
	TCase *recording = tcase_create("recording");

	tcase_add_test(names, test_arrival_rounds_up_to_the_millisecond);
	tcase_add_test(names,
		       test_trace_path_names_the_source_when_there_are_several);
	tcase_add_test(topology, test_replay_topology_replays_the_recording);
	tcase_add_test(topology, test_kafka_replay_has_the_partitions_read);
	tcase_add_test(topology, test_nexmark_replay_keeps_its_watermark_bound);
	tcase_add_test(topology,
		       test_replay_ends_where_the_run_length_ended_the_job);
	tcase_add_test(recording,
		       test_recorded_source_replays_to_the_same_records);
	suite_add_tcase(s, names);
	suite_add_tcase(s, topology);
	suite_add_tcase(s, recording);
	return s;
}

int
main(void)
{
	return wm_check_main(record_trace_suite());
}
