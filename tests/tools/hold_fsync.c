/*
 * hold_fsync.c
 *	LD_PRELOAD=hold_fsync.so WM_HOLD_FSYNC=PATH COMMAND: while the file
 *	PATH exists, every fsync() of the process COMMAND became (not of
 *	the processes it forks) waits, as on a disk that takes its time;
 *	the first one that waits creates PATH.held, so that a test knows
 *	one is held. Without PATH, fsync() is the system's.
 *
 * A test of what goes on while a checkpoint's writes are on the disk: the
 * supervisor's own thread must not be the one waiting (coordinator.c).
 * The process is told apart from its children by its pid, taken when the
 * library is loaded: a forked child inherits the number, not the pid.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pid_t loaded_by;

__attribute__((constructor)) static void
remember_the_process(void)
{
	loaded_by = getpid();
}

/* Whether `path` names an existing file (errno kept: fsync's caller
 * reads it). */
static int
exists(const char *path)
{
	int saved = errno, r = access(path, F_OK) == 0;

	errno = saved;
	return r;
}

static void
hold_while(const char *hold)
{
	char held[4096];
	int fd;

	if (snprintf(held, sizeof(held), "%s.held", hold) >= (int)sizeof(held))
		return;
	fd = open(held, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	while (exists(hold))
		nanosleep(&(struct timespec){0, 10000000}, NULL);
}

int
fsync(int fd)
{
	const char *hold = getenv("WM_HOLD_FSYNC");

	if (hold != NULL && getpid() == loaded_by && exists(hold))
		hold_while(hold);
	return (int)syscall(SYS_fsync, fd);
}
