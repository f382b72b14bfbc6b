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
#include "base/log.h"
#include "runtime/io/sink.h"
#include "runtime/source/sources.h"
#include "runtime/engine/task.h"

/* Simulated processing cost of a record from an unlimited-rate source. */
#define WM_SIM_NS_PER_RECORD 1000

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
	const struct wm_plan_subtask *sub; /* its place in the plan */
	struct queue in;
	int64_t next_due;	/* sources: when to run it next */
	bool charged;		/* next_due pays for records (rule 1) */
	bool aligned;		/* a source of an alignment group */
	struct wm_sink **sinks; /* chained sinks of a window, NULL-ended */
	struct wm_sink *late;	/* late side output of a window */
	/* Exactly-once outputs (exactly_once.h): which of sinks[] (and late)
	 * are parts of this subtask's own, and the epoch of the parts open;
	 * the others are the stage's file or stream, written straight
	 * through. */
	struct wm_window_parts parts;
	bool *holding; /* by input channel, while settling: frames held
			* back (rule 8); NULL when the job takes no
			* checkpoint */
};

struct sim {
	const struct wm_topology *topo;
	struct wm_plan
		*plan; /* subtasks and channels, as workers number them */
	uint32_t n_tasks;
	struct sim_task *tasks; /* by plan subtask id */
	/* By stage: the sink of a sink stage, the recording of a recorded
	 * source (--record-trace). */
	struct wm_sink **stage_sinks;
	/* By window stage: its late side output (late_output), NULL. */
	struct wm_sink **late_sinks;
	/* The committer of the outputs that are files, with checkpoints
	 * (NULL: none), and each output's number in it by stage, sinks
	 * first then late outputs ([n_stages + s]), -1 for a stream. */
	struct wm_part_commit *commit;
	int32_t *output_of;
	struct wm_replay_trace **traces; /* by stage: replayed, read first */
	int64_t now_ns;
	/* The job failed: -ENOMEM (a queue or a window's state could not
	 * grow) or -EIO (an output could not be written), why says what;
	 * it stops at the end of the instant. */
	int error;
	char why[512];
	int stopped_by; /* the signal that stopped the job, or 0 */
	size_t stride;
	void *metrics; /* one block per subtask, as in the segment */
	/* Alerts ([job] alert_*; NULL: none): the last snapshot, the
	 * sampling grid, and the last instant run since that snapshot
	 * (-1: none), watch_until(). */
	struct wm_alerts *alerts;
	struct wm_snapshot *snap;
	int64_t sample_every_ns;
	int64_t changed_at_ns;
	/* The report's samples (NULL: no report asked), on the recorder's
	 * grid (rule 7): apart from the alerts', with their own snapshot
	 * before and their own last instant run since a sample (-1: none),
	 * so that neither sampler changes what the other sees. */
	struct wm_recorder *rec;
	struct wm_snapshot *rec_snap;
	int64_t rec_changed_at_ns;
	/* Checkpoints ([job] checkpoint_interval; NULL: none), their life
	 * as a real run's (checkpoint_cycle.h) on --sim's clock. */
	struct wm_checkpoint_cycle *cycle;
	int lock_fd; /* the directory's lock (dir_lock.h); -1: none */
	/* [job] fail_at (INT64_MAX: none, or done), and after the crash
	 * the window watermarks of the crash to catch up with (by plan id;
	 * NULL: caught up, or none). */
	int64_t fail_ns;
	wm_ts_t *crash_watermarks;
	/* [job] restart_strategy, its jitter's draws (a stream of the job's
	 * seed), and between the crash and the restore (rule 9) the time of
	 * the restore (INT64_MAX: the job is not down) and the counts at
	 * the crash. gave_up: the strategy failed the job at the crash. */
	struct wm_restart_strategy restart;
	struct wm_restart_draws restart_draws;
	int64_t restore_ns;
	uint64_t read_at_crash, results_at_crash;
	bool gave_up;
	/* The restart's figures; the checkpoints' counts are the cycle's. */
	struct wm_checkpoint_summary checkpoints;
};

/* The metrics block of subtask `id`. */
static struct wm_subtask_metrics *
block(const struct sim *sim, uint32_t id)
{
	return (struct wm_subtask_metrics *)((char *)sim->metrics +
					     id * sim->stride);
}

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

/* The first failure stops the job; later ones follow from it. */
static void
sim_failed(struct sim *sim, int error, const char *why)
{
	if (sim->error != 0)
		return;
	sim->error = error;
	snprintf(sim->why, sizeof(sim->why), "%s", why);
}

static void
sim_output_failed(struct sim *sim, const struct wm_sink *sink)
{
	char why[4400];

	sim_failed(sim, -EIO, wm_sink_error(sink, why, sizeof(why)));
}

static void
sim_frame(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	  const struct wm_frame *f)
{
	struct sim_task *st = wm_container_of(out, struct sim_task, out);
	const struct wm_plan_channel *c =
		&st->sim->plan
			 ->channels[st->sub->edges[edge].channels[channel]];

	if (queue_push(&st->sim->tasks[c->consumer].in, c->input_channel, f) !=
	    0)
		sim_failed(st->sim, -ENOMEM, "out of memory");
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
sim_late(struct wm_task_out *out, const struct wm_record *r)
{
	struct sim_task *st = wm_container_of(out, struct sim_task, out);

	if (st->late != NULL && !st->sim->error &&
	    wm_sink_late(st->late, r) != 0)
		sim_output_failed(st->sim, st->late);
}

/* An output file that cannot be opened is an output error (exit 74), as
 * in a real run: its errno (ENOENT, EACCES) must not read as a missing
 * input. */
static int
output_error(int r)
{
	return r == -ENOMEM ? r : -EIO;
}

/* The committer learns of each part a window subtask sealed
 * (wm_window_parts_seal()'s `sealed`). */
static int
tell_committer(void *ctx, uint32_t output, uint64_t epoch, uint64_t bytes)
{
	const struct sim_task *st = ctx;

	return wm_part_commit_sealed(st->sim->commit, output, st->sub->index,
				     epoch, bytes);
}

/* Window subtask st's parts sealed; the next ones, of epoch `next`, open
 * (0: none, the last ones at the job's end). */
static int
seal_window_parts(struct sim_task *st, uint64_t next, char *err, size_t errlen)
{
	return wm_window_parts_seal(&st->parts, next, tell_committer, st, err,
				    errlen);
}

/* Checkpoint `id` of the cycle failed at --sim's instant (err says why):
 * a warning, as a real run's supervisor gives, and the job goes on; parts
 * of a complete checkpoint that could not all go into their files fail
 * it (-ECANCELED). */
static void
checkpoint_failed(struct sim *sim, int r, const char *why)
{
	if (r == -ECANCELED)
		sim_failed(sim, -EIO, why);
	else
		wm_log("wmrun: warning: %s", why);
}

/* A subtask's snapshot for the checkpoint being taken, into the store at
 * once (durable when put returns); with the last one the checkpoint is
 * completed in the same instant. */
static void
sim_snapshot(struct wm_task_out *out, int64_t id, const void *bytes, size_t len)
{
	struct sim_task *st = wm_container_of(out, struct sim_task, out);
	struct sim *sim = st->sim;
	struct wm_checkpoint_figures fig;
	char why[512];
	int r;

	if (sim->error != 0 ||
	    (uint64_t)id != wm_checkpoint_cycle_pending(sim->cycle))
		return;
	/* Its parts sealed with its snapshot: what it wrote before the
	 * barrier is in them, what comes after goes to the next. */
	if (seal_window_parts(st, (uint64_t)id + 1, why, sizeof(why)) != 0) {
		sim_failed(sim, -EIO, why);
		return;
	}
	r = wm_checkpoint_cycle_put(sim->cycle, (uint64_t)id,
				    st->sub - sim->plan->subtasks, bytes, len,
				    why, sizeof(why));
	if (r == 1) {
		r = wm_checkpoint_cycle_complete_durably(sim->cycle, &fig, why,
							 sizeof(why));
		/* On processing time: --sim's transport has no delay, so a
		 * checkpoint takes as long as its barriers were held back. */
		r = wm_checkpoint_cycle_completed(sim->cycle, r, why, &fig,
						  sim->now_ns, why,
						  sizeof(why));
	}
	if (r < 0)
		checkpoint_failed(sim, r, why);
}

/* Tasks exist for every subtask of the plan (every stage but sinks, which
 * are chained to windows); sinks open first, windows need them. */

static int
build(struct sim *sim, char *err, size_t errlen)
{
	const struct wm_topology *t = sim->topo;

	sim->plan = wm_plan_new(t);
	sim->stage_sinks = calloc(t->n_stages, sizeof(*sim->stage_sinks));
	sim->late_sinks = calloc(t->n_stages, sizeof(*sim->late_sinks));
	if (sim->plan == NULL || sim->stage_sinks == NULL ||
	    sim->late_sinks == NULL)
		return -ENOMEM;
	sim->n_tasks = sim->plan->n_subtasks;
	sim->tasks = calloc(sim->n_tasks, sizeof(*sim->tasks));
	sim->stride = wm_plan_metrics_bytes(sim->plan);
	sim->metrics = calloc(sim->n_tasks ? sim->n_tasks : 1, sim->stride);
	if (sim->tasks == NULL || sim->metrics == NULL)
		return -ENOMEM;
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *stage = &t->stages[s];
		int r;

		if (stage->kind == WM_STAGE_SOURCE &&
		    stage->u.source.record != NULL)
			r = wm_sink_open_recording(
				&sim->stage_sinks[s], stage,
				stage->u.source.record,
				wm_replay_stage_keys(sim->traces, t, s, NULL),
				err, errlen);
		else if (stage->kind == WM_STAGE_SINK)
			r = wm_sink_open(
				&sim->stage_sinks[s], stage,
				&t->stages[stage->inputs[0].stage],
				wm_replay_stage_keys(sim->traces, t, s, NULL),
				err, errlen);
		else if (stage->kind == WM_STAGE_WINDOW &&
			 stage->u.window.late_output != NULL)
			r = wm_sink_open_late(
				&sim->late_sinks[s], stage,
				wm_replay_stage_keys(sim->traces, t, s, NULL),
				err, errlen);
		else
			continue;
		if (r != 0)
			return output_error(r);
	}
	for (uint32_t id = 0; id < sim->n_tasks; id++) {
		struct sim_task *st = &sim->tasks[id];

		st->sim = sim;
		st->sub = &sim->plan->subtasks[id];
		st->out.frame = sim_frame;
		/* A record queues as its frame: --sim stages nothing, so
		 * every frame is in its consumer's queue, in the order
		 * sent, the moment it is sent. */
		st->out.record = wm_task_record_as_frame;
		st->out.result = sim_result;
		st->out.late = sim_late;
		st->out.snapshot = sim_snapshot;
		st->task = wm_sources_new_task(
			t, sim->plan, id, &st->out, block(sim, id),
			&(struct wm_sources_input){
				.trace = sim->traces[st->sub->stage]},
			t->stages[st->sub->stage].kind == WM_STAGE_SOURCE
				? sim->stage_sinks[st->sub->stage]
				: NULL);
		if (st->task == NULL) {
			int e = errno;

			snprintf(err, errlen,
				 "could not set up subtask %s/%u: %s",
				 t->stages[st->sub->stage].name, st->sub->index,
				 strerror(e));
			return -e;
		}
	}
	return 0;
}

/* Chain sinks and late outputs to the windows that feed them: the
 * stage's file or stream, or with exactly-once, parts of the subtask's
 * own. */
static int
wire(struct sim *sim, char *err, size_t errlen)
{
	const struct wm_topology *t = sim->topo;

	for (uint32_t id = 0; id < sim->n_tasks; id++) {
		struct sim_task *st = &sim->tasks[id];
		const struct wm_stage *stage = &t->stages[st->sub->stage];
		int r;

		st->sinks = calloc(st->sub->n_sinks + 1, sizeof(*st->sinks));
		if (st->sinks == NULL)
			return -ENOMEM;
		wm_window_parts_init(&st->parts, t, st->sub,
				     sim->commit != NULL
					     ? wm_part_commit_run(sim->commit)
					     : 0);
		for (uint32_t k = 0; k < st->sub->n_sinks; k++) {
			st->sinks[k] = sim->stage_sinks[st->sub->sinks[k]];
			wm_window_parts_add(&st->parts, &st->sinks[k],
					    st->sub->sinks[k], false,
					    sim->output_of);
		}
		if (stage->kind == WM_STAGE_WINDOW) {
			st->late = sim->late_sinks[st->sub->stage];
			wm_window_parts_add(&st->parts, &st->late,
					    st->sub->stage, true,
					    sim->output_of);
		}
		r = wm_window_parts_open(
			&st->parts,
			sim->cycle != NULL
				? wm_checkpoint_cycle_first_epoch(sim->cycle)
				: 0,
			sim->traces, NULL, err, errlen);
		if (r != 0)
			return output_error(r);
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
	if (st->u.source.replay != NULL)
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
 * of any alert tier; a sample at time s sees the job as it stood just
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
	for (int k = 0; k < WM_ALERT_KINDS; k++)
		if (job->alerts[k].n_tiers > 0 &&
		    job->alerts[k].after_ms[0] * 1000000 < sim->sample_every_ns)
			sim->sample_every_ns =
				job->alerts[k].after_ms[0] * 1000000;
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
	snap = wm_snapshot_take(sim->plan, sim->metrics, sim->stride, sim->snap,
				s, s);
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
	snap = wm_snapshot_take(sim->plan, sim->metrics, sim->stride,
				sim->rec_snap, s, s);
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
held(struct sim_task *st, const struct queued *q)
{
	if (st->holding == NULL)
		return false;
	if (!st->holding[q->channel] &&
	    wm_task_input_blocked(st->task, q->channel))
		st->holding[q->channel] = true;
	return st->holding[q->channel];
}

/* Drain every queue until all are empty, or hold only frames of blocked
 * channels (rules 3 and 8). */
static int
settle(struct sim *sim)
{
	struct queue batch = {0};
	bool moved = true;

	while (moved && !sim->error) {
		moved = false;
		for (uint32_t id = 0; id < sim->n_tasks; id++) {
			struct sim_task *st = &sim->tasks[id];
			struct queue tmp;
			bool progress = false;

			if (st->in.n == 0)
				continue;
			clear_holds(st);
			/* Take the whole queue: frames it sends to itself
			 * (none today) would wait for the next round. */
			tmp = st->in;
			st->in = batch;
			st->in.n = 0;
			for (size_t i = 0; i < tmp.n && !sim->error; i++) {
				int r;
				char why[400];

				if (held(st, &tmp.items[i])) {
					if (queue_push(&st->in,
						       tmp.items[i].channel,
						       &tmp.items[i].frame) !=
					    0)
						sim_failed(sim, -ENOMEM,
							   "out of memory");
					continue;
				}
				progress = true;
				r = wm_task_input(
					st->task, tmp.items[i].channel,
					&tmp.items[i].frame, sim->now_ns);
				if (r == 0)
					continue;
				snprintf(why, sizeof(why), "subtask %s/%u: %s",
					 sim->topo->stages[st->sub->stage].name,
					 st->sub->index,
					 r == -ENOMEM
						 ? wm_task_why(st->task)
						 : "a frame it cannot take");
				/* A frame the task refuses is --sim's own
				 * bug, as a corrupt frame is a real run's
				 * (70): -EPROTO, not a trace's -EBADMSG. */
				sim_failed(sim, r == -ENOMEM ? r : -EPROTO,
					   why);
			}
			batch = tmp;
			moved = moved || progress;
		}
	}
	free(batch.items);
	return sim->error;
}

static bool
is_source(const struct sim *sim, const struct sim_task *st)
{
	return sim->topo->stages[st->sub->stage].kind == WM_STAGE_SOURCE;
}

/* An unfinished source of an alignment group whose next event was taken
 * from the source itself (not a charge for records still due): a report
 * of another member may have changed it. */
static bool
follows_reports(const struct sim *sim, const struct sim_task *st)
{
	return is_source(sim, st) && st->aligned && !st->charged &&
	       !wm_task_finished(st->task);
}

/* Whether the recording of source `st`, if it has one, failed a write:
 * the job stops, as for a sink. */
static bool
sim_recording_failed(struct sim_task *st)
{
	struct wm_sink *rec = st->sim->stage_sinks[st->sub->stage];

	if (rec == NULL || !wm_sink_failed(rec))
		return false;
	sim_output_failed(st->sim, rec);
	return true;
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

		if (is_source(sim, st))
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

static int trigger_checkpoint(struct sim *sim, int64_t t, char *err,
			      size_t errlen);
static int crash(struct sim *sim, char *err, size_t errlen);
static int sim_restore(struct sim *sim, char *err, size_t errlen);
static int time_out_checkpoint(struct sim *sim, int64_t t, char *err,
			       size_t errlen);
static int64_t checkpoint_deadline(const struct sim *sim);
static void sim_watch_catch_up(struct sim *sim);

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

		if (is_source(sim, st) && !wm_task_finished(st->task) &&
		    st->next_due < t)
			t = st->next_due;
	}
	/* Every source finished, or none can ever do anything again
	 * (refused by run()): nothing else is due either. */
	if (t == INT64_MAX)
		return t;
	if (sim->cycle != NULL &&
	    wm_checkpoint_cycle_next_trigger(sim->cycle) < t)
		t = wm_checkpoint_cycle_next_trigger(sim->cycle);
	if (checkpoint_deadline(sim) < t)
		t = checkpoint_deadline(sim);
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

			if (!is_source(sim, st) || wm_task_finished(st->task) ||
			    st->next_due > t)
				continue;
			at = wm_task_source_backlog_instant(st->task, t);
			if (at < first)
				first = at;
		}
		if (first >= t)
			return 0;
		for (uint32_t id = 0; id < sim->n_tasks; id++) {
			struct sim_task *st = &sim->tasks[id];

			if (!is_source(sim, st) || wm_task_finished(st->task) ||
			    st->next_due > t ||
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

static int
run(struct sim *sim, char *err, size_t errlen)
{
	int r;

	for (uint32_t id = 0; id < sim->n_tasks; id++)
		sim->tasks[id].next_due = 0;
	for (;;) {
		int64_t t = next_instant(sim);
		bool reported = false; /* an aligned source ran at t */

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
		/* Rule 9: the crash at t, before anything else at t, and the
		 * restore when the restart strategy's delay is over: nothing
		 * runs in between. */
		if (sim->fail_ns <= t && (r = crash(sim, err, errlen)) != 0)
			return r;
		if (sim->gave_up)
			return 0;
		if (sim->restore_ns > t && sim->restore_ns != INT64_MAX)
			continue; /* down: nothing ran at t */
		if (sim->restore_ns <= t &&
		    (r = sim_restore(sim, err, errlen)) != 0)
			return r;
		/* Rule 8: a checkpoint past its timeout is aborted at its
		 * deadline, before the next one may start; a checkpoint due
		 * at t starts before the sources run at t. */
		if (checkpoint_deadline(sim) <= t &&
		    (r = time_out_checkpoint(sim, t, err, errlen)) != 0)
			return r;
		if (sim->cycle != NULL &&
		    (r = trigger_checkpoint(sim, t, err, errlen)) != 0)
			return r;
		r = replay_backlogs(sim, t, err, errlen);
		if (r != 0)
			return r;
		for (uint32_t id = 0; id < sim->n_tasks; id++) {
			struct sim_task *st = &sim->tasks[id];

			if (!is_source(sim, st) || wm_task_finished(st->task))
				continue;
			/* Rule 2: a member that runs after another at t reads
			 * its report of t. */
			if (reported && follows_reports(sim, st))
				st->next_due =
					wm_task_source_next_event(st->task, t);
			if (st->next_due > t)
				continue;
			sim_run_source(st, t);
			reported = reported || st->aligned;
		}
		/* Those that ran before a report of t, or ran at t
		 * themselves, read it at their next update after t. */
		for (uint32_t id = 0; reported && id < sim->n_tasks; id++) {
			struct sim_task *st = &sim->tasks[id];

			if (follows_reports(sim, st))
				st->next_due = wm_task_source_next_event(
					st->task, t + 1);
		}
		r = settle_instant(sim, err, errlen);
		if (r != 0)
			return r;
		sim_watch_catch_up(sim);
		sim->changed_at_ns = t;
		sim->rec_changed_at_ns = t;
	}
	/* Sources that can never do anything again (silent for ever, or
	 * held back for ever, and no end) leave the job unbounded: --sim
	 * refuses to spin for ever. */
	for (uint32_t id = 0; id < sim->n_tasks; id++) {
		struct sim_task *st = &sim->tasks[id];

		if (is_source(sim, st) && !wm_task_finished(st->task))
			return endless(sim->topo, st->sub->stage, err, errlen);
	}
	return 0;
}

/* Simulated time runs as fast as it can: a job without an end would never
 * return. (A real run of it is a stream job, stopped with Ctrl-C.)
 * Replayed traces end by themselves. 0, or -EINVAL with err set. */
static int
refuse_endless(const struct wm_topology *topo, char *err, size_t errlen)
{
	for (uint32_t s = 0; s < topo->n_stages; s++)
		if (topo->stages[s].kind == WM_STAGE_SOURCE &&
		    topo->stages[s].u.source.replay == NULL &&
		    topo->job.event_time_ms == INT64_MAX &&
		    topo->job.processing_time_ms == INT64_MAX &&
		    topo->job.records == UINT64_MAX)
			return endless(topo, s, err, errlen);
	return 0;
}

/* The processing time of the store's figures: --sim's own. */
static int64_t
sim_clock(void *ctx)
{
	return ((const struct sim *)ctx)->now_ns;
}

/* The checkpoints of [job] checkpoint_dir (checkpoint_cycle.h) on
 * --sim's processing time, with the outputs they make exactly-once
 * (exactly_once.h) recovered to where the run starts: parts left in the
 * directory by an earlier run go. Then each task's room to hold frames
 * back (rule 8). */
static int
checkpoints_set_up(struct sim *sim, char *err, size_t errlen)
{
	const struct wm_job_conf *job = &sim->topo->job;
	struct wm_checkpoint_cycle_config cfg = {
		.topo = sim->topo,
		.plan = sim->plan,
		.every_ns = wm_ms_to_ns(job->checkpoint_interval_ms),
		.timeout_ns = wm_ms_to_ns(job->checkpoint_timeout_ms),
		.speed = 1.0,
		.now_ns = sim_clock,
		.ctx = sim,
	};
	int r;

	if (job->checkpoint_interval_ms == INT64_MAX)
		return 0;
	r = wm_exactly_once_set_up(&sim->commit, &sim->output_of, sim->topo,
				   sim->stage_sinks, sim->late_sinks, err,
				   errlen);
	if (r != 0)
		return output_error(r);
	cfg.commit = sim->commit;
	r = wm_checkpoint_cycle_open(&sim->cycle, &cfg, err, errlen);
	if (r != 0)
		return r;
	r = wm_checkpoint_cycle_recover_outputs(sim->cycle, err, errlen);
	if (r != 0)
		return output_error(r);
	wm_checkpoint_cycle_arm(sim->cycle, 0);
	sim->fail_ns = wm_ms_to_ns(job->fail_at_ms);
	sim->restart_draws.seed = job->seed;
	wm_restart_strategy_init(&sim->restart, &job->restart, wm_restart_draw,
				 &sim->restart_draws);
	for (uint32_t id = 0; id < sim->n_tasks; id++) {
		struct sim_task *st = &sim->tasks[id];
		uint32_t n = wm_task_input_channels(st->task);

		if (n == 0)
			continue;
		st->holding = calloc(n, sizeof(*st->holding));
		if (st->holding == NULL)
			return -ENOMEM;
	}
	return 0;
}

/* Whether a source finished: it takes no barrier any more. */
static bool
sim_source_finished(const struct sim *sim)
{
	for (uint32_t id = 0; id < sim->n_tasks; id++)
		if (is_source(sim, &sim->tasks[id]) &&
		    wm_task_finished(sim->tasks[id].task))
			return true;
	return false;
}

/*
 * Trigger the next checkpoint at `t` if it is due (rule 8): every source
 * snapshots its position and sends the barrier. One at a time, as
 * Flink's default of one concurrent checkpoint: a trigger due while one
 * is still being taken waits for the next interval. Once a source
 * finished no checkpoint is triggered any more (Flink before checkpoints
 * after tasks finish). A checkpoint the store cannot begin is counted
 * failed, with a warning, and the job goes on, as a real run's.
 */
static int
trigger_checkpoint(struct sim *sim, int64_t t, char *err, size_t errlen)
{
	char why[512];
	uint64_t id;
	int r;

	if (!wm_checkpoint_cycle_due(sim->cycle, t) || sim_source_finished(sim))
		return 0;
	r = wm_checkpoint_cycle_begin(sim->cycle, t, t / 1000000, &id, why,
				      sizeof(why));
	if (r != 0) {
		checkpoint_failed(sim, r, why);
		return 0;
	}
	for (uint32_t k = 0; k < sim->n_tasks; k++) {
		struct sim_task *st = &sim->tasks[k];

		if (!is_source(sim, st))
			continue;
		r = wm_task_trigger_checkpoint(st->task, (int64_t)id, t);
		if (r != 0) {
			snprintf(err, errlen,
				 "subtask %s/%u could not snapshot its "
				 "position: %s",
				 sim->topo->stages[st->sub->stage].name,
				 st->sub->index, strerror(-r));
			return r;
		}
	}
	return 0;
}

/* When the checkpoint being taken times out ([job] checkpoint_timeout
 * after its trigger); INT64_MAX: none is being taken. */
static int64_t
checkpoint_deadline(const struct sim *sim)
{
	return sim->cycle != NULL ? wm_checkpoint_cycle_deadline(sim->cycle)
				  : INT64_MAX;
}

/*
 * Abort the checkpoint being taken, past its timeout (rule 8): the store
 * drops what it holds of it, every task still aligning it lets its
 * channels go, and the next one is triggered at the next interval. Under
 * --sim a checkpoint completes in the instant of its trigger (frames take
 * no time, and a barrier is held back only by an alignment that ends in
 * the same instant), so this is reached only if that ever changes; a
 * real run's barriers can be held back for real (doc/semantics.md 12.6).
 */
static int
time_out_checkpoint(struct sim *sim, int64_t t, char *err, size_t errlen)
{
	uint64_t id = wm_checkpoint_cycle_pending(sim->cycle);

	(void)t;
	if (wm_checkpoint_cycle_give_up(sim->cycle, WM_CHECKPOINT_TIMED_OUT,
					err, errlen) != 0)
		return -EIO;
	for (uint32_t k = 0; k < sim->n_tasks; k++)
		wm_task_abort_checkpoint(sim->tasks[k].task, (int64_t)id);
	return 0;
}

/* Records read by the sources, results written by the windows, as the
 * tasks count them now. */
static void
count_reads_and_results(const struct sim *sim, uint64_t *read,
			uint64_t *results)
{
	*read = *results = 0;
	for (uint32_t id = 0; id < sim->n_tasks; id++) {
		const struct sim_task *st = &sim->tasks[id];

		if (is_source(sim, st))
			*read += wm_task_counters(st->task)->records_in;
		else if (wm_task_window(st->task) != NULL)
			*results += wm_task_counters(st->task)->records_out;
	}
}

/* Subtask `id` as new, from its checkpoint `chk` (0: none, from the
 * start). Its metrics block starts again as at the job's start: the
 * counts come back with the snapshot, the timings begin anew. A snapshot
 * that could not be restored sets *unrestorable, err naming the subtask
 * and why. */
static int
restart_task(struct sim *sim, uint32_t id, uint64_t chk, bool *unrestorable,
	     char *err, size_t errlen)
{
	const struct wm_topology *t = sim->topo;
	struct sim_task *st = &sim->tasks[id];
	char why[512];
	int r = 0;

	wm_task_free(st->task);
	st->in.n = 0; /* frames in flight are lost with the crash */
	memset(block(sim, id), 0, sim->stride);
	st->task = wm_sources_new_task(
		t, sim->plan, id, &st->out, block(sim, id),
		&(struct wm_sources_input){.trace =
						   sim->traces[st->sub->stage]},
		t->stages[st->sub->stage].kind == WM_STAGE_SOURCE
			? sim->stage_sinks[st->sub->stage]
			: NULL);
	if (st->task == NULL) {
		snprintf(err, errlen, "could not restart subtask %s/%u: %s",
			 t->stages[st->sub->stage].name, st->sub->index,
			 strerror(errno));
		return -errno;
	}
	if (chk != 0 && (r = wm_checkpoint_restore_task(
				 wm_checkpoint_cycle_store(sim->cycle), chk, id,
				 st->task, why, sizeof(why))) != 0) {
		*unrestorable = true;
		wm_checkpoint_unrestorable(err, errlen, t, sim->plan, id, chk,
					   why);
	}
	wm_task_restarted_at(st->task, sim->now_ns);
	if (r == 0)
		r = wm_task_align(st->task, sim->metrics, sim->stride);
	st->next_due = sim->now_ns; /* sources: at once */
	st->charged = false;
	return r;
}

/*
 * The exactly-once outputs after the crash (part_commit.h): every part
 * open is lost with its subtask, the files go back to what the checkpoint
 * to restore committed (none: their headers; a committer's blob that
 * cannot be restored falls back to the one before it), every part goes,
 * and the restarted subtasks write parts anew, those after it.
 */
static int
recover_outputs(struct sim *sim, char *err, size_t errlen)
{
	int r;

	if (sim->commit == NULL)
		return 0;
	for (uint32_t id = 0; id < sim->n_tasks; id++)
		wm_window_parts_close(&sim->tasks[id].parts, true);
	r = wm_checkpoint_cycle_recover_outputs(sim->cycle, err, errlen);
	for (uint32_t id = 0; r == 0 && id < sim->n_tasks; id++)
		r = wm_window_parts_open(
			&sim->tasks[id].parts,
			wm_checkpoint_cycle_first_epoch(sim->cycle),
			sim->traces, NULL, err, errlen);
	return r == 0 || r == -EBADMSG ? r : output_error(r);
}

/*
 * [job] fail_at (rule 9): every subtask crashes at once, its state and the
 * frames in flight lost, a checkpoint being taken aborted; the restart
 * strategy ([job] restart_strategy) says whether the job restarts and when
 * (sim->restore_ns), or fails it (sim->gave_up, err saying why). Results
 * emitted after the checkpoint are emitted again: a file output gets each
 * once (the parts that held them were never committed), a stream twice
 * (at-least-once).
 */
static int
crash(struct sim *sim, char *err, size_t errlen)
{
	struct wm_checkpoint_summary *c = &sim->checkpoints;
	struct wm_restart_decision d;
	char at[32];

	sim->fail_ns = INT64_MAX;
	count_reads_and_results(sim, &sim->read_at_crash,
				&sim->results_at_crash);
	sim->crash_watermarks =
		calloc(sim->n_tasks, sizeof(*sim->crash_watermarks));
	if (sim->crash_watermarks == NULL)
		return -ENOMEM;
	for (uint32_t id = 0; id < sim->n_tasks; id++) {
		const struct wm_window *w = wm_task_window(sim->tasks[id].task);

		sim->crash_watermarks[id] =
			w != NULL ? wm_window_watermark(w) : WM_TS_MIN;
		sim->tasks[id].in.n = 0; /* frames in flight are lost */
	}
	/* The restore is chosen now: nothing is taken while the job is
	 * down. */
	if (wm_checkpoint_cycle_workers_gone(sim->cycle, err, errlen) != 0)
		return -EIO;
	wm_restart_strategy_failure(&sim->restart, sim->now_ns, &d);
	c->restart_ns = sim->now_ns;
	c->strategy = wm_restart_kind_name(sim->restart.conf.kind);
	c->attempt = d.attempt;
	c->delay_ns = d.delay_ns;
	if (!d.restart) {
		/* As a real job whose worker died: it failed, exit 1. */
		c->gave_up = true;
		sim->gave_up = true;
		snprintf(err, errlen,
			 "the job failed: every subtask crashed at fail_at "
			 "(%s) and restart_strategy = %s %s",
			 wm_units_format_duration(sim->now_ns, at, sizeof(at)),
			 c->strategy,
			 sim->restart.conf.kind == WM_RESTART_NONE
				 ? "does not restart it"
				 : "has no attempt left");
		return 0;
	}
	sim->restore_ns = sim->now_ns + d.delay_ns;
	return 0;
}

/*
 * The restore after the crash (rule 9): every subtask starts again from
 * the latest complete checkpoint of this run (none: from the start),
 * chosen at the crash. Watermarks are not restored, as in Flink: every
 * input starts at MIN and ACTIVE, and idleness timers start again. The
 * exactly-once outputs go back to the checkpoint first
 * (recover_outputs()). A checkpoint due while the job was down is not
 * taken: the next is the first of the interval's grid at or after the
 * restore. A checkpoint a subtask cannot restore is no transient fault:
 * as a real run's supervisor does, the job falls back to the complete
 * checkpoint of this run before it, and fails (-EBADMSG, 65) naming it
 * when there is none.
 */
static int
sim_restore(struct sim *sim, char *err, size_t errlen)
{
	struct wm_checkpoint_summary *c = &sim->checkpoints;
	uint64_t read, results, chk;
	bool unrestorable = false;
	int r;

	sim->restore_ns = INT64_MAX;
	do {
		r = recover_outputs(sim, err, errlen);
		if (r != 0)
			return r;
		chk = wm_checkpoint_cycle_restore_id(sim->cycle);
		for (uint32_t id = 0; r == 0 && id < sim->n_tasks; id++)
			r = restart_task(sim, id, chk, &unrestorable, err,
					 errlen);
		if (r != 0 && unrestorable) {
			unrestorable = false;
			r = wm_checkpoint_cycle_fall_back(sim->cycle, chk, err,
							  errlen);
			if (r != 0)
				return r;
			r = -EAGAIN;
		}
	} while (r == -EAGAIN);
	if (r != 0)
		return r;
	wm_checkpoint_cycle_skip_to(sim->cycle, sim->now_ns);
	count_reads_and_results(sim, &read, &results);
	c->restarted = true;
	c->restored_from = chk;
	c->restored_from_ns =
		wm_ms_to_ns(wm_checkpoint_cycle_restore_time_ms(sim->cycle));
	c->records_replayed = sim->read_at_crash - read;
	c->results_again = sim->results_at_crash - results;
	c->held_ns = -1;
	return 0;
}

/* After an instant following the restore: whether every window subtask's
 * watermark is back where it was at the crash. */
static void
sim_watch_catch_up(struct sim *sim)
{
	if (sim->crash_watermarks == NULL)
		return;
	for (uint32_t id = 0; id < sim->n_tasks; id++) {
		const struct wm_window *w = wm_task_window(sim->tasks[id].task);

		if (w != NULL &&
		    wm_window_watermark(w) < sim->crash_watermarks[id])
			return;
	}
	sim->checkpoints.held_ns = sim->now_ns - sim->checkpoints.restart_ns -
				   sim->checkpoints.delay_ns;
	free(sim->crash_watermarks);
	sim->crash_watermarks = NULL;
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
		r = output_error(r);
	if (r == 0)
		r = build(sim, err, errlen);
	/* Sources of an alignment group read each other's reports from
	 * their blocks, as the worker processes do in the segment. */
	for (uint32_t id = 0; r == 0 && id < sim->n_tasks; id++) {
		struct sim_task *st = &sim->tasks[id];

		r = wm_task_align(st->task, sim->metrics, sim->stride);
		st->aligned = wm_plan_alignment_peers(sim->plan, topo, id, NULL,
						      0) > 0;
	}
	if (r == 0)
		r = alerts_set_up(sim);
	if (r == 0)
		r = checkpoints_set_up(sim, err, errlen);
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
			      sim->stride, sim->now_ns,
			      wm_monotonic_ns() - start, true);
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

/*
 * The exactly-once outputs at the job's end: one that ended well (its
 * input's end, or a stop, `r` >= 0) seals every subtask's last parts and
 * commits them (Flink's final commit); a failed one (< 0) deletes the
 * parts no resume needs. The status, -EIO if the commit failed.
 */
static int
end_outputs(struct sim *sim, int r, char *err, size_t errlen)
{
	char why[4400];

	for (uint32_t id = 0; r >= 0 && id < sim->n_tasks; id++)
		if (seal_window_parts(&sim->tasks[id], 0, why, sizeof(why)) !=
		    0) {
			snprintf(err, errlen, "%s", why);
			r = -EIO;
		}
	for (uint32_t id = 0; id < sim->n_tasks; id++)
		wm_window_parts_close(&sim->tasks[id].parts, true);
	/* Without a cycle (it could not open) nothing ran: only the parts
	 * go. */
	if (sim->cycle == NULL)
		(void)wm_part_commit_discard(sim->commit, why, sizeof(why));
	else if (wm_checkpoint_cycle_finish_outputs(sim->cycle, r >= 0, why,
						    sizeof(why)) != 0 &&
		 r >= 0) {
		snprintf(err, errlen, "%s", why);
		r = -EIO;
	}
	wm_part_commit_free(sim->commit);
	sim->commit = NULL;
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
		r = end_outputs(sim, r, err, errlen);
	for (uint32_t id = 0; id < sim->n_tasks; id++) {
		struct sim_task *st = &sim->tasks[id];

		wm_task_free(st->task);
		free(st->holding);
		free(st->sinks);
		free(st->in.items);
	}
	for (uint32_t i = 0; sim->stage_sinks != NULL && sim->late_sinks &&
			     i < 2 * topo->n_stages;
	     i++)
		if (wm_sink_close(i < topo->n_stages
					  ? sim->stage_sinks[i]
					  : sim->late_sinks[i - topo->n_stages],
				  r < 0, why, sizeof(why)) != 0 &&
		    r == 0) {
			snprintf(err, errlen, "%s", why);
			r = -EIO;
		}
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
