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
 * The dictionary is built while the job's traces are read, before the
 * segment exists and before any worker is forked; it is read-only from
 * then on. --sim reads it in its one process; a real run's workers are
 * forked from the supervisor and inherit it with the traces, page for
 * page, so no copy goes into the segment and nothing is locked. A source
 * that learned keys while the job runs (Kafka) would need the dictionary
 * in the segment instead, with one writer.
 *
 * Keys are what Flink would accept as a String key and what a CSV or JSON
 * line can print back unambiguously: well-formed UTF-8 (RFC 3629), at
 * most WM_KEYS_MAX_BYTES bytes, no control character (U+0000..U+001F,
 * U+007F). The empty string is a key. Interning refuses anything else
 * (so nothing is replaced and no key is silently merged with another).
 *
 * One thread; not for concurrent writers.
 */
#ifndef WM_RUNTIME_IO_KEYS_H
#define WM_RUNTIME_IO_KEYS_H

#include <stddef.h>
#include <stdint.h>

/* The longest key, in bytes of UTF-8: 256 is far beyond user and device
 * ids, and keeps a result line, the key quoted, below a sink's line limit
 * (runtime/io/sink.c). */
#define WM_KEYS_MAX_BYTES 256

struct wm_keys;

/* An empty dictionary, or NULL (ENOMEM). */
struct wm_keys *wm_keys_new(void);
void wm_keys_free(struct wm_keys *keys);

/*
 * The key word of string s[0..len) (s need not be NUL-terminated),
 * interning it if it is new: equal strings get equal words, different
 * strings different ones. 0 with *key set, or a negative errno with
 * nothing interned: -EILSEQ not well-formed UTF-8, -EINVAL a control
 * character, -ENAMETOOLONG longer than WM_KEYS_MAX_BYTES, -ENOSPC 2^32
 * keys already, -ENOMEM. *at is the byte offset of the control
 * character in s (-EINVAL), else 0.
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

#endif /* WM_RUNTIME_IO_KEYS_H */
