/*
 * task_join.c
 *	A join subtask: its interval join (operators/interval_join.h)
 *	between the task's two valves, combined as a two-input operator
 *	(task.c), and its output: the pairs to the chained sinks, the
 *	watermarks and statuses to its edges. Input 0 is the left side,
 *	input 1 the right (topology.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/assert.h"
#include "runtime/engine/task_state.h"

static void
join_pair(struct wm_interval_join_output *o, const struct wm_join_result *r)
{
	struct task_join *j = wm_container_of(o, struct task_join, out);
	struct wm_task *t = j->task;

	t->out->pair(t->out, r, wm_interval_join_watermark(j->op),
		     t->now_ns / 1000000);
	j->pairs++;
	t->counters.records_out++; /* numRecordsOut: what it emitted */
}

/* The join's own watermarks and statuses go to the edges. */
static void
join_base_watermark(struct wm_output *o, wm_ts_t w)
{
	struct task_join *j = wm_container_of(o, struct task_join, out.base);

	wm_output_watermark(&j->task->edges_out, w);
}

static void
join_base_status(struct wm_output *o, enum wm_status s)
{
	struct task_join *j = wm_container_of(o, struct task_join, out.base);

	wm_output_status(&j->task->edges_out, s);
}

int
wm_task_init_join(struct wm_task *t)
{
	struct task_join *j = calloc(1, sizeof(*j));
	const char *why;

	if (j == NULL)
		return -ENOMEM;
	t->join = j;
	j->task = t;
	j->late.max_ms = -1;
	j->op = wm_interval_join_new(&t->stage->u.join.op, &why);
	if (j->op == NULL)
		return -errno;
	j->out.pair = join_pair;
	j->out.base.watermark = join_base_watermark;
	j->out.base.status = join_base_status;
	return 0;
}

void
wm_task_free_join(struct wm_task *t)
{
	if (t->join == NULL)
		return;
	wm_interval_join_free(t->join->op);
	free(t->join);
	t->join = NULL;
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

/* A late record (wm_task_count_late()), as a window counts its own. */
static void
count_late(struct task_join *j, const struct wm_record *r)
{
	wm_task_count_late(j->task, &j->late, wm_interval_join_watermark(j->op),
			   r);
}

/* Late records of side `side` so far. */
static uint64_t
late_so_far(const struct task_join *j, enum wm_join_side side)
{
	const struct wm_interval_join_side_counters *c =
		&wm_interval_join_counters(j->op)->side[side];

	return c->late_records_dropped + c->late_records_side_output;
}

/* A record without a timestamp is counted as rejected by the operator
 * (Flink fails the job on it: wmrun counts it and goes on, as its
 * windows do); only running out of memory stops the job. */
int
wm_task_join_record(struct wm_task *t, uint32_t input,
		    const struct wm_record *r)
{
	struct task_join *j = t->join;
	enum wm_join_side side = input == 0 ? WM_JOIN_LEFT : WM_JOIN_RIGHT;
	uint64_t late = late_so_far(j, side);

	if (__builtin_expect(wm_interval_join_process_element(
				     j->op, side, r, &j->out) == -ENOMEM,
			     0))
		return out_of_memory(t, input, r);
	if (late_so_far(j, side) != late)
		count_late(j, r);
	return 0;
}

/* The join drops what can no longer pair, then forwards the watermark. */
void
wm_task_join_watermark(struct wm_task *t, wm_ts_t w)
{
	wm_interval_join_process_watermark(t->join->op, w, &t->join->out);
}

void
wm_task_join_status(struct wm_task *t, enum wm_status s)
{
	wm_interval_join_process_status(t->join->op, s, &t->join->out);
}

void
wm_task_publish_join(const struct wm_task *t)
{
	const struct task_join *j = t->join;
	const struct wm_interval_join_counters *c =
		wm_interval_join_counters(j->op);
	struct wm_subtask_metrics *m = t->metrics;
	uint64_t kept = 0, late = 0, side_output = 0, rejected = 0;

	for (int s = 0; s < 2; s++) {
		kept += c->side[s].records_kept;
		late += c->side[s].late_records_dropped;
		side_output += c->side[s].late_records_side_output;
		rejected += c->side[s].records_rejected;
		WM_METRIC_SET(m->join_in[s], c->side[s].records_in);
		WM_METRIC_SET(m->join_buffered[s],
			      wm_interval_join_buffered(j->op, s));
		WM_METRIC_SET(m->join_late[s],
			      c->side[s].late_records_dropped +
				      c->side[s].late_records_side_output);
	}
	WM_METRIC_SET(m->results, j->pairs);

	WM_METRIC_SET(m->records_windowed, kept);
	WM_METRIC_SET(m->late_dropped, late);
	WM_METRIC_SET(m->late_side_output, side_output);
	WM_METRIC_SET(m->other_dropped, rejected);
	wm_task_publish_lateness(t, &j->late);
}

/* A join's records are accounted for by its operator, whose counters
 * balance (interval_join.h). It sends no records on its edges: what it
 * emits, its numRecordsOut, is its pairs. */
void
wm_task_check_join(const struct wm_task *t)
{
	const struct wm_interval_join_counters *c =
		wm_interval_join_counters(t->join->op);

	WM_ASSERT(wm_interval_join_counters_balanced(c));
	WM_ASSERT(c->side[0].records_in + c->side[1].records_in ==
		  t->counters.records_in);
	WM_ASSERT(t->counters.records_out == t->join->pairs);
}

const struct wm_interval_join *
wm_task_join(const struct wm_task *t)
{
	return t->join != NULL ? t->join->op : NULL;
}
