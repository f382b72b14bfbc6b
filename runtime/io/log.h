/*
 * log.h
 *	Messages on standard error, one whole line per write(2).
 *
 * A job is many processes sharing one stderr: the supervisor and every
 * worker. stdio writes an unbuffered stream in pieces (a message built
 * with three calls is three writes), and pieces of lines from different
 * processes then run into each other. Here a line is formatted in full,
 * its '\n' included, and handed to the kernel in one call; a write of at
 * most PIPE_BUF bytes to a pipe is atomic, and so is a line written to a
 * terminal or a file by one call, so lines never mix.
 */
#ifndef WM_RUNTIME_LOG_H
#define WM_RUNTIME_LOG_H

#include <stdarg.h>

/* The longest line written whole; a longer message is cut, ending "...".
 * PIPE_BUF on Linux. */
#define WM_LOG_LINE_MAX 4096

/* One line, `fmt` without its '\n'. errno is left as it was. */
void wm_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The same with `prefix` in front ("wmrun[window/0]: error: "). */
void wm_vlog(const char *prefix, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif /* WM_RUNTIME_LOG_H */
