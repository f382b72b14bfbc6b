/*
 * record.h
 *	What flows through a job: records, and the watermark status of a
 *	stream. The operators compute on them, the engine puts them in the
 *	transport's cells (runtime/engine/codec.h), the runtime counts them.
 */
#ifndef WM_BASE_RECORD_H
#define WM_BASE_RECORD_H

#include <stdint.h>

#include "base/status.h"
#include "base/time.h"

/* Record flags. */
enum wm_record_flag {
	/* A punctuated generator emits a watermark at this record's time. */
	WM_RECORD_PUNCTUATE = 1u << 0,
	/* The key is a string: `key` holds its Java hash and dictionary id
	 * (operators/keygroup.h, wm_keygroup_string_key()), not a long. */
	WM_RECORD_STRING_KEY = 1u << 1,
	/* A heartbeat, not data: its partition's watermark generator sees
	 * it (its event time, and activity for withIdleness), then the
	 * source drops it, as a filter after Flink's source would; it never
	 * leaves its subtask. */
	WM_RECORD_HEARTBEAT = 1u << 2,
	/* The record carries a watermark of its own, which need not be its
	 * timestamp (a trace's watermark column, a Kafka value's watermark
	 * field): a punctuated generator emits it at once. A record has no
	 * room for it, so its source holds it until the next call
	 * (wm_record_source_carried_watermark()), and ends a run with it. */
	WM_RECORD_WATERMARK = 1u << 3,
};

/*
 * One record: 32 bytes, two to a cache line. Between subtasks flags and
 * partition travel as 16 bits each (runtime/engine/codec.h); configuration
 * keeps partition numbers below 65536.
 */
struct wm_record {
	wm_ts_t ts;	    /* event time; WM_TS_MIN = none */
	int64_t key;	    /* a long, or a string's hash and id (flags) */
	int64_t value;	    /* the aggregated value */
	uint32_t flags;	    /* enum wm_record_flag */
	uint32_t partition; /* source partition that produced it */
};

_Static_assert(sizeof(struct wm_record) == 32, "records are 32 bytes");

#endif /* WM_BASE_RECORD_H */
