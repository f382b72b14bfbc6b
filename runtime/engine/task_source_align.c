/*
 * task_source_align.c
 *	A source subtask's watermark alignment with the other sources of its
 *	group (operators/alignment.h, doc/semantics.md): its report, the
 *	group's maxAllowed read from every member's report, and the pauses it
 *	gives, of the subtask (its idleness clock stops while it waits) and
 *	of each partition (split-level alignment). task_source.c calls it;
 *	it calls nothing of task_source.c.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "operators/alignment.h"
#include "runtime/engine/task_source_align.h"
#include "runtime/engine/task_state.h"

/* The subtask's idleness clock stops while it cannot read: waiting for
 * alignment or back-pressured (doc/semantics.md section 2.7). */
void
wm_task_source_pause_clock(struct wm_task *t)
{
	struct task_source *s = t->source;
	/* A replayed backlog runs on its records' due times, which
	 * back-pressure now does not move (replay_due()). */
	bool paused = s->waiting.paused || (s->backpressured && !s->replaying);

	wm_source_watermarking_pause(&s->watermarks, paused, t->now_ns);
}

void
wm_task_source_set_waiting(struct wm_task *t, bool waiting)
{
	struct task_source *s = t->source;

	if (waiting == s->waiting.paused)
		return;
	wm_pausable_clock_set_paused(&s->waiting, waiting, t->now_ns);
	if (!waiting)
		s->resumed_ns = t->now_ns;
	wm_task_source_pause_clock(t);
}

/* The multiplexer slot of the i-th partition, or NULL once it finished
 * (its slot released, retire_finished()). */
const struct wm_partial_watermark *
wm_task_source_slot_of(const struct wm_task *t, uint32_t local)
{
	const struct task_source *s = t->source;
	const struct wm_source_split *split = s->split_of[s->parts[local]];

	return split != NULL ? &split->slot.partial : NULL;
}

/* Split-level alignment: the partition is not read and its idleness
 * clock stops. A source that cannot pause one partition (allowed by
 * pipeline.watermark-alignment.allow-unaligned-source-splits) is aligned
 * per subtask only. */
void
wm_task_source_pause_partition(struct wm_task *t, uint32_t local, bool paused)
{
	struct task_source *s = t->source;
	struct wm_pausable_clock *held = &s->part[local].held;

	if (paused == held->paused || s->src->ops->pause == NULL ||
	    wm_task_source_slot_of(t, local) == NULL)
		return;
	s->src->ops->pause(s->src, local, paused, t->now_ns);
	wm_source_watermarking_pause_partition(&s->watermarks,
					       s->split_of[s->parts[local]],
					       paused, t->now_ns);
	wm_pausable_clock_set_paused(held, paused, t->now_ns);
	if (!paused)
		s->part[local].resumed_ns = t->now_ns;
}

/* What this subtask reports now, if anything (alignment.h). */
static bool
alignment_report(const struct wm_task *t, wm_ts_t *report)
{
	const struct task_source *s = t->source;

	return wm_alignment_report(
		wm_source_watermarking_current(&s->watermarks),
		wm_source_watermarking_idle(&s->watermarks), t->finished,
		report);
}

/* maxAllowed from the group's reports as they stand: the coordinator's
 * work, done by each member (the result is the same). */
static wm_ts_t
alignment_max_allowed(const struct wm_task *t)
{
	const struct task_source *s = t->source;
	wm_ts_t group_min = WM_TS_MAX;

	for (uint32_t i = 0; i < s->n_peers; i++) {
		struct wm_subtask_metrics *peer = s->peers[i];

		/* A2: acquire, pairs with A1 in the peer. */
		if (!atomic_load_explicit(&peer->alignment_reported,
					  memory_order_acquire))
			continue;
		wm_ts_t r = WM_METRIC_GET(peer->alignment_report);

		if (r < group_min)
			group_min = r;
	}
	return wm_alignment_max_allowed(
		group_min, t->stage->u.source.alignment_max_drift_ms);
}

/* One alignment update (every watermark_alignment_update_interval): this
 * subtask reports, the group's minimum is read from every report so far,
 * and the new maxAllowed pauses or resumes the subtask and its
 * partitions. As in Flink, a subtask that never reported hears nothing. */
void
wm_task_source_align_update(struct wm_task *t)
{
	struct task_source *s = t->source;
	wm_ts_t report;

	if (alignment_report(t, &report)) {
		WM_METRIC_SET(t->metrics->alignment_report, report);
		/* A1: release, pairs with A2: a peer that sees the flag sees
		 * a report of this subtask's (this one or a later one). */
		atomic_store_explicit(&t->metrics->alignment_reported, 1,
				      memory_order_release);
		s->reported = true;
	}
	if (!s->reported || t->finished)
		return;
	s->max_allowed = alignment_max_allowed(t);
	for (uint32_t i = 0; i < s->n_parts; i++)
		if (wm_task_source_slot_of(t, i) != NULL)
			wm_task_source_pause_partition(
				t, i,
				wm_alignment_holds_back(
					wm_task_source_slot_of(t, i)->watermark,
					s->max_allowed));
	wm_task_source_set_waiting(
		t, wm_alignment_holds_back(
			   wm_source_watermarking_current(&s->watermarks),
			   s->max_allowed));
}

/* now + the update interval, saturating. */
int64_t
wm_task_source_align_after(const struct wm_task *t, int64_t now_ns)
{
	return wm_ns_after_ms(now_ns,
			      t->stage->u.source.alignment_update_interval_ms);
}

/*
 * Whether an alignment update now can change anything. It writes the
 * report, which changes only with the subtask's watermark or idleness, and
 * applies maxAllowed, which changes only with the group's reports. With
 * both as at the last update nothing changes: the pauses are those
 * maxAllowed gives, because they are kept so between updates too (a
 * partition or the subtask that runs past maxAllowed is paused at once,
 * watch_partition() and the end of wm_task_run_source(); watermarks only
 * rise, so nothing held back comes free without a new maxAllowed).
 */
bool
wm_task_source_align_can_change(const struct wm_task *t)
{
	const struct task_source *s = t->source;
	wm_ts_t report;

	if (s->peers == NULL || t->finished)
		return false;
	if (alignment_report(t, &report) &&
	    (!s->reported ||
	     WM_METRIC_GET(t->metrics->alignment_report) != report))
		return true;
	return s->reported && alignment_max_allowed(t) != s->max_allowed;
}

int
wm_task_align(struct wm_task *t, void *metrics)
{
	struct task_source *s = t->source;
	uint32_t *ids;
	uint32_t n;

	if (s == NULL)
		return 0; /* only sources align */
	if (s->peers != NULL)
		return -EINVAL;
	n = wm_plan_alignment_peers(t->plan, t->topo, t->id, NULL, 0);
	if (n == 0)
		return 0;
	ids = calloc(n, sizeof(*ids));
	s->peers = calloc(n, sizeof(*s->peers));
	if (ids == NULL || s->peers == NULL) {
		free(ids);
		free(s->peers);
		s->peers = NULL;
		return -ENOMEM;
	}
	wm_plan_alignment_peers(t->plan, t->topo, t->id, ids, n);
	for (uint32_t i = 0; i < n; i++)
		s->peers[i] = wm_plan_block(t->plan, metrics, ids[i]);
	s->n_peers = n;
	free(ids);
	return 0;
}
