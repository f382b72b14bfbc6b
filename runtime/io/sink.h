/*
 * sink.h
 *	Where window results, a join's pairs and late records are written:
 *	CSV with a header or JSON lines, to a file or stdout.
 *
 *   key,window_start,window_end[,count][,sum][,min][,max][,avg],
 *   fire_time,watermark,late_firing[,subtask]
 *
 * (a join's sink writes pairs instead: wm_sink_pair()), one column per
 * configured aggregate, in that order; fire_time is the
 * processing time of the firing in milliseconds since the job started,
 * watermark the operator's event time when it fired, late_firing whether
 * an element after the window's end fired it (allowed lateness), subtask
 * (with subtask_column) the index of the window subtask that fired it,
 * within its stage, as Flink numbers subtasks. Late side
 * outputs are CSV "partition,timestamp,key,value", and the recording of a
 * source (--record-trace) "partition,timestamp,key,value,arrival": both
 * are traces replay.h reads back. A string key is printed as it came in
 * (runtime/io/keys.h), in CSV quoted when it holds a comma or a quote, in
 * JSON as a string. avg is printed with 17 significant digits, so output
 * is exact and byte-identical across runs.
 *
 * Several processes write one sink (every window subtask of its window
 * stage, or every source subtask of the source it records; the supervisor
 * writes the header before they start), through one descriptor they
 * inherit. Each process gathers whole lines in a buffer and writes it in
 * one call, so lines never mix: for a stream, WM_SINK_BUFFER bytes, as a
 * write of at most PIPE_BUF bytes to a pipe is atomic; for a regular file
 * (opened with O_APPEND), WM_SINK_FILE_BUFFER, as appends by one call do
 * not interleave at any size (a write comes back short only when the disk
 * is full, which stops the job). The file is opened as outfile.h says (no
 * link followed in a shared directory).
 *
 * Every write is checked. The first failure (a full disk, a reader gone)
 * is kept: every later call returns it, nothing more is written, and
 * wm_sink_error() says what failed where, for the caller to stop the job.
 */
#ifndef WM_RUNTIME_IO_SINK_H
#define WM_RUNTIME_IO_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "operators/expr.h"
#include "operators/window.h"
#include "runtime/conf/topology.h"

/* PIPE_BUF on Linux: the largest write a pipe takes whole, and the
 * buffer of a sink that writes to a stream (a pipe, a terminal, "-"). */
#define WM_SINK_BUFFER 4096

/* The buffer of a sink that appends to a regular file, whose writes do
 * not interleave at any size: a write per 64 KiB, about 4000 lines of a
 * recording, so that the source's hot path rarely makes a system call. */
#define WM_SINK_FILE_BUFFER 65536

struct wm_sink;
struct wm_keys;

/* Open sink stage `sink` (its path and format) for the results of the
 * window stage it reads, whose keys are strings of `keys` (which must
 * outlive the sink), or longs (NULL). 0, or a negative errno with a
 * message in err (exit 74 for the caller; -ENOMEM: 71). */
int wm_sink_open(struct wm_sink **out, const struct wm_stage *sink,
		 const struct wm_stage *window, const struct wm_keys *keys,
		 char *err, size_t errlen);

/* A resumed job's sink stage `sink` and late output of `window`
 * (wmrun --resume): the file the job wrote before, kept as it is, no
 * header written (the exactly-once committer then cuts it back to what
 * the checkpoint committed: runtime/checkpoint/part_commit.h). */
int wm_sink_open_kept(struct wm_sink **out, const struct wm_stage *sink,
		      const struct wm_stage *window, const struct wm_keys *keys,
		      char *err, size_t errlen);
int wm_sink_open_late_kept(struct wm_sink **out, const struct wm_stage *stage,
			   unsigned k, const struct wm_keys *keys, char *err,
			   size_t errlen);

/* Open late output k of `stage` (wm_stage_late_output(): a window's
 * late_output, an interval join's left_late or right_late); `keys` as for
 * wm_sink_open(). */
int wm_sink_open_late(struct wm_sink **out, const struct wm_stage *stage,
		      unsigned k, const struct wm_keys *keys, char *err,
		      size_t errlen);

/* The columns a recording (or a trace the export writes) has after
 * arrival, in this order, each implying those before it: a record's
 * marks, as replay.h reads them. */
enum wm_trace_columns {
	WM_TRACE_PUNCTUATE = 1u << 0,
	WM_TRACE_HEARTBEAT = 1u << 1,
	WM_TRACE_WATERMARK = 1u << 2,
};

/* `columns` with those each implies: the columns a line then has. */
static inline unsigned
wm_trace_columns_written(unsigned columns)
{
	if (columns & WM_TRACE_WATERMARK)
		columns |= WM_TRACE_HEARTBEAT;
	if (columns & WM_TRACE_HEARTBEAT)
		columns |= WM_TRACE_PUNCTUATE;
	return columns;
}

/* The header line, its end included, of a trace with arrivals and the
 * written `columns` (wm_trace_columns_written()), as replay.h reads it. */
const char *wm_trace_header(unsigned columns);

/* Open the recording of source stage `source` into `path`, its header
 * written (--record-trace), with the marks' columns `columns` (enum
 * wm_trace_columns, wm_record_trace_columns()). */
int wm_sink_open_recording(struct wm_sink **out, const struct wm_stage *source,
			   const char *path, const struct wm_keys *keys,
			   unsigned columns, char *err, size_t errlen);

/*
 * Open sink stage `sink` for the rows of the map it reads, whose columns
 * are cols[0..n) (wm_map_outputs()): CSV under a header of the column
 * names, or JSON lines (its format), rows as runtime/io/row_text.h
 * writes them. Written by every source subtask the map is chained into.
 */
int wm_sink_open_rows(struct wm_sink **out, const struct wm_stage *sink,
		      const struct wm_expr_field *cols, size_t n, char *err,
		      size_t errlen);

/*
 * One row of columns cols[0..n) into a sink of rows. Its line is made in
 * place when the bound of its text (wm_row_text_max()) fits a write, else
 * made apart first; a line longer than one write to a stream
 * (WM_SINK_BUFFER, a long STRING) fails with -EMSGSIZE, kept as the
 * sink's failure, for it could interleave with another process's line.
 * 0, or the negative errno of the first failure.
 */
int wm_sink_row(struct wm_sink *sink, const struct wm_expr_field *cols,
		size_t n, const struct wm_expr_value *row);

/* One result (fired by window subtask `subtask`), one late record, one
 * recorded record that arrived at `arrival_ms` of processing time (with
 * the watermark `carried` if it is flagged WM_RECORD_WATERMARK): 0, or
 * the negative errno of the first failed write (this one or an earlier
 * one). */
int wm_sink_result(struct wm_sink *sink, const struct wm_window_result *r,
		   wm_ts_t watermark, int64_t fire_time_ms, uint32_t subtask);
/* A join's pair (the sink of a join stage), as a result is written:
 *   key,timestamp,left_timestamp,right_timestamp,left_value,right_value,
 *   fire_time,watermark[,subtask]
 * (timestamp: the later of the two, as Flink stamps the pair). */
int wm_sink_pair(struct wm_sink *sink, const struct wm_join_result *r,
		 wm_ts_t watermark, int64_t fire_time_ms, uint32_t subtask);
int wm_sink_late(struct wm_sink *sink, const struct wm_record *r);
int wm_sink_recorded(struct wm_sink *sink, const struct wm_record *r,
		     wm_ts_t carried, int64_t arrival_ms);

/* Whether a write failed, here or in this process before: a cheap test
 * for a driver whose writes come from deep inside (a recorded source). */
bool wm_sink_failed(const struct wm_sink *sink);

/* Write what this process has gathered: 0 or the negative errno of the
 * first failure. */
int wm_sink_flush(struct wm_sink *sink);

/* What failed, for a message: 'could not write to "out.csv" (sink "out"):
 * No space left on device'. */
const char *wm_sink_error(const struct wm_sink *sink, char *buf, size_t len);

/*
 * Exactly-once outputs (runtime/checkpoint/part_commit.h: the protocol).
 * With checkpoints, a window subtask writes its results, or its late
 * records, for a file not into the file but into a part of its own, a file
 * of the checkpoint directory that only this subtask writes, with no
 * header; at each checkpoint it seals the part and goes on in the next,
 * and the committer appends sealed parts to the file once the checkpoint
 * that sealed them is complete.
 *
 * Open the results of `window` for sink stage `sink` (its format), or the
 * late records of `window`, into part `path`: as wm_sink_open() and
 * wm_sink_open_late(), without a header.
 */
int wm_sink_open_part(struct wm_sink **out, const struct wm_stage *sink,
		      const struct wm_stage *window, const struct wm_keys *keys,
		      const char *path, char *err, size_t errlen);
int wm_sink_open_late_part(struct wm_sink **out, const struct wm_stage *stage,
			   unsigned k, const struct wm_keys *keys,
			   const char *path, char *err, size_t errlen);

/*
 * Seal the part being written (a sink opened by wm_sink_open_part() or
 * wm_sink_open_late_part()): every line gathered is written, the file
 * and its name made durable (fsync of the file, then of its directory),
 * its size in *bytes, and it is closed; the sink goes on writing into a
 * new part at `next`, or, with `next` NULL (the last part, at the end of
 * input), writes nothing more and only wm_sink_close() is left. 0, or a
 * negative errno with a message (the job fails: the part is not sealed).
 */
int wm_sink_seal(struct wm_sink *sink, const char *next, uint64_t *bytes,
		 char *err, size_t errlen);

/* Whether the sink writes a regular file (not standard output, a FIFO or
 * a device): only a file can be exactly-once, by appending parts to it. */
bool wm_sink_is_file(const struct wm_sink *sink);

/* The sink's descriptor: for the committer, which appends to a file the
 * sink opened (and wrote the header of) and which stays open. */
int wm_sink_fd(const struct wm_sink *sink);

/*
 * Flush and close. `job_failed`: the job did not end well, and an output
 * into which no result was written (only its header, if any) is removed
 * rather than left behind; a file with results is kept, cut after its last
 * whole line. 0, or a negative errno with a message in err.
 */
int wm_sink_close(struct wm_sink *sink, bool job_failed, char *err,
		  size_t errlen);

#endif /* WM_RUNTIME_IO_SINK_H */
