/*
 * svg.h
 *	Plots as inline SVG in one self-contained HTML page: a frame with
 *	axes in human units (axis.h), series drawn as steps or lines, shaded
 *	spans, bars, and the page around them (its style inline, no script
 *	and nothing fetched from elsewhere).
 *
 * Every element that carries data names it, so that a reader of the DOM
 * (the browser test) can check what each plot drew without looking at
 * pixels: a series is <path class="series ..." data-series="NAME"
 * data-points="N">, spans <g class="spans ..." data-series="NAME"
 * data-points="N"> of <rect>s, bars likewise; every plot is <svg
 * class="plot" data-plot="NAME">. N counts the points (spans, bars) drawn.
 *
 * Written to a FILE the caller owns (a file, or memory in the tests);
 * nothing here checks for write errors, which the caller reads with
 * ferror() at the end. Values that are NaN are gaps: a series breaks
 * there.
 */
#ifndef WM_RUNTIME_CHART_SVG_H
#define WM_RUNTIME_CHART_SVG_H

#include <stdint.h>
#include <stdio.h>

#include "runtime/chart/axis.h"

/* One plot: the pixel box of its data area inside an SVG of its own, and
 * the values that box shows on either axis. */
struct wm_svg_plot {
	FILE *f;
	double left, top, width, height; /* the data area, px */
	enum wm_axis_kind x_kind, y_kind;
	double x_lo, x_hi, y_lo, y_hi;
};

/* The page: its head (title, inline style) and body's opening; and its
 * end. */
void wm_svg_page_begin(FILE *f, const char *title);
void wm_svg_page_end(FILE *f);

/* `s` with &, <, > and " escaped, for text and attribute values. */
void wm_svg_escape(FILE *f, const char *s);

/*
 * Open plot `name` (data-plot) of `w` x `h` px, its data area inset for
 * the axes, showing x in [x_lo, x_hi] and y in [y_lo, y_hi] (widened to
 * a visible range when empty), and draw its frame, ticks and labels and
 * the axes' captions (`x_caption`, `y_caption`: what and in which unit).
 * Close it with wm_svg_plot_end().
 */
void wm_svg_plot_begin(struct wm_svg_plot *p, FILE *f, const char *name, int w,
		       int h, enum wm_axis_kind x_kind, double x_lo,
		       double x_hi, const char *x_caption,
		       enum wm_axis_kind y_kind, double y_lo, double y_hi,
		       const char *y_caption);
void wm_svg_plot_end(struct wm_svg_plot *p);

/* Pixel coordinates of a value, clamped to the data area. */
double wm_svg_x(const struct wm_svg_plot *p, double x);
double wm_svg_y(const struct wm_svg_plot *p, double y);

/*
 * A series `name` with CSS class `cls`: points (x[i], last[i]) in order
 * of x; lo[i] and hi[i] (NULL: both last[i]) are the extremes within the
 * point's bucket, drawn as a vertical stroke at x[i] so that a decimated
 * series keeps its peaks. `step`: the value holds until the next point
 * (a watermark), otherwise the points are joined by straight lines.
 */
void wm_svg_series(struct wm_svg_plot *p, const char *name, const char *cls,
		   size_t n, const double *x, const double *lo,
		   const double *hi, const double *last, int step);

/* Spans [from[i], to[i]) of x as rectangles over the band of the data
 * area from `band_top` to `band_top + band_height` (fractions of its
 * height, 0 at the top). */
void wm_svg_spans(struct wm_svg_plot *p, const char *name, const char *cls,
		  size_t n, const double *from, const double *to,
		  double band_top, double band_height);

/* Bars: one for each [x0[i], x1[i]) of height y[i], from the bottom. */
void wm_svg_bars(struct wm_svg_plot *p, const char *name, const char *cls,
		 size_t n, const double *x0, const double *x1, const double *y);

/* `text` left of the data area at the height of value `y` (rows of a
 * WM_AXIS_NONE axis). */
void wm_svg_row_label(struct wm_svg_plot *p, double y, const char *text);

/* `text` under the data area at `x`, with a grid line up through it
 * (categories of a WM_AXIS_NONE x axis). */
void wm_svg_column_label(struct wm_svg_plot *p, double x, const char *text);

/* A legend entry under the plot's title: a swatch of `cls` and `text`. */
void wm_svg_legend(FILE *f, const char *cls, const char *text);

#endif /* WM_RUNTIME_CHART_SVG_H */
