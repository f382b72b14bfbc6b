/*
 * restart_strategy.h
 *	Flink's restart strategies: after a failure of the job, whether it
 *	restarts and after how long, or whether it fails for good. A pure
 *	state machine: no I/O, the clock and the random numbers passed in.
 *
 * Flink 2.x: RestartBackoffTimeStrategy and its implementations
 * NoRestartBackoffTimeStrategy, FixedDelayRestartBackoffTimeStrategy and
 * ExponentialDelayRestartBackoffTimeStrategy; their options are
 * RestartStrategyOptions (restart-strategy.type and the keys under
 * restart-strategy.fixed-delay / .exponential-delay). doc/semantics.md
 * section 13 states the rules and the defaults; this module is they.
 *
 * Use (--sim's crash, a supervisor whose worker died): one
 * struct wm_restart_strategy per job, set up once with
 * wm_restart_strategy_init(); at every failure of the job call
 * wm_restart_strategy_failure() with the time of the failure: it counts
 * the attempt and says whether to restart, and after what delay. Times
 * are nanoseconds of any monotonic clock (--sim's processing time, or
 * CLOCK_MONOTONIC), the configured durations milliseconds, as Flink's:
 * the delays it returns are whole milliseconds, computed exactly as
 * Flink computes them, in nanoseconds. Single-threaded; no allocation.
 */
#ifndef WM_RUNTIME_RESTART_RESTART_STRATEGY_H
#define WM_RUNTIME_RESTART_RESTART_STRATEGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum wm_restart_kind {
	WM_RESTART_NONE,	/* none: the first failure fails the job */
	WM_RESTART_FIXED_DELAY, /* fixed-delay */
	WM_RESTART_EXPONENTIAL_DELAY, /* exponential-delay */
};

/* Flink's "infinite" attempts: Integer.MAX_VALUE. */
#define WM_RESTART_ATTEMPTS_UNLIMITED ((uint32_t)INT32_MAX)

/*
 * A strategy and its parameters, as [job] configures them (runtime/conf/
 * restart_keys.c). The fields of the other kinds are ignored.
 */
struct wm_restart_config {
	enum wm_restart_kind kind;
	/* fixed-delay: restarts in the job's whole life (fixed-delay.
	 * attempts, >= 0); exponential-delay: restarts before the job fails,
	 * counted since the backoff last went back to its initial value
	 * (exponential-delay.attempts-before-reset-backoff, >= 1). */
	uint32_t attempts;
	int64_t delay_ms; /* fixed-delay.delay, >= 0 */
	/* exponential-delay: initial-backoff and max-backoff (1 <= initial
	 * <= max), backoff-multiplier (> 1), reset-backoff-threshold (>= 1)
	 * and jitter-factor (0 .. 1). */
	int64_t initial_delay_ms;
	int64_t max_delay_ms;
	double multiplier;
	int64_t reset_threshold_ms;
	double jitter;
};

/*
 * Flink 2.x's defaults for `kind` (RestartStrategyOptions): fixed-delay
 * 1 attempt, 1 s; exponential-delay 1 s initial, 1 min max, x 1.5, reset
 * after 1 h, jitter 0.1, unlimited attempts. With checkpointing enabled
 * and no strategy configured Flink runs exponential-delay with these
 * defaults; without checkpointing, none.
 */
static inline struct wm_restart_config
wm_restart_config_default(enum wm_restart_kind kind)
{
	struct wm_restart_config c = {
		.kind = kind,
		.attempts = kind == WM_RESTART_FIXED_DELAY
				    ? 1
				    : WM_RESTART_ATTEMPTS_UNLIMITED,
		.delay_ms = 1000,
		.initial_delay_ms = 1000,
		.max_delay_ms = 60 * 1000,
		.multiplier = 1.5,
		.reset_threshold_ms = 60 * 60 * 1000,
		.jitter = 0.1,
	};

	return c;
}

/* Flink's names of the kinds, by enum wm_restart_kind: an initializer,
 * for the configuration's enum of names (runtime/conf/restart_keys.c). */
#define WM_RESTART_KIND_NAMES                                                  \
	{                                                                      \
		"none", "fixed-delay", "exponential-delay"                     \
	}

/* "none", "fixed-delay", "exponential-delay". */
const char *wm_restart_kind_name(enum wm_restart_kind kind);

/*
 * Whether `c` holds Flink's constraints on its kind's parameters (those
 * of the strategies' constructors): 0, or -EINVAL with `err` naming the
 * parameter by its Flink key ("initial-backoff cannot be higher than
 * max-backoff").
 */
int wm_restart_config_check(const struct wm_restart_config *c, char *err,
			    size_t errlen);

/*
 * A uniformly random 64-bit word from `ctx`, for the jitter. Tests pass a
 * fixed sequence; a driver, a stream seeded from the job's seed.
 */
typedef uint64_t (*wm_restart_random_fn)(void *ctx);

/* A job's stream of jitter words, the same in a real run and --sim and on
 * every run of the job: its seed and the words drawn so far. */
struct wm_restart_draws {
	uint64_t seed;
	uint64_t n;
};

/* The next word of `draws` (a struct wm_restart_draws): a counter through
 * the finaliser, from the seed (lib/hash.h). */
uint64_t wm_restart_draw(void *draws);

/* A job's strategy and what it remembers of its failures. Fields are the
 * module's; read them through the decision. */
struct wm_restart_strategy {
	struct wm_restart_config conf;
	wm_restart_random_fn random;
	void *random_ctx;
	/* Flink's currentRestartAttempt: failures counted (fixed-delay: all
	 * of them; exponential-delay: since the backoff's last reset). */
	uint32_t attempt;
	/* exponential-delay: when the restart decided last is due
	 * (nextRestartTimestamp); meaningless before the first failure. */
	bool failed_before;
	int64_t next_restart_ns;
};

/* What to do about one failure. */
struct wm_restart_decision {
	/* Restart, after delay_ns; false: the job fails for good (none, or
	 * its attempts exhausted). */
	bool restart;
	/* exponential-delay: false if the failure came while a restart was
	 * still waiting (at or before its due time): it is merged into that
	 * restart, counts no attempt, and delay_ns is what is left of the
	 * wait. Always true for the other kinds. */
	bool new_attempt;
	/* The strategy's count after this failure (1 for the first, and
	 * again 1 after exponential-delay's reset): restart number
	 * `attempt` if restart. */
	uint32_t attempt;
	int64_t delay_ns; /* >= 0, whole milliseconds; 0 if !restart */
};

/*
 * Set up `s` for a job that has not failed yet. `c` must pass
 * wm_restart_config_check(); `random` may be NULL when c's kind draws no
 * jitter (not exponential-delay, or jitter 0).
 */
void wm_restart_strategy_init(struct wm_restart_strategy *s,
			      const struct wm_restart_config *c,
			      wm_restart_random_fn random, void *random_ctx);

/*
 * The job failed at `now_ns` (never before an earlier failure's time):
 * Flink's notifyFailure(), then canRestart() and getBackoffTime(), into
 * *d. Never fails.
 */
void wm_restart_strategy_failure(struct wm_restart_strategy *s, int64_t now_ns,
				 struct wm_restart_decision *d);

#endif /* WM_RUNTIME_RESTART_RESTART_STRATEGY_H */
