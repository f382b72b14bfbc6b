/*
 * json_out.h
 *	What wmrun writes as JSON (the --summary file, the --metrics lines)
 *	built as jansson values and written by jansson's dump, with the few
 *	helpers that jansson leaves to its caller: text of any bytes, figures
 *	rounded as people read them, counts beyond json_int_t, and members set
 *	with allocation failure carried to the end.
 *
 * The text of a document is compact: no space after ':' or ',', members
 * in the order they were set, non-ASCII UTF-8 as it is (no \u escapes for
 * it), '"', '\' and the control characters below U+0020 escaped as jansson
 * escapes them (\" \\ \b \f \n \r \t, the others \u00XX).
 *
 * Allocation failure: every constructor here returns NULL for it, and
 * wm_json_put() and wm_json_push() take a NULL object or value and fail,
 * so that a builder sets every member, adds up the failures, and gives up
 * once at the end:
 *
 *	json_t *o = json_object();
 *	int failed = wm_json_put(o, "records", wm_json_u64(n));
 *
 *	failed |= wm_json_put(o, "job", wm_json_text(name));
 *	return wm_json_done(o, failed);	(NULL: the caller's ENOMEM)
 */
#ifndef WM_LIB_JSON_OUT_H
#define WM_LIB_JSON_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/*
 * The flags of every dump: compact; members in insertion order (jansson
 * keeps it always since 2.11, configure asks for 2.14: the flag says so
 * for the reader); UTF-8 left as it is (no JSON_ENSURE_ASCII); and reals
 * to 15 significant digits, which prints a figure wm_json_fixed() rounded
 * as printf's "%.Nf" rounds it, but for the trailing zeros of N > 1 (see
 * there). No document here holds a real of any other kind.
 */
#define WM_JSON_DUMP_FLAGS                                                     \
	(JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

/*
 * A JSON string of the bytes of `s` (NUL-terminated), or of `len` bytes
 * at `s`, whatever they are: well-formed UTF-8 as it is (base/utf8.h
 * decides, as jansson does), each byte that is not written as the four
 * characters \xNN (lower-case hex), as wmrun's messages show such a byte
 * (base/log.h), so that the document stays valid JSON, which jansson
 * would otherwise refuse to write at all. NULL: out of memory.
 */
json_t *wm_json_text(const char *s);
json_t *wm_json_textn(const char *s, size_t len);

/*
 * `v` rounded to `decimals` places (0 to 15) as printf's "%.*f" rounds
 * it, as a JSON real whose dump under WM_JSON_DUMP_FLAGS is that figure:
 * for |v| < 10^(15 - decimals), "%.*f"'s text less the zeros that end its
 * fraction, one kept ("12.50" is written 12.5, "3.00" 3.0); beyond that,
 * 15 significant digits. null for a value that is no number (NaN, an
 * infinity), which JSON has no text for. NULL: out of memory.
 */
json_t *wm_json_fixed(double v, int decimals);

/* A count as a JSON integer. json_int_t is signed: a count above
 * INT64_MAX (2^63 records, 292 years at a billion a second) is written as
 * the nearest real to 15 digits rather than as a negative number. NULL:
 * out of memory. */
json_t *wm_json_u64(uint64_t v);

/* Member `key` (ASCII, the caller's literal) of object `obj` set to
 * `value`, which it takes whatever happens: 0, or -1 when obj or value is
 * NULL (an allocation before failed) or the set could not allocate. */
static inline int
wm_json_put(json_t *obj, const char *key, json_t *value)
{
	return json_object_set_new_nocheck(obj, key, value) != 0 ? -1 : 0;
}

/* `value` appended to array `array`, which takes it whatever happens: 0,
 * or -1 as wm_json_put(). */
static inline int
wm_json_push(json_t *array, json_t *value)
{
	return json_array_append_new(array, value) != 0 ? -1 : 0;
}

/* A builder's end: `value`, whole, when nothing `failed` (0); else NULL,
 * and `value` freed with whatever it held. */
static inline json_t *
wm_json_done(json_t *value, int failed)
{
	if (failed == 0)
		return value;
	json_decref(value);
	return NULL;
}

/* `value` (an object or an array) and a '\n' written to `f`: 0, or -1
 * when the dump could not allocate or `f` refused a write (ferror(f)
 * then says so). */
int wm_json_write_line(FILE *f, const json_t *value);

#endif /* WM_LIB_JSON_OUT_H */
