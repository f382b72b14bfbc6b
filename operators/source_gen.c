/*
 * source_gen.c
 *	Synthetic records of one source subtask (see source_gen.h for the
 *	model: arrivals, delays, keys, values, silences, bursts, limits).
 *
 * Per partition state lives in parts[], in the order of conf->partitions.
 * A partition not yet finished is in exactly one of two binary heaps
 * (lib/binary_heap.h) of (key, partition id) entries, smallest first:
 *
 * timed	paced mode: every partition, keyed by the processing time of
 *		its next event: its next emitted arrival, or end_ns when it
 *		will finish first ("ending"), or INT64_MAX (never).
 *		fast mode: the partitions that are silent, keyed by the end
 *		of their silence (INT64_MAX: for ever).
 * ready	fast mode only: the partitions that may emit, keyed by the
 *		virtual time of their next record (start-time fair queueing:
 *		the popped minimum becomes vclock; a returning partition
 *		starts at max(its own, vclock), so it neither starves the
 *		others nor is starved). Keys are rebased before they get near
 *		INT64_MAX.
 *
 * Paced arrival bookkeeping: arrivals [0, k_passed) have been emitted or
 * counted as skipped; arrival k is the next one to emit (arrivals in
 * [k_passed, k) fell into a silence and are committed to `skipped` when
 * the partition gets past them), or, for an ending partition, the first
 * arrival at or after end_ns; k = UINT64_MAX: silent for ever, unbounded.
 * The segment cursor seg (struct gen_segment) has k0 <= k and is moved on
 * to the segment of k when t_k is needed; seg_passed keeps the segment of
 * k_passed while skips are pending, so that partition_stats() can count
 * them from there. Cursors only move forwards: a segment is derived from
 * the one before it (its first arrival depends on it).
 *
 * Only the top of a heap is ever changed or removed, so entries carry no
 * back-pointers. Nothing allocates after wm_source_gen_new(); the only
 * O(P) operation after it is the fast-mode rebase, once per 2^62 units of
 * virtual time.
 *
 * This file is the per-record path (the machine above, its clocks and
 * schedules, next(), pause and the figures); the configuration into a
 * generator is source_gen_conf.c, its checkpoints source_gen_snapshot.c,
 * the generator as a wm_record_source source_gen_source.c, the state they
 * share source_gen_internal.h.
 */
#include "config.h"

#include <errno.h>
#include <math.h>

#include "operators/source_gen_internal.h"

__extension__ typedef unsigned __int128 gen_u128;

#define GEN_NS_PER_S 1000000000u
/* Fast mode: virtual time per record at skew 1, and the rebase point. */
#define GEN_VSTEP_UNIT 1048576.0
#define GEN_VSTEP_MAX ((int64_t)1 << 40)
#define GEN_VCLOCK_REBASE ((int64_t)1 << 62)

/* ---- heaps ---- */

static inline bool
ent_before(const struct gen_heap_ent *a, const struct gen_heap_ent *b)
{
	return a->key < b->key || (a->key == b->key && a->id < b->id);
}

/* Room for every partition, allocated once (wm_source_gen_heaps_reserve()). */
#define WM_HEAP_PREFIX gen_heap
#define WM_HEAP_ENTRY struct gen_heap_ent
#define WM_HEAP_BEFORE(a, b) ent_before(a, b)
#define WM_HEAP_MIN_CAPACITY 1
#define WM_HEAP_DEFINE
#include "base/lcm.h"
#include "lib/binary_heap.h"

static void
heap_push(struct gen_heap *h, int64_t key, uint32_t id, uint32_t idx)
{
	struct gen_heap_ent e = {.key = key, .id = id, .idx = idx};

	gen_heap_push(h, &e);
}

static void
heap_rekey_top(struct gen_heap *h, int64_t key)
{
	h->nodes[0].key = key;
	gen_heap_sift_down(h, 0);
}

/*
 * ---- random numbers: splitmix64, one stream per partition ----
 *
 * gen_mix64() (source_gen_internal.h) is its output function. The state
 * moves by the odd constant 2^64 / phi, splitmix64's own increment.
 */

static inline uint64_t
gen_rand(uint64_t *state)
{
	*state += 0x9e3779b97f4a7c15ull;
	return gen_mix64(*state);
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double
gen_unit(uint64_t *state)
{
	return (double)(gen_rand(state) >> 11) * 0x1.0p-53;
}

/* Uniform in [0, n), n >= 1, unbiased (Lemire's multiply and reject). */
static inline uint64_t
gen_below(uint64_t *state, uint64_t n)
{
	gen_u128 m = (gen_u128)gen_rand(state) * n;

	if ((uint64_t)m < n) {
		uint64_t threshold = -n % n;

		while ((uint64_t)m < threshold)
			m = (gen_u128)gen_rand(state) * n;
	}
	return (uint64_t)(m >> 64);
}

/* ---- Zipf by rejection-inversion (Hormann and Derflinger 1996) ---- */

/* log1p(x) / x, continuous at 0. */
static double
zipf_log1p_ratio(double x)
{
	if (fabs(x) > 1e-8)
		return log1p(x) / x;
	return 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}

/* expm1(x) / x, continuous at 0. */
static double
zipf_expm1_ratio(double x)
{
	if (fabs(x) > 1e-8)
		return expm1(x) / x;
	return 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x));
}

/* h(x) = x^-s, the unnormalised density. */
static double
zipf_h(double s, double x)
{
	return exp(-s * log(x));
}

/* H(x) = integral of h from 1 to x: (x^(1-s) - 1) / (1 - s), log x at
 * s = 1, without cancellation near s = 1. */
static double
zipf_hint(double s, double x)
{
	double lx = log(x);

	return zipf_expm1_ratio((1.0 - s) * lx) * lx;
}

/* The inverse of H. */
static double
zipf_hint_inv(double s, double y)
{
	double t = y * (1.0 - s);

	if (t < -1.0) /* rounding at the far end of the domain */
		t = -1.0;
	return exp(zipf_log1p_ratio(t) * y);
}

static void
zipf_setup(struct gen_draws *d)
{
	double s = d->zipf_s;

	d->zipf_hx1 = zipf_hint(s, 1.5) - 1.0;
	d->zipf_hn = zipf_hint(s, (double)d->keys + 0.5);
	d->zipf_slack =
		2.0 - zipf_hint_inv(s, zipf_hint(s, 2.5) - zipf_h(s, 2.0));
}

/*
 * A rank in [1, keys]. Draw u uniformly in the area under h between 1.5
 * and keys + 0.5 (plus the unit box of rank 1), invert H to x, round to the
 * nearest rank k; accept k when x falls in the part of [k - 1/2, k + 1/2]
 * that lies under h(k). The first test accepts most draws without any
 * further logarithm; fewer than a few per cent are rejected for any s.
 */
static uint64_t
zipf_rank(const struct gen_draws *d, uint64_t *state)
{
	double s = d->zipf_s;

	for (;;) {
		double u = d->zipf_hn +
			   gen_unit(state) * (d->zipf_hx1 - d->zipf_hn);
		double x = zipf_hint_inv(s, u);
		double kd = floor(x + 0.5);
		uint64_t k;

		if (!(kd >= 1.0)) /* also NaN, never expected */
			k = 1;
		else if (kd >= (double)d->keys)
			k = d->keys;
		else
			k = (uint64_t)kd;
		if ((double)k - x <= d->zipf_slack ||
		    u >= zipf_hint(s, (double)k + 0.5) - zipf_h(s, (double)k))
			return k;
	}
}

/* ---- time ---- */

/* a + b for a, b >= 0, INT64_MAX beyond. */
static int64_t
add_sat(int64_t a, int64_t b)
{
	return b > INT64_MAX - a ? INT64_MAX : a + b;
}

/* Arrival numbers saturate here: beyond any job (2^62 records). */
#define GEN_K_MAX ((uint64_t)1 << 62)

/* Arrival k >= seg->k0 at seg's rate (see struct gen_segment); INT64_MAX
 * beyond. Without bursts (start 0, k0 0): t_k = floor(k x 10^9 / r). */
static int64_t
seg_arrival_ns(const struct gen_segment *seg, uint64_t k)
{
	uint64_t i = k - seg->k0;
	double t;

	if (seg->irate != 0) {
		gen_u128 q = (gen_u128)i * GEN_NS_PER_S / seg->irate;

		return q >= (gen_u128)(INT64_MAX - seg->start_ns)
			       ? INT64_MAX
			       : seg->start_ns + (int64_t)q;
	}
	t = (double)i * 1e9 / seg->rate;
	return t >= 0x1p63 ? INT64_MAX : add_sat(seg->start_ns, (int64_t)t);
}

/* The first arrival k >= seg->k0 with t_k >= t at seg's rate (also past
 * seg->end_ns: the caller moves on to the segment that holds t first). */
static uint64_t
seg_first_arrival_from(const struct gen_segment *seg, int64_t t)
{
	uint64_t i, k;

	if (t <= seg->start_ns)
		return seg->k0;
	t -= seg->start_ns;
	if (seg->irate != 0) {
		/* t_k >= t <=> i x 10^9 / r >= t (t is whole): exact. */
		gen_u128 q = ((gen_u128)t * seg->irate + (GEN_NS_PER_S - 1)) /
			     GEN_NS_PER_S;

		i = q >= GEN_K_MAX ? GEN_K_MAX : (uint64_t)q;
	} else {
		double kd = ceil((double)t * seg->rate / 1e9);

		i = kd >= 0x1p62 ? GEN_K_MAX : (uint64_t)kd;
	}
	k = seg->k0 + i;
	t += seg->start_ns;
	/* The double estimate may be one off either way. */
	while (k > seg->k0 && seg_arrival_ns(seg, k - 1) >= t)
		k--;
	while (k - seg->k0 < GEN_K_MAX && seg_arrival_ns(seg, k) < t)
		k++;
	return k;
}

/* ---- schedules of silences and bursts ---- */

/* The end of the window of s that holds t, or -1: none does. */
static int64_t
sched_window_end(const struct gen_sched *s, int64_t t)
{
	int64_t start, end;

	if (t < s->from_ns || t >= s->to_ns)
		return -1;
	if (s->period_ns == 0)
		return s->to_ns;
	start = s->from_ns + (t - s->from_ns) / s->period_ns * s->period_ns;
	end = add_sat(start, s->length_ns);
	if (t >= end)
		return -1;
	return end < s->to_ns ? end : s->to_ns;
}

/* The start of the first window of s after t, or INT64_MAX: none. */
static int64_t
sched_next_start(const struct gen_sched *s, int64_t t)
{
	int64_t n;

	if (t < s->from_ns)
		return s->from_ns < s->to_ns ? s->from_ns : INT64_MAX;
	if (s->period_ns == 0)
		return INT64_MAX;
	n = (t - s->from_ns) / s->period_ns + 1;
	if (n > (INT64_MAX - s->from_ns) / s->period_ns)
		return INT64_MAX;
	t = s->from_ns + n * s->period_ns;
	return t < s->to_ns ? t : INT64_MAX;
}

/*
 * The first time >= t at which partition `id` is not silent: INT64_MAX if
 * never, or some time >= limit if none comes before limit (the caller
 * stops there). Overlapping silences chain: t moves to the end of a window
 * that holds it until none does.
 *
 * A one-shot silence moves t at most once, but periodic ones can take
 * turns for ever. So the walk keeps the time cycle_from since which every
 * window that moved t belongs to a silence that repeats for ever (periodic,
 * to = for ever, started by cycle_from), and the lcm of their periods: the
 * union of those silences repeats with that period, and it covered
 * [cycle_from, t); once t - cycle_from reaches the period, it covers all
 * time after cycle_from. Without such a cycle, the walk ends at a time
 * nobody covers, at limit, or at the end of a silence for ever.
 */
static int64_t
silence_end(const struct wm_source_gen *g, uint32_t id, int64_t t,
	    int64_t limit)
{
	int64_t cycle_from = t;
	uint64_t cycle = 0; /* lcm of the periods since cycle_from; 0: none */
	bool moved;

	do {
		moved = false;
		for (uint32_t i = 0; i < g->n_silences; i++) {
			const struct gen_sched *s = &g->silences[i];
			int64_t end;

			if (!sched_for(s, id))
				continue;
			end = sched_window_end(s, t);
			if (end < 0)
				continue;
			if (s->period_ns > 0 && s->to_ns == INT64_MAX &&
			    s->from_ns <= cycle_from) {
				uint64_t period = (uint64_t)s->period_ns;

				cycle = cycle == 0 ? period
						   : wm_lcm_u64(cycle, period);
			} else {
				cycle_from = end;
				cycle = 0;
			}
			t = end;
			moved = true;
			if (t >= limit || t == INT64_MAX)
				return t;
			if (cycle != 0 && (uint64_t)(t - cycle_from) >= cycle)
				return INT64_MAX;
		}
	} while (moved);
	return t;
}

/* The first silence window of partition `id` that starts after t. */
static int64_t
silence_next_start(const struct wm_source_gen *g, uint32_t id, int64_t t)
{
	int64_t next = INT64_MAX;

	for (uint32_t i = 0; i < g->n_silences; i++) {
		const struct gen_sched *s = &g->silences[i];

		if (sched_for(s, id)) {
			int64_t start = sched_next_start(s, t);

			if (start < next)
				next = start;
		}
	}
	return next;
}

/* An exponential length of mean mean_ns, in whole ns (saturating). */
static int64_t
rsil_draw_ns(uint64_t *rng, double mean_ns)
{
	/* 1 - u is in (0, 1]: the logarithm is finite. */
	double x = -mean_ns * log1p(-gen_unit(rng));

	return x >= 0x1.0p63 ? INT64_MAX : (int64_t)x;
}

/* The first window of *st's partition at time 0: silent with probability
 * f, which with memoryless lengths makes the process stationary. */
static void
rsil_start(const struct gen_rsil *r, struct gen_rsil_state *st)
{
	st->start_ns = 0;
	if (!(gen_unit(&st->rng) < r->fraction))
		st->start_ns = rsil_draw_ns(&st->rng, r->loud_ns);
	st->end_ns =
		add_sat(st->start_ns, rsil_draw_ns(&st->rng, r->silent_ns));
}

/* Move *st on to the first window that ends after t. O(1) draws per
 * window passed. */
static void
rsil_advance(const struct gen_rsil *r, struct gen_rsil_state *st, int64_t t)
{
	while (st->end_ns <= t && st->end_ns != INT64_MAX) {
		st->start_ns =
			add_sat(st->end_ns, rsil_draw_ns(&st->rng, r->loud_ns));
		st->end_ns = add_sat(st->start_ns,
				     rsil_draw_ns(&st->rng, r->silent_ns));
	}
}

/*
 * The end of the random silence windows of p that hold t, chained (t if
 * none does), and in *next the first start of one after the result. Moves
 * p's random silences on to t.
 */
static int64_t
part_rsil_end(const struct wm_source_gen *g, struct gen_part *p, int64_t t,
	      int64_t *next)
{
	bool moved = true;

	while (moved && t != INT64_MAX) {
		moved = false;
		*next = INT64_MAX;
		for (uint32_t i = 0; i < g->n_rsil; i++) {
			struct gen_rsil_state *st = &p->rsil[i];

			if (g->rsil[i].first > p->id || p->id > g->rsil[i].last)
				continue;
			rsil_advance(&g->rsil[i], st, t);
			if (st->start_ns <= t && t < st->end_ns) {
				t = st->end_ns;
				moved = true;
			} else if (st->start_ns < *next) {
				*next = st->start_ns;
			}
		}
	}
	return t;
}

/*
 * silence_end() for p up to end_ns, scheduled and random silences chained,
 * in O(1) while t stays in the silence-free stretch found last: a
 * partition pays O(S + R) per silence edge it meets (S silences, R random
 * ones), not per record, since its t only grows.
 */
static int64_t
part_silence_end(const struct wm_source_gen *g, struct gen_part *p, int64_t t)
{
	int64_t e = t, r, next = INT64_MAX;

	if (t >= p->loud_from && t < p->loud_until)
		return t;
	for (;;) {
		e = silence_end(g, p->id, e, g->end_ns);
		if (g->n_rsil == 0 || e >= g->end_ns || e == INT64_MAX)
			break;
		r = part_rsil_end(g, p, e, &next);
		if (r == e)
			break;
		e = r;
	}
	if (e < g->end_ns) {
		/* e is not covered, so a window that meets the stretch
		 * after it starts after it. */
		p->loud_from = e;
		p->loud_until = silence_next_start(g, p->id, e);
		if (next < p->loud_until)
			p->loud_until = next;
	}
	return e;
}

/* When an arrival of partition `id` at t can be read: the end of the
 * outages that hold t (chained), or t. O(U) per window met. */
static int64_t
outage_end(const struct wm_source_gen *g, uint32_t id, int64_t t)
{
	bool moved = true;

	while (moved && t != INT64_MAX) {
		moved = false;
		for (uint32_t i = 0; i < g->n_outages; i++) {
			int64_t end;

			if (!sched_for(&g->outages[i], id))
				continue;
			end = sched_window_end(&g->outages[i], t);
			if (end > t) {
				t = end;
				moved = true;
			}
		}
	}
	return t;
}

/*
 * The product of the factors of the bursts that cover partition `id` at t
 * (1 if none), and in *edge the next time after t at which one of them
 * starts or ends (INT64_MAX: never). O(B) for B bursts.
 */
static double
burst_factor_at(const struct wm_source_gen *g, uint32_t id, int64_t t,
		int64_t *edge)
{
	double factor = 1.0;

	*edge = INT64_MAX;
	for (uint32_t i = 0; i < g->n_bursts; i++) {
		const struct gen_burst *b = &g->bursts[i];
		int64_t end, next;

		if (!sched_for(&b->when, id))
			continue;
		/* Windows of one burst do not overlap: inside one, its
		 * end is the burst's next edge. */
		end = sched_window_end(&b->when, t);
		if (end >= 0) {
			factor *= b->factor;
			next = end;
		} else {
			next = sched_next_start(&b->when, t);
		}
		if (next < *edge)
			*edge = next;
	}
	return factor;
}

/* Set *seg to p's segment from `start` on, whose first arrival is k0. */
static void
seg_begin(const struct wm_source_gen *g, const struct gen_part *p,
	  struct gen_segment *seg, int64_t start, uint64_t k0)
{
	seg->start_ns = start;
	seg->k0 = k0;
	seg->factor = burst_factor_at(g, p->id, start, &seg->end_ns);
	seg->rate = p->base_rate * seg->factor;
	seg->irate = 0;
	if (seg->rate <= 1e18 && seg->rate == floor(seg->rate))
		seg->irate = (uint64_t)seg->rate;
}

/* Move *seg on to p's segment that holds time t (t >= seg->start_ns): the
 * arrival clock restarts at each edge with the first arrival that the
 * segment before would have had at or after it. O(B) per edge passed. */
static void
seg_advance_to(const struct wm_source_gen *g, const struct gen_part *p,
	       struct gen_segment *seg, int64_t t)
{
	while (seg->end_ns <= t && seg->end_ns != INT64_MAX)
		seg_begin(g, p, seg, seg->end_ns,
			  seg_first_arrival_from(seg, seg->end_ns));
}

/* t_k of p's arrival k >= p->seg.k0, moving p->seg on to the segment that
 * holds it. */
static int64_t
part_arrival_ns(const struct wm_source_gen *g, struct gen_part *p, uint64_t k)
{
	for (;;) {
		int64_t t = seg_arrival_ns(&p->seg, k);

		if (t < p->seg.end_ns || p->seg.end_ns == INT64_MAX)
			return t;
		seg_advance_to(g, p, &p->seg, p->seg.end_ns);
	}
}

/* p's first arrival at or after t (t >= seg->start_ns), found from *seg, a
 * cursor of p's that the search moves on. */
static uint64_t
part_first_arrival_from(const struct wm_source_gen *g, const struct gen_part *p,
			struct gen_segment *seg, int64_t t)
{
	seg_advance_to(g, p, seg, t);
	return seg_first_arrival_from(seg, t);
}

/* ---- per partition ---- */

static void
part_finish(struct wm_source_gen *g, struct gen_part *p)
{
	if (p->k != UINT64_MAX && p->k > p->k_passed) {
		p->skipped += p->k - p->k_passed;
		p->k_passed = p->k;
	}
	p->finished = true;
	g->finish_order[g->n_finished++] = (uint32_t)(p - g->parts);
}

/*
 * Paced: the timed key of p from arrival p->k on: skip arrivals that fall
 * into silences, or end at end_ns. Sets p->k and p->ending.
 */
static int64_t
paced_schedule(const struct wm_source_gen *g, struct gen_part *p)
{
	for (;;) {
		int64_t t = part_arrival_ns(g, p, p->k);
		int64_t e;

		if (t >= g->end_ns) {
			p->ending = true;
			return g->end_ns;
		}
		e = part_silence_end(g, p, t);
		if (e == t) {
			p->ending = false;
			p->arrival_ns = t;
			return g->n_outages > 0 ? outage_end(g, p->id, t) : t;
		}
		if (p->k == p->k_passed)
			p->seg_passed = p->seg;
		if (e >= g->end_ns) {
			p->k = g->end_ns == INT64_MAX
				       ? UINT64_MAX
				       : part_first_arrival_from(g, p, &p->seg,
								 g->end_ns);
			p->ending = true;
			return g->end_ns;
		}
		p->k = part_first_arrival_from(g, p, &p->seg, e);
	}
}

/* The event time of a record that arrives at t_ns, before its delay:
 * the same for every record of an instant, so a run computes it once. */
static inline wm_ts_t
gen_arrival_ms(const struct wm_source_gen *g, int64_t t_ns)
{
	return wm_ts_add(g->start_epoch_ms, t_ns / GEN_NS_PER_MS);
}

/*
 * Fill *out with the next record of partition p, arriving at
 * `arrival_ms` (gen_arrival_ms()), its draws from *rng as `d` says, the
 * partition's `emitted`-th (which picks the value of a value cycle). With
 * `plain` (a constant where it inlines) the caller knows that d has no
 * delays, keys uniform from more than one and no value cycle
 * (draws_plain()), and the branches on them go. The draws' state and
 * the count are passed apart from p, which this does not write, so that
 * a caller making many of one partition's records keeps them in
 * registers.
 */
static inline __attribute__((always_inline)) void
draw_record(const struct gen_draws *d, uint64_t *rng, const struct gen_part *p,
	    uint64_t emitted, wm_ts_t arrival_ms,
	    struct wm_record *restrict out, bool plain)
{
	int64_t delay = 0;
	uint64_t key = 0;

	if (plain) {
	} else if (d->late && gen_unit(rng) < d->late_fraction) {
		delay = d->bound_ms + 1;
		if (d->late_by_ms > 1)
			delay += (int64_t)gen_below(rng,
						    (uint64_t)d->late_by_ms);
	} else if (d->bound_ms > 0) {
		delay = (int64_t)gen_below(rng, (uint64_t)d->bound_ms + 1);
	}
	if (plain)
		key = gen_below(rng, d->keys);
	else if (d->keys > 1)
		key = d->zipf ? zipf_rank(d, rng) - 1 : gen_below(rng, d->keys);
	out->ts = plain ? arrival_ms : wm_ts_sub(arrival_ms, delay);
	out->key = (int64_t)key;
	out->value = !plain && d->value_cycle > 1
			     ? 1 + (int64_t)(emitted % d->value_cycle)
			     : 1;
	/* The n-th of every n records of a punctuated partition carries a
	 * watermark; `emitted` counts those before this one. */
	out->flags = !plain && p->punctuate_every != 0 &&
				     (emitted + 1) % p->punctuate_every == 0
			     ? WM_RECORD_PUNCTUATE
			     : 0;
	out->partition = p->id;
}

/*
 * Whether p, marking by event time, marks its record of `ts`: the first
 * to reach the slot after the last marked one's. floor() rounds toward
 * minus infinity, so slots are [n D, (n + 1) D) for negative times too;
 * the next slot's start saturates at WM_TS_MAX, which a later record
 * does not pass (a record at the very end of time is marked once).
 */
static bool
mark_by_time(struct gen_part *p, wm_ts_t ts)
{
	int64_t every = p->punctuate_every_ms;
	int64_t slot;

	if (ts < p->next_mark_ts)
		return false;
	slot = ts / every - (ts % every < 0);
	p->next_mark_ts =
		slot < WM_TS_MAX / every ? (slot + 1) * every : WM_TS_MAX;
	return true;
}

/* draw_record() into *out as p's next record, and p's mark by time on it
 * (which, unlike a count, depends on the records drawn before it). */
static inline __attribute__((always_inline)) void
draw_marked(const struct gen_draws *d, uint64_t *rng, struct gen_part *p,
	    uint64_t emitted, wm_ts_t arrival_ms,
	    struct wm_record *restrict out, bool plain)
{
	draw_record(d, rng, p, emitted, arrival_ms, out, plain);
	if (!plain && p->punctuate_every_ms != 0 && mark_by_time(p, out->ts))
		out->flags |= WM_RECORD_PUNCTUATE;
}

/* Fill *out with p's next record (draw_marked()), and count it. */
static inline __attribute__((always_inline)) void
part_emit_as(const struct gen_draws *d, struct gen_part *p, wm_ts_t arrival_ms,
	     struct wm_record *restrict out, bool plain)
{
	draw_marked(d, &p->rng, p, p->emitted, arrival_ms, out, plain);
	p->emitted++;
}

/* part_emit_as() for any configuration. */
static inline void
part_emit(const struct gen_draws *d, struct gen_part *p, wm_ts_t arrival_ms,
	  struct wm_record *restrict out)
{
	part_emit_as(d, p, arrival_ms, out, false);
}

/* Whether d makes plain records (part_emit_as()): in order, uniform keys
 * drawn from more than one, values all 1, none marked. */
static bool
draws_plain(const struct gen_draws *d)
{
	return !d->late && d->bound_ms == 0 && !d->zipf && d->keys > 1 &&
	       d->value_cycle <= 1 && !d->punctuate;
}

/* Fast: p's virtual time per record, GEN_VSTEP_UNIT / (skew x the bursts
 * in force), within [1, GEN_VSTEP_MAX]. */
static void
part_set_vstep(struct gen_part *p)
{
	double v = GEN_VSTEP_UNIT / (p->skew * p->seg.factor);

	p->vstep = v < 1.0		       ? 1
		   : v > (double)GEN_VSTEP_MAX ? GEN_VSTEP_MAX
					       : llround(v);
}

static void
gen_start(struct wm_source_gen *g)
{
	if (g->max_records == 0 || g->end_ns <= 0) {
		for (uint32_t i = 0; i < g->n_parts; i++)
			part_finish(g, &g->parts[i]);
		return;
	}
	for (uint32_t i = 0; i < g->n_parts; i++) {
		struct gen_part *p = &g->parts[i];

		if (g->fast)
			heap_push(&g->ready, 0, p->id, i);
		else
			heap_push(&g->timed, paced_schedule(g, p), p->id, i);
		p->in_heap = true;
	}
}

/*
 * The clocks of every partition begin here rather than in
 * source_gen_conf.c so that zipf_setup(), rsil_start(), seg_begin() and
 * part_set_vstep() stay static to this file, where the per-record path
 * inlines them.
 */
void
wm_source_gen_start(struct wm_source_gen *g)
{
	if (g->draws.zipf)
		zipf_setup(&g->draws);
	for (uint32_t i = 0; i < g->n_parts; i++) {
		struct gen_part *p = &g->parts[i];

		for (uint32_t j = 0; j < g->n_rsil; j++)
			rsil_start(&g->rsil[j], &p->rsil[j]);
		seg_begin(g, p, &p->seg, 0, 0);
		p->seg_passed = p->seg;
		if (g->fast)
			part_set_vstep(p);
	}
	gen_start(g);
}

/* Out of line for source_gen_snapshot.c: a restore is not per record. */
void
wm_source_gen_seg_begin(const struct wm_source_gen *g, const struct gen_part *p,
			struct gen_segment *seg, int64_t start, uint64_t k0)
{
	seg_begin(g, p, seg, start, k0);
}

void
wm_source_gen_set_vstep(struct gen_part *p)
{
	part_set_vstep(p);
}

void
wm_source_gen_heaps_init(struct wm_source_gen *g)
{
	gen_heap_init(&g->timed);
	gen_heap_init(&g->ready);
}

/* The ready heap is fast mode's alone. */
int
wm_source_gen_heaps_reserve(struct wm_source_gen *g)
{
	if (gen_heap_reserve(&g->timed, g->n_parts) != 0)
		return -ENOMEM;
	if (g->fast && gen_heap_reserve(&g->ready, g->n_parts) != 0)
		return -ENOMEM;
	return 0;
}

void
wm_source_gen_heaps_destroy(struct wm_source_gen *g)
{
	gen_heap_destroy(&g->timed);
	gen_heap_destroy(&g->ready);
}

void
wm_source_gen_heaps_clear(struct wm_source_gen *g)
{
	gen_heap_clear(&g->timed);
	gen_heap_clear(&g->ready);
}

void
wm_source_gen_heap_push(struct gen_heap *h, int64_t key, uint32_t id,
			uint32_t idx)
{
	heap_push(h, key, id, idx);
}

/* ---- the event loop interface ---- */

/*
 * A paused partition stays in its heap until it comes to the top, and
 * leaves then: after this, no heap has a paused partition on top, so the
 * top's key is a time something is due.
 */
static __attribute__((noinline, cold)) void
drop_top(struct wm_source_gen *g, struct gen_heap *h)
{
	g->parts[h->nodes[0].idx].in_heap = false;
	gen_heap_pop(h);
}

/* Every call, after every change of a heap: the check inline, the rare
 * pop out of line, so that the check costs no registers for the pop. */
static inline void
drop_paused_tops(struct wm_source_gen *g, struct gen_heap *h)
{
	while (h->count > 0 && g->parts[h->nodes[0].idx].paused)
		drop_top(g, h);
}

static int
paced_next(struct wm_source_gen *g, int64_t now_ns, struct wm_record *out)
{
	int emitted = 0;

	while (!emitted && g->timed.count > 0) {
		struct gen_heap_ent *top = &g->timed.nodes[0];
		struct gen_part *p = &g->parts[top->idx];

		if (top->key > now_ns || top->key == INT64_MAX)
			break;
		if (p->ending) {
			part_finish(g, p);
			gen_heap_pop(&g->timed);
		} else {
			p->skipped += p->k - p->k_passed;
			part_emit(&g->draws, p,
				  gen_arrival_ms(g, p->arrival_ns), out);
			p->k_passed = ++p->k;
			if (p->emitted == g->max_records) {
				part_finish(g, p);
				gen_heap_pop(&g->timed);
			} else {
				heap_rekey_top(&g->timed, paced_schedule(g, p));
			}
			emitted = 1;
		}
		drop_paused_tops(g, &g->timed);
	}
	return emitted;
}

/* Shift all virtual times down by vclock, keeping their order. */
static void
fast_rebase(struct wm_source_gen *g)
{
	int64_t off = g->vclock;

	for (uint32_t i = 0; i < g->n_parts; i++)
		g->parts[i].vt =
			g->parts[i].vt > off ? g->parts[i].vt - off : 0;
	for (size_t i = 0; i < g->ready.count; i++)
		g->ready.nodes[i].key -= off; /* all >= vclock */
	g->vclock = 0;
}

/*
 * Fast mode at now_ns, before its records: every partition finished if
 * the end has passed (false: nothing more comes), and the partitions
 * whose silences ended back in the round. Once per instant is enough:
 * nothing it looks at changes again before now_ns does.
 */
static bool
fast_admit(struct wm_source_gen *g, int64_t now_ns)
{
	g->last_now = now_ns;
	if (g->end_ns != INT64_MAX && now_ns >= g->end_ns) {
		for (uint32_t i = 0; i < g->n_parts; i++)
			if (!g->parts[i].finished)
				part_finish(g, &g->parts[i]);
		gen_heap_clear(&g->ready);
		gen_heap_clear(&g->timed);
		return false;
	}
	/* Silences that ended: back into the round. */
	while (g->timed.count > 0 && g->timed.nodes[0].key <= now_ns &&
	       g->timed.nodes[0].key != INT64_MAX) {
		uint32_t idx = g->timed.nodes[0].idx;
		struct gen_part *p = &g->parts[idx];

		gen_heap_pop(&g->timed);
		if (p->vt < g->vclock)
			p->vt = g->vclock;
		heap_push(&g->ready, p->vt, p->id, idx);
		drop_paused_tops(g, &g->timed);
		drop_paused_tops(g, &g->ready);
	}
	return true;
}

/* Fast mode's next record at now_ns, after fast_admit(): 1, or 0 when no
 * partition may emit now. */
static int
fast_step(struct wm_source_gen *g, int64_t now_ns, struct wm_record *out)
{
	while (g->ready.count > 0) {
		uint32_t idx = g->ready.nodes[0].idx;
		struct gen_part *p = &g->parts[idx];
		int64_t e = part_silence_end(g, p, now_ns);

		/* An outage is a silence to a source that makes records as
		 * they are read. */
		if (e == now_ns && g->n_outages > 0)
			e = outage_end(g, p->id, now_ns);
		if (e != now_ns) {
			gen_heap_pop(&g->ready);
			heap_push(&g->timed, e, p->id, idx);
			drop_paused_tops(g, &g->ready);
			drop_paused_tops(g, &g->timed);
			continue;
		}
		if (now_ns >= p->seg.end_ns) { /* a burst started or ended */
			seg_begin(g, p, &p->seg, now_ns, 0);
			part_set_vstep(p);
		}
		part_emit(&g->draws, p, gen_arrival_ms(g, now_ns), out);
		g->vclock = p->vt;
		p->vt += p->vstep;
		if (p->emitted == g->max_records) {
			part_finish(g, p);
			gen_heap_pop(&g->ready);
		} else {
			heap_rekey_top(&g->ready, p->vt);
		}
		drop_paused_tops(g, &g->ready);
		if (g->vclock >= GEN_VCLOCK_REBASE)
			fast_rebase(g);
		return 1;
	}
	return 0;
}

static int
fast_next(struct wm_source_gen *g, int64_t now_ns, struct wm_record *out)
{
	if (!fast_admit(g, now_ns))
		return 0;
	return fast_step(g, now_ns, out);
}

/*
 * ---- fast mode's round ----
 *
 * Weighted fair queueing with equal steps s is a round: if the ready
 * partitions, sorted by (vt, id) as e_1 < ... < e_n, have
 * e_n < (vt_1 + s, id_1), the one taken, e_1, moves to (vt_1 + s, id_1),
 * after every other, and the order e_2 < ... < e_n < e_1' keeps the
 * property (e_1' < (vt_2 + s, id_2), as e_1 < e_2). So they take turns in
 * that order for as long as each may emit and none finishes; one that
 * finishes leaves the round and the rest keep it (the property holds for
 * any part of the order). A run then goes round them without the heap
 * and writes the heap back as the round's order from the next to take
 * (a sorted array is a heap): the records and the heap's order are those
 * of a fast_step() a record, whose per-record silence and burst checks
 * give the same answer all instant long, so the round makes them once.
 */

/* Partitions a round takes at most: its set-up is O(n log n)-ish
 * (insertion), paid once a run, so a run must go round at least twice. */
#define GEN_ROUND_MAX 32

/*
 * Whether the ready partitions, at now_ns after fast_admit(), form a round
 * for a run of up to `cap` records: each may emit now (no pause,
 * silence, outage or burst edge), all have one step, the property above
 * holds, and no rebase falls in the run. If so, round[] holds them
 * sorted, and their count is returned; else 0. Looks, changes nothing: a
 * partition's silences are asked of the stretch its last
 * part_silence_end() found loud, not of part_silence_end() itself, which
 * moves the random silences on to the end of a silence it finds (a second
 * question at the same instant would then find none); one not known loud
 * now goes a record at a time, which asks, and the next run can go
 * round.
 */
static uint32_t
fast_round_of(struct wm_source_gen *g, int64_t now_ns, uint32_t cap,
	      struct gen_heap_ent *round)
{
	uint32_t n = (uint32_t)g->ready.count;
	int64_t step;

	if (n == 0 || n > GEN_ROUND_MAX || 2 * n > cap)
		return 0;
	step = g->parts[g->ready.nodes[0].idx].vstep;
	for (uint32_t i = 0; i < n; i++) {
		struct gen_heap_ent e = g->ready.nodes[i];
		struct gen_part *p = &g->parts[e.idx];
		uint32_t j = i;

		if (p->paused || p->vstep != step || now_ns >= p->seg.end_ns ||
		    !(now_ns >= p->loud_from && now_ns < p->loud_until) ||
		    (g->n_outages > 0 &&
		     outage_end(g, p->id, now_ns) != now_ns))
			return 0;
		for (; j > 0 && ent_before(&e, &round[j - 1]); j--)
			round[j] = round[j - 1];
		round[j] = e;
	}
	{
		struct gen_heap_ent first_again = {.key = round[0].key + step,
						   .id = round[0].id};

		if (!ent_before(&round[n - 1], &first_again))
			return 0;
	}
	/* Keys stay below the rebase point all run (vclock takes them). */
	if (round[n - 1].key >= GEN_VCLOCK_REBASE - ((int64_t)cap + 1) * step)
		return 0;
	return n;
}

/*
 * Up to `cap` records of the round round[0..n) at now_ns (fast_round_of());
 * the heap is the round's after it. Returns how many. The round's keys are
 * its partitions' virtual times all run, copied to them at the end, and
 * the locals keep the loop to the record's own work (out[] could alias
 * the generator's fields otherwise). `plain` as part_emit_as() takes it:
 * fast_round() makes the loop twice, with and without.
 */
static inline __attribute__((always_inline)) uint32_t
fast_round_as(struct wm_source_gen *g, int64_t now_ns,
	      struct gen_heap_ent *round, uint32_t n,
	      struct wm_record *restrict out, uint32_t cap, bool plain)
{
	const wm_ts_t arrival_ms = gen_arrival_ms(g, now_ns);
	const int64_t step = g->parts[round[0].idx].vstep;
	const uint64_t max_records = g->max_records;
	const struct gen_draws draws = g->draws;
	struct gen_part *part[GEN_ROUND_MAX];
	int64_t vclock = g->vclock;
	uint32_t i = 0, made = 0;

	/* Whole rounds first, as many as fit in cap and finish no one (each
	 * partition has more records left than that: its last is the loop
	 * below's, whose test finishes it): no test a record. */
	uint64_t rounds = cap / n;

	for (uint32_t j = 0; j < n; j++) {
		uint64_t left;

		part[j] = &g->parts[round[j].idx];
		left = max_records - part[j]->emitted - 1;
		if (left < rounds)
			rounds = left;
	}
	if (rounds > 0) {
		/* A partition at a time, each record into its place in the
		 * rounds' order (record r of partition j is out[r * n + j]):
		 * the records and their places are those of a round at a
		 * time, each a draw of its partition's own state, which a
		 * local copy keeps in a register across its records. */
		for (uint32_t j = 0; j < n; j++) {
			struct gen_part *p = part[j];
			struct wm_record *restrict o = out + j;
			uint64_t rng = p->rng;

			for (uint64_t r = 0; r < rounds; r++, o += n)
				draw_marked(&draws, &rng, p, p->emitted + r,
					    arrival_ms, o, plain);
			p->rng = rng;
			p->emitted += rounds;
		}
		made = (uint32_t)rounds * n;
		for (uint32_t j = 0; j < n; j++)
			round[j].key += (int64_t)rounds * step;
		vclock = round[n - 1].key - step;
	}
	while (made < cap) {
		struct gen_part *p = part[i];

		part_emit_as(&draws, p, arrival_ms, &out[made++], plain);
		vclock = round[i].key;
		round[i].key += step;
		if (__builtin_expect(p->emitted == max_records, 0)) {
			p->vt = round[i].key;
			part_finish(g, p);
			if (--n == 0)
				break;
			for (uint32_t j = i; j < n; j++) {
				round[j] = round[j + 1];
				part[j] = part[j + 1];
			}
		} else {
			i++;
		}
		if (i == n)
			i = 0;
	}
	g->vclock = vclock;
	/* Back into the heap in the round's order, from round[i] on. */
	g->ready.count = n;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t k = (i + j) % n;

		part[k]->vt = round[k].key;
		g->ready.nodes[j] = round[k];
	}
	return made;
}

static uint32_t
fast_round(struct wm_source_gen *g, int64_t now_ns, struct gen_heap_ent *round,
	   uint32_t n, struct wm_record *restrict out, uint32_t cap)
{
	if (draws_plain(&g->draws))
		return fast_round_as(g, now_ns, round, n, out, cap, true);
	return fast_round_as(g, now_ns, round, n, out, cap, false);
}

/* Fast mode's run: rounds where the partitions form one, else a record
 * at a time. due_ns as wm_source_gen_next_run() says. */
static uint32_t
fast_run(struct wm_source_gen *g, int64_t now_ns, struct wm_record *out,
	 int64_t *due_ns, uint32_t cap)
{
	struct gen_heap_ent round[GEN_ROUND_MAX];
	uint32_t made = 0;

	if (due_ns != NULL && cap > 0)
		due_ns[0] = wm_source_gen_next_due_ns(g);
	if (!fast_admit(g, now_ns))
		return 0;
	while (made < cap) {
		uint32_t n = fast_round_of(g, now_ns, cap - made, round);
		uint32_t from = made;

		if (n > 0) {
			made += fast_round(g, now_ns, round, n, &out[made],
					   cap - made);
		} else {
			if (!fast_step(g, now_ns, &out[made]))
				break;
			made++;
		}
		/* After a record of now_ns, a live generator is due now. */
		if (due_ns != NULL)
			for (uint32_t k = from + 1; k <= made && k < cap; k++)
				due_ns[k] = now_ns;
	}
	return made;
}

int
wm_source_gen_next(struct wm_source_gen *g, int64_t now_ns,
		   struct wm_record *out)
{
	if (g->fast)
		return fast_next(g, now_ns, out);
	return paced_next(g, now_ns, out);
}

uint32_t
wm_source_gen_next_run(struct wm_source_gen *g, int64_t now_ns,
		       struct wm_record *out, int64_t *due_ns, uint32_t cap)
{
	uint32_t n;

	if (g->fast)
		return fast_run(g, now_ns, out, due_ns, cap);
	for (n = 0; n < cap; n++) {
		if (due_ns != NULL)
			due_ns[n] = wm_source_gen_next_due_ns(g);
		if (!paced_next(g, now_ns, &out[n]))
			break;
	}
	return n;
}

int64_t
wm_source_gen_next_due_ns(const struct wm_source_gen *g)
{
	int64_t due;

	if (g->n_finished == g->n_parts)
		return INT64_MAX;
	if (!g->fast) /* empty while every partition left is paused */
		return g->timed.count > 0 ? g->timed.nodes[0].key : INT64_MAX;
	if (g->ready.count > 0)
		return g->last_now;
	due = g->timed.count > 0 ? g->timed.nodes[0].key : INT64_MAX;
	return due < g->end_ns ? due : g->end_ns;
}

int64_t
wm_source_gen_end_ns(const struct wm_source_gen *g)
{
	return g->end_ns;
}

void
wm_source_gen_pause(struct wm_source_gen *g, uint32_t i, bool paused,
		    int64_t now_ns)
{
	struct gen_part *p = &g->parts[i];

	if (paused == p->paused || p->finished)
		return;
	p->paused = paused;
	if (paused) {
		drop_paused_tops(g, &g->timed);
		drop_paused_tops(g, &g->ready);
		return;
	}
	if (p->in_heap)
		return; /* never left: it carries on where it was */
	p->in_heap = true;
	if (!g->fast) {
		/* Its arrivals went on while it was paused: they are due
		 * now, with the event times of when they arrived. */
		heap_push(&g->timed,
			  p->ending ? g->end_ns
				    : outage_end(g, p->id, p->arrival_ns),
			  p->id, i);
		return;
	}
	/* Fast: records exist only when read, so there is nothing to catch
	 * up; it rejoins the round at the current virtual time, or waits out
	 * a silence. */
	if (p->vt < g->vclock)
		p->vt = g->vclock;
	heap_push(&g->ready, p->vt, p->id, i);
	g->last_now = now_ns;
}

bool
wm_source_gen_finished(const struct wm_source_gen *g)
{
	if (g->n_parts == 0)
		return g->bounded;
	return g->n_finished == g->n_parts;
}

uint32_t
wm_source_gen_n_partitions(const struct wm_source_gen *g)
{
	return g->n_parts;
}

int64_t
wm_source_gen_partition_next_due_ns(const struct wm_source_gen *g, uint32_t i)
{
	const struct gen_part *p = &g->parts[i];

	if (g->fast || p->paused)
		return WM_RECORD_SOURCE_DUE_UNKNOWN;
	/* Out of the timed heap when finished (or paused); its key there
	 * is what paced_schedule() and a resume gave it. */
	if (p->finished || !p->in_heap)
		return INT64_MAX;
	if (p->ending)
		return g->end_ns;
	return g->n_outages > 0 ? outage_end(g, p->id, p->arrival_ns)
				: p->arrival_ns;
}

void
wm_source_gen_partition_stats(const struct wm_source_gen *g, uint32_t i,
			      int64_t now_ns,
			      struct wm_source_partition_stats *st)
{
	const struct gen_part *p = &g->parts[i];

	st->partition = p->id;
	st->emitted = p->emitted;
	st->skipped = p->skipped;
	st->finished = p->finished;
	if (!g->fast && !p->finished && p->k > p->k_passed && now_ns >= 0 &&
	    now_ns < INT64_MAX) {
		/* Arrivals at or before now in [k_passed, k) were skipped;
		 * count them from the later of p's cursors that starts by
		 * then. */
		struct gen_segment seg =
			p->seg.start_ns <= now_ns + 1 ? p->seg : p->seg_passed;
		uint64_t upto = part_first_arrival_from(g, p, &seg, now_ns + 1);

		if (upto > p->k)
			upto = p->k;
		if (upto > p->k_passed)
			st->skipped += upto - p->k_passed;
	}
}
