/*
 * nexmark_record.h
 *	wmrun --record-nexmark: the Nexmark stream a topology's sources read
 *	(generator = nexmark), written whole as the benchmark's JSON lines
 *	for the Flink side (flink/peer's NexmarkQueries), without running
 *	the job.
 *
 * The stream is deterministic (seed, events, rate, partitions, base
 * time: wm_sources_nexmark_conf()), so the file holds exactly the events
 * the job's sources read their views of: every event of every kind, in
 * event-number order, each a line of runtime/io/nexmark_json.h with the
 * partition it is in. The base time is the origin as the caller fixed it
 * (wm_sources_fix_origin()): `start` is 0 under --sim and the wall clock
 * otherwise, which no later run shares, so a recording meant for a real
 * run names its instant in event_time_origin.
 */
#ifndef WM_RUNTIME_SOURCE_NEXMARK_RECORD_H
#define WM_RUNTIME_SOURCE_NEXMARK_RECORD_H

#include <stddef.h>

#include "runtime/conf/topology.h"

/*
 * The one stream the Nexmark sources of `t` (origin fixed) describe,
 * into *out: EX_OK; EX_USAGE when `t` has none; EX_CONFIG when two of
 * them describe different streams (other events, rate or partitions:
 * both sources named at their `generator` lines), message in err.
 */
int wm_nexmark_record_stream(const struct wm_topology *t,
			     struct wm_nexmark_source_conf *out, char *err,
			     size_t errlen);

/*
 * Every event of `conf`'s stream into `path` (runtime/io/outfile.h: "-"
 * for standard output, no link another user planted followed), one JSON
 * line each. EX_OK, or EX_IOERR with the message in err; a file this
 * wrote in part is removed.
 */
int wm_nexmark_record_write(const struct wm_nexmark_source_conf *conf,
			    const char *path, char *err, size_t errlen);

#endif /* WM_RUNTIME_SOURCE_NEXMARK_RECORD_H */
