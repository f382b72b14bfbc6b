/*
 * keys.c
 *	The string-key dictionary (keys.h): one MAP_SHARED region that
 *	forked processes intern into and read together.
 *
 * Layout of the region (offsets from its start, never pointers, so that
 * nothing in it depends on where it is mapped):
 *
 *   0                struct wm_keys: limits, the writers' lock, and the
 *                    two published words, n and bits
 *   entries_offset   struct entry[max_keys], by id: where a string is in
 *                    the arena, its length and its Java hash
 *   slots_offset     the hash table's generations, 2^min_bits slots,
 *                    then 2^(min_bits + 1), ... up to 2^max_bits, end to
 *                    end (generation b starts 2^b - 2^min_bits slots in)
 *   arena_offset     max_bytes of strings, end to end, in id order
 *
 * The region is reserved whole (MAP_NORESERVE) and zero until written, so
 * only the pages used cost memory. The table is a table of generations
 * rather than one of max_keys slots because its slots are reached by hash:
 * 20,000 keys in one table sized for 16 Mi keys would touch 20,000 pages.
 * A generation is full at half its slots; the writer that would pass that
 * fills the next generation from the entries and publishes it.
 *
 * A slot is one 64-bit word, written once: 0 empty, else the high 32 bits
 * of the string's table hash (wm_hash_mix64 of the Java hash; its low bits
 * are the home slot) and id + 1. Being one word, a reader sees a slot
 * whole or not at all.
 *
 * Concurrency. Readers (wm_keys_intern() of a key that is in, and
 * wm_keys_string()) take no lock and write nothing. Writers, an
 * intern of a new key, hold `lock`, a process-shared robust mutex, so at
 * most one writes at a time. The order of a writer's stores, and what
 * makes each visible (release stores paired with the readers' acquire
 * loads, as in ipc/ring.h):
 *
 *   1. the string's bytes into the arena at the end of entry n - 1, and
 *      entries[n] (plain stores: nobody reads them yet);
 *   2. n = n + 1, release: wm_keys_string() loads n with acquire, so an
 *      id below n has its entry and bytes visible;
 *   3. the slot's word, release: a reader that loads the word with
 *      acquire sees the entry and the bytes it leads to.
 *
 * Growth writes the next generation whole (zeroed first: a writer killed
 * while filling it leaves garbage that nobody reads) and publishes it by
 * storing `bits`, release; readers load `bits` with acquire. A generation
 * is never written again once superseded, so a reader still probing it
 * reads a consistent table; one that misses a key there (inserted in the
 * newer one) goes to the lock, under which the key is looked up again
 * before anything is inserted: a string gets one id, whichever process
 * interns it first, in every process.
 *
 * A writer killed (SIGKILL) holding the lock: the next writer gets
 * EOWNERDEAD and repairs before going on. Every step above is complete or
 * not done; the one state that needs repair is step 2 done and step 3
 * not, an entry whose id nobody was given: its slot is inserted
 * (repair()). Bytes of step 1 without step 2 are overwritten by the next
 * key; a half-built generation is rebuilt by the next growth.
 *
 * Interning stays deterministic in one process: ids are 0, 1, 2 ... in
 * the order strings are first interned, as before the dictionary was
 * shared, so a replay reads the same ids every time.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/utf8.h"
#include "lib/hash.h"
#include "operators/keygroup.h"
#include "runtime/io/keys.h"

#define PAGE 4096u
/* The first generation: one page of slots. */
#define MIN_BITS 9u

/* A string's place in the arena, by id. */
struct entry {
	uint64_t offset;
	uint32_t len;
	int32_t hash; /* Java String.hashCode */
};

struct wm_keys {
	/* Set at creation, read-only after. */
	uint64_t size; /* of the region */
	uint64_t max_keys, max_bytes;
	uint64_t entries_offset, slots_offset, arena_offset;
	uint32_t max_bits; /* the last generation's */
	/* Held by the one writer (PTHREAD_PROCESS_SHARED, ROBUST). */
	pthread_mutex_t lock;
	/* Published by the writer, read by everyone; apart from the limits
	 * above, which every lookup reads too. */
	alignas(64) _Atomic uint64_t n; /* ids 0 .. n - 1 are in */
	_Atomic uint32_t bits;		/* the current generation's */
};

static struct entry *
entries(const struct wm_keys *k)
{
	return (struct entry *)((char *)k + k->entries_offset);
}

static char *
arena(const struct wm_keys *k)
{
	return (char *)k + k->arena_offset;
}

/* Generation `bits`: 2^bits slots. */
static _Atomic uint64_t *
generation(const struct wm_keys *k, uint32_t bits)
{
	uint64_t before = ((uint64_t)1 << bits) - ((uint64_t)1 << MIN_BITS);

	return (_Atomic uint64_t *)((char *)k + k->slots_offset) + before;
}

static uint64_t
round_up(uint64_t x, uint64_t to)
{
	return (x + to - 1) / to * to;
}

struct wm_keys *
wm_keys_new(void)
{
	return wm_keys_new_sized(WM_KEYS_DEFAULT_KEYS, WM_KEYS_DEFAULT_BYTES);
}

struct wm_keys *
wm_keys_new_sized(uint64_t max_keys, uint64_t max_bytes)
{
	pthread_mutexattr_t attr;
	uint32_t bits = MIN_BITS;
	uint64_t size;
	struct wm_keys *k;
	void *base;

	if (max_keys == 0 || max_keys > WM_KEYS_MOST ||
	    max_bytes > ((uint64_t)1 << 40)) {
		errno = EINVAL;
		return NULL;
	}
	while (((uint64_t)1 << bits) / 2 < max_keys)
		bits++;
	size = round_up(sizeof(*k), PAGE);
	size += round_up(max_keys * sizeof(struct entry), PAGE);
	size += round_up((((uint64_t)2 << bits) - ((uint64_t)1 << MIN_BITS)) *
				 sizeof(uint64_t),
			 PAGE);
	size += round_up(max_bytes ? max_bytes : 1, PAGE);
	base = mmap(NULL, size, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	k = base;
	k->size = size;
	k->max_keys = max_keys;
	k->max_bytes = max_bytes;
	k->max_bits = bits;
	k->entries_offset = round_up(sizeof(*k), PAGE);
	k->slots_offset = k->entries_offset +
			  round_up(max_keys * sizeof(struct entry), PAGE);
	k->arena_offset =
		k->slots_offset +
		round_up((((uint64_t)2 << bits) - ((uint64_t)1 << MIN_BITS)) *
				 sizeof(uint64_t),
			 PAGE);
	atomic_init(&k->n, 0);
	atomic_init(&k->bits, MIN_BITS);
	if (pthread_mutexattr_init(&attr) != 0 ||
	    pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED) != 0 ||
	    pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST) != 0 ||
	    pthread_mutex_init(&k->lock, &attr) != 0) {
		munmap(base, size);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutexattr_destroy(&attr);
	return k;
}

void
wm_keys_free(struct wm_keys *k)
{
	if (k == NULL)
		return;
	/* The mutex needs no destroying: it lives in the region, which
	 * goes when the last process unmaps it. */
	munmap(k, k->size);
}

size_t
wm_keys_count(const struct wm_keys *k)
{
	return (size_t)atomic_load_explicit(&k->n, memory_order_acquire);
}

/* The slot word of a string of table hash h and id `id`. */
static uint64_t
slot_word(uint64_t h, uint32_t id)
{
	return (h & 0xffffffff00000000ull) | ((uint64_t)id + 1);
}

/*
 * Where the string s[0..len) of Java hash `java` and table hash h is in
 * generation `bits`: 1 with its id in *id, or 0 with *at the empty slot
 * that ends its probe. Acquire loads of the slots: an id seen has its
 * entry and bytes (step 3 of the writer's order).
 */
static inline int
probe(const struct wm_keys *k, uint32_t bits, const char *s, size_t len,
      int32_t java, uint64_t h, uint32_t *id, uint64_t *at)
{
	_Atomic uint64_t *slots = generation(k, bits);
	uint64_t mask = ((uint64_t)1 << bits) - 1;
	const struct entry *en = entries(k);

	for (uint64_t i = h & mask;; i = (i + 1) & mask) {
		uint64_t w =
			atomic_load_explicit(&slots[i], memory_order_acquire);
		const struct entry *e;

		if (w == 0) {
			*at = i;
			return 0;
		}
		if ((w ^ h) >> 32 != 0)
			continue;
		e = &en[(uint32_t)w - 1];
		if (e->hash == java && e->len == len &&
		    memcmp(arena(k) + e->offset, s, len) == 0) {
			*id = (uint32_t)w - 1;
			return 1;
		}
	}
}

static uint64_t
table_hash(int32_t java)
{
	return wm_hash_mix64((uint64_t)(uint32_t)java);
}

/* Entry `id`'s slot into generation `bits`, which does not hold it. */
static void
insert(struct wm_keys *k, uint32_t bits, uint32_t id)
{
	const struct entry *e = &entries(k)[id];
	uint64_t h = table_hash(e->hash), at;
	uint32_t found;

	if (!probe(k, bits, arena(k) + e->offset, e->len, e->hash, h, &found,
		   &at))
		atomic_store_explicit(&generation(k, bits)[at],
				      slot_word(h, id), memory_order_release);
}

/* The next generation, filled with ids 0 .. n - 1, published. Under the
 * lock. */
static void
grow(struct wm_keys *k, uint32_t bits, uint64_t n)
{
	_Atomic uint64_t *next = generation(k, bits + 1);

	/* A writer killed while filling it left slots there; nobody reads
	 * a generation before it is published. */
	memset((void *)next, 0, ((size_t)2 << bits) * sizeof(*next));
	for (uint64_t id = 0; id < n; id++)
		insert(k, bits + 1, (uint32_t)id);
	atomic_store_explicit(&k->bits, bits + 1, memory_order_release);
}

/* After a writer died holding the lock: the last entry published (step 2)
 * gets its slot if it has none (step 3). Everything else is consistent
 * (see the top of this file). */
static void
repair(struct wm_keys *k)
{
	uint64_t n = atomic_load_explicit(&k->n, memory_order_relaxed);

	if (n > 0)
		insert(k, atomic_load_explicit(&k->bits, memory_order_relaxed),
		       (uint32_t)(n - 1));
}

static int
lock(struct wm_keys *k)
{
	int r = pthread_mutex_lock(&k->lock);

	if (r == EOWNERDEAD) {
		repair(k);
		r = pthread_mutex_consistent(&k->lock);
	}
	return -r;
}

/* Interns a string that was not found, under the lock: 0 with *id, or
 * -ENOSPC. */
static int
add(struct wm_keys *k, const char *s, size_t len, int32_t java, uint64_t h,
    uint32_t *id)
{
	uint64_t n = atomic_load_explicit(&k->n, memory_order_relaxed);
	uint32_t bits = atomic_load_explicit(&k->bits, memory_order_relaxed);
	struct entry *e = &entries(k)[n];
	uint64_t offset = 0, at;

	/* Another process may have added it since we looked. */
	if (probe(k, bits, s, len, java, h, id, &at))
		return 0;
	if (n > 0)
		offset = entries(k)[n - 1].offset + entries(k)[n - 1].len;
	if (n == k->max_keys || k->max_bytes - offset < len)
		return -ENOSPC;
	if (n + 1 > ((uint64_t)1 << bits) / 2) {
		grow(k, bits, n);
		bits++;
		probe(k, bits, s, len, java, h, id, &at);
	}
	memcpy(arena(k) + offset, s, len);
	*e = (struct entry){offset, (uint32_t)len, java};
	atomic_store_explicit(&k->n, n + 1, memory_order_release);
	atomic_store_explicit(&generation(k, bits)[at],
			      slot_word(h, (uint32_t)n), memory_order_release);
	*id = (uint32_t)n;
	return 0;
}

/*
 * The Java hash of s[0..len) when every byte is printable ASCII (0x20 to
 * 0x7e), as most keys are: one pass, where the check for control
 * characters and the UTF-8 decoding of wm_keygroup_hash_string_strict()
 * would be two. An ASCII byte is one UTF-16 unit, and no control, so the
 * hash is Java's. false for anything else, which the general path reads.
 */
static inline bool
printable_ascii_hash(const char *s, size_t len, int32_t *java)
{
	uint32_t h = 0;

	for (size_t b = 0; b < len; b++) {
		unsigned char c = (unsigned char)s[b];

		if (c < 0x20 || c > 0x7e)
			return false;
		h = 31u * h + c;
	}
	*java = (int32_t)h;
	return true;
}

int
wm_keys_intern(struct wm_keys *k, const char *s, size_t len, int64_t *key,
	       size_t *at)
{
	int32_t java;
	uint64_t h, empty;
	uint32_t id;
	int r;

	*at = 0;
	if (len > WM_KEYS_MAX_BYTES)
		return -ENAMETOOLONG;
	if (printable_ascii_hash(s, len, &java))
		goto hashed;
	for (size_t b = 0; b < len; b++) {
		/* UTF-8 continuation and lead bytes are >= 0x80: a byte
		 * below 0x20, or 0x7f, is the character itself, and 0xc2
		 * always leads (C1 controls are C2 80..C2 9F). */
		size_t n = (unsigned char)s[b] == 0xc2 && b + 1 < len ? 2 : 1;

		if (wm_utf8_control((const unsigned char *)s + b, n)) {
			*at = b;
			return -EINVAL;
		}
	}
	if (wm_keygroup_hash_string_strict(s, len, &java) != 0)
		return -EILSEQ;
hashed:
	h = table_hash(java);
	/* The common case: a key already in, no lock. */
	if (!probe(k, atomic_load_explicit(&k->bits, memory_order_acquire), s,
		   len, java, h, &id, &empty)) {
		r = lock(k);
		if (r != 0)
			return r;
		r = add(k, s, len, java, h, &id);
		pthread_mutex_unlock(&k->lock);
		if (r != 0)
			return r;
	}
	*key = wm_keygroup_string_key(java, id);
	return 0;
}

const char *
wm_keys_string(const struct wm_keys *k, int64_t key, size_t *len)
{
	uint32_t id = wm_keygroup_string_key_id(key);
	const struct entry *en;

	/* Acquire: an id below n has its entry and bytes (step 2). */
	if (id >= atomic_load_explicit(&k->n, memory_order_acquire))
		return NULL;
	en = &entries(k)[id];
	if (en->hash != wm_keygroup_string_key_hash(key))
		return NULL;
	*len = en->len;
	return arena(k) + en->offset;
}

int
wm_keys_save(const struct wm_keys *k, char **bytes, size_t *len)
{
	uint64_t n = atomic_load_explicit(&k->n, memory_order_acquire);
	const struct entry *en = entries(k);
	size_t size = n > 0 ? en[n - 1].offset + en[n - 1].len + n : 0;
	char *out = malloc(size ? size : 1), *p = out;

	if (out == NULL)
		return -ENOMEM;
	/* Ids below n have their bytes (step 2): one string a line, as a
	 * key holds no control character. */
	for (uint64_t id = 0; id < n; id++) {
		memcpy(p, arena(k) + en[id].offset, en[id].len);
		p += en[id].len;
		*p++ = '\n';
	}
	*bytes = out;
	*len = size;
	return 0;
}

int
wm_keys_load(struct wm_keys *k, const char *bytes, size_t len, char *err,
	     size_t errlen)
{
	const char *p = bytes, *end = bytes + len;

	for (uint64_t id = 0; p < end; id++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		int64_t key;
		size_t at;
		int r;

		if (nl == NULL) {
			snprintf(err, errlen, "key %" PRIu64 " has no end", id);
			return -EBADMSG;
		}
		r = wm_keys_intern(k, p, (size_t)(nl - p), &key, &at);
		if (r != 0) {
			snprintf(err, errlen, "key %" PRIu64 ": %s", id,
				 strerror(-r));
			return r == -ENOMEM || r == -ENOSPC ? r : -EBADMSG;
		}
		if (wm_keygroup_string_key_id(key) != id) {
			snprintf(err, errlen,
				 "key %" PRIu64 " \"%.*s\" has id %" PRIu32
				 " in this job: its string keys are not the "
				 "checkpoint's (a trace changed?)",
				 id, (int)(nl - p), p,
				 wm_keygroup_string_key_id(key));
			return -EBADMSG;
		}
		p = nl + 1;
	}
	return 0;
}
