/*
 * map_rows.c
 *	A Nexmark source subtask's maps, run on each record it emits
 *	(map_rows.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "operators/nexmark_row.h"
#include "runtime/source/map_rows.h"

/* One map, its output row (its outputs' count of values) and its sinks. */
struct chained_map {
	struct wm_map *map;
	struct wm_expr_value *out;
	struct wm_sink **sinks; /* a copy of the caller's list */
	uint32_t n_sinks;
};

struct wm_map_rows {
	struct wm_nexmark_config gen;
	enum wm_nexmark_kind kind;
	struct wm_nexmark_event event; /* made again per record */
	struct wm_expr_value row[WM_NEXMARK_ROW_MAX];
	uint32_t n_maps;
	struct chained_map *maps;
	struct wm_map_metrics *published; /* NULL: none */
};

_Static_assert(WM_METRICS_MAP_CAUSES == WM_MAP_CAUSES,
	       "a map's metrics hold each of its causes");

/* Map i's counts to its slot, whole values (metrics.h: single writer). */
static void
publish(struct wm_map_metrics *to, const struct wm_map_counters *c)
{
	WM_METRIC_SET(to->in, c->in);
	WM_METRIC_SET(to->out, c->out);
	WM_METRIC_SET(to->filtered, c->filtered);
	for (uint32_t k = 1; k < WM_MAP_CAUSES; k++)
		WM_METRIC_SET(to->errors[k], c->errors[k]);
}

void
wm_map_rows_publish(struct wm_map_rows *mr, struct wm_map_metrics *slots)
{
	mr->published = slots;
}

struct wm_map_rows *
wm_map_rows_new(const struct wm_nexmark_config *gen, enum wm_nexmark_kind kind)
{
	struct wm_map_rows *mr = calloc(1, sizeof(*mr));

	if (mr == NULL)
		return NULL;
	mr->gen = *gen;
	mr->kind = kind;
	return mr;
}

int
wm_map_rows_add(struct wm_map_rows *mr, struct wm_map *map,
		struct wm_sink *const *sinks, uint32_t n_sinks)
{
	struct chained_map *maps;
	size_t n_out;

	wm_map_outputs(map, &n_out);
	maps = realloc(mr->maps, (mr->n_maps + 1) * sizeof(*maps));
	if (maps == NULL) {
		wm_map_free(map);
		return -ENOMEM;
	}
	mr->maps = maps;
	maps[mr->n_maps] = (struct chained_map){
		.map = map,
		.out = calloc(n_out ? n_out : 1, sizeof(struct wm_expr_value)),
		.sinks = calloc(n_sinks ? n_sinks : 1, sizeof(*sinks)),
		.n_sinks = n_sinks,
	};
	if (maps[mr->n_maps].out == NULL || maps[mr->n_maps].sinks == NULL) {
		wm_map_free(map);
		free(maps[mr->n_maps].out);
		free(maps[mr->n_maps].sinks);
		return -ENOMEM;
	}
	for (uint32_t k = 0; k < n_sinks; k++)
		maps[mr->n_maps].sinks[k] = sinks[k];
	mr->n_maps++;
	return 0;
}

int
wm_map_rows_record(struct wm_map_rows *mr, const struct wm_record *r)
{
	/* The value is the event's id (map_rows.h); the source emitted the
	 * event, so its number is in the stream. */
	uint64_t n = (uint64_t)r->value - mr->gen.first_event_id;
	int failed = 0;

	wm_nexmark_gen_event(&mr->gen, n, &mr->event);
	wm_nexmark_row(&mr->event, mr->row);
	for (uint32_t i = 0; i < mr->n_maps; i++) {
		struct chained_map *m = &mr->maps[i];
		enum wm_expr_status why;
		const struct wm_expr_field *cols;
		size_t n_cols;

		enum wm_map_outcome got =
			wm_map_row(m->map, mr->row, m->out, &why);

		if (mr->published != NULL)
			publish(&mr->published[i], wm_map_counters(m->map));
		if (got != WM_MAP_KEPT)
			continue; /* counted by the map */
		cols = wm_map_outputs(m->map, &n_cols);
		for (uint32_t k = 0; k < m->n_sinks; k++) {
			int e = wm_sink_row(m->sinks[k], cols, n_cols, m->out);

			if (e != 0 && failed == 0)
				failed = e;
		}
	}
	return failed;
}

const struct wm_map_counters *
wm_map_rows_counters(const struct wm_map_rows *mr, uint32_t i)
{
	return wm_map_counters(mr->maps[i].map);
}

void
wm_map_rows_free(struct wm_map_rows *mr)
{
	if (mr == NULL)
		return;
	for (uint32_t i = 0; i < mr->n_maps; i++) {
		wm_map_free(mr->maps[i].map);
		free(mr->maps[i].out);
		free(mr->maps[i].sinks);
	}
	free(mr->maps);
	free(mr);
}
