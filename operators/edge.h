/*
 * edge.h
 *	One output edge of a subtask (Flink's RecordWriterOutput with its
 *	partitioner): which downstream channel a record goes to, and which
 *	watermarks and statuses are sent at all.
 *
 * Records are routed by the partitioner; watermarks and statuses go to
 * every channel of the edge (broadcast), in order with the records.
 *
 *   forward     one channel (equal parallelism, subtask i feeds subtask i)
 *   hash        Flink's keyBy: Java Long.hashCode of the key (or for a
 *               string key the String.hashCode it carries), murmur, key
 *               group of the downstream max parallelism, operator index
 *   rebalance   round robin from a random start r0: the first record goes
 *               to (r0 + 1) mod n, as Flink's RebalancePartitioner
 *   broadcast   every channel
 *
 * The edge remembers the status it announced (ACTIVE at start): a
 * watermark while IDLE is dropped, silently and without updating the
 * currentOutputWatermark gauge, and a status equal to the announced one
 * is not repeated (doc/semantics.md section 4.1). Pure; one thread.
 */
#ifndef WM_OPERATORS_EDGE_H
#define WM_OPERATORS_EDGE_H

#include <stdbool.h>
#include <stdint.h>

#include "operators/output.h"
#include "operators/keygroup.h"

enum wm_partitioning {
	WM_PARTITION_FORWARD,
	WM_PARTITION_HASH,
	WM_PARTITION_REBALANCE,
	WM_PARTITION_BROADCAST,
};

struct wm_edge {
	enum wm_partitioning partitioning;
	uint32_t channels;	  /* downstream channels of this edge */
	uint32_t max_parallelism; /* hash: key groups downstream */
	/* hash: log2(max_parallelism) if that is a power of two (Flink's
	 * default always is), else WM_EDGE_NO_SHIFT */
	uint32_t key_group_shift;
	uint32_t next; /* rebalance: last channel used */
	enum wm_status announced;
	wm_ts_t output_watermark; /* Flink's currentOutputWatermark */
};

/*
 * An edge with `channels` (>= 1) downstream channels; for hash,
 * `max_parallelism` key groups (0 < channels <= max_parallelism); for
 * rebalance, `start` picks the random first position (any value; it is
 * taken modulo channels). 0, or -EINVAL.
 */
int wm_edge_init(struct wm_edge *e, enum wm_partitioning partitioning,
		 uint32_t channels, uint32_t max_parallelism, uint64_t start);

/* key_group_shift of a max parallelism that is not a power of two. */
#define WM_EDGE_NO_SHIFT UINT32_MAX

/* The Java hash a hash edge routes record `r` by: Long.hashCode of its
 * key, or the String.hashCode a string key carries. */
static inline int32_t
wm_edge_key_hash(const struct wm_record *r)
{
	return r->flags & WM_RECORD_STRING_KEY
		       ? wm_keygroup_string_key_hash(r->key)
		       : wm_keygroup_hash_int64(r->key);
}

/* The channel for one record (not for broadcast edges). */
static inline uint32_t
wm_edge_route(struct wm_edge *e, const struct wm_record *r)
{
	switch (e->partitioning) {
	case WM_PARTITION_HASH:
		return wm_keygroup_subtask(wm_edge_key_hash(r),
					   e->max_parallelism, e->channels);
	case WM_PARTITION_REBALANCE:
		e->next = e->next + 1 == e->channels ? 0 : e->next + 1;
		return e->next;
	case WM_PARTITION_FORWARD:
	case WM_PARTITION_BROADCAST:
		break;
	}
	return 0;
}

/*
 * The channels of records r[0..n) into channel[0..n): what n calls of
 * wm_edge_route() give, in order, and the rebalance position moves as
 * they move it (not for broadcast edges). The partitioning is looked at
 * once a run, not once a record; a hash edge of one channel computes no
 * key group (every key group belongs to subtask 0), and one whose max
 * parallelism is a power of two finds the subtask without a division
 * (wm_keygroup_subtask_pow2()).
 */
void wm_edge_route_run(struct wm_edge *e, const struct wm_record *r, uint32_t n,
		       uint32_t *channel);

/* Should watermark `w` be sent? False while IDLE is announced. */
static inline bool
wm_edge_watermark(struct wm_edge *e, wm_ts_t w)
{
	if (e->announced == WM_STATUS_IDLE)
		return false;
	e->output_watermark = w;
	return true;
}

/* Should status `s` be sent? Only when it changes the announced one. */
static inline bool
wm_edge_status(struct wm_edge *e, enum wm_status s)
{
	if (s == e->announced)
		return false;
	e->announced = s;
	return true;
}

/* checkpoint_watermarks: the status announced and the output watermark
 * (what the edge dedups against), as a section; restore into an edge of
 * the same partitioning and channels: 0, or the reader's error (-EINVAL
 * for another edge). The rebalance position is not kept: it changes
 * where records go, never what a window computes. */
struct wm_snap_writer;
struct wm_snap_reader;

void wm_edge_snapshot(const struct wm_edge *e, struct wm_snap_writer *w);
int wm_edge_restore(struct wm_edge *e, struct wm_snap_reader *r);

#endif /* WM_OPERATORS_EDGE_H */
