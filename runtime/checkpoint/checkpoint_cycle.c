/*
 * checkpoint_cycle.c
 *	Begin, acknowledge, complete, give up, choose the restore: one
 *	implementation of a checkpoint's life for both drivers (the rules
 *	are in checkpoint_cycle.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "runtime/checkpoint/checkpoint_cycle.h"
#include "runtime/engine/task.h"
#include "runtime/io/keys.h"

struct wm_checkpoint_cycle {
	const struct wm_topology *topo;
	uint32_t n_subtasks;
	struct wm_checkpoint_store *store;
	struct wm_part_commit *commit; /* blob n_subtasks; NULL: none */
	struct wm_keys *keys;	       /* blob keys_blob; NULL: none */
	uint32_t keys_blob;
	int64_t every_ns, timeout_ns; /* the driver's clock */
	double speed;
	int64_t next_ns; /* the next trigger; INT64_MAX: not armed */
	uint64_t next_id;
	uint64_t first_id; /* this run's first; 1 for a resumed run */
	uint64_t restore_id;
	int64_t restore_time_ms; /* its trigger's processing time */
	/* A checkpoint that could not be restored: restores go to those
	 * below it (UINT64_MAX: none failed), until a new one completes. */
	uint64_t restore_below;
	/* The checkpoint being taken (0: none), since when, its trigger's
	 * processing time, and which subtasks' blobs are in. */
	uint64_t pending;
	int64_t pending_since_ns;
	int64_t pending_trigger_ms;
	uint32_t acknowledged;
	bool *acked;
	/* The first checkpoint given up since the last sweep (0: none):
	 * every directory from this id on that no manifest completes is
	 * removed once no subtask can still write into it (sweep()). */
	uint64_t unswept;
	struct wm_checkpoint_tally tally;
};

/* A resumed job's dictionary: the strings of the checkpoint it resumes
 * from, with the ids its state holds, before any worker interns a key
 * (the traces, read again, interned the first ones in the same order). */
static int
load_keys(struct wm_checkpoint_cycle *c, char *err, size_t errlen)
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

/* The store on [job] checkpoint_dir, and where this run's ids start. */
static int
open_store(struct wm_checkpoint_cycle *c,
	   const struct wm_checkpoint_cycle_config *cfg,
	   struct wm_checkpoint_info *latest, char *err, size_t errlen)
{
	const struct wm_job_conf *job = &cfg->topo->job;
	struct wm_checkpoint_store_config store = {
		.dir = job->checkpoint_dir,
		.fingerprint = wm_plan_fingerprint(cfg->plan, cfg->topo),
		.event_time_origin_ms = job->event_time_origin_ms,
		.subtasks = wm_checkpoint_cycle_blobs(
			cfg->plan, cfg->commit != NULL, cfg->keys != NULL),
		.retained = job->checkpoints_retained,
		.now_ns = cfg->now_ns,
		.ctx = cfg->ctx,
	};
	int r = wm_checkpoint_store_new(&c->store, &store, err, errlen);

	if (r == 0)
		r = wm_checkpoint_store_latest_complete(c->store, latest, err,
							errlen);
	/* A new run starts from the beginning whatever the directory holds,
	 * another job's checkpoints too (this job's with other outputs are
	 * another job's: they hold no committer's blob, or one of other
	 * files); a resumed one from its own latest complete checkpoint,
	 * which must be there. */
	if (r == -EXDEV && !job->resume)
		return 0;
	/* The fingerprint covers what a snapshot's layout depends on
	 * (plan.h): say what to look for. */
	if (r == -EXDEV) {
		size_t len = strlen(err);

		snprintf(err + len, errlen - len,
			 " (its stages, windows or sources differ from this "
			 "job's)");
	}
	if (r < 0)
		return r;
	if (job->resume && r == 0) {
		snprintf(err, errlen,
			 "no complete checkpoint to resume from in \"%s\"",
			 job->checkpoint_dir);
		return -ENOENT;
	}
	return 0;
}

int
wm_checkpoint_cycle_open(struct wm_checkpoint_cycle **out,
			 const struct wm_checkpoint_cycle_config *cfg,
			 char *err, size_t errlen)
{
	const struct wm_job_conf *job = &cfg->topo->job;
	struct wm_checkpoint_info latest = {0};
	struct wm_checkpoint_cycle *c = calloc(1, sizeof(*c));
	int r;

	*out = NULL;
	if (c == NULL || (c->acked = calloc(cfg->plan->n_subtasks,
					    sizeof(*c->acked))) == NULL) {
		free(c);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	c->topo = cfg->topo;
	c->n_subtasks = cfg->plan->n_subtasks;
	c->commit = cfg->commit;
	c->keys = cfg->keys;
	c->keys_blob = wm_checkpoint_cycle_blobs(cfg->plan, cfg->commit != NULL,
						 false);
	c->every_ns = cfg->every_ns > 0 ? cfg->every_ns : 1;
	c->timeout_ns = cfg->timeout_ns;
	c->speed = cfg->speed;
	c->next_ns = INT64_MAX;
	c->restore_below = UINT64_MAX;
	r = open_store(c, cfg, &latest, err, errlen);
	if (r == 0) {
		/* Ids go on from those already in the directory, complete
		 * or not, and whatever is named chk-N there. */
		c->next_id = latest.highest_id + 1;
		c->first_id = job->resume ? 1 : c->next_id;
	}
	if (r == 0 && job->resume) {
		c->restore_id = latest.id;
		c->restore_time_ms = latest.trigger_time_ms;
		r = load_keys(c, err, errlen);
	}
	if (r != 0) {
		wm_checkpoint_cycle_free(c);
		return r;
	}
	*out = c;
	return 0;
}

void
wm_checkpoint_cycle_free(struct wm_checkpoint_cycle *c)
{
	if (c == NULL)
		return;
	wm_checkpoint_store_free(c->store);
	free(c->acked);
	free(c);
}

struct wm_checkpoint_store *
wm_checkpoint_cycle_store(const struct wm_checkpoint_cycle *c)
{
	return c->store;
}

void
wm_checkpoint_cycle_arm(struct wm_checkpoint_cycle *c, int64_t from_ns)
{
	c->next_ns = from_ns <= INT64_MAX - c->every_ns ? from_ns + c->every_ns
							: INT64_MAX;
}

/* The next trigger moved past `now_ns` on its grid. */
static void
step_past(struct wm_checkpoint_cycle *c, int64_t now_ns)
{
	while (c->next_ns <= now_ns)
		c->next_ns = c->next_ns <= INT64_MAX - c->every_ns
				     ? c->next_ns + c->every_ns
				     : INT64_MAX;
}

void
wm_checkpoint_cycle_skip_to(struct wm_checkpoint_cycle *c, int64_t now_ns)
{
	int64_t k;

	if (now_ns <= c->next_ns)
		return;
	/* Whole intervals at once: a long time down is one step. */
	k = (now_ns - c->next_ns - 1) / c->every_ns + 1;
	c->next_ns = k > (INT64_MAX - c->next_ns) / c->every_ns
			     ? INT64_MAX
			     : c->next_ns + k * c->every_ns;
}

int64_t
wm_checkpoint_cycle_next_trigger(const struct wm_checkpoint_cycle *c)
{
	return c->next_ns;
}

bool
wm_checkpoint_cycle_due(struct wm_checkpoint_cycle *c, int64_t now_ns)
{
	bool due = c->next_ns <= now_ns;

	step_past(c, now_ns);
	return due && c->pending == 0;
}

int
wm_checkpoint_cycle_begin(struct wm_checkpoint_cycle *c, int64_t now_ns,
			  int64_t trigger_ms, uint64_t *id, char *err,
			  size_t errlen)
{
	int r = wm_checkpoint_store_begin(c->store, c->next_id, trigger_ms, err,
					  errlen);

	*id = 0;
	if (r != 0) {
		c->next_id++;
		c->tally.failed++;
		return r;
	}
	c->pending = *id = c->next_id++;
	c->pending_since_ns = now_ns;
	c->pending_trigger_ms = trigger_ms;
	c->acknowledged = 0;
	memset(c->acked, 0, c->n_subtasks * sizeof(*c->acked));
	return 0;
}

uint64_t
wm_checkpoint_cycle_pending(const struct wm_checkpoint_cycle *c)
{
	return c->pending;
}

uint32_t
wm_checkpoint_cycle_acknowledged(const struct wm_checkpoint_cycle *c)
{
	return c->acknowledged;
}

int64_t
wm_checkpoint_cycle_deadline(const struct wm_checkpoint_cycle *c)
{
	if (c->pending == 0 || c->timeout_ns == INT64_MAX ||
	    c->pending_since_ns > INT64_MAX - c->timeout_ns)
		return INT64_MAX;
	return c->pending_since_ns + c->timeout_ns;
}

int
wm_checkpoint_cycle_give_up(struct wm_checkpoint_cycle *c,
			    enum wm_checkpoint_give_up how, char *err,
			    size_t errlen)
{
	uint64_t id = c->pending;

	if (id == 0)
		return 0;
	c->pending = 0;
	if (how == WM_CHECKPOINT_FAILED)
		c->tally.failed++;
	else if (how == WM_CHECKPOINT_TIMED_OUT)
		c->tally.timed_out++;
	if (c->unswept == 0)
		c->unswept = id;
	return wm_checkpoint_store_abort(c->store, id, err, errlen) != 0 ? -EIO
									 : 0;
}

/* A blob of subtask `subtask` of `id` counts once, and only for the
 * checkpoint pending. */
static bool
wanted(const struct wm_checkpoint_cycle *c, uint64_t id, uint32_t subtask)
{
	return id != 0 && id == c->pending && !c->acked[subtask];
}

/* Subtask `subtask`'s blob went into the store with result `r`: counted,
 * or the checkpoint given up (the store's message kept). */
static int
acknowledged(struct wm_checkpoint_cycle *c, uint32_t subtask, int r)
{
	if (r != 0) {
		char why[512];

		(void)wm_checkpoint_cycle_give_up(c, WM_CHECKPOINT_FAILED, why,
						  sizeof(why));
		return r;
	}
	c->acked[subtask] = true;
	c->acknowledged++;
	return c->acknowledged == c->n_subtasks;
}

int
wm_checkpoint_cycle_put(struct wm_checkpoint_cycle *c, uint64_t id,
			uint32_t subtask, const void *bytes, size_t len,
			char *err, size_t errlen)
{
	if (!wanted(c, id, subtask))
		return 0;
	return acknowledged(c, subtask,
			    wm_checkpoint_store_put(c->store, subtask, bytes,
						    len, err, errlen));
}

int
wm_checkpoint_cycle_put_written(struct wm_checkpoint_cycle *c, uint64_t id,
				uint32_t subtask, uint64_t size, uint32_t crc,
				int64_t alignment_ns, char *err, size_t errlen)
{
	int r;

	if (!wanted(c, id, subtask))
		return 0;
	r = acknowledged(c, subtask,
			 wm_checkpoint_store_put_written(
				 c->store, subtask, size, crc, err, errlen));
	/* An alignment counts with the blob it took: one the store refused
	 * gave the checkpoint up. */
	if (r >= 0 && alignment_ns > c->tally.alignment_max_ns)
		c->tally.alignment_max_ns = alignment_ns;
	return r;
}

/* The committer's blob of the pending checkpoint, the store's blob after
 * the subtasks' (part_commit.h says why). */
static int
put_commit_blob(struct wm_checkpoint_cycle *c, char *err, size_t errlen)
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
	r = wm_checkpoint_store_put(c->store, c->n_subtasks, blob, len, err,
				    errlen);
	free(blob);
	return r;
}

/* The dictionary's blob of the pending checkpoint. Saved after every
 * subtask's snapshot: it holds every id they hold, and perhaps later
 * ones, which a restore only keeps (wm_keys_save()). */
static int
put_keys_blob(struct wm_checkpoint_cycle *c, char *err, size_t errlen)
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

int
wm_checkpoint_cycle_complete_durably(struct wm_checkpoint_cycle *c,
				     struct wm_checkpoint_figures *fig,
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

/*
 * Remove what late writers left of the checkpoints given up below `below`:
 * called when none of them can write any more, after a commit of `below`
 * (each subtask handles barriers in order, so every one that acknowledged
 * `below` is done with the earlier ones) or once the subtasks are gone.
 * Complete checkpoints are left (the store refuses to abort them). 0, or
 * -EIO with the first failure in err.
 */
static int
sweep(struct wm_checkpoint_cycle *c, uint64_t below, char *err, size_t errlen)
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

int
wm_checkpoint_cycle_completed(struct wm_checkpoint_cycle *c, int r,
			      const char *why,
			      const struct wm_checkpoint_figures *fig,
			      int64_t done_ns, char *err, size_t errlen)
{
	struct wm_checkpoint_tally *t = &c->tally;
	int64_t took;

	c->pending = 0;
	if (r != 0) {
		snprintf(err, errlen, "%s", why);
		if (r != -ECANCELED)
			t->failed++;
		return r;
	}
	t->completed++;
	t->last_id = fig->id;
	t->bytes_total += fig->blob_bytes;
	t->last_bytes = fig->blob_bytes;
	c->restore_id = fig->id;
	c->restore_time_ms = c->pending_trigger_ms;
	c->restore_below = UINT64_MAX;
	/* Trigger to manifest durable, in processing time. */
	took = c->speed == 1.0
		       ? done_ns - c->pending_since_ns
		       : wm_scale_ns(done_ns - c->pending_since_ns, c->speed);
	if (took > t->duration_max_ns)
		t->duration_max_ns = took;
	t->duration_total_ns += took;
	t->duration_last_ns = took;
	return sweep(c, fig->id, err, errlen);
}

/* The checkpoint a restart restores: the latest complete one below
 * restore_below, read again with every blob checked (one damaged since it
 * was written is skipped with a warning and the one before it taken, as
 * is one that could not be restored); none of this run's left: none (0),
 * from the beginning. */
static int
choose_restore(struct wm_checkpoint_cycle *c, char *err, size_t errlen)
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
wm_checkpoint_cycle_workers_gone(struct wm_checkpoint_cycle *c, char *err,
				 size_t errlen)
{
	int r = wm_checkpoint_cycle_give_up(c, WM_CHECKPOINT_CUT_SHORT, err,
					    errlen);

	if (r == 0)
		r = sweep(c, c->next_id, err, errlen);
	return r != 0 ? r : choose_restore(c, err, errlen);
}

uint64_t
wm_checkpoint_cycle_restore_id(const struct wm_checkpoint_cycle *c)
{
	return c->restore_id;
}

int64_t
wm_checkpoint_cycle_restore_time_ms(const struct wm_checkpoint_cycle *c)
{
	return c->restore_id != 0 ? c->restore_time_ms : 0;
}

uint64_t
wm_checkpoint_cycle_first_epoch(const struct wm_checkpoint_cycle *c)
{
	return c->restore_id != 0 ? c->restore_id + 1 : c->next_id;
}

void
wm_checkpoint_cycle_restore_failed(struct wm_checkpoint_cycle *c, uint64_t id)
{
	if (id != 0 && id < c->restore_below)
		c->restore_below = id;
}

int
wm_checkpoint_cycle_fall_back(struct wm_checkpoint_cycle *c, uint64_t id,
			      char *err, size_t errlen)
{
	char why[512];
	size_t len;
	int r;

	wm_checkpoint_cycle_restore_failed(c, id);
	if ((r = choose_restore(c, why, sizeof(why))) != 0) {
		snprintf(err, errlen, "%s", why);
		return r;
	}
	if (c->restore_id == 0) {
		len = strlen(err);
		snprintf(err + len, errlen - len,
			 "; no complete checkpoint before it to fall back to");
		return -EBADMSG;
	}
	wm_log("wmrun: notice: %s; restoring checkpoint %" PRIu64 " instead",
	       err, c->restore_id);
	return 0;
}

int
wm_checkpoint_restore_task(struct wm_checkpoint_store *store, uint64_t id,
			   uint32_t subtask, struct wm_task *task, char *err,
			   size_t errlen)
{
	void *bytes = NULL;
	size_t len = 0;
	int r = wm_checkpoint_store_get(store, id, subtask, &bytes, &len, err,
					errlen);

	if (r == 0 && (r = wm_task_restore(task, bytes, len)) != 0)
		snprintf(err, errlen, "the snapshot is unreadable: %s",
			 wm_task_why(task)[0] != '\0' ? wm_task_why(task)
						      : strerror(-r));
	free(bytes);
	return r;
}

void
wm_checkpoint_unrestorable(char *err, size_t errlen,
			   const struct wm_topology *t,
			   const struct wm_plan *plan, uint32_t subtask,
			   uint64_t id, const char *why)
{
	char name[128];

	snprintf(err, errlen,
		 "subtask \"%s\" could not restore checkpoint %" PRIu64
		 " in \"%s\": %s",
		 wm_plan_subtask_name(plan, t, subtask, name, sizeof(name)), id,
		 t->job.checkpoint_dir, why);
}

/* The files back to the checkpoint to restore (0: none). */
static int
recover_to_restore(struct wm_checkpoint_cycle *c, char *err, size_t errlen)
{
	void *blob = NULL;
	size_t len = 0;
	int r = 0;

	if (c->restore_id != 0)
		r = wm_checkpoint_store_get(c->store, c->restore_id,
					    c->n_subtasks, &blob, &len, err,
					    errlen);
	if (r == 0)
		r = wm_part_commit_recover(c->commit, c->restore_id, blob, len,
					   err, errlen);
	free(blob);
	return r;
}

int
wm_checkpoint_cycle_recover_outputs(struct wm_checkpoint_cycle *c, char *err,
				    size_t errlen)
{
	int r;

	if (c->commit == NULL)
		return 0;
	/* A committer's blob the recovery refused, or one the files
	 * contradict, is no transient fault, as a subtask's snapshot that
	 * could not be restored: the checkpoint before it, or none left
	 * (part_commit.h says why the older recovery is sound). */
	while ((r = recover_to_restore(c, err, errlen)) == -EBADMSG &&
	       c->restore_id != 0) {
		char why[512];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen,
			 "the file committer could not restore checkpoint "
			 "%" PRIu64 " in \"%s\": %s",
			 c->restore_id, c->topo->job.checkpoint_dir, why);
		if ((r = wm_checkpoint_cycle_fall_back(c, c->restore_id, err,
						       errlen)) != 0)
			return r;
	}
	return r;
}

int
wm_checkpoint_cycle_finish_outputs(struct wm_checkpoint_cycle *c,
				   bool ended_well, char *err, size_t errlen)
{
	if (c->commit == NULL)
		return 0;
	if (!ended_well)
		return wm_part_commit_discard(c->commit, err, errlen);
	return wm_part_commit_finish(c->commit, err, errlen);
}

const struct wm_checkpoint_tally *
wm_checkpoint_cycle_tally(const struct wm_checkpoint_cycle *c)
{
	return &c->tally;
}
