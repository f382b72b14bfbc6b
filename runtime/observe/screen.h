/*
 * screen.h
 *	One frame of the live screen as lines that know what they show (a
 *	style) and how much they matter (a rank), and the fitting of a frame
 *	to a terminal of any size.
 *
 * The view (view.h) writes a frame as text into wm_screen_file(),
 * marking before each group of lines what they are (wm_screen_mark());
 * wm_screen_end() splits the text into lines, each with the mark in
 * force where it starts. A terminal (runtime/run/terminal.h) then draws
 * what wm_screen_fit() keeps: every line when they all fit; otherwise
 * the lines of the lowest ranks first, in their order on the screen,
 * and a last line counting what was left out. A line wider than the
 * terminal is cut to its width with a mark, never wrapped: a wrapped
 * line would push the head line off a short terminal.
 *
 * Pure: no terminal, no clock; the tests fit frames to any size.
 */
#ifndef WM_RUNTIME_OBSERVE_SCREEN_H
#define WM_RUNTIME_OBSERVE_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What a line shows, for a terminal that has colours. */
enum wm_screen_style {
	WM_SCREEN_PLAIN,
	WM_SCREEN_HEAD,	 /* the head line: the job, its time, its progress */
	WM_SCREEN_HELD,	 /* a held subtask, what holds it and why */
	WM_SCREEN_IDLE,	 /* an IDLE subtask or input */
	WM_SCREEN_ALERT, /* an alert raised */
};

/* How much a line matters when the terminal is too short for all:
 * lower ranks are kept first. */
enum wm_screen_rank {
	WM_SCREEN_ALWAYS,  /* the head line: on every frame */
	WM_SCREEN_ANSWER,  /* what holds event time, and alerts */
	WM_SCREEN_OUTLINE, /* the column names, a line per stage */
	WM_SCREEN_SUBTASK, /* a subtask not held */
	WM_SCREEN_DETAIL,  /* an input that holds nothing */
	WM_SCREEN_RANKS
};

struct wm_screen_line {
	const char *text; /* into the frame's text, no newline, NUL-ended */
	size_t len;
	enum wm_screen_style style;
	enum wm_screen_rank rank;
};

struct wm_screen_mark {
	size_t at; /* offset in the text where it takes effect */
	enum wm_screen_style style;
	enum wm_screen_rank rank;
};

struct wm_screen {
	FILE *f; /* open between wm_screen_begin() and _end() */
	char *text;
	size_t text_len;
	struct wm_screen_mark *marks;
	uint32_t n_marks, marks_cap;
	struct wm_screen_line *line; /* by row, after wm_screen_end() */
	uint32_t n_lines;
	bool failed; /* out of memory on the way: nothing to draw */
};

/* An empty frame to write; -ENOMEM. */
int wm_screen_begin(struct wm_screen *s);

/* Where the view writes the frame's text. */
static inline FILE *
wm_screen_file(const struct wm_screen *s)
{
	return s->f;
}

/* The lines that start from here on show `style` and rank `rank`. */
void wm_screen_mark(struct wm_screen *s, enum wm_screen_style style,
		    enum wm_screen_rank rank);

/* The text written, split into lines; -ENOMEM (the frame is then
 * empty). */
int wm_screen_end(struct wm_screen *s);

void wm_screen_free(struct wm_screen *s);

/*
 * Which lines of a finished frame a terminal of `rows` rows shows:
 * keep[i] for line i. Returns how many lines were left out; the caller
 * says so on the last row, which is kept free for it then (a frame of
 * more than `rows` lines shows rows - 1 of them). Lines of a rank are
 * all kept before any of the next rank, then as many of the next as fit,
 * top first. rows 0: no limit.
 */
uint32_t wm_screen_fit(const struct wm_screen *s, uint32_t rows, bool *keep);

/*
 * How many bytes of text[0..len) fill at most `cols` columns, one column
 * a character (UTF-8: a code point; a double-width one counts two, where
 * the thread's locale knows widths), never cutting a character. *cut set
 * when some of the text is left over: one column is then left for the
 * mark the caller adds. *used: the columns the line takes, mark
 * included.
 */
size_t wm_screen_cut(const char *text, size_t len, uint32_t cols, bool *cut,
		     uint32_t *used);

/* The mark a cut line ends in. */
#define WM_SCREEN_CUT_MARK ">"

#endif /* WM_RUNTIME_OBSERVE_SCREEN_H */
