/*
 * sink.h
 *	Where window results and late records are written: CSV with a header
 *	or JSON lines, to a file or stdout.
 *
 *   key,window_start,window_end[,count][,sum][,min][,max][,avg],
 *   fire_time,watermark,late_firing
 *
 * one column per configured aggregate, in that order; fire_time is the
 * processing time of the firing in milliseconds since the job started,
 * watermark the operator's event time when it fired, late_firing whether
 * an element after the window's end fired it (allowed lateness). Late side
 * outputs are CSV "partition,timestamp,key,value". avg is printed with 17
 * significant digits, so output is exact and byte-identical across runs.
 */
#ifndef WM_RUNTIME_SINK_H
#define WM_RUNTIME_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "operators/window.h"
#include "runtime/topology.h"

struct wm_sink;

/* Open the sink of `conf` for results of `window` (its aggregates). 0, or
 * a negative errno with a message in err (exit 74 for the caller). */
int wm_sink_open(struct wm_sink **sink, const struct wm_sink_conf *conf,
		 const struct wm_stage *window, char *err, size_t errlen);

/* Open a late side output at `path` ("-": stdout). */
int wm_sink_open_late(struct wm_sink **sink, const char *path, char *err,
		      size_t errlen);

void wm_sink_result(struct wm_sink *sink, const struct wm_window_result *r,
		    wm_ts_t watermark, int64_t fire_time_ms);
void wm_sink_late(struct wm_sink *sink, const struct wm_record *r);

/* Results (or late records) written so far. */
uint64_t wm_sink_results(const struct wm_sink *sink);

/* Write each line with one system call from now on: several worker
 * processes share a sink's file (opened O_APPEND), and whole-line writes
 * keep their lines from mixing. */
void wm_sink_line_buffered(struct wm_sink *sink);

/* Flush what this process buffered; 0 or -EIO. */
int wm_sink_flush(struct wm_sink *sink);

/* Flush and close; 0, or -EIO if anything failed to be written. */
int wm_sink_close(struct wm_sink *sink);

#endif /* WM_RUNTIME_SINK_H */
