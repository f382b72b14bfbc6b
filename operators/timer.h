/*
 * timer.h
 *	Event-time timers of one operator (Flink's InternalTimerService):
 *	a set of (timestamp, key, namespace) fired in a deterministic order.
 *
 * A timer is a triple; the service holds each triple at most once, so adding
 * a timer that is already there and deleting one that is not are both no-ops
 * (doc/semantics.md section 7.9). The window operator uses the window start
 * as the namespace.
 *
 * Firing order is total: timestamp, then key, then namespace, all as signed
 * 64-bit integers. Flink leaves the order among equal timestamps to its heap;
 * a total order makes our output reproducible, and Flink's own tests compare
 * such outputs sorted, so nothing can depend on Flink's choice.
 *
 * The service also carries the operator's current event-time watermark
 * (WM_TS_MIN until the first one). Setting it never fires anything by itself:
 * the owner pops the due timers (timestamp <= watermark) one at a time, so a
 * timer added while firing, if due, comes out in the same pass, exactly as in
 * Flink's advanceWatermark() loop. Like Flink, the service accepts a
 * watermark lower than the current one; keeping watermarks monotonic is the
 * valve's job.
 *
 * Cost: add, delete and pop are O(log n) (binary min-heap, with an
 * open-addressing hash index from the triple to its heap position); contains
 * and peek are O(1). Memory grows by doubling and never shrinks; nothing else
 * allocates. Growth failure is reported as -ENOMEM and leaves the service
 * unchanged. Used by one thread only; no locking.
 */
#ifndef WM_OPERATORS_TIMER_H
#define WM_OPERATORS_TIMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "operators/output.h"

/* One timer. `ns` is the namespace (for windows: the window start). */
struct wm_timer {
	wm_ts_t ts;
	int64_t key;
	int64_t ns;
};

struct wm_timer_service;

/* An empty service with watermark WM_TS_MIN; NULL with errno set to ENOMEM
 * on failure. */
struct wm_timer_service *wm_timer_new(void);
void wm_timer_free(struct wm_timer_service *svc);

/*
 * Make room for `n` more timers, so that the next `n` calls of wm_timer_add()
 * cannot fail. Returns 0 or -ENOMEM (nothing changed). Lets a caller fail
 * before it starts a change it could not finish.
 */
int wm_timer_reserve(struct wm_timer_service *svc, size_t n);

/* Add timer (ts, key, ns). Returns 1 if added, 0 if it was already there,
 * -ENOMEM if growth failed (nothing changed). */
int wm_timer_add(struct wm_timer_service *svc, wm_ts_t ts, int64_t key,
		 int64_t ns);

/* Delete timer (ts, key, ns); returns whether it was there. */
bool wm_timer_delete(struct wm_timer_service *svc, wm_ts_t ts, int64_t key,
		     int64_t ns);

bool wm_timer_contains(const struct wm_timer_service *svc, wm_ts_t ts,
		       int64_t key, int64_t ns);

/* Number of timers held. */
size_t wm_timer_count(const struct wm_timer_service *svc);

/* The current watermark; WM_TS_MIN before the first one. */
wm_ts_t wm_timer_watermark(const struct wm_timer_service *svc);

/* Set the current watermark. Fires nothing: pop the due timers next. */
void wm_timer_set_watermark(struct wm_timer_service *svc, wm_ts_t watermark);

/* Copy the first timer in firing order to *timer; false if there is none. */
bool wm_timer_peek(const struct wm_timer_service *svc, struct wm_timer *timer);

/*
 * If the first timer in firing order is due (ts <= current watermark),
 * remove it, copy it to *timer and return true; otherwise return false.
 * Calling this until it returns false fires one watermark completely,
 * including due timers added in between.
 */
bool wm_timer_pop_due(struct wm_timer_service *svc, struct wm_timer *timer);

struct wm_snap_writer;
struct wm_snap_reader;

/*
 * Write every timer (not the watermark: see doc/semantics.md, "What a
 * checkpoint holds") as a section of the snapshot; errors are the
 * writer's. The order written is the heap's, which depends on history;
 * firing order does not, since it is total.
 */
void wm_timer_snapshot(const struct wm_timer_service *svc,
		       struct wm_snap_writer *w);

/*
 * Add the timers of a section written by wm_timer_snapshot() to `svc`
 * (empty, as a new service is): 0, or the reader's error (malformed,
 * -ENOMEM kept there too). On error `svc` holds some of them: free it.
 */
int wm_timer_restore(struct wm_timer_service *svc, struct wm_snap_reader *r);

#endif /* WM_OPERATORS_TIMER_H */
