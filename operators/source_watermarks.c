/*
 * source_watermarks.c
 *	Partition generators, multiplexer, idleness gate and data output of
 *	one source subtask, wired as Flink wires them.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"
#include "operators/periodic.h"
#include "lib/snap.h"
#include "operators/source_watermarks.h"

/*
 * The index from partition id to partition (lib/hash_table.h): split
 * pointers, load at most one half, from 16 slots, allocated at the first
 * add. It never shrinks, and its backward-shift removal keeps partitions
 * coming and going for ever from lengthening probes.
 *
 * Why a hash: ids are arbitrary 64-bit numbers, assigned and finished in
 * any order (a sorted array would move half of it per change), and the
 * trace replayer looks a partition up for every event.
 */
#define WM_HT_PREFIX wm_source_split_index
#define WM_HT_ENTRY struct wm_source_split_slot
#define WM_HT_KEY uint64_t
#define WM_HT_EMPTY(e) ((e)->split == NULL)
#define WM_HT_HASH(tb, e) wm_hash_mix64((e)->split->id)
#define WM_HT_MATCH(tb, e, k, hash) ((e)->split->id == (k))
#define WM_HT_MIN_SLOTS 16
#define WM_HT_FILL(slots) ((slots) / 2)
#define WM_HT_DEFINE
#include "lib/hash_table.h"

/*
 * The gate. A watermark from a side goes straight through and clears that
 * side's idle flag (even if the data output then drops it); IDLE from a side
 * reaches the data output only when both sides are idle; ACTIVE goes
 * straight through.
 */
static void
gate_watermark(struct wm_output *out, wm_ts_t w)
{
	struct wm_gate_side *side =
		wm_container_of(out, struct wm_gate_side, output);

	wm_data_output_watermark(&side->owner->data, w);
	side->idle = false;
}

static void
gate_status(struct wm_output *out, enum wm_status status)
{
	struct wm_gate_side *side =
		wm_container_of(out, struct wm_gate_side, output);
	struct wm_source_watermarks *sw = side->owner;

	if (status == WM_STATUS_ACTIVE) {
		side->idle = false;
		wm_data_output_status(&sw->data, WM_STATUS_ACTIVE);
		return;
	}
	side->idle = true;
	if (sw->split_side.idle && sw->main_side.idle)
		wm_data_output_status(&sw->data, WM_STATUS_IDLE);
}

static void
gate_side_init(struct wm_gate_side *side, struct wm_source_watermarks *owner)
{
	side->output.watermark = gate_watermark;
	side->output.status = gate_status;
	side->owner = owner;
	side->idle = true;
}

int
wm_source_watermarks_init(struct wm_source_watermarks *sw,
			  const struct wm_watermark_strategy *strategy,
			  struct wm_output *out)
{
	memset(sw, 0, sizeof(*sw));
	sw->strategy = *strategy;
	if (wm_watermark_init(&sw->main_generator, strategy) != 0)
		return -EINVAL;
	wm_data_output_init(&sw->data, out, strategy->behaviour);
	gate_side_init(&sw->split_side, sw);
	gate_side_init(&sw->main_side, sw);
	wm_multiplexer_init(&sw->mux, &sw->split_side.output,
			    strategy->behaviour);
	wm_multiplexer_set_grace(&sw->mux,
				 wm_ms_to_ns(strategy->reactivation_grace_ms));
	wm_source_split_index_init(&sw->index);
	sw->next_tick_ns = INT64_MAX;
	sw->input_since_tick = true; /* the first tick sets the gate up */
	return 0;
}

/* The partition at position i of the multiplexer, which lists them. */
static struct wm_source_split *
split_at(const struct wm_source_watermarks *sw, size_t i)
{
	return wm_container_of(wm_multiplexer_split(&sw->mux, i),
			       struct wm_source_split, slot);
}

void
wm_source_watermarks_destroy(struct wm_source_watermarks *sw)
{
	for (size_t i = 0; i < sw->mux.n_splits; i++) {
		wm_watermark_destroy(&split_at(sw, i)->generator);
		free(split_at(sw, i));
	}
	wm_watermark_destroy(&sw->main_generator);
	wm_source_split_index_destroy(&sw->index);
	wm_multiplexer_destroy(&sw->mux);
}

/* Whether partition `id` is registered, with *idx at its slot; otherwise
 * *idx at the empty slot where it would go. */
static bool
index_find(const struct wm_source_watermarks *sw, uint64_t id, size_t *idx)
{
	return wm_source_split_index_lookup(&sw->index, id, wm_hash_mix64(id),
					    idx);
}

struct wm_source_split *
wm_source_watermarks_split(struct wm_source_watermarks *sw, uint64_t id)
{
	size_t i;

	return index_find(sw, id, &i) ? sw->index.slots[i].split : NULL;
}

struct wm_source_split *
wm_source_watermarks_add_split(struct wm_source_watermarks *sw, uint64_t id)
{
	struct wm_source_split *split;
	size_t i;

	if (wm_source_watermarks_split(sw, id) != NULL) {
		errno = EEXIST;
		return NULL;
	}
	/* A larger table is harmless if what follows fails. */
	if (wm_source_split_index_reserve(&sw->index, 1) != 0) {
		errno = ENOMEM;
		return NULL;
	}
	split = calloc(1, sizeof(*split));
	if (split == NULL)
		return NULL;
	split->id = id;
	/* The strategy was validated by init; only a plugin's generator can
	 * refuse to be made (it took its arguments at load). */
	if (wm_watermark_init(&split->generator, &sw->strategy) != 0) {
		free(split);
		errno = EINVAL;
		return NULL;
	}
	if (wm_multiplexer_register(&sw->mux, &split->slot) != 0) {
		wm_watermark_destroy(&split->generator);
		free(split);
		errno = ENOMEM;
		return NULL;
	}
	(void)index_find(sw, id, &i);
	wm_source_split_index_insert_at(&sw->index, i)->split = split;
	sw->input_since_tick = true;
	return split;
}

int
wm_source_watermarks_remove_split(struct wm_source_watermarks *sw, uint64_t id)
{
	struct wm_source_split *split;
	size_t i;

	if (!index_find(sw, id, &i))
		return -ENOENT;
	split = sw->index.slots[i].split;
	wm_source_split_index_remove_at(&sw->index, i);
	wm_multiplexer_unregister(&sw->mux, &split->slot);
	wm_watermark_destroy(&split->generator);
	free(split);
	/* The multiplexer recombines without it at the next tick. */
	sw->input_since_tick = true;
	return 0;
}

void
wm_source_watermarks_on_main_record(struct wm_source_watermarks *sw, wm_ts_t ts,
				    uint32_t flags)
{
	sw->input_since_tick = true;
	wm_watermark_on_event(&sw->main_generator, ts, flags,
			      &sw->main_side.output);
}

void
wm_source_watermarks_pause(struct wm_source_watermarks *sw, bool paused,
			   int64_t now_ns)
{
	wm_pausable_clock_set_paused(&sw->clock, paused, now_ns);
}

void
wm_source_split_pause(struct wm_source_watermarks *sw,
		      struct wm_source_split *split, bool paused,
		      int64_t now_ns)
{
	/* A partition's pauses are measured on the subtask's clock, so a
	 * stretch in which both were paused is not taken off twice. */
	int64_t subtask_now = wm_pausable_clock_read(&sw->clock, now_ns);

	wm_pausable_clock_set_paused(&split->clock, paused, subtask_now);
}

void
wm_source_watermarks_on_periodic(struct wm_source_watermarks *sw,
				 int64_t now_ns)
{
	int64_t subtask_now = wm_pausable_clock_read(&sw->clock, now_ns);

	for (size_t i = 0; i < sw->mux.n_splits; i++) {
		struct wm_source_split *split = split_at(sw, i);

		wm_watermark_on_periodic(
			&split->generator,
			wm_pausable_clock_read(&split->clock, subtask_now),
			&split->slot.deferred);
	}
	if (sw->mux.grace_ns > 0)
		wm_multiplexer_advance_grace(&sw->mux, now_ns);
	wm_multiplexer_on_periodic(&sw->mux);
	wm_watermark_on_periodic(&sw->main_generator, subtask_now,
				 &sw->main_side.output);
	sw->input_since_tick = false;
}

void
wm_source_watermarks_start(struct wm_source_watermarks *sw, int64_t now_ns)
{
	sw->next_tick_ns = wm_periodic_after(sw->strategy.interval_ms, now_ns);
}

bool
wm_source_watermarks_poll(struct wm_source_watermarks *sw, int64_t now_ns)
{
	if (!wm_periodic_poll(&sw->next_tick_ns, sw->strategy.interval_ms,
			      now_ns))
		return false;
	wm_source_watermarks_on_periodic(sw, now_ns);
	return true;
}

void
wm_source_watermarks_end_of_input(struct wm_source_watermarks *sw)
{
	wm_data_output_end_of_input(&sw->data);
}

int64_t
wm_source_watermarks_next_change(const struct wm_source_watermarks *sw)
{
	int64_t at;

	if (!wm_periodic_quiet(sw->next_tick_ns, sw->input_since_tick))
		return sw->next_tick_ns;
	at = wm_pausable_clock_time_of_reading(
		NULL, &sw->clock,
		wm_watermark_next_change(&sw->main_generator));
	for (size_t i = 0; i < sw->mux.n_splits && at > sw->next_tick_ns; i++) {
		const struct wm_source_split *split = split_at(sw, i);
		int64_t t = wm_pausable_clock_time_of_reading(
			&sw->clock, &split->clock,
			wm_watermark_next_change(&split->generator));

		if (t < at)
			at = t;
	}
	/* A grace ending changes which partitions count (multiplexer.h). */
	if (sw->mux.grace_ns > 0 && wm_multiplexer_next_join(&sw->mux) < at)
		at = wm_multiplexer_next_join(&sw->mux);
	return wm_periodic_next_change(sw->next_tick_ns,
				       sw->strategy.interval_ms, at);
}

void
wm_source_watermarks_skip(struct wm_source_watermarks *sw, int64_t now_ns)
{
	/* Only when behind: next_change is O(partitions). */
	if (sw->next_tick_ns < now_ns)
		sw->next_tick_ns = wm_periodic_skip(
			sw->next_tick_ns, sw->strategy.interval_ms,
			wm_source_watermarks_next_change(sw), now_ns);
}

#define SOURCE_WM_SNAP_TAG WM_SNAP_TAG('S', 'R', 'W', 'M')
#define SOURCE_WM_SNAP_VERSION 1

void
wm_source_watermarks_snapshot(const struct wm_source_watermarks *sw,
			      int64_t now_ns, struct wm_snap_writer *w)
{
	int64_t subtask_now = wm_pausable_clock_read(&sw->clock, now_ns);

	wm_snap_begin(w, SOURCE_WM_SNAP_TAG, SOURCE_WM_SNAP_VERSION);
	wm_data_output_snapshot(&sw->data, w);
	wm_snap_put_bool(w, sw->split_side.idle);
	wm_snap_put_bool(w, sw->main_side.idle);
	wm_watermark_snapshot(&sw->main_generator, w);
	wm_snap_put_u64(w, sw->mux.n_splits);
	for (size_t i = 0; i < sw->mux.n_splits; i++) {
		const struct wm_source_split *split = split_at(sw, i);

		wm_snap_put_u64(w, split->id);
		wm_watermark_snapshot(&split->generator, w);
		wm_snap_put_i64(w, wm_pausable_clock_offset(&split->clock,
							    subtask_now));
	}
	wm_multiplexer_snapshot(&sw->mux, w);
	wm_snap_put_i64(w, wm_pausable_clock_offset(&sw->clock, now_ns));
	wm_snap_put_i64(w, sw->next_tick_ns);
	wm_snap_put_bool(w, sw->input_since_tick);
	wm_snap_end(w);
}

int
wm_source_watermarks_restore(struct wm_source_watermarks *sw,
			     struct wm_snap_reader *r)
{
	bool split_idle, main_idle;

	if (wm_snap_enter(r, SOURCE_WM_SNAP_TAG, SOURCE_WM_SNAP_VERSION) != 0 ||
	    wm_data_output_restore(&sw->data, r) != 0)
		return wm_snap_reader_error(r);
	split_idle = wm_snap_get_bool(r);
	main_idle = wm_snap_get_bool(r);
	if (wm_watermark_restore(&sw->main_generator, r) != 0)
		return wm_snap_reader_error(r);
	if (wm_snap_get_u64(r) != sw->mux.n_splits)
		return wm_snap_reader_fail(r, -EINVAL);
	for (size_t i = 0; i < sw->mux.n_splits; i++) {
		struct wm_source_split *split = split_at(sw, i);

		if (wm_snap_get_u64(r) != split->id)
			return wm_snap_reader_fail(r, -EINVAL);
		if (wm_watermark_restore(&split->generator, r) != 0)
			return wm_snap_reader_error(r);
		wm_pausable_clock_set_offset(&split->clock, wm_snap_get_i64(r));
	}
	if (wm_multiplexer_restore(&sw->mux, r) != 0)
		return wm_snap_reader_error(r);
	wm_pausable_clock_set_offset(&sw->clock, wm_snap_get_i64(r));
	sw->next_tick_ns = wm_snap_get_i64(r);
	sw->input_since_tick = wm_snap_get_bool(r);
	if (wm_snap_leave(r) != 0)
		return wm_snap_reader_error(r);
	sw->split_side.idle = split_idle;
	sw->main_side.idle = main_idle;
	return 0;
}
