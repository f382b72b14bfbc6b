/*
 * frame.h
 *	What travels on a ring: 32-byte cells, each one frame.
 *
 * A cell is 24 bytes of payload and an 8-byte tail. The tail carries the
 * frame's kind and a 32-bit argument, and the cell's sequence: the low 24
 * bits of the cell's position in the ring's stream (positions count cells
 * ever written, they never wrap). The producer stores the tail last, with
 * release (or, on x86-64 with AVX, in one 16-byte store with the last
 * payload word: ring.h, wm_cell_publish()); the consumer loads it with
 * acquire and trusts the payload only if the sequence is the one it
 * expects at that position. So "data ready" is read from the cache line
 * the consumer needs anyway, with no shared index in between
 * (doc/performance.md, lesson 1), and a batch of records is a run of
 * RECORD cells, each published by its own tail.
 *
 *   offset  0  8 16      24        28   29        32
 *          +--+--+--+-------------+----+---------+
 *          | payload (3 x u64)    | arg| kind| seq (24 bits) |
 *          +--+--+--+-------------+----+---------+
 *           tail = arg | kind << 32 | seq << 40
 *
 *   kind        payload                       arg
 *   RECORD      3 words                       32 bits
 *   WATERMARK   the watermark, 2 words        0
 *   STATUS      -, 2 words                    enum wm_status
 *   END         -                             enum wm_end_kind
 *   BARRIER     checkpoint id, timestamp      barrier options
 *   ROW         3 words, as RECORD            as RECORD
 *   ROW_PART    24 bytes of the row           the row's length in bytes
 *
 * Rows. A record that carries fields beyond its three words (a Nexmark
 * bid's auction, bidder, price and extra text) is a ROW cell, read as a
 * RECORD is, followed by the ROW_PART cells that hold its fields' bytes
 * in order, ceil(length / 24) of them (at most WM_FRAME_ROW_MAX_PARTS),
 * each naming the row's length in its argument. The producer publishes
 * the parts first and the head last (ring.h, wm_ring_put_row()), so a
 * consumer that sees the head ready (C1) finds every part ready behind
 * it; a part that is not, or names another length, is corruption. A ROW
 * never comes inside a run of RECORD cells read in place: it is a frame
 * of its own, and its bytes are copied out of the parts
 * (wm_ring_read_row()), whose tails cut them every 24 bytes. Costs: the
 * head's 32 bytes, and 8 bytes of tail for every 24 of fields.
 *
 * The transport gives a RECORD cell's words no meaning: they are opaque to
 * it, and the engine's codec (runtime/engine/codec.h) says which field of
 * a record each one holds; so are the last two words of a WATERMARK or a
 * STATUS (a real run's schedule of it, runtime/engine/task_out.c). It checks only what it must to refuse a
 * corrupt stream: kinds, and the arguments of the control frames.
 *
 * Every frame is one cell (a row is a run of them, each a cell of its
 * own), so no frame ever straddles the end of the ring and nothing needs
 * padding. A consumer can tell three states of the
 * cell at its position p apart: ready (sequence p), not yet written
 * (sequence of p - ring size, or a never-written cell whose kind is 0), and
 * anything else, which is corruption. A ring holds fewer than 2^24 cells, so
 * the sequences of p and p - size always differ.
 *
 * Kinds have explicit values; a retired kind stays as a comment. Any change
 * here bumps WM_LAYOUT_VERSION (shm.h).
 */
#ifndef WM_IPC_FRAME_H
#define WM_IPC_FRAME_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

enum wm_frame_kind {
	/* 0: never used, so a zero-filled (never written) cell is not ready */
	WM_FRAME_RECORD = 1,
	WM_FRAME_WATERMARK = 2,
	WM_FRAME_STATUS = 3,
	WM_FRAME_END = 4,
	/* Never produced yet: kept for the checkpoints to come, whose
	 * barriers travel in line with the records. A task passes one on to
	 * every output so that the stream stays aligned. */
	WM_FRAME_BARRIER = 5,
	/* A record with fields: ROW (the record, as RECORD) followed by its
	 * ROW_PART cells (the fields' bytes); see "Rows" above. */
	WM_FRAME_ROW = 6,
	WM_FRAME_ROW_PART = 7,
};

#define WM_FRAME_KIND_MAX WM_FRAME_ROW_PART

/* END's argument: Flink's EndOfData(DRAIN) after a MAX watermark, or STOP. */
enum wm_end_kind {
	WM_END_DRAIN = 0,
	WM_END_STOP = 1,
};

/* A row's bytes ride in at most this many ROW_PART cells, so that a row
 * and its head (41 cells) fit the smallest ring (WM_RING_MIN_CELLS). */
#define WM_FRAME_ROW_MAX_PARTS 40u
#define WM_FRAME_ROW_PART_BYTES 24u
#define WM_FRAME_ROW_MAX_BYTES                                                 \
	(WM_FRAME_ROW_MAX_PARTS * WM_FRAME_ROW_PART_BYTES)

#define WM_CELL_SIZE 32
#define WM_SEQ_BITS 24
#define WM_SEQ_MASK ((1u << WM_SEQ_BITS) - 1)

/* 16-byte aligned: wm_cell_publish() may write each half with one aligned
 * 16-byte store. */
struct wm_cell {
	alignas(16) uint64_t payload[3];
	_Atomic uint64_t tail; /* written last (ring.h, P1), read first (C1) */
};

_Static_assert(sizeof(struct wm_cell) == WM_CELL_SIZE, "a cell is 32 bytes");
_Static_assert(offsetof(struct wm_cell, tail) == 24, "tail ends the cell");
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2,
	       "shared atomics must be lock-free, hence address-free");

/* A frame as the consumer sees it, decoded from one cell. */
struct wm_frame {
	enum wm_frame_kind kind;
	uint32_t arg;
	uint64_t payload[3];
};

static inline uint64_t
wm_frame_tail(enum wm_frame_kind kind, uint32_t arg, uint64_t position)
{
	return (uint64_t)arg | (uint64_t)kind << 32 |
	       (position & WM_SEQ_MASK) << 40;
}

/* Adding this to a tail steps its sequence by one position: the sequence
 * fills the tail's top bits, so the sum wraps it modulo 2^24 exactly as
 * wm_frame_tail() masks it. */
#define WM_TAIL_SEQ_ONE ((uint64_t)1 << 40)
_Static_assert(40 + WM_SEQ_BITS == 64, "the sequence fills the tail's top");

/* The tail's upper half, kind and sequence: what a consumer expects of the
 * cell at `position` when it expects that kind, whatever the argument. */
static inline uint32_t
wm_frame_tail_high(enum wm_frame_kind kind, uint64_t position)
{
	return (uint32_t)(wm_frame_tail(kind, 0, position) >> 32);
}

static inline enum wm_frame_kind
wm_frame_tail_kind(uint64_t tail)
{
	return (enum wm_frame_kind)((tail >> 32) & 0xff);
}

static inline uint32_t
wm_frame_tail_seq(uint64_t tail)
{
	return (uint32_t)(tail >> 40);
}

static inline uint32_t
wm_frame_tail_arg(uint64_t tail)
{
	return (uint32_t)tail;
}

/*
 * The argument of a cell that the consumer owns (it saw the cell ready
 * with C1, ring.h, and has not released it), for reading the cell in
 * place. Relaxed: its acquire load (C1) already ordered this thread after
 * the producer's writes, and the producer writes the cell again only
 * after the consumer releases it (C2/P2).
 */
static inline uint32_t
wm_cell_arg(const struct wm_cell *cell)
{
	return wm_frame_tail_arg(
		atomic_load_explicit(&cell->tail, memory_order_relaxed));
}

/* Whether a ready cell's kind and argument make sense; a cell that fails
 * this was corrupted, and the consumer must stop rather than act on it.
 * Inline: wm_ring_peek() asks it for every frame. */
static inline bool
wm_frame_valid(enum wm_frame_kind kind, uint32_t arg)
{
	switch (kind) {
	case WM_FRAME_RECORD:
	case WM_FRAME_BARRIER:
		return true;
	case WM_FRAME_WATERMARK:
		return arg == 0;
	case WM_FRAME_STATUS:
		return arg == WM_STATUS_ACTIVE || arg == WM_STATUS_IDLE;
	case WM_FRAME_END:
		return arg == WM_END_DRAIN || arg == WM_END_STOP;
	case WM_FRAME_ROW:
		return true;
	case WM_FRAME_ROW_PART:
		return arg >= 1 && arg <= WM_FRAME_ROW_MAX_BYTES;
	}
	return false;
}

/* Name of a kind for messages ("RECORD"), or "unknown". */
const char *wm_frame_kind_name(enum wm_frame_kind kind);

#endif /* WM_IPC_FRAME_H */
