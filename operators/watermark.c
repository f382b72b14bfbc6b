/*
 * watermark.c
 *	Flink's watermark generators and the withIdleness wrapper.
 */
#include "config.h"

#include <errno.h>

#include "operators/behaviour.h"
#include "lib/snap.h"
#include "operators/watermark.h"
#include "wmrun/plugin.h"

_Static_assert((unsigned)WMRUN_EVENT_PUNCTUATE ==
			       (unsigned)WM_RECORD_PUNCTUATE &&
		       (unsigned)WMRUN_EVENT_HEARTBEAT ==
			       (unsigned)WM_RECORD_HEARTBEAT,
	       "a plugin's event flags are the record's");

int
wm_watermark_strategy_check(const struct wm_watermark_strategy *s,
			    const char **why)
{
	switch (s->kind) {
	case WM_WATERMARK_BOUNDED:
		if (s->out_of_orderness_ms < 0) {
			*why = "out-of-orderness bound must not be negative";
			return -EINVAL;
		}
		break;
	case WM_WATERMARK_PLUGIN:
		if (s->plugin == NULL) {
			*why = "a plugin generator needs its plugin loaded";
			return -EINVAL;
		}
		/* No bound of wmrun's own either. */
		__attribute__((fallthrough));
	case WM_WATERMARK_ASCENDING:
	case WM_WATERMARK_PUNCTUATED:
	case WM_WATERMARK_NONE:
		if (s->out_of_orderness_ms != 0) {
			*why = "out-of-orderness bound applies only to "
			       "bounded generators";
			return -EINVAL;
		}
		break;
	default:
		*why = "unknown watermark generator";
		return -EINVAL;
	}
	if (s->punctuated && s->kind != WM_WATERMARK_BOUNDED &&
	    s->kind != WM_WATERMARK_ASCENDING) {
		*why = "only bounded and ascending generators combine with "
		       "punctuated";
		return -EINVAL;
	}
	if (s->interval_ms < 0) {
		*why = "watermark interval must not be negative";
		return -EINVAL;
	}
	if (s->reactivation_grace_ms < 0) {
		*why = "reactivation grace must not be negative";
		return -EINVAL;
	}
	if (s->with_idleness && s->idle_timeout_ms <= 0) {
		/* As Flink's withIdleness(): zero would declare every
		 * partition idle at the second quiet probe. */
		*why = "idle timeout must be positive";
		return -EINVAL;
	}
	return 0;
}

int
wm_watermark_init(struct wm_watermark_generator *g,
		  const struct wm_watermark_strategy *s)
{
	const char *why;

	if (wm_watermark_strategy_check(s, &why) != 0)
		return -EINVAL;
	g->kind = s->kind;
	g->bound = s->kind == WM_WATERMARK_BOUNDED ? s->out_of_orderness_ms : 0;
	/* Chosen so the first periodic watermark is exactly MIN and
	 * max_ts - bound - 1 can never underflow. */
	g->max_ts = WM_TS_MIN + g->bound + 1;
	g->with_idleness = s->with_idleness;
	g->mark_idle_once = wm_behaviour_has(s->behaviour, WM_IDLE_MARK_ONCE);
	g->idle_now = false;
	g->punctuated = wm_watermark_strategy_punctuated(s);
	g->plugin = NULL;
	g->plugin_state = NULL;
	if (g->with_idleness && wm_idle_init(&g->idle, s->idle_timeout_ms) != 0)
		return -EINVAL;
	if (g->kind == WM_WATERMARK_PLUGIN) {
		g->plugin_state = s->plugin->create(
			s->plugin_args != NULL ? s->plugin_args : "");
		if (g->plugin_state == NULL)
			return -EINVAL;
		g->plugin = s->plugin;
	}
	return 0;
}

void
wm_watermark_destroy(struct wm_watermark_generator *g)
{
	if (g->plugin != NULL && g->plugin->destroy != NULL)
		g->plugin->destroy(g->plugin_state);
	g->plugin = NULL;
	g->plugin_state = NULL;
}

/* The plugin's WatermarkOutput over the generator's output. */
struct plugin_output {
	struct wmrun_watermark_output out; /* first: what the plugin sees */
	struct wm_output *to;
};

static void
plugin_emit(struct wmrun_watermark_output *o, int64_t watermark)
{
	wm_output_watermark(((struct plugin_output *)o)->to, watermark);
}

static void
plugin_idle(struct wmrun_watermark_output *o)
{
	wm_output_status(((struct plugin_output *)o)->to, WM_STATUS_IDLE);
}

static void
plugin_active(struct wmrun_watermark_output *o)
{
	wm_output_status(((struct plugin_output *)o)->to, WM_STATUS_ACTIVE);
}

static struct plugin_output
plugin_output(struct wm_output *to)
{
	return (struct plugin_output){
		.out = {plugin_emit, plugin_idle, plugin_active},
		.to = to,
	};
}

void
wm_watermark_plugin_event(struct wm_watermark_generator *g, wm_ts_t ts,
			  uint32_t flags, struct wm_output *out)
{
	struct plugin_output po = plugin_output(out);
	/* The record flags the ABI names have the same bits. */
	struct wmrun_event e = {
		.timestamp = ts,
		.flags =
			flags & (WMRUN_EVENT_PUNCTUATE | WMRUN_EVENT_HEARTBEAT),
	};

	g->plugin->on_event(g->plugin_state, &e, &po.out);
}

static void
base_on_periodic(struct wm_watermark_generator *g, int64_t now_ns,
		 struct wm_output *out)
{
	if (g->kind == WM_WATERMARK_PLUGIN) {
		struct plugin_output po = plugin_output(out);

		g->plugin->on_periodic_emit(g->plugin_state, now_ns / 1000000,
					    &po.out);
		return;
	}
	if (g->kind == WM_WATERMARK_BOUNDED ||
	    g->kind == WM_WATERMARK_ASCENDING)
		/* Every tick, even if unchanged: duplicates are dropped by
		 * the layers above, and a repeated watermark also clears a
		 * split's idle flag there. */
		wm_output_watermark(out, g->max_ts - g->bound - 1);
}

void
wm_watermark_on_periodic(struct wm_watermark_generator *g, int64_t now_ns,
			 struct wm_output *out)
{
	if (!g->with_idleness || !wm_idle_check(&g->idle, now_ns)) {
		base_on_periodic(g, now_ns, out);
		return;
	}
	/* Idle: no watermark at all while idle. */
	if (!g->idle_now || !g->mark_idle_once)
		wm_output_status(out, WM_STATUS_IDLE);
	g->idle_now = true;
}

int64_t
wm_watermark_next_change(const struct wm_watermark_generator *g)
{
	/* A user's generator may emit at any tick: every one counts. */
	if (g->kind == WM_WATERMARK_PLUGIN)
		return 0;
	/* Idle stays idle until a record: later probes read later clocks,
	 * still more than the timeout after the countdown began. */
	if (!g->with_idleness || g->idle_now)
		return INT64_MAX;
	return wm_idle_next_change(&g->idle);
}

#define WATERMARK_SNAP_TAG WM_SNAP_TAG('W', 'M', 'G', 'N')
#define WATERMARK_SNAP_VERSION 1
/* The kind word's bit for a periodic generator combined with punctuated
 * (the others' snapshots keep their bytes). */
#define SNAP_COMBINED (1u << 16)

static uint32_t
snap_kind(const struct wm_watermark_generator *g)
{
	return (uint32_t)g->kind |
	       (g->punctuated && g->kind != WM_WATERMARK_PUNCTUATED
			? SNAP_COMBINED
			: 0);
}

void
wm_watermark_snapshot(const struct wm_watermark_generator *g,
		      struct wm_snap_writer *w)
{
	wm_snap_begin(w, WATERMARK_SNAP_TAG, WATERMARK_SNAP_VERSION);
	wm_snap_put_u32(w, snap_kind(g));
	wm_snap_put_i64(w, g->bound);
	wm_snap_put_bool(w, g->with_idleness);
	wm_snap_put_bool(w, g->mark_idle_once);
	wm_snap_put_i64(w, g->with_idleness ? g->idle.max_idle_ns : 0);
	wm_snap_put_i64(w, g->max_ts);
	wm_snap_put_bool(w, g->idle_now);
	wm_snap_put_u64(w, g->with_idleness ? g->idle.activity : 0);
	wm_snap_put_u64(w, g->with_idleness ? g->idle.activity_at_probe : 0);
	wm_snap_put_i64(w, g->with_idleness ? g->idle.quiet_since_ns : 0);
	wm_snap_end(w);
}

int
wm_watermark_restore(struct wm_watermark_generator *g, struct wm_snap_reader *r)
{
	bool same;
	wm_ts_t max_ts;
	bool idle_now;
	uint64_t activity, at_probe;
	int64_t quiet_since;

	if (wm_snap_enter(r, WATERMARK_SNAP_TAG, WATERMARK_SNAP_VERSION) != 0)
		return wm_snap_reader_error(r);
	same = wm_snap_get_u32(r) == snap_kind(g);
	same &= wm_snap_get_i64(r) == g->bound;
	same &= wm_snap_get_bool(r) == g->with_idleness;
	same &= wm_snap_get_bool(r) == g->mark_idle_once;
	same &= wm_snap_get_i64(r) ==
		(g->with_idleness ? g->idle.max_idle_ns : 0);
	max_ts = wm_snap_get_i64(r);
	idle_now = wm_snap_get_bool(r);
	activity = wm_snap_get_u64(r);
	at_probe = wm_snap_get_u64(r);
	quiet_since = wm_snap_get_i64(r);
	if (wm_snap_leave(r) != 0)
		return wm_snap_reader_error(r);
	/* max_ts never goes below its start: max_ts - bound - 1 must not
	 * underflow (wm_watermark_init()). */
	if (!same)
		return wm_snap_reader_fail(r, -EINVAL);
	if (max_ts < WM_TS_MIN + g->bound + 1)
		return wm_snap_reader_fail(r, -EBADMSG);
	g->max_ts = max_ts;
	g->idle_now = idle_now;
	if (g->with_idleness) {
		g->idle.activity = activity;
		g->idle.activity_at_probe = at_probe;
		g->idle.quiet_since_ns = quiet_since;
	}
	return 0;
}
