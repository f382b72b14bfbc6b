/*
 * keys.h
 *	The job's string keys: one dictionary that gives each distinct key
 *	string a dense id, and gives it back for printing.
 *
 * A record keyed by a string carries wm_keygroup_string_key(hash, id) in
 * its `key` (operators/keygroup.h): the string's Java String.hashCode,
 * which keyBy routes by exactly as Flink does, and its id here, which
 * windows group by. Records stay 32 bytes in every ring and queue; only
 * the sinks and late outputs, which print the string, look it up.
 *
 * The dictionary is one MAP_SHARED region (keys.c gives its layout),
 * made by wm_keys_new() in the job's process before any worker is forked:
 * every process forked after that maps the same pages at the same address
 * and interns into it and reads it concurrently. Equal strings get equal
 * ids in every process, whichever interns a string first; the ids of a
 * dictionary interned in one process, in one order, are 0, 1, 2 ... in
 * that order (a replay's are the same on every run). The region holds
 * offsets only, and is reserved whole (MAP_NORESERVE) at its capacity:
 * only the pages used cost memory. Running out of it is -ENOSPC.
 *
 * Looking a key up, by string (wm_keys_intern() of a key that is in) or by
 * id (wm_keys_string()), takes no lock. Interning a new string takes a
 * process-shared robust mutex; a process killed holding it leaves the
 * dictionary whole for the others (keys.c says why).
 *
 * Keys are what Flink would accept as a String key and what a CSV or JSON
 * line can print back unambiguously: well-formed UTF-8 (RFC 3629), at
 * most WM_KEYS_MAX_BYTES bytes, no control character (U+0000..U+001F,
 * U+007F). The empty string is a key. Interning refuses anything else
 * (so nothing is replaced and no key is silently merged with another).
 *
 * Any number of threads and processes at once, forked from the one that
 * made the dictionary.
 */
#ifndef WM_RUNTIME_IO_KEYS_H
#define WM_RUNTIME_IO_KEYS_H

#include <stddef.h>
#include <stdint.h>

/* The longest key, in bytes of UTF-8: 256 is far beyond user and device
 * ids, and keeps a result line, the key quoted, below a sink's line limit
 * (runtime/io/sink.c). */
#define WM_KEYS_MAX_BYTES 256

/* The capacity of wm_keys_new(): reserved, not used, until keys come. */
#define WM_KEYS_DEFAULT_KEYS ((uint64_t)16 << 20)
#define WM_KEYS_DEFAULT_BYTES ((uint64_t)1 << 30)
/* The most keys a dictionary can hold: ids are 32 bits, one value spare. */
#define WM_KEYS_MOST ((uint64_t)UINT32_MAX)

struct wm_keys;

/* An empty dictionary of the default capacity, or NULL with errno set. */
struct wm_keys *wm_keys_new(void);
/* An empty dictionary of room for `max_keys` keys (1 .. WM_KEYS_MOST) and
 * `max_bytes` bytes of strings (at most 2^40), or NULL with errno set:
 * EINVAL for a capacity out of range, ENOMEM. */
struct wm_keys *wm_keys_new_sized(uint64_t max_keys, uint64_t max_bytes);
/* Unmaps this process's view; the dictionary goes with the last one. */
void wm_keys_free(struct wm_keys *keys);

/*
 * The key word of string s[0..len) (s need not be NUL-terminated),
 * interning it if it is new: equal strings get equal words, different
 * strings different ones. 0 with *key set, or a negative errno with
 * nothing interned: -EILSEQ not well-formed UTF-8, -EINVAL a control
 * character, -ENAMETOOLONG longer than WM_KEYS_MAX_BYTES, -ENOSPC the
 * dictionary's capacity (keys or bytes) is used up, -ENOTRECOVERABLE its
 * lock is broken (a writer died and its repair did not finish). *at is
 * the byte offset of the control character in s (-EINVAL), else 0.
 */
int wm_keys_intern(struct wm_keys *keys, const char *s, size_t len,
		   int64_t *key, size_t *at);

/* Distinct strings interned. */
size_t wm_keys_count(const struct wm_keys *keys);

/*
 * The string of key word `key` (of this dictionary), not NUL-terminated,
 * its length in *len; NULL if the word is none of this dictionary's.
 */
const char *wm_keys_string(const struct wm_keys *keys, int64_t key,
			   size_t *len);

/*
 * The dictionary for a checkpoint: every string interned so far in id
 * order, one a line ('\n' after each; a key holds none), in a malloc'd
 * *bytes of *len bytes. Others may intern meanwhile: what is saved is
 * the ids published when it starts, a prefix of the ids of every later
 * save. 0 or -ENOMEM.
 */
int wm_keys_save(const struct wm_keys *keys, char **bytes, size_t *len);

/*
 * What wm_keys_save() wrote, interned again line by line before anything
 * new is: each string must get the id it had, which holds in a fresh
 * dictionary, and in one already holding the first strings of the list in
 * that order (the job's traces read again). 0, or a negative errno with a
 * message: -EBADMSG a line that is no key or gets another id, -ENOSPC,
 * -ENOMEM.
 */
int wm_keys_load(struct wm_keys *keys, const char *bytes, size_t len, char *err,
		 size_t errlen);

#endif /* WM_RUNTIME_IO_KEYS_H */
