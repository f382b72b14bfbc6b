/*
 * check_multiplexer.c
 *	Unit tests of the split multiplexer (doc/semantics.md sections 3.2-3.3,
 *	cases M-1..M-19) and of the combine rule it shares with two-input
 *	operators. The multiplexer feeds a data output, as in a source
 *	subtask, so expectations read as what leaves the subtask.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/behaviour.h"
#include "operators/data_output.h"
#include "operators/multiplexer.h"
#include "tests/unit/recorder.h"
#include "tests/unit/check_main.h"

/* The rules of Flink 2.1, whose tests the cases transcribe; M-6 and M-7
 * differ in 2.2 and later (FLUSH_MAX, which is WM_BEHAVIOUR_FLINK_2_3). */
#define FLINK_2_1 WM_BEHAVIOUR_FLINK_2_1
#define FLUSH_MAX (FLINK_2_1 | WM_MUX_ALLIDLE_FLUSH_MAX)
#define EMPTY_IDLE (FLINK_2_1 | WM_MUX_EMPTY_IS_IDLE)

#define N_SPLITS 4

struct fixture {
	struct recorder rec;
	struct wm_data_output data;
	struct wm_output to_data; /* the multiplexer's underlying output */
	struct wm_multiplexer mux;
	struct wm_mux_split split[N_SPLITS + 1]; /* s1..s4 */
};

static void
to_data_watermark(struct wm_output *out, wm_ts_t w)
{
	struct fixture *f = wm_container_of(out, struct fixture, to_data);

	wm_data_output_watermark(&f->data, w);
}

static void
to_data_status(struct wm_output *out, enum wm_status status)
{
	struct fixture *f = wm_container_of(out, struct fixture, to_data);

	wm_data_output_status(&f->data, status);
}

static void
fixture_init(struct fixture *f, unsigned behaviour)
{
	recorder_init(&f->rec);
	wm_data_output_init(&f->data, &f->rec.out, behaviour);
	f->to_data.watermark = to_data_watermark;
	f->to_data.status = to_data_status;
	wm_multiplexer_init(&f->mux, &f->to_data, behaviour);
}

/* "reg sN", "unreg sN", "periodic", "sN imm|def W x|idle|active";
 * "grace G" sets a reactivation grace of G ns, "tick T" is a periodic
 * tick at T ns that advances it first. */
static void
apply(struct fixture *f, const char *step)
{
	unsigned n;
	char mode[4], what[8];
	int64_t w = 0;

	if (strcmp(step, "periodic") == 0) {
		wm_multiplexer_on_periodic(&f->mux);
	} else if (sscanf(step, "grace %" SCNd64, &w) == 1) {
		wm_multiplexer_set_grace(&f->mux, w);
	} else if (sscanf(step, "tick %" SCNd64, &w) == 1) {
		wm_multiplexer_advance_grace(&f->mux, w);
		wm_multiplexer_on_periodic(&f->mux);
	} else if (sscanf(step, "reg s%u", &n) == 1) {
		ck_assert_int_eq(wm_multiplexer_register(&f->mux, &f->split[n]),
				 0);
	} else if (sscanf(step, "unreg s%u", &n) == 1) {
		ck_assert_int_eq(
			wm_multiplexer_unregister(&f->mux, &f->split[n]), 0);
	} else if (sscanf(step, "s%u %3s %7s %" SCNd64, &n, mode, what, &w) >=
		   3) {
		struct wm_output *out = strcmp(mode, "imm") == 0
						? &f->split[n].immediate
						: &f->split[n].deferred;

		if (strcmp(what, "W") == 0)
			wm_output_watermark(out, w);
		else
			wm_output_status(out, strcmp(what, "idle") == 0
						      ? WM_STATUS_IDLE
						      : WM_STATUS_ACTIVE);
	} else {
		ck_abort_msg("bad step \"%s\"", step);
	}
}

struct step {
	const char *input;
	const char *expected;
};

struct mux_case {
	const char *id;
	unsigned behaviour;
	struct step steps[20];
};

static const struct mux_case cases[] = {
	{"M-1", FLINK_2_1, {{"reg s1", ""}, {"s1 imm W 0", "W(0)"}}},
	{"M-2", FLINK_2_1, {{"reg s1", ""}, {"s1 imm idle", "IDLE"}}},
	{"M-3",
	 FLINK_2_1,
	 {{"reg s1", ""},
	  {"s1 imm idle", "IDLE"},
	  {"s1 imm W 0", "ACTIVE W(0)"}}},
	{"M-4",
	 FLINK_2_1,
	 {{"reg s1", ""},
	  {"reg s2", ""},
	  {"reg s3", ""},
	  {"s1 imm W 2", ""},
	  {"s2 imm W 5", ""},
	  {"s3 imm idle", "W(2)"}}},
	{"M-5",
	 FLINK_2_1,
	 {{"reg s1", ""},
	  {"reg s2", ""},
	  {"s1 imm W 2", ""},
	  {"s2 imm W 5", "W(2)"},
	  {"s1 imm idle", "W(5)"}}},
	{"M-6 flink-2.1",
	 FLINK_2_1,
	 {{"reg s1", ""},
	  {"reg s2", ""},
	  {"s1 imm W 5", ""},
	  {"s2 imm W 2", "W(2)"},
	  {"s1 imm idle", ""},
	  {"s2 imm idle", "IDLE"}}},
	{"M-6 flink-2.3",
	 FLUSH_MAX,
	 {{"reg s1", ""},
	  {"reg s2", ""},
	  {"s1 imm W 5", ""},
	  {"s2 imm W 2", "W(2)"},
	  {"s1 imm idle", ""},
	  {"s2 imm idle", "W(5) IDLE"}}},
	{"M-7 flink-2.1",
	 FLINK_2_1,
	 {{"reg s1", ""},
	  {"reg s2", ""},
	  {"s1 def W 5", ""},
	  {"s1 def idle", ""},
	  {"s2 def W 2", ""},
	  {"s2 def idle", ""},
	  {"periodic", "IDLE"}}},
	{"M-7 flink-2.3",
	 FLUSH_MAX,
	 {{"reg s1", ""},
	  {"reg s2", ""},
	  {"s1 def W 5", ""},
	  {"s1 def idle", ""},
	  {"s2 def W 2", ""},
	  {"s2 def idle", ""},
	  {"periodic", "W(5) IDLE"}}},
	{"M-8",
	 FLINK_2_1,
	 {{"reg s1", ""},
	  {"reg s2", ""},
	  {"s1 imm W 2", ""},
	  {"s2 imm W 5", "W(2)"},
	  {"s1 imm idle", "W(5)"},
	  {"s1 imm W 3", ""},
	  /* s1 now holds the combined watermark back at 5 */
	  {"s2 imm W 8", ""},
	  {"s1 imm W 6", "W(6)"}}},
	{"M-9", FLINK_2_1, {{"periodic", ""}}},
	{"M-10",
	 FLINK_2_1,
	 {{"reg s1", ""},
	  {"reg s2", ""},
	  {"s1 def W 0", ""},
	  {"s2 def W 1", ""},
	  {"periodic", "W(0)"}}},
	{"M-11",
	 FLINK_2_1,
	 {{"reg s1", ""},
	  {"s1 def idle", ""},
	  {"periodic", "IDLE"},
	  {"s1 def W 0", ""},
	  {"periodic", "ACTIVE W(0)"}}},
	{"M-12",
	 FLINK_2_1,
	 {{"reg s1", ""},
	  {"reg s2", ""},
	  {"s2 def W 5", ""},
	  {"s1 imm W 2", "W(2)"}}},
	{"M-13",
	 FLINK_2_1,
	 {{"reg s1", ""},
	  {"s1 def W 5", ""},
	  {"periodic", "W(5)"},
	  {"s1 imm W 2", ""},
	  {"periodic", ""}}},
	{"M-14",
	 FLINK_2_1,
	 {{"reg s1", ""}, {"s1 def W 5", ""}, {"s1 imm W 2", ""}}},
	{"M-15",
	 FLINK_2_1,
	 {{"reg s1", ""},
	  {"reg s2", ""},
	  {"s1 imm W 156765", ""},
	  {"unreg s1", ""},
	  {"s2 imm W 156775", "W(156775)"}}},
	{"M-16",
	 FLINK_2_1,
	 {{"reg s1", ""},
	  {"reg s2", ""},
	  {"s1 imm W -4343", ""},
	  {"s2 imm W -4333", "W(-4343)"},
	  {"unreg s1", ""}}},
	{"M-17",
	 FLINK_2_1,
	 {{"reg s2", ""},
	  {"s2 imm W 2", "W(2)"},
	  {"unreg s2", ""},
	  {"reg s1", ""},
	  {"s1 imm W 1", ""}}},
	{"M-18 flink-2.1",
	 FLINK_2_1,
	 {{"reg s1", ""},
	  {"s1 imm W 1", "W(1)"},
	  {"unreg s1", ""},
	  {"periodic", ""}}},
	{"M-18 empty idle",
	 EMPTY_IDLE,
	 {{"reg s1", ""},
	  {"s1 imm W 1", "W(1)"},
	  {"unreg s1", ""},
	  {"periodic", "IDLE"}}},
	{"M-9 empty idle", EMPTY_IDLE, {{"periodic", ""}}},
	{"M-19", FLINK_2_1, {{"reg s1", ""}, {"periodic", ""}}},
};

#define N_CASES (sizeof(cases) / sizeof(cases[0]))

/* Every step of c gives exactly the output it expects. */
static void
run_case(const struct mux_case *c)
{
	struct fixture f;

	fixture_init(&f, c->behaviour);
	for (int s = 0; c->steps[s].input != NULL; s++) {
		apply(&f, c->steps[s].input);
		const char *got = recorder_take(&f.rec);

		ck_assert_msg(strcmp(got, c->steps[s].expected) == 0,
			      "%s step %d \"%s\": expected \"%s\", got \"%s\"",
			      c->id, s + 1, c->steps[s].input,
			      c->steps[s].expected, got);
	}
	wm_multiplexer_destroy(&f.mux);
}

START_TEST(test_multiplexer_reproduces_flink_case)
{
	run_case(&cases[_i]);
}
END_TEST

/*
 * Study knobs, not Flink (doc/semantics.md section 9.6). The all-idle
 * policies replace the combine's all-idle rule, flag or not: MAX, or
 * nothing. The reactivation grace keeps a split that comes back behind
 * the combined value out of the minimum for the grace (from the first
 * tick that sees it), unless it catches up first. s2 goes idle ahead of
 * s1, which then goes idle at 4: Flink's flag would flush 7.
 */
#define MUX_ALL_IDLE_STEPS(last)                                               \
	{                                                                      \
		{"reg s1", ""}, {"reg s2", ""}, {"s1 imm W 3", ""},            \
			{"s2 imm W 7", "W(3)"}, {"s2 imm idle", ""},           \
			{"s1 imm W 4", "W(4)"},                                \
		{                                                              \
			"s1 imm idle", last                                    \
		}                                                              \
	}

/* s1 at 4 goes idle, s2 takes the watermark to 7; then s1 comes back. */
#define SPLIT_IDLE_BEHIND_7                                                    \
	{"reg s1", ""}, {"reg s2", ""}, {"s1 def W 4", ""},                    \
		{"s2 def W 7", ""}, {"tick 0", "W(4)"}, {"s1 def idle", ""},   \
	{                                                                      \
		"tick 1", "W(7)"                                               \
	}

static const struct mux_case study_cases[] = {
	{"all idle, flink-2.1", FLINK_2_1, MUX_ALL_IDLE_STEPS("IDLE")},
	{"all idle, flink with the flag", FLUSH_MAX,
	 MUX_ALL_IDLE_STEPS("W(7) IDLE")},
	{"all idle, max", FLINK_2_1 | WM_ALL_IDLE_MAX,
	 MUX_ALL_IDLE_STEPS("W(MAX) IDLE")},
	{"all idle, max over the flag", FLUSH_MAX | WM_ALL_IDLE_MAX,
	 MUX_ALL_IDLE_STEPS("W(MAX) IDLE")},
	{"all idle, hold over the flag", FLUSH_MAX | WM_ALL_IDLE_HOLD,
	 MUX_ALL_IDLE_STEPS("IDLE")},
	/* Without a grace (Flink), s1 back at 4 holds the watermark at 7
	 * until it passes 7 (M-10's rule). */
	{"no grace: a returning split holds back",
	 FLINK_2_1,
	 {SPLIT_IDLE_BEHIND_7,
	  {"s1 def W 5", ""},
	  {"s2 def W 20", ""},
	  {"tick 2", ""},
	  {"s1 def W 8", ""},
	  {"tick 3", "W(8)"}}},
	/* With a grace of 10 ns: s1 stays out of the minimum from tick 2
	 * (where its grace starts) to tick 12, s2 drives the watermark, and
	 * s1 joins at 12 behind it without pulling it back. */
	{"grace: a returning split joins when its grace ends",
	 FLINK_2_1,
	 {{"grace 10", ""},
	  SPLIT_IDLE_BEHIND_7,
	  {"s1 def W 5", ""},
	  {"s2 def W 20", ""},
	  {"tick 2", "W(20)"},
	  {"s1 def W 6", ""},
	  {"s2 def W 30", ""},
	  {"tick 11", "W(30)"},
	  {"s2 def W 40", ""},
	  {"tick 12", ""},
	  {"s1 def W 35", ""},
	  {"tick 13", "W(35)"}}},
	/* A split in its grace that catches up joins at once. */
	{"grace: a split that catches up joins early",
	 FLINK_2_1,
	 {{"grace 1000", ""},
	  SPLIT_IDLE_BEHIND_7,
	  {"s1 def W 5", ""},
	  {"s2 def W 20", ""},
	  {"tick 2", "W(20)"},
	  {"s1 def W 25", ""},
	  {"s2 def W 40", ""},
	  {"tick 3", "W(25)"}}},
	/* Every active split in its grace and behind: nothing moves, and
	 * the subtask is no longer all-idle. */
	{"grace: only joining splits, nothing moves",
	 FLINK_2_1,
	 {{"grace 10", ""},
	  SPLIT_IDLE_BEHIND_7,
	  {"s2 def idle", ""},
	  {"tick 2", "IDLE"},
	  {"s1 def W 5", ""},
	  {"tick 3", ""},
	  {"s1 imm W 6", ""}}},
};

#define N_STUDY_CASES (sizeof(study_cases) / sizeof(study_cases[0]))

START_TEST(test_multiplexer_study_knobs_change_only_what_they_say)
{
	run_case(&study_cases[_i]);
}
END_TEST

START_TEST(test_multiplexer_next_join_is_the_first_grace_end)
{
	struct fixture f;

	fixture_init(&f, FLINK_2_1);
	wm_multiplexer_set_grace(&f.mux, 10);
	apply(&f, "reg s1");
	apply(&f, "reg s2");
	ck_assert_int_eq(wm_multiplexer_next_join(&f.mux), INT64_MAX);
	apply(&f, "s1 def W 3");
	apply(&f, "s2 def W 3");
	apply(&f, "tick 0");
	apply(&f, "s1 def idle");
	apply(&f, "s2 def W 9");
	apply(&f, "tick 1");
	apply(&f, "s1 def W 4"); /* back, behind 9 */
	/* Joining, but no tick has started its grace yet. */
	ck_assert_int_eq(wm_multiplexer_next_join(&f.mux), INT64_MAX);
	apply(&f, "tick 5");
	ck_assert_int_eq(wm_multiplexer_next_join(&f.mux), 15);
	apply(&f, "tick 15");
	ck_assert_int_eq(wm_multiplexer_next_join(&f.mux), INT64_MAX);
	wm_multiplexer_destroy(&f.mux);
}
END_TEST

START_TEST(test_multiplexer_reports_idle_on_every_all_idle_update)
{
	/* The multiplexer itself repeats IDLE; the data output dedups. */
	struct recorder raw;
	struct wm_multiplexer m;
	struct wm_mux_split s;

	recorder_init(&raw);
	wm_multiplexer_init(&m, &raw.out, FLINK_2_1);
	wm_multiplexer_register(&m, &s);
	wm_output_status(&s.deferred, WM_STATUS_IDLE);
	wm_multiplexer_on_periodic(&m);
	wm_multiplexer_on_periodic(&m);
	ck_assert_str_eq(recorder_take(&raw), "IDLE IDLE");
	ck_assert_int_eq(wm_multiplexer_unregister(&m, &s), 0);
	ck_assert_int_eq(wm_multiplexer_unregister(&m, &s), -ENOENT);
	wm_multiplexer_destroy(&m);
}
END_TEST

START_TEST(test_multiplexer_grows_past_initial_capacity)
{
	struct fixture f;
	struct wm_mux_split many[100];

	fixture_init(&f, FLINK_2_1);
	for (int i = 0; i < 100; i++) {
		ck_assert_int_eq(wm_multiplexer_register(&f.mux, &many[i]), 0);
		wm_output_watermark(&many[i].deferred, 1000 - i);
	}
	wm_multiplexer_on_periodic(&f.mux);
	ck_assert_str_eq(recorder_take(&f.rec), "W(901)");
	wm_multiplexer_destroy(&f.mux);
}
END_TEST

START_TEST(test_multiplexer_unregisters_from_anywhere)
{
	/* Unregistering moves the last split into the gap: the others stay
	 * registered, the combine sees the same set, and a split that is not
	 * (or no longer) registered with this multiplexer is refused. */
	struct fixture f;
	struct wm_multiplexer other;
	struct wm_mux_split stranger;

	fixture_init(&f, FLINK_2_1);
	wm_multiplexer_init(&other, &f.to_data, FLINK_2_1);
	ck_assert_int_eq(wm_multiplexer_register(&other, &stranger), 0);
	for (unsigned n = 1; n <= N_SPLITS; n++) {
		ck_assert_int_eq(wm_multiplexer_register(&f.mux, &f.split[n]),
				 0);
		wm_output_watermark(&f.split[n].deferred, 10 * n);
	}
	apply(&f, "unreg s1"); /* s4 takes its place */
	ck_assert_int_eq(wm_multiplexer_unregister(&f.mux, &f.split[1]),
			 -ENOENT);
	ck_assert_int_eq(wm_multiplexer_unregister(&f.mux, &stranger), -ENOENT);
	apply(&f, "periodic");
	ck_assert_str_eq(recorder_take(&f.rec), "W(20)");
	apply(&f, "unreg s3");
	apply(&f, "periodic");
	ck_assert_str_eq(recorder_take(&f.rec), "");
	apply(&f, "unreg s2");
	apply(&f, "periodic");
	ck_assert_str_eq(recorder_take(&f.rec), "W(40)");
	apply(&f, "unreg s4");
	ck_assert_uint_eq(f.mux.n_splits, 0);
	ck_assert_int_eq(wm_multiplexer_unregister(&other, &stranger), 0);
	wm_multiplexer_destroy(&other);
	wm_multiplexer_destroy(&f.mux);
}
END_TEST

static Suite *
multiplexer_suite(void)
{
	Suite *s = suite_create("multiplexer");
	TCase *flink = tcase_create("flink_cases");
	TCase *misc = tcase_create("mechanics");
	TCase *study = tcase_create("study_knobs");

	tcase_add_loop_test(
		study, test_multiplexer_study_knobs_change_only_what_they_say,
		0, (int)N_STUDY_CASES);
	tcase_add_test(study,
		       test_multiplexer_next_join_is_the_first_grace_end);
	tcase_add_loop_test(flink, test_multiplexer_reproduces_flink_case, 0,
			    (int)N_CASES);
	tcase_add_test(misc,
		       test_multiplexer_reports_idle_on_every_all_idle_update);
	tcase_add_test(misc, test_multiplexer_grows_past_initial_capacity);
	tcase_add_test(misc, test_multiplexer_unregisters_from_anywhere);
	suite_add_tcase(s, flink);
	suite_add_tcase(s, misc);
	suite_add_tcase(s, study);
	return s;
}

int
main(void)
{
	return wm_check_main(multiplexer_suite());
}
