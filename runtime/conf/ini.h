/*
 * ini.h
 *	A strict INI reader that keeps positions: topology.conf -> sections
 *	and entries, each with its line and column, or the first error as
 *	FILE:LINE:COL: MESSAGE.
 *
 * The syntax (fio job files, tightened so that every mistake is an error):
 *
 *   # comment                ';' works too, both only as the first
 *   ; comment                non-blank character of a line
 *   [global]                 a section: a kind word ...
 *   [source clicks]          ... and an optional name
 *   [source "my clicks"]     a quoted name may hold spaces, ']', '#', ';'
 *   key = value              key: one or more of a-z 0-9 _ - .
 *   key = value # comment    '#' after a blank ends an unquoted value
 *   key = a#b                '#' not after a blank is part of the value
 *   key = "a # b"            quoted: '#' and ';' are literal, outer blanks
 *                            kept; escapes \" and \\ only
 *   key =                    empty value (the caller decides if allowed)
 *   key = ${NAME:-default}   from the environment, quoted or not: ${NAME}
 *                            (an error if unset), ${NAME:-DEFAULT} (the
 *                            default if unset or empty), $$ one '$'; the
 *                            result holds no control character
 *
 * - Section kinds use the key alphabet. An unquoted name is one run of
 *   characters other than blanks and [ ] " # ; =. After ']' or a closing
 *   quote only blanks and a '#' or ';' comment may follow.
 * - Blanks are space and tab. Keys and values are trimmed of blanks.
 * - Lines end with LF or CRLF; the last line may lack its end. A UTF-8
 *   byte order mark at the very start is skipped.
 * - The input must be UTF-8 text: NUL bytes, other control characters
 *   (below U+0020 but tab, DEL, a CR that does not end a line) and invalid
 *   or overlong UTF-8 are errors, wherever they are (comments too): a
 *   config file with such bytes is damaged, and saying so beats parsing
 *   garbage.
 * - A key appears at most once per section, unless the caller's
 *   may_repeat() allows it; a section (same kind and name) appears at
 *   most once. The reader gives no meaning to [global] or any kind.
 * - Values and lines may be of any length; the whole input is capped at
 *   WM_INI_MAX_SIZE bytes.
 *
 * Positions: lines and columns count from 1. A column counts characters
 * (UTF-8 code points; a tab is one), so that it matches what an editor
 * shows for the usual ASCII file. Errors about the input as a whole (cannot
 * read it, too large) have line 0 and col 0.
 *
 * The document is read-only after parsing except for entry->used, which
 * the caller sets through wm_ini_get() and friends to find unknown keys.
 * One thread at a time.
 */
#ifndef WM_RUNTIME_CONF_INI_H
#define WM_RUNTIME_CONF_INI_H

#include <stdbool.h>
#include <stddef.h>

#define WM_INI_MAX_SIZE (16u << 20) /* bytes of input accepted */
#define WM_INI_MSG_MAX 512	    /* room for any message we write */
#define WM_INI_QUOTE_MAX 256	    /* room for wm_ini_quote() and _label() */

struct wm_ini_section;

struct wm_ini_entry {
	const char *key;
	const char *value; /* unescaped if quoted; never NULL */
	size_t value_len;  /* strlen(value): values hold no NUL */
	int line;
	int key_col;
	int value_col; /* first character of the value, or of its quote; for
			* an empty value, the column after '=' and blanks */
	bool quoted;
	bool used; /* set by wm_ini_get() / wm_ini_get_next() */
	const struct wm_ini_section *section;
	/* Where a value set from outside the text came from ("--set
	 * events.idle_timeout=0"), which messages name instead of a line
	 * (wm_ini_error_at()); NULL for the text's own entries. */
	const char *origin;
};

struct wm_ini_section {
	const char *kind;
	const char *name; /* NULL for [kind] */
	int line;
	int col;	  /* of the '[' */
	size_t n_entries; /* in file order */
	struct wm_ini_entry *entries;
	size_t cap_entries; /* private */
};

struct wm_ini_doc {
	const char *file;  /* owned copy of the path or name */
	size_t n_sections; /* in file order */
	struct wm_ini_section *sections;
	/* private */
	size_t cap_sections;
	char *text;   /* the input, cut in place into keys and values */
	char **owned; /* what wm_ini_set() copied */
	size_t n_owned;
};

/* The first error. file points at the path or name the caller passed to
 * the parse call, not a copy. */
struct wm_ini_error {
	const char *file;
	int line; /* 0: about the whole input */
	int col;
	char msg[WM_INI_MSG_MAX];
};

struct wm_ini_options {
	/* May `key` appear more than once in a section of kind `kind`? NULL:
	 * never. Repeated entries stay in file order (wm_ini_get_next()). */
	bool (*may_repeat)(const char *kind, const char *key, void *arg);
	void *arg;
};

/*
 * Read and parse the file at `path`. On success store a new document in
 * *docp (free with wm_ini_free()) and return 0. On failure store NULL, fill
 * *err and return:
 *   -EINVAL	the text is malformed (err has line and col)
 *   -EFBIG	larger than WM_INI_MAX_SIZE
 *   -ENOMEM	out of memory
 *   -errno	the file could not be opened or read (ENOENT, EACCES,
 *		EISDIR...): "could not read file: <strerror>"
 * opts may be NULL (no key may repeat).
 */
int wm_ini_parse_file(const char *path, const struct wm_ini_options *opts,
		      struct wm_ini_doc **docp, struct wm_ini_error *err);

/* Only read the file at `path`, as wm_ini_parse_file() does, into *textp
 * (NUL-terminated, `*lenp` bytes; free() it): 0, or its errors. For a
 * caller that edits the text before parsing it (--sweep). */
int wm_ini_read_file(const char *path, char **textp, size_t *lenp,
		     struct wm_ini_error *err);

/* The same for `len` bytes at `buf` (which may hold NUL bytes: they are
 * reported), named `name` in the document and in errors. */
int wm_ini_parse_buffer(const char *buf, size_t len, const char *name,
			const struct wm_ini_options *opts,
			struct wm_ini_doc **docp, struct wm_ini_error *err);

/*
 * Set `key` of the section [kind name] (name NULL: [kind]) to `value`, as
 * if the text had said so, but from `origin` ("--set
 * events.idle_timeout=0"), which messages about the entry name instead of
 * a line. The section's entry of that key takes the value (and the
 * origin), or one is added at its end; a section the text lacks is added
 * at the document's end, with line 0. The strings are copied but
 * `origin`, which messages point at: it must outlive them (and the
 * document). 0; -EEXIST
 * when the key appears more than once in the section (which one to set is
 * not clear); -ENOMEM.
 */
int wm_ini_set(struct wm_ini_doc *doc, const char *kind, const char *name,
	       const char *key, const char *value, const char *origin);

/* Free a document; NULL is fine. */
void wm_ini_free(struct wm_ini_doc *doc);

/* The section of this kind and name (name NULL: the one without a name),
 * or NULL. */
struct wm_ini_section *wm_ini_section_find(const struct wm_ini_doc *doc,
					   const char *kind, const char *name);

/* The first entry of `sec` with this key, marked used; NULL if none (sec
 * may be NULL). */
struct wm_ini_entry *wm_ini_get(struct wm_ini_section *sec, const char *key);

/* The next entry after `prev` in the same section with the same key,
 * marked used; NULL after the last. */
struct wm_ini_entry *wm_ini_get_next(struct wm_ini_section *sec,
				     const struct wm_ini_entry *prev);

/* The first entry in file order that nobody marked used: store it in
 * *entry and return true, or return false. */
bool wm_ini_first_unused(const struct wm_ini_doc *doc,
			 const struct wm_ini_entry **entry);

/*
 * The candidate closest to `word` by edit distance (optimal string
 * alignment: insert, delete, substitute, swap two neighbours), if that
 * distance is at most a third of strlen(word); NULL for words shorter than
 * three characters or longer than 64, and when nothing is close enough.
 * Ties go to the earlier candidate.
 */
const char *wm_ini_suggest(const char *word, const char *const *candidates,
			   size_t n);

/* Fill *err (printf-style message); for the layer above, so that its
 * errors look like the reader's. */
void wm_ini_error_set(struct wm_ini_error *err, const char *file, int line,
		      int col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* wm_ini_error_set() about entry e of `file`, at column col of its line;
 * an entry set from outside the text (e->origin) is named by its origin,
 * without a line. */
void wm_ini_error_at(struct wm_ini_error *err, const char *file,
		     const struct wm_ini_entry *e, int col, const char *fmt,
		     ...) __attribute__((format(printf, 5, 6)));

/* "FILE:LINE:COL: MSG", or "FILE: MSG" for line 0, into buf (always
 * terminated, cut if short); returns the length it needed, as snprintf. */
int wm_ini_error_format(const struct wm_ini_error *err, char *buf, size_t len);

/* `s` in double quotes for a message: ", \ and control characters
 * escaped, bytes that are not UTF-8 as \xNN, and cut with "..." after 40
 * characters; WM_INI_QUOTE_MAX bytes always suffice. Returns buf. */
char *wm_ini_quote(char *buf, size_t len, const char *s);

/* "[kind]" or "[kind name]" for a message, the name quoted when it needs
 * it, both cut like wm_ini_quote(); WM_INI_QUOTE_MAX bytes suffice.
 * Returns buf. */
char *wm_ini_section_label(char *buf, size_t len,
			   const struct wm_ini_section *sec);

#endif /* WM_RUNTIME_CONF_INI_H */
