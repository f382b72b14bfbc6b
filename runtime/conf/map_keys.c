/*
 * map_keys.c
 *	The keys of a map stage (operators/map.h), e.g.
 *
 *	    [map q2]
 *	    input = bids               # a source with generator = nexmark
 *	    where = auction % 123 == 0
 *	    select = auction, price
 *
 * The texts are kept as given and compiled here once, over the row schema
 * of the input's nexmark.kind (operators/nexmark_row.h), so that a bad
 * one is refused at load time at its FILE:LINE:COL with the expression
 * language's own message, and a driver compiling them again for each
 * subtask can fail for memory only. Which stages a map may read and be
 * read by, and its parallelism, are topology.c's (check_input(),
 * chained_parallelism()).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/map.h"
#include "operators/nexmark_row.h"
#include "runtime/conf/loader.h"

int
wm_conf_load_map(struct loader *l, struct wm_ini_section *sec,
		 struct wm_stage *st)
{
	int r;

	if ((r = wm_conf_get_string(l, sec, "where", &st->u.map.where)) != 0 ||
	    (r = wm_conf_get_string(l, sec, "select", &st->u.map.select)) != 0)
		return r;
	return 0;
}

/*
 * The file column of column `col` (1-based, in characters, as expr.h
 * counts them) of e's value: the value's column, past its opening quote
 * if quoted. 0 (the schema's fault, not the text's) is the value's own
 * column. A quoted value with escapes is counted as unescaped, so the
 * column may fall a little left of the character then; the message
 * quotes the text it is about.
 */
static int
file_col(const struct wm_ini_entry *e, int col)
{
	if (col <= 0)
		return e->value_col;
	return e->value_col + (e->quoted ? 1 : 0) + col - 1;
}

/*
 * A source read by maps carries in each record's value its event's id,
 * from which the map's task makes the event again (runtime/source/
 * map_rows.h): its nexmark.value is that internal field, and one the
 * file gives would have no effect, so it is refused (at the map, which
 * is what makes it so, naming the key's line).
 */
static int
carry_event_ids(struct loader *l, struct wm_ini_section *source_sec,
		struct wm_stage *up, const struct wm_ini_entry *input)
{
	const struct wm_ini_entry *v =
		wm_conf_lookup(l, source_sec, "nexmark.value");
	char why[300];

	if (v != NULL) {
		snprintf(why, sizeof(why),
			 "source \"%s\" has nexmark.value (line %d), which a "
			 "source read by a map cannot use: its records carry "
			 "the events' ids, for the map to make their rows",
			 up->name, v->line);
		return wm_conf_bad_value(l, input, why);
	}
	up->u.source.nexmark.value = WM_NEXMARK_FIELD_EVENT_ID;
	return 0;
}

int
wm_conf_compile_map(struct loader *l, struct wm_ini_section **secs, uint32_t s)
{
	const struct wm_stage *st = &l->t->stages[s];
	struct wm_stage *up = &l->t->stages[st->inputs[0].stage];
	struct wm_ini_section *sec = secs[s];
	const struct wm_expr_field *schema;
	struct wm_map_error err = {.col = 0};
	const struct wm_ini_entry *e;
	struct wm_map *m = NULL;
	char label[WM_INI_QUOTE_MAX];
	size_t n;
	int r;

	/* A map's rows go straight to its sinks from every source subtask,
	 * with no parts to commit per checkpoint as a window's results
	 * have: a restore would write again what the crash cut off. */
	if (l->t->job.checkpoint_interval_ms != INT64_MAX) {
		wm_ini_error_set(l->err, l->file, sec->line, sec->col,
				 "map \"%s\": a map's sink is not exactly-once "
				 "yet, and [job] checkpoint_interval turns "
				 "checkpoints on (doc/semantics.md 16.6)",
				 st->name);
		return -EINVAL;
	}
	/* check_input() let in a Nexmark source alone. */
	schema = wm_nexmark_row_schema(up->u.source.nexmark.kind, &n);
	r = wm_map_new(schema, n, st->u.map.where, st->u.map.select, &m, &err);
	wm_map_free(m);
	if (r == 0)
		return carry_event_ids(l, secs[st->inputs[0].stage], up,
				       l->input_entry[s]);
	if (r != -EINVAL)
		return r;
	e = wm_conf_lookup(l, sec,
			   err.part == WM_MAP_WHERE ? "where" : "select");
	wm_ini_error_at(l->err, l->file, e, file_col(e, err.col),
			"invalid value for \"%s\" in %s: %s", e->key,
			wm_ini_section_label(label, sizeof(label), e->section),
			err.message);
	return -EINVAL;
}
