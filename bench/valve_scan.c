/*
 * valve_scan.c
 *	StatusWatermarkValve as Flink 1.x wrote it: per-channel state in one
 *	array, and a linear scan wherever a minimum, a maximum or "is any
 *	channel active" is needed.
 *
 * The code follows doc/semantics.md sections 5.1-5.3 line by line,
 * deliberately without the bookkeeping operators/valve.c adds (heap, running
 * maximum, active count), so that the two are independent: a bug would have
 * to be made twice, in two different shapes, to slip through the
 * differential test. The scan is still written to be fast (one pass over a
 * dense array, no calls), so that the benchmark compares data structures,
 * not effort.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "bench/valve_scan.h"
#include "operators/behaviour.h"

struct wm_valve_scan {
	uint32_t n_channels;
	unsigned behaviour;
	wm_ts_t last_watermark;
	enum wm_status last_status;
	struct wm_channel_status channel[];
};

struct wm_valve_scan *
wm_valve_scan_new(uint32_t channels, unsigned behaviour)
{
	struct wm_valve_scan *v;

	/* channels < 2^32 and 16-byte entries: the size fits a 64-bit
	 * size_t, the only kind wmrun builds for. */
	if (channels == 0) {
		errno = EINVAL;
		return NULL;
	}
	v = malloc(sizeof(*v) + sizeof(v->channel[0]) * channels);
	if (v == NULL)
		return NULL;
	v->n_channels = channels;
	v->behaviour = behaviour;
	v->last_watermark = WM_TS_MIN;
	v->last_status = WM_STATUS_ACTIVE;
	for (uint32_t c = 0; c < channels; c++) {
		v->channel[c].watermark = WM_TS_MIN;
		v->channel[c].status = WM_STATUS_ACTIVE;
		v->channel[c].aligned = true;
	}
	return v;
}

void
wm_valve_scan_free(struct wm_valve_scan *valve)
{
	free(valve);
}

/* emitMinOfAligned(): the O(n) step the heap valve exists to avoid. */
static void
emit_min_of_aligned(struct wm_valve_scan *v, struct wm_output *out)
{
	bool any_aligned = false;
	wm_ts_t min = WM_TS_MAX;

	/* Branch-free body (an unaligned channel counts as MAX) so that the
	 * compiler can use conditional moves: the baseline should be a good
	 * scan, not a strawman. */
	for (uint32_t c = 0; c < v->n_channels; c++) {
		const struct wm_channel_status *ch = &v->channel[c];
		wm_ts_t w = ch->aligned ? ch->watermark : WM_TS_MAX;

		any_aligned |= ch->aligned;
		min = w < min ? w : min;
	}
	if (any_aligned && min > v->last_watermark) {
		v->last_watermark = min;
		wm_output_watermark(out, min);
	}
}

/* emitMaxOfAll(): over every channel, idle or not, aligned or not. */
static void
emit_max_of_all(struct wm_valve_scan *v, struct wm_output *out)
{
	wm_ts_t max = WM_TS_MIN;

	for (uint32_t c = 0; c < v->n_channels; c++)
		if (v->channel[c].watermark > max)
			max = v->channel[c].watermark;
	if (max > v->last_watermark) {
		v->last_watermark = max;
		wm_output_watermark(out, max);
	}
}

static bool
any_channel_active(const struct wm_valve_scan *v)
{
	for (uint32_t c = 0; c < v->n_channels; c++)
		if (v->channel[c].status == WM_STATUS_ACTIVE)
			return true;
	return false;
}

void
wm_valve_scan_input_watermark(struct wm_valve_scan *v, uint32_t channel,
			      wm_ts_t watermark, struct wm_output *out)
{
	struct wm_channel_status *ch = &v->channel[channel];

	/* Dropped, not buffered, while the channel (or the valve) is idle;
	 * a regression or a repeat is ignored. */
	if (v->last_status == WM_STATUS_IDLE || ch->status == WM_STATUS_IDLE)
		return;
	if (watermark <= ch->watermark)
		return;
	ch->watermark = watermark;
	/* Catch-up: a lagging channel rejoins once it reaches the output. */
	if (!ch->aligned && watermark >= v->last_watermark)
		ch->aligned = true;
	emit_min_of_aligned(v, out);
}

void
wm_valve_scan_input_status(struct wm_valve_scan *v, uint32_t channel,
			   enum wm_status status, struct wm_output *out)
{
	struct wm_channel_status *ch = &v->channel[channel];

	if (status == WM_STATUS_IDLE && ch->status == WM_STATUS_ACTIVE) {
		ch->status = WM_STATUS_IDLE;
		ch->aligned = false;
		if (!any_channel_active(v)) {
			/* Released Flink flushes only if this channel held
			 * the output; the watermark precedes the IDLE. */
			if (wm_behaviour_has(v->behaviour,
					     WM_VALVE_FLUSH_UNCONDITIONAL) ||
			    ch->watermark == v->last_watermark)
				emit_max_of_all(v, out);
			v->last_status = WM_STATUS_IDLE;
			wm_output_status(out, WM_STATUS_IDLE);
		} else if (ch->watermark == v->last_watermark) {
			/* It may have been the one holding the minimum. */
			emit_min_of_aligned(v, out);
		}
	} else if (status == WM_STATUS_ACTIVE && ch->status == WM_STATUS_IDLE) {
		ch->status = WM_STATUS_ACTIVE;
		if (ch->watermark >= v->last_watermark)
			ch->aligned = true;
		if (v->last_status == WM_STATUS_IDLE) {
			v->last_status = WM_STATUS_ACTIVE;
			wm_output_status(out, WM_STATUS_ACTIVE);
		}
		/* Master re-derives the minimum, after the ACTIVE status. */
		if (wm_behaviour_has(v->behaviour, WM_VALVE_REDERIVE_ON_ACTIVE))
			emit_min_of_aligned(v, out);
	}
	/* Anything else repeats the channel's status: nothing to do. */
}

uint32_t
wm_valve_scan_channels(const struct wm_valve_scan *valve)
{
	return valve->n_channels;
}

struct wm_channel_status
wm_valve_scan_channel(const struct wm_valve_scan *valve, uint32_t channel)
{
	return valve->channel[channel];
}

wm_ts_t
wm_valve_scan_last_watermark(const struct wm_valve_scan *valve)
{
	return valve->last_watermark;
}

enum wm_status
wm_valve_scan_last_status(const struct wm_valve_scan *valve)
{
	return valve->last_status;
}
