/*
 * record_fields.c
 *	Parsing a record's fields from a line of CSV or JSON
 *	(record_fields.h), for replayed traces and Kafka values alike.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/record.h"
#include "lib/units.h"
#include "runtime/io/keys.h"
#include "base/log.h"
#include "lib/lines.h"
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

static int
json_expected(char *err, size_t errlen, const char *what, const char *line,
	      const char *at)
{
	snprintf(err, errlen, "invalid JSON: expected %s at column %zu", what,
		 (size_t)(at - line) + 1);
	return -1;
}

/* The closing quote of a JSON string whose text starts at s, or NULL. */
static const char *
json_string_end(const char *s, const char *end)
{
	for (; s < end; s++) {
		if (*s == '\\')
			s++;
		else if (*s == '"')
			return s;
	}
	return NULL;
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

/* The field of the layout named name[0..len) (columns read past have
 * no name in JSON), or -1. */
static int
field_named(const struct wm_field_layout *lo, const char *name, size_t len)
{
	for (uint32_t i = 0; i < lo->n; i++)
		if (lo->kinds[i] != WM_FIELD_SKIP &&
		    strlen(lo->names[i]) == len &&
		    memcmp(lo->names[i], name, len) == 0)
			return (int)i;
	return -1;
}

/*
 * The value of a JSON line's member that is field i of the layout (-1:
 * a member the layout reads past), at `value`: a string (the key's, or
 * one read past), the key as a number, or a whole integer into f[i]; its
 * length in *value_len. 0, 1 for a null that leaves a field that may be
 * nothing not given, or -1 and err. Out of parse_json() so that
 * the walk over the members stays short; inline, since every field of
 * every JSON record passes here.
 */
static inline int
json_value(const char *line, const char *value, const char *end,
	   const struct wm_field_layout *lo, int i, int64_t *f,
	   struct wm_key_field *kf, size_t *value_len, char *err, size_t errlen)
{
	bool key_string = value < end && *value == '"' &&
			  (i < 0 || lo->kinds[i] == WM_FIELD_KEY);
	size_t n = 0;
	const char *bad;

	if (key_string) {
		const char *q = json_string_end(value + 1, end);

		if (q == NULL)
			return json_expected(err, errlen,
					     i < 0 ? "'\"' closing a string"
						   : "'\"' closing the key",
					     line, end);
		*kf = (struct wm_key_field){.text = value + 1,
					    .len = (size_t)(q - value - 1),
					    .col = (size_t)(value - line) + 1,
					    .form = WM_KEY_JSON_STRING};
		n = (size_t)(q + 1 - value);
	} else {
		while (value + n < end && strchr(",} \t", value[n]) == NULL)
			n++;
	}
	*value_len = n;
	if (i < 0) {
		/* a member of another name, read past */
	} else if (lo->kinds[i] == WM_FIELD_MAYBE_INT && n == 4 &&
		   memcmp(value, "null", 4) == 0) {
		return 1; /* not given */
	} else if (key_string) {
		/* *kf set above */
	} else if (lo->kinds[i] == WM_FIELD_KEY) {
		*kf = (struct wm_key_field){.text = value,
					    .len = n,
					    .col = (size_t)(value - line) + 1,
					    .form = WM_KEY_JSON_NUMBER};
	} else {
		bad = wm_units_int64(value, n, &f[i]);
		if (bad != NULL)
			return wm_fields_refuse(err, errlen, lo->names[i],
						value, n, bad);
	}
	return 0;
}

/*
 * A JSON line: one flat object whose members are the fields, in any
 * order, each a whole integer but the key, which may be a string, blanks
 * allowed around the tokens: {"partition":0,"timestamp":1000,"key":7,
 * "value":1}. Exactly that shape, not JSON at large: other strings,
 * nesting, fractions and exponents are refused, as are repeated fields,
 * unknown ones unless the layout reads them past (a typo in "arrival"
 * must not go unnoticed), and anything after the object. The key is left
 * in *kf. Returns the count of fields given, or -1 and err.
 */
static int
parse_json(const char *line, size_t len, const struct wm_field_layout *lo,
	   int64_t *f, struct wm_key_field *kf, uint64_t *given_mask, char *err,
	   size_t errlen)
{
	const char *p = line + 1, *end = line + len; /* past the '{' */
	uint64_t seen = 0, named = 0; /* given; named, null or not */
	int given = 0;

	for (;;) {
		const char *name, *name_end, *value;
		size_t value_len;
		int i, r;

		p = wm_line_skip_blanks(p, end);
		if (p == end || *p != '"')
			return json_expected(err, errlen, "a quoted field name",
					     line, p);
		name = p + 1;
		name_end = memchr(name, '"', (size_t)(end - name));
		if (name_end == NULL)
			return json_expected(err, errlen, "'\"'", line, end);
		i = field_named(lo, name, (size_t)(name_end - name));
		if ((i < 0 && !lo->others_ok) ||
		    (i >= 0 && (named >> i & 1) != 0))
			return wm_fields_refuse(err, errlen, "field", name,
						(size_t)(name_end - name),
						i < 0 ? lo->unknown_detail
						      : " (given twice)");
		p = wm_line_skip_blanks(name_end + 1, end);
		if (p == end || *p != ':')
			return json_expected(err, errlen, "':'", line, p);
		value = wm_line_skip_blanks(p + 1, end);
		r = json_value(line, value, end, lo, i, f, kf, &value_len, err,
			       errlen);
		if (r < 0)
			return -1;
		if (i >= 0)
			named |= (uint64_t)1 << i;
		if (i >= 0 && r == 0) {
			seen |= (uint64_t)1 << i;
			given++;
		}
		p = wm_line_skip_blanks(value + value_len, end);
		if (p == end || (*p != ',' && *p != '}'))
			return json_expected(err, errlen, "',' or '}'", line,
					     p);
		if (*p++ == '}')
			break;
	}
	p = wm_line_skip_blanks(p, end);
	if (p != end)
		return wm_fields_refuse(err, errlen,
					"text after the JSON object", p,
					(size_t)(end - p), "");
	for (uint32_t i = 0; i < lo->required; i++)
		if (lo->kinds[i] != WM_FIELD_SKIP &&
		    lo->kinds[i] != WM_FIELD_MAYBE_INT &&
		    (seen >> i & 1) == 0) {
			snprintf(err, errlen, "invalid line: no %s",
				 lo->names[i]);
			return -1;
		}
	*given_mask = seen;
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
	if (json && (len == 0 || line[0] != '{'))
		return json_expected(err, errlen, "'{'", line, line);
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

/* A JSON \\uXXXX escape's four hex digits at s (end bounds them): the
 * code unit, or -1. */
static long
hex4(const char *s, const char *end)
{
	long u = 0;

	if (end - s < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;

		if (d < 0)
			return -1;
		u = u * 16 + d;
	}
	return u;
}

/* Code point cp as UTF-8 at out; the bytes written. */
static size_t
put_utf8(char *out, uint32_t cp)
{
	if (cp < 0x80u) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800u) {
		out[0] = (char)(0xc0u | cp >> 6);
		out[1] = (char)(0x80u | (cp & 0x3fu));
		return 2;
	}
	if (cp < 0x10000u) {
		out[0] = (char)(0xe0u | cp >> 12);
		out[1] = (char)(0x80u | (cp >> 6 & 0x3fu));
		out[2] = (char)(0x80u | (cp & 0x3fu));
		return 3;
	}
	out[0] = (char)(0xf0u | cp >> 18);
	out[1] = (char)(0x80u | (cp >> 12 & 0x3fu));
	out[2] = (char)(0x80u | (cp >> 6 & 0x3fu));
	out[3] = (char)(0x80u | (cp & 0x3fu));
	return 4;
}

/* Room for the longest key and one more character, which tells a key
 * too long from one that just fits. */
#define KEY_BUF (WM_KEYS_MAX_BYTES + 4)

/*
 * The bytes of a quoted key (the quotes are gone): CSV's "" as ", JSON's
 * escapes decoded, a surrogate pair as one character. *len may pass
 * WM_KEYS_MAX_BYTES by one character: too long, for the dictionary to
 * refuse. NULL and why for a bad escape.
 */
static const char *
unquote_key(const struct wm_key_field *kf, char buf[KEY_BUF], size_t *len,
	    const char **why)
{
	const char *p = kf->text, *end = kf->text + kf->len;
	size_t n = 0;

	while (p < end && n <= WM_KEYS_MAX_BYTES) {
		long u, lo;

		if (kf->form == WM_KEY_CSV_QUOTED || *p != '\\') {
			/* The "" of CSV: the first quote is dropped. */
			if (kf->form == WM_KEY_CSV_QUOTED && *p == '"')
				p++;
			buf[n++] = *p++;
			continue;
		}
		if (++p == end)
			break;
		switch (*p++) {
		case '"':
			buf[n++] = '"';
			continue;
		case '\\':
			buf[n++] = '\\';
			continue;
		case '/':
			buf[n++] = '/';
			continue;
		case 'b':
			buf[n++] = '\b';
			continue;
		case 'f':
			buf[n++] = '\f';
			continue;
		case 'n':
			buf[n++] = '\n';
			continue;
		case 'r':
			buf[n++] = '\r';
			continue;
		case 't':
			buf[n++] = '\t';
			continue;
		case 'u':
			break;
		default:
			*why = " (invalid JSON escape)";
			return NULL;
		}
		u = hex4(p, end);
		if (u < 0) {
			*why = " (invalid JSON escape)";
			return NULL;
		}
		p += 4;
		if (u >= 0xd800 && u <= 0xdbff && end - p >= 6 &&
		    p[0] == '\\' && p[1] == 'u' &&
		    (lo = hex4(p + 2, end)) >= 0xdc00 && lo <= 0xdfff) {
			u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
			p += 6;
		} else if (u >= 0xd800 && u <= 0xdfff) {
			*why = " (a lone UTF-16 surrogate)";
			return NULL;
		}
		n += put_utf8(buf + n, (uint32_t)u);
	}
	if (p < end && n <= WM_KEYS_MAX_BYTES) {
		*why = " (invalid JSON escape)"; /* a final lone backslash */
		return NULL;
	}
	*len = n;
	return buf;
}

bool
wm_fields_key_is_integer(const struct wm_key_field *kf)
{
	int64_t v;
	const char *num = kf->is_int ? NULL
			  : kf->form == WM_KEY_JSON_STRING
				  ? ""
				  : wm_units_int64(kf->text, kf->len, &v);

	/* An integer, or digits beyond 64 bits. */
	return num == NULL || num[0] != '\0';
}

int
wm_fields_key(const struct wm_key_field *kf, enum wm_key_type type, bool stated,
	      struct wm_keys *keys, int64_t *key, uint32_t *flags, char *err,
	      size_t errlen)
{
	char buf[KEY_BUF], detail[160];
	const char *bytes = kf->text, *bad = "";
	size_t len = kf->len, at = 0;
	int64_t v = 0;
	int r;

	*flags = 0;
	if (type == WM_KEY_TYPE_LONG) {
		const char *num =
			kf->is_int ? NULL
			: kf->form == WM_KEY_JSON_STRING
				? ""
				: wm_units_int64(kf->text, kf->len, &v);

		if (kf->is_int)
			v = kf->value;

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
	if (kf->form == WM_KEY_CSV_QUOTED || kf->form == WM_KEY_JSON_STRING) {
		bytes = unquote_key(kf, buf, &len, &bad);
		if (bytes == NULL)
			return wm_fields_refuse(err, errlen, "key", kf->text,
						kf->len, bad),
			       -EBADMSG;
	}
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
