/*
 * task_checkpoint.c
 *	A subtask's part in a checkpoint: a source records its position and
 *	sends the barrier; any other task aligns the barriers of its input
 *	channels (operators/barrier_align.h), snapshots its operator once
 *	aligned and forwards the barrier. The snapshot goes to the driver
 *	through wm_task_out.snapshot: the task writes no file.
 *
 * A subtask's snapshot is one section, TASK version 1, holding its kind's
 * state: a source's record source position (operators/source_gen.h), a
 * window's operator (operators/window.h, never its watermark), nothing for
 * a keyBy. Watermarks and idleness are in no snapshot, as in Flink
 * (doc/semantics.md section 12).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "operators/barrier_align.h"
#include "operators/snap.h"
#include "runtime/engine/task_state.h"

#define TASK_SNAP_TAG WM_SNAP_TAG('T', 'A', 'S', 'K')
#define TASK_SNAP_VERSION 1

int
wm_task_init_checkpoints(struct wm_task *t)
{
	if (t->topo->job.checkpoint_interval_ms == INT64_MAX ||
	    t->n_channels == 0)
		return 0;
	t->barriers = wm_barrier_align_new(t->n_channels);
	return t->barriers != NULL ? 0 : -errno;
}

void
wm_task_free_checkpoints(struct wm_task *t)
{
	wm_barrier_align_free(t->barriers);
	t->barriers = NULL;
}

/* Snapshot the task's state for checkpoint `id` and hand it to the
 * driver. 0, or the writer's error (-ENOMEM, -ENOTSUP for a record source
 * that cannot say its position). */
static int
snapshot(struct wm_task *t, int64_t id)
{
	struct wm_snap_writer w;
	int r;

	wm_snap_writer_init(&w);
	wm_snap_begin(&w, TASK_SNAP_TAG, TASK_SNAP_VERSION);
	if (t->source != NULL)
		wm_record_source_snapshot(t->source->src, &w);
	if (t->window != NULL)
		wm_window_snapshot(t->window->op, &w);
	wm_snap_end(&w);
	r = wm_snap_writer_error(&w);
	if (r == 0 && t->out->snapshot != NULL)
		t->out->snapshot(t->out, id, wm_snap_writer_bytes(&w),
				 wm_snap_writer_len(&w));
	wm_snap_writer_release(&w);
	return r;
}

static void
barrier_frame(struct wm_frame *f, int64_t id, int64_t timestamp_ns)
{
	*f = (struct wm_frame){
		.kind = WM_FRAME_BARRIER,
		.payload = {(uint64_t)id, (uint64_t)timestamp_ns}};
}

int
wm_task_trigger_checkpoint(struct wm_task *t, int64_t id, int64_t now_ns)
{
	struct wm_frame f;
	int r;

	if (t->source == NULL || t->finished)
		return -EINVAL;
	/* The position first, then the barrier: every record sent before
	 * the barrier is before the position, every one after it after. */
	r = snapshot(t, id);
	if (r != 0)
		return r;
	barrier_frame(&f, id, now_ns);
	wm_task_send_all(t, &f);
	return 0;
}

/* Act on the handler's decision (barrier_align.h, in its order). An
 * aborted checkpoint needs nothing of the task: the driver, which sees
 * every acknowledgement, never completes it. */
static int
decided(struct wm_task *t, const struct wm_barrier_decision *d)
{
	struct wm_frame f;
	int r;

	if (d->aligned == WM_CHECKPOINT_NONE)
		return 0;
	r = snapshot(t, d->aligned);
	if (r != 0) {
		snprintf(t->why, sizeof(t->why),
			 "could not snapshot checkpoint %lld",
			 (long long)d->aligned);
		return r;
	}
	barrier_frame(&f, d->aligned, t->barrier_timestamp_ns);
	wm_task_send_all(t, &f);
	return 0;
}

int
wm_task_barrier(struct wm_task *t, uint32_t channel, const struct wm_frame *f,
		int64_t now_ns)
{
	struct wm_barrier_decision d;

	if (t->barriers == NULL) {
		/* No checkpoints configured: passed on, so the stream stays
		 * aligned. */
		wm_task_send_all(t, f);
		return 0;
	}
	/* Forwarded with the trigger's timestamp, whichever frame
	 * completes the alignment (the last barrier, or an END). */
	if ((int64_t)f->payload[0] > wm_barrier_align_latest(t->barriers))
		t->barrier_timestamp_ns = (int64_t)f->payload[1];
	wm_barrier_align_on_barrier(t->barriers, channel,
				    (int64_t)f->payload[0],
				    (int64_t)f->payload[1], now_ns, &d);
	return decided(t, &d);
}

int
wm_task_channel_ended(struct wm_task *t, uint32_t channel, int64_t now_ns)
{
	struct wm_barrier_decision d;

	if (t->barriers == NULL)
		return 0;
	wm_barrier_align_on_end(t->barriers, channel, now_ns, &d);
	return decided(t, &d);
}

bool
wm_task_input_blocked(const struct wm_task *t, uint32_t channel)
{
	return t->barriers != NULL &&
	       wm_barrier_align_blocked(t->barriers, channel);
}

int
wm_task_restore(struct wm_task *t, const void *bytes, size_t len)
{
	struct wm_snap_reader r;

	if (t->counters.records_in != 0 || t->now_ns != 0)
		return -EINVAL; /* only a new task */
	wm_snap_reader_init(&r, bytes, len);
	if (wm_snap_enter(&r, TASK_SNAP_TAG, TASK_SNAP_VERSION) != 0)
		return wm_snap_reader_error(&r);
	if (t->source != NULL)
		wm_record_source_restore(t->source->src, &r);
	if (t->window != NULL)
		wm_window_restore(t->window->op, &r);
	if (wm_snap_reader_error(&r) != 0)
		return wm_snap_reader_error(&r);
	return wm_snap_leave(&r);
}
