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
 *
 * Reactivation grace (a study knob, not Flink: doc/semantics.md section
 * 9.6; grace_ns 0 is Flink). A split whose idle flag clears starts
 * joining: it is active (the subtask is not all-idle, its records flow)
 * but its watermark stays out of the minimum while it is behind the
 * combined value, so it cannot hold the subtask back and its records older
 * than the watermark turn late downstream instead. It joins once its
 * watermark catches up with the combined value (it can then hold nothing
 * back that it would not hold as a fresh split) or, failing that, grace_ns
 * of processing time after the first periodic tick that saw it active
 * again (wm_multiplexer_advance_grace()), whichever comes first. Going
 * idle again ends the grace; the next return starts a new one.
 */
#ifndef WM_OPERATORS_MULTIPLEXER_H
#define WM_OPERATORS_MULTIPLEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "operators/combine.h"
#include "operators/output.h"

struct wm_multiplexer;

struct wm_mux_split {
	struct wm_multiplexer *mux;
	size_t index; /* in mux->parts while registered */
	struct wm_partial_watermark partial;
	struct wm_output immediate; /* give to the generator's on_event */
	struct wm_output deferred;  /* give to the generator's on_periodic */
	/* partial.joining only: when the grace ends (processing time, ns);
	 * WM_MUX_GRACE_UNSTARTED until a tick has seen the split active. */
	int64_t joins_at_ns;
};

#define WM_MUX_GRACE_UNSTARTED INT64_MIN

struct wm_multiplexer {
	struct wm_output *out; /* underlying output */
	struct wm_combined combined;
	bool empty_is_idle; /* WM_MUX_EMPTY_IS_IDLE */
	bool reactivate;    /* WM_MUX_REACTIVATE */
	bool had_splits;    /* a split was ever registered */
	int64_t grace_ns;   /* reactivation grace; 0 = none (Flink) */
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

/* Give splits that come back from idle `grace_ns` (>= 0) of processing
 * time before they join the minimum; set before the first split returns. */
void wm_multiplexer_set_grace(struct wm_multiplexer *m, int64_t grace_ns);

/* The grace clock at a periodic tick at `now_ns`, before the combine of
 * that tick: joining splits seen for the first time start their grace,
 * those whose grace ended at or before now_ns, or whose watermark caught
 * up, join. O(splits); nothing to do, and need not be called, with no
 * grace. Emits nothing: joining the minimum can only hold it back. */
void wm_multiplexer_advance_grace(struct wm_multiplexer *m, int64_t now_ns);

/* The earliest end of a started grace (INT64_MAX if none): a tick at or
 * after it changes a split's state. O(splits). */
int64_t wm_multiplexer_next_join(const struct wm_multiplexer *m);

/*
 * checkpoint_watermarks: the combination (wm_combined_snapshot()), each
 * registered split's grace deadline and whether a split was ever
 * registered, as a section. Restore into a multiplexer of the same
 * behaviour and grace with as many splits registered, in the order
 * they had (wm_multiplexer_split(m, i) for i = 0, 1, ...): 0, or the
 * reader's error (-EINVAL for another shape). Outputs nothing: what the
 * restored state implies was output before the snapshot.
 */
struct wm_snap_writer;
struct wm_snap_reader;

void wm_multiplexer_snapshot(const struct wm_multiplexer *m,
			     struct wm_snap_writer *w);
int wm_multiplexer_restore(struct wm_multiplexer *m, struct wm_snap_reader *r);

#endif /* WM_OPERATORS_MULTIPLEXER_H */
