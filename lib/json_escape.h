/*
 * json_escape.h
 *	The inside of a JSON string, written by hand into a caller's buffer:
 *	for the line writers on a hot path, where a document built through
 *	jansson (lib/json_out.h) costs several times the writing.
 *
 * The text is what wm_json_text() makes jansson write, so that a string
 * reads the same whichever way it went out: '"' and '\' escaped, the
 * control characters below U+0020 as \b \f \n \r \t or \u00XX,
 * well-formed UTF-8 as it is (base/utf8.h decides), and each byte that is
 * not as the four characters \xNN (lower-case hex, the backslash itself
 * escaped), as wmrun's messages show such a byte. A string of n bytes
 * takes at most WM_JSON_ESCAPE_MAX(n) bytes; nothing is NUL-terminated.
 */
#ifndef WM_LIB_JSON_ESCAPE_H
#define WM_LIB_JSON_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/utf8.h"

/* The most bytes n bytes of text become: 6 a byte, for \u00XX. */
#define WM_JSON_ESCAPE_MAX(n) ((n)*6)

/* Whether none of the 8 bytes of x needs more than a copy: each is
 * printable ASCII other than '"' and '\'. Per byte b, with the high bit
 * clear, (b - k) & ~b has its high bit set exactly when b < k (so b ^ q
 * < 1 is b == q), and no borrow crosses into the next byte unless one
 * of these already tells. */
static inline int
wm_json_escape_plain8(uint64_t x)
{
	const uint64_t ones = UINT64_C(0x0101010101010101);
	const uint64_t highs = UINT64_C(0x8080808080808080);
	uint64_t quote = x ^ (ones * '"'), backslash = x ^ (ones * '\\');
	uint64_t special = (x - ones * 0x20) & ~x;

	special |= (quote - ones) & ~quote;
	special |= (backslash - ones) & ~backslash;
	return ((special | x) & highs) == 0;
}

/* s[0..n) escaped at p, without the quotes; returns the end. Eight bytes
 * at a time while they need no escape (the text of letters and spaces
 * the hot paths write), one at a time around those that do. */
static inline char *
wm_json_escape(char *p, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		unsigned char c = u[i];
		size_t k;
		uint64_t x;

		if (n - i >= 8) {
			memcpy(&x, u + i, 8);
			if (wm_json_escape_plain8(x)) {
				memcpy(p, &x, 8);
				p += 8;
				i += 8;
				continue;
			}
		}
		/* The common case first: printable ASCII, no quote. */
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			*p++ = (char)c;
			i++;
			continue;
		}
		if (c >= 0x80) {
			k = wm_utf8_seq(u + i, n - i);
			if (k > 0) {
				memcpy(p, u + i, k);
				p += k;
				i += k;
				continue;
			}
			memcpy(p, "\\\\x", 3);
			p[3] = hex[c >> 4];
			p[4] = hex[c & 0xf];
			p += 5;
			i++;
			continue;
		}
		*p++ = '\\';
		switch (c) {
		case '"':
		case '\\':
			*p++ = (char)c;
			break;
		case '\b':
			*p++ = 'b';
			break;
		case '\f':
			*p++ = 'f';
			break;
		case '\n':
			*p++ = 'n';
			break;
		case '\r':
			*p++ = 'r';
			break;
		case '\t':
			*p++ = 't';
			break;
		default:
			memcpy(p, "u00", 3);
			p[3] = hex[c >> 4];
			p[4] = hex[c & 0xf];
			p += 5;
			break;
		}
		i++;
	}
	return p;
}

#endif /* WM_LIB_JSON_ESCAPE_H */
