/*
 * record_tap.h
 *	A record source wrapped so that something outside the task sees
 *	every record it returns, in the task's own thread: a recording
 *	(record_trace.h) writes each to a trace, a source's maps (map_rows.h)
 *	make each into their rows. The wrapper returns what the source
 *	returns, the same partitions in the same order; pause, snapshot,
 *	wake and health go to the source, and are absent where it has none.
 */
#ifndef WM_RUNTIME_SOURCE_RECORD_TAP_H
#define WM_RUNTIME_SOURCE_RECORD_TAP_H

#include <stdint.h>

#include "base/record.h"
#include "operators/record_source.h"

/* Called with each record `inner` returns, before the task has it, at
 * processing time now_ns. */
typedef void (*wm_record_tap_fn)(void *arg,
				 const struct wm_record_source *inner,
				 const struct wm_record *r, int64_t now_ns);

/*
 * `inner` tapped by fn(arg, ...). It owns `inner`, and `arg` when
 * free_arg is not NULL (both freed with it, or here on failure). NULL
 * with errno ENOMEM.
 */
struct wm_record_source *wm_record_tap(struct wm_record_source *inner,
				       wm_record_tap_fn fn, void *arg,
				       void (*free_arg)(void *arg));

#endif /* WM_RUNTIME_SOURCE_RECORD_TAP_H */
