/*
 * recorder.c
 *	A job's snapshots in bounded buckets for the report (recorder.h).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/chart/recorder.h"

struct wm_recorder *
wm_recorder_new(const struct wm_plan *plan, int64_t step_ns,
		uint32_t max_buckets, int64_t stall_threshold_ns)
{
	struct wm_recorder *r = calloc(1, sizeof(*r));
	uint32_t np = 0;

	if (r == NULL)
		goto nomem;
	max_buckets = max_buckets < 2 ? 2 : max_buckets + (max_buckets & 1);
	r->step_ns = step_ns > 0 ? step_ns : 1;
	r->stall_threshold_ns = stall_threshold_ns;
	r->max_buckets = max_buckets;
	r->n_subtasks = plan->n_subtasks;
	r->first_partition = calloc(plan->n_subtasks + 1, sizeof(uint32_t));
	if (r->first_partition == NULL)
		goto nomem;
	for (uint32_t id = 0; id < plan->n_subtasks; id++) {
		r->first_partition[id] = np;
		np += plan->subtasks[id].n_partitions;
	}
	r->first_partition[plan->n_subtasks] = np;
	r->n_partitions = np;
	r->partition_id = calloc(np + 1, sizeof(uint32_t));
	r->count = calloc(max_buckets, sizeof(*r->count));
	r->at_ns = calloc(max_buckets, sizeof(*r->at_ns));
	r->subtasks = calloc((size_t)max_buckets * (plan->n_subtasks + 1),
			     sizeof(*r->subtasks));
	r->partitions =
		calloc((size_t)max_buckets * (np + 1), sizeof(*r->partitions));
	r->late = calloc((size_t)max_buckets * WM_METRICS_LATE_PARTITIONS,
			 sizeof(*r->late));
	if (r->partition_id == NULL || r->count == NULL || r->at_ns == NULL ||
	    r->subtasks == NULL || r->partitions == NULL || r->late == NULL)
		goto nomem;
	return r;
nomem:
	wm_recorder_free(r);
	errno = ENOMEM;
	return NULL;
}

void
wm_recorder_free(struct wm_recorder *r)
{
	if (r == NULL)
		return;
	free(r->first_partition);
	free(r->partition_id);
	free(r->count);
	free(r->at_ns);
	free(r->subtasks);
	free(r->partitions);
	free(r->late);
	free(r);
}

/* The lower of two values, NAN being none. */
static double
lower(double a, double b)
{
	return isnan(a) ? b : isnan(b) ? a : a < b ? a : b;
}

static double
higher(double a, double b)
{
	return isnan(a) ? b : isnan(b) ? a : a > b ? a : b;
}

static int64_t
earlier(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* Bucket `to` := buckets `a` then `b` (b later; either may be empty). */
static void
merge(struct wm_recorder *r, uint32_t to, uint32_t a, uint32_t b)
{
	uint32_t later = r->count[b] > 0 ? b : a;

	for (uint32_t s = 0; s < r->n_subtasks; s++) {
		const struct wm_rec_subtask *x =
			&r->subtasks[a * r->n_subtasks + s];
		const struct wm_rec_subtask *y =
			&r->subtasks[b * r->n_subtasks + s];
		struct wm_rec_subtask m =
			r->subtasks[later * r->n_subtasks + s];

		if (r->count[a] > 0 && r->count[b] > 0) {
			m.wm_lo = lower(x->wm_lo, y->wm_lo);
			m.wm_hi = higher(x->wm_hi, y->wm_hi);
			m.new_lo = lower(x->new_lo, y->new_lo);
			m.new_hi = higher(x->new_hi, y->new_hi);
			m.idle_from = earlier(x->idle_from, y->idle_from);
			m.stall_from = earlier(x->stall_from, y->stall_from);
		}
		r->subtasks[to * r->n_subtasks + s] = m;
	}
	for (uint32_t p = 0; p < r->n_partitions; p++) {
		struct wm_rec_partition m =
			r->partitions[later * r->n_partitions + p];

		if (r->count[a] > 0 && r->count[b] > 0)
			m.idle_from =
				earlier(r->partitions[a * r->n_partitions + p]
						.idle_from,
					r->partitions[b * r->n_partitions + p]
						.idle_from);
		r->partitions[to * r->n_partitions + p] = m;
	}
	memmove(&r->late[(size_t)to * WM_METRICS_LATE_PARTITIONS],
		&r->late[(size_t)later * WM_METRICS_LATE_PARTITIONS],
		WM_METRICS_LATE_PARTITIONS * sizeof(*r->late));
	r->at_ns[to] = r->at_ns[later];
	r->count[to] = r->count[a] + r->count[b];
}

/* Twice as wide buckets, half as many. */
static void
halve(struct wm_recorder *r)
{
	uint32_t n = (r->n_buckets + 1) / 2;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t b = 2 * i + 1 < r->n_buckets ? 2 * i + 1 : 2 * i;

		if (b == 2 * i) {
			/* An odd last bucket merges with nothing. */
			merge(r, i, 2 * i, 2 * i);
			r->count[i] /= 2;
		} else {
			merge(r, i, 2 * i, b);
		}
	}
	for (uint32_t i = n; i < r->n_buckets; i++)
		r->count[i] = 0;
	r->n_buckets = n;
	r->step_ns *= 2;
}

/* A bucket's first snapshot: its figures are that snapshot's. */
static void
start_bucket(struct wm_recorder *r, uint32_t b)
{
	for (uint32_t s = 0; s < r->n_subtasks; s++)
		r->subtasks[b * r->n_subtasks + s] = (struct wm_rec_subtask){
			NAN, NAN, NAN, NAN, NAN, NAN, INT64_MAX, INT64_MAX,
		};
	for (uint32_t p = 0; p < r->n_partitions; p++)
		r->partitions[b * r->n_partitions + p].idle_from = INT64_MAX;
}

/* An event time as a value: NAN for none (MIN), or at the ends of time
 * (MAX, the end of a stream), which no plot could show beside the rest. */
static double
event_time(wm_ts_t t)
{
	return t == WM_TS_MIN || t == WM_TS_MAX ? NAN : (double)t;
}

static void
feed_subtask(struct wm_recorder *r, struct wm_rec_subtask *x,
	     const struct wm_snap_subtask *s, int64_t now)
{
	double wm = event_time(s->watermark);
	double nw = event_time(s->newest_event_time);

	x->wm_lo = lower(x->wm_lo, wm);
	x->wm_hi = higher(x->wm_hi, wm);
	x->wm_last = wm;
	x->new_lo = lower(x->new_lo, nw);
	x->new_hi = higher(x->new_hi, nw);
	x->new_last = nw;
	if (s->idle)
		x->idle_from = earlier(x->idle_from, s->since_ns);
	else if (!s->finished && s->watermark != WM_TS_MAX &&
		 now - s->since_ns > r->stall_threshold_ns)
		x->stall_from = earlier(x->stall_from, s->since_ns);
}

void
wm_recorder_feed(struct wm_recorder *r, const struct wm_snapshot *snap)
{
	int64_t now = snap->processing_ns;
	uint64_t at;
	uint32_t b;

	if (r->samples == 0)
		r->origin_ns = now;
	if (now < r->origin_ns)
		now = r->origin_ns;
	at = (uint64_t)(now - r->origin_ns) / (uint64_t)r->step_ns;
	while (at >= r->max_buckets) {
		halve(r);
		at = (uint64_t)(now - r->origin_ns) / (uint64_t)r->step_ns;
	}
	b = (uint32_t)at;
	if (b < r->n_buckets - (r->n_buckets > 0))
		b = r->n_buckets - 1; /* never back into an older bucket */
	for (uint32_t i = r->n_buckets; i <= b; i++)
		r->count[i] = 0;
	if (b >= r->n_buckets)
		r->n_buckets = b + 1;
	if (r->count[b] == 0)
		start_bucket(r, b);
	r->count[b]++;
	r->at_ns[b] = now;
	r->samples++;
	for (uint32_t s = 0; s < r->n_subtasks && s < snap->n_subtasks; s++) {
		const struct wm_snap_subtask *ss = &snap->subtasks[s];
		uint32_t first = r->first_partition[s];
		uint32_t room = r->first_partition[s + 1] - first;

		feed_subtask(r, &r->subtasks[b * r->n_subtasks + s], ss, now);
		for (uint32_t i = 0; i < ss->n_partitions && i < room; i++) {
			const struct wm_snap_partition *sp = &ss->partitions[i];
			struct wm_rec_partition *x =
				&r->partitions[b * r->n_partitions + first + i];

			r->partition_id[first + i] = sp->partition;
			x->records = sp->records;
			if (sp->idle)
				x->idle_from =
					earlier(x->idle_from, sp->since_ns);
		}
	}
	memcpy(&r->late[(size_t)b * WM_METRICS_LATE_PARTITIONS],
	       snap->late_by_partition, sizeof(snap->late_by_partition));
	memcpy(r->fire_delays, snap->fire_delays, sizeof(r->fire_delays));
}

int64_t
wm_recorder_next_due(const struct wm_recorder *r, int64_t ns)
{
	int64_t k;

	if (r->samples == 0 || ns < r->origin_ns)
		return ns;
	k = (ns - r->origin_ns) / r->step_ns + 1;
	if (k > (INT64_MAX - r->origin_ns) / r->step_ns)
		return INT64_MAX;
	return r->origin_ns + k * r->step_ns;
}
