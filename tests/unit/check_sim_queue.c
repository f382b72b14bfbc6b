/*
 * check_sim_queue.c
 *	Unit tests of --sim's input queue (runtime/run/sim_queue.h): records
 *	of one channel with nothing between them make one run; anything
 *	between them, a frame or another channel's record, cuts it; the
 *	arrival order of frames and records is kept whatever the growth.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>

#include "runtime/run/sim_queue.h"
#include "tests/unit/check_main.h"

static struct wm_record
rec(int64_t ts)
{
	return (struct wm_record){.ts = ts, .key = ts * 7, .value = -ts};
}

static const struct wm_frame watermark = {.kind = WM_FRAME_WATERMARK};

START_TEST(records_of_one_channel_make_one_run)
{
	struct wm_sim_queue q = {0};

	for (int64_t i = 0; i < 5; i++) {
		struct wm_record r = rec(i);

		ck_assert_int_eq(wm_sim_queue_records(&q, 3, &r, 1), 0);
	}
	ck_assert_uint_eq(q.n, 1);
	ck_assert_uint_eq(q.items[0].channel, 3);
	ck_assert_uint_eq(q.items[0].n, 5);
	for (int64_t i = 0; i < 5; i++)
		ck_assert_int_eq(wm_sim_queue_run(&q, &q.items[0])[i].ts, i);
	wm_sim_queue_free(&q);
}
END_TEST

/* Channel of each arrival, 'w' for a watermark on channel 0, and the
 * items expected: a run's channel and length, or a frame (length 0). */
struct arrival_row {
	const char *name;
	const char *arrivals; /* '0'..'9': a record on that channel */
	uint32_t items;
	uint32_t channel[8], n[8];
};

static const struct arrival_row arrival_rows[] = {
	{"a frame cuts the run", "00w00", 3, {0, 0, 0}, {2, 0, 2}},
	{"another channel cuts the run", "0010", 3, {0, 1, 0}, {2, 1, 1}},
	{"frames alone", "ww", 2, {0, 0}, {0, 0}},
	{"a run after a frame", "w111", 2, {0, 1}, {0, 3}},
	{"alternating channels", "0101", 4, {0, 1, 0, 1}, {1, 1, 1, 1}},
};

START_TEST(anything_between_records_cuts_the_run)
{
	const struct arrival_row *row = &arrival_rows[_i];
	struct wm_sim_queue q = {0};
	int64_t ts = 0;

	for (const char *a = row->arrivals; *a != '\0'; a++) {
		struct wm_record r = rec(ts++);

		if (*a == 'w')
			ck_assert_int_eq(wm_sim_queue_frame(&q, 0, &watermark),
					 0);
		else
			ck_assert_int_eq(
				wm_sim_queue_records(&q, (uint32_t)(*a - '0'),
						     &r, 1),
				0);
	}
	ck_assert_msg(q.n == row->items, "%s: %zu items, expected %u",
		      row->name, q.n, row->items);
	for (uint32_t i = 0; i < row->items; i++)
		ck_assert_msg(q.items[i].channel == row->channel[i] &&
				      q.items[i].n == row->n[i],
			      "%s: item %u is channel %u with %u records, "
			      "expected %u with %u",
			      row->name, i, q.items[i].channel, q.items[i].n,
			      row->channel[i], row->n[i]);
	wm_sim_queue_free(&q);
}
END_TEST

/* Far past the first allocations, runs stay in order and whole, and a
 * clear empties both arrays. */
START_TEST(order_is_kept_through_growth)
{
	struct wm_sim_queue q = {0};
	int64_t ts = 0;

	for (int round = 0; round < 3000; round++) {
		for (int k = 0; k <= round % 7; k++) {
			struct wm_record r = rec(ts++);

			ck_assert_int_eq(
				wm_sim_queue_records(&q, round % 2, &r, 1), 0);
		}
		if (round % 5 == 0)
			ck_assert_int_eq(wm_sim_queue_frame(&q, 0, &watermark),
					 0);
	}
	ts = 0;
	for (size_t i = 0; i < q.n; i++) {
		const struct wm_record *run = wm_sim_queue_run(&q, &q.items[i]);

		for (uint32_t k = 0; k < q.items[i].n; k++, ts++)
			ck_assert_int_eq(run[k].ts, ts);
	}
	ck_assert_uint_eq(q.n_records, (size_t)ts);
	wm_sim_queue_clear(&q);
	ck_assert_uint_eq(q.n, 0);
	ck_assert_uint_eq(q.n_records, 0);
	wm_sim_queue_free(&q);
}
END_TEST

static Suite *
sim_queue_suite(void)
{
	Suite *s = suite_create("sim_queue");
	TCase *runs = tcase_create("runs");

	tcase_add_test(runs, records_of_one_channel_make_one_run);
	tcase_add_loop_test(runs, anything_between_records_cuts_the_run, 0,
			    sizeof(arrival_rows) / sizeof(arrival_rows[0]));
	tcase_add_test(runs, order_is_kept_through_growth);
	suite_add_tcase(s, runs);
	return s;
}

int
main(void)
{
	return wm_check_main(sim_queue_suite());
}
