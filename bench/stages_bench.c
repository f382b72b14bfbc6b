/*
 * stages_bench.c
 *	wmbench stages: what each kind of stage issue 27 added costs a
 *	record, beside the tumbling count it varies.
 *
 * The job is wmbench pipeline's at parallelism 1 (a source of 8
 * partitions at an unlimited rate over 1,024 keys -> keyBy -> a 1-minute
 * tumbling count -> a sink on /dev/null), run in one thread with its
 * frames passed by direct calls (pipeline_loop.c): the runtime's own cost
 * of a record, no transport. Each variant changes one thing:
 *
 *   tumbling      the job as it is, the baseline
 *   punctuated    watermark = punctuated, every 100th record marked
 *   punctuated-d  watermark = punctuated, a record a second of event
 *                 time marked (punctuate = ... every D)
 *   heartbeats    a heartbeat on every partition every second
 *   processing    the window on processing time (time = processing)
 *   interval-join the keyBy and window replaced by an interval join
 *                 (between = 0 ms, 1 ms) of two sources of half the
 *                 partitions each, over JOIN_KEYS keys: each record kept,
 *                 probed for partners, cleaned by a timer, and the few
 *                 pairs (about one a record) written to /dev/null
 *   window-join   the same with a window join of 1 ms tumbling windows:
 *                 each record into its window's list, each window fired
 *                 (its pairs, fewer than a record each) and cleaned
 *   quantile      the count with a plugin aggregate beside it,
 *                 plugin:quantile(0.99) of plugins/quantile.c, loaded as
 *                 wmrun:quantile: each record found again in the
 *                 accumulators' table and appended to its window's
 *                 values, the tumbling run's short way closed to it;
 *                 and each window's values sorted when it fires, at
 *                 the end
 *
 * Each repetition runs every variant, in an order that turns from one
 * repetition to the next, and reports each one's ns a record and its
 * ratio to the baseline of the same repetition (the median of those).
 * The loop's processing time is the real clock's, read once a source
 * burst: a run lasts milliseconds, in which no 1-minute window fires on
 * processing time before the end (as none does on event time, the
 * records' timestamps following the same clock) and a partition sends a
 * heartbeat at its start and hardly another. So each variant's figure is
 * what its stage costs on a record's path: a punctuated record's trip
 * the whole way and its watermark downstream, the heartbeat wrapper's
 * test of every record, a processing-time window's stamping of each.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>

#include "base/countof.h"
#include "base/log.h"
#include "bench/pipeline_internal.h"
#include "bench/rotation.h"
#include "bench/wmbench.h"
#include "runtime/conf/topology.h"

#define STAGES_DEFAULT_RECORDS 2000000u
#define STAGES_DEFAULT_REPS 5u

struct stage_variant {
	const char *name;
	const char *source; /* more keys of the [source] section */
	const char *window; /* more keys of the [window] section */
	/* The join's job instead, with this [join] pairing (NULL: none). */
	const char *join;
	/* The window's aggregates (NULL: count) and [job] plugin (NULL:
	 * none). */
	const char *aggregates;
	const char *plugin;
};

/* The interval join's keys: a record a key a millisecond or so on each
 * side at the loop's pace, so that pairs are about as many as records
 * and the figure is the join's own work, not the sink's. */
#define JOIN_KEYS 100000u

static const struct stage_variant variants[] = {
	{"tumbling", "", "", NULL, NULL, NULL},
	{"punctuated",
	 "watermark = punctuated\npunctuate = all every 100 records\n", "",
	 NULL, NULL, NULL},
	{"punctuated-d", "watermark = punctuated\npunctuate = all every 1 s\n",
	 "", NULL, NULL, NULL},
	{"heartbeats", "heartbeat = all every 1 s\n", "", NULL, NULL, NULL},
	{"processing", "", "time = processing\n", NULL, NULL, NULL},
	{"interval-join", "", "", "between = 0 ms, 1 ms\n", NULL, NULL},
	{"window-join", "", "", "window = tumbling\nsize = 1 ms\n", NULL, NULL},
	{"quantile", "", "", NULL, "count, plugin:quantile(0.99)",
	 "wmrun:quantile"},
};

/* The job of variant v, `records` records in all. */
static struct wm_topology *
stage_topology(const struct stage_variant *v, uint64_t records)
{
	struct wm_topology *t = NULL;
	struct wm_ini_error err;
	char text[2048], msg[512];
	int n = snprintf(text, sizeof(text),
			 "[job]\nname = stages-bench\nrecords = %" PRIu64
			 "\nspeed = %d\n%s%s%s"
			 "[source gen]\npartitions = %u\nrate = unlimited\n"
			 "keys = %u\nout_of_orderness = 0\n%s"
			 "[keyby route]\ninput = gen\n"
			 "[window counts]\ninput = route\ntype = tumbling\n"
			 "size = %d ms\naggregates = %s\n%s"
			 "[sink out]\ninput = counts\npath = /dev/null\n",
			 records / PIPELINE_PARTITIONS, PIPELINE_SPEED,
			 v->plugin != NULL ? "plugin = " : "",
			 v->plugin != NULL ? v->plugin : "",
			 v->plugin != NULL ? "\n" : "", PIPELINE_PARTITIONS,
			 PIPELINE_KEYS, v->source, PIPELINE_WINDOW_MS,
			 v->aggregates != NULL ? v->aggregates : "count",
			 v->window);

	if (v->join != NULL)
		n = snprintf(
			text, sizeof(text),
			"[job]\nname = stages-bench\nrecords = %" PRIu64
			"\nspeed = %d\n"
			"[source left]\npartitions = %u\nrate = unlimited\n"
			"keys = %u\nout_of_orderness = 0\n"
			"[source right]\npartitions = %u\n"
			"rate = unlimited\nkeys = %u\n"
			"out_of_orderness = 0\n"
			"[join pairs]\nleft = left\nright = right\n%s"
			"[sink out]\ninput = pairs\npath = /dev/null\n",
			records / PIPELINE_PARTITIONS, PIPELINE_SPEED,
			PIPELINE_PARTITIONS / 2, JOIN_KEYS,
			PIPELINE_PARTITIONS / 2, JOIN_KEYS, v->join);
	if (n < 0 || (size_t)n >= sizeof(text)) {
		wm_log("wmbench: stages topology too long");
		return NULL;
	}
	if (wm_topology_load_buffer(text, (size_t)n, "(stages benchmark)", &t,
				    &err) != 0) {
		wm_ini_error_format(&err, msg, sizeof(msg));
		wm_log("wmbench: %s", msg);
		return NULL;
	}
	return t;
}

/* What the variants run on: their jobs, and the records of each run. */
struct stages_run {
	struct wm_topology *topo[N_ELEMS(variants)];
	uint64_t records;
};

/* ns a record of variant v's job run once in one thread, or -1. */
static double
stage_run(size_t v, void *ctx)
{
	struct stages_run *run = ctx;
	double mrec = wm_pipeline_loop_run(run->topo[v], run->records);

	return mrec > 0 ? 1000.0 / mrec : -1;
}

static void
stages_help(FILE *out)
{
	fprintf(out,
		"Usage: wmbench stages [--records N] [--reps R]\n"
		"What a record costs in the job of wmbench pipeline at "
		"parallelism 1, run in\none thread (impl=loop), for each kind "
		"of stage beside the tumbling count:\npunctuated (every 100th "
		"record, or a record a second), heartbeats (every\npartition "
		"every second), a processing-time window, an interval join, a\n"
		"window join, a plugin aggregate (quantile).\n"
		"  --records N  records a run (default %u)\n"
		"  --reps R     repetitions, each running every variant "
		"(default %u)\n"
		"Output: bench=stages variant=V metric=ns_per_record "
		"median=X min=Y max=Z\n"
		"        bench=stages variant=V metric=over_tumbling ratio=X\n",
		STAGES_DEFAULT_RECORDS, STAGES_DEFAULT_REPS);
}

int
wm_bench_stages(int argc, char **argv)
{
	enum { NV = N_ELEMS(variants) };
	uint64_t records = STAGES_DEFAULT_RECORDS, reps = STAGES_DEFAULT_REPS;
	struct stages_run run = {.records = 0};
	const char *names[NV];
	struct wm_bench_rotation rot = {
		.bench = "stages",
		.key = "variant",
		.names = names,
		.n = NV,
		.metric = "ns_per_record",
		.over = "over_tumbling",
		.run = stage_run,
		.ctx = &run,
	};
	int rc;

	rc = wm_bench_rotation_options(&rot, argc, argv, "record",
				       PIPELINE_PARTITIONS, &records, &reps,
				       stages_help);
	if (rc >= 0)
		return rc;
	rc = 0;
	/* Whole partitions' worth: every variant reads the same records. */
	run.records = records - records % PIPELINE_PARTITIONS;
	for (size_t v = 0; v < NV; v++) {
		names[v] = variants[v].name;
		run.topo[v] = stage_topology(&variants[v], run.records);
		if (run.topo[v] == NULL) {
			rc = EX_SOFTWARE;
			goto out;
		}
	}
	rc = wm_bench_rotate(&rot, reps);
out:
	for (size_t v = 0; v < NV; v++)
		wm_topology_free(run.topo[v]);
	return rc;
}
