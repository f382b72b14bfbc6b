/*
 * fuzz_replay.c
 *	libFuzzer entry point for runtime/source/replay.c: a source's replayed trace
 *	(CSV or JSON lines), read once as the job reads it, then drained by
 *	its subtasks' record sources as the task loop drains them. For
 *	manual runs; built by `make fuzz`, not by `make` or `make check`:
 *	see tests/fuzz/README.md.
 *
 * The first byte of an input chooses the options, the rest is the trace:
 *
 *	bits 0-1  pacing: 0 fast, 1 arrival, 2 event, 3 fast
 *	bit 2     on_bad_record = skip
 *	bits 3-6  partitions of the source: 1 to 8, 16, 17, 64, 100, 255,
 *		  256, 1000 or 65536
 *
 * The trace is drained by one subtask owning every partition, then by two
 * owning the even and the odd ones (but for 65536 partitions, whose
 * tables cost a hundred times more than the trace: rarely chosen and
 * drained once, they would otherwise slow the search for the rest).
 * Checked, with abort() for libFuzzer to report: a refused trace names
 * the file and a line inside it (errno EBADMSG), and only without skip;
 * a kept one has skipped lines only with skip; each source releases every
 * record it holds exactly once, in due order, only of partitions it owns,
 * and finishes (no record left due at "never"); the two subtasks together
 * release what the single one does, and each partition's records in the
 * same order whoever owns it.
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

#include "runtime/source/replay.h"
#include "tests/fuzz/fuzz.h"

static const uint32_t totals[16] = {
	1, 2, 3, 4, 5, 6, 7, 8, 16, 17, 64, 100, 255, 256, 1000, 65536,
};
static uint32_t all[65536], even[32768], odd[32768];
static int fd = -1;
static char path[64];

/* Records in the order a source released them. */
struct released {
	struct wm_record *recs;
	size_t n, cap;
};

/* "PATH:LINE: why", LINE in the trace. */
static void
check_message(const char *err, long lines)
{
	size_t len = strlen(path);
	char *end;
	long line;

	if (strncmp(err, path, len) != 0 || err[len] != ':')
		abort();
	line = strtol(err + len + 1, &end, 10);
	/* A bad key's column follows the line. */
	if (*end == ':' && end[1] >= '1' && end[1] <= '9')
		(void)strtol(end + 1, &end, 10);
	if (line < 1 || line > lines || strncmp(end, ": ", 2) != 0 ||
	    end[2] == '\0')
		abort();
}

/* Release everything `owned` (n of `total`, ascending) holds into out. */
static void
drain(const struct wm_replay_trace *tr, const uint32_t *owned, size_t n,
      uint32_t total, struct released *out)
{
	struct wm_record_source *src = wm_replay_source(tr, owned, n);
	struct wm_record rec;
	int64_t now = 0;
	uint64_t emitted = 0;

	if (src == NULL || src->ops->n_partitions(src) != n)
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
			 * odd ones: rec's is at its half. */
			uint32_t i =
				n == total ? rec.partition : rec.partition / 2;

			if (i >= n || owned[i] != rec.partition)
				abort();
			if (out->n == out->cap) {
				out->cap = out->cap ? 2 * out->cap : 256;
				out->recs = realloc(out->recs,
						    out->cap * sizeof(rec));
				if (out->recs == NULL)
					abort();
			}
			out->recs[out->n++] = rec;
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
	if (emitted != out->n)
		abort();
	src->ops->free(src);
}

/* Each record of `part` comes in whole's order: cursor[p] is where the
 * search for partition p's next one in whole goes on. */
static void
same_partition_order(const struct released *whole, const struct released *part,
		     size_t *cursor)
{
	for (size_t i = 0; i < part->n; i++) {
		const struct wm_record *r = &part->recs[i];
		size_t *at = &cursor[r->partition];

		while (*at < whole->n &&
		       whole->recs[*at].partition != r->partition)
			(*at)++;
		if (*at == whole->n ||
		    memcmp(&whole->recs[*at], r, sizeof(*r)) != 0)
			abort();
		(*at)++;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct released got_all = {0}, got_even = {0}, got_odd = {0};
	struct wm_replay_trace *tr;
	enum wm_replay_pacing pacing;
	uint32_t total, n_even = 0, n_odd = 0;
	size_t *cursor;
	char err[512];
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

	errno = 0;
	tr = wm_replay_read(path, total, pacing,
			    data[-1] & 0x80 ? WM_KEY_TYPE_STRING
					    : WM_KEY_TYPE_TRACE,
			    NULL, skip, err, sizeof(err));
	if (tr == NULL) {
		if (errno != EBADMSG || skip)
			abort();
		check_message(err, lines);
		return 0;
	}
	if (!skip && wm_replay_skipped(tr) != 0)
		abort();
	drain(tr, all, total, total, &got_all);
	if (total == 65536)
		goto out;
	for (uint32_t i = 0; i < total; i++) {
		if (i % 2 == 0)
			even[n_even++] = i;
		else
			odd[n_odd++] = i;
	}
	drain(tr, even, n_even, total, &got_even);
	drain(tr, odd, n_odd, total, &got_odd);
	if (got_even.n + got_odd.n != got_all.n)
		abort();
	cursor = calloc(total, sizeof(*cursor));
	if (cursor == NULL)
		abort();
	same_partition_order(&got_all, &got_even, cursor);
	same_partition_order(&got_all, &got_odd, cursor);
	free(cursor);
out:
	free(got_all.recs);
	free(got_even.recs);
	free(got_odd.recs);
	wm_replay_free(tr);
	return 0;
}
