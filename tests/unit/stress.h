/*
 * stress.h
 *	Small helpers shared by the transport's stress tests (processes and
 *	threads): time, a seeded PRNG, pauses, and counts from the
 *	environment. Header-only, so that the ThreadSanitizer build, which
 *	compiles its own objects, can use it too.
 */
#ifndef WM_TESTS_STRESS_H
#define WM_TESTS_STRESS_H

#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "ipc/frame.h"
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

/* Record number i, with every field derived from i. */
static inline void
make_record(uint64_t i, struct wm_record *r)
{
	r->ts = (wm_ts_t)i;
	r->key = (int64_t)(i * 0x9e3779b97f4a7c15ull);
	r->value = (int64_t)~i;
	r->flags = (uint32_t)(i & 0xffff);
	r->partition = (uint32_t)((i >> 16) & 0xffff);
}

/* Whether frame f is record number i, exactly. */
static inline bool
is_record(const struct wm_frame *f, uint64_t i)
{
	struct wm_record r;

	make_record(i, &r);
	return f->kind == WM_FRAME_RECORD && f->payload[0] == i &&
	       f->payload[1] == (uint64_t)r.key &&
	       f->payload[2] == (uint64_t)r.value &&
	       f->arg == wm_frame_record_arg(&r);
}

#endif /* WM_TESTS_STRESS_H */
