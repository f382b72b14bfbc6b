/*
 * utf8.h
 *	Well-formed UTF-8, as the readers of input and the messages that
 *	quote it decide it: one definition, so that what a reader accepts is
 *	what a message shows as it is.
 */
#ifndef WM_BASE_UTF8_H
#define WM_BASE_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Length of the well-formed UTF-8 sequence at s (at most n bytes
 * available, n >= 1), or 0 if it is not one: overlong forms, surrogates
 * and code points above U+10FFFF are refused. Reads no byte after the
 * first bad one, so a NUL-terminated string may pass n = SIZE_MAX.
 */
static inline size_t
wm_utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (c < 0x80)
		return 1;
	if (c < 0xc2 || c > 0xf4)
		return 0;
	if (c < 0xe0) {
		len = 2;
	} else if (c < 0xf0) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	}
	if (n < 2 || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (i >= n || (s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* Whether the character at s, a well-formed sequence of `len` bytes
 * (wm_utf8_seq()), is a control character: C0, DEL or C1 (U+0080 to
 * U+009F, which some terminals obey as C0's ESC sequences: U+009B is
 * CSI). */
static inline bool
wm_utf8_control(const unsigned char *s, size_t len)
{
	return (len == 1 && (s[0] < 0x20 || s[0] == 0x7f)) ||
	       (len == 2 && s[0] == 0xc2 && s[1] < 0xa0);
}

/* The code point of the well-formed sequence of `len` bytes at s
 * (wm_utf8_seq()). */
static inline unsigned long
wm_utf8_decode(const unsigned char *s, size_t len)
{
	static const unsigned char lead_bits[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
	unsigned long cp = s[0] & lead_bits[len];

	for (size_t i = 1; i < len; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	return cp;
}

#endif /* WM_BASE_UTF8_H */
