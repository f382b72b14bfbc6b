/*
 * lines.c
 *	Bounded line reading (lines.h).
 */
#include "config.h"

#include "runtime/lines.h"

size_t
wm_line_read(FILE *f, char *buf, size_t max)
{
	size_t n = 0;
	int c = EOF;

	while (n < max && (c = getc_unlocked(f)) != EOF) {
		buf[n++] = (char)c;
		if (c == '\n')
			break;
	}
	buf[n] = '\0';
	if (n < max || c == '\n')
		return n;
	/* Full: a line of exactly max bytes ends here, or it is longer. */
	c = getc_unlocked(f);
	if (c == EOF || c == '\n')
		return n;
	ungetc(c, f);
	return max + 1;
}

void
wm_line_skip(FILE *f)
{
	int c;

	while ((c = getc_unlocked(f)) != EOF && c != '\n')
		;
}
