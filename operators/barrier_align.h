/*
 * barrier_align.h
 *	Align checkpoint barriers across the input channels of one subtask
 *	(Flink's SingleCheckpointBarrierHandler in its aligned mode).
 *
 * Flink builds the handler with SingleCheckpointBarrierHandler.aligned():
 * its states WaitingForFirstBarrier and CollectingBarriers
 * (AbstractAlignedBarrierHandlerState) block a channel that delivered the
 * barrier and, once every barrier is in, trigger the checkpoint and unblock
 * all. The rules reproduced here, by Flink method:
 *
 *  - processBarrier(), checkNewCheckpoint(): a barrier older than the
 *    latest checkpoint id, or of that id once it is no longer pending
 *    (aligned or aborted), is ignored and blocks nothing. A newer one
 *    aborts the pending checkpoint, if any (CHECKPOINT_DECLINED_SUBSUMED),
 *    and starts its own alignment, whose target is the number of channels
 *    open at that moment.
 *  - markCheckpointAlignedAndTransformState(): the barrier's channel joins
 *    the aligned set and is blocked; when the set reaches the target the
 *    checkpoint is aligned: the caller snapshots, forwards the barrier on
 *    every output, and every channel is unblocked. Alignment time runs
 *    from the first member of the set to the last, and is 0 when the
 *    target is one channel (CheckpointBarrierHandler.markAlignmentStart(),
 *    markAlignmentEnd(), markAlignmentStartAndEnd()); the start delay is
 *    the time from the barrier's timestamp to its first arrival here,
 *    never below 0.
 *  - processEndOfPartition(), with checkpoints after tasks finish enabled
 *    (Flink's default): an ended channel is no longer awaited by later
 *    checkpoints, and one that ends during an alignment joins the aligned
 *    set, so it may complete the alignment. A channel that ends after
 *    delivering the barrier counts once (a set, as Flink's). Flink with
 *    that option off aborts the pending checkpoint instead; wmrun does not
 *    reproduce the off setting.
 *  - processCancellationBarrier() (a CancelCheckpointMarker): a cancel of
 *    a newer id than the latest, or of the pending one, aborts
 *    (CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER) and makes that id the
 *    latest, so its barriers arriving later are ignored; any other cancel
 *    is ignored. abortInternal() notifies only the cancelled id: an older
 *    checkpoint pending at that moment is dropped without a word of its
 *    own (reported here as `dropped`, for the caller's figures).
 *
 * Invariants (asserted in checked builds, base/assert.h):
 *   at most one checkpoint is pending; pending implies id == latest
 *   the latest id never decreases
 *   a channel is blocked iff a checkpoint is pending, the channel is open
 *     and it delivered that checkpoint's barrier
 *   while pending, 0 < aligned set size < target <= channels
 *   ended channels only grow; open == channels - ended
 * Once every channel has ended nothing can start: a later barrier would
 * come on an ended channel and is ignored (counted as `ignored`), so the
 * subtask's input holds no checkpoint back any more, as Flink's
 * getAllBarriersReceivedFuture() is complete when no channel is open.
 * What a checkpoint does with a finished subtask is the coordinator's
 * business, not this handler's.
 *
 * Watermark status plays no part: an IDLE channel still delivers barriers
 * and is awaited like any other, as in Flink, where the valve
 * (StatusWatermarkValve) and the barrier handler never look at each
 * other. Watermarks, records and statuses are the caller's to pass on;
 * the handler only sees barriers, cancel markers and ends.
 *
 * A source subtask has no input channel and needs no handler: when
 * triggered it records its position and emits the barrier on every output,
 * as a Flink source task does when the coordinator triggers it (a
 * checkpoint starts at the sources; barriers only flow downstream).
 *
 * The rules in our words: doc/semantics.md section 11. The cases of
 * tests/unit/check_barrier_align.c also run on Flink 2.3.0's own class
 * (flink/src/test/java/wmrun/flink/FlinkBarrierAlignmentTest.java).
 *
 * Pure: no I/O, no clock read (times are parameters, processing time in
 * ns on one clock: base/time.h), no allocation after
 * wm_barrier_align_new(); every call is O(1). Used by one thread only.
 */
#ifndef WM_OPERATORS_BARRIER_ALIGN_H
#define WM_OPERATORS_BARRIER_ALIGN_H

#include <stdbool.h>
#include <stdint.h>

/* No checkpoint: Flink's -1 of currentCheckpointId before the first one. */
#define WM_CHECKPOINT_NONE INT64_C(-1)

/* Why a checkpoint was aborted (Flink's CheckpointFailureReason). */
enum wm_barrier_abort_reason {
	WM_BARRIER_ABORT_NONE = 0,
	WM_BARRIER_ABORT_SUBSUMED, /* a newer barrier arrived during alignment */
	WM_BARRIER_ABORT_CANCELLED, /* a cancel marker named it */
};

/*
 * What one call asks the caller to do. Act on the fields in this order:
 *  1. aborted != NONE: decline checkpoint `aborted` to the coordinator;
 *     every channel is unblocked.
 *  2. aligned != NONE: snapshot the subtask's state for checkpoint
 *     `aligned` now, then forward the barrier on every output; every
 *     channel is unblocked.
 *  3. blocked (barriers only): the barrier's channel is blocked: deliver
 *     no further frame of it until wm_barrier_align_blocked() says false
 *     (after a call that reports an aborted or aligned checkpoint).
 * A newer barrier can report 1 and 3 together; 1 and 2 together when the
 * newer barrier completes its own alignment at once (the only channel
 * still open). Every other field is NONE, 0 or false.
 */
struct wm_barrier_decision {
	int64_t aborted;
	enum wm_barrier_abort_reason abort_reason;
	/* An older pending checkpoint a cancel marker of a newer id swept
	 * away; Flink notifies no abort for it (see the file comment). */
	int64_t dropped;
	int64_t aligned;
	int64_t alignment_ns;	/* of `aligned`: first barrier to last */
	int64_t start_delay_ns; /* of `aligned`: timestamp to first barrier */
	bool blocked;
};

/* Figures since creation. */
struct wm_barrier_align_counters {
	uint64_t aligned; /* checkpoints aligned */
	uint64_t aborted; /* aborts notified (subsumed or cancelled) */
	uint64_t ignored; /* barriers ignored: obsolete or after END */
	int64_t alignment_ns_total; /* sum of aligned checkpoints' alignment */
	int64_t last_alignment_ns;  /* of the last aligned checkpoint */
	int64_t last_start_delay_ns;
};

struct wm_barrier_align;

/* A handler over `n_channels` (>= 1) open channels, nothing pending. NULL
 * with errno set (EINVAL, ENOMEM) on failure. */
struct wm_barrier_align *wm_barrier_align_new(uint32_t n_channels);
void wm_barrier_align_free(struct wm_barrier_align *h);

/* The barrier of checkpoint `id` (>= 0), stamped `timestamp_ns` where it
 * was triggered, arrived on `channel` (< channels) at `now_ns`. The caller
 * must not pass a barrier of a blocked channel (it would not be read);
 * one of an ended channel is ignored. */
void wm_barrier_align_on_barrier(struct wm_barrier_align *h, uint32_t channel,
				 int64_t id, int64_t timestamp_ns,
				 int64_t now_ns, struct wm_barrier_decision *d);

/* `channel` ended (wmrun's END frame: Flink's EndOfPartition) at `now_ns`.
 * A second END of one channel is ignored. */
void wm_barrier_align_on_end(struct wm_barrier_align *h, uint32_t channel,
			     int64_t now_ns, struct wm_barrier_decision *d);

/* A cancel marker for checkpoint `id` arrived (on any channel: the marker
 * says which checkpoint, not which channel). */
void wm_barrier_align_on_cancel(struct wm_barrier_align *h, int64_t id,
				struct wm_barrier_decision *d);

/* Whether frames of `channel` must wait: it delivered the pending
 * checkpoint's barrier and is still open. */
bool wm_barrier_align_blocked(const struct wm_barrier_align *h,
			      uint32_t channel);

/* The checkpoint being aligned, or WM_CHECKPOINT_NONE. */
int64_t wm_barrier_align_pending(const struct wm_barrier_align *h);
/* The highest id seen (barrier or cancel), or WM_CHECKPOINT_NONE (Flink's
 * getLatestCheckpointId()). */
int64_t wm_barrier_align_latest(const struct wm_barrier_align *h);
uint32_t wm_barrier_align_channels(const struct wm_barrier_align *h);
/* Channels not ended; 0 once the whole input has ended. */
uint32_t wm_barrier_align_open(const struct wm_barrier_align *h);
struct wm_barrier_align_counters
wm_barrier_align_counters(const struct wm_barrier_align *h);

#endif /* WM_OPERATORS_BARRIER_ALIGN_H */
