/*
 * schedstat.c
 *	A process's run delay from /proc (schedstat.h).
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "base/schedstat.h"

int
wm_schedstat_open(pid_t pid)
{
	char path[64];

	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/schedstat");
	else
		snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	return open(path, O_RDONLY | O_CLOEXEC);
}

bool
wm_schedstat_read(int fd, int64_t *waited_ns)
{
	char buf[128];
	long long ran, waited;
	ssize_t n;

	if (fd < 0)
		return false;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if (sscanf(buf, "%lld %lld", &ran, &waited) != 2 || waited < 0)
		return false;
	*waited_ns = waited;
	return true;
}
