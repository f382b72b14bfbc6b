/*
 * placement.c
 *	A job's plan as placement tasks and edges (placement.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/plan/placement.h"

int
wm_placement_plan(const struct wm_affinity *a, const struct wm_topology *t,
		  const struct wm_plan *plan, struct wm_affinity_plan **out,
		  char *err, size_t errlen)
{
	struct wm_affinity_task *tasks =
		calloc(plan->n_subtasks ? plan->n_subtasks : 1, sizeof(*tasks));
	struct wm_affinity_edge *edges =
		calloc(plan->n_channels ? plan->n_channels : 1, sizeof(*edges));
	int r;

	if (tasks == NULL || edges == NULL) {
		free(tasks);
		free(edges);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < plan->n_subtasks; i++)
		tasks[i] = (struct wm_affinity_task){
			t->stages[plan->subtasks[i].stage].name,
			plan->subtasks[i].index};
	for (uint32_t c = 0; c < plan->n_channels; c++) {
		const struct wm_plan_channel *ch = &plan->channels[c];
		const struct wm_plan_subtask *from =
			&plan->subtasks[ch->producer];
		bool forward = from->edges[ch->edge].width == 1;
		bool source = t->stages[from->stage].kind == WM_STAGE_SOURCE;

		edges[c] =
			(struct wm_affinity_edge){ch->producer, ch->consumer,
						  forward && !source ? 16 : 1};
	}
	r = wm_affinity_plan_new(a, tasks, plan->n_subtasks, edges,
				 plan->n_channels, t->job.cpus, out, err,
				 errlen);
	if (r != 0 && t->job.cpus != NULL && errlen > 0) {
		/* The list is the user's: point at it, as a topology
		 * error does. */
		char why[512];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen,
			 "%s: invalid value for \"cpus\" in [job]: %s",
			 t->job.cpus_at, why);
	}
	free(tasks);
	free(edges);
	return r;
}

enum wm_wait_mode
wm_placement_wait_mode(const struct wm_plan *plan, unsigned allowed_cpus)
{
	return plan->n_subtasks > allowed_cpus ? WM_WAIT_YIELD : WM_WAIT_FUTEX;
}
