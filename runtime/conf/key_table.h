/*
 * key_table.h
 *	Every key of topology.conf, by the section that takes it: the table
 *	the parser checks keys against (unknown keys, did-you-mean, [global]
 *	defaults, the keys of a generated or a replayed source) and the
 *	reference page wmrun-topology(5) is printed from, so that a key the
 *	parser accepts is documented by construction.
 *
 * The table holds names and prose, never values: each key is still read,
 * checked and defaulted by its loader (topology.c, kafka_keys.c, ...).
 * What the table says of a default is the loader's behaviour restated, and
 * the unit test check_key_table loads every key's example to keep the
 * documented form honest. Read-only, static: safe from any thread.
 */
#ifndef WM_RUNTIME_CONF_KEY_TABLE_H
#define WM_RUNTIME_CONF_KEY_TABLE_H

#include <stdbool.h>
#include <stddef.h>

/* Room for the longest key's name and its NUL (the test checks). */
#define WM_KEY_NAME_MAX 64

/* Which records a source key is about: a generated source's, a
 * replayed trace's or a Nexmark stream's. A key of another kind has no
 * effect on a source, and the parser refuses it there (checks.c). */
enum wm_key_table_use {
	WM_KEY_ANY,	  /* any source, or a key of another section */
	WM_KEY_GENERATOR, /* a source that generates its records */
	WM_KEY_REPLAY,	  /* a source that replays a trace */
	WM_KEY_NEXMARK,	  /* a source that makes a Nexmark stream */
};

struct wm_key_table_entry {
	const char *name;
	/* The kind of value and its units ("duration", "count", a choice). */
	const char *units;
	/* What the loader uses when the key is not given. */
	const char *fallback;
	/* Flink's counterpart, or "none" where wmrun has none. */
	const char *flink;
	/* A value that parses, and the other keys of the same section it
	 * needs to ("key = value" lines joined by "; ", or ""). */
	const char *example;
	const char *needs;
	const char *about; /* one line */
	enum wm_key_table_use use;
};

struct wm_key_table_section {
	/* "job", "source", "keyby", "window", "join", "sink", "map" */
	const char *kind;
	const char *about;
	const struct wm_key_table_entry *keys;
	size_t n_keys;
};

/* The sections that take keys, [job] first, then the stage kinds in the
 * order the page lists them. */
const struct wm_key_table_section *wm_key_table_sections(size_t *n);

/* The section of kind `kind` ("job", "source", ...), or NULL ("global",
 * an unknown kind). */
const struct wm_key_table_section *wm_key_table_section(const char *kind);

/* `key`'s entry in `s`, or NULL. */
const struct wm_key_table_entry *
wm_key_table_find(const struct wm_key_table_section *s, const char *key);

/* The key of `s` closest to a misspelt `key` (wm_ini_suggest()'s rules:
 * ties go to the earlier key of the table), or NULL. */
const char *wm_key_table_suggest(const struct wm_key_table_section *s,
				 const char *key);

#endif /* WM_RUNTIME_CONF_KEY_TABLE_H */
