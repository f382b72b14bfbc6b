/*
 * source_gen_internal.h
 *	What the files of the generator share: its state (struct
 *	wm_source_gen, a partition's cursors, the schedules of silences,
 *	bursts and outages), its heaps, and the few functions one file calls
 *	in another. For source_gen.c (the per-record path),
 *	source_gen_conf.c (the configuration into a generator),
 *	source_gen_snapshot.c (checkpoints) and source_gen_source.c (the
 *	generator as a wm_record_source) only.
 *
 * The per-record path stays in source_gen.c, with its helpers static
 * there so that they inline; what the other files need of it is behind
 * the out-of-line functions at the end of this header, each called once
 * per generator or per restore, never per record. The files call one
 * way: source_gen_source.c calls the others, source_gen_conf.c and
 * source_gen_snapshot.c call source_gen.c, which calls none of them.
 */
#ifndef WM_OPERATORS_SOURCE_GEN_INTERNAL_H
#define WM_OPERATORS_SOURCE_GEN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "operators/source_gen.h"

#define GEN_NS_PER_MS 1000000

struct gen_heap_ent {
	int64_t key;
	uint32_t id;  /* partition id: the tie-breaker */
	uint32_t idx; /* index into parts[] */
};

/* The struct of the heaps alone: their functions are source_gen.c's, where
 * the merge inlines them (the other files reach the heaps through
 * wm_source_gen_heaps_*()). */
#define WM_HEAP_PREFIX gen_heap
#define WM_HEAP_ENTRY struct gen_heap_ent
#define WM_HEAP_DECLARE
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
	/* Every punctuate_every-th record it emits is marked
	 * WM_RECORD_PUNCTUATE; 0: none. */
	uint64_t punctuate_every;
	/* Or one record per punctuate_every_ms of event time (0: not by
	 * time): the next whose ts is at least next_mark_ts, which is then
	 * the start of the slot after that record's (WM_TS_MIN: none marked
	 * yet, so the first is). */
	int64_t punctuate_every_ms;
	wm_ts_t next_mark_ts;
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

/*
 * What a record's draws and fields need of the configuration (source_gen.h
 * "Records"), apart from the generator so that a run's loop can hold it in
 * locals: stores to the record and the partition could otherwise alias
 * these fields and make the compiler load them again for every record.
 */
struct gen_draws {
	int64_t bound_ms;
	int64_t late_by_ms;
	double late_fraction;
	bool late; /* late_fraction > 0 and late_by_ms > 0 */
	bool zipf;
	uint32_t value_cycle;
	bool punctuate; /* some partition marks records */
	uint64_t keys;
	double zipf_s;	   /* exponent */
	double zipf_hx1;   /* H(1.5) - 1 */
	double zipf_hn;	   /* H(keys + 0.5) */
	double zipf_slack; /* accept k at once when k - x <= this */
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
	struct gen_draws draws;
	uint64_t max_records;
};

/*
 * splitmix64's output function: it seeds each partition's streams
 * (source_gen_conf.c) and draws from them (source_gen.c, gen_rand()).
 * Not lib/hash.h's finaliser: the stream is part of what a seed means (a
 * seed gives the same records on every version), so it stays
 * splitmix64's, constants and all.
 */
static inline uint64_t
gen_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Whether schedule s covers partition `id`. */
static inline bool
sched_for(const struct gen_sched *s, uint32_t id)
{
	return s->first <= id && id <= s->last;
}

/* The operations of a generator as a wm_record_source
 * (source_gen_source.c), which wm_source_gen_new() gives it. */
extern const struct wm_record_source_ops wm_source_gen_ops;

/* ---- source_gen.c, out of line for the other files ---- */

/*
 * Where every partition's clocks begin, once the configuration is in g
 * and validated (wm_source_gen_new()): the Zipf constants, each
 * partition's first segment and random silence windows, then each
 * partition in its heap (or finished at once: no records to make).
 */
void wm_source_gen_start(struct wm_source_gen *g);

/* seg_begin(): *seg as p's segment from `start` on, first arrival k0 (a
 * restored cursor). */
void wm_source_gen_seg_begin(const struct wm_source_gen *g,
			     const struct gen_part *p, struct gen_segment *seg,
			     int64_t start, uint64_t k0);

/* part_set_vstep(): fast mode, p's virtual time per record from its
 * segment. */
void wm_source_gen_set_vstep(struct gen_part *p);

/* The heaps of g: both empty, nothing allocated (before anything can
 * fail, so that wm_source_gen_free() may destroy them), then room in
 * them for every partition (-ENOMEM), destroyed. */
void wm_source_gen_heaps_init(struct wm_source_gen *g);
int wm_source_gen_heaps_reserve(struct wm_source_gen *g);
void wm_source_gen_heaps_destroy(struct wm_source_gen *g);

/* For a restore: both heaps emptied, then partition idx (id `id`) put
 * into h at key. */
void wm_source_gen_heaps_clear(struct wm_source_gen *g);
void wm_source_gen_heap_push(struct gen_heap *h, int64_t key, uint32_t id,
			     uint32_t idx);

#endif /* WM_OPERATORS_SOURCE_GEN_INTERNAL_H */
