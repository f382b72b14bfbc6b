/*
 * checkpoint_store.h
 *	A job's durable checkpoints on disk: opaque blobs, one per subtask,
 *	keyed by (checkpoint id, subtask), written so that a crash at any
 *	instant leaves the last complete checkpoint readable.
 *
 * The store knows nothing of operators: a blob is a subtask's snapshot as
 * bytes. Its layout, as Flink's checkpoint directories:
 *
 *   DIR/chk-N/subtask-S   the blob of subtask S in checkpoint N
 *   DIR/chk-N/_metadata   the manifest, written last: the job's
 *                         fingerprint, N, the number of subtasks, each
 *                         blob's size and CRC-32C, the trigger time, and
 *                         a CRC-32C of the manifest itself
 *
 * Invariants (doc/architecture.md section 9 gives the argument):
 *
 *  - Checkpoint N is complete if and only if its manifest is present and
 *    valid and every blob it lists has the size and CRC-32C it lists. Only
 *    a complete checkpoint is ever returned for a restore.
 *  - Every file is written under a temporary name in its own directory,
 *    fsync'd and renamed into place (runtime/io/outfile.h, atomic); the
 *    directories (chk-N, then DIR) are fsync'd before the manifest is
 *    written and chk-N again after, so that the manifest is never durable
 *    before the blobs it lists or chk-N's own name. Only commit and the
 *    writes of blobs wait for the disk: begin and abort, which the job's
 *    supervisor calls, do not.
 *  - An older complete checkpoint is deleted only after a newer one is
 *    durable, and a failed write removes only the checkpoint it was
 *    writing: a failure never damages the previous complete checkpoint.
 *  - Nothing is read through a symbolic link planted in DIR or chk-N.
 *
 * One writer: one process owns a store and calls begin, put (for every
 * subtask, in any order), then commit or abort; reading (latest_complete,
 * get) may be done by any process. The store keeps no global state: the
 * clock and the warnings are injected.
 *
 * Errors are negative errnos with a message naming the path in `err`:
 * "could not write checkpoint file "DIR/chk-3/subtask-1": No space left
 * on device". -EXDEV means a checkpoint of another job.
 */
#ifndef WM_RUNTIME_CHECKPOINT_CHECKPOINT_STORE_H
#define WM_RUNTIME_CHECKPOINT_CHECKPOINT_STORE_H

#include <stddef.h>
#include <stdint.h>

struct wm_checkpoint_store;

struct wm_checkpoint_store_config {
	/* The directory of the job's checkpoints; created (one level) by the
	 * first begin if missing. */
	const char *dir;
	/* What identifies the job (a hash of its plan's shape, given by the
	 * caller): a checkpoint with another one is never restored. */
	uint64_t fingerprint;
	/* The job's event-time origin (topology.h), kept in each manifest:
	 * a resumed job's generated event time goes on from it
	 * (wm_checkpoint_store_origin()). */
	int64_t event_time_origin_ms;
	/* Blobs in each checkpoint: subtask ids are 0 .. subtasks - 1. */
	uint32_t subtasks;
	/* Complete checkpoints kept after a commit (Flink's
	 * state.checkpoints.num-retained); 0 is taken as 1, its default. */
	unsigned retained;
	/* Monotonic nanoseconds for the figures; NULL: CLOCK_MONOTONIC. */
	int64_t (*now_ns)(void *ctx);
	/* A checkpoint skipped at recovery, or an old one that could not be
	 * deleted: one line without its '\n'. NULL: on standard error as
	 * "wmrun: warning: ..." (base/log.h). */
	void (*warn)(void *ctx, const char *message);
	void *ctx; /* handed to now_ns and warn */
};

/* What a commit did, for the job's figures. */
struct wm_checkpoint_figures {
	uint64_t id;
	uint64_t blob_bytes;	/* the subtasks' blobs */
	uint64_t bytes_written; /* blobs and manifest */
	int64_t duration_ns;	/* from begin to the manifest durable */
	unsigned removed;	/* older checkpoints deleted (retention) */
};

/* The checkpoint latest_complete found. */
struct wm_checkpoint_info {
	uint64_t id;
	int64_t trigger_time_ms; /* as given to begin */
	uint32_t subtasks;
	uint64_t blob_bytes;
	unsigned skipped; /* newer checkpoints skipped as incomplete */
	/* The highest N of DIR's chk-N, complete or not (also when none is
	 * complete): the next checkpoint's id should be above it. */
	uint64_t highest_id;
};

/*
 * The event-time origin the newest checkpoint of `dir` with a manifest
 * that reads was taken with, in *origin_ms: 1; 0 if there is none (an
 * absent or empty DIR); or a negative errno with a message. The
 * checkpoints of one directory are of one job, resumed or not, and share
 * its origin; which one the job restores, and whether it is complete,
 * the coordinator decides when the job starts.
 */
int wm_checkpoint_store_origin(const char *dir, int64_t *origin_ms, char *err,
			       size_t errlen);

/* A store over config->dir (copied; nothing on disk is touched yet). 0, or
 * a negative errno with a message. */
int wm_checkpoint_store_new(struct wm_checkpoint_store **store,
			    const struct wm_checkpoint_store_config *config,
			    char *err, size_t errlen);
void wm_checkpoint_store_free(struct wm_checkpoint_store *s);

/*
 * Start writing checkpoint `id`, triggered at `trigger_time_ms` (the
 * job's processing time, kept in the manifest with the store's origin). Makes DIR/chk-<id>; a directory of that
 * name without a manifest (left by a crash) is replaced, a complete one
 * refused (-EEXIST). -EBUSY while another checkpoint is being written.
 */
int wm_checkpoint_store_begin(struct wm_checkpoint_store *s, uint64_t id,
			      int64_t trigger_time_ms, char *err,
			      size_t errlen);

/* Write subtask `subtask`'s blob (`len` bytes, 0 allowed) into the
 * checkpoint begun, durable when this returns 0. Each subtask once; after a
 * failure the caller aborts the checkpoint. */
int wm_checkpoint_store_put(struct wm_checkpoint_store *s, uint32_t subtask,
			    const void *bytes, size_t len, char *err,
			    size_t errlen);

/*
 * A blob written by another process (a worker: each subtask writes its
 * own, in parallel, while the store's owner coordinates): subtask
 * `subtask`'s blob of checkpoint `id`, into DIR/chk-<id> (which begin
 * made; the owner's store must be writing `id`), written and durable as
 * put writes it, its CRC-32C in *crc. 0, or a negative errno with a
 * message. Needs no store: any process of the job may call it.
 */
int wm_checkpoint_blob_write(const char *dir, uint64_t id, uint32_t subtask,
			     const void *bytes, size_t len, uint32_t *crc,
			     char *err, size_t errlen);

/* The owner takes subtask `subtask`'s blob, written by another process
 * with wm_checkpoint_blob_write(), as that process reported it (`len`
 * bytes, CRC-32C `crc`): read back and checked, then counted as put. A
 * blob that differs (-EIO) or is missing fails the put, with a message;
 * the caller aborts the checkpoint. */
int wm_checkpoint_store_put_written(struct wm_checkpoint_store *s,
				    uint32_t subtask, uint64_t len,
				    uint32_t crc, char *err, size_t errlen);

/*
 * Complete the checkpoint begun: every subtask must have been put. Writes
 * the manifest, then deletes the oldest complete checkpoints of this job
 * beyond `retained` and every incomplete one older than this (a failure
 * there is a warning: the new checkpoint is complete). `figures` may be
 * NULL. On failure the checkpoint is removed as abort would.
 */
int wm_checkpoint_store_commit(struct wm_checkpoint_store *s,
			       struct wm_checkpoint_figures *figures, char *err,
			       size_t errlen);

/* Remove checkpoint `id` if it is incomplete: the one being written (which
 * ends it) or one left by a crash. A complete one is refused (-EBUSY); one
 * that does not exist is no error. */
int wm_checkpoint_store_abort(struct wm_checkpoint_store *s, uint64_t id,
			      char *err, size_t errlen);

/*
 * The newest complete checkpoint in DIR: 1 with `info` filled, 0 if there
 * is none (no DIR either), or a negative errno with a message. Reads every
 * blob of the checkpoints it examines. A newer checkpoint that is not
 * complete (a blob missing, short, of another checksum, a manifest
 * missing, truncated or garbage) is skipped with a warning naming the file
 * and what is wrong; a complete one of another job (its fingerprint or
 * number of subtasks differ) is refused with -EXDEV.
 */
int wm_checkpoint_store_latest_complete(struct wm_checkpoint_store *s,
					struct wm_checkpoint_info *info,
					char *err, size_t errlen);

/* The same, among the checkpoints below `below` only (those from it on
 * are not looked at): the one to fall back to when checkpoint `below`
 * could not be restored. */
int wm_checkpoint_store_latest_complete_below(struct wm_checkpoint_store *s,
					      uint64_t below,
					      struct wm_checkpoint_info *info,
					      char *err, size_t errlen);

/*
 * Subtask `subtask`'s blob in checkpoint `id`, checked again against the
 * manifest: 0 with *bytes (malloc'd, the caller frees it; not NULL even
 * for 0 bytes) and *len, or a negative errno with a message (-EIO: the
 * checkpoint is not complete any more).
 */
int wm_checkpoint_store_get(struct wm_checkpoint_store *s, uint64_t id,
			    uint32_t subtask, void **bytes, size_t *len,
			    char *err, size_t errlen);

/* The directory of checkpoint `id` ("DIR/chk-7"), in buf, for messages
 * and tests. */
const char *wm_checkpoint_store_path(const struct wm_checkpoint_store *s,
				     uint64_t id, char *buf, size_t len);

#endif /* WM_RUNTIME_CHECKPOINT_CHECKPOINT_STORE_H */
