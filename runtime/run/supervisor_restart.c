/*
 * supervisor_restart.c
 *	A real run's restart after a failed attempt: whether the restart
 *	strategy restarts it and when, the checkpoint it restores (the
 *	coordinator's, checkpoint_cycle.h's rules), what the summary notes of
 *	it, and how long event time was held after it.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/time.h"
#include "lib/units.h"
#include "runtime/checkpoint/checkpoint_cycle.h"
#include "runtime/metrics/metrics.h"
#include "runtime/run/supervisor_job.h"

/* The processing time of the monotonic instant `ns`: since the first
 * attempt's start line. */
static int64_t
job_time(const struct job *j, int64_t ns)
{
	return j->job_start_ns != 0
		       ? wm_scale_ns(ns - j->job_start_ns, j->t->job.speed)
		       : 0;
}

/* The job's processing time now, as the restart strategy takes it: since
 * the first attempt's forks, at the job's speed. Its backoffs and what it
 * returns are durations of the job, as stopped_while_down() waits them and
 * as --sim feeds it its own processing time; CLOCK_MONOTONIC read against
 * them ran `speed` times too slowly (at speed 500 a failure within a
 * second of real time of the last was merged into its restart, counted no
 * attempt and left restart_attempts unenforced). Only differences count,
 * so one origin for every failure, known before any start line. */
static int64_t
strategy_now(const struct job *j)
{
	return wm_scale_ns(wm_monotonic_ns() - j->first_fork_ns,
			   j->t->job.speed);
}

/*
 * After an attempt: whether a worker could not restore the checkpoint it
 * started from (worker.c, restore()). That is no transient fault, and
 * restoring it again would fail again for ever: the attempt's failure is
 * then that (65, naming the checkpoint and why), and the coordinator
 * falls back to the checkpoint before it (wm_supervisor_restart()).
 */
void
wm_supervisor_note_unrestorable(struct job *j, const struct wm_shm *seg)
{
	j->unrestorable = 0;
	if (j->failure == 0 || j->restore_from == 0)
		return;
	for (uint32_t id = 0; id < j->plan->n_subtasks; id++) {
		char why[256];

		if (wm_metrics_restore_failure(
			    wm_plan_block(j->plan, wm_shm_metrics_area(seg),
					  id),
			    why, sizeof(why)) != j->restore_from)
			continue;
		j->unrestorable = j->restore_from;
		j->failure = EX_DATAERR;
		wm_checkpoint_unrestorable(j->err, j->errlen, j->t, j->plan, id,
					   j->restore_from, why);
		wm_coordinator_restore_failed(j->coordinator, j->restore_from);
		return;
	}
}

/*
 * Whether the attempt that just ended failed in a way a restart can mend
 * (checkpoints are on and nobody asked the job to stop), and after how
 * long the restart strategy restarts it (*delay_ns). A strategy that
 * gives up fails the job: its message then names every restart's cause
 * before this one's.
 */
bool
wm_supervisor_restartable(struct job *j, int64_t *delay_ns)
{
	struct wm_checkpoint_summary *c = &j->restarts;
	struct wm_restart_decision d;

	if (j->failure == 0 || j->coordinator == NULL || j->stop_signal != 0)
		return false;
	wm_restart_strategy_failure(&j->restart, strategy_now(j), &d);
	c->strategy = wm_restart_kind_name(j->restart.conf.kind);
	c->attempt = d.attempt;
	if (d.restart) {
		*delay_ns = d.delay_ns;
		return true;
	}
	c->gave_up = true;
	if (c->restarts > 0) {
		size_t len = strlen(j->err);

		snprintf(j->err + len, j->errlen - len,
			 "; restart_strategy = %s gave up after %" PRIu32
			 " restart%s, caused by:",
			 c->strategy, c->restarts, c->restarts == 1 ? "" : "s");
		for (uint32_t i = 0; i < c->restarts && i < WM_RESTART_NOTES;
		     i++) {
			len = strlen(j->err);
			snprintf(j->err + len, j->errlen - len, " (%u) %s",
				 i + 1, c->notes[i].cause);
		}
	} else {
		size_t len = strlen(j->err);

		snprintf(j->err + len, j->errlen - len,
			 "; restart_strategy = %s does not restart it",
			 c->strategy);
	}
	return false;
}

/* How long event time was held after the last restore: until every window
 * subtask's watermark came back where it was at the failure (worker.h),
 * as the attempt's metrics blocks say. -1 if some window never did. */
static int64_t
hold_after_restore(const struct job *j, const struct wm_shm *seg)
{
	int64_t restored = job_time(j, wm_shm_started(seg)), last = restored;

	for (uint32_t id = 0; id < j->plan->n_subtasks; id++) {
		struct wm_subtask_metrics *m =
			wm_plan_block(j->plan, wm_shm_metrics_area(seg), id);
		int64_t at = WM_METRIC_GET(m->caught_up_ns);

		if (j->crash_watermark[id] == WM_TS_MIN)
			continue;
		if (at < 0)
			return -1;
		if (at > last)
			last = at;
	}
	return last - restored;
}

/* The last restart's note, once its attempt ended: how long it held event
 * time back. */
void
wm_supervisor_note_hold(struct job *j, const struct wm_shm *seg)
{
	struct wm_checkpoint_summary *c = &j->restarts;

	if (c->restarts == 0 || wm_shm_started(seg) == 0)
		return;
	if (c->restarts <= WM_RESTART_NOTES)
		c->notes[c->restarts - 1].held_ns = hold_after_restore(j, seg);
}

/* What the next attempt needs of the one that failed: the first start
 * line (processing time runs on from it), each window's watermark at the
 * failure (the hold is measured against it), and how far each subtask
 * fell behind its schedule, which its new metrics block forgets. */
static void
note_crash(struct job *j, const struct wm_shm *seg)
{
	j->job_start_ns = wm_supervisor_job_origin(j, seg);
	for (uint32_t id = 0; id < j->plan->n_subtasks; id++) {
		const struct wm_plan_subtask *sub = &j->plan->subtasks[id];
		struct wm_subtask_metrics *m =
			wm_plan_block(j->plan, wm_shm_metrics_area(seg), id);
		int64_t late_max = WM_METRIC_GET(m->late_max_ns);

		j->crash_watermark[id] =
			j->t->stages[sub->stage].kind == WM_STAGE_WINDOW
				? WM_METRIC_GET(m->output.watermark)
				: WM_TS_MIN;
		if (late_max > j->children[id].late_max_ns)
			j->children[id].late_max_ns = late_max;
	}
}

/* The restart at monotonic `now`, after `delay_ns`, noted for the summary
 * (the first WM_RESTART_NOTES, with their causes) and said on stderr. */
static void
note_restart(struct job *j, int64_t now, int64_t delay_ns)
{
	struct wm_checkpoint_summary *c = &j->restarts;
	char delay[64];

	if (c->restarts < WM_RESTART_NOTES) {
		struct wm_restart_note *n = &c->notes[c->restarts];

		n->at_ns = job_time(j, now);
		n->restored_from = j->restore_from;
		n->checkpoint_ns =
			j->restore_from != 0
				? wm_ms_to_ns(wm_coordinator_restore_time_ms(
					  j->coordinator))
				: 0;
		n->held_ns = -1;
		n->delay_ns = delay_ns;
		n->attempt = c->attempt;
		snprintf(n->cause, sizeof(n->cause), "%s", j->err);
	}
	c->restarts++;
	c->restarted = true;
	c->restart_ns = job_time(j, now);
	wm_units_format_duration(delay_ns, delay, sizeof(delay));
	if (j->restore_from != 0)
		wm_log("wmrun: notice: %s; restarting from checkpoint %" PRIu64
		       " in %s (restart %u, restart_strategy = %s)",
		       j->err, j->restore_from, delay, c->restarts,
		       c->strategy);
	else
		wm_log("wmrun: notice: %s; restarting from the start in %s, no "
		       "checkpoint is complete yet (restart %u, "
		       "restart_strategy = %s)",
		       j->err, delay, c->restarts, c->strategy);
}

/*
 * After a failure every worker is gone: note the restart, keep what the
 * next attempt needs (the first start line, each window's watermark, the
 * checkpoint to restore) and clear the segment: after the strategy's
 * delay (the caller's wait) every subtask starts again from the latest
 * complete checkpoint. 0, or an exit status with err set (the job then
 * ends with it).
 */
int
wm_supervisor_restart(struct job *j, struct wm_shm *seg, int64_t delay_ns)
{
	int64_t now = wm_monotonic_ns();
	char why[512];

	wm_supervisor_note_hold(j, seg);
	note_crash(j, seg);
	if (wm_coordinator_workers_gone(j->coordinator, why, sizeof(why)) != 0)
		wm_log("wmrun: warning: %s", why);
	j->restore_from = wm_coordinator_restore_id(j->coordinator);
	/* None restores: nothing the job could run from is left (a
	 * resumed job's outputs go on from a checkpoint, and a new one's
	 * results up to it were committed). */
	if (j->unrestorable != 0 && j->restore_from == 0) {
		size_t len = strlen(j->err);

		snprintf(j->err + len, j->errlen - len,
			 "; no complete checkpoint before it to fall back to");
		return EX_DATAERR;
	}
	/* The exactly-once files back to that checkpoint before anyone
	 * writes a part again; a committer's blob it cannot restore from
	 * moves the restore to the checkpoint before it. */
	int r = wm_coordinator_recover_outputs(j->coordinator, j->err,
					       j->errlen);

	j->restore_from = wm_coordinator_restore_id(j->coordinator);
	if (r != 0)
		return r == -EBADMSG ? EX_DATAERR : EX_IOERR;
	note_restart(j, now, delay_ns);
	if (wm_shm_reset(seg, j->err, j->errlen) != 0)
		return EX_OSERR;
	return 0;
}

void
wm_supervisor_restarted(struct job *j, struct wm_shm *seg)
{
	atomic_store_explicit(&((struct wm_shm_header *)seg->base)->restarts,
			      j->restarts.restarts, memory_order_relaxed);
	j->failure = 0;
	j->err[0] = '\0';
	j->phase = RUNNING;
	for (uint32_t i = 0; i < j->plan->n_subtasks; i++) {
		j->children[i].pid = 0;
		j->children[i].done = false;
		j->children[i].signalled = false;
	}
}
