/*
 * kafka_topology.h
 *	What a job with Kafka sources settles before it creates anything:
 *	each topic is there and answers, and how many partitions the job
 *	keeps room for.
 *
 * Room. Every partition a source may read has its watermark slot, its
 * metrics and its place in the summary, reserved in the shared segment
 * before any worker starts, and a frame carries partition ids below
 * 65536. A topic grows while the job runs (partition discovery), so a
 * source without a `partitions` key reserves twice the partitions its
 * topic has at the start, and at least WM_KAFKA_MIN_SPARE_PARTITIONS
 * more; `partitions` sets the room itself (at least the topic's count).
 * A partition discovered beyond the room is not read, and the summary
 * says so.
 */
#ifndef WM_RUNTIME_SOURCE_KAFKA_TOPOLOGY_H
#define WM_RUNTIME_SOURCE_KAFKA_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/conf/topology.h"

#define WM_KAFKA_MIN_SPARE_PARTITIONS 16u

/* The room reserved for a topic of `partitions` partitions. */
uint32_t wm_kafka_topology_room(uint32_t partitions);

/*
 * Make t's Kafka sources ready for a run (`sim`: under --sim, which
 * refuses them: a topic's records arrive in real time, and the way there
 * is a recording): probe every topic (kafka_client.h, wm_kafka_probe())
 * and set its partitions to the room, or check the room its partitions
 * key gives. EX_OK (also for a job without Kafka sources), EX_USAGE under
 * --sim, or the probe's sysexits code (EX_UNAVAILABLE, EX_CONFIG,
 * EX_NOPERM), with a message naming the source in err.
 */
int wm_kafka_topology_prepare(struct wm_topology *t, bool sim, char *err,
			      size_t errlen);

/*
 * What --check can see of t's Kafka sources without running: each topic
 * probed as wm_kafka_topology_prepare() does, but for at most
 * WM_KAFKA_CHECK_PROBE_MS; where no broker answers in that time, a
 * notice in `unchecked` (NUL-terminated lines, one per source: what was
 * not checked, and why) instead of a failure, the partitions key's room
 * kept. EX_OK, or what prepare gives for everything else.
 */
#define WM_KAFKA_CHECK_PROBE_MS 3000
int wm_kafka_topology_check(struct wm_topology *t, char *unchecked,
			    size_t unchecked_len, char *err, size_t errlen);

#endif /* WM_RUNTIME_SOURCE_KAFKA_TOPOLOGY_H */
