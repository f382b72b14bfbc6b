/*
 * fuzz_expr.c
 *	libFuzzer entry point for operators/expr.[ch], the where and select
 *	expressions, for manual runs; built by `make fuzz`, not by `make` or
 *	`make check` (check_expr's tables run in `make check` instead).
 *
 * Build and run: tests/fuzz/README.md (`make fuzz`).
 *
 * The first byte chooses where or select (bit 0); the rest is the text.
 * A refused text must give -EINVAL, a column inside it (or just after
 * it) and a message without a raw control byte; an accepted one is
 * evaluated on rows of extreme values, and each status must be one of
 * the enum's, each DECIMAL output within its precision and its text
 * within WM_EXPR_DECIMAL_TEXT_MAX.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/countof.h"
#include "operators/expr.h"
#include "tests/fuzz/fuzz.h"

static const struct wm_expr_field schema[] = {
	{"auction", WM_EXPR_BIGINT, 0, 0},
	{"price", WM_EXPR_BIGINT, 0, 0},
	{"channel", WM_EXPR_STRING, 0, 0},
	{"dateTime", WM_EXPR_TIMESTAMP, 0, 0},
	{"rate", WM_EXPR_DECIMAL, 10, 2},
	{"wide", WM_EXPR_DECIMAL, 38, 38},
	{"flag", WM_EXPR_BOOLEAN, 0, 0},
};

/* Values at the ends of each type, and ordinary ones. */
static void
fill_row(struct wm_expr_value *row, unsigned k)
{
	static const int64_t ints[] = {0, 1, -1, 123, INT64_MAX, INT64_MIN};
	__int128 wide = 1;

	for (int i = 0; i < 38; i++)
		wide *= 10;
	memset(row, 0, N_ELEMS(schema) * sizeof(*row));
	row[0].i = ints[k % N_ELEMS(ints)];
	row[1].i = ints[(k + 1) % N_ELEMS(ints)];
	row[2].s.p = k & 1 ? "a\0b" : "";
	row[2].s.len = k & 1 ? 3 : 0;
	row[3].i = ints[(k + 2) % N_ELEMS(ints)];
	row[4].d = k & 1 ? -9999999999LL : 150;
	row[5].d = k & 1 ? wide - 1 : -(wide - 1);
	row[6].b = k & 1;
}

static void
check_output(const struct wm_expr_field *f, const struct wm_expr_value *v)
{
	char text[WM_EXPR_DECIMAL_TEXT_MAX + 8];
	__int128 lim = 1;

	if (f->type != WM_EXPR_DECIMAL)
		return;
	for (unsigned i = 0; i < f->precision; i++)
		lim *= 10;
	if (v->d >= lim || v->d <= -lim || f->scale > f->precision ||
	    f->precision > WM_EXPR_DECIMAL_MAX_PRECISION)
		abort();
	if (wm_expr_decimal_text(text, v->d, f->scale) - text >
	    WM_EXPR_DECIMAL_TEXT_MAX)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wm_expr_value row[N_ELEMS(schema)], out[300];
	const struct wm_expr_field *outs;
	char err[WM_EXPR_ERR_MAX];
	struct wm_expr *e;
	bool select, keep;
	size_t n;
	char *text;
	int col, rc;

	if (size < 1)
		return 0;
	select = data[0] & 1;
	text = malloc(size);
	if (text == NULL)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	rc = select ? wm_expr_compile_select(text, schema, N_ELEMS(schema), &e,
					     &col, err, sizeof(err))
		    : wm_expr_compile_where(text, schema, N_ELEMS(schema), &e,
					    &col, err, sizeof(err));
	if (rc != 0) {
		if (rc != -EINVAL || e != NULL || col < 1 ||
		    (size_t)col > strlen(text) + 1 || err[0] == '\0')
			abort();
		for (const char *p = err; *p != '\0'; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				abort();
		free(text);
		return 0;
	}
	outs = wm_expr_outputs(e, &n);
	if (select != (n > 0) || n > N_ELEMS(out))
		abort();
	for (unsigned k = 0; k < 6; k++) {
		enum wm_expr_status st;

		fill_row(row, k);
		if (select) {
			st = wm_expr_select(e, row, out);
			for (size_t i = 0; st == WM_EXPR_OK && i < n; i++)
				check_output(&outs[i], &out[i]);
		} else {
			st = wm_expr_where(e, row, &keep);
		}
		if (st > WM_EXPR_DECIMAL_OVERFLOW)
			abort();
	}
	wm_expr_free(e);
	free(text);
	return 0;
}
