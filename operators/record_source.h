/*
 * record_source.h
 *	Where a source subtask's records come from, as the runtime sees it:
 *	the interface that the generator, replayed traces and Kafka topics
 *	share.
 */
#ifndef WM_OPERATORS_RECORD_SOURCE_H
#define WM_OPERATORS_RECORD_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/record.h"

/*
 * A record source, as the runtime sees one source subtask: a set of
 * partitions (Flink splits), polled with the processing time.
 *
 *	next(src, now_ns, &rec)	1 and the next record due at now_ns, or 0:
 *				nothing is due. Never blocks. After 0,
 *				next_due_ns(src) > now_ns.
 *	next_run(src, now_ns, out, due_ns, cap)	up to cap records into
 *				out[], exactly what cap calls of next() would
 *				return, the source left as they would leave
 *				it; with due_ns (else NULL), due_ns[i] is what
 *				next_due_ns() said before record i. Returns how
 *				many. NULL: wm_record_source_next_run() calls
 *				next() cap times
 *	next_due_ns(src)	the earliest processing time at which next()
 *				may return a record or a partition may finish
 *				(a value <= now: call next() now); INT64_MAX:
 *				not from the passage of time (finished, or
 *				silent for ever)
 *	partition_next_due_ns(src, i)	when the i-th partition's next
 *				record is due, as next_due_ns() for it alone:
 *				INT64_MAX when none is due from the passage of
 *				time (finished, silent to the end);
 *				WM_RECORD_SOURCE_DUE_UNKNOWN when it cannot
 *				say (paused: its records wait on the runtime,
 *				not on the clock). NULL: never can (records
 *				that arrive from outside)
 *	finished(src)		every partition is finished: the subtask sends
 *				its final watermark and END
 *	n_partitions, partition_stats	partitions of this subtask in a fixed
 *				order (the index used by the runtime's per
 *				partition watermark state and summary)
 *	n_finished(src)		how many partitions finished so far (never
 *				decreases)
 *	finished_partition(src, k)	for k < n_finished, the index of
 *				the k-th partition to finish: the runtime
 *				retires each once, as n_finished grows, and
 *				releases its watermark slot
 *	pause(src, i, paused, now_ns)	stop (or resume) reading the i-th
 *				partition, for watermark alignment: its
 *				records wait, nothing is lost; NULL when the
 *				source cannot hold back one partition
 *	snapshot(src, w)	write the source's position as a section: per
 *				partition what has been read (Flink's split
 *				state: a Kafka offset), nothing of watermarks
 *	restore(src, r)		seek a new source (same configuration, nothing
 *				read yet) to a snapshot's position: from then
 *				on it returns exactly the records after it, each
 *				due when it was due before (so those due before
 *				the restart come at once, a backlog, as a Kafka
 *				consumer restarting from an offset finds them).
 *				Partitions are all reading after it (alignment
 *				pauses are not in a snapshot). 0, or the
 *				reader's error (-EINVAL: another configuration
 *				or a used source); on error, free the source
 *
 *	set_wake(src, wake, arg)	for a source whose records arrive
 *				from outside (Kafka): `wake(arg)` is called,
 *				from any thread, whenever records may have
 *				arrived; the driver wakes the subtask, which
 *				then calls next() (runtime/run/worker.c,
 *				wake_source()). Never after free() returned.
 *				NULL for time-driven sources
 *	health(src, h)		whether the source can go on (h->exit_code 0)
 *				or the job must stop, and why; NULL: always
 *	carried_watermark(src)	the watermark the record last returned
 *				carries, if it is flagged WM_RECORD_WATERMARK
 *				(else anything), until the next call of next()
 *				or next_run(). A run ends with such a record:
 *				it is the only one of its run. NULL: the
 *				source's records carry none
 *
 * n_partitions() may grow between calls (partitions discovered while the
 * job runs); new partitions come after the old, whose indexes stay. Each
 * is one the subtask owns by wm_source_gen_split_owner() among the stage's
 * `partitions`, which the plan reserved room for; the task takes them as
 * new splits (doc/semantics.md section 3.12). A health() exit code stops
 * the job with it (EX_UNAVAILABLE, EX_DATAERR, ...) and `why` in the
 * supervisor's message; outages go to the summary.
 *
 * Implementations: the generator (source_gen.c), a replayed trace
 * (runtime/source/replay_source.c), a Kafka topic (runtime/io/
 * kafka_source.c, the one fed from outside), and the recorder that wraps
 * any of them (runtime/source/record_trace.c).
 */
struct wm_record_source;
struct wm_snap_writer;
struct wm_snap_reader;

/* Whether a source can go on, and the outages it rode out, for the job's
 * messages and summary (the health() op). */
struct wm_source_health {
	int exit_code;	   /* 0: reading; else the job stops with it */
	char why[256];	   /* what stopped it, NUL-terminated */
	uint32_t outages;  /* times it lost its brokers and got them back */
	int64_t outage_ns; /* processing time without brokers, in all */
	bool unreachable;  /* without brokers now */
};

/* Per partition counters for the job summary. */
struct wm_source_partition_stats {
	uint32_t partition; /* partition id */
	uint64_t emitted;   /* records returned by next() */
	uint64_t skipped;   /* arrivals at or before now dropped by silence */
	bool finished;
};

struct wm_record_source_ops {
	int (*next)(struct wm_record_source *src, int64_t now_ns,
		    struct wm_record *out);
	int64_t (*next_due_ns)(const struct wm_record_source *src);
	int64_t (*partition_next_due_ns)(const struct wm_record_source *src,
					 uint32_t i);
	uint32_t (*next_run)(struct wm_record_source *src, int64_t now_ns,
			     struct wm_record *out, int64_t *due_ns,
			     uint32_t cap);
	bool (*finished)(const struct wm_record_source *src);
	uint32_t (*n_partitions)(const struct wm_record_source *src);
	uint32_t (*n_finished)(const struct wm_record_source *src);
	uint32_t (*finished_partition)(const struct wm_record_source *src,
				       uint32_t k);
	void (*partition_stats)(const struct wm_record_source *src, uint32_t i,
				int64_t now_ns,
				struct wm_source_partition_stats *st);
	void (*free)(struct wm_record_source *src);
	void (*pause)(struct wm_record_source *src, uint32_t i, bool paused,
		      int64_t now_ns);
	/* Checkpoints; NULL when the source cannot (see below). */
	void (*snapshot)(const struct wm_record_source *src,
			 struct wm_snap_writer *w);
	int (*restore)(struct wm_record_source *src, struct wm_snap_reader *r);
	/* Sources whose records arrive from outside; NULL for those driven
	 * by processing time alone (see below). */
	void (*set_wake)(struct wm_record_source *src, void (*wake)(void *arg),
			 void *arg);
	void (*health)(const struct wm_record_source *src,
		       struct wm_source_health *h);
	wm_ts_t (*carried_watermark)(const struct wm_record_source *src);
};

/* Embedded first in every implementation; wm_container_of() recovers it. */
struct wm_record_source {
	const struct wm_record_source_ops *ops;
};

static inline int
wm_record_source_next(struct wm_record_source *src, int64_t now_ns,
		      struct wm_record *out)
{
	return src->ops->next(src, now_ns, out);
}

static inline int64_t
wm_record_source_next_due_ns(const struct wm_record_source *src)
{
	return src->ops->next_due_ns(src);
}

/* What partition_next_due_ns() says of the i-th partition, or
 * WM_RECORD_SOURCE_DUE_UNKNOWN for a source that cannot say. */
#define WM_RECORD_SOURCE_DUE_UNKNOWN INT64_MIN

static inline int64_t
wm_record_source_partition_next_due_ns(const struct wm_record_source *src,
				       uint32_t i)
{
	if (src->ops->partition_next_due_ns == NULL)
		return WM_RECORD_SOURCE_DUE_UNKNOWN;
	return src->ops->partition_next_due_ns(src, i);
}

/* A run of up to `cap` records (the next_run op, or next() cap times,
 * up to the first that carries a watermark). */
static inline uint32_t
wm_record_source_next_run(struct wm_record_source *src, int64_t now_ns,
			  struct wm_record *out, int64_t *due_ns, uint32_t cap)
{
	uint32_t n;

	if (src->ops->next_run != NULL)
		return src->ops->next_run(src, now_ns, out, due_ns, cap);
	for (n = 0; n < cap; n++) {
		int64_t due = due_ns != NULL ? src->ops->next_due_ns(src) : 0;

		if (src->ops->next(src, now_ns, &out[n]) != 1)
			break;
		if (due_ns != NULL)
			due_ns[n] = due;
		if (out[n].flags & WM_RECORD_WATERMARK)
			return n + 1;
	}
	return n;
}

/* The watermark that the record src last returned carries, when it is
 * flagged WM_RECORD_WATERMARK (the carried_watermark op). */
static inline wm_ts_t
wm_record_source_carried_watermark(const struct wm_record_source *src)
{
	return src->ops->carried_watermark(src);
}

static inline bool
wm_record_source_finished(const struct wm_record_source *src)
{
	return src->ops->finished(src);
}

/* Write src's position; the writer's error is -ENOTSUP for a source that
 * cannot say it (a bad writer state is kept as the writer keeps any). */
void wm_record_source_snapshot(const struct wm_record_source *src,
			       struct wm_snap_writer *w);

/* Seek src to a snapshot's position: 0, -ENOTSUP, or the reader's error. */
int wm_record_source_restore(struct wm_record_source *src,
			     struct wm_snap_reader *r);

/*
 * A restore's walk through a source's section of partitions (tag,
 * version) as its snapshot wrote it: a count, then per partition its id
 * (u32) and its position, entry_bytes in all. An id must be below `room`
 * and named once (named[room]: false on entry, set here for each id
 * read). take(arg, id, r) reads the rest of the entry and, unless the
 * reader failed meanwhile, takes it, or returns -EINVAL for a partition
 * that is not this subtask's (or another negative errno). 0, or the
 * reader's error, set here (-EINVAL for a bad id).
 */
int wm_record_source_restore_partitions(struct wm_snap_reader *r, uint32_t tag,
					uint32_t version, size_t entry_bytes,
					uint32_t room, bool *named,
					int (*take)(void *arg, uint32_t id,
						    struct wm_snap_reader *r),
					void *arg);

static inline void
wm_record_source_free(struct wm_record_source *src)
{
	if (src != NULL)
		src->ops->free(src);
}

#endif /* WM_OPERATORS_RECORD_SOURCE_H */
