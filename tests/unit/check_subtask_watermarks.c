/*
 * check_subtask_watermarks.c
 *	Unit tests of watermarks generated per source subtask (Flink's
 *	TimestampsAndWatermarksOperator with WatermarksWithIdleness): one
 *	generator over every partition's records, the emitter's rules, the
 *	processing-time timer, idleness of the whole subtask.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "operators/behaviour.h"
#include "operators/subtask_watermarks.h"
#include "tests/unit/recorder.h"
#include "tests/unit/check_main.h"

#define MS(x) ((int64_t)(x)*WM_IDLE_NS_PER_MS)

static struct recorder rec;

static void
setup(void)
{
	recorder_init(&rec);
}

/* Bounded out-of-orderness `bound_ms`, every `interval_ms`, idle after
 * `idle_ms` (0: no idleness), as released Flink. */
static struct wm_watermark_strategy
strategy(int64_t bound_ms, int64_t interval_ms, int64_t idle_ms)
{
	struct wm_watermark_strategy s = {
		.kind = WM_WATERMARK_BOUNDED,
		.out_of_orderness_ms = bound_ms,
		.interval_ms = interval_ms,
		.with_idleness = idle_ms > 0,
		.idle_timeout_ms = idle_ms,
		.behaviour = WM_BEHAVIOUR_RELEASED,
	};

	return s;
}

START_TEST(test_watermark_follows_the_busiest_partition)
{
	/* Records of three partitions mixed: the busy one (newest event
	 * time) sets the watermark; the sparse one's record comes after
	 * and behind it, so it is late rather than holding it back. */
	struct wm_watermark_strategy s = strategy(100, 200, 0);
	struct wm_subtask_watermarks sw;

	ck_assert_int_eq(wm_subtask_watermarks_init(&sw, &s, &rec.out), 0);
	wm_subtask_watermarks_start(&sw, 0);
	wm_subtask_watermarks_on_record(&sw, 1000, 0); /* partition 0 */
	wm_subtask_watermarks_on_record(&sw, 5000, 0); /* partition 1 */
	wm_subtask_watermarks_on_record(&sw, 1200, 0); /* partition 2 */
	ck_assert(wm_subtask_watermarks_poll(&sw, MS(200)));
	ck_assert_str_eq(recorder_take(&rec), "W(4899)");
	/* The sparse partition's next record is behind the watermark. */
	wm_subtask_watermarks_on_record(&sw, 1300, 0);
	ck_assert(wm_subtask_watermarks_poll(&sw, MS(400)));
	ck_assert_str_eq(recorder_take(&rec), "");
	ck_assert_int_eq(wm_subtask_watermarks_current(&sw), 4899);
}
END_TEST

START_TEST(test_only_an_advancing_watermark_is_emitted)
{
	/* WatermarkEmitter.emitWatermark(): nothing at or below the last
	 * one sent, MIN included (the generator's first periodic value). */
	struct wm_watermark_strategy s = strategy(0, 200, 0);
	struct wm_subtask_watermarks sw;

	wm_subtask_watermarks_init(&sw, &s, &rec.out);
	wm_subtask_watermarks_start(&sw, 0);
	wm_subtask_watermarks_poll(&sw, MS(200));
	ck_assert_str_eq(recorder_take(&rec), "");
	wm_subtask_watermarks_on_record(&sw, 10, 0);
	wm_subtask_watermarks_poll(&sw, MS(400));
	wm_subtask_watermarks_poll(&sw, MS(600));
	wm_subtask_watermarks_on_record(&sw, 5, 0);
	wm_subtask_watermarks_poll(&sw, MS(800));
	wm_subtask_watermarks_on_record(&sw, 11, 0);
	wm_subtask_watermarks_poll(&sw, MS(1000));
	ck_assert_str_eq(recorder_take(&rec), "W(9) W(10)");
}
END_TEST

START_TEST(test_emission_runs_on_the_processing_time_timer)
{
	/* open(): first timer at now + interval; onProcessingTime(): the
	 * next at the time it ran + interval, so a late one shifts the
	 * rest. */
	struct wm_watermark_strategy s = strategy(0, 200, 0);
	struct wm_subtask_watermarks sw;

	wm_subtask_watermarks_init(&sw, &s, &rec.out);
	wm_subtask_watermarks_start(&sw, MS(50));
	ck_assert_int_eq(wm_subtask_watermarks_next_tick(&sw), MS(250));
	wm_subtask_watermarks_on_record(&sw, 10, 0);
	ck_assert(!wm_subtask_watermarks_poll(&sw, MS(249)));
	ck_assert_str_eq(recorder_take(&rec), "");
	ck_assert(wm_subtask_watermarks_poll(&sw, MS(300)));
	ck_assert_str_eq(recorder_take(&rec), "W(9)");
	ck_assert_int_eq(wm_subtask_watermarks_next_tick(&sw), MS(500));
}
END_TEST

START_TEST(test_interval_zero_registers_no_timer)
{
	struct wm_watermark_strategy s = strategy(0, 0, 1000);
	struct wm_subtask_watermarks sw;

	wm_subtask_watermarks_init(&sw, &s, &rec.out);
	wm_subtask_watermarks_start(&sw, 0);
	wm_subtask_watermarks_on_record(&sw, 10, 0);
	ck_assert_int_eq(wm_subtask_watermarks_next_tick(&sw), INT64_MAX);
	ck_assert(!wm_subtask_watermarks_poll(&sw, MS(1000000)));
	ck_assert_str_eq(recorder_take(&rec), "");
}
END_TEST

START_TEST(test_punctuated_watermark_goes_out_with_the_record)
{
	struct wm_watermark_strategy s = {.kind = WM_WATERMARK_PUNCTUATED,
					  .interval_ms = 200};
	struct wm_subtask_watermarks sw;

	wm_subtask_watermarks_init(&sw, &s, &rec.out);
	wm_subtask_watermarks_start(&sw, 0);
	wm_subtask_watermarks_on_record(&sw, 7, 0);
	wm_subtask_watermarks_on_record(&sw, 8, WM_RECORD_PUNCTUATE);
	wm_subtask_watermarks_on_record(&sw, 6, WM_RECORD_PUNCTUATE);
	ck_assert_str_eq(recorder_take(&rec), "W(8)");
}
END_TEST

START_TEST(test_subtask_goes_idle_only_when_every_partition_is_silent)
{
	/* One generator for the subtask: any partition's record is
	 * activity. Timeout 1000 ms, probes every 200 ms: the countdown
	 * starts at the first quiet probe, idle strictly after. */
	struct wm_watermark_strategy s = strategy(0, 200, 1000);
	struct wm_subtask_watermarks sw;
	int64_t t;

	wm_subtask_watermarks_init(&sw, &s, &rec.out);
	wm_subtask_watermarks_start(&sw, 0);
	/* A record at every other probe (alternating partitions, as far as
	 * the generator can tell: it cannot) keeps the subtask active. */
	for (t = MS(200); t <= MS(4000); t += MS(200)) {
		if (t % MS(400) == 0)
			wm_subtask_watermarks_on_record(&sw, t / MS(1), 0);
		wm_subtask_watermarks_poll(&sw, t);
	}
	ck_assert(!wm_subtask_watermarks_idle(&sw));
	recorder_take(&rec);
	/* Silence: quiet probe at 4200 starts the countdown; idle at the
	 * first probe more than 1000 ms later, 5400. IDLE is sent once. */
	for (t = MS(4200); t <= MS(5200); t += MS(200))
		wm_subtask_watermarks_poll(&sw, t);
	ck_assert_str_eq(recorder_take(&rec), "");
	wm_subtask_watermarks_poll(&sw, MS(5400));
	wm_subtask_watermarks_poll(&sw, MS(5600));
	ck_assert_str_eq(recorder_take(&rec), "IDLE");
	ck_assert(wm_subtask_watermarks_idle(&sw));
}
END_TEST

START_TEST(test_activity_announced_only_by_an_advancing_watermark)
{
	/* A record behind the watermark ends the generator's idleness but
	 * its watermark does not advance: the emitter stays IDLE. The next
	 * advancing one is preceded by ACTIVE (markActive()). */
	struct wm_watermark_strategy s = strategy(0, 200, 100);
	struct wm_subtask_watermarks sw;

	wm_subtask_watermarks_init(&sw, &s, &rec.out);
	wm_subtask_watermarks_start(&sw, 0);
	wm_subtask_watermarks_on_record(&sw, 100, 0);
	wm_subtask_watermarks_poll(&sw, MS(200)); /* W(99) */
	wm_subtask_watermarks_poll(&sw, MS(400)); /* countdown */
	wm_subtask_watermarks_poll(&sw, MS(600)); /* idle */
	ck_assert_str_eq(recorder_take(&rec), "W(99) IDLE");
	wm_subtask_watermarks_on_record(&sw, 50, 0);
	wm_subtask_watermarks_poll(&sw, MS(800));
	ck_assert_str_eq(recorder_take(&rec), "");
	ck_assert(wm_subtask_watermarks_idle(&sw));
	wm_subtask_watermarks_on_record(&sw, 300, 0);
	wm_subtask_watermarks_poll(&sw, MS(1000));
	ck_assert_str_eq(recorder_take(&rec), "ACTIVE W(299)");
}
END_TEST

START_TEST(test_end_of_input_passes_max_even_when_idle)
{
	/* processWatermark(MAX) goes through emitWatermark(): ACTIVE, then
	 * MAX; finish() runs onPeriodicEmit() once more, which finds the
	 * generator still idle (isIdleNow) and marks nothing. */
	struct wm_watermark_strategy s = strategy(0, 200, 100);
	struct wm_subtask_watermarks sw;

	wm_subtask_watermarks_init(&sw, &s, &rec.out);
	wm_subtask_watermarks_start(&sw, 0);
	wm_subtask_watermarks_on_record(&sw, 100, 0);
	wm_subtask_watermarks_poll(&sw, MS(200));
	wm_subtask_watermarks_poll(&sw, MS(400));
	wm_subtask_watermarks_poll(&sw, MS(600));
	ck_assert_str_eq(recorder_take(&rec), "W(99) IDLE");
	wm_subtask_watermarks_end_of_input(&sw, MS(700));
	ck_assert_str_eq(recorder_take(&rec), "ACTIVE W(MAX)");
	ck_assert_int_eq(wm_subtask_watermarks_next_tick(&sw), INT64_MAX);
}
END_TEST

START_TEST(test_backpressure_stops_the_idleness_clock)
{
	/* inputActivityClock: time back-pressured does not count. */
	struct wm_watermark_strategy s = strategy(0, 200, 1000);
	struct wm_subtask_watermarks sw;

	wm_subtask_watermarks_init(&sw, &s, &rec.out);
	wm_subtask_watermarks_start(&sw, 0);
	wm_subtask_watermarks_on_record(&sw, 1, 0);
	wm_subtask_watermarks_poll(&sw, MS(200));
	wm_subtask_watermarks_poll(&sw, MS(400)); /* countdown from 400 */
	wm_subtask_watermarks_pause(&sw, true, MS(500));
	for (int64_t t = MS(600); t <= MS(5000); t += MS(200))
		wm_subtask_watermarks_poll(&sw, t);
	wm_subtask_watermarks_pause(&sw, false, MS(5100));
	/* 100 ms ran before the pause; idle after 900 more, past 6000. */
	wm_subtask_watermarks_poll(&sw, MS(6000));
	ck_assert(!wm_subtask_watermarks_idle(&sw));
	wm_subtask_watermarks_poll(&sw, MS(6200));
	ck_assert(wm_subtask_watermarks_idle(&sw));
}
END_TEST

/*
 * Jumping over ticks the --sim driver may skip gives what stepping
 * through each gives: two operators see the same records, one polled at
 * every tick, the other told to skip to each record time and polled.
 */
START_TEST(test_skipping_ticks_is_stepping_through_them)
{
	static const int64_t at_ms[] = {150, 160, 3000, 3010, 9000, 20000};
	struct wm_watermark_strategy s = strategy(10, 200, 700 + _i * 300);
	struct wm_subtask_watermarks a, b;
	struct recorder rb;
	char stepped[8192];
	size_t next = 0;

	recorder_init(&rb);
	wm_subtask_watermarks_init(&a, &s, &rec.out);
	wm_subtask_watermarks_init(&b, &s, &rb.out);
	wm_subtask_watermarks_start(&a, 0);
	wm_subtask_watermarks_start(&b, 0);
	for (int64_t t = 0; t <= MS(30000); t += MS(10)) {
		bool record = next < sizeof(at_ms) / sizeof(*at_ms) &&
			      MS(at_ms[next]) == t;

		if (record)
			wm_subtask_watermarks_on_record(&a, at_ms[next], 0);
		wm_subtask_watermarks_poll(&a, t);
		if (record) {
			wm_subtask_watermarks_skip(&b, t);
			wm_subtask_watermarks_on_record(&b, at_ms[next], 0);
			wm_subtask_watermarks_poll(&b, t);
			next++;
		} else if (wm_subtask_watermarks_next_change(&b) <= t) {
			wm_subtask_watermarks_poll(&b, t);
		}
	}
	snprintf(stepped, sizeof(stepped), "%s", recorder_take(&rec));
	ck_assert_str_eq(recorder_take(&rb), stepped);
	ck_assert(strstr(stepped, "IDLE") != NULL);
}
END_TEST

static Suite *
subtask_suite(void)
{
	Suite *s = suite_create("subtask_watermarks");
	TCase *gen = tcase_create("generation");
	TCase *idle = tcase_create("idleness");
	TCase *jump = tcase_create("jump");

	tcase_add_checked_fixture(gen, setup, NULL);
	tcase_add_test(gen, test_watermark_follows_the_busiest_partition);
	tcase_add_test(gen, test_only_an_advancing_watermark_is_emitted);
	tcase_add_test(gen, test_emission_runs_on_the_processing_time_timer);
	tcase_add_test(gen, test_interval_zero_registers_no_timer);
	tcase_add_test(gen, test_punctuated_watermark_goes_out_with_the_record);
	tcase_add_checked_fixture(idle, setup, NULL);
	tcase_add_test(
		idle,
		test_subtask_goes_idle_only_when_every_partition_is_silent);
	tcase_add_test(idle,
		       test_activity_announced_only_by_an_advancing_watermark);
	tcase_add_test(idle, test_end_of_input_passes_max_even_when_idle);
	tcase_add_test(idle, test_backpressure_stops_the_idleness_clock);
	tcase_add_checked_fixture(jump, setup, NULL);
	tcase_add_loop_test(jump, test_skipping_ticks_is_stepping_through_them,
			    0, 4);
	suite_add_tcase(s, gen);
	suite_add_tcase(s, idle);
	suite_add_tcase(s, jump);
	return s;
}

int
main(void)
{
	return wm_check_main(subtask_suite());
}
