/*
 * prometheus.h
 *	A snapshot as the Prometheus text exposition format, with the names
 *	and labels of Flink's Prometheus reporter, so that dashboards and
 *	PromQL written for a Flink job read a wmrun job unchanged.
 *
 * Flink's reporter names a metric "flink_" + its group's logical scope
 * ("taskmanager_job_task_operator") + "_" + the metric's name, labels it
 * with every variable of its group (host, tm_id, job_id, job_name, task_id,
 * task_attempt_id, task_name, subtask_index, task_attempt_num, and for an
 * operator operator_id and operator_name; a split adds split), keeps only
 * [a-zA-Z0-9:_] in label values (the rest become '_'), and exports
 * counters, gauges and meters alike as Prometheus gauges whose HELP is
 * "name (scope: logical_scope)". This file does the same, for these
 * metrics (doc/semantics.md section 9.4 gives the table):
 *
 *   task scope	numRecordsIn, numRecordsOut, numRecordsInPerSecond,
 *		numRecordsOutPerSecond, idleTimeMsPerSecond,
 *		busyTimeMsPerSecond, backPressuredTimeMsPerSecond
 *   operator	the four record counts, currentInputWatermark (not of a
 *		source; currentInput1Watermark and currentInput2Watermark
 *		of a two-input one), currentOutputWatermark, watermarkLag
 *		(sources), numLateRecordsDropped (windows)
 *   split	(operator_split_watermark, FLIP-513) currentWatermark,
 *		idleTimeMsPerSecond, pausedTimeMsPerSecond,
 *		activeTimeMsPerSecond and their accumulated*TimeMs
 *
 * and, prefixed "wmrun_" because Flink has nothing like them, each input
 * channel of an operator (its watermark, idle, aligned, and whether it is
 * the one that holds the operator's watermark) and which split holds a
 * source's. A watermark never set is Long.MIN_VALUE, as Flink's gauges say
 * it; a figure two snapshots could not give is NaN for the time split (as
 * Flink's busyTimeMsPerSecond) and 0 for rates (as Flink's meters start).
 *
 * Pure: no clock, no I/O but the stream it is given. The ids that Flink
 * draws at random are derived from the job's and stages' names, so that
 * the same job has the same series run after run (prometheus.c says how).
 */
#ifndef WM_RUNTIME_OBSERVE_PROMETHEUS_H
#define WM_RUNTIME_OBSERVE_PROMETHEUS_H

#include <stdbool.h>
#include <stdio.h>

#include "runtime/conf/topology.h"
#include "runtime/observe/snapshot.h"
#include "runtime/plan/plan.h"

/* What a run is, where Flink's names come from the cluster. */
struct wm_prometheus_ids {
	const char *host;  /* Flink: the TaskManager's host */
	const char *tm_id; /* Flink: the TaskManager's resource id */
};

struct wm_prometheus;

/* The labels of every subtask of `plan`, made once. NULL, errno ENOMEM.
 * `topo` and `plan` must outlive it; the ids are copied. */
struct wm_prometheus *wm_prometheus_new(const struct wm_topology *topo,
					const struct wm_plan *plan,
					const struct wm_prometheus_ids *ids);
void wm_prometheus_free(struct wm_prometheus *p);

/* `snap` (of the plan given to wm_prometheus_new()) as exposition text
 * on `out`. False if writing to `out` failed. */
bool wm_prometheus_write(const struct wm_prometheus *p,
			 const struct wm_snapshot *snap, FILE *out);

/* A label value as Flink's reporter filters it: every character outside
 * [a-zA-Z0-9:_] replaced by '_', into buf (truncated to len). */
const char *wm_prometheus_label_value(const char *in, char *buf, size_t len);

#endif /* WM_RUNTIME_OBSERVE_PROMETHEUS_H */
