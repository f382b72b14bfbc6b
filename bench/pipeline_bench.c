/*
 * pipeline_bench.c
 *	wmbench pipeline: records per second through source -> keyBy ->
 *	tumbling count window -> sink, as wmrun runs it (one pinned process
 *	per subtask over the shared-memory rings) at parallelism 1, 2 and 4
 *	per stage, beside the same work in one thread with no transport.
 *
 * The job (pipeline_topology()): one source of PIPELINE_PARTITIONS
 * partitions at an unlimited rate, each emitting a fixed number of records
 * over PIPELINE_KEYS uniform keys, in order (bounded out-of-orderness 0);
 * a keyBy stage; a keyed one-minute tumbling window counting per key; a
 * CSV sink on /dev/null. Every stage has parallelism P. At speed 1000 the
 * windows' event time moves a minute every 60 ms of real time, so windows
 * fire all through the run (about one result per 400 records at 7 Mrec/s)
 * and the periodic watermark ticks every 200 us: the run is not a burst of
 * records followed by one firing at the end.
 *
 * impl=wmrun: wm_supervisor_run() on that topology (real processes, pinned
 * by the placement plan, waiting as the runtime chooses), timed with
 * CLOCK_MONOTONIC around the call: segment creation, forks and pinning
 * are in the time, as they are in a job's.
 *
 * impl=loop: the very same struct wm_task objects of the parallelism-1
 * job in this thread, each frame handed from one task to the next by a
 * direct call through struct wm_task_out (no queue, no ring). It includes
 * what every record costs in the runtime apart from the transport: the
 * generator and its per-partition watermark generators and ticks, the
 * record packed into a frame (a worker stages it so) and unpacked by each
 * task (a worker reads it from its cell instead), the keyBy task's
 * routing, the window task's valve, state, timers and firings, and CSV
 * formatting of the results into a sink on /dev/null. It excludes the
 * rings (cells, sequence words, pushes of staged runs), waiting and
 * wake-ups, the workers' clock read per burst of input frames (the loop
 * reads the clock once per source burst of WM_TASK_SOURCE_BURST records),
 * metrics publication, process start-up, and the workers' one write() per
 * result line (their sink file is shared by processes; the loop's is
 * buffered, as --sim's). It does not batch: each record goes through all
 * three tasks before the next one comes, where a worker's task takes a
 * run of records at a time, its code and data warm in its own core's
 * caches; so the ratio can exceed the number of CPUs.
 *
 * Each repetition runs the loop and every wmrun variant, alternating which
 * goes first. With --sampled, each wmrun variant runs a second time in the
 * repetition with the observer on (runtime/run/observer.h: sampling every
 * 100 ms, its timeline written to /dev/null, its Prometheus endpoint on
 * and scraped every 100 ms by a process of wmbench's, ten times as often
 * as a usual scrape interval: bench/scraper.h), the two in alternating
 * order: metric=sampled_over_unsampled is the cost of being watched. Every record must be accounted for (read = generated = in a
 * window + late + dropped); a mismatch or a failed job exits 70.
 *
 * With --keys, what string keys cost: before any timing the benchmark
 * writes two replay traces of the same records (keys_write()), one keyed
 * by integers N, the other by the strings "user<N>", and each wmrun
 * variant also runs the job replaying each of them as fast as it can, in
 * alternating order. Those runs are timed from the start line to the end
 * (report.h's wall_ns), because the supervisor reads the trace, and
 * interns its strings, before it creates the segment: that reading is
 * timed on its own, each trace read as the supervisor reads it, once a
 * repetition (keys_read_rep(), ns per record). So the job figures differ
 * only by what a string key costs a record in flight (the hash edge's
 * branch) and a result (the lookup and the quoting in the sink), and the
 * reading figures by the interning; the routing differs too, as Flink's
 * does: "user<N>" is hashed as a Java String, N as a Long.
 *
 * With --peer flink, what Flink does with the same records: the long-keyed
 * trace of --keys is written (for --peer alone, that one only) and, in
 * every repetition, each wmrun variant replays it and flink/peer/ runs the
 * same keyed tumbling count on Flink's MiniCluster at that parallelism,
 * with Flink's defaults and with object reuse, in turns (peer_rep();
 * bench/flink_peer.h runs the JVM). Flink is timed from its first record
 * to its last result, as the replay is from its start line: neither
 * counts its set-up. Every run must fire the trace's distinct key and
 * window pairs, counted as it is written (keys_write()).
 *
 * With --checkpoint-interval D, what checkpoints cost (issue 15): each
 * wmrun variant also runs the job taking checkpoints every D of real time
 * (the job's checkpoint_interval is D times PIPELINE_SPEED, processing
 * time) into a directory of its own under one that wmbench makes in
 * --checkpoint-dir or $TMPDIR and removes at the end, the kinds of run of
 * a repetition (plain, --sampled, checkpointed) each first in turn. Its
 * throughput against the plain run's, the median of the per-repetition
 * ratios, is the cost, printed as a loss in percent beside the issue's
 * target (under 5 % at one a second); the report's checkpoint summary
 * gives how many completed in each run, the last one's size, the longest
 * and the mean duration (trigger to manifest durable) and the longest
 * alignment, in real time and in the processing time of wmrun's summary.
 *
 * Memory per variant: the segment's size, and each subtask's peak resident
 * set (ru_maxrss from the supervisor's wait4(): it counts the ring pages
 * the process touched and the pages it shared with wmbench after fork).
 */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "bench/flink_peer.h"
#include "bench/rng.h"
#include "bench/scraper.h"
#include "bench/stats.h"
#include "bench/wmbench.h"
#include "lib/units.h"
#include "runtime/plan/plan.h"
#include "runtime/io/keys.h"
#include "base/log.h"
#include "runtime/source/replay.h"
#include "runtime/io/sink.h"
#include "runtime/source/sources.h"
#include "runtime/run/supervisor.h"
#include "runtime/engine/codec.h"
#include "runtime/engine/task.h"
#include "runtime/conf/topology.h"

#define PIPELINE_PARTITIONS 8u
#define PIPELINE_KEYS 1024u
#define PIPELINE_SPEED 1000
#define PIPELINE_WINDOW_MS 60000
#define PIPELINE_DEFAULT_RECORDS 12000000u
#define PIPELINE_DEFAULT_REPS 5
#define PIPELINE_MAX_REPS 100
/* Every source subtask reads at least one partition. */
#define PIPELINE_MAX_PARALLELISM PIPELINE_PARTITIONS
#define PIPELINE_MAX_LIST 8
/* getopt's values of the long options without a short form */
#define PIPELINE_OPT_PEER 256
#define PIPELINE_OPT_CHECKPOINT_DIR 257
/* --checkpoint-interval: at most a day of real time (a day at speed 1000
 * still fits the job's int64 milliseconds many times over) */
#define PIPELINE_MAX_CHECKPOINT_MS ((int64_t)86400000)

static const uint32_t pipeline_default_parallelism[] = {1, 2, 4};

struct pipeline_options {
	uint64_t records; /* in all; a multiple of the partitions */
	uint64_t reps;
	uint32_t parallelism[PIPELINE_MAX_LIST];
	size_t n_parallelism;
	bool sampled; /* also run each variant watched by an observer */
	bool keys;    /* also replay traces keyed by longs and by strings */
	bool flink;   /* also run the long-keyed trace's job on Flink */
	/* --checkpoint-interval: also run each variant taking checkpoints
	 * this often, in real time (0: not); they go into a new directory
	 * in checkpoint_parent, removed at the end. */
	int64_t checkpoint_ms;
	const char *checkpoint_parent;
};

/* Sampling and scraping of a --sampled run. */
#define SAMPLED_EVERY_NS 100000000

/* The observer of a --sampled run: a reader of every snapshot (the
 * timeline) and the endpoint on `port`, nothing on the terminal. */
static struct wm_observe_options
sampled_observer(uint16_t port)
{
	struct wm_observe_options o = {
		.live = WM_LIVE_OFF,
		.metrics = "/dev/null",
		.fd = 2,
		.interval_ns = SAMPLED_EVERY_NS,
		.redraw_ns = 1000000000,
		.status_ns = 5000000000,
		.prometheus = {.on = true, .port = port},
	};

	strcpy(o.prometheus.addr, "127.0.0.1");
	return o;
}

/*
 * The job at parallelism p, loaded from its text; NULL after a message.
 * Its source generates `records` records over PIPELINE_KEYS keys, or,
 * with `replay`, replays that trace as fast as it can, its keys of
 * `key_type` ("long" or "string"): the rest of the job is the same.
 * `job_lines` (NULL for none) are more keys of its [job] section.
 */
static struct wm_topology *
pipeline_topology(uint64_t records, uint32_t p, const char *replay,
		  const char *key_type, const char *job_lines)
{
	struct wm_topology *t = NULL;
	struct wm_ini_error err;
	char text[4096], records_line[64], source[1024], msg[512];
	int n;

	if (replay == NULL) {
		snprintf(records_line, sizeof(records_line),
			 "records = %" PRIu64 "\n",
			 records / PIPELINE_PARTITIONS);
		snprintf(source, sizeof(source),
			 "rate = unlimited\nkeys = %u\n", PIPELINE_KEYS);
	} else {
		records_line[0] = '\0';
		snprintf(source, sizeof(source),
			 "replay = %s\npacing = fast\nkey_type = %s\n", replay,
			 key_type);
	}
	n = snprintf(text, sizeof(text),
		     "[job]\n"
		     "name = pipeline-bench\n"
		     "%s"
		     "speed = %d\n"
		     "%s"
		     "[global]\n"
		     "parallelism = %" PRIu32 "\n"
		     "[source gen]\n"
		     "partitions = %u\n"
		     "%s"
		     "out_of_orderness = 0\n"
		     "[keyby route]\n"
		     "input = gen\n"
		     "[window counts]\n"
		     "input = route\n"
		     "type = tumbling\n"
		     "size = %d ms\n"
		     "aggregates = count\n"
		     "[sink out]\n"
		     "input = counts\n"
		     "path = /dev/null\n",
		     records_line, PIPELINE_SPEED,
		     job_lines != NULL ? job_lines : "", p, PIPELINE_PARTITIONS,
		     source, PIPELINE_WINDOW_MS);

	if (n < 0 || (size_t)n >= sizeof(text)) {
		wm_log("wmbench: pipeline topology too long");
		return NULL;
	}
	if (wm_topology_load_buffer(text, (size_t)n, "(pipeline benchmark)", &t,
				    &err) != 0) {
		wm_ini_error_format(&err, msg, sizeof(msg));
		wm_log("wmbench: %s", msg);
		return NULL;
	}
	return t;
}

/* read == generated == windowed + late + dropped, or say what is off. */
static bool
accounted(const char *what, uint64_t expected, uint64_t read, uint64_t windowed,
	  uint64_t elsewhere)
{
	if (read == expected && windowed + elsewhere == read)
		return true;
	wm_log("wmbench: pipeline %s: %" PRIu64 " records generated, %" PRIu64
	       " read, %" PRIu64 " in windows, %" PRIu64 " late or dropped",
	       what, expected, read, windowed, elsewhere);
	return false;
}

/* ------------------------------------------------------------------ */
/* impl=loop: the tasks in one thread, frames passed by direct calls */

struct loop;

struct loop_task {
	struct wm_task_out out; /* recovered with wm_container_of */
	struct loop *loop;
	struct wm_task *task;
	const struct wm_plan_subtask *sub;
};

struct loop {
	const struct wm_topology *topo;
	struct wm_plan *plan;
	struct loop_task *tasks; /* by plan subtask id */
	struct wm_sink *sink;
	int64_t now_ns; /* processing time of the current source burst */
	bool failed;
	size_t stride;
	void *metrics; /* a block per task, as the worker has (task.h) */
};

/* Into the consumer's task at once: its own output runs inside this call,
 * so a record goes from the source to the window before the next. */
static void
loop_frame(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	   const struct wm_frame *f)
{
	struct loop_task *lt = wm_container_of(out, struct loop_task, out);
	struct loop *l = lt->loop;
	const struct wm_plan_channel *c =
		&l->plan->channels[lt->sub->edges[edge].channels[channel]];

	if (wm_task_input(l->tasks[c->consumer].task, c->input_channel, f,
			  l->now_ns) != 0)
		l->failed = true;
}

/* A record as its frame, straight into loop_frame(): what the loop did
 * before tasks sent records on their own, so that its figure stays
 * comparable (wm_task_record_as_frame() would add a call through
 * out->frame per record). */
static void
loop_record(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	    const struct wm_record *r)
{
	struct wm_frame f;

	wm_codec_record_frame(r, &f);
	loop_frame(out, edge, channel, &f);
}

static void
loop_result(struct wm_task_out *out, const struct wm_window_result *r,
	    wm_ts_t watermark, int64_t fire_time_ms)
{
	struct loop_task *lt = wm_container_of(out, struct loop_task, out);

	wm_sink_result(lt->loop->sink, r, watermark, fire_time_ms,
		       lt->sub->index);
}

/* The job has no late side output: the window counts late records. */
static void
loop_late(struct wm_task_out *out, const struct wm_record *r)
{
	(void)out;
	(void)r;
}

static int
loop_build(struct loop *l, char *err, size_t errlen)
{
	const struct wm_topology *t = l->topo;

	l->plan = wm_plan_new(t);
	if (l->plan == NULL)
		return -ENOMEM;
	l->tasks = calloc(l->plan->n_subtasks, sizeof(*l->tasks));
	l->stride = wm_plan_metrics_bytes(l->plan);
	l->metrics = calloc(l->plan->n_subtasks, l->stride);
	if (l->tasks == NULL || l->metrics == NULL)
		return -ENOMEM;
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *st = &t->stages[s];
		int r;

		if (st->kind != WM_STAGE_SINK)
			continue;
		r = wm_sink_open(&l->sink, st, &t->stages[st->inputs[0].stage],
				 NULL, err, errlen);
		if (r != 0)
			return r;
	}
	for (uint32_t id = 0; id < l->plan->n_subtasks; id++) {
		struct loop_task *lt = &l->tasks[id];

		lt->loop = l;
		lt->sub = &l->plan->subtasks[id];
		lt->out = (struct wm_task_out){
			.frame = loop_frame,
			.record = loop_record,
			.result = loop_result,
			.late = loop_late,
		};
		lt->task = wm_sources_new_task(
			t, l->plan, id, &lt->out,
			(struct wm_subtask_metrics *)((char *)l->metrics +
						      id * l->stride),
			NULL, NULL);
		if (lt->task == NULL)
			return -errno;
	}
	return 0;
}

/* Run the sources burst by burst on the clock, as a worker would, until
 * they finished; END has then gone through every stage (each frame is
 * passed on within the call that sent it), or a task is stuck. */
static void
loop_drive(struct loop *l, uint64_t start_ns)
{
	bool ran = true;

	while (ran && !l->failed) {
		ran = false;
		for (uint32_t id = 0; id < l->plan->n_subtasks; id++) {
			struct wm_task *task = l->tasks[id].task;

			if (wm_task_finished(task) ||
			    wm_task_input_channels(task) > 0)
				continue; /* done, or fed by its inputs */
			ran = true;
			l->now_ns = (int64_t)((double)(wm_stats_now_ns() -
						       start_ns) *
					      l->topo->job.speed);
			wm_task_run_source(task, l->now_ns);
		}
	}
	for (uint32_t id = 0; id < l->plan->n_subtasks; id++)
		if (!wm_task_finished(l->tasks[id].task))
			l->failed = true;
}

/* One run of the loop: Mrec/s, or -1 after a message. */
static double
loop_run(const struct wm_topology *t, uint64_t records)
{
	struct loop l = {.topo = t};
	uint64_t read = 0, windowed = 0, elsewhere = 0;
	uint64_t start = wm_stats_now_ns(), end;
	char err[256] = "";
	int r = loop_build(&l, err, sizeof(err));

	if (r == 0)
		loop_drive(&l, start);
	if (wm_sink_close(l.sink, r != 0, err, sizeof(err)) != 0 && r == 0)
		r = -EIO;
	end = wm_stats_now_ns();
	for (uint32_t id = 0; l.tasks != NULL && id < l.plan->n_subtasks;
	     id++) {
		struct wm_task *task = l.tasks[id].task;
		const struct wm_window *w = task ? wm_task_window(task) : NULL;

		if (task != NULL && wm_task_input_channels(task) == 0)
			read += wm_task_counters(task)->records_in;
		if (w != NULL) {
			const struct wm_window_counters *c =
				wm_window_counters(w);

			windowed += c->records_accepted;
			elsewhere += c->late_records_dropped +
				     c->late_records_side_output +
				     c->records_ignored + c->records_rejected;
		}
		wm_task_free(task);
	}
	free(l.tasks);
	free(l.metrics);
	wm_plan_free(l.plan);
	if (r != 0 || l.failed) {
		wm_log("wmbench: pipeline loop: %s",
		       err[0]	  ? err
		       : l.failed ? "a task refused a frame or did not finish"
				  : strerror(-r));
		return -1;
	}
	if (!accounted("loop", records, read, windowed, elsewhere))
		return -1;
	return (double)records / ((double)(end - start) / 1e3);
}

/* ------------------------------------------------------------------ */
/* impl=wmrun: the job as processes */

struct wmrun_result {
	double mrec_per_s; /* -1: failed (after a message) */
	/* From the start line (every subtask set up, its trace's records
	 * inherited) to the last worker's end: report.h's wall_ns. */
	double started_mrec_per_s;
	int status; /* exit status for the failure */
};

/* One run of the job as processes; *rep is the supervisor's report (shm
 * size, RSS by subtask), to free with wm_report_free(). */
static struct wmrun_result
wmrun_run(const struct wm_topology *t, uint32_t p, uint64_t records,
	  const struct wm_observe_options *observe, struct wm_job_report *rep)
{
	struct wmrun_result out = {.mrec_per_s = -1, .status = EX_SOFTWARE};
	char err[512], what[32];
	uint64_t start = wm_stats_now_ns(), end;
	int status = wm_supervisor_run(t, observe, rep, err, sizeof(err));

	end = wm_stats_now_ns();
	snprintf(what, sizeof(what), "wmrun p%" PRIu32, p);
	if (status != 0) {
		wm_log("wmbench: pipeline %s: %s", what, err);
		/* The OS refusing resources stays 71 and an interrupt 128 +
		 * n; anything else is a job that should have worked. */
		if (status == EX_OSERR || status > 128)
			out.status = status;
		return out;
	}
	if (accounted(what, records, rep->records_read, rep->records_windowed,
		      rep->late_dropped + rep->late_side_output +
			      rep->other_dropped)) {
		out.mrec_per_s =
			(double)records / ((double)(end - start) / 1e3);
		out.started_mrec_per_s =
			(double)records /
			((double)(rep->wall_ns > 0 ? rep->wall_ns : 1) / 1e3);
	}
	return out;
}

/* ------------------------------------------------------------------ */
/* --keys: the job replaying one set of records, keyed by longs or strings */

enum keys_type { KEYS_LONG, KEYS_STRING, KEYS_TYPES };

/* --peer flink: Flink's default configuration, and with object reuse. */
#define PEER_CONFIGS 2
static const bool peer_reuse[PEER_CONFIGS] = {false, true};
static const char *const peer_suffix[PEER_CONFIGS] = {"", "-reuse"};

static const char *const keys_name[KEYS_TYPES] = {"long-keys", "string-keys"};
static const char *const keys_conf[KEYS_TYPES] = {"long", "string"};
static const enum wm_key_type keys_type[KEYS_TYPES] = {WM_KEY_TYPE_LONG,
						       WM_KEY_TYPE_STRING};

/* The traces and what reading them cost. */
struct keys_bench {
	bool wanted[KEYS_TYPES];     /* --keys: both; --peer alone: long */
	char path[KEYS_TYPES][512];  /* "" until made; unlinked at the end */
	uint32_t distinct;	     /* keys the records use */
	uint64_t results;	     /* distinct (key, window): the results */
	double *read_ns[KEYS_TYPES]; /* per record, by repetition */
};

/* The order of the key types in repetition r: alternating, so that
 * neither always runs on a machine (and a page cache) the other warmed. */
static enum keys_type
keys_nth(uint64_t r, int i)
{
	return (enum keys_type)(r % 2 == 0 ? i : KEYS_TYPES - 1 - i);
}

/*
 * Write the traces: the same records but for the key's type. Record i is
 * in partition i % PIPELINE_PARTITIONS at timestamp i / PIPELINE_PARTITIONS
 * ms, so every partition is in order and a one-minute window holds 60000
 * records of each (one result per 469 records, near the generated job's
 * one per 400 at 7 Mrec/s); its key is a uniform draw N below
 * PIPELINE_KEYS, written as N in one trace and as "user<N>" in the other.
 * Only the wanted traces are written. Timestamps never fall, so a key's
 * windows come in order: a key whose window changed starts a result.
 * 0, or an exit status after a message.
 */
static int
keys_write(struct keys_bench *kb, uint64_t records)
{
	const char *dir = getenv("TMPDIR");
	bool used[PIPELINE_KEYS] = {false};
	uint64_t window_of[PIPELINE_KEYS]; /* a key's last, UINT64_MAX: none */
	FILE *f[KEYS_TYPES] = {NULL};
	struct wm_rng rng;
	int rc = 0;

	if (dir == NULL || dir[0] == '\0')
		dir = "/tmp";
	for (int k = 0; k < KEYS_TYPES && rc == 0; k++) {
		int fd;

		if (!kb->wanted[k])
			continue;
		snprintf(kb->path[k], sizeof(kb->path[k]),
			 "%s/wmbench-%s-XXXXXX", dir, keys_name[k]);
		fd = mkstemp(kb->path[k]);
		if (fd < 0 || (f[k] = fdopen(fd, "w")) == NULL) {
			wm_log("wmbench: could not create trace \"%s\": %s",
			       kb->path[k], strerror(errno));
			if (fd < 0)
				kb->path[k][0] = '\0';
			else
				close(fd);
			rc = EX_CANTCREAT;
		}
	}
	wm_rng_seed(&rng, 14);
	memset(window_of, 0xff, sizeof(window_of));
	for (uint64_t i = 0; i < records && rc == 0; i++) {
		uint32_t key = wm_rng_below(&rng, PIPELINE_KEYS);
		uint64_t p = i % PIPELINE_PARTITIONS;
		uint64_t ts = i / PIPELINE_PARTITIONS;

		used[key] = true;
		if (window_of[key] != ts / PIPELINE_WINDOW_MS) {
			window_of[key] = ts / PIPELINE_WINDOW_MS;
			kb->results++;
		}
		if (f[KEYS_LONG] != NULL)
			fprintf(f[KEYS_LONG],
				"%" PRIu64 ",%" PRIu64 ",%" PRIu32 ",1\n", p,
				ts, key);
		if (f[KEYS_STRING] != NULL)
			fprintf(f[KEYS_STRING],
				"%" PRIu64 ",%" PRIu64 ",user%" PRIu32 ",1\n",
				p, ts, key);
	}
	for (int k = 0; k < KEYS_TYPES; k++) {
		if (f[k] != NULL && (ferror(f[k]) | fclose(f[k])) != 0 &&
		    rc == 0) {
			wm_log("wmbench: could not write trace \"%s\": %s",
			       kb->path[k], strerror(errno));
			rc = EX_IOERR;
		}
	}
	for (uint32_t key = 0; key < PIPELINE_KEYS; key++)
		kb->distinct += used[key];
	return rc;
}

/*
 * Repetition r of the reading alone, each trace as the supervisor reads
 * it before a job (the interning of string keys included): ns per record
 * into kb->read_ns. The string trace must have interned exactly the keys
 * it holds. 0, or an exit status after a message.
 */
static int
keys_read_rep(struct keys_bench *kb, uint64_t records, uint64_t r)
{
	for (int i = 0; i < KEYS_TYPES; i++) {
		enum keys_type k = keys_nth(r, i);
		char err[512];
		uint64_t start = wm_stats_now_ns(), end;
		struct wm_replay_trace *tr = wm_replay_read(
			kb->path[k], PIPELINE_PARTITIONS, WM_REPLAY_FAST,
			keys_type[k], NULL, false, err, sizeof(err));
		const struct wm_keys *keys;
		size_t interned, want = k == KEYS_STRING ? kb->distinct : 0;

		end = wm_stats_now_ns();
		if (tr == NULL) {
			wm_log("wmbench: pipeline: %s", err);
			return errno == ENOMEM ? EX_OSERR : EX_SOFTWARE;
		}
		keys = wm_replay_keys(tr);
		interned = keys != NULL ? wm_keys_count(keys) : 0;
		wm_replay_free(tr);
		if (interned != want) {
			wm_log("wmbench: pipeline: trace \"%s\" interned %zu "
			       "keys, expected %zu",
			       kb->path[k], interned, want);
			return EX_SOFTWARE;
		}
		kb->read_ns[k][r] = (double)(end - start) / (double)records;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Repetitions and results */

/* What one repetition runs of a variant: the job as it is, watched by an
 * observer (--sampled), taking checkpoints (--checkpoint-interval). */
enum run_kind { RUN_PLAIN, RUN_SAMPLED, RUN_CHECKPOINTED, RUN_KINDS };

/*
 * --checkpoint-interval: the figures of a checkpointed run, from its
 * report's checkpoint summary (report.h), by repetition. Durations are
 * kept in real time; the summary gives them in processing time, which
 * passes PIPELINE_SPEED times faster. The alignment is the longest time
 * any subtask held a channel blocked, first barrier to last.
 */
enum ckpt_figure {
	CKPT_COMPLETED,
	CKPT_BYTES, /* the last checkpoint's blobs */
	CKPT_DURATION_MAX,
	CKPT_DURATION_MEAN,
	CKPT_ALIGNMENT_MAX,
	CKPT_FIGURES
};
static const char *const ckpt_metric[CKPT_FIGURES] = {
	"checkpoints",
	"checkpoint_bytes",
	"checkpoint_duration_max_ms",
	"checkpoint_duration_mean_ms",
	"checkpoint_alignment_max_ms",
};
/* The same durations in processing time (seconds), as the summary and
 * wmrun's report give them. */
static const char *const ckpt_processing_metric[CKPT_FIGURES] = {
	[CKPT_DURATION_MAX] = "checkpoint_duration_max_processing_s",
	[CKPT_DURATION_MEAN] = "checkpoint_duration_mean_processing_s",
	[CKPT_ALIGNMENT_MAX] = "checkpoint_alignment_max_processing_s",
};

/* The cost target: checkpoints every second lose less than this
 * share of throughput against none, in one run. */
#define CKPT_TARGET_LOSS_PCT 5.0

struct variant {
	uint32_t parallelism;
	struct wm_topology *topo;
	double *mrec;	      /* by repetition */
	double *sampled_mrec; /* --sampled: watched, by repetition */
	uint64_t scrapes;     /* --sampled: endpoint responses, in all */
	double *rss;	      /* KiB, every subtask of every repetition */
	size_t n_rss, cap_rss;
	uint64_t shm_bytes;
	/* --keys: the job replaying each trace, and its throughput from
	 * the start line, by repetition (--peer alone: the long one) */
	struct wm_topology *keyed_topo[KEYS_TYPES];
	double *keyed_mrec[KEYS_TYPES];
	/* --peer flink: the same job on Flink, with its defaults and with
	 * object reuse (peer_reuse[]), from its first record to its last
	 * result and as execute() took, by repetition */
	double *flink_mrec[PEER_CONFIGS];
	double *flink_execute_mrec[PEER_CONFIGS];
	/* --checkpoint-interval: the job taking checkpoints into its own
	 * directory (a plan's checkpoints are refused by another's), its
	 * throughput and figures by repetition, and checkpoints given up
	 * (timed out) in all */
	struct wm_topology *ckpt_topo;
	double *ckpt_mrec;
	double *ckpt[CKPT_FIGURES];
	uint64_t ckpt_given_up;
};

/* A checkpointed run's report into repetition r of v's figures: 0, or an
 * exit status after a message if the store failed (a full disk, say:
 * the job went on, but its figures are not those of checkpointing). */
static int
ckpt_take_figures(struct variant *v, uint64_t r,
		  const struct wm_checkpoint_summary *c)
{
	double to_real_ms = 1e-6 / PIPELINE_SPEED;

	if (c->failed > 0) {
		wm_log("wmbench: pipeline wmrun p%" PRIu32
		       " with checkpoints: %" PRIu64
		       " checkpoints failed to be stored",
		       v->parallelism, c->failed);
		return EX_IOERR;
	}
	if (c->completed == 0)
		wm_log("wmbench: pipeline wmrun p%" PRIu32
		       " with checkpoints: none completed in repetition "
		       "%" PRIu64 " (a run shorter than the interval: raise "
		       "--records)",
		       v->parallelism, r + 1);
	v->ckpt_given_up += c->timed_out;
	v->ckpt[CKPT_COMPLETED][r] = (double)c->completed;
	v->ckpt[CKPT_BYTES][r] = (double)c->last_bytes;
	v->ckpt[CKPT_DURATION_MAX][r] = (double)c->duration_max_ns * to_real_ms;
	v->ckpt[CKPT_DURATION_MEAN][r] =
		c->completed > 0 ? (double)c->duration_total_ns /
					   (double)c->completed * to_real_ms
				 : 0;
	v->ckpt[CKPT_ALIGNMENT_MAX][r] =
		(double)c->alignment_max_ns * to_real_ms;
	return 0;
}

/* One wmrun run of variant v in repetition r, as `kind` says; 0 or an
 * exit status. */
static int
variant_rep(struct variant *v, const struct pipeline_options *o, uint64_t r,
	    enum run_kind kind)
{
	struct wm_job_report rep;
	struct wm_observe_options observing;
	const struct wm_observe_options *observe = NULL;
	struct wm_scraper scraper;
	bool scraping = false;
	int rc = 0;

	if (kind == RUN_SAMPLED) {
		uint16_t port = wm_scraper_free_port();

		observing = sampled_observer(port);
		observe = &observing;
		scraping = port != 0 && wm_scraper_start(&scraper, port,
							 SAMPLED_EVERY_NS) == 0;
	}

	struct wmrun_result w =
		wmrun_run(kind == RUN_CHECKPOINTED ? v->ckpt_topo : v->topo,
			  v->parallelism, o->records, observe, &rep);

	if (scraping)
		v->scrapes += wm_scraper_stop(&scraper);

	if (w.mrec_per_s >= 0 && kind == RUN_SAMPLED) {
		v->sampled_mrec[r] = w.mrec_per_s;
	} else if (w.mrec_per_s >= 0 && kind == RUN_CHECKPOINTED) {
		v->ckpt_mrec[r] = w.mrec_per_s;
		rc = ckpt_take_figures(v, r, &rep.checkpoints);
	} else if (w.mrec_per_s >= 0) {
		v->mrec[r] = w.mrec_per_s;
		v->shm_bytes = rep.shm_bytes;
		for (uint32_t i = 0;
		     i < rep.n_subtasks && v->n_rss < v->cap_rss; i++)
			v->rss[v->n_rss++] =
				(double)rep.subtasks[i].max_rss_kib;
	}
	wm_report_free(&rep);
	return w.mrec_per_s < 0 ? w.status : rc;
}

/* Repetition r of variant v replaying each trace it has, in keys_nth()
 * order; each must fire the trace's `results` windows. 0 or an exit
 * status. */
static int
keys_rep(struct variant *v, const struct pipeline_options *o, uint64_t r,
	 uint64_t results)
{
	for (int i = 0; i < KEYS_TYPES; i++) {
		enum keys_type k = keys_nth(r, i);
		struct wm_job_report rep;
		struct wmrun_result w;
		uint64_t fired;

		if (v->keyed_topo[k] == NULL)
			continue;
		w = wmrun_run(v->keyed_topo[k], v->parallelism, o->records,
			      NULL, &rep);
		fired = rep.windows_fired;
		wm_report_free(&rep);
		if (w.mrec_per_s < 0)
			return w.status;
		if (fired != results) {
			wm_log("wmbench: pipeline wmrun p%" PRIu32
			       " replaying %s: %" PRIu64
			       " windows fired, expected %" PRIu64 "",
			       v->parallelism, keys_name[k], fired, results);
			return EX_SOFTWARE;
		}
		v->keyed_mrec[k][r] = w.started_mrec_per_s;
	}
	return 0;
}

/* Repetition r of variant v on Flink: each configuration once, in turn
 * first. 0 or an exit status. */
static int
peer_rep(struct variant *v, const struct pipeline_options *o, uint64_t r,
	 struct wm_flink_peer *peer)
{
	for (int i = 0; i < PEER_CONFIGS; i++) {
		int c = r % 2 == 0 ? i : PEER_CONFIGS - 1 - i;
		struct wm_flink_peer_run run;
		int rc = wm_flink_peer_run(peer, v->parallelism, peer_reuse[c],
					   &run);

		if (rc != 0)
			return rc;
		v->flink_mrec[c][r] = (double)o->records /
				      ((double)run.first_to_last_ns / 1e3);
		v->flink_execute_mrec[c][r] =
			(double)o->records / ((double)run.execute_ns / 1e3);
	}
	return 0;
}

static int
loop_rep(const struct wm_topology *t, const struct pipeline_options *o,
	 double *mrec)
{
	*mrec = loop_run(t, o->records);
	return *mrec < 0 ? EX_SOFTWARE : 0;
}

/* "<prefix> metric=<metric> median=X min=Y max=Z[ <suffix>]" of the
 * repetitions' samples[], summarized in copy[] (room for one figure a
 * repetition): samples[] stay in their order, by repetition, for the
 * ratios. */
static void
print_samples(const char *prefix, const char *metric, const double *samples,
	      double *copy, uint64_t reps, const char *suffix)
{
	struct wm_stats s;

	memcpy(copy, samples, reps * sizeof(*copy));
	s = wm_stats_summarize(copy, reps);
	wm_stats_print(stdout, prefix, metric, &s, suffix);
}

/* "<prefix> metric=<metric> ratio=X", X the median over the repetitions
 * of num[r] / den[r]; copy[] as above. */
static void
print_median_ratio(const char *prefix, const char *metric, const double *num,
		   const double *den, double *copy, uint64_t reps)
{
	for (uint64_t r = 0; r < reps; r++)
		copy[r] = num[r] / den[r];
	wm_stats_print_ratio(stdout, prefix, metric,
			     wm_stats_summarize(copy, reps).median);
}

/* --keys: the reading figures, then each parallelism's two jobs and the
 * median of the per-repetition ratios string over long; copy[] and
 * suffix as pipeline_print() has them. */
static void
keys_print(const struct pipeline_options *o, const struct keys_bench *kb,
	   const struct variant *v, size_t nv, double *copy, const char *suffix)
{
	char prefix[96];

	for (int k = 0; k < KEYS_TYPES; k++) {
		snprintf(prefix, sizeof(prefix),
			 "bench=pipeline impl=read variant=%s", keys_name[k]);
		print_samples(prefix, "ns_per_record", kb->read_ns[k], copy,
			      o->reps, suffix);
	}
	printf("bench=pipeline impl=read variant=string-keys metric=keys "
	       "value=%" PRIu32 "\n",
	       kb->distinct);
	print_median_ratio("bench=pipeline impl=read", "string_over_long_keys",
			   kb->read_ns[KEYS_STRING], kb->read_ns[KEYS_LONG],
			   copy, o->reps);
	for (size_t j = 0; j < nv; j++) {
		for (int k = 0; k < KEYS_TYPES; k++) {
			snprintf(prefix, sizeof(prefix),
				 "bench=pipeline impl=wmrun variant=p%" PRIu32
				 "-%s",
				 v[j].parallelism, keys_name[k]);
			print_samples(prefix, "mrec_per_s", v[j].keyed_mrec[k],
				      copy, o->reps, suffix);
		}
		snprintf(prefix, sizeof(prefix),
			 "bench=pipeline variant=p%" PRIu32, v[j].parallelism);
		print_median_ratio(prefix, "string_over_long_keys",
				   v[j].keyed_mrec[KEYS_STRING],
				   v[j].keyed_mrec[KEYS_LONG], copy, o->reps);
	}
}

/* --peer flink: the results each run was checked for; each parallelism's
 * wmrun job replaying the long-keyed trace (unless --keys printed it),
 * Flink's two configurations, and the median of the per-repetition ratios
 * of wmrun over each; copy[] and suffix as pipeline_print() has them. */
static void
peer_print(const struct pipeline_options *o, const struct keys_bench *kb,
	   const struct variant *v, size_t nv, double *copy, const char *suffix)
{
	char prefix[96];

	printf("bench=pipeline impl=flink metric=results value=%" PRIu64 "\n",
	       kb->results);
	for (size_t j = 0; j < nv; j++) {
		if (!o->keys) {
			snprintf(prefix, sizeof(prefix),
				 "bench=pipeline impl=wmrun variant=p%" PRIu32
				 "-%s",
				 v[j].parallelism, keys_name[KEYS_LONG]);
			print_samples(prefix, "mrec_per_s",
				      v[j].keyed_mrec[KEYS_LONG], copy, o->reps,
				      suffix);
		}
		for (int c = 0; c < PEER_CONFIGS; c++) {
			snprintf(prefix, sizeof(prefix),
				 "bench=pipeline impl=flink variant=p%" PRIu32
				 "%s",
				 v[j].parallelism, peer_suffix[c]);
			print_samples(prefix, "mrec_per_s", v[j].flink_mrec[c],
				      copy, o->reps, suffix);
			print_samples(prefix, "execute_mrec_per_s",
				      v[j].flink_execute_mrec[c], copy, o->reps,
				      suffix);
			snprintf(prefix, sizeof(prefix),
				 "bench=pipeline variant=p%" PRIu32 "%s",
				 v[j].parallelism, peer_suffix[c]);
			print_median_ratio(prefix, "wmrun_over_flink",
					   v[j].keyed_mrec[KEYS_LONG],
					   v[j].flink_mrec[c], copy, o->reps);
		}
	}
}

/*
 * --checkpoint-interval: variant v's throughput taking checkpoints, its
 * checkpoints' figures (real time, then the durations in processing time
 * as wmrun's summary gives them), and the cost against the same job
 * without: the median of the per-repetition ratios, and as a loss in
 * percent beside its target. copy[] and suffix as pipeline_print() has
 * them.
 */
static void
ckpt_print(const struct pipeline_options *o, const struct variant *v,
	   double *copy, const char *suffix)
{
	char prefix[96], extra[160];
	double loss;
	struct wm_stats s;

	snprintf(prefix, sizeof(prefix),
		 "bench=pipeline impl=wmrun-checkpointed variant=p%" PRIu32,
		 v->parallelism);
	snprintf(extra, sizeof(extra), "%s interval_ms=%" PRId64, suffix,
		 o->checkpoint_ms);
	print_samples(prefix, "mrec_per_s", v->ckpt_mrec, copy, o->reps, extra);
	for (int f = 0; f < CKPT_FIGURES; f++)
		print_samples(prefix, ckpt_metric[f], v->ckpt[f], copy, o->reps,
			      ckpt_processing_metric[f] ? "time=real" : NULL);
	for (int f = 0; f < CKPT_FIGURES; f++) {
		if (ckpt_processing_metric[f] == NULL)
			continue;
		for (uint64_t r = 0; r < o->reps; r++)
			copy[r] = v->ckpt[f][r] * PIPELINE_SPEED / 1e3;
		s = wm_stats_summarize(copy, o->reps);
		snprintf(extra, sizeof(extra), "time=processing speed=%d",
			 PIPELINE_SPEED);
		wm_stats_print(stdout, prefix, ckpt_processing_metric[f], &s,
			       extra);
	}
	printf("%s metric=checkpoints_given_up value=%" PRIu64 "\n", prefix,
	       v->ckpt_given_up);
	snprintf(prefix, sizeof(prefix), "bench=pipeline variant=p%" PRIu32,
		 v->parallelism);
	for (uint64_t r = 0; r < o->reps; r++)
		copy[r] = v->ckpt_mrec[r] / v->mrec[r];
	s = wm_stats_summarize(copy, o->reps);
	wm_stats_print_ratio(stdout, prefix, "checkpointed_over_unchecked",
			     s.median);
	/* The repetitions' extremes beside the median say how much of the
	 * loss this machine can resolve at all. */
	loss = (1 - s.median) * 100;
	printf("%s metric=checkpoint_loss_pct value=%.2f min=%.2f max=%.2f "
	       "target_below=%.0f met=%s\n",
	       prefix, loss, (1 - s.max) * 100, (1 - s.min) * 100,
	       CKPT_TARGET_LOSS_PCT,
	       loss < CKPT_TARGET_LOSS_PCT ? "yes" : "no");
}

static void
pipeline_print(const struct pipeline_options *o, const double *loop_mrec,
	       struct variant *v, size_t nv, const struct keys_bench *kb)
{
	char prefix[96], suffix[96];
	double *copy = malloc(o->reps * sizeof(*copy));
	struct wm_stats s;

	if (copy == NULL)
		return;
	snprintf(suffix, sizeof(suffix), "reps=%" PRIu64 " records=%" PRIu64,
		 o->reps, o->records);
	print_samples("bench=pipeline impl=loop variant=p1", "mrec_per_s",
		      loop_mrec, copy, o->reps, suffix);
	for (size_t k = 0; k < nv; k++) {
		snprintf(prefix, sizeof(prefix),
			 "bench=pipeline impl=wmrun variant=p%" PRIu32,
			 v[k].parallelism);
		print_samples(prefix, "mrec_per_s", v[k].mrec, copy, o->reps,
			      suffix);
		printf("%s metric=shm_bytes value=%" PRIu64 "\n", prefix,
		       v[k].shm_bytes);
		s = wm_stats_summarize(v[k].rss, v[k].n_rss);
		wm_stats_print(stdout, prefix, "rss_kib_per_subtask", &s, NULL);
		snprintf(prefix, sizeof(prefix),
			 "bench=pipeline variant=p%" PRIu32, v[k].parallelism);
		print_median_ratio(prefix, "wmrun_over_loop", v[k].mrec,
				   loop_mrec, copy, o->reps);
		if (o->checkpoint_ms > 0)
			ckpt_print(o, &v[k], copy, suffix);
		if (!o->sampled)
			continue;
		snprintf(prefix, sizeof(prefix),
			 "bench=pipeline impl=wmrun-sampled variant=p%" PRIu32,
			 v[k].parallelism);
		print_samples(prefix, "mrec_per_s", v[k].sampled_mrec, copy,
			      o->reps, suffix);
		printf("%s metric=scrapes value=%" PRIu64 "\n", prefix,
		       v[k].scrapes);
		snprintf(prefix, sizeof(prefix),
			 "bench=pipeline variant=p%" PRIu32, v[k].parallelism);
		print_median_ratio(prefix, "sampled_over_unsampled",
				   v[k].sampled_mrec, v[k].mrec, copy, o->reps);
	}
	if (o->keys)
		keys_print(o, kb, v, nv, copy, suffix);
	if (o->flink)
		peer_print(o, kb, v, nv, copy, suffix);
	fflush(stdout);
	free(copy);
}

/* --checkpoint-interval: v's job taking checkpoints every
 * o->checkpoint_ms of real time into ckpt_root/pP (made by its first
 * checkpoint); 0 or an exit status. */
static int
ckpt_set_up(struct variant *v, const struct pipeline_options *o,
	    const char *ckpt_root)
{
	char lines[1024];
	int n;

	/* The interval is processing time, which passes PIPELINE_SPEED
	 * times as fast as real time; so is the timeout, Flink's 10 min of
	 * wall clock, which at this speed would be 0.6 s of real time and
	 * give up checkpoints a loaded machine takes longer over. */
	n = snprintf(lines, sizeof(lines),
		     "checkpoint_interval = %" PRId64 " ms\n"
		     "checkpoint_timeout = %" PRId64 " min\n"
		     "checkpoint_dir = %s/p%" PRIu32 "\n",
		     o->checkpoint_ms * PIPELINE_SPEED,
		     (int64_t)10 * PIPELINE_SPEED, ckpt_root, v->parallelism);
	if (n < 0 || (size_t)n >= sizeof(lines)) {
		wm_log("wmbench: checkpoint directory too long");
		return EX_USAGE;
	}
	v->ckpt_topo = pipeline_topology(o->records, v->parallelism, NULL, NULL,
					 lines);
	v->ckpt_mrec = calloc(o->reps, sizeof(double));
	if (v->ckpt_topo == NULL)
		return EX_SOFTWARE;
	if (v->ckpt_mrec == NULL)
		return EX_OSERR;
	for (int f = 0; f < CKPT_FIGURES; f++)
		if ((v->ckpt[f] = calloc(o->reps, sizeof(double))) == NULL)
			return EX_OSERR;
	return 0;
}

/* Variant v at parallelism p: its jobs, and room for its figures; 0 or
 * an exit status (a topology that does not load is this file's bug).
 * ckpt_root: where --checkpoint-interval's checkpoints go, or NULL. */
static int
variant_set_up(struct variant *v, uint32_t p, const struct pipeline_options *o,
	       const struct keys_bench *kb, const char *ckpt_root)
{
	v->parallelism = p;
	v->topo = pipeline_topology(o->records, p, NULL, NULL, NULL);
	v->mrec = calloc(o->reps, sizeof(double));
	v->sampled_mrec = calloc(o->reps, sizeof(double));
	/* source, keyBy and window subtasks (the sink is chained) */
	v->cap_rss = o->reps * 3 * p;
	v->rss = calloc(v->cap_rss, sizeof(double));
	if (v->topo == NULL)
		return EX_SOFTWARE;
	if (v->mrec == NULL || v->sampled_mrec == NULL || v->rss == NULL)
		return EX_OSERR;
	for (int k = 0; k < KEYS_TYPES; k++) {
		if (!kb->wanted[k])
			continue;
		v->keyed_topo[k] = pipeline_topology(o->records, p, kb->path[k],
						     keys_conf[k], NULL);
		v->keyed_mrec[k] = calloc(o->reps, sizeof(double));
		if (v->keyed_topo[k] == NULL)
			return EX_SOFTWARE;
		if (v->keyed_mrec[k] == NULL)
			return EX_OSERR;
	}
	for (int c = 0; o->flink && c < PEER_CONFIGS; c++) {
		v->flink_mrec[c] = calloc(o->reps, sizeof(double));
		v->flink_execute_mrec[c] = calloc(o->reps, sizeof(double));
		if (v->flink_mrec[c] == NULL ||
		    v->flink_execute_mrec[c] == NULL)
			return EX_OSERR;
	}
	return ckpt_root != NULL ? ckpt_set_up(v, o, ckpt_root) : 0;
}

static void
variant_free(struct variant *v)
{
	wm_topology_free(v->topo);
	free(v->mrec);
	free(v->sampled_mrec);
	free(v->rss);
	for (int k = 0; k < KEYS_TYPES; k++) {
		wm_topology_free(v->keyed_topo[k]);
		free(v->keyed_mrec[k]);
	}
	for (int c = 0; c < PEER_CONFIGS; c++) {
		free(v->flink_mrec[c]);
		free(v->flink_execute_mrec[c]);
	}
	wm_topology_free(v->ckpt_topo);
	free(v->ckpt_mrec);
	for (int f = 0; f < CKPT_FIGURES; f++)
		free(v->ckpt[f]);
}

/* --checkpoint-interval: a new directory for the checkpoints in
 * o->checkpoint_parent (or $TMPDIR, or /tmp) into root[len]; 0 or
 * EX_CANTCREAT after a message. */
static int
ckpt_make_root(const struct pipeline_options *o, char *root, size_t len)
{
	const char *dir = o->checkpoint_parent;

	if (dir == NULL)
		dir = getenv("TMPDIR");
	if (dir == NULL || dir[0] == '\0')
		dir = "/tmp";
	snprintf(root, len, "%s/wmbench-checkpoints-XXXXXX", dir);
	if (mkdtemp(root) == NULL) {
		wm_log("wmbench: could not create checkpoint directory "
		       "\"%s\": %s",
		       root, strerror(errno));
		root[0] = '\0';
		return EX_CANTCREAT;
	}
	return 0;
}

static int
remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(path) != 0)
		wm_log("wmbench: could not remove \"%s\": %s", path,
		       strerror(errno));
	return 0;
}

/* --peer flink: the JVM on the long-keyed trace, warmed by one run of each
 * configuration at each parallelism (its figures thrown away: the
 * repetitions measure compiled code, as wmrun's do); NULL after a message
 * with *rc set. */
static struct wm_flink_peer *
peer_start(const struct pipeline_options *o, const struct keys_bench *kb,
	   int *rc)
{
	struct wm_flink_peer *peer =
		wm_flink_peer_start(kb->path[KEYS_LONG], o->records,
				    kb->results, PIPELINE_WINDOW_MS, rc);

	for (size_t k = 0; peer != NULL && k < o->n_parallelism; k++) {
		for (int c = 0; c < PEER_CONFIGS && *rc == 0; c++) {
			struct wm_flink_peer_run warm_up;

			*rc = wm_flink_peer_run(peer, o->parallelism[k],
						peer_reuse[c], &warm_up);
		}
	}
	if (*rc != 0) {
		wm_flink_peer_stop(peer);
		return NULL;
	}
	return peer;
}

static int
pipeline_measure(const struct pipeline_options *o)
{
	size_t nv = o->n_parallelism;
	struct variant *v = calloc(nv, sizeof(*v));
	struct wm_topology *loop_topo = NULL;
	double *loop_mrec = calloc(o->reps, sizeof(double));
	struct keys_bench kb = {.wanted = {o->keys || o->flink, o->keys}};
	struct wm_flink_peer *peer = NULL;
	char ckpt_root[512] = "";
	enum run_kind kinds[RUN_KINDS] = {RUN_PLAIN};
	size_t n_kinds = 1;
	int rc = 0;

	if (o->sampled)
		kinds[n_kinds++] = RUN_SAMPLED;
	if (o->checkpoint_ms > 0)
		kinds[n_kinds++] = RUN_CHECKPOINTED;
	if (v == NULL || loop_mrec == NULL) {
		rc = EX_OSERR;
		goto out;
	}
	/* Without a peer to run, nothing else either. */
	if (o->flink && (rc = wm_flink_peer_build()) != 0)
		goto out;
	/* The traces before any timing: writing them is no part of it. */
	if (o->keys || o->flink)
		rc = keys_write(&kb, o->records);
	for (int k = 0; o->keys && k < KEYS_TYPES && rc == 0; k++)
		if ((kb.read_ns[k] = calloc(o->reps, sizeof(double))) == NULL)
			rc = EX_OSERR;
	if (o->checkpoint_ms > 0 && rc == 0)
		rc = ckpt_make_root(o, ckpt_root, sizeof(ckpt_root));
	/* A topology that does not load is this file's bug. */
	loop_topo = pipeline_topology(o->records, 1, NULL, NULL, NULL);
	if (loop_topo == NULL && rc == 0)
		rc = EX_SOFTWARE;
	for (size_t k = 0; k < nv && rc == 0; k++)
		rc = variant_set_up(&v[k], o->parallelism[k], o, &kb,
				    ckpt_root[0] != '\0' ? ckpt_root : NULL);
	if (rc == 0 && o->flink)
		peer = peer_start(o, &kb, &rc);
	/* Even repetitions start with the loop, odd ones end with it:
	 * neither side always runs on a machine the other just warmed. */
	for (uint64_t r = 0; r < o->reps && rc == 0; r++) {
		if (r % 2 == 0)
			rc = loop_rep(loop_topo, o, &loop_mrec[r]);
		if (rc == 0 && o->keys)
			rc = keys_read_rep(&kb, o->records, r);
		for (size_t k = 0; k < nv && rc == 0; k++) {
			/* The kinds of run in turn first: repetition r
			 * starts with kinds[r mod n_kinds]. */
			for (size_t i = 0; i < n_kinds && rc == 0; i++)
				rc = variant_rep(&v[k], o, r,
						 kinds[(i + r) % n_kinds]);
			/* Flink and wmrun's replay, in turn first */
			if (rc == 0 && peer != NULL && r % 2 == 1)
				rc = peer_rep(&v[k], o, r, peer);
			if (rc == 0 && (o->keys || o->flink))
				rc = keys_rep(&v[k], o, r, kb.results);
			if (rc == 0 && peer != NULL && r % 2 == 0)
				rc = peer_rep(&v[k], o, r, peer);
		}
		if (r % 2 == 1 && rc == 0)
			rc = loop_rep(loop_topo, o, &loop_mrec[r]);
	}
	{
		int peer_rc = wm_flink_peer_stop(peer);

		if (rc == 0)
			rc = peer_rc;
	}
	if (rc == 0)
		pipeline_print(o, loop_mrec, v, nv, &kb);
out:
	for (size_t k = 0; v != NULL && k < nv; k++)
		variant_free(&v[k]);
	free(v);
	wm_topology_free(loop_topo);
	free(loop_mrec);
	for (int k = 0; k < KEYS_TYPES; k++) {
		if (kb.path[k][0] != '\0')
			unlink(kb.path[k]);
		free(kb.read_ns[k]);
	}
	if (ckpt_root[0] != '\0')
		nftw(ckpt_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return rc;
}

static void
pipeline_help(FILE *out)
{
	fprintf(out,
		"Usage: wmbench pipeline [OPTION]...\n"
		"Records per second through source -> keyBy -> tumbling count "
		"window ->\n"
		"sink: wmrun's pinned processes over shared-memory rings at "
		"each\n"
		"parallelism, beside the same tasks in one thread without "
		"transport.\n"
		"\n"
		"  -n, --records N          records per run, in all (default "
		"%u;\n"
		"                           rounded down to a multiple of %u "
		"partitions)\n"
		"  -r, --reps R             repetitions (default %d)\n"
		"  -p, --parallelism P[,P...]  parallelism of every stage, 1 "
		"to %u\n"
		"                           (repeatable; default 1,2,4)\n"
		"  -s, --sampled            also run each parallelism watched "
		"by an\n"
		"                           observer sampling every 100 ms "
		"(its\n"
		"                           timeline to /dev/null), in turn "
		"with\n"
		"                           the unwatched run\n"
		"  -k, --keys               also run each parallelism "
		"replaying the same\n"
		"                           records keyed by longs and by "
		"strings\n"
		"                           (\"user<N>\"), from traces "
		"written to $TMPDIR\n"
		"                           first, and time reading each "
		"trace\n"
		"      --peer flink         also run the job replaying the "
		"long-keyed\n"
		"                           trace (as --keys writes it) on "
		"Apache\n"
		"                           Flink's MiniCluster, with its "
		"defaults and\n"
		"                           with object reuse, in turn with "
		"wmrun\n"
		"                           replaying it (flink/peer/, built "
		"once\n"
		"                           with Maven into the build tree; "
		"needs java\n"
		"                           and mvn, else exit status 69)\n"
		"  -c, --checkpoint-interval D  also run each parallelism "
		"taking\n"
		"                           checkpoints every D of real time "
		"(\"1s\",\n"
		"                           \"500 ms\"; processing time passes "
		"%d times\n"
		"                           as fast), in turn with the run "
		"without; a\n"
		"                           run must last longer than D: use "
		"-n 200000000\n"
		"                           or more for D = 1s\n"
		"      --checkpoint-dir DIR  where those checkpoints go, in a "
		"new\n"
		"                           directory removed at the end "
		"(default\n"
		"                           $TMPDIR, else /tmp)\n"
		"  -h, --help               show this help\n"
		"\n"
		"Prints:\n"
		"  bench=pipeline impl=loop variant=p1 metric=mrec_per_s "
		"median=X min=Y max=Z\n"
		"  bench=pipeline impl=wmrun variant=pP metric=mrec_per_s "
		"median=X min=Y max=Z\n"
		"  bench=pipeline impl=wmrun variant=pP metric=shm_bytes "
		"value=B\n"
		"  bench=pipeline impl=wmrun variant=pP "
		"metric=rss_kib_per_subtask median=X min=Y max=Z\n"
		"  bench=pipeline variant=pP metric=wmrun_over_loop ratio=X\n"
		"  bench=pipeline impl=wmrun-sampled variant=pP "
		"metric=mrec_per_s ...  (--sampled)\n"
		"  bench=pipeline variant=pP metric=sampled_over_unsampled "
		"ratio=X\n"
		"  bench=pipeline impl=wmrun-checkpointed variant=pP "
		"metric=mrec_per_s ...  (-c)\n"
		"  bench=pipeline impl=wmrun-checkpointed variant=pP "
		"metric=checkpoints ...\n"
		"  ... metric=checkpoint_bytes ...  (the last checkpoint's, a "
		"run)\n"
		"  ... metric=checkpoint_duration_max_ms, _mean_ms, "
		"checkpoint_alignment_max_ms\n"
		"      ... time=real  (a run's longest, mean and longest; then "
		"the same as\n"
		"      ..._processing_s ... time=processing)\n"
		"  bench=pipeline impl=wmrun-checkpointed variant=pP "
		"metric=checkpoints_given_up value=N\n"
		"  bench=pipeline variant=pP "
		"metric=checkpointed_over_unchecked "
		"ratio=X\n"
		"  bench=pipeline variant=pP metric=checkpoint_loss_pct "
		"value=L "
		"target_below=5 met=yes|no\n"
		"  bench=pipeline impl=read variant=K-keys "
		"metric=ns_per_record ...  (--keys)\n"
		"  bench=pipeline impl=read variant=string-keys metric=keys "
		"value=N\n"
		"  bench=pipeline impl=read metric=string_over_long_keys "
		"ratio=X\n"
		"  bench=pipeline impl=wmrun variant=pP-K-keys "
		"metric=mrec_per_s ...\n"
		"  bench=pipeline variant=pP metric=string_over_long_keys "
		"ratio=X\n"
		"  bench=pipeline impl=flink metric=results value=W  (--peer "
		"flink)\n"
		"  bench=pipeline impl=wmrun variant=pP-long-keys "
		"metric=mrec_per_s ...\n"
		"  bench=pipeline impl=flink variant=pP[-reuse] "
		"metric=mrec_per_s ...\n"
		"  bench=pipeline impl=flink variant=pP[-reuse] "
		"metric=execute_mrec_per_s ...\n"
		"  bench=pipeline variant=pP[-reuse] metric=wmrun_over_flink "
		"ratio=X\n"
		"(millions of records per second; the ratio is the median of "
		"the\n"
		"per-repetition ratios; RSS over every subtask of every "
		"repetition;\n"
		"K is long or string; a keyed job is timed from its start "
		"line, its\n"
		"trace read before it; Flink's job from its first record to "
		"its last\n"
		"result, and as execute() takes it; every run counts every "
		"record in\n"
		"the trace's W results, or wmbench exits 70).\n",
		PIPELINE_DEFAULT_RECORDS, PIPELINE_PARTITIONS,
		PIPELINE_DEFAULT_REPS, PIPELINE_MAX_PARALLELISM,
		PIPELINE_SPEED);
}

int
wm_bench_pipeline(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"records", required_argument, NULL, 'n'},
		{"reps", required_argument, NULL, 'r'},
		{"parallelism", required_argument, NULL, 'p'},
		{"sampled", no_argument, NULL, 's'},
		{"keys", no_argument, NULL, 'k'},
		{"peer", required_argument, NULL, PIPELINE_OPT_PEER},
		{"checkpoint-interval", required_argument, NULL, 'c'},
		{"checkpoint-dir", required_argument, NULL,
		 PIPELINE_OPT_CHECKPOINT_DIR},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct pipeline_options o = {
		.records = PIPELINE_DEFAULT_RECORDS,
		.reps = PIPELINE_DEFAULT_REPS,
	};
	char why[WM_UNITS_WHY_MAX];
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:n:r:p:skc:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (!wm_bench_parse_count(optarg, PIPELINE_PARTITIONS,
						  UINT64_MAX / 2, &o.records))
				return wm_bench_usage_error(
					"pipeline",
					"invalid record count \"%s\" (at "
					"least %u)",
					optarg, PIPELINE_PARTITIONS);
			break;
		case 'r':
			if (!wm_bench_parse_count(optarg, 1, PIPELINE_MAX_REPS,
						  &o.reps))
				return wm_bench_usage_error(
					"pipeline",
					"invalid repetition count \"%s\"",
					optarg);
			break;
		case 'p':
			if (!wm_bench_parse_count_list(
				    optarg, 1, PIPELINE_MAX_PARALLELISM,
				    o.parallelism, PIPELINE_MAX_LIST,
				    &o.n_parallelism))
				return wm_bench_usage_error(
					"pipeline",
					"invalid parallelism list \"%s\"",
					optarg);
			break;
		case 's':
			o.sampled = true;
			break;
		case 'k':
			o.keys = true;
			break;
		case PIPELINE_OPT_PEER:
			if (strcmp(optarg, "flink") != 0)
				return wm_bench_usage_error(
					"pipeline",
					"unknown peer \"%s\" (flink is the "
					"one)",
					optarg);
			o.flink = true;
			break;
		case 'c':
			if (wm_units_duration_ms(optarg, &o.checkpoint_ms, why,
						 sizeof(why)) != 0)
				return wm_bench_usage_error("pipeline", "%s",
							    why);
			if (o.checkpoint_ms < 1 ||
			    o.checkpoint_ms > PIPELINE_MAX_CHECKPOINT_MS)
				return wm_bench_usage_error(
					"pipeline",
					"checkpoint interval \"%s\" out of "
					"range (1 ms to 1 d)",
					optarg);
			break;
		case PIPELINE_OPT_CHECKPOINT_DIR:
			o.checkpoint_parent = optarg;
			break;
		case 'h':
			pipeline_help(stdout);
			return 0;
		default:
			return wm_bench_option_error("pipeline", opt, argv);
		}
	}
	if (optind < argc)
		return wm_bench_usage_error(
			"pipeline", "unexpected argument \"%s\"", argv[optind]);
	if (o.n_parallelism == 0) {
		for (size_t i = 0; i < 3; i++)
			o.parallelism[i] = pipeline_default_parallelism[i];
		o.n_parallelism = 3;
	}
	if (o.checkpoint_parent != NULL && o.checkpoint_ms == 0)
		return wm_bench_usage_error(
			"pipeline",
			"--checkpoint-dir needs --checkpoint-interval");
	o.records -= o.records % PIPELINE_PARTITIONS;
	return pipeline_measure(&o);
}
