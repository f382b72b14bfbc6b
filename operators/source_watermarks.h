/*
 * source_watermarks.h
 *	Watermarks and idleness of one source subtask (Flink's
 *	ProgressiveTimestampsAndWatermarks in streaming mode).
 *
 *   partition generators --(immediate/deferred)--> multiplexer --\
 *                                                                 gate --> data output --> out
 *   main-output generator -------------------------------------- /
 *
 * Every partition (Flink: split) assigned to the subtask has its own
 * generator and multiplexer slot. The subtask also owns a main output with
 * one more generator, for records emitted without a partition; it runs on
 * every tick and has its own idleness countdown even if it never sees a
 * record. The gate (Flink's IdlenessManager) forwards watermarks from either
 * side and reports IDLE only when both sides are idle; both start idle, so a
 * silent main generator cannot hold a busy subtask idle and a subtask whose
 * partitions never advanced goes idle with the main side. The data output
 * makes the result strictly increasing and deduplicated (data_output.h).
 *
 * Idleness is judged on pausable clocks (pausable_clock.h): the subtask's
 * stops while the runtime says the subtask cannot read (back-pressure, or
 * waiting for watermark alignment), a partition's also while alignment
 * pauses that partition. Unpaused, both read the processing time given.
 *
 * Pure: processing time is passed to wm_source_watermarks_on_periodic().
 * One thread only.
 */
#ifndef WM_OPERATORS_SOURCE_WATERMARKS_H
#define WM_OPERATORS_SOURCE_WATERMARKS_H

#include <stdbool.h>
#include <stdint.h>

#include "operators/data_output.h"
#include "operators/output.h"
#include "operators/multiplexer.h"
#include "operators/pausable_clock.h"
#include "operators/watermark.h"

/* One assigned partition; address stable while registered. */
struct wm_source_split {
	uint64_t id;
	struct wm_watermark_generator generator;
	struct wm_mux_split slot;
	struct wm_pausable_clock clock; /* on the subtask's clock */
};

/* A slot of the index from partition id to partition; NULL: empty. */
struct wm_source_split_slot {
	struct wm_source_split *split;
};

#define WM_HT_PREFIX wm_source_split_index
#define WM_HT_ENTRY struct wm_source_split_slot
#define WM_HT_DECLARE
#include "lib/hash_table.h"

/* One side of the gate (Flink's IdlenessAwareWatermarkOutput). */
struct wm_gate_side {
	struct wm_output output;
	struct wm_source_watermarks *owner;
	bool idle; /* true at start */
};

struct wm_source_watermarks {
	struct wm_watermark_strategy strategy;
	struct wm_data_output data;
	struct wm_gate_side split_side; /* the multiplexer's output */
	struct wm_gate_side main_side;	/* the main generator's output */
	struct wm_multiplexer mux;
	struct wm_watermark_generator main_generator;
	/* The partitions are the multiplexer's splits (wm_multiplexer_split());
	 * this hash table finds them by id (source_watermarks.c). */
	struct wm_source_split_index index;
	int64_t next_tick_ns; /* next periodic emission; INT64_MAX = never */
	struct wm_pausable_clock clock; /* the subtask's idleness clock */
	/* Something reached the generators or the multiplexer since the last
	 * tick (a record, a partition added or removed; true before the
	 * first tick): the next tick may pass it on. Cleared by the tick. */
	bool input_since_tick;
};

/* Set up for `strategy`, sending to `out`. 0, or -EINVAL for an invalid
 * strategy (see wm_watermark_strategy_check()). */
int wm_source_watermarks_init(struct wm_source_watermarks *sw,
			      const struct wm_watermark_strategy *strategy,
			      struct wm_output *out);
void wm_source_watermarks_destroy(struct wm_source_watermarks *sw);

/* Stop (`paused`) or restart the subtask's idleness clock at `now_ns`:
 * while it cannot read, no partition and not the main output go idle. */
void wm_source_watermarks_pause(struct wm_source_watermarks *sw, bool paused,
				int64_t now_ns);

/* The same for one partition's clock (watermark alignment paused it). */
void wm_source_split_pause(struct wm_source_watermarks *sw,
			   struct wm_source_split *split, bool paused,
			   int64_t now_ns);

/* A partition was assigned: fresh generator, slot at MIN. Returns it, or
 * NULL with errno EEXIST (id already assigned) or ENOMEM. O(1) amortised. */
struct wm_source_split *
wm_source_watermarks_add_split(struct wm_source_watermarks *sw, uint64_t id);

/* The partition finished; its slot is forgotten without recomputation.
 * 0 or -ENOENT. O(1) expected. */
int wm_source_watermarks_remove_split(struct wm_source_watermarks *sw,
				      uint64_t id);

/* The registered partition `id`, or NULL. O(1) expected. */
struct wm_source_split *
wm_source_watermarks_split(struct wm_source_watermarks *sw, uint64_t id);

/* A record of `split` with event time `ts` was emitted. */
static inline void
wm_source_split_on_record(struct wm_source_split *split, wm_ts_t ts,
			  uint32_t flags)
{
	/* The multiplexer is embedded in its wm_source_watermarks. */
	wm_container_of(split->slot.mux, struct wm_source_watermarks, mux)
		->input_since_tick = true;
	wm_watermark_on_event(&split->generator, ts, flags,
			      &split->slot.immediate);
}

/* The record just taken by wm_source_split_on_record() carries the
 * watermark `carried` (wm_watermark_on_carried()). */
static inline void
wm_source_split_on_carried(struct wm_source_split *split, wm_ts_t carried)
{
	wm_watermark_on_carried(&split->generator, carried,
				&split->slot.immediate);
}

/* A record was emitted through the main output (no partition). */
void wm_source_watermarks_on_main_record(struct wm_source_watermarks *sw,
					 wm_ts_t ts, uint32_t flags);

/* Periodic tick at `now_ns`: every partition generator, one combine, then
 * the main generator. Flink runs the partitions' generators in insertion
 * order; here the order is the multiplexer's, which is not observable: each
 * generator writes only its own state and, through its deferred output, its
 * own slot, and nothing is emitted before the combine. */
void wm_source_watermarks_on_periodic(struct wm_source_watermarks *sw,
				      int64_t now_ns);

/*
 * Periodic emission on the processing-time clock, as Flink schedules it
 * (scheduleWithFixedDelay(interval, interval)): wm_source_watermarks_start()
 * at `now_ns` puts the first tick one interval later; wm_source_watermarks_
 * poll() runs the tick once it is due and schedules the next one interval
 * after it ran. With interval 0 nothing is ever due.
 */
void wm_source_watermarks_start(struct wm_source_watermarks *sw,
				int64_t now_ns);

/* When the next tick is due (INT64_MAX if never). */
static inline int64_t
wm_source_watermarks_next_tick(const struct wm_source_watermarks *sw)
{
	return sw->next_tick_ns;
}

/* Run the periodic tick if it is due at `now_ns`; true if it ran. */
bool wm_source_watermarks_poll(struct wm_source_watermarks *sw, int64_t now_ns);

/*
 * Ticks that cannot change anything, and jumping over them (the --sim
 * driver's business: a partition silent for years is billions of ticks).
 *
 * Apart from the idleness timers a tick is idempotent: run again with no
 * record in between, every generator emits what it emitted the time before
 * (the same watermark, IDLE again, or nothing), the multiplexer combines
 * the same slots to the same value and all-idle state, the gate sees the
 * same sides and the data output drops what it already sent. So a tick
 * can change something only if input reached the subtask since the last
 * one (input_since_tick), or if one of its timers, partitions' or the
 * main output's, reaches a change on its clock (wm_watermark_next_change():
 * a countdown starts, or idleness is found). Clocks are read as the tick
 * reads them: a partition's on the subtask's, each standing still while
 * paused.
 *
 * wm_source_watermarks_next_change() is the due time of the first tick,
 * from the next one on, that can change anything, provided nothing
 * reaches the subtask and no clock is paused or resumed meanwhile (the
 * caller's own events): every tick due before it changes nothing and
 * sends nothing. Due times follow the schedule as polling on time gives
 * it, the next one plus whole intervals. INT64_MAX: none ever. O(partitions)
 * unless input came since the last tick.
 */
int64_t wm_source_watermarks_next_change(const struct wm_source_watermarks *sw);

/* The ticks due before `now_ns`, if none of them can change anything,
 * count as run on time: the next one due is then the first of the
 * schedule at or after now_ns. Otherwise nothing changes (a tick that can
 * change something is not skipped; the next poll runs it late). */
void wm_source_watermarks_skip(struct wm_source_watermarks *sw, int64_t now_ns);

/* End of input (drain): the final MAX watermark (data_output.h). */
void wm_source_watermarks_end_of_input(struct wm_source_watermarks *sw);

/* Last watermark sent (MIN before the first) and whether IDLE is announced;
 * what watermark alignment reports. */
static inline wm_ts_t
wm_source_watermarks_current(const struct wm_source_watermarks *sw)
{
	return sw->data.max_so_far;
}

static inline bool
wm_source_watermarks_idle(const struct wm_source_watermarks *sw)
{
	return sw->data.idle;
}

/*
 * checkpoint_watermarks (doc/semantics.md section 12.5): the subtask's
 * whole watermark state as a section: the data output, the gate's two
 * sides, the main generator, every partition's generator and idleness
 * clock (by id, in the multiplexer's order), the multiplexer, the
 * subtask's idleness clock, the next periodic tick and whether input came
 * since the last one. Clocks are kept as what they had taken off
 * processing time at `now_ns` (pausable_clock.h), the tick at its
 * processing time: a restored subtask judges idleness and ticks on the
 * job's processing time, which continues across a restart.
 *
 * Restore into a subtask made from the same strategy whose partitions
 * are those of the snapshot, registered in the order the snapshot lists
 * them (wm_source_watermarks_add_split() in that order): 0, or the
 * reader's error (-EINVAL for another strategy or other partitions).
 * Outputs nothing; the caller must not start the periodic emission again
 * (wm_source_watermarks_start()): its schedule is restored.
 */
struct wm_snap_writer;
struct wm_snap_reader;

void wm_source_watermarks_snapshot(const struct wm_source_watermarks *sw,
				   int64_t now_ns, struct wm_snap_writer *w);
int wm_source_watermarks_restore(struct wm_source_watermarks *sw,
				 struct wm_snap_reader *r);

#endif /* WM_OPERATORS_SOURCE_WATERMARKS_H */
