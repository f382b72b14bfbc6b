/*
 * terminal.h
 *	The live screen on a terminal, through its terminfo description:
 *	each frame fitted to the terminal's size as it is at that frame,
 *	drawn in place in one write, in colour where the terminal has
 *	colours and the user did not say NO_COLOR.
 *
 * Why terminfo (ncurses' libtinfo) rather than escape sequences of our
 * own: the sequences that move the cursor, clear a line and set a colour
 * differ between terminals, and some need padding; terminfo knows them
 * for every terminal TERM can name, and says which cannot move a cursor
 * at all (TERM=dumb), which then get lines instead of a screen. Not
 * curses' screen optimisation: the supervisor and the workers write
 * notices to the same terminal, which curses would not know of and would
 * leave on the screen; a frame rewrites every row, home to bottom,
 * clearing each to its end, so whatever else was written is gone at the
 * next frame (once a second), and it does not flicker, since nothing is
 * cleared before it is drawn over.
 *
 * A frame never writes past the terminal's last column or row: a line
 * wider than the terminal is cut with a mark (screen.h), rows are
 * addressed one by one (no newline can scroll the head line away), and
 * a terminal that wraps as soon as its last column is written (auto
 * margins without the "newline glitch") gets one column less.
 *
 * Process-wide: terminfo's description is a global of the process. The
 * supervisor reads it before forking the observer, whose view thread
 * alone draws.
 */
#ifndef WM_RUNTIME_RUN_TERMINAL_H
#define WM_RUNTIME_RUN_TERMINAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/observe/screen.h"

struct wm_terminal {
	int fd;
	bool colour;	  /* colours, and bold for the head line */
	bool wraps_early; /* writing the last column moves the cursor */
	/* terminfo's strings (cursor address, clear to end of line, clear
	 * to end of screen, attributes off, bold, foreground colour);
	 * NULL where the terminal has none */
	const char *cup, *el, *ed, *sgr0, *bold, *setaf;
	uint32_t default_rows, default_cols; /* its description's */
};

/*
 * Read the description of the terminal TERM names, for drawing on fd.
 * 0; or -1 with why ("TERM=dumb cannot move the cursor") when the
 * terminal cannot show a screen (TERM unset or unknown, no cursor
 * addressing). NO_COLOR set to anything but "" turns colour off
 * (no-color.org).
 */
int wm_terminal_open(struct wm_terminal *t, int fd, char *why, size_t len);

/* The terminal's rows and columns now: the kernel's window size, or
 * else the environment's LINES and COLUMNS, or its description's. */
void wm_terminal_size(const struct wm_terminal *t, uint32_t *rows,
		      uint32_t *cols);

/* Draw a finished frame to fit rows x cols; false once the terminal
 * cannot be written to. */
bool wm_terminal_draw(const struct wm_terminal *t, const struct wm_screen *s,
		      uint32_t rows, uint32_t cols);

#endif /* WM_RUNTIME_RUN_TERMINAL_H */
