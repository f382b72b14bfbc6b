/*
 * check_source_watermarking.c
 *	Unit tests of the one interface over a source's watermarks per split
 *	and per subtask: each way behaves through it exactly as its own
 *	module does, and the rules where the two differ (a partition's handle,
 *	a tick's attribution) hold.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <string.h>

#include "operators/behaviour.h"
#include "lib/snap.h"
#include "operators/source_watermarking.h"
#include "tests/unit/recorder.h"
#include "tests/unit/check_main.h"

#define MS(x) ((int64_t)(x)*WM_IDLE_NS_PER_MS)
#define NO_CAUSE UINT32_MAX

/* Bounded out-of-orderness 100 ms, every 200 ms, idle after 1 s. */
static struct wm_watermark_strategy
strategy(void)
{
	struct wm_watermark_strategy s = {
		.kind = WM_WATERMARK_BOUNDED,
		.out_of_orderness_ms = 100,
		.interval_ms = 200,
		.with_idleness = true,
		.idle_timeout_ms = 1000,
		.behaviour = WM_BEHAVIOUR_RELEASED,
	};

	return s;
}

START_TEST(test_only_a_partition_per_split_has_a_handle)
{
	struct wm_watermark_strategy s = strategy();
	struct wm_source_watermarking split, subtask;
	struct wm_source_split *a, *b;
	struct recorder rec;

	recorder_init(&rec);
	ck_assert_int_eq(wm_source_watermarking_init(
				 &split, WM_WATERMARK_AT_SPLIT, &s, &rec.out),
			 0);
	ck_assert_int_eq(wm_source_watermarking_add_partition(&split, 7, &a),
			 0);
	ck_assert_int_eq(wm_source_watermarking_add_partition(&split, 8, &b),
			 0);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_ne(a, b);
	ck_assert_int_eq(wm_source_watermarking_add_partition(&split, 7, &b),
			 -EEXIST);
	ck_assert_ptr_null(b);
	ck_assert_uint_eq(wm_source_watermarking_handles(&split), 2);
	wm_source_watermarking_remove_partition(&split, 7);
	ck_assert_uint_eq(wm_source_watermarking_handles(&split), 1);
	wm_source_watermarking_destroy(&split);

	ck_assert_int_eq(wm_source_watermarking_init(&subtask,
						     WM_WATERMARK_AT_SUBTASK,
						     &s, &rec.out),
			 0);
	ck_assert_int_eq(wm_source_watermarking_add_partition(&subtask, 7, &a),
			 0);
	ck_assert_ptr_null(a);
	ck_assert_uint_eq(wm_source_watermarking_handles(&subtask), 0);
	/* No slot, so none counts in a minimum. */
	ck_assert(!wm_source_watermarking_counts(&subtask, a));
	wm_source_watermarking_remove_partition(&subtask, 7);
	wm_source_watermarking_destroy(&subtask);
	s.interval_ms = -1;
	ck_assert_int_eq(wm_source_watermarking_init(&subtask,
						     WM_WATERMARK_AT_SUBTASK,
						     &s, &rec.out),
			 -EINVAL);
}
END_TEST

START_TEST(test_a_tick_is_attributed_as_each_way_says)
{
	struct wm_watermark_strategy s = strategy();
	struct wm_source_watermarking split, subtask;
	struct recorder rec;

	recorder_init(&rec);
	wm_source_watermarking_init(&split, WM_WATERMARK_AT_SPLIT, &s,
				    &rec.out);
	wm_source_watermarking_init(&subtask, WM_WATERMARK_AT_SUBTASK, &s,
				    &rec.out);
	/* Per split the holder before the tick, none after it. */
	ck_assert_uint_eq(wm_source_watermarking_tick_cause(&split, 3, 5), 3);
	ck_assert_uint_eq(
		wm_source_watermarking_tick_cause(&split, NO_CAUSE, 3),
		NO_CAUSE);
	/* Per subtask the latest record's partition, before and after. */
	ck_assert_uint_eq(wm_source_watermarking_tick_cause(&subtask, 3, 5), 5);
	ck_assert_uint_eq(
		wm_source_watermarking_tick_cause(&subtask, NO_CAUSE, 5), 5);
	wm_source_watermarking_destroy(&split);
	wm_source_watermarking_destroy(&subtask);
}
END_TEST

/* The way's own module, driven directly. */
struct direct {
	enum wm_watermark_at at;
	struct wm_source_watermarks split;
	struct wm_subtask_watermarks subtask;
	struct recorder rec;
};

static void
snapshot_bytes(struct wm_snap_writer *w)
{
	ck_assert_int_eq(wm_snap_writer_error(w), 0);
	ck_assert_uint_gt(wm_snap_writer_len(w), 0);
}

/*
 * Through the interface each way is its own module: the same records of
 * three partitions (one paused by alignment a while, one finished half
 * way), back-pressure, ticks polled and skipped, a snapshot and the end
 * of input give the same output, schedule, state and snapshot bytes as
 * the module driven directly. Loop 0: per split; 1: per subtask.
 */
START_TEST(test_each_way_behaves_as_its_module)
{
	struct wm_watermark_strategy s = strategy();
	enum wm_watermark_at at =
		_i == 0 ? WM_WATERMARK_AT_SPLIT : WM_WATERMARK_AT_SUBTASK;
	struct wm_source_watermarking sw, back;
	struct wm_source_split *handle[3], *own[3] = {NULL, NULL, NULL};
	struct direct d;
	struct recorder rec, rec_back;
	struct wm_snap_writer w, w_direct, w_back;
	struct wm_snap_reader r;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	char expected[8192];

	recorder_init(&rec);
	recorder_init(&d.rec);
	d.at = at;
	ck_assert_int_eq(wm_source_watermarking_init(&sw, at, &s, &rec.out), 0);
	if (at == WM_WATERMARK_AT_SPLIT)
		ck_assert_int_eq(
			wm_source_watermarks_init(&d.split, &s, &d.rec.out), 0);
	else
		ck_assert_int_eq(
			wm_subtask_watermarks_init(&d.subtask, &s, &d.rec.out),
			0);
	for (uint64_t id = 0; id < 3; id++) {
		ck_assert_int_eq(wm_source_watermarking_add_partition(
					 &sw, id, &handle[id]),
				 0);
		if (at == WM_WATERMARK_AT_SPLIT)
			own[id] = wm_source_watermarks_add_split(&d.split, id);
	}
	wm_source_watermarking_start(&sw, 0);
	if (at == WM_WATERMARK_AT_SPLIT)
		wm_source_watermarks_start(&d.split, 0);
	else
		wm_subtask_watermarks_start(&d.subtask, 0);

	for (int64_t t = MS(10); t < MS(12000); t += MS(10)) {
		bool skip = t > MS(6000) && t < MS(9000);

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		uint64_t id = (seed >> 33) % 3;
		wm_ts_t ts = t / MS(1) - (wm_ts_t)((seed >> 40) % 300);
		bool record = !skip && (seed >> 20) % 4 == 0 &&
			      !(id == 2 && t >= MS(4000));

		if (t == MS(2000) || t == MS(3000)) {
			bool paused = t == MS(2000);

			wm_source_watermarking_pause_partition(&sw, handle[1],
							       paused, t);
			if (at == WM_WATERMARK_AT_SPLIT)
				wm_source_split_pause(&d.split, own[1], paused,
						      t);
		}
		if (t == MS(5000) || t == MS(5500)) {
			bool paused = t == MS(5000);

			wm_source_watermarking_pause(&sw, paused, t);
			if (at == WM_WATERMARK_AT_SPLIT)
				wm_source_watermarks_pause(&d.split, paused, t);
			else
				wm_subtask_watermarks_pause(&d.subtask, paused,
							    t);
		}
		if (t == MS(4000)) {
			wm_source_watermarking_remove_partition(&sw, 2);
			if (at == WM_WATERMARK_AT_SPLIT)
				ck_assert_int_eq(
					wm_source_watermarks_remove_split(
						&d.split, 2),
					0);
		}
		if (record) {
			wm_source_watermarking_on_record(&sw, handle[id], ts,
							 0);
			if (at == WM_WATERMARK_AT_SPLIT)
				wm_source_split_on_record(own[id], ts, 0);
			else
				wm_subtask_watermarks_on_record(&d.subtask, ts,
								0);
		}
		if (skip) {
			/* The --sim driver's jump over quiet ticks. */
			int64_t change =
				wm_source_watermarking_next_change(&sw);

			ck_assert_int_eq(
				change,
				at == WM_WATERMARK_AT_SPLIT
					? wm_source_watermarks_next_change(
						  &d.split)
					: wm_subtask_watermarks_next_change(
						  &d.subtask));
			wm_source_watermarking_skip(&sw, t);
			if (at == WM_WATERMARK_AT_SPLIT)
				wm_source_watermarks_skip(&d.split, t);
			else
				wm_subtask_watermarks_skip(&d.subtask, t);
		}
		ck_assert(
			wm_source_watermarking_poll(&sw, t) ==
			(at == WM_WATERMARK_AT_SPLIT
				 ? wm_source_watermarks_poll(&d.split, t)
				 : wm_subtask_watermarks_poll(&d.subtask, t)));
		ck_assert_int_eq(
			wm_source_watermarking_next_tick(&sw),
			at == WM_WATERMARK_AT_SPLIT
				? wm_source_watermarks_next_tick(&d.split)
				: wm_subtask_watermarks_next_tick(&d.subtask));
		ck_assert_int_eq(
			wm_source_watermarking_current(&sw),
			at == WM_WATERMARK_AT_SPLIT
				? wm_source_watermarks_current(&d.split)
				: wm_subtask_watermarks_current(&d.subtask));
		ck_assert(wm_source_watermarking_idle(&sw) ==
			  (at == WM_WATERMARK_AT_SPLIT
				   ? wm_source_watermarks_idle(&d.split)
				   : wm_subtask_watermarks_idle(&d.subtask)));
		for (int k = 0; k < 2 && at == WM_WATERMARK_AT_SPLIT; k++)
			ck_assert(
				wm_source_watermarking_counts(&sw, handle[k]) ==
				wm_partial_counts(
					&own[k]->slot.partial,
					d.split.mux.combined.watermark));
	}

	/* A snapshot is the module's section, and restores as one. */
	wm_snap_writer_init(&w);
	wm_snap_writer_init(&w_direct);
	wm_source_watermarking_snapshot(&sw, MS(12000), &w);
	if (at == WM_WATERMARK_AT_SPLIT)
		wm_source_watermarks_snapshot(&d.split, MS(12000), &w_direct);
	else
		wm_subtask_watermarks_snapshot(&d.subtask, MS(12000),
					       &w_direct);
	snapshot_bytes(&w);
	ck_assert_uint_eq(wm_snap_writer_len(&w),
			  wm_snap_writer_len(&w_direct));
	ck_assert_mem_eq(wm_snap_writer_bytes(&w),
			 wm_snap_writer_bytes(&w_direct),
			 wm_snap_writer_len(&w));
	recorder_init(&rec_back);
	ck_assert_int_eq(
		wm_source_watermarking_init(&back, at, &s, &rec_back.out), 0);
	for (uint64_t id = 0; id < 2; id++) {
		struct wm_source_split *h;

		ck_assert_int_eq(
			wm_source_watermarking_add_partition(&back, id, &h), 0);
	}
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_source_watermarking_restore(&back, &r), 0);
	wm_snap_writer_init(&w_back);
	wm_source_watermarking_snapshot(&back, MS(12000), &w_back);
	ck_assert_uint_eq(wm_snap_writer_len(&w_back), wm_snap_writer_len(&w));
	ck_assert_mem_eq(wm_snap_writer_bytes(&w_back),
			 wm_snap_writer_bytes(&w), wm_snap_writer_len(&w));

	wm_source_watermarking_end_of_input(&sw, MS(12000));
	if (at == WM_WATERMARK_AT_SPLIT)
		wm_source_watermarks_end_of_input(&d.split);
	else
		wm_subtask_watermarks_end_of_input(&d.subtask, MS(12000));
	snprintf(expected, sizeof(expected), "%s", recorder_take(&d.rec));
	ck_assert_str_eq(recorder_take(&rec), expected);
	/* The run did something worth comparing. */
	ck_assert(strstr(expected, "IDLE") != NULL);
	ck_assert(strstr(expected, "W(MAX)") != NULL);
	ck_assert_int_eq(wm_source_watermarking_next_tick(&sw),
			 at == WM_WATERMARK_AT_SPLIT
				 ? wm_source_watermarks_next_tick(&d.split)
				 : wm_subtask_watermarks_next_tick(&d.subtask));

	wm_snap_writer_release(&w);
	wm_snap_writer_release(&w_direct);
	wm_snap_writer_release(&w_back);
	wm_source_watermarking_destroy(&back);
	wm_source_watermarking_destroy(&sw);
	if (at == WM_WATERMARK_AT_SPLIT)
		wm_source_watermarks_destroy(&d.split);
}
END_TEST

static Suite *
source_watermarking_suite(void)
{
	Suite *s = suite_create("source_watermarking");
	TCase *ways = tcase_create("ways");
	TCase *same = tcase_create("same");

	tcase_add_test(ways, test_only_a_partition_per_split_has_a_handle);
	tcase_add_test(ways, test_a_tick_is_attributed_as_each_way_says);
	tcase_add_loop_test(same, test_each_way_behaves_as_its_module, 0, 2);
	suite_add_tcase(s, ways);
	suite_add_tcase(s, same);
	return s;
}

int
main(void)
{
	return wm_check_main(source_watermarking_suite());
}
