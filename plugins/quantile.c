/*
 * quantile.c
 *	An example plugin (wmrun/plugin.h): the quantile of a window's
 *	values, an aggregate the built-in count, sum, min, max and avg
 *	cannot give.
 *
 *	aggregates = count, plugin:quantile(0.99)
 *
 * quantile(Q), 0 < Q <= 1: the nearest-rank quantile of the values the
 * window took, the smallest value v such that at least Q of them are
 * <= v (quantile(0.5) is the lower median, quantile(1) the max). An
 * exact quantile needs every value, so the accumulator keeps them all:
 * 8 bytes a record, which is what a window of this aggregate costs
 * beyond the built-in ones. Sessions merge by concatenation. The
 * snapshot is the values, little-endian, whatever the machine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wmrun/plugin.h"

struct quantile {
	double q;
	/* Sorted copies of the values for result(), kept between calls. */
	int64_t *sorted;
	size_t sorted_cap;
};

struct values {
	int64_t *v;
	size_t n, cap;
};

static void *
create(const char *args)
{
	struct quantile *f;
	double q;
	char end;

	if (sscanf(args, " %lf %c", &q, &end) != 1 || !(q > 0.0 && q <= 1.0))
		return NULL;
	f = calloc(1, sizeof(*f));
	if (f != NULL)
		f->q = q;
	return f;
}

static void
destroy(void *function)
{
	struct quantile *f = function;

	free(f->sorted);
	free(f);
}

static void *
create_accumulator(void *function)
{
	(void)function;
	return calloc(1, sizeof(struct values));
}

static void
destroy_accumulator(void *function, void *accumulator)
{
	struct values *a = accumulator;

	(void)function;
	free(a->v);
	free(a);
}

/* Room for `more` values: add() and merge() cannot fail, so a plugin
 * without memory stops here, and wmrun reports the worker's death. */
static void
reserve(struct values *a, size_t more)
{
	size_t cap = a->cap != 0 ? a->cap : 16;
	int64_t *v;

	if (a->n + more <= a->cap)
		return;
	while (cap < a->n + more)
		cap *= 2;
	v = realloc(a->v, cap * sizeof(*v));
	if (v == NULL)
		abort();
	a->v = v;
	a->cap = cap;
}

static void
add(void *function, void *accumulator, int64_t value, int64_t timestamp)
{
	struct values *a = accumulator;

	(void)function;
	(void)timestamp;
	reserve(a, 1);
	a->v[a->n++] = value;
}

static void
merge(void *function, void *into, const void *from)
{
	struct values *a = into;
	const struct values *b = from;

	(void)function;
	reserve(a, b->n);
	memcpy(a->v + a->n, b->v, b->n * sizeof(*b->v));
	a->n += b->n;
}

static int
compare(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

static union wmrun_value
result(void *function, const void *accumulator)
{
	struct quantile *f = function;
	const struct values *a = accumulator;
	union wmrun_value r = {.as_long = 0};
	size_t rank;

	if (a->n == 0)
		return r; /* wmrun never asks: a window fires with contents */
	if (f->sorted_cap < a->n) {
		int64_t *s = realloc(f->sorted, a->n * sizeof(*s));

		if (s == NULL)
			abort();
		f->sorted = s;
		f->sorted_cap = a->n;
	}
	memcpy(f->sorted, a->v, a->n * sizeof(*a->v));
	qsort(f->sorted, a->n, sizeof(*f->sorted), compare);
	/* The nearest rank: ceil(q n), 1-based; q n computed in double is
	 * exact for any window of fewer than 2^53 values and a q with few
	 * digits, and clamped against rounding up past n. */
	rank = (size_t)(f->q * (double)a->n);
	if ((double)rank < f->q * (double)a->n)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > a->n)
		rank = a->n;
	r.as_long = f->sorted[rank - 1];
	return r;
}

static size_t
snapshot(void *function, const void *accumulator, unsigned char *buf,
	 size_t size)
{
	const struct values *a = accumulator;
	size_t len = a->n * 8;

	(void)function;
	if (len > size)
		return len;
	for (size_t i = 0; i < a->n; i++)
		for (unsigned b = 0; b < 8; b++)
			buf[8 * i + b] =
				(unsigned char)((uint64_t)a->v[i] >> (8 * b));
	return len;
}

static void *
restore(void *function, const unsigned char *bytes, size_t len)
{
	struct values *a;

	if (len % 8 != 0 || len == 0)
		return NULL;
	a = create_accumulator(function);
	if (a == NULL)
		return NULL;
	a->v = malloc(len);
	if (a->v == NULL) {
		free(a);
		return NULL;
	}
	a->n = a->cap = len / 8;
	for (size_t i = 0; i < a->n; i++) {
		uint64_t u = 0;

		for (unsigned b = 0; b < 8; b++)
			u |= (uint64_t)bytes[8 * i + b] << (8 * b);
		a->v[i] = (int64_t)u;
	}
	return a;
}

static const struct wmrun_aggregate_function aggregates[] = {
	{"quantile", WMRUN_RESULT_LONG, create, destroy, create_accumulator,
	 destroy_accumulator, add, merge, result, snapshot, restore},
};

WMRUN_PLUGIN_DEFINE_AGGREGATES(aggregates)
