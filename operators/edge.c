/*
 * edge.c
 *	Output edge set-up.
 */
#include "config.h"

#include <errno.h>

#include "operators/edge.h"

int
wm_edge_init(struct wm_edge *e, enum wm_partitioning partitioning,
	     uint32_t channels, uint32_t max_parallelism, uint64_t start)
{
	if (channels == 0 || partitioning > WM_PARTITION_BROADCAST)
		return -EINVAL;
	if (partitioning == WM_PARTITION_FORWARD && channels != 1)
		return -EINVAL;
	if (partitioning == WM_PARTITION_HASH &&
	    wm_keygroup_check(channels, max_parallelism) != 0)
		return -EINVAL;
	e->partitioning = partitioning;
	e->channels = channels;
	e->max_parallelism = max_parallelism;
	e->next = (uint32_t)(start % channels);
	e->announced = WM_STATUS_ACTIVE;
	e->output_watermark = WM_TS_MIN;
	return 0;
}
