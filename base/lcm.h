/*
 * lcm.h
 *	The least common multiple of two whole numbers, for the periods
 *	that line up (a periodic silence's cycle, operators/source_gen.c;
 *	the event-time origin's unit, runtime/source/sources.c).
 */
#ifndef WM_BASE_LCM_H
#define WM_BASE_LCM_H

#include <stdint.h>

/* lcm(a, b) for a, b > 0 (Euclid's gcd); UINT64_MAX when it does not
 * fit. */
static inline uint64_t
wm_lcm_u64(uint64_t a, uint64_t b)
{
	uint64_t x = a, y = b, q;

	while (y != 0) {
		uint64_t r = x % y;

		x = y;
		y = r;
	}
	q = a / x;
	return q > UINT64_MAX / b ? UINT64_MAX : q * b;
}

#endif /* WM_BASE_LCM_H */
