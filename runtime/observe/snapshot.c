/*
 * snapshot.c
 *	Reading the metrics blocks into a snapshot, the figures two readings
 *	give, and the blame chain (snapshot.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/observe/snapshot.h"

/* Room for one snapshot of `plan`: the subtasks, then every subtask's
 * channels, then its partitions, in one allocation. */
static size_t
snapshot_bytes(const struct wm_plan *plan)
{
	size_t bytes = sizeof(struct wm_snapshot) +
		       plan->n_subtasks * sizeof(struct wm_snap_subtask);

	for (uint32_t id = 0; id < plan->n_subtasks; id++)
		bytes += plan->subtasks[id].n_inputs *
				 sizeof(struct wm_snap_channel) +
			 plan->subtasks[id].n_partitions *
				 sizeof(struct wm_snap_partition);
	return bytes;
}

/* Per second of real time between two readings (Flink's rates are per
 * wall-clock second, whatever the job's speed); unknown without the
 * earlier one or without time between them. */
static double
per_second(uint64_t now, uint64_t before, int64_t dt_ns, bool have_before)
{
	if (!have_before || dt_ns <= 0 || now < before)
		return WM_SNAP_UNKNOWN;
	return (double)(now - before) * 1e9 / (double)dt_ns;
}

/* The time split over the interval: milliseconds per second of real time,
 * busy being the rest (Flink: busy = 1000 - idle - back-pressured). */
static void
time_split(struct wm_snap_subtask *s, const struct wm_subtask_metrics *m,
	   const struct wm_snap_subtask *before, int64_t real_ns,
	   int64_t dt_real_ns)
{
	struct wm_time_totals tot;

	s->idle_ms_per_s = s->backpressured_ms_per_s = s->busy_ms_per_s =
		WM_SNAP_UNKNOWN;
	s->idle_total_ns = s->backpressured_total_ns = -1;
	if (!wm_time_split_read(&m->time, real_ns, &tot))
		return;
	s->idle_total_ns = tot.idle_ns;
	s->backpressured_total_ns = tot.backpressured_ns;
	if (before == NULL || before->idle_total_ns < 0 || dt_real_ns <= 0)
		return;

	double idle = (double)(tot.idle_ns - before->idle_total_ns);
	double bp =
		(double)(tot.backpressured_ns - before->backpressured_total_ns);
	double dt = (double)dt_real_ns;

	/* A wait is counted from its start as the writer read its clock;
	 * clamp what a reading between two clocks may add or take. */
	idle = idle < 0 ? 0 : idle > dt ? dt : idle;
	bp = bp < 0 ? 0 : bp > dt - idle ? dt - idle : bp;
	s->idle_ms_per_s = idle * 1000.0 / dt;
	s->backpressured_ms_per_s = bp * 1000.0 / dt;
	s->busy_ms_per_s =
		1000.0 - s->idle_ms_per_s - s->backpressured_ms_per_s;
}

/* A partition's idle and paused time per second of processing time
 * between two readings, active being the rest. */
static void
partition_split(struct wm_snap_partition *p, const struct wm_snap_partition *b,
		int64_t dt_processing_ns)
{
	p->idle_ms_per_s = p->paused_ms_per_s = p->active_ms_per_s =
		WM_SNAP_UNKNOWN;
	if (b == NULL || dt_processing_ns <= 0)
		return;

	double dt = (double)dt_processing_ns;
	double idle = (double)(p->idle_ns - b->idle_ns);
	double paused = (double)(p->paused_ns - b->paused_ns);

	idle = idle < 0 ? 0 : idle > dt ? dt : idle;
	paused = paused < 0 ? 0 : paused > dt - idle ? dt - idle : paused;
	p->idle_ms_per_s = idle * 1000.0 / dt;
	p->paused_ms_per_s = paused * 1000.0 / dt;
	p->active_ms_per_s = 1000.0 - p->idle_ms_per_s - p->paused_ms_per_s;
}

static void
read_partitions(struct wm_snap_subtask *s,
		const struct wm_partition_metrics *parts,
		const struct wm_snap_subtask *before, int64_t dt_ns,
		int64_t dt_processing_ns)
{
	for (uint32_t i = 0; i < s->n_partitions; i++) {
		const struct wm_partition_metrics *pm = &parts[i];
		struct wm_snap_partition *p = &s->partitions[i];
		const struct wm_snap_partition *b =
			before != NULL && i < before->n_partitions
				? &before->partitions[i]
				: NULL;

		p->partition = WM_METRIC_GET(pm->partition);
		p->watermark = WM_METRIC_GET(pm->progress.watermark);
		p->idle = WM_METRIC_GET(pm->progress.idle) != 0;
		p->since_ns = WM_METRIC_GET(pm->progress.since_ns);
		p->records = WM_METRIC_GET(pm->records);
		p->idle_ns = WM_METRIC_GET(pm->progress.idle_ns);
		p->paused_ns = WM_METRIC_GET(pm->alignment_paused_ns);
		p->next_due_ns = WM_METRIC_GET(pm->next_due_ns);
		if (b != NULL && b->partition != p->partition)
			b = NULL;
		partition_split(p, b, dt_processing_ns);
		p->records_per_s = per_second(p->records, b ? b->records : 0,
					      dt_ns, b != NULL);
	}
}

static void
read_channels(struct wm_snap_subtask *s, const struct wm_plan *plan,
	      uint32_t id, const struct wm_subtask_metrics *m)
{
	const struct wm_plan_subtask *sub = &plan->subtasks[id];
	const struct wm_channel_metrics *cm = m->channels;
	uint32_t published = WM_METRIC_GET(m->n_channels);

	for (uint32_t c = 0; c < s->n_channels; c++) {
		struct wm_snap_channel *ch = &s->channels[c];

		ch->producer = plan->channels[sub->inputs[c]].producer;
		/* A subtask that has not published yet shows its channels
		 * as they start: MIN, ACTIVE, not aligned. */
		ch->watermark = c < published ? WM_METRIC_GET(cm[c].watermark)
					      : WM_TS_MIN;
		ch->idle = c < published && WM_METRIC_GET(cm[c].idle) != 0;
		ch->aligned =
			c < published && WM_METRIC_GET(cm[c].aligned) != 0;
	}
}

/* A process's CPU wait in all, and per second since the reading before. */
static void
cpu_wait(struct wm_snap_subtask *s, const struct wm_snap_subtask *b,
	 int64_t total_ns, int64_t dt_real_ns)
{
	s->cpu_wait_ns = total_ns;
	s->cpu_wait_ms_per_s =
		b != NULL && dt_real_ns > 0 && total_ns >= b->cpu_wait_ns
			? (double)(total_ns - b->cpu_wait_ns) * 1000.0 /
				  (double)dt_real_ns
			: WM_SNAP_UNKNOWN;
}

void
wm_snapshot_set_cpu_wait(struct wm_snapshot *snap,
			 const struct wm_snapshot *prev, uint32_t id,
			 int64_t cpu_wait_ns)
{
	if (id >= snap->n_subtasks)
		return;
	cpu_wait(&snap->subtasks[id],
		 prev != NULL && id < prev->n_subtasks ? &prev->subtasks[id]
						       : NULL,
		 cpu_wait_ns, prev != NULL ? snap->real_ns - prev->real_ns : 0);
}

/* How long a record due at `due_ns` has been due at `now_ns`; 0 if not. */
static int64_t
overdue(int64_t due_ns, int64_t now_ns)
{
	int64_t late;

	if (due_ns >= now_ns || __builtin_sub_overflow(now_ns, due_ns, &late))
		return 0;
	return late;
}

static void
read_subtask(struct wm_snap_subtask *s, const struct wm_plan *plan, uint32_t id,
	     const void *metrics, const struct wm_snapshot *prev,
	     struct wm_snapshot *snap)
{
	const struct wm_subtask_metrics *m = wm_plan_block(plan, metrics, id);
	const struct wm_snap_subtask *b = prev != NULL && id < prev->n_subtasks
						  ? &prev->subtasks[id]
						  : NULL;
	int64_t dt = prev != NULL ? snap->real_ns - prev->real_ns : 0;

	s->watermark = WM_METRIC_GET(m->output.watermark);
	s->idle = WM_METRIC_GET(m->output.idle) != 0;
	s->since_ns = WM_METRIC_GET(m->output.since_ns);
	s->finished =
		atomic_load_explicit(&m->finished, memory_order_acquire) != 0;
	s->newest_event_time = WM_METRIC_GET(m->newest_event_time);
	s->clock_zero_ms = WM_METRIC_GET(m->clock_zero_ms);
	s->emit_lag_ms = WM_METRIC_GET(m->emit_lag_ms);
	s->records_in = WM_METRIC_GET(m->records_in);
	s->records_out = WM_METRIC_GET(m->records_out);
	s->late_dropped = WM_METRIC_GET(m->late_dropped);
	s->records_in_per_s =
		per_second(s->records_in, b ? b->records_in : 0, dt, b != NULL);
	s->records_out_per_s = per_second(
		s->records_out, b ? b->records_out : 0, dt, b != NULL);
	s->held_by = WM_METRIC_GET(m->held_by_now);
	s->caught_up_ns = WM_METRIC_GET(m->caught_up_ns);
	s->overdue_ns = overdue(WM_METRIC_GET(m->next_record_due_ns),
				snap->processing_ns);
	s->pid = WM_METRIC_GET(m->pid);
	s->source_outages = WM_METRIC_GET(m->source_outages);
	s->source_unreachable = WM_METRIC_GET(m->source_unreachable) != 0;
	cpu_wait(s, b, WM_METRIC_GET(m->cpu_wait_ns), dt);
	time_split(s, m, b, snap->real_ns,
		   prev != NULL ? snap->real_ns - prev->real_ns : 0);
	read_channels(s, plan, id, m);
	read_partitions(s, wm_plan_partitions(plan, metrics, id), b, dt,
			prev != NULL ? snap->processing_ns - prev->processing_ns
				     : 0);
	/* Zero but in window subtasks. */
	for (unsigned k = 0; k < WM_HISTOGRAM_BUCKETS; k++)
		snap->fire_delays[k] += WM_METRIC_GET(m->fire_delays[k]);
	for (unsigned p = 0; p < WM_METRICS_LATE_PARTITIONS; p++)
		snap->late_by_partition[p] +=
			WM_METRIC_GET(m->late_by_partition[p]);
}

struct wm_snapshot *
wm_snapshot_take(const struct wm_plan *plan, const void *metrics,
		 const struct wm_snapshot *prev, int64_t real_ns,
		 int64_t processing_ns)
{
	struct wm_snapshot *snap = calloc(1, snapshot_bytes(plan));
	char *room;

	if (snap == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	snap->seq = prev != NULL ? prev->seq + 1 : 0;
	snap->real_ns = real_ns;
	snap->processing_ns = processing_ns;
	snap->noise_ns = prev != NULL ? 0 : INT64_MAX;
	snap->n_subtasks = plan->n_subtasks;
	snap->subtasks = (struct wm_snap_subtask *)(snap + 1);
	room = (char *)(snap->subtasks + plan->n_subtasks);
	for (uint32_t id = 0; id < plan->n_subtasks; id++) {
		const struct wm_subtask_metrics *m =
			wm_plan_block(plan, metrics, id);
		struct wm_snap_subtask *s = &snap->subtasks[id];
		uint32_t np = WM_METRIC_GET(m->n_partitions);

		/* The plan sized the room; a block that has not published
		 * its partitions yet shows fewer. */
		s->n_channels = plan->subtasks[id].n_inputs;
		s->channels = (struct wm_snap_channel *)room;
		room += s->n_channels * sizeof(struct wm_snap_channel);
		s->n_partitions = np < plan->subtasks[id].n_partitions
					  ? np
					  : plan->subtasks[id].n_partitions;
		s->partitions = (struct wm_snap_partition *)room;
		room += plan->subtasks[id].n_partitions *
			sizeof(struct wm_snap_partition);
		read_subtask(s, plan, id, metrics, prev, snap);
		/* The noise as the run measured it so far (metrics.h). */
		if (prev != NULL &&
		    WM_METRIC_GET(m->late_max_ns) > snap->noise_ns)
			snap->noise_ns = WM_METRIC_GET(m->late_max_ns);
	}
	return snap;
}

void
wm_snapshot_free(struct wm_snapshot *snap)
{
	free(snap);
}

/* The partition of source subtask `s` with id `partition`, or NULL. */
static const struct wm_snap_partition *
find_partition(const struct wm_snap_subtask *s, uint32_t partition)
{
	for (uint32_t i = 0; i < s->n_partitions; i++)
		if (s->partitions[i].partition == partition)
			return &s->partitions[i];
	return NULL;
}

/* Whether partition `p` delivered nothing over the last interval and its
 * record source says its next record is not due yet: then none was due
 * over the interval either (a due record stays due until delivered), and
 * no CPU, room or scheduling would have brought one. */
static bool
nothing_due(const struct wm_snapshot *snap, const struct wm_snap_partition *p)
{
	return p != NULL && p->records_per_s == 0.0 &&
	       p->next_due_ns != INT64_MIN &&
	       p->next_due_ns > snap->processing_ns;
}

/* Why source subtask `s` holds back with partition `p` at its minimum.
 * A partition with nothing due, by its records' schedule, is silent,
 * whatever its process did: a process that waits for a CPU half of
 * each second must not make a silence look like starvation. Otherwise
 * (a due record not delivered, or a source that cannot say), a process
 * that waited for a CPU most of the last interval could do nothing else
 * (its partitions look silent too), so that comes first; then waiting
 * for room most of the time is back-pressure, whatever its partitions
 * do. A subtask that sent nothing over the interval while its next
 * record has been due for longer than the scheduling noise did not run,
 * for whatever reason the CPU wait does not show (a page fault on a
 * loaded disk, a stop), and its partitions only look silent; it is
 * behind. Otherwise a partition that delivered nothing over the interval
 * is silent: its subtask ran, and had nothing of it due. Without two
 * readings, none is known. */
static enum wm_blame_cause
source_cause(const struct wm_snapshot *snap, const struct wm_snap_subtask *s,
	     const struct wm_snap_partition *p)
{
	if (nothing_due(snap, p))
		return WM_BLAME_SILENCE;
	if (s->cpu_wait_ms_per_s >= 500.0)
		return WM_BLAME_STARVED;
	if (s->backpressured_ms_per_s >= 500.0)
		return WM_BLAME_BACKPRESSURE;
	if (s->records_out_per_s == 0.0 && s->overdue_ns > snap->noise_ns)
		return WM_BLAME_BEHIND;
	if (p != NULL && p->records_per_s == 0.0)
		return WM_BLAME_SILENCE;
	return WM_BLAME_SLOW;
}

void
wm_snapshot_blame(const struct wm_snapshot *snap, const struct wm_plan *plan,
		  uint32_t id, struct wm_blame *out)
{
	uint32_t at = id;

	memset(out, 0, sizeof(*out));
	out->partition = UINT32_MAX;
	out->cause = WM_BLAME_NONE;
	while (out->n_hops < WM_BLAME_MAX_HOPS && at < snap->n_subtasks) {
		const struct wm_snap_subtask *s = &snap->subtasks[at];
		uint32_t hop = out->n_hops++;

		out->hop[hop] = at;
		out->channel[hop] = UINT32_MAX;
		/* IDLE holds nothing: the valves downstream skip it. */
		if (s->idle || s->held_by == UINT32_MAX)
			break;
		if (plan->subtasks[at].n_inputs == 0) {
			out->partition = s->held_by;
			out->cause = source_cause(
				snap, s, find_partition(s, s->held_by));
			break;
		}
		if (s->held_by >= s->n_channels)
			break; /* a figure from a block not yet published */
		out->channel[hop] = s->held_by;
		at = s->channels[s->held_by].producer;
	}
	if (out->cause != WM_BLAME_NONE)
		out->for_ns = snap->processing_ns - snap->subtasks[id].since_ns;
}

wm_ts_t
wm_snapshot_input_watermark(const struct wm_snap_subtask *s, uint32_t first,
			    uint32_t n)
{
	wm_ts_t min = WM_TS_MAX;

	if (s->n_channels == 0)
		return s->watermark;
	for (uint32_t c = first; c < first + n && c < s->n_channels; c++)
		if (s->channels[c].watermark < min)
			min = s->channels[c].watermark;
	return min;
}

int64_t
wm_snapshot_hold(const struct wm_snapshot *snap, bool *over)
{
	int64_t last = snap->restored_ns;

	*over = true;
	if (snap->restarts == 0)
		return -1;
	/* A window with nothing to come back to says 0 (worker.c). */
	for (uint32_t id = 0; id < snap->n_subtasks; id++) {
		int64_t at = snap->subtasks[id].caught_up_ns;

		if (at < 0)
			*over = false;
		else if (at > last)
			last = at;
	}
	return *over ? last - snap->restored_ns
		     : snap->processing_ns - snap->restored_ns;
}
