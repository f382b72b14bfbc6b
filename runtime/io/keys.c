/*
 * keys.c
 *	The string-key dictionary (keys.h).
 *
 * Strings are kept end to end in one growing arena and found by offset,
 * so growth moves no id; a hash table (operators/hash_table.h) maps a
 * string to its id. The table's hash is the Java hash spread by fmix64:
 * Java's own hash clusters similar keys ("user1", "user2") in its low
 * bits, which are the table's home slots. The Java hash is computed once
 * per new string, by the strict decoder, which also proves the string
 * well-formed.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/container_of.h"
#include "operators/hash.h"
#include "operators/keygroup.h"
#include "runtime/io/keys.h"

/* A string's place in the arena, by id. */
struct entry {
	size_t offset;
	uint32_t len;
	int32_t hash; /* Java String.hashCode */
};

struct slot {
	uint64_t hash; /* wm_hash_mix64 of the Java hash */
	uint32_t id;
	bool full;
};

struct text {
	const char *s;
	size_t len;
};

#define WM_HT_PREFIX key_table
#define WM_HT_ENTRY struct slot
#define WM_HT_DECLARE
#include "operators/hash_table.h"

struct wm_keys {
	struct key_table table;
	struct entry *entries; /* by id */
	size_t n, cap;
	char *arena;
	size_t arena_len, arena_cap;
};

static bool
slot_is(const struct key_table *tb, const struct slot *e, struct text t)
{
	const struct wm_keys *k = wm_container_of(tb, struct wm_keys, table);
	const struct entry *en = &k->entries[e->id];

	return en->len == t.len &&
	       memcmp(k->arena + en->offset, t.s, t.len) == 0;
}

#define WM_HT_PREFIX key_table
#define WM_HT_ENTRY struct slot
#define WM_HT_KEY struct text
#define WM_HT_EMPTY(e) (!(e)->full)
#define WM_HT_HASH(tb, e) ((e)->hash)
#define WM_HT_MATCH(tb, e, key_, hash_)                                        \
	((e)->hash == (hash_) && slot_is(tb, e, key_))
#define WM_HT_MIN_SLOTS 64
#define WM_HT_FILL(slots) ((slots) / 2)
#define WM_HT_DEFINE
#include "operators/hash_table.h"

struct wm_keys *
wm_keys_new(void)
{
	struct wm_keys *k = calloc(1, sizeof(*k));

	if (k == NULL)
		return NULL;
	key_table_init(&k->table);
	return k;
}

void
wm_keys_free(struct wm_keys *k)
{
	if (k == NULL)
		return;
	key_table_destroy(&k->table);
	free(k->entries);
	free(k->arena);
	free(k);
}

size_t
wm_keys_count(const struct wm_keys *k)
{
	return k->n;
}

/* Room for one more entry of `len` bytes: 0 or -ENOMEM, nothing changed
 * but capacity. */
static int
make_room(struct wm_keys *k, size_t len)
{
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 256;
		void *grown = realloc(k->entries, cap * sizeof(*k->entries));

		if (grown == NULL)
			return -ENOMEM;
		k->entries = grown;
		k->cap = cap;
	}
	if (k->arena_cap - k->arena_len < len) {
		size_t cap = k->arena_cap ? 2 * k->arena_cap : 4096;
		void *grown;

		while (cap - k->arena_len < len)
			cap *= 2;
		grown = realloc(k->arena, cap);
		if (grown == NULL)
			return -ENOMEM;
		k->arena = grown;
		k->arena_cap = cap;
	}
	return key_table_reserve(&k->table, 1);
}

int
wm_keys_intern(struct wm_keys *k, const char *s, size_t len, int64_t *key,
	       size_t *at)
{
	struct text t = {s, len};
	int32_t java;
	uint64_t h;
	size_t i;
	int r;

	*at = 0;
	if (len > WM_KEYS_MAX_BYTES)
		return -ENAMETOOLONG;
	for (size_t b = 0; b < len; b++) {
		/* UTF-8 continuation and lead bytes are >= 0x80: a byte
		 * below 0x20, or 0x7f, is the character itself. */
		if ((unsigned char)s[b] < 0x20u || s[b] == 0x7f) {
			*at = b;
			return -EINVAL;
		}
	}
	if (wm_keygroup_hash_string_strict(s, len, &java) != 0)
		return -EILSEQ;
	h = wm_hash_mix64((uint64_t)(uint32_t)java);
	if (key_table_lookup(&k->table, t, h, &i)) {
		*key = wm_keygroup_string_key(java, k->table.slots[i].id);
		return 0;
	}
	if (k->n > UINT32_MAX)
		return -ENOSPC;
	r = make_room(k, len);
	if (r != 0)
		return r;
	/* The reservation may have grown the table: find the slot again. */
	key_table_lookup(&k->table, t, h, &i);
	memcpy(k->arena + k->arena_len, s, len);
	k->entries[k->n] = (struct entry){k->arena_len, (uint32_t)len, java};
	k->arena_len += len;
	*key_table_insert_at(&k->table, i) =
		(struct slot){.hash = h, .id = (uint32_t)k->n, .full = true};
	*key = wm_keygroup_string_key(java, (uint32_t)k->n);
	k->n++;
	return 0;
}

const char *
wm_keys_string(const struct wm_keys *k, int64_t key, size_t *len)
{
	uint32_t id = wm_keygroup_string_key_id(key);
	const struct entry *en;

	if (id >= k->n)
		return NULL;
	en = &k->entries[id];
	if (en->hash != wm_keygroup_string_key_hash(key))
		return NULL;
	*len = en->len;
	/* An empty arena has no memory; the empty key needs none. */
	return en->len ? k->arena + en->offset : "";
}
