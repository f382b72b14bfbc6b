/*
 * job_blocks.c
 *	A job and its metrics blocks for tests (job_blocks.h).
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/job_blocks.h"

void
job_blocks_open(const char *text, struct wm_topology **topo,
		struct wm_plan **plan, char **blocks)
{
	struct wm_ini_error err;

	ck_assert_int_eq(wm_topology_load_buffer(text, strlen(text), "job.conf",
						 topo, &err),
			 0);
	*plan = wm_plan_new(*topo);
	ck_assert_ptr_nonnull(*plan);
	*blocks = calloc(1, wm_plan_metrics_bytes(*plan));
	ck_assert_ptr_nonnull(*blocks);
}

void
job_blocks_close(struct wm_topology *topo, struct wm_plan *plan, char *blocks)
{
	free(blocks);
	wm_plan_free(plan);
	wm_topology_free(topo);
}
