/*
 * idle.c
 *	Flink's IdlenessTimer: idle once strictly more than the timeout has
 *	passed since the first quiet probe.
 */
#include "config.h"

#include <errno.h>

#include "operators/output.h"
#include "operators/idle.h"

int
wm_idle_init(struct wm_idle_timer *t, int64_t timeout_ms)
{
	if (timeout_ms <= 0)
		return -EINVAL;
	t->activity = 0;
	t->activity_at_probe = 0;
	t->quiet_since_ns = 0;
	/* Flink: Duration.toNanos() overflow is clamped to Long.MAX_VALUE. */
	t->max_idle_ns = wm_ms_to_ns(timeout_ms);
	return 0;
}

bool
wm_idle_check(struct wm_idle_timer *t, int64_t now_ns)
{
	if (t->activity != t->activity_at_probe) {
		/* Something happened since the previous probe. */
		t->activity_at_probe = t->activity;
		t->quiet_since_ns = 0;
		return false;
	}
	if (t->quiet_since_ns == 0) {
		/* First quiet probe: the countdown starts now. */
		t->quiet_since_ns = now_ns;
		return false;
	}
	/* A reading before the countdown began would be a clock run
	 * backwards: no time has passed. */
	if (now_ns < t->quiet_since_ns)
		return false;
	/* Strictly greater: exactly the timeout is not yet idle. Unsigned
	 * difference: defined for any readings in order. */
	return (uint64_t)now_ns - (uint64_t)t->quiet_since_ns >
	       (uint64_t)t->max_idle_ns;
}

int64_t
wm_idle_next_change(const struct wm_idle_timer *t)
{
	if (t->activity != t->activity_at_probe)
		return 0;
	if (t->quiet_since_ns == 0)
		return 1;
	int64_t at;

	if (__builtin_add_overflow(t->quiet_since_ns, t->max_idle_ns, &at) ||
	    at == INT64_MAX)
		return INT64_MAX;
	return at + 1;
}
