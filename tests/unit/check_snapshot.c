/*
 * check_snapshot.c
 *	Unit tests of snapshots of the metrics blocks: figures per second,
 *	the time split, how long a watermark has not moved, and the blame
 *	chain from a window up to the partition that holds it.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/conf/topology.h"
#include "runtime/observe/snapshot.h"
#include "runtime/observe/timeline.h"
#include "runtime/observe/view.h"
#include "runtime/plan/plan.h"
#include "tests/unit/check_main.h"
#include "tests/unit/job_blocks.h"

#define SECOND 1000000000LL

/* Two source subtasks of two partitions each, feeding one window. */
struct job {
	struct wm_topology *topo;
	struct wm_plan *plan;
	char *blocks;
	uint32_t s0, s1, w;
};

static void
job_open(struct job *j)
{
	memset(j, 0, sizeof(*j));
	job_blocks_open("[job]\nevent_time = 1 h\n"
			"[source s]\nparallelism = 2\npartitions = 4\n"
			"rate = 1/s\n"
			"[window w]\ninput = s\nsize = 10 s\n",
			&j->topo, &j->plan, &j->blocks);
	j->s0 = j->plan->first[0];
	j->s1 = j->s0 + 1;
	j->w = j->plan->first[1];
	ck_assert_uint_eq(j->plan->subtasks[j->w].n_inputs, 2);
}

static void
job_close(struct job *j)
{
	job_blocks_close(j->topo, j->plan, j->blocks);
}

static struct wm_subtask_metrics *
block(struct job *j, uint32_t id)
{
	return wm_plan_block(j->plan, j->blocks, id);
}

static struct wm_partition_metrics *
partitions(struct job *j, uint32_t id)
{
	return wm_plan_partitions(j->plan, j->blocks, id);
}

/* Source subtask `id` reading partitions `a` and `b`, with `ra` and `rb`
 * records emitted, watermark `wm` held back by partition `held`, and no
 * record due that it has not sent. */
static void
set_source(struct job *j, uint32_t id, uint32_t a, uint64_t ra, uint32_t b,
	   uint64_t rb, wm_ts_t wm, uint32_t held)
{
	struct wm_subtask_metrics *m = block(j, id);
	struct wm_partition_metrics *parts = partitions(j, id);

	WM_METRIC_SET(m->n_partitions, 2);
	WM_METRIC_SET(parts[0].partition, a);
	WM_METRIC_SET(parts[0].records, ra);
	WM_METRIC_SET(parts[0].progress.watermark, wm);
	WM_METRIC_SET(parts[1].partition, b);
	WM_METRIC_SET(parts[1].records, rb);
	WM_METRIC_SET(parts[1].progress.watermark, wm);
	WM_METRIC_SET(m->output.watermark, wm);
	WM_METRIC_SET(m->records_in, ra + rb);
	WM_METRIC_SET(m->records_out, ra + rb);
	WM_METRIC_SET(m->held_by_now, held);
	WM_METRIC_SET(m->next_record_due_ns, INT64_MAX);
}

/* The window's input channel whose producer is `producer`. */
static uint32_t
channel_from(struct job *j, uint32_t producer)
{
	const struct wm_plan_subtask *sub = &j->plan->subtasks[j->w];

	for (uint32_t c = 0; c < sub->n_inputs; c++)
		if (j->plan->channels[sub->inputs[c]].producer == producer)
			return c;
	ck_abort_msg("no channel from %u", producer);
	return 0;
}

/* The window, held at `wm` by the channel from `holder`. */
static void
set_window(struct job *j, wm_ts_t wm, uint32_t holder, uint64_t in)
{
	struct wm_subtask_metrics *m = block(j, j->w);
	struct wm_channel_metrics *ch = m->channels;
	uint32_t c = channel_from(j, holder);

	WM_METRIC_SET(m->n_channels, 2);
	WM_METRIC_SET(ch[c].watermark, wm);
	WM_METRIC_SET(ch[c].aligned, 1);
	WM_METRIC_SET(ch[1 - c].watermark, wm + 60000);
	WM_METRIC_SET(m->output.watermark, wm);
	WM_METRIC_SET(m->held_by_now, c);
	WM_METRIC_SET(m->records_in, in);
	WM_METRIC_SET(m->newest_event_time, wm + 90000);
}

/* What the trackers of s/1, its partition 3 and the window publish: their
 * watermarks stood still since processing time `ns`. */
static void
still_since(struct job *j, int64_t ns)
{
	WM_METRIC_SET(block(j, j->s1)->output.since_ns, ns);
	WM_METRIC_SET(partitions(j, j->s1)[1].progress.since_ns, ns);
	WM_METRIC_SET(block(j, j->w)->output.since_ns, ns);
}

/* The first snapshot (7 s real, 1 s processing) of partition 3 going
 * silent: s/1's watermark and the window's held at 5000 by it, still
 * since then. */
static struct wm_snapshot *
silence_begins(struct job *j)
{
	set_source(j, j->s0, 0, 100, 2, 100, 60000, 0);
	set_source(j, j->s1, 1, 100, 3, 10, 5000, 3);
	set_window(j, 5000, j->s1, 300);
	still_since(j, SECOND);
	return wm_snapshot_take(j->plan, j->blocks, NULL, 7 * SECOND, SECOND);
}

START_TEST(test_a_silent_partition_is_blamed_through_the_channel)
{
	struct job j;
	struct wm_snapshot *a, *b;
	struct wm_blame bl;

	job_open(&j);
	a = silence_begins(&j);
	ck_assert_ptr_nonnull(a);
	/* A second later: partition 3 sent nothing, the rest went on. */
	set_source(&j, j.s0, 0, 200, 2, 200, 120000, 0);
	set_source(&j, j.s1, 1, 200, 3, 10, 5000, 3);
	set_window(&j, 5000, j.s1, 510);
	b = wm_snapshot_take(j.plan, j.blocks, a, 8 * SECOND, 3 * SECOND);
	ck_assert_ptr_nonnull(b);

	const struct wm_snap_subtask *w = &b->subtasks[j.w];

	ck_assert_uint_eq(b->seq, 1);
	ck_assert_int_eq(w->watermark, 5000);
	ck_assert_int_eq(w->newest_event_time - w->watermark, 90000);
	/* 210 records in 1 s of real time (2 s of processing time). */
	ck_assert(w->records_in_per_s > 209.9 && w->records_in_per_s < 210.1);
	ck_assert_uint_eq(w->channels[channel_from(&j, j.s1)].producer, j.s1);
	ck_assert(w->channels[channel_from(&j, j.s1)].aligned);
	ck_assert_int_eq(w->channels[channel_from(&j, j.s0)].watermark, 65000);

	wm_snapshot_blame(b, j.plan, j.w, &bl);
	ck_assert_uint_eq(bl.n_hops, 2);
	ck_assert_uint_eq(bl.hop[0], j.w);
	ck_assert_uint_eq(bl.channel[0], channel_from(&j, j.s1));
	ck_assert_uint_eq(bl.hop[1], j.s1);
	ck_assert_uint_eq(bl.partition, 3);
	ck_assert_int_eq(bl.cause, WM_BLAME_SILENCE);
	/* Unmoved since the first snapshot's processing time. */
	ck_assert_int_eq(bl.for_ns, 2 * SECOND);

	/* The first snapshot has no rates: nothing is called silent. */
	wm_snapshot_blame(a, j.plan, j.w, &bl);
	ck_assert_uint_eq(bl.partition, 3);
	ck_assert_int_eq(bl.cause, WM_BLAME_SLOW);
	wm_snapshot_free(a);
	wm_snapshot_free(b);
	job_close(&j);
}
END_TEST

START_TEST(test_waiting_for_room_is_back_pressure_and_busy_is_the_rest)
{
	struct job j;
	struct wm_snapshot *a, *b;
	struct wm_blame bl;
	struct wm_time_split *ts;

	job_open(&j);
	ts = &block(&j, j.s1)->time;
	set_source(&j, j.s0, 0, 100, 2, 100, 60000, 0);
	set_source(&j, j.s1, 1, 100, 3, 100, 5000, 3);
	set_window(&j, 5000, j.s1, 400);
	wm_time_split_begin(ts, WM_TIME_IDLE, 1 * SECOND);
	wm_time_split_end(ts, 1 * SECOND + SECOND / 10);
	wm_time_split_begin(ts, WM_TIME_BACKPRESSURED, 10 * SECOND);
	a = wm_snapshot_take(j.plan, j.blocks, NULL, 10 * SECOND, SECOND);
	/* Partition 3 keeps sending, but the subtask waited for room for
	 * 800 ms of the second, and idled 100 ms. */
	set_source(&j, j.s1, 1, 150, 3, 150, 5000, 3);
	wm_time_split_end(ts, 10 * SECOND + 8 * SECOND / 10);
	wm_time_split_begin(ts, WM_TIME_IDLE, 10 * SECOND + 9 * SECOND / 10);
	b = wm_snapshot_take(j.plan, j.blocks, a, 11 * SECOND, 2 * SECOND);

	const struct wm_snap_subtask *s = &b->subtasks[j.s1];

	ck_assert(s->backpressured_ms_per_s > 799.9 &&
		  s->backpressured_ms_per_s < 800.1);
	ck_assert(s->idle_ms_per_s > 99.9 && s->idle_ms_per_s < 100.1);
	ck_assert(s->busy_ms_per_s > 99.9 && s->busy_ms_per_s < 100.1);
	ck_assert(a->subtasks[j.s1].busy_ms_per_s == WM_SNAP_UNKNOWN);
	wm_snapshot_blame(b, j.plan, j.w, &bl);
	ck_assert_int_eq(bl.cause, WM_BLAME_BACKPRESSURE);
	ck_assert_uint_eq(bl.partition, 3);

	/* The next second it waited 700 ms for a CPU: starved, which comes
	 * before back-pressure (a process not running cannot send). */
	struct wm_snapshot *c;

	c = wm_snapshot_take(j.plan, j.blocks, b, 12 * SECOND, 3 * SECOND);
	/* Read from outside (the observer reads /proc): the subtask itself
	 * published nothing while it was not scheduled. */
	ck_assert(c->subtasks[j.s1].cpu_wait_ms_per_s < 0.1);
	wm_snapshot_set_cpu_wait(c, b, j.s1, 7 * SECOND / 10);
	ck_assert(c->subtasks[j.s1].cpu_wait_ms_per_s > 699.9 &&
		  c->subtasks[j.s1].cpu_wait_ms_per_s < 700.1);
	wm_snapshot_blame(c, j.plan, j.w, &bl);
	ck_assert_int_eq(bl.cause, WM_BLAME_STARVED);
	wm_snapshot_free(c);
	wm_snapshot_free(a);
	wm_snapshot_free(b);
	job_close(&j);
}
END_TEST

/* A source that sent nothing over an interval while its next record was
 * long due did not run: its partitions only look silent. One that sent
 * records of another partition ran, and its silent partition is silent,
 * however far behind the source is. */
START_TEST(test_a_source_that_did_not_run_is_behind_not_silent)
{
	struct job j;
	struct wm_snapshot *a, *b, *c;
	struct wm_blame bl;

	job_open(&j);
	a = silence_begins(&j);
	ck_assert_ptr_nonnull(a);
	/* 1 s of real time later (2 s of processing time): s/1 published
	 * nothing new, its next record due at 1.5 s; the run was never more
	 * than 5 ms behind its schedule (its measured noise). */
	WM_METRIC_SET(block(&j, j.s1)->next_record_due_ns, SECOND + SECOND / 2);
	WM_METRIC_SET(block(&j, j.s0)->late_max_ns, 5000000);
	set_source(&j, j.s0, 0, 200, 2, 200, 120000, 0);
	set_window(&j, 5000, j.s1, 410);
	b = wm_snapshot_take(j.plan, j.blocks, a, 8 * SECOND, 3 * SECOND);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(b->subtasks[j.s1].overdue_ns, 3 * SECOND / 2);
	ck_assert_int_eq(b->noise_ns, 5000000);
	wm_snapshot_blame(b, j.plan, j.w, &bl);
	ck_assert_uint_eq(bl.partition, 3);
	ck_assert_int_eq(bl.cause, WM_BLAME_BEHIND);

	/* Then it ran behind its schedule: partition 1's records came, 3's
	 * did not. Due but running: 3 is silent. */
	set_source(&j, j.s1, 1, 300, 3, 10, 5000, 3);
	WM_METRIC_SET(block(&j, j.s1)->next_record_due_ns, 2 * SECOND);
	c = wm_snapshot_take(j.plan, j.blocks, b, 9 * SECOND, 5 * SECOND);
	ck_assert_ptr_nonnull(c);
	ck_assert(c->subtasks[j.s1].overdue_ns > 0);
	wm_snapshot_blame(c, j.plan, j.w, &bl);
	ck_assert_int_eq(bl.cause, WM_BLAME_SILENCE);

	/* Nothing due (every partition silent to the end): never behind. */
	WM_METRIC_SET(block(&j, j.s1)->next_record_due_ns, INT64_MAX);
	wm_snapshot_free(a);
	a = wm_snapshot_take(j.plan, j.blocks, c, 10 * SECOND, 7 * SECOND);
	ck_assert_int_eq(a->subtasks[j.s1].overdue_ns, 0);
	wm_snapshot_blame(a, j.plan, j.w, &bl);
	ck_assert_int_eq(bl.cause, WM_BLAME_SILENCE);
	wm_snapshot_free(a);
	wm_snapshot_free(b);
	wm_snapshot_free(c);
	job_close(&j);
}
END_TEST

/* A partition that delivered nothing while its next record was not due
 * is silent, even when its process waited for a CPU most of the
 * interval: no CPU would have brought a record. Once that record is due
 * and not delivered, the wait is the cause; a source that cannot say
 * when its records are due is judged by the wait alone. */
/* What holds the window at 3 s of processing time, after `a`, with
 * partition 3's next record due at `due_ns` and s/1 waiting 700 ms of
 * the second for a CPU. */
static enum wm_blame_cause
cause_when_starved(struct job *j, const struct wm_snapshot *a, int64_t due_ns)
{
	struct wm_snapshot *b;
	struct wm_blame bl;

	WM_METRIC_SET(partitions(j, j->s1)[1].next_due_ns, due_ns);
	b = wm_snapshot_take(j->plan, j->blocks, a, 8 * SECOND, 3 * SECOND);
	ck_assert_ptr_nonnull(b);
	wm_snapshot_set_cpu_wait(b, a, j->s1, 7 * SECOND / 10);
	ck_assert(b->subtasks[j->s1].cpu_wait_ms_per_s >= 500.0);
	wm_snapshot_blame(b, j->plan, j->w, &bl);
	ck_assert_uint_eq(bl.partition, 3);
	wm_snapshot_free(b);
	return bl.cause;
}

START_TEST(test_a_starved_source_with_nothing_due_is_silent)
{
	struct job j;
	struct wm_snapshot *a;

	job_open(&j);
	a = silence_begins(&j);
	ck_assert_ptr_nonnull(a);
	set_source(&j, j.s0, 0, 200, 2, 200, 120000, 0);
	set_source(&j, j.s1, 1, 150, 3, 10, 5000, 3);
	set_window(&j, 5000, j.s1, 460);
	WM_METRIC_SET(partitions(&j, j.s1)[0].next_due_ns, 3 * SECOND);
	/* Due at 2 h: silent. */
	ck_assert_int_eq(cause_when_starved(&j, a, 7200 * SECOND),
			 WM_BLAME_SILENCE);
	/* Due at 2 s and not delivered at 3 s: starved. */
	ck_assert_int_eq(cause_when_starved(&j, a, 2 * SECOND),
			 WM_BLAME_STARVED);
	/* A source that cannot say. */
	ck_assert_int_eq(cause_when_starved(&j, a, INT64_MIN),
			 WM_BLAME_STARVED);
	/* Nothing due, but records of it delivered over the interval: it is
	 * not silent, and the wait decides again. */
	set_source(&j, j.s1, 1, 150, 3, 20, 5000, 3);
	ck_assert_int_eq(cause_when_starved(&j, a, 7200 * SECOND),
			 WM_BLAME_STARVED);
	wm_snapshot_free(a);
	job_close(&j);
}
END_TEST

START_TEST(test_an_idle_or_unheld_subtask_blames_nothing)
{
	struct job j;
	struct wm_snapshot *a;
	struct wm_blame bl;

	job_open(&j);
	set_source(&j, j.s0, 0, 1, 2, 1, 60000, 0);
	set_source(&j, j.s1, 1, 1, 3, 1, 5000, 3);
	set_window(&j, 5000, j.s1, 2);
	WM_METRIC_SET(block(&j, j.w)->output.idle, 1);
	a = wm_snapshot_take(j.plan, j.blocks, NULL, 0, 0);
	wm_snapshot_blame(a, j.plan, j.w, &bl);
	ck_assert_uint_eq(bl.n_hops, 1);
	ck_assert_int_eq(bl.cause, WM_BLAME_NONE);
	ck_assert_uint_eq(bl.partition, UINT32_MAX);
	wm_snapshot_free(a);

	/* A block never published: every subtask holds nothing yet. */
	memset(j.blocks, 0, wm_plan_metrics_bytes(j.plan));
	for (uint32_t id = 0; id < j.plan->n_subtasks; id++)
		WM_METRIC_SET(block(&j, id)->held_by_now, UINT32_MAX);
	a = wm_snapshot_take(j.plan, j.blocks, NULL, 0, 0);
	wm_snapshot_blame(a, j.plan, j.w, &bl);
	ck_assert_int_eq(bl.cause, WM_BLAME_NONE);
	ck_assert_uint_eq(a->subtasks[j.s0].n_partitions, 0);
	wm_snapshot_free(a);
	job_close(&j);
}
END_TEST

/* The text a view writes for `snap`, lines or screen. */
static char *
render(struct wm_view *v, const struct wm_snapshot *snap, bool screen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	struct wm_screen scr;

	ck_assert_ptr_nonnull(m);
	if (!screen) {
		wm_view_lines(v, snap, m);
		ck_assert_int_eq(fclose(m), 0);
		return text;
	}
	/* The frame's lines, each after its style and rank's digits. */
	ck_assert_int_eq(wm_screen_begin(&scr), 0);
	wm_view_screen(v, snap, &scr);
	ck_assert_int_eq(wm_screen_end(&scr), 0);
	for (uint32_t i = 0; i < scr.n_lines; i++)
		fprintf(m, "%d%d|%s\n", (int)scr.line[i].style,
			(int)scr.line[i].rank, scr.line[i].text);
	wm_screen_free(&scr);
	ck_assert_int_eq(fclose(m), 0);
	return text;
}

START_TEST(test_lines_say_when_a_watermark_is_held_and_when_it_moves)
{
	struct job j;
	struct wm_snapshot *s[4] = {NULL};
	struct wm_view *v;
	char *text;

	job_open(&j);
	v = wm_view_new(j.topo, j.plan, 0, 100 * SECOND);
	ck_assert_ptr_nonnull(v);
	/* 0 s: moving; 5 s (processing 20 s): held for 15 s, past the
	 * 10 s stall threshold, by silent partition 3; 6 s: still held,
	 * nothing new; 7 s: moving again. */
	set_source(&j, j.s0, 0, 100, 2, 100, 60000, 0);
	set_source(&j, j.s1, 1, 100, 3, 10, 5000, 3);
	set_window(&j, 5000, j.s1, 300);
	s[0] = wm_snapshot_take(j.plan, j.blocks, NULL, 0, 5 * SECOND);
	still_since(&j, 5 * SECOND);
	set_source(&j, j.s0, 0, 200, 2, 200, 120000, 0);
	WM_METRIC_SET(block(&j, j.s0)->output.since_ns, 19 * SECOND);
	set_source(&j, j.s1, 1, 200, 3, 10, 5000, 3);
	s[1] = wm_snapshot_take(j.plan, j.blocks, s[0], 5 * SECOND,
				20 * SECOND);
	s[2] = wm_snapshot_take(j.plan, j.blocks, s[1], 6 * SECOND,
				22 * SECOND);
	set_source(&j, j.s1, 1, 300, 3, 20, 70000, 1);
	set_window(&j, 60000, j.s0, 600);
	still_since(&j, 23 * SECOND);
	s[3] = wm_snapshot_take(j.plan, j.blocks, s[2], 7 * SECOND,
				24 * SECOND);

	text = render(v, s[0], false);
	ck_assert_str_eq(text, "");
	free(text);
	text = render(v, s[1], false);
	ck_assert_msg(strstr(text, "w/0 watermark 00:00:05 held for 15.0 s "
				   "by partition s-3 of s/1 (silence: "
				   "nothing arrives)\n") != NULL,
		      "%s", text);
	ck_assert_msg(strstr(text, "s/1 watermark 00:00:05 held for 15.0 s "
				   "by partition s-3 of s/1") != NULL,
		      "%s", text);
	ck_assert_msg(strstr(text, "s/0 ") == NULL, "%s", text);
	free(text);
	text = render(v, s[2], false);
	ck_assert_str_eq(text, "");
	free(text);
	text = render(v, s[3], false);
	ck_assert_msg(strstr(text, "w/0 watermark moves again, 00:00:05 to "
				   "00:01:00, after 18.0 s\n") != NULL,
		      "%s", text);
	free(text);

	/* The screen of the held moment: the window's inputs, the one that
	 * holds it marked, and its blame line. */
	text = render(v, s[1], true);
	ck_assert_msg(strstr(text, "held for 15.0 s by partition s-3 of s/1 "
				   "(silence") != NULL,
		      "%s", text);
	ck_assert_msg(strstr(text, "from s/1") != NULL, "%s", text);
	ck_assert_msg(strstr(text, "<- minimum") != NULL, "%s", text);
	ck_assert_msg(strstr(text, "more subtask") == NULL, "%s", text);
	/* Marked for a terminal: the head line kept always, in its style;
	 * what holds the window, the answer, in the held style; the
	 * column names an outline. */
	ck_assert_msg(strncmp(text, "10|wmrun: job ", 14) == 0, "%s", text);
	ck_assert_msg(strstr(text, "\n21|    held for 15.0 s by partition "
				   "s-3") != NULL,
		      "%s", text);
	ck_assert_msg(strstr(text, "\n02|stage, subtask") != NULL, "%s", text);
	free(text);

	/* A terminal too short for it: the held subtasks alone, each with
	 * the input that holds it; the one not held counted. */
	wm_view_set_rows(v, 8);
	text = render(v, s[1], true);
	ck_assert_msg(strstr(text, "  (1 more subtask, none held)\n") != NULL,
		      "%s", text);
	ck_assert_msg(strstr(text, "s/0 ") == NULL, "%s", text);
	ck_assert_msg(strstr(text, "partition s-3 ") != NULL, "%s", text);
	ck_assert_msg(strstr(text, "partition s-1 ") == NULL, "%s", text);
	ck_assert_msg(strstr(text, "from s/0") == NULL, "%s", text);
	ck_assert_msg(strstr(text, "held for 15.0 s by partition s-3 of s/1 "
				   "(silence") != NULL,
		      "%s", text);
	wm_view_set_rows(v, 0);
	free(text);
	for (int i = 0; i < 4; i++)
		wm_snapshot_free(s[i]);
	wm_view_free(v);
	job_close(&j);
}
END_TEST

/* The window's hold is news, but s/1's began later (the window waited on
 * s/0 first): a short screen still shows s/1's row and the partition row
 * that the window's blame line names, marked as the answer, and no blame
 * line of s/1's own. */
START_TEST(test_a_short_screen_shows_what_the_blame_line_names)
{
	struct job j;
	struct wm_snapshot *a, *b;
	struct wm_view *v;
	char *text;

	job_open(&j);
	v = wm_view_new(j.topo, j.plan, 0, 100 * SECOND);
	ck_assert_ptr_nonnull(v);
	wm_view_set_rows(v, 8);
	set_source(&j, j.s0, 0, 100, 2, 100, 60000, 0);
	set_source(&j, j.s1, 1, 100, 3, 10, 5000, 3);
	set_window(&j, 5000, j.s1, 300);
	a = wm_snapshot_take(j.plan, j.blocks, NULL, 0, 5 * SECOND);
	set_source(&j, j.s0, 0, 200, 2, 200, 120000, 0);
	set_source(&j, j.s1, 1, 200, 3, 10, 5000, 3);
	WM_METRIC_SET(block(&j, j.s0)->output.since_ns, 19 * SECOND);
	WM_METRIC_SET(block(&j, j.w)->output.since_ns, 5 * SECOND);
	WM_METRIC_SET(block(&j, j.s1)->output.since_ns, 15 * SECOND);
	WM_METRIC_SET(partitions(&j, j.s1)[1].progress.since_ns, 15 * SECOND);
	b = wm_snapshot_take(j.plan, j.blocks, a, 5 * SECOND, 20 * SECOND);
	text = render(v, b, true);
	ck_assert_msg(strstr(text, "|  s/1 ") != NULL, "%s", text);
	ck_assert_msg(strstr(text, "\n21|    partition s-3 ") != NULL, "%s",
		      text);
	ck_assert_msg(strstr(text, "<- minimum") != NULL, "%s", text);
	ck_assert_msg(strstr(text, "held for 15.0 s by partition s-3 of s/1 "
				   "(silence") != NULL,
		      "%s", text);
	ck_assert_msg(strstr(text, "held for 5.0 s") == NULL, "%s", text);
	ck_assert_msg(strstr(text, "s/0 ") == NULL, "%s", text);
	free(text);
	wm_snapshot_free(a);
	wm_snapshot_free(b);
	wm_view_free(v);
	job_close(&j);
}
END_TEST

/* Event times on the job's first UTC day show as a time of day, on the
 * nine days either side with their distance in days, further off as a
 * date: a job that runs past midnight keeps its columns. */
START_TEST(test_a_watermark_past_midnight_counts_days)
{
	static const struct {
		int64_t zero_ms;
		const char *shown;
	} cases[] = {
		{0, " 00:00:05 "},
		{-2000, " +1d 00:00:05 "},
		{3 * 86400000LL + 1000, " -3d 00:00:05 "},
		{-9 * 86400000LL, " +9d 00:00:05 "},
	};
	struct job j;
	struct wm_view *v;

	job_open(&j);
	v = wm_view_new(j.topo, j.plan, 0, 100 * SECOND);
	ck_assert_ptr_nonnull(v);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wm_snapshot *a;
		char *text;

		for (uint32_t id = 0; id < j.plan->n_subtasks; id++)
			WM_METRIC_SET(block(&j, id)->clock_zero_ms,
				      cases[i].zero_ms);
		a = silence_begins(&j); /* the window at 5000 */
		text = render(v, a, true);
		ck_assert_msg(strstr(text, cases[i].shown) != NULL, "%s: %s",
			      cases[i].shown, text);
		free(text);
		wm_snapshot_free(a);
	}
	wm_view_free(v);
	job_close(&j);
}
END_TEST

/* The processing time (s) of the line of `text` that says w/0 is held
 * for `cause`, into *at; whether there is one. */
static bool
window_held_line(const char *text, const char *cause, int64_t t, int64_t *at)
{
	const char *line = strstr(text, "w/0 watermark 00:00:05 held for ");

	if (line == NULL || strstr(line, cause) == NULL)
		return false;
	*at = t;
	return true;
}

/* A cause read anew at each sampling interval can flip at every reading
 * (a source that waits for a CPU about half of each second): no line
 * for that. A new cause that lasts the stall threshold (10 s) is news. */
START_TEST(test_lines_wait_for_a_new_cause_to_last)
{
	struct job j;
	struct wm_snapshot *prev, *cur;
	struct wm_view *v;
	int64_t silence_at = -1, starved_at = -1, waited = 0;
	int silence_lines = 0, starved_lines = 0;
	char *text;

	job_open(&j);
	v = wm_view_new(j.topo, j.plan, 0, 0);
	ck_assert_ptr_nonnull(v);
	prev = silence_begins(&j); /* held since 1 s by partition s-3 */
	free(render(v, prev, false));
	for (int64_t t = 2; t <= 40; t++) {
		/* s/1 reads partition 1 all along, never partition 3; it
		 * waits 700 ms of a second for a CPU every other second up
		 * to 19 s, then from 25 s on. */
		bool starved = t < 20 ? t % 2 == 0 : t >= 25;

		set_source(&j, j.s1, 1, 100 + (uint64_t)t, 3, 10, 5000, 3);
		cur = wm_snapshot_take(j.plan, j.blocks, prev, (6 + t) * SECOND,
				       t * SECOND);
		/* The CPU wait is read as a total, as /proc gives it. */
		waited += starved ? 7 * SECOND / 10 : 0;
		wm_snapshot_set_cpu_wait(cur, prev, j.s1, waited);
		text = render(v, cur, false);
		silence_lines +=
			window_held_line(text, "(silence", t, &silence_at);
		starved_lines +=
			window_held_line(text, "(starved", t, &starved_at);
		free(text);
		wm_snapshot_free(prev);
		prev = cur;
	}
	/* Held for the threshold at 11 s, silent then; starved from 25 s,
	 * said at 35 s; the flips before 20 s said nothing. */
	ck_assert_int_eq(silence_lines, 1);
	ck_assert_int_eq(silence_at, 11);
	ck_assert_int_eq(starved_lines, 1);
	ck_assert_int_eq(starved_at, 35);
	wm_snapshot_free(prev);
	wm_view_free(v);
	job_close(&j);
}
END_TEST

START_TEST(test_a_bounded_job_says_how_much_is_done)
{
	struct job j;
	struct wm_snapshot *a;
	struct wm_view *v;

	job_open(&j); /* event_time = 1 h */
	set_source(&j, j.s0, 0, 1, 2, 1, 0, 0);
	set_source(&j, j.s1, 1, 1, 3, 1, 0, 3);
	WM_METRIC_SET(block(&j, j.s0)->newest_event_time, 1800000);
	WM_METRIC_SET(block(&j, j.s1)->newest_event_time, 900000);
	v = wm_view_new(j.topo, j.plan, 0, 0);
	a = wm_snapshot_take(j.plan, j.blocks, NULL, SECOND, SECOND);
	/* The slowest source is a quarter through the hour. */
	ck_assert(wm_view_done(v, a) > 0.2499 && wm_view_done(v, a) < 0.2501);
	wm_snapshot_free(a);
	wm_view_free(v);
	job_close(&j);
}
END_TEST

START_TEST(test_the_timeline_speaks_flinks_names)
{
	struct job j;
	struct wm_snapshot *a, *b;
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	job_open(&j);
	a = silence_begins(&j);
	set_source(&j, j.s1, 1, 200, 3, 10, 5000, 3);
	WM_METRIC_SET(partitions(&j, j.s1)[1].progress.idle_ns, SECOND / 2);
	b = wm_snapshot_take(j.plan, j.blocks, a, 8 * SECOND, 3 * SECOND);
	m = open_memstream(&text, &len);
	ck_assert_int_eq(wm_timeline_write(m, j.topo, j.plan, b, 6 * SECOND, 2),
			 0);
	ck_assert_int_eq(fclose(m), 0);
	/* Two samples missed, said first; then the window's object. */
	ck_assert_msg(strncmp(text, "{\"t_ms\":2000,\"samples_missed\":2}\n",
			      33) == 0,
		      "%s", text);
	ck_assert_msg(strstr(text, "\"task_name\":\"w\",\"subtask_index\":0,"
				   "\"currentOutputWatermark\":5000,"
				   "\"currentInputWatermark\":5000,") != NULL,
		      "%s", text);
	ck_assert_msg(strstr(text, "\"heldBy\":{\"subtask\":\"s/1\","
				   "\"split\":\"s-3\",\"cause\":"
				   "\"silence\",\"unmovedMs\":2000}") != NULL,
		      "%s", text);
	/* Partition 3: idle half a second of the 2 s of processing time,
	 * 250 ms a second, and its watermark as Flink's split gauge. */
	ck_assert_msg(strstr(text, "\"split\":\"s-3\",\"currentWatermark\":"
				   "5000,\"activeTimeMsPerSecond\":750.0,"
				   "\"pausedTimeMsPerSecond\":0.0,"
				   "\"idleTimeMsPerSecond\":250.0,") != NULL,
		      "%s", text);
	/* A source's watermarkLag as Flink's reader has it: now less the
	 * watermark (3 s of processing time less 5 s of event time). */
	ck_assert_msg(strstr(text, "\"watermarkLag\":-2000,") != NULL, "%s",
		      text);
	free(text);
	wm_snapshot_free(a);
	wm_snapshot_free(b);
	job_close(&j);
}
END_TEST

static Suite *
snapshot_suite(void)
{
	Suite *s = suite_create("snapshot");
	TCase *t = tcase_create("snapshot");

	tcase_add_test(t,
		       test_a_silent_partition_is_blamed_through_the_channel);
	tcase_add_test(
		t, test_waiting_for_room_is_back_pressure_and_busy_is_the_rest);
	tcase_add_test(t, test_a_source_that_did_not_run_is_behind_not_silent);
	tcase_add_test(t, test_a_starved_source_with_nothing_due_is_silent);
	tcase_add_test(t, test_an_idle_or_unheld_subtask_blames_nothing);
	tcase_add_test(
		t, test_lines_say_when_a_watermark_is_held_and_when_it_moves);
	tcase_add_test(t, test_a_short_screen_shows_what_the_blame_line_names);
	tcase_add_test(t, test_a_watermark_past_midnight_counts_days);
	tcase_add_test(t, test_lines_wait_for_a_new_cause_to_last);
	tcase_add_test(t, test_a_bounded_job_says_how_much_is_done);
	tcase_add_test(t, test_the_timeline_speaks_flinks_names);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	return wm_check_main(snapshot_suite());
}
