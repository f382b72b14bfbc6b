/*
 * pair_text.c
 *	A join's output as text (pair_text.h).
 */
#include "config.h"

#include <check.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "tests/unit/pair_text.h"

void
pair_text_init(struct pair_text *t, char *buf, size_t cap)
{
	t->buf = buf;
	t->cap = cap;
	t->len = 0;
}

void
pair_text_printf(struct pair_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	ck_assert(n > 0 && (size_t)n < t->cap - t->len);
	t->len += (size_t)n;
}

void
pair_text_pair(struct pair_text *t, int64_t key, wm_ts_t left_ts,
	       wm_ts_t right_ts, int64_t left_value, int64_t right_value,
	       wm_ts_t timestamp)
{
	pair_text_printf(t,
			 "P(%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
			 ",%" PRId64 "@%" PRId64 ") ",
			 key, left_ts, right_ts, left_value, right_value,
			 timestamp);
}

const char *
pair_text_take(struct pair_text *t)
{
	if (t->len > 0)
		t->len--;
	t->buf[t->len] = '\0';
	t->len = 0;
	return t->buf;
}
