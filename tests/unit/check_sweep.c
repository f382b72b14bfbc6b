/*
 * check_sweep.c
 *	Unit tests for runtime/study/: overrides of a topology's text (keys
 *	replaced in place, added after their section's header, removed), the
 *	refusals naming the override, a sweep's axes and combinations, and
 *	the rows and table of a small sweep run for real under --sim.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/study/override.h"
#include "runtime/study/sweep.h"
#include "runtime/study/sweep_progress.h"
#include "tests/unit/check_main.h"

static const char topo[] = "[job]\n"
			   "event_time = 1 h\n"
			   "seed = 1\n"
			   "\n"
			   "[source events]\n"
			   "parallelism = 2\n"
			   "partitions = 4\n"
			   "rate = 1/s\n"
			   "keys = 4\n"
			   "idle_timeout = 30 s\n"
			   "silence = 3 from 10 min to 40 min\n"
			   "\n"
			   "[window counts]\n"
			   "input = events\n"
			   "parallelism = 1\n"
			   "type = tumbling\n"
			   "size = 1 min\n"
			   "\n"
			   "[sink out]\n"
			   "input = counts\n"
			   "parallelism = 1\n"
			   "path = out.csv\n";

/* Apply `n` overrides to topo; the result must be `ok`. */
static int
apply(const struct wm_override *ov, size_t n, struct wm_override_text *out,
      size_t *bad, char *err)
{
	return wm_override_apply(topo, strlen(topo), "t.conf", ov, n, out, bad,
				 err, 512);
}

/* ------------------------------------------------------------------ */
/* tcase override */

START_TEST(test_sweep_override_replaces_in_place_and_keeps_lines)
{
	const struct wm_override ov[] = {{"events", "parallelism", "4", false},
					 {"job", "seed", "7", false}};
	struct wm_override_text out;
	char err[512];
	size_t bad;

	ck_assert_int_eq(apply(ov, 2, &out, &bad, err), 0);
	ck_assert_ptr_nonnull(strstr(out.text, "[source events]\n"
					       "parallelism = 4\n"));
	ck_assert_ptr_nonnull(strstr(out.text, "seed = 7\n"));
	ck_assert_ptr_null(strstr(out.text, "parallelism = 2\n"
					    "partitions"));
	ck_assert_int_eq(out.n_lines, 22);
	for (int l = 1; l <= 22; l++)
		ck_assert_int_eq(wm_override_orig_line(&out, l), l);
	wm_override_text_free(&out);
}
END_TEST

START_TEST(test_sweep_override_adds_after_header_and_maps_lines)
{
	const struct wm_override ov[] = {
		{"counts", "allowed_lateness", "1s", false},
		{"events", "idle_timeout", "none", false},
		{"global", "parallelism", "1", false}};
	struct wm_override_text out;
	char err[512];
	size_t bad;

	ck_assert_int_eq(apply(ov, 3, &out, &bad, err), 0);
	ck_assert_ptr_nonnull(strstr(out.text, "[window counts]\n"
					       "allowed_lateness = 1s\n"
					       "input = events\n"));
	ck_assert_ptr_null(strstr(out.text, "idle_timeout = 30 s"));
	ck_assert_ptr_nonnull(strstr(out.text, "\n[global]\n"
					       "parallelism = 1\n"));
	/* window header at 13, its added key, then line 14 again */
	ck_assert_int_eq(wm_override_orig_line(&out, 13), 13);
	ck_assert_int_eq(wm_override_orig_line(&out, 14), 0);
	ck_assert_int_eq(wm_override_orig_line(&out, 15), 14);
	ck_assert_int_eq(wm_override_orig_line(&out, out.n_lines), 0);
	wm_override_text_free(&out);
}
END_TEST

START_TEST(test_sweep_override_quotes_values_the_reader_would_cut)
{
	const struct wm_override ov[] = {{"out", "path", "a #b", false}};
	struct wm_override_text out;
	char err[512];
	size_t bad;

	ck_assert_int_eq(apply(ov, 1, &out, &bad, err), 0);
	ck_assert_ptr_nonnull(strstr(out.text, "path = \"a #b\"\n"));
	wm_override_text_free(&out);
}
END_TEST

START_TEST(test_sweep_override_refuses_unknown_section_key_and_repeats)
{
	const struct wm_override unknown_stage[] = {
		{"events", "seed", "1", false},
		{"clicks", "rate", "1/s", false}};
	const struct wm_override unknown_key[] = {
		{"events", "idle_timout", "1s", false}};
	const struct wm_override job_key[] = {{"job", "rate", "1/s", false}};
	struct wm_override_text out;
	char err[512];
	size_t bad;

	ck_assert_int_eq(apply(unknown_stage, 2, &out, &bad, err), -EINVAL);
	ck_assert_uint_eq(bad, 0); /* seed is a [job] key */
	ck_assert_int_eq(apply(unknown_stage + 1, 1, &out, &bad, err), -EINVAL);
	ck_assert_str_eq(err, "the topology has no stage named \"clicks\"");
	ck_assert_int_eq(apply(unknown_key, 1, &out, &bad, err), -EINVAL);
	ck_assert_str_eq(err, "unrecognized key \"idle_timout\" for source "
			      "\"events\" (did you mean \"idle_timeout\")");
	ck_assert_int_eq(apply(job_key, 1, &out, &bad, err), -EINVAL);
	ck_assert_uint_eq(bad, 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase axes */

START_TEST(test_sweep_axes_parse_and_combine_last_fastest)
{
	struct wm_sweep s = {0};
	size_t idx[2];
	char err[512], buf[256];

	ck_assert_int_eq(wm_sweep_add_axis(&s, "events.parallelism=1, 2", err,
					   sizeof(err)),
			 0);
	ck_assert_int_eq(wm_sweep_add_axis(&s,
					   "job.pipeline.auto-watermark-"
					   "interval=100ms,1s,5s",
					   err, sizeof(err)),
			 0);
	ck_assert_str_eq(s.axes[1].section, "job");
	ck_assert_str_eq(s.axes[1].key, "pipeline.auto-watermark-interval");
	ck_assert_str_eq(s.axes[0].values[1], "2");
	ck_assert_uint_eq(wm_sweep_combinations(&s), 6);
	wm_sweep_combination(&s, 4, idx);
	ck_assert_uint_eq(idx[0], 1);
	ck_assert_uint_eq(idx[1], 1);
	wm_sweep_describe(&s, 2, buf, sizeof(buf));
	ck_assert_str_eq(buf, "events.parallelism=1, "
			      "job.pipeline.auto-watermark-interval=5s");
	wm_sweep_free(&s);
}
END_TEST

START_TEST(test_sweep_axes_refuse_malformed_lists_naming_the_option)
{
	static const char *const bad[] = {
		"parallelism=1,2", "events.parallelism",   ".x=1",
		"events.=1",	   "events.rate=1/s,,2/s", "events.rate=",
	};
	struct wm_sweep s = {0};
	char err[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(
			wm_sweep_add_axis(&s, bad[i], err, sizeof(err)),
			-EINVAL);
		ck_assert_ptr_nonnull(strstr(err, bad[i]));
	}
	ck_assert_uint_eq(s.n_axes, 0);
	ck_assert_int_eq(
		wm_sweep_add_axis(&s, "events.rate=1/s", err, sizeof(err)), 0);
	ck_assert_int_eq(
		wm_sweep_add_axis(&s, "events.rate=2/s", err, sizeof(err)),
		-EINVAL);
	ck_assert_str_eq(err, "invalid --sweep \"events.rate=2/s\": "
			      "\"events.rate\" is swept twice");
	wm_sweep_free(&s);
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase run */

/* Idleness removes the stall the silent partition causes; the rows come
 * back in combination order, the same on every run, and a bad value names
 * its combination and the line of the user's file. */
START_TEST(test_sweep_run_idle_timeout_removes_the_stall)
{
	struct wm_sweep s = {0};
	struct wm_sweep_row rows[3], again[3];
	char err[4400];

	ck_assert_int_eq(wm_sweep_add_axis(&s,
					   "events.idle_timeout=none,1 min,"
					   "5 min",
					   err, sizeof(err)),
			 0);
	ck_assert_int_eq(wm_sweep_run(&s, topo, strlen(topo), "t.conf", 2, NULL,
				      rows, err, sizeof(err)),
			 0);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(rows[i].status, 0);
		ck_assert(rows[i].accounted);
		ck_assert(rows[i].fired);
	}
	/* 30 min of silence in 1 h: held for about half the job */
	ck_assert(rows[0].stall_fraction > 0.4);
	ck_assert(rows[0].stall_fraction > rows[2].stall_fraction);
	ck_assert(rows[2].stall_fraction > rows[1].stall_fraction);
	ck_assert(rows[0].fire_delay_max_ms > rows[2].fire_delay_max_ms);
	ck_assert_int_eq(wm_sweep_run(&s, topo, strlen(topo), "t.conf", 1, NULL,
				      again, err, sizeof(err)),
			 0);
	ck_assert_mem_eq(rows, again, sizeof(rows));
	wm_sweep_free(&s);

	ck_assert_int_eq(wm_sweep_add_axis(&s, "events.partitions=4,0", err,
					   sizeof(err)),
			 0);
	ck_assert_int_eq(wm_sweep_run(&s, topo, strlen(topo), "t.conf", 2, NULL,
				      rows, err, sizeof(err)),
			 78);
	ck_assert_ptr_nonnull(strstr(err, "--sweep combination "
					  "events.partitions=0: t.conf:7:"));
	wm_sweep_free(&s);
}
END_TEST

#define SECOND_NS 1000000000LL

/* The lines a progress of `runs` says when its runs end at the times
 * ends_s[0..n) (seconds after its start), a line at most every every_s
 * (0: after each run). */
static char *
progress_lines(size_t runs, int64_t every_s, const double *ends_s, size_t n)
{
	struct wm_sweep_progress p;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(m);
	wm_sweep_progress_start(&p, m, runs, 5 * SECOND_NS,
				every_s * SECOND_NS);
	for (size_t i = 0; i < n; i++)
		wm_sweep_progress_run_done(
			&p, 5 * SECOND_NS + (int64_t)(ends_s[i] * 1e9));
	ck_assert_int_eq(fclose(m), 0);
	return text;
}

START_TEST(test_progress_says_runs_done_and_time_left)
{
	/* Real runs of a minute: a line after each, the time left at the
	 * pace so far, the last one the total. */
	const double minutes[] = {60, 120, 180, 240};
	char *text = progress_lines(4, 0, minutes, 4);

	ck_assert_str_eq(text,
			 "wmrun: --sweep: 1 of 4 runs done, 1 min 0 s so far, "
			 "about 3 min 0 s left\n"
			 "wmrun: --sweep: 2 of 4 runs done, 2 min 0 s so far, "
			 "about 2 min 0 s left\n"
			 "wmrun: --sweep: 3 of 4 runs done, 3 min 0 s so far, "
			 "about 1 min 0 s left\n"
			 "wmrun: --sweep: 4 of 4 runs done in 4 min 0 s\n");
	free(text);

	/* Short runs, a line a second at most: none before the first
	 * second, then one at 1.0 s (7 done of 16: 1.3 s left at that
	 * pace), the next at 2.0 s, and the total. */
	const double short_runs[] = {0.1, 0.3, 0.5, 0.6, 0.8, 0.9, 1.0, 1.2,
				     1.4, 1.6, 1.8, 2.0, 2.1, 2.2, 2.3, 2.4};
	text = progress_lines(16, 1, short_runs, 16);
	ck_assert_str_eq(text,
			 "wmrun: --sweep: 7 of 16 runs done, 1.0 s so far, "
			 "about 1.3 s left\n"
			 "wmrun: --sweep: 12 of 16 runs done, 2.0 s so far, "
			 "about 666 ms left\n"
			 "wmrun: --sweep: 16 of 16 runs done in 2.4 s\n");
	free(text);

	/* A sweep over within the second says nothing; nor one with no
	 * stream (--quiet). */
	text = progress_lines(3, 1, short_runs, 3);
	ck_assert_str_eq(text, "");
	free(text);
	struct wm_sweep_progress quiet;

	wm_sweep_progress_start(&quiet, NULL, 1, 0, 0);
	wm_sweep_progress_run_done(&quiet, SECOND_NS);
	ck_assert_uint_eq(quiet.done, 1);
}
END_TEST

static Suite *
sweep_suite(void)
{
	Suite *s = suite_create("sweep");
	TCase *tc;

	tc = tcase_create("override");
	tcase_add_test(tc,
		       test_sweep_override_replaces_in_place_and_keeps_lines);
	tcase_add_test(tc,
		       test_sweep_override_adds_after_header_and_maps_lines);
	tcase_add_test(tc,
		       test_sweep_override_quotes_values_the_reader_would_cut);
	tcase_add_test(
		tc,
		test_sweep_override_refuses_unknown_section_key_and_repeats);
	suite_add_tcase(s, tc);

	tc = tcase_create("axes");
	tcase_add_test(tc, test_sweep_axes_parse_and_combine_last_fastest);
	tcase_add_test(tc, test_progress_says_runs_done_and_time_left);
	tcase_add_test(
		tc, test_sweep_axes_refuse_malformed_lists_naming_the_option);
	suite_add_tcase(s, tc);

	tc = tcase_create("run");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_sweep_run_idle_timeout_removes_the_stall);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(sweep_suite());
}
