/*
 * task.c
 *	A subtask's operators between input frames and output frames.
 *
 * Watermarks and statuses travel up this chain:
 *
 *   input frame -> valve of its logical input -> (two inputs: combined as
 *   a two-input operator) -> operator: window fires its timers first ->
 *   output edges (dropped while IDLE is announced, statuses deduplicated)
 *
 * and records are routed by each output edge's partitioner. A source's
 * own side (partitions, their watermarks, alignment) is task_source.c.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/assert.h"
#include "operators/hash.h"
#include "runtime/engine/codec.h"
#include "runtime/engine/task_internal.h"

_Static_assert(WM_METRICS_MAX_INPUTS == WM_TOPOLOGY_MAX_INPUTS &&
		       WM_METRICS_MAX_EDGES == WM_TOPOLOGY_MAX_OUTPUTS,
	       "the metrics block has a counter for every input and edge");

/* [job] stall_threshold in ns; a threshold beyond the int64 range of ns
 * (292 years) means never. */
int64_t
wm_task_stall_threshold_ns(const struct wm_topology *topo)
{
	return wm_ms_to_ns(topo->job.stall_threshold_ms);
}

void
wm_task_send_all(struct wm_task *t, const struct wm_frame *f)
{
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

/* Watermarks and statuses leaving the operator, through each edge's
 * announced-status rules (every edge decides alike: they see the same
 * sequence). */
static void
edges_watermark(struct wm_output *o, wm_ts_t w)
{
	struct wm_task *t = wm_container_of(o, struct wm_task, edges_out);
	struct wm_frame f = {.kind = WM_FRAME_WATERMARK,
			     .payload = {(uint64_t)w}};

	wm_progress_watermark(&t->output, w, t->now_ns, t->cause);
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
	struct wm_frame f = {.kind = WM_FRAME_STATUS, .arg = (uint32_t)s};

	wm_progress_status(&t->output, s == WM_STATUS_IDLE, t->now_ns,
			   t->cause);
	for (uint32_t e = 0; e < t->n_edges; e++) {
		if (!wm_edge_status(&t->edges[e], s))
			continue;
		for (uint32_t c = 0; c < t->edges[e].channels; c++)
			t->out->frame(t->out, e, c, &f);
	}
	t->counters.statuses_out++;
}

/* The operator's input side: a window fires its timers, then forwards;
 * others forward at once. */
static void
operator_watermark(struct wm_output *o, wm_ts_t w)
{
	struct wm_task *t = wm_container_of(o, struct wm_task, operator_in);

	if (t->window != NULL) {
		t->firing_watermark = w;
		wm_window_process_watermark(t->window, w, &t->window_out);
	} else {
		edges_watermark(&t->edges_out, w);
	}
}

static void
operator_status(struct wm_output *o, enum wm_status s)
{
	struct wm_task *t = wm_container_of(o, struct wm_task, operator_in);

	if (t->window != NULL)
		wm_window_process_status(t->window, s, &t->window_out);
	else
		edges_status(&t->edges_out, s);
}

/* A valve's output: straight to the operator, or into the combination of
 * two inputs. */
static void
port_watermark(struct wm_output *o, wm_ts_t w)
{
	struct valve_port *p = wm_container_of(o, struct valve_port, output);
	struct wm_task *t = p->task;

	if (t->two_inputs)
		wm_output_watermark(wm_multi_input_port(&t->combined, p->input),
				    w);
	else
		operator_watermark(&t->operator_in, w);
}

static void
port_status(struct wm_output *o, enum wm_status s)
{
	struct valve_port *p = wm_container_of(o, struct valve_port, output);
	struct wm_task *t = p->task;

	if (t->two_inputs)
		wm_output_status(wm_multi_input_port(&t->combined, p->input),
				 s);
	else
		operator_status(&t->operator_in, s);
}

/* More than 2^62 ms (146 million years) from 1970 either way, a time is
 * the end of the int64 range, not a date. */
#define ENDS_OF_TIME_MS ((int64_t)1 << 62)

/* A window at the ends of time: wrapped there (Flink's arithmetic), or
 * reaching beyond ENDS_OF_TIME_MS. */
static bool
at_ends_of_time(struct wm_time_window w)
{
	return w.end < w.start || w.start < -ENDS_OF_TIME_MS ||
	       w.end > ENDS_OF_TIME_MS;
}

static void
window_result(struct wm_window_output *o, const struct wm_window_result *r)
{
	struct wm_task *t = wm_container_of(o, struct wm_task, window_out);
	/* A timer firing happens for the watermark being processed; a late
	 * firing at the operator's current watermark. */
	wm_ts_t w = r->late_firing ? wm_window_watermark(t->window)
				   : t->firing_watermark;
	int64_t fire_time_ms = t->now_ns / 1000000;

	t->out->result(t->out, r, w, fire_time_ms);
	t->results++;
	if (!r->late_firing) {
		/* Event time 0 is processing time 0 for generated records
		 * (source_gen.h), so this is how long after its end the
		 * window fired; for a replayed trace only if its timestamps
		 * follow the job's processing time (pacing = event, from
		 * 0). A trace's timestamps may lie anywhere in 64 bits, and
		 * a window at either end wraps as Flink's does (its end
		 * before its start), or lies so far from any processing time
		 * that its delay is that distance and nothing else: such a
		 * delay is garbage, left out of the figures and counted, so
		 * that the summary can say so. */
		int64_t delay;

		if (at_ends_of_time(r->window) ||
		    __builtin_sub_overflow(fire_time_ms, r->window.end,
					   &delay)) {
			t->fire_delays_excluded++;
		} else {
			if (delay > t->fire_delay_max_ms)
				t->fire_delay_max_ms = delay;
			WM_METRIC_ADD(
				t->metrics->fire_delays[wm_histogram_bucket(
					delay)],
				1);
		}
	}
}

static void
window_late(struct wm_window_output *o, const struct wm_record *r)
{
	struct wm_task *t = wm_container_of(o, struct wm_task, window_out);

	t->out->late(t->out, r);
}

static int
init_inputs(struct wm_task *t)
{
	const struct wm_topology *topo = t->topo;
	uint32_t stage = (uint32_t)(t->stage - topo->stages);
	unsigned behaviour = topo->job.behaviour;

	t->n_channels = wm_topology_input_channels(topo, stage);
	if (t->n_channels == 0)
		return 0;
	t->channels = calloc(t->n_channels, sizeof(*t->channels));
	if (t->channels == NULL)
		return -ENOMEM;
	for (uint32_t k = 0; k < t->stage->n_inputs; k++) {
		uint32_t width = wm_topology_input_width(topo, stage, k);
		uint32_t first = wm_topology_input_channel(topo, stage, k, 0);

		t->input_first[k] = first;

		t->valves[k] = wm_valve_new(width, behaviour);
		if (t->valves[k] == NULL)
			return -ENOMEM;
		t->ports[k] = (struct valve_port){
			{port_watermark, port_status}, t, k};
		for (uint32_t c = 0; c < width; c++)
			t->channels[first + c] =
				(struct channel_map){k, c, false};
	}
	t->two_inputs = t->stage->n_inputs == 2;
	if (t->two_inputs &&
	    wm_multi_input_init(&t->combined, 2, &t->operator_in, behaviour) !=
		    0)
		return -ENOMEM;
	return 0;
}

static int
init_outputs(struct wm_task *t)
{
	const struct wm_topology *topo = t->topo;
	uint32_t stage = (uint32_t)(t->stage - topo->stages);
	struct wm_topology_edge out[WM_TOPOLOGY_MAX_OUTPUTS];

	/* A sink reading this stage is chained: no edge. */
	t->n_edges = wm_topology_data_edges(topo, stage, out,
					    WM_TOPOLOGY_MAX_OUTPUTS);
	if (t->n_edges > WM_TOPOLOGY_MAX_OUTPUTS) /* topology.c refuses it */
		return -EINVAL;
	t->edges = calloc(t->n_edges ? t->n_edges : 1, sizeof(*t->edges));
	if (t->edges == NULL)
		return -ENOMEM;
	for (uint32_t e = 0; e < t->n_edges; e++) {
		const struct wm_stage *down = &topo->stages[out[e].stage];
		enum wm_partitioning p = down->inputs[out[e].input].edge;
		uint32_t channels =
			p == WM_PARTITION_FORWARD ? 1 : down->parallelism;
		/* Rebalance starts at a random channel; the job's seed
		 * makes it the same on every run. */
		uint64_t start = wm_hash_fibonacci(topo->job.seed) +
				 stage * 1000003ull + t->index;

		if (wm_edge_init(&t->edges[e], p, channels,
				 down->max_parallelism, start) != 0)
			return -EINVAL;
	}
	return 0;
}

/* The window operator's own output goes to the edges: its base output is
 * the task's edges_out, found through the window_out member. */
static void
window_base_watermark(struct wm_output *o, wm_ts_t w)
{
	struct wm_task *t = wm_container_of(o, struct wm_task, window_out.base);

	edges_watermark(&t->edges_out, w);
}

static void
window_base_status(struct wm_output *o, enum wm_status s)
{
	struct wm_task *t = wm_container_of(o, struct wm_task, window_out.base);

	edges_status(&t->edges_out, s);
}

static int
init_window(struct wm_task *t)
{
	const char *why;

	t->window = wm_window_new(&t->stage->u.window.op, &why);
	if (t->window == NULL)
		return -errno;
	t->window_out.result = window_result;
	t->window_out.late = window_late;
	t->window_out.base.watermark = window_base_watermark;
	t->window_out.base.status = window_base_status;
	return 0;
}

struct wm_task *
wm_task_new(const struct wm_topology *topo, uint32_t stage, uint32_t index,
	    struct wm_task_out *out, struct wm_subtask_metrics *metrics,
	    struct wm_record_source *src)
{
	struct wm_task *t = calloc(1, sizeof(*t));
	int r;

	if (t == NULL) {
		wm_record_source_free(src);
		return NULL;
	}
	t->src = src; /* the task's now, freed with it whatever happens */
	t->topo = topo;
	t->stage = &topo->stages[stage];
	t->index = index;
	t->out = out;
	t->metrics = metrics;
	t->cause = WM_PROGRESS_NO_CAUSE;
	wm_progress_init(&t->output, wm_task_stall_threshold_ns(topo));
	wm_progress_follow_starvation(&t->output, &t->cpu_wait_ns);
	t->operator_in =
		(struct wm_output){operator_watermark, operator_status};
	t->edges_out = (struct wm_output){edges_watermark, edges_status};
	r = init_inputs(t);
	if (r == 0)
		r = init_outputs(t);
	if (r == 0 && t->stage->kind == WM_STAGE_WINDOW)
		r = init_window(t);
	if (r == 0 && t->stage->kind == WM_STAGE_SOURCE)
		r = wm_task_init_source(t);
	if (r != 0) {
		wm_task_free(t);
		errno = -r;
		return NULL;
	}
	return t;
}

void
wm_task_free(struct wm_task *t)
{
	if (t == NULL)
		return;
	for (uint32_t k = 0; k < WM_TOPOLOGY_MAX_INPUTS; k++)
		wm_valve_free(t->valves[k]);
	if (t->two_inputs)
		wm_multi_input_destroy(&t->combined);
	wm_window_free(t->window);
	wm_record_source_free(t->src);
	if (t->watermarks_ready)
		wm_source_watermarks_destroy(&t->watermarks);
	free(t->split_of);
	free(t->parts);
	free(t->local_of);
	free(t->part);
	free(t->peers);
	free(t->channels);
	free(t->edges);
	free(t);
}

uint32_t
wm_task_input_channels(const struct wm_task *t)
{
	return t->n_channels;
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

/* Records taken from input `input`, counted as they are taken (after the
 * upstream counted them sent, before this task's own sends): on every
 * edge received <= sent, whenever the figures are read (metrics.h). */
static inline void
received(struct wm_task *t, uint32_t input, int64_t n)
{
	WM_METRIC_ADD(t->metrics->records_received[input], n);
}

/* What a window could not allocate, for wm_task_why(). Out of the way of
 * input_record(), which runs for every record and stays small enough to
 * inline. */
static __attribute__((cold, noinline)) int
window_out_of_memory(struct wm_task *t, uint32_t input,
		     const struct wm_record *r)
{
	const struct wm_window_assigner *a = &t->stage->u.window.op.assigner;

	/* Lost with the job, not received: the summary counts it in
	 * flight. */
	received(t, input, -1);
	if (a->kind == WM_WINDOW_SESSION)
		snprintf(t->why, sizeof(t->why),
			 "could not allocate the session window of a record "
			 "(key %" PRId64 ", timestamp %" PRId64
			 "): out of memory",
			 r->key, r->ts);
	else
		snprintf(t->why, sizeof(t->why),
			 "could not allocate the state of the %" PRIu32
			 " window%s of a record (key %" PRId64
			 ", timestamp %" PRId64 "): out of memory",
			 a->max_windows, a->max_windows == 1 ? "" : "s", r->key,
			 r->ts);
	return -ENOMEM;
}

/* A record taken from logical input `input`, already counted received. */
static inline int
input_record(struct wm_task *t, uint32_t input, const struct wm_record *r)
{
	t->counters.records_in++;
	if (t->window == NULL) {
		wm_task_send_record(t, r);
		return 0;
	}
	/* A record without a timestamp, or a session merge Flink refuses,
	 * is counted as rejected by the operator (records in no window);
	 * only running out of memory stops the job. */
	if (__builtin_expect(wm_window_process_element(
				     t->window, r, &t->window_out) == -ENOMEM,
			     0)) {
		t->counters.records_in--;
		return window_out_of_memory(t, input, r);
	}
	return 0;
}

const char *
wm_task_why(const struct wm_task *t)
{
	return t->why;
}

void
wm_task_bad_records(struct wm_task *t, uint64_t n)
{
	t->bad_records = n;
}

void
wm_task_cpu_wait(struct wm_task *t, int64_t waited_ns)
{
	t->cpu_wait_ns = waited_ns;
}

/* The map of input channel `channel`, for a frame arriving on it at
 * `now_ns`; NULL if nothing may arrive there (no such channel, or one that
 * delivered END). */
static inline struct channel_map *
arriving(struct wm_task *t, uint32_t channel, int64_t now_ns)
{
	struct channel_map *m;

	if (channel >= t->n_channels)
		return NULL;
	m = &t->channels[channel];
	if (m->ended)
		return NULL; /* nothing may follow END */
	t->now_ns = now_ns;
	/* Whatever this frame moves downstream, it moved: the channel that
	 * held the operator's watermark is the one whose frame released it. */
	t->cause = channel;
	return m;
}

int
wm_task_input(struct wm_task *t, uint32_t channel, const struct wm_frame *f,
	      int64_t now_ns)
{
	struct channel_map *m = arriving(t, channel, now_ns);
	struct wm_record r;

	if (m == NULL)
		return -EBADMSG;
	switch (f->kind) {
	case WM_FRAME_RECORD:
		wm_codec_frame_record(f, &r);
		received(t, m->input, 1);
		return input_record(t, m->input, &r);
	case WM_FRAME_WATERMARK:
		wm_valve_input_watermark(t->valves[m->input], m->channel,
					 (wm_ts_t)f->payload[0],
					 &t->ports[m->input].output);
		break;
	case WM_FRAME_STATUS:
		wm_valve_input_status(t->valves[m->input], m->channel,
				      (enum wm_status)f->arg,
				      &t->ports[m->input].output);
		break;
	case WM_FRAME_END:
		/* The channel keeps its last watermark and status for ever
		 * (Flink: EndOfPartition does not touch the valve). */
		m->ended = true;
		if (++t->ended_channels == t->n_channels) {
			struct wm_frame end = {.kind = WM_FRAME_END,
					       .arg = f->arg};

			wm_task_send_all(t, &end);
			t->finished = true;
		}
		break;
	case WM_FRAME_BARRIER:
		/* Checkpoints come with the fault-tolerance work; a barrier
		 * is passed on so the stream stays aligned. */
		wm_task_send_all(t, f);
		break;
	}
	return 0;
}

int
wm_task_input_records(struct wm_task *t, uint32_t channel,
		      const struct wm_cell *cells, uint32_t n, int64_t now_ns)
{
	struct channel_map *m = arriving(t, channel, now_ns);

	if (m == NULL)
		return -EBADMSG;
	/* The run is taken as a whole: counted received once, before any of
	 * it is sent on (received <= sent downstream too). */
	received(t, m->input, n);
	for (uint32_t i = 0; i < n; i++) {
		struct wm_record r;
		int e;

		wm_codec_cell_record(&cells[i], &r);
		e = input_record(t, m->input, &r);
		if (__builtin_expect(e != 0, 0)) {
			/* The failed record was uncounted where it failed;
			 * the ones after it stay in the ring, in flight. */
			received(t, m->input, -(int64_t)(n - i - 1));
			return e;
		}
	}
	return 0;
}

bool
wm_task_inputs_done(const struct wm_task *t)
{
	return t->n_channels > 0 && t->ended_channels == t->n_channels;
}

bool
wm_task_finished(const struct wm_task *t)
{
	return t->finished;
}

const struct wm_task_counters *
wm_task_counters(const struct wm_task *t)
{
	return &t->counters;
}

const struct wm_window *
wm_task_window(const struct wm_task *t)
{
	return t->window;
}

/* What holds the subtask's watermark now: for a source the partition at
 * its minimum, for an operator the input channel at its valve's minimum
 * (with two inputs, of the input whose watermark is the lower, an idle
 * input holding nothing); WM_PROGRESS_NO_CAUSE if nothing does. */
static uint32_t
holding_now(const struct wm_task *t)
{
	uint32_t k = 0, c;

	if (t->src != NULL)
		return wm_task_holding_partition(t);
	if (t->n_channels == 0)
		return WM_PROGRESS_NO_CAUSE;
	if (t->two_inputs) {
		bool idle0 =
			wm_valve_last_status(t->valves[0]) == WM_STATUS_IDLE;
		bool idle1 =
			wm_valve_last_status(t->valves[1]) == WM_STATUS_IDLE;

		if (idle0 ||
		    (!idle1 && wm_valve_last_watermark(t->valves[1]) <
				       wm_valve_last_watermark(t->valves[0])))
			k = 1;
	}
	c = wm_valve_min_channel(t->valves[k]);
	return c == UINT32_MAX ? WM_PROGRESS_NO_CAUSE : t->input_first[k] + c;
}

/* How long a clock on processing time stood still, up to now_ns. */
static int64_t
time_stopped(const struct wm_pausable_clock *c, int64_t now_ns)
{
	return now_ns - wm_pausable_clock_read(c, now_ns);
}

static void
publish_progress(struct wm_watermark_metrics *m, const struct wm_progress *p,
		 int64_t now_ns)
{
	struct wm_progress_reading r;

	wm_progress_read(p, now_ns, &r);
	WM_METRIC_SET(m->watermark, r.watermark);
	WM_METRIC_SET(m->idle, r.idle);
	WM_METRIC_SET(m->stalled_ns, r.stalled_ns);
	WM_METRIC_SET(m->longest_stall_ns, r.longest_stall_ns);
	WM_METRIC_SET(m->longest_cause, r.longest_cause);
	WM_METRIC_SET(m->stalls, r.stalls);
	WM_METRIC_SET(m->stalled_now, r.stalled_now);
	WM_METRIC_SET(m->idle_ns, r.idle_ns);
	WM_METRIC_SET(m->to_idle, r.to_idle);
	WM_METRIC_SET(m->to_active, r.to_active);
	WM_METRIC_SET(m->longest_starved_ns, r.longest_starved_ns);
}

/*
 * Every record taken is accounted for (task.h), the figures a summary is
 * made of: a source's by partition, a window's by its operator, whose own
 * counters balance (window.h); any other task sends each on every edge
 * once. Not the window's records_out: it sends results, not records.
 */
static void
check_counters(const struct wm_task *t)
{
	const struct wm_task_counters *c = &t->counters;

	if (t->n_parts > 0) {
		uint64_t by_partition = 0;

		for (uint32_t i = 0; i < t->n_parts; i++)
			by_partition += t->part[i].records;
		WM_ASSERT(by_partition == c->records_in);
	}
	if (t->window != NULL) {
		const struct wm_window_counters *w =
			wm_window_counters(t->window);

		WM_ASSERT(wm_window_counters_balanced(w));
		WM_ASSERT(w->records_in == c->records_in);
		WM_ASSERT(c->records_out == 0);
	} else {
		WM_ASSERT(c->records_out == c->records_in * t->n_edges);
	}
}

void
wm_task_publish(const struct wm_task *t, int64_t now_ns)
{
	struct wm_subtask_metrics *m = t->metrics;

	/* A send that waited for room moved the task's time past the
	 * caller's reading (wm_task_backpressure()): a reading before it
	 * would count the stretches begun since as negative. */
	if (now_ns < t->now_ns)
		now_ns = t->now_ns;
	check_counters(t);

	WM_METRIC_SET(m->records_in, t->counters.records_in);
	WM_METRIC_SET(m->records_out, t->counters.records_out);
	WM_METRIC_SET(m->bad_records_skipped, t->bad_records);
	WM_METRIC_SET(m->results, t->results);
	WM_METRIC_SET(m->fire_delay_max_ms, t->fire_delay_max_ms);
	WM_METRIC_SET(m->fire_delays_excluded, t->fire_delays_excluded);
	WM_METRIC_SET(m->cpu_wait_ns, t->cpu_wait_ns);
	publish_progress(&m->output, &t->output, now_ns);
	WM_METRIC_SET(m->held_by_now, holding_now(t));
	WM_METRIC_SET(m->n_partitions, t->n_parts);
	for (uint32_t i = 0; i < t->n_parts; i++) {
		struct wm_partition_metrics *pm = &m->partitions[i];

		WM_METRIC_SET(pm->partition, t->parts[i]);
		WM_METRIC_SET(pm->records, t->part[i].records);
		WM_METRIC_SET(pm->alignment_paused_ns,
			      time_stopped(&t->part[i].held, now_ns));
		publish_progress(&pm->progress, &t->part[i].progress, now_ns);
	}
	if (t->window != NULL) {
		const struct wm_window_counters *c =
			wm_window_counters(t->window);

		WM_METRIC_SET(m->records_windowed, c->records_accepted);
		WM_METRIC_SET(m->late_dropped, c->late_records_dropped);
		WM_METRIC_SET(m->late_side_output, c->late_records_side_output);
		WM_METRIC_SET(m->other_dropped,
			      c->records_ignored + c->records_rejected);
		WM_METRIC_SET(m->windows_fired, c->windows_fired);
		WM_METRIC_SET(m->windows_fired_late, c->windows_fired_late);
	}
	if (t->peers != NULL) {
		WM_METRIC_SET(m->alignment_max_allowed, t->max_allowed);
		WM_METRIC_SET(m->alignment_waiting_ns,
			      time_stopped(&t->waiting, now_ns));
	}
	WM_METRIC_SET(m->now_ns, now_ns);
}
