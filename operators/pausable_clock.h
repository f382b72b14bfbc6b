/*
 * pausable_clock.h
 *	A clock that stops while paused (Flink's PausableRelativeClock,
 *	FLIP-471): the time idleness is judged on.
 *
 * Since Flink 1.20 / 2.0 a source's idleness timers do not count time in
 * which the source could not read: while its task is back-pressured (the
 * subtask's clock) and, for one split, while watermark alignment pauses it
 * (the split's clock, layered on the subtask's: paused when either is).
 * Without it a back-pressured or aligned-away split would go idle and stop
 * holding the watermark, precisely when it is behind (doc/semantics.md
 * sections 2.7 and 3.7).
 *
 * A clock reads its parent's time minus every stretch it was paused,
 * measured in its parent's time:
 *
 *	read(c, t) = (c->paused ? c->paused_at : t) - c->paused_total
 *
 * so, given parent times that never go backwards (every call's
 * parent_now at least the one before: the caller's duty), it never goes
 * backwards either, stands still while paused and runs on from where it
 * stopped. Layering is reading the parent first: a split's time is
 * read(split, read(subtask, now)). Pausing a paused clock or resuming a
 * running one changes nothing. Pure, one thread.
 */
#ifndef WM_OPERATORS_PAUSABLE_CLOCK_H
#define WM_OPERATORS_PAUSABLE_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wm_pausable_clock {
	int64_t paused_total; /* parent time spent paused, closed stretches */
	int64_t paused_at;    /* parent time the current pause began */
	bool paused;
};

static inline int64_t
wm_pausable_clock_read(const struct wm_pausable_clock *c, int64_t parent_now)
{
	return (c->paused ? c->paused_at : parent_now) - c->paused_total;
}

static inline void
wm_pausable_clock_pause(struct wm_pausable_clock *c, int64_t parent_now)
{
	if (c->paused)
		return;
	c->paused_at = parent_now;
	c->paused = true;
}

static inline void
wm_pausable_clock_resume(struct wm_pausable_clock *c, int64_t parent_now)
{
	if (!c->paused)
		return;
	c->paused_total += parent_now - c->paused_at;
	c->paused = false;
}

/* Paused or running at `parent_now`, as `paused` says: what an owner
 * that learns its state as a flag (back-pressured, aligned away) calls. */
static inline void
wm_pausable_clock_set_paused(struct wm_pausable_clock *c, bool paused,
			     int64_t parent_now)
{
	if (paused)
		wm_pausable_clock_pause(c, parent_now);
	else
		wm_pausable_clock_resume(c, parent_now);
}

/*
 * checkpoint_watermarks: what a clock has taken off its parent's time up
 * to `parent_now` (an open pause counted to then), and a clock set from
 * it, running: it reads parent time minus that offset from then on, so a
 * restored clock goes on from where the snapshot's stood, and the time
 * between the snapshot and the restore counts as running time (the job's
 * processing time continues across a restart). A pause that was open is
 * not: whoever paused it decides again after the restore.
 */
static inline int64_t
wm_pausable_clock_offset(const struct wm_pausable_clock *c, int64_t parent_now)
{
	return parent_now - wm_pausable_clock_read(c, parent_now);
}

static inline void
wm_pausable_clock_set_offset(struct wm_pausable_clock *c, int64_t offset)
{
	c->paused_total = offset;
	c->paused_at = 0;
	c->paused = false;
}

/*
 * The processing time from which a timer reading `clock` (layered on
 * `parent`, or NULL for a clock on processing time itself) reaches
 * `reading`: a clock running now reads processing time minus its pauses;
 * one standing still reads one value until the caller resumes it, so
 * either it has reached `reading` already (0: at once) or it will not
 * (INT64_MAX). What the --sim driver asks to jump over idleness probes.
 */
static inline int64_t
wm_pausable_clock_time_of_reading(const struct wm_pausable_clock *parent,
				  const struct wm_pausable_clock *clock,
				  int64_t reading)
{
	int64_t offset;

	if (reading == INT64_MAX)
		return INT64_MAX;
	if (clock->paused || (parent != NULL && parent->paused)) {
		/* The argument is not read while a clock stands still. */
		int64_t now = wm_pausable_clock_read(
			clock,
			parent != NULL ? wm_pausable_clock_read(parent, 0) : 0);

		return now >= reading ? 0 : INT64_MAX;
	}
	offset = clock->paused_total +
		 (parent != NULL ? parent->paused_total : 0);
	if (__builtin_add_overflow(reading, offset, &offset))
		return INT64_MAX;
	return offset;
}

#endif /* WM_OPERATORS_PAUSABLE_CLOCK_H */
