/*
 * task_internal.h
 *	The inside of a task (task.h), shared by its two halves and nothing
 *	else: task.c (inputs, valves, operators, edges, metrics) and
 *	task_source.c (a source subtask's partitions, their watermarks and
 *	idleness, watermark alignment).
 */
#ifndef WM_RUNTIME_TASK_INTERNAL_H
#define WM_RUNTIME_TASK_INTERNAL_H

#include "operators/pausable_clock.h"
#include "runtime/engine/progress.h"
#include "runtime/engine/task.h"

/* Where a flattened input channel goes. */
struct channel_map {
	uint32_t input;	  /* logical input */
	uint32_t channel; /* channel of that input's valve */
	bool ended;
};

/* The output of one input's valve. */
struct valve_port {
	struct wm_output output;
	struct wm_task *task;
	uint32_t input;
};

/* What a source subtask keeps of one of its partitions. */
struct source_partition {
	struct wm_progress progress; /* its multiplexer slot */
	uint64_t records;	     /* emitted */
	/* Paused while alignment holds the partition back (split level), on
	 * processing time: processing time minus its reading is the time it
	 * was held back. */
	struct wm_pausable_clock held;
};

struct wm_task {
	const struct wm_topology *topo;
	const struct wm_stage *stage;
	uint32_t index;
	struct wm_task_out *out;
	struct wm_task_counters counters;
	int64_t now_ns;
	bool finished;
	char why[256]; /* the last failure of wm_task_input() */
	/* Real time its process waited for a CPU (wm_task_cpu_wait()), which
	 * every progress tracker of the task follows. */
	int64_t cpu_wait_ns;

	/* what is published (metrics.h) */
	struct wm_subtask_metrics *metrics;
	struct wm_progress output; /* the subtask's output watermark */
	uint32_t cause; /* input channel of the frame at hand, or NO_CAUSE */
	uint64_t results;
	int64_t fire_delay_max_ms;
	uint64_t fire_delays_excluded; /* windows at the ends of time */

	/* inputs */
	uint32_t n_channels;
	uint32_t ended_channels;
	struct channel_map *channels;
	struct wm_valve *valves[WM_TOPOLOGY_MAX_INPUTS];
	uint32_t input_first[WM_TOPOLOGY_MAX_INPUTS]; /* its first channel */
	struct valve_port ports[WM_TOPOLOGY_MAX_INPUTS];
	bool two_inputs;
	struct wm_multi_input combined;

	/* what reaches the operator: watermarks and statuses after the
	 * valves (and the combination of inputs) */
	struct wm_output operator_in;

	/* outputs */
	uint32_t n_edges;
	struct wm_edge *edges;
	struct wm_output edges_out; /* watermarks and statuses to edges */

	/* operators */
	struct wm_window *window;
	struct wm_window_output window_out;
	wm_ts_t firing_watermark;
	struct wm_record_source *src; /* generator or replay: the driver's */
	bool watermarks_ready;	      /* `watermarks` set up, to destroy */
	struct wm_source_watermarks watermarks;
	struct wm_source_split **split_of; /* by partition id */
	uint32_t n_parts;
	uint32_t *parts;	       /* partition ids, local order */
	uint32_t *local_of;	       /* by partition id: local index */
	struct source_partition *part; /* by local index */
	bool source_started;
	/* The last run left records due (a burst cut short, an unlimited
	 * rate): what falls due before the next run runs late, then. */
	bool behind;
	uint32_t
		parts_finished; /* retired so far, in the source's finish order */
	int64_t end_ns;		/* [job] processing_time: input ends then */
	uint64_t bad_records;	/* trace lines skipped (on_bad_record) */

	/* watermark alignment (operators/alignment.h) */
	uint32_t n_peers;
	struct wm_subtask_metrics **peers; /* the group's blocks, self too */
	bool reported;
	wm_ts_t max_allowed; /* last announced; MAX before the first */
	int64_t next_alignment_ns;
	/* Subtask level: paused while it reads nothing; processing time
	 * minus its reading is the time it waited. */
	struct wm_pausable_clock waiting;
	bool backpressured; /* the runtime cannot send */
};

/* [job] stall_threshold in ns (progress.h). */
int64_t wm_task_stall_threshold_ns(const struct wm_topology *topo);

/* A frame to every channel of every output edge. */
void wm_task_send_all(struct wm_task *t, const struct wm_frame *f);

/* A record to each output edge, by its partitioner. */
void wm_task_send_record(struct wm_task *t, const struct wm_record *r);

/* task_source.c: set up a source subtask's partitions and watermarks
 * from its record source (t->src; 0 or a negative errno); the partition
 * holding its watermark now (progress.h cause; WM_PROGRESS_NO_CAUSE if
 * none). */
int wm_task_init_source(struct wm_task *t);
uint32_t wm_task_holding_partition(const struct wm_task *t);

#endif /* WM_RUNTIME_TASK_INTERNAL_H */
