/*
 * source_watermarking.h
 *	A source subtask's watermarks, wherever the source's `watermark_at`
 *	puts them: one interface over the two ways Flink generates them.
 *
 *   split    Flink's source with per-split watermarks (fromSource(source,
 *            strategy)): every partition its own generator and idleness,
 *            merged by the multiplexer (source_watermarks.h)
 *   subtask  Flink's TimestampsAndWatermarksOperator chained after a
 *            source that generates none: one generator over the records
 *            of every partition (subtask_watermarks.h)
 *
 * The runtime's source task speaks to this interface only and never asks
 * which way it runs. Where the two differ in what a caller sees, the
 * difference is stated here as a rule of the interface:
 *   - a partition has a handle of its own (struct wm_source_split, its
 *     generator and multiplexer slot) only per split; per subtask
 *     wm_source_watermarking_add_partition() gives NULL, the partition's
 *     records feed the subtask's generator, and no partition slot holds
 *     the watermark back;
 *   - a tick's output is attributed (wm_source_watermarking_tick_cause())
 *     to the partition at the multiplexer's minimum per split, to the
 *     partition of the latest record per subtask.
 *
 * Why one struct with the way in a field, and a switch inside each call,
 * rather than a table of function pointers: the record path
 * (wm_source_watermarking_on_record(), once per record) stays a direct
 * call behind a branch that always goes the same way in a subtask, as the
 * task's own test of the mode was, and inlines; a table would cost an
 * indirect call per record. The ways are two and fixed by the
 * configuration: there is nothing to plug in. The calls made at every
 * tick are inline too, so that the interface adds no call to the
 * module's own (measured: doc/performance.md section 9.22).
 *
 * Pure: processing time is passed in. One thread only.
 */
#ifndef WM_OPERATORS_SOURCE_WATERMARKING_H
#define WM_OPERATORS_SOURCE_WATERMARKING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "operators/combine.h"
#include "operators/output.h"
#include "operators/source_watermarks.h"
#include "operators/subtask_watermarks.h"
#include "operators/watermark.h"

/* Where a source's watermarks are generated (`watermark_at`). */
enum wm_watermark_at {
	WM_WATERMARK_AT_SPLIT,	 /* per partition, merged */
	WM_WATERMARK_AT_SUBTASK, /* one generator after the source */
};

struct wm_source_watermarking {
	enum wm_watermark_at at; /* set by init, never changed */
	union {
		struct wm_source_watermarks split;
		struct wm_subtask_watermarks subtask;
	} u;
};

/* Set up for `strategy` generated `at`, sending to `out`. 0, or -EINVAL
 * for an invalid strategy (see wm_watermark_strategy_check()). */
int wm_source_watermarking_init(struct wm_source_watermarking *sw,
				enum wm_watermark_at at,
				const struct wm_watermark_strategy *strategy,
				struct wm_output *out);
/* After a successful init only. */
void wm_source_watermarking_destroy(struct wm_source_watermarking *sw);

/* A partition was assigned (Flink: a split). 0 with *split its handle, or
 * NULL when its records feed the subtask's one generator; -EEXIST (id
 * already assigned) or -ENOMEM. O(1) amortised. */
int wm_source_watermarking_add_partition(struct wm_source_watermarking *sw,
					 uint64_t id,
					 struct wm_source_split **split);

/* The partition finished: its slot, if it had one, is released without
 * recomputation (source_watermarks.h). O(1) expected. */
void wm_source_watermarking_remove_partition(struct wm_source_watermarking *sw,
					     uint64_t id);

/* Stop (`paused`: the subtask cannot read) or restart the subtask's
 * idleness clock at `now_ns`. */
void wm_source_watermarking_pause(struct wm_source_watermarking *sw,
				  bool paused, int64_t now_ns);

/* The same for the clock of one partition with a handle (alignment paused
 * it). */
void wm_source_watermarking_pause_partition(struct wm_source_watermarking *sw,
					    struct wm_source_split *split,
					    bool paused, int64_t now_ns);

/* A record with event time `ts` was emitted, of the partition whose
 * handle is `split` (what add_partition gave, NULL included). */
static inline void
wm_source_watermarking_on_record(struct wm_source_watermarking *sw,
				 struct wm_source_split *split, wm_ts_t ts,
				 uint32_t flags)
{
	if (sw->at == WM_WATERMARK_AT_SPLIT)
		wm_source_split_on_record(split, ts, flags);
	else
		wm_subtask_watermarks_on_record(&sw->u.subtask, ts, flags);
}

/* The record just taken (wm_source_watermarking_on_record()) carries the
 * watermark `carried` (WM_RECORD_WATERMARK): a punctuated generator
 * emits it at once. */
static inline void
wm_source_watermarking_on_carried(struct wm_source_watermarking *sw,
				  struct wm_source_split *split,
				  wm_ts_t carried)
{
	if (sw->at == WM_WATERMARK_AT_SPLIT)
		wm_source_split_on_carried(split, carried);
	else
		wm_subtask_watermarks_on_carried(&sw->u.subtask, carried);
}

/* How many partitions have a handle now: per split those assigned and not
 * finished, per subtask none. */
static inline size_t
wm_source_watermarking_handles(const struct wm_source_watermarking *sw)
{
	return sw->at == WM_WATERMARK_AT_SPLIT ? sw->u.split.mux.n_splits : 0;
}

/* Whether the slot of partition `split` (a handle) is among those the
 * subtask's watermark is the minimum of: not idle, not joining behind it
 * (combine.h). */
static inline bool
wm_source_watermarking_counts(const struct wm_source_watermarking *sw,
			      const struct wm_source_split *split)
{
	return sw->at == WM_WATERMARK_AT_SPLIT && split != NULL &&
	       wm_partial_counts(&split->slot.partial,
				 sw->u.split.mux.combined.watermark);
}

/*
 * The partition a tick's output is attributed to. `holder` is the
 * partition (or the caller's "none") whose slot holds the multiplexer's
 * minimum, as the caller finds it (its own order of partitions breaks
 * ties: wm_source_watermarking_counts()); `current` is the attribution at
 * hand. Per split the holder, given before the tick, and "none" (`holder`)
 * once it ran; per subtask `current` unchanged, before and after: the one
 * generator follows every partition and no slot holds it back, so the
 * partition of the latest record stays the cause.
 */
static inline uint32_t
wm_source_watermarking_tick_cause(const struct wm_source_watermarking *sw,
				  uint32_t holder, uint32_t current)
{
	return sw->at == WM_WATERMARK_AT_SPLIT ? holder : current;
}

/* The periodic schedule (source_watermarks.h, subtask_watermarks.h):
 * start at `now_ns` puts the first tick one interval later, poll runs it
 * once due (true if it ran) and schedules the next, next_tick says when
 * (INT64_MAX: never). */
static inline void
wm_source_watermarking_start(struct wm_source_watermarking *sw, int64_t now_ns)
{
	if (sw->at == WM_WATERMARK_AT_SPLIT)
		wm_source_watermarks_start(&sw->u.split, now_ns);
	else
		wm_subtask_watermarks_start(&sw->u.subtask, now_ns);
}

static inline bool
wm_source_watermarking_poll(struct wm_source_watermarking *sw, int64_t now_ns)
{
	return sw->at == WM_WATERMARK_AT_SPLIT
		       ? wm_source_watermarks_poll(&sw->u.split, now_ns)
		       : wm_subtask_watermarks_poll(&sw->u.subtask, now_ns);
}

static inline int64_t
wm_source_watermarking_next_tick(const struct wm_source_watermarking *sw)
{
	return sw->at == WM_WATERMARK_AT_SPLIT
		       ? wm_source_watermarks_next_tick(&sw->u.split)
		       : wm_subtask_watermarks_next_tick(&sw->u.subtask);
}

/* Ticks that cannot change anything, for the --sim driver: the due time
 * of the first tick from the next one on that can (INT64_MAX: none), and
 * the ticks due before `now_ns` counted as run if none of them can
 * (wm_source_watermarks_next_change() and _skip()). */
static inline int64_t
wm_source_watermarking_next_change(const struct wm_source_watermarking *sw)
{
	return sw->at == WM_WATERMARK_AT_SPLIT
		       ? wm_source_watermarks_next_change(&sw->u.split)
		       : wm_subtask_watermarks_next_change(&sw->u.subtask);
}

static inline void
wm_source_watermarking_skip(struct wm_source_watermarking *sw, int64_t now_ns)
{
	if (sw->at == WM_WATERMARK_AT_SPLIT)
		wm_source_watermarks_skip(&sw->u.split, now_ns);
	else
		wm_subtask_watermarks_skip(&sw->u.subtask, now_ns);
}

/* End of input at `now_ns`: the final MAX watermark, as each way sends it
 * (per split lost if IDLE is announced in released Flink, per subtask
 * never, then one last emission). No tick is due afterwards per subtask. */
void wm_source_watermarking_end_of_input(struct wm_source_watermarking *sw,
					 int64_t now_ns);

/* Last watermark sent (MIN before the first) and whether IDLE is
 * announced; what watermark alignment reports. */
static inline wm_ts_t
wm_source_watermarking_current(const struct wm_source_watermarking *sw)
{
	return sw->at == WM_WATERMARK_AT_SPLIT
		       ? wm_source_watermarks_current(&sw->u.split)
		       : wm_subtask_watermarks_current(&sw->u.subtask);
}

static inline bool
wm_source_watermarking_idle(const struct wm_source_watermarking *sw)
{
	return sw->at == WM_WATERMARK_AT_SPLIT
		       ? wm_source_watermarks_idle(&sw->u.split)
		       : wm_subtask_watermarks_idle(&sw->u.subtask);
}

/* checkpoint_watermarks: the state of the way it runs, as that way's
 * section (wm_source_watermarks_snapshot(), wm_subtask_watermarks_
 * snapshot()); restore into one made the same way from the same strategy
 * with the same partitions, and do not start it again. 0, or the
 * reader's error. Outputs nothing. */
struct wm_snap_writer;
struct wm_snap_reader;

void wm_source_watermarking_snapshot(const struct wm_source_watermarking *sw,
				     int64_t now_ns, struct wm_snap_writer *w);
int wm_source_watermarking_restore(struct wm_source_watermarking *sw,
				   struct wm_snap_reader *r);

#endif /* WM_OPERATORS_SOURCE_WATERMARKING_H */
