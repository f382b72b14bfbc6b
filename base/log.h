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
#ifndef WM_BASE_LOG_H
#define WM_BASE_LOG_H

#include <stdarg.h>
#include <stddef.h>

/* The longest line written whole; a longer message is cut, ending "...".
 * PIPE_BUF on Linux. */
#define WM_LOG_LINE_MAX 4096

/*
 * `n` bytes at `s` as a terminal may show them, in buf (cut at `len`,
 * never inside an escape or a UTF-8 sequence), which it returns: every
 * control character, C0 (tab included), DEL and C1 (U+0080 to U+009F),
 * and every byte that is not part of well-formed UTF-8, as \xNN; the rest
 * as it is. Text from input (a key, a name, a value, a path) never
 * reaches a terminal raw: ESC starts sequences that set the window title
 * or the clipboard (OSC 0, OSC 52), and U+009B is a one-byte CSI on some
 * terminals. wm_vlog() applies it to every line it writes; a message
 * built elsewhere applies it to the input it echoes.
 */
char *wm_log_escape(char *buf, size_t len, const char *s, size_t n);

/* One line, `fmt` without its '\n', escaped (wm_log_escape()). errno is
 * left as it was. */
void wm_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The same with `prefix` in front ("wmrun[window/0]: error: "). */
void wm_vlog(const char *prefix, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif /* WM_BASE_LOG_H */
