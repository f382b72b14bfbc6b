/*
 * check_window_snapshot.c
 *	Unit tests of the window operator's checkpoints (wm_window_snapshot()
 *	and wm_window_restore(), with the timers' and the session sets'):
 *	for seeded random streams over tumbling, sliding and session windows,
 *	allowed lateness, purging and the late side output, split at every
 *	point, [prefix; snapshot; restore into a new operator; suffix] emits
 *	what the whole stream emits after the split, in the same order,
 *	when the restored operator is given its watermark back (or has it
 *	restored, checkpoint_watermarks); what a restore at WM_TS_MIN does
 *	(late records accepted again, windows firing again); and that a
 *	malformed or foreign snapshot is refused with an error.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/container_of.h"
#include "lib/snap.h"
#include "operators/timer.h"
#include "operators/window.h"
#include "tests/unit/check_main.h"
#include "tests/unit/hot_assert.h"

/* ---- what an operator emitted ---- */

struct emitted {
	bool late; /* a late record, else a result */
	struct wm_window_result r;
	struct wm_record rec;
	size_t at; /* index of the input event that caused it */
};

struct sink {
	struct wm_window_output out;
	struct emitted *e;
	size_t n, cap;
	size_t at;
};

static struct emitted *
sink_push(struct sink *s)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->e = realloc(s->e, s->cap * sizeof(*s->e));
		ck_assert_ptr_nonnull(s->e);
	}
	memset(&s->e[s->n], 0, sizeof(s->e[s->n]));
	s->e[s->n].at = s->at;
	return &s->e[s->n++];
}

static void
on_result(struct wm_window_output *out, const struct wm_window_result *r)
{
	sink_push(wm_container_of(out, struct sink, out))->r = *r;
}

static void
on_late(struct wm_window_output *out, const struct wm_record *rec)
{
	struct emitted *e = sink_push(wm_container_of(out, struct sink, out));

	e->late = true;
	e->rec = *rec;
}

static void
on_watermark(struct wm_output *out, wm_ts_t wm)
{
	(void)out;
	(void)wm;
}

static void
on_status(struct wm_output *out, enum wm_status status)
{
	(void)out;
	(void)status;
}

static void
sink_init(struct sink *s)
{
	memset(s, 0, sizeof(*s));
	s->out.result = on_result;
	s->out.late = on_late;
	s->out.base.watermark = on_watermark;
	s->out.base.status = on_status;
}

static bool
emitted_equal(const struct emitted *a, const struct emitted *b)
{
	if (a->late != b->late)
		return false;
	if (a->late)
		return a->rec.ts == b->rec.ts && a->rec.key == b->rec.key &&
		       a->rec.value == b->rec.value;
	return a->r.key == b->r.key && a->r.window.start == b->r.window.start &&
	       a->r.window.end == b->r.window.end &&
	       a->r.timestamp == b->r.timestamp && a->r.count == b->r.count &&
	       a->r.sum == b->r.sum && a->r.min == b->r.min &&
	       a->r.max == b->r.max && a->r.late_firing == b->r.late_firing;
}

/* ---- seeded streams ---- */

static uint64_t
rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int64_t
below(uint64_t *s, uint64_t n)
{
	return (int64_t)(rnd(s) % n);
}

struct event {
	bool is_watermark;
	struct wm_record rec;
	wm_ts_t watermark;
};

#define STREAM_EVENTS 160

/* A random configuration and stream: records out of order by up to 60
 * ms, some of them late, watermarks now and then, a final WM_TS_MAX. */
static void
random_case(uint64_t seed, struct wm_window_config *conf, struct event *ev)
{
	uint64_t s = seed;
	const char *why;
	wm_ts_t t = 0, wm = WM_TS_MIN;
	int rc;

	memset(conf, 0, sizeof(*conf));
	switch (seed % 3) {
	case 0:
		rc = wm_window_tumbling(&conf->assigner, 10 + below(&s, 50), 0,
					&why);
		break;
	case 1: {
		int64_t size = 12 + below(&s, 48);

		rc = wm_window_sliding(&conf->assigner, size,
				       size / (2 + below(&s, 3)), 0, &why);
		break;
	}
	default:
		rc = wm_window_session(&conf->assigner, 5 + below(&s, 30),
				       &why);
		break;
	}
	ck_assert_int_eq(rc, 0);
	conf->allowed_lateness = below(&s, 3) == 0 ? 0 : below(&s, 80);
	conf->purging = below(&s, 2);
	conf->late_side_output = below(&s, 2);
	for (size_t i = 0; i + 1 < STREAM_EVENTS; i++) {
		t += below(&s, 12);
		if (below(&s, 5) == 0) {
			wm_ts_t next = t - below(&s, 30);

			if (next > wm)
				wm = next;
			ev[i] = (struct event){.is_watermark = true,
					       .watermark = wm};
			continue;
		}
		ev[i] = (struct event){
			.rec = {.ts = t - below(&s, 60),
				.key = 1 + below(&s, 4),
				.value = below(&s, 100) - 50},
		};
	}
	ev[STREAM_EVENTS - 1] =
		(struct event){.is_watermark = true, .watermark = WM_TS_MAX};
}

static void
feed(struct wm_window *op, struct sink *out, const struct event *ev,
     size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		out->at = i;
		if (ev[i].is_watermark)
			wm_window_process_watermark(op, ev[i].watermark,
						    &out->out);
		else
			WM_HOT_ASSERT(wm_window_process_element(op, &ev[i].rec,
								&out->out) == 0,
				      "event %zu", (size_t)i);
	}
}

static struct wm_window *
new_op(const struct wm_window_config *conf)
{
	const char *why = NULL;
	struct wm_window *op = wm_window_new(conf, &why);

	ck_assert_msg(op != NULL, "%s", why ? why : "out of memory");
	return op;
}

/* Snapshot `op` into *w (initialised here). */
static void
snapshot(const struct wm_window *op, struct wm_snap_writer *w,
	 bool with_watermark)
{
	wm_snap_writer_init(w);
	wm_window_snapshot(op, w);
	if (with_watermark)
		wm_window_snapshot_watermark(op, w);
	ck_assert_int_eq(wm_snap_writer_error(w), 0);
}

/* A new operator restored from *w. */
static struct wm_window *
restored(const struct wm_window_config *conf, const struct wm_snap_writer *w,
	 bool with_watermark)
{
	struct wm_window *op = new_op(conf);
	struct wm_snap_reader r;

	wm_snap_reader_init(&r, wm_snap_writer_bytes(w), wm_snap_writer_len(w));
	ck_assert_int_eq(wm_window_restore(op, &r), 0);
	if (with_watermark)
		ck_assert_int_eq(wm_window_restore_watermark(op, &r), 0);
	ck_assert_uint_eq(wm_snap_reader_left(&r), 0);
	return op;
}

static void
assert_same_state(const struct wm_window *a, const struct wm_window *b)
{
	ck_assert_uint_eq(wm_window_state_count(a), wm_window_state_count(b));
	ck_assert_uint_eq(wm_window_timer_count(a), wm_window_timer_count(b));
	ck_assert_uint_eq(wm_window_session_count(a),
			  wm_window_session_count(b));
	ck_assert_mem_eq(wm_window_counters(a), wm_window_counters(b),
			 sizeof(struct wm_window_counters));
}

enum watermark_after_restore {
	GIVEN_AGAIN, /* the restored operator is sent its old watermark */
	RESTORED,    /* checkpoint_watermarks: restored with the state */
};

/*
 * For every split point of one seeded case: the suffix after a restore
 * emits exactly what the whole run emits after the split.
 */
static void
split_everywhere(uint64_t seed, enum watermark_after_restore how)
{
	struct event ev[STREAM_EVENTS];
	struct wm_window_config conf;
	struct wm_window *whole;
	struct sink all;

	random_case(seed, &conf, ev);
	whole = new_op(&conf);
	sink_init(&all);
	feed(whole, &all, ev, 0, STREAM_EVENTS);

	for (size_t k = 0; k <= STREAM_EVENTS; k++) {
		struct wm_window *prefix = new_op(&conf), *rest;
		struct sink before, after;
		struct wm_snap_writer w;
		size_t first = 0;

		sink_init(&before);
		sink_init(&after);
		feed(prefix, &before, ev, 0, k);
		snapshot(prefix, &w, how == RESTORED);
		rest = restored(&conf, &w, how == RESTORED);
		if (how == GIVEN_AGAIN) {
			ck_assert_int_eq(wm_window_watermark(rest), WM_TS_MIN);
			if (wm_window_watermark(prefix) != WM_TS_MIN)
				wm_window_process_watermark(
					rest, wm_window_watermark(prefix),
					&after.out);
			/* Every timer it passes fired before the snapshot. */
			ck_assert_uint_eq(after.n, 0);
		}
		ck_assert_int_eq(wm_window_watermark(rest),
				 wm_window_watermark(prefix));
		assert_same_state(rest, prefix);
		feed(rest, &after, ev, k, STREAM_EVENTS);

		while (first < all.n && all.e[first].at < k)
			first++;
		ck_assert_msg(all.n - first == after.n,
			      "seed %llu split %zu: %zu outputs after the "
			      "split, %zu after the restore",
			      (unsigned long long)seed, k, all.n - first,
			      after.n);
		for (size_t i = 0; i < after.n; i++)
			WM_HOT_ASSERT(
				emitted_equal(&all.e[first + i], &after.e[i]),
				"seed %llu split %zu: output %zu differs",
				(unsigned long long)seed, k, i);
		assert_same_state(rest, whole);

		wm_snap_writer_release(&w);
		wm_window_free(prefix);
		wm_window_free(rest);
		free(before.e);
		free(after.e);
	}
	wm_window_free(whole);
	free(all.e);
}

START_TEST(test_split_anywhere_watermark_given_again)
{
	/* Seeds cover the three kinds (seed mod 3) several times. */
	for (uint64_t seed = 1; seed <= 24; seed++)
		split_everywhere(seed, GIVEN_AGAIN);
}
END_TEST

START_TEST(test_split_anywhere_watermark_restored)
{
	for (uint64_t seed = 101; seed <= 124; seed++)
		split_everywhere(seed, RESTORED);
}
END_TEST

/* ---- a restore at WM_TS_MIN (Flink's) ---- */

static struct wm_window_config
tumbling_10(int64_t lateness)
{
	struct wm_window_config conf = {.allowed_lateness = lateness};
	const char *why;

	ck_assert_int_eq(wm_window_tumbling(&conf.assigner, 10, 0, &why), 0);
	return conf;
}

static void
element(struct wm_window *op, struct sink *s, wm_ts_t ts, int64_t value)
{
	struct wm_record rec = {.ts = ts, .key = 1, .value = value};

	ck_assert_int_eq(wm_window_process_element(op, &rec, &s->out), 0);
}

/* A record late before the snapshot is accepted after a restore, since
 * the watermark starts again at WM_TS_MIN: its window is new again. */
START_TEST(test_restore_at_min_accepts_late_records)
{
	struct wm_window_config conf = tumbling_10(0);
	struct wm_window *op = new_op(&conf), *rest;
	struct wm_snap_writer w;
	struct sink s, t;

	sink_init(&s);
	sink_init(&t);
	element(op, &s, 5, 1);
	wm_window_process_watermark(op, 20, &s.out);
	ck_assert_uint_eq(s.n, 1);
	element(op, &s, 6, 1);
	ck_assert_uint_eq(wm_window_counters(op)->late_records_dropped, 1);

	snapshot(op, &w, false);
	rest = restored(&conf, &w, false);
	ck_assert_int_eq(wm_window_watermark(rest), WM_TS_MIN);
	element(rest, &t, 6, 1);
	ck_assert_uint_eq(wm_window_counters(rest)->records_accepted, 2);
	ck_assert_uint_eq(wm_window_counters(rest)->late_records_dropped, 1);
	wm_window_process_watermark(rest, 20, &t.out);
	ck_assert_uint_eq(t.n, 1);
	ck_assert_int_eq(t.e[0].r.window.start, 0);
	ck_assert_int_eq(t.e[0].r.count, 1);
	ck_assert(!t.e[0].r.late_firing);

	wm_snap_writer_release(&w);
	wm_window_free(op);
	wm_window_free(rest);
	free(s.e);
	free(t.e);
}
END_TEST

/*
 * A window kept for allowed lateness whose trigger fired before the
 * snapshot: after a restore at WM_TS_MIN an element for it is on time
 * again, so it sets the trigger timer again and the window fires again
 * when the watermark passes its end, as Flink's restored operator does
 * (the timer set drops nothing: the old trigger timer is gone).
 */
START_TEST(test_restore_at_min_fires_kept_windows_again)
{
	struct wm_window_config conf = tumbling_10(100);
	struct wm_window *op = new_op(&conf), *rest;
	struct wm_snap_writer w;
	struct sink s, t;

	sink_init(&s);
	sink_init(&t);
	element(op, &s, 5, 3);
	wm_window_process_watermark(op, 20, &s.out);
	ck_assert_uint_eq(s.n, 1);
	/* Only the cleanup timer at 109 is left. */
	ck_assert_uint_eq(wm_window_timer_count(op), 1);

	snapshot(op, &w, false);
	rest = restored(&conf, &w, false);
	ck_assert_uint_eq(wm_window_timer_count(rest), 1);
	element(rest, &t, 7, 4);
	ck_assert_uint_eq(t.n, 0); /* not a late firing: the window is open */
	ck_assert_uint_eq(wm_window_timer_count(rest), 2);
	wm_window_process_watermark(rest, 20, &t.out);
	ck_assert_uint_eq(t.n, 1);
	ck_assert_int_eq(t.e[0].r.count, 2);
	ck_assert_int_eq(t.e[0].r.sum, 7);
	ck_assert(!t.e[0].r.late_firing);
	wm_window_process_watermark(rest, 200, &t.out);
	ck_assert_uint_eq(wm_window_state_count(rest), 0);
	ck_assert_uint_eq(wm_window_timer_count(rest), 0);

	wm_snap_writer_release(&w);
	wm_window_free(op);
	wm_window_free(rest);
	free(s.e);
	free(t.e);
}
END_TEST

/* ---- the timers alone ---- */

START_TEST(test_timers_fire_in_the_same_order)
{
	struct wm_timer_service *a = wm_timer_new(), *b = wm_timer_new();
	struct wm_snap_writer w;
	struct wm_snap_reader r;
	struct wm_timer ta, tb;
	uint64_t s = 7;
	size_t fired = 0;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	for (int i = 0; i < 2000; i++)
		(void)wm_timer_add(a, below(&s, 300), below(&s, 5),
				   below(&s, 40));
	/* Deletions leave holes a restored heap does not have. */
	for (int i = 0; i < 500; i++)
		(void)wm_timer_delete(a, below(&s, 300), below(&s, 5),
				      below(&s, 40));
	wm_snap_writer_init(&w);
	wm_timer_snapshot(a, &w);
	ck_assert_int_eq(wm_snap_writer_error(&w), 0);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_timer_restore(b, &r), 0);
	ck_assert_uint_eq(wm_timer_count(a), wm_timer_count(b));
	ck_assert_int_eq(wm_timer_watermark(b), WM_TS_MIN);
	wm_timer_set_watermark(a, WM_TS_MAX);
	wm_timer_set_watermark(b, WM_TS_MAX);
	while (wm_timer_pop_due(a, &ta)) {
		ck_assert(wm_timer_pop_due(b, &tb));
		ck_assert_int_eq(ta.ts, tb.ts);
		ck_assert_int_eq(ta.key, tb.key);
		ck_assert_int_eq(ta.ns, tb.ns);
		fired++;
	}
	ck_assert(!wm_timer_pop_due(b, &tb));
	ck_assert_uint_gt(fired, 1000);
	wm_snap_writer_release(&w);
	wm_timer_free(a);
	wm_timer_free(b);
}
END_TEST

/* ---- refused snapshots ---- */

/* A snapshot of seed's prefix of k events; the caller releases it. */
static void
case_snapshot(uint64_t seed, size_t k, struct wm_window_config *conf,
	      struct wm_snap_writer *w)
{
	struct event ev[STREAM_EVENTS];
	struct wm_window *op;
	struct sink s;

	random_case(seed, conf, ev);
	op = new_op(conf);
	sink_init(&s);
	feed(op, &s, ev, 0, k);
	snapshot(op, w, false);
	wm_window_free(op);
	free(s.e);
}

START_TEST(test_every_truncation_is_refused)
{
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct wm_window_config conf;
		struct wm_snap_writer w;

		case_snapshot(seed, STREAM_EVENTS / 2, &conf, &w);
		for (size_t len = 0; len < wm_snap_writer_len(&w); len++) {
			uint8_t *copy = malloc(len ? len : 1);
			struct wm_window *op = new_op(&conf);
			struct wm_snap_reader r;

			ck_assert_ptr_nonnull(copy);
			memcpy(copy, wm_snap_writer_bytes(&w), len);
			wm_snap_reader_init(&r, copy, len);
			ck_assert_int_eq(wm_window_restore(op, &r), -EBADMSG);
			wm_window_free(op);
			free(copy);
		}
		wm_snap_writer_release(&w);
	}
}
END_TEST

START_TEST(test_another_configuration_is_refused)
{
	struct wm_window_config conf, other;
	struct wm_snap_writer w;
	struct wm_snap_reader r;
	struct wm_window *op;

	case_snapshot(3, 40, &conf, &w); /* a session window */
	other = conf;
	other.allowed_lateness++;
	op = new_op(&other);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_window_restore(op, &r), -EINVAL);
	wm_window_free(op);

	other = conf;
	other.purging = !other.purging;
	op = new_op(&other);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_window_restore(op, &r), -EINVAL);
	wm_window_free(op);

	other = tumbling_10(conf.allowed_lateness);
	op = new_op(&other);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_window_restore(op, &r), -EINVAL);
	wm_window_free(op);
	wm_snap_writer_release(&w);
}
END_TEST

START_TEST(test_restore_needs_a_new_operator)
{
	struct wm_window_config conf;
	struct wm_snap_writer w;
	struct wm_snap_reader r;
	struct wm_window *op;
	struct sink s;

	case_snapshot(1, 40, &conf, &w);
	op = new_op(&conf);
	sink_init(&s);
	element(op, &s, 5, 1);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w),
			    wm_snap_writer_len(&w));
	ck_assert_int_eq(wm_window_restore(op, &r), -EINVAL);
	wm_window_free(op);
	wm_snap_writer_release(&w);
	free(s.e);
}
END_TEST

/* A state entry written twice is no table the operator could have had. */
START_TEST(test_duplicate_state_is_refused)
{
	struct wm_window_config conf = tumbling_10(0);
	struct wm_window *op = new_op(&conf);
	struct wm_snap_writer w;
	struct wm_snap_reader r;
	struct sink s;
	uint8_t *copy;
	size_t len, entry_at;

	sink_init(&s);
	element(op, &s, 5, 1);
	element(op, &s, 15, 1);
	snapshot(op, &w, false);
	/* Header 16, config 4+8+8+8+4+8+1+1, counters 64, flag 1, count 8:
	 * then two entries of 56 bytes. Copy the first over the second. */
	entry_at = 16 + 42 + 64 + 1 + 8;
	len = wm_snap_writer_len(&w);
	copy = malloc(len);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, wm_snap_writer_bytes(&w), len);
	memcpy(copy + entry_at + 56, copy + entry_at, 56);
	wm_window_free(op);
	op = new_op(&conf);
	wm_snap_reader_init(&r, copy, len);
	ck_assert_int_eq(wm_window_restore(op, &r), -EBADMSG);
	/* The untouched copy restores. */
	wm_window_free(op);
	op = new_op(&conf);
	wm_snap_reader_init(&r, wm_snap_writer_bytes(&w), len);
	ck_assert_int_eq(wm_window_restore(op, &r), 0);
	ck_assert_uint_eq(wm_window_state_count(op), 2);
	free(copy);
	wm_window_free(op);
	wm_snap_writer_release(&w);
	free(s.e);
}
END_TEST

static Suite *
window_snapshot_suite(void)
{
	Suite *s = suite_create("window_snapshot");
	TCase *tc;

	tc = tcase_create("split");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_split_anywhere_watermark_given_again);
	tcase_add_test(tc, test_split_anywhere_watermark_restored);
	tcase_add_test(tc, test_timers_fire_in_the_same_order);
	suite_add_tcase(s, tc);

	tc = tcase_create("restore_at_min");
	tcase_add_test(tc, test_restore_at_min_accepts_late_records);
	tcase_add_test(tc, test_restore_at_min_fires_kept_windows_again);
	suite_add_tcase(s, tc);

	tc = tcase_create("refused");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_every_truncation_is_refused);
	tcase_add_test(tc, test_another_configuration_is_refused);
	tcase_add_test(tc, test_restore_needs_a_new_operator);
	tcase_add_test(tc, test_duplicate_state_is_refused);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(window_snapshot_suite());
}
