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
 * bits: the key's high half folded into its low one, multiplied by
 * 2^64 / phi, and the product's high half folded into its low one. A
 * product's bit i depends on input bits 0 .. i only: the first fold
 * lets bits above the table's reach move it (keys apart only in their
 * high bits), the second brings the product's better bits down to the
 * low ones. Seven instructions against wm_hash_mix64()'s eleven, and
 * on small, consecutive, even, strided (by 1000, 60000, 2^12, 2^32),
 * high-bit-only and two-halved keys, n of them in 2n slots, as many
 * homes as the finaliser or more (check_hash_table), where a byte swap
 * of the product in place of the second fold left even keys a third of
 * them. A bijection.
 */
static inline uint64_t
wm_hash_fibonacci_low(uint64_t x)
{
	uint64_t p = wm_hash_fibonacci(x ^ x >> 32);

	return p ^ p >> 32;
}

#endif /* WM_LIB_HASH_H */
