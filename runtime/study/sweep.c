/*
 * sweep.c
 *	--sweep's axes, combinations, rows and tables (sweep.h); running them
 *	is sweep_run.c's. Pure: no I/O but the FILE the caller passes.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"
#include "runtime/study/sweep.h"

static char *
dup_range(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d != NULL) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* `s` trimmed of blanks at both ends, copied. */
static char *
dup_trimmed(const char *s, size_t n)
{
	while (n > 0 && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return dup_range(s, n);
}

static void
axis_free(struct wm_sweep_axis *a)
{
	free(a->option);
	free(a->section);
	free(a->key);
	for (size_t i = 0; i < a->n_values; i++)
		free(a->values[i]);
	free(a->values);
}

/* a's values from the comma-separated `list`: 0, -EINVAL (an empty value)
 * or -ENOMEM. */
static int
split_values(struct wm_sweep_axis *a, const char *list)
{
	size_t n = 1;

	for (const char *c = list; *c; c++)
		n += *c == ',';
	a->values = calloc(n, sizeof(*a->values));
	if (a->values == NULL)
		return -ENOMEM;
	for (const char *c = list;; c++) {
		const char *comma = strchr(c, ',');
		size_t len = comma ? (size_t)(comma - c) : strlen(c);
		char *v = dup_trimmed(c, len);

		if (v == NULL)
			return -ENOMEM;
		a->values[a->n_values++] = v;
		if (v[0] == '\0')
			return -EINVAL;
		if (comma == NULL)
			return 0;
		c = comma;
	}
}

int
wm_sweep_add_axis(struct wm_sweep *s, const char *arg, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	const char *dot = strchr(arg, '.');
	struct wm_sweep_axis a = {0};
	struct wm_sweep_axis *axes;
	int r;

	if (eq == NULL || dot == NULL || dot > eq || dot == arg ||
	    dot + 1 == eq) {
		snprintf(err, errlen,
			 "invalid --sweep \"%s\": expected "
			 "SECTION.KEY=VALUE,VALUE,...",
			 arg);
		return -EINVAL;
	}
	a.option = dup_trimmed(arg, (size_t)(eq - arg));
	a.section = dup_range(arg, (size_t)(dot - arg));
	a.key = dup_trimmed(dot + 1, (size_t)(eq - dot - 1));
	if (a.option == NULL || a.section == NULL || a.key == NULL) {
		axis_free(&a);
		return -ENOMEM;
	}
	r = split_values(&a, eq + 1);
	if (r == -EINVAL)
		snprintf(err, errlen,
			 "invalid --sweep \"%s\": a value in the list is "
			 "empty",
			 arg);
	for (size_t i = 0; r == 0 && i < s->n_axes; i++)
		if (strcmp(s->axes[i].section, a.section) == 0 &&
		    strcmp(s->axes[i].key, a.key) == 0) {
			snprintf(err, errlen,
				 "invalid --sweep \"%s\": \"%s\" is swept "
				 "twice",
				 arg, a.option);
			r = -EINVAL;
		}
	if (r == 0 && s->n_axes == WM_SWEEP_MAX_AXES) {
		snprintf(err, errlen,
			 "invalid --sweep \"%s\": at most %d keys can be "
			 "swept",
			 arg, WM_SWEEP_MAX_AXES);
		r = -EINVAL;
	}
	if (r == 0) {
		axes = realloc(s->axes, (s->n_axes + 1) * sizeof(*axes));
		if (axes == NULL)
			r = -ENOMEM;
		else
			s->axes = axes;
	}
	if (r != 0) {
		axis_free(&a);
		return r;
	}
	s->axes[s->n_axes++] = a;
	return 0;
}

void
wm_sweep_free(struct wm_sweep *s)
{
	for (size_t i = 0; i < s->n_axes; i++)
		axis_free(&s->axes[i]);
	free(s->axes);
	*s = (struct wm_sweep){0};
}

size_t
wm_sweep_combinations(const struct wm_sweep *s)
{
	size_t n = 1;

	for (size_t i = 0; i < s->n_axes; i++)
		n *= s->axes[i].n_values;
	return n;
}

void
wm_sweep_combination(const struct wm_sweep *s, size_t i, size_t *idx)
{
	for (size_t a = s->n_axes; a-- > 0;) {
		idx[a] = i % s->axes[a].n_values;
		i /= s->axes[a].n_values;
	}
}

void
wm_sweep_describe(const struct wm_sweep *s, size_t i, char *buf, size_t len)
{
	size_t idx[WM_SWEEP_MAX_AXES];
	size_t at = 0;

	buf[0] = '\0';
	wm_sweep_combination(s, i, idx);
	for (size_t a = 0; a < s->n_axes && at < len; a++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s=%s",
				       a ? ", " : "", s->axes[a].option,
				       s->axes[a].values[idx[a]]);
}

void
wm_sweep_row_from_report(const struct wm_topology *t,
			 const struct wm_job_report *rep,
			 struct wm_sweep_row *row)
{
	int64_t stalled = 0;
	uint32_t windows = 0;

	for (uint32_t i = 0; i < rep->n_subtasks; i++) {
		const struct wm_subtask_report *st = &rep->subtasks[i];

		if (t->stages[st->stage].kind != WM_STAGE_WINDOW)
			continue;
		stalled += st->wm.stalled_ns;
		windows++;
	}
	row->stall_fraction = windows > 0 && rep->end_ns > 0
				      ? (double)stalled / (double)windows /
						(double)rep->end_ns
				      : 0.0;
	row->fired = rep->windows_fired > rep->fire_delays_excluded;
	row->fire_delay_p50_ms = rep->fire_delay_p50_ms;
	row->fire_delay_p99_ms = rep->fire_delay_p99_ms;
	row->fire_delay_max_ms = rep->fire_delay_max_ms;
	row->records_read = rep->records_read;
	row->late_records = rep->late_dropped + rep->late_side_output;
	row->late_ratio =
		rep->records_read > 0
			? (double)row->late_records / (double)rep->records_read
			: 0.0;
	row->records_per_s = wm_report_records_per_s(rep);
	row->accounted = wm_report_accounted(rep);
}

/* The width of axis a's column: its name or its longest value. */
static int
axis_width(const struct wm_sweep_axis *a)
{
	size_t w = strlen(a->option);

	for (size_t i = 0; i < a->n_values; i++)
		if (strlen(a->values[i]) > w)
			w = strlen(a->values[i]);
	return (int)w;
}

/* A fire delay in the summary's units ("9.0 s", "7 h 59 min"); the CSV
 * keeps the milliseconds. */
static void
print_delay(FILE *f, const struct wm_sweep_row *r, int64_t ms)
{
	char d[48];

	fprintf(f, " %11s",
		r->fired ? wm_units_format_duration_ms(ms, d, sizeof(d)) : "-");
}

void
wm_sweep_print_table(FILE *f, const struct wm_sweep *s,
		     const struct wm_sweep_row *rows)
{
	size_t n = wm_sweep_combinations(s);
	size_t idx[WM_SWEEP_MAX_AXES];

	for (size_t a = 0; a < s->n_axes; a++)
		fprintf(f, "%-*s  ", axis_width(&s->axes[a]),
			s->axes[a].option);
	fprintf(f, "%8s %11s %11s %11s %9s %12s  %s\n", "stall", "p50", "p99",
		"max", "late", "records/s", "accounted");
	for (size_t i = 0; i < n; i++) {
		const struct wm_sweep_row *r = &rows[i];

		if (r->skipped)
			continue;
		wm_sweep_combination(s, i, idx);
		for (size_t a = 0; a < s->n_axes; a++)
			fprintf(f, "%-*s  ", axis_width(&s->axes[a]),
				s->axes[a].values[idx[a]]);
		if (r->status != 0 && r->records_read == 0 && !r->cut) {
			fprintf(f, "failed (exit %d): %s\n", r->status,
				r->error);
			continue;
		}
		fprintf(f, "%7.2f%%", 100.0 * r->stall_fraction);
		print_delay(f, r, r->fire_delay_p50_ms);
		print_delay(f, r, r->fire_delay_p99_ms);
		print_delay(f, r, r->fire_delay_max_ms);
		fprintf(f, " %8.3f%% %12.0f  %s", 100.0 * r->late_ratio,
			r->records_per_s, r->accounted ? "yes" : "no");
		if (r->cut)
			fprintf(f, " (cut short, exit %d: %s)", r->status,
				r->error);
		else if (r->status != 0)
			fprintf(f, " (exit %d: %s)", r->status, r->error);
		fputc('\n', f);
	}
}

/* `v` as one CSV field: quoted when it holds a comma, quote or line
 * break (RFC 4180). */
static void
csv_field(FILE *f, const char *v)
{
	if (strpbrk(v, ",\"\r\n") == NULL) {
		fputs(v, f);
		return;
	}
	fputc('"', f);
	for (; *v; v++) {
		if (*v == '"')
			fputc('"', f);
		fputc(*v, f);
	}
	fputc('"', f);
}

void
wm_sweep_print_csv(FILE *f, const struct wm_sweep *s,
		   const struct wm_sweep_row *rows)
{
	size_t n = wm_sweep_combinations(s);
	size_t idx[WM_SWEEP_MAX_AXES];

	for (size_t a = 0; a < s->n_axes; a++) {
		csv_field(f, s->axes[a].option);
		fputc(',', f);
	}
	fputs("stall_fraction,fire_delay_p50_ms,fire_delay_p99_ms,"
	      "fire_delay_max_ms,late_ratio,records_read,late_records,"
	      "records_per_s,all_records_accounted,exit_status\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		const struct wm_sweep_row *r = &rows[i];

		if (r->skipped)
			continue;
		wm_sweep_combination(s, i, idx);
		for (size_t a = 0; a < s->n_axes; a++) {
			csv_field(f, s->axes[a].values[idx[a]]);
			fputc(',', f);
		}
		fprintf(f, "%.6f,", r->stall_fraction);
		if (r->fired)
			fprintf(f, "%" PRId64 ",%" PRId64 ",%" PRId64 ",",
				r->fire_delay_p50_ms, r->fire_delay_p99_ms,
				r->fire_delay_max_ms);
		else
			fputs(",,,", f);
		fprintf(f, "%.6f,%" PRIu64 ",%" PRIu64 ",%.1f,%s,%d\n",
			r->late_ratio, r->records_read, r->late_records,
			r->records_per_s, r->accounted ? "true" : "false",
			r->status);
	}
}
