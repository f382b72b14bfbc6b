/*
 * heartbeats.h
 *	The heartbeats of a source subtask's partitions: a record source
 *	that merges, into another's records, a heartbeat on chosen
 *	partitions at a fixed period of processing time, also while they
 *	are silent. Pure: no I/O, processing time passed in.
 *
 * A heartbeat is what an upstream system sends on a partition that has no
 * data, so that the watermark moves without data: a record flagged
 * WM_RECORD_HEARTBEAT, which its partition's watermark generator sees as
 * it sees any record (its timestamp, and activity for withIdleness) and
 * which the source task then drops (base/record.h).
 *
 * Schedule. Partition p under a heartbeat of period D (ns) sends heartbeat
 * n = 1, 2, ... at processing time n x D, with
 *
 *	ts        = start_epoch_ms + floor(n x D / 10^6)
 *	key       = 0, value = 0
 *	flags     = WM_RECORD_HEARTBEAT
 *	partition = p
 *
 * the event time of that instant as the generator's records have it
 * (source_gen.h, with no delay): a heartbeat says "everything before
 * this instant has been sent". It sends whatever the partition's records
 * do (silent, in an outage, bursting): heartbeats are the upstream's, not
 * the data's. A partition stops sending once it has finished, and never
 * at or after end_ns (the job's event-time end as processing time): the
 * last heartbeat is the last before its records end.
 *
 * Merging. A heartbeat due at h goes before the inner source's next
 * record due at d when h <= d (ties: the heartbeat first), and with
 * `fast` (an inner source whose records arrive as they are read, at the
 * reading's now) whenever h <= now: a record read at now arrives after
 * it. Heartbeats of several partitions due at once go by due time, then
 * partition id. A partition paused (pause(), watermark alignment) sends
 * nothing; on resuming, the heartbeats it owed are due at once, in order,
 * each with its own timestamp, as a paused Kafka partition's waiting
 * messages are.
 *
 * Checkpoints: the inner source's section, then each partition's period
 * and next heartbeat number; a restored source sends the heartbeats due since at
 * once (the backlog of a restart, as the inner source's records).
 *
 * Cost: nothing a record while no heartbeat is due (next_run() passes
 * the inner source's runs through whole); O(log P) a heartbeat.
 */
#ifndef WM_OPERATORS_HEARTBEATS_H
#define WM_OPERATORS_HEARTBEATS_H

#include <stdbool.h>
#include <stdint.h>

#include "operators/record_source.h"

/* Partitions first..last (inclusive) send a heartbeat every every_ms of
 * processing time. A partition is under one heartbeat at most. */
struct wm_heartbeat {
	uint32_t first_partition, last_partition;
	int64_t every_ms; /* > 0 */
};

/* The longest period: a year, beyond which no job would see one. */
#define WM_HEARTBEAT_MAX_EVERY_MS ((int64_t)365 * 24 * 60 * 60 * 1000)

/*
 * `inner` with the heartbeats of `n` schedules (copied) merged in, for
 * event times from start_epoch_ms and none at or after end_ns (INT64_MAX:
 * no end). Takes `inner` over: freeing the result frees it, and so does a
 * failure. inner's partitions must be fixed (not discovered as it runs).
 * NULL with errno EINVAL (a period out of range, first > last, a
 * partition under two schedules) or ENOMEM.
 */
struct wm_record_source *wm_heartbeats_wrap(struct wm_record_source *inner,
					    const struct wm_heartbeat *sched,
					    uint32_t n, bool fast,
					    int64_t start_epoch_ms,
					    int64_t end_ns);

#endif /* WM_OPERATORS_HEARTBEATS_H */
