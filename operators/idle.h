/*
 * idle.h
 *	Processing-time idleness of one watermark generator (Flink's
 *	IdlenessTimer inside WatermarksWithIdleness).
 *
 * Idleness is judged only when the periodic emitter probes, never when
 * records arrive: the countdown starts at the first probe that saw no record
 * since the previous probe (not at the last record), and the generator is
 * idle once strictly more than the timeout has passed since then. With probe
 * period I and timeout T a partition therefore goes idle between about T+I
 * and T+3I after its last record (doc/semantics.md section 2.6).
 *
 * The clock is passed in (monotonic nanoseconds). Flink encodes "no countdown
 * running" as a start time of 0, so a countdown started while the clock reads
 * exactly 0 is forgotten and restarted at the next quiet probe; the
 * conformance traces record that, so it is kept. Runtime clocks never probe
 * at 0 (the first probe comes one interval after start).
 */
#ifndef WM_OPERATORS_IDLE_H
#define WM_OPERATORS_IDLE_H

#include <stdbool.h>
#include <stdint.h>

struct wm_idle_timer {
	uint64_t activity;	    /* records seen, wraps harmlessly */
	uint64_t activity_at_probe; /* `activity` at the previous probe */
	int64_t quiet_since_ns;	    /* countdown start; 0 = none running */
	int64_t max_idle_ns;	    /* the timeout */
};

/* Timeouts are whole milliseconds, as Flink's Duration is used here. */
#define WM_IDLE_NS_PER_MS 1000000

/* Set up with `timeout_ms` > 0; -EINVAL for zero or negative timeouts, as
 * Flink's withIdleness() rejects them. A timeout too large for nanoseconds
 * saturates. */
int wm_idle_init(struct wm_idle_timer *t, int64_t timeout_ms);

/* A record reached the generator. */
static inline void
wm_idle_activity(struct wm_idle_timer *t)
{
	t->activity++;
}

/* One periodic probe at `now_ns`: true when idle. */
bool wm_idle_check(struct wm_idle_timer *t, int64_t now_ns);

/*
 * When a probe can next do anything, if no record arrives first: the
 * lowest clock reading at which wm_idle_check() changes the timer or
 * answers true; a probe at any lower reading changes nothing and answers
 * false. Readings never go backwards, so once a probe answered true every
 * later one does too, changing nothing.
 *
 *   activity since the previous probe   0: any probe forgets the countdown
 *   no countdown running                1: a probe starts one (a probe at
 *                                       reading 0 "starts" it at 0, which
 *                                       is none: the quirk above)
 *   countdown since q, timeout T        q + T + 1: the first reading more
 *                                       than T after q
 *
 * INT64_MAX: not before the end of time (a timeout that large saturates).
 * Pure; what the --sim driver asks to jump over probes that cannot change
 * anything.
 */
int64_t wm_idle_next_change(const struct wm_idle_timer *t);

#endif /* WM_OPERATORS_IDLE_H */
