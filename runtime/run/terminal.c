/*
 * terminal.c
 *	The live screen drawn through terminfo (terminal.h).
 */
#include "config.h"

#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <term.h>
#include <unistd.h>

#include "base/write_all.h"
#include "runtime/run/terminal.h"

/* A terminfo string capability, or NULL where the terminal has none
 * (tigetstr() says so with NULL, or with (char *)-1 for a name it does
 * not know as a string). */
static const char *
capability(const char *name)
{
	char *s = tigetstr(name);

	return s == NULL || s == (char *)-1 || s[0] == '\0' ? NULL : s;
}

int
wm_terminal_open(struct wm_terminal *t, int fd, char *why, size_t len)
{
	const char *term = getenv("TERM"), *no_colour = getenv("NO_COLOR");
	int err = 0, n;

	*t = (struct wm_terminal){.fd = fd};
	if (term == NULL || term[0] == '\0') {
		snprintf(why, len, "TERM is not set");
		return -1;
	}
	if (setupterm(term, fd, &err) != OK) {
		snprintf(why, len,
			 err == 0 ? "TERM=%s cannot move the cursor"
				  : "TERM=%s is not in the terminfo database",
			 term);
		return -1;
	}
	t->cup = capability("cup");
	t->el = capability("el");
	t->ed = capability("ed");
	if (t->cup == NULL || t->el == NULL || t->ed == NULL) {
		snprintf(why, len, "TERM=%s cannot move the cursor", term);
		return -1;
	}
	t->sgr0 = capability("sgr0");
	t->bold = capability("bold");
	t->setaf = capability("setaf");
	t->colour = (no_colour == NULL || no_colour[0] == '\0') &&
		    t->sgr0 != NULL && t->setaf != NULL &&
		    tigetnum("colors") >= 8;
	t->wraps_early = tigetflag("am") > 0 && tigetflag("xenl") <= 0;
	n = tigetnum("lines");
	t->default_rows = n > 0 ? (uint32_t)n : 24;
	n = tigetnum("cols");
	t->default_cols = n > 0 ? (uint32_t)n : 80;
	return 0;
}

/* A positive number from the environment, or 0. */
static uint32_t
env_count(const char *name)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (s == NULL || s[0] == '\0')
		return 0;
	errno = 0;
	v = strtoul(s, &end, 10);
	return errno == 0 && *end == '\0' && v > 0 && v < 100000 ? (uint32_t)v
								 : 0;
}

void
wm_terminal_size(const struct wm_terminal *t, uint32_t *rows, uint32_t *cols)
{
	struct winsize ws;

	if (ioctl(t->fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 &&
	    ws.ws_col > 0) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
		return;
	}
	*rows = env_count("LINES") ? env_count("LINES") : t->default_rows;
	*cols = env_count("COLUMNS") ? env_count("COLUMNS") : t->default_cols;
}

/* tputs() hands out a byte at a time: into the frame being built, one per
 * thread (only the observer's view thread draws). */
static _Thread_local FILE *frame_out;

static int
put_byte(int c)
{
	return fputc(c, frame_out);
}

static void
put(const char *cap)
{
	if (cap != NULL)
		tputs(cap, 1, put_byte);
}

static void
move_to(const struct wm_terminal *t, uint32_t row)
{
	put(tiparm(t->cup, (int)row, 0));
}

/* A style's attributes on; true if any was set (sgr0 ends them). */
static bool
style_on(const struct wm_terminal *t, enum wm_screen_style style)
{
	int colour;

	if (!t->colour)
		return false;
	switch (style) {
	case WM_SCREEN_HEAD:
		if (t->bold == NULL)
			return false;
		put(t->bold);
		return true;
	case WM_SCREEN_HELD:
		colour = COLOR_YELLOW;
		break;
	case WM_SCREEN_IDLE:
		colour = COLOR_CYAN;
		break;
	case WM_SCREEN_ALERT:
		colour = COLOR_RED;
		break;
	default:
		return false;
	}
	put(tiparm(t->setaf, colour));
	return true;
}

/* One row: the text cut to the width, then cleared to the end of the row
 * unless the text filled it (clearing there would erase its last
 * character on a terminal waiting to wrap). */
static void
draw_row(const struct wm_terminal *t, uint32_t row, const char *text,
	 size_t len, enum wm_screen_style style, uint32_t width)
{
	bool cut, styled;
	uint32_t used;
	size_t n = wm_screen_cut(text, len, width, &cut, &used);

	move_to(t, row);
	styled = style_on(t, style);
	fwrite(text, 1, n, frame_out);
	if (cut)
		fputs(WM_SCREEN_CUT_MARK, frame_out);
	if (styled)
		put(t->sgr0);
	if (used < width)
		put(t->el);
}

bool
wm_terminal_draw(const struct wm_terminal *t, const struct wm_screen *s,
		 uint32_t rows, uint32_t cols)
{
	uint32_t width = t->wraps_early && cols > 1 ? cols - 1 : cols;
	uint32_t row = 0, left_out;
	bool *keep = calloc(s->n_lines ? s->n_lines : 1, sizeof(*keep));
	char *out = NULL;
	size_t out_len = 0;
	bool ok;

	if (keep == NULL)
		return true; /* no memory this time; drawn at the next */
	frame_out = open_memstream(&out, &out_len);
	if (frame_out == NULL) {
		free(keep);
		return true;
	}
	left_out = wm_screen_fit(s, rows, keep);
	for (uint32_t i = 0; i < s->n_lines; i++)
		if (keep[i]) {
			draw_row(t, row++, s->line[i].text, s->line[i].len,
				 s->line[i].style, width);
		}
	if (left_out > 0) {
		char note[96];
		int n = snprintf(note, sizeof(note),
				 "(%u more line%s: a taller terminal shows "
				 "them)",
				 left_out, left_out == 1 ? "" : "s");

		draw_row(t, row++, note, (size_t)n, WM_SCREEN_PLAIN, width);
	}
	if (row < rows) {
		move_to(t, row);
		put(t->ed);
	}
	ok = fclose(frame_out) == 0 && wm_write_all(t->fd, out, out_len);
	frame_out = NULL;
	free(out);
	free(keep);
	return ok;
}
