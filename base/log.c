/*
 * log.c
 *	Whole-line messages on standard error (log.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/utf8.h"
#include "base/log.h"
#include "base/write_all.h"

char *
wm_log_escape(char *buf, size_t len, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t o = 0, i = 0;

	if (len == 0)
		return buf;
	while (i < n) {
		size_t k = wm_utf8_seq(u + i, n - i);

		if (k == 0 || wm_utf8_control(u + i, k)) {
			if (o + 5 > len)
				break;
			snprintf(buf + o, len - o, "\\x%02x", u[i]);
			o += 4;
			i++;
			continue;
		}
		if (o + k + 1 > len)
			break;
		memcpy(buf + o, u + i, k);
		o += k;
		i += k;
	}
	buf[o] = '\0';
	return buf;
}

void
wm_vlog(const char *prefix, const char *fmt, va_list ap)
{
	char raw[WM_LOG_LINE_MAX], line[WM_LOG_LINE_MAX];
	int saved = errno;
	size_t len = 0, room = sizeof(line) - 1; /* one byte for '\n' */
	int n;

	n = snprintf(raw, room + 1, "%s", prefix);
	len = n < 0 ? 0 : (size_t)n < room ? (size_t)n : room;
	n = vsnprintf(raw + len, room + 1 - len, fmt, ap);
	if (n > 0)
		len = len + (size_t)n < room ? len + (size_t)n : room;
	if (len == room)
		memcpy(raw + room - 3, "...", 3); /* cut: say so */
	len = strlen(wm_log_escape(line, room + 1, raw, len));
	if (len == room)
		memcpy(line + room - 3, "...", 3); /* cut: say so */
	line[len++] = '\n';
	/* A pipe takes a write of PIPE_BUF bytes whole or not at all; a
	 * terminal or file may take part of it, and the rest follows. A
	 * failure has nowhere to be reported. */
	(void)wm_write_all(STDERR_FILENO, line, len);
	errno = saved;
}

void
wm_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	wm_vlog("", fmt, ap);
	va_end(ap);
}
