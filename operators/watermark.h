/*
 * watermark.h
 *	Watermark generators of one partition: bounded out-of-orderness,
 *	ascending timestamps, punctuated, none; each optionally wrapped with
 *	Flink's withIdleness().
 *
 * A generator has Flink's two callbacks. wm_watermark_on_event() runs for
 * every record after the record itself was emitted, and may emit at once
 * (punctuated); wm_watermark_on_periodic() runs on every periodic tick
 * (pipeline.auto-watermark-interval, 200 ms by default) and is the only place
 * where periodic generators emit and where idleness is judged. Generators may
 * emit any value, repeated or lower; the output layers above enforce
 * monotonicity (multiplexer, data output).
 *
 *   bounded(B)   watermark = max timestamp seen - B - 1 (the first is MIN)
 *   ascending    bounded(0): max - 1, so equal timestamps are not late
 *   punctuated   a record flagged WM_RECORD_PUNCTUATE sets the watermark to
 *                its own timestamp, at once; nothing periodic
 *   none         never emits (Flink's noWatermarks())
 *
 * Bounded and ascending may be combined with punctuated (the strategy's
 * `punctuated`): one generator whose onEvent keeps the maximum and emits
 * a marked record's timestamp (or the watermark it carries) at once, and
 * whose onPeriodicEmit emits the bound's watermark, as a user's Flink
 * generator that does both. The output's monotonicity keeps whichever is
 * higher.
 *
 * With an idle timeout, a probe that finds the partition idle sends
 * markIdle (as status IDLE) instead of the periodic watermark; released Flink
 * sends it once per idle period (WM_IDLE_MARK_ONCE). The wrapper never sends
 * ACTIVE: the partition counts again with its next emitted watermark.
 */
#ifndef WM_OPERATORS_WATERMARK_H
#define WM_OPERATORS_WATERMARK_H

#include <stdbool.h>
#include <stdint.h>

#include "operators/output.h"
#include "operators/idle.h"

enum wm_watermark_kind {
	WM_WATERMARK_BOUNDED,
	WM_WATERMARK_ASCENDING,
	WM_WATERMARK_PUNCTUATED,
	WM_WATERMARK_NONE,
	/* A user's generator from a plugin (wmrun/plugin.h) */
	WM_WATERMARK_PLUGIN,
};

struct wmrun_watermark_generator;

/* Flink's default pipeline.auto-watermark-interval. */
#define WM_WATERMARK_DEFAULT_INTERVAL_MS 200

/* A source's watermark strategy (Flink's WatermarkStrategy), plus the
 * periodic emission interval that Flink sets per job. */
struct wm_watermark_strategy {
	enum wm_watermark_kind kind;
	int64_t out_of_orderness_ms; /* bounded only; >= 0 */
	/* Periodic emission every interval_ms of processing time; 0 = never,
	 * so periodic generators never emit and idleness is never judged
	 * (punctuated watermarks still flow). */
	int64_t interval_ms;
	bool with_idleness;	 /* wrapped with withIdleness() */
	int64_t idle_timeout_ms; /* with_idleness only; must be > 0 */
	unsigned behaviour;	 /* enum wm_behaviour_flag */
	/* A partition back from idle joins the subtask's minimum this much
	 * later (multiplexer.h; a study knob, not Flink); 0 = at once. */
	int64_t reactivation_grace_ms;
	/* WM_WATERMARK_PLUGIN: the plugin's generator (loaded, never
	 * unloaded while a job runs) and the text it is created with. */
	const struct wmrun_watermark_generator *plugin;
	const char *plugin_args;
	/* Bounded or ascending combined with punctuated (see the top). */
	bool punctuated;
};

/* Whether the strategy's generator emits at marked records: punctuated,
 * alone or combined with a periodic one. */
static inline bool
wm_watermark_strategy_punctuated(const struct wm_watermark_strategy *s)
{
	return s->kind == WM_WATERMARK_PUNCTUATED || s->punctuated;
}

/* 0 if the strategy is valid, else -EINVAL and *why (a static message). */
int wm_watermark_strategy_check(const struct wm_watermark_strategy *strategy,
				const char **why);

struct wm_watermark_generator {
	enum wm_watermark_kind kind;
	int64_t bound;	/* B; 0 for ascending */
	wm_ts_t max_ts; /* starts at MIN + B + 1, never underflows */
	bool with_idleness;
	bool mark_idle_once; /* WM_IDLE_MARK_ONCE */
	bool idle_now;	     /* markIdle sent since the last record */
	/* Emits marked records' timestamps and carried watermarks at once
	 * (wm_watermark_strategy_punctuated()). */
	bool punctuated;
	struct wm_idle_timer idle; /* valid if with_idleness */
	/* WM_WATERMARK_PLUGIN: the generator and its instance */
	const struct wmrun_watermark_generator *plugin;
	void *plugin_state;
};

/* Fresh generator for `strategy`; -EINVAL if the strategy is invalid or
 * a plugin's generator refused its args (nothing to destroy then). */
int wm_watermark_init(struct wm_watermark_generator *g,
		      const struct wm_watermark_strategy *strategy);

/* What init made that lives on its own: a plugin generator's instance. */
void wm_watermark_destroy(struct wm_watermark_generator *g);

/* A plugin generator's onEvent (out of line: user code). */
void wm_watermark_plugin_event(struct wm_watermark_generator *g, wm_ts_t ts,
			       uint32_t flags, struct wm_output *out);

/* A record with event time `ts` and `flags` (enum wm_record_flag) was
 * emitted; punctuated watermarks go to `out` at once. Inline: a source
 * calls it for every record. */
static inline void
wm_watermark_on_event(struct wm_watermark_generator *g, wm_ts_t ts,
		      uint32_t flags, struct wm_output *out)
{
	switch (g->kind) {
	case WM_WATERMARK_BOUNDED:
	case WM_WATERMARK_ASCENDING:
		if (ts > g->max_ts)
			g->max_ts = ts;
		break;
	case WM_WATERMARK_PUNCTUATED:
	case WM_WATERMARK_NONE:
		break;
	case WM_WATERMARK_PLUGIN:
		wm_watermark_plugin_event(g, ts, flags, out);
		break;
	}
	/* After the maximum, as a combined generator's onEvent. */
	if (g->punctuated && (flags & WM_RECORD_PUNCTUATE))
		wm_output_watermark(out, ts);
	if (g->with_idleness) {
		wm_idle_activity(&g->idle);
		g->idle_now = false;
	}
}

/* The record just given to wm_watermark_on_event() carries the watermark
 * `carried` (WM_RECORD_WATERMARK): a punctuated generator (alone or
 * combined) emits it to `out` at once, as a user's onEvent emits a
 * watermark field of the event; the others have no use for it. */
static inline void
wm_watermark_on_carried(struct wm_watermark_generator *g, wm_ts_t carried,
			struct wm_output *out)
{
	if (g->punctuated)
		wm_output_watermark(out, carried);
}

/* Periodic tick at processing time `now_ns` (monotonic, nanoseconds). */
void wm_watermark_on_periodic(struct wm_watermark_generator *g, int64_t now_ns,
			      struct wm_output *out);

/*
 * When a tick can next do something new, if no record arrives first (no
 * on_event since the previous on_periodic): the lowest clock reading at
 * which on_periodic() changes the generator or emits something new.
 * Ticks at lower readings change nothing and emit nothing new: the
 * watermark the previous tick emitted or, once idle, IDLE again or
 * nothing (WM_IDLE_MARK_ONCE), which leave its output as they found it.
 * Only idleness depends on the clock: without it, or once the generator
 * is idle, never (INT64_MAX); else the timer's next change
 * (wm_idle_next_change()), where the countdown starts or the generator
 * goes idle. Pure.
 */
int64_t wm_watermark_next_change(const struct wm_watermark_generator *g);

/*
 * checkpoint_watermarks (doc/semantics.md, "What a checkpoint holds"):
 * the generator's state (its highest timestamp, whether it marked itself
 * idle, its idleness countdown, on the job's processing time) as a
 * section. Restore into a generator made from the same strategy:
 * 0, or the reader's error (-EINVAL for another strategy). Flink keeps
 * none of it: without this, a restored generator starts afresh.
 */
struct wm_snap_writer;
struct wm_snap_reader;

void wm_watermark_snapshot(const struct wm_watermark_generator *g,
			   struct wm_snap_writer *w);
int wm_watermark_restore(struct wm_watermark_generator *g,
			 struct wm_snap_reader *r);

#endif /* WM_OPERATORS_WATERMARK_H */
