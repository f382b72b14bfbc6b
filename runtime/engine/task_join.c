/*
 * task_join.c
 *	A join subtask: its join, an interval join (operators/
 *	interval_join.h) or a window join (operators/window_join.h), between
 *	the task's two valves, combined as a two-input operator (task.c),
 *	and its output: the pairs to the chained sinks, the watermarks and
 *	statuses to its edges. Input 0 is the left side, input 1 the right
 *	(topology.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/assert.h"
#include "lib/snap.h"
#include "runtime/engine/task_out.h"
#include "runtime/engine/task_state.h"

/* One pair, either operator's, to the chained sinks, and as a record
 * (its key and timestamp, the value [join] value says) down the edges to
 * the stages that read the join. Its partition is none of a source's. */
static void
emit_pair(struct task_join *j, const struct wm_join_result *r)
{
	struct wm_task *t = j->task;

	t->out->pair(t->out, r, j->emitting_watermark, t->now_ns / 1000000);
	j->pairs++;
	t->counters.records_out++; /* numRecordsOut: what it emitted */
	if (t->n_edges > 0) {
		enum wm_join_value v = t->stage->u.join.value;
		struct wm_record rec = {
			.ts = r->timestamp,
			.key = r->key,
			.value = v == WM_JOIN_VALUE_LEFT ? r->left_value
				 : v == WM_JOIN_VALUE_RIGHT
					 ? r->right_value
					 : (int64_t)((uint64_t)r->left_value +
						     (uint64_t)r->right_value),
			.flags = j->key_flags,
			.partition = 0,
		};

		wm_task_send_result(t, &rec);
	}
}

static void
interval_pair(struct wm_interval_join_output *o, const struct wm_join_result *r)
{
	emit_pair(wm_container_of(o, struct task_join, out), r);
}

/* An interval join's late record, to its side's late output; Flink
 * counts a side output's records in numRecordsOut. */
static void
interval_late(struct wm_interval_join_output *o, enum wm_join_side side,
	      const struct wm_record *r)
{
	struct task_join *j = wm_container_of(o, struct task_join, out);

	j->task->out->late(j->task->out, side, r);
	j->late_out++;
	j->task->counters.records_out++;
}

static void
window_pair(struct wm_window_join_output *o, const struct wm_join_result *r)
{
	emit_pair(wm_container_of(o, struct task_join, windows_out), r);
}

/* The join's own watermarks and statuses go to the edges. */
static void
interval_base_watermark(struct wm_output *o, wm_ts_t w)
{
	struct task_join *j = wm_container_of(o, struct task_join, out.base);

	wm_output_watermark(&j->task->edges_out, w);
}

static void
interval_base_status(struct wm_output *o, enum wm_status s)
{
	struct task_join *j = wm_container_of(o, struct task_join, out.base);

	wm_output_status(&j->task->edges_out, s);
}

static void
window_base_watermark(struct wm_output *o, wm_ts_t w)
{
	struct task_join *j =
		wm_container_of(o, struct task_join, windows_out.base);

	wm_output_watermark(&j->task->edges_out, w);
}

static void
window_base_status(struct wm_output *o, enum wm_status s)
{
	struct task_join *j =
		wm_container_of(o, struct task_join, windows_out.base);

	wm_output_status(&j->task->edges_out, s);
}

int
wm_task_init_join(struct wm_task *t)
{
	const struct wm_join_stage_conf *c = &t->stage->u.join;
	struct task_join *j = calloc(1, sizeof(*j));
	const char *why;

	if (j == NULL)
		return -ENOMEM;
	t->join = j;
	j->task = t;
	j->late.max_ms = -1;
	j->emitting_watermark = WM_TS_MIN;
	if (c->windowed) {
		j->windows = wm_window_join_new(&c->window, &why);
		if (j->windows == NULL)
			return -errno;
		j->windows_out.pair = window_pair;
		j->windows_out.base.watermark = window_base_watermark;
		j->windows_out.base.status = window_base_status;
		return 0;
	}
	j->op = wm_interval_join_new(&c->op, &why);
	if (j->op == NULL)
		return -errno;
	j->out.pair = interval_pair;
	j->out.late = interval_late;
	j->out.base.watermark = interval_base_watermark;
	j->out.base.status = interval_base_status;
	return 0;
}

void
wm_task_free_join(struct wm_task *t)
{
	if (t->join == NULL)
		return;
	wm_interval_join_free(t->join->op);
	wm_window_join_free(t->join->windows);
	free(t->join);
	t->join = NULL;
}

/* The operator's watermark. */
static wm_ts_t
join_watermark(const struct task_join *j)
{
	return j->windows != NULL ? wm_window_join_watermark(j->windows)
				  : wm_interval_join_watermark(j->op);
}

struct join_side_figures
wm_task_join_side(const struct task_join *j, enum wm_join_side side)
{
	if (j->windows != NULL) {
		const struct wm_window_join_side_counters *c =
			&wm_window_join_counters(j->windows)->side[side];

		return (struct join_side_figures){
			c->records_in, c->records_kept, c->late_records_dropped,
			0, c->records_ignored + c->records_rejected};
	}
	const struct wm_interval_join_side_counters *c =
		&wm_interval_join_counters(j->op)->side[side];

	return (struct join_side_figures){
		c->records_in, c->records_kept, c->late_records_dropped,
		c->late_records_side_output, c->records_rejected};
}

/* A record found no memory: lost with the job, neither taken nor
 * received (the summary counts it in flight), and why. */
static __attribute__((cold, noinline)) int
out_of_memory(struct wm_task *t, uint32_t input, const struct wm_record *r)
{
	t->counters.records_in--;
	wm_task_received(t, input, -1);
	snprintf(t->why, sizeof(t->why),
		 "could not keep a %s record of the join (key %" PRId64
		 ", timestamp %" PRId64 "): out of memory",
		 input == WM_JOIN_LEFT ? "left" : "right", r->key, r->ts);
	return -ENOMEM;
}

/* A record without a timestamp (or a session merge Flink refuses) is
 * counted as refused by the operator (Flink fails the job on it: wmrun
 * counts it and goes on, as its windows do); only running out of memory
 * stops the job. A record judged late is counted by partition and
 * lateness (wm_task_count_late()), as a window's. */
int
wm_task_join_record(struct wm_task *t, uint32_t input,
		    const struct wm_record *r)
{
	struct task_join *j = t->join;
	enum wm_join_side side = input == 0 ? WM_JOIN_LEFT : WM_JOIN_RIGHT;
	struct join_side_figures before = wm_task_join_side(j, side), after;
	int e;

	/* A late firing pairs at the operator's watermark. */
	j->emitting_watermark = join_watermark(j);
	if (j->windows != NULL)
		e = wm_window_join_process_element(j->windows, side, r,
						   &j->windows_out);
	else
		e = wm_interval_join_process_element(j->op, side, r, &j->out);
	if (__builtin_expect(e == -ENOMEM, 0))
		return out_of_memory(t, input, r);
	after = wm_task_join_side(j, side);
	if (after.dropped + after.side_output !=
	    before.dropped + before.side_output)
		wm_task_count_late(t, &j->late, join_watermark(j), r);
	return 0;
}

/* The join fires its windows or drops what can no longer pair, then
 * forwards the watermark. */
void
wm_task_join_watermark(struct wm_task *t, wm_ts_t w)
{
	struct task_join *j = t->join;

	j->emitting_watermark = w;
	if (j->windows != NULL)
		wm_window_join_process_watermark(j->windows, w,
						 &j->windows_out);
	else
		wm_interval_join_process_watermark(j->op, w, &j->out);
}

void
wm_task_join_status(struct wm_task *t, enum wm_status s)
{
	struct task_join *j = t->join;

	if (j->windows != NULL)
		wm_window_join_process_status(j->windows, s, &j->windows_out);
	else
		wm_interval_join_process_status(j->op, s, &j->out);
}

void
wm_task_publish_join(const struct wm_task *t)
{
	const struct task_join *j = t->join;
	struct wm_subtask_metrics *m = t->metrics;
	uint64_t kept = 0, dropped = 0, side_output = 0, other = 0;

	for (int s = 0; s < 2; s++) {
		struct join_side_figures f = wm_task_join_side(j, s);

		kept += f.kept;
		dropped += f.dropped;
		side_output += f.side_output;
		other += f.other;
		WM_METRIC_SET(m->join_in[s], f.in);
		WM_METRIC_SET(m->join_late[s], f.dropped);
		WM_METRIC_SET(m->join_late_out[s], f.side_output);
		WM_METRIC_SET(m->join_buffered[s],
			      j->windows != NULL
				      ? wm_window_join_buffered(j->windows, s)
				      : wm_interval_join_buffered(j->op, s));
	}
	WM_METRIC_SET(m->results, j->pairs);
	WM_METRIC_SET(m->records_windowed, kept);
	WM_METRIC_SET(m->late_dropped, dropped);
	WM_METRIC_SET(m->late_side_output, side_output);
	WM_METRIC_SET(m->other_dropped, other);
	wm_task_publish_lateness(t, &j->late);
}

/* A join's records are accounted for by its operator, whose counters
 * balance (interval_join.h, window_join.h). It sends no records on its
 * edges: what it emits, its numRecordsOut, is its pairs and its late
 * outputs' records. */
void
wm_task_check_join(const struct wm_task *t)
{
	const struct task_join *j = t->join;
	struct join_side_figures l = wm_task_join_side(j, WM_JOIN_LEFT);
	struct join_side_figures r = wm_task_join_side(j, WM_JOIN_RIGHT);

	WM_ASSERT(j->windows != NULL
			  ? wm_window_join_counters_balanced(
				    wm_window_join_counters(j->windows))
			  : wm_interval_join_counters_balanced(
				    wm_interval_join_counters(j->op)));
	WM_ASSERT(l.in + r.in == t->counters.records_in);
	WM_ASSERT(t->counters.records_out == j->pairs + j->late_out);
}

void
wm_task_join_snapshot(const struct task_join *j, struct wm_snap_writer *w)
{
	if (j->windows != NULL)
		wm_window_join_snapshot(j->windows, w);
	else
		wm_interval_join_snapshot(j->op, w);
}

int
wm_task_join_restore(struct task_join *j, struct wm_snap_reader *r)
{
	return j->windows != NULL ? wm_window_join_restore(j->windows, r)
				  : wm_interval_join_restore(j->op, r);
}

void
wm_task_join_snapshot_watermark(const struct task_join *j,
				struct wm_snap_writer *w)
{
	if (j->windows != NULL)
		wm_window_join_snapshot_watermark(j->windows, w);
	else
		wm_interval_join_snapshot_watermark(j->op, w);
}

int
wm_task_join_restore_watermark(struct task_join *j, struct wm_snap_reader *r)
{
	return j->windows != NULL
		       ? wm_window_join_restore_watermark(j->windows, r)
		       : wm_interval_join_restore_watermark(j->op, r);
}

bool
wm_task_join_records(const struct wm_task *t, uint64_t *kept,
		     uint64_t *elsewhere)
{
	if (t->join == NULL)
		return false;
	*kept = *elsewhere = 0;
	for (int s = 0; s < 2; s++) {
		struct join_side_figures f = wm_task_join_side(t->join, s);

		*kept += f.kept;
		*elsewhere += f.dropped + f.side_output + f.other;
	}
	return true;
}
