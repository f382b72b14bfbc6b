/*
 * check_sink.c
 *	Unit tests of the sink's lines: trace lines (late records, a
 *	recording) and result lines (CSV, JSON lines) at their longest, every
 *	number at an end of its range and string keys that need every quote
 *	and escape, are the text printf gives, whole, across many buffers.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/countof.h"
#include "base/record.h"
#include "operators/keygroup.h"
#include "runtime/conf/topology.h"
#include "runtime/io/keys.h"
#include "runtime/io/sink.h"
#include "tests/unit/check_main.h"

/* Keys as they are interned, and as CSV and JSON print them. */
struct key_case {
	const char *text;
	const char *csv;
	const char *json;
};

/* The texts below are at most this long: 256 bytes and their quoting. */
#define KEY_TEXT 600

static char quotes[WM_KEYS_MAX_BYTES + 1], quotes_csv[KEY_TEXT],
	quotes_json[KEY_TEXT];
static char commas[WM_KEYS_MAX_BYTES + 1], commas_quoted[KEY_TEXT];
static char slashes[WM_KEYS_MAX_BYTES + 1], slashes_json[KEY_TEXT];

/* Keys of WM_KEYS_MAX_BYTES bytes each of which CSV or JSON quotes or
 * escapes, and short ones. */
static struct key_case key_cases[] = {
	{quotes, quotes_csv, quotes_json},
	{commas, commas_quoted, commas_quoted},
	{slashes, slashes, slashes_json},
	{"plain", "plain", "\"plain\""},
	{"", "", "\"\""},
	{"zürich", "zürich", "\"zürich\""},
};
#define N_KEYS (sizeof(key_cases) / sizeof(*key_cases))

static void
make_keys(void)
{
	memset(quotes, '"', WM_KEYS_MAX_BYTES);
	memset(commas, ',', WM_KEYS_MAX_BYTES);
	memset(slashes, '\\', WM_KEYS_MAX_BYTES);
	quotes_csv[0] = quotes_json[0] = commas_quoted[0] = '"';
	slashes_json[0] = '"';
	for (size_t i = 0; i < WM_KEYS_MAX_BYTES; i++) {
		memcpy(quotes_csv + 1 + 2 * i, "\"\"", 2);
		memcpy(quotes_json + 1 + 2 * i, "\\\"", 2);
		commas_quoted[1 + i] = ',';
		memcpy(slashes_json + 1 + 2 * i, "\\\\", 2);
	}
	strcpy(quotes_csv + 1 + 2 * WM_KEYS_MAX_BYTES, "\"");
	strcpy(quotes_json + 1 + 2 * WM_KEYS_MAX_BYTES, "\"");
	strcpy(commas_quoted + 1 + WM_KEYS_MAX_BYTES, "\"");
	strcpy(slashes_json + 1 + 2 * WM_KEYS_MAX_BYTES, "\"");
}

/* The dictionary of key_cases, their words in words[]. */
static struct wm_keys *
intern_keys(int64_t *words)
{
	struct wm_keys *k = wm_keys_new();
	size_t at;

	ck_assert_ptr_nonnull(k);
	make_keys();
	for (size_t i = 0; i < N_KEYS; i++)
		ck_assert_int_eq(wm_keys_intern(k, key_cases[i].text,
						strlen(key_cases[i].text),
						&words[i], &at),
				 0);
	return k;
}

static const int64_t ends[] = {
	INT64_MIN, INT64_MIN + 1, -1000000007,	 -1,	    0, 7, 99,
	100,	   1000000000000, INT64_MAX - 1, INT64_MAX,
};
#define N_ENDS (sizeof(ends) / sizeof(*ends))

/* Enough lines of up to 600 bytes to fill many buffers of any size. */
#define N_LINES 3000

/* The file at `path` holds `want` exactly; it is removed. */
static void
expect_file(const char *path, const char *want, size_t len)
{
	FILE *f = fopen(path, "r");
	char *got = malloc(len + 2);
	size_t n, at = 0;

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(got);
	n = fread(got, 1, len + 1, f);
	fclose(f);
	unlink(path);
	while (at < n && at < len && got[at] == want[at])
		at++;
	ck_assert_msg(n == len && at == len,
		      "%zu bytes written, %zu wanted; first difference at byte "
		      "%zu: \"%.40s\" for \"%.40s\"",
		      n, len, at, got + at, want + at);
	free(got);
}

/* A test's lines: the file the sink writes, the dictionary of its keys,
 * and the text printf makes of the same lines, to compare. */
struct lines_test {
	char path[32];
	int64_t words[N_KEYS];
	struct wm_keys *keys;
	char *want;
	size_t want_len;
	FILE *w;
};

static void
lines_begin(struct lines_test *t)
{
	int fd;

	strcpy(t->path, "/tmp/check_sink.XXXXXX");
	fd = mkstemp(t->path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	t->keys = intern_keys(t->words);
	t->want = NULL;
	t->want_len = 0;
	t->w = open_memstream(&t->want, &t->want_len);
	ck_assert_ptr_nonnull(t->w);
}

/* Close `sink`: its file holds what printf made. */
static void
lines_check(struct lines_test *t, struct wm_sink *sink)
{
	char err[512];

	ck_assert_msg(wm_sink_close(sink, false, err, sizeof(err)) == 0, "%s",
		      err);
	fclose(t->w);
	expect_file(t->path, t->want, t->want_len);
	free(t->want);
	wm_keys_free(t->keys);
}

/* A late record's or a recorded record's line as printf makes it, the
 * recording with every marks' column (the watermark `carried` if the
 * record carries one). */
static void
print_trace_line(FILE *want, const struct wm_record *r, const char *key,
		 bool recorded, int64_t arrival, int64_t carried)
{
	fprintf(want, "%" PRIu32 ",%" PRId64 ",%s,%" PRId64, r->partition,
		r->ts, key, r->value);
	if (recorded)
		fprintf(want, ",%" PRId64 ",%d,%d,", arrival,
			(r->flags & WM_RECORD_PUNCTUATE) != 0,
			(r->flags & WM_RECORD_HEARTBEAT) != 0);
	if (recorded && (r->flags & WM_RECORD_WATERMARK))
		fprintf(want, "%" PRId64, carried);
	fputc('\n', want);
}

/* Lines of every kind of key and every end of the range, through
 * wm_sink_late() or wm_sink_recorded(), into a file. */
static void
expect_trace_lines(bool recorded)
{
	char name[] = "s";
	struct wm_stage stage = {.kind = WM_STAGE_WINDOW, .name = name};
	struct lines_test t;
	struct wm_sink *sink;
	char err[512], key[32];
	int r;

	lines_begin(&t);
	stage.u.window.late_output = t.path;
	/* The watermark column implies those before it. */
	r = recorded ? wm_sink_open_recording(&sink, &stage, t.path, t.keys,
					      WM_TRACE_WATERMARK, err,
					      sizeof(err))
		     : wm_sink_open_late(&sink, &stage, 0, t.keys, err,
					 sizeof(err));
	ck_assert_msg(r == 0, "%s", err);
	fputs(recorded ? "partition,timestamp,key,value,arrival,punctuate,"
			 "heartbeat,watermark\n"
		       : "partition,timestamp,key,value\n",
	      t.w);
	for (unsigned i = 0; i < N_LINES; i++) {
		struct wm_record rec = {
			.ts = ends[i % N_ENDS],
			.value = ends[(i / N_ENDS) % N_ENDS],
			.partition = i % 3 == 0 ? UINT32_MAX : i,
		};
		int64_t arrival = ends[(i + 3) % N_ENDS];
		int64_t carried = ends[(i + 5) % N_ENDS];
		/* Every other line a long key, else each string in turn. */
		size_t k = (i / 2) % N_KEYS;

		if (i % 2 == 0) {
			rec.key = ends[(i / 2) % N_ENDS];
			snprintf(key, sizeof(key), "%" PRId64, rec.key);
		} else {
			rec.key = t.words[k];
			rec.flags = WM_RECORD_STRING_KEY;
		}
		/* Marks in every combination, on records of both kinds of
		 * key. */
		if (recorded)
			rec.flags |= (i / 2 % 8 & 1 ? WM_RECORD_PUNCTUATE : 0) |
				     (i / 2 % 8 & 2 ? WM_RECORD_HEARTBEAT : 0) |
				     (i / 2 % 8 & 4 ? WM_RECORD_WATERMARK : 0);
		r = recorded ? wm_sink_recorded(sink, &rec, carried, arrival)
			     : wm_sink_late(sink, &rec);
		ck_assert_int_eq(r, 0);
		print_trace_line(t.w, &rec, i % 2 ? key_cases[k].csv : key,
				 recorded, arrival, carried);
	}
	lines_check(&t, sink);
}

START_TEST(test_recorded_lines_at_their_longest_are_printfs_text)
{
	expect_trace_lines(true);
}
END_TEST

START_TEST(test_late_lines_at_their_longest_are_printfs_text)
{
	expect_trace_lines(false);
}
END_TEST

static const char *const agg_names[] = {"count", "sum", "min", "max", "avg"};

/* Plugin aggregates at their longest: four of the longest name, twice
 * the same long one (the second column gets _2) and two doubles. */
#define LONG_NAME                                                              \
	"a123456789b123456789c123456789d123456789e123456789f123456789g123"
#define DOUBLE_NAME                                                            \
	"Z123456789b123456789c123456789d123456789e123456789f123456789g12_"
_Static_assert(sizeof(LONG_NAME) - 1 == WM_PLUGIN_NAME_MAX, "the longest");
_Static_assert(sizeof(DOUBLE_NAME) - 1 == WM_PLUGIN_NAME_MAX, "the longest");

static const struct wmrun_aggregate_function long_fn = {
	.name = LONG_NAME, .result_type = WMRUN_RESULT_LONG};
static const struct wmrun_aggregate_function double_fn = {
	.name = DOUBLE_NAME, .result_type = WMRUN_RESULT_DOUBLE};
static const char *const plugin_columns[] = {LONG_NAME, LONG_NAME "_2",
					     DOUBLE_NAME, DOUBLE_NAME "_2"};

/* Doubles of every kind a plugin may give, the longest text among
 * them. */
static const double doubles[] = {-1.2345678901234567e-308,
				 0.1,
				 -0.0,
				 1e300,
				 3.0,
				 NAN,
				 INFINITY,
				 -INFINITY,
				 4.9406564584124654e-324,
				 -2.2250738585072014e-308};

/* A double as the sink must print it: printf's %.17g, and what is no
 * number as Java prints it in CSV, null in JSON. */
static void
print_double(FILE *want, bool jsonl, double v)
{
	if (isnan(v))
		fputs(jsonl ? "null" : "NaN", want);
	else if (isinf(v))
		fputs(jsonl ? "null" : v > 0 ? "Infinity" : "-Infinity", want);
	else
		fprintf(want, "%.17g", v);
}

/* A result's line as printf makes it, with every aggregate, and with the
 * subtask column unless `subtask` is negative. */
static void
print_result_line(FILE *want, bool jsonl, const char *key,
		  const struct wm_window_result *res, int64_t wm, int64_t fire,
		  int64_t subtask)
{
	const int64_t ints[] = {res->count, res->sum, res->min, res->max};

	fprintf(want, jsonl ? "{\"key\":%s" : "%s", key);
	fprintf(want,
		jsonl ? ",\"window_start\":%" PRId64 ",\"window_end\":%" PRId64
		      : ",%" PRId64 ",%" PRId64,
		res->window.start, res->window.end);
	for (unsigned a = 0; a < 4; a++)
		fprintf(want, jsonl ? ",\"%s\":%" PRId64 : ",%.0s%" PRId64,
			agg_names[a], ints[a]);
	fputs(jsonl ? ",\"avg\":" : ",", want);
	print_double(want, jsonl, wm_window_result_avg(res));
	for (unsigned a = 0; a < 4; a++) {
		if (jsonl)
			fprintf(want, ",\"%s\":", plugin_columns[a]);
		else
			fputs(",", want);
		if (a < 2)
			fprintf(want, "%" PRId64,
				res->plugin_results[a].as_long);
		else
			print_double(want, jsonl,
				     res->plugin_results[a].as_double);
	}
	fprintf(want,
		jsonl ? ",\"fire_time\":%" PRId64 ",\"watermark\":%" PRId64
			",\"late_firing\":%s"
		      : ",%" PRId64 ",%" PRId64 ",%s",
		fire, wm, res->late_firing ? "true" : "false");
	if (subtask >= 0)
		fprintf(want, jsonl ? ",\"subtask\":%" PRId64 : ",%" PRId64,
			subtask);
	fputs(jsonl ? "}\n" : "\n", want);
}

static void
expect_result_lines(bool jsonl, bool subtask_column)
{
	char sink_name[] = "out", window_name[] = "w";
	struct wm_stage sink_stage = {.name = sink_name};
	struct wm_stage window = {.name = window_name};
	struct lines_test t;
	struct wm_sink *sink;
	char err[512];
	int r;

	lines_begin(&t);
	sink_stage.u.sink.path = t.path;
	sink_stage.u.sink.format = jsonl ? WM_SINK_JSONL : WM_SINK_CSV;
	sink_stage.u.sink.subtask_column = subtask_column;
	window.u.window.aggregates = WM_AGG_COUNT | WM_AGG_SUM | WM_AGG_MIN |
				     WM_AGG_MAX | WM_AGG_AVG;
	window.u.window.op.n_plugin_aggregates = 4;
	window.u.window.op.plugin_aggregates[0].fn = &long_fn;
	window.u.window.op.plugin_aggregates[1].fn = &long_fn;
	window.u.window.op.plugin_aggregates[2].fn = &double_fn;
	window.u.window.op.plugin_aggregates[3].fn = &double_fn;
	r = wm_sink_open(&sink, &sink_stage, &window, t.keys, err, sizeof(err));
	ck_assert_msg(r == 0, "%s", err);
	if (!jsonl)
		fprintf(t.w,
			"key,window_start,window_end,count,sum,min,max,avg,"
			"%s,%s,%s,%s,fire_time,watermark,late_firing%s\n",
			plugin_columns[0], plugin_columns[1], plugin_columns[2],
			plugin_columns[3], subtask_column ? ",subtask" : "");
	for (unsigned i = 0; i < N_LINES; i++) {
		size_t k = i % N_KEYS;
		struct wm_window_result res = {
			.key = t.words[k],
			.window = {ends[i % N_ENDS], ends[(i + 1) % N_ENDS]},
			.count = i % 5 ? ends[(i + 2) % N_ENDS] : 3,
			.sum = ends[(i + 3) % N_ENDS],
			.min = ends[(i + 4) % N_ENDS],
			.max = ends[(i + 5) % N_ENDS],
			.late_firing = i % 2,
		};
		union wmrun_value plugin_results[4] = {
			{.as_long = ends[(i + 8) % N_ENDS]},
			{.as_long = ends[(i + 9) % N_ENDS]},
			{.as_double = doubles[i % N_ELEMS(doubles)]},
			{.as_double = doubles[(i + 3) % N_ELEMS(doubles)]},
		};
		int64_t wm = ends[(i + 6) % N_ENDS];
		int64_t fire = ends[(i + 7) % N_ENDS];
		/* The largest index too: its line is the longest. */
		uint32_t subtask = i % 3 ? i : UINT32_MAX;

		res.plugin_results = plugin_results;
		ck_assert_int_eq(wm_sink_result(sink, &res, wm, fire, subtask),
				 0);
		print_result_line(t.w, jsonl,
				  jsonl ? key_cases[k].json : key_cases[k].csv,
				  &res, wm, fire,
				  subtask_column ? (int64_t)subtask : -1);
	}
	lines_check(&t, sink);
}

START_TEST(test_csv_results_at_their_longest_are_printfs_text)
{
	expect_result_lines(false, false);
}
END_TEST

START_TEST(test_json_results_at_their_longest_are_printfs_text)
{
	expect_result_lines(true, false);
}
END_TEST

START_TEST(test_csv_results_with_their_subtask_are_printfs_text)
{
	expect_result_lines(false, true);
}
END_TEST

START_TEST(test_json_results_with_their_subtask_are_printfs_text)
{
	expect_result_lines(true, true);
}
END_TEST

/* A map's rows (wm_sink_row()): under their header, each row's line as
 * row_text.h writes it, whether its bound fits the buffer (made in place)
 * or not (a long string: made apart, then copied whole); a line longer
 * than one write is the sink's failure, not half a line. Expected texts
 * by hand, so that the test does not trust row_text.c to check itself. */
static void
expect_rows(bool jsonl)
{
	static const struct wm_expr_field cols[] = {
		{.name = "auction", .type = WM_EXPR_BIGINT},
		{.name = "price",
		 .type = WM_EXPR_DECIMAL,
		 .precision = 23,
		 .scale = 3},
		{.name = "extra", .type = WM_EXPR_STRING},
	};
	/* 20000 bytes: above the buffer's bound for JSON (a byte may take
	 * six there), not in fact. */
	enum { LONG = 20000, TOO_LONG = WM_SINK_FILE_BUFFER + 1 };
	char *big = malloc(TOO_LONG);
	char name[] = "o", path[32], err[512];
	struct wm_stage sink = {.kind = WM_STAGE_SINK, .name = name};
	struct wm_expr_value row[3] = {{.i = -7}, {.d = 90800}, {.s = {0}}};
	struct lines_test t;
	struct wm_sink *out;

	ck_assert_ptr_nonnull(big);
	memset(big, 'x', TOO_LONG);
	lines_begin(&t);
	strcpy(path, t.path);
	sink.u.sink.path = path;
	sink.u.sink.format = jsonl ? WM_SINK_JSONL : WM_SINK_CSV;
	ck_assert_msg(
		wm_sink_open_rows(&out, &sink, cols, 3, err, sizeof(err)) == 0,
		"%s", err);
	if (!jsonl)
		fputs("auction,price,extra\n", t.w);
	row[2].s.p = "a,\"b\"";
	row[2].s.len = 5;
	ck_assert_int_eq(wm_sink_row(out, cols, 3, row), 0);
	fputs(jsonl ? "{\"auction\":-7,\"price\":90.800,\"extra\":"
		      "\"a,\\\"b\\\"\"}\n"
		    : "-7,90.800,\"a,\"\"b\"\"\"\n",
	      t.w);
	row[2].s.p = big;
	row[2].s.len = LONG;
	ck_assert_int_eq(wm_sink_row(out, cols, 3, row), 0);
	fprintf(t.w,
		jsonl ? "{\"auction\":-7,\"price\":90.800,"
			"\"extra\":\"%.*s\"}\n"
		      : "-7,90.800,%.*s\n",
		LONG, big);
	row[2].s.len = TOO_LONG;
	ck_assert_int_eq(wm_sink_row(out, cols, 3, row), -EMSGSIZE);
	ck_assert(wm_sink_failed(out));
	/* What went before it is written; lines_check() closes the sink,
	 * which reports the failure kept. */
	ck_assert_int_ne(wm_sink_flush(out), 0);
	ck_assert_int_ne(wm_sink_close(out, false, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "sink \"o\"") != NULL, "%s", err);
	fclose(t.w);
	expect_file(t.path, t.want, t.want_len);
	free(t.want);
	wm_keys_free(t.keys);
	free(big);
}

START_TEST(test_csv_rows_are_row_texts_lines)
{
	expect_rows(false);
}
END_TEST

START_TEST(test_json_rows_are_row_texts_lines)
{
	expect_rows(true);
}
END_TEST

static Suite *
sink_suite(void)
{
	Suite *s = suite_create("sink");
	TCase *traces = tcase_create("trace_lines");
	TCase *results = tcase_create("result_lines");

	tcase_add_test(traces,
		       test_recorded_lines_at_their_longest_are_printfs_text);
	tcase_add_test(traces,
		       test_late_lines_at_their_longest_are_printfs_text);
	tcase_add_test(results,
		       test_csv_results_at_their_longest_are_printfs_text);
	tcase_add_test(results,
		       test_json_results_at_their_longest_are_printfs_text);
	tcase_add_test(results,
		       test_csv_results_with_their_subtask_are_printfs_text);
	tcase_add_test(results,
		       test_json_results_with_their_subtask_are_printfs_text);
	tcase_add_test(results, test_csv_rows_are_row_texts_lines);
	tcase_add_test(results, test_json_rows_are_row_texts_lines);
	suite_add_tcase(s, traces);
	suite_add_tcase(s, results);
	return s;
}

int
main(void)
{
	return wm_check_main(sink_suite());
}
