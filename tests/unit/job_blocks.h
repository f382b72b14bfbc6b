/*
 * job_blocks.h
 *	A job for tests of the readers of metrics blocks: its topology from
 *	text, its plan, and zeroed blocks of the plan's stride, as the
 *	segment's metrics area holds them.
 */
#ifndef WM_TESTS_UNIT_JOB_BLOCKS_H
#define WM_TESTS_UNIT_JOB_BLOCKS_H

#include <stddef.h>

#include "runtime/conf/topology.h"
#include "runtime/metrics/metrics.h"
#include "runtime/plan/plan.h"

/* Load `text` (a test fails if it does not load) and make its plan and
 * one zeroed block per subtask, `*stride` bytes apart. */
void job_blocks_open(const char *text, struct wm_topology **topo,
		     struct wm_plan **plan, size_t *stride, char **blocks);
/* Subtask `id`'s block. */
static inline struct wm_subtask_metrics *
job_blocks_at(char *blocks, size_t stride, uint32_t id)
{
	return (struct wm_subtask_metrics *)(blocks + id * stride);
}

void job_blocks_close(struct wm_topology *topo, struct wm_plan *plan,
		      char *blocks);

#endif /* WM_TESTS_UNIT_JOB_BLOCKS_H */
