/*
 * flink_job.h
 *	A topology as a Flink DataStream job: what Flink cannot express
 *	exactly, and the text of the generated Job.java (--export-flink).
 *
 * Pure: the topology (and the parsed text of its file, for positions) in,
 * messages and Java text out through the caller's streams; no file is
 * opened. runtime/export/flink_project.h writes the project around it.
 *
 * What maps to what (doc/architecture.md, "The Flink export"):
 *   [job] speed              SPEED: pacing, and every processing-time
 *                            duration of the job divided by it
 *   watermark_interval       pipeline.auto-watermark-interval (one for the
 *                            job: sources that differ are refused)
 *   [source] replay          ReplaySource over data/sourceN.csv (N the
 *                            stage's index), one split per
 *                            partition, paced by arrival (the trace wmrun
 *                            exports is already paced: its arrival column
 *                            holds each record's due time), ending at
 *                            replay_end if its records end before
 *   a Kafka [source]         Flink's KafkaSource with the same settings,
 *                            and KafkaRecords reading records as wmrun does
 *   a generated [source]     the replay of its recording under --sim
 *                            (flink_record.h: `record` set), ending where
 *                            the run length ended it, not aligned again
 *   watermark, idle_timeout  WatermarkStrategy.forBoundedOutOfOrderness or
 *                            forMonotonousTimestamps, .withIdleness
 *   watermark_alignment_*    .withWatermarkAlignment
 *   watermark_at             split: fromSource(src, strategy); subtask:
 *                            fromSource(src, noWatermarks()) then
 *                            assignTimestampsAndWatermarks(strategy)
 *   [keyby]                  an identity map at its parallelism
 *   [window]                 keyBy(key) and the assigner with its offset,
 *                            LateFiringTrigger (EventTimeTrigger, purging
 *                            or not), allowedLateness, sideOutputLateData,
 *                            Aggregates and ResultLines; setMaxParallelism
 *                            always, so key groups never depend on Flink's
 *                            default
 *   [sink]                   LineSink of the window's CSV lines; with
 *                            checkpoints a file's is CommittedLineSink,
 *                            exactly-once, and so is a late output's
 *   checkpoint_interval,     Flink's checkpointing (exactly once) with
 *   _dir, _timeout,          these, the durations through SPEED as all
 *   checkpoints_retained     processing time, and a full failover
 *   restart_strategy, ...    RestartStrategyOptions, written always (the
 *                            delays are processing time)
 *   fail_at                  FailAt after every source: a crash then,
 *                            on the first attempt
 * Refused, with the key's file:line:col ([job]'s header for a setting the
 * file leaves to its default): all_idle other than flink,
 * reactivation_grace, behaviour flags other than flink-2.3 (the pom's
 * Flink's rules, named in the message by the flags that differ),
 * allowed lateness on session windows (their late
 * firings cannot be told from the timer's in a merging window),
 * checkpoint_watermarks = true (no Flink checkpoint holds a watermark),
 * sources whose watermark intervals differ; and what a
 * recording or a replay cannot carry: a generated source without a run
 * length (its recording would not end), alignment with idle_timeout on a
 * generated source (the replay cannot stop idleness clocks as alignment
 * did), processing_time over a replayed trace (wmrun cuts the trace),
 * replay_end with more subtasks than partitions (wmrun's subtasks without
 * any wait for the end); over a Kafka source processing_time, stopping
 * offsets per partition, a generated
 * source beside it, and string and long keys into one stage. Exported
 * with a warning: kafka.broker_timeout, a Kafka source's partitions, a
 * JSONL sink (written as CSV), records = N with a generated source (each generated partition
 * ends after its own last record, a replay's together). event_time and
 * processing_time are exact for a generated source: its recording ends
 * there. Over a replayed trace event_time and records do nothing, in
 * wmrun as in Flink.
 */
#ifndef WM_RUNTIME_EXPORT_FLINK_JOB_H
#define WM_RUNTIME_EXPORT_FLINK_JOB_H

#include <stdio.h>

#include "operators/behaviour.h"
#include "runtime/conf/ini.h"
#include "runtime/conf/topology.h"

/* The Flink release the export's pom pins, and its rules
 * (operators/behaviour.h): the only behaviour flags that export. */
#define WM_EXPORT_FLINK_VERSION "2.3.0"
#define WM_EXPORT_FLINK_BEHAVIOUR WM_BEHAVIOUR_FLINK_2_3

/*
 * Whether `topo` can be exported: 0, after a warning on `warnings` for
 * each difference Flink's job will have ("wmrun: FILE:LINE:COL: warning:
 * ..."), or -EINVAL with *err at the key that cannot be exported. `doc` is
 * the topology's file as parsed (for positions); NULL for a built-in
 * topology: positions are then its sections'.
 */
int wm_export_flink_check(const struct wm_topology *topo,
			  const struct wm_ini_doc *doc, FILE *warnings,
			  struct wm_ini_error *err);

/* The file under data/ that the trace of source stage `stage` is
 * exported as, into buf: "source0.csv", by the stage's index, never its
 * name. */
void wm_export_flink_trace_name(const struct wm_topology *topo, uint32_t stage,
				char *buf, size_t len);

/* Job.java for a topology wm_export_flink_check() accepted, on `f`;
 * `source_file` names the topology in its header comment. */
void wm_export_flink_job(FILE *f, const struct wm_topology *topo,
			 const char *source_file);

#endif /* WM_RUNTIME_EXPORT_FLINK_JOB_H */
