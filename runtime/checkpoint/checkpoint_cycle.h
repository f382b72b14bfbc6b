/*
 * checkpoint_cycle.h
 *	The life of a job's checkpoints, for both drivers: begin, acknowledge,
 *	complete, give up, and the choice of the one a restart restores
 *	(Flink's CheckpointCoordinator, without its transport).
 *
 * A real run's coordinator (runtime/run/coordinator.c) and --sim
 * (runtime/run/sim.c) differ only in how a trigger reaches the sources,
 * how a subtask's snapshot reaches the store and on which clock: they
 * call this module at each step, and every rule of the life of a
 * checkpoint is here once:
 *
 *   - One at a time (Flink's default): a trigger due while one is pending
 *     waits for the next interval (wm_checkpoint_cycle_due()).
 *   - Ids go on from those already in the directory, complete or not,
 *     and whatever is named chk-N there: a new checkpoint never takes the
 *     name of an old one. This run's first is first_id; an older one is
 *     an earlier run's state, never restored, but for a resumed run,
 *     which goes on from those.
 *   - A checkpoint is complete once every subtask's blob is in and the
 *     committer's and the dictionary's blobs, then the manifest, are
 *     durable; only then are the exactly-once parts committed
 *     (part_commit.h), and only then does it become the one a restart
 *     restores.
 *   - A checkpoint the store fails (a full disk) or one past [job]
 *     checkpoint_timeout is given up: its directory goes, it is counted,
 *     and the job goes on (the summary says so). Parts of a complete
 *     checkpoint that could not all go into their files fail the job
 *     (-ECANCELED): its restart's recovery finishes the commit.
 *   - A checkpoint that cannot be restored (a snapshot, or the
 *     committer's blob, this job cannot read) is never restored again, nor
 *     any after it until a new one completes: the restore falls back to
 *     the complete one of this run before it.
 *
 * Times are the driver's clock (ns): a real run's monotonic clock, or
 * --sim's processing time; `speed` turns a span of it into processing
 * time for the figures. Not thread-safe, with one exception that keeps a
 * real run's supervisor off the disk: between a wm_checkpoint_cycle_put*()
 * that returned 1 and wm_checkpoint_cycle_completed(), another thread may
 * run wm_checkpoint_cycle_complete_durably(), and the caller then calls
 * nothing else (coordinator.c's D2 says how it keeps to that).
 */
#ifndef WM_RUNTIME_CHECKPOINT_CHECKPOINT_CYCLE_H
#define WM_RUNTIME_CHECKPOINT_CHECKPOINT_CYCLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/checkpoint/checkpoint_store.h"
#include "runtime/checkpoint/part_commit.h"
#include "runtime/conf/topology.h"
#include "runtime/plan/plan.h"

struct wm_checkpoint_cycle;
struct wm_keys;
struct wm_task;

struct wm_checkpoint_cycle_config {
	const struct wm_topology *topo;
	const struct wm_plan *plan;
	/* Exactly-once outputs (exactly_once.h; NULL: none): each
	 * checkpoint also holds the committer's blob, and its parts are
	 * committed once it is complete. The caller's; it outlives the
	 * cycle. */
	struct wm_part_commit *commit;
	/* The job's dictionary of string keys (keys.h; NULL: none): each
	 * checkpoint also holds its strings in id order, since the windows'
	 * state holds ids. A resumed job's is loaded from its checkpoint
	 * when the cycle opens, before any worker interns. */
	struct wm_keys *keys;
	/* The trigger interval and the timeout in the driver's clock
	 * (INT64_MAX: never), and how much faster processing time runs. */
	int64_t every_ns;
	int64_t timeout_ns;
	double speed;
	/* The store's clock and context (checkpoint_store.h; NULL: the
	 * monotonic clock). */
	int64_t (*now_ns)(void *ctx);
	void *ctx;
};

/* The counts of a job's checkpoints, for its summary (report.h). */
struct wm_checkpoint_tally {
	uint64_t completed;
	uint64_t last_id;
	uint64_t bytes_total; /* the blobs of every one completed */
	uint64_t last_bytes;
	int64_t duration_max_ns; /* trigger to durable, processing time */
	int64_t duration_total_ns;
	int64_t duration_last_ns; /* of the last one completed */
	int64_t alignment_max_ns; /* the longest a subtask aligned */
	uint64_t timed_out;	  /* given up after checkpoint_timeout */
	uint64_t failed;	  /* the store failed: given up */
};

/* Why a pending checkpoint is given up, and so what it counts as. */
enum wm_checkpoint_give_up {
	WM_CHECKPOINT_FAILED,	 /* the store or a subtask failed */
	WM_CHECKPOINT_TIMED_OUT, /* past checkpoint_timeout */
	WM_CHECKPOINT_CUT_SHORT, /* the subtasks are gone: not counted */
};

/* The blobs of each checkpoint of a job of `plan` (its store's subtasks):
 * one a subtask, then the committer's with `commit`, then the
 * dictionary's with `keys`. */
static inline uint32_t
wm_checkpoint_cycle_blobs(const struct wm_plan *plan, bool commit, bool keys)
{
	return plan->n_subtasks + commit + keys;
}

/*
 * The cycle of cfg->topo's checkpoints, its store opened on [job]
 * checkpoint_dir and read. A new job starts from the beginning whatever
 * the directory holds (another job's checkpoints too); a resumed one
 * ([job] resume) from the latest complete checkpoint there
 * (wm_checkpoint_cycle_restore_id()). Nothing triggers until
 * wm_checkpoint_cycle_arm(). 0 or a negative errno with a message
 * (-EXDEV: the directory holds another job's checkpoints, for a resumed
 * job; -ENOENT: nothing to resume from; -EBADMSG: the strings the job's
 * traces interned are not the checkpoint's first ones).
 */
int wm_checkpoint_cycle_open(struct wm_checkpoint_cycle **c,
			     const struct wm_checkpoint_cycle_config *cfg,
			     char *err, size_t errlen);
/* The cycle freed; a pending checkpoint is left as it is (the next run's
 * recovery skips a directory without a manifest). */
void wm_checkpoint_cycle_free(struct wm_checkpoint_cycle *c);

/* The store, for a subtask's blob at a restore (wm_checkpoint_store_get()). */
struct wm_checkpoint_store *
wm_checkpoint_cycle_store(const struct wm_checkpoint_cycle *c);

/* The first trigger one interval after `from_ns`, then one every interval
 * (INT64_MAX: none until armed again). */
void wm_checkpoint_cycle_arm(struct wm_checkpoint_cycle *c, int64_t from_ns);
/* The triggers due while the job was down are not taken: the next is the
 * first of the interval's grid at or after `now_ns`. */
void wm_checkpoint_cycle_skip_to(struct wm_checkpoint_cycle *c, int64_t now_ns);
/* When the next trigger is due (INT64_MAX: not armed). */
int64_t wm_checkpoint_cycle_next_trigger(const struct wm_checkpoint_cycle *c);
/* Whether a trigger is due at `now_ns` and none is pending; either way the
 * next trigger moves to the first of the interval's grid after now_ns
 * (one due while one is pending is not taken). */
bool wm_checkpoint_cycle_due(struct wm_checkpoint_cycle *c, int64_t now_ns);

/*
 * Begin the next checkpoint at `now_ns`, its trigger at processing time
 * `trigger_ms` (the manifest's: a resumed job's goes on from it): its id,
 * now pending, in *id. 0 or a negative errno with a message: the store
 * could not begin it; it counts failed, and the next one takes the next
 * id (a chk-N something else took since the start must not fail every
 * checkpoint after it).
 */
int wm_checkpoint_cycle_begin(struct wm_checkpoint_cycle *c, int64_t now_ns,
			      int64_t trigger_ms, uint64_t *id, char *err,
			      size_t errlen);
/* The checkpoint being taken (0: none). */
uint64_t wm_checkpoint_cycle_pending(const struct wm_checkpoint_cycle *c);
/* Subtasks whose blob of the pending checkpoint is in. */
uint32_t wm_checkpoint_cycle_acknowledged(const struct wm_checkpoint_cycle *c);
/* When the pending checkpoint times out (INT64_MAX: none pending, or no
 * timeout). */
int64_t wm_checkpoint_cycle_deadline(const struct wm_checkpoint_cycle *c);

/*
 * Subtask `subtask`'s blob of checkpoint `id`: `bytes` to write (--sim),
 * or, with _put_written(), the file the subtask wrote itself of `size`
 * bytes and CRC-32C `crc`, after aligning for `alignment_ns`. One of
 * another id than the pending one, or a second one, is ignored (0).
 * 1: every subtask's is in, and the checkpoint is to be completed
 * (wm_checkpoint_cycle_complete_durably(), then _completed()). A store
 * that failed gives the checkpoint up (counted failed): a negative errno
 * with a message, for a warning; the job goes on.
 */
int wm_checkpoint_cycle_put(struct wm_checkpoint_cycle *c, uint64_t id,
			    uint32_t subtask, const void *bytes, size_t len,
			    char *err, size_t errlen);
int wm_checkpoint_cycle_put_written(struct wm_checkpoint_cycle *c, uint64_t id,
				    uint32_t subtask, uint64_t size,
				    uint32_t crc, int64_t alignment_ns,
				    char *err, size_t errlen);

/*
 * The durable writes of the pending checkpoint, every subtask's blob in:
 * the committer's and the dictionary's blobs, the manifest, then the parts
 * into their files. Blocks on the disk; touches only the store, the
 * committer and the dictionary (this header's one exception to
 * thread-safety). 0, -ECANCELED when the parts could not all go into
 * their files (the job must fail), or another negative errno when the
 * checkpoint failed; err says why, and *fig what the commit did.
 */
int wm_checkpoint_cycle_complete_durably(struct wm_checkpoint_cycle *c,
					 struct wm_checkpoint_figures *fig,
					 char *err, size_t errlen);
/*
 * What the job makes of that completion (`r` and `why` as it returned,
 * ended at `done_ns`): complete, the checkpoint is counted and becomes
 * the one to restore, and what late writers left of checkpoints given up
 * before it is removed; failed, it is counted failed (a -ECANCELED
 * commit of parts is not: the job fails). Nothing is pending after. `r`,
 * or -EIO when the removal failed, with a message.
 */
int wm_checkpoint_cycle_completed(struct wm_checkpoint_cycle *c, int r,
				  const char *why,
				  const struct wm_checkpoint_figures *fig,
				  int64_t done_ns, char *err, size_t errlen);

/* Give the pending checkpoint up (none: nothing to do): its directory
 * goes, it is counted as `how` says. A subtask still writing its blob
 * makes its file again after the directory went: what it leaves is
 * removed once none can still write (wm_checkpoint_cycle_completed(),
 * _workers_gone()). 0, or -EIO when the directory could not be removed,
 * with a message. */
int wm_checkpoint_cycle_give_up(struct wm_checkpoint_cycle *c,
				enum wm_checkpoint_give_up how, char *err,
				size_t errlen);

/* Every subtask is gone (a crash, or the job's end): a pending checkpoint
 * is given up (cut short), what late writers left is removed, and the
 * restore is the latest complete checkpoint of this run
 * (wm_checkpoint_cycle_restore_id()). 0 or a negative errno with a
 * message. */
int wm_checkpoint_cycle_workers_gone(struct wm_checkpoint_cycle *c, char *err,
				     size_t errlen);

/* The checkpoint to restore when the subtasks start (again): 0 for none,
 * from the beginning. */
uint64_t wm_checkpoint_cycle_restore_id(const struct wm_checkpoint_cycle *c);
/* The processing time at which it was triggered (ms; 0 for none): a
 * resumed job's processing time goes on from it. */
int64_t
wm_checkpoint_cycle_restore_time_ms(const struct wm_checkpoint_cycle *c);
/* The epoch of the subtasks' first parts as they start (again): after the
 * checkpoint restored, or the next checkpoint's id. */
uint64_t wm_checkpoint_cycle_first_epoch(const struct wm_checkpoint_cycle *c);

/* Checkpoint `id` could not be restored (its snapshot is not one this job
 * can read): it is never restored again, nor any after it until a new one
 * completes; the next wm_checkpoint_cycle_workers_gone() chooses the
 * latest complete one before it (0 if there is none). */
void wm_checkpoint_cycle_restore_failed(struct wm_checkpoint_cycle *c,
					uint64_t id);

/*
 * Checkpoint `id` could not be restored (err says why, naming the subtask
 * and the checkpoint), and the subtasks are to start again at once: as
 * wm_checkpoint_cycle_restore_failed(), with the one before it chosen now.
 * 0 with that one chosen and a notice logged, or -EBADMSG with err saying
 * that none is left (the job fails, 65); another negative errno with a
 * message if the store could not be read.
 */
int wm_checkpoint_cycle_fall_back(struct wm_checkpoint_cycle *c, uint64_t id,
				  char *err, size_t errlen);

/*
 * Subtask `subtask`'s task takes its state from checkpoint `id` of
 * `store`, in whichever process runs it: the blob is read through the
 * store, which checks it against the manifest again. 0, or a negative
 * errno with err (the store's message, or "the snapshot is unreadable:
 * ..." when the task refused it): either way no transient fault, and the
 * driver falls back (wm_checkpoint_cycle_fall_back(), _restore_failed())
 * rather than restore it again.
 */
int wm_checkpoint_restore_task(struct wm_checkpoint_store *store, uint64_t id,
			       uint32_t subtask, struct wm_task *task,
			       char *err, size_t errlen);

/* The message of a subtask that could not restore checkpoint `id` (why,
 * as wm_checkpoint_restore_task() gave it), as both drivers give it. */
void wm_checkpoint_unrestorable(char *err, size_t errlen,
				const struct wm_topology *t,
				const struct wm_plan *plan, uint32_t subtask,
				uint64_t id, const char *why);

/*
 * The exactly-once outputs back to the checkpoint to restore (none: to
 * their headers), every other part deleted, before any subtask writes a
 * part again. A committer's blob the recovery refuses, or one the files
 * contradict, falls back as wm_checkpoint_cycle_fall_back() does. 0 or a
 * negative errno with a message (-EBADMSG: nothing left to fall back to).
 */
int wm_checkpoint_cycle_recover_outputs(struct wm_checkpoint_cycle *c,
					char *err, size_t errlen);

/* The subtasks are gone for good: a job that `ended_well` commits its last
 * parts (every one sealed and told to the committer), one that failed
 * deletes those no resume needs. 0 or a negative errno with a message. */
int wm_checkpoint_cycle_finish_outputs(struct wm_checkpoint_cycle *c,
				       bool ended_well, char *err,
				       size_t errlen);

/* The counts so far. */
const struct wm_checkpoint_tally *
wm_checkpoint_cycle_tally(const struct wm_checkpoint_cycle *c);

#endif /* WM_RUNTIME_CHECKPOINT_CHECKPOINT_CYCLE_H */
