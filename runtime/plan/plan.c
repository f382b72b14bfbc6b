/*
 * plan.c
 *	Subtasks and channels of a job, in one numbering for all processes.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"
#include "operators/source_gen.h"
#include "runtime/metrics/metrics.h"
#include "runtime/plan/plan.h"

/* The stages' subtasks, numbered stage by stage (sinks and maps,
 * chained, have none). */
static int
number_subtasks(struct wm_plan *p, const struct wm_topology *t)
{
	uint32_t id = 0;

	p->first = calloc(t->n_stages, sizeof(*p->first));
	if (p->first == NULL)
		return -ENOMEM;
	for (uint32_t s = 0; s < t->n_stages; s++) {
		p->first[s] = p->n_subtasks;
		if (!wm_stage_chained(t->stages[s].kind))
			p->n_subtasks += t->stages[s].parallelism;
	}
	p->subtasks =
		calloc(p->n_subtasks ? p->n_subtasks : 1, sizeof(*p->subtasks));
	if (p->subtasks == NULL)
		return -ENOMEM;
	for (uint32_t s = 0; s < t->n_stages; s++)
		for (uint32_t i = 0; !wm_stage_chained(t->stages[s].kind) &&
				     i < t->stages[s].parallelism;
		     i++, id++)
			p->subtasks[id] = (struct wm_plan_subtask){.stage = s,
								   .index = i};
	return 0;
}

/* A subtask's logical inputs: each a run of its input channels, one per
 * upstream subtask or one for a forward edge. */
static int
plan_inputs(struct wm_plan_subtask *st, const struct wm_topology *t)
{
	const struct wm_stage *stage = &t->stages[st->stage];

	st->n_ports = stage->n_inputs;
	for (uint32_t k = 0; k < stage->n_inputs; k++) {
		st->ports[k] = (struct wm_plan_port){
			st->n_inputs, wm_topology_input_width(t, st->stage, k)};
		st->n_inputs += st->ports[k].width;
	}
	st->inputs =
		calloc(st->n_inputs ? st->n_inputs : 1, sizeof(*st->inputs));
	return st->inputs != NULL ? 0 : -ENOMEM;
}

/* A subtask's output edges (every stage reading it but sinks) and the
 * sinks chained to it. The edges' channels are numbered later. */
static int
plan_outputs(struct wm_plan_subtask *st, const struct wm_topology *t)
{
	/* topology.c refuses a stage read more than MAX_OUTPUTS times. */
	struct wm_topology_edge out[WM_TOPOLOGY_MAX_OUTPUTS];
	uint32_t n = wm_topology_out_edges(t, st->stage, out,
					   WM_TOPOLOGY_MAX_OUTPUTS);

	if (n > WM_TOPOLOGY_MAX_OUTPUTS)
		return -EINVAL;
	st->edges = calloc(n ? n : 1, sizeof(*st->edges));
	st->sinks = calloc(n ? n : 1, sizeof(*st->sinks));
	if (st->edges == NULL || st->sinks == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const struct wm_stage *down = &t->stages[out[i].stage];
		enum wm_partitioning p = down->inputs[out[i].input].edge;
		struct wm_plan_edge *e = &st->edges[st->n_edges];

		/* A map runs in its source's task and writes its own sinks
		 * (map_rows.h): neither an edge nor a sink of this subtask. */
		if (down->kind == WM_STAGE_MAP)
			continue;
		if (down->kind == WM_STAGE_SINK) {
			st->sinks[st->n_sinks++] = out[i].stage;
			continue;
		}
		*e = (struct wm_plan_edge){
			out[i].stage,
			out[i].input,
			p,
			p == WM_PARTITION_FORWARD ? 1 : down->parallelism,
			down->max_parallelism,
			NULL};
		e->channels = calloc(e->width, sizeof(*e->channels));
		if (e->channels == NULL)
			return -ENOMEM;
		st->n_edges++;
	}
	return 0;
}

/* Number the channels producer by producer, edge by edge, and tell each
 * consumer which of its input channels each one is. */
static int
number_channels(struct wm_plan *p)
{
	uint32_t c = 0;

	for (uint32_t id = 0; id < p->n_subtasks; id++)
		for (uint32_t e = 0; e < p->subtasks[id].n_edges; e++)
			p->n_channels += p->subtasks[id].edges[e].width;
	p->channels =
		calloc(p->n_channels ? p->n_channels : 1, sizeof(*p->channels));
	if (p->channels == NULL)
		return -ENOMEM;
	for (uint32_t id = 0; id < p->n_subtasks; id++) {
		struct wm_plan_subtask *st = &p->subtasks[id];

		for (uint32_t e = 0; e < st->n_edges; e++) {
			struct wm_plan_edge *edge = &st->edges[e];
			bool fwd = edge->partitioning == WM_PARTITION_FORWARD;
			struct wm_plan_subtask *down;
			uint32_t in;

			for (uint32_t k = 0; k < edge->width; k++, c++) {
				down = &p->subtasks[p->first[edge->to_stage] +
						    (fwd ? st->index : k)];
				/* A forward edge has one channel, whatever
				 * the producer's index. */
				in = down->ports[edge->to_input].first +
				     (fwd ? 0 : st->index);
				p->channels[c] = (struct wm_plan_channel){
					id, (uint32_t)(down - p->subtasks), e,
					k, in};
				edge->channels[k] = c;
				down->inputs[in] = c;
			}
		}
	}
	return 0;
}

/* The metrics area (metrics.h): the blocks, one stride for all, then the
 * partition entries of each subtask that has any, then the fire-delay
 * histograms of the window subtasks, each run on lines of its own (a
 * histogram is 432 KiB, whole lines). */
static void
lay_out_metrics(struct wm_plan *p)
{
	size_t off;

	p->metrics_stride = wm_subtask_metrics_bytes(p->max_inputs);
	off = (size_t)p->n_subtasks * p->metrics_stride;
	for (uint32_t id = 0; id < p->n_subtasks; id++) {
		p->subtasks[id].metrics_partitions = off;
		off += wm_partition_metrics_bytes(p->subtasks[id].n_partitions);
	}
	for (uint32_t id = 0; id < p->n_subtasks; id++) {
		p->subtasks[id].metrics_fire_delays = off;
		off += wm_fire_delay_metrics_bytes(
			p->subtasks[id].fire_delay_buckets);
	}
	p->metrics_bytes = off;
}

struct wm_plan *
wm_plan_new(const struct wm_topology *t)
{
	struct wm_plan *p = calloc(1, sizeof(*p));
	int r;

	if (p == NULL)
		return NULL;
	r = number_subtasks(p, t);
	for (uint32_t id = 0; r == 0 && id < p->n_subtasks; id++) {
		struct wm_plan_subtask *st = &p->subtasks[id];
		const struct wm_stage *stage = &t->stages[st->stage];

		r = plan_inputs(st, t);
		if (r == 0)
			r = plan_outputs(st, t);
		/* Room for every partition the subtask can own: its share,
		 * by Flink's rule, of the stage's partitions, which for a
		 * Kafka topic reserve room for those discovered later too,
		 * split by the topic's name as the enumerator splits them. */
		if (stage->kind == WM_STAGE_SOURCE)
			st->n_partitions =
				(uint32_t)wm_source_gen_partitions_of(
					st->index, stage->parallelism,
					stage->u.source.partitions,
					wm_source_topic(stage), NULL, 0);
		if (stage->kind == WM_STAGE_WINDOW)
			st->fire_delay_buckets = WM_HISTOGRAM_FINE_BUCKETS;
		if (st->n_inputs > p->max_inputs)
			p->max_inputs = st->n_inputs;
	}
	if (r == 0)
		r = number_channels(p);
	if (r == 0)
		lay_out_metrics(p);
	if (r != 0) {
		wm_plan_free(p);
		errno = -r;
		return NULL;
	}
	return p;
}

void
wm_plan_free(struct wm_plan *p)
{
	if (p == NULL)
		return;
	for (uint32_t i = 0; p->subtasks != NULL && i < p->n_subtasks; i++) {
		struct wm_plan_subtask *st = &p->subtasks[i];

		for (uint32_t e = 0; st->edges != NULL && e < st->n_edges; e++)
			free(st->edges[e].channels);
		free(st->edges);
		free(st->sinks);
		free(st->inputs);
	}
	free(p->subtasks);
	free(p->channels);
	free(p->first);
	free(p);
}

uint32_t
wm_plan_alignment_peers(const struct wm_plan *plan,
			const struct wm_topology *topo, uint32_t id,
			uint32_t *ids, uint32_t max)
{
	const struct wm_stage *me = &topo->stages[plan->subtasks[id].stage];
	uint32_t n = 0;

	if (me->kind != WM_STAGE_SOURCE || me->u.source.alignment_group == NULL)
		return 0;
	for (uint32_t i = 0; i < plan->n_subtasks; i++) {
		const struct wm_stage *st =
			&topo->stages[plan->subtasks[i].stage];

		if (st->kind != WM_STAGE_SOURCE ||
		    st->u.source.alignment_group == NULL ||
		    strcmp(st->u.source.alignment_group,
			   me->u.source.alignment_group) != 0)
			continue;
		if (n < max)
			ids[n] = i;
		n++;
	}
	return n;
}

const char *
wm_plan_subtask_name(const struct wm_plan *plan, const struct wm_topology *topo,
		     uint32_t id, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%u", topo->stages[plan->subtasks[id].stage].name,
		 plan->subtasks[id].index);
	return buf;
}

size_t
wm_plan_metrics_bytes(const struct wm_plan *plan)
{
	return plan->metrics_bytes;
}

void
wm_plan_metrics_clear(const struct wm_plan *plan, void *area, uint32_t id)
{
	memset(wm_plan_block(plan, area, id), 0, plan->metrics_stride);
	memset(wm_plan_partitions(plan, area, id), 0,
	       wm_partition_metrics_bytes(plan->subtasks[id].n_partitions));
	if (plan->subtasks[id].fire_delay_buckets > 0)
		memset(wm_plan_fire_delays(plan, area, id), 0,
		       wm_fire_delay_metrics_bytes(
			       plan->subtasks[id].fire_delay_buckets));
}

struct wm_shm_spec
wm_plan_shm_spec(const struct wm_plan *plan, uint32_t cells,
		 struct wm_shm_channel_spec *specs)
{
	for (uint32_t c = 0; c < plan->n_channels; c++)
		specs[c] = (struct wm_shm_channel_spec){
			plan->channels[c].producer, plan->channels[c].consumer,
			cells};
	return (struct wm_shm_spec){
		plan->n_subtasks, plan->n_channels, specs, plan->metrics_stride,
		plan->metrics_bytes - plan->n_subtasks * plan->metrics_stride};
}

/* `h` with `v` mixed in. */
static uint64_t
fold(uint64_t h, uint64_t v)
{
	return wm_hash_mix64(h ^ v);
}

/* What a window's snapshot holds and checks (operators/window.c,
 * snap_check_config()). */
static uint64_t
fold_window(uint64_t h, const struct wm_window_config *w)
{
	h = fold(h, (uint64_t)w->assigner.kind);
	h = fold(h, (uint64_t)w->assigner.size);
	h = fold(h, (uint64_t)w->assigner.slide);
	h = fold(h, (uint64_t)w->assigner.offset);
	h = fold(h, w->assigner.max_windows);
	h = fold(h, (uint64_t)w->allowed_lateness);
	return fold(h, (uint64_t)w->purging << 1 | w->late_side_output);
}

uint64_t
wm_plan_fingerprint(const struct wm_plan *plan, const struct wm_topology *t)
{
	uint64_t h = wm_hash_mix64(plan->n_subtasks);

	for (uint32_t id = 0; id < plan->n_subtasks; id++) {
		const struct wm_plan_subtask *sub = &plan->subtasks[id];

		h = fold(h, (uint64_t)sub->stage << 32 | sub->index);
		h = fold(h, (uint64_t)sub->n_inputs << 32 | sub->n_edges);
	}
	/* Sinks hold no state of their own: their stages are not folded,
	 * and an output may be added or moved between runs. */
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *st = &t->stages[s];

		if (wm_stage_chained(st->kind))
			continue;
		h = fold(h, (uint64_t)st->kind << 32 | st->max_parallelism);
		if (st->kind == WM_STAGE_WINDOW) {
			h = fold_window(h, &st->u.window.op);
		} else if (st->kind == WM_STAGE_JOIN) {
			/* What its snapshot checks (interval_join.c). */
			const struct wm_interval_join_config *j =
				&st->u.join.op;

			h = fold(h, (uint64_t)j->lower);
			h = fold(h, (uint64_t)j->upper);
			h = fold(h, (uint64_t)j->lower_exclusive << 1 |
					    j->upper_exclusive);
		} else if (st->kind == WM_STAGE_SOURCE) {
			const struct wm_source_conf *src = &st->u.source;

			h = fold(h, (uint64_t)src->key_type << 2 |
					    (uint64_t)(src->kind ==
						       WM_SOURCE_REPLAY)
						    << 1 |
					    src->watermark_per_subtask);
			/* A Kafka topic's partitions may grow between runs
			 * (taken as new splits); the others' are fixed. */
			if (src->kind != WM_SOURCE_KAFKA)
				h = fold(h, src->partitions);
			/* The other kinds fold as they did before it came,
			 * so that their checkpoints still restore. */
			if (src->kind == WM_SOURCE_NEXMARK)
				h = fold(h, WM_SOURCE_NEXMARK);
		}
	}
	return fold(h, t->job.checkpoint_watermarks);
}
