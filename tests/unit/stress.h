/*
 * stress.h
 *	Small helpers shared by the transport's tests (one process, processes
 *	and threads): time, a seeded PRNG, pauses, counts from the
 *	environment, and numbered records as the ring's opaque words.
 *	Header-only, so that the ThreadSanitizer build, which compiles its own
 *	objects, can use it too.
 */
#ifndef WM_TESTS_UNIT_STRESS_H
#define WM_TESTS_UNIT_STRESS_H

#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "ipc/frame.h"
#include "ipc/ring.h"
#include "ipc/wait.h"
#include "base/clock.h"

static inline int64_t
now_ns(void)
{
	return wm_monotonic_ns();
}

/* xorshift64*: fast, and reproducible from the seed a failure prints. */
static inline uint64_t
rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static inline void
sleep_ns(int64_t ns)
{
	struct timespec ts = {ns / 1000000000, ns % 1000000000};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* A pause that keeps the CPU, as a busy producer or consumer would. */
static inline void
busy_ns(int64_t ns)
{
	int64_t until = now_ns() + ns;

	while (now_ns() < until)
		wm_cpu_relax();
}

/* A count from the environment (so CI can scale a stress test), or dflt;
 * anything but a number fails the test. */
static inline uint64_t
env_u64(const char *name, uint64_t dflt)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (s == NULL || *s == '\0')
		return dflt;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || *end != '\0')
		ck_abort_msg("invalid %s=\"%s\"", name, s);
	return v;
}

/* The words of record cell number i (opaque to the ring), each derived
 * from i. */
struct test_words {
	uint32_t arg;
	uint64_t a, b, c;
};

static inline struct test_words
record_words(uint64_t i)
{
	return (struct test_words){
		.arg = (uint32_t)(i * 2654435761u),
		.a = i,
		.b = i * 0x9e3779b97f4a7c15ull,
		.c = ~i,
	};
}

/* Whether frame f is record number i, exactly. */
static inline bool
is_record(const struct wm_frame *f, uint64_t i)
{
	struct test_words w = record_words(i);

	return f->kind == WM_FRAME_RECORD && f->arg == w.arg &&
	       f->payload[0] == w.a && f->payload[1] == w.b &&
	       f->payload[2] == w.c;
}

/* Whether a cell handed out by wm_ring_peek_records() is record i. */
static inline bool
is_record_cell(const struct wm_cell *cell, uint64_t i)
{
	struct test_words w = record_words(i);

	return wm_cell_arg(cell) == w.arg && cell->payload[0] == w.a &&
	       cell->payload[1] == w.b && cell->payload[2] == w.c;
}

/* Put records first .. first + n - 1 in place as one run, as many as fit
 * (the data path's way, ring.h), and commit them; returns how many. */
static inline uint32_t
push_run(struct wm_ring_producer *p, uint64_t first, uint32_t n)
{
	struct wm_ring_span s = wm_ring_reserve(p, n);

	for (uint32_t i = 0; i < s.n; i++) {
		struct test_words w = record_words(first + i);

		wm_ring_put(&s, i, w.arg, w.a, w.b, w.c);
	}
	wm_ring_commit(p, s.n);
	return s.n;
}

#endif /* WM_TESTS_UNIT_STRESS_H */
