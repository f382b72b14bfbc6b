/*
 * replay.h
 *	A source subtask that replays a recorded trace instead of generating
 *	records: one CSV line per record,
 *
 *	  partition,timestamp,key,value[,arrival]
 *
 * (64-bit decimal integers, nothing else in a field; arrival in
 * milliseconds of processing time since the job started; '#' lines, blank
 * lines and a header starting with "partition" as the first other line
 * are skipped, and so is a UTF-8 byte order mark). A JSON-lines trace has
 * the same fields as keys of one flat object per line, in any order,
 * each an integer: {"partition":0,"timestamp":1000,"key":7,"value":1};
 * other keys, repeated keys and anything after the object are errors.
 * A line of either kind ends with LF, CRLF or a lone CR, mixed as they
 * come, and is at most 64 KiB, its end included.
 *
 * Pacing: "fast" replays as fast as possible (every record due at once,
 * in file order); "arrival" releases each record at its arrival column;
 * "event" at its timestamp minus the first timestamp of the trace. A
 * subtask replays the lines of the partitions it owns (Flink's split
 * assignment, source_gen.h), in file order within a partition.
 *
 * The whole trace is read and checked when the source opens, before the
 * job starts: a malformed line is an error naming file and line, unless
 * skip_bad is set, in which case every skipped line is counted and
 * reported on stderr with its line number.
 */
#ifndef WM_RUNTIME_REPLAY_H
#define WM_RUNTIME_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "operators/source_gen.h"

enum wm_replay_pacing {
	WM_REPLAY_FAST,
	WM_REPLAY_ARRIVAL,
	WM_REPLAY_EVENT,
};

/*
 * Open `path` for the subtask owning `partitions` (n ids, of `total`
 * partitions). Returns the source, or NULL with a message in err
 * ("trace.csv:12: invalid timestamp \"x\"") and errno: EINVAL for bad
 * data (exit 65), or the error that kept the file from being opened or
 * read to its end (a directory: EISDIR).
 * *skipped counts lines skipped because of skip_bad, by the one subtask
 * that reports them (the owner of partition 0; 0 for the others), so
 * that the subtasks' counts add up to the lines skipped.
 */
struct wm_record_source *
wm_replay_open(const char *path, const uint32_t *partitions, size_t n,
	       uint32_t total, enum wm_replay_pacing pacing, bool skip_bad,
	       uint64_t *skipped, char *err, size_t errlen);

/*
 * Whether errno `e` from wm_replay_open() says the trace could not be
 * opened or read as a file (missing, forbidden, a directory...), for exit
 * 66 (EX_NOINPUT). Not EIO: a failing read is an I/O error (74), as a
 * failing write of the results is.
 */
bool wm_replay_unreadable(int e);

#endif /* WM_RUNTIME_REPLAY_H */
