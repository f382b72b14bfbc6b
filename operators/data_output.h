/*
 * data_output.h
 *	The last watermark stage of a source subtask (Flink's
 *	WatermarkToDataOutput): what it sends is what leaves the subtask.
 *
 * Watermarks leave strictly increasing; IDLE and ACTIVE strictly alternate,
 * starting ACTIVE unannounced; an ACTIVE always directly precedes the first
 * watermark after an IDLE. A watermark that does not advance is dropped
 * before it can end idleness, so a subtask whose partitions resume behind
 * its last watermark stays announced IDLE while its records flow (released
 * Flink; WM_MUX_REACTIVATE announces ACTIVE in that case). Records are never
 * gated by status and do not pass through here.
 */
#ifndef WM_OPERATORS_DATA_OUTPUT_H
#define WM_OPERATORS_DATA_OUTPUT_H

#include <stdbool.h>

#include "operators/output.h"

struct wm_data_output {
	struct wm_output *out; /* the subtask's output */
	wm_ts_t max_so_far;    /* last watermark sent; MIN at start */
	bool idle;	       /* IDLE announced and not yet revoked */
	bool reactivate;       /* WM_MUX_REACTIVATE */
	bool drain_active;     /* WM_DRAIN_ACTIVE_BEFORE_MAX */
};

void wm_data_output_init(struct wm_data_output *d, struct wm_output *out,
			 unsigned behaviour);

/* emitWatermark(w): sent only if above every watermark sent before. */
void wm_data_output_watermark(struct wm_data_output *d, wm_ts_t w);

/* markIdle() for IDLE, markActive() for ACTIVE; repeated ones are dropped. */
void wm_data_output_status(struct wm_data_output *d, enum wm_status status);

/*
 * End of input in drain mode: the source task writes the MAX watermark
 * directly, bypassing the checks above. A network output that announced
 * IDLE drops it (released Flink, doc/semantics.md section 3.6), so
 * downstream never sees it; WM_DRAIN_ACTIVE_BEFORE_MAX sends ACTIVE first
 * instead.
 */
void wm_data_output_end_of_input(struct wm_data_output *d);

/* checkpoint_watermarks: the last watermark sent and the IDLE announced,
 * as a section; restore into an output of the same behaviour: 0, or the
 * reader's error (-EINVAL for another behaviour). Outputs nothing. */
struct wm_snap_writer;
struct wm_snap_reader;

void wm_data_output_snapshot(const struct wm_data_output *d,
			     struct wm_snap_writer *w);
int wm_data_output_restore(struct wm_data_output *d, struct wm_snap_reader *r);

#endif /* WM_OPERATORS_DATA_OUTPUT_H */
