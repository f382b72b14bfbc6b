/*
 * binary_heap.h
 *	A binary min-heap in one array, generated for one entry type (a
 *	template: PostgreSQL's binaryheap.c as static inline functions, in
 *	the manner of its simplehash.h, so that comparisons inline).
 *
 * Define the parameters, then include this file: it defines struct
 * WM_HEAP_PREFIX and its functions and undefines the parameters.
 *
 *   WM_HEAP_PREFIX	the name of the heap type and the prefix of its
 *			functions: timer_heap gives struct timer_heap,
 *			timer_heap_push() ...
 *   WM_HEAP_ENTRY	the entry type, a struct, copied by value.
 *   WM_HEAP_BEFORE(a, b)
 *			entry *a must come out strictly before entry *b (a
 *			strict weak order; a and b are const pointers).
 *   WM_HEAP_MIN_CAPACITY
 *			entries of the first allocation, unless more are
 *			reserved at once (a heap of fixed size reserves it
 *			exactly, once).
 * Optional:
 *   WM_HEAP_PLACED(h, e, pos)
 *			entry *e has just been stored at position pos.
 *			Every store of an entry into the array goes through
 *			it, so an owner can keep each entry's position (to
 *			remove or re-sort it in O(log n)); an entry removed
 *			from the heap gets no call.
 *   WM_HEAP_DECLARE	define only the struct (before the owner's struct
 *			that embeds it), or
 *   WM_HEAP_DEFINE	only the functions (the struct is declared; the
 *			hooks may now reach into the owner).
 *
 * Invariant: nodes[0 .. count), and for every 0 < i < count,
 * !BEFORE(nodes[i], nodes[(i - 1) / 2]): the top, nodes[0], is an entry
 * nothing comes before. Sifting moves an entry past another only if it is
 * strictly BEFORE it, and of two equal children takes the left one, so
 * among equal entries the one that reached the top first keeps it, and the
 * same operations always leave the same positions (what the valve reports
 * as the channel holding its output back depends on that).
 *
 * Cost: push, pop, remove and re-sorting one entry are O(log n), one entry
 * moved per level; top and count are O(1). Memory: capacity grows by
 * doubling when reserved and never shrinks; push, pop and remove never
 * allocate (reserve first). Used by one thread only; no locking.
 *
 * Checked builds (base/assert.h) assert the contract on every call (room
 * for a push, positions below count) and the invariant where each sift
 * ends, around the entry it stored (O(1)); the whole heap is checked
 * when it grows, which costs O(n) already. Include config.h first.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/assert.h"

#ifndef WM_HEAP_PREFIX
#error "define WM_HEAP_PREFIX before including lib/binary_heap.h"
#endif

#define WM_HEAP_CAT_(a, b) a##_##b
#define WM_HEAP_CAT(a, b) WM_HEAP_CAT_(a, b)
#define WM_HEAP_NAME(name) WM_HEAP_CAT(WM_HEAP_PREFIX, name)

#ifndef WM_HEAP_DEFINE
struct WM_HEAP_PREFIX {
	WM_HEAP_ENTRY *nodes; /* capacity entries, count of them in use */
	size_t count;
	size_t capacity;
};
#endif

#ifndef WM_HEAP_DECLARE

#ifndef WM_HEAP_PLACED
#define WM_HEAP_PLACED(h, e, pos) ((void)0)
#endif

/* An empty heap, without memory. Cannot fail. */
static inline void
WM_HEAP_NAME(init)(struct WM_HEAP_PREFIX *h)
{
	h->nodes = NULL;
	h->count = 0;
	h->capacity = 0;
}

/* Free the array, leaving an empty heap without memory. */
static inline void
WM_HEAP_NAME(destroy)(struct WM_HEAP_PREFIX *h)
{
	free(h->nodes);
	WM_HEAP_NAME(init)(h);
}

/* The invariant around pos (< count): its parent does not come after it,
 * and neither child comes before it. O(1), for WM_ASSERT() where a sift
 * has just stored an entry at pos. */
static inline bool
WM_HEAP_NAME(ordered_at)(const struct WM_HEAP_PREFIX *h, size_t pos)
{
	size_t first_child = 2 * pos + 1;

	if (pos > 0 && WM_HEAP_BEFORE(&h->nodes[pos], &h->nodes[(pos - 1) / 2]))
		return false;
	for (size_t c = first_child; c < h->count && c <= first_child + 1; c++)
		if (WM_HEAP_BEFORE(&h->nodes[c], &h->nodes[pos]))
			return false;
	return true;
}

/* Whether the whole heap keeps the invariant, count within capacity. O(n),
 * for WM_ASSERT() at coarse points only (growth, an owner's own full
 * check). */
static inline bool
WM_HEAP_NAME(valid)(const struct WM_HEAP_PREFIX *h)
{
	if (h->count > h->capacity)
		return false;
	for (size_t i = 1; i < h->count; i++)
		if (WM_HEAP_BEFORE(&h->nodes[i], &h->nodes[(i - 1) / 2]))
			return false;
	return true;
}

/* The slow half of reserve(): the first allocation holds what is asked, or
 * WM_HEAP_MIN_CAPACITY entries if that is more; later ones double the
 * capacity until the entries fit. */
static __attribute__((noinline, cold, unused)) int
WM_HEAP_NAME(grow)(struct WM_HEAP_PREFIX *h, size_t n)
{
	size_t most = SIZE_MAX / 2 / sizeof(WM_HEAP_ENTRY);
	size_t need, cap;
	WM_HEAP_ENTRY *nodes;

	/* A coarse point: every push since the last growth kept the order. */
	WM_ASSERT(WM_HEAP_NAME(valid)(h));
	if (n > most - h->count)
		return -ENOMEM;
	need = h->count + n;
	if (h->capacity == 0) {
		cap = need > WM_HEAP_MIN_CAPACITY ? need : WM_HEAP_MIN_CAPACITY;
	} else {
		cap = h->capacity;
		while (cap < need)
			cap *= 2;
	}
	nodes = realloc(h->nodes, cap * sizeof(*nodes));
	if (nodes == NULL)
		return -ENOMEM;
	h->nodes = nodes;
	h->capacity = cap;
	return 0;
}

/* Room for `n` more entries: the next `n` pushes cannot fail. 0, or
 * -ENOMEM with the heap unchanged. */
static inline int
WM_HEAP_NAME(reserve)(struct WM_HEAP_PREFIX *h, size_t n)
{
	if (n <= h->capacity - h->count)
		return 0;
	return WM_HEAP_NAME(grow)(h, n);
}

static inline bool
WM_HEAP_NAME(has_room)(const struct WM_HEAP_PREFIX *h, size_t n)
{
	return n <= h->capacity - h->count;
}

static inline size_t
WM_HEAP_NAME(count)(const struct WM_HEAP_PREFIX *h)
{
	return h->count;
}

/* The entry that comes out next, or NULL if the heap is empty. It may be
 * changed in place only through sift_down() (see there). */
static inline WM_HEAP_ENTRY *
WM_HEAP_NAME(top)(struct WM_HEAP_PREFIX *h)
{
	return h->count > 0 ? &h->nodes[0] : NULL;
}

/* Store *e at pos, telling the owner. */
static inline void
WM_HEAP_NAME(place)(struct WM_HEAP_PREFIX *h, size_t pos,
		    const WM_HEAP_ENTRY *e)
{
	h->nodes[pos] = *e;
	WM_HEAP_PLACED(h, &h->nodes[pos], pos);
}

/* With a hole at pos, move parents that *e comes before down into it, then
 * store *e in the last hole. */
static inline void
WM_HEAP_NAME(up)(struct WM_HEAP_PREFIX *h, size_t pos, const WM_HEAP_ENTRY *e)
{
	while (pos > 0) {
		size_t parent = (pos - 1) / 2;

		if (!(WM_HEAP_BEFORE(e, &h->nodes[parent])))
			break;
		WM_HEAP_NAME(place)(h, pos, &h->nodes[parent]);
		pos = parent;
	}
	WM_HEAP_NAME(place)(h, pos, e);
	WM_ASSERT(WM_HEAP_NAME(ordered_at)(h, pos));
}

/* With a hole at pos, move children that come before *e up into it; the
 * last hole, where *e belongs, is returned and left for the caller. */
static inline size_t
WM_HEAP_NAME(down_hole)(struct WM_HEAP_PREFIX *h, size_t pos,
			const WM_HEAP_ENTRY *e)
{
	size_t n = h->count;

	for (;;) {
		size_t child = 2 * pos + 1;

		if (child >= n)
			break;
		if (child + 1 < n &&
		    WM_HEAP_BEFORE(&h->nodes[child + 1], &h->nodes[child]))
			child++;
		if (!(WM_HEAP_BEFORE(&h->nodes[child], e)))
			break;
		WM_HEAP_NAME(place)(h, pos, &h->nodes[child]);
		pos = child;
	}
	return pos;
}

/* Add *e; room must have been reserved. */
static inline void
WM_HEAP_NAME(push)(struct WM_HEAP_PREFIX *h, const WM_HEAP_ENTRY *e)
{
	WM_ASSERT(h->count < h->capacity);
	WM_HEAP_NAME(up)(h, h->count++, e);
}

/*
 * The entry at pos now comes out no sooner than it did (its key rose, or
 * the top was rewritten): move it down to where it belongs. Nothing is
 * stored, and nothing told, if it stays.
 */
static inline void
WM_HEAP_NAME(sift_down)(struct WM_HEAP_PREFIX *h, size_t pos)
{
	WM_HEAP_ENTRY e;
	size_t hole;

	WM_ASSERT(pos < h->count);
	e = h->nodes[pos];
	hole = WM_HEAP_NAME(down_hole)(h, pos, &e);
	if (hole != pos)
		WM_HEAP_NAME(place)(h, hole, &e);
	/* Staying put, an entry whose key fell fails here: it is then
	 * before its parent. */
	WM_ASSERT(WM_HEAP_NAME(ordered_at)(h, hole));
}

/* Remove the entry at pos (< count); the last entry takes its place and
 * moves up or down to where it belongs. */
static inline void
WM_HEAP_NAME(remove_at)(struct WM_HEAP_PREFIX *h, size_t pos)
{
	WM_HEAP_ENTRY last;
	size_t hole;

	WM_ASSERT(pos < h->count);
	if (pos == --h->count)
		return;
	last = h->nodes[h->count];
	if (pos > 0 && WM_HEAP_BEFORE(&last, &h->nodes[(pos - 1) / 2])) {
		WM_HEAP_NAME(up)(h, pos, &last);
		return;
	}
	hole = WM_HEAP_NAME(down_hole)(h, pos, &last);
	WM_HEAP_NAME(place)(h, hole, &last);
	WM_ASSERT(WM_HEAP_NAME(ordered_at)(h, hole));
}

/* Remove the top; the heap must not be empty. */
static inline void
WM_HEAP_NAME(pop)(struct WM_HEAP_PREFIX *h)
{
	WM_HEAP_NAME(remove_at)(h, 0);
}

/* Remove every entry (no call to WM_HEAP_PLACED). */
static inline void
WM_HEAP_NAME(clear)(struct WM_HEAP_PREFIX *h)
{
	h->count = 0;
}

#endif /* !WM_HEAP_DECLARE */

#undef WM_HEAP_CAT_
#undef WM_HEAP_CAT
#undef WM_HEAP_NAME
#undef WM_HEAP_PREFIX
#undef WM_HEAP_ENTRY
#undef WM_HEAP_BEFORE
#undef WM_HEAP_MIN_CAPACITY
#undef WM_HEAP_PLACED
#undef WM_HEAP_DECLARE
#undef WM_HEAP_DEFINE
