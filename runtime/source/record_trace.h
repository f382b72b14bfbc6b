/*
 * record_trace.h
 *	--record-trace FILE: every record the sources emit, written as the
 *	trace a replaying source reads back (replay.h), and the topology
 *	that replays it.
 *
 * What is written. Each source stage's records go into a trace of their
 * own, CSV with the header "partition,timestamp,key,value,arrival" and
 * the columns of the marks its records may carry (wm_record_trace_columns()
 * below; the replay format has no source column): FILE itself when the job has one
 * source, else FILE with ".NAME" before its extension, NAME the source's
 * (rec.csv: rec.events.csv, rec.config.csv). A record is written when its
 * subtask emits it, after the record source returned it and before the
 * task sends it on, so that each partition's records stand in the order
 * the partition emitted them; partitions of different subtasks interleave
 * in whole buffers (sink.h). arrival is the processing time of the
 * emission in milliseconds since the job started, rounded up: a record
 * emitted at 10.2 ms was there at 11 ms, the first time a replay with
 * pacing = arrival can release it no earlier than it came. Rounding down
 * would release it before a watermark tick at 11 ms that it followed, and
 * change that tick's watermark; rounding up keeps every event at a whole
 * millisecond (ticks, idleness checks, the job's end) on the same side.
 *
 * The replay topology, FILE.conf: the topology's text with every source
 * section's generator keys (those that give records: rate, keys, silence,
 * ...) and replay keys left out, and "replay = TRACE", "pacing = arrival"
 * and, for a job bounded in event or processing time, "replay_end = END
 * ms" added after its header; everything else, the watermark strategy,
 * idleness, windows and sinks, as it was. END is the processing time at
 * which the job ended every generated partition (wm_record_trace_end_ms()),
 * so that the replayed ones end then too, and the last windows fire at the
 * same time. A job bounded by records ends each generated partition after
 * its last record, a replay all of them together: there the replay can
 * differ. --export-flink records generated sources the same way
 * (runtime/export/flink_record.h).
 *
 * Writing follows a sink's rules (sink.h): the first failed write stops
 * the job (exit 74, naming the file); the trace is cut at a whole line.
 */
#ifndef WM_RUNTIME_SOURCE_RECORD_TRACE_H
#define WM_RUNTIME_SOURCE_RECORD_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "operators/source_gen.h"
#include "runtime/conf/topology.h"
#include "runtime/io/sink.h"
#include "runtime/source/replay.h"

/*
 * Record every record `inner` emits into `sink`: a record source that
 * returns what `inner` returns, the same partitions in the same order,
 * and writes each record before returning it. It owns `inner` (freed with
 * it), not the sink. NULL with errno ENOMEM (inner freed).
 */
struct wm_record_source *wm_record_trace_source(struct wm_record_source *inner,
						struct wm_sink *sink);

/*
 * The marks' columns (sink.h, enum wm_trace_columns) that a recording of
 * source stage `st` writes, `trace` its replayed trace or NULL: what its
 * records may carry. punctuate for a punctuated source; heartbeat for
 * one whose generator, trace or topic sends heartbeats; watermark for
 * one whose trace or topic carries watermarks.
 */
unsigned wm_record_trace_columns(const struct wm_stage *st,
				 const struct wm_replay_trace *trace);

/*
 * The arrival written for a record emitted at `now_ns` (ns since the job
 * started): milliseconds, rounded up.
 */
int64_t wm_record_trace_arrival_ms(int64_t now_ns);

/*
 * The trace of source `name` for --record-trace `path` in a job of
 * `n_sources` sources, as a new string (malloc): `path` itself for one
 * source, else `path` with ".name" before its extension (the last '.' of
 * its last component, not its first character), or at its end. NULL:
 * ENOMEM.
 */
char *wm_record_trace_path(const char *path, const char *name,
			   uint32_t n_sources);

/*
 * When a job of `topo` ends its generated partitions, in ms of processing
 * time, which the replay of its recording ends at (replay_end): the
 * earlier of [job] event_time (a generator ends its partitions there:
 * source_gen.h, Limits) and processing_time (every source ends then); -1
 * for neither (records = N, or no run length): with the last record.
 */
int64_t wm_record_trace_end_ms(const struct wm_topology *topo);

/*
 * The replay topology for `topo`, whose text is the `len` bytes at `text`
 * (it loaded as `topo`), each recorded source replaying its recording. A
 * Kafka source replays the partitions it read, read[stage] (1 + the
 * highest id its subtasks held; 0 or read NULL: the room it kept), not
 * the room: a partition the topic did not have would hold the replay's
 * watermarks back. One discovered while the job ran is there from the
 * replay's start, where the replay can differ. A new string (malloc), or
 * NULL: ENOMEM.
 */
char *wm_record_trace_topology(const struct wm_topology *topo, const char *text,
			       size_t len, const uint32_t *read);

#endif /* WM_RUNTIME_SOURCE_RECORD_TRACE_H */
