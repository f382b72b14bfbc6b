/*
 * task_source_align.h
 *	A source subtask's watermark alignment (task_source_align.c), for
 *	task_source.c: the clocks a wait stops, the pauses, and the updates.
 */
#ifndef WM_RUNTIME_ENGINE_TASK_SOURCE_ALIGN_H
#define WM_RUNTIME_ENGINE_TASK_SOURCE_ALIGN_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/engine/task_state.h"

/* The subtask's idleness clock stops while it cannot read: waiting for
 * alignment or back-pressured (doc/semantics.md section 2.7). */
void wm_task_source_pause_clock(struct wm_task *t);

/* The subtask waits for alignment, or reads again (its resume noted). */
void wm_task_source_set_waiting(struct wm_task *t, bool waiting);

/* The multiplexer slot of the i-th partition, or NULL once it finished
 * (its slot released). */
const struct wm_partial_watermark *
wm_task_source_slot_of(const struct wm_task *t, uint32_t local);

/* Split-level alignment: the partition is not read and its idleness
 * clock stops (nothing where the source cannot pause one partition). */
void wm_task_source_pause_partition(struct wm_task *t, uint32_t local,
				    bool paused);

/* One alignment update: this subtask reports, reads the group's
 * maxAllowed and pauses or resumes itself and its partitions. */
void wm_task_source_align_update(struct wm_task *t);

/* now + the update interval, saturating. */
int64_t wm_task_source_align_after(const struct wm_task *t, int64_t now_ns);

/* Whether an alignment update now can change anything. */
bool wm_task_source_align_can_change(const struct wm_task *t);

#endif /* WM_RUNTIME_ENGINE_TASK_SOURCE_ALIGN_H */
