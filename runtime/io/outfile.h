/*
 * outfile.h
 *	The files wmrun writes (sinks, late side outputs, the --summary
 *	file): created without following anyone's links, written with every
 *	error seen, and left either complete, cut at a whole line, or gone.
 *
 * Where a file goes decides how it is opened:
 *
 *   "-"                    standard output
 *   an existing FIFO,      written as it is (a reader, /dev/null, a
 *   device or socket       terminal); through a symbolic link only in a
 *                          directory that no one else can write
 *   a regular file, or     created afresh: in a directory no one else
 *   nothing yet            can write (owned by us or root, not group or
 *                          world writable), opened and truncated as any
 *                          program would, links followed; in any other
 *                          directory (/tmp, another user's) a new file
 *                          is made under a random name with O_EXCL, which
 *                          never follows a link, and renamed over the path,
 *                          which replaces a planted link or hard link
 *                          instead of writing through it
 *
 * Above the file, no directory may be one that another user could
 * replace: every component of its directory, as written and where its
 * links lead, must lie in a directory that no one else can write, or in a
 * sticky one (/tmp) and be ours or root's (only an entry's owner, the
 * directory's and root may rename it there: the kernel's
 * fs.protected_symlinks rule, applied to every component, links and
 * directories alike), and no directory on the way may belong to another
 * user (root excepted). Otherwise the open is refused (-ELOOP: "refusing
 * to follow symbolic link "/tmp/d", which another user can replace").
 * Nothing checked can then change before the open, so the check is no
 * race. A relative path starts at the working directory, trusted as it is.
 *
 * So a root job writing into /tmp cannot be made to overwrite a file
 * that a link planted by another user points at, at the file's name or at
 * any directory above it, even where the kernel's fs.protected_symlinks
 * is off. A new file gets mode 0666 less the umask,
 * as fopen() gives.
 *
 * An `atomic` file (the summary) is written under the random name in the
 * same directory and renamed into place only by wm_outfile_commit(): it is
 * whole or absent, never empty or half written, whatever stops the job.
 *
 * Writes take whole buffers; the first failure is kept (its errno) and
 * every later write is refused with it, so a caller may check once.
 */
#ifndef WM_RUNTIME_IO_OUTFILE_H
#define WM_RUNTIME_IO_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct wm_outfile {
	int fd;
	char *path;   /* as given, for messages; "-": standard output */
	char *target; /* the file meant: path, or where our link leads */
	char *temp;   /* atomic: the random name written until commit */
	bool created; /* a regular file made by this open */
	dev_t dev;    /* of the file made, to remove only that one */
	ino_t ino;
	int error;	  /* errno of the first failed write, 0 */
	const char *what; /* "output file", "summary file": for messages */
};

/*
 * Open `path`, an output a resumed job goes on writing (wmrun --resume):
 * as it is, neither created nor truncated, appended to (a FIFO or device
 * written as above). Missing: -ENOENT with the message. The file is then
 * not the job's own to remove at a failure.
 */
int wm_outfile_open_kept(struct wm_outfile *f, const char *what,
			 const char *path, char *err, size_t errlen);

/*
 * Open `path`, a `what` ("output file": a static string, named in
 * messages), for writing as described above. 0, or a negative errno with
 * a message in err ('could not open output file "x": reason').
 */
int wm_outfile_open(struct wm_outfile *f, const char *what, const char *path,
		    bool atomic, char *err, size_t errlen);

/*
 * Whether `path` could be opened by wm_outfile_open(f, path, true, ...)
 * later, without creating anything that stays: for a file written only at
 * the end (the summary), checked before hours of running. 0 or a negative
 * errno with a message.
 */
int wm_outfile_probe(const char *what, const char *path, char *err,
		     size_t errlen);

/* Write all `len` bytes (retrying short writes and EINTR): 0, or the
 * negative errno of the first failure, now or before. */
int wm_outfile_write(struct wm_outfile *f, const void *buf, size_t len);

/* "standard output" or the path quoted, for messages. */
const char *wm_outfile_name(const struct wm_outfile *f, char *buf, size_t len);

/*
 * Close. `keep` false: a file this open created is removed again (if it
 * is still the file at its path), for an output the job never wrote
 * anything into. A regular file kept is first cut after its last line end,
 * so that a failed write never leaves half a line. atomic: commit or
 * discard instead (below). 0, or a negative errno with a message.
 */
int wm_outfile_close(struct wm_outfile *f, bool keep, char *err, size_t errlen);

/* After a fork that handed the file to the child, which writes and closes
 * it: this process's descriptor and names go, nothing on disk changes. */
void wm_outfile_hand_over(struct wm_outfile *f);

/* atomic: make the file written so far the file at its path (rename), or
 * remove it. Both close it. 0, or a negative errno with a message. */
int wm_outfile_commit(struct wm_outfile *f, char *err, size_t errlen);
void wm_outfile_discard(struct wm_outfile *f);

/* Make what was written durable (fsync; a stream, or a file system that
 * cannot sync, has nothing to do): 0, or the negative errno, also kept as
 * the file's first error. */
int wm_outfile_sync(struct wm_outfile *f);

/* Make the names in directory `dir` durable: a file made, renamed or
 * removed in it. A file system that cannot sync a directory (EINVAL) has
 * nothing more to do. 0, or a negative errno with "could not sync
 * directory" and why in err. */
int wm_outfile_sync_dir(const char *dir, char *err, size_t errlen);

/* Bytes in the file now (its size; 0 for a stream). */
off_t wm_outfile_size(const struct wm_outfile *f);

/* The directory part of `path` ("." for a bare name, "/" for one in the
 * root), in buf, which it returns. */
const char *wm_outfile_dir_of(const char *path, char *buf, size_t len);

#endif /* WM_RUNTIME_IO_OUTFILE_H */
