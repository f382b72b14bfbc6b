/*
 * fields_bench.c
 *	wmbench fields: what reading a record's fields from a line costs,
 *	JSON beside CSV (runtime/source/record_fields.h).
 *
 * The line is one a Kafka value or a replayed trace carries: a
 * timestamp, a string key and a value, parsed by wm_fields_parse() as a
 * source parses it (its key left for wm_fields_key(), which does not
 * depend on the format and is not measured). Three forms of the same
 * record:
 *
 *   csv          1700000000123,user48,3
 *   json         {"timestamp":1700000000123,"key":"user48","value":3}
 *   json-nested  the fields at paths ($.payload.ts, $.payload.v) in a
 *                value that also holds an array, a decimal and an object
 *                nobody reads: what producers write
 *
 * CSV is the reference: a hand-written pass over plain integers, which
 * JSON cannot match, so the figure to watch is JSON's ratio to it.
 * Each repetition parses the line `lines` times in every form, in an
 * order that turns from one repetition to the next, and reports each
 * form's ns a line and its ratio to CSV in the same repetition (the
 * median of those). A line that does not give its three fields stops
 * the benchmark (70).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "base/countof.h"
#include "base/log.h"
#include "bench/rotation.h"
#include "bench/stats.h"
#include "bench/wmbench.h"
#include "lib/json_path.h"
#include "runtime/source/record_fields.h"

#define FIELDS_DEFAULT_LINES 1000000u
#define FIELDS_DEFAULT_REPS 5u

struct fields_form {
	const char *name;
	const char *line;
	bool json;
	/* The timestamp's and the value's paths (NULL: their names at the
	 * top level). */
	const char *ts_path, *value_path;
};

static const struct fields_form forms[] = {
	{"csv", "1700000000123,user48,3", false, NULL, NULL},
	{"json", "{\"timestamp\":1700000000123,\"key\":\"user48\",\"value\":3}",
	 true, NULL, NULL},
	{"json-nested",
	 "{\"payload\":{\"ts\":1700000000123,\"v\":3,\"tags\":[\"a\",\"b\"]},"
	 "\"key\":\"user48\",\"score\":0.25,\"meta\":{\"src\":\"web\"}}",
	 true, "$.payload.ts", "$.payload.v"},
};

static const char *const field_names[] = {"timestamp", "key", "value"};
static const enum wm_field_kind field_kinds[] = {WM_FIELD_INT, WM_FIELD_KEY,
						 WM_FIELD_INT};

/* The paths of form f into paths[] (by field): 0, or -1 with a message. */
static int
form_paths(const struct fields_form *f, struct wm_json_path paths[3])
{
	const char *text[3] = {f->ts_path, NULL, f->value_path};

	for (size_t i = 0; i < 3; i++) {
		size_t used, at;
		const char *why;

		if (text[i] == NULL)
			continue;
		if (wm_json_path_parse(text[i], strlen(text[i]), &paths[i],
				       &used, &at, &why) != 0) {
			wm_log("wmbench: invalid path \"%s\"", text[i]);
			return -1;
		}
	}
	return 0;
}

/* What the forms are parsed with: their layouts, and the lines of each
 * measurement. */
struct fields_run {
	struct wm_json_path paths[N_ELEMS(forms)][3];
	struct wm_field_layout layouts[N_ELEMS(forms)];
	uint64_t lines;
};

/* ns a line of parsing form f `lines` times, or -1 if a line did not give
 * its three fields. */
static double
form_run(size_t form, void *ctx)
{
	const struct fields_run *run = ctx;
	const struct fields_form *f = &forms[form];
	size_t len = strlen(f->line);
	struct wm_key_field kf;
	int64_t fld[3];
	char err[256];
	uint64_t t0 = wm_stats_now_ns(), sum = 0;

	for (uint64_t i = 0; i < run->lines; i++) {
		if (wm_fields_parse(f->line, len, f->json, &run->layouts[form],
				    fld, &kf, NULL, err, sizeof(err)) != 3) {
			wm_log("wmbench: %s line refused: %s", f->name, err);
			return -1;
		}
		sum += (uint64_t)fld[0] + (uint64_t)fld[2];
	}
	/* Uses the fields, so that the loop is not optimized away. */
	if (sum != run->lines * (1700000000123u + 3u))
		return -1;
	return (double)(wm_stats_now_ns() - t0) / (double)run->lines;
}

static void
fields_help(FILE *out)
{
	fprintf(out,
		"Usage: wmbench fields [--lines N] [--reps R]\n"
		"What parsing a record's fields from a line costs: one line "
		"as CSV, as flat\nJSON and as JSON with the fields nested "
		"among members nobody reads.\n"
		"  --lines N  lines a form a repetition (default %u)\n"
		"  --reps R   repetitions, each parsing every form "
		"(default %u)\n"
		"Output: bench=fields form=F metric=ns_per_line median=X "
		"min=Y max=Z\n"
		"        bench=fields form=F metric=over_csv ratio=X\n",
		FIELDS_DEFAULT_LINES, FIELDS_DEFAULT_REPS);
}

int
wm_bench_fields(int argc, char **argv)
{
	enum { NF = N_ELEMS(forms) };
	uint64_t reps = FIELDS_DEFAULT_REPS;
	struct fields_run run = {.lines = FIELDS_DEFAULT_LINES};
	const char *names[NF];
	struct wm_bench_rotation rot = {
		.bench = "fields",
		.key = "form",
		.names = names,
		.n = NF,
		.metric = "ns_per_line",
		.over = "over_csv",
		.run = form_run,
		.ctx = &run,
	};
	int rc;

	rc = wm_bench_rotation_options(&rot, argc, argv, "line", 1, &run.lines,
				       &reps, fields_help);
	if (rc >= 0)
		return rc;
	rc = 0;
	memset(run.paths, 0, sizeof(run.paths));
	for (size_t f = 0; f < NF; f++) {
		names[f] = forms[f].name;
		run.layouts[f] = (struct wm_field_layout){
			.n = 3,
			.names = field_names,
			.kinds = field_kinds,
			.paths = run.paths[f],
			.required = 3,
		};
		if (form_paths(&forms[f], run.paths[f]) < 0) {
			rc = EX_SOFTWARE;
			goto out;
		}
	}
	rc = wm_bench_rotate(&rot, reps);
out:
	for (size_t f = 0; f < NF; f++)
		for (size_t i = 0; i < 3; i++)
			wm_json_path_free(&run.paths[f][i]);
	return rc;
}
