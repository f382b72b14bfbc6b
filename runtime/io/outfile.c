/*
 * outfile.c
 *	Output files opened safely, written with every error seen (outfile.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/assert.h"
#include "runtime/io/outfile.h"

/* An open file (outfile.h): a descriptor and its name; the file meant,
 * but for standard output; a random name only for a file this open made
 * (atomic, until commit); the first write error kept as an errno. A
 * closed one has none of them (forget()). */
static void
check_open(const struct wm_outfile *f)
{
	WM_ASSERT(f->path != NULL && f->fd >= 0);
	WM_ASSERT(f->target != NULL || f->fd == STDOUT_FILENO);
	WM_ASSERT(f->temp == NULL || f->created);
	WM_ASSERT(f->error >= 0);
}

const char *
wm_outfile_dir_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		snprintf(buf, len, ".");
	else if (slash == path)
		snprintf(buf, len, "/");
	else
		snprintf(buf, len, "%.*s", (int)(slash - path), path);
	return buf;
}

/* Whether someone else may create or replace names in `dir`: its group or
 * everyone may write it (/tmp), or its owner is another user (root, who
 * may do anything anyway, excepted: /dev is no threat). A directory that
 * cannot be read says nothing here: opening in it fails on its own. */
static bool
shared_dir(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) != 0)
		return false;
	return (st.st_mode & (S_IWGRP | S_IWOTH)) ||
	       (st.st_uid != geteuid() && st.st_uid != 0);
}

static mode_t
new_file_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

/* What is at a path, links followed only where that is safe. */
struct target {
	char path[PATH_MAX]; /* the file to write: `path`, or a link's end */
	bool exists;	     /* something is there */
	bool special;	     /* a FIFO, device or socket */
	bool link;	     /* `path` itself is a symbolic link */
	bool shared;	     /* its directory is shared (shared_dir()) */
};

/* "could not open output file "x": reason", for `what` file `path`. */
static int
fail(char *err, size_t errlen, int e, const char *what, const char *path)
{
	snprintf(err, errlen, "could not open %s \"%s\": %s", what, path,
		 strerror(e));
	return -e;
}

static int
resolve(const char *what, const char *path, struct target *t, char *err,
	size_t errlen)
{
	char dir[PATH_MAX];
	struct stat lst, st;

	memset(t, 0, sizeof(*t));
	if (snprintf(t->path, sizeof(t->path), "%s", path) >=
	    (int)sizeof(t->path))
		return fail(err, errlen, ENAMETOOLONG, what, path);
	t->shared = shared_dir(wm_outfile_dir_of(path, dir, sizeof(dir)));
	if (lstat(path, &lst) != 0) {
		if (errno != ENOENT)
			return fail(err, errlen, errno, what, path);
		return 0;
	}
	t->link = S_ISLNK(lst.st_mode);
	st = lst;
	if (t->link) {
		if (t->shared)
			/* A planted link is replaced, never followed: unless
			 * it leads to a stream, which is refused below. */
			t->exists = stat(path, &st) == 0;
		else if (realpath(path, t->path) != NULL) {
			/* Our own link: write where it leads, deciding
			 * there as if it had been named. */
			t->shared = shared_dir(
				wm_outfile_dir_of(t->path, dir, sizeof(dir)));
			t->link = false;
			if (lstat(t->path, &st) != 0)
				return fail(err, errlen, errno, what, path);
			t->exists = true;
		} else {
			/* A dangling link of ours: the file to create is where
			 * it leads, decided there as if it had been named. */
			char to[PATH_MAX];
			ssize_t n = readlink(path, to, sizeof(to) - 1);

			if (n < 0)
				return fail(err, errlen, errno, what, path);
			to[n] = '\0';
			if (to[0] == '/')
				snprintf(t->path, sizeof(t->path), "%s", to);
			else if (snprintf(t->path, sizeof(t->path), "%s/%s",
					  dir, to) >= (int)sizeof(t->path))
				return fail(err, errlen, ENAMETOOLONG, what,
					    path);
			t->shared = shared_dir(
				wm_outfile_dir_of(t->path, dir, sizeof(dir)));
			t->link = false;
			t->exists = false;
			return 0;
		}
	} else {
		t->exists = true;
	}
	if (t->exists && S_ISDIR(st.st_mode))
		return fail(err, errlen, EISDIR, what, path);
	t->special = t->exists && !S_ISREG(st.st_mode);
	if (t->special && t->link && t->shared) {
		snprintf(err, errlen,
			 "could not open %s \"%s\": refusing to follow a "
			 "symbolic link in a directory that other users can "
			 "write",
			 what, path);
		return -ELOOP;
	}
	return 0;
}

/* A new file under a random name beside `path`, with O_EXCL. */
static int
make_temp(struct wm_outfile *f, const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	const char *base = strrchr(path, '/');
	size_t len;

	base = base != NULL ? base + 1 : path;
	wm_outfile_dir_of(path, dir, sizeof(dir));
	len = strlen(dir) + strlen(base) + 16;
	f->temp = malloc(len);
	if (f->temp == NULL)
		return fail(err, errlen, ENOMEM, f->what, path);
	snprintf(f->temp, len, "%s/.%s.XXXXXX", dir, base);
	f->fd = mkostemp(f->temp, O_CLOEXEC | O_APPEND);
	if (f->fd < 0) {
		int e = errno;

		free(f->temp);
		f->temp = NULL;
		return fail(err, errlen, e, f->what, path);
	}
	if (fchmod(f->fd, new_file_mode()) != 0) {
		int e = errno;

		unlink(f->temp);
		return fail(err, errlen, e, f->what, path);
	}
	return 0;
}

/* Drop every name and the descriptor (closed by the caller). */
static void
forget(struct wm_outfile *f)
{
	free(f->path);
	free(f->target);
	free(f->temp);
	f->path = f->target = f->temp = NULL;
	f->fd = -1;
}

int
wm_outfile_open(struct wm_outfile *f, const char *what, const char *path,
		bool atomic, char *err, size_t errlen)
{
	struct target t;
	struct stat st;
	int r;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->what = what;
	if (strcmp(path, "-") == 0) {
		f->fd = STDOUT_FILENO;
		f->path = strdup(path);
		return f->path != NULL ? 0
				       : fail(err, errlen, ENOMEM, what, path);
	}
	r = resolve(what, path, &t, err, errlen);
	if (r != 0)
		return r;
	f->path = strdup(path);
	f->target = strdup(t.path);
	if (f->path == NULL || f->target == NULL) {
		r = fail(err, errlen, ENOMEM, what, path);
		goto out;
	}
	if (t.special) {
		/* A reader (FIFO), a device: it is there to be written. In a
		 * shared directory, not through a link put there since. */
		f->fd = open(t.path, O_WRONLY | O_NOCTTY | O_CLOEXEC |
					     (t.shared ? O_NOFOLLOW : 0));
		if (f->fd < 0)
			r = fail(err, errlen, errno, what, path);
		goto out;
	}
	if (!t.shared && !atomic) {
		/* Read too: close cuts a half-written last line. */
		f->fd = open(t.path,
			     O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_NOCTTY |
				     O_CLOEXEC,
			     0666);
		if (f->fd < 0) {
			r = fail(err, errlen, errno, what, path);
			goto out;
		}
	} else {
		r = make_temp(f, t.path, err, errlen);
		if (r != 0)
			goto out;
		/* In place at once unless atomic: the path names our file
		 * now, whatever it named before. */
		if (!atomic) {
			if (rename(f->temp, t.path) != 0) {
				r = fail(err, errlen, errno, what, path);
				unlink(f->temp);
				goto out;
			}
			free(f->temp);
			f->temp = NULL;
		}
	}
	if (fstat(f->fd, &st) != 0) {
		r = fail(err, errlen, errno, what, path);
		if (f->temp != NULL)
			unlink(f->temp);
		goto out;
	}
	f->created = true;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
out:
	if (r != 0) {
		if (f->fd >= 0)
			close(f->fd);
		forget(f);
	} else {
		check_open(f);
	}
	return r;
}

int
wm_outfile_probe(const char *what, const char *path, char *err, size_t errlen)
{
	struct wm_outfile f;
	struct target t;
	int r;

	if (strcmp(path, "-") == 0)
		return 0;
	r = resolve(what, path, &t, err, errlen);
	if (r != 0)
		return r;
	/* Opening a FIFO would wait for its reader: ask instead. */
	if (t.special)
		return access(t.path, W_OK) == 0
			       ? 0
			       : fail(err, errlen, errno, what, path);
	r = wm_outfile_open(&f, what, path, true, err, errlen);
	if (r == 0)
		wm_outfile_discard(&f);
	return r;
}

int
wm_outfile_write(struct wm_outfile *f, const void *buf, size_t len)
{
	const char *p = buf;

	check_open(f);
	if (f->error != 0)
		return -f->error;
	while (len > 0) {
		ssize_t w = write(f->fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			/* write() returns 0 only for a zero length; take it
			 * as a full disk rather than loop. */
			f->error = w < 0 ? errno : ENOSPC;
			return -f->error;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

const char *
wm_outfile_name(const struct wm_outfile *f, char *buf, size_t len)
{
	if (strcmp(f->path, "-") == 0)
		snprintf(buf, len, "standard output");
	else
		snprintf(buf, len, "\"%s\"", f->path);
	return buf;
}

int
wm_outfile_sync(struct wm_outfile *f)
{
	check_open(f);
	if (f->error != 0)
		return -f->error;
	if (fsync(f->fd) != 0 && errno != EINVAL && errno != EROFS)
		f->error = errno;
	return -f->error;
}

int
wm_outfile_sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) != 0 && errno != EINVAL)
		r = -errno;
	close(fd);
	return r;
}

off_t
wm_outfile_size(const struct wm_outfile *f)
{
	struct stat st;

	if (fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	return st.st_size;
}

/* Whether our file is still the one at its path (nobody renamed another
 * over it): only then may it be removed. */
static bool
still_ours(const struct wm_outfile *f)
{
	struct stat st;

	return lstat(f->target, &st) == 0 && st.st_dev == f->dev &&
	       st.st_ino == f->ino;
}

/* Cut a regular file after its last '\n': a write that failed part way
 * (a full disk) may have left the start of a line. Reads back from the
 * end in blocks; the file is ours and no one writes it any more. */
static int
cut_at_line_end(int fd)
{
	char block[4096];
	off_t end = lseek(fd, 0, SEEK_END);

	if (end <= 0)
		return end < 0 ? -errno : 0;
	for (off_t at = end; at > 0;) {
		size_t n =
			at < (off_t)sizeof(block) ? (size_t)at : sizeof(block);
		ssize_t got = pread(fd, block, n, at - (off_t)n);

		if (got != (ssize_t)n)
			return got < 0 ? -errno : -EIO;
		for (size_t i = n; i > 0; i--)
			if (block[i - 1] == '\n') {
				off_t keep = at - (off_t)n + (off_t)i;

				if (keep == end)
					return 0;
				return ftruncate(fd, keep) == 0 ? 0 : -errno;
			}
		at -= (off_t)n;
	}
	return ftruncate(fd, 0) == 0 ? 0 : -errno;
}

int
wm_outfile_close(struct wm_outfile *f, bool keep, char *err, size_t errlen)
{
	int r = f->error != 0 ? -f->error : 0;
	char name[PATH_MAX + 2];

	if (f->path == NULL)
		return 0;
	check_open(f);
	wm_outfile_name(f, name, sizeof(name));
	if (f->temp != NULL) {
		wm_outfile_discard(f);
		return 0;
	}
	if (f->created && !keep) {
		if (still_ours(f))
			unlink(f->target);
	} else if (f->created) {
		int cut = cut_at_line_end(f->fd);

		if (r == 0)
			r = cut;
	}
	if (f->fd != STDOUT_FILENO && close(f->fd) != 0 && r == 0)
		r = -errno;
	if (r != 0)
		snprintf(err, errlen, "could not write %s %s: %s", f->what,
			 name, strerror(-r));
	forget(f);
	return r;
}

void
wm_outfile_hand_over(struct wm_outfile *f)
{
	if (f->path == NULL)
		return;
	if (f->fd != STDOUT_FILENO)
		close(f->fd);
	forget(f);
}

int
wm_outfile_commit(struct wm_outfile *f, char *err, size_t errlen)
{
	char name[PATH_MAX + 2];
	int r = f->error != 0 ? -f->error : 0;

	check_open(f);
	wm_outfile_name(f, name, sizeof(name));
	if (f->temp == NULL) /* a stream: written as it went */
		return wm_outfile_close(f, true, err, errlen);
	/* Its data on disk before its name: a crash after the rename must not
	 * leave an empty file where the old one was. */
	if (r == 0 && fsync(f->fd) != 0 && errno != EINVAL)
		r = -errno;
	if (close(f->fd) != 0 && r == 0)
		r = -errno;
	f->fd = -1;
	if (r == 0 && rename(f->temp, f->target) != 0)
		r = -errno;
	if (r != 0) {
		snprintf(err, errlen, "could not write %s %s: %s", f->what,
			 name, strerror(-r));
		unlink(f->temp);
	}
	forget(f);
	return r;
}

void
wm_outfile_discard(struct wm_outfile *f)
{
	if (f->temp != NULL)
		unlink(f->temp);
	if (f->fd >= 0 && f->fd != STDOUT_FILENO)
		close(f->fd);
	forget(f);
}

int
wm_outfile_open_kept(struct wm_outfile *f, const char *what, const char *path,
		     char *err, size_t errlen)
{
	struct target t;
	int r;

	if (strcmp(path, "-") == 0)
		return wm_outfile_open(f, what, path, false, err, errlen);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->what = what;
	r = resolve(what, path, &t, err, errlen);
	if (r != 0)
		return r;
	if (!t.exists)
		return fail(err, errlen, ENOENT, what, path);
	f->path = strdup(path);
	f->target = strdup(t.path);
	if (f->path == NULL || f->target == NULL) {
		forget(f);
		return fail(err, errlen, ENOMEM, what, path);
	}
	/* As it is, never through a link planted in a shared directory;
	 * read too, as any output (close cuts a half-written line). */
	f->fd = open(t.path, (t.special ? O_WRONLY : O_RDWR | O_APPEND) |
				     O_NOCTTY | O_CLOEXEC |
				     (t.shared ? O_NOFOLLOW : 0));
	if (f->fd < 0) {
		r = fail(err, errlen, errno, what, path);
		forget(f);
		return r;
	}
	check_open(f);
	return 0;
}
