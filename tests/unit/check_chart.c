/*
 * check_chart.c
 *	Unit tests of the report's charts: human ticks and labels of time,
 *	the recorder's bounded buckets that keep peaks, and the page naming
 *	every series it drew.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/chart/axis.h"
#include "runtime/chart/job_page.h"
#include "runtime/chart/recorder.h"
#include "runtime/chart/svg.h"
#include "runtime/observe/snapshot.h"
#include "runtime/report/report.h"
#include "tests/unit/check_main.h"
#include "tests/unit/job_blocks.h"

#define MS 1000000LL
#define HOUR_MS 3600000.0

START_TEST(test_axis_eight_hours_ticks_every_hour_as_clock)
{
	struct wm_axis_ticks t;
	char buf[64];

	wm_axis_ticks(WM_AXIS_CLOCK, 0, 8 * HOUR_MS, 10, &t);
	ck_assert_uint_eq(t.n, 9);
	ck_assert(t.step == HOUR_MS);
	ck_assert_str_eq(
		wm_axis_label(WM_AXIS_CLOCK, t.at[0], t.step, buf, sizeof(buf)),
		"00:00");
	ck_assert_str_eq(
		wm_axis_label(WM_AXIS_CLOCK, t.at[1], t.step, buf, sizeof(buf)),
		"01:00");
	ck_assert_str_eq(
		wm_axis_label(WM_AXIS_CLOCK, t.at[8], t.step, buf, sizeof(buf)),
		"08:00");
}
END_TEST

START_TEST(test_axis_ticks_sit_on_round_steps)
{
	struct wm_axis_ticks t;
	char buf[64];

	/* 00:07 to 01:53 in at most 5 ticks: 00:30, 01:00, 01:30. */
	wm_axis_ticks(WM_AXIS_CLOCK, 7 * 60000.0, 113 * 60000.0, 5, &t);
	ck_assert(t.step == 30 * 60000.0);
	ck_assert_uint_eq(t.n, 3);
	ck_assert_str_eq(
		wm_axis_label(WM_AXIS_CLOCK, t.at[0], t.step, buf, sizeof(buf)),
		"00:30");
	/* Seconds show when the step needs them; days past the first. */
	ck_assert_str_eq(
		wm_axis_label(WM_AXIS_CLOCK, 90000, 15000, buf, sizeof(buf)),
		"00:01:30");
	ck_assert_str_eq(wm_axis_label(WM_AXIS_CLOCK, 26 * HOUR_MS, HOUR_MS,
				       buf, sizeof(buf)),
			 "1d 02:00");
	/* An epoch time is a date. */
	ck_assert_str_eq(wm_axis_label(WM_AXIS_CLOCK, 1709294400000.0, HOUR_MS,
				       buf, sizeof(buf)),
			 "2024-03-01 12:00");
}
END_TEST

START_TEST(test_axis_durations_in_their_unit)
{
	char buf[64];

	ck_assert_str_eq(wm_axis_duration(8 * HOUR_MS, buf, sizeof(buf)),
			 "8 h");
	ck_assert_str_eq(wm_axis_duration(90 * 60000.0, buf, sizeof(buf)),
			 "1.5 h");
	ck_assert_str_eq(wm_axis_duration(45000, buf, sizeof(buf)), "45 s");
	ck_assert_str_eq(wm_axis_duration(250, buf, sizeof(buf)), "250 ms");
	ck_assert_str_eq(wm_axis_duration(0, buf, sizeof(buf)), "0 ms");
	ck_assert_str_eq(wm_axis_label(WM_AXIS_DURATION, 2 * 86400000.0,
				       86400000.0, buf, sizeof(buf)),
			 "2 d");
	ck_assert_str_eq(
		wm_axis_label(WM_AXIS_COUNT, 25000, 5000, buf, sizeof(buf)),
		"25k");
	ck_assert_str_eq(
		wm_axis_label(WM_AXIS_RATIO, 0.25, 0.05, buf, sizeof(buf)),
		"25%");
}
END_TEST

/* One source subtask of two partitions feeding one window. */
struct job {
	struct wm_topology *topo;
	struct wm_plan *plan;
	char *blocks;
	uint32_t src, win;
};

static void
job_open(struct job *j)
{
	memset(j, 0, sizeof(*j));
	job_blocks_open("[job]\nevent_time = 8 h\n"
			"[source events]\npartitions = 2\nrate = 1/s\n"
			"[window counts]\ninput = events\nsize = 1 min\n",
			&j->topo, &j->plan, &j->blocks);
	j->src = j->plan->first[0];
	j->win = j->plan->first[1];
	WM_METRIC_SET(wm_plan_block(j->plan, j->blocks, j->src)->n_partitions,
		      2);
	for (uint32_t p = 0; p < 2; p++)
		WM_METRIC_SET(wm_plan_partitions(j->plan, j->blocks, j->src)[p]
				      .partition,
			      p);
}

static void
job_close(struct job *j)
{
	job_blocks_close(j->topo, j->plan, j->blocks);
}

/* Set the window's watermark to `wm` and feed a snapshot at `now_ns`. */
static void
feed(struct job *j, struct wm_recorder *r, int64_t now_ns, int64_t wm,
     uint64_t records)
{
	struct wm_subtask_metrics *w =
		wm_plan_block(j->plan, j->blocks, j->win);
	struct wm_subtask_metrics *s =
		wm_plan_block(j->plan, j->blocks, j->src);
	struct wm_snapshot *snap;

	WM_METRIC_SET(w->output.watermark, wm);
	WM_METRIC_SET(w->newest_event_time, now_ns / MS);
	WM_METRIC_SET(s->output.watermark, wm);
	WM_METRIC_SET(wm_plan_partitions(j->plan, j->blocks, j->src)[0].records,
		      records);
	snap = wm_snapshot_take(j->plan, j->blocks, NULL, now_ns, now_ns);
	ck_assert_ptr_nonnull(snap);
	wm_recorder_feed(r, snap);
	wm_snapshot_free(snap);
}

START_TEST(test_recorder_stays_bounded_and_keeps_peaks)
{
	struct job j;
	struct wm_recorder *r;
	double hi = 0;

	job_open(&j);
	r = wm_recorder_new(j.plan, 1000 * MS, 64, 10000 * MS);
	ck_assert_ptr_nonnull(r);
	/* 10000 samples a second apart; one spike of the watermark. */
	for (int64_t i = 0; i < 10000; i++)
		feed(&j, r, i * 1000 * MS, i == 4321 ? 99999999 : i, i);
	ck_assert_uint_le(r->n_buckets, 64);
	ck_assert_uint_eq(r->samples, 10000);
	ck_assert_int_ge(r->step_ns, 10000 * 1000 * MS / 64);
	for (uint32_t b = 0; b < r->n_buckets; b++)
		if (r->count[b] > 0 &&
		    r->subtasks[b * r->n_subtasks + j.win].wm_hi > hi)
			hi = r->subtasks[b * r->n_subtasks + j.win].wm_hi;
	ck_assert(hi == 99999999.0);
	/* The last bucket holds the last sample. */
	ck_assert(r->subtasks[(r->n_buckets - 1) * r->n_subtasks + j.win]
			  .wm_last == 9999.0);
	ck_assert_int_eq(r->at_ns[r->n_buckets - 1], 9999 * 1000 * MS);
	/* The next sample is due at the next bucket's start. */
	ck_assert_int_eq(wm_recorder_next_due(r, 9999 * 1000 * MS),
			 (int64_t)r->n_buckets * r->step_ns);
	wm_recorder_free(r);
	job_close(&j);
}
END_TEST

START_TEST(test_recorder_packed_is_the_same_and_checked)
{
	struct job j;
	struct wm_recorder *r, *back;
	size_t len;
	unsigned char *buf;

	job_open(&j);
	r = wm_recorder_new(j.plan, 1000 * MS, 64, 10000 * MS);
	ck_assert_ptr_nonnull(r);
	for (int64_t i = 0; i < 500; i++)
		feed(&j, r, i * 1000 * MS, i == 77 ? 5000000 : i, i);
	len = wm_recorder_pack_size(j.plan, 64);
	buf = calloc(1, len);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(wm_recorder_pack(r, buf, len - 1), -ENOSPC);
	ck_assert_int_eq(wm_recorder_pack(r, buf, len), 0);
	back = wm_recorder_unpack(j.plan, 64, buf, len);
	ck_assert_ptr_nonnull(back);
	ck_assert_uint_eq(back->n_buckets, r->n_buckets);
	ck_assert_int_eq(back->step_ns, r->step_ns);
	ck_assert_uint_eq(back->samples, 500);
	ck_assert_mem_eq(back->at_ns, r->at_ns,
			 r->n_buckets * sizeof(*r->at_ns));
	ck_assert_mem_eq(back->subtasks, r->subtasks,
			 r->n_buckets * r->n_subtasks * sizeof(*r->subtasks));
	ck_assert_mem_eq(back->partitions, r->partitions,
			 r->n_buckets * r->n_partitions *
				 sizeof(*r->partitions));
	ck_assert_mem_eq(back->count, r->count,
			 r->n_buckets * sizeof(*r->count));
	ck_assert_mem_eq(back->partition_id, r->partition_id,
			 r->n_partitions * sizeof(*r->partition_id));
	/* Bytes that do not describe this plan's recorder are refused: other
	 * bucket counts, too few bytes, a broken header. */
	errno = 0;
	ck_assert_ptr_null(wm_recorder_unpack(j.plan, 128, buf, len));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(wm_recorder_unpack(j.plan, 64, buf, len - 1));
	buf[0] ^= 1;
	ck_assert_ptr_null(wm_recorder_unpack(j.plan, 64, buf, len));
	free(buf);
	wm_recorder_free(back);
	wm_recorder_free(r);
	job_close(&j);
}
END_TEST

/* The number in `attr="N"` right after the first `key` in `html`. */
static long
points_of(const char *html, const char *key)
{
	const char *at = strstr(html, key);

	if (at == NULL)
		return -1;
	at = strstr(at, "data-points=\"");
	return at != NULL ? strtol(at + strlen("data-points=\""), NULL, 10)
			  : -1;
}

START_TEST(test_page_names_every_series_it_drew)
{
	struct job j;
	struct wm_recorder *r;
	struct wm_job_report rep = {0};
	char *html = NULL;
	size_t len = 0;
	FILE *f;

	job_open(&j);
	r = wm_recorder_new(j.plan, 60000 * MS, 1000, 10000 * MS);
	ck_assert_ptr_nonnull(r);
	/* The watermark stands still from 00:30 on: a stall. */
	for (int64_t i = 0; i <= 60; i++)
		feed(&j, r, i * 60000 * MS, i < 30 ? i * 60000 : 30 * 60000,
		     (uint64_t)i);
	WM_METRIC_SET(wm_plan_block(j.plan, j.blocks, j.win)->output.since_ns,
		      30 * 60000 * MS);
	feed(&j, r, 61 * 60000 * MS, 30 * 60000, 61);
	ck_assert_int_eq(wm_report_collect(&rep, j.topo, j.plan, j.blocks,
					   61 * 60000 * MS, 0, true),
			 0);
	f = open_memstream(&html, &len);
	ck_assert_ptr_nonnull(f);
	wm_job_page_write(f, j.topo, r, &rep);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_ptr_nonnull(strstr(html, "data-plot=\"counts/0\""));
	ck_assert_int_eq(points_of(html, "data-series=\"counts/0 watermark\""),
			 62);
	ck_assert_int_eq(
		points_of(html, "data-series=\"counts/0 newest event time\""),
		62);
	ck_assert_int_eq(points_of(html, "data-series=\"counts/0 stall\""), 1);
	ck_assert_int_gt(points_of(html, "data-series=\"events-0 records\""),
			 0);
	/* Human axes: the hour's ticks, no raw milliseconds. */
	ck_assert_ptr_nonnull(strstr(html, ">00:00<"));
	ck_assert_ptr_nonnull(strstr(html, ">01:00<"));
	ck_assert_ptr_null(strstr(html, "3600000<"));
	/* Self-contained: no script, nothing fetched. */
	ck_assert_ptr_null(strstr(html, "<script"));
	ck_assert_ptr_null(strstr(html, "href="));
	free(html);
	wm_report_free(&rep);
	wm_recorder_free(r);
	job_close(&j);
}
END_TEST

static Suite *
chart_suite(void)
{
	Suite *s = suite_create("chart");
	TCase *axis = tcase_create("axis");
	TCase *recorder = tcase_create("recorder");
	TCase *page = tcase_create("page");

	tcase_add_test(axis, test_axis_eight_hours_ticks_every_hour_as_clock);
	tcase_add_test(axis, test_axis_ticks_sit_on_round_steps);
	tcase_add_test(axis, test_axis_durations_in_their_unit);
	tcase_add_test(recorder, test_recorder_stays_bounded_and_keeps_peaks);
	tcase_add_test(recorder, test_recorder_packed_is_the_same_and_checked);
	tcase_add_test(page, test_page_names_every_series_it_drew);
	suite_add_tcase(s, axis);
	suite_add_tcase(s, recorder);
	suite_add_tcase(s, page);
	return s;
}

int
main(void)
{
	return wm_check_main(chart_suite());
}
