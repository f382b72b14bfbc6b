/*
 * task_out.c
 *	A subtask's output side: its edges (the plan's), records routed by
 *	each edge's partitioner, watermarks and statuses through each edge's
 *	announced-status rules, all to the driver's wm_task_out.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "lib/hash.h"
#include "runtime/engine/codec.h"
#include "runtime/engine/task_out.h"
#include "runtime/engine/task_state.h"

void
wm_task_flush_staged(struct wm_task *t)
{
	uint32_t from = t->staged_from, to = t->n_staged;

	if (to == from)
		return;
	t->staged_from = to;
	wm_task_send_run(t, &t->staged[from], to - from);
}

void
wm_task_send_all(struct wm_task *t, const struct wm_frame *f)
{
	wm_task_flush_staged(t);
	for (uint32_t e = 0; e < t->n_edges; e++)
		for (uint32_t c = 0; c < t->edges[e].channels; c++)
			t->out->frame(t->out, e, c, f);
}

void
wm_task_record_as_frame(struct wm_task_out *out, uint32_t edge,
			uint32_t channel, const struct wm_record *r)
{
	struct wm_frame f;

	wm_codec_record_frame(r, &f);
	out->frame(out, edge, channel, &f);
}

void
wm_task_send_record(struct wm_task *t, const struct wm_record *r)
{
	for (uint32_t e = 0; e < t->n_edges; e++) {
		struct wm_edge *edge = &t->edges[e];
		bool all = edge->partitioning == WM_PARTITION_BROADCAST;

		/* Counted in the metrics block before it goes, so that what
		 * an edge received never exceeds what it was sent, even in
		 * the figures of a process killed at any instant (a driver
		 * that stages it makes it visible later still). */
		WM_METRIC_ADD(t->metrics->records_sent[e],
			      all ? edge->channels : 1);
		if (all) {
			for (uint32_t c = 0; c < edge->channels; c++)
				t->out->record(t->out, e, c, r);
		} else {
			t->out->record(t->out, e, wm_edge_route(edge, r), r);
		}
		t->counters.records_out++;
	}
}

/* Records r[0..n) on edge `e`, the consecutive ones routed to one channel
 * as one run. */
static void
send_run_on(struct wm_task *t, uint32_t e, const struct wm_record *r,
	    uint32_t n)
{
	struct wm_edge *edge = &t->edges[e];
	struct wm_task_out *out = t->out;
	uint32_t from = 0, to_channel = 0;

	if (edge->partitioning == WM_PARTITION_FORWARD) {
		out->records(out, e, 0, r, n);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t c = wm_edge_route(edge, &r[i]);

		if (i > from && c != to_channel) {
			out->records(out, e, to_channel, &r[from], i - from);
			from = i;
		}
		to_channel = c;
	}
	out->records(out, e, to_channel, &r[from], n - from);
}

void
wm_task_send_run(struct wm_task *t, const struct wm_record *r, uint32_t n)
{
	struct wm_edge *edge;

	/* Edge by edge would reorder what one consumer gets from two
	 * edges, and a broadcast goes to every channel: record by record,
	 * as before, unless one edge routes each record to one channel
	 * and the driver takes runs. */
	if (n == 0)
		return;
	if (t->n_edges != 1 || t->out->records == NULL ||
	    (edge = &t->edges[0])->partitioning == WM_PARTITION_BROADCAST) {
		for (uint32_t i = 0; i < n; i++)
			wm_task_send_record(t, &r[i]);
		return;
	}
	/* Counted before they go (wm_task_send_record() says why). */
	WM_METRIC_ADD(t->metrics->records_sent[0], n);
	send_run_on(t, 0, r, n);
	t->counters.records_out += n;
}

/* Watermarks and statuses leaving the operator, through each edge's
 * announced-status rules (every edge decides alike: they see the same
 * sequence). */
static void
edges_watermark(struct wm_output *o, wm_ts_t w)
{
	struct wm_task *t = wm_container_of(o, struct wm_task, edges_out);
	/* With when it was due, for the trackers downstream (task.c). */
	struct wm_frame f = {.kind = WM_FRAME_WATERMARK,
			     .payload = {(uint64_t)w, (uint64_t)t->due.first_ns,
					 (uint64_t)t->due.last_ns}};

	wm_task_flush_staged(t);
	wm_task_late(t, t->due.first_ns);
	wm_progress_watermark(&t->output, w, wm_task_tracked_ns(t), t->cause);
	for (uint32_t e = 0; e < t->n_edges; e++) {
		if (!wm_edge_watermark(&t->edges[e], w))
			continue;
		for (uint32_t c = 0; c < t->edges[e].channels; c++)
			t->out->frame(t->out, e, c, &f);
	}
	t->counters.watermarks_out++;
}

static void
edges_status(struct wm_output *o, enum wm_status s)
{
	struct wm_task *t = wm_container_of(o, struct wm_task, edges_out);
	struct wm_frame f = {.kind = WM_FRAME_STATUS,
			     .arg = (uint32_t)s,
			     .payload = {0, (uint64_t)t->due.first_ns,
					 (uint64_t)t->due.last_ns}};

	wm_task_flush_staged(t);
	wm_task_late(t, t->due.first_ns);
	wm_progress_status(&t->output, s == WM_STATUS_IDLE,
			   wm_task_tracked_ns(t), t->cause);
	for (uint32_t e = 0; e < t->n_edges; e++) {
		if (!wm_edge_status(&t->edges[e], s))
			continue;
		for (uint32_t c = 0; c < t->edges[e].channels; c++)
			t->out->frame(t->out, e, c, &f);
	}
	t->counters.statuses_out++;
}

int
wm_task_init_outputs(struct wm_task *t)
{
	const struct wm_plan_subtask *sub = t->sub;

	t->edges_out = (struct wm_output){edges_watermark, edges_status};
	t->n_edges = sub->n_edges;
	t->edges = calloc(t->n_edges ? t->n_edges : 1, sizeof(*t->edges));
	if (t->edges == NULL)
		return -ENOMEM;
	for (uint32_t e = 0; e < t->n_edges; e++) {
		const struct wm_plan_edge *pe = &sub->edges[e];
		/* Rebalance starts at a random channel; the job's seed
		 * makes it the same on every run. */
		uint64_t start = wm_hash_fibonacci(t->topo->job.seed) +
				 sub->stage * 1000003ull + sub->index;

		if (wm_edge_init(&t->edges[e], pe->partitioning, pe->width,
				 pe->max_parallelism, start) != 0)
			return -EINVAL;
	}
	return 0;
}

uint32_t
wm_task_output_edges(const struct wm_task *t)
{
	return t->n_edges;
}

uint32_t
wm_task_edge_channels(const struct wm_task *t, uint32_t edge)
{
	return t->edges[edge].channels;
}
