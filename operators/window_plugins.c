/*
 * window_plugins.c
 *	The plugin aggregates' accumulators of a window operator, a table
 *	keyed by (key, window start) beside the window's state table.
 *
 * A slot holds one accumulator per aggregate; a set's first is never
 * NULL, so a NULL first marks an empty slot. The hash is the window's
 * state hash, given by the operator (stored in its entry), so a lookup
 * here costs no hashing.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/snap.h"
#include "operators/window_plugins.h"

struct accumulators {
	uint64_t hash;
	int64_t key;
	wm_ts_t start;
	void *acc[WM_WINDOW_PLUGIN_AGGREGATES]; /* acc[0] NULL: empty */
};

struct accumulators_key {
	int64_t key;
	wm_ts_t start;
};

#define WM_HT_PREFIX acc_table
#define WM_HT_ENTRY struct accumulators
#define WM_HT_KEY struct accumulators_key
#define WM_HT_EMPTY(e) ((e)->acc[0] == NULL)
#define WM_HT_HASH(tb, e) ((e)->hash)
#define WM_HT_MATCH(tb, e, k, hash_)                                           \
	((e)->hash == (hash_) && (e)->key == (k).key && (e)->start == (k).start)
#define WM_HT_MIN_SLOTS 64
#define WM_HT_FILL(slots) ((slots) / 4 * 3)
#include "lib/hash_table.h"

struct wm_window_plugins {
	unsigned n;
	const struct wmrun_aggregate_function *fn[WM_WINDOW_PLUGIN_AGGREGATES];
	void *function[WM_WINDOW_PLUGIN_AGGREGATES]; /* fn[i]->create() */
	char *args[WM_WINDOW_PLUGIN_AGGREGATES];     /* copies, for snapshots */
	struct acc_table table;
	/* Where snapshot() writes an accumulator's bytes: grown to the
	 * longest so far. */
	unsigned char *scratch;
	size_t scratch_len;
};

struct wm_window_plugins *
wm_window_plugins_new(const struct wm_window_plugin_aggregate *aggs, unsigned n,
		      const char **why)
{
	struct wm_window_plugins *p;

	if (n == 0 || n > WM_WINDOW_PLUGIN_AGGREGATES) {
		*why = "a window has 1 to 4 plugin aggregates";
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	acc_table_init(&p->table);
	for (unsigned i = 0; i < n; i++) {
		const char *args = aggs[i].args != NULL ? aggs[i].args : "";

		p->fn[i] = aggs[i].fn;
		p->args[i] = strdup(args);
		if (p->args[i] == NULL) {
			wm_window_plugins_free(p);
			errno = ENOMEM;
			return NULL;
		}
		p->function[i] = p->fn[i]->create(args);
		p->n = i + 1; /* what free() destroys */
		if (p->function[i] == NULL) {
			*why = "a plugin aggregate refuses its arguments";
			wm_window_plugins_free(p);
			errno = EINVAL;
			return NULL;
		}
	}
	return p;
}

/* Destroy the accumulators of a set (not its slot). */
static void
set_destroy(struct wm_window_plugins *p, struct accumulators *e)
{
	for (unsigned i = 0; i < p->n; i++)
		if (e->acc[i] != NULL && p->fn[i]->destroy_accumulator != NULL)
			p->fn[i]->destroy_accumulator(p->function[i],
						      e->acc[i]);
}

void
wm_window_plugins_free(struct wm_window_plugins *p)
{
	size_t pos = 0;
	struct accumulators *e;

	if (p == NULL)
		return;
	while ((e = acc_table_next(&p->table, &pos)) != NULL)
		set_destroy(p, e);
	acc_table_destroy(&p->table);
	for (unsigned i = 0; i < p->n; i++) {
		/* p->function[i] is NULL only where its create() refused. */
		if (p->function[i] != NULL && p->fn[i]->destroy != NULL)
			p->fn[i]->destroy(p->function[i]);
		free(p->args[i]);
	}
	free(p->scratch);
	free(p);
}

int
wm_window_plugins_reserve(struct wm_window_plugins *p, size_t n)
{
	return acc_table_reserve(&p->table, n) != 0 ? -ENOMEM : 0;
}

/* A new set in slot idx (free, room reserved): 0, or -ENOMEM with the
 * slot left empty. */
static int
set_create(struct wm_window_plugins *p, size_t idx, uint64_t hash, int64_t key,
	   wm_ts_t start)
{
	struct accumulators made = {
		.hash = hash, .key = key, .start = start, .acc = {NULL}};

	for (unsigned i = 0; i < p->n; i++) {
		made.acc[i] = p->fn[i]->create_accumulator(p->function[i]);
		if (made.acc[i] == NULL) {
			set_destroy(p, &made); /* those made before it */
			return -ENOMEM;
		}
	}
	*acc_table_insert_at(&p->table, idx) = made;
	return 0;
}

int
wm_window_plugins_add(struct wm_window_plugins *p, uint64_t hash, int64_t key,
		      wm_ts_t start, int64_t value, wm_ts_t ts)
{
	struct accumulators_key k = {.key = key, .start = start};
	struct accumulators *e;
	size_t idx;

	if (!acc_table_lookup(&p->table, k, hash, &idx)) {
		/* Growth moves every slot: find the free one again. */
		if (!acc_table_has_room(&p->table, 1)) {
			if (acc_table_reserve(&p->table, 1) != 0)
				return -ENOMEM;
			(void)acc_table_lookup(&p->table, k, hash, &idx);
		}
		if (set_create(p, idx, hash, key, start) != 0)
			return -ENOMEM;
	}
	e = &p->table.slots[idx];
	for (unsigned i = 0; i < p->n; i++)
		p->fn[i]->add(p->function[i], e->acc[i], value, ts);
	return 0;
}

void
wm_window_plugins_results(struct wm_window_plugins *p, uint64_t hash,
			  int64_t key, wm_ts_t start, union wmrun_value *out)
{
	struct accumulators_key k = {.key = key, .start = start};
	const struct accumulators *e;
	size_t idx;

	if (!acc_table_lookup(&p->table, k, hash, &idx)) {
		/* Cannot happen while the tables are in step: say nothing
		 * rather than anything. */
		memset(out, 0, p->n * sizeof(*out));
		return;
	}
	e = &p->table.slots[idx];
	for (unsigned i = 0; i < p->n; i++)
		out[i] = p->fn[i]->result(p->function[i], e->acc[i]);
}

void
wm_window_plugins_remove(struct wm_window_plugins *p, uint64_t hash,
			 int64_t key, wm_ts_t start)
{
	struct accumulators_key k = {.key = key, .start = start};
	size_t idx;

	if (!acc_table_lookup(&p->table, k, hash, &idx))
		return;
	set_destroy(p, &p->table.slots[idx]);
	acc_table_remove_at(&p->table, idx);
}

void
wm_window_plugins_merge(struct wm_window_plugins *p, int64_t key, wm_ts_t to,
			uint64_t to_hash, wm_ts_t from, uint64_t from_hash)
{
	struct accumulators_key fk = {.key = key, .start = from};
	struct accumulators_key tk = {.key = key, .start = to};
	struct accumulators moved, *dst;
	size_t from_idx, to_idx;

	if (!acc_table_lookup(&p->table, fk, from_hash, &from_idx))
		return;
	moved = p->table.slots[from_idx];
	/* Removal shifts slots; the set is held in `moved` meanwhile. */
	acc_table_remove_at(&p->table, from_idx);
	if (!acc_table_lookup(&p->table, tk, to_hash, &to_idx)) {
		/* Room: the removal just freed a slot. */
		dst = acc_table_insert_at(&p->table, to_idx);
		*dst = moved;
		dst->hash = to_hash;
		dst->start = to;
		return;
	}
	dst = &p->table.slots[to_idx];
	for (unsigned i = 0; i < p->n; i++)
		p->fn[i]->merge(p->function[i], dst->acc[i], moved.acc[i]);
	set_destroy(p, &moved);
}

bool
wm_window_plugins_has(const struct wm_window_plugins *p, uint64_t hash,
		      int64_t key, wm_ts_t start)
{
	struct accumulators_key k = {.key = key, .start = start};
	size_t idx;

	return acc_table_lookup(&p->table, k, hash, &idx);
}

size_t
wm_window_plugins_count(const struct wm_window_plugins *p)
{
	return acc_table_count(&p->table);
}

#define PLUGINS_SNAP_TAG WM_SNAP_TAG('W', 'P', 'L', 'G')
#define PLUGINS_SNAP_VERSION 1
/* A set in a snapshot at least: key, start, and a length per aggregate. */
#define PLUGINS_SNAP_SET_BYTES(n) (16 + 8 * (size_t)(n))

/* The bytes of accumulator i of set e into w, through the scratch. */
static void
snap_put_accumulator(const struct wm_window_plugins *cp, unsigned i,
		     const struct accumulators *e, struct wm_snap_writer *w)
{
	/* The scratch is a cache, not state: growing it is no change. */
	struct wm_window_plugins *p = (struct wm_window_plugins *)cp;
	const struct wmrun_aggregate_function *fn = p->fn[i];
	size_t len = fn->snapshot(p->function[i], e->acc[i], p->scratch,
				  p->scratch_len);

	if (len > p->scratch_len) {
		unsigned char *grown = realloc(p->scratch, len);

		if (grown == NULL) {
			wm_snap_writer_fail(w, -ENOMEM);
			return;
		}
		p->scratch = grown;
		p->scratch_len = len;
		len = fn->snapshot(p->function[i], e->acc[i], p->scratch,
				   p->scratch_len);
		if (len > p->scratch_len) {
			/* A plugin whose state grew between two calls. */
			wm_snap_writer_fail(w, -EINVAL);
			return;
		}
	}
	/* No scratch yet for an empty state: "" is a pointer all the same. */
	wm_snap_put_block(w, len > 0 ? (const void *)p->scratch : "", len);
}

void
wm_window_plugins_snapshot(const struct wm_window_plugins *p,
			   struct wm_snap_writer *w)
{
	const struct acc_table *tb = &p->table;

	wm_snap_begin(w, PLUGINS_SNAP_TAG, PLUGINS_SNAP_VERSION);
	wm_snap_put_u32(w, p->n);
	for (unsigned i = 0; i < p->n; i++) {
		wm_snap_put_block(w, p->fn[i]->name, strlen(p->fn[i]->name));
		wm_snap_put_block(w, p->args[i], strlen(p->args[i]));
	}
	wm_snap_put_u64(w, acc_table_count(tb));
	for (size_t s = 0; acc_table_count(tb) > 0 && s <= tb->mask; s++) {
		const struct accumulators *e = &tb->slots[s];

		if (e->acc[0] == NULL)
			continue;
		wm_snap_put_i64(w, e->key);
		wm_snap_put_i64(w, e->start);
		for (unsigned i = 0; i < p->n; i++)
			snap_put_accumulator(p, i, e, w);
	}
	wm_snap_end(w);
}

/* The next block is `text`, else the reader fails with -EINVAL. */
static void
snap_expect_text(struct wm_snap_reader *r, const char *text)
{
	const void *bytes;
	size_t len;

	if (wm_snap_get_block(r, &bytes, &len) == 0 &&
	    (len != strlen(text) || memcmp(bytes, text, len) != 0))
		wm_snap_reader_fail(r, -EINVAL);
}

int
wm_window_plugins_restore(struct wm_window_plugins *p, struct wm_snap_reader *r,
			  uint64_t (*hash)(int64_t key, wm_ts_t start))
{
	uint64_t n;

	if (acc_table_count(&p->table) != 0)
		return wm_snap_reader_fail(r, -EINVAL);
	if (wm_snap_enter(r, PLUGINS_SNAP_TAG, PLUGINS_SNAP_VERSION) != 0)
		return wm_snap_reader_error(r);
	if (wm_snap_get_u32(r) != p->n && wm_snap_reader_error(r) == 0)
		wm_snap_reader_fail(r, -EINVAL);
	for (unsigned i = 0; i < p->n && wm_snap_reader_error(r) == 0; i++) {
		snap_expect_text(r, p->fn[i]->name);
		snap_expect_text(r, p->args[i]);
	}
	n = wm_snap_get_count(r, PLUGINS_SNAP_SET_BYTES(p->n));
	if (n > 0 && acc_table_reserve(&p->table, (size_t)n) != 0)
		return wm_snap_reader_fail(r, -ENOMEM);
	for (uint64_t s = 0; s < n && wm_snap_reader_error(r) == 0; s++) {
		struct accumulators v = {.acc = {NULL}};
		struct accumulators_key k;
		size_t idx = 0; /* set by the lookup before it is used */

		v.key = wm_snap_get_i64(r);
		v.start = wm_snap_get_i64(r);
		v.hash = hash(v.key, v.start);
		k.key = v.key;
		k.start = v.start;
		for (unsigned i = 0; i < p->n; i++) {
			const void *bytes;
			size_t len;

			if (wm_snap_get_block(r, &bytes, &len) != 0)
				break;
			v.acc[i] =
				p->fn[i]->restore(p->function[i], bytes, len);
			if (v.acc[i] == NULL) {
				wm_snap_reader_fail(r, -EBADMSG);
				break;
			}
		}
		if (wm_snap_reader_error(r) == 0 &&
		    acc_table_lookup(&p->table, k, v.hash, &idx))
			wm_snap_reader_fail(r, -EBADMSG); /* a set twice */
		if (wm_snap_reader_error(r) != 0) {
			set_destroy(p, &v);
			break;
		}
		*acc_table_insert_at(&p->table, idx) = v;
	}
	if (wm_snap_reader_error(r) != 0)
		return wm_snap_reader_error(r);
	return wm_snap_leave(r);
}
