/*
 * check_window_plugins.c
 *	Unit tests of a window's plugin aggregates (operators/window.h,
 *	operators/window_plugins.h): test aggregates that recompute count,
 *	sum, min and avg beside the operator's own, over tumbling, sliding
 *	and session windows with purging, lateness and late firings, must
 *	give exactly the built-in results in every firing, with one
 *	accumulator per aggregate for each state entry and none left over;
 *	checkpoints carry the accumulators and refuse other aggregates or
 *	bytes the plugin cannot read; a plugin that makes no accumulator is
 *	out of memory that leaves the record counted nowhere.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/time.h"
#include "lib/snap.h"
#include "operators/window.h"
#include "tests/unit/check_main.h"
#include "tests/unit/pair_text.h"

/* ---- the test aggregates --------------------------------------------- */

/* mirror(WHAT): WHAT one of count, sum, min, avg, computed as the
 * operator computes its own; mirror(WHAT, refuse_restore) restores
 * nothing. */
enum mirror_what { MIRROR_COUNT, MIRROR_SUM, MIRROR_MIN, MIRROR_AVG };

struct mirror {
	enum mirror_what what;
	bool refuse_restore;
};

struct mirror_acc {
	int64_t count, sum, min, max;
};

/* Accumulators alive, over every operator of the test. */
static long live_accumulators;
/* create_accumulator() gives NULL while set. */
static bool no_accumulators;

static void *
mirror_create(const char *args)
{
	static const char *const names[] = {"count", "sum", "min", "avg"};
	struct mirror *m;
	char what[16] = "";
	char extra[32] = "";

	if (sscanf(args, "%15[a-z] , %31s", what, extra) < 1)
		return NULL;
	for (int i = 0; i < 4; i++) {
		if (strcmp(what, names[i]) != 0)
			continue;
		if (extra[0] != '\0' && strcmp(extra, "refuse_restore") != 0)
			return NULL;
		m = calloc(1, sizeof(*m));
		m->what = (enum mirror_what)i;
		m->refuse_restore = extra[0] != '\0';
		return m;
	}
	return NULL;
}

static void *
mirror_create_accumulator(void *function)
{
	struct mirror_acc *a;

	(void)function;
	if (no_accumulators)
		return NULL;
	a = calloc(1, sizeof(*a));
	a->min = INT64_MAX;
	a->max = INT64_MIN;
	live_accumulators++;
	return a;
}

static void
mirror_destroy_accumulator(void *function, void *acc)
{
	(void)function;
	live_accumulators--;
	free(acc);
}

static void
mirror_add(void *function, void *acc, int64_t value, int64_t ts)
{
	struct mirror_acc *a = acc;

	(void)function;
	(void)ts;
	a->count++;
	a->sum = wm_ts_add(a->sum, value); /* Java's wrapping sum */
	if (value < a->min)
		a->min = value;
	if (value > a->max)
		a->max = value;
}

static void
mirror_merge(void *function, void *into, const void *from)
{
	struct mirror_acc *a = into;
	const struct mirror_acc *b = from;

	(void)function;
	a->count += b->count;
	a->sum = wm_ts_add(a->sum, b->sum);
	if (b->min < a->min)
		a->min = b->min;
	if (b->max > a->max)
		a->max = b->max;
}

static union wmrun_value
mirror_result(void *function, const void *acc)
{
	const struct mirror *m = function;
	const struct mirror_acc *a = acc;
	union wmrun_value v;

	switch (m->what) {
	case MIRROR_COUNT:
		v.as_long = a->count;
		break;
	case MIRROR_SUM:
		v.as_long = a->sum;
		break;
	case MIRROR_MIN:
		v.as_long = a->min;
		break;
	default:
		v.as_double = (double)a->sum / (double)a->count;
	}
	return v;
}

static size_t
mirror_snapshot(void *function, const void *acc, unsigned char *buf,
		size_t size)
{
	(void)function;
	if (size >= sizeof(struct mirror_acc))
		memcpy(buf, acc, sizeof(struct mirror_acc));
	return sizeof(struct mirror_acc);
}

static void *
mirror_restore(void *function, const unsigned char *bytes, size_t len)
{
	const struct mirror *m = function;
	struct mirror_acc *a;

	if (m->refuse_restore || len != sizeof(*a))
		return NULL;
	a = malloc(sizeof(*a));
	memcpy(a, bytes, sizeof(*a));
	live_accumulators++;
	return a;
}

/* The mirror functions under `name`, giving a `type`. */
#define MIRROR(name_, type)                                                    \
	{                                                                      \
		.name = (name_), .result_type = (type),                        \
		.create = mirror_create, .destroy = free,                      \
		.create_accumulator = mirror_create_accumulator,               \
		.destroy_accumulator = mirror_destroy_accumulator,             \
		.add = mirror_add, .merge = mirror_merge,                      \
		.result = mirror_result, .snapshot = mirror_snapshot,          \
		.restore = mirror_restore,                                     \
	}

static const struct wmrun_aggregate_function mirror_long =
	MIRROR("mirror", WMRUN_RESULT_LONG);
static const struct wmrun_aggregate_function mirror_double =
	MIRROR("mirror_avg", WMRUN_RESULT_DOUBLE);

/* ---- the operator's output -------------------------------------------- */

/* What the operator emitted, as text (pair_text.h). */
struct sink {
	struct wm_window_output out;
	size_t results;
	struct pair_text text;
	char buf[1 << 20];
};

static struct sink sink_a, sink_b;

/* Every result: the plugins' results are the operator's own. */
static void
sink_result(struct wm_window_output *o, const struct wm_window_result *r)
{
	struct sink *s = (struct sink *)o;

	s->results++;
	ck_assert_ptr_nonnull(r->plugin_results);
	ck_assert_int_eq(r->plugin_results[0].as_long, r->count);
	ck_assert_int_eq(r->plugin_results[1].as_long, r->sum);
	ck_assert_int_eq(r->plugin_results[2].as_long, r->min);
	ck_assert(r->plugin_results[3].as_double == wm_window_result_avg(r));
	pair_text_printf(
		&s->text,
		"R(%" PRId64 " [%" PRId64 ",%" PRId64 ") %" PRId64 " %" PRId64
		" %" PRId64 " %.17g%s) ",
		r->key, r->window.start, r->window.end,
		r->plugin_results[0].as_long, r->plugin_results[1].as_long,
		r->plugin_results[2].as_long, r->plugin_results[3].as_double,
		r->late_firing ? "L" : "");
}

static void
sink_late(struct wm_window_output *o, const struct wm_record *r)
{
	pair_text_printf(&((struct sink *)o)->text,
			 "late(%" PRId64 "@%" PRId64 ") ", r->key, r->ts);
}

static void
sink_watermark(struct wm_output *o, wm_ts_t w)
{
	pair_text_printf(&wm_container_of(o, struct sink, out.base)->text,
			 "W(%" PRId64 ") ", w);
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
	s->out.result = sink_result;
	s->out.late = sink_late;
	s->out.base.watermark = sink_watermark;
	s->out.base.status = sink_status;
	s->results = 0;
	pair_text_init(&s->text, s->buf, sizeof(s->buf));
}

/* ---- configurations ----------------------------------------------------- */

/* Configuration `variant`: 0 tumbling, 1 sliding, 2 sessions, 3
 * tumbling purging with lateness and a late output, 4 sliding with
 * lateness, 5 sessions with lateness; with the four mirrors, the last
 * made with `last_args`. */
static struct wm_window_config
config(int variant, const char *last_args)
{
	struct wm_window_config c = {0};
	const char *why = NULL;
	int kind = variant % 3, err;

	if (kind == 0)
		err = wm_window_tumbling(&c.assigner, 100, 0, &why);
	else if (kind == 1)
		err = wm_window_sliding(&c.assigner, 100, 30, 0, &why);
	else
		err = wm_window_session(&c.assigner, 50, &why);
	ck_assert_int_eq(err, 0);
	if (variant >= 3) {
		c.allowed_lateness = 70;
		c.purging = variant == 3;
		c.late_side_output = variant == 3;
	}
	c.n_plugin_aggregates = 4;
	c.plugin_aggregates[0] =
		(struct wm_window_plugin_aggregate){&mirror_long, "count"};
	c.plugin_aggregates[1] =
		(struct wm_window_plugin_aggregate){&mirror_long, "sum"};
	c.plugin_aggregates[2] =
		(struct wm_window_plugin_aggregate){&mirror_long, "min"};
	c.plugin_aggregates[3] =
		(struct wm_window_plugin_aggregate){&mirror_double, last_args};
	return c;
}

static struct wm_window *
window_new(int variant, const char *last_args)
{
	struct wm_window_config c = config(variant, last_args);
	const char *why = NULL;
	struct wm_window *op = wm_window_new(&c, &why);

	ck_assert_msg(op != NULL, "%s", why != NULL ? why : "no memory");
	return op;
}

/* Step i of a random job (seeded by i alone): a record, mostly, of 5
 * keys, out of order, with values that wrap the sum now and then; or a
 * watermark that moves on. */
static void
step(struct wm_window *op, struct sink *s, uint64_t i)
{
	uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull;
	struct wm_record r;

	x ^= x >> 29;
	x *= 0xBF58476D1CE4E5B9ull;
	x ^= x >> 32;
	if (x % 8 == 0) {
		wm_window_process_watermark(op, (wm_ts_t)(i * 4) - 40, &s->out);
		return;
	}
	r.key = (int64_t)(x >> 8) % 5;
	r.ts = (wm_ts_t)(i * 4) - (wm_ts_t)((x >> 16) % 120);
	r.value = (x >> 24) % 50 == 0 ? INT64_MAX - (int64_t)(x % 7)
				      : (int64_t)((x >> 24) % 1000) - 500;
	r.partition = 0;
	ck_assert_int_eq(wm_window_process_element(op, &r, &s->out), 0);
}

/* One accumulator of each of the 4 aggregates per state entry. */
static void
assert_in_step(const struct wm_window *op)
{
	ck_assert_int_eq(live_accumulators,
			 4 * (long)wm_window_state_count(op));
}

/* ---- tests -------------------------------------------------------------- */

START_TEST(test_plugins_give_the_builtin_results_in_every_firing)
{
	struct wm_window *op = window_new(_i, "avg");
	struct sink *s = &sink_a;

	sink_init(s);
	for (uint64_t i = 0; i < 20000; i++) {
		step(op, s, i);
		if (i % 97 == 0)
			assert_in_step(op);
	}
	wm_window_process_watermark(op, WM_TS_MAX, &s->out);
	ck_assert_uint_gt(s->results, 500);
	ck_assert_uint_gt(
		wm_window_counters(op)->windows_fired_late +
			wm_window_counters(op)->late_records_dropped +
			wm_window_counters(op)->late_records_side_output,
		0);
	ck_assert_uint_eq(wm_window_state_count(op), 0);
	assert_in_step(op);
	wm_window_free(op);
	ck_assert_int_eq(live_accumulators, 0);
}
END_TEST

START_TEST(test_a_window_freed_with_contents_destroys_them)
{
	struct wm_window *op = window_new(_i, "avg");

	sink_init(&sink_a);
	for (uint64_t i = 0; i < 500; i++)
		step(op, &sink_a, i);
	ck_assert_uint_gt(wm_window_state_count(op), 0);
	assert_in_step(op);
	wm_window_free(op);
	ck_assert_int_eq(live_accumulators, 0);
}
END_TEST

static void
snapshot_of(const struct wm_window *op, struct wm_snap_writer *w)
{
	wm_snap_writer_init(w);
	wm_window_snapshot(op, w);
	ck_assert_int_eq(wm_snap_writer_error(w), 0);
}

static int
restore_into(struct wm_window *op, const struct wm_snap_writer *w, size_t len)
{
	struct wm_snap_reader r;

	wm_snap_reader_init(&r, wm_snap_writer_bytes(w), len);
	return wm_window_restore(op, &r);
}

START_TEST(test_restore_goes_on_with_the_accumulators)
{
	struct wm_window *a = window_new(_i, "avg");
	struct wm_window *b, *other;
	struct wm_snap_writer w;
	const char *want;
	long before;

	sink_init(&sink_a);
	sink_init(&sink_b);
	for (uint64_t i = 0; i < 3000; i++)
		step(a, &sink_a, i);
	ck_assert_uint_gt(wm_window_state_count(a), 0);
	snapshot_of(a, &w);
	before = live_accumulators;

	b = window_new(_i, "avg");
	ck_assert_int_eq(restore_into(b, &w, wm_snap_writer_len(&w)), 0);
	ck_assert_uint_eq(wm_window_state_count(b), wm_window_state_count(a));
	ck_assert_int_eq(live_accumulators, 2 * before);
	wm_window_process_watermark(b, wm_window_watermark(a), &sink_b.out);
	(void)pair_text_take(&sink_a.text);
	(void)pair_text_take(&sink_b.text);
	for (uint64_t i = 3000; i < 6000; i++) {
		step(a, &sink_a, i);
		step(b, &sink_b, i);
	}
	wm_window_process_watermark(a, WM_TS_MAX, &sink_a.out);
	wm_window_process_watermark(b, WM_TS_MAX, &sink_b.out);
	want = pair_text_take(&sink_a.text);
	ck_assert_uint_gt(strlen(want), 1000);
	ck_assert_str_eq(pair_text_take(&sink_b.text), want);
	wm_window_free(a);
	wm_window_free(b);
	ck_assert_int_eq(live_accumulators, 0);

	/* Other arguments, no plugins at all, bytes the plugin cannot
	 * read, or a snapshot cut short: refused, nothing left alive. */
	other = window_new(_i, "sum");
	ck_assert_int_eq(restore_into(other, &w, wm_snap_writer_len(&w)),
			 -EINVAL);
	wm_window_free(other);
	{
		struct wm_window_config c = config(_i, "avg");
		const char *why = NULL;

		c.n_plugin_aggregates = 0;
		other = wm_window_new(&c, &why);
		ck_assert_int_ne(
			restore_into(other, &w, wm_snap_writer_len(&w)), 0);
		wm_window_free(other);
	}
	other = window_new(_i, "avg, refuse_restore");
	ck_assert_int_ne(restore_into(other, &w, wm_snap_writer_len(&w)), 0);
	wm_window_free(other);
	for (size_t len = 0; len < wm_snap_writer_len(&w); len += 61) {
		other = window_new(_i, "avg");
		ck_assert_int_ne(restore_into(other, &w, len), 0);
		wm_window_free(other);
	}
	ck_assert_int_eq(live_accumulators, 0);
	wm_snap_writer_release(&w);
}
END_TEST

START_TEST(test_arguments_a_plugin_refuses_refuse_the_window)
{
	struct wm_window_config c = config(0, "median");
	const char *why = NULL;

	errno = 0;
	ck_assert_ptr_null(wm_window_new(&c, &why));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_str_eq(why, "a plugin aggregate refuses its arguments");
	c = config(0, "avg");
	c.n_plugin_aggregates = WM_WINDOW_PLUGIN_AGGREGATES + 1;
	ck_assert_ptr_null(wm_window_new(&c, &why));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(test_no_accumulator_is_out_of_memory_counting_nothing)
{
	struct wm_window *op = window_new(_i, "avg");
	struct wm_record r = {.key = 1, .ts = 10, .value = 5};
	struct wm_window_counters before;

	sink_init(&sink_a);
	ck_assert_int_eq(wm_window_process_element(op, &r, &sink_a.out), 0);
	before = *wm_window_counters(op);
	no_accumulators = true;
	r.key = 2;
	ck_assert_int_eq(wm_window_process_element(op, &r, &sink_a.out),
			 -ENOMEM);
	ck_assert_mem_eq(wm_window_counters(op), &before, sizeof(before));
	assert_in_step(op);
	/* The window the record already had takes it still. */
	r.key = 1;
	if (_i != 1) /* a sliding record opens windows of its own */
		ck_assert_int_eq(wm_window_process_element(op, &r, &sink_a.out),
				 0);
	no_accumulators = false;
	assert_in_step(op);
	wm_window_free(op);
	ck_assert_int_eq(live_accumulators, 0);
}
END_TEST

static Suite *
window_plugins_suite(void)
{
	Suite *s = suite_create("window_plugins");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(
		tc, test_plugins_give_the_builtin_results_in_every_firing, 0,
		6);
	tcase_add_loop_test(tc, test_a_window_freed_with_contents_destroys_them,
			    0, 6);
	tcase_add_loop_test(tc, test_restore_goes_on_with_the_accumulators, 0,
			    6);
	tcase_add_test(tc, test_arguments_a_plugin_refuses_refuse_the_window);
	tcase_add_loop_test(
		tc, test_no_accumulator_is_out_of_memory_counting_nothing, 0,
		3);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(window_plugins_suite());
}
