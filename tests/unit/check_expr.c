/*
 * check_expr.c
 *	Unit tests of the where/select expression language: every refusal
 *	at its column, precedence, BIGINT as Java's long, DECIMAL types and
 *	text as Flink's, comparisons across types, strings as bytes, the
 *	run-time statuses and a select's outputs.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/countof.h"
#include "operators/expr.h"
#include "tests/unit/check_main.h"
#include "tests/unit/hot_assert.h"

/* Eight fields: few enough that an unknown name lists them. */
enum { AUCTION, BIDDER, PRICE, CHANNEL, DATETIME, EXTRA, RATE, FLAG, NF };

static const struct wm_expr_field schema[NF] = {
	[AUCTION] = {"auction", WM_EXPR_BIGINT, 0, 0},
	[BIDDER] = {"bidder", WM_EXPR_BIGINT, 0, 0},
	[PRICE] = {"price", WM_EXPR_BIGINT, 0, 0},
	[CHANNEL] = {"channel", WM_EXPR_STRING, 0, 0},
	[DATETIME] = {"dateTime", WM_EXPR_TIMESTAMP, 0, 0},
	[EXTRA] = {"extra", WM_EXPR_STRING, 0, 0},
	[RATE] = {"rate", WM_EXPR_DECIMAL, 10, 2},
	[FLAG] = {"flag", WM_EXPR_BOOLEAN, 0, 0},
};

/* A row: auction 246 (a multiple of 123), bidder 7, price 100, channel
 * "web", dateTime 5000, extra "", rate 1.50, flag false. */
static void
default_row(struct wm_expr_value *row)
{
	memset(row, 0, NF * sizeof(*row));
	row[AUCTION].i = 246;
	row[BIDDER].i = 7;
	row[PRICE].i = 100;
	row[CHANNEL].s.p = "web";
	row[CHANNEL].s.len = 3;
	row[DATETIME].i = 5000;
	row[EXTRA].s.p = "";
	row[RATE].d = 150;
	row[FLAG].b = false;
}

static struct wm_expr *
compile_where(const char *text)
{
	char err[WM_EXPR_ERR_MAX];
	struct wm_expr *e;
	int col, rc;

	rc = wm_expr_compile_where(text, schema, NF, &e, &col, err,
				   sizeof(err));
	ck_assert_msg(rc == 0, "\"%s\" refused at column %d: %s", text, col,
		      err);
	return e;
}

static struct wm_expr *
compile_select(const char *text)
{
	char err[WM_EXPR_ERR_MAX];
	struct wm_expr *e;
	int col, rc;

	rc = wm_expr_compile_select(text, schema, NF, &e, &col, err,
				    sizeof(err));
	ck_assert_msg(rc == 0, "\"%s\" refused at column %d: %s", text, col,
		      err);
	return e;
}

/* The where `text` on `row`: its answer, which it must have. */
static bool
where_on(const char *text, const struct wm_expr_value *row)
{
	struct wm_expr *e = compile_where(text);
	enum wm_expr_status st;
	bool keep = false;

	st = wm_expr_where(e, row, &keep);
	ck_assert_msg(st == WM_EXPR_OK, "\"%s\": %s", text,
		      wm_expr_status_name(st));
	wm_expr_free(e);
	return keep;
}

static bool
where_default(const char *text)
{
	struct wm_expr_value row[NF];

	default_row(row);
	return where_on(text, row);
}

/* ---- refusals ---------------------------------------------------------- */

/*
 * Each refused text, with a caret under the character the error must
 * point at (its column is the caret's position, counted in characters
 * from 1), and a piece of the message.
 */
static const struct refusal {
	bool select;
	const char *text;
	const char *caret;
	const char *msg;
} refusals[] = {
	{false, "pricee > 1", "^",
	 "unknown field \"pricee\" (the fields are \"auction\", \"bidder\", "
	 "\"price\", \"channel\", \"dateTime\", \"extra\", \"rate\", "
	 "\"flag\")"},
	{false, "1 < Price", "    ^",
	 "unknown field \"Price\" (did you mean \"price\"?"},
	{false, "channel = 1", "        ^", "type mismatch: STRING = BIGINT"},
	{false, "channel == 1", "        ^", "type mismatch: STRING == BIGINT"},
	{false, "`dateTime` > price", "           ^",
	 "type mismatch: TIMESTAMP(3) > BIGINT"},
	{false, "flag = 1", "     ^", "type mismatch: BOOLEAN = BIGINT"},
	{false, "price + 'x' > 1", "      ^",
	 "type mismatch: BIGINT + STRING (arithmetic needs"},
	{false, "flag < TRUE", "     ^",
	 "BOOLEAN < BOOLEAN: booleans compare with = and <> only"},
	{false, "price", "^", "where must be BOOLEAN, not BIGINT"},
	{false, "  rate * 2", "  ^",
	 "where must be BOOLEAN, not DECIMAL(30,2)"},
	{false, "price AND flag", "      ^",
	 "AND needs BOOLEAN operands, not BIGINT"},
	{false, "flag OR 'x'", "     ^",
	 "OR needs BOOLEAN operands, not STRING"},
	{false, "NOT price", "^", "NOT needs a BOOLEAN operand, not BIGINT"},
	{false, "-channel = 'a'", "^", "unary - needs a number, not STRING"},
	{false, "price / 0 > 1", "      ^", "division by zero"},
	{false, "price / (2 - 2) > 0", "      ^", "division by zero"},
	{false, "price % (3 * 0) = 1", "      ^", "modulo by zero"},
	{false, "MOD(price, 5 - 5) = 1", "^", "modulo by zero"},
	{false, "rate / 2 > 1", "     ^",
	 "division on DECIMAL is not supported yet (DECIMAL(10,2) / BIGINT)"},
	{false, "MOD(rate, 2) = 1", "^",
	 "modulo on DECIMAL is not supported yet"},
	{false, "price > 9223372036854775808", "        ^",
	 "integer literal out of range"},
	{false, "price > 99999999999999999999", "        ^",
	 "integer literal out of range"},
	{false, "price > -9223372036854775809", "         ^",
	 "integer literal out of range"},
	{false, "rate > 1234567890123456789012345678901234567.89", "       ^",
	 "decimal literal out of range: 39 digits"},
	{false, "9223372036854775807 + 1 > price", "                    ^",
	 "BIGINT overflow in a constant expression"},
	{false, "rate * rate * rate * rate > 0", "                   ^",
	 "DECIMAL(32,6) * DECIMAL(10,2) would be DECIMAL(43,8), beyond 38"},
	{false, "channel = 'abc", "          ^", "unterminated string"},
	{false, "`price > 1", "^", "unterminated quoted name"},
	{false, "`` > 1", "^", "empty quoted name"},
	{false, "price @ 2", "      ^", "unexpected character \"@\""},
	{false, "price ! 2", "      ^", "unexpected character \"!\""},
	{false, "price > 1e3", "        ^", "invalid number \"1e3\""},
	{false, "1.5.2 > price", "^", "invalid number \"1.5.2\""},
	{false, "price > 1.", "        ^", "invalid number \"1.\""},
	{false, "price > 1 )", "          ^",
	 "unexpected \")\" after the end of the expression"},
	{false, "price > 1 price", "          ^",
	 "unexpected \"price\" after the end of the expression"},
	{false, "price >", "       ^", "expected an operand, found the end"},
	{false, "(price > 1", "          ^", "expected \")\", found the end"},
	{false, "MOD(price 3) = 0", "          ^",
	 "expected \",\" between MOD's operands, found \"3\""},
	{false, "", "^", "empty expression"},
	{false, "   ", "^", "empty expression"},
	/* Columns count characters: "é" is two bytes and one column. */
	{false, "channel = 'é' AND x", "                  ^",
	 "unknown field \"x\""},
	{true, "price + 1", "^", "name it: \"price + 1\" AS name"},
	{true, "auction, price * 2", "         ^",
	 "name it: \"price * 2\" AS name"},
	{true, "price, bidder AS price", "                 ^",
	 "duplicate output name \"price\" (item 1 has it too)"},
	{true, "auction AS a, bidder AS a", "                        ^",
	 "duplicate output name \"a\""},
	{true, "price AS", "        ^",
	 "expected a name after AS, found the end"},
	{true, "price price", "      ^",
	 "expected \",\" or the end, found \"price\""},
	{true, "price,", "      ^", "expected an operand, found the end"},
	{true, "", "^", "empty expression"},
};

START_TEST(test_refusal_names_its_column)
{
	const struct refusal *r = &refusals[_i];
	char err[WM_EXPR_ERR_MAX] = "";
	struct wm_expr *e = (struct wm_expr *)1;
	int col = -1, rc;

	if (r->select)
		rc = wm_expr_compile_select(r->text, schema, NF, &e, &col, err,
					    sizeof(err));
	else
		rc = wm_expr_compile_where(r->text, schema, NF, &e, &col, err,
					   sizeof(err));
	ck_assert_msg(rc == -EINVAL, "row %d \"%s\": rc %d", _i, r->text, rc);
	ck_assert_msg(e == NULL, "row %d: *out not cleared", _i);
	ck_assert_msg(col == (int)strlen(r->caret),
		      "row %d \"%s\": column %d, not %zu (%s)", _i, r->text,
		      col, strlen(r->caret), err);
	ck_assert_msg(strstr(err, r->msg) != NULL,
		      "row %d \"%s\": message \"%s\" lacks \"%s\"", _i, r->text,
		      err, r->msg);
}
END_TEST

/* 32 parentheses nest; the 33rd is refused at its own column. */
START_TEST(test_nesting_is_bounded)
{
	char text[128], err[WM_EXPR_ERR_MAX];
	struct wm_expr *e;
	int col;
	size_t o;

	for (int depth = WM_EXPR_DEPTH_MAX; depth <= WM_EXPR_DEPTH_MAX + 1;
	     depth++) {
		o = 0;
		for (int k = 0; k < depth; k++)
			text[o++] = '(';
		text[o++] = '1';
		for (int k = 0; k < depth; k++)
			text[o++] = ')';
		snprintf(text + o, sizeof(text) - o, " = 1");
		int rc = wm_expr_compile_where(text, schema, NF, &e, &col, err,
					       sizeof(err));

		if (depth == WM_EXPR_DEPTH_MAX) {
			ck_assert_msg(rc == 0, "depth %d: %s", depth, err);
			wm_expr_free(e);
		} else {
			ck_assert_int_eq(rc, -EINVAL);
			ck_assert_int_eq(col, depth);
			ck_assert_msg(strstr(err, "nested more than 32") !=
					      NULL,
				      "%s", err);
		}
	}
}
END_TEST

/* Names echoed in a message never carry their control bytes raw. */
START_TEST(test_hostile_names_are_escaped)
{
	char err[WM_EXPR_ERR_MAX];
	struct wm_expr *e;
	int col;

	ck_assert_int_eq(wm_expr_compile_where("`a\x01\"b\x1b]0;x\\` > 1",
					       schema, NF, &e, &col, err,
					       sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(col, 1);
	ck_assert_msg(strstr(err, "\"a\\x01\\\"b\\x1b]0;x\\\\\"") != NULL, "%s",
		      err);
	for (const char *p = err; *p != '\0'; p++)
		ck_assert_msg((unsigned char)*p >= 0x20,
			      "raw byte 0x%02x in %s", (unsigned char)*p, err);
	ck_assert_int_eq(wm_expr_compile_where("price > 1 \x07", schema, NF, &e,
					       &col, err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(col, 11);
	ck_assert_str_eq(err, "unexpected character \"\\x07\"");
}
END_TEST

/* ---- precedence and keywords ------------------------------------------ */

/* Each where on the default row (price 100, bidder 7, flag false) with
 * the answer SQL's binding gives, and a different one under the wrong
 * grouping named in the comment. */
static const struct {
	const char *text;
	bool keep;
} bindings[] = {
	{"2 + 3 * 4 = 14", true}, /* (2 + 3) * 4 = 20 */
	{"(2 + 3) * 4 = 20", true},
	{"10 - 2 - 3 = 5", true},   /* 10 - (2 - 3) = 11 */
	{"100 / 10 / 5 = 2", true}, /* 100 / (10 / 5) = 50 */
	{"17 % 10 * 2 = 14", true}, /* 17 % (10 * 2) = 17 */
	{"-2 * 3 = -6", true},
	{"- price * 2 = -200", true},
	{"2 - -3 = 5", true},
	{"-(2 - 5) = 3", true},
	{"- -price = 100", true},
	{"NOT price = 1 AND flag", false}, /* NOT (price = 1 AND flag) */
	{"NOT flag AND price = 100", true},
	{"price = 100 OR bidder = 8 AND flag", true}, /* (.. OR ..) AND flag */
	{"flag AND bidder = 7 OR price = 100", true}, /* flag AND (.. OR ..) */
	{"NOT NOT flag", false},
	{"1 + 2 = 3 = TRUE", true}, /* (1 + 2 = 3) = TRUE */
	{"price > 1 aNd nOt flag oR FaLsE", true},
	{"MOD(price, 7) = price % 7", true},
	{"mod(-price, 7) = -2", true},
	{"TRUE", true},
	{"FALSE", false},
	{"1 = 1", true},
};

START_TEST(test_operators_bind_as_in_sql)
{
	ck_assert_msg(where_default(bindings[_i].text) == bindings[_i].keep,
		      "\"%s\" should be %s", bindings[_i].text,
		      bindings[_i].keep ? "true" : "false");
}
END_TEST

START_TEST(test_q2_filter)
{
	struct wm_expr *e = compile_where("auction % 123 == 0");
	struct wm_expr *m = compile_where("MOD(auction, 123) = 0");
	struct wm_expr_value row[NF];

	default_row(row);
	for (int64_t a = -1000; a <= 1000; a++) {
		bool k1 = false, k2 = false;

		row[AUCTION].i = a;
		WM_HOT_ASSERT(wm_expr_where(e, row, &k1) == WM_EXPR_OK,
			      "%" PRId64, a);
		WM_HOT_ASSERT(wm_expr_where(m, row, &k2) == WM_EXPR_OK,
			      "%" PRId64, a);
		WM_HOT_ASSERT(k1 == (a % 123 == 0) && k2 == k1, "%" PRId64, a);
	}
	wm_expr_free(e);
	wm_expr_free(m);
}
END_TEST

/* Backquotes: a field named like a keyword or holding a backquote. */
START_TEST(test_backquoted_names)
{
	static const struct wm_expr_field odd[] = {
		{"mod", WM_EXPR_BIGINT, 0, 0},
		{"a`b", WM_EXPR_BIGINT, 0, 0},
		{"AS", WM_EXPR_STRING, 0, 0},
	};
	struct wm_expr_value row[3] = {{.i = 5}, {.i = 7}, {.s = {"x", 1}}};
	const struct wm_expr_field *outs;
	char err[WM_EXPR_ERR_MAX];
	struct wm_expr *e;
	bool keep = false;
	size_t n;
	int col;

	ck_assert_msg(wm_expr_compile_where("MOD(`mod`, 2) = 1 AND `mod` + "
					    "`a``b` = 12 AND `AS` = 'x'",
					    odd, 3, &e, &col, err,
					    sizeof(err)) == 0,
		      "%d: %s", col, err);
	ck_assert_int_eq(wm_expr_where(e, row, &keep), WM_EXPR_OK);
	ck_assert(keep);
	wm_expr_free(e);
	/* A bare keyword is no name. */
	ck_assert_int_eq(wm_expr_compile_where("mod = 1", odd, 3, &e, &col, err,
					       sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(col, 5);
	/* Output names, backquoted or bare, keep their spelling. */
	e = compile_select("`dateTime`, price AS `select`, auction AS Auction");
	outs = wm_expr_outputs(e, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(outs[0].name, "dateTime");
	ck_assert_str_eq(outs[1].name, "select");
	ck_assert_str_eq(outs[2].name, "Auction");
	wm_expr_free(e);
}
END_TEST

/* ---- BIGINT ----------------------------------------------------------- */

/*
 * Java's long division: / truncates toward zero and % takes the sign of
 * the dividend, so that a == (a / b) * b + a % b; C99 has the same rule,
 * which gives the expected values here.
 */
static const int64_t operands[][2] = {
	{7, 2},		 {-7, 2},
	{7, -2},	 {-7, -2},
	{6, 3},		 {-6, 3},
	{0, 5},		 {1, 7},
	{-1, 7},	 {INT64_MAX, 2},
	{INT64_MIN, 2},	 {INT64_MIN, 3},
	{INT64_MAX, -1}, {INT64_MIN + 1, -1},
	{5, INT64_MIN},
};

START_TEST(test_bigint_division_is_javas)
{
	struct wm_expr *e = compile_select("auction / bidder AS q, auction % "
					   "bidder AS r, MOD(auction, bidder) "
					   "AS m");
	struct wm_expr_value row[NF], out[3];
	int64_t a = operands[_i][0], b = operands[_i][1];

	default_row(row);
	row[AUCTION].i = a;
	row[BIDDER].i = b;
	ck_assert_int_eq(wm_expr_select(e, row, out), WM_EXPR_OK);
	ck_assert_int_eq(out[0].i, a / b);
	ck_assert_int_eq(out[1].i, a % b);
	ck_assert_int_eq(out[2].i, a % b);
	ck_assert(out[1].i == 0 || (out[1].i < 0) == (a < 0));
	wm_expr_free(e);
}
END_TEST

/* What a record cannot compute: a status, not a crash or a wrapped
 * value; *keep is left as it was. */
static const struct {
	const char *text;
	int64_t a, b;
	enum wm_expr_status st;
	int64_t value; /* when WM_EXPR_OK */
} faults[] = {
	{"auction + bidder", INT64_MAX, 1, WM_EXPR_OVERFLOW, 0},
	{"auction + bidder", INT64_MAX - 1, 1, WM_EXPR_OK, INT64_MAX},
	{"auction - bidder", INT64_MIN, 1, WM_EXPR_OVERFLOW, 0},
	{"auction * bidder", INT64_MAX / 2 + 1, 2, WM_EXPR_OVERFLOW, 0},
	{"auction * bidder", INT64_MIN / 2, 2, WM_EXPR_OK, INT64_MIN},
	{"auction / bidder", INT64_MIN, -1, WM_EXPR_OVERFLOW, 0},
	{"auction % bidder", INT64_MIN, -1, WM_EXPR_OK, 0},
	{"auction / bidder", 5, 0, WM_EXPR_DIVISION_BY_ZERO, 0},
	{"auction % bidder", 5, 0, WM_EXPR_DIVISION_BY_ZERO, 0},
	{"MOD(auction, bidder)", 5, 0, WM_EXPR_DIVISION_BY_ZERO, 0},
	{"-auction", INT64_MIN, 0, WM_EXPR_OVERFLOW, 0},
	{"auction + 1", INT64_MAX, 0, WM_EXPR_OVERFLOW, 0},
	{"1 - auction", INT64_MIN, 0, WM_EXPR_OVERFLOW, 0},
};

START_TEST(test_faults_are_statuses)
{
	char text[128];
	struct wm_expr *sel, *w;
	struct wm_expr_value row[NF], out[1];
	bool keep = true;

	default_row(row);
	row[AUCTION].i = faults[_i].a;
	row[BIDDER].i = faults[_i].b;
	snprintf(text, sizeof(text), "%s AS x", faults[_i].text);
	sel = compile_select(text);
	ck_assert_int_eq(wm_expr_select(sel, row, out), faults[_i].st);
	if (faults[_i].st == WM_EXPR_OK)
		ck_assert_int_eq(out[0].i, faults[_i].value);
	snprintf(text, sizeof(text), "%s > 0", faults[_i].text);
	w = compile_where(text);
	ck_assert_int_eq(wm_expr_where(w, row, &keep), faults[_i].st);
	if (faults[_i].st != WM_EXPR_OK)
		ck_assert(keep); /* untouched */
	wm_expr_free(sel);
	wm_expr_free(w);
}
END_TEST

/*
 * A field against a constant, the shape the evaluator fuses into one
 * instruction: for each operator, every value of a range and the ends of
 * int64, the select's value or status, and wheres comparing it, against
 * Java's long arithmetic computed here (overflow and division by zero
 * as statuses, INT64_MIN % -1 = 0).
 */
static enum wm_expr_status
java_op(char op, int64_t a, int64_t k, int64_t *r)
{
	switch (op) {
	case '+':
		return __builtin_add_overflow(a, k, r) ? WM_EXPR_OVERFLOW
						       : WM_EXPR_OK;
	case '-':
		return __builtin_sub_overflow(a, k, r) ? WM_EXPR_OVERFLOW
						       : WM_EXPR_OK;
	case '*':
		return __builtin_mul_overflow(a, k, r) ? WM_EXPR_OVERFLOW
						       : WM_EXPR_OK;
	case '/':
		if (k == -1 && a == INT64_MIN)
			return WM_EXPR_OVERFLOW;
		*r = a / k;
		return WM_EXPR_OK;
	default:
		*r = k == -1 ? 0 : a % k;
		return WM_EXPR_OK;
	}
}

static const int64_t constants[] = {3, -3, 1, -1, 7, INT64_MAX, INT64_MIN};

START_TEST(test_field_against_a_constant)
{
	static const char ops[] = "+-*/%";
	int64_t k = constants[_i];
	char text[128];

	for (const char *op = ops; *op != '\0'; op++) {
		struct wm_expr *sel, *w, *lt;
		struct wm_expr_value row[NF], out[1];

		snprintf(text, sizeof(text), "auction %c %" PRId64 " AS x", *op,
			 k);
		if (k == INT64_MIN) /* no literal: -9223372036854775807 - 1 */
			snprintf(text, sizeof(text),
				 "auction %c (-9223372036854775807 - 1) AS x",
				 *op);
		sel = compile_select(text);
		*strstr(text, " AS x") = '\0';
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 " > 0");
		w = compile_where(text);
		lt = compile_where(k == INT64_MIN
					   ? "auction < -9223372036854775807"
					   : "auction < 2");
		default_row(row);
		for (int64_t v = -20; v <= 22; v++) {
			int64_t a = v == 21   ? INT64_MAX
				    : v == 22 ? INT64_MIN
					      : v;
			int64_t want = 0;
			enum wm_expr_status st = java_op(*op, a, k, &want);
			bool keep = false;

			row[AUCTION].i = a;
			WM_HOT_ASSERT(wm_expr_select(sel, row, out) == st,
				      "%s at %" PRId64, text, a);
			WM_HOT_ASSERT(st != WM_EXPR_OK || out[0].i == want,
				      "%s at %" PRId64 ": %" PRId64, text, a,
				      out[0].i);
			WM_HOT_ASSERT(wm_expr_where(w, row, &keep) == st,
				      "%s at %" PRId64, text, a);
			WM_HOT_ASSERT(st != WM_EXPR_OK || keep == (want > 0),
				      "%s at %" PRId64, text, a);
			WM_HOT_ASSERT(
				wm_expr_where(lt, row, &keep) == WM_EXPR_OK &&
					keep == (k == INT64_MIN ? a < -INT64_MAX
								: a < 2),
				"< at %" PRId64, a);
		}
		wm_expr_free(sel);
		wm_expr_free(w);
		wm_expr_free(lt);
	}
}
END_TEST

/* AND and OR leave their right side alone when the left decides. */
START_TEST(test_and_or_skip_the_right_side)
{
	struct wm_expr_value row[NF];

	default_row(row);
	row[BIDDER].i = 0;
	ck_assert(!where_on("bidder <> 0 AND auction / bidder > 1", row));
	ck_assert(where_on("bidder = 0 OR auction / bidder > 1", row));
	row[BIDDER].i = 2;
	ck_assert(where_on("bidder <> 0 AND auction / bidder > 1", row));
}
END_TEST

/* ---- DECIMAL ---------------------------------------------------------- */

/* Digit by digit, the slow way: the text the formatter must agree with
 * (an integer part, a point and exactly s digits). */
static void
reference_text(char *buf, __int128 v, unsigned s)
{
	char digits[64];
	unsigned __int128 m =
		v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
	int n = 0, o = 0;

	do {
		digits[n++] = (char)('0' + (int)(m % 10));
		m /= 10;
	} while (m != 0);
	while (n <= (int)s)
		digits[n++] = '0';
	if (v < 0)
		buf[o++] = '-';
	while (n > 0) {
		if (n == (int)s)
			buf[o++] = '.';
		buf[o++] = digits[--n];
	}
	buf[o] = '\0';
}

static void
expect_text(__int128 v, unsigned s, const char *want)
{
	char got[WM_EXPR_DECIMAL_TEXT_MAX + 1];
	char *end = wm_expr_decimal_text(got, v, s);

	WM_HOT_ASSERT(end - got <= WM_EXPR_DECIMAL_TEXT_MAX, "%s", want);
	*end = '\0';
	WM_HOT_ASSERT(strcmp(got, want) == 0, "\"%s\", not \"%s\" (scale %u)",
		      got, want, s);
}

START_TEST(test_decimal_text_is_plain)
{
	__int128 max38 = 1;
	char want[64];

	expect_text(90800, 3, "90.800");
	expect_text(-5, 2, "-0.05");
	expect_text(0, 0, "0");
	expect_text(0, 3, "0.000");
	expect_text(-908, 3, "-0.908");
	for (int k = 0; k < 38; k++)
		max38 *= 10;
	max38 -= 1;
	expect_text(max38, 38, "0.99999999999999999999999999999999999999");
	expect_text(-max38, 0, "-99999999999999999999999999999999999999");
	/* Every scale, both signs, values of every length, against the
	 * digit-by-digit reference. */
	for (unsigned s = 0; s <= 38; s++) {
		__int128 v = 1;

		for (int k = 0; k < 38; k++) {
			v = v * 10 + (k * 7 + 3) % 10;
			reference_text(want, v % max38, s);
			expect_text(v % max38, s, want);
			reference_text(want, -(v % max38), s);
			expect_text(-(v % max38), s, want);
		}
	}
}
END_TEST

/*
 * q1: 0.908 * price is DECIMAL(24,3) (DECIMAL(4,3) times BIGINT as
 * DECIMAL(19,0), one digit wider as Flink's planner types a product),
 * and its value is exactly 908 * price thousandths.
 */
static const int64_t prices[] = {100, 123456789, -100,	    -1,	      0,
				 1,   7,	 INT64_MAX, INT64_MIN};

START_TEST(test_q1_price_is_exact)
{
	struct wm_expr *e = compile_select("auction, bidder, 0.908 * price "
					   "AS price, `dateTime`, extra");
	const struct wm_expr_field *outs;
	struct wm_expr_value row[NF], out[5];
	char got[WM_EXPR_DECIMAL_TEXT_MAX + 1], want[64];
	size_t n;

	outs = wm_expr_outputs(e, &n);
	ck_assert_uint_eq(n, 5);
	ck_assert_int_eq(outs[2].type, WM_EXPR_DECIMAL);
	ck_assert_uint_eq(outs[2].precision, 24);
	ck_assert_uint_eq(outs[2].scale, 3);
	default_row(row);
	row[PRICE].i = prices[_i];
	ck_assert_int_eq(wm_expr_select(e, row, out), WM_EXPR_OK);
	ck_assert(out[2].d == (__int128)908 * prices[_i]);
	reference_text(want, (__int128)908 * prices[_i], 3);
	*wm_expr_decimal_text(got, out[2].d, 3) = '\0';
	ck_assert_str_eq(got, want);
	if (prices[_i] == 100)
		ck_assert_str_eq(got, "90.800");
	if (prices[_i] == INT64_MAX)
		ck_assert_str_eq(got, "8374821809464136432.756");
	wm_expr_free(e);
}
END_TEST

/* Flink's rules for a literal's type and for + - *, and folding. */
static const struct {
	const char *text;
	unsigned p, s;
	const char *value;
} decimal_types[] = {
	{"0.908 AS x", 4, 3, "0.908"},
	{".5 AS x", 1, 1, "0.5"},
	{"0.908 * 100 AS x", 24, 3, "90.800"}, /* 4+19+1 */
	{"100 * 0.908 AS x", 24, 3, "90.800"},
	{"1.5 + 2.25 AS x", 4, 2, "3.75"},     /* max(1,1)+2+1 */
	{"rate + 1 AS x", 22, 2, "2.50"},      /* max(8,19)+2+1 */
	{"rate - 0.001 AS x", 12, 3, "1.499"}, /* max(8,0)+3+1 */
	{"rate * rate AS x", 21, 4, "2.2500"},
	{"-rate AS x", 10, 2, "-1.50"},
	{"price * 0.908 - price AS x", 25, 3, "-9.200"}, /* max(21,19)+3+1 */
	/* 38 digits: DECIMAL(19,2) times DECIMAL(18,1), 19 + 18 + 1. */
	{"12345678901234567.89 * 12345678901234567.8 AS x", 38, 3,
	 "152415787532388366390794098763907.942"},
};

START_TEST(test_decimal_types_follow_flink)
{
	struct wm_expr *e = compile_select(decimal_types[_i].text);
	const struct wm_expr_field *outs;
	struct wm_expr_value row[NF], out[1];
	char got[WM_EXPR_DECIMAL_TEXT_MAX + 1];
	size_t n;

	outs = wm_expr_outputs(e, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(outs[0].type, WM_EXPR_DECIMAL);
	ck_assert_uint_eq(outs[0].precision, decimal_types[_i].p);
	ck_assert_uint_eq(outs[0].scale, decimal_types[_i].s);
	default_row(row);
	ck_assert_int_eq(wm_expr_select(e, row, out), WM_EXPR_OK);
	*wm_expr_decimal_text(got, out[0].d, outs[0].scale) = '\0';
	ck_assert_str_eq(got, decimal_types[_i].value);
	wm_expr_free(e);
}
END_TEST

/* A row whose DECIMAL breaks its precision gives a status. */
START_TEST(test_decimal_beyond_its_precision_is_a_status)
{
	struct wm_expr *e = compile_select("rate + rate AS x");
	struct wm_expr_value row[NF], out[1];

	default_row(row);
	row[RATE].d = 99999999; /* 999999.99, the largest DECIMAL(10,2)... */
	row[RATE].d = row[RATE].d * 100 + 99;
	ck_assert_int_eq(wm_expr_select(e, row, out), WM_EXPR_OK);
	ck_assert(out[0].d == row[RATE].d * 2);
	row[RATE].d *= 10; /* ...and one digit too many */
	ck_assert_int_eq(wm_expr_select(e, row, out), WM_EXPR_DECIMAL_OVERFLOW);
	wm_expr_free(e);
}
END_TEST

/* ---- comparisons ------------------------------------------------------- */

/* On the default row: price 100 (BIGINT), rate 1.50 (DECIMAL(10,2)). */
static const struct {
	const char *text;
	bool keep;
} comparisons[] = {
	{"price = 100.00", true},
	{"price == 100.000", true},
	{"price <> 100.0", false},
	{"price != 100.001", true},
	{"price < 100.001", true},
	{"price > 99.999", true},
	{"price <= 99.999", false},
	{"price >= 100.0", true},
	{"rate = 1.5", true},
	{"rate < 2", true},
	{"rate > 1", true},
	{"rate * 100 = price + 50", true},
	/* Thirty-eight decimals: price is scaled past 10^38. */
	{"price > .99999999999999999999999999999999999999", true},
	{"-price < -.99999999999999999999999999999999999999", true},
	{"0 < .00000000000000000000000000000000000001", true},
	{"`dateTime` = `dateTime`", true},
	{"`dateTime` < `dateTime`", false},
	{"flag = FALSE", true},
	{"flag <> flag", false},
	{"channel = 'web'", true},
	{"channel < 'wec'", true},
	{"channel > 'we'", true},
	{"extra = ''", true},
	{"extra < 'a'", true},
};

START_TEST(test_comparisons_across_types)
{
	ck_assert_msg(where_default(comparisons[_i].text) ==
			      comparisons[_i].keep,
		      "\"%s\" should be %s", comparisons[_i].text,
		      comparisons[_i].keep ? "true" : "false");
}
END_TEST

/* Every comparison operator on every order of its operands (less, equal,
 * greater), for BIGINTs, a DECIMAL with a BIGINT and strings: the
 * answer C's operator gives on the same values. */
static const struct {
	const char *op;
	int holds; /* bit 0: on less, bit 1: on equal, bit 2: on greater */
} cmp_ops[] = {
	{"=", 2}, {"==", 2}, {"<>", 5}, {"!=", 5},
	{"<", 1}, {"<=", 3}, {">", 4},	{">=", 6},
};

START_TEST(test_every_comparison_on_every_order)
{
	static const char *const words[] = {"a", "b", "c"};
	struct wm_expr_value row[NF];
	char text[64];

	default_row(row);
	for (int c = -1; c <= 1; c++) {
		bool want = (cmp_ops[_i].holds >> (c + 1)) & 1;

		row[AUCTION].i = 2 + c;
		row[BIDDER].i = 2;
		snprintf(text, sizeof(text), "auction %s bidder",
			 cmp_ops[_i].op);
		ck_assert_msg(where_on(text, row) == want, "%s at %d", text, c);
		row[RATE].d = 200 + c; /* 2 + c/100 */
		row[PRICE].i = 2;
		snprintf(text, sizeof(text), "rate %s price", cmp_ops[_i].op);
		ck_assert_msg(where_on(text, row) == want, "%s at %d", text, c);
		snprintf(text, sizeof(text), "price %s rate", cmp_ops[_i].op);
		ck_assert_msg(
			where_on(text, row) ==
				(((cmp_ops[_i].holds >> (1 - c)) & 1) != 0),
			"%s at %d", text, c);
		row[CHANNEL].s.p = words[1 + c];
		row[CHANNEL].s.len = 1;
		snprintf(text, sizeof(text), "channel %s 'b'", cmp_ops[_i].op);
		ck_assert_msg(where_on(text, row) == want, "%s at %d", text, c);
	}
}
END_TEST

/* Strings are bytes: quotes doubled in a literal, control bytes as
 * themselves, NUL inside a value, unsigned order, a prefix first. */
START_TEST(test_strings_are_bytes)
{
	static const char ctl[] = "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a"
				  "\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14"
				  "\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e"
				  "\x1f";
	struct wm_expr_value row[NF];
	char text[128];

	default_row(row);
	row[CHANNEL].s.p = "it's";
	row[CHANNEL].s.len = 4;
	ck_assert(where_on("channel = 'it''s'", row));
	ck_assert(!where_on("channel = 'its'", row));
	row[CHANNEL].s.p = "''";
	row[CHANNEL].s.len = 2;
	ck_assert(where_on("channel = ''''''", row));
	row[CHANNEL].s.p = ctl;
	row[CHANNEL].s.len = sizeof(ctl) - 1;
	snprintf(text, sizeof(text), "channel = '%s'", ctl);
	ck_assert(where_on(text, row));
	snprintf(text, sizeof(text), "channel = '%.30s'", ctl);
	ck_assert(!where_on(text, row));
	row[CHANNEL].s.p = "a\0b";
	row[CHANNEL].s.len = 3;
	ck_assert(!where_on("channel = 'a'", row));
	ck_assert(where_on("channel > 'a'", row));
	ck_assert(where_on("channel < 'a\x01'", row));
	row[CHANNEL].s.p = "\xff";
	row[CHANNEL].s.len = 1;
	ck_assert(where_on("channel > 'z'", row));
}
END_TEST

/* ---- select ------------------------------------------------------------ */

START_TEST(test_select_outputs_names_types_and_values)
{
	struct wm_expr *e = compile_select(
		"auction, bidder AS who, 0.908 * price AS price, `dateTime`, "
		"extra, rate + 1 AS r, flag OR price > 1 AS f, 'x''y' AS tag, "
		"channel");
	static const struct {
		const char *name;
		enum wm_expr_type type;
		unsigned p, s;
	} want[] = {
		{"auction", WM_EXPR_BIGINT, 0, 0},
		{"who", WM_EXPR_BIGINT, 0, 0},
		{"price", WM_EXPR_DECIMAL, 24, 3},
		{"dateTime", WM_EXPR_TIMESTAMP, 0, 0},
		{"extra", WM_EXPR_STRING, 0, 0},
		{"r", WM_EXPR_DECIMAL, 22, 2},
		{"f", WM_EXPR_BOOLEAN, 0, 0},
		{"tag", WM_EXPR_STRING, 0, 0},
		{"channel", WM_EXPR_STRING, 0, 0},
	};
	const struct wm_expr_field *outs;
	struct wm_expr_value row[NF], out[N_ELEMS(want)];
	size_t n;

	outs = wm_expr_outputs(e, &n);
	ck_assert_uint_eq(n, N_ELEMS(want));
	for (size_t i = 0; i < n; i++) {
		ck_assert_str_eq(outs[i].name, want[i].name);
		ck_assert_int_eq(outs[i].type, want[i].type);
		ck_assert_uint_eq(outs[i].precision, want[i].p);
		ck_assert_uint_eq(outs[i].scale, want[i].s);
	}
	default_row(row);
	ck_assert_int_eq(wm_expr_select(e, row, out), WM_EXPR_OK);
	ck_assert_int_eq(out[0].i, 246);
	ck_assert_int_eq(out[1].i, 7);
	ck_assert(out[2].d == 90800);
	ck_assert_int_eq(out[3].i, 5000);
	ck_assert(out[5].d == 250);
	ck_assert(out[6].b);
	ck_assert_uint_eq(out[7].s.len, 3);
	ck_assert(memcmp(out[7].s.p, "x'y", 3) == 0);
	/* Strings are passed through, not copied. */
	ck_assert_ptr_eq(out[4].s.p, row[EXTRA].s.p);
	ck_assert_ptr_eq(out[8].s.p, row[CHANNEL].s.p);
	ck_assert_uint_eq(out[8].s.len, 3);
	wm_expr_free(e);
	/* A where has no outputs. */
	e = compile_where("flag");
	ck_assert_ptr_null(wm_expr_outputs(e, &n));
	ck_assert_uint_eq(n, 0);
	wm_expr_free(e);
}
END_TEST

START_TEST(test_schema_is_checked)
{
	static const struct wm_expr_field bad[] = {
		{"d", WM_EXPR_DECIMAL, 39, 0},
	};
	char err[WM_EXPR_ERR_MAX];
	struct wm_expr *e;
	int col;

	ck_assert_int_eq(wm_expr_compile_where("TRUE", bad, 1, &e, &col, err,
					       sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(col, 0);
	ck_assert_ptr_null(e);
}
END_TEST

static Suite *
expr_suite(void)
{
	Suite *s = suite_create("expr");
	TCase *tc;

	tc = tcase_create("refusals");
	tcase_add_loop_test(tc, test_refusal_names_its_column, 0,
			    (int)N_ELEMS(refusals));
	tcase_add_test(tc, test_nesting_is_bounded);
	tcase_add_test(tc, test_hostile_names_are_escaped);
	tcase_add_test(tc, test_schema_is_checked);
	suite_add_tcase(s, tc);

	tc = tcase_create("syntax");
	tcase_add_loop_test(tc, test_operators_bind_as_in_sql, 0,
			    (int)N_ELEMS(bindings));
	tcase_add_test(tc, test_q2_filter);
	tcase_add_test(tc, test_backquoted_names);
	suite_add_tcase(s, tc);

	tc = tcase_create("bigint");
	tcase_add_loop_test(tc, test_bigint_division_is_javas, 0,
			    (int)N_ELEMS(operands));
	tcase_add_loop_test(tc, test_faults_are_statuses, 0,
			    (int)N_ELEMS(faults));
	tcase_add_loop_test(tc, test_field_against_a_constant, 0,
			    (int)N_ELEMS(constants));
	tcase_add_test(tc, test_and_or_skip_the_right_side);
	suite_add_tcase(s, tc);

	tc = tcase_create("decimal");
	tcase_add_test(tc, test_decimal_text_is_plain);
	tcase_add_loop_test(tc, test_q1_price_is_exact, 0,
			    (int)N_ELEMS(prices));
	tcase_add_loop_test(tc, test_decimal_types_follow_flink, 0,
			    (int)N_ELEMS(decimal_types));
	tcase_add_test(tc, test_decimal_beyond_its_precision_is_a_status);
	suite_add_tcase(s, tc);

	tc = tcase_create("comparisons");
	tcase_add_loop_test(tc, test_comparisons_across_types, 0,
			    (int)N_ELEMS(comparisons));
	tcase_add_loop_test(tc, test_every_comparison_on_every_order, 0,
			    (int)N_ELEMS(cmp_ops));
	tcase_add_test(tc, test_strings_are_bytes);
	suite_add_tcase(s, tc);

	tc = tcase_create("select");
	tcase_add_test(tc, test_select_outputs_names_types_and_values);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(expr_suite());
}
