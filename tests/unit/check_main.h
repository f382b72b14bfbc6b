/*
 * check_main.h
 *	The main() of every unit test: run the suite, exit 0 only if every
 *	test passed (CK_RUN_SUITE, CK_FORK and the other Check variables
 *	apply, as CK_ENV says).
 */
#ifndef WM_TESTS_UNIT_CHECK_MAIN_H
#define WM_TESTS_UNIT_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

static inline int
wm_check_main(Suite *suite)
{
	SRunner *sr = srunner_create(suite);
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif /* WM_TESTS_UNIT_CHECK_MAIN_H */
