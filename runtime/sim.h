/*
 * sim.h
 *	--sim: every subtask of a job in one process, on simulated processing
 *	time, running the very same task code as the worker processes.
 *
 * The rules, precise enough that an independent implementation of
 * Flink's semantics produces the same output from the same topology:
 *
 *  1. Time. Processing time starts at 0 and jumps from event to event;
 *     `speed` does not apply (nothing waits). The events are the source
 *     subtasks' next due times: a record's arrival (source_gen.h) or a
 *     periodic watermark tick (every watermark_interval, the first one
 *     interval after 0, then one interval after each tick ran). A source
 *     with an unlimited rate has records due at every instant; it emits at
 *     most 256 per instant and is charged 1 us of processing time per
 *     record, so time moves on and ticks happen.
 *  2. At each instant t (the earliest next event over all sources), every
 *     source subtask with an event due at t runs, in stage order then
 *     subtask order: first all its records due at or before t (earliest
 *     arrival first, ties by partition), each followed by its partition's
 *     watermark generator, then its tick if due. A source whose partitions
 *     all finished sends MAX (unless IDLE is announced: released Flink
 *     loses it) and END.
 *  3. Transport has no delay and never reorders a channel. Every frame a
 *     subtask sends is queued for its receiver; after the sources of an
 *     instant ran, queues are drained in stage order then subtask order,
 *     each receiver taking its whole queue in arrival order, again and
 *     again until every queue is empty, all at the same instant t.
 *  4. The job ends when every source finished and every queue is empty.
 *     Window results are written by the window's subtasks (the sink is
 *     chained) in the order they fire; fire_time is t in milliseconds.
 *
 * Same topology and seed: byte-identical output, every run.
 */
#ifndef WM_RUNTIME_SIM_H
#define WM_RUNTIME_SIM_H

#include <stdint.h>
#include <stdio.h>

#include "runtime/topology.h"

/* What happened, for the summary. */
struct wm_sim_report {
	uint64_t records_read;	   /* by all sources */
	uint64_t records_windowed; /* accepted into >= 1 window */
	uint64_t late_dropped;	   /* numLateRecordsDropped */
	uint64_t late_side_output;
	uint64_t other_dropped; /* in no window, not late (time's ends) */
	uint64_t windows_fired;
	uint64_t windows_fired_late;
	uint64_t results_written;
	int64_t end_ns; /* processing time when the job ended */
	/* Window fire delay: processing time of the firing minus the
	 * window's end, both in ms from the job start (event time 0 is
	 * processing time 0, source_gen.h), over on-time firings. */
	int64_t fire_delay_p50_ms, fire_delay_p99_ms, fire_delay_max_ms;
	/* Memory of a real run (wm_supervisor_run(); wm_sim_run() leaves
	 * 0 and NULL): bytes of the shared segment it created, and by plan
	 * subtask id the peak resident set of each subtask's process, in
	 * KiB (wait4()'s ru_maxrss: counts the segment pages the process
	 * touched and the pages it still shared with the supervisor after
	 * fork). max_rss_kib holds n_subtasks entries, malloc'd: the caller
	 * frees it (NULL if it could not be allocated). */
	uint64_t shm_bytes;
	uint32_t n_subtasks;
	uint64_t *max_rss_kib;
};

/*
 * Run `topo` to its end. Sinks write to their paths ("-": stdout), late
 * side outputs to theirs. Returns 0, or a negative errno with a message in
 * err (-EIO for an output that could not be written: exit 74).
 */
int wm_sim_run(const struct wm_topology *topo, struct wm_sim_report *report,
	       char *err, size_t errlen);

#endif /* WM_RUNTIME_SIM_H */
