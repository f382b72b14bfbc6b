/*
 * check_map_rows.c
 *	Unit tests of the maps chained into a Nexmark source's subtasks
 *	(runtime/source/map_rows.h): the rows written for the records two
 *	subtasks emit are exactly q2's rows of the stream, computed here from
 *	the generator's events in C, not through the expression language;
 *	every record is counted once (in == out + filtered + errors); a
 *	division by zero is a counted error of its cause, not a row; an
 *	event id off the stream's first one is taken into account.
 */
#include "config.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "operators/map.h"
#include "operators/nexmark_row.h"
#include "operators/nexmark_source.h"
#include "operators/source_gen.h"
#include "runtime/conf/topology.h"
#include "runtime/io/sink.h"
#include "runtime/source/map_rows.h"
#include "tests/unit/check_main.h"

#define EVENTS 20000u
#define PARTITIONS 4u
#define SUBTASKS 2u

static struct wm_nexmark_source_conf
bids_conf(void)
{
	struct wm_nexmark_source_conf c = {
		.events = EVENTS,
		.partitions = PARTITIONS,
		.kind = WM_NEXMARK_BID,
		.key = WM_NEXMARK_FIELD_AUCTION,
		.value = WM_NEXMARK_FIELD_EVENT_ID,
	};

	wm_nexmark_config_defaults(&c.gen);
	c.gen.seed = 42;
	c.gen.base_time = 1436918400000; /* 2015-07-15 */
	c.gen.first_event_id = 1000;	 /* ids are not numbers */
	ck_assert_ptr_null(wm_nexmark_config_check(&c.gen));
	return c;
}

static struct wm_map *
compile(const char *where, const char *select)
{
	size_t n;
	const struct wm_expr_field *schema =
		wm_nexmark_row_schema(WM_NEXMARK_BID, &n);
	struct wm_map_error err;
	struct wm_map *m = NULL;

	ck_assert_msg(wm_map_new(schema, n, where, select, &m, &err) == 0, "%s",
		      err.message);
	return m;
}

static int
by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of the file at `path` after its first, sorted; *n of them. */
static char **
sorted_lines(const char *path, const char *header, size_t *n)
{
	FILE *f = fopen(path, "r");
	char **lines = NULL, *line = NULL;
	size_t cap = 0;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_gt(getline(&line, &cap, f), 0);
	ck_assert_str_eq(line, header);
	*n = 0;
	while (getline(&line, &cap, f) > 0) {
		lines = realloc(lines, (*n + 1) * sizeof(*lines));
		ck_assert_ptr_nonnull(lines);
		lines[(*n)++] = strdup(line);
	}
	free(line);
	fclose(f);
	qsort(lines, *n, sizeof(*lines), by_text);
	return lines;
}

START_TEST(test_two_subtasks_write_q2s_rows_and_count_every_record)
{
	struct wm_nexmark_source_conf c = bids_conf();
	char path[] = "/tmp/check_map_rows.XXXXXX", name[] = "out", err[512];
	struct wm_stage sink_stage = {.kind = WM_STAGE_SINK, .name = name};
	const struct wm_expr_field *cols;
	struct wm_sink *sink;
	uint64_t records = 0, bids = 0, kept = 0, divisions = 0;
	char **want = NULL, **got;
	size_t n_want = 0, n_got, n_cols;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	sink_stage.u.sink.path = path;
	{
		struct wm_map *probe =
			compile("auction % 123 == 0", "auction, price");

		cols = wm_map_outputs(probe, &n_cols);
		ck_assert_int_eq(wm_sink_open_rows(&sink, &sink_stage, cols,
						   n_cols, err, sizeof(err)),
				 0);
		wm_map_free(probe);
	}
	for (uint32_t sub = 0; sub < SUBTASKS; sub++) {
		uint32_t owned[PARTITIONS];
		size_t n_owned = wm_source_gen_partitions_of(
			sub, SUBTASKS, PARTITIONS, "nexmark", owned,
			PARTITIONS);
		struct wm_nexmark_source *ns =
			wm_nexmark_source_new(&c, owned, (uint32_t)n_owned);
		struct wm_record_source *src = wm_nexmark_source_base(ns);
		struct wm_map_rows *mr = wm_map_rows_new(&c.gen, c.kind);
		struct wm_record r;

		ck_assert_ptr_nonnull(mr);
		ck_assert_int_eq(wm_map_rows_add(mr,
						 compile("auction % 123 == 0",
							 "auction, price"),
						 &sink, 1),
				 0);
		/* Every bid fails: counted, written nowhere. */
		ck_assert_int_eq(
			wm_map_rows_add(mr,
					compile(NULL,
						"auction / (price - price) AS "
						"q"),
					NULL, 0),
			0);
		while (!src->ops->finished(src))
			while (src->ops->next(src, INT64_MAX, &r) == 1) {
				ck_assert_int_eq(wm_map_rows_record(mr, &r), 0);
				records++;
			}
		{
			const struct wm_map_counters *q2 =
				wm_map_rows_counters(mr, 0);
			const struct wm_map_counters *zero =
				wm_map_rows_counters(mr, 1);

			ck_assert_uint_eq(q2->in, q2->out + q2->filtered);
			kept += q2->out;
			ck_assert_uint_eq(
				zero->in,
				zero->errors[WM_EXPR_DIVISION_BY_ZERO]);
			ck_assert_uint_eq(zero->out, 0);
			divisions += zero->errors[WM_EXPR_DIVISION_BY_ZERO];
		}
		wm_map_rows_free(mr);
		wm_record_source_free(src);
	}
	ck_assert_int_eq(wm_sink_close(sink, false, err, sizeof(err)), 0);

	/* q2 by hand over the stream's events. */
	for (uint64_t n = 0; n < EVENTS; n++) {
		struct wm_nexmark_event e;
		char line[64];

		wm_nexmark_gen_event(&c.gen, n, &e);
		if (e.kind != WM_NEXMARK_BID)
			continue;
		bids++;
		if (e.bid.auction % 123 != 0)
			continue;
		snprintf(line, sizeof(line), "%" PRId64 ",%" PRId64 "\n",
			 e.bid.auction, e.bid.price);
		want = realloc(want, (n_want + 1) * sizeof(*want));
		ck_assert_ptr_nonnull(want);
		want[n_want++] = strdup(line);
	}
	qsort(want, n_want, sizeof(*want), by_text);
	ck_assert_uint_eq(records, bids);
	ck_assert_uint_eq(divisions, bids);
	ck_assert_uint_eq(kept, n_want);
	ck_assert_uint_gt(n_want, 10); /* the test sees rows at all */
	got = sorted_lines(path, "auction,price\n", &n_got);
	ck_assert_uint_eq(n_got, n_want);
	for (size_t i = 0; i < n_want; i++) {
		ck_assert_str_eq(got[i], want[i]);
		free(got[i]);
		free(want[i]);
	}
	free(got);
	free(want);
	unlink(path);
}
END_TEST

static Suite *
map_rows_suite(void)
{
	Suite *s = suite_create("map_rows");
	TCase *tc = tcase_create("rows");

	tcase_add_test(tc,
		       test_two_subtasks_write_q2s_rows_and_count_every_record);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(map_rows_suite());
}
