/*
 * check_snap.c
 *	Unit tests of the snapshot byte codec (lib/snap.c): values and
 *	sections round trip in a fixed little-endian layout; every malformed
 *	input (each truncation, a flipped byte in a header, a wrong tag or
 *	version, bytes left over, absurd lengths) is an error code, never a
 *	read outside the buffer; a writer that runs out of memory says so.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/snap.h"
#include "tests/unit/alloc_limit.h"
#include "tests/unit/check_main.h"

#define TAG_OUTER WM_SNAP_TAG('O', 'U', 'T', 'R')
#define TAG_INNER WM_SNAP_TAG('I', 'N', 'N', 'R')

/* A snapshot using every kind of value, nested. */
static void
write_sample(struct wm_snap_writer *w)
{
	wm_snap_begin(w, TAG_OUTER, 3);
	wm_snap_put_u8(w, 0xab);
	wm_snap_put_u32(w, 0x01020304u);
	wm_snap_begin(w, TAG_INNER, 1);
	wm_snap_put_i64(w, INT64_MIN);
	wm_snap_put_u64(w, 2); /* a count */
	wm_snap_put_i64(w, -1);
	wm_snap_put_i64(w, 42);
	wm_snap_end(w);
	wm_snap_put_block(w, "hello", 5);
	wm_snap_put_bool(w, true);
	wm_snap_end(w);
}

/* Read the sample back; the reader's error (0 when all is well). */
static int
read_sample(const void *bytes, size_t len)
{
	struct wm_snap_reader r;
	const void *block;
	size_t block_len;
	uint64_t n;

	wm_snap_reader_init(&r, bytes, len);
	if (wm_snap_enter(&r, TAG_OUTER, 3) != 0)
		return wm_snap_reader_error(&r);
	if (wm_snap_get_u8(&r) != 0xab && r.err == 0)
		wm_snap_reader_fail(&r, -EINVAL);
	if (wm_snap_get_u32(&r) != 0x01020304u && r.err == 0)
		wm_snap_reader_fail(&r, -EINVAL);
	if (wm_snap_enter(&r, TAG_INNER, 1) != 0)
		return wm_snap_reader_error(&r);
	if (wm_snap_get_i64(&r) != INT64_MIN && r.err == 0)
		wm_snap_reader_fail(&r, -EINVAL);
	n = wm_snap_get_count(&r, 8);
	for (uint64_t i = 0; i < n; i++) {
		int64_t v = wm_snap_get_i64(&r);

		if (r.err == 0 && (n != 2 || v != (i == 0 ? -1 : 42)))
			wm_snap_reader_fail(&r, -EINVAL);
	}
	wm_snap_leave(&r);
	if (wm_snap_get_block(&r, &block, &block_len) == 0 &&
	    (block_len != 5 || memcmp(block, "hello", 5) != 0))
		wm_snap_reader_fail(&r, -EINVAL);
	if (!wm_snap_get_bool(&r) && r.err == 0)
		wm_snap_reader_fail(&r, -EINVAL);
	wm_snap_leave(&r);
	/* Nothing may follow the outer section. */
	if (r.err == 0 && r.pos != len)
		wm_snap_reader_fail(&r, -EBADMSG);
	return wm_snap_reader_error(&r);
}

START_TEST(test_round_trip)
{
	struct wm_snap_writer w;

	wm_snap_writer_init(&w);
	write_sample(&w);
	ck_assert_int_eq(wm_snap_writer_error(&w), 0);
	ck_assert_int_eq(
		read_sample(wm_snap_writer_bytes(&w), wm_snap_writer_len(&w)),
		0);
	wm_snap_writer_release(&w);
}
END_TEST

/* The layout is fixed: a snapshot reads the same on every machine. */
START_TEST(test_little_endian_layout)
{
	static const uint8_t expect[] = {
		'O',  'U',  'T',  'R',	7,    0,    0,	  0, /* tag, version */
		12,   0,    0,	  0,	0,    0,    0,	  0, /* body length */
		0x04, 0x03, 0x02, 0x01,			     /* u32 */
		0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* i64 -2 */
	};
	struct wm_snap_writer w;

	wm_snap_writer_init(&w);
	wm_snap_begin(&w, TAG_OUTER, 7);
	wm_snap_put_u32(&w, 0x01020304u);
	wm_snap_put_i64(&w, -2);
	wm_snap_end(&w);
	ck_assert_int_eq(wm_snap_writer_error(&w), 0);
	ck_assert_uint_eq(wm_snap_writer_len(&w), sizeof(expect));
	ck_assert_mem_eq(wm_snap_writer_bytes(&w), expect, sizeof(expect));
	wm_snap_writer_release(&w);
}
END_TEST

/* Every proper prefix is an error; the copy has exactly the prefix's
 * length, so that ASan sees a read past it. */
START_TEST(test_every_truncation_is_an_error)
{
	struct wm_snap_writer w;

	wm_snap_writer_init(&w);
	write_sample(&w);
	for (size_t len = 0; len < wm_snap_writer_len(&w); len++) {
		uint8_t *copy = malloc(len ? len : 1);

		ck_assert_ptr_nonnull(copy);
		memcpy(copy, wm_snap_writer_bytes(&w), len);
		ck_assert_int_eq(read_sample(copy, len), -EBADMSG);
		free(copy);
	}
	wm_snap_writer_release(&w);
}
END_TEST

/* Any byte changed in any position: an error or the same values, never
 * a crash; a change in a tag or a length field is always an error. */
START_TEST(test_every_flipped_byte_is_safe)
{
	struct wm_snap_writer w;
	size_t len;
	uint8_t *copy;

	wm_snap_writer_init(&w);
	write_sample(&w);
	len = wm_snap_writer_len(&w);
	copy = malloc(len);
	ck_assert_ptr_nonnull(copy);
	for (size_t i = 0; i < len; i++) {
		int err;

		memcpy(copy, wm_snap_writer_bytes(&w), len);
		copy[i] ^= 0x80;
		err = read_sample(copy, len);
		if (i < 4 || (i >= 8 && i < 16)) /* outer tag, length */
			ck_assert_int_eq(err, -EBADMSG);
		else if (i >= 4 && i < 8) /* outer version */
			ck_assert_int_eq(err, -ENOTSUP);
		else
			ck_assert_int_ne(err, 0);
	}
	free(copy);
	wm_snap_writer_release(&w);
}
END_TEST

START_TEST(test_wrong_tag_and_version)
{
	struct wm_snap_writer w;
	struct wm_snap_reader r;

	wm_snap_writer_init(&w);
	write_sample(&w);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_snap_enter(&r, TAG_INNER, 3), -EBADMSG);
	/* Sticky: the right tag does not help any more. */
	ck_assert_int_eq(wm_snap_enter(&r, TAG_OUTER, 3), -EBADMSG);
	ck_assert_uint_eq(wm_snap_get_u64(&r), 0);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_snap_enter(&r, TAG_OUTER, 4), -ENOTSUP);
	wm_snap_writer_release(&w);
}
END_TEST

/* A section's reader stops at its end; leaving early is an error. */
START_TEST(test_sections_bound_their_readers)
{
	struct wm_snap_writer w;
	struct wm_snap_reader r;

	wm_snap_writer_init(&w);
	wm_snap_begin(&w, TAG_OUTER, 1);
	wm_snap_begin(&w, TAG_INNER, 1);
	wm_snap_put_u32(&w, 5);
	wm_snap_end(&w);
	wm_snap_put_u64(&w, 9);
	wm_snap_end(&w);

	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_snap_enter(&r, TAG_OUTER, 1), 0);
	ck_assert_int_eq(wm_snap_enter(&r, TAG_INNER, 1), 0);
	ck_assert_uint_eq(wm_snap_reader_left(&r), 4);
	/* The outer section's u64 follows, but not in this section. */
	ck_assert_uint_eq(wm_snap_get_u64(&r), 0);
	ck_assert_int_eq(wm_snap_reader_error(&r), -EBADMSG);

	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_snap_enter(&r, TAG_OUTER, 1), 0);
	ck_assert_int_eq(wm_snap_enter(&r, TAG_INNER, 1), 0);
	ck_assert_int_eq(wm_snap_leave(&r), -EBADMSG); /* 4 bytes left */

	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_snap_enter(&r, TAG_OUTER, 1), 0);
	ck_assert_int_eq(wm_snap_enter(&r, TAG_INNER, 1), 0);
	ck_assert_uint_eq(wm_snap_get_u32(&r), 5);
	ck_assert_int_eq(wm_snap_leave(&r), 0);
	ck_assert_uint_eq(wm_snap_get_u64(&r), 9);
	ck_assert_int_eq(wm_snap_leave(&r), 0);
	/* No section left to leave. */
	ck_assert_int_eq(wm_snap_leave(&r), -EBADMSG);
	wm_snap_writer_release(&w);
}
END_TEST

START_TEST(test_absurd_lengths)
{
	struct wm_snap_writer w;
	struct wm_snap_reader r;
	const void *p;
	size_t len;

	/* A block claiming 2^64 - 1 bytes. */
	wm_snap_writer_init(&w);
	wm_snap_put_u64(&w, UINT64_MAX);
	wm_snap_put_u64(&w, 0);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_snap_get_block(&r, &p, &len), -EBADMSG);
	ck_assert_ptr_null(p);
	ck_assert_uint_eq(len, 0);
	/* A count of items the bytes cannot hold. */
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_uint_eq(wm_snap_get_count(&r, 1), 0);
	ck_assert_int_eq(wm_snap_reader_error(&r), -EBADMSG);
	/* Eight bytes hold one item of 8 bytes, not of 9. */
	wm_snap_writer_release(&w);
	wm_snap_writer_init(&w);
	wm_snap_put_u64(&w, 1);
	wm_snap_put_u64(&w, 7);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_uint_eq(wm_snap_get_count(&r, 8), 1);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_uint_eq(wm_snap_get_count(&r, 9), 0);
	ck_assert_int_eq(wm_snap_reader_error(&r), -EBADMSG);
	/* A boolean is 0 or 1. */
	wm_snap_reader_init(&r, (const uint8_t[]){2}, 1);
	(void)wm_snap_get_bool(&r);
	ck_assert_int_eq(wm_snap_reader_error(&r), -EBADMSG);
	wm_snap_writer_release(&w);
}
END_TEST

START_TEST(test_writer_unbalanced_sections)
{
	struct wm_snap_writer w;

	wm_snap_writer_init(&w);
	wm_snap_begin(&w, TAG_OUTER, 1);
	ck_assert_int_eq(wm_snap_writer_error(&w), -EINVAL);
	wm_snap_end(&w);
	ck_assert_int_eq(wm_snap_writer_error(&w), 0);
	wm_snap_end(&w);
	ck_assert_int_eq(wm_snap_writer_error(&w), -EINVAL);
	wm_snap_writer_release(&w);

	wm_snap_writer_init(&w);
	for (int i = 0; i <= WM_SNAP_MAX_DEPTH; i++)
		wm_snap_begin(&w, TAG_INNER, 1);
	ck_assert_int_eq(wm_snap_writer_error(&w), -EINVAL);
	wm_snap_writer_release(&w);
}
END_TEST

/* A growth that fails is kept, and nothing after it is written. */
START_TEST(test_writer_out_of_memory)
{
	static uint8_t big[4096];
	struct wm_snap_writer w;
	size_t len;

	wm_snap_writer_init(&w);
	wm_snap_put_u64(&w, 1);
	len = wm_snap_writer_len(&w);
	wm_alloc_limit = 1024;
	wm_snap_put_block(&w, big, sizeof(big));
	wm_alloc_limit = SIZE_MAX;
	ck_assert_int_eq(wm_snap_writer_error(&w), -ENOMEM);
	wm_snap_put_u64(&w, 2);
	ck_assert_int_eq(wm_snap_writer_error(&w), -ENOMEM);
	/* The length of the block went in before the growth failed. */
	ck_assert_uint_eq(wm_snap_writer_len(&w), len + 8);
	wm_snap_writer_release(&w);
}
END_TEST

static Suite *
snap_suite(void)
{
	Suite *s = suite_create("snap");
	TCase *tc;

	tc = tcase_create("round_trip");
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_little_endian_layout);
	suite_add_tcase(s, tc);

	tc = tcase_create("malformed");
	tcase_add_test(tc, test_every_truncation_is_an_error);
	tcase_add_test(tc, test_every_flipped_byte_is_safe);
	tcase_add_test(tc, test_wrong_tag_and_version);
	tcase_add_test(tc, test_sections_bound_their_readers);
	tcase_add_test(tc, test_absurd_lengths);
	suite_add_tcase(s, tc);

	tc = tcase_create("writer");
	tcase_add_test(tc, test_writer_unbalanced_sections);
	tcase_add_test(tc, test_writer_out_of_memory);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(snap_suite());
}
