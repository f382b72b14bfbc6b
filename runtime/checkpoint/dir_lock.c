/*
 * dir_lock.c
 *	One running job per checkpoint directory (dir_lock.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/checkpoint/dir_lock.h"
#include "runtime/io/outfile.h"

/* Open DIR/_lock (`path`), DIR made first with `create`: the descriptor,
 * or a negative errno with a message. */
static int
open_lock_file(const char *dir, const char *path, bool create, char *err,
	       size_t errlen)
{
	char parent[PATH_MAX];
	int fd, e;

	if (create && mkdir(dir, 0777) == 0) {
		/* Its name durable, as the store makes it (one level). */
		wm_outfile_dir_of(dir, parent, sizeof(parent));
		e = -wm_outfile_sync_dir(parent, err, errlen);
		if (e != 0)
			return -e;
	} else if (create && errno != EEXIST) {
		e = errno;
		snprintf(err, errlen,
			 "could not create checkpoint directory \"%s\": %s",
			 dir, strerror(e));
		return -e;
	}
	/* O_NONBLOCK: a FIFO planted there must not hang the job; it is
	 * refused as any other file that is not a regular one. */
	fd = open(path,
		  O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
			  O_CLOEXEC,
		  0666);
	e = errno;
	if (fd < 0 && e == ENOENT && !create)
		snprintf(err, errlen,
			 "no complete checkpoint to resume from in \"%s\": %s",
			 dir, strerror(e));
	else if (fd < 0)
		snprintf(err, errlen,
			 "could not open the lock of checkpoint directory "
			 "\"%s\": \"%s\" %s",
			 dir, path,
			 e == ELOOP ? "is a symbolic link" : strerror(e));
	return fd < 0 ? -e : fd;
}

int
wm_dir_lock_take(const char *dir, bool create, int *fd, char *err,
		 size_t errlen)
{
	struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	char path[PATH_MAX], pid[32];
	struct stat st;
	int n, e;

	*fd = -1;
	n = snprintf(path, sizeof(path), "%s/" WM_DIR_LOCK_NAME, dir);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		snprintf(err, errlen, "invalid checkpoint directory \"%s\": %s",
			 dir, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	n = open_lock_file(dir, path, create, err, errlen);
	if (n < 0)
		return n;
	if (fstat(n, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(n);
		snprintf(err, errlen,
			 "could not open the lock of checkpoint directory "
			 "\"%s\": \"%s\" is not a regular file",
			 dir, path);
		return -EINVAL;
	}
	while (fcntl(n, F_SETLK, &lk) != 0) {
		e = errno;
		if (e != EAGAIN && e != EACCES) {
			close(n);
			snprintf(err, errlen,
				 "could not lock checkpoint directory \"%s\": "
				 "%s",
				 dir, strerror(e));
			return -e;
		}
		/* Who holds it. If it went meanwhile, take it after all:
		 * its holder ended. */
		lk = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET};
		if (fcntl(n, F_GETLK, &lk) == 0 && lk.l_type == F_UNLCK) {
			lk.l_type = F_WRLCK;
			continue;
		}
		close(n);
		snprintf(err, errlen,
			 "checkpoint directory \"%s\" is in use by another job "
			 "(pid %jd holds \"%s\"): a directory takes one "
			 "running job",
			 dir, (intmax_t)lk.l_pid, path);
		return -EBUSY;
	}
	/* For people: the kernel, not the file, says who holds the lock.
	 * A write that fails (a full disk) leaves the lock held all the
	 * same. */
	e = snprintf(pid, sizeof(pid), "%jd\n", (intmax_t)getpid());
	if (ftruncate(n, 0) == 0 && pwrite(n, pid, (size_t)e, 0) < 0)
		e = 0;
	*fd = n;
	return 0;
}

void
wm_dir_lock_release(int fd)
{
	if (fd >= 0)
		close(fd);
}
