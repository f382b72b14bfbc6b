/*
 * keygroup.c
 *	Java String.hashCode over UTF-8 input, parallelism checks, default max
 *	parallelism and key-group ranges (doc/semantics.md section 4.3).
 *
 * The string hash decodes UTF-8 on the fly into UTF-16 code units and folds
 * them in without building the Java string: one pass, no buffer, so keys of
 * any length cost no allocation. Ill-formed input is replaced piece by piece
 * with U+FFFD exactly where Java's UTF-8 decoder would replace it (see
 * keygroup.h); the strict variant shares the decoder and only counts the
 * replacements.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>

#include "operators/keygroup.h"

#define REPLACEMENT_CHARACTER 0xfffdu

static inline uint32_t
fold_unit(uint32_t h, uint32_t unit)
{
	return 31u * h + unit;
}

/* Fold one code point in as Java would see it: one UTF-16 unit in the BMP,
 * else a high and a low surrogate. */
static inline uint32_t
fold_code_point(uint32_t h, uint32_t cp)
{
	if (cp < 0x10000u)
		return fold_unit(h, cp);
	cp -= 0x10000u;
	h = fold_unit(h, 0xd800u + (cp >> 10));
	return fold_unit(h, 0xdc00u + (cp & 0x3ffu));
}

static inline bool
is_continuation(uint8_t b)
{
	return (b & 0xc0u) == 0x80u;
}

/*
 * Hash s[0..len) and count the U+FFFD substitutions made for ill-formed
 * input. The lead byte decides how many continuation bytes follow and which
 * values the first of them may take (that bound is what excludes overlong
 * forms and code points above U+10FFFF); a piece ends at the first byte that
 * does not fit, and that byte starts the next piece. ED is given the full
 * 80..BF second-byte range, as Java does, and the surrogate it then decodes
 * to is replaced as a whole.
 */
static uint32_t
hash_utf8(const uint8_t *s, size_t len, size_t *replaced)
{
	uint32_t h = 0;
	size_t n_replaced = 0;
	size_t i = 0;

	while (i < len) {
		uint8_t b = s[i++];
		unsigned need;
		uint8_t lo = 0x80u, hi = 0xbfu;
		uint32_t cp;

		if (b < 0x80u) {
			h = fold_unit(h, b);
			continue;
		}
		if (b >= 0xc2u && b <= 0xdfu) {
			need = 1;
			cp = b & 0x1fu;
		} else if (b >= 0xe0u && b <= 0xefu) {
			need = 2;
			cp = b & 0x0fu;
			if (b == 0xe0u)
				lo = 0xa0u;
		} else if (b >= 0xf0u && b <= 0xf4u) {
			need = 3;
			cp = b & 0x07u;
			if (b == 0xf0u)
				lo = 0x90u;
			else if (b == 0xf4u)
				hi = 0x8fu;
		} else {
			/* C0, C1, F5..FF or a stray continuation byte. */
			h = fold_unit(h, REPLACEMENT_CHARACTER);
			n_replaced++;
			continue;
		}
		if (i == len || s[i] < lo || s[i] > hi)
			goto malformed;
		cp = (cp << 6) | (s[i++] & 0x3fu);
		while (--need > 0) {
			if (i == len || !is_continuation(s[i]))
				goto malformed;
			cp = (cp << 6) | (s[i++] & 0x3fu);
		}
		if (cp >= 0xd800u && cp <= 0xdfffu)
			goto malformed;
		h = fold_code_point(h, cp);
		continue;
	malformed:
		/* The bytes consumed so far form one ill-formed piece. */
		h = fold_unit(h, REPLACEMENT_CHARACTER);
		n_replaced++;
	}
	*replaced = n_replaced;
	return h;
}

int32_t
wm_keygroup_hash_string(const char *s, size_t len)
{
	size_t replaced;

	return (int32_t)hash_utf8((const uint8_t *)s, len, &replaced);
}

int
wm_keygroup_hash_string_strict(const char *s, size_t len, int32_t *hash)
{
	size_t replaced;
	uint32_t h = hash_utf8((const uint8_t *)s, len, &replaced);

	if (replaced > 0)
		return -EILSEQ;
	*hash = (int32_t)h;
	return 0;
}

int
wm_keygroup_check(uint32_t parallelism, uint32_t max_parallelism)
{
	if (parallelism == 0 || parallelism > max_parallelism ||
	    max_parallelism > WM_KEYGROUP_MAX_PARALLELISM)
		return -EINVAL;
	return 0;
}

/* Smallest power of two >= x, for 1 <= x <= 2^31. */
static uint32_t
round_up_to_power_of_two(uint32_t x)
{
	x--;
	x |= x >> 1;
	x |= x >> 2;
	x |= x >> 4;
	x |= x >> 8;
	x |= x >> 16;
	return x + 1;
}

int32_t
wm_keygroup_default_max_parallelism(uint32_t parallelism)
{
	uint32_t m;

	if (parallelism == 0 || parallelism > WM_KEYGROUP_MAX_PARALLELISM)
		return -EINVAL;
	/* p + p/2 <= 49152 here, so nothing overflows. */
	m = round_up_to_power_of_two(parallelism + parallelism / 2);
	if (m < WM_KEYGROUP_DEFAULT_MIN)
		m = WM_KEYGROUP_DEFAULT_MIN;
	if (m > WM_KEYGROUP_MAX_PARALLELISM)
		m = WM_KEYGROUP_MAX_PARALLELISM;
	return (int32_t)m;
}

int
wm_keygroup_range(uint32_t max_parallelism, uint32_t parallelism,
		  uint32_t index, struct wm_keygroup_range *range)
{
	if (wm_keygroup_check(parallelism, max_parallelism) != 0 ||
	    index >= parallelism)
		return -EINVAL;
	/* start = ceil(i*maxP/p), end = ((i+1)*maxP - 1)/p: the key groups kg
	 * with i*maxP <= kg*p < (i+1)*maxP, i.e. kg*p/maxP == i. */
	range->start =
		(index * max_parallelism + parallelism - 1) / parallelism;
	range->end = ((index + 1) * max_parallelism - 1) / parallelism;
	return 0;
}

static void
subtasks_pow2_portable(const int32_t *hash, uint32_t n, uint32_t shift,
		       uint32_t parallelism, uint32_t *subtask)
{
	for (uint32_t i = 0; i < n; i++)
		subtask[i] =
			wm_keygroup_subtask_pow2(hash[i], shift, parallelism);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/*
 * AVX2 multiplies eight 32-bit lanes an instruction: murmur, the key group
 * and the subtask of eight hashes take about 25 instructions, what one
 * hash takes alone. Compiled for AVX2 whatever the build targets, and
 * called only where the processor has it. _mm256_abs_epi32() leaves
 * INT32_MIN as 2^31, whose masked bits are 0, as Flink's 0 are.
 */
#include <immintrin.h>

__attribute__((target("avx2"))) static void
subtasks_pow2_avx2(const int32_t *hash, uint32_t n, uint32_t shift,
		   uint32_t parallelism, uint32_t *subtask)
{
	const __m256i c1 = _mm256_set1_epi32((int32_t)0xcc9e2d51u);
	const __m256i c2 = _mm256_set1_epi32((int32_t)0x1b873593u);
	const __m256i c3 = _mm256_set1_epi32((int32_t)0xe6546b64u);
	const __m256i c4 = _mm256_set1_epi32((int32_t)0x85ebca6bu);
	const __m256i c5 = _mm256_set1_epi32((int32_t)0xc2b2ae35u);
	const __m256i four = _mm256_set1_epi32(4);
	const __m256i mask = _mm256_set1_epi32((int32_t)((1u << shift) - 1u));
	const __m256i p = _mm256_set1_epi32((int32_t)parallelism);
	const __m128i by = _mm_cvtsi32_si128((int)shift);
	uint32_t i = 0;

	for (; n - i >= 8; i += 8) {
		__m256i c = _mm256_loadu_si256((const __m256i *)&hash[i]);

		c = _mm256_mullo_epi32(c, c1);
		c = _mm256_or_si256(_mm256_slli_epi32(c, 15),
				    _mm256_srli_epi32(c, 17));
		c = _mm256_mullo_epi32(c, c2);
		c = _mm256_or_si256(_mm256_slli_epi32(c, 13),
				    _mm256_srli_epi32(c, 19));
		c = _mm256_add_epi32(
			_mm256_add_epi32(_mm256_slli_epi32(c, 2), c), c3);
		c = _mm256_xor_si256(c, four);
		c = _mm256_xor_si256(c, _mm256_srli_epi32(c, 16));
		c = _mm256_mullo_epi32(c, c4);
		c = _mm256_xor_si256(c, _mm256_srli_epi32(c, 13));
		c = _mm256_mullo_epi32(c, c5);
		c = _mm256_xor_si256(c, _mm256_srli_epi32(c, 16));
		c = _mm256_and_si256(_mm256_abs_epi32(c), mask);
		c = _mm256_srl_epi32(_mm256_mullo_epi32(c, p), by);
		_mm256_storeu_si256((__m256i *)&subtask[i], c);
	}
	subtasks_pow2_portable(hash + i, n - i, shift, parallelism,
			       subtask + i);
}

void
wm_keygroup_subtasks_pow2(const int32_t *hash, uint32_t n, uint32_t shift,
			  uint32_t parallelism, uint32_t *subtask)
{
	/* libgcc reads the processor's features once, before main. */
	if (__builtin_cpu_supports("avx2"))
		subtasks_pow2_avx2(hash, n, shift, parallelism, subtask);
	else
		subtasks_pow2_portable(hash, n, shift, parallelism, subtask);
}
#else
void
wm_keygroup_subtasks_pow2(const int32_t *hash, uint32_t n, uint32_t shift,
			  uint32_t parallelism, uint32_t *subtask)
{
	subtasks_pow2_portable(hash, n, shift, parallelism, subtask);
}
#endif
