/*
 * multi_input.h
 *	Combine the logical inputs of a two- (or N-) input operator, each fed
 *	by its own valve (Flink's processWatermark1/2 and
 *	processWatermarkStatus over IndexedCombinedWatermarkStatus).
 *
 * Each input has a port: give port i's output to input i's valve, and the
 * valve's watermarks and statuses are combined here (combine.h): the minimum
 * over non-idle inputs, never backwards, emitted to `out` when it rises. A
 * status reaches `out` only when the all-idle state of the operator flips.
 * An input returning from idle with an older watermark holds the combined
 * value back until it passes it; unlike the valve, nothing is "unaligned".
 *
 * `out` is the operator: its watermark callback must fire the operator's
 * timers before forwarding, as processWatermark does.
 */
#ifndef WM_OPERATORS_MULTI_INPUT_H
#define WM_OPERATORS_MULTI_INPUT_H

#include <stddef.h>

#include "operators/combine.h"
#include "operators/output.h"

struct wm_multi_input;

struct wm_input_port {
	struct wm_output output; /* the valve of this input writes here */
	struct wm_multi_input *owner;
	struct wm_partial_watermark partial;
};

struct wm_multi_input {
	struct wm_output *out;
	struct wm_combined combined;
	size_t n_inputs;
	struct wm_input_port *ports;	     /* n_inputs */
	struct wm_partial_watermark **parts; /* into ports[] */
};

/* `n_inputs` >= 1 inputs. 0, -EINVAL or -ENOMEM. */
int wm_multi_input_init(struct wm_multi_input *mi, size_t n_inputs,
			struct wm_output *out, unsigned behaviour);
void wm_multi_input_destroy(struct wm_multi_input *mi);

/* Where input `i`'s valve sends its output. */
static inline struct wm_output *
wm_multi_input_port(struct wm_multi_input *mi, size_t i)
{
	return &mi->ports[i].output;
}

/* Last watermark received from input `i` (Flink's currentInput<i+1>Watermark)
 * and the combined one (currentInputWatermark). */
static inline wm_ts_t
wm_multi_input_watermark(const struct wm_multi_input *mi, size_t i)
{
	return mi->ports[i].partial.watermark;
}

static inline wm_ts_t
wm_multi_input_combined(const struct wm_multi_input *mi)
{
	return mi->combined.watermark;
}

/* checkpoint_watermarks: every input's watermark and status and the
 * combined one (wm_combined_snapshot()); restore into a combination of
 * as many inputs and the same behaviour. */
struct wm_snap_writer;
struct wm_snap_reader;

void wm_multi_input_snapshot(const struct wm_multi_input *mi,
			     struct wm_snap_writer *w);
int wm_multi_input_restore(struct wm_multi_input *mi, struct wm_snap_reader *r);

#endif /* WM_OPERATORS_MULTI_INPUT_H */
