/*
 * view.h
 *	What a person watching a job reads, from snapshots: a screen that a
 *	terminal redraws in place, or, for a log, timestamped lines.
 *
 * The screen: a head line (the job, for a bounded job the part done and
 * the time left, its real and processing time), then every subtask with
 * its output watermark, the lag of that watermark behind the newest event
 * time it saw, records per second in and out, Flink's busy, idle and
 * back-pressured milliseconds per second, and late records; under it its
 * inputs (a source's partitions, an operator's input channels) with their
 * watermarks and ACTIVE/IDLE, the one that holds the subtask marked; and
 * while its watermark is held, a blame line: followed upstream, which
 * source subtask and partition holds it, for how long, and why (silence,
 * back-pressure, or a watermark that is merely low).
 *
 * The lines: one when a subtask's watermark has not moved for the job's
 * stall threshold (or a real run's scheduling noise, if longer), naming
 * what holds it; one when what holds it (the subtask, partition and
 * cause) changes and the new holder has lasted as long again; one when
 * it moves again; and a status line every `status_every_ns` of real
 * time. Below the stall threshold the minimum moves between inputs as
 * their watermarks overtake each other, and a cause read at each
 * sampling interval can flip between readings: neither is news.
 *
 * The screen's lines are marked with what they show and how much they
 * matter (screen.h): the head line always shown, the held subtasks, their
 * inputs and blame lines next, so that a short terminal keeps them.
 *
 * Pure: text goes into the caller's frame or FILE, time comes in the
 * snapshots.
 */
#ifndef WM_RUNTIME_OBSERVE_VIEW_H
#define WM_RUNTIME_OBSERVE_VIEW_H

#include <stdio.h>

#include "runtime/conf/topology.h"
#include "runtime/observe/screen.h"
#include "runtime/observe/snapshot.h"
#include "runtime/plan/plan.h"

struct wm_view;

/* A view of the job `topo` with plan `plan`, whose start line was at
 * `start_real_ns` (the clock of the snapshots' real_ns). NULL: ENOMEM. */
struct wm_view *wm_view_new(const struct wm_topology *topo,
			    const struct wm_plan *plan, int64_t start_real_ns,
			    int64_t status_every_ns);
void wm_view_free(struct wm_view *view);

/* A real run's scheduling noise at its speed (runtime/observe/snapshot.h noise_ns):
 * named in the head line, and no watermark held for less is news. */
void wm_view_set_noise(struct wm_view *view, int64_t noise_ns);

/* The terminal's height (0: unknown): a taller screen shows, under each
 * stage, only its held subtasks and the input that holds each, and
 * counts the others. */
void wm_view_set_rows(struct wm_view *view, uint32_t rows);

/* The whole screen for `snap`, into the frame `scr` (begun, not ended),
 * each line marked with what it shows and how much it matters. */
void wm_view_screen(struct wm_view *view, const struct wm_snapshot *snap,
		    struct wm_screen *scr);

/* The lines `snap` makes news of, since the snapshot before, into f. */
void wm_view_lines(struct wm_view *view, const struct wm_snapshot *snap,
		   FILE *f);

/* The part of a bounded job done as of `snap`, 0 to 1; negative when the
 * job is unbounded or nothing tells yet. */
double wm_view_done(const struct wm_view *view, const struct wm_snapshot *snap);

#endif /* WM_RUNTIME_OBSERVE_VIEW_H */
