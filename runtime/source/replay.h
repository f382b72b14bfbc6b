/*
 * replay.h
 *	A source that replays a recorded trace instead of generating records:
 *	the trace of a source stage, read and checked once by the process
 *	that runs the job, and a record source over it for each subtask.
 *
 * Format. One record per line, as CSV
 *
 *	  partition,timestamp,key,value[,arrival[,punctuate[,heartbeat
 *	  [,watermark]]]]
 *
 * or as JSON lines with the same fields as members of one object, in
 * any order, arrival, punctuate, heartbeat and watermark optional:
 * {"partition":0,
 * "timestamp":1000,"key":7,"value":1}. The fields are at the top level
 * (a trace's names are fixed: paths are for Kafka values); members of
 * other names are read past whatever they hold (nested objects, arrays,
 * decimals), but a near miss of a field's name ("arival") is an error,
 * as are a name repeated in any object and anything after the object
 * (record_fields.h). punctuate is 1 for a record that
 * carries a watermark at its timestamp (a source with watermark =
 * punctuated emits it at once, as Flink's onEvent does), 0 or absent for
 * one that does not. heartbeat is 1 for a heartbeat: no data but a sign
 * of life from its partition, which that partition's watermark generator
 * sees as a record (its timestamp, its activity) before the source drops
 * it; 0 or absent for a record. watermark is a watermark the record
 * carries, which need not be its timestamp: a punctuated source emits it
 * at once, after the record (and after its timestamp, if punctuate is 1
 * too); empty (CSV), null or absent (JSON) on a record that carries none.
 * Every field but the key is a 64-bit decimal integer, an
 * optional '-' then digits, and nothing else: no '+', no blanks in CSV
 * (JSON allows them around its tokens, and takes a real of no fraction
 * up to 2^53, 1000.0). partition is below the source's
 * count;
 * arrival, milliseconds of processing time since the job started, is 0
 * to 292 years. Lines end with LF, CRLF or a lone CR, mixed as they
 * come; a line is at most 64 KiB, its end included. Blank lines and lines
 * starting with '#' are skipped, and so is a UTF-8 byte order mark at the
 * start of the file. The first other line is a header, and skipped, when
 * it is exactly the column names "partition,timestamp,key,value",
 * "partition,timestamp,key,value,arrival" or
 * "partition,timestamp,key,value,arrival,punctuate" or the same with
 * ",heartbeat" or ",heartbeat,watermark", blanks (spaces,
 * tabs) allowed
 * around each name; anything else there is data. JSON traces have no
 * header.
 *
 * Keys: Java Longs (integers as above) or Java Strings, as the source's
 * key_type says; without it the first record's key decides (an integer
 * or not), and a key of the other type later on is an error naming both
 * lines, not a guess: reading a long trace's integers as strings would
 * move every key to another subtask. A string key is the CSV field
 * (RFC 4180 quoting allowed: "a,""b""" is a,"b") or a JSON string (its
 * escapes decoded; a bare JSON token is an integer, its digits the string
 * with key_type = string), and must be a key runtime/io/keys.h accepts
 * (UTF-8, 256 bytes, no control characters); an empty key needs
 * key_type = string. String keys are interned in one dictionary per job
 * while the trace is read: the record carries the Java hash and the id
 * (operators/keygroup.h), the sinks print the string back.
 *
 * Pacing: "fast" makes every record due at once; "arrival" due at its
 * arrival; "event" at its timestamp minus the first record's (a timestamp
 * before the first's is due at once). Arrivals whose earliest lies more
 * than a year after the job start are wall-clock times (epoch
 * milliseconds): they are taken relative to the earliest, with a notice
 * naming its line and the shift, so that --sim and a real run start the
 * trace's clock there. Below that they stay as they are: a trace recorded
 * from a job's start.
 *
 * Order: a partition is a log, read in file order (as a Kafka split is)
 * under every pacing. A record due before the one above it in its
 * partition is due with it, and released right after it: the disorder of
 * the trace stays, and a record recorded late is late. Records of
 * different partitions are released by due time, then in file order. A
 * subtask replays the partitions it owns (Flink's split assignment,
 * source_gen.h).
 *
 * End: a subtask's partitions end together, when its last record is out,
 * or at the source's replay_end (processing time) if that comes later: a
 * recording (record_trace.h) ends when the job it recorded ended its
 * partitions, not with its last record.
 *
 * Errors: a malformed line stops the reading with a message naming file
 * and line (and the key's column for a bad key), unless skip_bad is set: then it is skipped and counted, the
 * first WM_REPLAY_REPORTED are reported on stderr with file, line and
 * why, and the rest in one count once the trace is read.
 */
#ifndef WM_RUNTIME_SOURCE_REPLAY_H
#define WM_RUNTIME_SOURCE_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "operators/source_gen.h"
#include "runtime/conf/topology.h" /* enum wm_replay_pacing */

/* Skipped lines reported one by one; the rest are counted. */
#define WM_REPLAY_REPORTED 10

/* Every record of a trace, due times computed; read-only once read. */
struct wm_replay_trace;

struct wm_topology;
struct wm_keys;

/*
 * Read and check the trace at `path` for a source of `partitions`
 * partitions, paced by `pacing`, its keys of `key_type`, string keys
 * interned in `keys` (which must outlive the trace), or NULL: in the
 * trace's own dictionary. Returns it, or NULL with errno and a
 * message in err ("trace.csv:12: invalid timestamp \"x\""): EBADMSG for
 * bad data (exit 65), ENOMEM, or the error that kept the file from being
 * opened or read to its end (a directory: EISDIR). Skipped lines and the
 * shift of wall-clock arrivals are reported on stderr.
 */
struct wm_replay_trace *wm_replay_read(const char *path, uint32_t partitions,
				       enum wm_replay_pacing pacing,
				       enum wm_key_type key_type,
				       struct wm_keys *keys, bool skip_bad,
				       char *err, size_t errlen);

/* The dictionary of the trace's keys if they are strings, else NULL. */
const struct wm_keys *wm_replay_keys(const struct wm_replay_trace *trace);

/* Lines skipped because of skip_bad. */
uint64_t wm_replay_skipped(const struct wm_replay_trace *trace);

/* Records of the trace that are heartbeats (heartbeat = 1). */
uint64_t wm_replay_heartbeats(const struct wm_replay_trace *trace);

/* Records of the trace that carry a watermark (a watermark given). */
uint64_t wm_replay_carriers(const struct wm_replay_trace *trace);

/* Whether the trace's pacing ties its event time to processing time,
 * and then in *ms the event time at processing time 0 (epoch
 * milliseconds): the earliest arrival of wall-clock arrivals, the first
 * record's timestamp under pacing = event. Arrivals counted from a job's
 * start, and pacing = fast, tie nothing. */
bool wm_replay_clock_zero_ms(const struct wm_replay_trace *trace, int64_t *ms);

void wm_replay_free(struct wm_replay_trace *trace);

/*
 * The records of the `n` partitions in `partitions` (ids below the trace's
 * count, each once) as a record source, in release order. It reads the
 * trace, which must outlive it, and never writes it: worker processes
 * share their supervisor's copy through fork. NULL with errno: ENOMEM, or
 * EINVAL for a partition the trace's source does not have.
 */
struct wm_record_source *wm_replay_source(const struct wm_replay_trace *trace,
					  const uint32_t *partitions, size_t n);

/*
 * The trace of every source of `topo` that replays one, read before the
 * job creates anything: *traces is an array by stage, NULL for the stages
 * that replay nothing (free it with wm_replay_free_all()). Their string
 * keys share one dictionary (keys.h), made here, before any worker is
 * forked: workers inherit it with the traces. 0, or a negative errno
 * of wm_replay_read() with a message in err (nothing to free then);
 * -EBADMSG also for a window that would read string keys and long keys.
 */
int wm_replay_read_all(const struct wm_topology *topo,
		       struct wm_replay_trace ***traces, char *err,
		       size_t errlen);
void wm_replay_free_all(struct wm_replay_trace **traces, uint32_t n_stages);

/* The dictionary the traces of wm_replay_read_all() share (theirs: freed
 * with them), or NULL when the job replays nothing. */
struct wm_keys *wm_replay_all_keys(struct wm_replay_trace *const *traces,
				   uint32_t n_stages);

/*
 * The dictionary of the keys that reach stage `stage` of `topo` when they
 * are strings (a window's or its sinks' stage: what they print), else
 * NULL; traces as wm_replay_read_all() made them, or NULL. Strings a
 * Kafka source learns while the job runs are in `job_keys`, the job's
 * shared dictionary (keys.h), or NULL where no source learns any.
 */
const struct wm_keys *
wm_replay_stage_keys(struct wm_replay_trace *const *traces,
		     const struct wm_topology *topo, uint32_t stage,
		     const struct wm_keys *job_keys);

/* Whether the keys that reach stage `stage` of `topo` are strings: a
 * replayed trace's, or a Kafka source's with key_type = string. traces as
 * for wm_replay_stage_keys(), or NULL. */
bool wm_replay_stage_string_keys(struct wm_replay_trace *const *traces,
				 const struct wm_topology *topo,
				 uint32_t stage);

#endif /* WM_RUNTIME_SOURCE_REPLAY_H */
