/*
 * loader.h
 *	What the files of runtime/conf/ share while they read a topology: the
 *	loader's state, and the functions one file offers the others. Not for
 *	use outside runtime/conf/ (topology.h is the folder's interface).
 *
 * Every function taking a loader reports an error with
 * wm_ini_error_set() on l->err, naming file, line and column, and
 * returns -EINVAL (0 otherwise), unless its comment says else.
 */
#ifndef WM_RUNTIME_CONF_LOADER_H
#define WM_RUNTIME_CONF_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/countof.h"
#include "runtime/conf/ini.h"
#include "runtime/conf/key_table.h"
#include "runtime/conf/topology.h"

struct loader {
	/* The caller's name of the file: errors outlive the document. */
	const char *file;
	struct wm_ini_doc *doc;
	struct wm_ini_error *err;
	struct wm_topology *t;
	struct wm_ini_section *global;
	/* The input entry of each stage, to report unknown stage names. */
	struct wm_ini_entry **input_entry;
};

/* keys and values (schema.c) */
/* The keys a stage kind's sections take (key_table.h). */
const struct wm_key_table_section *wm_conf_keys_of(enum wm_stage_kind kind);
/* Whether some stage kind takes `key` (a key [global] may give); if
 * not, the closest key of the first stage kind (in enum order) that has
 * one close enough, or NULL. */
bool wm_conf_stage_key(const char *key);
const char *wm_conf_stage_key_suggest(const char *key);
struct wm_ini_entry *
wm_conf_lookup(struct loader *l, struct wm_ini_section *sec, const char *key);
int wm_conf_value_col_at(const struct wm_ini_entry *e, size_t off);
int wm_conf_bad_value_at(struct loader *l, const struct wm_ini_entry *e,
			 size_t off, const char *why);
int wm_conf_bad_value(struct loader *l, const struct wm_ini_entry *e,
		      const char *why);
int wm_conf_missing_key(struct loader *l, const struct wm_ini_section *sec,
			const char *key);
int wm_conf_get_duration(struct loader *l, struct wm_ini_section *sec,
			 const char *key, bool positive, int64_t *ms);
int wm_conf_get_count(struct loader *l, struct wm_ini_section *sec,
		      const char *key, uint64_t min, uint64_t max, uint64_t *v);
int wm_conf_get_u32(struct loader *l, struct wm_ini_section *sec,
		    const char *key, uint32_t min, uint32_t max, uint32_t *v);
int wm_conf_get_number(struct loader *l, struct wm_ini_section *sec,
		       const char *key, double min, double max, double *v);
int wm_conf_get_enum(struct loader *l, struct wm_ini_section *sec,
		     const char *key, const char *const *names, size_t n,
		     size_t *idx);
int wm_conf_get_bool(struct loader *l, struct wm_ini_section *sec,
		     const char *key, bool *v);
int wm_conf_get_ring_size(struct loader *l, struct wm_ini_section *sec,
			  uint32_t *cells);
int wm_conf_get_string(struct loader *l, struct wm_ini_section *sec,
		       const char *key, char **v);
int wm_conf_stage_kind(const char *kind, enum wm_stage_kind *out);

/* load shapes (shapes.c) */
int wm_conf_load_shapes(struct loader *l, struct wm_ini_section *sec,
			struct wm_source_conf *src);
bool wm_conf_is_shape_key(const char *key);

/* load the [job] alert keys (alert_rules.c) */
int wm_conf_load_alerts(struct loader *l, struct wm_ini_section *sec,
			struct wm_job_conf *job);

/* load a source's Kafka keys (kafka_keys.c): src->kafka stays NULL when
 * the section sets no kafka.topic */
int wm_conf_load_kafka(struct loader *l, struct wm_ini_section *sec,
		       struct wm_source_conf *src);
bool wm_conf_is_kafka_property(const char *key);

/* load `generator` and, for generator = nexmark, the nexmark.* keys
 * (nexmark_keys.c): src->kind becomes WM_SOURCE_NEXMARK, and its
 * out_of_orderness defaults to the benchmark's 4 s. Called before the
 * source's other keys are read. */
int wm_conf_load_nexmark(struct loader *l, struct wm_ini_section *sec,
			 struct wm_source_conf *src);
void wm_conf_free_kafka(struct wm_kafka_conf *kc);

/* A window's shape (topology.c): its kind from `type_key` (tumbling |
 * sliding | session) and size, slide, gap and offset, into *assigner, set
 * up and checked. 0 or a negative errno with l->err set. */
int wm_conf_load_assigner(struct loader *l, struct wm_ini_section *sec,
			  const char *type_key,
			  struct wm_window_assigner *assigner);
/* a map's where and select (map_keys.c): read, then, once its input
 * is resolved, compiled over its rows, the error at FILE:LINE:COL */
int wm_conf_load_map(struct loader *l, struct wm_ini_section *sec,
		     struct wm_stage *st);
int wm_conf_compile_map(struct loader *l, struct wm_ini_section **secs,
			uint32_t s);
/* a join's keys but its inputs (join_keys.c) */
int wm_conf_load_join(struct loader *l, struct wm_ini_section *sec,
		      struct wm_stage *st);
/* [job] plugin and a source's watermark = plugin:NAME (plugins.c) */
int wm_conf_load_plugin(struct loader *l, struct wm_ini_section *sec,
			struct wm_job_conf *job);
int wm_conf_load_plugin_watermark(struct loader *l, struct wm_ini_entry *e,
				  struct wm_watermark_strategy *s);
/* One item of a window's aggregates, `plugin:NAME(ARGS)` (text, at column
 * `at` of e's value), into w's plugin aggregates. */
struct wm_window_config;
int wm_conf_load_plugin_aggregate(struct loader *l, struct wm_ini_entry *e,
				  size_t at, const char *text,
				  struct wm_window_config *w);
void wm_conf_close_plugin(struct wm_job_conf *job);

/* load the [job] restart keys (restart_keys.c), after the checkpoints' */
int wm_conf_load_restart(struct loader *l, struct wm_ini_section *sec,
			 struct wm_job_conf *job);

/* whole-topology checks (checks.c) */
int wm_conf_find_cycle(struct loader *l, uint32_t s, unsigned char *colour);
int wm_conf_check_keyed(struct loader *l, struct wm_ini_section *sec,
			struct wm_stage *st);
int wm_conf_check_cpus(struct loader *l);
int wm_conf_check_unused(struct loader *l);
bool wm_conf_may_repeat(const char *kind, const char *key, void *arg);
int wm_conf_check_size(struct loader *l, struct wm_ini_section **secs);
int wm_conf_check_no_effect(struct loader *l, struct wm_ini_section *sec,
			    const struct wm_stage *st);
int wm_conf_check_outputs(struct loader *l, struct wm_ini_section **secs);
int wm_conf_check_rate(struct loader *l, struct wm_ini_section *sec,
		       const struct wm_stage *st);

/* queries (graph.c) */
bool wm_conf_same_file(const char *a, const char *b);

#endif /* WM_RUNTIME_CONF_LOADER_H */
