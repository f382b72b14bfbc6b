/*
 * keygroup.h
 *	Flink's keyBy routing: key -> Java hashCode -> murmur -> key group ->
 *	subtask index (doc/semantics.md section 4.3).
 *
 * A keyed operator with parallelism p and max parallelism maxP splits the
 * key space into maxP key groups; subtask i owns the contiguous range
 * [ceil(i*maxP/p), ((i+1)*maxP - 1)/p], which is exactly the set of key
 * groups kg with kg*p/maxP == i. Every function here must agree bit for bit
 * with Flink, or a job restored from Flink state would see keys on the wrong
 * subtask: hashes are Java ints (int32_t, wrapping), everything else is
 * computed on unsigned 32-bit values so that no signed overflow can occur.
 *
 * Valid settings satisfy 0 < p <= maxP <= WM_KEYGROUP_MAX_PARALLELISM;
 * wm_keygroup_check() tells. The per-record functions (murmur, key group,
 * operator index) are inline and do not validate: the worker checks the
 * topology once and then calls them for every record.
 *
 * Pure: no allocation, no I/O, no global state; safe from any thread.
 */
#ifndef WM_OPERATORS_KEYGROUP_H
#define WM_OPERATORS_KEYGROUP_H

#include <stddef.h>
#include <stdint.h>

/* Upper bound of max parallelism (Flink's 1 << 15, inclusive). */
#define WM_KEYGROUP_MAX_PARALLELISM 32768u
/* Lower bound of the default max parallelism (Flink's 1 << 7). */
#define WM_KEYGROUP_DEFAULT_MIN 128u

/* Key groups [start, end], both inclusive, owned by one subtask. */
struct wm_keygroup_range {
	uint32_t start;
	uint32_t end;
};

/* Java Integer.hashCode() (also Short and Byte): the value itself. */
static inline int32_t
wm_keygroup_hash_int32(int32_t value)
{
	return value;
}

/* Java Long.hashCode(): (int)(v ^ (v >>> 32)), on the two's complement bit
 * pattern; 1 and 1 << 32 both hash to 1, -1 hashes to 0. */
static inline int32_t
wm_keygroup_hash_int64(int64_t value)
{
	uint64_t bits = (uint64_t)value;

	return (int32_t)(uint32_t)(bits ^ (bits >> 32));
}

/*
 * Java String.hashCode() of the string whose UTF-8 encoding is s[0..len):
 * h = 31*h + u over its UTF-16 code units u (a character above U+FFFF
 * counts as its two surrogates). s need not be NUL-terminated and may
 * contain NUL bytes; s may be NULL when len is 0.
 *
 * Never fails: ill-formed UTF-8 is decoded the way Java decodes it in
 * new String(bytes, StandardCharsets.UTF_8) (checked against OpenJDK 17),
 * each malformed piece becoming U+FFFD, so the key lands where a Flink job
 * reading the same bytes would put it. The pieces are Unicode's "maximal
 * subparts" (a truncated sequence is one U+FFFD, a stray continuation byte
 * or an impossible lead byte one U+FFFD each), except that Java treats ED
 * followed by any continuation byte as a 3-byte prefix: an encoded
 * surrogate (ED A0..BF 80..BF) is one U+FFFD, not three.
 * Use wm_keygroup_hash_string_strict() to refuse such keys instead.
 */
int32_t wm_keygroup_hash_string(const char *s, size_t len);

/*
 * As wm_keygroup_hash_string(), but only for well-formed UTF-8 (RFC 3629:
 * no overlong forms, no surrogates, nothing above U+10FFFF, no truncated
 * sequence). Returns 0 and sets *hash, or returns -EILSEQ and leaves *hash
 * alone.
 */
int wm_keygroup_hash_string_strict(const char *s, size_t len, int32_t *hash);

/*
 * A string key as a record carries it in its 64-bit `key`: the string's
 * Java hash in the high 32 bits, its dictionary id (runtime/io/keys.h) in
 * the low 32. Records stay fixed-size and the keyBy edge routes without
 * a lookup; windows group by the whole word, and since one dictionary
 * gives equal strings one id (and so one hash), equal words are equal
 * strings. Records flagged WM_RECORD_STRING_KEY hold such a word.
 */
static inline int64_t
wm_keygroup_string_key(int32_t hash, uint32_t id)
{
	return (int64_t)(((uint64_t)(uint32_t)hash << 32) | id);
}

/* The Java hash of a string key made by wm_keygroup_string_key(). */
static inline int32_t
wm_keygroup_string_key_hash(int64_t key)
{
	return (int32_t)(uint32_t)((uint64_t)key >> 32);
}

/* The dictionary id of a string key made by wm_keygroup_string_key(). */
static inline uint32_t
wm_keygroup_string_key_id(int64_t key)
{
	return (uint32_t)(uint64_t)key;
}

/* MurmurHash3 x86_32 of the 4-byte hash, seed 0, before Flink makes it
 * non-negative (wm_keygroup_murmur()). */
static inline uint32_t
wm_keygroup_murmur_bits(int32_t hash)
{
	uint32_t c = (uint32_t)hash;

	c *= 0xcc9e2d51u;
	c = (c << 15) | (c >> 17);
	c *= 0x1b873593u;
	c = (c << 13) | (c >> 19);
	c = c * 5u + 0xe6546b64u;
	c ^= 4u; /* length in bytes */
	c ^= c >> 16;
	c *= 0x85ebca6bu;
	c ^= c >> 13;
	c *= 0xc2b2ae35u;
	c ^= c >> 16;
	return c;
}

/*
 * Flink's MathUtils.murmurHash(): MurmurHash3 x86_32 of the 4-byte hash,
 * seed 0, made non-negative (INT32_MIN maps to 0). Result in [0, 2^31-1].
 */
static inline int32_t
wm_keygroup_murmur(int32_t hash)
{
	uint32_t c = wm_keygroup_murmur_bits(hash);

	/* Java's Math.abs, except that Flink maps MIN_VALUE to 0. Negate in
	 * unsigned arithmetic: -(int32_t)c would overflow for INT32_MIN. */
	if (c == 0x80000000u)
		return 0;
	if (c & 0x80000000u)
		c = 0u - c;
	return (int32_t)c;
}

/* Key group of a key with Java hash `hash`, in [0, max_parallelism). */
static inline uint32_t
wm_keygroup_of_hash(int32_t hash, uint32_t max_parallelism)
{
	return (uint32_t)wm_keygroup_murmur(hash) % max_parallelism;
}

/* Subtask that owns `key_group`: key_group * p / maxP. With the bounds of
 * wm_keygroup_check() the product stays below 2^30. */
static inline uint32_t
wm_keygroup_operator_index(uint32_t key_group, uint32_t max_parallelism,
			   uint32_t parallelism)
{
	return key_group * parallelism / max_parallelism;
}

/* Subtask for a key hash in one step (what a keyBy edge does per record). */
static inline uint32_t
wm_keygroup_subtask(int32_t hash, uint32_t max_parallelism,
		    uint32_t parallelism)
{
	return wm_keygroup_operator_index(
		wm_keygroup_of_hash(hash, max_parallelism), max_parallelism,
		parallelism);
}

/*
 * wm_keygroup_subtask() for a max parallelism of 1 << shift (Flink's
 * default always is a power of two): the murmur hash is non-negative, so
 * its remainder is its low bits, and the operator index a shift. Equal to
 * wm_keygroup_subtask(hash, 1u << shift, parallelism) for every hash
 * (check_keygroup.c), with no division.
 */
static inline uint32_t
wm_keygroup_subtask_pow2(int32_t hash, uint32_t shift, uint32_t parallelism)
{
	uint32_t c = wm_keygroup_murmur_bits(hash);
	/* All ones if negative: then (c ^ sign) - sign is -c. Math.abs
	 * without a branch; MIN_VALUE, which Flink maps to 0, stays 2^31,
	 * whose low 15 bits are 0 all the same. */
	uint32_t sign = 0u - (c >> 31);
	uint32_t key_group = ((c ^ sign) - sign) & ((1u << shift) - 1u);

	return key_group * parallelism >> shift;
}

/* wm_keygroup_subtask_pow2() of hash[0..n) into subtask[0..n), which may
 * be the hashes' own array: eight at a time where the processor has AVX2
 * (keygroup.c), one at a time elsewhere, the same subtasks. */
void wm_keygroup_subtasks_pow2(const int32_t *hash, uint32_t n, uint32_t shift,
			       uint32_t parallelism, uint32_t *subtask);

/* 0 if 0 < parallelism <= max_parallelism <= WM_KEYGROUP_MAX_PARALLELISM,
 * else -EINVAL. */
int wm_keygroup_check(uint32_t parallelism, uint32_t max_parallelism);

/*
 * Flink's default max parallelism for an operator of the given parallelism
 * (neither the operator nor pipeline.max-parallelism set one):
 * min(max(roundUpToPowerOfTwo(p + p/2), 128), 32768). Returns it, always
 * >= parallelism, or -EINVAL unless 0 < parallelism <= 32768.
 */
int32_t wm_keygroup_default_max_parallelism(uint32_t parallelism);

/*
 * Key groups owned by subtask `index` (< parallelism). Returns 0 and fills
 * *range, or -EINVAL if the settings fail wm_keygroup_check() or index is
 * out of range. Ranges are never empty and tile [0, maxP) in index order.
 */
int wm_keygroup_range(uint32_t max_parallelism, uint32_t parallelism,
		      uint32_t index, struct wm_keygroup_range *range);

#endif /* WM_OPERATORS_KEYGROUP_H */
