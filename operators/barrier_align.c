/*
 * barrier_align.c
 *	Align checkpoint barriers across the input channels of one subtask.
 *
 * The rules are Flink's SingleCheckpointBarrierHandler, aligned
 * (barrier_align.h, doc/semantics.md section 11); this file only chooses
 * the representation:
 *
 *  - Flink's aligned set (a HashSet of channels, cleared on every
 *    completion and abort) is one id per channel, `joined`: the checkpoint
 *    whose set the channel last joined. A channel is in the current set iff
 *    a checkpoint is pending and joined == latest. Ids never repeat for a
 *    new alignment (a newer one needs a higher id), so completing or
 *    aborting clears the set by leaving `pending` alone, in O(1), and
 *    unblocking every channel costs nothing either.
 *  - n_aligned counts the set, so "every barrier is in" is a comparison.
 *
 * Invariants (asserted in checked builds by handler_consistent(), O(1)):
 *   pending()  iff  latest >= 0 and latest != last_done   (Flink's test)
 *   pending()  implies  0 < n_aligned < target <= n_channels
 *   !pending() implies  n_aligned == 0 and target == 0
 *   open <= n_channels; last_done <= latest
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "base/assert.h"
#include "operators/barrier_align.h"

struct barrier_channel {
	int64_t joined; /* checkpoint whose aligned set it last joined */
	bool ended;
};

struct wm_barrier_align {
	uint32_t n_channels;
	uint32_t open;	    /* channels not ended (numOpenChannels) */
	uint32_t target;    /* open channels when `latest` started */
	uint32_t n_aligned; /* channels in latest's aligned set */
	int64_t latest;	    /* currentCheckpointId */
	int64_t last_done;  /* lastCancelledOrCompletedCheckpointId */
	/* The pending barrier's timestamp, which an END joining the set
	 * restarts the timing with (Flink's pendingCheckpointBarrier). */
	int64_t pending_timestamp_ns;
	int64_t alignment_start_ns;
	int64_t start_delay_ns;
	struct wm_barrier_align_counters counters;
	struct barrier_channel channel[];
};

static bool
pending(const struct wm_barrier_align *h)
{
	return h->latest >= 0 && h->latest != h->last_done;
}

static bool
handler_consistent(const struct wm_barrier_align *h)
{
	if (h->open > h->n_channels || h->last_done > h->latest)
		return false;
	if (pending(h))
		return h->n_aligned > 0 && h->n_aligned < h->target &&
		       h->target <= h->n_channels;
	return h->n_aligned == 0 && h->target == 0;
}

/* now - then, never below 0 and saturating (a timestamp far in the past
 * must not wrap into a negative delay). */
static int64_t
elapsed_ns(int64_t now, int64_t then)
{
	if (now <= then)
		return 0;
	if (then < 0 && now > INT64_MAX + then)
		return INT64_MAX;
	return now - then;
}

static int64_t
saturating_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static void
decision_clear(struct wm_barrier_decision *d)
{
	*d = (struct wm_barrier_decision){
		.aborted = WM_CHECKPOINT_NONE,
		.abort_reason = WM_BARRIER_ABORT_NONE,
		.dropped = WM_CHECKPOINT_NONE,
		.aligned = WM_CHECKPOINT_NONE,
	};
}

struct wm_barrier_align *
wm_barrier_align_new(uint32_t n_channels)
{
	if (n_channels == 0) {
		errno = EINVAL;
		return NULL;
	}
	struct wm_barrier_align *h =
		malloc(sizeof(*h) +
		       sizeof(struct barrier_channel) * (size_t)n_channels);

	if (h == NULL)
		return NULL;
	*h = (struct wm_barrier_align){
		.n_channels = n_channels,
		.open = n_channels,
		.latest = WM_CHECKPOINT_NONE,
		.last_done = WM_CHECKPOINT_NONE,
	};
	for (uint32_t c = 0; c < n_channels; c++)
		h->channel[c] = (struct barrier_channel){
			.joined = WM_CHECKPOINT_NONE,
			.ended = false,
		};
	WM_ASSERT(handler_consistent(h));
	return h;
}

void
wm_barrier_align_free(struct wm_barrier_align *h)
{
	free(h);
}

/* abortInternal(): checkpoint `id` is aborted, the aligned set emptied
 * (every channel unblocked) and `id` becomes at least the latest, so that
 * its barriers arriving later are obsolete. */
static void
abort_checkpoint(struct wm_barrier_align *h, int64_t id,
		 enum wm_barrier_abort_reason reason,
		 struct wm_barrier_decision *d)
{
	if (pending(h) && id > h->latest)
		d->dropped = h->latest;
	if (id > h->latest)
		h->latest = id;
	if (id > h->last_done)
		h->last_done = id;
	h->n_aligned = 0;
	h->target = 0;
	h->counters.aborted++;
	d->aborted = id;
	d->abort_reason = reason;
}

/* markCheckpointAlignedAndTransformState(): `channel` joins the pending
 * checkpoint's aligned set, at `now_ns`. */
static void
join_aligned_set(struct wm_barrier_align *h, uint32_t channel, int64_t now_ns,
		 struct wm_barrier_decision *d)
{
	struct barrier_channel *ch = &h->channel[channel];

	if (ch->joined != h->latest) {
		ch->joined = h->latest;
		h->n_aligned++;
	}
	/* Flink tests the set's size, not whether it grew: a channel that
	 * ends after being the only one in the set starts the timing again
	 * (testDeduplicateChannelsWithBothBarrierAndEndOfPartition's path). */
	if (h->n_aligned == 1) {
		h->start_delay_ns = elapsed_ns(now_ns, h->pending_timestamp_ns);
		h->alignment_start_ns = now_ns;
	}
	if (h->n_aligned < h->target)
		return;

	/* Every channel open at the start delivered the barrier or ended:
	 * trigger, then unblock all (AbstractAlignedBarrierHandlerState). */
	int64_t alignment_ns =
		h->target > 1 ? elapsed_ns(now_ns, h->alignment_start_ns) : 0;

	d->aligned = h->latest;
	d->alignment_ns = alignment_ns;
	d->start_delay_ns = h->start_delay_ns;
	h->last_done = h->latest;
	h->n_aligned = 0;
	h->target = 0;
	h->counters.aligned++;
	h->counters.alignment_ns_total =
		saturating_add(h->counters.alignment_ns_total, alignment_ns);
	h->counters.last_alignment_ns = alignment_ns;
	h->counters.last_start_delay_ns = h->start_delay_ns;
}

void
wm_barrier_align_on_barrier(struct wm_barrier_align *h, uint32_t channel,
			    int64_t id, int64_t timestamp_ns, int64_t now_ns,
			    struct wm_barrier_decision *d)
{
	WM_ASSERT(channel < h->n_channels);
	decision_clear(d);
	if (h->channel[channel].ended ||
	    (h->latest > id || (h->latest == id && !pending(h)))) {
		h->counters.ignored++;
		return;
	}
	if (id > h->latest) {
		/* checkNewCheckpoint(): the first barrier of a newer id */
		if (pending(h))
			abort_checkpoint(h, h->latest,
					 WM_BARRIER_ABORT_SUBSUMED, d);
		h->latest = id;
		h->pending_timestamp_ns = timestamp_ns;
		h->n_aligned = 0;
		h->target = h->open;
	}
	join_aligned_set(h, channel, now_ns, d);
	d->blocked = pending(h);
	WM_ASSERT(handler_consistent(h));
}

void
wm_barrier_align_on_end(struct wm_barrier_align *h, uint32_t channel,
			int64_t now_ns, struct wm_barrier_decision *d)
{
	WM_ASSERT(channel < h->n_channels);
	decision_clear(d);
	if (h->channel[channel].ended)
		return;
	h->channel[channel].ended = true;
	h->open--;
	if (pending(h))
		join_aligned_set(h, channel, now_ns, d);
	WM_ASSERT(handler_consistent(h));
}

void
wm_barrier_align_on_cancel(struct wm_barrier_align *h, int64_t id,
			   struct wm_barrier_decision *d)
{
	decision_clear(d);
	if (id > h->latest || (id == h->latest && pending(h)))
		abort_checkpoint(h, id, WM_BARRIER_ABORT_CANCELLED, d);
	WM_ASSERT(handler_consistent(h));
}

bool
wm_barrier_align_blocked(const struct wm_barrier_align *h, uint32_t channel)
{
	WM_ASSERT(channel < h->n_channels);
	const struct barrier_channel *ch = &h->channel[channel];

	return pending(h) && !ch->ended && ch->joined == h->latest;
}

int64_t
wm_barrier_align_pending(const struct wm_barrier_align *h)
{
	return pending(h) ? h->latest : WM_CHECKPOINT_NONE;
}

int64_t
wm_barrier_align_latest(const struct wm_barrier_align *h)
{
	return h->latest;
}

uint32_t
wm_barrier_align_channels(const struct wm_barrier_align *h)
{
	return h->n_channels;
}

uint32_t
wm_barrier_align_open(const struct wm_barrier_align *h)
{
	return h->open;
}

struct wm_barrier_align_counters
wm_barrier_align_counters(const struct wm_barrier_align *h)
{
	return h->counters;
}
