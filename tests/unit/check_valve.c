/*
 * check_valve.c
 *	Unit tests of the heap valve: every StatusWatermarkValve case of
 *	doc/semantics.md section 10.5 (V-1..V-17, with and without the flags
 *	they name), and invariants under random input.
 */
#include "config.h"

#include <check.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/behaviour.h"
#include "operators/valve.h"
#include "tests/unit/recorder.h"
#include "tests/unit/check_main.h"

#define RELEASED WM_BEHAVIOUR_RELEASED
#define FLUSH (RELEASED | WM_VALVE_FLUSH_UNCONDITIONAL)
#define REDERIVE (RELEASED | WM_VALVE_REDERIVE_ON_ACTIVE)
#define MASTER WM_BEHAVIOUR_MASTER

struct step {
	const char *input; /* "wm CH TS", "idle CH", "active CH" */
	const char *expected;
};

struct valve_case {
	const char *id;
	uint32_t channels;
	unsigned behaviour;
	struct step steps[24];
};

/* Apply one input line in the trace syntax. */
static void
apply(struct wm_valve *v, const char *input, struct wm_output *out)
{
	unsigned ch;
	int64_t w;

	if (sscanf(input, "wm %u %" SCNd64, &ch, &w) == 2)
		wm_valve_input_watermark(v, ch, w, out);
	else if (sscanf(input, "idle %u", &ch) == 1)
		wm_valve_input_status(v, ch, WM_STATUS_IDLE, out);
	else if (sscanf(input, "active %u", &ch) == 1)
		wm_valve_input_status(v, ch, WM_STATUS_ACTIVE, out);
	else
		ck_abort_msg("bad step \"%s\"", input);
}

static const struct valve_case cases[] = {
	{"V-1", 1, RELEASED, {{"wm 0 0", "W(0)"}, {"wm 0 25", "W(25)"}}},
	{"V-2",
	 1,
	 RELEASED,
	 {{"wm 0 25", "W(25)"}, {"wm 0 18", ""}, {"wm 0 42", "W(42)"}}},
	{"V-3",
	 1,
	 RELEASED,
	 {{"active 0", ""},
	  {"idle 0", "IDLE"},
	  {"idle 0", ""},
	  {"active 0", "ACTIVE"}}},
	{"V-4",
	 1,
	 RELEASED,
	 {{"wm 0 25", "W(25)"},
	  {"idle 0", "IDLE"},
	  {"wm 0 50", ""},
	  {"active 0", "ACTIVE"},
	  {"wm 0 50", "W(50)"}}},
	{"V-5",
	 3,
	 RELEASED,
	 {{"wm 0 0", ""}, {"wm 1 0", ""}, {"wm 2 0", "W(0)"}}},
	{"V-6",
	 3,
	 RELEASED,
	 {{"wm 0 0", ""},
	  {"wm 1 0", ""},
	  {"wm 2 0", "W(0)"},
	  {"wm 0 12", ""},
	  {"wm 2 8", ""},
	  {"wm 2 10", ""},
	  {"wm 1 15", "W(10)"},
	  {"wm 2 17", "W(12)"},
	  {"wm 0 20", "W(15)"}}},
	{"V-7",
	 3,
	 RELEASED,
	 {{"wm 0 25", ""},
	  {"wm 1 10", ""},
	  {"wm 2 17", "W(10)"},
	  {"wm 0 12", ""},
	  {"wm 1 8", ""},
	  {"wm 2 15", ""}}},
	{"V-8",
	 2,
	 RELEASED,
	 {{"active 0", ""},
	  {"active 1", ""},
	  {"idle 1", ""},
	  {"idle 0", "IDLE"},
	  {"idle 0", ""},
	  {"idle 1", ""},
	  {"active 1", "ACTIVE"},
	  {"active 0", ""}}},
	{"V-9",
	 3,
	 RELEASED,
	 {{"wm 0 15", ""},
	  {"wm 1 10", ""},
	  {"idle 2", "W(10)"},
	  {"wm 1 18", "W(15)"},
	  {"wm 0 20", "W(18)"}}},
	{"V-10",
	 3,
	 RELEASED,
	 {{"wm 0 25", ""},
	  {"wm 1 10", ""},
	  {"wm 2 17", "W(10)"},
	  {"idle 1", "W(17)"},
	  {"idle 2", "W(25)"}}},
	{"V-11",
	 3,
	 RELEASED,
	 {{"wm 0 10", ""},
	  {"wm 1 5", ""},
	  {"wm 2 3", "W(3)"},
	  {"idle 0", ""},
	  {"idle 1", ""},
	  {"idle 2", "W(10) IDLE"}}},
	{"V-12",
	 3,
	 RELEASED,
	 {{"wm 0 10", ""},
	  {"wm 1 7", ""},
	  {"wm 2 3", "W(3)"},
	  {"idle 2", "W(7)"},
	  {"active 2", ""},
	  {"wm 2 5", ""},
	  {"wm 2 9", ""},
	  {"wm 1 12", "W(9)"}}},
	{"V-13",
	 3,
	 RELEASED,
	 {{"wm 0 10", ""},
	  {"wm 1 7", ""},
	  {"idle 2", "W(7)"},
	  {"active 2", ""},
	  {"idle 0", ""},
	  {"idle 1", ""}}},
	{"V-14",
	 2,
	 RELEASED,
	 {{"wm 0 7", ""},
	  {"wm 1 10", "W(7)"},
	  {"idle 0", "W(10)"},
	  {"active 0", ""},
	  {"wm 0 9", ""},
	  {"idle 0", ""}}},
#define V15_PREFIX                                                             \
	{"wm 0 100", ""}, {"wm 1 50", ""}, {"wm 2 70", "W(50)"},               \
		{"idle 1", "W(70)"}, {"active 1", ""}, {"wm 1 60", ""},        \
		{"idle 0", ""},                                                \
	{                                                                      \
		"idle 2", ""                                                   \
	}
	{"V-15 released", 3, RELEASED, {V15_PREFIX, {"idle 1", "IDLE"}}},
	{"V-15 flush", 3, FLUSH, {V15_PREFIX, {"idle 1", "W(100) IDLE"}}},
#define V16_PREFIX                                                             \
	{"wm 0 10", ""}, {"wm 1 7", ""}, {"idle 2", "W(7)"}, {"active 2", ""}, \
		{"idle 0", ""},                                                \
	{                                                                      \
		"idle 1", ""                                                   \
	}
	{"V-16 released",
	 3,
	 RELEASED,
	 {V16_PREFIX, {"active 0", ""}, {"idle 2", ""}}},
	{"V-16 rederive",
	 3,
	 REDERIVE,
	 {V16_PREFIX, {"active 0", "W(10)"}, {"idle 2", ""}}},
#define V17_PREFIX                                                             \
	{"wm 0 10", ""}, {"wm 1 20", ""}, {"wm 2 30", "W(10)"},                \
		{"idle 2", ""}, {"idle 0", "W(20)"}, {"active 0", ""},         \
	{                                                                      \
		"idle 1", ""                                                   \
	}
	{"V-17 released",
	 3,
	 RELEASED,
	 {V17_PREFIX, {"active 2", ""}, {"idle 0", ""}, {"idle 2", "IDLE"}}},
	{"V-17 master",
	 3,
	 MASTER,
	 {V17_PREFIX,
	  {"active 2", "W(30)"},
	  {"idle 0", ""},
	  {"idle 2", "IDLE"}}},
};

#define N_CASES (sizeof(cases) / sizeof(cases[0]))

/* Every step of c gives exactly the output it expects. */
static void
run_case(const struct valve_case *c)
{
	struct wm_valve *v = wm_valve_new(c->channels, c->behaviour);
	struct recorder rec;

	ck_assert_ptr_nonnull(v);
	recorder_init(&rec);
	for (int s = 0; c->steps[s].input != NULL; s++) {
		apply(v, c->steps[s].input, &rec.out);
		const char *got = recorder_take(&rec);

		ck_assert_msg(strcmp(got, c->steps[s].expected) == 0,
			      "%s step %d \"%s\": expected \"%s\", got \"%s\"",
			      c->id, s + 1, c->steps[s].input,
			      c->steps[s].expected, got);
	}
	wm_valve_free(v);
}

START_TEST(test_valve_reproduces_flink_case)
{
	run_case(&cases[_i]);
}
END_TEST

/*
 * The all-idle study policies (not Flink; doc/semantics.md section 9.6):
 * the last channel going idle flushes MAX with WM_ALL_IDLE_MAX, nothing
 * with WM_ALL_IDLE_HOLD, whatever VALVE_FLUSH_UNCONDITIONAL says; the
 * rest of the valve is Flink's. Channel 1 goes idle ahead of channel 0,
 * which holds the output at 3 and then goes idle: Flink flushes 7.
 */
#define ALL_IDLE_STEPS(last)                                                   \
	{                                                                      \
		{"wm 0 3", ""}, {"wm 1 7", "W(3)"}, {"idle 1", ""},            \
		{                                                              \
			"idle 0", last                                         \
		}                                                              \
	}

static const struct valve_case study_cases[] = {
	{"all idle, flink", 2, RELEASED, ALL_IDLE_STEPS("W(7) IDLE")},
	{"all idle, max", 2, RELEASED | WM_ALL_IDLE_MAX,
	 ALL_IDLE_STEPS("W(MAX) IDLE")},
	{"all idle, hold", 2, RELEASED | WM_ALL_IDLE_HOLD,
	 ALL_IDLE_STEPS("IDLE")},
	{"all idle, hold, unconditional flag", 2, FLUSH | WM_ALL_IDLE_HOLD,
	 ALL_IDLE_STEPS("IDLE")},
	/* After MAX every channel is behind for ever: nothing more but the
	 * statuses, and a final MAX is no news. */
	{"after max",
	 2,
	 RELEASED | WM_ALL_IDLE_MAX,
	 {{"wm 0 3", ""},
	  {"idle 0", ""},
	  {"idle 1", "W(MAX) IDLE"},
	  {"active 0", "ACTIVE"},
	  {"wm 0 100", ""},
	  {"active 1", ""},
	  {"wm 1 9223372036854775807", ""}}},
	/* Holding, a channel back at its old watermark is aligned and the
	 * output goes on from where it stood. */
	{"after hold",
	 2,
	 MASTER | WM_ALL_IDLE_HOLD,
	 {{"wm 0 3", ""},
	  {"wm 1 7", "W(3)"},
	  {"idle 1", ""},
	  {"idle 0", "IDLE"},
	  {"active 0", "ACTIVE"},
	  {"wm 0 5", "W(5)"}}},
};

#define N_STUDY_CASES (sizeof(study_cases) / sizeof(study_cases[0]))

START_TEST(test_valve_all_idle_policy_replaces_flinks_flush)
{
	run_case(&study_cases[_i]);
}
END_TEST

START_TEST(test_valve_tracks_channel_alignment)
{
	/* V-12 after "active 2": channel 2 is active but unaligned, then
	 * realigned by a watermark >= the last output. */
	struct wm_valve *v = wm_valve_new(3, RELEASED);
	struct recorder rec;

	recorder_init(&rec);
	apply(v, "wm 0 10", &rec.out);
	apply(v, "wm 1 7", &rec.out);
	apply(v, "wm 2 3", &rec.out);
	apply(v, "idle 2", &rec.out);
	ck_assert(!wm_valve_channel(v, 2).aligned);
	apply(v, "active 2", &rec.out);
	ck_assert_int_eq(wm_valve_channel(v, 2).status, WM_STATUS_ACTIVE);
	ck_assert(!wm_valve_channel(v, 2).aligned);
	apply(v, "wm 2 5", &rec.out);
	ck_assert(!wm_valve_channel(v, 2).aligned);
	ck_assert_int_eq(wm_valve_channel(v, 2).watermark, 5);
	apply(v, "wm 2 7", &rec.out); /* == last output: catches up (>=) */
	ck_assert(wm_valve_channel(v, 2).aligned);
	ck_assert_int_eq(wm_valve_last_watermark(v), 7);
	wm_valve_free(v);
}
END_TEST

START_TEST(test_valve_names_the_channel_holding_it)
{
	struct wm_valve *v = wm_valve_new(3, RELEASED);
	struct recorder rec;

	recorder_init(&rec);
	ck_assert_uint_eq(wm_valve_min_channel(v), 0); /* all at MIN */
	apply(v, "wm 0 10", &rec.out);
	apply(v, "wm 2 4", &rec.out);
	ck_assert_uint_eq(wm_valve_min_channel(v), 1); /* still at MIN */
	apply(v, "wm 1 7", &rec.out);
	ck_assert_uint_eq(wm_valve_min_channel(v), 2);
	apply(v, "idle 2", &rec.out);
	ck_assert_uint_eq(wm_valve_min_channel(v), 1);
	apply(v, "idle 1", &rec.out);
	apply(v, "idle 0", &rec.out);
	ck_assert_uint_eq(wm_valve_min_channel(v), UINT32_MAX);
	wm_valve_free(v);
}
END_TEST

START_TEST(test_valve_rejects_zero_channels)
{
	ck_assert_ptr_null(wm_valve_new(0, RELEASED));
}
END_TEST

START_TEST(test_valve_never_emits_min_and_flushes_max_not_end_of_time)
{
	struct wm_valve *v = wm_valve_new(2, RELEASED);
	struct recorder rec;

	recorder_init(&rec);
	apply(v, "idle 0", &rec.out);
	/* All idle without any watermark: no MIN, no MAX, only IDLE. */
	apply(v, "idle 1", &rec.out);
	ck_assert_str_eq(recorder_take(&rec), "IDLE");
	ck_assert_int_eq(wm_valve_last_watermark(v), WM_TS_MIN);
	wm_valve_free(v);
}
END_TEST

/* Emissions of one random run, checked against the output invariants. */
struct checker {
	struct wm_output out;
	wm_ts_t last;
	enum wm_status status;
	unsigned long watermarks;
};

static void
check_watermark(struct wm_output *out, wm_ts_t w)
{
	struct checker *c = wm_container_of(out, struct checker, out);

	/* Plain ifs: a passing ck_assert costs a message to the parent
	 * process in fork mode, too slow for a hot loop. */
	if (w <= c->last || c->status != WM_STATUS_ACTIVE)
		ck_abort_msg("watermark %" PRId64 " after %" PRId64
			     " with status %d",
			     w, c->last, (int)c->status);
	c->last = w;
	c->watermarks++;
}

static void
check_status(struct wm_output *out, enum wm_status status)
{
	struct checker *c = wm_container_of(out, struct checker, out);

	if (status == c->status)
		ck_abort_msg("status %d repeated", (int)status);
	c->status = status;
}

static uint64_t
next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

START_TEST(test_valve_invariants_hold_under_random_input)
{
	static const uint32_t widths[] = {1, 2, 3, 8, 64, 257, 4096};
	uint64_t seed = 42;

	for (unsigned behaviour = 0; behaviour < 4; behaviour++) {
		unsigned flags =
			RELEASED |
			(behaviour & 1 ? WM_VALVE_FLUSH_UNCONDITIONAL : 0) |
			(behaviour & 2 ? WM_VALVE_REDERIVE_ON_ACTIVE : 0);

		for (size_t k = 0; k < sizeof(widths) / sizeof(*widths); k++) {
			uint32_t n = widths[k];
			struct wm_valve *v = wm_valve_new(n, flags);
			struct checker c = {{check_watermark, check_status},
					    WM_TS_MIN,
					    WM_STATUS_ACTIVE,
					    0};

			for (int i = 0; i < 20000 + 40 * (int)n; i++) {
				uint64_t r = next_random(&seed);
				uint32_t ch = (uint32_t)(r % n);
				unsigned op = (unsigned)(r >> 32) % 16;

				if (op == 0)
					wm_valve_input_status(
						v, ch, WM_STATUS_IDLE, &c.out);
				else if (op == 1)
					wm_valve_input_status(v, ch,
							      WM_STATUS_ACTIVE,
							      &c.out);
				else
					wm_valve_input_watermark(
						v, ch,
						(wm_ts_t)(i -
							  (int)(r >> 50) % 64),
						&c.out);
				/* aligned implies active */
				struct wm_channel_status s =
					wm_valve_channel(v, ch);
				if (s.aligned && s.status != WM_STATUS_ACTIVE)
					ck_abort_msg("idle channel %u aligned",
						     ch);
			}
			ck_assert_int_eq(c.last, wm_valve_last_watermark(v));
			ck_assert_int_eq(c.status, wm_valve_last_status(v));
			ck_assert_uint_gt(c.watermarks, 0);
			wm_valve_free(v);
		}
	}
}
END_TEST

#ifdef WM_ASSERT_ENABLED
/* Checked builds only (base/assert.h): a channel number is the caller's
 * own (its input's index, never read from a ring), so one out of range
 * is a broken invariant, caught before it reads past the channels. */
START_TEST(test_a_channel_out_of_range_is_a_broken_invariant)
{
	struct recorder rec;
	struct wm_valve *v = wm_valve_new(2, RELEASED);

	ck_assert_ptr_nonnull(v);
	recorder_init(&rec);
	wm_valve_input_watermark(v, 2, 10, &rec.out);
}
END_TEST
#endif

static Suite *
valve_suite(void)
{
	Suite *s = suite_create("valve");
	TCase *flink = tcase_create("flink_cases");
	TCase *state = tcase_create("channel_state");
	TCase *random = tcase_create("random");
	TCase *study = tcase_create("study_policies");

	tcase_add_loop_test(flink, test_valve_reproduces_flink_case, 0,
			    (int)N_CASES);
	tcase_add_loop_test(study,
			    test_valve_all_idle_policy_replaces_flinks_flush, 0,
			    (int)N_STUDY_CASES);
	tcase_add_test(state, test_valve_tracks_channel_alignment);
	tcase_add_test(state, test_valve_names_the_channel_holding_it);
	tcase_add_test(state, test_valve_rejects_zero_channels);
	tcase_add_test(
		state,
		test_valve_never_emits_min_and_flushes_max_not_end_of_time);
	tcase_add_test(random, test_valve_invariants_hold_under_random_input);
	tcase_set_timeout(random, 60);
#ifdef WM_ASSERT_ENABLED
	tcase_add_test_raise_signal(
		state, test_a_channel_out_of_range_is_a_broken_invariant,
		SIGABRT);
#endif
	suite_add_tcase(s, flink);
	suite_add_tcase(s, state);
	suite_add_tcase(s, random);
	suite_add_tcase(s, study);
	return s;
}

int
main(void)
{
	return wm_check_main(valve_suite());
}
