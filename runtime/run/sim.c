/*
 * sim.c
 *	The --sim driver: tasks, in-memory channels, simulated time (rules in
 *	sim.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "runtime/chart/recorder.h"
#include "runtime/checkpoint/checkpoint_cycle.h"
#include "runtime/checkpoint/checkpoint_store.h"
#include "runtime/checkpoint/dir_lock.h"
#include "runtime/checkpoint/part_commit.h"
#include "lib/units.h"
#include "runtime/observe/alerts.h"
#include "runtime/plan/plan.h"
#include "runtime/restart/restart_strategy.h"
#include "runtime/checkpoint/exactly_once.h"
#include "runtime/run/sim.h"
#include "runtime/run/sim_job.h"
#include "base/log.h"
#include "runtime/io/sink.h"
#include "runtime/source/record_trace.h"
#include "runtime/source/sources.h"
#include "runtime/engine/task.h"

/* Simulated processing cost of a record from an unlimited-rate source. */
#define WM_SIM_NS_PER_RECORD 1000

static void
sim_output_failed(struct sim *sim, const struct wm_sink *sink)
{
	char why[4400];

	wm_sim_failed(sim, -EIO, wm_sink_error(sink, why, sizeof(why)));
}

static void
sim_frame(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	  const struct wm_frame *f)
{
	struct sim_task *st = wm_container_of(out, struct sim_task, out);
	const struct sim_route *to = &st->routes[edge][channel];

	if (wm_sim_queue_frame(to->queue, to->channel, f) != 0)
		wm_sim_failed(st->sim, -ENOMEM, "out of memory");
}

/* A run of records onto its consumer's queue (sim_queue.h). */
static void
sim_records(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	    const struct wm_record *r, uint32_t n)
{
	struct sim_task *st = wm_container_of(out, struct sim_task, out);
	const struct sim_route *to = &st->routes[edge][channel];

	if (wm_sim_queue_records(to->queue, to->channel, r, n) != 0)
		wm_sim_failed(st->sim, -ENOMEM, "out of memory");
}

/* A record onto its consumer's queue, where it joins the run its channel
 * has open there, if nothing came in between (sim_queue.h). */
static void
sim_record(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	   const struct wm_record *r)
{
	sim_records(out, edge, channel, r, 1);
}

static void
sim_result(struct wm_task_out *out, const struct wm_window_result *r,
	   wm_ts_t watermark, int64_t fire_time_ms)
{
	struct sim_task *st = wm_container_of(out, struct sim_task, out);

	for (struct wm_sink **s = st->sinks; s && *s && !st->sim->error; s++)
		if (wm_sink_result(*s, r, watermark, fire_time_ms,
				   st->sub->index) != 0)
			sim_output_failed(st->sim, *s);
}

static void
sim_pair(struct wm_task_out *out, const struct wm_join_result *r,
	 wm_ts_t watermark, int64_t fire_time_ms)
{
	struct sim_task *st = wm_container_of(out, struct sim_task, out);

	for (struct wm_sink **s = st->sinks; s && *s && !st->sim->error; s++)
		if (wm_sink_pair(*s, r, watermark, fire_time_ms,
				 st->sub->index) != 0)
			sim_output_failed(st->sim, *s);
}

static void
sim_late(struct wm_task_out *out, unsigned k, const struct wm_record *r)
{
	struct sim_task *st = wm_container_of(out, struct sim_task, out);

	if (st->late[k] != NULL && !st->sim->error &&
	    wm_sink_late(st->late[k], r) != 0)
		sim_output_failed(st->sim, st->late[k]);
}

/* Tasks exist for every subtask of the plan (every stage but sinks, which
 * are chained to windows); sinks open first, windows need them. */

static int
build(struct sim *sim, char *err, size_t errlen)
{
	const struct wm_topology *t = sim->topo;

	sim->plan = wm_plan_new(t);
	sim->stage_sinks = calloc(t->n_stages, sizeof(*sim->stage_sinks));
	sim->late_sinks = calloc((size_t)t->n_stages * WM_STAGE_LATE_OUTPUTS,
				 sizeof(*sim->late_sinks));
	if (sim->plan == NULL || sim->stage_sinks == NULL ||
	    sim->late_sinks == NULL)
		return -ENOMEM;
	sim->n_tasks = sim->plan->n_subtasks;
	sim->tasks = calloc(sim->n_tasks, sizeof(*sim->tasks));
	sim->metrics = calloc(1, wm_plan_metrics_bytes(sim->plan));
	if (sim->tasks == NULL || sim->metrics == NULL)
		return -ENOMEM;
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *stage = &t->stages[s];
		int r = 0;

		if (stage->kind == WM_STAGE_SOURCE &&
		    stage->u.source.record != NULL)
			r = wm_sink_open_recording(
				&sim->stage_sinks[s], stage,
				stage->u.source.record,
				wm_replay_stage_keys(sim->traces, t, s, NULL),
				wm_record_trace_columns(stage,
							sim->traces != NULL
								? sim->traces[s]
								: NULL),
				err, errlen);
		else if (stage->kind == WM_STAGE_SINK &&
			 t->stages[stage->inputs[0].stage].kind == WM_STAGE_MAP)
			r = wm_sources_open_map_sink(t, s, &sim->stage_sinks[s],
						     err, errlen);
		else if (stage->kind == WM_STAGE_SINK)
			r = wm_sink_open(
				&sim->stage_sinks[s], stage,
				&t->stages[stage->inputs[0].stage],
				wm_replay_stage_keys(sim->traces, t, s, NULL),
				err, errlen);
		for (unsigned k = 0; r == 0 && k < WM_STAGE_LATE_OUTPUTS; k++)
			if (wm_stage_late_output(stage, k) != NULL)
				r = wm_sink_open_late(
					&sim->late_sinks[wm_late_sink_index(s,
									    k)],
					stage, k,
					wm_replay_stage_keys(sim->traces, t, s,
							     NULL),
					err, errlen);
		if (r != 0)
			return wm_sim_output_error(r);
	}
	for (uint32_t id = 0; id < sim->n_tasks; id++) {
		struct sim_task *st = &sim->tasks[id];

		st->sim = sim;
		st->sub = &sim->plan->subtasks[id];
		st->out.frame = sim_frame;
		/* A record queues as its frame: --sim stages nothing, so
		 * every frame is in its consumer's queue, in the order
		 * sent, the moment it is sent. */
		st->out.record = sim_record;
		st->out.records = sim_records;
		st->out.result = sim_result;
		st->out.pair = sim_pair;
		st->out.late = sim_late;
		st->out.snapshot = wm_sim_snapshot;
		st->task = wm_sources_new_task(
			t, sim->plan, id, &st->out, sim->metrics,
			&(struct wm_sources_input){
				.trace = sim->traces[st->sub->stage],
				.traces = sim->traces},
			t->stages[st->sub->stage].kind == WM_STAGE_SOURCE
				? sim->stage_sinks
				: NULL);
		if (st->task == NULL) {
			int e = errno;

			snprintf(err, errlen,
				 "could not set up subtask %s/%u: %s",
				 t->stages[st->sub->stage].name, st->sub->index,
				 strerror(e));
			return -e;
		}
		/* --sim has no wall clock: a Kafka job cannot run here. */
		wm_task_set_clock_zero(
			st->task, wm_sources_clock_zero_ms(t, sim->traces, 0));
	}
	return 0;
}

/* Chain sinks and late outputs to the windows that feed them: the
 * stage's file or stream, or with exactly-once, parts of the subtask's
 * own. */
/* Task st's routes (sim_job.h): one allocation, the edges' arrays
 * first, then every edge's channels. */
static int
routes_set_up(struct sim *sim, struct sim_task *st)
{
	const struct wm_plan_subtask *sub = st->sub;
	size_t n = 0;
	struct sim_route *next;

	for (uint32_t e = 0; e < sub->n_edges; e++)
		n += sub->edges[e].width;
	st->routes = malloc(sub->n_edges * sizeof(*st->routes) +
			    n * sizeof(**st->routes) + 1);
	if (st->routes == NULL)
		return -ENOMEM;
	next = (struct sim_route *)(st->routes + sub->n_edges);
	for (uint32_t e = 0; e < sub->n_edges; e++) {
		const struct wm_plan_edge *pe = &sub->edges[e];

		st->routes[e] = next;
		for (uint32_t c = 0; c < pe->width; c++) {
			const struct wm_plan_channel *ch =
				&sim->plan->channels[pe->channels[c]];

			next[c].queue = &sim->tasks[ch->consumer].in;
			next[c].channel = ch->input_channel;
		}
		next += pe->width;
	}
	return 0;
}

static int
wire(struct sim *sim, char *err, size_t errlen)
{
	const struct wm_topology *t = sim->topo;

	for (uint32_t id = 0; id < sim->n_tasks; id++) {
		struct sim_task *st = &sim->tasks[id];
		int r;

		st->sinks = calloc(st->sub->n_sinks + 1, sizeof(*st->sinks));
		if (st->sinks == NULL || routes_set_up(sim, st) != 0)
			return -ENOMEM;
		wm_window_parts_init(&st->parts, t, st->sub,
				     sim->commit != NULL
					     ? wm_part_commit_run(sim->commit)
					     : 0);
		for (uint32_t k = 0; k < st->sub->n_sinks; k++) {
			st->sinks[k] = sim->stage_sinks[st->sub->sinks[k]];
			wm_window_parts_add(&st->parts, &st->sinks[k],
					    st->sub->sinks[k], -1,
					    sim->output_of);
		}
		for (unsigned k = 0; k < WM_STAGE_LATE_OUTPUTS; k++) {
			st->late[k] = sim->late_sinks[wm_late_sink_index(
				st->sub->stage, k)];
			if (st->late[k] != NULL)
				wm_window_parts_add(&st->parts, &st->late[k],
						    st->sub->stage, (int)k,
						    sim->output_of);
		}
		r = wm_window_parts_open(
			&st->parts,
			sim->cycle != NULL
				? wm_checkpoint_cycle_first_epoch(sim->cycle)
				: 0,
			sim->traces, NULL, err, errlen);
		if (r != 0)
			return wm_sim_output_error(r);
	}
	return 0;
}

/* --sim refuses to run source `stage` for ever: a topology error, at the
 * source's section as the loader's are (exit 78). */
static int
endless(const struct wm_topology *t, uint32_t stage, char *err, size_t errlen)
{
	const struct wm_stage *st = &t->stages[stage];

	/* A trace ends by itself, unless alignment holds a partition's
	 * records back for ever: its partitions end together, so the others
	 * hold the group's watermark where their records ended. */
	if (st->u.source.kind == WM_SOURCE_REPLAY)
		snprintf(err, errlen,
			 "%s:%d:%d: source \"%s\" never ends: watermark "
			 "alignment holds back records of a partition for "
			 "ever (a trace's partitions end together, and the "
			 "others' watermark stays where their records end, "
			 "more than watermark_alignment_max_drift behind)",
			 t->file, st->line, st->col, st->name);
	else if (t->job.records == UINT64_MAX)
		snprintf(err, errlen,
			 "%s:%d:%d: source \"%s\" never ends: give [job] a "
			 "run length (event_time, processing_time or records) "
			 "to run it with --sim",
			 t->file, st->line, st->col, st->name);
	else
		snprintf(err, errlen,
			 "%s:%d:%d: source \"%s\" never ends: a partition "
			 "silent for ever, or held back for ever by watermark "
			 "alignment, never reaches [job] records = %" PRIu64
			 "; give [job] event_time or processing_time to run "
			 "it with --sim",
			 t->file, st->line, st->col, st->name, t->job.records);
	return -EINVAL;
}

/*
 * Alerts on simulated time. The job is sampled as a real run's observer
 * samples it, on a grid of processing time, every the smallest duration
 * of any alert tier (or watermark interval, for a tier by count, which a
 * partition going idle at a tick reaches); a sample at time s sees the job as it stood just
 * before s (after every instant before s). Besides, a sample is taken
 * exactly when an episode going on reaches its next tier
 * (wm_alerts_next_due()): an episode is seen at the first grid point
 * after it began, before its first tier is due, and every tier is then
 * raised at its duration exactly. A grid point with no instant run since
 * the sample before would see nothing new and is left out, so silent
 * years cost nothing. Alerts are printed on stderr as they are raised.
 */
static int
alerts_set_up(struct sim *sim)
{
	const struct wm_job_conf *job = &sim->topo->job;

	sim->changed_at_ns = -1;
	if (!wm_alerts_configured(job))
		return 0;
	sim->sample_every_ns = INT64_MAX;
	for (int k = 0; k < WM_ALERT_KINDS; k++) {
		/* A count is reached when a partition goes idle, at a
		 * periodic watermark tick: a sample every interval sees
		 * each tick's count. */
		int64_t every =
			wm_alert_kind_counts((enum wm_alert_kind)k)
				? wm_ms_to_ns(job->watermark_interval_ms)
				: job->alerts[k].after_ms[0] * 1000000;

		if (job->alerts[k].n_tiers > 0 && every > 0 &&
		    every < sim->sample_every_ns)
			sim->sample_every_ns = every;
	}
	/* No periodic watermarks and only counts: a sample a second. */
	if (sim->sample_every_ns == INT64_MAX)
		sim->sample_every_ns = 1000000000;
	sim->alerts = wm_alerts_new(sim->topo, sim->plan);
	return sim->alerts != NULL ? 0 : -ENOMEM;
}

/* One sample at processing time `s`: every block published as of s. */
static int
watch_at(struct sim *sim, int64_t s)
{
	struct wm_snapshot *snap;
	uint32_t raised, n;
	const struct wm_alert *list;

	for (uint32_t id = 0; id < sim->n_tasks; id++)
		wm_task_publish(sim->tasks[id].task, s);
	snap = wm_snapshot_take(sim->plan, sim->metrics, sim->snap, s, s);
	if (snap == NULL)
		return -ENOMEM;
	wm_snapshot_free(sim->snap);
	sim->snap = snap;
	raised = wm_alerts_feed(sim->alerts, snap);
	list = wm_alerts_list(sim->alerts, &n);
	/* Those past the list's room are only counted (alerts.h). */
	for (uint32_t i = n - (raised < n ? raised : n); i < n; i++) {
		char at[32], what[512];

		wm_log("wmrun: processing time %s: %s",
		       wm_units_format_duration(s, at, sizeof(at)),
		       wm_alert_format(&list[i], sim->topo, what,
				       sizeof(what)));
	}
	return 0;
}

/* Every sample due at or before `t`, before instant t runs. */
static int
watch_until(struct sim *sim, int64_t t)
{
	while (sim->alerts != NULL) {
		int64_t s = wm_alerts_next_due(sim->alerts);
		int r;

		if (sim->changed_at_ns >= 0) {
			int64_t every = sim->sample_every_ns;
			int64_t grid = sim->changed_at_ns / every * every;

			/* The first grid point after that instant. */
			grid = grid <= INT64_MAX - every ? grid + every
							 : INT64_MAX;
			if (grid < s)
				s = grid;
		}
		if (s > t)
			return 0;
		if ((r = watch_at(sim, s)) != 0)
			return r;
		sim->changed_at_ns = -1;
	}
	return 0;
}

/*
 * The report's samples (rule 7). A sample at s, as an alert's, sees the
 * job as it stood just before s; one is taken at 0 before anything ran
 * (the plots start at 00:00), then at the first grid point after each
 * instant that ran, and at the end. The grid is the recorder's buckets,
 * which widen as the job grows long (recorder.h): a finer sample would
 * only merge into the bucket of the one before. Publishing the blocks
 * changes no task, so the job's output and summary are those of a run
 * without samples.
 */
static int
record_at(struct sim *sim, int64_t s)
{
	struct wm_snapshot *snap;

	for (uint32_t id = 0; id < sim->n_tasks; id++)
		wm_task_publish(sim->tasks[id].task, s);
	snap = wm_snapshot_take(sim->plan, sim->metrics, sim->rec_snap, s, s);
	if (snap == NULL)
		return -ENOMEM;
	wm_snapshot_free(sim->rec_snap);
	sim->rec_snap = snap;
	wm_recorder_feed(sim->rec, snap);
	return 0;
}

/* The report's sample due at or before `t`, before instant t runs. */
static int
record_until(struct sim *sim, int64_t t)
{
	int64_t s;
	int r;

	if (sim->rec == NULL || sim->rec_changed_at_ns < 0)
		return 0;
	s = wm_recorder_next_due(sim->rec, sim->rec_changed_at_ns);
	if (s > t)
		return 0;
	if ((r = record_at(sim, s)) != 0)
		return r;
	sim->rec_changed_at_ns = -1;
	return 0;
}

/*
 * Checkpoint alignment (rule 8): a channel blocked by its task's barrier
 * handler is not drained; its frames stay queued, in order, until the
 * alignment ends. Once a frame of a channel is held in a round, so are
 * the channel's later frames of that round, even if the alignment ended
 * meanwhile: they go in the next round, after those held, in order.
 */
static void
clear_holds(struct sim_task *st)
{
	if (st->holding != NULL)
		memset(st->holding, 0,
		       wm_task_input_channels(st->task) * sizeof(*st->holding));
}

static bool
held(struct sim_task *st, const struct wm_sim_item *q)
{
	if (st->holding == NULL)
		return false;
	if (!st->holding[q->channel] &&
	    wm_task_input_blocked(st->task, q->channel))
		st->holding[q->channel] = true;
	return st->holding[q->channel];
}

/* Item `q` of queue `from` into task st: a run in one call, a frame as
 * it is. 0 or the task's error. */
static int
take(struct sim *sim, struct sim_task *st, const struct wm_sim_queue *from,
     const struct wm_sim_item *q)
{
	if (q->n > 0)
		return wm_task_input_run(st->task, q->channel,
					 wm_sim_queue_run(from, q), q->n,
					 sim->now_ns);
	return wm_task_input(st->task, q->channel, &q->u.frame, sim->now_ns);
}

/* Task st's queue, taken whole: what it sends to itself (nothing today)
 * would wait for the next round, and so do the items of a channel held
 * back (rule 8), in their order. Whether anything was taken. */
static bool
drain(struct sim *sim, struct sim_task *st, struct wm_sim_queue *spare)
{
	struct wm_sim_queue tmp = st->in;
	bool progress = false;

	clear_holds(st);
	st->in = *spare;
	wm_sim_queue_clear(&st->in);
	for (size_t i = 0; i < tmp.n && !sim->error; i++) {
		const struct wm_sim_item *q = &tmp.items[i];
		char why[400];
		int r;

		if (held(st, q)) {
			r = q->n > 0 ? wm_sim_queue_records(
					       &st->in, q->channel,
					       wm_sim_queue_run(&tmp, q), q->n)
				     : wm_sim_queue_frame(&st->in, q->channel,
							  &q->u.frame);
			if (r != 0)
				wm_sim_failed(sim, -ENOMEM, "out of memory");
			continue;
		}
		progress = true;
		r = take(sim, st, &tmp, q);
		if (r == 0)
			continue;
		snprintf(why, sizeof(why), "subtask %s/%u: %s",
			 sim->topo->stages[st->sub->stage].name, st->sub->index,
			 r == -ENOMEM ? wm_task_why(st->task)
				      : "a frame it cannot take");
		/* A frame the task refuses is --sim's own bug, as a corrupt
		 * frame is a real run's (70): -EPROTO, not a trace's
		 * -EBADMSG. */
		wm_sim_failed(sim, r == -ENOMEM ? r : -EPROTO, why);
	}
	*spare = tmp;
	return progress;
}

/* Drain every queue until all are empty, or hold only frames of blocked
 * channels (rules 3 and 8). */
static int
settle(struct sim *sim)
{
	bool moved = true;

	while (moved && !sim->error) {
		moved = false;
		for (uint32_t id = 0; id < sim->n_tasks; id++) {
			struct sim_task *st = &sim->tasks[id];

			if (st->in.n > 0 && drain(sim, st, &sim->spare))
				moved = true;
		}
	}
	return sim->error;
}

/* An unfinished source of an alignment group whose next event was taken
 * from the source itself (not a charge for records still due): a report
 * of another member may have changed it. */
static bool
follows_reports(const struct sim *sim, const struct sim_task *st)
{
	return wm_sim_is_source(sim, st) && st->aligned && !st->charged &&
	       !wm_task_finished(st->task);
}

/* Whether an output source `st` writes as it emits (its recording, its
 * maps' sinks: wm_sources_feeds()) failed a write: the job stops, as for
 * a sink. */
static bool
sim_recording_failed(struct sim_task *st)
{
	const struct wm_topology *t = st->sim->topo;

	for (uint32_t d = 0; d < t->n_stages; d++) {
		struct wm_sink *out = st->sim->stage_sinks[d];

		if (out != NULL && wm_sink_failed(out) &&
		    wm_sources_feeds(t, st->sub->stage, d)) {
			sim_output_failed(st->sim, out);
			return true;
		}
	}
	return false;
}

/* Run source `st` at instant t (rule 2) and work out when it is next due. */
static void
sim_run_source(struct sim_task *st, int64_t t)
{
	uint64_t before = wm_task_counters(st->task)->records_in;
	int64_t next;

	/* Ticks and alignment updates due before t that change nothing
	 * count as run on time (rule 1). */
	wm_task_source_skip(st->task, t);
	next = wm_task_run_source(st->task, t);
	if (sim_recording_failed(st))
		return;
	st->charged = next <= t;
	if (!st->charged) {
		st->next_due = wm_task_source_next_event(st->task, t);
		return;
	}
	/* Rule 1: records that were due at once (an unlimited rate) cost 1 us
	 * each, or time would never move. Ticks and updates that fall due
	 * meanwhile run late, at that time. */
	st->next_due =
		t + WM_SIM_NS_PER_RECORD *
			    (int64_t)(wm_task_counters(st->task)->records_in -
				      before);
	if (st->next_due <= t)
		st->next_due = t + WM_SIM_NS_PER_RECORD;
}

/*
 * Stopping (a real run's stop, on simulated time): the first SIGINT,
 * SIGTERM or SIGHUP sets stop_signal, which the driver reads between
 * instants; then every source ends its stream with END(STOP) (no MAX
 * watermark: open windows stay unfired), the queues drain, and the job
 * ends with its figures as of the last instant. A signal ignored when the
 * job starts (nohup's SIGHUP, a background job's SIGINT) stays ignored. A
 * second signal, if the stop ever hangs (on an output nobody reads), ends
 * wmrun as if it had not been caught.
 */
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define N_STOP_SIGNALS (sizeof(stop_signals) / sizeof(*stop_signals))

static volatile sig_atomic_t stop_signal; /* 0: none yet */

static void
on_stop_signal(int sig)
{
	if (stop_signal == 0) {
		stop_signal = sig;
		return;
	}
	/* Blocked while this handler runs: delivered when it returns. */
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Catch the stop signals that are not ignored; `old` keeps what they
 * were, for restore_signals(). */
static void
catch_signals(struct sigaction old[N_STOP_SIGNALS])
{
	struct sigaction sa = {.sa_handler = on_stop_signal,
			       .sa_flags = SA_RESTART};

	stop_signal = 0;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < N_STOP_SIGNALS; i++) {
		sigaction(stop_signals[i], NULL, &old[i]);
		if (old[i].sa_handler != SIG_IGN)
			sigaction(stop_signals[i], &sa, NULL);
	}
}

/* A signal that comes after the job ended changes nothing any more. */
static void
restore_signals(const struct sigaction old[N_STOP_SIGNALS])
{
	for (size_t i = 0; i < N_STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &old[i], NULL);
}

/* Stop every source as a real run's stop does (wm_task_stop_source());
 * settle() then takes END(STOP) through the job. */
static void
stop(struct sim *sim)
{
	for (uint32_t id = 0; id < sim->n_tasks; id++) {
		struct sim_task *st = &sim->tasks[id];

		if (wm_sim_is_source(sim, st))
			wm_task_stop_source(st->task);
	}
}

/* settle(), saying what failed. */
static int
settle_instant(struct sim *sim, char *err, size_t errlen)
{
	int r = settle(sim);

	if (r != 0)
		snprintf(err, errlen, "%s", sim->why);
	return r;
}

/* The next instant: the earliest event of a source, a checkpoint or the
 * crash; while the job is down, the restore alone. INT64_MAX: none. */
static int64_t
next_instant(const struct sim *sim)
{
	int64_t t = INT64_MAX;

	if (sim->restore_ns != INT64_MAX)
		return sim->restore_ns;
	for (uint32_t id = 0; id < sim->n_tasks; id++) {
		const struct sim_task *st = &sim->tasks[id];

		if (wm_sim_is_source(sim, st) && !wm_task_finished(st->task) &&
		    st->next_due < t)
			t = st->next_due;
	}
	/* Every source finished, or none can ever do anything again
	 * (refused by run()): nothing else is due either. */
	if (t == INT64_MAX)
		return t;
	/* The timers of processing-time windows (rule 10). */
	for (uint32_t id = 0; id < sim->n_tasks; id++) {
		int64_t due = wm_task_timers_due(sim->tasks[id].task);

		if (due < t)
			t = due;
	}
	if (sim->cycle != NULL &&
	    wm_checkpoint_cycle_next_trigger(sim->cycle) < t)
		t = wm_checkpoint_cycle_next_trigger(sim->cycle);
	if (wm_sim_checkpoint_deadline(sim) < t)
		t = wm_sim_checkpoint_deadline(sim);
	return sim->fail_ns < t ? sim->fail_ns : t;
}

/*
 * Rule 9: the backlogs of sources restored with checkpoint_watermarks, at
 * t, before anything else runs at t: again and again, the sources due at
 * the earliest instant of a backlog run it (in subtask order), and the
 * instant settles, until no source due has a backlog instant before t.
 * Each stays due at t, where its own instant t then runs as any source's.
 */
static int
replay_backlogs(struct sim *sim, int64_t t, char *err, size_t errlen)
{
	for (;;) {
		int64_t first = t;

		for (uint32_t id = 0; id < sim->n_tasks; id++) {
			struct sim_task *st = &sim->tasks[id];
			int64_t at;

			if (!wm_sim_is_source(sim, st) ||
			    wm_task_finished(st->task) || st->next_due > t)
				continue;
			at = wm_task_source_backlog_instant(st->task, t);
			if (at < first)
				first = at;
		}
		if (first >= t)
			return 0;
		for (uint32_t id = 0; id < sim->n_tasks; id++) {
			struct sim_task *st = &sim->tasks[id];

			if (!wm_sim_is_source(sim, st) ||
			    wm_task_finished(st->task) || st->next_due > t ||
			    wm_task_source_backlog_instant(st->task, t) !=
				    first)
				continue;
			(void)wm_task_run_source(st->task, t);
			if (sim_recording_failed(st))
				return 0;
		}
		int r = settle_instant(sim, err, errlen);

		if (r != 0)
			return r;
	}
}

/*
 * What comes at `t` before the sources run: rule 9's crash (before
 * anything else at t) and the restore once the restart strategy's delay
 * is over, nothing running in between; then rule 8's checkpoint past its
 * timeout, aborted at its deadline before the next one may start, and a
 * checkpoint due at t, which starts before the sources run at t. 1 while
 * the job is down (or the strategy failed it: sim->gave_up): nothing runs
 * at t; 0, or a negative errno with a message.
 */
static int
before_sources(struct sim *sim, int64_t t, char *err, size_t errlen)
{
	int r;

	if (sim->fail_ns <= t && (r = wm_sim_crash(sim, err, errlen)) != 0)
		return r;
	if (sim->gave_up ||
	    (sim->restore_ns > t && sim->restore_ns != INT64_MAX))
		return 1;
	if (sim->restore_ns <= t && (r = wm_sim_restore(sim, err, errlen)) != 0)
		return r;
	if (wm_sim_checkpoint_deadline(sim) <= t &&
	    (r = wm_sim_time_out_checkpoint(sim, t, err, errlen)) != 0)
		return r;
	if (sim->cycle != NULL &&
	    (r = wm_sim_trigger_checkpoint(sim, t, err, errlen)) != 0)
		return r;
	return 0;
}

/* Rule 10: the processing-time windows whose timers are due at `t` fire
 * them, in subtask order, before the sources run at t: the windows they
 * fire end before t, and what the sources emit at t goes into the
 * windows of t. */
static void
run_timers_at(struct sim *sim, int64_t t)
{
	for (uint32_t id = 0; id < sim->n_tasks; id++) {
		struct wm_task *task = sim->tasks[id].task;

		if (wm_task_timers_due(task) <= t)
			wm_task_run_timers(task, t);
	}
}

/* The sources due at `t`, in subtask order (rule 2: a member of an
 * alignment group that runs after another at t reads its report of t;
 * those that ran before a report of t, or ran at t themselves, read it at
 * their next update after t). */
static void
run_sources_at(struct sim *sim, int64_t t)
{
	bool reported = false; /* an aligned source ran at t */

	for (uint32_t id = 0; id < sim->n_tasks; id++) {
		struct sim_task *st = &sim->tasks[id];

		if (!wm_sim_is_source(sim, st) || wm_task_finished(st->task))
			continue;
		if (reported && follows_reports(sim, st))
			st->next_due = wm_task_source_next_event(st->task, t);
		if (st->next_due > t)
			continue;
		sim_run_source(st, t);
		reported = reported || st->aligned;
	}
	for (uint32_t id = 0; reported && id < sim->n_tasks; id++) {
		struct sim_task *st = &sim->tasks[id];

		if (follows_reports(sim, st))
			st->next_due =
				wm_task_source_next_event(st->task, t + 1);
	}
}

static int
run(struct sim *sim, char *err, size_t errlen)
{
	int r;

	for (uint32_t id = 0; id < sim->n_tasks; id++)
		sim->tasks[id].next_due = 0;
	for (;;) {
		int64_t t = next_instant(sim);

		/* A signal now finds the job over. */
		if (t == INT64_MAX)
			break;
		/* Rule 5: between instants. */
		if (stop_signal != 0) {
			sim->stopped_by = stop_signal;
			stop(sim);
			return settle_instant(sim, err, errlen);
		}
		if (watch_until(sim, t) != 0 || record_until(sim, t) != 0) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		sim->now_ns = t;
		r = before_sources(sim, t, err, errlen);
		if (r < 0 || sim->gave_up)
			return r < 0 ? r : 0;
		if (r > 0)
			continue; /* down: nothing ran at t */
		r = replay_backlogs(sim, t, err, errlen);
		if (r != 0)
			return r;
		run_timers_at(sim, t);
		run_sources_at(sim, t);
		r = settle_instant(sim, err, errlen);
		if (r != 0)
			return r;
		wm_sim_watch_catch_up(sim);
		sim->changed_at_ns = t;
		sim->rec_changed_at_ns = t;
	}
	/* Sources that can never do anything again (silent for ever, or
	 * held back for ever, and no end) leave the job unbounded: --sim
	 * refuses to spin for ever. */
	for (uint32_t id = 0; id < sim->n_tasks; id++) {
		struct sim_task *st = &sim->tasks[id];

		if (wm_sim_is_source(sim, st) && !wm_task_finished(st->task))
			return endless(sim->topo, st->sub->stage, err, errlen);
	}
	return 0;
}

/* Simulated time runs as fast as it can: a job without an end would never
 * return. (A real run of it is a stream job, stopped with Ctrl-C.)
 * Replayed traces and Nexmark streams end by themselves. 0, or -EINVAL
 * with err set. */
static int
refuse_endless(const struct wm_topology *topo, char *err, size_t errlen)
{
	for (uint32_t s = 0; s < topo->n_stages; s++)
		if (topo->stages[s].kind == WM_STAGE_SOURCE &&
		    topo->stages[s].u.source.kind != WM_SOURCE_REPLAY &&
		    topo->stages[s].u.source.kind != WM_SOURCE_NEXMARK &&
		    topo->job.event_time_ms == INT64_MAX &&
		    topo->job.processing_time_ms == INT64_MAX &&
		    topo->job.records == UINT64_MAX)
			return endless(topo, s, err, errlen);
	return 0;
}

/* The traces (first, as a real run reads them: a bad one is reported once
 * and leaves no output behind), the tasks, alignment, the outputs. */
static int
sim_set_up(struct sim *sim, char *err, size_t errlen)
{
	const struct wm_topology *topo = sim->topo;
	int r = wm_replay_read_all(topo, &sim->traces, err, errlen);

	/* The checkpoint directory is this job's before any output is made
	 * (dir_lock.h): -EBUSY another job holds it; a lock file that
	 * cannot be made is an output error. */
	if (r == 0 && topo->job.checkpoint_interval_ms != INT64_MAX &&
	    (r = wm_dir_lock_take(topo->job.checkpoint_dir, true, &sim->lock_fd,
				  err, errlen)) != 0 &&
	    r != -EBUSY)
		r = wm_sim_output_error(r);
	if (r == 0)
		r = build(sim, err, errlen);
	/* Sources of an alignment group read each other's reports from
	 * their blocks, as the worker processes do in the segment. */
	for (uint32_t id = 0; r == 0 && id < sim->n_tasks; id++) {
		struct sim_task *st = &sim->tasks[id];

		r = wm_task_align(st->task, sim->metrics);
		st->aligned = wm_plan_alignment_peers(sim->plan, topo, id, NULL,
						      0) > 0;
	}
	if (r == 0)
		r = alerts_set_up(sim);
	if (r == 0)
		r = wm_sim_checkpoints_set_up(sim, err, errlen);
	return r == 0 ? wire(sim, err, errlen) : r;
}

/* Every subtask's figures as of the end of the job (or the failure of an
 * output or of memory, `r` < 0), into rep. The status, now 128 + n for
 * a job stopped by signal n. */
static int
sim_summarize(struct sim *sim, int r, int64_t start, struct wm_job_report *rep,
	      char *err, size_t errlen)
{
	int c;

	for (uint32_t id = 0; id < sim->n_tasks; id++)
		wm_task_publish(sim->tasks[id].task, sim->now_ns);
	/* The report's last sample: the job as it ended. */
	if (sim->rec != NULL && record_at(sim, sim->now_ns) != 0 && r == 0)
		r = -ENOMEM;
	c = wm_report_collect(rep, sim->topo, sim->plan, sim->metrics,
			      sim->now_ns, wm_monotonic_ns() - start, true);
	rep->failed = r < 0;
	rep->checkpointing = sim->cycle != NULL;
	rep->checkpoints = sim->checkpoints;
	if (sim->cycle != NULL)
		rep->checkpoints.tally = *wm_checkpoint_cycle_tally(sim->cycle);
	if (c == 0 && sim->alerts != NULL) {
		uint32_t n;
		const struct wm_alert *list = wm_alerts_list(sim->alerts, &n);

		c = wm_report_set_alerts(rep, list, n,
					 wm_alerts_raised(sim->alerts));
	}
	if (r == 0)
		r = c;
	if (r == 0 && sim->stopped_by != 0) {
		/* As a real run that was stopped: 128 + n, the summary as
		 * of the stop. */
		rep->stopped = true;
		snprintf(err, errlen, "stopped by signal %d: %s",
			 sim->stopped_by, strsignal(sim->stopped_by));
		r = 128 + sim->stopped_by;
	}
	return r;
}

/* The tasks freed and the outputs closed: a stop (128 + n) keeps its
 * results, a failure (< 0) only those it wrote. The status, -EIO if a
 * last write failed. */
static int
sim_tear_down(struct sim *sim, int r, char *err, size_t errlen)
{
	const struct wm_topology *topo = sim->topo;
	char why[512];

	if (sim->commit != NULL)
		r = wm_sim_end_outputs(sim, r, err, errlen);
	for (uint32_t id = 0; id < sim->n_tasks; id++) {
		struct sim_task *st = &sim->tasks[id];

		wm_task_free(st->task);
		free(st->holding);
		free(st->sinks);
		wm_sim_queue_free(&st->in);
		free(st->routes);
	}
	for (uint32_t i = 0; sim->stage_sinks != NULL && sim->late_sinks &&
			     i < (1 + WM_STAGE_LATE_OUTPUTS) * topo->n_stages;
	     i++)
		if (wm_sink_close(i < topo->n_stages
					  ? sim->stage_sinks[i]
					  : sim->late_sinks[i - topo->n_stages],
				  r < 0, why, sizeof(why)) != 0 &&
		    r == 0) {
			snprintf(err, errlen, "%s", why);
			r = -EIO;
		}
	wm_sim_queue_free(&sim->spare);
	free(sim->tasks);
	free(sim->metrics);
	wm_snapshot_free(sim->snap);
	wm_snapshot_free(sim->rec_snap);
	wm_alerts_free(sim->alerts);
	/* A checkpoint cut short by the job's end (a stop, a failure) is
	 * removed; were that to fail, the next recovery skips it anyway. */
	if (sim->cycle != NULL)
		(void)wm_checkpoint_cycle_give_up(
			sim->cycle, WM_CHECKPOINT_CUT_SHORT, why, sizeof(why));
	wm_checkpoint_cycle_free(sim->cycle);
	free(sim->crash_watermarks);
	wm_plan_free(sim->plan);
	free(sim->stage_sinks);
	free(sim->late_sinks);
	free(sim->output_of);
	wm_replay_free_all(sim->traces, topo->n_stages);
	wm_dir_lock_release(sim->lock_fd); /* after the last file closed */
	return r;
}

int
wm_sim_run(const struct wm_topology *topo, struct wm_job_report *rep, char *err,
	   size_t errlen)
{
	return wm_sim_run_recorded(topo, -1, NULL, rep, err, errlen);
}

/* The report's recorder, sampled first at 0 before anything ran. */
static int
recorder_set_up(struct sim *sim, int64_t every_ns)
{
	sim->rec_changed_at_ns = -1;
	sim->rec = wm_recorder_new(
		sim->plan, wm_recorder_first_step_ns(sim->topo, every_ns),
		WM_RECORDER_BUCKETS,
		wm_ms_to_ns(sim->topo->job.stall_threshold_ms));
	if (sim->rec == NULL)
		return -ENOMEM;
	return record_at(sim, 0);
}

int
wm_sim_run_recorded(const struct wm_topology *topo, int64_t every_ns,
		    struct wm_recorder **rec, struct wm_job_report *rep,
		    char *err, size_t errlen)
{
	struct sim sim = {.topo = topo,
			  .lock_fd = -1,
			  .fail_ns = INT64_MAX,
			  .restore_ns = INT64_MAX};
	int64_t start = wm_monotonic_ns();
	struct sigaction old[N_STOP_SIGNALS];
	bool ran;
	int r;

	err[0] = '\0';
	r = refuse_endless(topo, err, errlen);
	if (r != 0)
		return r;
	r = sim_set_up(&sim, err, errlen);
	if (r == 0 && rec != NULL)
		r = recorder_set_up(&sim, every_ns);
	ran = r == 0;
	/* Caught from here until every output is closed, so that a stop
	 * never cuts one short; before, the set-up stays interruptible. */
	catch_signals(old);
	if (r == 0)
		r = run(&sim, err, errlen);
	if (ran && (r == 0 || sim.error != 0))
		r = sim_summarize(&sim, r, start, rep, err, errlen);
	if (r == 0 && sim.gave_up) {
		/* The restart strategy failed the job at the crash: a real
		 * run's status for a failed worker, err already saying why. */
		rep->failed = true;
		r = 1;
	}
	if (r == -ENOMEM && err[0] == '\0')
		snprintf(err, errlen, "out of memory");
	r = sim_tear_down(&sim, r, err, errlen);
	if (r < 0 && rep->subtasks != NULL)
		rep->failed = true; /* the last writes failed */
	restore_signals(old);
	if (rec != NULL)
		*rec = sim.rec;
	return r;
}
