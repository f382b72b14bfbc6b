/*
 * check_codec.c
 *	Unit tests of the engine's record codec: a record carried as a frame,
 *	put from it into a ring's run and read back in place or popped, comes
 *	out exactly as it went in, at the limits of every field.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/engine/codec.h"
#include "tests/unit/check_main.h"

static const struct wm_record samples[] = {
	{.ts = WM_TS_MIN, .key = INT64_MIN, .value = INT64_MAX},
	{.ts = WM_TS_MAX, .key = -1, .value = INT64_MIN, .flags = 0xffff},
	{.ts = -1, .key = 42, .value = -42, .partition = 0xffff},
	{.ts = 0,
	 .key = 0,
	 .value = 0,
	 .flags = WM_RECORD_PUNCTUATE,
	 .partition = WM_TOPOLOGY_MAX_PARTITIONS - 1},
	{.ts = 1733050000000, .key = 7, .value = 1, .partition = 12345},
};

#define N_SAMPLES (sizeof(samples) / sizeof(samples[0]))

static void
assert_same(const struct wm_record *got, const struct wm_record *want)
{
	ck_assert_int_eq(got->ts, want->ts);
	ck_assert_int_eq(got->key, want->key);
	ck_assert_int_eq(got->value, want->value);
	ck_assert_uint_eq(got->flags, want->flags);
	ck_assert_uint_eq(got->partition, want->partition);
}

START_TEST(test_codec_record_survives_a_frame)
{
	for (size_t i = 0; i < N_SAMPLES; i++) {
		struct wm_frame f;
		struct wm_record r;

		wm_codec_record_frame(&samples[i], &f);
		ck_assert_int_eq(f.kind, WM_FRAME_RECORD);
		ck_assert(wm_frame_valid(f.kind, f.arg));
		wm_codec_frame_record(&f, &r);
		assert_same(&r, &samples[i]);
	}
}
END_TEST

/* Put into a ring across its end, read back in place and popped as
 * frames: the ways agree. */
START_TEST(test_codec_record_survives_a_ring_in_place)
{
	uint32_t cells = WM_RING_MIN_CELLS;
	size_t bytes = wm_ring_size(cells);
	struct wm_ring *ring =
		aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
	struct wm_ring_producer p;
	struct wm_ring_consumer c;

	ck_assert_ptr_nonnull(ring);
	memset(ring, 0, bytes);
	ck_assert_int_eq(wm_ring_init(ring, cells), 0);
	wm_ring_producer_attach(&p, ring, NULL);
	p.paired_stores = _i == 1 && wm_ring_paired_stores_supported();
	wm_ring_consumer_attach(&c, ring, NULL);
	for (uint32_t lap = 0; lap < 3 * cells; lap += N_SAMPLES) {
		struct wm_ring_span s = wm_ring_reserve(&p, N_SAMPLES);
		const struct wm_cell *run;
		uint32_t n;

		ck_assert_uint_eq(s.n, N_SAMPLES);
		/* As a worker pushes its staged run. */
		for (uint32_t i = 0; i < s.n; i++) {
			struct wm_frame f;

			wm_codec_record_frame(&samples[i], &f);
			wm_ring_put(&s, i, f.arg, f.payload[0], f.payload[1],
				    f.payload[2]);
		}
		wm_ring_commit(&p, s.n);
		/* In place, as far as the end of the ring lets a run go. */
		n = wm_ring_peek_records(&c, &run, N_SAMPLES);
		ck_assert_uint_gt(n, 0);
		for (uint32_t i = 0; i < n; i++) {
			struct wm_record r;

			wm_codec_cell_record(&run[i], &r);
			assert_same(&r, &samples[i]);
		}
		wm_ring_consume_run(&c, n);
		/* The rest as frames. */
		for (uint32_t i = n; i < N_SAMPLES; i++) {
			struct wm_frame f;
			struct wm_record r;

			ck_assert_int_eq(wm_ring_pop(&c, &f), 1);
			ck_assert_int_eq(f.kind, WM_FRAME_RECORD);
			wm_codec_frame_record(&f, &r);
			assert_same(&r, &samples[i]);
		}
	}
	free(ring);
}
END_TEST

static Suite *
codec_suite(void)
{
	Suite *s = suite_create("codec");
	TCase *tc = tcase_create("record");

	tcase_add_test(tc, test_codec_record_survives_a_frame);
	/* _i == 1: cells published with paired stores where allowed. */
	tcase_add_loop_test(tc, test_codec_record_survives_a_ring_in_place, 0,
			    2);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(codec_suite());
}
