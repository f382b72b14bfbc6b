/*
 * check_task.c
 *	Unit tests of a task's source half as a driver on simulated time sees
 *	it: jumping over the ticks and alignment updates that change nothing
 *	(wm_task_source_next_event(), wm_task_source_skip()) sends the very
 *	frames that running every one of them sends, at the same times.
 *
 * Two drivers run the source subtasks of one topology on simulated time,
 * rule 2 of runtime/run/sim.h without the stages downstream (a source never
 * hears from them). The stepping one runs each source whenever
 * wm_task_run_source() says something is due; the jumping one follows
 * task.h's contract: it runs a source at the time next_event() gives,
 * asking again, as the time of their runs, for the members of an
 * alignment group after one of them ran. Both charge 1 us per record
 * that was due at once, as --sim does.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/plan/plan.h"
#include "runtime/engine/codec.h"
#include "runtime/engine/task.h"
#include "runtime/engine/task_out.h"
#include "runtime/engine/task_state.h"
#include "runtime/source/sources.h"
#include "runtime/conf/topology.h"
#include "tests/unit/check_main.h"
#include "tests/unit/fake_source.h"

struct source_run;

struct source {
	struct wm_task_out out; /* first: recovered with wm_container_of */
	struct source_run *run;
	struct wm_task *task;
	uint32_t id; /* plan subtask */
	int64_t next_due;
	bool charged; /* next_due pays for records due at once */
	bool aligned;
	/* Nonzero: the next frame finds its ring full until then, as a
	 * worker's send waits (wm_task_backpressure() at both ends). */
	int64_t blocked_until;
};

struct source_run {
	struct wm_topology *topo;
	struct wm_plan *plan;
	void *blocks; /* every subtask's metrics block, as in the segment */
	uint32_t n;
	struct source *src;
	int64_t now;
	uint64_t frames, hash; /* what the sources sent, and when */
	uint64_t runs;	       /* wm_task_run_source() calls */
	uint64_t record_runs;  /* runs of records handed over (on_records) */
};

/* FNV-1a over what a frame says and when it was sent. */
static void
mix(struct source_run *run, const void *bytes, size_t len)
{
	const unsigned char *p = bytes;

	for (size_t i = 0; i < len; i++)
		run->hash = (run->hash ^ p[i]) * 0x100000001b3ULL;
}

static void
on_frame(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	 const struct wm_frame *f)
{
	struct source *s = wm_container_of(out, struct source, out);
	uint64_t fields[] = {
		(uint64_t)s->run->now, s->id,  edge,	      channel,
		(uint64_t)f->kind,     f->arg, f->payload[0], f->payload[1],
		f->payload[2]};

	mix(s->run, fields, sizeof(fields));
	s->run->frames++;
	if (s->blocked_until != 0) {
		wm_task_backpressure(s->task, true, s->run->now);
		wm_task_backpressure(s->task, false, s->blocked_until);
		s->blocked_until = 0;
	}
}

static void
on_result(struct wm_task_out *out, const struct wm_window_result *r,
	  wm_ts_t watermark, int64_t fire_time_ms)
{
	(void)out;
	(void)r;
	(void)watermark;
	(void)fire_time_ms;
	ck_abort_msg("a source fired a window");
}

static void
on_late(struct wm_task_out *out, unsigned k, const struct wm_record *r)
{
	(void)out;
	(void)k;
	(void)r;
	ck_abort_msg("a source sent a late record");
}

/* A driver that takes runs (wm_task_out.records): each record hashed as
 * its frame, in the run's order, so that a run sends what the records one
 * by one would. */
static void
on_records(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	   const struct wm_record *r, uint32_t n)
{
	struct source *s = wm_container_of(out, struct source, out);

	ck_assert_uint_gt(n, 0);
	s->run->record_runs++;
	for (uint32_t i = 0; i < n; i++)
		wm_task_record_as_frame(out, edge, channel, &r[i]);
}

/* The sources of `text`, their records sent one by one, or as runs with
 * `runs`. */
static void
source_run_open_as(struct source_run *run, const char *text, bool runs)
{
	struct wm_ini_error err;

	memset(run, 0, sizeof(*run));
	run->hash = 0xcbf29ce484222325ULL;
	ck_assert_msg(wm_topology_load_buffer(text, strlen(text), "job.conf",
					      &run->topo, &err) == 0,
		      "line %d: %s", err.line, err.msg);
	run->plan = wm_plan_new(run->topo);
	ck_assert_ptr_nonnull(run->plan);
	run->blocks = calloc(1, wm_plan_metrics_bytes(run->plan));
	run->src = calloc(run->plan->n_subtasks, sizeof(*run->src));
	ck_assert_ptr_nonnull(run->blocks);
	ck_assert_ptr_nonnull(run->src);
	for (uint32_t id = 0; id < run->plan->n_subtasks; id++) {
		const struct wm_plan_subtask *sub = &run->plan->subtasks[id];
		struct source *s = &run->src[run->n];

		if (run->topo->stages[sub->stage].kind != WM_STAGE_SOURCE)
			continue;
		s->out = (struct wm_task_out){.frame = on_frame,
					      /* hashed as its frame */
					      .record = wm_task_record_as_frame,
					      .records =
						      runs ? on_records : NULL,
					      .result = on_result,
					      .late = on_late};
		s->run = run;
		s->id = id;
		/* The topologies here generate their records: no trace. */
		s->task = wm_sources_new_task(run->topo, run->plan, id, &s->out,
					      run->blocks, NULL, NULL);
		ck_assert_ptr_nonnull(s->task);
		ck_assert_int_eq(wm_task_align(s->task, run->blocks), 0);
		s->aligned = wm_plan_alignment_peers(run->plan, run->topo, id,
						     NULL, 0) > 0;
		run->n++;
	}
}

static void
source_run_open(struct source_run *run, const char *text)
{
	source_run_open_as(run, text, false);
}

static void
source_run_close(struct source_run *run)
{
	for (uint32_t i = 0; i < run->n; i++)
		wm_task_free(run->src[i].task);
	free(run->src);
	free(run->blocks);
	wm_plan_free(run->plan);
	wm_topology_free(run->topo);
}

/* Run source s at run->now; false if it left records due (charged). */
static bool
run_one(struct source_run *run, struct source *s, bool jump)
{
	uint64_t before = wm_task_counters(s->task)->records_in;
	int64_t t = run->now, next;

	if (jump)
		wm_task_source_skip(s->task, t);
	next = wm_task_run_source(s->task, t);
	run->runs++;
	s->charged = next <= t;
	if (!s->charged) {
		s->next_due =
			jump ? wm_task_source_next_event(s->task, t) : next;
		return true;
	}
	s->next_due =
		t + 1000 * (int64_t)(wm_task_counters(s->task)->records_in -
				     before);
	if (s->next_due <= t)
		s->next_due = t + 1000;
	return false;
}

/* Ask an aligned source again (jumping): a report may have changed. */
static void
ask_again(struct source *s, int64_t from_ns)
{
	if (s->aligned && !s->charged && !wm_task_finished(s->task))
		s->next_due = wm_task_source_next_event(s->task, from_ns);
}

/* Run every source to its end; the metrics blocks then hold every
 * figure as of the end. */
static void
source_run_all(struct source_run *run, bool jump)
{
	for (;;) {
		int64_t t = INT64_MAX;
		bool reported = false;

		for (uint32_t i = 0; i < run->n; i++)
			if (!wm_task_finished(run->src[i].task) &&
			    run->src[i].next_due < t)
				t = run->src[i].next_due;
		if (t == INT64_MAX)
			break;
		run->now = t;
		for (uint32_t i = 0; i < run->n; i++) {
			struct source *s = &run->src[i];

			if (wm_task_finished(s->task))
				continue;
			if (jump && reported)
				ask_again(s, t);
			if (s->next_due > t)
				continue;
			run_one(run, s, jump);
			reported = reported || s->aligned;
		}
		for (uint32_t i = 0; jump && reported && i < run->n; i++)
			ask_again(&run->src[i], t + 1);
	}
	for (uint32_t i = 0; i < run->n; i++) {
		ck_assert_msg(wm_task_finished(run->src[i].task),
			      "source subtask %u never ends", run->src[i].id);
		wm_task_publish(run->src[i].task, run->now);
	}
}

/*
 * Topologies where most ticks and updates change nothing: partitions
 * silent for hours, idleness that flaps or settles, alignment groups that
 * hold sources back and let them go (per partition and per subtask, with
 * no drift at all: read in bursts between updates), an unlimited rate
 * whose ticks and updates run late, master and released rules.
 */
static const struct {
	const char *text;
	bool jumps; /* most of its ticks change nothing */
} jobs[] = {
	/* Silent for hours, idle after 30 s, aligned with a busy source. */
	{"[job]\nevent_time = 3 h\nseed = 3\n"
	 "[source a]\nparallelism = 2\npartitions = 4\nrate = 1/s\n"
	 "idle_timeout = 30 s\nsilence = 1-2 from 10 min to 150 min\n"
	 "watermark_alignment_group = g\n"
	 "watermark_alignment_max_drift = 10 s\n"
	 "[source b]\npartitions = 2\nrate = 1/min\nout_of_orderness = 20 s\n"
	 "watermark_alignment_group = g\n"
	 "watermark_alignment_max_drift = 10 s\n"
	 "watermark_alignment_update_interval = 3 s\n"
	 "[window w]\ninput = a, b\nsize = 1 min\n",
	 true},
	/* No drift: each update lets a burst through. */
	{"[job]\nevent_time = 20 min\n"
	 "[source s]\npartitions = 2\nrate = 10/s\nskew = 1 x0.5\n"
	 "watermark_alignment_group = g\n"
	 "watermark_alignment_max_drift = 0 s\n"
	 "watermark_alignment_update_interval = 5 s\n"
	 "[window w]\ninput = s\nsize = 10 s\n",
	 true},
	/* Idleness that flaps (3 s timeout, a record every 10 s), master
	 * rules, one partition silent for ever. */
	{"[job]\nevent_time = 2 h\nflink_behaviour = master\nseed = 8\n"
	 "[source s]\nparallelism = 2\npartitions = 5\nrate = 0.1/s\n"
	 "idle_timeout = 3 s\nwatermark_interval = 1 s\nsilence = 4\n"
	 "[window w]\ninput = s\nsize = 10 s\n",
	 true},
	/* Periodic silences, an outage and idleness in released rules,
	 * without IDLE_MARK_ONCE. */
	{"[job]\nevent_time = 2 h\nidle_mark_once = false\n"
	 "[source s]\npartitions = 3\nrate = 0.5/s\nidle_timeout = 2 s\n"
	 "silence = 0-1 every 10 min for 4 min from 1 min\n"
	 "outage = 2 from 30 min for 20 min\nwatermark_interval = 50 ms\n"
	 "[window w]\ninput = s\nsize = 1 min\n",
	 true},
	/* An unlimited rate next to a slow aligned source: ticks and
	 * updates fall due while records are charged, and run late. */
	{"[job]\nprocessing_time = 300 ms\n"
	 "[source fast]\npartitions = 2\nrate = unlimited\nkeys = 4\n"
	 "watermark_interval = 7 ms\nwatermark_alignment_group = g\n"
	 "watermark_alignment_max_drift = 20 ms\n"
	 "watermark_alignment_update_interval = 10 ms\n"
	 "[source slow]\nrate = 100/s\nidle_timeout = 15 ms\n"
	 "silence = 0 from 100 ms to 200 ms\n"
	 "watermark_alignment_group = g\n"
	 "watermark_alignment_max_drift = 20 ms\n"
	 "watermark_alignment_update_interval = 10 ms\n"
	 "[window w]\ninput = fast, slow\nsize = 10 ms\n",
	 false},
	/* Subtask-level alignment only: the partitions cannot pause. */
	{"[job]\nevent_time = 1 h\n"
	 "pipeline.watermark-alignment.allow-unaligned-source-splits = true\n"
	 "[source a]\npartitions = 3\nrate = 2/s\nidle_timeout = 1 min\n"
	 "silence = 0 from 5 min to 40 min\n"
	 "watermark_alignment_group = g\n"
	 "watermark_alignment_max_drift = 1 s\n"
	 "[source b]\nparallelism = 2\npartitions = 2\nrate = 1/s\n"
	 "out_of_orderness = 5 s\nwatermark_alignment_group = g\n"
	 "watermark_alignment_max_drift = 1 s\n"
	 "[window w]\ninput = a, b\nsize = 1 min\n",
	 true},
};

START_TEST(test_jumping_sends_what_stepping_sends)
{
	struct source_run step, jump;

	source_run_open(&step, jobs[_i].text);
	source_run_open(&jump, jobs[_i].text);
	source_run_all(&step, false);
	source_run_all(&jump, true);
	ck_assert_uint_gt(step.frames, 0);
	ck_assert_uint_eq(jump.frames, step.frames);
	ck_assert_msg(jump.hash == step.hash,
		      "job %d: the frames differ (%" PRIu64 " of them)", _i,
		      step.frames);
	ck_assert_int_eq(jump.now, step.now);
	/* Every figure the summary reads, alignment reports included. */
	ck_assert(memcmp(jump.blocks, step.blocks,
			 wm_plan_metrics_bytes(step.plan)) == 0);
	/* And it did jump, where there is anything to jump over. */
	ck_assert_msg(jump.runs * (jobs[_i].jumps ? 2 : 1) <= step.runs,
		      "job %d: %" PRIu64 " runs, stepping %" PRIu64, _i,
		      jump.runs, step.runs);
	source_run_close(&step);
	source_run_close(&jump);
}
END_TEST

/* Records staged into runs (emit_due(), task_out.h) reach every channel
 * in the order, and with the frames between them, that sending them one
 * by one gives: no watermark or status overtakes a record sent before it. */
START_TEST(test_runs_send_what_records_one_by_one_send)
{
	struct source_run one, runs;

	source_run_open(&one, jobs[_i].text);
	source_run_open_as(&runs, jobs[_i].text, true);
	source_run_all(&one, false);
	source_run_all(&runs, false);
	ck_assert_uint_gt(runs.record_runs, 0);
	ck_assert_uint_eq(runs.frames, one.frames);
	ck_assert_msg(runs.hash == one.hash,
		      "job %d: the frames differ (%" PRIu64 " of them)", _i,
		      one.frames);
	ck_assert(memcmp(runs.blocks, one.blocks,
			 wm_plan_metrics_bytes(one.plan)) == 0);
	source_run_close(&one);
	source_run_close(&runs);
}
END_TEST

/* What a driver was handed, in order: a record's timestamp, or -1 for a
 * frame. */
struct handed {
	struct wm_task_out out; /* first: recovered with wm_container_of */
	int64_t seen[16];
	uint32_t n;
};

static void
hand_frame(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	   const struct wm_frame *f)
{
	struct handed *h = wm_container_of(out, struct handed, out);

	(void)edge, (void)channel, (void)f;
	ck_assert_uint_lt(h->n, 16);
	h->seen[h->n++] = -1;
}

static void
hand_records(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	     const struct wm_record *r, uint32_t n)
{
	struct handed *h = wm_container_of(out, struct handed, out);

	(void)edge, (void)channel;
	for (uint32_t i = 0; i < n; i++) {
		ck_assert_uint_lt(h->n, 16);
		h->seen[h->n++] = r[i].ts;
	}
}

/* Staged records go before any frame the task sends after them, and
 * before a record it sends unstaged: the order a channel sees is the
 * order the task sent. */
START_TEST(test_staged_records_go_before_a_later_frame)
{
	struct wm_topology *topo;
	struct wm_ini_error err;
	const char *text = "[job]\nevent_time = 1 min\n"
			   "[source s]\nrate = 1/s\n"
			   "[window w]\ninput = s\nsize = 10 s\n";
	struct handed h = {.out = {.frame = hand_frame,
				   .record = wm_task_record_as_frame,
				   .records = hand_records}};
	struct wm_frame mark = {.kind = WM_FRAME_WATERMARK};
	struct wm_record r1 = {.ts = 1}, r2 = {.ts = 2}, r3 = {.ts = 3};
	struct wm_record *run;
	struct wm_plan *plan;
	void *block;
	struct wm_task *t;

	ck_assert_int_eq(wm_topology_load_buffer(text, strlen(text), "t.conf",
						 &topo, &err),
			 0);
	plan = wm_plan_new(topo);
	block = calloc(1, wm_plan_metrics_bytes(plan));
	t = wm_sources_new_task(topo, plan, 0, &h.out, block, NULL, NULL);
	ck_assert_ptr_nonnull(t);
	/* A run read in place: the frame's flush sends the two staged, and
	 * the third, read with them, goes after it from where it lay. */
	run = wm_task_staging(t);
	run[0] = r1, run[1] = r2, run[2] = r3;
	wm_task_stage_next(t);
	wm_task_stage_next(t);
	ck_assert_uint_eq(h.n, 0); /* staged, not yet handed */
	wm_task_send_all(t, &mark);
	wm_task_stage_next(t);
	wm_task_flush_staged(t);
	ck_assert_uint_eq(h.n, 4);
	ck_assert_int_eq(h.seen[0], 1);
	ck_assert_int_eq(h.seen[1], 2);
	ck_assert_int_eq(h.seen[2], -1);
	ck_assert_int_eq(h.seen[3], 3);
	wm_task_free(t);
	free(block);
	wm_plan_free(plan);
	wm_topology_free(topo);
}
END_TEST

START_TEST(test_years_of_silence_take_a_few_runs)
{
	/* One partition silent from 1 h to 10000 h, idle after 1 min: once
	 * it is idle nothing can change until it returns, so the jump goes
	 * there in one step (stepping would tick 180 million times). */
	struct source_run run;

	source_run_open(&run, "[job]\nevent_time = 10001 h\n"
			      "[source s]\npartitions = 2\nrate = 1/h\n"
			      "idle_timeout = 1 min\n"
			      "silence = 0-1 from 1 h to 10000 h\n"
			      "[window w]\ninput = s\nsize = 1 h\n");
	source_run_all(&run, true);
	ck_assert_int_eq(run.now, (int64_t)10001 * 3600 * 1000000000);
	ck_assert_uint_lt(run.runs, 100);
	source_run_close(&run);
}
END_TEST

START_TEST(test_figures_are_as_of_a_blocked_send_not_before_it)
{
	/* A worker reads the clock, runs the source, and publishes with
	 * that reading; a send that waited for room moved the task's time
	 * on meanwhile. The figures are as of that later time: never a
	 * reading before what they count (an idle stretch begun at the
	 * later time would count negative). */
	struct source_run run;
	struct source *s;
	int64_t t = 1000000000, later = 6000000000;
	const struct wm_subtask_metrics *m;

	source_run_open(&run, "[job]\nevent_time = 1 min\n"
			      "[source s]\npartitions = 2\nrate = 1/s\n"
			      "[window w]\ninput = s\nsize = 10 s\n");
	ck_assert_uint_eq(run.n, 1);
	s = &run.src[0];
	m = wm_plan_block(run.plan, run.blocks, s->id);
	run.now = t;
	s->blocked_until = later;
	wm_task_run_source(s->task, t);
	ck_assert_uint_gt(run.frames, 0);
	ck_assert_int_eq(s->blocked_until, 0);
	wm_task_publish(s->task, t);
	int64_t published = WM_METRIC_GET(m->now_ns);

	ck_assert_int_eq(published, later);
	source_run_close(&run);
}
END_TEST

static void
ignore_frame(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	     const struct wm_frame *f)
{
	(void)out;
	(void)edge;
	(void)channel;
	(void)f;
}

static void
ignore_result(struct wm_task_out *out, const struct wm_window_result *r,
	      wm_ts_t watermark, int64_t fire_time_ms)
{
	(void)out;
	(void)r;
	(void)watermark;
	(void)fire_time_ms;
}

START_TEST(test_each_input_channel_and_the_newest_event_time_are_published)
{
	/* What a live view shows under an operator: each input channel's
	 * watermark and status as the valve holds them, and how far the
	 * newest record is ahead of the output watermark. */
	struct wm_topology *topo;
	struct wm_ini_error err;
	const char *text = "[job]\nevent_time = 1 min\n"
			   "[source s]\nparallelism = 2\npartitions = 2\n"
			   "rate = 1/s\n"
			   "[window w]\ninput = s\nsize = 10 s\n";
	struct wm_task_out out = {.frame = ignore_frame,
				  .record = wm_task_record_as_frame,
				  .result = ignore_result};

	ck_assert_int_eq(wm_topology_load_buffer(text, strlen(text), "job.conf",
						 &topo, &err),
			 0);
	struct wm_plan *plan = wm_plan_new(topo);
	uint32_t id = plan->first[1]; /* w/0 */
	void *area = calloc(1, wm_plan_metrics_bytes(plan));
	struct wm_subtask_metrics *m = wm_plan_block(plan, area, id);
	struct wm_task *t = wm_task_new(topo, plan, id, &out, area, NULL);
	struct wm_frame f = {.kind = WM_FRAME_WATERMARK, .payload = {5000}};
	struct wm_record r = {.ts = 4200, .key = 1, .value = 1};

	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(plan->subtasks[id].n_inputs, 2);
	ck_assert_int_eq(wm_task_input(t, 0, &f, 1), 0);
	wm_codec_record_frame(&r, &f);
	ck_assert_int_eq(wm_task_input(t, 0, &f, 2), 0);
	f = (struct wm_frame){.kind = WM_FRAME_STATUS, .arg = WM_STATUS_IDLE};
	ck_assert_int_eq(wm_task_input(t, 1, &f, 3), 0);
	wm_task_publish(t, 4);

	const struct wm_channel_metrics *ch = m->channels;

	ck_assert_uint_eq(WM_METRIC_GET(m->n_channels), 2);
	ck_assert_int_eq(WM_METRIC_GET(ch[0].watermark), 5000);
	ck_assert_uint_eq(WM_METRIC_GET(ch[0].idle), 0);
	ck_assert_uint_eq(WM_METRIC_GET(ch[0].aligned), 1);
	ck_assert_int_eq(WM_METRIC_GET(ch[1].watermark), WM_TS_MIN);
	ck_assert_uint_eq(WM_METRIC_GET(ch[1].idle), 1);
	ck_assert_uint_eq(WM_METRIC_GET(ch[1].aligned), 0);
	ck_assert_int_eq(WM_METRIC_GET(m->newest_event_time), 4200);
	ck_assert_int_eq(WM_METRIC_GET(m->output.watermark), 5000);
	wm_task_free(t);
	free(area);
	wm_plan_free(plan);
	wm_topology_free(topo);
}
END_TEST

START_TEST(test_window_counts_late_records_by_their_partition)
{
	/* The report's late records by partition: a record the operator
	 * finds late counts for the partition it was read from; partitions
	 * from WM_METRICS_LATE_PARTITIONS - 1 up share the last entry; an
	 * on-time record counts for none. */
	struct wm_topology *topo;
	struct wm_ini_error err;
	const char *text = "[job]\nevent_time = 1 min\n"
			   "[source s]\nparallelism = 1\npartitions = 2\n"
			   "rate = 1/s\n"
			   "[window w]\ninput = s\nsize = 10 s\n";
	struct wm_task_out out = {.frame = ignore_frame,
				  .record = wm_task_record_as_frame,
				  .result = ignore_result};
	const struct {
		wm_ts_t ts;
		uint32_t partition;
	} in[] = {
		{1000, 3},  {2000, 3}, {3000, WM_METRICS_LATE_PARTITIONS + 6},
		{65000, 5}, /* on time: its window ends at 70 s */
		{4000, 0},
	};
	uint64_t want[WM_METRICS_LATE_PARTITIONS] = {0};

	want[3] = 2;
	want[0] = 1;
	want[WM_METRICS_LATE_PARTITIONS - 1] = 1;
	ck_assert_int_eq(wm_topology_load_buffer(text, strlen(text), "job.conf",
						 &topo, &err),
			 0);
	struct wm_plan *plan = wm_plan_new(topo);
	uint32_t id = plan->first[1]; /* w/0 */
	void *area = calloc(1, wm_plan_metrics_bytes(plan));
	struct wm_subtask_metrics *m = wm_plan_block(plan, area, id);
	struct wm_task *t = wm_task_new(topo, plan, id, &out, area, NULL);
	struct wm_frame f = {.kind = WM_FRAME_WATERMARK, .payload = {60000}};

	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(plan->subtasks[id].n_inputs, 1);
	/* Windows up to 60 s are past: records before then are late. */
	ck_assert_int_eq(wm_task_input(t, 0, &f, 1), 0);
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		struct wm_record r = {.ts = in[i].ts,
				      .key = 1,
				      .value = 1,
				      .partition = in[i].partition};

		wm_codec_record_frame(&r, &f);
		ck_assert_int_eq(wm_task_input(t, 0, &f, 2 + (int64_t)i), 0);
	}
	wm_task_publish(t, 10);
	for (unsigned p = 0; p < WM_METRICS_LATE_PARTITIONS; p++)
		ck_assert_msg(WM_METRIC_GET(m->late_by_partition[p]) == want[p],
			      "partition %u: %llu late, expected %llu", p,
			      (unsigned long long)WM_METRIC_GET(
				      m->late_by_partition[p]),
			      (unsigned long long)want[p]);
	wm_task_free(t);
	free(area);
	wm_plan_free(plan);
	wm_topology_free(topo);
}
END_TEST

/* What a window task handed to out->snapshot. */
struct snapshots {
	struct wm_task_out out; /* first: recovered with wm_container_of */
	int n;
	int64_t id;
	void *bytes;
	size_t len;
	uint64_t results;
};

static void
keep_snapshot(struct wm_task_out *out, int64_t id, const void *bytes,
	      size_t len)
{
	struct snapshots *k = wm_container_of(out, struct snapshots, out);

	k->n++;
	k->id = id;
	free(k->bytes);
	k->bytes = malloc(len ? len : 1);
	ck_assert_ptr_nonnull(k->bytes);
	memcpy(k->bytes, bytes, len);
	k->len = len;
}

static void
count_result(struct wm_task_out *out, const struct wm_window_result *r,
	     wm_ts_t watermark, int64_t fire_time_ms)
{
	struct snapshots *k = wm_container_of(out, struct snapshots, out);

	(void)watermark;
	(void)fire_time_ms;
	ck_assert_uint_eq(r->count, 1);
	k->results++;
}

START_TEST(test_barriers_align_then_the_window_snapshots_and_restores)
{
	/* A window over two channels: the barrier of channel 0 blocks it
	 * and nothing is snapshot; the barrier of channel 1 completes the
	 * alignment, the task hands its snapshot and unblocks. A new task
	 * restored from it holds the record taken before the barrier, and
	 * its watermark is MIN again: the window fires only when both
	 * channels bring watermarks anew. */
	struct wm_topology *topo;
	struct wm_ini_error err;
	const char *text = "[job]\nevent_time = 1 min\n"
			   "checkpoint_interval = 1 s\n"
			   "checkpoint_dir = unused\n"
			   "[source s]\nparallelism = 2\npartitions = 2\n"
			   "rate = 1/s\n"
			   "[window w]\ninput = s\nsize = 10 s\n";
	struct snapshots k = {.out = {.frame = ignore_frame,
				      .record = wm_task_record_as_frame,
				      .result = count_result,
				      .snapshot = keep_snapshot}};
	struct wm_frame bar = {.kind = WM_FRAME_BARRIER, .payload = {7, 100}};
	struct wm_frame wm0 = {.kind = WM_FRAME_WATERMARK, .payload = {20000}};
	struct wm_record r = {.ts = 4200, .key = 1, .value = 1};
	struct wm_frame f;

	ck_assert_int_eq(wm_topology_load_buffer(text, strlen(text), "job.conf",
						 &topo, &err),
			 0);
	struct wm_plan *plan = wm_plan_new(topo);
	uint32_t id = plan->first[1]; /* w/0 */
	size_t bytes = wm_plan_metrics_bytes(plan);
	struct wm_subtask_metrics *m = calloc(1, bytes);
	struct wm_task *t = wm_task_new(topo, plan, id, &k.out, m, NULL);

	ck_assert_ptr_nonnull(t);
	wm_codec_record_frame(&r, &f);
	ck_assert_int_eq(wm_task_input(t, 0, &f, 1), 0);
	ck_assert_int_eq(wm_task_input(t, 0, &bar, 2), 0);
	ck_assert(wm_task_input_blocked(t, 0));
	ck_assert(!wm_task_input_blocked(t, 1));
	ck_assert_int_eq(k.n, 0);
	ck_assert_int_eq(wm_task_input(t, 1, &bar, 3), 0);
	ck_assert_int_eq(k.n, 1);
	ck_assert_int_eq(k.id, 7);
	ck_assert(!wm_task_input_blocked(t, 0));
	wm_task_free(t);

	memset(m, 0, bytes);
	t = wm_task_new(topo, plan, id, &k.out, m, NULL);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(wm_task_restore(t, k.bytes, k.len), 0);
	ck_assert_uint_eq(wm_task_counters(t)->records_in, 1);
	ck_assert_int_eq(wm_task_input(t, 0, &wm0, 4), 0);
	ck_assert_uint_eq(k.results, 0); /* channel 1 is at MIN */
	ck_assert_int_eq(wm_task_input(t, 1, &wm0, 5), 0);
	ck_assert_uint_eq(k.results, 1);
	wm_task_publish(t, 6); /* its counts add up (checked builds) */
	/* A used task refuses a restore. */
	ck_assert_int_eq(wm_task_restore(t, k.bytes, k.len), -EINVAL);
	wm_task_free(t);
	free(k.bytes);
	free(m);
	wm_plan_free(plan);
	wm_topology_free(topo);
}
END_TEST

/* A window task of `text` (two source subtasks, so two channels). */
static struct wm_task *
window_task(struct wm_topology **topo, struct wm_plan **plan,
	    struct wm_subtask_metrics **m, struct wm_task_out *out,
	    const char *text)
{
	struct wm_ini_error err;
	size_t bytes;

	ck_assert_int_eq(wm_topology_load_buffer(text, strlen(text), "job.conf",
						 topo, &err),
			 0);
	*plan = wm_plan_new(*topo);
	bytes = wm_plan_metrics_bytes(*plan);
	*m = calloc(1, bytes);
	return wm_task_new(*topo, *plan, (*plan)->first[1], out, *m, NULL);
}

START_TEST(test_window_figures_are_the_same_from_frames_and_runs)
{
	/* The window takes the records of a run of cells in runs of its own
	 * (task.c, input_run()): every figure it publishes, per record
	 * ones included (late by partition, the lateness histogram, the
	 * newest event time, results), is what the same records give one
	 * frame at a time. 150 records cross two runs' ends; some are late,
	 * some on time, of several keys, windows and partitions. */
	const char *text = "[job]\nevent_time = 1 min\n"
			   "[source s]\nparallelism = 1\npartitions = 2\n"
			   "rate = 1/s\n"
			   "[window w]\ninput = s\nsize = 10 s\n";
	struct snapshots k = {.out = {.frame = ignore_frame,
				      .record = wm_task_record_as_frame,
				      .result = ignore_result}};
	enum { N = 150 };
	struct wm_cell *cells = calloc(N, sizeof(*cells));
	struct wm_topology *topo[2];
	struct wm_plan *plan[2];
	struct wm_subtask_metrics *m[2];
	struct wm_task *t[2];
	struct wm_frame w = {.kind = WM_FRAME_WATERMARK, .payload = {60000}};
	unsigned seed = 26;

	ck_assert_ptr_nonnull(cells);
	for (int j = 0; j < 2; j++) {
		t[j] = window_task(&topo[j], &plan[j], &m[j], &k.out, text);
		ck_assert_ptr_nonnull(t[j]);
		ck_assert_int_eq(wm_task_input(t[j], 0, &w, 1), 0);
	}
	for (int i = 0; i < N; i++) {
		struct wm_record r = {.ts = 30000 + rand_r(&seed) % 60000,
				      .key = rand_r(&seed) % 5,
				      .value = rand_r(&seed) % 100,
				      .partition =
					      (uint32_t)(rand_r(&seed) % 40)};
		struct wm_frame f;

		wm_codec_record_frame(&r, &f);
		ck_assert_int_eq(wm_task_input(t[0], 0, &f, 2), 0);
		memcpy(cells[i].payload, f.payload, sizeof(f.payload));
		atomic_store(&cells[i].tail,
			     wm_frame_tail(WM_FRAME_RECORD, f.arg, 0));
	}
	ck_assert_int_eq(wm_task_input_records(t[1], 0, cells, N, 2), 0);
	w.payload[0] = 100000;
	for (int j = 0; j < 2; j++) {
		ck_assert_int_eq(wm_task_input(t[j], 0, &w, 3), 0);
		wm_task_publish(t[j], 4);
	}
	/* The window's own block of each area (plan.h). */
	struct wm_subtask_metrics *b =
		wm_plan_block(plan[0], m[0], plan[0]->first[1]);

	ck_assert_uint_eq(WM_METRIC_GET(b->records_in), N);
	ck_assert_uint_gt(WM_METRIC_GET(b->late_dropped), 0);
	ck_assert_uint_gt(WM_METRIC_GET(b->records_windowed), 0);
	ck_assert_msg(memcmp(m[0], m[1], wm_plan_metrics_bytes(plan[0])) == 0,
		      "the blocks differ");
	for (int j = 0; j < 2; j++) {
		wm_task_free(t[j]);
		free(m[j]);
		wm_plan_free(plan[j]);
		wm_topology_free(topo[j]);
	}
	free(cells);
}
END_TEST

/* What each channel of a keyBy's output edge received: a hash of its
 * records and frames in their order, and how many calls brought them. */
struct channels_seen {
	struct wm_task_out out; /* first: recovered with wm_container_of */
	uint64_t hash[300];
	uint32_t seen[300];
	uint64_t calls;
};

static void
see(struct channels_seen *c, uint32_t channel, uint64_t kind, int64_t ts,
    int64_t key)
{
	uint64_t fields[] = {kind, (uint64_t)ts, (uint64_t)key};
	const unsigned char *p = (const unsigned char *)fields;

	ck_assert_uint_lt(channel, 300);
	for (size_t i = 0; i < sizeof(fields); i++)
		c->hash[channel] = (c->hash[channel] ^ p[i]) * 0x100000001b3ULL;
	c->seen[channel]++;
}

static void
see_frame(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	  const struct wm_frame *f)
{
	struct channels_seen *c =
		wm_container_of(out, struct channels_seen, out);

	ck_assert_uint_eq(edge, 0);
	see(c, channel, f->kind, (int64_t)f->payload[0], 0);
}

static void
see_records(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	    const struct wm_record *r, uint32_t n)
{
	struct channels_seen *c =
		wm_container_of(out, struct channels_seen, out);

	ck_assert_uint_eq(edge, 0);
	ck_assert_uint_gt(n, 0);
	c->calls++;
	for (uint32_t i = 0; i < n; i++)
		see(c, channel, WM_FRAME_RECORD, r[i].ts, r[i].key);
}

static void
see_record(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	   const struct wm_record *r)
{
	see_records(out, edge, channel, r, 1);
}

/*
 * A keyBy sends a run (task_out.c: its channels computed at once, its
 * records sorted by channel) as it sends its records one by one: every
 * channel gets the same records in the same order, and the watermark
 * after them, after them; to one subtask, to several with Flink's default
 * max parallelism (a power of two) or another, and to more channels than
 * the sort counts on the stack. 1,000 records, long and string keys,
 * cross the sort's chunks.
 */
START_TEST(test_a_keyby_run_reaches_each_channel_as_its_records_one_by_one)
{
	static const char *const windows[] = {
		"parallelism = 1\n",
		"parallelism = 3\n",
		"parallelism = 7\nmax_parallelism = 1000\n",
		"parallelism = 300\n",
	};
	enum { N = 1000 };
	struct wm_record *r = calloc(N, sizeof(*r));
	struct wm_frame w = {.kind = WM_FRAME_WATERMARK, .payload = {5000}};
	unsigned seed = 26;
	char text[512];

	ck_assert_ptr_nonnull(r);
	for (int i = 0; i < N; i++) {
		r[i].ts = rand_r(&seed) % 4000;
		r[i].key = rand_r(&seed) % 50 - 10;
		if (i % 4 == 0) {
			r[i].key = wm_keygroup_string_key(rand_r(&seed), 9);
			r[i].flags = WM_RECORD_STRING_KEY;
		}
	}
	snprintf(text, sizeof(text),
		 "[job]\nevent_time = 1 min\n"
		 "[source s]\nparallelism = 1\nrate = 1/s\n"
		 "[keyby k]\ninput = s\nparallelism = 1\n"
		 "[window w]\ninput = k\nsize = 10 s\n%s",
		 windows[_i]);
	struct channels_seen one = {
		.out = {.frame = see_frame, .record = see_record}};
	struct channels_seen runs = {.out = {.frame = see_frame,
					     .record = see_record,
					     .records = see_records}};
	struct channels_seen *drivers[] = {&one, &runs};

	for (int j = 0; j < 2; j++) {
		struct wm_topology *topo;
		struct wm_ini_error err;
		struct wm_plan *plan;
		void *block;
		struct wm_task *t;

		ck_assert_int_eq(wm_topology_load_buffer(text, strlen(text),
							 "k.conf", &topo, &err),
				 0);
		plan = wm_plan_new(topo);
		block = calloc(1, wm_plan_metrics_bytes(plan));
		t = wm_task_new(topo, plan, plan->first[1], &drivers[j]->out,
				block, NULL);
		ck_assert_ptr_nonnull(t);
		if (j == 0)
			for (int i = 0; i < N; i++) {
				struct wm_frame f;

				wm_codec_record_frame(&r[i], &f);
				ck_assert_int_eq(wm_task_input(t, 0, &f, 1), 0);
			}
		else
			ck_assert_int_eq(wm_task_input_run(t, 0, r, N, 1), 0);
		ck_assert_int_eq(wm_task_input(t, 0, &w, 2), 0);
		ck_assert_uint_eq(wm_task_counters(t)->records_out, N);
		wm_task_free(t);
		free(block);
		wm_plan_free(plan);
		wm_topology_free(topo);
	}
	ck_assert_uint_eq(one.calls, N);
	ck_assert_uint_lt(runs.calls, N);
	for (int c = 0; c < 300; c++) {
		ck_assert_uint_eq(runs.seen[c], one.seen[c]);
		ck_assert_msg(runs.hash[c] == one.hash[c],
			      "window %d, channel %d: the records differ", _i,
			      c);
	}
	free(r);
}
END_TEST

#define WATERMARK_JOB(keys)                                                    \
	"[job]\nevent_time = 1 min\ncheckpoint_interval = 1 s\n"               \
	"checkpoint_dir = unused\n" keys "[source s]\nparallelism = 2\n"       \
	"partitions = 2\nrate = 1/s\n[window w]\ninput = s\nsize = 10 s\n"     \
	"late_output = unused.csv\n"

static void
count_late(struct wm_task_out *out, unsigned side, const struct wm_record *r)
{
	struct snapshots *k = wm_container_of(out, struct snapshots, out);

	(void)side;
	(void)r;
	k->n += 100;
}

START_TEST(test_checkpoint_watermarks_restore_the_watermarks_and_statuses)
{
	/* Channel 0 at 20 s, channel 1 IDLE: the window is at 20 s. With
	 * checkpoint_watermarks a task restored from the snapshot is there
	 * too: a record of the window [0, 10 s) is late at once, and a
	 * watermark of channel 0 alone advances it (channel 1 is still
	 * IDLE). A job without the key refuses that snapshot, and the task
	 * with it refuses one without watermarks. */
	struct wm_topology *topo, *plain_topo;
	struct wm_plan *plan, *plain_plan;
	struct wm_subtask_metrics *m, *plain_m;
	struct snapshots k = {.out = {.frame = ignore_frame,
				      .record = wm_task_record_as_frame,
				      .result = count_result,
				      .late = count_late,
				      .snapshot = keep_snapshot}};
	struct wm_frame bar = {.kind = WM_FRAME_BARRIER, .payload = {3, 100}};
	struct wm_frame wm20 = {.kind = WM_FRAME_WATERMARK, .payload = {20000}};
	struct wm_frame wm30 = {.kind = WM_FRAME_WATERMARK, .payload = {30000}};
	struct wm_frame idle = {.kind = WM_FRAME_STATUS, .arg = WM_STATUS_IDLE};
	struct wm_record r = {.ts = 4200, .key = 1, .value = 1};
	struct wm_frame f;
	struct wm_task *t, *plain;
	void *bytes;

	t = window_task(&topo, &plan, &m, &k.out,
			WATERMARK_JOB("checkpoint_watermarks = true\n"));
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(wm_task_input(t, 0, &wm20, 1), 0);
	ck_assert_int_eq(wm_task_input(t, 1, &idle, 2), 0);
	ck_assert_int_eq(wm_window_watermark(wm_task_window(t)), 20000);
	ck_assert_int_eq(wm_task_input(t, 0, &bar, 3), 0);
	ck_assert_int_eq(wm_task_input(t, 1, &bar, 4), 0);
	ck_assert_int_eq(k.n, 1);
	wm_task_free(t);

	memset(m, 0, wm_plan_metrics_bytes(plan));
	t = wm_task_new(topo, plan, plan->first[1], &k.out, m, NULL);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(wm_task_restore(t, k.bytes, k.len), 0);
	ck_assert_int_eq(wm_window_watermark(wm_task_window(t)), 20000);
	wm_codec_record_frame(&r, &f);
	ck_assert_int_eq(wm_task_input(t, 1, &f, 5), 0);
	ck_assert_int_eq(k.n, 101); /* late, to the side output */
	ck_assert_int_eq(wm_task_input(t, 0, &wm30, 6), 0);
	ck_assert_int_eq(wm_window_watermark(wm_task_window(t)), 30000);

	/* The other setting is refused, saying why. */
	plain = window_task(&plain_topo, &plain_plan, &plain_m, &k.out,
			    WATERMARK_JOB(""));
	ck_assert_ptr_nonnull(plain);
	ck_assert_int_eq(wm_task_restore(plain, k.bytes, k.len), -EINVAL);
	ck_assert_ptr_nonnull(
		strstr(wm_task_why(plain), "checkpoint_watermarks = true"));
	bytes = k.bytes;
	k.bytes = NULL;
	ck_assert_int_eq(wm_task_input(plain, 0, &bar, 1), 0);
	ck_assert_int_eq(wm_task_input(plain, 1, &bar, 2), 0);
	wm_task_free(t);
	memset(m, 0, wm_plan_metrics_bytes(plan));
	t = wm_task_new(topo, plan, plan->first[1], &k.out, m, NULL);
	ck_assert_int_eq(wm_task_restore(t, k.bytes, k.len), -EINVAL);
	ck_assert_ptr_nonnull(
		strstr(wm_task_why(t), "checkpoint_watermarks = false"));

	wm_task_free(t);
	wm_task_free(plain);
	free(bytes);
	free(k.bytes);
	free(m);
	free(plain_m);
	wm_plan_free(plan);
	wm_plan_free(plain_plan);
	wm_topology_free(topo);
	wm_topology_free(plain_topo);
}
END_TEST

START_TEST(test_a_snapshot_whose_counts_do_not_add_up_is_refused)
{
	/* The window's snapshot of one record taken, each of its counts
	 * (records in and out, received, results) moved by one in turn,
	 * checksums being no concern of the task's: every one is refused as
	 * bad data saying so, never restored into a task whose figures no
	 * longer balance (an assertion in checked builds, a summary that
	 * does not account for every record in others). */
	struct wm_topology *topo;
	struct wm_plan *plan;
	struct wm_subtask_metrics *m;
	struct snapshots k = {.out = {.frame = ignore_frame,
				      .record = wm_task_record_as_frame,
				      .snapshot = keep_snapshot}};
	struct wm_frame bar = {.kind = WM_FRAME_BARRIER, .payload = {3, 100}};
	struct wm_record r = {.ts = 4200, .key = 1, .value = 1};
	struct wm_frame f;
	struct wm_task *t;
	size_t body = 0, counts = 0;
	uint8_t *snap;

	t = window_task(&topo, &plan, &m, &k.out, WATERMARK_JOB(""));
	ck_assert_ptr_nonnull(t);
	wm_codec_record_frame(&r, &f);
	ck_assert_int_eq(wm_task_input(t, 0, &f, 1), 0);
	ck_assert_int_eq(wm_task_input(t, 0, &bar, 2), 0);
	ck_assert_int_eq(wm_task_input(t, 1, &bar, 3), 0);
	ck_assert_int_eq(k.n, 1);
	wm_task_free(t);

	/* The counts' section, the task's last: its tag and version (u32
	 * each), its length (u64), then its u64s. */
	snap = k.bytes;
	for (size_t i = 0; i + 16 <= k.len; i++)
		if (memcmp(snap + i, "CNTS", 4) == 0) {
			body = i + 16;
			counts = (k.len - body) / 8;
		}
	ck_assert_uint_ge(counts, 4);
	for (size_t c = 0; c < 2 * counts; c++) {
		uint8_t *at = snap + body + 8 * (c / 2);
		int by = c % 2 ? 1 : -1;

		*at = (uint8_t)(*at + by);
		memset(m, 0, wm_plan_metrics_bytes(plan));
		t = wm_task_new(topo, plan, plan->first[1], &k.out, m, NULL);
		ck_assert_ptr_nonnull(t);
		ck_assert_int_eq(wm_task_restore(t, k.bytes, k.len), -EBADMSG);
		ck_assert_str_eq(wm_task_why(t),
				 "its counts of records do not add up");
		wm_task_free(t);
		*at = (uint8_t)(*at - by);
	}
	/* Unchanged, it restores. */
	memset(m, 0, wm_plan_metrics_bytes(plan));
	t = wm_task_new(topo, plan, plan->first[1], &k.out, m, NULL);
	ck_assert_int_eq(wm_task_restore(t, k.bytes, k.len), 0);
	wm_task_free(t);
	free(k.bytes);
	free(m);
	wm_plan_free(plan);
	wm_topology_free(topo);
}
END_TEST

START_TEST(test_an_aborted_checkpoint_unblocks_the_channels)
{
	/* The driver aborts checkpoint 3 (its timeout passed) while the task
	 * aligns it: channel 0 is read again, and the late barrier of
	 * channel 1 is ignored: no snapshot. */
	struct wm_topology *topo;
	struct wm_plan *plan;
	struct wm_subtask_metrics *m;
	struct snapshots k = {.out = {.frame = ignore_frame,
				      .record = wm_task_record_as_frame,
				      .result = count_result,
				      .late = count_late,
				      .snapshot = keep_snapshot}};
	struct wm_frame bar = {.kind = WM_FRAME_BARRIER, .payload = {3, 100}};
	struct wm_task *t =
		window_task(&topo, &plan, &m, &k.out, WATERMARK_JOB(""));

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(wm_task_input(t, 0, &bar, 1), 0);
	ck_assert(wm_task_input_blocked(t, 0));
	wm_task_abort_checkpoint(t, 3);
	ck_assert(!wm_task_input_blocked(t, 0));
	ck_assert_int_eq(wm_task_input(t, 1, &bar, 2), 0);
	ck_assert(!wm_task_input_blocked(t, 1));
	ck_assert_int_eq(k.n, 0);
	wm_task_free(t);
	free(m);
	wm_plan_free(plan);
	wm_topology_free(topo);
}
END_TEST

/*
 * Sources fed from outside (tests/unit/fake_source.h): partitions that
 * appear while the source runs, and a source that says it cannot go on.
 * The task's watermark frames are logged with the time they were sent.
 */
#define OUTSIDE_LOG 256

struct outside {
	struct wm_task_out out; /* first */
	int64_t now;
	uint32_t n;
	struct {
		int64_t at;
		enum wm_frame_kind kind;
		wm_ts_t watermark;
		uint32_t arg;
	} log[OUTSIDE_LOG];
};

static void
outside_frame(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	      const struct wm_frame *f)
{
	struct outside *o = wm_container_of(out, struct outside, out);

	(void)edge;
	(void)channel;
	if (f->kind != WM_FRAME_WATERMARK && f->kind != WM_FRAME_STATUS)
		return;
	ck_assert_uint_lt(o->n, OUTSIDE_LOG);
	o->log[o->n].at = o->now;
	o->log[o->n].kind = f->kind;
	o->log[o->n].watermark = (wm_ts_t)f->payload[0];
	o->log[o->n].arg = f->arg;
	o->n++;
}

static void
outside_record(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	       const struct wm_record *r)
{
	(void)out;
	(void)edge;
	(void)channel;
	(void)r;
}

struct outside_job {
	struct wm_topology *topo;
	struct wm_plan *plan;
	struct wm_subtask_metrics *m; /* its area, block 0 first */
	struct wm_partition_metrics *parts;
	struct fake_source *f;
	struct wm_task *task;
	struct outside o;
};

/* One source subtask of four partitions reading `parts` of them at first,
 * idle after 1 s, a tick every 100 ms. */
static void
outside_open(struct outside_job *j, const uint32_t *parts, uint32_t n)
{
	static const char text[] =
		"[job]\n[source s]\nrate = unlimited\npartitions = 4\n"
		"idle_timeout = 1 s\n"
		"watermark_interval = 100 ms\n"
		"[window w]\ninput = s\nsize = 1 s\n";
	struct wm_ini_error err;

	memset(j, 0, sizeof(*j));
	ck_assert_int_eq(wm_topology_load_buffer(text, strlen(text), "job.conf",
						 &j->topo, &err),
			 0);
	j->plan = wm_plan_new(j->topo);
	ck_assert_ptr_nonnull(j->plan);
	/* Room for every partition the subtask can own. */
	ck_assert_uint_eq(j->plan->subtasks[0].n_partitions, 4);
	j->m = calloc(1, wm_plan_metrics_bytes(j->plan));
	j->f = fake_source_new(parts, n);
	ck_assert_ptr_nonnull(j->m);
	ck_assert_ptr_nonnull(j->f);
	j->parts = wm_plan_partitions(j->plan, j->m, 0);
	j->o.out = (struct wm_task_out){.frame = outside_frame,
					.record = outside_record};
	j->task = wm_task_new(j->topo, j->plan, 0, &j->o.out, j->m,
			      fake_source_base(j->f));
	ck_assert_ptr_nonnull(j->task);
}

static void
outside_close(struct outside_job *j)
{
	wm_task_free(j->task); /* frees the source */
	free(j->m);
	wm_plan_free(j->plan);
	wm_topology_free(j->topo);
}

static void
outside_run(struct outside_job *j, int64_t now)
{
	j->o.now = now;
	wm_task_run_source(j->task, now);
	wm_task_publish(j->task, now);
}

static void
hand(struct fake_source *f, uint32_t partition, wm_ts_t ts)
{
	struct wm_record r = {
		.ts = ts, .key = 1, .value = 1, .partition = partition};

	fake_source_hand(f, &r);
}

/* The first watermark sent at or after `from` above `above`: its index in
 * the log, or -1. */
static int
first_above(const struct outside *o, int64_t from, wm_ts_t above)
{
	for (uint32_t i = 0; i < o->n; i++)
		if (o->log[i].at >= from &&
		    o->log[i].kind == WM_FRAME_WATERMARK &&
		    o->log[i].watermark > above)
			return (int)i;
	return -1;
}

/*
 * Flink's source reader given a new split while it runs registers an output
 * for it at once (SourceReaderBase.addSplits, createOutputForSplit): a slot
 * at MIN, not idle, that takes part in the minimum and holds the combined
 * watermark where it is until the split's own idleness marks it idle (its
 * generator's timer starts at the first tick after it joined). Partition 0
 * reads a record every 100 ms throughout; partition 2 appears at 500 ms
 * and never has a record.
 */
START_TEST(test_a_new_empty_partition_holds_the_watermark_until_idle)
{
	static const uint32_t first[] = {0};
	const int64_t ms = 1000000, joined = 500 * ms;
	struct outside_job j;
	wm_ts_t held = WM_TS_MIN;
	int k;

	outside_open(&j, first, 1);
	for (int64_t step = 0; step <= 30; step++) {
		int64_t now = step * 100 * ms;

		if (now == joined) {
			/* The watermark partition 0 made until now stays. */
			k = first_above(&j.o, 0, WM_TS_MIN);
			ck_assert_int_ge(k, 0);
			held = j.o.log[j.o.n - 1].watermark;
			ck_assert_int_gt(held, 1000);
			fake_source_add_partition(j.f, 2);
		}
		hand(j.f, 0, 1000 + step * 100);
		outside_run(&j, now);
		if (now == joined) {
			ck_assert_uint_eq(WM_METRIC_GET(j.m->n_partitions), 2);
			ck_assert_uint_eq(WM_METRIC_GET(j.parts[1].partition),
					  2);
			ck_assert_int_eq(
				WM_METRIC_GET(j.parts[1].progress.watermark),
				WM_TS_MIN);
		}
	}
	/* Held from the join until partition 2 went idle: its timer
	 * started at the tick of 500 ms and it is idle once more than
	 * idle_timeout (1 s) passed, at the tick of 1.6 s. */
	k = first_above(&j.o, joined, held);
	ck_assert_msg(k >= 0, "the watermark never moved past %" PRId64, held);
	ck_assert_int_eq(j.o.log[k].at, 1600 * ms);
	/* Then partition 0 alone holds it: its newest record less 1 ms. */
	ck_assert_int_eq(j.o.log[k].watermark, 1000 + 16 * 100 - 1);
	/* The subtask never went idle: partition 0 kept it active. */
	for (uint32_t i = 0; i < j.o.n; i++)
		ck_assert(j.o.log[i].kind != WM_FRAME_STATUS);
	ck_assert_uint_eq(WM_METRIC_GET(j.parts[1].progress.idle), 1);
	ck_assert_uint_eq(WM_METRIC_GET(j.parts[0].records), 31);
	ck_assert_uint_eq(WM_METRIC_GET(j.parts[1].records), 0);
	outside_close(&j);
}
END_TEST

/*
 * A partition that appears while every other is idle, and the subtask
 * announced IDLE: it joins at MIN, not idle, which ends the all-idle state
 * without a watermark above the combined one, so the subtask stays
 * announced IDLE (released Flink has no ACTIVE for it, FLINK-22926) until
 * the new partition's first record raises the minimum above what was
 * sent. Its records are read and counted as soon as they come.
 */
/*
 * Under --sim a partition's second record of a burst skips what its first
 * one tracked (emit_due(): its due time, its slot's watermark and
 * idleness): every figure comes out as when each record comes in a burst
 * of its own at the same instant. Both partitions idle first, then their
 * records interleaved in one burst (the first of each ends its
 * idleness), one of them punctuated, ticks before and after.
 */
START_TEST(test_a_burst_tracks_a_partition_once_as_records_one_by_one_do)
{
	static const uint32_t parts[] = {0, 1};
	const int64_t ms = 1000000;
	struct outside_job burst, single;
	static const struct {
		uint32_t partition;
		wm_ts_t ts;
		uint32_t flags;
	} recs[] = {{0, 2000, 0},
		    {1, 1500, 0},
		    {0, 2100, 0},
		    {0, 1900, 0},
		    {1, 2600, WM_RECORD_PUNCTUATE},
		    {1, 2500, 0},
		    {0, 2300, 0}};
	size_t n = sizeof(recs) / sizeof(*recs);

	outside_open(&burst, parts, 2);
	outside_open(&single, parts, 2);
	/* Idle after 1 s with nothing read. */
	for (int64_t t = 0; t <= 1500 * ms; t += 100 * ms) {
		outside_run(&burst, t);
		outside_run(&single, t);
	}
	for (size_t i = 0; i < n; i++) {
		struct wm_record r = {.ts = recs[i].ts,
				      .key = (int64_t)i,
				      .value = 1,
				      .flags = recs[i].flags,
				      .partition = recs[i].partition};

		fake_source_hand(burst.f, &r);
		fake_source_hand(single.f, &r);
		outside_run(&single, 1550 * ms);
	}
	outside_run(&burst, 1550 * ms);
	ck_assert_uint_eq(fake_source_read(burst.f), n);
	for (int64_t t = 1600 * ms; t <= 3000 * ms; t += 100 * ms) {
		outside_run(&burst, t);
		outside_run(&single, t);
	}
	ck_assert_uint_eq(burst.o.n, single.o.n);
	ck_assert(memcmp(burst.o.log, single.o.log,
			 burst.o.n * sizeof(*burst.o.log)) == 0);
	ck_assert_msg(memcmp(burst.m, single.m,
			     wm_plan_metrics_bytes(burst.plan)) == 0,
		      "the metrics differ");
	outside_close(&burst);
	outside_close(&single);
}
END_TEST

START_TEST(test_a_partition_that_joins_an_idle_subtask_resumes_it_with_records)
{
	static const uint32_t first[] = {1};
	const int64_t ms = 1000000;
	struct outside_job j;
	int k;

	outside_open(&j, first, 1);
	hand(j.f, 1, 5000);
	for (int64_t now = 0; now <= 2000 * ms; now += 100 * ms)
		outside_run(&j, now);
	/* Idle after its timeout: the last frame says IDLE. */
	ck_assert_int_eq(j.o.log[j.o.n - 1].kind, WM_FRAME_STATUS);
	ck_assert_uint_eq(j.o.log[j.o.n - 1].arg, WM_STATUS_IDLE);
	fake_source_add_partition(j.f, 3);
	hand(j.f, 3, 9000); /* read in the run that adopts it */
	for (int64_t now = 2100 * ms; now <= 2500 * ms; now += 100 * ms)
		outside_run(&j, now);
	ck_assert_uint_eq(WM_METRIC_GET(j.m->n_partitions), 2);
	ck_assert_uint_eq(WM_METRIC_GET(j.parts[1].records), 1);
	/* Partition 1 is idle and does not count; 3 alone: 8999, after
	 * ACTIVE. */
	k = first_above(&j.o, 2100 * ms, 4999);
	ck_assert_int_ge(k, 1);
	ck_assert_int_eq(j.o.log[k].watermark, 8999);
	ck_assert_int_eq(j.o.log[k - 1].kind, WM_FRAME_STATUS);
	ck_assert_uint_eq(j.o.log[k - 1].arg, WM_STATUS_ACTIVE);
	outside_close(&j);
}
END_TEST

/* A source that says it cannot go on stops: nothing more is read, the run
 * says nothing is due, and the block carries its exit code and why, with
 * the outages it rode out before. */
START_TEST(test_a_source_that_cannot_go_on_stops_and_says_why)
{
	static const uint32_t first[] = {0, 1};
	const struct wm_source_health down = {
		.exit_code = 69,
		.why = "brokers gone for 30 s",
		.outages = 2,
		.outage_ns = 12300000000,
		.unreachable = true,
	};
	struct outside_job j;
	char why[256];

	outside_open(&j, first, 2);
	hand(j.f, 0, 1000);
	outside_run(&j, 0);
	ck_assert_ptr_nonnull(wm_task_source_health(j.task));
	ck_assert_int_eq(wm_task_source_health(j.task)->exit_code, 0);
	ck_assert_uint_eq(wm_metrics_source_failure(j.m, why, sizeof(why)), 0);
	ck_assert_str_eq(why, "");
	fake_source_set_health(j.f, &down);
	hand(j.f, 1, 2000);
	outside_run(&j, 1000000);
	ck_assert_int_eq(wm_task_source_health(j.task)->exit_code, 69);
	ck_assert_int_eq(wm_task_run_source(j.task, 2000000), INT64_MAX);
	hand(j.f, 1, 3000);
	outside_run(&j, 3000000);
	/* The record of the run that found it failing was read (next()
	 * came first); none after. */
	ck_assert_uint_eq(fake_source_read(j.f), 2);
	ck_assert_uint_eq(wm_metrics_source_failure(j.m, why, sizeof(why)), 69);
	ck_assert_str_eq(why, "brokers gone for 30 s");
	ck_assert_uint_eq(WM_METRIC_GET(j.m->source_outages), 2);
	ck_assert_int_eq(WM_METRIC_GET(j.m->source_outage_ns), 12300000000);
	ck_assert_uint_eq(WM_METRIC_GET(j.m->source_unreachable), 1);
	outside_close(&j);
}
END_TEST

/* A partition the subtask cannot own (beyond the stage's partitions) is
 * the source breaking its interface: the job stops with EX_SOFTWARE. */
START_TEST(test_a_partition_beyond_the_room_stops_the_source)
{
	static const uint32_t first[] = {0};
	struct outside_job j;

	outside_open(&j, first, 1);
	fake_source_add_partition(j.f, 4);
	outside_run(&j, 0);
	ck_assert_int_eq(wm_task_source_health(j.task)->exit_code, 70);
	ck_assert_ptr_nonnull(
		strstr(wm_task_source_health(j.task)->why, "partition 4"));
	ck_assert_uint_eq(WM_METRIC_GET(j.m->n_partitions), 1);
	outside_close(&j);
}
END_TEST

/* What a window task sent, in order: each result as its sink gets it
 * ('R'), each record on an edge ('r') and each watermark ('W'). */
struct chain_event {
	char what;
	int64_t key, ts, value; /* 'R': the window's end as ts */
	uint32_t flags;
};

struct chain_log {
	struct wm_task_out out; /* first: recovered with wm_container_of */
	struct chain_event ev[64];
	unsigned n;
	enum wm_window_emit emit;
};

static struct chain_event *
chain_next(struct wm_task_out *out)
{
	struct chain_log *k = wm_container_of(out, struct chain_log, out);

	ck_assert_uint_lt(k->n, sizeof(k->ev) / sizeof(k->ev[0]));
	return &k->ev[k->n++];
}

static void
chain_frame(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	    const struct wm_frame *f)
{
	ck_assert_uint_eq(edge, 0);
	ck_assert_uint_eq(channel, 0);
	if (f->kind == WM_FRAME_WATERMARK)
		*chain_next(out) = (struct chain_event){
			.what = 'W', .ts = (int64_t)f->payload[0]};
}

static void
chain_record(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	     const struct wm_record *r)
{
	ck_assert_uint_eq(edge, 0);
	ck_assert_uint_eq(channel, 0);
	*chain_next(out) = (struct chain_event){.what = 'r',
						.key = r->key,
						.ts = r->ts,
						.value = r->value,
						.flags = r->flags};
}

static void
chain_result(struct wm_task_out *out, const struct wm_window_result *r,
	     wm_ts_t watermark, int64_t fire_time_ms)
{
	struct chain_log *k = wm_container_of(out, struct chain_log, out);
	int64_t v = k->emit == WM_WINDOW_EMIT_COUNT ? r->count
		    : k->emit == WM_WINDOW_EMIT_SUM ? r->sum
		    : k->emit == WM_WINDOW_EMIT_MIN ? r->min
						    : r->max;

	(void)watermark;
	(void)fire_time_ms;
	ck_assert_int_eq(r->timestamp, r->window.end - 1);
	*chain_next(out) = (struct chain_event){
		.what = 'R', .key = r->key, .ts = r->window.end, .value = v};
}

/* A window read by another window, its results as records: each shape of
 * window, each aggregate `emit` names, long and string keys. */
static const struct {
	const char *window; /* the [window counts] keys but input */
	enum wm_window_emit emit;
	uint32_t flags;
	unsigned results; /* of the records below at watermark 20 s */
	bool late_firing; /* a record after it refires [0, 10 s) of key 1 */
} chains[] = {
	{.window = "size = 10 s\nemit = count\n",
	 .emit = WM_WINDOW_EMIT_COUNT,
	 .results = 3},
	{.window = "type = sliding\nsize = 10 s\nslide = 5 s\n"
		   "aggregates = min, sum\n",
	 .emit = WM_WINDOW_EMIT_SUM,
	 .flags = WM_RECORD_STRING_KEY,
	 .results = 6},
	{.window = "type = session\ngap = 3 s\naggregates = max, count\n"
		   "emit = max\n",
	 .emit = WM_WINDOW_EMIT_MAX,
	 .results = 3},
	{.window = "size = 10 s\naggregates = avg, min\n",
	 .emit = WM_WINDOW_EMIT_MIN,
	 .flags = WM_RECORD_STRING_KEY,
	 .results = 3},
	{.window = "size = 10 s\nallowed_lateness = 1 min\n",
	 .emit = WM_WINDOW_EMIT_COUNT,
	 .results = 3,
	 .late_firing = true},
};

START_TEST(test_a_window_sends_its_results_as_records_before_the_watermark)
{
	/* Flink's WindowOperator fires its timers inside processWatermark,
	 * each result stamped with its window's maxTimestamp, then forwards
	 * the watermark: so the window task sends each result down its edge
	 * as a record (key, end - 1, the `emit` aggregate, the key's flags)
	 * as its sinks get it, and the watermark after them all; counted
	 * once in what it emitted and once in what the edge carried. The
	 * key's flag is the stage's (wm_task_string_keys()), not the
	 * records'. */
	char text[512];
	struct chain_log k = {.out = {.frame = chain_frame,
				      .record = chain_record,
				      .result = chain_result},
			      .emit = chains[_i].emit};
	const struct {
		int64_t key, ts, value;
	} in[] = {{1, 1000, 4}, {1, 2500, 9}, {2, 4000, 7}, {1, 13000, 2}};
	struct wm_topology *topo;
	struct wm_plan *plan;
	struct wm_subtask_metrics *area;
	struct wm_task *t;
	struct wm_frame f = {.kind = WM_FRAME_WATERMARK, .payload = {20000}};
	unsigned results = 0;

	snprintf(text, sizeof(text),
		 "[job]\nevent_time = 1 min\n"
		 "[source s]\nrate = 1/s\n"
		 "[window counts]\ninput = s\n%s"
		 "[window top]\ninput = counts\nsize = 2 s\n",
		 chains[_i].window);
	t = window_task(&topo, &plan, &area, &k.out, text);
	ck_assert_ptr_nonnull(t);
	/* As the driver says of a stage keyed by strings. */
	if (chains[_i].flags != 0)
		wm_task_string_keys(t);
	ck_assert_uint_eq(topo->stages[1].u.window.emit, chains[_i].emit);
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		struct wm_record r = {.ts = in[i].ts,
				      .key = in[i].key,
				      .value = in[i].value,
				      .flags = chains[_i].flags};
		struct wm_frame rf;

		wm_codec_record_frame(&r, &rf);
		ck_assert_int_eq(wm_task_input(t, 0, &rf, 1), 0);
	}
	ck_assert_uint_eq(k.n, 0); /* nothing fires before the watermark */
	ck_assert_int_eq(wm_task_input(t, 0, &f, 2), 0);
	ck_assert_uint_gt(k.n, 0);
	for (unsigned i = 0; i + 1 < k.n; i += 2) {
		const struct chain_event *res = &k.ev[i], *rec = &k.ev[i + 1];

		ck_assert_msg(res->what == 'R' && rec->what == 'r',
			      "event %u: %c then %c, not a result then its "
			      "record",
			      i, res->what, rec->what);
		ck_assert_int_eq(rec->key, res->key);
		ck_assert_int_eq(rec->ts, res->ts - 1);
		ck_assert_int_eq(rec->value, res->value);
		ck_assert_uint_eq(rec->flags, chains[_i].flags);
		results++;
	}
	ck_assert_uint_eq(results, chains[_i].results);
	ck_assert_uint_eq(k.n, 2 * results + 1);
	ck_assert_int_eq(k.ev[k.n - 1].what, 'W');
	ck_assert_int_eq(k.ev[k.n - 1].ts, 20000);
	if (chains[_i].late_firing) {
		/* A late firing goes on as well, behind the watermark. */
		struct wm_record r = {.ts = 1500, .key = 1, .value = 5};
		struct wm_frame rf;

		wm_codec_record_frame(&r, &rf);
		ck_assert_int_eq(wm_task_input(t, 0, &rf, 3), 0);
		ck_assert_uint_eq(k.n, 2 * results + 3);
		ck_assert_int_eq(k.ev[k.n - 2].what, 'R');
		ck_assert_int_eq(k.ev[k.n - 1].what, 'r');
		ck_assert_int_eq(k.ev[k.n - 1].key, 1);
		ck_assert_int_eq(k.ev[k.n - 1].ts, 9999);
		ck_assert_int_eq(k.ev[k.n - 1].value, 3);
		results++;
	}
	ck_assert_uint_eq(wm_task_counters(t)->records_out, results);
	wm_task_publish(t, 3);
	ck_assert_uint_eq(
		WM_METRIC_GET(wm_plan_block(plan, area, plan->first[1])
				      ->records_sent[0]),
		results);
	wm_task_free(t);
	free(area);
	wm_plan_free(plan);
	wm_topology_free(topo);
}
END_TEST

static Suite *
task_suite(void)
{
	Suite *s = suite_create("task");
	TCase *jump = tcase_create("jump");
	TCase *figures = tcase_create("figures");
	TCase *outside = tcase_create("outside");

	tcase_set_timeout(jump, 60);
	tcase_add_loop_test(jump, test_jumping_sends_what_stepping_sends, 0,
			    (int)(sizeof(jobs) / sizeof(*jobs)));
	tcase_add_loop_test(jump, test_runs_send_what_records_one_by_one_send,
			    0, (int)(sizeof(jobs) / sizeof(*jobs)));
	tcase_add_test(jump, test_years_of_silence_take_a_few_runs);
	tcase_add_test(jump, test_staged_records_go_before_a_later_frame);
	tcase_add_loop_test(
		jump,
		test_a_keyby_run_reaches_each_channel_as_its_records_one_by_one,
		0, 4);
	tcase_add_test(figures,
		       test_figures_are_as_of_a_blocked_send_not_before_it);
	tcase_add_test(figures,
		       test_window_counts_late_records_by_their_partition);
	tcase_add_test(figures,
		       test_window_figures_are_the_same_from_frames_and_runs);
	tcase_add_test(
		figures,
		test_each_input_channel_and_the_newest_event_time_are_published);
	tcase_add_test(
		figures,
		test_barriers_align_then_the_window_snapshots_and_restores);
	tcase_add_test(figures,
		       test_a_snapshot_whose_counts_do_not_add_up_is_refused);
	tcase_add_test(
		figures,
		test_checkpoint_watermarks_restore_the_watermarks_and_statuses);
	tcase_add_test(figures,
		       test_an_aborted_checkpoint_unblocks_the_channels);
	tcase_add_loop_test(
		figures,
		test_a_window_sends_its_results_as_records_before_the_watermark,
		0, (int)(sizeof(chains) / sizeof(*chains)));
	tcase_add_test(
		outside,
		test_a_new_empty_partition_holds_the_watermark_until_idle);
	tcase_add_test(
		outside,
		test_a_partition_that_joins_an_idle_subtask_resumes_it_with_records);
	tcase_add_test(
		outside,
		test_a_burst_tracks_a_partition_once_as_records_one_by_one_do);
	tcase_add_test(outside,
		       test_a_source_that_cannot_go_on_stops_and_says_why);
	tcase_add_test(outside,
		       test_a_partition_beyond_the_room_stops_the_source);
	suite_add_tcase(s, jump);
	suite_add_tcase(s, figures);
	suite_add_tcase(s, outside);
	return s;
}

int
main(void)
{
	return wm_check_main(task_suite());
}
