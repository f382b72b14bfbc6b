/*
 * task_out.h
 *	A task's output side (task_out.c), for the task's own files: its
 *	edges set up, and records and frames sent through them to the
 *	driver, records one at a time or staged into runs.
 */
#ifndef WM_RUNTIME_ENGINE_TASK_OUT_H
#define WM_RUNTIME_ENGINE_TASK_OUT_H

#include "runtime/engine/task_state.h"

/* The output edges of the plan's subtask, and t->edges_out, through
 * which watermarks and statuses leave (0 or a negative errno). */
int wm_task_init_outputs(struct wm_task *t);

/* A frame to every channel of every output edge. */
void wm_task_send_all(struct wm_task *t, const struct wm_frame *f);

/* A record to each output edge, by its partitioner. */
void wm_task_send_record(struct wm_task *t, const struct wm_record *r);

/* A result of the task's operator as a record (a join's pair) to each
 * output edge: counted in what each edge sent, not in the task's
 * records_out, where the operator counted it once, as Flink's
 * numRecordsOut counts what an operator emits. */
void wm_task_send_result(struct wm_task *t, const struct wm_record *r);

/* The records staged, sent as runs (nothing if none is). */
void wm_task_flush_staged(struct wm_task *t);

/* The staging, empty, for a source to read a run of up to WM_TASK_STAGED
 * records into in place: records staged[0], staged[1], ... are then staged
 * one at a time, in order, by wm_task_stage_next(), with no copy, each to
 * go with the records around it as a run when the driver takes runs
 * (wm_task_out.records); the caller flushes before it returns
 * (wm_task_flush_staged()). */
static inline struct wm_record *
wm_task_staging(struct wm_task *t)
{
	wm_task_flush_staged(t);
	t->staged_from = t->n_staged = 0;
	return t->staged;
}

/* Stage the next record read in place (staged[n_staged]); a driver
 * without runs has it sent at once. */
static inline void
wm_task_stage_next(struct wm_task *t)
{
	t->n_staged++;
	if (t->out->records == NULL)
		wm_task_flush_staged(t);
}

/* Drop the next record read in place (staged[n_staged]): what is staged
 * before it goes first, so that the run is cut there and the records
 * after it stay where they were read. */
static inline void
wm_task_stage_skip(struct wm_task *t)
{
	wm_task_flush_staged(t);
	t->staged_from = ++t->n_staged;
}

/* The same for `n` records in order: each channel gets its records as
 * runs (consecutive records routed to one channel go in one call of the
 * driver's `records`), and what every channel receives, in what order, is
 * what n calls of wm_task_send_record() would give it. */
void wm_task_send_run(struct wm_task *t, const struct wm_record *r, uint32_t n);

#endif /* WM_RUNTIME_ENGINE_TASK_OUT_H */
