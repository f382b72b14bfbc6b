/*
 * check_window.c
 *	Unit tests of the event-time window operator (operators/window.c):
 *	the tumbling and sliding conformance cases of doc/semantics.md
 *	section 10.6 with their exact numbers (session cases W-6 to W-9 and W-11
 *	included), timer order, lateness, purging, aggregates, the edges of
 *	time, record accounting, session merging, and randomized comparisons
 *	against a batch aggregation (sessions too) and a lateness model.
 *
 * Keys "key1" and "key2" of the Flink tests are 1 and 2. At equal output
 * timestamps our results come in key order (then window start); Flink's
 * order there is unspecified and its tests sort, so W-5 lists key1 first.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/window.h"
#include "tests/unit/alloc_limit.h"
#include "tests/unit/check_main.h"

/* ---- recording harness ---- */

enum ev_kind {
	EV_RESULT = 1,
	EV_LATE,
	EV_WATERMARK,
	EV_STATUS,
};

struct ev {
	enum ev_kind kind;
	struct wm_window_result r; /* EV_RESULT */
	struct wm_record rec;	   /* EV_LATE */
	wm_ts_t watermark;	   /* EV_WATERMARK */
	enum wm_status status;	   /* EV_STATUS */
};

struct harness {
	struct wm_window_output out;
	struct wm_window *op;
	struct ev *ev;
	size_t n;    /* events recorded */
	size_t cap;  /* events allocated */
	size_t next; /* first event not yet checked */
};

static struct harness h;

static struct ev *
push(enum ev_kind kind)
{
	struct ev *e;

	if (h.n == h.cap) {
		h.cap = h.cap ? 2 * h.cap : 64;
		h.ev = realloc(h.ev, h.cap * sizeof(*h.ev));
		ck_assert_ptr_nonnull(h.ev);
	}
	e = &h.ev[h.n++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	return e;
}

static void
on_result(struct wm_window_output *out, const struct wm_window_result *r)
{
	ck_assert_ptr_eq(out, &h.out);
	push(EV_RESULT)->r = *r;
}

static void
on_late(struct wm_window_output *out, const struct wm_record *rec)
{
	ck_assert_ptr_eq(out, &h.out);
	push(EV_LATE)->rec = *rec;
}

static void
on_watermark(struct wm_output *out, wm_ts_t watermark)
{
	ck_assert_ptr_eq(wm_container_of(out, struct wm_window_output, base),
			 &h.out);
	push(EV_WATERMARK)->watermark = watermark;
}

static void
on_status(struct wm_output *out, enum wm_status status)
{
	ck_assert_ptr_eq(wm_container_of(out, struct wm_window_output, base),
			 &h.out);
	push(EV_STATUS)->status = status;
}

static void
open_op(const struct wm_window_assigner *a, int64_t lateness, bool purging,
	bool side_output)
{
	struct wm_window_config conf;
	const char *why = NULL;

	memset(&conf, 0, sizeof(conf));
	conf.assigner = *a;
	conf.allowed_lateness = lateness;
	conf.purging = purging;
	conf.late_side_output = side_output;
	h.op = wm_window_new(&conf, &why);
	ck_assert_msg(h.op != NULL, "wm_window_new: %s", why ? why : "?");
	h.out.result = on_result;
	h.out.late = side_output ? on_late : NULL;
	h.out.base.watermark = on_watermark;
	h.out.base.status = on_status;
	h.n = 0;
	h.next = 0;
}

static void
open_tumbling(int64_t size, int64_t offset, int64_t lateness, bool purging,
	      bool side_output)
{
	struct wm_window_assigner a;
	const char *why;

	ck_assert_int_eq(wm_window_tumbling(&a, size, offset, &why), 0);
	open_op(&a, lateness, purging, side_output);
}

static void
open_sliding(int64_t size, int64_t slide, int64_t offset, int64_t lateness,
	     bool purging, bool side_output)
{
	struct wm_window_assigner a;
	const char *why;

	ck_assert_int_eq(wm_window_sliding(&a, size, slide, offset, &why), 0);
	open_op(&a, lateness, purging, side_output);
}

static void
close_op(void)
{
	wm_window_free(h.op);
	h.op = NULL;
	h.n = 0;
	h.next = 0;
}

static void
setup(void)
{
	memset(&h, 0, sizeof(h));
}

static void
teardown(void)
{
	close_op();
	free(h.ev);
	memset(&h, 0, sizeof(h));
}

/* Feed record (key, value) at ts; it must be processed (return 0). */
static void
elem(int64_t key, int64_t value, wm_ts_t ts)
{
	struct wm_record rec = {.ts = ts, .key = key, .value = value};

	ck_assert_int_eq(wm_window_process_element(h.op, &rec, &h.out), 0);
}

static void
wmark(wm_ts_t watermark)
{
	wm_window_process_watermark(h.op, watermark, &h.out);
}

static const char *
describe(const struct ev *e, char *buf, size_t len)
{
	switch (e->kind) {
	case EV_RESULT:
		snprintf(buf, len,
			 "result key %lld [%lld,%lld) @%lld count %lld sum "
			 "%lld min %lld max %lld%s",
			 (long long)e->r.key, (long long)e->r.window.start,
			 (long long)e->r.window.end, (long long)e->r.timestamp,
			 (long long)e->r.count, (long long)e->r.sum,
			 (long long)e->r.min, (long long)e->r.max,
			 e->r.late_firing ? " late" : "");
		break;
	case EV_LATE:
		snprintf(buf, len, "late record key %lld value %lld @%lld",
			 (long long)e->rec.key, (long long)e->rec.value,
			 (long long)e->rec.ts);
		break;
	case EV_WATERMARK:
		snprintf(buf, len, "watermark %lld", (long long)e->watermark);
		break;
	case EV_STATUS:
		snprintf(buf, len, "status %d", (int)e->status);
		break;
	}
	return buf;
}

/* Check the next output event equals `want`; for results, all but min and
 * max, which the callers that care check themselves. */
static void
expect_ev(int line, const struct ev *want)
{
	char a[160], b[160];
	const struct ev *got;
	bool same;

	ck_assert_msg(h.next < h.n, "line %d: expected %s, got no more output",
		      line, describe(want, a, sizeof(a)));
	got = &h.ev[h.next++];
	same = got->kind == want->kind;
	if (same && want->kind == EV_RESULT)
		same = got->r.key == want->r.key &&
		       got->r.window.start == want->r.window.start &&
		       got->r.window.end == want->r.window.end &&
		       got->r.timestamp == want->r.timestamp &&
		       got->r.count == want->r.count &&
		       got->r.sum == want->r.sum &&
		       got->r.late_firing == want->r.late_firing;
	else if (same && want->kind == EV_LATE)
		same = memcmp(&got->rec, &want->rec, sizeof(got->rec)) == 0;
	else if (same && want->kind == EV_WATERMARK)
		same = got->watermark == want->watermark;
	else if (same && want->kind == EV_STATUS)
		same = got->status == want->status;
	ck_assert_msg(same, "line %d: output %zu: expected %s, got %s", line,
		      h.next - 1, describe(want, a, sizeof(a)),
		      describe(got, b, sizeof(b)));
}

/* A result whose values were all 1 (count == sum), as in the Flink tests. */
static void
expect_ones(int line, int64_t key, wm_ts_t start, wm_ts_t end, int64_t count,
	    bool late)
{
	struct ev want = {.kind = EV_RESULT};

	want.r.key = key;
	want.r.window.start = start;
	want.r.window.end = end;
	want.r.timestamp = wm_ts_sub(end, 1);
	want.r.count = count;
	want.r.sum = count;
	want.r.late_firing = late;
	expect_ev(line, &want);
}

static void
expect_watermark(int line, wm_ts_t watermark)
{
	struct ev want = {.kind = EV_WATERMARK, .watermark = watermark};

	expect_ev(line, &want);
}

static void
expect_late(int line, int64_t key, int64_t value, wm_ts_t ts)
{
	struct ev want = {.kind = EV_LATE};

	want.rec.ts = ts;
	want.rec.key = key;
	want.rec.value = value;
	expect_ev(line, &want);
}

static void
expect_nothing(int line)
{
	char a[160];

	ck_assert_msg(h.next == h.n, "line %d: unexpected output %s", line,
		      h.next < h.n ? describe(&h.ev[h.next], a, sizeof(a))
				   : "");
}

#define RESULT(key, start, end, count)                                         \
	expect_ones(__LINE__, (key), (start), (end), (count), false)
#define LATE_RESULT(key, start, end, count)                                    \
	expect_ones(__LINE__, (key), (start), (end), (count), true)
#define WATERMARK(w) expect_watermark(__LINE__, (w))
#define SIDE(key, value, ts) expect_late(__LINE__, (key), (value), (ts))
#define NOTHING() expect_nothing(__LINE__)

/* Feed watermark w and expect nothing but its forwarding. */
#define QUIET_WATERMARK(w)                                                     \
	do {                                                                   \
		wmark(w);                                                      \
		WATERMARK(w);                                                  \
		NOTHING();                                                     \
	} while (0)

static const struct wm_window_counters *
counters(void)
{
	return wm_window_counters(h.op);
}

#define ASSERT_BALANCED()                                                      \
	ck_assert_msg(wm_window_counters_balanced(counters()),                 \
		      "records are not all accounted for")

/* ---- tcase conformance: doc/semantics.md section 10.6 ---- */

static void
feed_w1_records(void)
{
	elem(2, 1, 3999);
	elem(2, 1, 3000);
	elem(1, 1, 20);
	elem(1, 1, 0);
	elem(1, 1, 999);
	elem(2, 1, 1998);
	elem(2, 1, 1999);
	elem(2, 1, 1000);
}

START_TEST(test_tumbling_fires_each_key_when_watermark_reaches_max_ts)
{
	/* W-1: tumbling 3 s, L = 0. */
	open_tumbling(3000, 0, 0, false, false);
	feed_w1_records();
	NOTHING();
	QUIET_WATERMARK(999);
	QUIET_WATERMARK(1999);
	wmark(2999);
	RESULT(1, 0, 3000, 3);
	RESULT(2, 0, 3000, 3);
	WATERMARK(2999);
	NOTHING();
	QUIET_WATERMARK(3999);
	QUIET_WATERMARK(4999);
	wmark(5999);
	RESULT(2, 3000, 6000, 2);
	WATERMARK(5999);
	NOTHING();
	QUIET_WATERMARK(6999);
	QUIET_WATERMARK(7999);

	ck_assert_uint_eq(counters()->records_in, 8);
	ck_assert_uint_eq(counters()->records_accepted, 8);
	ck_assert_uint_eq(counters()->windows_fired, 3);
	ck_assert_uint_eq(counters()->windows_fired_late, 0);
	ck_assert_uint_eq(counters()->late_records_dropped, 0);
	ASSERT_BALANCED();
	ck_assert_uint_eq(wm_window_state_count(h.op), 0);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 0);
}
END_TEST

START_TEST(test_sliding_fires_every_window_of_each_record)
{
	/* W-2: sliding 3 s / 1 s, L = 0. */
	open_sliding(3000, 1000, 0, 0, false, false);
	feed_w1_records();
	NOTHING();
	wmark(999);
	RESULT(1, -2000, 1000, 3);
	WATERMARK(999);
	wmark(1999);
	RESULT(1, -1000, 2000, 3);
	RESULT(2, -1000, 2000, 3);
	WATERMARK(1999);
	wmark(2999);
	RESULT(1, 0, 3000, 3);
	RESULT(2, 0, 3000, 3);
	WATERMARK(2999);
	wmark(3999);
	RESULT(2, 1000, 4000, 5);
	WATERMARK(3999);
	wmark(4999);
	RESULT(2, 2000, 5000, 2);
	WATERMARK(4999);
	wmark(5999);
	RESULT(2, 3000, 6000, 2);
	WATERMARK(5999);
	NOTHING();
	QUIET_WATERMARK(6999);
	QUIET_WATERMARK(7999);

	ck_assert_uint_eq(counters()->records_in, 8);
	ck_assert_uint_eq(counters()->records_accepted, 8);
	ck_assert_uint_eq(counters()->windows_fired, 8);
	ASSERT_BALANCED();
	ck_assert_uint_eq(wm_window_state_count(h.op), 0);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 0);
}
END_TEST

START_TEST(test_purging_trigger_late_firing_has_only_new_elements)
{
	/* W-3: tumbling 2 s, L = 500, PurgingTrigger, late side output. */
	open_tumbling(2000, 0, 500, true, true);
	elem(2, 1, 500);
	QUIET_WATERMARK(1500);
	elem(2, 1, 1300);
	NOTHING();
	wmark(2300);
	RESULT(2, 0, 2000, 2);
	WATERMARK(2300);
	NOTHING();
	/* Cleanup 2499 > 2300: accepted; maxTs 1999 <= 2300: fires at once,
	 * with 1 element, not 3, as the first firing purged. */
	elem(2, 1, 1997);
	LATE_RESULT(2, 0, 2000, 1);
	NOTHING();
	QUIET_WATERMARK(6000);
	/* Cleanup 2499 <= 6000 and 1998 + 500 <= 6000. */
	elem(2, 1, 1998);
	SIDE(2, 1, 1998);
	NOTHING();
	QUIET_WATERMARK(7000);

	ck_assert_uint_eq(counters()->records_in, 4);
	ck_assert_uint_eq(counters()->records_accepted, 3);
	ck_assert_uint_eq(counters()->late_records_side_output, 1);
	ck_assert_uint_eq(counters()->late_records_dropped, 0);
	ck_assert_uint_eq(counters()->windows_fired, 1);
	ck_assert_uint_eq(counters()->windows_fired_late, 1);
	ASSERT_BALANCED();
	ck_assert_uint_eq(wm_window_state_count(h.op), 0);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 0);
}
END_TEST

START_TEST(test_record_late_for_its_tumbling_window_goes_to_side_output)
{
	/* W-4: tumbling 2 s, L = 0, late side output. */
	open_tumbling(2000, 0, 0, false, true);
	elem(2, 1, 1000);
	QUIET_WATERMARK(1985);
	elem(2, 1, 1980); /* 1999 > 1985: kept */
	NOTHING();
	wmark(1999);
	RESULT(2, 0, 2000, 2);
	WATERMARK(1999);
	elem(2, 1, 1998); /* cleanup 1999 <= 1999 */
	SIDE(2, 1, 1998);
	elem(2, 1, 2001);
	NOTHING();
	QUIET_WATERMARK(2999);
	wmark(3999);
	RESULT(2, 2000, 4000, 1);
	WATERMARK(3999);
	NOTHING();

	ck_assert_uint_eq(counters()->records_in, 4);
	ck_assert_uint_eq(counters()->records_accepted, 3);
	ck_assert_uint_eq(counters()->late_records_side_output, 1);
	ck_assert_uint_eq(counters()->late_records_dropped, 0);
	ASSERT_BALANCED();
}
END_TEST

START_TEST(test_record_late_for_some_sliding_windows_stays_in_the_others)
{
	/* W-5: sliding 3 s / 1 s, L = 0, late side output. */
	open_sliding(3000, 1000, 0, 0, false, true);
	elem(2, 1, 1000);
	wmark(1999);
	RESULT(2, -1000, 2000, 1);
	WATERMARK(1999);
	elem(2, 1, 2000);
	wmark(3000);
	RESULT(2, 0, 3000, 2);
	WATERMARK(3000);
	elem(1, 1, 3001);
	/* Late for [0,3000) only: silently left out of it. */
	elem(2, 1, 2400);
	elem(2, 1, 2400);
	elem(1, 1, 3001);
	elem(2, 1, 3900);
	NOTHING();
	ck_assert_uint_eq(counters()->late_records_side_output, 0);
	ck_assert_uint_eq(counters()->late_records_dropped, 0);
	wmark(6000);
	RESULT(1, 1000, 4000, 2);
	RESULT(2, 1000, 4000, 5);
	RESULT(1, 2000, 5000, 2);
	RESULT(2, 2000, 5000, 4);
	RESULT(1, 3000, 6000, 2);
	RESULT(2, 3000, 6000, 1);
	WATERMARK(6000);
	NOTHING();
	/* All three windows late now. */
	elem(1, 1, 3001);
	SIDE(1, 1, 3001);
	NOTHING();
	QUIET_WATERMARK(25000);

	ck_assert_uint_eq(counters()->records_in, 8);
	ck_assert_uint_eq(counters()->records_accepted, 7);
	ck_assert_uint_eq(counters()->late_records_side_output, 1);
	ck_assert_uint_eq(counters()->windows_fired, 8);
	ASSERT_BALANCED();
	ck_assert_uint_eq(wm_window_state_count(h.op), 0);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 0);
}
END_TEST

START_TEST(test_cleanup_timer_clears_state_after_allowed_lateness)
{
	/* W-10: tumbling 2 s, L = 1. */
	open_tumbling(2000, 0, 1, false, false);
	elem(2, 1, 1000);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 2);
	QUIET_WATERMARK(1599);
	wmark(1999);
	RESULT(2, 0, 2000, 1);
	WATERMARK(1999);
	NOTHING();
	/* Fired, not purged: the state waits for the cleanup timer. */
	ck_assert_uint_eq(wm_window_state_count(h.op), 1);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 1);
	QUIET_WATERMARK(2000);
	ck_assert_uint_eq(wm_window_state_count(h.op), 0);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 0);
	QUIET_WATERMARK(5000);
	ASSERT_BALANCED();
}
END_TEST

START_TEST(test_cleanup_time_overflow_keeps_window_until_it_fires)
{
	/* W-12: tumbling 1000 ms, L = 2000, record at MAX - 1750. */
	open_tumbling(1000, 0, 2000, false, false);
	elem(2, 1, WM_TS_MAX - 1750);
	/* Only the trigger timer: the cleanup time saturated at MAX. */
	ck_assert_uint_eq(wm_window_timer_count(h.op), 1);
	QUIET_WATERMARK(WM_TS_MAX - 1500);
	ck_assert_uint_eq(wm_window_state_count(h.op), 1);
	wmark(WM_TS_MAX - 808);
	RESULT(2, WM_TS_MAX - 1807, WM_TS_MAX - 807, 1);
	WATERMARK(WM_TS_MAX - 808);
	NOTHING();
	/* Never cleaned: no cleanup timer exists, even at MAX. */
	QUIET_WATERMARK(WM_TS_MAX);
	ck_assert_uint_eq(wm_window_state_count(h.op), 1);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 0);
}
END_TEST

START_TEST(test_record_before_window_end_watermark_is_accepted)
{
	/* W-21: W = 1998, record at 1500 is accepted and waits for 1999. */
	open_tumbling(2000, 0, 0, false, false);
	QUIET_WATERMARK(1998);
	elem(1, 1, 1500);
	NOTHING();
	ck_assert_uint_eq(counters()->records_accepted, 1);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 1);
	wmark(1999);
	RESULT(1, 0, 2000, 1);
	WATERMARK(1999);
	NOTHING();
}
END_TEST

START_TEST(test_record_at_window_end_watermark_is_dropped)
{
	/* W-21, second half, without and with a side output. */
	open_tumbling(2000, 0, 0, false, false);
	QUIET_WATERMARK(1999);
	elem(1, 1, 1500);
	NOTHING();
	ck_assert_uint_eq(counters()->late_records_dropped, 1);
	ck_assert_uint_eq(counters()->records_accepted, 0);
	ck_assert_uint_eq(wm_window_state_count(h.op), 0);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 0);
	ASSERT_BALANCED();
	close_op();

	open_tumbling(2000, 0, 0, false, true);
	QUIET_WATERMARK(1999);
	elem(1, 7, 1500);
	SIDE(1, 7, 1500);
	NOTHING();
	ck_assert_uint_eq(counters()->late_records_dropped, 0);
	ck_assert_uint_eq(counters()->late_records_side_output, 1);
	ASSERT_BALANCED();
}
END_TEST

/* ---- tcase lateness ---- */

START_TEST(test_late_element_refires_full_window)
{
	open_tumbling(2000, 0, 1000, false, false);
	elem(1, 1, 500);
	elem(1, 1, 1500);
	wmark(1999);
	RESULT(1, 0, 2000, 2);
	WATERMARK(1999);
	/* Each late element fires the whole window again. */
	elem(1, 1, 1000);
	LATE_RESULT(1, 0, 2000, 3);
	elem(1, 1, 100);
	LATE_RESULT(1, 0, 2000, 4);
	NOTHING();
	/* Cleanup at 2999 drops everything, silently. */
	QUIET_WATERMARK(2999);
	ck_assert_uint_eq(wm_window_state_count(h.op), 0);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 0);
	/* Now late for good, and counted since there is no side output. */
	elem(1, 1, 200);
	NOTHING();
	ck_assert_uint_eq(counters()->late_records_dropped, 1);
	ck_assert_uint_eq(counters()->windows_fired, 1);
	ck_assert_uint_eq(counters()->windows_fired_late, 2);
	ASSERT_BALANCED();
}
END_TEST

START_TEST(test_late_window_without_state_fires_new_contents_only)
{
	/* The first element of a window already past its maxTs (but within
	 * lateness) creates it and fires it at once; no trigger timer. */
	open_tumbling(1000, 0, 5000, false, false);
	QUIET_WATERMARK(1500);
	elem(3, 1, 200);
	LATE_RESULT(3, 0, 1000, 1);
	NOTHING();
	ck_assert_uint_eq(wm_window_timer_count(h.op), 1); /* cleanup */
	QUIET_WATERMARK(5998);
	ck_assert_uint_eq(wm_window_state_count(h.op), 1);
	QUIET_WATERMARK(5999);
	ck_assert_uint_eq(wm_window_state_count(h.op), 0);
}
END_TEST

START_TEST(test_sliding_late_firings_come_latest_start_first)
{
	open_sliding(3000, 1000, 0, 5000, false, false);
	elem(1, 1, 500);
	wmark(2999);
	RESULT(1, -2000, 1000, 1);
	RESULT(1, -1000, 2000, 1);
	RESULT(1, 0, 3000, 1);
	WATERMARK(2999);
	elem(1, 1, 600);
	LATE_RESULT(1, 0, 3000, 2);
	LATE_RESULT(1, -1000, 2000, 2);
	LATE_RESULT(1, -2000, 1000, 2);
	NOTHING();
}
END_TEST

START_TEST(test_purging_trigger_empties_window_when_it_fires)
{
	open_tumbling(1000, 0, 3000, true, false);
	elem(1, 1, 10);
	elem(1, 1, 20);
	wmark(999);
	RESULT(1, 0, 1000, 2);
	WATERMARK(999);
	/* Purged at once, though the cleanup timer is still pending. */
	ck_assert_uint_eq(wm_window_state_count(h.op), 0);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 1);
	elem(1, 1, 30);
	LATE_RESULT(1, 0, 1000, 1);
	elem(1, 1, 40);
	LATE_RESULT(1, 0, 1000, 1);
	NOTHING();
	ck_assert_uint_eq(wm_window_state_count(h.op), 0);
	QUIET_WATERMARK(3999);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 0);
}
END_TEST

START_TEST(test_element_lateness_uses_allowed_lateness)
{
	/* isElementLate: ts + L <= W. With L = 100 a record of window
	 * [0,1000) is late once W >= 1099, and the window is gone too. */
	open_tumbling(1000, 0, 100, false, true);
	QUIET_WATERMARK(1098);
	elem(1, 1, 999);
	LATE_RESULT(1, 0, 1000, 1);
	QUIET_WATERMARK(1099);
	elem(1, 1, 999);
	SIDE(1, 1, 999);
	NOTHING();
	ASSERT_BALANCED();
}
END_TEST

/* ---- tcase order: which results a watermark produces, in which order */

START_TEST(test_one_watermark_fires_many_windows_in_timer_order)
{
	open_tumbling(10, 0, 0, false, false);
	/* Keys 3, 1, 2 over windows [0,10) .. [40,50), scrambled. */
	elem(3, 1, 45);
	elem(1, 1, 5);
	elem(2, 1, 25);
	elem(3, 1, 5);
	elem(1, 1, 45);
	elem(2, 1, 5);
	elem(1, 1, 25);
	elem(3, 1, 15);
	elem(2, 1, 6);
	wmark(1000);
	RESULT(1, 0, 10, 1);
	RESULT(2, 0, 10, 2);
	RESULT(3, 0, 10, 1);
	RESULT(3, 10, 20, 1);
	RESULT(1, 20, 30, 1);
	RESULT(2, 20, 30, 1);
	RESULT(1, 40, 50, 1);
	RESULT(3, 40, 50, 1);
	WATERMARK(1000);
	NOTHING();
	ck_assert_uint_eq(counters()->windows_fired, 8);
}
END_TEST

START_TEST(test_max_watermark_fires_everything_and_cleans_up)
{
	open_sliding(100, 50, 0, 1000, false, false);
	elem(1, 1, 10);
	elem(2, 1, 70);
	elem(1, 1, 1000000);
	wmark(WM_TS_MAX);
	RESULT(1, -50, 50, 1);
	RESULT(1, 0, 100, 1);
	RESULT(2, 0, 100, 1);
	RESULT(2, 50, 150, 1);
	RESULT(1, 999950, 1000050, 1);
	RESULT(1, 1000000, 1000100, 1);
	WATERMARK(WM_TS_MAX);
	NOTHING();
	ck_assert_uint_eq(wm_window_state_count(h.op), 0);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 0);
}
END_TEST

START_TEST(test_negative_timestamps_fire_in_order)
{
	open_tumbling(1000, 0, 0, false, false);
	elem(1, 1, -1);
	elem(1, 1, -1000);
	elem(1, 1, -1001);
	elem(1, 1, 0);
	QUIET_WATERMARK(-1002);
	wmark(-1);
	RESULT(1, -2000, -1000, 1);
	RESULT(1, -1000, 0, 2);
	WATERMARK(-1);
	wmark(999);
	RESULT(1, 0, 1000, 1);
	WATERMARK(999);
	NOTHING();
}
END_TEST

START_TEST(test_offset_shifts_window_bounds)
{
	open_tumbling(1000, -100, 0, false, false);
	elem(1, 1, 0);
	elem(1, 1, 899);
	elem(1, 1, 900);
	wmark(899);
	RESULT(1, -100, 900, 2);
	WATERMARK(899);
	wmark(1899);
	RESULT(1, 900, 1900, 1);
	WATERMARK(1899);
	NOTHING();
}
END_TEST

START_TEST(test_lower_watermark_rearms_window_like_flink)
{
	/* Flink does not guard against a watermark going back (the valve
	 * does): the window's timer is registered again, and the window fires
	 * once more, on time, when the watermark returns. */
	open_tumbling(2000, 0, 1000, false, false);
	elem(1, 1, 500);
	wmark(2000);
	RESULT(1, 0, 2000, 1);
	WATERMARK(2000);
	QUIET_WATERMARK(1500);
	elem(1, 1, 1800);
	NOTHING();
	wmark(2000);
	RESULT(1, 0, 2000, 2);
	WATERMARK(2000);
	NOTHING();
	ck_assert_uint_eq(counters()->windows_fired, 2);
	ck_assert_uint_eq(counters()->windows_fired_late, 0);
}
END_TEST

START_TEST(test_status_is_forwarded_unchanged)
{
	open_tumbling(1000, 0, 0, false, false);
	wm_window_process_status(h.op, WM_STATUS_IDLE, &h.out);
	wm_window_process_status(h.op, WM_STATUS_ACTIVE, &h.out);
	ck_assert_uint_eq(h.n, 2);
	ck_assert_int_eq(h.ev[0].kind, EV_STATUS);
	ck_assert_int_eq(h.ev[0].status, WM_STATUS_IDLE);
	ck_assert_int_eq(h.ev[1].kind, EV_STATUS);
	ck_assert_int_eq(h.ev[1].status, WM_STATUS_ACTIVE);
	ck_assert_int_eq(wm_window_watermark(h.op), WM_TS_MIN);
	wmark(5);
	ck_assert_int_eq(wm_window_watermark(h.op), 5);
}
END_TEST

/* ---- tcase aggregate ---- */

START_TEST(test_aggregates_count_sum_min_max_avg)
{
	const struct wm_window_result *r;

	open_tumbling(1000, 0, 0, false, false);
	elem(1, 5, 1);
	elem(1, -3, 2);
	elem(1, 10, 3);
	elem(1, 0, 4);
	elem(2, -7, 5);
	wmark(999);
	ck_assert_uint_eq(h.n, 3);
	r = &h.ev[0].r;
	ck_assert_int_eq(h.ev[0].kind, EV_RESULT);
	ck_assert_int_eq(r->key, 1);
	ck_assert_int_eq(r->count, 4);
	ck_assert_int_eq(r->sum, 12);
	ck_assert_int_eq(r->min, -3);
	ck_assert_int_eq(r->max, 10);
	ck_assert_double_eq(wm_window_result_avg(r), 3.0);
	ck_assert_int_eq(r->timestamp, 999);
	ck_assert(!r->late_firing);
	r = &h.ev[1].r;
	ck_assert_int_eq(r->key, 2);
	ck_assert_int_eq(r->count, 1);
	ck_assert_int_eq(r->min, -7);
	ck_assert_int_eq(r->max, -7);
	ck_assert_double_eq(wm_window_result_avg(r), -7.0);
}
END_TEST

START_TEST(test_sum_wraps_like_java_long)
{
	open_tumbling(1000, 0, 0, false, false);
	elem(1, INT64_MAX, 1);
	elem(1, 1, 2);
	wmark(999);
	ck_assert_int_eq(h.ev[0].kind, EV_RESULT);
	ck_assert_int_eq(h.ev[0].r.sum, INT64_MIN);
	ck_assert_int_eq(h.ev[0].r.min, 1);
	ck_assert_int_eq(h.ev[0].r.max, INT64_MAX);
}
END_TEST

/* ---- tcase accounting: every record ends somewhere ---- */

START_TEST(test_record_without_timestamp_is_rejected_and_counted)
{
	struct wm_record rec = {.ts = WM_TS_MIN, .key = 1, .value = 1};

	open_tumbling(1000, 0, 0, false, true);
	ck_assert_int_eq(wm_window_process_element(h.op, &rec, &h.out),
			 -EINVAL);
	NOTHING();
	ck_assert_uint_eq(counters()->records_in, 1);
	ck_assert_uint_eq(counters()->records_rejected, 1);
	ck_assert_uint_eq(wm_window_state_count(h.op), 0);
	ASSERT_BALANCED();
}
END_TEST

START_TEST(test_wrapped_window_end_counts_record_as_ignored)
{
	/* ts = MAX - 5 lies in [MAX - 807, MAX + 193), whose end wraps to
	 * MIN + 192: maxTs = MIN + 191. Java does the same. */
	open_tumbling(1000, 0, 0, false, true);
	elem(1, 1, WM_TS_MAX - 5);
	NOTHING();
	ck_assert_uint_eq(counters()->records_accepted, 1);
	wmark(0);
	RESULT(1, WM_TS_MAX - 807, WM_TS_MIN + 192, 1);
	WATERMARK(0);
	/* Now the window is late but the record (ts + 0 > 0) is not: Flink
	 * loses it without a trace; we count it. */
	elem(1, 1, WM_TS_MAX - 5);
	NOTHING();
	ck_assert_uint_eq(counters()->records_ignored, 1);
	ck_assert_uint_eq(counters()->late_records_side_output, 0);
	ASSERT_BALANCED();
}
END_TEST

/*
 * Memory runs out while a record enters its 100,000 sliding windows (size
 * 100 s, slide 1 ms), some of which fire at once (late firings: the
 * watermark passed their end, not their allowed lateness): the record goes
 * into none of them, nothing is emitted or counted, and the same record is
 * taken whole once memory is back. It used to go into the first few
 * thousand windows, firing some, before -ENOMEM.
 */
START_TEST(test_out_of_memory_leaves_record_in_no_window)
{
	struct wm_record rec = {.ts = 50000, .key = 7, .value = 1};
	size_t results = 0;

	open_sliding(100000, 1, 0, 20000, false, false);
	wmark(60000);
	h.next = h.n;
	wm_alloc_limit = 1 << 20;
	ck_assert_int_eq(wm_window_process_element(h.op, &rec, &h.out),
			 -ENOMEM);
	wm_alloc_limit = SIZE_MAX;
	NOTHING();
	ck_assert_uint_eq(wm_window_state_count(h.op), 0);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 0);
	ck_assert_uint_eq(counters()->records_in, 0);

	ck_assert_int_eq(wm_window_process_element(h.op, &rec, &h.out), 0);
	ck_assert_uint_eq(wm_window_state_count(h.op), 100000);
	for (size_t i = h.next; i < h.n; i++)
		results += h.ev[i].kind == EV_RESULT && h.ev[i].r.late_firing;
	/* Windows whose maxTs the watermark passed: ends 50001..60001. */
	ck_assert_uint_eq(results, 10001);
	ck_assert_uint_eq(counters()->records_accepted, 1);
	h.next = h.n;
	ASSERT_BALANCED();
}
END_TEST

START_TEST(test_invalid_configuration_is_rejected)
{
	struct wm_window_config conf;
	const char *why;

	memset(&conf, 0, sizeof(conf));
	why = NULL;
	errno = 0;
	ck_assert_ptr_null(wm_window_new(&conf, &why));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_nonnull(why);

	ck_assert_int_eq(wm_window_tumbling(&conf.assigner, 1000, 0, &why), 0);
	conf.allowed_lateness = -1;
	why = NULL;
	errno = 0;
	ck_assert_ptr_null(wm_window_new(&conf, &why));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_nonnull(why);

	conf.allowed_lateness = 0;
	h.op = wm_window_new(&conf, &why);
	ck_assert_ptr_nonnull(h.op);
}
END_TEST

START_TEST(test_many_keys_grow_state_table)
{
	enum { KEYS = 20000 };

	open_tumbling(1000, 0, 0, false, false);
	for (int k = 0; k < KEYS; k++) {
		elem(k, k, 10);
		elem(k, 1, 20);
	}
	ck_assert_uint_eq(wm_window_state_count(h.op), KEYS);
	ck_assert_uint_eq(wm_window_timer_count(h.op), KEYS);
	wmark(999);
	ck_assert_uint_eq(h.n, KEYS + 1);
	for (int k = 0; k < KEYS; k++) {
		ck_assert_int_eq(h.ev[k].r.key, k);
		ck_assert_int_eq(h.ev[k].r.count, 2);
		ck_assert_int_eq(h.ev[k].r.sum, k + 1);
	}
	ck_assert_uint_eq(wm_window_state_count(h.op), 0);
	ASSERT_BALANCED();
}
END_TEST

/* ---- tcase random: against independent models ---- */

struct agg {
	int64_t key;
	int64_t start;
	int64_t end;
	int64_t count, sum, min, max;
	bool pending; /* lateness model: an on-time firing is due */
	bool live;
};

static int64_t
floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	if (a % b != 0 && (a < 0) != (b < 0))
		q--;
	return q;
}

/* Window starts of ts, latest first, by floor division (no Java %). */
static int
model_starts(int64_t size, int64_t slide, int64_t offset, int64_t ts,
	     int64_t *starts)
{
	int n = 0;

	for (int64_t s = floor_div(ts - offset, slide) * slide + offset;
	     s + size > ts; s -= slide)
		starts[n++] = s;
	return n;
}

static int
agg_cmp(const void *pa, const void *pb)
{
	const struct agg *a = pa, *b = pb;

	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return 0;
}

static void
agg_add(struct agg *a, int64_t value)
{
	if (a->count == 0 || value < a->min)
		a->min = value;
	if (a->count == 0 || value > a->max)
		a->max = value;
	a->count++;
	a->sum += value;
}

static void
expect_agg(int line, const struct agg *a, bool late)
{
	struct ev want = {.kind = EV_RESULT};

	want.r.key = a->key;
	want.r.window.start = a->start;
	want.r.window.end = a->end;
	want.r.timestamp = a->end - 1;
	want.r.count = a->count;
	want.r.sum = a->sum;
	want.r.min = a->min;
	want.r.max = a->max;
	want.r.late_firing = late;
	expect_ev(line, &want);
	ck_assert_int_eq(h.ev[h.next - 1].r.min, a->min);
	ck_assert_int_eq(h.ev[h.next - 1].r.max, a->max);
}

/*
 * L = 0 and watermarks that never pass a record yet to come: every record
 * is on time, so the output must be the batch aggregation per (key,
 * window), in (maxTs, key, start) order.
 */
static void
random_matches_batch(unsigned seed, bool sliding)
{
	enum { N = 3000 };
	int64_t ts[N], suffix_min[N + 1], size, slide, offset, starts[64];
	int64_t keys[N], values[N];
	struct agg *batch;
	size_t nbatch = 0;
	wm_ts_t last_wm = WM_TS_MIN;

	srandom(seed);
	size = 1 + random() % 500;
	slide = sliding ? size / (1 + random() % 6) : size;
	if (slide == 0)
		slide = 1;
	offset = random() % slide * (random() % 2 ? 1 : -1);
	if (sliding)
		open_sliding(size, slide, offset, 0, false, false);
	else
		open_tumbling(size, offset, 0, false, false);

	/* Timestamps roughly ascending with local disorder, some negative. */
	for (int i = 0; i < N; i++)
		ts[i] = -5000 + i * 5 + random() % 50;
	for (int i = 0; i < N; i++) {
		keys[i] = 1 + random() % 5;
		values[i] = random() % 2001 - 1000;
	}
	suffix_min[N] = INT64_MAX;
	for (int i = N - 1; i >= 0; i--)
		suffix_min[i] =
			ts[i] < suffix_min[i + 1] ? ts[i] : suffix_min[i + 1];

	/* slide >= 1 and size <= 11 when slide is 1: at most 11 windows. */
	batch = calloc((size_t)N * 16, sizeof(*batch));
	ck_assert_ptr_nonnull(batch);
	for (int i = 0; i < N; i++) {
		int n = model_starts(size, slide, offset, ts[i], starts);

		ck_assert_int_le(n, 16);
		for (int j = 0; j < n; j++) {
			struct agg *a = &batch[nbatch++];

			a->key = keys[i];
			a->start = starts[j];
			a->end = starts[j] + size;
			a->count = 1;
			a->sum = a->min = a->max = values[i];
		}
	}
	qsort(batch, nbatch, sizeof(*batch), agg_cmp);
	{
		/* Merge equal (key, window) runs into one aggregate. */
		size_t out = 0;

		for (size_t i = 0; i < nbatch; i++) {
			if (out > 0 &&
			    agg_cmp(&batch[out - 1], &batch[i]) == 0) {
				struct agg *a = &batch[out - 1];

				a->count++;
				a->sum += batch[i].sum;
				if (batch[i].min < a->min)
					a->min = batch[i].min;
				if (batch[i].max > a->max)
					a->max = batch[i].max;
			} else {
				batch[out++] = batch[i];
			}
		}
		nbatch = out;
	}

	for (int i = 0; i < N; i++) {
		if (random() % 4 == 0) {
			wm_ts_t w = suffix_min[i] - 1 - random() % 3;

			if (w > last_wm) {
				wmark(w);
				last_wm = w;
			}
		}
		elem(keys[i], values[i], ts[i]);
	}
	wmark(WM_TS_MAX);

	for (size_t i = 0; i < nbatch; i++) {
		/* Skip forwarded watermarks between results. */
		while (h.next < h.n && h.ev[h.next].kind == EV_WATERMARK)
			h.next++;
		expect_agg(__LINE__, &batch[i], false);
	}
	while (h.next < h.n && h.ev[h.next].kind == EV_WATERMARK)
		h.next++;
	NOTHING();
	ck_assert_int_eq(h.ev[h.n - 1].kind, EV_WATERMARK);
	ck_assert_int_eq(h.ev[h.n - 1].watermark, WM_TS_MAX);
	ck_assert_uint_eq(counters()->records_in, N);
	ck_assert_uint_eq(counters()->records_accepted, N);
	ck_assert_uint_eq(counters()->windows_fired, nbatch);
	ck_assert_uint_eq(counters()->windows_fired_late, 0);
	ASSERT_BALANCED();
	ck_assert_uint_eq(wm_window_state_count(h.op), 0);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 0);
	free(batch);
	close_op();
}

START_TEST(test_random_tumbling_matches_batch_aggregation)
{
	for (unsigned seed = 1; seed <= 20; seed++)
		random_matches_batch(seed, false);
}
END_TEST

START_TEST(test_random_sliding_matches_batch_aggregation)
{
	for (unsigned seed = 100; seed <= 120; seed++)
		random_matches_batch(seed, true);
}
END_TEST

/* The lateness model: windows as a flat list, searched linearly. */
struct model {
	struct agg *w;
	size_t n, cap;
	int64_t size, slide, offset, lateness;
	bool side_output;
	uint64_t accepted, side, dropped;
	struct ev *want; /* the expected output */
	size_t nwant, capwant;
};

static struct ev *
model_expect(struct model *m, enum ev_kind kind)
{
	if (m->nwant == m->capwant) {
		m->capwant = m->capwant ? 2 * m->capwant : 256;
		m->want = realloc(m->want, m->capwant * sizeof(*m->want));
		ck_assert_ptr_nonnull(m->want);
	}
	memset(&m->want[m->nwant], 0, sizeof(*m->want));
	m->want[m->nwant].kind = kind;
	return &m->want[m->nwant++];
}

static void
model_expect_result(struct model *m, const struct agg *a, bool late)
{
	struct ev *e = model_expect(m, EV_RESULT);

	e->r.key = a->key;
	e->r.window.start = a->start;
	e->r.window.end = a->end;
	e->r.timestamp = a->end - 1;
	e->r.count = a->count;
	e->r.sum = a->sum;
	e->r.min = a->min;
	e->r.max = a->max;
	e->r.late_firing = late;
}

static struct agg *
model_window(struct model *m, int64_t key, int64_t start)
{
	struct agg *a;

	for (size_t i = 0; i < m->n; i++)
		if (m->w[i].live && m->w[i].key == key &&
		    m->w[i].start == start)
			return &m->w[i];
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 256;
		m->w = realloc(m->w, m->cap * sizeof(*m->w));
		ck_assert_ptr_nonnull(m->w);
	}
	a = &m->w[m->n++];
	memset(a, 0, sizeof(*a));
	a->key = key;
	a->start = start;
	a->end = start + m->size;
	a->live = true;
	return a;
}

static void
model_element(struct model *m, int64_t key, int64_t value, int64_t ts,
	      wm_ts_t wm)
{
	int64_t starts[64];
	int n = model_starts(m->size, m->slide, m->offset, ts, starts);
	bool any = false;

	for (int j = 0; j < n; j++) {
		int64_t max_ts = starts[j] + m->size - 1;
		struct agg *a;

		if (max_ts + m->lateness <= wm)
			continue;
		any = true;
		a = model_window(m, key, starts[j]);
		agg_add(a, value);
		if (max_ts <= wm)
			model_expect_result(m, a, true);
		else
			a->pending = true;
	}
	if (any) {
		m->accepted++;
	} else {
		ck_assert(ts + m->lateness <= wm);
		if (m->side_output) {
			struct ev *e = model_expect(m, EV_LATE);

			e->rec.ts = ts;
			e->rec.key = key;
			e->rec.value = value;
			m->side++;
		} else {
			m->dropped++;
		}
	}
}

static void
model_watermark(struct model *m, wm_ts_t wm)
{
	struct agg *due = calloc(m->n + 1, sizeof(*due));
	size_t ndue = 0, out = 0;

	ck_assert_ptr_nonnull(due);
	for (size_t i = 0; i < m->n; i++) {
		if (m->w[i].pending && m->w[i].end - 1 <= wm) {
			m->w[i].pending = false;
			due[ndue++] = m->w[i];
		}
	}
	qsort(due, ndue, sizeof(*due), agg_cmp);
	for (size_t i = 0; i < ndue; i++)
		model_expect_result(m, &due[i], false);
	/* Cleanup (never before the firing: maxTs <= cleanup time). */
	for (size_t i = 0; i < m->n; i++)
		if (m->w[i].end - 1 + m->lateness > wm)
			m->w[out++] = m->w[i];
	m->n = out;
	model_expect(m, EV_WATERMARK)->watermark = wm;
	free(due);
}

static void
random_matches_lateness_model(unsigned seed)
{
	struct model m;
	wm_ts_t wm = WM_TS_MIN;
	int records = 1500;

	memset(&m, 0, sizeof(m));
	srandom(seed);
	m.size = 50 + random() % 400;
	m.slide = m.size / (1 + random() % 4);
	m.offset = random() % m.slide * (random() % 2 ? 1 : -1);
	m.lateness = random() % 3 == 0 ? 0 : random() % 600;
	m.side_output = random() % 2;
	open_sliding(m.size, m.slide, m.offset, m.lateness, false,
		     m.side_output);

	for (int i = 0; i < records; i++) {
		int64_t ts = random() % 6000 - 3000;
		int64_t key = 1 + random() % 3;
		int64_t value = random() % 100 - 50;

		if (random() % 8 == 0) {
			wm_ts_t next = wm == WM_TS_MIN ? -3100 : wm;

			next += random() % 60;
			wmark(next);
			model_watermark(&m, next);
			wm = next;
		}
		elem(key, value, ts);
		model_element(&m, key, value, ts, wm);
	}
	wmark(WM_TS_MAX);
	model_watermark(&m, WM_TS_MAX);

	for (size_t i = 0; i < m.nwant; i++) {
		expect_ev(__LINE__, &m.want[i]);
		if (m.want[i].kind == EV_RESULT) {
			ck_assert_int_eq(h.ev[h.next - 1].r.min,
					 m.want[i].r.min);
			ck_assert_int_eq(h.ev[h.next - 1].r.max,
					 m.want[i].r.max);
		}
	}
	NOTHING();
	ck_assert_uint_eq(counters()->records_in, (uint64_t)records);
	ck_assert_uint_eq(counters()->records_accepted, m.accepted);
	ck_assert_uint_eq(counters()->late_records_side_output, m.side);
	ck_assert_uint_eq(counters()->late_records_dropped, m.dropped);
	ASSERT_BALANCED();
	ck_assert_uint_eq(wm_window_state_count(h.op), 0);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 0);
	free(m.w);
	free(m.want);
	close_op();
}

START_TEST(test_random_late_data_matches_lateness_model)
{
	for (unsigned seed = 500; seed < 540; seed++)
		random_matches_lateness_model(seed);
}
END_TEST

/* ---- tcase session: merging windows, doc/semantics.md section 7.10 ---- */

static void
open_session(int64_t gap, int64_t lateness, bool purging, bool side_output)
{
	struct wm_window_assigner a;
	const char *why;

	ck_assert_int_eq(wm_window_session(&a, gap, &why), 0);
	open_op(&a, lateness, purging, side_output);
}

static void
expect_result(int line, int64_t key, wm_ts_t start, wm_ts_t end, int64_t count,
	      int64_t sum, int64_t min, int64_t max, bool late)
{
	struct ev want = {.kind = EV_RESULT};

	want.r.key = key;
	want.r.window.start = start;
	want.r.window.end = end;
	want.r.timestamp = wm_ts_sub(end, 1);
	want.r.count = count;
	want.r.sum = sum;
	want.r.late_firing = late;
	expect_ev(line, &want);
	ck_assert_int_eq(h.ev[h.next - 1].r.min, min);
	ck_assert_int_eq(h.ev[h.next - 1].r.max, max);
}

/* Nothing left: no state, no timer, no session. */
#define ASSERT_EMPTY()                                                         \
	do {                                                                   \
		ck_assert_uint_eq(wm_window_state_count(h.op), 0);             \
		ck_assert_uint_eq(wm_window_timer_count(h.op), 0);             \
		ck_assert_uint_eq(wm_window_session_count(h.op), 0);           \
	} while (0)

/* W-6 to W-9 share the records up to W(14600). */
static void
feed_w6_prefix(void)
{
	elem(2, 1, 1000);
	QUIET_WATERMARK(1999);
	elem(2, 1, 2000); /* [1000,5000) */
	QUIET_WATERMARK(4998);
	elem(2, 1, 4500); /* extends the live session: [1000,7500) */
	elem(2, 1, 8500); /* a new session [8500,11500) */
	ck_assert_uint_eq(wm_window_session_count(h.op), 2);
	ck_assert_uint_eq(wm_window_state_count(h.op), 2);
	QUIET_WATERMARK(7400);
	elem(2, 1, 7000); /* [7000,10000) bridges both: [1000,11500) */
	NOTHING();
	ck_assert_uint_eq(wm_window_session_count(h.op), 1);
	ck_assert_uint_eq(wm_window_state_count(h.op), 1);
}

START_TEST(test_session_late_record_goes_to_side_output)
{
	/* W-6: gap 3 s, L = 0, late side output. */
	open_session(3000, 0, false, true);
	feed_w6_prefix();
	/* The trigger timer of the merged session, and nothing else: the
	 * absorbed windows' timers were deleted (L = 0: cleanup timer ==
	 * trigger timer). */
	ck_assert_uint_eq(wm_window_timer_count(h.op), 1);
	wmark(11501);
	RESULT(2, 1000, 11500, 5);
	WATERMARK(11501);
	NOTHING();
	ASSERT_EMPTY();
	elem(2, 1, 11600);
	wmark(14600);
	RESULT(2, 11600, 14600, 1);
	WATERMARK(14600);
	NOTHING();
	/* [10000,13000) is late and merges with nothing: the session of
	 * 11600 is cleaned already. */
	elem(2, 1, 10000);
	SIDE(2, 1, 10000);
	NOTHING();
	ASSERT_EMPTY();
	elem(2, 1, 14500);
	wmark(20000);
	RESULT(2, 14500, 17500, 1);
	WATERMARK(20000);
	NOTHING();
	QUIET_WATERMARK(WM_TS_MAX);

	ck_assert_uint_eq(counters()->records_in, 8);
	ck_assert_uint_eq(counters()->records_accepted, 7);
	ck_assert_uint_eq(counters()->late_records_side_output, 1);
	ck_assert_uint_eq(counters()->late_records_dropped, 0);
	ck_assert_uint_eq(counters()->windows_fired, 3);
	ck_assert_uint_eq(counters()->windows_fired_late, 0);
	ASSERT_BALANCED();
	ASSERT_EMPTY();
}
END_TEST

START_TEST(test_session_late_record_merges_into_live_session)
{
	/* W-7: as W-6 with L = 10. */
	open_session(3000, 10, false, true);
	feed_w6_prefix();
	wmark(11501);
	RESULT(2, 1000, 11500, 5);
	WATERMARK(11501);
	NOTHING();
	/* Fired, kept until its cleanup at 11509. */
	ck_assert_uint_eq(wm_window_session_count(h.op), 1);
	ck_assert_uint_eq(wm_window_state_count(h.op), 1);
	elem(2, 1, 11600);
	wmark(14600);
	RESULT(2, 11600, 14600, 1);
	WATERMARK(14600);
	NOTHING();
	/* [11600,14600) lives until 14609: [10000,13000) merges into it,
	 * and the result, past its maxTs, fires at once in full. */
	elem(2, 1, 10000);
	LATE_RESULT(2, 10000, 14600, 2);
	NOTHING();
	elem(2, 1, 14500); /* [10000,17500) */
	NOTHING();
	wmark(20000);
	RESULT(2, 10000, 17500, 3);
	WATERMARK(20000);
	NOTHING();
	ASSERT_EMPTY();
	QUIET_WATERMARK(WM_TS_MAX);

	ck_assert_uint_eq(counters()->records_in, 8);
	ck_assert_uint_eq(counters()->records_accepted, 8);
	ck_assert_uint_eq(counters()->late_records_side_output, 0);
	ck_assert_uint_eq(counters()->windows_fired, 3);
	ck_assert_uint_eq(counters()->windows_fired_late, 1);
	ASSERT_BALANCED();
	ASSERT_EMPTY();
}
END_TEST

START_TEST(test_session_purging_trigger_late_merge_has_only_new_element)
{
	/* W-8: as W-7 with PurgingTrigger. */
	open_session(3000, 10, true, true);
	feed_w6_prefix();
	wmark(11501);
	RESULT(2, 1000, 11500, 5);
	WATERMARK(11501);
	/* Purged, but the session stays until its cleanup timer. */
	ck_assert_uint_eq(wm_window_state_count(h.op), 0);
	ck_assert_uint_eq(wm_window_session_count(h.op), 1);
	elem(2, 1, 11600);
	wmark(14600);
	RESULT(2, 11600, 14600, 1);
	WATERMARK(14600);
	NOTHING();
	elem(2, 1, 10000);
	LATE_RESULT(2, 10000, 14600, 1);
	NOTHING();
	elem(2, 1, 14500);
	wmark(20000);
	RESULT(2, 10000, 17500, 1);
	WATERMARK(20000);
	NOTHING();
	ASSERT_EMPTY();

	ck_assert_uint_eq(counters()->records_accepted, 8);
	ck_assert_uint_eq(counters()->late_records_side_output, 0);
	ASSERT_BALANCED();
}
END_TEST

START_TEST(test_session_huge_lateness_merges_both_sessions)
{
	/* W-9: gap 3 s, L = 10000. */
	open_session(3000, 10000, false, true);
	feed_w6_prefix();
	wmark(11501);
	RESULT(2, 1000, 11500, 5);
	WATERMARK(11501);
	elem(2, 1, 11600);
	wmark(14600);
	RESULT(2, 11600, 14600, 1);
	WATERMARK(14600);
	NOTHING();
	ck_assert_uint_eq(wm_window_session_count(h.op), 2);
	/* [10000,13000) bridges [1000,11500) and [11600,14600), both alive
	 * (cleanup 21499 and 24599). */
	elem(2, 1, 10000);
	LATE_RESULT(2, 1000, 14600, 7);
	NOTHING();
	ck_assert_uint_eq(wm_window_session_count(h.op), 1);
	ck_assert_uint_eq(wm_window_state_count(h.op), 1);
	/* Only the cleanup timer of [1000,14600): its trigger fired. */
	ck_assert_uint_eq(wm_window_timer_count(h.op), 1);
	elem(2, 1, 14500);
	wmark(20000);
	RESULT(2, 1000, 17500, 8);
	WATERMARK(20000);
	NOTHING();
	ck_assert_uint_eq(wm_window_session_count(h.op), 1);
	/* Cleanup at 17499 + 10000. */
	QUIET_WATERMARK(27498);
	ck_assert_uint_eq(wm_window_session_count(h.op), 1);
	QUIET_WATERMARK(27499);
	ASSERT_EMPTY();

	ck_assert_uint_eq(counters()->records_accepted, 8);
	ck_assert_uint_eq(counters()->windows_fired, 3);
	ck_assert_uint_eq(counters()->windows_fired_late, 1);
	ASSERT_BALANCED();
}
END_TEST

START_TEST(test_session_cleanup_timer_with_lateness)
{
	/* W-11: gap 3 s, L = 10. */
	open_session(3000, 10, false, false);
	elem(2, 1, 1000);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 2);
	wmark(4998);
	RESULT(2, 1000, 4000, 1);
	WATERMARK(4998);
	NOTHING();
	ASSERT_EMPTY();
	QUIET_WATERMARK(14600);
	ASSERT_BALANCED();
}
END_TEST

START_TEST(test_session_bridging_element_merges_three_windows)
{
	/* With a fixed gap an element's window can reach at most two
	 * existing sessions (they are >= gap long and apart); merging them
	 * and itself, twice, folds three sessions into one. */
	open_session(10, 0, false, false);
	elem(1, 1, 0);	/* [0,10) */
	elem(1, 2, 15); /* [15,25) */
	elem(1, 3, 30); /* [30,40) */
	ck_assert_uint_eq(wm_window_session_count(h.op), 3);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 3);
	elem(1, 4, 8); /* [8,18) bridges [0,10) and [15,25) */
	ck_assert_uint_eq(wm_window_session_count(h.op), 2);
	ck_assert_uint_eq(wm_window_state_count(h.op), 2);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 2);
	elem(1, 5, 24); /* [24,34) bridges [0,25) and [30,40) */
	ck_assert_uint_eq(wm_window_session_count(h.op), 1);
	ck_assert_uint_eq(wm_window_state_count(h.op), 1);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 1);
	QUIET_WATERMARK(38);
	wmark(39);
	expect_result(__LINE__, 1, 0, 40, 5, 15, 1, 5, false);
	WATERMARK(39);
	NOTHING();
	ASSERT_EMPTY();
	ASSERT_BALANCED();
}
END_TEST

START_TEST(test_session_keys_are_independent)
{
	open_session(100, 0, false, false);
	elem(1, 1, 0);
	elem(2, 10, 50);
	elem(1, 1, 60); /* key 1: [0,160) */
	elem(3, 5, 60);
	elem(2, 10, 120); /* key 2: [50,220) */
	ck_assert_uint_eq(wm_window_session_count(h.op), 3);
	wmark(WM_TS_MAX);
	/* Equal maxTs: key order. */
	expect_result(__LINE__, 1, 0, 160, 2, 2, 1, 1, false);
	expect_result(__LINE__, 3, 60, 160, 1, 5, 5, 5, false);
	expect_result(__LINE__, 2, 50, 220, 2, 20, 10, 10, false);
	WATERMARK(WM_TS_MAX);
	NOTHING();
	ASSERT_EMPTY();
}
END_TEST

START_TEST(test_session_element_inside_a_fired_session_refires_it)
{
	/* L = 100: an element inside a fired, uncleaned session refires it
	 * with everything (no merge, the session does not grow). */
	open_session(10, 100, false, true);
	elem(1, 1, 0);
	elem(1, 1, 5); /* [0,15) */
	wmark(20);
	RESULT(1, 0, 15, 2);
	WATERMARK(20);
	elem(1, 1, 3); /* [3,13) inside [0,15) */
	LATE_RESULT(1, 0, 15, 3);
	NOTHING();
	ck_assert_uint_eq(wm_window_session_count(h.op), 1);
	QUIET_WATERMARK(113);
	ck_assert_uint_eq(wm_window_session_count(h.op), 1);
	QUIET_WATERMARK(114); /* cleanup: 14 + 100 */
	ASSERT_EMPTY();
	/* Now late and alone: side output. */
	elem(1, 1, 3);
	SIDE(1, 1, 3);
	ASSERT_EMPTY();
	ASSERT_BALANCED();
}
END_TEST

START_TEST(test_session_merge_behind_watermark_is_refused_like_flink)
{
	/* L = MAX: cleanup times saturate, but Flink's merge check adds
	 * maxTs + L without saturation, wraps, and throws. We return -ERANGE,
	 * count the record as rejected and change nothing. */
	struct wm_record rec = {.ts = 105, .key = 1, .value = 1};

	open_session(10, WM_TS_MAX, false, true);
	elem(1, 1, 100); /* [100,110), no cleanup timer */
	ck_assert_uint_eq(wm_window_timer_count(h.op), 1);
	QUIET_WATERMARK(50);
	ck_assert_int_eq(wm_window_process_element(h.op, &rec, &h.out),
			 -ERANGE);
	NOTHING();
	ck_assert_uint_eq(counters()->records_rejected, 1);
	ck_assert_uint_eq(wm_window_session_count(h.op), 1);
	ck_assert_uint_eq(wm_window_state_count(h.op), 1);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 1);
	/* No merge, no check. */
	elem(1, 1, 500);
	ck_assert_uint_eq(wm_window_session_count(h.op), 2);
	wmark(WM_TS_MAX);
	RESULT(1, 100, 110, 1);
	RESULT(1, 500, 510, 1);
	WATERMARK(WM_TS_MAX);
	NOTHING();
	/* Cleanup time MAX: never cleaned, as W-12. */
	ck_assert_uint_eq(wm_window_session_count(h.op), 2);
	ck_assert_uint_eq(counters()->records_in, 3);
	ASSERT_BALANCED();
}
END_TEST

START_TEST(test_session_accepts_min_timestamp_like_flink)
{
	/* EventTimeSessionWindows does not check for "no timestamp". */
	open_session(10, 0, false, false);
	elem(1, 1, WM_TS_MIN);
	ck_assert_uint_eq(counters()->records_accepted, 1);
	wmark(WM_TS_MIN + 9);
	RESULT(1, WM_TS_MIN, WM_TS_MIN + 10, 1);
	WATERMARK(WM_TS_MIN + 9);
	NOTHING();
	ASSERT_EMPTY();
	ASSERT_BALANCED();
}
END_TEST

START_TEST(test_session_end_wrapping_past_max_is_late_at_once)
{
	/* [MAX - 5, MIN + 4): maxTs MIN + 3, late for any watermark >= it;
	 * the record itself is not late: counted as ignored (see W-12's
	 * tumbling twin). Before any watermark it is accepted. */
	open_session(10, 0, false, true);
	elem(1, 1, WM_TS_MAX - 5);
	ck_assert_uint_eq(counters()->records_accepted, 1);
	ck_assert_uint_eq(wm_window_session_count(h.op), 1);
	wmark(0);
	RESULT(1, WM_TS_MAX - 5, WM_TS_MIN + 4, 1);
	WATERMARK(0);
	ASSERT_EMPTY();
	elem(1, 1, WM_TS_MAX - 5);
	NOTHING();
	ck_assert_uint_eq(counters()->records_ignored, 1);
	ASSERT_EMPTY();
	ASSERT_BALANCED();
}
END_TEST

START_TEST(test_session_many_keys)
{
	enum { KEYS = 20000 };

	open_session(100, 0, false, false);
	for (int k = 0; k < KEYS; k++) {
		elem(k, k, 10);
		elem(k, 1, 20);
		elem(k, 1, 500);
	}
	ck_assert_uint_eq(wm_window_session_count(h.op), 2 * KEYS);
	ck_assert_uint_eq(wm_window_state_count(h.op), 2 * KEYS);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 2 * KEYS);
	wmark(119);
	ck_assert_uint_eq(h.n, KEYS + 1);
	for (int k = 0; k < KEYS; k++)
		if (h.ev[k].r.key != k || h.ev[k].r.count != 2 ||
		    h.ev[k].r.sum != k + 1 || h.ev[k].r.window.end != 120)
			ck_abort_msg("key %d: wrong result", k);
	ck_assert_uint_eq(wm_window_session_count(h.op), KEYS);
	wmark(WM_TS_MAX);
	ASSERT_EMPTY();
	ASSERT_BALANCED();
}
END_TEST

/*
 * Sessions by batch computation: per key, sort the records by timestamp
 * and merge [ts, ts + gap) while the next record starts at or before the
 * current end. With L = 0 and watermarks that stay below every record yet
 * to come by 2 (a session whose maxTs the watermark reached can never be
 * touched by a later record), the operator must produce exactly these, in
 * (maxTs, key, start) order.
 */
struct srec {
	int64_t key, ts, value;
};

static int
srec_cmp(const void *pa, const void *pb)
{
	const struct srec *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return 0;
}

static void
random_sessions_match_batch(unsigned seed)
{
	enum { N = 3000 };
	static struct srec recs[N], sorted[N];
	static int64_t suffix_min[N + 1];
	static struct agg batch[N];
	size_t nbatch = 0;
	wm_ts_t last_wm = WM_TS_MIN;
	int64_t gap;
	int keys;

	srandom(seed);
	gap = 1 + random() % 200;
	keys = 1 + random() % 6;
	open_session(gap, 0, false, false);
	for (int i = 0; i < N; i++) {
		/* Roughly ascending, local disorder, bursts and pauses. */
		recs[i].ts = -20000 + i * (random() % 3 ? 5 : 60) / 2 +
			     random() % 80;
		recs[i].key = 1 + random() % keys;
		recs[i].value = random() % 2001 - 1000;
	}
	suffix_min[N] = INT64_MAX;
	for (int i = N - 1; i >= 0; i--)
		suffix_min[i] = recs[i].ts < suffix_min[i + 1]
					? recs[i].ts
					: suffix_min[i + 1];

	memcpy(sorted, recs, sizeof(recs));
	qsort(sorted, N, sizeof(sorted[0]), srec_cmp);
	for (int i = 0; i < N; i++) {
		struct agg *a = nbatch > 0 ? &batch[nbatch - 1] : NULL;

		if (a != NULL && a->key == sorted[i].key &&
		    sorted[i].ts <= a->end) {
			if (sorted[i].ts + gap > a->end)
				a->end = sorted[i].ts + gap;
		} else {
			a = &batch[nbatch++];
			memset(a, 0, sizeof(*a));
			a->key = sorted[i].key;
			a->start = sorted[i].ts;
			a->end = sorted[i].ts + gap;
		}
		agg_add(a, sorted[i].value);
	}
	qsort(batch, nbatch, sizeof(batch[0]), agg_cmp);

	for (int i = 0; i < N; i++) {
		if (random() % 4 == 0) {
			wm_ts_t w = suffix_min[i] - 2 - random() % 3;

			if (w > last_wm) {
				wmark(w);
				last_wm = w;
			}
		}
		elem(recs[i].key, recs[i].value, recs[i].ts);
	}
	wmark(WM_TS_MAX);

	for (size_t i = 0; i < nbatch; i++) {
		while (h.next < h.n && h.ev[h.next].kind == EV_WATERMARK)
			h.next++;
		expect_agg(__LINE__, &batch[i], false);
	}
	while (h.next < h.n && h.ev[h.next].kind == EV_WATERMARK)
		h.next++;
	NOTHING();
	ck_assert_uint_eq(counters()->records_in, N);
	ck_assert_uint_eq(counters()->records_accepted, N);
	ck_assert_uint_eq(counters()->windows_fired, nbatch);
	ck_assert_uint_eq(counters()->windows_fired_late, 0);
	ASSERT_BALANCED();
	ASSERT_EMPTY();
	close_op();
}

START_TEST(test_random_sessions_match_batch_sessions)
{
	for (unsigned seed = 1; seed <= 30; seed++)
		random_sessions_match_batch(seed);
}
END_TEST

/*
 * Late data, lateness, purging and side output at random: no model of
 * the output, but the invariants: every record accounted for, results
 * with contents, within their session, never a result for a session
 * already cleaned, and nothing left after MAX.
 */
static void
random_sessions_keep_invariants(unsigned seed)
{
	enum { N = 2000 };
	wm_ts_t wm = -1000;
	int64_t gap, lateness;
	bool purging, side;
	uint64_t results = 0, sides = 0;

	srandom(seed);
	gap = 1 + random() % 100;
	lateness = random() % 3 == 0 ? 0 : random() % 300;
	purging = random() % 2;
	side = random() % 2;
	open_session(gap, lateness, purging, side);
	for (int i = 0; i < N; i++) {
		int64_t ts = random() % 4000 - 1000;

		if (random() % 6 == 0) {
			wm += random() % 40;
			wmark(wm);
		}
		elem(1 + random() % 3, random() % 10, ts);
	}
	wmark(WM_TS_MAX);
	for (size_t i = 0; i < h.n; i++) {
		const struct ev *e = &h.ev[i];

		if (e->kind == EV_LATE) {
			sides++;
			continue;
		}
		if (e->kind != EV_RESULT)
			continue;
		results++;
		if (e->r.count <= 0 ||
		    e->r.window.end - e->r.window.start < gap ||
		    e->r.timestamp != e->r.window.end - 1 ||
		    e->r.min > e->r.max)
			ck_abort_msg("seed %u: bad result %zu", seed, i);
	}
	ck_assert_uint_eq(results, counters()->windows_fired +
					   counters()->windows_fired_late);
	ck_assert_uint_eq(sides, counters()->late_records_side_output);
	if (!side)
		ck_assert_uint_eq(sides, 0);
	ck_assert_uint_eq(counters()->records_in, N);
	ck_assert_uint_eq(counters()->records_rejected, 0);
	ck_assert_uint_eq(counters()->records_ignored, 0);
	ASSERT_BALANCED();
	ASSERT_EMPTY();
	close_op();
}

START_TEST(test_random_late_sessions_keep_invariants)
{
	for (unsigned seed = 700; seed < 760; seed++)
		random_sessions_keep_invariants(seed);
}
END_TEST

static Suite *
window_suite(void)
{
	Suite *s = suite_create("window");
	TCase *tc;

	tc = tcase_create("conformance");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(
		tc, test_tumbling_fires_each_key_when_watermark_reaches_max_ts);
	tcase_add_test(tc, test_sliding_fires_every_window_of_each_record);
	tcase_add_test(tc,
		       test_purging_trigger_late_firing_has_only_new_elements);
	tcase_add_test(
		tc,
		test_record_late_for_its_tumbling_window_goes_to_side_output);
	tcase_add_test(
		tc,
		test_record_late_for_some_sliding_windows_stays_in_the_others);
	tcase_add_test(tc,
		       test_cleanup_timer_clears_state_after_allowed_lateness);
	tcase_add_test(tc,
		       test_cleanup_time_overflow_keeps_window_until_it_fires);
	tcase_add_test(tc, test_record_before_window_end_watermark_is_accepted);
	tcase_add_test(tc, test_record_at_window_end_watermark_is_dropped);
	suite_add_tcase(s, tc);

	tc = tcase_create("lateness");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_late_element_refires_full_window);
	tcase_add_test(tc,
		       test_late_window_without_state_fires_new_contents_only);
	tcase_add_test(tc, test_sliding_late_firings_come_latest_start_first);
	tcase_add_test(tc, test_purging_trigger_empties_window_when_it_fires);
	tcase_add_test(tc, test_element_lateness_uses_allowed_lateness);
	suite_add_tcase(s, tc);

	tc = tcase_create("order");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc,
		       test_one_watermark_fires_many_windows_in_timer_order);
	tcase_add_test(tc, test_max_watermark_fires_everything_and_cleans_up);
	tcase_add_test(tc, test_negative_timestamps_fire_in_order);
	tcase_add_test(tc, test_offset_shifts_window_bounds);
	tcase_add_test(tc, test_lower_watermark_rearms_window_like_flink);
	tcase_add_test(tc, test_status_is_forwarded_unchanged);
	suite_add_tcase(s, tc);

	tc = tcase_create("aggregate");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_aggregates_count_sum_min_max_avg);
	tcase_add_test(tc, test_sum_wraps_like_java_long);
	suite_add_tcase(s, tc);

	tc = tcase_create("accounting");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc,
		       test_record_without_timestamp_is_rejected_and_counted);
	tcase_add_test(tc, test_wrapped_window_end_counts_record_as_ignored);
	tcase_add_test(tc, test_invalid_configuration_is_rejected);
	tcase_add_test(tc, test_many_keys_grow_state_table);
	tcase_add_test(tc, test_out_of_memory_leaves_record_in_no_window);
	suite_add_tcase(s, tc);

	tc = tcase_create("session");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_session_late_record_goes_to_side_output);
	tcase_add_test(tc, test_session_late_record_merges_into_live_session);
	tcase_add_test(
		tc,
		test_session_purging_trigger_late_merge_has_only_new_element);
	tcase_add_test(tc, test_session_huge_lateness_merges_both_sessions);
	tcase_add_test(tc, test_session_cleanup_timer_with_lateness);
	tcase_add_test(tc, test_session_bridging_element_merges_three_windows);
	tcase_add_test(tc, test_session_keys_are_independent);
	tcase_add_test(tc,
		       test_session_element_inside_a_fired_session_refires_it);
	tcase_add_test(
		tc, test_session_merge_behind_watermark_is_refused_like_flink);
	tcase_add_test(tc, test_session_accepts_min_timestamp_like_flink);
	tcase_add_test(tc, test_session_end_wrapping_past_max_is_late_at_once);
	tcase_add_test(tc, test_session_many_keys);
	suite_add_tcase(s, tc);

	tc = tcase_create("random");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_random_tumbling_matches_batch_aggregation);
	tcase_add_test(tc, test_random_sliding_matches_batch_aggregation);
	tcase_add_test(tc, test_random_late_data_matches_lateness_model);
	tcase_add_test(tc, test_random_sessions_match_batch_sessions);
	tcase_add_test(tc, test_random_late_sessions_keep_invariants);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(window_suite());
}
