/*
 * replay_source.c
 *	The record source of one source subtask over a replayed trace
 *	(replay.h, wm_replay_source()): its partitions' records released in
 *	order as they fall due, a partition paused for watermark alignment
 *	holding its records back, and its position snapshotted and restored
 *	for checkpoints.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/snap.h"
#include "runtime/source/replay.h"
#include "runtime/source/replay_trace.h"

/* One record of a subtask's: its due time, copied for the release loop,
 * and its place in the trace, which also breaks ties (file order). A
 * record the release loop passed because its partition was paused was
 * due then, and its due time is spent: the field then links it to the
 * next held record of its partition (its position in items[], NO_HELD
 * for the last), so a backlog costs no memory of its own. */
struct pending {
	union {
		int64_t due_ns;
		size_t next_held;
	};
	size_t index;
};

#define NO_HELD SIZE_MAX

/* A partition of the subtask's, by index in partitions[]. */
struct replay_part {
	uint64_t emitted;
	/* Its backlog, records the release loop passed while it was
	 * paused, in file order: the positions in items[] of the first
	 * and the last, NO_HELD when there is none. */
	size_t held_first, held_last;
	bool paused;
	bool ready; /* resumed with a backlog: in the ready heap */
};

/* A resumed partition whose backlog is to come out, by the position of
 * its oldest held record: the release order (due time, then file order)
 * is the order of positions in items[]. */
struct ready_ent {
	size_t position;
	uint32_t part; /* index in partitions[] */
};

static inline bool
ready_before(const struct ready_ent *a, const struct ready_ent *b)
{
	return a->position < b->position;
}

/* Room for every partition, reserved once. */
#define WM_HEAP_PREFIX ready_heap
#define WM_HEAP_ENTRY struct ready_ent
#define WM_HEAP_BEFORE(a, b) ready_before(a, b)
#define WM_HEAP_MIN_CAPACITY 1
#include "lib/binary_heap.h"

/*
 * Release order. The cursor `next` walks items[] in release order and
 * releases each record as it falls due, as long as nothing is paused.
 * A record of a paused partition it passes joins that partition's
 * backlog instead. A partition resumed with a backlog is ready: its
 * backlog comes out before anything at the cursor (it was due earlier,
 * or as early and before it in the file), the oldest held record of all
 * ready partitions first, so that records are released in the order
 * they would have been without the pause, each partition in file order.
 * That is the generator's pausing (source_gen.h), for records read from
 * a log: they wait, nothing is lost.
 */
struct replay {
	struct wm_record_source source; /* first: the interface */
	const struct wm_replay_trace *trace;
	struct pending *items; /* this subtask's, in release order */
	size_t n, next;
	bool ended; /* every record out, and replay_end reached */
	uint32_t n_partitions;
	uint32_t *partitions;
	struct replay_part *part; /* by index in partitions[] */
	struct ready_heap ready;
	uint32_t n_held;     /* partitions with a backlog */
	int64_t last_now_ns; /* of the last next() or resume */
	/* The watermark of the last record returned, if it carries one
	 * (WM_RECORD_WATERMARK): the trace's, read once it is out. */
	wm_ts_t carried;
	/* By partition id, of all the source's: its index in partitions[],
	 * or NOT_OWNED. A scan of partitions[] for every record made a
	 * trace of a source with 65536 partitions take minutes per 100,000
	 * lines. */
	uint32_t *slot;
};

#define NOT_OWNED UINT32_MAX

static int
by_due(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	/* Ties keep file order: qsort is not stable. */
	if (x->due_ns != y->due_ns)
		return x->due_ns < y->due_ns ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* Into `held`'s backlog: the record at `position`, which the cursor
 * passes. */
static void
hold(struct replay *r, uint32_t held, size_t position)
{
	struct replay_part *p = &r->part[held];

	r->items[position].next_held = NO_HELD;
	if (p->held_first == NO_HELD) {
		p->held_first = position;
		r->n_held++;
	} else {
		r->items[p->held_last].next_held = position;
	}
	p->held_last = position;
}

/* Out of the ready partition on top of the heap: its oldest held record.
 * A partition paused again since it was made ready leaves the heap
 * instead, its backlog kept. */
static bool
release_held(struct replay *r, struct wm_record *out)
{
	while (ready_heap_count(&r->ready) > 0) {
		struct ready_ent *top = ready_heap_top(&r->ready);
		struct replay_part *p = &r->part[top->part];
		size_t position = p->held_first;

		if (p->paused) {
			p->ready = false;
			ready_heap_pop(&r->ready);
			continue;
		}
		*out = r->trace->recs[r->items[position].index];
		if (out->flags & WM_RECORD_WATERMARK)
			r->carried =
				r->trace->watermarks[r->items[position].index];
		p->emitted++;
		p->held_first = r->items[position].next_held;
		if (p->held_first != NO_HELD) {
			top->position = p->held_first;
			ready_heap_sift_down(&r->ready, 0);
		} else {
			p->ready = false;
			r->n_held--;
			ready_heap_pop(&r->ready);
		}
		return true;
	}
	return false;
}

/* Whether the source ends at now_ns: every record out, backlogs too, and
 * replay_end reached. */
static bool
replay_ends(const struct replay *r, int64_t now_ns)
{
	return r->next == r->n && r->n_held == 0 && now_ns >= r->trace->end_ns;
}

static int64_t
replay_next_due(const struct wm_record_source *src)
{
	const struct replay *r = (const struct replay *)src;

	if (ready_heap_count(&r->ready) > 0)
		return r->last_now_ns; /* a backlog: due now */
	if (r->next < r->n)
		return r->items[r->next].due_ns;
	if (r->ended || r->n_held > 0)
		return INT64_MAX; /* done, or until a resume */
	return r->trace->end_ns;
}

static int
replay_next(struct wm_record_source *src, int64_t now_ns, struct wm_record *out)
{
	struct replay *r = (struct replay *)src;

	r->last_now_ns = now_ns;
	if (release_held(r, out)) {
		r->ended = replay_ends(r, now_ns);
		return 1;
	}
	while (r->next < r->n && r->items[r->next].due_ns <= now_ns) {
		size_t position = r->next++;
		const struct wm_record *rec =
			&r->trace->recs[r->items[position].index];
		uint32_t i = r->slot[rec->partition];

		if (r->part[i].paused) {
			hold(r, i, position);
			continue;
		}
		*out = *rec;
		if (rec->flags & WM_RECORD_WATERMARK)
			r->carried =
				r->trace->watermarks[r->items[position].index];
		r->part[i].emitted++;
		r->ended = replay_ends(r, now_ns);
		return 1;
	}
	/* The partitions end at replay_end if it comes after the last
	 * record: a recording ends when its job did. */
	r->ended = r->ended || replay_ends(r, now_ns);
	return 0;
}

/*
 * What replay_next() would give `cap` times. A backlog goes a record at a
 * time through it; then the cursor's records in a loop of their own, each
 * with the due time replay_next_due() gives before it (the cursor's, which
 * a record passed for a paused partition keeps, so the one released after
 * it takes that due time, as it does a call at a time). Nothing that
 * replay_ends() reads changes between the cursor's records but the cursor,
 * so whether the source ended is decided once, at the end. A record that
 * carries a watermark ends the run (record_source.h).
 */
static uint32_t
replay_next_run(struct wm_record_source *src, int64_t now_ns,
		struct wm_record *out, int64_t *due_ns, uint32_t cap)
{
	struct replay *r = (struct replay *)src;
	uint32_t n = 0;

	for (; n < cap && ready_heap_count(&r->ready) > 0; n++) {
		if (due_ns != NULL)
			due_ns[n] = replay_next_due(src);
		if (replay_next(src, now_ns, &out[n]) != 1)
			return n;
		if (out[n].flags & WM_RECORD_WATERMARK)
			return n + 1;
	}
	r->last_now_ns = now_ns;
	while (n < cap && r->next < r->n &&
	       r->items[r->next].due_ns <= now_ns) {
		int64_t due = r->items[r->next].due_ns;
		const struct wm_record *rec = NULL;
		uint32_t i = 0;

		size_t index = 0;

		while (r->next < r->n && r->items[r->next].due_ns <= now_ns) {
			size_t position = r->next++;

			index = r->items[position].index;
			rec = &r->trace->recs[index];
			i = r->slot[rec->partition];
			if (!r->part[i].paused)
				break;
			hold(r, i, position);
			rec = NULL;
		}
		if (rec == NULL)
			break;
		out[n] = *rec;
		r->part[i].emitted++;
		if (due_ns != NULL)
			due_ns[n] = due;
		n++;
		if (rec->flags & WM_RECORD_WATERMARK) {
			r->carried = r->trace->watermarks[index];
			break;
		}
	}
	r->ended = r->ended || replay_ends(r, now_ns);
	return n;
}

/*
 * Pause or resume the i-th partition (alignment). Its records the cursor
 * passes meanwhile are held (hold()); resumed, its backlog is due at
 * once, ahead of anything later in release order. Pausing one whose
 * records are all out changes nothing it does: it holds nothing back.
 * O(log P).
 */
static void
replay_pause(struct wm_record_source *src, uint32_t i, bool paused,
	     int64_t now_ns)
{
	struct replay *r = (struct replay *)src;
	struct replay_part *p = &r->part[i];

	p->paused = paused;
	if (paused || p->ready || p->held_first == NO_HELD)
		return;
	/* Room for every partition was reserved: cannot fail. */
	ready_heap_push(&r->ready, &(struct ready_ent){p->held_first, i});
	p->ready = true;
	r->last_now_ns = now_ns;
}

static bool
replay_finished(const struct wm_record_source *src)
{
	const struct replay *r = (const struct replay *)src;

	return r->ended;
}

static uint32_t
replay_n_partitions(const struct wm_record_source *src)
{
	return ((const struct replay *)src)->n_partitions;
}

/* A trace's partitions end together, with its last line or at
 * replay_end. */
static uint32_t
replay_n_finished(const struct wm_record_source *src)
{
	const struct replay *r = (const struct replay *)src;

	return r->ended ? r->n_partitions : 0;
}

static uint32_t
replay_finished_partition(const struct wm_record_source *src, uint32_t k)
{
	(void)src;
	return k;
}

static void
replay_partition_stats(const struct wm_record_source *src, uint32_t i,
		       int64_t now_ns, struct wm_source_partition_stats *st)
{
	const struct replay *r = (const struct replay *)src;

	(void)now_ns;
	st->partition = r->partitions[i];
	st->emitted = r->part[i].emitted;
	st->skipped = 0;
	st->finished = r->ended;
}

static void
replay_free(struct wm_record_source *src)
{
	struct replay *r = (struct replay *)src;

	free(r->items);
	free(r->partitions);
	free(r->part);
	free(r->slot);
	ready_heap_destroy(&r->ready);
	free(r);
}

#define REPLAY_SNAP_TAG WM_SNAP_TAG('R', 'P', 'L', 'Y')
#define REPLAY_SNAP_VERSION 1

/*
 * The position is per partition the number of its records read, the
 * offset of the next one in its log (a Kafka split's offset): within a
 * partition records are released in file order, so the records read
 * are the first `emitted` of each.
 */
static void
replay_snapshot(const struct wm_record_source *src, struct wm_snap_writer *w)
{
	const struct replay *r = (const struct replay *)src;

	wm_snap_begin(w, REPLAY_SNAP_TAG, REPLAY_SNAP_VERSION);
	wm_snap_put_u64(w, r->n_partitions);
	for (uint32_t i = 0; i < r->n_partitions; i++) {
		wm_snap_put_u32(w, r->partitions[i]);
		wm_snap_put_u64(w, r->part[i].emitted);
	}
	wm_snap_end(w);
}

/* A partition a snapshot names (restore_partitions()'s take): how many
 * of its records were read. */
static int
take_offset(void *arg, uint32_t id, struct wm_snap_reader *rd)
{
	struct replay *r = arg;
	uint64_t offset = wm_snap_get_u64(rd);
	uint32_t i = r->slot[id]; /* id < the trace's n_partitions */

	if (wm_snap_reader_error(rd) != 0)
		return 0; /* the walk stops on it */
	if (i == NOT_OWNED)
		return -EINVAL;
	r->part[i].emitted = offset;
	return 0;
}

/*
 * Seek: drop from the release order the first offset[p] records of each
 * partition p and keep the rest, in order and with their due times.
 * Partitions the snapshot does not name start at their beginning; one it
 * names must be this source's, once, and hold that many records.
 */
static int
replay_restore(struct wm_record_source *src, struct wm_snap_reader *rd)
{
	struct replay *r = (struct replay *)src;
	uint32_t room = r->trace->n_partitions;
	uint64_t *seen;
	bool *named;
	size_t kept = 0;
	int err;

	if (r->next != 0)
		return wm_snap_reader_fail(rd, -EINVAL);
	for (uint32_t i = 0; i < r->n_partitions; i++)
		if (r->part[i].emitted != 0)
			return wm_snap_reader_fail(rd, -EINVAL);
	named = calloc(room ? room : 1, sizeof(*named));
	if (named == NULL)
		return wm_snap_reader_fail(rd, -ENOMEM);
	err = wm_record_source_restore_partitions(rd, REPLAY_SNAP_TAG,
						  REPLAY_SNAP_VERSION, 12, room,
						  named, take_offset, r);
	free(named);
	if (err != 0)
		goto fail;
	/* Counted down to what is still to skip; the count first, so that
	 * an offset beyond a partition's records is found before any
	 * record is dropped. */
	seen = calloc(r->n_partitions ? r->n_partitions : 1, sizeof(*seen));
	if (seen == NULL) {
		err = -ENOMEM;
		goto fail;
	}
	for (size_t j = 0; j < r->n; j++)
		seen[r->slot[r->trace->recs[r->items[j].index].partition]]++;
	for (uint32_t i = 0; i < r->n_partitions; i++)
		if (r->part[i].emitted > seen[i])
			err = -EINVAL;
	if (err != 0) {
		free(seen);
		goto fail;
	}
	for (uint32_t i = 0; i < r->n_partitions; i++)
		seen[i] = r->part[i].emitted;
	for (size_t j = 0; j < r->n; j++) {
		uint32_t i =
			r->slot[r->trace->recs[r->items[j].index].partition];

		if (seen[i] > 0)
			seen[i]--;
		else
			r->items[kept++] = r->items[j];
	}
	free(seen);
	r->n = kept;
	/* As a new source: ended at once only if nothing is left and the
	 * partitions end with their last record. */
	r->ended = r->n == 0 && r->trace->end_ns < 0;
	return 0;
fail:
	for (uint32_t i = 0; i < r->n_partitions; i++)
		r->part[i].emitted = 0;
	return wm_snap_reader_fail(rd, err != 0 ? err : -EBADMSG);
}

static wm_ts_t
replay_carried_watermark(const struct wm_record_source *src)
{
	return ((const struct replay *)src)->carried;
}

static const struct wm_record_source_ops replay_ops = {
	.next = replay_next,
	.next_due_ns = replay_next_due,
	.next_run = replay_next_run,
	.finished = replay_finished,
	.n_partitions = replay_n_partitions,
	.n_finished = replay_n_finished,
	.finished_partition = replay_finished_partition,
	.partition_stats = replay_partition_stats,
	.free = replay_free,
	.snapshot = replay_snapshot,
	.restore = replay_restore,
	.pause = replay_pause,
	.carried_watermark = replay_carried_watermark,
};

struct wm_record_source *
wm_replay_source(const struct wm_replay_trace *tr, const uint32_t *partitions,
		 size_t n)
{
	struct replay *r = calloc(1, sizeof(*r));
	uint32_t total = tr->n_partitions;
	size_t mine = 0;

	if (r == NULL)
		goto nomem;
	r->source.ops = &replay_ops;
	r->trace = tr;
	r->n_partitions = (uint32_t)n;
	ready_heap_init(&r->ready);
	r->partitions = calloc(n ? n : 1, sizeof(*r->partitions));
	r->part = calloc(n ? n : 1, sizeof(*r->part));
	r->slot = malloc((total ? total : 1) * sizeof(*r->slot));
	if (r->partitions == NULL || r->part == NULL || r->slot == NULL ||
	    ready_heap_reserve(&r->ready, n ? n : 1) != 0)
		goto nomem;
	memcpy(r->partitions, partitions, n * sizeof(*partitions));
	for (size_t i = 0; i < n; i++)
		r->part[i].held_first = r->part[i].held_last = NO_HELD;
	for (uint32_t p = 0; p < total; p++)
		r->slot[p] = NOT_OWNED;
	for (size_t i = 0; i < n; i++) {
		if (partitions[i] >= total) {
			replay_free(&r->source);
			errno = EINVAL;
			return NULL;
		}
		r->slot[partitions[i]] = (uint32_t)i;
	}
	for (size_t i = 0; i < tr->n; i++)
		mine += r->slot[tr->recs[i].partition] != NOT_OWNED;
	r->items = malloc((mine ? mine : 1) * sizeof(*r->items));
	if (r->items == NULL)
		goto nomem;
	for (size_t i = 0; i < tr->n; i++)
		if (r->slot[tr->recs[i].partition] != NOT_OWNED)
			r->items[r->n++] = (struct pending){
				.due_ns =
					tr->due_ns != NULL ? tr->due_ns[i] : 0,
				.index = i};
	/* Built in file order: already in release order where the due
	 * times never fall (every trace paced fast, whose are all 0, and one
	 * in arrival order), which one pass finds; qsort(), O(n log n) even on
	 * sorted input, takes the others. */
	for (size_t i = 1; i < r->n; i++) {
		if (r->items[i].due_ns < r->items[i - 1].due_ns) {
			qsort(r->items, r->n, sizeof(*r->items), by_due);
			break;
		}
	}
	r->ended = r->n == 0 && tr->end_ns < 0;
	return &r->source;
nomem:
	if (r != NULL)
		replay_free(&r->source);
	errno = ENOMEM;
	return NULL;
}
