/*
 * check_keygroup.c
 *	Unit tests for operators/keygroup.[ch]: Java hashCode, murmur, key
 *	groups, operator indexes, default max parallelism and key-group ranges.
 *
 * The numbers of cases K-1..K-9 (doc/semantics.md section 10.7) were
 * produced on a JVM by Flink's own code; every one is checked here. String
 * hashes beyond those were worked out by hand (shown beside each case) and
 * confirmed with new String(bytes, StandardCharsets.UTF_8).hashCode() on
 * OpenJDK 17.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "operators/keygroup.h"
#include "tests/unit/check_main.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static int32_t
str_hash(const char *s)
{
	return wm_keygroup_hash_string(s, strlen(s));
}

/* ------------------------------------------------------------------ */
/* tcase hash: Java hashCode */

START_TEST(test_keygroup_int_hash_is_the_value)
{
	ck_assert_int_eq(wm_keygroup_hash_int32(0), 0);
	ck_assert_int_eq(wm_keygroup_hash_int32(-7), -7);
	ck_assert_int_eq(wm_keygroup_hash_int32(INT32_MIN), INT32_MIN);
}
END_TEST

/* K-6: Long.hashCode() = (int)(v ^ (v >>> 32)). */
START_TEST(test_keygroup_long_hash_folds_halves)
{
	ck_assert_int_eq(wm_keygroup_hash_int64(0), 0);
	ck_assert_int_eq(wm_keygroup_hash_int64(1), 1);
	ck_assert_int_eq(wm_keygroup_hash_int64(4294967296LL), 1);
	ck_assert_int_eq(wm_keygroup_hash_int64(-1), 0);
	ck_assert_int_eq(wm_keygroup_hash_int64(1234567890123LL), 1912276436);
	/* 0x8000000000000000 and 0x7fffffffffffffff: halves differ in every
	 * bit but the top one. */
	ck_assert_int_eq(wm_keygroup_hash_int64(INT64_MIN), INT32_MIN);
	ck_assert_int_eq(wm_keygroup_hash_int64(INT64_MAX), INT32_MIN);
}
END_TEST

/* K-2's hashes, plus one long enough to wrap many times. */
START_TEST(test_keygroup_ascii_string_hash_matches_java)
{
	ck_assert_int_eq(str_hash(""), 0);
	ck_assert_int_eq(wm_keygroup_hash_string(NULL, 0), 0);
	ck_assert_int_eq(str_hash("A"), 65);
	ck_assert_int_eq(str_hash("B"), 66);
	ck_assert_int_eq(str_hash("a"), 97);
	ck_assert_int_eq(str_hash("hello"), 99162322);
	ck_assert_int_eq(str_hash("key1"), 3288498);
	ck_assert_int_eq(str_hash("key2"), 3288499);
	ck_assert_int_eq(str_hash("test"), 3556498);
	ck_assert_int_eq(str_hash("flink"), 97520992);
	ck_assert_int_eq(
		str_hash("The quick brown fox jumps over the lazy dog"),
		-609428141);
}
END_TEST

START_TEST(test_keygroup_utf8_string_hash_uses_utf16_units)
{
	/* "é" = C3 A9 = U+00E9: one unit, 233. */
	ck_assert_int_eq(str_hash("\xc3\xa9"), 233);
	/* "aé": 31*97 + 233 = 3240. */
	ck_assert_int_eq(str_hash("a\xc3\xa9"), 3240);
	/* "€" = E2 82 AC = U+20AC: 8364. */
	ck_assert_int_eq(str_hash("\xe2\x82\xac"), 8364);
	/* "😀" = F0 9F 98 80 = U+1F600 = surrogates D83D DE00:
	 * 31*55357 + 56832 = 1772899. */
	ck_assert_int_eq(str_hash("\xf0\x9f\x98\x80"), 1772899);
	/* U+10FFFF = F4 8F BF BF = DBFF DFFF: 31*56319 + 57343 = 1803232. */
	ck_assert_int_eq(str_hash("\xf4\x8f\xbf\xbf"), 1803232);
	/* A real U+FFFD in the input is just a character: 65533. */
	ck_assert_int_eq(str_hash("\xef\xbf\xbd"), 65533);
}
END_TEST

START_TEST(test_keygroup_string_hash_counts_embedded_nul)
{
	/* "a\0b": 31*(31*97 + 0) + 98 = 93315; length, not NUL, ends it. */
	ck_assert_int_eq(wm_keygroup_hash_string("a\0b", 3), 93315);
}
END_TEST

/* Ill-formed UTF-8 decodes to U+FFFD (65533) where Java's decoder puts one;
 * R below is 65533. */
static const struct {
	const char *bytes;
	size_t len;
	int32_t hash;
} malformed[] = {
	/* invalid lead byte: R */
	{"\xff", 1, 65533},
	/* truncated 2-byte sequence at the end: R */
	{"\xc3", 1, 65533},
	/* stray continuation byte: 31*(31*97 + R) + 98 = 2124838 */
	{"a\x80"
	 "b",
	 3, 2124838},
	/* encoded surrogate U+D800: Java replaces all three bytes by one R */
	{"\xed\xa0\x80", 3, 65533},
	/* overlong 3-byte NUL: E0 cannot take 80, so R R R
	 * = R*(31^2 + 31 + 1) = 65533*993 = 65074269 */
	{"\xe0\x80\x80", 3, 65074269},
	/* overlong "/": C0 never starts a sequence: R R = 31*R + R = 2097056 */
	{"\xc0\xaf", 2, 2097056},
	/* emoji cut after 3 bytes: one maximal subpart, R */
	{"\xf0\x9f\x98", 3, 65533},
	/* emoji cut, then "A": 31*R + 65 = 2031588 */
	{"\xf0\x9f\x98"
	 "A",
	 4, 2031588},
	/* above U+10FFFF: F4 cannot take 90, so R R R R
	 * = R*(31^3 + 31^2 + 31 + 1) = 65533*30784 = 2017367872 */
	{"\xf4\x90\x80\x80", 4, 2017367872},
};

START_TEST(test_keygroup_malformed_utf8_hashes_like_java)
{
	const char *s = malformed[_i].bytes;
	size_t len = malformed[_i].len;

	ck_assert_int_eq(wm_keygroup_hash_string(s, len), malformed[_i].hash);
}
END_TEST

START_TEST(test_keygroup_strict_hash_rejects_malformed_utf8)
{
	int32_t hash = 12345;

	ck_assert_int_eq(wm_keygroup_hash_string_strict(
				 malformed[_i].bytes, malformed[_i].len, &hash),
			 -EILSEQ);
	ck_assert_int_eq(hash, 12345);
}
END_TEST

START_TEST(test_keygroup_strict_hash_accepts_wellformed_utf8)
{
	static const char *const ok[] = {
		"",
		"hello",
		"\xc3\xa9",
		"\xe2\x82\xac",
		"\xf0\x9f\x98\x80",
		"\xf4\x8f\xbf\xbf",
		"\xef\xbf\xbd",
		"\xed\x9f\xbf", /* U+D7FF */
		"\xee\x80\x80", /* U+E000 */
	};

	for (size_t i = 0; i < N_ELEMS(ok); i++) {
		int32_t hash = 0;
		size_t len = strlen(ok[i]);

		ck_assert_int_eq(
			wm_keygroup_hash_string_strict(ok[i], len, &hash), 0);
		ck_assert_int_eq(hash, wm_keygroup_hash_string(ok[i], len));
	}
}
END_TEST

/* Random bytes must never crash either variant, and the strict one must
 * agree with the lenient one whenever it accepts. */
START_TEST(test_keygroup_random_bytes_never_crash)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (int n = 0; n < 20000; n++) {
		/* Exactly sized heap copy so ASan sees any overread. */
		size_t len = (size_t)(n % 11);
		unsigned char *buf = malloc(len ? len : 1);
		int32_t strict = 0;

		if (buf == NULL)
			ck_abort_msg("out of memory");
		for (size_t i = 0; i < len; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[i] = (unsigned char)(x >> 24);
		}
		int32_t lenient = wm_keygroup_hash_string((char *)buf, len);
		if (wm_keygroup_hash_string_strict((char *)buf, len, &strict) ==
			    0 &&
		    strict != lenient)
			ck_abort_msg("strict %d, lenient %d", strict, lenient);
		free(buf);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase murmur and key groups */

/* K-1 */
START_TEST(test_keygroup_murmur_matches_flink)
{
	static const struct {
		int32_t hash;
		int32_t murmur;
	} k1[] = {
		{0, 593689054},		  {1, 68075478},
		{2, 1085422463},	  {3, 847579505},
		{42, 1134849565},	  {-1, 1982413648},
		{2147483647, 1653689534}, {INT32_MIN, 1718298732},
	};

	for (size_t i = 0; i < N_ELEMS(k1); i++)
		ck_assert_int_eq(wm_keygroup_murmur(k1[i].hash), k1[i].murmur);
}
END_TEST

START_TEST(test_keygroup_murmur_maps_int_min_to_zero)
{
	/* Found by searching all 2^32 inputs: before the sign step the mix
	 * gives 0x80000000 for the first (Java's abs would keep it negative;
	 * Flink maps it to 0) and 0 for the second. */
	ck_assert_int_eq(wm_keygroup_murmur(-2089875627), 0);
	ck_assert_int_eq(wm_keygroup_murmur(-1035494534), 0);
}
END_TEST

START_TEST(test_keygroup_murmur_is_never_negative)
{
	uint32_t h = 1;

	for (int n = 0; n < 100000; n++) {
		h = h * 1664525u + 1013904223u;
		if (wm_keygroup_murmur((int32_t)h) < 0)
			ck_abort_msg("murmur(%d) < 0", (int32_t)h);
	}
}
END_TEST

static const char *const k2_keys[] = {
	"A", "B", "a", "hello", "key1", "key2", "test", "flink", "",
};

/* K-2 and K-3 */
START_TEST(test_keygroup_string_keys_maxp_128)
{
	static const uint32_t group[] = {104, 17, 81, 35, 41, 27, 66, 98, 94};
	static const uint32_t index_p4[] = {3, 0, 2, 1, 1, 0, 2, 3, 2};

	for (size_t i = 0; i < N_ELEMS(k2_keys); i++) {
		int32_t h = str_hash(k2_keys[i]);
		uint32_t kg = wm_keygroup_of_hash(h, 128);

		ck_assert_uint_eq(kg, group[i]);
		ck_assert_uint_eq(wm_keygroup_operator_index(kg, 128, 4),
				  index_p4[i]);
		ck_assert_uint_eq(wm_keygroup_subtask(h, 128, 4), index_p4[i]);
	}
}
END_TEST

/* K-4 */
START_TEST(test_keygroup_int_keys_maxp_128)
{
	static const int32_t key[] = {0, 1,  2,	 3,   4,  5,
				      7, 10, 42, 100, -1, 123456};
	static const uint32_t group[] = {94,  86, 127, 113, 7,	126,
					 113, 67, 29,  64,  80, 48};
	static const uint32_t index_p2[] = {1, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0};
	static const uint32_t index_p3[] = {2, 2, 2, 2, 0, 2, 2, 1, 0, 1, 1, 1};

	for (size_t i = 0; i < N_ELEMS(key); i++) {
		int32_t h = wm_keygroup_hash_int32(key[i]);
		uint32_t kg = wm_keygroup_of_hash(h, 128);

		ck_assert_uint_eq(kg, group[i]);
		ck_assert_uint_eq(wm_keygroup_operator_index(kg, 128, 2),
				  index_p2[i]);
		ck_assert_uint_eq(wm_keygroup_operator_index(kg, 128, 3),
				  index_p3[i]);
	}
}
END_TEST

/* K-5 */
START_TEST(test_keygroup_string_keys_maxp_1024)
{
	static const struct {
		const char *key;
		uint32_t group;
	} k5[] = {
		{"A", 232},    {"B", 529},   {"hello", 675},
		{"key1", 681}, {"key2", 27}, {"test", 194},
	};

	for (size_t i = 0; i < N_ELEMS(k5); i++)
		ck_assert_uint_eq(
			wm_keygroup_of_hash(str_hash(k5[i].key), 1024),
			k5[i].group);
}
END_TEST

/* K-6 */
START_TEST(test_keygroup_long_keys_maxp_128)
{
	static const int64_t key[] = {0, 1, 4294967296LL, -1, 1234567890123LL};
	static const uint32_t group[] = {94, 86, 86, 94, 92};

	for (size_t i = 0; i < N_ELEMS(key); i++)
		ck_assert_uint_eq(wm_keygroup_of_hash(
					  wm_keygroup_hash_int64(key[i]), 128),
				  group[i]);
}
END_TEST

/* K-9: records ("test", 0) and ("test", 42) keyed by f0 hash "test" only,
 * so they meet on one channel whatever the channel count. */
START_TEST(test_keygroup_same_key_same_channel)
{
	static const uint32_t channels[] = {1, 2, 1024};

	for (size_t i = 0; i < N_ELEMS(channels); i++) {
		int32_t first = str_hash("test");
		int32_t second = str_hash("test");
		uint32_t a = wm_keygroup_subtask(first, 1024, channels[i]);
		uint32_t b = wm_keygroup_subtask(second, 1024, channels[i]);

		ck_assert_uint_eq(a, b);
		ck_assert_uint_lt(a, channels[i]);
	}
}
END_TEST

/*
 * The mask and shift of a power-of-two max parallelism name the subtask
 * the two divisions name: for every such maxP, parallelisms from 1 to
 * maxP, and hashes that include the extremes and INT32_MIN's murmur
 * special case. Plain ifs: millions of comparisons.
 */
START_TEST(test_keygroup_pow2_subtask_is_the_divisions_subtask)
{
	static const int32_t edge_hashes[] = {0,	 1,	    -1,
					      INT32_MIN, INT32_MAX, 1 << 30};

	for (uint32_t shift = 0; shift <= 15; shift++) {
		uint32_t max_p = 1u << shift;

		for (uint32_t p = 1; p <= max_p; p = p < 64 ? p + 1 : p * 3) {
			uint64_t x = 0x9e3779b97f4a7c15ull * (shift + 1) + p;

			for (uint32_t i = 0; i < 2000; i++) {
				int32_t h =
					i < N_ELEMS(edge_hashes)
						? edge_hashes[i]
						: (int32_t)(uint32_t)(x >> 32);
				uint32_t want =
					wm_keygroup_subtask(h, max_p, p);

				if (wm_keygroup_subtask_pow2(h, shift, p) !=
				    want)
					ck_abort_msg("maxP %u p %u hash %d: "
						     "%u, not %u",
						     max_p, p, h,
						     wm_keygroup_subtask_pow2(
							     h, shift, p),
						     want);
				x = x * 6364136223846793005ull +
				    1442695040888963407ull;
			}
		}
	}
}
END_TEST

/*
 * A run's subtasks (eight at a time where the processor has AVX2) are the
 * divisions' subtasks of each hash: runs of every length to 40, so that
 * the eight-wide loop and the rest both run, computed in place, for every
 * power-of-two maxP and several parallelisms.
 */
START_TEST(test_keygroup_subtasks_of_a_run_are_each_hashs_subtask)
{
	static const int32_t edge_hashes[] = {INT32_MIN, 0, -1, INT32_MAX, 1};
	int32_t hash[40];
	uint32_t subtask[40];
	uint64_t x = 26;

	for (uint32_t shift = 0; shift <= 15; shift++)
		for (uint32_t p = 1; p <= (1u << shift); p = p * 2 + 1)
			for (uint32_t n = 0; n <= 40; n++) {
				for (uint32_t i = 0; i < n; i++) {
					x = x * 6364136223846793005ull +
					    1442695040888963407ull;
					hash[i] =
						(i +
						 n) % 7 < N_ELEMS(edge_hashes)
							? edge_hashes[(i + n) %
								      7]
							: (int32_t)(x >> 32);
					subtask[i] = (uint32_t)hash[i];
				}
				wm_keygroup_subtasks_pow2(
					(const int32_t *)subtask, n, shift, p,
					subtask);
				for (uint32_t i = 0; i < n; i++)
					if (subtask[i] !=
					    wm_keygroup_subtask(hash[i],
								1u << shift, p))
						ck_abort_msg(
							"maxP %u p %u n %u "
							"hash %d: %u",
							1u << shift, p, n,
							hash[i], subtask[i]);
			}
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase parallelism: validation, defaults, ranges */

/* A string key's word gives back the hash and id it was made of, for
 * every sign and for the extreme ids. */
START_TEST(test_keygroup_string_key_word_keeps_hash_and_id)
{
	static const int32_t hashes[] = {0,	    1,	       -1,
					 INT32_MIN, INT32_MAX, -565983330};
	static const uint32_t ids[] = {0, 1, 0x7fffffffu, UINT32_MAX};

	for (size_t h = 0; h < N_ELEMS(hashes); h++)
		for (size_t i = 0; i < N_ELEMS(ids); i++) {
			int64_t w = wm_keygroup_string_key(hashes[h], ids[i]);

			ck_assert_int_eq(wm_keygroup_string_key_hash(w),
					 hashes[h]);
			ck_assert_uint_eq(wm_keygroup_string_key_id(w), ids[i]);
		}
	/* "zürich" and one outside the BMP, as Java hashes them (jshell,
	 * OpenJDK 17): UTF-16 units, the emoji as two surrogates. */
	ck_assert_int_eq(str_hash("z\xc3\xbcrich"), -565983330);
	ck_assert_int_eq(str_hash("a\xf0\x9f\x98\x80"
				  "b"),
			 57849694);
}
END_TEST

START_TEST(test_keygroup_check_bounds)
{
	ck_assert_int_eq(wm_keygroup_check(1, 1), 0);
	ck_assert_int_eq(wm_keygroup_check(4, 128), 0);
	ck_assert_int_eq(wm_keygroup_check(32768, 32768), 0);
	ck_assert_int_eq(wm_keygroup_check(0, 128), -EINVAL);
	ck_assert_int_eq(wm_keygroup_check(129, 128), -EINVAL);
	ck_assert_int_eq(wm_keygroup_check(1, 32769), -EINVAL);
	ck_assert_int_eq(wm_keygroup_check(1, 0), -EINVAL);
	ck_assert_int_eq(wm_keygroup_check(UINT32_MAX, UINT32_MAX), -EINVAL);
}
END_TEST

/* K-7 */
START_TEST(test_keygroup_default_max_parallelism)
{
	static const struct {
		uint32_t p;
		int32_t max_p;
	} k7[] = {
		{1, 128},	{8, 128},	{85, 128},
		{86, 256},	{100, 256},	{1000, 2048},
		{21845, 32768}, {30000, 32768}, {32768, 32768},
	};

	for (size_t i = 0; i < N_ELEMS(k7); i++)
		ck_assert_int_eq(wm_keygroup_default_max_parallelism(k7[i].p),
				 k7[i].max_p);
	ck_assert_int_eq(wm_keygroup_default_max_parallelism(0), -EINVAL);
	ck_assert_int_eq(wm_keygroup_default_max_parallelism(32769), -EINVAL);
}
END_TEST

START_TEST(test_keygroup_default_max_parallelism_is_always_valid)
{
	for (uint32_t p = 1; p <= WM_KEYGROUP_MAX_PARALLELISM; p++) {
		int32_t m = wm_keygroup_default_max_parallelism(p);

		/* valid for p, and a power of two */
		if (m < 0 || wm_keygroup_check(p, (uint32_t)m) != 0 ||
		    (m & (m - 1)) != 0)
			ck_abort_msg("p %u: default max parallelism %d", p, m);
	}
}
END_TEST

static void
assert_range(uint32_t max_p, uint32_t p, uint32_t i, uint32_t start,
	     uint32_t end)
{
	struct wm_keygroup_range r;

	ck_assert_int_eq(wm_keygroup_range(max_p, p, i, &r), 0);
	ck_assert_uint_eq(r.start, start);
	ck_assert_uint_eq(r.end, end);
}

/* K-8 */
START_TEST(test_keygroup_ranges_match_flink)
{
	static const uint32_t index_10_3[] = {0, 0, 0, 0, 1, 1, 1, 2, 2, 2};

	assert_range(128, 3, 0, 0, 42);
	assert_range(128, 3, 1, 43, 85);
	assert_range(128, 3, 2, 86, 127);
	assert_range(128, 4, 0, 0, 31);
	assert_range(128, 4, 1, 32, 63);
	assert_range(128, 4, 2, 64, 95);
	assert_range(128, 4, 3, 96, 127);
	assert_range(10, 3, 0, 0, 3);
	assert_range(10, 3, 1, 4, 6);
	assert_range(10, 3, 2, 7, 9);
	for (uint32_t kg = 0; kg < 10; kg++)
		ck_assert_uint_eq(wm_keygroup_operator_index(kg, 10, 3),
				  index_10_3[kg]);
}
END_TEST

START_TEST(test_keygroup_range_rejects_bad_arguments)
{
	struct wm_keygroup_range r = {7, 7};

	ck_assert_int_eq(wm_keygroup_range(128, 4, 4, &r), -EINVAL);
	ck_assert_int_eq(wm_keygroup_range(128, 0, 0, &r), -EINVAL);
	ck_assert_int_eq(wm_keygroup_range(4, 8, 0, &r), -EINVAL);
	ck_assert_int_eq(wm_keygroup_range(40000, 8, 0, &r), -EINVAL);
	ck_assert_uint_eq(r.start, 7);
	ck_assert_uint_eq(r.end, 7);
}
END_TEST

/*
 * Property: for maxP and p, subtask ranges are non-empty, tile [0, maxP) in
 * order, and every key group kg lies in the range of the subtask
 * kg*p/maxP names. Millions of comparisons: they are plain ifs, since each
 * ck_assert costs a write to the parent process in fork mode.
 */
static void
assert_ranges_consistent(uint32_t max_p, uint32_t p)
{
	uint32_t next = 0;

	for (uint32_t i = 0; i < p; i++) {
		struct wm_keygroup_range r;

		if (wm_keygroup_range(max_p, p, i, &r) != 0)
			ck_abort_msg("maxP %u p %u: no range for %u", max_p, p,
				     i);
		if (r.start != next || r.start > r.end)
			ck_abort_msg("maxP %u p %u: subtask %u has [%u, %u] "
				     "after %u",
				     max_p, p, i, r.start, r.end, next);
		for (uint32_t kg = r.start; kg <= r.end; kg++)
			if (wm_keygroup_operator_index(kg, max_p, p) != i)
				ck_abort_msg(
					"maxP %u p %u: key group %u is in "
					"subtask %u's range but maps to %u",
					max_p, p, kg, i,
					wm_keygroup_operator_index(kg, max_p,
								   p));
		next = r.end + 1;
	}
	if (next != max_p)
		ck_abort_msg("maxP %u p %u: ranges end at %u", max_p, p, next);
}

START_TEST(test_keygroup_ranges_agree_with_operator_index_small)
{
	/* Every (maxP, p) with maxP <= 200. */
	for (uint32_t max_p = 1; max_p <= 200; max_p++)
		for (uint32_t p = 1; p <= max_p; p++)
			assert_ranges_consistent(max_p, p);
}
END_TEST

START_TEST(test_keygroup_ranges_agree_with_operator_index_large)
{
	static const uint32_t max_ps[] = {128, 1000, 1024, 4099, 32767, 32768};
	static const uint32_t ps[] = {1,   2,	3,    7,    64,	   100,	 127,
				      128, 999, 1024, 4099, 32767, 32768};

	for (size_t m = 0; m < N_ELEMS(max_ps); m++)
		for (size_t i = 0; i < N_ELEMS(ps); i++)
			if (ps[i] <= max_ps[m])
				assert_ranges_consistent(max_ps[m], ps[i]);
}
END_TEST

static Suite *
keygroup_suite(void)
{
	Suite *s = suite_create("keygroup");
	TCase *tc;

	tc = tcase_create("hash");
	tcase_add_test(tc, test_keygroup_int_hash_is_the_value);
	tcase_add_test(tc, test_keygroup_long_hash_folds_halves);
	tcase_add_test(tc, test_keygroup_ascii_string_hash_matches_java);
	tcase_add_test(tc, test_keygroup_utf8_string_hash_uses_utf16_units);
	tcase_add_test(tc, test_keygroup_string_hash_counts_embedded_nul);
	tcase_add_loop_test(tc, test_keygroup_malformed_utf8_hashes_like_java,
			    0, (int)N_ELEMS(malformed));
	tcase_add_loop_test(tc,
			    test_keygroup_strict_hash_rejects_malformed_utf8, 0,
			    (int)N_ELEMS(malformed));
	tcase_add_test(tc, test_keygroup_strict_hash_accepts_wellformed_utf8);
	tcase_add_test(tc, test_keygroup_random_bytes_never_crash);
	suite_add_tcase(s, tc);

	tc = tcase_create("murmur");
	tcase_add_test(tc, test_keygroup_murmur_matches_flink);
	tcase_add_test(tc, test_keygroup_murmur_maps_int_min_to_zero);
	tcase_add_test(tc, test_keygroup_murmur_is_never_negative);
	tcase_add_test(tc, test_keygroup_string_keys_maxp_128);
	tcase_add_test(tc, test_keygroup_int_keys_maxp_128);
	tcase_add_test(tc, test_keygroup_string_keys_maxp_1024);
	tcase_add_test(tc, test_keygroup_long_keys_maxp_128);
	tcase_add_test(tc, test_keygroup_same_key_same_channel);
	tcase_add_test(tc, test_keygroup_pow2_subtask_is_the_divisions_subtask);
	tcase_add_test(tc,
		       test_keygroup_subtasks_of_a_run_are_each_hashs_subtask);
	tcase_add_test(tc, test_keygroup_string_key_word_keeps_hash_and_id);
	suite_add_tcase(s, tc);

	tc = tcase_create("parallelism");
	tcase_add_test(tc, test_keygroup_check_bounds);
	tcase_add_test(tc, test_keygroup_default_max_parallelism);
	tcase_add_test(tc,
		       test_keygroup_default_max_parallelism_is_always_valid);
	tcase_add_test(tc, test_keygroup_ranges_match_flink);
	tcase_add_test(tc, test_keygroup_range_rejects_bad_arguments);
	tcase_add_test(tc,
		       test_keygroup_ranges_agree_with_operator_index_small);
	tcase_add_test(tc,
		       test_keygroup_ranges_agree_with_operator_index_large);
	/* The large property walks 32768 key groups per pair; allow for a
	 * slow sanitizer build on a loaded machine. */
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(keygroup_suite());
}
