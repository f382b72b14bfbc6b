/*
 * sim_queue.h
 *	A --sim task's input queue: what its input channels delivered, in
 *	arrival order, consecutive records of one channel kept as one run.
 *
 * A run is what a ring hands a worker's gate: records of one channel with
 * nothing queued between them. A record joins the last run only if that
 * run is the queue's last item and of its channel, so the order of frames
 * and records in the queue is exactly the order they arrived in (sim.h
 * rule 3): a watermark, status, barrier or END never overtakes a record
 * sent before it, and a run is cut wherever anything else arrived. The
 * task then takes a run in one call (wm_task_input_run()), as a worker
 * takes the run its gate found in a ring.
 *
 * The records of every run live in one array beside the items, in queue
 * order; an item that is a run names its first record there.
 */
#ifndef WM_RUNTIME_RUN_SIM_QUEUE_H
#define WM_RUNTIME_RUN_SIM_QUEUE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/record.h"
#include "ipc/frame.h"

struct wm_sim_item {
	uint32_t channel;
	uint32_t n; /* records in the run; 0: a frame */
	union {
		struct wm_frame frame; /* n == 0 */
		size_t first;	       /* the run's first in records[] */
	} u;
};

struct wm_sim_queue {
	size_t n, cap;
	struct wm_sim_item *items;
	size_t n_records, cap_records;
	struct wm_record *records;
};

/* Room for one more item and `records` more records: 0 or -ENOMEM.
 * Doubling, so a queue's growth costs O(1) a record. */
static __attribute__((noinline)) int
wm_sim_queue_grow(struct wm_sim_queue *q, size_t records)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 256;
		void *items = realloc(q->items, cap * sizeof(*q->items));

		if (items == NULL)
			return -ENOMEM;
		q->items = items;
		q->cap = cap;
	}
	if (q->cap_records - q->n_records < records) {
		size_t cap = q->cap_records ? 2 * q->cap_records : 1024;
		void *recs;

		while (cap - q->n_records < records)
			cap *= 2;
		recs = realloc(q->records, cap * sizeof(*q->records));
		if (recs == NULL)
			return -ENOMEM;
		q->records = recs;
		q->cap_records = cap;
	}
	return 0;
}

/* Frame `f` (no record: a watermark, status, barrier or END) arrived on
 * `channel`. 0 or -ENOMEM. */
static inline int
wm_sim_queue_frame(struct wm_sim_queue *q, uint32_t channel,
		   const struct wm_frame *f)
{
	if (q->n == q->cap && wm_sim_queue_grow(q, 0) != 0)
		return -ENOMEM;
	q->items[q->n].channel = channel;
	q->items[q->n].n = 0;
	q->items[q->n].u.frame = *f;
	q->n++;
	return 0;
}

/* A new run of `channel` after everything queued, with room for `n`
 * records: 0 or -ENOMEM. The first record of a run, or one that finds
 * the arrays full, comes here; the others join the run inline. */
static __attribute__((noinline)) int
wm_sim_queue_open_run(struct wm_sim_queue *q, uint32_t channel, uint32_t n)
{
	struct wm_sim_item *last = q->n > 0 ? &q->items[q->n - 1] : NULL;
	bool joins = last != NULL && last->n > 0 && last->channel == channel;

	/* Most runs open with room to spare: no call then. */
	if ((q->n == q->cap || q->cap_records - q->n_records < n) &&
	    wm_sim_queue_grow(q, n) != 0)
		return -ENOMEM;
	if (!joins) {
		last = &q->items[q->n++];
		last->channel = channel;
		last->n = 0;
		last->u.first = q->n_records;
	}
	return 0;
}

/*
 * `n` records arrived on `channel`, after everything queued: they join the
 * last run if it is the last item and of that channel, else open a run.
 * The last item's records, if it is a run, are the last of records[]
 * (only a run adds records), so joining it is an append. 0 or -ENOMEM.
 */
static inline int
wm_sim_queue_records(struct wm_sim_queue *q, uint32_t channel,
		     const struct wm_record *r, uint32_t n)
{
	struct wm_sim_item *last = q->n > 0 ? &q->items[q->n - 1] : NULL;

	if (__builtin_expect(last == NULL || last->n == 0 ||
				     last->channel != channel ||
				     q->cap_records - q->n_records < n,
			     0)) {
		if (wm_sim_queue_open_run(q, channel, n) != 0)
			return -ENOMEM;
		last = &q->items[q->n - 1];
	}
	memcpy(&q->records[q->n_records], r, n * sizeof(*r));
	q->n_records += n;
	last->n += n;
	return 0;
}

/* The records of run `item`. */
static inline const struct wm_record *
wm_sim_queue_run(const struct wm_sim_queue *q, const struct wm_sim_item *item)
{
	return &q->records[item->u.first];
}

/* Everything queued dropped (frames in flight lost with a crash). */
static inline void
wm_sim_queue_clear(struct wm_sim_queue *q)
{
	q->n = 0;
	q->n_records = 0;
}

static inline void
wm_sim_queue_free(struct wm_sim_queue *q)
{
	free(q->items);
	free(q->records);
	*q = (struct wm_sim_queue){0};
}

#endif /* WM_RUNTIME_RUN_SIM_QUEUE_H */
