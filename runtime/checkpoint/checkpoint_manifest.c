/*
 * checkpoint_manifest.c
 *	A checkpoint's manifest written and parsed, and its directory's name
 *	read back (checkpoint_manifest.h), with one strict reader of lines
 *	and numbers for both.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/checkpoint/checkpoint_manifest.h"
#include "runtime/checkpoint/crc32c.h"

#define MANIFEST_MAGIC "wmrun checkpoint 2\n"
/* The manifest's last line: "crc32c " 8 hex digits '\n'. */
#define MANIFEST_TAIL_LEN 16

int
wm_checkpoint_manifest_text(const struct manifest *m, char **out,
			    size_t *outlen)
{
	/* Each blob line is at most "blob " 10 ' ' 20 ' ' 8 '\n': 46. */
	size_t cap = 256 + (size_t)m->subtasks * 48;
	char *t = malloc(cap);
	size_t n;

	if (t == NULL)
		return -ENOMEM;
	n = (size_t)snprintf(t, cap,
			     MANIFEST_MAGIC "job %016" PRIx64 "\n"
					    "id %" PRIu64 "\n"
					    "subtasks %" PRIu32 "\n"
					    "trigger_time_ms %" PRId64 "\n"
					    "event_time_origin_ms %" PRId64
					    "\n",
			     m->fingerprint, m->id, m->subtasks,
			     m->trigger_time_ms, m->event_time_origin_ms);
	for (uint32_t i = 0; i < m->subtasks; i++)
		n += (size_t)snprintf(t + n, cap - n,
				      "blob %" PRIu32 " %" PRIu64 " %08" PRIx32
				      "\n",
				      i, m->blobs[i].size, m->blobs[i].crc);
	n += (size_t)snprintf(t + n, cap - n, "crc32c %08" PRIx32 "\n",
			      wm_crc32c(WM_CRC32C_INIT, t, n));
	*out = t;
	*outlen = n;
	return 0;
}

/* A cursor over a manifest's text; `line` counts for messages. */
struct cursor {
	const char *p, *end;
	unsigned line;
};

static bool
take(struct cursor *c, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
		return false;
	c->p += n;
	return true;
}

/* An unsigned number in `base` (10 or 16) up to `max`, at least a digit,
 * no sign, no leading zero but for 0 itself. */
static bool
take_number(struct cursor *c, unsigned base, uint64_t max, uint64_t *v)
{
	const char *start = c->p;

	*v = 0;
	while (c->p < c->end) {
		unsigned d;
		char ch = *c->p;

		if (ch >= '0' && ch <= '9')
			d = (unsigned)(ch - '0');
		else if (base == 16 && ch >= 'a' && ch <= 'f')
			d = (unsigned)(ch - 'a' + 10);
		else
			break;
		if (*v > (max - d) / base)
			return false;
		*v = *v * base + d;
		c->p++;
	}
	return c->p > start &&
	       (base == 16 || *start != '0' || c->p - start == 1);
}

/* "KEY NUMBER\n". */
static bool
take_line(struct cursor *c, const char *key, unsigned base, uint64_t max,
	  uint64_t *v)
{
	c->line++;
	return take(c, key) && take(c, " ") && take_number(c, base, max, v) &&
	       take(c, "\n");
}

/*
 * Whether the manifest's text is long enough to be one and ends with the
 * checksum of the lines before it; false with `err`. Checked before a
 * line is read, so that a torn or damaged file is named as such, not by
 * the first line that it happens to break.
 */
static bool
manifest_sum_matches(const char *text, size_t len, char *err, size_t errlen)
{
	struct cursor tail;
	uint64_t sum;

	if (len < sizeof(MANIFEST_MAGIC) + MANIFEST_TAIL_LEN) {
		snprintf(err, errlen, "is %zu bytes, too short for a manifest",
			 len);
		return false;
	}
	tail = (struct cursor){text + len - MANIFEST_TAIL_LEN, text + len, 0};
	if (!take(&tail, "crc32c ") ||
	    !take_number(&tail, 16, UINT32_MAX, &sum) || !take(&tail, "\n") ||
	    tail.p != tail.end) {
		snprintf(err, errlen,
			 "does not end with its checksum (truncated?)");
		return false;
	}
	if (wm_crc32c(WM_CRC32C_INIT, text, len - MANIFEST_TAIL_LEN) !=
	    (uint32_t)sum) {
		snprintf(err, errlen,
			 "checksum %08" PRIx32 " does not match its contents "
			 "(%08" PRIx32 ")",
			 (uint32_t)sum,
			 wm_crc32c(WM_CRC32C_INIT, text,
				   len - MANIFEST_TAIL_LEN));
		return false;
	}
	return true;
}

bool
wm_checkpoint_manifest_parse(const char *text, size_t len, struct manifest *m,
			     char *err, size_t errlen)
{
	uint64_t fingerprint, id, subtasks, trigger, origin, v;
	struct cursor c;
	bool negative;

	memset(m, 0, sizeof(*m));
	if (!manifest_sum_matches(text, len, err, errlen))
		return false;
	c = (struct cursor){text, text + len - MANIFEST_TAIL_LEN, 1};
	if (!take(&c, MANIFEST_MAGIC)) {
		snprintf(err, errlen,
			 "line 1: not a wmrun checkpoint manifest");
		return false;
	}
	if (!take_line(&c, "job", 16, UINT64_MAX, &fingerprint) ||
	    !take_line(&c, "id", 10, UINT64_MAX, &id) ||
	    !take_line(&c, "subtasks", 10, UINT32_MAX, &subtasks))
		goto bad_line;
	c.line++;
	negative = take(&c, "trigger_time_ms -");
	if (!negative && !take(&c, "trigger_time_ms "))
		goto bad_line;
	if (!take_number(&c, 10, (uint64_t)INT64_MAX, &trigger) ||
	    !take(&c, "\n") ||
	    !take_line(&c, "event_time_origin_ms", 10, (uint64_t)INT64_MAX,
		       &origin))
		goto bad_line;
	m->event_time_origin_ms = (int64_t)origin;
	m->fingerprint = fingerprint;
	m->id = id;
	m->subtasks = (uint32_t)subtasks;
	m->trigger_time_ms = negative ? -(int64_t)trigger : (int64_t)trigger;
	/* Every blob line is 13 bytes at least: no more of them fit. */
	if (subtasks > (size_t)(c.end - c.p) / 13) {
		snprintf(err, errlen,
			 "line 4: %" PRIu64 " subtasks cannot be "
			 "listed in the rest of the file",
			 subtasks);
		return false;
	}
	m->blobs = calloc(subtasks > 0 ? subtasks : 1, sizeof(*m->blobs));
	if (m->blobs == NULL) {
		snprintf(err, errlen, "out of memory");
		return false;
	}
	for (uint32_t i = 0; i < m->subtasks; i++) {
		c.line++;
		if (!take(&c, "blob ") ||
		    !take_number(&c, 10, UINT32_MAX, &v) || v != i ||
		    !take(&c, " ") ||
		    !take_number(&c, 10, (uint64_t)INT64_MAX,
				 &m->blobs[i].size) ||
		    !take(&c, " ") || !take_number(&c, 16, UINT32_MAX, &v) ||
		    !take(&c, "\n"))
			goto bad_blob;
		m->blobs[i].crc = (uint32_t)v;
		m->blobs[i].present = true;
	}
	if (c.p != c.end) {
		snprintf(err, errlen, "line %u: text after the last blob",
			 c.line + 1);
		goto bad;
	}
	return true;
bad_line:
	snprintf(err, errlen, "line %u: not what a manifest has there", c.line);
	return false;
bad_blob:
	snprintf(err, errlen, "line %u: not the line of blob %u", c.line,
		 c.line - 7);
bad:
	free(m->blobs);
	m->blobs = NULL;
	return false;
}

bool
wm_checkpoint_manifest_dir_id(const char *name, uint64_t *id)
{
	struct cursor c = {name, name + strlen(name), 0};

	return take(&c, "chk-") && take_number(&c, 10, UINT64_MAX, id) &&
	       c.p == c.end;
}
