/*
 * sweep_page.c
 *	A sweep's curves and table as one page (sweep_page.h).
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/chart/axis.h"
#include "runtime/chart/svg.h"
#include "lib/units.h"
#include "runtime/study/sweep_page.h"

#define PLOT_WIDTH 1000
#define PLOT_HEIGHT 260
#define CURVE_COLOURS 5 /* svg.c's classes c1 .. c5 */

/* The first axis as x: its kind and each value's position on it. */
struct x_axis {
	enum wm_axis_kind kind; /* COUNT, DURATION (ms) or NONE: columns */
	bool log2;		/* COUNT: positions are the values' log2 */
	double lo, hi;
	double *at; /* by value of the first axis */
};

/* Whether every number of `at` is a power of two, three or more of them:
 * a sweep over parallelism or partitions (1, 2, 4, 8), which a linear
 * axis crowds into its left end. */
static bool
powers_of_two(const double *at, size_t n)
{
	for (size_t v = 0; v < n; v++) {
		int exp;

		if (!(at[v] > 0) || frexp(at[v], &exp) != 0.5)
			return false;
	}
	return n >= 3;
}

/* Numbers if every value is one (on a log-2 scale if they are powers of
 * two), else durations if every value is one, else a column each in the
 * order given. */
static bool
x_axis_set(struct x_axis *x, const struct wm_sweep_axis *a)
{
	char why[WM_UNITS_WHY_MAX];
	bool numbers = true, durations = true;

	x->at = calloc(a->n_values, sizeof(*x->at));
	if (x->at == NULL)
		return false;
	for (size_t v = 0; v < a->n_values; v++) {
		double d;
		int64_t ms;

		numbers = numbers && wm_units_number(a->values[v], &d, why,
						     sizeof(why)) == 0;
		durations = durations &&
			    wm_units_duration_ms(a->values[v], &ms, why,
						 sizeof(why)) == 0;
	}
	x->kind = numbers     ? WM_AXIS_COUNT
		  : durations ? WM_AXIS_DURATION
			      : WM_AXIS_NONE;
	for (size_t v = 0; v < a->n_values; v++) {
		int64_t ms = 0;

		if (x->kind == WM_AXIS_COUNT)
			wm_units_number(a->values[v], &x->at[v], why,
					sizeof(why));
		else if (x->kind == WM_AXIS_DURATION &&
			 wm_units_duration_ms(a->values[v], &ms, why,
					      sizeof(why)) == 0)
			x->at[v] = (double)ms;
		else
			x->at[v] = (double)v;
	}
	x->log2 = x->kind == WM_AXIS_COUNT && powers_of_two(x->at, a->n_values);
	for (size_t v = 0; x->log2 && v < a->n_values; v++)
		x->at[v] = log2(x->at[v]);
	x->lo = x->hi = x->at[0];
	for (size_t v = 1; v < a->n_values; v++) {
		x->lo = fmin(x->lo, x->at[v]);
		x->hi = fmax(x->hi, x->at[v]);
	}
	if (x->kind == WM_AXIS_NONE) {
		/* Columns, each away from the frame. */
		x->lo = -0.5;
		x->hi = (double)a->n_values - 0.5;
	} else if (x->hi > x->lo) {
		double pad = (x->hi - x->lo) / 20;

		x->lo -= pad;
		x->hi += pad;
	}
	return true;
}

/* What a plot shows of a row; NAN: nothing (a gap). */
enum figure { STALL, P50, P99, MAX, LATE, FIGURES };

static const char *const figure_name[FIGURES] = {
	"stall fraction", "fire delay p50", "fire delay p99",
	"fire delay max", "late ratio",
};

static double
figure_of(const struct wm_sweep_row *r, enum figure what)
{
	bool ran = !r->skipped && (r->status == 0 || r->records_read > 0);

	if (!ran || (what >= P50 && what <= MAX && !r->fired))
		return NAN;
	switch (what) {
	case STALL:
		return r->stall_fraction;
	case P50:
		return (double)r->fire_delay_p50_ms;
	case P99:
		return (double)r->fire_delay_p99_ms;
	case MAX:
		return (double)r->fire_delay_max_ms;
	default:
		return r->late_ratio;
	}
}

/* "at events.watermark_at=split, job.seed=2": curve `c`'s values of the
 * axes after the first, into buf ("" with one axis). */
static void
curve_name(const struct wm_sweep *s, size_t c, char *buf, size_t len)
{
	size_t idx[WM_SWEEP_MAX_AXES], at = 0;

	buf[0] = '\0';
	/* Combination c has the first axis at its first value. */
	wm_sweep_combination(s, c, idx);
	for (size_t a = 1; a < s->n_axes && at < len; a++) {
		int n = snprintf(buf + at, len - at, "%s%s=%s",
				 a == 1 ? "at " : ", ", s->axes[a].option,
				 s->axes[a].values[idx[a]]);

		if (n < 0)
			break;
		at += (size_t)n;
	}
}

/* One plot: every curve of figure `what`, a point per value of x. */
static void
figure_plot(FILE *f, const struct wm_sweep *s, const struct wm_sweep_row *rows,
	    const struct x_axis *x, enum figure what, double *y)
{
	const struct wm_sweep_axis *first = &s->axes[0];
	size_t n = wm_sweep_combinations(s);
	size_t curves = n / first->n_values;
	enum wm_axis_kind y_kind = what == STALL || what == LATE
					   ? WM_AXIS_RATIO
					   : WM_AXIS_DURATION;
	double hi = 0;
	struct wm_svg_plot p;
	char caption[300], name[600], rest[500];

	for (size_t i = 0; i < n; i++)
		if (!isnan(figure_of(&rows[i], what)))
			hi = fmax(hi, figure_of(&rows[i], what));
	snprintf(caption, sizeof(caption), "%s%s", first->option,
		 x->kind == WM_AXIS_DURATION ? " (duration)"
		 : x->log2		     ? " (log 2 scale)"
					     : "");
	fprintf(f, "<h2>");
	wm_svg_escape(f, figure_name[what]);
	fputs("</h2>\n<p>", f);
	for (size_t c = 0; c < curves && s->n_axes > 1; c++) {
		char cls[8];

		snprintf(cls, sizeof(cls), "c%zu", c % CURVE_COLOURS + 1);
		curve_name(s, c, rest, sizeof(rest));
		wm_svg_legend(f, cls, rest + strlen("at "));
	}
	fputs("</p>\n", f);
	/* Numbers are labelled where the values are, as given (a tick at
	 * parallelism 1.5 would mean nothing); durations get ticks in
	 * human units; a little room above the highest point. */
	wm_svg_plot_begin(&p, f, figure_name[what], PLOT_WIDTH, PLOT_HEIGHT,
			  x->kind == WM_AXIS_COUNT ? WM_AXIS_NONE : x->kind,
			  x->lo, x->hi, caption, y_kind, 0, hi * 1.1,
			  y_kind == WM_AXIS_RATIO ? "share (%)" : "delay");
	for (size_t v = 0; v < first->n_values && x->kind != WM_AXIS_DURATION;
	     v++)
		wm_svg_column_label(&p, x->at[v], first->values[v]);
	for (size_t c = 0; c < curves; c++) {
		char cls[8];

		snprintf(cls, sizeof(cls), "c%zu", c % CURVE_COLOURS + 1);
		curve_name(s, c, rest, sizeof(rest));
		snprintf(name, sizeof(name), "%s%s%s", figure_name[what],
			 rest[0] != '\0' ? " " : "", rest);
		/* Combination v * curves + c: the first axis at value v,
		 * the others as curve c (the last axis varies fastest). */
		for (size_t v = 0; v < first->n_values; v++)
			y[v] = figure_of(&rows[v * curves + c], what);
		wm_svg_series(&p, name, cls, first->n_values, x->at, NULL, NULL,
			      y, 0);
		/* A dot at each point: a curve of one point still shows. */
		for (size_t v = 0; v < first->n_values; v++)
			if (!isnan(y[v]))
				fprintf(f,
					"<circle class=\"series %s\" "
					"cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"/>\n",
					cls, wm_svg_x(&p, x->at[v]),
					wm_svg_y(&p, y[v]));
	}
	wm_svg_plot_end(&p);
}

static void
delay_cell(FILE *f, const struct wm_sweep_row *r, int64_t ms)
{
	char buf[32];

	fprintf(f, "<td>%s</td>",
		r->fired ? wm_axis_duration((double)ms, buf, sizeof(buf))
			 : "-");
}

/* The sweep's table, as wm_sweep_print_table() prints it for people. */
static void
table(FILE *f, const struct wm_sweep *s, const struct wm_sweep_row *rows)
{
	size_t n = wm_sweep_combinations(s);
	size_t idx[WM_SWEEP_MAX_AXES];

	fputs("<h2>Runs</h2>\n<table class=\"sweep\">\n<tr>", f);
	for (size_t a = 0; a < s->n_axes; a++) {
		fputs("<th class=\"name\">", f);
		wm_svg_escape(f, s->axes[a].option);
		fputs("</th>", f);
	}
	fputs("<th>stall</th><th>fire delay p50</th><th>p99</th><th>max</th>"
	      "<th>late</th><th>records/s</th><th>accounted</th></tr>\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		const struct wm_sweep_row *r = &rows[i];

		wm_sweep_combination(s, i, idx);
		fputs("<tr>", f);
		for (size_t a = 0; a < s->n_axes; a++) {
			fputs("<td class=\"name\">", f);
			wm_svg_escape(f, s->axes[a].values[idx[a]]);
			fputs("</td>", f);
		}
		if (r->skipped) {
			fputs("<td class=\"name\" colspan=\"7\">not run: "
			      "the sweep was stopped</td></tr>\n",
			      f);
			continue;
		}
		if (r->status != 0 && r->records_read == 0) {
			fprintf(f,
				"<td class=\"name\" colspan=\"7\">failed "
				"(exit %d): ",
				r->status);
			wm_svg_escape(f, r->error);
			fputs("</td></tr>\n", f);
			continue;
		}
		fprintf(f, "<td>%.2f%%</td>", 100.0 * r->stall_fraction);
		delay_cell(f, r, r->fire_delay_p50_ms);
		delay_cell(f, r, r->fire_delay_p99_ms);
		delay_cell(f, r, r->fire_delay_max_ms);
		fprintf(f, "<td>%.3f%%</td><td>%.0f</td><td>%s",
			100.0 * r->late_ratio, r->records_per_s,
			r->accounted ? "yes" : "no");
		if (r->status != 0) {
			fprintf(f, " (exit %d: ", r->status);
			wm_svg_escape(f, r->error);
			fputc(')', f);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

void
wm_sweep_page_write(FILE *f, const struct wm_sweep *s,
		    const struct wm_sweep_row *rows, const char *name)
{
	struct x_axis x = {0};
	double *y =
		s->n_axes > 0 ? calloc(s->axes[0].n_values, sizeof(*y)) : NULL;
	char title[600];

	snprintf(title, sizeof(title), "wmrun sweep: %s", name);
	wm_svg_page_begin(f, title);
	if (y != NULL && x_axis_set(&x, &s->axes[0])) {
		fputs("<p class=\"note\">What each run measured against ", f);
		wm_svg_escape(f, s->axes[0].option);
		fputs(s->n_axes > 1 ? ", a curve for each combination of the "
				      "other swept keys"
				    : "",
		      f);
		fputs(". Stall fraction: the share of processing time the "
		      "window watermarks were stalled; fire delay: how long "
		      "after its end a window fired on time; late ratio: late "
		      "records over records read.</p>\n",
		      f);
		for (int what = 0; what < FIGURES; what++)
			figure_plot(f, s, rows, &x, (enum figure)what, y);
	} else if (s->n_axes > 0) {
		fputs("<p class=\"note\">Out of memory: the table only.</p>\n",
		      f);
	}
	table(f, s, rows);
	wm_svg_page_end(f);
	free(x.at);
	free(y);
}
