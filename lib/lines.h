/*
 * lines.h
 *	Text files read line by line with a bound on a line, for the trace
 *	readers (runtime/source/replay.c, tools/wmconform/trace.c): getline() grows its
 *	buffer to the longest line, so a file without line ends (a binary
 *	file named by mistake, /dev/zero) takes all memory before its first
 *	line can be refused.
 *
 * A line ends with "\n", "\r\n" or a lone "\r", as files from Unix,
 * Windows and old Mac editors do, mixed as they come: "a\r\r\nb" is the
 * lines "a\r", "\r\n" and "b". A CR-only file read by '\n' alone is one
 * line, which a reader takes for its first and refuses or, worse, skips.
 *
 * Within a line, the blanks between tokens are spaces and tabs, the same
 * for every reader of a line's text (wm_line_skip_blanks()): the trace's
 * header and fields, JSON values, the sections record_trace.c rewrites.
 */
#ifndef WM_LIB_LINES_H
#define WM_LIB_LINES_H

#include <stddef.h>
#include <stdio.h>

/*
 * The next line of f, its end included and NUL bytes kept, into buf (max
 * + 1 bytes: a NUL is written after the line). Returns its length; 0 at
 * the end of the file or on a read error (feof() tells); max + 1 for a
 * longer line, of which max bytes are in buf and the rest is left unread
 * (wm_line_skip()). A line of max bytes before its end fits: the end is
 * read, not stored.
 */
size_t wm_line_read(FILE *f, char *buf, size_t max);

/* Read the rest of the line, its end included. */
void wm_line_skip(FILE *f);

/* The first byte of [p, end) that is not a blank (a space or a tab), or
 * end: what the readers of a line's tokens step over. */
static inline const char *
wm_line_skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

#endif /* WM_LIB_LINES_H */
