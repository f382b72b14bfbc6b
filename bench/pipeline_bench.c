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
 * impl=loop: the very same tasks of the parallelism-1 job in this thread,
 * each frame handed from one task to the next by a direct call, with no
 * transport: what the runtime costs a record apart from the rings and the
 * processes (pipeline_loop.c says what it includes and excludes).
 *
 * Each repetition runs the loop and every wmrun variant, alternating which
 * goes first. With --sampled, each wmrun variant runs a second time in the
 * repetition with the observer on (runtime/run/observer.h: sampling every
 * 100 ms, its timeline written to /dev/null, its Prometheus endpoint on
 * and scraped every 100 ms by a process of wmbench's, ten times as often
 * as a usual scrape interval: bench/scraper.h), the two in alternating
 * order: metric=sampled_over_unsampled is the cost of being watched.
 * Every record must be accounted for (read = generated = in a window +
 * late + dropped); a mismatch or a failed job exits 70.
 *
 * With --keys, what string keys cost: before any timing the benchmark writes
 * two replay traces of the same records (wm_pipeline_keys_write(),
 * pipeline_keys.c), one keyed by integers N, the other by the strings
 * "user<N>", and each wmrun variant also runs the job replaying each of them
 * as fast as it can, in alternating order. Those runs are timed from the
 * start line to the end (report.h's wall_ns), because the supervisor reads
 * the trace, and interns its strings, before it creates the segment: that
 * reading is timed on its own, each trace read as the supervisor reads it,
 * once a repetition (wm_pipeline_keys_read_rep(), ns per record). So the job
 * figures differ only by what a string key costs a record in flight (the
 * hash edge's branch) and a result (the lookup and the quoting in the sink),
 * and the reading figures by the interning; the routing differs too, as
 * Flink's does: "user<N>" is hashed as a Java String, N as a Long.
 *
 * With --peer flink, what Flink does with the same records: the long-keyed
 * trace of --keys is written (for --peer alone, that one only) and, in
 * every repetition, each wmrun variant replays it and flink/peer/ runs the
 * same keyed tumbling count on Flink's MiniCluster at that parallelism,
 * with Flink's defaults and with object reuse, in turns (peer_rep();
 * bench/flink_peer.h runs the JVM). Flink is timed from its first record
 * to its last result, as the replay is from its start line: neither
 * counts its set-up. Every run must fire the trace's distinct key and
 * window pairs, counted as it is written (wm_pipeline_keys_write()).
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
#include "bench/pipeline_internal.h"
#include "bench/scraper.h"
#include "bench/stats.h"
#include "bench/wmbench.h"
#include "lib/units.h"
#include "base/log.h"
#include "runtime/run/supervisor.h"
#include "runtime/conf/topology.h"

#define PIPELINE_DEFAULT_RECORDS 12000000u
#define PIPELINE_DEFAULT_REPS 5
#define PIPELINE_MAX_REPS 100
/* Every source subtask reads at least one partition. */
#define PIPELINE_MAX_PARALLELISM PIPELINE_PARTITIONS
/* getopt's values of the long options without a short form */
#define PIPELINE_OPT_PEER 256
#define PIPELINE_OPT_CHECKPOINT_DIR 257
/* --checkpoint-interval: at most a day of real time (a day at speed 1000
 * still fits the job's int64 milliseconds many times over) */
#define PIPELINE_MAX_CHECKPOINT_MS ((int64_t)86400000)

static const uint32_t pipeline_default_parallelism[] = {1, 2, 4};

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
	if (wm_pipeline_accounted(what, records, rep->records_read,
				  rep->records_windowed,
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

/* --keys: the job replaying a trace of pipeline_keys.c, its key_type by
 * the trace's. */
static const char *const keys_conf[KEYS_TYPES] = {"long", "string"};

/* --peer flink: Flink's default configuration, and with object reuse. */
static const bool peer_reuse[PEER_CONFIGS] = {false, true};

/* ------------------------------------------------------------------ */
/* Repetitions and results */

/* What one repetition runs of a variant: the job as it is, watched by an
 * observer (--sampled), taking checkpoints (--checkpoint-interval). */
enum run_kind { RUN_PLAIN, RUN_SAMPLED, RUN_CHECKPOINTED, RUN_KINDS };

/* A checkpointed run's report into repetition r of v's figures: 0, or an
 * exit status after a message if the store failed (a full disk, say:
 * the job went on, but its figures are not those of checkpointing). */
static int
ckpt_take_figures(struct variant *v, uint64_t r,
		  const struct wm_checkpoint_summary *c)
{
	double to_real_ms = 1e-6 / PIPELINE_SPEED;

	if (c->tally.failed > 0) {
		wm_log("wmbench: pipeline wmrun p%" PRIu32
		       " with checkpoints: %" PRIu64
		       " checkpoints failed to be stored",
		       v->parallelism, c->tally.failed);
		return EX_IOERR;
	}
	if (c->tally.completed == 0)
		wm_log("wmbench: pipeline wmrun p%" PRIu32
		       " with checkpoints: none completed in repetition "
		       "%" PRIu64 " (a run shorter than the interval: raise "
		       "--records)",
		       v->parallelism, r + 1);
	v->ckpt_given_up += c->tally.timed_out;
	v->ckpt[CKPT_COMPLETED][r] = (double)c->tally.completed;
	v->ckpt[CKPT_BYTES][r] = (double)c->tally.last_bytes;
	v->ckpt[CKPT_DURATION_MAX][r] =
		(double)c->tally.duration_max_ns * to_real_ms;
	v->ckpt[CKPT_DURATION_MEAN][r] =
		c->tally.completed > 0
			? (double)c->tally.duration_total_ns /
				  (double)c->tally.completed * to_real_ms
			: 0;
	v->ckpt[CKPT_ALIGNMENT_MAX][r] =
		(double)c->tally.alignment_max_ns * to_real_ms;
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

/* Repetition r of variant v replaying each trace it has, in
 * wm_pipeline_keys_nth() order; each must fire the trace's `results`
 * windows. 0 or an exit status. */
static int
keys_rep(struct variant *v, const struct pipeline_options *o, uint64_t r,
	 uint64_t results)
{
	for (int i = 0; i < KEYS_TYPES; i++) {
		enum keys_type k = wm_pipeline_keys_nth(r, i);
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
			       v->parallelism, wm_pipeline_keys_name[k], fired,
			       results);
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
	*mrec = wm_pipeline_loop_run(t, o->records);
	return *mrec < 0 ? EX_SOFTWARE : 0;
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

/*
 * Repetition r of variant v: each kind of run of `kinds`, then Flink
 * (peer, or NULL) and wmrun's replay of the traces (each must fire
 * `results` windows). 0 or an exit status. Apart from pipeline_measure()
 * so that the order of one repetition, which decides what runs on a
 * machine another run just warmed, reads in one place.
 */
static int
variant_reps(struct variant *v, const struct pipeline_options *o, uint64_t r,
	     const enum run_kind *kinds, size_t n_kinds,
	     struct wm_flink_peer *peer, uint64_t results)
{
	int rc = 0;

	/* The kinds of run in turn first: repetition r
	 * starts with kinds[r mod n_kinds]. */
	for (size_t i = 0; i < n_kinds && rc == 0; i++)
		rc = variant_rep(v, o, r, kinds[(i + r) % n_kinds]);
	/* Flink and wmrun's replay, in turn first */
	if (rc == 0 && peer != NULL && r % 2 == 1)
		rc = peer_rep(v, o, r, peer);
	if (rc == 0 && (o->keys || o->flink))
		rc = keys_rep(v, o, r, results);
	if (rc == 0 && peer != NULL && r % 2 == 0)
		rc = peer_rep(v, o, r, peer);
	return rc;
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
		rc = wm_pipeline_keys_write(&kb, o->records);
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
			rc = wm_pipeline_keys_read_rep(&kb, o->records, r);
		for (size_t k = 0; k < nv && rc == 0; k++)
			rc = variant_reps(&v[k], o, r, kinds, n_kinds, peer,
					  kb.results);
		if (r % 2 == 1 && rc == 0)
			rc = loop_rep(loop_topo, o, &loop_mrec[r]);
	}
	{
		int peer_rc = wm_flink_peer_stop(peer);

		if (rc == 0)
			rc = peer_rc;
	}
	if (rc == 0)
		wm_pipeline_print(o, loop_mrec, v, nv, &kb);
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

/* Help text, kept whole: one fprintf(), as --help shows it. */
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

/* Option opt (getopt_long()'s value, its argument in `arg`) into *o: -1
 * to go on, or what wm_bench_pipeline() returns (0 after --help, or a
 * usage error). Apart from the loop so that the table of options and what
 * each one does read as two lists. */
static int
take_option(int opt, const char *arg, char **argv, struct pipeline_options *o)
{
	char why[WM_UNITS_WHY_MAX];

	switch (opt) {
	case 'n':
		if (!wm_bench_parse_count(arg, PIPELINE_PARTITIONS,
					  UINT64_MAX / 2, &o->records))
			return wm_bench_usage_error(
				"pipeline",
				"invalid record count \"%s\" (at "
				"least %u)",
				arg, PIPELINE_PARTITIONS);
		break;
	case 'r':
		if (!wm_bench_parse_count(arg, 1, PIPELINE_MAX_REPS, &o->reps))
			return wm_bench_usage_error(
				"pipeline", "invalid repetition count \"%s\"",
				arg);
		break;
	case 'p':
		if (!wm_bench_parse_count_list(
			    arg, 1, PIPELINE_MAX_PARALLELISM, o->parallelism,
			    PIPELINE_MAX_LIST, &o->n_parallelism))
			return wm_bench_usage_error(
				"pipeline", "invalid parallelism list \"%s\"",
				arg);
		break;
	case 's':
		o->sampled = true;
		break;
	case 'k':
		o->keys = true;
		break;
	case PIPELINE_OPT_PEER:
		if (strcmp(arg, "flink") != 0)
			return wm_bench_usage_error(
				"pipeline",
				"unknown peer \"%s\" (flink is the "
				"one)",
				arg);
		o->flink = true;
		break;
	case 'c':
		if (wm_units_duration_ms(arg, &o->checkpoint_ms, why,
					 sizeof(why)) != 0)
			return wm_bench_usage_error("pipeline", "%s", why);
		if (o->checkpoint_ms < 1 ||
		    o->checkpoint_ms > PIPELINE_MAX_CHECKPOINT_MS)
			return wm_bench_usage_error(
				"pipeline",
				"checkpoint interval \"%s\" out of "
				"range (1 ms to 1 d)",
				arg);
		break;
	case PIPELINE_OPT_CHECKPOINT_DIR:
		o->checkpoint_parent = arg;
		break;
	case 'h':
		pipeline_help(stdout);
		return 0;
	default:
		return wm_bench_option_error("pipeline", opt, argv);
	}
	return -1;
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
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:n:r:p:skc:h", longopts,
				  NULL)) != -1) {
		int rc = take_option(opt, optarg, argv, &o);

		if (rc != -1)
			return rc;
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
