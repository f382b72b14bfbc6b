/*
 * csv_field.h
 *	One field of a CSV line as RFC 4180 writes it: as it is, or quoted
 *	when it holds a comma, a double quote, CR or LF, each quote inside
 *	doubled. The one way wmrun writes text into CSV (string keys of a
 *	sink's lines, the strings of rows), and the rule Flink's side of the
 *	tests prints by, so that equal text compares equal.
 *
 * A field of n bytes takes at most WM_CSV_FIELD_MAX(n) bytes; nothing is
 * NUL-terminated. Any byte other than those four is copied as it is.
 */
#ifndef WM_LIB_CSV_FIELD_H
#define WM_LIB_CSV_FIELD_H

#include <stdbool.h>
#include <stddef.h>

/* Every byte a quote, doubled, and the two quotes around them. */
#define WM_CSV_FIELD_MAX(n) (2 * (n) + 2)

/* s[0..n) as a CSV field at p; returns the end. */
static inline char *
wm_csv_field(char *p, const char *s, size_t n)
{
	bool quote = false;

	for (size_t i = 0; i < n && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' ||
			s[i] == '\n';
	if (!quote) {
		for (size_t i = 0; i < n; i++)
			*p++ = s[i];
		return p;
	}
	*p++ = '"';
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			*p++ = '"';
		*p++ = s[i];
	}
	*p++ = '"';
	return p;
}

#endif /* WM_LIB_CSV_FIELD_H */
