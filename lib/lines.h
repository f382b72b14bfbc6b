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

#include <stdbool.h>
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

/*
 * The same lines as wm_line_read() with bound max, read a block at a
 * time: the byte-at-a-time loop of getc() costs more than parsing the
 * line. The buffer holds a block and one line more (max + 2 bytes: a line
 * of max bytes and its CRLF); the bytes are searched for line ends with
 * memchr(), and a search's result kept until the line ends pass it, so
 * that every byte is searched once for each of '\n', '\r' and NUL, in
 * long runs.
 */
struct wm_line_blocks {
	FILE *f;
	char *buf;
	size_t size; /* of buf */
	size_t max;
	size_t pos, end; /* the unread bytes, buf[pos..end) */
	/* The next '\n', '\r' and NUL in buf[pos..end), each end when there
	 * is none; searched again once pos passes them. */
	size_t nl, cr, nul;
	/* The end of the lines wm_line_blocks_ahead() gave last, kept
	 * until pos reaches it or a fill moves the bytes (0 then): a reader
	 * that takes some of them and leaves one for wm_line_blocks_next()
	 * is given the rest without a search again. */
	size_t ahead;
	bool skip; /* the rest of a longer line is to be read past */
	bool eof;  /* no more bytes after end */
	int error; /* the errno of a failed read, 0 if none */
};

/* Lines of f with bound max, read `block` bytes at a time (block >= 1).
 * 0, or -ENOMEM. */
int wm_line_blocks_open(struct wm_line_blocks *lb, FILE *f, size_t max,
			size_t block);
void wm_line_blocks_close(struct wm_line_blocks *lb);

/*
 * The next line: returns its length as wm_line_read() does (0 at the end
 * of the file or after a read error, which lb->error tells; max + 1 for a
 * longer line), *line pointing at its bytes (max of them for a longer
 * line, whose rest is read past by the next call), valid until the next
 * call; *nul is set when they hold a NUL byte.
 */
size_t wm_line_blocks_next(struct wm_line_blocks *lb, const char **line,
			   bool *nul);

/*
 * The whole lines ahead that need no decision: the unread bytes up to
 * and including the last '\n' before the next '\r' or NUL, or before the
 * end of what is read. Returns their count (0: none, the next line is for
 * wm_line_blocks_next(), which reads more), *lines pointing at them. Each
 * line among them ends with '\n' and is what wm_line_blocks_next() would
 * return but for its bound: a reader that takes lines here takes only
 * those it knows are short, and says how many bytes with
 * wm_line_blocks_consume(). A reader of millions of short lines finds
 * their ends as it reads their bytes, not by a call and a search a line.
 */
size_t wm_line_blocks_ahead(struct wm_line_blocks *lb, const char **lines);
/* Past `n` bytes of the lines wm_line_blocks_ahead() gave: whole lines,
 * read by the caller. */
static inline void
wm_line_blocks_consume(struct wm_line_blocks *lb, size_t n)
{
	lb->pos += n;
}
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
