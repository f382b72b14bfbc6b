/*
 * writers_bench.c
 *	wmbench writers: what writing a line of JSON costs, on the two paths
 *	that write one most often: a JSON-lines sink's result line
 *	(runtime/io/sink.c, one a window result) and a --metrics line
 *	(runtime/observe/timeline.c, one a subtask or partition every
 *	sample).
 *
 * The sink's line is written by its own hand-written writer, which
 * jansson would replace if it cost less than about twice as much (doc/
 * performance.md section 9.36 says why it does not); the same line built
 * as a jansson object and dumped is measured beside it, in the same
 * repetitions:
 *
 *   sink-hand     wm_sink_result() into a JSON-lines sink on /dev/null:
 *                 a long key, both bounds, the five aggregates, fire time,
 *                 watermark, late_firing
 *   sink-jansson  the same members as jansson values, made in the
 *                 thread's arena (lib/json_arena.h, jansson's best case),
 *                 dumped with lib/json_out.h's flags into a buffer,
 *                 written to /dev/null through stdio
 *
 * and then, alone, one sample of --metrics as wmrun writes it:
 *
 *   metrics       wm_timeline_write() of a job of 64 subtasks (32 source
 *                 subtasks of two partitions each, 32 window subtasks of
 *                 32 input channels), figures per second known: 128 lines
 *                 a sample, into a memory stream as the observer writes
 *
 * Each figure is ns a line: the median, least and most over the
 * repetitions, and sink-jansson's ratio to sink-hand. A write that fails
 * stops the benchmark (70).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "base/log.h"
#include "bench/rotation.h"
#include "bench/stats.h"
#include "bench/wmbench.h"
#include "lib/json_arena.h"
#include "lib/json_out.h"
#include "runtime/io/sink.h"
#include "runtime/metrics/metrics.h"
#include "runtime/observe/snapshot.h"
#include "runtime/observe/timeline.h"
#include "runtime/plan/plan.h"

#define WRITERS_DEFAULT_LINES 200000u
#define WRITERS_DEFAULT_REPS 5u

#define SINK_JOB                                                               \
	"[job]\nname = writers\nevent_time = 1 h\n"                            \
	"[source events]\nparallelism = 32\npartitions = 64\n"                 \
	"rate = 1/s\n"                                                         \
	"[window counts]\ninput = events\nparallelism = 32\nsize = 10 s\n"     \
	"aggregates = count, sum, min, max, avg\n"                             \
	"[sink out]\ninput = counts\nparallelism = 32\npath = /dev/null\n"     \
	"format = jsonl\n"

enum { SOURCE_STAGE, WINDOW_STAGE, SINK_STAGE };

struct writers_run {
	uint64_t lines;
	struct wm_topology *topo;
	struct wm_plan *plan;
	char *blocks;
	struct wm_snapshot *before, *snap; /* a second apart */
	uint32_t lines_a_sample;
	struct wm_sink *sink;
	FILE *null; /* sink-jansson's /dev/null */
};

/* A result as a window of the job fires it: line i's. */
static struct wm_window_result
result(uint64_t i)
{
	int64_t start = 1700000000000 + (int64_t)(i % 3600) * 10000;

	return (struct wm_window_result){
		.key = (int64_t)(i % 1000),
		.window = {start, start + 10000},
		.timestamp = start + 9999,
		.count = 1234,
		.sum = 152207,
		.min = 3,
		.max = 998,
	};
}

static double
sink_hand(struct writers_run *run)
{
	uint64_t t0 = wm_stats_now_ns();

	for (uint64_t i = 0; i < run->lines; i++) {
		struct wm_window_result r = result(i);

		if (wm_sink_result(run->sink, &r, r.window.end + 2000,
				   r.window.end + 2000,
				   (uint32_t)(i % 32)) != 0) {
			wm_log("wmbench: the sink's write failed");
			return -1;
		}
	}
	if (wm_sink_flush(run->sink) != 0)
		return -1;
	return (double)(wm_stats_now_ns() - t0) / (double)run->lines;
}

/* Line i as sink-hand writes it, built as jansson values: NULL when an
 * allocation failed. */
static json_t *
result_object(uint64_t i)
{
	struct wm_window_result r = result(i);
	json_t *o = json_object();
	int failed = wm_json_put(o, "key", json_integer(r.key));

	failed |= wm_json_put(o, "window_start", json_integer(r.window.start));
	failed |= wm_json_put(o, "window_end", json_integer(r.window.end));
	failed |= wm_json_put(o, "count", json_integer(r.count));
	failed |= wm_json_put(o, "sum", json_integer(r.sum));
	failed |= wm_json_put(o, "min", json_integer(r.min));
	failed |= wm_json_put(o, "max", json_integer(r.max));
	failed |= wm_json_put(o, "avg", json_real(wm_window_result_avg(&r)));
	failed |=
		wm_json_put(o, "fire_time", json_integer(r.window.end + 2000));
	failed |=
		wm_json_put(o, "watermark", json_integer(r.window.end + 2000));
	failed |= wm_json_put(o, "late_firing", json_boolean(r.late_firing));
	return wm_json_done(o, failed);
}

static double
sink_jansson(struct writers_run *run)
{
	uint64_t t0 = wm_stats_now_ns();
	char line[512];

	for (uint64_t i = 0; i < run->lines; i++) {
		json_t *o;
		size_t len;

		wm_json_arena_open();
		o = result_object(i);
		len = o != NULL ? json_dumpb(o, line, sizeof(line) - 1,
					     WM_JSON_DUMP_FLAGS)
				: 0;
		json_decref(o);
		wm_json_arena_close();
		if (len == 0 || len >= sizeof(line) - 1) {
			wm_log("wmbench: a jansson line could not be made");
			return -1;
		}
		line[len++] = '\n';
		if (fwrite(line, len, 1, run->null) != 1)
			return -1;
	}
	if (fflush(run->null) != 0)
		return -1;
	return (double)(wm_stats_now_ns() - t0) / (double)run->lines;
}

/* Samples of the job written until at least run->lines lines were. */
static double
metrics(struct writers_run *run)
{
	uint64_t t0 = wm_stats_now_ns(), lines = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (m == NULL)
		return -1;
	while (lines < run->lines) {
		/* The observer's stream holds one sample at a time. */
		rewind(m);
		if (wm_timeline_write(m, run->topo, run->plan, run->snap, 0,
				      0) != 0) {
			wm_log("wmbench: a sample could not be written");
			fclose(m);
			free(text);
			return -1;
		}
		lines += run->lines_a_sample;
	}
	if (fclose(m) != 0)
		lines = 0;
	free(text);
	if (lines == 0)
		return -1;
	return (double)(wm_stats_now_ns() - t0) / (double)lines;
}

static const char *const sink_forms[] = {"sink-hand", "sink-jansson"};
static const char *const metrics_forms[] = {"metrics"};

static double
sink_form_run(size_t form, void *ctx)
{
	return form == 0 ? sink_hand(ctx) : sink_jansson(ctx);
}

static double
metrics_form_run(size_t form, void *ctx)
{
	(void)form;
	return metrics(ctx);
}

/* The figures of a busy job into its metrics blocks: sources of two
 * partitions, windows with all their channels, `seconds` into the run
 * (records and watermarks grow with it). */
static void
fill_blocks(struct writers_run *run, int64_t seconds)
{
	const struct wm_plan *plan = run->plan;
	wm_ts_t wm = 1700000000000 + seconds * 1000;

	for (uint32_t id = 0; id < plan->n_subtasks; id++) {
		struct wm_subtask_metrics *m =
			wm_plan_block(plan, run->blocks, id);
		uint64_t records = 1234567 + (uint64_t)seconds * 20000;

		WM_METRIC_SET(m->output.watermark, wm);
		WM_METRIC_SET(m->records_in, records);
		WM_METRIC_SET(m->records_out, records);
		WM_METRIC_SET(m->newest_event_time, wm + 1500);
		WM_METRIC_SET(m->next_record_due_ns, INT64_MAX);
		if (plan->subtasks[id].n_inputs == 0) {
			struct wm_partition_metrics *p =
				wm_plan_partitions(plan, run->blocks, id);

			WM_METRIC_SET(m->n_partitions, 2);
			for (uint32_t k = 0; k < 2; k++) {
				WM_METRIC_SET(p[k].partition,
					      2 * plan->subtasks[id].index + k);
				WM_METRIC_SET(p[k].records, records / 2);
				WM_METRIC_SET(p[k].progress.watermark, wm);
			}
			continue;
		}
		WM_METRIC_SET(m->n_channels, plan->subtasks[id].n_inputs);
		for (uint32_t c = 0; c < plan->subtasks[id].n_inputs; c++)
			WM_METRIC_SET(m->channels[c].watermark, wm + c);
	}
}

/* The job, its blocks, two samples a second apart, its sink: 0, or -1
 * with a message. */
static int
writers_open(struct writers_run *run)
{
	struct wm_ini_error ie;
	char err[512];

	if (wm_topology_load_buffer(SINK_JOB, strlen(SINK_JOB), "writers.conf",
				    &run->topo, &ie) != 0) {
		wm_log("wmbench: the benchmark's job does not load: %s",
		       ie.msg);
		return -1;
	}
	run->plan = wm_plan_new(run->topo);
	run->blocks = run->plan != NULL
			      ? calloc(1, wm_plan_metrics_bytes(run->plan))
			      : NULL;
	if (run->blocks == NULL) {
		wm_log("wmbench: out of memory");
		return -1;
	}
	fill_blocks(run, 1);
	run->before = wm_snapshot_take(run->plan, run->blocks, NULL, 1000000000,
				       1000000000);
	fill_blocks(run, 2);
	run->snap =
		run->before != NULL
			? wm_snapshot_take(run->plan, run->blocks, run->before,
					   2000000000, 2000000000)
			: NULL;
	if (run->snap == NULL) {
		wm_log("wmbench: out of memory");
		return -1;
	}
	run->lines_a_sample = run->snap->n_subtasks;
	for (uint32_t id = 0; id < run->snap->n_subtasks; id++)
		run->lines_a_sample += run->snap->subtasks[id].n_partitions;
	if (wm_sink_open(&run->sink, &run->topo->stages[SINK_STAGE],
			 &run->topo->stages[WINDOW_STAGE], NULL, err,
			 sizeof(err)) != 0) {
		wm_log("wmbench: %s", err);
		return -1;
	}
	run->null = fopen("/dev/null", "w");
	if (run->null == NULL) {
		wm_log("wmbench: could not open /dev/null: %s",
		       strerror(errno));
		return -1;
	}
	return 0;
}

static void
writers_close(struct writers_run *run)
{
	if (run->null != NULL)
		fclose(run->null);
	wm_sink_close(run->sink, false, NULL, 0);
	wm_snapshot_free(run->snap);
	wm_snapshot_free(run->before);
	free(run->blocks);
	wm_plan_free(run->plan);
	wm_topology_free(run->topo);
}

static void
writers_help(FILE *out)
{
	fprintf(out,
		"Usage: wmbench writers [--lines N] [--reps R]\n"
		"What writing a line of JSON costs: a JSON-lines sink's "
		"result line, by its\nown writer and through jansson, and a "
		"--metrics line of a job of 64 subtasks.\n"
		"  --lines N  lines a form a repetition (default %u)\n"
		"  --reps R   repetitions, each writing every form "
		"(default %u)\n"
		"Output: bench=writers form=F metric=ns_per_line median=X "
		"min=Y max=Z\n"
		"        bench=writers form=sink-jansson metric=over_hand "
		"ratio=X\n",
		WRITERS_DEFAULT_LINES, WRITERS_DEFAULT_REPS);
}

int
wm_bench_writers(int argc, char **argv)
{
	uint64_t reps = WRITERS_DEFAULT_REPS;
	struct writers_run run = {.lines = WRITERS_DEFAULT_LINES};
	struct wm_bench_rotation sink = {
		.bench = "writers",
		.key = "form",
		.names = sink_forms,
		.n = 2,
		.metric = "ns_per_line",
		.over = "over_hand",
		.run = sink_form_run,
		.ctx = &run,
	};
	struct wm_bench_rotation timeline;
	int rc;

	rc = wm_bench_rotation_options(&sink, argc, argv, "line", 1, &run.lines,
				       &reps, writers_help);
	if (rc >= 0)
		return rc;
	rc = writers_open(&run) == 0 ? 0 : EX_SOFTWARE;
	if (rc == 0)
		rc = wm_bench_rotate(&sink, reps);
	/* Alone: nothing of it is a sink's line to compare with. */
	timeline = sink;
	timeline.names = metrics_forms;
	timeline.n = 1;
	timeline.run = metrics_form_run;
	if (rc == 0)
		rc = wm_bench_rotate(&timeline, reps);
	writers_close(&run);
	return rc;
}
