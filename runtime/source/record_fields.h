/*
 * record_fields.h
 *	The fields of a record written as a line of text, CSV or JSON: the
 *	one parser of replayed traces (replay.h says what their lines look
 *	like) and of Kafka records' values (kafka_source.h), so that a value
 *	means the same in a trace and in a topic, and is refused with the
 *	same words.
 *
 * A layout names the fields in CSV column order: integers (a 64-bit
 * decimal, an optional '-' then digits, lib/units.h), the key
 * (an integer or a string, resolved by wm_fields_key() once the rest of
 * the line is known good), or columns read past. The first `required`
 * fields must be there (but those that may be nothing: a CSV column may
 * be empty, a JSON member absent or null); the rest are optional (CSV:
 * trailing columns).
 *
 * CSV: fields separated by ',', no blanks; a field may be quoted as RFC
 * 4180 says ("a,""b""" is a,"b"), which only a string key needs. More
 * columns than the layout names are an error. Read by hand, in one pass:
 * nearly every line of a trace is plain integers (plain_columns()).
 *
 * JSON: the line is exactly one object (blanks around it, nothing else),
 * read by jansson, so all of JSON: nesting, numbers of every form,
 * escapes, with its UTF-8 checked and a name given twice in any object
 * refused. Each field is the member of its name at the top level, or at
 * its path (a Kafka value's fields, lib/json_path.h); every other member
 * is read past, whatever it holds, so that a record may carry what its
 * producer put in it. A layout may refuse the near misses of its names
 * (a trace's "arival" must not go unnoticed). An integer field takes a
 * JSON integer (jansson refuses one beyond 64 bits), or a real of no
 * fraction up to 2^53 (1700000000000.0: a double holds every integer up
 * to there, and beyond it the real read may not be the integer written);
 * a fraction or a bigger real is refused, the text in the message. The
 * key is a string (its escapes decoded) or an integer.
 */
#ifndef WM_RUNTIME_SOURCE_RECORD_FIELDS_H
#define WM_RUNTIME_SOURCE_RECORD_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/json_path.h"
#include "runtime/conf/topology.h" /* enum wm_key_type */
#include "runtime/io/keys.h"	   /* WM_KEYS_MAX_BYTES */

struct wm_keys;

enum wm_field_kind {
	WM_FIELD_INT, /* a 64-bit decimal integer */
	/* An integer or nothing: an empty CSV column, a JSON null or an
	 * absent member is a field not given (the `given` mask), so that a
	 * column in the middle of a line can be left out line by line. */
	WM_FIELD_MAYBE_INT,
	WM_FIELD_KEY,  /* the key: at most one field of a layout */
	WM_FIELD_SKIP, /* a CSV column read past (not in JSON) */
};

struct wm_field_layout {
	uint32_t n;		  /* fields, at most 64 */
	const char *const *names; /* by field: JSON names, and messages */
	const enum wm_field_kind *kinds;
	/* JSON: by field, where its member is; NULL, or a path of no names,
	 * for the member names[i] at the top level. */
	const struct wm_json_path *paths;
	uint32_t required; /* the first `required` must be given */
	/* JSON: a member whose name is a near miss of a field's (by
	 * wm_ini_suggest()) is refused, the message adding unknown_detail,
	 * as " (not partition, timestamp, key, value or arrival)". */
	bool near_misses_refused;
	const char *unknown_detail;
};

/* How the key field was written: its text is resolved once the rest of
 * the line is known good (wm_fields_key()). */
enum wm_key_form {
	WM_KEY_BARE,	    /* as it is: a CSV field, a Kafka record's key */
	WM_KEY_CSV_QUOTED,  /* inside CSV quotes, "" for a quote */
	WM_KEY_DECODED,	    /* a JSON string, decoded, in `own` */
	WM_KEY_JSON_NUMBER, /* a JSON number's text, in `own` */
};

struct wm_key_field {
	const char *text; /* inside the CSV quotes, if any; or `own` */
	size_t len;
	size_t col; /* of the field (its opening quote), from 1; 0 unknown */
	enum wm_key_form form;
	/* Set when the text is an integer read on the way (`value`), by the
	 * CSV parser or as a JSON integer: not read again. Unset says
	 * nothing of CSV's text; a JSON number without it is a real. */
	bool is_int;
	int64_t value;
	/* JSON's key, copied out of the parsed object before it is freed:
	 * the longest key, and one character more, which tells a key too
	 * long from one that just fits. */
	char own[WM_KEYS_MAX_BYTES + 4];
};

/*
 * The fields of line[0..len) (its end removed) into f[] (by field; keys
 * and skipped columns left alone) and the key into *kf: CSV, or JSON when
 * json is set. Returns how many fields were given (CSV: columns; JSON:
 * fields found, null or absent ones not counted), or -1 and err ("invalid timestamp
 * \"12x\""); with `given`, which ones (bit i for field i): an optional
 * field of JSON may be given without the one before it.
 */
int wm_fields_parse(const char *line, size_t len, bool json,
		    const struct wm_field_layout *lo, int64_t *f,
		    struct wm_key_field *kf, uint64_t *given, char *err,
		    size_t errlen);

/* wm_fields_parse() of a line its reader found no NUL byte in
 * (wm_line_blocks_next()): the same, without searching it again. */
int wm_fields_parse_no_nul(const char *line, size_t len, bool json,
			   const struct wm_field_layout *lo, int64_t *f,
			   struct wm_key_field *kf, uint64_t *given, char *err,
			   size_t errlen);

/*
 * The plain integer at the front of [p, end): an optional '-', then 1 to
 * 18 digits, which cannot overflow. Returns the byte after its digits
 * (the caller says what may follow them) with its value in *v, or NULL
 * for anything else, which the general reading (wm_units_int64()) takes
 * or refuses with its words. One pass over the digits, where finding the
 * field's end first and reading the digits after would be two; a byte
 * at a time, so that the branch predictor runs ahead of a loop whose exit
 * it guesses (digits found a word at a time by masks made each field
 * wait for the one before, and took half as long again).
 */
static inline const char *
wm_fields_plain_int(const char *p, const char *end, int64_t *v)
{
	const char *s = p < end && *p == '-' ? p + 1 : p, *q;
	uint64_t x = 0;

	for (q = s; q < end; q++) {
		unsigned d = (unsigned)(unsigned char)*q - '0';

		if (d > 9)
			break;
		x = x * 10 + d; /* wraps only past 19 digits, refused below */
	}
	if (q == s || q - s > 18)
		return NULL;
	*v = s == p ? (int64_t)x : -(int64_t)x;
	return q;
}

/* Whether the key's text is an integer (or digits beyond 64 bits), and
 * so no string for a source whose keys are read as they come. */
bool wm_fields_key_is_integer(const struct wm_key_field *kf);

/*
 * The key word and record flags of a key field, read as `type` (LONG or
 * STRING): a long, or a string interned in keys. `stated`: the type was
 * stated (key_type = long), as messages say. 0; -EBADMSG with err;
 * -ENOMEM.
 */
int wm_fields_key(const struct wm_key_field *kf, enum wm_key_type type,
		  bool stated, struct wm_keys *keys, int64_t *key,
		  uint32_t *flags, char *err, size_t errlen);

/* Why text is refused: `what` "text" `detail` ("invalid timestamp
 * \"12x\""), the text cut to 40 bytes. Returns -1. */
int wm_fields_refuse(char *err, size_t errlen, const char *what,
		     const char *text, size_t len, const char *detail);

#endif /* WM_RUNTIME_SOURCE_RECORD_FIELDS_H */
