/*
 * job_blocks.h
 *	A job for tests of the readers of metrics blocks: its topology from
 *	text, its plan, and a zeroed metrics area laid out by the plan, as
 *	the segment holds it (wm_plan_block(), wm_plan_partitions()).
 */
#ifndef WM_TESTS_UNIT_JOB_BLOCKS_H
#define WM_TESTS_UNIT_JOB_BLOCKS_H

#include <stddef.h>

#include "runtime/conf/topology.h"
#include "runtime/metrics/metrics.h"
#include "runtime/plan/plan.h"

/* Load `text` (a test fails if it does not load) and make its plan and
 * its zeroed metrics area. */
void job_blocks_open(const char *text, struct wm_topology **topo,
		     struct wm_plan **plan, char **blocks);

void job_blocks_close(struct wm_topology *topo, struct wm_plan *plan,
		      char *blocks);

#endif /* WM_TESTS_UNIT_JOB_BLOCKS_H */
