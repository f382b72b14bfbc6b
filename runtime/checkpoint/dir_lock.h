/*
 * dir_lock.h
 *	A checkpoint directory owned by one running job: a lock on
 *	DIR/_lock that a second job fails to take, naming its holder's pid.
 *
 * Two jobs writing into one directory would number their checkpoints
 * after each other's, delete each other's as retention goes, and commit
 * or delete each other's parts (part_commit.h): each would report success
 * over results the other destroyed. So a job takes the lock before it
 * creates anything (its outputs, its parts, a checkpoint) and holds it
 * until its last file is closed; a second job is refused at once.
 *
 * Invariants:
 *
 *  - The lock is a POSIX record lock (fcntl F_SETLK) on the whole of
 *    DIR/_lock: the kernel drops it when its process dies, however it
 *    dies, so a lock left by a dead job never blocks; and a fork does not
 *    inherit it, so the supervisor alone holds it, and a worker killed or
 *    forked again (a restart of the same job) changes nothing.
 *  - DIR/_lock is opened without following a link (O_NOFOLLOW) and must
 *    be a regular file: a link or FIFO planted there is refused, never
 *    written through. It holds the holder's pid, for people; the kernel
 *    says who holds the lock (F_GETLK), whatever the file says.
 *  - A process that closes any descriptor of the file loses its lock
 *    (POSIX): only this module opens it.
 */
#ifndef WM_RUNTIME_CHECKPOINT_DIR_LOCK_H
#define WM_RUNTIME_CHECKPOINT_DIR_LOCK_H

#include <stdbool.h>
#include <stddef.h>

/* The lock file's name in the checkpoint directory. */
#define WM_DIR_LOCK_NAME "_lock"

/*
 * Take the lock of checkpoint directory `dir`: *fd the descriptor that
 * holds it (close it with wm_dir_lock_release()). With `create`, a
 * missing `dir` is made (one level, durable in its parent, as the store
 * would make it); without (a resume), it is -ENOENT and nothing is made.
 * 0, or a negative errno with a message naming the directory: -EBUSY
 * another running process holds it (its pid in the message), -ENOENT,
 * -ELOOP or -EINVAL (a link or not a regular file at DIR/_lock), another
 * errno for a directory or file that could not be made.
 */
int wm_dir_lock_take(const char *dir, bool create, int *fd, char *err,
		     size_t errlen);

/* Give the lock up (fd < 0: none taken). */
void wm_dir_lock_release(int fd);

#endif /* WM_RUNTIME_CHECKPOINT_DIR_LOCK_H */
