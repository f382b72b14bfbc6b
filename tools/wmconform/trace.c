/*
 * trace.c
 *	Conformance trace replay: parse, drive the operator, compare.
 *
 * Lines are processed as they are read. An input line first settles the
 * previous input (its captured output against the '>' lines collected for
 * it), then runs and captures what the operator emits. The end of the file
 * settles the last input.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/source_watermarks.h"
#include "operators/valve.h"
#include "lib/lines.h"
#include "runtime/conf/topology.h"
#include "tools/wmconform/trace.h"
#include "lib/units.h"

/* The longest lines: "wm CH TS", "event P TS", "> wm TS". */
#define MAX_TOKENS 3

/* Bytes of a line, its end included: comments too are a few words. */
#define MAX_LINE 4096

/*
 * A trace is no bigger than a wmrun job: a valve merges the channels of at
 * most WM_TOPOLOGY_MAX_INPUTS inputs of WM_TOPOLOGY_MAX_PARALLELISM
 * subtasks each, a source reads at most WM_TOPOLOGY_MAX_PARTITIONS
 * partitions (their numbers travel in 16 bits, operators/output.h). A larger
 * trace tests nothing wmrun runs and only costs: memory for the channels
 * (2e9 ran out), and time for the partitions, as registering one looks
 * through those registered (quadratic: 65536 take 5 s, 2e9 never end).
 */
#define MAX_CHANNELS (WM_TOPOLOGY_MAX_INPUTS * WM_TOPOLOGY_MAX_PARALLELISM)
#define MAX_PARTITIONS WM_TOPOLOGY_MAX_PARTITIONS

enum emitted_kind { EMITTED_WATERMARK, EMITTED_IDLE, EMITTED_ACTIVE };

struct emitted {
	enum emitted_kind kind;
	wm_ts_t watermark;
};

/* A growable list of emissions. */
struct emissions {
	size_t n, cap;
	struct emitted *items;
	bool out_of_memory;
};

enum trace_kind { TRACE_VALVE, TRACE_SOURCE };

/* The .source headers, in the order they must appear. */
enum source_header {
	HEADER_PARTITIONS,
	HEADER_OUT_OF_ORDERNESS,
	HEADER_IDLE_TIMEOUT,
	HEADER_GENERATOR,
	HEADER_DONE,
};

struct replay {
	enum trace_kind kind;
	unsigned behaviour;
	struct wm_trace_result *result;
	long lineno;

	struct wm_output capture_output; /* what the operator emits into */
	struct emissions got;		 /* emitted by the current input */
	struct emissions expected;	 /* '>' lines after the current input */
	long input_line;		 /* the current input; 0 = none yet */

	/* .valve */
	struct wm_valve *valve;
	uint32_t channels;

	/* .source */
	enum source_header next_header;
	int64_t partitions;
	struct wm_watermark_strategy strategy;
	struct wm_source_watermarks source;
	bool source_ready;
	int64_t now_ns;
};

static bool
emissions_push(struct emissions *e, enum emitted_kind kind, wm_ts_t w)
{
	if (e->n == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 16;
		void *items = realloc(e->items, cap * sizeof(*e->items));

		if (items == NULL) {
			e->out_of_memory = true;
			return false;
		}
		e->items = items;
		e->cap = cap;
	}
	e->items[e->n].kind = kind;
	e->items[e->n].watermark = w;
	e->n++;
	return true;
}

static void
capture_watermark(struct wm_output *out, wm_ts_t w)
{
	struct replay *r = wm_container_of(out, struct replay, capture_output);

	emissions_push(&r->got, EMITTED_WATERMARK, w);
}

static void
capture_status(struct wm_output *out, enum wm_status status)
{
	struct replay *r = wm_container_of(out, struct replay, capture_output);

	emissions_push(&r->got,
		       status == WM_STATUS_IDLE ? EMITTED_IDLE : EMITTED_ACTIVE,
		       0);
}

static void
render(char *buf, size_t size, const struct emitted *e)
{
	if (e == NULL)
		snprintf(buf, size, "nothing");
	else if (e->kind == EMITTED_WATERMARK)
		snprintf(buf, size, "\"> wm %" PRId64 "\"", e->watermark);
	else
		snprintf(buf, size, "\"> %s\"",
			 e->kind == EMITTED_IDLE ? "idle" : "active");
}

static enum wm_trace_outcome finish(struct replay *r,
				    enum wm_trace_outcome outcome, long line,
				    const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static enum wm_trace_outcome
finish(struct replay *r, enum wm_trace_outcome outcome, long line,
       const char *fmt, ...)
{
	va_list ap;

	r->result->outcome = outcome;
	r->result->line = line;
	va_start(ap, fmt);
	vsnprintf(r->result->message, sizeof(r->result->message), fmt, ap);
	va_end(ap);
	return outcome;
}

/* Compare the current input's output with its expectation. */
static enum wm_trace_outcome
settle(struct replay *r)
{
	size_t n = r->got.n > r->expected.n ? r->got.n : r->expected.n;
	char want[64], have[64];

	if (r->got.out_of_memory || r->expected.out_of_memory)
		return finish(r, WM_TRACE_UNREADABLE, r->input_line,
			      "out of memory");
	for (size_t i = 0; i < n; i++) {
		const struct emitted *e =
			i < r->expected.n ? &r->expected.items[i] : NULL;
		const struct emitted *g =
			i < r->got.n ? &r->got.items[i] : NULL;

		if (e && g && e->kind == g->kind &&
		    (e->kind != EMITTED_WATERMARK ||
		     e->watermark == g->watermark))
			continue;
		render(want, sizeof(want), e);
		render(have, sizeof(have), g);
		return finish(r, WM_TRACE_FAIL, r->input_line,
			      "expected %s, got %s (output %zu of this input)",
			      want, have, i + 1);
	}
	r->got.n = 0;
	r->expected.n = 0;
	return WM_TRACE_PASS;
}

/* The trace itself is wrong at the line being read. */
#define malformed(r, ...)                                                      \
	finish((r), WM_TRACE_MALFORMED, (r)->lineno, __VA_ARGS__)

/*
 * The integers of a line from token `first` on, named as given ("channel",
 * &ch, "watermark", &w, NULL), and nothing after them. PASS, or the line is
 * malformed and the message names the token at fault and what is wrong.
 */
static enum wm_trace_outcome
integers(struct replay *r, char **tok, int n, int first, ...)
{
	enum wm_trace_outcome o = WM_TRACE_PASS;
	const char *what;
	int i = first;
	va_list ap;

	va_start(ap, first);
	while (o == WM_TRACE_PASS && (what = va_arg(ap, const char *))) {
		int64_t *v = va_arg(ap, int64_t *);
		const char *bad;

		if (i == n) {
			o = malformed(r, "missing %s after \"%s\"", what,
				      tok[i - 1]);
			break;
		}
		bad = wm_units_int64(tok[i], strlen(tok[i]), v);
		if (bad != NULL)
			o = malformed(r, "invalid %s \"%s\"%s", what, tok[i],
				      bad);
		i++;
	}
	va_end(ap);
	if (o == WM_TRACE_PASS && n > i)
		o = malformed(r, "extra field \"%s\"", tok[i]);
	return o;
}

/* A header's count, one integer in [min, max]; the message says whose
 * limit max is. */
static enum wm_trace_outcome
header_count(struct replay *r, char **tok, int n, const char *what, int64_t min,
	     int64_t max, const char *whose, int64_t *v)
{
	enum wm_trace_outcome o = integers(r, tok, n, 1, what, v, NULL);

	if (o == WM_TRACE_PASS && (*v < min || *v > max))
		o = malformed(r, "invalid %s \"%s\" (%lld to %lld, %s)", what,
			      tok[1], (long long)min, (long long)max, whose);
	return o;
}

/* An output line ("> wm TS", "> idle", "> active") for the current input. */
static enum wm_trace_outcome
expect_line(struct replay *r, char **tok, int n)
{
	const char *kind = n > 1 ? tok[1] : "";
	int64_t w = 0;
	enum wm_trace_outcome o;

	if (r->input_line == 0)
		return malformed(r, "output line before any input");
	if (strcmp(kind, "wm") == 0) {
		o = integers(r, tok, n, 2, "watermark", &w, NULL);
		if (o == WM_TRACE_PASS)
			emissions_push(&r->expected, EMITTED_WATERMARK, w);
	} else if (strcmp(kind, "idle") == 0 || strcmp(kind, "active") == 0) {
		o = integers(r, tok, n, 2, NULL);
		if (o == WM_TRACE_PASS)
			emissions_push(&r->expected,
				       kind[0] == 'i' ? EMITTED_IDLE
						      : EMITTED_ACTIVE,
				       0);
	} else {
		o = malformed(r,
			      "invalid output line \"> %s\" (expected "
			      "\"> wm TS\", \"> idle\" or \"> active\")",
			      kind);
	}
	return o;
}

static enum wm_trace_outcome
valve_line(struct replay *r, char **tok, int n)
{
	int64_t ch = 0, w = 0;
	bool is_wm = strcmp(tok[0], "wm") == 0;
	enum wm_trace_outcome o;

	if (r->valve == NULL) {
		if (strcmp(tok[0], "channels") != 0)
			return malformed(r, "expected header \"channels N\"");
		o = header_count(r, tok, n, "channel count", 1, MAX_CHANNELS,
				 "a wmrun valve's most", &ch);
		if (o != WM_TRACE_PASS)
			return o;
		r->channels = (uint32_t)ch;
		r->valve = wm_valve_new(r->channels, r->behaviour);
		if (r->valve == NULL)
			return finish(r, WM_TRACE_UNREADABLE, r->lineno,
				      "could not create valve: %s",
				      strerror(errno));
		return WM_TRACE_PASS;
	}
	if (!is_wm && strcmp(tok[0], "idle") != 0 &&
	    strcmp(tok[0], "active") != 0)
		return malformed(r,
				 "unrecognized valve input \"%s\" (expected "
				 "wm, idle or active)",
				 tok[0]);
	o = is_wm ? integers(r, tok, n, 1, "channel", &ch, "watermark", &w,
			     NULL)
		  : integers(r, tok, n, 1, "channel", &ch, NULL);
	if (o != WM_TRACE_PASS)
		return o;
	if (ch < 0 || ch >= r->channels)
		return malformed(r,
				 "invalid channel \"%s\" (the valve has "
				 "channels 0 to %" PRIu32 ")",
				 tok[1], r->channels - 1);
	if (is_wm)
		wm_valve_input_watermark(r->valve, (uint32_t)ch, w,
					 &r->capture_output);
	else
		wm_valve_input_status(r->valve, (uint32_t)ch,
				      tok[0][0] == 'i' ? WM_STATUS_IDLE
						       : WM_STATUS_ACTIVE,
				      &r->capture_output);
	return WM_TRACE_PASS;
}

static const char *const source_header_names[] = {
	[HEADER_PARTITIONS] = "partitions",
	[HEADER_OUT_OF_ORDERNESS] = "out_of_orderness_ms",
	[HEADER_IDLE_TIMEOUT] = "idle_timeout_ms",
	[HEADER_GENERATOR] = "generator",
};

/* The four headers, in order; the last one builds the source. */
static enum wm_trace_outcome
source_header(struct replay *r, char **tok, int n)
{
	const char *name = source_header_names[r->next_header];
	int64_t v = 0;
	enum wm_trace_outcome o;

	if (strcmp(tok[0], name) != 0)
		return malformed(r, "expected header \"%s\"", name);
	switch (r->next_header) {
	case HEADER_PARTITIONS:
		o = header_count(r, tok, n, "partition count", 0,
				 MAX_PARTITIONS, "a wmrun source's most", &v);
		if (o != WM_TRACE_PASS)
			return o;
		r->partitions = v;
		break;
	case HEADER_OUT_OF_ORDERNESS:
		o = integers(r, tok, n, 1, "bound", &v, NULL);
		if (o != WM_TRACE_PASS)
			return o;
		if (v < 0)
			return malformed(r, "invalid bound \"%s\" (negative)",
					 tok[1]);
		r->strategy.out_of_orderness_ms = v;
		break;
	case HEADER_IDLE_TIMEOUT:
		o = integers(r, tok, n, 1, "idle timeout", &v, NULL);
		if (o != WM_TRACE_PASS)
			return o;
		if (v < 0)
			return malformed(r,
					 "invalid idle timeout \"%s\" "
					 "(negative)",
					 tok[1]);
		r->strategy.with_idleness = v > 0;
		r->strategy.idle_timeout_ms = v;
		break;
	case HEADER_GENERATOR:
		if (n != 2)
			return malformed(r, "expected header \"generator "
					    "bounded\" or \"generator "
					    "ascending\"");
		if (strcmp(tok[1], "bounded") == 0)
			r->strategy.kind = WM_WATERMARK_BOUNDED;
		else if (strcmp(tok[1], "ascending") == 0)
			r->strategy.kind = WM_WATERMARK_ASCENDING;
		else
			return malformed(r, "unknown generator \"%s\"", tok[1]);
		r->strategy.behaviour = r->behaviour;
		if (wm_source_watermarks_init(&r->source, &r->strategy,
					      &r->capture_output) != 0)
			return malformed(r, "invalid watermark strategy");
		r->source_ready = true;
		for (int64_t p = 0; p < r->partitions; p++)
			if (!wm_source_watermarks_add_split(&r->source,
							    (uint64_t)p))
				return finish(r, WM_TRACE_UNREADABLE, r->lineno,
					      "could not add partition: %s",
					      strerror(errno));
		break;
	case HEADER_DONE:
		break;
	}
	r->next_header++;
	return WM_TRACE_PASS;
}

static enum wm_trace_outcome
source_line(struct replay *r, char **tok, int n)
{
	int64_t a = 0, b = 0;
	enum wm_trace_outcome o;
	bool is_event = strcmp(tok[0], "event") == 0;

	if (r->next_header != HEADER_DONE)
		return source_header(r, tok, n);
	if (strcmp(tok[0], "periodic") == 0) {
		o = integers(r, tok, n, 1, NULL);
		if (o == WM_TRACE_PASS)
			wm_source_watermarks_on_periodic(&r->source, r->now_ns);
		return o;
	}
	if (strcmp(tok[0], "clock") == 0)
		o = integers(r, tok, n, 1, "clock", &a, NULL);
	else if (is_event)
		o = integers(r, tok, n, 1, "partition", &a, "timestamp", &b,
			     NULL);
	else if (strcmp(tok[0], "add") == 0 || strcmp(tok[0], "remove") == 0)
		o = integers(r, tok, n, 1, "partition", &a, NULL);
	else
		o = malformed(r,
			      "unrecognized source input \"%s\" (expected "
			      "clock, event, periodic, add or remove)",
			      tok[0]);
	if (o != WM_TRACE_PASS)
		return o;
	if (strcmp(tok[0], "clock") == 0) {
		if (a < 0 || a > INT64_MAX / WM_IDLE_NS_PER_MS ||
		    a * WM_IDLE_NS_PER_MS < r->now_ns)
			return malformed(r,
					 "clock \"%s\" is negative, too "
					 "large or goes backwards",
					 tok[1]);
		r->now_ns = a * WM_IDLE_NS_PER_MS;
	} else if (is_event) {
		struct wm_source_split *split =
			a < 0 ? NULL
			      : wm_source_watermarks_split(&r->source,
							   (uint64_t)a);

		if (split == NULL)
			return malformed(r,
					 "event on unregistered partition "
					 "%s",
					 tok[1]);
		wm_source_split_on_record(split, b, 0);
	} else if (strcmp(tok[0], "add") == 0) {
		if (a < 0 || a >= MAX_PARTITIONS)
			return malformed(r,
					 "cannot add partition %s (numbers "
					 "are 0 to %u)",
					 tok[1], MAX_PARTITIONS - 1);
		if (!wm_source_watermarks_add_split(&r->source, (uint64_t)a))
			return malformed(r, "cannot add partition %s", tok[1]);
	} else if (a < 0 || wm_source_watermarks_remove_split(
				    &r->source, (uint64_t)a) != 0) {
		return malformed(r, "cannot remove partition %s", tok[1]);
	}
	return WM_TRACE_PASS;
}

/* One line as wm_line_read() read it, `len` bytes. */
static enum wm_trace_outcome
handle_line(struct replay *r, char *line, size_t len)
{
	char *tok[MAX_TOKENS + 1];
	int n = 0;
	/* wm_line_read() reads past a NUL, where the C strings below would end
	 * the line: "wm 0 5\0junk" would pass as "wm 0 5". */
	const char *nul = line[0] == '#' ? NULL : memchr(line, '\0', len);

	if (nul != NULL)
		return malformed(r, "invalid line: NUL byte at column %zu",
				 (size_t)(nul - line) + 1);
	line[strcspn(line, "\r\n")] = '\0';
	if (line[0] == '#' || line[0] == '\0')
		return WM_TRACE_PASS;
	for (char *save = NULL, *t = strtok_r(line, " ", &save); t != NULL;
	     t = strtok_r(NULL, " ", &save)) {
		/* One token more than the longest line is enough for the
		 * line's reader to name the first extra one. */
		if (n == MAX_TOKENS + 1)
			break;
		tok[n++] = t;
	}
	if (n == 0)
		return WM_TRACE_PASS;
	if (strcmp(tok[0], ">") == 0)
		return expect_line(r, tok, n);

	bool is_header = r->kind == TRACE_VALVE ? r->valve == NULL
						: r->next_header != HEADER_DONE;

	if (!is_header) {
		enum wm_trace_outcome o =
			r->input_line ? settle(r) : WM_TRACE_PASS;

		if (o != WM_TRACE_PASS)
			return o;
		r->input_line = r->lineno;
	}
	return r->kind == TRACE_VALVE ? valve_line(r, tok, n)
				      : source_line(r, tok, n);
}

static bool
has_suffix(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

enum wm_trace_outcome
wm_trace_replay(const char *path, unsigned behaviour,
		struct wm_trace_result *result)
{
	struct replay r = {
		.behaviour = behaviour,
		.result = result,
		.capture_output = {capture_watermark, capture_status},
	};
	enum wm_trace_outcome outcome = WM_TRACE_PASS;
	char line[MAX_LINE + 1];
	size_t got;
	FILE *f;

	result->outcome = WM_TRACE_PASS;
	result->line = 0;
	result->message[0] = '\0';
	/* Opened first: a missing file is unreadable, whatever its name. */
	f = fopen(path, "r");
	if (f == NULL)
		return finish(&r, WM_TRACE_UNREADABLE, 0,
			      "could not open \"%s\": %s", path,
			      strerror(errno));
	if (has_suffix(path, ".valve"))
		r.kind = TRACE_VALVE;
	else if (has_suffix(path, ".source"))
		r.kind = TRACE_SOURCE;
	else {
		fclose(f);
		return finish(&r, WM_TRACE_MALFORMED, 0,
			      "unknown trace kind (expected a .valve or "
			      ".source file)");
	}
	while (outcome == WM_TRACE_PASS &&
	       (got = wm_line_read(f, line, MAX_LINE)) > 0) {
		r.lineno++;
		if (got > MAX_LINE)
			outcome = malformed(
				&r, "invalid line: longer than %d bytes",
				MAX_LINE);
		else
			outcome = handle_line(&r, line, got);
	}
	/* wm_line_read() fails as it ends: only the end of the file is one
	 * (a directory or EIO must not pass for a short trace). */
	if (outcome == WM_TRACE_PASS && !feof(f))
		outcome = finish(&r, WM_TRACE_UNREADABLE, r.lineno,
				 "could not read \"%s\": %s", path,
				 strerror(errno));
	else if (outcome == WM_TRACE_PASS && r.input_line == 0)
		outcome = finish(&r, WM_TRACE_MALFORMED, r.lineno,
				 "no input lines");
	else if (outcome == WM_TRACE_PASS)
		outcome = settle(&r);
	fclose(f);
	free(r.got.items);
	free(r.expected.items);
	wm_valve_free(r.valve);
	if (r.source_ready)
		wm_source_watermarks_destroy(&r.source);
	return outcome;
}
