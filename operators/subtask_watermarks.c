/*
 * subtask_watermarks.c
 *	Flink's TimestampsAndWatermarksOperator over one source subtask's
 *	output: one generator, its emitter, the processing-time timer.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "operators/periodic.h"
#include "lib/snap.h"
#include "operators/subtask_watermarks.h"

/* The generator's WatermarkOutput is the emitter. */
static void
emit_watermark(struct wm_output *out, wm_ts_t w)
{
	struct wm_subtask_watermarks *sw = wm_container_of(
		out, struct wm_subtask_watermarks, generator_out);

	wm_data_output_watermark(&sw->emitter, w);
}

static void
emit_status(struct wm_output *out, enum wm_status status)
{
	struct wm_subtask_watermarks *sw = wm_container_of(
		out, struct wm_subtask_watermarks, generator_out);

	wm_data_output_status(&sw->emitter, status);
}

int
wm_subtask_watermarks_init(struct wm_subtask_watermarks *sw,
			   const struct wm_watermark_strategy *strategy,
			   struct wm_output *out)
{
	memset(sw, 0, sizeof(*sw));
	sw->strategy = *strategy;
	if (wm_watermark_init(&sw->generator, strategy) != 0)
		return -EINVAL;
	/* No behaviour flag: WM_MUX_REACTIVATE and WM_DRAIN_ACTIVE_BEFORE_MAX
	 * vary the source's WatermarkToDataOutput, not this emitter, which
	 * re-activates only on an advancing watermark in every version. The
	 * generator keeps the strategy's flags (WM_IDLE_MARK_ONCE). */
	wm_data_output_init(&sw->emitter, out, 0);
	sw->generator_out.watermark = emit_watermark;
	sw->generator_out.status = emit_status;
	sw->next_tick_ns = INT64_MAX;
	sw->input_since_tick = true;
	return 0;
}

void
wm_subtask_watermarks_destroy(struct wm_subtask_watermarks *sw)
{
	wm_watermark_destroy(&sw->generator);
}

void
wm_subtask_watermarks_pause(struct wm_subtask_watermarks *sw, bool paused,
			    int64_t now_ns)
{
	wm_pausable_clock_set_paused(&sw->clock, paused, now_ns);
}

void
wm_subtask_watermarks_on_record(struct wm_subtask_watermarks *sw, wm_ts_t ts,
				uint32_t flags)
{
	sw->input_since_tick = true;
	wm_watermark_on_event(&sw->generator, ts, flags, &sw->generator_out);
}

void
wm_subtask_watermarks_on_periodic(struct wm_subtask_watermarks *sw,
				  int64_t now_ns)
{
	wm_watermark_on_periodic(&sw->generator,
				 wm_pausable_clock_read(&sw->clock, now_ns),
				 &sw->generator_out);
	sw->input_since_tick = false;
}

void
wm_subtask_watermarks_start(struct wm_subtask_watermarks *sw, int64_t now_ns)
{
	sw->next_tick_ns = wm_periodic_after(sw->strategy.interval_ms, now_ns);
}

bool
wm_subtask_watermarks_poll(struct wm_subtask_watermarks *sw, int64_t now_ns)
{
	if (!wm_periodic_poll(&sw->next_tick_ns, sw->strategy.interval_ms,
			      now_ns))
		return false;
	wm_subtask_watermarks_on_periodic(sw, now_ns);
	return true;
}

int64_t
wm_subtask_watermarks_next_change(const struct wm_subtask_watermarks *sw)
{
	int64_t at;

	if (!wm_periodic_quiet(sw->next_tick_ns, sw->input_since_tick))
		return sw->next_tick_ns;
	at = wm_pausable_clock_time_of_reading(
		NULL, &sw->clock, wm_watermark_next_change(&sw->generator));
	return wm_periodic_next_change(sw->next_tick_ns,
				       sw->strategy.interval_ms, at);
}

void
wm_subtask_watermarks_skip(struct wm_subtask_watermarks *sw, int64_t now_ns)
{
	/* As wm_source_watermarks_skip(). */
	if (sw->next_tick_ns < now_ns)
		sw->next_tick_ns = wm_periodic_skip(
			sw->next_tick_ns, sw->strategy.interval_ms,
			wm_subtask_watermarks_next_change(sw), now_ns);
}

void
wm_subtask_watermarks_end_of_input(struct wm_subtask_watermarks *sw,
				   int64_t now_ns)
{
	wm_data_output_watermark(&sw->emitter, WM_TS_MAX);
	wm_subtask_watermarks_on_periodic(sw, now_ns);
	sw->next_tick_ns = INT64_MAX;
}

#define SUBTASK_WM_SNAP_TAG WM_SNAP_TAG('S', 'T', 'W', 'M')
#define SUBTASK_WM_SNAP_VERSION 1

void
wm_subtask_watermarks_snapshot(const struct wm_subtask_watermarks *sw,
			       int64_t now_ns, struct wm_snap_writer *w)
{
	wm_snap_begin(w, SUBTASK_WM_SNAP_TAG, SUBTASK_WM_SNAP_VERSION);
	wm_watermark_snapshot(&sw->generator, w);
	wm_data_output_snapshot(&sw->emitter, w);
	wm_snap_put_i64(w, wm_pausable_clock_offset(&sw->clock, now_ns));
	wm_snap_put_i64(w, sw->next_tick_ns);
	wm_snap_put_bool(w, sw->input_since_tick);
	wm_snap_end(w);
}

int
wm_subtask_watermarks_restore(struct wm_subtask_watermarks *sw,
			      struct wm_snap_reader *r)
{
	if (wm_snap_enter(r, SUBTASK_WM_SNAP_TAG, SUBTASK_WM_SNAP_VERSION) !=
		    0 ||
	    wm_watermark_restore(&sw->generator, r) != 0 ||
	    wm_data_output_restore(&sw->emitter, r) != 0)
		return wm_snap_reader_error(r);
	wm_pausable_clock_set_offset(&sw->clock, wm_snap_get_i64(r));
	sw->next_tick_ns = wm_snap_get_i64(r);
	sw->input_since_tick = wm_snap_get_bool(r);
	return wm_snap_leave(r);
}
