/*
 * assert_off.c
 *	WM_ASSERT() compiled out, for check_assert.c, whatever this build's
 *	configure chose.
 */
#include "config.h"

#undef WM_ASSERT_ENABLED
#include "base/assert.h"
#include "tests/unit/assert_off.h"

int
wm_test_assert_off(void)
{
	int evaluated = 0;

	/* False, and with a side effect: neither may happen. */
	WM_ASSERT(++evaluated < 0);
	return evaluated;
}
