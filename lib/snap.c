/*
 * snap.c
 *	Snapshot bytes: a growable little-endian writer and a bounds-checked
 *	reader of nested sections (snap.h).
 *
 * A section header is 16 bytes: tag, version, body length. The writer
 * leaves the length at 0 when it opens a section and patches it when it
 * closes it. The reader's invariant: pos <= end <= every outer end <=
 * the buffer's length, so checking a read against `end` alone keeps it
 * inside the buffer.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/snap.h"

void
wm_snap_writer_init(struct wm_snap_writer *w)
{
	memset(w, 0, sizeof(*w));
}

void
wm_snap_writer_release(struct wm_snap_writer *w)
{
	free(w->buf);
	memset(w, 0, sizeof(*w));
}

/* Room for n more bytes; false (and the error kept) if there is none. */
static bool
writer_room(struct wm_snap_writer *w, size_t n)
{
	size_t cap;
	uint8_t *buf;

	if (w->err != 0)
		return false;
	if (n <= w->cap - w->len)
		return true;
	if (n > SIZE_MAX / 2 - w->len) {
		w->err = -ENOMEM;
		return false;
	}
	cap = w->cap != 0 ? w->cap : 256;
	while (cap - w->len < n)
		cap *= 2;
	buf = realloc(w->buf, cap);
	if (buf == NULL) {
		w->err = -ENOMEM;
		return false;
	}
	w->buf = buf;
	w->cap = cap;
	return true;
}

static void
store_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t
load_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void
put_le(struct wm_snap_writer *w, uint64_t v, unsigned n)
{
	if (!writer_room(w, n))
		return;
	store_le(w->buf + w->len, v, n);
	w->len += n;
}

void
wm_snap_put_u8(struct wm_snap_writer *w, uint8_t v)
{
	put_le(w, v, 1);
}

void
wm_snap_put_u32(struct wm_snap_writer *w, uint32_t v)
{
	put_le(w, v, 4);
}

void
wm_snap_put_u64(struct wm_snap_writer *w, uint64_t v)
{
	put_le(w, v, 8);
}

void
wm_snap_put_i64(struct wm_snap_writer *w, int64_t v)
{
	put_le(w, (uint64_t)v, 8);
}

void
wm_snap_put_bool(struct wm_snap_writer *w, bool v)
{
	put_le(w, v ? 1 : 0, 1);
}

void
wm_snap_put_block(struct wm_snap_writer *w, const void *bytes, size_t len)
{
	wm_snap_put_u64(w, len);
	if (len == 0 || !writer_room(w, len))
		return;
	memcpy(w->buf + w->len, bytes, len);
	w->len += len;
}

void
wm_snap_begin(struct wm_snap_writer *w, uint32_t tag, uint32_t version)
{
	if (w->err != 0)
		return;
	if (w->depth == WM_SNAP_MAX_DEPTH) {
		w->err = -EINVAL;
		return;
	}
	wm_snap_put_u32(w, tag);
	wm_snap_put_u32(w, version);
	wm_snap_put_u64(w, 0); /* patched by wm_snap_end() */
	if (w->err == 0)
		w->open[w->depth++] = w->len - 8;
}

void
wm_snap_end(struct wm_snap_writer *w)
{
	size_t at;

	if (w->err != 0)
		return;
	if (w->depth == 0) {
		w->err = -EINVAL;
		return;
	}
	at = w->open[--w->depth];
	store_le(w->buf + at, w->len - (at + 8), 8);
}

void
wm_snap_writer_fail(struct wm_snap_writer *w, int err)
{
	if (w->err == 0)
		w->err = err;
}

int
wm_snap_writer_error(const struct wm_snap_writer *w)
{
	if (w->err != 0)
		return w->err;
	return w->depth == 0 ? 0 : -EINVAL;
}

void
wm_snap_reader_init(struct wm_snap_reader *r, const void *bytes, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->bytes = bytes;
	r->end = len;
}

int
wm_snap_reader_fail(struct wm_snap_reader *r, int err)
{
	if (r->err == 0)
		r->err = err;
	return r->err;
}

int
wm_snap_reader_error(const struct wm_snap_reader *r)
{
	return r->err;
}

/* The next n bytes of the current section, or NULL (error kept). */
static const uint8_t *
reader_take(struct wm_snap_reader *r, size_t n)
{
	const uint8_t *p;

	if (r->err != 0)
		return NULL;
	if (n > r->end - r->pos) {
		r->err = -EBADMSG;
		return NULL;
	}
	p = r->bytes + r->pos;
	r->pos += n;
	return p;
}

static uint64_t
get_le(struct wm_snap_reader *r, unsigned n)
{
	const uint8_t *p = reader_take(r, n);

	return p != NULL ? load_le(p, n) : 0;
}

uint8_t
wm_snap_get_u8(struct wm_snap_reader *r)
{
	return (uint8_t)get_le(r, 1);
}

uint32_t
wm_snap_get_u32(struct wm_snap_reader *r)
{
	return (uint32_t)get_le(r, 4);
}

uint64_t
wm_snap_get_u64(struct wm_snap_reader *r)
{
	return get_le(r, 8);
}

int64_t
wm_snap_get_i64(struct wm_snap_reader *r)
{
	return (int64_t)get_le(r, 8);
}

bool
wm_snap_get_bool(struct wm_snap_reader *r)
{
	uint8_t v = wm_snap_get_u8(r);

	if (v > 1)
		wm_snap_reader_fail(r, -EBADMSG);
	return v == 1;
}

int
wm_snap_get_block(struct wm_snap_reader *r, const void **bytes, size_t *len)
{
	uint64_t n = wm_snap_get_u64(r);
	const uint8_t *p = NULL;

	/* Compared before the cast: a length above SIZE_MAX is absurd. */
	if (r->err == 0 && n > r->end - r->pos)
		r->err = -EBADMSG;
	else
		p = reader_take(r, (size_t)n);
	*bytes = r->err == 0 ? p : NULL;
	*len = r->err == 0 ? (size_t)n : 0;
	return r->err;
}

uint64_t
wm_snap_get_count(struct wm_snap_reader *r, size_t min_bytes)
{
	uint64_t n = wm_snap_get_u64(r);

	if (r->err != 0)
		return 0;
	if (min_bytes == 0 || n > (r->end - r->pos) / min_bytes) {
		r->err = -EBADMSG;
		return 0;
	}
	return n;
}

int
wm_snap_enter(struct wm_snap_reader *r, uint32_t tag, uint32_t version)
{
	uint32_t t, v;
	uint64_t len;

	if (r->err == 0 && r->depth == WM_SNAP_MAX_DEPTH)
		r->err = -EBADMSG;
	t = wm_snap_get_u32(r);
	v = wm_snap_get_u32(r);
	len = wm_snap_get_u64(r);
	if (r->err != 0)
		return r->err;
	if (t != tag || len > r->end - r->pos)
		return r->err = -EBADMSG;
	if (v != version)
		return r->err = -ENOTSUP;
	r->outer_end[r->depth++] = r->end;
	r->end = r->pos + (size_t)len;
	return 0;
}

int
wm_snap_leave(struct wm_snap_reader *r)
{
	if (r->err != 0)
		return r->err;
	if (r->depth == 0 || r->pos != r->end)
		return r->err = -EBADMSG;
	r->end = r->outer_end[--r->depth];
	return 0;
}
