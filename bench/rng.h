/*
 * rng.h
 *	Deterministic random numbers for benchmarks: splitmix64 seeds
 *	xorshift64*. Fast and reproducible from a seed; not for anything that
 *	needs quality beyond shuffling work items.
 */
#ifndef WM_BENCH_RNG_H
#define WM_BENCH_RNG_H

#include <stdint.h>

static inline uint64_t
wm_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

struct wm_rng {
	uint64_t s; /* never 0 */
};

static inline void
wm_rng_seed(struct wm_rng *r, uint64_t seed)
{
	do
		r->s = wm_splitmix64(&seed);
	while (r->s == 0);
}

static inline uint64_t
wm_rng_next(struct wm_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dull;
}

/* Uniform enough in [0, n) for n far below 2^32. */
static inline uint32_t
wm_rng_below(struct wm_rng *r, uint32_t n)
{
	return (uint32_t)(((wm_rng_next(r) >> 32) * n) >> 32);
}

#endif /* WM_BENCH_RNG_H */
