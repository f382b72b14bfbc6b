/*
 * check_watermark_snapshot.c
 *	Unit tests of the watermark state's checkpoints (checkpoint_watermarks,
 *	beyond Flink): a watermark generator with idleness, the valve, the
 *	two-input combination and the split multiplexer, each driven by a
 *	seeded random input, snapshotted at a point, restored into a new one
 *	of the same configuration; the original and the restored one, given
 *	the same continued input, emit the same watermarks and statuses.
 *	Another configuration is refused.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/container_of.h"
#include "operators/behaviour.h"
#include "operators/multi_input.h"
#include "operators/multiplexer.h"
#include "lib/snap.h"
#include "operators/valve.h"
#include "operators/watermark.h"
#include "tests/unit/check_main.h"

#define STEPS 400

/* ---- what came out ---- */

struct emission {
	bool is_status;
	int64_t value; /* a watermark, or an enum wm_status */
};

struct recorder {
	struct wm_output out;
	struct emission e[4 * STEPS];
	size_t n;
};

static void
rec_watermark(struct wm_output *out, wm_ts_t w)
{
	struct recorder *r = wm_container_of(out, struct recorder, out);

	ck_assert_uint_lt(r->n, 4 * STEPS);
	r->e[r->n++] = (struct emission){.is_status = false, .value = w};
}

static void
rec_status(struct wm_output *out, enum wm_status s)
{
	struct recorder *r = wm_container_of(out, struct recorder, out);

	ck_assert_uint_lt(r->n, 4 * STEPS);
	r->e[r->n++] = (struct emission){.is_status = true, .value = s};
}

static void
recorder_init(struct recorder *r)
{
	r->out.watermark = rec_watermark;
	r->out.status = rec_status;
	r->n = 0;
}

static void
assert_same(const struct recorder *a, const struct recorder *b)
{
	ck_assert_uint_eq(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		ck_assert_int_eq(a->e[i].is_status, b->e[i].is_status);
		ck_assert_int_eq(a->e[i].value, b->e[i].value);
	}
}

static uint64_t
rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int64_t
below(uint64_t *s, uint64_t n)
{
	return (int64_t)(rnd(s) % n);
}

/* A reader over a finished writer. */
static struct wm_snap_reader
reader_of(const struct wm_snap_writer *w)
{
	struct wm_snap_reader r;

	ck_assert_int_eq(wm_snap_writer_error(w), 0);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(w), wm_snap_writer_len(w));
	return r;
}

/* ---- the generator ---- */

/* Step i of a generator's input: a record (in bursts, then quiet spells
 * long enough for idleness) or a periodic tick; time in ns. */
static void
generator_step(struct wm_watermark_generator *g, uint64_t seed, size_t i,
	       struct wm_output *out)
{
	uint64_t s = seed * 1000003 + i;
	int64_t now = (int64_t)i * 50000000; /* 50 ms a step */

	if ((i / 20) % 3 != 2 && below(&s, 2) == 0)
		wm_watermark_on_event(
			g, 1000 + (int64_t)i * 40 - below(&s, 300), 0, out);
	else
		wm_watermark_on_periodic(g, now, out);
}

static void
generator_case(uint64_t seed, const struct wm_watermark_strategy *st)
{
	for (size_t k = 0; k < STEPS; k += 13) {
		struct wm_watermark_generator a, b;
		struct recorder ra, rb;
		struct wm_snap_writer w;
		struct wm_snap_reader r;

		ck_assert_int_eq(wm_watermark_init(&a, st), 0);
		ck_assert_int_eq(wm_watermark_init(&b, st), 0);
		recorder_init(&ra);
		for (size_t i = 0; i < k; i++)
			generator_step(&a, seed, i, &ra.out);
		wm_snap_writer_init(&w);
		wm_watermark_snapshot(&a, &w);
		r = reader_of(&w);
		ck_assert_int_eq(wm_watermark_restore(&b, &r), 0);
		recorder_init(&ra);
		recorder_init(&rb);
		for (size_t i = k; i < STEPS; i++) {
			generator_step(&a, seed, i, &ra.out);
			generator_step(&b, seed, i, &rb.out);
		}
		ck_assert_uint_gt(ra.n, 0);
		assert_same(&ra, &rb);
		ck_assert_int_eq(wm_watermark_next_change(&a),
				 wm_watermark_next_change(&b));
		wm_snap_writer_release(&w);
	}
}

START_TEST(test_generator_continues_identically)
{
	struct wm_watermark_strategy st = {
		.kind = WM_WATERMARK_BOUNDED,
		.out_of_orderness_ms = 120,
		.interval_ms = 200,
		.with_idleness = true,
		.idle_timeout_ms = 300,
		.behaviour = WM_BEHAVIOUR_FLINK_2_1,
	};

	generator_case(1, &st);
	st.behaviour = WM_BEHAVIOUR_RELEASED;
	generator_case(2, &st);
	st.kind = WM_WATERMARK_ASCENDING;
	st.out_of_orderness_ms = 0;
	generator_case(3, &st);
}
END_TEST

START_TEST(test_generator_refuses_another_strategy)
{
	struct wm_watermark_strategy st = {
		.kind = WM_WATERMARK_BOUNDED,
		.out_of_orderness_ms = 120,
		.interval_ms = 200,
		.with_idleness = true,
		.idle_timeout_ms = 300,
	};
	struct wm_watermark_generator a, b;
	struct wm_snap_writer w;
	struct wm_snap_reader r;

	ck_assert_int_eq(wm_watermark_init(&a, &st), 0);
	wm_snap_writer_init(&w);
	wm_watermark_snapshot(&a, &w);
	st.idle_timeout_ms = 301;
	ck_assert_int_eq(wm_watermark_init(&b, &st), 0);
	r = reader_of(&w);
	ck_assert_int_eq(wm_watermark_restore(&b, &r), -EINVAL);
	st.idle_timeout_ms = 300;
	st.out_of_orderness_ms = 0;
	ck_assert_int_eq(wm_watermark_init(&b, &st), 0);
	r = reader_of(&w);
	ck_assert_int_eq(wm_watermark_restore(&b, &r), -EINVAL);
	wm_snap_writer_release(&w);
}
END_TEST

/* ---- the valve ---- */

#define CHANNELS 5

static void
valve_step(struct wm_valve *v, uint64_t seed, size_t i, struct wm_output *out)
{
	uint64_t s = seed * 1000003 + i;
	uint32_t c = (uint32_t)below(&s, CHANNELS);

	if (below(&s, 6) == 0)
		wm_valve_input_status(
			v, c, below(&s, 2) ? WM_STATUS_IDLE : WM_STATUS_ACTIVE,
			out);
	else /* ties are frequent: channels share few values */
		wm_valve_input_watermark(v, c, (int64_t)i / 4 * 10, out);
}

START_TEST(test_valve_continues_identically)
{
	for (uint64_t seed = 1; seed <= 4; seed++) {
		unsigned behaviour = seed % 2 ? WM_BEHAVIOUR_RELEASED
					      : WM_BEHAVIOUR_FLINK_2_1;

		for (size_t k = 0; k < STEPS; k += 11) {
			struct wm_valve *a = wm_valve_new(CHANNELS, behaviour);
			struct wm_valve *b = wm_valve_new(CHANNELS, behaviour);
			struct recorder ra, rb;
			struct wm_snap_writer w;
			struct wm_snap_reader r;

			ck_assert_ptr_nonnull(a);
			ck_assert_ptr_nonnull(b);
			recorder_init(&ra);
			for (size_t i = 0; i < k; i++)
				valve_step(a, seed, i, &ra.out);
			wm_snap_writer_init(&w);
			wm_valve_snapshot(a, &w);
			r = reader_of(&w);
			ck_assert_int_eq(wm_valve_restore(b, &r), 0);
			ck_assert_uint_eq(wm_valve_min_channel(a),
					  wm_valve_min_channel(b));
			recorder_init(&ra);
			recorder_init(&rb);
			for (size_t i = k; i < STEPS; i++) {
				valve_step(a, seed, i, &ra.out);
				valve_step(b, seed, i, &rb.out);
				ck_assert_uint_eq(wm_valve_min_channel(a),
						  wm_valve_min_channel(b));
			}
			assert_same(&ra, &rb);
			wm_snap_writer_release(&w);
			wm_valve_free(a);
			wm_valve_free(b);
		}
	}
}
END_TEST

START_TEST(test_valve_refuses_bad_snapshots)
{
	struct wm_valve *a = wm_valve_new(CHANNELS, WM_BEHAVIOUR_RELEASED);
	struct wm_valve *b = wm_valve_new(CHANNELS + 1, WM_BEHAVIOUR_RELEASED);
	struct recorder ra;
	struct wm_snap_writer w;
	struct wm_snap_reader r;
	uint8_t *copy;
	size_t len;

	recorder_init(&ra);
	for (size_t i = 0; i < 50; i++)
		valve_step(a, 9, i, &ra.out);
	wm_snap_writer_init(&w);
	wm_valve_snapshot(a, &w);
	r = reader_of(&w);
	ck_assert_int_eq(wm_valve_restore(b, &r), -EINVAL);
	wm_valve_free(b);
	/* Every truncation, and a last-emitted watermark above what any
	 * aligned channel holds, which no valve could have. */
	len = wm_snap_writer_len(&w);
	for (size_t n = 0; n < len; n++) {
		b = wm_valve_new(CHANNELS, WM_BEHAVIOUR_RELEASED);
		wm_snap_reader_init(&r, wm_snap_writer_bytes(&w), n);
		ck_assert_int_eq(wm_valve_restore(b, &r), -EBADMSG);
		wm_valve_free(b);
	}
	copy = malloc(len);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, wm_snap_writer_bytes(&w), len);
	/* header 16, channels 4, behaviour 4: last_watermark's top byte */
	copy[16 + 8 + 7] = 0x7f;
	b = wm_valve_new(CHANNELS, WM_BEHAVIOUR_RELEASED);
	wm_snap_reader_init(&r, copy, len);
	ck_assert_int_eq(wm_valve_restore(b, &r), -EBADMSG);
	wm_valve_free(b);
	free(copy);
	wm_snap_writer_release(&w);
	wm_valve_free(a);
}
END_TEST

/* ---- the two-input combination ---- */

static void
multi_step(struct wm_multi_input *mi, uint64_t seed, size_t i)
{
	uint64_t s = seed * 1000003 + i;
	struct wm_output *port = wm_multi_input_port(mi, (size_t)below(&s, 2));

	if (below(&s, 5) == 0)
		wm_output_status(port, below(&s, 2) ? WM_STATUS_IDLE
						    : WM_STATUS_ACTIVE);
	else
		wm_output_watermark(port, (int64_t)i * 10 - below(&s, 40));
}

START_TEST(test_multi_input_continues_identically)
{
	for (uint64_t seed = 1; seed <= 4; seed++) {
		unsigned behaviour =
			seed % 2 ? WM_BEHAVIOUR_RELEASED : WM_BEHAVIOUR_MASTER;

		for (size_t k = 0; k < STEPS; k += 17) {
			struct wm_multi_input a, b;
			struct recorder ra, rb;
			struct wm_snap_writer w;
			struct wm_snap_reader r;

			recorder_init(&ra);
			recorder_init(&rb);
			ck_assert_int_eq(
				wm_multi_input_init(&a, 2, &ra.out, behaviour),
				0);
			ck_assert_int_eq(
				wm_multi_input_init(&b, 2, &rb.out, behaviour),
				0);
			for (size_t i = 0; i < k; i++)
				multi_step(&a, seed, i);
			wm_snap_writer_init(&w);
			wm_multi_input_snapshot(&a, &w);
			r = reader_of(&w);
			ck_assert_int_eq(wm_multi_input_restore(&b, &r), 0);
			recorder_init(&ra);
			for (size_t i = k; i < STEPS; i++) {
				multi_step(&a, seed, i);
				multi_step(&b, seed, i);
			}
			assert_same(&ra, &rb);
			ck_assert_int_eq(wm_multi_input_combined(&a),
					 wm_multi_input_combined(&b));
			wm_snap_writer_release(&w);
			wm_multi_input_destroy(&a);
			wm_multi_input_destroy(&b);
		}
	}
}
END_TEST

/* ---- the split multiplexer ---- */

#define SPLITS 3

struct mux_case {
	struct recorder rec;
	struct wm_multiplexer mux;
	struct wm_mux_split split[SPLITS];
};

static void
mux_case_init(struct mux_case *m, unsigned behaviour, int64_t grace)
{
	recorder_init(&m->rec);
	wm_multiplexer_init(&m->mux, &m->rec.out, behaviour);
	wm_multiplexer_set_grace(&m->mux, grace);
	for (size_t i = 0; i < SPLITS; i++)
		ck_assert_int_eq(wm_multiplexer_register(&m->mux, &m->split[i]),
				 0);
}

static void
mux_step(struct mux_case *m, uint64_t seed, size_t i)
{
	uint64_t s = seed * 1000003 + i;
	struct wm_mux_split *sp = &m->split[below(&s, SPLITS)];
	struct wm_output *out = below(&s, 2) ? &sp->immediate : &sp->deferred;
	int64_t now = (int64_t)i * 1000;

	switch (below(&s, 6)) {
	case 0:
		wm_output_status(out, below(&s, 2) ? WM_STATUS_IDLE
						   : WM_STATUS_ACTIVE);
		break;
	case 1:
		wm_multiplexer_advance_grace(&m->mux, now);
		wm_multiplexer_on_periodic(&m->mux);
		break;
	default:
		wm_output_watermark(out, (int64_t)i * 10 - below(&s, 60));
		break;
	}
}

START_TEST(test_multiplexer_continues_identically)
{
	for (uint64_t seed = 1; seed <= 4; seed++) {
		unsigned behaviour =
			seed % 2 ? WM_BEHAVIOUR_RELEASED
				 : WM_BEHAVIOUR_FLINK_2_1 | WM_MUX_REACTIVATE;
		int64_t grace = seed > 2 ? 5000 : 0;

		for (size_t k = 0; k < STEPS; k += 19) {
			struct mux_case *a = calloc(1, sizeof(*a));
			struct mux_case *b = calloc(1, sizeof(*b));
			struct wm_snap_writer w;
			struct wm_snap_reader r;

			ck_assert_ptr_nonnull(a);
			ck_assert_ptr_nonnull(b);
			mux_case_init(a, behaviour, grace);
			mux_case_init(b, behaviour, grace);
			for (size_t i = 0; i < k; i++)
				mux_step(a, seed, i);
			wm_snap_writer_init(&w);
			wm_multiplexer_snapshot(&a->mux, &w);
			r = reader_of(&w);
			ck_assert_int_eq(wm_multiplexer_restore(&b->mux, &r),
					 0);
			recorder_init(&a->rec);
			recorder_init(&b->rec);
			for (size_t i = k; i < STEPS; i++) {
				mux_step(a, seed, i);
				mux_step(b, seed, i);
			}
			assert_same(&a->rec, &b->rec);
			ck_assert_int_eq(wm_multiplexer_next_join(&a->mux),
					 wm_multiplexer_next_join(&b->mux));
			wm_snap_writer_release(&w);
			wm_multiplexer_destroy(&a->mux);
			wm_multiplexer_destroy(&b->mux);
			free(a);
			free(b);
		}
	}
}
END_TEST

START_TEST(test_multiplexer_refuses_another_shape)
{
	struct mux_case *a = calloc(1, sizeof(*a));
	struct mux_case *b = calloc(1, sizeof(*b));
	struct wm_snap_writer w;
	struct wm_snap_reader r;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	mux_case_init(a, WM_BEHAVIOUR_RELEASED, 0);
	wm_snap_writer_init(&w);
	wm_multiplexer_snapshot(&a->mux, &w);
	/* A split fewer. */
	recorder_init(&b->rec);
	wm_multiplexer_init(&b->mux, &b->rec.out, WM_BEHAVIOUR_RELEASED);
	for (size_t i = 0; i + 1 < SPLITS; i++)
		ck_assert_int_eq(wm_multiplexer_register(&b->mux, &b->split[i]),
				 0);
	r = reader_of(&w);
	ck_assert_int_eq(wm_multiplexer_restore(&b->mux, &r), -EINVAL);
	wm_multiplexer_destroy(&b->mux);
	/* Another grace. */
	mux_case_init(b, WM_BEHAVIOUR_RELEASED, 10);
	r = reader_of(&w);
	ck_assert_int_eq(wm_multiplexer_restore(&b->mux, &r), -EINVAL);
	wm_multiplexer_destroy(&b->mux);
	wm_multiplexer_destroy(&a->mux);
	wm_snap_writer_release(&w);
	free(a);
	free(b);
}
END_TEST

static Suite *
watermark_snapshot_suite(void)
{
	Suite *s = suite_create("watermark_snapshot");
	TCase *tc;

	tc = tcase_create("generator");
	tcase_add_test(tc, test_generator_continues_identically);
	tcase_add_test(tc, test_generator_refuses_another_strategy);
	suite_add_tcase(s, tc);

	tc = tcase_create("valve");
	tcase_add_test(tc, test_valve_continues_identically);
	tcase_add_test(tc, test_valve_refuses_bad_snapshots);
	suite_add_tcase(s, tc);

	tc = tcase_create("combination");
	tcase_add_test(tc, test_multi_input_continues_identically);
	tcase_add_test(tc, test_multiplexer_continues_identically);
	tcase_add_test(tc, test_multiplexer_refuses_another_shape);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(watermark_snapshot_suite());
}
