/*
 * check_interval_join.c
 *	Unit tests of the interval join (operators/interval_join.h,
 *	doc/semantics.md section 15.1): bounds, lateness, cleanup, the
 *	ends of the long range, memory running out and checkpoints, and a
 *	randomized comparison with a model that does what Flink's
 *	IntervalJoinOperator does, step for step: a map from timestamp to
 *	records per key and side, scanned whole for every record.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/snap.h"
#include "operators/interval_join.h"
#include "tests/unit/alloc_limit.h"
#include "tests/unit/check_main.h"
#include "tests/unit/pair_text.h"

/* What the operator emitted, as text (pair_text.h): "L0(ts)" a late left
 * record besides. */
struct sink {
	struct wm_interval_join_output out;
	struct pair_text text;
	char buf[1 << 16];
};

static void
sink_pair(struct wm_interval_join_output *o, const struct wm_join_result *r)
{
	pair_text_pair(&((struct sink *)o)->text, r->key, r->left_ts,
		       r->right_ts, r->left_value, r->right_value,
		       r->timestamp);
}

static void
sink_late(struct wm_interval_join_output *o, enum wm_join_side side,
	  const struct wm_record *r)
{
	pair_text_printf(&((struct sink *)o)->text, "L%d(%" PRId64 ") ",
			 (int)side, r->ts);
}

static void
sink_watermark(struct wm_output *o, wm_ts_t w)
{
	struct sink *s = wm_container_of(o, struct sink, out.base);

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
	memset(&s->out, 0, sizeof(s->out));
	s->out.pair = sink_pair;
	s->out.late = sink_late;
	s->out.base.watermark = sink_watermark;
	s->out.base.status = sink_status;
	pair_text_init(&s->text, s->buf, sizeof(s->buf));
}

static const char *
sink_take(struct sink *s)
{
	return pair_text_take(&s->text);
}

static struct wm_interval_join *
join_new(int64_t lower, int64_t upper, bool lower_ex, bool upper_ex,
	 bool late_left, bool late_right)
{
	struct wm_interval_join_config c = {
		.lower = lower,
		.upper = upper,
		.lower_exclusive = lower_ex,
		.upper_exclusive = upper_ex,
		.late_output = {late_left, late_right},
	};
	const char *why = NULL;
	struct wm_interval_join *op = wm_interval_join_new(&c, &why);

	ck_assert_ptr_nonnull(op);
	return op;
}

static int
put(struct wm_interval_join *op, struct sink *s, enum wm_join_side side,
    int64_t key, wm_ts_t ts, int64_t value)
{
	struct wm_record r = {.ts = ts, .key = key, .value = value};

	return wm_interval_join_process_element(op, side, &r, &s->out);
}

START_TEST(test_pairs_within_inclusive_bounds)
{
	struct wm_interval_join *op =
		join_new(-1, 2, false, false, false, false);
	struct sink s;

	sink_init(&s);
	/* A right record r pairs with left l when l - 1 <= r <= l + 2. */
	ck_assert_int_eq(put(op, &s, WM_JOIN_LEFT, 7, 10, 1), 0);
	ck_assert_str_eq(sink_take(&s), "");
	ck_assert_int_eq(put(op, &s, WM_JOIN_RIGHT, 7, 8, 2), 0);
	ck_assert_str_eq(sink_take(&s), "");
	ck_assert_int_eq(put(op, &s, WM_JOIN_RIGHT, 7, 9, 3), 0);
	ck_assert_str_eq(sink_take(&s), "P(7,10,9,1,3@10)");
	ck_assert_int_eq(put(op, &s, WM_JOIN_RIGHT, 7, 12, 4), 0);
	ck_assert_str_eq(sink_take(&s), "P(7,10,12,1,4@12)");
	ck_assert_int_eq(put(op, &s, WM_JOIN_RIGHT, 7, 13, 5), 0);
	ck_assert_str_eq(sink_take(&s), "");
	/* Another key pairs with nothing of key 7. */
	ck_assert_int_eq(put(op, &s, WM_JOIN_RIGHT, 8, 10, 6), 0);
	ck_assert_str_eq(sink_take(&s), "");
	/* A left record pairs with the right ones in timestamp order,
	 * whatever order they came in. */
	ck_assert_int_eq(put(op, &s, WM_JOIN_RIGHT, 7, 11, 7), 0);
	ck_assert_str_eq(sink_take(&s), "P(7,10,11,1,7@11)");
	ck_assert_int_eq(put(op, &s, WM_JOIN_LEFT, 7, 11, 8), 0);
	ck_assert_str_eq(sink_take(&s), "P(7,11,11,8,7@11) P(7,11,12,8,4@12) "
					"P(7,11,13,8,5@13)");
	ck_assert_uint_eq(wm_interval_join_counters(op)->pairs, 6);
	ck_assert_uint_eq(wm_interval_join_buffered(op, WM_JOIN_LEFT), 2);
	ck_assert_uint_eq(wm_interval_join_buffered(op, WM_JOIN_RIGHT), 6);
	ck_assert_uint_eq(wm_interval_join_key_count(op), 2);
	wm_interval_join_free(op);
}
END_TEST

START_TEST(test_exclusive_bounds_move_inwards)
{
	struct wm_interval_join *op = join_new(-2, 2, true, true, false, false);
	struct wm_interval_join *empty =
		join_new(3, 3, true, false, false, false);
	struct sink s;

	sink_init(&s);
	for (int ts = 7; ts <= 13; ts++)
		ck_assert_int_eq(put(op, &s, WM_JOIN_RIGHT, 1, ts, ts), 0);
	ck_assert_int_eq(put(op, &s, WM_JOIN_LEFT, 1, 10, 0), 0);
	/* (-2, 2): 9, 10 and 11 only. */
	ck_assert_str_eq(sink_take(&s), "P(1,10,9,0,9@10) P(1,10,10,0,10@10) "
					"P(1,10,11,0,11@11)");
	/* (3, 3]: empty once the lower bound moved to 4. */
	for (int ts = 0; ts <= 20; ts++)
		ck_assert_int_eq(put(empty, &s, WM_JOIN_RIGHT, 1, ts, ts), 0);
	ck_assert_int_eq(put(empty, &s, WM_JOIN_LEFT, 1, 10, 0), 0);
	ck_assert_str_eq(sink_take(&s), "");
	wm_interval_join_free(op);
	wm_interval_join_free(empty);
}
END_TEST

START_TEST(test_lower_above_upper_is_refused)
{
	struct wm_interval_join_config c = {.lower = 5, .upper = 4};
	const char *why = NULL;

	errno = 0;
	ck_assert_ptr_null(wm_interval_join_new(&c, &why));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_nonnull(why);
}
END_TEST

START_TEST(test_late_records_dropped_or_side_output)
{
	struct wm_interval_join *op = join_new(0, 5, false, false, false, true);
	struct sink s;
	const struct wm_interval_join_counters *c;

	sink_init(&s);
	wm_interval_join_process_watermark(op, 10, &s.out);
	ck_assert_str_eq(sink_take(&s), "W(10)");
	/* Below the watermark: late; at it: on time. */
	ck_assert_int_eq(put(op, &s, WM_JOIN_LEFT, 1, 9, 0), 0);
	ck_assert_int_eq(put(op, &s, WM_JOIN_RIGHT, 1, 9, 0), 0);
	ck_assert_str_eq(sink_take(&s), "L1(9)");
	ck_assert_int_eq(put(op, &s, WM_JOIN_LEFT, 1, 10, 1), 0);
	ck_assert_int_eq(put(op, &s, WM_JOIN_RIGHT, 1, 10, 2), 0);
	ck_assert_str_eq(sink_take(&s), "P(1,10,10,1,2@10)");
	/* The late left record joined nothing: no pair for it with 10. */
	c = wm_interval_join_counters(op);
	ck_assert_uint_eq(c->side[0].late_records_dropped, 1);
	ck_assert_uint_eq(c->side[1].late_records_side_output, 1);
	ck_assert_uint_eq(c->side[0].records_kept, 1);
	ck_assert_uint_eq(c->side[1].records_kept, 1);
	ck_assert(wm_interval_join_counters_balanced(c));
	/* No timestamp: refused, counted, nothing kept. */
	ck_assert_int_eq(put(op, &s, WM_JOIN_LEFT, 1, WM_TS_MIN, 0), -EINVAL);
	ck_assert_uint_eq(c->side[0].records_rejected, 1);
	ck_assert(wm_interval_join_counters_balanced(c));
	wm_interval_join_free(op);
}
END_TEST

START_TEST(test_before_any_watermark_nothing_is_late)
{
	struct wm_interval_join *op = join_new(0, 0, false, false, true, true);
	struct sink s;

	sink_init(&s);
	ck_assert_int_eq(put(op, &s, WM_JOIN_LEFT, 1, WM_TS_MIN + 1, 0), 0);
	ck_assert_str_eq(sink_take(&s), "");
	ck_assert_uint_eq(wm_interval_join_buffered(op, WM_JOIN_LEFT), 1);
	wm_interval_join_free(op);
}
END_TEST

START_TEST(test_cleanup_timers_drop_what_can_no_longer_pair)
{
	/* [-3, 2]: a left record at t is kept until t + 2, a right one
	 * until t + 3. */
	struct wm_interval_join *op =
		join_new(-3, 2, false, false, false, false);
	struct sink s;

	sink_init(&s);
	ck_assert_int_eq(put(op, &s, WM_JOIN_LEFT, 1, 10, 0), 0);
	ck_assert_int_eq(put(op, &s, WM_JOIN_LEFT, 1, 10, 1), 0);
	ck_assert_int_eq(put(op, &s, WM_JOIN_RIGHT, 1, 20, 0), 0);
	ck_assert_uint_eq(wm_interval_join_timer_count(op), 2);
	wm_interval_join_process_watermark(op, 11, &s.out);
	ck_assert_uint_eq(wm_interval_join_buffered(op, WM_JOIN_LEFT), 2);
	/* A right record at 12 (on time) still finds both. */
	ck_assert_int_eq(put(op, &s, WM_JOIN_RIGHT, 1, 12, 5), 0);
	ck_assert_str_eq(sink_take(&s),
			 "W(11) P(1,10,12,0,5@12) P(1,10,12,1,5@12)");
	wm_interval_join_process_watermark(op, 12, &s.out);
	ck_assert_uint_eq(wm_interval_join_buffered(op, WM_JOIN_LEFT), 0);
	ck_assert_uint_eq(
		wm_interval_join_counters(op)->side[0].records_cleaned, 2);
	/* The right record at 12 goes at 15, the one at 20 at 23. */
	wm_interval_join_process_watermark(op, 22, &s.out);
	ck_assert_uint_eq(wm_interval_join_buffered(op, WM_JOIN_RIGHT), 1);
	wm_interval_join_process_watermark(op, 23, &s.out);
	ck_assert_uint_eq(wm_interval_join_buffered(op, WM_JOIN_RIGHT), 0);
	ck_assert_uint_eq(wm_interval_join_key_count(op), 0);
	ck_assert_uint_eq(wm_interval_join_timer_count(op), 0);
	ck_assert_str_eq(sink_take(&s), "W(12) W(22) W(23)");
	wm_interval_join_free(op);
}
END_TEST

START_TEST(test_timer_at_the_watermark_fires_with_the_next_one)
{
	/* [-5, 0]: a left record is kept until its own timestamp (upper
	 * <= 0), a right one until 5 after it. */
	struct wm_interval_join *op =
		join_new(-5, 0, false, false, false, false);
	struct sink s;

	sink_init(&s);
	wm_interval_join_process_watermark(op, 10, &s.out);
	/* At the watermark: on time, its timer (10) already due. */
	ck_assert_int_eq(put(op, &s, WM_JOIN_LEFT, 1, 10, 0), 0);
	ck_assert_uint_eq(wm_interval_join_buffered(op, WM_JOIN_LEFT), 1);
	/* Until the next watermark it pairs. */
	ck_assert_int_eq(put(op, &s, WM_JOIN_RIGHT, 1, 10, 1), 0);
	ck_assert_str_eq(sink_take(&s), "W(10) P(1,10,10,0,1@10)");
	wm_interval_join_process_watermark(op, 11, &s.out);
	ck_assert_uint_eq(wm_interval_join_buffered(op, WM_JOIN_LEFT), 0);
	ck_assert_uint_eq(wm_interval_join_buffered(op, WM_JOIN_RIGHT), 1);
	wm_interval_join_process_watermark(op, 14, &s.out);
	ck_assert_uint_eq(wm_interval_join_buffered(op, WM_JOIN_RIGHT), 1);
	wm_interval_join_process_watermark(op, 15, &s.out);
	ck_assert_uint_eq(wm_interval_join_buffered(op, WM_JOIN_RIGHT), 0);
	wm_interval_join_free(op);
}
END_TEST

START_TEST(test_bounds_wrap_as_java_longs)
{
	struct wm_interval_join *op =
		join_new(0, 10, false, false, false, false);
	struct sink s;

	sink_init(&s);
	/* A left record near MAX: ts + 10 wraps below ts + 0, and Flink's
	 * test skips every right record. */
	ck_assert_int_eq(put(op, &s, WM_JOIN_RIGHT, 1, INT64_MAX - 1, 1), 0);
	ck_assert_int_eq(put(op, &s, WM_JOIN_LEFT, 1, INT64_MAX - 5, 2), 0);
	ck_assert_str_eq(sink_take(&s), "");
	/* Its cleanup time wrapped into the past: the next watermark
	 * drops it. */
	wm_interval_join_process_watermark(op, 0, &s.out);
	ck_assert_uint_eq(wm_interval_join_buffered(op, WM_JOIN_LEFT), 0);
	wm_interval_join_free(op);
}
END_TEST

START_TEST(test_out_of_memory_changes_nothing)
{
	struct wm_interval_join *op =
		join_new(-100, 100, false, false, false, false);
	struct sink s;
	int err = 0;
	int i;

	sink_init(&s);
	/* One key's buffer grows until it cannot. */
	wm_alloc_limit = 1 << 12;
	for (i = 0; i < 10000 && err == 0; i++)
		err = put(op, &s, WM_JOIN_LEFT, 1, i, i);
	wm_alloc_limit = SIZE_MAX;
	ck_assert_int_eq(err, -ENOMEM);
	ck_assert_uint_eq(wm_interval_join_buffered(op, WM_JOIN_LEFT),
			  (size_t)(i - 1));
	ck_assert_uint_eq(wm_interval_join_counters(op)->side[0].records_in,
			  (uint64_t)(i - 1));
	ck_assert(wm_interval_join_counters_balanced(
		wm_interval_join_counters(op)));
	/* With memory again, the same record goes in. */
	ck_assert_int_eq(put(op, &s, WM_JOIN_LEFT, 1, i - 1, 0), 0);
	wm_interval_join_free(op);
}
END_TEST

/* ---- the model: Flink's algorithm as it is written ---- */

#define MODEL_MAX 4096

struct model_rec {
	int side;
	int64_t key;
	wm_ts_t ts;
	int64_t value;
	bool live;
};

struct model {
	int64_t lower, upper; /* after exclusivity */
	bool late_out[2];
	wm_ts_t watermark;
	struct model_rec recs[MODEL_MAX];
	int n;
	/* timers: (ts, key, side), each once */
	struct {
		wm_ts_t ts;
		int64_t key;
		int side;
	} timers[MODEL_MAX];
	int n_timers;
};

static void
model_record(struct model *m, struct sink *s, int side, int64_t key, wm_ts_t ts,
	     int64_t value)
{
	int64_t rel_lo = side == 0 ? m->lower : -m->upper;
	int64_t rel_hi = side == 0 ? m->upper : -m->lower;
	wm_ts_t cleanup;
	int i;

	if (m->watermark != WM_TS_MIN && ts < m->watermark) {
		if (m->late_out[side])
			pair_text_printf(&s->text, "L%d(%" PRId64 ") ", side,
					 ts);
		return;
	}
	ck_assert_int_lt(m->n, MODEL_MAX);
	m->recs[m->n++] = (struct model_rec){side, key, ts, value, true};
	/* The other side's buckets in timestamp order, each bucket in
	 * arrival order: the order the operator promises. */
	for (;;) {
		wm_ts_t next = WM_TS_MAX;
		bool any = false;

		for (i = 0; i < m->n; i++) {
			struct model_rec *o = &m->recs[i];

			if (!o->live || o->side == side || o->key != key ||
			    o->ts < ts + rel_lo || o->ts > ts + rel_hi)
				continue;
			if (!any || o->ts < next)
				next = o->ts;
			any = true;
		}
		if (!any)
			break;
		for (i = 0; i < m->n; i++) {
			struct model_rec *o = &m->recs[i];
			int64_t lts, rts, lv, rv;

			if (!o->live || o->side == side || o->key != key ||
			    o->ts != next)
				continue;
			lts = side == 0 ? ts : o->ts;
			rts = side == 0 ? o->ts : ts;
			lv = side == 0 ? value : o->value;
			rv = side == 0 ? o->value : value;
			pair_text_pair(&s->text, key, lts, rts, lv, rv,
				       lts > rts ? lts : rts);
		}
		if (next == WM_TS_MAX)
			break;
		rel_lo = next + 1 - ts; /* on past this bucket */
	}
	cleanup = rel_hi > 0 ? ts + rel_hi : ts;
	for (i = 0; i < m->n_timers; i++)
		if (m->timers[i].ts == cleanup && m->timers[i].key == key &&
		    m->timers[i].side == side)
			return;
	ck_assert_int_lt(m->n_timers, MODEL_MAX);
	m->timers[m->n_timers].ts = cleanup;
	m->timers[m->n_timers].key = key;
	m->timers[m->n_timers].side = side;
	m->n_timers++;
}

static void
model_watermark(struct model *m, struct sink *s, wm_ts_t w)
{
	m->watermark = w;
	for (int i = 0; i < m->n_timers; i++) {
		int side = m->timers[i].side;
		wm_ts_t t = m->timers[i].ts, bucket;

		if (t > w)
			continue;
		if (side == 0)
			bucket = m->upper <= 0 ? t : t - m->upper;
		else
			bucket = m->lower <= 0 ? t + m->lower : t;
		for (int j = 0; j < m->n; j++)
			if (m->recs[j].side == side &&
			    m->recs[j].key == m->timers[i].key &&
			    m->recs[j].ts == bucket)
				m->recs[j].live = false;
		m->timers[i--] = m->timers[--m->n_timers];
	}
	pair_text_printf(&s->text, "W(%" PRId64 ") ", w);
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

	for (int round = 0; round < 40; round++) {
		static struct model m;
		static struct sink got, want;
		int64_t lower, upper;
		bool lex, uex, late_l, late_r;
		struct wm_interval_join *op;
		wm_ts_t w = WM_TS_MIN, newest = 0;

		lower = next_rand(&seed) % 21 - 10;
		upper = lower + next_rand(&seed) % 15;
		lex = next_rand(&seed) % 3 == 0;
		uex = next_rand(&seed) % 3 == 0;
		late_l = next_rand(&seed) % 2;
		late_r = next_rand(&seed) % 2;
		op = join_new(lower, upper, lex, uex, late_l, late_r);
		memset(&m, 0, sizeof(m));
		m.lower = lex ? lower + 1 : lower;
		m.upper = uex ? upper - 1 : upper;
		m.late_out[0] = late_l;
		m.late_out[1] = late_r;
		m.watermark = WM_TS_MIN;
		sink_init(&got);
		sink_init(&want);
		for (int step = 0; step < 600; step++) {
			if (next_rand(&seed) % 8 == 0) {
				/* A watermark some way behind the newest. */
				wm_ts_t to = newest - next_rand(&seed) % 12;

				if (to > w) {
					w = to;
					wm_interval_join_process_watermark(
						op, w, &got.out);
					model_watermark(&m, &want, w);
				}
			} else {
				int side = (int)(next_rand(&seed) % 2);
				int64_t key = next_rand(&seed) % 4;
				wm_ts_t ts = newest + next_rand(&seed) % 6;
				int64_t value;

				if (next_rand(&seed) % 4 == 0)
					ts -= next_rand(&seed) % 15;
				value = next_rand(&seed) % 1000;
				if (ts > newest)
					newest = ts;
				ck_assert_int_eq(
					put(op, &got, side, key, ts, value), 0);
				model_record(&m, &want, side, key, ts, value);
			}
			ck_assert_str_eq(sink_take(&got), sink_take(&want));
		}
		ck_assert(wm_interval_join_counters_balanced(
			wm_interval_join_counters(op)));
		wm_interval_join_free(op);
	}
}
END_TEST

/* ---- checkpoints ---- */

START_TEST(test_restore_goes_on_as_if_never_stopped)
{
	struct wm_interval_join *a = join_new(-4, 3, false, true, true, false);
	struct wm_interval_join *b, *other;
	struct wm_snap_writer w;
	struct wm_snap_reader r;
	struct sink sa, sb;
	static char want[sizeof(((struct sink *)0)->buf)];

	sink_init(&sa);
	sink_init(&sb);
	for (int i = 0; i < 200; i++)
		ck_assert_int_eq(put(a, &sa, i % 2, i % 7, i / 3 + (i % 5), i),
				 0);
	wm_interval_join_process_watermark(a, 40, &sa.out);
	(void)sink_take(&sa);
	wm_snap_writer_init(&w);
	wm_interval_join_snapshot(a, &w);
	ck_assert_int_eq(wm_snap_writer_error(&w), 0);

	b = join_new(-4, 3, false, true, true, false);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_interval_join_restore(b, &r), 0);
	ck_assert_uint_eq(wm_interval_join_buffered(b, WM_JOIN_LEFT),
			  wm_interval_join_buffered(a, WM_JOIN_LEFT));
	ck_assert_uint_eq(wm_interval_join_timer_count(b),
			  wm_interval_join_timer_count(a));
	ck_assert_int_eq(wm_interval_join_watermark(b), WM_TS_MIN);
	/* The same watermark and records give the same output. */
	wm_interval_join_process_watermark(b, 40, &sb.out);
	ck_assert_str_eq(sink_take(&sb), "W(40)");
	for (int i = 200; i < 300; i++) {
		ck_assert_int_eq(put(a, &sa, i % 2, i % 7, i / 3 + (i % 5), i),
				 0);
		ck_assert_int_eq(put(b, &sb, i % 2, i % 7, i / 3 + (i % 5), i),
				 0);
	}
	wm_interval_join_process_watermark(a, 90, &sa.out);
	wm_interval_join_process_watermark(b, 90, &sb.out);
	strcpy(want, sink_take(&sa));
	ck_assert(strlen(want) > 100);
	ck_assert_str_eq(sink_take(&sb), want);
	ck_assert_uint_eq(wm_interval_join_counters(b)->pairs,
			  wm_interval_join_counters(a)->pairs);

	/* Another configuration refuses it. */
	other = join_new(-4, 3, false, false, true, false);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_interval_join_restore(other, &r), -EINVAL);
	wm_interval_join_free(other);
	/* Every truncation is refused. */
	for (size_t len = 0; len < wm_snap_writer_len(&w); len += 7) {
		other = join_new(-4, 3, false, true, true, false);
		wm_snap_reader_init(&r, wm_snap_writer_bytes(&w), len);
		ck_assert_int_ne(wm_interval_join_restore(other, &r), 0);
		wm_interval_join_free(other);
	}
	wm_snap_writer_release(&w);
	wm_interval_join_free(a);
	wm_interval_join_free(b);
}
END_TEST

static Suite *
interval_join_suite(void)
{
	Suite *s = suite_create("interval_join");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_pairs_within_inclusive_bounds);
	tcase_add_test(tc, test_exclusive_bounds_move_inwards);
	tcase_add_test(tc, test_lower_above_upper_is_refused);
	tcase_add_test(tc, test_late_records_dropped_or_side_output);
	tcase_add_test(tc, test_before_any_watermark_nothing_is_late);
	tcase_add_test(tc, test_cleanup_timers_drop_what_can_no_longer_pair);
	tcase_add_test(tc, test_timer_at_the_watermark_fires_with_the_next_one);
	tcase_add_test(tc, test_bounds_wrap_as_java_longs);
	tcase_add_test(tc, test_out_of_memory_changes_nothing);
	tcase_add_test(tc, test_restore_goes_on_as_if_never_stopped);
	tcase_add_loop_test(tc, test_randomized_against_flinks_algorithm, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(interval_join_suite());
}
