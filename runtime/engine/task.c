/*
 * task.c
 *	The skeleton of every subtask: its input channels and valves, the
 *	frames arriving on them, what it publishes.
 *
 * Watermarks and statuses travel up this chain:
 *
 *   input frame -> valve of its logical input -> (two inputs: combined as
 *   a two-input operator) -> operator: window fires its timers first
 *   (task_window.c), a join its cleanup timers (task_join.c) -> output
 *   edges (task_out.c: dropped while IDLE is
 *   announced, statuses deduplicated)
 *
 * and records go to the window or join operator, or on to the output
 * edges. A
 * source has no inputs: its own side (partitions, their watermarks,
 * alignment) is task_source.c.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "base/assert.h"
#include "runtime/engine/codec.h"
#include "runtime/engine/task_out.h"
#include "runtime/engine/task_state.h"

_Static_assert(WM_METRICS_MAX_INPUTS == WM_TOPOLOGY_MAX_INPUTS &&
		       WM_METRICS_MAX_EDGES == WM_TOPOLOGY_MAX_OUTPUTS,
	       "the metrics block has a counter for every input and edge");

/* The operator's input side: a window fires its timers, a join drops
 * what can no longer pair, then forwards; others forward at once. */
static void
operator_watermark(struct wm_output *o, wm_ts_t w)
{
	struct wm_task *t = wm_container_of(o, struct wm_task, operator_in);

	if (t->window != NULL)
		wm_task_window_watermark(t, w);
	else if (t->join != NULL)
		wm_task_join_watermark(t, w);
	else
		wm_output_watermark(&t->edges_out, w);
}

static void
operator_status(struct wm_output *o, enum wm_status s)
{
	struct wm_task *t = wm_container_of(o, struct wm_task, operator_in);

	if (t->window != NULL)
		wm_task_window_status(t, s);
	else if (t->join != NULL)
		wm_task_join_status(t, s);
	else
		wm_output_status(&t->edges_out, s);
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

/* A valve per logical input, over the plan's input channels of the
 * subtask, and their combination when there are two. */
static int
init_inputs(struct wm_task *t)
{
	const struct wm_plan_subtask *sub = t->sub;
	unsigned behaviour = t->topo->job.behaviour;

	t->operator_in =
		(struct wm_output){operator_watermark, operator_status};
	t->n_channels = sub->n_inputs;
	if (t->n_channels == 0)
		return 0;
	t->channels = calloc(t->n_channels, sizeof(*t->channels));
	if (t->channels == NULL)
		return -ENOMEM;
	for (uint32_t k = 0; k < sub->n_ports; k++) {
		const struct wm_plan_port *port = &sub->ports[k];

		t->valves[k] = wm_valve_new(port->width, behaviour);
		if (t->valves[k] == NULL)
			return -ENOMEM;
		t->ports[k] = (struct valve_port){
			{port_watermark, port_status}, t, k};
		for (uint32_t c = 0; c < port->width; c++)
			t->channels[port->first + c] =
				(struct channel_map){k, c, false};
	}
	t->two_inputs = sub->n_ports == 2;
	if (t->two_inputs &&
	    wm_multi_input_init(&t->combined, 2, &t->operator_in, behaviour) !=
		    0)
		return -ENOMEM;
	return 0;
}

struct wm_task *
wm_task_new(const struct wm_topology *topo, const struct wm_plan *plan,
	    uint32_t id, struct wm_task_out *out, void *metrics,
	    struct wm_record_source *src)
{
	struct wm_task *t = calloc(1, sizeof(*t));
	int r;

	if (t == NULL) {
		wm_record_source_free(src);
		return NULL;
	}
	t->topo = topo;
	t->plan = plan;
	t->id = id;
	t->sub = &plan->subtasks[id];
	t->stage = &topo->stages[t->sub->stage];
	t->out = out;
	t->metrics = wm_plan_block(plan, metrics, id);
	t->partition_metrics = wm_plan_partitions(plan, metrics, id);
	t->fire_delays = wm_plan_fire_delays(plan, metrics, id);
	t->newest_ts = WM_TS_MIN;
	/* What an observer reads before the first publish: no watermark
	 * and no record yet, not the zeros of a fresh block (a watermark of
	 * 0 read against an epoch clock is a lag of 57 years). */
	WM_METRIC_SET(t->metrics->output.watermark, WM_TS_MIN);
	WM_METRIC_SET(t->metrics->newest_event_time, WM_TS_MIN);
	WM_METRIC_SET(t->metrics->emit_lag_ms, INT64_MIN);
	t->cause = WM_PROGRESS_NO_CAUSE;
	wm_progress_init(&t->output, wm_task_stall_threshold_ns(topo));
	wm_progress_follow_starvation(&t->output, &t->cpu_wait_ns);
	wm_progress_follow_due(&t->output, &t->due);
	r = init_inputs(t);
	if (r == 0)
		r = wm_task_init_outputs(t);
	if (r == 0)
		r = wm_task_init_checkpoints(t);
	if (t->stage->kind == WM_STAGE_SOURCE)
		/* It owns src from here on, even if it fails. */
		r = r == 0 ? wm_task_init_source(t, src)
			   : (wm_record_source_free(src), r);
	else if (src != NULL)
		r = (wm_record_source_free(src), -EINVAL);
	if (r == 0 && t->stage->kind == WM_STAGE_WINDOW)
		r = wm_task_init_window(t);
	if (r == 0 && t->stage->kind == WM_STAGE_JOIN)
		r = wm_task_init_join(t);
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
	wm_task_free_window(t);
	wm_task_free_join(t);
	wm_task_free_source(t);
	wm_task_free_checkpoints(t);
	free(t->channels);
	free(t->edges);
	free(t);
}

uint32_t
wm_task_input_channels(const struct wm_task *t)
{
	return t->n_channels;
}

/* A record taken from logical input `input`, already counted received. */
static inline int
input_record(struct wm_task *t, uint32_t input, const struct wm_record *r)
{
	t->counters.records_in++;
	if (r->ts > t->newest_ts)
		t->newest_ts = r->ts;
	if (t->window != NULL)
		return wm_task_window_record(t, input, r);
	if (t->join != NULL)
		return wm_task_join_record(t, input, r);
	wm_task_send_record(t, r);
	return 0;
}

static inline wm_ts_t
newer(wm_ts_t a, wm_ts_t b)
{
	return a > b ? a : b;
}

/* The newest of `newest` and the event times of r[0..n): four maxima in
 * step, so that a record costs a compare and a move, not a branch; a
 * short run, one at a time. */
static inline wm_ts_t
newest_of(const struct wm_record *r, uint32_t n, wm_ts_t newest)
{
	const struct wm_record *end = r + n;

	if (n >= 8) {
		wm_ts_t m1 = newest, m2 = newest, m3 = newest;

		for (; end - r >= 4; r += 4) {
			newest = newer(r[0].ts, newest);
			m1 = newer(r[1].ts, m1);
			m2 = newer(r[2].ts, m2);
			m3 = newer(r[3].ts, m3);
		}
		newest = newer(newer(newest, m1), newer(m2, m3));
	}
	for (; r < end; r++)
		newest = newer(r->ts, newest);
	return newest;
}

/*
 * A run of `n` records taken from logical input `input`, counted received
 * already: a window's in calls of its operator of WM_TASK_WINDOW_RUN
 * records each (wm_task_window_records()), a keyBy's sent on as a run,
 * with input_record()'s counts and newest event time for all of it at
 * once. 0, or a window's failure: then the record that failed was
 * uncounted where it failed, and *after says how many came after it,
 * never taken (the caller uncounts them received: in flight).
 */
static int
input_run(struct wm_task *t, uint32_t input, const struct wm_record *r,
	  uint32_t n, uint32_t *after)
{
	uint32_t k, taken;

	if (t->join != NULL) {
		/* A record at a time: a join's work is its pairs. */
		for (uint32_t i = 0; i < n; i++) {
			int e = input_record(t, input, &r[i]);

			if (__builtin_expect(e != 0, 0)) {
				*after = n - i - 1;
				return e;
			}
		}
		return 0;
	}
	if (t->window == NULL) {
		t->counters.records_in += n;
		t->newest_ts = newest_of(r, n, t->newest_ts);
		wm_task_send_run(t, r, n);
		return 0;
	}
	for (uint32_t done = 0; done < n; done += k) {
		const struct wm_record *run = &r[done];
		wm_ts_t newest;
		int e;

		k = n - done < WM_TASK_WINDOW_RUN ? n - done
						  : WM_TASK_WINDOW_RUN;
		newest = newest_of(run, k, t->newest_ts);
		t->counters.records_in += k;
		e = wm_task_window_records(t, input, run, k, &taken);
		if (__builtin_expect(e != 0, 0)) {
			/* The records after the failed one were never
			 * taken: not in newest_ts either. */
			for (uint32_t i = 0; i <= taken; i++)
				if (run[i].ts > t->newest_ts)
					t->newest_ts = run[i].ts;
			*after = n - done - taken - 1;
			return e;
		}
		t->newest_ts = newest;
	}
	return 0;
}

const char *
wm_task_why(const struct wm_task *t)
{
	return t->why;
}

void
wm_task_cpu_wait(struct wm_task *t, int64_t waited_ns)
{
	t->cpu_wait_ns = waited_ns;
}

void
wm_task_count_noise(struct wm_task *t, double speed)
{
	t->real = true;
	wm_progress_count_noise(&t->output, speed);
	if (t->source != NULL)
		wm_task_source_count_noise(t, speed);
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
	/* What fell due before it, first: a processing-time window fires
	 * its windows of the time before now_ns, and takes what arrives now
	 * into the windows of now_ns. */
	if (__builtin_expect(t->processing_clock, 0))
		wm_task_window_time(t, now_ns);
	return m;
}

/* A watermark or status frame carries when it was due by the schedule
 * (task_out.c); 0: not known, now. */
static void
frame_due(struct wm_task *t, const struct wm_frame *f)
{
	int64_t first = (int64_t)f->payload[1], last = (int64_t)f->payload[2];

	wm_task_due(t, first > 0 ? first : t->now_ns,
		    last > 0 ? last : t->now_ns);
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
		wm_task_received(t, m->input, 1);
		return input_record(t, m->input, &r);
	case WM_FRAME_WATERMARK:
		frame_due(t, f);
		wm_valve_input_watermark(t->valves[m->input], m->channel,
					 (wm_ts_t)f->payload[0],
					 &t->ports[m->input].output);
		break;
	case WM_FRAME_STATUS:
		frame_due(t, f);
		wm_valve_input_status(t->valves[m->input], m->channel,
				      (enum wm_status)f->arg,
				      &t->ports[m->input].output);
		break;
	case WM_FRAME_END: {
		/* An END may complete a checkpoint's alignment: its barrier
		 * goes out before this task's own END. */
		int e = wm_task_channel_ended(t, channel, now_ns);

		if (e != 0)
			return e;
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
	}
	case WM_FRAME_BARRIER:
		return wm_task_barrier(t, channel, f, now_ns);
	case WM_FRAME_ROW:
	case WM_FRAME_ROW_PART:
		/* No stage sends records with fields yet: one arriving was
		 * never sent, and the stream is corrupt. */
		return -EBADMSG;
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
	wm_task_received(t, m->input, n);
	for (uint32_t done = 0, k; done < n; done += k) {
		struct wm_record run[WM_TASK_WINDOW_RUN];
		uint32_t after;
		int e;

		/* Decoded from the cells where they lie, a stack's worth at a
		 * time. */
		k = n - done < WM_TASK_WINDOW_RUN ? n - done
						  : WM_TASK_WINDOW_RUN;
		for (uint32_t i = 0; i < k; i++)
			wm_codec_cell_record(&cells[done + i], &run[i]);
		e = input_run(t, m->input, run, k, &after);
		if (__builtin_expect(e != 0, 0)) {
			/* The ones after the failed one stay in the ring, in
			 * flight. */
			wm_task_received(t, m->input,
					 -(int64_t)(after + n - done - k));
			return e;
		}
	}
	return 0;
}

int
wm_task_input_run(struct wm_task *t, uint32_t channel,
		  const struct wm_record *r, uint32_t n, int64_t now_ns)
{
	struct channel_map *m = arriving(t, channel, now_ns);
	uint32_t after;
	int e;

	if (m == NULL)
		return -EBADMSG;
	/* Taken as a ring's run is (wm_task_input_records()). */
	wm_task_received(t, m->input, n);
	e = input_run(t, m->input, r, n, &after);
	if (__builtin_expect(e != 0, 0))
		wm_task_received(t, m->input, -(int64_t)after);
	return e;
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

/* What holds the subtask's watermark now: for a source the partition at
 * its minimum, for an operator the input channel at its valve's minimum
 * (with two inputs, of the input whose watermark is the lower, an idle
 * input holding nothing); WM_PROGRESS_NO_CAUSE if nothing does. */
static uint32_t
holding_now(const struct wm_task *t)
{
	uint32_t k = 0, c;

	if (t->source != NULL)
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
	return c == UINT32_MAX ? WM_PROGRESS_NO_CAUSE
			       : t->sub->ports[k].first + c;
}

/*
 * Every record taken is accounted for (task.h), the figures a summary is
 * made of: a source's by partition, a window's by its operator; any other
 * task sends each on every edge once.
 */
static void
check_counters(const struct wm_task *t)
{
	const struct wm_task_counters *c = &t->counters;

	if (t->source != NULL)
		wm_task_check_source(t);
	if (t->window != NULL)
		wm_task_check_window(t);
	else if (t->join != NULL)
		wm_task_check_join(t);
	else
		WM_ASSERT(c->records_out == c->records_in * t->n_edges);
}

void
wm_task_count_late(struct wm_task *t, struct task_lateness *late,
		   wm_ts_t watermark, const struct wm_record *r)
{
	int64_t late_ms;

	late->by_partition[r->partition < WM_METRICS_LATE_PARTITIONS
				   ? r->partition
				   : WM_METRICS_LATE_PARTITIONS - 1]++;
	if (__builtin_sub_overflow(watermark, r->ts, &late_ms) || late_ms < 0)
		late_ms = INT64_MAX;
	if (late_ms > late->max_ms)
		late->max_ms = late_ms;
	WM_METRIC_ADD(t->metrics->lateness[wm_histogram_bucket(late_ms)], 1);
}

void
wm_task_publish_lateness(const struct wm_task *t,
			 const struct task_lateness *late)
{
	WM_METRIC_SET(t->metrics->lateness_max_ms, late->max_ms);
	for (unsigned p = 0; p < WM_METRICS_LATE_PARTITIONS; p++)
		WM_METRIC_SET(t->metrics->late_by_partition[p],
			      late->by_partition[p]);
}

/* Each input channel as its valve holds it, in the plan's order. */
static void
publish_channels(const struct wm_task *t)
{
	struct wm_channel_metrics *out = t->metrics->channels;

	WM_METRIC_SET(t->metrics->n_channels, t->n_channels);
	for (uint32_t c = 0; c < t->n_channels; c++) {
		const struct channel_map *m = &t->channels[c];
		struct wm_channel_status st =
			wm_valve_channel(t->valves[m->input], m->channel);

		WM_METRIC_SET(out[c].watermark, st.watermark);
		WM_METRIC_SET(out[c].idle, st.status == WM_STATUS_IDLE);
		WM_METRIC_SET(out[c].aligned, st.aligned);
	}
}

void
wm_task_string_keys(struct wm_task *t)
{
	if (t->window != NULL)
		t->window->key_flags = WM_RECORD_STRING_KEY;
	if (t->join != NULL)
		t->join->key_flags = WM_RECORD_STRING_KEY;
}

void
wm_task_set_clock_zero(struct wm_task *t, int64_t ms)
{
	t->clock_zero_ms = ms;
	WM_METRIC_SET(t->metrics->clock_zero_ms, ms);
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
	WM_METRIC_SET(m->cpu_wait_ns, t->cpu_wait_ns);
	WM_METRIC_SET(m->newest_event_time, t->newest_ts);
	WM_METRIC_SET(m->late_max_ns, t->late_max_ns);
	publish_channels(t);
	wm_progress_publish(&t->output, wm_task_reading_ns(t, now_ns),
			    &m->output);
	WM_METRIC_SET(m->held_by_now, holding_now(t));
	if (t->source != NULL)
		wm_task_publish_source(t, now_ns);
	if (t->window != NULL)
		wm_task_publish_window(t);
	if (t->join != NULL)
		wm_task_publish_join(t);
	WM_METRIC_SET(m->now_ns, now_ns);
}
