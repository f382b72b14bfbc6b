/*
 * check_decimal.c
 *	Unit tests of the decimal writer: the text printf gives, for the
 *	ends of int64_t and uint64_t, zero, negatives and both sides of
 *	every digit count, and nothing written past the number.
 */
#include "config.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lib/decimal.h"
#include "tests/unit/check_main.h"

/* A byte no digit or sign is: a write past the number would show. */
#define GUARD '#'

/* The `size` bytes at `got`, of which a writer filled [got, end), hold
 * `want` and the guard after it. */
static void
expect_written(const char *want, const char *got, const char *end, size_t size)
{
	size_t len = strlen(want);

	ck_assert_msg((size_t)(end - got) == len, "%s: %td bytes written", want,
		      end - got);
	ck_assert_msg(memcmp(got, want, len) == 0, "%s written as \"%.*s\"",
		      want, (int)len, got);
	for (size_t i = len; i < size; i++)
		ck_assert_msg(got[i] == GUARD, "%s: byte %zu written", want, i);
}

static void
expect_i64(int64_t v)
{
	char want[32], got[WM_DECIMAL_MAX + 8];

	snprintf(want, sizeof(want), "%" PRId64, v);
	memset(got, GUARD, sizeof(got));
	expect_written(want, got, wm_decimal_i64(got, v), sizeof(got));
}

static void
expect_u64(uint64_t v)
{
	char want[32], got[WM_DECIMAL_MAX + 8];

	snprintf(want, sizeof(want), "%" PRIu64, v);
	memset(got, GUARD, sizeof(got));
	expect_written(want, got, wm_decimal_u64(got, v), sizeof(got));
	ck_assert_uint_eq(wm_decimal_digits(v), strlen(want));
}

START_TEST(test_ends_of_the_range_are_written_whole)
{
	expect_i64(INT64_MIN);
	expect_i64(INT64_MIN + 1);
	expect_i64(INT64_MAX);
	expect_u64(UINT64_MAX);
	expect_u64((uint64_t)INT64_MAX + 1);
	ck_assert_uint_eq(strlen("-9223372036854775808"), WM_DECIMAL_MAX);
}
END_TEST

START_TEST(test_zero_and_small_numbers)
{
	for (int64_t v = -1000; v <= 1000; v++)
		expect_i64(v);
	expect_u64(0);
}
END_TEST

/* 10^k - 1 and 10^k, the last number of k digits and the first of k + 1,
 * for every k, and their negatives; and a number of every length whose
 * digits are all different, so that a pair put in the wrong place shows. */
START_TEST(test_every_digit_count)
{
	uint64_t p = 1;

	for (unsigned k = 1; k <= 19; k++) {
		p *= 10;
		expect_u64(p - 1);
		expect_u64(p);
		expect_u64(p + 1);
		expect_i64((int64_t)(p - 1));
		expect_i64((int64_t)p);
		expect_i64(-(int64_t)(p - 1));
		expect_i64(-(int64_t)p);
		ck_assert_uint_eq(wm_decimal_digits(p - 1), k);
		ck_assert_uint_eq(wm_decimal_digits(p), k + 1);
	}
	for (unsigned k = 1; k <= 20; k++) {
		uint64_t v = 0;

		for (unsigned i = 0; i < k; i++)
			v = v * 10 + (i * 7 + 1) % 10;
		expect_u64(v);
		if (v <= INT64_MAX) {
			expect_i64((int64_t)v);
			expect_i64(-(int64_t)v);
		}
	}
}
END_TEST

/* Both sides of every power of two, where the digit count's estimate
 * from the bit length changes. */
START_TEST(test_both_sides_of_every_power_of_two)
{
	for (unsigned b = 0; b < 64; b++) {
		uint64_t v = (uint64_t)1 << b;

		expect_u64(v - 1);
		expect_u64(v);
		expect_u64(v + 1);
	}
}
END_TEST

START_TEST(test_numbers_string_together)
{
	char buf[64];
	char *p = buf;

	p = wm_decimal_u64(p, 3);
	*p++ = ',';
	p = wm_decimal_i64(p, -45);
	*p++ = ',';
	p = wm_decimal_i64(p, 0);
	*p = '\0';
	ck_assert_str_eq(buf, "3,-45,0");
}
END_TEST

static Suite *
decimal_suite(void)
{
	Suite *s = suite_create("decimal");
	TCase *tc = tcase_create("printf_text");

	tcase_add_test(tc, test_ends_of_the_range_are_written_whole);
	tcase_add_test(tc, test_zero_and_small_numbers);
	tcase_add_test(tc, test_every_digit_count);
	tcase_add_test(tc, test_both_sides_of_every_power_of_two);
	tcase_add_test(tc, test_numbers_string_together);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(decimal_suite());
}
