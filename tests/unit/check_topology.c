/*
 * check_topology.c
 *	Unit tests of topology.conf semantics: a full job with Flink's
 *	defaults, and every configuration error with its position and message.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "operators/behaviour.h"
#include "runtime/conf/topology.h"
#include "tests/unit/check_main.h"

static const char full[] = "[job]\n"
			   "name = quiet-partitions\n"
			   "event_time = 2 h\n"
			   "speed = 600\n"
			   "flink_behaviour = released\n"
			   "valve_flush_unconditional = true\n"
			   "\n"
			   "[global]\n"
			   "parallelism = 4\n"
			   "\n"
			   "[source events]\n"
			   "partitions = 16\n"
			   "rate = 1000/s\n"
			   "out_of_orderness = 5 s\n"
			   "idle_timeout = 30 s\n"
			   "silence = 13-15 from 1 h to 8 h\n"
			   "silence = 2\n"
			   "outage = 3-4 every 1 h for 5 min\n"
			   "\n"
			   "[keyby bykey]\n"
			   "input = events\n"
			   "parallelism = 8\n"
			   "\n"
			   "[window counts]\n"
			   "input = bykey\n"
			   "parallelism = 8\n"
			   "type = sliding\n"
			   "size = 10 min\n"
			   "slide = 1 min\n"
			   "allowed_lateness = 1 min\n"
			   "aggregates = count, avg\n"
			   "late_output = late.csv\n"
			   "\n"
			   "[sink out]\n"
			   "input = counts\n"
			   "parallelism = 8\n"
			   "path = results.csv\n";

static struct wm_topology *
load_ok(const char *text)
{
	struct wm_topology *t = NULL;
	struct wm_ini_error err;
	char msg[1024];

	if (wm_topology_load_buffer(text, strlen(text), "t.conf", &t, &err) !=
	    0) {
		wm_ini_error_format(&err, msg, sizeof(msg));
		ck_abort_msg("valid topology refused: %s", msg);
	}
	return t;
}

START_TEST(test_full_topology_with_flink_defaults)
{
	struct wm_topology *t = load_ok(full);
	const struct wm_stage *src, *kb, *win, *sink;

	ck_assert_str_eq(t->job.name, "quiet-partitions");
	ck_assert_int_eq(t->job.event_time_ms, 2 * 3600 * 1000);
	ck_assert_int_eq(t->job.processing_time_ms, INT64_MAX);
	ck_assert(t->job.speed == 600);
	ck_assert_uint_eq(t->job.behaviour,
			  WM_BEHAVIOUR_RELEASED | WM_VALVE_FLUSH_UNCONDITIONAL);
	ck_assert_int_eq(t->job.watermark_interval_ms, 200);
	ck_assert_uint_eq(t->n_stages, 4);
	src = &t->stages[0];
	kb = &t->stages[1];
	win = &t->stages[2];
	sink = &t->stages[3];
	/* [global] parallelism = 4 reaches the source only. */
	ck_assert_uint_eq(src->parallelism, 4);
	ck_assert_uint_eq(src->u.source.partitions, 16);
	ck_assert(src->u.source.rate == 1000);
	ck_assert(src->u.source.strategy.with_idleness);
	ck_assert_int_eq(src->u.source.strategy.idle_timeout_ms, 30000);
	ck_assert_int_eq(src->u.source.strategy.out_of_orderness_ms, 5000);
	ck_assert_int_eq(src->u.source.strategy.interval_ms, 200);
	ck_assert_uint_eq(src->u.source.n_silences, 2);
	ck_assert_uint_eq(src->u.source.n_outages, 1);
	ck_assert_uint_eq(src->u.source.outages[0].first_partition, 3);
	ck_assert_uint_eq(src->u.source.outages[0].last_partition, 4);
	ck_assert_int_eq(src->u.source.outages[0].period_ms, 3600000);
	ck_assert_int_eq(src->u.source.outages[0].length_ms, 300000);
	ck_assert_uint_eq(src->u.source.silences[0].first_partition, 13);
	ck_assert_uint_eq(src->u.source.silences[0].last_partition, 15);
	ck_assert_int_eq(src->u.source.silences[0].from_ms, 3600000);
	ck_assert_int_eq(src->u.source.silences[0].to_ms, 8 * 3600000);
	ck_assert_int_eq(src->u.source.silences[1].to_ms, INT64_MAX);
	/* Edges: 4 -> 8 rebalance, keyBy -> window hash, 8 -> 8 forward. */
	ck_assert_uint_eq(kb->n_inputs, 1);
	ck_assert_int_eq(kb->inputs[0].edge, WM_PARTITION_REBALANCE);
	ck_assert_int_eq(win->inputs[0].edge, WM_PARTITION_HASH);
	ck_assert_int_eq(sink->inputs[0].edge, WM_PARTITION_FORWARD);
	ck_assert_uint_eq(win->max_parallelism, 128); /* Flink's default */
	ck_assert_int_eq(win->u.window.op.assigner.kind, WM_WINDOW_SLIDING);
	ck_assert_int_eq(win->u.window.op.allowed_lateness, 60000);
	ck_assert_uint_eq(win->u.window.aggregates, WM_AGG_COUNT | WM_AGG_AVG);
	ck_assert(win->u.window.op.late_side_output);
	ck_assert_str_eq(sink->u.sink.path, "results.csv");
	wm_topology_free(t);
}
END_TEST

START_TEST(test_minimal_topology_defaults)
{
	struct wm_topology *t = load_ok("[source s]\nrate = unlimited\n"
					"[window w]\ninput = s\nsize = 1 min\n"
					"[sink k]\ninput = w\n");

	ck_assert_uint_eq(t->stages[0].u.source.partitions, 1);
	ck_assert(isinf(t->stages[0].u.source.rate));
	ck_assert(!t->stages[0].u.source.strategy.with_idleness);
	ck_assert_int_eq(t->stages[1].u.window.op.assigner.kind,
			 WM_WINDOW_TUMBLING);
	ck_assert_uint_eq(t->stages[1].u.window.aggregates, WM_AGG_COUNT);
	ck_assert_str_eq(t->stages[2].u.sink.path, "-");
	ck_assert_uint_eq(t->job.behaviour, WM_BEHAVIOUR_RELEASED);
	wm_topology_free(t);
	t = load_ok("[job]\nflink_behaviour = master\nmux_reactivate = off\n"
		    "pipeline.max-parallelism = 1000\n"
		    "[source s]\nrate = unlimited\n[window w]\ninput = s\ntype "
		    "= session\n"
		    "gap = 3 s\nparallelism = 3\n");
	ck_assert_uint_eq(t->job.behaviour,
			  WM_BEHAVIOUR_MASTER & ~WM_MUX_REACTIVATE);
	ck_assert_uint_eq(t->stages[1].max_parallelism, 1000);
	ck_assert_int_eq(t->stages[0].u.source.strategy.reactivation_grace_ms,
			 0);
	wm_topology_free(t);
	/* The study knobs: a policy bit beside the Flink flags, whatever
	 * flink_behaviour says; a grace per source, [global] a default. */
	t = load_ok("[job]\nall_idle = hold\nflink_behaviour = master\n"
		    "[global]\nreactivation_grace = 5 min\n[source s]\nrate = "
		    "unlimited\n"
		    "[source r]\nrate = unlimited\nreactivation_grace = 0\n");
	ck_assert_uint_eq(t->job.behaviour,
			  WM_BEHAVIOUR_MASTER | WM_ALL_IDLE_HOLD);
	ck_assert_uint_eq(t->stages[0].u.source.strategy.behaviour,
			  WM_BEHAVIOUR_MASTER | WM_ALL_IDLE_HOLD);
	ck_assert_int_eq(t->stages[0].u.source.strategy.reactivation_grace_ms,
			 300000);
	ck_assert_int_eq(t->stages[1].u.source.strategy.reactivation_grace_ms,
			 0);
	wm_topology_free(t);
	t = load_ok("[job]\nall_idle = max\n[source s]\nrate = unlimited\n");
	ck_assert_uint_eq(t->job.behaviour,
			  WM_BEHAVIOUR_RELEASED | WM_ALL_IDLE_MAX);
	wm_topology_free(t);
	t = load_ok("[job]\nring_size = 64KiB\n[source s]\nrate = unlimited\n");
	ck_assert_uint_eq(t->job.ring_cells, 2048);
	wm_topology_free(t);
	t = load_ok(
		"[job]\n"
		"pipeline.watermark-alignment.allow-unaligned-source-"
		"splits = true\n"
		"[source a]\nrate = unlimited\nwatermark_alignment_group = g\n"
		"watermark_alignment_max_drift = 30 s\n"
		"[source b]\nreplay = b.csv\n"
		"watermark_alignment_group = g\n"
		"watermark_alignment_max_drift = 1 min\n"
		"watermark_alignment_update_interval = 250 ms\n");
	ck_assert(t->job.allow_unaligned_source_splits);
	ck_assert_uint_eq(t->job.ring_cells, WM_TOPOLOGY_RING_CELLS);
	ck_assert_str_eq(t->stages[0].u.source.alignment_group, "g");
	ck_assert_int_eq(t->stages[0].u.source.alignment_max_drift_ms, 30000);
	ck_assert_int_eq(t->stages[0].u.source.alignment_update_interval_ms,
			 1000);
	ck_assert_int_eq(t->stages[1].u.source.alignment_max_drift_ms, 60000);
	ck_assert_int_eq(t->stages[1].u.source.alignment_update_interval_ms,
			 250);
	wm_topology_free(t);
	/* A replayed trace pauses its partitions as a generator does: it
	 * needs no leave to align whole subtasks only. */
	t = load_ok("[source r]\nreplay = r.csv\n"
		    "watermark_alignment_group = g\n"
		    "watermark_alignment_max_drift = 1 s\n");
	ck_assert(!t->job.allow_unaligned_source_splits);
	ck_assert_str_eq(t->stages[0].u.source.alignment_group, "g");
	wm_topology_free(t);
}
END_TEST

/* A sink is chained to its window: without a parallelism of its own it
 * takes the window's, whatever [global] gave the window; with its own it
 * must agree (the error is in the table above). */
START_TEST(test_a_sink_takes_its_windows_parallelism)
{
	struct wm_topology *t =
		load_ok("[source s]\nrate = unlimited\n"
			"[window w]\ninput = s\nsize = 1 min\nparallelism = 2\n"
			"[sink k]\ninput = w\n");

	ck_assert_uint_eq(t->stages[2].parallelism, 2);
	wm_topology_free(t);
	t = load_ok("[global]\nparallelism = 3\n[source s]\nrate = unlimited\n"
		    "[window w]\ninput = s\nsize = 1 min\nparallelism = 2\n"
		    "[sink k]\ninput = w\n");
	ck_assert_uint_eq(t->stages[2].parallelism, 2);
	wm_topology_free(t);
	t = load_ok("[source s]\nrate = unlimited\n"
		    "[window w]\ninput = s\nsize = 1 min\nparallelism = 4\n"
		    "[sink k]\ninput = w\nparallelism = 4\n");
	ck_assert_uint_eq(t->stages[2].parallelism, 4);
	wm_topology_free(t);
}
END_TEST

START_TEST(test_source_shapes)
{
	struct wm_topology *t =
		load_ok("[source s]\n"
			"partitions = 16\n"
			"rate = 1000/s\n"
			"skew = 0-3 x10\n"
			"skew = 7 x0.01\n"
			"skew = 2 x3\n"
			"silence = 3-5 every 10 min for 2 min from 1 h to 5 h\n"
			"silence = 9 for 1 min from 30 s\n"
			"silence = 15\n"
			"burst = 0-3 x20 from 10 min for 30 s\n"
			"burst = 2 x5 every 1 h for 1 min\n"
			"burst = \"12 x1.5 to 2 h\"\n");
	const struct wm_source_conf *src = &t->stages[0].u.source;
	static const double skew[16] = {10, 10, 3, 10, 1, 1, 1, 0.01,
					1,  1,	1, 1,  1, 1, 1, 1};
	const struct wm_source_gen_silence *sil = src->silences;
	const struct wm_source_gen_burst *b = src->bursts;

	/* Later skews override earlier ones for the partitions they name. */
	ck_assert_uint_eq(src->n_skew, 16);
	for (int p = 0; p < 16; p++)
		ck_assert_msg(src->skew[p] == skew[p], "skew of %d: %g", p,
			      src->skew[p]);
	ck_assert_uint_eq(src->n_silences, 3);
	ck_assert_uint_eq(sil[0].first_partition, 3);
	ck_assert_uint_eq(sil[0].last_partition, 5);
	ck_assert_int_eq(sil[0].from_ms, 3600000);
	ck_assert_int_eq(sil[0].to_ms, 5 * 3600000);
	ck_assert_int_eq(sil[0].period_ms, 600000);
	ck_assert_int_eq(sil[0].length_ms, 120000);
	/* Without "every", "for" ends the one window. */
	ck_assert_int_eq(sil[1].from_ms, 30000);
	ck_assert_int_eq(sil[1].to_ms, 90000);
	ck_assert_int_eq(sil[1].period_ms, 0);
	ck_assert_int_eq(sil[2].first_partition, 15);
	ck_assert_int_eq(sil[2].from_ms, 0);
	ck_assert_int_eq(sil[2].to_ms, INT64_MAX);
	ck_assert_uint_eq(src->n_bursts, 3);
	ck_assert_uint_eq(b[0].last_partition, 3);
	ck_assert(b[0].factor == 20);
	ck_assert_int_eq(b[0].from_ms, 600000);
	ck_assert_int_eq(b[0].to_ms, 630000);
	ck_assert_int_eq(b[0].period_ms, 0);
	ck_assert_uint_eq(b[1].first_partition, 2);
	ck_assert(b[1].factor == 5);
	ck_assert_int_eq(b[1].from_ms, 0);
	ck_assert_int_eq(b[1].to_ms, INT64_MAX);
	ck_assert_int_eq(b[1].period_ms, 3600000);
	ck_assert_int_eq(b[1].length_ms, 60000);
	ck_assert(b[2].factor == 1.5);
	ck_assert_int_eq(b[2].to_ms, 7200000);
	wm_topology_free(t);
}
END_TEST

START_TEST(test_random_silences)
{
	struct wm_topology *t =
		load_ok("[source s]\nrate = unlimited\n"
			"partitions = 16\n"
			"silence_random = 0-15 fraction 0.2 mean 10 min\n"
			"silence_random = 3 mean 90 min fraction 0.05\n");
	const struct wm_source_conf *src = &t->stages[0].u.source;
	const struct wm_source_gen_random_silence *rs = src->random_silences;

	ck_assert_uint_eq(src->n_random_silences, 2);
	ck_assert_uint_eq(src->n_silences, 0);
	ck_assert_uint_eq(rs[0].first_partition, 0);
	ck_assert_uint_eq(rs[0].last_partition, 15);
	ck_assert(rs[0].fraction == 0.2);
	ck_assert_int_eq(rs[0].mean_ms, 600000);
	ck_assert_uint_eq(rs[1].first_partition, 3);
	ck_assert_uint_eq(rs[1].last_partition, 3);
	ck_assert(rs[1].fraction == 0.05);
	ck_assert_int_eq(rs[1].mean_ms, 5400000);
	wm_topology_free(t);

	/* "all": every partition, however many the source has (a sweep
	 * over its partitions keeps the silences on each). */
	t = load_ok("[source s]\nrate = unlimited\n"
		    "partitions = 5\n"
		    "silence_random = all fraction 0.2 mean 1 min\n"
		    "skew = all x2\n");
	src = &t->stages[0].u.source;
	ck_assert_uint_eq(src->random_silences[0].first_partition, 0);
	ck_assert_uint_eq(src->random_silences[0].last_partition, 4);
	for (uint32_t p = 0; p < 5; p++)
		ck_assert(src->skew[p] == 2);
	wm_topology_free(t);

	/* Nothing said: no skew, silences or bursts. */
	t = load_ok("[source s]\nrate = unlimited\n");
	ck_assert_ptr_null(t->stages[0].u.source.skew);
	ck_assert_uint_eq(t->stages[0].u.source.n_silences, 0);
	ck_assert_uint_eq(t->stages[0].u.source.n_bursts, 0);
	wm_topology_free(t);
}
END_TEST

START_TEST(test_punctuations)
{
	struct wm_topology *t =
		load_ok("[source s]\nrate = unlimited\npartitions = 8\n"
			"watermark = punctuated\n"
			"punctuate = 0-2 every 50 records\n"
			"punctuate = 7 every 1 record\n"
			"punctuate = 4-5 every 90 s\n");
	const struct wm_source_conf *src = &t->stages[0].u.source;

	ck_assert_int_eq(src->strategy.kind, WM_WATERMARK_PUNCTUATED);
	ck_assert_uint_eq(src->punctuations[0].first_partition, 0);
	ck_assert_uint_eq(src->punctuations[0].last_partition, 2);
	ck_assert_uint_eq(src->punctuations[0].every_records, 50);
	ck_assert_uint_eq(src->punctuations[1].first_partition, 7);
	ck_assert_uint_eq(src->punctuations[1].last_partition, 7);
	ck_assert_uint_eq(src->punctuations[1].every_records, 1);
	ck_assert_int_eq(src->punctuations[1].every_ms, 0);
	ck_assert_uint_eq(src->n_punctuations, 3);
	ck_assert_uint_eq(src->punctuations[2].first_partition, 4);
	ck_assert_uint_eq(src->punctuations[2].last_partition, 5);
	ck_assert_uint_eq(src->punctuations[2].every_records, 0);
	ck_assert_int_eq(src->punctuations[2].every_ms, 90000);
	wm_topology_free(t);

	/* A topic's values mark its records in a field of their own. */
	t = load_ok("[source s]\nkafka.topic = t\n"
		    "kafka.bootstrap_servers = b:9092\n"
		    "kafka.value_format = json\n"
		    "kafka.value_fields = value, punctuate\n"
		    "watermark = punctuated\n");
	src = &t->stages[0].u.source;
	ck_assert_int_eq(src->strategy.kind, WM_WATERMARK_PUNCTUATED);
	ck_assert_uint_eq(src->kafka->n_fields, 2);
	ck_assert_int_eq(src->kafka->fields[1], WM_KAFKA_FIELD_PUNCTUATE);
	wm_topology_free(t);

	/* Or a watermark of their own, with heartbeats. */
	t = load_ok("[source s]\nkafka.topic = t\n"
		    "kafka.bootstrap_servers = b:9092\n"
		    "kafka.value_format = csv\n"
		    "kafka.value_fields = value, watermark, heartbeat\n"
		    "watermark = punctuated\n");
	src = &t->stages[0].u.source;
	ck_assert_uint_eq(src->kafka->n_fields, 3);
	ck_assert_int_eq(src->kafka->fields[1], WM_KAFKA_FIELD_WATERMARK);
	ck_assert_int_eq(src->kafka->fields[2], WM_KAFKA_FIELD_HEARTBEAT);
	ck_assert(wm_kafka_value_has(src->kafka, WM_KAFKA_FIELD_WATERMARK));
	ck_assert(!wm_kafka_value_has(src->kafka, WM_KAFKA_FIELD_PUNCTUATE));
	wm_topology_free(t);
}
END_TEST

/* The loader says once what kind each source is, from its keys. */
START_TEST(test_source_kinds)
{
	struct wm_topology *t = load_ok("[source g]\nrate = 1/s\n"
					"[source r]\nreplay = trace.csv\n"
					"[source k]\nkafka.topic = t\n"
					"kafka.bootstrap_servers = b:9092\n");

	ck_assert_int_eq(t->stages[0].u.source.kind, WM_SOURCE_GENERATED);
	ck_assert_int_eq(t->stages[1].u.source.kind, WM_SOURCE_REPLAY);
	ck_assert(wm_stage_source_is(&t->stages[1], WM_SOURCE_REPLAY));
	ck_assert_int_eq(t->stages[2].u.source.kind, WM_SOURCE_KAFKA);
	ck_assert(!wm_stage_source_is(&t->stages[2], WM_SOURCE_GENERATED));
	wm_topology_free(t);
}
END_TEST

/* generator = nexmark: the stream's keys into the conf, the benchmark's
 * 4 s bound by default, and the other kinds' defaults otherwise. */
START_TEST(test_nexmark_source)
{
	struct wm_topology *t =
		load_ok("[source bids]\ngenerator = nexmark\n"
			"partitions = 3\n"
			"nexmark.events = 2.5M\nnexmark.rate = 3000/min\n"
			"nexmark.kind = bid\nnexmark.key = bidder\n"
			"nexmark.value = price\n"
			"[source people]\ngenerator = nexmark\n"
			"nexmark.kind = person\nout_of_orderness = 1 s\n"
			"[source own]\ngenerator = records\nrate = 1/s\n");
	const struct wm_source_conf *bids = &t->stages[0].u.source;
	const struct wm_source_conf *people = &t->stages[1].u.source;

	ck_assert_int_eq(bids->kind, WM_SOURCE_NEXMARK);
	ck_assert_int_eq(bids->nexmark_line, 2);
	ck_assert_int_eq(bids->nexmark_col, 1);
	ck_assert_uint_eq(bids->nexmark.events, 2500000);
	ck_assert_uint_eq(bids->nexmark.gen.events_per_second, 50);
	ck_assert_int_eq(bids->nexmark.kind, WM_NEXMARK_BID);
	ck_assert_int_eq(bids->nexmark.key, WM_NEXMARK_FIELD_BIDDER);
	ck_assert_int_eq(bids->nexmark.value, WM_NEXMARK_FIELD_PRICE);
	ck_assert_uint_eq(bids->partitions, 3);
	ck_assert_int_eq(bids->strategy.kind, WM_WATERMARK_BOUNDED);
	ck_assert_int_eq(bids->strategy.out_of_orderness_ms, 4000);

	ck_assert_int_eq(people->kind, WM_SOURCE_NEXMARK);
	ck_assert_uint_eq(people->nexmark.events, 10000000);
	ck_assert_uint_eq(people->nexmark.gen.events_per_second, 10000);
	ck_assert_int_eq(people->nexmark.kind, WM_NEXMARK_PERSON);
	ck_assert_int_eq(people->nexmark.key, WM_NEXMARK_FIELD_ID);
	ck_assert_int_eq(people->nexmark.value, WM_NEXMARK_FIELD_ONE);
	ck_assert_int_eq(people->strategy.out_of_orderness_ms, 1000);

	ck_assert_int_eq(t->stages[2].u.source.kind, WM_SOURCE_GENERATED);
	ck_assert_int_eq(t->stages[2].u.source.strategy.out_of_orderness_ms, 0);
	wm_topology_free(t);

	/* [global]'s generator is a default, which a replaying or a Kafka
	 * source's own section overrides. */
	t = load_ok("[global]\ngenerator = nexmark\n"
		    "[source n]\n"
		    "[source r]\nreplay = trace.csv\n"
		    "[source k]\nkafka.topic = t\n"
		    "kafka.bootstrap_servers = b:9092\n");
	ck_assert_int_eq(t->stages[0].u.source.kind, WM_SOURCE_NEXMARK);
	ck_assert_int_eq(t->stages[1].u.source.kind, WM_SOURCE_REPLAY);
	ck_assert_int_eq(t->stages[2].u.source.kind, WM_SOURCE_KAFKA);
	wm_topology_free(t);
}
END_TEST

/* A map over a Nexmark source: its texts kept as given, chained to the
 * source (its parallelism, a forward edge), read by a sink that takes
 * the same parallelism. */
START_TEST(test_map_stage)
{
	struct wm_topology *t = load_ok("[global]\nparallelism = 2\n"
					"[source bids]\ngenerator = nexmark\n"
					"[map q2]\ninput = bids\n"
					"where = auction % 123 == 0\n"
					"select = auction, price\n"
					"[map all]\ninput = bids\n"
					"[sink out]\ninput = q2\n");
	const struct wm_stage *q2 = &t->stages[1], *all = &t->stages[2];

	ck_assert_int_eq(q2->kind, WM_STAGE_MAP);
	ck_assert_str_eq(q2->u.map.where, "auction % 123 == 0");
	ck_assert_str_eq(q2->u.map.select, "auction, price");
	ck_assert_uint_eq(q2->parallelism, 2);
	ck_assert_uint_eq(q2->n_inputs, 1);
	ck_assert_uint_eq(q2->inputs[0].stage, 0);
	ck_assert_int_eq(q2->inputs[0].edge, WM_PARTITION_FORWARD);
	ck_assert_ptr_null(all->u.map.where);
	ck_assert_ptr_null(all->u.map.select);
	/* The source's records carry the events' ids, for the map. */
	ck_assert_int_eq(t->stages[0].u.source.nexmark.value,
			 WM_NEXMARK_FIELD_EVENT_ID);
	ck_assert_int_eq(t->stages[3].kind, WM_STAGE_SINK);
	ck_assert_uint_eq(t->stages[3].parallelism, 2);
	wm_topology_free(t);

	/* The schema is the source's kind's view: a person's fields. */
	t = load_ok("[source p]\ngenerator = nexmark\nnexmark.kind = person\n"
		    "[map m]\ninput = p\nwhere = state = 'OR'\n"
		    "select = id, name\n");
	wm_topology_free(t);
}
END_TEST

START_TEST(test_alert_tiers)
{
	struct wm_topology *t =
		load_ok("[job]\n"
			"alert_partition_idle = notice 5 min, severe 30 min\n"
			"alert_watermark_stalled =  critical   1 h \n"
			"[source s]\nrate = unlimited\n");
	const struct wm_alert_rule *p = &t->job.alerts[WM_ALERT_PARTITION_IDLE];
	const struct wm_alert_rule *w =
		&t->job.alerts[WM_ALERT_WATERMARK_STALLED];

	ck_assert(wm_alerts_configured(&t->job));
	ck_assert_uint_eq(p->n_tiers, 2);
	ck_assert_int_eq(p->tier[0], WM_ALERT_NOTICE);
	ck_assert_int_eq(p->after_ms[0], 5 * 60 * 1000);
	ck_assert_int_eq(p->tier[1], WM_ALERT_SEVERE);
	ck_assert_int_eq(p->after_ms[1], 30 * 60 * 1000);
	ck_assert_uint_eq(t->job.alerts[WM_ALERT_SUBTASK_IDLE].n_tiers, 0);
	ck_assert_uint_eq(w->n_tiers, 1);
	ck_assert_int_eq(w->tier[0], WM_ALERT_CRITICAL);
	ck_assert_int_eq(w->after_ms[0], 3600 * 1000);
	ck_assert_str_eq(wm_alert_tier_name(w->tier[0]), "critical");
	ck_assert_str_eq(wm_alert_kind_name(WM_ALERT_WATERMARK_STALLED),
			 "watermark_stalled");
	wm_topology_free(t);
	t = load_ok("[job]\n"
		    "alert_idle_partitions = warning 3, severe 8\n"
		    "alert_partition_stalled = notice 2 min\n"
		    "[source s]\nrate = unlimited\n");
	p = &t->job.alerts[WM_ALERT_IDLE_PARTITIONS];
	w = &t->job.alerts[WM_ALERT_PARTITION_STALLED];
	ck_assert_uint_eq(p->n_tiers, 2);
	ck_assert_int_eq(p->tier[1], WM_ALERT_SEVERE);
	ck_assert_uint_eq(p->at_least[0], 3);
	ck_assert_uint_eq(p->at_least[1], 8);
	ck_assert_uint_eq(w->n_tiers, 1);
	ck_assert_int_eq(w->after_ms[0], 2 * 60 * 1000);
	wm_topology_free(t);

	/* None unless asked for. */
	t = load_ok("[source s]\nrate = unlimited\n");
	ck_assert(!wm_alerts_configured(&t->job));
	wm_topology_free(t);
}
END_TEST

struct bad_case {
	const char *text;
	const char *error; /* the formatted error starts with this */
};

static const struct bad_case bad[] = {
	{"[source s]\nidle_timout = 30 s\n",
	 "t.conf:2:1: unrecognized key \"idle_timout\" in [source s] (did "
	 "you mean \"idle_timeout\"?)"},
	{"[source s]\nidle_timeout = 0\n",
	 "t.conf:2:16: invalid value for \"idle_timeout\" in [source s]: must "
	 "be positive"},
	{"[source s]\nparallelism = 0\n",
	 "t.conf:2:15: invalid value for \"parallelism\" in [source s]: must "
	 "be between 1 and 32768"},
	/* Checked by [job], though no window or join would use it. */
	{"[job]\npipeline.max-parallelism = 0\n[source s]\nrate = 1/s\n",
	 "t.conf:2:28: invalid value for \"pipeline.max-parallelism\" in "
	 "[job]: expected 1 to 32768"},
	{"[source s]\n[window w]\nsize = 1 min\n",
	 "t.conf:2:1: missing key \"input\" in [window w]"},
	{"[source s]\n[window w]\ninput = s\n",
	 "t.conf:2:1: missing key \"size\" in [window w]"},
	{"[source events]\n[keyby k]\ninput = event\n",
	 "t.conf:3:9: invalid value for \"input\" in [keyby k]: no stage named "
	 "\"event\" (did you mean \"events\"?)"},
	{"[source s]\n[keyby a]\ninput = b\n[keyby b]\ninput = a\n",
	 "t.conf:3:9: invalid value for \"input\" in [keyby a]: the inputs "
	 "form a cycle"},
	{"[source s]\nparallelism = 2\n[keyby k]\ninput = s\npartitioning = "
	 "forward\n",
	 "t.conf:5:16: invalid value for \"partitioning\" in [keyby k]: a "
	 "forward edge needs equal parallelism, but \"s\" has 2 and \"k\" 1"},
	{"[source s]\n[sink k]\ninput = s\n",
	 "t.conf:3:9: invalid value for \"input\" in [sink k]: a sink writes "
	 "the results of a window, a join or a map"},
	{"[source s]\n[window w]\ninput = s\nsize = 1 s\nparallelism = 2\n"
	 "[sink k]\ninput = w\nparallelism = 1\n",
	 "t.conf:8:15: invalid value for \"parallelism\" in [sink k]: a sink "
	 "is chained to its window, so it needs its parallelism (2, not 1)"},
	{"[source a]\n[source b]\n[join j]\nleft = a\nright = b\n"
	 "between = 0, 1 s\nparallelism = 2\n[sink k]\ninput = j\n"
	 "parallelism = 1\n",
	 "t.conf:10:15: invalid value for \"parallelism\" in [sink k]: a sink "
	 "is chained to its join, so it needs its parallelism (2, not 1)"},
	{"[source s]\n[window w]\ninput = s\nsize = 5 parsecs\n",
	 "t.conf:4:8: invalid value for \"size\" in [window w]: invalid "
	 "duration"},
	{"[source s]\n[windw w]\n",
	 "t.conf:2:1: unrecognized section kind \"windw\" (did you mean "
	 "\"window\"?)"},
	{"[source s]\n[sink s]\ninput = s\n",
	 "t.conf:2:1: a stage named \"s\" exists already"},
	{"[job x]\n[source s]\n", "t.conf:1:1: section [job] takes no name"},
	{"[job]\nname = j\n", "t.conf: no stages"},
	{"[job]\nflink_behaviour = released,VALVE_FLUSH\n[source s]\n",
	 "t.conf:2:19: invalid value for \"flink_behaviour\" in [job]: "
	 "unrecognized behaviour \"VALVE_FLUSH\""},
	{"[source]\n", "t.conf:1:1: section [source] needs a name"},
	{"[source s]\npartitions = 4\nsilence = 3-4\n",
	 "t.conf:3:11: invalid value for \"silence\" in [source s]: expected"},
	{"[source s]\nsilence = 1 from 2 h to 1 h\n",
	 "t.conf:2:11: invalid value for \"silence\" in [source s]: \"to\" "
	 "must come after \"from\""},
	{"[source s]\n[window w]\ninput = s\nsize = 10 s\noffset = 20 s\n",
	 "t.conf:5:10: invalid value for \"offset\" in [window w]: invalid "
	 "tumbling window offset"},
	{"[source s]\nparallelism = 4\n[window w]\ninput = s\nsize = 1 s\n"
	 "parallelism = 200\nmax_parallelism = 100\n",
	 "t.conf:7:19: invalid value for \"max_parallelism\" in [window w]: "
	 "max parallelism 100 is below the parallelism 200"},
	{"[source s]\n[window w]\ninput = s\nsize = 1 s\naggregates = count, "
	 "median\n",
	 "t.conf:5:21: invalid value for \"aggregates\" in [window w]: invalid "
	 "aggregate \"median\""},
	{"[source a]\n[source b]\n[source c]\n[window w]\ninput = a, b, c\n"
	 "size = 1 s\n",
	 "t.conf:5:9: invalid value for \"input\" in [window w]: a window "
	 "reads one or two stages"},
	{"[source s]\nrate = 1000\n",
	 "t.conf:2:8: invalid value for \"rate\" in [source s]:"},
	{"[global]\nparalelism = 2\n[source s]\n",
	 "t.conf:2:1: unrecognized key \"paralelism\" in [global] (did you "
	 "mean \"parallelism\"?)"},
	{"[source s]\nwatermark_alignment_group = g\n",
	 "t.conf:1:1: [source s]: watermark_alignment_group and "
	 "watermark_alignment_max_drift go together"},
	{"[source s]\nwatermark_alignment_max_drift = 1 s\n",
	 "t.conf:1:1: [source s]: watermark_alignment_group and"},
	{"[source s]\nwatermark_alignment_group = g\n"
	 "watermark_alignment_max_drift = 1 s\n"
	 "watermark_alignment_update_interval = 0 ms\n",
	 "t.conf:4:39: invalid value for \"watermark_alignment_update_"
	 "interval\" in [source s]: must be positive"},
	/* Random silences: the same, with words of their own. */
	{"[source s]\npartitions = 4\nsilence_random = 0-3 fraction 1 mean 1 "
	 "s\n",
	 "t.conf:3:31: invalid value for \"silence_random\" in [source s]: "
	 "invalid fraction \"1\" (expected a number above 0 and below 1, as "
	 "in 0.2)"},
	{"[source s]\npartitions = 4\nsilence_random = 0 fraction nan mean 1 "
	 "s\n",
	 "t.conf:3:29: invalid value for \"silence_random\" in [source s]: "
	 "invalid fraction \"nan\""},
	{"[source s]\npartitions = 4\nsilence_random = 0 mean 0 s fraction "
	 "0.5\n",
	 "t.conf:3:25: invalid value for \"silence_random\" in [source s]: "
	 "\"mean\" must be positive"},
	{"[source s]\npartitions = 4\nsilence_random = 0 fraction 0.5\n",
	 "t.conf:3:18: invalid value for \"silence_random\" in [source s]: "
	 "expected \"mean\" and a duration"},
	{"[source s]\npartitions = 4\nsilence_random = 2-4 fraction 0.5 mean "
	 "1 s\n",
	 "t.conf:3:18: invalid value for \"silence_random\" in [source s]: "
	 "expected partitions from 0 to 3 (the source has 4), not \"2-4\""},
	{"[source s]\npartitions = 4\nsilence_random = 0 fraction 0.5 mean 1 "
	 "s fraction 0.1\n",
	 "t.conf:3:42: invalid value for \"silence_random\" in [source s]: "
	 "\"fraction\" given twice"},
	{"[source s]\npartitions = 4\nsilence_random = 0 every 1 s\n",
	 "t.conf:3:18: invalid value for \"silence_random\" in [source s]: "
	 "expected \"FIRST[-LAST] fraction NUMBER mean DURATION\""},
	/* Punctuated watermarks and the records that carry them come
	 * together, from a generated source. */
	{"[source s]\nwatermark = punctuated\n",
	 "t.conf:2:13: invalid value for \"watermark\" in [source s]: needs "
	 "punctuate = PARTITIONS every COUNT records (or every DURATION): "
	 "without marked records a punctuated generator never emits a "
	 "watermark"},
	{"[source s]\npunctuate = 0 every 5 records\n",
	 "t.conf:2:13: invalid value for \"punctuate\" in [source s]: marks "
	 "records for watermark = punctuated, which this source does not "
	 "have (its watermark is bounded or ascending, from every record; "
	 "\"bounded, punctuated\" does both)"},
	{"[source s]\nwatermark = bounded, ascending\n",
	 "t.conf:2:13: invalid value for \"watermark\" in [source s]: combines "
	 "a periodic generator with punctuated: \"bounded, punctuated\" or "
	 "\"ascending, punctuated\""},
	{"[source s]\nwatermark = ascending, punctuated, punctuated\n",
	 "t.conf:2:36: invalid value for \"watermark\" in [source s]: combines "
	 "a periodic generator with punctuated"},
	{"[source s]\nwatermark = bounded, punctuated\n",
	 "t.conf:2:13: invalid value for \"watermark\" in [source s]: needs "
	 "punctuate = PARTITIONS every COUNT records"},
	{"[source s]\nkafka.topic = t\nkafka.bootstrap_servers = b:9092\n"
	 "watermark = punctuated\n",
	 "t.conf:4:13: invalid value for \"watermark\" in [source s]: a "
	 "punctuated watermark comes from marked records: give the values a "
	 "punctuate or watermark field (kafka.value_format = csv or json, and "
	 "the field in kafka.value_fields)"},
	{"[source s]\nkafka.topic = t\nkafka.bootstrap_servers = b:9092\n"
	 "kafka.value_format = csv\nkafka.value_fields = value, punctuate\n",
	 "t.conf:5:22: invalid value for \"kafka.value_fields\" in [source s]: "
	 "punctuate marks records for watermark = punctuated (alone or as "
	 "\"bounded, punctuated\"), which this source does not have"},
	{"[source s]\nkafka.topic = t\nkafka.bootstrap_servers = b:9092\n"
	 "kafka.value_format = json\nkafka.value_fields = value, watermark\n",
	 "t.conf:5:22: invalid value for \"kafka.value_fields\" in [source s]: "
	 "watermark carries watermarks for watermark = punctuated (alone or "
	 "as \"bounded, punctuated\"), which this source does not have"},
	{"[source s]\nkafka.topic = t\nkafka.bootstrap_servers = b:9092\n"
	 "kafka.value_format = json\n"
	 "kafka.value_fields = timestamp = $.payload[0], key, value\n",
	 "t.conf:5:44: invalid value for \"kafka.value_fields\" in [source s]: "
	 "expected a quoted name after '[' (indexes, wildcards and filters are "
	 "not read)"},
	{"[source s]\nkafka.topic = t\nkafka.bootstrap_servers = b:9092\n"
	 "kafka.value_format = json\n"
	 "kafka.value_fields = timestamp = payload.ts, key, value\n",
	 "t.conf:5:34: invalid value for \"kafka.value_fields\" in [source s]: "
	 "a path starts with $"},
	{"[source s]\nkafka.topic = t\nkafka.bootstrap_servers = b:9092\n"
	 "kafka.value_format = json\n"
	 "kafka.value_fields = timestamp = $.a b, key\n",
	 "t.conf:5:38: invalid value for \"kafka.value_fields\" in [source s]: "
	 "a JSON field is timestamp, key, value, punctuate, heartbeat or "
	 "watermark, alone or as NAME = $.path.to.it"},
	{"[source s]\nkafka.topic = t\nkafka.bootstrap_servers = b:9092\n"
	 "kafka.value_format = csv\n"
	 "kafka.value_fields = timestamp = $.ts, key, value\n",
	 "t.conf:5:32: invalid value for \"kafka.value_fields\" in [source s]: "
	 "a path (NAME = $.a.b) is for JSON values"},
	{"[source s]\npartitions = 4\nwatermark = punctuated\npunctuate = 0-2 "
	 "every 5 records\npunctuate = 2-3 every 7 records\n",
	 "t.conf:5:13: invalid value for \"punctuate\" in [source s]: "
	 "partition 2 is under an earlier punctuate already (a partition "
	 "marks its records by one rule)"},
	{"[source s]\npartitions = 4\nwatermark = punctuated\npunctuate = 0 "
	 "every 0 records\n",
	 "t.conf:4:21: invalid value for \"punctuate\" in [source s]: invalid "
	 "count \"0\" (expected a whole number from 1 to 4294967295)"},
	{"[source s]\npartitions = 4\nwatermark = punctuated\npunctuate = 0 "
	 "every 1e3 records\n",
	 "t.conf:4:21: invalid value for \"punctuate\" in [source s]: invalid "
	 "count \"1e3\" (expected a whole number from 1 to 4294967295)"},
	{"[source s]\npartitions = 4\nwatermark = punctuated\npunctuate = 0 "
	 "each 5 s\n",
	 "t.conf:4:13: invalid value for \"punctuate\" in [source s]: "
	 "expected \"FIRST[-LAST] every COUNT records | every DURATION\""},
	{"[source s]\npartitions = 4\nwatermark = punctuated\npunctuate = 0 "
	 "every 5 recs\n",
	 "t.conf:4:21: invalid value for \"punctuate\" in [source s]: invalid "
	 "duration \"5 recs\": unknown unit \"recs\" (use ms, s, min, h or "
	 "d)"},
	{"[source s]\npartitions = 4\nwatermark = punctuated\npunctuate = 0 "
	 "every 0 ms\n",
	 "t.conf:4:21: invalid value for \"punctuate\" in [source s]: a "
	 "punctuation's period must be positive"},
	{"[source s]\npartitions = 4\nwatermark = punctuated\npunctuate = 0 "
	 "every 367 d\n",
	 "t.conf:4:21: invalid value for \"punctuate\" in [source s]: a "
	 "punctuation's period is at most a year"},
	{"[source s]\npartitions = 4\nwatermark = punctuated\npunctuate = 0-1 "
	 "every 5 s\npunctuate = 1 every 3 records\n",
	 "t.conf:5:13: invalid value for \"punctuate\" in [source s]: "
	 "partition 1 is under an earlier punctuate already (a partition "
	 "marks its records by one rule)"},
	{"[source s]\npartitions = 4\nwatermark = punctuated\npunctuate = 4 "
	 "every 5 records\n",
	 "t.conf:4:13: invalid value for \"punctuate\" in [source s]: "
	 "expected partitions from 0 to 3 (the source has 4), not \"4\""},
	/* Heartbeats: a generated source's, each partition at one period. */
	{"[source s]\npartitions = 4\nheartbeat = 0-1 every 1 s\nheartbeat = "
	 "1-3 every 2 s\n",
	 "t.conf:4:13: invalid value for \"heartbeat\" in [source s]: "
	 "partition 1 is under an earlier heartbeat already (a partition "
	 "sends them at one period)"},
	{"[source s]\npartitions = 4\nheartbeat = 0 every 0 s\n",
	 "t.conf:3:21: invalid value for \"heartbeat\" in [source s]: a "
	 "heartbeat's period must be positive"},
	{"[source s]\npartitions = 4\nheartbeat = 0 every 400 d\n",
	 "t.conf:3:21: invalid value for \"heartbeat\" in [source s]: a "
	 "heartbeat's period is at most a year"},
	{"[source s]\npartitions = 4\nheartbeat = 0 every 2 years\n",
	 "t.conf:3:21: invalid value for \"heartbeat\" in [source s]: invalid "
	 "duration \"2 years\": unknown unit \"years\" (use ms, s, min, h or "
	 "d)"},
	{"[source s]\npartitions = 4\nheartbeat = 0 each 1 s\n",
	 "t.conf:3:13: invalid value for \"heartbeat\" in [source s]: "
	 "expected \"FIRST[-LAST] every DURATION\""},
	{"[source s]\npartitions = 4\nheartbeat = 2-4 every 1 s\n",
	 "t.conf:3:13: invalid value for \"heartbeat\" in [source s]: "
	 "expected partitions from 0 to 3 (the source has 4), not \"2-4\""},
	/* Skews, silences and bursts: a part wrong by itself is shown at
	 * its column, a wrong combination at the value's. */
	{"[source s]\npartitions = 4\nskew = 0-3\n",
	 "t.conf:3:11: invalid value for \"skew\" in [source s]: expected a "
	 "multiplier after the partitions, as in x10"},
	{"[source s]\npartitions = 4\nskew = 1 x0\n",
	 "t.conf:3:10: invalid value for \"skew\" in [source s]: invalid "
	 "multiplier \"x0\" (expected x and a number above 0, as in x10 or "
	 "x0.01)"},
	{"[source s]\npartitions = 4\nskew = 1 xinf\n",
	 "t.conf:3:10: invalid value for \"skew\" in [source s]: invalid "
	 "multiplier \"xinf\""},
	{"[source s]\npartitions = 4\nskew = 1 x1e999\n",
	 "t.conf:3:10: invalid value for \"skew\" in [source s]: invalid "
	 "multiplier \"x1e999\""},
	{"[source s]\npartitions = 4\nskew = 4 x2\n",
	 "t.conf:3:8: invalid value for \"skew\" in [source s]: expected "
	 "partitions from 0 to 3 (the source has 4), not \"4\""},
	{"[source s]\npartitions = 4\nskew = 1 x2 from 1 h\n",
	 "t.conf:3:13: invalid value for \"skew\" in [source s]: unexpected "
	 "\"from\" (a skew holds for the whole job; a burst holds for a "
	 "while)"},
	{"[source s]\npartitions = 4\nsilence = 1 every 10 min for 15 min\n",
	 "t.conf:3:11: invalid value for \"silence\" in [source s]: \"for\" "
	 "must be shorter than \"every\""},
	{"[source s]\npartitions = 4\nsilence = 1 every 10 min\n",
	 "t.conf:3:11: invalid value for \"silence\" in [source s]: "
	 "\"every\" needs \"for\""},
	{"[source s]\npartitions = 4\nsilence = 0 x2\n",
	 "t.conf:3:13: invalid value for \"silence\" in [source s]: "
	 "unexpected \"x2\" (expected every, for, from or to)"},
	{"[source s]\npartitions = 4\nsilence = 1 every 10 min for 1 min to 0 "
	 "s\n",
	 "t.conf:3:11: invalid value for \"silence\" in [source s]: \"to\" "
	 "must come after \"from\""},
	{"[source s]\npartitions = 4\nburst = 0 x2 every 0 s for 1 s\n",
	 "t.conf:3:20: invalid value for \"burst\" in [source s]: \"every\" "
	 "must be positive"},
	{"[source s]\npartitions = 4\nburst = 0 x2 from 1 min for 30 s to 2 "
	 "min\n",
	 "t.conf:3:9: invalid value for \"burst\" in [source s]: give "
	 "\"for\" or \"to\", not both"},
	{"[source s]\npartitions = 4\nburst = 0 x2 from 1 min from 2 min\n",
	 "t.conf:3:25: invalid value for \"burst\" in [source s]: \"from\" "
	 "given twice"},
	{"[source s]\npartitions = 4\nburst = 0 x2 for\n",
	 "t.conf:3:14: invalid value for \"burst\" in [source s]: \"for\" "
	 "needs a duration"},
	{"[source s]\npartitions = 4\nburst = 0 x2 for 5 parsecs\n",
	 "t.conf:3:18: invalid value for \"burst\" in [source s]: invalid "
	 "duration \"5 parsecs\""},
	{"[source s]\npartitions = 4\nburst = 0 x2 during 1 h\n",
	 "t.conf:3:14: invalid value for \"burst\" in [source s]: unexpected "
	 "\"during\" (expected every, for, from or to)"},
	{"[job]\nring_size = 3KiB\n[source s]\n",
	 "t.conf:2:13: invalid value for \"ring_size\" in [job]: must be a "
	 "power of two from 2048 to 268435456 bytes (32-byte cells)"},
	{"[job]\nring_size = 1GiB\n[source s]\n",
	 "t.conf:2:13: invalid value for \"ring_size\" in [job]: must be a "
	 "power of two"},
	{"[source s]\npartitions = 4\noutage = 1 x2\n",
	 "t.conf:3:12: invalid value for \"outage\" in [source s]: "
	 "unexpected \"x2\" (expected every, for, from or to)"},
	{"[job]\nalert_partition_idle = notice 5 min, sever 30 min\n"
	 "[source s]\n",
	 "t.conf:2:38: invalid value for \"alert_partition_idle\" in [job]: "
	 "invalid alert tier \"sever\""},
	{"[job]\nalert_subtask_idle = notice\n[source s]\n",
	 "t.conf:2:22: invalid value for \"alert_subtask_idle\" in [job]: "
	 "alert tier \"notice\" needs a duration, e.g. \"notice 5 min\""},
	{"[job]\nalert_subtask_idle = notice 5 parsecs\n[source s]\n",
	 "t.conf:2:29: invalid value for \"alert_subtask_idle\" in [job]: "
	 "invalid duration \"5 parsecs\""},
	{"[job]\nalert_subtask_idle = notice 0 s\n[source s]\n",
	 "t.conf:2:29: invalid value for \"alert_subtask_idle\" in [job]: "
	 "an alert's duration must be positive"},
	{"[job]\nalert_watermark_stalled = severe 1 h, notice 2 h\n"
	 "[source s]\n",
	 "t.conf:2:39: invalid value for \"alert_watermark_stalled\" in "
	 "[job]: alert tier \"notice\" comes after \"severe\": list tiers "
	 "in rising severity and duration"},
	{"[job]\nalert_watermark_stalled = notice 1 h, severe 1 h\n"
	 "[source s]\n",
	 "t.conf:2:39: invalid value for \"alert_watermark_stalled\" in "
	 "[job]: alert tier \"severe\" comes after \"notice\""},
	{"[job]\nalert_watermark_stalled = notice 1 h,, severe 2 h\n"
	 "[source s]\n",
	 "t.conf:2:38: invalid value for \"alert_watermark_stalled\" in "
	 "[job]: empty alert tier"},
	{"[job]\nalert_watermark_stalled =\n[source s]\n",
	 "t.conf:2:26: invalid value for \"alert_watermark_stalled\" in "
	 "[job]: empty alert tier"},
	{"[job]\nalert_partition_idle = notice 1 s, warning 2 s, severe 3 s, "
	 "critical 4 s, critical 5 s\n[source s]\n",
	 "t.conf:2:75: invalid value for \"alert_partition_idle\" in [job]: "
	 "more tiers than there are"},
	{"[job]\nalert_idle_partitions = warning 3 min\n[source s]\n",
	 "t.conf:2:33: invalid value for \"alert_idle_partitions\" in "
	 "[job]: invalid count \"3 min\""},
	{"[job]\nalert_idle_partitions = warning\n[source s]\n",
	 "t.conf:2:25: invalid value for \"alert_idle_partitions\" in "
	 "[job]: alert tier \"warning\" needs a count of partitions, e.g. "
	 "\"warning 3\""},
	{"[job]\nalert_idle_partitions = warning 4, severe 4\n[source s]\n",
	 "t.conf:2:36: invalid value for \"alert_idle_partitions\" in "
	 "[job]: alert tier \"severe\" comes after \"warning\": list tiers "
	 "in rising severity and count"},
	{"[job]\nalert_idle_partitions = warning 0\n[source s]\n",
	 "t.conf:2:33: invalid value for \"alert_idle_partitions\" in "
	 "[job]: an alert's count must be a positive number of partitions"},
	{"[job]\nall_idle = jump\n[source s]\n",
	 "t.conf:2:12: invalid value for \"all_idle\" in [job]: "},
	{"[source s]\nreactivation_grace = -1 s\n",
	 "t.conf:2:22: invalid value for \"reactivation_grace\" in [source "
	 "s]: "},
	{"[source s]\nwatermark_at = subtask\nreactivation_grace = 1 min\n",
	 "t.conf:3:22: invalid value for \"reactivation_grace\" in [source s]: "
	 "reactivation_grace needs watermark_at = split"},
	{"[source s]\nalert_partition_idle = notice 1 s\n",
	 "t.conf:2:1: unrecognized key \"alert_partition_idle\" in [source s]"},
	{"[source s]\npartitions = 4\nburst = 3-1 x2\n",
	 "t.conf:3:9: invalid value for \"burst\" in [source s]: expected "
	 "FIRST <= LAST, not \"3-1\""},
	{"[source s]\npartitions = 4\nburst = a x2\n",
	 "t.conf:3:9: invalid value for \"burst\" in [source s]: expected "
	 "\"FIRST[-LAST] xFACTOR [every DURATION]"},
	/* Columns count characters: the µ before is one. */
	{"[source s]\npartitions = 4\nburst = 0 x2 for 2000 \xc2\xb5s from 1 s "
	 "from 2 s\n",
	 "t.conf:3:35: invalid value for \"burst\" in [source s]: \"from\" "
	 "given twice"},
	/* A Nexmark source's records are the stream's: the other kinds'
	 * keys are refused on it, and its keys on them. */
	{"[source s]\ngenerator = nexmark\nrate = 10/s\n",
	 "t.conf:3:1: \"rate\" has no effect in [source s]: the source makes "
	 "a Nexmark stream (generator = nexmark)"},
	{"[source s]\ngenerator = nexmark\nkeys = 10\n",
	 "t.conf:3:1: \"keys\" has no effect in [source s]: the source makes "
	 "a Nexmark stream"},
	{"[source s]\ngenerator = nexmark\npacing = event\n",
	 "t.conf:3:1: \"pacing\" has no effect in [source s]: the source "
	 "makes a Nexmark stream"},
	{"[source s]\ngenerator = nexmark\nreplay = x.csv\n",
	 "t.conf:3:10: invalid value for \"replay\" in [source s]: a source "
	 "makes a Nexmark stream (generator = nexmark) or replays a trace, "
	 "not both"},
	{"[source s]\ngenerator = nexmark\nkafka.topic = t\n"
	 "kafka.bootstrap_servers = b:9092\n",
	 "t.conf:3:15: invalid value for \"kafka.topic\" in [source s]: a "
	 "source reads a Kafka topic or makes a Nexmark stream"},
	{"[source s]\nrate = 1/s\nnexmark.kind = bid\n",
	 "t.conf:3:1: \"nexmark.kind\" has no effect in [source s]: only a "
	 "Nexmark source (generator = nexmark) reads it"},
	{"[source s]\nreplay = x.csv\nnexmark.events = 5\n",
	 "t.conf:3:1: \"nexmark.events\" has no effect in [source s]: only "
	 "a Nexmark source"},
	{"[source s]\ngenerator = nexmark\nnexmark.kind = bid\n"
	 "nexmark.key = seller\n",
	 "t.conf:4:15: invalid value for \"nexmark.key\" in [source s]: a "
	 "bid has no number of that name; its numbers are 1, auction, "
	 "bidder, price, dateTime"},
	{"[source s]\ngenerator = nexmark\nnexmark.kind = person\n"
	 "nexmark.value = price\n",
	 "t.conf:4:17: invalid value for \"nexmark.value\" in [source s]: a "
	 "person has no number of that name; its numbers are 1, id, "
	 "dateTime"},
	{"[source s]\ngenerator = nexmark\nnexmark.rate = 2.5/s\n",
	 "t.conf:3:16: invalid value for \"nexmark.rate\" in [source s]: "
	 "must be a whole number of events a second"},
	{"[source s]\ngenerator = nexmark\nnexmark.rate = unlimited\n",
	 "t.conf:3:16: invalid value for \"nexmark.rate\" in [source s]: "
	 "must be a whole number of events a second"},
	{"[source s]\ngenerator = nexmark\nnexmark.events = 0\n",
	 "t.conf:3:18: invalid value for \"nexmark.events\" in [source s]: "
	 "must be between 1 and"},
	{"[source s]\ngenerator = nexmak\n",
	 "t.conf:2:13: invalid value for \"generator\" in [source s]"},
	{"[source s]\ngenerator = nexmark\n"
	 "watermark_alignment_group = g\n"
	 "watermark_alignment_max_drift = 1 s\n",
	 "t.conf:3:29: invalid value for \"watermark_alignment_group\" in "
	 "[source s]: a Nexmark source cannot be aligned"},
/* A map's texts, refused at the column in the file of what is
	 * wrong in them (the value's column plus the column in the text,
	 * past a quote), with the expression language's message. */
#define MAP_OVER_BIDS "[source b]\ngenerator = nexmark\n[map m]\ninput = b\n"
	{MAP_OVER_BIDS "where = aution > 1\n",
	 "t.conf:5:9: invalid value for \"where\" in [map m]: unknown field "
	 "\"aution\""},
	{MAP_OVER_BIDS "select = auction, bidr\n",
	 "t.conf:5:19: invalid value for \"select\" in [map m]: unknown field "
	 "\"bidr\""},
	{MAP_OVER_BIDS "where = price + 1\n",
	 "t.conf:5:9: invalid value for \"where\" in [map m]:"},
	{MAP_OVER_BIDS "where = extra > 1\n",
	 "t.conf:5:15: invalid value for \"where\" in [map m]: type mismatch"},
	{MAP_OVER_BIDS "select = auction + extra\n",
	 "t.conf:5:18: invalid value for \"select\" in [map m]: type "
	 "mismatch"},
	{MAP_OVER_BIDS "where = auction / (2 - 2) > 1\n",
	 "t.conf:5:17: invalid value for \"where\" in [map m]: division by "
	 "zero"},
	{MAP_OVER_BIDS "select = \"auction, price % 0\"\n",
	 "t.conf:5:26: invalid value for \"select\" in [map m]: modulo by "
	 "zero"},
	/* Its edges: from a Nexmark source, to sinks only, chained. */
	{"[source s]\nrate = 1/s\n[map m]\ninput = s\n",
	 "t.conf:4:9: invalid value for \"input\" in [map m]: a map reads a "
	 "source with generator = nexmark, whose events are its rows, and "
	 "\"s\" is a source of records (a key and a value)"},
	{"[source s]\nrate = 1/s\n[keyby k]\ninput = s\n[map n]\ninput = k\n",
	 "t.conf:6:9: invalid value for \"input\" in [map n]: a map reads a "
	 "source with generator = nexmark, whose events are its rows, and "
	 "\"k\" is keyby"},
	{MAP_OVER_BIDS "[window w]\ninput = m\nsize = 1 s\n",
	 "t.conf:6:9: invalid value for \"input\" in [window w]: \"m\" is a "
	 "map: a map's rows go to sinks only so far"},
	{MAP_OVER_BIDS "[window w]\ninput = b\nsize = 1 s\n",
	 "t.conf:6:9: invalid value for \"input\" in [window w]: source "
	 "\"b\" is read by map \"m\" (line 3), and a source read by a map is "
	 "read by maps alone"},
	{"[source b]\ngenerator = nexmark\n[keyby k]\ninput = b\n"
	 "[map m]\ninput = b\n",
	 "t.conf:6:9: invalid value for \"input\" in [map m]: source \"b\" "
	 "is read by keyby \"k\" (line 3)"},
	{"[source b]\ngenerator = nexmark\nparallelism = 2\n"
	 "[map m]\ninput = b\nparallelism = 3\n",
	 "t.conf:6:15: invalid value for \"parallelism\" in [map m]: a map is "
	 "chained to its source, so it needs its parallelism (2, not 3)"},
	{MAP_OVER_BIDS "partitioning = forward\n",
	 "t.conf:5:1: unrecognized key \"partitioning\" in [map m]"},
	{MAP_OVER_BIDS "[sink o]\ninput = m\nparallelism = 2\n",
	 "t.conf:7:15: invalid value for \"parallelism\" in [sink o]: a sink "
	 "is chained to its map, so it needs its parallelism (1, not 2)"},
	{"[source b]\ngenerator = nexmark\nnexmark.value = price\n"
	 "[map m]\ninput = b\n",
	 "t.conf:5:9: invalid value for \"input\" in [map m]: source \"b\" "
	 "has nexmark.value (line 3), which a source read by a map cannot "
	 "use"},
	/* Four maps on a source at most: their counters' slots. */
	{MAP_OVER_BIDS "[map m2]\ninput = b\n[map m3]\ninput = b\n"
		       "[map m4]\ninput = b\n[map m5]\ninput = b\n",
	 "t.conf:12:9: invalid value for \"input\" in [map m5]: source \"b\" "
	 "is read by 4 maps already, the most one source runs (their "
	 "counters sit in its subtasks' metrics)"},
	/* A map's sink is no checkpointed output. */
	{"[job]\ncheckpoint_interval = 1 s\ncheckpoint_dir = "
	 "ck\n" MAP_OVER_BIDS,
	 "t.conf:6:1: map \"m\": a map's sink is not exactly-once yet, and "
	 "[job] checkpoint_interval turns checkpoints on (doc/semantics.md "
	 "16.6)"},
#undef MAP_OVER_BIDS
};

#define N_BAD (sizeof(bad) / sizeof(bad[0]))

START_TEST(test_configuration_errors_name_file_line_and_key)
{
	const struct bad_case *c = &bad[_i];
	struct wm_topology *t = (struct wm_topology *)&t;
	struct wm_ini_error err;
	char msg[1024];

	ck_assert_int_eq(wm_topology_load_buffer(c->text, strlen(c->text),
						 "t.conf", &t, &err),
			 -EINVAL);
	ck_assert_ptr_null(t);
	wm_ini_error_format(&err, msg, sizeof(msg));
	ck_assert_msg(strncmp(msg, c->error, strlen(c->error)) == 0,
		      "case %d: expected \"%s...\", got \"%s\"", _i, c->error,
		      msg);
}
END_TEST

START_TEST(test_missing_file_is_not_a_configuration_error)
{
	struct wm_topology *t;
	struct wm_ini_error err;

	ck_assert_int_eq(wm_topology_load_file("/nonexistent/t.conf", &t, &err),
			 -ENOENT);
}
END_TEST

static Suite *
topology_suite(void)
{
	Suite *s = suite_create("topology");
	TCase *good = tcase_create("valid");
	TCase *errors = tcase_create("errors");

	tcase_add_test(good, test_full_topology_with_flink_defaults);
	tcase_add_test(good, test_minimal_topology_defaults);
	tcase_add_test(good, test_a_sink_takes_its_windows_parallelism);
	tcase_add_test(good, test_source_shapes);
	tcase_add_test(good, test_random_silences);
	tcase_add_test(good, test_punctuations);
	tcase_add_test(good, test_alert_tiers);
	tcase_add_test(good, test_source_kinds);
	tcase_add_test(good, test_nexmark_source);
	tcase_add_test(good, test_map_stage);
	tcase_add_loop_test(errors,
			    test_configuration_errors_name_file_line_and_key, 0,
			    (int)N_BAD);
	tcase_add_test(errors, test_missing_file_is_not_a_configuration_error);
	suite_add_tcase(s, good);
	suite_add_tcase(s, errors);
	return s;
}

int
main(void)
{
	return wm_check_main(topology_suite());
}
