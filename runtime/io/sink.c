/*
 * sink.c
 *	CSV and JSON-lines writers for window results and late records.
 *
 * The JSON lines are written by hand, not through jansson as the
 * summary and --metrics are (lib/json_out.h): a result line through
 * jansson costs 4.5 times the instructions and about 5 times the time of
 * this writer (wmbench writers, doc/performance.md section 9.36), on the
 * path every window result takes. A string key is escaped by
 * lib/json_escape.h, the one hand-written JSON string escaper, which the
 * Nexmark lines share (runtime/io/nexmark_json.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/assert.h"
#include "operators/keygroup.h"
#include "lib/csv_field.h"
#include "lib/decimal.h"
#include "lib/json_escape.h"
#include "runtime/io/keys.h"
#include "runtime/io/outfile.h"
#include "runtime/io/row_text.h"
#include "runtime/io/sink.h"

/* Whole lines gathered for one destination, not yet written: at most
 * `cap` bytes, what one write of the destination takes whole (sink.h). */
struct lines {
	size_t len;
	size_t cap;
	char buf[WM_SINK_FILE_BUFFER];
};

/* What a sink writes, for messages. */
enum sink_kind {
	SINK_RESULTS,
	SINK_LATE,
	SINK_LATE_LEFT,
	SINK_LATE_RIGHT,
	SINK_RECORDING
};

static const char *const kind_names[] = {
	[SINK_RESULTS] = "sink",
	[SINK_LATE] = "late output of window",
	[SINK_LATE_LEFT] = "left late output of join",
	[SINK_LATE_RIGHT] = "right late output of join",
	[SINK_RECORDING] = "recording of source",
};

/* What late output k of `stage` is, for messages. */
static enum sink_kind
late_kind(const struct wm_stage *stage, unsigned k)
{
	if (stage->kind != WM_STAGE_JOIN)
		return SINK_LATE;
	return k == WM_JOIN_LEFT ? SINK_LATE_LEFT : SINK_LATE_RIGHT;
}

struct wm_sink {
	struct wm_outfile file;
	const char *stage; /* the stage's name, for messages */
	enum sink_kind kind;
	bool jsonl;
	bool subtask_column; /* results end with the firing subtask's index */
	/* A recording's columns after arrival (enum wm_trace_columns): the
	 * marks its source's records carry, which a replay must carry as
	 * they were (replay.h). */
	unsigned columns;
	unsigned aggregates;
	/* The window's plugin aggregates: their columns' names (the
	 * function's, NAME_2 ... for a name again) and result types. */
	unsigned n_plugins;
	char plugin_columns[WM_WINDOW_PLUGIN_AGGREGATES]
			   [WM_PLUGIN_NAME_MAX + sizeof("_4")];
	uint32_t plugin_types[WM_WINDOW_PLUGIN_AGGREGATES];
	bool pairs; /* a join's results: pairs, not windows */
	/* The job's string keys, read-only (a worker's copy is inherited):
	 * results print their key's string; NULL when the keys are longs. */
	const struct wm_keys *keys;
	size_t header_bytes; /* written at open, by the opening process */
	/* Its own lines, or for standard output the process's one buffer:
	 * sinks and late outputs that all print to stdout keep the order in
	 * which their lines were made. */
	struct lines *pending;
	/* A map's rows (wm_sink_row()): a row whose bound is above what the
	 * buffer has room for is made here first, and goes in only if its
	 * actual length fits one write; grown to the largest bound seen, so
	 * that it is allocated a few times a run, not a row. NULL: none yet. */
	char *scratch;
	size_t scratch_len;
	struct lines own;
};

static struct lines stdout_lines = {.cap = WM_SINK_BUFFER};

/* The longest key field: a string key quoted, every byte of it doubled
 * (a CSV quote) or escaped (JSON: the dictionary's keys are well-formed
 * UTF-8 with no control character, so that wm_json_escape() writes at
 * most two bytes for one, a quote or backslash escaped), or a long. */
#define KEY_MAX_BYTES WM_CSV_FIELD_MAX(WM_KEYS_MAX_BYTES)
_Static_assert(KEY_MAX_BYTES >= WM_DECIMAL_MAX, "a long fits a key field");

/* The longest result line: the key, two bounds, five aggregates, fire
 * time and watermark of at most 24 characters each (avg's "%.17g", a
 * long's 20), a subtask of 10, the names and punctuation of JSON in less
 * than 200; and the plugin aggregates, each a name, its JSON
 * punctuation and a value of at most 24. */
#define PLUGIN_COLUMN_MAX_BYTES (WM_PLUGIN_NAME_MAX + 8 + 24)
#define RESULT_MAX_BYTES                                                       \
	(512 + WM_WINDOW_PLUGIN_AGGREGATES * PLUGIN_COLUMN_MAX_BYTES +         \
	 KEY_MAX_BYTES)

/* The longest trace line (late records, a recording), but for its key:
 * partition, timestamp, value, arrival, punctuate's and heartbeat's
 * digits, a watermark, seven commas and the end. */
#define TRACE_MAX_BYTES (10 + 4 * WM_DECIMAL_MAX + 10)

_Static_assert(RESULT_MAX_BYTES <= WM_SINK_BUFFER, "a line fits one write");
_Static_assert(TRACE_MAX_BYTES + KEY_MAX_BYTES <= WM_SINK_BUFFER,
	       "a line fits one write");

/*
 * A line being written in place, at the end of its sink's buffer: the
 * bytes [start, p) so far. line_begin() made room up to `end` for the
 * longest line of its kind, so that its fields, each of a known bound
 * (a number, the key, a name), are written without a check of their own.
 * A key longer than its bound is not written but marks the line cut,
 * which line_finish() refuses rather than write half a line.
 */
struct line {
	char *start;
	char *p;
	char *end;
	bool cut;
};

/* Room for a line of at most `max` bytes, writing out the buffer first if
 * it has less: 0, or the negative errno of the first failed write. */
static int
line_begin(struct wm_sink *s, struct line *l, size_t max)
{
	struct lines *b = s->pending;

	if (s->file.error != 0)
		return -s->file.error;
	if (b->cap - b->len < max) {
		int r = wm_sink_flush(s);

		if (r != 0)
			return r;
	}
	l->start = l->p = b->buf + b->len;
	l->end = l->p + max;
	l->cut = false;
	return 0;
}

/* The line, whole, becomes part of the buffer. */
static int
line_finish(struct wm_sink *s, const struct line *l)
{
	if (l->cut)
		return -EOVERFLOW; /* cannot happen: the line is bounded */
	WM_ASSERT(l->p <= l->end);
	s->pending->len += (size_t)(l->p - l->start);
	return 0;
}

/* `len` bytes of text of a known bound (a name, punctuation). */
static void
line_text(struct line *l, const char *text, size_t len)
{
	memcpy(l->p, text, len);
	l->p += len;
}

/* A string literal's bytes, without its NUL. */
#define LINE_LITERAL(l, text) line_text(l, "" text, sizeof(text) - 1)

static void
line_i64(struct line *l, int64_t v)
{
	l->p = wm_decimal_i64(l->p, v);
}

static const char *const agg_names[] = {"count", "sum", "min", "max", "avg"};

/*
 * Key word `key` as the line's first field, at most KEY_MAX_BYTES: a
 * long in decimal, or the string it stands for as it came in, for CSV
 * as lib/csv_field.h writes a field (keys hold no CR or LF, so: quoted
 * when it holds a comma or a quote) and for JSON always quoted, a quote or backslash escaped (keys hold no control
 * characters). `string` says which; a word the dictionary does not know
 * is this process's bug, printed as its number rather than lost.
 */
static void
line_key(struct line *l, const struct wm_keys *keys, bool string, bool jsonl,
	 int64_t key)
{
	const char *s = NULL;
	size_t len = 0;

	if (string && keys != NULL)
		s = wm_keys_string(keys, key, &len);
	if (s == NULL) {
		line_i64(l, key);
		return;
	}
	if (len > WM_KEYS_MAX_BYTES) {
		l->cut = true; /* cannot happen: the dictionary refuses it */
		return;
	}
	if (jsonl) {
		*l->p++ = '"';
		l->p = wm_json_escape(l->p, s, len);
		*l->p++ = '"';
		return;
	}
	l->p = wm_csv_field(l->p, s, len);
}

int
wm_sink_flush(struct wm_sink *s)
{
	int r = wm_outfile_write(&s->file, s->pending->buf, s->pending->len);

	s->pending->len = 0;
	return r;
}

/* Whether a write of any size to `fd` goes in whole, without another
 * process's write in its middle: a regular file opened for appending
 * (outfile.h opens every regular file so), whose writes the kernel makes
 * under the file's lock, each at the end as it then is. A pipe, a device
 * or a terminal takes at most PIPE_BUF bytes whole. */
static bool
appends_whole(int fd)
{
	struct stat st;
	int flags = fcntl(fd, F_GETFL);

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flags >= 0 &&
	       (flags & O_APPEND);
}

static int
open_sink(struct wm_sink **out, const char *stage, const char *path,
	  enum sink_kind kind, bool kept, char *err, size_t errlen)
{
	struct wm_sink *s = calloc(1, sizeof(*s));
	int r;

	*out = NULL;
	if (s == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->stage = stage;
	s->kind = kind;
	s->pending = strcmp(path, "-") == 0 ? &stdout_lines : &s->own;
	r = kept ? wm_outfile_open_kept(&s->file, "output file", path, err,
					errlen)
		 : wm_outfile_open(&s->file, "output file", path, false, err,
				   errlen);
	if (r != 0) {
		free(s);
		return r;
	}
	s->own.cap = appends_whole(s->file.fd) ? WM_SINK_FILE_BUFFER
					       : WM_SINK_BUFFER;
	*out = s;
	return 0;
}

/* The header `text` (a whole line), written now (before the workers
 * start), or the error. */
static int
write_header(struct wm_sink *s, const char *text, char *err, size_t errlen)
{
	size_t len = strlen(text);
	struct line l;
	int r = len <= RESULT_MAX_BYTES ? line_begin(s, &l, len) : -EOVERFLOW;

	if (r == 0) {
		line_text(&l, text, len);
		r = line_finish(s, &l);
	}
	if (r == 0)
		r = wm_sink_flush(s);
	if (r != 0) {
		wm_sink_error(s, err, errlen);
		return r;
	}
	s->header_bytes = len;
	return 0;
}

/* A join's result line: the pair's key and timestamp (the later of its
 * two), each side's timestamp and value, when it was emitted and the
 * join's watermark then. */
#define PAIR_HEADER                                                            \
	"key,timestamp,left_timestamp,right_timestamp,left_value,"             \
	"right_value,fire_time,watermark"

/* The columns of w's plugin aggregates into s: each its function's name
 * (letters, digits and '_', checked at load), with _2, _3 ... after a
 * name the window gave before. */
static void
plugin_columns(struct wm_sink *s, const struct wm_window_config *w)
{
	s->n_plugins = w->n_plugin_aggregates;
	for (unsigned a = 0; a < s->n_plugins; a++) {
		const struct wmrun_aggregate_function *fn =
			w->plugin_aggregates[a].fn;
		unsigned again = 1;

		for (unsigned b = 0; b < a; b++)
			again += strcmp(w->plugin_aggregates[b].fn->name,
					fn->name) == 0;
		if (again == 1)
			snprintf(s->plugin_columns[a],
				 sizeof(s->plugin_columns[a]), "%s", fn->name);
		else
			snprintf(s->plugin_columns[a],
				 sizeof(s->plugin_columns[a]), "%s_%u",
				 fn->name, again);
		s->plugin_types[a] = fn->result_type;
	}
}

/* The results of window or join stage `window` for sink stage `sink`, in
 * its format, into `path`; the CSV header written if `header`. */
static int
open_results(struct wm_sink **out, const struct wm_stage *sink,
	     const struct wm_stage *window, const struct wm_keys *keys,
	     const char *path, bool header, bool kept, char *err, size_t errlen)
{
	/* 27 + 5 names of at most 6 with their commas + 41 bytes, and the
	 * plugins' columns with their commas. */
	char text[128 + WM_WINDOW_PLUGIN_AGGREGATES *
				(WM_PLUGIN_NAME_MAX + sizeof(",_4"))] =
		"key,window_start,window_end";
	struct wm_sink *s;
	int r;

	r = open_sink(&s, sink->name, path, SINK_RESULTS, kept, err, errlen);
	if (r != 0)
		return r;
	s->jsonl = sink->u.sink.format == WM_SINK_JSONL;
	s->subtask_column = sink->u.sink.subtask_column;
	s->pairs = window->kind == WM_STAGE_JOIN;
	s->aggregates = s->pairs ? 0 : window->u.window.aggregates;
	if (!s->pairs)
		plugin_columns(s, &window->u.window.op);
	s->keys = keys;
	if (header && !s->jsonl && s->pairs) {
		strcpy(text, s->subtask_column ? PAIR_HEADER ",subtask\n"
					       : PAIR_HEADER "\n");
		r = write_header(s, text, err, errlen);
		if (r != 0) {
			wm_sink_close(s, true, NULL, 0);
			return r;
		}
	} else if (header && !s->jsonl) {
		for (unsigned a = 0; a < 5; a++) {
			if (s->aggregates & (1u << a)) {
				strcat(text, ",");
				strcat(text, agg_names[a]);
			}
		}
		for (unsigned a = 0; a < s->n_plugins; a++) {
			strcat(text, ",");
			strcat(text, s->plugin_columns[a]);
		}
		strcat(text, s->subtask_column
				     ? ",fire_time,watermark,late_firing,"
				       "subtask\n"
				     : ",fire_time,watermark,late_firing\n");
		r = write_header(s, text, err, errlen);
		if (r != 0) {
			wm_sink_close(s, true, NULL, 0);
			return r;
		}
	}
	*out = s;
	return 0;
}

int
wm_sink_open(struct wm_sink **out, const struct wm_stage *sink,
	     const struct wm_stage *window, const struct wm_keys *keys,
	     char *err, size_t errlen)
{
	return open_results(out, sink, window, keys, sink->u.sink.path, true,
			    false, err, errlen);
}

int
wm_sink_open_kept(struct wm_sink **out, const struct wm_stage *sink,
		  const struct wm_stage *window, const struct wm_keys *keys,
		  char *err, size_t errlen)
{
	return open_results(out, sink, window, keys, sink->u.sink.path, false,
			    true, err, errlen);
}

int
wm_sink_open_part(struct wm_sink **out, const struct wm_stage *sink,
		  const struct wm_stage *window, const struct wm_keys *keys,
		  const char *path, char *err, size_t errlen)
{
	return open_results(out, sink, window, keys, path, false, false, err,
			    errlen);
}

/* A trace (late records, a recording) with the header line `header`
 * (NULL: none, a part), whose string keys are in `keys` (NULL: it has
 * none). */
static int
open_trace(struct wm_sink **out, const char *stage, const char *path,
	   enum sink_kind kind, const char *header, const struct wm_keys *keys,
	   bool kept, char *err, size_t errlen)
{
	struct wm_sink *s;
	int r;

	r = open_sink(&s, stage, path, kind, kept, err, errlen);
	if (r != 0)
		return r;
	s->keys = keys;
	r = header != NULL ? write_header(s, header, err, errlen) : 0;
	if (r != 0) {
		wm_sink_close(s, true, NULL, 0);
		return r;
	}
	*out = s;
	return 0;
}

int
wm_sink_open_rows(struct wm_sink **out, const struct wm_stage *sink,
		  const struct wm_expr_field *cols, size_t n, char *err,
		  size_t errlen)
{
	struct wm_sink *s;
	size_t max;
	char *text, *end;
	int r;

	r = open_sink(&s, sink->name, sink->u.sink.path, SINK_RESULTS, false,
		      err, errlen);
	if (r != 0 || sink->u.sink.format == WM_SINK_JSONL) {
		if (r == 0) {
			s->jsonl = true;
			*out = s;
		}
		return r;
	}
	max = wm_row_text_max(cols, n, NULL, false);
	text = malloc(max + 1);
	if (text == NULL) {
		wm_sink_close(s, true, NULL, 0);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	end = wm_row_csv_header(text, cols, n);
	*end = '\0';
	r = write_header(s, text, err, errlen);
	free(text);
	if (r != 0) {
		wm_sink_close(s, true, NULL, 0);
		return r;
	}
	*out = s;
	return 0;
}

/* The row's line of at most `max` bytes made into s's scratch, grown to
 * hold it: its end, or NULL (ENOMEM). */
static char *
row_in_scratch(struct wm_sink *s, const struct wm_expr_field *cols, size_t n,
	       const struct wm_expr_value *row, size_t max)
{
	if (s->scratch_len < max) {
		char *p = realloc(s->scratch, max);

		if (p == NULL)
			return NULL;
		s->scratch = p;
		s->scratch_len = max;
	}
	return s->jsonl ? wm_row_json(s->scratch, cols, n, row)
			: wm_row_csv(s->scratch, cols, n, row);
}

int
wm_sink_row(struct wm_sink *s, const struct wm_expr_field *cols, size_t n,
	    const struct wm_expr_value *row)
{
	size_t max = wm_row_text_max(cols, n, row, s->jsonl);
	struct line l;
	char *end;
	int r;

	if (s->file.error != 0)
		return -s->file.error;
	/* The common case: the bound fits a write, and the line is made in
	 * place. */
	if (max <= s->pending->cap) {
		if ((r = line_begin(s, &l, max)) != 0)
			return r;
		l.p = s->jsonl ? wm_row_json(l.p, cols, n, row)
			       : wm_row_csv(l.p, cols, n, row);
		return line_finish(s, &l);
	}
	end = row_in_scratch(s, cols, n, row, max);
	if (end == NULL) {
		s->file.error = ENOMEM;
		return -ENOMEM;
	}
	/* A line longer than one write could interleave with another
	 * process's: it stops the job, named, rather than mix or vanish;
	 * the whole lines before it are written first. */
	if ((size_t)(end - s->scratch) > s->pending->cap) {
		if ((r = wm_sink_flush(s)) != 0)
			return r;
		s->file.error = EMSGSIZE;
		return -EMSGSIZE;
	}
	if ((r = line_begin(s, &l, (size_t)(end - s->scratch))) != 0)
		return r;
	line_text(&l, s->scratch, (size_t)(end - s->scratch));
	return line_finish(s, &l);
}

int
wm_sink_open_late(struct wm_sink **out, const struct wm_stage *stage,
		  unsigned k, const struct wm_keys *keys, char *err,
		  size_t errlen)
{
	return open_trace(out, stage->name, wm_stage_late_output(stage, k),
			  late_kind(stage, k),
			  "partition,timestamp,key,value\n", keys, false, err,
			  errlen);
}

int
wm_sink_open_late_kept(struct wm_sink **out, const struct wm_stage *stage,
		       unsigned k, const struct wm_keys *keys, char *err,
		       size_t errlen)
{
	return open_trace(out, stage->name, wm_stage_late_output(stage, k),
			  late_kind(stage, k), NULL, keys, true, err, errlen);
}

int
wm_sink_open_late_part(struct wm_sink **out, const struct wm_stage *stage,
		       unsigned k, const struct wm_keys *keys, const char *path,
		       char *err, size_t errlen)
{
	return open_trace(out, stage->name, path, late_kind(stage, k), NULL,
			  keys, false, err, errlen);
}

const char *
wm_trace_header(unsigned columns)
{
	if (columns & WM_TRACE_WATERMARK)
		return "partition,timestamp,key,value,arrival,punctuate,"
		       "heartbeat,watermark\n";
	if (columns & WM_TRACE_HEARTBEAT)
		return "partition,timestamp,key,value,arrival,punctuate,"
		       "heartbeat\n";
	if (columns & WM_TRACE_PUNCTUATE)
		return "partition,timestamp,key,value,arrival,punctuate\n";
	return "partition,timestamp,key,value,arrival\n";
}

int
wm_sink_open_recording(struct wm_sink **out, const struct wm_stage *source,
		       const char *path, const struct wm_keys *keys,
		       unsigned columns, char *err, size_t errlen)
{
	int r;

	/* In order, each implying those before it (0s, or empty watermarks,
	 * where the source marks no record). */
	columns = wm_trace_columns_written(columns);
	r = open_trace(out, source->name, path, SINK_RECORDING,
		       wm_trace_header(columns), keys, false, err, errlen);
	if (r == 0)
		(*out)->columns = columns;
	return r;
}

/* A double to 17 significant digits, the double exactly in at most 24
 * characters ("-1.2345678901234567e-308"); one that is no number as
 * Java prints it in CSV (NaN, Infinity), and as null in JSON, which has
 * no such numbers. */
static void
line_double(struct line *l, bool jsonl, double v)
{
	char text[32];
	int n;

	if (isnan(v) || isinf(v)) {
		if (jsonl)
			LINE_LITERAL(l, "null");
		else if (isnan(v))
			LINE_LITERAL(l, "NaN");
		else if (v > 0)
			LINE_LITERAL(l, "Infinity");
		else
			LINE_LITERAL(l, "-Infinity");
		return;
	}
	n = snprintf(text, sizeof(text), "%.17g", v);
	if (n > 0 && (size_t)n < sizeof(text))
		line_text(l, text, (size_t)n);
	else
		l->cut = true; /* cannot happen */
}

/* A JSON member's name and colon before each field, or a CSV comma. */
static void
line_field(struct line *l, bool jsonl, const char *name)
{
	if (jsonl) {
		LINE_LITERAL(l, ",\"");
		line_text(l, name, strlen(name));
		LINE_LITERAL(l, "\":");
	} else {
		LINE_LITERAL(l, ",");
	}
}

/* Room for a result line (a window's or a pair), and its key: 0, or the
 * negative errno of the first failed write. */
static int
result_begin(struct wm_sink *s, struct line *l, int64_t key)
{
	int e = line_begin(s, l, RESULT_MAX_BYTES);

	if (e != 0)
		return e;
	if (s->jsonl)
		LINE_LITERAL(l, "{\"key\":");
	line_key(l, s->keys, s->keys != NULL, s->jsonl, key);
	return 0;
}

/* A result line's end: the subtask column if the sink has it, the line
 * whole into the buffer. */
static int
result_end(struct wm_sink *s, struct line *l, uint32_t subtask)
{
	if (s->subtask_column) {
		line_field(l, s->jsonl, "subtask");
		l->p = wm_decimal_u64(l->p, subtask);
	}
	if (s->jsonl)
		LINE_LITERAL(l, "}");
	LINE_LITERAL(l, "\n");
	return line_finish(s, l);
}

int
wm_sink_result(struct wm_sink *s, const struct wm_window_result *r,
	       wm_ts_t watermark, int64_t fire_time_ms, uint32_t subtask)
{
	const int64_t ints[4] = {r->count, r->sum, r->min, r->max};
	struct line l;
	int e = result_begin(s, &l, r->key);

	if (e != 0)
		return e;
	line_field(&l, s->jsonl, "window_start");
	line_i64(&l, r->window.start);
	line_field(&l, s->jsonl, "window_end");
	line_i64(&l, r->window.end);
	for (unsigned a = 0; a < 5; a++) {
		if (!(s->aggregates & (1u << a)))
			continue;
		line_field(&l, s->jsonl, agg_names[a]);
		if (a < 4)
			line_i64(&l, ints[a]);
		else
			line_double(&l, s->jsonl, wm_window_result_avg(r));
	}
	for (unsigned a = 0; a < s->n_plugins; a++) {
		line_field(&l, s->jsonl, s->plugin_columns[a]);
		if (s->plugin_types[a] == WMRUN_RESULT_DOUBLE)
			line_double(&l, s->jsonl,
				    r->plugin_results[a].as_double);
		else
			line_i64(&l, r->plugin_results[a].as_long);
	}
	line_field(&l, s->jsonl, "fire_time");
	line_i64(&l, fire_time_ms);
	line_field(&l, s->jsonl, "watermark");
	line_i64(&l, watermark);
	line_field(&l, s->jsonl, "late_firing");
	if (r->late_firing)
		LINE_LITERAL(&l, "true");
	else
		LINE_LITERAL(&l, "false");
	return result_end(s, &l, subtask);
}

int
wm_sink_pair(struct wm_sink *s, const struct wm_join_result *r,
	     wm_ts_t watermark, int64_t fire_time_ms, uint32_t subtask)
{
	struct line l;
	int e = result_begin(s, &l, r->key);

	if (e != 0)
		return e;
	line_field(&l, s->jsonl, "timestamp");
	line_i64(&l, r->timestamp);
	line_field(&l, s->jsonl, "left_timestamp");
	line_i64(&l, r->left_ts);
	line_field(&l, s->jsonl, "right_timestamp");
	line_i64(&l, r->right_ts);
	line_field(&l, s->jsonl, "left_value");
	line_i64(&l, r->left_value);
	line_field(&l, s->jsonl, "right_value");
	line_i64(&l, r->right_value);
	line_field(&l, s->jsonl, "fire_time");
	line_i64(&l, fire_time_ms);
	line_field(&l, s->jsonl, "watermark");
	line_i64(&l, watermark);
	return result_end(s, &l, subtask);
}

/*
 * Room for a trace line of record `r` and its first four fields,
 * "partition,timestamp,key,value": a late record's whole line, a
 * recorded one's but for its arrival. The room is the longest line with
 * this record's kind of key: a long key's line is short, so that the
 * buffer is written only when it is close to full.
 */
static int
trace_begin(struct wm_sink *s, struct line *l, const struct wm_record *r)
{
	bool string = r->flags & WM_RECORD_STRING_KEY;
	int e = line_begin(s, l,
			   TRACE_MAX_BYTES +
				   (string ? KEY_MAX_BYTES : WM_DECIMAL_MAX));

	if (e != 0)
		return e;
	l->p = wm_decimal_u64(l->p, r->partition);
	*l->p++ = ',';
	line_i64(l, r->ts);
	*l->p++ = ',';
	if (string)
		line_key(l, s->keys, true, false, r->key);
	else
		line_i64(l, r->key); /* a generator's: no look-up, no call */
	*l->p++ = ',';
	line_i64(l, r->value);
	return 0;
}

int
wm_sink_late(struct wm_sink *s, const struct wm_record *r)
{
	struct line l;
	int e = trace_begin(s, &l, r);

	if (e != 0)
		return e;
	*l.p++ = '\n';
	return line_finish(s, &l);
}

int
wm_sink_recorded(struct wm_sink *s, const struct wm_record *r, wm_ts_t carried,
		 int64_t arrival_ms)
{
	struct line l;
	int e = trace_begin(s, &l, r);

	if (e != 0)
		return e;
	*l.p++ = ',';
	line_i64(&l, arrival_ms);
	if (s->columns & WM_TRACE_PUNCTUATE) {
		*l.p++ = ',';
		*l.p++ = r->flags & WM_RECORD_PUNCTUATE ? '1' : '0';
	}
	if (s->columns & WM_TRACE_HEARTBEAT) {
		*l.p++ = ',';
		*l.p++ = r->flags & WM_RECORD_HEARTBEAT ? '1' : '0';
	}
	if (s->columns & WM_TRACE_WATERMARK) {
		*l.p++ = ',';
		if (r->flags & WM_RECORD_WATERMARK)
			line_i64(&l, carried);
	}
	*l.p++ = '\n';
	return line_finish(s, &l);
}

bool
wm_sink_failed(const struct wm_sink *s)
{
	return s->file.error != 0;
}

const char *
wm_sink_error(const struct wm_sink *s, char *buf, size_t len)
{
	char name[PATH_MAX + 3];

	snprintf(buf, len, "could not write to %s (%s \"%s\"): %s",
		 wm_outfile_name(&s->file, name, sizeof(name)),
		 kind_names[s->kind], s->stage,
		 strerror(s->file.error ? s->file.error : EIO));
	return buf;
}

bool
wm_sink_is_file(const struct wm_sink *s)
{
	struct stat st;

	return s->file.fd != STDOUT_FILENO && fstat(s->file.fd, &st) == 0 &&
	       S_ISREG(st.st_mode);
}

int
wm_sink_fd(const struct wm_sink *s)
{
	return s->file.fd;
}

/* "could not seal part "P" (sink "out"): reason", -e. */
static int
seal_failed(const struct wm_sink *s, const char *path, int e, char *err,
	    size_t errlen)
{
	snprintf(err, errlen, "could not seal part \"%s\" (%s \"%s\"): %s",
		 path, kind_names[s->kind], s->stage, strerror(-e));
	return e;
}

int
wm_sink_seal(struct wm_sink *s, const char *next, uint64_t *bytes, char *err,
	     size_t errlen)
{
	struct wm_outfile part;
	char dir[PATH_MAX], why[PATH_MAX + 256];
	int r;

	*bytes = 0;
	WM_ASSERT(s->file.path != NULL && s->pending == &s->own);
	/* Durable, its name too, before the checkpoint that lists it. */
	r = wm_sink_flush(s);
	if (r != 0) {
		wm_sink_error(s, err, errlen);
		return r;
	}
	r = wm_outfile_sync(&s->file);
	if (r == 0)
		r = wm_outfile_sync_dir(
			wm_outfile_dir_of(s->file.target, dir, sizeof(dir)),
			err, errlen);
	if (r != 0)
		return seal_failed(s, s->file.path, r, err, errlen);
	*bytes = (uint64_t)wm_outfile_size(&s->file);
	/* The next part opened before this one is closed: a failure leaves
	 * the sink with a file, for wm_sink_close(). */
	if (next != NULL) {
		r = wm_outfile_open(&part, "output file", next, false, err,
				    errlen);
		if (r != 0)
			return r;
	}
	r = wm_outfile_close(&s->file, true, why, sizeof(why));
	if (next != NULL)
		s->file = part;
	if (r != 0) {
		snprintf(err, errlen, "%s (%s \"%s\")", why,
			 kind_names[s->kind], s->stage);
		return r;
	}
	return 0;
}

int
wm_sink_close(struct wm_sink *s, bool job_failed, char *err, size_t errlen)
{
	char why[256];
	int r, c;

	if (s == NULL)
		return 0;
	if (s->file.path == NULL) { /* sealed for good */
		free(s);
		return 0;
	}
	r = wm_sink_flush(s);
	if (r != 0 && err != NULL)
		wm_sink_error(s, err, errlen);
	/* Results went in if the file grew past its header; a stream keeps
	 * what it was given either way. */
	free(s->scratch);
	c = wm_outfile_close(&s->file,
			     !job_failed || wm_outfile_size(&s->file) >
						    (off_t)s->header_bytes,
			     why, sizeof(why));
	if (c != 0 && r == 0) {
		r = c;
		if (err != NULL)
			snprintf(err, errlen, "%s (%s \"%s\")", why,
				 kind_names[s->kind], s->stage);
	}
	free(s);
	return r;
}
