/*
 * timeline.c
 *	Snapshots as JSON lines (timeline.h), each object built as jansson
 *	values and written by jansson (lib/json_out.h): every name goes
 *	through wm_json_text(), so a line stays valid JSON whatever bytes a
 *	name holds.
 */
#include "config.h"

#include <math.h>

#include "base/time.h"
#include "lib/json_arena.h"
#include "lib/json_out.h"
#include "runtime/observe/timeline.h"

/* A figure per second, or null when unknown: one place, as people read
 * it (wm_json_fixed()). */
static int
put_per_second(json_t *o, const char *name, double v)
{
	return wm_json_put(o, name,
			   v < 0 || !isfinite(v) ? json_null()
						 : wm_json_fixed(v, 1));
}

/* The object of a subtask's line, with the fields every such object
 * starts with. */
static json_t *
head(const struct wm_topology *topo, const struct wm_plan *plan,
     const struct wm_snapshot *snap, int64_t start_real_ns, uint32_t id)
{
	const struct wm_plan_subtask *sub = &plan->subtasks[id];
	json_t *o = json_object();
	int failed = wm_json_put(
		o, "t_ms",
		json_integer((snap->real_ns - start_real_ns) / 1000000));

	failed |= wm_json_put(o, "processing_time_ms",
			      json_integer(snap->processing_ns / 1000000));
	failed |= wm_json_put(
		o, "job_name",
		wm_json_text(topo->job.name != NULL ? topo->job.name : ""));
	failed |= wm_json_put(o, "task_name",
			      wm_json_text(topo->stages[sub->stage].name));
	failed |= wm_json_put(o, "subtask_index", json_integer(sub->index));
	return wm_json_done(o, failed);
}

static const char *
cause_name(enum wm_blame_cause c)
{
	switch (c) {
	case WM_BLAME_SILENCE:
		return "silence";
	case WM_BLAME_BACKPRESSURE:
		return "backpressure";
	case WM_BLAME_STARVED:
		return "starved";
	case WM_BLAME_BEHIND:
		return "behind";
	case WM_BLAME_SLOW:
		return "lowest";
	case WM_BLAME_NONE:
		break;
	}
	return "none";
}

/* "heldBy": the blame chain's end, or null when nothing holds it. */
static json_t *
held_by(const struct wm_topology *topo, const struct wm_plan *plan,
	const struct wm_snapshot *snap, uint32_t id)
{
	struct wm_blame bl;
	char name[128];
	json_t *o;
	int failed;

	wm_snapshot_blame(snap, plan, id, &bl);
	if (bl.cause == WM_BLAME_NONE)
		return json_null();
	uint32_t end = bl.hop[bl.n_hops - 1];

	o = json_object();
	failed = wm_json_put(o, "subtask",
			     wm_json_text(wm_plan_subtask_name(
				     plan, topo, end, name, sizeof(name))));
	if (bl.partition != UINT32_MAX)
		failed |= wm_json_put(
			o, "split",
			wm_json_text(wm_source_split_id(
				&topo->stages[plan->subtasks[end].stage],
				bl.partition, name, sizeof(name))));
	failed |= wm_json_put(o, "cause", wm_json_text(cause_name(bl.cause)));
	failed |=
		wm_json_put(o, "unmovedMs", json_integer(bl.for_ns / 1000000));
	return wm_json_done(o, failed);
}

/* "inputs": each input channel, from whom, its watermark, idle and
 * aligned. */
static json_t *
inputs(const struct wm_topology *topo, const struct wm_plan *plan,
       const struct wm_snap_subtask *s)
{
	json_t *a = json_array();
	char name[128];
	int failed = 0;

	for (uint32_t c = 0; c < s->n_channels; c++) {
		const struct wm_snap_channel *ch = &s->channels[c];
		json_t *o = json_object();

		failed |= wm_json_put(o, "channel", json_integer(c));
		failed |= wm_json_put(
			o, "from",
			wm_json_text(wm_plan_subtask_name(
				plan, topo, ch->producer, name, sizeof(name))));
		failed |= wm_json_put(o, "currentInputWatermark",
				      json_integer(ch->watermark));
		failed |= wm_json_put(o, "idle", json_boolean(ch->idle));
		failed |= wm_json_put(o, "aligned", json_boolean(ch->aligned));
		failed |= wm_json_push(a, o);
	}
	return wm_json_done(a, failed);
}

/* The object of subtask id's line. */
static json_t *
subtask_object(const struct wm_topology *topo, const struct wm_plan *plan,
	       const struct wm_snapshot *snap, int64_t start_real_ns,
	       uint32_t id)
{
	const struct wm_snap_subtask *s = &snap->subtasks[id];
	const struct wm_plan_subtask *sub = &plan->subtasks[id];
	bool source = sub->n_inputs == 0;
	json_t *o = head(topo, plan, snap, start_real_ns, id);
	int64_t lag;
	int failed;

	failed = wm_json_put(o, "currentOutputWatermark",
			     json_integer(s->watermark));
	failed |= wm_json_put(
		o, "currentInputWatermark",
		json_integer(wm_snapshot_input_watermark(s, 0, s->n_channels)));
	if (sub->n_ports == 2) {
		failed |= wm_json_put(
			o, "currentInput1Watermark",
			json_integer(wm_snapshot_input_watermark(
				s, sub->ports[0].first, sub->ports[0].width)));
		failed |= wm_json_put(
			o, "currentInput2Watermark",
			json_integer(wm_snapshot_input_watermark(
				s, sub->ports[1].first, sub->ports[1].width)));
	}
	failed |= wm_json_put(o, "numRecordsIn", wm_json_u64(s->records_in));
	failed |= wm_json_put(o, "numRecordsOut", wm_json_u64(s->records_out));
	failed |= wm_json_put(o, "numLateRecordsDropped",
			      wm_json_u64(s->late_dropped));
	failed |=
		put_per_second(o, "numRecordsInPerSecond", s->records_in_per_s);
	failed |= put_per_second(o, "numRecordsOutPerSecond",
				 s->records_out_per_s);
	failed |= put_per_second(o, "idleTimeMsPerSecond", s->idle_ms_per_s);
	failed |= put_per_second(o, "busyTimeMsPerSecond", s->busy_ms_per_s);
	failed |= put_per_second(o, "backPressuredTimeMsPerSecond",
				 s->backpressured_ms_per_s);
	if (source && wm_snap_watermark_lag(snap, s, &lag))
		failed |= wm_json_put(o, "watermarkLag", json_integer(lag));
	if (source && s->emit_lag_ms != INT64_MIN)
		failed |= wm_json_put(o, "currentEmitEventTimeLag",
				      json_integer(s->emit_lag_ms));
	failed |= wm_json_put(o, "idle", json_boolean(s->idle));
	if (s->newest_event_time == WM_TS_MIN || s->watermark == WM_TS_MIN ||
	    s->watermark == WM_TS_MAX)
		failed |= wm_json_put(o, "lagBehindNewestMs", json_null());
	else
		failed |= wm_json_put(
			o, "lagBehindNewestMs",
			json_integer(s->newest_event_time > s->watermark
					     ? s->newest_event_time -
						       s->watermark
					     : 0));
	failed |= wm_json_put(o, "inputs", inputs(topo, plan, s));
	failed |= wm_json_put(o, "heldBy", held_by(topo, plan, snap, id));
	return wm_json_done(o, failed);
}

/* The object of the line of partition p of source subtask id. */
static json_t *
partition_object(const struct wm_topology *topo, const struct wm_plan *plan,
		 const struct wm_snapshot *snap, int64_t start_real_ns,
		 uint32_t id, const struct wm_snap_partition *p)
{
	const struct wm_stage *st = &topo->stages[plan->subtasks[id].stage];
	int64_t active = snap->processing_ns - p->idle_ns - p->paused_ns;
	json_t *o = head(topo, plan, snap, start_real_ns, id);
	char split[128];
	int failed;

	failed = wm_json_put(o, "split",
			     wm_json_text(wm_source_split_id(
				     st, p->partition, split, sizeof(split))));
	failed |=
		wm_json_put(o, "currentWatermark", json_integer(p->watermark));
	failed |=
		put_per_second(o, "activeTimeMsPerSecond", p->active_ms_per_s);
	failed |=
		put_per_second(o, "pausedTimeMsPerSecond", p->paused_ms_per_s);
	failed |= put_per_second(o, "idleTimeMsPerSecond", p->idle_ms_per_s);
	failed |=
		wm_json_put(o, "accumulatedActiveTimeMs",
			    json_integer((active > 0 ? active : 0) / 1000000));
	failed |= wm_json_put(o, "accumulatedPausedTimeMs",
			      json_integer(p->paused_ns / 1000000));
	failed |= wm_json_put(o, "accumulatedIdleTimeMs",
			      json_integer(p->idle_ns / 1000000));
	failed |= wm_json_put(o, "records", wm_json_u64(p->records));
	failed |= wm_json_put(o, "idle", json_boolean(p->idle));
	return wm_json_done(o, failed);
}

/* `o` (NULL: it could not be made) as a line of f, and freed, and the
 * arena it was made in (wm_timeline_write()) closed: 0 or -1. */
static int
write_line(FILE *f, json_t *o)
{
	int r = o != NULL ? wm_json_write_line(f, o) : -1;

	json_decref(o);
	wm_json_arena_close();
	return r;
}

/* The line that says how many samples this writer missed. */
static json_t *
missed_object(const struct wm_snapshot *snap, int64_t start_real_ns,
	      uint64_t missed)
{
	json_t *o = json_object();
	int failed = wm_json_put(
		o, "t_ms",
		json_integer((snap->real_ns - start_real_ns) / 1000000));

	failed |= wm_json_put(o, "samples_missed", wm_json_u64(missed));
	return wm_json_done(o, failed);
}

/*
 * Each line's object is made in this thread's arena (lib/json_arena.h),
 * opened before the object and closed by write_line() once it is written
 * and freed: no json_t outlives its line. From the arena a line takes 11 %
 * fewer instructions than from malloc (doc/performance.md section 9.36).
 */
int
wm_timeline_write(FILE *f, const struct wm_topology *topo,
		  const struct wm_plan *plan, const struct wm_snapshot *snap,
		  int64_t start_real_ns, uint64_t missed)
{
	if (missed > 0) {
		wm_json_arena_open();
		if (write_line(f, missed_object(snap, start_real_ns, missed)) !=
		    0)
			return -1;
	}
	for (uint32_t id = 0; id < snap->n_subtasks; id++) {
		const struct wm_snap_subtask *s = &snap->subtasks[id];

		wm_json_arena_open();
		if (write_line(f, subtask_object(topo, plan, snap,
						 start_real_ns, id)) != 0)
			return -1;
		for (uint32_t i = 0; i < s->n_partitions; i++) {
			wm_json_arena_open();
			if (write_line(f,
				       partition_object(
					       topo, plan, snap, start_real_ns,
					       id, &s->partitions[i])) != 0)
				return -1;
		}
	}
	return 0;
}
