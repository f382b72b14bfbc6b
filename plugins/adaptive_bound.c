/*
 * adaptive_bound.c
 *	An example plugin (wmrun/plugin.h): bounded out-of-orderness whose
 *	bound follows the disorder the partition shows.
 *
 *	watermark = plugin:adaptive_bound(MIN_MS, MAX_MS)
 *
 * Like Flink's BoundedOutOfOrdernessWatermarks it emits, at every
 * periodic tick, the newest timestamp seen less the bound less 1; but the
 * bound is how far behind the newest timestamp the partition's records
 * have come lately: the largest lag of the last 1024 records, kept
 * between MIN_MS and MAX_MS. A partition in order gets watermarks close
 * behind it; one that starts sending stragglers gets a bound that covers
 * them from then on (what it sent before a straggler is judged by the old
 * bound). Arguments out of order or negative are refused.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "wmrun/plugin.h"

#define RECENT 1024

struct adaptive {
	int64_t min_ms, max_ms;
	int64_t newest;	     /* newest timestamp; INT64_MIN: none */
	int64_t lag[RECENT]; /* the last records' lags, a ring */
	unsigned next, n;
};

static void *
create(const char *args)
{
	long long min_ms, max_ms;
	char end;
	struct adaptive *a;

	if (sscanf(args, " %lld , %lld %c", &min_ms, &max_ms, &end) != 2 ||
	    min_ms < 0 || max_ms < min_ms)
		return NULL;
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return NULL;
	a->min_ms = min_ms;
	a->max_ms = max_ms;
	a->newest = INT64_MIN;
	return a;
}

static void
on_event(void *generator, const struct wmrun_event *e,
	 struct wmrun_watermark_output *out)
{
	struct adaptive *a = generator;
	int64_t lag = a->newest > e->timestamp ? a->newest - e->timestamp : 0;

	(void)out;
	if (e->timestamp > a->newest)
		a->newest = e->timestamp;
	a->lag[a->next] = lag;
	a->next = (a->next + 1) % RECENT;
	if (a->n < RECENT)
		a->n++;
}

static void
on_periodic_emit(void *generator, int64_t now_ms,
		 struct wmrun_watermark_output *out)
{
	struct adaptive *a = generator;
	int64_t bound = a->min_ms;

	(void)now_ms;
	if (a->newest == INT64_MIN)
		return; /* nothing seen: no watermark yet */
	for (unsigned i = 0; i < a->n; i++)
		if (a->lag[i] > bound)
			bound = a->lag[i];
	if (bound > a->max_ms)
		bound = a->max_ms;
	if (a->newest >= INT64_MIN + bound + 1) /* no wrap below MIN */
		out->emit_watermark(out, a->newest - bound - 1);
}

static const struct wmrun_watermark_generator generators[] = {
	{"adaptive_bound", create, free, on_event, on_periodic_emit},
};

WMRUN_PLUGIN_DEFINE(generators)
