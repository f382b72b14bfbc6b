/*
 * svg.c
 *	Inline SVG plots in a self-contained page (svg.h).
 */
#include "config.h"

#include <math.h>
#include <stdbool.h>

#include "runtime/chart/svg.h"

/* Room around the data area for ticks, labels and captions, px. */
#define MARGIN_LEFT 96
#define MARGIN_RIGHT 16
#define MARGIN_TOP 12
#define MARGIN_BOTTOM 44

/* The page's whole style: the colours name what a mark means, the same in
 * every plot. */
static const char style[] =
	"body{font:14px sans-serif;margin:1.5em;color:#222;max-width:1100px}"
	"h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em}"
	"table{border-collapse:collapse;margin:.5em 0}"
	"td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
	"th{background:#f0f0f0}td.name,th.name{text-align:left}"
	"svg.plot{display:block;margin:.3em 0 1em 0;background:#fff}"
	"svg text{font:11px sans-serif;fill:#444}"
	".frame{fill:none;stroke:#888}.grid{stroke:#eee}"
	".series{fill:none;stroke-width:1.5}"
	".watermark{stroke:#1f5fbf}.newest{stroke:#e08a00}"
	".late{stroke:#c0392b}.curve{stroke:#1f5fbf}"
	".c1{stroke:#1f5fbf}.c2{stroke:#e08a00}.c3{stroke:#2e8b57}"
	".c4{stroke:#8e44ad}.c5{stroke:#c0392b}.c0{stroke:#555}"
	".idle rect{fill:#9ab;fill-opacity:.35}"
	".stall rect{fill:#d33;fill-opacity:.7}"
	".records rect{fill:#2e8b57}.silent rect{fill:#ddd}"
	".rowidle rect{fill:#7f9fc9}.sw-rowidle{background:#7f9fc9}"
	".bars rect{fill:#1f5fbf}"
	".legend{display:inline-block;margin-right:1.2em;font-size:12px}"
	".swatch{display:inline-block;width:1.2em;height:.7em;"
	"margin-right:.3em;vertical-align:middle}"
	".sw-watermark{background:#1f5fbf}.sw-newest{background:#e08a00}"
	".sw-idle{background:#9ab}.sw-stall{background:#d33}"
	".sw-records{background:#2e8b57}.sw-silent{background:#ddd}"
	".sw-c1{background:#1f5fbf}.sw-c2{background:#e08a00}"
	".sw-c3{background:#2e8b57}.sw-c4{background:#8e44ad}"
	".sw-c5{background:#c0392b}.sw-c0{background:#555}"
	"p.note{color:#555;max-width:60em}";

void
wm_svg_escape(FILE *f, const char *s)
{
	for (; *s != '\0'; s++)
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
}

void
wm_svg_page_begin(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
	      "charset=\"utf-8\">\n<title>",
	      f);
	wm_svg_escape(f, title);
	fprintf(f, "</title>\n<style>%s</style>\n</head><body>\n<h1>", style);
	wm_svg_escape(f, title);
	fputs("</h1>\n", f);
}

void
wm_svg_page_end(FILE *f)
{
	fputs("</body></html>\n", f);
}

double
wm_svg_x(const struct wm_svg_plot *p, double x)
{
	double r = (x - p->x_lo) / (p->x_hi - p->x_lo);

	r = r < 0 ? 0 : r > 1 ? 1 : r;
	return p->left + r * p->width;
}

double
wm_svg_y(const struct wm_svg_plot *p, double y)
{
	double r = (y - p->y_lo) / (p->y_hi - p->y_lo);

	r = r < 0 ? 0 : r > 1 ? 1 : r;
	return p->top + (1 - r) * p->height;
}

/* An empty or inverted range made one that can be drawn. */
static void
widen(enum wm_axis_kind kind, double *lo, double *hi)
{
	if (!isfinite(*lo) || !isfinite(*hi)) {
		*lo = 0;
		*hi = 1;
	}
	if (*hi > *lo)
		return;
	/* One value: a minute around a moment, else up from 0 or the value. */
	if (kind == WM_AXIS_CLOCK) {
		*lo -= 30000;
		*hi += 30000;
	} else if (*lo > 0) {
		*hi = *lo * 1.1;
		*lo = 0;
	} else {
		*hi = *lo + 1;
	}
}

void
wm_svg_plot_begin(struct wm_svg_plot *p, FILE *f, const char *name, int w,
		  int h, enum wm_axis_kind x_kind, double x_lo, double x_hi,
		  const char *x_caption, enum wm_axis_kind y_kind, double y_lo,
		  double y_hi, const char *y_caption)
{
	struct wm_axis_ticks t;
	char label[64];

	widen(x_kind, &x_lo, &x_hi);
	widen(y_kind, &y_lo, &y_hi);
	*p = (struct wm_svg_plot){
		.f = f,
		.left = MARGIN_LEFT,
		.top = MARGIN_TOP,
		.width = w - MARGIN_LEFT - MARGIN_RIGHT,
		.height = h - MARGIN_TOP - MARGIN_BOTTOM,
		.x_kind = x_kind,
		.y_kind = y_kind,
		.x_lo = x_lo,
		.x_hi = x_hi,
		.y_lo = y_lo,
		.y_hi = y_hi,
	};
	fputs("<svg class=\"plot\" data-plot=\"", f);
	wm_svg_escape(f, name);
	fprintf(f,
		"\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n",
		w, h, w, h);
	wm_axis_ticks(x_kind, x_lo, x_hi, (unsigned)(p->width / 90) + 1, &t);
	for (unsigned i = 0; i < t.n && x_kind != WM_AXIS_NONE; i++) {
		double x = wm_svg_x(p, t.at[i]);

		fprintf(f,
			"<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"middle\">%s</text>\n",
			x, p->top, x, p->top + p->height, x,
			p->top + p->height + 14,
			wm_axis_label(x_kind, t.at[i], t.step, label,
				      sizeof(label)));
	}
	wm_axis_ticks(y_kind, y_lo, y_hi, (unsigned)(p->height / 30) + 1, &t);
	for (unsigned i = 0; i < t.n && y_kind != WM_AXIS_NONE; i++) {
		double y = wm_svg_y(p, t.at[i]);

		fprintf(f,
			"<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"end\">%s</text>\n",
			p->left, y, p->left + p->width, y, p->left - 4, y + 4,
			wm_axis_label(y_kind, t.at[i], t.step, label,
				      sizeof(label)));
	}
	fprintf(f,
		"<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\"/>\n",
		p->left, p->top, p->width, p->height);
	fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
		p->left + p->width / 2, h - 6);
	wm_svg_escape(f, x_caption);
	fprintf(f,
		"</text>\n<text x=\"12\" y=\"%.1f\" text-anchor=\"middle\" "
		"transform=\"rotate(-90 12 %.1f)\">",
		p->top + p->height / 2, p->top + p->height / 2);
	wm_svg_escape(f, y_caption);
	fputs("</text>\n", f);
}

void
wm_svg_plot_end(struct wm_svg_plot *p)
{
	fputs("</svg>\n", p->f);
}

/* The opening of an element carrying series `name`: class, data-series
 * and data-points, left open for the element's own attributes. */
static void
open_series(FILE *f, const char *tag, const char *kind, const char *cls,
	    const char *name, size_t points)
{
	fprintf(f, "<%s class=\"%s %s\" data-series=\"", tag, kind, cls);
	wm_svg_escape(f, name);
	fprintf(f, "\" data-points=\"%zu\"", points);
}

void
wm_svg_series(struct wm_svg_plot *p, const char *name, const char *cls,
	      size_t n, const double *x, const double *lo, const double *hi,
	      const double *last, int step)
{
	size_t points = 0;
	bool open = false;

	for (size_t i = 0; i < n; i++)
		points += !isnan(last[i]);
	open_series(p->f, "path", "series", cls, name, points);
	fputs(" d=\"", p->f);
	for (size_t i = 0; i < n; i++) {
		double px = wm_svg_x(p, x[i]);

		if (isnan(last[i])) {
			open = false;
			continue;
		}
		if (!open)
			fprintf(p->f, "M%.1f %.1f", px,
				wm_svg_y(p, lo ? lo[i] : last[i]));
		else if (step)
			fprintf(p->f, "H%.1f", px);
		else
			fprintf(p->f, "L%.1f %.1f", px,
				wm_svg_y(p, lo ? lo[i] : last[i]));
		if (lo != NULL && hi != NULL && hi[i] != lo[i])
			fprintf(p->f, "V%.1f V%.1f", wm_svg_y(p, lo[i]),
				wm_svg_y(p, hi[i]));
		fprintf(p->f, "V%.1f", wm_svg_y(p, last[i]));
		open = true;
	}
	fputs("\"/>\n", p->f);
}

void
wm_svg_spans(struct wm_svg_plot *p, const char *name, const char *cls, size_t n,
	     const double *from, const double *to, double band_top,
	     double band_height)
{
	open_series(p->f, "g", "spans", cls, name, n);
	fputs(">", p->f);
	for (size_t i = 0; i < n; i++) {
		double x0 = wm_svg_x(p, from[i]), x1 = wm_svg_x(p, to[i]);

		/* A span shorter than a pixel still shows. */
		fprintf(p->f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\"/>",
			x0, p->top + band_top * p->height,
			x1 - x0 < 1 ? 1 : x1 - x0, band_height * p->height);
	}
	fputs("</g>\n", p->f);
}

void
wm_svg_bars(struct wm_svg_plot *p, const char *name, const char *cls, size_t n,
	    const double *x0, const double *x1, const double *y)
{
	open_series(p->f, "g", "bars", cls, name, n);
	fputs(">", p->f);
	for (size_t i = 0; i < n; i++) {
		double l = wm_svg_x(p, x0[i]), r = wm_svg_x(p, x1[i]);
		double t = wm_svg_y(p, y[i]), b = wm_svg_y(p, p->y_lo);

		fprintf(p->f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\"/>",
			l, t, r - l > 2 ? r - l - 1 : 1, b - t);
	}
	fputs("</g>\n", p->f);
}

void
wm_svg_legend(FILE *f, const char *cls, const char *text)
{
	fprintf(f,
		"<span class=\"legend\"><span class=\"swatch sw-%s\">"
		"</span>",
		cls);
	wm_svg_escape(f, text);
	fputs("</span>\n", f);
}

void
wm_svg_row_label(struct wm_svg_plot *p, double y, const char *text)
{
	fprintf(p->f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
		p->left - 4, wm_svg_y(p, y) + 4);
	wm_svg_escape(p->f, text);
	fputs("</text>\n", p->f);
}

void
wm_svg_column_label(struct wm_svg_plot *p, double x, const char *text)
{
	fprintf(p->f,
		"<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"middle\">",
		wm_svg_x(p, x), p->top, wm_svg_x(p, x), p->top + p->height,
		wm_svg_x(p, x), p->top + p->height + 14);
	wm_svg_escape(p->f, text);
	fputs("</text>\n", p->f);
}
