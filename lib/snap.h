/*
 * snap.h
 *	The byte codec of snapshots: what an operator writes of its state at
 *	a checkpoint, and reads back at a restore.
 *
 * A snapshot is a byte string of fixed-width little-endian integers,
 * length-prefixed blocks and nested sections. A section is a header of
 * (tag u32, version u32, body length u64) and its body; the reader enters
 * a section only if the tag and the version are the ones it asks for, and
 * reads nothing past the end of the innermost section it is in, so an
 * operator's reader can never wander into its neighbour's bytes. Leaving a
 * section requires that its body was read to the end: bytes left over are
 * as wrong as bytes missing.
 *
 * Errors are sticky in both directions, so that a long sequence of puts or
 * gets is checked once at the end:
 *  - the writer: a failed growth (-ENOMEM) or an unbalanced section
 *    (-EINVAL) is kept, later puts do nothing, wm_snap_writer_error()
 *    returns it;
 *  - the reader: a read past the end, a wrong tag, an absurd length
 *    (-EBADMSG), a version it does not know (-ENOTSUP), or a value the
 *    owner refuses (wm_snap_reader_fail(), e.g. -EINVAL for a snapshot of
 *    another configuration) is kept, every later get returns 0, and
 *    wm_snap_reader_error() returns it. The reader never reads a byte
 *    outside [bytes, bytes + len) and never allocates.
 *
 * Lives in operators/ because its writers are the operators and the
 * sources (the runtime above them stores the bytes as opaque blobs);
 * base/ holds only headers of shared vocabulary, no library. The byte
 * order is fixed, so a snapshot reads the same on any machine. Not
 * thread-safe: one writer or reader per thread.
 */
#ifndef WM_LIB_SNAP_H
#define WM_LIB_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sections nest at most this deep. */
#define WM_SNAP_MAX_DEPTH 8

/* A four-character section tag, readable in a hex dump. */
#define WM_SNAP_TAG(a, b, c, d)                                                \
	((uint32_t)(uint8_t)(a) | (uint32_t)(uint8_t)(b) << 8 |                \
	 (uint32_t)(uint8_t)(c) << 16 | (uint32_t)(uint8_t)(d) << 24)

struct wm_snap_writer {
	uint8_t *buf; /* heap; NULL until the first byte */
	size_t len, cap;
	int err; /* 0, -ENOMEM or -EINVAL; sticky */
	unsigned depth;
	/* Offsets of the open sections' length fields. */
	size_t open[WM_SNAP_MAX_DEPTH];
};

void wm_snap_writer_init(struct wm_snap_writer *w);
/* Free the buffer; the writer may be initialised again. */
void wm_snap_writer_release(struct wm_snap_writer *w);

void wm_snap_put_u8(struct wm_snap_writer *w, uint8_t v);
void wm_snap_put_u32(struct wm_snap_writer *w, uint32_t v);
void wm_snap_put_u64(struct wm_snap_writer *w, uint64_t v);
void wm_snap_put_i64(struct wm_snap_writer *w, int64_t v);
/* A boolean as one byte, 0 or 1 (the reader refuses anything else). */
void wm_snap_put_bool(struct wm_snap_writer *w, bool v);
/* A block: its length (u64), then its `len` bytes. */
void wm_snap_put_block(struct wm_snap_writer *w, const void *bytes, size_t len);

/* Open a section; every begin needs its end. */
void wm_snap_begin(struct wm_snap_writer *w, uint32_t tag, uint32_t version);
void wm_snap_end(struct wm_snap_writer *w);

/* Record an error of the caller's (a negative errno, e.g. -ENOTSUP for
 * state that cannot be written); the first error stays. */
void wm_snap_writer_fail(struct wm_snap_writer *w, int err);

/* 0, or the first error: -ENOMEM, or -EINVAL for a section left open (or
 * closed without being opened, or nested too deep). */
int wm_snap_writer_error(const struct wm_snap_writer *w);

/* The bytes written so far (valid until the next put). */
static inline const uint8_t *
wm_snap_writer_bytes(const struct wm_snap_writer *w)
{
	return w->buf;
}

static inline size_t
wm_snap_writer_len(const struct wm_snap_writer *w)
{
	return w->len;
}

struct wm_snap_reader {
	const uint8_t *bytes;
	size_t pos;
	size_t end; /* the innermost section's end, or the whole length */
	int err;    /* sticky; see the top of the file */
	unsigned depth;
	size_t outer_end[WM_SNAP_MAX_DEPTH]; /* ends to go back to */
};

/* Read `len` bytes at `bytes`, which must outlive the reader. */
void wm_snap_reader_init(struct wm_snap_reader *r, const void *bytes,
			 size_t len);

uint8_t wm_snap_get_u8(struct wm_snap_reader *r);
uint32_t wm_snap_get_u32(struct wm_snap_reader *r);
uint64_t wm_snap_get_u64(struct wm_snap_reader *r);
int64_t wm_snap_get_i64(struct wm_snap_reader *r);
bool wm_snap_get_bool(struct wm_snap_reader *r);

/*
 * A block: *bytes points into the reader's buffer, *len is its length.
 * Returns 0, or the reader's error (then *bytes = NULL, *len = 0).
 */
int wm_snap_get_block(struct wm_snap_reader *r, const void **bytes,
		      size_t *len);

/*
 * A count of items (u64) that each take at least `min_bytes` > 0 bytes of
 * what remains of the current section: a count the bytes cannot hold is
 * -EBADMSG, so that a caller may allocate for it without trusting it.
 * Returns the count, 0 on error.
 */
uint64_t wm_snap_get_count(struct wm_snap_reader *r, size_t min_bytes);

/*
 * Enter the section that starts here, if it has `tag` and `version`: 0,
 * -EBADMSG (short, another tag, a body longer than what holds it, nested
 * too deep) or -ENOTSUP (another version), also kept as the error.
 */
int wm_snap_enter(struct wm_snap_reader *r, uint32_t tag, uint32_t version);

/* Leave the current section, which must have been read to its end: 0 or
 * the reader's error (-EBADMSG for bytes left over). */
int wm_snap_leave(struct wm_snap_reader *r);

/* Record an error found in the values read (a negative errno); the first
 * error stays. Returns the reader's error. */
int wm_snap_reader_fail(struct wm_snap_reader *r, int err);

/* 0, or the first error. */
int wm_snap_reader_error(const struct wm_snap_reader *r);

/* Bytes left in the current section. */
static inline size_t
wm_snap_reader_left(const struct wm_snap_reader *r)
{
	return r->err != 0 ? 0 : r->end - r->pos;
}

#endif /* WM_LIB_SNAP_H */
