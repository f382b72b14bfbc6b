/*
 * checkpoint_store.c
 *	Checkpoints as directories of blobs and a manifest written last
 *	(checkpoint_store.h). The manifest's text, written and parsed, is
 *	checkpoint_manifest.c's.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "runtime/checkpoint/checkpoint_fail.h"
#include "runtime/checkpoint/checkpoint_manifest.h"
#include "runtime/checkpoint/checkpoint_store.h"
#include "runtime/checkpoint/crc32c.h"
#include "base/log.h"
#include "runtime/io/outfile.h"

#define MANIFEST_NAME "_metadata"
/* Larger than the manifest of a million subtasks: anything beyond is not
 * one, and is not read into memory. */
#define MANIFEST_MAX (64u << 20)
/* Blobs are read and checked in pieces of this size. */
#define READ_PIECE (64u << 10)

struct wm_checkpoint_store {
	char *dir;
	uint64_t fingerprint;
	int64_t event_time_origin_ms;
	uint32_t subtasks;
	unsigned retained;
	int64_t (*now_ns)(void *ctx);
	void (*warn)(void *ctx, const char *message);
	void *ctx;

	/* The checkpoint being written, between begin and commit or abort:
	 * `writing` true, blobs[i].present once subtask i is durable. */
	bool writing;
	struct manifest current;
	int64_t begun_ns;
	uint64_t blob_bytes;
};

static int64_t
now(const struct wm_checkpoint_store *s)
{
	return s->now_ns != NULL ? s->now_ns(s->ctx) : wm_monotonic_ns();
}

static void __attribute__((format(printf, 2, 3)))
warn(const struct wm_checkpoint_store *s, const char *fmt, ...)
{
	char line[WM_LOG_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (s->warn != NULL)
		s->warn(s->ctx, line);
	else
		wm_log("wmrun: warning: %s", line);
}

const char *
wm_checkpoint_store_path(const struct wm_checkpoint_store *s, uint64_t id,
			 char *buf, size_t len)
{
	snprintf(buf, len, "%s/chk-%" PRIu64, s->dir, id);
	return buf;
}

/* DIR/chk-<id>/<name>, or -ENAMETOOLONG. */
static int
file_path(const struct wm_checkpoint_store *s, uint64_t id, const char *name,
	  char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/chk-%" PRIu64 "/%s", s->dir, id, name);

	return n >= 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

static void
blob_name(uint32_t subtask, char *buf, size_t len)
{
	snprintf(buf, len, "subtask-%" PRIu32, subtask);
}

/*
 * Remove checkpoint directory `path` and every file in it, the manifest
 * first: a removal cut short leaves an incomplete checkpoint, never one
 * that looks complete with a blob gone. A symbolic link named chk-N is
 * not followed (O_NOFOLLOW) and not removed: it is not ours. The files
 * are ours (the directory is), so plain unlinks do; a directory inside is
 * not removed (rmdir then fails with ENOTEMPTY).
 */
static int
remove_checkpoint_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *e;
	DIR *d;
	int r = 0;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (unlinkat(fd, MANIFEST_NAME, 0) != 0 && errno != ENOENT)
		r = -errno;
	d = fdopendir(fd);
	if (d == NULL) {
		r = -errno;
		close(fd);
		return r;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (unlinkat(fd, e->d_name, 0) != 0 && r == 0)
			r = -errno;
	}
	closedir(d);
	if (rmdir(path) != 0 && r == 0)
		r = -errno;
	return r;
}

/* Open a file of a checkpoint for reading, never through a link. */
static int
open_checkpoint_file(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, st) != 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return -EINVAL; /* open() itself never says EINVAL here */
	}
	return fd;
}

/* What open_checkpoint_file()'s failure means, for a warning. */
static const char *
open_failure(int r)
{
	switch (-r) {
	case ENOENT:
		return "is missing";
	case ELOOP:
		return "is a symbolic link";
	case EINVAL:
		return "is not a regular file";
	default:
		return strerror(-r);
	}
}

/* Read all `len` bytes at `offset` (a short file: -EIO). */
static int
read_fully(int fd, void *buf, size_t len, off_t offset)
{
	char *p = buf;

	while (len > 0) {
		ssize_t n = pread(fd, p, len, offset);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
		offset += n;
	}
	return 0;
}

/*
 * Read and check the manifest of checkpoint `id`: 0, or -ENOENT (none),
 * -EINVAL (not a valid manifest) or another negative errno, with the
 * path and what is wrong in `err`.
 */
static int
manifest_read(const struct wm_checkpoint_store *s, uint64_t id,
	      struct manifest *m, char *err, size_t errlen)
{
	char path[PATH_MAX], what[256];
	struct stat st;
	char *text;
	int fd, r;

	memset(m, 0, sizeof(*m));
	if (file_path(s, id, MANIFEST_NAME, path, sizeof(path)) != 0)
		return wm_checkpoint_fail(err, errlen, ENAMETOOLONG,
					  "%s/chk-%" PRIu64 "/" MANIFEST_NAME
					  ": name too long",
					  s->dir, id);
	fd = open_checkpoint_file(path, &st);
	if (fd < 0)
		return wm_checkpoint_fail(
			err, errlen, -fd, "\"%s\" %s%s", path, open_failure(fd),
			fd == -ENOENT ? " (the checkpoint was never "
					"completed)"
				      : "");
	if (st.st_size > (off_t)MANIFEST_MAX) {
		close(fd);
		return wm_checkpoint_fail(
			err, errlen, EINVAL,
			"\"%s\" is %jd bytes, larger than any manifest", path,
			(intmax_t)st.st_size);
	}
	text = malloc((size_t)st.st_size + 1);
	if (text == NULL) {
		close(fd);
		return wm_checkpoint_fail(err, errlen, ENOMEM,
					  "\"%s\": out of memory", path);
	}
	r = read_fully(fd, text, (size_t)st.st_size, 0);
	close(fd);
	if (r != 0) {
		free(text);
		return wm_checkpoint_fail(err, errlen, -r,
					  "could not read \"%s\": %s", path,
					  strerror(-r));
	}
	r = 0;
	if (!wm_checkpoint_manifest_parse(text, (size_t)st.st_size, m, what,
					  sizeof(what)))
		r = wm_checkpoint_fail(err, errlen, EINVAL, "\"%s\" %s", path,
				       what);
	else if (m->id != id)
		r = wm_checkpoint_fail(
			err, errlen, EINVAL,
			"\"%s\" is the manifest of checkpoint %" PRIu64, path,
			m->id);
	free(text);
	if (r != 0) {
		free(m->blobs);
		m->blobs = NULL;
	}
	return r;
}

/* Whether manifest `m` is of this job: 0, or -EXDEV with a message. */
static int
manifest_ours(const struct wm_checkpoint_store *s, const struct manifest *m,
	      char *err, size_t errlen)
{
	char dir[PATH_MAX];

	wm_checkpoint_store_path(s, m->id, dir, sizeof(dir));
	if (m->fingerprint != s->fingerprint)
		return wm_checkpoint_fail(
			err, errlen, EXDEV,
			"checkpoint \"%s\" was written by another job: "
			"its fingerprint is %016" PRIx64
			", this job's %016" PRIx64,
			dir, m->fingerprint, s->fingerprint);
	if (m->subtasks != s->subtasks)
		return wm_checkpoint_fail(
			err, errlen, EXDEV,
			"checkpoint \"%s\" was written by another job: it "
			"has %" PRIu32 " subtasks, this job %" PRIu32,
			dir, m->subtasks, s->subtasks);
	return 0;
}

/*
 * Read blob `subtask` of checkpoint `m` and check it against the
 * manifest, keeping it in *keep (malloc'd) if keep is not NULL. 0, or a
 * negative errno with the path and what is wrong in `err` (-EIO: its
 * size or checksum differ).
 */
static int
blob_check(const struct wm_checkpoint_store *s, const struct manifest *m,
	   uint32_t subtask, void **keep, char *err, size_t errlen)
{
	const struct blob_sum *want = &m->blobs[subtask];
	char path[PATH_MAX], name[32];
	uint32_t crc = WM_CRC32C_INIT;
	unsigned char *buf;
	struct stat st;
	int fd, r = 0;

	blob_name(subtask, name, sizeof(name));
	if (file_path(s, m->id, name, path, sizeof(path)) != 0)
		return wm_checkpoint_fail(err, errlen, ENAMETOOLONG,
					  "blob %s: name too long", name);
	fd = open_checkpoint_file(path, &st);
	if (fd < 0)
		return wm_checkpoint_fail(err, errlen,
					  fd == -ENOENT ? EIO : -fd,
					  "\"%s\" %s", path, open_failure(fd));
	if ((uint64_t)st.st_size != want->size) {
		close(fd);
		return wm_checkpoint_fail(
			err, errlen, EIO,
			"\"%s\" is %jd bytes, the manifest says %" PRIu64, path,
			(intmax_t)st.st_size, want->size);
	}
	/* Whole when kept (the caller wants it), else a piece at a time. */
	buf = malloc(keep != NULL	       ? (size_t)want->size + 1
		     : want->size < READ_PIECE ? (size_t)want->size + 1
					       : READ_PIECE);
	if (buf == NULL) {
		close(fd);
		return wm_checkpoint_fail(err, errlen, ENOMEM,
					  "\"%s\": out of memory", path);
	}
	for (uint64_t at = 0; at < want->size && r == 0;) {
		uint64_t left = want->size - at;
		size_t n = keep != NULL	       ? (size_t)left
			   : left < READ_PIECE ? (size_t)left
					       : READ_PIECE;
		unsigned char *into = keep != NULL ? buf + at : buf;

		r = read_fully(fd, into, n, (off_t)at);
		if (r == 0)
			crc = wm_crc32c(crc, into, n);
		at += n;
	}
	close(fd);
	if (r != 0) {
		free(buf);
		return wm_checkpoint_fail(
			err, errlen, -r, "could not read \"%s\": %s", path,
			r == -EIO ? "shorter than when it was opened"
				  : strerror(-r));
	}
	if (crc != want->crc) {
		free(buf);
		return wm_checkpoint_fail(err, errlen, EIO,
					  "\"%s\" has checksum %08" PRIx32
					  ", the manifest says %08" PRIx32,
					  path, crc, want->crc);
	}
	if (keep != NULL)
		*keep = buf;
	else
		free(buf);
	return 0;
}

/* ---------------------------------------------------------------------
 * The checkpoints in DIR
 * --------------------------------------------------------------------- */

static int
compare_ids_down(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The ids of DIR's chk-N entries, newest first, in *ids (malloc'd). 0 (an
 * absent DIR has none), or a negative errno with a message. */
static int
list_ids(const struct wm_checkpoint_store *s, uint64_t **ids, size_t *n,
	 char *err, size_t errlen)
{
	size_t cap = 16;
	struct dirent *e;
	DIR *d;

	*n = 0;
	*ids = malloc(cap * sizeof(**ids));
	if (*ids == NULL)
		return wm_checkpoint_fail(
			err, errlen, ENOMEM,
			"could not list checkpoint directory \"%s\": %s",
			s->dir, strerror(ENOMEM));
	d = opendir(s->dir);
	if (d == NULL) {
		if (errno == ENOENT)
			return 0;
		free(*ids);
		*ids = NULL;
		return wm_checkpoint_fail(
			err, errlen, errno,
			"could not list checkpoint directory \"%s\": %s",
			s->dir, strerror(errno));
	}
	while ((e = readdir(d)) != NULL) {
		uint64_t id;

		if (!wm_checkpoint_manifest_dir_id(e->d_name, &id))
			continue;
		if (*n == cap) {
			uint64_t *more = realloc(*ids, 2 * cap * sizeof(**ids));

			if (more == NULL) {
				closedir(d);
				free(*ids);
				*ids = NULL;
				return wm_checkpoint_fail(
					err, errlen, ENOMEM,
					"could not list checkpoint "
					"directory \"%s\": %s",
					s->dir, strerror(ENOMEM));
			}
			*ids = more;
			cap *= 2;
		}
		(*ids)[(*n)++] = id;
	}
	closedir(d);
	qsort(*ids, *n, sizeof(**ids), compare_ids_down);
	return 0;
}

/* Whether DIR/chk-<id> is a directory of its own, not a link to one. */
static bool
is_checkpoint_dir(const struct wm_checkpoint_store *s, uint64_t id)
{
	char dir[PATH_MAX];
	struct stat st;

	wm_checkpoint_store_path(s, id, dir, sizeof(dir));
	return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ---------------------------------------------------------------------
 * The store
 * --------------------------------------------------------------------- */

int
wm_checkpoint_store_new(struct wm_checkpoint_store **store,
			const struct wm_checkpoint_store_config *config,
			char *err, size_t errlen)
{
	struct wm_checkpoint_store *s;
	size_t len = strlen(config->dir);

	*store = NULL;
	if (len == 0)
		return wm_checkpoint_fail(
			err, errlen, EINVAL,
			"invalid checkpoint directory: empty name");
	/* Room for "/chk-" an id "/" and the longest file name. */
	if (len + 64 >= PATH_MAX)
		return wm_checkpoint_fail(
			err, errlen, ENAMETOOLONG,
			"invalid checkpoint directory \"%s\": %s", config->dir,
			strerror(ENAMETOOLONG));
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return wm_checkpoint_fail(err, errlen, ENOMEM,
					  "could not make checkpoint store: %s",
					  strerror(ENOMEM));
	s->dir = strdup(config->dir);
	s->current.blobs = calloc(config->subtasks > 0 ? config->subtasks : 1,
				  sizeof(*s->current.blobs));
	if (s->dir == NULL || s->current.blobs == NULL) {
		wm_checkpoint_store_free(s);
		return wm_checkpoint_fail(err, errlen, ENOMEM,
					  "could not make checkpoint store: %s",
					  strerror(ENOMEM));
	}
	/* "DIR/" names the same directory as "DIR", and reads better. */
	while (len > 1 && s->dir[len - 1] == '/')
		s->dir[--len] = '\0';
	s->fingerprint = config->fingerprint;
	s->event_time_origin_ms = config->event_time_origin_ms;
	s->subtasks = config->subtasks;
	s->retained = config->retained > 0 ? config->retained : 1;
	s->now_ns = config->now_ns;
	s->warn = config->warn;
	s->ctx = config->ctx;
	*store = s;
	return 0;
}

void
wm_checkpoint_store_free(struct wm_checkpoint_store *s)
{
	if (s == NULL)
		return;
	free(s->dir);
	free(s->current.blobs);
	free(s);
}

int
wm_checkpoint_store_begin(struct wm_checkpoint_store *s, uint64_t id,
			  int64_t trigger_time_ms, char *err, size_t errlen)
{
	char dir[PATH_MAX], parent[PATH_MAX], why[PATH_MAX + 128];
	struct manifest m;
	int r;

	wm_checkpoint_store_path(s, id, dir, sizeof(dir));
	if (s->writing)
		return wm_checkpoint_fail(err, errlen, EBUSY,
					  "cannot begin checkpoint %" PRIu64
					  ": checkpoint %" PRIu64
					  " is being written",
					  id, s->current.id);
	if (mkdir(s->dir, 0777) == 0) {
		wm_outfile_dir_of(s->dir, parent, sizeof(parent));
		r = wm_outfile_sync_dir(parent, err, errlen);
		if (r != 0)
			return r;
	} else if (errno != EEXIST) {
		return wm_checkpoint_fail(
			err, errlen, errno,
			"could not create checkpoint directory \"%s\": %s",
			s->dir, strerror(errno));
	}
	if (mkdir(dir, 0777) != 0) {
		if (errno != EEXIST)
			return wm_checkpoint_fail(
				err, errlen, errno,
				"could not create checkpoint directory "
				"\"%s\": %s",
				dir, strerror(errno));
		/* A manifest, even a broken one, says it was committed
		 * once: never written over. Without one it is a crashed
		 * attempt at this id, which could never complete. */
		r = manifest_read(s, id, &m, why, sizeof(why));
		free(m.blobs);
		if (r != -ENOENT)
			return wm_checkpoint_fail(
				err, errlen, EEXIST,
				"cannot begin checkpoint %" PRIu64
				": \"%s\" exists and has a manifest",
				id, dir);
		if (!is_checkpoint_dir(s, id))
			return wm_checkpoint_fail(
				err, errlen, ENOTDIR,
				"cannot begin checkpoint %" PRIu64
				": \"%s\" is not a directory",
				id, dir);
		r = remove_checkpoint_dir(dir);
		if (r == 0 && mkdir(dir, 0777) != 0)
			r = -errno;
		if (r != 0)
			return wm_checkpoint_fail(
				err, errlen, -r,
				"could not replace the incomplete "
				"checkpoint \"%s\": %s",
				dir, strerror(-r));
		warn(s, "replaced the incomplete checkpoint \"%s\"", dir);
	}
	/* chk-N's name need not be durable yet: without its manifest it is
	 * no checkpoint, and the commit makes it durable before the
	 * manifest. So begin, which the job's supervisor calls at each
	 * trigger, waits for no disk. */
	s->writing = true;
	s->current.fingerprint = s->fingerprint;
	s->current.id = id;
	s->current.subtasks = s->subtasks;
	s->current.trigger_time_ms = trigger_time_ms;
	s->current.event_time_origin_ms = s->event_time_origin_ms;
	memset(s->current.blobs, 0, s->subtasks * sizeof(*s->current.blobs));
	s->blob_bytes = 0;
	s->begun_ns = now(s);
	return 0;
}

/*
 * Write `path`, a file of checkpoint directory chk-N: under a random name
 * beside it, fsync'd, renamed into place (outfile.h, atomic). chk-N was
 * made empty by begin and only its owner's processes write in it, so no
 * link can have been planted at `path`; outfile's O_EXCL temporary never
 * follows one.
 */
static int
write_path(const char *path, const void *bytes, size_t len, char *err,
	   size_t errlen)
{
	struct wm_outfile f;
	int r;

	r = wm_outfile_open(&f, "checkpoint file", path, true, err, errlen);
	if (r != 0)
		return r;
	r = wm_outfile_write(&f, bytes, len);
	if (r != 0) {
		wm_outfile_discard(&f);
		return wm_checkpoint_fail(
			err, errlen, -r,
			"could not write checkpoint file \"%s\": %s", path,
			strerror(-r));
	}
	return wm_outfile_commit(&f, err, errlen);
}

/* One file of the checkpoint being written, by name. */
static int
write_file(struct wm_checkpoint_store *s, const char *name, const void *bytes,
	   size_t len, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int r;

	r = file_path(s, s->current.id, name, path, sizeof(path));
	if (r != 0)
		return wm_checkpoint_fail(
			err, errlen, -r,
			"could not write checkpoint file \"%s/chk-%" PRIu64
			"/%s\": %s",
			s->dir, s->current.id, name, strerror(-r));
	return write_path(path, bytes, len, err, errlen);
}

int
wm_checkpoint_blob_write(const char *dir, uint64_t id, uint32_t subtask,
			 const void *bytes, size_t len, uint32_t *crc,
			 char *err, size_t errlen)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path),
			 "%s/chk-%" PRIu64 "/subtask-%" PRIu32, dir, id,
			 subtask);

	if (n < 0 || (size_t)n >= sizeof(path))
		return wm_checkpoint_fail(
			err, errlen, ENAMETOOLONG,
			"could not write the blob of subtask %" PRIu32
			" into \"%s/chk-%" PRIu64 "\": name too long",
			subtask, dir, id);
	*crc = wm_crc32c(WM_CRC32C_INIT, bytes, len);
	return write_path(path, bytes, len, err, errlen);
}

/* Whether `subtask` may be put into the checkpoint being written. */
static int
put_allowed(const struct wm_checkpoint_store *s, uint32_t subtask, char *err,
	    size_t errlen)
{
	if (!s->writing)
		return wm_checkpoint_fail(
			err, errlen, EINVAL,
			"cannot write the blob of subtask %" PRIu32
			": no checkpoint begun",
			subtask);
	if (subtask >= s->subtasks)
		return wm_checkpoint_fail(err, errlen, EINVAL,
					  "invalid subtask %" PRIu32
					  " for checkpoint %" PRIu64
					  ": the job has %" PRIu32,
					  subtask, s->current.id, s->subtasks);
	if (s->current.blobs[subtask].present)
		return wm_checkpoint_fail(
			err, errlen, EEXIST,
			"cannot write the blob of subtask %" PRIu32
			" twice into checkpoint %" PRIu64,
			subtask, s->current.id);
	return 0;
}

int
wm_checkpoint_store_put_written(struct wm_checkpoint_store *s, uint32_t subtask,
				uint64_t len, uint32_t crc, char *err,
				size_t errlen)
{
	int r = put_allowed(s, subtask, err, errlen);

	if (r != 0)
		return r;
	/* Read back before the manifest may list it: what the subtask said
	 * it wrote is what is on disk, or the checkpoint fails here rather
	 * than at a restore. */
	s->current.blobs[subtask] =
		(struct blob_sum){.size = len, .crc = crc, .present = true};
	r = blob_check(s, &s->current, subtask, NULL, err, errlen);
	if (r != 0) {
		s->current.blobs[subtask].present = false;
		return r;
	}
	s->blob_bytes += len;
	return 0;
}

int
wm_checkpoint_store_put(struct wm_checkpoint_store *s, uint32_t subtask,
			const void *bytes, size_t len, char *err, size_t errlen)
{
	char name[32];
	int r = put_allowed(s, subtask, err, errlen);

	if (r != 0)
		return r;
	blob_name(subtask, name, sizeof(name));
	r = write_file(s, name, bytes, len, err, errlen);
	if (r != 0)
		return r;
	s->current.blobs[subtask] = (struct blob_sum){
		.size = len,
		.crc = wm_crc32c(WM_CRC32C_INIT, bytes, len),
		.present = true,
	};
	s->blob_bytes += len;
	return 0;
}

/*
 * After `committed` became complete: delete this job's complete
 * checkpoints older than the newest `retained` (the committed one among
 * them, whatever its place), and every incomplete one older than it. A
 * checkpoint of another job is left alone. Judged by manifests alone:
 * reading every retained blob at each commit would cost more than the
 * checkpoint; recovery checks the blobs. Failures are warnings.
 */
static unsigned
retain(struct wm_checkpoint_store *s, uint64_t committed)
{
	char dir[PATH_MAX], why[PATH_MAX + 128];
	unsigned kept = 1, removed = 0;
	uint64_t *ids;
	size_t n;
	int r;

	if (list_ids(s, &ids, &n, why, sizeof(why)) != 0) {
		warn(s, "could not delete old checkpoints: %s", why);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct manifest m;
		bool complete, ours;

		if (ids[i] >= committed || !is_checkpoint_dir(s, ids[i]))
			continue;
		complete = manifest_read(s, ids[i], &m, why, sizeof(why)) == 0;
		ours = complete && m.fingerprint == s->fingerprint &&
		       m.subtasks == s->subtasks;
		free(m.blobs);
		if (complete && !ours)
			continue;
		if (complete && kept < s->retained) {
			kept++;
			continue;
		}
		wm_checkpoint_store_path(s, ids[i], dir, sizeof(dir));
		r = remove_checkpoint_dir(dir);
		if (r != 0)
			warn(s, "could not delete checkpoint \"%s\": %s", dir,
			     strerror(-r));
		else
			removed++;
	}
	free(ids);
	if (removed > 0 && wm_outfile_sync_dir(s->dir, why, sizeof(why)) != 0)
		warn(s, "%s", why);
	return removed;
}

int
wm_checkpoint_store_commit(struct wm_checkpoint_store *s,
			   struct wm_checkpoint_figures *figures, char *err,
			   size_t errlen)
{
	char dir[PATH_MAX];
	size_t len = 0;
	char *text = NULL;
	unsigned removed;
	int64_t done_ns;
	int r;

	if (!s->writing)
		return wm_checkpoint_fail(err, errlen, EINVAL,
					  "cannot commit: no checkpoint begun");
	wm_checkpoint_store_path(s, s->current.id, dir, sizeof(dir));
	for (uint32_t i = 0; i < s->subtasks; i++)
		if (!s->current.blobs[i].present) {
			r = wm_checkpoint_fail(
				err, errlen, EINVAL,
				"cannot commit checkpoint %" PRIu64
				": subtask %" PRIu32 " has written no blob",
				s->current.id, i);
			goto failed;
		}
	/* The blobs' names, and chk-N's own, durable before the manifest
	 * that lists them: the commit then deletes older checkpoints, which
	 * must not outlive the new one's directory entry. */
	r = wm_outfile_sync_dir(dir, err, errlen);
	if (r == 0)
		r = wm_outfile_sync_dir(s->dir, err, errlen);
	if (r != 0)
		goto failed;
	r = wm_checkpoint_manifest_text(&s->current, &text, &len);
	if (r != 0) {
		r = wm_checkpoint_fail(
			err, errlen, -r,
			"could not write checkpoint file \"%s/" MANIFEST_NAME
			"\": %s",
			dir, strerror(-r));
		goto failed;
	}
	r = write_file(s, MANIFEST_NAME, text, len, err, errlen);
	free(text);
	if (r != 0)
		goto failed;
	/* The manifest's name durable: from here the checkpoint is
	 * complete, and older ones may go. */
	r = wm_outfile_sync_dir(dir, err, errlen);
	if (r != 0)
		goto failed;
	done_ns = now(s);
	s->writing = false;
	if (figures != NULL)
		*figures = (struct wm_checkpoint_figures){
			.id = s->current.id,
			.blob_bytes = s->blob_bytes,
			.bytes_written = s->blob_bytes + len,
			.duration_ns = done_ns - s->begun_ns,
		};
	removed = retain(s, s->current.id);
	if (figures != NULL)
		figures->removed = removed;
	return 0;
failed:
	s->writing = false;
	remove_checkpoint_dir(dir);
	return r;
}

int
wm_checkpoint_store_abort(struct wm_checkpoint_store *s, uint64_t id, char *err,
			  size_t errlen)
{
	char dir[PATH_MAX], why[PATH_MAX + 128];
	struct manifest m;
	int r;

	wm_checkpoint_store_path(s, id, dir, sizeof(dir));
	if (s->writing && s->current.id == id) {
		s->writing = false;
	} else {
		r = manifest_read(s, id, &m, why, sizeof(why));
		free(m.blobs);
		if (r == 0 || r == -EINVAL)
			return wm_checkpoint_fail(
				err, errlen, EBUSY,
				"cannot abort checkpoint \"%s\": it was "
				"committed",
				dir);
		if (!is_checkpoint_dir(s, id))
			return 0;
	}
	/* Its removal need not be durable (a directory without a manifest
	 * is no checkpoint, and a later begin of its id replaces it), so
	 * the supervisor, which aborts a checkpoint that timed out, waits
	 * for no disk. */
	r = remove_checkpoint_dir(dir);
	if (r != 0)
		return wm_checkpoint_fail(
			err, errlen, -r,
			"could not remove checkpoint \"%s\": %s", dir,
			strerror(-r));
	return 0;
}

/*
 * Whether checkpoint `id` is complete: 0 with `m` filled (the caller
 * frees m->blobs), -EXDEV (another job's: a message in err), or another
 * negative errno with what is wrong in `flaw` (for the warning that
 * skips the checkpoint: not the caller's failure, which err carries).
 */
static int
checkpoint_check(const struct wm_checkpoint_store *s, uint64_t id,
		 struct manifest *m, char *flaw, size_t flawlen, char *err,
		 size_t errlen)
{
	char dir[PATH_MAX];
	int r;

	memset(m, 0, sizeof(*m));
	if (!is_checkpoint_dir(s, id))
		return wm_checkpoint_fail(
			flaw, flawlen, ENOTDIR, "\"%s\" is not a directory",
			wm_checkpoint_store_path(s, id, dir, sizeof(dir)));
	r = manifest_read(s, id, m, flaw, flawlen);
	if (r != 0)
		return r;
	r = manifest_ours(s, m, err, errlen);
	for (uint32_t i = 0; r == 0 && i < m->subtasks; i++)
		r = blob_check(s, m, i, NULL, flaw, flawlen);
	if (r != 0) {
		free(m->blobs);
		m->blobs = NULL;
	}
	return r;
}

int
wm_checkpoint_store_origin(const char *dir, int64_t *origin_ms, char *err,
			   size_t errlen)
{
	const struct wm_checkpoint_store_config config = {.dir = dir};
	struct wm_checkpoint_store *s;
	char why[2 * PATH_MAX];
	int r, found = 0;
	uint64_t *ids;
	size_t n;

	r = wm_checkpoint_store_new(&s, &config, err, errlen);
	if (r != 0)
		return r;
	r = list_ids(s, &ids, &n, err, errlen);
	for (size_t i = 0; r == 0 && i < n && !found; i++) {
		struct manifest m;

		if (manifest_read(s, ids[i], &m, why, sizeof(why)) != 0)
			continue; /* incomplete or damaged: the next */
		*origin_ms = m.event_time_origin_ms;
		free(m.blobs);
		found = 1;
	}
	if (r == 0)
		free(ids);
	wm_checkpoint_store_free(s);
	return r != 0 ? r : found;
}

int
wm_checkpoint_store_latest_complete(struct wm_checkpoint_store *s,
				    struct wm_checkpoint_info *info, char *err,
				    size_t errlen)
{
	return wm_checkpoint_store_latest_complete_below(s, UINT64_MAX, info,
							 err, errlen);
}

int
wm_checkpoint_store_latest_complete_below(struct wm_checkpoint_store *s,
					  uint64_t below,
					  struct wm_checkpoint_info *info,
					  char *err, size_t errlen)
{
	char dir[PATH_MAX], why[2 * PATH_MAX];
	unsigned skipped = 0;
	int r, found = 0;
	uint64_t *ids;
	size_t n;

	memset(info, 0, sizeof(*info));
	r = list_ids(s, &ids, &n, err, errlen);
	if (r != 0)
		return r;
	if (n > 0)
		info->highest_id = ids[0];
	for (size_t i = 0; i < n; i++) {
		struct manifest m;

		if (ids[i] >= below)
			continue;
		r = checkpoint_check(s, ids[i], &m, why, sizeof(why), err,
				     errlen);
		if (r == -EXDEV) {
			found = r;
			break;
		}
		if (r != 0) {
			warn(s, "skipping checkpoint \"%s\": %s",
			     wm_checkpoint_store_path(s, ids[i], dir,
						      sizeof(dir)),
			     why);
			skipped++;
			continue;
		}
		info->id = m.id;
		info->trigger_time_ms = m.trigger_time_ms;
		info->subtasks = m.subtasks;
		for (uint32_t b = 0; b < m.subtasks; b++)
			info->blob_bytes += m.blobs[b].size;
		info->skipped = skipped;
		free(m.blobs);
		found = 1;
		break;
	}
	free(ids);
	return found;
}

int
wm_checkpoint_store_get(struct wm_checkpoint_store *s, uint64_t id,
			uint32_t subtask, void **bytes, size_t *len, char *err,
			size_t errlen)
{
	char why[2 * PATH_MAX];
	struct manifest m;
	int r;

	*bytes = NULL;
	*len = 0;
	if (!is_checkpoint_dir(s, id))
		return wm_checkpoint_fail(
			err, errlen, ENOENT,
			"could not read checkpoint %" PRIu64
			": \"%s\" is not a directory",
			id, wm_checkpoint_store_path(s, id, why, sizeof(why)));
	r = manifest_read(s, id, &m, why, sizeof(why));
	if (r != 0)
		return wm_checkpoint_fail(
			err, errlen, r == -EINVAL ? EIO : -r,
			"could not read checkpoint %" PRIu64 ": %s", id, why);
	r = manifest_ours(s, &m, err, errlen);
	if (r == 0 && subtask >= m.subtasks)
		r = wm_checkpoint_fail(err, errlen, EINVAL,
				       "invalid subtask %" PRIu32
				       " for checkpoint %" PRIu64
				       ": it has %" PRIu32,
				       subtask, id, m.subtasks);
	if (r == 0) {
		r = blob_check(s, &m, subtask, bytes, why, sizeof(why));
		if (r != 0)
			wm_checkpoint_fail(err, errlen, -r,
					   "could not read checkpoint %" PRIu64
					   ": %s",
					   id, why);
		else
			*len = (size_t)m.blobs[subtask].size;
	}
	free(m.blobs);
	return r;
}
