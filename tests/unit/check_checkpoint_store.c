/*
 * check_checkpoint_store.c
 *	Unit tests of the checkpoint store: CRC-32C against its standard
 *	vectors; checkpoints written and read back, retained, torn in every
 *	way a crash or a bad disk tears them (the previous complete one is
 *	used, with a warning naming the file), refused when another job wrote
 *	them, and failed writes (a directory that cannot be written, a file
 *	size limit) that leave the previous checkpoint whole.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/checkpoint/checkpoint_store.h"
#include "runtime/checkpoint/crc32c.h"
#include "tests/unit/check_main.h"
#include "tests/unit/scratch_tree.h"

/* ---------------------------------------------------------------------
 * CRC-32C
 * --------------------------------------------------------------------- */

START_TEST(test_crc32c_gives_the_standard_check_value)
{
	ck_assert_uint_eq(wm_crc32c(WM_CRC32C_INIT, "123456789", 9),
			  0xE3069283u);
	ck_assert_uint_eq(wm_crc32c_portable(WM_CRC32C_INIT, "123456789", 9),
			  0xE3069283u);
	ck_assert_uint_eq(wm_crc32c(WM_CRC32C_INIT, NULL, 0), 0);
}
END_TEST

/* The vectors of RFC 3720 (iSCSI), appendix B.4. */
START_TEST(test_crc32c_matches_the_iscsi_vectors)
{
	static const unsigned char read_pdu[48] = {
		0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00,
		0x00, 0x18, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	unsigned char b[32];

	memset(b, 0, sizeof(b));
	ck_assert_uint_eq(wm_crc32c(0, b, sizeof(b)), 0x8A9136AAu);
	ck_assert_uint_eq(wm_crc32c_portable(0, b, sizeof(b)), 0x8A9136AAu);
	memset(b, 0xFF, sizeof(b));
	ck_assert_uint_eq(wm_crc32c(0, b, sizeof(b)), 0x62A8AB43u);
	for (unsigned i = 0; i < sizeof(b); i++)
		b[i] = (unsigned char)i;
	ck_assert_uint_eq(wm_crc32c(0, b, sizeof(b)), 0x46DD794Eu);
	for (unsigned i = 0; i < sizeof(b); i++)
		b[i] = (unsigned char)(31 - i);
	ck_assert_uint_eq(wm_crc32c(0, b, sizeof(b)), 0x113FDB5Cu);
	ck_assert_uint_eq(wm_crc32c(0, read_pdu, sizeof(read_pdu)),
			  0xD9963A56u);
	ck_assert_uint_eq(wm_crc32c_portable(0, read_pdu, sizeof(read_pdu)),
			  0xD9963A56u);
}
END_TEST

/* CRC-32C by its definition: the message bit by bit, least significant
 * first, through the reflected polynomial. */
static uint32_t
crc32c_by_bits(const unsigned char *p, size_t len)
{
	uint32_t c = 0xFFFFFFFFu;

	for (size_t i = 0; i < len; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
	}
	return ~c;
}

/* The table and the instruction (where the processor has it) agree with
 * the definition at every length and alignment, and a checksum continued
 * piece by piece is the checksum of the whole, wherever it is cut. */
START_TEST(test_crc32c_agrees_with_its_definition)
{
	static unsigned char buf[300];
	uint32_t seed = 12345;

	for (size_t i = 0; i < sizeof(buf); i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (unsigned char)(seed >> 16);
	}
	for (size_t at = 0; at < 8; at++)
		for (size_t len = 0; at + len <= sizeof(buf); len++) {
			uint32_t want = crc32c_by_bits(buf + at, len);

			ck_assert_uint_eq(wm_crc32c(0, buf + at, len), want);
			ck_assert_uint_eq(wm_crc32c_portable(0, buf + at, len),
					  want);
		}
	for (size_t cut = 0; cut <= sizeof(buf); cut++) {
		uint32_t whole = wm_crc32c(0, buf, sizeof(buf));

		ck_assert_uint_eq(wm_crc32c(wm_crc32c(0, buf, cut), buf + cut,
					    sizeof(buf) - cut),
				  whole);
		ck_assert_uint_eq(
			wm_crc32c_portable(wm_crc32c_portable(0, buf, cut),
					   buf + cut, sizeof(buf) - cut),
			whole);
	}
}
END_TEST

/* ---------------------------------------------------------------------
 * The store
 * --------------------------------------------------------------------- */

#define SUBTASKS 4
#define FINGERPRINT UINT64_C(0x5eed0f0b5a11ab1e)

/* A test's directory, clock and warnings. */
struct fixture {
	char root[64]; /* mkdtemp's */
	char dir[96];  /* root/ckpt: the store's */
	int64_t clock_ns;
	char warnings[4096];
	unsigned warned;
};

static struct fixture fx;

static int64_t
fake_now(void *ctx)
{
	return ((struct fixture *)ctx)->clock_ns;
}

static void
keep_warning(void *ctx, const char *message)
{
	struct fixture *f = ctx;
	size_t used = strlen(f->warnings);

	snprintf(f->warnings + used, sizeof(f->warnings) - used, "%s\n",
		 message);
	f->warned++;
}

static void
setup(void)
{
	memset(&fx, 0, sizeof(fx));
	snprintf(fx.root, sizeof(fx.root), "/tmp/check_checkpoint.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fx.root));
	snprintf(fx.dir, sizeof(fx.dir), "%s/ckpt", fx.root);
}

static void
teardown(void)
{
	/* A test that made it unwritable gives it back first. */
	chmod(fx.dir, 0700);
	wm_scratch_remove_tree(fx.root);
}

static struct wm_checkpoint_store *
store_with(uint64_t fingerprint, uint32_t subtasks, unsigned retained)
{
	struct wm_checkpoint_store_config config = {
		.dir = fx.dir,
		.fingerprint = fingerprint,
		.subtasks = subtasks,
		.retained = retained,
		.now_ns = fake_now,
		.warn = keep_warning,
		.ctx = &fx,
	};
	struct wm_checkpoint_store *s;
	char err[512];

	ck_assert_msg(wm_checkpoint_store_new(&s, &config, err, sizeof(err)) ==
			      0,
		      "%s", err);
	return s;
}

/* Subtask `subtask`'s blob in checkpoint `id`: distinct bytes, of a
 * length that differs per subtask (subtask 2's is empty). */
static size_t
blob_for(uint64_t id, uint32_t subtask, unsigned char *buf, size_t cap)
{
	size_t len = subtask == 2 ? 0 : 100 + 37 * subtask + id;

	ck_assert_uint_le(len, cap);
	for (size_t i = 0; i < len; i++)
		buf[i] = (unsigned char)(id * 31 + subtask * 7 + i * 13);
	return len;
}

/* Write checkpoint `id` of every subtask, last subtask first. */
static void
write_checkpoint(struct wm_checkpoint_store *s, uint64_t id,
		 struct wm_checkpoint_figures *fig)
{
	unsigned char blob[1024];
	char err[512];

	ck_assert_msg(wm_checkpoint_store_begin(s, id, 1700000000000 + id, err,
						sizeof(err)) == 0,
		      "%s", err);
	fx.clock_ns += 1000;
	for (uint32_t i = SUBTASKS; i-- > 0;) {
		size_t len = blob_for(id, i, blob, sizeof(blob));

		ck_assert_msg(wm_checkpoint_store_put(s, i, blob, len, err,
						      sizeof(err)) == 0,
			      "%s", err);
	}
	fx.clock_ns += 500;
	ck_assert_msg(wm_checkpoint_store_commit(s, fig, err, sizeof(err)) == 0,
		      "%s", err);
}

/* Every blob of checkpoint `id` reads back as written. */
static void
expect_blobs(struct wm_checkpoint_store *s, uint64_t id)
{
	unsigned char want[1024];
	char err[512];

	for (uint32_t i = 0; i < SUBTASKS; i++) {
		size_t len = blob_for(id, i, want, sizeof(want)), got_len;
		void *got;

		ck_assert_msg(wm_checkpoint_store_get(s, id, i, &got, &got_len,
						      err, sizeof(err)) == 0,
			      "%s", err);
		ck_assert_ptr_nonnull(got);
		ck_assert_uint_eq(got_len, len);
		ck_assert(memcmp(got, want, len) == 0);
		free(got);
	}
}

/* The newest complete checkpoint is `id`. */
static void
expect_latest(struct wm_checkpoint_store *s, uint64_t id)
{
	struct wm_checkpoint_info info;
	char err[512];
	int r = wm_checkpoint_store_latest_complete(s, &info, err, sizeof(err));

	ck_assert_msg(r == 1, "latest_complete gave %d: %s", r, err);
	ck_assert_uint_eq(info.id, id);
	ck_assert_int_eq(info.trigger_time_ms, 1700000000000 + (int64_t)id);
	ck_assert_uint_eq(info.subtasks, SUBTASKS);
}

static bool exists(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static bool
exists(const char *fmt, ...)
{
	char path[256];
	struct stat st;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return lstat(path, &st) == 0;
}

/* The entries of `dir` but . and .., counted. */
static unsigned
entries(const char *dir)
{
	char cmd[256];
	unsigned n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(fscanf(p, "%u", &n), 1);
	pclose(p);
	return n;
}

START_TEST(test_store_round_trip)
{
	struct wm_checkpoint_store *s = store_with(FINGERPRINT, SUBTASKS, 0);
	struct wm_checkpoint_figures fig;
	struct wm_checkpoint_info info;
	unsigned char blob[1024];
	uint64_t blob_bytes = 0;
	char err[512], path[160];
	struct stat st;

	/* Nothing yet, not even the directory. */
	ck_assert_int_eq(
		wm_checkpoint_store_latest_complete(s, &info, err, sizeof(err)),
		0);
	write_checkpoint(s, 7, &fig);
	for (uint32_t i = 0; i < SUBTASKS; i++)
		blob_bytes += blob_for(7, i, blob, sizeof(blob));
	ck_assert_uint_eq(fig.id, 7);
	ck_assert_uint_eq(fig.blob_bytes, blob_bytes);
	snprintf(path, sizeof(path), "%s/chk-7/_metadata", fx.dir);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(fig.bytes_written, blob_bytes + (uint64_t)st.st_size);
	ck_assert_int_eq(fig.duration_ns, 1500);
	ck_assert_uint_eq(fig.removed, 0);
	/* One file per subtask and the manifest; no temporary left. */
	snprintf(path, sizeof(path), "%s/chk-7", fx.dir);
	ck_assert_uint_eq(entries(path), SUBTASKS + 1);
	ck_assert_uint_eq(entries(fx.dir), 1);
	wm_checkpoint_store_free(s);

	/* Another store over the directory (a restarted job) finds it. */
	s = store_with(FINGERPRINT, SUBTASKS, 0);
	ck_assert_int_eq(
		wm_checkpoint_store_latest_complete(s, &info, err, sizeof(err)),
		1);
	ck_assert_uint_eq(info.blob_bytes, blob_bytes);
	ck_assert_uint_eq(info.skipped, 0);
	ck_assert_uint_eq(info.highest_id, 7);
	expect_latest(s, 7);
	expect_blobs(s, 7);
	ck_assert_uint_eq(fx.warned, 0);
	wm_checkpoint_store_free(s);
}
END_TEST

START_TEST(test_store_keeps_the_retained_newest)
{
	struct wm_checkpoint_store *s = store_with(FINGERPRINT, SUBTASKS, 2);
	struct wm_checkpoint_figures fig;

	for (uint64_t id = 1; id <= 5; id++) {
		write_checkpoint(s, id, &fig);
		ck_assert_uint_eq(fig.removed, id > 2 ? 1 : 0);
	}
	ck_assert_uint_eq(entries(fx.dir), 2);
	ck_assert(exists("%s/chk-4", fx.dir) && exists("%s/chk-5", fx.dir));
	expect_latest(s, 5);
	expect_blobs(s, 4);
	wm_checkpoint_store_free(s);

	/* Flink's default, one: the new one replaces both. */
	s = store_with(FINGERPRINT, SUBTASKS, 0);
	write_checkpoint(s, 6, &fig);
	ck_assert_uint_eq(fig.removed, 2);
	ck_assert_uint_eq(entries(fx.dir), 1);
	expect_latest(s, 6);
	expect_blobs(s, 6);
	ck_assert_uint_eq(fx.warned, 0);
	wm_checkpoint_store_free(s);
}
END_TEST

/* The fall-back after a checkpoint that could not be restored: the newest
 * complete one below it, without a warning for those above; none below
 * the oldest. */
START_TEST(test_store_latest_below_falls_back)
{
	struct wm_checkpoint_store *s = store_with(FINGERPRINT, SUBTASKS, 3);
	struct wm_checkpoint_figures fig;
	struct wm_checkpoint_info info;
	char err[512];

	for (uint64_t id = 1; id <= 3; id++)
		write_checkpoint(s, id, &fig);
	ck_assert_int_eq(wm_checkpoint_store_latest_complete_below(
				 s, 3, &info, err, sizeof(err)),
			 1);
	ck_assert_uint_eq(info.id, 2);
	ck_assert_uint_eq(info.highest_id, 3);
	ck_assert_int_eq(wm_checkpoint_store_latest_complete_below(
				 s, 2, &info, err, sizeof(err)),
			 1);
	ck_assert_uint_eq(info.id, 1);
	ck_assert_int_eq(wm_checkpoint_store_latest_complete_below(
				 s, 1, &info, err, sizeof(err)),
			 0);
	ck_assert_int_eq(wm_checkpoint_store_latest_complete_below(
				 s, UINT64_MAX, &info, err, sizeof(err)),
			 1);
	ck_assert_uint_eq(info.id, 3);
	ck_assert_uint_eq(fx.warned, 0);
	wm_checkpoint_store_free(s);
}
END_TEST

START_TEST(test_store_incomplete_checkpoints_are_not_used_and_go)
{
	struct wm_checkpoint_store *s = store_with(FINGERPRINT, SUBTASKS, 1);
	unsigned char blob[1024];
	char err[512];
	size_t len = blob_for(2, 0, blob, sizeof(blob));

	write_checkpoint(s, 1, NULL);
	/* Begun, one subtask written: a commit is refused. */
	ck_assert_int_eq(wm_checkpoint_store_begin(s, 2, 0, err, sizeof(err)),
			 0);
	ck_assert_int_eq(wm_checkpoint_store_begin(s, 3, 0, err, sizeof(err)),
			 -EBUSY);
	ck_assert_int_eq(
		wm_checkpoint_store_put(s, 0, blob, len, err, sizeof(err)), 0);
	ck_assert_int_eq(
		wm_checkpoint_store_put(s, 0, blob, len, err, sizeof(err)),
		-EEXIST);
	ck_assert_int_eq(wm_checkpoint_store_put(s, SUBTASKS, blob, len, err,
						 sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(wm_checkpoint_store_commit(s, NULL, err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "subtask 1 has written no blob") != NULL,
		      "%s", err);
	/* A failed commit removed it. */
	ck_assert(!exists("%s/chk-2", fx.dir));
	wm_checkpoint_store_free(s);

	/* A crash mid-way: a new store finds chk-2 without a manifest. */
	s = store_with(FINGERPRINT, SUBTASKS, 1);
	ck_assert_int_eq(wm_checkpoint_store_begin(s, 2, 0, err, sizeof(err)),
			 0);
	ck_assert_int_eq(
		wm_checkpoint_store_put(s, 3, blob, len, err, sizeof(err)), 0);
	wm_checkpoint_store_free(s);
	s = store_with(FINGERPRINT, SUBTASKS, 1);
	expect_latest(s, 1);
	ck_assert_msg(strstr(fx.warnings, "chk-2/_metadata\" is missing") !=
			      NULL,
		      "%s", fx.warnings);
	/* A complete one cannot be aborted; an incomplete one can. */
	ck_assert_int_eq(wm_checkpoint_store_abort(s, 1, err, sizeof(err)),
			 -EBUSY);
	ck_assert_int_eq(wm_checkpoint_store_abort(s, 2, err, sizeof(err)), 0);
	ck_assert(!exists("%s/chk-2", fx.dir));
	ck_assert_int_eq(wm_checkpoint_store_abort(s, 9, err, sizeof(err)), 0);
	/* Begun again over a leftover: replaced, with a warning. */
	ck_assert_int_eq(wm_checkpoint_store_begin(s, 3, 0, err, sizeof(err)),
			 0);
	ck_assert_int_eq(wm_checkpoint_store_abort(s, 3, err, sizeof(err)), 0);
	wm_checkpoint_store_free(s);
	s = store_with(FINGERPRINT, SUBTASKS, 1);
	ck_assert_int_eq(wm_checkpoint_store_begin(s, 4, 0, err, sizeof(err)),
			 0);
	wm_checkpoint_store_free(s);
	s = store_with(FINGERPRINT, SUBTASKS, 1);
	fx.warnings[0] = '\0';
	write_checkpoint(s, 4, NULL);
	ck_assert_msg(strstr(fx.warnings,
			     "replaced the incomplete checkpoint") != NULL,
		      "%s", fx.warnings);
	/* An existing complete one is never begun over. */
	ck_assert_int_eq(wm_checkpoint_store_begin(s, 4, 0, err, sizeof(err)),
			 -EEXIST);
	expect_latest(s, 4);
	expect_blobs(s, 4);
	wm_checkpoint_store_free(s);
}
END_TEST

/* Ways a checkpoint is torn, and what the warning must say. */
enum damage { TRUNCATE, EMPTY, REMOVE, FLIP, GARBAGE, APPEND, LINK };

struct tear {
	const char *file; /* in chk-2 */
	enum damage damage;
	const char *warning; /* after the file's path */
};

static const struct tear tears[] = {
	{"subtask-1", TRUNCATE, "\" is 138 bytes, the manifest says 139"},
	{"subtask-3", EMPTY, "\" is 0 bytes, the manifest says 213"},
	{"subtask-0", REMOVE, "\" is missing"},
	{"subtask-0", FLIP, "\" has checksum "},
	{"subtask-0", LINK, "\" is a symbolic link"},
	{"_metadata", REMOVE,
	 "\" is missing (the checkpoint was never "
	 "completed)"},
	{"_metadata", EMPTY, "\" is 0 bytes, too short for a manifest"},
	{"_metadata", TRUNCATE, "\" does not end with its checksum"},
	{"_metadata", FLIP, "\" checksum "},
	{"_metadata", GARBAGE, "\" does not end with its checksum"},
	{"_metadata", APPEND, "\" does not end with its checksum"},
};

#define N_TEARS (sizeof(tears) / sizeof(*tears))

/* Change the file as `t` says. */
static void
tear(const struct tear *t, const char *path)
{
	unsigned char c, junk[200];
	struct stat st;
	int fd;

	ck_assert_int_eq(stat(path, &st), 0);
	switch (t->damage) {
	case TRUNCATE:
		ck_assert_int_eq(truncate(path, st.st_size - 1), 0);
		break;
	case EMPTY:
		ck_assert_int_eq(truncate(path, 0), 0);
		break;
	case REMOVE:
		ck_assert_int_eq(unlink(path), 0);
		break;
	case FLIP:
		/* One bit in the middle: a bad sector, not a cut. */
		fd = open(path, O_RDWR);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(pread(fd, &c, 1, st.st_size / 2), 1);
		c ^= 0x10;
		ck_assert_int_eq(pwrite(fd, &c, 1, st.st_size / 2), 1);
		close(fd);
		break;
	case GARBAGE:
	case APPEND:
		fd = open(path, O_WRONLY | (t->damage == APPEND ? O_APPEND
								: O_TRUNC));
		ck_assert_int_ge(fd, 0);
		memset(junk, 0x7f, sizeof(junk));
		ck_assert_int_eq(write(fd, junk, sizeof(junk)),
				 (ssize_t)sizeof(junk));
		close(fd);
		break;
	case LINK: {
		/* The right bytes, but through a link planted in its place. */
		char elsewhere[160];

		snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", fx.root);
		ck_assert_int_eq(rename(path, elsewhere), 0);
		ck_assert_int_eq(symlink(elsewhere, path), 0);
		break;
	}
	}
}

START_TEST(test_store_torn_checkpoint_falls_back_to_the_previous)
{
	const struct tear *t = &tears[_i];
	struct wm_checkpoint_store *s = store_with(FINGERPRINT, SUBTASKS, 2);
	struct wm_checkpoint_info info;
	char path[160], want[320], err[512];
	uint32_t subtask;
	void *got;
	size_t len;

	write_checkpoint(s, 1, NULL);
	write_checkpoint(s, 2, NULL);
	snprintf(path, sizeof(path), "%s/chk-2/%s", fx.dir, t->file);
	tear(t, path);
	ck_assert_int_eq(
		wm_checkpoint_store_latest_complete(s, &info, err, sizeof(err)),
		1);
	ck_assert_uint_eq(info.id, 1);
	ck_assert_uint_eq(info.skipped, 1);
	ck_assert_uint_eq(info.highest_id, 2);
	expect_blobs(s, 1);
	/* One warning, naming the checkpoint, the file and what is wrong. */
	ck_assert_uint_eq(fx.warned, 1);
	snprintf(want, sizeof(want), "skipping checkpoint \"%s/chk-2\": \"%s%s",
		 fx.dir, path, t->warning);
	ck_assert_msg(strstr(fx.warnings, want) != NULL,
		      "warning \"%s\" lacks \"%s\"", fx.warnings, want);
	/* Its blob is not handed out either ("subtask-N": N). */
	subtask = strncmp(t->file, "subtask-", 8) == 0
			  ? (uint32_t)(t->file[8] - '0')
			  : 0;
	ck_assert_int_lt(wm_checkpoint_store_get(s, 2, subtask, &got, &len, err,
						 sizeof(err)),
			 0);
	ck_assert_msg(strstr(err, path) != NULL, "%s", err);
	ck_assert_ptr_null(got);
	/* The next checkpoint goes above it, and a later commit removes
	 * the torn one only when it is beyond retention. */
	write_checkpoint(s, 3, NULL);
	expect_latest(s, 3);
	wm_checkpoint_store_free(s);
}
END_TEST

/* A chk-N that is a link to a complete checkpoint is not one: a link
 * planted in DIR is never followed. */
START_TEST(test_store_linked_checkpoint_is_skipped)
{
	struct wm_checkpoint_store *s = store_with(FINGERPRINT, SUBTASKS, 2);
	char to[160], link[160], err[512];
	void *got;
	size_t len;

	write_checkpoint(s, 1, NULL);
	write_checkpoint(s, 2, NULL);
	snprintf(to, sizeof(to), "%s/chk-2", fx.dir);
	snprintf(link, sizeof(link), "%s/chk-3", fx.dir);
	ck_assert_int_eq(symlink(to, link), 0);
	expect_latest(s, 2);
	ck_assert_msg(strstr(fx.warnings, "chk-3\" is not a directory") != NULL,
		      "%s", fx.warnings);
	ck_assert_int_eq(
		wm_checkpoint_store_get(s, 3, 0, &got, &len, err, sizeof(err)),
		-ENOENT);
	ck_assert_ptr_null(got);
	wm_checkpoint_store_free(s);
}
END_TEST

START_TEST(test_store_refuses_another_jobs_checkpoint)
{
	struct wm_checkpoint_store *s = store_with(FINGERPRINT, SUBTASKS, 1);
	struct wm_checkpoint_info info;
	char err[512], want[256];
	void *got;
	size_t len;

	write_checkpoint(s, 3, NULL);
	wm_checkpoint_store_free(s);

	s = store_with(FINGERPRINT + 1, SUBTASKS, 1);
	ck_assert_int_eq(
		wm_checkpoint_store_latest_complete(s, &info, err, sizeof(err)),
		-EXDEV);
	snprintf(want, sizeof(want),
		 "checkpoint \"%s/chk-3\" was written by another job: its "
		 "fingerprint is %016" PRIx64 ", this job's %016" PRIx64,
		 fx.dir, FINGERPRINT, FINGERPRINT + 1);
	ck_assert_str_eq(err, want);
	ck_assert_int_eq(
		wm_checkpoint_store_get(s, 3, 0, &got, &len, err, sizeof(err)),
		-EXDEV);
	wm_checkpoint_store_free(s);

	/* The same fingerprint but another number of subtasks. */
	s = store_with(FINGERPRINT, SUBTASKS + 1, 1);
	ck_assert_int_eq(
		wm_checkpoint_store_latest_complete(s, &info, err, sizeof(err)),
		-EXDEV);
	ck_assert_msg(strstr(err, "it has 4 subtasks, this job 5") != NULL,
		      "%s", err);
	/* Nor does its retention delete the other job's checkpoint. */
	ck_assert_int_eq(wm_checkpoint_store_begin(s, 4, 0, err, sizeof(err)),
			 0);
	for (uint32_t i = 0; i <= SUBTASKS; i++)
		ck_assert_int_eq(
			wm_checkpoint_store_put(s, i, "x", 1, err, sizeof(err)),
			0);
	ck_assert_int_eq(wm_checkpoint_store_commit(s, NULL, err, sizeof(err)),
			 0);
	ck_assert(exists("%s/chk-3/_metadata", fx.dir));
	ck_assert_uint_eq(fx.warned, 0);
	wm_checkpoint_store_free(s);
}
END_TEST

/* A directory no one may write: root may write anywhere, so as root the
 * test drops its effective user id to nobody's for the attempt. */
START_TEST(test_store_unwritable_directory_fails_and_keeps_the_previous)
{
	struct wm_checkpoint_store *s = store_with(FINGERPRINT, SUBTASKS, 1);
	char err[512], want[256];
	bool root = geteuid() == 0;
	int r;

	write_checkpoint(s, 1, NULL);
	ck_assert_int_eq(chmod(fx.dir, 0555), 0);
	if (root) {
		ck_assert_int_eq(chmod(fx.root, 0755), 0);
		ck_assert_int_eq(seteuid(65534), 0);
	}
	r = wm_checkpoint_store_begin(s, 2, 0, err, sizeof(err));
	if (root)
		ck_assert_int_eq(seteuid(0), 0);
	ck_assert_int_eq(r, -EACCES);
	snprintf(want, sizeof(want),
		 "could not create checkpoint directory \"%s/chk-2\": %s",
		 fx.dir, strerror(EACCES));
	ck_assert_str_eq(err, want);
	ck_assert_int_eq(chmod(fx.dir, 0700), 0);
	expect_latest(s, 1);
	expect_blobs(s, 1);

	/* Nor can a checkpoint directory be made where a file is. */
	wm_checkpoint_store_free(s);
	ck_assert_int_eq(chmod(fx.root, 0700), 0);
	snprintf(fx.dir, sizeof(fx.dir), "%s/ckpt/chk-1/subtask-0", fx.root);
	s = store_with(FINGERPRINT, SUBTASKS, 1);
	ck_assert_int_eq(wm_checkpoint_store_begin(s, 1, 0, err, sizeof(err)),
			 -ENOTDIR);
	ck_assert_msg(strstr(err, fx.dir) != NULL, "%s", err);
	wm_checkpoint_store_free(s);
}
END_TEST

static int
put_big(struct wm_checkpoint_store *s, const void *bytes, size_t len, char *err,
	size_t errlen)
{
	return wm_checkpoint_store_put(s, 1, bytes, len, err, errlen);
}

static int
commit(struct wm_checkpoint_store *s, const void *bytes, size_t len, char *err,
       size_t errlen)
{
	(void)bytes;
	(void)len;
	return wm_checkpoint_store_commit(s, NULL, err, errlen);
}

/* op() under a file size limit of `bytes`, lifted again at once: Check
 * writes its own record of the test to a file, which must not hit it. */
static int
limited(rlim_t bytes,
	int (*op)(struct wm_checkpoint_store *, const void *, size_t, char *,
		  size_t),
	struct wm_checkpoint_store *s, const void *buf, size_t len, char *err,
	size_t errlen)
{
	struct rlimit old, small;
	int r;

	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = (struct rlimit){bytes, old.rlim_max};
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
	r = op(s, buf, len, err, errlen);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
	return r;
}

/*
 * A write that fails part way (a file size limit gives EFBIG where a full
 * disk gives ENOSPC; tests/integration/checkpoint_store_survives_a_full_
 * disk.sh fills a real one): in a blob, then in the manifest. The error
 * names the file; the failed checkpoint is gone, the previous one whole.
 */
START_TEST(test_store_failed_write_keeps_the_previous)
{
	struct wm_checkpoint_store *s = store_with(FINGERPRINT, SUBTASKS, 1);
	static unsigned char big[8192];
	char err[512], want[256];
	int r;

	write_checkpoint(s, 1, NULL);
	/* EFBIG instead of the signal that would end the test. */
	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(wm_checkpoint_store_begin(s, 2, 0, err, sizeof(err)),
			 0);
	ck_assert_int_eq(
		wm_checkpoint_store_put(s, 0, "a", 1, err, sizeof(err)), 0);
	r = limited(4096, put_big, s, big, sizeof(big), err, sizeof(err));
	ck_assert_int_eq(r, -EFBIG);
	snprintf(want, sizeof(want),
		 "could not write checkpoint file \"%s/chk-2/subtask-1\": %s",
		 fx.dir, strerror(EFBIG));
	ck_assert_str_eq(err, want);
	ck_assert_int_eq(wm_checkpoint_store_abort(s, 2, err, sizeof(err)), 0);
	ck_assert(!exists("%s/chk-2", fx.dir));
	expect_latest(s, 1);
	expect_blobs(s, 1);
	wm_checkpoint_store_free(s);

	/* The manifest of 400 subtasks is longer than the limit, their
	 * blobs are not: the commit fails, and removes the checkpoint. */
	s = store_with(FINGERPRINT + 1, 400, 1);
	ck_assert_int_eq(wm_checkpoint_store_begin(s, 2, 0, err, sizeof(err)),
			 0);
	for (uint32_t i = 0; i < 400; i++)
		ck_assert_int_eq(wm_checkpoint_store_put(s, i, big, 16, err,
							 sizeof(err)),
				 0);
	r = limited(4096, commit, s, NULL, 0, err, sizeof(err));
	ck_assert_int_eq(r, -EFBIG);
	snprintf(want, sizeof(want),
		 "could not write checkpoint file \"%s/chk-2/_metadata\": %s",
		 fx.dir, strerror(EFBIG));
	ck_assert_str_eq(err, want);
	ck_assert(!exists("%s/chk-2", fx.dir));
	signal(SIGXFSZ, SIG_DFL);
	wm_checkpoint_store_free(s);
	s = store_with(FINGERPRINT, SUBTASKS, 1);
	expect_latest(s, 1);
	expect_blobs(s, 1);
	wm_checkpoint_store_free(s);
}
END_TEST

static Suite *
checkpoint_store_suite(void)
{
	Suite *s = suite_create("checkpoint_store");
	TCase *crc = tcase_create("crc32c");
	TCase *store = tcase_create("store");
	TCase *torn = tcase_create("torn");
	TCase *failures = tcase_create("failures");

	tcase_add_test(crc, test_crc32c_gives_the_standard_check_value);
	tcase_add_test(crc, test_crc32c_matches_the_iscsi_vectors);
	tcase_add_test(crc, test_crc32c_agrees_with_its_definition);
	tcase_add_checked_fixture(store, setup, teardown);
	tcase_add_test(store, test_store_round_trip);
	tcase_add_test(store, test_store_keeps_the_retained_newest);
	tcase_add_test(store, test_store_latest_below_falls_back);
	tcase_add_test(store,
		       test_store_incomplete_checkpoints_are_not_used_and_go);
	tcase_add_test(store, test_store_refuses_another_jobs_checkpoint);
	tcase_add_checked_fixture(torn, setup, teardown);
	tcase_add_loop_test(
		torn, test_store_torn_checkpoint_falls_back_to_the_previous, 0,
		(int)N_TEARS);
	tcase_add_test(torn, test_store_linked_checkpoint_is_skipped);
	tcase_add_checked_fixture(failures, setup, teardown);
	tcase_add_test(
		failures,
		test_store_unwritable_directory_fails_and_keeps_the_previous);
	tcase_add_test(failures, test_store_failed_write_keeps_the_previous);
	suite_add_tcase(s, crc);
	suite_add_tcase(s, store);
	suite_add_tcase(s, torn);
	suite_add_tcase(s, failures);
	return s;
}

int
main(void)
{
	return wm_check_main(checkpoint_store_suite());
}
