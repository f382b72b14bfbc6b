/*
 * expr.c
 *	The where/select expression language (expr.h): text -> tree with
 *	types -> folded tree -> a flat program for a small value stack.
 *
 * Compiling goes in one pass over the text: the parser asks the lexer for
 * one token at a time and builds each node with its type checked, its
 * implicit conversions made explicit nodes (BIGINT to DECIMAL, a change
 * of scale) and, when every child is a constant, folded at once. Folding
 * runs the node through the same evaluator as the records do (a
 * program of that node alone), so a constant and a field compute alike.
 * The tree is then written out as postfix code, a right operand that is
 * a constant going into its operator's instruction, a BIGINT field on
 * the left of such an operator too, and a where's last comparison
 * returning its answer itself: `auction % 123 == 0` is two instructions.
 *
 * Invariant of the code: every instruction's operands have the types the
 * type checker gave their nodes, so the evaluator never looks at a type;
 * the stack never holds more than the depth found when the code was
 * written (at most WM_EXPR_STACK_SLOTS).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/assert.h"
#include "base/log.h"
#include "base/utf8.h"
#include "lib/decimal.h"
#include "operators/expr.h"

/* Stack slots of the evaluator. Within one level of parentheses at most
 * three operands wait for their right side (a comparison's, a sum's, a
 * product's: AND and OR keep none), so WM_EXPR_DEPTH_MAX levels need
 * about 100; code that would need more is refused when compiling. */
#define WM_EXPR_STACK_SLOTS 128
/* Bytes of input quoted in a message before it is cut with "...". */
#define QUOTE_CUT 40
/* A quoted piece of input: quotes, 4 bytes per escaped byte, "...". */
#define QUOTE_MAX (2 + 4 * QUOTE_CUT + 3 + 1)

#define E19 ((__int128)10000000000000000000ULL)

/* 10^k for k in [0, 38]. */
static const __int128 pow10_128[WM_EXPR_DECIMAL_MAX_PRECISION + 1] = {
	1ULL,
	10ULL,
	100ULL,
	1000ULL,
	10000ULL,
	100000ULL,
	1000000ULL,
	10000000ULL,
	100000000ULL,
	1000000000ULL,
	10000000000ULL,
	100000000000ULL,
	1000000000000ULL,
	10000000000000ULL,
	100000000000000ULL,
	1000000000000000ULL,
	10000000000000000ULL,
	100000000000000000ULL,
	1000000000000000000ULL,
	10000000000000000000ULL,
	E19 * 10ULL,
	E19 * 100ULL,
	E19 * 1000ULL,
	E19 * 10000ULL,
	E19 * 100000ULL,
	E19 * 1000000ULL,
	E19 * 10000000ULL,
	E19 * 100000000ULL,
	E19 * 1000000000ULL,
	E19 * 10000000000ULL,
	E19 * 100000000000ULL,
	E19 * 1000000000000ULL,
	E19 * 10000000000000ULL,
	E19 * 100000000000000ULL,
	E19 * 1000000000000000ULL,
	E19 * 10000000000000000ULL,
	E19 * 100000000000000000ULL,
	E19 * 1000000000000000000ULL,
	E19 * 10000000000000000000ULL};

/* ---- the evaluator ---------------------------------------------------- */

/*
 * A comparison's condition is the set of orders it accepts: bit 0 for
 * less, bit 1 for equal, bit 2 for greater, so that the evaluator tests
 * one bit of (c + 1) for c in {-1, 0, 1}.
 */
enum cond {
	COND_LT = 1,
	COND_EQ = 2,
	COND_LE = 3,
	COND_GT = 4,
	COND_NE = 5,
	COND_GE = 6,
};

enum opcode {
	OP_RET, /* end; a where's answer is the only value left */
	/*
	 * Moves, one per member of the value (I: BIGINT and TIMESTAMP, D,
	 * S, B): a value is copied as the member its type uses, never as
	 * the whole union, because a load wider than the store that wrote
	 * it (a row's int64_t read back as 16 bytes) waits until that
	 * store has left the store buffer (doc/performance.md
	 * section 9.37).
	 */
	OP_FIELD_I, /* push row[arg] */
	OP_FIELD_D,
	OP_FIELD_S,
	OP_FIELD_B,
	OP_STORE_I, /* pop into out[arg] (a select's output) */
	OP_STORE_D,
	OP_STORE_S,
	OP_STORE_B,
	OP_COPY_I, /* out[cond] = row[arg]: a select's bare field */
	OP_COPY_D,
	OP_COPY_S,
	OP_COPY_B,
	OP_CONST, /* push consts[arg] */
	OP_NEG_I,
	OP_ADD_I,
	OP_SUB_I,
	OP_MUL_I,
	OP_DIV_I,
	OP_MOD_I,
	OP_NEG_D, /* DECIMAL ops: the result within 10^prec */
	OP_ADD_D,
	OP_SUB_D,
	OP_MUL_D,
	OP_I2D,		/* BIGINT to DECIMAL(19,0), same value */
	OP_RESCALE,	/* times 10^arg, within 10^prec */
	OP_RESCALE_CMP, /* times 10^arg, beyond 10^38 held at +-10^38 */
	OP_CMP_I,	/* BIGINT and TIMESTAMP */
	/*
	 * Fused forms for the commonest shape, a BIGINT field against
	 * constants (q2's `auction % 123 == 0` is OP_MOD_IF, OP_CMP_I_RET):
	 * _IF takes its left operand from row[field] and its right one from
	 * consts[arg]; _RET ends a where with the comparison's answer.
	 */
	OP_ADD_IF,
	OP_SUB_IF,
	OP_MUL_IF,
	OP_DIV_IF,
	OP_MOD_IF,
	OP_CMP_IF,
	OP_CMP_I_RET,
	OP_CMP_IF_RET,
	OP_CMP_D,
	OP_CMP_S,
	OP_CMP_B,
	OP_NOT,
	OP_AND, /* false on top: jump to arg, keeping it; else pop */
	OP_OR,	/* true on top: jump to arg, keeping it; else pop */
};

/*
 * One instruction. A binary operator takes its left operand from the
 * stack and its right one from the stack too, or, when rk is set, from
 * consts[arg].
 */
struct ins {
	uint8_t op;   /* enum opcode */
	uint8_t cond; /* OP_CMP_*: enum cond */
	uint8_t rk;   /* right operand is consts[arg] */
	uint8_t prec; /* DECIMAL results: their precision */
	uint32_t arg;
	uint32_t field; /* _IF forms: the left operand's field */
};

struct wm_expr {
	struct ins *code;
	struct wm_expr_value *consts;
	struct wm_expr_field *outputs; /* a select's; NULL for a where */
	size_t n_outputs;
	char *arena; /* unescaped literals and names */
};

static inline bool
dec_within(__int128 v, unsigned prec)
{
	return v < pow10_128[prec] && v > -pow10_128[prec];
}

static inline int
compare_strings(const struct wm_expr_value *a, const struct wm_expr_value *b)
{
	uint32_t n = a->s.len < b->s.len ? a->s.len : b->s.len;
	int c = n ? memcmp(a->s.p, b->s.p, n) : 0;

	if (c == 0)
		return (a->s.len > b->s.len) - (a->s.len < b->s.len);
	return c < 0 ? -1 : 1;
}

#define CMP3(x, y) (((x) > (y)) - ((x) < (y)))
#define HOLDS(cond, c) ((((cond) >> ((c) + 1)) & 1) != 0)

/*
 * Run `code` over `row`: a select's outputs go to out[], a where's answer
 * (the value left when it returns) to *result. The hot loop: no
 * allocation, no call but memcmp.
 */
static enum wm_expr_status
run(const struct ins *code, const struct wm_expr_value *consts,
    const struct wm_expr_value *row, struct wm_expr_value *out, bool *result)
{
	struct wm_expr_value st[WM_EXPR_STACK_SLOTS];
	const struct wm_expr_value *b;
	const struct ins *pc;
	size_t sp = 0; /* st[sp - 1] is the top */
	__int128 lim;
	int c;

/* The right operand; the left one is then st[sp - 1]. */
#define RIGHT() (pc->rk ? &consts[pc->arg] : &st[--sp])
#define TOP (st[sp - 1])
	for (pc = code;; pc++) {
		switch ((enum opcode)pc->op) {
		case OP_RET:
			if (result != NULL)
				*result = st[0].b;
			return WM_EXPR_OK;
		case OP_FIELD_I:
			st[sp++].i = row[pc->arg].i;
			break;
		case OP_FIELD_D:
			st[sp++].d = row[pc->arg].d;
			break;
		case OP_FIELD_S:
			st[sp++].s = row[pc->arg].s;
			break;
		case OP_FIELD_B:
			st[sp++].b = row[pc->arg].b;
			break;
		case OP_STORE_I:
			out[pc->arg].i = st[--sp].i;
			break;
		case OP_STORE_D:
			out[pc->arg].d = st[--sp].d;
			break;
		case OP_STORE_S:
			out[pc->arg].s = st[--sp].s;
			break;
		case OP_STORE_B:
			out[pc->arg].b = st[--sp].b;
			break;
		case OP_COPY_I:
			out[pc->cond].i = row[pc->arg].i;
			break;
		case OP_COPY_D:
			out[pc->cond].d = row[pc->arg].d;
			break;
		case OP_COPY_S:
			out[pc->cond].s = row[pc->arg].s;
			break;
		case OP_COPY_B:
			out[pc->cond].b = row[pc->arg].b;
			break;
		case OP_CONST:
			st[sp++] = consts[pc->arg];
			break;
		case OP_NEG_I:
			if (__builtin_sub_overflow(0, TOP.i, &TOP.i))
				return WM_EXPR_OVERFLOW;
			break;
		case OP_ADD_IF:
			st[sp++].i = row[pc->field].i;
			goto add_i;
		case OP_ADD_I:
		add_i:
			b = RIGHT();
			if (__builtin_add_overflow(TOP.i, b->i, &TOP.i))
				return WM_EXPR_OVERFLOW;
			break;
		case OP_SUB_IF:
			st[sp++].i = row[pc->field].i;
			goto sub_i;
		case OP_SUB_I:
		sub_i:
			b = RIGHT();
			if (__builtin_sub_overflow(TOP.i, b->i, &TOP.i))
				return WM_EXPR_OVERFLOW;
			break;
		case OP_MUL_IF:
			st[sp++].i = row[pc->field].i;
			goto mul_i;
		case OP_MUL_I:
		mul_i:
			b = RIGHT();
			if (__builtin_mul_overflow(TOP.i, b->i, &TOP.i))
				return WM_EXPR_OVERFLOW;
			break;
		case OP_DIV_IF:
			st[sp++].i = row[pc->field].i;
			goto div_i;
		case OP_DIV_I:
		div_i:
			b = RIGHT();
			if (b->i == 0)
				return WM_EXPR_DIVISION_BY_ZERO;
			/* Java wraps INT64_MIN / -1 to INT64_MIN; C traps. */
			if (b->i == -1 && TOP.i == INT64_MIN)
				return WM_EXPR_OVERFLOW;
			TOP.i /= b->i;
			break;
		case OP_MOD_IF:
			st[sp++].i = row[pc->field].i;
			goto mod_i;
		case OP_MOD_I:
		mod_i:
			b = RIGHT();
			if (b->i == 0)
				return WM_EXPR_DIVISION_BY_ZERO;
			/* x % -1 is 0 in Java, INT64_MIN % -1 too; C traps. */
			TOP.i = b->i == -1 ? 0 : TOP.i % b->i;
			break;
		case OP_NEG_D:
			if (__builtin_sub_overflow((__int128)0, TOP.d,
						   &TOP.d) ||
			    !dec_within(TOP.d, pc->prec))
				return WM_EXPR_DECIMAL_OVERFLOW;
			break;
		case OP_ADD_D:
			b = RIGHT();
			if (__builtin_add_overflow(TOP.d, b->d, &TOP.d) ||
			    !dec_within(TOP.d, pc->prec))
				return WM_EXPR_DECIMAL_OVERFLOW;
			break;
		case OP_SUB_D:
			b = RIGHT();
			if (__builtin_sub_overflow(TOP.d, b->d, &TOP.d) ||
			    !dec_within(TOP.d, pc->prec))
				return WM_EXPR_DECIMAL_OVERFLOW;
			break;
		case OP_MUL_D:
			b = RIGHT();
			/* Two factors of 64 bits cannot overflow 128; the
			 * general check is a call (__muloti4). */
			if (TOP.d == (int64_t)TOP.d && b->d == (int64_t)b->d)
				TOP.d = (__int128)(int64_t)TOP.d *
					(int64_t)b->d;
			else if (__builtin_mul_overflow(TOP.d, b->d, &TOP.d))
				return WM_EXPR_DECIMAL_OVERFLOW;
			if (!dec_within(TOP.d, pc->prec))
				return WM_EXPR_DECIMAL_OVERFLOW;
			break;
		case OP_I2D:
			TOP.d = TOP.i;
			break;
		case OP_RESCALE:
			if (__builtin_mul_overflow(TOP.d, pow10_128[pc->arg],
						   &TOP.d) ||
			    !dec_within(TOP.d, pc->prec))
				return WM_EXPR_DECIMAL_OVERFLOW;
			break;
		case OP_RESCALE_CMP:
			/* The other side is below 10^38 at this scale: a value
			 * beyond it needs only its sign to compare. */
			lim = pow10_128[WM_EXPR_DECIMAL_MAX_PRECISION -
					pc->arg];
			if (TOP.d > lim)
				TOP.d = pow10_128
					[WM_EXPR_DECIMAL_MAX_PRECISION];
			else if (TOP.d < -lim)
				TOP.d = -pow10_128
						[WM_EXPR_DECIMAL_MAX_PRECISION];
			else
				TOP.d *= pow10_128[pc->arg];
			break;
		case OP_CMP_IF_RET:
			c = CMP3(row[pc->field].i, consts[pc->arg].i);
			*result = HOLDS(pc->cond, c);
			return WM_EXPR_OK;
		case OP_CMP_I_RET:
			c = CMP3(TOP.i, consts[pc->arg].i);
			*result = HOLDS(pc->cond, c);
			return WM_EXPR_OK;
		case OP_CMP_IF:
			st[sp++].i = row[pc->field].i;
			goto cmp_i;
		case OP_CMP_I:
		cmp_i:
			b = RIGHT();
			c = CMP3(TOP.i, b->i);
			TOP.b = HOLDS(pc->cond, c);
			break;
		case OP_CMP_D:
			b = RIGHT();
			c = CMP3(TOP.d, b->d);
			TOP.b = HOLDS(pc->cond, c);
			break;
		case OP_CMP_S:
			b = RIGHT();
			c = compare_strings(&TOP, b);
			TOP.b = HOLDS(pc->cond, c);
			break;
		case OP_CMP_B:
			b = RIGHT();
			c = CMP3(TOP.b, b->b);
			TOP.b = HOLDS(pc->cond, c);
			break;
		case OP_NOT:
			TOP.b = !TOP.b;
			break;
		case OP_AND:
			if (!TOP.b)
				pc = code + pc->arg - 1;
			else
				sp--;
			break;
		case OP_OR:
			if (TOP.b)
				pc = code + pc->arg - 1;
			else
				sp--;
			break;
		}
	}
#undef RIGHT
#undef TOP
}

enum wm_expr_status
wm_expr_where(const struct wm_expr *e, const struct wm_expr_value *row,
	      bool *keep)
{
	WM_ASSERT(e->n_outputs == 0);
	return run(e->code, e->consts, row, NULL, keep);
}

enum wm_expr_status
wm_expr_select(const struct wm_expr *e, const struct wm_expr_value *in,
	       struct wm_expr_value *out)
{
	WM_ASSERT(e->n_outputs > 0);
	return run(e->code, e->consts, in, out, NULL);
}

const struct wm_expr_field *
wm_expr_outputs(const struct wm_expr *e, size_t *n)
{
	*n = e->n_outputs;
	return e->outputs;
}

void
wm_expr_free(struct wm_expr *e)
{
	if (e == NULL)
		return;
	free(e->code);
	free(e->consts);
	free(e->outputs);
	free(e->arena);
	free(e);
}

const char *
wm_expr_status_name(enum wm_expr_status st)
{
	switch (st) {
	case WM_EXPR_OK:
		return "ok";
	case WM_EXPR_OVERFLOW:
		return "BIGINT overflow";
	case WM_EXPR_DIVISION_BY_ZERO:
		return "division by zero";
	case WM_EXPR_DECIMAL_OVERFLOW:
		return "DECIMAL overflow";
	}
	return "unknown status";
}

char *
wm_expr_type_name(char *buf, size_t len, enum wm_expr_type type,
		  unsigned precision, unsigned scale)
{
	switch (type) {
	case WM_EXPR_BIGINT:
		snprintf(buf, len, "BIGINT");
		break;
	case WM_EXPR_DECIMAL:
		snprintf(buf, len, "DECIMAL(%u,%u)", precision, scale);
		break;
	case WM_EXPR_BOOLEAN:
		snprintf(buf, len, "BOOLEAN");
		break;
	case WM_EXPR_STRING:
		snprintf(buf, len, "STRING");
		break;
	case WM_EXPR_TIMESTAMP:
		snprintf(buf, len, "TIMESTAMP(3)");
		break;
	default:
		snprintf(buf, len, "type %d", (int)type);
		break;
	}
	return buf;
}

char *
wm_expr_decimal_text(char *p, __int128 v, unsigned s)
{
	/* Digits of |v| from the last: 39 at most (2^127 < 10^39). */
	char digits[40];
	unsigned __int128 m =
		v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
	unsigned n = 0;

	if (v < 0)
		*p++ = '-';
	while (m >= (unsigned __int128)E19) {
		uint64_t low = (uint64_t)(m % (unsigned __int128)E19);

		m /= (unsigned __int128)E19;
		for (int k = 0; k < 19; k++, low /= 10)
			digits[n++] = (char)('0' + low % 10);
	}
	{
		char tmp[WM_DECIMAL_MAX];
		char *end = wm_decimal_u64(tmp, (uint64_t)m);

		while (end > tmp)
			digits[n++] = *--end;
	}
	/* digits[n - 1] is the first digit; a 0 alone when v is 0. */
	if (n <= s) {
		*p++ = '0';
		*p++ = '.';
		for (unsigned k = n; k < s; k++)
			*p++ = '0';
		while (n > 0)
			*p++ = digits[--n];
		return p;
	}
	while (n > s)
		*p++ = digits[--n];
	if (s > 0) {
		*p++ = '.';
		while (n > 0)
			*p++ = digits[--n];
	}
	return p;
}

/* ---- the compiler ----------------------------------------------------- */

enum tok {
	T_END,
	T_INT,
	T_DEC,
	T_STR,
	T_NAME,
	T_LP,
	T_RP,
	T_COMMA,
	T_PLUS,
	T_MINUS,
	T_STAR,
	T_SLASH,
	T_PERCENT,
	T_CMP, /* cond says which */
	T_AND,
	T_OR,
	T_NOT,
	T_AS,
	T_TRUE,
	T_FALSE,
	T_MOD,
};

static const struct {
	const char *word;
	enum tok tok;
} keywords[] = {
	{"AND", T_AND},	  {"OR", T_OR},	      {"NOT", T_NOT}, {"AS", T_AS},
	{"TRUE", T_TRUE}, {"FALSE", T_FALSE}, {"MOD", T_MOD},
};

struct token {
	enum tok tok;
	size_t off, end; /* its bytes in the text */
	enum cond cond;	 /* T_CMP */
	uint64_t u;	 /* T_INT: the value, if !big */
	bool big;	 /* T_INT: beyond 2^63 */
	__int128 d;	 /* T_DEC: unscaled */
	uint8_t p, s;	 /* T_DEC: precision, scale */
	const char *str; /* T_STR, T_NAME: unescaped, in the arena or text */
	size_t len;
};

enum node_op {
	N_FIELD,
	N_CONST,
	N_NEG,
	N_NOT,
	N_ADD,
	N_SUB,
	N_MUL,
	N_DIV,
	N_MOD,
	N_CMP,
	N_AND,
	N_OR,
	N_TO_DEC,
	N_RESCALE,
	N_RESCALE_CMP,
};

struct type {
	enum wm_expr_type t;
	uint8_t p, s; /* DECIMAL */
};

struct node {
	enum node_op op;
	enum cond cond; /* N_CMP */
	struct type type;
	size_t off;   /* where a message about it points */
	int l, r;     /* children, or -1 */
	uint32_t arg; /* N_FIELD: index; N_RESCALE*: the power of ten */
	struct wm_expr_value v; /* N_CONST */
};

/* Code and constants being written. */
struct prog {
	struct ins *code;
	size_t n, cap;
	struct wm_expr_value *consts;
	size_t nc, ccap;
	unsigned depth, max_depth; /* stack slots in use, at most */
};

struct parser {
	const char *text;
	size_t len;
	size_t pos;	 /* lexer: next byte */
	size_t prev_end; /* end of the token before tok */
	struct token tok;
	const struct wm_expr_field *schema;
	size_t n_fields;
	struct node *nodes;
	size_t n_nodes, cap_nodes;
	char *arena;
	size_t arena_used;
	int nesting;
	bool nomem;
	bool failed;
	size_t err_off;
	char *err;
	size_t errlen;
};

/* `s[0..n)` for a message: in double quotes, control bytes and bad UTF-8
 * as \xNN (wm_log_escape()), '"' and '\' after a '\', cut with "...". */
static const char *
quote(char *buf, const char *s, size_t n)
{
	size_t cut = n > QUOTE_CUT ? QUOTE_CUT : n;
	size_t o = 0, i = 0;

	buf[o++] = '"';
	while (i < cut) {
		size_t j = i;

		while (j < cut && s[j] != '"' && s[j] != '\\')
			j++;
		if (j > i) {
			wm_log_escape(buf + o, QUOTE_MAX - o, s + i, j - i);
			o += strlen(buf + o);
		}
		if (j < cut) {
			buf[o++] = '\\';
			buf[o++] = s[j++];
		}
		i = j;
	}
	if (cut < n) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

/* Keep the first error: at byte `off` of the text. Returns -1. */
static int fail(struct parser *ps, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
fail(struct parser *ps, size_t off, const char *fmt, ...)
{
	va_list ap;

	if (ps->failed)
		return -1;
	ps->failed = true;
	ps->err_off = off;
	if (ps->err != NULL && ps->errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(ps->err, ps->errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int
fail_nomem(struct parser *ps)
{
	ps->nomem = true;
	return fail(ps, 0, "out of memory");
}

/* The current token for a message: quoted, or "the end". */
static const char *
tok_text(const struct parser *ps, char *buf)
{
	if (ps->tok.tok == T_END)
		return "the end";
	return quote(buf, ps->text + ps->tok.off, ps->tok.end - ps->tok.off);
}

static bool
is_name_start(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool
is_name_char(char c)
{
	return is_name_start(c) || is_digit(c);
}

/* A number at ps->pos: digits [. digits] or . digits. */
static int
lex_number(struct parser *ps, struct token *t)
{
	const char *s = ps->text;
	size_t i = t->off, digits = 0, after = 0;
	bool point = false, big = false;
	uint64_t u = 0;
	__int128 d = 0;
	char buf[QUOTE_MAX];

	for (;; i++) {
		if (is_digit(s[i])) {
			unsigned dig = (unsigned)(s[i] - '0');

			digits++;
			after += point;
			if (__builtin_mul_overflow(u, 10, &u) ||
			    __builtin_add_overflow(u, dig, &u))
				big = true;
			if (digits <= WM_EXPR_DECIMAL_MAX_PRECISION)
				d = d * 10 + dig;
		} else if (s[i] == '.' && !point) {
			point = true;
		} else {
			break;
		}
	}
	if (is_name_char(s[i]) || s[i] == '.' || (point && after == 0)) {
		while (is_name_char(s[i]) || s[i] == '.')
			i++;
		return fail(ps, t->off, "invalid number %s",
			    quote(buf, s + t->off, i - t->off));
	}
	t->end = i;
	if (!point) {
		t->tok = T_INT;
		t->big = big || u > (uint64_t)INT64_MAX + 1;
		t->u = u;
		return 0;
	}
	if (digits > WM_EXPR_DECIMAL_MAX_PRECISION)
		return fail(ps, t->off,
			    "decimal literal out of range: %zu digits, "
			    "DECIMAL has at most %d",
			    digits, WM_EXPR_DECIMAL_MAX_PRECISION);
	/* Calcite: every digit written counts, a leading 0 too. */
	t->tok = T_DEC;
	t->d = d;
	t->p = (uint8_t)digits;
	t->s = (uint8_t)after;
	return 0;
}

/* 'text' or `name` at ps->pos: the quote doubled inside stands for
 * itself; unescaped into the arena. */
static int
lex_quoted(struct parser *ps, struct token *t, char q)
{
	const char *s = ps->text;
	char *dst = ps->arena + ps->arena_used;
	size_t i = t->off + 1, n = 0;

	for (;;) {
		if (i >= ps->len)
			return fail(ps, t->off,
				    q == '\'' ? "unterminated string"
					      : "unterminated quoted name");
		if (s[i] == q) {
			if (i + 1 < ps->len && s[i + 1] == q) {
				dst[n++] = q;
				i += 2;
				continue;
			}
			break;
		}
		dst[n++] = s[i++];
	}
	dst[n] = '\0';
	ps->arena_used += n + 1;
	t->end = i + 1;
	t->str = dst;
	t->len = n;
	t->tok = q == '\'' ? T_STR : T_NAME;
	if (q == '`' && n == 0)
		return fail(ps, t->off, "empty quoted name");
	return 0;
}

/* The next token into ps->tok. */
static int
next(struct parser *ps)
{
	struct token *t = &ps->tok;
	const char *s = ps->text;
	size_t i = ps->pos;
	char buf[QUOTE_MAX];

	ps->prev_end = t->end;
	while (i < ps->len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	memset(t, 0, sizeof(*t));
	t->off = i;
	t->end = i + 1;
	if (i >= ps->len) {
		t->tok = T_END;
		t->end = i;
	} else if (is_digit(s[i]) || (s[i] == '.' && is_digit(s[i + 1]))) {
		if (lex_number(ps, t) < 0)
			return -1;
	} else if (s[i] == '\'' || s[i] == '`') {
		if (lex_quoted(ps, t, s[i]) < 0)
			return -1;
	} else if (is_name_start(s[i])) {
		size_t j = i;

		while (is_name_char(s[j]))
			j++;
		t->tok = T_NAME;
		t->str = s + i;
		t->len = j - i;
		t->end = j;
		for (size_t k = 0; k < sizeof(keywords) / sizeof(keywords[0]);
		     k++)
			if (strlen(keywords[k].word) == t->len &&
			    strncasecmp(keywords[k].word, t->str, t->len) == 0)
				t->tok = keywords[k].tok;
	} else {
		switch (s[i]) {
		case '(':
			t->tok = T_LP;
			break;
		case ')':
			t->tok = T_RP;
			break;
		case ',':
			t->tok = T_COMMA;
			break;
		case '+':
			t->tok = T_PLUS;
			break;
		case '-':
			t->tok = T_MINUS;
			break;
		case '*':
			t->tok = T_STAR;
			break;
		case '/':
			t->tok = T_SLASH;
			break;
		case '%':
			t->tok = T_PERCENT;
			break;
		case '=':
			t->tok = T_CMP;
			t->cond = COND_EQ;
			t->end += s[i + 1] == '=';
			break;
		case '!':
			if (s[i + 1] != '=')
				goto unexpected;
			t->tok = T_CMP;
			t->cond = COND_NE;
			t->end++;
			break;
		case '<':
			t->tok = T_CMP;
			t->cond = COND_LT;
			if (s[i + 1] == '=' || s[i + 1] == '>') {
				t->cond = s[i + 1] == '=' ? COND_LE : COND_NE;
				t->end++;
			}
			break;
		case '>':
			t->tok = T_CMP;
			t->cond = COND_GT;
			if (s[i + 1] == '=') {
				t->cond = COND_GE;
				t->end++;
			}
			break;
		default:
		unexpected : {
			size_t k = wm_utf8_seq((const unsigned char *)s + i,
					       ps->len - i);

			return fail(ps, i, "unexpected character %s",
				    quote(buf, s + i, k ? k : 1));
		}
		}
	}
	ps->pos = t->end;
	return 0;
}

/* ---- types, folding, code --------------------------------------------- */

static const char *
type_text(char *buf, struct type t)
{
	return wm_expr_type_name(buf, 32, t.t, t.p, t.s);
}

static bool
is_number(struct type t)
{
	return t.t == WM_EXPR_BIGINT || t.t == WM_EXPR_DECIMAL;
}

/* A DECIMAL's digits before the point. */
static int
int_digits(struct type t)
{
	return t.p - t.s;
}

static int
new_node(struct parser *ps, enum node_op op, struct type type, size_t off,
	 int l, int r)
{
	struct node *n;

	if (ps->n_nodes == ps->cap_nodes) {
		size_t cap = ps->cap_nodes ? 2 * ps->cap_nodes : 16;
		struct node *nodes = realloc(ps->nodes, cap * sizeof(*nodes));

		if (nodes == NULL)
			return fail_nomem(ps);
		ps->nodes = nodes;
		ps->cap_nodes = cap;
	}
	n = &ps->nodes[ps->n_nodes];
	memset(n, 0, sizeof(*n));
	n->op = op;
	n->type = type;
	n->off = off;
	n->l = l;
	n->r = r;
	return (int)ps->n_nodes++;
}

static int
emit(struct parser *ps, struct prog *pg, enum opcode op, uint32_t arg)
{
	if (pg->n == pg->cap) {
		size_t cap = pg->cap ? 2 * pg->cap : 16;
		struct ins *code = realloc(pg->code, cap * sizeof(*code));

		if (code == NULL)
			return fail_nomem(ps);
		pg->code = code;
		pg->cap = cap;
	}
	memset(&pg->code[pg->n], 0, sizeof(pg->code[0]));
	pg->code[pg->n].op = (uint8_t)op;
	pg->code[pg->n].arg = arg;
	pg->n++;
	return 0;
}

static int
add_const(struct parser *ps, struct prog *pg, const struct wm_expr_value *v)
{
	if (pg->nc == pg->ccap) {
		size_t cap = pg->ccap ? 2 * pg->ccap : 8;
		struct wm_expr_value *c = realloc(pg->consts, cap * sizeof(*c));

		if (c == NULL)
			return fail_nomem(ps);
		pg->consts = c;
		pg->ccap = cap;
	}
	pg->consts[pg->nc] = *v;
	return (int)pg->nc++;
}

static int
push(struct parser *ps, struct prog *pg, unsigned slots)
{
	pg->depth += slots;
	if (pg->depth > pg->max_depth)
		pg->max_depth = pg->depth;
	if (pg->depth > WM_EXPR_STACK_SLOTS)
		return fail(ps, 0, "expression is too complex");
	return 0;
}

/* Which of the moves (OP_FIELD_I + this, OP_STORE_I + this, ...) a
 * value of type t takes. */
static unsigned
member(enum wm_expr_type t)
{
	switch (t) {
	case WM_EXPR_DECIMAL:
		return 1;
	case WM_EXPR_STRING:
		return 2;
	case WM_EXPR_BOOLEAN:
		return 3;
	default:
		return 0;
	}
}

static enum opcode
binary_opcode(const struct node *n, const struct node *operand)
{
	bool dec = n->type.t == WM_EXPR_DECIMAL;

	switch (n->op) {
	case N_ADD:
		return dec ? OP_ADD_D : OP_ADD_I;
	case N_SUB:
		return dec ? OP_SUB_D : OP_SUB_I;
	case N_MUL:
		return dec ? OP_MUL_D : OP_MUL_I;
	case N_DIV:
		return OP_DIV_I;
	case N_MOD:
		return OP_MOD_I;
	default:
		break;
	}
	/* N_CMP: by the operands' type. */
	switch (operand->type.t) {
	case WM_EXPR_DECIMAL:
		return OP_CMP_D;
	case WM_EXPR_STRING:
		return OP_CMP_S;
	case WM_EXPR_BOOLEAN:
		return OP_CMP_B;
	default:
		return OP_CMP_I;
	}
}

/*
 * `ins`, a BIGINT operator with a constant on the right, just written
 * after the push of a BIGINT or TIMESTAMP field: the two become one _IF
 * instruction.
 */
static void
fuse_field(struct prog *pg, struct ins *ins)
{
	struct ins *load = ins - 1;
	uint8_t fused;

	if (pg->n < 2 || load->op != OP_FIELD_I)
		return;
	switch (ins->op) {
	case OP_ADD_I:
		fused = OP_ADD_IF;
		break;
	case OP_SUB_I:
		fused = OP_SUB_IF;
		break;
	case OP_MUL_I:
		fused = OP_MUL_IF;
		break;
	case OP_DIV_I:
		fused = OP_DIV_IF;
		break;
	case OP_MOD_I:
		fused = OP_MOD_IF;
		break;
	case OP_CMP_I:
		fused = OP_CMP_IF;
		break;
	default:
		return;
	}
	ins->field = load->arg;
	ins->op = fused;
	*load = *ins;
	pg->n--;
}

/* Postfix code of node i into pg. */
static int
gen(struct parser *ps, struct prog *pg, int i)
{
	const struct node *n = &ps->nodes[i];
	struct ins *ins;
	size_t jump;
	int c;

	switch (n->op) {
	case N_FIELD:
		if (push(ps, pg, 1) < 0)
			return -1;
		return emit(ps, pg, OP_FIELD_I + member(n->type.t), n->arg);
	case N_CONST:
		if ((c = add_const(ps, pg, &n->v)) < 0 || push(ps, pg, 1) < 0)
			return -1;
		return emit(ps, pg, OP_CONST, (uint32_t)c);
	case N_NEG:
	case N_NOT:
	case N_TO_DEC:
	case N_RESCALE:
	case N_RESCALE_CMP:
		if (gen(ps, pg, n->l) < 0)
			return -1;
		if (n->op == N_NEG)
			c = emit(ps, pg,
				 n->type.t == WM_EXPR_DECIMAL ? OP_NEG_D
							      : OP_NEG_I,
				 0);
		else if (n->op == N_NOT)
			c = emit(ps, pg, OP_NOT, 0);
		else if (n->op == N_TO_DEC)
			c = emit(ps, pg, OP_I2D, 0);
		else
			c = emit(ps, pg,
				 n->op == N_RESCALE ? OP_RESCALE
						    : OP_RESCALE_CMP,
				 n->arg);
		if (c < 0)
			return -1;
		pg->code[pg->n - 1].prec = n->type.p;
		return 0;
	case N_AND:
	case N_OR:
		if (gen(ps, pg, n->l) < 0)
			return -1;
		jump = pg->n;
		if (emit(ps, pg, n->op == N_AND ? OP_AND : OP_OR, 0) < 0)
			return -1;
		pg->depth--;
		if (gen(ps, pg, n->r) < 0)
			return -1;
		pg->code[jump].arg = (uint32_t)pg->n;
		return 0;
	default:
		break;
	}
	/* A binary operator: a constant right operand goes inside it. */
	if (gen(ps, pg, n->l) < 0)
		return -1;
	if (ps->nodes[n->r].op == N_CONST) {
		if ((c = add_const(ps, pg, &ps->nodes[n->r].v)) < 0 ||
		    emit(ps, pg, binary_opcode(n, &ps->nodes[n->l]),
			 (uint32_t)c) < 0)
			return -1;
		ins = &pg->code[pg->n - 1];
		ins->rk = 1;
	} else {
		if (gen(ps, pg, n->r) < 0 ||
		    emit(ps, pg, binary_opcode(n, &ps->nodes[n->l]), 0) < 0)
			return -1;
		ins = &pg->code[pg->n - 1];
		pg->depth--;
	}
	ins->cond = (uint8_t)n->cond;
	ins->prec = n->type.p;
	if (ins->rk)
		fuse_field(pg, ins);
	return 0;
}

/*
 * Node i, all of whose children are constants, becomes a constant: its
 * code alone is run by the evaluator the records go through. An error
 * there is the expression's (it would fail on every record).
 */
static int
fold(struct parser *ps, int i)
{
	struct prog pg = {0};
	struct wm_expr_value v;
	enum wm_expr_status st = WM_EXPR_OK;
	struct node *n;
	char buf[32];

	if (gen(ps, &pg, i) == 0 &&
	    emit(ps, &pg, OP_STORE_I + member(ps->nodes[i].type.t), 0) == 0 &&
	    emit(ps, &pg, OP_RET, 0) == 0)
		st = run(pg.code, pg.consts, NULL, &v, NULL);
	free(pg.code);
	free(pg.consts);
	if (ps->failed)
		return -1;
	n = &ps->nodes[i];
	if (st != WM_EXPR_OK)
		return fail(ps, n->off, "%s in a constant expression (%s)",
			    wm_expr_status_name(st), type_text(buf, n->type));
	n->op = N_CONST;
	n->l = n->r = -1;
	n->v = v;
	return i;
}

static bool
is_const(const struct parser *ps, int i)
{
	return ps->nodes[i].op == N_CONST;
}

/* A node over children l (and r), folded when they are constants. */
static int
make(struct parser *ps, enum node_op op, struct type type, size_t off, int l,
     int r)
{
	int i = new_node(ps, op, type, off, l, r);

	if (i < 0)
		return -1;
	if (is_const(ps, l) && (r < 0 || is_const(ps, r)))
		return fold(ps, i);
	return i;
}

/* Operand i as DECIMAL: a BIGINT is DECIMAL(19,0). */
static int
to_dec(struct parser *ps, int i)
{
	struct type t = {WM_EXPR_DECIMAL, 19, 0};

	if (ps->nodes[i].type.t == WM_EXPR_DECIMAL)
		return i;
	return make(ps, N_TO_DEC, t, ps->nodes[i].off, i, -1);
}

/* DECIMAL operand i at scale s (>= its own). For a comparison the value
 * is held at +-10^38 where it would not fit; elsewhere the rules keep
 * it within the precision. */
static int
rescale(struct parser *ps, int i, unsigned s, bool cmp)
{
	struct type t = ps->nodes[i].type;
	unsigned k = s - t.s;
	int r;

	if (k == 0)
		return i;
	t.p = (uint8_t)(t.p + k > WM_EXPR_DECIMAL_MAX_PRECISION
				? WM_EXPR_DECIMAL_MAX_PRECISION
				: t.p + k);
	t.s = (uint8_t)s;
	r = new_node(ps, cmp ? N_RESCALE_CMP : N_RESCALE, t, ps->nodes[i].off,
		     i, -1);
	if (r < 0)
		return -1;
	ps->nodes[r].arg = k;
	return is_const(ps, i) ? fold(ps, r) : r;
}

static int
refuse_wide(struct parser *ps, size_t off, const char *sym, struct type a,
	    struct type b, int p, int s)
{
	char ta[32], tb[32];

	return fail(ps, off,
		    "%s %s %s would be DECIMAL(%d,%d), beyond %d digits "
		    "(Flink rounds it to 38 digits; wmrun does not yet)",
		    type_text(ta, a), sym, type_text(tb, b), p, s,
		    WM_EXPR_DECIMAL_MAX_PRECISION);
}

/* l op r for + - * / % and MOD: `sym` spells the operator. */
static int
make_arith(struct parser *ps, enum node_op op, const char *sym, size_t off,
	   int l, int r)
{
	struct type a = ps->nodes[l].type, b = ps->nodes[r].type, t;
	char ta[32], tb[32];
	int p, s;

	if (!is_number(a) || !is_number(b))
		return fail(ps, off,
			    "type mismatch: %s %s %s (arithmetic needs BIGINT "
			    "or DECIMAL operands)",
			    type_text(ta, a), sym, type_text(tb, b));
	if (a.t == WM_EXPR_BIGINT && b.t == WM_EXPR_BIGINT) {
		if ((op == N_DIV || op == N_MOD) && is_const(ps, r) &&
		    ps->nodes[r].v.i == 0)
			return fail(ps, off, "%s by zero",
				    op == N_DIV ? "division" : "modulo");
		t = (struct type){WM_EXPR_BIGINT, 0, 0};
		return make(ps, op, t, off, l, r);
	}
	if (op == N_DIV || op == N_MOD)
		return fail(ps, off,
			    "%s on DECIMAL is not supported yet (%s %s %s)",
			    op == N_DIV ? "division" : "modulo",
			    type_text(ta, a), sym, type_text(tb, b));
	if ((l = to_dec(ps, l)) < 0 || (r = to_dec(ps, r)) < 0)
		return -1;
	a = ps->nodes[l].type;
	b = ps->nodes[r].type;
	if (op == N_MUL) {
		p = a.p + b.p + 1;
		s = a.s + b.s;
	} else {
		s = a.s > b.s ? a.s : b.s;
		p = (int_digits(a) > int_digits(b) ? int_digits(a)
						   : int_digits(b)) +
		    s + 1;
	}
	if (p > WM_EXPR_DECIMAL_MAX_PRECISION)
		return refuse_wide(ps, off, sym, a, b, p, s);
	if (op != N_MUL && ((l = rescale(ps, l, (unsigned)s, false)) < 0 ||
			    (r = rescale(ps, r, (unsigned)s, false)) < 0))
		return -1;
	t = (struct type){WM_EXPR_DECIMAL, (uint8_t)p, (uint8_t)s};
	return make(ps, op, t, off, l, r);
}

static int
make_cmp(struct parser *ps, enum cond cond, const char *sym, size_t off, int l,
	 int r)
{
	struct type a = ps->nodes[l].type, b = ps->nodes[r].type;
	struct type t = {WM_EXPR_BOOLEAN, 0, 0};
	char ta[32], tb[32];
	int i;

	if (is_number(a) && is_number(b)) {
		if (a.t == WM_EXPR_DECIMAL || b.t == WM_EXPR_DECIMAL) {
			unsigned s;

			if ((l = to_dec(ps, l)) < 0 || (r = to_dec(ps, r)) < 0)
				return -1;
			s = ps->nodes[l].type.s > ps->nodes[r].type.s
				    ? ps->nodes[l].type.s
				    : ps->nodes[r].type.s;
			if ((l = rescale(ps, l, s, true)) < 0 ||
			    (r = rescale(ps, r, s, true)) < 0)
				return -1;
		}
	} else if (a.t != b.t) {
		return fail(ps, off, "type mismatch: %s %s %s",
			    type_text(ta, a), sym, type_text(tb, b));
	} else if (a.t == WM_EXPR_BOOLEAN && cond != COND_EQ &&
		   cond != COND_NE) {
		return fail(ps, off,
			    "BOOLEAN %s BOOLEAN: booleans compare with = and "
			    "<> only",
			    sym);
	}
	if ((i = new_node(ps, N_CMP, t, off, l, r)) < 0)
		return -1;
	ps->nodes[i].cond = cond;
	return is_const(ps, l) && is_const(ps, r) ? fold(ps, i) : i;
}

static int
make_logic(struct parser *ps, enum node_op op, size_t off, int l, int r)
{
	struct type a = ps->nodes[l].type, b = ps->nodes[r].type;
	struct type t = {WM_EXPR_BOOLEAN, 0, 0};
	char buf[32];

	if (a.t != WM_EXPR_BOOLEAN || b.t != WM_EXPR_BOOLEAN)
		return fail(ps, off, "%s needs BOOLEAN operands, not %s",
			    op == N_AND ? "AND" : "OR",
			    type_text(buf, a.t != WM_EXPR_BOOLEAN ? a : b));
	return make(ps, op, t, off, l, r);
}

/* ---- the parser ------------------------------------------------------- */

static int parse_or(struct parser *ps);

/* One more level of nesting at the current token, or an error. */
static int
enter(struct parser *ps)
{
	if (++ps->nesting > WM_EXPR_DEPTH_MAX)
		return fail(ps, ps->tok.off,
			    "expression nested more than %d levels deep",
			    WM_EXPR_DEPTH_MAX);
	return 0;
}

static int
expect(struct parser *ps, enum tok tok, const char *what)
{
	char buf[QUOTE_MAX];

	if (ps->tok.tok != tok)
		return fail(ps, ps->tok.off, "expected %s, found %s", what,
			    tok_text(ps, buf));
	return next(ps);
}

static int
field(struct parser *ps)
{
	const struct token *t = &ps->tok;
	char buf[QUOTE_MAX], other[QUOTE_MAX], list[256];
	size_t i, o = 0;
	int n;

	for (i = 0; i < ps->n_fields; i++) {
		const char *name = ps->schema[i].name;

		if (strlen(name) == t->len && memcmp(name, t->str, t->len) == 0)
			break;
	}
	if (i < ps->n_fields) {
		struct type type = {ps->schema[i].type, 0, 0};

		if (type.t == WM_EXPR_DECIMAL) {
			type.p = ps->schema[i].precision;
			type.s = ps->schema[i].scale;
		}
		if ((n = new_node(ps, N_FIELD, type, t->off, -1, -1)) < 0)
			return -1;
		ps->nodes[n].arg = (uint32_t)i;
		return next(ps) < 0 ? -1 : n;
	}
	quote(buf, t->str, t->len);
	for (i = 0; i < ps->n_fields; i++) {
		const char *name = ps->schema[i].name;

		if (strlen(name) == t->len &&
		    strncasecmp(name, t->str, t->len) == 0)
			return fail(ps, t->off,
				    "unknown field %s (did you mean %s? names "
				    "are case-sensitive)",
				    buf, quote(other, name, strlen(name)));
	}
	if (ps->n_fields == 0 || ps->n_fields > 8)
		return fail(ps, t->off, "unknown field %s", buf);
	list[0] = '\0';
	for (i = 0; i < ps->n_fields; i++) {
		const char *name = ps->schema[i].name;

		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s",
				      i ? ", " : "",
				      quote(other, name, strlen(name)));
		if (o >= sizeof(list))
			break;
	}
	return fail(ps, t->off, "unknown field %s (the fields are %s)", buf,
		    list);
}

static int
literal(struct parser *ps, struct type type, const struct wm_expr_value *v)
{
	int n = new_node(ps, N_CONST, type, ps->tok.off, -1, -1);

	if (n < 0)
		return -1;
	ps->nodes[n].v = *v;
	return next(ps) < 0 ? -1 : n;
}

static int
parse_primary(struct parser *ps)
{
	const struct token *t = &ps->tok;
	struct wm_expr_value v = {0};
	char buf[QUOTE_MAX];
	size_t off = t->off;
	int a, b;

	switch (t->tok) {
	case T_INT:
		if (t->big || t->u > INT64_MAX)
			return fail(ps, off,
				    "integer literal out of range (BIGINT is "
				    "64 bits; write a DECIMAL with a point)");
		v.i = (int64_t)t->u;
		return literal(ps, (struct type){WM_EXPR_BIGINT, 0, 0}, &v);
	case T_DEC:
		v.d = t->d;
		return literal(ps, (struct type){WM_EXPR_DECIMAL, t->p, t->s},
			       &v);
	case T_STR:
		v.s.p = t->str;
		v.s.len = (uint32_t)t->len;
		return literal(ps, (struct type){WM_EXPR_STRING, 0, 0}, &v);
	case T_TRUE:
	case T_FALSE:
		v.b = t->tok == T_TRUE;
		return literal(ps, (struct type){WM_EXPR_BOOLEAN, 0, 0}, &v);
	case T_NAME:
		return field(ps);
	case T_LP:
		if (enter(ps) < 0 || next(ps) < 0 || (a = parse_or(ps)) < 0 ||
		    expect(ps, T_RP, "\")\"") < 0)
			return -1;
		ps->nesting--;
		return a;
	case T_MOD:
		if (enter(ps) < 0 || next(ps) < 0 ||
		    expect(ps, T_LP, "\"(\" after MOD") < 0 ||
		    (a = parse_or(ps)) < 0 ||
		    expect(ps, T_COMMA, "\",\" between MOD's operands") < 0 ||
		    (b = parse_or(ps)) < 0 ||
		    expect(ps, T_RP, "\")\" after MOD's operands") < 0)
			return -1;
		ps->nesting--;
		return make_arith(ps, N_MOD, "MOD", off, a, b);
	default:
		return fail(ps, off, "expected an operand, found %s",
			    tok_text(ps, buf));
	}
}

static int
parse_unary(struct parser *ps)
{
	size_t off = ps->tok.off;
	struct wm_expr_value v;
	struct type t;
	int a;

	if (ps->tok.tok != T_MINUS)
		return parse_primary(ps);
	if (next(ps) < 0)
		return -1;
	/* -9223372036854775808: the one literal that fits only negated. */
	if (ps->tok.tok == T_INT && !ps->tok.big &&
	    ps->tok.u == (uint64_t)INT64_MAX + 1) {
		v.i = INT64_MIN;
		return literal(ps, (struct type){WM_EXPR_BIGINT, 0, 0}, &v);
	}
	if (enter(ps) < 0 || (a = parse_unary(ps)) < 0)
		return -1;
	ps->nesting--;
	t = ps->nodes[a].type;
	if (!is_number(t)) {
		char buf[32];

		return fail(ps, off, "unary - needs a number, not %s",
			    type_text(buf, t));
	}
	return make(ps, N_NEG, t, off, a, -1);
}

/* The binary operators' levels, loosest first; NOT and unary minus have
 * levels of their own, parsed by functions of their own. */
enum level {
	LEVEL_OR,
	LEVEL_AND,
	LEVEL_NOT,
	LEVEL_CMP,
	LEVEL_ADD,
	LEVEL_MUL,
	LEVEL_UNARY,
};

static bool
binds_at(enum tok tok, enum level lv)
{
	switch (lv) {
	case LEVEL_OR:
		return tok == T_OR;
	case LEVEL_AND:
		return tok == T_AND;
	case LEVEL_CMP:
		return tok == T_CMP;
	case LEVEL_ADD:
		return tok == T_PLUS || tok == T_MINUS;
	case LEVEL_MUL:
		return tok == T_STAR || tok == T_SLASH || tok == T_PERCENT;
	default:
		return false;
	}
}

/* l op r, op being the token `op` (its spelling is in the text). */
static int
combine(struct parser *ps, const struct token *op, int l, int r)
{
	char sym[3] = {0};

	switch (op->tok) {
	case T_OR:
		return make_logic(ps, N_OR, op->off, l, r);
	case T_AND:
		return make_logic(ps, N_AND, op->off, l, r);
	case T_CMP:
		memcpy(sym, ps->text + op->off, op->end - op->off);
		return make_cmp(ps, op->cond, sym, op->off, l, r);
	case T_PLUS:
		return make_arith(ps, N_ADD, "+", op->off, l, r);
	case T_MINUS:
		return make_arith(ps, N_SUB, "-", op->off, l, r);
	case T_STAR:
		return make_arith(ps, N_MUL, "*", op->off, l, r);
	case T_SLASH:
		return make_arith(ps, N_DIV, "/", op->off, l, r);
	default:
		return make_arith(ps, N_MOD, "%", op->off, l, r);
	}
}

static int parse_not(struct parser *ps);

/* Operands joined by the operators of level lv, grouped to the left. */
static int
parse_level(struct parser *ps, enum level lv)
{
	struct token op;
	int l, r;

	if (lv == LEVEL_NOT)
		return parse_not(ps);
	if (lv == LEVEL_UNARY)
		return parse_unary(ps);
	l = parse_level(ps, lv + 1);
	while (l >= 0 && binds_at(ps->tok.tok, lv)) {
		op = ps->tok;
		if (next(ps) < 0 || (r = parse_level(ps, lv + 1)) < 0)
			return -1;
		l = combine(ps, &op, l, r);
	}
	return l;
}

static int
parse_not(struct parser *ps)
{
	size_t off = ps->tok.off;
	char buf[32];
	int a;

	if (ps->tok.tok != T_NOT)
		return parse_level(ps, LEVEL_CMP);
	if (enter(ps) < 0 || next(ps) < 0 || (a = parse_not(ps)) < 0)
		return -1;
	ps->nesting--;
	if (ps->nodes[a].type.t != WM_EXPR_BOOLEAN)
		return fail(ps, off, "NOT needs a BOOLEAN operand, not %s",
			    type_text(buf, ps->nodes[a].type));
	return make(ps, N_NOT, ps->nodes[a].type, off, a, -1);
}

static int
parse_or(struct parser *ps)
{
	return parse_level(ps, LEVEL_OR);
}

/* ---- compiling -------------------------------------------------------- */

/* The column of byte `off`: characters from 1, as the topology reader
 * counts them (a byte that is not UTF-8 is one). */
static int
column(const char *text, size_t len, size_t off)
{
	size_t i = 0;
	int col = 1;

	while (i < off && i < len) {
		size_t k =
			wm_utf8_seq((const unsigned char *)text + i, len - i);

		i += k ? k : 1;
		col++;
	}
	return col;
}

static int
check_schema(const struct wm_expr_field *schema, size_t n, char *err,
	     size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		const struct wm_expr_field *f = &schema[i];

		if (f->name == NULL || f->name[0] == '\0' ||
		    f->type < WM_EXPR_BIGINT || f->type > WM_EXPR_TIMESTAMP ||
		    (f->type == WM_EXPR_DECIMAL &&
		     (f->precision < 1 ||
		      f->precision > WM_EXPR_DECIMAL_MAX_PRECISION ||
		      f->scale > f->precision))) {
			snprintf(err, errlen, "invalid schema: field %zu", i);
			return -EINVAL;
		}
	}
	return 0;
}

/* A select's item i: its output named `name[0..len)`, at byte `off`. */
static int
add_output(struct parser *ps, struct wm_expr_field *outs, size_t i,
	   const char *name, size_t len, size_t off, struct type t)
{
	char *copy = ps->arena + ps->arena_used;
	char buf[QUOTE_MAX];

	for (size_t k = 0; k < i; k++)
		if (strlen(outs[k].name) == len &&
		    memcmp(outs[k].name, name, len) == 0)
			return fail(ps, off,
				    "duplicate output name %s (item %zu has "
				    "it too)",
				    quote(buf, name, len), k + 1);
	memcpy(copy, name, len);
	copy[len] = '\0';
	ps->arena_used += len + 1;
	outs[i].name = copy;
	outs[i].type = t.t;
	outs[i].precision = t.p;
	outs[i].scale = t.s;
	return 0;
}

/* The code of a select's output k, node i: a bare field is copied. */
static int
gen_output(struct parser *ps, struct prog *pg, int i, size_t k)
{
	const struct node *n = &ps->nodes[i];
	unsigned m = member(n->type.t);

	if (k > UINT8_MAX)
		return fail(ps, n->off, "more than %d select items",
			    UINT8_MAX + 1);
	if (n->op == N_FIELD) {
		if (emit(ps, pg, OP_COPY_I + m, n->arg) < 0)
			return -1;
		pg->code[pg->n - 1].cond = (uint8_t)k;
		return 0;
	}
	if (gen(ps, pg, i) < 0 || emit(ps, pg, OP_STORE_I + m, (uint32_t)k) < 0)
		return -1;
	pg->depth--;
	return 0;
}

/* item { "," item } into pg, each ending in OP_STORE; *outs grown. */
static int
parse_select(struct parser *ps, struct prog *pg, struct wm_expr_field **outs,
	     size_t *n_outs)
{
	char buf[QUOTE_MAX];
	size_t cap = 0;

	for (;;) {
		size_t start = ps->tok.off, name_off;
		const char *name;
		size_t len;
		int item;

		if ((item = parse_or(ps)) < 0)
			return -1;
		if (ps->tok.tok == T_AS) {
			if (next(ps) < 0)
				return -1;
			if (ps->tok.tok != T_NAME)
				return fail(ps, ps->tok.off,
					    "expected a name after AS, "
					    "found %s",
					    tok_text(ps, buf));
			name = ps->tok.str;
			len = ps->tok.len;
			name_off = ps->tok.off;
			if (next(ps) < 0)
				return -1;
		} else if (ps->nodes[item].op == N_FIELD) {
			name = ps->schema[ps->nodes[item].arg].name;
			len = strlen(name);
			name_off = start;
		} else {
			return fail(ps, start, "name it: %s AS name",
				    quote(buf, ps->text + start,
					  ps->prev_end - start));
		}
		if (*n_outs == cap) {
			struct wm_expr_field *o;

			cap = cap ? 2 * cap : 8;
			o = realloc(*outs, cap * sizeof(*o));
			if (o == NULL)
				return fail_nomem(ps);
			*outs = o;
		}
		if (add_output(ps, *outs, *n_outs, name, len, name_off,
			       ps->nodes[item].type) < 0 ||
		    gen_output(ps, pg, item, *n_outs) < 0)
			return -1;
		(*n_outs)++;
		if (ps->tok.tok != T_COMMA)
			break;
		if (next(ps) < 0)
			return -1;
	}
	if (ps->tok.tok != T_END)
		return fail(ps, ps->tok.off,
			    "expected \",\" or the end, found %s",
			    tok_text(ps, buf));
	return 0;
}

static int
parse_where(struct parser *ps, struct prog *pg)
{
	char buf[QUOTE_MAX];
	size_t start = ps->tok.off;
	int root;

	if ((root = parse_or(ps)) < 0)
		return -1;
	if (ps->tok.tok != T_END)
		return fail(ps, ps->tok.off,
			    "unexpected %s after the end of the expression",
			    tok_text(ps, buf));
	if (ps->nodes[root].type.t != WM_EXPR_BOOLEAN)
		return fail(ps, start, "where must be BOOLEAN, not %s",
			    type_text(buf, ps->nodes[root].type));
	return gen(ps, pg, root);
}

static int
compile(const char *text, const struct wm_expr_field *schema, size_t n,
	bool select, struct wm_expr **out, int *col, char *err, size_t errlen)
{
	struct parser ps = {
		.text = text,
		.len = strlen(text),
		.schema = schema,
		.n_fields = n,
		.err = err,
		.errlen = errlen,
	};
	struct prog pg = {0};
	struct wm_expr_field *outs = NULL;
	size_t n_outs = 0;
	struct wm_expr *e = NULL;
	int rc;

	*out = NULL;
	*col = 0;
	if ((rc = check_schema(schema, n, err, errlen)) < 0)
		return rc;
	/* Each quoted token is unescaped into the arena once (no longer
	 * than its text, plus a NUL), and each output name copied once
	 * more: three times the text suffices. */
	ps.arena = malloc(3 * ps.len + 2);
	if (ps.arena == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (next(&ps) == 0) {
		if (ps.tok.tok == T_END)
			fail(&ps, 0, "empty expression");
		else if (select)
			parse_select(&ps, &pg, &outs, &n_outs);
		else
			parse_where(&ps, &pg);
	}
	if (!ps.failed && !select && pg.n > 0 &&
	    (pg.code[pg.n - 1].op == OP_CMP_I ||
	     pg.code[pg.n - 1].op == OP_CMP_IF) &&
	    pg.code[pg.n - 1].rk)
		/* The RET stays after it, for the jumps of AND and OR. */
		pg.code[pg.n - 1].op = pg.code[pg.n - 1].op == OP_CMP_I
					       ? OP_CMP_I_RET
					       : OP_CMP_IF_RET;
	if (!ps.failed)
		emit(&ps, &pg, OP_RET, 0);
	if (!ps.failed && (e = calloc(1, sizeof(*e))) == NULL)
		fail_nomem(&ps);
	free(ps.nodes);
	if (ps.failed) {
		free(pg.code);
		free(pg.consts);
		free(outs);
		free(ps.arena);
		if (ps.nomem)
			return -ENOMEM;
		*col = column(text, ps.len, ps.err_off);
		return -EINVAL;
	}
	e->code = pg.code;
	e->consts = pg.consts;
	e->outputs = outs;
	e->n_outputs = n_outs;
	e->arena = ps.arena;
	*out = e;
	return 0;
}

int
wm_expr_compile_where(const char *text, const struct wm_expr_field *schema,
		      size_t n, struct wm_expr **out, int *col, char *err,
		      size_t errlen)
{
	return compile(text, schema, n, false, out, col, err, errlen);
}

int
wm_expr_compile_select(const char *text, const struct wm_expr_field *schema,
		       size_t n, struct wm_expr **out, int *col, char *err,
		       size_t errlen)
{
	return compile(text, schema, n, true, out, col, err, errlen);
}
