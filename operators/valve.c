/*
 * valve.c
 *	Merge per-channel watermarks and idle status for one operator input.
 *
 * The rules are Flink's StatusWatermarkValve (doc/semantics.md section 5);
 * this file only chooses the data structures:
 *
 *  - aligned channels live in a binary min-heap (lib/binary_heap.h)
 *    of (watermark, channel) pairs; a channel is aligned exactly when it is
 *    in the heap (heap_pos != NOT_IN_HEAP, kept by the heap's PLACED
 *    hook). The heap holds a copy of the watermark so that sifting touches
 *    one array, not one cache line per channel.
 *  - max_watermark is the maximum over every channel's watermark. Channel
 *    watermarks only ever rise and are never reset, so the running maximum
 *    of accepted watermarks is exact and the all-idle flush needs no scan.
 *  - active_channels counts ACTIVE channels, so "no channel is active" is
 *    a comparison, not a scan.
 *
 * Invariants (checked by the unit tests through the public accessors, and
 * asserted in checked builds: base/assert.h):
 *   aligned(c)  implies  status(c) == ACTIVE and
 *                        watermark(c) >= last_watermark (caught up)
 *   heap.nodes[0].watermark == min watermark over aligned channels
 *   an aligned channel's heap entry names it and copies its watermark
 *   max_watermark == max watermark over all channels
 *   active_channels == number of ACTIVE channels; aligned ones <= that
 *   last_status == IDLE  iff  active_channels == 0
 *   last_watermark only increases; last_status alternates
 * A call asserts what it touched in O(1) (the heap's own asserts ride on
 * its sifts); the whole valve is checked, O(channels), only where it is
 * made, freed or changes its own status, which are rare.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "base/assert.h"
#include "operators/behaviour.h"
#include "lib/snap.h"
#include "operators/valve.h"

#define NOT_IN_HEAP UINT32_MAX

struct valve_heap_entry {
	wm_ts_t watermark;
	uint32_t channel;
};

#define WM_HEAP_PREFIX valve_heap
#define WM_HEAP_ENTRY struct valve_heap_entry
#define WM_HEAP_DECLARE
#include "lib/binary_heap.h"

struct valve_channel {
	wm_ts_t watermark;
	uint32_t heap_pos; /* in heap.nodes[]; NOT_IN_HEAP: unaligned */
	enum wm_status status;
};

struct wm_valve {
	uint32_t n_channels;
	uint32_t active_channels;
	unsigned behaviour;
	wm_ts_t last_watermark;
	enum wm_status last_status;
	wm_ts_t max_watermark;
	struct valve_heap heap; /* room for every channel */
	struct valve_channel channel[];
};

static inline struct wm_valve *
valve_of_heap(const struct valve_heap *h)
{
	return wm_container_of(h, struct wm_valve, heap);
}

/* Ties keep their places, so the channel reported as holding the output
 * back (wm_valve_min_channel()) is the one that got to the top first. */
#define WM_HEAP_PREFIX valve_heap
#define WM_HEAP_ENTRY struct valve_heap_entry
#define WM_HEAP_BEFORE(a, b) ((a)->watermark < (b)->watermark)
#define WM_HEAP_MIN_CAPACITY 1
#define WM_HEAP_PLACED(h, e, pos)                                              \
	(valve_of_heap(h)->channel[(e)->channel].heap_pos = (uint32_t)(pos))
#define WM_HEAP_DEFINE
#include "lib/binary_heap.h"

/* Channel c as the valve's invariants say it must be, against the heap
 * and the valve's totals: O(1), for WM_ASSERT(). */
static bool
channel_consistent(const struct wm_valve *v, uint32_t c)
{
	const struct valve_channel *ch = &v->channel[c];

	if (ch->watermark > v->max_watermark)
		return false;
	if (ch->heap_pos == NOT_IN_HEAP)
		return true;
	return ch->status == WM_STATUS_ACTIVE &&
	       ch->watermark >= v->last_watermark &&
	       ch->heap_pos < v->heap.count &&
	       v->heap.nodes[ch->heap_pos].channel == c &&
	       v->heap.nodes[ch->heap_pos].watermark == ch->watermark;
}

/* The valve's totals agree with each other: O(1), for WM_ASSERT(). */
static bool
totals_consistent(const struct wm_valve *v)
{
	return v->heap.count <= v->active_channels &&
	       v->active_channels <= v->n_channels &&
	       (v->active_channels == 0) ==
		       (v->last_status == WM_STATUS_IDLE) &&
	       (v->heap.count == 0 ||
		v->heap.nodes[0].watermark >= v->last_watermark);
}

/* Every invariant of the top comment, over every channel: O(channels),
 * for WM_ASSERT() at coarse points only. */
static bool
valve_consistent(const struct wm_valve *v)
{
	uint32_t active = 0, aligned = 0;
	wm_ts_t max = WM_TS_MIN;

	for (uint32_t c = 0; c < v->n_channels; c++) {
		const struct valve_channel *ch = &v->channel[c];

		if (!channel_consistent(v, c))
			return false;
		active += ch->status == WM_STATUS_ACTIVE;
		aligned += ch->heap_pos != NOT_IN_HEAP;
		if (ch->watermark > max)
			max = ch->watermark;
	}
	return totals_consistent(v) && active == v->active_channels &&
	       aligned == v->heap.count && max == v->max_watermark &&
	       valve_heap_valid(&v->heap);
}

/* The channel is aligned: into the heap, at its watermark. */
static void
heap_add_channel(struct wm_valve *v, uint32_t channel)
{
	struct valve_heap_entry e = {
		.watermark = v->channel[channel].watermark,
		.channel = channel,
	};

	valve_heap_push(&v->heap, &e);
}

static void
heap_remove_channel(struct wm_valve *v, uint32_t channel)
{
	size_t pos = v->channel[channel].heap_pos;

	v->channel[channel].heap_pos = NOT_IN_HEAP;
	valve_heap_remove_at(&v->heap, pos);
}

/* The state of a new valve (the heap has room for every channel). */
static void
valve_start(struct wm_valve *v)
{
	v->active_channels = v->n_channels;
	v->last_watermark = WM_TS_MIN;
	v->last_status = WM_STATUS_ACTIVE;
	v->max_watermark = WM_TS_MIN;
	valve_heap_clear(&v->heap);
	/* Every channel starts ACTIVE at MIN and aligned (MIN >= MIN): all go
	 * into the heap, each staying where it is put, at its own index. */
	for (uint32_t c = 0; c < v->n_channels; c++) {
		v->channel[c].watermark = WM_TS_MIN;
		v->channel[c].status = WM_STATUS_ACTIVE;
		heap_add_channel(v, c);
	}
	WM_ASSERT(valve_consistent(v));
}

struct wm_valve *
wm_valve_new(uint32_t channels, unsigned behaviour)
{
	if (channels == 0 || channels >= NOT_IN_HEAP) {
		errno = EINVAL;
		return NULL;
	}
	struct wm_valve *v =
		malloc(sizeof(*v) + sizeof(struct valve_channel) * channels);

	if (v == NULL)
		return NULL;
	v->n_channels = channels;
	v->behaviour = behaviour;
	valve_heap_init(&v->heap);
	if (valve_heap_reserve(&v->heap, channels) != 0) {
		free(v);
		errno = ENOMEM;
		return NULL;
	}
	valve_start(v);
	return v;
}

void
wm_valve_free(struct wm_valve *valve)
{
	if (valve == NULL)
		return;
	/* The end of its life: whatever it went through kept it whole. */
	WM_ASSERT(valve_consistent(valve));
	valve_heap_destroy(&valve->heap);
	free(valve);
}

static void
emit_min_of_aligned(struct wm_valve *v, struct wm_output *out)
{
	if (v->heap.count > 0 &&
	    v->heap.nodes[0].watermark > v->last_watermark) {
		v->last_watermark = v->heap.nodes[0].watermark;
		wm_output_watermark(out, v->last_watermark);
	}
}

static void
emit_max_of_all(struct wm_valve *v, struct wm_output *out)
{
	/* Only the all-idle flush may pass the aligned channels: with none
	 * aligned, nothing can be left behind the output. */
	WM_ASSERT(v->active_channels == 0 && v->heap.count == 0);
	if (v->max_watermark > v->last_watermark) {
		v->last_watermark = v->max_watermark;
		wm_output_watermark(out, v->last_watermark);
	}
}

/*
 * The all-idle flush of a study policy (behaviour.h), in place of Flink's:
 * WM_ALL_IDLE_MAX ends event time (MAX; from then on every channel is
 * behind the output and stays unaligned, so the valve emits nothing more
 * and everything after is late downstream), WM_ALL_IDLE_HOLD flushes
 * nothing. Reached only when the last channel goes idle.
 */
static void
all_idle_policy_flush(struct wm_valve *v, struct wm_output *out)
{
	WM_ASSERT(v->active_channels == 0 && v->heap.count == 0);
	if (wm_behaviour_has(v->behaviour, WM_ALL_IDLE_MAX) &&
	    v->last_watermark < WM_TS_MAX) {
		v->last_watermark = WM_TS_MAX;
		wm_output_watermark(out, v->last_watermark);
	}
}

void
wm_valve_input_watermark(struct wm_valve *v, uint32_t channel,
			 wm_ts_t watermark, struct wm_output *out)
{
	struct valve_channel *ch;

	WM_ASSERT(channel < v->n_channels);
	ch = &v->channel[channel];
	/* A watermark on an idle channel is forgotten, not buffered; the
	 * valve itself is idle only when every channel is. */
	if (ch->status == WM_STATUS_IDLE || watermark <= ch->watermark)
		return;
	ch->watermark = watermark;
	if (watermark > v->max_watermark)
		v->max_watermark = watermark;
	if (ch->heap_pos != NOT_IN_HEAP) {
		/* A rising key in a min-heap only moves down. */
		v->heap.nodes[ch->heap_pos].watermark = watermark;
		valve_heap_sift_down(&v->heap, ch->heap_pos);
	} else if (watermark >= v->last_watermark) {
		/* Caught up with the output: the channel counts again. */
		heap_add_channel(v, channel);
	}
	emit_min_of_aligned(v, out);
	WM_ASSERT(channel_consistent(v, channel) && totals_consistent(v));
}

static void
channel_goes_idle(struct wm_valve *v, uint32_t channel, struct wm_output *out)
{
	struct valve_channel *ch = &v->channel[channel];
	bool held_minimum = ch->watermark == v->last_watermark;

	WM_ASSERT(v->active_channels > 0);
	ch->status = WM_STATUS_IDLE;
	v->active_channels--;
	if (ch->heap_pos != NOT_IN_HEAP)
		heap_remove_channel(v, channel);
	if (v->active_channels == 0) {
		/* Nothing can advance any more: flush the highest watermark
		 * any channel reached, then announce IDLE (never MAX), unless
		 * a study policy replaces Flink's rule. */
		if (v->behaviour & WM_ALL_IDLE_POLICY)
			all_idle_policy_flush(v, out);
		else if (held_minimum ||
			 wm_behaviour_has(v->behaviour,
					  WM_VALVE_FLUSH_UNCONDITIONAL))
			emit_max_of_all(v, out);
		v->last_status = WM_STATUS_IDLE;
		wm_output_status(out, WM_STATUS_IDLE);
	} else if (held_minimum) {
		/* It may have been holding the minimum back. */
		emit_min_of_aligned(v, out);
	}
}

static void
channel_goes_active(struct wm_valve *v, uint32_t channel, struct wm_output *out)
{
	struct valve_channel *ch = &v->channel[channel];

	WM_ASSERT(v->active_channels < v->n_channels);
	ch->status = WM_STATUS_ACTIVE;
	v->active_channels++;
	/* A channel returning behind the output stays unaligned until it
	 * catches up, so it cannot drag the output back. */
	if (ch->watermark >= v->last_watermark)
		heap_add_channel(v, channel);
	if (v->last_status == WM_STATUS_IDLE) {
		v->last_status = WM_STATUS_ACTIVE;
		wm_output_status(out, WM_STATUS_ACTIVE);
	}
	if (wm_behaviour_has(v->behaviour, WM_VALVE_REDERIVE_ON_ACTIVE))
		emit_min_of_aligned(v, out);
}

void
wm_valve_input_status(struct wm_valve *v, uint32_t channel,
		      enum wm_status status, struct wm_output *out)
{
	enum wm_status before = v->last_status;

	WM_ASSERT(channel < v->n_channels);
	if (status == v->channel[channel].status)
		return;
	if (status == WM_STATUS_IDLE)
		channel_goes_idle(v, channel, out);
	else
		channel_goes_active(v, channel, out);
	WM_ASSERT(channel_consistent(v, channel) && totals_consistent(v));
	/* The valve's own status changed: rare, so check the whole. */
	WM_ASSERT(v->last_status == before || valve_consistent(v));
}

uint32_t
wm_valve_channels(const struct wm_valve *valve)
{
	return valve->n_channels;
}

struct wm_channel_status
wm_valve_channel(const struct wm_valve *valve, uint32_t channel)
{
	const struct valve_channel *ch = &valve->channel[channel];

	return (struct wm_channel_status){
		.watermark = ch->watermark,
		.status = ch->status,
		.aligned = ch->heap_pos != NOT_IN_HEAP,
	};
}

wm_ts_t
wm_valve_last_watermark(const struct wm_valve *valve)
{
	return valve->last_watermark;
}

enum wm_status
wm_valve_last_status(const struct wm_valve *valve)
{
	return valve->last_status;
}

uint32_t
wm_valve_min_channel(const struct wm_valve *v)
{
	return v->heap.count > 0 ? v->heap.nodes[0].channel : UINT32_MAX;
}

#define VALVE_SNAP_TAG WM_SNAP_TAG('V', 'A', 'L', 'V')
#define VALVE_SNAP_VERSION 1

void
wm_valve_snapshot(const struct wm_valve *v, struct wm_snap_writer *w)
{
	wm_snap_begin(w, VALVE_SNAP_TAG, VALVE_SNAP_VERSION);
	wm_snap_put_u32(w, v->n_channels);
	wm_snap_put_u32(w, v->behaviour);
	wm_snap_put_i64(w, v->last_watermark);
	wm_snap_put_u8(w, (uint8_t)v->last_status);
	for (uint32_t c = 0; c < v->n_channels; c++) {
		wm_snap_put_i64(w, v->channel[c].watermark);
		wm_snap_put_u8(w, (uint8_t)v->channel[c].status);
	}
	wm_snap_put_u64(w, v->heap.count);
	for (size_t i = 0; i < v->heap.count; i++)
		wm_snap_put_u32(w, v->heap.nodes[i].channel);
	wm_snap_end(w);
}

static enum wm_status
snap_get_status(struct wm_snap_reader *r)
{
	uint8_t s = wm_snap_get_u8(r);

	if (s != WM_STATUS_ACTIVE && s != WM_STATUS_IDLE)
		wm_snap_reader_fail(r, -EBADMSG);
	return s == WM_STATUS_IDLE ? WM_STATUS_IDLE : WM_STATUS_ACTIVE;
}

/* Read the section into v; on error v is left inconsistent. */
static int
valve_read(struct wm_valve *v, struct wm_snap_reader *r)
{
	uint64_t aligned;

	if (wm_snap_enter(r, VALVE_SNAP_TAG, VALVE_SNAP_VERSION) != 0)
		return wm_snap_reader_error(r);
	if ((wm_snap_get_u32(r) != v->n_channels ||
	     wm_snap_get_u32(r) != v->behaviour) &&
	    wm_snap_reader_error(r) == 0)
		return wm_snap_reader_fail(r, -EINVAL);
	v->last_watermark = wm_snap_get_i64(r);
	v->last_status = snap_get_status(r);
	v->active_channels = 0;
	v->max_watermark = WM_TS_MIN;
	for (uint32_t c = 0; c < v->n_channels; c++) {
		struct valve_channel *ch = &v->channel[c];

		ch->watermark = wm_snap_get_i64(r);
		ch->status = snap_get_status(r);
		ch->heap_pos = NOT_IN_HEAP;
		v->active_channels += ch->status == WM_STATUS_ACTIVE;
		if (ch->watermark > v->max_watermark)
			v->max_watermark = ch->watermark;
	}
	valve_heap_clear(&v->heap);
	aligned = wm_snap_get_count(r, 4);
	if (aligned > v->n_channels)
		return wm_snap_reader_fail(r, -EBADMSG);
	/* Pushed in the heap's own order, each entry stays where it was
	 * (a valid heap's entry is never before its parent). */
	for (uint64_t i = 0; i < aligned; i++) {
		uint32_t c = wm_snap_get_u32(r);

		if (wm_snap_reader_error(r) != 0)
			break;
		if (c >= v->n_channels || v->channel[c].heap_pos != NOT_IN_HEAP)
			return wm_snap_reader_fail(r, -EBADMSG);
		heap_add_channel(v, c);
	}
	if (wm_snap_leave(r) != 0)
		return wm_snap_reader_error(r);
	if (!valve_consistent(v))
		return wm_snap_reader_fail(r, -EBADMSG);
	return 0;
}

int
wm_valve_restore(struct wm_valve *v, struct wm_snap_reader *r)
{
	int err = valve_read(v, r);

	/* A refused snapshot leaves the valve as new, its invariants whole. */
	if (err != 0)
		valve_start(v);
	return err;
}
