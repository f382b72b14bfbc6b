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
 * per-partition state). Removing a split does not recompute: the effect
 * shows at the next update, as in Flink.
 *
 * Flink keeps its splits in insertion order; here parts[] is in no
 * particular order, because unregistering moves the last split into the gap
 * (O(1), where keeping the order cost a search and a memmove per removal:
 * quadratic for a source with tens of thousands of partitions). Nothing can
 * tell: the combine (combine.c) takes a minimum, a maximum and an "any
 * active" over the set, exact on integers, and the behaviour flags only
 * choose between those results.
 */
#ifndef WM_OPERATORS_MULTIPLEXER_H
#define WM_OPERATORS_MULTIPLEXER_H

#include <stdbool.h>
#include <stddef.h>

#include "operators/combine.h"
#include "operators/output.h"

struct wm_multiplexer;

struct wm_mux_split {
	struct wm_multiplexer *mux;
	size_t index; /* in mux->parts while registered */
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
	struct wm_partial_watermark **parts; /* [0, n_splits), any order */
};

void wm_multiplexer_init(struct wm_multiplexer *m, struct wm_output *out,
			 unsigned behaviour);
void wm_multiplexer_destroy(struct wm_multiplexer *m);

/* Register `split`, which must not be registered already (fresh state:
 * MIN, not idle). 0 or -ENOMEM. Amortised O(1). */
int wm_multiplexer_register(struct wm_multiplexer *m,
			    struct wm_mux_split *split);

/* Forget `split`; no recomputation. 0, or -ENOENT if it is not registered
 * with `m` (any more). O(1); moves another split's position. */
int wm_multiplexer_unregister(struct wm_multiplexer *m,
			      struct wm_mux_split *split);

/* The registered splits are wm_multiplexer_split(m, i) for i in
 * [0, m->n_splits), in no particular order; unregistering changes it. */
static inline struct wm_mux_split *
wm_multiplexer_split(const struct wm_multiplexer *m, size_t i)
{
	return wm_container_of(m->parts[i], struct wm_mux_split, partial);
}

/* Combine all deferred updates (one call per periodic tick). */
void wm_multiplexer_on_periodic(struct wm_multiplexer *m);

#endif /* WM_OPERATORS_MULTIPLEXER_H */
