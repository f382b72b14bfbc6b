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
 * window's operator (operators/window.h, never its watermark), a join's
 * (operators/interval_join.h, likewise), nothing for a keyBy; then its
 * counts. Watermarks and idleness are in no snapshot,
 * as in Flink (doc/semantics.md section 12), unless [job]
 * checkpoint_watermarks is set: then a last section, WMKS, holds them
 * (watermark_state()), and its presence is the flag that a restore checks
 * against its own setting, so that a job never restores a checkpoint
 * taken with the other one. Without the key the bytes are exactly those
 * of a job that has no such key.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "operators/barrier_align.h"
#include "lib/snap.h"
#include "runtime/engine/task_out.h"
#include "runtime/engine/task_state.h"

#define TASK_SNAP_TAG WM_SNAP_TAG('T', 'A', 'S', 'K')
#define TASK_SNAP_VERSION 1
#define COUNTS_SNAP_TAG WM_SNAP_TAG('C', 'N', 'T', 'S')
#define COUNTS_SNAP_VERSION 2
#define WATERMARKS_SNAP_TAG WM_SNAP_TAG('W', 'M', 'K', 'S')
#define WATERMARKS_SNAP_VERSION 1

/*
 * The task's counts as of the snapshot, after its kind's state: records
 * taken and sent, what each edge sent and each input received, a source's
 * records by partition and its heartbeats, a window's results, a join's
 * pairs. A restored
 * task goes on from them, so that the summary after a restart counts
 * every record and heartbeat of the run that survived once (records read
 * again after the restore are counted apart, by the driver, as
 * replayed). At an aligned checkpoint
 * what an edge's senders had sent before their barriers is exactly what
 * its receivers had received before theirs, so the restored edges balance.
 */
static void
snapshot_counts(const struct wm_task *t, struct wm_snap_writer *w)
{
	wm_snap_begin(w, COUNTS_SNAP_TAG, COUNTS_SNAP_VERSION);
	wm_snap_put_u64(w, t->counters.records_in);
	wm_snap_put_u64(w, t->counters.records_out);
	for (uint32_t e = 0; e < t->n_edges; e++)
		wm_snap_put_u64(w, WM_METRIC_GET(t->metrics->records_sent[e]));
	for (uint32_t k = 0; k < t->sub->n_ports; k++)
		wm_snap_put_u64(w,
				WM_METRIC_GET(t->metrics->records_received[k]));
	for (uint32_t i = 0; t->source != NULL && i < t->source->n_parts; i++)
		wm_snap_put_u64(w, t->source->part[i].records);
	if (t->source != NULL)
		wm_snap_put_u64(w, t->source->heartbeats);
	if (t->window != NULL)
		wm_snap_put_u64(w, t->window->results);
	if (t->join != NULL) {
		wm_snap_put_u64(w, t->join->pairs);
		wm_snap_put_u64(w, t->join->late_out);
	}
	wm_snap_end(w);
}

/*
 * Whether restored counts add up as the task keeps them (check_counters()
 * in task.c and what it calls asserts the same of a running task): a
 * source's by partition to its records taken, a window's to its
 * operator's and its results, any other's records sent to its records
 * taken once per edge (each of a broadcast edge's channels), and what a
 * task that is no source received to what it took. A snapshot whose
 * checksums match but whose counts do not add up is bad data, refused
 * here rather than met by an assertion or a summary that does not
 * account for every record.
 */
static bool
counts_add_up(const struct wm_task *t)
{
	const struct wm_task_counters *c = &t->counters;
	uint64_t sum = 0, want;

	if (t->source != NULL) {
		for (uint32_t i = 0; i < t->source->n_parts; i++)
			if (__builtin_add_overflow(
				    sum, t->source->part[i].records, &sum))
				return false;
		if (sum != c->records_in)
			return false;
	} else {
		for (uint32_t k = 0; k < t->sub->n_ports; k++)
			if (__builtin_add_overflow(
				    sum,
				    WM_METRIC_GET(
					    t->metrics->records_received[k]),
				    &sum))
				return false;
		if (sum != c->records_in)
			return false;
	}
	if (t->window != NULL) {
		const struct wm_window_counters *w =
			wm_window_counters(t->window->op);

		return w->records_in == c->records_in &&
		       !__builtin_add_overflow(t->window->results,
					       w->late_records_side_output,
					       &sum) &&
		       c->records_out == sum;
	}
	if (t->join != NULL) {
		struct join_side_figures l =
			wm_task_join_side(t->join, WM_JOIN_LEFT);
		struct join_side_figures r =
			wm_task_join_side(t->join, WM_JOIN_RIGHT);

		return !__builtin_add_overflow(l.in, r.in, &sum) &&
		       sum == c->records_in &&
		       t->join->late_out == l.side_output + r.side_output &&
		       c->records_out == t->join->pairs + t->join->late_out;
	}
	if (__builtin_mul_overflow(c->records_in, (uint64_t)t->n_edges,
				   &want) ||
	    c->records_out != want)
		return false;
	for (uint32_t e = 0; e < t->n_edges; e++) {
		uint64_t per =
			t->edges[e].partitioning == WM_PARTITION_BROADCAST
				? t->edges[e].channels
				: 1;

		if (__builtin_mul_overflow(c->records_in, per, &want) ||
		    WM_METRIC_GET(t->metrics->records_sent[e]) != want)
			return false;
	}
	return true;
}

static int
restore_counts(struct wm_task *t, struct wm_snap_reader *r)
{
	if (wm_snap_enter(r, COUNTS_SNAP_TAG, COUNTS_SNAP_VERSION) != 0)
		return wm_snap_reader_error(r);
	t->counters.records_in = wm_snap_get_u64(r);
	t->counters.records_out = wm_snap_get_u64(r);
	for (uint32_t e = 0; e < t->n_edges; e++)
		WM_METRIC_SET(t->metrics->records_sent[e], wm_snap_get_u64(r));
	for (uint32_t k = 0; k < t->sub->n_ports; k++)
		WM_METRIC_SET(t->metrics->records_received[k],
			      wm_snap_get_u64(r));
	for (uint32_t i = 0; t->source != NULL && i < t->source->n_parts; i++)
		t->source->part[i].records = wm_snap_get_u64(r);
	if (t->source != NULL)
		t->source->heartbeats = wm_snap_get_u64(r);
	if (t->window != NULL)
		t->window->results = wm_snap_get_u64(r);
	if (t->join != NULL) {
		t->join->pairs = wm_snap_get_u64(r);
		t->join->late_out = wm_snap_get_u64(r);
	}
	if (wm_snap_leave(r) == 0 && !counts_add_up(t)) {
		snprintf(t->why, sizeof(t->why),
			 "its counts of records do not add up");
		wm_snap_reader_fail(r, -EBADMSG);
	}
	return wm_snap_reader_error(r);
}

/*
 * checkpoint_watermarks: the watermark state of every object the task
 * has, in a fixed order: a source's generators, idleness and multiplexer
 * (or its subtask generator), and whether its periodic emission started;
 * each input's valve, the combination of two inputs; a window's
 * watermark and the watermark its timers last fired at, a join's
 * watermark; every output
 * edge's announced status and output watermark. Processing-time state
 * (idleness clocks, the next tick) is kept on the job's processing time,
 * which a restored job continues (operators/pausable_clock.h).
 */
static void
snapshot_watermarks(const struct wm_task *t, struct wm_snap_writer *w)
{
	const struct task_source *s = t->source;

	wm_snap_begin(w, WATERMARKS_SNAP_TAG, WATERMARKS_SNAP_VERSION);
	if (s != NULL) {
		wm_snap_put_bool(w, s->started);
		wm_source_watermarking_snapshot(&s->watermarks, t->now_ns, w);
	}
	for (uint32_t k = 0; k < t->sub->n_ports; k++)
		wm_valve_snapshot(t->valves[k], w);
	if (t->two_inputs)
		wm_multi_input_snapshot(&t->combined, w);
	if (t->window != NULL) {
		wm_window_snapshot_watermark(t->window->op, w);
		wm_snap_put_i64(w, t->window->firing_watermark);
	}
	if (t->join != NULL)
		wm_task_join_snapshot_watermark(t->join, w);
	for (uint32_t e = 0; e < t->n_edges; e++)
		wm_edge_snapshot(&t->edges[e], w);
	wm_snap_end(w);
}

static int
restore_watermarks(struct wm_task *t, struct wm_snap_reader *r)
{
	struct task_source *s = t->source;

	if (wm_snap_enter(r, WATERMARKS_SNAP_TAG, WATERMARKS_SNAP_VERSION) != 0)
		return wm_snap_reader_error(r);
	if (s != NULL) {
		s->ticks_restored = wm_snap_get_bool(r);
		wm_source_watermarking_restore(&s->watermarks, r);
	}
	for (uint32_t k = 0;
	     k < t->sub->n_ports && wm_snap_reader_error(r) == 0; k++)
		wm_valve_restore(t->valves[k], r);
	if (t->two_inputs && wm_snap_reader_error(r) == 0)
		wm_multi_input_restore(&t->combined, r);
	if (t->window != NULL && wm_snap_reader_error(r) == 0 &&
	    wm_window_restore_watermark(t->window->op, r) == 0)
		t->window->firing_watermark = wm_snap_get_i64(r);
	if (t->join != NULL && wm_snap_reader_error(r) == 0)
		wm_task_join_restore_watermark(t->join, r);
	for (uint32_t e = 0; e < t->n_edges && wm_snap_reader_error(r) == 0;
	     e++)
		wm_edge_restore(&t->edges[e], r);
	return wm_snap_leave(r);
}

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
	if (t->join != NULL)
		wm_task_join_snapshot(t->join, &w);
	snapshot_counts(t, &w);
	if (t->topo->job.checkpoint_watermarks)
		snapshot_watermarks(t, &w);
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

int64_t
wm_task_last_alignment_ns(const struct wm_task *t)
{
	return t->barriers != NULL ? wm_barrier_align_counters(t->barriers)
					     .last_alignment_ns
				   : 0;
}

void
wm_task_abort_checkpoint(struct wm_task *t, int64_t id)
{
	struct wm_barrier_decision d;

	if (t->barriers != NULL)
		wm_barrier_align_on_cancel(t->barriers, id, &d);
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
	/* A restored source lists the partitions it had discovered when
	 * the snapshot was taken: the counts and watermarks of each follow,
	 * in its order. */
	if (t->source != NULL &&
	    wm_record_source_restore(t->source->src, &r) == 0 &&
	    wm_task_source_adopt(t) != 0)
		return -EINVAL;
	if (t->window != NULL)
		wm_window_restore(t->window->op, &r);
	if (t->join != NULL)
		wm_task_join_restore(t->join, &r);
	if (wm_snap_reader_error(&r) != 0 || restore_counts(t, &r) != 0)
		return wm_snap_reader_error(&r);
	/* What follows the counts says how the checkpoint was taken. */
	if ((wm_snap_reader_left(&r) > 0) !=
	    t->topo->job.checkpoint_watermarks) {
		snprintf(t->why, sizeof(t->why),
			 "the checkpoint was taken with checkpoint_watermarks "
			 "= %s, the job has %s",
			 t->topo->job.checkpoint_watermarks ? "false" : "true",
			 t->topo->job.checkpoint_watermarks ? "true" : "false");
		return -EINVAL;
	}
	if (t->topo->job.checkpoint_watermarks &&
	    restore_watermarks(t, &r) != 0)
		return wm_snap_reader_error(&r);
	return wm_snap_leave(&r);
}

void
wm_task_restarted_at(struct wm_task *t, int64_t now_ns)
{
	t->now_ns = now_ns;
	wm_progress_start_at(&t->output, now_ns);
	for (uint32_t i = 0; t->source != NULL && i < t->source->n_parts; i++)
		wm_progress_start_at(&t->source->part[i].progress, now_ns);
}
