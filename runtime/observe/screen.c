/*
 * screen.c
 *	A frame of the live screen: styled, ranked lines, fitted to a
 *	terminal (screen.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "base/utf8.h"
#include "runtime/observe/screen.h"

int
wm_screen_begin(struct wm_screen *s)
{
	*s = (struct wm_screen){0};
	s->f = open_memstream(&s->text, &s->text_len);
	return s->f != NULL ? 0 : -ENOMEM;
}

void
wm_screen_mark(struct wm_screen *s, enum wm_screen_style style,
	       enum wm_screen_rank rank)
{
	if (s->f == NULL || s->failed)
		return;
	if (s->n_marks == s->marks_cap) {
		uint32_t cap = s->marks_cap ? 2 * s->marks_cap : 32;
		struct wm_screen_mark *m = realloc(s->marks, cap * sizeof(*m));

		if (m == NULL) {
			s->failed = true;
			return;
		}
		s->marks = m;
		s->marks_cap = cap;
	}
	/* The memory stream's position is the length written so far. */
	fflush(s->f);
	s->marks[s->n_marks++] = (struct wm_screen_mark){
		.at = s->text_len, .style = style, .rank = rank};
}

int
wm_screen_end(struct wm_screen *s)
{
	uint32_t n = 0, m = 0;
	char *p, *end;

	if (s->f == NULL)
		return -ENOMEM;
	if (fclose(s->f) != 0)
		s->failed = true;
	s->f = NULL;
	if (s->failed)
		return -ENOMEM;
	end = s->text + s->text_len;
	for (p = s->text; p < end; p++)
		n += *p == '\n';
	n += s->text_len > 0 && end[-1] != '\n';
	s->line = calloc(n ? n : 1, sizeof(*s->line));
	if (s->line == NULL) {
		s->failed = true;
		return -ENOMEM;
	}
	/* Each line takes the last mark at or before its start; lines
	 * before any mark are plain and kept first. */
	for (p = s->text; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t at = (size_t)(p - s->text);
		struct wm_screen_line *l = &s->line[s->n_lines++];

		while (m < s->n_marks && s->marks[m].at <= at)
			m++;
		l->text = p;
		l->len = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		l->style = m > 0 ? s->marks[m - 1].style : WM_SCREEN_PLAIN;
		l->rank = m > 0 ? s->marks[m - 1].rank : WM_SCREEN_ALWAYS;
		if (nl == NULL)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	return 0;
}

void
wm_screen_free(struct wm_screen *s)
{
	if (s->f != NULL)
		fclose(s->f);
	free(s->text);
	free(s->marks);
	free(s->line);
	*s = (struct wm_screen){0};
}

uint32_t
wm_screen_fit(const struct wm_screen *s, uint32_t rows, bool *keep)
{
	uint32_t room, shown = 0;

	if (rows == 0 || s->n_lines <= rows) {
		for (uint32_t i = 0; i < s->n_lines; i++)
			keep[i] = true;
		return 0;
	}
	/* One row says what was left out. */
	room = rows - 1;
	for (uint32_t i = 0; i < s->n_lines; i++)
		keep[i] = false;
	for (int rank = WM_SCREEN_ALWAYS; rank < WM_SCREEN_RANKS; rank++)
		for (uint32_t i = 0; i < s->n_lines && shown < room; i++)
			if ((int)s->line[i].rank == rank) {
				keep[i] = true;
				shown++;
			}
	return s->n_lines - shown;
}

/* The code point at the front of [p, end) and its length in *n; a byte
 * that starts no well-formed sequence (base/utf8.h) is taken alone, as
 * one column. */
static uint32_t
next_code_point(const unsigned char *p, const unsigned char *end, size_t *n)
{
	size_t len = wm_utf8_seq(p, (size_t)(end - p));
	uint32_t c;

	if (len <= 1) {
		*n = 1;
		return len == 1 ? p[0] : 0xfffd;
	}
	/* The lead byte's payload: 5, 4 or 3 bits for 2, 3 or 4 bytes. */
	c = p[0] & (0x7fu >> len);
	for (size_t i = 1; i < len; i++)
		c = (c << 6) | (p[i] & 0x3fu);
	*n = len;
	return c;
}

size_t
wm_screen_cut(const char *text, size_t len, uint32_t cols, bool *cut,
	      uint32_t *used_cols)
{
	const unsigned char *p = (const unsigned char *)text, *end = p + len;
	/* The columns taken so far; and the longest front that leaves one
	 * column for the mark, in bytes and columns. */
	uint32_t used = 0, marked_used = 0;
	size_t marked = 0;

	while (p < end) {
		size_t n;
		uint32_t c = next_code_point(p, end, &n);
		/* wcwidth() knows double width only in a UTF-8 locale
		 * (the terminal's thread sets one); elsewhere, and for
		 * what it calls unprintable, one column. */
		int w = wcwidth((wchar_t)c);
		uint32_t width = w < 1 ? 1 : (uint32_t)w;

		if (used + width > cols) {
			*cut = true;
			*used_cols = cols > 0 ? marked_used + 1 : 0;
			return marked;
		}
		used += width;
		p += n;
		if (used < cols) {
			marked = (size_t)(p - (const unsigned char *)text);
			marked_used = used;
		}
	}
	*cut = false;
	*used_cols = used;
	return len;
}
