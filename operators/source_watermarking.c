/*
 * source_watermarking.c
 *	A source subtask's watermarks per split or per subtask, behind one
 *	interface: each call goes to the way set at init.
 */
#include "config.h"

#include <errno.h>

#include "operators/source_watermarking.h"

int
wm_source_watermarking_init(struct wm_source_watermarking *sw,
			    enum wm_watermark_at at,
			    const struct wm_watermark_strategy *strategy,
			    struct wm_output *out)
{
	sw->at = at;
	if (at == WM_WATERMARK_AT_SPLIT)
		return wm_source_watermarks_init(&sw->u.split, strategy, out);
	return wm_subtask_watermarks_init(&sw->u.subtask, strategy, out);
}

void
wm_source_watermarking_destroy(struct wm_source_watermarking *sw)
{
	if (sw->at == WM_WATERMARK_AT_SPLIT)
		wm_source_watermarks_destroy(&sw->u.split);
	else
		wm_subtask_watermarks_destroy(&sw->u.subtask);
}

int
wm_source_watermarking_add_partition(struct wm_source_watermarking *sw,
				     uint64_t id,
				     struct wm_source_split **split)
{
	*split = NULL;
	/* Per subtask the partition only sends its records to the one
	 * generator: nothing to set up. */
	if (sw->at != WM_WATERMARK_AT_SPLIT)
		return 0;
	*split = wm_source_watermarks_add_split(&sw->u.split, id);
	return *split != NULL ? 0 : -errno;
}

void
wm_source_watermarking_remove_partition(struct wm_source_watermarking *sw,
					uint64_t id)
{
	if (sw->at == WM_WATERMARK_AT_SPLIT)
		(void)wm_source_watermarks_remove_split(&sw->u.split, id);
}

void
wm_source_watermarking_pause(struct wm_source_watermarking *sw, bool paused,
			     int64_t now_ns)
{
	if (sw->at == WM_WATERMARK_AT_SPLIT)
		wm_source_watermarks_pause(&sw->u.split, paused, now_ns);
	else
		wm_subtask_watermarks_pause(&sw->u.subtask, paused, now_ns);
}

void
wm_source_watermarking_pause_partition(struct wm_source_watermarking *sw,
				       struct wm_source_split *split,
				       bool paused, int64_t now_ns)
{
	/* Only a partition with a handle has a clock of its own. */
	if (sw->at == WM_WATERMARK_AT_SPLIT && split != NULL)
		wm_source_split_pause(&sw->u.split, split, paused, now_ns);
}

void
wm_source_watermarking_end_of_input(struct wm_source_watermarking *sw,
				    int64_t now_ns)
{
	if (sw->at == WM_WATERMARK_AT_SPLIT)
		wm_source_watermarks_end_of_input(&sw->u.split);
	else
		wm_subtask_watermarks_end_of_input(&sw->u.subtask, now_ns);
}

void
wm_source_watermarking_snapshot(const struct wm_source_watermarking *sw,
				int64_t now_ns, struct wm_snap_writer *w)
{
	if (sw->at == WM_WATERMARK_AT_SPLIT)
		wm_source_watermarks_snapshot(&sw->u.split, now_ns, w);
	else
		wm_subtask_watermarks_snapshot(&sw->u.subtask, now_ns, w);
}

int
wm_source_watermarking_restore(struct wm_source_watermarking *sw,
			       struct wm_snap_reader *r)
{
	return sw->at == WM_WATERMARK_AT_SPLIT
		       ? wm_source_watermarks_restore(&sw->u.split, r)
		       : wm_subtask_watermarks_restore(&sw->u.subtask, r);
}
