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

#include "runtime/replay.h"

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
};

/* A signed 64-bit decimal integer, whole field. */
static bool
parse_i64(const char *s, size_t len, int64_t *v)
{
	char buf[32], *end;

	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	long long x = strtoll(buf, &end, 10);

	if (errno != 0 || *end != '\0')
		return false;
	*v = x;
	return true;
}

/* The value of "key": in a flat JSON object of integers. */
static bool
json_field(const char *line, const char *key, int64_t *v)
{
	char pattern[32];
	const char *p;
	size_t len;

	snprintf(pattern, sizeof(pattern), "\"%s\"", key);
	p = strstr(line, pattern);
	if (p == NULL)
		return false;
	p += strlen(pattern);
	p += strspn(p, " \t");
	if (*p++ != ':')
		return false;
	p += strspn(p, " \t");
	len = strspn(p, "-0123456789");
	return parse_i64(p, len, v);
}

/* One line into fields: partition, timestamp, key, value[, arrival].
 * Returns the field count parsed, or -1 with the bad field's name. */
static int
parse_line(const char *line, int64_t f[5], const char **bad)
{
	static const char *const names[] = {"partition", "timestamp", "key",
					    "value", "arrival"};
	int n = 0;

	if (line[0] == '{') {
		for (n = 0; n < 4; n++)
			if (!json_field(line, names[n], &f[n])) {
				*bad = names[n];
				return -1;
			}
		return json_field(line, "arrival", &f[4]) ? 5 : 4;
	}
	for (const char *p = line;; n++) {
		size_t len = strcspn(p, ",\r\n");

		if (n == 5 || !parse_i64(p, len, &f[n])) {
			*bad = n < 5 ? names[n] : "line (too many fields)";
			return -1;
		}
		p += len;
		if (*p != ',')
			break;
		p++;
	}
	n++;
	if (n < 4) {
		*bad = names[n];
		return -1;
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
	for (uint32_t i = 0; i < r->n_partitions; i++)
		if (r->partitions[i] == out->partition)
			r->emitted[i]++;
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
	.partition_stats = replay_partition_stats,
	.free = replay_free,
};

static bool
owned(const uint32_t *partitions, size_t n, uint32_t p)
{
	for (size_t i = 0; i < n; i++)
		if (partitions[i] == p)
			return true;
	return false;
}

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
	size_t cap = 0, cap_items = 0;
	long lineno = 0;
	int64_t first_ts = 0;
	bool have_first = false, have_content = false;
	/* Every subtask reads the whole trace; the owner of partition 0
	 * (there is exactly one) reports and counts the bad lines. */
	bool reporter = owned(partitions, n, 0);

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
	if (r->partitions == NULL || r->emitted == NULL)
		goto nomem;
	memcpy(r->partitions, partitions, n * sizeof(*partitions));
	while (getline(&line, &cap, f) >= 0) {
		int64_t fld[5] = {0};
		const char *bad = NULL;
		int k;

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		/* A header, if any, is the first line that is not a
		 * comment. */
		if (!have_content && strncmp(line, "partition", 9) == 0) {
			have_content = true;
			continue;
		}
		have_content = true;
		k = parse_line(line, fld, &bad);
		if (k > 0 && (fld[0] < 0 || fld[0] >= total)) {
			bad = "partition (not a partition of this source)";
			k = -1;
		}
		if (k > 0 && pacing == WM_REPLAY_ARRIVAL && k < 5) {
			bad = "arrival (pacing = arrival needs it)";
			k = -1;
		}
		if (k > 0 && k == 5 && fld[4] < 0) {
			bad = "arrival (negative)";
			k = -1;
		}
		if (k < 0) {
			if (skip_bad) {
				if (reporter) {
					fprintf(stderr,
						"wmrun: %s:%ld: skipped: "
						"invalid %s\n",
						path, lineno, bad);
					(*skipped)++;
				}
				continue;
			}
			snprintf(err, errlen, "%s:%ld: invalid %s", path,
				 lineno, bad);
			free(line);
			fclose(f);
			replay_free(&r->source);
			errno = EINVAL;
			return NULL;
		}
		if (!have_first) {
			first_ts = fld[1];
			have_first = true;
		}
		if (!owned(partitions, n, (uint32_t)fld[0]))
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
			.ts = fld[1],
			.key = fld[2],
			.value = fld[3],
			.flags = (uint32_t)r->n, /* file order, for ties */
			.partition = (uint32_t)fld[0],
		};
		if (pacing == WM_REPLAY_FAST)
			it->due_ns = 0;
		else if (pacing == WM_REPLAY_ARRIVAL)
			it->due_ns = fld[4] * 1000000;
		else /* event: the trace's event time, from its start */
			it->due_ns = fld[1] <= first_ts
					     ? 0
					     : (fld[1] - first_ts) * 1000000;
		r->n++;
	}
	/* getline() ends on a read error as on the end of the file: a
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
