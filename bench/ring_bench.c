/*
 * ring_bench.c
 *	wmbench ring: the shared-memory transport between real processes.
 *
 * Each variant forks its processes over a segment made by wm_shm_create(),
 * exactly as the runtime will, pins them with sched_setaffinity() and lets
 * them wait with the real doorbells (ipc/wait.h). 32-byte records, 4096-cell
 * rings, as the peer harness (doc/performance.md section 4) measures its
 * rings, so that lines from both can be compared as ratios from one run:
 *
 *   batched   32 records per batch, producer CPU 0, consumer CPU 1
 *   single    1 record per batch (each record published on its own)
 *   pingpong  one record there and back; round trip in ns
 *   paced     32 records every 50 us: latency (median and mean) and the
 *             consumer's CPU use, the life of an operator whose input is
 *             slower than it
 *   samecore  batched, both processes on CPU 0 (they yield to each other)
 *   pairsN    N batched pairs at once on CPU 0 and 1: aggregate
 *   rows      batched, each record a row of ROW_BYTES bytes of fields
 *             (ipc/frame.h, "Rows"): a head and its parts written with
 *             wm_ring_put_row(), read one frame at a time and copied out
 *             with wm_ring_read_row(), as the gate hands rows out. Its
 *             figure beside batched's is what fields cost the ring
 *
 * Before every measurement a cache-line ping-pong between CPU 0 and 1 is
 * timed and printed as probe_ns, so that runs on this noisy VM can be
 * matched to peers lines taken in the same machine state.
 *
 * Producers write each record straight into its cell (wm_ring_reserve(),
 * wm_ring_put(), wm_ring_commit()) and consumers read runs of records in
 * place (wm_ring_peek_records(), wm_ring_consume_run()): the path a job's
 * records take between workers (runtime/run/worker.c). A record is three
 * words the ring gives no meaning (ipc/frame.h): here its number, or its
 * send time.
 *
 * Every received record is checked (sequence and value); a mismatch fails
 * the benchmark with exit 70 rather than report a number for broken data.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "bench/stats.h"
#include "bench/wmbench.h"
#include "base/log.h"
#include "ipc/shm.h"

#define RING_CELLS 4096u
#define MAX_REPS 64
#define MAX_PAIRS 64
#define PACED_PERIOD_NS 50000
#define PACED_BATCH 32
/* Latency histogram: 100 ns buckets up to 1 ms, then one overflow bucket. */
#define LAT_BUCKET_NS 100
#define LAT_BUCKETS 10001
/* A Nexmark bid's fields: auction, bidder and price (8 bytes each), and
 * its text `extra` (67 bytes on average) with a 2-byte length. */
#define ROW_BYTES 93u

enum variant { BATCHED, SINGLE, PINGPONG, PACED, SAMECORE, PAIRS, ROWS };
#define VARIANT_LAST ROWS

static const char *const variant_names[] = {
	[BATCHED] = "batched", [SINGLE] = "single",	[PINGPONG] = "pingpong",
	[PACED] = "paced",     [SAMECORE] = "samecore", [PAIRS] = "pairs",
	[ROWS] = "rows",
};

/* What one side reports through its metrics block in the segment. */
struct side_result {
	int64_t start_ns, end_ns; /* CLOCK_MONOTONIC around the work */
	int64_t cpu_ns;		  /* this process's CPU time in between */
	uint64_t received;
	uint64_t errors;
	uint64_t lat_sum_ns;
	uint32_t lat_hist[LAT_BUCKETS];
	_Atomic uint32_t ready; /* rendezvous before the clock starts */
};

struct options {
	unsigned reps;
	double target_s; /* per repetition */
	unsigned pairs;
	bool only[VARIANT_LAST + 1];
	bool any_only;
};

static int64_t
now_ns(void)
{
	return (int64_t)wm_stats_now_ns();
}

static int64_t
cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* Failure (a CPU missing from our cpuset) leaves the process
	 * unpinned: the number is then only less comparable, not wrong. */
	(void)sched_setaffinity(0, sizeof(set), &set);
}

/* Both sides of a pair wait here so neither times the other's start-up. */
static void
rendezvous(struct side_result *me, struct side_result *peer)
{
	atomic_store_explicit(&me->ready, 1, memory_order_release);
	while (!atomic_load_explicit(&peer->ready, memory_order_acquire))
		sched_yield();
}

/* ------------------------------------------------------------------ */
/* The cache-line probe */

struct probe_line {
	alignas(WM_FALSE_SHARING_RANGE) _Atomic uint64_t turn;
};

/* One shared line bounced between CPU 0 and CPU 1: ns per round trip. */
static double
probe_ns(void)
{
	const uint64_t rounds = 20000;
	struct probe_line *line =
		mmap(NULL, sizeof(*line), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int64_t start, end;
	pid_t pid;

	if (line == MAP_FAILED)
		return -1;
	atomic_store(&line->turn, 0);
	pid = fork();
	if (pid == 0) {
		pin(1);
		/* Ready: the clock starts only once both sides are pinned
		 * and running, or start-up would count as round trips. */
		atomic_store_explicit(&line->turn, 1, memory_order_release);
		for (uint64_t i = 1; i <= rounds; i++) {
			while (atomic_load_explicit(&line->turn,
						    memory_order_acquire) !=
			       2 * i)
				wm_cpu_relax();
			atomic_store_explicit(&line->turn, 2 * i + 1,
					      memory_order_release);
		}
		_exit(0);
	}
	pin(0);
	while (atomic_load_explicit(&line->turn, memory_order_acquire) != 1)
		sched_yield();
	start = now_ns();
	for (uint64_t i = 1; i <= rounds; i++) {
		atomic_store_explicit(&line->turn, 2 * i, memory_order_release);
		while (atomic_load_explicit(&line->turn,
					    memory_order_acquire) != 2 * i + 1)
			wm_cpu_relax();
	}
	end = now_ns();
	waitpid(pid, NULL, 0);
	munmap(line, sizeof(*line));
	return (double)(end - start) / (double)rounds;
}

/* ------------------------------------------------------------------ */
/* Producer and consumer loops */

/* --wait: a wait mode forced for every process (-1: the runtime's
 * choice), to compare with the peers' spin-waiting lines. */
static int forced_wait_mode = -1;

/* --four-stores: producers publish each cell with four stores, the
 * portable way, even where two 16-byte stores are allowed (ring.h,
 * wm_cell_publish()), to show what the paired stores are worth. */
static bool four_stores;

struct endpoint {
	struct wm_shm seg;
	struct wm_waiter waiter;
	struct side_result *result;
	struct side_result *peer;
};

/* The waiters' before_sleep: ring the peer, fenced, before sleeping. */
static void
flush_producer(void *arg)
{
	wm_ring_flush(arg);
}

static void
release_consumer(void *arg)
{
	wm_ring_release(arg);
}

/* Ping-pong sides both produce and consume. */
struct duplex {
	struct wm_ring_producer *p;
	struct wm_ring_consumer *c;
};

static void
flush_both(void *arg)
{
	struct duplex *d = arg;

	wm_ring_flush(d->p);
	wm_ring_release(d->c);
}

static bool
producer_has_space(void *arg)
{
	return wm_ring_free(arg, 1) > 0;
}

static bool
consumer_has_frame(void *arg)
{
	return wm_ring_ready(arg);
}

static inline __attribute__((always_inline)) void
produce(struct endpoint *e, uint32_t channel, uint32_t consumer, uint64_t n,
	uint32_t batch, bool paced, bool rows)
{
	/* A row's bytes: its number first, then filler. */
	unsigned char row[ROW_BYTES];
	const uint32_t cells = rows ? wm_ring_row_cells(ROW_BYTES) : 1;

	struct wm_ring_producer p;
	struct timespec next;
	int64_t cpu0;

	wm_ring_producer_attach(&p, wm_shm_ring(&e->seg, channel),
				wm_shm_doorbell(&e->seg, consumer));
	p.paired_stores &= !four_stores;
	e->waiter.before_sleep = flush_producer;
	e->waiter.before_sleep_arg = &p;
	rendezvous(e->result, e->peer);
	cpu0 = cpu_ns();
	e->result->start_ns = now_ns();
	memset(row, 'x', sizeof(row));
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (uint64_t i = 0; i < n;) {
		uint32_t b = n - i < batch ? (uint32_t)(n - i) : batch;
		int64_t ts = 0;

		if (paced) {
			next.tv_nsec += PACED_PERIOD_NS;
			if (next.tv_nsec >= 1000000000) {
				next.tv_nsec -= 1000000000;
				next.tv_sec++;
			}
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
					NULL);
			ts = now_ns();
		}
		/* In place, as a worker stages its output. */
		for (uint32_t done = 0; done < b;) {
			struct wm_ring_span s =
				wm_ring_reserve(&p, (b - done) * cells);
			uint32_t k = s.n / cells;

			for (uint32_t j = 0; j < k; j++) {
				uint64_t x = i + done + j;

				if (rows) {
					memcpy(row, &x, sizeof(x));
					wm_ring_put_row(&s, j * cells, 0, x, x,
							x, row, ROW_BYTES);
					continue;
				}
				wm_ring_put(&s, j, 0, paced ? (uint64_t)ts : x,
					    x, x);
			}
			wm_ring_commit(&p, k * cells);
			done += k;
			if (done < b)
				wm_wait(&e->waiter, producer_has_space, &p, -1);
		}
		if (paced)
			wm_ring_flush(&p); /* the batch is complete; now idle */
		i += b;
	}
	wm_ring_flush(&p);
	e->result->end_ns = now_ns();
	e->result->cpu_ns = cpu_ns() - cpu0;
}

/* Attach c to `channel`, fed by subtask `producer`, as e's consumer, and
 * meet the producer: the CPU time at the start. */
static int64_t
start_consumer(struct endpoint *e, struct wm_ring_consumer *c, uint32_t channel,
	       uint32_t producer)
{
	wm_ring_consumer_attach(c, wm_shm_ring(&e->seg, channel),
				wm_shm_doorbell(&e->seg, producer));
	e->waiter.before_sleep = release_consumer;
	e->waiter.before_sleep_arg = c;
	rendezvous(e->result, e->peer);
	return cpu_ns();
}

/* The consumer takes at most `burst` frames per call, the producer's batch:
 * the peers' consumers pop as many as their producers push. */
static inline __attribute__((always_inline)) void
consume(struct endpoint *e, uint32_t channel, uint32_t producer, uint64_t n,
	uint32_t burst, bool paced)
{
	struct wm_ring_consumer c;
	struct side_result *res = e->result;
	uint64_t expect = 0, lat_sum = 0;
	int64_t cpu0;
	/* The histogram lives in private memory while the clock runs (the
	 * segment's copy is written once at the end), as the peers keep
	 * theirs in registers. */
	static uint32_t hist[LAT_BUCKETS];

	memset(hist, 0, sizeof(hist)); /* and fault it in now */
	cpu0 = start_consumer(e, &c, channel, producer);
	while (expect < n) {
		const struct wm_cell *cell;
		uint32_t got = wm_ring_peek_records(&c, &cell, burst);

		if (got == 0) {
			/* Empty (peek then publishes `read`), a record that
			 * arrived just now, or not a record: this stream
			 * carries records only. */
			struct wm_frame f = {0};
			int r = wm_ring_peek(&c, &f);

			if (r == 0)
				wm_wait(&e->waiter, consumer_has_frame, &c, -1);
			else if (r != 1 || f.kind != WM_FRAME_RECORD)
				res->errors++;
			if (res->errors)
				break;
			continue;
		}
		/* Read in place: one clock read per burst, as the peers do:
		 * at ~30 ns a read, one per record would be a fifth of an
		 * idle consumer's CPU. */
		int64_t now = paced ? now_ns() : 0;
		uint64_t bad = 0;

		for (uint32_t k = 0; k < got; k++) {
			bad += cell[k].payload[2] != expect + k;
			if (paced) {
				int64_t lat = now - (int64_t)cell[k].payload[0];
				uint64_t bucket = (uint64_t)lat / LAT_BUCKET_NS;

				lat_sum += (uint64_t)lat;
				hist[bucket < LAT_BUCKETS ? bucket
							  : LAT_BUCKETS - 1]++;
			}
		}
		wm_ring_consume_run(&c, got);
		expect += got;
		if (bad != 0) {
			res->errors += bad;
			break;
		}
	}
	wm_ring_release(&c);
	res->end_ns = now_ns();
	res->cpu_ns = cpu_ns() - cpu0;
	res->received = expect;
	res->lat_sum_ns = lat_sum;
	memcpy(res->lat_hist, hist, sizeof(hist));
}

/* The rows variant's consumer: a frame at a time, each row copied out of
 * its parts (as wm_gate_next() does) and checked: its number in its head
 * and in its first bytes. */
static void
consume_rows(struct endpoint *e, uint32_t channel, uint32_t producer,
	     uint64_t n)
{
	struct wm_ring_consumer c;
	struct side_result *res = e->result;
	unsigned char row[WM_FRAME_ROW_MAX_BYTES];
	uint64_t expect = 0;
	int64_t cpu0;

	cpu0 = start_consumer(e, &c, channel, producer);
	while (expect < n) {
		struct wm_frame f;
		uint32_t len = 0;
		uint64_t first;
		int r = wm_ring_peek(&c, &f);

		if (r == 0) {
			wm_wait(&e->waiter, consumer_has_frame, &c, -1);
			continue;
		}
		if (r == 1 && f.kind == WM_FRAME_ROW)
			r = wm_ring_read_row(&c, row, &len);
		else
			r = -EBADMSG; /* this stream carries rows only */
		memcpy(&first, row, sizeof(first));
		if (r < 0 || len != ROW_BYTES || f.payload[2] != expect ||
		    first != expect) {
			res->errors++;
			break;
		}
		wm_ring_consume_run(&c, (uint32_t)r);
		expect++;
	}
	wm_ring_release(&c);
	res->end_ns = now_ns();
	res->cpu_ns = cpu_ns() - cpu0;
	res->received = expect;
}

/*
 * One side of a stream. produce() and consume() are inlined here with the
 * batch and the pacing as constants, so each variant runs a loop compiled
 * for it, as the peers' harness compiles its loops for each ring: with the
 * batch a variable, the one-record stream paid for the batch and pacing
 * logic on every record, and measured that loop rather than the ring
 * (doc/performance.md section 9.5).
 */
static void
stream(struct endpoint *e, uint32_t s, enum variant v, uint64_t n)
{
	uint32_t ch = s / 2;

	if (s % 2 == 0 && v == SINGLE)
		produce(e, ch, s + 1, n, 1, false, false);
	else if (s % 2 == 0 && v == PACED)
		produce(e, ch, s + 1, n, PACED_BATCH, true, false);
	else if (s % 2 == 0 && v == ROWS)
		produce(e, ch, s + 1, n, PACED_BATCH, false, true);
	else if (s % 2 == 0)
		produce(e, ch, s + 1, n, PACED_BATCH, false, false);
	else if (v == ROWS)
		consume_rows(e, ch, s - 1, n);
	else if (v == SINGLE)
		consume(e, ch, s - 1, n, 1, false);
	else if (v == PACED)
		consume(e, ch, s - 1, n, PACED_BATCH, true);
	else
		consume(e, ch, s - 1, n, PACED_BATCH, false);
}

/* Send record `i` in place and nudge the peer at once. */
static inline void
send_one(struct wm_ring_producer *p, struct wm_waiter *w, uint64_t i)
{
	struct wm_ring_span s;

	while ((s = wm_ring_reserve(p, 1)).n == 0)
		wm_wait(w, producer_has_space, p, -1);
	wm_ring_put(&s, 0, 0, i, 0, i);
	wm_ring_commit(p, 1);
	wm_ring_nudge(p);
}

/* The next record, in place, waiting for it; NULL if the next frame is
 * not a record (this stream carries records only) or is corrupt. */
static inline const struct wm_cell *
next_record(struct wm_ring_consumer *c, struct wm_waiter *w)
{
	const struct wm_cell *cell;

	while (wm_ring_peek_records(c, &cell, 1) == 0) {
		struct wm_frame f = {0};
		int r = wm_ring_peek(c, &f); /* empty: publishes `read` */

		if (r == 0)
			wm_wait(w, consumer_has_frame, c, -1);
		else if (r != 1 || f.kind != WM_FRAME_RECORD)
			return NULL;
	}
	return cell;
}

/* Ping-pong: the initiator sends record i and waits for it back. */
static void
bounce(struct endpoint *e, uint32_t self, uint32_t peer, uint64_t n,
       bool initiator)
{
	struct wm_ring_producer p;
	struct wm_ring_consumer c;
	int64_t cpu0;

	/* Channel 0 goes from subtask 0 to 1, channel 1 back. */
	wm_ring_producer_attach(&p, wm_shm_ring(&e->seg, self),
				wm_shm_doorbell(&e->seg, peer));
	p.paired_stores &= !four_stores;
	wm_ring_consumer_attach(&c, wm_shm_ring(&e->seg, peer),
				wm_shm_doorbell(&e->seg, peer));
	struct duplex d = {&p, &c};

	e->waiter.before_sleep = flush_both;
	e->waiter.before_sleep_arg = &d;
	rendezvous(e->result, e->peer);
	cpu0 = cpu_ns();
	e->result->start_ns = now_ns();
	for (uint64_t i = 0; i < n; i++) {
		const struct wm_cell *cell;

		if (initiator)
			send_one(&p, &e->waiter, i);
		cell = next_record(&c, &e->waiter);
		if (cell == NULL || cell->payload[2] != i) {
			e->result->errors++;
			break;
		}
		wm_ring_consume_run(&c, 1);
		if (!initiator)
			send_one(&p, &e->waiter, i);
	}
	e->result->end_ns = now_ns();
	e->result->cpu_ns = cpu_ns() - cpu0;
	e->result->received = n;
}

/* ------------------------------------------------------------------ */
/* One repetition of one variant */

struct rep_result {
	double value;	    /* the variant's main metric */
	double cpu_pct;	    /* paced: consumer CPU */
	double lat_mean_us; /* paced */
	bool failed;
};

static double
hist_median_us(const uint32_t *hist, uint64_t count)
{
	uint64_t seen = 0;

	for (size_t b = 0; b < LAT_BUCKETS; b++) {
		seen += hist[b];
		if (2 * seen >= count)
			return ((double)b + 0.5) * LAT_BUCKET_NS / 1000.0;
	}
	return -1;
}

/* The segment of one repetition: pair k's subtask 2k produces on channel k
 * to subtask 2k+1; ping-pong also has channel 1 back. `ch` has room for
 * 2 * MAX_PAIRS channels. */
static struct wm_shm_spec
rep_layout(enum variant v, unsigned n_pairs, struct wm_shm_channel_spec *ch)
{
	struct wm_shm_spec spec = {2 * n_pairs, 0, ch,
				   sizeof(struct side_result), 0};

	for (unsigned k = 0; k < n_pairs; k++)
		ch[spec.n_channels++] = (struct wm_shm_channel_spec){
			2 * k, 2 * k + 1, RING_CELLS};
	if (v == PINGPONG)
		ch[spec.n_channels++] =
			(struct wm_shm_channel_spec){1, 0, RING_CELLS};
	return spec;
}

/* How every process of the repetition waits: --wait if given, else what
 * the runtime would choose. */
static enum wm_wait_mode
rep_wait_mode(enum variant v, unsigned n_pairs)
{
	if (forced_wait_mode >= 0)
		return (enum wm_wait_mode)forced_wait_mode;
	/* More processes than CPUs: spinning holds the CPU the peer
	 * needs, so waiters yield (what the runtime chooses too). */
	if (v == SAMECORE || (v == PAIRS && n_pairs > 1))
		return WM_WAIT_YIELD;
	return WM_WAIT_FUTEX;
}

/* The repetition's figure from what its n_sub sides left in the segment;
 * failed if a side saw an error or a record is missing. */
static struct rep_result
rep_figures(const struct wm_shm *seg, enum variant v, uint32_t n_sub,
	    uint64_t n)
{
	struct rep_result out = {0};
	int64_t start = INT64_MAX, end = 0;
	uint64_t received = 0;

	for (uint32_t s = 0; s < n_sub; s++) {
		const struct side_result *r = wm_shm_metrics(seg, s);

		if (r->errors != 0)
			out.failed = true;
		if (s % 2 == 0 && r->start_ns < start)
			start = r->start_ns;
		if (r->end_ns > end)
			end = r->end_ns;
		if (s % 2 == 1)
			received += r->received;
	}
	if (v == PINGPONG) {
		const struct side_result *r = wm_shm_metrics(seg, 0);

		out.value = (double)(r->end_ns - r->start_ns) / (double)n;
	} else if (v == PACED) {
		const struct side_result *c = wm_shm_metrics(seg, 1);

		out.value = hist_median_us(c->lat_hist, c->received);
		out.lat_mean_us =
			(double)c->lat_sum_ns / (double)c->received / 1000.0;
		out.cpu_pct =
			100.0 * (double)c->cpu_ns / (double)(c->end_ns - start);
	} else {
		out.value = (double)received / ((double)(end - start) / 1e3);
	}
	if (received != (v == PINGPONG ? n : n * (n_sub / 2)))
		out.failed = true;
	return out;
}

/* One repetition of variant v moving n records (or round trips): a fresh
 * segment, a process per side, the figure once all have exited. */
static struct rep_result
run_rep(enum variant v, unsigned pairs, uint64_t n)
{
	unsigned n_pairs = v == PAIRS ? pairs : 1;
	uint32_t n_sub = 2 * n_pairs;
	struct wm_shm_channel_spec ch[2 * MAX_PAIRS];
	struct wm_shm_spec spec = rep_layout(v, n_pairs, ch);
	enum wm_wait_mode mode = rep_wait_mode(v, n_pairs);
	struct rep_result out = {0};
	struct wm_shm seg;
	pid_t pids[2 * MAX_PAIRS];
	bool failed = false;
	char err[256];

	if (wm_shm_create(&spec, &seg, err, sizeof(err)) != 0) {
		wm_log("wmbench: %s", err);
		out.failed = true;
		return out;
	}
	for (uint32_t s = 0; s < n_sub; s++) {
		pids[s] = fork();
		if (pids[s] != 0)
			continue;
		/* Subtask s, in its own process. Its loops are inlined
		 * here, as they always were: moved to a function of their
		 * own, which GCC sees run only before _exit(), they would be
		 * compiled as cold code, for size. */
		struct endpoint e;
		int cpu = v == SAMECORE ? 0 : (int)(s % 2);

		if (v == PAIRS)
			cpu = (int)((s / 2 + s % 2) % 2);
		pin(cpu);
		if (wm_shm_attach(seg.fd, &e.seg, err, sizeof(err)) != 0) {
			wm_log("wmbench: %s", err);
			_exit(EX_OSERR);
		}
		wm_waiter_init(&e.waiter, wm_shm_doorbell(&e.seg, s), mode);
		e.result = wm_shm_metrics(&e.seg, s);
		e.peer = wm_shm_metrics(&e.seg, s ^ 1);
		if (v == PINGPONG)
			bounce(&e, s, s ^ 1, n, s == 0);
		else
			stream(&e, s, v, n);
		_exit(0);
	}
	for (uint32_t s = 0; s < n_sub; s++) {
		int status;

		waitpid(pids[s], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed = true;
	}
	out = rep_figures(&seg, v, n_sub, n);
	out.failed |= failed;
	wm_shm_detach(&seg);
	close(seg.fd);
	return out;
}

/* Records (or round trips) per repetition: a short trial, then what fits
 * target_s, capped at a nominal count. */
static uint64_t
size_run(enum variant v, unsigned pairs, double target_s)
{
	static const uint64_t nominal[] = {
		[BATCHED] = 50000000,  [SINGLE] = 50000000,
		[PINGPONG] = 1000000,  [PACED] = 192000,
		[SAMECORE] = 25000000, [PAIRS] = 20000000,
		[ROWS] = 20000000,
	};
	uint64_t trial = nominal[v] / 50;
	struct rep_result r;
	double per_s;

	if (v == PACED) /* paced by the clock: the count sets the time */
		return (uint64_t)(target_s * 1e9 / PACED_PERIOD_NS) *
		       PACED_BATCH;
	r = run_rep(v, pairs, trial);
	if (r.failed || r.value <= 0)
		return trial;
	per_s = v == PINGPONG ? 1e9 / r.value : r.value * 1e6;
	if (v == PAIRS)
		per_s /= pairs;
	uint64_t fit = (uint64_t)(per_s * target_s);

	return fit < trial ? trial : fit > nominal[v] ? nominal[v] : fit;
}

static int
bench_variant(enum variant v, const struct options *o)
{
	unsigned pairs = v == PAIRS ? o->pairs : 1;
	double value[MAX_REPS], cpu[MAX_REPS], mean[MAX_REPS], probe[MAX_REPS];
	uint64_t n = size_run(v, pairs, o->target_s);
	char prefix[96], suffix[64];

	for (unsigned i = 0; i < o->reps; i++) {
		struct rep_result r;

		probe[i] = probe_ns();
		r = run_rep(v, pairs, n);
		if (r.failed) {
			wm_log("wmbench: ring variant %s: records lost, "
			       "duplicated or reordered, or a process "
			       "failed",
			       variant_names[v]);
			return EX_SOFTWARE;
		}
		value[i] = r.value;
		cpu[i] = r.cpu_pct;
		mean[i] = r.lat_mean_us;
	}
	struct wm_stats p = wm_stats_summarize(probe, o->reps);

	if (v == PAIRS)
		snprintf(prefix, sizeof(prefix),
			 "bench=ring impl=wmrun variant=pairs%u", pairs);
	else
		snprintf(prefix, sizeof(prefix),
			 "bench=ring impl=wmrun variant=%s", variant_names[v]);
	snprintf(suffix, sizeof(suffix),
		 "reps=%u count=%" PRIu64 " stores_per_cell=%d probe_ns=%.0f",
		 o->reps, n,
		 !four_stores && wm_ring_paired_stores_supported() ? 2 : 4,
		 p.median);
	if (v == PACED) {
		struct wm_stats s = wm_stats_summarize(value, o->reps);

		wm_stats_print(stdout, prefix, "lat_us", &s, suffix);
		s = wm_stats_summarize(mean, o->reps);
		wm_stats_print(stdout, prefix, "lat_mean_us", &s, suffix);
		s = wm_stats_summarize(cpu, o->reps);
		wm_stats_print(stdout, prefix, "consumer_cpu_pct", &s, suffix);
	} else {
		struct wm_stats s = wm_stats_summarize(value, o->reps);

		wm_stats_print(stdout, prefix,
			       v == PINGPONG ? "rtt_ns" : "mrec_per_s", &s,
			       suffix);
	}
	fflush(stdout);
	return 0;
}

static void
ring_help(FILE *out)
{
	fprintf(out,
		"Usage: wmbench ring [OPTION]...\n"
		"Throughput, round trip and waiting cost of the shared-memory\n"
		"rings between real processes (CPU 0 and 1).\n"
		"\n"
		"  -v, --variant NAME   only this variant (repeatable): "
		"batched,\n"
		"                       single, pingpong, paced, samecore, "
		"pairs,\n"
		"                       rows\n"
		"  -p, --pairs N        pairs for the pairs variant (default "
		"16;\n"
		"                       pairs1 is always measured beside it)\n"
		"  -r, --reps R         repetitions (default 5)\n"
		"  -t, --target-ms MS   time per repetition (default 300)\n"
		"  -w, --wait MODE      force spin, futex or yield waiting "
		"(default:\n"
		"                       futex, yield where processes share "
		"CPUs)\n"
		"  -4, --four-stores    publish each cell with four stores, "
		"the "
		"portable\n"
		"                       way (default: two 16-byte stores where "
		"the CPU\n"
		"                       makes them atomic)\n"
		"  -h, --help           this text\n");
}

/* argv into *o (defaults first). -1 to go on, or the exit status once
 * --help has been answered or a bad command line refused. */
static int
ring_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{"variant", required_argument, NULL, 'v'},
		{"pairs", required_argument, NULL, 'p'},
		{"reps", required_argument, NULL, 'r'},
		{"target-ms", required_argument, NULL, 't'},
		{"wait", required_argument, NULL, 'w'},
		{"four-stores", no_argument, NULL, '4'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint64_t v;
	int c;

	*o = (struct options){.reps = 5, .target_s = 0.3, .pairs = 16};
	optind = 1;
	while ((c = getopt_long(argc, argv, "v:p:r:t:w:4h", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'v': {
			size_t k;

			for (k = 0; k <= VARIANT_LAST; k++)
				if (strcmp(optarg, variant_names[k]) == 0)
					break;
			if (k > VARIANT_LAST)
				return wm_bench_usage_error(
					"ring", "unrecognized variant \"%s\"",
					optarg);
			o->only[k] = true;
			o->any_only = true;
			break;
		}
		case 'p':
			if (!wm_bench_parse_count(optarg, 1, MAX_PAIRS, &v))
				return wm_bench_usage_error(
					"ring", "invalid pair count \"%s\"",
					optarg);
			o->pairs = (unsigned)v;
			break;
		case 'r':
			if (!wm_bench_parse_count(optarg, 1, MAX_REPS, &v))
				return wm_bench_usage_error(
					"ring", "invalid repetitions \"%s\"",
					optarg);
			o->reps = (unsigned)v;
			break;
		case 't':
			if (!wm_bench_parse_count(optarg, 1, 60000, &v))
				return wm_bench_usage_error(
					"ring", "invalid time \"%s\"", optarg);
			o->target_s = (double)v / 1000.0;
			break;
		case 'w': {
			enum wm_wait_mode m;

			if (wm_wait_mode_parse(optarg, &m) != 0)
				return wm_bench_usage_error(
					"ring", "unrecognized wait mode \"%s\"",
					optarg);
			forced_wait_mode = (int)m;
			break;
		}
		case '4':
			four_stores = true;
			break;
		case 'h':
			ring_help(stdout);
			return 0;
		default:
			return wm_bench_usage_error("ring", "invalid option");
		}
	}
	if (optind != argc)
		return wm_bench_usage_error(
			"ring", "unexpected argument \"%s\"", argv[optind]);
	return -1;
}

int
wm_bench_ring(int argc, char **argv)
{
	struct options o;
	int r = ring_options(argc, argv, &o);

	if (r >= 0)
		return r;
	for (size_t k = 0; k <= VARIANT_LAST; k++) {
		if (o.any_only && !o.only[k])
			continue;
		r = 0;
		if (k == PAIRS && o.pairs != 1) {
			struct options one = o;

			one.pairs = 1;
			r = bench_variant(PAIRS, &one);
		}
		if (r == 0)
			r = bench_variant((enum variant)k, &o);
		if (r != 0)
			return r;
	}
	return 0;
}
