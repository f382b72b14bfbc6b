/*
 * check_part_commit.c
 *	Unit tests of exactly-once file outputs: sealed parts appended in
 *	order when their checkpoint commits, and every crash of a commit (or
 *	of the recovery that follows it) repaired by recovery, so that the
 *	file holds each committed line exactly once and no part is left.
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/checkpoint/part_commit.h"
#include "tests/unit/check_main.h"
#include "tests/unit/scratch_tree.h"

#define WRITERS 3
#define HEADER "key,value\n"
/* Run ids: the committer's of most tests, and other jobs'. */
#define RUN_A UINT64_C(0x1111111111111111)
#define RUN_B UINT64_C(0x2222222222222222)
#define RUN_C UINT64_C(0xc0ffee0000000001)

/* A test's directory, its output file, and the crash it injects. */
struct fixture {
	char root[64];	  /* mkdtemp's */
	char dir[96];	  /* root/ckpt: the checkpoint directory */
	char path[96];	  /* root/out.csv: the output */
	int fd;		  /* the output, O_APPEND as a sink opens it */
	int stop_at;	  /* the step (counted from 0) that crashes; -1: none */
	int steps;	  /* steps taken so far */
	char stopped[16]; /* the step it stopped before, "" if none */
	uint64_t run;	  /* committer()'s run id */
};

static struct fixture fx;

static void
setup(void)
{
	memset(&fx, 0, sizeof(fx));
	snprintf(fx.root, sizeof(fx.root), "/tmp/check_part_commit.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fx.root));
	snprintf(fx.dir, sizeof(fx.dir), "%s/ckpt", fx.root);
	snprintf(fx.path, sizeof(fx.path), "%s/out.csv", fx.root);
	fx.fd = open(fx.path, O_RDWR | O_CREAT | O_TRUNC | O_APPEND, 0600);
	ck_assert_int_ge(fx.fd, 0);
	ck_assert_int_eq(write(fx.fd, HEADER, strlen(HEADER)),
			 (ssize_t)strlen(HEADER));
	fx.stop_at = -1;
	fx.run = RUN_A;
}

static void
teardown(void)
{
	close(fx.fd);
	wm_scratch_remove_tree(fx.root);
}

/* The step hook: a crash at step number fx.stop_at. */
static int
crash_at(void *ctx, const char *what)
{
	struct fixture *f = ctx;

	if (f->steps++ != f->stop_at)
		return 0;
	snprintf(f->stopped, sizeof(f->stopped), "%s", what);
	return 1;
}

static struct wm_part_commit *
committer(void)
{
	const struct wm_part_commit_output out = {.path = fx.path,
						  .fd = fx.fd,
						  .name = "stage-2",
						  .writers = WRITERS};
	const struct wm_part_commit_config config = {
		.dir = fx.dir,
		.outputs = &out,
		.n_outputs = 1,
		.run = fx.run,
		.step = crash_at,
		.ctx = &fx,
	};
	struct wm_part_commit *pc;
	char err[512];

	ck_assert_msg(wm_part_commit_new(&pc, &config, err, sizeof(err)) == 0,
		      "%s", err);
	return pc;
}

/* The lines of writer w's part e: distinct, and of several lengths. */
static void
part_text(uint32_t w, uint64_t e, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < 2 + w; i++)
		used += (size_t)snprintf(
			buf + used, len - used,
			"w%" PRIu32 ",e%" PRIu64 "-%" PRIu32 "\n", w, e, i);
}

/* Writer w seals part e (written as a sink writes it) and says so; with
 * pc NULL, a part of run fx.run that no committer is told of. */
static void
seal(struct wm_part_commit *pc, uint32_t w, uint64_t e)
{
	char path[256], text[256];
	int fd;

	part_text(w, e, text, sizeof(text));
	wm_part_commit_part_path(fx.dir, "stage-2",
				 pc != NULL ? wm_part_commit_run(pc) : fx.run,
				 w, e, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	if (pc != NULL)
		ck_assert_int_eq(
			wm_part_commit_sealed(pc, 0, w, e, strlen(text)), 0);
}

/* What the file must hold with the parts of `epochs` committed, each
 * epoch's by writer. */
static void
expected(const uint64_t *epochs, size_t n, char *buf, size_t len)
{
	snprintf(buf, len, "%s", HEADER);
	for (size_t i = 0; i < n; i++)
		for (uint32_t w = 0; w < WRITERS; w++)
			part_text(w, epochs[i], buf + strlen(buf),
				  len - strlen(buf));
}

static void
assert_file_is(const char *want)
{
	char got[4096];
	ssize_t n = pread(fx.fd, got, sizeof(got) - 1, 0);

	ck_assert_int_ge(n, 0);
	got[n] = '\0';
	ck_assert_str_eq(got, want);
}

/* How many parts of run `run` are left in the output's directory. */
static unsigned
parts_of_run_left(uint64_t run)
{
	char dir[160];
	DIR *d;
	struct dirent *e;
	unsigned n = 0;

	snprintf(dir, sizeof(dir), "%s/parts/stage-2", fx.dir);
	d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL) {
		uint64_t of, epoch;
		uint32_t w;

		n += wm_part_commit_parse_part_name(e->d_name, &of, &w,
						    &epoch) &&
		     of == run;
	}
	closedir(d);
	return n;
}

/* How many parts of fx.run are left. */
static unsigned
parts_left(void)
{
	return parts_of_run_left(fx.run);
}

/* Checkpoint e: every writer seals its part e, the committer's blob is
 * made, and (commit) the checkpoint commits. The blob in *blob. */
static void
checkpoint(struct wm_part_commit *pc, uint64_t e, bool commit, void **blob,
	   size_t *len)
{
	char err[512];

	for (uint32_t w = 0; w < WRITERS; w++)
		seal(pc, w, e);
	ck_assert_int_eq(wm_part_commit_prepare(pc, e, blob, len), 0);
	if (commit)
		ck_assert_msg(wm_part_commit_commit(pc, e, err, sizeof(err)) ==
				      0,
			      "%s", err);
}

START_TEST(test_commit_appends_parts_in_order_and_deletes_them)
{
	static const uint64_t epochs[] = {1, 2};
	struct wm_part_commit *pc = committer();
	char want[4096];
	void *blob;
	size_t len;

	checkpoint(pc, 1, true, &blob, &len);
	free(blob);
	expected(epochs, 1, want, sizeof(want));
	assert_file_is(want);
	ck_assert_uint_eq(parts_left(), 0);
	checkpoint(pc, 2, true, &blob, &len);
	free(blob);
	expected(epochs, 2, want, sizeof(want));
	assert_file_is(want);
	ck_assert_uint_eq(parts_left(), 0);
	wm_part_commit_free(pc);
}
END_TEST

/* Nothing reaches the file before the checkpoint commits. */
START_TEST(test_sealed_parts_stay_out_of_the_file_until_the_commit)
{
	struct wm_part_commit *pc = committer();
	void *blob;
	size_t len;

	checkpoint(pc, 1, false, &blob, &len);
	free(blob);
	assert_file_is(HEADER);
	ck_assert_uint_eq(parts_left(), WRITERS);
	wm_part_commit_free(pc);
}
END_TEST

/*
 * The heart of it: checkpoint 1 committed, checkpoint 2 complete and its
 * commit crashing at step `_i` (every step in turn: truncate, each
 * append, sync, each delete, and past the last), with writer 0 already
 * writing its part 3. A crash at an append leaves half of that part
 * appended, as a write cut short does. Then a recovery from checkpoint 2,
 * itself crashing at each of its steps and run again: the file holds
 * parts 1 and 2 exactly once, and no part is left.
 */
START_TEST(test_commit_crashing_at_any_step_is_repaired)
{
	static const uint64_t epochs[] = {1, 2};
	struct wm_part_commit *pc = committer();
	char want[4096], err[512];
	void *blob1, *blob2;
	size_t len1, len2;
	int r;

	checkpoint(pc, 1, true, &blob1, &len1);
	checkpoint(pc, 2, false, &blob2, &len2);
	seal(NULL, 0, 3);
	fx.steps = 0;
	fx.stop_at = _i;
	r = wm_part_commit_commit(pc, 2, err, sizeof(err));
	wm_part_commit_free(pc); /* the crash */
	if (strcmp(fx.stopped, "append") == 0) {
		char half[256];

		part_text(0, 2, half, sizeof(half));
		half[strlen(half) / 2] = '\0';
		ck_assert_int_eq(write(fx.fd, half, strlen(half)),
				 (ssize_t)strlen(half));
	}
	ck_assert_int_eq(r != 0, fx.stopped[0] != '\0');
	expected(epochs, 2, want, sizeof(want));
	/* The recovery crashing at its step j, until one runs through. */
	for (int j = 0;; j++) {
		fx.steps = 0;
		fx.stop_at = j;
		fx.stopped[0] = '\0';
		pc = committer();
		r = wm_part_commit_recover(pc, 2, blob2, len2, err,
					   sizeof(err));
		wm_part_commit_free(pc);
		if (fx.stopped[0] == '\0') {
			ck_assert_msg(r == 0, "%s", err);
			break;
		}
		ck_assert_int_lt(j, 64);
	}
	assert_file_is(want);
	ck_assert_uint_eq(parts_left(), 0);
	free(blob1);
	free(blob2);
}
END_TEST

/* A crash before any checkpoint: back to the header, no part left. The
 * committer is the one made at the start (with no checkpoint, a new
 * process starts afresh and makes its file again). */
START_TEST(test_recover_without_a_checkpoint_keeps_only_the_header)
{
	struct wm_part_commit *pc = committer();
	char err[512];
	void *blob;
	size_t len;

	checkpoint(pc, 1, false, &blob, &len);
	free(blob);
	ck_assert_int_eq(write(fx.fd, "torn", 4), 4);
	ck_assert_msg(
		wm_part_commit_recover(pc, 0, NULL, 0, err, sizeof(err)) == 0,
		"%s", err);
	assert_file_is(HEADER);
	ck_assert_uint_eq(parts_left(), 0);
	wm_part_commit_free(pc);
}
END_TEST

/* Restored from an older checkpoint (the newest one damaged), the file
 * loses what the newer one committed: the sources replay it. */
START_TEST(test_recover_from_an_older_checkpoint_drops_later_commits)
{
	static const uint64_t epochs[] = {1};
	struct wm_part_commit *pc = committer();
	char want[4096], err[512];
	void *blob1, *blob2;
	size_t len1, len2;

	checkpoint(pc, 1, true, &blob1, &len1);
	checkpoint(pc, 2, true, &blob2, &len2);
	wm_part_commit_free(pc);
	pc = committer();
	ck_assert_msg(wm_part_commit_recover(pc, 1, blob1, len1, err,
					     sizeof(err)) == 0,
		      "%s", err);
	expected(epochs, 1, want, sizeof(want));
	assert_file_is(want);
	/* And goes on committing after it. */
	free(blob2);
	checkpoint(pc, 3, true, &blob2, &len2);
	free(blob2);
	wm_part_commit_free(pc);
	free(blob1);
}
END_TEST

/* A checkpoint aborted after writer 0 sealed its part 2: that part goes
 * with checkpoint 3, before writer 0's part 3; writer 1, which never saw
 * barrier 2, seals its part 2 at barrier 3. */
START_TEST(test_parts_of_an_aborted_checkpoint_go_with_the_next)
{
	struct wm_part_commit *pc = committer();
	char want[4096], err[512];
	void *blob;
	size_t len;

	seal(pc, 0, 2); /* checkpoint 2 aborted */
	seal(pc, 0, 3);
	seal(pc, 1, 2);
	seal(pc, 2, 2);
	ck_assert_int_eq(wm_part_commit_prepare(pc, 3, &blob, &len), 0);
	ck_assert_msg(wm_part_commit_commit(pc, 3, err, sizeof(err)) == 0, "%s",
		      err);
	free(blob);
	snprintf(want, sizeof(want), "%s", HEADER);
	part_text(0, 2, want + strlen(want), sizeof(want) - strlen(want));
	part_text(1, 2, want + strlen(want), sizeof(want) - strlen(want));
	part_text(2, 2, want + strlen(want), sizeof(want) - strlen(want));
	part_text(0, 3, want + strlen(want), sizeof(want) - strlen(want));
	assert_file_is(want);
	ck_assert_uint_eq(parts_left(), 0);
	wm_part_commit_free(pc);
}
END_TEST

/* A part that is not what was sealed is an error, never a guess. */
START_TEST(test_recover_refuses_a_part_of_another_size)
{
	struct wm_part_commit *pc = committer();
	char path[256], err[512];
	void *blob;
	size_t len;

	checkpoint(pc, 1, false, &blob, &len);
	wm_part_commit_free(pc);
	wm_part_commit_part_path(fx.dir, "stage-2", fx.run, 1, 1, path,
				 sizeof(path));
	ck_assert_int_eq(truncate(path, 3), 0);
	pc = committer();
	ck_assert_int_eq(
		wm_part_commit_recover(pc, 1, blob, len, err, sizeof(err)),
		-EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "s1-e1"));
	/* And a blob that is not the committer's. */
	ck_assert_int_eq(
		wm_part_commit_recover(pc, 1, "garbage", 7, err, sizeof(err)),
		-EBADMSG);
	wm_part_commit_free(pc);
	free(blob);
}
END_TEST

/* A committer's blob that its prepare() cannot have written for the
 * checkpoint asked for is refused (-EBADMSG: the restore falls back to
 * the checkpoint before) before any file or part is touched: checkpoint
 * 2's blob offered as checkpoint 1's, and checkpoint 2's with its parts'
 * order changed (epochs swapped) or a part's epoch beyond 2, each with
 * the blob's framing intact. */
START_TEST(test_recover_refuses_a_blob_of_another_checkpoint_untouched)
{
	static const uint64_t epochs[] = {1};
	struct wm_part_commit *pc = committer();
	char want[4096], err[512];
	unsigned char *forged;
	void *blob1, *blob2;
	size_t len1, len2, at;
	uint64_t epoch;

	checkpoint(pc, 1, true, &blob1, &len1);
	checkpoint(pc, 2, false, &blob2, &len2);
	wm_part_commit_free(pc);
	expected(epochs, 1, want, sizeof(want));
	assert_file_is(want);
	ck_assert_uint_eq(parts_left(), WRITERS);
	pc = committer();
	ck_assert_int_eq(
		wm_part_commit_recover(pc, 1, blob2, len2, err, sizeof(err)),
		-EBADMSG);
	ck_assert_msg(strstr(err, "checkpoint 1") != NULL, "%s", err);
	/* The first part's epoch (2) is the u64 after its u32 writer, at
	 * the end of the blob less the parts after it and the trailer:
	 * found by its value instead, the first 8 bytes equal to 2 after
	 * the id and run. */
	forged = malloc(len2);
	ck_assert_ptr_nonnull(forged);
	for (uint64_t bad = 3; bad <= 4; bad++) {
		memcpy(forged, blob2, len2);
		at = len2;
		for (size_t i = len2 / 2; i + 8 <= len2; i++) {
			memcpy(&epoch, forged + i, 8);
			if (epoch == 2) {
				at = i;
				break;
			}
		}
		ck_assert_uint_lt(at, len2);
		/* 3: beyond the checkpoint; 4 then 2: out of order too. */
		memcpy(forged + at, &bad, 8);
		ck_assert_int_eq(wm_part_commit_recover(pc, 2, forged, len2,
							err, sizeof(err)),
				 -EBADMSG);
	}
	assert_file_is(want);
	ck_assert_uint_eq(parts_left(), WRITERS);
	/* And the true blob recovers. */
	ck_assert_msg(wm_part_commit_recover(pc, 2, blob2, len2, err,
					     sizeof(err)) == 0,
		      "%s", err);
	wm_part_commit_free(pc);
	free(forged);
	free(blob1);
	free(blob2);
}
END_TEST

/* A failed job deletes the parts no recovery needs and keeps those of a
 * commit cut short, which a resume appends. */
START_TEST(test_discard_keeps_the_parts_of_a_commit_cut_short)
{
	static const uint64_t epochs[] = {1, 2};
	struct wm_part_commit *pc = committer();
	char want[4096], err[512];
	void *blob1, *blob2;
	size_t len1, len2;

	checkpoint(pc, 1, true, &blob1, &len1);
	checkpoint(pc, 2, false, &blob2, &len2);
	seal(pc, 1, 3);
	fx.steps = 0;
	fx.stop_at = 1; /* after the first append */
	ck_assert_int_ne(wm_part_commit_commit(pc, 2, err, sizeof(err)), 0);
	fx.stop_at = -1;
	ck_assert_msg(wm_part_commit_discard(pc, err, sizeof(err)) == 0, "%s",
		      err);
	wm_part_commit_free(pc);
	ck_assert_uint_eq(parts_left(), WRITERS);
	pc = committer();
	ck_assert_msg(wm_part_commit_recover(pc, 2, blob2, len2, err,
					     sizeof(err)) == 0,
		      "%s", err);
	expected(epochs, 2, want, sizeof(want));
	assert_file_is(want);
	wm_part_commit_free(pc);
	free(blob1);
	free(blob2);
}
END_TEST

/* The end of input: the last parts, sealed after the last checkpoint. */
START_TEST(test_finish_commits_the_last_parts)
{
	static const uint64_t epochs[] = {1, 2};
	struct wm_part_commit *pc = committer();
	char want[4096], err[512];
	void *blob;
	size_t len;

	checkpoint(pc, 1, true, &blob, &len);
	free(blob);
	for (uint32_t w = WRITERS; w-- > 0;)
		seal(pc, w, 2);
	ck_assert_msg(wm_part_commit_finish(pc, err, sizeof(err)) == 0, "%s",
		      err);
	expected(epochs, 2, want, sizeof(want));
	assert_file_is(want);
	ck_assert_uint_eq(parts_left(), 0);
	wm_part_commit_free(pc);
}
END_TEST

START_TEST(test_part_paths_name_output_writer_and_epoch)
{
	char name[32], path[128];

	ck_assert_str_eq(wm_part_commit_output_name(3, 0, name, sizeof(name)),
			 "stage-3");
	ck_assert_str_eq(wm_part_commit_output_name(2, 1, name, sizeof(name)),
			 "stage-2-late");
	ck_assert_str_eq(wm_part_commit_output_name(2, 2, name, sizeof(name)),
			 "stage-2-late-right");
	ck_assert_str_eq(wm_part_commit_part_path("d", "stage-3", 0, 1, 12,
						  path, sizeof(path)),
			 "d/parts/stage-3/s1-e12");
	ck_assert_str_eq(wm_part_commit_part_path("d", "stage-3", 0xabc, 1, 12,
						  path, sizeof(path)),
			 "d/parts/stage-3/0000000000000abc-s1-e12");
}
END_TEST

/* A part's name back into its run, writer and epoch; other names are not
 * parts. */
START_TEST(test_part_names_parse_back)
{
	uint64_t run, epoch;
	uint32_t w;

	ck_assert(wm_part_commit_parse_part_name("c0ffee0000000001-s2-e7", &run,
						 &w, &epoch));
	ck_assert_uint_eq(run, RUN_C);
	ck_assert_uint_eq(w, 2);
	ck_assert_uint_eq(epoch, 7);
	ck_assert(wm_part_commit_parse_part_name("s2-e7", &run, &w, &epoch));
	ck_assert_uint_eq(run, 0);
	ck_assert(!wm_part_commit_parse_part_name("0000000000000000-s2-e7",
						  &run, &w, &epoch));
	ck_assert(!wm_part_commit_parse_part_name("c0ffee-s2-e7", &run, &w,
						  &epoch));
	ck_assert(
		!wm_part_commit_parse_part_name("s2-e7.tmp", &run, &w, &epoch));
	ck_assert(!wm_part_commit_parse_part_name("sx-e7", &run, &w, &epoch));
}
END_TEST

/*
 * Two jobs on one directory, one after the other: job A's commit of
 * checkpoint 1 never finished (its parts stay for its resume), job C
 * left parts of its own, and job B resumes from A's checkpoint. B
 * commits A's parts of that checkpoint, deletes A's others, and never
 * touches C's: not at its recovery, its fresh start, nor its discard.
 */
START_TEST(test_a_run_takes_only_its_own_and_its_checkpoints_parts)
{
	static const uint64_t epochs[] = {1};
	struct wm_part_commit *pc = committer();
	char want[4096], err[512];
	void *blob;
	size_t len;

	checkpoint(pc, 1, false, &blob, &len);
	seal(pc, 0, 2); /* after the checkpoint: never committed */
	wm_part_commit_free(pc);
	fx.run = RUN_C;
	seal(NULL, 0, 1);
	seal(NULL, 1, 1);
	fx.run = RUN_B;
	pc = committer();
	ck_assert_msg(
		wm_part_commit_recover(pc, 1, blob, len, err, sizeof(err)) == 0,
		"%s", err);
	expected(epochs, 1, want, sizeof(want));
	assert_file_is(want);
	ck_assert_uint_eq(parts_of_run_left(RUN_A), 0);
	ck_assert_uint_eq(parts_of_run_left(RUN_C), 2);
	ck_assert_msg(
		wm_part_commit_recover(pc, 0, NULL, 0, err, sizeof(err)) == 0,
		"%s", err);
	ck_assert_msg(wm_part_commit_discard(pc, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_uint_eq(parts_of_run_left(RUN_C), 2);
	wm_part_commit_free(pc);
	free(blob);
}
END_TEST

static Suite *
part_commit_suite(void)
{
	Suite *s = suite_create("part_commit");
	TCase *commit = tcase_create("commit");
	TCase *crash = tcase_create("crash");
	TCase *recover = tcase_create("recover");

	tcase_add_test(commit, test_part_paths_name_output_writer_and_epoch);
	tcase_add_test(commit, test_part_names_parse_back);
	tcase_add_test(recover,
		       test_a_run_takes_only_its_own_and_its_checkpoints_parts);
	tcase_add_checked_fixture(commit, setup, teardown);
	tcase_add_test(commit,
		       test_commit_appends_parts_in_order_and_deletes_them);
	tcase_add_test(commit,
		       test_sealed_parts_stay_out_of_the_file_until_the_commit);
	tcase_add_test(commit,
		       test_parts_of_an_aborted_checkpoint_go_with_the_next);
	tcase_add_test(commit, test_finish_commits_the_last_parts);
	tcase_add_checked_fixture(crash, setup, teardown);
	/* A commit of 3 parts takes 7 steps (3 appends, a sync, 3 deletes;
	 * no truncate, the file is as committed): every one, and beyond. */
	tcase_add_loop_test(crash, test_commit_crashing_at_any_step_is_repaired,
			    0, 9);
	tcase_add_checked_fixture(recover, setup, teardown);
	tcase_add_test(recover,
		       test_recover_without_a_checkpoint_keeps_only_the_header);
	tcase_add_test(
		recover,
		test_recover_from_an_older_checkpoint_drops_later_commits);
	tcase_add_test(recover, test_recover_refuses_a_part_of_another_size);
	tcase_add_test(
		recover,
		test_recover_refuses_a_blob_of_another_checkpoint_untouched);
	tcase_add_test(recover,
		       test_discard_keeps_the_parts_of_a_commit_cut_short);
	suite_add_tcase(s, commit);
	suite_add_tcase(s, crash);
	suite_add_tcase(s, recover);
	return s;
}

int
main(void)
{
	return wm_check_main(part_commit_suite());
}
