/*
 * timeline.h
 *	A job's metrics over time as JSON lines (wmrun --metrics FILE): for
 *	every snapshot one object per subtask and one per partition of a
 *	source subtask, under Flink's metric names where Flink has the
 *	figure, so that a study can be read with the same words as a Flink
 *	dashboard.
 *
 * A subtask's object:
 *
 *   t_ms, processing_time_ms    the snapshot's real time since the start
 *                               line, and the job's processing time
 *   job_name, task_name,        as Flink's metric variables name them
 *   subtask_index               (task_name: the stage)
 *   currentOutputWatermark      Flink's gauges; a watermark not yet set is
 *   currentInputWatermark       Long.MIN_VALUE, as Flink reports it; a
 *   currentInput1Watermark,     two-input operator has one per input too
 *   currentInput2Watermark
 *   numRecordsIn, numRecordsOut, numRecordsInPerSecond,
 *   numRecordsOutPerSecond, numLateRecordsDropped,
 *   idleTimeMsPerSecond, busyTimeMsPerSecond,
 *   backPressuredTimeMsPerSecond
 *                               per second of real time; null when two
 *                               snapshots could not tell
 *   watermarkLag                sources only, as Flink's source reader
 *                               defines it: the (processing) time now less
 *                               the last watermark
 *   idle                        the output status is IDLE
 *   lagBehindNewestMs           wmrun's: the newest event time it saw
 *                               less its output watermark (null: none)
 *   inputs                      wmrun's: each input channel, from whom,
 *                               its watermark, idle and aligned
 *   heldBy                      wmrun's: the blame chain's end, why, and
 *                               for how long the watermark has not moved
 *                               (snapshot.h); null when nothing holds it
 *
 * A partition's object: t_ms, processing_time_ms, job_name, task_name,
 * subtask_index, split ("events-13"), and Flink's split metrics:
 * currentWatermark, activeTimeMsPerSecond, pausedTimeMsPerSecond,
 * idleTimeMsPerSecond (per second of processing time: the clock those
 * times are kept on), accumulatedActiveTimeMs, accumulatedPausedTimeMs,
 * accumulatedIdleTimeMs; and wmrun's records (emitted) and idle.
 *
 * Names are written as they are (UTF-8), a byte that is not UTF-8 as the
 * text \xNN (lib/json_out.h); figures per second to one place, as
 * "%.1f" prints them.
 *
 * `missed`: snapshots taken since the one before that this line's writer
 * never saw (a writer slower than the sampler skips rather than block
 * it); an object "samples_missed" says so when it is not 0.
 */
#ifndef WM_RUNTIME_OBSERVE_TIMELINE_H
#define WM_RUNTIME_OBSERVE_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

#include "runtime/conf/topology.h"
#include "runtime/observe/snapshot.h"
#include "runtime/plan/plan.h"

/* The lines of `snap` written to `f`, each whole: 0, or -1 when a line
 * could not be made for want of memory or `f` refused a write (ferror(f)
 * then says so); the lines before it are written, that one maybe in
 * part, those after it not. */
int wm_timeline_write(FILE *f, const struct wm_topology *topo,
		      const struct wm_plan *plan,
		      const struct wm_snapshot *snap, int64_t start_real_ns,
		      uint64_t missed);

#endif /* WM_RUNTIME_OBSERVE_TIMELINE_H */
