/*
 * flink_record.h
 *	--export-flink of generated sources: each recorded under --sim, as
 *	--record-trace --sim records it, into the export's data/sourceN.csv
 *	(N its stage's index), and then exported as the replay of its
 *	recording.
 *
 * The recording is --record-trace's (runtime/source/record_trace.h): the same
 * recording source around each generated source subtask, the same --sim
 * run of the whole job (its sinks and late outputs written to /dev/null
 * meanwhile), so the trace holds every record wmrun's --sim run reads,
 * each with the millisecond it arrived at, in the order each partition
 * emitted them, and is the same bytes on every export. The recorded
 * sources then replay their traces with pacing = arrival, ending their
 * partitions where the run length ended them (wm_record_trace_end_ms()):
 * Flink's job reads exactly the records of wmrun's --sim run, when it
 * read them, and ends its sources when wmrun did.
 *
 * What the recording changes (flink_job.h says what is refused or warned
 * about): a source's watermark alignment has already held its records
 * back in the recording, so the recorded source is exported unaligned
 * (aligning the replay again would hold them back twice).
 */
#ifndef WM_RUNTIME_EXPORT_FLINK_RECORD_H
#define WM_RUNTIME_EXPORT_FLINK_RECORD_H

#include "runtime/conf/topology.h"

/*
 * Record every generated source of `topo` (a topology the export's checks
 * accepted) into `dir`/data/sourceN.csv (wm_export_flink_trace_name())
 * under --sim, say on stderr how many records of each went where, and turn
 * each into the replay of its recording: replay, pacing and replay_end set,
 * `record` left naming the trace (what marks a recorded source). 0
 * (nothing to record, or recorded), or the exit status after a message.
 */
int wm_export_flink_record(struct wm_topology *topo, const char *dir);

#endif /* WM_RUNTIME_EXPORT_FLINK_RECORD_H */
