/*
 * check_json_out.c
 *	Unit tests of the JSON writer (lib/json_out.h): text of hostile
 *	bytes comes out as valid JSON that jansson reads back as it went in
 *	(or, for bytes that are not UTF-8, as \xNN), figures as printf rounds
 *	them, counts whole, and the document compact in insertion order.
 */
#include "config.h"

#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_out.h"
#include "tests/unit/check_main.h"

/* The line wm_json_write_line() writes for `value`, which it takes; the
 * caller frees it. */
static char *
line_of(json_t *value)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(value);
	ck_assert_int_eq(wm_json_write_line(m, value), 0);
	ck_assert_int_eq(fclose(m), 0);
	json_decref(value);
	ck_assert_msg(len > 0 && text[len - 1] == '\n', "%s", text);
	return text;
}

/* The string that `len` bytes at `s` are once written in an array and
 * read back by jansson, which checks the document (UTF-8 included; a NUL,
 * \u0000, allowed: the text was given by length); the caller frees it. */
static char *
through_json(const char *s, size_t len, size_t *back_len)
{
	json_t *a = json_array();
	json_error_t error;
	json_t *read;
	char *text, *back;

	ck_assert_int_eq(wm_json_push(a, wm_json_textn(s, len)), 0);
	text = line_of(a);
	read = json_loads(text, JSON_ALLOW_NUL, &error);
	ck_assert_msg(read != NULL, "%s: %s", text, error.text);
	ck_assert(json_is_string(json_array_get(read, 0)));
	*back_len = json_string_length(json_array_get(read, 0));
	back = malloc(*back_len + 1);
	ck_assert_ptr_nonnull(back);
	memcpy(back, json_string_value(json_array_get(read, 0)), *back_len + 1);
	json_decref(read);
	free(text);
	return back;
}

/* `len` bytes at `s` come back from JSON as `want` (`want_len` bytes). */
static void
expect_text(const char *s, size_t len, const char *want, size_t want_len)
{
	size_t back_len;
	char *back = through_json(s, len, &back_len);

	ck_assert_msg(back_len == want_len && memcmp(back, want, want_len) == 0,
		      "\"%.*s\" came back as \"%.*s\"", (int)want_len, want,
		      (int)back_len, back);
	free(back);
}

/* Well-formed UTF-8 comes back byte for byte. */
static void
expect_same(const char *s, size_t len)
{
	expect_text(s, len, s, len);
}

#define SAME(lit) expect_same(lit, sizeof(lit) - 1)
#define SHOWN(lit, want)                                                       \
	expect_text(lit, sizeof(lit) - 1, want, sizeof(want) - 1)

START_TEST(test_quotes_backslashes_and_controls_come_back_as_they_were)
{
	char every_control[0x20 + 1];

	SAME("");
	SAME("a \"quoted\" name");
	SAME("C:\\path\\\\to\\\"x\"\\");
	SAME("/slashes/stay/");
	/* Every C0 control, NUL included (a length, not a terminator). */
	for (int c = 0; c < 0x20; c++)
		every_control[c] = (char)c;
	every_control[0x20] = 0x7f;
	expect_same(every_control, sizeof(every_control));
	/* An OSC 52 sequence: escaped in the file, never raw. */
	SAME("x\033]52;c;aGk=\ax");
	/* C1 controls, U+2028 and U+2029: valid UTF-8, as they were. */
	SAME("a\xc2\x9b"
	     "2J\xc2\x80");
	SAME("\xe2\x80\xa8\xe2\x80\xa9");
	/* The ends of each length of UTF-8. */
	SAME("\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf0\x90\x80\x80"
	     "\xf4\x8f\xbf\xbf");
	SAME("caf\xc3\xa9 \xf0\x9f\x98\x80");
}
END_TEST

START_TEST(test_bytes_that_are_not_utf8_are_shown_as_hex)
{
	SHOWN("caf\xe9", "caf\\xe9");
	SHOWN("\xff\xfe", "\\xff\\xfe");
	SHOWN("\x80", "\\x80");			  /* lone continuation */
	SHOWN("a\xc0\x80z", "a\\xc0\\x80z");	  /* overlong NUL */
	SHOWN("\xe0\x80\xaf", "\\xe0\\x80\\xaf"); /* overlong '/' */
	SHOWN("\xed\xa0\x80", "\\xed\\xa0\\x80"); /* a surrogate */
	SHOWN("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"); /* > U+10FFFF */
	SHOWN("\xf5", "\\xf5");
	/* Cut short: the lead byte shown, what follows read again. */
	SHOWN("\xe2\x82", "\\xe2\\x82");
	SHOWN("\xe2\x82z\xc3\xa9", "\\xe2\\x82z\xc3\xa9");
	/* A quote after a bad byte is still escaped by jansson. */
	SHOWN("\xff\"\\", "\\xff\"\\");
}
END_TEST

/* Every byte pair and every lead byte before each continuation byte: what
 * jansson writes is valid JSON whatever wm_json_textn() was given. */
START_TEST(test_every_two_bytes_make_valid_json)
{
	for (unsigned a = 0; a < 256; a++)
		for (unsigned b = 0; b < 256; b++) {
			char s[3] = {(char)a, (char)b, 'x'};
			size_t back_len;

			free(through_json(s, sizeof(s), &back_len));
		}
}
END_TEST

/* `v` to `decimals` places as the line writes it, and as printf does. */
static void
expect_fixed(double v, int decimals, const char *want)
{
	json_t *a = json_array();
	char *text, expected[64];

	ck_assert_int_eq(wm_json_push(a, wm_json_fixed(v, decimals)), 0);
	text = line_of(a);
	snprintf(expected, sizeof(expected), "[%s]\n", want);
	ck_assert_msg(strcmp(text, expected) == 0, "%.17g to %d places: %s", v,
		      decimals, text);
	free(text);
}

START_TEST(test_figures_are_rounded_as_printf_rounds_them)
{
	expect_fixed(0.0, 1, "0.0");
	expect_fixed(-0.0, 1, "-0.0");
	expect_fixed(12.0, 1, "12.0");
	expect_fixed(750.0, 1, "750.0");
	expect_fixed(0.25, 1, "0.2"); /* printf: half to even */
	expect_fixed(0.35, 1, "0.3"); /* 0.34999999999999997779... */
	expect_fixed(2.0 / 3.0, 1, "0.7");
	expect_fixed(123456.789, 1, "123456.8");
	expect_fixed(99999999999999.94, 1, "99999999999999.9");
	expect_fixed(1.2345, 3, "1.234");
	expect_fixed(1.25, 3, "1.25"); /* "%.3f": 1.250 */
	expect_fixed(0.0005, 3, "0.001");
	expect_fixed(1e-9, 3, "0.0");
	expect_fixed(NAN, 1, "null");
	expect_fixed(INFINITY, 1, "null");
	expect_fixed(-INFINITY, 3, "null");
}
END_TEST

/* For one decimal place the line's text is printf's, byte for byte, over
 * a spread of magnitudes below 10^14; for three, below 10^12, the same
 * figure. */
START_TEST(test_one_place_is_printfs_text)
{
	uint64_t seed = 0x9e3779b97f4a7c15u;

	for (int i = 0; i < 20000; i++) {
		char want[64], want3[64];
		double v, got3;
		json_t *a = json_array();
		char *text;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		v = (double)(seed >> 11) / (double)(1ull << 53) *
		    pow(10.0, (double)(i % 14));
		if (i & 1)
			v = -v;
		snprintf(want, sizeof(want), "%.1f", v);
		expect_fixed(v, 1, want);
		if (i % 14 >= 12) {
			json_decref(a);
			continue;
		}
		snprintf(want3, sizeof(want3), "%.3f", v);
		ck_assert_int_eq(wm_json_push(a, wm_json_fixed(v, 3)), 0);
		text = line_of(a);
		got3 = strtod(text + 1, NULL);
		ck_assert_msg(got3 == strtod(want3, NULL), "%s against %s",
			      text, want3);
		free(text);
	}
}
END_TEST

START_TEST(test_counts_are_whole)
{
	json_t *a = json_array();
	char *text;

	ck_assert_int_eq(wm_json_push(a, wm_json_u64(0)), 0);
	ck_assert_int_eq(wm_json_push(a, wm_json_u64(INT64_MAX)), 0);
	ck_assert_int_eq(wm_json_push(a, json_integer(INT64_MIN)), 0);
	ck_assert_int_eq(wm_json_push(a, wm_json_u64(UINT64_MAX)), 0);
	text = line_of(a);
	ck_assert_str_eq(text, "[0,9223372036854775807,-9223372036854775808,"
			       "1.84467440737096e19]\n");
	free(text);
}
END_TEST

START_TEST(test_members_keep_their_order_without_spaces)
{
	json_t *o = json_object();
	json_t *inner = json_object();
	int failed = 0;
	char *text;

	failed |= wm_json_put(o, "zeta", json_integer(1));
	failed |= wm_json_put(o, "alpha", wm_json_text("a\nb"));
	failed |= wm_json_put(inner, "m", json_null());
	failed |= wm_json_put(inner, "b", json_true());
	failed |= wm_json_put(o, "inner", inner);
	failed |= wm_json_put(o, "list", json_array());
	ck_assert_int_eq(failed, 0);
	text = line_of(o);
	ck_assert_str_eq(text, "{\"zeta\":1,\"alpha\":\"a\\nb\",\"inner\":"
			       "{\"m\":null,\"b\":true},\"list\":[]}\n");
	free(text);
}
END_TEST

/* A line longer than the writer's room on the stack (4 KiB) is written
 * whole from the heap. */
START_TEST(test_a_long_line_is_written_whole)
{
	enum { LONG_TEXT = 20000 };
	char *s = malloc(LONG_TEXT);
	size_t back_len;
	char *back;

	ck_assert_ptr_nonnull(s);
	for (size_t i = 0; i < LONG_TEXT; i++)
		s[i] = (char)(i % 3 == 0 ? '"' : 'a' + i % 26);
	back = through_json(s, LONG_TEXT, &back_len);
	ck_assert_uint_eq(back_len, LONG_TEXT);
	ck_assert(memcmp(back, s, LONG_TEXT) == 0);
	free(back);
	free(s);
}
END_TEST

/* A value that could not be made (NULL) fails the put, and so does a put
 * into an object that could not be made; either takes its value. */
START_TEST(test_a_failed_allocation_fails_the_put)
{
	json_t *o = json_object(), *a = json_array();

	ck_assert_int_eq(wm_json_put(o, "x", NULL), -1);
	ck_assert_int_eq(wm_json_put(NULL, "x", json_integer(1)), -1);
	ck_assert_int_eq(wm_json_push(NULL, wm_json_text("y")), -1);
	ck_assert_int_eq(wm_json_push(a, NULL), -1);
	ck_assert_uint_eq(json_object_size(o), 0);
	ck_assert_uint_eq(json_array_size(a), 0);
	json_decref(o);
	json_decref(a);
}
END_TEST

static Suite *
json_out_suite(void)
{
	Suite *s = suite_create("json_out");
	TCase *text = tcase_create("text");
	TCase *numbers = tcase_create("numbers");
	TCase *document = tcase_create("document");

	tcase_add_test(
		text,
		test_quotes_backslashes_and_controls_come_back_as_they_were);
	tcase_add_test(text, test_bytes_that_are_not_utf8_are_shown_as_hex);
	tcase_add_test(text, test_every_two_bytes_make_valid_json);
	tcase_add_test(numbers, test_figures_are_rounded_as_printf_rounds_them);
	tcase_add_test(numbers, test_one_place_is_printfs_text);
	tcase_add_test(numbers, test_counts_are_whole);
	tcase_add_test(document, test_members_keep_their_order_without_spaces);
	tcase_add_test(document, test_a_long_line_is_written_whole);
	tcase_add_test(document, test_a_failed_allocation_fails_the_put);
	suite_add_tcase(s, text);
	suite_add_tcase(s, numbers);
	suite_add_tcase(s, document);
	return s;
}

int
main(void)
{
	return wm_check_main(json_out_suite());
}
