/*
 * check_watermark.c
 *	Unit tests of the generators and of idleness (doc/semantics.md
 *	section 2, cases G-1..G-14), including the timeout boundary and the
 *	rejection of zero and negative idle timeouts.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/behaviour.h"
#include "operators/idle.h"
#include "lib/snap.h"
#include "operators/watermark.h"
#include "tests/unit/recorder.h"
#include "tests/unit/check_main.h"
#include "wmrun/plugin.h"

#define MS(x) ((int64_t)(x)*WM_IDLE_NS_PER_MS)

static struct wm_watermark_generator
make(enum wm_watermark_kind kind, int64_t bound, int64_t idle_ms,
     unsigned behaviour)
{
	struct wm_watermark_strategy s = {
		.kind = kind,
		.out_of_orderness_ms = bound,
		.with_idleness = idle_ms != 0,
		.idle_timeout_ms = idle_ms,
		.behaviour = behaviour,
	};
	struct wm_watermark_generator g;

	ck_assert_int_eq(wm_watermark_init(&g, &s), 0);
	return g;
}

static struct recorder rec;

static void
setup(void)
{
	recorder_init(&rec);
}

static void
events(struct wm_watermark_generator *g, const wm_ts_t *ts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		wm_watermark_on_event(g, ts[i], 0, &rec.out);
}

START_TEST(test_bounded_first_watermark_is_min)
{
	/* G-1 */
	struct wm_watermark_generator g =
		make(WM_WATERMARK_BOUNDED, 10, 0, WM_BEHAVIOUR_RELEASED);

	wm_watermark_on_periodic(&g, MS(1), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(MIN)");
}
END_TEST

START_TEST(test_bounded_subtracts_bound_and_one)
{
	/* G-2, G-3, G-4 */
	struct wm_watermark_generator g =
		make(WM_WATERMARK_BOUNDED, 10, 0, WM_BEHAVIOUR_RELEASED);
	const wm_ts_t g3[] = {12345, 12300, 12340, 12280};

	events(&g, (wm_ts_t[]){1337}, 1);
	ck_assert_str_eq(recorder_take(&rec), ""); /* events never emit */
	wm_watermark_on_periodic(&g, MS(1), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(1326)");

	g = make(WM_WATERMARK_BOUNDED, 10, 0, WM_BEHAVIOUR_RELEASED);
	events(&g, g3, 4);
	wm_watermark_on_periodic(&g, MS(1), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(12334)");

	g = make(WM_WATERMARK_BOUNDED, 10, 0, WM_BEHAVIOUR_RELEASED);
	events(&g, (wm_ts_t[]){723456}, 1);
	wm_watermark_on_periodic(&g, MS(1), &rec.out);
	wm_watermark_on_periodic(&g, MS(2), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(723445) W(723445)");
}
END_TEST

START_TEST(test_ascending_is_max_minus_one)
{
	/* G-5, G-6, G-7 */
	struct wm_watermark_generator g =
		make(WM_WATERMARK_ASCENDING, 0, 0, WM_BEHAVIOUR_RELEASED);

	wm_watermark_on_periodic(&g, MS(1), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(MIN)");
	events(&g, (wm_ts_t[]){1337}, 1);
	wm_watermark_on_periodic(&g, MS(2), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(1336)");
	g = make(WM_WATERMARK_ASCENDING, 0, 0, WM_BEHAVIOUR_RELEASED);
	events(&g, (wm_ts_t[]){12345, 12340}, 2);
	wm_watermark_on_periodic(&g, MS(1), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(12344)");
}
END_TEST

START_TEST(test_bounded_handles_extreme_timestamps)
{
	struct wm_watermark_generator g =
		make(WM_WATERMARK_BOUNDED, 1000, 0, WM_BEHAVIOUR_RELEASED);

	events(&g, (wm_ts_t[]){WM_TS_MIN}, 1);
	wm_watermark_on_periodic(&g, MS(1), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(MIN)");
	events(&g, (wm_ts_t[]){WM_TS_MAX}, 1);
	wm_watermark_on_periodic(&g, MS(2), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(9223372036854774806)");
}
END_TEST

START_TEST(test_punctuated_emits_at_once_and_never_periodically)
{
	struct wm_watermark_generator g =
		make(WM_WATERMARK_PUNCTUATED, 0, 0, WM_BEHAVIOUR_RELEASED);

	wm_watermark_on_event(&g, 100, 0, &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "");
	wm_watermark_on_event(&g, 150, WM_RECORD_PUNCTUATE, &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(150)");
	wm_watermark_on_periodic(&g, MS(1), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "");
}
END_TEST

/* bounded(10) combined with punctuated: a mark's timestamp and a carried
 * watermark at once, the bound's watermark at every tick, the maximum
 * kept across both; ascending the same with no bound. A combined
 * generator's snapshot is refused by a plain one and back. */
START_TEST(test_combined_emits_marks_at_once_and_the_bound_periodically)
{
	struct wm_watermark_strategy s = {
		.kind = WM_WATERMARK_BOUNDED,
		.out_of_orderness_ms = 10,
		.punctuated = true,
	};
	struct wm_watermark_generator g, plain;
	struct wm_snap_writer w;
	struct wm_snap_reader r;
	const char *why;

	ck_assert(wm_watermark_strategy_punctuated(&s));
	ck_assert_int_eq(wm_watermark_init(&g, &s), 0);
	wm_watermark_on_event(&g, 100, 0, &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "");
	wm_watermark_on_periodic(&g, MS(1), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(89)");
	/* A mark behind the maximum: its own timestamp, at once. */
	wm_watermark_on_event(&g, 95, WM_RECORD_PUNCTUATE, &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(95)");
	wm_watermark_on_event(
		&g, 300, WM_RECORD_PUNCTUATE | WM_RECORD_WATERMARK, &rec.out);
	wm_watermark_on_carried(&g, 250, &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(300) W(250)");
	wm_watermark_on_periodic(&g, MS(2), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(289)");

	wm_snap_writer_init(&w);
	wm_watermark_snapshot(&g, &w);
	ck_assert_int_eq(wm_snap_writer_error(&w), 0);
	plain = make(WM_WATERMARK_BOUNDED, 10, 0, WM_BEHAVIOUR_RELEASED);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_watermark_restore(&plain, &r), -EINVAL);
	wm_snap_writer_release(&w);

	s.kind = WM_WATERMARK_ASCENDING;
	s.out_of_orderness_ms = 0;
	ck_assert_int_eq(wm_watermark_init(&g, &s), 0);
	wm_watermark_on_event(&g, 70, WM_RECORD_PUNCTUATE, &rec.out);
	wm_watermark_on_periodic(&g, MS(1), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(70) W(69)");

	/* Only the periodic ones combine. */
	s.kind = WM_WATERMARK_NONE;
	ck_assert_int_eq(wm_watermark_strategy_check(&s, &why), -EINVAL);
	ck_assert_str_eq(why, "only bounded and ascending generators combine "
			      "with punctuated");
}
END_TEST

/* A carried watermark (a watermark field) goes out at once from a
 * punctuated generator, after a mark's own; the others ignore it, and a
 * bounded one's periodic watermark stays its records'. */
START_TEST(test_carried_watermarks_only_punctuated_emits)
{
	struct wm_watermark_generator g =
		make(WM_WATERMARK_PUNCTUATED, 0, 0, WM_BEHAVIOUR_RELEASED);

	wm_watermark_on_event(&g, 100, WM_RECORD_WATERMARK, &rec.out);
	wm_watermark_on_carried(&g, 40, &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(40)");
	wm_watermark_on_event(
		&g, 150, WM_RECORD_PUNCTUATE | WM_RECORD_WATERMARK, &rec.out);
	wm_watermark_on_carried(&g, 140, &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(150) W(140)");
	wm_watermark_on_periodic(&g, MS(1), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "");

	g = make(WM_WATERMARK_BOUNDED, 10, 0, WM_BEHAVIOUR_RELEASED);
	wm_watermark_on_event(&g, 100, WM_RECORD_WATERMARK, &rec.out);
	wm_watermark_on_carried(&g, 500, &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "");
	wm_watermark_on_periodic(&g, MS(1), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(89)");
}
END_TEST

/* A plugin generator for the test: it remembers what it was given and
 * answers through every call of its output. */
struct probe {
	char args[32];
	int64_t last_ts;
	uint32_t last_flags;
	int64_t last_now_ms;
	bool *destroyed;
};

static bool probe_destroyed;

static void *
probe_create(const char *args)
{
	struct probe *p;

	if (strcmp(args, "refuse") == 0)
		return NULL;
	p = calloc(1, sizeof(*p));
	snprintf(p->args, sizeof(p->args), "%s", args);
	p->destroyed = &probe_destroyed;
	return p;
}

static void
probe_destroy(void *g)
{
	*((struct probe *)g)->destroyed = true;
	free(g);
}

static void
probe_event(void *g, const struct wmrun_event *e,
	    struct wmrun_watermark_output *out)
{
	struct probe *p = g;

	p->last_ts = e->timestamp;
	p->last_flags = e->flags;
	if (e->flags & WMRUN_EVENT_PUNCTUATE)
		out->emit_watermark(out, e->timestamp - 1);
}

static void
probe_periodic(void *g, int64_t now_ms, struct wmrun_watermark_output *out)
{
	struct probe *p = g;

	p->last_now_ms = now_ms;
	if (now_ms % 2 == 0)
		out->mark_idle(out);
	else
		out->mark_active(out);
}

static const struct wmrun_watermark_generator probe_type = {
	"probe", probe_create, probe_destroy, probe_event, probe_periodic};

/*
 * A plugin's generator: made with its arguments, told every event (its
 * timestamp and the flags the ABI names, no others), the periodic call
 * the processing time in ms; what it emits, and idle and active, reach
 * the output; every tick may change something (next change: at once);
 * destroyed with the generator. Arguments it refuses fail the init.
 */
START_TEST(test_plugin_generator_is_called_as_flink_would)
{
	struct wm_watermark_strategy s = {.kind = WM_WATERMARK_PLUGIN,
					  .interval_ms = 200,
					  .plugin = &probe_type,
					  .plugin_args = "a b"};
	struct wm_watermark_generator g;
	struct probe *p;

	ck_assert_int_eq(wm_watermark_init(&g, &s), 0);
	p = g.plugin_state;
	ck_assert_str_eq(p->args, "a b");
	wm_watermark_on_event(
		&g, 500, WM_RECORD_HEARTBEAT | WM_RECORD_STRING_KEY, &rec.out);
	ck_assert_int_eq(p->last_ts, 500);
	ck_assert_uint_eq(p->last_flags, WMRUN_EVENT_HEARTBEAT);
	ck_assert_str_eq(recorder_take(&rec), "");
	wm_watermark_on_event(&g, 900, WM_RECORD_PUNCTUATE, &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(899)");
	wm_watermark_on_periodic(&g, MS(1234), &rec.out);
	ck_assert_int_eq(p->last_now_ms, 1234);
	wm_watermark_on_periodic(&g, MS(1235), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "IDLE ACTIVE");
	ck_assert_int_eq(wm_watermark_next_change(&g), 0);
	probe_destroyed = false;
	wm_watermark_destroy(&g);
	ck_assert(probe_destroyed);

	s.plugin_args = "refuse";
	ck_assert_int_eq(wm_watermark_init(&g, &s), -EINVAL);
	s.plugin = NULL;
	ck_assert_int_eq(wm_watermark_init(&g, &s), -EINVAL);
}
END_TEST

START_TEST(test_invalid_strategies_are_rejected)
{
	struct wm_watermark_strategy s = {.kind = WM_WATERMARK_BOUNDED,
					  .out_of_orderness_ms = -1};
	struct wm_watermark_generator g;
	const char *why = NULL;

	ck_assert_int_eq(wm_watermark_strategy_check(&s, &why), -EINVAL);
	ck_assert_ptr_nonnull(why);
	ck_assert_int_eq(wm_watermark_init(&g, &s), -EINVAL);
	s = (struct wm_watermark_strategy){.kind = WM_WATERMARK_ASCENDING,
					   .out_of_orderness_ms = 5};
	ck_assert_int_eq(wm_watermark_init(&g, &s), -EINVAL);
}
END_TEST

START_TEST(test_zero_or_negative_idle_timeout_is_rejected)
{
	/* G-8: withIdleness(0) and withIdleness(-1) are errors. */
	struct wm_watermark_strategy s = {.kind = WM_WATERMARK_BOUNDED,
					  .with_idleness = true};
	struct wm_watermark_generator g;
	struct wm_idle_timer t;
	const char *why = NULL;

	s.idle_timeout_ms = 0;
	ck_assert_int_eq(wm_watermark_strategy_check(&s, &why), -EINVAL);
	ck_assert_int_eq(wm_watermark_init(&g, &s), -EINVAL);
	s.idle_timeout_ms = -1;
	ck_assert_int_eq(wm_watermark_init(&g, &s), -EINVAL);
	ck_assert_int_eq(wm_idle_init(&t, 0), -EINVAL);
	ck_assert_int_eq(wm_idle_init(&t, -1), -EINVAL);
	ck_assert_int_eq(wm_idle_init(&t, 1), 0);
}
END_TEST

START_TEST(test_idle_timer_flink_cases)
{
	struct wm_idle_timer t;
	int64_t now = MS(1000);

	/* G-9 */
	wm_idle_init(&t, 10);
	ck_assert(!wm_idle_check(&t, now));
	/* G-10: the countdown starts at that first quiet probe. */
	now += MS(11);
	ck_assert(wm_idle_check(&t, now));
	/* G-12 */
	wm_idle_activity(&t);
	ck_assert(!wm_idle_check(&t, now));

	/* G-11: stays idle, no re-anchoring. */
	wm_idle_init(&t, 122);
	ck_assert(!wm_idle_check(&t, now));
	now += MS(123);
	ck_assert(wm_idle_check(&t, now));
	ck_assert(wm_idle_check(&t, now));
	now += MS(100);
	ck_assert(wm_idle_check(&t, now));

	/* G-13: idle, activity, active, anchor, idle again. */
	wm_idle_activity(&t);
	ck_assert(!wm_idle_check(&t, now));
	ck_assert(!wm_idle_check(&t, now));
	now += MS(123);
	ck_assert(wm_idle_check(&t, now));
}
END_TEST

START_TEST(test_idle_timeout_boundary_is_strict)
{
	/* G-14: timeout 10 ms, probes every 5 ms, one record at t=4: probe
	 * 5 sees it, 10 anchors, 20 is exactly 10 ms (not idle), 25 idle. */
	struct wm_watermark_generator g =
		make(WM_WATERMARK_NONE, 0, 10, WM_BEHAVIOUR_RELEASED);

	wm_watermark_on_event(&g, 4, 0, &rec.out);
	for (int t = 5; t <= 20; t += 5) {
		wm_watermark_on_periodic(&g, MS(t), &rec.out);
		ck_assert_msg(strcmp(recorder_take(&rec), "") == 0,
			      "idle too early at t=%d", t);
	}
	wm_watermark_on_periodic(&g, MS(25), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "IDLE");
}
END_TEST

START_TEST(test_idle_timer_ignores_a_clock_read_backwards)
{
	/* Timeout 10 ms: the countdown starts at the quiet probe at 100 ms;
	 * a reading of 50 ms (a clock read out of order) is no time passed,
	 * not the wrapped-around eternity an unsigned difference makes it. */
	struct wm_idle_timer t;

	ck_assert_int_eq(wm_idle_init(&t, 10), 0);
	wm_idle_activity(&t);
	ck_assert(!wm_idle_check(&t, MS(90)));
	ck_assert(!wm_idle_check(&t, MS(100)));
	ck_assert(!wm_idle_check(&t, MS(50)));
	ck_assert(!wm_idle_check(&t, MS(110)));
	ck_assert(wm_idle_check(&t, MS(111)));
}
END_TEST

START_TEST(test_idle_generator_is_silent_and_marks_idle_once)
{
	struct wm_watermark_generator g =
		make(WM_WATERMARK_BOUNDED, 0, 100, WM_BEHAVIOUR_RELEASED);

	wm_watermark_on_event(&g, 50, 0, &rec.out);
	wm_watermark_on_periodic(&g, MS(100), &rec.out); /* activity */
	wm_watermark_on_periodic(&g, MS(200), &rec.out); /* anchor */
	wm_watermark_on_periodic(&g, MS(300), &rec.out); /* == 100: no */
	ck_assert_str_eq(recorder_take(&rec), "W(49) W(49) W(49)");
	wm_watermark_on_periodic(&g, MS(301), &rec.out);
	wm_watermark_on_periodic(&g, MS(400), &rec.out);
	/* No watermark while idle, and IDLE only once. */
	ck_assert_str_eq(recorder_take(&rec), "IDLE");
	/* A record ends idleness at the next probe, via a watermark only:
	 * the wrapper never sends ACTIVE itself. */
	wm_watermark_on_event(&g, 60, 0, &rec.out);
	wm_watermark_on_periodic(&g, MS(500), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "W(59)");
}
END_TEST

START_TEST(test_idle_mark_repeats_without_mark_once_flag)
{
	/* Before FLINK-28975 markIdle was sent on every idle probe. */
	struct wm_watermark_generator g = make(WM_WATERMARK_BOUNDED, 0, 100, 0);

	wm_watermark_on_periodic(&g, MS(100), &rec.out); /* anchor */
	ck_assert_str_eq(recorder_take(&rec), "W(MIN)");
	wm_watermark_on_periodic(&g, MS(201), &rec.out);
	wm_watermark_on_periodic(&g, MS(300), &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "IDLE IDLE");
}
END_TEST

START_TEST(test_countdown_started_at_clock_zero_is_forgotten)
{
	/* Flink encodes "no countdown" as start 0 (clock_zero_quirk.source). */
	struct wm_idle_timer t;

	wm_idle_init(&t, 10);
	ck_assert(!wm_idle_check(&t, 0));      /* anchor at 0 = none */
	ck_assert(!wm_idle_check(&t, MS(20))); /* anchors now */
	ck_assert(!wm_idle_check(&t, MS(30)));
	ck_assert(wm_idle_check(&t, MS(31)));
}
END_TEST

/* xorshift64*: the tests below are reproducible from the loop index. */
static uint64_t
next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* The next clock reading: the same now and then (a paused clock stands
 * still), else a step, down to a nanosecond: a probe may land on the
 * first reading past a timeout. */
static int64_t
advance(uint64_t *seed, int64_t now)
{
	static const int64_t steps[] = {0, 0, 1, 100000, 700000, MS(1), MS(3)};

	size_t n = sizeof(steps) / sizeof(*steps);

	return now + steps[next_random(seed) % n];
}

static bool
same_timer(const struct wm_idle_timer *a, const struct wm_idle_timer *b)
{
	return a->activity == b->activity &&
	       a->activity_at_probe == b->activity_at_probe &&
	       a->quiet_since_ns == b->quiet_since_ns &&
	       a->max_idle_ns == b->max_idle_ns;
}

START_TEST(test_idle_next_change_names_the_first_probe_that_acts)
{
	/* Probes from reading 0 on (the quirk of a countdown started at 0
	 * included), a record before some: a probe below the reading
	 * predicted changes nothing and answers false; one at or above it
	 * changes the timer or answers true. */
	uint64_t seed = 0x5eed + (uint64_t)_i;
	struct wm_idle_timer t;
	int64_t now = 0;

	ck_assert_int_eq(wm_idle_init(&t, 1 + _i % 4), 0);
	for (int n = 0; n < 5000; n++) {
		struct wm_idle_timer before;
		int64_t at;
		bool idle;

		if (next_random(&seed) % 16 == 0)
			wm_idle_activity(&t);
		before = t;
		at = wm_idle_next_change(&t);
		idle = wm_idle_check(&t, now);
		if (now < at)
			ck_assert_msg(!idle && same_timer(&before, &t),
				      "probe %d at %" PRId64
				      " acted before %" PRId64,
				      n, now, at);
		else
			ck_assert_msg(idle || !same_timer(&before, &t),
				      "probe %d at %" PRId64
				      " did nothing (%" PRId64 " predicted)",
				      n, now, at);
		now = advance(&seed, now);
	}
}
END_TEST

START_TEST(test_idle_next_change_saturates_at_the_end_of_time)
{
	struct wm_idle_timer t;

	ck_assert_int_eq(wm_idle_init(&t, INT64_MAX), 0);
	ck_assert_int_eq(wm_idle_next_change(&t), 1);
	ck_assert(!wm_idle_check(&t, MS(5)));
	ck_assert_int_eq(wm_idle_next_change(&t), INT64_MAX);
	ck_assert_int_eq(wm_idle_init(&t, 10), 0);
	wm_idle_activity(&t);
	ck_assert_int_eq(wm_idle_next_change(&t), 0);
	ck_assert(!wm_idle_check(&t, MS(5)));
	ck_assert(!wm_idle_check(&t, MS(6)));
	ck_assert_int_eq(wm_idle_next_change(&t), MS(16) + 1);
}
END_TEST

static bool
same_generator(const struct wm_watermark_generator *a,
	       const struct wm_watermark_generator *b)
{
	return a->kind == b->kind && a->bound == b->bound &&
	       a->max_ts == b->max_ts && a->with_idleness == b->with_idleness &&
	       a->mark_idle_once == b->mark_idle_once &&
	       a->idle_now == b->idle_now &&
	       (!a->with_idleness || same_timer(&a->idle, &b->idle));
}

/* A tick's emission `out` is nothing new after the previous one's: the
 * same, or nothing after IDLE (marked once). */
static bool
repeats(const char *out, const char *previous)
{
	return strcmp(out, previous) == 0 ||
	       (out[0] == '\0' && strcmp(previous, "IDLE") == 0);
}

START_TEST(test_generator_next_change_names_the_first_tick_that_differs)
{
	/* Every kind, with and without idleness, marking idle once or on
	 * every probe. Between records, a tick at a reading below the one
	 * predicted changes nothing and emits nothing new; the tick at or
	 * above it does one or the other. */
	static const enum wm_watermark_kind kinds[] = {
		WM_WATERMARK_BOUNDED, WM_WATERMARK_ASCENDING,
		WM_WATERMARK_PUNCTUATED, WM_WATERMARK_NONE};
	uint64_t seed = 0xfeed + (uint64_t)_i;
	struct wm_watermark_generator g =
		make(kinds[_i % 4], _i % 4 == 0 ? 3 : 0, _i / 4 % 3,
		     _i / 12 % 2 ? WM_BEHAVIOUR_RELEASED : 0);
	char previous[sizeof(rec.text)] = "";
	bool ticked = false, record = false;
	int64_t now = MS(1);

	for (int n = 0; n < 5000; n++) {
		struct wm_watermark_generator before = g;
		int64_t at = wm_watermark_next_change(&g);
		const char *out;

		if (next_random(&seed) % 16 == 0) {
			wm_watermark_on_event(&g, n, WM_RECORD_PUNCTUATE,
					      &rec.out);
			recorder_take(&rec);
			record = true;
			continue;
		}
		wm_watermark_on_periodic(&g, now, &rec.out);
		out = recorder_take(&rec);
		if (ticked && !record && now < at)
			ck_assert_msg(repeats(out, previous) &&
					      same_generator(&before, &g),
				      "tick %d at %" PRId64
				      " acted before %" PRId64,
				      n, now, at);
		else if (ticked && !record)
			ck_assert_msg(!repeats(out, previous) ||
					      !same_generator(&before, &g),
				      "tick %d at %" PRId64
				      " did nothing new (%" PRId64
				      " predicted)",
				      n, now, at);
		snprintf(previous, sizeof(previous), "%s", out);
		ticked = true;
		record = false;
		now = advance(&seed, now);
	}
}
END_TEST

static Suite *
watermark_suite(void)
{
	Suite *s = suite_create("watermark");
	TCase *gen = tcase_create("generators");
	TCase *idle = tcase_create("idleness");

	tcase_add_checked_fixture(gen, setup, NULL);
	tcase_add_checked_fixture(idle, setup, NULL);
	tcase_add_test(gen, test_bounded_first_watermark_is_min);
	tcase_add_test(gen, test_bounded_subtracts_bound_and_one);
	tcase_add_test(gen, test_ascending_is_max_minus_one);
	tcase_add_test(gen, test_bounded_handles_extreme_timestamps);
	tcase_add_test(gen,
		       test_punctuated_emits_at_once_and_never_periodically);
	tcase_add_test(gen, test_carried_watermarks_only_punctuated_emits);
	tcase_add_test(
		gen,
		test_combined_emits_marks_at_once_and_the_bound_periodically);
	tcase_add_test(gen, test_plugin_generator_is_called_as_flink_would);
	tcase_add_test(gen, test_invalid_strategies_are_rejected);
	tcase_add_test(idle, test_zero_or_negative_idle_timeout_is_rejected);
	tcase_add_test(idle, test_idle_timer_flink_cases);
	tcase_add_test(idle, test_idle_timeout_boundary_is_strict);
	tcase_add_test(idle, test_idle_timer_ignores_a_clock_read_backwards);
	tcase_add_test(idle, test_idle_generator_is_silent_and_marks_idle_once);
	tcase_add_test(idle, test_idle_mark_repeats_without_mark_once_flag);
	tcase_add_test(idle, test_countdown_started_at_clock_zero_is_forgotten);
	tcase_add_loop_test(
		idle, test_idle_next_change_names_the_first_probe_that_acts, 0,
		8);
	tcase_add_test(idle,
		       test_idle_next_change_saturates_at_the_end_of_time);
	tcase_add_loop_test(
		idle,
		test_generator_next_change_names_the_first_tick_that_differs, 0,
		24);
	suite_add_tcase(s, gen);
	suite_add_tcase(s, idle);
	return s;
}

int
main(void)
{
	return wm_check_main(watermark_suite());
}
