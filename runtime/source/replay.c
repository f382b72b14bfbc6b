/*
 * replay.c
 *	Reading a replayed trace (format, pacing and order in replay.h).
 *
 * A trace is read once into one array of its records in file order, and
 * their due times are made in one place, schedule(), once every line is
 * read (the shift of wall-clock arrivals needs the earliest). Each
 * subtask's source (replay_source.c) then lists its own records by
 * index, sorted into release order, and never writes the array: forked
 * workers share its pages with their supervisor.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "operators/keygroup.h"
#include "runtime/io/keys.h"
#include "lib/lines.h"
#include "lib/page_ahead.h"
#include "base/log.h"
#include "runtime/source/record_fields.h"
#include "runtime/source/replay.h"
#include "runtime/source/replay_trace.h"
#include "runtime/conf/topology.h"
#include "lib/units.h"

/* Bytes of a line, its end included: five integers, and blanks around
 * JSON's tokens, never need that many. */
#define MAX_LINE 65536

/* Bytes read at a time: lines are found and parsed in the buffer, so a
 * block pays one read() for thousands of records, and stays in the
 * cache while they are parsed. */
#define READ_BLOCK (128 * 1024)

/* The latest due time, in ms, that counts in int64_t nanoseconds. */
#define MAX_DUE_MS (INT64_MAX / 1000000)

/* Arrivals whose earliest lies further from the job start are wall-clock
 * times: no recorded job ran a year before its first record. */
#define WALL_CLOCK_MS ((int64_t)365 * 24 * 60 * 60 * 1000)

/* The records' pages are populated on a thread of their own
 * (page_ahead.h) for a trace of PAGE_AHEAD_FROM bytes of records or more,
 * at most PAGE_AHEAD bytes ahead of the reading, which tells the thread
 * where it is every PAGE_AHEAD_TELL records. */
#define PAGE_AHEAD_FROM ((size_t)16 << 20)
#define PAGE_AHEAD ((size_t)8 << 20)
#define PAGE_AHEAD_TELL 8192

enum field {
	PARTITION,
	TIMESTAMP,
	KEY,
	VALUE,
	ARRIVAL,
	PUNCTUATE,
	HEARTBEAT,
	WATERMARK,
	N_FIELDS
};

static const char *const field_names[N_FIELDS] = {
	"partition", "timestamp", "key",       "value",
	"arrival",   "punctuate", "heartbeat", "watermark"};

static const enum wm_field_kind field_kinds[N_FIELDS] = {
	WM_FIELD_INT, WM_FIELD_INT, WM_FIELD_KEY, WM_FIELD_INT,
	WM_FIELD_INT, WM_FIELD_INT, WM_FIELD_INT, WM_FIELD_MAYBE_INT};

/* A line's fields: arrival, punctuate, heartbeat and watermark optional
 * (a watermark empty or null on the lines that carry none). CSV has no
 * other column; JSON's members of other names are read past, but for
 * near misses of the fields' names, and its fields are at the top level
 * (no paths: a trace's names are fixed). */
static const struct wm_field_layout trace_layout = {
	.n = N_FIELDS,
	.names = field_names,
	.kinds = field_kinds,
	.required = ARRIVAL,
	.near_misses_refused = true,
	.unknown_detail = " (not partition, timestamp, key, value, arrival, "
			  "punctuate, heartbeat or watermark)",
};

static int
field_named(const char *name, size_t len)
{
	for (int i = 0; i < N_FIELDS; i++)
		if (strlen(field_names[i]) == len &&
		    memcmp(field_names[i], name, len) == 0)
			return i;
	return -1;
}

/* A name in a header: a letter or '_', then letters, digits or '_'
 * (ASCII, whatever the locale). */
static bool
is_name(const char *p, const char *end)
{
	for (const char *c = p; c < end; c++) {
		bool letter = (*c >= 'a' && *c <= 'z') ||
			      (*c >= 'A' && *c <= 'Z') || *c == '_';

		if (!letter && (c == p || *c < '0' || *c > '9'))
			return false;
	}
	return p < end;
}

/*
 * Whether a CSV line is the header: the column names in their order,
 * partition to value or to arrival, blanks around each allowed; the
 * first line that begins "partition" is not enough ("partition0,1000,1,1"
 * is a record gone wrong). *names says whether the line has several
 * fields and every one is a name: no record either, it is refused as a
 * header with the wrong names ("bad" alone reads as a bad partition).
 */
static bool
is_header(const char *line, size_t len, bool *names)
{
	const char *p = line, *end = line + len;
	bool exact = true;
	int n = 0;

	*names = true;
	for (;;) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *name_end = comma != NULL ? comma : end;
		const char *name = wm_line_skip_blanks(p, name_end);

		while (name_end > name &&
		       (name_end[-1] == ' ' || name_end[-1] == '\t'))
			name_end--;
		*names = *names && is_name(name, name_end);
		exact = exact && n < N_FIELDS &&
			field_named(name, (size_t)(name_end - name)) == n;
		n++;
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	*names = *names && n > 1;
	return exact && n >= ARRIVAL;
}

/*
 * When a line's fields f (its arrival among them if `has_arrival`) are
 * due, in ms of processing time, as the line alone says (schedule() makes
 * the due times of the trace from these): 0 for fast pacing, its arrival,
 * or its timestamp's distance from `first_ts`, the first record's.
 * Returns 0, or -1 and err.
 *
 * A due time past INT64_MAX ns (292 years) is refused, not saturated:
 * no run lasts that long, and INT64_MAX reads as "nothing more to emit"
 * (next_due_ns), so a saturated record would never be released, which is
 * silent loss or a job that never ends. Such a line is a wrong column or
 * unit (nanoseconds for milliseconds), which the user wants named.
 */
static int
due_ms(const int64_t f[N_FIELDS], bool has_arrival,
       enum wm_replay_pacing pacing, int64_t first_ts, int64_t *due, char *err,
       size_t errlen)
{
	int64_t since_first;

	if (has_arrival && (f[ARRIVAL] < 0 || f[ARRIVAL] > MAX_DUE_MS)) {
		snprintf(err, errlen, "invalid arrival \"%" PRId64 "\" (%s)",
			 f[ARRIVAL],
			 f[ARRIVAL] < 0 ? "negative" : "beyond 292 years");
		return -1;
	}
	*due = 0;
	if (pacing == WM_REPLAY_ARRIVAL) {
		if (!has_arrival) {
			snprintf(err, errlen,
				 "invalid line: no arrival (pacing = arrival "
				 "needs it)");
			return -1;
		}
		*due = f[ARRIVAL];
	} else if (pacing == WM_REPLAY_EVENT && f[TIMESTAMP] > first_ts) {
		/* Earlier timestamps than the first are due at once. */
		if (__builtin_sub_overflow(f[TIMESTAMP], first_ts,
					   &since_first) ||
		    since_first > MAX_DUE_MS) {
			snprintf(
				err, errlen,
				"invalid timestamp \"%" PRId64
				"\" (beyond 292 years after the first, %" PRId64
				": pacing = event would never release it)",
				f[TIMESTAMP], first_ts);
			return -1;
		}
		*due = since_first;
	}
	return 0;
}

/* What reading a trace keeps from line to line. */
struct reader {
	enum wm_replay_pacing pacing;
	long lineno;
	bool have_content; /* a line other than blanks or a comment came */
	bool have_first;
	int64_t first_ts; /* the first record's, for pacing = event */
	int64_t earliest; /* the earliest arrival (pacing = arrival) */
	long earliest_line;
	size_t cap; /* of the trace's records (and due times) */
	/* Populating the records' pages ahead of the reading while they
	 * stay where they are; NULL when not. */
	struct wm_page_ahead *pager;
	size_t told; /* the records it was told of */
	/* key_type = trace: LONG or STRING as the first record's key was,
	 * on key_line; TRACE before it. */
	enum wm_key_type keys_seen;
	long key_line;
};

/*
 * The key of an accepted line as the record's word and flags: a long, or
 * a string interned in the trace's dictionary. Which one the source's
 * key_type says, or with key_type = trace the first record's key, after
 * which every key must be of that type: a trace of integers with one
 * "user48" is more likely a wrong column than a string-keyed job, and
 * reading its integers as strings would move every key to another
 * subtask. 0; -EBADMSG with err; -ENOMEM.
 */
static int
resolve_key(struct reader *rd, struct wm_replay_trace *tr,
	    const struct wm_key_field *kf, int64_t *key, uint32_t *flags,
	    char *err, size_t errlen)
{
	char detail[160];
	enum wm_key_type type = tr->key_type;
	/* An integer, or digits beyond 64 bits: no string in a long trace.
	 * Asked only where it decides something: a JSON number, or keys of
	 * the type the trace says. */
	bool integer =
		(kf->form == WM_KEY_JSON_NUMBER || type == WM_KEY_TYPE_TRACE) &&
		wm_fields_key_is_integer(kf);
	int r;

	*flags = 0;
	/* JSON says which: a string is quoted, a bare token is a number. */
	if (kf->form == WM_KEY_JSON_NUMBER && !integer)
		return wm_fields_refuse(err, errlen, "key", kf->text, kf->len,
					" (not an integer; a string key is "
					"quoted in JSON)"),
		       -EBADMSG;
	if (type == WM_KEY_TYPE_TRACE && rd->keys_seen != WM_KEY_TYPE_TRACE) {
		type = rd->keys_seen;
		if ((type == WM_KEY_TYPE_LONG) != integer) {
			snprintf(detail, sizeof(detail),
				 " (%s, but the keys above are %s, as on line "
				 "%ld: key_type = string reads every key as a "
				 "string)",
				 integer ? "an integer" : "not an integer",
				 integer ? "strings" : "integers",
				 rd->key_line);
			return wm_fields_refuse(err, errlen, "key", kf->text,
						kf->len, detail),
			       -EBADMSG;
		}
	}
	if (type == WM_KEY_TYPE_TRACE) {
		if (kf->len == 0 && kf->form == WM_KEY_BARE)
			return wm_fields_refuse(err, errlen, "key", "", 0,
						" (empty: key_type = string "
						"reads it as the empty "
						"string)"),
			       -EBADMSG;
		type = integer ? WM_KEY_TYPE_LONG : WM_KEY_TYPE_STRING;
	}
	/* A long the CSV parser read on the way needs no resolving. */
	if (type == WM_KEY_TYPE_LONG && kf->is_int)
		*key = kf->value;
	else if ((r = wm_fields_key(kf, type, tr->key_type == WM_KEY_TYPE_LONG,
				    tr->keys, key, flags, err, errlen)) != 0)
		return r;
	if (rd->keys_seen == WM_KEY_TYPE_TRACE) {
		rd->keys_seen = type;
		rd->key_line = rd->lineno;
	}
	return 0;
}

/* `bytes` rounded up to whole pages. */
static size_t
whole_pages(size_t bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t p = page > 0 ? (size_t)page : 4096;

	return (bytes + p - 1) / p * p;
}

/*
 * The records' mapping sized for `cap` records: made, or moved by
 * mremap(), which takes the pages along instead of copying them (pages
 * never written are never faulted in; MAP_NORESERVE: a reservation sized
 * for the worst case costs no commit charge). The pager stops first: it
 * works on the mapping where it is. 0 or -ENOMEM.
 */
static int
map_records(struct reader *rd, struct wm_replay_trace *tr, size_t cap)
{
	size_t bytes = whole_pages(cap * sizeof(*tr->recs));
	void *p;

	wm_page_ahead_stop(rd->pager);
	rd->pager = NULL;
	p = tr->recs == NULL
		    ? mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
		    : mremap(tr->recs, tr->recs_bytes, bytes, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		return -ENOMEM;
	tr->recs = p;
	tr->recs_bytes = bytes;
	return 0;
}

/* The carried watermarks' array (replay_trace.h) sized for cap records:
 * 0 or -ENOMEM. */
static int
grow_watermarks(struct wm_replay_trace *tr, size_t cap)
{
	wm_ts_t *grown = realloc(tr->watermarks, cap * sizeof(*grown));

	if (grown == NULL)
		return -ENOMEM;
	tr->watermarks = grown;
	return 0;
}

/*
 * Room for `more` records after the trace's n, its arrays doubled until
 * they hold them: 0 or -ENOMEM.
 */
static int
reserve(struct reader *rd, struct wm_replay_trace *tr, size_t more)
{
	size_t cap = rd->cap ? rd->cap : 1024;
	void *dues;

	if (more > SIZE_MAX / 2 / sizeof(*tr->recs) - tr->n)
		return -ENOMEM;
	while (cap < tr->n + more)
		cap *= 2;
	if (cap == rd->cap)
		return 0;
	if (map_records(rd, tr, cap) != 0)
		return -ENOMEM;
	if (rd->pacing != WM_REPLAY_FAST) {
		dues = realloc(tr->due_ns, cap * sizeof(*tr->due_ns));
		if (dues == NULL)
			return -ENOMEM;
		tr->due_ns = dues;
	}
	if (tr->watermarks != NULL && grow_watermarks(tr, cap) != 0)
		return -ENOMEM;
	rd->cap = cap;
	return 0;
}

/*
 * The record of a line's fields appended to the trace, its array doubled
 * when full: 0 or -ENOMEM. Out of take_line(), which decides whether a
 * line is a record; this only stores it.
 */
static int
append_record(struct reader *rd, struct wm_replay_trace *tr, const int64_t *fld,
	      int64_t key, uint32_t flags, int64_t due)
{
	if (tr->n == rd->cap && reserve(rd, tr, 1) != 0)
		return -ENOMEM;
	/* The first record that carries a watermark makes the array. */
	if ((flags & WM_RECORD_WATERMARK) && tr->watermarks == NULL &&
	    grow_watermarks(tr, rd->cap) != 0)
		return -ENOMEM;
	if (flags & WM_RECORD_WATERMARK)
		tr->watermarks[tr->n] = fld[WATERMARK];
	tr->recs[tr->n] = (struct wm_record){
		.ts = fld[TIMESTAMP],
		.key = key,
		.value = fld[VALUE],
		.flags = flags,
		.partition = (uint32_t)fld[PARTITION],
	};
	/* Under pacing = fast, due is 0 and there is no array. */
	if (tr->due_ns != NULL)
		tr->due_ns[tr->n] = due;
	tr->n++;
	return 0;
}

/*
 * One line as wm_line_blocks_next() read it (`got` bytes, its end
 * included; `nul`: a NUL byte among them): nothing (blank, comment, header) or a record appended to the trace,
 * its due_ns holding due_ms()'s milliseconds until schedule(). Returns 0,
 * -EBADMSG with err and *col the column at fault (0: the line as a
 * whole), or -ENOMEM.
 */
static int
take_line(struct reader *rd, struct wm_replay_trace *tr, const char *line,
	  size_t got, bool nul, char *err, size_t errlen, size_t *col)
{
	const char *text = line;
	size_t len = got;
	int64_t fld[N_FIELDS] = {0}, first_ts, due = 0, key = 0;
	struct wm_key_field kf = {0};
	uint64_t given = 0;
	uint32_t flags = 0;
	bool first, names = false;
	int k, r;

	if (got > MAX_LINE) {
		snprintf(err, errlen, "invalid line: longer than %d bytes",
			 MAX_LINE);
		return -EBADMSG;
	}
	/* A UTF-8 byte order mark, as editors on Windows write, is not part
	 * of the first field (the INI reader skips it too). */
	if (rd->lineno == 1 && len >= 3 &&
	    memcmp(text, "\xef\xbb\xbf", 3) == 0) {
		text += 3;
		len -= 3;
	}
	/* The line's end: "\n", "\r\n" or "\r" (lib/lines.h). */
	if (len > 0 && text[len - 1] == '\n')
		len--;
	if (len > 0 && text[len - 1] == '\r')
		len--;
	if (len == 0 || text[0] == '#')
		return 0;
	first = !rd->have_content;
	rd->have_content = true;
	/* Only the first line that is not a comment can be the header, and
	 * only in CSV. */
	if (first && text[0] != '{' && is_header(text, len, &names))
		return 0;
	/* The reader searched its blocks for NUL bytes already: a line
	 * without one is not searched again. */
	k = nul ? wm_fields_parse(text, len, text[0] == '{', &trace_layout, fld,
				  &kf, &given, err, errlen)
		: wm_fields_parse_no_nul(text, len, text[0] == '{',
					 &trace_layout, fld, &kf, &given, err,
					 errlen);
	if (k < 0 && first && text[0] != '{' && names)
		wm_fields_refuse(
			err, errlen, "header", text, len,
			" (the columns are partition,timestamp,key,value"
			"[,arrival[,punctuate[,heartbeat[,watermark]]]], in "
			"that order)");
	if (k > 0 &&
	    (fld[PARTITION] < 0 || fld[PARTITION] >= tr->n_partitions)) {
		snprintf(err, errlen,
			 "invalid partition \"%" PRId64
			 "\" (the source has %" PRIu32 " partitions)",
			 fld[PARTITION], tr->n_partitions);
		k = -1;
	}
	if (k > 0 && (given >> PUNCTUATE & 1) &&
	    (fld[PUNCTUATE] < 0 || fld[PUNCTUATE] > 1)) {
		snprintf(err, errlen,
			 "invalid punctuate \"%" PRId64
			 "\" (1: the record carries a watermark at its "
			 "timestamp, 0: it does not)",
			 fld[PUNCTUATE]);
		k = -1;
	}
	if (k > 0 && (given >> HEARTBEAT & 1) &&
	    (fld[HEARTBEAT] < 0 || fld[HEARTBEAT] > 1)) {
		snprintf(err, errlen,
			 "invalid heartbeat \"%" PRId64
			 "\" (1: a heartbeat, 0: a record)",
			 fld[HEARTBEAT]);
		k = -1;
	}
	first_ts = rd->have_first ? rd->first_ts : fld[TIMESTAMP];
	if (k > 0)
		k = due_ms(fld, given >> ARRIVAL & 1, rd->pacing, first_ts,
			   &due, err, errlen);
	if (k < 0)
		return -EBADMSG;
	/* The key last: a line refused for another reason interns nothing
	 * and does not decide the trace's key type. */
	r = resolve_key(rd, tr, &kf, &key, &flags, err, errlen);
	if (r != 0) {
		*col = kf.col > 0 ? kf.col + (size_t)(text - line) : 0;
		return r;
	}
	rd->first_ts = first_ts;
	rd->have_first = true;
	if (rd->pacing == WM_REPLAY_ARRIVAL &&
	    (tr->n == 0 || due < rd->earliest)) {
		rd->earliest = due;
		rd->earliest_line = rd->lineno;
	}
	if ((given >> PUNCTUATE & 1) && fld[PUNCTUATE] == 1) {
		flags |= WM_RECORD_PUNCTUATE;
		tr->marked++;
	}
	if ((given >> HEARTBEAT & 1) && fld[HEARTBEAT] == 1) {
		flags |= WM_RECORD_HEARTBEAT;
		tr->heartbeats++;
	}
	if (given >> WATERMARK & 1) {
		flags |= WM_RECORD_WATERMARK;
		tr->carriers++;
	}
	return append_record(rd, tr, fld, key, flags, due);
}

/*
 * Whether the next lines may be plain lines (take_plain_lines()): the
 * first line that could be the header is read, and keys are longs, as
 * the source says or as the first record's key was.
 */
static bool
plain_lines_apply(const struct reader *rd, const struct wm_replay_trace *tr)
{
	return rd->have_content && (tr->key_type == WM_KEY_TYPE_LONG ||
				    (tr->key_type == WM_KEY_TYPE_TRACE &&
				     rd->keys_seen == WM_KEY_TYPE_LONG));
}

/*
 * The records of the plain lines at the front of [p, end), whole lines
 * each ending with '\n' and holding no '\r' or NUL
 * (wm_line_blocks_ahead()), while plain_lines_apply(): a line that is
 * four or five plain integers (wm_fields_plain_int()) separated by commas, a
 * partition of the source and a due time due_ms() accepts, which is what
 * nearly every line of a long-keyed CSV trace is. Such a line is what
 * take_line() would append, read in one pass over its bytes, with no
 * call to find its end or its fields. Returns the bytes taken (and
 * counts their lines), or 0 with -ENOMEM in *r; stops before the first
 * other line: a comment, a blank, JSON, a bad field, which take_line()
 * reads from its start, and refuses with its words.
 */
static size_t
take_plain_lines(struct reader *rd, struct wm_replay_trace *tr, const char *p,
		 const char *end, int *r)
{
	const char *start = p;
	/* The loop's state in locals: a store into the records could alias
	 * the trace's count or the reader's fields, which the compiler would
	 * then read again after every record. */
	struct wm_record *recs;
	int64_t *due_ns;
	size_t n;
	long lineno = rd->lineno;
	int64_t first_ts = rd->first_ts;
	bool have_first = rd->have_first;

	/* A plain line is 8 bytes at least ("0,0,0,0\n"). */
	if ((*r = reserve(rd, tr, (size_t)(end - p) / 8 + 1)) != 0)
		return 0;
	recs = tr->recs;
	due_ns = tr->due_ns;
	n = tr->n;
	while (p < end) {
		int64_t f[N_FIELDS], due = 0;
		char unused[160];
		const char *q;
		bool has_arrival = false;

		/* Every line of the span ends with '\n' before `end`. */
		if ((q = wm_fields_plain_int(p, end, &f[PARTITION])) == NULL ||
		    *q != ',' ||
		    (q = wm_fields_plain_int(q + 1, end, &f[TIMESTAMP])) ==
			    NULL ||
		    *q != ',' ||
		    (q = wm_fields_plain_int(q + 1, end, &f[KEY])) == NULL ||
		    *q != ',' ||
		    (q = wm_fields_plain_int(q + 1, end, &f[VALUE])) == NULL)
			break;
		if (*q == ',') {
			if ((q = wm_fields_plain_int(q + 1, end,
						     &f[ARRIVAL])) == NULL)
				break;
			has_arrival = true;
		}
		if (*q != '\n' || (uint64_t)f[PARTITION] >= tr->n_partitions)
			break;
		if (!have_first)
			first_ts = f[TIMESTAMP];
		if (due_ns != NULL) {
			if (due_ms(f, has_arrival, rd->pacing, first_ts, &due,
				   unused, sizeof(unused)) < 0)
				break;
			if (rd->pacing == WM_REPLAY_ARRIVAL &&
			    (n == 0 || due < rd->earliest)) {
				rd->earliest = due;
				rd->earliest_line = lineno + 1;
			}
			due_ns[n] = due;
		}
		have_first = true;
		lineno++;
		recs[n++] = (struct wm_record){
			.ts = f[TIMESTAMP],
			.key = f[KEY],
			.value = f[VALUE],
			.partition = (uint32_t)f[PARTITION],
		};
		p = q + 1;
	}
	tr->n = n;
	rd->lineno = lineno;
	rd->first_ts = first_ts;
	rd->have_first = have_first;
	return (size_t)(p - start);
}

/*
 * The due times of the trace, made here once for --sim and real runs
 * alike: every record's milliseconds (take_line()) less `shift_ms`, raised
 * to its predecessor's in its partition so that a partition is released
 * in file order, then in ns. 0 or -ENOMEM.
 */
static int
schedule(struct wm_replay_trace *tr, int64_t shift_ms)
{
	/* By partition: the due time of its last record so far. Every due
	 * time is at least 0 (the shift is the earliest arrival), so 0
	 * holds no partition's first record back. */
	int64_t *last =
		calloc(tr->n_partitions ? tr->n_partitions : 1, sizeof(*last));

	if (last == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < tr->n; i++) {
		int64_t *prev = &last[tr->recs[i].partition];
		int64_t ms = tr->due_ns[i] - shift_ms;

		if (ms < *prev)
			ms = *prev;
		*prev = ms;
		tr->due_ns[i] =
			ms * 1000000; /* ms <= MAX_DUE_MS: no overflow */
	}
	free(last);
	return 0;
}

bool
wm_replay_clock_zero_ms(const struct wm_replay_trace *trace, int64_t *ms)
{
	*ms = trace->clock_zero_ms;
	return trace->has_clock_zero;
}

void
wm_replay_free(struct wm_replay_trace *tr)
{
	if (tr == NULL)
		return;
	if (tr->own_keys)
		wm_keys_free(tr->keys);
	if (tr->recs != NULL)
		munmap(tr->recs, tr->recs_bytes);
	free(tr->due_ns);
	free(tr->watermarks);
	free(tr);
}

uint64_t
wm_replay_skipped(const struct wm_replay_trace *tr)
{
	return tr->skipped;
}

uint64_t
wm_replay_heartbeats(const struct wm_replay_trace *tr)
{
	return tr->heartbeats;
}

uint64_t
wm_replay_carriers(const struct wm_replay_trace *tr)
{
	return tr->carriers;
}

const struct wm_keys *
wm_replay_keys(const struct wm_replay_trace *tr)
{
	return tr->key_type == WM_KEY_TYPE_STRING ? tr->keys : NULL;
}

/*
 * The records' first mapping, sized for as many as a regular file's lines
 * can hold (a record's line is 7 bytes at least: "0,0,,0" and its end),
 * so that it is made once and stays where it is, and their pager when
 * they are many: the reading then never waits for the kernel to fault
 * in a page. A file that grows as it is read, or a pipe, grows the
 * mapping by doubling (reserve()), without the pager.
 */
static void
plan_records(struct reader *rd, struct wm_replay_trace *tr, FILE *f)
{
	struct stat st;

	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) ||
	    reserve(rd, tr, (size_t)st.st_size / 7 + 2) != 0 ||
	    tr->recs_bytes < PAGE_AHEAD_FROM)
		return;
	rd->pager = wm_page_ahead_start(tr->recs, tr->recs_bytes, PAGE_AHEAD);
}

/* The pager stopped, and the records' mapping cut to their pages: the
 * rest, which the pager may have populated, goes back to the kernel. */
static void
fit_records(struct reader *rd, struct wm_replay_trace *tr)
{
	size_t bytes = whole_pages(tr->n * sizeof(*tr->recs));
	void *p;

	wm_page_ahead_stop(rd->pager);
	rd->pager = NULL;
	if (tr->recs == NULL || bytes == 0 || bytes >= tr->recs_bytes)
		return;
	p = mremap(tr->recs, tr->recs_bytes, bytes, 0);
	if (p != MAP_FAILED)
		tr->recs_bytes = bytes;
}

/* Every line of f into tr, bad ones refused (err, -EBADMSG) or, with
 * skip_bad, skipped: the first few reported with why, then a count. 0, a
 * negative errno with err set, or -ENOMEM. */
static int
read_lines(FILE *f, const char *path, struct reader *rd,
	   struct wm_replay_trace *tr, bool skip_bad, char *err, size_t errlen)
{
	struct wm_line_blocks lb;
	const char *line;
	size_t got;
	bool nul;
	int r = wm_line_blocks_open(&lb, f, MAX_LINE, READ_BLOCK);

	plan_records(rd, tr, f);
	while (r == 0) {
		char why[256], at[24];
		size_t col = 0, plain;

		if (rd->pager != NULL && tr->n - rd->told >= PAGE_AHEAD_TELL) {
			wm_page_ahead_at(rd->pager, tr->n * sizeof(*tr->recs));
			rd->told = tr->n;
		}

		if (plain_lines_apply(rd, tr) &&
		    (plain = wm_line_blocks_ahead(&lb, &line)) > 0) {
			size_t took = take_plain_lines(rd, tr, line,
						       line + plain, &r);

			wm_line_blocks_consume(&lb, took);
			if (r != 0 || took == plain)
				continue;
		}
		got = wm_line_blocks_next(&lb, &line, &nul);
		if (got == 0)
			break;

		rd->lineno++;
		r = take_line(rd, tr, line, got, nul, why, sizeof(why), &col);
		if (r != -EBADMSG)
			continue;
		r = 0;
		at[0] = '\0';
		if (col > 0)
			snprintf(at, sizeof(at), ":%zu", col);
		if (!skip_bad) {
			snprintf(err, errlen, "%s:%ld%s: %s", path, rd->lineno,
				 at, why);
			r = -EBADMSG;
			break;
		}
		/* The first few, with why: a flood of them (a binary file,
		 * a wrong format) would bury everything else. The rest of a
		 * line too long is read past by the next call. */
		if (tr->skipped++ < WM_REPLAY_REPORTED)
			wm_log("wmrun: %s:%ld%s: skipped: %s", path, rd->lineno,
			       at, why);
	}
	wm_line_blocks_close(&lb);
	fit_records(rd, tr);
	if (r != 0)
		return r;
	/* The reading ends on a read error as on the end of the file: a
	 * directory (EISDIR), a failing disk (EIO) or no memory must not pass
	 * for a short trace. */
	if (lb.error != 0) {
		snprintf(err, errlen, "could not read trace \"%s\": %s", path,
			 strerror(lb.error));
		return -lb.error;
	}
	if (tr->skipped > WM_REPLAY_REPORTED)
		wm_log("wmrun: %s: %" PRIu64 " more bad line%s skipped", path,
		       tr->skipped - WM_REPLAY_REPORTED,
		       tr->skipped - WM_REPLAY_REPORTED == 1 ? "" : "s");
	return 0;
}

/* How far arrivals move earlier: by the earliest when it lies more than a
 * year after the job start (wall-clock times, said so), else not at all. */
static int64_t
arrival_shift(const struct reader *rd, const struct wm_replay_trace *tr,
	      const char *path)
{
	if (rd->pacing != WM_REPLAY_ARRIVAL || tr->n == 0 ||
	    rd->earliest <= WALL_CLOCK_MS)
		return 0;
	wm_log("wmrun: %s:%ld: notice: the earliest arrival (%" PRId64
	       " ms) is more than a year after the job start: arrivals are "
	       "read as wall-clock times and shifted %" PRId64 " ms earlier",
	       path, rd->earliest_line, rd->earliest, rd->earliest);
	return rd->earliest;
}

struct wm_replay_trace *
wm_replay_read(const char *path, uint32_t partitions,
	       enum wm_replay_pacing pacing, enum wm_key_type key_type,
	       struct wm_keys *keys, bool skip_bad, char *err, size_t errlen)
{
	struct wm_replay_trace *tr = calloc(1, sizeof(*tr));
	struct reader rd = {.pacing = pacing};
	bool own_keys = keys == NULL;
	FILE *f = fopen(path, "r");
	int r = 0;

	if (f == NULL) {
		r = -errno;
		snprintf(err, errlen, "could not open trace \"%s\": %s", path,
			 strerror(-r));
	} else if (tr == NULL || (own_keys && (keys = wm_keys_new()) == NULL)) {
		r = -ENOMEM;
	} else {
		tr->n_partitions = partitions;
		tr->end_ns = -1;
		tr->key_type = key_type;
		tr->keys = keys;
		tr->own_keys = own_keys;
		r = read_lines(f, path, &rd, tr, skip_bad, err, errlen);
		if (tr->key_type == WM_KEY_TYPE_TRACE)
			tr->key_type = rd.keys_seen == WM_KEY_TYPE_STRING
					       ? WM_KEY_TYPE_STRING
					       : WM_KEY_TYPE_LONG;
		/* Under pacing = fast every line is due at 0 (due_ms()), and
		 * so is every record: no pass over the whole trace again. */
		if (r == 0 && pacing != WM_REPLAY_FAST) {
			int64_t shift = arrival_shift(&rd, tr, path);

			if (schedule(tr, shift) != 0)
				r = -ENOMEM;
			/* Processing time 0 is the earliest wall-clock
			 * arrival (arrivals that are not wall-clock times
			 * say nothing of event time), or the first record's
			 * timestamp under pacing = event. */
			tr->has_clock_zero =
				shift != 0 ||
				(pacing == WM_REPLAY_EVENT && rd.have_first);
			tr->clock_zero_ms = shift != 0 ? shift
					    : pacing == WM_REPLAY_EVENT
						    ? rd.first_ts
						    : 0;
		}
	}
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory reading \"%s\"", path);
	if (f != NULL)
		fclose(f);
	if (r != 0) {
		wm_replay_free(tr);
		errno = -r;
		return NULL;
	}
	return tr;
}

void
wm_replay_free_all(struct wm_replay_trace **traces, uint32_t n_stages)
{
	struct wm_keys *keys = NULL;

	if (traces == NULL)
		return;
	/* Every trace read by wm_replay_read_all() shares one dictionary,
	 * which none of them owns. */
	for (uint32_t s = 0; s < n_stages; s++) {
		if (traces[s] != NULL && keys == NULL)
			keys = traces[s]->keys;
		wm_replay_free(traces[s]);
	}
	wm_keys_free(keys);
	free(traces);
}

struct wm_keys *
wm_replay_all_keys(struct wm_replay_trace *const *traces, uint32_t n_stages)
{
	for (uint32_t s = 0; traces != NULL && s < n_stages; s++)
		if (traces[s] != NULL)
			return traces[s]->keys;
	return NULL;
}

/*
 * The first source stage upstream of `stage` (or `stage` itself) whose
 * keys are strings, into *str, and the first whose keys are longs (a
 * generator's, or a trace's), into *lng, each left alone when there is
 * none. Inputs come before their users, so the walk ends.
 */
static void
upstream_key_types(struct wm_replay_trace *const *traces,
		   const struct wm_topology *topo, uint32_t stage,
		   uint32_t *str, uint32_t *lng)
{
	const struct wm_stage *st = &topo->stages[stage];

	if (st->kind == WM_STAGE_SOURCE) {
		bool strings = traces != NULL && traces[stage] != NULL
				       ? wm_replay_keys(traces[stage]) != NULL
				       : st->u.source.kind == WM_SOURCE_KAFKA &&
						 st->u.source.key_type ==
							 WM_KEY_TYPE_STRING;
		uint32_t *first = strings ? str : lng;

		if (*first == UINT32_MAX)
			*first = stage;
		return;
	}
	for (uint32_t i = 0; i < st->n_inputs; i++)
		upstream_key_types(traces, topo, st->inputs[i].stage, str, lng);
}

const struct wm_keys *
wm_replay_stage_keys(struct wm_replay_trace *const *traces,
		     const struct wm_topology *topo, uint32_t stage,
		     const struct wm_keys *job_keys)
{
	uint32_t str = UINT32_MAX, lng = UINT32_MAX;

	upstream_key_types(traces, topo, stage, &str, &lng);
	if (str == UINT32_MAX)
		return NULL;
	return traces != NULL && traces[str] != NULL
		       ? wm_replay_keys(traces[str])
		       : job_keys;
}

bool
wm_replay_stage_string_keys(struct wm_replay_trace *const *traces,
			    const struct wm_topology *topo, uint32_t stage)
{
	uint32_t str = UINT32_MAX, lng = UINT32_MAX;

	upstream_key_types(traces, topo, stage, &str, &lng);
	return str != UINT32_MAX;
}

/* Every window's and join's keys of one type: a long and a string word
 * may be equal and would share a window or pair (Flink's keyBy has one
 * key type). 0, or
 * -EBADMSG with a message in err naming the sources. */
static int
check_key_types(struct wm_replay_trace *const *traces,
		const struct wm_topology *topo, char *err, size_t errlen)
{
	for (uint32_t s = 0; s < topo->n_stages; s++) {
		uint32_t str = UINT32_MAX, lng = UINT32_MAX;

		if (!wm_stage_keyed(topo->stages[s].kind))
			continue;
		upstream_key_types(traces, topo, s, &str, &lng);
		if (str == UINT32_MAX || lng == UINT32_MAX)
			continue;
		snprintf(err, errlen,
			 "%s \"%s\" reads string keys from source \"%s\" "
			 "and long keys from source \"%s\" (the keys of a "
			 "%s are of one type)",
			 wm_stage_kind_name(topo->stages[s].kind),
			 topo->stages[s].name, topo->stages[str].name,
			 topo->stages[lng].name,
			 wm_stage_kind_name(topo->stages[s].kind));
		return -EBADMSG;
	}
	return 0;
}

int
wm_replay_read_all(const struct wm_topology *topo,
		   struct wm_replay_trace ***tracesp, char *err, size_t errlen)
{
	struct wm_replay_trace **traces =
		calloc(topo->n_stages ? topo->n_stages : 1, sizeof(*traces));
	/* One dictionary for the job: a string is one key in every trace,
	 * as in a union of two string-keyed sources. */
	struct wm_keys *keys = NULL;
	int r;

	if (traces == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t s = 0; s < topo->n_stages; s++) {
		const struct wm_stage *st = &topo->stages[s];
		const struct wm_source_conf *sc;

		if (!wm_stage_source_is(st, WM_SOURCE_REPLAY))
			continue;
		sc = &st->u.source;
		if (keys == NULL && (keys = wm_keys_new()) == NULL) {
			wm_replay_free_all(traces, topo->n_stages);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		traces[s] = wm_replay_read(sc->replay, sc->partitions,
					   sc->pacing, sc->key_type, keys,
					   sc->skip_bad_records, err, errlen);
		if (traces[s] == NULL) {
			int e = errno;
			bool held = false;

			/* No trace holds it when the first one failed. */
			for (uint32_t i = 0; i < s; i++)
				held = held || traces[i] != NULL;
			wm_replay_free_all(traces, topo->n_stages);
			if (!held)
				wm_keys_free(keys);
			return -e;
		}
		/* A punctuated source over a trace that marks nothing would
		 * never emit a watermark: a wrong file, or one recorded
		 * without its marks. */
		if (wm_watermark_strategy_punctuated(&sc->strategy) &&
		    traces[s]->marked == 0 && traces[s]->carriers == 0) {
			snprintf(
				err, errlen,
				"trace \"%s\" marks no record (no line has a "
				"punctuate column of 1 or a watermark): source "
				"\"%s\", whose watermark = punctuated, would "
				"never emit a watermark",
				sc->replay, st->name);
			wm_replay_free_all(traces, topo->n_stages);
			return -EBADMSG;
		}
		/* Saturated where int64 ns end (292 years): never ending
		 * would be a job that never ends. */
		traces[s]->end_ns = sc->replay_end_ms < 0 ? -1
				    : sc->replay_end_ms > MAX_DUE_MS
					    ? MAX_DUE_MS * 1000000
					    : sc->replay_end_ms * 1000000;
	}
	r = check_key_types(traces, topo, err, errlen);
	if (r != 0) {
		wm_replay_free_all(traces, topo->n_stages);
		return r;
	}
	*tracesp = traces;
	return 0;
}
