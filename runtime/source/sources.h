/*
 * sources.h
 *	Where a source subtask's records come from: the generator
 *	(operators/source_gen.h), the Nexmark stream (operators/
 *	nexmark_source.h), the stage's replayed trace (replay.h) or its
 *	Kafka topic (kafka_source.h), for exactly the partitions the
 *	subtask owns, behind operators/record_source.h.
 *
 * The drivers (the worker, --sim, the pipeline benchmark) open the record
 * source and hand it to the subtask's task, which only reacts to calls
 * (runtime/engine/task.h): the task does no I/O and chooses no input.
 */
#ifndef WM_RUNTIME_SOURCE_SOURCES_H
#define WM_RUNTIME_SOURCE_SOURCES_H

#include <stdbool.h>
#include <stdint.h>

#include "operators/source_gen.h"
#include "runtime/conf/topology.h"
#include "runtime/engine/task.h"
#include "runtime/source/replay.h"
#include "runtime/io/sink.h"

/*
 * What a source subtask's records come from besides its topology, and why
 * none came when opening failed.
 */
struct wm_sources_input {
	/* The stage's trace if it replays one (read beforehand by
	 * wm_replay_read_all(); it must outlive the source), else NULL. */
	const struct wm_replay_trace *trace;
	/* The job's shared dictionary, for a Kafka source's string keys
	 * (keys.h); NULL: none. */
	struct wm_keys *keys;
	/* Every stage's trace, by stage (NULL: none is replayed), for
	 * whether the keys a window takes are strings. */
	struct wm_replay_trace *const *traces;
	/* Set when opening fails for a reason of the outside world (a
	 * Kafka source's brokers): its sysexits code and what happened;
	 * 0 when errno says it all. */
	int exit_code;
	char why[512];
};

/*
 * The record source of subtask `index` of source stage `stage` of `topo`:
 * its partitions spread as Flink's Kafka source spreads splits (the stage's
 * name standing for the topic, or its Kafka topic), generated, taken from
 * in->trace when the stage replays one, or read from its Kafka topic
 * (kafka_source.h). `in` may be NULL for a generating stage.
 * *bad_records: the trace's lines skipped as bad if this subtask is the
 * one that reports them (the owner of partition 0, so that the subtasks'
 * counts add up), else 0. NULL with errno (ENOMEM, EINVAL for a replaying
 * stage without its trace), or with in->exit_code and in->why set.
 */
struct wm_record_source *wm_sources_open(const struct wm_topology *topo,
					 uint32_t stage, uint32_t index,
					 struct wm_sources_input *in,
					 uint64_t *bad_records);

/*
 * The whole Nexmark stream of source stage `st` (generator = nexmark) of
 * `topo`, whose origin is fixed (wm_sources_fix_origin()): what every
 * subtask of the stage reads its share of, and what --record-nexmark
 * writes. Its seed is [job] seed as it is (not the source's own stream
 * of it, as a generator's: sources that name one stream describe the
 * same events), its base time the event-time origin, its partitions the
 * source's; its events are nexmark.events, cut to those before the end
 * that [job] event_time sets. NULL, or what is wrong with the stream as
 * wm_nexmark_config_check() says it.
 */
const char *wm_sources_nexmark_conf(const struct wm_topology *topo,
				    const struct wm_stage *st,
				    struct wm_nexmark_source_conf *out);

/*
 * Tests only: every source subtask's record source is opened by
 * `open(topo, stage, index)` instead of as configured (a record source
 * fed from outside, as tests/tools/outside_source.c runs one in a
 * real job); NULL: as configured. Set before the supervisor forks the
 * workers, which inherit it.
 */
typedef struct wm_record_source *(*wm_sources_opener)(
	const struct wm_topology *topo, uint32_t stage, uint32_t index);
void wm_sources_set_opener(wm_sources_opener open);

/*
 * The task of subtask `id` of `plan`, the plan of `topo`
 * (runtime/engine/task.h), with its record source if it is a source
 * (opened as above from `in`): what every driver makes for each subtask.
 * `sinks` (by stage; NULL: none) are the driver's open outputs: a
 * source's with a recording, sinks[stage], records every record it emits
 * there (record_trace.h); the maps reading it (map_rows.h) run on every
 * record it emits and write to their sinks among `sinks`. NULL with
 * errno, or with in->exit_code and in->why set.
 */
struct wm_task *wm_sources_new_task(const struct wm_topology *topo,
				    const struct wm_plan *plan, uint32_t id,
				    struct wm_task_out *out, void *metrics,
				    struct wm_sources_input *in,
				    struct wm_sink *const *sinks);

/* Whether output sinks[sink] (wm_sources_new_task()) is written by the
 * subtasks of source stage `source`: its recording (sink == source), or
 * a sink of a map reading it. Their driver flushes it and stops the job
 * when it fails, as it does a window's sinks. */
/* Open sink stage d, which reads a map, for the map's rows
 * (wm_sink_open_rows(), the map's output columns). 0, or a negative
 * errno with err set. */
int wm_sources_open_map_sink(const struct wm_topology *topo, uint32_t d,
			     struct wm_sink **out, char *err, size_t errlen);

bool wm_sources_feeds(const struct wm_topology *topo, uint32_t source,
		      uint32_t sink);

/*
 * The event-time origin of a run (topology.h event_time_origin), fixed
 * before anything is made from the topology: `start` becomes the wall
 * clock `wall_ms` (epoch milliseconds) rounded down to the origin unit,
 * or 0 under --sim (wall_ms < 0), whose runs must not depend on the day
 * (origin_at_start stays set: the origin was not given). An explicit
 * origin stays. The unit is the least common multiple of
 * the event-time windows' slides (a tumbling window's size), at least a
 * second, or the largest slide if that passes a day: windows then start
 * where --sim's do, shifted by the origin, and hold the same records.
 */
int64_t wm_sources_origin_unit_ms(const struct wm_topology *topo);
void wm_sources_fix_origin(struct wm_topology *topo, int64_t wall_ms);

/*
 * The job's event-time clock: the epoch milliseconds at its processing
 * time 0, against which lags and fire delays are read (a record's
 * emit lag is that plus its emit time less its timestamp). A job that
 * reads Kafka keeps the wall clock's (`start_wall_ms`, the instant of its
 * first start line), since its records carry the producers' wall-clock
 * times; one that replays a trace whose pacing ties event time to
 * processing time (replay.h) keeps the trace's; one that generates
 * records the origin of its generated event time (fixed by
 * wm_sources_fix_origin()); one that only replays traces tied to nothing
 * its event_time_origin if one is given (a recording's replay topology
 * gives the recorded job's clock, record_trace.h), else 0: timestamps
 * counted from its start. A job mixing these takes the first in that
 * order: one clock per job.
 * `traces` by stage, as wm_replay_read_all() read them, or NULL.
 */
int64_t wm_sources_clock_zero_ms(const struct wm_topology *topo,
				 struct wm_replay_trace *const *traces,
				 int64_t start_wall_ms);

#endif /* WM_RUNTIME_SOURCE_SOURCES_H */
