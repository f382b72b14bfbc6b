/*
 * ring.h
 *	Single-producer single-consumer ring of 32-byte cells in shared
 *	memory: the fast path, all inline.
 *
 * Shared state (struct wm_ring, in the segment):
 *
 * cells[]	cell at position p lives in cells[p & mask]; positions count
 *		cells ever written and never wrap (64 bits)
 * read		positions < read are free for the producer; advanced only by
 *		the consumer, published every WM_RING_PUBLISH_EVERY cells and
 *		when it finds the ring empty, if it moved since
 * written	the producer's position as of its last nudge or ring
 *		(wm_ring_nudge(), wm_ring_flush()), for wm_ring_dump() alone: a
 *		failure report shows how far the producer had announced beside
 *		how far the consumer read. No decision reads it: the consumer
 *		learns of new cells from the cells' own sequence numbers
 *		(frame.h), and whether anyone sleeps is the doorbell's (wait.h)
 * size, mask	set by the supervisor before the workers start; read-only
 *
 * Invariant: 0 <= producer position - read <= size, where cells put in
 * place but not yet committed (wm_ring_reserve()) count as written.
 *
 * Each side keeps its position in private memory (struct wm_ring_producer,
 * struct wm_ring_consumer) and the producer caches `read`, reloading it only
 * when the ring looks full. Memory ordering, one label per edge:
 *
 * P1 producer store-release cell tail   after the payload   pairs with C1
 * C1 consumer load-acquire  cell tail   before the payload  pairs with P1
 * C2 consumer store-release read        after the payloads  pairs with P2
 * P2 producer load-acquire  read        before reusing      pairs with C2
 *
 * P1 is a release store of the tail after plain stores of the payload, or,
 * on x86-64 processors with AVX, a 16-byte store of the tail with the last
 * payload word after a 16-byte store of the first two (wm_cell_publish()
 * says why that is the same edge). P1/C1 make a cell's payload visible
 * with its tail; C2/P2 keep the producer from overwriting a cell the
 * consumer is still reading. `written` is stored relaxed and orders
 * nothing: only the dump reads it. A consumer may load a tail again,
 * relaxed, after C1 acquired it: the producer does not touch the cell
 * again before C2.
 *
 * Fast paths: the producer pushes one frame (wm_ring_try_push()) or writes
 * a run of records in place (wm_ring_reserve(), wm_ring_put(),
 * wm_ring_commit()); the consumer pops one frame into struct wm_frame, or
 * reads a run of records in place (wm_ring_peek_records(),
 * wm_ring_consume_run()). In place, a record costs two stores (four without
 * AVX) on one side and two loads on the other. The ring gives a record's
 * words no meaning (frame.h).
 *
 * Waking (wait.h): every WM_RING_NOTIFY_EVERY cells each side nudges the
 * other's doorbell (unfenced; a nudge that finds the other asleep fences
 * and wakes it, and counts as a ring), every WM_RING_FENCE_EVERY cells it
 * rings it (fenced), and wm_ring_flush() / wm_ring_release() ring at once.
 * A side must call those before it sleeps (its waiter's before_sleep),
 * before it goes idle, and on its flush deadline while busy, so the other
 * side never sleeps on work for long and never for ever.
 */
#ifndef WM_IPC_RING_H
#define WM_IPC_RING_H

#include <errno.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ipc/frame.h"
#include "ipc/wait.h"

/* Whether wm_cell_publish() can publish with two 16-byte stores: x86-64,
 * and not a ThreadSanitizer build. Whether this processor allows it is
 * asked at run time (wm_ring_paired_stores_supported()). */
#if defined(__SANITIZE_THREAD__)
#define WM_RING_HAVE_PAIRED_STORES 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WM_RING_HAVE_PAIRED_STORES 0
#endif
#endif
#ifndef WM_RING_HAVE_PAIRED_STORES
#if defined(__x86_64__)
#define WM_RING_HAVE_PAIRED_STORES 1
#else
#define WM_RING_HAVE_PAIRED_STORES 0
#endif
#endif

#if WM_RING_HAVE_PAIRED_STORES
#include <emmintrin.h>
#ifdef __AVX__
#define WM_RING_MOVDQA "vmovdqa"
#else
#define WM_RING_MOVDQA "movdqa"
#endif
#endif

/* Smallest and largest ring, in cells (both powers of two). Fewer than
 * 2^24 cells keeps the sequences of p and p - size apart (frame.h). */
#define WM_RING_MIN_CELLS 64u
#define WM_RING_MAX_CELLS (1u << 23)

/* Consumer publishes `read` this often; both sides nudge this often and
 * ring with the fence at least every WM_RING_FENCE_EVERY cells. */
#define WM_RING_PUBLISH_EVERY 32u
#define WM_RING_NOTIFY_EVERY 32u
#define WM_RING_FENCE_EVERY 1024u

#define WM_RING_MAGIC 0x676e6972u /* "ring" */

struct wm_ring {
	/* Read-only after wm_ring_init(). */
	uint32_t magic;
	uint32_t size; /* cells, a power of two */
	uint64_t mask;
	/* Producer's line. */
	alignas(WM_FALSE_SHARING_RANGE) _Atomic uint64_t written;
	/* Consumer's line. */
	alignas(WM_FALSE_SHARING_RANGE) _Atomic uint64_t read;
	alignas(WM_FALSE_SHARING_RANGE) struct wm_cell cells[];
};

_Static_assert(offsetof(struct wm_ring, written) % WM_FALSE_SHARING_RANGE == 0,
	       "producer counter starts its own cache lines");
_Static_assert(offsetof(struct wm_ring, read) % WM_FALSE_SHARING_RANGE == 0,
	       "consumer counter starts its own cache lines");
_Static_assert(offsetof(struct wm_ring, cells) % WM_FALSE_SHARING_RANGE == 0,
	       "cells start their own cache lines");

/* Producer's private view. */
struct wm_ring_producer {
	struct wm_ring *ring;
	struct wm_cell *cells;
	uint64_t mask;
	uint64_t size;
	uint64_t pos;	     /* next position to write */
	uint64_t read_cache; /* last `read` seen (P2); may lag */
	uint64_t notified;   /* pos at the last nudge */
	uint64_t rung;	     /* pos at the last fenced ring */
	/* wm_cell_publish() with two stores: set by attach where supported;
	 * a test or benchmark may clear it to compare the portable path. */
	bool paired_stores;
	struct wm_doorbell *consumer_bell;
};

/* Consumer's private view. */
struct wm_ring_consumer {
	struct wm_ring *ring;
	struct wm_cell *cells;
	uint64_t mask;
	uint64_t pos;	   /* next position to read */
	uint64_t released; /* `read` at the last nudge */
	uint64_t rung;	   /* `read` at the last fenced ring */
	struct wm_doorbell *producer_bell;
};

/* Bytes a ring of `cells` cells needs, or 0 if `cells` is not a power of
 * two in [WM_RING_MIN_CELLS, WM_RING_MAX_CELLS]. */
size_t wm_ring_size(uint32_t cells);

/* Set up a ring in `mem`: wm_ring_size() bytes, 128-byte aligned and zeroed
 * (zeroed cells have kind 0, "never written"). Only the ring's first cache
 * lines are written, so the pages of the cells stay untouched until the
 * workers use them and can still be bound to the consumer's NUMA node.
 * Done by the supervisor before any worker starts. 0 or -EINVAL. */
int wm_ring_init(void *mem, uint32_t cells);

/* Check a ring another process set up, `bytes` long: magic and size. 0, or
 * -EBADMSG with a message in err. */
int wm_ring_check(const struct wm_ring *ring, size_t bytes, char *err,
		  size_t errlen);

/* Whether this build and processor can publish a cell with two 16-byte
 * stores (wm_cell_publish()): an Intel or AMD x86-64 processor that
 * reports AVX. */
bool wm_ring_paired_stores_supported(void);

/* Attach this process as the ring's only producer or only consumer; the
 * doorbell is the other side's (may be NULL: nobody to wake). The ring
 * must be fresh: positions start at 0. */
void wm_ring_producer_attach(struct wm_ring_producer *p, struct wm_ring *ring,
			     struct wm_doorbell *consumer_bell);
void wm_ring_consumer_attach(struct wm_ring_consumer *c, struct wm_ring *ring,
			     struct wm_doorbell *producer_bell);

/* Print the ring's counters and the cells around `position` (to find a
 * corrupt cell), for failure reports. */
void wm_ring_dump(const struct wm_ring *ring, uint64_t position, FILE *out);

/* --------------------------------------------------------------------- */
/* Producer fast path */

/* Free cells, reloading `read` (P2) only when fewer than `want` seem free. */
static inline uint64_t
wm_ring_free(struct wm_ring_producer *p, uint64_t want)
{
	uint64_t free_cells = p->size - (p->pos - p->read_cache);

	if (free_cells < want) {
		/* P2: pairs with C2 in wm_ring_release(). */
		p->read_cache = atomic_load_explicit(&p->ring->read,
						     memory_order_acquire);
		free_cells = p->size - (p->pos - p->read_cache);
	}
	return free_cells;
}

/* Ring the consumer, fenced (the W2 side of wait.h): before sleeping,
 * going idle, or on the flush deadline. */
static inline void
wm_ring_flush(struct wm_ring_producer *p)
{
	if (p->rung == p->pos)
		return;
	p->notified = p->rung = p->pos;
	atomic_store_explicit(&p->ring->written, p->pos, memory_order_relaxed);
	if (p->consumer_bell != NULL)
		wm_doorbell_ring(p->consumer_bell);
}

/* Nudge the consumer now (unfenced, wait.h): a message that should not
 * wait for WM_RING_NOTIFY_EVERY cells, from a producer that stays awake.
 * A nudge that found the consumer asleep fenced and woke it, a full ring:
 * a wm_ring_flush() right after it has nothing left to do (without this a
 * paced producer's flush would find the consumer, just woken by the
 * nudge, asleep again and wake it a second time for nothing). */
static inline void
wm_ring_nudge(struct wm_ring_producer *p)
{
	p->notified = p->pos;
	atomic_store_explicit(&p->ring->written, p->pos, memory_order_relaxed);
	if (p->consumer_bell != NULL && wm_doorbell_nudge(p->consumer_bell))
		p->rung = p->pos;
}

/*
 * Publish a cell: its three payload words, then its tail (P1, which pairs
 * with C1 in wm_ring_peek(), wm_ring_peek_records() and wm_ring_ready()).
 *
 * With `paired` (wm_ring_paired_stores_supported()), as two aligned
 * 16-byte stores, {a, b} and then {c, tail}, instead of four: a producer's
 * stores wait in its store queue for their lines to come back from the
 * consumer, and with half as many stores per line the queue asks for twice
 * as many lines at once, which pays wherever lines travel between cores
 * (doc/performance.md section 9.9).
 *
 * On x86 hardware this is the P1 edge:
 *   - the second store is single-copy atomic. Intel guarantees it for
 *     MOVDQA, MOVAPS and MOVAPD (and their VEX.128 forms) with an aligned
 *     operand, on every Intel processor that reports AVX (SDM vol. 3A,
 *     "Guaranteed Atomic Operations"); AMD for any naturally aligned
 *     16-byte load or store to cacheable memory on its processors that
 *     report AVX (APM vol. 2, "Access Atomicity"). Hence the vendor check
 *     in wm_ring_paired_stores_supported() and an aligned move in the asm
 *     (an unaligned MOVDQU, even at an aligned address, is not covered).
 *     So a consumer that loads the new tail loads c from the same store;
 *   - x86 makes stores visible in program order (TSO), so {a, b} is
 *     visible first, as a release store would have it;
 *   - the asm's memory clobber keeps the compiler from moving any earlier
 *     store past it or merging the two into one 32-byte store, for which
 *     no vendor promises atomicity.
 * In C11 terms there is no release store any more, and the consumer's
 * payload loads race with these stores; what makes it sound is the asm,
 * opaque to the compiler, and the hardware rules above. No sanitizer sees
 * this path: ThreadSanitizer builds take the portable one (TSan cannot see
 * the asm store as atomic), and the tests run both (check_ring,
 * check_ring_process). The shared segment is ordinary write-back memory,
 * and cells are 16-byte aligned (struct wm_cell). Elsewhere, the portable
 * release store.
 */
static inline void
wm_cell_publish(struct wm_cell *cell, uint64_t a, uint64_t b, uint64_t c,
		uint64_t tail, bool paired)
{
#if WM_RING_HAVE_PAIRED_STORES
	if (paired) {
		__m128i ab = _mm_set_epi64x((long long)b, (long long)a);
		__m128i ct = _mm_set_epi64x((long long)tail, (long long)c);

		_mm_store_si128((__m128i *)(void *)&cell->payload[0], ab);
		/* Built with -mavx, the VEX form, as the compiler's own
		 * stores: mixing in the legacy SSE form costs a transition
		 * on some Intel processors. */
		__asm__ volatile(WM_RING_MOVDQA " %1, %0"
				 : "=m"(*(__m128i *)(void *)&cell->payload[2])
				 : "x"(ct)
				 : "memory");
		return;
	}
#else
	(void)paired;
#endif
	cell->payload[0] = a;
	cell->payload[1] = b;
	cell->payload[2] = c;
	atomic_store_explicit(&cell->tail, tail, memory_order_release);
}

static inline void
wm_ring_write_cell(struct wm_ring_producer *p, enum wm_frame_kind kind,
		   uint32_t arg, uint64_t a, uint64_t b, uint64_t c)
{
	wm_cell_publish(&p->cells[p->pos & p->mask], a, b, c,
			wm_frame_tail(kind, arg, p->pos), p->paired_stores);
	p->pos++;
}

/* After writing cells: nudge the consumer every WM_RING_NOTIFY_EVERY
 * cells, ring it fenced every WM_RING_FENCE_EVERY. */
static inline void
wm_ring_wrote(struct wm_ring_producer *p)
{
	if (p->pos - p->notified < WM_RING_NOTIFY_EVERY)
		return;
	if (p->pos - p->rung >= WM_RING_FENCE_EVERY) {
		wm_ring_flush(p);
		return;
	}
	wm_ring_nudge(p);
}

/* Push one frame; false (nothing written) if the ring is full. */
static inline bool
wm_ring_try_push(struct wm_ring_producer *p, enum wm_frame_kind kind,
		 uint32_t arg, uint64_t a, uint64_t b, uint64_t c)
{
	if (wm_ring_free(p, 1) == 0)
		return false;
	wm_ring_write_cell(p, kind, arg, a, b, c);
	wm_ring_wrote(p);
	return true;
}

/*
 * Keep `x` a scalar load of its own: the compiler may not merge it with its
 * neighbour into one 16-byte load. The caller has usually just written the
 * record field by field, and a load that spans two stores still in the
 * store buffer cannot be forwarded from them: it waits until they reach the
 * cache, behind the cells of earlier records, each waiting for its line to
 * come back from the consumer: the producer's top stall, once per record
 * (doc/performance.md section 9.2). Costs nothing.
 */
#define WM_RING_SCALAR(x) __asm__("" : "+r"(x))

/*
 * A run of RECORD cells written in place: the producer's counterpart of
 * wm_ring_peek_records(), and its data path. The producer reserves room
 * for the run, puts each record into its cell and commits the run when it
 * has put enough or must let the consumer know (before any other frame,
 * before it waits):
 *
 *	struct wm_ring_span s = wm_ring_reserve(p, n);	// s.n <= n free
 *	for (i = 0; i < k; i++)				// k <= s.n
 *		wm_ring_put(&s, i, arg_i, a_i, b_i, c_i);
 *	wm_ring_commit(p, k);
 *
 * wm_ring_put() publishes the cell at once (P1), so the consumer may read
 * it before the commit; wm_ring_commit(p, k) then moves the position past
 * the k cells and notifies as wm_ring_try_push() does. Put each of cells
 * 0 .. k-1 exactly once and commit them, before any other push: a cell put
 * but not committed would be written again, under the same sequence, by
 * the next push. Cells reserved but not put are simply not used. Between
 * the puts and the commit the consumer may have read the cells already and
 * published a `read` past the producer's position: nothing may look at the
 * free space (wm_ring_free()), flush or nudge until the commit.
 *
 * A producer may put each record as soon as it has it, or gather a run in
 * its own memory first and put it in one go, so that the consumer does not
 * read lines that the producer is still writing (the workers do); here a
 * record costs its cell's stores and nothing else. The span is a copy of
 * what the puts need: the cells are uint64_t and may alias the producer's
 * struct, so puts through `p` would reload its fields after every store
 * (doc/performance.md section 9.3).
 */
struct wm_ring_span {
	struct wm_cell *cells;
	uint64_t mask;
	uint64_t pos; /* position of cell 0 of the span */
	uint32_t n;   /* cells reserved */
	bool paired_stores;
};

static inline struct wm_ring_span
wm_ring_reserve(struct wm_ring_producer *p, uint32_t n)
{
	uint64_t free_cells = wm_ring_free(p, n);

	return (struct wm_ring_span){
		.cells = p->cells,
		.mask = p->mask,
		.pos = p->pos,
		.n = n < free_cells ? n : (uint32_t)free_cells,
		.paired_stores = p->paired_stores,
	};
}

/* Put RECORD cell `i` of the span, words `a`, `b`, `c` and argument `arg`
 * (opaque to the ring), and publish it (P1, wm_cell_publish()). */
static inline void
wm_ring_put(const struct wm_ring_span *s, uint32_t i, uint32_t arg, uint64_t a,
	    uint64_t b, uint64_t c)
{
	uint64_t pos = s->pos + i;

	WM_RING_SCALAR(a);
	WM_RING_SCALAR(b);
	wm_cell_publish(&s->cells[pos & s->mask], a, b, c,
			wm_frame_tail(WM_FRAME_RECORD, arg, pos),
			s->paired_stores);
}

/* The cells a row of `len` bytes takes, its head included: 1 + its parts
 * (frame.h). `len` is 1 .. WM_FRAME_ROW_MAX_BYTES. */
static inline uint32_t
wm_ring_row_cells(uint32_t len)
{
	return 1 +
	       (len + WM_FRAME_ROW_PART_BYTES - 1) / WM_FRAME_ROW_PART_BYTES;
}

/*
 * Put a row at cell `i` of the span: its parts, the `len` bytes at `row`
 * (1 .. WM_FRAME_ROW_MAX_BYTES) in cells i + 1 onwards, then its head, a
 * ROW cell with the words and argument of a RECORD, at i. The span must
 * hold wm_ring_row_cells(len) cells from i, which the row then fills (the
 * caller commits them with the span's others). Each part is published
 * (P1) before the head, and the head last (P1 again): its release store
 * orders every part's stores before it, so a consumer that acquires the
 * head (C1) reads finished parts (frame.h, "Rows"). The last part's
 * bytes past `len` are zero.
 */
static inline void
wm_ring_put_row(const struct wm_ring_span *s, uint32_t i, uint32_t arg,
		uint64_t a, uint64_t b, uint64_t c, const void *row,
		uint32_t len)
{
	const unsigned char *bytes = row;
	uint32_t parts = wm_ring_row_cells(len) - 1;

	for (uint32_t k = 0; k < parts; k++) {
		const unsigned char *at = bytes + k * WM_FRAME_ROW_PART_BYTES;
		uint32_t left = len - k * WM_FRAME_ROW_PART_BYTES;
		uint64_t pos = s->pos + i + 1 + k, w0, w1, w2;

		/* A whole part as three word loads straight from the row into
		 * registers, each kept a scalar (WM_RING_SCALAR()): through
		 * an array on the stack, the compiler stored the words and
		 * loaded the first two back as one 16-byte load, which no
		 * pair of 8-byte stores can forward to (a third of the
		 * producer's time under perf). Only the last part may be
		 * short, and is zero-filled. */
		if (left >= WM_FRAME_ROW_PART_BYTES) {
			memcpy(&w0, at, 8);
			memcpy(&w1, at + 8, 8);
			memcpy(&w2, at + 16, 8);
		} else {
			uint64_t w[3] = {0, 0, 0};

			memcpy(w, at, left);
			w0 = w[0];
			w1 = w[1];
			w2 = w[2];
		}
		WM_RING_SCALAR(w0);
		WM_RING_SCALAR(w1);
		wm_cell_publish(&s->cells[pos & s->mask], w0, w1, w2,
				wm_frame_tail(WM_FRAME_ROW_PART, len, pos),
				s->paired_stores);
	}
	wm_cell_publish(&s->cells[(s->pos + i) & s->mask], a, b, c,
			wm_frame_tail(WM_FRAME_ROW, arg, s->pos + i),
			s->paired_stores);
}

static inline void
wm_ring_commit(struct wm_ring_producer *p, uint32_t k)
{
	p->pos += k;
	wm_ring_wrote(p);
}

/* --------------------------------------------------------------------- */
/* Consumer fast path */

/* Publish the consumer's position (C2) without waking anyone. */
static inline void
wm_ring_publish_read(struct wm_ring_consumer *c)
{
	/* C2: pairs with P2 in wm_ring_free(). */
	atomic_store_explicit(&c->ring->read, c->pos, memory_order_release);
}

/*
 * What an empty poll does: publish the position only if it moved. The
 * consumer is the only writer of `read`, so its relaxed load returns its
 * own last store, from a line it holds; a store on every poll would take
 * the line from a producer that has just read it (P2) for nothing.
 */
static inline void
wm_ring_publish_read_if_moved(struct wm_ring_consumer *c)
{
	if (atomic_load_explicit(&c->ring->read, memory_order_relaxed) !=
	    c->pos)
		wm_ring_publish_read(c);
}

/*
 * Publish the consumer's position and ring the producer, fenced, in case it
 * waits for space (the W2 side of wait.h): before sleeping, going idle, or
 * on the flush deadline.
 */
static inline void
wm_ring_release(struct wm_ring_consumer *c)
{
	if (c->rung == c->pos)
		return;
	c->released = c->rung = c->pos;
	wm_ring_publish_read(c);
	if (c->producer_bell != NULL)
		wm_doorbell_ring(c->producer_bell);
}

/*
 * Publish the position if it moved, and nudge the producer (unfenced,
 * wait.h) unless a fenced ring already covers this position: the
 * consumer's side of the busy path. A nudge can miss a producer falling
 * asleep on a full ring just now (its flag not yet seen); another nudge
 * later sees it. A busy consumer therefore nudges every input after each
 * burst (wm_gate_nudge()), even one it drained: the nudges every
 * WM_RING_PUBLISH_EVERY cells stop with the ring's cells, and a ring
 * smaller than WM_RING_FENCE_EVERY may never reach a fenced ring.
 */
static inline void
wm_ring_nudge_producer(struct wm_ring_consumer *c)
{
	if (c->pos != c->released) {
		c->released = c->pos;
		wm_ring_publish_read(c);
	}
	if (c->rung != c->pos && c->producer_bell != NULL &&
	    wm_doorbell_nudge(c->producer_bell))
		c->rung = c->pos; /* it fenced: a full ring (wait.h) */
}

/* Every WM_RING_PUBLISH_EVERY consumed cells: publish and nudge; every
 * WM_RING_FENCE_EVERY: release, fenced. */
static inline void
wm_ring_consumed(struct wm_ring_consumer *c)
{
	if (c->pos - c->released < WM_RING_PUBLISH_EVERY)
		return;
	if (c->pos - c->rung >= WM_RING_FENCE_EVERY) {
		wm_ring_release(c);
		return;
	}
	wm_ring_nudge_producer(c);
}

enum wm_cell_state { WM_CELL_EMPTY, WM_CELL_READY, WM_CELL_CORRUPT };

/* What the cell with `tail` at the consumer's position holds: this lap's
 * frame (its kind is checked by the caller), nothing yet (last lap's cell,
 * or in the first lap a never-written one, all zero), or anything else,
 * which only corruption produces (frame.h). */
static inline enum wm_cell_state
wm_ring_cell_state(const struct wm_ring_consumer *c, uint64_t tail)
{
	uint32_t seq = wm_frame_tail_seq(tail);

	if (tail == 0) /* never written: only possible in the first lap */
		return c->pos <= c->mask ? WM_CELL_EMPTY : WM_CELL_CORRUPT;
	if (seq == (c->pos & WM_SEQ_MASK))
		return WM_CELL_READY;
	if (seq == ((c->pos - (c->mask + 1)) & WM_SEQ_MASK))
		return WM_CELL_EMPTY;
	return WM_CELL_CORRUPT;
}

/*
 * Look at the frame at the consumer's position without consuming it.
 * Returns 1 and fills *f if a frame is ready, 0 if the ring is empty (then
 * the consumer's position is published if it moved, unfenced, so the
 * producer sees all the space; call wm_ring_release() before waiting), or
 * -EBADMSG if the cell there is corrupt (position unchanged; report it with
 * wm_ring_dump()).
 */
static inline int
wm_ring_peek(struct wm_ring_consumer *c, struct wm_frame *f)
{
	const struct wm_cell *cell = &c->cells[c->pos & c->mask];
	/* C1: pairs with P1 in wm_cell_publish(). */
	uint64_t tail = atomic_load_explicit(&cell->tail, memory_order_acquire);

	switch (wm_ring_cell_state(c, tail)) {
	case WM_CELL_EMPTY:
		wm_ring_publish_read_if_moved(c);
		return 0;
	case WM_CELL_CORRUPT:
		return -EBADMSG;
	case WM_CELL_READY:
		break;
	}
	f->kind = wm_frame_tail_kind(tail);
	f->arg = wm_frame_tail_arg(tail);
	/* A part is read with its head (wm_ring_read_row()), never alone. */
	if (!wm_frame_valid(f->kind, f->arg) || f->kind == WM_FRAME_ROW_PART)
		return -EBADMSG;
	f->payload[0] = cell->payload[0];
	f->payload[1] = cell->payload[1];
	f->payload[2] = cell->payload[2];
	return 1;
}

/* Consume the frame wm_ring_peek() returned. */
static inline void
wm_ring_consume(struct wm_ring_consumer *c)
{
	c->pos++;
	wm_ring_consumed(c);
}

/* Peek and consume: 1 with *f, 0 empty, -EBADMSG corrupt. */
static inline int
wm_ring_pop(struct wm_ring_consumer *c, struct wm_frame *f)
{
	int r = wm_ring_peek(c, f);

	if (r == 1)
		wm_ring_consume(c);
	return r;
}

/*
 * Records in place: the run of ready RECORD cells at the consumer's
 * position, at most `max` and not past the end of the ring. Returns its
 * length n and points *first at its first cell; the caller reads the n
 * cells where they lie (their payload words, wm_cell_arg()) and then
 * consumes them with wm_ring_consume_run(c, n), or fewer. No frame is
 * decoded or copied, and a record costs one load and one compare here.
 *
 * 0 means the next cell is not a ready record (or `max` is 0): the ring is
 * empty, the next frame is another kind, or the cell is corrupt;
 * wm_ring_peek() or wm_ring_pop() tells which (and publishes `read` if it
 * is empty). A record may also have arrived in between: peek again.
 */
static inline uint32_t
wm_ring_peek_records(const struct wm_ring_consumer *c,
		     const struct wm_cell **first, uint32_t max)
{
	uint64_t pos = c->pos;
	uint64_t room = c->mask + 1 - (pos & c->mask);
	const struct wm_cell *cell = &c->cells[pos & c->mask];
	uint32_t high = wm_frame_tail_high(WM_FRAME_RECORD, pos);
	uint32_t n;

	if (max > room)
		max = (uint32_t)room;
	for (n = 0; n < max; n++) {
		/* C1: pairs with P1 in wm_cell_publish(); it orders the
		 * caller's reads of this cell after the producer's
		 * writes. */
		uint64_t tail = atomic_load_explicit(&cell[n].tail,
						     memory_order_acquire);

		if ((uint32_t)(tail >> 32) != high)
			break;
		high += (uint32_t)(WM_TAIL_SEQ_ONE >> 32);
	}
	*first = cell;
	return n;
}

/* Consume `n` cells that wm_ring_peek_records() handed out. */
static inline void
wm_ring_consume_run(struct wm_ring_consumer *c, uint32_t n)
{
	c->pos += n;
	wm_ring_consumed(c);
}

/*
 * The fields of the row whose head, a ROW frame, wm_ring_peek() has just
 * returned: its parts' bytes copied to `row` (WM_FRAME_ROW_MAX_BYTES of
 * room; the bytes past the row's length up to its last part's end are
 * the producer's zeros), its length in *len. Returns the cells the row takes, head and
 * parts, which the caller then consumes with wm_ring_consume_run(); or
 * -EBADMSG if a part is not ready, not a part, or names another length
 * than the first: the producer publishes parts before the head, so only
 * corruption does that (nothing is consumed; see wm_ring_dump()).
 */
static inline int
wm_ring_read_row(const struct wm_ring_consumer *c, void *row, uint32_t *len)
{
	unsigned char *out = row;
	uint64_t pos = c->pos + 1;
	const struct wm_cell *cell = &c->cells[pos & c->mask];
	/* Relaxed: the head's acquire (C1, in wm_ring_peek()) ordered this
	 * thread after the producer's stores of every part (P1 of the head
	 * after theirs, wm_ring_put_row()). */
	uint64_t tail = atomic_load_explicit(&cell->tail, memory_order_relaxed);
	uint32_t n = wm_frame_tail_arg(tail), parts;

	if (tail >> 32 !=
		    (uint64_t)wm_frame_tail_high(WM_FRAME_ROW_PART, pos) ||
	    !wm_frame_valid(WM_FRAME_ROW_PART, n))
		return -EBADMSG;
	parts = wm_ring_row_cells(n) - 1;
	/* Every part copied whole, a copy of constant size: `row` has room
	 * for the most parts, so the last part's 24 bytes fit too. */
	for (uint32_t k = 0; k < parts; k++, pos++) {
		cell = &c->cells[pos & c->mask];
		tail = atomic_load_explicit(&cell->tail, memory_order_relaxed);
		if (tail != wm_frame_tail(WM_FRAME_ROW_PART, n, pos))
			return -EBADMSG;
		memcpy(out + k * WM_FRAME_ROW_PART_BYTES, cell->payload,
		       WM_FRAME_ROW_PART_BYTES);
	}
	*len = n;
	return (int)(1 + parts);
}

/* Whether a frame (or a corrupt cell) waits at the consumer's position,
 * without publishing anything: the wait condition. */
static inline bool
wm_ring_ready(const struct wm_ring_consumer *c)
{
	const struct wm_cell *cell = &c->cells[c->pos & c->mask];
	/* C1: pairs with P1; acquire, so a caller that goes on to read the
	 * frame without peeking again still reads it after the producer. */
	uint64_t tail = atomic_load_explicit(&cell->tail, memory_order_acquire);

	return wm_ring_cell_state(c, tail) != WM_CELL_EMPTY;
}

#endif /* WM_IPC_RING_H */
