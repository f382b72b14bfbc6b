/*
 * placement.h
 *	Where a job's subtasks run: its plan (plan.h) turned into placement
 *	tasks and edges for runtime/plan/affinity.h, planned with [job] cpus or
 *	the heuristic. The supervisor pins and binds by it; wmrun --check
 *	prints it.
 *
 * Tasks are the plan's subtasks in plan order (so a `cpus` list names one
 * CPU per subtask in that order: stage by stage, subtask by subtask, sinks
 * excluded); edges are the plan's channels in channel order, so the ring
 * of channel c goes to the plan's ring_node[c]. A channel of a forward
 * edge carries its producer's whole stream and weighs 16, a channel of an
 * all-to-all exchange 1, and so does every channel out of a source: a
 * source makes its records itself, the costliest subtask per record
 * (wmbench pipeline: about half of all the work), and the heuristic pairs
 * tasks by weight, a pair sharing a CPU when there are more subtasks than
 * CPUs. Source -> keyBy -> window on 2 CPUs then runs the source alone
 * and keyBy with the window (measured: 10.5 against 7.3 Mrec/s with the
 * source and keyBy paired).
 */
#ifndef WM_RUNTIME_PLAN_PLACEMENT_H
#define WM_RUNTIME_PLAN_PLACEMENT_H

#include <stddef.h>

#include "ipc/wait.h"
#include "runtime/plan/affinity.h"
#include "runtime/plan/plan.h"
#include "runtime/conf/topology.h"

/* 0 with *out set, or a negative errno with a message in err: -EINVAL for
 * a `cpus` list that does not fit the job or the machine. */
int wm_placement_plan(const struct wm_affinity *a,
		      const struct wm_topology *topo,
		      const struct wm_plan *plan, struct wm_affinity_plan **out,
		      char *err, size_t errlen);

/*
 * How the job's processes wait for rings (ipc/wait.h), given the CPUs it
 * may use (`allowed_cpus`: taskset, cgroups; wm_affinity_allowed_pus()):
 * spin a little, then sleep, while every subtask has a CPU of its own;
 * yield the CPU instead of spinning when there are more subtasks than
 * CPUs, where a waiter's peer may need the very CPU it would spin on.
 */
enum wm_wait_mode wm_placement_wait_mode(const struct wm_plan *plan,
					 unsigned allowed_cpus);

#endif /* WM_RUNTIME_PLAN_PLACEMENT_H */
