/*
 * check_barrier_align.c
 *	Unit tests of the aligned barrier handler: the cases of Flink's
 *	AlignedCheckpointsTest (doc/semantics.md section 10.8, B-1..B-13),
 *	derived edge cases (B-14..B-19), alignment time on the injected
 *	clock, many channels, and random input against a plain model.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/barrier_align.h"
#include "tests/unit/check_main.h"

struct step {
	/* "b CH ID": barrier ID on channel CH; "e CH": END of channel CH;
	 * "x ID": cancel marker for ID */
	const char *input;
	/* the decision: "abort(ID,subsumed)" or "abort(ID,cancelled)",
	 * "drop(ID)", "aligned(ID)", "block", in that order, space apart */
	const char *expected;
	/* the blocked channels after the step, ascending, space apart */
	const char *blocked;
};

struct barrier_case {
	const char *id;
	uint32_t channels;
	uint64_t aligned; /* checkpoints aligned at the end */
	uint64_t aborted; /* aborts notified at the end */
	struct step steps[40];
};

static void
append(char *buf, size_t size, const char *word)
{
	size_t len = strlen(buf);

	snprintf(buf + len, size - len, "%s%s", len > 0 ? " " : "", word);
}

static void
format_decision(const struct wm_barrier_decision *d, char *buf, size_t size)
{
	char word[64];

	buf[0] = '\0';
	if (d->aborted != WM_CHECKPOINT_NONE) {
		snprintf(word, sizeof(word), "abort(%" PRId64 ",%s)",
			 d->aborted,
			 d->abort_reason == WM_BARRIER_ABORT_SUBSUMED
				 ? "subsumed"
			 : d->abort_reason == WM_BARRIER_ABORT_CANCELLED
				 ? "cancelled"
				 : "?");
		append(buf, size, word);
	}
	if (d->dropped != WM_CHECKPOINT_NONE) {
		snprintf(word, sizeof(word), "drop(%" PRId64 ")", d->dropped);
		append(buf, size, word);
	}
	if (d->aligned != WM_CHECKPOINT_NONE) {
		snprintf(word, sizeof(word), "aligned(%" PRId64 ")",
			 d->aligned);
		append(buf, size, word);
	}
	if (d->blocked)
		append(buf, size, "block");
}

static void
format_blocked(const struct wm_barrier_align *h, char *buf, size_t size)
{
	char word[16];

	buf[0] = '\0';
	for (uint32_t c = 0; c < wm_barrier_align_channels(h); c++)
		if (wm_barrier_align_blocked(h, c)) {
			snprintf(word, sizeof(word), "%" PRIu32, c);
			append(buf, size, word);
		}
}

/* Apply one input at processing time now_ns; barriers are stamped 0. */
static void
apply(struct wm_barrier_align *h, const char *input, int64_t now_ns,
      struct wm_barrier_decision *d)
{
	unsigned ch;
	int64_t id;

	if (sscanf(input, "b %u %" SCNd64, &ch, &id) == 2)
		wm_barrier_align_on_barrier(h, ch, id, 0, now_ns, d);
	else if (sscanf(input, "e %u", &ch) == 1)
		wm_barrier_align_on_end(h, ch, now_ns, d);
	else if (sscanf(input, "x %" SCNd64, &id) == 1)
		wm_barrier_align_on_cancel(h, id, d);
	else
		ck_abort_msg("bad step \"%s\"", input);
}

static void
run_case(const struct barrier_case *c)
{
	struct wm_barrier_align *h = wm_barrier_align_new(c->channels);
	char got[256];

	ck_assert_ptr_nonnull(h);
	for (size_t s = 0; s < 40 && c->steps[s].input != NULL; s++) {
		struct wm_barrier_decision d;

		apply(h, c->steps[s].input, 1000 * (int64_t)(s + 1), &d);
		format_decision(&d, got, sizeof(got));
		ck_assert_msg(strcmp(got, c->steps[s].expected) == 0,
			      "%s step %zu (%s): expected \"%s\", got \"%s\"",
			      c->id, s + 1, c->steps[s].input,
			      c->steps[s].expected, got);
		format_blocked(h, got, sizeof(got));
		ck_assert_msg(strcmp(got, c->steps[s].blocked) == 0,
			      "%s step %zu (%s): blocked \"%s\", expected "
			      "\"%s\"",
			      c->id, s + 1, c->steps[s].input, got,
			      c->steps[s].blocked);
	}
	struct wm_barrier_align_counters n = wm_barrier_align_counters(h);

	ck_assert_msg(n.aligned == c->aligned && n.aborted == c->aborted,
		      "%s: %" PRIu64 " aligned, %" PRIu64
		      " aborted; expected %" PRIu64 ", %" PRIu64,
		      c->id, n.aligned, n.aborted, c->aligned, c->aborted);
	wm_barrier_align_free(h);
}

static const struct barrier_case cases[] = {
	/* B-1 AlignedCheckpointsTest#testSingleChannelWithBarriers: one
	 * channel aligns every barrier at once and never blocks. */
	{"B-1",
	 1,
	 6,
	 0,
	 {{"b 0 1", "aligned(1)", ""},
	  {"b 0 2", "aligned(2)", ""},
	  {"b 0 3", "aligned(3)", ""},
	  {"b 0 4", "aligned(4)", ""},
	  {"b 0 5", "aligned(5)", ""},
	  {"b 0 6", "aligned(6)", ""},
	  {"e 0", "", ""}}},
	/* B-2 …#testMultiChannelWithBarriers: channels block as their
	 * barriers arrive; the last one aligns and unblocks all. */
	{"B-2",
	 3,
	 4,
	 0,
	 {{"b 1 1", "block", "1"},
	  {"b 2 1", "block", "1 2"},
	  {"b 0 1", "aligned(1)", ""},
	  {"b 0 2", "block", "0"},
	  {"b 1 2", "block", "0 1"},
	  {"b 2 2", "aligned(2)", ""},
	  {"b 2 3", "block", "2"},
	  {"b 0 3", "block", "0 2"},
	  {"b 1 3", "aligned(3)", ""},
	  {"b 1 4", "block", "1"},
	  {"b 2 4", "block", "1 2"},
	  {"b 0 4", "aligned(4)", ""},
	  {"e 0", "", ""},
	  {"e 1", "", ""},
	  {"e 2", "", ""}}},
	/* B-3 …#testMultiChannelJumpingOverCheckpoint: a newer barrier on
	 * an unblocked channel aborts the pending checkpoint. Flink runs
	 * this test with checkpoints after tasks finish off, where END of
	 * channel 0 aborts checkpoint 4 (1 aligned, 3 aborted); with the
	 * option on (Flink's default, ours) the ENDs complete it. */
	{"B-3",
	 3,
	 2,
	 2,
	 {{"b 1 1", "block", "1"},
	  {"b 2 1", "block", "1 2"},
	  {"b 0 1", "aligned(1)", ""},
	  {"b 1 2", "block", "1"},
	  {"b 0 2", "block", "0 1"},
	  {"b 2 3", "abort(2,subsumed) block", "2"},
	  {"b 0 3", "block", "0 2"},
	  {"b 1 4", "abort(3,subsumed) block", "1"},
	  {"e 0", "", "1"},
	  {"e 2", "aligned(4)", ""},
	  {"e 1", "", ""}}},
	/* B-4 …#testMissingCancellationBarriers: a cancel of a newer id
	 * aborts that id and sweeps the pending one away; older cancels
	 * and repeats are ignored. */
	{"B-4",
	 2,
	 0,
	 1,
	 {{"b 0 1", "block", "0"},
	  {"x 3", "abort(3,cancelled) drop(1)", ""},
	  {"x 2", "", ""},
	  {"x 3", "", ""}}},
	/* B-5 …#testStartAlignmentWithClosedChannels: ended channels are
	 * not awaited. */
	{"B-5",
	 4,
	 3,
	 0,
	 {{"e 2", "", ""},
	  {"e 1", "", ""},
	  {"b 3 2", "block", "3"},
	  {"b 0 2", "aligned(2)", ""},
	  {"b 0 3", "block", "0"},
	  {"b 3 3", "aligned(3)", ""},
	  {"e 0", "", ""},
	  {"b 3 4", "aligned(4)", ""},
	  {"e 3", "", ""}}},
	/* B-6 …#testEndOfStreamWhileCheckpoint: the END of the last
	 * awaited channel aligns the pending checkpoint. */
	{"B-6",
	 3,
	 2,
	 0,
	 {{"b 0 1", "block", "0"},
	  {"b 1 1", "block", "0 1"},
	  {"b 2 1", "aligned(1)", ""},
	  {"b 2 2", "block", "2"},
	  {"b 0 2", "block", "0 2"},
	  {"e 1", "aligned(2)", ""},
	  {"e 2", "", ""},
	  {"e 0", "", ""}}},
	/* B-7 …#testSingleChannelAbortCheckpoint: cancels of newer ids
	 * abort them with nothing pending. */
	{"B-7",
	 1,
	 3,
	 2,
	 {{"b 0 1", "aligned(1)", ""},
	  {"b 0 2", "aligned(2)", ""},
	  {"x 4", "abort(4,cancelled)", ""},
	  {"b 0 5", "aligned(5)", ""},
	  {"x 6", "abort(6,cancelled)", ""}}},
	/* B-8 …#testMultiChannelAbortCheckpoint */
	{"B-8",
	 3,
	 3,
	 3,
	 {{"b 1 1", "block", "1"},
	  {"b 2 1", "block", "1 2"},
	  {"b 0 1", "aligned(1)", ""},
	  {"b 0 2", "block", "0"},
	  {"b 2 2", "block", "0 2"},
	  {"x 2", "abort(2,cancelled)", ""},
	  {"b 1 3", "block", "1"},
	  {"b 2 3", "block", "1 2"},
	  {"b 0 3", "aligned(3)", ""},
	  {"x 4", "abort(4,cancelled)", ""},
	  {"b 2 4", "", ""},
	  {"b 0 4", "", ""},
	  {"b 2 5", "block", "2"},
	  {"b 1 5", "block", "1 2"},
	  {"b 0 5", "aligned(5)", ""},
	  {"x 6", "abort(6,cancelled)", ""},
	  {"x 6", "", ""},
	  {"b 0 6", "", ""}}},
	/* B-9 …#testAbortOnCanceledBarriers: a barrier of the cancelled
	 * id, arriving later, blocks nothing. */
	{"B-9",
	 3,
	 1,
	 1,
	 {{"b 1 1", "block", "1"},
	  {"x 1", "abort(1,cancelled)", ""},
	  {"b 1 2", "block", "1"},
	  {"b 2 1", "", "1"},
	  {"b 0 2", "block", "0 1"},
	  {"b 2 2", "aligned(2)", ""}}},
	/* B-10 …#testIgnoreCancelBarrierIfCheckpointSubsumed */
	{"B-10",
	 3,
	 1,
	 1,
	 {{"b 1 3", "block", "1"},
	  {"b 0 3", "block", "0 1"},
	  {"b 2 5", "abort(3,subsumed) block", "2"},
	  {"x 3", "", "2"},
	  {"b 0 5", "block", "0 2"},
	  {"b 1 5", "aligned(5)", ""}}},
	/* B-11 …#testTriggerCheckpointsWithEndOfPartition */
	{"B-11",
	 3,
	 1,
	 0,
	 {{"b 0 1", "block", "0"},
	  {"b 1 1", "block", "0 1"},
	  {"e 2", "aligned(1)", ""}}},
	/* B-12 …#testDeduplicateChannelsWithBothBarrierAndEndOfPartition:
	 * a channel that ends after its barrier counts once. */
	{"B-12",
	 3,
	 1,
	 0,
	 {{"b 0 2", "block", "0"},
	  {"b 1 2", "block", "0 1"},
	  {"e 1", "", "0"},
	  {"b 2 2", "aligned(2)", ""}}},
	/* B-13 …#testTriggerCheckpointsAfterReceivedEndOfPartition */
	{"B-13",
	 3,
	 2,
	 0,
	 {{"e 2", "", ""},
	  {"b 0 6", "block", "0"},
	  {"b 1 6", "aligned(6)", ""},
	  {"e 1", "", ""},
	  {"b 0 7", "aligned(7)", ""}}},
	/* B-14 derived, …#testMultiChannelNoBarriers: ends alone decide
	 * nothing. */
	{"B-14",
	 4,
	 0,
	 0,
	 {{"e 0", "", ""}, {"e 3", "", ""}, {"e 1", "", ""}, {"e 2", "", ""}}},
	/* B-15 derived: out-of-order and repeated ids are ignored; 0 is a
	 * valid id, -1 (no checkpoint) is not. */
	{"B-15",
	 2,
	 3,
	 0,
	 {{"b 0 -1", "", ""},
	  {"b 0 0", "block", "0"},
	  {"b 1 0", "aligned(0)", ""},
	  {"b 0 5", "block", "0"},
	  {"b 1 3", "", "0"},
	  {"b 1 5", "aligned(5)", ""},
	  {"b 0 4", "", ""},
	  {"b 0 5", "", ""},
	  {"b 1 7", "block", "1"},
	  {"b 0 6", "", "1"},
	  {"x 6", "", "1"},
	  {"b 0 7", "aligned(7)", ""}}},
	/* B-16 derived: a cancel of the pending id aborts it after its
	 * first barrier; the rest of its barriers are then ignored. */
	{"B-16",
	 3,
	 0,
	 1,
	 {{"b 2 8", "block", "2"},
	  {"x 8", "abort(8,cancelled)", ""},
	  {"b 0 8", "", ""},
	  {"b 1 8", "", ""},
	  {"x 8", "", ""}}},
	/* B-17 derived: one call aborts and aligns. The blocked channel 0
	 * ends (as in B-12), leaving channel 1 the only one open, whose
	 * newer barrier subsumes checkpoint 5 and aligns 6 at once. */
	{"B-17",
	 2,
	 1,
	 1,
	 {{"b 0 5", "block", "0"},
	  {"e 0", "", ""},
	  {"b 1 6", "abort(5,subsumed) aligned(6)", ""}}},
	/* B-18 derived: when every channel has ended nothing can start;
	 * later barriers (a peer's error) are ignored. */
	{"B-18",
	 2,
	 1,
	 0,
	 {{"b 0 1", "block", "0"},
	  {"e 1", "aligned(1)", ""},
	  {"e 0", "", ""},
	  {"e 0", "", ""},
	  {"b 0 2", "", ""},
	  {"b 1 2", "", ""}}},
	/* B-19 derived: a newer barrier on a channel blocked by the
	 * pending one (the caller's error; Flink cannot see it) still
	 * subsumes it and restarts the alignment there. */
	{"B-19",
	 2,
	 1,
	 1,
	 {{"b 0 1", "block", "0"},
	  {"b 0 2", "abort(1,subsumed) block", "0"},
	  {"b 1 2", "aligned(2)", ""}}},
};

#define N_CASES (sizeof(cases) / sizeof(cases[0]))

START_TEST(test_barrier_align_reproduces_case)
{
	run_case(&cases[_i]);
}
END_TEST

START_TEST(test_barrier_align_rejects_zero_channels)
{
	errno = 0;
	ck_assert_ptr_null(wm_barrier_align_new(0));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(test_barrier_align_starts_with_nothing_pending)
{
	struct wm_barrier_align *h = wm_barrier_align_new(3);
	struct wm_barrier_align_counters n = wm_barrier_align_counters(h);

	ck_assert_int_eq(wm_barrier_align_pending(h), WM_CHECKPOINT_NONE);
	ck_assert_int_eq(wm_barrier_align_latest(h), WM_CHECKPOINT_NONE);
	ck_assert_uint_eq(wm_barrier_align_channels(h), 3);
	ck_assert_uint_eq(wm_barrier_align_open(h), 3);
	ck_assert_uint_eq(n.aligned + n.aborted + n.ignored, 0);
	ck_assert_int_eq(n.alignment_ns_total, 0);
	wm_barrier_align_free(h);
}
END_TEST

/*
 * Alignment time on the injected clock (CheckpointBarrierHandler's
 * markAlignmentStart/End, AlignedCheckpointsTest#testMetrics with the
 * sleeps replaced by chosen times): from the first barrier to the last,
 * the start delay from the barrier's timestamp to its first arrival.
 */
START_TEST(test_barrier_align_times_alignment_on_given_clock)
{
	struct wm_barrier_align *h = wm_barrier_align_new(3);
	struct wm_barrier_decision d;

	wm_barrier_align_on_barrier(h, 1, 1, 100, 1000, &d);
	ck_assert_int_eq(wm_barrier_align_pending(h), 1);
	wm_barrier_align_on_barrier(h, 0, 1, 100, 1500, &d);
	wm_barrier_align_on_barrier(h, 2, 1, 100, 4000, &d);
	ck_assert_int_eq(d.aligned, 1);
	ck_assert_int_eq(d.alignment_ns, 3000);
	ck_assert_int_eq(d.start_delay_ns, 900);

	/* An END that completes the alignment ends the timing too. */
	wm_barrier_align_on_barrier(h, 0, 2, 5000, 6000, &d);
	ck_assert_int_eq(d.aligned, WM_CHECKPOINT_NONE);
	wm_barrier_align_on_barrier(h, 1, 2, 5000, 6500, &d);
	wm_barrier_align_on_end(h, 2, 9000, &d);
	ck_assert_int_eq(d.aligned, 2);
	ck_assert_int_eq(d.alignment_ns, 3000);
	ck_assert_int_eq(d.start_delay_ns, 1000);

	struct wm_barrier_align_counters n = wm_barrier_align_counters(h);

	ck_assert_uint_eq(n.aligned, 2);
	ck_assert_int_eq(n.alignment_ns_total, 6000);
	ck_assert_int_eq(n.last_alignment_ns, 3000);
	ck_assert_int_eq(n.last_start_delay_ns, 1000);
	wm_barrier_align_free(h);
}
END_TEST

/* With one channel to wait for, alignment takes 0 however late the
 * barrier (markAlignmentStartAndEnd); a barrier stamped after its arrival
 * (clocks of two processes) has a start delay of 0, never negative. */
START_TEST(test_barrier_align_one_channel_takes_no_alignment_time)
{
	struct wm_barrier_align *h = wm_barrier_align_new(2);
	struct wm_barrier_decision d;

	wm_barrier_align_on_end(h, 0, 10, &d);
	wm_barrier_align_on_barrier(h, 1, 3, 7000, 5000, &d);
	ck_assert_int_eq(d.aligned, 3);
	ck_assert_int_eq(d.alignment_ns, 0);
	ck_assert_int_eq(d.start_delay_ns, 0);
	wm_barrier_align_on_barrier(h, 1, 4, INT64_MIN, INT64_MAX, &d);
	ck_assert_int_eq(d.aligned, 4);
	ck_assert_int_eq(d.start_delay_ns, INT64_MAX);
	ck_assert_int_eq(wm_barrier_align_counters(h).alignment_ns_total, 0);
	wm_barrier_align_free(h);
}
END_TEST

/* An aborted alignment adds no time, and the next one is timed from its
 * own first barrier; the END of the only channel in the aligned set
 * restarts the timing (Flink tests the set's size after adding). */
START_TEST(test_barrier_align_times_only_completed_alignments)
{
	struct wm_barrier_align *h = wm_barrier_align_new(2);
	struct wm_barrier_decision d;

	wm_barrier_align_on_barrier(h, 0, 1, 0, 100, &d);
	wm_barrier_align_on_barrier(h, 1, 2, 0, 900, &d);
	ck_assert_int_eq(d.aborted, 1);
	wm_barrier_align_on_barrier(h, 0, 2, 0, 1000, &d);
	ck_assert_int_eq(d.aligned, 2);
	ck_assert_int_eq(d.alignment_ns, 100);
	ck_assert_int_eq(d.start_delay_ns, 900);

	wm_barrier_align_on_barrier(h, 0, 3, 2000, 2100, &d);
	wm_barrier_align_on_end(h, 0, 2400, &d);
	ck_assert_int_eq(d.aligned, WM_CHECKPOINT_NONE);
	wm_barrier_align_on_end(h, 1, 3000, &d);
	ck_assert_int_eq(d.aligned, 3);
	ck_assert_int_eq(d.alignment_ns, 600);
	ck_assert_int_eq(d.start_delay_ns, 400);
	ck_assert_int_eq(wm_barrier_align_counters(h).alignment_ns_total, 700);
	wm_barrier_align_free(h);
}
END_TEST

/* A small permutation of 0..n-1, the same on every run. */
static void
permute(uint32_t *order, uint32_t n, uint64_t seed)
{
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	for (uint32_t i = n - 1; i > 0; i--) {
		seed = seed * 6364136223846793005u + 1442695040888963407u;
		uint32_t j = (uint32_t)((seed >> 33) % (i + 1));
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
}

static uint32_t
count_blocked(const struct wm_barrier_align *h)
{
	uint32_t blocked = 0;

	for (uint32_t c = 0; c < wm_barrier_align_channels(h); c++)
		blocked += wm_barrier_align_blocked(h, c);
	return blocked;
}

/* 257 channels (one past a byte, as a keyBy of parallelism 257 has):
 * every barrier but the last blocks exactly its channel; the last aligns.
 * Then 64 channels end during the next alignment, which a newer barrier
 * subsumes; the third waits only for the 193 still open. */
START_TEST(test_barrier_align_aligns_many_channels)
{
	enum { N = 257, ENDED = 64 };
	struct wm_barrier_align *h = wm_barrier_align_new(N);
	struct wm_barrier_decision d;
	uint32_t order[N];

	permute(order, N, 1);
	for (uint32_t i = 0; i < N; i++) {
		wm_barrier_align_on_barrier(h, order[i], 1, 0, i, &d);
		if (i + 1 < N) {
			ck_assert_msg(d.blocked && d.aligned == -1,
				      "barrier %u of %u", i + 1, N);
			ck_assert(wm_barrier_align_blocked(h, order[i]));
			ck_assert_uint_eq(count_blocked(h), i + 1);
		}
	}
	ck_assert_int_eq(d.aligned, 1);
	ck_assert(!d.blocked);
	ck_assert_int_eq(d.alignment_ns, N - 1);
	ck_assert_uint_eq(count_blocked(h), 0);

	/* Checkpoint 2: half the channels deliver, 64 others end. */
	permute(order, N, 2);
	for (uint32_t i = 0; i < N / 2; i++)
		wm_barrier_align_on_barrier(h, order[i], 2, 0, 0, &d);
	for (uint32_t i = N / 2; i < N / 2 + ENDED; i++) {
		wm_barrier_align_on_end(h, order[i], 0, &d);
		ck_assert(!wm_barrier_align_blocked(h, order[i]));
	}
	ck_assert_uint_eq(count_blocked(h), N / 2);
	ck_assert_uint_eq(wm_barrier_align_open(h), N - ENDED);
	wm_barrier_align_on_barrier(h, order[N - 1], 3, 0, 0, &d);
	ck_assert_int_eq(d.aborted, 2);
	ck_assert_uint_eq(count_blocked(h), 1);

	/* Checkpoint 3 needs every open channel, no ended one. */
	uint32_t delivered = 1;

	for (uint32_t i = 0; i < N / 2; i++, delivered++) {
		wm_barrier_align_on_barrier(h, order[i], 3, 0, 0, &d);
		ck_assert_int_eq(d.aligned, -1);
	}
	for (uint32_t i = N / 2 + ENDED; i < N - 1; i++, delivered++) {
		ck_assert_int_eq(wm_barrier_align_pending(h), 3);
		wm_barrier_align_on_barrier(h, order[i], 3, 0, 0, &d);
	}
	ck_assert_uint_eq(delivered, N - ENDED);
	ck_assert_int_eq(d.aligned, 3);
	ck_assert_uint_eq(count_blocked(h), 0);
	wm_barrier_align_free(h);
}
END_TEST

/*
 * Random input against a plain model of SingleCheckpointBarrierHandler's
 * fields (an aligned set cleared by a loop, as Flink's HashSet is), on 1
 * to 6 channels: every decision and every blocked flag must agree.
 */
struct model {
	uint32_t n, open, target;
	int64_t current, last_done;
	bool ended[6], in_set[6];
};

static bool
model_pending(const struct model *m)
{
	return m->current >= 0 && m->current != m->last_done;
}

static uint32_t
model_set_size(const struct model *m)
{
	uint32_t size = 0;

	for (uint32_t c = 0; c < m->n; c++)
		size += m->in_set[c];
	return size;
}

static void
model_clear_set(struct model *m)
{
	memset(m->in_set, 0, sizeof(m->in_set));
	m->target = 0;
}

/* Flink's abortInternal(), and what it notifies. */
static void
model_abort(struct model *m, int64_t id, struct wm_barrier_decision *want)
{
	if (model_pending(m) && id > m->current)
		want->dropped = m->current;
	m->current = id > m->current ? id : m->current;
	m->last_done = id > m->last_done ? id : m->last_done;
	model_clear_set(m);
	want->aborted = id;
}

static void
model_join(struct model *m, uint32_t c, struct wm_barrier_decision *want)
{
	m->in_set[c] = true;
	if (model_set_size(m) == m->target) {
		want->aligned = m->current;
		m->last_done = m->current;
		model_clear_set(m);
	}
}

static void
model_step(struct model *m, int kind, uint32_t c, int64_t id,
	   struct wm_barrier_decision *want)
{
	*want = (struct wm_barrier_decision){
		.aborted = -1, .dropped = -1, .aligned = -1};
	if (kind == 0) { /* barrier */
		if (m->ended[c] || m->current > id ||
		    (m->current == id && !model_pending(m)))
			return;
		if (id > m->current) {
			if (model_pending(m))
				model_abort(m, m->current, want);
			m->current = id;
			model_clear_set(m);
			m->target = m->open;
		}
		model_join(m, c, want);
		want->blocked = model_pending(m);
	} else if (kind == 1) { /* end */
		if (m->ended[c])
			return;
		m->ended[c] = true;
		m->open--;
		if (model_pending(m))
			model_join(m, c, want);
	} else if (id > m->current ||
		   (id == m->current && model_set_size(m) > 0)) {
		model_abort(m, id, want);
	}
}

START_TEST(test_barrier_align_agrees_with_plain_model)
{
	uint64_t seed = 42;

	for (int round = 0; round < 2000; round++) {
		struct model m = {0};
		uint32_t n;

		seed = seed * 6364136223846793005u + 1442695040888963407u;
		n = 1 + (uint32_t)((seed >> 33) % 6);
		m.n = m.open = n;
		m.current = m.last_done = -1;

		struct wm_barrier_align *h = wm_barrier_align_new(n);

		for (int s = 0; s < 40; s++) {
			struct wm_barrier_decision got, want;

			seed = seed * 6364136223846793005u +
			       1442695040888963407u;
			int kind = (int)((seed >> 20) % 10);
			uint32_t c = (uint32_t)((seed >> 40) % n);
			int64_t id = (int64_t)((seed >> 50) % 8) - 1;

			/* 0-6 barriers, 7 ends, 8-9 cancels; a blocked
			 * channel delivers nothing, as the caller holds it */
			kind = kind < 7 ? 0 : kind < 8 ? 1 : 2;
			if (kind == 0 && m.in_set[c] && model_pending(&m))
				continue;
			model_step(&m, kind, c, id, &want);
			if (kind == 0)
				wm_barrier_align_on_barrier(h, c, id, 0, s,
							    &got);
			else if (kind == 1)
				wm_barrier_align_on_end(h, c, s, &got);
			else
				wm_barrier_align_on_cancel(h, id, &got);
			ck_assert_msg(got.aborted == want.aborted &&
					      got.dropped == want.dropped &&
					      got.aligned == want.aligned &&
					      got.blocked == want.blocked,
				      "round %d step %d kind %d channel %u id "
				      "%" PRId64,
				      round, s, kind, c, id);
			for (uint32_t k = 0; k < n; k++)
				ck_assert(wm_barrier_align_blocked(h, k) ==
					  (model_pending(&m) && m.in_set[k] &&
					   !m.ended[k]));
			ck_assert_int_eq(wm_barrier_align_latest(h), m.current);
			ck_assert_int_eq(wm_barrier_align_pending(h),
					 model_pending(&m) ? m.current : -1);
		}
		wm_barrier_align_free(h);
	}
}
END_TEST

static Suite *
barrier_align_suite(void)
{
	Suite *s = suite_create("barrier_align");
	TCase *tc = tcase_create("flink_cases");

	tcase_add_loop_test(tc, test_barrier_align_reproduces_case, 0,
			    (int)N_CASES);
	suite_add_tcase(s, tc);

	tc = tcase_create("api");
	tcase_add_test(tc, test_barrier_align_rejects_zero_channels);
	tcase_add_test(tc, test_barrier_align_starts_with_nothing_pending);
	suite_add_tcase(s, tc);

	tc = tcase_create("timing");
	tcase_add_test(tc, test_barrier_align_times_alignment_on_given_clock);
	tcase_add_test(tc,
		       test_barrier_align_one_channel_takes_no_alignment_time);
	tcase_add_test(tc, test_barrier_align_times_only_completed_alignments);
	suite_add_tcase(s, tc);

	tc = tcase_create("scale");
	tcase_add_test(tc, test_barrier_align_aligns_many_channels);
	tcase_add_test(tc, test_barrier_align_agrees_with_plain_model);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(barrier_align_suite());
}
