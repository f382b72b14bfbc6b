/*
 * replay_trace.h
 *	A replayed trace as read (replay.c), for the record source that
 *	replays it (replay_source.c) and nothing else: the rest of the
 *	runtime sees only replay.h.
 */
#ifndef WM_RUNTIME_SOURCE_REPLAY_TRACE_H
#define WM_RUNTIME_SOURCE_REPLAY_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/record.h"
#include "runtime/io/keys.h"
#include "runtime/source/replay.h"

struct wm_replay_trace {
	/* Every record kept, in file order: an anonymous mapping of
	 * recs_bytes (replay.c: grown in place or moved by mremap(), its
	 * pages populated ahead of the reading, page_ahead.h). */
	struct wm_record *recs;
	size_t recs_bytes;
	/* When each is due: ns of processing time, or the line's own ms
	 * until schedule() made the trace's due times. NULL under pacing =
	 * fast, where every record is due at 0: 8 bytes a record that the
	 * reading would write, and the kernel zero, for nothing. */
	int64_t *due_ns;
	/* The watermark a record carries (WM_RECORD_WATERMARK), at its
	 * index; anything at the others. NULL until a record carries one:
	 * 8 bytes a record only for a trace with a watermark column. */
	wm_ts_t *watermarks;
	size_t n;
	uint32_t n_partitions; /* of the source: ids below it */
	uint64_t skipped;      /* lines skipped (skip_bad) */
	uint64_t marked;       /* records of punctuate = 1 */
	uint64_t heartbeats;   /* records of heartbeat = 1 */
	uint64_t carriers;     /* records with a watermark */
	int64_t end_ns;	       /* replay_end in ns; -1: with the last record */
	/* The event time at processing time 0, when the pacing ties the
	 * one to the other (wm_replay_clock_zero_ms()); else unknown. */
	bool has_clock_zero;
	int64_t clock_zero_ms;
	/* LONG or STRING once read: stated, or what the keys were (LONG
	 * for a trace without records). */
	enum wm_key_type key_type;
	struct wm_keys *keys; /* where string keys are interned */
	bool own_keys;	      /* keys is this trace's alone */
};

#endif /* WM_RUNTIME_SOURCE_REPLAY_TRACE_H */
