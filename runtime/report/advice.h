/*
 * advice.h
 *	What held event time back in a run, and the settings its figures
 *	recommend: from the job summary (job_report.h) to plain lines, nothing
 *	else (no I/O, no clock), so that constructed reports test it.
 *
 * Flapping: one line per source with idleness whose partitions went idle
 * WM_ADVICE_MIN_GAPS times or more with an idle_timeout below what their
 * gaps need (the idle_timeout advice's figure): each gap an idle spell,
 * and the record after it possibly late.
 *
 * Diagnosis: one line per window subtask whose longest stall was long
 * (WM_ADVICE_LONG_SHARE of the run, and beyond the scheduling noise of a
 * real run), following what held it (longest_stall_held_by) upstream to
 * the source subtask and its partition, with the cause found there:
 * silence, a sparse partition, watermark alignment, a subtask that owns
 * no partition, one generator per subtask (watermark_at = subtask).
 *
 * Advice, each line with the figure it came from:
 *   idle_timeout       per source: the smallest round duration above
 *                      WM_ADVICE_GAP_MARGIN times every partition's p99
 *                      gap, every burst period (partitions with at least
 *                      WM_ADVICE_MIN_GAPS gaps) and WM_ADVICE_INTERVALS
 *                      watermark intervals, if some
 *                      partition was silent longer than that and the
 *                      source has no idle_timeout or one below the figure
 *                      (it flaps); below [job] max_delay when stated, or
 *                      a line saying that no value fits
 *   out_of_orderness   per source: the smallest round duration at or
 *                      above the largest disorder measured, if that is
 *                      above the bound set (with the cost of the p99
 *                      instead, in records more out of order than it)
 *   allowed_lateness   per window: the smallest round duration above the
 *                      latest late record (watermark minus timestamp when
 *                      it was judged late, an upper bound of what it
 *                      needed)
 * Percentiles come from histograms (lib/histogram.h): each is
 * the lower end of a bucket within 12.5% below the true value, so the
 * advice takes the bucket's upper end, which the true value is below;
 * maxima are exact.
 */
#ifndef WM_RUNTIME_REPORT_ADVICE_H
#define WM_RUNTIME_REPORT_ADVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/conf/topology.h"
#include "runtime/report/job_report.h"

/* A window subtask's stall is long from this share of the run on. */
#define WM_ADVICE_LONG_SHARE 0.10
/* Fewer gaps than this say too little of a partition's p99 (a sparse
 * partition is what idleness is for, not what bounds it). */
#define WM_ADVICE_MIN_GAPS 20
/* An idle timeout clears a partition's p99 gap this many times over: the
 * gaps beyond the p99 (one in a hundred) are longer still, and a timeout
 * at the p99 makes the partition idle, and its records after a gap late,
 * a hundred times in 10,000 records. The write-ups on sizing it say
 * "several times the p99"; three is the least of several. */
#define WM_ADVICE_GAP_MARGIN 3
/* And this many watermark intervals: withIdleness() judges idleness at
 * each periodic emit, so a timeout of a few intervals is judged a whole
 * interval late, a fifth of it at five. */
#define WM_ADVICE_INTERVALS 5

enum wm_advice_kind {
	WM_ADVICE_HELD,		    /* diagnosis of a window subtask */
	WM_ADVICE_FLAPPING,	    /* diagnosis of a source's idleness */
	WM_ADVICE_IDLE_TIMEOUT,	    /* value_ms: the recommendation */
	WM_ADVICE_NO_IDLE_TIMEOUT,  /* none fits below max_delay */
	WM_ADVICE_OUT_OF_ORDERNESS, /* value_ms */
	WM_ADVICE_ALLOWED_LATENESS, /* value_ms */
};

struct wm_advice_line {
	enum wm_advice_kind kind;
	uint32_t stage;	  /* the source or window the line is about */
	uint32_t subtask; /* WM_ADVICE_HELD: the window subtask's plan id */
	int64_t value_ms; /* the setting recommended; -1 for the others */
	/* The figure it must clear, ms: the gap bound (a p99's or a
	 * period's bucket end), the largest disorder, the latest lateness;
	 * -1 for a diagnosis. */
	int64_t from_ms;
	/* WM_ADVICE_FLAPPING: the times its partitions went idle. */
	uint64_t idle_spells;
	char text[400]; /* the line, without the key for settings */
};

struct wm_advice {
	uint32_t n;
	struct wm_advice_line *lines; /* diagnosis first, then settings */
};

/* The advice for `rep`: 0 or -ENOMEM. Free with wm_advice_free(). */
int wm_advice_build(const struct wm_topology *t,
		    const struct wm_job_report *rep, struct wm_advice *out);
void wm_advice_free(struct wm_advice *a);

/* Whether a line of `kind` is a diagnosis (a finding), not a setting. */
static inline bool
wm_advice_is_diagnosis(enum wm_advice_kind kind)
{
	return kind == WM_ADVICE_HELD || kind == WM_ADVICE_FLAPPING;
}

/* The heading a line of `kind` goes under, as the summary prints it:
 * "what held event time", "idleness flapping" or "advice". */
const char *wm_advice_heading(enum wm_advice_kind kind);

/* The name of a setting line's key ("idle_timeout"), or NULL. */
const char *wm_advice_key(enum wm_advice_kind kind);

/* A partition's gap figures from its histogram of gaps `counts` (ms,
 * histogram.h) and its longest silence `max_ms` (job_report.h). */
void wm_advice_gap_figures(const uint64_t *counts, int64_t max_ms,
			   struct wm_gap_figures *out);

/* The smallest round duration (1, 2 or 5 of a unit, or 15 s, 30 min, 6 h
 * and the like) at or above `ms`, in ms; ms itself beyond a week's
 * multiples. */
int64_t wm_advice_round(int64_t ms);

#endif /* WM_RUNTIME_REPORT_ADVICE_H */
