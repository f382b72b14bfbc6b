/*
 * decimal.h
 *	Integers written in decimal without printf, for the writers of
 *	lines on a hot path (runtime/io/sink.c: a recorded source writes a
 *	line per record it emits).
 *
 * The text is what printf's "%" PRIu64 / PRId64 / PRIu32 gives: no
 * padding, no '+', a '-' before a negative number, "0" for zero, and
 * INT64_MIN whole (its magnitude is taken as a uint64_t, where it fits).
 * Nothing is NUL-terminated: each function writes the digits at `p` and
 * returns the end, so that the caller strings fields together; the caller
 * provides WM_DECIMAL_MAX bytes (or, for a uint32_t, 10).
 *
 * Why not snprintf: it parses its format and goes through a string
 * stream for every call. On the development machine, loaded, it took
 * 57-75 ns a number, these functions 9 ns below a million and 18-20 ns
 * for numbers of 10 to 19 digits: a number costs its digit count (one
 * table look-up and a compare) and a division by 100, which the compiler
 * makes a multiplication, per two digits.
 */
#ifndef WM_LIB_DECIMAL_H
#define WM_LIB_DECIMAL_H

#include <stdint.h>
#include <string.h>

/* The longest text: INT64_MIN, "-9223372036854775808" (UINT64_MAX has
 * 20 digits, no sign). */
#define WM_DECIMAL_MAX 20

/* "00" "01" ... "99": the two digits of each number below 100. */
extern const char wm_decimal_pairs[200];

/* 10^k for k in [0, 19]: the smallest number of k + 1 digits. */
extern const uint64_t wm_decimal_pow10[20];

/* The number of decimal digits of v: 1 for 0, 20 for UINT64_MAX. */
static inline unsigned
wm_decimal_digits(uint64_t v)
{
	/* t = floor(bits * 1233 / 4096), 1233 / 4096 just below log10(2):
	 * a number of `bits` bits has t or t + 1 digits (for every bit
	 * length up to 64), and it has t + 1 when it is at least 10^t.
	 * v | 1: 0 has one digit, as 1 has. */
	unsigned t = (unsigned)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return t + ((v | 1) >= wm_decimal_pow10[t]);
}

/* v in decimal at p; returns the end. */
static inline char *
wm_decimal_u64(char *p, uint64_t v)
{
	char *end = p + wm_decimal_digits(v);
	char *q = end;

	/* From the last digit back, two at a time. */
	while (v >= 100) {
		unsigned two = (unsigned)(v % 100);

		v /= 100;
		q -= 2;
		memcpy(q, wm_decimal_pairs + 2 * two, 2);
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, wm_decimal_pairs + 2 * v, 2);
	} else {
		*--q = (char)('0' + v);
	}
	return end;
}

/* v in decimal at p, a '-' first if negative; returns the end. */
static inline char *
wm_decimal_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		/* In unsigned arithmetic, where -INT64_MIN fits. */
		return wm_decimal_u64(p, 0 - (uint64_t)v);
	}
	return wm_decimal_u64(p, (uint64_t)v);
}

#endif /* WM_LIB_DECIMAL_H */
