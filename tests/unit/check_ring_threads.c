/*
 * check_ring_threads.c
 *	The ring and the doorbell between two threads, for ThreadSanitizer.
 *
 * TSan sees the C11 atomics between threads of one process (not between
 * processes sharing memory, which check_ring_process covers), so this
 * test runs the same protocol over malloc'ed, zeroed, aligned memory in two
 * pthreads, and the build compiles it and the ipc sources it uses with
 * -fsanitize=thread (Makefile.am, when configure finds TSan and sanitizers
 * are off). A data race on a payload (a missing or misplaced P1/C1 or
 * C2/P2 edge) is a TSan report, and a report fails the test:
 * halt_on_error=1 exits the Check child with 66. TSan does not model
 * atomic_thread_fence(), so the W1/W2 fences are proven by the lost-wake-up
 * checks here and in check_ring_process, not by TSan.
 *
 * What each test proves:
 *   stream	WM_THREAD_RECORDS records (default 2000000) through a
 *		256-cell ring in random batches with control frames, rows of
 *		every length (a head and its parts) and random pauses: in
 *		order, no loss or duplicate, every row's bytes whole,
 *		race-free.
 *   doorbell	ping-pong with random 0-200 us answers and no spinning: every
 *		wait parks, none sleeps through its wake-up.
 * A wait lasting its whole limit (5 s) is a lost wake-up and fails.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ipc/ring.h"
#include "ipc/wait.h"
#include "tests/unit/stress.h"

#define WAIT_LIMIT_NS (5 * 1000000000LL)
#define STREAM_CELLS 256u
#define PINGPONG_ROUNDS 1000u
#define RING_ALIGN 4096 /* as in the segment: rings start a page */

/* Make any TSan report fatal even when run by hand (TSAN_OPTIONS from the
 * environment still wins, key by key). */
const char *__tsan_default_options(void);
const char *
__tsan_default_options(void)
{
	return "halt_on_error=1:exitcode=66";
}

static void *
zalloc(size_t align, size_t bytes)
{
	size_t rounded = (bytes + align - 1) / align * align;
	void *mem = aligned_alloc(align, rounded);

	ck_assert_ptr_nonnull(mem);
	memset(mem, 0, rounded);
	return mem;
}

static struct wm_ring *
new_ring(uint32_t cells)
{
	struct wm_ring *ring = zalloc(RING_ALIGN, wm_ring_size(cells));

	ck_assert_int_eq(wm_ring_init(ring, cells), 0);
	return ring;
}

/* --------------------------------------------------------------------- */
/* Two sides and what they share */

struct side {
	struct wm_ring_producer out;
	struct wm_ring_consumer in;
	struct wm_waiter w;
	struct shared *sh;
	uint64_t rng;
	char msg[512]; /* why this side failed; empty if it did not */
};

struct shared {
	_Atomic bool stop; /* a side failed: the other gives up waiting */
	uint64_t records;
	struct side a, b;
};

static void side_fail(struct side *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void
side_fail(struct side *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->msg, sizeof(s->msg), fmt, ap);
	va_end(ap);
	atomic_store(&s->sh->stop, true);
	/* Wake the other side so it sees `stop` at once. */
	wm_doorbell_ring(s->sh->a.w.db);
	wm_doorbell_ring(s->sh->b.w.db);
}

static bool
space_ready(void *arg)
{
	struct side *s = arg;

	return wm_ring_free(&s->out, 1) > 0 || atomic_load(&s->sh->stop);
}

static bool
data_ready(void *arg)
{
	struct side *s = arg;

	return wm_ring_ready(&s->in) || atomic_load(&s->sh->stop);
}

/* Flush and sleep until there is space: true, or false after failing s. */
static bool
wait_space(struct side *s)
{
	int64_t t0;
	int r;

	wm_ring_flush(&s->out);
	t0 = now_ns();
	r = wm_wait(&s->w, space_ready, s, WAIT_LIMIT_NS);
	if (atomic_load(&s->sh->stop))
		return false;
	if (r != 0 || now_ns() - t0 >= WAIT_LIMIT_NS) {
		side_fail(s,
			  "lost wake-up: producer slept 5 s on a full ring "
			  "(position %" PRIu64 ")",
			  s->out.pos);
		return false;
	}
	return true;
}

/* Release and sleep until a frame is there: true, or false. */
static bool
wait_data(struct side *s)
{
	int64_t t0;
	int r;

	wm_ring_release(&s->in);
	t0 = now_ns();
	r = wm_wait(&s->w, data_ready, s, WAIT_LIMIT_NS);
	if (atomic_load(&s->sh->stop))
		return false;
	if (r != 0 || now_ns() - t0 >= WAIT_LIMIT_NS) {
		side_fail(s,
			  "lost wake-up: consumer slept 5 s with data in the "
			  "ring (position %" PRIu64 ")",
			  s->in.pos);
		return false;
	}
	return true;
}

static void
check_sides(struct shared *sh)
{
	if (sh->a.msg[0] || sh->b.msg[0])
		ck_abort_msg("%s%s%s", sh->a.msg,
			     sh->a.msg[0] && sh->b.msg[0] ? "; " : "",
			     sh->b.msg);
}

/* --------------------------------------------------------------------- */
/* stream */

static bool
push_control(struct side *s, enum wm_frame_kind kind, uint32_t arg,
	     uint64_t records, uint64_t n)
{
	while (!wm_ring_try_push(&s->out, kind, arg, records, n, 0))
		if (!wait_space(s))
			return false;
	return true;
}

/* Row number `ctl`'s length and bytes: every length from 1 to the most
 * comes up, and every byte says where it belongs. */
static uint32_t
row_len(uint64_t ctl)
{
	return 1 + (uint32_t)(ctl * 37 % WM_FRAME_ROW_MAX_BYTES);
}

static unsigned char
row_byte(uint64_t ctl, uint32_t i)
{
	return (unsigned char)(ctl * 31 + i * 7);
}

/* A ROW frame after `records` records: head, then parts, in one span. */
static bool
push_row(struct side *s, uint64_t records, uint64_t ctl)
{
	unsigned char row[WM_FRAME_ROW_MAX_BYTES];
	uint32_t len = row_len(ctl), cells = wm_ring_row_cells(len);
	struct wm_ring_span span;

	for (uint32_t i = 0; i < len; i++)
		row[i] = row_byte(ctl, i);
	while ((span = wm_ring_reserve(&s->out, cells)).n < cells)
		if (!wait_space(s))
			return false;
	wm_ring_put_row(&span, 0, 7, records, ctl, len, row, len);
	wm_ring_commit(&s->out, cells);
	return true;
}

static void *
stream_producer(void *arg)
{
	struct side *s = arg;
	uint64_t next = 0, ctl = 0, total = s->sh->records;

	while (next < total) {
		uint64_t r = rng_next(&s->rng);
		uint32_t n = (uint32_t)(r % 64) + 1, done = 0;
		bool ok = true;

		if (n > total - next)
			n = (uint32_t)(total - next);
		while (done < n) {
			done += push_run(&s->out, next + done, n - done);
			if (done < n && !wait_space(s))
				return NULL;
		}
		next += n;
		r >>= 6;
		if (r % 64 == 0)
			ok = push_control(s, WM_FRAME_WATERMARK, 0, next,
					  ctl++);
		else if (r % 64 == 1)
			ok = push_control(s, WM_FRAME_BARRIER, 3, next, ctl++);
		else if (r % 64 == 2)
			ok = push_row(s, next, ctl++);
		if (!ok)
			return NULL;
		r >>= 6;
		if (r % 1024 == 0)
			busy_ns(1000 + (int64_t)(r >> 10) % 8000);
		else if (r % 4096 == 1)
			sleep_ns(10000 + (int64_t)(r >> 12) % 90000);
	}
	if (push_control(s, WM_FRAME_END, WM_END_DRAIN, next, ctl))
		wm_ring_flush(&s->out);
	return NULL;
}

static void *
stream_consumer(void *arg)
{
	struct side *s = arg;
	struct wm_frame f;
	uint64_t expect = 0, ctl = 0;
	unsigned char row[WM_FRAME_ROW_MAX_BYTES];

	for (;;) {
		int r = wm_ring_peek(&s->in, &f);
		uint32_t len = 0;
		uint64_t x;

		if (r == 1 && f.kind == WM_FRAME_ROW) {
			r = wm_ring_read_row(&s->in, row, &len);
			if (r > 0)
				wm_ring_consume_run(&s->in, (uint32_t)r);
		} else if (r == 1) {
			wm_ring_consume(&s->in);
		}

		if (r == 0) {
			if (!wait_data(s))
				return NULL;
			continue;
		}
		if (r < 0) {
			wm_ring_dump(s->in.ring, s->in.pos, stderr);
			side_fail(s, "corrupt cell at position %" PRIu64,
				  s->in.pos);
			return NULL;
		}
		if (f.kind == WM_FRAME_RECORD) {
			if (!is_record(&f, expect)) {
				wm_ring_dump(s->in.ring, s->in.pos - 1, stderr);
				side_fail(s,
					  "expected record %" PRIu64
					  " at position %" PRIu64
					  ", got %" PRIu64,
					  expect, s->in.pos - 1, f.payload[0]);
				return NULL;
			}
			expect++;
		} else {
			if (f.payload[0] != expect || f.payload[1] != ctl) {
				side_fail(s,
					  "%s frame %" PRIu64 " after record "
					  "%" PRIu64 ", expected %" PRIu64
					  " after %" PRIu64,
					  wm_frame_kind_name(f.kind),
					  f.payload[1], f.payload[0], ctl,
					  expect);
				return NULL;
			}
			if (f.kind == WM_FRAME_END)
				break;
			if (f.kind == WM_FRAME_ROW) {
				uint32_t i = 0;

				while (i < len && row[i] == row_byte(ctl, i))
					i++;
				if (f.arg != 7 || f.payload[2] != len ||
				    len != row_len(ctl) || i < len) {
					side_fail(s,
						  "row %" PRIu64 ": %" PRIu32
						  " bytes, %" PRIu32
						  " of them right",
						  ctl, len, i);
					return NULL;
				}
			}
			ctl++;
		}
		x = rng_next(&s->rng);
		if (x % 16384 == 0)
			busy_ns(1000 + (int64_t)(x >> 14) % 8000);
		else if (x % 65536 == 1)
			sleep_ns(10000 + (int64_t)(x >> 16) % 90000);
	}
	if (expect != s->sh->records)
		side_fail(s, "END after %" PRIu64 " of %" PRIu64 " records",
			  expect, s->sh->records);
	return NULL;
}

START_TEST(test_threads_stream_random_batches)
{
	struct wm_ring *ring = new_ring(STREAM_CELLS);
	struct wm_doorbell *bells =
		zalloc(WM_FALSE_SHARING_RANGE, 2 * sizeof(struct wm_doorbell));
	struct shared *sh = zalloc(WM_FALSE_SHARING_RANGE, sizeof(*sh));
	uint64_t seed = env_u64("WM_STRESS_SEED", 0);
	pthread_t pt, ct;
	int64_t t0 = now_ns();

	if (seed == 0)
		seed = (uint64_t)now_ns() | 1;
	sh->records = env_u64("WM_THREAD_RECORDS", 2000000);
	wm_doorbell_init(&bells[0]);
	wm_doorbell_init(&bells[1]);
	/* a: producer, owns bells[0]; b: consumer, owns bells[1]. */
	sh->a.sh = sh->b.sh = sh;
	sh->a.rng = seed ^ 0x5bd1e995u;
	sh->b.rng = seed ^ 0x27d4eb2fu;
	wm_ring_producer_attach(&sh->a.out, ring, &bells[1]);
	wm_ring_consumer_attach(&sh->b.in, ring, &bells[0]);
	wm_waiter_init(&sh->a.w, &bells[0], WM_WAIT_FUTEX);
	wm_waiter_init(&sh->b.w, &bells[1], WM_WAIT_FUTEX);
	ck_assert_int_eq(pthread_create(&pt, NULL, stream_producer, &sh->a), 0);
	ck_assert_int_eq(pthread_create(&ct, NULL, stream_consumer, &sh->b), 0);
	pthread_join(pt, NULL);
	pthread_join(ct, NULL);
	if (sh->a.msg[0] || sh->b.msg[0])
		fprintf(stderr, "seed %" PRIu64 "\n", seed);
	check_sides(sh);
	ck_assert_uint_eq(atomic_load(&ring->written), sh->b.in.pos);
	fprintf(stderr,
		"threads stream: %" PRIu64 " records in %.2f s, producer "
		"parked %" PRIu64 ", consumer parked %" PRIu64 "\n",
		sh->records, (double)(now_ns() - t0) / 1e9,
		atomic_load(&bells[0].parks), atomic_load(&bells[1].parks));
	free(sh);
	free(bells);
	free(ring);
}
END_TEST

/* --------------------------------------------------------------------- */
/* doorbell ping-pong with forced parking */

static void
answer_delay(struct side *s)
{
	uint64_t r = rng_next(&s->rng);

	if (r % 8 != 0)
		sleep_ns((int64_t)((r >> 3) % 200001));
}

/* `first` sends before it receives; the other answers. */
static void
ping_pong(struct side *s, bool first)
{
	for (uint64_t i = 0; i < PINGPONG_ROUNDS; i++) {
		struct wm_frame f;
		int r;

		if (first) {
			if (push_run(&s->out, i, 1) != 1) {
				side_fail(s, "round %" PRIu64 ": ring full", i);
				return;
			}
			wm_ring_flush(&s->out);
		}
		while ((r = wm_ring_pop(&s->in, &f)) == 0)
			if (!wait_data(s))
				return;
		if (r != 1 || !is_record(&f, i)) {
			side_fail(s, "round %" PRIu64 ": wrong frame", i);
			return;
		}
		answer_delay(s);
		if (!first) {
			if (push_run(&s->out, i, 1) != 1) {
				side_fail(s, "round %" PRIu64 ": ring full", i);
				return;
			}
			wm_ring_flush(&s->out);
		}
	}
}

static void *
pinger(void *arg)
{
	ping_pong(arg, true);
	return NULL;
}

static void *
ponger(void *arg)
{
	ping_pong(arg, false);
	return NULL;
}

START_TEST(test_threads_doorbell_ping_pong_parks_and_wakes)
{
	struct wm_ring *ping = new_ring(64), *pong = new_ring(64);
	struct wm_doorbell *bells =
		zalloc(WM_FALSE_SHARING_RANGE, 2 * sizeof(struct wm_doorbell));
	struct shared *sh = zalloc(WM_FALSE_SHARING_RANGE, sizeof(*sh));
	pthread_t at, bt;

	sh->a.sh = sh->b.sh = sh;
	sh->a.rng = (uint64_t)now_ns() | 1;
	sh->b.rng = sh->a.rng ^ 0x85ebca6bu;
	/* a sends on ping and owns bells[0]; b answers on pong. */
	wm_ring_producer_attach(&sh->a.out, ping, &bells[1]);
	wm_ring_consumer_attach(&sh->b.in, ping, &bells[0]);
	wm_ring_producer_attach(&sh->b.out, pong, &bells[0]);
	wm_ring_consumer_attach(&sh->a.in, pong, &bells[1]);
	wm_waiter_init(&sh->a.w, &bells[0], WM_WAIT_FUTEX);
	wm_waiter_init(&sh->b.w, &bells[1], WM_WAIT_FUTEX);
	/* No spinning: every wait that finds nothing parks in the kernel. */
	sh->a.w.spin_ns = sh->a.w.spin_max_ns = 0;
	sh->b.w.spin_ns = sh->b.w.spin_max_ns = 0;
	ck_assert_int_eq(pthread_create(&at, NULL, pinger, &sh->a), 0);
	ck_assert_int_eq(pthread_create(&bt, NULL, ponger, &sh->b), 0);
	pthread_join(at, NULL);
	pthread_join(bt, NULL);
	check_sides(sh);
	for (int i = 0; i < 2; i++) {
		ck_assert_uint_ge(atomic_load(&bells[i].parks),
				  PINGPONG_ROUNDS / 2);
		ck_assert_uint_ge(atomic_load(&bells[i].wakeups),
				  PINGPONG_ROUNDS / 4);
	}
	free(sh);
	free(bells);
	free(ping);
	free(pong);
}
END_TEST

static Suite *
ring_threads_suite(void)
{
	Suite *s = suite_create("ring_threads");
	TCase *tc = tcase_create("threads");

	/* Generous: TSan is 5-15 times slower, the machine may be loaded. */
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_threads_stream_random_batches);
	tcase_add_test(tc, test_threads_doorbell_ping_pong_parks_and_wakes);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(ring_threads_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
