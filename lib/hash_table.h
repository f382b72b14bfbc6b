/*
 * hash_table.h
 *	An open-addressing hash table with linear probing and backward-shift
 *	deletion, generated for one slot type (a template in the manner of
 *	PostgreSQL's simplehash.h).
 *
 * Define the parameters, then include this file: it defines struct
 * WM_HT_PREFIX and its functions, all static inline, and undefines the
 * parameters, so that one file may generate several tables. Probes compare
 * through the macros, inlined: no call through a pointer per slot.
 *
 *   WM_HT_PREFIX	the name of the table type and the prefix of its
 *			functions: state_table gives struct state_table,
 *			state_table_lookup() ...
 *   WM_HT_ENTRY	the slot type, a struct. Entries live in the slots
 *			and move when others are removed or the table grows.
 *   WM_HT_KEY		what a lookup looks for (a scalar or a struct, by
 *			value).
 *   WM_HT_EMPTY(e)	slot *e is empty. An all-zero slot must be empty,
 *			and no occupied slot may look empty.
 *   WM_HT_HASH(tb, e)	the hash of occupied slot *e, equal to the hash a
 *			lookup of its key is given (stored in the slot, or
 *			computed from its key). Only its low bits are used.
 *   WM_HT_MATCH(tb, e, key, hash)
 *			occupied slot *e holds `key`, whose hash is `hash`
 *			(a stored hash lets this reject most slots without
 *			reading the key).
 *   WM_HT_MIN_SLOTS	slots of the first allocation, a power of two.
 *   WM_HT_FILL(slots)	the most entries `slots` slots may hold (the load
 *			limit, e.g. ((slots) / 4 * 3)), less than slots.
 * Optional:
 *   WM_HT_MAX_SLOTS	the table never grows beyond this (a power of two;
 *			default 2^40, far below where the slot array's size
 *			would overflow size_t).
 *   WM_HT_ALIGN	alignment of the slot array (aligned_alloc), e.g. a
 *			cache line for 64-byte slots; default calloc's.
 *   WM_HT_MOVED(tb, e, idx)
 *			the entry now in slot idx, *e, was moved there by a
 *			removal or by growth. Lets an owner that points at
 *			slots from elsewhere keep those pointers right.
 *   WM_HT_DECLARE	define only the struct (in a header), or
 *   WM_HT_DEFINE	only the functions (the struct is declared).
 * The macros get `tb`, the table (perhaps const), from which the owner is
 * wm_container_of() away when the slots do not say enough. Their
 * parameters are replaced as text: name them apart from the fields they
 * read ((e)->hash == (hash_), not (e)->hash == (hash)).
 *
 * Representation: slots[0 .. mask], mask + 1 a power of two; an entry's
 * home slot is WM_HT_HASH & mask, and it sits in the first slot at or
 * after its home (cyclically) that was free when it arrived. A lookup
 * walks from the home slot to the key or to an empty slot, so every entry
 * must stay reachable from its home without crossing an empty slot.
 * Removal keeps that without tombstones: it empties the slot and shifts
 * back each later member of the cluster whose path from its home crosses
 * the hole, so a table with entries coming and going for ever keeps the
 * probe lengths of a fresh one.
 *
 * Growth: at most WM_HT_FILL(mask + 1) entries; reserving room beyond
 * that doubles the table, as often as that takes, in one new array into
 * which every entry is moved. If the allocation fails, or the table would
 * pass WM_HT_MAX_SLOTS, the table is left exactly as it was (-ENOMEM).
 * The table never shrinks. Insertion never grows the table by itself: an
 * owner reserves room for all it is about to insert, then inserts, which
 * cannot fail, so that running out of memory is found before anything
 * changes.
 *
 * A table starts without memory: its slots are one shared empty slot
 * (read-only), so lookups work and the first reservation allocates.
 *
 * Iteration visits slots in array order, an order that depends on the
 * hashes and on the history of the table: nothing observable may depend
 * on it. Used by one thread only; no locking.
 *
 * Checked builds (base/assert.h) assert the contract on every insertion
 * and removal (room reserved, the slot empty or occupied as it must be),
 * and check the whole table, reachability and count, when it grows, which
 * costs O(n) already. Include config.h first.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/assert.h"

#ifndef WM_HT_PREFIX
#error "define WM_HT_PREFIX before including lib/hash_table.h"
#endif
#ifndef WM_HT_ENTRY
#error "define WM_HT_ENTRY before including lib/hash_table.h"
#endif

#define WM_HT_CAT_(a, b) a##_##b
#define WM_HT_CAT(a, b) WM_HT_CAT_(a, b)
#define WM_HT_NAME(name) WM_HT_CAT(WM_HT_PREFIX, name)

#ifndef WM_HT_DEFINE
struct WM_HT_PREFIX {
	/* mask + 1 slots; before the first growth, one shared empty slot. */
	WM_HT_ENTRY *slots;
	size_t mask;
	size_t used;	/* occupied slots */
	size_t grow_at; /* WM_HT_FILL(mask + 1); 0 before the first growth */
};
#endif

#ifndef WM_HT_DECLARE

#ifndef WM_HT_MAX_SLOTS
#define WM_HT_MAX_SLOTS ((size_t)1 << 40)
#endif
#ifndef WM_HT_MOVED
#define WM_HT_MOVED(tb, e, idx) ((void)0)
#endif

/* The slots of every table of this type before its first growth. Const:
 * a write through it, which only an insertion without a reservation could
 * make, faults instead of corrupting every table of the type. */
static const WM_HT_ENTRY WM_HT_NAME(no_slots)[1];

/* An empty table, without memory. Cannot fail. */
static inline void
WM_HT_NAME(init)(struct WM_HT_PREFIX *tb)
{
	tb->slots = (WM_HT_ENTRY *)WM_HT_NAME(no_slots);
	tb->mask = 0;
	tb->used = 0;
	tb->grow_at = 0;
}

/* Free the slots (what entries point to is the owner's), leaving an empty
 * table without memory. */
static inline void
WM_HT_NAME(destroy)(struct WM_HT_PREFIX *tb)
{
	if (tb->slots != WM_HT_NAME(no_slots))
		free(tb->slots);
	WM_HT_NAME(init)(tb);
}

static inline size_t
WM_HT_NAME(count)(const struct WM_HT_PREFIX *tb)
{
	return tb->used;
}

/* Whether `n` more entries fit without growth. */
static inline bool
WM_HT_NAME(has_room)(const struct WM_HT_PREFIX *tb, size_t n)
{
	return n <= tb->grow_at - tb->used;
}

/*
 * Find `key`, whose hash is `hash`. Returns true with *idx at its slot,
 * or false with *idx at the empty slot where it would be inserted (valid
 * until the table next changes).
 */
static inline bool
WM_HT_NAME(lookup)(const struct WM_HT_PREFIX *tb, WM_HT_KEY key, uint64_t hash,
		   size_t *idx)
{
	size_t i = (size_t)hash & tb->mask;

	for (;;) {
		const WM_HT_ENTRY *e = &tb->slots[i];

		if (WM_HT_EMPTY(e)) {
			*idx = i;
			return false;
		}
		if (WM_HT_MATCH(tb, e, key, hash)) {
			*idx = i;
			return true;
		}
		i = (i + 1) & tb->mask;
	}
}

/*
 * Whether the representation holds: `used` counts the occupied slots and
 * stays within the load limit, which leaves an empty slot for every probe
 * to end at, and every entry is reachable from its home without crossing
 * an empty slot. O(n) times the probe length, for WM_ASSERT() at coarse
 * points only (growth).
 */
static inline bool
WM_HT_NAME(valid)(const struct WM_HT_PREFIX *tb)
{
	size_t occupied = 0;

	if (tb->slots == WM_HT_NAME(no_slots))
		return tb->mask == 0 && tb->used == 0 && tb->grow_at == 0;
	if (tb->used > tb->grow_at || tb->grow_at > tb->mask)
		return false;
	for (size_t i = 0; i <= tb->mask; i++) {
		const WM_HT_ENTRY *e = &tb->slots[i];

		if (WM_HT_EMPTY(e))
			continue;
		occupied++;
		for (size_t j = (size_t)WM_HT_HASH(tb, e) & tb->mask; j != i;
		     j = (j + 1) & tb->mask)
			if (WM_HT_EMPTY(&tb->slots[j]))
				return false;
	}
	return occupied == tb->used;
}

/* Put occupied slot `e` of an old array into the first free slot from its
 * home: growth only, where every key is known to be absent. */
static inline void
WM_HT_NAME(move_in)(struct WM_HT_PREFIX *tb, const WM_HT_ENTRY *e)
{
	size_t i = (size_t)WM_HT_HASH(tb, e) & tb->mask;

	while (!WM_HT_EMPTY(&tb->slots[i]))
		i = (i + 1) & tb->mask;
	tb->slots[i] = *e;
	WM_HT_MOVED(tb, &tb->slots[i], i);
}

/* The slow half of reserve(): double until `n` more fit, in one new array.
 * 0, or -ENOMEM with the table unchanged. */
static __attribute__((noinline, cold, unused)) int
WM_HT_NAME(grow)(struct WM_HT_PREFIX *tb, size_t n)
{
	WM_HT_ENTRY *old = tb->slots;
	size_t old_slots = tb->mask + 1;
	size_t slots;
	WM_HT_ENTRY *fresh;

	/* A coarse point: every change since the last growth kept it. */
	WM_ASSERT(WM_HT_NAME(valid)(tb));
	if (n > WM_HT_MAX_SLOTS - tb->used)
		return -ENOMEM;
	if (old == WM_HT_NAME(no_slots)) {
		slots = WM_HT_MIN_SLOTS;
		old_slots = 0;
	} else {
		if (old_slots >= WM_HT_MAX_SLOTS)
			return -ENOMEM;
		slots = old_slots * 2;
	}
	while (tb->used + n > WM_HT_FILL(slots)) {
		if (slots >= WM_HT_MAX_SLOTS)
			return -ENOMEM;
		slots *= 2;
	}
#ifdef WM_HT_ALIGN
	fresh = aligned_alloc(WM_HT_ALIGN, slots * sizeof(*fresh));
	if (fresh == NULL)
		return -ENOMEM;
	memset(fresh, 0, slots * sizeof(*fresh));
#else
	fresh = calloc(slots, sizeof(*fresh));
	if (fresh == NULL)
		return -ENOMEM;
#endif
	tb->slots = fresh;
	tb->mask = slots - 1;
	tb->grow_at = WM_HT_FILL(slots);
	for (size_t i = 0; i < old_slots; i++)
		if (!WM_HT_EMPTY(&old[i]))
			WM_HT_NAME(move_in)(tb, &old[i]);
	if (old != WM_HT_NAME(no_slots))
		free(old);
	WM_ASSERT(WM_HT_NAME(valid)(tb));
	return 0;
}

/*
 * Make room for `n` more entries, so that the next `n` insertions need no
 * growth. 0, or -ENOMEM with the table unchanged. Growth moves entries:
 * slot indices from before are stale after it.
 */
static inline int
WM_HT_NAME(reserve)(struct WM_HT_PREFIX *tb, size_t n)
{
	if (WM_HT_NAME(has_room)(tb, n))
		return 0;
	return WM_HT_NAME(grow)(tb, n);
}

/*
 * Occupy empty slot `idx`, which a lookup of the new key just returned
 * (nothing changed since), in a table with room reserved. Returns the
 * slot, all zero: the caller fills in the entry, making it non-empty,
 * before the next call on the table.
 */
static inline WM_HT_ENTRY *
WM_HT_NAME(insert_at)(struct WM_HT_PREFIX *tb, size_t idx)
{
	WM_ASSERT(tb->used < tb->grow_at);
	WM_ASSERT(idx <= tb->mask && WM_HT_EMPTY(&tb->slots[idx]));
	tb->used++;
	return &tb->slots[idx];
}

/*
 * Remove the entry in slot `idx`. Later members of its cluster whose path
 * from home to slot crosses the hole move back into it, each in turn
 * leaving the next hole, until the cluster ends; the last hole is zeroed.
 * Indices of the moved entries change (WM_HT_MOVED says where to). Only
 * the later slots are read, so the owner may have emptied this one first
 * (operators/merging_windows.c does).
 */
static inline void
WM_HT_NAME(remove_at)(struct WM_HT_PREFIX *tb, size_t idx)
{
	size_t mask = tb->mask;
	size_t hole = idx;

	WM_ASSERT(idx <= mask && tb->used > 0);
	for (size_t j = (hole + 1) & mask; !WM_HT_EMPTY(&tb->slots[j]);
	     j = (j + 1) & mask) {
		size_t home = (size_t)WM_HT_HASH(tb, &tb->slots[j]) & mask;

		/* The hole lies on its path iff it is no further from j,
		 * going back, than home is. */
		if (((j - home) & mask) >= ((j - hole) & mask)) {
			tb->slots[hole] = tb->slots[j];
			WM_HT_MOVED(tb, &tb->slots[hole], hole);
			hole = j;
		}
	}
	memset(&tb->slots[hole], 0, sizeof(tb->slots[hole]));
	tb->used--;
}

/*
 * Iteration: the first occupied slot at or after *pos, with *pos moved past
 * it, or NULL at the end. Start with *pos = 0; the table must not change
 * in between.
 */
static inline WM_HT_ENTRY *
WM_HT_NAME(next)(struct WM_HT_PREFIX *tb, size_t *pos)
{
	for (size_t i = *pos; i <= tb->mask; i++) {
		if (!WM_HT_EMPTY(&tb->slots[i])) {
			*pos = i + 1;
			return &tb->slots[i];
		}
	}
	*pos = tb->mask + 1;
	return NULL;
}

#endif /* !WM_HT_DECLARE */

#undef WM_HT_CAT_
#undef WM_HT_CAT
#undef WM_HT_NAME
#undef WM_HT_PREFIX
#undef WM_HT_ENTRY
#undef WM_HT_KEY
#undef WM_HT_EMPTY
#undef WM_HT_HASH
#undef WM_HT_MATCH
#undef WM_HT_MIN_SLOTS
#undef WM_HT_FILL
#undef WM_HT_MAX_SLOTS
#undef WM_HT_ALIGN
#undef WM_HT_MOVED
#undef WM_HT_DECLARE
#undef WM_HT_DEFINE
