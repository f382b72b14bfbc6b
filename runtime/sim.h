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
 *     with records due at every instant (an unlimited rate, or the backlog
 *     of a partition that alignment paused) emits at most 256 per instant
 *     and is charged 1 us of processing time per record, so time moves on
 *     and ticks happen.
 *  2. At each instant t (the earliest next event over all sources), every
 *     source subtask with an event due at t runs, in stage order then
 *     subtask order: first its watermark alignment update if due (aligned
 *     sources, every update interval, the first one interval after 0: it
 *     reports, then reads the group's reports as they stand, those of
 *     subtasks that ran earlier at t included, and pauses or resumes),
 *     then all its records due at or before t (earliest arrival first,
 *     ties by partition; none while it waits for alignment, none of a
 *     paused partition), each followed by its partition's watermark
 *     generator, then its tick if due. A source whose partitions all
 *     finished sends MAX (unless IDLE is announced: released Flink loses
 *     it) and END, and reports MAX to its alignment group.
 *  3. Transport has no delay, never reorders a channel and never fills
 *     (so no source is ever back-pressured: idleness clocks stop only for
 *     alignment). Every frame a subtask sends is queued for its
 *     receiver; after the sources of an instant ran, queues are drained
 *     in stage order then subtask order, each receiver taking its whole
 *     queue in arrival order, again and again until every queue is
 *     empty, all at the same instant t.
 *  4. The job ends when every source finished and every queue is empty.
 *     Window results are written by the window's subtasks (the sink is
 *     chained) in the order they fire; fire_time is t in milliseconds.
 *     A job that cannot end is refused (-EINVAL, naming the source's
 *     section): a generating source without any [job] run length, and
 *     sources left with nothing but ticks to run (a partition silent for
 *     ever short of [job] records, or held back for ever behind one)
 *     for longer than an idle timeout and an alignment update could
 *     change it.
 *
 * Same topology and seed: byte-identical output, every run.
 */
#ifndef WM_RUNTIME_SIM_H
#define WM_RUNTIME_SIM_H

#include <stdint.h>
#include <stdio.h>

#include "runtime/report.h"
#include "runtime/topology.h"

/*
 * Run `topo` to its end. Sinks write to their paths ("-": stdout), late
 * side outputs to theirs. Returns 0 with `report` filled (free it with
 * wm_report_free()), or a negative errno with a message in err (-EIO for
 * an output that could not be written: exit 74).
 */
int wm_sim_run(const struct wm_topology *topo, struct wm_job_report *report,
	       char *err, size_t errlen);

#endif /* WM_RUNTIME_SIM_H */
