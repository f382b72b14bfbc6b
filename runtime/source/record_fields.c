/*
 * record_fields.c
 *	Parsing a record's fields from a line of CSV or JSON
 *	(record_fields.h), for replayed traces and Kafka values alike.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/record.h"
#include "lib/units.h"
#include "runtime/io/keys.h"
#include "base/log.h"
#include "runtime/conf/ini.h"
#include "lib/json_arena.h"
#include "runtime/source/record_fields.h"

/* Enough of a bad field or of trailing text to recognise it in the
 * message; the line number tells where the rest is. */
#define QUOTED_MAX 40

int
wm_fields_refuse(char *err, size_t errlen, const char *what, const char *text,
		 size_t len, const char *detail)
{
	char shown[QUOTED_MAX * 4 + 1];

	/* The text is input: escaped for the terminal it is shown on. */
	wm_log_escape(shown, sizeof(shown), text,
		      len < QUOTED_MAX ? len : QUOTED_MAX);
	snprintf(err, errlen, "invalid %s \"%s%s\"%s", what, shown,
		 len > QUOTED_MAX ? "..." : "", detail);
	return -1;
}

/* The closing quote of a CSV field whose text starts at s ("" is a quote
 * inside it), or NULL. */
static const char *
csv_quote_end(const char *s, const char *end)
{
	for (; s < end; s++) {
		if (*s != '"')
			continue;
		if (s + 1 < end && s[1] == '"')
			s++;
		else
			return s;
	}
	return NULL;
}

/*
 * jansson's flags for a line: a member given twice is refused wherever it
 * is (a field given twice has no one value, and a name repeated in an
 * object nobody reads is as likely a producer's bug); its default end
 * check stays on, so that anything but blanks after the object is
 * refused; integers stay integers (JSON_DECODE_INT_AS_REAL would round
 * those beyond 2^53).
 */
#define JSON_LINE_FLAGS JSON_REJECT_DUPLICATES

/* The largest integer every smaller one of which a double holds exactly:
 * an integral real up to it is the integer written. */
#define EXACT_REAL 9007199254740992.0 /* 2^53 */

/* A real as its shortest decimal that reads back as it (12.5, not
 * 12.500000000000000), for messages and for a key read as a string. */
static void
real_text(double d, char *out, size_t len)
{
	for (int digits = 1; digits <= 17; digits++) {
		snprintf(out, len, "%.*g", digits, d);
		if (strtod(out, NULL) == d)
			return;
	}
}

/* Why the JSON value v of `what` is refused: `what` "its text" `detail`,
 * its text as JSON writes it (a real as real_text() does), dumped into a
 * buffer rather than allocated: it is made inside the line's arena
 * (json_arena.h). Returns -1. */
static int
refuse_value(char *err, size_t errlen, const char *what, const json_t *v,
	     const char *detail)
{
	/* One byte beyond what a message shows, so that it says "...". */
	char buf[QUOTED_MAX + 1];
	size_t len;

	if (json_is_real(v)) {
		real_text(json_real_value(v), buf, sizeof(buf));
		len = strlen(buf);
	} else {
		len = json_dumpb(v, buf, sizeof(buf),
				 JSON_ENCODE_ANY | JSON_COMPACT);
		len = len < sizeof(buf) ? len : sizeof(buf);
	}
	return wm_fields_refuse(err, errlen, what, buf, len, detail);
}

/* Field i's member: at its path, else its name at the top level; NULL if
 * absent, or if a member on the way is no object. */
static const json_t *
member_of(const json_t *root, const struct wm_field_layout *lo, uint32_t i)
{
	const struct wm_json_path *path =
		lo->paths != NULL ? &lo->paths[i] : NULL;
	const char *name;

	if (path == NULL || path->n == 0)
		return json_object_get(root, lo->names[i]);
	name = path->names;
	for (uint32_t s = 0; s < path->n && root != NULL; s++) {
		root = json_object_get(root, name);
		name += strlen(name) + 1;
	}
	return root;
}

/*
 * Field i's value v as an integer into *x: a JSON integer (jansson refuses
 * one beyond 64 bits), or a real of no fraction up to 2^53 in magnitude,
 * which a double holds exactly (1700000000000.0 is 1700000000000): beyond
 * it a real is no longer the integer its producer wrote. 0, or -1 and err.
 */
static int
json_int(const json_t *v, const char *name, int64_t *x, char *err,
	 size_t errlen)
{
	double d;

	if (json_is_integer(v)) {
		*x = json_integer_value(v);
		return 0;
	}
	if (!json_is_real(v))
		return refuse_value(err, errlen, name, v,
				    " (expected an integer)");
	d = json_real_value(v);
	if (d != trunc(d))
		return refuse_value(err, errlen, name, v,
				    " (a fraction: expected an integer)");
	if (fabs(d) > EXACT_REAL)
		return refuse_value(err, errlen, name, v,
				    " (a real beyond 2^53, where reals are not "
				    "exact: write it as an integer)");
	*x = (int64_t)d;
	return 0;
}

/*
 * The key's member v into *kf, whose own buffer keeps its text (the
 * parsed object is freed before the key is resolved): a string's decoded
 * bytes, cut at a character after WM_KEYS_MAX_BYTES (a key that long is
 * refused when interned); a number's text, an integer's value too. 0, or
 * -1 and err for any other value.
 */
static int
json_key(const json_t *v, struct wm_key_field *kf, char *err, size_t errlen)
{
	const char *s;
	size_t len, n;

	*kf = (struct wm_key_field){.text = kf->own};
	if (json_is_string(v)) {
		s = json_string_value(v);
		len = json_string_length(v);
		n = len <= WM_KEYS_MAX_BYTES ? len : WM_KEYS_MAX_BYTES + 1;
		while (n < len && n < sizeof(kf->own) &&
		       ((unsigned char)s[n] & 0xc0) == 0x80)
			n++;
		memcpy(kf->own, s, n);
		kf->len = n;
		kf->form = WM_KEY_DECODED;
		return 0;
	}
	if (json_is_integer(v)) {
		kf->is_int = true;
		kf->value = json_integer_value(v);
		snprintf(kf->own, sizeof(kf->own), "%" PRId64, kf->value);
	} else if (json_is_real(v)) {
		real_text(json_real_value(v), kf->own, sizeof(kf->own));
	} else {
		return refuse_value(err, errlen, "key", v,
				    " (expected a string or an integer)");
	}
	kf->len = strlen(kf->own);
	kf->form = WM_KEY_JSON_NUMBER;
	return 0;
}

/*
 * With near_misses_refused, a member of root whose name is a near miss
 * of a field's: refused with the layout's detail. 0, or -1 and err.
 */
static int
refuse_near_misses(const json_t *root, const struct wm_field_layout *lo,
		   char *err, size_t errlen)
{
	const char *name;
	const json_t *v;

	json_object_foreach((json_t *)root, name, v)
	{
		bool named = false;

		for (uint32_t i = 0; i < lo->n && !named; i++)
			named = strcmp(lo->names[i], name) == 0;
		if (!named && wm_ini_suggest(name, lo->names, lo->n) != NULL)
			return wm_fields_refuse(err, errlen, "field", name,
						strlen(name),
						lo->unknown_detail);
	}
	return 0;
}

/*
 * The fields of the JSON object root (json_fields()): each at its place,
 * an integer but the key; a field that may be nothing may be null or
 * absent. Returns the count of fields given, or -1 and err.
 */
static int
object_fields(const json_t *root, const struct wm_field_layout *lo, int64_t *f,
	      struct wm_key_field *kf, uint64_t *given_mask, char *err,
	      size_t errlen)
{
	uint64_t seen = 0;
	int given = 0;

	if (lo->near_misses_refused &&
	    refuse_near_misses(root, lo, err, errlen) < 0)
		return -1;
	for (uint32_t i = 0; i < lo->n; i++) {
		const json_t *v = member_of(root, lo, i);
		bool absent = v == NULL || (json_is_null(v) &&
					    lo->kinds[i] == WM_FIELD_MAYBE_INT);

		if (lo->kinds[i] == WM_FIELD_SKIP)
			continue;
		if (absent && i < lo->required &&
		    lo->kinds[i] != WM_FIELD_MAYBE_INT) {
			snprintf(err, errlen, "invalid line: no %s%s%s",
				 lo->names[i],
				 lo->paths != NULL && lo->paths[i].n > 0
					 ? " at "
					 : "",
				 lo->paths != NULL && lo->paths[i].n > 0
					 ? lo->paths[i].text
					 : "");
			return -1;
		}
		if (absent)
			continue;
		if (lo->kinds[i] == WM_FIELD_KEY
			    ? json_key(v, kf, err, errlen) < 0
			    : json_int(v, lo->names[i], &f[i], err, errlen) < 0)
			return -1;
		seen |= (uint64_t)1 << i;
		given++;
	}
	*given_mask = seen;
	return given;
}

/*
 * A JSON line: exactly one object, read by jansson, whatever else it
 * holds; its fields as object_fields() reads them. A line that is no
 * JSON is refused with jansson's words (escaped: they quote the input)
 * and column.
 */
static int
parse_json(const char *line, size_t len, const struct wm_field_layout *lo,
	   int64_t *f, struct wm_key_field *kf, uint64_t *given_mask, char *err,
	   size_t errlen)
{
	char shown[sizeof(((json_error_t *)0)->text) * 4];
	json_error_t jerr;
	json_t *root;
	int given;

	/* Closed on every way out: nothing of the line's objects is kept,
	 * the key and the messages being copied out. */
	wm_json_arena_open();
	root = json_loadb(line, len, JSON_LINE_FLAGS, &jerr);
	if (root == NULL) {
		wm_json_arena_close();
		wm_log_escape(shown, sizeof(shown), jerr.text,
			      strlen(jerr.text));
		snprintf(err, errlen, "invalid JSON: %s at column %d", shown,
			 jerr.column);
		return -1;
	}
	if (!json_is_object(root)) {
		json_decref(root);
		wm_json_arena_close();
		snprintf(err, errlen, "invalid JSON: expected an object");
		return -1;
	}
	given = object_fields(root, lo, f, kf, given_mask, err, errlen);
	json_decref(root);
	wm_json_arena_close();
	return given;
}
/*
 * The unquoted CSV field at p when it is a plain integer
 * (wm_fields_plain_int()) ended by ',' or the line's end: true, its value
 * in *v and its end in *stop. Anything else, false, for the general
 * reading (wm_units_int64()) to take or refuse with its words.
 */
static inline bool
plain_int(const char *p, const char *end, int64_t *v, const char **stop)
{
	const char *q = wm_fields_plain_int(p, end, v);

	if (q == NULL || (q < end && *q != ','))
		return false;
	*stop = q;
	return true;
}

/*
 * A CSV line as nearly every line of a trace is: as many columns as the
 * layout reads (at least the required ones, no column read past), every
 * integer plain (plain_int()), the key plain or unquoted text. One loop
 * with nothing to decide but where each field ends: the field count, as
 * parse_csv() would return it, with the same fields and key. -1 for any
 * other line, which parse_csv() reads from its start, or refuses with
 * its words: this loop writes only what that reading writes again.
 */
static inline int
plain_columns(const char *line, const char *end,
	      const struct wm_field_layout *lo, int64_t *f,
	      struct wm_key_field *kf)
{
	const char *p = line, *stop;
	uint32_t n = 0;
	int64_t v = 0;

	for (;; n++) {
		enum wm_field_kind kind =
			n < lo->n ? lo->kinds[n] : WM_FIELD_SKIP;
		bool plain =
			kind != WM_FIELD_SKIP && plain_int(p, end, &v, &stop);

		if ((kind == WM_FIELD_INT || kind == WM_FIELD_MAYBE_INT) &&
		    plain) {
			f[n] = v;
		} else if (kind == WM_FIELD_KEY &&
			   (plain || p == end || *p != '"')) {
			if (!plain) {
				stop = memchr(p, ',', (size_t)(end - p));
				stop = stop != NULL ? stop : end;
			}
			*kf = (struct wm_key_field){.text = p,
						    .len = (size_t)(stop - p),
						    .col = (size_t)(p - line) +
							   1,
						    .form = WM_KEY_BARE,
						    .is_int = plain,
						    .value = v};
		} else {
			return -1;
		}
		if (stop == end)
			return n + 1 >= lo->required ? (int)n + 1 : -1;
		p = stop + 1;
	}
}

/*
 * A CSV line: the layout's columns in order. A field may be quoted as
 * RFC 4180 says ("a,""b""" is a,"b"), which only a string key needs; the
 * key is left in *kf; a field that may be nothing and is empty sets its
 * bit in *empty (and is not written). Returns the column count or -1 and
 * err.
 */
static int
parse_csv_columns(const char *line, size_t len,
		  const struct wm_field_layout *lo, int64_t *f,
		  struct wm_key_field *kf, uint64_t *empty, char *err,
		  size_t errlen)
{
	const char *p = line, *end = line + len;
	uint32_t n = 0;
	int given = plain_columns(line, end, lo, f, kf);

	if (given >= 0)
		return given;

	for (;;) {
		bool quoted = p < end && *p == '"';
		enum wm_field_kind kind =
			n < lo->n ? lo->kinds[n] : WM_FIELD_SKIP;
		const char *comma, *q = NULL, *stop;
		bool plain = false;
		size_t field_len;
		const char *bad;
		int64_t v = 0;

		if (quoted) {
			q = csv_quote_end(p + 1, end);
			if (q == NULL || (q + 1 < end && q[1] != ','))
				return wm_fields_refuse(
					err, errlen,
					n < lo->n ? lo->names[n] : "field", p,
					(size_t)(end - p),
					q == NULL ? " (no closing quote)"
						  : " (text after the closing "
						    "quote)");
			comma = q + 1 < end ? q + 1 : NULL;
		} else if (kind != WM_FIELD_SKIP &&
			   (plain = plain_int(p, end, &v, &stop))) {
			comma = stop < end ? stop : NULL;
		} else {
			comma = memchr(p, ',', (size_t)(end - p));
		}
		field_len = (size_t)((comma ? comma : end) - p);
		if (n == lo->n)
			return wm_fields_refuse(err, errlen,
						"line: extra field", p,
						field_len, "");
		if (kind == WM_FIELD_KEY) {
			*kf = (struct wm_key_field){
				.text = quoted ? p + 1 : p,
				.len = quoted ? field_len - 2 : field_len,
				.col = (size_t)(p - line) + 1,
				.form = quoted ? WM_KEY_CSV_QUOTED
					       : WM_KEY_BARE,
				.is_int = plain,
				.value = v};
		} else if (kind == WM_FIELD_MAYBE_INT && field_len == 0) {
			*empty |= (uint64_t)1 << n;
		} else if ((kind == WM_FIELD_INT ||
			    kind == WM_FIELD_MAYBE_INT) &&
			   plain) {
			f[n] = v;
		} else if (kind == WM_FIELD_INT || kind == WM_FIELD_MAYBE_INT) {
			bad = wm_units_int64(p, field_len, &f[n]);
			if (bad != NULL)
				return wm_fields_refuse(err, errlen,
							lo->names[n], p,
							field_len, bad);
		}
		n++;
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	if (n < lo->required) {
		snprintf(err, errlen, "invalid line: no %s", lo->names[n]);
		return -1;
	}
	return (int)n;
}

/* parse_csv_columns(), and the fields given as a mask: the first n
 * columns but the empty ones. */
static int
parse_csv(const char *line, size_t len, const struct wm_field_layout *lo,
	  int64_t *f, struct wm_key_field *kf, uint64_t *given_mask, char *err,
	  size_t errlen)
{
	uint64_t empty = 0;
	int n = parse_csv_columns(line, len, lo, f, kf, &empty, err, errlen);

	if (n > 0)
		*given_mask = (n >= 64 ? UINT64_MAX : ((uint64_t)1 << n) - 1) &
			      ~empty;
	return n;
}

int
wm_fields_parse_no_nul(const char *line, size_t len, bool json,
		       const struct wm_field_layout *lo, int64_t *f,
		       struct wm_key_field *kf, uint64_t *given, char *err,
		       size_t errlen)
{
	uint64_t unused;

	if (given == NULL)
		given = &unused;
	*given = 0;
	return json ? parse_json(line, len, lo, f, kf, given, err, errlen)
		    : parse_csv(line, len, lo, f, kf, given, err, errlen);
}

int
wm_fields_parse(const char *line, size_t len, bool json,
		const struct wm_field_layout *lo, int64_t *f,
		struct wm_key_field *kf, uint64_t *given, char *err,
		size_t errlen)
{
	/* wm_line_read() reads past NULs; C string functions would stop there
	 * and accept "0,1000,1,1\0garbage". */
	const char *nul = memchr(line, '\0', len);

	if (nul != NULL) {
		snprintf(err, errlen, "invalid line: NUL byte at column %zu",
			 (size_t)(nul - line) + 1);
		return -1;
	}
	return wm_fields_parse_no_nul(line, len, json, lo, f, kf, given, err,
				      errlen);
}

/*
 * The bytes of a key in CSV quotes (the quotes are gone), "" as ", into
 * buf. *len may pass WM_KEYS_MAX_BYTES by one byte: too long, for the
 * dictionary to refuse.
 */
static const char *
unquote_key(const struct wm_key_field *kf, char buf[WM_KEYS_MAX_BYTES + 1],
	    size_t *len)
{
	const char *p = kf->text, *end = kf->text + kf->len;
	size_t n = 0;

	while (p < end && n <= WM_KEYS_MAX_BYTES) {
		/* The "" of CSV: the first quote is dropped. */
		if (*p == '"')
			p++;
		buf[n++] = *p++;
	}
	*len = n;
	return buf;
}

/* The key as a long: NULL and *v, or why not: "" for no integer at all
 * (a JSON string or real), else the detail of digits beyond 64 bits. */
static const char *
key_long(const struct wm_key_field *kf, int64_t *v)
{
	if (kf->is_int) {
		*v = kf->value;
		return NULL;
	}
	if (kf->form == WM_KEY_DECODED || kf->form == WM_KEY_JSON_NUMBER)
		return "";
	return wm_units_int64(kf->text, kf->len, v);
}

bool
wm_fields_key_is_integer(const struct wm_key_field *kf)
{
	int64_t v;
	const char *num = key_long(kf, &v);

	/* An integer, or digits beyond 64 bits. */
	return num == NULL || num[0] != '\0';
}

int
wm_fields_key(const struct wm_key_field *kf, enum wm_key_type type, bool stated,
	      struct wm_keys *keys, int64_t *key, uint32_t *flags, char *err,
	      size_t errlen)
{
	char buf[WM_KEYS_MAX_BYTES + 1], detail[160];
	const char *bytes = kf->text;
	size_t len = kf->len, at = 0;
	int64_t v = 0;
	int r;

	*flags = 0;
	if (type == WM_KEY_TYPE_LONG) {
		const char *num = key_long(kf, &v);

		if (num != NULL)
			return wm_fields_refuse(
				       err, errlen, "key", kf->text, kf->len,
				       num[0] != '\0' ? num
				       : stated	      ? " (key_type = long: "
							"expected a 64-bit "
							"integer)"
						      : " (expected a 64-bit "
							"integer)"),
			       -EBADMSG;
		*key = v;
		return 0;
	}
	if (kf->form == WM_KEY_CSV_QUOTED)
		bytes = unquote_key(kf, buf, &len);
	r = wm_keys_intern(keys, bytes, len, key, &at);
	if (r == -ENOMEM)
		return r;
	if (r != 0) {
		if (r == -EINVAL)
			snprintf(detail, sizeof(detail),
				 " (control character U+%04X)",
				 (unsigned char)bytes[at] == 0xc2
					 ? (unsigned char)bytes[at + 1]
					 : (unsigned char)bytes[at]);
		else if (r == -ENAMETOOLONG)
			snprintf(detail, sizeof(detail),
				 " (longer than %d bytes)", WM_KEYS_MAX_BYTES);
		else
			snprintf(detail, sizeof(detail), "%s",
				 r == -EILSEQ ? " (not valid UTF-8)"
					      : " (more than 2^32 distinct "
						"keys)");
		return wm_fields_refuse(err, errlen, "key", kf->text, kf->len,
					detail),
		       -EBADMSG;
	}
	*flags = WM_RECORD_STRING_KEY;
	return 0;
}
