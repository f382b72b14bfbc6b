/*
 * pair_text.h
 *	A join's output as text, for the join operators' tests: "P(k,lts,
 *	rts,lv,rv@ts)" a pair, and whatever else a test writes beside it
 *	("W(ts)" a watermark, "L1(ts)" a late record), each followed by a
 *	blank, appended to a buffer of the caller's (also a window's
 *	results, in check_window_plugins.c). A test writes what the
 *	operator emits and what its model of Flink's algorithm would, and
 *	compares the two texts.
 */
#ifndef WM_TESTS_UNIT_PAIR_TEXT_H
#define WM_TESTS_UNIT_PAIR_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "base/time.h"

struct pair_text {
	char *buf;
	size_t cap; /* of buf */
	size_t len; /* written since the last take */
};

/* Text into buf, `cap` bytes, empty. */
void pair_text_init(struct pair_text *t, char *buf, size_t cap);

/* Append; a test fails if it does not fit. */
void pair_text_printf(struct pair_text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Append a pair. */
void pair_text_pair(struct pair_text *t, int64_t key, wm_ts_t left_ts,
		    wm_ts_t right_ts, int64_t left_value, int64_t right_value,
		    wm_ts_t timestamp);

/* What was appended since the last take, without its last blank ("" if
 * nothing): the text's own buffer, valid until it is appended to, so that
 * two texts can be compared. Empties it. */
const char *pair_text_take(struct pair_text *t);

#endif /* WM_TESTS_UNIT_PAIR_TEXT_H */
