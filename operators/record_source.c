/*
 * record_source.c
 *	The record-source interface's checkpoints (record_source.h): a
 *	source without them says so through the snapshot's error; the
 *	sources that keep a position per partition (replayed traces,
 *	Kafka) check the partitions a snapshot names in one place.
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

int
wm_record_source_restore_partitions(struct wm_snap_reader *r, uint32_t tag,
				    uint32_t version, size_t entry_bytes,
				    uint32_t room, bool *named,
				    int (*take)(void *arg, uint32_t id,
						struct wm_snap_reader *r),
				    void *arg)
{
	uint64_t n;
	int err = 0;

	if (wm_snap_enter(r, tag, version) != 0)
		return wm_snap_reader_error(r);
	n = wm_snap_get_count(r, entry_bytes);
	for (uint64_t k = 0; k < n && err == 0; k++) {
		uint32_t id = wm_snap_get_u32(r);

		if (wm_snap_reader_error(r) != 0)
			break;
		if (id >= room || named[id]) {
			err = -EINVAL;
			break;
		}
		named[id] = true;
		err = take(arg, id, r);
	}
	if (err != 0)
		return wm_snap_reader_fail(r, err);
	wm_snap_leave(r);
	return wm_snap_reader_error(r);
}
