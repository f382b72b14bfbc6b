/*
 * check_assert.c
 *	Unit tests of WM_ASSERT() (base/assert.h): checked, a false one names
 *	file, line and expression in one line and aborts; a true one
 *	evaluates its expression once; compiled out, it evaluates nothing.
 *	Checked here whatever this build's configure chose.
 */
#include "config.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#undef WM_ASSERT_ENABLED
#define WM_ASSERT_ENABLED 1
#include "base/assert.h"
#include "tests/unit/assert_off.h"
#include "tests/unit/check_main.h"

START_TEST(test_true_assertion_evaluates_its_expression_once)
{
	int n = 0;

	WM_ASSERT(++n == 1);
	ck_assert_int_eq(n, 1);
}
END_TEST

START_TEST(test_false_assertion_names_file_line_and_expression_then_aborts)
{
	int fds[2];
	char got[2048];
	char want[512];
	size_t len = 0;
	ssize_t r;
	int st;
	int line = 0;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int x = 1;

		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		WM_ASSERT(x == 2);
		_exit(0); /* not reached when checked */
	}
	line = __LINE__ - 3;
	close(fds[1]);
	while ((r = read(fds[0], got + len, sizeof(got) - 1 - len)) > 0)
		len += (size_t)r;
	got[len] = '\0';
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT,
		      "status %#x, expected a death by SIGABRT", st);
	snprintf(want, sizeof(want), "%s: %s:%d: assertion \"x == 2\" failed\n",
		 program_invocation_short_name, __FILE__, line);
	/* The sanitizers may add their own report after it. */
	ck_assert_msg(strncmp(got, want, strlen(want)) == 0,
		      "stderr \"%s\", expected it to begin \"%s\"", got, want);
}
END_TEST

START_TEST(test_compiled_out_assertion_evaluates_nothing)
{
	ck_assert_int_eq(wm_test_assert_off(), 0);
}
END_TEST

static Suite *
assert_suite(void)
{
	Suite *s = suite_create("assert");
	TCase *on = tcase_create("checked");
	TCase *off = tcase_create("compiled out");

	tcase_add_test(on, test_true_assertion_evaluates_its_expression_once);
	tcase_add_test(
		on,
		test_false_assertion_names_file_line_and_expression_then_aborts);
	tcase_add_test(off, test_compiled_out_assertion_evaluates_nothing);
	suite_add_tcase(s, on);
	suite_add_tcase(s, off);
	return s;
}

int
main(void)
{
	return wm_check_main(assert_suite());
}
