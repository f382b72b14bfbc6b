/*
 * pipeline_loop.c
 *	wmbench pipeline's impl=loop: the tasks of the parallelism-1 job in
 *	one thread, frames passed by direct calls (pipeline_bench.c runs it
 *	beside the job as processes).
 *
 * The very same struct wm_task objects of the parallelism-1
 * job in this thread, each frame handed from one task to the next by a
 * direct call through struct wm_task_out (no queue, no ring). It includes
 * what every record costs in the runtime apart from the transport: the
 * generator and its per-partition watermark generators and ticks, the
 * record packed into a frame (a worker stages it so) and unpacked by each
 * task (a worker reads it from its cell instead), the keyBy task's
 * routing, the window task's valve, state, timers and firings, and CSV
 * formatting of the results into a sink on /dev/null. It excludes the
 * rings (cells, sequence words, pushes of staged runs), waiting and
 * wake-ups, the workers' clock read per burst of input frames (the loop
 * reads the clock once per source burst of WM_TASK_SOURCE_BURST records),
 * metrics publication, process start-up, and the workers' one write() per
 * result line (their sink file is shared by processes; the loop's is
 * buffered, as --sim's). Records go as the tasks send them: a source's
 * burst in runs of up to WM_TASK_STAGED records, each run through all
 * three tasks before the next one comes, as a worker's task takes a run
 * at a time; but a worker's code and data stay warm in its own core's
 * caches, so the ratio can exceed the number of CPUs.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/container_of.h"
#include "base/log.h"
#include "bench/pipeline_internal.h"
#include "bench/stats.h"
#include "runtime/engine/codec.h"
#include "runtime/engine/task.h"
#include "runtime/io/sink.h"
#include "runtime/plan/plan.h"
#include "runtime/source/sources.h"

struct loop;

struct loop_task {
	struct wm_task_out out; /* recovered with wm_container_of */
	struct loop *loop;
	struct wm_task *task;
	const struct wm_plan_subtask *sub;
};

struct loop {
	const struct wm_topology *topo;
	struct wm_plan *plan;
	struct loop_task *tasks; /* by plan subtask id */
	struct wm_sink *sink;
	int64_t now_ns; /* processing time of the current source burst */
	bool failed;
	void *metrics; /* the metrics area, as the workers have (task.h) */
};

/* Into the consumer's task at once: its own output runs inside this call,
 * so a record goes from the source to the window before the next. */
/* Channel `channel` of output edge `edge` of the task behind `out`: its
 * plan entry (the consumer and the input channel there). */
static const struct wm_plan_channel *
channel_of(struct wm_task_out *out, uint32_t edge, uint32_t channel)
{
	struct loop_task *lt = wm_container_of(out, struct loop_task, out);

	return &lt->loop->plan
			->channels[lt->sub->edges[edge].channels[channel]];
}

static void
loop_frame(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	   const struct wm_frame *f)
{
	struct loop *l = wm_container_of(out, struct loop_task, out)->loop;
	const struct wm_plan_channel *c = channel_of(out, edge, channel);

	if (wm_task_input(l->tasks[c->consumer].task, c->input_channel, f,
			  l->now_ns) != 0)
		l->failed = true;
}

/* A record as its frame, straight into loop_frame(): what the loop did
 * before tasks sent records on their own, so that its figure stays
 * comparable (wm_task_record_as_frame() would add a call through
 * out->frame per record). */
static void
loop_record(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	    const struct wm_record *r)
{
	struct wm_frame f;

	wm_codec_record_frame(r, &f);
	loop_frame(out, edge, channel, &f);
}

/* A run the task staged, into the consumer's task at once as a run
 * (wm_task_input_run()), as a worker's gate hands it a ring's run. */
static void
loop_records(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	     const struct wm_record *r, uint32_t n)
{
	struct loop *l = wm_container_of(out, struct loop_task, out)->loop;
	const struct wm_plan_channel *c = channel_of(out, edge, channel);

	if (wm_task_input_run(l->tasks[c->consumer].task, c->input_channel, r,
			      n, l->now_ns) != 0)
		l->failed = true;
}

static void
loop_result(struct wm_task_out *out, const struct wm_window_result *r,
	    wm_ts_t watermark, int64_t fire_time_ms)
{
	struct loop_task *lt = wm_container_of(out, struct loop_task, out);

	wm_sink_result(lt->loop->sink, r, watermark, fire_time_ms,
		       lt->sub->index);
}

static void
loop_pair(struct wm_task_out *out, const struct wm_join_result *r,
	  wm_ts_t watermark, int64_t fire_time_ms)
{
	struct loop_task *lt = wm_container_of(out, struct loop_task, out);

	wm_sink_pair(lt->loop->sink, r, watermark, fire_time_ms,
		     lt->sub->index);
}

/* The job has no late side output: the window counts late records. */
static void
loop_late(struct wm_task_out *out, unsigned k, const struct wm_record *r)
{
	(void)out;
	(void)k;
	(void)r;
}

static int
loop_build(struct loop *l, char *err, size_t errlen)
{
	const struct wm_topology *t = l->topo;

	l->plan = wm_plan_new(t);
	if (l->plan == NULL)
		return -ENOMEM;
	l->tasks = calloc(l->plan->n_subtasks, sizeof(*l->tasks));
	l->metrics = calloc(1, wm_plan_metrics_bytes(l->plan));
	if (l->tasks == NULL || l->metrics == NULL)
		return -ENOMEM;
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *st = &t->stages[s];
		int r;

		if (st->kind != WM_STAGE_SINK)
			continue;
		r = wm_sink_open(&l->sink, st, &t->stages[st->inputs[0].stage],
				 NULL, err, errlen);
		if (r != 0)
			return r;
	}
	for (uint32_t id = 0; id < l->plan->n_subtasks; id++) {
		struct loop_task *lt = &l->tasks[id];

		lt->loop = l;
		lt->sub = &l->plan->subtasks[id];
		lt->out = (struct wm_task_out){
			.frame = loop_frame,
			.record = loop_record,
			.records = loop_records,
			.result = loop_result,
			.pair = loop_pair,
			.late = loop_late,
		};
		lt->task = wm_sources_new_task(t, l->plan, id, &lt->out,
					       l->metrics, NULL, NULL);
		if (lt->task == NULL)
			return -errno;
	}
	return 0;
}

/* Run the sources burst by burst on the clock, as a worker would, until
 * they finished; END has then gone through every stage (each frame is
 * passed on within the call that sent it), or a task is stuck. */
static void
loop_drive(struct loop *l, uint64_t start_ns)
{
	bool ran = true;

	while (ran && !l->failed) {
		ran = false;
		for (uint32_t id = 0; id < l->plan->n_subtasks; id++) {
			struct wm_task *task = l->tasks[id].task;

			if (wm_task_finished(task) ||
			    wm_task_input_channels(task) > 0)
				continue; /* done, or fed by its inputs */
			ran = true;
			l->now_ns = (int64_t)((double)(wm_stats_now_ns() -
						       start_ns) *
					      l->topo->job.speed);
			wm_task_run_source(task, l->now_ns);
		}
	}
	for (uint32_t id = 0; id < l->plan->n_subtasks; id++)
		if (!wm_task_finished(l->tasks[id].task))
			l->failed = true;
}

/* One run of the loop: Mrec/s, or -1 after a message. */
double
wm_pipeline_loop_run(const struct wm_topology *t, uint64_t records)
{
	struct loop l = {.topo = t};
	uint64_t read = 0, windowed = 0, elsewhere = 0;
	uint64_t start = wm_stats_now_ns(), end;
	char err[256] = "";
	int r = loop_build(&l, err, sizeof(err));

	if (r == 0)
		loop_drive(&l, start);
	if (wm_sink_close(l.sink, r != 0, err, sizeof(err)) != 0 && r == 0)
		r = -EIO;
	end = wm_stats_now_ns();
	for (uint32_t id = 0; l.tasks != NULL && id < l.plan->n_subtasks;
	     id++) {
		struct wm_task *task = l.tasks[id].task;
		const struct wm_window *w = task ? wm_task_window(task) : NULL;
		uint64_t kept, other;

		if (task != NULL && wm_task_input_channels(task) == 0)
			read += wm_task_counters(task)->records_in;
		if (w != NULL) {
			const struct wm_window_counters *c =
				wm_window_counters(w);

			windowed += c->records_accepted;
			elsewhere += c->late_records_dropped +
				     c->late_records_side_output +
				     c->records_ignored + c->records_rejected;
		}
		if (task != NULL && wm_task_join_records(task, &kept, &other)) {
			windowed += kept;
			elsewhere += other;
		}
		wm_task_free(task);
	}
	free(l.tasks);
	free(l.metrics);
	wm_plan_free(l.plan);
	if (r != 0 || l.failed) {
		wm_log("wmbench: pipeline loop: %s",
		       err[0]	  ? err
		       : l.failed ? "a task refused a frame or did not finish"
				  : strerror(-r));
		return -1;
	}
	if (!wm_pipeline_accounted("loop", records, read, windowed, elsewhere))
		return -1;
	return (double)records / ((double)(end - start) / 1e3);
}
