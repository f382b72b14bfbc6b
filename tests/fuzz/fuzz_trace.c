/*
 * fuzz_trace.c
 *	libFuzzer entry point for tools/wmconform/trace.c, the conformance trace
 *	reader and replayer behind `wmconform`. For manual runs; built by
 *	`make fuzz`, not by `make` or `make check`: see tests/fuzz/README.md.
 *
 * Each input is written to a file and replayed as wmconform replays it: as
 * a .valve trace when it holds "channels" anywhere (so that the seeds of
 * tests/conformance/valve stay valve traces), else as a .source trace;
 * with Flink's released behaviour, or master's for inputs of odd length.
 * Checked, with abort() for libFuzzer to report: every outcome comes with
 * a message, and a malformed trace or a differing output names a line
 * inside the file.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "operators/behaviour.h"
#include "tools/wmconform/trace.h"
#include "tests/fuzz/fuzz.h"

static char dir[200], valve_path[256], source_path[256];
static int fd = -1;

static void
remove_links(void)
{
	unlink(valve_path);
	unlink(source_path);
	rmdir(dir);
}

static bool
holds(const uint8_t *data, size_t size, const char *word)
{
	size_t len = strlen(word);

	for (size_t i = 0; i + len <= size; i++)
		if (memcmp(data + i, word, len) == 0)
			return true;
	return false;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wm_trace_result r;
	enum wm_trace_outcome o;
	const char *path;

	/* The input lives in memory; two links with the names that tell
	 * the trace's kind lead to it (a file on disk cost more time in
	 * writing than in replaying). */
	if (fd < 0) {
		const char *tmp = getenv("TMPDIR");
		char target[64];

		fd = memfd_create("fuzz_trace", 0);
		snprintf(dir, sizeof(dir), "%s/fuzz_trace.XXXXXX",
			 tmp ? tmp : "/tmp");
		if (fd < 0 || mkdtemp(dir) == NULL)
			abort();
		snprintf(target, sizeof(target), "/proc/%d/fd/%d",
			 (int)getpid(), fd);
		snprintf(valve_path, sizeof(valve_path), "%s/t.valve", dir);
		snprintf(source_path, sizeof(source_path), "%s/t.source", dir);
		if (symlink(target, valve_path) != 0 ||
		    symlink(target, source_path) != 0)
			abort();
		atexit(remove_links);
	}
	path = holds(data, size, "channels") ? valve_path : source_path;
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	o = wm_trace_replay(
		path, size % 2 ? WM_BEHAVIOUR_MASTER : WM_BEHAVIOUR_RELEASED,
		&r);
	if (o != r.outcome)
		abort();
	switch (o) {
	case WM_TRACE_PASS:
		if (r.line != 0 || r.message[0] != '\0')
			abort();
		break;
	case WM_TRACE_FAIL:
	case WM_TRACE_MALFORMED:
		/* Line 0 only for an empty file: "no input lines". */
		if ((r.line < 1 && size > 0) ||
		    r.line > fuzz_lines(data, size) || r.message[0] == '\0')
			abort();
		break;
	case WM_TRACE_UNREADABLE:
		/* Out of memory only: the file is there. */
		if (r.message[0] == '\0')
			abort();
		break;
	default:
		abort();
	}
	return 0;
}
