/*
 * window_plugins.h
 *	The accumulators of a window operator's plugin aggregates
 *	(wmrun/plugin.h): one per aggregate for each (key, window) with
 *	contents, beside the window's own count, sum, min and max.
 *
 * A window's state entry fills a cache line with the built-in aggregate
 * (operators/window.c), so a plugin's accumulators live in a table of
 * their own, keyed as the state entries are, by (key, window start), and
 * found by the hash the state entry stores. The window operator keeps
 * the two in step: an accumulator set exists exactly while its state
 * entry does. Only a window with plugin aggregates has this table, so
 * the others pay one test of a pointer where a record is added.
 *
 * Pure: no I/O; it calls the plugin's functions, which may do what they
 * like. Used by one thread only.
 */
#ifndef WM_OPERATORS_WINDOW_PLUGINS_H
#define WM_OPERATORS_WINDOW_PLUGINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/time.h"
#include "wmrun/plugin.h"

/* Plugin aggregates a window may have. */
#define WM_WINDOW_PLUGIN_AGGREGATES 4

/* One aggregate of a window's configuration: the plugin's function and
 * the text it is made with (not copied; kept by the configuration's
 * owner while the operator lives). */
struct wm_window_plugin_aggregate {
	const struct wmrun_aggregate_function *fn;
	const char *args;
};

struct wm_window_plugins;
struct wm_snap_writer;
struct wm_snap_reader;

/*
 * The accumulator table for aggs[0..n) (1 <= n <=
 * WM_WINDOW_PLUGIN_AGGREGATES), each function made with its args. NULL
 * with errno EINVAL and *why set (static text) if a function refuses its
 * args, or with errno ENOMEM.
 */
struct wm_window_plugins *
wm_window_plugins_new(const struct wm_window_plugin_aggregate *aggs, unsigned n,
		      const char **why);
void wm_window_plugins_free(struct wm_window_plugins *p);

/* Room for `n` more accumulator sets: 0 or -ENOMEM. */
int wm_window_plugins_reserve(struct wm_window_plugins *p, size_t n);

/*
 * The record (value, ts) into (key, start)'s accumulators (hash is the
 * window's state hash), made first if the window has none: 0, or
 * -ENOMEM (no room, or a plugin made no accumulator) with nothing
 * changed.
 */
int wm_window_plugins_add(struct wm_window_plugins *p, uint64_t hash,
			  int64_t key, wm_ts_t start, int64_t value,
			  wm_ts_t ts);

/* The results of (key, start)'s accumulators into out[0..n), which
 * must exist. */
void wm_window_plugins_results(struct wm_window_plugins *p, uint64_t hash,
			       int64_t key, wm_ts_t start,
			       union wmrun_value *out);

/* Destroy (key, start)'s accumulators, if any. */
void wm_window_plugins_remove(struct wm_window_plugins *p, uint64_t hash,
			      int64_t key, wm_ts_t start);

/*
 * Sessions: fold the accumulators of (key, from) into those of (key, to)
 * (the hashes are the windows' state hashes), moved there if `to` has
 * none (room reserved). Nothing if `from` has none.
 */
void wm_window_plugins_merge(struct wm_window_plugins *p, int64_t key,
			     wm_ts_t to, uint64_t to_hash, wm_ts_t from,
			     uint64_t from_hash);

/* Whether (key, start) has accumulators. */
bool wm_window_plugins_has(const struct wm_window_plugins *p, uint64_t hash,
			   int64_t key, wm_ts_t start);

/* Accumulator sets held: the window's state entries, when in step. */
size_t wm_window_plugins_count(const struct wm_window_plugins *p);

/*
 * A section of the aggregates' names and args (so that a restore can
 * refuse others) and every accumulator set, each accumulator as the
 * bytes its plugin's snapshot() gives. Errors are the writer's.
 */
void wm_window_plugins_snapshot(const struct wm_window_plugins *p,
				struct wm_snap_writer *w);

/*
 * That section into `p`, which must be empty; `hash(key, start)` gives a
 * window's state hash. 0 or the reader's error:
 * -EINVAL for other aggregates, -EBADMSG for bytes a plugin cannot
 * restore or a set twice, -ENOMEM.
 */
int wm_window_plugins_restore(struct wm_window_plugins *p,
			      struct wm_snap_reader *r,
			      uint64_t (*hash)(int64_t key, wm_ts_t start));

#endif /* WM_OPERATORS_WINDOW_PLUGINS_H */
