/*
 * check_map.c
 *	Unit tests of a map stage's operator over Nexmark's rows, and of a
 *	row's text: every column of every kind reads the event's own field;
 *	the benchmark's q1 and q2 give, row for row, what C computes from the
 *	generator's events; every row is counted once, kept, filtered or
 *	failed by its cause; compile errors name the text and the column;
 *	CSV and JSON lines quote and escape what they must, within the room
 *	they say they need.
 *
 * Expected values come from the event structs and plain C arithmetic,
 * never from the operator's code.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/countof.h"
#include "operators/map.h"
#include "operators/nexmark_row.h"
#include "runtime/io/row_text.h"
#include "tests/unit/check_main.h"

#define EVENTS 3000u

static struct wm_nexmark_config
stream(void)
{
	struct wm_nexmark_config c;

	wm_nexmark_config_defaults(&c);
	c.seed = 7;
	c.base_time = 1436918400000; /* 2015-07-15 */
	ck_assert_ptr_null(wm_nexmark_config_check(&c));
	return c;
}

static struct wm_map *
map_of(enum wm_nexmark_kind kind, const char *where, const char *select)
{
	const struct wm_expr_field *schema;
	struct wm_map_error err;
	struct wm_map *m;
	size_t n;

	schema = wm_nexmark_row_schema(kind, &n);
	ck_assert_msg(wm_map_new(schema, n, where, select, &m, &err) == 0,
		      "%s at %d: %s",
		      err.part == WM_MAP_WHERE ? "where" : "select", err.col,
		      err.message);
	return m;
}

static void
assert_text(const struct wm_expr_value *v, const char *s, size_t len)
{
	ck_assert_uint_eq(v->s.len, len);
	ck_assert_int_eq(memcmp(v->s.p, s, len), 0);
}

/* A column's value as the language reads it: `select NAME` over the
 * event's row, so that the schema's names, types and order and the
 * row's values are checked together. */
static struct wm_expr_value
column(const struct wm_nexmark_event *e, const char *name,
       enum wm_expr_type type)
{
	struct wm_expr_value in[WM_NEXMARK_ROW_MAX], out[1];
	const struct wm_expr_field *cols;
	enum wm_expr_status why;
	struct wm_map *m;
	size_t n;
	char select[64];

	snprintf(select, sizeof(select), "`%s`", name);
	m = map_of(e->kind, NULL, select);
	cols = wm_map_outputs(m, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(cols[0].name, name);
	ck_assert_int_eq(cols[0].type, type);
	wm_nexmark_row(e, in);
	ck_assert_int_eq(wm_map_row(m, in, out, &why), WM_MAP_KEPT);
	wm_map_free(m);
	return out[0];
}

static void
text_column(const struct wm_nexmark_event *e, const char *name, const char *s,
	    size_t len)
{
	struct wm_expr_value v = column(e, name, WM_EXPR_STRING);

	assert_text(&v, s, len);
}

START_TEST(test_every_column_reads_its_field)
{
	const struct wm_nexmark_config c = stream();
	unsigned seen[3] = {0};

	for (uint64_t i = 0; i < 200; i++) {
		struct wm_nexmark_event e;

		wm_nexmark_gen_event(&c, i, &e);
		seen[e.kind]++;
		if (e.kind == WM_NEXMARK_PERSON) {
			const struct wm_nexmark_person *p = &e.person;

			ck_assert_int_eq(column(&e, "id", WM_EXPR_BIGINT).i,
					 p->id);
			text_column(&e, "name", p->name, p->name_len);
			text_column(&e, "emailAddress", p->email, p->email_len);
			text_column(&e, "creditCard", p->credit_card,
				    strlen(p->credit_card));
			text_column(&e, "city", p->city, p->city_len);
			text_column(&e, "state", p->state, p->state_len);
			ck_assert_int_eq(
				column(&e, "dateTime", WM_EXPR_TIMESTAMP).i,
				p->date_time);
			text_column(&e, "extra", p->extra, p->extra_len);
		} else if (e.kind == WM_NEXMARK_AUCTION) {
			const struct wm_nexmark_auction *a = &e.auction;

			ck_assert_int_eq(column(&e, "id", WM_EXPR_BIGINT).i,
					 a->id);
			text_column(&e, "itemName", a->item_name,
				    a->item_name_len);
			text_column(&e, "description", a->description,
				    a->description_len);
			ck_assert_int_eq(
				column(&e, "initialBid", WM_EXPR_BIGINT).i,
				a->initial_bid);
			ck_assert_int_eq(
				column(&e, "reserve", WM_EXPR_BIGINT).i,
				a->reserve);
			ck_assert_int_eq(
				column(&e, "dateTime", WM_EXPR_TIMESTAMP).i,
				a->date_time);
			ck_assert_int_eq(
				column(&e, "expires", WM_EXPR_TIMESTAMP).i,
				a->expires);
			ck_assert_int_eq(column(&e, "seller", WM_EXPR_BIGINT).i,
					 a->seller);
			ck_assert_int_eq(
				column(&e, "category", WM_EXPR_BIGINT).i,
				a->category);
			text_column(&e, "extra", a->extra, a->extra_len);
		} else {
			const struct wm_nexmark_bid *b = &e.bid;

			ck_assert_int_eq(
				column(&e, "auction", WM_EXPR_BIGINT).i,
				b->auction);
			ck_assert_int_eq(column(&e, "bidder", WM_EXPR_BIGINT).i,
					 b->bidder);
			ck_assert_int_eq(column(&e, "price", WM_EXPR_BIGINT).i,
					 b->price);
			ck_assert_int_eq(
				column(&e, "dateTime", WM_EXPR_TIMESTAMP).i,
				b->date_time);
			text_column(&e, "extra", b->extra, b->extra_len);
		}
	}
	ck_assert_uint_gt(seen[WM_NEXMARK_PERSON], 0);
	ck_assert_uint_gt(seen[WM_NEXMARK_AUCTION], 0);
	ck_assert_uint_gt(seen[WM_NEXMARK_BID], 0);
}
END_TEST

START_TEST(test_a_bid_has_no_channel_or_url)
{
	const struct wm_expr_field *schema;
	struct wm_map_error err;
	struct wm_map *m = NULL;
	size_t n;

	schema = wm_nexmark_row_schema(WM_NEXMARK_BID, &n);
	ck_assert_int_eq(
		wm_map_new(schema, n, "channel = 'Google'", NULL, &m, &err),
		-EINVAL);
	ck_assert_ptr_null(m);
	ck_assert_int_eq(err.part, WM_MAP_WHERE);
	ck_assert_int_eq(err.col, 1);
	ck_assert_msg(strstr(err.message, "channel") != NULL &&
			      strstr(err.message, "bidder") != NULL,
		      "%s", err.message);
	ck_assert_int_eq(wm_map_new(schema, n, NULL, "auction, url", &m, &err),
			 -EINVAL);
	ck_assert_int_eq(err.part, WM_MAP_SELECT);
	ck_assert_int_eq(err.col, 10);
}
END_TEST

/* Nexmark's q2: SELECT auction, price FROM bid WHERE MOD(auction, 123)
 * = 0, against the same rule in C over the stream's bids. */
START_TEST(test_q2_keeps_the_bids_c_keeps)
{
	const struct wm_nexmark_config c = stream();
	struct wm_map *m = map_of(WM_NEXMARK_BID, "MOD(auction, 123) = 0",
				  "auction, price");
	const struct wm_map_counters *k = wm_map_counters(m);
	uint64_t bids = 0, kept = 0;
	size_t n;

	ck_assert_uint_eq((wm_map_outputs(m, &n), n), 2);
	for (uint64_t i = 0; i < EVENTS * 20; i++) {
		struct wm_expr_value in[WM_NEXMARK_ROW_MAX], out[2];
		struct wm_nexmark_event e;
		enum wm_expr_status why;
		enum wm_map_outcome got;

		wm_nexmark_gen_event(&c, i, &e);
		if (e.kind != WM_NEXMARK_BID)
			continue;
		bids++;
		wm_nexmark_row(&e, in);
		got = wm_map_row(m, in, out, &why);
		if (e.bid.auction % 123 != 0) {
			ck_assert_int_eq(got, WM_MAP_FILTERED);
			continue;
		}
		kept++;
		ck_assert_int_eq(got, WM_MAP_KEPT);
		ck_assert_int_eq(out[0].i, e.bid.auction);
		ck_assert_int_eq(out[1].i, e.bid.price);
	}
	ck_assert_uint_gt(kept, 0);
	ck_assert_uint_eq(k->in, bids);
	ck_assert_uint_eq(k->out, kept);
	ck_assert_uint_eq(k->filtered, bids - kept);
	wm_map_free(m);
}
END_TEST

/* Nexmark's q1: the price in euros, 0.908 * price, a DECIMAL of scale 3:
 * price * 908 thousandths exactly. */
START_TEST(test_q1_converts_every_price_exactly)
{
	const struct wm_nexmark_config c = stream();
	struct wm_map *m = map_of(WM_NEXMARK_BID, NULL,
				  "auction, bidder, 0.908 * price as price, "
				  "dateTime, extra");
	const struct wm_expr_field *cols;
	size_t n;

	cols = wm_map_outputs(m, &n);
	ck_assert_uint_eq(n, 5);
	ck_assert_str_eq(cols[2].name, "price");
	ck_assert_int_eq(cols[2].type, WM_EXPR_DECIMAL);
	ck_assert_uint_eq(cols[2].scale, 3);
	ck_assert_int_eq(cols[3].type, WM_EXPR_TIMESTAMP);
	for (uint64_t i = 0; i < EVENTS; i++) {
		struct wm_expr_value in[WM_NEXMARK_ROW_MAX], out[5];
		struct wm_nexmark_event e;
		enum wm_expr_status why;

		wm_nexmark_gen_event(&c, i, &e);
		if (e.kind != WM_NEXMARK_BID)
			continue;
		wm_nexmark_row(&e, in);
		ck_assert_int_eq(wm_map_row(m, in, out, &why), WM_MAP_KEPT);
		ck_assert(out[2].d == (__int128)e.bid.price * 908);
		ck_assert_int_eq(out[3].i, e.bid.date_time);
		assert_text(&out[4], e.bid.extra, e.bid.extra_len);
	}
	wm_map_free(m);
}
END_TEST

/* A division by a column that is 0 for some rows: those rows fail with
 * their cause, the others come out, and the counts add up. */
START_TEST(test_every_row_is_counted_once)
{
	static const struct wm_expr_field schema[] = {
		{"a", WM_EXPR_BIGINT, 0, 0},
		{"b", WM_EXPR_BIGINT, 0, 0},
	};
	struct wm_map_error err;
	struct wm_map *m;
	const struct wm_map_counters *k;
	uint64_t want_out = 0, want_filtered = 0, want_zero = 0, want_over = 0;

	ck_assert_int_eq(wm_map_new(schema, 2, "a <> 7",
				    "a / b as q, a * a as sq", &m, &err),
			 0);
	k = wm_map_counters(m);
	for (int64_t a = -10; a <= 10; a++)
		for (int64_t b = -3; b <= 3; b++) {
			struct wm_expr_value in[2] = {{.i = a}, {.i = b}},
					     out[2];
			enum wm_expr_status why = WM_EXPR_OK;
			enum wm_map_outcome got;

			if (a == 10)
				in[0].i = INT64_MAX; /* a * a overflows */
			got = wm_map_row(m, in, out, &why);
			if (a == 7) {
				want_filtered++;
				ck_assert_int_eq(got, WM_MAP_FILTERED);
			} else if (b == 0) {
				want_zero++;
				ck_assert_int_eq(got, WM_MAP_FAILED);
				ck_assert_int_eq(why, WM_EXPR_DIVISION_BY_ZERO);
			} else if (a == 10) {
				want_over++;
				ck_assert_int_eq(got, WM_MAP_FAILED);
				ck_assert_int_eq(why, WM_EXPR_OVERFLOW);
			} else {
				want_out++;
				ck_assert_int_eq(got, WM_MAP_KEPT);
				ck_assert_int_eq(out[0].i, a / b);
				ck_assert_int_eq(out[1].i, a * a);
			}
		}
	ck_assert_uint_eq(k->in, 21 * 7);
	ck_assert_uint_eq(k->out, want_out);
	ck_assert_uint_eq(k->filtered, want_filtered);
	ck_assert_uint_eq(k->errors[WM_EXPR_DIVISION_BY_ZERO], want_zero);
	ck_assert_uint_eq(k->errors[WM_EXPR_OVERFLOW], want_over);
	ck_assert_uint_eq(k->errors[WM_EXPR_OK], 0);
	ck_assert_uint_eq(k->in, k->out + k->filtered +
					 k->errors[WM_EXPR_OVERFLOW] +
					 k->errors[WM_EXPR_DIVISION_BY_ZERO] +
					 k->errors[WM_EXPR_DECIMAL_OVERFLOW]);
	wm_map_free(m);
}
END_TEST

/* No select: the row as it came, under the input's names, a name with a
 * backquote and a comma included. */
START_TEST(test_no_select_keeps_the_row)
{
	static const struct wm_expr_field schema[] = {
		{"n", WM_EXPR_BIGINT, 0, 0},
		{"odd `name`, too", WM_EXPR_STRING, 0, 0},
		{"at", WM_EXPR_TIMESTAMP, 0, 0},
	};
	struct wm_expr_value in[3] = {{.i = 5}, {.s = {"x,y", 3}}, {.i = 9}};
	struct wm_expr_value out[3];
	const struct wm_expr_field *cols;
	struct wm_map_error err;
	enum wm_expr_status why;
	struct wm_map *m;
	size_t n;

	ck_assert_int_eq(wm_map_new(schema, 3, "n > 1", NULL, &m, &err), 0);
	cols = wm_map_outputs(m, &n);
	ck_assert_uint_eq(n, 3);
	for (size_t i = 0; i < 3; i++) {
		ck_assert_str_eq(cols[i].name, schema[i].name);
		ck_assert_int_eq(cols[i].type, schema[i].type);
	}
	ck_assert_int_eq(wm_map_row(m, in, out, &why), WM_MAP_KEPT);
	ck_assert_int_eq(out[0].i, 5);
	assert_text(&out[1], "x,y", 3);
	ck_assert_int_eq(out[2].i, 9);
	wm_map_free(m);
}
END_TEST

START_TEST(test_compile_errors_name_text_and_column)
{
	static const struct wm_expr_field schema[] = {
		{"price", WM_EXPR_BIGINT, 0, 0},
	};
	struct wm_map_error err;
	struct wm_map *m;

	ck_assert_int_eq(
		wm_map_new(schema, 1, "price / (2 - 2) > 1", NULL, &m, &err),
		-EINVAL);
	ck_assert_int_eq(err.part, WM_MAP_WHERE);
	ck_assert_int_gt(err.col, 0);
	ck_assert_int_eq(
		wm_map_new(schema, 1, "price > 1", "price + 'a'", &m, &err),
		-EINVAL);
	ck_assert_int_eq(err.part, WM_MAP_SELECT);
	ck_assert_int_gt(err.col, 0);
	ck_assert_int_eq(wm_map_new(schema, 1, "price", NULL, &m, &err),
			 -EINVAL);
	ck_assert_int_eq(err.part, WM_MAP_WHERE);
}
END_TEST

/* CSV and JSON lines of a row whose strings need quoting and escaping,
 * with every type, each line within the room wm_row_text_max() gives. */
START_TEST(test_row_text_quotes_and_escapes)
{
	static const struct wm_expr_field cols[] = {
		{"n", WM_EXPR_BIGINT, 0, 0},
		{"price", WM_EXPR_DECIMAL, 24, 3},
		{"s", WM_EXPR_STRING, 0, 0},
		{"ok", WM_EXPR_BOOLEAN, 0, 0},
		{"at", WM_EXPR_TIMESTAMP, 0, 0},
		{"a,\"b\"", WM_EXPR_STRING, 0, 0},
	};
	static const char odd[] = "say \"hi\", \r\n\x01\xff";
	struct wm_expr_value row[] = {
		{.i = -42},
		{.d = 90800},
		{.s = {odd, sizeof(odd) - 1}},
		{.b = true},
		{.i = 1436918400123},
		{.s = {"plain", 5}},
	};
	char buf[1024], *end;
	size_t max;

	max = wm_row_text_max(cols, N_ELEMS(cols), NULL, false);
	end = wm_row_csv_header(buf, cols, N_ELEMS(cols));
	ck_assert_uint_le((size_t)(end - buf), max);
	ck_assert_str_eq((*end = '\0', buf),
			 "n,price,s,ok,at,\"a,\"\"b\"\"\"\n");

	max = wm_row_text_max(cols, N_ELEMS(cols), row, false);
	end = wm_row_csv(buf, cols, N_ELEMS(cols), row);
	ck_assert_uint_le((size_t)(end - buf), max);
	*end = '\0';
	ck_assert_str_eq(buf, "-42,90.800,\"say \"\"hi\"\", \r\n\x01\xff\","
			      "true,1436918400123,plain\n");

	max = wm_row_text_max(cols, N_ELEMS(cols), row, true);
	end = wm_row_json(buf, cols, N_ELEMS(cols), row);
	ck_assert_uint_le((size_t)(end - buf), max);
	*end = '\0';
	ck_assert_str_eq(buf, "{\"n\":-42,\"price\":90.800,"
			      "\"s\":\"say \\\"hi\\\", \\r\\n\\u0001\\\\xff\","
			      "\"ok\":true,\"at\":1436918400123,"
			      "\"a,\\\"b\\\"\":\"plain\"}\n");

	/* Each of CR and LF alone is quoted too. */
	for (const char *const *t = (const char *const[]){"a\rb", "a\nb", NULL};
	     *t != NULL; t++) {
		struct wm_expr_value one = {.s = {*t, 3}};
		char want[8];

		end = wm_row_csv(buf, &cols[2], 1, &one);
		*end = '\0';
		snprintf(want, sizeof(want), "\"%s\"\n", *t);
		ck_assert_str_eq(buf, want);
	}
}
END_TEST

static Suite *
map_suite(void)
{
	Suite *s = suite_create("map");
	TCase *rows = tcase_create("nexmark_rows");
	TCase *map = tcase_create("map");
	TCase *text = tcase_create("row_text");

	tcase_add_test(rows, test_every_column_reads_its_field);
	tcase_add_test(rows, test_a_bid_has_no_channel_or_url);
	tcase_add_test(map, test_q2_keeps_the_bids_c_keeps);
	tcase_add_test(map, test_q1_converts_every_price_exactly);
	tcase_add_test(map, test_every_row_is_counted_once);
	tcase_add_test(map, test_no_select_keeps_the_row);
	tcase_add_test(map, test_compile_errors_name_text_and_column);
	tcase_add_test(text, test_row_text_quotes_and_escapes);
	suite_add_tcase(s, rows);
	suite_add_tcase(s, map);
	suite_add_tcase(s, text);
	return s;
}

int
main(void)
{
	return wm_check_main(map_suite());
}
