/*
 * coordinator.h
 *	The checkpoints of a real run, as the supervisor takes them (Flink's
 *	CheckpointCoordinator): trigger through the segment, collect the
 *	subtasks' acknowledgements from their metrics blocks, complete the
 *	checkpoint in the store, give up one that takes too long.
 *
 * The supervisor never touches a ring: it raises the segment's checkpoint
 * id (wm_shm_trigger_checkpoint()) and the sources do the rest (task.h:
 * each records its position and sends the barrier; every other subtask
 * aligns its barriers, snapshots and forwards them). Each worker writes
 * its own blob into the checkpoint's directory (the store's
 * wm_checkpoint_blob_write()) and then acknowledges it in its metrics
 * block (metrics.h, struct wm_checkpoint_ack); the coordinator takes each
 * blob as written (read back and checked) and, once every subtask's is
 * in, writes the manifest: only then is the checkpoint complete
 * (doc/architecture.md section 9). Those last writes, and the parts'
 * commit, run on a thread of the coordinator's own (coordinator.c, D1-D4)
 * that wakes the supervisor with SIGUSR1 when they are durable: the
 * supervisor never waits for the disk but in a restart and at the end,
 * where wm_coordinator_workers_gone() waits for a completion under way.
 *
 * One checkpoint at a time (Flink's default): a trigger due while one is
 * pending waits for the next interval. None is triggered once a source
 * finished (a finished source can take no barrier) or before every
 * subtask passed the start line. A checkpoint not complete within [job]
 * checkpoint_timeout is aborted and counted; the job goes on.
 *
 * Times are the monotonic clock's (ns); the interval and the timeout are
 * processing time, so they pass `speed` times faster.
 */
#ifndef WM_RUNTIME_RUN_COORDINATOR_H
#define WM_RUNTIME_RUN_COORDINATOR_H

#include <stdbool.h>
#include <stdint.h>

#include "ipc/shm.h"
#include "runtime/checkpoint/part_commit.h"
#include "runtime/conf/topology.h"
#include "runtime/plan/plan.h"
#include "runtime/report/report.h"

struct wm_coordinator;
struct wm_keys;

/*
 * The coordinator of `topo`'s checkpoints ([job] checkpoint_interval), its
 * store opened on [job] checkpoint_dir and read. A new job starts from the
 * beginning, its checkpoints numbered after those already there; a
 * resumed one ([job] resume, wmrun --resume) from the latest complete
 * checkpoint there (wm_coordinator_restore_id()). *c is NULL, and 0
 * returned, for a job without checkpoints. 0 or a negative errno with a
 * message (-EXDEV: the directory holds another job's checkpoints;
 * -ENOENT: nothing to resume from). With exactly-once outputs (`commit`
 * and `output_of`, exactly_once.h; the caller's, which outlive it), each
 * checkpoint also holds the committer's blob, and its parts are committed
 * once it is complete. With `keys`, the job's dictionary of string keys
 * (keys.h; NULL: none), each checkpoint also holds its strings in id
 * order, since the windows' state holds ids: a resumed job's dictionary
 * is loaded from its checkpoint here, before any worker interns, so that
 * keys learned as the job ran (Kafka) mean what they meant. -EBADMSG: the
 * strings its traces, read again, interned are not the checkpoint's
 * first ones (a trace changed).
 */
int wm_coordinator_new(struct wm_coordinator **c,
		       const struct wm_topology *topo,
		       const struct wm_plan *plan,
		       struct wm_part_commit *commit, const int32_t *output_of,
		       struct wm_keys *keys, char *err, size_t errlen);
void wm_coordinator_free(struct wm_coordinator *c);

/* The latest complete checkpoint, to restore from when the workers start
 * (again): 0 for none (from the beginning). */
uint64_t wm_coordinator_restore_id(const struct wm_coordinator *c);
/* The processing time at which that checkpoint was triggered (ms; 0 for
 * none): a resumed job's processing time goes on from it. */
int64_t wm_coordinator_restore_time_ms(const struct wm_coordinator *c);

/* When the coordinator needs to look again after `now_ns` (a trigger or a
 * timeout due, or the start line to find): monotonic ns, INT64_MAX for
 * never. Acknowledgements wake the supervisor themselves (SIGUSR1,
 * worker.h). */
int64_t wm_coordinator_deadline(const struct wm_coordinator *c, int64_t now_ns);

/*
 * Look at the segment now (`now_ns`, monotonic; the job's processing time
 * runs from `origin_ns`, 0 for this attempt's start line): take the blobs
 * acknowledged since the last look, complete the checkpoint when every
 * subtask's is in, give it up when it timed out, trigger the next one if
 * due. 0, or a negative errno with a message when the store failed (a
 * full disk): the checkpoint is aborted and counted failed, the job goes
 * on (Flink's default tolerates no failed checkpoint; wmrun says so in
 * the summary and keeps running, as the issue asks a failure to be
 * reported, not fatal). The message is for a warning.
 */
int wm_coordinator_look(struct wm_coordinator *c, struct wm_shm *seg,
			int64_t now_ns, int64_t origin_ns, char *err,
			size_t errlen);

/* Checkpoint `id` could not be restored (its snapshot is not one this job
 * can read): it is never restored again, nor any after it until a new
 * checkpoint completes; the next wm_coordinator_workers_gone() picks the
 * latest complete one before it (0 if there is none). */
void wm_coordinator_restore_failed(struct wm_coordinator *c, uint64_t id);

/* The workers are gone (a crash, or the job's end): a pending checkpoint
 * is aborted (its directory removed), the restore id is the latest
 * complete one, and triggers start again an interval after the next start
 * line. 0 or a negative errno with a message. */
int wm_coordinator_workers_gone(struct wm_coordinator *c, char *err,
				size_t errlen);

/* The epoch of the workers' first parts as they start (again): after the
 * checkpoint restored, or the next checkpoint's id. */
uint64_t wm_coordinator_first_epoch(const struct wm_coordinator *c);

/* The exactly-once outputs back to the checkpoint restored (none: to their
 * headers), every other part deleted, before the workers start again: 0
 * or a negative errno with a message (the job fails). */
int wm_coordinator_recover_outputs(struct wm_coordinator *c, char *err,
				   size_t errlen);

/* Every worker is gone for good: a job that `ended_well` commits the last
 * parts (each worker sealed its own), one that failed deletes those no
 * resume needs. 0 or a negative errno with a message. */
int wm_coordinator_finish_outputs(struct wm_coordinator *c, bool ended_well,
				  char *err, size_t errlen);

/* The figures for the summary (report.h); restarts are the supervisor's. */
void wm_coordinator_figures(const struct wm_coordinator *c,
			    struct wm_checkpoint_summary *out);

#endif /* WM_RUNTIME_RUN_COORDINATOR_H */
