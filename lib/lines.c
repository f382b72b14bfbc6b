/*
 * lines.c
 *	Bounded line reading (lines.h).
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lines.h"

/* After a '\r': whether a '\n' followed, read as part of the line end;
 * anything else is the next line's, left unread. */
static bool
after_cr(FILE *f)
{
	int c = getc_unlocked(f);

	if (c == '\n')
		return true;
	if (c != EOF)
		ungetc(c, f);
	return false;
}

size_t
wm_line_read(FILE *f, char *buf, size_t max)
{
	size_t n = 0;
	int c;

	while (n < max && (c = getc_unlocked(f)) != EOF) {
		buf[n++] = (char)c;
		if (c == '\n')
			break;
		/* The '\n' of a "\r\n" is stored when there is room. */
		if (c == '\r') {
			if (after_cr(f) && n < max)
				buf[n++] = '\n';
			break;
		}
	}
	if (n == max && buf[n - 1] != '\n' && buf[n - 1] != '\r') {
		/* Full: a line of exactly max bytes ends here, or it is
		 * longer. */
		c = getc_unlocked(f);
		if (c == '\r')
			after_cr(f);
		else if (c != EOF && c != '\n') {
			ungetc(c, f);
			buf[n] = '\0';
			return max + 1;
		}
	}
	buf[n] = '\0';
	return n;
}

void
wm_line_skip(FILE *f)
{
	int c;

	while ((c = getc_unlocked(f)) != EOF && c != '\n')
		if (c == '\r') {
			after_cr(f);
			return;
		}
}

int
wm_line_blocks_open(struct wm_line_blocks *lb, FILE *f, size_t max,
		    size_t block)
{
	*lb = (struct wm_line_blocks){
		.f = f,
		.size = block + max + 2,
		.max = max,
		.nl = SIZE_MAX,
		.cr = SIZE_MAX,
		.nul = SIZE_MAX,
	};
	lb->buf = malloc(lb->size);
	return lb->buf != NULL ? 0 : -ENOMEM;
}

void
wm_line_blocks_close(struct wm_line_blocks *lb)
{
	free(lb->buf);
	lb->buf = NULL;
}

/*
 * More bytes after the unread ones, which move to the front of the
 * buffer: they are never more than a line and its end (max + 1 bytes, see
 * wm_line_blocks_next()), so a block at least fits behind them. A short
 * read is the end of the file, or an error kept in lb->error. Called only
 * before the end: each call reads a byte or sets eof.
 */
static void
fill(struct wm_line_blocks *lb)
{
	size_t rest = lb->end - lb->pos, want = lb->size - rest, got;

	memmove(lb->buf, lb->buf + lb->pos, rest);
	lb->pos = 0;
	got = fread(lb->buf + rest, 1, want, lb->f);
	if (got < want) {
		lb->eof = true;
		if (ferror(lb->f))
			lb->error = errno != 0 ? errno : EIO;
	}
	lb->end = rest + got;
	/* Every search again, from the front. */
	lb->nl = lb->cr = lb->nul = SIZE_MAX;
	lb->ahead = 0;
}

/* The next byte c at or after pos, or end: searched only when the last
 * search's result lies behind pos or was made before a fill. */
static inline size_t
next_of(struct wm_line_blocks *lb, size_t *at, int c)
{
	if (*at < lb->pos || *at > lb->end) {
		const char *p = memchr(lb->buf + lb->pos, c, lb->end - lb->pos);

		*at = p != NULL ? (size_t)(p - lb->buf) : lb->end;
	}
	return *at;
}

/* The first line end at or after pos, as an index, or end. */
static inline size_t
next_end(struct wm_line_blocks *lb)
{
	size_t nl = next_of(lb, &lb->nl, '\n'), cr = next_of(lb, &lb->cr, '\r');

	return nl < cr ? nl : cr;
}

/* wm_line_skip(): past the next line end, whichever it is. */
static void
skip_rest(struct wm_line_blocks *lb)
{
	size_t t;

	while ((t = next_end(lb)) == lb->end) {
		lb->pos = lb->end;
		if (lb->eof)
			return;
		fill(lb);
	}
	lb->pos = t + 1;
	if (lb->buf[t] != '\r')
		return;
	if (lb->pos == lb->end && !lb->eof)
		fill(lb);
	if (lb->pos < lb->end && lb->buf[lb->pos] == '\n')
		lb->pos++;
}

size_t
wm_line_blocks_ahead(struct wm_line_blocks *lb, const char **lines)
{
	size_t cr, nul, stop;
	const char *last;

	/* The rest of a longer line is read past by wm_line_blocks_next()
	 * first. */
	if (lb->skip)
		return 0;
	if (lb->ahead > lb->pos) {
		*lines = lb->buf + lb->pos;
		return lb->ahead - lb->pos;
	}
	cr = next_of(lb, &lb->cr, '\r');
	nul = next_of(lb, &lb->nul, '\0');
	stop = cr < nul ? cr : nul;
	last = memrchr(lb->buf + lb->pos, '\n', stop - lb->pos);
	if (last == NULL)
		return 0;
	*lines = lb->buf + lb->pos;
	lb->ahead = (size_t)(last + 1 - lb->buf);
	return lb->ahead - lb->pos;
}

size_t
wm_line_blocks_next(struct wm_line_blocks *lb, const char **line, bool *nul)
{
	size_t max = lb->max, got, used;

	if (lb->skip) {
		lb->skip = false;
		skip_rest(lb);
	}
	/* Each turn decides the line with the bytes there are, or reads
	 * more when the decision needs a byte past them: one past a line's
	 * last byte (is it longer?), or past a CR (is it a CRLF?). */
	for (;;) {
		const char *b = lb->buf + lb->pos;
		size_t avail = lb->end - lb->pos;
		size_t t = next_end(lb) - lb->pos; /* avail: none */

		if (t < max && t == avail) {
			/* No end yet: the last line, or more to read. */
			if (!lb->eof) {
				fill(lb);
				continue;
			}
			got = used = avail;
		} else if (t < max && b[t] == '\n') {
			got = used = t + 1;
		} else if (t < max) {
			/* A CR: its LF, if one follows, is stored when there
			 * is room (below max), and read past anyway. */
			if (t + 1 == avail && !lb->eof) {
				fill(lb);
				continue;
			}
			got = used = t + 1;
			if (t + 1 < avail && b[t + 1] == '\n') {
				used++;
				got += t + 1 < max;
			}
		} else if (avail == max && !lb->eof) {
			/* max bytes and no end among them: the next byte
			 * tells whether the line fits. */
			fill(lb);
			continue;
		} else if (avail == max || b[max] == '\n') {
			got = max;
			used = max + (avail > max);
		} else if (b[max] == '\r') {
			if (max + 1 == avail && !lb->eof) {
				fill(lb);
				continue;
			}
			got = max;
			used = max + 1 +
			       (max + 1 < avail && b[max + 1] == '\n');
		} else {
			/* Longer: its first max bytes, the rest read past by
			 * the next call. */
			got = max + 1;
			used = max;
			lb->skip = true;
		}
		*line = b;
		*nul = next_of(lb, &lb->nul, '\0') <
		       lb->pos + (got < max ? got : max);
		lb->pos += used;
		return got;
	}
}
