/*
 * axis.h
 *	Ticks and labels of a plot's axes in the words people read time in:
 *	a clock ("00:00", "01:30", "1d 02:00", a date for epoch times),
 *	durations ("250 ms", "8 h") and plain counts ("2.5k").
 *
 * Times are milliseconds (event time's unit; processing time is given in
 * ms by the caller). A tick step is always a round human step (1, 2, 5 ms
 * ... 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30 min, 1, 2, 3, 6, 12 h,
 * 1, 2, 7 days ...), and ticks sit on its multiples, so labels read
 * 00:00, 01:00, ... rather than 00:00, 00:57. Pure: no I/O, no clock.
 */
#ifndef WM_RUNTIME_CHART_AXIS_H
#define WM_RUNTIME_CHART_AXIS_H

#include <stddef.h>
#include <stdint.h>

#define WM_AXIS_MAX_TICKS 16

/* What the values of an axis are, for their ticks and labels. */
enum wm_axis_kind {
	WM_AXIS_CLOCK,	  /* a moment, ms: processing or event time */
	WM_AXIS_DURATION, /* a length of time, ms */
	WM_AXIS_COUNT,	  /* records, windows */
	WM_AXIS_RATIO,	  /* 0..1, labelled in percent */
	WM_AXIS_NONE,	  /* rows the caller labels: no ticks */
};

struct wm_axis_ticks {
	unsigned n;
	double step;
	double at[WM_AXIS_MAX_TICKS];
};

/*
 * Ticks for values [lo, hi] of `kind`: the smallest human step giving at
 * most `most` ticks (2 <= most <= WM_AXIS_MAX_TICKS), the ticks being its
 * multiples within [lo, hi]. A range of one value gets the one tick.
 */
void wm_axis_ticks(enum wm_axis_kind kind, double lo, double hi, unsigned most,
		   struct wm_axis_ticks *out);

/* The smallest human step of `kind` at least `at_least` (for a sampling
 * grid as much as for ticks). */
double wm_axis_step(enum wm_axis_kind kind, double at_least);

/*
 * The label of value `v` on an axis of `kind` whose ticks are `step`
 * apart, into buf (always terminated): a clock shows as much as the step
 * needs ("01:00" for a step of minutes or hours, "00:01:30" for seconds,
 * "1.250 s" below; "1d 02:00" past a day; "2024-03-01 12:00" for an
 * epoch time past 1971); a duration in its largest whole unit ("8 h",
 * "90 min" stays "1.5 h"); a count with k/M; a ratio in percent. Returns
 * buf.
 */
char *wm_axis_label(enum wm_axis_kind kind, double v, double step, char *buf,
		    size_t len);

/* A duration in ms for people, as wm_axis_label() writes one ("8 h",
 * "1.5 h", "250 ms", "0 ms"). Returns buf. */
char *wm_axis_duration(double ms, char *buf, size_t len);

#endif /* WM_RUNTIME_CHART_AXIS_H */
