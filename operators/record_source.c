/*
 * record_source.c
 *	The record-source interface's checkpoints (record_source.h): a
 *	source without them says so through the snapshot's error.
 */
#include "config.h"

#include <errno.h>

#include "operators/record_source.h"
#include "lib/snap.h"

void
wm_record_source_snapshot(const struct wm_record_source *src,
			  struct wm_snap_writer *w)
{
	if (src->ops->snapshot == NULL)
		wm_snap_writer_fail(w, -ENOTSUP);
	else
		src->ops->snapshot(src, w);
}

int
wm_record_source_restore(struct wm_record_source *src, struct wm_snap_reader *r)
{
	if (src->ops->restore == NULL)
		return wm_snap_reader_fail(r, -ENOTSUP);
	return src->ops->restore(src, r);
}
