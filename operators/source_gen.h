/*
 * source_gen.h
 *	The synthetic record generator of one source subtask: per partition
 *	arrivals, out-of-order event times, keys and values, silences,
 *	bursts and limits, merged in due order. Pure: no I/O, no clock
 *	reads (processing time is passed in), deterministic from a seed.
 *
 * Time. Processing time is nanoseconds since the job started (now_ns >= 0);
 * the runtime reads it from its clock (monotonic x speed) or from the --sim
 * driver. Event time is Java milliseconds (operators/output.h).
 *
 * Arrivals (paced mode, finite rate). Partition p has the rate
 * r = rate x skew(p) records per second. Its arrivals are numbered k = 0,
 * 1, 2, ... and arrival k happens at the processing time
 *
 *	t_k = floor(k x 10^9 / r) ns		(t_0 = 0: the job start)
 *
 * exactly in 128-bit integers when r is a whole number, else in double
 * (correctly rounded while k < 4.6 x 10^9). The spacing is deterministic, not
 * Poisson: tests predict counts exactly (rate 1000/s over 10 s of event
 * time gives exactly 10000 records per partition) and results do not depend
 * on how often the caller polls, since a record carries the time of its
 * arrival, not the time next() was called.
 *
 * Bursts make the rate piecewise constant: r(t) = rate x skew(p) x B(t),
 * B(t) the product of the factors of the bursts covering p at t (1 if
 * none). B changes only at p's burst edges s_1 < s_2 < ... (the starts and
 * ends of the burst windows that cover p); segment j = [s_j, s_j+1) has
 * the rate r_j (s_0 = 0). Arrival k of segment j happens at
 *
 *	t_k = s_j + floor((k - K_j) x 10^9 / r_j) ns	K_j <= k < K_j+1
 *
 * with K_0 = 0 and K_j+1 the first k whose t_k by segment j's formula is
 * >= s_j+1: the arrival clock restarts at every edge, with an arrival at
 * the edge. Segment j thus holds exactly ceil((s_j+1 - s_j) x r_j / 10^9)
 * arrivals (in real arithmetic; exact for whole r_j): 1000/s with a burst
 * x5 for 30 s from 10 s gives 10000 + 150000 arrivals in the first 40 s.
 * Without bursts there is one segment and the formula above. Each formula
 * is exact as described there (128-bit integers for whole rates).
 *
 * Arrivals (fast mode, rate = INFINITY). Every partition is always due; a
 * record's arrival time is the now_ns of the next() call that returns it.
 * Partitions take turns by virtual time (weighted fair queueing: partition
 * p advances 1/(skew(p) x B(now)) per record, B the bursts in force at the
 * record's arrival, ties by partition id), so with equal
 * skew they alternate and one partition never starves another; a partition
 * returning from a silence starts at the current virtual time (no
 * catch-up burst). Event times then depend on the caller's clock: fast mode
 * is reproducible under --sim, not in real time.
 *
 * Records. For arrival time t (ns) and a delay d (ms):
 *
 *	ts        = start_epoch_ms + floor(t / 10^6) - d
 *	key       = uniform in [0, keys), or Zipf: key k has rank k + 1
 *	value     = 1 + (i mod value_cycle), i = records this partition
 *		    emitted before (0, 1, 2, ...); value_cycle 0 or 1: always 1
 *	flags     = WM_RECORD_PUNCTUATE, for a partition a punctuation
 *		    covers, on every n-th record (i + 1 a multiple of n),
 *		    or by time D on its first record and on each whose
 *		    ts reaches the slot of D after the last marked one's
 *		    (floor(ts / D) above floor(ts' / D), ts' the last
 *		    marked record's ts); else 0
 *	partition = the partition id
 *
 * so a partition that emitted n = q x c + m records (c = value_cycle)
 * summed to n + q x c(c - 1)/2 + m(m - 1)/2. The delay d is uniform in
 * [0, out_of_orderness_ms]; with probability late_fraction (and only if
 * late_by_ms > 0) it is instead uniform in (out_of_orderness_ms,
 * out_of_orderness_ms + late_by_ms]: those records are later than a
 * bounded-out-of-orderness watermark of that bound allows.
 * start_epoch_ms: the event-time origin; 0 (wm_source_gen_conf_init())
 * makes event times read as milliseconds since the job start.
 *
 * Random draws. Each partition has its own splitmix64 stream, seeded from
 * (seed, partition id) alone. Per record it draws, in this order: the late
 * decision (only if late_fraction > 0 and late_by_ms > 0), the delay (only
 * if its range has more than one value), the key (only if keys > 1; Zipf
 * may draw several times). So a partition's records do not depend on which
 * subtask reads it, on the parallelism or on the other partitions.
 *
 * Zipf keys: P(rank j) = j^-s / H(keys, s) for j = 1..keys, s > 0, sampled
 * by rejection-inversion (Hormann and Derflinger, "Rejection-inversion to
 * generate variates from monotone discrete distributions", 1996): O(1)
 * memory and about one uniform draw per key for any keys up to 2^63 and
 * any exponent, exact (no table truncation). Uses log/exp: link -lm.
 *
 * Silences, in processing time since the job start. A silence covers
 * partitions first_partition..last_partition during its windows: the one
 * window [from, to) (to_ms = INT64_MAX: for ever), or, if it is periodic
 * (period P > 0, length L, 0 < L < P), the windows
 *
 *	[from + n x P, from + n x P + L) cut at to, for n = 0, 1, ...
 *
 * that start before to: silent for L at the start of every period P,
 * counted from `from`. A partition is silent while any silence covers it
 * (overlapping silences chain). A silent partition emits nothing: in
 * paced mode its arrivals in a silence are skipped and counted (its
 * arrival clock keeps running, so it resumes with the first arrival at or
 * after the silence's end, e.g. arrival ceil(to x r) without bursts); in
 * fast mode it just sits out (nothing is counted). Periodic silences that
 * together cover all time from some point on (say two of them, each
 * silent for half of a common period) are silent for ever from there.
 * Cost: O(S) when a partition meets the edge of a silence window (S
 * silences), O(1) per record in between.
 *
 * Random silences: partitions first_partition..last_partition each
 * alternate, independently, between sending and silent periods in
 * processing time: silent periods of mean D = mean_ms and sending periods of
 * mean D (1 - f) / f, f = fraction, both exponential, so that in the long
 * run each partition is silent a fraction D / (D + D (1 - f) / f) = f of the
 * time (renewal-reward theorem). Exponential because it is memoryless: a
 * partition that starts silent with probability f, its first period then
 * drawn like any other, is in the stationary state from t = 0 on, so
 * P(silent at t) = f at every t, not only in the long run; and the
 * partitions' silences, drawn from their own streams, are independent, so
 * that n of them are all sending at t with probability (1 - f)^n. Each
 * (random silence, partition) pair has its own splitmix64 stream, seeded
 * from (seed, its index among the random silences, partition id) and
 * apart from the partition's record stream: adding a random silence
 * changes which arrivals are skipped, not the records that remain. A
 * random silence's windows are silence windows as above (they chain with
 * scheduled ones). Lengths are whole nanoseconds (a draw of 0 ns is no
 * window). Cost: O(1) draws per window met, O(R) per silence edge for R
 * random silences.
 *
 * Outages: windows as for silences, in which the partition's records are
 * produced but cannot be read (a broker or network outage, devices that
 * buffer while offline). Paced mode: an arrival in an outage keeps its
 * arrival time, and so its event time, but is due only when the outage
 * ends (overlapping outages chain): the backlog is then due at once, in
 * arrival order, merged with what else is due as ever (ties by partition
 * id). Fast mode: as
 * a silence (records exist only when read). Cost: O(U) per record for U
 * outages covering the partition.
 *
 * Bursts: partitions first_partition..last_partition, windows as for
 * silences (one [from, to), or periodic), and a factor F > 0 by which the
 * rate is multiplied in them (overlapping bursts multiply): the segments
 * above in paced mode, the partition's share of records in fast mode. A
 * burst inside a silence changes the rate of the skipped arrivals. Cost:
 * O(B) when a partition passes one of its burst edges (B bursts), nothing
 * per record.
 *
 * Limits. A partition finishes after emitting max_records records
 * (UINT64_MAX: no limit), or when its event-time clock passes end_ts
 * (INT64_MAX: no end), i.e. at processing time
 * E = (end_ts - start_epoch_ms) ms: in paced mode it emits exactly the
 * arrivals with t_k < E (all with ts < end_ts), in fast mode nothing once
 * now_ns >= E. A silent partition finishes at E too, so that a bounded job
 * with a partition "silent for ever" still ends, at the right time (while
 * it is silent it holds its subtask's watermark, which is the point).
 * A subtask without partitions (parallelism above the partition count) is
 * finished from the start if the generator is bounded (max_records or
 * end_ts set: a bounded Flink source reader without splits ends at once)
 * and never otherwise (an unbounded reader waits for splits for ever).
 *
 * Merging. Due records come out earliest arrival first, ties by partition
 * id; a binary heap of partitions keyed by (due time, id) makes that
 * O(log P) per record, plus the costs of silences and bursts above.
 * Nothing is
 * allocated after wm_source_gen_new().
 *
 * One generator belongs to one subtask (one thread); no locking.
 */
#ifndef WM_OPERATORS_SOURCE_GEN_H
#define WM_OPERATORS_SOURCE_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "operators/output.h"
#include "operators/record_source.h"

/* ---- the synthetic generator ---- */

/* Partitions first..last (inclusive) are silent in [from_ms, to_ms) of
 * processing time since the job start (to_ms = INT64_MAX: for ever), or,
 * with period_ms > 0, in the first length_ms of every period_ms from
 * from_ms on, cut at to_ms (see "Silences"). */
struct wm_source_gen_silence {
	uint32_t first_partition, last_partition;
	int64_t from_ms;
	int64_t to_ms;
	int64_t period_ms; /* 0: once, the whole of [from_ms, to_ms) */
	int64_t length_ms; /* periodic: 0 < length_ms < period_ms */
};

/* Partitions first..last mark records WM_RECORD_PUNCTUATE, which a
 * punctuated watermark generator (operators/watermark.h) emits the
 * timestamp of at once: by count, the every_records-th, 2 x
 * every_records-th, ... record each partition emits; or by event time,
 * one record per slot of every_ms that the partition's records reach
 * (see "Records" above: a marker every so much of event time, as a
 * device that sends a sync mark does). Exactly one of the two is set. A
 * partition is covered by at most one punctuation. */
struct wm_source_gen_punctuation {
	uint32_t first_partition, last_partition;
	uint64_t every_records; /* >= 1, or 0: by time */
	int64_t every_ms;	/* 1..WM_SOURCE_GEN_MAX_PUNCTUATE_MS, or 0 */
};

/* The longest slot of event time a punctuation marks by: a year. */
#define WM_SOURCE_GEN_MAX_PUNCTUATE_MS (366LL * 24 * 3600 * 1000)

/* Partitions first..last are each silent a fraction `fraction` (0 < f < 1)
 * of the time, in periods of mean mean_ms > 0, independently (see "Random
 * silences"). */
struct wm_source_gen_random_silence {
	uint32_t first_partition, last_partition;
	double fraction;
	int64_t mean_ms;
};

/* The rate of partitions first..last is multiplied by factor during the
 * windows of a schedule spelled as a silence's (see "Bursts"). */
struct wm_source_gen_burst {
	uint32_t first_partition, last_partition;
	int64_t from_ms;
	int64_t to_ms;
	int64_t period_ms;
	int64_t length_ms;
	double factor; /* > 0, finite */
};

/*
 * What one subtask generates. The runtime fills it from its topology
 * (runtime/conf/topology.h: struct wm_source_conf, struct wm_job_conf) after
 * wm_source_gen_conf_init(). Pointed-to arrays are copied by
 * wm_source_gen_new() and need not outlive the call.
 */
struct wm_source_gen_conf {
	uint32_t n_partitions;
	const uint32_t *partitions; /* distinct ids, this subtask's; the
				     * order is that of partition_stats() */
	double rate;		    /* records/s per partition; INFINITY:
				     * as fast as possible; > 0 */
	uint32_t n_skew;
	const double *skew;	     /* rate multiplier by partition id (> 0,
			     * finite); ids >= n_skew get 1; NULL: none */
	int64_t out_of_orderness_ms; /* delays uniform in [0, bound] */
	double late_fraction;	     /* in [0, 1] */
	int64_t late_by_ms;	     /* late delays in (bound, bound + this] */
	/* out_of_orderness_ms and late_by_ms are at most
	 * WM_SOURCE_GEN_MAX_DELAY_MS */
	uint64_t keys;	      /* >= 1, <= INT64_MAX */
	bool zipf;	      /* else uniform */
	double zipf_exponent; /* > 0 */
	uint32_t value_cycle; /* values 1..cycle in turn; 0, 1: all 1 */
	uint32_t n_silences;
	const struct wm_source_gen_silence *silences;
	uint32_t n_bursts;
	const struct wm_source_gen_burst *bursts;
	uint32_t n_random_silences;
	const struct wm_source_gen_random_silence *random_silences;
	uint32_t n_outages; /* windows spelled as silences' */
	const struct wm_source_gen_silence *outages;
	uint32_t n_punctuations;
	const struct wm_source_gen_punctuation *punctuations;
	uint64_t seed;
	int64_t start_epoch_ms; /* event time of processing time 0 */
	uint64_t max_records;	/* per partition; UINT64_MAX: none */
	wm_ts_t end_ts;		/* event-time end, exclusive; INT64_MAX */
};

/* Longest delay the generator takes (31,000 years): bound + late_by + 1
 * and the start-epoch arithmetic can then never overflow. */
#define WM_SOURCE_GEN_MAX_DELAY_MS ((int64_t)1000000000000000)

struct wm_source_gen;

/*
 * Defaults: no partitions, rate INFINITY, no skew, in order, no late
 * records, 1 key, uniform (zipf_exponent 1 ready for zipf = true), values
 * all 1, no silences, no bursts, seed 0, start_epoch_ms 0, no limits.
 */
void wm_source_gen_conf_init(struct wm_source_gen_conf *conf);

/*
 * Validate `conf` and allocate a generator at processing time 0. NULL with
 * errno EINVAL (a value out of range, a duplicate partition id, a
 * punctuation with first > last or every_records 0, or covering a
 * partition another covers, a silence
 * or a burst with first > last, from < 0, to < from, period < 0, or
 * period > 0 without 0 < length < period; a burst factor not finite and
 * positive; a partition whose rate or weight its bursts would take to
 * infinity or 0) or ENOMEM.
 */
struct wm_source_gen *wm_source_gen_new(const struct wm_source_gen_conf *conf);
void wm_source_gen_free(struct wm_source_gen *g);

/* The generator as a wm_record_source (same object; freeing either frees
 * both). */
struct wm_record_source *wm_source_gen_source(struct wm_source_gen *g);

/*
 * 1 and *out = the next record due at now_ns (earliest arrival first, ties
 * by partition id), or 0 when none is due; finishing partitions whose end
 * passed is part of it. After 0, wm_source_gen_next_due_ns(g) > now_ns.
 * now_ns should not go backwards (if it does, nothing more becomes due
 * until it catches up).
 */
int wm_source_gen_next(struct wm_source_gen *g, int64_t now_ns,
		       struct wm_record *out);

/*
 * Up to `cap` records due at now_ns into out[], exactly those that `cap`
 * calls of next() would return, in their order, leaving the generator as
 * they would; with due_ns, due_ns[i] is what next_due_ns() says before
 * record i. Returns how many (0: none is due). Fast mode makes a run of
 * partitions taking turns without its heap (source_gen.c, "fast mode's
 * round"); paced mode goes record by record.
 */
uint32_t wm_source_gen_next_run(struct wm_source_gen *g, int64_t now_ns,
				struct wm_record *out, int64_t *due_ns,
				uint32_t cap);

/* When next() may next return a record or finish a partition; a value at
 * or below the last now_ns means "now"; INT64_MAX: never (finished, or
 * silent for ever without an end). */
int64_t wm_source_gen_next_due_ns(const struct wm_source_gen *g);

/*
 * Stop reading the i-th partition of conf->partitions (`paused`), or read
 * it again, at now_ns (watermark alignment). Paced: its arrivals go on
 * while it is paused and wait, as records wait in a Kafka partition; on
 * resuming they are due at once, in arrival order and with the event
 * times of their arrivals, merged with the others by arrival time as
 * ever (so the backlog comes first). Fast: it sits out and rejoins the
 * round at the current virtual time, as after a silence. A paused
 * partition emits nothing; in paced mode it does not finish either (its
 * backlog must come out first), in fast mode it finishes at the end as
 * the others do (there is no backlog). Pausing a finished one does
 * nothing. O(log P).
 */
void wm_source_gen_pause(struct wm_source_gen *g, uint32_t i, bool paused,
			 int64_t now_ns);

/* The processing time at which its partitions end (end_ts, see
 * "Limits"); INT64_MAX: none. */
int64_t wm_source_gen_end_ns(const struct wm_source_gen *g);

/* Every partition is finished (see "Limits" for a subtask without any). */
bool wm_source_gen_finished(const struct wm_source_gen *g);

uint32_t wm_source_gen_n_partitions(const struct wm_source_gen *g);

/* Counters of the i-th partition of conf->partitions (i < n_partitions);
 * `skipped` counts the arrivals skipped by silence up to now_ns (paced
 * mode; 0 in fast mode). */
void wm_source_gen_partition_stats(const struct wm_source_gen *g, uint32_t i,
				   int64_t now_ns,
				   struct wm_source_partition_stats *st);

/* When the i-th partition's next record is due (paced mode: its arrival,
 * or the end of the outage that delays it, or end_ns where it finishes);
 * INT64_MAX when finished. WM_RECORD_SOURCE_DUE_UNKNOWN when paused (its
 * arrivals wait for the runtime) and in fast mode, which makes records
 * as they are read, none due at a time. */
int64_t wm_source_gen_partition_next_due_ns(const struct wm_source_gen *g,
					    uint32_t i);

/*
 * The generator's position (the record source's snapshot and restore):
 * per partition its arrival cursor, what it emitted and skipped, its
 * random streams (records' and random silences') and its place in the
 * merge, so that a restored generator continues each partition's stream
 * exactly, arrivals keeping their times. Restore into a new generator
 * of the same configuration: 0, or the reader's error (-EINVAL for
 * another configuration or a used generator, -EBADMSG for a malformed
 * section); on error free it.
 */
void wm_source_gen_snapshot(const struct wm_source_gen *g,
			    struct wm_snap_writer *w);
int wm_source_gen_restore(struct wm_source_gen *g, struct wm_snap_reader *r);

/*
 * Which source subtask reads Kafka partition `partition` of `topic`, as
 * Flink's KafkaSource assigns splits (KafkaSourceEnumerator.getSplitOwner):
 *
 *	start = ((topic.hashCode() * 31) & 0x7FFFFFFF) % parallelism
 *	owner = (start + partition) % parallelism
 *
 * with Java's String.hashCode() of the UTF-8 `topic` (wrapping int
 * arithmetic). The partitions of one topic thus go round-robin over the
 * subtasks, starting at a subtask that depends on the topic name. topic
 * NULL: start = 0, owner = partition % parallelism. parallelism >= 1;
 * partition < 2^31 - parallelism (Java int, no overflow).
 */
uint32_t wm_source_gen_split_owner(const char *topic, uint32_t partition,
				   uint32_t parallelism);

/*
 * The partitions among 0..partitions-1 that `subtask` of `parallelism`
 * reads (wm_source_gen_split_owner() == subtask), in ascending order: the
 * first min(count, cap) are written to out[]. Returns the count (each
 * subtask gets floor or ceil of partitions / parallelism).
 */
size_t wm_source_gen_partitions_of(uint32_t subtask, uint32_t parallelism,
				   uint32_t partitions, const char *topic,
				   uint32_t *out, size_t cap);

#endif /* WM_OPERATORS_SOURCE_GEN_H */
