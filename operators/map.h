/*
 * map.h
 *	The operator of a map stage: its `where` keeps the rows a condition
 *	holds for, its `select` makes each row kept into the row it lists, as
 *	a Calc of Flink's planner does for a query's WHERE and SELECT over
 *	one input (expr.h has the language; doc/semantics.md section 16).
 *
 * A row goes through in one call, and either comes out (kept), is
 * dropped by the where (filtered), or has no answer (failed): a BIGINT
 * overflow, a division by zero, a DECIMAL out of its type. Flink fails
 * the job on a division by zero; a map counts the row as a record error
 * by its cause instead, and the caller reports it with the stage's other
 * counts, so that every row given is counted exactly once:
 *
 *	in == out + filtered + errors[OVERFLOW] + errors[DIVISION_BY_ZERO]
 *	      + errors[DECIMAL_OVERFLOW]
 *
 * A map keeps no state between rows (so nothing for a checkpoint): the
 * counters are the stage's metrics, which a restart starts again, as
 * Flink's do.
 *
 * One map is used by one thread at a time (its counters); its compiled
 * expressions are read-only.
 */
#ifndef WM_OPERATORS_MAP_H
#define WM_OPERATORS_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "operators/expr.h"

/* The statuses a row can fail with, counted apart: enum wm_expr_status
 * values 1 .. WM_MAP_CAUSES - 1. */
#define WM_MAP_CAUSES (WM_EXPR_DECIMAL_OVERFLOW + 1)

struct wm_map_counters {
	uint64_t in;			/* rows given */
	uint64_t out;			/* rows made */
	uint64_t filtered;		/* rows the where dropped */
	uint64_t errors[WM_MAP_CAUSES]; /* by status; [WM_EXPR_OK] is 0 */
};

/* Which of the two texts a compile error is in. */
enum wm_map_part { WM_MAP_WHERE, WM_MAP_SELECT };

struct wm_map_error {
	enum wm_map_part part;
	int col; /* in that text, 1-based; 0: the schema's own fault */
	char message[WM_EXPR_ERR_MAX];
};

enum wm_map_outcome {
	WM_MAP_KEPT,
	WM_MAP_FILTERED,
	WM_MAP_FAILED,
};

struct wm_map;

/*
 * A map over rows of schema[0..n): `where` (NULL: every row is kept) and
 * `select` (NULL: a row comes out as it came in, its schema the input's).
 * 0 and *out; -EINVAL with *err filled (which text, the column, why);
 * -ENOMEM. The schema is copied, its names included.
 */
int wm_map_new(const struct wm_expr_field *schema, size_t n, const char *where,
	       const char *select, struct wm_map **out,
	       struct wm_map_error *err);

void wm_map_free(struct wm_map *m);

/* The columns of the rows that come out, in order (*n of them): the
 * select's outputs, or the input's. Valid while m is. */
const struct wm_expr_field *wm_map_outputs(const struct wm_map *m, size_t *n);

/*
 * Row `in` through the map: KEPT with out[0..outputs) filled (strings
 * pointing into `in` or into m), FILTERED, or FAILED with *why the
 * status (out then holds nothing to use). Counted in wm_map_counters().
 */
enum wm_map_outcome wm_map_row(struct wm_map *m, const struct wm_expr_value *in,
			       struct wm_expr_value *out,
			       enum wm_expr_status *why);

const struct wm_map_counters *wm_map_counters(const struct wm_map *m);

#endif /* WM_OPERATORS_MAP_H */
