/*
 * check_sweep_page.c
 *	Unit tests for runtime/study/sweep_page.c: a sweep's page names every
 *	curve it drew with its points, one curve per value of the other axes;
 *	its x axis is numeric, in human durations or a column per value as
 *	the first axis's values are; a run that failed leaves a gap; the
 *	table holds every run.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/study/sweep.h"
#include "runtime/study/sweep_page.h"
#include "tests/unit/check_main.h"

/* The page of `s` with rows[] into a string the caller frees. */
static char *
page(const struct wm_sweep *s, const struct wm_sweep_row *rows)
{
	char *html = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&html, &len);

	ck_assert_ptr_nonnull(f);
	wm_sweep_page_write(f, s, rows, "study.conf");
	ck_assert_int_eq(fclose(f), 0);
	return html;
}

/* The data-points of the element naming series `name`; -1: none. */
static long
points_of(const char *html, const char *name)
{
	char key[300];
	const char *at;

	snprintf(key, sizeof(key), "data-series=\"%s\" data-points=\"", name);
	at = strstr(html, key);
	return at != NULL ? strtol(at + strlen(key), NULL, 10) : -1;
}

static void
add_axis(struct wm_sweep *s, const char *arg)
{
	char err[256];

	ck_assert_msg(wm_sweep_add_axis(s, arg, err, sizeof(err)) == 0, "%s",
		      err);
}

/* A row that ran: stall `stall`, windows fired (p50 = p99 = max =
 * delay_ms) unless delay_ms < 0. */
static struct wm_sweep_row
row(double stall, int64_t delay_ms, double late)
{
	return (struct wm_sweep_row){
		.stall_fraction = stall,
		.fired = delay_ms >= 0,
		.fire_delay_p50_ms = delay_ms,
		.fire_delay_p99_ms = delay_ms,
		.fire_delay_max_ms = delay_ms,
		.records_read = 1000,
		.late_records = (uint64_t)(late * 1000),
		.late_ratio = late,
		.records_per_s = 1e6,
		.accounted = true,
	};
}

START_TEST(test_sweep_page_draws_a_curve_per_value_of_the_other_axes)
{
	struct wm_sweep s = {0};
	struct wm_sweep_row rows[8];
	char *html;

	add_axis(&s, "events.parallelism=1,2,4,8");
	add_axis(&s, "events.watermark_at=split,subtask");
	/* Last axis fastest: (1, split), (1, subtask), (2, split) ... */
	for (int i = 0; i < 8; i++)
		rows[i] = row(i % 2 ? 0.1 * i : 0.01, i % 2 ? 60000 * i : 500,
			      i % 2 ? 0.0 : 0.02);
	/* (4, subtask) failed before reading anything; at (8, split) no
	 * window fired on time. */
	rows[5] = (struct wm_sweep_row){.status = 70};
	strcpy(rows[5].error, "internal error");
	rows[6].fired = false;
	html = page(&s, rows);
	for (const char *const *p =
		     (const char *const[]){"stall fraction", "fire delay p50",
					   "fire delay p99", "fire delay max",
					   "late ratio", NULL};
	     *p != NULL; p++) {
		char split[200], subtask[200];

		snprintf(split, sizeof(split), "data-plot=\"%s\"", *p);
		ck_assert_ptr_nonnull(strstr(html, split));
		snprintf(split, sizeof(split),
			 "%s at events.watermark_at=split", *p);
		snprintf(subtask, sizeof(subtask),
			 "%s at events.watermark_at=subtask", *p);
		/* A gap where the run failed; fire delays none where no
		 * window fired. */
		ck_assert_int_eq(points_of(html, subtask), 3);
		ck_assert_int_eq(points_of(html, split),
				 strstr(*p, "fire delay") ? 3 : 4);
	}
	/* Numbers: placed as numbers, labelled at the values swept (no
	 * parallelism 1.5 between them). */
	ck_assert_ptr_nonnull(strstr(html, ">events.parallelism<"));
	ck_assert_ptr_nonnull(strstr(html, ">4</text>"));
	ck_assert_ptr_nonnull(strstr(html, ">8</text>"));
	ck_assert_ptr_null(strstr(html, ">1.5</text>"));
	/* The table: every run, the failed one saying why; delays human. */
	ck_assert_ptr_nonnull(strstr(html, "failed (exit 70): internal error"));
	ck_assert_ptr_nonnull(strstr(html, "<td>7 min</td>"));
	ck_assert_ptr_null(strstr(html, "<script"));
	free(html);
	wm_sweep_free(&s);
}
END_TEST

START_TEST(test_sweep_page_x_axis_is_columns_or_durations_as_the_values)
{
	struct wm_sweep s = {0}, d = {0};
	struct wm_sweep_row rows[3] = {row(0.5, 3600000, 0), row(0, 1000, 0.1),
				       row(0, 1000, 0.2)};
	char *html;

	/* "none" is no duration: a column per value, labelled as given. */
	add_axis(&s, "events.idle_timeout=none,1s,30s");
	html = page(&s, rows);
	ck_assert_int_eq(points_of(html, "stall fraction"), 3);
	ck_assert_int_eq(points_of(html, "late ratio"), 3);
	ck_assert_ptr_nonnull(strstr(html, ">none</text>"));
	ck_assert_ptr_nonnull(strstr(html, ">30s</text>"));
	ck_assert_ptr_nonnull(strstr(html, "<td>1 h</td>"));
	free(html);
	/* Durations only: a duration axis in human units. */
	add_axis(&d, "events.idle_timeout=1s,30s,5min");
	html = page(&d, rows);
	ck_assert_int_eq(points_of(html, "fire delay max"), 3);
	ck_assert_ptr_nonnull(strstr(html, "events.idle_timeout (duration)"));
	ck_assert_ptr_nonnull(strstr(html, ">5 min</text>"));
	ck_assert_ptr_null(strstr(html, ">none</text>"));
	free(html);
	wm_sweep_free(&s);
	wm_sweep_free(&d);
}
END_TEST

/* The cx of each <circle> of curve class c1 in the first plot, in order,
 * into cx[]; how many. */
static size_t
dots(const char *html, double *cx, size_t most)
{
	const char *at = html, *end = strstr(html, "</svg>");
	size_t n = 0;

	ck_assert_ptr_nonnull(end);
	while (n < most &&
	       (at = strstr(at, "<circle class=\"series c1\" cx=\"")) != NULL) {
		if (at > end)
			break;
		at += strlen("<circle class=\"series c1\" cx=\"");
		cx[n++] = strtod(at, NULL);
	}
	return n;
}

/* Parallelism 1, 2, 4, 8: a log-2 scale, the points equally spaced and
 * labelled as given; 1, 3, 4 stay on a linear one. */
START_TEST(test_sweep_page_puts_powers_of_two_on_a_log_scale)
{
	struct wm_sweep s = {0}, lin = {0};
	struct wm_sweep_row rows[4] = {row(0.5, 1000, 0), row(0.4, 1000, 0),
				       row(0.3, 1000, 0), row(0.2, 1000, 0)};
	double cx[8];
	char *html;

	add_axis(&s, "counts.parallelism=1,2,4,8");
	html = page(&s, rows);
	ck_assert_uint_eq(dots(html, cx, 8), 4);
	double step1 = cx[1] - cx[0], step2 = cx[2] - cx[1],
	       step3 = cx[3] - cx[2];

	ck_assert(step1 > 10);
	ck_assert_double_eq_tol(step1, step2, 0.11);
	ck_assert_double_eq_tol(step2, step3, 0.11);
	ck_assert_ptr_nonnull(strstr(html, "counts.parallelism (log 2 scale)"));
	ck_assert_ptr_nonnull(strstr(html, ">8</text>"));
	free(html);
	add_axis(&lin, "counts.parallelism=1,3,4");
	html = page(&lin, rows);
	ck_assert_uint_eq(dots(html, cx, 8), 3);
	ck_assert(cx[1] - cx[0] > 1.5 * (cx[2] - cx[1]));
	ck_assert_ptr_null(strstr(html, "log 2 scale"));
	free(html);
	wm_sweep_free(&s);
	wm_sweep_free(&lin);
}
END_TEST

static Suite *
sweep_page_suite(void)
{
	Suite *s = suite_create("sweep_page");
	TCase *tc = tcase_create("page");

	tcase_add_test(
		tc, test_sweep_page_draws_a_curve_per_value_of_the_other_axes);
	tcase_add_test(
		tc,
		test_sweep_page_x_axis_is_columns_or_durations_as_the_values);
	tcase_add_test(tc, test_sweep_page_puts_powers_of_two_on_a_log_scale);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(sweep_page_suite());
}
