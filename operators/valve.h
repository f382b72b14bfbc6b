/*
 * valve.h
 *	Merge per-channel watermarks and idle status for one operator input
 *	(Flink's StatusWatermarkValve).
 *
 * A channel counts while it is ACTIVE and has caught up with the last output
 * ("aligned"). The output watermark never goes backwards and never repeats;
 * statuses strictly alternate, starting ACTIVE without being announced. When
 * the last active channel goes idle the valve flushes (emits the maximum over
 * all channels if it is higher) and then reports IDLE; released Flink flushes
 * only if that channel's watermark equals the last output
 * (WM_VALVE_FLUSH_UNCONDITIONAL lifts the condition). The study policies
 * replace that flush: WM_ALL_IDLE_MAX emits MAX instead, WM_ALL_IDLE_HOLD
 * nothing (behaviour.h).
 *
 * Aligned channels sit in a binary min-heap keyed by watermark, so a
 * watermark costs O(log n) and finding the minimum O(1); the maximum over all
 * channels and the number of active channels are kept up to date as they
 * change, so no operation scans the channels.
 *
 * Used by one thread only; no locking. The fast path never allocates.
 */
#ifndef WM_OPERATORS_VALVE_H
#define WM_OPERATORS_VALVE_H

#include <stdbool.h>
#include <stdint.h>

#include "operators/output.h"

/* What the valve knows of one channel (names follow Flink's). */
struct wm_channel_status {
	wm_ts_t watermark;     /* last accepted watermark; WM_TS_MIN at start */
	enum wm_status status; /* ACTIVE at start */
	bool aligned;	       /* ACTIVE and caught up with the last output */
};

struct wm_valve;

/* A valve over `channels` (>= 1) channels with the given behaviour flags
 * (enum wm_behaviour_flag). NULL with errno set on failure. */
struct wm_valve *wm_valve_new(uint32_t channels, unsigned behaviour);
void wm_valve_free(struct wm_valve *valve);

/* Watermark `watermark` arrived on `channel` (< channels); whatever the valve
 * emits goes to `out`, in order, before this returns. */
void wm_valve_input_watermark(struct wm_valve *valve, uint32_t channel,
			      wm_ts_t watermark, struct wm_output *out);

/* Status `status` arrived on `channel`; emissions as above. */
void wm_valve_input_status(struct wm_valve *valve, uint32_t channel,
			   enum wm_status status, struct wm_output *out);

uint32_t wm_valve_channels(const struct wm_valve *valve);
struct wm_channel_status wm_valve_channel(const struct wm_valve *valve,
					  uint32_t channel);
/* The aligned channel with the lowest watermark: the one holding the
 * output back (the first to reach the heap's top on a tie), or UINT32_MAX
 * when no channel is aligned. O(1). */
uint32_t wm_valve_min_channel(const struct wm_valve *valve);

/* Last watermark emitted (WM_TS_MIN before the first) and last status. */
wm_ts_t wm_valve_last_watermark(const struct wm_valve *valve);
enum wm_status wm_valve_last_status(const struct wm_valve *valve);

/*
 * checkpoint_watermarks: every channel's watermark and status, the
 * aligned channels in the order of the valve's heap (so that ties report
 * the same channel as holding the output back), and what the valve last
 * emitted, as a section. Restore into a new valve of as many channels
 * and the same behaviour: 0, or the reader's error (-EINVAL for another
 * shape, -EBADMSG for a state no valve could be in; the valve is then
 * as new). Outputs nothing.
 * Flink keeps none of it: a restored valve starts with every channel
 * ACTIVE at WM_TS_MIN.
 */
struct wm_snap_writer;
struct wm_snap_reader;

void wm_valve_snapshot(const struct wm_valve *valve, struct wm_snap_writer *w);
int wm_valve_restore(struct wm_valve *valve, struct wm_snap_reader *r);

#endif /* WM_OPERATORS_VALVE_H */
