/*
 * check_units.c
 *	Unit tests for runtime/units.[ch]: durations (Flink's TimeUtils
 *	labels), rates, sizes (Flink's MemorySize labels and IEC symbols),
 *	counts, whole int64 trace fields, booleans and names, valid and
 *	invalid, at the int64 and uint64 boundaries, plus random strings
 *	that must never be half accepted.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/units.h"
#include "tests/unit/check_main.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------ */
/* tcase duration */

struct duration_ok {
	const char *in;
	int64_t ms;
};

static const struct duration_ok duration_ok[] = {
	{"0", 0},
	{"200", 200}, /* a bare number is milliseconds */
	{"200 ms", 200},
	{"200ms", 200},
	{"  30 s  ", 30000},
	{"30\ts", 30000},
	{"007 s", 7000},
	{"2 min", 120000},
	{"2m", 120000},
	{"1 h", 3600000},
	{"1 d", 86400000},
	{"5 MS", 5}, /* labels in any case, as Flink lower-cases them */
	{"5 Min", 300000},
	{"1 HOUR", 3600000},
	{"7 milli", 7},
	{"7 millis", 7},
	{"7 millisecond", 7},
	{"7 milliseconds", 7},
	{"2 sec", 2000},
	{"2 secs", 2000},
	{"2 second", 2000},
	{"2 seconds", 2000},
	{"1 minute", 60000},
	{"3 minutes", 180000},
	{"2 hours", 7200000},
	{"1 day", 86400000},
	{"3 days", 259200000},
	{"2000000 ns", 2},
	{"2000000 nanos", 2},
	{"2000000 nanoseconds", 2},
	{"3000 \xc2\xb5s", 3}, /* µs, U+00B5 as in Flink */
	{"3000 \xc2\xb5S", 3},
	{"3000 micro", 3},
	{"3000 microseconds", 3},
	{"0 ns", 0},
	{"9223372036854775807", INT64_MAX},
	{"9223372036854775807 ms", INT64_MAX},
	{"9223372036854775 s", 9223372036854775000},
	{"153722867280912 min", 9223372036854720000},
	{"2562047788015 h", 9223372036854000000},
	{"106751991167 d", 9223372036828800000},
	{"9223372036854000000 ns", 9223372036854},
	{"0000000000000000000000000000001 s", 1000},
};

struct bad {
	const char *in;
	const char *msg; /* a part of the message */
};

static const struct bad duration_bad[] = {
	{"", "invalid duration \"\": no value"},
	{"   ", "no value"},
	{"-5 s", "negative durations are not allowed"},
	{"+5 s", "does not start with a number"},
	{"s", "does not start with a number"},
	{".5 s", "does not start with a number"},
	{"5 parsecs", "invalid duration \"5 parsecs\": unknown unit "
		      "\"parsecs\" (use ms, s, min, h or d)"},
	{"1.5 s", "fractions are not supported (use a smaller unit)"},
	{"1. s", "unknown unit \". s\""},
	{"1500 us", "unknown unit \"us\""}, /* not a Flink label */
	{"1500 \xc2\xb5s", "not a whole number of milliseconds"},
	{"1 ns", "not a whole number of milliseconds"},
	{"9223372036854775808", "out of range"},
	{"9223372036854775808 ms", "out of range"},
	{"99999999999999999999999999 ms", "out of range"},
	{"9223372036854776 s", "out of range"},
	{"153722867280913 min", "out of range"},
	{"2562047788016 h", "out of range"},
	{"106751991168 d", "out of range"},
	{"106751991167301 d", "out of range"},
	{"5 s x", "unknown unit \"s x\""},
	{"5 m s", "unknown unit \"m s\""},
	{"5 mss", "unknown unit \"mss\""},
	{"0x10", "unknown unit \"x10\""},
	{"1e3", "unknown unit \"e3\""},
	{"5 s,", "unknown unit \"s,\""},
	{"5 \xce\xbcs", "unknown unit"}, /* Greek mu is not Flink's */
	{"\xd9\xa1\xd9\xa2 s", "does not start with a number"},
};

START_TEST(test_units_duration_accepts_flink_syntax)
{
	const struct duration_ok *c = &duration_ok[_i];
	char why[WM_UNITS_WHY_MAX] = "";
	int64_t ms = -1;
	int rc;

	rc = wm_units_duration_ms(c->in, &ms, why, sizeof(why));
	ck_assert_msg(rc == 0, "\"%s\": %s", c->in, why);
	ck_assert_msg(ms == c->ms, "\"%s\": %lld, expected %lld", c->in,
		      (long long)ms, (long long)c->ms);
}
END_TEST

START_TEST(test_units_duration_refuses_garbage)
{
	const struct bad *c = &duration_bad[_i];
	char why[WM_UNITS_WHY_MAX] = "";
	int64_t ms = 42;
	int rc;

	rc = wm_units_duration_ms(c->in, &ms, why, sizeof(why));
	ck_assert_msg(rc == -EINVAL, "\"%s\" accepted as %lld", c->in,
		      (long long)ms);
	ck_assert_int_eq(ms, 42); /* untouched */
	ck_assert_msg(strstr(why, c->msg) != NULL,
		      "\"%s\": \"%s\" lacks \"%s\"", c->in, why, c->msg);
	ck_assert_msg(strncmp(why, "invalid duration \"", 18) == 0, "%s", why);
}
END_TEST

/* Every count of every unit up to the limit agrees with checked
 * multiplication. */
START_TEST(test_units_duration_matches_checked_arithmetic)
{
	static const struct {
		const char *label;
		int64_t ms;
	} units[] = {{"ms", 1},
		     {"s", 1000},
		     {"min", 60000},
		     {"h", 3600000},
		     {"d", 86400000}};
	char in[64], why[WM_UNITS_WHY_MAX];
	uint64_t state = 12345, v;
	int64_t ms, want;
	size_t i, u;
	bool over;
	int rc;

	for (i = 0; i < 20000; i++) {
		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		v = state >> (state % 64); /* all magnitudes */
		u = i % N_ELEMS(units);
		snprintf(in, sizeof(in), "%llu %s", (unsigned long long)v,
			 units[u].label);
		over = v > INT64_MAX ||
		       __builtin_mul_overflow((int64_t)v, units[u].ms, &want);
		rc = wm_units_duration_ms(in, &ms, why, sizeof(why));
		if (over && rc != -EINVAL)
			ck_abort_msg("\"%s\" accepted", in);
		if (!over && (rc != 0 || ms != want))
			ck_abort_msg("\"%s\": rc %d, %lld", in, rc,
				     (long long)ms);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase rate */

struct rate_ok {
	const char *in;
	double per_second;
};

static const struct rate_ok rate_ok[] = {
	{"1000/s", 1000}, {"1000 / s", 1000},	{" 1000/sec ", 1000},
	{"2.5k/s", 2500}, {"2.5 k / s", 2500},	{"2K/s", 2000},
	{"1M/s", 1e6},	  {"1G/s", 1e9},	{"50/ms", 50000},
	{"60/min", 1},	  {"60/m", 1},		{"3600/h", 1},
	{"86400/d", 1},	  {"1/ns", 1e9},	{"0/s", 0},
	{"0.5/s", 0.5},	  {"1000000G/s", 1e15},
};

static const struct bad rate_bad[] = {
	{"", "no value"},
	{"1000", "missing time unit (write e.g. \"1000/s\")"},
	{"2.5k", "missing time unit"},
	{"1000/", "missing time unit after \"/\""},
	{"1000/parsec", "unknown unit \"parsec\""},
	{"1000/s/s", "unknown unit \"s/s\""},
	{"-1/s", "negative rates are not allowed"},
	{"1./s", "a decimal point must be followed by digits"},
	{".5/s", "does not start with a number"},
	{"1e3/s", "expected \"/\" and a time unit"},
	{"1000 rps", "expected \"/\" and a time unit"},
	{"1kk/s", "expected \"/\""},
	{"1000001G/s", "out of range"},
	{"1000000G/ms", "out of range"},
	{"inf/s", "does not start with a number"},
	{"nan/s", "does not start with a number"},
	{"max", "does not start with a number"},
};

START_TEST(test_units_rate_accepts_number_per_unit)
{
	const struct rate_ok *c = &rate_ok[_i];
	char why[WM_UNITS_WHY_MAX] = "";
	double r = -1;
	int rc;

	rc = wm_units_rate(c->in, &r, why, sizeof(why));
	ck_assert_msg(rc == 0, "\"%s\": %s", c->in, why);
	ck_assert_msg(fabs(r - c->per_second) <= 1e-9 * c->per_second,
		      "\"%s\": %g, expected %g", c->in, r, c->per_second);
}
END_TEST

START_TEST(test_units_rate_refuses_garbage)
{
	const struct bad *c = &rate_bad[_i];
	char why[WM_UNITS_WHY_MAX] = "";
	double r = 42;

	ck_assert_msg(wm_units_rate(c->in, &r, why, sizeof(why)) == -EINVAL,
		      "\"%s\" accepted as %g", c->in, r);
	ck_assert(r == 42);
	ck_assert_msg(strstr(why, c->msg) != NULL,
		      "\"%s\": \"%s\" lacks \"%s\"", c->in, why, c->msg);
	ck_assert_msg(strncmp(why, "invalid rate \"", 14) == 0, "%s", why);
}
END_TEST

START_TEST(test_units_rate_unlimited_is_infinite)
{
	double r = 0;

	ck_assert_int_eq(wm_units_rate("unlimited", &r, NULL, 0), 0);
	ck_assert(isinf(r) && r > 0);
	r = 0;
	ck_assert_int_eq(wm_units_rate(" Unlimited ", &r, NULL, 0), 0);
	ck_assert(isinf(r));
	ck_assert_int_eq(wm_units_rate("1M/min", &r, NULL, 0), 0);
	ck_assert_double_eq_tol(r, 1e6 / 60, 1e-6);
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase size */

struct size_ok {
	const char *in;
	uint64_t bytes;
};

static const struct size_ok size_ok[] = {
	{"0", 0},
	{"512", 512},
	{"100 b", 100},
	{"100 bytes", 100},
	{"64KiB", 65536},
	{"64 KiB", 65536},
	{"64kib", 65536},
	{"64k", 65536},
	{"64kb", 65536}, /* 1024-based, as in Flink */
	{"64KB", 65536},
	{"2 kibibytes", 2048},
	{"1MiB", 1u << 20},
	{"1m", 1u << 20},
	{"1 MB", 1u << 20},
	{"1 mebibytes", 1u << 20},
	{"4GiB", 4ULL << 30},
	{"4g", 4ULL << 30},
	{"1 TiB", 1ULL << 40},
	{"1tb", 1ULL << 40},
	{"8388607 TiB", 8388607ULL << 40},
	{"9223372036854775807", INT64_MAX},
	{"9223372036854775807 b", INT64_MAX},
	{"9007199254740991 KiB", 9007199254740991ULL << 10},
};

static const struct bad size_bad[] = {
	{"", "no value"},
	{"-1", "negative sizes are not allowed"},
	{"KiB", "does not start with a number"},
	{"1.5 GiB", "fractions are not supported"},
	{"64 parsecs", "invalid size \"64 parsecs\": unknown unit "
		       "\"parsecs\" (use B, KiB, MiB, GiB or TiB)"},
	{"64 KiBs", "unknown unit \"KiBs\""},
	{"64 kB/s", "unknown unit \"kB/s\""},
	{"1 PiB", "unknown unit \"PiB\""},
	{"8388608 TiB", "out of range"},
	{"9007199254740992 KiB", "out of range"},
	{"9223372036854775808", "out of range"},
	{"18446744073709551616", "out of range"},
	{"0x100", "unknown unit \"x100\""},
};

START_TEST(test_units_size_accepts_flink_and_iec_units)
{
	const struct size_ok *c = &size_ok[_i];
	char why[WM_UNITS_WHY_MAX] = "";
	uint64_t b = 1;
	int rc;

	rc = wm_units_size(c->in, &b, why, sizeof(why));
	ck_assert_msg(rc == 0, "\"%s\": %s", c->in, why);
	ck_assert_msg(b == c->bytes, "\"%s\": %llu, expected %llu", c->in,
		      (unsigned long long)b, (unsigned long long)c->bytes);
}
END_TEST

START_TEST(test_units_size_refuses_garbage)
{
	const struct bad *c = &size_bad[_i];
	char why[WM_UNITS_WHY_MAX] = "";
	uint64_t b = 42;

	ck_assert_msg(wm_units_size(c->in, &b, why, sizeof(why)) == -EINVAL,
		      "\"%s\" accepted as %llu", c->in, (unsigned long long)b);
	ck_assert_uint_eq(b, 42);
	ck_assert_msg(strstr(why, c->msg) != NULL,
		      "\"%s\": \"%s\" lacks \"%s\"", c->in, why, c->msg);
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase count */

struct count_ok {
	const char *in;
	uint64_t n;
};

static const struct count_ok count_ok[] = {
	{"0", 0},
	{"16", 16},
	{"10k", 10000},
	{"10K", 10000},
	{"10 k", 10000},
	{"2.5M", 2500000},
	{"2.50k", 2500},
	{"1.0", 1},
	{"1G", 1000000000},
	{"1.000000001G", 1000000001},
	{"0.001k", 1},
	{"18446744073709551615", UINT64_MAX},
	{"18446744073709551k", 18446744073709551000ULL},
	{"18446744073.709551615G", UINT64_MAX},
};

static const struct bad count_bad[] = {
	{"", "no value"},
	{"-1", "negative counts are not allowed"},
	{"k", "does not start with a number"},
	{"1.5", "not a whole number"},
	{"1.2345k", "not a whole number"},
	{"0.0000000001G", "not a whole number"},
	{"1.", "a decimal point must be followed by digits"},
	{"10m", "unknown suffix \"m\" (use k, M or G)"},
	{"10 kb", "unknown suffix \"kb\""},
	{"10 k k", "unknown suffix \"k k\""},
	{"1e3", "unknown suffix \"e3\""},
	{"18446744073709551616", "out of range"},
	{"18446744073709552k", "out of range"},
	{"18446744073.709551616G", "out of range"},
	{"99999999999999999999999G", "out of range"},
};

START_TEST(test_units_count_accepts_si_suffixes)
{
	const struct count_ok *c = &count_ok[_i];
	char why[WM_UNITS_WHY_MAX] = "";
	uint64_t n = 7;
	int rc;

	rc = wm_units_count(c->in, &n, why, sizeof(why));
	ck_assert_msg(rc == 0, "\"%s\": %s", c->in, why);
	ck_assert_msg(n == c->n, "\"%s\": %llu, expected %llu", c->in,
		      (unsigned long long)n, (unsigned long long)c->n);
}
END_TEST

START_TEST(test_units_count_refuses_garbage)
{
	const struct bad *c = &count_bad[_i];
	char why[WM_UNITS_WHY_MAX] = "";
	uint64_t n = 42;

	ck_assert_msg(wm_units_count(c->in, &n, why, sizeof(why)) == -EINVAL,
		      "\"%s\" accepted as %llu", c->in, (unsigned long long)n);
	ck_assert_uint_eq(n, 42);
	ck_assert_msg(strstr(why, c->msg) != NULL,
		      "\"%s\": \"%s\" lacks \"%s\"", c->in, why, c->msg);
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase int64: trace fields, whole signed integers by length */

struct int64_ok {
	const char *in;
	int64_t v;
};

static const struct int64_ok int64_ok[] = {
	{"0", 0},
	{"-0", 0},
	{"007", 7},
	{"-42", -42},
	{"9223372036854775807", INT64_MAX},
	{"-9223372036854775808", INT64_MIN},
	{"00000000000000000000000000000000000001", 1},
	/* The limits at 19 digits, read without a check per digit, and
	 * past 19 (leading zeros), read with one. */
	{"999999999999999999", 999999999999999999},
	{"-999999999999999999", -999999999999999999},
	{"1000000000000000000", 1000000000000000000},
	{"-9223372036854775807", -INT64_MAX},
	{"00009223372036854775807", INT64_MAX},
	{"-00009223372036854775808", INT64_MIN},
};

/* What is refused, and the detail given: "" for no integer at all. */
static const struct bad int64_bad[] = {
	{"", ""},
	{"-", ""},
	{"+5", ""},
	{" 5", ""},
	{"5 ", ""},
	{"0x10", ""},
	{"1.5", ""},
	{"1e9", ""},
	{"--1", ""},
	{"9223372036854775808", " (beyond 64 bits)"},
	{"-9223372036854775809", " (beyond 64 bits)"},
	{"99999999999999999999999999", " (beyond 64 bits)"},
	/* 19 digits fit in 64 unsigned bits but not in an int64_t. */
	{"9999999999999999999", " (beyond 64 bits)"},
	{"-9999999999999999999", " (beyond 64 bits)"},
	/* 2^64 and past: an unsigned word would wrap to a small value. */
	{"18446744073709551616", " (beyond 64 bits)"},
	{"18446744073709551617", " (beyond 64 bits)"},
	{"-18446744073709551617", " (beyond 64 bits)"},
	{"36893488147419103232", " (beyond 64 bits)"},
	{"00009223372036854775808", " (beyond 64 bits)"},
	{"-00009223372036854775809", " (beyond 64 bits)"},
	/* A non-digit makes it no integer, overflow or not before it. */
	{"99999999999999999999x", ""},
	{"9223372036854775808-", ""},
	{"12-3", ""},
	{"1\x80", ""},
	{"1/", ""},
	{"1:", ""},
};

START_TEST(test_units_int64_accepts_whole_integers)
{
	const struct int64_ok *c = &int64_ok[_i];
	int64_t v = 7;
	const char *bad = wm_units_int64(c->in, strlen(c->in), &v);

	ck_assert_msg(bad == NULL, "\"%s\" refused%s", c->in, bad);
	ck_assert_msg(v == c->v, "\"%s\": %lld, expected %lld", c->in,
		      (long long)v, (long long)c->v);
}
END_TEST

START_TEST(test_units_int64_refuses_anything_else)
{
	const struct bad *c = &int64_bad[_i];
	int64_t v = 42;
	const char *bad = wm_units_int64(c->in, strlen(c->in), &v);

	ck_assert_msg(bad != NULL, "\"%s\" accepted as %lld", c->in,
		      (long long)v);
	ck_assert_str_eq(bad, c->msg);
	ck_assert_int_eq(v, 42);
}
END_TEST

/* The length, not a NUL, ends the field: a NUL inside is no digit. */
START_TEST(test_units_int64_reads_exactly_len_bytes)
{
	int64_t v = 0;

	ck_assert_ptr_null(wm_units_int64("1234", 2, &v));
	ck_assert_int_eq(v, 12);
	ck_assert_ptr_nonnull(wm_units_int64("1\0002", 3, &v));
	ck_assert_int_eq(v, 12);
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase number: plain decimals (speed, fractions, exponents) */

START_TEST(test_units_number_is_plain_decimal)
{
	static const struct {
		const char *in;
		double v;
	} ok[] = {{"2000", 2000}, {"0.5", 0.5}, {" 1.25 ", 1.25}, {"0", 0}};
	static const struct bad bad[] = {
		{"0x10", "expected digits"},
		{"1e3", "expected digits"},
		{"inf", "does not start with a number"},
		{"nan", "does not start with a number"},
		{"-1", "negative numbers are not allowed"},
		{"+1", "does not start with a number"},
		{"1.", "a decimal point must be followed by digits"},
		{"", "no value"},
		{"5 5", "expected digits"},
	};
	char why[WM_UNITS_WHY_MAX] = "";
	double v;

	for (size_t i = 0; i < N_ELEMS(ok); i++) {
		v = -1;
		ck_assert_msg(wm_units_number(ok[i].in, &v, why, sizeof(why)) ==
				      0,
			      "\"%s\": %s", ok[i].in, why);
		ck_assert_double_eq(v, ok[i].v);
	}
	for (size_t i = 0; i < N_ELEMS(bad); i++) {
		v = 42;
		ck_assert_msg(wm_units_number(bad[i].in, &v, why,
					      sizeof(why)) == -EINVAL,
			      "\"%s\" accepted as %g", bad[i].in, v);
		ck_assert_double_eq(v, 42);
		ck_assert_msg(strstr(why, bad[i].msg) != NULL,
			      "\"%s\": \"%s\" lacks \"%s\"", bad[i].in, why,
			      bad[i].msg);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase words: booleans and names */

START_TEST(test_units_bool_words)
{
	static const char *const yes[] = {"true", "TRUE", "yes",
					  "on",	  "1",	  " True "};
	static const char *const no[] = {"false", "False", "no", "OFF", "0"};
	static const char *const bad[] = {"",	  "maybe", "2",	    "tru",
					  "yes!", "10",	   "on off"};
	char why[WM_UNITS_WHY_MAX];
	size_t i;
	bool b;

	for (i = 0; i < N_ELEMS(yes); i++) {
		b = false;
		ck_assert_int_eq(wm_units_bool(yes[i], &b, why, sizeof(why)),
				 0);
		ck_assert(b);
	}
	for (i = 0; i < N_ELEMS(no); i++) {
		b = true;
		ck_assert_int_eq(wm_units_bool(no[i], &b, why, sizeof(why)), 0);
		ck_assert(!b);
	}
	for (i = 0; i < N_ELEMS(bad); i++)
		ck_assert_int_eq(wm_units_bool(bad[i], &b, why, sizeof(why)),
				 -EINVAL);
	ck_assert_str_eq(why, "invalid boolean \"on off\": use true or false");
}
END_TEST

START_TEST(test_units_enum_lists_allowed_names)
{
	static const char *const names[] = {"bounded", "ascending",
					    "punctuated"};
	char why[WM_UNITS_WHY_MAX];
	size_t idx = 9;

	ck_assert_int_eq(wm_units_enum("ascending", "strategy", names, 3, &idx,
				       why, sizeof(why)),
			 0);
	ck_assert_uint_eq(idx, 1);
	ck_assert_int_eq(wm_units_enum(" punctuated ", "strategy", names, 3,
				       &idx, why, sizeof(why)),
			 0);
	ck_assert_uint_eq(idx, 2);
	idx = 9;
	ck_assert_int_eq(wm_units_enum("Ascending", "watermark strategy", names,
				       3, &idx, why, sizeof(why)),
			 -EINVAL);
	ck_assert_uint_eq(idx, 9);
	ck_assert_str_eq(why, "invalid watermark strategy \"Ascending\" (use "
			      "\"bounded\", \"ascending\" or \"punctuated\")");
	ck_assert_int_eq(
		wm_units_enum("x", NULL, names, 1, &idx, why, sizeof(why)),
		-EINVAL);
	ck_assert_str_eq(why, "invalid value \"x\" (use \"bounded\")");
	ck_assert_int_eq(
		wm_units_enum("x", NULL, names, 2, &idx, why, sizeof(why)),
		-EINVAL);
	ck_assert_str_eq(why, "invalid value \"x\" (use \"bounded\" or "
			      "\"ascending\")");
	/* a short buffer is cut, terminated */
	ck_assert_int_eq(wm_units_enum("x", NULL, names, 3, &idx, why, 20),
			 -EINVAL);
	ck_assert_uint_eq(strlen(why), 19);
}
END_TEST

START_TEST(test_units_messages_quote_and_cut_the_value)
{
	char why[WM_UNITS_WHY_MAX], small[10];
	int64_t ms;

	ck_assert_int_eq(
		wm_units_duration_ms("5 \"x\\\x01", &ms, why, sizeof(why)),
		-EINVAL);
	ck_assert_str_eq(why, "invalid duration \"5 \\\"x\\\\\\x01\": unknown "
			      "unit \"\\\"x\\\\\\x01\" "
			      "(use ms, s, min, h or d)");
	ck_assert_int_eq(
		wm_units_duration_ms(
			"1 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
			&ms, why, sizeof(why)),
		-EINVAL);
	ck_assert_str_eq(why, "invalid duration \"1 aaaaaaaaaaaaaaaaaaaaaaaaaaa"
			      "aaaaaaaaaaa...\": unknown unit \"aaaaaaaaaaaaaa"
			      "aaaaaaaaaaaaaaaaaaaaaaaaaa...\" (use ms, s, "
			      "min, h or d)");
	/* never cut inside a UTF-8 sequence */
	ck_assert_int_eq(wm_units_duration_ms("1 aaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
					      "aaaaaaaa\xc2\xb5\xc2\xb5",
					      &ms, why, sizeof(why)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "aaa...\""));
	/* NULL and short buffers */
	ck_assert_int_eq(wm_units_duration_ms("x", &ms, NULL, 0), -EINVAL);
	ck_assert_int_eq(wm_units_duration_ms("x", &ms, small, sizeof(small)),
			 -EINVAL);
	ck_assert_str_eq(small, "invalid d");
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase robustness */

/* ---- instants ---- */

static const struct {
	const char *in;
	int64_t ms;
} instant_ok[] = {
	{"0", 0},
	{"1796601600000", 1796601600000},
	{" 1970-01-01 ", 0},
	{"2026-01-01", 1767225600000},
	{"2026-01-01T00:00:00Z", 1767225600000},
	{"2026-01-01 00:00:30Z", 1767225630000},
	{"2026-01-01T13:45Z", 1767275100000},
	{"2026-01-01T13:45:00.250Z", 1767275100250},
	{"2024-02-29", 1709164800000},
	{"2000-02-29T23:59:59.999Z", 951868799999},
	{"9999-12-31T23:59:59.999Z", WM_UNITS_INSTANT_MAX_MS},
	{"253402300799999", WM_UNITS_INSTANT_MAX_MS},
};

static const char *const instant_bad[] = {
	"",
	"start",
	"yesterday",
	"-1",
	"+5",
	"1e12",
	"253402300800000",
	"99999999999999999999",
	"2026-1-01",
	"2026-01-1",
	"26-01-01",
	"2026/01/01",
	"2026-00-10",
	"2026-13-01",
	"2026-02-29",
	"2100-02-29",
	"2026-04-31",
	"1969-12-31",
	"2026-01-01T",
	"2026-01-01T10:00",
	"2026-01-01T10:00:00",
	"2026-01-01T10:00:00+01:00",
	"2026-01-01T24:00:00Z",
	"2026-01-01T10:60:00Z",
	"2026-01-01T10:00:60Z",
	"2026-01-01T10:00:00.5Z",
	"2026-01-01T10:00:00.2500Z",
	"2026-01-01T10:00:00ZZ",
	"2026-01-01x",
	"2026-01-01Tab:00Z",
};

START_TEST(test_units_instant_accepts_dates_times_and_milliseconds)
{
	char why[WM_UNITS_WHY_MAX];
	int64_t ms = -1;

	ck_assert_msg(wm_units_instant_ms(instant_ok[_i].in, &ms, why,
					  sizeof(why)) == 0,
		      "\"%s\": %s", instant_ok[_i].in, why);
	ck_assert_msg(ms == instant_ok[_i].ms, "\"%s\": %lld, not %lld",
		      instant_ok[_i].in, (long long)ms,
		      (long long)instant_ok[_i].ms);
}
END_TEST

START_TEST(test_units_instant_refuses_the_rest)
{
	char why[WM_UNITS_WHY_MAX];
	int64_t ms = 42;

	ck_assert_msg(wm_units_instant_ms(instant_bad[_i], &ms, why,
					  sizeof(why)) == -EINVAL,
		      "\"%s\" accepted as %lld", instant_bad[_i],
		      (long long)ms);
	ck_assert_int_eq(ms, 42);
	ck_assert_msg(strstr(why, "invalid instant") != NULL, "%s", why);
}
END_TEST

/* Every day from 1970 to 2500, at a time of day, against the C library's
 * own calendar (timegm()). */
START_TEST(test_units_instant_agrees_with_timegm_on_every_day)
{
	char in[80], why[WM_UNITS_WHY_MAX];
	time_t t = 0;

	for (int64_t day = 0; day < 193000; day++, t += 86400) {
		struct tm tm;
		int64_t ms;

		ck_assert_ptr_nonnull(gmtime_r(&t, &tm));
		snprintf(in, sizeof(in), "%04d-%02d-%02dT07:08:09.010Z",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
		ck_assert_msg(wm_units_instant_ms(in, &ms, why, sizeof(why)) ==
				      0,
			      "%s: %s", in, why);
		ck_assert_msg(
			ms == ((int64_t)t + 7 * 3600 + 8 * 60 + 9) * 1000 + 10,
			"%s: %lld", in, (long long)ms);
	}
}
END_TEST

START_TEST(test_units_random_strings_are_parsed_or_refused)
{
	static const char alphabet[] = "0123456789 \t.-+/:kKMGmsnuhdbiBTZe\xc2"
				       "\xb5\xff";
	uint64_t state = 99;
	char in[32], why[WM_UNITS_WHY_MAX];
	size_t i, j, len;
	int64_t ms;
	uint64_t size, count;
	double r;
	bool b;
	int rc[4];

	for (i = 0; i < 50000; i++) {
		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		len = (state >> 59) % sizeof(in);
		for (j = 0; j < len; j++) {
			state = state * 6364136223846793005ULL +
				1442695040888963407ULL;
			in[j] = alphabet[(state >> 40) %
					 (sizeof(alphabet) - 1)];
		}
		in[len] = '\0';
		rc[0] = wm_units_duration_ms(in, &ms, why, sizeof(why));
		rc[1] = wm_units_rate(in, &r, why, sizeof(why));
		rc[2] = wm_units_size(in, &size, why, sizeof(why));
		rc[3] = wm_units_count(in, &count, why, sizeof(why));
		(void)wm_units_bool(in, &b, why, sizeof(why));
		if (wm_units_instant_ms(in, &ms, why, sizeof(why)) == 0 &&
		    (ms < 0 || ms > WM_UNITS_INSTANT_MAX_MS))
			ck_abort_msg("\"%s\": instant %lld out of range", in,
				     (long long)ms);
		for (j = 0; j < 4; j++)
			if (rc[j] != 0 && rc[j] != -EINVAL)
				ck_abort_msg("\"%s\": parser %zu returned %d",
					     in, j, rc[j]);
		if (rc[0] == 0 && ms < 0)
			ck_abort_msg("\"%s\": negative duration", in);
		if (rc[1] == 0 && !(r >= 0))
			ck_abort_msg("\"%s\": bad rate %g", in, r);
		if (rc[2] == 0 && size > INT64_MAX)
			ck_abort_msg("\"%s\": size above INT64_MAX", in);
	}
}
END_TEST

START_TEST(test_units_format_durations_and_event_times_for_people)
{
	char b[64];

	ck_assert_str_eq(wm_units_format_duration(850000000, b, sizeof(b)),
			 "850 ms");
	ck_assert_str_eq(wm_units_format_duration(4200000000, b, sizeof(b)),
			 "4.2 s");
	ck_assert_str_eq(wm_units_format_duration(192000000000, b, sizeof(b)),
			 "3 min 12 s");
	ck_assert_str_eq(wm_units_format_duration(28740000000000, b, sizeof(b)),
			 "7 h 59 min");
	/* In ms, the same words, and beyond the ns range (a fire delay
	 * may be up to 2^62 ms): no overflow. */
	ck_assert_str_eq(wm_units_format_duration_ms(9000, b, sizeof(b)),
			 "9.0 s");
	ck_assert_str_eq(wm_units_format_duration_ms(28786688, b, sizeof(b)),
			 "7 h 59 min");
	ck_assert_str_eq(
		wm_units_format_duration_ms((int64_t)1 << 62, b, sizeof(b)),
		"1281023894007 h 36 min");
	ck_assert_str_eq(wm_units_format_event_time(7800000, b, sizeof(b)),
			 "02:10:00");
	ck_assert_str_eq(wm_units_format_event_time(7800250, b, sizeof(b)),
			 "02:10:00.250");
	ck_assert_str_eq(
		wm_units_format_event_time(1796083200000, b, sizeof(b)),
		"2026-12-01 00:00:00");
	ck_assert_str_eq(wm_units_format_event_time(-1, b, sizeof(b)),
			 "1969-12-31 23:59:59.999");
	ck_assert_str_eq(wm_units_format_event_time(INT64_MIN, b, sizeof(b)),
			 "-");
	ck_assert_str_eq(wm_units_format_event_time(INT64_MAX, b, sizeof(b)),
			 "end");
}
END_TEST

static Suite *
units_suite(void)
{
	Suite *s = suite_create("units");
	TCase *tc;

	tc = tcase_create("duration");
	tcase_add_loop_test(tc, test_units_duration_accepts_flink_syntax, 0,
			    (int)N_ELEMS(duration_ok));
	tcase_add_loop_test(tc, test_units_duration_refuses_garbage, 0,
			    (int)N_ELEMS(duration_bad));
	tcase_add_test(tc, test_units_duration_matches_checked_arithmetic);
	suite_add_tcase(s, tc);

	tc = tcase_create("rate");
	tcase_add_loop_test(tc, test_units_rate_accepts_number_per_unit, 0,
			    (int)N_ELEMS(rate_ok));
	tcase_add_loop_test(tc, test_units_rate_refuses_garbage, 0,
			    (int)N_ELEMS(rate_bad));
	tcase_add_test(tc, test_units_rate_unlimited_is_infinite);
	suite_add_tcase(s, tc);

	tc = tcase_create("size");
	tcase_add_loop_test(tc, test_units_size_accepts_flink_and_iec_units, 0,
			    (int)N_ELEMS(size_ok));
	tcase_add_loop_test(tc, test_units_size_refuses_garbage, 0,
			    (int)N_ELEMS(size_bad));
	suite_add_tcase(s, tc);

	tc = tcase_create("count");
	tcase_add_loop_test(tc, test_units_count_accepts_si_suffixes, 0,
			    (int)N_ELEMS(count_ok));
	tcase_add_loop_test(tc, test_units_count_refuses_garbage, 0,
			    (int)N_ELEMS(count_bad));
	suite_add_tcase(s, tc);

	tc = tcase_create("int64");
	tcase_add_loop_test(tc, test_units_int64_accepts_whole_integers, 0,
			    (int)N_ELEMS(int64_ok));
	tcase_add_loop_test(tc, test_units_int64_refuses_anything_else, 0,
			    (int)N_ELEMS(int64_bad));
	tcase_add_test(tc, test_units_int64_reads_exactly_len_bytes);
	suite_add_tcase(s, tc);

	tc = tcase_create("number");
	tcase_add_test(tc, test_units_number_is_plain_decimal);
	suite_add_tcase(s, tc);

	tc = tcase_create("words");
	tcase_add_test(tc, test_units_bool_words);
	tcase_add_test(tc, test_units_enum_lists_allowed_names);
	tcase_add_test(tc, test_units_messages_quote_and_cut_the_value);
	tcase_add_test(tc,
		       test_units_format_durations_and_event_times_for_people);
	suite_add_tcase(s, tc);

	tc = tcase_create("instant");
	tcase_add_loop_test(
		tc, test_units_instant_accepts_dates_times_and_milliseconds, 0,
		(int)N_ELEMS(instant_ok));
	tcase_add_loop_test(tc, test_units_instant_refuses_the_rest, 0,
			    (int)N_ELEMS(instant_bad));
	tcase_add_test(tc, test_units_instant_agrees_with_timegm_on_every_day);
	suite_add_tcase(s, tc);

	tc = tcase_create("robustness");
	tcase_add_test(tc, test_units_random_strings_are_parsed_or_refused);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(units_suite());
}
