/*
 * json_out.c
 *	JSON written through jansson: text of any bytes, rounded figures,
 *	counts, and a document as a line (json_out.h).
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "lib/json_out.h"

/* Each byte that is not UTF-8 becomes "\xNN": at most four bytes a byte. */
#define SHOWN_BYTE_MAX 4

json_t *
wm_json_textn(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, k = 0, o = 0;
	char *shown;
	json_t *text;

	while (i < len && (k = wm_utf8_seq(u + i, len - i)) > 0)
		i += k;
	/* Well-formed by the rule jansson's dump checks again: its own
	 * check at construction would be a second pass. */
	if (i == len)
		return json_stringn_nocheck(s, len);
	if (len > (SIZE_MAX - 1) / SHOWN_BYTE_MAX)
		return NULL;
	shown = malloc(len * SHOWN_BYTE_MAX + 1);
	if (shown == NULL)
		return NULL;
	for (i = 0; i < len; i += k) {
		k = wm_utf8_seq(u + i, len - i);
		if (k == 0) {
			o += (size_t)snprintf(shown + o, SHOWN_BYTE_MAX + 1,
					      "\\x%02x", u[i]);
			k = 1;
			continue;
		}
		for (size_t b = 0; b < k; b++)
			shown[o++] = s[i + b];
	}
	text = json_stringn_nocheck(shown, o);
	free(shown);
	return text;
}

json_t *
wm_json_text(const char *s)
{
	return wm_json_textn(s, strlen(s));
}

json_t *
wm_json_fixed(double v, int decimals)
{
	char text[400]; /* "%.15f" of DBL_MAX: 309 digits, 16 more */
	int n;

	if (!isfinite(v))
		return json_null();
	if (decimals < 0)
		decimals = 0;
	else if (decimals > 15)
		decimals = 15;
	/* printf's rounding of the exact binary value, which v * 10^N and
	 * round() would not repeat (0.25 is "0.2" to one place). The text
	 * read back is the double nearest that figure; printed to 15
	 * significant digits (DBL_DIG) it reads as the figure again. */
	n = snprintf(text, sizeof(text), "%.*f", decimals, v);
	if (n < 0 || (size_t)n >= sizeof(text))
		return json_real(v);
	return json_real(strtod(text, NULL));
}

json_t *
wm_json_u64(uint64_t v)
{
	if (v > (uint64_t)INT64_MAX)
		return json_real((double)v);
	return json_integer((json_int_t)v);
}

/* A line as jansson's dump hands it over, piece by piece (a name, a
 * number, a comma): gathered here and written with one fwrite(), where
 * json_dumpf() makes a locked fwrite() of each piece (a quarter of a
 * --metrics line's instructions, doc/performance.md section 9.36). Most
 * lines fit `room`; a longer one moves to the heap. */
struct gathered_line {
	char *text;
	size_t len, cap;
	char room[4096];
};

static int
gather(const char *piece, size_t size, void *data)
{
	struct gathered_line *l = data;

	if (size > l->cap - l->len) {
		size_t cap = l->cap;
		char *grown;

		while (size > cap - l->len)
			if (cap > SIZE_MAX / 2)
				return -1;
			else
				cap *= 2;
		grown = l->text == l->room ? malloc(cap)
					   : realloc(l->text, cap);
		if (grown == NULL)
			return -1; /* the dump fails: out of memory */
		if (l->text == l->room)
			memcpy(grown, l->room, l->len);
		l->text = grown;
		l->cap = cap;
	}
	memcpy(l->text + l->len, piece, size);
	l->len += size;
	return 0;
}

int
wm_json_write_line(FILE *f, const json_t *value)
{
	struct gathered_line l = {.cap = sizeof(l.room)};
	int r = -1;

	l.text = l.room;
	if (json_dump_callback(value, gather, &l, WM_JSON_DUMP_FLAGS) == 0 &&
	    gather("\n", 1, &l) == 0 && fwrite(l.text, l.len, 1, f) == 1)
		r = 0;
	if (l.text != l.room)
		free(l.text);
	return r;
}
