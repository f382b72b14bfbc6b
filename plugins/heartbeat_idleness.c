/*
 * heartbeat_idleness.c
 *	An example plugin (wmrun/plugin.h): idleness that the upstream
 *	vouches for with heartbeats.
 *
 *	watermark = plugin:heartbeat_idleness(BOUND_MS, IDLE_MS)
 *
 * Bounded out-of-orderness (BOUND_MS) over the records and heartbeats
 * seen, as Flink's BoundedOutOfOrdernessWatermarks; and idleness, as
 * withIdleness, but judged on the business's word: a partition is marked
 * idle when it sent no record for IDLE_MS of processing time while its
 * heartbeats kept coming (alive, nothing to send), and never when it
 * fell silent altogether (the upstream may be down: the watermark waits
 * for it, rather than running ahead of records that will come). A tick
 * after a record makes it active again. Judged at the periodic ticks, on
 * whether a record or a heartbeat came since the tick before.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "wmrun/plugin.h"

struct vouched {
	int64_t bound_ms, idle_ms;
	int64_t max_ts;	 /* newest timestamp; INT64_MIN: none */
	bool data, beat; /* since the last tick */
	int64_t last_data_ms, last_beat_ms; /* ticks that saw them */
	bool idle;
};

static void *
create(const char *args)
{
	long long bound_ms, idle_ms;
	char end;
	struct vouched *v;

	if (sscanf(args, " %lld , %lld %c", &bound_ms, &idle_ms, &end) != 2 ||
	    bound_ms < 0 || idle_ms <= 0)
		return NULL;
	v = calloc(1, sizeof(*v));
	if (v == NULL)
		return NULL;
	v->bound_ms = bound_ms;
	v->idle_ms = idle_ms;
	v->max_ts = INT64_MIN;
	v->last_data_ms = v->last_beat_ms = INT64_MIN / 2;
	return v;
}

static void
on_event(void *generator, const struct wmrun_event *e,
	 struct wmrun_watermark_output *out)
{
	struct vouched *v = generator;

	(void)out;
	if (e->timestamp > v->max_ts)
		v->max_ts = e->timestamp;
	if (e->flags & WMRUN_EVENT_HEARTBEAT)
		v->beat = true;
	else
		v->data = true;
}

static void
on_periodic_emit(void *generator, int64_t now_ms,
		 struct wmrun_watermark_output *out)
{
	struct vouched *v = generator;

	if (v->data)
		v->last_data_ms = now_ms;
	if (v->beat)
		v->last_beat_ms = now_ms;
	v->data = v->beat = false;
	if (now_ms - v->last_data_ms >= v->idle_ms &&
	    now_ms - v->last_beat_ms < v->idle_ms) {
		if (!v->idle)
			out->mark_idle(out);
		v->idle = true;
		return;
	}
	v->idle = false;
	if (v->max_ts >= INT64_MIN + v->bound_ms + 1)
		out->emit_watermark(out, v->max_ts - v->bound_ms - 1);
}

static const struct wmrun_watermark_generator generators[] = {
	{"heartbeat_idleness", create, free, on_event, on_periodic_emit},
};

WMRUN_PLUGIN_DEFINE(generators)
