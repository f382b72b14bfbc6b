/*
 * sim.c
 *	The --sim driver: tasks, in-memory channels, simulated time (rules in
 *	sim.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/sim.h"
#include "runtime/sink.h"
#include "runtime/task.h"

/* Simulated processing cost of a record from an unlimited-rate source. */
#define WM_SIM_NS_PER_RECORD 1000

/* Where one output channel of a task leads. */
struct dest {
	uint32_t task;
	uint32_t channel;
};

struct queued {
	uint32_t channel;
	struct wm_frame frame;
};

struct queue {
	size_t n, cap;
	struct queued *items;
};

struct sim;

struct sim_task {
	struct wm_task_out out; /* first: recovered with wm_container_of */
	struct sim *sim;
	struct wm_task *task;
	uint32_t stage;
	uint32_t edges;
	struct dest **dest; /* [edge][channel] */
	struct queue in;
	int64_t next_due;	/* sources */
	struct wm_sink **sinks; /* chained sinks of a window, NULL-ended */
	struct wm_sink *late;	/* late side output of a window */
};

struct sim {
	const struct wm_topology *topo;
	uint32_t n_tasks;
	struct sim_task *tasks;
	uint32_t *first_task;	      /* by stage: index of its subtask 0 */
	struct wm_sink **stage_sinks; /* by stage: the sink of a sink stage */
	int64_t now_ns;
	bool failed; /* out of memory while queueing */
	size_t n_delays, cap_delays;
	int64_t *delays; /* fire delays of on-time firings, ms */
};

static int
queue_push(struct queue *q, uint32_t channel, const struct wm_frame *f)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 256;
		void *items = realloc(q->items, cap * sizeof(*q->items));

		if (items == NULL)
			return -ENOMEM;
		q->items = items;
		q->cap = cap;
	}
	q->items[q->n].channel = channel;
	q->items[q->n].frame = *f;
	q->n++;
	return 0;
}

static void
sim_frame(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	  const struct wm_frame *f)
{
	struct sim_task *st = wm_container_of(out, struct sim_task, out);
	struct dest d = st->dest[edge][channel];

	if (queue_push(&st->sim->tasks[d.task].in, d.channel, f) != 0)
		st->sim->failed = true;
}

static void
sim_result(struct wm_task_out *out, const struct wm_window_result *r,
	   wm_ts_t watermark, int64_t fire_time_ms)
{
	struct sim_task *st = wm_container_of(out, struct sim_task, out);

	struct sim *sim = st->sim;

	for (struct wm_sink **s = st->sinks; s && *s; s++)
		wm_sink_result(*s, r, watermark, fire_time_ms);
	if (r->late_firing)
		return;
	if (sim->n_delays == sim->cap_delays) {
		size_t cap = sim->cap_delays ? 2 * sim->cap_delays : 1024;
		void *d = realloc(sim->delays, cap * sizeof(*sim->delays));

		if (d == NULL) {
			sim->failed = true;
			return;
		}
		sim->delays = d;
		sim->cap_delays = cap;
	}
	sim->delays[sim->n_delays++] = fire_time_ms - r->window.end;
}

static int
by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static void
sim_late(struct wm_task_out *out, const struct wm_record *r)
{
	struct sim_task *st = wm_container_of(out, struct sim_task, out);

	if (st->late != NULL)
		wm_sink_late(st->late, r);
}

/* Tasks exist for every stage but sinks, which are chained to windows. */
static int
build(struct sim *sim, char *err, size_t errlen)
{
	const struct wm_topology *t = sim->topo;
	uint32_t id = 0;

	sim->first_task = calloc(t->n_stages, sizeof(*sim->first_task));
	sim->stage_sinks = calloc(t->n_stages, sizeof(*sim->stage_sinks));
	if (sim->first_task == NULL || sim->stage_sinks == NULL)
		return -ENOMEM;
	for (uint32_t s = 0; s < t->n_stages; s++) {
		sim->first_task[s] = sim->n_tasks;
		if (t->stages[s].kind != WM_STAGE_SINK)
			sim->n_tasks += t->stages[s].parallelism;
	}
	sim->tasks = calloc(sim->n_tasks, sizeof(*sim->tasks));
	if (sim->tasks == NULL)
		return -ENOMEM;
	/* Sinks first: windows need them. */
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *stage = &t->stages[s];
		int r;

		if (stage->kind != WM_STAGE_SINK)
			continue;
		r = wm_sink_open(&sim->stage_sinks[s], &stage->u.sink,
				 &t->stages[stage->inputs[0].stage], err,
				 errlen);
		if (r != 0)
			return r;
	}
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *stage = &t->stages[s];

		if (stage->kind == WM_STAGE_SINK)
			continue;
		for (uint32_t i = 0; i < stage->parallelism; i++, id++) {
			struct sim_task *st = &sim->tasks[id];

			st->sim = sim;
			st->stage = s;
			st->out.frame = sim_frame;
			st->out.result = sim_result;
			st->out.late = sim_late;
			st->task = wm_task_new(t, s, i, &st->out);
			if (st->task == NULL) {
				snprintf(err, errlen,
					 "could not set up subtask %s/%u: %s",
					 stage->name, i, strerror(errno));
				return -errno;
			}
		}
	}
	return 0;
}

/* Wire every output channel of every task to its receiver, and chain
 * sinks and late outputs to windows. */
static int
wire(struct sim *sim, char *err, size_t errlen)
{
	const struct wm_topology *t = sim->topo;

	for (uint32_t id = 0; id < sim->n_tasks; id++) {
		struct sim_task *st = &sim->tasks[id];
		const struct wm_stage *stage = &t->stages[st->stage];
		uint32_t index = id - sim->first_task[st->stage];
		struct wm_topology_edge out[64];
		uint32_t n = wm_topology_out_edges(t, st->stage, out, 64);
		uint32_t e = 0, n_sinks = 0;

		st->edges = wm_task_output_edges(st->task);
		st->dest = calloc(st->edges ? st->edges : 1, sizeof(*st->dest));
		st->sinks = calloc(n + 1, sizeof(*st->sinks));
		if (st->dest == NULL || st->sinks == NULL)
			return -ENOMEM;
		for (uint32_t k = 0; k < n; k++) {
			const struct wm_stage *down = &t->stages[out[k].stage];

			if (down->kind == WM_STAGE_SINK) {
				st->sinks[n_sinks++] =
					sim->stage_sinks[out[k].stage];
				continue;
			}
			uint32_t channels = wm_task_edge_channels(st->task, e);

			st->dest[e] = calloc(channels, sizeof(**st->dest));
			if (st->dest[e] == NULL)
				return -ENOMEM;
			for (uint32_t c = 0; c < channels; c++) {
				/* Forward: the one channel is the subtask
				 * with the same index. */
				uint32_t sub =
					channels == 1 &&
							down->inputs[out[k].input]
									.edge ==
								WM_PARTITION_FORWARD
						? index
						: c;

				st->dest[e][c] = (struct dest){
					sim->first_task[out[k].stage] + sub,
					wm_topology_input_channel(
						t, out[k].stage, out[k].input,
						index)};
			}
			e++;
		}
		if (stage->kind == WM_STAGE_WINDOW &&
		    stage->u.window.late_output != NULL) {
			int r = wm_sink_open_late(&st->late,
						  stage->u.window.late_output,
						  err, errlen);

			if (r != 0)
				return r;
			/* One file per stage: subtask 0 owns it. */
			if (index != 0) {
				wm_sink_close(st->late);
				st->late = sim->tasks[id - index].late;
			}
		}
	}
	return 0;
}

/* Drain every queue until all are empty (rule 3). */
static int
settle(struct sim *sim)
{
	struct queue batch = {0};
	bool moved = true;

	while (moved && !sim->failed) {
		moved = false;
		for (uint32_t id = 0; id < sim->n_tasks; id++) {
			struct sim_task *st = &sim->tasks[id];
			struct queue tmp;

			if (st->in.n == 0)
				continue;
			moved = true;
			/* Take the whole queue: frames it sends to itself
			 * (none today) would wait for the next round. */
			tmp = st->in;
			st->in = batch;
			st->in.n = 0;
			for (size_t i = 0; i < tmp.n; i++)
				if (wm_task_input(st->task,
						  tmp.items[i].channel,
						  &tmp.items[i].frame,
						  sim->now_ns) != 0)
					return -EBADMSG;
			batch = tmp;
		}
	}
	free(batch.items);
	return sim->failed ? -ENOMEM : 0;
}

static void
report(struct sim *sim, struct wm_sim_report *rep)
{
	memset(rep, 0, sizeof(*rep));
	rep->end_ns = sim->now_ns;
	for (uint32_t id = 0; id < sim->n_tasks; id++) {
		struct sim_task *st = &sim->tasks[id];
		const struct wm_window *w = wm_task_window(st->task);

		if (sim->topo->stages[st->stage].kind == WM_STAGE_SOURCE)
			rep->records_read +=
				wm_task_counters(st->task)->records_in;
		if (w == NULL)
			continue;
		const struct wm_window_counters *c = wm_window_counters(w);

		rep->records_windowed += c->records_accepted;
		rep->late_dropped += c->late_records_dropped;
		rep->late_side_output += c->late_records_side_output;
		rep->other_dropped += c->records_ignored + c->records_rejected;
		rep->windows_fired += c->windows_fired;
		rep->windows_fired_late += c->windows_fired_late;
	}
	for (uint32_t s = 0; s < sim->topo->n_stages; s++)
		if (sim->stage_sinks[s] != NULL)
			rep->results_written +=
				wm_sink_results(sim->stage_sinks[s]);
	if (sim->n_delays > 0) {
		size_t n = sim->n_delays;

		qsort(sim->delays, n, sizeof(*sim->delays), by_value);
		rep->fire_delay_p50_ms = sim->delays[(n - 1) / 2];
		rep->fire_delay_p99_ms = sim->delays[(n - 1) * 99 / 100];
		rep->fire_delay_max_ms = sim->delays[n - 1];
	}
}

static int
run(struct sim *sim, char *err, size_t errlen)
{
	bool sources_left = true;
	int r;

	for (uint32_t id = 0; id < sim->n_tasks; id++)
		sim->tasks[id].next_due = 0;
	while (sources_left) {
		int64_t t = INT64_MAX;

		sources_left = false;
		for (uint32_t id = 0; id < sim->n_tasks; id++) {
			struct sim_task *st = &sim->tasks[id];

			if (sim->topo->stages[st->stage].kind ==
				    WM_STAGE_SOURCE &&
			    !wm_task_finished(st->task) && st->next_due < t)
				t = st->next_due;
		}
		if (t == INT64_MAX)
			break; /* every source finished */
		sim->now_ns = t;
		for (uint32_t id = 0; id < sim->n_tasks; id++) {
			struct sim_task *st = &sim->tasks[id];

			if (sim->topo->stages[st->stage].kind !=
				    WM_STAGE_SOURCE ||
			    wm_task_finished(st->task) || st->next_due > t)
				continue;
			uint64_t before =
				wm_task_counters(st->task)->records_in;

			st->next_due = wm_task_run_source(st->task, t);
			/* Rule 1: records that were due at once (an
			 * unlimited rate) cost 1 us each, or time would
			 * never move. */
			if (st->next_due <= t)
				st->next_due =
					t +
					WM_SIM_NS_PER_RECORD *
						(int64_t)(wm_task_counters(
								  st->task)
								  ->records_in -
							  before);
			if (st->next_due <= t)
				st->next_due = t + WM_SIM_NS_PER_RECORD;
			sources_left = true;
		}
		r = settle(sim);
		if (r != 0) {
			snprintf(err, errlen, "%s",
				 r == -ENOMEM ? "out of memory"
					      : "a subtask received a frame it "
						"cannot take");
			return r;
		}
	}
	/* Sources that never become due again (silent for ever, no end)
	 * leave the job unbounded: --sim refuses to spin for ever. */
	for (uint32_t id = 0; id < sim->n_tasks; id++) {
		struct sim_task *st = &sim->tasks[id];

		if (sim->topo->stages[st->stage].kind == WM_STAGE_SOURCE &&
		    !wm_task_finished(st->task)) {
			snprintf(err, errlen,
				 "source \"%s\" never ends: give [job] a "
				 "run length (event_time or records)",
				 sim->topo->stages[st->stage].name);
			return -EINVAL;
		}
	}
	return 0;
}

int
wm_sim_run(const struct wm_topology *topo, struct wm_sim_report *rep, char *err,
	   size_t errlen)
{
	struct sim sim = {.topo = topo};
	int r;

	err[0] = '\0';
	r = build(&sim, err, errlen);
	if (r == 0)
		r = wire(&sim, err, errlen);
	if (r == 0)
		r = run(&sim, err, errlen);
	if (r == 0)
		report(&sim, rep);
	if (r == -ENOMEM && err[0] == '\0')
		snprintf(err, errlen, "out of memory");
	for (uint32_t id = 0; id < sim.n_tasks; id++) {
		struct sim_task *st = &sim.tasks[id];
		uint32_t index = id - sim.first_task[st->stage];

		wm_task_free(st->task);
		for (uint32_t e = 0; st->dest != NULL && e < st->edges; e++)
			free(st->dest[e]);
		free(st->dest);
		free(st->sinks);
		free(st->in.items);
		if (index == 0 && st->late != NULL &&
		    wm_sink_close(st->late) != 0 && r == 0) {
			snprintf(err, errlen, "could not write late output");
			r = -EIO;
		}
	}
	for (uint32_t s = 0; sim.stage_sinks != NULL && s < topo->n_stages; s++)
		if (sim.stage_sinks[s] != NULL &&
		    wm_sink_close(sim.stage_sinks[s]) != 0 && r == 0) {
			snprintf(err, errlen, "could not write sink \"%s\"",
				 topo->stages[s].name);
			r = -EIO;
		}
	free(sim.tasks);
	free(sim.delays);
	free(sim.first_task);
	free(sim.stage_sinks);
	return r;
}
