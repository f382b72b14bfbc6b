/*
 * recorder.c
 *	A job's snapshots in bounded buckets for the report (recorder.h).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/chart/axis.h"
#include "runtime/chart/recorder.h"

/* wm_recorder_new()'s bucket count: even (halve() pairs them), >= 2. */
static uint32_t
even_buckets(uint32_t max_buckets)
{
	return max_buckets < 2 ? 2 : max_buckets + (max_buckets & 1);
}

int64_t
wm_recorder_first_step_ns(const struct wm_topology *topo, int64_t every_ns)
{
	int64_t length_ms = topo->job.processing_time_ms;

	if (every_ns > 0)
		return every_ns;
	if (topo->job.event_time_ms < length_ms)
		length_ms = topo->job.event_time_ms;
	if (length_ms <= 0 || length_ms == INT64_MAX)
		return 1000000000;
	return (int64_t)wm_axis_step(WM_AXIS_DURATION,
				     (double)length_ms / 1000.0) *
	       1000000;
}

struct wm_recorder *
wm_recorder_new(const struct wm_plan *plan, int64_t step_ns,
		uint32_t max_buckets, int64_t stall_threshold_ns)
{
	struct wm_recorder *r = calloc(1, sizeof(*r));
	uint32_t np = 0;

	if (r == NULL)
		goto nomem;
	max_buckets = even_buckets(max_buckets);
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

/*
 * Packed: this header, then the arrays at offsets fixed by (max_buckets,
 * n_subtasks, n_partitions), widest elements first so each is aligned:
 * at_ns, subtasks, partitions and late by bucket, then count by bucket
 * and partition_id. Only the buckets in use are copied; the rest of the
 * bytes are never read.
 */
#define PACK_MAGIC 0x57524352u /* "WRCR" */

struct packed {
	uint32_t magic;
	uint32_t max_buckets, n_buckets, n_subtasks, n_partitions;
	uint32_t reserved;
	int64_t step_ns, origin_ns, stall_threshold_ns;
	uint64_t samples;
	uint64_t fire_delays[WM_HISTOGRAM_BUCKETS];
};

struct pack_layout {
	size_t at_ns, subtasks, partitions, late, count, partition_id, size;
};

static struct pack_layout
pack_layout(uint32_t mb, uint32_t ns, uint32_t np)
{
	struct pack_layout l;

	l.at_ns = sizeof(struct packed);
	l.subtasks = l.at_ns + (size_t)mb * sizeof(int64_t);
	l.partitions =
		l.subtasks + (size_t)mb * ns * sizeof(struct wm_rec_subtask);
	l.late = l.partitions +
		 (size_t)mb * np * sizeof(struct wm_rec_partition);
	l.count = l.late +
		  (size_t)mb * WM_METRICS_LATE_PARTITIONS * sizeof(uint64_t);
	l.partition_id = l.count + (size_t)mb * sizeof(uint32_t);
	l.size = l.partition_id + (size_t)np * sizeof(uint32_t);
	return l;
}

static uint32_t
plan_partitions(const struct wm_plan *plan)
{
	uint32_t np = 0;

	for (uint32_t id = 0; id < plan->n_subtasks; id++)
		np += plan->subtasks[id].n_partitions;
	return np;
}

size_t
wm_recorder_pack_size(const struct wm_plan *plan, uint32_t max_buckets)
{
	return pack_layout(even_buckets(max_buckets), plan->n_subtasks,
			   plan_partitions(plan))
		.size;
}

int
wm_recorder_pack(const struct wm_recorder *r, void *buf, size_t len)
{
	struct pack_layout l =
		pack_layout(r->max_buckets, r->n_subtasks, r->n_partitions);
	unsigned char *b = buf;
	size_t nb = r->n_buckets;
	struct packed h = {
		.magic = PACK_MAGIC,
		.max_buckets = r->max_buckets,
		.n_buckets = r->n_buckets,
		.n_subtasks = r->n_subtasks,
		.n_partitions = r->n_partitions,
		.step_ns = r->step_ns,
		.origin_ns = r->origin_ns,
		.stall_threshold_ns = r->stall_threshold_ns,
		.samples = r->samples,
	};

	if (len < l.size)
		return -ENOSPC;
	memcpy(h.fire_delays, r->fire_delays, sizeof(h.fire_delays));
	memcpy(b, &h, sizeof(h));
	memcpy(b + l.at_ns, r->at_ns, nb * sizeof(*r->at_ns));
	memcpy(b + l.subtasks, r->subtasks,
	       nb * r->n_subtasks * sizeof(*r->subtasks));
	memcpy(b + l.partitions, r->partitions,
	       nb * r->n_partitions * sizeof(*r->partitions));
	memcpy(b + l.late, r->late,
	       nb * WM_METRICS_LATE_PARTITIONS * sizeof(*r->late));
	memcpy(b + l.count, r->count, nb * sizeof(*r->count));
	memcpy(b + l.partition_id, r->partition_id,
	       r->n_partitions * sizeof(*r->partition_id));
	return 0;
}

struct wm_recorder *
wm_recorder_unpack(const struct wm_plan *plan, uint32_t max_buckets,
		   const void *buf, size_t len)
{
	const unsigned char *b = buf;
	struct packed h;
	struct pack_layout l;
	struct wm_recorder *r;
	size_t nb;

	/* Another process's bytes: every size is checked against what this
	 * one expects before any is used. */
	max_buckets = even_buckets(max_buckets);
	l = pack_layout(max_buckets, plan->n_subtasks, plan_partitions(plan));
	if (len < l.size)
		goto invalid;
	memcpy(&h, b, sizeof(h));
	if (h.magic != PACK_MAGIC || h.max_buckets != max_buckets ||
	    h.n_buckets > max_buckets || h.n_subtasks != plan->n_subtasks ||
	    h.n_partitions != plan_partitions(plan) || h.step_ns <= 0)
		goto invalid;
	r = wm_recorder_new(plan, h.step_ns, max_buckets, h.stall_threshold_ns);
	if (r == NULL)
		return NULL;
	nb = h.n_buckets;
	r->origin_ns = h.origin_ns;
	r->n_buckets = h.n_buckets;
	r->samples = h.samples;
	memcpy(r->fire_delays, h.fire_delays, sizeof(r->fire_delays));
	memcpy(r->at_ns, b + l.at_ns, nb * sizeof(*r->at_ns));
	memcpy(r->subtasks, b + l.subtasks,
	       nb * r->n_subtasks * sizeof(*r->subtasks));
	memcpy(r->partitions, b + l.partitions,
	       nb * r->n_partitions * sizeof(*r->partitions));
	memcpy(r->late, b + l.late,
	       nb * WM_METRICS_LATE_PARTITIONS * sizeof(*r->late));
	memcpy(r->count, b + l.count, nb * sizeof(*r->count));
	memcpy(r->partition_id, b + l.partition_id,
	       r->n_partitions * sizeof(*r->partition_id));
	return r;
invalid:
	errno = EINVAL;
	return NULL;
}
