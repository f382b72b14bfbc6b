/*
 * exactly_once.c
 *	Which outputs are exactly-once, the parts a window subtask writes
 *	them into, and the parts a worker sealed.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/assert.h"
#include "base/countof.h"
#include "base/log.h"
#include "runtime/checkpoint/exactly_once.h"

/* The notice of an output that stays at-least-once. */
static void
say_at_least_once(const struct wm_stage *st, int late, const char *path)
{
	bool out = strcmp(path, "-") == 0;
	const char *what =
		late < 0		      ? "sink"
		: st->kind == WM_STAGE_WINDOW ? "the late output of window"
		: late == WM_JOIN_LEFT	      ? "the left late output of join"
					      : "the right late output of join";

	wm_log("wmrun: notice: %s \"%s\" writes to %s%s%s: after a restart, "
	       "what it wrote since the checkpoint restored is written again "
	       "(at-least-once); only a file is exactly-once",
	       what, st->name, out ? "" : "\"", out ? "standard output" : path,
	       out ? "" : "\"");
}

int
wm_exactly_once_set_up(struct wm_part_commit **commit, int32_t **output_of,
		       const struct wm_topology *t,
		       struct wm_sink *const *stage_sinks,
		       struct wm_sink *const *late_sinks, char *err,
		       size_t errlen)
{
	/* A run id of its own (part_commit.h): no other job's parts are
	 * ever taken for this one's, nor this one's for another's. */
	struct wm_part_commit_config cfg = {.dir = t->job.checkpoint_dir,
					    .run = wm_part_commit_new_run()};
	struct wm_part_commit_output *outs;
	int32_t *of = malloc(WM_EXACTLY_ONCE_SLOTS(t) * sizeof(*of));
	char(*names)[32];
	int r = 0;

	*commit = NULL;
	*output_of = NULL;
	outs = calloc(WM_EXACTLY_ONCE_SLOTS(t), sizeof(*outs));
	names = calloc(WM_EXACTLY_ONCE_SLOTS(t), sizeof(*names));
	if (of == NULL || outs == NULL || names == NULL) {
		free(of);
		free(outs);
		free(names);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t s = 0; s < t->n_stages; s++)
		if (t->stages[s].kind == WM_STAGE_SOURCE &&
		    t->stages[s].u.source.record != NULL)
			wm_log("wmrun: notice: the recording of source \"%s\" "
			       "is at-least-once: after a restart, the records "
			       "its partitions replay are recorded again",
			       t->stages[s].name);
	for (uint32_t i = 0; i < WM_EXACTLY_ONCE_SLOTS(t); i++) {
		/* Slot i: sinks by stage, then late outputs by stage. */
		uint32_t n = cfg.n_outputs;
		int late = i < t->n_stages ? -1
					   : (int)((i - t->n_stages) %
						   WM_STAGE_LATE_OUTPUTS);
		uint32_t s = i < t->n_stages ? i
					     : (i - t->n_stages) /
						       WM_STAGE_LATE_OUTPUTS;
		const struct wm_stage *st = &t->stages[s];
		struct wm_sink *sink =
			late >= 0 ? late_sinks[wm_late_sink_index(s, late)]
			: st->kind == WM_STAGE_SINK ? stage_sinks[s]
						    : NULL;
		const char *path = late >= 0 ? wm_stage_late_output(st, late)
					     : st->u.sink.path;

		WM_ASSERT(wm_exactly_once_slot(t, s, late) == i);
		of[i] = -1;
		if (sink == NULL)
			continue;
		if (!wm_sink_is_file(sink)) {
			say_at_least_once(st, late, path);
			continue;
		}
		of[i] = (int32_t)n;
		outs[n] = (struct wm_part_commit_output){
			.path = path,
			.fd = wm_sink_fd(sink),
			.name = wm_part_commit_output_name(
				s, late + 1, names[n], sizeof(names[n])),
			.writers = late >= 0 ? st->parallelism
					     : t->stages[st->inputs[0].stage]
						       .parallelism,
		};
		cfg.n_outputs = n + 1;
	}
	cfg.outputs = outs;
	if (cfg.n_outputs > 0) {
		r = wm_part_commit_new(commit, &cfg, err, errlen);
		if (r == 0)
			*output_of = of;
	}
	if (*output_of == NULL)
		free(of);
	free(outs);
	free(names);
	return r;
}

const char *
wm_exactly_once_part_path(const struct wm_topology *t, uint64_t run,
			  const struct wm_plan_subtask *sub, uint32_t stage,
			  int late, uint64_t epoch, char *buf, size_t len)
{
	char name[32];

	return wm_part_commit_part_path(
		t->job.checkpoint_dir,
		wm_part_commit_output_name(late >= 0 ? sub->stage : stage,
					   late + 1, name, sizeof(name)),
		run, sub->index, epoch, buf, len);
}

/* The sealed parts of writer `writer` of output `output` (its parts'
 * directory `dir`) in the committer's run, with an epoch in (after,
 * up_to], to the committer. */
static int
found_in(struct wm_part_commit *commit, uint32_t output, const char *dir,
	 uint32_t writer, uint64_t after, uint64_t up_to, char *err,
	 size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int r = 0;

	if (d == NULL) {
		snprintf(err, errlen, "could not read directory \"%s\": %s",
			 dir, strerror(errno));
		return -errno;
	}
	while (r == 0 && (e = readdir(d)) != NULL) {
		char path[PATH_MAX];
		uint32_t w;
		uint64_t epoch, run;
		struct stat st;

		if (!wm_part_commit_parse_part_name(e->d_name, &run, &w,
						    &epoch) ||
		    run != wm_part_commit_run(commit) || w != writer ||
		    epoch <= after || epoch > up_to)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >=
		    (int)sizeof(path))
			r = -ENAMETOOLONG;
		else if (stat(path, &st) != 0)
			r = -errno;
		if (r != 0) {
			snprintf(err, errlen,
				 "could not read part \"%s/%s\": %s", dir,
				 e->d_name, strerror(-r));
		} else if (wm_part_commit_sealed(commit, output, writer, epoch,
						 (uint64_t)st.st_size) != 0) {
			r = -ENOMEM;
			snprintf(err, errlen, "out of memory");
		}
	}
	closedir(d);
	return r;
}

int
wm_exactly_once_found_sealed(struct wm_part_commit *commit,
			     const int32_t *output_of,
			     const struct wm_topology *t,
			     const struct wm_plan_subtask *sub, uint64_t after,
			     uint64_t up_to, char *err, size_t errlen)
{
	int r = 0;

	for (uint32_t k = 0; r == 0 && k < sub->n_sinks + WM_STAGE_LATE_OUTPUTS;
	     k++) {
		int late = k < sub->n_sinks ? -1 : (int)(k - sub->n_sinks);
		uint32_t stage = late >= 0 ? sub->stage : sub->sinks[k];
		int32_t output =
			output_of[wm_exactly_once_slot(t, stage, late)];
		char path[PATH_MAX], *slash;

		if (output < 0)
			continue;
		wm_exactly_once_part_path(t, wm_part_commit_run(commit), sub,
					  stage, late, 0, path, sizeof(path));
		slash = strrchr(path, '/');
		*slash = '\0';
		r = found_in(commit, (uint32_t)output, path, sub->index, after,
			     up_to, err, errlen);
	}
	return r;
}

void
wm_window_parts_init(struct wm_window_parts *p, const struct wm_topology *t,
		     const struct wm_plan_subtask *sub, uint64_t run)
{
	p->t = t;
	p->sub = sub;
	p->run = run;
	p->epoch = 0;
	p->n = 0;
}

void
wm_window_parts_add(struct wm_window_parts *p, struct wm_sink **slot,
		    uint32_t stage, int late, const int32_t *output_of)
{
	int32_t output =
		output_of != NULL
			? output_of[wm_exactly_once_slot(p->t, stage, late)]
			: -1;

	if (output < 0)
		return;
	/* A window's or join's sinks and its late outputs: never more. */
	WM_ASSERT(p->n < N_ELEMS(p->v));
	p->v[p->n++] = (struct wm_window_part){.slot = slot,
					       .stage = stage,
					       .late = late,
					       .output = (uint32_t)output};
}

/* The path of part `epoch` of x, in buf. */
static const char *
part_path(const struct wm_window_parts *p, const struct wm_window_part *x,
	  uint64_t epoch, char *buf, size_t len)
{
	return wm_exactly_once_part_path(p->t, p->run, p->sub, x->stage,
					 x->late, epoch, buf, len);
}

int
wm_window_parts_open(struct wm_window_parts *p, uint64_t epoch,
		     struct wm_replay_trace *const *traces,
		     const struct wm_keys *keys, char *err, size_t errlen)
{
	const struct wm_stage *window = &p->t->stages[p->sub->stage];
	char path[PATH_MAX];
	int r = 0;

	p->epoch = epoch;
	for (uint32_t i = 0; r == 0 && i < p->n; i++) {
		struct wm_window_part *x = &p->v[i];
		const struct wm_keys *k =
			wm_replay_stage_keys(traces, p->t, x->stage, keys);

		part_path(p, x, epoch, path, sizeof(path));
		r = x->late >= 0
			    ? wm_sink_open_late_part(x->slot, window,
						     (unsigned)x->late, k, path,
						     err, errlen)
			    : wm_sink_open_part(x->slot,
						&p->t->stages[x->stage], window,
						k, path, err, errlen);
		x->open = r == 0;
	}
	return r;
}

int
wm_window_parts_seal(struct wm_window_parts *p, uint64_t next,
		     int (*sealed)(void *ctx, uint32_t output, uint64_t epoch,
				   uint64_t bytes),
		     void *ctx, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int r = 0;

	for (uint32_t i = 0; r == 0 && i < p->n; i++) {
		struct wm_window_part *x = &p->v[i];
		uint64_t bytes;

		if (!x->open)
			continue;
		r = wm_sink_seal(
			*x->slot,
			next != 0 ? part_path(p, x, next, path, sizeof(path))
				  : NULL,
			&bytes, err, errlen);
		if (r == 0 && sealed != NULL)
			r = sealed(ctx, x->output, p->epoch, bytes);
	}
	if (r == 0)
		p->epoch = next;
	return r;
}

void
wm_window_parts_close(struct wm_window_parts *p, bool discard)
{
	for (uint32_t i = 0; i < p->n; i++) {
		struct wm_window_part *x = &p->v[i];

		if (!x->open)
			continue;
		wm_sink_close(*x->slot, discard, NULL, 0);
		*x->slot = NULL;
		x->open = false;
	}
}
