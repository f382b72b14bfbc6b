/*
 * replay.c
 *	Trace replay as a record source (format and pacing in replay.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/lines.h"
#include "runtime/replay.h"
#include "runtime/units.h"

struct replayed {
	struct wm_record rec;
	int64_t due_ns;
};

struct replay {
	struct wm_record_source source; /* first: the interface */
	struct replayed *items;		/* this subtask's, in release order */
	size_t n, next;
	uint32_t n_partitions;
	uint32_t *partitions;
	uint64_t *emitted; /* by index in partitions[] */
	/* By partition id, of all the source's: its index in partitions[],
	 * or NOT_OWNED. A scan of partitions[] for every line and every
	 * record made a trace of a source with 65536 partitions take
	 * minutes per 100,000 lines. */
	uint32_t *slot;
};

#define NOT_OWNED UINT32_MAX

/* Bytes of a line, its end included: five integers, and blanks around
 * JSON's tokens, never need that many. */
#define MAX_LINE 65536

/* The latest due time, in ms, that counts in int64_t nanoseconds. */
#define MAX_DUE_MS (INT64_MAX / 1000000)

enum field { PARTITION, TIMESTAMP, KEY, VALUE, ARRIVAL, N_FIELDS };

static const char *const field_names[N_FIELDS] = {"partition", "timestamp",
						  "key", "value", "arrival"};

/* Enough of a bad field or of trailing text to recognise it in the
 * message; the line number tells where the rest is. */
#define QUOTED_MAX 40

/*
 * Why a line is refused, quoting the text at fault: `what` "text"
 * `detail`, as in: invalid timestamp "12x". Returns -1, for the parsers
 * to return.
 */
static int
refuse(char *why, size_t whylen, const char *what, const char *text, size_t len,
       const char *detail)
{
	snprintf(why, whylen, "invalid %s \"%.*s%s\"%s", what,
		 (int)(len < QUOTED_MAX ? len : QUOTED_MAX), text,
		 len > QUOTED_MAX ? "..." : "", detail);
	return -1;
}

static const char *
skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static int
field_named(const char *name, size_t len)
{
	for (int i = 0; i < N_FIELDS; i++)
		if (strlen(field_names[i]) == len &&
		    memcmp(field_names[i], name, len) == 0)
			return i;
	return -1;
}

static int
json_expected(char *why, size_t whylen, const char *what, const char *line,
	      const char *at)
{
	snprintf(why, whylen, "invalid JSON: expected %s at column %zu", what,
		 (size_t)(at - line) + 1);
	return -1;
}

/*
 * A JSON line: one flat object whose members are the fields, in any
 * order, each a whole integer, blanks allowed around the tokens:
 * {"partition":0,"timestamp":1000,"key":7,"value":1}. Exactly that
 * shape, not JSON at large: strings, escapes, nesting, fractions and
 * exponents are refused, as are unknown and repeated fields (a typo in
 * "arrival" must not go unnoticed) and anything after the object.
 * Returns the field count, arrival included, or -1 and why.
 */
static int
parse_json(const char *line, size_t len, int64_t f[N_FIELDS], char *why,
	   size_t whylen)
{
	const char *p = line + 1, *end = line + len; /* past the '{' */
	bool seen[N_FIELDS] = {false};

	for (;;) {
		const char *name, *name_end, *value, *bad;
		size_t value_len = 0;
		int i;

		p = skip_blanks(p, end);
		if (p == end || *p != '"')
			return json_expected(why, whylen, "a quoted field name",
					     line, p);
		name = p + 1;
		name_end = memchr(name, '"', (size_t)(end - name));
		if (name_end == NULL)
			return json_expected(why, whylen, "'\"'", line, end);
		i = field_named(name, (size_t)(name_end - name));
		if (i < 0 || seen[i])
			return refuse(why, whylen, "field", name,
				      (size_t)(name_end - name),
				      i < 0 ? " (not partition, timestamp, "
					      "key, value or arrival)"
					    : " (given twice)");
		p = skip_blanks(name_end + 1, end);
		if (p == end || *p != ':')
			return json_expected(why, whylen, "':'", line, p);
		value = skip_blanks(p + 1, end);
		while (value + value_len < end &&
		       strchr(",} \t", value[value_len]) == NULL)
			value_len++;
		bad = wm_units_int64(value, value_len, &f[i]);
		if (bad != NULL)
			return refuse(why, whylen, field_names[i], value,
				      value_len, bad);
		seen[i] = true;
		p = skip_blanks(value + value_len, end);
		if (p == end || (*p != ',' && *p != '}'))
			return json_expected(why, whylen, "',' or '}'", line,
					     p);
		if (*p++ == '}')
			break;
	}
	p = skip_blanks(p, end);
	if (p != end)
		return refuse(why, whylen, "text after the JSON object", p,
			      (size_t)(end - p), "");
	for (int i = 0; i < ARRIVAL; i++)
		if (!seen[i]) {
			snprintf(why, whylen, "invalid line: no %s",
				 field_names[i]);
			return -1;
		}
	return seen[ARRIVAL] ? N_FIELDS : ARRIVAL;
}

/* A CSV line: partition,timestamp,key,value[,arrival]. Returns the field
 * count or -1 and why. */
static int
parse_csv(const char *line, size_t len, int64_t f[N_FIELDS], char *why,
	  size_t whylen)
{
	const char *p = line, *end = line + len;
	int n = 0;

	for (;;) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		size_t field_len = (size_t)((comma ? comma : end) - p);
		const char *bad;

		if (n == N_FIELDS)
			return refuse(why, whylen, "line: extra field", p,
				      field_len, "");
		bad = wm_units_int64(p, field_len, &f[n]);
		if (bad != NULL)
			return refuse(why, whylen, field_names[n], p, field_len,
				      bad);
		n++;
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	if (n < ARRIVAL) {
		snprintf(why, whylen, "invalid line: no %s", field_names[n]);
		return -1;
	}
	return n;
}

/* One line of the trace (no line end), CSV or JSON. Returns the field
 * count, or -1 and why. */
static int
parse_line(const char *line, size_t len, int64_t f[N_FIELDS], char *why,
	   size_t whylen)
{
	/* wm_line_read() reads past NULs; C string functions would stop there
	 * and accept "0,1000,1,1\0garbage". */
	const char *nul = memchr(line, '\0', len);

	if (nul != NULL) {
		snprintf(why, whylen, "invalid line: NUL byte at column %zu",
			 (size_t)(nul - line) + 1);
		return -1;
	}
	return line[0] == '{' ? parse_json(line, len, f, why, whylen)
			      : parse_csv(line, len, f, why, whylen);
}

/*
 * When a line of `n` fields is due, in processing time (ns since the job
 * started): 0 for fast pacing, its arrival, or its timestamp's distance
 * from `first_ts`, the trace's first. Returns n, or -1 and why.
 *
 * A due time past INT64_MAX ns (292 years) is refused, not saturated:
 * no run lasts that long, and INT64_MAX reads as "nothing more to emit"
 * (next_due_ns), so a saturated record would never be released, which is
 * silent loss or a job that never ends. Such a line is a wrong column or
 * unit (nanoseconds for milliseconds), which the user wants named.
 */
static int
due_at(const int64_t f[N_FIELDS], int n, enum wm_replay_pacing pacing,
       int64_t first_ts, int64_t *due_ns, char *why, size_t whylen)
{
	int64_t since_first;

	if (n == N_FIELDS && (f[ARRIVAL] < 0 || f[ARRIVAL] > MAX_DUE_MS)) {
		snprintf(why, whylen, "invalid arrival \"%" PRId64 "\" (%s)",
			 f[ARRIVAL],
			 f[ARRIVAL] < 0 ? "negative" : "beyond 292 years");
		return -1;
	}
	*due_ns = 0;
	if (pacing == WM_REPLAY_ARRIVAL) {
		if (n < N_FIELDS) {
			snprintf(why, whylen,
				 "invalid line: no arrival (pacing = arrival "
				 "needs it)");
			return -1;
		}
		*due_ns = f[ARRIVAL] * 1000000;
	} else if (pacing == WM_REPLAY_EVENT && f[TIMESTAMP] > first_ts) {
		/* Earlier timestamps than the first are due at once. */
		if (__builtin_sub_overflow(f[TIMESTAMP], first_ts,
					   &since_first) ||
		    since_first > MAX_DUE_MS) {
			snprintf(
				why, whylen,
				"invalid timestamp \"%" PRId64
				"\" (beyond 292 years after the first, %" PRId64
				": pacing = event would never release it)",
				f[TIMESTAMP], first_ts);
			return -1;
		}
		*due_ns = since_first * 1000000;
	}
	return n;
}

static int
by_due(const void *a, const void *b)
{
	const struct replayed *x = a, *y = b;

	/* Stable on file order: qsort is not, so ties keep the order
	 * recorded in `rec.flags` (the line's index, restored after). */
	if (x->due_ns != y->due_ns)
		return x->due_ns < y->due_ns ? -1 : 1;
	return (x->rec.flags > y->rec.flags) - (x->rec.flags < y->rec.flags);
}

static int
replay_next(struct wm_record_source *src, int64_t now_ns, struct wm_record *out)
{
	struct replay *r = (struct replay *)src;

	if (r->next == r->n || r->items[r->next].due_ns > now_ns)
		return 0;
	*out = r->items[r->next++].rec;
	r->emitted[r->slot[out->partition]]++;
	return 1;
}

static int64_t
replay_next_due(const struct wm_record_source *src)
{
	const struct replay *r = (const struct replay *)src;

	return r->next == r->n ? INT64_MAX : r->items[r->next].due_ns;
}

static bool
replay_finished(const struct wm_record_source *src)
{
	const struct replay *r = (const struct replay *)src;

	return r->next == r->n;
}

static int
replay_wait_fd(const struct wm_record_source *src)
{
	(void)src;
	return -1;
}

static uint32_t
replay_n_partitions(const struct wm_record_source *src)
{
	return ((const struct replay *)src)->n_partitions;
}

/* A trace's partitions end together, with its last line. */
static uint32_t
replay_n_finished(const struct wm_record_source *src)
{
	const struct replay *r = (const struct replay *)src;

	return r->next == r->n ? r->n_partitions : 0;
}

static uint32_t
replay_finished_partition(const struct wm_record_source *src, uint32_t k)
{
	(void)src;
	return k;
}

static void
replay_partition_stats(const struct wm_record_source *src, uint32_t i,
		       int64_t now_ns, struct wm_source_partition_stats *st)
{
	const struct replay *r = (const struct replay *)src;

	(void)now_ns;
	st->partition = r->partitions[i];
	st->emitted = r->emitted[i];
	st->skipped = 0;
	st->finished = r->next == r->n;
}

static void
replay_free(struct wm_record_source *src)
{
	struct replay *r = (struct replay *)src;

	free(r->items);
	free(r->partitions);
	free(r->emitted);
	free(r->slot);
	free(r);
}

static const struct wm_record_source_ops replay_ops = {
	.name = "replay",
	.next = replay_next,
	.next_due_ns = replay_next_due,
	.finished = replay_finished,
	.wait_fd = replay_wait_fd,
	.n_partitions = replay_n_partitions,
	.n_finished = replay_n_finished,
	.finished_partition = replay_finished_partition,
	.partition_stats = replay_partition_stats,
	.free = replay_free,
};

bool
wm_replay_unreadable(int e)
{
	return e == ENOENT || e == EACCES || e == EPERM || e == EISDIR ||
	       e == ENOTDIR || e == ELOOP || e == ENAMETOOLONG || e == ENXIO;
}

struct wm_record_source *
wm_replay_open(const char *path, const uint32_t *partitions, size_t n,
	       uint32_t total, enum wm_replay_pacing pacing, bool skip_bad,
	       uint64_t *skipped, char *err, size_t errlen)
{
	struct replay *r = calloc(1, sizeof(*r));
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t got, cap_items = 0;
	long lineno = 0;
	int64_t first_ts = 0;
	bool have_first = false, have_content = false, reporter;

	*skipped = 0;
	if (r == NULL || f == NULL) {
		int e = f == NULL ? errno : ENOMEM;

		snprintf(err, errlen, "could not open trace \"%s\": %s", path,
			 strerror(e));
		free(r);
		if (f != NULL)
			fclose(f);
		errno = e;
		return NULL;
	}
	r->source.ops = &replay_ops;
	r->n_partitions = (uint32_t)n;
	r->partitions = calloc(n ? n : 1, sizeof(*r->partitions));
	r->emitted = calloc(n ? n : 1, sizeof(*r->emitted));
	r->slot = malloc((total ? total : 1) * sizeof(*r->slot));
	line = malloc(MAX_LINE + 1);
	if (r->partitions == NULL || r->emitted == NULL || r->slot == NULL ||
	    line == NULL)
		goto nomem;
	memcpy(r->partitions, partitions, n * sizeof(*partitions));
	for (uint32_t p = 0; p < total; p++)
		r->slot[p] = NOT_OWNED;
	for (size_t i = 0; i < n; i++)
		r->slot[partitions[i]] = (uint32_t)i;
	/* Every subtask reads the whole trace; the owner of partition 0
	 * (there is exactly one) reports and counts the bad lines. */
	reporter = total > 0 && r->slot[0] != NOT_OWNED;
	while ((got = wm_line_read(f, line, MAX_LINE)) > 0) {
		const char *text = line;
		size_t len = got;
		int64_t fld[N_FIELDS] = {0}, due_ns = 0;
		char why[160];
		int k;

		lineno++;
		if (got > MAX_LINE) {
			snprintf(why, sizeof(why),
				 "invalid line: longer than %d bytes",
				 MAX_LINE);
			k = -1;
			goto check;
		}
		/* A UTF-8 byte order mark, as editors on Windows write, is
		 * not part of the first field (the INI reader skips it too). */
		if (lineno == 1 && len >= 3 &&
		    memcmp(text, "\xef\xbb\xbf", 3) == 0) {
			text += 3;
			len -= 3;
		}
		if (len > 0 && text[len - 1] == '\n')
			len--;
		if (len > 0 && text[len - 1] == '\r')
			len--;
		if (len == 0 || text[0] == '#')
			continue;
		/* A header, if any, is the first line that is not a
		 * comment. */
		if (!have_content && len >= 9 &&
		    memcmp(text, "partition", 9) == 0) {
			have_content = true;
			continue;
		}
		have_content = true;
		k = parse_line(text, len, fld, why, sizeof(why));
		if (k > 0 && (fld[PARTITION] < 0 || fld[PARTITION] >= total)) {
			snprintf(why, sizeof(why),
				 "invalid partition \"%" PRId64
				 "\" (the source has %" PRIu32 " partitions)",
				 fld[PARTITION], total);
			k = -1;
		}
		if (k > 0 && !have_first)
			first_ts = fld[TIMESTAMP];
		if (k > 0)
			k = due_at(fld, k, pacing, first_ts, &due_ns, why,
				   sizeof(why));
	check:
		if (k < 0) {
			if (skip_bad) {
				if (got > MAX_LINE)
					wm_line_skip(f);
				if (reporter) {
					fprintf(stderr,
						"wmrun: %s:%ld: skipped: %s\n",
						path, lineno, why);
					(*skipped)++;
				}
				continue;
			}
			snprintf(err, errlen, "%s:%ld: %s", path, lineno, why);
			free(line);
			fclose(f);
			replay_free(&r->source);
			errno = EINVAL;
			return NULL;
		}
		have_first = true;
		if (r->slot[fld[PARTITION]] == NOT_OWNED)
			continue;
		if (r->n == cap_items) {
			cap_items = cap_items ? 2 * cap_items : 1024;
			void *grown = realloc(r->items,
					      cap_items * sizeof(*r->items));

			if (grown == NULL)
				goto nomem;
			r->items = grown;
		}
		struct replayed *it = &r->items[r->n];

		it->rec = (struct wm_record){
			.ts = fld[TIMESTAMP],
			.key = fld[KEY],
			.value = fld[VALUE],
			.flags = (uint32_t)r->n, /* file order, for ties */
			.partition = (uint32_t)fld[PARTITION],
		};
		it->due_ns = due_ns;
		r->n++;
	}
	/* wm_line_read() ends on a read error as on the end of the file: a
	 * directory (EISDIR), a failing disk (EIO) or no memory must not pass
	 * for a short trace. */
	if (!feof(f)) {
		int e = errno;

		free(line);
		fclose(f);
		replay_free(&r->source);
		snprintf(err, errlen, "could not read trace \"%s\": %s", path,
			 strerror(e));
		errno = e;
		return NULL;
	}
	free(line);
	fclose(f);
	/* A subtask may own no line (its partitions silent in the trace, or
	 * an empty trace): then items is NULL, which qsort must not see. */
	if (r->n > 1)
		qsort(r->items, r->n, sizeof(*r->items), by_due);
	for (size_t i = 0; i < r->n; i++)
		r->items[i].rec.flags = 0;
	return &r->source;
nomem:
	free(line);
	fclose(f);
	replay_free(&r->source);
	snprintf(err, errlen, "out of memory reading \"%s\"", path);
	errno = ENOMEM;
	return NULL;
}
