/*
 * subtask_watermarks.h
 *	Watermarks generated on a source subtask's output stream (Flink's
 *	TimestampsAndWatermarksOperator chained after the source), the
 *	`watermark_at = subtask` of a source.
 *
 *   records of every partition, mixed --> one generator --> emitter --> out
 *
 * What `assignTimestampsAndWatermarks()` after `fromSource(...,
 * WatermarkStrategy.noWatermarks())` gives, and the legacy Kafka consumer
 * without per-partition watermarks: the source itself generates nothing
 * (every split's generator is noWatermarks, so no split can hold anything
 * back and none goes idle), and the operator after it runs ONE generator
 * over the records of all partitions the subtask reads, in the order they
 * were emitted. Its watermark therefore follows the partition with the
 * newest event time, a sparse partition's records come late instead of
 * holding the subtask back, and withIdleness() on that generator makes the
 * subtask idle only when all its partitions are silent.
 *
 * Rules, each from the Flink method named (doc/semantics.md section 3.10):
 *   open()             first periodic emission one interval after start;
 *                      none at all with interval 0
 *   processElement()   the record goes downstream, then onEvent()
 *   onProcessingTime() onPeriodicEmit(), then the next emission one
 *                      interval after the time it ran
 *   processWatermark() the source's MAX at end of input passes through
 *                      emitWatermark(); any other upstream watermark and
 *                      every upstream status are ignored (the source
 *                      generates none)
 *   finish()           one last onPeriodicEmit() after MAX
 *   WatermarkEmitter   emitWatermark() only if above the last one sent,
 *                      and ACTIVE first if IDLE was announced; markIdle()
 *                      and markActive() only on a change: wm_data_output
 *                      with no behaviour flag is exactly that
 *
 * Idleness is judged on a clock that stops while the subtask is back-
 * pressured (Flink's inputActivityClock, a PausableRelativeClock the
 * operator registers as a back-pressure listener). Watermark alignment
 * has nothing to act on here (it pauses splits by the watermark the
 * source generates), so the configuration refuses it.
 *
 * Pure: processing time is passed in. One thread only.
 */
#ifndef WM_OPERATORS_SUBTASK_WATERMARKS_H
#define WM_OPERATORS_SUBTASK_WATERMARKS_H

#include <stdbool.h>
#include <stdint.h>

#include "operators/data_output.h"
#include "operators/output.h"
#include "operators/pausable_clock.h"
#include "operators/watermark.h"

struct wm_subtask_watermarks {
	struct wm_watermark_strategy strategy;
	struct wm_watermark_generator generator;
	struct wm_data_output emitter; /* Flink's WatermarkEmitter */
	/* What the generator writes to: forwards to `emitter`. */
	struct wm_output generator_out;
	int64_t next_tick_ns; /* next periodic emission; INT64_MAX = never */
	struct wm_pausable_clock clock; /* inputActivityClock */
	/* A record reached the generator since the last tick (true before
	 * the first): the next tick may emit something new. */
	bool input_since_tick;
};

/* Set up for `strategy`, sending to `out`. 0, or -EINVAL for an invalid
 * strategy (see wm_watermark_strategy_check()). */
int wm_subtask_watermarks_init(struct wm_subtask_watermarks *sw,
			       const struct wm_watermark_strategy *strategy,
			       struct wm_output *out);
/* What init made that lives on its own: a plugin generator's instance. */
void wm_subtask_watermarks_destroy(struct wm_subtask_watermarks *sw);

/* Stop (`paused`: back-pressured) or restart the idleness clock at
 * `now_ns`. */
void wm_subtask_watermarks_pause(struct wm_subtask_watermarks *sw, bool paused,
				 int64_t now_ns);

/* A record with event time `ts` was emitted (processElement: after the
 * record itself); punctuated watermarks go out at once. */
void wm_subtask_watermarks_on_record(struct wm_subtask_watermarks *sw,
				     wm_ts_t ts, uint32_t flags);

/* The record just taken carries the watermark `carried`
 * (wm_watermark_on_carried()). */
static inline void
wm_subtask_watermarks_on_carried(struct wm_subtask_watermarks *sw,
				 wm_ts_t carried)
{
	wm_watermark_on_carried(&sw->generator, carried, &sw->generator_out);
}

/* The periodic emission at `now_ns` (onProcessingTime's body). */
void wm_subtask_watermarks_on_periodic(struct wm_subtask_watermarks *sw,
				       int64_t now_ns);

/* Schedule as Flink's operator does: wm_subtask_watermarks_start() at
 * `now_ns` (open) puts the first emission one interval later; _poll()
 * runs it once due and schedules the next one interval after `now_ns`.
 * With interval 0 nothing is ever due. */
void wm_subtask_watermarks_start(struct wm_subtask_watermarks *sw,
				 int64_t now_ns);
bool wm_subtask_watermarks_poll(struct wm_subtask_watermarks *sw,
				int64_t now_ns);

static inline int64_t
wm_subtask_watermarks_next_tick(const struct wm_subtask_watermarks *sw)
{
	return sw->next_tick_ns;
}

/*
 * Ticks that cannot change anything, for the --sim driver (as
 * wm_source_watermarks_next_change() and _skip(), source_watermarks.h).
 * Without a record since the last tick, a tick emits the watermark it
 * emitted before (dropped by the emitter) or IDLE again (dropped too);
 * only the idleness timer can make it do something new. next_change: the
 * due time of the first such tick from the next one on, INT64_MAX if
 * none; skip: ticks due before `now_ns` that change nothing count as run.
 */
int64_t
wm_subtask_watermarks_next_change(const struct wm_subtask_watermarks *sw);
void wm_subtask_watermarks_skip(struct wm_subtask_watermarks *sw,
				int64_t now_ns);

/* End of input at `now_ns`: the source's MAX through the emitter
 * (processWatermark), then the last periodic emission (finish). Unlike a
 * source's own output, MAX is never lost to an announced IDLE: the
 * emitter announces ACTIVE before it. No emission is due afterwards. */
void wm_subtask_watermarks_end_of_input(struct wm_subtask_watermarks *sw,
					int64_t now_ns);

/* Last watermark sent (MIN before the first) and whether IDLE is
 * announced. */
static inline wm_ts_t
wm_subtask_watermarks_current(const struct wm_subtask_watermarks *sw)
{
	return sw->emitter.max_so_far;
}

static inline bool
wm_subtask_watermarks_idle(const struct wm_subtask_watermarks *sw)
{
	return sw->emitter.idle;
}

/*
 * checkpoint_watermarks: the generator, the emitter, the idleness clock
 * (as what it had taken off processing time at `now_ns`), the next tick
 * and whether a record came since the last, as a section (as
 * wm_source_watermarks_snapshot() does for partitions). Restore into one
 * made from the same strategy, and do not start it again: 0, or the
 * reader's error (-EINVAL for another strategy). Outputs nothing.
 */
struct wm_snap_writer;
struct wm_snap_reader;

void wm_subtask_watermarks_snapshot(const struct wm_subtask_watermarks *sw,
				    int64_t now_ns, struct wm_snap_writer *w);
int wm_subtask_watermarks_restore(struct wm_subtask_watermarks *sw,
				  struct wm_snap_reader *r);

#endif /* WM_OPERATORS_SUBTASK_WATERMARKS_H */
