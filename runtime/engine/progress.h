/*
 * progress.h
 *	How a watermark moved over processing time: when it stood still for
 *	too long (a stall), and when it was idle. One tracker follows one
 *	watermark: a subtask's output or a source partition's.
 *
 * Definitions (processing time in ns since the job started, event time in
 * ms; every figure in the job summary comes from these):
 *
 *   still since   the last time the watermark advanced, or became ACTIVE,
 *                 or the job started (0)
 *   stall         a stretch of ACTIVE time without an advance longer than
 *                 the threshold ([job] stall_threshold); it is counted
 *                 whole, from `still since` to the advance, the switch to
 *                 IDLE or the end of the job that closes it. While IDLE
 *                 the watermark is not held down by anything it waits
 *                 for: that time is idle time, not stalled time.
 *   idle time     the sum of IDLE stretches; transitions count each
 *                 switch (ACTIVE -> IDLE and IDLE -> ACTIVE separately)
 *   done          the watermark reached MAX (end of stream): nothing is
 *                 counted afterwards
 *   cause         what ended the longest stall: the caller names, with
 *                 each update, what it came from (an operator its input
 *                 channel: the channel whose watermark or IDLE moved the
 *                 operator's watermark was the one holding it), or
 *                 WM_PROGRESS_NO_CAUSE
 *   starved       how much of the longest stall its process spent
 *                 runnable but not running, waiting for a CPU: the
 *                 growth, over the stall, of a count the caller keeps
 *                 (wm_progress_follow_starvation(); real nanoseconds, not
 *                 processing time). A stall of a starved process is the
 *                 machine's doing, not the data's.
 *   due           in a real run, when what moved the watermark was due
 *                 by the records' schedule (wm_progress_follow_due()): a
 *                 source knows when each record was due, and a watermark
 *                 frame carries that on downstream. A process that ran
 *                 late (waiting for a CPU, or behind its schedule) moves
 *                 the watermark later than the schedule allowed; that
 *                 lateness is the process's, not a stall of the
 *                 watermark. So a still stretch ends when the event that
 *                 ended it was due (`first`), and the next begins when
 *                 the last record it carried was due (`last`): a backlog
 *                 emitted at once stands for the advances --sim makes one
 *                 by one. Both lie between the stretch's start and now.
 *   noise         in a real run (wm_progress_count_noise()), a still
 *                 stretch longer than the threshold in real time but not
 *                 by the schedule (above): the process's lateness made
 *                 it look a stall. It is counted apart (how many, how
 *                 long, how much of it waiting for a CPU) and in none of
 *                 the stall figures above, the longest and its cause
 *                 included. --sim counts none: its schedule is exact.
 *
 * A stretch still open at the time of a reading counts up to that time, so
 * a reading is what a user would see if the job ended then. Pure: time is
 * passed in; one thread writes a tracker.
 */
#ifndef WM_RUNTIME_ENGINE_PROGRESS_H
#define WM_RUNTIME_ENGINE_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "operators/output.h"
#include "runtime/metrics/metrics.h"

#define WM_PROGRESS_NO_CAUSE UINT32_MAX

/* When the event at hand was due by the schedule (progress.h `due`):
 * processing times, first <= last, both <= the time of the event. The
 * caller keeps one per tracker and sets it before each update. */
struct wm_progress_due {
	int64_t first_ns;
	int64_t last_ns;
};

struct wm_progress {
	int64_t threshold_ns;
	uint32_t longest_cause;
	wm_ts_t watermark; /* MIN at start */
	bool idle;
	bool done;
	int64_t still_since_ns;
	int64_t idle_since_ns;
	/* closed stretches */
	int64_t stalled_ns;
	int64_t longest_stall_ns;
	uint64_t stalls;
	int64_t idle_ns;
	uint64_t to_idle, to_active;
	/* starved: the caller's count, its value at still_since, and its
	 * growth over the longest stall */
	const int64_t *starved;
	int64_t starved_at_still_ns;
	int64_t longest_starved_ns;
	/* due: the caller's schedule of each update; NULL: now */
	const struct wm_progress_due *due;
	/* noise: the run's speed (0: no scheduler, no noise), and the
	 * stalls within it */
	double noise_speed;
	uint64_t noise_stalls;
	int64_t noise_stalled_ns;
	int64_t noise_starved_ns;
};

/* What a reading at some time gives, open stretches included. */
struct wm_progress_reading {
	wm_ts_t watermark;
	bool idle;
	int64_t stalled_ns;
	int64_t longest_stall_ns;
	uint32_t longest_cause; /* NO_CAUSE when still open at the reading */
	bool stalled_now;	/* a stall is open at the reading */
	uint64_t stalls;
	int64_t idle_ns;
	uint64_t to_idle, to_active;
	int64_t longest_starved_ns; /* of the longest stall */
	uint64_t noise_stalls;	    /* the scheduler's, in none of the above */
	int64_t noise_stalled_ns;
	int64_t noise_starved_ns; /* real time waiting for a CPU in them */
	/* When the present state began: IDLE since, or ACTIVE and still
	 * since (`still since` above); what alerts measure episodes from
	 * (runtime/observe/alerts.h). */
	int64_t since_ns;
};

/* ACTIVE at MIN from time 0; stalls are stretches longer than
 * `threshold_ns` (> 0). */
void wm_progress_init(struct wm_progress *p, int64_t threshold_ns);

/* Take the starvation of each stall from `*starved_ns`, a count that
 * only grows (the process's time waiting for a CPU), read at each update;
 * its value now is where the still stretch begins. */
/* A tracker just initialised starts at `now_ns` instead of 0: a subtask
 * restarted after a crash counts its stretches from its restart. */
void wm_progress_start_at(struct wm_progress *p, int64_t now_ns);
void wm_progress_follow_starvation(struct wm_progress *p,
				   const int64_t *starved_ns);

/* Take when each update was due from `*due` (progress.h `due`), which the
 * caller sets before every update; used only by a tracker that counts
 * noise (a real run). */
void wm_progress_follow_due(struct wm_progress *p,
			    const struct wm_progress_due *due);

/* The tracker's process runs on a real scheduler, its processing time
 * real time times `speed` (> 0): a still stretch that is a stall only by
 * the process's lateness, not by the schedule (`due`), is counted apart
 * as noise. */
void wm_progress_count_noise(struct wm_progress *p, double speed);

/* The watermark is now `w` at `now_ns` (ignored unless it advanced),
 * because of `cause`. */
void wm_progress_watermark(struct wm_progress *p, wm_ts_t w, int64_t now_ns,
			   uint32_t cause);

/* The status is now IDLE (`idle`) or ACTIVE (ignored unless it changed),
 * because of `cause`. */
void wm_progress_status(struct wm_progress *p, bool idle, int64_t now_ns,
			uint32_t cause);

/* The watermark's stream ended at `now_ns` (a partition finished): open
 * stretches close as a reading would count them, nothing is counted
 * after. */
void wm_progress_finish(struct wm_progress *p, int64_t now_ns);

/* The figures as of `now_ns` (>= every time passed before; in a real run,
 * an earlier time, a reading less the process's lateness, reads as the
 * latest time passed before). */
void wm_progress_read(const struct wm_progress *p, int64_t now_ns,
		      struct wm_progress_reading *out);

/* The reading at `now_ns` into a metrics block's watermark figures, for
 * the supervisor (metrics.h: one writer, relaxed stores). */
void wm_progress_publish(const struct wm_progress *p, int64_t now_ns,
			 struct wm_watermark_metrics *m);

#endif /* WM_RUNTIME_ENGINE_PROGRESS_H */
