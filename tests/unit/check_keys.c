/*
 * check_keys.c
 *	Unit tests for runtime/io/keys.[ch]: interning string keys, their
 *	Java hash in the word, their strings given back, and the keys that
 *	are refused.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "operators/keygroup.h"
#include "runtime/io/keys.h"
#include "tests/unit/check_main.h"

static int64_t
intern(struct wm_keys *k, const char *s)
{
	int64_t w = 0;
	size_t at;

	ck_assert_int_eq(wm_keys_intern(k, s, strlen(s), &w, &at), 0);
	return w;
}

static void
assert_string(const struct wm_keys *k, int64_t w, const char *want)
{
	size_t len = 0;
	const char *s = wm_keys_string(k, w, &len);

	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(len, strlen(want));
	ck_assert(memcmp(s, want, len) == 0);
}

/* ------------------------------------------------------------------ */
/* tcase intern */

START_TEST(test_keys_equal_strings_get_equal_words)
{
	struct wm_keys *k = wm_keys_new();
	int64_t a = intern(k, "user48"), b = intern(k, "user7");

	ck_assert_int_ne(a, b);
	ck_assert_int_eq(intern(k, "user48"), a);
	ck_assert_int_eq(intern(k, "user7"), b);
	ck_assert_uint_eq(wm_keys_count(k), 2);
	assert_string(k, a, "user48");
	assert_string(k, b, "user7");
	wm_keys_free(k);
}
END_TEST

/* The word carries Java's String.hashCode (jshell, OpenJDK 17), over
 * UTF-16 units: "zürich", one character outside the BMP, the empty key. */
START_TEST(test_keys_word_carries_java_hash)
{
	struct wm_keys *k = wm_keys_new();
	int64_t z = intern(k, "z\xc3\xbcrich");
	int64_t e = intern(k, "a\xf0\x9f\x98\x80"
			      "b");
	int64_t empty = intern(k, "");

	ck_assert_int_eq(wm_keygroup_string_key_hash(intern(k, "user48")),
			 -836031601);
	ck_assert_int_eq(wm_keygroup_string_key_hash(z), -565983330);
	ck_assert_int_eq(wm_keygroup_string_key_hash(e), 57849694);
	ck_assert_int_eq(wm_keygroup_string_key_hash(empty), 0);
	/* ...and so the subtask Flink gives them: 2 subtasks, maxP 128. */
	ck_assert_uint_eq(
		wm_keygroup_subtask(wm_keygroup_string_key_hash(z), 128, 2), 0);
	ck_assert_uint_eq(
		wm_keygroup_subtask(wm_keygroup_string_key_hash(e), 128, 2), 1);
	assert_string(k, z, "z\xc3\xbcrich");
	assert_string(k, e,
		      "a\xf0\x9f\x98\x80"
		      "b");
	assert_string(k, empty, "");
	wm_keys_free(k);
}
END_TEST

/* "Aa" and "BB" have one Java hash (2112): still two keys, both routed
 * alike, as in Flink. */
START_TEST(test_keys_java_hash_collision_keeps_keys_apart)
{
	struct wm_keys *k = wm_keys_new();
	int64_t a = intern(k, "Aa"), b = intern(k, "BB");

	ck_assert_int_ne(a, b);
	ck_assert_int_eq(wm_keygroup_string_key_hash(a), 2112);
	ck_assert_int_eq(wm_keygroup_string_key_hash(b), 2112);
	assert_string(k, a, "Aa");
	assert_string(k, b, "BB");
	wm_keys_free(k);
}
END_TEST

/* Many keys: the table and the arena grow, and every earlier word still
 * names its string. */
START_TEST(test_keys_survive_growth)
{
	struct wm_keys *k = wm_keys_new();
	static int64_t words[20000];
	char s[32];

	for (int i = 0; i < 20000; i++) {
		snprintf(s, sizeof(s), "device-%d", i);
		words[i] = intern(k, s);
	}
	ck_assert_uint_eq(wm_keys_count(k), 20000);
	for (int i = 0; i < 20000; i++) {
		snprintf(s, sizeof(s), "device-%d", i);
		ck_assert_int_eq(intern(k, s), words[i]);
		assert_string(k, words[i], s);
	}
	wm_keys_free(k);
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase refuse */

START_TEST(test_keys_refuse_what_cannot_be_printed_back)
{
	struct wm_keys *k = wm_keys_new();
	char big[WM_KEYS_MAX_BYTES + 2];
	int64_t w = 0;
	size_t at = 99;

	/* A stray continuation byte, an encoded surrogate, a truncated
	 * sequence: Java would make U+FFFD of each, merging keys. */
	ck_assert_int_eq(wm_keys_intern(k, "ab\x80", 3, &w, &at), -EILSEQ);
	ck_assert_int_eq(wm_keys_intern(k, "\xed\xa0\x80", 3, &w, &at),
			 -EILSEQ);
	ck_assert_int_eq(wm_keys_intern(k, "z\xc3", 2, &w, &at), -EILSEQ);
	ck_assert_int_eq(wm_keys_intern(k, "a\tb", 3, &w, &at), -EINVAL);
	ck_assert_uint_eq(at, 1);
	ck_assert_int_eq(wm_keys_intern(k, "ab\x7f", 3, &w, &at), -EINVAL);
	ck_assert_uint_eq(at, 2);
	ck_assert_int_eq(wm_keys_intern(k, "a\0b", 3, &w, &at), -EINVAL);
	memset(big, 'x', sizeof(big));
	ck_assert_int_eq(wm_keys_intern(k, big, WM_KEYS_MAX_BYTES, &w, &at), 0);
	ck_assert_int_eq(wm_keys_intern(k, big, WM_KEYS_MAX_BYTES + 1, &w, &at),
			 -ENAMETOOLONG);
	/* Nothing refused was interned. */
	ck_assert_uint_eq(wm_keys_count(k), 1);
	wm_keys_free(k);
}
END_TEST

/* A word that is not this dictionary's is no string: an id beyond it, or
 * a hash that is not its string's. */
START_TEST(test_keys_unknown_words_have_no_string)
{
	struct wm_keys *k = wm_keys_new();
	int64_t w = intern(k, "user48");
	size_t len;

	ck_assert_ptr_null(
		wm_keys_string(k, wm_keygroup_string_key(0, 1), &len));
	ck_assert_ptr_null(wm_keys_string(
		k,
		wm_keygroup_string_key(wm_keygroup_string_key_hash(w) + 1,
				       wm_keygroup_string_key_id(w)),
		&len));
	wm_keys_free(k);
}
END_TEST

static Suite *
keys_suite(void)
{
	Suite *s = suite_create("keys");
	TCase *tc;

	tc = tcase_create("intern");
	tcase_add_test(tc, test_keys_equal_strings_get_equal_words);
	tcase_add_test(tc, test_keys_word_carries_java_hash);
	tcase_add_test(tc, test_keys_java_hash_collision_keeps_keys_apart);
	tcase_add_test(tc, test_keys_survive_growth);
	suite_add_tcase(s, tc);

	tc = tcase_create("refuse");
	tcase_add_test(tc, test_keys_refuse_what_cannot_be_printed_back);
	tcase_add_test(tc, test_keys_unknown_words_have_no_string);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(keys_suite());
}
