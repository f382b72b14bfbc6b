/*
 * lines.h
 *	Text files read line by line with a bound on a line, for the trace
 *	readers (runtime/replay.c, runtime/trace.c): getline() grows its
 *	buffer to the longest line, so a file without line ends (a binary
 *	file named by mistake, /dev/zero) takes all memory before its first
 *	line can be refused.
 */
#ifndef WM_RUNTIME_LINES_H
#define WM_RUNTIME_LINES_H

#include <stddef.h>
#include <stdio.h>

/*
 * The next line of f, its '\n' included and NUL bytes kept, into buf
 * (max + 1 bytes: a NUL is written after the line). Returns its length; 0
 * at the end of the file or on a read error (feof() tells); max + 1 for a
 * longer line, of which max bytes are in buf and the rest is left unread
 * (wm_line_skip()).
 */
size_t wm_line_read(FILE *f, char *buf, size_t max);

/* Read the rest of the line. */
void wm_line_skip(FILE *f);

#endif /* WM_RUNTIME_LINES_H */
