/*
 * check_footprint.c
 *	The memory estimate against hand computations from footprint.h's
 *	model, its per-state figures against the real window operator, and
 *	the machine's cgroup limit from made-up /proc and cgroup files.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipc/ring.h"
#include "ipc/shm.h"
#include "operators/window.h"
#include "operators/window_join.h"
#include "runtime/plan/footprint.h"
#include "runtime/metrics/metrics.h"
#include "runtime/plan/plan.h"
#include "runtime/conf/topology.h"
#include "tests/unit/check_main.h"
#include "tests/unit/hot_assert.h"

#define GiB (1024.0 * 1024 * 1024)

struct job {
	struct wm_topology *t;
	struct wm_plan *plan;
	struct wm_footprint fp;
};

static void
estimate(struct job *j, const char *text, bool sim)
{
	struct wm_ini_error err;
	char why[256];

	ck_assert_msg(wm_topology_load_buffer(text, strlen(text), "t.conf",
					      &j->t, &err) == 0,
		      "%d:%d: %s", err.line, err.col, err.msg);
	j->plan = wm_plan_new(j->t);
	ck_assert_ptr_nonnull(j->plan);
	ck_assert_msg(wm_footprint_estimate(j->t, j->plan, sim, &j->fp, why,
					    sizeof(why)) == 0,
		      "%s", why);
}

static void
done(struct job *j)
{
	wm_footprint_free(&j->fp);
	wm_plan_free(j->plan);
	wm_topology_free(j->t);
}

/* The built-in job's shape: rate 1/s on 16 partitions, 8 keys, bound
 * 5 s, interval 200 ms, three partitions silent for 8 h but idle after
 * 30 s, ten-minute tumbling windows. */
START_TEST(test_tumbling_windows_alive_per_key_by_hand)
{
	struct job j;

	estimate(&j,
		 "[job]\nevent_time = 12 h\n"
		 "[source events]\nparallelism = 4\npartitions = 16\n"
		 "rate = 1/s\nout_of_orderness = 5 s\nkeys = 8\n"
		 "idle_timeout = 30 s\nsilence = 13-15 from 1 h to 9 h\n"
		 "[window counts]\ninput = events\nparallelism = 2\n"
		 "size = 10 min\n",
		 false);
	ck_assert_uint_eq(j.fp.n_windows, 1);
	const struct wm_footprint_window *w = &j.fp.windows[0];

	/* lag = 1 + 200 (interval) + 5000 (bound) + the longest hold: the
	 * silence, cut to the idle timeout (30000; a record a second holds
	 * it 1000). */
	ck_assert_double_eq(w->lag_ms, 35201);
	/* ceil((600000 + 35201 + 0) / 600000) */
	ck_assert_double_eq(w->per_key, 2);
	ck_assert_double_eq(w->keys, 8);
	ck_assert_double_eq(w->states, 16);
	ck_assert(!w->by_records && !w->keys_unknown && !w->unbounded);
	ck_assert_double_eq(w->bytes, 16.0 * WM_FOOTPRINT_STATE_BYTES);
	done(&j);
}
END_TEST

/* A partition silent for ever, without an idle timeout, holds the
 * watermark for the whole run: every window of it stays alive. */
START_TEST(test_a_watermark_held_for_ever_keeps_the_whole_run)
{
	static const char silent[] =
		"[source s]\nparallelism = 1\npartitions = 2\nrate = 10/s\n"
		"keys = 4\nsilence = 1\n"
		"[window w]\ninput = s\nparallelism = 1\nsize = 1 min\n";
	char conf[512];
	struct job j;

	snprintf(conf, sizeof(conf), "[job]\nevent_time = 1 h\n%s", silent);
	estimate(&j, conf, false);
	/* 1 + 200 + 100 (a record every 100 ms) + the hour */
	ck_assert_double_eq(j.fp.windows[0].lag_ms, 301 + 3600000);
	/* ceil((60000 + 3600301) / 60000) */
	ck_assert_double_eq(j.fp.windows[0].per_key, 62);
	ck_assert_double_eq(j.fp.windows[0].states, 4 * 62);
	ck_assert(!j.fp.windows[0].unbounded);
	done(&j);
	/* Without a run length there is no end to it: counted as if the
	 * watermark moved, and said so. */
	estimate(&j, silent, false);
	ck_assert_double_eq(j.fp.windows[0].lag_ms, 301);
	ck_assert_double_eq(j.fp.windows[0].per_key, 2);
	ck_assert(j.fp.windows[0].unbounded);
	done(&j);
}
END_TEST

/* The job: 9999 s windows sliding by 1 ms over 1000 keys. */
static const char huge_sliding[] =
	"[job]\nevent_time = 1 h\n"
	"[source s]\nparallelism = 2\npartitions = 16\nrate = 1/s\n"
	"keys = 1000\n"
	"[window w]\ninput = s\nparallelism = 2\ntype = sliding\n"
	"size = 9999 s\nslide = 1 ms\n";

START_TEST(test_huge_sliding_window_is_refused_at_its_section)
{
	struct wm_footprint_machine m = {(uint64_t)(64 * GiB), "test"};
	struct job j;
	char err[1024];

	estimate(&j, huge_sliding, false);
	const struct wm_footprint_window *w = &j.fp.windows[0];

	/* lag = 1 + 200 + a record a second (1000); windows alive per
	 * key: (9999000 + 1201) / 1. */
	ck_assert_double_eq(w->lag_ms, 1201);
	ck_assert_double_eq(w->per_key, 10000201);
	ck_assert_double_eq(w->states, 1000.0 * 10000201);
	/* The records cannot bound it: 16 per second for an hour open
	 * 9999000 windows each. */
	ck_assert(!w->by_records);
	ck_assert_uint_eq(w->windows_per_record, 9999000);
	ck_assert_double_eq(w->bytes, w->states * WM_FOOTPRINT_STATE_BYTES);
	ck_assert_int_eq(wm_footprint_verdict(j.t, &j.fp, &m, err, sizeof(err)),
			 -E2BIG);
	ck_assert_msg(
		strstr(err, "t.conf:8:1: the job needs about 3.3 TiB "
			    "of memory and this machine has 64.0 GiB "
			    "(test): window \"w\" keeps about "
			    "10000201000 (key, window) states at once "
			    "(1000 keys x 10000201 windows alive each)") == err,
		"%s", err);
	/* --sim keeps the same states, and is refused the same way. */
	done(&j);
	estimate(&j, huge_sliding, true);
	ck_assert_int_eq(wm_footprint_verdict(j.t, &j.fp, &m, err, sizeof(err)),
			 -E2BIG);
	ck_assert_ptr_nonnull(strstr(err, "t.conf:8:1: "));
	done(&j);
}
END_TEST

/* Ten records cannot open more states than ten windows, however long
 * their windows live: such a job is not refused. */
START_TEST(test_records_bound_the_states_of_a_short_job)
{
	struct wm_footprint_machine m = {(uint64_t)GiB, "test"};
	struct job j;
	char err[1024];

	estimate(&j,
		 "[job]\nrecords = 10\n"
		 "[source s]\nparallelism = 1\npartitions = 1\nrate = 1/s\n"
		 "keys = 1000000\n"
		 "[window w]\ninput = s\nparallelism = 1\nsize = 1 ms\n"
		 "allowed_lateness = 1 d\n",
		 false);
	const struct wm_footprint_window *w = &j.fp.windows[0];

	ck_assert_double_gt(w->per_key, 86400000);
	ck_assert(w->by_records);
	ck_assert_double_eq(w->states, 10);
	ck_assert_int_eq(wm_footprint_verdict(j.t, &j.fp, &m, err, sizeof(err)),
			 0);
	done(&j);
	/* The same sliding: each record opens size / slide windows. */
	estimate(&j,
		 "[job]\nrecords = 10\n"
		 "[source s]\nparallelism = 1\npartitions = 1\nrate = 1/s\n"
		 "keys = 1000000\n"
		 "[window w]\ninput = s\nparallelism = 1\ntype = sliding\n"
		 "size = 10 s\nslide = 1 ms\n",
		 false);
	ck_assert(j.fp.windows[0].by_records);
	ck_assert_double_eq(j.fp.windows[0].states, 10.0 * 10000);
	done(&j);
}
END_TEST

START_TEST(test_sessions_replays_and_unhashed_inputs)
{
	char dir[] = "/tmp/check_footprint.XXXXXX", trace[64], conf[512];
	struct job j;
	FILE *f;

	/* Sessions of 10 s, ascending watermarks (no bound), lateness 5 s:
	 * lag 1 + 200 + 10 (a record every 10 ms), at most
	 * 2 + ceil((211 + 5000) / 10000) a key. */
	estimate(&j,
		 "[job]\nevent_time = 1 h\n"
		 "[source s]\nparallelism = 1\nrate = 100/s\nkeys = 50\n"
		 "watermark = ascending\n"
		 "[window w]\ninput = s\nparallelism = 2\ntype = session\n"
		 "gap = 10 s\nallowed_lateness = 5 s\n",
		 false);
	ck_assert(j.fp.windows[0].session);
	ck_assert_double_eq(j.fp.windows[0].per_key, 3);
	ck_assert_double_eq(j.fp.windows[0].lag_ms, 211);
	ck_assert_double_eq(j.fp.windows[0].states, 150);
	ck_assert_double_eq(j.fp.windows[0].bytes,
			    150.0 * WM_FOOTPRINT_SESSION_BYTES);
	done(&j);
	/* Broadcast into the window: every subtask sees every key. */
	estimate(&j,
		 "[job]\nevent_time = 1 h\n"
		 "[source s]\nparallelism = 1\nrate = 1/s\nkeys = 50\n"
		 "[window w]\ninput = s\nparallelism = 3\nsize = 1 min\n"
		 "partitioning = broadcast\n",
		 false);
	ck_assert_double_eq(j.fp.windows[0].keys, 150);
	done(&j);
	/* A replayed trace: keys unknown, counted as one; its 40 bytes
	 * hold at most 5 records (8 bytes the shortest). */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(trace, sizeof(trace), "%s/t.csv", dir);
	f = fopen(trace, "w");
	ck_assert_ptr_nonnull(f);
	fputs("0,100,1,1\n0,200,2,1\n0,300,3,1\n0,400,4,1\n", f);
	fclose(f);
	snprintf(conf, sizeof(conf),
		 "[source s]\nparallelism = 1\nreplay = %s\n"
		 "[window w]\ninput = s\nparallelism = 1\ntype = sliding\n"
		 "size = 10 s\nslide = 1 s\n",
		 trace);
	estimate(&j, conf, true);
	ck_assert(j.fp.windows[0].keys_unknown);
	ck_assert_double_eq(j.fp.windows[0].keys, 1);
	ck_assert_double_eq(j.fp.windows[0].records, 5);
	/* 1 key x ceil((10000 + 201) / 1000) windows: fewer than the 5
	 * records' 10 windows each. */
	ck_assert_double_eq(j.fp.windows[0].states, 11);
	ck_assert(!j.fp.windows[0].by_records);
	done(&j);
	unlink(trace);
	rmdir(dir);
}
END_TEST

/* Two source and two window subtasks, four rings of 128 KiB: the
 * segment as shm.c lays it out, and every process touching one 2 MiB
 * span (one page of PTEs and one of PMDs). */
START_TEST(test_segment_and_page_tables_by_hand)
{
	struct job j;
	struct wm_shm seg;
	uint64_t tables, ring;
	char err[256];

	estimate(&j,
		 "[source s]\nrate = unlimited\nparallelism = 2\npartitions = "
		 "3\n"
		 "[window w]\ninput = s\nparallelism = 2\nsize = 1 min\n",
		 false);
	ring = (wm_ring_size(WM_TOPOLOGY_RING_CELLS) + 4095) / 4096 * 4096;
	ck_assert_uint_eq(ring, 135168);
	/* The header, 4 doorbells and 4 channels, then from the next cache
	 * line the metrics blocks of 4 subtasks (room for the input channels
	 * of the subtask with most), the partition entries of the two
	 * sources (2 and 1, each run from a line of its own) and the
	 * fire-delay histograms of the two windows, then the rings, each
	 * from a page. */
	tables = sizeof(struct wm_shm_header) + 4 * sizeof(struct wm_doorbell) +
		 4 * sizeof(struct wm_shm_channel);
	tables = (tables + WM_FALSE_SHARING_RANGE - 1) /
			 WM_FALSE_SHARING_RANGE * WM_FALSE_SHARING_RANGE +
		 4 * wm_subtask_metrics_bytes(j.plan->max_inputs) +
		 wm_partition_metrics_bytes(2) + wm_partition_metrics_bytes(1) +
		 2 * wm_fire_delay_metrics_bytes(WM_HISTOGRAM_FINE_BUCKETS);
	ck_assert_uint_eq(j.fp.segment_bytes,
			  (tables + 4095) / 4096 * 4096 + 4 * ring);
	ck_assert_uint_eq(j.fp.rings, 4);
	ck_assert_uint_eq(j.fp.processes, 5);
	ck_assert_uint_eq(j.fp.page_table_bytes, 5 * 2 * 4096);
	ck_assert_uint_eq(j.fp.process_bytes,
			  5 * WM_FOOTPRINT_PROCESS_BYTES +
				  4 * (WM_FOOTPRINT_CHANNEL_BYTES +
				       WM_FOOTPRINT_STAGED_BYTES) +
				  WM_FOOTPRINT_PROGRAM_BYTES);
	/* What the supervisor will create has that size. */
	struct wm_shm_channel_spec ch[4];

	for (uint32_t c = 0; c < 4; c++)
		ch[c] = (struct wm_shm_channel_spec){
			j.plan->channels[c].producer,
			j.plan->channels[c].consumer, WM_TOPOLOGY_RING_CELLS};
	struct wm_shm_spec spec = {
		4, 4, ch, wm_subtask_metrics_bytes(j.plan->max_inputs),
		wm_partition_metrics_bytes(2) + wm_partition_metrics_bytes(1) +
			2 * wm_fire_delay_metrics_bytes(
				    WM_HISTOGRAM_FINE_BUCKETS)};

	ck_assert_int_eq(wm_shm_create(&spec, &seg, err, sizeof(err)), 0);
	ck_assert_uint_eq(seg.size, j.fp.segment_bytes);
	wm_shm_detach(&seg);
	close(seg.fd);
	done(&j);
	/* --sim has no segment. */
	estimate(&j,
		 "[source s]\nrate = unlimited\nparallelism = 2\npartitions = "
		 "3\n"
		 "[window w]\ninput = s\nparallelism = 2\nsize = 1 min\n",
		 true);
	ck_assert_uint_eq(j.fp.segment_bytes, 0);
	ck_assert_uint_eq(j.fp.page_table_bytes, 0);
	ck_assert_uint_eq(j.fp.processes, 1);
	done(&j);
}
END_TEST

/* 64 x 64 with 2 MiB rings: a source's 64 outputs are contiguous, a
 * window's 64 inputs are 64 rings apart, each spanning two 2 MiB spans;
 * far below every process paying for all 4096 rings. */
START_TEST(test_page_tables_count_only_the_rings_a_worker_uses)
{
	struct job j;
	double every;

	estimate(&j,
		 "[job]\nring_size = 2 MiB\n"
		 "[source s]\nrate = unlimited\nparallelism = 64\n"
		 "[window w]\ninput = s\nparallelism = 64\nsize = 1 min\n",
		 false);
	ck_assert_uint_eq(j.fp.rings, 4096);
	every = 129.0 * (double)j.fp.segment_bytes / (1 << 21) * 4096;
	/* Each worker: its 64 rings (2 or 3 spans each) and the tables,
	 * plus the PMD pages: at most 64 x 3 + 1 + 9 + 1 pages. */
	ck_assert_uint_le(j.fp.page_table_bytes, 129 * 203 * 4096);
	ck_assert_uint_ge(j.fp.page_table_bytes, 128 * 64 * 4096);
	ck_assert_double_lt((double)j.fp.page_table_bytes, every / 10);
	done(&j);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The per-state figures against the real operator */

static long
status_kib(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	size_t n = strlen(field);
	long v = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, field, n) == 0)
			v = atol(line + n);
	fclose(f);
	return v;
}

static void
on_result(struct wm_window_output *out, const struct wm_window_result *r)
{
	(void)out;
	(void)r;
}

static void
on_watermark(struct wm_output *out, wm_ts_t watermark)
{
	(void)out;
	(void)watermark;
}

static void
on_status(struct wm_output *out, enum wm_status status)
{
	(void)out;
	(void)status;
}

/* A plugin aggregate that keeps nothing of its own: what the measure
 * with it adds is the accumulators' table alone. */
static char no_state;

static void *
nothing_create(const char *args)
{
	(void)args;
	return &no_state;
}

static void *
nothing_accumulator(void *function)
{
	(void)function;
	return &no_state;
}

static void
nothing_add(void *function, void *acc, int64_t value, int64_t ts)
{
	(void)function;
	(void)acc;
	(void)value;
	(void)ts;
}

static const struct wmrun_aggregate_function nothing = {
	.name = "nothing",
	.create = nothing_create,
	.create_accumulator = nothing_accumulator,
	.add = nothing_add,
};

/*
 * Peak bytes per state of an operator opening `states` states, each
 * record in 100 sliding windows of its own key, or in a session of its
 * own; lateness 1 s, so every state has two timers; with the plugin
 * aggregate `nothing` if `plugins`. In this process.
 */
static double
measure_here(bool session, bool plugins, long states)
{
	struct wm_window_config c = {.allowed_lateness = 1000};
	struct wm_window_output out = {.result = on_result};
	struct wm_window *op;
	const char *why;
	FILE *f;
	long base;

	out.base.watermark = on_watermark;
	out.base.status = on_status;
	if (plugins) {
		c.n_plugin_aggregates = 1;
		c.plugin_aggregates[0].fn = &nothing;
	}
	if (session)
		ck_assert_int_eq(wm_window_session(&c.assigner, 10, &why), 0);
	else
		ck_assert_int_eq(
			wm_window_sliding(&c.assigner, 100000, 1000, 0, &why),
			0);
	/* Start the peak (VmHWM) from here: "5" resets it. */
	f = fopen("/proc/self/clear_refs", "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs("5", f), 0);
	ck_assert_int_eq(fclose(f), 0);
	base = status_kib("VmRSS:");
	ck_assert_int_gt(base, 0);
	op = wm_window_new(&c, &why);
	ck_assert_ptr_nonnull(op);
	for (long i = 0; (long)wm_window_state_count(op) < states; i++) {
		struct wm_record r = {.key = session ? i % 1000 : i,
				      .ts = session ? i / 1000 * 100 : 500000,
				      .value = 1};

		WM_HOT_ASSERT(wm_window_process_element(op, &r, &out) == 0,
			      "record %ld", i);
	}
	ck_assert_uint_eq(wm_window_timer_count(op),
			  2 * wm_window_state_count(op));
	double bytes = (double)(status_kib("VmHWM:") - base) * 1024 /
		       (double)wm_window_state_count(op);

	wm_window_free(op);
	return bytes;
}

static void
on_pair(struct wm_interval_join_output *out, const struct wm_join_result *r)
{
	(void)out;
	(void)r;
}

/*
 * Peak bytes per record an interval join keeps of `records` records of
 * the left side, each of a key and timestamp of its own (a key entry, a
 * buffer's first allocation and a cleanup timer each: the most a record
 * costs), none cleaned. In this process.
 */
static double
measure_join_here(long records)
{
	struct wm_interval_join_config c = {.lower = 0, .upper = 1000};
	struct wm_interval_join_output out = {.pair = on_pair};
	struct wm_interval_join *op;
	const char *why;
	FILE *f;
	long base;

	out.base.watermark = on_watermark;
	out.base.status = on_status;
	f = fopen("/proc/self/clear_refs", "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs("5", f), 0);
	ck_assert_int_eq(fclose(f), 0);
	base = status_kib("VmRSS:");
	op = wm_interval_join_new(&c, &why);
	ck_assert_ptr_nonnull(op);
	for (long i = 0; i < records; i++) {
		struct wm_record r = {.key = i, .ts = i, .value = 1};

		WM_HOT_ASSERT(wm_interval_join_process_element(op, WM_JOIN_LEFT,
							       &r, &out) == 0,
			      "record %ld", i);
	}
	ck_assert_uint_eq(wm_interval_join_timer_count(op), (size_t)records);
	double bytes =
		(double)(status_kib("VmHWM:") - base) * 1024 / (double)records;

	wm_interval_join_free(op);
	return bytes;
}

static void
on_window_pair(struct wm_window_join_output *out,
	       const struct wm_join_result *r)
{
	(void)out;
	(void)r;
}

/*
 * Peak bytes per record a window join keeps of `records` records of the
 * left side in one 1-hour tumbling window, over 1,000 keys: what each
 * record costs in its window's list (the entries, 1,000, are a window's
 * states, measured apart). In this process.
 */
static double
measure_window_join_here(long records)
{
	struct wm_window_join_config c = {0};
	struct wm_window_join_output out = {.pair = on_window_pair};
	struct wm_window_join *op;
	const char *why;
	FILE *f;
	long base;

	out.base.watermark = on_watermark;
	out.base.status = on_status;
	ck_assert_int_eq(wm_window_tumbling(&c.assigner, 3600000, 0, &why), 0);
	f = fopen("/proc/self/clear_refs", "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs("5", f), 0);
	ck_assert_int_eq(fclose(f), 0);
	base = status_kib("VmRSS:");
	op = wm_window_join_new(&c, &why);
	ck_assert_ptr_nonnull(op);
	for (long i = 0; i < records; i++) {
		struct wm_record r = {
			.key = i % 1000, .ts = i % 3600000, .value = 1};

		WM_HOT_ASSERT(wm_window_join_process_element(op, WM_JOIN_LEFT,
							     &r, &out) == 0,
			      "record %ld", i);
	}
	ck_assert_uint_eq(wm_window_join_buffered(op, WM_JOIN_LEFT),
			  (size_t)records);
	double bytes =
		(double)(status_kib("VmHWM:") - base) * 1024 / (double)records;

	wm_window_join_free(op);
	return bytes;
}

/* What peak_bytes_per_state() measures: sliding windows, sessions, the
 * sliding windows with a plugin aggregate, an interval join, a window
 * join. */
enum measured {
	MEASURE_SLIDING,
	MEASURE_SESSIONS,
	MEASURE_PLUGINS,
	MEASURE_JOIN,
	MEASURE_WINDOW_JOIN
};

/* The same in a child of its own, so that what the allocator kept from
 * an earlier measurement does not count in this one. */
static double
peak_bytes_per_state(enum measured what, long states)
{
	double bytes = -1;
	int fd[2], st;
	pid_t pid;

	ck_assert_int_eq(pipe(fd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		bytes = what == MEASURE_JOIN ? measure_join_here(states)
			: what == MEASURE_WINDOW_JOIN
				? measure_window_join_here(states)
				: measure_here(what == MEASURE_SESSIONS,
					       what == MEASURE_PLUGINS, states);
		_exit(write(fd[1], &bytes, sizeof(bytes)) == sizeof(bytes) ? 0
									   : 1);
	}
	close(fd[1]);
	ck_assert_int_eq(read(fd[0], &bytes, sizeof(bytes)), sizeof(bytes));
	close(fd[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return bytes;
}

/* ASan's allocator keeps freed tables in quarantine: its peaks say
 * nothing about glibc's. */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN true
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN true
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN false
#endif

/* The estimate's `figure` (bytes a state or a record) is, for each count
 * of states of counts[0..1], at least the measured peak of `what` and at
 * most twice it. */
static void
assert_measured_within_2x(enum measured what, const char *name, double figure,
			  const long counts[2])
{
	if (UNDER_ASAN)
		return;
	for (size_t i = 0; i < 2; i++) {
		double peak = peak_bytes_per_state(what, counts[i]);

		ck_assert_msg(peak <= figure && figure <= 2 * peak,
			      "%s, %ld: peak %.1f bytes each, the figure %.0f",
			      name, counts[i], peak, figure);
	}
}

START_TEST(test_state_figures_are_the_measured_peak_within_2x)
{
	/* 1 M states come right after the tables doubled (the peak), 1.5 M
	 * halfway to the next doubling (the trough). */
	static const long counts[] = {1000000, 1500000};

	assert_measured_within_2x(MEASURE_SLIDING, "sliding states",
				  WM_FOOTPRINT_STATE_BYTES, counts);
	assert_measured_within_2x(MEASURE_SESSIONS, "session states",
				  WM_FOOTPRINT_SESSION_BYTES, counts);
}
END_TEST

/* With a plugin aggregate, a state costs WM_FOOTPRINT_PLUGIN_STATE_BYTES
 * more: the sum is the measured peak within 2x, as the states alone. */
START_TEST(test_plugin_figure_is_the_measured_peak_within_2x)
{
	static const long counts[] = {1000000, 1500000};

	assert_measured_within_2x(MEASURE_PLUGINS, "states with a plugin",
				  WM_FOOTPRINT_STATE_BYTES +
					  WM_FOOTPRINT_PLUGIN_STATE_BYTES,
				  counts);
}
END_TEST

/* A window join's record in a window: the pool's node, which doubles.
 * 2^20 + 1 records come just after a doubling (the peak: both arrays
 * touched), 1.5 M halfway to the next. */
START_TEST(test_window_join_figure_is_the_measured_peak_within_2x)
{
	static const long counts[] = {1048577, 1500000};

	assert_measured_within_2x(MEASURE_WINDOW_JOIN, "window join records",
				  WM_FOOTPRINT_WINDOW_JOIN_RECORD_BYTES,
				  counts);
}
END_TEST

START_TEST(test_join_figure_is_the_measured_peak_within_2x)
{
	/* The key table doubles at 3/4 of its slots: 1.6 M records of
	 * keys of their own come just after it doubled to 2^22 slots (the
	 * peak), 1 M before (a trough). */
	static const long counts[] = {1000000, 1600000};

	assert_measured_within_2x(MEASURE_JOIN, "interval join records",
				  WM_FOOTPRINT_JOIN_RECORD_BYTES, counts);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The machine */

struct fake {
	char dir[64];
	char cgroup[128], mountinfo[128];
};

static void
put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* A directory with a cgroup file, a mountinfo naming `type` mounted at
 * DIR/cg mnt (a blank, as mountinfo escapes it) from hierarchy root
 * `root`, and the cgroup's directories a/b below it. */
static void
fake_proc(struct fake *fk, const char *cgroup_line, const char *type,
	  const char *super, const char *root)
{
	char path[256], line[512];

	snprintf(fk->dir, sizeof(fk->dir), "/tmp/check_footprint.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fk->dir));
	snprintf(fk->cgroup, sizeof(fk->cgroup), "%s/cgroup", fk->dir);
	snprintf(fk->mountinfo, sizeof(fk->mountinfo), "%s/mountinfo", fk->dir);
	put(fk->cgroup, cgroup_line);
	snprintf(line, sizeof(line),
		 "22 1 0:21 / /proc rw,nosuid - proc proc rw\n"
		 "35 31 0:32 %s %s/cg\\040mnt rw,relatime shared:9 - %s %s "
		 "rw,%s\n",
		 root, fk->dir, type, type, super);
	put(fk->mountinfo, line);
	snprintf(path, sizeof(path), "%s/cg mnt", fk->dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/cg mnt/a", fk->dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/cg mnt/a/b", fk->dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
}

static void
fake_limit(const struct fake *fk, const char *rel, const char *name,
	   const char *value)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/cg mnt%s/%s", fk->dir, rel, name);
	put(path, value);
}

/* The limit that the fake files give; 0 for none. */
static uint64_t
limit_of(const struct fake *fk)
{
	uint64_t bytes = 0;
	int r = wm_footprint_cgroup_limit(fk->cgroup, fk->mountinfo, &bytes);

	ck_assert_msg(r == 0 || r == -ENOENT, "returned %d", r);
	ck_assert_msg(r == 0 || bytes == 0, "none, and yet %" PRIu64, bytes);
	return r == 0 ? bytes : 0;
}

static void
fake_free(struct fake *fk)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fk->dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_cgroup_v2_lowest_limit_up_the_tree)
{
	struct fake fk;

	fake_proc(&fk, "0::/a/b\n", "cgroup2", "nsdelegate", "/");
	ck_assert_uint_eq(limit_of(&fk), 0);
	fake_limit(&fk, "/a/b", "memory.max", "max\n");
	ck_assert_uint_eq(limit_of(&fk), 0);
	fake_limit(&fk, "/a", "memory.max", "2147483648\n");
	fake_limit(&fk, "", "memory.max", "4294967296\n");
	ck_assert_uint_eq(limit_of(&fk), 2147483648u);
	fake_limit(&fk, "/a/b", "memory.max", "1073741824\n");
	ck_assert_uint_eq(limit_of(&fk), 1073741824u);
	fake_free(&fk);
	/* A mount of part of the hierarchy (a container's): the cgroup's
	 * path is taken below the mount's root. */
	fake_proc(&fk, "0::/docker/a/b\n", "cgroup2", "nsdelegate", "/docker");
	fake_limit(&fk, "/a/b", "memory.max", "536870912\n");
	ck_assert_uint_eq(limit_of(&fk), 536870912u);
	fake_free(&fk);
}
END_TEST

START_TEST(test_cgroup_v1_memory_controller)
{
	struct fake fk;
	uint64_t bytes = 0;

	fake_proc(&fk, "5:cpu,cpuacct:/x\n4:blkio,memory:/a/b\n0::/\n",
		  "cgroup", "memory", "/");
	fake_limit(&fk, "/a/b", "memory.limit_in_bytes",
		   "9223372036854771712\n");
	fake_limit(&fk, "/a", "memory.limit_in_bytes", "3221225472\n");
	ck_assert_uint_eq(limit_of(&fk), 3221225472u);
	fake_free(&fk);
	/* A v1 hierarchy of other controllers says nothing. */
	fake_proc(&fk, "4:memory:/a/b\n", "cgroup", "cpu", "/");
	fake_limit(&fk, "/a", "memory.limit_in_bytes", "3221225472\n");
	ck_assert_uint_eq(limit_of(&fk), 0);
	fake_free(&fk);
	ck_assert_int_eq(wm_footprint_cgroup_limit("/nonexistent/cgroup",
						   "/nonexistent/mountinfo",
						   &bytes),
			 -ENOENT);
}
END_TEST

START_TEST(test_machine_and_byte_texts)
{
	struct wm_footprint_machine m;
	char buf[32];

	wm_footprint_machine(&m);
	ck_assert_uint_gt(m.bytes, 16u << 20);
	ck_assert_ptr_nonnull(m.limit);
	ck_assert_str_eq(wm_footprint_bytes_text(512, buf, sizeof(buf)),
			 "512 B");
	ck_assert_str_eq(wm_footprint_bytes_text(1536, buf, sizeof(buf)),
			 "1.5 KiB");
	ck_assert_str_eq(wm_footprint_bytes_text(23.5 * GiB, buf, sizeof(buf)),
			 "23.5 GiB");
	ck_assert_str_eq(
		wm_footprint_bytes_text(1023.99 * GiB, buf, sizeof(buf)),
		"1.0 TiB");
	ck_assert_str_eq(wm_footprint_bytes_text(INFINITY, buf, sizeof(buf)),
			 "unbounded");
}
END_TEST

static Suite *
footprint_suite(void)
{
	Suite *s = suite_create("footprint");
	TCase *model = tcase_create("model");
	TCase *measured = tcase_create("measured");
	TCase *machine = tcase_create("machine");

	tcase_add_test(model, test_tumbling_windows_alive_per_key_by_hand);
	tcase_add_test(model,
		       test_a_watermark_held_for_ever_keeps_the_whole_run);
	tcase_add_test(model,
		       test_huge_sliding_window_is_refused_at_its_section);
	tcase_add_test(model, test_records_bound_the_states_of_a_short_job);
	tcase_add_test(model, test_sessions_replays_and_unhashed_inputs);
	tcase_add_test(model, test_segment_and_page_tables_by_hand);
	tcase_add_test(model,
		       test_page_tables_count_only_the_rings_a_worker_uses);
	/* Millions of states, on a loaded machine. */
	tcase_set_timeout(measured, 120);
	tcase_add_test(measured,
		       test_state_figures_are_the_measured_peak_within_2x);
	tcase_add_test(measured,
		       test_join_figure_is_the_measured_peak_within_2x);
	tcase_add_test(measured,
		       test_plugin_figure_is_the_measured_peak_within_2x);
	tcase_add_test(measured,
		       test_window_join_figure_is_the_measured_peak_within_2x);
	tcase_add_test(machine, test_cgroup_v2_lowest_limit_up_the_tree);
	tcase_add_test(machine, test_cgroup_v1_memory_controller);
	tcase_add_test(machine, test_machine_and_byte_texts);
	suite_add_tcase(s, model);
	suite_add_tcase(s, measured);
	suite_add_tcase(s, machine);
	return s;
}

int
main(void)
{
	return wm_check_main(footprint_suite());
}
