/*
 * timeline.c
 *	Snapshots as JSON lines (timeline.h).
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>

#include "base/time.h"
#include "runtime/observe/timeline.h"

/* A figure per second, or null when unknown. */
static void
per_second(FILE *f, const char *name, double v)
{
	if (v < 0 || !isfinite(v))
		fprintf(f, ",\"%s\":null", name);
	else
		fprintf(f, ",\"%s\":%.1f", name, v);
}

/* A name from the topology: its characters are the topology's (letters,
 * digits, -_.), but never trust that here. */
void
wm_timeline_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* The fields every object of a subtask starts with. */
static void
head(FILE *f, const struct wm_topology *topo, const struct wm_plan *plan,
     const struct wm_snapshot *snap, int64_t start_real_ns, uint32_t id)
{
	const struct wm_plan_subtask *sub = &plan->subtasks[id];

	fprintf(f, "{\"t_ms\":%" PRId64 ",\"processing_time_ms\":%" PRId64,
		(snap->real_ns - start_real_ns) / 1000000,
		snap->processing_ns / 1000000);
	fprintf(f, ",\"job_name\":");
	wm_timeline_json_string(f,
				topo->job.name != NULL ? topo->job.name : "");
	fprintf(f, ",\"task_name\":");
	wm_timeline_json_string(f, topo->stages[sub->stage].name);
	fprintf(f, ",\"subtask_index\":%u", sub->index);
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

static void
held_by(FILE *f, const struct wm_topology *topo, const struct wm_plan *plan,
	const struct wm_snapshot *snap, uint32_t id)
{
	struct wm_blame bl;
	char name[128];

	wm_snapshot_blame(snap, plan, id, &bl);
	if (bl.cause == WM_BLAME_NONE) {
		fprintf(f, ",\"heldBy\":null");
		return;
	}
	uint32_t end = bl.hop[bl.n_hops - 1];

	fprintf(f, ",\"heldBy\":{\"subtask\":");
	wm_timeline_json_string(
		f, wm_plan_subtask_name(plan, topo, end, name, sizeof(name)));
	if (bl.partition != UINT32_MAX) {
		fprintf(f, ",\"split\":");
		wm_timeline_json_string(
			f, wm_source_split_id(
				   &topo->stages[plan->subtasks[end].stage],
				   bl.partition, name, sizeof(name)));
	}
	fprintf(f, ",\"cause\":\"%s\",\"unmovedMs\":%" PRId64 "}",
		cause_name(bl.cause), bl.for_ns / 1000000);
}

static void
inputs(FILE *f, const struct wm_topology *topo, const struct wm_plan *plan,
       const struct wm_snap_subtask *s)
{
	char name[128];

	fprintf(f, ",\"inputs\":[");
	for (uint32_t c = 0; c < s->n_channels; c++) {
		const struct wm_snap_channel *ch = &s->channels[c];

		fprintf(f, "%s{\"channel\":%u,\"from\":", c ? "," : "", c);
		wm_timeline_json_string(
			f, wm_plan_subtask_name(plan, topo, ch->producer, name,
						sizeof(name)));
		fprintf(f,
			",\"currentInputWatermark\":%" PRId64
			",\"idle\":%s,\"aligned\":%s}",
			ch->watermark, ch->idle ? "true" : "false",
			ch->aligned ? "true" : "false");
	}
	fputc(']', f);
}

static void
subtask_line(FILE *f, const struct wm_topology *topo,
	     const struct wm_plan *plan, const struct wm_snapshot *snap,
	     int64_t start_real_ns, uint32_t id)
{
	const struct wm_snap_subtask *s = &snap->subtasks[id];
	bool source = plan->subtasks[id].n_inputs == 0;
	int64_t lag;

	head(f, topo, plan, snap, start_real_ns, id);
	const struct wm_plan_subtask *sub = &plan->subtasks[id];

	fprintf(f,
		",\"currentOutputWatermark\":%" PRId64
		",\"currentInputWatermark\":%" PRId64,
		s->watermark, wm_snapshot_input_watermark(s, 0, s->n_channels));
	for (uint32_t k = 0; sub->n_ports == 2 && k < 2; k++)
		fprintf(f, ",\"currentInput%uWatermark\":%" PRId64, k + 1,
			wm_snapshot_input_watermark(s, sub->ports[k].first,
						    sub->ports[k].width));
	fprintf(f,
		",\"numRecordsIn\":%" PRIu64 ",\"numRecordsOut\":%" PRIu64
		",\"numLateRecordsDropped\":%" PRIu64,
		s->records_in, s->records_out, s->late_dropped);
	per_second(f, "numRecordsInPerSecond", s->records_in_per_s);
	per_second(f, "numRecordsOutPerSecond", s->records_out_per_s);
	per_second(f, "idleTimeMsPerSecond", s->idle_ms_per_s);
	per_second(f, "busyTimeMsPerSecond", s->busy_ms_per_s);
	per_second(f, "backPressuredTimeMsPerSecond",
		   s->backpressured_ms_per_s);
	if (source && wm_snap_watermark_lag(snap, s, &lag))
		fprintf(f, ",\"watermarkLag\":%" PRId64, lag);
	if (source && s->emit_lag_ms != INT64_MIN)
		fprintf(f, ",\"currentEmitEventTimeLag\":%" PRId64,
			s->emit_lag_ms);
	fprintf(f, ",\"idle\":%s", s->idle ? "true" : "false");
	if (s->newest_event_time == WM_TS_MIN || s->watermark == WM_TS_MIN ||
	    s->watermark == WM_TS_MAX)
		fprintf(f, ",\"lagBehindNewestMs\":null");
	else
		fprintf(f, ",\"lagBehindNewestMs\":%" PRId64,
			s->newest_event_time > s->watermark
				? s->newest_event_time - s->watermark
				: 0);
	inputs(f, topo, plan, s);
	held_by(f, topo, plan, snap, id);
	fprintf(f, "}\n");
}

static void
partition_lines(FILE *f, const struct wm_topology *topo,
		const struct wm_plan *plan, const struct wm_snapshot *snap,
		int64_t start_real_ns, uint32_t id)
{
	const struct wm_snap_subtask *s = &snap->subtasks[id];
	const struct wm_stage *st = &topo->stages[plan->subtasks[id].stage];

	for (uint32_t i = 0; i < s->n_partitions; i++) {
		const struct wm_snap_partition *p = &s->partitions[i];
		int64_t active =
			snap->processing_ns - p->idle_ns - p->paused_ns;
		char split[128];

		head(f, topo, plan, snap, start_real_ns, id);
		fprintf(f, ",\"split\":");
		wm_timeline_json_string(f, wm_source_split_id(st, p->partition,
							      split,
							      sizeof(split)));
		fprintf(f, ",\"currentWatermark\":%" PRId64, p->watermark);
		per_second(f, "activeTimeMsPerSecond", p->active_ms_per_s);
		per_second(f, "pausedTimeMsPerSecond", p->paused_ms_per_s);
		per_second(f, "idleTimeMsPerSecond", p->idle_ms_per_s);
		fprintf(f,
			",\"accumulatedActiveTimeMs\":%" PRId64
			",\"accumulatedPausedTimeMs\":%" PRId64
			",\"accumulatedIdleTimeMs\":%" PRId64
			",\"records\":%" PRIu64 ",\"idle\":%s}\n",
			(active > 0 ? active : 0) / 1000000,
			p->paused_ns / 1000000, p->idle_ns / 1000000,
			p->records, p->idle ? "true" : "false");
	}
}

void
wm_timeline_write(FILE *f, const struct wm_topology *topo,
		  const struct wm_plan *plan, const struct wm_snapshot *snap,
		  int64_t start_real_ns, uint64_t missed)
{
	if (missed > 0)
		fprintf(f,
			"{\"t_ms\":%" PRId64 ",\"samples_missed\":%" PRIu64
			"}\n",
			(snap->real_ns - start_real_ns) / 1000000, missed);
	for (uint32_t id = 0; id < snap->n_subtasks; id++) {
		subtask_line(f, topo, plan, snap, start_real_ns, id);
		partition_lines(f, topo, plan, snap, start_real_ns, id);
	}
}
