/*
 * part_commit.h
 *	Exactly-once file outputs, as Flink's FileSink: the parts each writer
 *	seals at a checkpoint are appended to the output's file once that
 *	checkpoint is complete, and a restore repairs a commit cut short.
 *
 * An output is one file that several writers feed: a file sink stage's
 * results from every subtask of the window stage it reads, or a window
 * stage's late side output. With checkpoints, writer w (a window subtask)
 * writes into parts of its own (runtime/io/sink.h, wm_sink_open_part()),
 * never into the file:
 *
 *   DIR/parts/NAME/<run>-s<w>-e<e>
 *                              writer w's part e: what it wrote after
 *                              its barrier e-1 (after the restore or the
 *                              start, for the first one) and before the
 *                              barrier that sealed it; <run> is the
 *                              committer's run id, 16 hex digits
 *
 * (DIR the checkpoint directory, NAME the output's, from
 * wm_part_commit_output_name()), so that the file only ever holds data of
 * complete checkpoints. One process, the committer (the supervisor of a
 * real run, the --sim process), owns this object and the files:
 *
 *  1. sealed: a writer aligned checkpoint n's barriers, sealed its part e
 *     (wm_sink_seal(): fsync'd, its name too) and acknowledged with its
 *     size; the committer is told (wm_part_commit_sealed()). Normally
 *     e = n; a writer whose barrier n-1 never came (a checkpoint
 *     aborted) seals an older e, which goes with n.
 *  2. prepare: once every writer acknowledged checkpoint n, the committer
 *     makes its own blob of checkpoint n (wm_part_commit_prepare()): per
 *     output, the file's committed length L and the parts with e <= n,
 *     with their sizes. The blob goes into the store with the subtasks'.
 *  3. commit: once checkpoint n is complete (its manifest durable:
 *     wm_checkpoint_store_commit() returned 0), per output: truncate the
 *     file to L, append the parts in the blob's order (epoch, then
 *     writer), fsync the file, delete the parts.
 *
 * A run id is drawn by each process that commits (a job's start, its
 * resume), and a committer touches only the parts of its own run and of
 * the run whose checkpoint it recovers from (the blob says which): a
 * crashed job's parts stay for its --resume whatever another job started
 * in the directory since did, and no job commits or deletes another's.
 *
 * Recovery from checkpoint n (wm_part_commit_recover() with its blob),
 * per output: if every part the blob lists is there, with its size, the
 * commit had not finished deleting (deletes come after the fsync, so
 * none came yet): truncate to L and commit again; if one is missing, the
 * file was durable with all of them: truncate to L + their sizes and
 * delete the others. Then every other part is deleted: those of later
 * epochs were never committed, and the sources replay what they hold.
 * Each step is idempotent, so a crash at any instant of a commit or of a
 * recovery leaves a state that recovery repairs (doc/architecture.md
 * section 9.5 gives the argument). Without a checkpoint (a crash before
 * the first, or a fresh start), the file goes back to its length when the
 * committer was made, its header, and every part goes.
 *
 * Why the committer's blob is one more subtask of the store (subtask
 * n_subtasks, the store configured with n_subtasks + 1): the store takes
 * opaque blobs and checks each against the manifest, so the blob is in a
 * checkpoint exactly when the checkpoint is complete, with nothing new in
 * the store; and a checkpoint of the same job without it (another count
 * of blobs) is refused as another job's, never restored without its
 * outputs' lengths.
 *
 * Errors are negative errnos with a message naming the file.
 */
#ifndef WM_RUNTIME_CHECKPOINT_PART_COMMIT_H
#define WM_RUNTIME_CHECKPOINT_PART_COMMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wm_part_commit;

struct wm_part_commit_output {
	/* The file, for messages, and a descriptor of it open for writing
	 * (the caller's: it opened the file and wrote its header, and
	 * closes it after wm_part_commit_free()). */
	const char *path;
	int fd;
	/* Its parts' directory under DIR/parts (wm_part_commit_output_name()),
	 * and the writers of parts: 0 .. writers - 1. */
	const char *name;
	uint32_t writers;
};

struct wm_part_commit_config {
	const char *dir; /* the checkpoint directory */
	const struct wm_part_commit_output *outputs;
	uint32_t n_outputs;
	/* This run's id (wm_part_commit_new_run()), in its parts' names; 0
	 * names them without one, as before run ids (tests). */
	uint64_t run;
	/* Tests: called before each step that changes a file ("truncate",
	 * "append", "sync", "delete"); a nonzero return stops the commit or
	 * recovery there, as a crash would (the object is then only freed).
	 * NULL: none. */
	int (*step)(void *ctx, const char *what);
	void *ctx;
};

/*
 * A committer for `config` (copied): makes DIR/parts/NAME for each output
 * and takes each file's length now as its committed length (its header).
 * Nothing else on disk changes: a fresh start, or a resume, calls
 * wm_part_commit_recover() next. 0 or a negative errno with a message.
 */
int wm_part_commit_new(struct wm_part_commit **pc,
		       const struct wm_part_commit_config *config, char *err,
		       size_t errlen);
/* Free; nothing on disk changes (a crash may stop the committer anywhere). */
void wm_part_commit_free(struct wm_part_commit *pc);

/* The name of the parts' directory of sink stage `stage` ("stage-3", late
 * 0), or of stage `stage`'s late output late - 1 (runtime/conf/topology.h,
 * wm_stage_late_output()): a window's, an interval join's left one
 * ("stage-2-late", late 1), an interval join's right one
 * ("stage-2-late-right", late 2), in buf, which it returns. Stage names
 * may hold any character; ids are plain. */
const char *wm_part_commit_output_name(uint32_t stage, int late, char *buf,
				       size_t len);

/* Writer `writer`'s part `epoch` of output `name` in run `run`:
 * "DIR/parts/NAME/<run>-s<writer>-e<epoch>" ("s<writer>-e<epoch>" for run
 * 0), in buf, which it returns. */
const char *wm_part_commit_part_path(const char *dir, const char *name,
				     uint64_t run, uint32_t writer,
				     uint64_t epoch, char *buf, size_t len);

/* A part's file name parsed into its run, writer and epoch; false for
 * any other name (not a part: left alone). */
bool wm_part_commit_parse_part_name(const char *name, uint64_t *run,
				    uint32_t *writer, uint64_t *epoch);

/* A new run id: random, never 0. */
uint64_t wm_part_commit_new_run(void);

/* The committer's run id (config->run). */
uint64_t wm_part_commit_run(const struct wm_part_commit *pc);

/* Writer `writer` of output `output` sealed its part `epoch`, of `bytes`
 * bytes (its acknowledgement). 0, -EINVAL for an output or writer out of
 * range, -ENOMEM. */
int wm_part_commit_sealed(struct wm_part_commit *pc, uint32_t output,
			  uint32_t writer, uint64_t epoch, uint64_t bytes);

/*
 * The committer's blob of checkpoint `id`, once every writer acknowledged
 * it: *blob (malloc'd, the caller frees it) and *len, to put into the
 * store with the subtasks'. The parts it lists are committed by the next
 * wm_part_commit_commit(). 0 or -ENOMEM.
 */
int wm_part_commit_prepare(struct wm_part_commit *pc, uint64_t id, void **blob,
			   size_t *len);

/*
 * Commit checkpoint `id`, prepared, after its manifest is durable (never
 * before: a crash would leave data of a checkpoint that recovery does not
 * know). Returns when the files are durable and the parts deleted. 0, or
 * a negative errno with a message: the job must fail, and its restart
 * recovers.
 */
int wm_part_commit_commit(struct wm_part_commit *pc, uint64_t id, char *err,
			  size_t errlen);

/*
 * Recover to checkpoint `id`, whose committer blob is `blob` (`len` bytes),
 * or with `blob` NULL to no checkpoint (each file back to its length at
 * wm_part_commit_new(): a fresh start, or a crash before any checkpoint).
 * After it no part is left, every file holds exactly what the checkpoint
 * committed, and what was sealed or prepared before is forgotten.
 * Writers then open their parts anew. 0, or a negative errno with a
 * message. -EBADMSG: the checkpoint cannot be recovered to, a restore
 * point to fall back from: its blob is not one this job's committer wrote
 * for checkpoint `id` (found before any file is touched), or it
 * contradicts the files (one shorter than what it committed, a part of
 * another size than sealed). A recovery to an older checkpoint after
 * that is sound: this one's outputs recovered before the contradiction
 * only grew by parts that the older one's recovery truncates, and the
 * older one's parts were all committed before this one was taken.
 */
int wm_part_commit_recover(struct wm_part_commit *pc, uint64_t id,
			   const void *blob, size_t len, char *err,
			   size_t errlen);

/*
 * The final commit of a job that ended well (the end of its input, or a
 * stop): every part sealed since the last checkpoint (each writer sealed
 * its last part, wm_sink_seal() with next NULL, and the committer was
 * told), appended and deleted as in a commit. A crash meanwhile is
 * repaired by a recovery from the last checkpoint, which truncates what
 * this appended: the job's resume writes it again. 0 or a negative errno
 * with a message.
 */
int wm_part_commit_finish(struct wm_part_commit *pc, char *err, size_t errlen);

/*
 * A job that failed: deletes every part that no recovery needs, those of
 * epochs after the last checkpoint committed or recovered (the parts of
 * that one stay if its commit did not finish: a resume from it appends
 * them). The writers closed their parts first. Best effort: 0 or the
 * first error, with a message.
 */
int wm_part_commit_discard(struct wm_part_commit *pc, char *err, size_t errlen);

#endif /* WM_RUNTIME_CHECKPOINT_PART_COMMIT_H */
