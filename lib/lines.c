/*
 * lines.c
 *	Bounded line reading (lines.h).
 */
#include "config.h"

#include <stdbool.h>

#include "lib/lines.h"

/* After a '\r': whether a '\n' followed, read as part of the line end;
 * anything else is the next line's, left unread. */
static bool
after_cr(FILE *f)
{
	int c = getc_unlocked(f);

	if (c == '\n')
		return true;
	if (c != EOF)
		ungetc(c, f);
	return false;
}

size_t
wm_line_read(FILE *f, char *buf, size_t max)
{
	size_t n = 0;
	int c;

	while (n < max && (c = getc_unlocked(f)) != EOF) {
		buf[n++] = (char)c;
		if (c == '\n')
			break;
		/* The '\n' of a "\r\n" is stored when there is room. */
		if (c == '\r') {
			if (after_cr(f) && n < max)
				buf[n++] = '\n';
			break;
		}
	}
	if (n == max && buf[n - 1] != '\n' && buf[n - 1] != '\r') {
		/* Full: a line of exactly max bytes ends here, or it is
		 * longer. */
		c = getc_unlocked(f);
		if (c == '\r')
			after_cr(f);
		else if (c != EOF && c != '\n') {
			ungetc(c, f);
			buf[n] = '\0';
			return max + 1;
		}
	}
	buf[n] = '\0';
	return n;
}

void
wm_line_skip(FILE *f)
{
	int c;

	while ((c = getc_unlocked(f)) != EOF && c != '\n')
		if (c == '\r') {
			after_cr(f);
			return;
		}
}
