/*
 * check_dir_lock.c
 *	Unit tests of the checkpoint directory's lock: a second process is
 *	refused with the holder's pid, the lock goes with its holder's death,
 *	a planted link is never written through, and a resume of a missing
 *	directory makes nothing.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/checkpoint/dir_lock.h"
#include "tests/unit/check_main.h"
#include "tests/unit/scratch_tree.h"

static char root[64];
static char dir[96];

static void
setup(void)
{
	snprintf(root, sizeof(root), "/tmp/check_dir_lock.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/ckpt", root);
}

static void
teardown(void)
{
	wm_scratch_remove_tree(root);
}

/* A child that takes the lock, says so through a pipe, and waits to be
 * killed. Its pid. */
static pid_t
holder(void)
{
	int ready[2];
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(ready), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char err[512];
		int fd;

		close(ready[0]);
		if (wm_dir_lock_take(dir, true, &fd, err, sizeof(err)) != 0)
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		/* Gone in a minute even if a failed test never kills it. */
		alarm(60);
		for (;;)
			pause();
	}
	close(ready[1]);
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	close(ready[0]);
	return pid;
}

START_TEST(test_a_second_process_is_refused_with_the_holders_pid)
{
	pid_t pid = holder();
	char err[512], want[64], path[PATH_MAX], text[32] = "";
	int fd, status;
	FILE *f;

	ck_assert_int_eq(wm_dir_lock_take(dir, true, &fd, err, sizeof(err)),
			 -EBUSY);
	ck_assert_int_eq(fd, -1);
	snprintf(want, sizeof(want), "(pid %d holds", (int)pid);
	ck_assert_msg(strstr(err, want) != NULL, "%s", err);
	ck_assert_msg(strstr(err, dir) != NULL, "%s", err);
	/* The file names the holder too, for people. */
	snprintf(path, sizeof(path), "%s/" WM_DIR_LOCK_NAME, dir);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(text, sizeof(text), f));
	fclose(f);
	ck_assert_int_eq(atoi(text), pid);
	/* Its holder killed, the lock is free. */
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(wm_dir_lock_take(dir, true, &fd, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_int_ge(fd, 0);
	wm_dir_lock_release(fd);
}
END_TEST

START_TEST(test_a_planted_link_is_never_written_through)
{
	char link[160], target[160], err[512];
	struct stat st;
	int fd;

	ck_assert_int_eq(mkdir(dir, 0777), 0);
	snprintf(target, sizeof(target), "%s/theirs", root);
	snprintf(link, sizeof(link), "%s/" WM_DIR_LOCK_NAME, dir);
	ck_assert_int_eq(symlink(target, link), 0);
	ck_assert_int_eq(wm_dir_lock_take(dir, true, &fd, err, sizeof(err)),
			 -ELOOP);
	ck_assert_msg(strstr(err, "is a symbolic link") != NULL, "%s", err);
	ck_assert_int_ne(lstat(target, &st), 0); /* nothing made there */
	/* Nor a FIFO, which would hang an open for writing. */
	ck_assert_int_eq(unlink(link), 0);
	ck_assert_int_eq(mkfifo(link, 0600), 0);
	ck_assert_int_eq(wm_dir_lock_take(dir, true, &fd, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "is not a regular file") != NULL, "%s", err);
}
END_TEST

START_TEST(test_a_resume_of_a_missing_directory_makes_nothing)
{
	char err[512];
	struct stat st;
	int fd;

	ck_assert_int_eq(wm_dir_lock_take(dir, false, &fd, err, sizeof(err)),
			 -ENOENT);
	ck_assert_msg(strstr(err, "no complete checkpoint to resume from") !=
			      NULL,
		      "%s", err);
	ck_assert_int_ne(stat(dir, &st), 0);
	/* A new job makes it. */
	ck_assert_msg(wm_dir_lock_take(dir, true, &fd, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_int_eq(stat(dir, &st), 0);
	wm_dir_lock_release(fd);
}
END_TEST

static Suite *
dir_lock_suite(void)
{
	Suite *s = suite_create("dir_lock");
	TCase *lock = tcase_create("lock");

	tcase_add_checked_fixture(lock, setup, teardown);
	tcase_add_test(lock,
		       test_a_second_process_is_refused_with_the_holders_pid);
	tcase_add_test(lock, test_a_planted_link_is_never_written_through);
	tcase_add_test(lock,
		       test_a_resume_of_a_missing_directory_makes_nothing);
	suite_add_tcase(s, lock);
	return s;
}

int
main(void)
{
	return wm_check_main(dir_lock_suite());
}
