/*
 * sink.c
 *	CSV and JSON-lines writers for window results and late records.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/keygroup.h"
#include "runtime/io/keys.h"
#include "runtime/io/outfile.h"
#include "runtime/io/sink.h"

/* Whole lines gathered for one destination, not yet written. */
struct lines {
	size_t len;
	char buf[WM_SINK_BUFFER];
};

/* What a sink writes, for messages. */
enum sink_kind { SINK_RESULTS, SINK_LATE, SINK_RECORDING };

static const char *const kind_names[] = {
	[SINK_RESULTS] = "sink",
	[SINK_LATE] = "late output of window",
	[SINK_RECORDING] = "recording of source",
};

struct wm_sink {
	struct wm_outfile file;
	const char *stage; /* the stage's name, for messages */
	enum sink_kind kind;
	bool jsonl;
	unsigned aggregates;
	/* The job's string keys, read-only (a worker's copy is inherited):
	 * results print their key's string; NULL when the keys are longs. */
	const struct wm_keys *keys;
	size_t header_bytes; /* written at open, by the opening process */
	/* Its own lines, or for standard output the process's one buffer:
	 * sinks and late outputs that all print to stdout keep the order in
	 * which their lines were made. */
	struct lines *pending;
	struct lines own;
};

static struct lines stdout_lines;

/* The longest line: a string key quoted (every byte of it doubled, two
 * quotes), two bounds, five aggregates, fire time and watermark of 20
 * characters each, names and punctuation. */
#define LINE_MAX_BYTES (512 + 2 * WM_KEYS_MAX_BYTES + 2)
_Static_assert(LINE_MAX_BYTES <= WM_SINK_BUFFER, "a line fits one write");

struct line {
	size_t n;
	char text[LINE_MAX_BYTES];
};

static void line_add(struct line *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
line_add(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->n >= sizeof(l->text))
		return; /* already cut: append() refuses the line */
	va_start(ap, fmt);
	n = vsnprintf(l->text + l->n, sizeof(l->text) - l->n, fmt, ap);
	va_end(ap);
	/* Bounded by construction (LINE_MAX_BYTES); a cut line would be
	 * silent loss, so count what was asked and let append refuse it. */
	if (n > 0)
		l->n += (size_t)n;
}

static const char *const agg_names[] = {"count", "sum", "min", "max", "avg"};

/*
 * Key word `key` as the line's first field: a long in decimal, or the
 * string it stands for as it came in, for CSV quoted when it holds a
 * comma or a quote (RFC 4180, a quote doubled) and for JSON always, a
 * quote or backslash escaped (keys hold no control characters). `string`
 * says which; a word the dictionary does not know is this process's bug,
 * printed as its number rather than lost.
 */
static void
line_key(struct line *l, const struct wm_keys *keys, bool string, bool jsonl,
	 int64_t key)
{
	const char *s = NULL;
	size_t len = 0;
	bool quote;

	if (string && keys != NULL)
		s = wm_keys_string(keys, key, &len);
	if (s == NULL) {
		line_add(l, "%" PRId64, key);
		return;
	}
	quote = jsonl || memchr(s, ',', len) != NULL ||
		memchr(s, '"', len) != NULL;
	if (quote)
		line_add(l, "\"");
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			line_add(l, jsonl ? "\\\"" : "\"\"");
		else if (s[i] == '\\' && jsonl)
			line_add(l, "\\\\");
		else
			line_add(l, "%c", s[i]);
	}
	if (quote)
		line_add(l, "\"");
}

int
wm_sink_flush(struct wm_sink *s)
{
	int r = wm_outfile_write(&s->file, s->pending->buf, s->pending->len);

	s->pending->len = 0;
	return r;
}

/* A whole line into the buffer, writing the buffer first if the line
 * does not fit. */
static int
append(struct wm_sink *s, const struct line *l)
{
	if (l->n >= sizeof(l->text))
		return -EOVERFLOW; /* cannot happen: the line is bounded */
	if (s->file.error != 0)
		return -s->file.error;
	if (s->pending->len + l->n > sizeof(s->pending->buf)) {
		int r = wm_sink_flush(s);

		if (r != 0)
			return r;
	}
	memcpy(s->pending->buf + s->pending->len, l->text, l->n);
	s->pending->len += l->n;
	return 0;
}

static int
open_sink(struct wm_sink **out, const char *stage, const char *path,
	  enum sink_kind kind, char *err, size_t errlen)
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
	r = wm_outfile_open(&s->file, "output file", path, false, err, errlen);
	if (r != 0) {
		free(s);
		return r;
	}
	*out = s;
	return 0;
}

/* The header, written now (before the workers start), or the error. */
static int
write_header(struct wm_sink *s, const struct line *l, char *err, size_t errlen)
{
	int r = append(s, l);

	if (r == 0)
		r = wm_sink_flush(s);
	if (r != 0) {
		wm_sink_error(s, err, errlen);
		return r;
	}
	s->header_bytes = l->n;
	return 0;
}

int
wm_sink_open(struct wm_sink **out, const struct wm_stage *sink,
	     const struct wm_stage *window, const struct wm_keys *keys,
	     char *err, size_t errlen)
{
	struct wm_sink *s;
	struct line l = {0};
	int r;

	r = open_sink(&s, sink->name, sink->u.sink.path, SINK_RESULTS, err,
		      errlen);
	if (r != 0)
		return r;
	s->jsonl = sink->u.sink.format == WM_SINK_JSONL;
	s->aggregates = window->u.window.aggregates;
	s->keys = keys;
	if (!s->jsonl) {
		line_add(&l, "key,window_start,window_end");
		for (unsigned a = 0; a < 5; a++)
			if (s->aggregates & (1u << a))
				line_add(&l, ",%s", agg_names[a]);
		line_add(&l, ",fire_time,watermark,late_firing\n");
		r = write_header(s, &l, err, errlen);
		if (r != 0) {
			wm_sink_close(s, true, NULL, 0);
			return r;
		}
	}
	*out = s;
	return 0;
}

/* A trace (late records, a recording) with the header `header`, whose
 * string keys are in `keys` (NULL: it has none). */
static int
open_trace(struct wm_sink **out, const char *stage, const char *path,
	   enum sink_kind kind, const char *header, const struct wm_keys *keys,
	   char *err, size_t errlen)
{
	struct wm_sink *s;
	struct line l = {0};
	int r;

	r = open_sink(&s, stage, path, kind, err, errlen);
	if (r != 0)
		return r;
	s->keys = keys;
	line_add(&l, "%s\n", header);
	r = write_header(s, &l, err, errlen);
	if (r != 0) {
		wm_sink_close(s, true, NULL, 0);
		return r;
	}
	*out = s;
	return 0;
}

int
wm_sink_open_late(struct wm_sink **out, const struct wm_stage *window,
		  const struct wm_keys *keys, char *err, size_t errlen)
{
	return open_trace(out, window->name, window->u.window.late_output,
			  SINK_LATE, "partition,timestamp,key,value", keys, err,
			  errlen);
}

int
wm_sink_open_recording(struct wm_sink **out, const struct wm_stage *source,
		       const char *path, const struct wm_keys *keys, char *err,
		       size_t errlen)
{
	return open_trace(out, source->name, path, SINK_RECORDING,
			  "partition,timestamp,key,value,arrival", keys, err,
			  errlen);
}

int
wm_sink_result(struct wm_sink *s, const struct wm_window_result *r,
	       wm_ts_t watermark, int64_t fire_time_ms)
{
	const char *sep = s->jsonl ? ",\"" : ",";
	const char *eq = s->jsonl ? "\":" : "";
	struct line l = {0};

	if (s->jsonl)
		line_add(&l, "{\"key\":");
	line_key(&l, s->keys, s->keys != NULL, s->jsonl, r->key);
	if (s->jsonl)
		line_add(&l,
			 ",\"window_start\":%" PRId64
			 ",\"window_end\":%" PRId64,
			 r->window.start, r->window.end);
	else
		line_add(&l, ",%" PRId64 ",%" PRId64, r->window.start,
			 r->window.end);
	for (unsigned a = 0; a < 5; a++) {
		if (!(s->aggregates & (1u << a)))
			continue;
		line_add(&l, "%s%s%s", sep, s->jsonl ? agg_names[a] : "", eq);
		switch (a) {
		case 0:
			line_add(&l, "%" PRId64, r->count);
			break;
		case 1:
			line_add(&l, "%" PRId64, r->sum);
			break;
		case 2:
			line_add(&l, "%" PRId64, r->min);
			break;
		case 3:
			line_add(&l, "%" PRId64, r->max);
			break;
		default:
			line_add(&l, "%.17g", wm_window_result_avg(r));
			break;
		}
	}
	if (s->jsonl)
		line_add(&l,
			 ",\"fire_time\":%" PRId64 ",\"watermark\":%" PRId64
			 ",\"late_firing\":%s}\n",
			 fire_time_ms, watermark,
			 r->late_firing ? "true" : "false");
	else
		line_add(&l, ",%" PRId64 ",%" PRId64 ",%s\n", fire_time_ms,
			 watermark, r->late_firing ? "true" : "false");
	return append(s, &l);
}

int
wm_sink_late(struct wm_sink *s, const struct wm_record *r)
{
	struct line l = {0};

	line_add(&l, "%" PRIu32 ",%" PRId64 ",", r->partition, r->ts);
	line_key(&l, s->keys, r->flags & WM_RECORD_STRING_KEY, false, r->key);
	line_add(&l, ",%" PRId64 "\n", r->value);
	return append(s, &l);
}

int
wm_sink_recorded(struct wm_sink *s, const struct wm_record *r,
		 int64_t arrival_ms)
{
	struct line l = {0};

	line_add(&l, "%" PRIu32 ",%" PRId64 ",", r->partition, r->ts);
	line_key(&l, s->keys, r->flags & WM_RECORD_STRING_KEY, false, r->key);
	line_add(&l, ",%" PRId64 ",%" PRId64 "\n", r->value, arrival_ms);
	return append(s, &l);
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

int
wm_sink_close(struct wm_sink *s, bool job_failed, char *err, size_t errlen)
{
	char why[256];
	int r, c;

	if (s == NULL)
		return 0;
	r = wm_sink_flush(s);
	if (r != 0 && err != NULL)
		wm_sink_error(s, err, errlen);
	/* Results went in if the file grew past its header; a stream keeps
	 * what it was given either way. */
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
