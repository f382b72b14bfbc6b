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

#include "operators/source_gen.h"
#include "runtime/metrics/metrics.h"
#include "runtime/plan/plan.h"

struct wm_plan *
wm_plan_new(const struct wm_topology *t)
{
	struct wm_plan *p = calloc(1, sizeof(*p));
	uint32_t id = 0;

	if (p == NULL)
		return NULL;
	p->first = calloc(t->n_stages, sizeof(*p->first));
	if (p->first == NULL)
		goto fail;
	for (uint32_t s = 0; s < t->n_stages; s++) {
		p->first[s] = p->n_subtasks;
		if (t->stages[s].kind != WM_STAGE_SINK)
			p->n_subtasks += t->stages[s].parallelism;
	}
	p->subtasks = calloc(p->n_subtasks, sizeof(*p->subtasks));
	if (p->subtasks == NULL)
		goto fail;
	/* Count channels and size every table first. */
	for (uint32_t s = 0; s < t->n_stages; s++) {
		struct wm_topology_edge out[64];
		uint32_t n_edges;

		if (t->stages[s].kind == WM_STAGE_SINK)
			continue;
		n_edges = wm_topology_data_edges(t, s, out, 64);
		for (uint32_t i = 0; i < t->stages[s].parallelism; i++, id++) {
			struct wm_plan_subtask *st = &p->subtasks[id];

			st->stage = s;
			st->index = i;
			st->n_inputs = wm_topology_input_channels(t, s);
			if (t->stages[s].kind == WM_STAGE_SOURCE)
				st->n_partitions =
					(uint32_t)wm_source_gen_partitions_of(
						i, t->stages[s].parallelism,
						t->stages[s]
							.u.source.partitions,
						t->stages[s].name, NULL, 0);
			if (st->n_partitions > p->max_partitions)
				p->max_partitions = st->n_partitions;
			st->inputs = calloc(st->n_inputs ? st->n_inputs : 1,
					    sizeof(*st->inputs));
			st->n_edges = n_edges;
			st->outputs = calloc(n_edges ? n_edges : 1,
					     sizeof(*st->outputs));
			st->widths = calloc(n_edges ? n_edges : 1,
					    sizeof(*st->widths));
			if (!st->inputs || !st->outputs || !st->widths)
				goto fail;
			for (uint32_t e = 0; e < n_edges; e++) {
				const struct wm_stage *down =
					&t->stages[out[e].stage];
				uint32_t w =
					down->inputs[out[e].input].edge ==
							WM_PARTITION_FORWARD
						? 1
						: down->parallelism;

				st->widths[e] = w;
				st->outputs[e] =
					calloc(w, sizeof(**st->outputs));
				if (st->outputs[e] == NULL)
					goto fail;
				p->n_channels += w;
			}
		}
	}
	p->channels =
		calloc(p->n_channels ? p->n_channels : 1, sizeof(*p->channels));
	if (p->channels == NULL)
		goto fail;
	/* Number the channels, producer by producer. */
	uint32_t c = 0;

	for (id = 0; id < p->n_subtasks; id++) {
		struct wm_plan_subtask *st = &p->subtasks[id];
		struct wm_topology_edge out[64];

		wm_topology_data_edges(t, st->stage, out, 64);
		for (uint32_t e = 0; e < st->n_edges; e++) {
			const struct wm_stage *down = &t->stages[out[e].stage];
			bool fwd = down->inputs[out[e].input].edge ==
				   WM_PARTITION_FORWARD;

			for (uint32_t k = 0; k < st->widths[e]; k++, c++) {
				uint32_t consumer = p->first[out[e].stage] +
						    (fwd ? st->index : k);
				uint32_t in = wm_topology_input_channel(
					t, out[e].stage, out[e].input,
					st->index);

				p->channels[c] = (struct wm_plan_channel){
					id, consumer, e, k, in};
				st->outputs[e][k] = c;
				p->subtasks[consumer].inputs[in] = c;
			}
		}
	}
	return p;
fail:
	wm_plan_free(p);
	errno = ENOMEM;
	return NULL;
}

void
wm_plan_free(struct wm_plan *p)
{
	if (p == NULL)
		return;
	for (uint32_t i = 0; p->subtasks != NULL && i < p->n_subtasks; i++) {
		struct wm_plan_subtask *st = &p->subtasks[i];

		for (uint32_t e = 0; st->outputs != NULL && e < st->n_edges;
		     e++)
			free(st->outputs[e]);
		free(st->outputs);
		free(st->widths);
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

struct wm_shm_spec
wm_plan_shm_spec(const struct wm_plan *plan, uint32_t cells,
		 struct wm_shm_channel_spec *specs)
{
	for (uint32_t c = 0; c < plan->n_channels; c++)
		specs[c] = (struct wm_shm_channel_spec){
			plan->channels[c].producer, plan->channels[c].consumer,
			cells};
	return (struct wm_shm_spec){
		plan->n_subtasks, plan->n_channels, specs,
		wm_subtask_metrics_bytes(plan->max_partitions)};
}
