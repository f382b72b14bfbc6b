/*
 * heartbeats.c
 *	A source subtask's heartbeats merged into its records (heartbeats.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "base/container_of.h"
#include "lib/snap.h"
#include "operators/heartbeats.h"

#define NS_PER_MS 1000000

#define HEARTBEATS_SNAP_TAG WM_SNAP_TAG('H', 'B', 'T', 'S')
#define HEARTBEATS_SNAP_VERSION 1

struct beat_ent {
	int64_t due; /* ns: the heartbeat's number times the period */
	uint32_t id; /* partition id: the tie-breaker */
	uint32_t idx;
};

#define WM_HEAP_PREFIX beat_heap
#define WM_HEAP_ENTRY struct beat_ent
#define WM_HEAP_BEFORE(a, b)                                                   \
	((a)->due < (b)->due || ((a)->due == (b)->due && (a)->id < (b)->id))
#define WM_HEAP_MIN_CAPACITY 8
#include "lib/binary_heap.h"

struct beat_part {
	uint32_t id;
	int64_t every_ns; /* 0: no heartbeats */
	uint64_t next;	  /* the number of its next heartbeat, from 1 */
	bool paused;
	bool finished;
	bool in_heap; /* a paused or finished one leaves at the top */
};

/*
 * Invariant between calls: the heap holds every partition that sends
 * heartbeats, is neither paused nor finished and has one due before
 * end_ns, keyed by that one's due time, and perhaps paused or finished
 * ones below its top, never at it (settle() pops them).
 */
struct heartbeats {
	struct wm_record_source source; /* first: the interface */
	struct wm_record_source_ops ops;
	struct wm_record_source *inner;
	bool fast;
	int64_t start_epoch_ms;
	int64_t end_ns;
	uint32_t n_parts;
	uint32_t finished_seen; /* of the inner source's n_finished */
	struct beat_part *parts;
	struct beat_heap heap;
};

static struct heartbeats *
heartbeats_of(const struct wm_record_source *src)
{
	return wm_container_of(src, struct heartbeats, source);
}

/* When partition p's next heartbeat is due; INT64_MAX: never (none
 * before the end, or beyond the int64 horizon). */
static int64_t
due_of(const struct heartbeats *h, const struct beat_part *p)
{
	int64_t due;

	if (p->every_ns == 0 || p->finished ||
	    __builtin_mul_overflow((int64_t)p->next, p->every_ns, &due) ||
	    due >= h->end_ns)
		return INT64_MAX;
	return due;
}

static void
enter_heap(struct heartbeats *h, uint32_t idx)
{
	struct beat_part *p = &h->parts[idx];
	struct beat_ent e = {due_of(h, p), p->id, idx};

	if (p->in_heap || p->paused || e.due == INT64_MAX)
		return;
	p->in_heap = true;
	beat_heap_push(&h->heap, &e);
}

/* The partitions the inner source finished since the last look marked
 * so, and the top made one that sends now (the invariant above). */
static void
settle(struct heartbeats *h)
{
	uint32_t done = h->inner->ops->n_finished(h->inner);
	struct beat_ent *top;

	while (h->finished_seen < done)
		h->parts[h->inner->ops->finished_partition(h->inner,
							   h->finished_seen++)]
			.finished = true;
	while ((top = beat_heap_top(&h->heap)) != NULL) {
		struct beat_part *p = &h->parts[top->idx];

		if (!p->paused && !p->finished)
			break;
		p->in_heap = false;
		beat_heap_pop(&h->heap);
	}
}

static int64_t
next_beat_due(const struct heartbeats *h)
{
	const struct beat_ent *top =
		beat_heap_top((struct beat_heap *)&h->heap);

	return top != NULL ? top->due : INT64_MAX;
}

/* The heartbeat at the top into *out, its partition's next one queued. */
static void
take_beat(struct heartbeats *h, struct wm_record *out)
{
	struct beat_ent e = *beat_heap_top(&h->heap);
	struct beat_part *p = &h->parts[e.idx];

	*out = (struct wm_record){
		.ts = h->start_epoch_ms + e.due / NS_PER_MS,
		.flags = WM_RECORD_HEARTBEAT,
		.partition = p->id,
	};
	p->next++;
	e.due = due_of(h, p);
	if (e.due == INT64_MAX) {
		p->in_heap = false;
		beat_heap_pop(&h->heap);
	} else {
		/* Its key rose: the top rewritten, then sifted down. */
		h->heap.nodes[0] = e;
		beat_heap_sift_down(&h->heap, 0);
	}
}

/* Whether the heartbeat due at `beat` goes before the inner source's next
 * record, at now_ns (heartbeats.h, "Merging"). */
static bool
beat_first(const struct heartbeats *h, int64_t beat, int64_t now_ns)
{
	return beat <= now_ns &&
	       (h->fast || beat <= wm_record_source_next_due_ns(h->inner));
}

static int
heartbeats_next(struct wm_record_source *src, int64_t now_ns,
		struct wm_record *out)
{
	struct heartbeats *h = heartbeats_of(src);
	int got;

	settle(h);
	if (beat_first(h, next_beat_due(h), now_ns)) {
		take_beat(h, out);
		return 1;
	}
	got = wm_record_source_next(h->inner, now_ns, out);
	settle(h);
	if (got == 1)
		return 1;
	/* Nothing of the inner source is due now: any heartbeat that is. */
	if (next_beat_due(h) <= now_ns) {
		take_beat(h, out);
		return 1;
	}
	return 0;
}

static int64_t
heartbeats_next_due(const struct wm_record_source *src)
{
	const struct heartbeats *h = heartbeats_of(src);
	int64_t inner = wm_record_source_next_due_ns(h->inner);
	int64_t beat = next_beat_due(h);

	return beat < inner ? beat : inner;
}

/*
 * While no heartbeat is due the inner source's run goes through whole;
 * a heartbeat due goes in its place among the records, which the inner
 * source then gives one at a time up to it (paced: the records due
 * before it) or none (fast: they arrive at now_ns, after it).
 */
static uint32_t
heartbeats_next_run(struct wm_record_source *src, int64_t now_ns,
		    struct wm_record *out, int64_t *due_ns, uint32_t cap)
{
	struct heartbeats *h = heartbeats_of(src);
	uint32_t n = 0;

	while (n < cap) {
		int64_t beat, due;

		settle(h);
		beat = next_beat_due(h);
		if (beat > now_ns) {
			n += wm_record_source_next_run(
				h->inner, now_ns, out + n,
				due_ns != NULL ? due_ns + n : NULL, cap - n);
			settle(h);
			break;
		}
		due = heartbeats_next_due(src);
		if (beat_first(h, beat, now_ns)) {
			take_beat(h, &out[n]);
		} else if (wm_record_source_next(h->inner, now_ns, &out[n]) !=
			   1) {
			/* The inner source finished a partition or found
			 * nothing due after all: the heartbeat is next. */
			continue;
		}
		if (due_ns != NULL)
			due_ns[n] = due;
		n++;
	}
	return n;
}

static bool
heartbeats_finished(const struct wm_record_source *src)
{
	return wm_record_source_finished(heartbeats_of(src)->inner);
}

static uint32_t
heartbeats_n_partitions(const struct wm_record_source *src)
{
	const struct wm_record_source *in = heartbeats_of(src)->inner;

	return in->ops->n_partitions(in);
}

static uint32_t
heartbeats_n_finished(const struct wm_record_source *src)
{
	const struct wm_record_source *in = heartbeats_of(src)->inner;

	return in->ops->n_finished(in);
}

static uint32_t
heartbeats_finished_partition(const struct wm_record_source *src, uint32_t k)
{
	const struct wm_record_source *in = heartbeats_of(src)->inner;

	return in->ops->finished_partition(in, k);
}

static void
heartbeats_partition_stats(const struct wm_record_source *src, uint32_t i,
			   int64_t now_ns, struct wm_source_partition_stats *st)
{
	const struct wm_record_source *in = heartbeats_of(src)->inner;

	in->ops->partition_stats(in, i, now_ns, st);
}

/* The sooner of the i-th partition's next record and next heartbeat: a
 * heartbeat moves its watermark as a record would. */
static int64_t
heartbeats_partition_next_due(const struct wm_record_source *src, uint32_t i)
{
	const struct heartbeats *h = heartbeats_of(src);
	int64_t record = wm_record_source_partition_next_due_ns(h->inner, i);
	int64_t beat;

	if (h->fast || record == WM_RECORD_SOURCE_DUE_UNKNOWN ||
	    i >= h->n_parts)
		return WM_RECORD_SOURCE_DUE_UNKNOWN;
	beat = h->parts[i].paused ? INT64_MAX : due_of(h, &h->parts[i]);
	return beat < record ? beat : record;
}

static void
heartbeats_pause(struct wm_record_source *src, uint32_t i, bool paused,
		 int64_t now_ns)
{
	struct heartbeats *h = heartbeats_of(src);

	h->inner->ops->pause(h->inner, i, paused, now_ns);
	h->parts[i].paused = paused;
	if (!paused)
		enter_heap(h, i);
	settle(h);
}

static void
heartbeats_free(struct wm_record_source *src)
{
	struct heartbeats *h = heartbeats_of(src);

	wm_record_source_free(h->inner);
	beat_heap_destroy(&h->heap);
	free(h->parts);
	free(h);
}

static void
heartbeats_snapshot(const struct wm_record_source *src,
		    struct wm_snap_writer *w)
{
	const struct heartbeats *h = heartbeats_of(src);

	wm_record_source_snapshot(h->inner, w);
	wm_snap_begin(w, HEARTBEATS_SNAP_TAG, HEARTBEATS_SNAP_VERSION);
	wm_snap_put_u32(w, h->n_parts);
	for (uint32_t i = 0; i < h->n_parts; i++) {
		wm_snap_put_u32(w, h->parts[i].id);
		wm_snap_put_i64(w, h->parts[i].every_ns);
		wm_snap_put_u64(w, h->parts[i].next);
	}
	wm_snap_end(w);
}

/* The heartbeats of the same partitions at the same periods, each from
 * its next number on; -EINVAL for another source's or schedule's. */
static int
heartbeats_restore(struct wm_record_source *src, struct wm_snap_reader *r)
{
	struct heartbeats *h = heartbeats_of(src);
	int err = wm_record_source_restore(h->inner, r);

	if (err != 0)
		return err;
	if (wm_snap_enter(r, HEARTBEATS_SNAP_TAG, HEARTBEATS_SNAP_VERSION) != 0)
		return wm_snap_reader_error(r);
	if (wm_snap_get_u32(r) != h->n_parts)
		return wm_snap_reader_fail(r, -EINVAL);
	for (uint32_t i = 0; i < h->n_parts; i++) {
		uint32_t id = wm_snap_get_u32(r);
		int64_t every_ns = wm_snap_get_i64(r);
		uint64_t next = wm_snap_get_u64(r);

		if (id != h->parts[i].id || every_ns != h->parts[i].every_ns ||
		    next == 0)
			return wm_snap_reader_fail(r, -EINVAL);
		h->parts[i].next = next;
	}
	if ((err = wm_snap_leave(r)) != 0)
		return err;
	beat_heap_clear(&h->heap);
	h->finished_seen = 0;
	for (uint32_t i = 0; i < h->n_parts; i++) {
		h->parts[i].in_heap = false;
		h->parts[i].paused = false;
	}
	settle(h);
	for (uint32_t i = 0; i < h->n_parts; i++)
		enter_heap(h, i);
	return 0;
}

static const struct wm_record_source_ops heartbeats_ops = {
	.next = heartbeats_next,
	.next_due_ns = heartbeats_next_due,
	.partition_next_due_ns = heartbeats_partition_next_due,
	.next_run = heartbeats_next_run,
	.finished = heartbeats_finished,
	.n_partitions = heartbeats_n_partitions,
	.n_finished = heartbeats_n_finished,
	.finished_partition = heartbeats_finished_partition,
	.partition_stats = heartbeats_partition_stats,
	.free = heartbeats_free,
	.pause = heartbeats_pause,
	.snapshot = heartbeats_snapshot,
	.restore = heartbeats_restore,
};

/* Each partition's period from the schedules: -EINVAL for a bad one or a
 * partition under two. */
static int
set_periods(struct heartbeats *h, const struct wm_heartbeat *sched, uint32_t n)
{
	for (uint32_t s = 0; s < n; s++) {
		const struct wm_heartbeat *b = &sched[s];

		if (b->first_partition > b->last_partition ||
		    b->every_ms <= 0 || b->every_ms > WM_HEARTBEAT_MAX_EVERY_MS)
			return -EINVAL;
		for (uint32_t i = 0; i < h->n_parts; i++) {
			struct beat_part *p = &h->parts[i];

			if (p->id < b->first_partition ||
			    p->id > b->last_partition)
				continue;
			if (p->every_ns != 0)
				return -EINVAL;
			p->every_ns = b->every_ms * NS_PER_MS;
		}
	}
	return 0;
}

struct wm_record_source *
wm_heartbeats_wrap(struct wm_record_source *inner,
		   const struct wm_heartbeat *sched, uint32_t n, bool fast,
		   int64_t start_epoch_ms, int64_t end_ns)
{
	struct heartbeats *h = calloc(1, sizeof(*h));
	int err = -ENOMEM;

	if (h == NULL)
		goto fail;
	h->inner = inner;
	h->ops = heartbeats_ops;
	if (inner->ops->pause == NULL)
		h->ops.pause = NULL;
	if (inner->ops->snapshot == NULL)
		h->ops.snapshot = NULL;
	if (inner->ops->restore == NULL)
		h->ops.restore = NULL;
	h->source.ops = &h->ops;
	h->fast = fast;
	h->start_epoch_ms = start_epoch_ms;
	h->end_ns = end_ns;
	h->n_parts = inner->ops->n_partitions(inner);
	beat_heap_init(&h->heap);
	h->parts = calloc(h->n_parts ? h->n_parts : 1, sizeof(*h->parts));
	if (h->parts == NULL || beat_heap_reserve(&h->heap, h->n_parts) != 0)
		goto fail;
	for (uint32_t i = 0; i < h->n_parts; i++) {
		struct wm_source_partition_stats st;

		inner->ops->partition_stats(inner, i, 0, &st);
		h->parts[i].id = st.partition;
		h->parts[i].next = 1;
	}
	if ((err = set_periods(h, sched, n)) != 0)
		goto fail;
	settle(h);
	for (uint32_t i = 0; i < h->n_parts; i++)
		enter_heap(h, i);
	return &h->source;
fail:
	if (h != NULL) {
		beat_heap_destroy(&h->heap);
		free(h->parts);
		free(h);
	}
	wm_record_source_free(inner);
	errno = -err;
	return NULL;
}
