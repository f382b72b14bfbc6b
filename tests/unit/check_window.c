/*
 * check_window.c
 *	Unit tests of the event-time window operator (operators/window.c):
 *	the tumbling and sliding conformance cases of doc/semantics.md
 *	section 10.6 with their exact numbers (session cases W-6 to W-9 and W-11
 *	included), timer order, lateness, purging, aggregates, the edges of
 *	time, record accounting, session merging, and randomized comparisons
 *	against a batch aggregation (sessions too) and a lateness model.
 *
 * Most cases are scenarios: a row of scenarios[] names a window, the
 * records and watermarks fed to it and the outputs, counters and state
 * expected in between, and one runner plays every row (a loop test each,
 * its failures naming the row). A new case of that shape is a new row; the
 * tests written as functions do what a script of steps cannot.
 *
 * Keys "key1" and "key2" of the Flink tests are 1 and 2. At equal output
 * timestamps our results come in key order (then window start); Flink's
 * order there is unspecified and its tests sort, so W-5 lists key1 first.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/countof.h"
#include "operators/window.h"
#include "tests/unit/alloc_limit.h"
#include "tests/unit/check_main.h"
#include "tests/unit/hot_assert.h"

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
	/* EV_RESULT, EV_LATE: the operator's counters as the callback saw
	 * them (a run counts some records once for all, but never behind a
	 * callback). */
	struct wm_window_counters seen;
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
	struct ev *e = push(EV_RESULT);

	WM_HOT_ASSERT(out == &h.out, "a result on another output");
	e->r = *r;
	e->seen = *wm_window_counters(h.op);
}

static void
on_late(struct wm_window_output *out, const struct wm_record *rec)
{
	struct ev *e = push(EV_LATE);

	WM_HOT_ASSERT(out == &h.out, "a late record on another output");
	e->rec = *rec;
	e->seen = *wm_window_counters(h.op);
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
open_session(int64_t gap, int64_t lateness, bool purging, bool side_output)
{
	struct wm_window_assigner a;
	const char *why;

	ck_assert_int_eq(wm_window_session(&a, gap, &why), 0);
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

	WM_HOT_ASSERT(wm_window_process_element(h.op, &rec, &h.out) == 0,
		      "record at %lld", (long long)ts);
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

/*
 * Check the next output event equals `want`; for results, all but min and
 * max, which the callers that care check themselves. `where` (a scenario
 * and its step, or a function) leads the failure message.
 */
static void
expect_ev(const char *where, const struct ev *want)
{
	char a[160], b[160];
	const struct ev *got;
	bool same;

	ck_assert_msg(h.next < h.n, "%s: expected %s, got no more output",
		      where, describe(want, a, sizeof(a)));
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
	ck_assert_msg(same, "%s: output %zu: expected %s, got %s", where,
		      h.next - 1, describe(want, a, sizeof(a)),
		      describe(got, b, sizeof(b)));
}

/* The next event is the result of `key`'s window [start, end). */
static void
expect_result(const char *where, int64_t key, wm_ts_t start, wm_ts_t end,
	      int64_t count, int64_t sum, bool late)
{
	struct ev want = {.kind = EV_RESULT};

	want.r.key = key;
	want.r.window.start = start;
	want.r.window.end = end;
	want.r.timestamp = wm_ts_sub(end, 1);
	want.r.count = count;
	want.r.sum = sum;
	want.r.late_firing = late;
	expect_ev(where, &want);
}

static void
expect_nothing(const char *where)
{
	char a[160];

	ck_assert_msg(h.next == h.n, "%s: unexpected output %s", where,
		      h.next < h.n ? describe(&h.ev[h.next], a, sizeof(a))
				   : "");
}

static const struct wm_window_counters *
counters(void)
{
	return wm_window_counters(h.op);
}

#define ASSERT_BALANCED()                                                      \
	ck_assert_msg(wm_window_counters_balanced(counters()),                 \
		      "records are not all accounted for")

/* Nothing left: no state, no timer, no session. */
#define ASSERT_EMPTY()                                                         \
	do {                                                                   \
		ck_assert_uint_eq(wm_window_state_count(h.op), 0);             \
		ck_assert_uint_eq(wm_window_timer_count(h.op), 0);             \
		ck_assert_uint_eq(wm_window_session_count(h.op), 0);           \
	} while (0)

/* ---- scenarios: a window, a script of inputs and expectations ---- */

/*
 * What a step does. Its arguments, in v[], are those of its macro below:
 * ELEM(key, value, ts) feeds a record, which must be taken; ELEM_FAILS(key,
 * value, ts, err) one that must be refused with err; WMARK(w) feeds a
 * watermark, QUIET_WATERMARK(w) one that must come out alone. RESULT(key,
 * start, end, count) expects an on-time firing of that window with count
 * values of 1 (sum == count), LATE_RESULT the same as a late firing and
 * FULL_RESULT(key, start, end, count, sum, min, max) an on-time firing with
 * all its aggregates, LATE_FULL_RESULT the same as a late firing. WATERMARK(w) expects a forwarded watermark, SIDE(key,
 * value, ts) a record on the late output, NOTHING no more output so far.
 * COUNTER(field, n), STATES(n), TIMERS(n) and SESSIONS(n) expect a counter
 * and the operator's sizes; BALANCED every record accounted for, EMPTY no
 * state, timer or session left.
 */
enum step_op {
	S_END = 0, /* the rest of a script (zero-filled) */
	S_ELEM,
	S_ELEM_FAILS,
	S_WMARK,
	S_QUIET_WATERMARK,
	S_RESULT,
	S_LATE_RESULT,
	S_FULL_RESULT,
	S_LATE_FULL_RESULT,
	S_WATERMARK,
	S_SIDE,
	S_NOTHING,
	S_COUNTER,
	S_STATES,
	S_TIMERS,
	S_SESSIONS,
	S_BALANCED,
	S_EMPTY,
};

struct step {
	enum step_op op;
	int64_t v[7];
	/* S_COUNTER: the field of struct wm_window_counters (all of them
	 * uint64_t), by name and offset */
	const char *counter;
	size_t offset;
};

/* Room for the longest script; a longer one does not compile. */
#define MAX_STEPS 48

#define STEP(op_, ...)                                                         \
	{                                                                      \
		.op = (op_), .v = { __VA_ARGS__ }                              \
	}

#define ELEM(key, value, ts) STEP(S_ELEM, (key), (value), (ts))
#define ELEM_FAILS(key, value, ts, err)                                        \
	STEP(S_ELEM_FAILS, (key), (value), (ts), (err))
#define WMARK(w) STEP(S_WMARK, (w))
#define QUIET_WATERMARK(w) STEP(S_QUIET_WATERMARK, (w))
#define RESULT(key, start, end, count)                                         \
	STEP(S_RESULT, (key), (start), (end), (count))
#define LATE_RESULT(key, start, end, count)                                    \
	STEP(S_LATE_RESULT, (key), (start), (end), (count))
#define FULL_RESULT(key, start, end, count, sum, min, max)                     \
	STEP(S_FULL_RESULT, (key), (start), (end), (count), (sum), (min), (max))
#define LATE_FULL_RESULT(key, start, end, count, sum, min, max)                \
	STEP(S_LATE_FULL_RESULT, (key), (start), (end), (count), (sum), (min), \
	     (max))
#define WATERMARK(w) STEP(S_WATERMARK, (w))
#define SIDE(key, value, ts) STEP(S_SIDE, (key), (value), (ts))
#define NOTHING STEP(S_NOTHING, 0)
#define COUNTER(field, n)                                                      \
	{                                                                      \
		.op = S_COUNTER, .v = {(n)}, .counter = #field,                \
		.offset = offsetof(struct wm_window_counters, field)           \
	}
#define STATES(n) STEP(S_STATES, (n))
#define TIMERS(n) STEP(S_TIMERS, (n))
#define SESSIONS(n) STEP(S_SESSIONS, (n))
#define BALANCED STEP(S_BALANCED, 0)
#define EMPTY STEP(S_EMPTY, 0)

enum window_kind {
	KIND_TUMBLING = 1,
	KIND_SLIDING,
	KIND_SESSION,
};

#define TUMBLING(size_, offset_)                                               \
	.kind = KIND_TUMBLING, .size = (size_), .offset = (offset_)
#define SLIDING(size_, slide_, offset_)                                        \
	.kind = KIND_SLIDING, .size = (size_), .slide = (slide_),              \
	.offset = (offset_)
#define SESSION(gap_) .kind = KIND_SESSION, .size = (gap_)

struct scenario {
	const char *tcase; /* the tcase it runs in */
	const char *name;  /* named in its failures */
	enum window_kind kind;
	int64_t size; /* a session's gap */
	int64_t slide;
	int64_t offset;
	int64_t lateness;
	bool purging;
	bool side_output;
	/* Played first, if not NULL: steps several scenarios share. */
	const struct step *prefix;
	struct step steps[MAX_STEPS];
};

/* W-1 and W-2 feed these records. */
static const struct step w1_records[MAX_STEPS] = {
	ELEM(2, 1, 3999), ELEM(2, 1, 3000), ELEM(1, 1, 20),   ELEM(1, 1, 0),
	ELEM(1, 1, 999),  ELEM(2, 1, 1998), ELEM(2, 1, 1999), ELEM(2, 1, 1000),
};

/* W-6 to W-9 share the records up to W(14600). */
static const struct step w6_prefix[MAX_STEPS] = {
	ELEM(2, 1, 1000),
	QUIET_WATERMARK(1999),
	ELEM(2, 1, 2000), /* [1000,5000) */
	QUIET_WATERMARK(4998),
	ELEM(2, 1, 4500), /* extends the live session: [1000,7500) */
	ELEM(2, 1, 8500), /* a new session [8500,11500) */
	SESSIONS(2),
	STATES(2),
	QUIET_WATERMARK(7400),
	ELEM(2, 1, 7000), /* [7000,10000) bridges both: [1000,11500) */
	NOTHING,
	SESSIONS(1),
	STATES(1),
};

static const struct scenario scenarios[] = {
	/* ---- tcase conformance: doc/semantics.md section 10.6 ---- */

	/* W-1: tumbling 3 s, L = 0. */
	{
		.tcase = "conformance",
		.name = "tumbling_fires_each_key_when_watermark_reaches_max_ts",
		TUMBLING(3000, 0),
		.lateness = 0,
		.prefix = w1_records,
		.steps =
			{
				NOTHING,
				QUIET_WATERMARK(999),
				QUIET_WATERMARK(1999),
				WMARK(2999),
				RESULT(1, 0, 3000, 3),
				RESULT(2, 0, 3000, 3),
				WATERMARK(2999),
				NOTHING,
				QUIET_WATERMARK(3999),
				QUIET_WATERMARK(4999),
				WMARK(5999),
				RESULT(2, 3000, 6000, 2),
				WATERMARK(5999),
				NOTHING,
				QUIET_WATERMARK(6999),
				QUIET_WATERMARK(7999),
				COUNTER(records_in, 8),
				COUNTER(records_accepted, 8),
				COUNTER(windows_fired, 3),
				COUNTER(windows_fired_late, 0),
				COUNTER(late_records_dropped, 0),
				BALANCED,
				STATES(0),
				TIMERS(0),
			},
	},
	/* W-2: sliding 3 s / 1 s, L = 0. */
	{
		.tcase = "conformance",
		.name = "sliding_fires_every_window_of_each_record",
		SLIDING(3000, 1000, 0),
		.lateness = 0,
		.prefix = w1_records,
		.steps =
			{
				NOTHING,
				WMARK(999),
				RESULT(1, -2000, 1000, 3),
				WATERMARK(999),
				WMARK(1999),
				RESULT(1, -1000, 2000, 3),
				RESULT(2, -1000, 2000, 3),
				WATERMARK(1999),
				WMARK(2999),
				RESULT(1, 0, 3000, 3),
				RESULT(2, 0, 3000, 3),
				WATERMARK(2999),
				WMARK(3999),
				RESULT(2, 1000, 4000, 5),
				WATERMARK(3999),
				WMARK(4999),
				RESULT(2, 2000, 5000, 2),
				WATERMARK(4999),
				WMARK(5999),
				RESULT(2, 3000, 6000, 2),
				WATERMARK(5999),
				NOTHING,
				QUIET_WATERMARK(6999),
				QUIET_WATERMARK(7999),
				COUNTER(records_in, 8),
				COUNTER(records_accepted, 8),
				COUNTER(windows_fired, 8),
				BALANCED,
				STATES(0),
				TIMERS(0),
			},
	},
	/* W-3: tumbling 2 s, L = 500, PurgingTrigger, late side output. */
	{
		.tcase = "conformance",
		.name = "purging_trigger_late_firing_has_only_new_elements",
		TUMBLING(2000, 0),
		.lateness = 500,
		.purging = true,
		.side_output = true,
		.steps =
			{
				ELEM(2, 1, 500),
				QUIET_WATERMARK(1500),
				ELEM(2, 1, 1300),
				NOTHING,
				WMARK(2300),
				RESULT(2, 0, 2000, 2),
				WATERMARK(2300),
				NOTHING,
				/* Cleanup 2499 > 2300: accepted; maxTs 1999
				 * <= 2300: fires at once, with 1 element, not
				 * 3, as the first firing purged. */
				ELEM(2, 1, 1997),
				LATE_RESULT(2, 0, 2000, 1),
				NOTHING,
				QUIET_WATERMARK(6000),
				/* Cleanup 2499 <= 6000 and 1998 + 500 <=
				 * 6000. */
				ELEM(2, 1, 1998),
				SIDE(2, 1, 1998),
				NOTHING,
				QUIET_WATERMARK(7000),
				COUNTER(records_in, 4),
				COUNTER(records_accepted, 3),
				COUNTER(late_records_side_output, 1),
				COUNTER(late_records_dropped, 0),
				COUNTER(windows_fired, 1),
				COUNTER(windows_fired_late, 1),
				BALANCED,
				STATES(0),
				TIMERS(0),
			},
	},
	/* W-4: tumbling 2 s, L = 0, late side output. */
	{
		.tcase = "conformance",
		.name = "record_late_for_its_tumbling_window_goes_to_side_"
			"output",
		TUMBLING(2000, 0),
		.lateness = 0,
		.side_output = true,
		.steps =
			{
				ELEM(2, 1, 1000),
				QUIET_WATERMARK(1985),
				ELEM(2, 1, 1980), /* 1999 > 1985: kept */
				NOTHING,
				WMARK(1999),
				RESULT(2, 0, 2000, 2),
				WATERMARK(1999),
				ELEM(2, 1, 1998), /* cleanup 1999 <= 1999 */
				SIDE(2, 1, 1998),
				ELEM(2, 1, 2001),
				NOTHING,
				QUIET_WATERMARK(2999),
				WMARK(3999),
				RESULT(2, 2000, 4000, 1),
				WATERMARK(3999),
				NOTHING,
				COUNTER(records_in, 4),
				COUNTER(records_accepted, 3),
				COUNTER(late_records_side_output, 1),
				COUNTER(late_records_dropped, 0),
				BALANCED,
			},
	},
	/* W-5: sliding 3 s / 1 s, L = 0, late side output. */
	{
		.tcase = "conformance",
		.name = "record_late_for_some_sliding_windows_stays_in_the_"
			"others",
		SLIDING(3000, 1000, 0),
		.lateness = 0,
		.side_output = true,
		.steps =
			{
				ELEM(2, 1, 1000),
				WMARK(1999),
				RESULT(2, -1000, 2000, 1),
				WATERMARK(1999),
				ELEM(2, 1, 2000),
				WMARK(3000),
				RESULT(2, 0, 3000, 2),
				WATERMARK(3000),
				ELEM(1, 1, 3001),
				/* Late for [0,3000) only: silently left out of
				 * it. */
				ELEM(2, 1, 2400),
				ELEM(2, 1, 2400),
				ELEM(1, 1, 3001),
				ELEM(2, 1, 3900),
				NOTHING,
				COUNTER(late_records_side_output, 0),
				COUNTER(late_records_dropped, 0),
				WMARK(6000),
				RESULT(1, 1000, 4000, 2),
				RESULT(2, 1000, 4000, 5),
				RESULT(1, 2000, 5000, 2),
				RESULT(2, 2000, 5000, 4),
				RESULT(1, 3000, 6000, 2),
				RESULT(2, 3000, 6000, 1),
				WATERMARK(6000),
				NOTHING,
				/* All three windows late now. */
				ELEM(1, 1, 3001),
				SIDE(1, 1, 3001),
				NOTHING,
				QUIET_WATERMARK(25000),
				COUNTER(records_in, 8),
				COUNTER(records_accepted, 7),
				COUNTER(late_records_side_output, 1),
				COUNTER(windows_fired, 8),
				BALANCED,
				STATES(0),
				TIMERS(0),
			},
	},
	/* W-10: tumbling 2 s, L = 1. */
	{
		.tcase = "conformance",
		.name = "cleanup_timer_clears_state_after_allowed_lateness",
		TUMBLING(2000, 0),
		.lateness = 1,
		.steps =
			{
				ELEM(2, 1, 1000),
				TIMERS(2),
				QUIET_WATERMARK(1599),
				WMARK(1999),
				RESULT(2, 0, 2000, 1),
				WATERMARK(1999),
				NOTHING,
				/* Fired, not purged: the state waits for the
				 * cleanup timer. */
				STATES(1),
				TIMERS(1),
				QUIET_WATERMARK(2000),
				STATES(0),
				TIMERS(0),
				QUIET_WATERMARK(5000),
				BALANCED,
			},
	},
	/* W-12: tumbling 1000 ms, L = 2000, record at MAX - 1750. */
	{
		.tcase = "conformance",
		.name = "cleanup_time_overflow_keeps_window_until_it_fires",
		TUMBLING(1000, 0),
		.lateness = 2000,
		.steps =
			{
				ELEM(2, 1, WM_TS_MAX - 1750),
				/* Only the trigger timer: the cleanup time
				 * saturated at MAX. */
				TIMERS(1),
				QUIET_WATERMARK(WM_TS_MAX - 1500),
				STATES(1),
				WMARK(WM_TS_MAX - 808),
				RESULT(2, WM_TS_MAX - 1807, WM_TS_MAX - 807, 1),
				WATERMARK(WM_TS_MAX - 808),
				NOTHING,
				/* Never cleaned: no cleanup timer exists, even
				 * at MAX. */
				QUIET_WATERMARK(WM_TS_MAX),
				STATES(1),
				TIMERS(0),
			},
	},
	/* W-21: W = 1998, record at 1500 is accepted and waits for 1999. */
	{
		.tcase = "conformance",
		.name = "record_before_window_end_watermark_is_accepted",
		TUMBLING(2000, 0),
		.lateness = 0,
		.steps =
			{
				QUIET_WATERMARK(1998),
				ELEM(1, 1, 1500),
				NOTHING,
				COUNTER(records_accepted, 1),
				TIMERS(1),
				WMARK(1999),
				RESULT(1, 0, 2000, 1),
				WATERMARK(1999),
				NOTHING,
			},
	},
	/* W-21, second half, without a side output... */
	{
		.tcase = "conformance",
		.name = "record_at_window_end_watermark_is_dropped",
		TUMBLING(2000, 0),
		.lateness = 0,
		.steps =
			{
				QUIET_WATERMARK(1999),
				ELEM(1, 1, 1500),
				NOTHING,
				COUNTER(late_records_dropped, 1),
				COUNTER(records_accepted, 0),
				STATES(0),
				TIMERS(0),
				BALANCED,
			},
	},
	/* ... and with one. */
	{
		.tcase = "conformance",
		.name = "record_at_window_end_watermark_goes_to_side_output",
		TUMBLING(2000, 0),
		.lateness = 0,
		.side_output = true,
		.steps =
			{
				QUIET_WATERMARK(1999),
				ELEM(1, 7, 1500),
				SIDE(1, 7, 1500),
				NOTHING,
				COUNTER(late_records_dropped, 0),
				COUNTER(late_records_side_output, 1),
				BALANCED,
			},
	},

	/* ---- tcase lateness ---- */

	{
		.tcase = "lateness",
		.name = "late_element_refires_full_window",
		TUMBLING(2000, 0),
		.lateness = 1000,
		.steps =
			{
				ELEM(1, 1, 500),
				ELEM(1, 1, 1500),
				WMARK(1999),
				RESULT(1, 0, 2000, 2),
				WATERMARK(1999),
				/* Each late element fires the whole window
				 * again. */
				ELEM(1, 1, 1000),
				LATE_RESULT(1, 0, 2000, 3),
				ELEM(1, 1, 100),
				LATE_RESULT(1, 0, 2000, 4),
				NOTHING,
				/* Cleanup at 2999 drops everything,
				 * silently. */
				QUIET_WATERMARK(2999),
				STATES(0),
				TIMERS(0),
				/* Now late for good, and counted since there
				 * is no side output. */
				ELEM(1, 1, 200),
				NOTHING,
				COUNTER(late_records_dropped, 1),
				COUNTER(windows_fired, 1),
				COUNTER(windows_fired_late, 2),
				BALANCED,
			},
	},
	/* The first element of a window already past its maxTs (but within
	 * lateness) creates it and fires it at once; no trigger timer. */
	{
		.tcase = "lateness",
		.name = "late_window_without_state_fires_new_contents_only",
		TUMBLING(1000, 0),
		.lateness = 5000,
		.steps =
			{
				QUIET_WATERMARK(1500),
				ELEM(3, 1, 200),
				LATE_RESULT(3, 0, 1000, 1),
				NOTHING,
				TIMERS(1), /* cleanup */
				QUIET_WATERMARK(5998),
				STATES(1),
				QUIET_WATERMARK(5999),
				STATES(0),
			},
	},
	{
		.tcase = "lateness",
		.name = "sliding_late_firings_come_latest_start_first",
		SLIDING(3000, 1000, 0),
		.lateness = 5000,
		.steps =
			{
				ELEM(1, 1, 500),
				WMARK(2999),
				RESULT(1, -2000, 1000, 1),
				RESULT(1, -1000, 2000, 1),
				RESULT(1, 0, 3000, 1),
				WATERMARK(2999),
				ELEM(1, 1, 600),
				LATE_RESULT(1, 0, 3000, 2),
				LATE_RESULT(1, -1000, 2000, 2),
				LATE_RESULT(1, -2000, 1000, 2),
				NOTHING,
			},
	},
	{
		.tcase = "lateness",
		.name = "purging_trigger_empties_window_when_it_fires",
		TUMBLING(1000, 0),
		.lateness = 3000,
		.purging = true,
		.steps =
			{
				ELEM(1, 1, 10),
				ELEM(1, 1, 20),
				WMARK(999),
				RESULT(1, 0, 1000, 2),
				WATERMARK(999),
				/* Purged at once, though the cleanup timer is
				 * still pending. */
				STATES(0),
				TIMERS(1),
				ELEM(1, 1, 30),
				LATE_RESULT(1, 0, 1000, 1),
				ELEM(1, 1, 40),
				LATE_RESULT(1, 0, 1000, 1),
				NOTHING,
				STATES(0),
				QUIET_WATERMARK(3999),
				TIMERS(0),
			},
	},
	/* isElementLate: ts + L <= W. With L = 100 a record of window
	 * [0,1000) is late once W >= 1099, and the window is gone too. */
	{
		.tcase = "lateness",
		.name = "element_lateness_uses_allowed_lateness",
		TUMBLING(1000, 0),
		.lateness = 100,
		.side_output = true,
		.steps =
			{
				QUIET_WATERMARK(1098),
				ELEM(1, 1, 999),
				LATE_RESULT(1, 0, 1000, 1),
				QUIET_WATERMARK(1099),
				ELEM(1, 1, 999),
				SIDE(1, 1, 999),
				NOTHING,
				BALANCED,
			},
	},

	/* ---- tcase order: which results a watermark produces, in which
	 * order ---- */

	{
		.tcase = "order",
		.name = "one_watermark_fires_many_windows_in_timer_order",
		TUMBLING(10, 0),
		.lateness = 0,
		.steps =
			{
				/* Keys 3, 1, 2 over windows [0,10) ..
				 * [40,50), scrambled. */
				ELEM(3, 1, 45),
				ELEM(1, 1, 5),
				ELEM(2, 1, 25),
				ELEM(3, 1, 5),
				ELEM(1, 1, 45),
				ELEM(2, 1, 5),
				ELEM(1, 1, 25),
				ELEM(3, 1, 15),
				ELEM(2, 1, 6),
				WMARK(1000),
				RESULT(1, 0, 10, 1),
				RESULT(2, 0, 10, 2),
				RESULT(3, 0, 10, 1),
				RESULT(3, 10, 20, 1),
				RESULT(1, 20, 30, 1),
				RESULT(2, 20, 30, 1),
				RESULT(1, 40, 50, 1),
				RESULT(3, 40, 50, 1),
				WATERMARK(1000),
				NOTHING,
				COUNTER(windows_fired, 8),
			},
	},
	{
		.tcase = "order",
		.name = "max_watermark_fires_everything_and_cleans_up",
		SLIDING(100, 50, 0),
		.lateness = 1000,
		.steps =
			{
				ELEM(1, 1, 10),
				ELEM(2, 1, 70),
				ELEM(1, 1, 1000000),
				WMARK(WM_TS_MAX),
				RESULT(1, -50, 50, 1),
				RESULT(1, 0, 100, 1),
				RESULT(2, 0, 100, 1),
				RESULT(2, 50, 150, 1),
				RESULT(1, 999950, 1000050, 1),
				RESULT(1, 1000000, 1000100, 1),
				WATERMARK(WM_TS_MAX),
				NOTHING,
				STATES(0),
				TIMERS(0),
			},
	},
	{
		.tcase = "order",
		.name = "negative_timestamps_fire_in_order",
		TUMBLING(1000, 0),
		.lateness = 0,
		.steps =
			{
				ELEM(1, 1, -1),
				ELEM(1, 1, -1000),
				ELEM(1, 1, -1001),
				ELEM(1, 1, 0),
				QUIET_WATERMARK(-1002),
				WMARK(-1),
				RESULT(1, -2000, -1000, 1),
				RESULT(1, -1000, 0, 2),
				WATERMARK(-1),
				WMARK(999),
				RESULT(1, 0, 1000, 1),
				WATERMARK(999),
				NOTHING,
			},
	},
	{
		.tcase = "order",
		.name = "offset_shifts_window_bounds",
		TUMBLING(1000, -100),
		.lateness = 0,
		.steps =
			{
				ELEM(1, 1, 0),
				ELEM(1, 1, 899),
				ELEM(1, 1, 900),
				WMARK(899),
				RESULT(1, -100, 900, 2),
				WATERMARK(899),
				WMARK(1899),
				RESULT(1, 900, 1900, 1),
				WATERMARK(1899),
				NOTHING,
			},
	},
	/* Flink does not guard against a watermark going back (the valve
	 * does): the window's timer is registered again, and the window fires
	 * once more, on time, when the watermark returns. */
	{
		.tcase = "order",
		.name = "lower_watermark_rearms_window_like_flink",
		TUMBLING(2000, 0),
		.lateness = 1000,
		.steps =
			{
				ELEM(1, 1, 500),
				WMARK(2000),
				RESULT(1, 0, 2000, 1),
				WATERMARK(2000),
				QUIET_WATERMARK(1500),
				ELEM(1, 1, 1800),
				NOTHING,
				WMARK(2000),
				RESULT(1, 0, 2000, 2),
				WATERMARK(2000),
				NOTHING,
				COUNTER(windows_fired, 2),
				COUNTER(windows_fired_late, 0),
			},
	},

	/* ---- tcase accounting: every record ends somewhere ---- */

	{
		.tcase = "accounting",
		.name = "record_without_timestamp_is_rejected_and_counted",
		TUMBLING(1000, 0),
		.lateness = 0,
		.side_output = true,
		.steps =
			{
				ELEM_FAILS(1, 1, WM_TS_MIN, -EINVAL),
				NOTHING,
				COUNTER(records_in, 1),
				COUNTER(records_rejected, 1),
				STATES(0),
				BALANCED,
			},
	},
	/* ts = MAX - 5 lies in [MAX - 807, MAX + 193), whose end wraps to
	 * MIN + 192: maxTs = MIN + 191. Java does the same. */
	{
		.tcase = "accounting",
		.name = "wrapped_window_end_counts_record_as_ignored",
		TUMBLING(1000, 0),
		.lateness = 0,
		.side_output = true,
		.steps =
			{
				ELEM(1, 1, WM_TS_MAX - 5),
				NOTHING,
				COUNTER(records_accepted, 1),
				WMARK(0),
				RESULT(1, WM_TS_MAX - 807, WM_TS_MIN + 192, 1),
				WATERMARK(0),
				/* Now the window is late but the record (ts +
				 * 0 > 0) is not: Flink loses it without a
				 * trace; we count it. */
				ELEM(1, 1, WM_TS_MAX - 5),
				NOTHING,
				COUNTER(records_ignored, 1),
				COUNTER(late_records_side_output, 0),
				BALANCED,
			},
	},
	/* Offset -93: MAX - 99 lies in [MAX - 100, MAX), but for MAX - 50
	 * ts - offset wraps, and Java's arithmetic puts it in [MAX - 84,
	 * MIN + 15): a window is not reused for a timestamp inside it where
	 * the assigner's arithmetic wraps. */
	{
		.tcase = "accounting",
		.name = "tumbling_window_is_not_reused_where_assigning_wraps_"
			"up",
		TUMBLING(100, -93),
		.lateness = 0,
		.steps =
			{
				ELEM(1, 1, WM_TS_MAX - 99),
				ELEM(1, 1, WM_TS_MAX - 50),
				STATES(2),
				WMARK(0),
				RESULT(1, WM_TS_MAX - 84, WM_TS_MIN + 15, 1),
				WATERMARK(0),
				STATES(1),
				BALANCED,
			},
	},
	/* The other end, offset 93: MIN + 100 lies in [MIN + 1, MIN + 101),
	 * MIN + 50 wraps in ts - offset into [MAX - 14, MIN + 85). */
	{
		.tcase = "accounting",
		.name = "tumbling_window_is_not_reused_where_assigning_wraps_"
			"down",
		TUMBLING(100, 93),
		.lateness = 0,
		.steps =
			{
				ELEM(1, 1, WM_TS_MIN + 100),
				ELEM(1, 1, WM_TS_MIN + 50),
				STATES(2),
				WMARK(WM_TS_MIN + 100),
				RESULT(1, WM_TS_MAX - 14, WM_TS_MIN + 85, 1),
				RESULT(1, WM_TS_MIN + 1, WM_TS_MIN + 101, 1),
				WATERMARK(WM_TS_MIN + 100),
				EMPTY,
				BALANCED,
			},
	},

	/* ---- tcase session: merging windows, doc/semantics.md section 7.10
	 * ---- */

	/* W-6: gap 3 s, L = 0, late side output. */
	{
		.tcase = "session",
		.name = "session_late_record_goes_to_side_output",
		SESSION(3000),
		.lateness = 0,
		.side_output = true,
		.prefix = w6_prefix,
		.steps =
			{
				/* The trigger timer of the merged session, and
				 * nothing else: the absorbed windows' timers
				 * were deleted (L = 0: cleanup timer ==
				 * trigger timer). */
				TIMERS(1),
				WMARK(11501),
				RESULT(2, 1000, 11500, 5),
				WATERMARK(11501),
				NOTHING,
				EMPTY,
				ELEM(2, 1, 11600),
				WMARK(14600),
				RESULT(2, 11600, 14600, 1),
				WATERMARK(14600),
				NOTHING,
				/* [10000,13000) is late and merges with
				 * nothing: the session of 11600 is cleaned
				 * already. */
				ELEM(2, 1, 10000),
				SIDE(2, 1, 10000),
				NOTHING,
				EMPTY,
				ELEM(2, 1, 14500),
				WMARK(20000),
				RESULT(2, 14500, 17500, 1),
				WATERMARK(20000),
				NOTHING,
				QUIET_WATERMARK(WM_TS_MAX),
				COUNTER(records_in, 8),
				COUNTER(records_accepted, 7),
				COUNTER(late_records_side_output, 1),
				COUNTER(late_records_dropped, 0),
				COUNTER(windows_fired, 3),
				COUNTER(windows_fired_late, 0),
				BALANCED,
				EMPTY,
			},
	},
	/* W-7: as W-6 with L = 10. */
	{
		.tcase = "session",
		.name = "session_late_record_merges_into_live_session",
		SESSION(3000),
		.lateness = 10,
		.side_output = true,
		.prefix = w6_prefix,
		.steps =
			{
				WMARK(11501),
				RESULT(2, 1000, 11500, 5),
				WATERMARK(11501),
				NOTHING,
				/* Fired, kept until its cleanup at 11509. */
				SESSIONS(1),
				STATES(1),
				ELEM(2, 1, 11600),
				WMARK(14600),
				RESULT(2, 11600, 14600, 1),
				WATERMARK(14600),
				NOTHING,
				/* [11600,14600) lives until 14609:
				 * [10000,13000) merges into it, and the
				 * result, past its maxTs, fires at once in
				 * full. */
				ELEM(2, 1, 10000),
				LATE_RESULT(2, 10000, 14600, 2),
				NOTHING,
				ELEM(2, 1, 14500), /* [10000,17500) */
				NOTHING,
				WMARK(20000),
				RESULT(2, 10000, 17500, 3),
				WATERMARK(20000),
				NOTHING,
				EMPTY,
				QUIET_WATERMARK(WM_TS_MAX),
				COUNTER(records_in, 8),
				COUNTER(records_accepted, 8),
				COUNTER(late_records_side_output, 0),
				COUNTER(windows_fired, 3),
				COUNTER(windows_fired_late, 1),
				BALANCED,
				EMPTY,
			},
	},
	/* W-8: as W-7 with PurgingTrigger. */
	{
		.tcase = "session",
		.name = "session_purging_trigger_late_merge_has_only_new_"
			"element",
		SESSION(3000),
		.lateness = 10,
		.purging = true,
		.side_output = true,
		.prefix = w6_prefix,
		.steps =
			{
				WMARK(11501),
				RESULT(2, 1000, 11500, 5),
				WATERMARK(11501),
				/* Purged, but the session stays until its
				 * cleanup timer. */
				STATES(0),
				SESSIONS(1),
				ELEM(2, 1, 11600),
				WMARK(14600),
				RESULT(2, 11600, 14600, 1),
				WATERMARK(14600),
				NOTHING,
				ELEM(2, 1, 10000),
				LATE_RESULT(2, 10000, 14600, 1),
				NOTHING,
				ELEM(2, 1, 14500),
				WMARK(20000),
				RESULT(2, 10000, 17500, 1),
				WATERMARK(20000),
				NOTHING,
				EMPTY,
				COUNTER(records_accepted, 8),
				COUNTER(late_records_side_output, 0),
				BALANCED,
			},
	},
	/* W-9: gap 3 s, L = 10000. */
	{
		.tcase = "session",
		.name = "session_huge_lateness_merges_both_sessions",
		SESSION(3000),
		.lateness = 10000,
		.side_output = true,
		.prefix = w6_prefix,
		.steps =
			{
				WMARK(11501),
				RESULT(2, 1000, 11500, 5),
				WATERMARK(11501),
				ELEM(2, 1, 11600),
				WMARK(14600),
				RESULT(2, 11600, 14600, 1),
				WATERMARK(14600),
				NOTHING,
				SESSIONS(2),
				/* [10000,13000) bridges [1000,11500) and
				 * [11600,14600), both alive (cleanup 21499 and
				 * 24599). */
				ELEM(2, 1, 10000),
				LATE_RESULT(2, 1000, 14600, 7),
				NOTHING,
				SESSIONS(1),
				STATES(1),
				/* Only the cleanup timer of [1000,14600): its
				 * trigger fired. */
				TIMERS(1),
				ELEM(2, 1, 14500),
				WMARK(20000),
				RESULT(2, 1000, 17500, 8),
				WATERMARK(20000),
				NOTHING,
				SESSIONS(1),
				/* Cleanup at 17499 + 10000. */
				QUIET_WATERMARK(27498),
				SESSIONS(1),
				QUIET_WATERMARK(27499),
				EMPTY,
				COUNTER(records_accepted, 8),
				COUNTER(windows_fired, 3),
				COUNTER(windows_fired_late, 1),
				BALANCED,
			},
	},
	/* W-11: gap 3 s, L = 10. */
	{
		.tcase = "session",
		.name = "session_cleanup_timer_with_lateness",
		SESSION(3000),
		.lateness = 10,
		.steps =
			{
				ELEM(2, 1, 1000),
				TIMERS(2),
				WMARK(4998),
				RESULT(2, 1000, 4000, 1),
				WATERMARK(4998),
				NOTHING,
				EMPTY,
				QUIET_WATERMARK(14600),
				BALANCED,
			},
	},
	/* With a fixed gap an element's window can reach at most two
	 * existing sessions (they are >= gap long and apart); merging them
	 * and itself, twice, folds three sessions into one. */
	{
		.tcase = "session",
		.name = "session_bridging_element_merges_three_windows",
		SESSION(10),
		.lateness = 0,
		.steps =
			{
				ELEM(1, 1, 0),	/* [0,10) */
				ELEM(1, 2, 15), /* [15,25) */
				ELEM(1, 3, 30), /* [30,40) */
				SESSIONS(3),
				TIMERS(3),
				/* [8,18) bridges [0,10) and [15,25) */
				ELEM(1, 4, 8),
				SESSIONS(2),
				STATES(2),
				TIMERS(2),
				/* [24,34) bridges [0,25) and [30,40) */
				ELEM(1, 5, 24),
				SESSIONS(1),
				STATES(1),
				TIMERS(1),
				QUIET_WATERMARK(38),
				WMARK(39),
				FULL_RESULT(1, 0, 40, 5, 15, 1, 5),
				WATERMARK(39),
				NOTHING,
				EMPTY,
				BALANCED,
			},
	},
	{
		.tcase = "session",
		.name = "session_keys_are_independent",
		SESSION(100),
		.lateness = 0,
		.steps =
			{
				ELEM(1, 1, 0),
				ELEM(2, 10, 50),
				ELEM(1, 1, 60), /* key 1: [0,160) */
				ELEM(3, 5, 60),
				ELEM(2, 10, 120), /* key 2: [50,220) */
				SESSIONS(3),
				WMARK(WM_TS_MAX),
				/* Equal maxTs: key order. */
				FULL_RESULT(1, 0, 160, 2, 2, 1, 1),
				FULL_RESULT(3, 60, 160, 1, 5, 5, 5),
				FULL_RESULT(2, 50, 220, 2, 20, 10, 10),
				WATERMARK(WM_TS_MAX),
				NOTHING,
				EMPTY,
			},
	},
	/* L = 100: an element inside a fired, uncleaned session refires it
	 * with everything (no merge, the session does not grow). */
	{
		.tcase = "session",
		.name = "session_element_inside_a_fired_session_refires_it",
		SESSION(10),
		.lateness = 100,
		.side_output = true,
		.steps =
			{
				ELEM(1, 1, 0),
				ELEM(1, 1, 5), /* [0,15) */
				WMARK(20),
				RESULT(1, 0, 15, 2),
				WATERMARK(20),
				ELEM(1, 1, 3), /* [3,13) inside [0,15) */
				LATE_RESULT(1, 0, 15, 3),
				NOTHING,
				SESSIONS(1),
				QUIET_WATERMARK(113),
				SESSIONS(1),
				QUIET_WATERMARK(114), /* cleanup: 14 + 100 */
				EMPTY,
				/* Now late and alone: side output. */
				ELEM(1, 1, 3),
				SIDE(1, 1, 3),
				EMPTY,
				BALANCED,
			},
	},
	/* L = MAX: cleanup times saturate, but Flink's merge check adds
	 * maxTs + L without saturation, wraps, and throws. We return -ERANGE,
	 * count the record as rejected and change nothing. */
	{
		.tcase = "session",
		.name = "session_merge_behind_watermark_is_refused_like_flink",
		SESSION(10),
		.lateness = WM_TS_MAX,
		.side_output = true,
		.steps =
			{
				ELEM(1, 1,
				     100), /* [100,110), no cleanup timer */
				TIMERS(1),
				QUIET_WATERMARK(50),
				ELEM_FAILS(1, 1, 105, -ERANGE),
				NOTHING,
				COUNTER(records_rejected, 1),
				SESSIONS(1),
				STATES(1),
				TIMERS(1),
				/* No merge, no check. */
				ELEM(1, 1, 500),
				SESSIONS(2),
				WMARK(WM_TS_MAX),
				RESULT(1, 100, 110, 1),
				RESULT(1, 500, 510, 1),
				WATERMARK(WM_TS_MAX),
				NOTHING,
				/* Cleanup time MAX: never cleaned, as W-12. */
				SESSIONS(2),
				COUNTER(records_in, 3),
				BALANCED,
			},
	},
	/* EventTimeSessionWindows does not check for "no timestamp". */
	{
		.tcase = "session",
		.name = "session_accepts_min_timestamp_like_flink",
		SESSION(10),
		.lateness = 0,
		.steps =
			{
				ELEM(1, 1, WM_TS_MIN),
				COUNTER(records_accepted, 1),
				WMARK(WM_TS_MIN + 9),
				RESULT(1, WM_TS_MIN, WM_TS_MIN + 10, 1),
				WATERMARK(WM_TS_MIN + 9),
				NOTHING,
				EMPTY,
				BALANCED,
			},
	},
	/* [MAX - 5, MIN + 4): maxTs MIN + 3, late for any watermark >= it;
	 * the record itself is not late: counted as ignored (see W-12's
	 * tumbling twin). Before any watermark it is accepted. */
	{
		.tcase = "session",
		.name = "session_end_wrapping_past_max_is_late_at_once",
		SESSION(10),
		.lateness = 0,
		.side_output = true,
		.steps =
			{
				ELEM(1, 1, WM_TS_MAX - 5),
				COUNTER(records_accepted, 1),
				SESSIONS(1),
				WMARK(0),
				RESULT(1, WM_TS_MAX - 5, WM_TS_MIN + 4, 1),
				WATERMARK(0),
				EMPTY,
				ELEM(1, 1, WM_TS_MAX - 5),
				NOTHING,
				COUNTER(records_ignored, 1),
				EMPTY,
				BALANCED,
			},
	},
	/* ---- tcase runs: what a run pays once must not change a result;
	 * every scenario is also played as runs (test_scenario_as_runs) ---- */

	/* Keys that alternate within one window, a key whose window changes
	 * and comes back: each record finds its own key's state. */
	{
		.tcase = "runs",
		.name = "alternating_keys_and_windows_find_their_own_state",
		TUMBLING(1000, 0),
		.lateness = 0,
		.steps =
			{
				ELEM(1, 1, 10),
				ELEM(2, 10, 11),
				ELEM(1, 2, 12),
				ELEM(2, 20, 13),
				ELEM(1, 100, 1500),
				ELEM(1, 4, 14),
				ELEM(1, 200, 1999),
				ELEM(1, 8, 999),
				STATES(3),
				WMARK(1999),
				FULL_RESULT(1, 0, 1000, 4, 15, 1, 8),
				FULL_RESULT(2, 0, 1000, 2, 30, 10, 20),
				FULL_RESULT(1, 1000, 2000, 2, 300, 100, 200),
				WATERMARK(1999),
				NOTHING,
				BALANCED,
			},
	},
	/* A record late amid records on time of its key: it alone goes to
	 * the side output, the others into their window. */
	{
		.tcase = "runs",
		.name = "record_late_amid_records_on_time_goes_alone",
		TUMBLING(1000, 0),
		.lateness = 0,
		.side_output = true,
		.steps =
			{
				QUIET_WATERMARK(999),
				ELEM(1, 1, 1500),
				ELEM(1, 5, 500),
				ELEM(1, 1, 1600),
				SIDE(1, 5, 500),
				NOTHING,
				WMARK(1999),
				RESULT(1, 1000, 2000, 2),
				WATERMARK(1999),
				COUNTER(late_records_side_output, 1),
				BALANCED,
			},
	},
	/* Purging late firings: each record of one key and window fires the
	 * window at once and empties it, so the next finds no state where
	 * the last one left it and starts anew (count 1, its own min and
	 * max), never the emptied slot. */
	{
		.tcase = "runs",
		.name = "purged_window_is_not_found_again",
		TUMBLING(1000, 0),
		.lateness = 1000,
		.purging = true,
		.steps =
			{
				QUIET_WATERMARK(1500),
				ELEM(1, 7, 100),
				ELEM(1, 3, 200),
				ELEM(1, 5, 300),
				LATE_FULL_RESULT(1, 0, 1000, 1, 7, 7, 7),
				LATE_FULL_RESULT(1, 0, 1000, 1, 3, 3, 3),
				LATE_FULL_RESULT(1, 0, 1000, 1, 5, 5, 5),
				NOTHING,
				STATES(0),
				BALANCED,
			},
	},
};

static void
expect_watermark(const char *where, wm_ts_t watermark)
{
	struct ev want = {.kind = EV_WATERMARK, .watermark = watermark};

	expect_ev(where, &want);
}

static void
expect_count(const char *where, const char *what, size_t got, int64_t want)
{
	ck_assert_msg(got == (uint64_t)want, "%s: %zu %s, expected %lld", where,
		      got, what, (long long)want);
}

/* Play one step; `where` names its scenario and number in failures. */
static void
play(const char *where, const struct step *s)
{
	const int64_t *v = s->v;

	switch (s->op) {
	case S_END:
		break;
	case S_ELEM:
	case S_ELEM_FAILS: {
		struct wm_record rec = {.ts = v[2], .key = v[0], .value = v[1]};
		int want = s->op == S_ELEM ? 0 : (int)v[3];
		int got = wm_window_process_element(h.op, &rec, &h.out);

		ck_assert_msg(got == want,
			      "%s: record key %lld value %lld @%lld returned "
			      "%d, expected %d",
			      where, (long long)v[0], (long long)v[1],
			      (long long)v[2], got, want);
		break;
	}
	case S_WMARK:
		wmark(v[0]);
		break;
	case S_QUIET_WATERMARK:
		wmark(v[0]);
		expect_watermark(where, v[0]);
		expect_nothing(where);
		break;
	case S_RESULT:
	case S_LATE_RESULT:
		expect_result(where, v[0], v[1], v[2], v[3], v[3],
			      s->op == S_LATE_RESULT);
		break;
	case S_FULL_RESULT:
	case S_LATE_FULL_RESULT:
		expect_result(where, v[0], v[1], v[2], v[3], v[4],
			      s->op == S_LATE_FULL_RESULT);
		ck_assert_msg(h.ev[h.next - 1].r.min == v[5] &&
				      h.ev[h.next - 1].r.max == v[6],
			      "%s: min %lld max %lld, expected %lld and %lld",
			      where, (long long)h.ev[h.next - 1].r.min,
			      (long long)h.ev[h.next - 1].r.max,
			      (long long)v[5], (long long)v[6]);
		break;
	case S_WATERMARK:
		expect_watermark(where, v[0]);
		break;
	case S_SIDE: {
		struct ev want = {.kind = EV_LATE};

		want.rec.ts = v[2];
		want.rec.key = v[0];
		want.rec.value = v[1];
		expect_ev(where, &want);
		break;
	}
	case S_NOTHING:
		expect_nothing(where);
		break;
	case S_COUNTER: {
		uint64_t got;

		memcpy(&got, (const char *)counters() + s->offset, sizeof(got));
		ck_assert_msg(got == (uint64_t)v[0],
			      "%s: counter %s is %" PRIu64
			      ", expected %" PRIu64,
			      where, s->counter, got, (uint64_t)v[0]);
		break;
	}
	case S_STATES:
		expect_count(where, "window states",
			     wm_window_state_count(h.op), v[0]);
		break;
	case S_TIMERS:
		expect_count(where, "timers", wm_window_timer_count(h.op),
			     v[0]);
		break;
	case S_SESSIONS:
		expect_count(where, "sessions", wm_window_session_count(h.op),
			     v[0]);
		break;
	case S_BALANCED:
		ck_assert_msg(wm_window_counters_balanced(counters()),
			      "%s: records are not all accounted for", where);
		break;
	case S_EMPTY:
		expect_count(where, "window states",
			     wm_window_state_count(h.op), 0);
		expect_count(where, "timers", wm_window_timer_count(h.op), 0);
		expect_count(where, "sessions", wm_window_session_count(h.op),
			     0);
		break;
	}
}

/* The window of scenario `sc`, opened into h. */
static void
open_scenario(const struct scenario *sc)
{
	switch (sc->kind) {
	case KIND_TUMBLING:
		open_tumbling(sc->size, sc->offset, sc->lateness, sc->purging,
			      sc->side_output);
		break;
	case KIND_SLIDING:
		open_sliding(sc->size, sc->slide, sc->offset, sc->lateness,
			     sc->purging, sc->side_output);
		break;
	case KIND_SESSION:
		open_session(sc->size, sc->lateness, sc->purging,
			     sc->side_output);
		break;
	}
	ck_assert_msg(h.op != NULL, "scenario \"%s\": no window kind",
		      sc->name);
}

/* Step k (from 0) of sc, counting through its prefix and then its steps;
 * NULL past the last. */
static const struct step *
scenario_step(const struct scenario *sc, size_t k)
{
	const struct step *scripts[] = {sc->prefix, sc->steps};

	for (size_t i = 0; i < N_ELEMS(scripts); i++) {
		size_t len = 0;

		while (scripts[i] != NULL && len < MAX_STEPS &&
		       scripts[i][len].op != S_END)
			len++;
		if (k < len)
			return &scripts[i][k];
		k -= len;
	}
	return NULL;
}

/*
 * The runner: open the scenario's window, then play its prefix and its
 * steps, numbered from 1 across both.
 */
START_TEST(test_scenario)
{
	const struct scenario *sc = &scenarios[_i];
	const struct step *st;
	char where[160];

	open_scenario(sc);
	for (size_t k = 0; (st = scenario_step(sc, k)) != NULL; k++) {
		snprintf(where, sizeof(where), "scenario \"%s\", step %zu",
			 sc->name, k + 1);
		play(where, st);
	}
}
END_TEST

/* Add the scenarios of `tcase` to tc, a loop test per run of rows. */
static void
add_scenarios(TCase *tc, const char *tcase)
{
	int n = (int)N_ELEMS(scenarios);

	for (int i = 0, end; i < n; i = end) {
		end = i + 1;
		if (strcmp(scenarios[i].tcase, tcase) != 0)
			continue;
		while (end < n && strcmp(scenarios[end].tcase, tcase) == 0)
			end++;
		tcase_add_loop_test(tc, test_scenario, i, end);
	}
}

/* ---- tests a script of steps cannot say; tcase order ---- */

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

/* ---- tcase accounting, besides its scenarios ---- */

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
	expect_nothing(__func__);
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

/*
 * A record whose (key, window) state exists needs no memory: with the
 * state table full (192 entries fill its first 256 slots to the load
 * limit) and no memory to grow it, such records are taken, alone and in
 * a run, and only a record of a new window fails.
 */
START_TEST(test_existing_window_needs_no_memory)
{
	enum { FULL = 192 };
	const struct wm_record old[] = {
		{.ts = 600, .key = 5, .value = 2},
		{.ts = 700, .key = 6, .value = 3},
		{.ts = 800, .key = 5, .value = 4},
	};
	struct wm_record rec = {.ts = 500, .value = 1};
	size_t late[N_ELEMS(old)], n_late;
	int fired = 0;

	open_tumbling(1000, 0, 0, false, false);
	for (int k = 0; k < FULL; k++) {
		rec.key = k;
		ck_assert_int_eq(wm_window_process_element(h.op, &rec, &h.out),
				 0);
	}
	wm_alloc_limit = 1024;
	ck_assert_int_eq(wm_window_process_element(h.op, &old[0], &h.out), 0);
	ck_assert_uint_eq(
		wm_window_process_run(h.op, &old[1], 2, &h.out, late, &n_late),
		2);
	ck_assert_uint_eq(n_late, 0);
	rec.key = FULL;
	ck_assert_int_eq(wm_window_process_element(h.op, &rec, &h.out),
			 -ENOMEM);
	wm_alloc_limit = SIZE_MAX;
	ck_assert_uint_eq(wm_window_state_count(h.op), FULL);
	ck_assert_uint_eq(counters()->records_accepted, FULL + 3);
	h.next = h.n;
	wmark(999);
	for (size_t i = h.next; i < h.n; i++) {
		const struct wm_window_result *r = &h.ev[i].r;

		if (h.ev[i].kind != EV_RESULT || (r->key != 5 && r->key != 6))
			continue;
		ck_assert_int_eq(r->count, r->key == 5 ? 3 : 2);
		ck_assert_int_eq(r->sum, r->key == 5 ? 7 : 4);
		fired++;
	}
	ck_assert_int_eq(fired, 2);
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

/* ---- processing-time windows ---- */

/* A processing-time window of assigner `a` (set up by the caller). */
static void
open_processing(const struct wm_window_assigner *a)
{
	struct wm_window_config conf;
	const char *why = NULL;

	memset(&conf, 0, sizeof(conf));
	conf.assigner = *a;
	conf.processing_time = true;
	h.op = wm_window_new(&conf, &why);
	ck_assert_msg(h.op != NULL, "wm_window_new: %s", why ? why : "?");
	h.out.result = on_result;
	h.out.late = NULL;
	h.out.base.watermark = on_watermark;
	h.out.base.status = on_status;
	h.n = 0;
	h.next = 0;
}

/*
 * A record goes into the window of the processing time it arrives at,
 * whatever its timestamp (none, far behind, far ahead), and is never
 * late; the window fires once processing time is past its maxTs
 * (FLINK-9857), at wm_window_next_time(), and is gone; watermarks pass
 * through and fire nothing.
 */
START_TEST(test_processing_tumbling_fires_on_the_clock)
{
	struct wm_window_assigner a;
	const char *why;

	ck_assert_int_eq(wm_window_tumbling(&a, 10, 0, &why), 0);
	open_processing(&a);
	ck_assert_int_eq(wm_window_next_time(h.op), INT64_MAX);
	wm_window_advance_time(h.op, 3, &h.out);
	elem(1, 5, WM_TS_MIN);
	elem(1, 6, 1000000);
	elem(2, 7, -1000000);
	wmark(WM_TS_MAX - 1);
	expect_watermark("the watermark passes", WM_TS_MAX - 1);
	expect_nothing("a watermark fires no processing-time window");
	ck_assert_int_eq(wm_window_next_time(h.op), 10);
	wm_window_advance_time(h.op, 9, &h.out);
	expect_nothing("at its maxTs a window has not fired");
	elem(1, 1, 0); /* processing time 9: the same window */
	wm_window_advance_time(h.op, 10, &h.out);
	expect_result("past maxTs", 1, 0, 10, 3, 12, false);
	expect_result("past maxTs", 2, 0, 10, 1, 7, false);
	expect_nothing("one firing a window");
	ck_assert_uint_eq(wm_window_state_count(h.op), 0);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 0);
	ck_assert_int_eq(wm_window_next_time(h.op), INT64_MAX);
	/* Later records, later windows; a jump fires each in order. */
	elem(1, 2, 5); /* at 10: [10, 20) */
	wm_window_advance_time(h.op, 35, &h.out);
	elem(1, 3, 5); /* at 35: [30, 40) */
	wm_window_advance_time(h.op, 40, &h.out);
	expect_result("[10, 20)", 1, 10, 20, 1, 2, false);
	expect_result("[30, 40)", 1, 30, 40, 1, 3, false);
	expect_nothing("nothing else");
	ck_assert_int_eq(wm_window_counters(h.op)->records_accepted, 6);
	ck_assert_int_eq(wm_window_counters(h.op)->late_records_dropped, 0);
	ck_assert(wm_window_counters_balanced(wm_window_counters(h.op)));
	ck_assert_int_eq(wm_window_watermark(h.op), WM_TS_MAX - 1);
}
END_TEST

/* Sliding on processing time: a record in every window of its arrival,
 * each firing past its own maxTs. */
START_TEST(test_processing_sliding_fires_each_window)
{
	struct wm_window_assigner a;
	const char *why;

	ck_assert_int_eq(wm_window_sliding(&a, 10, 5, 0, &why), 0);
	open_processing(&a);
	wm_window_advance_time(h.op, 7, &h.out);
	elem(1, 4, 0); /* [0, 10) and [5, 15) */
	ck_assert_int_eq(wm_window_next_time(h.op), 10);
	wm_window_advance_time(h.op, 12, &h.out);
	expect_result("[0, 10)", 1, 0, 10, 1, 4, false);
	expect_nothing("[5, 15) still open");
	elem(1, 1, 0); /* at 12: [5, 15) and [10, 20) */
	wm_window_advance_time(h.op, 15, &h.out);
	expect_result("[5, 15)", 1, 5, 15, 2, 5, false);
	wm_window_advance_time(h.op, 20, &h.out);
	expect_result("[10, 20)", 1, 10, 20, 1, 1, false);
	expect_nothing("nothing else");
}
END_TEST

/* Runs stamp their records with the arrival in chunks: the same results
 * as one at a time, a run longer than a chunk included. */
START_TEST(test_processing_runs_match_one_by_one)
{
	enum { N = 1000 };
	static struct wm_record recs[N];
	struct wm_window_assigner a;
	struct wm_window_counters one;
	size_t late[N], n_late, first_results;
	const char *why;

	for (size_t i = 0; i < N; i++)
		recs[i] = (struct wm_record){.ts = (wm_ts_t)(i * 7919 % 1000) -
						   500,
					     .key = (int64_t)(i % 13),
					     .value = (int64_t)i};
	ck_assert_int_eq(wm_window_sliding(&a, 20, 10, 0, &why), 0);
	open_processing(&a);
	for (size_t i = 0; i < N; i++) {
		wm_window_advance_time(h.op, (int64_t)(i / 300) * 7, &h.out);
		ck_assert_int_eq(
			wm_window_process_element(h.op, &recs[i], &h.out), 0);
	}
	wm_window_advance_time(h.op, 1000, &h.out);
	one = *wm_window_counters(h.op);
	first_results = h.n;
	struct ev *by_one = malloc(h.n * sizeof(*by_one));
	ck_assert_ptr_nonnull(by_one);
	memcpy(by_one, h.ev, h.n * sizeof(*by_one));
	close_op();

	open_processing(&a);
	for (size_t i = 0; i < N; i += 300) {
		size_t n = N - i < 300 ? N - i : 300;

		wm_window_advance_time(h.op, (int64_t)(i / 300) * 7, &h.out);
		ck_assert_uint_eq(wm_window_process_run(h.op, &recs[i], n,
							&h.out, late, &n_late),
				  n);
		ck_assert_uint_eq(n_late, 0);
	}
	wm_window_advance_time(h.op, 1000, &h.out);
	ck_assert_uint_eq(h.n, first_results);
	/* Arrivals at 0, 7, 14 and 21 ms: windows from -10, 0, 10 and 20,
	 * each with every key. */
	ck_assert_uint_eq(h.n, 13 * 4);
	for (size_t i = 0; i < h.n; i++)
		ck_assert_msg(by_one[i].kind == EV_RESULT &&
				      h.ev[i].kind == EV_RESULT &&
				      by_one[i].r.key == h.ev[i].r.key &&
				      by_one[i].r.window.start ==
					      h.ev[i].r.window.start &&
				      by_one[i].r.count == h.ev[i].r.count &&
				      by_one[i].r.sum == h.ev[i].r.sum,
			      "result %zu differs", i);
	ck_assert_uint_eq(wm_window_counters(h.op)->records_accepted,
			  one.records_accepted);
	free(by_one);
}
END_TEST

/* What a processing-time window cannot be: a session, allowed lateness,
 * a late side output. */
START_TEST(test_processing_refuses_what_is_never_late)
{
	struct wm_window_config conf;
	const char *why;

	memset(&conf, 0, sizeof(conf));
	conf.processing_time = true;
	ck_assert_int_eq(wm_window_session(&conf.assigner, 10, &why), 0);
	errno = 0;
	ck_assert_ptr_null(wm_window_new(&conf, &why));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(wm_window_tumbling(&conf.assigner, 10, 0, &why), 0);
	conf.allowed_lateness = 5;
	errno = 0;
	ck_assert_ptr_null(wm_window_new(&conf, &why));
	ck_assert_int_eq(errno, EINVAL);
	conf.allowed_lateness = 0;
	conf.late_side_output = true;
	errno = 0;
	ck_assert_ptr_null(wm_window_new(&conf, &why));
	ck_assert_int_eq(errno, EINVAL);
	conf.late_side_output = false;
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

/* ---- tcase session, besides its scenarios ---- */

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
expect_agg(const char *where, const struct agg *a, bool late)
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
	expect_ev(where, &want);
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

		WM_HOT_ASSERT(n <= 16, "%d windows", n);
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
		expect_agg(__func__, &batch[i], false);
	}
	while (h.next < h.n && h.ev[h.next].kind == EV_WATERMARK)
		h.next++;
	expect_nothing(__func__);
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
		expect_ev(__func__, &m.want[i]);
		if (m.want[i].kind == EV_RESULT) {
			ck_assert_int_eq(h.ev[h.next - 1].r.min,
					 m.want[i].r.min);
			ck_assert_int_eq(h.ev[h.next - 1].r.max,
					 m.want[i].r.max);
		}
	}
	expect_nothing(__func__);
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

/* ---- tcase random: sessions ---- */

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
		expect_agg(__func__, &batch[i], false);
	}
	while (h.next < h.n && h.ev[h.next].kind == EV_WATERMARK)
		h.next++;
	expect_nothing(__func__);
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

/* ---- tcase runs: a run has the effect of its records one by one ---- */

/* An input of a play: a record, or a watermark. */
struct input {
	bool watermark;
	wm_ts_t w;
	struct wm_record rec;
};

/* What a play left: its output, described, and the operator's figures. */
struct outcome {
	char (*ev)[400];
	size_t n;
	struct wm_window_counters c;
	size_t states, timers, sessions;
	bool *late; /* per record, in order: judged late */
	size_t records;
};

/*
 * Records in[0..n) into the open operator: one by one through
 * wm_window_process_element() if len is 0, else in runs of len, the first
 * run cut after `cut` records if cut > 0. late[] gets each record's
 * verdict: from the counters one by one, from the run's indexes in runs.
 */
static void
feed(const struct wm_record *in, size_t n, size_t len, size_t cut, bool *late,
     const char *where)
{
	size_t idx[256];

	for (size_t i = 0, m; i < n; i += m) {
		size_t taken, n_late;

		if (len == 0) {
			uint64_t before = counters()->late_records_dropped +
					  counters()->late_records_side_output;

			m = 1;
			(void)wm_window_process_element(h.op, &in[i], &h.out);
			late[i] =
				counters()->late_records_dropped +
					counters()->late_records_side_output !=
				before;
			continue;
		}
		m = i == 0 && cut > 0 ? cut : len;
		if (m > n - i)
			m = n - i;
		ck_assert_uint_le(m, N_ELEMS(idx));
		taken = wm_window_process_run(h.op, &in[i], m, &h.out, idx,
					      &n_late);
		ck_assert_msg(taken == m, "%s: run of %zu took %zu", where, m,
			      taken);
		for (size_t k = 0; k < m; k++)
			late[i + k] = false;
		for (size_t k = 0; k < n_late; k++) {
			ck_assert_msg(idx[k] < m &&
					      (k == 0 || idx[k - 1] < idx[k]),
				      "%s: late index %zu out of order", where,
				      idx[k]);
			late[i + idx[k]] = true;
		}
	}
}

/* Play in[0..n) into the open operator, each stretch of records between
 * watermarks fed by feed(), and keep what it left in *o; closes it. */
static void
play_inputs(const struct input *in, size_t n, size_t len, size_t cut,
	    struct outcome *o, const char *where)
{
	struct wm_record *recs = calloc(n + 1, sizeof(*recs));
	size_t r = 0, first = 0;

	ck_assert_ptr_nonnull(recs);
	memset(o, 0, sizeof(*o));
	o->late = calloc(n + 1, sizeof(*o->late));
	ck_assert_ptr_nonnull(o->late);
	for (size_t i = 0; i <= n; i++) {
		if (i < n && !in[i].watermark) {
			recs[r++] = in[i].rec;
			continue;
		}
		feed(&recs[first], r - first, len, cut, &o->late[first], where);
		first = r;
		if (i < n)
			wmark(in[i].w);
	}
	o->records = r;
	o->n = h.n;
	o->ev = calloc(h.n + 1, sizeof(*o->ev));
	ck_assert_ptr_nonnull(o->ev);
	for (size_t i = 0; i < h.n; i++) {
		const struct wm_window_counters *c = &h.ev[i].seen;
		char d[200];

		snprintf(o->ev[i], sizeof(o->ev[i]),
			 "%s, counters in %" PRIu64 " accepted %" PRIu64
			 " late %" PRIu64 "+%" PRIu64 " fired %" PRIu64
			 "+%" PRIu64,
			 describe(&h.ev[i], d, sizeof(d)), c->records_in,
			 c->records_accepted, c->late_records_dropped,
			 c->late_records_side_output, c->windows_fired,
			 c->windows_fired_late);
	}
	o->c = *counters();
	o->states = wm_window_state_count(h.op);
	o->timers = wm_window_timer_count(h.op);
	o->sessions = wm_window_session_count(h.op);
	close_op();
	free(recs);
}

static void
outcome_free(struct outcome *o)
{
	free(o->ev);
	free(o->late);
}

/* Runs left what one by one left: the same output in the same order, the
 * same counters, sizes and verdicts. */
static void
expect_same(const char *where, const struct outcome *one,
	    const struct outcome *runs)
{
	for (size_t i = 0; i < one->n && i < runs->n; i++)
		WM_HOT_ASSERT(strcmp(one->ev[i], runs->ev[i]) == 0,
			      "%s: output %zu: one by one %s, in runs %s",
			      where, i, one->ev[i], runs->ev[i]);
	ck_assert_msg(one->n == runs->n,
		      "%s: %zu outputs one by one, %zu in runs", where, one->n,
		      runs->n);
	ck_assert_msg(
		memcmp(&one->c, &runs->c, sizeof(one->c)) == 0,
		"%s: counters differ (in %" PRIu64 "/%" PRIu64
		", accepted %" PRIu64 "/%" PRIu64 ", late %" PRIu64 "+%" PRIu64
		"/%" PRIu64 "+%" PRIu64 ")",
		where, one->c.records_in, runs->c.records_in,
		one->c.records_accepted, runs->c.records_accepted,
		one->c.late_records_dropped, one->c.late_records_side_output,
		runs->c.late_records_dropped, runs->c.late_records_side_output);
	ck_assert_msg(one->states == runs->states &&
			      one->timers == runs->timers &&
			      one->sessions == runs->sessions,
		      "%s: sizes differ", where);
	for (size_t i = 0; i < one->records; i++)
		WM_HOT_ASSERT(one->late[i] == runs->late[i],
			      "%s: record %zu late %d one by one, %d in runs",
			      where, i, one->late[i], runs->late[i]);
}

/* Play in[0..n) one by one, then in runs of several lengths and cut at
 * every position, each time into sc's window made anew. */
static void
expect_runs_match(const struct input *in, size_t n, const struct scenario *sc,
		  const char *name)
{
	static const size_t lens[] = {1, 2, 3, 4, 7, 64};
	struct outcome one, runs;
	char where[200];

	open_scenario(sc);
	play_inputs(in, n, 0, 0, &one, name);
	for (size_t l = 0; l < N_ELEMS(lens); l++) {
		snprintf(where, sizeof(where), "%s, runs of %zu", name,
			 lens[l]);
		open_scenario(sc);
		play_inputs(in, n, lens[l], 0, &runs, where);
		expect_same(where, &one, &runs);
		outcome_free(&runs);
	}
	for (size_t cut = 1; cut < n && cut < 64; cut++) {
		snprintf(where, sizeof(where), "%s, first run cut after %zu",
			 name, cut);
		open_scenario(sc);
		play_inputs(in, n, 64, cut, &runs, where);
		expect_same(where, &one, &runs);
		outcome_free(&runs);
	}
	outcome_free(&one);
}

/* Every scenario's records and watermarks, its expectations left out. */
START_TEST(test_scenario_as_runs)
{
	const struct scenario *sc = &scenarios[_i];
	const struct step *st;
	struct input in[2 * MAX_STEPS];
	char name[160];
	size_t n = 0;

	for (size_t k = 0; (st = scenario_step(sc, k)) != NULL; k++) {
		if (st->op == S_ELEM || st->op == S_ELEM_FAILS)
			in[n++] = (struct input){.rec = {.ts = st->v[2],
							 .key = st->v[0],
							 .value = st->v[1]}};
		else if (st->op == S_WMARK || st->op == S_QUIET_WATERMARK)
			in[n++] = (struct input){.watermark = true,
						 .w = st->v[0]};
	}
	snprintf(name, sizeof(name), "scenario \"%s\"", sc->name);
	expect_runs_match(in, n, sc, name);
}
END_TEST

/* Feed a run that must be taken whole; returns how many were late. */
static size_t
run_of(const struct wm_record *recs, size_t n, size_t *late)
{
	size_t n_late;

	ck_assert_uint_eq(
		wm_window_process_run(h.op, recs, n, &h.out, late, &n_late), n);
	return n_late;
}

/*
 * Memory runs out at the second record of a run: the first (late for all
 * its windows, so it needs no room) is taken and reported late, the second
 * and third are not looked at (nothing counted or emitted for them), and
 * feeding them again once memory is back takes them whole.
 */
START_TEST(test_run_out_of_memory_says_what_was_taken)
{
	const struct wm_record recs[] = {
		{.key = 1, .value = 1, .ts = -70000},
		{.key = 7, .value = 1, .ts = 50000},
		{.key = 8, .value = 1, .ts = 50001},
	};
	size_t late[N_ELEMS(recs)], n_late;

	open_sliding(100000, 1, 0, 20000, false, false);
	wmark(60000);
	h.next = h.n;
	wm_alloc_limit = 1 << 20;
	ck_assert_uint_eq(wm_window_process_run(h.op, recs, N_ELEMS(recs),
						&h.out, late, &n_late),
			  1);
	wm_alloc_limit = SIZE_MAX;
	ck_assert_uint_eq(n_late, 1);
	ck_assert_uint_eq(late[0], 0);
	expect_nothing(__func__);
	ck_assert_uint_eq(counters()->records_in, 1);
	ck_assert_uint_eq(counters()->late_records_dropped, 1);
	ck_assert_uint_eq(wm_window_state_count(h.op), 0);
	ck_assert_uint_eq(wm_window_timer_count(h.op), 0);
	ck_assert_uint_eq(run_of(&recs[1], 2, late), 0);
	ck_assert_uint_eq(counters()->records_in, 3);
	ck_assert_uint_eq(counters()->records_accepted, 2);
	ck_assert_uint_eq(wm_window_state_count(h.op), 2 * 100000);
	h.next = h.n;
	ASSERT_BALANCED();
}
END_TEST

/* The windows the random runs play. */
static const struct scenario random_windows[] = {
	{.name = "tumbling", TUMBLING(100, 0)},
	{.name = "tumbling, offset, lateness, side output",
	 TUMBLING(100, -37),
	 .lateness = 50,
	 .side_output = true},
	{.name = "tumbling, purging",
	 TUMBLING(100, 60),
	 .lateness = 50,
	 .purging = true,
	 .side_output = true},
	/* A window [WM_TS_MAX - 100, WM_TS_MAX) whose later timestamps wrap
	 * in ts - offset: the assigner gives them other windows. */
	{.name = "tumbling, offset -93",
	 TUMBLING(100, -93),
	 .side_output = true},
	{.name = "tumbling, offset 93", TUMBLING(100, 93), .side_output = true},
	{.name = "tumbling, huge",
	 TUMBLING(INT64_MAX / 2, INT64_MAX / 4),
	 .side_output = true},
	{.name = "sliding",
	 SLIDING(100, 30, 7),
	 .lateness = 40,
	 .side_output = true},
	{.name = "sliding, purging", SLIDING(90, 30, 0), .purging = true},
	{.name = "session", SESSION(50), .lateness = 30, .side_output = true},
	{.name = "session, purging", SESSION(40), .purging = true},
};

/* Timestamps at the ends of time, where the assigners wrap. */
static const wm_ts_t random_edges[] = {
	WM_TS_MIN,	     WM_TS_MIN + 1,
	WM_TS_MIN + 99,	     WM_TS_MAX,
	WM_TS_MAX - 1,	     WM_TS_MAX - 99,
	(int64_t)1 << 62,    ((int64_t)1 << 62) - 1,
	-((int64_t)1 << 62), -((int64_t)1 << 62) - 1,
	WM_TS_MAX - 50,	     WM_TS_MIN + 50,
	WM_TS_MIN + 101,
};

/* Random records (a few keys, timestamps about the watermark, now and
 * then a burst at one of the ends of time) and watermarks, one by one and
 * in runs. */
START_TEST(test_random_runs_match_one_by_one)
{
	const struct scenario *sc = &random_windows[_i];
	enum { N = 600 };
	struct input *in = calloc(N, sizeof(*in));
	unsigned seed = 2600 + (unsigned)_i;
	wm_ts_t w = 0, edge = 0;
	int burst = 0;
	char name[64];

	ck_assert_ptr_nonnull(in);
	for (size_t i = 0; i < N; i++) {
		int dice = rand_r(&seed) % 100;

		if (dice < 8) {
			w += rand_r(&seed) % 120;
			in[i] = (struct input){.watermark = true, .w = w};
			continue;
		}
		if (burst == 0 && dice < 14) {
			edge = random_edges[rand_r(&seed) %
					    (int)N_ELEMS(random_edges)];
			burst = 2 + rand_r(&seed) % 6;
		}
		in[i].rec.key = rand_r(&seed) % 3;
		in[i].rec.value = rand_r(&seed) % 1000 - 500;
		in[i].rec.partition = (uint32_t)(rand_r(&seed) % 4);
		if (burst > 0) {
			burst--;
			in[i].rec.ts =
				wm_ts_add(edge, rand_r(&seed) % 121 - 60);
		} else {
			in[i].rec.ts = w - 150 + rand_r(&seed) % 400;
		}
	}
	snprintf(name, sizeof(name), "random, %s", sc->name);
	expect_runs_match(in, N, sc, name);
	free(in);
}
END_TEST

static Suite *
window_suite(void)
{
	Suite *s = suite_create("window");
	TCase *tc;

	tc = tcase_create("conformance");
	tcase_add_checked_fixture(tc, setup, teardown);
	add_scenarios(tc, "conformance");
	suite_add_tcase(s, tc);

	tc = tcase_create("lateness");
	tcase_add_checked_fixture(tc, setup, teardown);
	add_scenarios(tc, "lateness");
	suite_add_tcase(s, tc);

	tc = tcase_create("order");
	tcase_add_checked_fixture(tc, setup, teardown);
	add_scenarios(tc, "order");
	tcase_add_test(tc, test_status_is_forwarded_unchanged);
	suite_add_tcase(s, tc);

	tc = tcase_create("aggregate");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_aggregates_count_sum_min_max_avg);
	tcase_add_test(tc, test_sum_wraps_like_java_long);
	suite_add_tcase(s, tc);

	tc = tcase_create("accounting");
	tcase_add_checked_fixture(tc, setup, teardown);
	add_scenarios(tc, "accounting");
	tcase_add_test(tc, test_invalid_configuration_is_rejected);
	tcase_add_test(tc, test_many_keys_grow_state_table);
	tcase_add_test(tc, test_out_of_memory_leaves_record_in_no_window);
	tcase_add_test(tc, test_existing_window_needs_no_memory);
	suite_add_tcase(s, tc);

	tc = tcase_create("session");
	tcase_add_checked_fixture(tc, setup, teardown);
	add_scenarios(tc, "session");
	tcase_add_test(tc, test_session_many_keys);
	suite_add_tcase(s, tc);

	tc = tcase_create("runs");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	add_scenarios(tc, "runs");
	tcase_add_loop_test(tc, test_scenario_as_runs, 0,
			    (int)N_ELEMS(scenarios));
	tcase_add_test(tc, test_run_out_of_memory_says_what_was_taken);
	tcase_add_loop_test(tc, test_random_runs_match_one_by_one, 0,
			    (int)N_ELEMS(random_windows));
	suite_add_tcase(s, tc);

	tc = tcase_create("processing");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_processing_tumbling_fires_on_the_clock);
	tcase_add_test(tc, test_processing_sliding_fires_each_window);
	tcase_add_test(tc, test_processing_runs_match_one_by_one);
	tcase_add_test(tc, test_processing_refuses_what_is_never_late);
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
