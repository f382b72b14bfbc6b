/*
 * write_all.h
 *	All of a buffer to a file descriptor: a terminal, a pipe or a file
 *	may take part of a write, and the rest must follow.
 */
#ifndef WM_BASE_WRITE_ALL_H
#define WM_BASE_WRITE_ALL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>

/* buf[0..len) to fd, retrying a write a signal cut short; false when fd
 * takes no more (errno says why, or 0 bytes were taken). */
static inline bool
wm_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

#endif /* WM_BASE_WRITE_ALL_H */
