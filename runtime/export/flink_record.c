/*
 * flink_record.c
 *	Generated sources recorded for the Flink export (flink_record.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "runtime/export/flink_job.h"
#include "runtime/export/flink_record.h"
#include "base/exit.h"
#include "base/log.h"
#include "runtime/source/record_trace.h"
#include "runtime/report/report.h"
#include "runtime/run/sim.h"

/* Where the recording run writes the job's results: nowhere. */
static char discard[] = "/dev/null";

static bool
generated(const struct wm_stage *st)
{
	return wm_stage_source_is(st, WM_SOURCE_GENERATED);
}

/* Each generated source's trace path set, none a file the job uses (a
 * trace it replays, an output), and `kept` holding the outputs' paths
 * while they point at `discard`: 0, -ENOMEM, or -EEXIST with why. */
static int
set_up(struct wm_topology *t, const char *dir, char **kept, char *why,
       size_t len)
{
	char use[4096];

	for (uint32_t s = 0; s < t->n_stages; s++) {
		struct wm_source_conf *src = &t->stages[s].u.source;
		char name[256], *path;

		if (!generated(&t->stages[s]))
			continue;
		wm_export_flink_trace_name(t, s, name, sizeof(name));
		if (asprintf(&path, "%s/data/%s", dir, name) < 0)
			return -ENOMEM;
		/* Before it is set: the recording itself is a use. */
		if (wm_topology_file_use(t, path, use, sizeof(use)) != NULL) {
			snprintf(why, len,
				 "\"%s\" is %s: export into another "
				 "directory",
				 path, use);
			free(path);
			return -EEXIST;
		}
		src->record = path;
	}
	for (uint32_t s = 0; s < t->n_stages; s++) {
		struct wm_stage *st = &t->stages[s];

		if (st->kind == WM_STAGE_SINK) {
			kept[s] = st->u.sink.path;
			st->u.sink.path = discard;
		}
		for (unsigned k = 0; k < WM_STAGE_LATE_OUTPUTS; k++) {
			char **f = wm_stage_late_output_field(st, k, NULL);

			if (f == NULL || *f == NULL)
				continue;
			kept[t->n_stages + wm_late_sink_index(s, k)] = *f;
			*f = discard;
		}
	}
	return 0;
}

static void
restore_outputs(struct wm_topology *t, char **kept)
{
	for (uint32_t s = 0; s < t->n_stages; s++) {
		struct wm_stage *st = &t->stages[s];

		if (kept[s] != NULL && st->kind == WM_STAGE_SINK)
			st->u.sink.path = kept[s];
		for (unsigned k = 0; k < WM_STAGE_LATE_OUTPUTS; k++) {
			char *was =
				kept[t->n_stages + wm_late_sink_index(s, k)];

			if (was != NULL)
				*wm_stage_late_output_field(st, k, NULL) = was;
		}
	}
}

/* What the run read from source stage `stage`. */
static uint64_t
records_of(const struct wm_job_report *rep, uint32_t stage)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < rep->n_partitions; i++)
		if (rep->partitions[i].stage == stage)
			n += rep->partitions[i].records;
	return n;
}

/* The heartbeats source stage `stage` sent, recorded with its records. */
static uint64_t
heartbeats_of(const struct wm_job_report *rep, uint32_t stage)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < rep->n_subtasks; i++)
		if (rep->subtasks[i].stage == stage)
			n += rep->subtasks[i].heartbeats;
	return n;
}

/* The recorded sources as replays of their recordings, each said. */
static int
replay_recordings(struct wm_topology *t, const struct wm_job_report *rep)
{
	for (uint32_t s = 0; s < t->n_stages; s++) {
		struct wm_source_conf *src = &t->stages[s].u.source;
		uint64_t heartbeats;
		char beats[64];

		if (!generated(&t->stages[s]))
			continue;
		src->replay = strdup(src->record);
		if (src->replay == NULL)
			return -ENOMEM;
		src->kind = WM_SOURCE_REPLAY;
		src->pacing = WM_REPLAY_ARRIVAL;
		src->replay_end_ms = wm_record_trace_end_ms(t);
		heartbeats = heartbeats_of(rep, s);
		beats[0] = '\0';
		if (heartbeats > 0)
			snprintf(beats, sizeof(beats),
				 " and %" PRIu64 " heartbeats", heartbeats);
		wm_log("wmrun: recorded generated source \"%s\" under --sim: "
		       "%" PRIu64 " records%s of %" PRIu32
		       " partitions into \"%s\"",
		       t->stages[s].name, records_of(rep, s), beats,
		       src->partitions, src->record);
	}
	return 0;
}

int
wm_export_flink_record(struct wm_topology *t, const char *dir)
{
	struct wm_job_report rep = {0};
	int64_t interval;
	char why[4400];
	char **kept;
	bool any = false;
	int r;

	for (uint32_t s = 0; s < t->n_stages; s++)
		any = any || generated(&t->stages[s]);
	if (!any)
		return 0;
	/* The sinks' paths by stage, then the late outputs'
	 * (wm_late_sink_index()). */
	kept = calloc((size_t)t->n_stages * (1 + WM_STAGE_LATE_OUTPUTS),
		      sizeof(*kept));
	r = kept == NULL ? -ENOMEM : set_up(t, dir, kept, why, sizeof(why));
	/* Without checkpoints, and so without fail_at and its restart: a
	 * restored generator would record its replayed records again, and
	 * the export would make the job's checkpoint directory. The exported
	 * job takes them itself. */
	interval = t->job.checkpoint_interval_ms;
	t->job.checkpoint_interval_ms = INT64_MAX;
	if (r == 0)
		r = wm_sim_run(t, &rep, why, sizeof(why));
	t->job.checkpoint_interval_ms = interval;
	if (kept != NULL)
		restore_outputs(t, kept);
	free(kept);
	if (r == 0)
		r = replay_recordings(t, &rep);
	if (r == -ENOMEM)
		snprintf(why, sizeof(why), "out of memory");
	wm_report_free(&rep);
	if (r == 0)
		return 0;
	wm_log("wmrun: could not record the generated sources: %s", why);
	/* A stop signal: 128 + n, as for a run. */
	return r > 0	      ? r
	       : r == -EEXIST ? EX_USAGE
			      : wm_exit_status(WM_EXIT_SIM, r);
}
