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

/* A record to each output edge, by its partitioner, counted in what each
 * edge sent; not in the task's records_out, which the callers count. */
static void
to_edges(struct wm_task *t, const struct wm_record *r)
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
	}
}

void
wm_task_send_record(struct wm_task *t, const struct wm_record *r)
{
	to_edges(t, r);
	t->counters.records_out += t->n_edges;
}

void
wm_task_send_result(struct wm_task *t, const struct wm_record *r)
{
	to_edges(t, r);
}

/*
 * A keyBy or rebalance edge scatters a long run a chunk at a time: the
 * chunk's channels computed in one loop (wm_edge_route_run()), its records
 * sorted by channel, stably, into a copy, and each channel's records
 * handed over in one call. With more than WM_TASK_SCATTER_CHANNELS
 * channels the sort would need a count too big for the stack; then, and
 * for a run too short to pay for the sort (fewer than WM_TASK_SCATTER_MIN
 * records, or than two a channel), consecutive records of one channel go
 * as a run.
 */
#define WM_TASK_SCATTER 256u
#define WM_TASK_SCATTER_CHANNELS 256u
#define WM_TASK_SCATTER_MIN 16u

/* Records r[0..n) of edge `e`, consecutive ones of a channel as a run. */
static inline void
send_runs_as_they_come(struct wm_task *t, uint32_t e, const struct wm_record *r,
		       uint32_t n)
{
	struct wm_edge *edge = &t->edges[e];
	struct wm_task_out *out = t->out;
	uint32_t from = 0, to_channel = 0;

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

/* Records r[0..n), n <= WM_TASK_SCATTER, of a chunk whose channels are
 * channel[0..n), each channel's in one call in their order: what n calls
 * of the driver's `record` give each channel (channels are independent:
 * nothing orders one channel's frames against another's). */
static void
scatter(struct wm_task *t, uint32_t e, const struct wm_record *r,
	const uint32_t *channel, uint32_t n)
{
	struct wm_task_out *out = t->out;
	uint32_t channels = t->edges[e].channels;
	uint32_t end[WM_TASK_SCATTER_CHANNELS + 1];
	struct wm_record sorted[WM_TASK_SCATTER];
	uint32_t from = 0;

	/* end[c + 1] counts channel c's records, then (summed) end[c] is
	 * where channel c starts in sorted[]; placing moves each start to
	 * the channel's end. */
	for (uint32_t c = 0; c <= channels; c++)
		end[c] = 0;
	for (uint32_t i = 0; i < n; i++)
		end[channel[i] + 1]++;
	if (end[channel[0] + 1] == n) { /* one channel: as it is */
		out->records(out, e, channel[0], r, n);
		return;
	}
	for (uint32_t c = 1; c < channels; c++)
		end[c] += end[c - 1];
	for (uint32_t i = 0; i < n; i++)
		sorted[end[channel[i]]++] = r[i];
	for (uint32_t c = 0; c < channels; c++) {
		if (end[c] > from)
			out->records(out, e, c, &sorted[from], end[c] - from);
		from = end[c];
	}
}

/* Records r[0..n) of edge `e` scattered a chunk at a time; not inlined,
 * so that only a run long enough to scatter pays for its stack. */
static __attribute__((noinline)) void
scatter_run(struct wm_task *t, uint32_t e, const struct wm_record *r,
	    uint32_t n)
{
	for (uint32_t done = 0, k; done < n; done += k) {
		uint32_t channel[WM_TASK_SCATTER];

		k = n - done < WM_TASK_SCATTER ? n - done : WM_TASK_SCATTER;
		wm_edge_route_run(&t->edges[e], &r[done], k, channel);
		scatter(t, e, &r[done], channel, k);
	}
}

/* Records r[0..n) on edge `e` (not a broadcast), each channel's as runs. */
static inline void
send_run_on(struct wm_task *t, uint32_t e, const struct wm_record *r,
	    uint32_t n)
{
	struct wm_edge *edge = &t->edges[e];

	/* One channel (forward, or a keyBy to one subtask): no routing. */
	if (edge->channels == 1) {
		t->out->records(t->out, e, 0, r, n);
		return;
	}
	if (n < WM_TASK_SCATTER_MIN || n < 2 * edge->channels ||
	    edge->channels > WM_TASK_SCATTER_CHANNELS) {
		send_runs_as_they_come(t, e, r, n);
		return;
	}
	scatter_run(t, e, r, n);
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
