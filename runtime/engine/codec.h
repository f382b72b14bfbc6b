/*
 * codec.h
 *	A record in a RECORD cell, and back: what the transport's opaque words
 *	mean (ipc/frame.h), on the engine's side of it.
 *
 *   payload[0]  ts, two's complement
 *   payload[1]  key
 *   payload[2]  value
 *   arg         flags | partition << 16
 *
 * Flags and partition travel as 16 bits each. Configuration keeps
 * partition numbers below 65536 and every flag fits (asserted below, at
 * compile time), so nothing is checked per record.
 *
 * A record travels as a struct wm_frame (the RECORD frame a worker stages
 * and then puts into a run of cells word for word, --sim's queues, callers
 * that hand frames on by direct calls), and is read back from one, or in
 * place from a ring's cell (wm_codec_cell_record()). One field mapping,
 * wm_codec_record(), decodes both.
 */
#ifndef WM_RUNTIME_ENGINE_CODEC_H
#define WM_RUNTIME_ENGINE_CODEC_H

#include <stdint.h>

#include "base/record.h"
#include "ipc/frame.h"
#include "ipc/ring.h"
#include "runtime/conf/topology.h"

#define WM_CODEC_MAX_FLAGS 0xffffu
#define WM_CODEC_MAX_PARTITION 0xffffu

_Static_assert(WM_TOPOLOGY_MAX_PARTITIONS - 1 <= WM_CODEC_MAX_PARTITION,
	       "every partition number fits a RECORD cell");
_Static_assert((WM_RECORD_PUNCTUATE | WM_RECORD_STRING_KEY) <=
		       WM_CODEC_MAX_FLAGS,
	       "every record flag fits a RECORD cell");

static inline uint32_t
wm_codec_record_arg(const struct wm_record *r)
{
	return (r->flags & WM_CODEC_MAX_FLAGS) |
	       (r->partition & WM_CODEC_MAX_PARTITION) << 16;
}

/* The record whose cell holds `arg` and the words a, b, c. */
static inline void
wm_codec_record(uint32_t arg, uint64_t a, uint64_t b, uint64_t c,
		struct wm_record *r)
{
	r->ts = (wm_ts_t)a;
	r->key = (int64_t)b;
	r->value = (int64_t)c;
	r->flags = arg & WM_CODEC_MAX_FLAGS;
	r->partition = arg >> 16;
}

/* The record in a RECORD cell the consumer owns (wm_ring_peek_records()
 * handed it out and it is not consumed yet), read where it lies. */
static inline void
wm_codec_cell_record(const struct wm_cell *cell, struct wm_record *r)
{
	wm_codec_record(wm_cell_arg(cell), cell->payload[0], cell->payload[1],
			cell->payload[2], r);
}

static inline void
wm_codec_record_frame(const struct wm_record *r, struct wm_frame *f)
{
	f->kind = WM_FRAME_RECORD;
	f->arg = wm_codec_record_arg(r);
	f->payload[0] = (uint64_t)r->ts;
	f->payload[1] = (uint64_t)r->key;
	f->payload[2] = (uint64_t)r->value;
}

/* The record in a RECORD frame. */
static inline void
wm_codec_frame_record(const struct wm_frame *f, struct wm_record *r)
{
	wm_codec_record(f->arg, f->payload[0], f->payload[1], f->payload[2], r);
}

#endif /* WM_RUNTIME_ENGINE_CODEC_H */
