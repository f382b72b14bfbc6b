/*
 * snapshot.h
 *	One reading of a running job's metrics blocks, with what a reader
 *	derives from two readings: rates per second, Flink's busy, idle and
 *	back-pressured time per second, how long each watermark has not
 *	moved, and the blame chain from any subtask up to the source
 *	partition that holds its watermark.
 *
 * A snapshot is plain memory, made by one sampler and then only read: the
 * sampler publishes each new one to its readers (the live view, the
 * Prometheus endpoint, the timeline) and frees an old one once no reader
 * can hold it (doc/architecture.md, "Watching a job"). Nothing here reads
 * a clock or does I/O: the caller passes the blocks and the moment, so
 * that --sim, a real run and the tests take snapshots alike.
 *
 * The blocks are written by other processes while they are read (relaxed
 * loads, metrics.h): each value is whole, the set is of about one moment.
 * A derived figure is "unknown" (a negative rate, or WM_SNAP_UNKNOWN)
 * where that matters: a first snapshot has no rates; a time split that
 * could not be read (time_split.h) has no busy time.
 */
#ifndef WM_RUNTIME_OBSERVE_SNAPSHOT_H
#define WM_RUNTIME_OBSERVE_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/time.h"
#include "runtime/metrics/metrics.h"
#include "runtime/plan/plan.h"

/* A per-second figure that two snapshots could not give. */
#define WM_SNAP_UNKNOWN (-1.0)

/* An input channel of a subtask, as its valve holds it. */
struct wm_snap_channel {
	wm_ts_t watermark;
	bool idle, aligned;
	uint32_t producer; /* plan id of the subtask that sends on it */
};

/* A partition (split) of a source subtask. */
struct wm_snap_partition {
	uint32_t partition;
	wm_ts_t watermark;
	bool idle;
	uint64_t records;     /* emitted so far */
	double records_per_s; /* per second of real time, as every rate */
	/* Processing time it spent IDLE and held back by alignment (Flink's
	 * accumulatedIdleTimeMs and accumulatedPausedTimeMs), and the same
	 * per second of processing time over the last interval (its
	 * idleTimeMsPerSecond and pausedTimeMsPerSecond: these are clocks of
	 * the job's processing time, which runs at its speed); active is the
	 * rest. WM_SNAP_UNKNOWN without the snapshot before. */
	int64_t idle_ns, paused_ns;
	double idle_ms_per_s, paused_ms_per_s, active_ms_per_s;
	/* When its present state began, as its subtask's tracker measured
	 * it (progress.h since_ns): IDLE since, or ACTIVE and still since,
	 * its last advance (0: the start). How long a watermark has stood
	 * still, exactly, whatever the sampling. */
	int64_t since_ns;
	/* When its next record is due, as its subtask last published it
	 * (wm_partition_metrics.next_due_ns): INT64_MAX none from the
	 * passage of time, INT64_MIN its source cannot say. */
	int64_t next_due_ns;
};

struct wm_snap_subtask {
	wm_ts_t watermark; /* currentOutputWatermark */
	bool idle;
	bool finished;
	wm_ts_t newest_event_time; /* MIN: no record yet */
	/* The job's event-time clock at processing time 0 (epoch ms), as
	 * the subtask holds it: its clock now is this plus the snapshot's
	 * processing time (wm_snap_clock_ms()). */
	int64_t clock_zero_ms;
	int64_t emit_lag_ms; /* a source's currentEmitEventTimeLag; MIN */
	uint64_t records_in, records_out, late_dropped;
	double records_in_per_s, records_out_per_s;
	/* Flink's idleTimeMsPerSecond, backPressuredTimeMsPerSecond and
	 * busyTimeMsPerSecond over the last interval; WM_SNAP_UNKNOWN. */
	double idle_ms_per_s, backpressured_ms_per_s, busy_ms_per_s;
	/* Real time its process waited for a CPU (runnable, not running),
	 * in all and in ms per second over the last interval (as it last
	 * published it, or as read from outside: wm_snapshot_set_cpu_wait());
	 * pid: its process, 0 if it has none of its own (--sim). */
	pid_t pid;
	int64_t cpu_wait_ns;
	double cpu_wait_ms_per_s;
	/* What holds the output watermark (metrics.h held_by_now): an
	 * input channel of this subtask, for a source a partition id;
	 * UINT32_MAX: nothing. */
	uint32_t held_by;
	int64_t since_ns; /* of its output, as for a partition */
	/* A window restored after a crash: when its watermark came back
	 * where it was (metrics.h caught_up_ns; -1: not yet). */
	int64_t caught_up_ns;
	/* A source: how long its next record has been due (metrics.h
	 * next_record_due_ns; 0: not yet, or none is). */
	int64_t overdue_ns;
	/* A source fed from outside: outages it rode out so far, and
	 * whether it is without its brokers now (metrics.h). */
	uint32_t source_outages;
	bool source_unreachable;
	uint32_t n_channels;
	struct wm_snap_channel *channels;
	uint32_t n_partitions;
	struct wm_snap_partition *partitions;
	/* The time split as read, for the next snapshot's differences;
	 * idle_total_ns < 0: it could not be read. */
	int64_t idle_total_ns, backpressured_total_ns;
};

struct wm_snapshot {
	uint64_t seq;	       /* 0 for the first of a job */
	int64_t real_ns;       /* the reading's monotonic clock */
	int64_t processing_ns; /* the job's processing time then */
	/* The job's scheduling noise as it measured it so far: the most
	 * processing time a subtask fell behind the records' schedule
	 * (metrics.h late_max_ns); INT64_MAX for a first reading, which
	 * judges nothing. */
	int64_t noise_ns;
	uint32_t n_subtasks; /* as the plan's ids */
	struct wm_snap_subtask *subtasks;
	/* Over every window subtask, so far: the on-time firings' delays
	 * (histogram.h) and the late records by source partition
	 * (metrics.h late_by_partition), for the report. */
	uint64_t fire_delays[WM_HISTOGRAM_BUCKETS];
	uint64_t late_by_partition[WM_METRICS_LATE_PARTITIONS];
	/* Restarts of the job so far and the processing time of the last
	 * restore (wm_snapshot_set_restarts(); 0: none). */
	uint32_t restarts;
	int64_t restored_ns;
	/* The job's checkpoints so far (wm_snapshot_set_checkpoints());
	 * `checkpointing` false for a job that takes none. */
	bool checkpointing;
	struct wm_snap_checkpoints {
		uint64_t completed, failed;
		uint32_t in_progress;
		int64_t last_duration_ns; /* while completed > 0 */
		uint64_t last_bytes;
	} checkpoints;
};

/* The job restarted `restarts` times, the last restore at processing
 * time `restored_ns` (the segment's header says so, shm.h). */
static inline void
wm_snapshot_set_restarts(struct wm_snapshot *snap, uint32_t restarts,
			 int64_t restored_ns)
{
	snap->restarts = restarts;
	snap->restored_ns = restored_ns;
}

/* The job's checkpoints as the supervisor published them (shm.h). */
static inline void
wm_snapshot_set_checkpoints(struct wm_snapshot *snap,
			    const struct wm_snap_checkpoints *c)
{
	snap->checkpointing = true;
	snap->checkpoints = *c;
}

/* The watermark lag of subtask `s` of `snap` as Flink's watermarkLag
 * reads it: the job's event-time clock then (epoch ms) less the
 * watermark; false while it has none, or it is the end of time. */
static inline bool
wm_snap_watermark_lag(const struct wm_snapshot *snap,
		      const struct wm_snap_subtask *s, int64_t *lag_ms)
{
	int64_t clock;

	return s->watermark != WM_TS_MIN && s->watermark != WM_TS_MAX &&
	       !__builtin_add_overflow(s->clock_zero_ms,
				       snap->processing_ns / 1000000, &clock) &&
	       !__builtin_sub_overflow(clock, s->watermark, lag_ms);
}

/* How long event time has been held since the last restore, as of the
 * snapshot: until every window restored with a watermark to come back to
 * came back (-1 while the job never restarted). *over: it is over. */
int64_t wm_snapshot_hold(const struct wm_snapshot *snap, bool *over);

/*
 * Read the blocks and partitions of every subtask of `plan` in
 * `metrics`, a metrics area laid out by it (the segment's, or --sim's:
 * plan.h, wm_plan_block(), wm_plan_partitions()). `prev`
 * is the snapshot before (NULL for the first), for the figures per second.
 * Returns a new snapshot in one allocation, freed
 * with wm_snapshot_free(); NULL, errno ENOMEM.
 */
struct wm_snapshot *wm_snapshot_take(const struct wm_plan *plan,
				     const void *metrics,
				     const struct wm_snapshot *prev,
				     int64_t real_ns, int64_t processing_ns);
void wm_snapshot_free(struct wm_snapshot *snap);

/* Subtask id's process waited `cpu_wait_ns` of real time for a CPU in all,
 * as read from outside it (base/schedstat.h) when `snap` was taken:
 * it replaces what the subtask last published, which stops while it is
 * not scheduled, and gives the rate over the interval from `prev`. */
void wm_snapshot_set_cpu_wait(struct wm_snapshot *snap,
			      const struct wm_snapshot *prev, uint32_t id,
			      int64_t cpu_wait_ns);

/* Why the end of a blame chain holds the watermark. */
enum wm_blame_cause {
	WM_BLAME_NONE,	       /* nothing holds it (or it is not held) */
	WM_BLAME_SILENCE,      /* the partition delivers no records */
	WM_BLAME_BACKPRESSURE, /* its subtask waits for room downstream */
	WM_BLAME_STARVED,      /* its subtask waits for a CPU */
	WM_BLAME_BEHIND, /* its records are due, its process not running */
	WM_BLAME_SLOW,	 /* records arrive, the watermark is just low */
};

#define WM_BLAME_MAX_HOPS 16

/*
 * What holds subtask `id`'s watermark, followed upstream: the subtasks on
 * the way (hop[0] = id), then at a source the partition. A chain that
 * meets an idle channel, a subtask that holds nothing or one that does not
 * say ends there, with WM_BLAME_NONE if that is at `id` itself.
 */
struct wm_blame {
	uint32_t n_hops;
	uint32_t hop[WM_BLAME_MAX_HOPS];     /* plan ids, downstream first */
	uint32_t channel[WM_BLAME_MAX_HOPS]; /* input channel taken at hop */
	uint32_t partition; /* at the source; UINT32_MAX: none */
	enum wm_blame_cause cause;
	int64_t for_ns; /* processing time the held watermark has not moved */
};

void wm_snapshot_blame(const struct wm_snapshot *snap,
		       const struct wm_plan *plan, uint32_t id,
		       struct wm_blame *out);

/* The minimum over input channels [first, first + n) of `s`: Flink's
 * currentInputWatermark over all of them, currentInput1Watermark and
 * currentInput2Watermark over a two-input operator's ports (a source: its
 * own output, which is what enters its operator chain). */
wm_ts_t wm_snapshot_input_watermark(const struct wm_snap_subtask *s,
				    uint32_t first, uint32_t n);

#endif /* WM_RUNTIME_OBSERVE_SNAPSHOT_H */
