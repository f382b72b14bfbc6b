/*
 * ini.c
 *	A strict INI reader that keeps positions (syntax in ini.h).
 *
 * The whole input is copied once into doc->text and cut in place: keys,
 * values and names are NUL-terminated where they end, and quoted strings
 * are unescaped toward their start, so a document costs one copy of the
 * input plus the section and entry arrays, whatever the length of a value.
 *
 * Each line is checked as text first (NUL, control characters, UTF-8),
 * then parsed; the first error stops the parse, so errors come in file
 * order. Duplicate sections and keys are found through one hash table each
 * (lib/hash_table.h, over indexes into the arrays, which move as
 * they grow), so that a large generated file costs linear time, not
 * quadratic.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/container_of.h"
#include "base/utf8.h"
#include "lib/hash.h"
#include "runtime/conf/ini.h"

#define KEY_CHARS_HINT "use a-z, 0-9, \"_\", \"-\" and \".\""
#define QUOTE_CHARS 40 /* characters shown by wm_ini_quote() */
#define SUGGEST_MAX 64 /* longest word wm_ini_suggest() considers */
#define NO_INDEX SIZE_MAX

/* One slot of the section or key table (lib/hash_table.h): an
 * index into doc->sections and, for the key table, into that section's
 * entries. The arrays move as they grow; indexes do not. */
struct slot {
	uint64_t hash;
	size_t sec;
	size_t ent;
	bool full;
};

/* What each table looks up. */
struct section_name {
	const char *kind, *name; /* name NULL: a section without one */
};

struct key_name {
	size_t sec;
	const char *key;
};

#define WM_HT_PREFIX section_table
#define WM_HT_ENTRY struct slot
#define WM_HT_DECLARE
#include "lib/hash_table.h"

#define WM_HT_PREFIX key_table
#define WM_HT_ENTRY struct slot
#define WM_HT_DECLARE
#include "lib/hash_table.h"

struct parser {
	struct wm_ini_doc *doc;
	const char *name; /* the caller's, for errors */
	const struct wm_ini_options *opts;
	struct wm_ini_error *err;
	char *line; /* start of the current line */
	int lineno;
	size_t cur; /* index of the current section, or NO_INDEX */
	struct section_table secs;
	struct key_table keys;
};

/* ------------------------------------------------------------------ */
/* Characters */

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool
is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '-' || c == '.';
}

static size_t
skip_blanks(const char *l, size_t i, size_t n)
{
	while (i < n && is_blank(l[i]))
		i++;
	return i;
}

/* Column of byte offset `off` in a line whose first `off` bytes are valid
 * UTF-8: one plus the code points before it. */
static int
col_of(const char *l, size_t off)
{
	int col = 1;
	size_t i;

	for (i = 0; i < off; i++)
		if (((unsigned char)l[i] & 0xc0) != 0x80)
			col++;
	return col;
}

/* ------------------------------------------------------------------ */
/* Messages */

static char *
quote_n(char *buf, size_t len, const char *s, size_t n)
{
	char tmp[WM_INI_QUOTE_MAX];
	const unsigned char *u = (const unsigned char *)s;
	size_t o = 0, i = 0, k;
	int chars = 0;

	tmp[o++] = '"';
	while (i < n) {
		if (chars == QUOTE_CHARS) {
			memcpy(tmp + o, "...", 3);
			o += 3;
			break;
		}
		k = wm_utf8_seq(u + i, n - i);
		if (u[i] == '"' || u[i] == '\\') {
			tmp[o++] = '\\';
			tmp[o++] = (char)u[i];
		} else if (k == 0 || wm_utf8_control(u + i, k)) {
			snprintf(tmp + o, sizeof(tmp) - o, "\\x%02x", u[i]);
			o += 4;
			k = 1;
		} else {
			memcpy(tmp + o, u + i, k);
			o += k;
		}
		i += k ? k : 1;
		chars++;
	}
	tmp[o++] = '"';
	tmp[o] = '\0';
	if (len > 0)
		snprintf(buf, len, "%s", tmp);
	return buf;
}

char *
wm_ini_quote(char *buf, size_t len, const char *s)
{
	return quote_n(buf, len, s, strlen(s));
}

/* A name that can be shown without quotes in a section header. */
static bool
is_bare_name(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s; s++)
		if (is_blank(*s) || strchr("[]\"#;=\\", *s) ||
		    (unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

char *
wm_ini_section_label(char *buf, size_t len, const struct wm_ini_section *sec)
{
	char kind[WM_INI_QUOTE_MAX], name[WM_INI_QUOTE_MAX];
	size_t klen = strlen(sec->kind);

	/* Kinds are made of key characters: cut without quotes. */
	if (klen > QUOTE_CHARS)
		snprintf(kind, sizeof(kind), "%.*s...", QUOTE_CHARS, sec->kind);
	else
		snprintf(kind, sizeof(kind), "%s", sec->kind);
	if (sec->name == NULL) {
		snprintf(buf, len, "[%s]", kind);
		return buf;
	}
	if (is_bare_name(sec->name) && strlen(sec->name) <= QUOTE_CHARS)
		snprintf(name, sizeof(name), "%s", sec->name);
	else
		wm_ini_quote(name, sizeof(name), sec->name);
	snprintf(buf, len, "[%s %s]", kind, name);
	return buf;
}

void
wm_ini_error_set(struct wm_ini_error *err, const char *file, int line, int col,
		 const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	err->file = file;
	err->line = line;
	err->col = col;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

void
wm_ini_error_at(struct wm_ini_error *err, const char *file,
		const struct wm_ini_entry *e, int col, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	err->file = e->origin != NULL ? e->origin : file;
	err->line = e->origin != NULL ? 0 : e->line;
	err->col = e->origin != NULL ? 0 : col;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

int
wm_ini_error_format(const struct wm_ini_error *err, char *buf, size_t len)
{
	const char *file = err->file ? err->file : "(input)";

	if (err->line <= 0)
		return snprintf(buf, len, "%s: %s", file, err->msg);
	return snprintf(buf, len, "%s:%d:%d: %s", file, err->line, err->col,
			err->msg);
}

/* Report an error at byte `off` of the current line; returns -EINVAL. */
static int perr(struct parser *p, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
perr(struct parser *p, size_t off, const char *fmt, ...)
{
	va_list ap;

	if (p->err == NULL)
		return -EINVAL;
	p->err->file = p->name;
	p->err->line = p->lineno;
	p->err->col = col_of(p->line, off);
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int
enomem(struct parser *p)
{
	wm_ini_error_set(p->err, p->name, 0, 0, "out of memory");
	return -ENOMEM;
}

/* The character at byte i of the current line, quoted for a message. */
static char *
quote_char(char *buf, size_t len, const struct parser *p, size_t i, size_t n)
{
	size_t k = wm_utf8_seq((const unsigned char *)p->line + i, n - i);

	return quote_n(buf, len, p->line + i, k ? k : 1);
}

/* ------------------------------------------------------------------ */
/* Hash tables of sections and keys */

static uint64_t
fnv(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

#define FNV_BASIS 0xcbf29ce484222325ULL

static uint64_t
section_hash(struct section_name n)
{
	/* Names are never empty, so "" stands for no name. */
	return fnv(fnv(FNV_BASIS, n.kind) * 31 + 1, n.name ? n.name : "");
}

static uint64_t
key_hash(struct key_name n)
{
	return fnv(FNV_BASIS ^ wm_hash_fibonacci(n.sec), n.key);
}

static bool
same_name(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

static bool
section_is(const struct section_table *tb, const struct slot *e,
	   struct section_name n)
{
	const struct parser *p = wm_container_of(tb, struct parser, secs);
	const struct wm_ini_section *s = &p->doc->sections[e->sec];

	return strcmp(s->kind, n.kind) == 0 && same_name(s->name, n.name);
}

static bool
key_is(const struct key_table *tb, const struct slot *e, struct key_name n)
{
	const struct parser *p = wm_container_of(tb, struct parser, keys);

	return e->sec == n.sec &&
	       strcmp(p->doc->sections[n.sec].entries[e->ent].key, n.key) == 0;
}

/* Load factor at most one half: a parse is short-lived, probes short. */
#define WM_HT_PREFIX section_table
#define WM_HT_ENTRY struct slot
#define WM_HT_KEY struct section_name
#define WM_HT_EMPTY(e) (!(e)->full)
#define WM_HT_HASH(tb, e) ((e)->hash)
#define WM_HT_MATCH(tb, e, key_, hash_)                                        \
	((e)->hash == (hash_) && section_is(tb, e, key_))
#define WM_HT_MIN_SLOTS 64
#define WM_HT_FILL(slots) ((slots) / 2)
#define WM_HT_DEFINE
#include "lib/hash_table.h"

#define WM_HT_PREFIX key_table
#define WM_HT_ENTRY struct slot
#define WM_HT_KEY struct key_name
#define WM_HT_EMPTY(e) (!(e)->full)
#define WM_HT_HASH(tb, e) ((e)->hash)
#define WM_HT_MATCH(tb, e, key_, hash_)                                        \
	((e)->hash == (hash_) && key_is(tb, e, key_))
#define WM_HT_MIN_SLOTS 64
#define WM_HT_FILL(slots) ((slots) / 2)
#define WM_HT_DEFINE
#include "lib/hash_table.h"

/*
 * Find the section (kind, name), or insert index `idx` for it. Returns
 * the index found, or NO_INDEX after inserting (*rc 0) or when out of
 * memory (*rc -ENOMEM).
 */
static size_t
section_find_or_add(struct parser *p, const char *kind, const char *name,
		    size_t idx, int *rc)
{
	struct section_name n = {kind, name};
	uint64_t h = section_hash(n);
	size_t i;

	*rc = section_table_reserve(&p->secs, 1);
	if (*rc)
		return NO_INDEX;
	if (section_table_lookup(&p->secs, n, h, &i))
		return p->secs.slots[i].sec;
	*section_table_insert_at(&p->secs, i) =
		(struct slot){.hash = h, .sec = idx, .full = true};
	return NO_INDEX;
}

/* The same for key `key` of section `sec`, inserting entry index `ent`. */
static size_t
key_find_or_add(struct parser *p, size_t sec, const char *key, size_t ent,
		int *rc)
{
	struct key_name n = {sec, key};
	uint64_t h = key_hash(n);
	size_t i;

	*rc = key_table_reserve(&p->keys, 1);
	if (*rc)
		return NO_INDEX;
	if (key_table_lookup(&p->keys, n, h, &i))
		return p->keys.slots[i].ent;
	*key_table_insert_at(&p->keys, i) =
		(struct slot){.hash = h, .sec = sec, .ent = ent, .full = true};
	return NO_INDEX;
}

/* ------------------------------------------------------------------ */
/* Lines */

/* Refuse what is not UTF-8 text in the first n bytes of the line. */
static int
check_text(struct parser *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p->line;
	size_t i = 0, k;

	while (i < n) {
		if (u[i] == 0)
			return perr(p, i,
				    "invalid NUL byte (the file must be "
				    "UTF-8 text)");
		if (u[i] == '\r')
			return perr(p, i,
				    "invalid carriage return (lines "
				    "must end with LF or CRLF)");
		if ((u[i] < 0x20 && u[i] != '\t') || u[i] == 0x7f)
			return perr(p, i, "invalid control character U+%04X",
				    u[i]);
		k = wm_utf8_seq(u + i, n - i);
		/* C1 controls (U+0080..U+009F) act on terminals as C0 ones
		 * do: U+009B is CSI. */
		if (k == 2 && wm_utf8_control(u + i, k))
			return perr(p, i, "invalid control character U+%04X",
				    u[i + 1]);
		if (k == 0 && (u[i] < 0xc2 || u[i] > 0xf4))
			return perr(p, i,
				    "invalid UTF-8 byte 0x%02x (the "
				    "file must be UTF-8 text)",
				    u[i]);
		if (k == 0)
			return perr(p, i,
				    "invalid UTF-8 sequence starting "
				    "with byte 0x%02x (the file must "
				    "be UTF-8 text)",
				    u[i]);
		i += k;
	}
	return 0;
}

/*
 * Unescape the quoted string whose opening quote is at byte q, in place
 * from q + 1. Store the index of the closing quote in *closep and the
 * unescaped length in *lenp; the caller terminates it.
 */
static int
unquote(struct parser *p, size_t q, size_t n, const char *what, size_t *closep,
	size_t *lenp)
{
	char *l = p->line;
	size_t i = q + 1, w = q + 1, k;

	for (;;) {
		if (i >= n)
			return perr(p, q,
				    "unterminated quoted %s (no closing "
				    "quote)",
				    what);
		if (l[i] == '"')
			break;
		if (l[i] == '\\') {
			if (i + 1 >= n)
				return perr(p, q,
					    "unterminated quoted %s (no "
					    "closing quote)",
					    what);
			if (l[i + 1] != '"' && l[i + 1] != '\\') {
				k = wm_utf8_seq((const unsigned char *)l + i +
							1,
						n - i - 1);
				return perr(p, i,
					    "invalid escape \\%.*s in "
					    "quoted %s (only \\\" and "
					    "\\\\ are allowed)",
					    (int)(k ? k : 1), l + i + 1, what);
			}
			i++;
		}
		l[w++] = l[i++];
	}
	*closep = i;
	*lenp = w - (q + 1);
	return 0;
}

/* Only blanks and a comment may follow byte i. */
static bool
only_comment_after(const char *l, size_t i, size_t n)
{
	i = skip_blanks(l, i, n);
	return i == n || l[i] == '#' || l[i] == ';';
}

static int
add_section(struct parser *p, char *kind, char *name, size_t b)
{
	struct wm_ini_doc *doc = p->doc;
	struct wm_ini_section *s;
	char label[WM_INI_QUOTE_MAX];
	size_t first, cap;
	int rc;

	if (doc->n_sections == doc->cap_sections) {
		cap = doc->cap_sections ? doc->cap_sections * 2 : 8;
		s = realloc(doc->sections, cap * sizeof(*s));
		if (s == NULL)
			return enomem(p);
		doc->sections = s;
		doc->cap_sections = cap;
	}
	first = section_find_or_add(p, kind, name, doc->n_sections, &rc);
	if (rc)
		return enomem(p);
	if (first != NO_INDEX)
		return perr(p, b, "duplicate section %s, first at line %d",
			    wm_ini_section_label(label, sizeof(label),
						 &doc->sections[first]),
			    doc->sections[first].line);
	s = &doc->sections[doc->n_sections];
	*s = (struct wm_ini_section){
		.kind = kind,
		.name = name,
		.line = p->lineno,
		.col = col_of(p->line, b),
	};
	p->cur = doc->n_sections++;
	return 0;
}

/* "[kind]" or "[kind name]" with its '[' at byte b. */
static int
parse_header(struct parser *p, size_t b, size_t n)
{
	char *l = p->line, q[WM_INI_QUOTE_MAX];
	size_t i, k0, k1, nq, close, nlen, name_end = NO_INDEX;
	char *name = NULL;
	int rc;

	k0 = i = skip_blanks(l, b + 1, n);
	while (i < n && !is_blank(l[i]) && l[i] != ']')
		i++;
	k1 = i;
	if (k0 == k1 && i < n)
		return perr(p, b, "empty section header");
	for (i = k0; i < k1; i++)
		if (!is_key_char(l[i]))
			return perr(p, i,
				    "invalid character %s in section kind "
				    "(" KEY_CHARS_HINT ")",
				    quote_char(q, sizeof(q), p, i, n));
	i = skip_blanks(l, k1, n);
	if (i < n && l[i] == '"') {
		nq = i;
		rc = unquote(p, nq, n, "section name", &close, &nlen);
		if (rc)
			return rc;
		if (nlen == 0)
			return perr(p, nq, "empty section name");
		name = l + nq + 1;
		name_end = nq + 1 + nlen;
		i = skip_blanks(l, close + 1, n);
	} else if (i < n && l[i] != ']') {
		nq = i;
		while (i < n && !is_blank(l[i]) && !strchr("[]\"#;=", l[i]))
			i++;
		if (i < n && !is_blank(l[i]) && l[i] != ']')
			return perr(p, i,
				    "invalid character %s in section name "
				    "(quote the name to use it)",
				    quote_char(q, sizeof(q), p, i, n));
		name = l + nq;
		name_end = i;
		i = skip_blanks(l, i, n);
	}
	if (i >= n)
		return perr(p, b,
			    "unterminated section header (missing "
			    "\"]\")");
	if (l[i] != ']')
		return perr(p, i,
			    "unexpected character %s in section header "
			    "(quote a name that contains blanks)",
			    quote_char(q, sizeof(q), p, i, n));
	if (!only_comment_after(l, i + 1, n))
		return perr(p, skip_blanks(l, i + 1, n),
			    "unexpected text after section header");
	l[k1] = '\0';
	if (name != NULL)
		l[name_end] = '\0';
	return add_section(p, l + k0, name, b);
}

static int
add_entry(struct parser *p, const struct wm_ini_entry *e, size_t k0)
{
	struct wm_ini_section *s = &p->doc->sections[p->cur];
	const struct wm_ini_options *o = p->opts;
	struct wm_ini_entry *es;
	char q[WM_INI_QUOTE_MAX], label[WM_INI_QUOTE_MAX];
	size_t first, cap;
	int rc;

	if (o == NULL || o->may_repeat == NULL ||
	    !o->may_repeat(s->kind, e->key, o->arg)) {
		first = key_find_or_add(p, p->cur, e->key, s->n_entries, &rc);
		if (rc)
			return enomem(p);
		if (first != NO_INDEX)
			return perr(
				p, k0,
				"duplicate key %s in %s, first set at "
				"line %d",
				wm_ini_quote(q, sizeof(q), e->key),
				wm_ini_section_label(label, sizeof(label), s),
				s->entries[first].line);
	}
	if (s->n_entries == s->cap_entries) {
		cap = s->cap_entries ? s->cap_entries * 2 : 8;
		es = realloc(s->entries, cap * sizeof(*es));
		if (es == NULL)
			return enomem(p);
		s->entries = es;
		s->cap_entries = cap;
	}
	s->entries[s->n_entries++] = *e;
	return 0;
}

/* `s` (malloc'd) made the document's, freed with it: 0, or -ENOMEM
 * (s freed). */
static int
doc_own(struct wm_ini_doc *doc, char *s)
{
	char **owned = realloc(doc->owned, (doc->n_owned + 1) * sizeof(*owned));

	if (owned == NULL) {
		free(s);
		return -ENOMEM;
	}
	doc->owned = owned;
	doc->owned[doc->n_owned++] = s;
	return 0;
}

static bool
is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool
is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

/*
 * ${NAME} and ${NAME:-DEFAULT} in e's value, from the environment (the
 * default where NAME is unset or empty; no nesting in it), and $$ as one
 * '$'; any other '$' stays as it is. The value is then held to the
 * input's rules: UTF-8 without control characters. Errors point at the
 * '$' of an unquoted value (at byte raw of the line: its value starts
 * there), at a quoted value's quote.
 */
static int
expand_env(struct parser *p, struct wm_ini_entry *e, size_t raw)
{
	const char *v = e->value;
	char *out = NULL, q[WM_INI_QUOTE_MAX];
	size_t len = 0, i = 0;
	FILE *f;

	if (strchr(v, '$') == NULL)
		return 0;
	f = open_memstream(&out, &len);
	if (f == NULL)
		return enomem(p);
	while (v[i] != '\0') {
		size_t at = e->quoted ? raw - 1 : raw + i, name, end, def = 0;
		const char *val;

		if (v[i] != '$' || (v[i + 1] != '$' && v[i + 1] != '{')) {
			fputc(v[i++], f);
			continue;
		}
		if (v[i + 1] == '$') {
			fputc('$', f);
			i += 2;
			continue;
		}
		name = i + 2;
		for (end = name; is_name_char(v[end]); end++)
			;
		if (!is_name_start(v[name]) ||
		    (v[end] != '}' && strncmp(v + end, ":-", 2) != 0)) {
			fclose(f);
			free(out);
			return perr(p, at,
				    "expected ${NAME} or ${NAME:-DEFAULT} "
				    "(NAME: letters, digits and _; $$ for a "
				    "$)");
		}
		if (v[end] == ':') {
			def = end + 2;
			end = def;
			while (v[end] != '\0' && v[end] != '}')
				end++;
			if (v[end] != '}') {
				fclose(f);
				free(out);
				return perr(p, at, "\"${\" without its \"}\"");
			}
		}
		((char *)v)[name + (def ? def - 2 - name : end - name)] = '\0';
		val = getenv(v + name);
		if (val == NULL || (def != 0 && val[0] == '\0')) {
			if (def == 0) {
				fclose(f);
				free(out);
				return perr(
					p, at,
					"environment variable %s is not "
					"set (${%s:-DEFAULT} gives a "
					"default)",
					wm_ini_quote(q, sizeof(q), v + name),
					v + name);
			}
			fwrite(v + def, 1, end - def, f);
		} else {
			fputs(val, f);
		}
		i = end + 1;
	}
	if (fclose(f) != 0)
		return enomem(p);
	for (size_t k = 0; k < len;) {
		size_t n = wm_utf8_seq((const unsigned char *)out + k, len - k);

		if (n == 0 ||
		    (wm_utf8_control((const unsigned char *)out + k, n) &&
		     out[k] != '\t')) {
			free(out);
			return perr(p, e->quoted ? raw - 1 : raw,
				    "the value from the environment holds a "
				    "control character or a byte that is not "
				    "UTF-8");
		}
		k += n;
	}
	if (doc_own(p->doc, out) != 0)
		return enomem(p);
	e->value = out;
	e->value_len = len;
	return 0;
}

/* "key = value" with the key at byte k0. */
static int
parse_entry(struct parser *p, size_t k0, size_t n)
{
	char *l = p->line, q[WM_INI_QUOTE_MAX];
	struct wm_ini_entry e = {.line = p->lineno};
	size_t i, k1, eq, v0, v1, close, vlen;
	int rc;

	k1 = k0;
	while (k1 < n && !is_blank(l[k1]) && l[k1] != '=')
		k1++;
	if (k1 == k0)
		return perr(p, k0, "empty key before \"=\"");
	for (i = k0; i < k1; i++) {
		if (is_key_char(l[i]))
			continue;
		if (l[i] == ':' && i > k0)
			return perr(p, i,
				    "expected \"=\" after key %s, not "
				    "\":\"",
				    quote_n(q, sizeof(q), l + k0, i - k0));
		return perr(p, i,
			    "invalid character %s in key (" KEY_CHARS_HINT ")",
			    quote_char(q, sizeof(q), p, i, n));
	}
	eq = skip_blanks(l, k1, n);
	if (eq >= n || l[eq] != '=')
		return perr(p, eq, "expected \"=\" after key %s",
			    quote_n(q, sizeof(q), l + k0, k1 - k0));
	v0 = skip_blanks(l, eq + 1, n);
	e.key_col = col_of(l, k0);
	e.value_col = col_of(l, v0);
	if (v0 < n && l[v0] == '"') {
		rc = unquote(p, v0, n, "value", &close, &vlen);
		if (rc)
			return rc;
		if (!only_comment_after(l, close + 1, n))
			return perr(p, skip_blanks(l, close + 1, n),
				    "unexpected text after quoted value");
		e.quoted = true;
		e.value = l + v0 + 1;
		e.value_len = vlen;
		l[v0 + 1 + vlen] = '\0';
	} else {
		/* A '#' after a blank starts a comment; v0 - 1 is the '='
		 * or a blank. */
		for (i = v0; i < n; i++)
			if (l[i] == '#' && is_blank(l[i - 1]))
				break;
		v1 = i;
		while (v1 > v0 && is_blank(l[v1 - 1]))
			v1--;
		e.value = l + v0;
		e.value_len = v1 - v0;
		l[v1] = '\0'; /* l[n] is '\r', '\n' or the final NUL */
	}
	l[k1] = '\0';
	e.key = l + k0;
	rc = expand_env(p, &e, e.quoted ? v0 + 1 : v0);
	if (rc)
		return rc;
	return add_entry(p, &e, k0);
}

static int
parse_line(struct parser *p, size_t n)
{
	char *l = p->line;
	size_t i = skip_blanks(l, 0, n);

	if (i == n || l[i] == '#' || l[i] == ';')
		return 0;
	if (l[i] == '[')
		return parse_header(p, i, n);
	if (p->cur == NO_INDEX)
		return perr(p, i,
			    "text outside of any section (the file must "
			    "start with a section header such as "
			    "[job])");
	return parse_entry(p, i, n);
}

/* ------------------------------------------------------------------ */
/* Documents */

/* A copy of `s` that the document owns; NULL if out of memory. */
static char *
doc_strdup(struct wm_ini_doc *doc, const char *s)
{
	char *copy = strdup(s);

	return copy != NULL && doc_own(doc, copy) == 0 ? copy : NULL;
}

/* The section [kind name], added at the end (line 0) if the document
 * lacks it; NULL if out of memory. */
static struct wm_ini_section *
doc_section(struct wm_ini_doc *doc, const char *kind, const char *name)
{
	struct wm_ini_section *s = wm_ini_section_find(doc, kind, name);

	if (s != NULL)
		return s;
	if (doc->n_sections == doc->cap_sections) {
		size_t cap = doc->cap_sections ? doc->cap_sections * 2 : 8;

		s = realloc(doc->sections, cap * sizeof(*s));
		if (s == NULL)
			return NULL;
		doc->sections = s;
		doc->cap_sections = cap;
		/* The sections moved: their entries point at them. */
		for (size_t i = 0; i < doc->n_sections; i++)
			for (size_t k = 0; k < s[i].n_entries; k++)
				s[i].entries[k].section = &s[i];
	}
	s = &doc->sections[doc->n_sections];
	*s = (struct wm_ini_section){.kind = doc_strdup(doc, kind),
				     .name = name ? doc_strdup(doc, name)
						  : NULL};
	if (s->kind == NULL || (name != NULL && s->name == NULL))
		return NULL;
	doc->n_sections++;
	return s;
}

int
wm_ini_set(struct wm_ini_doc *doc, const char *kind, const char *name,
	   const char *key, const char *value, const char *origin)
{
	struct wm_ini_section *s = doc_section(doc, kind, name);
	struct wm_ini_entry *e = NULL;
	const char *v;

	if (s == NULL)
		return -ENOMEM;
	for (size_t k = 0; k < s->n_entries; k++) {
		if (strcmp(s->entries[k].key, key) != 0)
			continue;
		if (e != NULL)
			return -EEXIST;
		e = &s->entries[k];
	}
	v = doc_strdup(doc, value);
	if (v == NULL)
		return -ENOMEM;
	if (e == NULL) {
		const char *k = doc_strdup(doc, key);

		if (k == NULL)
			return -ENOMEM;
		if (s->n_entries == s->cap_entries) {
			size_t cap = s->cap_entries ? s->cap_entries * 2 : 8;
			struct wm_ini_entry *es =
				realloc(s->entries, cap * sizeof(*es));

			if (es == NULL)
				return -ENOMEM;
			s->entries = es;
			s->cap_entries = cap;
		}
		e = &s->entries[s->n_entries++];
		*e = (struct wm_ini_entry){.key = k, .section = s};
	}
	e->value = v;
	e->value_len = strlen(v);
	e->quoted = false;
	e->origin = origin;
	return 0;
}

void
wm_ini_free(struct wm_ini_doc *doc)
{
	size_t i;

	if (doc == NULL)
		return;
	for (i = 0; i < doc->n_owned; i++)
		free(doc->owned[i]);
	free(doc->owned);
	for (i = 0; i < doc->n_sections; i++)
		free(doc->sections[i].entries);
	free(doc->sections);
	free(doc->text);
	free((char *)doc->file);
	free(doc);
}

/* Parse `text` (len bytes plus a NUL; taken over, freed on failure). */
static int
parse_text(char *text, size_t len, const char *name,
	   const struct wm_ini_options *opts, struct wm_ini_doc **docp,
	   struct wm_ini_error *err)
{
	struct parser p = {
		.name = name,
		.opts = opts,
		.err = err,
		.cur = NO_INDEX,
	};
	struct wm_ini_doc *doc;
	size_t pos = 0, end, n, i, j;
	char *nl;
	int rc = 0;

	doc = calloc(1, sizeof(*doc));
	if (doc == NULL || (doc->file = strdup(name)) == NULL) {
		free(doc);
		free(text);
		return enomem(&p);
	}
	doc->text = text;
	p.doc = doc;
	section_table_init(&p.secs);
	key_table_init(&p.keys);
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		pos = 3;
	while (pos < len && rc == 0) {
		p.lineno++;
		p.line = text + pos;
		nl = memchr(text + pos, '\n', len - pos);
		end = nl ? (size_t)(nl - text) : len;
		n = end - pos;
		if (n > 0 && p.line[n - 1] == '\r')
			n--;
		rc = check_text(&p, n);
		if (rc == 0)
			rc = parse_line(&p, n);
		pos = end + 1;
	}
	section_table_destroy(&p.secs);
	key_table_destroy(&p.keys);
	if (rc) {
		wm_ini_free(doc);
		return rc;
	}
	for (i = 0; i < doc->n_sections; i++)
		for (j = 0; j < doc->sections[i].n_entries; j++)
			doc->sections[i].entries[j].section = &doc->sections[i];
	*docp = doc;
	return 0;
}

int
wm_ini_parse_buffer(const char *buf, size_t len, const char *name,
		    const struct wm_ini_options *opts, struct wm_ini_doc **docp,
		    struct wm_ini_error *err)
{
	char *text;

	*docp = NULL;
	if (name == NULL)
		name = "(input)";
	if (len > WM_INI_MAX_SIZE) {
		wm_ini_error_set(err, name, 0, 0, "input is larger than %u MiB",
				 WM_INI_MAX_SIZE >> 20);
		return -EFBIG;
	}
	text = malloc(len + 1);
	if (text == NULL) {
		wm_ini_error_set(err, name, 0, 0, "out of memory");
		return -ENOMEM;
	}
	if (len > 0)
		memcpy(text, buf, len);
	text[len] = '\0';
	return parse_text(text, len, name, opts, docp, err);
}

int
wm_ini_read_file(const char *path, char **textp, size_t *lenp,
		 struct wm_ini_error *err)
{
	struct stat st;
	size_t cap = 65536, len = 0;
	char *text = NULL, *t;
	ssize_t got;
	int fd, e;

	*textp = NULL;
	*lenp = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		wm_ini_error_set(err, path, 0, 0, "could not open file: %s",
				 strerror(e));
		return -e;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size < (off_t)WM_INI_MAX_SIZE)
		cap = (size_t)st.st_size + 2; /* + 1 to see EOF, + 1 NUL */
	for (;;) {
		if (len + 1 >= cap) {
			cap *= 2;
			t = realloc(text, cap);
			if (t == NULL) {
				e = ENOMEM;
				goto fail;
			}
			text = t;
		} else if (text == NULL && (text = malloc(cap)) == NULL) {
			e = ENOMEM;
			goto fail;
		}
		got = read(fd, text + len, cap - 1 - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			e = errno;
			goto fail;
		}
		if (got == 0)
			break;
		len += (size_t)got;
		if (len > WM_INI_MAX_SIZE) {
			e = EFBIG;
			goto fail;
		}
	}
	close(fd);
	text[len] = '\0';
	*textp = text;
	*lenp = len;
	return 0;

fail:
	close(fd);
	free(text);
	if (e == EFBIG)
		wm_ini_error_set(err, path, 0, 0, "file is larger than %u MiB",
				 WM_INI_MAX_SIZE >> 20);
	else if (e == ENOMEM)
		wm_ini_error_set(err, path, 0, 0, "out of memory");
	else
		wm_ini_error_set(err, path, 0, 0, "could not read file: %s",
				 strerror(e));
	return -e;
}

int
wm_ini_parse_file(const char *path, const struct wm_ini_options *opts,
		  struct wm_ini_doc **docp, struct wm_ini_error *err)
{
	size_t len;
	char *text;
	int r = wm_ini_read_file(path, &text, &len, err);

	*docp = NULL;
	if (r != 0)
		return r;
	return parse_text(text, len, path, opts, docp, err);
}

/* ------------------------------------------------------------------ */
/* Lookups */

struct wm_ini_section *
wm_ini_section_find(const struct wm_ini_doc *doc, const char *kind,
		    const char *name)
{
	size_t i;

	for (i = 0; i < doc->n_sections; i++)
		if (strcmp(doc->sections[i].kind, kind) == 0 &&
		    same_name(doc->sections[i].name, name))
			return &doc->sections[i];
	return NULL;
}

static struct wm_ini_entry *
find_from(struct wm_ini_section *sec, size_t from, const char *key)
{
	size_t i;

	for (i = from; i < sec->n_entries; i++) {
		if (strcmp(sec->entries[i].key, key) == 0) {
			sec->entries[i].used = true;
			return &sec->entries[i];
		}
	}
	return NULL;
}

struct wm_ini_entry *
wm_ini_get(struct wm_ini_section *sec, const char *key)
{
	if (sec == NULL)
		return NULL;
	return find_from(sec, 0, key);
}

struct wm_ini_entry *
wm_ini_get_next(struct wm_ini_section *sec, const struct wm_ini_entry *prev)
{
	if (sec == NULL || prev == NULL || prev < sec->entries ||
	    prev >= sec->entries + sec->n_entries)
		return NULL;
	return find_from(sec, (size_t)(prev - sec->entries) + 1, prev->key);
}

bool
wm_ini_first_unused(const struct wm_ini_doc *doc,
		    const struct wm_ini_entry **entry)
{
	size_t i, j;

	for (i = 0; i < doc->n_sections; i++) {
		for (j = 0; j < doc->sections[i].n_entries; j++) {
			if (!doc->sections[i].entries[j].used) {
				*entry = &doc->sections[i].entries[j];
				return true;
			}
		}
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* Did you mean */

/* Optimal string alignment distance (Damerau-Levenshtein without
 * editing a substring twice); both lengths at most SUGGEST_MAX. */
static size_t
osa_distance(const char *a, size_t la, const char *b, size_t lb)
{
	size_t d[3][SUGGEST_MAX + 1];
	size_t i, j, v, *cur, *prev, *prev2;

	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		cur = d[i % 3];
		prev = d[(i - 1) % 3];
		prev2 = d[(i + 1) % 3]; /* row i - 2 */
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			v = prev[j - 1] + (a[i - 1] != b[j - 1]);
			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < v)
				v = prev2[j - 2] + 1;
			cur[j] = v;
		}
	}
	return d[la % 3][lb];
}

const char *
wm_ini_suggest(const char *word, const char *const *candidates, size_t n)
{
	size_t lw = strlen(word), lc, dist, best_dist = SIZE_MAX, i;
	const char *best = NULL;

	if (lw < 3 || lw > SUGGEST_MAX)
		return NULL;
	for (i = 0; i < n; i++) {
		if (candidates[i] == NULL)
			continue;
		lc = strlen(candidates[i]);
		if (lc > SUGGEST_MAX)
			continue;
		dist = osa_distance(word, lw, candidates[i], lc);
		if (dist < best_dist) {
			best_dist = dist;
			best = candidates[i];
		}
	}
	return best_dist <= lw / 3 ? best : NULL;
}
