/*
 * progress.c
 *	Stall and idle accounting of one watermark (definitions in
 *	progress.h).
 */
#include "config.h"

#include "base/assert.h"
#include "runtime/engine/progress.h"

/* The tracker's books balance (progress.h): switches alternate, so while
 * the stream lasts there is one more to IDLE than to ACTIVE exactly when
 * it is IDLE (and the stream may end IDLE); the longest stall is one of
 * those in the total. Time never going back is checked where stretches
 * close. */
static void
check(const struct wm_progress *p)
{
	WM_ASSERT(p->done || p->to_idle == p->to_active + (p->idle ? 1u : 0u));
	WM_ASSERT(p->to_idle - p->to_active <= 1);
	WM_ASSERT(p->longest_stall_ns <= p->stalled_ns);
	WM_ASSERT(p->stalls > 0 || p->stalled_ns == 0);
	WM_ASSERT(p->noise_stalls > 0 || p->noise_stalled_ns == 0);
	WM_ASSERT(p->noise_speed > 0 || p->noise_stalls == 0);
}

void
wm_progress_init(struct wm_progress *p, int64_t threshold_ns)
{
	WM_ASSERT(threshold_ns > 0); /* the topology refuses anything else */
	*p = (struct wm_progress){
		.threshold_ns = threshold_ns,
		.longest_cause = WM_PROGRESS_NO_CAUSE,
		.watermark = WM_TS_MIN,
	};
}

void
wm_progress_start_at(struct wm_progress *p, int64_t now_ns)
{
	p->still_since_ns = now_ns;
	p->idle_since_ns = now_ns;
}

void
wm_progress_follow_starvation(struct wm_progress *p, const int64_t *starved_ns)
{
	p->starved = starved_ns;
	p->starved_at_still_ns = *starved_ns;
}

void
wm_progress_follow_due(struct wm_progress *p, const struct wm_progress_due *due)
{
	p->due = due;
}

void
wm_progress_count_noise(struct wm_progress *p, double speed)
{
	WM_ASSERT(speed > 0); /* the topology refuses anything else */
	p->noise_speed = speed;
}

static int64_t
starved_now(const struct wm_progress *p)
{
	return p->starved != NULL ? *p->starved : 0;
}

/* A still stretch begins at `now_ns`. */
static void
start_still(struct wm_progress *p, int64_t now_ns)
{
	p->still_since_ns = now_ns;
	p->starved_at_still_ns = starved_now(p);
}

/* When, by the schedule, the update at `now_ns` was due (`last`: the
 * time the stretch after it begins, else the one before it ends): the
 * schedule's `first` or `last` in a real run, never before `from_ns` (the
 * stretch's start, or the end of the one before); now otherwise. */
static int64_t
due_at(const struct wm_progress *p, bool last, int64_t from_ns, int64_t now_ns)
{
	int64_t t = now_ns;

	if (p->noise_speed > 0 && p->due != NULL) {
		int64_t d = last ? p->due->last_ns : p->due->first_ns;

		if (d < t)
			t = d;
		/* The schedule may lie before the stretch began. */
		if (t < from_ns)
			t = from_ns;
	}
	/* Elsewhere `now_ns` before the stretch's start breaks the contract,
	 * and close_still() and close_idle() say so. */
	return t;
}

/* The still stretch [still_since, now) ends: a stall if long enough by
 * the schedule (it ends at `end_ns`, when the update was due), noise if
 * only by the time the process took to make it (progress.h). The caller
 * starts the next stretch. */
static void
close_still(struct wm_progress *p, int64_t end_ns, int64_t now_ns,
	    uint32_t cause)
{
	int64_t still = end_ns - p->still_since_ns;
	int64_t late = now_ns - p->still_since_ns;
	int64_t starved = starved_now(p) - p->starved_at_still_ns;

	WM_ASSERT(still >= 0 && late >= still);
	if (still > p->threshold_ns) {
		p->stalled_ns += still;
		p->stalls++;
		if (still > p->longest_stall_ns) {
			p->longest_stall_ns = still;
			p->longest_cause = cause;
			p->longest_starved_ns = starved;
		}
	} else if (late > p->threshold_ns && p->noise_speed > 0) {
		p->noise_stalls++;
		p->noise_stalled_ns += late;
		p->noise_starved_ns += starved;
	}
}

/* The idle stretch [idle_since, now) ends. */
static void
close_idle(struct wm_progress *p, int64_t now_ns)
{
	WM_ASSERT(now_ns >= p->idle_since_ns);
	p->idle_ns += now_ns - p->idle_since_ns;
}

void
wm_progress_watermark(struct wm_progress *p, wm_ts_t w, int64_t now_ns,
		      uint32_t cause)
{
	if (p->done || w <= p->watermark)
		return;
	p->watermark = w;
	/* An advance while IDLE is announced is not possible for an output
	 * (Flink sends ACTIVE first) but is for a partition's slot, whose
	 * generator may advance before its status is re-read: the idle
	 * stretch decides, nothing was stalled. */
	if (!p->idle) {
		int64_t first = due_at(p, false, p->still_since_ns, now_ns);

		close_still(p, first, now_ns, cause);
		start_still(p, due_at(p, true, first, now_ns));
	}
	if (w == WM_TS_MAX) {
		if (p->idle) {
			close_idle(p,
				   due_at(p, false, p->idle_since_ns, now_ns));
			p->idle = false;
		}
		p->done = true;
	}
	check(p);
}

void
wm_progress_status(struct wm_progress *p, bool idle, int64_t now_ns,
		   uint32_t cause)
{
	if (p->done || idle == p->idle)
		return;
	if (idle) {
		int64_t first = due_at(p, false, p->still_since_ns, now_ns);

		close_still(p, first, now_ns, cause);
		p->idle_since_ns = first;
		p->to_idle++;
	} else {
		int64_t first = due_at(p, false, p->idle_since_ns, now_ns);

		close_idle(p, first);
		start_still(p, due_at(p, true, first, now_ns));
		p->to_active++;
	}
	p->idle = idle;
	check(p);
}

void
wm_progress_finish(struct wm_progress *p, int64_t now_ns)
{
	if (p->done)
		return;
	if (p->idle) {
		close_idle(p, due_at(p, false, p->idle_since_ns, now_ns));
		p->idle = false;
	} else {
		close_still(p, due_at(p, false, p->still_since_ns, now_ns),
			    now_ns, WM_PROGRESS_NO_CAUSE);
	}
	p->done = true;
	check(p);
}

void
wm_progress_read(const struct wm_progress *p, int64_t now_ns,
		 struct wm_progress_reading *out)
{
	/* A reading is what finishing now would leave: a copy is closed as
	 * the stream's end closes it (an open stall ended by nothing). */
	struct wm_progress q = *p;
	int64_t latest = p->idle ? p->idle_since_ns : p->still_since_ns;

	/* ... and closed at its own time, not the schedule's: a real run's
	 * reader took the process's lateness off `now_ns` already (which
	 * may put it before the last update, taken by the schedule: it
	 * reads as that). Elsewhere an earlier reading breaks the contract
	 * (check()). */
	q.due = NULL;
	if (p->noise_speed > 0 && now_ns < latest)
		now_ns = latest;
	wm_progress_finish(&q, now_ns);
	*out = (struct wm_progress_reading){
		.watermark = p->watermark,
		.idle = p->idle,
		.stalled_ns = q.stalled_ns,
		.longest_stall_ns = q.longest_stall_ns,
		.longest_cause = q.longest_cause,
		.stalls = q.stalls,
		.stalled_now = q.stalls > p->stalls,
		.idle_ns = q.idle_ns,
		.to_idle = p->to_idle,
		.to_active = p->to_active,
		.longest_starved_ns = q.longest_starved_ns,
		.noise_stalls = q.noise_stalls,
		.noise_stalled_ns = q.noise_stalled_ns,
		.noise_starved_ns = q.noise_starved_ns,
		.since_ns = p->idle ? p->idle_since_ns : p->still_since_ns,
	};
}

void
wm_progress_publish(const struct wm_progress *p, int64_t now_ns,
		    struct wm_watermark_metrics *m)
{
	struct wm_progress_reading r;

	wm_progress_read(p, now_ns, &r);
	WM_METRIC_SET(m->watermark, r.watermark);
	WM_METRIC_SET(m->idle, r.idle);
	WM_METRIC_SET(m->stalled_ns, r.stalled_ns);
	WM_METRIC_SET(m->longest_stall_ns, r.longest_stall_ns);
	WM_METRIC_SET(m->longest_cause, r.longest_cause);
	WM_METRIC_SET(m->stalls, r.stalls);
	WM_METRIC_SET(m->stalled_now, r.stalled_now);
	WM_METRIC_SET(m->idle_ns, r.idle_ns);
	WM_METRIC_SET(m->to_idle, r.to_idle);
	WM_METRIC_SET(m->to_active, r.to_active);
	WM_METRIC_SET(m->longest_starved_ns, r.longest_starved_ns);
	WM_METRIC_SET(m->noise_stalls, r.noise_stalls);
	WM_METRIC_SET(m->noise_stalled_ns, r.noise_stalled_ns);
	WM_METRIC_SET(m->since_ns, r.since_ns);
	WM_METRIC_SET(m->noise_starved_ns, r.noise_starved_ns);
}
