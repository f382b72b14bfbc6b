/*
 * valve_scan.h
 *	A reference valve with StatusWatermarkValve's exact semantics
 *	(doc/semantics.md sections 5.1-5.3) and the data structure of Flink
 *	1.x: one array of channel statuses, scanned in full for the minimum
 *	on every accepted watermark.
 *
 * It exists to be measured against and tested against: wmbench compares
 * operators/valve.c (a heap, O(log n) per watermark) with this O(n) scan,
 * and check_valve_scan feeds both the same inputs and requires the same
 * outputs. Its API mirrors wm_valve_* one for one, with the same behaviour
 * flags (WM_VALVE_FLUSH_UNCONDITIONAL, WM_VALVE_REDERIVE_ON_ACTIVE), so
 * either can stand behind the same caller.
 *
 * Used by one thread only; no locking. The input functions never allocate.
 */
#ifndef WM_BENCH_VALVE_SCAN_H
#define WM_BENCH_VALVE_SCAN_H

#include <stdint.h>

#include "operators/output.h"
#include "operators/valve.h"

struct wm_valve_scan;

/* A valve over `channels` (>= 1) channels with the given behaviour flags
 * (enum wm_behaviour_flag). NULL with errno set on failure. */
struct wm_valve_scan *wm_valve_scan_new(uint32_t channels, unsigned behaviour);
void wm_valve_scan_free(struct wm_valve_scan *valve);

/* As wm_valve_input_watermark(): emissions go to `out`, in order, before
 * this returns. `channel` < channels. */
void wm_valve_scan_input_watermark(struct wm_valve_scan *valve,
				   uint32_t channel, wm_ts_t watermark,
				   struct wm_output *out);

/* As wm_valve_input_status(). */
void wm_valve_scan_input_status(struct wm_valve_scan *valve, uint32_t channel,
				enum wm_status status, struct wm_output *out);

uint32_t wm_valve_scan_channels(const struct wm_valve_scan *valve);
struct wm_channel_status
wm_valve_scan_channel(const struct wm_valve_scan *valve, uint32_t channel);
/* Last watermark emitted (WM_TS_MIN before the first) and last status. */
wm_ts_t wm_valve_scan_last_watermark(const struct wm_valve_scan *valve);
enum wm_status wm_valve_scan_last_status(const struct wm_valve_scan *valve);

#endif /* WM_BENCH_VALVE_SCAN_H */
