/*
 * coordinator.c
 *	Trigger, acknowledge, complete or give up: a real run's checkpoints.
 *
 * The completion's writes (the committer's and the dictionary's blobs, the
 * manifest, the parts into their files: each fsync'd, with the directories
 * they are in) run on a thread of their own, one per checkpoint, so that
 * the supervisor goes on meanwhile: it reaps a worker that died, stops the
 * job on a signal and keeps its deadlines while the disk takes its time
 * (an fsync on a loaded machine took up to 390 ms, 195 s of processing
 * time at speed 500). What keeps the commits exactly-once:
 *
 *   D1  At most one checkpoint from its trigger to its durable completion:
 *       `pending` stays set until the supervisor has joined the thread
 *       that completed it, and no checkpoint is triggered while it is. So
 *       manifests are written, and parts committed, in checkpoint order.
 *   D2  While the thread runs, it alone touches the store, the committer
 *       and the dictionary's saving; the supervisor touches none of them
 *       (collect() and the timeout wait) until it has joined the thread
 *       (durable_join(), after `done`, store-release by the thread last,
 *       load-acquire here).
 *   D3  A checkpoint counts as complete, becomes the one a restart
 *       restores and lets the next trigger come only once joined: its
 *       manifest and parts are durable by then. Every way out of a run
 *       (wm_coordinator_workers_gone(), _finish_outputs(), _free()) joins
 *       first, so no worker is forked, and no file touched, while it runs.
 *   D4  The parts go into their files only after the manifest is durable,
 *       on the thread as before it (a commit cut short fails the job,
 *       whose restart recovers it from the manifest).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "runtime/checkpoint/checkpoint_cycle.h"
#include "runtime/metrics/metrics.h"
#include "runtime/run/coordinator.h"
#include "runtime/checkpoint/exactly_once.h"

/* How often to look for the start line, from which the first interval
 * counts (real time; a start takes milliseconds). */
#define START_POLL_NS ((int64_t)5000000)

struct wm_coordinator {
	const struct wm_topology *topo;
	const struct wm_plan *plan;
	struct wm_checkpoint_cycle *cycle;
	/* The first trigger counts from this attempt's start line, armed
	 * once it is known. */
	bool armed;
	/* Exactly-once outputs (NULL: none): the committer, and by subtask
	 * the newest acknowledgement seen and the newest epoch of its parts
	 * the committer was told of. */
	struct wm_part_commit *commit;
	const int32_t *output_of;
	uint64_t *last_ack;
	uint64_t *told_epoch;
	/* The durable completion of the pending checkpoint, on its thread
	 * (D1-D4 above): `completing` from its start to its join (the
	 * supervisor's alone); `done` set by the thread last (D2); the rest
	 * the thread's until joined: its result, message, figures and when
	 * it ended. */
	bool completing;
	pthread_t completer;
	atomic_bool done;
	int completed_r;
	char completed_err[1024];
	struct wm_checkpoint_figures completed_fig;
	int64_t completed_ns;
};

static int durable_join(struct wm_coordinator *c, bool wait, char *err,
			size_t errlen);

/* Processing-time milliseconds as real nanoseconds at the job's speed. */
static int64_t
real_ns_of(const struct wm_topology *topo, int64_t ms)
{
	if (ms == INT64_MAX)
		return INT64_MAX;
	return wm_scale_ns(wm_ms_to_ns(ms), 1 / topo->job.speed);
}

int
wm_coordinator_new(struct wm_coordinator **out, const struct wm_topology *topo,
		   const struct wm_plan *plan, struct wm_part_commit *commit,
		   const int32_t *output_of, struct wm_keys *keys, char *err,
		   size_t errlen)
{
	const struct wm_job_conf *job = &topo->job;
	struct wm_checkpoint_cycle_config cfg = {
		.topo = topo,
		.plan = plan,
		.commit = commit,
		.keys = keys,
		.every_ns = real_ns_of(topo, job->checkpoint_interval_ms),
		.timeout_ns = real_ns_of(topo, job->checkpoint_timeout_ms),
		.speed = job->speed,
	};
	struct wm_coordinator *c;
	int r;

	*out = NULL;
	if (job->checkpoint_interval_ms == INT64_MAX)
		return 0;
	c = calloc(1, sizeof(*c));
	if (c != NULL) {
		c->last_ack = calloc(plan->n_subtasks, sizeof(*c->last_ack));
		c->told_epoch =
			calloc(plan->n_subtasks, sizeof(*c->told_epoch));
	}
	if (c == NULL || c->last_ack == NULL || c->told_epoch == NULL) {
		wm_coordinator_free(c);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	c->topo = topo;
	c->plan = plan;
	c->commit = commit;
	c->output_of = output_of;
	r = wm_checkpoint_cycle_open(&c->cycle, &cfg, err, errlen);
	if (r != 0) {
		wm_coordinator_free(c);
		return r;
	}
	*out = c;
	return 0;
}

void
wm_coordinator_free(struct wm_coordinator *c)
{
	char why[1024];

	if (c == NULL)
		return;
	(void)durable_join(c, true, why, sizeof(why)); /* D3 */
	wm_checkpoint_cycle_free(c->cycle);
	free(c->last_ack);
	free(c->told_epoch);
	free(c);
}

uint64_t
wm_coordinator_restore_id(const struct wm_coordinator *c)
{
	return c != NULL ? wm_checkpoint_cycle_restore_id(c->cycle) : 0;
}

int64_t
wm_coordinator_restore_time_ms(const struct wm_coordinator *c)
{
	return c != NULL ? wm_checkpoint_cycle_restore_time_ms(c->cycle) : 0;
}

int64_t
wm_coordinator_deadline(const struct wm_coordinator *c, int64_t now_ns)
{
	int64_t next, timeout;

	if (c == NULL)
		return INT64_MAX;
	/* Nothing tells the supervisor when the start line is passed:
	 * until then it looks every START_POLL_NS. */
	if (!c->armed)
		return now_ns + START_POLL_NS;
	/* A completion wakes the supervisor itself (completer_main()); a
	 * trigger that fell due meanwhile comes at once after its join. */
	if (c->completing)
		return INT64_MAX;
	next = wm_checkpoint_cycle_next_trigger(c->cycle);
	timeout = wm_checkpoint_cycle_deadline(c->cycle);
	return timeout < next ? timeout : next;
}

/* Whether a source finished: it takes no barrier any more. */
static bool
a_source_finished(const struct wm_coordinator *c, const struct wm_shm *seg)
{
	for (uint32_t id = 0; id < c->plan->n_subtasks; id++) {
		const struct wm_plan_subtask *sub = &c->plan->subtasks[id];
		struct wm_subtask_metrics *m =
			wm_plan_block(c->plan, wm_shm_metrics_area(seg), id);

		if (c->topo->stages[sub->stage].kind == WM_STAGE_SOURCE &&
		    atomic_load_explicit(&m->finished, memory_order_acquire))
			return true;
	}
	return false;
}

static int
trigger(struct wm_coordinator *c, struct wm_shm *seg, int64_t now_ns,
	int64_t origin_ns, char *err, size_t errlen)
{
	int64_t trigger_ms;
	uint64_t id;
	int r;

	if (!wm_checkpoint_cycle_due(c->cycle, now_ns) ||
	    wm_shm_started(seg) == 0 || a_source_finished(c, seg))
		return 0;
	/* The manifest's trigger time is the job's processing time, as
	 * --sim's: a resumed job's goes on from it. */
	trigger_ms =
		wm_scale_ns(now_ns - origin_ns, c->topo->job.speed) / 1000000;
	r = wm_checkpoint_cycle_begin(c->cycle, now_ns, trigger_ms, &id, err,
				      errlen);
	if (r == 0)
		wm_shm_trigger_checkpoint(seg, id);
	return r;
}

/* Subtask `id` acknowledged checkpoint `acked`: the parts it sealed up to
 * it are on disk, and the committer learns of them (exactly_once.h), for
 * this checkpoint or, if it is given up, the next. */
static int
tell_sealed(struct wm_coordinator *c, uint32_t id, uint64_t acked, char *err,
	    size_t errlen)
{
	const struct wm_plan_subtask *sub = &c->plan->subtasks[id];
	int r = 0;

	c->last_ack[id] = acked;
	if (c->commit == NULL ||
	    !wm_stage_keyed(c->topo->stages[sub->stage].kind))
		return 0;
	r = wm_exactly_once_found_sealed(c->commit, c->output_of, c->topo, sub,
					 c->told_epoch[id], acked, err, errlen);
	if (r == 0)
		c->told_epoch[id] = acked;
	return r;
}

static void *
completer_main(void *arg)
{
	struct wm_coordinator *c = arg;

	c->completed_err[0] = '\0';
	c->completed_r = wm_checkpoint_cycle_complete_durably(
		c->cycle, &c->completed_fig, c->completed_err,
		sizeof(c->completed_err));
	c->completed_ns = wm_monotonic_ns();
	/* D2: the last write of the thread. */
	atomic_store_explicit(&c->done, true, memory_order_release);
	/* The supervisor waits for its signals (worker.h's acknowledgement
	 * too): this one wakes it to join. */
	kill(getpid(), SIGUSR1);
	return NULL;
}

/* Complete the pending checkpoint on a thread of its own (D1-D4), or at
 * once if none can be started. Signals stay with the supervisor's
 * thread. */
static int
durable_start(struct wm_coordinator *c, char *err, size_t errlen)
{
	struct wm_checkpoint_figures fig;
	sigset_t all, old;
	char why[1024];
	int r;

	atomic_store_explicit(&c->done, false, memory_order_relaxed);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&c->completer, NULL, completer_main, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r == 0) {
		c->completing = true;
		return 0;
	}
	why[0] = '\0';
	r = wm_checkpoint_cycle_complete_durably(c->cycle, &fig, why,
						 sizeof(why));
	return wm_checkpoint_cycle_completed(c->cycle, r, why, &fig,
					     wm_monotonic_ns(), err, errlen);
}

/* The completion, joined: at once if `wait`, else only once it ended.
 * 0 with nothing to join or nothing ended yet; otherwise as
 * wm_checkpoint_cycle_completed(), which counts the checkpoint, moves the
 * restore point and frees the next trigger (D1, D3). */
static int
durable_join(struct wm_coordinator *c, bool wait, char *err, size_t errlen)
{
	if (!c->completing ||
	    (!wait && !atomic_load_explicit(&c->done, memory_order_acquire)))
		return 0;
	pthread_join(c->completer, NULL);
	c->completing = false;
	return wm_checkpoint_cycle_completed(
		c->cycle, c->completed_r, c->completed_err, &c->completed_fig,
		c->completed_ns, err, errlen);
}

/* The pending checkpoint failed (err says why): given up, the first
 * message kept. */
static int
failed(struct wm_coordinator *c, int r)
{
	char why[512];

	(void)wm_checkpoint_cycle_give_up(c->cycle, WM_CHECKPOINT_FAILED, why,
					  sizeof(why));
	return r;
}

/* Subtask `id`'s acknowledgement of the pending checkpoint `pending`:
 * 1 when it was the last blob, 0, or a negative errno with a message
 * (the checkpoint given up). */
static int
take_ack(struct wm_coordinator *c, uint32_t id, uint64_t pending,
	 const struct wm_checkpoint_ack *ack, char *err, size_t errlen)
{
	char name[128];

	if (WM_METRIC_GET(ack->failed)) {
		snprintf(err, errlen,
			 "checkpoint %" PRIu64
			 " failed: subtask \"%s\" could not write its "
			 "snapshot",
			 pending,
			 wm_plan_subtask_name(c->plan, c->topo, id, name,
					      sizeof(name)));
		return failed(c, -EIO);
	}
	return wm_checkpoint_cycle_put_written(
		c->cycle, pending, id, WM_METRIC_GET(ack->bytes),
		WM_METRIC_GET(ack->crc), WM_METRIC_GET(ack->alignment_ns), err,
		errlen);
}

/* The blobs acknowledged since the last look; the checkpoint completed
 * once every one is in. */
static int
collect(struct wm_coordinator *c, struct wm_shm *seg, char *err, size_t errlen)
{
	uint64_t pending = wm_checkpoint_cycle_pending(c->cycle);

	/* Once the last blob is in, the completion's thread owns the
	 * committer (D2): no tell_sealed() after it, and none is needed,
	 * every later subtask having acknowledged in an earlier look. */
	for (uint32_t id = 0; id < c->plan->n_subtasks; id++) {
		struct wm_subtask_metrics *m =
			wm_plan_block(c->plan, wm_shm_metrics_area(seg), id);
		/* K2 (metrics.h): the id, then what it acknowledges. */
		uint64_t acked = atomic_load_explicit(&m->checkpoint.id,
						      memory_order_acquire);
		int r;

		if (acked > c->last_ack[id] &&
		    (r = tell_sealed(c, id, acked, err, errlen)) != 0)
			return failed(c, r);
		if (acked != pending)
			continue;
		r = take_ack(c, id, pending, &m->checkpoint, err, errlen);
		if (r < 0)
			return r;
		if (r == 1)
			return durable_start(c, err, errlen);
	}
	return 0;
}

/* The pending checkpoint past its timeout: given up, and the tasks still
 * aligning it unblock (Flink's abort notification). */
static int
time_out(struct wm_coordinator *c, struct wm_shm *seg, char *err, size_t errlen)
{
	uint64_t pending = wm_checkpoint_cycle_pending(c->cycle);
	char why[512];

	snprintf(err, errlen,
		 "checkpoint %" PRIu64 " timed out: %" PRIu32 " of %" PRIu32
		 " subtasks acknowledged it",
		 pending, wm_checkpoint_cycle_acknowledged(c->cycle),
		 c->plan->n_subtasks);
	wm_shm_abort_checkpoint(seg, pending);
	(void)wm_checkpoint_cycle_give_up(c->cycle, WM_CHECKPOINT_TIMED_OUT,
					  why, sizeof(why));
	return -ETIMEDOUT;
}

/* The checkpoints so far into the segment's header, for the observer
 * (shm.h): the supervisor is their one writer, and each look the moment
 * they stand for. */
static void
publish(const struct wm_coordinator *c, struct wm_shm *seg)
{
	const struct wm_checkpoint_tally *t =
		wm_checkpoint_cycle_tally(c->cycle);
	struct wm_shm_checkpoint_stats *s =
		&((struct wm_shm_header *)seg->base)->checkpoints;

	atomic_store_explicit(&s->completed, t->completed,
			      memory_order_relaxed);
	atomic_store_explicit(&s->failed, t->failed + t->timed_out,
			      memory_order_relaxed);
	atomic_store_explicit(&s->in_progress,
			      wm_checkpoint_cycle_pending(c->cycle) != 0,
			      memory_order_relaxed);
	atomic_store_explicit(&s->last_duration_ns, t->duration_last_ns,
			      memory_order_relaxed);
	atomic_store_explicit(&s->last_bytes, t->last_bytes,
			      memory_order_relaxed);
}

int
wm_coordinator_look(struct wm_coordinator *c, struct wm_shm *seg,
		    int64_t now_ns, int64_t origin_ns, char *err, size_t errlen)
{
	int r = 0;

	err[0] = '\0';
	if (c == NULL)
		return 0;
	/* The first interval counts from the start line, once it is known. */
	if (!c->armed && wm_shm_started(seg) != 0) {
		wm_checkpoint_cycle_arm(c->cycle, wm_shm_started(seg));
		c->armed = true;
	}
	r = durable_join(c, false, err, errlen);
	/* Every blob in, being made durable: no timeout cuts that short. */
	if (c->completing) {
		publish(c, seg);
		return r;
	}
	if (r == 0 && wm_checkpoint_cycle_pending(c->cycle) != 0)
		r = collect(c, seg, err, errlen);
	if (r == 0 && !c->completing &&
	    now_ns >= wm_checkpoint_cycle_deadline(c->cycle))
		r = time_out(c, seg, err, errlen);
	/* A trigger due while one is pending (being made durable too) is
	 * not taken (wm_checkpoint_cycle_due()). */
	if (r == 0)
		r = trigger(c, seg, now_ns,
			    origin_ns != 0 ? origin_ns : wm_shm_started(seg),
			    err, errlen);
	publish(c, seg);
	return r;
}

int
wm_coordinator_workers_gone(struct wm_coordinator *c, char *err, size_t errlen)
{
	int joined, r;

	err[0] = '\0';
	if (c == NULL)
		return 0;
	wm_checkpoint_cycle_arm(c->cycle, INT64_MAX);
	c->armed = false;
	/* D3: a checkpoint being made durable is waited for; complete, it is
	 * the one to restore. Its parts cut short: the restart's recovery
	 * finishes them (wm_coordinator_recover_outputs()). */
	joined = durable_join(c, true, err, errlen);
	r = wm_checkpoint_cycle_workers_gone(c->cycle, err, errlen);
	return r != 0 ? r : joined != 0 ? -EIO : 0;
}

void
wm_coordinator_restore_failed(struct wm_coordinator *c, uint64_t id)
{
	if (c != NULL)
		wm_checkpoint_cycle_restore_failed(c->cycle, id);
}

uint64_t
wm_coordinator_first_epoch(const struct wm_coordinator *c)
{
	return c != NULL ? wm_checkpoint_cycle_first_epoch(c->cycle) : 0;
}

int
wm_coordinator_recover_outputs(struct wm_coordinator *c, char *err,
			       size_t errlen)
{
	int r;

	if (c == NULL || c->commit == NULL)
		return 0;
	r = wm_checkpoint_cycle_recover_outputs(c->cycle, err, errlen);
	/* The workers start again: no acknowledgement yet, and their parts
	 * from first_epoch on. */
	for (uint32_t id = 0; id < c->plan->n_subtasks; id++) {
		c->last_ack[id] = 0;
		c->told_epoch[id] = wm_coordinator_first_epoch(c) - 1;
	}
	return r;
}

int
wm_coordinator_finish_outputs(struct wm_coordinator *c, bool ended_well,
			      char *err, size_t errlen)
{
	int r = 0;

	if (c == NULL || c->commit == NULL)
		return 0;
	for (uint32_t id = 0; ended_well && r == 0 && id < c->plan->n_subtasks;
	     id++) {
		const struct wm_plan_subtask *sub = &c->plan->subtasks[id];

		if (wm_stage_keyed(c->topo->stages[sub->stage].kind))
			r = wm_exactly_once_found_sealed(
				c->commit, c->output_of, c->topo, sub,
				c->told_epoch[id], UINT64_MAX, err, errlen);
	}
	return r == 0 ? wm_checkpoint_cycle_finish_outputs(c->cycle, ended_well,
							   err, errlen)
		      : r;
}

void
wm_coordinator_figures(const struct wm_coordinator *c,
		       struct wm_checkpoint_summary *out)
{
	if (c != NULL)
		out->tally = *wm_checkpoint_cycle_tally(c->cycle);
}
