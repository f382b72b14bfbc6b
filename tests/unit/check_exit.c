/*
 * check_exit.c
 *	Unit tests of the exit status table: one errno means different
 *	things by what the process was doing, memory is always the OS's, and
 *	a worker's sysexits code is the job's.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <sysexits.h>

#include "base/exit.h"
#include "tests/unit/check_main.h"

struct row {
	int err;
	int status;
};

/* Every row of `rows` under `cause`, with the errno given both ways. */
static void
expect_rows(enum wm_exit_cause cause, const struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(wm_exit_status(cause, rows[i].err) ==
				      rows[i].status,
			      "cause %d, errno %d: %d, expected %d", (int)cause,
			      rows[i].err, wm_exit_status(cause, rows[i].err),
			      rows[i].status);
		ck_assert_int_eq(wm_exit_status(cause, -rows[i].err),
				 rows[i].status);
	}
}

START_TEST(test_no_error_is_success_whatever_the_cause)
{
	for (int c = WM_EXIT_INPUT; c <= WM_EXIT_SIM; c++)
		ck_assert_int_eq(wm_exit_status((enum wm_exit_cause)c, 0),
				 EX_OK);
}
END_TEST

START_TEST(test_memory_is_the_machines_whatever_the_cause)
{
	for (int c = WM_EXIT_INPUT; c <= WM_EXIT_SIM; c++)
		ck_assert_int_eq(wm_exit_status((enum wm_exit_cause)c, -ENOMEM),
				 EX_OSERR);
}
END_TEST

START_TEST(test_input_errors_say_what_is_wrong_with_the_input)
{
	static const struct row rows[] = {
		{EBADMSG, EX_DATAERR}, {EINVAL, EX_CONFIG},
		{EFBIG, EX_CONFIG},    {ENOENT, EX_NOINPUT},
		{EACCES, EX_NOINPUT},  {EPERM, EX_NOINPUT},
		{EISDIR, EX_NOINPUT},  {ENOTDIR, EX_NOINPUT},
		{ELOOP, EX_NOINPUT},   {ENAMETOOLONG, EX_NOINPUT},
		{ENXIO, EX_NOINPUT},   {EIO, EX_IOERR},
		{EMFILE, EX_OSERR},
	};

	expect_rows(WM_EXIT_INPUT, rows, sizeof(rows) / sizeof(rows[0]));
}
END_TEST

START_TEST(test_output_errors_are_io_errors_whatever_the_errno)
{
	/* A missing directory or a forbidden file is a failed output, not
	 * a missing input; EFBIG is a sink at its file size limit. */
	static const struct row rows[] = {
		{ENOENT, EX_IOERR},  {EACCES, EX_IOERR}, {EFBIG, EX_IOERR},
		{ENOSPC, EX_IOERR},  {EPIPE, EX_IOERR},	 {EIO, EX_IOERR},
		{EBADMSG, EX_IOERR},
	};

	expect_rows(WM_EXIT_OUTPUT, rows, sizeof(rows) / sizeof(rows[0]));
}
END_TEST

START_TEST(test_internal_errors_are_bugs)
{
	/* A corrupt frame is not the user's malformed data. */
	static const struct row rows[] = {
		{EBADMSG, EX_SOFTWARE},
		{EINVAL, EX_SOFTWARE},
		{ENOENT, EX_SOFTWARE},
	};

	expect_rows(WM_EXIT_INTERNAL, rows, sizeof(rows) / sizeof(rows[0]));
}
END_TEST

START_TEST(test_sim_errors_keep_the_kind_sim_gave_them)
{
	static const struct row rows[] = {
		{EIO, EX_IOERR},       {EINVAL, EX_CONFIG},
		{EBADMSG, EX_DATAERR}, {ENOENT, EX_NOINPUT},
		{EACCES, EX_NOINPUT},  {EPROTO, EX_SOFTWARE},
		{EBUSY, EX_TEMPFAIL}, /* a checkpoint directory held */
	};

	expect_rows(WM_EXIT_SIM, rows, sizeof(rows) / sizeof(rows[0]));
}
END_TEST

START_TEST(test_worker_sysexits_code_is_the_jobs)
{
	static const int own[] = {EX_DATAERR, EX_SOFTWARE, EX_OSERR, EX_IOERR,
				  EX_CONFIG};
	static const int other[] = {1, 2, 63, 79, 127, 255};

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		ck_assert_int_eq(wm_exit_of_worker(own[i]), own[i]);
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		ck_assert_int_eq(wm_exit_of_worker(other[i]), 1);
}
END_TEST

static Suite *
exit_suite(void)
{
	Suite *s = suite_create("exit");
	TCase *errno_table = tcase_create("errno to status");
	TCase *workers = tcase_create("worker status");

	tcase_add_test(errno_table,
		       test_no_error_is_success_whatever_the_cause);
	tcase_add_test(errno_table,
		       test_memory_is_the_machines_whatever_the_cause);
	tcase_add_test(errno_table,
		       test_input_errors_say_what_is_wrong_with_the_input);
	tcase_add_test(errno_table,
		       test_output_errors_are_io_errors_whatever_the_errno);
	tcase_add_test(errno_table, test_internal_errors_are_bugs);
	tcase_add_test(errno_table,
		       test_sim_errors_keep_the_kind_sim_gave_them);
	tcase_add_test(workers, test_worker_sysexits_code_is_the_jobs);
	suite_add_tcase(s, errno_table);
	suite_add_tcase(s, workers);
	return s;
}

int
main(void)
{
	return wm_check_main(exit_suite());
}
