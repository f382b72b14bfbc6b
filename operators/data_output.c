/*
 * data_output.c
 *	Flink's WatermarkToDataOutput: strictly increasing watermarks,
 *	deduplicated statuses.
 */
#include "config.h"

#include <errno.h>

#include "operators/behaviour.h"
#include "operators/data_output.h"
#include "lib/snap.h"

void
wm_data_output_init(struct wm_data_output *d, struct wm_output *out,
		    unsigned behaviour)
{
	d->out = out;
	d->max_so_far = WM_TS_MIN;
	d->idle = false;
	d->reactivate = wm_behaviour_has(behaviour, WM_MUX_REACTIVATE);
	d->drain_active =
		wm_behaviour_has(behaviour, WM_DRAIN_ACTIVE_BEFORE_MAX);
}

static void
mark_active(struct wm_data_output *d)
{
	if (d->idle) {
		d->idle = false;
		wm_output_status(d->out, WM_STATUS_ACTIVE);
	}
}

void
wm_data_output_watermark(struct wm_data_output *d, wm_ts_t w)
{
	/* Released Flink returns before re-activation: a resumed partition
	 * that does not advance the watermark leaves the subtask IDLE. */
	if (d->reactivate)
		mark_active(d);
	if (w <= d->max_so_far)
		return;
	d->max_so_far = w;
	mark_active(d);
	wm_output_watermark(d->out, w);
}

void
wm_data_output_status(struct wm_data_output *d, enum wm_status status)
{
	if (status == WM_STATUS_ACTIVE) {
		mark_active(d);
	} else if (!d->idle) {
		d->idle = true;
		wm_output_status(d->out, WM_STATUS_IDLE);
	}
}

void
wm_data_output_end_of_input(struct wm_data_output *d)
{
	if (d->idle && !d->drain_active)
		return; /* dropped by the output that announced IDLE */
	mark_active(d);
	d->max_so_far = WM_TS_MAX;
	wm_output_watermark(d->out, WM_TS_MAX);
}

#define DATA_OUTPUT_SNAP_TAG WM_SNAP_TAG('D', 'O', 'U', 'T')
#define DATA_OUTPUT_SNAP_VERSION 1

void
wm_data_output_snapshot(const struct wm_data_output *d,
			struct wm_snap_writer *w)
{
	wm_snap_begin(w, DATA_OUTPUT_SNAP_TAG, DATA_OUTPUT_SNAP_VERSION);
	wm_snap_put_bool(w, d->reactivate);
	wm_snap_put_bool(w, d->drain_active);
	wm_snap_put_i64(w, d->max_so_far);
	wm_snap_put_bool(w, d->idle);
	wm_snap_end(w);
}

int
wm_data_output_restore(struct wm_data_output *d, struct wm_snap_reader *r)
{
	bool same;
	wm_ts_t max_so_far;
	bool idle;

	if (wm_snap_enter(r, DATA_OUTPUT_SNAP_TAG, DATA_OUTPUT_SNAP_VERSION) !=
	    0)
		return wm_snap_reader_error(r);
	same = wm_snap_get_bool(r) == d->reactivate;
	same &= wm_snap_get_bool(r) == d->drain_active;
	max_so_far = wm_snap_get_i64(r);
	idle = wm_snap_get_bool(r);
	if (wm_snap_leave(r) != 0)
		return wm_snap_reader_error(r);
	if (!same)
		return wm_snap_reader_fail(r, -EINVAL);
	d->max_so_far = max_so_far;
	d->idle = idle;
	return 0;
}
