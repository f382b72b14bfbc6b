/*
 * restart_strategy.c
 *	Flink's restart strategies (restart_strategy.h), rule for rule.
 *
 * The exponential backoff is computed in milliseconds with Java's
 * arithmetic, as ExponentialDelayRestartBackoffTimeStrategy does: a
 * double converted to long saturates (and NaN gives 0), long addition
 * wraps. So a backoff grown past Long.MAX_VALUE plus a positive jitter
 * wraps negative and the result falls back to the initial backoff, as it
 * does in Flink; only times are nanoseconds here.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "base/time.h"
#include "lib/hash.h"
#include "runtime/restart/restart_strategy.h"

const char *
wm_restart_kind_name(enum wm_restart_kind kind)
{
	static const char *const names[] = WM_RESTART_KIND_NAMES;

	return (unsigned)kind < sizeof(names) / sizeof(*names) ? names[kind]
							       : "none";
}

static int
refuse(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s", what);
	return -EINVAL;
}

int
wm_restart_config_check(const struct wm_restart_config *c, char *err,
			size_t errlen)
{
	switch (c->kind) {
	case WM_RESTART_NONE:
		return 0;
	case WM_RESTART_FIXED_DELAY:
		if (c->attempts > WM_RESTART_ATTEMPTS_UNLIMITED)
			return refuse(err, errlen,
				      "attempts must be at most 2147483647");
		if (c->delay_ms < 0)
			return refuse(err, errlen,
				      "delay must be at least 0 ms");
		return 0;
	case WM_RESTART_EXPONENTIAL_DELAY:
		break;
	}
	if (c->initial_delay_ms < 1)
		return refuse(err, errlen,
			      "initial-backoff must be at least 1 ms");
	if (c->max_delay_ms < 1)
		return refuse(err, errlen, "max-backoff must be at least 1 ms");
	if (c->initial_delay_ms > c->max_delay_ms)
		return refuse(err, errlen,
			      "initial-backoff cannot be higher than "
			      "max-backoff");
	if (!(c->multiplier > 1))
		return refuse(err, errlen,
			      "backoff-multiplier must be greater than 1");
	if (c->reset_threshold_ms < 1)
		return refuse(err, errlen,
			      "reset-backoff-threshold must be at least 1 ms");
	if (!(c->jitter >= 0 && c->jitter <= 1))
		return refuse(err, errlen,
			      "jitter-factor must be between 0 and 1");
	if (c->attempts < 1 || c->attempts > WM_RESTART_ATTEMPTS_UNLIMITED)
		return refuse(err, errlen,
			      "attempts-before-reset-backoff must be between "
			      "1 and 2147483647");
	return 0;
}

void
wm_restart_strategy_init(struct wm_restart_strategy *s,
			 const struct wm_restart_config *c,
			 wm_restart_random_fn random, void *random_ctx)
{
	*s = (struct wm_restart_strategy){
		.conf = *c,
		.random = random,
		.random_ctx = random_ctx,
	};
}

/* Java's (long) of a double: NaN 0, saturated at both ends. */
static int64_t
java_d2l(double x)
{
	if (isnan(x))
		return 0;
	if (x >= 9223372036854775807.0)
		return INT64_MAX;
	if (x <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)x;
}

/* Uniform in [-offset, offset] (offset >= 0), as Java's
 * ThreadLocalRandom.nextLong(-offset, offset + 1): word r gives
 * r mod n - offset, without bias: the words of the last, incomplete
 * round of n (the top 2^64 mod n of them) are drawn again. */
static int64_t
jitter_ms(struct wm_restart_strategy *s, int64_t offset)
{
	uint64_t n = 2 * (uint64_t)offset + 1; /* <= 2^64 - 1 */
	uint64_t partial = (UINT64_MAX % n + 1) % n, r;

	do
		r = s->random(s->random_ctx);
	while (r > UINT64_MAX - partial);
	return (int64_t)(r % n - (uint64_t)offset);
}

/* calculateActualBackoffTime(): initial x multiplier ^ attempt plus the
 * jitter, within [initial, max], in milliseconds. */
static int64_t
exponential_backoff_ms(struct wm_restart_strategy *s)
{
	const struct wm_restart_config *c = &s->conf;
	int64_t current = java_d2l((double)c->initial_delay_ms *
				   pow(c->multiplier, (double)s->attempt));
	int64_t jitter = 0, with_jitter;

	if (c->jitter != 0)
		jitter = jitter_ms(s, java_d2l((double)current * c->jitter));
	with_jitter = (int64_t)((uint64_t)current + (uint64_t)jitter);
	if (with_jitter > c->max_delay_ms)
		with_jitter = c->max_delay_ms;
	return with_jitter < c->initial_delay_ms ? c->initial_delay_ms
						 : with_jitter;
}

/* a - b for a >= b - 2^63 or so; saturated rather than wrapped. */
static int64_t
ns_between(int64_t a, int64_t b)
{
	if (b < 0 && a > INT64_MAX + b)
		return INT64_MAX;
	if (b > 0 && a < INT64_MIN + b)
		return INT64_MIN;
	return a - b;
}

static void
exponential_failure(struct wm_restart_strategy *s, int64_t now_ns,
		    struct wm_restart_decision *d)
{
	const struct wm_restart_config *c = &s->conf;

	/* A failure while a restart still waits joins it (Flink merges the
	 * failures of tasks that restart together into one attempt). */
	if (s->failed_before && now_ns <= s->next_restart_ns) {
		d->new_attempt = false;
	} else {
		/* Running long enough since the last restart was due: the
		 * backoff and the count start again. */
		if (!s->failed_before ||
		    ns_between(now_ns, s->next_restart_ns) >=
			    wm_ms_to_ns(c->reset_threshold_ms))
			s->attempt = 0;
		s->next_restart_ns =
			wm_ns_after_ms(now_ns, exponential_backoff_ms(s));
		s->failed_before = true;
		if (s->attempt < UINT32_MAX)
			s->attempt++;
		d->new_attempt = true;
	}
	d->attempt = s->attempt;
	d->restart = s->attempt <= c->attempts;
	d->delay_ns = d->restart ? s->next_restart_ns - now_ns : 0;
}

void
wm_restart_strategy_failure(struct wm_restart_strategy *s, int64_t now_ns,
			    struct wm_restart_decision *d)
{
	*d = (struct wm_restart_decision){.new_attempt = true};
	switch (s->conf.kind) {
	case WM_RESTART_EXPONENTIAL_DELAY:
		exponential_failure(s, now_ns, d);
		return;
	case WM_RESTART_FIXED_DELAY:
	case WM_RESTART_NONE:
		break;
	}
	/* Every failure counts, for the job's whole life. */
	if (s->attempt < UINT32_MAX)
		s->attempt++;
	d->attempt = s->attempt;
	d->restart = s->conf.kind == WM_RESTART_FIXED_DELAY &&
		     s->attempt <= s->conf.attempts;
	d->delay_ns = d->restart ? wm_ms_to_ns(s->conf.delay_ms) : 0;
}

uint64_t
wm_restart_draw(void *draws)
{
	struct wm_restart_draws *d = draws;

	return wm_hash_mix64(wm_hash_fibonacci(++d->n) ^ d->seed);
}
