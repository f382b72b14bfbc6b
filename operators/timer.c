/*
 * timer.c
 *	Event-time timer set: a binary min-heap ordered by (ts, key, ns) with a
 *	hash index from the triple to its heap position.
 *
 * heap		(lib/binary_heap.h) the timers in (ts, key, ns)
 *		order; each node's slot is the index of the hash slot that
 *		points back at it.
 * index	(lib/hash_table.h) a slot is empty when its pos1 is 0,
 *		otherwise it holds heap position pos1 - 1 and the low 32
 *		bits of the triple's hash (the home slot is hash & mask, so
 *		no rehashing is needed to move entries; the bits above mask
 *		filter out most mismatches without touching the heap). Load
 *		stays at or below one half.
 *
 * Every heap move updates the hash slot of the moved node (the heap's
 * PLACED hook), and every slot move updates the heap node of the moved
 * slot (the index's MOVED hook): that is the only coupling, and the two
 * hooks own it.
 *
 * Why not a balanced tree or a skip list: the heap is one array, pops touch
 * log n cache lines, and a timer set is mostly "add at the tail, pop at the
 * head". The hash index costs 8 bytes per slot and turns the duplicate check,
 * which Flink performs on every element, into one probe.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "base/assert.h"
#include "lib/hash.h"
#include "lib/snap.h"
#include "operators/timer.h"

/* Positions are uint32_t: stay well below 2^32 so pos + 1 never wraps and
 * the slot count (twice the timers) still fits. */
#define TIMER_MAX_COUNT ((size_t)1 << 30)

struct timer_node {
	struct wm_timer t;
	uint32_t slot; /* hash slot pointing at this node */
};

struct timer_slot {
	uint32_t hash; /* low 32 bits of the triple's hash */
	uint32_t pos1; /* heap position + 1; 0 = empty slot */
};

#define WM_HEAP_PREFIX timer_heap
#define WM_HEAP_ENTRY struct timer_node
#define WM_HEAP_DECLARE
#include "lib/binary_heap.h"

#define WM_HT_PREFIX timer_index
#define WM_HT_ENTRY struct timer_slot
#define WM_HT_DECLARE
#include "lib/hash_table.h"

struct wm_timer_service {
	struct timer_heap heap;
	struct timer_index index;
	wm_ts_t watermark;
};

static inline struct wm_timer_service *
timer_of_heap(const struct timer_heap *h)
{
	return wm_container_of(h, struct wm_timer_service, heap);
}

static inline struct wm_timer_service *
timer_of_index(const struct timer_index *tb)
{
	return wm_container_of(tb, struct wm_timer_service, index);
}

static inline uint32_t
timer_hash(const struct wm_timer *t)
{
	uint64_t h;

	h = wm_hash_mix64(wm_hash_fibonacci((uint64_t)t->ts) ^
			  (uint64_t)t->key);
	h = wm_hash_mix64(h ^ wm_hash_fibonacci((uint64_t)t->ns));
	return (uint32_t)h;
}

static inline bool
timer_equal(const struct wm_timer *a, const struct wm_timer *b)
{
	return a->ts == b->ts && a->key == b->key && a->ns == b->ns;
}

/* Strict firing order: timestamp, then key, then namespace. */
static inline bool
timer_before(const struct wm_timer *a, const struct wm_timer *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts;
	if (a->key != b->key)
		return a->key < b->key;
	return a->ns < b->ns;
}

#define WM_HEAP_PREFIX timer_heap
#define WM_HEAP_ENTRY struct timer_node
#define WM_HEAP_BEFORE(a, b) timer_before(&(a)->t, &(b)->t)
#define WM_HEAP_MIN_CAPACITY 64
#define WM_HEAP_PLACED(h, e, pos)                                              \
	(timer_of_heap(h)->index.slots[(e)->slot].pos1 = (uint32_t)(pos) + 1)
#define WM_HEAP_DEFINE
#include "lib/binary_heap.h"

#define WM_HT_PREFIX timer_index
#define WM_HT_ENTRY struct timer_slot
#define WM_HT_KEY struct wm_timer
#define WM_HT_EMPTY(e) ((e)->pos1 == 0)
#define WM_HT_HASH(tb, e) ((e)->hash)
#define WM_HT_MATCH(tb, e, key, hash_)                                         \
	((e)->hash == (hash_) &&                                               \
	 timer_equal(&timer_of_index(tb)->heap.nodes[(e)->pos1 - 1].t,         \
		     &(key)))
#define WM_HT_MIN_SLOTS 128
#define WM_HT_FILL(slots) ((slots) / 2)
/* Twice TIMER_MAX_COUNT: slot indices fit in a node's uint32_t. */
#define WM_HT_MAX_SLOTS ((size_t)1 << 31)
#define WM_HT_MOVED(tb, e, idx)                                                \
	(timer_of_index(tb)->heap.nodes[(e)->pos1 - 1].slot = (uint32_t)(idx))
#define WM_HT_DEFINE
#include "lib/hash_table.h"

struct wm_timer_service *
wm_timer_new(void)
{
	struct wm_timer_service *svc = calloc(1, sizeof(*svc));

	if (svc == NULL)
		return NULL;
	timer_heap_init(&svc->heap);
	timer_index_init(&svc->index);
	svc->watermark = WM_TS_MIN;
	/* The first 64 nodes and 128 slots now: a service that cannot have
	 * them fails here, not at its first timer. */
	if (wm_timer_reserve(svc, 1) != 0) {
		wm_timer_free(svc);
		errno = ENOMEM;
		return NULL;
	}
	return svc;
}

void
wm_timer_free(struct wm_timer_service *svc)
{
	if (svc == NULL)
		return;
	timer_heap_destroy(&svc->heap);
	timer_index_destroy(&svc->index);
	free(svc);
}

int
wm_timer_reserve(struct wm_timer_service *svc, size_t n)
{
	if (n > TIMER_MAX_COUNT - svc->heap.count ||
	    timer_heap_reserve(&svc->heap, n) != 0)
		return -ENOMEM;
	/* A larger heap is harmless if this fails. */
	return timer_index_reserve(&svc->index, n);
}

int
wm_timer_add(struct wm_timer_service *svc, wm_ts_t ts, int64_t key, int64_t ns)
{
	struct timer_node node = {.t = {.ts = ts, .key = key, .ns = ns}};
	uint32_t hash = timer_hash(&node.t);
	struct timer_slot *s;
	size_t idx;

	if (timer_index_lookup(&svc->index, node.t, hash, &idx))
		return 0;
	if (!timer_heap_has_room(&svc->heap, 1) ||
	    !timer_index_has_room(&svc->index, 1)) {
		if (wm_timer_reserve(svc, 1) != 0)
			return -ENOMEM;
		/* The index may have grown: probe again. */
		(void)timer_index_lookup(&svc->index, node.t, hash, &idx);
	}
	s = timer_index_insert_at(&svc->index, idx);
	s->hash = hash;
	/* The push sets s->pos1, through the heap's PLACED hook. */
	node.slot = (uint32_t)idx;
	timer_heap_push(&svc->heap, &node);
	return 1;
}

/* Remove the timer at heap position `pos` (its slot included): the slot
 * first, while every slot still points at its node. */
static void
timer_remove_at(struct wm_timer_service *svc, size_t pos)
{
	/* The two hooks keep node and slot pointing at each other. */
	WM_ASSERT(svc->index.slots[svc->heap.nodes[pos].slot].pos1 == pos + 1);
	timer_index_remove_at(&svc->index, svc->heap.nodes[pos].slot);
	timer_heap_remove_at(&svc->heap, pos);
}

bool
wm_timer_delete(struct wm_timer_service *svc, wm_ts_t ts, int64_t key,
		int64_t ns)
{
	struct wm_timer t = {.ts = ts, .key = key, .ns = ns};
	size_t idx;

	if (!timer_index_lookup(&svc->index, t, timer_hash(&t), &idx))
		return false;
	timer_remove_at(svc, svc->index.slots[idx].pos1 - 1);
	return true;
}

bool
wm_timer_contains(const struct wm_timer_service *svc, wm_ts_t ts, int64_t key,
		  int64_t ns)
{
	struct wm_timer t = {.ts = ts, .key = key, .ns = ns};
	size_t idx;

	return timer_index_lookup(&svc->index, t, timer_hash(&t), &idx);
}

size_t
wm_timer_count(const struct wm_timer_service *svc)
{
	return svc->heap.count;
}

wm_ts_t
wm_timer_watermark(const struct wm_timer_service *svc)
{
	return svc->watermark;
}

void
wm_timer_set_watermark(struct wm_timer_service *svc, wm_ts_t watermark)
{
	svc->watermark = watermark;
}

bool
wm_timer_peek(const struct wm_timer_service *svc, struct wm_timer *timer)
{
	if (svc->heap.count == 0)
		return false;
	*timer = svc->heap.nodes[0].t;
	return true;
}

bool
wm_timer_pop_due(struct wm_timer_service *svc, struct wm_timer *timer)
{
	if (svc->heap.count == 0 || svc->heap.nodes[0].t.ts > svc->watermark)
		return false;
	*timer = svc->heap.nodes[0].t;
	timer_remove_at(svc, 0);
	return true;
}

#define TIMER_SNAP_TAG WM_SNAP_TAG('T', 'I', 'M', 'R')
#define TIMER_SNAP_VERSION 1

void
wm_timer_snapshot(const struct wm_timer_service *svc, struct wm_snap_writer *w)
{
	wm_snap_begin(w, TIMER_SNAP_TAG, TIMER_SNAP_VERSION);
	wm_snap_put_u64(w, svc->heap.count);
	for (size_t i = 0; i < svc->heap.count; i++) {
		const struct wm_timer *t = &svc->heap.nodes[i].t;

		wm_snap_put_i64(w, t->ts);
		wm_snap_put_i64(w, t->key);
		wm_snap_put_i64(w, t->ns);
	}
	wm_snap_end(w);
}

int
wm_timer_restore(struct wm_timer_service *svc, struct wm_snap_reader *r)
{
	uint64_t n;

	if (wm_snap_enter(r, TIMER_SNAP_TAG, TIMER_SNAP_VERSION) != 0)
		return wm_snap_reader_error(r);
	/* Each timer takes 24 bytes: the count cannot outgrow the blob. */
	n = wm_snap_get_count(r, 24);
	if (n > TIMER_MAX_COUNT || (n > 0 && wm_timer_reserve(svc, n) != 0))
		return wm_snap_reader_fail(r, -ENOMEM);
	for (uint64_t i = 0; i < n && wm_snap_reader_error(r) == 0; i++) {
		wm_ts_t ts = wm_snap_get_i64(r);
		int64_t key = wm_snap_get_i64(r);
		int64_t ns = wm_snap_get_i64(r);

		/* A timer twice is no timer set the service could hold. */
		if (wm_snap_reader_error(r) == 0 &&
		    wm_timer_add(svc, ts, key, ns) != 1)
			return wm_snap_reader_fail(r, -EBADMSG);
	}
	return wm_snap_leave(r);
}
