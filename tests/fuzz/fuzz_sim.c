/*
 * fuzz_sim.c
 *	libFuzzer entry point for `wmrun --sim` on a fuzzed topology: load it
 *	(runtime/conf/), then run it to its end with runtime/run/sim.c, the
 *	engine and the operators, and build its report (runtime/report/).
 *	For manual runs; built by `make fuzz`, not by `make` or `make
 *	check`: see tests/fuzz/README.md.
 *
 * So that every input runs in a few milliseconds and touches no file but
 * its own, a valid topology is cut down before it runs: every sink and late
 * output writes to /dev/null, every replayed trace is one small file of
 * this harness, a job of more than 64 subtasks or 256 partitions is
 * skipped, and the run ends after at most 20 records per partition and 10
 * minutes of processing and event time. Checked, besides ASan and UBSan: a
 * run that fails says why; one that succeeds accounts for every record.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/plan/plan.h"
#include "runtime/report/report.h"
#include "runtime/run/sim.h"
#include "runtime/conf/topology.h"
#include "tests/fuzz/fuzz.h"

static char trace[256];

static void
remove_trace(void)
{
	unlink(trace);
}

static void
replace(char **s, const char *with)
{
	free(*s);
	*s = strdup(with);
	if (*s == NULL)
		abort();
}

/* Cut `t` down as the header says; false to skip it. */
static bool
tame(struct wm_topology *t)
{
	uint32_t subtasks = 0, partitions = 0;

	for (uint32_t s = 0; s < t->n_stages; s++) {
		struct wm_stage *st = &t->stages[s];

		subtasks += st->parallelism;
		for (unsigned k = 0; k < WM_STAGE_LATE_OUTPUTS; k++) {
			char **f = wm_stage_late_output_field(st, k, NULL);

			if (f != NULL && *f != NULL)
				replace(f, "/dev/null");
		}
		if (st->kind == WM_STAGE_SOURCE) {
			partitions += st->u.source.partitions;
			if (st->u.source.kind == WM_SOURCE_REPLAY)
				replace(&st->u.source.replay, trace);
		} else if (st->kind == WM_STAGE_SINK) {
			replace(&st->u.sink.path, "/dev/null");
		}
	}
	if (subtasks > 64 || partitions > 256)
		return false;
	if (t->job.records > 20)
		t->job.records = 20;
	if (t->job.event_time_ms > 600000)
		t->job.event_time_ms = 600000;
	if (t->job.processing_time_ms > 600000)
		t->job.processing_time_ms = 600000;
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wm_topology *t = NULL;
	struct wm_job_report rep = {0};
	struct wm_ini_error err;
	char why[512];
	int r;

	if (trace[0] == '\0') {
		const char *tmp = getenv("TMPDIR");
		FILE *f;

		snprintf(trace, sizeof(trace), "%s/fuzz_sim.%d.csv",
			 tmp ? tmp : "/tmp", (int)getpid());
		f = fopen(trace, "w");
		if (f == NULL)
			abort();
		fputs("partition,timestamp,key,value,arrival\n"
		      "0,1000,1,1,0\n0,900,2,2,10\n0,5000,1,3,20\n"
		      "0,-3,3,4,20\n0,120000,1,5,30\n",
		      f);
		if (fclose(f) != 0)
			abort();
		atexit(remove_trace);
	}
	if (wm_topology_load_buffer((const char *)data, size, "fuzz.conf", &t,
				    &err) != 0)
		return 0;
	if (tame(t)) {
		why[0] = '\0';
		r = wm_sim_run(t, &rep, why, sizeof(why));
		if (r != 0 && why[0] == '\0')
			abort();
		if (r == 0 && !wm_report_accounted(&rep))
			abort();
		if (r == 0) {
			FILE *null = fopen("/dev/null", "w");

			wm_report_print(null, t, &rep);
			(void)wm_report_print_json(null, t, &rep);
			fclose(null);
		}
		wm_report_free(&rep);
	}
	wm_topology_free(t);
	return 0;
}
