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
 * and records are routed by each output edge's partitioner.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "operators/alignment.h"
#include "operators/keygroup.h"
#include "runtime/progress.h"
#include "runtime/replay.h"
#include "runtime/task.h"

/* Where a flattened input channel goes. */
struct channel_map {
	uint32_t input;	  /* logical input */
	uint32_t channel; /* channel of that input's valve */
	bool ended;
};

/* The output of one input's valve. */
struct valve_port {
	struct wm_output output;
	struct wm_task *task;
	uint32_t input;
};

struct wm_task {
	const struct wm_topology *topo;
	const struct wm_stage *stage;
	uint32_t index;
	struct wm_task_out *out;
	struct wm_task_counters counters;
	int64_t now_ns;
	bool finished;

	/* what is published (metrics.h) */
	struct wm_subtask_metrics *metrics;
	struct wm_progress output; /* the subtask's output watermark */
	uint32_t cause; /* input channel of the frame at hand, or NO_CAUSE */
	uint64_t results;
	int64_t fire_delay_max_ms;

	/* inputs */
	uint32_t n_channels;
	uint32_t ended_channels;
	struct channel_map *channels;
	struct wm_valve *valves[WM_TOPOLOGY_MAX_INPUTS];
	uint32_t input_first[WM_TOPOLOGY_MAX_INPUTS]; /* its first channel */
	struct valve_port ports[WM_TOPOLOGY_MAX_INPUTS];
	bool two_inputs;
	struct wm_multi_input combined;

	/* what reaches the operator: watermarks and statuses after the
	 * valves (and the combination of inputs) */
	struct wm_output operator_in;

	/* outputs */
	uint32_t n_edges;
	struct wm_edge *edges;
	struct wm_output edges_out; /* watermarks and statuses to edges */

	/* operators */
	struct wm_window *window;
	struct wm_window_output window_out;
	wm_ts_t firing_watermark;
	struct wm_record_source *src; /* generator or replay */
	struct wm_source_watermarks watermarks;
	struct wm_source_split **split_of; /* by partition id */
	uint32_t n_parts;
	uint32_t *parts;		   /* partition ids, local order */
	uint32_t *local_of;		   /* by partition id: local index */
	struct wm_progress *part_progress; /* by local index */
	uint64_t *part_records;		   /* by local index */
	bool source_started;
	uint32_t parts_finished; /* the source's count, last looked at */
	int64_t end_ns;		 /* [job] processing_time: input ends then */
	uint64_t bad_records;	 /* trace lines skipped (on_bad_record) */

	/* watermark alignment (operators/alignment.h) */
	uint32_t n_peers;
	struct wm_subtask_metrics **peers; /* the group's blocks, self too */
	bool reported;
	wm_ts_t max_allowed; /* last announced; MAX before the first */
	int64_t next_alignment_ns;
	bool waiting; /* subtask level: reads nothing */
	int64_t waiting_since_ns, waiting_ns;
	bool *part_paused; /* split level, by local index */
	int64_t *part_paused_since_ns, *part_paused_ns;
	bool backpressured; /* the runtime cannot send */
};

/* [job] stall_threshold in ns; a threshold beyond the int64 range of ns
 * (292 years) means never. */
static int64_t
stall_threshold_ns(const struct wm_topology *topo)
{
	return wm_ms_to_ns(topo->job.stall_threshold_ms);
}

static void
send_all(struct wm_task *t, const struct wm_frame *f)
{
	for (uint32_t e = 0; e < t->n_edges; e++)
		for (uint32_t c = 0; c < t->edges[e].channels; c++)
			t->out->frame(t->out, e, c, f);
}

static void
send_record(struct wm_task *t, const struct wm_record *r)
{
	struct wm_frame f = {
		.kind = WM_FRAME_RECORD,
		.arg = wm_frame_record_arg(r),
		.payload = {(uint64_t)r->ts, (uint64_t)r->key,
			    (uint64_t)r->value},
	};

	for (uint32_t e = 0; e < t->n_edges; e++) {
		struct wm_edge *edge = &t->edges[e];

		if (edge->partitioning == WM_PARTITION_BROADCAST) {
			for (uint32_t c = 0; c < edge->channels; c++)
				t->out->frame(t->out, e, c, &f);
		} else {
			t->out->frame(t->out, e, wm_edge_route(edge, r), &f);
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
		 * 0). */
		int64_t delay = fire_time_ms - r->window.end;

		if (delay > t->fire_delay_max_ms)
			t->fire_delay_max_ms = delay;
		WM_METRIC_ADD(
			t->metrics->fire_delays[wm_histogram_bucket(delay)], 1);
	}
}

static void
window_late(struct wm_window_output *o, const struct wm_record *r)
{
	struct wm_task *t = wm_container_of(o, struct wm_task, window_out);

	t->out->late(t->out, r);
}

/* The partitions this subtask reads, their generator, and one watermark
 * generator per partition merged as Flink's source does. */
static int
init_source(struct wm_task *t)
{
	const struct wm_source_conf *sc = &t->stage->u.source;
	const struct wm_job_conf *job = &t->topo->job;
	struct wm_source_gen_conf conf;
	uint32_t *parts;
	size_t n;
	int r = 0;

	t->parts = parts = calloc(sc->partitions, sizeof(*parts));
	t->split_of = calloc(sc->partitions, sizeof(*t->split_of));
	t->local_of = calloc(sc->partitions, sizeof(*t->local_of));
	if (parts == NULL || t->split_of == NULL || t->local_of == NULL) {
		r = -ENOMEM;
		goto out;
	}
	/* Splits are spread as Flink's Kafka source spreads them, the
	 * stage's name standing for the topic. */
	n = wm_source_gen_partitions_of(t->index, t->stage->parallelism,
					sc->partitions, t->stage->name, parts,
					sc->partitions);
	t->n_parts = (uint32_t)n;
	t->part_progress = calloc(n ? n : 1, sizeof(*t->part_progress));
	t->part_records = calloc(n ? n : 1, sizeof(*t->part_records));
	t->part_paused = calloc(n ? n : 1, sizeof(*t->part_paused));
	t->part_paused_since_ns =
		calloc(n ? n : 1, sizeof(*t->part_paused_since_ns));
	t->part_paused_ns = calloc(n ? n : 1, sizeof(*t->part_paused_ns));
	t->max_allowed = WM_TS_MAX;
	t->next_alignment_ns = INT64_MAX;
	/* A run length in processing time ends every source's input then,
	 * whatever its records: drained, as a bounded source ends. The
	 * processing time [0, end) is read, as an event-time end is. */
	t->end_ns = wm_ms_to_ns(job->processing_time_ms);
	if (t->part_progress == NULL || t->part_records == NULL ||
	    t->part_paused == NULL || t->part_paused_since_ns == NULL ||
	    t->part_paused_ns == NULL) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		t->local_of[parts[i]] = (uint32_t)i;
		wm_progress_init(&t->part_progress[i],
				 stall_threshold_ns(t->topo));
	}
	wm_source_gen_conf_init(&conf);
	conf.n_partitions = (uint32_t)n;
	conf.partitions = parts;
	conf.rate = sc->rate;
	conf.out_of_orderness_ms = sc->out_of_orderness_ms;
	conf.late_fraction = sc->late_fraction;
	conf.late_by_ms = sc->late_by_ms;
	conf.keys = sc->keys;
	conf.zipf = sc->zipf;
	conf.zipf_exponent = sc->zipf_exponent;
	conf.value_cycle = sc->value_cycle;
	conf.n_skew = sc->n_skew;
	conf.skew = sc->skew;
	conf.n_silences = sc->n_silences;
	conf.silences = sc->silences;
	conf.n_bursts = sc->n_bursts;
	conf.bursts = sc->bursts;
	conf.n_outages = sc->n_outages;
	conf.outages = sc->outages;
	/* Each source has its own stream of the job's randomness. */
	conf.seed = job->seed ^ (uint64_t)wm_keygroup_hash_string(
					t->stage->name, strlen(t->stage->name));
	conf.max_records = job->records;
	conf.end_ts = job->event_time_ms;
	if (sc->replay != NULL) {
		char why[512];

		t->src = wm_replay_open(sc->replay, parts, n, sc->partitions,
					sc->pacing, sc->skip_bad_records,
					&t->bad_records, why, sizeof(why));
		if (t->src == NULL) {
			fprintf(stderr, "wmrun: %s\n", why);
			r = errno == EINVAL ? -EBADMSG : -errno;
			goto out;
		}
	} else {
		struct wm_source_gen *gen = wm_source_gen_new(&conf);

		if (gen == NULL) {
			r = -errno;
			goto out;
		}
		t->src = wm_source_gen_source(gen);
	}
	if (wm_source_watermarks_init(&t->watermarks, &sc->strategy,
				      &t->edges_out) != 0) {
		wm_record_source_free(t->src);
		t->src = NULL;
		r = -EINVAL;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		t->split_of[parts[i]] = wm_source_watermarks_add_split(
			&t->watermarks, parts[i]);
		if (t->split_of[parts[i]] == NULL) {
			r = -ENOMEM;
			goto out;
		}
	}
out:
	return r;
}

/* The subtask's idleness clock stops while it cannot read: waiting for
 * alignment or back-pressured (flink-semantics.md section 1.7.3). */
static void
pause_clock(struct wm_task *t)
{
	wm_source_watermarks_pause(&t->watermarks,
				   t->waiting || t->backpressured, t->now_ns);
}

static void
set_waiting(struct wm_task *t, bool waiting)
{
	if (waiting == t->waiting)
		return;
	if (waiting)
		t->waiting_since_ns = t->now_ns;
	else
		t->waiting_ns += t->now_ns - t->waiting_since_ns;
	t->waiting = waiting;
	pause_clock(t);
}

/* The multiplexer slot of the i-th partition, or NULL once it finished
 * (its slot released, retire_finished()). */
static const struct wm_partial_watermark *
slot_of(const struct wm_task *t, uint32_t local)
{
	const struct wm_source_split *split = t->split_of[t->parts[local]];

	return split != NULL ? &split->slot.partial : NULL;
}

/* Split-level alignment: the partition is not read and its idleness
 * clock stops. A source that cannot pause one partition (allowed by
 * pipeline.watermark-alignment.allow-unaligned-source-splits) is aligned
 * per subtask only. */
static void
pause_partition(struct wm_task *t, uint32_t local, bool paused)
{
	if (paused == t->part_paused[local] || t->src->ops->pause == NULL ||
	    slot_of(t, local) == NULL)
		return;
	t->src->ops->pause(t->src, local, paused, t->now_ns);
	wm_source_split_pause(&t->watermarks, t->split_of[t->parts[local]],
			      paused, t->now_ns);
	if (paused)
		t->part_paused_since_ns[local] = t->now_ns;
	else
		t->part_paused_ns[local] +=
			t->now_ns - t->part_paused_since_ns[local];
	t->part_paused[local] = paused;
}

/* One alignment update (every watermark_alignment_update_interval): this
 * subtask reports, the group's minimum is read from every report so far
 * (the coordinator's work, done by each member: the result is the same),
 * and the new maxAllowed pauses or resumes the subtask and its
 * partitions. As in Flink, a subtask that never reported hears nothing. */
static void
alignment_update(struct wm_task *t)
{
	const struct wm_source_conf *sc = &t->stage->u.source;
	wm_ts_t report, group_min = WM_TS_MAX;

	if (wm_alignment_report(wm_source_watermarks_current(&t->watermarks),
				wm_source_watermarks_idle(&t->watermarks),
				t->finished, &report)) {
		WM_METRIC_SET(t->metrics->alignment_report, report);
		/* A1: release, pairs with A2: a peer that sees the flag sees
		 * a report of this subtask's (this one or a later one). */
		atomic_store_explicit(&t->metrics->alignment_reported, 1,
				      memory_order_release);
		t->reported = true;
	}
	if (!t->reported || t->finished)
		return;
	for (uint32_t i = 0; i < t->n_peers; i++) {
		struct wm_subtask_metrics *peer = t->peers[i];

		/* A2: acquire, pairs with A1 in the peer. */
		if (!atomic_load_explicit(&peer->alignment_reported,
					  memory_order_acquire))
			continue;
		wm_ts_t r = WM_METRIC_GET(peer->alignment_report);

		if (r < group_min)
			group_min = r;
	}
	t->max_allowed =
		wm_alignment_max_allowed(group_min, sc->alignment_max_drift_ms);
	for (uint32_t i = 0; i < t->n_parts; i++)
		if (slot_of(t, i) != NULL)
			pause_partition(t, i,
					wm_alignment_holds_back(
						slot_of(t, i)->watermark,
						t->max_allowed));
	set_waiting(t, wm_alignment_holds_back(
			       wm_source_watermarks_current(&t->watermarks),
			       t->max_allowed));
}

/* now + the update interval, saturating. */
static int64_t
alignment_after(const struct wm_task *t, int64_t now_ns)
{
	return wm_ns_after_ms(now_ns,
			      t->stage->u.source.alignment_update_interval_ms);
}

/* The partition (id) whose slot holds the multiplexer's minimum: the
 * lowest watermark among those not idle, the first on a tie; NO_CAUSE if
 * every one is idle. O(partitions), once a tick. */
static uint32_t
holding_partition(const struct wm_task *t)
{
	uint32_t holder = WM_PROGRESS_NO_CAUSE;
	wm_ts_t low = WM_TS_MAX;

	for (uint32_t i = 0; i < t->n_parts; i++) {
		const struct wm_partial_watermark *slot = slot_of(t, i);

		if (slot != NULL && !slot->idle &&
		    (holder == WM_PROGRESS_NO_CAUSE || slot->watermark < low)) {
			low = slot->watermark;
			holder = t->parts[i];
		}
	}
	return holder;
}

/*
 * Partitions that finished leave the multiplexer, as Flink releases a
 * finished split's output (flink-semantics.md 2.5: "split finished: slot
 * removed"): a finished partition no longer holds the subtask's watermark,
 * and alignment no longer waits on it. Looked for only when the source's
 * count of finished partitions moved.
 */
static void
retire_finished(struct wm_task *t)
{
	uint32_t n = t->src->ops->n_finished(t->src);

	if (n == t->parts_finished)
		return;
	t->parts_finished = n;
	for (uint32_t i = 0; i < t->n_parts; i++) {
		struct wm_source_partition_stats st;

		if (slot_of(t, i) == NULL)
			continue;
		t->src->ops->partition_stats(t->src, i, t->now_ns, &st);
		if (!st.finished)
			continue;
		pause_partition(t, i, false);
		wm_progress_finish(&t->part_progress[i], t->now_ns);
		wm_source_watermarks_remove_split(&t->watermarks, t->parts[i]);
		t->split_of[t->parts[i]] = NULL;
	}
}

/* A partition's slot in the multiplexer may have changed status or
 * watermark: follow it. */
static void
watch_partition(struct wm_task *t, uint32_t local)
{
	const struct wm_partial_watermark *slot = slot_of(t, local);
	struct wm_progress *p = &t->part_progress[local];

	if (slot == NULL)
		return;
	/* A slot leaving idleness does so with a watermark: the status
	 * first, so the advance closes no idle time as stalled. */
	wm_progress_status(p, slot->idle, t->now_ns, WM_PROGRESS_NO_CAUSE);
	wm_progress_watermark(p, slot->watermark, t->now_ns,
			      WM_PROGRESS_NO_CAUSE);
	/* Alignment checks a partition on every update of its watermark
	 * (which only grows: resuming waits for an announcement). */
	if (t->peers != NULL &&
	    wm_alignment_holds_back(slot->watermark, t->max_allowed))
		pause_partition(t, local, true);
}

int64_t
wm_task_run_source(struct wm_task *t, int64_t now_ns)
{
	struct wm_record rec;
	int64_t due, tick;

	if (t->finished)
		return INT64_MAX;
	t->now_ns = now_ns;
	if (!t->source_started) {
		wm_source_watermarks_start(&t->watermarks, now_ns);
		t->next_alignment_ns = t->peers != NULL
					       ? alignment_after(t, now_ns)
					       : INT64_MAX;
		t->source_started = true;
	}
	if (now_ns >= t->next_alignment_ns) {
		alignment_update(t);
		t->next_alignment_ns = alignment_after(t, now_ns);
	}
	/* Records due by now first, each followed by its partition's
	 * generator (Flink emits the record, then calls onEvent); at most a
	 * burst per call, so that an unlimited-rate source lets its caller
	 * move time on, run ticks and serve its other duties. A subtask
	 * waiting for alignment reads nothing. */
	for (uint32_t n = 0;
	     !t->waiting && now_ns < t->end_ns && n < WM_TASK_SOURCE_BURST &&
	     wm_record_source_next(t->src, now_ns, &rec) == 1;
	     n++) {
		uint32_t local = t->local_of[rec.partition];

		t->counters.records_in++;
		t->part_records[local]++;
		t->cause = rec.partition; /* a punctuated watermark */
		send_record(t, &rec);
		wm_source_split_on_record(t->split_of[rec.partition], rec.ts,
					  rec.flags);
		watch_partition(t, local);
	}
	/* Sending may have blocked on a full ring (wm_task_backpressure()
	 * read the clock meanwhile): go on from the later time, so that no
	 * clock is ever read backwards. */
	if (t->now_ns > now_ns)
		now_ns = t->now_ns;
	retire_finished(t);
	/* Then the periodic tick, if it is due. If it moves the subtask's
	 * watermark, the partition at the minimum before it was the one
	 * holding it. */
	if (now_ns >= wm_source_watermarks_next_tick(&t->watermarks))
		t->cause = holding_partition(t);
	if (wm_source_watermarks_poll(&t->watermarks, now_ns))
		for (uint32_t i = 0; i < t->n_parts; i++)
			watch_partition(t, i);
	t->cause = WM_PROGRESS_NO_CAUSE;
	/* Subtask-level alignment is checked after every batch too. */
	if (t->peers != NULL &&
	    wm_alignment_holds_back(
		    wm_source_watermarks_current(&t->watermarks),
		    t->max_allowed))
		set_waiting(t, true);
	if (wm_record_source_finished(t->src) || now_ns >= t->end_ns) {
		struct wm_frame end = {.kind = WM_FRAME_END,
				       .arg = WM_END_DRAIN};

		/* Drain: the MAX watermark (lost if IDLE is announced, as in
		 * released Flink), then END. */
		wm_source_watermarks_end_of_input(&t->watermarks);
		send_all(t, &end);
		t->finished = true;
		/* A finished source reports MAX: it holds no one back. */
		if (t->peers != NULL)
			alignment_update(t);
		return INT64_MAX;
	}
	due = t->waiting ? INT64_MAX : wm_record_source_next_due_ns(t->src);
	tick = wm_source_watermarks_next_tick(&t->watermarks);
	if (tick < due)
		due = tick;
	if (t->end_ns < due)
		due = t->end_ns;
	return t->next_alignment_ns < due ? t->next_alignment_ns : due;
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
	struct wm_topology_edge out[64];

	t->n_edges = wm_topology_out_edges(topo, stage, out, 64);
	if (t->n_edges > 64)
		return -EINVAL;
	t->edges = calloc(t->n_edges ? t->n_edges : 1, sizeof(*t->edges));
	if (t->edges == NULL)
		return -ENOMEM;
	/* A sink reading this stage is chained: no edge. */
	uint32_t kept = 0;

	for (uint32_t e = 0; e < t->n_edges; e++)
		if (topo->stages[out[e].stage].kind != WM_STAGE_SINK)
			out[kept++] = out[e];
	t->n_edges = kept;
	for (uint32_t e = 0; e < t->n_edges; e++) {
		const struct wm_stage *down = &topo->stages[out[e].stage];
		enum wm_partitioning p = down->inputs[out[e].input].edge;
		uint32_t channels =
			p == WM_PARTITION_FORWARD ? 1 : down->parallelism;
		/* Rebalance starts at a random channel; the job's seed
		 * makes it the same on every run. */
		uint64_t start = topo->job.seed * 0x9e3779b97f4a7c15ull +
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
	    struct wm_task_out *out, struct wm_subtask_metrics *metrics)
{
	struct wm_task *t = calloc(1, sizeof(*t));
	int r;

	if (t == NULL)
		return NULL;
	t->topo = topo;
	t->stage = &topo->stages[stage];
	t->index = index;
	t->out = out;
	t->metrics = metrics;
	t->cause = WM_PROGRESS_NO_CAUSE;
	wm_progress_init(&t->output, stall_threshold_ns(topo));
	t->operator_in =
		(struct wm_output){operator_watermark, operator_status};
	t->edges_out = (struct wm_output){edges_watermark, edges_status};
	r = init_inputs(t);
	if (r == 0)
		r = init_outputs(t);
	if (r == 0 && t->stage->kind == WM_STAGE_WINDOW)
		r = init_window(t);
	if (r == 0 && t->stage->kind == WM_STAGE_SOURCE)
		r = init_source(t);
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
	if (t->src != NULL) {
		wm_record_source_free(t->src);
		wm_source_watermarks_destroy(&t->watermarks);
	}
	free(t->split_of);
	free(t->parts);
	free(t->local_of);
	free(t->part_progress);
	free(t->part_records);
	free(t->peers);
	free(t->part_paused);
	free(t->part_paused_since_ns);
	free(t->part_paused_ns);
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

static void
input_record(struct wm_task *t, const struct wm_frame *f)
{
	struct wm_record r;

	wm_frame_to_record(f, &r);
	t->counters.records_in++;
	if (t->window != NULL)
		wm_window_process_element(t->window, &r, &t->window_out);
	else
		send_record(t, &r);
}

int
wm_task_input(struct wm_task *t, uint32_t channel, const struct wm_frame *f,
	      int64_t now_ns)
{
	struct channel_map *m;

	if (channel >= t->n_channels)
		return -EBADMSG;
	m = &t->channels[channel];
	if (m->ended)
		return -EBADMSG; /* nothing may follow END */
	t->now_ns = now_ns;
	/* Whatever this frame moves downstream, it moved: the channel that
	 * held the operator's watermark is the one whose frame released it. */
	t->cause = channel;
	switch (f->kind) {
	case WM_FRAME_RECORD:
		input_record(t, f);
		break;
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

			send_all(t, &end);
			t->finished = true;
		}
		break;
	case WM_FRAME_BARRIER:
		/* Checkpoints come with the fault-tolerance work; a barrier
		 * is passed on so the stream stays aligned. */
		send_all(t, f);
		break;
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
		return holding_partition(t);
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
}

void
wm_task_publish(const struct wm_task *t, int64_t now_ns)
{
	struct wm_subtask_metrics *m = t->metrics;

	WM_METRIC_SET(m->records_in, t->counters.records_in);
	WM_METRIC_SET(m->records_out, t->counters.records_out);
	WM_METRIC_SET(m->bad_records_skipped, t->bad_records);
	WM_METRIC_SET(m->results, t->results);
	WM_METRIC_SET(m->fire_delay_max_ms, t->fire_delay_max_ms);
	publish_progress(&m->output, &t->output, now_ns);
	WM_METRIC_SET(m->held_by_now, holding_now(t));
	WM_METRIC_SET(m->n_partitions, t->n_parts);
	for (uint32_t i = 0; i < t->n_parts; i++) {
		struct wm_partition_metrics *pm = &m->partitions[i];

		WM_METRIC_SET(pm->partition, t->parts[i]);
		WM_METRIC_SET(pm->records, t->part_records[i]);
		WM_METRIC_SET(
			pm->alignment_paused_ns,
			t->part_paused_ns[i] +
				(t->part_paused[i]
					 ? now_ns - t->part_paused_since_ns[i]
					 : 0));
		publish_progress(&pm->progress, &t->part_progress[i], now_ns);
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
			      t->waiting_ns +
				      (t->waiting ? now_ns - t->waiting_since_ns
						  : 0));
	}
	WM_METRIC_SET(m->now_ns, now_ns);
}

int
wm_task_align(struct wm_task *t, const struct wm_plan *plan, uint32_t id,
	      void *blocks, size_t stride)
{
	uint32_t *ids;
	uint32_t n;

	if (t->peers != NULL)
		return -EINVAL;
	n = wm_plan_alignment_peers(plan, t->topo, id, NULL, 0);
	if (n == 0)
		return 0;
	ids = calloc(n, sizeof(*ids));
	t->peers = calloc(n, sizeof(*t->peers));
	if (ids == NULL || t->peers == NULL) {
		free(ids);
		free(t->peers);
		t->peers = NULL;
		return -ENOMEM;
	}
	wm_plan_alignment_peers(plan, t->topo, id, ids, n);
	for (uint32_t i = 0; i < n; i++)
		t->peers[i] = (struct wm_subtask_metrics *)((char *)blocks +
							    ids[i] * stride);
	t->n_peers = n;
	free(ids);
	return 0;
}

void
wm_task_backpressure(struct wm_task *t, bool blocked, int64_t now_ns)
{
	if (t->src == NULL || blocked == t->backpressured)
		return;
	t->now_ns = now_ns;
	t->backpressured = blocked;
	pause_clock(t);
}
