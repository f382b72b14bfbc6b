/*
 * timer.c
 *	Event-time timer set: a binary min-heap ordered by (ts, key, ns) with a
 *	hash index from the triple to its heap position.
 *
 * heap[0 .. count)	the timers; heap[i] <= heap[2i+1], heap[2i+2] in
 *			(ts, key, ns) order. heap[i].slot is the index of
 *			the hash slot that points back at i.
 * slots[0 .. mask]	linear-probing hash table. A slot is empty when its
 *			pos1 is 0, otherwise it holds heap position pos1 - 1
 *			and the low 32 bits of the triple's hash (the home
 *			slot is hash & mask, so no rehashing is needed to
 *			move entries; the bits above mask filter out most
 *			mismatches without touching the heap).
 *			Deletion shifts later entries of the cluster back
 *			(no tombstones), so probe lengths never degrade.
 *			Load stays at or below one half.
 *
 * Every heap move updates the hash slot of the moved node, and every slot
 * move updates the heap node of the moved slot: that is the only coupling,
 * and the two helpers heap_place() and slot_place() own it.
 *
 * Why not a balanced tree or a skip list: the heap is one array, pops touch
 * log n cache lines, and a timer set is mostly "add at the tail, pop at the
 * head". The hash index costs 8 bytes per slot and turns the duplicate check,
 * which Flink performs on every element, into one probe.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "operators/timer.h"

/* Positions are uint32_t: stay well below 2^32 so pos + 1 never wraps and
 * the slot count (twice the timers) still fits. */
#define TIMER_MAX_COUNT ((size_t)1 << 30)
#define TIMER_MIN_HEAP 64
#define TIMER_MIN_SLOTS 128

struct timer_node {
	struct wm_timer t;
	uint32_t slot; /* hash slot pointing at this node */
};

struct timer_slot {
	uint32_t hash; /* low 32 bits of the triple's hash */
	uint32_t pos1; /* heap position + 1; 0 = empty slot */
};

struct wm_timer_service {
	struct timer_node *heap;
	size_t count;	 /* timers held */
	size_t heap_cap; /* nodes allocated */
	struct timer_slot *slots;
	size_t mask;	/* slot count - 1; slot count is a power of two */
	size_t grow_at; /* grow slots before count exceeds this */
	wm_ts_t watermark;
};

static inline uint64_t
timer_mix(uint64_t x)
{
	/* MurmurHash3's 64-bit finaliser: every input bit affects every
	 * output bit, so sequential timestamps spread over the table. */
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static inline uint32_t
timer_hash(wm_ts_t ts, int64_t key, int64_t ns)
{
	uint64_t h;

	h = timer_mix((uint64_t)ts * 0x9e3779b97f4a7c15ULL ^ (uint64_t)key);
	h = timer_mix(h ^ (uint64_t)ns * 0xc2b2ae3d27d4eb4fULL);
	return (uint32_t)h;
}

static inline bool
timer_equal(const struct wm_timer *a, wm_ts_t ts, int64_t key, int64_t ns)
{
	return a->ts == ts && a->key == key && a->ns == ns;
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

/* Put `node` at heap position `pos` and point its slot at it. */
static inline void
heap_place(struct wm_timer_service *svc, size_t pos,
	   const struct timer_node *node)
{
	svc->heap[pos] = *node;
	svc->slots[node->slot].pos1 = (uint32_t)(pos + 1);
}

/* Put slot value `s` at slot index `idx` and point its heap node at it. */
static inline void
slot_place(struct wm_timer_service *svc, size_t idx, struct timer_slot s)
{
	svc->slots[idx] = s;
	svc->heap[s.pos1 - 1].slot = (uint32_t)idx;
}

static void
heap_sift_up(struct wm_timer_service *svc, size_t pos)
{
	struct timer_node node = svc->heap[pos];

	while (pos > 0) {
		size_t parent = (pos - 1) / 2;

		if (!timer_before(&node.t, &svc->heap[parent].t))
			break;
		heap_place(svc, pos, &svc->heap[parent]);
		pos = parent;
	}
	heap_place(svc, pos, &node);
}

static void
heap_sift_down(struct wm_timer_service *svc, size_t pos)
{
	struct timer_node node = svc->heap[pos];

	for (;;) {
		size_t child = 2 * pos + 1;

		if (child >= svc->count)
			break;
		if (child + 1 < svc->count &&
		    timer_before(&svc->heap[child + 1].t, &svc->heap[child].t))
			child++;
		if (!timer_before(&svc->heap[child].t, &node.t))
			break;
		heap_place(svc, pos, &svc->heap[child]);
		pos = child;
	}
	heap_place(svc, pos, &node);
}

/*
 * Find the triple's slot. Returns true with *idx at its slot if present;
 * otherwise false with *idx at the empty slot where it would go.
 */
static bool
slot_find(const struct wm_timer_service *svc, wm_ts_t ts, int64_t key,
	  int64_t ns, uint32_t hash, size_t *idx)
{
	size_t i = hash & svc->mask;

	for (;;) {
		const struct timer_slot *s = &svc->slots[i];

		if (s->pos1 == 0) {
			*idx = i;
			return false;
		}
		if (s->hash == hash &&
		    timer_equal(&svc->heap[s->pos1 - 1].t, ts, key, ns)) {
			*idx = i;
			return true;
		}
		i = (i + 1) & svc->mask;
	}
}

/* Empty slot `hole`, shifting back later members of its cluster that may
 * live closer to their home slot. */
static void
slot_remove(struct wm_timer_service *svc, size_t hole)
{
	size_t j = hole;

	for (;;) {
		struct timer_slot s;
		size_t home;

		j = (j + 1) & svc->mask;
		s = svc->slots[j];
		if (s.pos1 == 0)
			break;
		home = s.hash & svc->mask;
		/* Movable iff the hole lies on its probe path: the distance
		 * from home to j is at least the distance from hole to j. */
		if (((j - home) & svc->mask) >= ((j - hole) & svc->mask)) {
			slot_place(svc, hole, s);
			hole = j;
		}
	}
	svc->slots[hole].pos1 = 0;
	svc->slots[hole].hash = 0;
}

/* Rebuild the slot table with `nslots` slots (a power of two) from the
 * heap, which is the authoritative copy of the triples. */
static int
slots_rebuild(struct wm_timer_service *svc, size_t nslots)
{
	struct timer_slot *slots = calloc(nslots, sizeof(*slots));

	if (slots == NULL)
		return -ENOMEM;
	free(svc->slots);
	svc->slots = slots;
	svc->mask = nslots - 1;
	svc->grow_at = nslots / 2;
	for (size_t pos = 0; pos < svc->count; pos++) {
		const struct wm_timer *t = &svc->heap[pos].t;
		struct timer_slot s;
		size_t idx;

		s.hash = timer_hash(t->ts, t->key, t->ns);
		s.pos1 = (uint32_t)(pos + 1);
		(void)slot_find(svc, t->ts, t->key, t->ns, s.hash, &idx);
		slot_place(svc, idx, s);
	}
	return 0;
}

struct wm_timer_service *
wm_timer_new(void)
{
	struct wm_timer_service *svc = calloc(1, sizeof(*svc));

	if (svc == NULL)
		return NULL;
	svc->watermark = WM_TS_MIN;
	svc->heap = malloc(TIMER_MIN_HEAP * sizeof(*svc->heap));
	svc->heap_cap = TIMER_MIN_HEAP;
	if (svc->heap == NULL || slots_rebuild(svc, TIMER_MIN_SLOTS) != 0) {
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
	free(svc->heap);
	free(svc->slots);
	free(svc);
}

int
wm_timer_reserve(struct wm_timer_service *svc, size_t n)
{
	size_t need;

	if (n > TIMER_MAX_COUNT - svc->count)
		return -ENOMEM;
	need = svc->count + n;
	if (need > svc->heap_cap) {
		size_t cap = svc->heap_cap;
		struct timer_node *heap;

		while (cap < need)
			cap *= 2;
		heap = realloc(svc->heap, cap * sizeof(*heap));
		if (heap == NULL)
			return -ENOMEM;
		svc->heap = heap;
		svc->heap_cap = cap;
	}
	if (need > svc->grow_at) {
		size_t nslots = svc->mask + 1;

		while (nslots / 2 < need)
			nslots *= 2;
		/* A larger heap is harmless if this fails. */
		if (slots_rebuild(svc, nslots) != 0)
			return -ENOMEM;
	}
	return 0;
}

int
wm_timer_add(struct wm_timer_service *svc, wm_ts_t ts, int64_t key, int64_t ns)
{
	uint32_t hash = timer_hash(ts, key, ns);
	struct timer_node node;
	size_t idx;

	if (slot_find(svc, ts, key, ns, hash, &idx))
		return 0;
	if (svc->count + 1 > svc->heap_cap || svc->count + 1 > svc->grow_at) {
		if (wm_timer_reserve(svc, 1) != 0)
			return -ENOMEM;
		/* The slot table may have been rebuilt: probe again. */
		(void)slot_find(svc, ts, key, ns, hash, &idx);
	}
	svc->slots[idx].hash = hash;
	node.t.ts = ts;
	node.t.key = key;
	node.t.ns = ns;
	node.slot = (uint32_t)idx;
	svc->heap[svc->count] = node;
	svc->slots[idx].pos1 = (uint32_t)(svc->count + 1);
	svc->count++;
	heap_sift_up(svc, svc->count - 1);
	return 1;
}

/* Remove the timer at heap position `pos` (its slot included). */
static void
timer_remove_at(struct wm_timer_service *svc, size_t pos)
{
	struct timer_node last;

	slot_remove(svc, svc->heap[pos].slot);
	svc->count--;
	if (pos == svc->count)
		return;
	last = svc->heap[svc->count];
	heap_place(svc, pos, &last);
	if (pos > 0 && timer_before(&last.t, &svc->heap[(pos - 1) / 2].t))
		heap_sift_up(svc, pos);
	else
		heap_sift_down(svc, pos);
}

bool
wm_timer_delete(struct wm_timer_service *svc, wm_ts_t ts, int64_t key,
		int64_t ns)
{
	size_t idx;

	if (!slot_find(svc, ts, key, ns, timer_hash(ts, key, ns), &idx))
		return false;
	timer_remove_at(svc, svc->slots[idx].pos1 - 1);
	return true;
}

bool
wm_timer_contains(const struct wm_timer_service *svc, wm_ts_t ts, int64_t key,
		  int64_t ns)
{
	size_t idx;

	return slot_find(svc, ts, key, ns, timer_hash(ts, key, ns), &idx);
}

size_t
wm_timer_count(const struct wm_timer_service *svc)
{
	return svc->count;
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
	if (svc->count == 0)
		return false;
	*timer = svc->heap[0].t;
	return true;
}

bool
wm_timer_pop_due(struct wm_timer_service *svc, struct wm_timer *timer)
{
	if (svc->count == 0 || svc->heap[0].t.ts > svc->watermark)
		return false;
	*timer = svc->heap[0].t;
	timer_remove_at(svc, 0);
	return true;
}

size_t
wm_timer_advance(struct wm_timer_service *svc, wm_ts_t watermark,
		 wm_timer_fire_fn fire, void *ctx)
{
	struct wm_timer timer;
	size_t fired = 0;

	wm_timer_set_watermark(svc, watermark);
	while (wm_timer_pop_due(svc, &timer)) {
		fire(ctx, &timer);
		fired++;
	}
	return fired;
}
