/*
 * check_map_report.c
 *	A map's counts, published per source subtask in its metrics block,
 *	summed by the summary (runtime/report/): its line in the stage list
 *	with the record errors by cause, the JSON's "maps", and "every
 *	record accounted" only when each map's rows in are its rows out,
 *	filtered and failed together.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/expr.h"
#include "runtime/report/report.h"
#include "tests/unit/check_main.h"
#include "tests/unit/job_blocks.h"

/* A Nexmark source of two subtasks (plan ids 0 and 1) read by maps a and
 * b, each written by a sink. */
static const char *const two_maps =
	"[job]\nevent_time_origin = 2015-07-15\n"
	"[source bids]\ngenerator = nexmark\nnexmark.kind = bid\n"
	"nexmark.events = 100\nparallelism = 2\npartitions = 4\n"
	"[map a]\ninput = bids\nwhere = auction % 123 = 0\n"
	"select = auction / (price - price) AS x\n"
	"[map b]\ninput = bids\n"
	"[sink out_a]\ninput = a\npath = -\n"
	"[sink out_b]\ninput = b\npath = -\n";

static void
set_map(struct wm_map_metrics *m, uint64_t in, uint64_t out, uint64_t filtered,
	uint64_t by_zero)
{
	WM_METRIC_SET(m->in, in);
	WM_METRIC_SET(m->out, out);
	WM_METRIC_SET(m->filtered, filtered);
	WM_METRIC_SET(m->errors[WM_EXPR_DIVISION_BY_ZERO], by_zero);
}

/* What wm_report_print() writes, in a buffer the caller frees. */
static char *
printed(const struct wm_topology *t, const struct wm_job_report *rep, bool json)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	if (json)
		ck_assert_int_eq(wm_report_print_json(f, t, rep), 0);
	else
		wm_report_print(f, t, rep);
	ck_assert_int_eq(fclose(f), 0);
	return text;
}

START_TEST(test_map_counts_are_summed_and_accounted)
{
	struct wm_topology *t;
	struct wm_plan *plan;
	char *blocks, *text;
	struct wm_job_report rep;

	job_blocks_open(two_maps, &t, &plan, &blocks);
	ck_assert_uint_eq(plan->n_subtasks, 2); /* maps and sinks chained */
	/* a is slot 0 of both subtasks, b slot 1. */
	set_map(&wm_plan_block(plan, blocks, 0)->maps[0], 30, 0, 28, 2);
	set_map(&wm_plan_block(plan, blocks, 1)->maps[0], 20, 0, 19, 1);
	set_map(&wm_plan_block(plan, blocks, 0)->maps[1], 30, 30, 0, 0);
	set_map(&wm_plan_block(plan, blocks, 1)->maps[1], 20, 20, 0, 0);
	ck_assert_int_eq(wm_report_collect(&rep, t, plan, blocks, 0, 0, true),
			 0);
	ck_assert_uint_eq(rep.n_maps, 2);
	ck_assert_str_eq(t->stages[rep.maps[0].stage].name, "a");
	ck_assert_uint_eq(rep.maps[0].in, 50);
	ck_assert_uint_eq(rep.maps[0].filtered, 47);
	ck_assert_uint_eq(rep.maps[0].errors[WM_EXPR_DIVISION_BY_ZERO], 3);
	ck_assert_str_eq(t->stages[rep.maps[1].stage].name, "b");
	ck_assert_uint_eq(rep.maps[1].out, 50);
	ck_assert(wm_report_accounted(&rep));
	text = printed(t, &rep, false);
	ck_assert_msg(strstr(text,
			     "    map     a              in 50         "
			     "out 0          filtered 47  errors 3\n"
			     "      record errors: division by zero 3\n") !=
			      NULL,
		      "%s", text);
	ck_assert_msg(strstr(text,
			     "    map     b              in 50         "
			     "out 50         filtered 0  errors 0\n") != NULL,
		      "%s", text);
	free(text);
	text = printed(t, &rep, true);
	ck_assert_msg(strstr(text, "\"errors\":{\"division by zero\":3}") !=
			      NULL,
		      "%s", text);
	free(text);
	wm_report_free(&rep);

	/* One row of b's given and not accounted for. */
	set_map(&wm_plan_block(plan, blocks, 1)->maps[1], 21, 20, 0, 0);
	ck_assert_int_eq(wm_report_collect(&rep, t, plan, blocks, 0, 0, true),
			 0);
	ck_assert(!wm_report_accounted(&rep));
	wm_report_free(&rep);
	job_blocks_close(t, plan, blocks);
}
END_TEST

static Suite *
map_report_suite(void)
{
	Suite *s = suite_create("map_report");
	TCase *tc = tcase_create("summary");

	tcase_add_test(tc, test_map_counts_are_summed_and_accounted);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(map_report_suite());
}
