/*
 * task_state.h
 *	The inside of a task (task.h), shared by its files and nothing else.
 *
 * A task is a skeleton common to every stage kind (task.c: its inputs and
 * valves, the dispatch of frames, publishing), an output side (task_out.c:
 * the edges, their partitioners and status rules) and the state of its
 * kind: a source's partitions and alignment (task_source.c), a window's
 * operator (task_window.c), a join's (task_join.c); a keyBy has none.
 * The calls go one way:
 * task.c calls the kinds and the output side, the kinds call the output
 * side, and the output side calls nobody back.
 */
#ifndef WM_RUNTIME_ENGINE_TASK_STATE_H
#define WM_RUNTIME_ENGINE_TASK_STATE_H

#include "operators/pausable_clock.h"
#include "operators/source_watermarking.h"
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

/* Records a task stages before they go as one run: a source's whole
 * burst (WM_TASK_SOURCE_BURST, task.h) in one run of 8 KiB, which stays
 * in the first-level cache while the source, and under --sim the tasks
 * after it, take it, so that what a run pays once (the generator's round,
 * the keyBy's sort by channel, a call a stage) is paid once a burst; a
 * worker's output pushes them on in runs of its own (worker.c). */
#define WM_TASK_STAGED 256u

/* What a source subtask keeps of one of its partitions. */
struct source_partition {
	struct wm_progress progress; /* its multiplexer slot */
	uint64_t records;	     /* emitted */
	uint32_t local;		     /* its index in part[] */
	/* Paused while alignment holds the partition back (split level), on
	 * processing time: processing time minus its reading is the time it
	 * was held back. */
	struct wm_pausable_clock held;
	/* For the advice (metrics.h): when its last record was emitted (the
	 * subtask's start before the first), its longest silence closed so
	 * far, ms, and the newest event time among its records (MIN). */
	int64_t last_ns;
	int64_t gap_max_ms;
	wm_ts_t newest_ts;
	int64_t disorder_max_ms;
	/* A real run's schedule (progress.h `due`): when its last record was
	 * due (the subtask's start before the first), the first and the last
	 * due of the records emitted since the last tick (INT64_MAX: none),
	 * and when its tracker's update at hand was due. */
	int64_t last_due_ns;
	struct wm_progress_due pending;
	struct wm_progress_due due;
	/* What the generator its records feed has seen: with a slot of its
	 * own (watermarks per split) its newest event time and pending
	 * records above, else the subtask's (one generator over every
	 * partition's records, t->newest_ts and the subtask's pending). Set
	 * when the partition is adopted. */
	const wm_ts_t *generator_newest;
	const struct wm_progress_due *generator_pending;
	int64_t resumed_ns;  /* alignment last let it read again; 0 */
	uint64_t burst_seen; /* the last burst it emitted in (emit_due()) */
	/* Records of this burst taken the short way, whose count and 0 ms
	 * gaps go into `records` and the gap histogram once, at the burst's
	 * end (settle_burst()), when its watermark generator sees their
	 * newest event time (in newest_ts): 0 between bursts. */
	uint32_t burst_more;
};

/* A source subtask's own state (task_source.c). */
struct task_source {
	struct wm_record_source *src; /* generator or replay: the driver's */
	uint64_t burst;		      /* emit_due() calls so far */
	bool watermarks_ready;	      /* `watermarks` set up, to destroy */
	/* Per split or per subtask (`watermark_at`), which the task never
	 * asks: it follows what the interface gives. */
	struct wm_source_watermarking watermarks;
	/* By partition id: its handle (NULL: none of its own, or finished). */
	struct wm_source_split **split_of;
	/* Partitions known, in the source's order; it may list more as it
	 * runs (wm_task_source_adopt()), up to the room the plan reserved. */
	uint32_t n_parts;
	uint32_t room;
	uint32_t *parts; /* partition ids, local order */
	/* By partition id: its entry in part[], NULL: not one of this
	 * subtask's (yet). A pointer, not an index: a record's partition is
	 * found with one load, as the short way finds it for every
	 * record. */
	struct source_partition **part_of;
	struct source_partition *part; /* by local index */
	/* Some partition's generator is the subtask's: its disorder is
	 * measured against the subtask's newest event time, which each
	 * record must then move as it is taken. Otherwise the short way
	 * leaves that to the burst's end (settle_burst()). */
	bool subtask_newest;
	/* wm_task_count_noise()'s speed, for partitions adopted later; 0:
	 * not counted. */
	double noise_speed;
	/* The first and the last due of the records emitted since the last
	 * tick, of every partition (INT64_MAX: none); the latest due of a
	 * record it emitted (0 before the first). */
	struct wm_progress_due pending;
	int64_t last_due_ns;
	int64_t resumed_ns; /* alignment last let it read again; 0 */
	/* A real run's due times of the run being taken (emit_due()). */
	int64_t run_due[WM_TASK_STAGED];
	/* The partitions (local) that had a record in the burst being
	 * taken, each once: those settle_burst() settles. */
	uint32_t burst_parts[WM_TASK_SOURCE_BURST];
	uint32_t n_burst_parts;
	/* Whether the source can go on, as its health() op said after the
	 * last run, or the task's own verdict on what the source did
	 * (exit_code EX_SOFTWARE, t->why). */
	struct wm_source_health health;
	bool started;
	/* The watermarks' periodic schedule came with a restore
	 * (checkpoint_watermarks): the first run does not start it anew. */
	bool ticks_restored;
	/* Replaying the backlog of a restore with checkpoint_watermarks:
	 * the records due before the source caught up run on their due
	 * times, not on the clock (replay_due() in task_source.c). */
	bool replaying;
	/* The last run left records due (a burst cut short, an unlimited
	 * rate): what falls due before the next run runs late, then. */
	bool behind;
	uint32_t finished_parts; /* retired so far, in the source's order */
	int64_t end_ns;		 /* [job] processing_time: input ends then */
	uint64_t bad_records;	 /* trace lines skipped (on_bad_record) */
	uint64_t heartbeats;	 /* taken and dropped (take_heartbeat()) */
	/* The last record it emitted: its timestamp (WM_TS_MIN before the
	 * first) and the processing time it went out at, for Flink's
	 * currentEmitEventTimeLag (wm_task_publish_source()). */
	wm_ts_t last_emit_ts;
	int64_t last_emit_ns;

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

/* The late records of a window or join subtask: by the partition they
 * came from (as metrics.h late_by_partition), and the latest of them. */
struct task_lateness {
	uint64_t by_partition[WM_METRICS_LATE_PARTITIONS];
	int64_t max_ms; /* of the late records; -1: none */
};

/* A window subtask's own state (task_window.c). */
struct task_window {
	struct wm_task *task;
	struct wm_window *op;
	struct wm_window_output out;
	wm_ts_t firing_watermark; /* the watermark whose timers fire now */
	uint64_t results;
	int64_t fire_delay_max_ms;
	uint64_t fire_delays_excluded; /* windows at the ends of time */
	/* The string-key flag of its keys (wm_task_string_keys()), which
	 * its results as records carry on. */
	uint32_t key_flags;
	struct task_lateness late;
};

/* A join subtask's own state (task_join.c): an interval join or a
 * window join, one of the two operators set. */
struct task_join {
	struct wm_task *task;
	struct wm_interval_join *op;
	struct wm_interval_join_output out;
	struct wm_window_join *windows;
	struct wm_window_join_output windows_out;
	/* The watermark its pairs are emitted at: a window's firing is at
	 * the watermark being processed, the rest at the operator's. */
	wm_ts_t emitting_watermark;
	uint64_t pairs;
	uint64_t late_out; /* records to its late outputs */
	/* The string-key flag of its keys (wm_task_string_keys()), which
	 * its pairs as records carry on. */
	uint32_t key_flags;
	struct task_lateness late;
};

/* A join's figures of one side, whichever operator it has: records taken,
 * kept, late and dropped, late and to the side's late output, and none
 * of these (refused: no timestamp, or in no window and not late). */
struct join_side_figures {
	uint64_t in, kept, dropped, side_output, other;
};

struct wm_task {
	const struct wm_topology *topo;
	const struct wm_stage *stage;
	const struct wm_plan *plan;
	const struct wm_plan_subtask *sub; /* its place in the plan */
	uint32_t id;			   /* plan id */
	struct wm_task_out *out;
	struct wm_task_counters counters;
	wm_ts_t newest_ts; /* of the records taken or emitted; MIN: none */
	int64_t now_ns;
	/* The job's event-time clock at processing time 0, epoch ms
	 * (wm_task_set_clock_zero()). */
	int64_t clock_zero_ms;
	bool finished;
	/* A window on processing time: its clock moves with every input
	 * (arriving(), wm_task_window_time()). */
	bool processing_clock;
	char why[256]; /* the last failure of wm_task_input() */
	/* Real time its process waited for a CPU (wm_task_cpu_wait()), which
	 * every progress tracker of the task follows. */
	int64_t cpu_wait_ns;

	/* Records a source's burst staged, staged[staged_from..n_staged)
	 * (a run read into staged[] in place and staged a record at a time,
	 * task_out.h), sent as runs
	 * (wm_task_send_run()) when full, before any frame leaves the task,
	 * and at the burst's end (wm_task_flush_staged()): a frame never
	 * overtakes a record sent before it, and none is staged between
	 * calls into the task. A flush sends what is staged and moves
	 * staged_from up to n_staged, so the records of a run after it stay
	 * where they were read. No record goes unstaged while some are: a
	 * driver without `records` has each record flushed as it is staged,
	 * and a flush empties the staging before it sends. */
	uint32_t staged_from;
	uint32_t n_staged;
	struct wm_record staged[WM_TASK_STAGED];

	/* what is published (metrics.h) */
	struct wm_subtask_metrics *metrics;
	struct wm_partition_metrics *partition_metrics; /* a source's */
	_Atomic uint64_t *fire_delays; /* a window's: WM_HISTOGRAM_FINE */
	struct wm_progress output;     /* the subtask's output watermark */
	uint32_t cause; /* input channel of the frame at hand, or NO_CAUSE */
	/* A real run (wm_task_count_noise()): when the watermark or status
	 * at hand was due by the records' schedule (progress.h `due`), which
	 * its frames carry on; how late the process is on it now (the
	 * processing time since the event at hand was due), the most it
	 * ever was, and when a reading's open stretches end: now less the
	 * present lateness. */
	bool real;
	struct wm_progress_due due;
	int64_t tracked_ns;
	int64_t late_ns;
	int64_t late_max_ns;

	/* inputs */
	uint32_t n_channels;
	uint32_t ended_channels;
	struct channel_map *channels;
	struct wm_valve *valves[WM_TOPOLOGY_MAX_INPUTS];
	struct valve_port ports[WM_TOPOLOGY_MAX_INPUTS];
	bool two_inputs;
	struct wm_multi_input combined;

	/* what reaches the operator: watermarks and statuses after the
	 * valves (and the combination of inputs) */
	struct wm_output operator_in;

	/* outputs (task_out.c) */
	uint32_t n_edges;
	struct wm_edge *edges;
	struct wm_output edges_out; /* watermarks and statuses to edges */

	/* checkpoints (task_checkpoint.c): the barrier handler of a task
	 * with inputs, NULL when the job takes none; the timestamp of the
	 * checkpoint it aligns, forwarded with its barrier */
	struct wm_barrier_align *barriers;
	int64_t barrier_timestamp_ns;

	/* the kind's own state: at most one is set */
	struct task_source *source;
	struct task_window *window;
	struct task_join *join;
};

/* [job] stall_threshold in ns (progress.h); a threshold beyond the int64
 * range of ns (292 years) means never. */
static inline int64_t
wm_task_stall_threshold_ns(const struct wm_topology *topo)
{
	return wm_ms_to_ns(topo->job.stall_threshold_ms);
}

/* task_source.c: set up a source subtask's partitions and watermarks
 * from its record source `src`, owned by the task from the call on (0 or
 * a negative errno); free them; the partition holding its watermark now
 * (progress.h cause; WM_PROGRESS_NO_CAUSE if none); its partitions'
 * stalls within scheduling noise counted apart (task.h); its figures into its
 * metrics block, and the check that they add up (WM_ASSERT). */
int wm_task_init_source(struct wm_task *t, struct wm_record_source *src);
/* Take the partitions the record source listed since the last call (0,
 * or a negative errno with t->why set). */
int wm_task_source_adopt(struct wm_task *t);
void wm_task_free_source(struct wm_task *t);
uint32_t wm_task_holding_partition(const struct wm_task *t);
void wm_task_source_count_noise(struct wm_task *t, double speed);
void wm_task_publish_source(const struct wm_task *t, int64_t now_ns);
void wm_task_check_source(const struct wm_task *t);

/* The most records wm_task_window_records() takes in one call. */
#define WM_TASK_WINDOW_RUN 64

/* task_window.c: set up and free a window subtask's operator; a record,
 * or a run of records r[0..n), n <= WM_TASK_WINDOW_RUN, a watermark and a
 * status reaching the operator. Records are already counted received from
 * logical input `input` and in records_in; a record returns 0, or -ENOMEM
 * with it in no window and uncounted, wm_task_why() saying what; a run
 * returns 0 with every record taken (*taken = n), or -ENOMEM with
 * r[*taken] in no window, it and the ones after it uncounted in
 * records_in, it alone uncounted received (the caller uncounts the rest,
 * still in flight). Then the figures into the metrics block, and the
 * check that they add up. */
int wm_task_init_window(struct wm_task *t);
void wm_task_free_window(struct wm_task *t);
int wm_task_window_record(struct wm_task *t, uint32_t input,
			  const struct wm_record *r);
int wm_task_window_records(struct wm_task *t, uint32_t input,
			   const struct wm_record *r, uint32_t n,
			   uint32_t *taken);
void wm_task_window_watermark(struct wm_task *t, wm_ts_t w);
void wm_task_window_status(struct wm_task *t, enum wm_status s);
void wm_task_window_time(struct wm_task *t, int64_t now_ns);
void wm_task_publish_window(const struct wm_task *t);
void wm_task_check_window(const struct wm_task *t);

/* task.c: a record judged late by an operator whose watermark was
 * `watermark` (Flink's isElementLate(): the operators count them in all):
 * the partition it came from, and how late it was, the watermark minus
 * its timestamp, into `late` and the block's histogram as it happens
 * (advice.h); a window's allowed_lateness would have to cover it (an
 * upper bound: its last window ended at or after its timestamp). Then
 * those figures into the metrics block. */
void wm_task_count_late(struct wm_task *t, struct task_lateness *late,
			wm_ts_t watermark, const struct wm_record *r);
void wm_task_publish_lateness(const struct wm_task *t,
			      const struct task_lateness *late);

/* task_join.c: set up and free a join subtask's operator; a record from
 * input `input` (its side), already counted received and in records_in:
 * 0, or -ENOMEM with it in no buffer and uncounted, wm_task_why() saying
 * what; a watermark and a status reaching the operator; the figures into
 * the metrics block, and the check that they add up. */
int wm_task_init_join(struct wm_task *t);
void wm_task_free_join(struct wm_task *t);
int wm_task_join_record(struct wm_task *t, uint32_t input,
			const struct wm_record *r);
void wm_task_join_watermark(struct wm_task *t, wm_ts_t w);
void wm_task_join_status(struct wm_task *t, enum wm_status s);
void wm_task_publish_join(const struct wm_task *t);
void wm_task_check_join(const struct wm_task *t);
struct join_side_figures wm_task_join_side(const struct task_join *j,
					   enum wm_join_side side);
/* Checkpoints of whichever operator the join has: its state, its
 * watermark alone (checkpoint_watermarks); 0 or the reader's error. */
void wm_task_join_snapshot(const struct task_join *j, struct wm_snap_writer *w);
int wm_task_join_restore(struct task_join *j, struct wm_snap_reader *r);
void wm_task_join_snapshot_watermark(const struct task_join *j,
				     struct wm_snap_writer *w);
int wm_task_join_restore_watermark(struct task_join *j,
				   struct wm_snap_reader *r);

/* task_checkpoint.c: the barrier handler (none when the job takes no
 * checkpoint; 0 or a negative errno), its freeing, a BARRIER frame on
 * input `channel`, and the END of that channel as the handler sees it
 * (0, or the snapshot's error, wm_task_why() saying what). */
int wm_task_init_checkpoints(struct wm_task *t);
void wm_task_free_checkpoints(struct wm_task *t);
int wm_task_barrier(struct wm_task *t, uint32_t channel,
		    const struct wm_frame *f, int64_t now_ns);
int wm_task_channel_ended(struct wm_task *t, uint32_t channel, int64_t now_ns);

/* Records taken from input `input`, counted as they are taken (after the
 * upstream counted them sent, before this task's own sends): on every
 * edge received <= sent, whenever the figures are read (metrics.h). */
/* A real run: the event at hand was due at `first` and `last` (progress.h
 * `due`), which the output tracker and the frames it sends take. A frame
 * may say it was due after the task's reading of its clock (read once for
 * a batch of frames, before the upstream made the last ones): the output
 * tracker's time moves on to it. Nothing under --sim. */
static inline void
wm_task_due(struct wm_task *t, int64_t first_ns, int64_t last_ns)
{
	if (!t->real)
		return;
	if (last_ns < first_ns)
		last_ns = first_ns;
	t->due = (struct wm_progress_due){first_ns, last_ns};
	if (t->tracked_ns < t->now_ns)
		t->tracked_ns = t->now_ns;
	if (t->tracked_ns < last_ns)
		t->tracked_ns = last_ns;
}

/* The time the output tracker takes an update at: the task's, or in a
 * real run the latest a frame's schedule showed (wm_task_due()). */
static inline int64_t
wm_task_tracked_ns(const struct wm_task *t)
{
	return t->real && t->tracked_ns > t->now_ns ? t->tracked_ns : t->now_ns;
}

/* A real run: what the process did at t->now_ns was due at `due_ns`: it
 * is that late (a record it emitted, a watermark or status it moved). */
static inline void
wm_task_late(struct wm_task *t, int64_t due_ns)
{
	if (!t->real)
		return;
	t->late_ns = due_ns < t->now_ns ? t->now_ns - due_ns : 0;
	if (t->late_ns > t->late_max_ns)
		t->late_max_ns = t->late_ns;
}

/* When a reading at `now_ns` closes open stretches: now less the
 * process's lateness in a real run (progress.h: a reading is clamped to
 * what came before). */
static inline int64_t
wm_task_reading_ns(const struct wm_task *t, int64_t now_ns)
{
	if (!t->real)
		return now_ns;
	if (now_ns < t->tracked_ns)
		now_ns = t->tracked_ns;
	return now_ns - t->late_ns;
}

static inline void
wm_task_received(struct wm_task *t, uint32_t input, int64_t n)
{
	WM_METRIC_ADD(t->metrics->records_received[input], n);
}

#endif /* WM_RUNTIME_ENGINE_TASK_STATE_H */
