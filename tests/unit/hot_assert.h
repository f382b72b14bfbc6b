/*
 * hot_assert.h
 *	An assertion for a unit test's inner loops: free while it holds.
 *
 *	Check writes every ck_assert*() that passes down as the last point
 *	the test reached, a write(2) to the runner's file each, so that a
 *	crash can be placed after it. A loop of millions of them took tens
 *	of seconds of system time (check_lines, check_page_ahead). Where a
 *	test checks that many values, WM_HOT_ASSERT() compares them and
 *	calls Check only for the one that fails; a crash inside the loop is
 *	then placed at the last ck_assert*() before it.
 */
#ifndef WM_TESTS_UNIT_HOT_ASSERT_H
#define WM_TESTS_UNIT_HOT_ASSERT_H

#include <check.h>

/* Fails the test with the message (the printf format fmt and its
 * arguments) when expr is false; does nothing else. */
#define WM_HOT_ASSERT(expr, fmt, ...)                                          \
	do {                                                                   \
		if (!(expr))                                                   \
			ck_abort_msg("Assertion '%s' failed: " fmt, #expr,     \
				     ##__VA_ARGS__);                           \
	} while (0)

#endif /* WM_TESTS_UNIT_HOT_ASSERT_H */
