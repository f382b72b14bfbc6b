/*
 * edge.c
 *	Output edge set-up.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "operators/edge.h"
#include "lib/snap.h"

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
	e->key_group_shift = WM_EDGE_NO_SHIFT;
	if (partitioning == WM_PARTITION_HASH &&
	    (max_parallelism & (max_parallelism - 1)) == 0)
		e->key_group_shift = (uint32_t)__builtin_ctz(max_parallelism);
	e->next = (uint32_t)(start % channels);
	e->announced = WM_STATUS_ACTIVE;
	e->output_watermark = WM_TS_MIN;
	return 0;
}

void
wm_edge_route_run(struct wm_edge *e, const struct wm_record *r, uint32_t n,
		  uint32_t *channel)
{
	uint32_t channels = e->channels;

	switch (e->partitioning) {
	case WM_PARTITION_HASH: {
		uint32_t shift = e->key_group_shift, max_p = e->max_parallelism;

		if (channels == 1)
			break;
		if (shift != WM_EDGE_NO_SHIFT) {
			/* The hashes first, then their subtasks in place. */
			for (uint32_t i = 0; i < n; i++)
				channel[i] = (uint32_t)wm_edge_key_hash(&r[i]);
			wm_keygroup_subtasks_pow2((const int32_t *)channel, n,
						  shift, channels, channel);
		} else
			for (uint32_t i = 0; i < n; i++)
				channel[i] = wm_keygroup_subtask(
					wm_edge_key_hash(&r[i]), max_p,
					channels);
		return;
	}
	case WM_PARTITION_REBALANCE: {
		uint32_t next = e->next;

		for (uint32_t i = 0; i < n; i++) {
			next = next + 1 == channels ? 0 : next + 1;
			channel[i] = next;
		}
		e->next = next;
		return;
	}
	case WM_PARTITION_FORWARD:
	case WM_PARTITION_BROADCAST:
		break;
	}
	memset(channel, 0, n * sizeof(*channel));
}

#define EDGE_SNAP_TAG WM_SNAP_TAG('E', 'D', 'G', 'E')
#define EDGE_SNAP_VERSION 1

void
wm_edge_snapshot(const struct wm_edge *e, struct wm_snap_writer *w)
{
	wm_snap_begin(w, EDGE_SNAP_TAG, EDGE_SNAP_VERSION);
	wm_snap_put_u32(w, (uint32_t)e->partitioning);
	wm_snap_put_u32(w, e->channels);
	wm_snap_put_u32(w, (uint32_t)e->announced);
	wm_snap_put_i64(w, e->output_watermark);
	wm_snap_end(w);
}

int
wm_edge_restore(struct wm_edge *e, struct wm_snap_reader *r)
{
	bool same;
	uint32_t announced;
	wm_ts_t output_watermark;

	if (wm_snap_enter(r, EDGE_SNAP_TAG, EDGE_SNAP_VERSION) != 0)
		return wm_snap_reader_error(r);
	same = wm_snap_get_u32(r) == (uint32_t)e->partitioning;
	same &= wm_snap_get_u32(r) == e->channels;
	announced = wm_snap_get_u32(r);
	output_watermark = wm_snap_get_i64(r);
	if (wm_snap_leave(r) != 0)
		return wm_snap_reader_error(r);
	if (!same)
		return wm_snap_reader_fail(r, -EINVAL);
	if (announced != WM_STATUS_ACTIVE && announced != WM_STATUS_IDLE)
		return wm_snap_reader_fail(r, -EBADMSG);
	e->announced = (enum wm_status)announced;
	e->output_watermark = output_watermark;
	return 0;
}
