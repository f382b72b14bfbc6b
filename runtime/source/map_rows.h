/*
 * map_rows.h
 *	The maps chained into a Nexmark source's subtask (doc/semantics.md
 *	section 16.6): for each record the source emits, its event made
 *	again, as a row of the source's kind, through every map reading the
 *	source, and each row a map keeps written to that map's sinks.
 *
 * Why the event is made twice. A record is a key, a timestamp and a long
 * (base/record.h), not a row: a source read by maps puts in its value the
 * event's id in the stream (nexmark.value's internal field
 * WM_NEXMARK_FIELD_EVENT_ID, which the loader gives such a source:
 * runtime/conf/map_keys.c), and
 * the event, a pure function of the generator's config and its number
 * (operators/nexmark_gen.h), is made again here with its strings, extra
 * included, which the source leaves out. The cost is one more generation
 * per event, paid in the source's own task, with no frame between
 * processes; a real run and --sim call this the same way, from the task
 * that emitted the record, so both write the same rows.
 *
 * Per record nothing is allocated: the event, the input row and each
 * map's output row are sized once here (WM_NEXMARK_ROW_MAX, the map's
 * outputs), the sinks grow their scratch only for a longer line than any
 * before (sink.h).
 *
 * Accounting: every record given to a map is in its counters
 * (operators/map.h: in == out + filtered + errors by cause), which
 * wm_map_rows_counters() reads for the subtask's metrics and the summary.
 * A sink that fails keeps its failure (sink.h); the record is counted all
 * the same and the driver stops the job, as for a recording.
 *
 * One per source subtask, used by its thread alone.
 */
#ifndef WM_RUNTIME_SOURCE_MAP_ROWS_H
#define WM_RUNTIME_SOURCE_MAP_ROWS_H

#include <stdint.h>

#include "base/record.h"
#include "operators/map.h"
#include "operators/nexmark_gen.h"
#include "runtime/io/sink.h"
#include "runtime/metrics/metrics.h"

struct wm_map_rows;

/* For the events of stream `gen` (the source's generator config, copied)
 * of kind `kind`. NULL: ENOMEM. */
struct wm_map_rows *wm_map_rows_new(const struct wm_nexmark_config *gen,
				    enum wm_nexmark_kind kind);

/*
 * One more map, compiled over `kind`'s row schema (it owns `map` from
 * here, even on failure), whose kept rows go to sinks[0..n_sinks) (the
 * list copied; the sinks are the caller's, which outlive mr). 0, or
 * -ENOMEM.
 */
int wm_map_rows_add(struct wm_map_rows *mr, struct wm_map *map,
		    struct wm_sink *const *sinks, uint32_t n_sinks);

/*
 * Record r, whose value is its event's id, through every map: 0, or the
 * negative errno of the first sink write that failed (kept by the sink;
 * the record is counted whatever happened).
 */
int wm_map_rows_record(struct wm_map_rows *mr, const struct wm_record *r);

/* From the next record on, map i's counts (in the order added) stored
 * after each record in slots[i] (the source subtask's metrics block,
 * slots[wm_topology_map_slot()]), for the observer and the summary. */
void wm_map_rows_publish(struct wm_map_rows *mr, struct wm_map_metrics *slots);

/* Map i's counts (in the order added), valid while mr is. */
const struct wm_map_counters *wm_map_rows_counters(const struct wm_map_rows *mr,
						   uint32_t i);

void wm_map_rows_free(struct wm_map_rows *mr);

#endif /* WM_RUNTIME_SOURCE_MAP_ROWS_H */
