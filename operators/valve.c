/*
 * valve.c
 *	Merge per-channel watermarks and idle status for one operator input.
 *
 * The rules are Flink's StatusWatermarkValve (doc/semantics.md section 5);
 * this file only chooses the data structures:
 *
 *  - aligned channels live in a binary min-heap of (watermark, channel)
 *    pairs; a channel is aligned exactly when it is in the heap
 *    (heap_pos != NOT_IN_HEAP). The heap holds a copy of the watermark so
 *    that sifting touches one array, not one cache line per channel.
 *  - max_watermark is the maximum over every channel's watermark. Channel
 *    watermarks only ever rise and are never reset, so the running maximum
 *    of accepted watermarks is exact and the all-idle flush needs no scan.
 *  - active_channels counts ACTIVE channels, so "no channel is active" is
 *    a comparison, not a scan.
 *
 * Invariants (checked by the unit tests through the public accessors):
 *   aligned(c)  implies  status(c) == ACTIVE
 *   heap[0].watermark == min watermark over aligned channels
 *   last_watermark only increases; last_status alternates
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "operators/behaviour.h"
#include "operators/valve.h"

#define NOT_IN_HEAP UINT32_MAX

struct valve_heap_entry {
	wm_ts_t watermark;
	uint32_t channel;
};

struct valve_channel {
	wm_ts_t watermark;
	uint32_t heap_pos; /* index in heap[], or NOT_IN_HEAP if unaligned */
	enum wm_status status;
};

struct wm_valve {
	uint32_t n_channels;
	uint32_t active_channels;
	uint32_t heap_len;
	unsigned behaviour;
	wm_ts_t last_watermark;
	enum wm_status last_status;
	wm_ts_t max_watermark;
	struct valve_heap_entry *heap; /* n_channels entries, after channel[] */
	struct valve_channel channel[];
};

struct wm_valve *
wm_valve_new(uint32_t channels, unsigned behaviour)
{
	if (channels == 0 || channels >= NOT_IN_HEAP) {
		errno = EINVAL;
		return NULL;
	}
	size_t channel_bytes = sizeof(struct valve_channel) * channels;
	size_t heap_bytes = sizeof(struct valve_heap_entry) * channels;
	struct wm_valve *v = malloc(sizeof(*v) + channel_bytes + heap_bytes);

	if (v == NULL)
		return NULL;
	v->n_channels = channels;
	v->active_channels = channels;
	v->behaviour = behaviour;
	v->last_watermark = WM_TS_MIN;
	v->last_status = WM_STATUS_ACTIVE;
	v->max_watermark = WM_TS_MIN;
	v->heap = (struct valve_heap_entry *)(void *)((char *)v->channel +
						      channel_bytes);
	/* Every channel starts ACTIVE at MIN and aligned (MIN >= MIN): all are
	 * in the heap, and equal keys already form a valid heap. */
	v->heap_len = channels;
	for (uint32_t c = 0; c < channels; c++) {
		v->channel[c].watermark = WM_TS_MIN;
		v->channel[c].status = WM_STATUS_ACTIVE;
		v->channel[c].heap_pos = c;
		v->heap[c].watermark = WM_TS_MIN;
		v->heap[c].channel = c;
	}
	return v;
}

void
wm_valve_free(struct wm_valve *valve)
{
	free(valve);
}

static inline void
heap_place(struct wm_valve *v, uint32_t pos, struct valve_heap_entry e)
{
	v->heap[pos] = e;
	v->channel[e.channel].heap_pos = pos;
}

static void
heap_sift_up(struct wm_valve *v, uint32_t pos)
{
	struct valve_heap_entry e = v->heap[pos];

	while (pos > 0) {
		uint32_t parent = (pos - 1) / 2;

		if (v->heap[parent].watermark <= e.watermark)
			break;
		heap_place(v, pos, v->heap[parent]);
		pos = parent;
	}
	heap_place(v, pos, e);
}

static void
heap_sift_down(struct wm_valve *v, uint32_t pos)
{
	struct valve_heap_entry e = v->heap[pos];
	uint32_t n = v->heap_len;
	uint32_t start = pos;

	for (;;) {
		uint32_t child = 2 * pos + 1;

		if (child >= n)
			break;
		if (child + 1 < n &&
		    v->heap[child + 1].watermark < v->heap[child].watermark)
			child++;
		if (e.watermark <= v->heap[child].watermark)
			break;
		heap_place(v, pos, v->heap[child]);
		pos = child;
	}
	/* Nothing moved (the common case for one channel, or for a channel
	 * that is not the minimum): the entry is already where it belongs. */
	if (pos != start)
		heap_place(v, pos, e);
}

static void
heap_insert(struct wm_valve *v, uint32_t channel)
{
	uint32_t pos = v->heap_len++;

	v->heap[pos].watermark = v->channel[channel].watermark;
	v->heap[pos].channel = channel;
	v->channel[channel].heap_pos = pos;
	heap_sift_up(v, pos);
}

static void
heap_remove(struct wm_valve *v, uint32_t channel)
{
	uint32_t pos = v->channel[channel].heap_pos;
	uint32_t last = --v->heap_len;

	v->channel[channel].heap_pos = NOT_IN_HEAP;
	if (pos == last)
		return;
	heap_place(v, pos, v->heap[last]);
	/* The moved entry may belong above or below its new place. */
	if (pos > 0 &&
	    v->heap[(pos - 1) / 2].watermark > v->heap[pos].watermark)
		heap_sift_up(v, pos);
	else
		heap_sift_down(v, pos);
}

static void
emit_min_of_aligned(struct wm_valve *v, struct wm_output *out)
{
	if (v->heap_len > 0 && v->heap[0].watermark > v->last_watermark) {
		v->last_watermark = v->heap[0].watermark;
		wm_output_watermark(out, v->last_watermark);
	}
}

static void
emit_max_of_all(struct wm_valve *v, struct wm_output *out)
{
	if (v->max_watermark > v->last_watermark) {
		v->last_watermark = v->max_watermark;
		wm_output_watermark(out, v->last_watermark);
	}
}

void
wm_valve_input_watermark(struct wm_valve *v, uint32_t channel,
			 wm_ts_t watermark, struct wm_output *out)
{
	struct valve_channel *ch = &v->channel[channel];

	/* A watermark on an idle channel is forgotten, not buffered; the
	 * valve itself is idle only when every channel is. */
	if (ch->status == WM_STATUS_IDLE || watermark <= ch->watermark)
		return;
	ch->watermark = watermark;
	if (watermark > v->max_watermark)
		v->max_watermark = watermark;
	if (ch->heap_pos != NOT_IN_HEAP) {
		/* A rising key in a min-heap only moves down. */
		v->heap[ch->heap_pos].watermark = watermark;
		heap_sift_down(v, ch->heap_pos);
	} else if (watermark >= v->last_watermark) {
		/* Caught up with the output: the channel counts again. */
		heap_insert(v, channel);
	}
	emit_min_of_aligned(v, out);
}

static void
channel_goes_idle(struct wm_valve *v, uint32_t channel, struct wm_output *out)
{
	struct valve_channel *ch = &v->channel[channel];
	bool held_minimum = ch->watermark == v->last_watermark;

	ch->status = WM_STATUS_IDLE;
	v->active_channels--;
	if (ch->heap_pos != NOT_IN_HEAP)
		heap_remove(v, channel);
	if (v->active_channels == 0) {
		/* Nothing can advance any more: flush the highest watermark
		 * any channel reached, then announce IDLE (never MAX). */
		if (held_minimum ||
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

	ch->status = WM_STATUS_ACTIVE;
	v->active_channels++;
	/* A channel returning behind the output stays unaligned until it
	 * catches up, so it cannot drag the output back. */
	if (ch->watermark >= v->last_watermark)
		heap_insert(v, channel);
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
	if (status == v->channel[channel].status)
		return;
	if (status == WM_STATUS_IDLE)
		channel_goes_idle(v, channel, out);
	else
		channel_goes_active(v, channel, out);
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
	return v->heap_len > 0 ? v->heap[0].channel : UINT32_MAX;
}
