/*
 * hash.h
 *	The two hashing steps the hash tables share: a 64-bit finaliser and
 *	Fibonacci spreading.
 *
 * wm_hash_mix64() is MurmurHash3's 64-bit finaliser (fmix64): a bijection
 * on 64-bit words in which every input bit affects every output bit with
 * probability close to one half. A table takes the low bits of its result
 * as the home slot, so keys that differ only in their high bits (aligned
 * window starts, timestamps a second apart) and keys that are small
 * consecutive integers both spread over the whole table.
 *
 * wm_hash_fibonacci() multiplies by 2^64 / phi, rounded to an odd number
 * (the multiplier of Knuth's Fibonacci hashing): another bijection, and
 * cheaper (one multiplication), but it spreads only upwards: bit i of the
 * product depends on bits 0 .. i of the input alone. Tables use it on one
 * part of a composite key before the parts meet in an exclusive or, so
 * that (a, b) and (b, a) differ, and finalise the result; seeds are spread
 * with it as well.
 *
 * Both are for speed, not security: nothing here resists keys chosen to
 * collide. Their values are fixed for good: partition ids go through
 * wm_hash_fibonacci() into their random streams (operators/source_gen.c)
 * and the job's seed into each rebalance edge's first channel
 * (runtime/engine/task.c), so another constant would change what every
 * job outputs. A table may change how it combines them: no output depends
 * on where an entry sits.
 */
#ifndef WM_LIB_HASH_H
#define WM_LIB_HASH_H

#include <stdint.h>

/* MurmurHash3's fmix64. Maps 0 to 0 and nothing else to 0. */
static inline uint64_t
wm_hash_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* x times 2^64 / phi, modulo 2^64. */
static inline uint64_t
wm_hash_fibonacci(uint64_t x)
{
	return x * 0x9e3779b97f4a7c15ULL;
}

/*
 * Fibonacci hashing for a table that takes its home slot from the low
 * bits: the product with its bytes reversed. A product's best bits are
 * its top ones (bit i depends on input bits 0 .. i), which the byte swap
 * brings to the bottom, so that small consecutive keys, strided keys and
 * keys differing only in their high bits all spread over the slots. One
 * multiplication and one byte swap: a third of wm_hash_mix64()'s
 * instructions, for a table whose probes it keeps as short (the window
 * operator's state table, operators/window.c). A bijection.
 */
static inline uint64_t
wm_hash_fibonacci_low(uint64_t x)
{
	return __builtin_bswap64(wm_hash_fibonacci(x));
}

#endif /* WM_LIB_HASH_H */
