/*
 * trace.h
 *	Replay one conformance trace (.valve or .source, format in
 *	tests/conformance/FORMAT.md) through the operators and compare what
 *	they emit with what Flink emitted.
 *
 * A .valve trace drives one wm_valve; a .source trace drives one
 * wm_source_watermarks with its partitions, on the clock the trace sets.
 * After each input line, everything the module emitted is compared with the
 * '>' lines that follow it: same lines, same order. A line is at most 4096
 * bytes, its end included (a longer one is malformed).
 */
#ifndef WM_TOOLS_WMCONFORM_TRACE_H
#define WM_TOOLS_WMCONFORM_TRACE_H

#include <stdbool.h>

enum wm_trace_outcome {
	WM_TRACE_PASS,
	WM_TRACE_FAIL,	    /* replayed; output differs from the trace */
	WM_TRACE_MALFORMED, /* the trace itself is invalid */
	WM_TRACE_UNREADABLE,
};

struct wm_trace_result {
	enum wm_trace_outcome outcome;
	long line;	   /* input line of the first difference or error */
	char message[512]; /* what differed, or what is wrong */
};

/* Replay `path` with Flink behaviour flags `behaviour`; the kind of trace
 * comes from the file name's suffix. Fills *result; returns its outcome. */
enum wm_trace_outcome wm_trace_replay(const char *path, unsigned behaviour,
				      struct wm_trace_result *result);

#endif /* WM_TOOLS_WMCONFORM_TRACE_H */
