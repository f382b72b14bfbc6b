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
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"
#include "operators/keygroup.h"
#include "lib/snap.h"
#include "operators/source_gen.h"

__extension__ typedef unsigned __int128 gen_u128;

#define GEN_NS_PER_MS 1000000
#define GEN_NS_PER_S 1000000000u
/* Fast mode: virtual time per record at skew 1, and the rebase point. */
#define GEN_VSTEP_UNIT 1048576.0
#define GEN_VSTEP_MAX ((int64_t)1 << 40)
#define GEN_VCLOCK_REBASE ((int64_t)1 << 62)

struct gen_heap_ent {
	int64_t key;
	uint32_t id;  /* partition id: the tie-breaker */
	uint32_t idx; /* index into parts[] */
};

static inline bool
ent_before(const struct gen_heap_ent *a, const struct gen_heap_ent *b)
{
	return a->key < b->key || (a->key == b->key && a->id < b->id);
}

/* Room for every partition, allocated once. */
#define WM_HEAP_PREFIX gen_heap
#define WM_HEAP_ENTRY struct gen_heap_ent
#define WM_HEAP_BEFORE(a, b) ent_before(a, b)
#define WM_HEAP_MIN_CAPACITY 1
#include "lib/binary_heap.h"

/*
 * A stretch of constant rate: from one burst edge of a partition (a start
 * or an end of a burst window that covers it) to the next. Paced arrival
 * k0 happens at start_ns, arrival k >= k0 of the segment at
 * start_ns + floor((k - k0) x 10^9 / rate) while that is before end_ns.
 */
struct gen_segment {
	int64_t start_ns;
	int64_t end_ns; /* the next burst edge; INT64_MAX: none */
	uint64_t k0;
	double factor;	/* the product of the bursts in force */
	double rate;	/* paced: base_rate x factor */
	uint64_t irate; /* paced: rate when a whole number, else 0 */
};

struct gen_part {
	uint32_t id;
	bool finished;
	bool paused;	  /* by wm_source_gen_pause() */
	bool in_heap;	  /* in timed or ready; a paused one leaves lazily */
	bool ending;	  /* paced: the timed key is end_ns, not an arrival */
	double base_rate; /* paced: records/s outside bursts (rate x skew) */
	double skew;	  /* fast: the weight outside bursts */
	struct gen_segment seg;	       /* the bursts in force at arrival k
					* (paced) or at the last record */
	struct gen_segment seg_passed; /* paced: holds arrival k_passed
					* while k > k_passed */
	int64_t vstep;		       /* fast: virtual time per record */
	int64_t vt;	    /* fast: virtual time of the next record */
	uint64_t k;	    /* paced: next arrival (see the top comment) */
	int64_t arrival_ns; /* paced: arrival k's time; its key may be later
			     * (an outage) */
	uint64_t k_passed;
	uint64_t emitted;
	uint64_t skipped; /* committed skips (paced) */
	uint64_t rng;	  /* splitmix64 state */
	/* No silence covers [loud_from, loud_until): the stretch found by
	 * the last part_silence_end() that had to look (empty at first). */
	int64_t loud_from, loud_until;
	struct gen_rsil_state *rsil; /* [n_random_silences]: used only for
				      * those that cover this partition */
};

/*
 * When a silence or a burst applies, and to which partitions, in ns: the
 * window
 * [from_ns, to_ns), or with period_ns > 0 the windows
 * [from_ns + n period_ns, from_ns + n period_ns + length_ns) that start
 * before to_ns, cut at to_ns. Windows of one schedule never overlap:
 * length_ns < period_ns, except that both may saturate at INT64_MAX (a
 * period beyond the int64 horizon: only the first window ever starts).
 */
struct gen_sched {
	uint32_t first, last;
	int64_t from_ns, to_ns; /* to_ns INT64_MAX: for ever */
	int64_t period_ns;	/* 0: once */
	int64_t length_ns;
};

struct gen_burst {
	struct gen_sched when;
	double factor; /* > 0, finite */
};

/* A random silence (source_gen.h): the means of its periods, in ns. */
struct gen_rsil {
	uint32_t first, last;
	double fraction;
	double silent_ns; /* D */
	double loud_ns;	  /* D (1 - f) / f */
};

/*
 * One partition's place in a random silence: [start_ns, end_ns) is the
 * silent window that holds or follows the latest time asked about (end_ns
 * > that time), drawn from rng. It only moves forwards, which is why the
 * partition's times must only grow (they do: its arrivals in paced mode,
 * now_ns in fast mode).
 */
struct gen_rsil_state {
	int64_t start_ns, end_ns;
	uint64_t rng;
};

struct wm_source_gen {
	struct wm_record_source base; /* first: wm_source_gen_source() */
	bool fast;		      /* rate INFINITY */
	bool bounded;		      /* max_records or end_ts set */
	uint32_t n_parts;
	uint32_t n_finished;
	uint32_t *finish_order; /* [k]: the k-th partition to finish */
	struct gen_part *parts;
	struct gen_heap timed;
	struct gen_heap ready;
	uint32_t n_silences;
	struct gen_sched *silences;
	uint32_t n_bursts;
	struct gen_burst *bursts;
	uint32_t n_outages;
	struct gen_sched *outages;
	uint32_t n_rsil;
	struct gen_rsil *rsil;
	struct gen_rsil_state *rsil_states; /* [n_parts][n_rsil] */
	int64_t end_ns; /* processing time at which partitions end */
	int64_t last_now;
	int64_t vclock;
	wm_ts_t start_epoch_ms;
	int64_t bound_ms;
	int64_t late_by_ms;
	double late_fraction;
	bool late; /* late_fraction > 0 and late_by_ms > 0 */
	uint64_t keys;
	bool zipf;
	double zipf_s;	   /* exponent */
	double zipf_hx1;   /* H(1.5) - 1 */
	double zipf_hn;	   /* H(keys + 0.5) */
	double zipf_slack; /* accept k at once when k - x <= this */
	uint32_t value_cycle;
	uint64_t max_records;
};

/* ---- heaps ---- */

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
 * Its output function is not lib/hash.h's finaliser: the stream is
 * part of what a seed means (a seed gives the same records on every
 * version), so it stays splitmix64's, constants and all. The state moves by
 * the odd constant 2^64 / phi, splitmix64's own increment.
 */

static inline uint64_t
gen_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

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
zipf_setup(struct wm_source_gen *g)
{
	double s = g->zipf_s;

	g->zipf_hx1 = zipf_hint(s, 1.5) - 1.0;
	g->zipf_hn = zipf_hint(s, (double)g->keys + 0.5);
	g->zipf_slack =
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
zipf_rank(const struct wm_source_gen *g, uint64_t *state)
{
	double s = g->zipf_s;

	for (;;) {
		double u = g->zipf_hn +
			   gen_unit(state) * (g->zipf_hx1 - g->zipf_hn);
		double x = zipf_hint_inv(s, u);
		double kd = floor(x + 0.5);
		uint64_t k;

		if (!(kd >= 1.0)) /* also NaN, never expected */
			k = 1;
		else if (kd >= (double)g->keys)
			k = g->keys;
		else
			k = (uint64_t)kd;
		if ((double)k - x <= g->zipf_slack ||
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

static bool
sched_for(const struct gen_sched *s, uint32_t id)
{
	return s->first <= id && id <= s->last;
}

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

static uint64_t
gcd_u64(uint64_t a, uint64_t b)
{
	while (b != 0) {
		uint64_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

/* lcm(a, b) for a, b > 0; UINT64_MAX when it does not fit. */
static uint64_t
lcm_u64(uint64_t a, uint64_t b)
{
	uint64_t q = a / gcd_u64(a, b);

	return q > UINT64_MAX / b ? UINT64_MAX : q * b;
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
						   : lcm_u64(cycle, period);
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

/* Fill *out with p's next record, arriving at t_ns; count it. */
static void
part_emit(const struct wm_source_gen *g, struct gen_part *p, int64_t t_ns,
	  struct wm_record *out)
{
	int64_t delay = 0;
	uint64_t key = 0;

	if (g->late && gen_unit(&p->rng) < g->late_fraction) {
		delay = g->bound_ms + 1;
		if (g->late_by_ms > 1)
			delay += (int64_t)gen_below(&p->rng,
						    (uint64_t)g->late_by_ms);
	} else if (g->bound_ms > 0) {
		delay = (int64_t)gen_below(&p->rng, (uint64_t)g->bound_ms + 1);
	}
	if (g->keys > 1)
		key = g->zipf ? zipf_rank(g, &p->rng) - 1
			      : gen_below(&p->rng, g->keys);
	out->ts = wm_ts_sub(wm_ts_add(g->start_epoch_ms, t_ns / GEN_NS_PER_MS),
			    delay);
	out->key = (int64_t)key;
	out->value = g->value_cycle > 1
			     ? 1 + (int64_t)(p->emitted % g->value_cycle)
			     : 1;
	out->flags = 0;
	out->partition = p->id;
	p->emitted++;
}

/* ---- configuration ---- */

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
	return true;
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

static const struct wm_record_source_ops gen_source_ops;

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

static int
gen_setup_parts(struct wm_source_gen *g, const struct wm_source_gen_conf *c)
{
	for (uint32_t i = 0; i < g->n_parts; i++) {
		struct gen_part *p = &g->parts[i];
		uint32_t id = c->partitions[i];
		double skew = id < c->n_skew ? c->skew[id] : 1.0;

		p->id = id;
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
			rsil_start(&g->rsil[j], &p->rsil[j]);
		}
		seg_begin(g, p, &p->seg, 0, 0);
		p->seg_passed = p->seg;
		if (g->fast)
			part_set_vstep(p);
	}
	return 0;
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
	g->bound_ms = conf->out_of_orderness_ms;
	g->late_by_ms = conf->late_by_ms;
	g->late_fraction = conf->late_fraction;
	g->late = conf->late_fraction > 0 && conf->late_by_ms > 0;
	g->keys = conf->keys;
	g->zipf = conf->zipf && conf->keys > 1;
	g->zipf_s = conf->zipf_exponent;
	if (g->zipf)
		zipf_setup(g);
	g->value_cycle = conf->value_cycle;
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
	    gen_heap_reserve(&g->timed, g->n_parts) != 0)
		return -ENOMEM;
	if (g->fast && gen_heap_reserve(&g->ready, g->n_parts) != 0)
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
	gen_heap_init(&g->timed);
	gen_heap_init(&g->ready);
	g->base.ops = &gen_source_ops;
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
	gen_start(g);
	return g;
}

void
wm_source_gen_free(struct wm_source_gen *g)
{
	if (g == NULL)
		return;
	free(g->parts);
	free(g->finish_order);
	gen_heap_destroy(&g->timed);
	gen_heap_destroy(&g->ready);
	free(g->silences);
	free(g->bursts);
	free(g->outages);
	free(g->rsil);
	free(g->rsil_states);
	free(g);
}

struct wm_record_source *
wm_source_gen_source(struct wm_source_gen *g)
{
	return &g->base;
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
			part_emit(g, p, p->arrival_ns, out);
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

static int
fast_next(struct wm_source_gen *g, int64_t now_ns, struct wm_record *out)
{
	g->last_now = now_ns;
	if (g->end_ns != INT64_MAX && now_ns >= g->end_ns) {
		for (uint32_t i = 0; i < g->n_parts; i++)
			if (!g->parts[i].finished)
				part_finish(g, &g->parts[i]);
		gen_heap_clear(&g->ready);
		gen_heap_clear(&g->timed);
		return 0;
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
		part_emit(g, p, now_ns, out);
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

int
wm_source_gen_next(struct wm_source_gen *g, int64_t now_ns,
		   struct wm_record *out)
{
	if (g->fast)
		return fast_next(g, now_ns, out);
	return paced_next(g, now_ns, out);
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

/* ---- checkpoints ---- */

#define GEN_SNAP_TAG WM_SNAP_TAG('S', 'G', 'E', 'N')
#define GEN_SNAP_VERSION 1
/* The least bytes of a heap entry (key, index) in a snapshot. */
#define GEN_SNAP_HEAP_ENTRY 12

/* A segment is its start and first arrival; the rest follows from the
 * configuration (seg_begin()). */
static void
snap_put_segment(struct wm_snap_writer *w, const struct gen_segment *seg)
{
	wm_snap_put_i64(w, seg->start_ns);
	wm_snap_put_u64(w, seg->k0);
}

static void
snap_put_heap(struct wm_snap_writer *w, const struct gen_heap *h)
{
	wm_snap_put_u64(w, h->count);
	for (size_t i = 0; i < h->count; i++) {
		wm_snap_put_i64(w, h->nodes[i].key);
		wm_snap_put_u32(w, h->nodes[i].idx);
	}
}

void
wm_source_gen_snapshot(const struct wm_source_gen *g, struct wm_snap_writer *w)
{
	wm_snap_begin(w, GEN_SNAP_TAG, GEN_SNAP_VERSION);
	wm_snap_put_bool(w, g->fast);
	wm_snap_put_u32(w, g->n_parts);
	wm_snap_put_u32(w, g->n_rsil);
	wm_snap_put_u32(w, g->n_finished);
	for (uint32_t i = 0; i < g->n_finished; i++)
		wm_snap_put_u32(w, g->finish_order[i]);
	wm_snap_put_i64(w, g->last_now);
	wm_snap_put_i64(w, g->vclock);
	for (uint32_t i = 0; i < g->n_parts; i++) {
		const struct gen_part *p = &g->parts[i];

		wm_snap_put_u32(w, p->id);
		wm_snap_put_bool(w, p->finished);
		wm_snap_put_bool(w, p->ending);
		wm_snap_put_u64(w, p->k);
		wm_snap_put_i64(w, p->arrival_ns);
		wm_snap_put_u64(w, p->k_passed);
		wm_snap_put_u64(w, p->emitted);
		wm_snap_put_u64(w, p->skipped);
		wm_snap_put_u64(w, p->rng);
		wm_snap_put_i64(w, p->vt);
		wm_snap_put_i64(w, p->loud_from);
		wm_snap_put_i64(w, p->loud_until);
		snap_put_segment(w, &p->seg);
		snap_put_segment(w, &p->seg_passed);
		for (uint32_t j = 0; j < g->n_rsil; j++) {
			wm_snap_put_i64(w, p->rsil[j].start_ns);
			wm_snap_put_i64(w, p->rsil[j].end_ns);
			wm_snap_put_u64(w, p->rsil[j].rng);
		}
	}
	snap_put_heap(w, &g->timed);
	snap_put_heap(w, &g->ready);
	wm_snap_end(w);
}

static int
snap_get_segment(struct wm_snap_reader *r, const struct wm_source_gen *g,
		 const struct gen_part *p, struct gen_segment *seg)
{
	int64_t start = wm_snap_get_i64(r);
	uint64_t k0 = wm_snap_get_u64(r);

	if (wm_snap_reader_error(r) == 0 && start < 0)
		wm_snap_reader_fail(r, -EBADMSG);
	if (wm_snap_reader_error(r) == 0)
		seg_begin(g, p, seg, start, k0);
	return wm_snap_reader_error(r);
}

/* Part i's state from the reader, its identity checked. */
static int
snap_get_part(struct wm_snap_reader *r, struct wm_source_gen *g, uint32_t i)
{
	struct gen_part *p = &g->parts[i];

	if (wm_snap_get_u32(r) != p->id)
		return wm_snap_reader_fail(r, -EINVAL);
	p->finished = wm_snap_get_bool(r);
	p->ending = wm_snap_get_bool(r);
	p->k = wm_snap_get_u64(r);
	p->arrival_ns = wm_snap_get_i64(r);
	p->k_passed = wm_snap_get_u64(r);
	p->emitted = wm_snap_get_u64(r);
	p->skipped = wm_snap_get_u64(r);
	p->rng = wm_snap_get_u64(r);
	p->vt = wm_snap_get_i64(r);
	p->loud_from = wm_snap_get_i64(r);
	p->loud_until = wm_snap_get_i64(r);
	if (snap_get_segment(r, g, p, &p->seg) != 0 ||
	    snap_get_segment(r, g, p, &p->seg_passed) != 0)
		return wm_snap_reader_error(r);
	for (uint32_t j = 0; j < g->n_rsil; j++) {
		p->rsil[j].start_ns = wm_snap_get_i64(r);
		p->rsil[j].end_ns = wm_snap_get_i64(r);
		p->rsil[j].rng = wm_snap_get_u64(r);
	}
	/* The cursors' order (see the top of the file). */
	if (wm_snap_reader_error(r) == 0 &&
	    (p->k_passed > p->k || p->seg.k0 > p->k ||
	     p->seg_passed.k0 > p->k_passed || p->vt < 0))
		wm_snap_reader_fail(r, -EBADMSG);
	if (g->fast)
		part_set_vstep(p);
	p->paused = false;
	p->in_heap = false;
	return wm_snap_reader_error(r);
}

/* One heap's entries, each a live partition in no heap yet. */
static int
snap_get_heap(struct wm_snap_reader *r, struct wm_source_gen *g,
	      struct gen_heap *h, bool used)
{
	uint64_t n = wm_snap_get_count(r, GEN_SNAP_HEAP_ENTRY);

	if (n > (used ? g->n_parts : 0))
		return wm_snap_reader_fail(r, -EBADMSG);
	for (uint64_t i = 0; i < n; i++) {
		int64_t key = wm_snap_get_i64(r);
		uint32_t idx = wm_snap_get_u32(r);

		if (wm_snap_reader_error(r) != 0)
			break;
		if (idx >= g->n_parts || g->parts[idx].finished ||
		    g->parts[idx].in_heap)
			return wm_snap_reader_fail(r, -EBADMSG);
		g->parts[idx].in_heap = true;
		heap_push(h, key, g->parts[idx].id, idx);
	}
	return wm_snap_reader_error(r);
}

/* The finishing order: distinct partitions, exactly those finished. */
static bool
finish_order_valid(const struct wm_source_gen *g)
{
	uint32_t finished = 0;

	for (uint32_t i = 0; i < g->n_parts; i++)
		finished += g->parts[i].finished;
	if (finished != g->n_finished)
		return false;
	for (uint32_t k = 0; k < g->n_finished; k++) {
		uint32_t idx = g->finish_order[k];

		if (idx >= g->n_parts || !g->parts[idx].finished)
			return false;
		for (uint32_t j = 0; j < k; j++)
			if (g->finish_order[j] == idx)
				return false;
	}
	return true;
}

int
wm_source_gen_restore(struct wm_source_gen *g, struct wm_snap_reader *r)
{
	for (uint32_t i = 0; i < g->n_parts; i++)
		if (g->parts[i].emitted != 0 || g->parts[i].paused)
			return wm_snap_reader_fail(r, -EINVAL);
	if (wm_snap_enter(r, GEN_SNAP_TAG, GEN_SNAP_VERSION) != 0)
		return wm_snap_reader_error(r);
	if (wm_snap_get_bool(r) != g->fast ||
	    wm_snap_get_u32(r) != g->n_parts || wm_snap_get_u32(r) != g->n_rsil)
		return wm_snap_reader_fail(r, -EINVAL);
	g->n_finished = wm_snap_get_u32(r);
	if (g->n_finished > g->n_parts)
		return wm_snap_reader_fail(r, -EBADMSG);
	for (uint32_t i = 0; i < g->n_finished; i++)
		g->finish_order[i] = wm_snap_get_u32(r);
	g->last_now = wm_snap_get_i64(r);
	g->vclock = wm_snap_get_i64(r);
	for (uint32_t i = 0; i < g->n_parts; i++)
		if (snap_get_part(r, g, i) != 0)
			return wm_snap_reader_error(r);
	if (!finish_order_valid(g))
		return wm_snap_reader_fail(r, -EBADMSG);
	gen_heap_clear(&g->timed);
	gen_heap_clear(&g->ready);
	if (snap_get_heap(r, g, &g->timed, true) != 0 ||
	    snap_get_heap(r, g, &g->ready, g->fast) != 0 ||
	    wm_snap_leave(r) != 0)
		return wm_snap_reader_error(r);
	/* A partition paused for alignment at the snapshot may have left
	 * its heap; every partition reads after a restore. */
	for (uint32_t i = 0; i < g->n_parts; i++) {
		if (g->parts[i].finished || g->parts[i].in_heap)
			continue;
		g->parts[i].paused = true;
		wm_source_gen_pause(g, i, false, g->last_now);
	}
	return 0;
}

/* ---- as a wm_record_source ---- */

static struct wm_source_gen *
gen_of(struct wm_record_source *src)
{
	return wm_container_of(src, struct wm_source_gen, base);
}

static const struct wm_source_gen *
gen_of_const(const struct wm_record_source *src)
{
	return (const struct wm_source_gen
			*)(const void *)((const char *)src -
					 offsetof(struct wm_source_gen, base));
}

static int
gen_src_next(struct wm_record_source *src, int64_t now_ns,
	     struct wm_record *out)
{
	return wm_source_gen_next(gen_of(src), now_ns, out);
}

static int64_t
gen_src_next_due_ns(const struct wm_record_source *src)
{
	return wm_source_gen_next_due_ns(gen_of_const(src));
}

static bool
gen_src_finished(const struct wm_record_source *src)
{
	return wm_source_gen_finished(gen_of_const(src));
}

static uint32_t
gen_src_n_partitions(const struct wm_record_source *src)
{
	return wm_source_gen_n_partitions(gen_of_const(src));
}

static uint32_t
gen_src_n_finished(const struct wm_record_source *src)
{
	return gen_of_const(src)->n_finished;
}

static uint32_t
gen_src_finished_partition(const struct wm_record_source *src, uint32_t k)
{
	return gen_of_const(src)->finish_order[k];
}

static void
gen_src_partition_stats(const struct wm_record_source *src, uint32_t i,
			int64_t now_ns, struct wm_source_partition_stats *st)
{
	wm_source_gen_partition_stats(gen_of_const(src), i, now_ns, st);
}

static void
gen_src_free(struct wm_record_source *src)
{
	wm_source_gen_free(gen_of(src));
}

static void
gen_src_pause(struct wm_record_source *src, uint32_t i, bool paused,
	      int64_t now_ns)
{
	wm_source_gen_pause(gen_of(src), i, paused, now_ns);
}

static void
gen_src_snapshot(const struct wm_record_source *src, struct wm_snap_writer *w)
{
	wm_source_gen_snapshot(gen_of_const(src), w);
}

static int
gen_src_restore(struct wm_record_source *src, struct wm_snap_reader *r)
{
	return wm_source_gen_restore(gen_of(src), r);
}

static const struct wm_record_source_ops gen_source_ops = {
	.next = gen_src_next,
	.next_due_ns = gen_src_next_due_ns,
	.finished = gen_src_finished,
	.n_partitions = gen_src_n_partitions,
	.n_finished = gen_src_n_finished,
	.finished_partition = gen_src_finished_partition,
	.partition_stats = gen_src_partition_stats,
	.free = gen_src_free,
	.pause = gen_src_pause,
	.snapshot = gen_src_snapshot,
	.restore = gen_src_restore,
};

/* ---- split assignment (Flink's KafkaSourceEnumerator) ---- */

uint32_t
wm_source_gen_split_owner(const char *topic, uint32_t partition,
			  uint32_t parallelism)
{
	uint32_t start = 0;

	if (topic != NULL) {
		/* Java int: hashCode() * 31 wraps, & 0x7FFFFFFF clears the
		 * sign; unsigned arithmetic gives the same bits. */
		uint32_t h =
			(uint32_t)wm_keygroup_hash_string(topic, strlen(topic));

		start = ((h * 31u) & 0x7FFFFFFFu) % parallelism;
	}
	return (uint32_t)(((uint64_t)start + partition) % parallelism);
}

size_t
wm_source_gen_partitions_of(uint32_t subtask, uint32_t parallelism,
			    uint32_t partitions, const char *topic,
			    uint32_t *out, size_t cap)
{
	size_t n = 0;

	for (uint32_t p = 0; p < partitions; p++) {
		if (wm_source_gen_split_owner(topic, p, parallelism) != subtask)
			continue;
		if (n < cap)
			out[n] = p;
		n++;
	}
	return n;
}
