/*
 * combine.h
 *	Combine the watermarks of several inputs into one (Flink's
 *	CombinedWatermarkStatus): used by a source subtask's multiplexer over
 *	its partitions and by an operator over its logical inputs.
 *
 * The combined watermark is the minimum over inputs that are not idle and
 * never goes backwards. Unlike the valve there is no "unaligned" state: an
 * input that returns with an older watermark takes part in the minimum at
 * once and so holds the combined value back until it passes it. When every
 * input is idle, released Flink keeps the combined value;
 * WM_MUX_ALLIDLE_FLUSH_MAX advances it to the maximum over all inputs. The
 * study policies replace that rule (behaviour.h): WM_ALL_IDLE_MAX advances
 * it to MAX, WM_ALL_IDLE_HOLD keeps it whatever the flag says.
 *
 * An input may be joining (a study knob, not Flink: the multiplexer's
 * reactivation grace, multiplexer.h): back from idle but not yet in the
 * minimum, unless its watermark has caught up with the combined value.
 * Only the multiplexer sets it; combined inputs never join.
 */
#ifndef WM_OPERATORS_COMBINE_H
#define WM_OPERATORS_COMBINE_H

#include <stdbool.h>
#include <stddef.h>

#include "operators/output.h"

/* One input's part (Flink's PartialWatermark). */
struct wm_partial_watermark {
	wm_ts_t watermark; /* never decreases; MIN at start */
	bool idle;	   /* false at start */
	bool joining;	   /* not idle, in its grace; false at start */
};

static inline void
wm_partial_init(struct wm_partial_watermark *p)
{
	p->watermark = WM_TS_MIN;
	p->idle = false;
	p->joining = false;
}

/* Whether input `p` takes part in the minimum of a combination standing
 * at `combined`: not idle, and not joining behind it. */
static inline bool
wm_partial_counts(const struct wm_partial_watermark *p, wm_ts_t combined)
{
	return !p->idle && (!p->joining || p->watermark >= combined);
}

/* Record a watermark: clears idleness even when `w` is not higher.
 * Returns true if the input's watermark increased. */
static inline bool
wm_partial_set_watermark(struct wm_partial_watermark *p, wm_ts_t w)
{
	p->idle = false;
	if (w <= p->watermark)
		return false;
	p->watermark = w;
	return true;
}

struct wm_combined {
	wm_ts_t watermark; /* last combined value; MIN at start */
	bool all_idle;	   /* every input idle at the last update */
	bool flush_max;	   /* WM_MUX_ALLIDLE_FLUSH_MAX, no study policy */
	bool flush_end;	   /* WM_ALL_IDLE_MAX */
};

void wm_combined_init(struct wm_combined *c, unsigned behaviour);

/*
 * Recompute from `n` inputs (n == 0 changes nothing). Updates all_idle.
 * Returns true if the combined watermark increased; the caller then emits
 * c->watermark.
 */
bool wm_combined_update(struct wm_combined *c,
			struct wm_partial_watermark *const *parts, size_t n);

/*
 * checkpoint_watermarks: the combined value and every input's part
 * (watermark, idle, joining) as a section; restore into a combination
 * of the same behaviour over as many inputs, in the same order: 0, or
 * the reader's error (-EINVAL for another shape). Flink keeps none of it.
 */
struct wm_snap_writer;
struct wm_snap_reader;

void wm_combined_snapshot(const struct wm_combined *c,
			  struct wm_partial_watermark *const *parts, size_t n,
			  struct wm_snap_writer *w);
int wm_combined_restore(struct wm_combined *c,
			struct wm_partial_watermark *const *parts, size_t n,
			struct wm_snap_reader *r);

#endif /* WM_OPERATORS_COMBINE_H */
