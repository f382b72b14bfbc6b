/*
 * source_gen_conf.c
 *	A generator from its configuration: the configuration checked (see
 *	wm_source_gen_new() in source_gen.h for what is refused), copied into
 *	the generator's own arrays (in ns), and every allocation made, so
 *	that nothing allocates once records flow.
 *
 * Where each partition's clocks begin is the per-record path's to say
 * (wm_source_gen_start(), source_gen.c); this file ends by calling it.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"
#include "operators/source_gen_internal.h"

/* Partitions first..last, times in ms -> *s in ns; false if invalid
 * (see wm_source_gen_new()). */
static bool
sched_init(struct gen_sched *s, uint32_t first, uint32_t last, int64_t from_ms,
	   int64_t to_ms, int64_t period_ms, int64_t length_ms)
{
	if (first > last || from_ms < 0 || to_ms < from_ms || period_ms < 0)
		return false;
	if (period_ms > 0 && !(length_ms > 0 && length_ms < period_ms))
		return false;
	*s = (struct gen_sched){
		.first = first,
		.last = last,
		.from_ns = wm_ms_to_ns(from_ms),
		.to_ns = wm_ms_to_ns(to_ms),
		.period_ns = wm_ms_to_ns(period_ms),
		.length_ns = period_ms > 0 ? wm_ms_to_ns(length_ms) : 0,
	};
	return true;
}

void
wm_source_gen_conf_init(struct wm_source_gen_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	conf->rate = INFINITY;
	conf->keys = 1;
	conf->zipf_exponent = 1.0;
	conf->value_cycle = 1;
	conf->max_records = UINT64_MAX;
	conf->end_ts = WM_TS_MAX;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static bool
conf_valid(const struct wm_source_gen_conf *c)
{
	if (c->n_partitions > 0 && c->partitions == NULL)
		return false;
	if (!(c->rate > 0)) /* also NaN */
		return false;
	if (c->n_skew > 0 && c->skew == NULL)
		return false;
	for (uint32_t i = 0; i < c->n_skew; i++)
		if (!(c->skew[i] > 0) || !isfinite(c->skew[i]))
			return false;
	if (c->out_of_orderness_ms < 0 ||
	    c->out_of_orderness_ms > WM_SOURCE_GEN_MAX_DELAY_MS ||
	    c->late_by_ms < 0 || c->late_by_ms > WM_SOURCE_GEN_MAX_DELAY_MS)
		return false;
	if (!(c->late_fraction >= 0 && c->late_fraction <= 1))
		return false;
	if (c->keys < 1 || c->keys > (uint64_t)INT64_MAX)
		return false;
	if (c->zipf && (!(c->zipf_exponent > 0) || !isfinite(c->zipf_exponent)))
		return false;
	if (c->start_epoch_ms < -WM_SOURCE_GEN_MAX_DELAY_MS * 1000 ||
	    c->start_epoch_ms > WM_SOURCE_GEN_MAX_DELAY_MS * 1000)
		return false;
	if (c->n_silences > 0 && c->silences == NULL)
		return false;
	if (c->n_bursts > 0 && c->bursts == NULL)
		return false;
	if (c->n_outages > 0 && c->outages == NULL)
		return false;
	if (c->n_random_silences > 0 && c->random_silences == NULL)
		return false;
	for (uint32_t i = 0; i < c->n_random_silences; i++) {
		const struct wm_source_gen_random_silence *r =
			&c->random_silences[i];

		if (r->first_partition > r->last_partition ||
		    !(r->fraction > 0 && r->fraction < 1) || r->mean_ms <= 0 ||
		    r->mean_ms > WM_SOURCE_GEN_MAX_DELAY_MS)
			return false;
	}
	if (c->n_punctuations > 0 && c->punctuations == NULL)
		return false;
	for (uint32_t i = 0; i < c->n_punctuations; i++) {
		const struct wm_source_gen_punctuation *a = &c->punctuations[i];

		if (a->first_partition > a->last_partition ||
		    (a->every_records == 0) == (a->every_ms == 0) ||
		    a->every_ms < 0 ||
		    a->every_ms > WM_SOURCE_GEN_MAX_PUNCTUATE_MS)
			return false;
		/* Each partition under one rule at most. */
		for (uint32_t j = 0; j < i; j++) {
			const struct wm_source_gen_punctuation *b =
				&c->punctuations[j];

			if (a->first_partition <= b->last_partition &&
			    b->first_partition <= a->last_partition)
				return false;
		}
	}
	return true;
}

/* The punctuation that covers partition `id`, or NULL. */
static const struct wm_source_gen_punctuation *
punctuation_of(const struct wm_source_gen_conf *c, uint32_t id)
{
	for (uint32_t i = 0; i < c->n_punctuations; i++)
		if (id >= c->punctuations[i].first_partition &&
		    id <= c->punctuations[i].last_partition)
			return &c->punctuations[i];
	return NULL;
}

/* Partition ids must be distinct: sort a copy. */
static int
partitions_distinct(const struct wm_source_gen_conf *c)
{
	uint32_t *ids;
	int rc = 0;

	if (c->n_partitions < 2)
		return 0;
	ids = malloc(c->n_partitions * sizeof(*ids));
	if (ids == NULL)
		return -ENOMEM;
	memcpy(ids, c->partitions, c->n_partitions * sizeof(*ids));
	qsort(ids, c->n_partitions, sizeof(*ids), cmp_u32);
	for (uint32_t i = 1; i < c->n_partitions; i++)
		if (ids[i] == ids[i - 1])
			rc = -EINVAL;
	free(ids);
	return rc;
}

/* Whether every rate (paced) or weight (fast) that p's bursts can give it,
 * from `base` outside them, is finite and positive. */
static bool
part_rates_valid(const struct wm_source_gen *g, const struct gen_part *p,
		 double base)
{
	double highest = base, lowest = base;

	for (uint32_t i = 0; i < g->n_bursts; i++) {
		const struct gen_burst *b = &g->bursts[i];

		if (!sched_for(&b->when, p->id))
			continue;
		if (b->factor > 1)
			highest *= b->factor;
		else
			lowest *= b->factor;
	}
	return isfinite(highest) && lowest > 0;
}

/* Each partition's identity, rates and random streams from c: 0, or
 * -EINVAL if a burst would make a rate or weight zero or infinite. Their
 * clocks begin in wm_source_gen_start(). */
static int
gen_setup_parts(struct wm_source_gen *g, const struct wm_source_gen_conf *c)
{
	for (uint32_t i = 0; i < g->n_parts; i++) {
		struct gen_part *p = &g->parts[i];
		uint32_t id = c->partitions[i];
		double skew = id < c->n_skew ? c->skew[id] : 1.0;

		p->id = id;
		const struct wm_source_gen_punctuation *pu =
			punctuation_of(c, id);

		p->punctuate_every = pu != NULL ? pu->every_records : 0;
		p->punctuate_every_ms = pu != NULL ? pu->every_ms : 0;
		p->next_mark_ts = WM_TS_MIN;
		if (pu != NULL)
			g->draws.punctuate = true;
		p->rng = gen_mix64(c->seed ^ gen_mix64(wm_hash_fibonacci(id) +
						       0xd1b54a32d192ed03ull));
		p->skew = skew;
		if (!g->fast)
			p->base_rate = c->rate * skew;
		if (!part_rates_valid(g, p, g->fast ? skew : p->base_rate))
			return -EINVAL;
		/* No array without random silences: NULL + 0 is undefined
		 * (clang's UBSan says so; fuzz_snapshot found it). */
		p->rsil = g->n_rsil > 0 ? g->rsil_states + (size_t)i * g->n_rsil
					: NULL;
		for (uint32_t j = 0; j < g->n_rsil; j++) {
			/* A stream apart from the records' (see source_gen.h). */
			p->rsil[j].rng = gen_mix64(
				c->seed ^ gen_mix64(wm_hash_fibonacci(id) +
						    0x8cb92ba72f3d8dd7ull *
							    (uint64_t)(j + 1)));
		}
	}
	return 0;
}

/* The configuration's scalars into g: what to generate, and when the
 * partitions end (end_ts as processing time since the start). */
static void
gen_copy_conf(struct wm_source_gen *g, const struct wm_source_gen_conf *conf)
{
	int64_t span_ms;

	g->fast = isinf(conf->rate);
	g->bounded =
		conf->max_records != UINT64_MAX || conf->end_ts != WM_TS_MAX;
	g->n_parts = conf->n_partitions;
	g->start_epoch_ms = conf->start_epoch_ms;
	g->draws.bound_ms = conf->out_of_orderness_ms;
	g->draws.late_by_ms = conf->late_by_ms;
	g->draws.late_fraction = conf->late_fraction;
	g->draws.late = conf->late_fraction > 0 && conf->late_by_ms > 0;
	g->draws.keys = conf->keys;
	g->draws.zipf = conf->zipf && conf->keys > 1;
	g->draws.zipf_s = conf->zipf_exponent;
	g->draws.value_cycle = conf->value_cycle;
	g->max_records = conf->max_records;
	if (conf->end_ts == WM_TS_MAX)
		g->end_ns = INT64_MAX;
	else if (conf->end_ts <= conf->start_epoch_ms)
		g->end_ns = 0;
	else if (__builtin_sub_overflow(conf->end_ts, conf->start_epoch_ms,
					&span_ms))
		g->end_ns = INT64_MAX;
	else
		g->end_ns = wm_ms_to_ns(span_ms);
}

/* One silence, outage or burst window of the configuration into *s: true,
 * or false if the window is invalid (sched_init()). */
static bool
gen_sched_from(struct gen_sched *s, const struct wm_source_gen_silence *w)
{
	return sched_init(s, w->first_partition, w->last_partition, w->from_ms,
			  w->to_ms, w->period_ms, w->length_ms);
}

/* The silences, outages and bursts into g's own arrays, each checked. 0,
 * -ENOMEM or -EINVAL; what was allocated is g's to free either way. */
static int
gen_copy_schedules(struct wm_source_gen *g,
		   const struct wm_source_gen_conf *conf)
{
	g->n_silences = conf->n_silences;
	g->n_bursts = conf->n_bursts;
	if (g->n_silences > 0 &&
	    (g->silences = calloc(g->n_silences, sizeof(*g->silences))) == NULL)
		return -ENOMEM;
	if (g->n_bursts > 0 &&
	    (g->bursts = calloc(g->n_bursts, sizeof(*g->bursts))) == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < g->n_silences; i++)
		if (!gen_sched_from(&g->silences[i], &conf->silences[i]))
			return -EINVAL;
	g->n_outages = conf->n_outages;
	if (g->n_outages > 0 &&
	    (g->outages = calloc(g->n_outages, sizeof(*g->outages))) == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < g->n_outages; i++)
		if (!gen_sched_from(&g->outages[i], &conf->outages[i]))
			return -EINVAL;
	g->n_rsil = conf->n_random_silences;
	if (g->n_rsil > 0 &&
	    (g->rsil = calloc(g->n_rsil, sizeof(*g->rsil))) == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < g->n_rsil; i++) {
		const struct wm_source_gen_random_silence *r =
			&conf->random_silences[i];
		double mean_ns = (double)r->mean_ms * GEN_NS_PER_MS;

		g->rsil[i] = (struct gen_rsil){
			.first = r->first_partition,
			.last = r->last_partition,
			.fraction = r->fraction,
			.silent_ns = mean_ns,
			.loud_ns = mean_ns * (1 - r->fraction) / r->fraction,
		};
	}
	for (uint32_t i = 0; i < g->n_bursts; i++) {
		const struct wm_source_gen_burst *b = &conf->bursts[i];

		if (!sched_init(&g->bursts[i].when, b->first_partition,
				b->last_partition, b->from_ms, b->to_ms,
				b->period_ms, b->length_ms) ||
		    !(b->factor > 0) || !isfinite(b->factor))
			return -EINVAL;
		g->bursts[i].factor = b->factor;
	}
	return 0;
}

/* The partitions' array, the finishing order and room in the heaps for
 * every partition, so that nothing allocates once records flow. 0 or
 * -ENOMEM; what was allocated is g's to free either way. */
static int
gen_alloc_parts(struct wm_source_gen *g)
{
	if (g->n_parts == 0)
		return 0;
	g->parts = calloc(g->n_parts, sizeof(*g->parts));
	g->finish_order = calloc(g->n_parts, sizeof(*g->finish_order));
	if (g->parts == NULL || g->finish_order == NULL ||
	    wm_source_gen_heaps_reserve(g) != 0)
		return -ENOMEM;
	if (g->n_rsil > 0 &&
	    (g->rsil_states = calloc((size_t)g->n_parts * g->n_rsil,
				     sizeof(*g->rsil_states))) == NULL)
		return -ENOMEM;
	return 0;
}

struct wm_source_gen *
wm_source_gen_new(const struct wm_source_gen_conf *conf)
{
	struct wm_source_gen *g;
	int rc;

	if (!conf_valid(conf)) {
		errno = EINVAL;
		return NULL;
	}
	rc = partitions_distinct(conf);
	if (rc < 0) {
		errno = -rc;
		return NULL;
	}
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return NULL;
	wm_source_gen_heaps_init(g);
	g->base.ops = &wm_source_gen_ops;
	gen_copy_conf(g, conf);
	rc = gen_copy_schedules(g, conf);
	if (rc == 0)
		rc = gen_alloc_parts(g);
	if (rc == 0)
		rc = gen_setup_parts(g, conf);
	if (rc < 0) {
		wm_source_gen_free(g);
		errno = -rc;
		return NULL;
	}
	wm_source_gen_start(g);
	return g;
}
