/*
 * multiplexer.h
 *	Merge the watermarks of all partitions (splits) one source subtask
 *	reads (Flink's WatermarkOutputMultiplexer).
 *
 * Each split has two outputs for its generator. The immediate one (used by
 * on_event, i.e. punctuated watermarks) recomputes the combined watermark at
 * once, but for a watermark only if it raised the split's watermark above
 * the combined value; the deferred one (used by the periodic emitter) only
 * records, and wm_multiplexer_on_periodic() then combines all deferred
 * updates at once. The combined watermark is the minimum over non-idle splits
 * and never goes backwards (combine.h); when every split is idle the
 * multiplexer says IDLE on every recomputation and its output deduplicates.
 *
 * Splits are caller-owned (stable addresses, e.g. embedded in the source's
 * per-partition state) and kept in registration order. Removing a split does
 * not recompute: the effect shows at the next update, as in Flink.
 */
#ifndef WM_OPERATORS_MULTIPLEXER_H
#define WM_OPERATORS_MULTIPLEXER_H

#include <stdbool.h>
#include <stddef.h>

#include "operators/combine.h"
#include "operators/event.h"

struct wm_multiplexer;

struct wm_mux_split {
	struct wm_multiplexer *mux;
	struct wm_partial_watermark partial;
	struct wm_output immediate; /* give to the generator's on_event */
	struct wm_output deferred;  /* give to the generator's on_periodic */
};

struct wm_multiplexer {
	struct wm_output *out; /* underlying output */
	struct wm_combined combined;
	bool empty_is_idle; /* WM_MUX_EMPTY_IS_IDLE */
	bool reactivate;    /* WM_MUX_REACTIVATE */
	bool had_splits;    /* a split was ever registered */
	size_t n_splits;
	size_t cap_splits;
	struct wm_partial_watermark **parts; /* registration order */
};

void wm_multiplexer_init(struct wm_multiplexer *m, struct wm_output *out,
			 unsigned behaviour);
void wm_multiplexer_destroy(struct wm_multiplexer *m);

/* Register `split` (fresh state: MIN, not idle). 0 or -ENOMEM. */
int wm_multiplexer_register(struct wm_multiplexer *m,
			    struct wm_mux_split *split);

/* Forget `split`; no recomputation. 0 or -ENOENT. */
int wm_multiplexer_unregister(struct wm_multiplexer *m,
			      struct wm_mux_split *split);

/* Combine all deferred updates (one call per periodic tick). */
void wm_multiplexer_on_periodic(struct wm_multiplexer *m);

#endif /* WM_OPERATORS_MULTIPLEXER_H */
