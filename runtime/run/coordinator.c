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
#include "runtime/checkpoint/checkpoint_store.h"
#include "lib/units.h"
#include "runtime/io/keys.h"
#include "base/log.h"
#include "runtime/metrics/metrics.h"
#include "runtime/run/coordinator.h"
#include "runtime/run/exactly_once.h"

/* How often to look for the start line, from which the first interval
 * counts (real time; a start takes milliseconds). */
#define START_POLL_NS ((int64_t)5000000)

struct wm_coordinator {
	const struct wm_topology *topo;
	const struct wm_plan *plan;
	struct wm_checkpoint_store *store;
	int64_t every_ns;   /* the interval, real time */
	int64_t timeout_ns; /* real time */
	int64_t next_ns;    /* the next trigger; INT64_MAX: none */
	/* next_ns counts from this attempt's start line (armed once it is
	 * known). */
	bool armed;
	uint64_t next_id;
	uint64_t restore_id;
	int64_t restore_time_ms; /* its trigger's processing time */
	/* This run's checkpoints are numbered from first_id: an older one
	 * in the directory is an earlier run's state, never restored, but
	 * for a resumed run, which goes on from those (1). */
	uint64_t first_id;
	/* A checkpoint that could not be restored: restores go to those
	 * below it (UINT64_MAX: none failed), until a new one completes. */
	uint64_t restore_below;
	/* The checkpoint being taken (0: none), since when, and which
	 * subtasks' blobs are in. */
	uint64_t pending;
	int64_t pending_since_ns;
	int64_t pending_trigger_ms;
	int64_t pending_deadline_ns;
	uint32_t acknowledged;
	bool *acked;
	/* Exactly-once outputs (NULL: none): the committer, whose blob is
	 * the store's subtask n_subtasks, and by subtask the newest
	 * acknowledgement seen and the newest epoch of its parts the
	 * committer was told of. */
	struct wm_part_commit *commit;
	const int32_t *output_of;
	uint64_t *last_ack;
	uint64_t *told_epoch;
	/* The job's string-key dictionary (NULL: none), whose strings are
	 * the store's subtask keys_blob. */
	struct wm_keys *keys;
	uint32_t keys_blob;
	/* The first checkpoint given up since the last sweep (0: none). A
	 * subtask still writing its blob when the checkpoint was given up
	 * makes its file again after the directory went: every directory
	 * from this id on that no manifest completes is removed once no
	 * subtask can still write into it (sweep()). */
	uint64_t unswept;
	struct wm_checkpoint_summary fig;
	/* The durable completion of `pending`, on its thread (D1-D4 above):
	 * `completing` from its start to its join (the supervisor's alone);
	 * `done` set by the thread last (D2); the rest the thread's until
	 * joined: its result, message, figures and when it ended. */
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
real_ns_of(const struct wm_coordinator *c, int64_t ms)
{
	if (ms == INT64_MAX)
		return INT64_MAX;
	return wm_scale_ns(wm_ms_to_ns(ms), 1 / c->topo->job.speed);
}

/* A resumed job's dictionary: the strings of the checkpoint it resumes
 * from, with the ids its state holds, before any worker interns a key
 * (the traces, read again, interned the first ones in the same order). */
static int
load_keys(struct wm_coordinator *c, char *err, size_t errlen)
{
	char why[512];
	void *blob;
	size_t len;
	int r;

	if (c->keys == NULL)
		return 0;
	r = wm_checkpoint_store_get(c->store, c->restore_id, c->keys_blob,
				    &blob, &len, err, errlen);
	if (r != 0)
		return r;
	r = wm_keys_load(c->keys, blob, len, why, sizeof(why));
	if (r != 0)
		snprintf(err, errlen,
			 "the string keys of checkpoint %" PRIu64
			 " in \"%s\": %s",
			 c->restore_id, c->topo->job.checkpoint_dir, why);
	free(blob);
	return r;
}

int
wm_coordinator_new(struct wm_coordinator **out, const struct wm_topology *topo,
		   const struct wm_plan *plan, struct wm_part_commit *commit,
		   const int32_t *output_of, struct wm_keys *keys, char *err,
		   size_t errlen)
{
	const struct wm_job_conf *job = &topo->job;
	struct wm_checkpoint_store_config cfg = {
		.dir = job->checkpoint_dir,
		.fingerprint = wm_plan_fingerprint(plan, topo),
		.subtasks = wm_coordinator_blobs(plan, commit != NULL,
						 keys != NULL),
		.retained = job->checkpoints_retained,
	};
	struct wm_checkpoint_info info;
	struct wm_coordinator *c;
	int r;

	*out = NULL;
	if (job->checkpoint_interval_ms == INT64_MAX)
		return 0;
	c = calloc(1, sizeof(*c));
	if (c != NULL) {
		c->acked = calloc(plan->n_subtasks, sizeof(*c->acked));
		c->last_ack = calloc(plan->n_subtasks, sizeof(*c->last_ack));
		c->told_epoch =
			calloc(plan->n_subtasks, sizeof(*c->told_epoch));
	}
	if (c == NULL || c->acked == NULL || c->last_ack == NULL ||
	    c->told_epoch == NULL) {
		if (c != NULL) {
			free(c->acked);
			free(c->last_ack);
			free(c->told_epoch);
		}
		free(c);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	c->topo = topo;
	c->plan = plan;
	c->commit = commit;
	c->output_of = output_of;
	c->keys = keys;
	c->keys_blob = wm_coordinator_blobs(plan, commit != NULL, false);
	c->every_ns = real_ns_of(c, job->checkpoint_interval_ms);
	if (c->every_ns < 1)
		c->every_ns = 1;
	c->timeout_ns = real_ns_of(c, job->checkpoint_timeout_ms);
	c->next_ns = INT64_MAX; /* from the start line on */
	c->restore_below = UINT64_MAX;
	r = wm_checkpoint_store_new(&c->store, &cfg, err, errlen);
	if (r == 0)
		r = wm_checkpoint_store_latest_complete(c->store, &info, err,
							errlen);
	/* A new run starts from the beginning whatever the directory holds,
	 * another job's checkpoints too (this job's with other outputs are
	 * another job's: they hold no committer's blob, or one of other
	 * files); a resumed one from its own latest complete checkpoint,
	 * which must be there. */
	if (r == -EXDEV && !job->resume)
		r = 0;
	/* The fingerprint covers what a snapshot's layout depends on
	 * (plan.h): say what to look for. */
	if (r == -EXDEV) {
		size_t len = strlen(err);

		snprintf(err + len, errlen - len,
			 " (its stages, windows or sources differ from this "
			 "job's)");
	}
	if (r < 0) {
		wm_coordinator_free(c);
		return r;
	}
	/* Ids go on from those already in the directory, complete or not,
	 * and whatever is named chk-N there: a new checkpoint never takes
	 * the name of an old one, nor of a stray file. */
	c->next_id = info.highest_id + 1;
	c->first_id = job->resume ? 1 : c->next_id;
	if (job->resume && r == 0) {
		snprintf(err, errlen,
			 "no complete checkpoint to resume from in \"%s\"",
			 job->checkpoint_dir);
		wm_coordinator_free(c);
		return -ENOENT;
	}
	if (job->resume) {
		c->restore_id = info.id;
		c->restore_time_ms = info.trigger_time_ms;
		r = load_keys(c, err, errlen);
		if (r != 0) {
			wm_coordinator_free(c);
			return r;
		}
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
	wm_checkpoint_store_free(c->store);
	free(c->acked);
	free(c->last_ack);
	free(c->told_epoch);
	free(c);
}

uint64_t
wm_coordinator_restore_id(const struct wm_coordinator *c)
{
	return c != NULL ? c->restore_id : 0;
}

int64_t
wm_coordinator_restore_time_ms(const struct wm_coordinator *c)
{
	return c != NULL && c->restore_id != 0 ? c->restore_time_ms : 0;
}

int64_t
wm_coordinator_deadline(const struct wm_coordinator *c, int64_t now_ns)
{
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
	if (c->pending != 0 && c->pending_deadline_ns < c->next_ns)
		return c->pending_deadline_ns;
	return c->next_ns;
}

/* Whether a source finished: it takes no barrier any more. */
static bool
a_source_finished(const struct wm_coordinator *c, const struct wm_shm *seg)
{
	for (uint32_t id = 0; id < c->plan->n_subtasks; id++) {
		const struct wm_plan_subtask *sub = &c->plan->subtasks[id];
		struct wm_subtask_metrics *m = wm_shm_metrics(seg, id);

		if (c->topo->stages[sub->stage].kind == WM_STAGE_SOURCE &&
		    atomic_load_explicit(&m->finished, memory_order_acquire))
			return true;
	}
	return false;
}

/* Give the pending checkpoint up (timed out, or the store failed): its
 * directory goes, the job goes on. */
static void
give_up(struct wm_coordinator *c, char *err, size_t errlen)
{
	char why[512];

	if (wm_checkpoint_store_abort(c->store, c->pending, why, sizeof(why)) !=
		    0 &&
	    err[0] == '\0')
		snprintf(err, errlen, "%s", why);
	if (c->unswept == 0)
		c->unswept = c->pending;
	c->pending = 0;
}

/*
 * Remove what late writers left of the checkpoints given up below `below`:
 * called when none of them can write any more, after a commit of `below`
 * (each subtask handles barriers in order, so every one that acknowledged
 * `below` is done with the earlier ones) or once the workers are gone.
 * Complete checkpoints are left (the store refuses to abort them). 0, or
 * -EIO with the first failure in err.
 */
static int
sweep(struct wm_coordinator *c, uint64_t below, char *err, size_t errlen)
{
	int failed = 0;

	for (uint64_t id = c->unswept; id != 0 && id < below; id++) {
		char why[512];
		int r = wm_checkpoint_store_abort(c->store, id, why,
						  sizeof(why));

		if (r != 0 && r != -EBUSY && !failed) {
			snprintf(err, errlen, "%s", why);
			failed = -EIO;
		}
	}
	c->unswept = 0;
	return failed;
}

static int
trigger(struct wm_coordinator *c, struct wm_shm *seg, int64_t now_ns,
	int64_t origin_ns, char *err, size_t errlen)
{
	int64_t started = wm_shm_started(seg);
	int r;

	while (c->next_ns <= now_ns)
		c->next_ns = c->next_ns <= INT64_MAX - c->every_ns
				     ? c->next_ns + c->every_ns
				     : INT64_MAX;
	if (c->pending != 0 || started == 0 || a_source_finished(c, seg))
		return 0;
	/* The manifest's trigger time is the job's processing time, as
	 * --sim's: a resumed job's goes on from it. */
	c->pending_trigger_ms =
		wm_scale_ns(now_ns - origin_ns, c->topo->job.speed) / 1000000;
	r = wm_checkpoint_store_begin(c->store, c->next_id,
				      c->pending_trigger_ms, err, errlen);
	if (r != 0) {
		/* The next one takes the next id: a chk-N that could not be
		 * made (something else took the name since the start) must
		 * not fail every checkpoint after it. */
		c->next_id++;
		c->fig.failed++;
		return r;
	}
	c->pending = c->next_id++;
	c->pending_since_ns = now_ns;
	c->pending_deadline_ns =
		c->timeout_ns == INT64_MAX || now_ns > INT64_MAX - c->timeout_ns
			? INT64_MAX
			: now_ns + c->timeout_ns;
	c->acknowledged = 0;
	memset(c->acked, 0, c->plan->n_subtasks * sizeof(*c->acked));
	wm_shm_trigger_checkpoint(seg, c->pending);
	return 0;
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
	    c->topo->stages[sub->stage].kind != WM_STAGE_WINDOW)
		return 0;
	r = wm_exactly_once_found_sealed(c->commit, c->output_of, c->topo, sub,
					 c->told_epoch[id], acked, err, errlen);
	if (r == 0)
		c->told_epoch[id] = acked;
	return r;
}

/* The committer's blob of the pending checkpoint, the store's last
 * subtask (part_commit.h says why). */
static int
put_commit_blob(struct wm_coordinator *c, char *err, size_t errlen)
{
	void *blob;
	size_t len;
	int r;

	if (c->commit == NULL)
		return 0;
	if (wm_part_commit_prepare(c->commit, c->pending, &blob, &len) != 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r = wm_checkpoint_store_put(c->store, c->plan->n_subtasks, blob, len,
				    err, errlen);
	free(blob);
	return r;
}

/* The dictionary's blob of the pending checkpoint. Saved after every
 * subtask's snapshot: it holds every id they hold, and perhaps later
 * ones, which a restore only keeps (wm_keys_save()). */
static int
put_keys_blob(struct wm_coordinator *c, char *err, size_t errlen)
{
	char *blob;
	size_t len;
	int r;

	if (c->keys == NULL)
		return 0;
	if (wm_keys_save(c->keys, &blob, &len) != 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r = wm_checkpoint_store_put(c->store, c->keys_blob, blob, len, err,
				    errlen);
	free(blob);
	return r;
}

/*
 * The durable writes of `pending`, every subtask's blob in: the
 * committer's and the dictionary's blobs, the manifest, then the parts
 * into their files (D4). Blocks on the disk; on the completer's thread, or
 * the supervisor's if none could be started. Returns 0, -ECANCELED when
 * the parts could not all go into their files (the job must fail), or
 * another negative errno when the checkpoint failed; err says why.
 */
static int
complete_durably(struct wm_coordinator *c, struct wm_checkpoint_figures *fig,
		 char *err, size_t errlen)
{
	char why[512];
	int r = put_commit_blob(c, err, errlen);

	if (r == 0)
		r = put_keys_blob(c, err, errlen);
	if (r != 0) {
		/* Its directory goes; every subtask is done with it (they
		 * all acknowledged), so nothing is left to sweep. */
		(void)wm_checkpoint_store_abort(c->store, c->pending, why,
						sizeof(why));
		return r;
	}
	r = wm_checkpoint_store_commit(c->store, fig, err, errlen);
	if (r != 0)
		return r;
	/* Only now, the manifest durable, the parts go into the files; a
	 * commit cut short fails the job, whose restart recovers it. */
	if (c->commit != NULL &&
	    wm_part_commit_commit(c->commit, fig->id, err, errlen) != 0)
		return -ECANCELED;
	return 0;
}

static void *
completer_main(void *arg)
{
	struct wm_coordinator *c = arg;

	c->completed_err[0] = '\0';
	c->completed_r =
		complete_durably(c, &c->completed_fig, c->completed_err,
				 sizeof(c->completed_err));
	c->completed_ns = wm_monotonic_ns();
	/* D2: the last write of the thread. */
	atomic_store_explicit(&c->done, true, memory_order_release);
	/* The supervisor waits for its signals (worker.h's acknowledgement
	 * too): this one wakes it to join. */
	kill(getpid(), SIGUSR1);
	return NULL;
}

/* What the supervisor makes of a completion, joined: the checkpoint
 * counted, the restore point moved, the next trigger free (D1, D3). */
static int
durable_end(struct wm_coordinator *c, int r, const char *why,
	    const struct wm_checkpoint_figures *fig, int64_t done_ns, char *err,
	    size_t errlen)
{
	c->pending = 0;
	if (r != 0) {
		snprintf(err, errlen, "%s", why);
		if (r != -ECANCELED)
			c->fig.failed++;
		return r;
	}
	c->fig.completed++;
	c->fig.last_id = fig->id;
	c->fig.bytes_total += fig->blob_bytes;
	c->fig.last_bytes = fig->blob_bytes;
	c->restore_id = fig->id;
	c->restore_time_ms = c->pending_trigger_ms;
	c->restore_below = UINT64_MAX;
	/* Trigger to manifest durable, in processing time as --sim's. */
	int64_t took =
		wm_scale_ns(done_ns - c->pending_since_ns, c->topo->job.speed);
	if (took > c->fig.duration_max_ns)
		c->fig.duration_max_ns = took;
	c->fig.duration_total_ns += took;
	return sweep(c, fig->id, err, errlen);
}

/* Complete `pending` on a thread of its own (D1-D4), or at once if none
 * can be started. Signals stay with the supervisor's thread. */
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
	r = complete_durably(c, &fig, why, sizeof(why));
	return durable_end(c, r, why, &fig, wm_monotonic_ns(), err, errlen);
}

/* The completion, joined: at once if `wait`, else only once it ended.
 * 0 with nothing to join or nothing ended yet; otherwise as
 * durable_end(). */
static int
durable_join(struct wm_coordinator *c, bool wait, char *err, size_t errlen)
{
	if (!c->completing ||
	    (!wait && !atomic_load_explicit(&c->done, memory_order_acquire)))
		return 0;
	pthread_join(c->completer, NULL);
	c->completing = false;
	return durable_end(c, c->completed_r, c->completed_err,
			   &c->completed_fig, c->completed_ns, err, errlen);
}

/* The blobs acknowledged since the last look; the checkpoint completed
 * once every one is in. */
static int
collect(struct wm_coordinator *c, struct wm_shm *seg, char *err, size_t errlen)
{
	int r;

	for (uint32_t id = 0; id < c->plan->n_subtasks; id++) {
		struct wm_subtask_metrics *m = wm_shm_metrics(seg, id);
		struct wm_checkpoint_ack *ack = &m->checkpoint;
		/* K2 (metrics.h): the id, then what it acknowledges. */
		uint64_t acked =
			atomic_load_explicit(&ack->id, memory_order_acquire);
		int64_t aligned;

		if (acked > c->last_ack[id] &&
		    (r = tell_sealed(c, id, acked, err, errlen)) != 0) {
			c->fig.failed++;
			give_up(c, err, errlen);
			return r;
		}
		if (c->acked[id] || acked != c->pending)
			continue;
		if (WM_METRIC_GET(ack->failed)) {
			char name[128];

			snprintf(err, errlen,
				 "checkpoint %" PRIu64
				 " failed: subtask \"%s\" could not write "
				 "its snapshot",
				 c->pending,
				 wm_plan_subtask_name(c->plan, c->topo, id,
						      name, sizeof(name)));
			r = -EIO;
		} else {
			r = wm_checkpoint_store_put_written(
				c->store, id, WM_METRIC_GET(ack->bytes),
				WM_METRIC_GET(ack->crc), err, errlen);
		}
		if (r != 0) {
			c->fig.failed++;
			give_up(c, err, errlen);
			return r;
		}
		aligned = WM_METRIC_GET(ack->alignment_ns);
		if (aligned > c->fig.alignment_max_ns)
			c->fig.alignment_max_ns = aligned;
		c->acked[id] = true;
		c->acknowledged++;
	}
	if (c->acknowledged < c->plan->n_subtasks)
		return 0;
	return durable_start(c, err, errlen);
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
		c->next_ns = wm_shm_started(seg) + c->every_ns;
		c->armed = true;
	}
	r = durable_join(c, false, err, errlen);
	/* Every blob in, being made durable: no timeout cuts that short. */
	if (c->completing)
		return r;
	if (r == 0 && c->pending != 0)
		r = collect(c, seg, err, errlen);
	if (r == 0 && c->pending != 0 && !c->completing &&
	    now_ns >= c->pending_deadline_ns) {
		c->fig.timed_out++;
		snprintf(err, errlen,
			 "checkpoint %" PRIu64 " timed out: %" PRIu32
			 " of %" PRIu32 " subtasks acknowledged it",
			 c->pending, c->acknowledged, c->plan->n_subtasks);
		/* Tasks still aligning it unblock (Flink's abort
		 * notification); the blobs written are removed with it. */
		wm_shm_abort_checkpoint(seg, c->pending);
		give_up(c, err, errlen);
		r = -ETIMEDOUT;
	}
	if (r == 0 && now_ns >= c->next_ns)
		r = trigger(c, seg, now_ns,
			    origin_ns != 0 ? origin_ns : wm_shm_started(seg),
			    err, errlen);
	return r;
}

/* The checkpoint a restart restores: the latest complete one below
 * restore_below, read again with every blob checked (one damaged since it
 * was written is skipped with a warning and the one before it taken, as
 * is one that could not be restored); none of this run's left: none (0),
 * from the beginning. */
static int
choose_restore(struct wm_coordinator *c, char *err, size_t errlen)
{
	struct wm_checkpoint_info info;
	int r = wm_checkpoint_store_latest_complete_below(
		c->store, c->restore_below, &info, err, errlen);

	if (r == -EXDEV && !c->topo->job.resume)
		r = 0; /* an earlier job's, below every one of this run */
	if (r < 0)
		return r;
	c->restore_id = r == 1 && info.id >= c->first_id ? info.id : 0;
	c->restore_time_ms = c->restore_id != 0 ? info.trigger_time_ms : 0;
	return 0;
}

int
wm_coordinator_workers_gone(struct wm_coordinator *c, char *err, size_t errlen)
{
	int joined, r;

	err[0] = '\0';
	if (c == NULL)
		return 0;
	c->next_ns = INT64_MAX;
	c->armed = false;
	/* D3: a checkpoint being made durable is waited for; complete, it is
	 * the one to restore. Its parts cut short: the restart's recovery
	 * finishes them (wm_coordinator_recover_outputs()). */
	joined = durable_join(c, true, err, errlen);
	if (c->pending != 0) {
		give_up(c, err, errlen);
		if (err[0] != '\0')
			return -EIO;
	}
	if (sweep(c, c->next_id, err, errlen) != 0)
		return -EIO;
	r = choose_restore(c, err, errlen);
	return r != 0 ? r : joined != 0 ? -EIO : 0;
}

void
wm_coordinator_restore_failed(struct wm_coordinator *c, uint64_t id)
{
	if (c != NULL && id != 0 && id < c->restore_below)
		c->restore_below = id;
}

uint64_t
wm_coordinator_first_epoch(const struct wm_coordinator *c)
{
	if (c == NULL)
		return 0;
	return c->restore_id != 0 ? c->restore_id + 1 : c->next_id;
}

/* The files back to checkpoint c->restore_id (0: none). */
static int
recover_to_restore(struct wm_coordinator *c, char *err, size_t errlen)
{
	void *blob = NULL;
	size_t len = 0;
	int r = 0;

	if (c->restore_id != 0)
		r = wm_checkpoint_store_get(c->store, c->restore_id,
					    c->plan->n_subtasks, &blob, &len,
					    err, errlen);
	if (r == 0)
		r = wm_part_commit_recover(c->commit, c->restore_id, blob, len,
					   err, errlen);
	free(blob);
	return r;
}

int
wm_coordinator_recover_outputs(struct wm_coordinator *c, char *err,
			       size_t errlen)
{
	int r;

	if (c == NULL || c->commit == NULL)
		return 0;
	/* A committer's blob the recovery refused, or one the files
	 * contradict, is no transient fault, as a subtask's snapshot that
	 * could not be restored: the checkpoint before it, or none left
	 * (-EBADMSG; part_commit.h says why the older recovery is sound). */
	while ((r = recover_to_restore(c, err, errlen)) == -EBADMSG &&
	       c->restore_id != 0) {
		uint64_t failed = c->restore_id;
		char why[512];
		size_t len;

		wm_exactly_once_unrestorable(err, errlen, c->topo, failed);
		wm_coordinator_restore_failed(c, failed);
		if ((r = choose_restore(c, why, sizeof(why))) != 0) {
			snprintf(err, errlen, "%s", why);
			return r;
		}
		if (c->restore_id == 0) {
			len = strlen(err);
			snprintf(err + len, errlen - len,
				 "; no complete checkpoint before it to fall "
				 "back to");
			return -EBADMSG;
		}
		wm_log("wmrun: notice: %s; restoring checkpoint %" PRIu64
		       " instead",
		       err, c->restore_id);
	}
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
	if (!ended_well)
		return wm_part_commit_discard(c->commit, err, errlen);
	for (uint32_t id = 0; r == 0 && id < c->plan->n_subtasks; id++) {
		const struct wm_plan_subtask *sub = &c->plan->subtasks[id];

		if (c->topo->stages[sub->stage].kind == WM_STAGE_WINDOW)
			r = wm_exactly_once_found_sealed(
				c->commit, c->output_of, c->topo, sub,
				c->told_epoch[id], UINT64_MAX, err, errlen);
	}
	return r == 0 ? wm_part_commit_finish(c->commit, err, errlen) : r;
}

void
wm_coordinator_figures(const struct wm_coordinator *c,
		       struct wm_checkpoint_summary *out)
{
	if (c == NULL)
		return;
	out->completed = c->fig.completed;
	out->last_id = c->fig.last_id;
	out->bytes_total = c->fig.bytes_total;
	out->last_bytes = c->fig.last_bytes;
	out->duration_max_ns = c->fig.duration_max_ns;
	out->duration_total_ns = c->fig.duration_total_ns;
	out->alignment_max_ns = c->fig.alignment_max_ns;
	out->timed_out = c->fig.timed_out;
	out->failed = c->fig.failed;
}
