/*
 * graph.c
 *	Questions about a loaded topology: the edges out of a stage, the
 *	channels into one, and what the job does with a file.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/conf/loader.h"
#include "runtime/conf/topology.h"

uint32_t
wm_topology_out_edges(const struct wm_topology *t, uint32_t stage,
		      struct wm_topology_edge *edges, uint32_t max)
{
	uint32_t n = 0;

	for (uint32_t s = 0; s < t->n_stages; s++)
		for (uint32_t k = 0; k < t->stages[s].n_inputs; k++) {
			if (t->stages[s].inputs[k].stage != stage)
				continue;
			if (n < max)
				edges[n] = (struct wm_topology_edge){s, k};
			n++;
		}
	return n;
}

uint32_t
wm_topology_input_width(const struct wm_topology *t, uint32_t stage,
			uint32_t input)
{
	const struct wm_stage_input *in = &t->stages[stage].inputs[input];

	return in->edge == WM_PARTITION_FORWARD
		       ? 1
		       : t->stages[in->stage].parallelism;
}

uint32_t
wm_topology_input_channels(const struct wm_topology *t, uint32_t stage)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < t->stages[stage].n_inputs; k++)
		n += wm_topology_input_width(t, stage, k);
	return n;
}

uint32_t
wm_topology_input_channel(const struct wm_topology *t, uint32_t stage,
			  uint32_t input, uint32_t up)
{
	uint32_t offset = 0;

	for (uint32_t k = 0; k < input; k++)
		offset += wm_topology_input_width(t, stage, k);
	/* A forward edge has one channel whatever the upstream index. */
	return offset +
	       (t->stages[stage].inputs[input].edge == WM_PARTITION_FORWARD
			? 0
			: up);
}

/* Paths a and b name one file: the same text, or one existing file (a
 * stat() opens nothing). */
bool
wm_conf_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return strcmp(a, b) == 0 ||
	       (stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
		sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
}

const char *
wm_topology_file_use(const struct wm_topology *t, const char *path, char *buf,
		     size_t len)
{
	if (wm_conf_same_file(path, t->file)) {
		snprintf(buf, len, "the topology");
		return buf;
	}
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *st = &t->stages[s];
		const char *file = NULL, *role = "", *verb = "";

		if (st->kind == WM_STAGE_SOURCE &&
		    st->u.source.record != NULL &&
		    wm_conf_same_file(path, st->u.source.record)) {
			snprintf(buf, len, "the recording of source \"%s\"",
				 st->name);
			return buf;
		}
		for (unsigned k = 0;
		     st->kind == WM_STAGE_JOIN && k < WM_STAGE_LATE_OUTPUTS;
		     k++) {
			const char *late = wm_stage_late_output(st, k);

			if (late != NULL && wm_conf_same_file(path, late)) {
				snprintf(buf, len,
					 "the %s late output of join \"%s\"",
					 k == WM_JOIN_LEFT ? "left" : "right",
					 st->name);
				return buf;
			}
		}
		if (st->kind == WM_STAGE_SOURCE) {
			file = st->u.source.replay;
			role = "trace that source";
			verb = " replays";
		} else if (st->kind == WM_STAGE_WINDOW) {
			file = st->u.window.late_output;
			role = "late output of window";
		} else if (st->kind == WM_STAGE_SINK &&
			   strcmp(st->u.sink.path, "-") != 0) {
			file = st->u.sink.path;
			role = "output of sink";
		}
		if (file != NULL && wm_conf_same_file(path, file)) {
			snprintf(buf, len, "the %s \"%s\"%s", role, st->name,
				 verb);
			return buf;
		}
	}
	return NULL;
}
