/*
 * check_window_join.c
 *	Unit tests of the window join (operators/window_join.h,
 *	doc/semantics.md section 15.2): pairs per tumbling, sliding and
 *	session window, allowed lateness and late firings, late records,
 *	cleanup, memory running out and checkpoints, and a randomized
 *	comparison with a model that does what Flink's JoinedStreams does,
 *	step for step: every record kept in its windows' lists, timers as a
 *	set of (time, key, window), and the cross product of a window's two
 *	lists computed whenever it fires.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/snap.h"
#include "operators/window_join.h"
#include "tests/unit/alloc_limit.h"
#include "tests/unit/check_main.h"
#include "tests/unit/pair_text.h"

/* What the operator emitted, as text (pair_text.h). A counting sink
 * keeps no text, only how many pairs came. */
struct sink {
	struct wm_window_join_output out;
	bool counting;
	uint64_t pairs_seen;
	struct pair_text text;
	char buf[1 << 21];
};

/* A pair as the operator's sink and the model write it. */
static void
sink_put_pair(struct sink *s, int64_t key, wm_ts_t left_ts, wm_ts_t right_ts,
	      int64_t left_value, int64_t right_value, wm_ts_t timestamp)
{
	s->pairs_seen++;
	if (!s->counting)
		pair_text_pair(&s->text, key, left_ts, right_ts, left_value,
			       right_value, timestamp);
}

static void
sink_pair(struct wm_window_join_output *o, const struct wm_join_result *r)
{
	sink_put_pair((struct sink *)o, r->key, r->left_ts, r->right_ts,
		      r->left_value, r->right_value, r->timestamp);
}

static void
sink_watermark(struct wm_output *o, wm_ts_t w)
{
	struct sink *s = wm_container_of(o, struct sink, out.base);

	if (!s->counting)
		pair_text_printf(&s->text, "W(%" PRId64 ") ", w);
}

static void
sink_status(struct wm_output *o, enum wm_status st)
{
	(void)o;
	(void)st;
}

static void
sink_init(struct sink *s)
{
	s->out.pair = sink_pair;
	s->out.base.watermark = sink_watermark;
	s->out.base.status = sink_status;
	s->counting = false;
	s->pairs_seen = 0;
	pair_text_init(&s->text, s->buf, sizeof(s->buf));
}

static const char *
sink_take(struct sink *s)
{
	return pair_text_take(&s->text);
}

/* An assigner of `kind`: size and slide (tumbling: slide unused), or the
 * gap (sessions: size). */
static struct wm_window_join_config
join_config(enum wm_window_kind kind, int64_t size, int64_t slide,
	    int64_t offset, int64_t lateness)
{
	struct wm_window_join_config c = {.allowed_lateness = lateness};
	const char *why = NULL;
	int err;

	if (kind == WM_WINDOW_TUMBLING)
		err = wm_window_tumbling(&c.assigner, size, offset, &why);
	else if (kind == WM_WINDOW_SLIDING)
		err = wm_window_sliding(&c.assigner, size, slide, offset, &why);
	else
		err = wm_window_session(&c.assigner, size, &why);
	ck_assert_int_eq(err, 0);
	return c;
}

static struct wm_window_join *
join_new(enum wm_window_kind kind, int64_t size, int64_t slide, int64_t offset,
	 int64_t lateness)
{
	struct wm_window_join_config c =
		join_config(kind, size, slide, offset, lateness);
	const char *why = NULL;
	struct wm_window_join *op = wm_window_join_new(&c, &why);

	ck_assert_ptr_nonnull(op);
	return op;
}

static int
put(struct wm_window_join *op, struct sink *s, enum wm_join_side side,
    int64_t key, wm_ts_t ts, int64_t value)
{
	struct wm_record r = {.ts = ts, .key = key, .value = value};

	return wm_window_join_process_element(op, side, &r, &s->out);
}

static void
wmark(struct wm_window_join *op, struct sink *s, wm_ts_t w)
{
	wm_window_join_process_watermark(op, w, &s->out);
}

static const struct wm_window_join_side_counters *
side_counters(const struct wm_window_join *op, enum wm_join_side side)
{
	return &wm_window_join_counters(op)->side[side];
}

/* The sinks of the tests, too large for a stack. */
static struct sink sink_a, sink_b;

START_TEST(test_tumbling_pairs_per_window)
{
	struct wm_window_join *op = join_new(WM_WINDOW_TUMBLING, 10, 0, 0, 0);
	struct sink *s = &sink_a;

	sink_init(s);
	ck_assert_int_eq(put(op, s, WM_JOIN_LEFT, 1, 1, 1), 0);
	ck_assert_int_eq(put(op, s, WM_JOIN_LEFT, 1, 3, 2), 0);
	ck_assert_int_eq(put(op, s, WM_JOIN_RIGHT, 1, 5, 10), 0);
	ck_assert_int_eq(put(op, s, WM_JOIN_RIGHT, 1, 7, 11), 0);
	ck_assert_int_eq(put(op, s, WM_JOIN_RIGHT, 2, 6, 50), 0);
	ck_assert_int_eq(put(op, s, WM_JOIN_LEFT, 1, 12, 3), 0);
	ck_assert_int_eq(put(op, s, WM_JOIN_RIGHT, 1, 15, 20), 0);
	/* Nothing pairs before its window fires. */
	ck_assert_str_eq(sink_take(s), "");
	ck_assert_uint_eq(wm_window_join_window_count(op), 3);
	/* [0, 10) of key 1: each left record, in arrival order, with each
	 * right one, at maxTs 9; key 2's window has no left record. */
	wmark(op, s, 9);
	ck_assert_str_eq(sink_take(s), "P(1,1,5,1,10@9) P(1,1,7,1,11@9) "
				       "P(1,3,5,2,10@9) P(1,3,7,2,11@9) W(9)");
	ck_assert_uint_eq(wm_window_join_counters(op)->windows_fired, 2);
	wmark(op, s, 19);
	ck_assert_str_eq(sink_take(s), "P(1,12,15,3,20@19) W(19)");
	ck_assert_uint_eq(wm_window_join_counters(op)->pairs, 5);
	ck_assert_uint_eq(side_counters(op, WM_JOIN_LEFT)->records_kept, 3);
	ck_assert_uint_eq(side_counters(op, WM_JOIN_RIGHT)->records_kept, 4);
	/* With L = 0 the firing cleaned everything up. */
	ck_assert_uint_eq(wm_window_join_window_count(op), 0);
	ck_assert_uint_eq(wm_window_join_timer_count(op), 0);
	ck_assert_uint_eq(wm_window_join_buffered(op, WM_JOIN_LEFT), 0);
	ck_assert_uint_eq(wm_window_join_buffered(op, WM_JOIN_RIGHT), 0);
	ck_assert(
		wm_window_join_counters_balanced(wm_window_join_counters(op)));
	wm_window_join_free(op);
}
END_TEST

START_TEST(test_a_side_empty_gives_nothing)
{
	struct wm_window_join *op = join_new(WM_WINDOW_TUMBLING, 10, 0, 0, 0);
	struct sink *s = &sink_a;

	sink_init(s);
	ck_assert_int_eq(put(op, s, WM_JOIN_LEFT, 4, 2, 1), 0);
	ck_assert_int_eq(put(op, s, WM_JOIN_LEFT, 4, 8, 2), 0);
	ck_assert_int_eq(put(op, s, WM_JOIN_RIGHT, 5, 3, 3), 0);
	wmark(op, s, 9);
	/* Both windows fired, with their contents, and paired nothing. */
	ck_assert_str_eq(sink_take(s), "W(9)");
	ck_assert_uint_eq(wm_window_join_counters(op)->windows_fired, 2);
	ck_assert_uint_eq(wm_window_join_counters(op)->pairs, 0);
	ck_assert_uint_eq(wm_window_join_window_count(op), 0);
	wm_window_join_free(op);
}
END_TEST

START_TEST(test_sliding_pairs_in_every_window_both_are_in)
{
	/* Size 10, slide 5: a record at t is in the windows starting at the
	 * last multiple of 5 at or below t and 5 before it. */
	struct wm_window_join *op = join_new(WM_WINDOW_SLIDING, 10, 5, 0, 0);
	struct sink *s = &sink_a;

	sink_init(s);
	ck_assert_int_eq(put(op, s, WM_JOIN_LEFT, 1, 7, 1), 0);
	ck_assert_int_eq(put(op, s, WM_JOIN_RIGHT, 1, 8, 2), 0);
	ck_assert_int_eq(put(op, s, WM_JOIN_RIGHT, 1, 11, 3), 0);
	ck_assert_int_eq(put(op, s, WM_JOIN_LEFT, 1, 13, 4), 0);
	/* Every record is in two windows. */
	ck_assert_uint_eq(wm_window_join_buffered(op, WM_JOIN_LEFT), 4);
	ck_assert_uint_eq(wm_window_join_buffered(op, WM_JOIN_RIGHT), 4);
	ck_assert_uint_eq(wm_window_join_window_count(op), 3);
	/* 7 and 8 share [0, 10) and [5, 15): a pair in each. */
	wmark(op, s, 9);
	ck_assert_str_eq(sink_take(s), "P(1,7,8,1,2@9) W(9)");
	wmark(op, s, 14);
	ck_assert_str_eq(sink_take(s), "P(1,7,8,1,2@14) P(1,7,11,1,3@14) "
				       "P(1,13,8,4,2@14) P(1,13,11,4,3@14) "
				       "W(14)");
	wmark(op, s, 19);
	ck_assert_str_eq(sink_take(s), "P(1,13,11,4,3@19) W(19)");
	ck_assert_uint_eq(wm_window_join_counters(op)->windows_fired, 3);
	ck_assert_uint_eq(wm_window_join_buffered(op, WM_JOIN_LEFT), 0);
	wm_window_join_free(op);
}
END_TEST

START_TEST(test_sessions_merge_and_pair_across_the_session)
{
	struct wm_window_join *op = join_new(WM_WINDOW_SESSION, 10, 0, 0, 0);
	struct sink *s = &sink_a;

	sink_init(s);
	ck_assert_int_eq(put(op, s, WM_JOIN_LEFT, 1, 15, 1), 0);  /* [15,25) */
	ck_assert_int_eq(put(op, s, WM_JOIN_LEFT, 1, 0, 2), 0);	  /* [0,10) */
	ck_assert_int_eq(put(op, s, WM_JOIN_RIGHT, 1, 30, 3), 0); /* [30,40) */
	ck_assert_uint_eq(wm_window_join_window_count(op), 3);
	/* [9, 19) touches both of the first two: one session [0, 25). */
	ck_assert_int_eq(put(op, s, WM_JOIN_RIGHT, 1, 9, 4), 0);
	ck_assert_uint_eq(wm_window_join_window_count(op), 2);
	ck_assert_uint_eq(wm_window_join_buffered(op, WM_JOIN_LEFT), 2);
	/* The absorbed windows' timers went with them. */
	wmark(op, s, 12);
	ck_assert_str_eq(sink_take(s), "W(12)");
	/* The merged lists: the state window's ([0, 10)'s) first, the
	 * absorbed window's after it, whatever their arrival. */
	wmark(op, s, 24);
	ck_assert_str_eq(sink_take(s),
			 "P(1,0,9,2,4@24) P(1,15,9,1,4@24) W(24)");
	/* The last session has a right record only. */
	wmark(op, s, 39);
	ck_assert_str_eq(sink_take(s), "W(39)");
	ck_assert_uint_eq(wm_window_join_counters(op)->windows_fired, 2);
	ck_assert_uint_eq(wm_window_join_window_count(op), 0);
	ck_assert_uint_eq(wm_window_join_timer_count(op), 0);
	ck_assert_uint_eq(wm_window_join_buffered(op, WM_JOIN_RIGHT), 0);
	wm_window_join_free(op);
}
END_TEST

START_TEST(test_late_firing_emits_every_pair_again)
{
	struct wm_window_join *op = join_new(WM_WINDOW_TUMBLING, 10, 0, 0, 5);
	struct sink *s = &sink_a;
	const struct wm_window_join_counters *c = wm_window_join_counters(op);

	sink_init(s);
	ck_assert_int_eq(put(op, s, WM_JOIN_LEFT, 1, 1, 1), 0);
	ck_assert_int_eq(put(op, s, WM_JOIN_RIGHT, 1, 2, 2), 0);
	wmark(op, s, 9);
	ck_assert_str_eq(sink_take(s), "P(1,1,2,1,2@9) W(9)");
	/* Within the lateness: into the window, which fires at once with
	 * all of its contents. */
	ck_assert_int_eq(put(op, s, WM_JOIN_RIGHT, 1, 3, 3), 0);
	ck_assert_str_eq(sink_take(s), "P(1,1,2,1,2@9) P(1,1,3,1,3@9)");
	ck_assert_int_eq(put(op, s, WM_JOIN_LEFT, 1, 4, 4), 0);
	ck_assert_str_eq(sink_take(s), "P(1,1,2,1,2@9) P(1,1,3,1,3@9) "
				       "P(1,4,2,4,2@9) P(1,4,3,4,3@9)");
	ck_assert_uint_eq(c->windows_fired, 1);
	ck_assert_uint_eq(c->windows_fired_late, 2);
	ck_assert_uint_eq(c->pairs, 7);
	/* Kept until the watermark reaches maxTs + L = 14. */
	wmark(op, s, 13);
	ck_assert_uint_eq(wm_window_join_window_count(op), 1);
	ck_assert_uint_eq(wm_window_join_buffered(op, WM_JOIN_RIGHT), 2);
	wmark(op, s, 14);
	ck_assert_str_eq(sink_take(s), "W(13) W(14)");
	ck_assert_uint_eq(wm_window_join_window_count(op), 0);
	ck_assert_uint_eq(wm_window_join_buffered(op, WM_JOIN_LEFT), 0);
	ck_assert_uint_eq(wm_window_join_timer_count(op), 0);
	/* Now the window is late, and 5 + 5 <= 14: dropped and counted. */
	ck_assert_int_eq(put(op, s, WM_JOIN_LEFT, 1, 5, 5), 0);
	ck_assert_str_eq(sink_take(s), "");
	ck_assert_uint_eq(c->side[WM_JOIN_LEFT].late_records_dropped, 1);
	ck_assert_uint_eq(wm_window_join_window_count(op), 0);
	ck_assert(wm_window_join_counters_balanced(c));
	wm_window_join_free(op);
}
END_TEST

START_TEST(test_records_late_for_all_windows_are_dropped)
{
	struct wm_window_join *op = join_new(WM_WINDOW_SLIDING, 10, 5, 0, 0);
	struct sink *s = &sink_a;
	const struct wm_window_join_counters *c = wm_window_join_counters(op);

	sink_init(s);
	wmark(op, s, 9);
	/* 7 is in [5, 15), open, and [0, 10), late: kept, in one window. */
	ck_assert_int_eq(put(op, s, WM_JOIN_RIGHT, 1, 7, 1), 0);
	ck_assert_uint_eq(wm_window_join_buffered(op, WM_JOIN_RIGHT), 1);
	/* 4 is in [0, 10) and [-5, 5), both late: dropped. */
	ck_assert_int_eq(put(op, s, WM_JOIN_RIGHT, 1, 4, 2), 0);
	ck_assert_uint_eq(wm_window_join_buffered(op, WM_JOIN_RIGHT), 1);
	/* At the watermark itself: [5, 15) takes it. */
	ck_assert_int_eq(put(op, s, WM_JOIN_LEFT, 1, 9, 3), 0);
	wmark(op, s, 14);
	ck_assert_str_eq(sink_take(s), "W(9) P(1,9,7,3,1@14) W(14)");
	ck_assert_uint_eq(c->side[WM_JOIN_RIGHT].records_in, 2);
	ck_assert_uint_eq(c->side[WM_JOIN_RIGHT].records_kept, 1);
	ck_assert_uint_eq(c->side[WM_JOIN_RIGHT].late_records_dropped, 1);
	ck_assert_uint_eq(c->side[WM_JOIN_LEFT].records_kept, 1);
	ck_assert_uint_eq(c->side[WM_JOIN_LEFT].late_records_dropped, 0);
	ck_assert(wm_window_join_counters_balanced(c));
	wm_window_join_free(op);
}
END_TEST

START_TEST(test_no_timestamp_refused_by_fixed_windows_only)
{
	struct wm_window_join *tumbling =
		join_new(WM_WINDOW_TUMBLING, 10, 0, 0, 0);
	struct wm_window_join *session =
		join_new(WM_WINDOW_SESSION, 10, 0, 0, 0);
	struct sink *s = &sink_a;
	const struct wm_window_join_counters *c =
		wm_window_join_counters(tumbling);

	sink_init(s);
	ck_assert_int_eq(put(tumbling, s, WM_JOIN_LEFT, 1, WM_TS_MIN, 1),
			 -EINVAL);
	ck_assert_uint_eq(c->side[WM_JOIN_LEFT].records_rejected, 1);
	ck_assert_uint_eq(wm_window_join_window_count(tumbling), 0);
	ck_assert(wm_window_join_counters_balanced(c));
	/* Sessions take it: [MIN, MIN + 10). */
	ck_assert_int_eq(put(session, s, WM_JOIN_LEFT, 1, WM_TS_MIN, 1), 0);
	ck_assert_int_eq(put(session, s, WM_JOIN_RIGHT, 1, WM_TS_MIN + 3, 2),
			 0);
	wmark(session, s, WM_TS_MIN + 12);
	ck_assert_str_eq(sink_take(s), "P(1,-9223372036854775808,"
				       "-9223372036854775805,1,2@"
				       "-9223372036854775796) "
				       "W(-9223372036854775796)");
	wm_window_join_free(tumbling);
	wm_window_join_free(session);
}
END_TEST

START_TEST(test_bad_configurations_are_refused)
{
	struct wm_window_join_config c =
		join_config(WM_WINDOW_TUMBLING, 10, 0, 0, -1);
	struct wm_window_join_config unset = {0};
	const char *why = NULL;

	errno = 0;
	ck_assert_ptr_null(wm_window_join_new(&c, &why));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_nonnull(why);
	why = NULL;
	errno = 0;
	ck_assert_ptr_null(wm_window_join_new(&unset, &why));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_nonnull(why);
}
END_TEST

/*
 * Memory runs out while a record enters its 100,000 sliding windows (size
 * 100 s, slide 1 ms), 10,001 of which it would fire at once (their maxTs
 * is at or below the watermark, their cleanup is not): it goes into none
 * of them, nothing fires or is counted, and with memory back it goes into
 * all of them.
 */
START_TEST(test_out_of_memory_leaves_record_in_no_window)
{
	struct wm_window_join *op =
		join_new(WM_WINDOW_SLIDING, 100000, 1, 0, 20000);
	struct sink *s = &sink_a;
	const struct wm_window_join_counters *c = wm_window_join_counters(op);

	sink_init(s);
	wmark(op, s, 60000);
	(void)sink_take(s);
	wm_alloc_limit = 1 << 20;
	ck_assert_int_eq(put(op, s, WM_JOIN_LEFT, 7, 50000, 1), -ENOMEM);
	wm_alloc_limit = SIZE_MAX;
	ck_assert_uint_eq(c->side[WM_JOIN_LEFT].records_in, 0);
	ck_assert_uint_eq(c->windows_fired_late, 0);
	ck_assert_uint_eq(wm_window_join_window_count(op), 0);
	ck_assert_uint_eq(wm_window_join_timer_count(op), 0);
	ck_assert_uint_eq(wm_window_join_buffered(op, WM_JOIN_LEFT), 0);

	ck_assert_int_eq(put(op, s, WM_JOIN_LEFT, 7, 50000, 1), 0);
	ck_assert_uint_eq(wm_window_join_window_count(op), 100000);
	ck_assert_uint_eq(wm_window_join_buffered(op, WM_JOIN_LEFT), 100000);
	/* Windows with ends 50001 .. 60001; no right record: no pair. */
	ck_assert_uint_eq(c->windows_fired_late, 10001);
	ck_assert_str_eq(sink_take(s), "");
	ck_assert(wm_window_join_counters_balanced(c));
	wm_window_join_free(op);
}
END_TEST

/* One window's lists grow until the record pool cannot: the record that
 * finds no room changes nothing, and every record before it pairs. */
START_TEST(test_out_of_memory_in_a_growing_window_changes_nothing)
{
	struct wm_window_join *op =
		join_new(WM_WINDOW_TUMBLING, 1000000, 0, 0, 0);
	struct sink *s = &sink_a;
	const struct wm_window_join_counters *c = wm_window_join_counters(op);
	uint64_t n_in[2];
	int err = 0;
	int i;

	sink_init(s);
	s->counting = true;
	wm_alloc_limit = 1 << 14;
	for (i = 0; i < 100000 && err == 0; i++)
		err = put(op, s, i % 2, 1, i, i);
	wm_alloc_limit = SIZE_MAX;
	ck_assert_int_eq(err, -ENOMEM);
	i--; /* the record that failed */
	ck_assert_int_gt(i, 100);
	n_in[0] = c->side[0].records_in;
	n_in[1] = c->side[1].records_in;
	ck_assert_uint_eq(n_in[0] + n_in[1], (uint64_t)i);
	ck_assert_uint_eq(wm_window_join_buffered(op, WM_JOIN_LEFT) +
				  wm_window_join_buffered(op, WM_JOIN_RIGHT),
			  (size_t)i);
	ck_assert(wm_window_join_counters_balanced(c));
	/* With memory again, the same record goes in. */
	ck_assert_int_eq(put(op, s, i % 2, 1, i, i), 0);
	n_in[i % 2]++;
	wmark(op, s, 999999);
	ck_assert_uint_eq(c->pairs, n_in[0] * n_in[1]);
	ck_assert_uint_eq(s->pairs_seen, n_in[0] * n_in[1]);
	wm_window_join_free(op);
}
END_TEST

/* ---- the model: what Flink's JoinedStreams does, step for step ---- */

#define MODEL_WINDOWS 512
#define MODEL_LIST 256
#define MODEL_TIMERS 4096

struct model_item {
	wm_ts_t ts;
	int64_t value;
};

/* A window of a key with its two lists (ListState of TaggedUnion, split
 * as CoGroupWindowFunction splits it); for sessions the window as it is
 * after its merges. */
struct model_window {
	bool live;
	int64_t key;
	wm_ts_t start, end;
	struct model_item list[2][MODEL_LIST];
	int n[2];
};

/* A timer: Flink's namespace is the window itself, start and end. */
struct model_timer {
	wm_ts_t ts;
	int64_t key;
	wm_ts_t start, end;
};

struct model {
	enum wm_window_kind kind;
	int64_t size, slide, offset, lateness; /* sessions: size is the gap */
	wm_ts_t watermark;
	struct model_window windows[MODEL_WINDOWS];
	struct model_timer timers[MODEL_TIMERS];
	int n_timers;
	uint64_t pairs, fired, fired_late, kept[2], dropped[2];
};

static void
model_timer_add(struct model *m, wm_ts_t ts, int64_t key,
		const struct model_window *w)
{
	for (int i = 0; i < m->n_timers; i++) {
		const struct model_timer *t = &m->timers[i];

		if (t->ts == ts && t->key == key && t->start == w->start &&
		    t->end == w->end)
			return;
	}
	ck_assert_int_lt(m->n_timers, MODEL_TIMERS);
	m->timers[m->n_timers++] =
		(struct model_timer){ts, key, w->start, w->end};
}

static void
model_timer_delete(struct model *m, wm_ts_t ts, int64_t key, wm_ts_t start,
		   wm_ts_t end)
{
	for (int i = 0; i < m->n_timers; i++) {
		const struct model_timer *t = &m->timers[i];

		if (t->ts == ts && t->key == key && t->start == start &&
		    t->end == end) {
			m->timers[i] = m->timers[--m->n_timers];
			return;
		}
	}
}

/* The window function: the cross product, left outer. */
static void
model_fire(struct model *m, struct sink *s, const struct model_window *w,
	   bool late)
{
	if (late)
		m->fired_late++;
	else
		m->fired++;
	for (int l = 0; l < w->n[0]; l++)
		for (int r = 0; r < w->n[1]; r++) {
			m->pairs++;
			sink_put_pair(s, w->key, w->list[0][l].ts,
				      w->list[1][r].ts, w->list[0][l].value,
				      w->list[1][r].value, w->end - 1);
		}
}

static struct model_window *
model_window_new(struct model *m, int64_t key, wm_ts_t start, wm_ts_t end)
{
	for (int i = 0; i < MODEL_WINDOWS; i++) {
		struct model_window *w = &m->windows[i];

		if (w->live)
			continue;
		w->live = true;
		w->key = key;
		w->start = start;
		w->end = end;
		w->n[0] = w->n[1] = 0;
		return w;
	}
	ck_abort_msg("the model holds too many windows");
	return NULL;
}

static struct model_window *
model_window_find(struct model *m, int64_t key, wm_ts_t start, wm_ts_t end)
{
	for (int i = 0; i < MODEL_WINDOWS; i++) {
		struct model_window *w = &m->windows[i];

		if (w->live && w->key == key && w->start == start &&
		    w->end == end)
			return w;
	}
	return NULL;
}

/* The record goes into window w: windowState.add(), then the trigger and
 * the cleanup timer. */
static void
model_add(struct model *m, struct sink *s, struct model_window *w, int side,
	  wm_ts_t ts, int64_t value)
{
	wm_ts_t max_ts = w->end - 1;

	ck_assert_int_lt(w->n[side], MODEL_LIST);
	w->list[side][w->n[side]++] = (struct model_item){ts, value};
	if (max_ts <= m->watermark)
		model_fire(m, s, w, true);
	else
		model_timer_add(m, max_ts, w->key, w);
	model_timer_add(m, max_ts + m->lateness, w->key, w);
}

/* Tumbling and sliding windows: from the last start down by the slide. */
static bool
model_fixed_record(struct model *m, struct sink *s, int side, int64_t key,
		   wm_ts_t ts, int64_t value)
{
	int64_t r = (ts - m->offset) % m->slide;
	wm_ts_t last = ts - (r < 0 ? r + m->slide : r);
	bool skipped = true;

	for (wm_ts_t start = last; start > ts - m->size; start -= m->slide) {
		wm_ts_t end = start + m->size;
		struct model_window *w;

		if (end - 1 + m->lateness <= m->watermark)
			continue;
		w = model_window_find(m, key, start, end);
		if (w == NULL)
			w = model_window_new(m, key, start, end);
		model_add(m, s, w, side, ts, value);
		skipped = false;
	}
	return skipped;
}

/* Sessions: the key's windows that [ts, ts + gap) touches, merged with it
 * in start order, contents and all (MergingWindowSet.addWindow with
 * TimeWindow.mergeWindows). */
static bool
model_session_record(struct model *m, struct sink *s, int side, int64_t key,
		     wm_ts_t ts, int64_t value)
{
	wm_ts_t start = ts, end = ts + m->size;
	struct model_window *touched[MODEL_WINDOWS], *w;
	int n = 0;

	for (int i = 0; i < MODEL_WINDOWS; i++) {
		struct model_window *x = &m->windows[i];

		if (x->live && x->key == key && x->start <= end &&
		    x->end >= start)
			touched[n++] = x;
	}
	/* In start order (insertion sort: few). */
	for (int i = 1; i < n; i++)
		for (int j = i;
		     j > 0 && touched[j]->start < touched[j - 1]->start; j--) {
			w = touched[j];
			touched[j] = touched[j - 1];
			touched[j - 1] = w;
		}
	if (n == 1 && touched[0]->start <= start && touched[0]->end >= end) {
		w = touched[0];
	} else if (n == 0) {
		w = NULL;
	} else {
		wm_ts_t cover_start = start, cover_end = end;

		for (int i = 0; i < n; i++) {
			if (touched[i]->start < cover_start)
				cover_start = touched[i]->start;
			if (touched[i]->end > cover_end)
				cover_end = touched[i]->end;
		}
		/* EventTimeTrigger.onMerge(), then clear() and the cleanup
		 * timer's deletion for every merged window. */
		w = touched[0];
		if (cover_end - 1 > m->watermark) {
			struct model_window cover = {.start = cover_start,
						     .end = cover_end};

			model_timer_add(m, cover_end - 1, key, &cover);
		}
		for (int i = 0; i < n; i++) {
			struct model_window *x = touched[i];

			model_timer_delete(m, x->end - 1, key, x->start,
					   x->end);
			model_timer_delete(m, x->end - 1 + m->lateness, key,
					   x->start, x->end);
		}
		/* The lists appended in start order into the first. */
		for (int i = 1; i < n; i++) {
			for (int sd = 0; sd < 2; sd++)
				for (int j = 0; j < touched[i]->n[sd]; j++) {
					ck_assert_int_lt(w->n[sd], MODEL_LIST);
					w->list[sd][w->n[sd]++] =
						touched[i]->list[sd][j];
				}
			touched[i]->live = false;
		}
		w->start = cover_start;
		w->end = cover_end;
	}
	/* isWindowLate(): retired, and the record dropped. */
	if ((w != NULL ? w->end : end) - 1 + m->lateness <= m->watermark) {
		if (w != NULL)
			w->live = false;
		return true;
	}
	if (w == NULL)
		w = model_window_new(m, key, start, end);
	model_add(m, s, w, side, ts, value);
	return false;
}

static void
model_record(struct model *m, struct sink *s, int side, int64_t key, wm_ts_t ts,
	     int64_t value)
{
	bool skipped =
		m->kind == WM_WINDOW_SESSION
			? model_session_record(m, s, side, key, ts, value)
			: model_fixed_record(m, s, side, key, ts, value);

	if (!skipped)
		m->kept[side]++;
	else if (ts + m->lateness <= m->watermark)
		m->dropped[side]++;
}

/* advanceWatermark(): the first timer in (time, key, window) order while
 * one is due, each fired by onEventTime(). */
static void
model_watermark(struct model *m, struct sink *s, wm_ts_t watermark)
{
	m->watermark = watermark;
	for (;;) {
		struct model_timer t;
		struct model_window *w;
		int first = -1;

		for (int i = 0; i < m->n_timers; i++) {
			const struct model_timer *x = &m->timers[i];
			const struct model_timer *f =
				first < 0 ? NULL : &m->timers[first];

			if (x->ts > watermark)
				continue;
			if (f == NULL || x->ts < f->ts ||
			    (x->ts == f->ts &&
			     (x->key < f->key ||
			      (x->key == f->key &&
			       (x->start < f->start ||
				(x->start == f->start && x->end < f->end))))))
				first = i;
		}
		if (first < 0)
			break;
		t = m->timers[first];
		m->timers[first] = m->timers[--m->n_timers];
		w = model_window_find(m, t.key, t.start, t.end);
		if (w == NULL)
			continue;
		if (t.ts == t.end - 1)
			model_fire(m, s, w, false);
		if (t.ts == t.end - 1 + m->lateness) {
			w->live = false;
			model_timer_delete(m, t.end - 1, t.key, t.start, t.end);
		}
	}
	pair_text_printf(&s->text, "W(%" PRId64 ") ", watermark);
}

/* A step of a linear congruential generator: 31 bits of it. */
static int64_t
next_rand(uint64_t *seed)
{
	*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (int64_t)(*seed >> 33);
}

START_TEST(test_randomized_against_flinks_algorithm)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL * (uint64_t)(_i + 1);
	static struct model m;
	struct sink *got = &sink_a, *want = &sink_b;

	for (int round = 0; round < 30; round++) {
		enum wm_window_kind kind = round % 3 + 1;
		int64_t size = 2 + next_rand(&seed) % 15;
		int64_t slide = size, offset = 0;
		int64_t lateness =
			next_rand(&seed) % 3 == 0 ? 0 : next_rand(&seed) % 12;
		const struct wm_window_join_counters *c;
		struct wm_window_join *op;
		wm_ts_t w = WM_TS_MIN, newest = 0;

		if (kind == WM_WINDOW_SLIDING)
			/* Two to four windows a record: they overlap. */
			slide = 1 + (size - 1) / (2 + next_rand(&seed) % 3);
		if (kind == WM_WINDOW_SESSION)
			size = 1 + next_rand(&seed) % 6;
		else
			offset = next_rand(&seed) % slide *
				 (next_rand(&seed) % 2 ? 1 : -1);
		op = join_new(kind, size, slide, offset, lateness);
		memset(&m, 0, sizeof(m));
		m.kind = kind;
		m.size = size;
		m.slide = slide;
		m.offset = offset;
		m.lateness = lateness;
		m.watermark = WM_TS_MIN;
		sink_init(got);
		sink_init(want);
		for (int step = 0; step < 500; step++) {
			if (next_rand(&seed) % 6 == 0) {
				/* A watermark some way behind the newest. */
				wm_ts_t to = newest - next_rand(&seed) % 15;

				if (to > w) {
					w = to;
					wmark(op, got, w);
					model_watermark(&m, want, w);
				}
			} else {
				int side = (int)(next_rand(&seed) % 2);
				int64_t key = next_rand(&seed) % 3;
				wm_ts_t ts = newest + next_rand(&seed) % 3;
				int64_t value = next_rand(&seed) % 100;

				/* Now and then a quiet stretch, which ends
				 * sessions; now and then a record from the
				 * past, late or not. */
				if (next_rand(&seed) % 20 == 0)
					ts += 10 + next_rand(&seed) % 20;
				if (next_rand(&seed) % 4 == 0)
					ts -= next_rand(&seed) % 25;
				if (ts > newest)
					newest = ts;
				ck_assert_int_eq(
					put(op, got, side, key, ts, value), 0);
				model_record(&m, want, side, key, ts, value);
			}
			ck_assert_str_eq(sink_take(got), sink_take(want));
		}
		wmark(op, got, WM_TS_MAX);
		model_watermark(&m, want, WM_TS_MAX);
		ck_assert_str_eq(sink_take(got), sink_take(want));
		c = wm_window_join_counters(op);
		ck_assert_uint_eq(c->pairs, m.pairs);
		ck_assert_uint_eq(c->windows_fired, m.fired);
		ck_assert_uint_eq(c->windows_fired_late, m.fired_late);
		for (int sd = 0; sd < 2; sd++) {
			ck_assert_uint_eq(c->side[sd].records_kept, m.kept[sd]);
			ck_assert_uint_eq(c->side[sd].late_records_dropped,
					  m.dropped[sd]);
			ck_assert_uint_eq(wm_window_join_buffered(op, sd), 0);
		}
		ck_assert(wm_window_join_counters_balanced(c));
		/* The end of time cleaned every window up. */
		ck_assert_uint_eq(wm_window_join_window_count(op), 0);
		ck_assert_uint_eq(wm_window_join_timer_count(op), 0);
		wm_window_join_free(op);
	}
}
END_TEST

/* ---- checkpoints ---- */

/* The i-th input of the checkpoint test: a record, or every 40th a
 * watermark, the same for both operators. */
static void
feed(struct wm_window_join *op, struct sink *s, int i)
{
	if (i % 40 == 39)
		wmark(op, s, i / 3 - 6);
	else
		ck_assert_int_eq(put(op, s, i % 2, i % 5, i / 3 + (i % 7), i),
				 0);
}

START_TEST(test_restore_goes_on_as_if_never_stopped)
{
	static const enum wm_window_kind kinds[] = {
		WM_WINDOW_TUMBLING, WM_WINDOW_SLIDING, WM_WINDOW_SESSION};
	enum wm_window_kind kind = kinds[_i];
	struct wm_window_join *a = join_new(kind, 8, 4, 1, 6);
	struct wm_window_join *b, *other;
	struct wm_snap_writer w;
	struct wm_snap_reader r;
	struct sink *sa = &sink_a, *sb = &sink_b;
	const char *want;

	sink_init(sa);
	sink_init(sb);
	for (int i = 0; i < 200; i++)
		feed(a, sa, i);
	(void)sink_take(sa);
	ck_assert_uint_gt(wm_window_join_window_count(a), 0);
	wm_snap_writer_init(&w);
	wm_window_join_snapshot(a, &w);
	ck_assert_int_eq(wm_snap_writer_error(&w), 0);

	b = join_new(kind, 8, 4, 1, 6);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_window_join_restore(b, &r), 0);
	ck_assert_uint_eq(wm_window_join_window_count(b),
			  wm_window_join_window_count(a));
	ck_assert_uint_eq(wm_window_join_buffered(b, WM_JOIN_LEFT),
			  wm_window_join_buffered(a, WM_JOIN_LEFT));
	ck_assert_uint_eq(wm_window_join_buffered(b, WM_JOIN_RIGHT),
			  wm_window_join_buffered(a, WM_JOIN_RIGHT));
	ck_assert_uint_eq(wm_window_join_timer_count(b),
			  wm_window_join_timer_count(a));
	ck_assert_int_eq(wm_window_join_watermark(b), WM_TS_MIN);
	/* Given a's watermark, b emits what a emits from here on. */
	wmark(b, sb, wm_window_join_watermark(a));
	(void)sink_take(sb);
	for (int i = 200; i < 400; i++) {
		feed(a, sa, i);
		feed(b, sb, i);
	}
	wmark(a, sa, WM_TS_MAX);
	wmark(b, sb, WM_TS_MAX);
	/* Two sinks, two buffers: the strings compared are apart. */
	want = sink_take(sa);
	ck_assert(strlen(want) > 100);
	ck_assert_str_eq(sink_take(sb), want);
	ck_assert_mem_eq(wm_window_join_counters(b), wm_window_join_counters(a),
			 sizeof(struct wm_window_join_counters));

	/* Another lateness, or an operator that has processed something,
	 * refuses it. */
	other = join_new(kind, 8, 4, 1, 7);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_window_join_restore(other, &r), -EINVAL);
	wm_window_join_free(other);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_window_join_restore(a, &r), -EINVAL);
	/* Every truncation is refused. */
	for (size_t len = 0; len < wm_snap_writer_len(&w); len += 7) {
		other = join_new(kind, 8, 4, 1, 6);
		wm_snap_reader_init(&r, wm_snap_writer_bytes(&w), len);
		ck_assert_int_ne(wm_window_join_restore(other, &r), 0);
		wm_window_join_free(other);
	}
	wm_snap_writer_release(&w);
	wm_window_join_free(a);
	wm_window_join_free(b);
}
END_TEST

static Suite *
window_join_suite(void)
{
	Suite *s = suite_create("window_join");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_tumbling_pairs_per_window);
	tcase_add_test(tc, test_a_side_empty_gives_nothing);
	tcase_add_test(tc, test_sliding_pairs_in_every_window_both_are_in);
	tcase_add_test(tc, test_sessions_merge_and_pair_across_the_session);
	tcase_add_test(tc, test_late_firing_emits_every_pair_again);
	tcase_add_test(tc, test_records_late_for_all_windows_are_dropped);
	tcase_add_test(tc, test_no_timestamp_refused_by_fixed_windows_only);
	tcase_add_test(tc, test_bad_configurations_are_refused);
	tcase_add_test(tc, test_out_of_memory_leaves_record_in_no_window);
	tcase_add_test(tc,
		       test_out_of_memory_in_a_growing_window_changes_nothing);
	tcase_add_loop_test(tc, test_restore_goes_on_as_if_never_stopped, 0, 3);
	tcase_add_loop_test(tc, test_randomized_against_flinks_algorithm, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(window_join_suite());
}
