/*
 * fuzz_replay.c
 *	libFuzzer entry point for runtime/replay.c: a source's replayed trace
 *	(CSV or JSON lines), read as a source subtask reads it, then drained
 *	as the task loop drains it. For manual runs; not built by `make` or
 *	`make check`: see tests/fuzz/README.md.
 *
 * The first byte of an input chooses the options, the rest is the trace:
 *
 *	bits 0-1  pacing: 0 fast, 1 arrival, 2 event, 3 fast
 *	bit 2     on_bad_record = skip
 *	bits 3-6  partitions of the source: 1 to 8, 16, 17, 64, 100, 255,
 *		  256, 1000 or 65536
 *
 * The trace is read by one subtask owning every partition, then by two
 * owning the even and the odd ones (but for 65536 partitions, whose
 * tables cost a hundred times more than the trace: rarely chosen and
 * read once, they would otherwise slow the search for the rest). Checked, with abort() for
 * libFuzzer to report: a refused trace names the file and a line inside
 * it (errno EINVAL) and both reads agree on it; an accepted one releases
 * every record it kept exactly once, in due order, only of partitions the
 * subtask owns, and finishes (no record left due at "never"); the two
 * subtasks together release what the single one does, and skipped lines
 * are counted once.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/replay.h"
#include "tests/fuzz/fuzz.h"

static const uint32_t totals[16] = {
	1, 2, 3, 4, 5, 6, 7, 8, 16, 17, 64, 100, 255, 256, 1000, 65536,
};
static uint32_t all[65536], even[32768], odd[32768];
static int fd = -1;
static char path[64];

/* "PATH:LINE: why", LINE in the trace. Returns LINE. */
static long
check_message(const char *err, long lines)
{
	size_t len = strlen(path);
	char *end;
	long line;

	if (strncmp(err, path, len) != 0 || err[len] != ':')
		abort();
	line = strtol(err + len + 1, &end, 10);
	if (line < 1 || line > lines || strncmp(end, ": ", 2) != 0 ||
	    end[2] == '\0')
		abort();
	return line;
}

/*
 * Open the trace for `owned` (n of `total`) and release everything.
 * Returns the records released, or -1 when refused (*line says where).
 */
static int64_t
drain(const uint32_t *owned, size_t n, uint32_t total,
      enum wm_replay_pacing pacing, bool skip, uint64_t *skipped, long lines,
      long *line)
{
	struct wm_record_source *src;
	struct wm_record rec;
	char err[512];
	int64_t got = 0, now = 0;
	uint64_t emitted = 0;

	errno = 0;
	src = wm_replay_open(path, owned, n, total, pacing, skip, skipped, err,
			     sizeof(err));
	if (src == NULL) {
		if (errno != EINVAL)
			abort();
		*line = check_message(err, lines);
		return -1;
	}
	if (src->ops->n_partitions(src) != n)
		abort();
	while (!src->ops->finished(src)) {
		int64_t due = src->ops->next_due_ns(src);

		/* A record that is never due is one the job waits for
		 * forever; one due before `now` was released out of order. */
		if (due == INT64_MAX || due < now)
			abort();
		now = due;
		while (src->ops->next(src, now, &rec) == 1) {
			/* owned[] is every partition, the even or the
			 * odd ones, ascending: rec's is at its half. */
			uint32_t i =
				n == total ? rec.partition : rec.partition / 2;

			if (i >= n || owned[i] != rec.partition)
				abort();
			got++;
		}
	}
	if (src->ops->next_due_ns(src) != INT64_MAX ||
	    src->ops->next(src, INT64_MAX, &rec) != 0 ||
	    src->ops->n_finished(src) != n)
		abort();
	for (uint32_t i = 0; i < n; i++) {
		struct wm_source_partition_stats st;

		src->ops->partition_stats(src, i, now, &st);
		if (st.partition != owned[i] || !st.finished)
			abort();
		emitted += st.emitted;
	}
	if (emitted != (uint64_t)got)
		abort();
	src->ops->free(src);
	return got;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum wm_replay_pacing pacing;
	uint64_t skipped_all = 0, skipped_even = 0, skipped_odd = 0;
	uint32_t total, n_even = 0, n_odd = 0;
	int64_t got_all, got_even, got_odd;
	long line_all = 0, line_even = 0, line_odd = 0;
	bool skip;
	long lines;

	if (size < 1)
		return 0;
	if (fd < 0) {
		fd = memfd_create("fuzz_replay", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		for (uint32_t i = 0; i < 65536; i++)
			all[i] = i;
	}
	pacing = (data[0] & 3) == 1   ? WM_REPLAY_ARRIVAL
		 : (data[0] & 3) == 2 ? WM_REPLAY_EVENT
				      : WM_REPLAY_FAST;
	skip = data[0] & 4;
	total = totals[(data[0] >> 3) & 15];
	data++;
	size--;
	lines = fuzz_lines(data, size);
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();

	got_all = drain(all, total, total, pacing, skip, &skipped_all, lines,
			&line_all);
	if (total == 65536)
		return 0;
	for (uint32_t i = 0; i < total; i++) {
		if (i % 2 == 0)
			even[n_even++] = i;
		else
			odd[n_odd++] = i;
	}
	got_even = drain(even, n_even, total, pacing, skip, &skipped_even,
			 lines, &line_even);
	got_odd = drain(odd, n_odd, total, pacing, skip, &skipped_odd, lines,
			&line_odd);
	if (got_all < 0) {
		/* Refused: by every subtask, at the same line. */
		if (skip || got_even >= 0 || got_odd >= 0 ||
		    line_even != line_all || line_odd != line_all)
			abort();
		return 0;
	}
	if (got_even < 0 || got_odd < 0 || got_even + got_odd != got_all)
		abort();
	/* Partition 0's owner counts the skipped lines, the others none. */
	if (skipped_odd != 0 || skipped_even != skipped_all ||
	    (!skip && skipped_all != 0))
		abort();
	return 0;
}
