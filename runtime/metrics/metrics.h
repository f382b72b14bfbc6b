/*
 * metrics.h
 *	The metrics block of one subtask: what it counted and how its
 *	watermark moved, for the job summary now and for a live view and a
 *	Prometheus endpoint later.
 *
 * In a real run the blocks sit in the job's shared segment (shm.h's
 * metrics area): the subtask is the only writer and the supervisor reads
 * them while the job runs and after it ended. The --sim driver keeps the
 * same area in its own memory. The plan lays the area out
 * (runtime/plan/plan.h; wm_plan_block() and wm_plan_partitions() are the
 * only ways in):
 *
 *   0                   n_subtasks blocks of the plan's metrics_stride
 *                       bytes: struct wm_subtask_metrics, then room for
 *                       the plan's max_inputs input channels (struct
 *                       wm_channel_metrics)
 *   metrics_partitions  of each source subtask, in plan order: its
 *                       wm_plan_subtask.n_partitions entries of struct
 *                       wm_partition_metrics
 *   metrics_fire_delays of each window subtask, in plan order: the
 *                       WM_HISTOGRAM_FINE counts of its fire delays
 *                       (wm_plan_subtask.fire_delay_buckets of them)
 *
 * Only a source subtask has partition entries, and only as many as the
 * plan gives it: a window's block carries none. An entry is 920 bytes,
 * most of it a gap histogram (struct wm_gap_histogram); when every block
 * had room for the largest source's entries, of 1,432 bytes then, a
 * 65,536-partition job over 4 + 4 subtasks took 181 MiB. Every block and
 * every subtask's run of entries starts on a 128-byte line of its own, so
 * that no two writers share a cache line.
 *
 * Every field is written with relaxed atomic stores of whole values
 * (single writer: load, add, store, never a locked read-modify-write) and
 * read with relaxed loads: a reader sees each value whole but not the
 * block as one snapshot, which a live view does not need. `finished` is stored with release once the
 * subtask wrote its last values; a reader that loads it with acquire and
 * sees 1 reads final figures.
 *
 * Names follow Flink's metrics (doc/semantics.md section 9.4) where Flink
 * has one; the rest are wmrun's own.
 */
#ifndef WM_RUNTIME_METRICS_METRICS_H
#define WM_RUNTIME_METRICS_METRICS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/histogram.h"
#include "runtime/metrics/time_split.h"

/* Logical inputs and output edges of a stage, as topology.h bounds them
 * (task.c checks that they agree). */
#define WM_METRICS_MAX_INPUTS 2
#define WM_METRICS_MAX_EDGES 64

/* Partitions whose late records a window subtask counts apart; those of
 * partition ids from WM_METRICS_LATE_PARTITIONS - 1 up share the last
 * entry (late_by_partition). */
#define WM_METRICS_LATE_PARTITIONS 64

/* How a watermark moved (runtime/engine/progress.h), as published. */
struct wm_watermark_metrics {
	_Atomic int64_t watermark; /* last one; MIN before the first */
	_Atomic uint32_t idle;	   /* 1 while IDLE */
	/* What ended the longest stall (progress.h): an input channel, for
	 * a source a partition id; UINT32_MAX: unknown. */
	_Atomic uint32_t longest_cause;
	_Atomic int64_t stalled_ns;
	_Atomic int64_t longest_stall_ns;
	_Atomic uint64_t stalls;
	_Atomic uint32_t stalled_now;
	_Atomic uint32_t reserved;
	_Atomic int64_t idle_ns;
	_Atomic uint64_t to_idle, to_active;
	/* Real time the process waited for a CPU during the longest stall. */
	_Atomic int64_t longest_starved_ns;
	/* Stalls within a real run's scheduling noise (progress.h), in none of
	 * the figures above, and their real time waiting for a CPU. */
	_Atomic uint64_t noise_stalls;
	_Atomic int64_t noise_stalled_ns;
	_Atomic int64_t noise_starved_ns;
	/* Processing time the present state began: IDLE since, or ACTIVE
	 * without an advance since (progress.h since_ns). */
	_Atomic int64_t since_ns;
};

/*
 * The gaps between a partition's records (histogram.h's WM_HISTOGRAM_GAPS,
 * 160 buckets) in 768 bytes instead of 1,280, since a source subtask keeps
 * one for each of its partitions, 65,536 of them in a large job: the
 * buckets of gaps under 64 ms count in 64 bits, as many as the partition
 * has records; the others in 32 bits, which a bucket of gaps of 64 ms or
 * more reaches only after 2^32 x 64 ms, 8.7 years of the partition's
 * processing time, and where it stays (wm_gaps_add()). The advice reads
 * percentiles of them (runtime/report/advice.h); a count stuck there
 * moves a percentile by less than a bucket of gaps that long.
 */
#define WM_METRICS_GAPS_WIDE WM_HISTOGRAM_BUCKETS_BELOW(3u, 6u)

struct wm_gap_histogram {
	_Atomic uint64_t wide[WM_METRICS_GAPS_WIDE];
	_Atomic uint32_t
		narrow[WM_HISTOGRAM_GAPS_BUCKETS - WM_METRICS_GAPS_WIDE];
};

_Static_assert(WM_METRICS_GAPS_WIDE == 32 &&
		       sizeof(struct wm_gap_histogram) == 768,
	       "gaps under 64 ms (buckets 0..31) wide, 128 buckets narrow");

/* The single writer's count of n more gaps in bucket b (a narrow bucket
 * saturates). */
static inline void
wm_gaps_add(struct wm_gap_histogram *h, unsigned b, uint32_t n)
{
	if (b < WM_METRICS_GAPS_WIDE) {
		atomic_store_explicit(
			&h->wide[b],
			atomic_load_explicit(&h->wide[b],
					     memory_order_relaxed) +
				n,
			memory_order_relaxed);
	} else {
		_Atomic uint32_t *c = &h->narrow[b - WM_METRICS_GAPS_WIDE];
		uint32_t v = atomic_load_explicit(c, memory_order_relaxed);

		atomic_store_explicit(c,
				      n > UINT32_MAX - v ? UINT32_MAX : v + n,
				      memory_order_relaxed);
	}
}

/* The count of bucket b, relaxed (a reader sees each bucket whole). */
static inline uint64_t
wm_gaps_get(const struct wm_gap_histogram *h, unsigned b)
{
	if (b < WM_METRICS_GAPS_WIDE)
		return atomic_load_explicit(&h->wide[b], memory_order_relaxed);
	return atomic_load_explicit(&h->narrow[b - WM_METRICS_GAPS_WIDE],
				    memory_order_relaxed);
}

/* One partition (Flink: split) a source subtask reads. */
struct wm_partition_metrics {
	_Atomic uint32_t partition;
	_Atomic uint32_t reserved;
	_Atomic uint64_t records;	     /* emitted */
	_Atomic int64_t alignment_paused_ns; /* held back by alignment */
	/* The processing time its next record is due, as its record source
	 * says (wm_record_source_partition_next_due_ns()): INT64_MAX, none
	 * from the passage of time; INT64_MIN, the source cannot say. What
	 * tells a silent partition from one whose process did not run. */
	_Atomic int64_t next_due_ns;
	struct wm_watermark_metrics progress; /* its multiplexer slot */
	/* For the advice at the end of a run (runtime/report/advice.h),
	 * kept here as records go, like fire_delays: the processing time
	 * between consecutive records of the partition, ms (struct
	 * wm_gap_histogram, above; gaps beyond its range are silences,
	 * whose longest is exact); the longest silence, ms, counting the one
	 * before its first record and the one still open (published); and
	 * its largest disorder, ms: the newest event time its generator had
	 * seen minus a record's timestamp, when positive. */
	_Atomic int64_t gap_max_ms;
	_Atomic int64_t disorder_max_ms;
	struct wm_gap_histogram gaps;
};

/* One input channel of a subtask, as its valve holds it (Flink keeps this
 * inside StatusWatermarkValve and shows only the minimum). Channels are
 * in the plan's order of the subtask's inputs: logical input 0's first. */
struct wm_channel_metrics {
	_Atomic int64_t watermark; /* MIN before the first */
	_Atomic uint32_t idle;	   /* 1 while the channel is IDLE */
	/* 1 while ACTIVE and caught up with the valve's output: only an
	 * aligned channel can hold the output watermark back */
	_Atomic uint32_t aligned;
};

/*
 * A subtask's part in the checkpoints of a real run: the newest checkpoint
 * whose blob it wrote into the store, and that blob's size and CRC-32C,
 * for the supervisor to complete the checkpoint (runtime/run/coordinator.h).
 * The worker stores bytes, crc and alignment first, then `id` with release
 * (K1); the supervisor loads `id` with acquire (K2) and reads the others,
 * which belong to that id: the next checkpoint is triggered only after
 * this one completed or was given up, and a given-up one's late
 * acknowledgement names an old id.
 */
struct wm_checkpoint_ack {
	_Atomic uint64_t bytes;
	_Atomic uint32_t crc;
	/* Its barriers' alignment: first barrier to last (Flink's
	 * checkpointAlignmentTime); 0 for a source. */
	_Atomic int64_t alignment_ns;
	/* 1: the blob could not be written (a full disk; the worker said
	 * why on stderr): the checkpoint cannot complete. */
	_Atomic uint32_t failed;
	_Atomic uint64_t id;
};

/* The maps chained into a source subtask (doc/semantics.md 16.6), at most
 * WM_METRICS_MAX_MAPS a source (the loader refuses more), each in its
 * slot (wm_topology_map_slot()): rows given, kept, dropped by the where,
 * and failed by cause (enum wm_expr_status, [0] unused), as
 * operators/map.h counts them, stored by the subtask after each record. */
#define WM_METRICS_MAX_MAPS 4u
#define WM_METRICS_MAP_CAUSES 4u
struct wm_map_metrics {
	_Atomic uint64_t in, out, filtered;
	_Atomic uint64_t errors[WM_METRICS_MAP_CAUSES];
};

struct wm_subtask_metrics {
	_Atomic uint64_t records_in; /* numRecordsIn */
	/* numRecordsOut: records sent (once per edge); for a window, the
	 * results and late records it emitted. */
	_Atomic uint64_t records_out;
	_Atomic uint64_t bad_records_skipped; /* numRecordsInErrors */
	/* sources: heartbeats their generators saw, dropped there */
	_Atomic uint64_t heartbeats;
	/* window subtasks */
	_Atomic uint64_t records_windowed;
	_Atomic uint64_t late_dropped; /* numLateRecordsDropped */
	_Atomic uint64_t late_side_output;
	_Atomic uint64_t other_dropped; /* in no window, not late */
	_Atomic uint64_t windows_fired;
	_Atomic uint64_t windows_fired_late;
	/* (key, window) states with contents now: at the end, windows that
	 * never fired (a stop, or processing-time timers pending at the end
	 * of input) */
	_Atomic uint64_t windows_open;
	_Atomic uint64_t results; /* handed to the chained sink */
	/* join subtasks, by side (enum wm_join_side): records taken, late
	 * records (dropped), records in its buffers now. A join also
	 * publishes records_windowed (kept), late_dropped and other_dropped
	 * (refused: no timestamp) over both sides, and its pairs as
	 * results. */
	_Atomic uint64_t join_in[2];
	_Atomic uint64_t join_late[2];	   /* dropped */
	_Atomic uint64_t join_late_out[2]; /* to the side's late output */
	_Atomic uint64_t join_buffered[2];
	_Atomic int64_t fire_delay_max_ms;
	/* A window: bit g set once group g of its WM_HISTOGRAM_FINE counts
	 * (histogram.h: buckets [1024 g, 1024 g + 1024), 8 KiB) holds one,
	 * stored before that count is. The summary reads the groups set
	 * alone, at the end (after the subtask's last store: `finished`
	 * loaded with acquire, or its process reaped), so that it faults in
	 * only the pages of the histogram the delays reached, not 432 KiB a
	 * window subtask; a count stored without its bit cannot be, and a
	 * bit without its count (a kill between the two) reads zeros. */
	_Atomic uint64_t fire_delay_groups;
	/* On-time firings whose delay means nothing: windows at the ends of
	 * time (report.h), not in fire_delays. */
	_Atomic uint64_t fire_delays_excluded;
	/* Real time its process waited for a CPU (runnable, not running),
	 * as the worker last read it; 0 under --sim. */
	_Atomic int64_t cpu_wait_ns;
	/* A real run: the most processing time it ever was behind the
	 * records' schedule on what moved its watermarks (task_state.h);
	 * 0 under --sim. */
	_Atomic int64_t late_max_ns;
	/* The subtask's output watermark and status (currentOutputWatermark;
	 * for a window subtask also what fires its windows). */
	struct wm_watermark_metrics output;
	_Atomic int64_t now_ns; /* processing time of the last update */
	/* The newest event time among the records it took (a source: among
	 * those it emitted); MIN before the first. The live view's watermark
	 * lag is this minus the output watermark. */
	_Atomic int64_t newest_event_time;
	/* The job's event-time clock at processing time 0, epoch ms
	 * (wm_task_set_clock_zero()): a lag on the epoch is this plus
	 * processing time less an event time. Stored before the first
	 * record, as the first update's now_ns is. */
	_Atomic int64_t clock_zero_ms;
	/* A source: Flink's currentEmitEventTimeLag, the clock at which its
	 * last record went out less that record's timestamp, ms; INT64_MIN
	 * before the first. */
	_Atomic int64_t emit_lag_ms;
	/* A source: the processing time its next record is due, as of its
	 * last publish (INT64_MAX: none is, or it is paused or finished).
	 * A reader that finds it well in the past while nothing came out
	 * knows the process did not run when it should have: its partitions
	 * only look silent (runtime/observe/snapshot.h, WM_BLAME_BEHIND). */
	_Atomic int64_t next_record_due_ns;
	/* Real time split into waiting for input, waiting for room in an
	 * output ring and the rest (time_split.h); zero under --sim. */
	struct wm_time_split time;
	_Atomic uint32_t finished;
	struct wm_checkpoint_ack checkpoint;
	/* A window subtask restored after a crash: the processing time at
	 * which its watermark first came back to where the supervisor last
	 * saw it before the crash (wm_worker_args.crash_watermark); -1 until
	 * then; 0 for a subtask with nothing to come back to. */
	_Atomic int64_t caught_up_ns;
	/* The checkpoint its worker could not restore (0: none, or it
	 * did), and why: the worker fills restore_why, then stores the id
	 * with release (R1) and exits; the supervisor reads both after
	 * reaping it (wm_metrics_restore_failure()). */
	_Atomic uint64_t restore_failed;
	char restore_why[256];
	_Atomic uint32_t n_partitions;
	_Atomic uint32_t n_channels; /* of channels[], below */
	/* Its worker's process, stored once at its start, for the observer
	 * to read the worker's run delay even while the worker is not
	 * scheduled (base/schedstat.h); 0 under --sim. */
	_Atomic int32_t pid;
	/* Watermark alignment of a source subtask (operators/alignment.h).
	 * The report is how the subtasks of a group talk: each writes its
	 * own, then sets `alignment_reported` (release, A1 in task.c); the
	 * others read it after loading the flag (acquire, A2) and take the
	 * report as it is then (a later one is as good: reports are
	 * snapshots). */
	_Atomic uint32_t alignment_reported;
	/* What holds the output watermark now (task.c: an input channel or a
	 * partition id; UINT32_MAX: nothing), for a live view. */
	_Atomic uint32_t held_by_now;
	_Atomic int64_t alignment_report;
	_Atomic int64_t alignment_max_allowed; /* last announced; MAX */
	_Atomic int64_t alignment_waiting_ns;  /* not reading at all */
	/* A source whose records come from outside (operators/source_gen.h,
	 * health()): the outages it rode out (lost its brokers and got them
	 * back), their processing time in all, 1 while it is without them,
	 * and, once it cannot go on, the job's exit code and why. The writer
	 * fills source_why, then stores source_exit_code with release (H1);
	 * a reader that loads a nonzero code with acquire (H2) reads a whole
	 * why, which never changes after. */
	_Atomic uint32_t source_outages;
	_Atomic uint32_t source_unreachable;
	_Atomic int64_t source_outage_ns;
	_Atomic uint32_t source_exit_code;
	char source_why[256];
	/* Window fire delays of on-time firings, ms, in WM_HISTOGRAM's
	 * 488 buckets (12.5 % wide), which the live view reads on every
	 * tick and the report page plots. The summary's percentiles come
	 * from the same delays in WM_HISTOGRAM_FINE (wm_plan_fire_delays()),
	 * 113 times the size, read once at the end: a tick reading that
	 * would fault in 432 KiB of the segment a window subtask. */
	_Atomic uint64_t fire_delays[WM_HISTOGRAM_BUCKETS];
	struct wm_map_metrics maps[WM_METRICS_MAX_MAPS];
	/* A window subtask's late records (dropped and to the side output)
	 * by the source partition they were read from (base/record.h), for
	 * the report's late records over time. A fixed array costs 512
	 * bytes a block, every block having one stride, and nothing on the
	 * way of a record that is on time; sized by the plan it would need
	 * an area of its own, as the partitions have. A window fed by two sources adds their
	 * partitions of one id together. */
	_Atomic uint64_t late_by_partition[WM_METRICS_LATE_PARTITIONS];
	/* A source: the disorder of each record (its partitions' figure,
	 * above; with watermark_at = subtask, against the subtask's newest
	 * event time, which its one generator follows), ms, for records
	 * that had any. A window: how late each late record was, the
	 * watermark minus its timestamp when it was judged late, ms, and the
	 * largest. Kept as records go (advice.h). */
	_Atomic uint64_t disorder[WM_HISTOGRAM_BUCKETS];
	_Atomic uint64_t lateness[WM_HISTOGRAM_BUCKETS];
	_Atomic int64_t lateness_max_ms;
	/* Records received on each logical input, and sent on each output
	 * edge (the stage's data edges in stage order, topology.h; every copy
	 * of a broadcast counted): the summary checks that every edge
	 * delivered what was sent on it. Unlike the rest of the block these
	 * are kept here, one record at a time, not published now and then: a
	 * record is counted sent before it is pushed and received once it is
	 * taken, so received <= sent on every edge whenever the figures are
	 * read, even of processes killed at different times. */
	_Atomic uint64_t records_received[WM_METRICS_MAX_INPUTS];
	_Atomic uint64_t records_sent[WM_METRICS_MAX_EDGES];
	/* Room for the plan's max_inputs channels, so that every block has
	 * the same stride; the first n_channels are this subtask's. Its
	 * partitions are apart (above). */
	struct wm_channel_metrics channels[];
};

/* Other processes read these atomics in the shared mapping: they must be
 * plain loads and stores, not locks private to one process. */
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2 && ATOMIC_INT_LOCK_FREE == 2,
	       "metrics in shared memory need lock-free atomics");

/* Bytes of a block with room for `n_channels` input channels, rounded up
 * to whole cache lines so neighbouring writers never share one. */
static inline size_t
wm_subtask_metrics_bytes(uint32_t n_channels)
{
	size_t bytes = sizeof(struct wm_subtask_metrics) +
		       (size_t)n_channels * sizeof(struct wm_channel_metrics);

	return (bytes + 127) & ~(size_t)127;
}

/* Bytes of a source subtask's `n_partitions` partition entries, rounded up
 * to whole cache lines as a block is. */
static inline size_t
wm_partition_metrics_bytes(uint32_t n_partitions)
{
	size_t bytes =
		(size_t)n_partitions * sizeof(struct wm_partition_metrics);

	return (bytes + 127) & ~(size_t)127;
}

/* Bytes of a window subtask's fire-delay histogram of `buckets` counts
 * (0 for any other subtask), whole cache lines. */
static inline size_t
wm_fire_delay_metrics_bytes(uint32_t buckets)
{
	size_t bytes = (size_t)buckets * sizeof(_Atomic uint64_t);

	return (bytes + 127) & ~(size_t)127;
}

/* The source's exit code and why, H2 (above): "" while it goes on. */
static inline uint32_t
wm_metrics_source_failure(const struct wm_subtask_metrics *m, char *why,
			  size_t len)
{
	uint32_t code = atomic_load_explicit(&m->source_exit_code,
					     memory_order_acquire);

	if (len > 0) {
		why[0] = '\0';
		if (code != 0) {
			size_t n = strnlen(m->source_why,
					   sizeof(m->source_why) - 1);

			n = n < len - 1 ? n : len - 1;
			memcpy(why, m->source_why, n);
			why[n] = '\0';
		}
	}
	return code;
}

/* The checkpoint the worker could not restore, and why (R2, above): 0
 * and "" if it restored or had nothing to restore. */
static inline uint64_t
wm_metrics_restore_failure(const struct wm_subtask_metrics *m, char *why,
			   size_t len)
{
	uint64_t id =
		atomic_load_explicit(&m->restore_failed, memory_order_acquire);

	if (len > 0) {
		size_t n = id != 0 ? strnlen(m->restore_why,
					     sizeof(m->restore_why) - 1)
				   : 0;

		n = n < len - 1 ? n : len - 1;
		memcpy(why, m->restore_why, n);
		why[n] = '\0';
	}
	return id;
}

/* The single writer's update: a plain load and store, no lock prefix. */
#define WM_METRIC_SET(field, value)                                            \
	atomic_store_explicit(&(field), (value), memory_order_relaxed)
#define WM_METRIC_ADD(field, n)                                                \
	atomic_store_explicit(                                                 \
		&(field),                                                      \
		atomic_load_explicit(&(field), memory_order_relaxed) + (n),    \
		memory_order_relaxed)
#define WM_METRIC_GET(field)                                                   \
	atomic_load_explicit(&(field), memory_order_relaxed)

#endif /* WM_RUNTIME_METRICS_METRICS_H */
