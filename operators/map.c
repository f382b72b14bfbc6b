/*
 * map.c
 *	A map stage's where and select over one row (map.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/map.h"

struct wm_map {
	struct wm_expr *where; /* NULL: every row is kept */
	struct wm_expr *select;
	struct wm_map_counters counters;
};

/*
 * The select that gives a row back as it is: every column of the schema
 * by name, each backquoted (a backquote in a name doubled), so that the
 * outputs keep the input's names and types and there is one way a row
 * comes out. NULL if memory is short.
 */
static char *
identity_select(const struct wm_expr_field *schema, size_t n)
{
	size_t len = 1;
	char *text, *p;

	for (size_t i = 0; i < n; i++)
		len += 2 * strlen(schema[i].name) + 4; /* `..`, and ", " */
	if ((text = malloc(len)) == NULL)
		return NULL;
	p = text;
	for (size_t i = 0; i < n; i++) {
		if (i > 0) {
			*p++ = ',';
			*p++ = ' ';
		}
		*p++ = '`';
		for (const char *c = schema[i].name; *c != '\0'; c++) {
			if (*c == '`')
				*p++ = '`';
			*p++ = *c;
		}
		*p++ = '`';
	}
	*p = '\0';
	return text;
}

int
wm_map_new(const struct wm_expr_field *schema, size_t n, const char *where,
	   const char *select, struct wm_map **out, struct wm_map_error *err)
{
	struct wm_map *m = calloc(1, sizeof(*m));
	char *all = NULL;
	int r;

	*out = NULL;
	if (m == NULL)
		return -ENOMEM;
	err->part = WM_MAP_WHERE;
	if (where != NULL && (r = wm_expr_compile_where(
				      where, schema, n, &m->where, &err->col,
				      err->message, sizeof(err->message))) != 0)
		goto fail;
	err->part = WM_MAP_SELECT;
	if (select == NULL &&
	    (select = all = identity_select(schema, n)) == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	r = wm_expr_compile_select(select, schema, n, &m->select, &err->col,
				   err->message, sizeof(err->message));
	free(all);
	if (r != 0)
		goto fail;
	*out = m;
	return 0;
fail:
	wm_map_free(m);
	return r;
}

void
wm_map_free(struct wm_map *m)
{
	if (m == NULL)
		return;
	wm_expr_free(m->where);
	wm_expr_free(m->select);
	free(m);
}

const struct wm_expr_field *
wm_map_outputs(const struct wm_map *m, size_t *n)
{
	return wm_expr_outputs(m->select, n);
}

enum wm_map_outcome
wm_map_row(struct wm_map *m, const struct wm_expr_value *in,
	   struct wm_expr_value *out, enum wm_expr_status *why)
{
	enum wm_expr_status st = WM_EXPR_OK;
	bool keep = true;

	m->counters.in++;
	if (m->where != NULL &&
	    (st = wm_expr_where(m->where, in, &keep)) != WM_EXPR_OK)
		goto failed;
	if (!keep) {
		m->counters.filtered++;
		return WM_MAP_FILTERED;
	}
	if ((st = wm_expr_select(m->select, in, out)) != WM_EXPR_OK)
		goto failed;
	m->counters.out++;
	return WM_MAP_KEPT;
failed:
	m->counters.errors[st]++;
	*why = st;
	return WM_MAP_FAILED;
}

const struct wm_map_counters *
wm_map_counters(const struct wm_map *m)
{
	return &m->counters;
}
