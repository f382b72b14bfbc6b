/*
 * task_window.c
 *	A window subtask: its window operator (operators/window.h) between
 *	the task's valves and its output, the results it fires to the
 *	chained sinks and, as records, down its edges to the stages that
 *	read it, its late records to the side output, and how long after
 *	its end each window fired.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/assert.h"
#include "runtime/engine/task_out.h"
#include "runtime/engine/task_state.h"

/* More than 2^62 ms (146 million years) from 1970 either way, a time is
 * the end of the int64 range, not a date. */
#define ENDS_OF_TIME_MS ((int64_t)1 << 62)

/* A window at the ends of time: wrapped there (Flink's arithmetic), or
 * reaching beyond ENDS_OF_TIME_MS. */
static bool
at_ends_of_time(struct wm_time_window w)
{
	return w.end < w.start || w.start < -ENDS_OF_TIME_MS ||
	       w.end > ENDS_OF_TIME_MS;
}

/* How long after its end a window fired, into the fire-delay figures. */
static void
count_fire_delay(struct task_window *win, const struct wm_window_result *r,
		 int64_t fire_time_ms)
{
	/* The job's clock (sources.h) at the firing less the window's end:
	 * how long after its end the window fired, where event time follows
	 * processing time (generated records, Kafka's, a replayed trace
	 * paced on its arrivals or its event time). A trace's
	 * timestamps may lie anywhere in 64 bits, and a window at either end
	 * wraps as Flink's does (its end before its start), or lies so far
	 * from any processing time that its delay is that distance and
	 * nothing else: such a delay is garbage, left out of the figures and
	 * counted, so that the summary can say so. */
	struct wm_subtask_metrics *m = win->task->metrics;
	int64_t at_ms, delay;
	unsigned fine;
	uint64_t group;

	if (at_ends_of_time(r->window) ||
	    __builtin_add_overflow(fire_time_ms, win->task->clock_zero_ms,
				   &at_ms) ||
	    __builtin_sub_overflow(at_ms, r->window.end, &delay)) {
		win->fire_delays_excluded++;
		return;
	}
	if (delay > win->fire_delay_max_ms)
		win->fire_delay_max_ms = delay;
	/* Both histograms, as metrics.h says why: the live view's and the
	 * summary's, whose group is marked before its count. */
	WM_METRIC_ADD(m->fire_delays[wm_histogram_bucket(delay)], 1);
	fine = wm_histogram_shape_bucket(WM_HISTOGRAM_FINE, delay);
	group = (uint64_t)1 << (fine >> WM_HISTOGRAM_FINE_GROUP_BITS);
	if ((WM_METRIC_GET(m->fire_delay_groups) & group) == 0)
		WM_METRIC_SET(m->fire_delay_groups,
			      WM_METRIC_GET(m->fire_delay_groups) | group);
	WM_METRIC_ADD(win->task->fire_delays[fine], 1);
}

/*
 * A result as a record down the edges, for the stages that read the
 * window: its key (a string key stays one), the window's maxTimestamp (end
 * - 1, which Flink's WindowOperator gives what it emits, for a merged
 * session and a processing-time window alike), and the aggregate [window]
 * emit names. It goes when the sinks get it: within the operator's
 * firing, so before the watermark that fired it (window.h), and that
 * watermark, behind the timestamp, cannot make it late downstream; a late
 * firing's may be late there, as in Flink. Its partition is none of a
 * source's. Counted once, in the window's numRecordsOut (window_result()).
 */
static void
send_result(struct task_window *win, const struct wm_window_result *r)
{
	enum wm_window_emit emit = win->task->stage->u.window.emit;
	struct wm_record rec = {
		.ts = r->timestamp,
		.key = r->key,
		.value = emit == WM_WINDOW_EMIT_COUNT ? r->count
			 : emit == WM_WINDOW_EMIT_SUM ? r->sum
			 : emit == WM_WINDOW_EMIT_MIN ? r->min
						      : r->max,
		.flags = win->key_flags,
		.partition = 0,
	};

	/* No stage but a sink reads a window without (check_input()). */
	WM_ASSERT(emit != WM_WINDOW_EMIT_NONE);
	wm_task_send_result(win->task, &rec);
}

static void
window_result(struct wm_window_output *o, const struct wm_window_result *r)
{
	struct task_window *win = wm_container_of(o, struct task_window, out);
	struct wm_task *t = win->task;
	/* A timer firing happens for the watermark being processed; a late
	 * firing at the operator's current watermark. */
	wm_ts_t w = r->late_firing ? wm_window_watermark(win->op)
				   : win->firing_watermark;
	int64_t fire_time_ms = t->now_ns / 1000000;

	t->out->result(t->out, r, w, fire_time_ms);
	win->results++;
	t->counters.records_out++; /* numRecordsOut: what it emitted */
	if (t->n_edges > 0)
		send_result(win, r);
	if (!r->late_firing)
		count_fire_delay(win, r, fire_time_ms);
}

static void
window_late(struct wm_window_output *o, const struct wm_record *r)
{
	struct task_window *win = wm_container_of(o, struct task_window, out);

	win->task->out->late(win->task->out, 0, r);
	/* Flink counts a side output's records in numRecordsOut too. */
	win->task->counters.records_out++;
}

/* The window operator's own watermarks and statuses go to the edges. */
static void
window_base_watermark(struct wm_output *o, wm_ts_t w)
{
	struct task_window *win =
		wm_container_of(o, struct task_window, out.base);

	wm_output_watermark(&win->task->edges_out, w);
}

static void
window_base_status(struct wm_output *o, enum wm_status s)
{
	struct task_window *win =
		wm_container_of(o, struct task_window, out.base);

	wm_output_status(&win->task->edges_out, s);
}

int
wm_task_init_window(struct wm_task *t)
{
	struct task_window *win = calloc(1, sizeof(*win));
	const char *why;

	if (win == NULL)
		return -ENOMEM;
	t->window = win;
	win->task = t;
	win->late.max_ms = -1;
	win->op = wm_window_new(&t->stage->u.window.op, &why);
	if (win->op == NULL)
		return -errno;
	t->processing_clock = t->stage->u.window.op.processing_time;
	win->out.result = window_result;
	win->out.late = window_late;
	win->out.base.watermark = window_base_watermark;
	win->out.base.status = window_base_status;
	return 0;
}

void
wm_task_free_window(struct wm_task *t)
{
	if (t->window == NULL)
		return;
	wm_window_free(t->window->op);
	free(t->window);
	t->window = NULL;
}

/* What the window could not allocate, for wm_task_why(). Out of the way of
 * wm_task_window_record() and wm_task_window_records(), which run for
 * every record and every run. */
static __attribute__((cold, noinline)) int
out_of_memory(struct wm_task *t, uint32_t input, const struct wm_record *r)
{
	const struct wm_window_assigner *a = &t->stage->u.window.op.assigner;

	/* Lost with the job, neither taken nor received: the summary
	 * counts it in flight. */
	t->counters.records_in--;
	wm_task_received(t, input, -1);
	if (a->kind == WM_WINDOW_SESSION)
		snprintf(t->why, sizeof(t->why),
			 "could not allocate the session window of a record "
			 "(key %" PRId64 ", timestamp %" PRId64
			 "): out of memory",
			 r->key, r->ts);
	else
		snprintf(t->why, sizeof(t->why),
			 "could not allocate the state of the %" PRIu32
			 " window%s of a record (key %" PRId64
			 ", timestamp %" PRId64 "): out of memory",
			 a->max_windows, a->max_windows == 1 ? "" : "s", r->key,
			 r->ts);
	return -ENOMEM;
}

/* A record the operator judged late (wm_task_count_late()). */
static void
count_late(struct task_window *win, const struct wm_record *r)
{
	wm_task_count_late(win->task, &win->late, wm_window_watermark(win->op),
			   r);
}

/* Records the operator judged late so far, dropped or side output. */
static uint64_t
late_so_far(const struct task_window *win)
{
	const struct wm_window_counters *c = wm_window_counters(win->op);

	return c->late_records_dropped + c->late_records_side_output;
}

/* A record without a timestamp, or a session merge Flink refuses, is
 * counted as rejected by the operator (records in no window); only running
 * out of memory stops the job. One record alone costs less through
 * wm_window_process_element(), its verdict read off the counters, than as
 * a run of one (doc/performance.md section 9.23). */
int
wm_task_window_record(struct wm_task *t, uint32_t input,
		      const struct wm_record *r)
{
	struct task_window *win = t->window;
	uint64_t late = late_so_far(win);

	if (__builtin_expect(wm_window_process_element(win->op, r, &win->out) ==
				     -ENOMEM,
			     0))
		return out_of_memory(t, input, r);
	if (late_so_far(win) != late)
		count_late(win, r);
	return 0;
}

int
wm_task_window_records(struct wm_task *t, uint32_t input,
		       const struct wm_record *r, uint32_t n, uint32_t *taken)
{
	struct task_window *win = t->window;
	size_t late[WM_TASK_WINDOW_RUN];
	size_t n_late;

	WM_ASSERT(n <= WM_TASK_WINDOW_RUN);
	*taken = (uint32_t)wm_window_process_run(win->op, r, n, &win->out, late,
						 &n_late);
	for (size_t k = 0; k < n_late; k++)
		count_late(win, &r[late[k]]);
	if (__builtin_expect(*taken < n, 0)) {
		/* Counted in by the caller, then never taken. */
		t->counters.records_in -= n - *taken - 1;
		return out_of_memory(t, input, &r[*taken]);
	}
	return 0;
}

/* The window fires its timers for the watermark, then forwards it. */
void
wm_task_window_watermark(struct wm_task *t, wm_ts_t w)
{
	t->window->firing_watermark = w;
	wm_window_process_watermark(t->window->op, w, &t->window->out);
}

/* Processing time is now_ns: a processing-time window fires what fell
 * due before it (its results say the event-time watermark of the time). */
void
wm_task_window_time(struct wm_task *t, int64_t now_ns)
{
	struct task_window *win = t->window;

	win->firing_watermark = wm_window_watermark(win->op);
	wm_window_advance_time(win->op, now_ns / 1000000, &win->out);
}

int64_t
wm_task_timers_due(const struct wm_task *t)
{
	int64_t ms;

	if (!t->processing_clock || t->finished)
		return INT64_MAX;
	ms = wm_window_next_time(t->window->op);
	return ms < INT64_MAX / 1000000 ? ms * 1000000 : INT64_MAX;
}

void
wm_task_run_timers(struct wm_task *t, int64_t now_ns)
{
	if (!t->processing_clock || t->finished)
		return;
	t->now_ns = now_ns;
	wm_task_window_time(t, now_ns);
}

void
wm_task_window_status(struct wm_task *t, enum wm_status s)
{
	wm_window_process_status(t->window->op, s, &t->window->out);
}

void
wm_task_publish_window(const struct wm_task *t)
{
	const struct task_window *win = t->window;
	const struct wm_window_counters *c = wm_window_counters(win->op);
	struct wm_subtask_metrics *m = t->metrics;

	WM_METRIC_SET(m->results, win->results);
	WM_METRIC_SET(m->fire_delay_max_ms, win->fire_delay_max_ms);
	WM_METRIC_SET(m->fire_delays_excluded, win->fire_delays_excluded);

	WM_METRIC_SET(m->records_windowed, c->records_accepted);
	WM_METRIC_SET(m->late_dropped, c->late_records_dropped);
	WM_METRIC_SET(m->late_side_output, c->late_records_side_output);
	WM_METRIC_SET(m->other_dropped,
		      c->records_ignored + c->records_rejected);
	WM_METRIC_SET(m->windows_fired, c->windows_fired);
	WM_METRIC_SET(m->windows_fired_late, c->windows_fired_late);
	WM_METRIC_SET(m->windows_open, wm_window_state_count(win->op));
	wm_task_publish_lateness(t, &win->late);
}

/* A window's records are accounted for by its operator, whose counters
 * balance (window.h). What it emits, its numRecordsOut, is its results
 * and the late records it sent to the side output; its results as
 * records on its edges are counted in what each edge sent, not again. */
void
wm_task_check_window(const struct wm_task *t)
{
	const struct wm_window_counters *w = wm_window_counters(t->window->op);

	WM_ASSERT(wm_window_counters_balanced(w));
	WM_ASSERT(w->records_in == t->counters.records_in);
	WM_ASSERT(t->counters.records_out ==
		  t->window->results + w->late_records_side_output);
}

const struct wm_window *
wm_task_window(const struct wm_task *t)
{
	return t->window != NULL ? t->window->op : NULL;
}
