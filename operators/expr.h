/*
 * expr.h
 *	The expression language of the `where` and `select` stages: a filter
 *	and a projection over one record's fields, as Flink SQL types them
 *	(doc/semantics.md section 16).
 *
 * A caller describes its records once (a schema: fields with a name and
 * a type), compiles the text of a `where` or a `select` against it, and
 * then evaluates the compiled form once per record. Compiling reads and
 * checks everything: the text, the names, the types, constant
 * subexpressions (folded, so that `price / (2 - 2)` is refused before
 * the job starts). Evaluating allocates nothing, reads only the row it
 * is given and returns a status; bad data is a status, never a crash.
 *
 * Grammar (keywords in any letter case, names exactly as the schema has
 * them; blanks are spaces and tabs):
 *
 *   where   := expr                        its type must be BOOLEAN
 *   select  := item { "," item }
 *   item    := expr [ AS name ]            AS may be left out only when
 *                                          expr is a bare field, which
 *                                          keeps its name
 *   expr    := expr OR expr | expr AND expr | NOT expr
 *            | expr cmp expr | expr (+ | -) expr | expr (* | / | %) expr
 *            | - expr | ( expr ) | MOD ( expr , expr ) | literal | name
 *   cmp     := = | == | <> | != | < | <= | > | >=
 *   literal := digits | digits . digits | . digits | 'text' | TRUE | FALSE
 *   name    := [A-Za-z_][A-Za-z0-9_]*      not a keyword
 *            | `any bytes but NUL`         a backquote inside doubled
 *
 * Binding, loosest first, as SQL's: OR; AND; NOT; comparisons; + -;
 * * / %; unary -. Binary operators group to the left. Keywords: AND OR
 * NOT AS TRUE FALSE MOD; a field named like one is written backquoted.
 * In 'text', '' stands for one quote; any other byte (control bytes too)
 * stands for itself. No NULL: every field of a row has a value.
 *
 * Types and their rules (Flink's LogicalTypeMerging where Nexmark needs
 * them):
 *
 *   BIGINT        int64_t. A literal without a point is BIGINT (Flink
 *                 types a small one INT; the values agree, see below).
 *   DECIMAL(p,s)  exact: an unscaled __int128 v meaning v / 10^s, with
 *                 |v| < 10^p, 1 <= p <= 38, 0 <= s <= p. A literal with
 *                 a point is DECIMAL(digits written, digits after the
 *                 point), as Calcite types it: 0.908 is DECIMAL(4,3).
 *   BOOLEAN, STRING (bytes and a length), TIMESTAMP(3) (epoch ms, int64).
 *
 *   BIGINT op BIGINT (+ - * / %)  -> BIGINT; / truncates toward zero and
 *                 % takes the dividend's sign, as Java's long division.
 *   BIGINT with DECIMAL           the BIGINT is DECIMAL(19,0).
 *   DECIMAL + -   -> DECIMAL(max(p1-s1, p2-s2) + max(s1,s2) + 1,
 *                            max(s1,s2))
 *   DECIMAL *     -> DECIMAL(p1 + p2 + 1, s1 + s2), as Flink's planner
 *                 types a product since FLINK-22586 (2021): 0.908 *
 *                 price (BIGINT) is DECIMAL(24,3), which Nexmark's q1
 *                 INSERT then casts to its sink's DECIMAL(23,3); the
 *                 value is the same (doc/semantics.md 16.2).
 *   A result of more than 38 digits is refused. Flink caps it instead, to
 *   DECIMAL(38, max(38 - (p - s), min(s, 6))), rounding half up; wmrun
 *   does not round yet.
 *   DECIMAL / and % (and MOD) are refused ("not supported yet").
 *   Comparisons: numbers with numbers (BIGINT with DECIMAL exactly),
 *   STRING with STRING (bytewise, unsigned, a prefix first), TIMESTAMP
 *   with TIMESTAMP, BOOLEAN with BOOLEAN (= and <> only); -> BOOLEAN.
 *   NOT, AND, OR take and give BOOLEAN. AND and OR do not evaluate their
 *   right side when the left decides (`b <> 0 AND a / b > 1` is safe).
 *
 * Refused when compiling (-EINVAL, a column and a message): an unknown
 * field (named, with the fields there are when they are few), a type
 * mismatch, division or modulo by a constant zero (after folding), a
 * literal out of range, an unterminated string or name, an unexpected
 * character, text after the end, an empty expression, nesting deeper
 * than WM_EXPR_DEPTH_MAX, a select item that needs a name, two select
 * outputs with one name, and overflow inside a constant subexpression.
 *
 * At run time, a status instead of a value:
 *   WM_EXPR_OVERFLOW          BIGINT + - * or unary - beyond int64, and
 *                             INT64_MIN / -1. Flink's long arithmetic
 *                             wraps silently; wmrun counts the record as
 *                             an error instead, because a wrapped price is
 *                             a wrong result nobody sees.
 *                             (INT64_MIN % -1 is 0, as in Java.)
 *   WM_EXPR_DIVISION_BY_ZERO  BIGINT / or % by 0 (Flink throws and the
 *                             job fails).
 *   WM_EXPR_DECIMAL_OVERFLOW  a DECIMAL beyond its precision (Flink gives
 *                             NULL). The rules above keep every result
 *                             inside its type while the row's DECIMAL
 *                             fields are inside theirs, so this flags a
 *                             row that broke its schema.
 *
 * Columns count from 1 within the expression's text, in characters
 * (UTF-8 code points, as the topology reader counts them), so that a
 * caller adds the column of the value in its line and reports
 * FILE:LINE:COL. Messages quote text from the input escaped
 * (wm_log_escape(), plus \" and \\).
 *
 * Strings are never copied when evaluating: a select output of type
 * STRING points into the input row, or into the compiled expression for
 * a literal (valid until wm_expr_free()).
 *
 * A compiled expression is read-only: any number of threads may evaluate
 * it at once.
 */
#ifndef WM_OPERATORS_EXPR_H
#define WM_OPERATORS_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most digits of a DECIMAL (Flink's DecimalType.MAX_PRECISION). */
#define WM_EXPR_DECIMAL_MAX_PRECISION 38
/* How deeply parentheses, NOT and unary minus may nest: the parser and
 * the evaluator's stack are bounded by it. */
#define WM_EXPR_DEPTH_MAX 32
/* Bytes that hold any message of the compiler. */
#define WM_EXPR_ERR_MAX 512
/* Bytes that hold any DECIMAL's text (wm_expr_decimal_text()): a sign,
 * "0.", 38 digits; or a sign, 39 digits and a point. */
#define WM_EXPR_DECIMAL_TEXT_MAX 42

enum wm_expr_type {
	WM_EXPR_BIGINT = 1,
	WM_EXPR_DECIMAL,
	WM_EXPR_BOOLEAN,
	WM_EXPR_STRING,
	WM_EXPR_TIMESTAMP,
};

/* A field of the input, or an output of a select. precision and scale
 * are a DECIMAL's and 0 for the other types. */
struct wm_expr_field {
	const char *name;
	enum wm_expr_type type;
	uint8_t precision;
	uint8_t scale;
};

/* One field's value; a row is an array of them in schema order. Which
 * member holds it follows the type: i for BIGINT and TIMESTAMP, d (the
 * unscaled value) for DECIMAL, b for BOOLEAN, s for STRING. */
struct wm_expr_value {
	union {
		int64_t i;
		__int128 d;
		bool b;
		struct {
			const char *p;
			uint32_t len;
		} s;
	};
};

enum wm_expr_status {
	WM_EXPR_OK = 0,
	WM_EXPR_OVERFLOW,
	WM_EXPR_DIVISION_BY_ZERO,
	WM_EXPR_DECIMAL_OVERFLOW,
};

struct wm_expr;

/*
 * Compile `text` (NUL-terminated) as a where: a BOOLEAN over rows of
 * schema[0..n). Returns 0 and *out, or -EINVAL with *col (1-based, in
 * text) and a message in err, or -ENOMEM. The schema is read only here;
 * its names need not outlive the call. A schema that breaks its own rules
 * (a field without a name, an unknown type, a DECIMAL beyond 38 digits
 * or with a scale above its precision) is -EINVAL at column 0.
 */
int wm_expr_compile_where(const char *text, const struct wm_expr_field *schema,
			  size_t n, struct wm_expr **out, int *col, char *err,
			  size_t errlen);

/* The same for a select: a list of items. wm_expr_outputs() then gives
 * the names and types of its outputs. */
int wm_expr_compile_select(const char *text, const struct wm_expr_field *schema,
			   size_t n, struct wm_expr **out, int *col, char *err,
			   size_t errlen);

/* The outputs of a compiled select, in order (*n of them; none for a
 * where). Their names belong to e. */
const struct wm_expr_field *wm_expr_outputs(const struct wm_expr *e, size_t *n);

/* Whether `row` passes `e`, compiled as a where (*keep), or why it has
 * no answer (*keep is then left alone). */
enum wm_expr_status wm_expr_where(const struct wm_expr *e,
				  const struct wm_expr_value *row, bool *keep);

/* The outputs of `e`, compiled as a select, for `in`, into
 * out[0..outputs). On a status other than WM_EXPR_OK, out holds nothing
 * to use. */
enum wm_expr_status wm_expr_select(const struct wm_expr *e,
				   const struct wm_expr_value *in,
				   struct wm_expr_value *out);

void wm_expr_free(struct wm_expr *e);

/* "integer overflow" and the like, for a record error's message. */
const char *wm_expr_status_name(enum wm_expr_status st);

/* "BIGINT", "DECIMAL(23,3)", "TIMESTAMP(3)": a type as Flink names it,
 * into buf (32 bytes suffice); returns buf. */
char *wm_expr_type_name(char *buf, size_t len, enum wm_expr_type type,
			unsigned precision, unsigned scale);

/*
 * The DECIMAL of unscaled value v and scale s as Flink's
 * DecimalData.toString() writes it (Java's BigDecimal.toPlainString()):
 * exactly s digits after the point, a "0" before it when there is no
 * integer part, '-' for a negative value, no exponent: 90800 at scale 3
 * is "90.800", -5 at scale 2 "-0.05". Writes at p (WM_EXPR_DECIMAL_TEXT_MAX
 * bytes, for s <= 38), no NUL; returns the end.
 */
char *wm_expr_decimal_text(char *p, __int128 v, unsigned s);

#endif /* WM_OPERATORS_EXPR_H */
