/*
 * assert_off.h
 *	A WM_ASSERT() compiled out (assert_off.c), for check_assert.c.
 */
#ifndef WM_TESTS_UNIT_ASSERT_OFF_H
#define WM_TESTS_UNIT_ASSERT_OFF_H

/* Runs a false WM_ASSERT() whose expression counts its evaluations;
 * returns the count. */
int wm_test_assert_off(void);

#endif /* WM_TESTS_UNIT_ASSERT_OFF_H */
