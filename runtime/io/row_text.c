/*
 * row_text.c
 *	A row as a CSV or JSON line (row_text.h).
 */
#include "config.h"

#include <string.h>

#include "lib/csv_field.h"
#include "lib/decimal.h"
#include "lib/json_escape.h"
#include "runtime/io/row_text.h"

/* The longest text of a value other than a string: a DECIMAL's. */
#define VALUE_MAX                                                              \
	(WM_EXPR_DECIMAL_TEXT_MAX > WM_DECIMAL_MAX ? WM_EXPR_DECIMAL_TEXT_MAX  \
						   : WM_DECIMAL_MAX)

size_t
wm_row_text_max(const struct wm_expr_field *cols, size_t n,
		const struct wm_expr_value *row, bool json)
{
	size_t len = 3; /* JSON's braces, and the newline */

	for (size_t i = 0; i < n; i++) {
		size_t name = strlen(cols[i].name);

		/* A separator; in JSON the name quoted and a colon. */
		len += 1 + (json ? WM_JSON_ESCAPE_MAX(name) + 3 : 0);
		if (row == NULL)
			len += WM_CSV_FIELD_MAX(name);
		else if (cols[i].type != WM_EXPR_STRING)
			len += VALUE_MAX;
		else if (json)
			len += WM_JSON_ESCAPE_MAX(row[i].s.len) + 2;
		else
			len += WM_CSV_FIELD_MAX(row[i].s.len);
	}
	return len;
}

char *
wm_row_csv_header(char *p, const struct wm_expr_field *cols, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			*p++ = ',';
		p = wm_csv_field(p, cols[i].name, strlen(cols[i].name));
	}
	*p++ = '\n';
	return p;
}

/* A value other than a string. */
static char *
scalar(char *p, const struct wm_expr_field *col, const struct wm_expr_value *v)
{
	switch (col->type) {
	case WM_EXPR_BIGINT:
	case WM_EXPR_TIMESTAMP:
		return wm_decimal_i64(p, v->i);
	case WM_EXPR_DECIMAL:
		return wm_expr_decimal_text(p, v->d, col->scale);
	case WM_EXPR_BOOLEAN:
		memcpy(p, v->b ? "true" : "false", v->b ? 4 : 5);
		return p + (v->b ? 4 : 5);
	case WM_EXPR_STRING:
		break;
	}
	return p;
}

char *
wm_row_csv(char *p, const struct wm_expr_field *cols, size_t n,
	   const struct wm_expr_value *row)
{
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			*p++ = ',';
		if (cols[i].type == WM_EXPR_STRING)
			p = wm_csv_field(p, row[i].s.p, row[i].s.len);
		else
			p = scalar(p, &cols[i], &row[i]);
	}
	*p++ = '\n';
	return p;
}

char *
wm_row_json(char *p, const struct wm_expr_field *cols, size_t n,
	    const struct wm_expr_value *row)
{
	*p++ = '{';
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			*p++ = ',';
		*p++ = '"';
		p = wm_json_escape(p, cols[i].name, strlen(cols[i].name));
		*p++ = '"';
		*p++ = ':';
		if (cols[i].type == WM_EXPR_STRING) {
			*p++ = '"';
			p = wm_json_escape(p, row[i].s.p, row[i].s.len);
			*p++ = '"';
		} else {
			p = scalar(p, &cols[i], &row[i]);
		}
	}
	*p++ = '}';
	*p++ = '\n';
	return p;
}
