/*
 * plan.h
 *	The physical plan of a job: its subtasks and the channels (rings)
 *	between them, numbered the same way in every process.
 *
 * Subtasks are the subtasks of every stage but sinks (a sink is chained
 * to its window), stage by stage: subtask id = first[stage] + index.
 * Channels are numbered producer by producer, output edge by output edge
 * (in the task's edge order), channel by channel; each knows the input
 * channel it is at its consumer (task.h numbering).
 */
#ifndef WM_RUNTIME_PLAN_PLAN_H
#define WM_RUNTIME_PLAN_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "ipc/shm.h"
#include "runtime/conf/topology.h"
#include "runtime/metrics/metrics.h"

struct wm_plan_channel {
	uint32_t producer, consumer; /* subtask ids */
	uint32_t edge, edge_channel; /* at the producer */
	uint32_t input_channel;	     /* at the consumer */
};

/* One output edge of a subtask: the channels to one logical input of a
 * downstream stage (sinks are chained, not edges). */
struct wm_plan_edge {
	uint32_t to_stage, to_input;
	enum wm_partitioning partitioning; /* the downstream input's */
	uint32_t width; /* channels: 1 if forward, else its parallelism */
	uint32_t
		max_parallelism; /* downstream's key groups, for hash routing */
	uint32_t *channels;	 /* channel id of each edge channel */
};

/* One logical input of a subtask: input channels [first, first + width)
 * in the task's numbering (input 0's first). */
struct wm_plan_port {
	uint32_t first, width;
};

/*
 * Everything a driver and the task need to know of one subtask's place in
 * the job, derived from the topology once, here: nothing else asks the
 * topology's graph queries while a job runs.
 */
struct wm_plan_subtask {
	uint32_t stage, index;
	uint32_t n_inputs; /* input channels */
	uint32_t *inputs;  /* channel id of each input channel */
	uint32_t n_ports;  /* logical inputs */
	struct wm_plan_port ports[WM_TOPOLOGY_MAX_INPUTS];
	uint32_t n_edges; /* output edges, in stage order */
	struct wm_plan_edge *edges;
	uint32_t n_sinks; /* sink stages chained to it, in stage order */
	uint32_t *sinks;
	/* A source's: the splits it can read, its share of the stage's
	 * partitions by Flink's rule (wm_source_gen_partitions_of(), split
	 * by the Kafka topic's name for a Kafka source, else the stage's):
	 * the room of its metrics block and task. A source that discovers
	 * partitions while it runs owns fewer at first (task.h). */
	uint32_t n_partitions;
	/* Where its partition entries start in the metrics area: an offset
	 * from the area's start (wm_plan_partitions()). */
	uint64_t metrics_partitions;
	/* A window's: the buckets of its fire-delay histogram
	 * (WM_HISTOGRAM_FINE_BUCKETS; 0 for other subtasks), and where they
	 * start in the metrics area (wm_plan_fire_delays()). */
	uint32_t fire_delay_buckets;
	uint64_t metrics_fire_delays;
};

struct wm_plan {
	uint32_t n_subtasks;
	struct wm_plan_subtask *subtasks;
	uint32_t *first; /* by stage: id of its subtask 0 (sinks: none) */
	uint32_t n_channels;
	struct wm_plan_channel *channels;
	uint32_t max_inputs; /* input channels of any one subtask */
	/* The metrics area (runtime/metrics/metrics.h): n_subtasks blocks
	 * of metrics_stride bytes, then each source subtask's partition
	 * entries, then each window subtask's fire-delay histogram,
	 * metrics_bytes in all. */
	size_t metrics_stride;
	size_t metrics_bytes;
};

/* The source subtasks (plan ids, ascending) of the watermark alignment
 * group of source subtask `id`, itself included: at most `max` are
 * stored, the count is returned (0 if it is not aligned). */
uint32_t wm_plan_alignment_peers(const struct wm_plan *plan,
				 const struct wm_topology *topo, uint32_t id,
				 uint32_t *ids, uint32_t max);

/* "stage/index": subtask `id` as messages and the summary name it. */
const char *wm_plan_subtask_name(const struct wm_plan *plan,
				 const struct wm_topology *topo, uint32_t id,
				 char *buf, size_t len);

/*
 * The metrics block of subtask `id`, its partition entries (its
 * wm_plan_subtask.n_partitions of them; none but a source's) and its
 * fire-delay histogram (WM_HISTOGRAM_FINE's counts; NULL but for a
 * window's) in `area`, a metrics area laid out by `plan`: the segment's
 * (wm_shm_metrics_area()) or --sim's. Every reader and writer finds them here, nowhere else.
 * Like strchr(), they take a const area and return what the caller may
 * write if its area is writable.
 */
static inline struct wm_subtask_metrics *
wm_plan_block(const struct wm_plan *plan, const void *area, uint32_t id)
{
	return (struct wm_subtask_metrics *)((uintptr_t)area +
					     (size_t)id * plan->metrics_stride);
}

static inline struct wm_partition_metrics *
wm_plan_partitions(const struct wm_plan *plan, const void *area, uint32_t id)
{
	return (struct wm_partition_metrics *)((uintptr_t)area +
					       plan->subtasks[id]
						       .metrics_partitions);
}

static inline _Atomic uint64_t *
wm_plan_fire_delays(const struct wm_plan *plan, const void *area, uint32_t id)
{
	if (plan->subtasks[id].fire_delay_buckets == 0)
		return NULL;
	return (_Atomic uint64_t *)((uintptr_t)area +
				    plan->subtasks[id].metrics_fire_delays);
}

/* Zero subtask `id`'s block, partition entries and fire delays in
 * `area`, as a fresh area has them (--sim's restart of a subtask). */
void wm_plan_metrics_clear(const struct wm_plan *plan, void *area, uint32_t id);

/* Bytes of the metrics area: plan->metrics_bytes. */
size_t wm_plan_metrics_bytes(const struct wm_plan *plan);

/* What identifies a job to its checkpoints: the plan's shape (each
 * subtask's stage, index, inputs and edges) and everything of `t` a
 * snapshot's layout depends on (each stage's kind and key groups, a
 * window's assigner, lateness, trigger and side output, a source's key
 * type, generated or replayed partitions and watermark placement, [job]
 * checkpoint_watermarks). A checkpoint of another is never restored
 * (runtime/checkpoint/checkpoint_store.h): a resume after such a change
 * is refused before anything runs, rather than failing every restore. */
uint64_t wm_plan_fingerprint(const struct wm_plan *plan,
			     const struct wm_topology *t);

/* The segment the plan needs (ipc/shm.h): a ring of `cells` cells for
 * each channel, described in specs[0 .. n_channels), and the metrics
 * area. The result points at specs. */
struct wm_shm_spec wm_plan_shm_spec(const struct wm_plan *plan, uint32_t cells,
				    struct wm_shm_channel_spec *specs);

/* The plan of `topo`; NULL with errno ENOMEM (EINVAL: a topology that
 * topology.c refuses). */
struct wm_plan *wm_plan_new(const struct wm_topology *topo);
void wm_plan_free(struct wm_plan *plan);

#endif /* WM_RUNTIME_PLAN_PLAN_H */
