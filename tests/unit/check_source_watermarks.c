/*
 * check_source_watermarks.c
 *	Unit tests of a source subtask's watermark output: data output
 *	(WatermarkToDataOutput) and the whole chain of partition generators,
 *	multiplexer, idleness gate and main output (doc/semantics.md section 3,
 *	cases S-1..S-8, T-3, T-5 and their behaviour flags).
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/behaviour.h"
#include "operators/data_output.h"
#include "operators/source_watermarks.h"
#include "tests/unit/recorder.h"
#include "tests/unit/check_main.h"
#include "tests/unit/hot_assert.h"

#define RELEASED WM_BEHAVIOUR_RELEASED
#define REACTIVATE (RELEASED | WM_MUX_REACTIVATE)
#define DRAIN_ACTIVE (RELEASED | WM_DRAIN_ACTIVE_BEFORE_MAX)
#define MS(x) ((int64_t)(x)*WM_IDLE_NS_PER_MS)

static struct recorder rec;

static void
setup(void)
{
	recorder_init(&rec);
}

START_TEST(test_data_output_first_watermark_zero)
{
	/* S-1 */
	struct wm_data_output d;

	wm_data_output_init(&d, &rec.out, RELEASED);
	wm_data_output_watermark(&d, 0);
	ck_assert_str_eq(recorder_take(&rec), "W(0)");
}
END_TEST

START_TEST(test_data_output_watermarks_do_not_regress)
{
	/* S-2 */
	static const wm_ts_t in[] = {12, 17, 10, 18, 17, 18};
	struct wm_data_output d;

	wm_data_output_init(&d, &rec.out, RELEASED);
	for (size_t i = 0; i < sizeof(in) / sizeof(*in); i++)
		wm_data_output_watermark(&d, in[i]);
	ck_assert_str_eq(recorder_take(&rec), "W(12) W(17) W(18)");
}
END_TEST

START_TEST(test_data_output_becoming_active_emits_status)
{
	/* S-3 */
	struct wm_data_output d;

	wm_data_output_init(&d, &rec.out, RELEASED);
	wm_data_output_status(&d, WM_STATUS_IDLE);
	wm_data_output_watermark(&d, 100);
	ck_assert_str_eq(recorder_take(&rec), "IDLE ACTIVE W(100)");
}
END_TEST

START_TEST(test_data_output_reactivation_needs_advancing_watermark)
{
	/* S-4 and T-3, released and with WM_MUX_REACTIVATE. */
	static const struct {
		unsigned behaviour;
		const char *after_w4;
		const char *after_w6;
	} v[] = {{RELEASED, "", "ACTIVE W(6)"}, {REACTIVATE, "ACTIVE", "W(6)"}};

	for (int i = 0; i < 2; i++) {
		struct wm_data_output d;

		wm_data_output_init(&d, &rec.out, v[i].behaviour);
		wm_data_output_watermark(&d, 5);
		ck_assert_str_eq(recorder_take(&rec), "W(5)");
		wm_data_output_watermark(&d, 5);
		wm_data_output_watermark(&d, 3);
		ck_assert_str_eq(recorder_take(&rec), "");
		wm_data_output_status(&d, WM_STATUS_IDLE);
		wm_data_output_status(&d, WM_STATUS_IDLE);
		ck_assert_str_eq(recorder_take(&rec), "IDLE");
		wm_data_output_watermark(&d, 4);
		ck_assert_str_eq(recorder_take(&rec), v[i].after_w4);
		wm_data_output_watermark(&d, 6);
		ck_assert_str_eq(recorder_take(&rec), v[i].after_w6);
	}
}
END_TEST

START_TEST(test_end_of_input_sends_max_unless_idle)
{
	/* T-5: released Flink loses MAX of an idle source. */
	struct wm_data_output d;

	wm_data_output_init(&d, &rec.out, RELEASED);
	wm_data_output_watermark(&d, 7);
	wm_data_output_end_of_input(&d);
	ck_assert_str_eq(recorder_take(&rec), "W(7) W(MAX)");

	wm_data_output_init(&d, &rec.out, RELEASED);
	wm_data_output_status(&d, WM_STATUS_IDLE);
	wm_data_output_end_of_input(&d);
	ck_assert_str_eq(recorder_take(&rec), "IDLE");

	wm_data_output_init(&d, &rec.out, DRAIN_ACTIVE);
	wm_data_output_status(&d, WM_STATUS_IDLE);
	wm_data_output_end_of_input(&d);
	ck_assert_str_eq(recorder_take(&rec), "IDLE ACTIVE W(MAX)");
}
END_TEST

/* A source whose partitions emit a watermark at every record's time (the
 * punctuated test generator of Flink's SourceOperatorEventTimeTest). */
static void
init_punctuated(struct wm_source_watermarks *sw, unsigned behaviour)
{
	struct wm_watermark_strategy s = {.kind = WM_WATERMARK_PUNCTUATED,
					  .behaviour = behaviour};

	ck_assert_int_eq(wm_source_watermarks_init(sw, &s, &rec.out), 0);
}

/* The record is emitted first, then its generator runs. */
static void
record(struct wm_source_watermarks *sw, uint64_t split, wm_ts_t ts)
{
	char note[32];

	snprintf(note, sizeof(note), "rec%lld", (long long)ts);
	recorder_note(&rec, note);
	if (split == 0) {
		wm_source_watermarks_on_main_record(sw, ts,
						    WM_RECORD_PUNCTUATE);
		return;
	}
	struct wm_source_split *s = wm_source_watermarks_split(sw, split);

	if (s == NULL)
		s = wm_source_watermarks_add_split(sw, split);
	ck_assert_ptr_nonnull(s);
	wm_source_split_on_record(s, ts, WM_RECORD_PUNCTUATE);
}

/* Split `split` (0 = main output) says IDLE through its own output. */
static void
mark_idle(struct wm_source_watermarks *sw, uint64_t split)
{
	if (split == 0) {
		wm_output_status(&sw->main_side.output, WM_STATUS_IDLE);
		return;
	}
	wm_output_status(&wm_source_watermarks_split(sw, split)->slot.immediate,
			 WM_STATUS_IDLE);
}

START_TEST(test_per_split_outputs_hold_back_until_all_advance)
{
	/* S-5 */
	struct wm_source_watermarks sw;

	init_punctuated(&sw, RELEASED);
	ck_assert_ptr_nonnull(wm_source_watermarks_add_split(&sw, 1));
	ck_assert_ptr_nonnull(wm_source_watermarks_add_split(&sw, 2));
	record(&sw, 1, 100);
	record(&sw, 1, 200);
	record(&sw, 2, 150);
	record(&sw, 1, 300);
	record(&sw, 2, 400);
	ck_assert_str_eq(recorder_take(&rec),
			 "rec100 rec200 rec150 W(150) rec300 rec400 W(300)");
	wm_source_watermarks_destroy(&sw);
}
END_TEST

START_TEST(test_released_split_unblocks_at_next_periodic_combine)
{
	/* S-6 */
	struct wm_source_watermarks sw;

	init_punctuated(&sw, RELEASED);
	wm_source_watermarks_add_split(&sw, 1);
	wm_source_watermarks_add_split(&sw, 2);
	record(&sw, 1, 100);
	record(&sw, 2, 200);
	record(&sw, 1, 150);
	ck_assert_int_eq(wm_source_watermarks_remove_split(&sw, 1), 0);
	record(&sw, 2, 200);
	ck_assert_str_eq(recorder_take(&rec),
			 "rec100 rec200 W(100) rec150 W(150) rec200");
	wm_source_watermarks_on_periodic(&sw, MS(1));
	ck_assert_str_eq(recorder_take(&rec), "W(200)");
	ck_assert_int_eq(wm_source_watermarks_remove_split(&sw, 1), -ENOENT);
	wm_source_watermarks_destroy(&sw);
}
END_TEST

START_TEST(test_main_and_split_idleness_combine_in_the_gate)
{
	/* S-7 */
	struct wm_source_watermarks sw;

	init_punctuated(&sw, RELEASED);
	record(&sw, 0, 100);
	mark_idle(&sw, 0);
	ck_assert_str_eq(recorder_take(&rec), "rec100 W(100) IDLE");
	record(&sw, 1, 150);
	record(&sw, 2, 200);
	ck_assert_str_eq(recorder_take(&rec), "rec150 ACTIVE W(150) rec200");
	mark_idle(&sw, 1);
	ck_assert_str_eq(recorder_take(&rec), "W(200)");
	mark_idle(&sw, 2);
	ck_assert_str_eq(recorder_take(&rec), "IDLE");
	record(&sw, 0, 250);
	ck_assert_str_eq(recorder_take(&rec), "rec250 ACTIVE W(250)");
	mark_idle(&sw, 1);
	mark_idle(&sw, 2);
	ck_assert_str_eq(recorder_take(&rec), ""); /* main side active */
	mark_idle(&sw, 0);
	ck_assert_str_eq(recorder_take(&rec), "IDLE");
	record(&sw, 1, 300);
	ck_assert_str_eq(recorder_take(&rec), "rec300 ACTIVE W(300)");
	wm_source_watermarks_destroy(&sw);
}
END_TEST

START_TEST(test_resumed_split_without_advance_stays_idle_unless_flag)
{
	/* S-8, released and with WM_MUX_REACTIVATE. */
	static const struct {
		unsigned behaviour;
		const char *after_resume;
	} v[] = {{RELEASED, "rec150"}, {REACTIVATE, "rec150 ACTIVE"}};

	for (int i = 0; i < 2; i++) {
		struct wm_source_watermarks sw;

		init_punctuated(&sw, v[i].behaviour);
		record(&sw, 1, 200);
		record(&sw, 2, 100);
		mark_idle(&sw, 1);
		mark_idle(&sw, 2);
		ck_assert_str_eq(recorder_take(&rec),
				 "rec200 W(200) rec100 IDLE");
		record(&sw, 1, 150);
		ck_assert_str_eq(recorder_take(&rec), v[i].after_resume);
		wm_source_watermarks_destroy(&sw);
	}
}
END_TEST

START_TEST(test_split_registration_is_checked)
{
	struct wm_source_watermarks sw;

	init_punctuated(&sw, RELEASED);
	ck_assert_ptr_nonnull(wm_source_watermarks_add_split(&sw, 3));
	errno = 0;
	ck_assert_ptr_null(wm_source_watermarks_add_split(&sw, 3));
	ck_assert_int_eq(errno, EEXIST);
	ck_assert_ptr_null(wm_source_watermarks_split(&sw, 4));
	wm_source_watermarks_destroy(&sw);
}
END_TEST

START_TEST(test_idle_source_end_of_input_loses_max_in_released_flink)
{
	/* Section 3.6: a bounded source whose partitions all went idle ends
	 * without delivering MAX downstream; the flag fixes it. */
	struct wm_watermark_strategy s = {.kind = WM_WATERMARK_BOUNDED,
					  .with_idleness = true,
					  .idle_timeout_ms = 100};

	for (int flag = 0; flag < 2; flag++) {
		struct wm_source_watermarks sw;

		s.behaviour = flag ? DRAIN_ACTIVE : RELEASED;
		ck_assert_int_eq(wm_source_watermarks_init(&sw, &s, &rec.out),
				 0);
		struct wm_source_split *p =
			wm_source_watermarks_add_split(&sw, 0);

		wm_source_split_on_record(p, 1000, 0);
		for (int t = 200; t <= 1000; t += 200)
			wm_source_watermarks_on_periodic(&sw, MS(t));
		ck_assert_str_eq(recorder_take(&rec), "W(999) IDLE");
		wm_source_watermarks_end_of_input(&sw);
		ck_assert_str_eq(recorder_take(&rec),
				 flag ? "ACTIVE W(MAX)" : "");
		wm_source_watermarks_destroy(&sw);
	}
}
END_TEST

START_TEST(test_periodic_emission_follows_the_interval)
{
	struct wm_watermark_strategy s = {.kind = WM_WATERMARK_BOUNDED,
					  .interval_ms = 200,
					  .with_idleness = true,
					  .idle_timeout_ms = 100,
					  .behaviour = RELEASED};
	struct wm_source_watermarks sw;

	ck_assert_int_eq(wm_source_watermarks_init(&sw, &s, &rec.out), 0);
	wm_source_split_on_record(wm_source_watermarks_add_split(&sw, 0), 50,
				  0);
	ck_assert_int_eq(wm_source_watermarks_next_tick(&sw), INT64_MAX);
	wm_source_watermarks_start(&sw, MS(1000));
	ck_assert(!wm_source_watermarks_poll(&sw, MS(1199)));
	ck_assert(wm_source_watermarks_poll(&sw, MS(1200)));
	ck_assert_str_eq(recorder_take(&rec), "W(49)");
	/* Fixed delay: the next tick is one interval after this one ran. */
	ck_assert(wm_source_watermarks_poll(&sw, MS(1450)));
	ck_assert_int_eq(wm_source_watermarks_next_tick(&sw), MS(1650));
	ck_assert(!wm_source_watermarks_poll(&sw, MS(1649)));
	ck_assert(wm_source_watermarks_poll(&sw, MS(1650)));
	ck_assert_str_eq(recorder_take(&rec), "IDLE");
	wm_source_watermarks_destroy(&sw);
}
END_TEST

/* Probes every 100 ms in (from, to]; split 2 gets a record before each. */
static void
tick_until(struct wm_source_watermarks *sw, int64_t from_ms, int64_t to_ms)
{
	for (int64_t t = from_ms + 100; t <= to_ms; t += 100) {
		wm_source_split_on_record(wm_source_watermarks_split(sw, 2), t,
					  0);
		ck_assert(wm_source_watermarks_poll(sw, MS(t)));
	}
}

static bool
split_idle(struct wm_source_watermarks *sw, uint64_t id)
{
	return wm_source_watermarks_split(sw, id)->slot.partial.idle;
}

START_TEST(test_paused_clocks_hold_idleness_back)
{
	/* Idle timeout 1 s, probes every 100 ms. Split 1 is paused (as
	 * alignment pauses it) from 50 ms to 5 s; split 3 never is; split 4
	 * gets records until 2 s, and the whole subtask is paused (as
	 * back-pressure pauses it) from 2 s to 3 s. */
	struct wm_watermark_strategy s = {.kind = WM_WATERMARK_BOUNDED,
					  .interval_ms = 100,
					  .with_idleness = true,
					  .idle_timeout_ms = 1000,
					  .behaviour = RELEASED};
	struct wm_source_watermarks sw;

	ck_assert_int_eq(wm_source_watermarks_init(&sw, &s, &rec.out), 0);
	for (uint64_t id = 1; id <= 4; id++)
		wm_source_split_on_record(
			wm_source_watermarks_add_split(&sw, id), 0, 0);
	wm_source_watermarks_start(&sw, 0);
	wm_source_split_pause(&sw, wm_source_watermarks_split(&sw, 1), true,
			      MS(50));
	/* Split 3: activity seen at 100, quiet from the probe at 200, idle
	 * once more than 1 s passed: at the probe at 1300. */
	tick_until(&sw, 0, 1200);
	ck_assert(!split_idle(&sw, 3));
	tick_until(&sw, 1200, 1300);
	ck_assert(split_idle(&sw, 3));
	for (int64_t t = 1400; t <= 2000; t += 100) {
		wm_source_split_on_record(wm_source_watermarks_split(&sw, 4), t,
					  0);
		tick_until(&sw, t - 100, t);
	}
	wm_source_watermarks_pause(&sw, true, MS(2000));
	tick_until(&sw, 2000, 3000);
	wm_source_watermarks_pause(&sw, false, MS(3000));
	/* Split 4, unpaused, would be quiet from the probe at 2100 and idle
	 * at 3200. Its clock stood still from 2 s to 3 s: the probe at 2100
	 * read 2 s and started the countdown there, so it goes idle when its
	 * clock passes 3 s, at the probe at 4100. */
	tick_until(&sw, 3000, 4000);
	ck_assert(!split_idle(&sw, 4));
	tick_until(&sw, 4000, 4100);
	ck_assert(split_idle(&sw, 4));
	/* Split 1's clock stood still from 50 ms to 5 s, the subtask's pause
	 * inside that stretch not taken off twice: the probe at 200 started
	 * its countdown at 50 ms, and it goes idle when its clock passes
	 * 1050 ms, at the probe at 6100 (its clock then reads 1150 ms). */
	tick_until(&sw, 4100, 5000);
	ck_assert(!split_idle(&sw, 1));
	wm_source_split_pause(&sw, wm_source_watermarks_split(&sw, 1), false,
			      MS(5000));
	tick_until(&sw, 5000, 6000);
	ck_assert(!split_idle(&sw, 1));
	tick_until(&sw, 6000, 6100);
	ck_assert(split_idle(&sw, 1));
	recorder_take(&rec);
	wm_source_watermarks_destroy(&sw);
}
END_TEST

START_TEST(test_interval_zero_never_emits_nor_goes_idle)
{
	/* pipeline.auto-watermark-interval = 0: periodic generators never
	 * emit and idleness is never judged; punctuated ones still work. */
	struct wm_watermark_strategy s = {.kind = WM_WATERMARK_BOUNDED,
					  .interval_ms = 0,
					  .with_idleness = true,
					  .idle_timeout_ms = 1,
					  .behaviour = RELEASED};
	struct wm_source_watermarks sw;

	ck_assert_int_eq(wm_source_watermarks_init(&sw, &s, &rec.out), 0);
	wm_source_split_on_record(wm_source_watermarks_add_split(&sw, 0), 50,
				  0);
	wm_source_watermarks_start(&sw, 0);
	for (int64_t t = 0; t < MS(100000); t += MS(997))
		ck_assert(!wm_source_watermarks_poll(&sw, t));
	ck_assert_str_eq(recorder_take(&rec), "");
	wm_source_watermarks_destroy(&sw);

	s.kind = WM_WATERMARK_PUNCTUATED;
	s.with_idleness = false;
	ck_assert_int_eq(wm_source_watermarks_init(&sw, &s, &rec.out), 0);
	wm_source_split_on_record(wm_source_watermarks_add_split(&sw, 0), 50,
				  WM_RECORD_PUNCTUATE);
	ck_assert_str_eq(recorder_take(&rec), "W(50)");
	wm_source_watermarks_destroy(&sw);

	s.interval_ms = -1;
	ck_assert_int_eq(wm_source_watermarks_init(&sw, &s, &rec.out), -EINVAL);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Many partitions, assigned and finished in any order */

#define MANY 65536
/* Partition k: ids far apart, so neither their density nor their order
 * helps the index; watermark 1000 + k; every fifth one idle. */
#define MANY_ID(k) ((uint64_t)(k)*1000003)
#define MANY_WM(k) ((wm_ts_t)(k) + 1000)
#define MANY_IDLE(k) ((k) % 5 == 0)

struct many {
	struct wm_source_watermarks sw;
	bool present[MANY];
	wm_ts_t watermark; /* what the subtask should have sent so far */
	bool idle;	   /* and whether it should be announced IDLE */
};

/* A fixed permutation of [0, n): Fisher-Yates driven by Knuth's MMIX
 * linear congruential generator. */
static void
shuffle(uint32_t *v, uint32_t n, uint64_t seed)
{
	for (uint32_t i = 0; i < n; i++)
		v[i] = i;
	for (uint32_t i = n - 1; i > 0; i--) {
		uint32_t j, t;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		j = (uint32_t)((seed >> 33) % (i + 1));
		t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
}

/* Partition k is found if present and not otherwise; an id never added
 * is not found either. */
static bool
many_lookup_ok(struct many *m, uint32_t k)
{
	const struct wm_source_split *s =
		wm_source_watermarks_split(&m->sw, MANY_ID(k));

	if (wm_source_watermarks_split(&m->sw, MANY_ID(k) + 1) != NULL)
		return false;
	return m->present[k] ? s != NULL && s->id == MANY_ID(k) : s == NULL;
}

/*
 * With `lookups`, every partition is looked up (many_lookup_ok()). Then one
 * periodic combine must give the minimum over the present active
 * partitions; with only idle ones left, IDLE (after their maximum with
 * WM_MUX_ALLIDLE_FLUSH_MAX); with none left, nothing new (IDLE with
 * WM_MUX_EMPTY_IS_IDLE). A removal alone changes nothing.
 *
 * The loops over all partitions fail with ck_abort_msg() rather than
 * ck_assert(), which records its place (a write) on every pass.
 */
static void
many_check(struct many *m, unsigned behaviour, bool lookups)
{
	wm_ts_t min_active = WM_TS_MAX, max_all = WM_TS_MIN;
	size_t left = 0;

	for (uint32_t k = 0; k < MANY; k++) {
		if (lookups && !many_lookup_ok(m, k))
			ck_abort_msg("partition %u (%s): wrong lookup", k,
				     m->present[k] ? "present" : "removed");
		if (!m->present[k])
			continue;
		left++;
		if (MANY_WM(k) > max_all)
			max_all = MANY_WM(k);
		if (!MANY_IDLE(k) && MANY_WM(k) < min_active)
			min_active = MANY_WM(k);
	}
	ck_assert_uint_eq(m->sw.mux.n_splits, left);
	wm_source_watermarks_on_periodic(&m->sw, 0);
	if (min_active != WM_TS_MAX) {
		if (min_active > m->watermark)
			m->watermark = min_active;
		m->idle = false;
	} else if (left > 0) {
		if (wm_behaviour_has(behaviour, WM_MUX_ALLIDLE_FLUSH_MAX) &&
		    max_all > m->watermark)
			m->watermark = max_all;
		m->idle = true;
	} else if (wm_behaviour_has(behaviour, WM_MUX_EMPTY_IS_IDLE)) {
		m->idle = true;
	}
	ck_assert_int_eq(wm_source_watermarks_current(&m->sw), m->watermark);
	ck_assert(wm_source_watermarks_idle(&m->sw) == m->idle);
}

START_TEST(test_many_partitions_in_any_order)
{
	/* Released and master rules: the flags must not make the order of
	 * the partitions observable either. */
	static const unsigned behaviours[] = {RELEASED, WM_BEHAVIOUR_MASTER};
	unsigned behaviour = behaviours[_i];
	struct many *m = calloc(1, sizeof(*m));
	uint32_t *order = calloc(MANY, sizeof(*order));
	uint32_t active_left = 0, idle_only_checks = 0;

	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(order);
	init_punctuated(&m->sw, behaviour);
	m->watermark = WM_TS_MIN;
	shuffle(order, MANY, 1);
	for (uint32_t r = 0; r < MANY; r++) {
		uint32_t k = order[r];
		struct wm_source_split *s =
			wm_source_watermarks_add_split(&m->sw, MANY_ID(k));

		if (s == NULL)
			ck_abort_msg("partition %u: could not add", k);
		m->present[k] = true;
		/* As a periodic generator would: recorded, not combined. */
		wm_output_watermark(&s->slot.deferred, MANY_WM(k));
		if (MANY_IDLE(k))
			wm_output_status(&s->slot.deferred, WM_STATUS_IDLE);
		else
			active_left++;
	}
	for (uint32_t k = 0; k < MANY; k++) {
		errno = 0;
		if (wm_source_watermarks_add_split(&m->sw, MANY_ID(k)) !=
			    NULL ||
		    errno != EEXIST)
			ck_abort_msg("partition %u: added twice", k);
	}
	many_check(m, behaviour, true);

	/* This order ends with three idle partitions, 21125, 3355 and 21335:
	 * their maximum is above the last minimum, so the flush shows. */
	shuffle(order, MANY, 18);
	for (uint32_t r = 0; r < MANY; r++) {
		uint32_t k = order[r];

		if (wm_source_watermarks_remove_split(&m->sw, MANY_ID(k)) !=
			    0 ||
		    wm_source_watermarks_split(&m->sw, MANY_ID(k)) != NULL ||
		    wm_source_watermarks_remove_split(&m->sw, MANY_ID(k)) !=
			    -ENOENT)
			ck_abort_msg("partition %u: wrong removal", k);
		m->present[k] = false;
		if (!MANY_IDLE(k))
			active_left--;
		/* Often enough to see the minimum climb, and at every step
		 * once only idle partitions are left. */
		if ((r + 1) % 4096 == 0)
			many_check(m, behaviour, true);
		else if (active_left == 0)
			many_check(m, behaviour, false);
		if (active_left == 0 && r + 1 < MANY)
			idle_only_checks++;
	}
	ck_assert_uint_eq(idle_only_checks, 3);
	recorder_take(&rec);
	wm_source_watermarks_destroy(&m->sw);
	free(order);
	free(m);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Ticks that change nothing, and jumping over them */

#define JUMP_IDS 6 /* partition ids 0..5 come and go */
#define JUMP_EVENTS 400

/* xorshift64*: a scenario is reproducible from its loop index. */
static uint64_t
next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static size_t
put(char *buf, size_t len, size_t at, const char *what, long long a,
    long long b, long long c)
{
	int n = snprintf(buf + at, at < len ? len - at : 0,
			 "%s %lld %lld %lld; ", what, a, b, c);

	return at + (n > 0 ? (size_t)n : 0);
}

static size_t
put_generator(char *buf, size_t len, size_t at,
	      const struct wm_watermark_generator *g)
{
	at = put(buf, len, at, "gen", g->max_ts, g->idle_now, 0);
	return put(buf, len, at, "timer", (long long)g->idle.activity,
		   (long long)g->idle.activity_at_probe,
		   g->idle.quiet_since_ns);
}

static size_t
put_clock(char *buf, size_t len, size_t at, const struct wm_pausable_clock *c)
{
	return put(buf, len, at, "clock", c->paused, c->paused_at,
		   c->paused_total);
}

/* Everything a tick can change, as text: the data output, the gate, the
 * multiplexer, each partition's slot, generator and clock (by id), the
 * main generator and the subtask's clock. */
static void
describe(struct wm_source_watermarks *sw, char *buf, size_t len)
{
	size_t at = 0;

	at = put(buf, len, at, "data", sw->data.max_so_far, sw->data.idle, 0);
	at = put(buf, len, at, "gate", sw->split_side.idle, sw->main_side.idle,
		 sw->input_since_tick);
	at = put(buf, len, at, "mux", sw->mux.combined.watermark,
		 sw->mux.combined.all_idle, (long long)sw->mux.n_splits);
	for (uint64_t id = 0; id < JUMP_IDS; id++) {
		struct wm_source_split *split =
			wm_source_watermarks_split(sw, id);

		if (split == NULL)
			continue;
		at = put(buf, len, at, "split", (long long)id,
			 split->slot.partial.watermark,
			 split->slot.partial.idle);
		at = put_generator(buf, len, at, &split->generator);
		at = put_clock(buf, len, at, &split->clock);
	}
	at = put_generator(buf, len, at, &sw->main_generator);
	put_clock(buf, len, at, &sw->clock);
}

/* One caller event at a time: a record, a pause or a resumption of the
 * subtask or of a partition, a partition added or removed. */
static void
jump_event(struct wm_source_watermarks *sw, uint64_t *seed, int64_t now,
	   wm_ts_t ts)
{
	uint64_t what = next_random(seed) % 16;
	uint64_t id = next_random(seed) % JUMP_IDS;
	struct wm_source_split *split = wm_source_watermarks_split(sw, id);

	if (what < 9 && split != NULL)
		wm_source_split_on_record(split, ts,
					  what % 3 ? 0 : WM_RECORD_PUNCTUATE);
	else if (what == 9)
		wm_source_watermarks_on_main_record(sw, ts, 0);
	else if (what == 10)
		wm_source_watermarks_pause(sw, !sw->clock.paused, now);
	else if (what < 13 && split != NULL)
		wm_source_split_pause(sw, split, !split->clock.paused, now);
	else if (what == 13 && split != NULL)
		ck_assert_int_eq(wm_source_watermarks_remove_split(sw, id), 0);
	else if (split == NULL)
		ck_assert_ptr_nonnull(wm_source_watermarks_add_split(sw, id));
}

/* What the subtask sent, with the time it sent it. */
static void
jump_log(struct recorder *r, char *log, size_t len, int64_t now)
{
	const char *sent = recorder_take(r);
	size_t at = strlen(log);

	if (sent[0] != '\0')
		snprintf(log + at, len - at, "@%lld %s\n", (long long)now,
			 sent);
}

struct jump_run {
	struct wm_source_watermarks sw;
	struct recorder rec;
	char log[1 << 16];
	uint64_t ticks; /* run */
};

/* A strategy from the loop index: every generator kind, idleness of
 * several timeouts or none, intervals of 1 to 5 ms, released, master and
 * pre-FLINK-28975 rules. */
static struct wm_watermark_strategy
jump_strategy(int i)
{
	static const enum wm_watermark_kind kinds[] = {
		WM_WATERMARK_BOUNDED, WM_WATERMARK_ASCENDING,
		WM_WATERMARK_PUNCTUATED, WM_WATERMARK_NONE};
	static const int64_t timeouts[] = {0, 1, 3, 20};
	static const unsigned behaviours[] = {RELEASED, WM_BEHAVIOUR_MASTER, 0};
	int64_t timeout = timeouts[i / 4 % 4];

	return (struct wm_watermark_strategy){
		.kind = kinds[i % 4],
		.out_of_orderness_ms = i % 4 == 0 ? 3 : 0,
		.interval_ms = 1 + i % 5,
		.with_idleness = timeout != 0,
		.idle_timeout_ms = timeout,
		.behaviour = behaviours[i / 16 % 3],
	};
}

/*
 * Run scenario `i`: the same events at the same times, between them
 * either every tick (`jump` false: each checked against the prediction
 * made after the tick or event before it) or only the ticks predicted
 * to change something, skipping the others.
 */
static void
jump_scenario(struct jump_run *run, int i, bool jump)
{
	static const int64_t gaps[] = {300000, MS(2), MS(7), MS(40), MS(300)};
	struct wm_watermark_strategy s = jump_strategy(i);
	uint64_t seed = 0xabcdef + (uint64_t)i;
	char before[4096], after[4096];
	int64_t now = 0;

	recorder_init(&run->rec);
	run->log[0] = '\0';
	run->ticks = 0;
	ck_assert_int_eq(wm_source_watermarks_init(&run->sw, &s, &run->rec.out),
			 0);
	for (uint64_t id = 0; id < 3; id++)
		ck_assert_ptr_nonnull(
			wm_source_watermarks_add_split(&run->sw, id));
	wm_source_watermarks_start(&run->sw, 0);
	for (int n = 0; n < JUMP_EVENTS; n++) {
		int64_t at = now + gaps[next_random(&seed) % 5] +
			     (int64_t)(next_random(&seed) % 1000);

		for (;;) {
			struct wm_source_watermarks *sw = &run->sw;
			int64_t change = wm_source_watermarks_next_change(sw);
			bool by_clock = !sw->input_since_tick;
			int64_t tick = jump ? change : sw->next_tick_ns;

			if (tick >= at)
				break;
			if (jump)
				wm_source_watermarks_skip(&run->sw, tick);
			describe(&run->sw, before, sizeof(before));
			WM_HOT_ASSERT(wm_source_watermarks_poll(&run->sw, tick),
				      "scenario %d: tick %lld", i,
				      (long long)tick);
			run->ticks++;
			describe(&run->sw, after, sizeof(after));
			if (!jump && tick < change)
				WM_HOT_ASSERT(run->rec.len == 0 &&
						      !strcmp(before, after),
					      "scenario %d: the tick at %lld "
					      "changed something before %lld",
					      i, (long long)tick,
					      (long long)change);
			if (!jump && tick == change && by_clock)
				WM_HOT_ASSERT(run->rec.len != 0 ||
						      strcmp(before, after),
					      "scenario %d: the tick at %lld "
					      "changed nothing",
					      i, (long long)tick);
			jump_log(&run->rec, run->log, sizeof(run->log), tick);
		}
		if (jump)
			wm_source_watermarks_skip(&run->sw, at);
		now = at;
		jump_event(&run->sw, &seed, now, n * 10 - 50);
		jump_log(&run->rec, run->log, sizeof(run->log), now);
	}
}

START_TEST(test_jumping_over_ticks_is_stepping_through_them)
{
	/* Up to 300 ms between events, ticks every 1 to 5 ms: most ticks
	 * change nothing. Jumping over those sends the same at the same
	 * times, ends in the same state with the same next tick, and
	 * runs far fewer ticks. */
	struct jump_run *step = calloc(1, sizeof(*step)),
			*jump = calloc(1, sizeof(*jump));
	char a[4096], b[4096];

	ck_assert_ptr_nonnull(step);
	ck_assert_ptr_nonnull(jump);
	jump_scenario(step, _i, false);
	jump_scenario(jump, _i, true);
	ck_assert_str_eq(jump->log, step->log);
	describe(&step->sw, a, sizeof(a));
	describe(&jump->sw, b, sizeof(b));
	ck_assert_str_eq(b, a);
	ck_assert_int_eq(wm_source_watermarks_next_tick(&jump->sw),
			 wm_source_watermarks_next_tick(&step->sw));
	ck_assert_msg(jump->ticks * 4 < step->ticks,
		      "scenario %d: %llu ticks of %llu run", _i,
		      (unsigned long long)jump->ticks,
		      (unsigned long long)step->ticks);
	wm_source_watermarks_destroy(&step->sw);
	wm_source_watermarks_destroy(&jump->sw);
	free(step);
	free(jump);
}
END_TEST

START_TEST(test_a_tick_that_can_change_something_is_not_skipped)
{
	/* Input since the last tick: the tick due at 2 ms passes it on, so
	 * skipping to 5 ms leaves it due, to run late. */
	struct wm_watermark_strategy s = {.kind = WM_WATERMARK_BOUNDED,
					  .interval_ms = 2,
					  .behaviour = RELEASED};
	struct wm_source_watermarks sw;

	ck_assert_int_eq(wm_source_watermarks_init(&sw, &s, &rec.out), 0);
	wm_source_split_on_record(wm_source_watermarks_add_split(&sw, 0), 50,
				  0);
	wm_source_watermarks_start(&sw, 0);
	ck_assert_int_eq(wm_source_watermarks_next_change(&sw), MS(2));
	wm_source_watermarks_skip(&sw, MS(5));
	ck_assert_int_eq(wm_source_watermarks_next_tick(&sw), MS(2));
	ck_assert(wm_source_watermarks_poll(&sw, MS(5)));
	ck_assert_str_eq(recorder_take(&rec), "W(49)");
	/* Then nothing can change any more: without idleness, never. */
	ck_assert_int_eq(wm_source_watermarks_next_change(&sw), INT64_MAX);
	wm_source_watermarks_skip(&sw, MS(10) + 1);
	ck_assert_int_eq(wm_source_watermarks_next_tick(&sw), MS(11));
	wm_source_watermarks_destroy(&sw);
}
END_TEST

START_TEST(test_next_change_reads_idleness_on_paused_clocks)
{
	/* Idle timeout 10 ms, ticks every 1 ms, two partitions and the main
	 * output, on clocks that stand still now and then. */
	struct wm_watermark_strategy s = {.kind = WM_WATERMARK_BOUNDED,
					  .interval_ms = 1,
					  .with_idleness = true,
					  .idle_timeout_ms = 10,
					  .behaviour = RELEASED};
	struct wm_source_watermarks sw;
	struct wm_source_split *zero, *one;

	ck_assert_int_eq(wm_source_watermarks_init(&sw, &s, &rec.out), 0);
	zero = wm_source_watermarks_add_split(&sw, 0);
	one = wm_source_watermarks_add_split(&sw, 1);
	/* Their watermarks advanced: the multiplexer's side of the gate is
	 * active (and holds the subtask active). */
	wm_source_split_on_record(zero, 50, 0);
	wm_source_split_on_record(one, 50, 0);
	wm_source_watermarks_start(&sw, 0);
	ck_assert_int_eq(wm_source_watermarks_next_change(&sw), MS(1));
	ck_assert(wm_source_watermarks_poll(&sw, MS(1)));
	ck_assert_str_eq(recorder_take(&rec), "W(49)");
	/* The main output's countdown started at 1 ms, the partitions' at
	 * 2 ms (the tick at 1 ms saw their records); each expires once its
	 * clock reads more than 10 ms later. */
	ck_assert_int_eq(wm_source_watermarks_next_change(&sw), MS(2));
	ck_assert(wm_source_watermarks_poll(&sw, MS(2)));
	ck_assert_int_eq(wm_source_watermarks_next_change(&sw), MS(12));
	/* Split 1 stands still at 3 ms: only the others expire. */
	wm_source_split_pause(&sw, one, true, MS(3));
	ck_assert_int_eq(wm_source_watermarks_next_change(&sw), MS(12));
	/* The subtask too, at 5 ms: nothing expires any more. */
	wm_source_watermarks_pause(&sw, true, MS(5));
	ck_assert_int_eq(wm_source_watermarks_next_change(&sw), INT64_MAX);
	/* Resumed at 100 ms, 95 ms late: the main output expires at the
	 * first tick past 106 ms, split 0 one later. */
	wm_source_watermarks_pause(&sw, false, MS(100));
	ck_assert_int_eq(wm_source_watermarks_next_change(&sw), MS(107));
	wm_source_watermarks_skip(&sw, MS(107));
	ck_assert_int_eq(wm_source_watermarks_next_tick(&sw), MS(107));
	ck_assert(wm_source_watermarks_poll(&sw, MS(107)));
	ck_assert_int_eq(wm_source_watermarks_next_change(&sw), MS(108));
	ck_assert(wm_source_watermarks_poll(&sw, MS(108)));
	ck_assert(zero->slot.partial.idle && !one->slot.partial.idle);
	ck_assert_str_eq(recorder_take(&rec), "");
	ck_assert_int_eq(wm_source_watermarks_next_change(&sw), INT64_MAX);
	/* Split 1 resumed at 200 ms, its clock 197 ms behind: idle at the
	 * first tick past 209 ms, and with it the whole subtask. */
	wm_source_split_pause(&sw, one, false, MS(200));
	ck_assert_int_eq(wm_source_watermarks_next_change(&sw), MS(210));
	wm_source_watermarks_skip(&sw, MS(210));
	ck_assert(wm_source_watermarks_poll(&sw, MS(210)));
	ck_assert_str_eq(recorder_take(&rec), "IDLE");
	wm_source_watermarks_destroy(&sw);
}
END_TEST

static Suite *
source_suite(void)
{
	Suite *s = suite_create("source_watermarks");
	TCase *data = tcase_create("data_output");
	TCase *chain = tcase_create("subtask_chain");
	TCase *jump = tcase_create("jump");

	tcase_add_checked_fixture(data, setup, NULL);
	tcase_add_checked_fixture(chain, setup, NULL);
	tcase_add_test(data, test_data_output_first_watermark_zero);
	tcase_add_test(data, test_data_output_watermarks_do_not_regress);
	tcase_add_test(data, test_data_output_becoming_active_emits_status);
	tcase_add_test(data,
		       test_data_output_reactivation_needs_advancing_watermark);
	tcase_add_test(data, test_end_of_input_sends_max_unless_idle);
	tcase_add_test(chain,
		       test_per_split_outputs_hold_back_until_all_advance);
	tcase_add_test(chain,
		       test_released_split_unblocks_at_next_periodic_combine);
	tcase_add_test(chain, test_main_and_split_idleness_combine_in_the_gate);
	tcase_add_test(
		chain,
		test_resumed_split_without_advance_stays_idle_unless_flag);
	tcase_add_test(chain, test_split_registration_is_checked);
	tcase_add_test(
		chain,
		test_idle_source_end_of_input_loses_max_in_released_flink);
	tcase_add_test(chain, test_periodic_emission_follows_the_interval);
	tcase_add_test(chain, test_interval_zero_never_emits_nor_goes_idle);
	tcase_add_test(chain, test_paused_clocks_hold_idleness_back);
	tcase_add_loop_test(chain, test_many_partitions_in_any_order, 0, 2);
	tcase_add_checked_fixture(jump, setup, NULL);
	tcase_add_loop_test(
		jump, test_jumping_over_ticks_is_stepping_through_them, 0, 48);
	tcase_add_test(jump,
		       test_a_tick_that_can_change_something_is_not_skipped);
	tcase_add_test(jump, test_next_change_reads_idleness_on_paused_clocks);
	suite_add_tcase(s, data);
	suite_add_tcase(s, chain);
	suite_add_tcase(s, jump);
	return s;
}

int
main(void)
{
	return wm_check_main(source_suite());
}
