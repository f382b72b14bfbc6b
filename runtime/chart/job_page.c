/*
 * job_page.c
 *	One job's report page: plots of its recorder, its summary as a table
 *	(job_page.h).
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/chart/job_page.h"
#include "runtime/chart/svg.h"
#include "runtime/report/advice.h"
#include "lib/units.h"

#define PLOT_WIDTH 1000
#define PLOT_HEIGHT 220
#define ROW_HEIGHT 18

/* Spans of processing time (ms) for one series, merged as they come when
 * they touch, so a state lasting many buckets is one rectangle. */
struct spans {
	size_t n, cap;
	double *from, *to;
};

static void
spans_add(struct spans *s, double from, double to)
{
	if (!(to > from))
		return; /* nothing to see */
	if (s->n > 0 && from <= s->to[s->n - 1]) {
		if (to > s->to[s->n - 1])
			s->to[s->n - 1] = to;
		return;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		double *f = realloc(s->from, cap * sizeof(*f));
		double *t = f ? realloc(s->to, cap * sizeof(*t)) : NULL;

		if (f != NULL)
			s->from = f;
		if (t == NULL)
			return; /* out of memory: the plot shows less */
		s->to = t;
		s->cap = cap;
	}
	s->from[s->n] = from;
	s->to[s->n] = to;
	s->n++;
}

static void
spans_free(struct spans *s)
{
	free(s->from);
	free(s->to);
	*s = (struct spans){0};
}

static double
ms(int64_t ns)
{
	return (double)ns / 1e6;
}

/* The processing time the recorded samples cover, ms. */
static void
time_range(const struct wm_recorder *rec, double *lo, double *hi)
{
	*lo = ms(rec->origin_ns);
	*hi = *lo;
	for (uint32_t b = 0; b < rec->n_buckets; b++)
		if (rec->count[b] > 0)
			*hi = ms(rec->at_ns[b]);
}

/* "events/1", "events-7". */
static void
subtask_name(const struct wm_topology *topo, const struct wm_job_report *rep,
	     uint32_t id, char *buf, size_t len)
{
	const struct wm_subtask_report *s = &rep->subtasks[id];

	snprintf(buf, len, "%s/%" PRIu32, topo->stages[s->stage].name,
		 s->index);
}

/* The points of the non-empty buckets: times and a subtask's series. */
struct points {
	size_t n;
	double *x, *wm_lo, *wm_hi, *wm_last, *new_last;
};

static bool
points_alloc(struct points *p, size_t n)
{
	*p = (struct points){0};
	p->x = calloc(n + 1, sizeof(double));
	p->wm_lo = calloc(n + 1, sizeof(double));
	p->wm_hi = calloc(n + 1, sizeof(double));
	p->wm_last = calloc(n + 1, sizeof(double));
	p->new_last = calloc(n + 1, sizeof(double));
	return p->x && p->wm_lo && p->wm_hi && p->wm_last && p->new_last;
}

static void
points_free(struct points *p)
{
	free(p->x);
	free(p->wm_lo);
	free(p->wm_hi);
	free(p->wm_last);
	free(p->new_last);
}

static void
watermark_plot(FILE *f, const struct wm_topology *topo,
	       const struct wm_recorder *rec, const struct wm_job_report *rep,
	       uint32_t id)
{
	struct points p;
	struct spans idle = {0}, stall = {0};
	double t_lo, t_hi, y_lo = NAN, y_hi = NAN;
	char name[160], series[200];
	struct wm_svg_plot plot;

	if (!points_alloc(&p, rec->n_buckets)) {
		points_free(&p);
		fputs("<p class=\"note\">out of memory</p>\n", f);
		return;
	}
	time_range(rec, &t_lo, &t_hi);
	for (uint32_t b = 0; b < rec->n_buckets; b++) {
		const struct wm_rec_subtask *s =
			&rec->subtasks[b * rec->n_subtasks + id];
		double at = ms(rec->at_ns[b]);

		if (rec->count[b] == 0)
			continue;
		p.x[p.n] = at;
		p.wm_lo[p.n] = s->wm_lo;
		p.wm_hi[p.n] = s->wm_hi;
		p.wm_last[p.n] = s->wm_last;
		p.new_last[p.n] = s->new_last;
		p.n++;
		y_lo = isnan(y_lo) || s->wm_lo < y_lo ? s->wm_lo : y_lo;
		y_lo = isnan(y_lo) || s->new_lo < y_lo ? s->new_lo : y_lo;
		y_hi = isnan(y_hi) || s->wm_hi > y_hi ? s->wm_hi : y_hi;
		y_hi = isnan(y_hi) || s->new_hi > y_hi ? s->new_hi : y_hi;
		/* A state seen at a sample began at its `since`, or at the
		 * sample before if it began before that one too. */
		if (s->idle_from != INT64_MAX)
			spans_add(&idle, fmax(ms(s->idle_from), t_lo), at);
		if (s->stall_from != INT64_MAX)
			spans_add(&stall,
				  fmax(ms(s->stall_from) +
					       ms(rec->stall_threshold_ns),
				       t_lo),
				  at);
	}
	subtask_name(topo, rep, id, name, sizeof(name));
	fputs("<h3>", f);
	wm_svg_escape(f, name);
	fputs("</h3>\n", f);
	wm_svg_plot_begin(&plot, f, name, PLOT_WIDTH, PLOT_HEIGHT,
			  WM_AXIS_CLOCK, t_lo, t_hi, "processing time (hh:mm)",
			  WM_AXIS_CLOCK, y_lo, y_hi, "event time");
	snprintf(series, sizeof(series), "%s idle", name);
	wm_svg_spans(&plot, series, "idle", idle.n, idle.from, idle.to, 0, 1);
	snprintf(series, sizeof(series), "%s stall", name);
	wm_svg_spans(&plot, series, "stall", stall.n, stall.from, stall.to,
		     0.94, 0.06);
	snprintf(series, sizeof(series), "%s newest event time", name);
	wm_svg_series(&plot, series, "newest", p.n, p.x, NULL, NULL, p.new_last,
		      0);
	snprintf(series, sizeof(series), "%s watermark", name);
	wm_svg_series(&plot, series, "watermark", p.n, p.x, p.wm_lo, p.wm_hi,
		      p.wm_last, 1);
	wm_svg_plot_end(&plot);
	spans_free(&idle);
	spans_free(&stall);
	points_free(&p);
}

/* One row per source partition: records, silence, idleness. */
static void
partition_plot(FILE *f, const struct wm_topology *topo,
	       const struct wm_recorder *rec, const struct wm_job_report *rep)
{
	uint32_t n = rec->n_partitions;
	double t_lo, t_hi;
	struct wm_svg_plot plot;

	if (n == 0)
		return;
	time_range(rec, &t_lo, &t_hi);
	fputs("<h2>Source partitions</h2>\n<p>", f);
	wm_svg_legend(f, "records", "records arrived");
	wm_svg_legend(f, "silent", "silent, not idle");
	wm_svg_legend(f, "rowidle", "idle");
	fputs("</p>\n", f);
	wm_svg_plot_begin(&plot, f, "partitions", PLOT_WIDTH,
			  (int)(n * ROW_HEIGHT) + 56, WM_AXIS_CLOCK, t_lo, t_hi,
			  "processing time (hh:mm)", WM_AXIS_NONE, 0, (double)n,
			  "partition");
	for (uint32_t s = 0; s < rec->n_subtasks; s++)
		for (uint32_t k = rec->first_partition[s];
		     k < rec->first_partition[s + 1]; k++) {
			struct spans got = {0}, silent = {0}, idle = {0};
			uint64_t before = 0;
			double prev = t_lo;
			char name[160], series[200];

			for (uint32_t b = 0; b < rec->n_buckets; b++) {
				const struct wm_rec_partition *x =
					&rec->partitions[b * n + k];
				double at = ms(rec->at_ns[b]), quiet = prev;

				if (rec->count[b] == 0)
					continue;
				if (x->idle_from != INT64_MAX) {
					quiet = fmax(prev, ms(x->idle_from));
					spans_add(&idle, quiet, at);
				} else {
					quiet = at;
				}
				spans_add(x->records > before ? &got : &silent,
					  prev, quiet);
				before = x->records;
				prev = at;
			}
			snprintf(name, sizeof(name), "%s-%" PRIu32,
				 topo->stages[rep->subtasks[s].stage].name,
				 rec->partition_id[k]);
			wm_svg_row_label(&plot, (double)(n - k) - 0.4, name);
			snprintf(series, sizeof(series), "%s records", name);
			wm_svg_spans(&plot, series, "records", got.n, got.from,
				     got.to, (double)k / n, 0.8 / n);
			snprintf(series, sizeof(series), "%s silent", name);
			wm_svg_spans(&plot, series, "silent", silent.n,
				     silent.from, silent.to, (double)k / n,
				     0.8 / n);
			snprintf(series, sizeof(series), "%s idle", name);
			wm_svg_spans(&plot, series, "rowidle", idle.n,
				     idle.from, idle.to, (double)k / n,
				     0.8 / n);
			spans_free(&got);
			spans_free(&silent);
			spans_free(&idle);
		}
	wm_svg_plot_end(&plot);
}

/* The on-time firings' delays, bucket by bucket of the histogram. */
static void
fire_delay_plot(FILE *f, const struct wm_recorder *rec)
{
	double x0[WM_HISTOGRAM_BUCKETS], x1[WM_HISTOGRAM_BUCKETS];
	double y[WM_HISTOGRAM_BUCKETS], top = 0;
	size_t n = 0;
	struct wm_svg_plot plot;

	fputs("<h2>Window fire delay</h2>\n", f);
	for (unsigned b = 0; b < WM_HISTOGRAM_BUCKETS; b++) {
		if (rec->fire_delays[b] == 0)
			continue;
		x0[n] = (double)wm_histogram_lower(b);
		x1[n] = b + 1 < WM_HISTOGRAM_BUCKETS
				? (double)wm_histogram_lower(b + 1)
				: x0[n] + 1;
		y[n] = (double)rec->fire_delays[b];
		top = y[n] > top ? y[n] : top;
		n++;
	}
	if (n == 0) {
		fputs("<p class=\"note\">No window fired on time.</p>\n", f);
		return;
	}
	fputs("<p class=\"note\">Processing time from a window's end to its "
	      "on-time firing: how long results waited for the "
	      "watermark.</p>\n",
	      f);
	wm_svg_plot_begin(&plot, f, "fire delay", PLOT_WIDTH, PLOT_HEIGHT,
			  WM_AXIS_DURATION, 0, x1[n - 1],
			  "delay after the window's end", WM_AXIS_COUNT, 0, top,
			  "windows");
	wm_svg_bars(&plot, "fire delay", "bars", n, x0, x1, y);
	wm_svg_plot_end(&plot);
}

/* Late records so far, one line per partition that had any. */
static void
late_plot(FILE *f, const struct wm_recorder *rec)
{
	uint32_t last = UINT32_MAX, any = 0;
	double t_lo, t_hi, top = 0;
	double *x, *y;
	struct wm_svg_plot plot;
	size_t n = 0;

	fputs("<h2>Late records by partition</h2>\n", f);
	for (uint32_t b = 0; b < rec->n_buckets; b++)
		if (rec->count[b] > 0)
			last = b;
	for (unsigned p = 0;
	     last != UINT32_MAX && p < WM_METRICS_LATE_PARTITIONS; p++) {
		double v =
			(double)rec->late[(size_t)last *
						  WM_METRICS_LATE_PARTITIONS +
					  p];

		any += v > 0;
		top = v > top ? v : top;
	}
	if (any == 0) {
		fputs("<p class=\"note\">No record was late.</p>\n", f);
		return;
	}
	x = calloc(rec->n_buckets + 1, sizeof(double));
	y = calloc(rec->n_buckets + 1, sizeof(double));
	if (x == NULL || y == NULL) {
		free(x);
		free(y);
		fputs("<p class=\"note\">out of memory</p>\n", f);
		return;
	}
	time_range(rec, &t_lo, &t_hi);
	fputs("<p class=\"note\">Records that arrived behind the watermark "
	      "(dropped or sent to the side output), counted so far, by the "
	      "source partition they came from.</p>\n<p>",
	      f);
	for (unsigned p = 0, c = 0; p < WM_METRICS_LATE_PARTITIONS; p++)
		if (rec->late[(size_t)last * WM_METRICS_LATE_PARTITIONS + p] >
		    0) {
			char text[64], cls[8];

			snprintf(cls, sizeof(cls), "c%u", ++c % 6);
			snprintf(text, sizeof(text), "partition %u%s", p,
				 p == WM_METRICS_LATE_PARTITIONS - 1 ? " and up"
								     : "");
			wm_svg_legend(f, cls, text);
		}
	fputs("</p>\n", f);
	wm_svg_plot_begin(&plot, f, "late records", PLOT_WIDTH, PLOT_HEIGHT,
			  WM_AXIS_CLOCK, t_lo, t_hi, "processing time (hh:mm)",
			  WM_AXIS_COUNT, 0, top, "late records so far");
	for (unsigned p = 0, c = 0; p < WM_METRICS_LATE_PARTITIONS; p++) {
		char name[64], cls[16];

		if (rec->late[(size_t)last * WM_METRICS_LATE_PARTITIONS + p] ==
		    0)
			continue;
		n = 0;
		for (uint32_t b = 0; b < rec->n_buckets; b++) {
			if (rec->count[b] == 0)
				continue;
			x[n] = ms(rec->at_ns[b]);
			y[n++] = (double)rec->late
					 [(size_t)b *
						  WM_METRICS_LATE_PARTITIONS +
					  p];
		}
		snprintf(name, sizeof(name), "late partition %u", p);
		snprintf(cls, sizeof(cls), "late c%u", ++c % 6);
		wm_svg_series(&plot, name, cls, n, x, NULL, NULL, y, 1);
	}
	wm_svg_plot_end(&plot);
	free(x);
	free(y);
}

static void row(FILE *f, const char *name, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

static void
row(FILE *f, const char *name, const char *format, ...)
{
	va_list ap;

	fputs("<tr><td class=\"name\">", f);
	wm_svg_escape(f, name);
	fputs("</td><td>", f);
	va_start(ap, format);
	vfprintf(f, format, ap);
	va_end(ap);
	fputs("</td></tr>\n", f);
}

static void
summary_table(FILE *f, const struct wm_topology *topo,
	      const struct wm_job_report *rep)
{
	struct wm_report_delays delays;
	char a[32], b[32];

	fputs("<h2>Summary</h2>\n<table class=\"summary\">\n", f);
	row(f, "outcome", "%s",
	    rep->failed	   ? "failed"
	    : rep->stopped ? "stopped"
			   : "finished");
	row(f, "processing time", "%s",
	    wm_units_format_duration(rep->end_ns, a, sizeof(a)));
	row(f, "records read", "%" PRIu64, rep->records_read);
	row(f, "records windowed", "%" PRIu64, rep->records_windowed);
	row(f, "late records dropped", "%" PRIu64, rep->late_dropped);
	row(f, "late records to the side output", "%" PRIu64,
	    rep->late_side_output);
	row(f, "windows fired (late firings)", "%" PRIu64 " (%" PRIu64 ")",
	    rep->windows_fired, rep->windows_fired_late);
	row(f, "results written", "%" PRIu64, rep->results_written);
	if (rep->fire_delay_max_ms >= 0 && rep->windows_fired > 0) {
		wm_report_fire_delays(rep, &delays);
		row(f, "fire delay p50 / p99 / max", "%s / %s / %s", delays.p50,
		    delays.p99, delays.max);
	}
	row(f, "records per second", "%.0f", wm_report_records_per_s(rep));
	fputs("</table>\n<table class=\"subtasks\">\n<tr><th "
	      "class=\"name\">subtask</th><th>records in</th><th>records "
	      "out</th><th>stalls</th><th>stalled</th><th>longest "
	      "stall</th><th>idle</th></tr>\n",
	      f);
	for (uint32_t id = 0; id < rep->n_subtasks; id++) {
		const struct wm_subtask_report *s = &rep->subtasks[id];
		char name[160], d[32];

		subtask_name(topo, rep, id, name, sizeof(name));
		fputs("<tr><td class=\"name\">", f);
		wm_svg_escape(f, name);
		fprintf(f,
			"</td><td>%" PRIu64 "</td><td>%" PRIu64
			"</td><td>%" PRIu64 "</td><td>%s</td><td>%s</td>"
			"<td>%s</td></tr>\n",
			s->records_in, s->records_out, s->wm.stalls,
			wm_units_format_duration(s->wm.stalled_ns, a,
						 sizeof(a)),
			wm_units_format_duration(s->wm.longest_stall_ns, b,
						 sizeof(b)),
			wm_units_format_duration(s->wm.idle_ns, d, sizeof(d)));
	}
	fputs("</table>\n", f);
}

/* The answer first: what held event time, what flapped, and the settings
 * the figures call for, as the summary says them (advice.h), each group
 * under its heading; or that there is nothing to say. */
static void
answer(FILE *f, const struct wm_topology *topo, const struct wm_job_report *rep)
{
	struct wm_advice a;
	const char *section = NULL;

	fputs("<section class=\"answer\">\n", f);
	if (wm_advice_build(topo, rep, &a) != 0) {
		fputs("<p>The diagnosis could not be made: out of "
		      "memory.</p>\n</section>\n",
		      f);
		return;
	}
	if (a.n == 0)
		fputs("<h2>What held event time</h2>\n<p>Nothing held event "
		      "time long, and the run's figures call for no other "
		      "setting.</p>\n",
		      f);
	for (uint32_t i = 0; i < a.n; i++) {
		const struct wm_advice_line *l = &a.lines[i];
		const char *key = wm_advice_key(l->kind);
		const char *heading = wm_advice_heading(l->kind);

		/* The summary's heading, capitalised as the page's are. */
		if (section == NULL || strcmp(section, heading) != 0)
			fprintf(f, "%s<h2>%c%s</h2>\n<ul>\n",
				section == NULL ? "" : "</ul>\n",
				toupper((unsigned char)heading[0]),
				heading + 1);
		section = heading;
		fputs("<li>", f);
		if (key != NULL)
			fprintf(f, "<code>%s</code> = ", key);
		wm_svg_escape(f, l->text);
		fputs("</li>\n", f);
	}
	if (section != NULL)
		fputs("</ul>\n", f);
	fputs("</section>\n", f);
	wm_advice_free(&a);
}

void
wm_job_page_write(FILE *f, const struct wm_topology *topo,
		  const struct wm_recorder *rec,
		  const struct wm_job_report *rep)
{
	char title[512], step[32];

	snprintf(title, sizeof(title), "wmrun report: %s", topo->file);
	wm_svg_page_begin(f, title);
	fprintf(f,
		"<p class=\"note\">%" PRIu64 " samples of the job, kept in "
		"buckets of %s of processing time%s.</p>\n",
		rec->samples,
		wm_axis_duration(ms(rec->step_ns), step, sizeof(step)),
		rep->sim ? " (--sim: simulated processing time)" : "");
	answer(f, topo, rep);
	fputs("<h2>Watermarks</h2>\n<p class=\"note\">Each subtask's output "
	      "watermark against processing time, and the newest event time "
	      "it saw: the gap between them is how far event time lags. A "
	      "flat watermark under a rising newest event time is held "
	      "back.</p>\n<p>",
	      f);
	wm_svg_legend(f, "watermark", "output watermark");
	wm_svg_legend(f, "newest", "newest event time");
	wm_svg_legend(f, "idle", "idle");
	wm_svg_legend(f, "stall", "stalled (held past stall_threshold)");
	fputs("</p>\n", f);
	for (uint32_t id = 0; id < rec->n_subtasks && id < rep->n_subtasks;
	     id++)
		watermark_plot(f, topo, rec, rep, id);
	partition_plot(f, topo, rec, rep);
	fire_delay_plot(f, rec);
	late_plot(f, rec);
	summary_table(f, topo, rep);
	wm_svg_page_end(f);
}
