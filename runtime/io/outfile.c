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

/*
 * Whether another user could replace `entry`, a name in directory `dir`
 * (rename it away and put a link or a directory of theirs there), after
 * lstat() of it into *lst: `dir` belongs to another user (root excepted),
 * who may rename anything in it; or others may write `dir` and it is not
 * sticky, or the entry is neither ours nor root's (in a sticky directory
 * only an entry's owner, the directory's and root may rename it: the rule
 * the kernel's fs.protected_symlinks applies to links). An entry that is
 * not there says nothing: opening below it fails on its own.
 */
static bool
replaceable(const char *entry, const char *dir, struct stat *lst)
{
	struct stat dst;
	uid_t me = geteuid();

	if (lstat(entry, lst) != 0 || stat(dir, &dst) != 0)
		return false;
	if (dst.st_uid != me && dst.st_uid != 0)
		return true;
	if (!(dst.st_mode & (S_IWGRP | S_IWOTH)))
		return false;
	return !(dst.st_mode & S_ISVTX) ||
	       (lst->st_uid != me && lst->st_uid != 0);
}

/* Refuse `dir`, the directory of output `path`, if a component of it
 * after its first `from` bytes is one that another user could replace
 * (replaceable()): 0 or -ELOOP with a message. "." and ".." are left to
 * the check of the real path. */
static int
check_components(const char *what, const char *path, const char *dir,
		 size_t from, char *err, size_t errlen)
{
	char entry[PATH_MAX], parent[PATH_MAX];
	size_t len = strlen(dir);

	for (size_t end = from; end <= len; end++) {
		struct stat lst;
		size_t start;

		if (end < len && dir[end] != '/')
			continue;
		for (start = end; start > 0 && dir[start - 1] != '/'; start--)
			;
		if (end == start || (end - start == 1 && dir[start] == '.') ||
		    (end - start == 2 && dir[start] == '.' &&
		     dir[start + 1] == '.'))
			continue;
		snprintf(entry, sizeof(entry), "%.*s", (int)end, dir);
		if (!replaceable(
			    entry,
			    wm_outfile_dir_of(entry, parent, sizeof(parent)),
			    &lst))
			continue;
		snprintf(err, errlen,
			 "could not open %s \"%s\": refusing to %s \"%s\", "
			 "which another user can replace",
			 what, path,
			 S_ISLNK(lst.st_mode) ? "follow symbolic link"
					      : "write below directory",
			 entry);
		return -ELOOP;
	}
	return 0;
}

/*
 * The rule of outfile.h for the directories above `path`: every component
 * of its directory as written, and of that directory's real path (where
 * its links lead), must be one no other user can replace. What was
 * checked then stays as it was until the file is opened (no other user
 * can change it), so the check is no race. A relative path starts at the
 * working directory, which is trusted as it is: it is held by inode, not
 * by name. 0 or -ELOOP with a message naming `shown`.
 */
static int
check_dirs(const char *what, const char *shown, const char *path, char *err,
	   size_t errlen)
{
	char dir[PATH_MAX], real[PATH_MAX], cwd[PATH_MAX];
	size_t from = 0;
	int r;

	wm_outfile_dir_of(path, dir, sizeof(dir));
	r = check_components(what, shown, dir, 0, err, errlen);
	if (r != 0 || realpath(dir, real) == NULL)
		return r;
	if (path[0] != '/' && realpath(".", cwd) != NULL) {
		size_t n = strlen(cwd);

		if (strcmp(real, cwd) == 0)
			return 0;
		if (strncmp(real, cwd, n) == 0 && real[n] == '/')
			from = n + 1;
	}
	return check_components(what, shown, real, from, err, errlen);
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

/* Decide on t->path as if it had been named, not as a link: its
 * directories checked (check_dirs(), naming `path`) and whether the one
 * it is in is shared. What resolve() does for `path` and again for where
 * a link of ours leads. */
static int
settle(struct target *t, const char *what, const char *path, char *err,
       size_t errlen)
{
	char dir[PATH_MAX];
	int r = check_dirs(what, path, t->path, err, errlen);

	if (r != 0)
		return r;
	t->shared = shared_dir(wm_outfile_dir_of(t->path, dir, sizeof(dir)));
	t->link = false;
	return 0;
}

static int
resolve(const char *what, const char *path, struct target *t, char *err,
	size_t errlen)
{
	struct stat lst, st;
	int r;

	memset(t, 0, sizeof(*t));
	if (snprintf(t->path, sizeof(t->path), "%s", path) >=
	    (int)sizeof(t->path))
		return fail(err, errlen, ENAMETOOLONG, what, path);
	r = settle(t, what, path, err, errlen);
	if (r != 0)
		return r;
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
			r = settle(t, what, path, err, errlen);
			if (r != 0)
				return r;
			if (lstat(t->path, &st) != 0)
				return fail(err, errlen, errno, what, path);
			t->exists = true;
		} else {
			/* A dangling link of ours: the file to create is where
			 * it leads, decided there as if it had been named. */
			char to[PATH_MAX], dir[PATH_MAX];
			ssize_t n = readlink(path, to, sizeof(to) - 1);

			if (n < 0)
				return fail(err, errlen, errno, what, path);
			to[n] = '\0';
			if (to[0] == '/')
				snprintf(t->path, sizeof(t->path), "%s", to);
			else if (snprintf(t->path, sizeof(t->path), "%s/%s",
					  wm_outfile_dir_of(path, dir,
							    sizeof(dir)),
					  to) >= (int)sizeof(t->path))
				return fail(err, errlen, ENAMETOOLONG, what,
					    path);
			t->exists = false;
			return settle(t, what, path, err, errlen);
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
wm_outfile_sync_dir(const char *dir, char *err, size_t errlen)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int e = 0;

	if (fd < 0) {
		e = errno;
	} else {
		if (fsync(fd) != 0 && errno != EINVAL)
			e = errno;
		close(fd);
	}
	if (e != 0)
		snprintf(err, errlen, "could not sync directory \"%s\": %s",
			 dir, strerror(e));
	return -e;
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
