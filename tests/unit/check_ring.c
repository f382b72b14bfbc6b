/*
 * check_ring.c
 *	Unit tests of the transport in one process: frames, ring edges (full,
 *	empty, wrap), corruption detection, the gate's fairness, waiting with
 *	a timeout, and the segment's layout checks.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ipc/gate.h"
#include "ipc/ring.h"
#include "ipc/shm.h"
#include "tests/unit/stress.h"

static struct wm_ring *
new_ring(uint32_t cells)
{
	size_t bytes = wm_ring_size(cells);
	void *mem;

	ck_assert_uint_gt(bytes, 0);
	mem = aligned_alloc(WM_SHM_PAGE, (bytes + WM_SHM_PAGE - 1) /
						 WM_SHM_PAGE * WM_SHM_PAGE);
	ck_assert_ptr_nonnull(mem);
	memset(mem, 0, bytes);
	ck_assert_int_eq(wm_ring_init(mem, cells), 0);
	return mem;
}

/* The loop tests run twice: _i == 0 publishes every cell with four stores,
 * the portable way; _i == 1 with two 16-byte stores where this processor
 * allows them (ring.h, wm_cell_publish()), else again with four. */
static void
attach_producer(struct wm_ring_producer *p, struct wm_ring *ring, int mode)
{
	wm_ring_producer_attach(p, ring, NULL);
	p->paired_stores = mode == 1 && wm_ring_paired_stores_supported();
}

START_TEST(test_ring_sizes_are_powers_of_two_in_range)
{
	ck_assert_uint_eq(wm_ring_size(63), 0);
	ck_assert_uint_eq(wm_ring_size(100), 0);
	ck_assert_uint_eq(wm_ring_size(WM_RING_MAX_CELLS * 2), 0);
	ck_assert_uint_eq(wm_ring_size(64),
			  sizeof(struct wm_ring) + 64 * WM_CELL_SIZE);
	ck_assert_int_eq(wm_ring_init(NULL, 100), -EINVAL);
}
END_TEST

START_TEST(test_ring_carries_every_frame_kind)
{
	struct wm_ring *ring = new_ring(64);
	struct wm_ring_producer p;
	struct wm_ring_consumer c;
	struct wm_frame f;

	attach_producer(&p, ring, _i);
	wm_ring_consumer_attach(&c, ring, NULL);
	ck_assert_int_eq(wm_ring_pop(&c, &f), 0);
	ck_assert_uint_eq(push_run(&p, 123456789, 1), 1);
	ck_assert(wm_ring_try_push(&p, WM_FRAME_WATERMARK, 0,
				   (uint64_t)INT64_MIN, 0, 0));
	ck_assert(
		wm_ring_try_push(&p, WM_FRAME_STATUS, WM_STATUS_IDLE, 0, 0, 0));
	ck_assert(wm_ring_try_push(&p, WM_FRAME_BARRIER, 3, 42, 99, 0));
	ck_assert(wm_ring_try_push(&p, WM_FRAME_END, WM_END_DRAIN, 0, 0, 0));

	ck_assert_int_eq(wm_ring_pop(&c, &f), 1);
	ck_assert(is_record(&f, 123456789));
	ck_assert_int_eq(wm_ring_pop(&c, &f), 1);
	ck_assert_int_eq(f.kind, WM_FRAME_WATERMARK);
	ck_assert_uint_eq(f.payload[0], (uint64_t)INT64_MIN);
	ck_assert_int_eq(wm_ring_pop(&c, &f), 1);
	ck_assert_int_eq(f.kind, WM_FRAME_STATUS);
	ck_assert_uint_eq(f.arg, WM_STATUS_IDLE);
	ck_assert_int_eq(wm_ring_pop(&c, &f), 1);
	ck_assert_int_eq(f.kind, WM_FRAME_BARRIER);
	ck_assert_uint_eq(f.payload[0], 42);
	ck_assert_uint_eq(f.arg, 3);
	ck_assert_int_eq(wm_ring_pop(&c, &f), 1);
	ck_assert_int_eq(f.kind, WM_FRAME_END);
	ck_assert_int_eq(wm_ring_pop(&c, &f), 0);
	free(ring);
}
END_TEST

START_TEST(test_ring_full_and_empty_edges_across_many_wraps)
{
	struct wm_ring *ring = new_ring(64);
	struct wm_ring_producer p;
	struct wm_ring_consumer c;
	int64_t next_in = 0, next_out = 0;

	attach_producer(&p, ring, _i);
	wm_ring_consumer_attach(&c, ring, NULL);
	for (int round = 0; round < 1000; round++) {
		uint32_t want = (uint32_t)(round * 37 % 100) + 1;
		struct wm_frame f;

		next_in += push_run(&p, (uint64_t)next_in, want);
		/* Never more than the ring holds. */
		if (next_in - next_out > 64)
			ck_abort_msg("ring holds %lld cells",
				     (long long)(next_in - next_out));
		if (next_in - next_out == 64 &&
		    push_run(&p, (uint64_t)next_in, 1) != 0)
			ck_abort_msg("pushed into a full ring");
		/* Drain a varying part, checking order. */
		for (int k = 0; k < round % 70; k++) {
			int r = wm_ring_pop(&c, &f);

			if (r == 0)
				break;
			if (r != 1)
				ck_abort_msg("pop returned %d", r);
			if (!is_record(&f, (uint64_t)next_out))
				ck_abort_msg("got %llu, expected %lld",
					     (unsigned long long)f.payload[0],
					     (long long)next_out);
			next_out++;
		}
	}
	ck_assert_int_gt(next_out, 64 * 100); /* many wraps */
	free(ring);
}
END_TEST

START_TEST(test_ring_in_place_write_and_read_across_wraps)
{
	/* reserve/put/commit on the producer, peek_records/consume_run on
	 * the consumer, with watermarks in between and many wraps. */
	struct wm_ring *ring = new_ring(64);
	struct wm_ring_producer p;
	struct wm_ring_consumer c;
	int64_t next_in = 0, next_out = 0, marks = 0;

	attach_producer(&p, ring, _i);
	wm_ring_consumer_attach(&c, ring, NULL);
	for (int round = 0; round < 3000; round++) {
		struct wm_ring_span s =
			wm_ring_reserve(&p, (uint32_t)(round % 40));
		const struct wm_cell *first;
		struct wm_frame f;
		uint32_t n;

		for (uint32_t i = 0; i < s.n; i++) {
			struct test_words r =
				record_words((uint64_t)next_in + i);

			wm_ring_put(&s, i, r.arg, r.a, r.b, r.c);
		}
		wm_ring_commit(&p, s.n);
		next_in += s.n;
		if (round % 7 == 0 &&
		    wm_ring_try_push(&p, WM_FRAME_WATERMARK, 0, (uint64_t)round,
				     0, 0))
			marks++;
		/* Drain part of it: runs of records in place, single pops
		 * for the watermarks. */
		for (int k = 0; k < 3; k++) {
			n = wm_ring_peek_records(&c, &first,
						 (uint32_t)(round % 23) + 1);
			for (uint32_t i = 0; i < n; i++)
				if (!is_record_cell(&first[i],
						    (uint64_t)next_out + i))
					ck_abort_msg("record %lld differs",
						     (long long)(next_out + i));
			wm_ring_consume_run(&c, n);
			next_out += n;
			if (n == 0 && wm_ring_pop(&c, &f) == 1) {
				if (f.kind != WM_FRAME_WATERMARK)
					ck_abort_msg("expected a watermark");
				marks--;
			}
		}
		if (next_in - next_out > 64)
			ck_abort_msg("ring overfilled");
	}
	ck_assert_int_gt(next_out, 64 * 200);
	free(ring);
}
END_TEST

/* Row `n`'s bytes: each says where it belongs. */
static void
fill_row(unsigned char *row, uint32_t len, uint32_t n)
{
	for (uint32_t i = 0; i < len; i++)
		row[i] = (unsigned char)(n * 13 + i * 5 + 1);
}

START_TEST(test_ring_carries_rows_of_every_length_across_wraps)
{
	/* Rows of 1 .. WM_FRAME_ROW_MAX_BYTES bytes (so 1 .. 40 parts), a
	 * record between each two, through a ring of 64 cells: the rows
	 * start at every offset in it, and their parts wrap its end. */
	struct wm_ring *ring = new_ring(64);
	struct wm_ring_producer p;
	struct wm_ring_consumer c;
	unsigned char row[WM_FRAME_ROW_MAX_BYTES], got[WM_FRAME_ROW_MAX_BYTES];
	struct wm_frame last;
	uint32_t wrapped = 0;

	attach_producer(&p, ring, _i);
	wm_ring_consumer_attach(&c, ring, NULL);
	for (uint32_t len = 1; len <= WM_FRAME_ROW_MAX_BYTES; len++) {
		uint32_t cells = wm_ring_row_cells(len), n;
		struct wm_ring_span s = wm_ring_reserve(&p, cells);
		struct wm_frame f;
		const struct wm_cell *first;

		ck_assert_uint_eq(cells, 1 + (len + 23) / 24);
		ck_assert_uint_eq(s.n, cells);
		wrapped += (p.pos & 63) + cells > 64;
		fill_row(row, len, len);
		wm_ring_put_row(&s, 0, len << 16 | 3, len, ~(uint64_t)len,
				(uint64_t)len * 7, row, len);
		wm_ring_commit(&p, cells);
		ck_assert_uint_eq(push_run(&p, len, 1), 1);

		/* The head is no record of a run: it comes as a frame. */
		ck_assert_uint_eq(wm_ring_peek_records(&c, &first, 64), 0);
		ck_assert_int_eq(wm_ring_peek(&c, &f), 1);
		ck_assert_int_eq(f.kind, WM_FRAME_ROW);
		ck_assert_uint_eq(f.arg, len << 16 | 3);
		ck_assert_uint_eq(f.payload[0], len);
		ck_assert_uint_eq(f.payload[1], ~(uint64_t)len);
		ck_assert_uint_eq(f.payload[2], (uint64_t)len * 7);
		memset(got, 0, sizeof(got));
		n = 0;
		ck_assert_int_eq(wm_ring_read_row(&c, got, &n), (int)cells);
		ck_assert_uint_eq(n, len);
		ck_assert(memcmp(got, row, len) == 0);
		wm_ring_consume_run(&c, cells);
		ck_assert_int_eq(wm_ring_pop(&c, &f), 1);
		ck_assert(is_record(&f, len));
	}
	ck_assert_uint_gt(wrapped, 20);
	ck_assert_int_eq(wm_ring_peek(&c, &last), 0); /* all read */
	free(ring);
}
END_TEST

START_TEST(test_ring_detects_corrupt_rows)
{
	struct wm_ring *ring = new_ring(64);
	struct wm_ring_producer p;
	struct wm_ring_consumer c;
	struct wm_frame f;
	unsigned char row[100], got[WM_FRAME_ROW_MAX_BYTES];
	struct wm_ring_span s;
	uint32_t n;

	wm_ring_producer_attach(&p, ring, NULL);
	wm_ring_consumer_attach(&c, ring, NULL);
	fill_row(row, sizeof(row), 1);
	s = wm_ring_reserve(&p, wm_ring_row_cells(100));
	ck_assert_uint_eq(s.n, 6); /* the head and ceil(100 / 24) parts */
	wm_ring_put_row(&s, 0, 0, 1, 2, 3, row, 100);
	wm_ring_commit(&p, 6);
	ck_assert_int_eq(wm_ring_peek(&c, &f), 1);
	ck_assert_int_eq(f.kind, WM_FRAME_ROW);
	/* A part naming another length than the first part. */
	atomic_store(&ring->cells[3].tail,
		     wm_frame_tail(WM_FRAME_ROW_PART, 99, 3));
	ck_assert_int_eq(wm_ring_read_row(&c, got, &n), -EBADMSG);
	/* A record where a part should be. */
	atomic_store(&ring->cells[3].tail,
		     wm_frame_tail(WM_FRAME_RECORD, 0, 3));
	ck_assert_int_eq(wm_ring_read_row(&c, got, &n), -EBADMSG);
	/* A part of the last lap (not published before its head). */
	atomic_store(&ring->cells[3].tail,
		     wm_frame_tail(WM_FRAME_ROW_PART, 100, (uint64_t)3 - 64));
	ck_assert_int_eq(wm_ring_read_row(&c, got, &n), -EBADMSG);
	/* A first part of an impossible length. */
	atomic_store(&ring->cells[3].tail,
		     wm_frame_tail(WM_FRAME_ROW_PART, 100, 3));
	atomic_store(&ring->cells[1].tail,
		     wm_frame_tail(WM_FRAME_ROW_PART,
				   WM_FRAME_ROW_MAX_BYTES + 1, 1));
	ck_assert_int_eq(wm_ring_read_row(&c, got, &n), -EBADMSG);
	atomic_store(&ring->cells[1].tail,
		     wm_frame_tail(WM_FRAME_ROW_PART, 0, 1));
	ck_assert_int_eq(wm_ring_read_row(&c, got, &n), -EBADMSG);
	/* Whole again, it reads; nothing above consumed anything. */
	atomic_store(&ring->cells[1].tail,
		     wm_frame_tail(WM_FRAME_ROW_PART, 100, 1));
	ck_assert_uint_eq(c.pos, 0);
	ck_assert_int_eq(wm_ring_read_row(&c, got, &n), 6);
	ck_assert(memcmp(got, row, 100) == 0);
	/* A part with no head before it is no frame. */
	ck_assert_int_eq(wm_ring_pop(&c, &f), 1);
	ck_assert_int_eq(wm_ring_peek(&c, &f), -EBADMSG);
	free(ring);
}
END_TEST

START_TEST(test_ring_paired_stores_write_the_same_cells)
{
	/* Byte for byte what the four stores write, for records in place
	 * and for the other frame kinds, across a wrap (where the processor
	 * does not allow paired stores, both rings get four). */
	struct wm_ring *four = new_ring(64), *paired = new_ring(64);
	struct wm_ring *rings[2] = {four, paired};
	for (int mode = 0; mode < 2; mode++) {
		struct wm_ring_producer p;
		struct wm_ring_consumer c;
		struct wm_frame f;
		const uint64_t high = (uint64_t)INT64_MAX / 8;

		attach_producer(&p, rings[mode], mode);
		wm_ring_consumer_attach(&c, rings[mode], NULL);
		ck_assert_uint_eq(push_run(&p, high, 40), 40);
		ck_assert(wm_ring_try_push(&p, WM_FRAME_BARRIER, 9, UINT64_MAX,
					   1, 2));
		for (int i = 0; i < 41; i++)
			ck_assert_int_eq(wm_ring_pop(&c, &f), 1);
		struct wm_ring_span s = wm_ring_reserve(&p, 40);

		ck_assert_uint_eq(s.n, 40);
		for (uint32_t i = 0; i < s.n; i++) {
			struct test_words r = record_words(high - 977 * i);

			wm_ring_put(&s, i, r.arg, r.a, r.b, r.c);
		}
		wm_ring_commit(&p, s.n);
		ck_assert(wm_ring_try_push(&p, WM_FRAME_WATERMARK, 0,
					   (uint64_t)INT64_MIN, 0, 0));
	}
	ck_assert(memcmp(four->cells, paired->cells, 64 * WM_CELL_SIZE) == 0);
	free(four);
	free(paired);
}
END_TEST

START_TEST(test_ring_detects_corrupt_cell)
{
	struct wm_ring *ring = new_ring(64);
	struct wm_ring_producer p;
	struct wm_ring_consumer c;
	struct wm_frame f;

	wm_ring_producer_attach(&p, ring, NULL);
	wm_ring_consumer_attach(&c, ring, NULL);
	push_run(&p, 1, 2);
	/* A sequence that is neither this lap's nor the last one's. */
	atomic_store(&ring->cells[1].tail,
		     wm_frame_tail(WM_FRAME_RECORD, 0, 1 + 5));
	ck_assert_int_eq(wm_ring_pop(&c, &f), 1);
	ck_assert_int_eq(wm_ring_pop(&c, &f), -EBADMSG);
	ck_assert_uint_eq(c.pos, 1);  /* left in place for the report */
	ck_assert(wm_ring_ready(&c)); /* a waiter wakes to report it */
	/* A right sequence with an impossible kind or argument. */
	atomic_store(&ring->cells[1].tail, wm_frame_tail(9, 0, 1));
	ck_assert_int_eq(wm_ring_pop(&c, &f), -EBADMSG);
	atomic_store(&ring->cells[1].tail,
		     wm_frame_tail(WM_FRAME_STATUS, 7, 1));
	ck_assert_int_eq(wm_ring_pop(&c, &f), -EBADMSG);
	/* A zeroed cell after the first lap: every cell was written then. */
	atomic_store(&ring->cells[1].tail,
		     wm_frame_tail(WM_FRAME_RECORD, 0, 1));
	for (int i = 0; i < 70; i++) {
		ck_assert_int_eq(wm_ring_pop(&c, &f), 1);
		ck_assert_uint_eq(push_run(&p, 1, 1), 1);
	}
	ck_assert_uint_eq(c.pos, 71);
	atomic_store(&ring->cells[71 & 63].tail, 0);
	ck_assert_int_eq(wm_ring_pop(&c, &f), -EBADMSG);
	free(ring);
}
END_TEST

/* What wm_ring_dump() prints around `position` (free it). */
static char *
dump_text(const struct wm_ring *ring, uint64_t position)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(out);
	wm_ring_dump(ring, position, out);
	ck_assert_int_eq(fclose(out), 0);
	return text;
}

START_TEST(test_ring_dump_names_the_position)
{
	struct wm_ring *ring = new_ring(64);
	char *text = dump_text(ring, 3);

	ck_assert_ptr_nonnull(strstr(text, "=> position 3 (offset 96)"));
	free(text);
	free(ring);
}
END_TEST

START_TEST(test_ring_dump_shows_what_the_producer_announced)
{
	/* `written` is the producer's position as of its last nudge or
	 * ring (ring.h), for the dump: cells pushed since do not show. */
	struct wm_ring *ring = new_ring(64);
	struct wm_ring_producer p;
	char *text;

	wm_ring_producer_attach(&p, ring, NULL);
	for (int i = 0; i < 5; i++)
		ck_assert(wm_ring_try_push(&p, WM_FRAME_WATERMARK, 0,
					   (uint64_t)i, 0, 0));
	text = dump_text(ring, 0);
	ck_assert_ptr_nonnull(strstr(text, ", written 0, read 0\n"));
	free(text);
	wm_ring_flush(&p);
	text = dump_text(ring, 0);
	ck_assert_ptr_nonnull(strstr(text, ", written 5, read 0\n"));
	free(text);
	free(ring);
}
END_TEST

START_TEST(test_gate_reads_inputs_fairly)
{
	struct wm_ring *rings[3];
	struct wm_ring_producer p[3];
	struct wm_ring_consumer in[3];
	struct wm_gate g;
	struct wm_doorbell bell;
	uint32_t count[3] = {0, 0, 0};
	struct wm_gate_take t;

	wm_doorbell_init(&bell);
	ck_assert_int_eq(wm_gate_init(&g, in, 0, &bell, WM_WAIT_FUTEX),
			 -EINVAL);
	ck_assert_int_eq(wm_gate_init(&g, in, 3, &bell, WM_WAIT_FUTEX), 0);
	g.burst = 4;
	for (int i = 0; i < 3; i++) {
		rings[i] = new_ring(1024);
		wm_ring_producer_attach(&p[i], rings[i], &bell);
		wm_gate_attach(&g, (uint32_t)i, rings[i], NULL);
	}
	/* Channel 0 is flooded, 1 and 2 have a little. */
	for (int i = 0; i < 1000; i++)
		wm_ring_try_push(&p[0], WM_FRAME_WATERMARK, 0, (uint64_t)i, 0,
				 0);
	for (int i = 0; i < 5; i++) {
		wm_ring_try_push(&p[1], WM_FRAME_WATERMARK, 0, 0, 0, 0);
		wm_ring_try_push(&p[2], WM_FRAME_WATERMARK, 0, 0, 0, 0);
	}
	/* Within the first 30 frames every channel has been served. */
	for (int i = 0; i < 30; i++) {
		ck_assert_int_eq(wm_gate_next(&g, &t, UINT32_MAX), 1);
		ck_assert_uint_eq(t.records, 0);
		count[t.channel]++;
	}
	ck_assert_uint_eq(count[1], 5);
	ck_assert_uint_eq(count[2], 5);
	/* Drained, the gate has nothing and a wait times out; one frame
	 * ends the wait. */
	while (wm_gate_next(&g, &t, UINT32_MAX) == 1)
		ck_assert_uint_eq(t.channel, 0);
	ck_assert_int_eq(wm_gate_wait(&g, 1000000), -ETIMEDOUT);
	wm_ring_try_push(&p[2], WM_FRAME_WATERMARK, 0, 0, 0, 0);
	ck_assert_int_eq(wm_gate_wait(&g, 0), 0);
	ck_assert_int_eq(wm_gate_next(&g, &t, UINT32_MAX), 1);
	ck_assert_uint_eq(t.channel, 2);
	ck_assert_int_eq(t.frame.kind, WM_FRAME_WATERMARK);
	for (int i = 0; i < 3; i++)
		free(rings[i]);
}
END_TEST

/* The wake_also condition of test_gate_leaves_blocked_inputs_unread. */
static bool gate_woken;

static bool
gate_wake_also(void *arg)
{
	(void)arg;
	return gate_woken;
}

/*
 * A checkpoint's alignment: a blocked input is neither read nor a reason
 * to wake, even with frames waiting in it, and reads on in order once
 * unblocked; the wake_also condition ends a wait by itself.
 */
START_TEST(test_gate_leaves_blocked_inputs_unread)
{
	struct wm_ring *rings[2];
	struct wm_ring_producer p[2];
	struct wm_ring_consumer in[2];
	bool blocked[2] = {true, false};
	struct wm_gate g;
	struct wm_doorbell bell;
	struct wm_gate_take t;

	wm_doorbell_init(&bell);
	ck_assert_int_eq(wm_gate_init(&g, in, 2, &bell, WM_WAIT_FUTEX), 0);
	for (int i = 0; i < 2; i++) {
		rings[i] = new_ring(64);
		wm_ring_producer_attach(&p[i], rings[i], NULL);
		wm_gate_attach(&g, (uint32_t)i, rings[i], NULL);
	}
	wm_gate_set_blocked(&g, blocked);
	for (uint64_t i = 0; i < 3; i++)
		ck_assert(wm_ring_try_push(&p[0], WM_FRAME_WATERMARK, 0, i, 0,
					   0));
	ck_assert(wm_ring_try_push(&p[1], WM_FRAME_WATERMARK, 0, 9, 0, 0));
	/* Only the open input's frame, then nothing, and no wake. */
	ck_assert_int_eq(wm_gate_next(&g, &t, UINT32_MAX), 1);
	ck_assert_uint_eq(t.channel, 1);
	ck_assert_int_eq(wm_gate_next(&g, &t, UINT32_MAX), 0);
	ck_assert_int_eq(wm_gate_wait(&g, 1000000), -ETIMEDOUT);
	gate_woken = true;
	wm_gate_set_wake_also(&g, gate_wake_also, NULL);
	ck_assert_int_eq(wm_gate_wait(&g, 1000000), 0);
	gate_woken = false;
	/* Unblocked: its frames, in order. */
	blocked[0] = false;
	ck_assert_int_eq(wm_gate_wait(&g, 0), 0);
	for (uint64_t i = 0; i < 3; i++) {
		ck_assert_int_eq(wm_gate_next(&g, &t, UINT32_MAX), 1);
		ck_assert_uint_eq(t.channel, 0);
		ck_assert_uint_eq(t.frame.payload[0], i);
	}
	ck_assert_int_eq(wm_gate_next(&g, &t, UINT32_MAX), 0);
	for (int i = 0; i < 2; i++)
		free(rings[i]);
}
END_TEST

/*
 * Records come as runs in place, bounded by the burst, the caller's
 * `max` and the next other frame, and stay in the ring until consumed;
 * the burst then moves on to the next input exactly as frames do.
 */
START_TEST(test_gate_hands_out_records_as_runs_in_place)
{
	struct wm_ring *rings[2];
	struct wm_ring_producer p[2];
	struct wm_ring_consumer in[2];
	struct wm_gate g;
	struct wm_doorbell bell;
	struct wm_gate_take t;
	/* (channel, first record, records; 0 records: the watermark) */
	static const uint32_t want[][3] = {
		{0, 0, 3}, {0, 3, 5},  {1, 100, 8}, {0, 8, 2},
		{0, 0, 0}, {0, 10, 5}, {1, 108, 1}, {1, 109, 1},
	};

	wm_doorbell_init(&bell);
	ck_assert_int_eq(wm_gate_init(&g, in, 2, &bell, WM_WAIT_FUTEX), 0);
	g.burst = 8;
	for (int i = 0; i < 2; i++) {
		rings[i] = new_ring(64);
		wm_ring_producer_attach(&p[i], rings[i], NULL);
		wm_gate_attach(&g, (uint32_t)i, rings[i], NULL);
	}
	ck_assert_uint_eq(push_run(&p[0], 0, 10), 10);
	ck_assert(wm_ring_try_push(&p[0], WM_FRAME_WATERMARK, 0, 7, 0, 0));
	ck_assert_uint_eq(push_run(&p[0], 10, 5), 5);
	ck_assert_uint_eq(push_run(&p[1], 100, 10), 10);
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		/* The first run is cut by `max`, the last by it too. */
		uint32_t max = k == 0 ? 3 : k == 6 ? 1 : UINT32_MAX;

		ck_assert_int_eq(wm_gate_next(&g, &t, max), 1);
		ck_assert_uint_eq(t.channel, want[k][0]);
		ck_assert_uint_eq(t.records, want[k][2]);
		if (t.records == 0) {
			ck_assert_int_eq(t.frame.kind, WM_FRAME_WATERMARK);
			ck_assert_uint_eq(t.frame.payload[0], 7);
			continue;
		}
		for (uint32_t i = 0; i < t.records; i++)
			ck_assert(is_record_cell(&t.cells[i], want[k][1] + i));
		/* In place: the cells are still the consumer's. */
		ck_assert_ptr_eq(
			t.cells,
			&rings[t.channel]->cells[in[t.channel].pos & 63]);
		wm_gate_consume(&g, &t);
	}
	ck_assert_int_eq(wm_gate_next(&g, &t, UINT32_MAX), 0);
	for (int i = 0; i < 2; i++)
		free(rings[i]);
}
END_TEST

START_TEST(test_gate_hands_out_a_row_with_its_fields)
{
	/* Records, a row, records: a run, the row as a frame with its
	 * bytes (head and parts consumed together), the next run. */
	struct wm_ring *ring = new_ring(64);
	struct wm_ring_producer p;
	struct wm_ring_consumer in;
	struct wm_gate g;
	struct wm_doorbell bell;
	struct wm_gate_take t;
	unsigned char row[50];
	struct wm_ring_span s;

	wm_doorbell_init(&bell);
	ck_assert_int_eq(wm_gate_init(&g, &in, 1, &bell, WM_WAIT_FUTEX), 0);
	wm_ring_producer_attach(&p, ring, NULL);
	wm_gate_attach(&g, 0, ring, NULL);
	fill_row(row, sizeof(row), 2);
	ck_assert_uint_eq(push_run(&p, 0, 4), 4);
	s = wm_ring_reserve(&p, wm_ring_row_cells(50));
	wm_ring_put_row(&s, 0, 0, 4, 5, 6, row, 50);
	wm_ring_commit(&p, s.n);
	ck_assert_uint_eq(push_run(&p, 4, 2), 2);

	ck_assert_int_eq(wm_gate_next(&g, &t, 64), 1);
	ck_assert_uint_eq(t.records, 4);
	wm_gate_consume(&g, &t);
	ck_assert_int_eq(wm_gate_next(&g, &t, 64), 1);
	ck_assert_uint_eq(t.records, 0);
	ck_assert_int_eq(t.frame.kind, WM_FRAME_ROW);
	ck_assert_uint_eq(t.frame.payload[1], 5);
	ck_assert_uint_eq(t.row_len, 50);
	ck_assert(memcmp(t.row, row, 50) == 0);
	ck_assert_uint_eq(in.pos, 4 + 4); /* the head and its 3 parts */
	ck_assert_int_eq(wm_gate_next(&g, &t, 64), 1);
	ck_assert_uint_eq(t.records, 2);
	ck_assert(is_record_cell(&t.cells[0], 4));
	wm_gate_consume(&g, &t);
	ck_assert_int_eq(wm_gate_next(&g, &t, 64), 0);
	free(ring);
}
END_TEST

/*
 * A producer asleep on a full ring whose last nudge it missed (it set its
 * flag just after the consumer looked): a consumer that drained the ring
 * and stays busy with other inputs wakes it with its per-burst nudge,
 * without a fence and without sleeping itself. The ring is smaller than
 * WM_RING_FENCE_EVERY, so draining it never rings fenced on its own.
 */
START_TEST(test_gate_nudge_wakes_a_producer_that_missed_its_nudge)
{
	struct wm_ring *ring = new_ring(64);
	struct wm_ring_producer p;
	struct wm_ring_consumer in;
	struct wm_doorbell consumer_bell, producer_bell;
	struct wm_gate g;
	struct wm_gate_take t;
	uint32_t bell_before;

	wm_doorbell_init(&consumer_bell);
	wm_doorbell_init(&producer_bell);
	ck_assert_int_eq(
		wm_gate_init(&g, &in, 1, &consumer_bell, WM_WAIT_FUTEX), 0);
	wm_ring_producer_attach(&p, ring, &consumer_bell);
	wm_gate_attach(&g, 0, ring, &producer_bell);
	while (wm_ring_try_push(&p, WM_FRAME_WATERMARK, 0, 0, 0, 0))
		;
	/* The consumer drains it: its nudges every 32 cells find nobody
	 * asleep. */
	for (int i = 0; i < 64; i++)
		ck_assert_int_eq(wm_gate_next(&g, &t, UINT32_MAX), 1);
	ck_assert_int_eq(wm_gate_next(&g, &t, UINT32_MAX), 0);
	ck_assert_uint_lt(in.pos - in.rung, WM_RING_FENCE_EVERY);
	/* Now the producer's flag becomes visible: it sleeps. */
	atomic_store(&producer_bell.sleeping, 1);
	bell_before = atomic_load(&producer_bell.bell);
	wm_gate_nudge(&g);
	ck_assert_uint_eq(atomic_load(&producer_bell.sleeping), 0);
	ck_assert_uint_eq(atomic_load(&producer_bell.bell), bell_before + 1);
	/* It sees all the space. */
	ck_assert_uint_eq(wm_ring_free(&p, 64), 64);
	/* Once rung, further nudges leave the producer alone. */
	atomic_store(&producer_bell.sleeping, 1);
	wm_gate_nudge(&g);
	ck_assert_uint_eq(atomic_load(&producer_bell.sleeping), 1);
	free(ring);
}
END_TEST

START_TEST(test_segment_layout_and_checks)
{
	struct wm_shm_channel_spec channels[] = {
		{0, 1, 64}, {0, 2, 4096}, {1, 2, 128}};
	struct wm_shm_spec spec = {3, 3, channels, 100, 300};
	struct wm_shm seg, other;
	char err[256];

	ck_assert_int_eq(wm_shm_create(&spec, &seg, err, sizeof(err)), 0);
	ck_assert_uint_eq(wm_shm_header(&seg)->n_channels, 3);
	for (uint32_t i = 0; i < 3; i++) {
		ck_assert_uint_eq(
			wm_shm_channel(&seg, i)->ring_offset % WM_SHM_PAGE, 0);
		ck_assert_uint_eq(wm_shm_ring(&seg, i)->size,
				  channels[i].cells);
	}
	/* Blocks of whole cache lines, then the tail, before the first
	 * ring. */
	ck_assert_uint_eq(wm_shm_header(&seg)->metrics_stride, 128);
	ck_assert_uint_eq(wm_shm_header(&seg)->metrics_bytes, 3 * 128 + 384);
	ck_assert_uint_ge(wm_shm_channel(&seg, 0)->ring_offset,
			  wm_shm_header(&seg)->metrics_offset + 3 * 128 + 384);
	/* A second mapping of the same descriptor checks out. */
	ck_assert_int_eq(wm_shm_attach(seg.fd, &other, err, sizeof(err)), 0);
	wm_shm_ring(&other, 1)->written = 5;
	ck_assert_uint_eq(wm_shm_ring(&seg, 1)->written, 5);
	wm_shm_detach(&other);
	/* The size is sealed. */
	ck_assert_int_ne(ftruncate(seg.fd, 1 << 20), 0);
	/* A damaged ring is refused with a message when it is checked for
	 * use, and only then (attach touches no ring); so is a channel the
	 * segment does not have. */
	wm_shm_ring(&seg, 2)->size = 100;
	ck_assert_int_eq(wm_shm_attach(seg.fd, &other, err, sizeof(err)), 0);
	ck_assert_int_eq(wm_shm_ring_check(&other, 1, err, sizeof(err)), 0);
	ck_assert_int_eq(wm_shm_ring_check(&other, 2, err, sizeof(err)),
			 -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "channel 2: bad ring size 100"));
	ck_assert_int_eq(wm_shm_ring_check(&other, 3, err, sizeof(err)),
			 -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "no channel 3"));
	wm_shm_detach(&other);
	wm_shm_ring(&seg, 2)->size = 128;
	ck_assert_int_eq(wm_shm_attach(seg.fd, &other, err, sizeof(err)), 0);
	ck_assert_int_eq(wm_shm_ring_check(&other, 2, err, sizeof(err)), 0);
	wm_shm_detach(&other);
	((struct wm_shm_header *)seg.base)->version = 99;
	ck_assert_int_eq(wm_shm_attach(seg.fd, &other, err, sizeof(err)),
			 -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "version 99"));
	wm_shm_detach(&seg);
	close(seg.fd);
}
END_TEST

START_TEST(test_segment_spec_errors)
{
	struct wm_shm_channel_spec bad_size[] = {{0, 1, 100}};
	struct wm_shm_channel_spec bad_task[] = {{0, 5, 64}};
	struct wm_shm_spec spec = {2, 1, bad_size, 0, 0};
	struct wm_shm seg;
	char err[256];

	ck_assert_int_eq(wm_shm_create(&spec, &seg, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "invalid ring size 100"));
	spec.channels = bad_task;
	ck_assert_int_eq(wm_shm_create(&spec, &seg, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "subtask 5"));
	spec.n_subtasks = 0;
	ck_assert_int_eq(wm_shm_create(&spec, &seg, err, sizeof(err)), -EINVAL);
}
END_TEST

static bool
never(void *arg)
{
	(void)arg;
	return false;
}

START_TEST(test_wait_times_out_in_every_mode)
{
	static const enum wm_wait_mode modes[] = {WM_WAIT_SPIN, WM_WAIT_FUTEX,
						  WM_WAIT_YIELD};
	struct wm_doorbell bell;

	wm_doorbell_init(&bell);
	for (size_t i = 0; i < 3; i++) {
		struct wm_waiter w;

		wm_waiter_init(&w, &bell, modes[i]);
		ck_assert_int_eq(wm_wait(&w, never, NULL, 2000000), -ETIMEDOUT);
		ck_assert_uint_eq(atomic_load(&bell.sleeping), 0);
	}
	ck_assert_uint_gt(atomic_load(&bell.parks), 0);
}
END_TEST

static Suite *
ring_suite(void)
{
	Suite *s = suite_create("ring");
	TCase *ring = tcase_create("ring");
	TCase *gate = tcase_create("gate");
	TCase *seg = tcase_create("segment");

	tcase_add_test(ring, test_ring_sizes_are_powers_of_two_in_range);
	tcase_add_loop_test(ring, test_ring_carries_every_frame_kind, 0, 2);
	tcase_add_loop_test(
		ring, test_ring_full_and_empty_edges_across_many_wraps, 0, 2);
	tcase_add_loop_test(
		ring, test_ring_in_place_write_and_read_across_wraps, 0, 2);
	tcase_add_loop_test(ring,
			    test_ring_carries_rows_of_every_length_across_wraps,
			    0, 2);
	tcase_add_test(ring, test_ring_detects_corrupt_rows);
	tcase_add_test(ring, test_ring_paired_stores_write_the_same_cells);
	tcase_add_test(ring, test_ring_detects_corrupt_cell);
	tcase_add_test(ring, test_ring_dump_names_the_position);
	tcase_add_test(ring, test_ring_dump_shows_what_the_producer_announced);
	tcase_add_test(gate, test_gate_reads_inputs_fairly);
	tcase_add_test(gate, test_gate_leaves_blocked_inputs_unread);
	tcase_add_test(gate, test_gate_hands_out_records_as_runs_in_place);
	tcase_add_test(gate, test_gate_hands_out_a_row_with_its_fields);
	tcase_add_test(gate,
		       test_gate_nudge_wakes_a_producer_that_missed_its_nudge);
	tcase_add_test(gate, test_wait_times_out_in_every_mode);
	tcase_add_test(seg, test_segment_layout_and_checks);
	tcase_add_test(seg, test_segment_spec_errors);
	suite_add_tcase(s, ring);
	suite_add_tcase(s, gate);
	suite_add_tcase(s, seg);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(ring_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
