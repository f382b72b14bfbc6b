/*
 * sim_checkpoint.c
 *	--sim's checkpoints, crash and restore (rules 8 and 9 of sim.h): the
 *	steps of runtime/checkpoint/checkpoint_cycle.h, a real run's too,
 *	carried through the tasks' callbacks on simulated time.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/time.h"
#include "lib/units.h"
#include "runtime/checkpoint/part_commit.h"
#include "runtime/run/sim_job.h"
#include "runtime/source/sources.h"

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
		wm_sim_failed(sim, -EIO, why);
	else
		wm_log("wmrun: warning: %s", why);
}

/* A subtask's snapshot for the checkpoint being taken, into the store at
 * once (durable when put returns); with the last one the checkpoint is
 * completed in the same instant. */
void
wm_sim_snapshot(struct wm_task_out *out, int64_t id, const void *bytes,
		size_t len)
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
		wm_sim_failed(sim, -EIO, why);
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
int
wm_sim_checkpoints_set_up(struct sim *sim, char *err, size_t errlen)
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
		return wm_sim_output_error(r);
	cfg.commit = sim->commit;
	r = wm_checkpoint_cycle_open(&sim->cycle, &cfg, err, errlen);
	if (r != 0)
		return r;
	r = wm_checkpoint_cycle_recover_outputs(sim->cycle, err, errlen);
	if (r != 0)
		return wm_sim_output_error(r);
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
		if (wm_sim_is_source(sim, &sim->tasks[id]) &&
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
int
wm_sim_trigger_checkpoint(struct sim *sim, int64_t t, char *err, size_t errlen)
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

		if (!wm_sim_is_source(sim, st))
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
int64_t
wm_sim_checkpoint_deadline(const struct sim *sim)
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
int
wm_sim_time_out_checkpoint(struct sim *sim, int64_t t, char *err, size_t errlen)
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

		if (wm_sim_is_source(sim, st))
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
	wm_sim_queue_clear(&st->in); /* frames in flight are lost */
	wm_plan_metrics_clear(sim->plan, sim->metrics, id);
	st->task = wm_sources_new_task(
		t, sim->plan, id, &st->out, sim->metrics,
		&(struct wm_sources_input){.trace = sim->traces[st->sub->stage],
					   .traces = sim->traces},
		t->stages[st->sub->stage].kind == WM_STAGE_SOURCE
			? sim->stage_sinks
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
		r = wm_task_align(st->task, sim->metrics);
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
	return r == 0 || r == -EBADMSG ? r : wm_sim_output_error(r);
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
int
wm_sim_crash(struct sim *sim, char *err, size_t errlen)
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
		wm_sim_queue_clear(&sim->tasks[id].in); /* lost in flight */
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
int
wm_sim_restore(struct sim *sim, char *err, size_t errlen)
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
void
wm_sim_watch_catch_up(struct sim *sim)
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

/*
 * The exactly-once outputs at the job's end: one that ended well (its
 * input's end, or a stop, `r` >= 0) seals every subtask's last parts and
 * commits them (Flink's final commit); a failed one (< 0) deletes the
 * parts no resume needs. The status, -EIO if the commit failed.
 */
int
wm_sim_end_outputs(struct sim *sim, int r, char *err, size_t errlen)
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
