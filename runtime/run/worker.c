/*
 * worker.c
 *	A subtask's process: rings in, task, rings out, on the real clock.
 *
 * Records move in runs both ways. In, the gate hands out a run of record
 * cells from one input, which the task reads where they lie
 * (wm_task_input_records()) before the gate consumes them. Out, each
 * output channel stages the records the task sends on it in the worker's
 * own memory (struct output) and pushes them into its ring as one run,
 * put in place (ring.h, wm_ring_reserve()), at these points and no later:
 *
 *   count    WORKER_RUN records staged
 *   frame    before any other frame goes on that channel (watermark,
 *            status, END, barrier), so that it never overtakes a record
 *            sent before it: order per channel is the task's order
 *   burst    after every burst of input frames or of a source's records,
 *            and so before the worker waits for input or for its next
 *            record: staged records never outlive the burst that sent them
 *   wait     while the worker waits for room in one ring, the others'
 *            records go as far as their rings have room (before_sleep()),
 *            so that no consumer sleeps on an empty ring while records
 *            for it are staged here
 *
 * Staging, not writing each record into its cell as it comes, keeps the
 * consumer off the cache lines the producer is still writing: a consumer
 * as fast as its producer otherwise takes each record the moment its cell
 * is published, one or two at a time, and every line crosses between
 * their cores twice. A run is published in one go and read in one go.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "ipc/gate.h"
#include "ipc/shm.h"
#include "base/clock.h"
#include "runtime/checkpoint/checkpoint_cycle.h"
#include "runtime/checkpoint/checkpoint_store.h"
#include "base/exit.h"
#include "base/log.h"
#include "base/schedstat.h"
#include "runtime/source/sources.h"
#include "runtime/engine/codec.h"
#include "runtime/engine/task.h"
#include "runtime/plan/footprint.h"
#include "runtime/checkpoint/exactly_once.h"
#include "runtime/run/worker.h"

/* Frames taken from the inputs before looking at anything else. */
#define WORKER_BURST 256

/* Records an output stages before it pushes them (the "count" point). */
#define WORKER_RUN 64

/* One output channel: its ring's producer and the run staged for it, as
 * the RECORD frames the codec made of them (runtime/engine/codec.h).
 * run[pushed .. staged) are still to go; both are 0 when none is. */
struct output {
	struct wm_ring_producer ring;
	uint32_t channel; /* the plan's, for messages */
	uint32_t staged;
	uint32_t pushed;
	struct wm_frame run[WORKER_RUN];
};

_Static_assert(sizeof(struct output) <= WM_FOOTPRINT_STAGED_BYTES,
	       "the memory estimate counts each output's staged run");

struct worker {
	const struct wm_worker_args *args;
	const struct wm_plan_subtask *me;
	const struct wm_stage *stage;
	struct wm_shm seg;
	struct wm_task *task;
	struct wm_task_out out;
	struct output *outputs; /* by local output index */
	uint32_t n_outputs;
	uint32_t *edge_first; /* by edge: the output of its channel 0 */
	struct wm_gate gate;
	struct wm_ring_consumer *inputs; /* the gate's, by input channel */
	bool *blocked; /* the gate's, by input channel (gate.h) */
	bool has_gate;
	uint64_t checkpoint_seen; /* a source: the newest trigger taken */
	uint64_t abort_seen;	  /* the newest checkpoint given up, seen */
	/* A restored window: the watermark it has to come back to; MIN
	 * once it did (or none). */
	int64_t catch_up_to;
	struct wm_waiter space; /* waiting for room in an output ring */
	struct wm_subtask_metrics *metrics;
	int64_t start_ns;	  /* the job's start line (shm.h) */
	int64_t published_ns;	  /* processing time of the last publish */
	bool clock_stale;	  /* a push waited: read the clock again */
	int64_t publish_every_ns; /* WORKER_PUBLISH_NS at the job's speed */
	double speed;
	/* A window's or join's outputs: the sinks chained to it, its late
	 * outputs (wm_stage_late_output(), NULL where none). */
	struct wm_sink *sinks[WM_TOPOLOGY_MAX_OUTPUTS];
	uint32_t n_sinks;
	struct wm_sink *late[WM_STAGE_LATE_OUTPUTS];
	/* A source's outputs written as it emits (wm_sources_feeds()): its
	 * recording (--record-trace) and its maps' sinks. */
	struct wm_sink **taps;
	uint32_t n_taps;
	/* Exactly-once outputs (worker.h): which of sinks[] (and late) are
	 * parts of this worker's own, and the epoch of the parts open. */
	struct wm_window_parts parts;
	/* A snapshot handed out and not written yet (snap_id 0: none), and
	 * its buffer, kept for the next one. */
	uint64_t snap_id;
	void *snap;
	size_t snap_len, snap_cap;
	int64_t snap_alignment_ns;
	/* /proc/self/schedstat, kept open: the kernel's count of the time
	 * this process waited for a CPU; -1 where there is none. Read
	 * before work, at most every WORKER_PUBLISH_NS (read_cpu_wait()). */
	int schedstat_fd;
	int64_t schedstat_read_ns; /* real time of the last reading */
	/* A source fed from outside: records may have arrived since the
	 * worker last read it (wake_source()). */
	_Atomic uint32_t woken;
	/* The exit status of the first failure (worker_fail()), 0 while
	 * there is none. Once set, nothing more is sent or written and the
	 * run loops return it: the supervisor stops the job. */
	int failed;
};

static int worker_fail(struct worker *w, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Report the worker's first failure, one line on stderr, and keep its exit
 * status; later failures (of a job already failing) are not reported. */
static int
worker_fail(struct worker *w, int status, const char *fmt, ...)
{
	char prefix[160];
	va_list ap;

	if (w->failed != 0)
		return w->failed;
	w->failed = status;
	snprintf(prefix, sizeof(prefix),
		 "wmrun[%s/%u]: error: ", w->stage->name, w->me->index);
	va_start(ap, fmt);
	wm_vlog(prefix, fmt, ap);
	va_end(ap);
	return status;
}

/* "stage/index" of subtask `id`, for messages. */
static const char *
name_of(const struct worker *w, uint32_t id, char *buf, size_t len)
{
	return wm_plan_subtask_name(w->args->plan, w->args->topo, id, buf, len);
}

/* Processing time at the monotonic clock's `real_ns`: ns since the job
 * started, at the job's speed. */
static int64_t
processing_at(const struct worker *w, int64_t real_ns)
{
	return wm_scale_ns(real_ns - w->start_ns, w->speed);
}

static int64_t
processing_now(const struct worker *w)
{
	return processing_at(w, wm_monotonic_ns());
}

/* A wait of kind `kind` begins (runtime/metrics/time_split.h); returns the
 * processing time it began at. */
static int64_t
wait_begins(struct worker *w, enum wm_time_kind kind)
{
	int64_t real = wm_monotonic_ns();

	wm_time_split_begin(&w->metrics->time, kind, real);
	return processing_at(w, real);
}

/* The wait that began last ends; returns the processing time it ended. */
static int64_t
wait_ends(struct worker *w)
{
	int64_t real = wm_monotonic_ns();

	wm_time_split_end(&w->metrics->time, real);
	return processing_at(w, real);
}

/*
 * Push as much of output `o`'s staged run as its ring has room for, as
 * one run in place; the consumer learns of it as of any push (ring.h,
 * wm_ring_commit()). True if nothing is left staged. Never waits.
 */
static inline bool
output_push(struct output *o)
{
	uint32_t left = o->staged - o->pushed;
	struct wm_ring_span s;

	if (left == 0)
		return true;
	s = wm_ring_reserve(&o->ring, left);
	for (uint32_t i = 0; i < s.n; i++) {
		const struct wm_frame *f = &o->run[o->pushed + i];

		wm_ring_put(&s, i, f->arg, f->payload[0], f->payload[1],
			    f->payload[2]);
	}
	wm_ring_commit(&o->ring, s.n);
	if (s.n < left) {
		o->pushed += s.n;
		return false;
	}
	o->staged = o->pushed = 0;
	return true;
}

/* Push what every output staged, ring every consumer of this worker,
 * fenced, and hand every producer its space: what must happen before this
 * process sleeps (wait.h). Records that find a ring full stay staged for
 * the flush that waits for room: that ring's consumer has work. */
static void
before_sleep(void *arg)
{
	struct worker *w = arg;

	for (uint32_t i = 0; i < w->n_outputs; i++) {
		(void)output_push(&w->outputs[i]);
		wm_ring_flush(&w->outputs[i].ring);
	}
	if (w->has_gate)
		wm_gate_release(&w->gate);
}

static bool
has_space(void *arg)
{
	return wm_ring_free(arg, 1) > 0;
}

/*
 * Wait for room in the full ring of output `o`: nothing is dropped. A
 * source stops its idleness clock meanwhile (task.h), and the clock is
 * read again after. False, the worker failed, if the wait did.
 */
static bool
wait_for_room(struct worker *w, struct output *o)
{
	int r;

	wm_task_backpressure(w->task, true,
			     wait_begins(w, WM_TIME_BACKPRESSURED));
	r = wm_wait(&w->space, has_space, &o->ring, -1);
	int64_t ended = wait_ends(w);

	if (r != 0) {
		uint32_t consumer =
			w->args->plan->channels[o->channel].consumer;
		char name[128];

		worker_fail(w, EX_OSERR,
			    "could not wait for room in the ring to \"%s\": %s",
			    name_of(w, consumer, name, sizeof(name)),
			    strerror(-r));
		return false;
	}
	wm_task_backpressure(w->task, false, ended);
	w->clock_stale = true;
	return true;
}

/* Push output `o`'s whole staged run, waiting for room as often as its
 * ring is full; false if the worker failed meanwhile. */
static bool
output_flush(struct worker *w, struct output *o)
{
	while (!output_push(o))
		if (!wait_for_room(w, o))
			return false;
	return true;
}

/* Every output's staged run, whole: the "burst" point. */
static bool
flush_all(struct worker *w)
{
	for (uint32_t i = 0; i < w->n_outputs && w->failed == 0; i++)
		if (!output_flush(w, &w->outputs[i]))
			return false;
	return w->failed == 0;
}

/* The output of channel `channel` of `edge`, or NULL once the worker
 * failed: the job is stopping, and nothing more goes out. */
static inline struct output *
output_of(struct worker *w, uint32_t edge, uint32_t channel)
{
	return w->failed == 0 ? &w->outputs[w->edge_first[edge] + channel]
			      : NULL;
}

static void
worker_record(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	      const struct wm_record *r)
{
	struct worker *w = wm_container_of(out, struct worker, out);
	struct output *o = output_of(w, edge, channel);

	if (o == NULL || (o->staged == WORKER_RUN && !output_flush(w, o)))
		return;
	/* Staged as the words its cell will hold (runtime/engine/codec.h). */
	wm_codec_record_frame(r, &o->run[o->staged++]);
}

/* A run the task staged (task.h): its records staged one after another,
 * as worker_record() stages each, pushed whenever the staging fills. */
static void
worker_records(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	       const struct wm_record *r, uint32_t n)
{
	struct worker *w = wm_container_of(out, struct worker, out);
	struct output *o = output_of(w, edge, channel);

	if (o == NULL)
		return;
	while (n > 0) {
		uint32_t k;

		if (o->staged == WORKER_RUN && !output_flush(w, o))
			return;
		/* As many as the staging has room for, with no check each. */
		k = WORKER_RUN - o->staged < n ? WORKER_RUN - o->staged : n;
		for (uint32_t i = 0; i < k; i++)
			wm_codec_record_frame(&r[i], &o->run[o->staged + i]);
		o->staged += k;
		r += k;
		n -= k;
	}
}

static void
worker_frame(struct wm_task_out *out, uint32_t edge, uint32_t channel,
	     const struct wm_frame *f)
{
	struct worker *w = wm_container_of(out, struct worker, out);
	struct output *o = output_of(w, edge, channel);

	/* The records staged before it go first. */
	if (o == NULL || !output_flush(w, o))
		return;
	while (!wm_ring_try_push(&o->ring, f->kind, f->arg, f->payload[0],
				 f->payload[1], f->payload[2]))
		if (!wait_for_room(w, o))
			return;
	/* Control frames are rare and matter: announce them at once. */
	wm_ring_nudge(&o->ring);
}

/* An output that could not be written stops the job (exit 74): the first
 * failure is the one to name. */
static void
output_failed(struct worker *w, const struct wm_sink *s)
{
	char why[4400];

	worker_fail(w, EX_IOERR, "%s", wm_sink_error(s, why, sizeof(why)));
}

static void
worker_result(struct wm_task_out *out, const struct wm_window_result *r,
	      wm_ts_t watermark, int64_t fire_time_ms)
{
	struct worker *w = wm_container_of(out, struct worker, out);

	for (uint32_t i = 0; i < w->n_sinks && w->failed == 0; i++)
		if (wm_sink_result(w->sinks[i], r, watermark, fire_time_ms,
				   w->me->index) != 0)
			output_failed(w, w->sinks[i]);
}

static void
worker_pair(struct wm_task_out *out, const struct wm_join_result *r,
	    wm_ts_t watermark, int64_t fire_time_ms)
{
	struct worker *w = wm_container_of(out, struct worker, out);

	for (uint32_t i = 0; i < w->n_sinks && w->failed == 0; i++)
		if (wm_sink_pair(w->sinks[i], r, watermark, fire_time_ms,
				 w->me->index) != 0)
			output_failed(w, w->sinks[i]);
}

static void
worker_late(struct wm_task_out *out, unsigned k, const struct wm_record *r)
{
	struct worker *w = wm_container_of(out, struct worker, out);

	if (w->late[k] != NULL && w->failed == 0 &&
	    wm_sink_late(w->late[k], r) != 0)
		output_failed(w, w->late[k]);
}

/* The parts of this window's file outputs, from the epoch after the
 * checkpoint it starts from. */
static int
open_parts(struct worker *w)
{
	char why[4400];

	if (wm_window_parts_open(&w->parts, w->args->first_epoch,
				 w->args->traces, w->args->keys, why,
				 sizeof(why)) != 0)
		return worker_fail(w, EX_IOERR, "%s", why);
	return 0;
}

/* Seal the parts open and go on into those of epoch `next` (0: none, the
 * last). The supervisor learns of them from the disk
 * (wm_exactly_once_found_sealed()). */
static int
seal_parts(struct worker *w, uint64_t next)
{
	char why[4400];

	if (w->failed == 0 && wm_window_parts_seal(&w->parts, next, NULL, NULL,
						   why, sizeof(why)) != 0)
		return worker_fail(w, EX_IOERR, "%s", why);
	return w->failed;
}

static void
close_parts(struct worker *w)
{
	wm_window_parts_close(&w->parts, w->failed != 0);
}

/*
 * The task's snapshot for checkpoint `id`, handed out when it aligned (or,
 * a source, was triggered), before it forwards the barrier: the parts are
 * sealed now, since nothing after the barrier may go into them, and the
 * bytes kept for write_snapshot(), which runs once the call that aligned
 * returns, the barrier already on its way. So the tasks downstream align
 * while this one writes: their fsyncs overlap instead of following each
 * other down the pipeline.
 */
static void
worker_snapshot(struct wm_task_out *out, int64_t id, const void *bytes,
		size_t len)
{
	struct worker *w = wm_container_of(out, struct worker, out);
	void *copy;

	/* Given up meanwhile: its directory is gone, nobody waits for it. */
	if ((uint64_t)id <= wm_shm_checkpoint_aborted(&w->seg) ||
	    w->failed != 0)
		return;
	/* The parts first: the acknowledgement says they are sealed. */
	if (seal_parts(w, (uint64_t)id + 1) != 0)
		return;
	copy = len > w->snap_cap ? realloc(w->snap, len) : w->snap;
	if (copy == NULL && len > 0) {
		worker_fail(w, EX_OSERR, "out of memory for checkpoint %lld",
			    (long long)id);
		return;
	}
	if (len > w->snap_cap) {
		w->snap = copy;
		w->snap_cap = len;
	}
	memcpy(w->snap, bytes, len);
	w->snap_len = len;
	w->snap_id = (uint64_t)id;
	w->snap_alignment_ns = wm_task_last_alignment_ns(w->task);
}

/*
 * The snapshot kept by worker_snapshot(), if any: written into the
 * checkpoint's directory by this process, then acknowledged (K1,
 * metrics.h) and the supervisor woken. A blob that cannot be written (a
 * full disk) is a warning and a failed acknowledgement: the checkpoint
 * fails, the job goes on.
 */
static void
write_snapshot(struct worker *w)
{
	struct wm_checkpoint_ack *ack = &w->metrics->checkpoint;
	uint64_t id = w->snap_id;
	uint32_t crc = 0;
	char why[512];
	int r;

	if (id == 0)
		return;
	w->snap_id = 0;
	if (id <= wm_shm_checkpoint_aborted(&w->seg) || w->failed != 0)
		return;
	r = wm_checkpoint_blob_write(w->args->topo->job.checkpoint_dir, id,
				     w->args->subtask, w->snap, w->snap_len,
				     &crc, why, sizeof(why));
	if (r != 0)
		wm_log("wmrun[%s/%u]: warning: checkpoint %llu: %s",
		       w->stage->name, w->me->index, (unsigned long long)id,
		       why);
	WM_METRIC_SET(ack->bytes, (uint64_t)w->snap_len);
	WM_METRIC_SET(ack->crc, crc);
	WM_METRIC_SET(ack->alignment_ns, w->snap_alignment_ns);
	WM_METRIC_SET(ack->failed, r != 0);
	/* K1 (metrics.h): what it acknowledges, then the id. */
	atomic_store_explicit(&ack->id, id, memory_order_release);
	kill(getppid(), SIGUSR1);
}

/* Write what the window gathered for its outputs: when it has nothing else
 * to do, and at the end. */
static int
flush_outputs(struct worker *w)
{
	for (uint32_t i = 0; i < w->n_sinks && w->failed == 0; i++)
		if (wm_sink_flush(w->sinks[i]) != 0)
			output_failed(w, w->sinks[i]);
	for (unsigned k = 0; k < WM_STAGE_LATE_OUTPUTS; k++)
		if (w->late[k] != NULL && w->failed == 0 &&
		    wm_sink_flush(w->late[k]) != 0)
			output_failed(w, w->late[k]);
	for (uint32_t i = 0; i < w->n_taps && w->failed == 0; i++)
		if (wm_sink_flush(w->taps[i]) != 0)
			output_failed(w, w->taps[i]);
	return w->failed;
}

/* The sinks chained to this worker's window stage (the plan's), and its
 * late output. */
static void
find_outputs(struct worker *w)
{
	wm_window_parts_init(&w->parts, w->args->topo, w->me, w->args->run);
	for (uint32_t i = 0; i < w->me->n_sinks; i++)
		if (w->args->sinks[w->me->sinks[i]] != NULL) {
			wm_window_parts_add(&w->parts, &w->sinks[w->n_sinks],
					    w->me->sinks[i], -1,
					    w->args->output_of);
			w->sinks[w->n_sinks++] =
				w->args->sinks[w->me->sinks[i]];
		}
	for (unsigned k = 0; k < WM_STAGE_LATE_OUTPUTS; k++) {
		w->late[k] =
			w->args->lates[wm_late_sink_index(w->me->stage, k)];
		if (w->late[k] != NULL)
			wm_window_parts_add(&w->parts, &w->late[k],
					    w->me->stage, (int)k,
					    w->args->output_of);
	}
}

/*
 * The task's figures as of `now` to its block in the segment, for the
 * supervisor: when it is about to sleep (`idle`), and while busy at most
 * every WORKER_PUBLISH_NS of real time. Publishing copies every figure,
 * per partition too, which a busy source would otherwise pay every burst.
 */
#define WORKER_PUBLISH_NS 1000000

/* The time this process waited for a CPU (runnable, not running), to the
 * task: the second of the three figures in /proc/self/schedstat, in ns,
 * read at most every WORKER_PUBLISH_NS of real time (a pread, a few
 * microseconds). On a loaded machine a worker can go tens of milliseconds
 * unscheduled, and its watermark stalls for it; the summary then says so
 * (task.h). */
static void
read_cpu_wait(struct worker *w)
{
	int64_t real = wm_monotonic_ns(), waited;

	if (w->schedstat_fd < 0 ||
	    real - w->schedstat_read_ns < WORKER_PUBLISH_NS)
		return;
	w->schedstat_read_ns = real;
	if (wm_schedstat_read(w->schedstat_fd, &waited))
		wm_task_cpu_wait(w->task, waited);
}

static void
publish_metrics(struct worker *w, int64_t now, bool idle)
{
	if (!idle && now - w->published_ns < w->publish_every_ns)
		return;
	wm_task_publish(w->task, now);
	w->published_ns = now;
}

/*
 * The segment is the plan's: as many subtasks, the same channels between
 * the same subtasks. wm_shm_attach() checked the layout and the rings'
 * bounds (attach() checks the headers of the rings it uses); this checks
 * that every index the worker is about to use names what the plan says,
 * rather than trusting a header it did not make.
 */
static int
attach_matches_plan(struct worker *w)
{
	const struct wm_shm_header *h = wm_shm_header(&w->seg);
	const struct wm_plan *plan = w->args->plan;

	if (h->n_subtasks != plan->n_subtasks ||
	    h->n_channels != plan->n_channels) {
		worker_fail(w, EX_SOFTWARE,
			    "the shared segment has %u subtasks and %u "
			    "channels, the plan %u and %u",
			    h->n_subtasks, h->n_channels, plan->n_subtasks,
			    plan->n_channels);
		return -EBADMSG;
	}
	/* The plan lays the metrics area out (plan.h): the segment's must
	 * have its blocks' stride and room for its partitions. */
	if (h->metrics_stride != plan->metrics_stride ||
	    h->metrics_bytes < plan->metrics_bytes) {
		worker_fail(w, EX_SOFTWARE,
			    "the shared segment's metrics area has blocks of "
			    "%" PRIu64 " bytes in %" PRIu64
			    ", the plan's %zu in %zu",
			    h->metrics_stride, h->metrics_bytes,
			    plan->metrics_stride, plan->metrics_bytes);
		return -EBADMSG;
	}
	for (uint32_t c = 0; c < plan->n_channels; c++) {
		const struct wm_shm_channel *ch = wm_shm_channel(&w->seg, c);

		if (ch->producer != plan->channels[c].producer ||
		    ch->consumer != plan->channels[c].consumer) {
			worker_fail(w, EX_SOFTWARE,
				    "channel %u of the shared segment goes "
				    "from subtask %u to %u, the plan's from "
				    "%u to %u",
				    c, ch->producer, ch->consumer,
				    plan->channels[c].producer,
				    plan->channels[c].consumer);
			return -EBADMSG;
		}
	}
	return 0;
}

/* The ring of channel `ch`, checked before its first use (shm.h: a worker
 * touches only its own rings); NULL after a message. */
static struct wm_ring *
own_ring(struct worker *w, uint32_t ch)
{
	char err[256];

	if (wm_shm_ring_check(&w->seg, ch, err, sizeof(err)) != 0) {
		worker_fail(w, EX_OSERR, "%s", err);
		return NULL;
	}
	return wm_shm_ring(&w->seg, ch);
}

/* What ends a wait for input besides input: a checkpoint given up. */
static bool
abort_requested(void *arg)
{
	const struct worker *w = arg;

	return wm_shm_checkpoint_aborted(&w->seg) > w->abort_seen;
}

static int
attach(struct worker *w)
{
	const struct wm_worker_args *a = w->args;
	const struct wm_plan *plan = a->plan;
	char err[256];
	uint32_t k = 0;

	if (wm_shm_attach(a->shm_fd, &w->seg, err, sizeof(err)) != 0)
		return worker_fail(w, EX_OSERR, "%s", err);
	if (attach_matches_plan(w) != 0)
		return EX_SOFTWARE;
	w->metrics = wm_plan_block(a->plan, wm_shm_metrics_area(&w->seg),
				   a->subtask);
	WM_METRIC_SET(w->metrics->pid, (int32_t)getpid());
	for (uint32_t e = 0; e < w->me->n_edges; e++)
		w->n_outputs += w->me->edges[e].width;
	w->outputs =
		calloc(w->n_outputs ? w->n_outputs : 1, sizeof(*w->outputs));
	w->edge_first = calloc(w->me->n_edges ? w->me->n_edges : 1,
			       sizeof(*w->edge_first));
	if (w->outputs == NULL || w->edge_first == NULL)
		return EX_OSERR;
	for (uint32_t e = 0; e < w->me->n_edges; e++) {
		w->edge_first[e] = k;
		for (uint32_t c = 0; c < w->me->edges[e].width; c++, k++) {
			uint32_t ch = w->me->edges[e].channels[c];
			struct wm_ring *ring = own_ring(w, ch);

			if (ring == NULL)
				return EX_OSERR;
			w->outputs[k].channel = ch;
			wm_ring_producer_attach(
				&w->outputs[k].ring, ring,
				wm_shm_doorbell(&w->seg,
						plan->channels[ch].consumer));
		}
	}
	if (w->me->n_inputs > 0) {
		w->inputs = calloc(w->me->n_inputs, sizeof(*w->inputs));
		if (w->inputs == NULL ||
		    wm_gate_init(&w->gate, w->inputs, w->me->n_inputs,
				 wm_shm_doorbell(&w->seg, a->subtask),
				 a->wait) != 0)
			return EX_OSERR;
		w->has_gate = true;
		for (uint32_t i = 0; i < w->me->n_inputs; i++) {
			uint32_t ch = w->me->inputs[i];
			struct wm_ring *ring = own_ring(w, ch);

			if (ring == NULL)
				return EX_OSERR;
			wm_gate_attach(
				&w->gate, i, ring,
				wm_shm_doorbell(&w->seg,
						plan->channels[ch].producer));
		}
		w->gate.waiter.before_sleep = before_sleep;
		w->gate.waiter.before_sleep_arg = w;
		if (a->topo->job.checkpoint_interval_ms != INT64_MAX) {
			w->blocked =
				calloc(w->me->n_inputs, sizeof(*w->blocked));
			if (w->blocked == NULL)
				return EX_OSERR;
			wm_gate_set_blocked(&w->gate, w->blocked);
			wm_gate_set_wake_also(&w->gate, abort_requested, w);
		}
	}
	wm_waiter_init(&w->space, wm_shm_doorbell(&w->seg, a->subtask),
		       a->wait);
	w->space.before_sleep = before_sleep;
	w->space.before_sleep_arg = w;
	return 0;
}

/* What ends a source's sleep early: a request to stop, or a checkpoint
 * to take (the supervisor rings its doorbell after setting either), or
 * records from outside (wake_source()). */
static bool
control_requested(void *arg)
{
	struct worker *w = arg;

	/* R2 pairs with R1 (wake_source()). */
	return atomic_load_explicit(&w->woken, memory_order_acquire) ||
	       wm_shm_stop_requested(&w->seg) ||
	       wm_shm_checkpoint_triggered(&w->seg) > w->checkpoint_seen;
}

/*
 * The wake a source fed from outside calls (operators/source_gen.h,
 * set_wake) from its own thread, librdkafka's, at any time and from any
 * number of threads at once: records may have arrived. The flag tells the
 * worker's wait, whose ready() is control_requested(), and the ring wakes
 * it if it sleeps. The doorbell protocol (ipc/wait.h) holds for a thread
 * of the same process as for another process: the ring's fence (W2)
 * orders the flag's store before its look at `sleeping`, the worker's W1
 * orders its store of `sleeping` before ready(), so either the worker
 * sees the flag and does not sleep or the ring sees it asleep and wakes
 * it; the exchange on `sleeping` makes concurrent rings cost one wake-up.
 * The store is a release (R1) and the worker's loads of the flag are
 * acquires (R2): what the thread did before the call (a message queued)
 * happens before the worker's next() that follows its seeing the flag.
 */
static void
wake_source(void *arg)
{
	struct worker *w = arg;

	atomic_store_explicit(&w->woken, 1, memory_order_release); /* R1 */
	wm_doorbell_ring(wm_shm_doorbell(&w->seg, w->args->subtask));
}

/* A source takes the newest checkpoint triggered, if it has not: its
 * position, then the barrier on every output (task.h). One that already
 * finished takes none (the coordinator triggers none after that). */
static int
take_checkpoint(struct worker *w, int64_t now)
{
	uint64_t id = wm_shm_checkpoint_triggered(&w->seg);
	int r;

	if (id <= w->checkpoint_seen)
		return 0;
	w->checkpoint_seen = id;
	if (wm_task_finished(w->task))
		return 0;
	r = wm_task_trigger_checkpoint(w->task, (int64_t)id, now);
	/* The barrier is on its way (worker_frame() pushes a frame at
	 * once): now the blob. */
	write_snapshot(w);
	if (r != 0)
		return worker_fail(w, wm_exit_status(WM_EXIT_INTERNAL, r),
				   "could not take checkpoint %llu: %s",
				   (unsigned long long)id, strerror(-r));
	return w->failed;
}

/* A source: generate on the clock, sleep until the next thing is due. */
static int
run_source(struct worker *w)
{
	struct wm_waiter idle;

	wm_waiter_init(&idle, wm_shm_doorbell(&w->seg, w->args->subtask),
		       WM_WAIT_FUTEX);
	idle.spin_ns = idle.spin_max_ns = 0;
	idle.before_sleep = before_sleep;
	idle.before_sleep_arg = w;
	(void)wm_task_source_set_wake(w->task, wake_source, w);
	for (;;) {
		int64_t now = processing_now(w);
		const struct wm_source_health *health;
		int64_t next;

		if (wm_shm_stop_requested(&w->seg)) {
			wm_task_stop_source(w->task);
			return w->failed;
		}
		if (take_checkpoint(w, now) != 0)
			return w->failed;
		/* Before the work, which may end a stall: one that a wait
		 * for a CPU caused must count that wait. */
		read_cpu_wait(w);
		/* Taken before next() reads: a wake from now on is for
		 * records this run may miss, and ends the next wait (R2). */
		(void)atomic_exchange_explicit(&w->woken, 0,
					       memory_order_acquire);
		next = wm_task_run_source(w->task, now);
		health = wm_task_source_health(w->task);
		if (health->exit_code != 0)
			return worker_fail(w, health->exit_code,
					   "the source cannot go on: %s",
					   health->why);
		/* A record a recording or a map's sink could not take
		 * stops the job at once, as a sink's result does (exit
		 * 74). */
		for (uint32_t i = 0; i < w->n_taps && w->failed == 0; i++)
			if (wm_sink_failed(w->taps[i]))
				output_failed(w, w->taps[i]);
		if (w->failed != 0)
			return w->failed;
		if (!flush_all(w)) /* the burst's records, whatever is next */
			return w->failed;
		publish_metrics(w, now, next > now);
		if (wm_task_finished(w->task))
			return 0;
		if (next <= now)
			continue;
		/* Nothing due: everything written so far goes out (the
		 * recording's lines too), then sleep (in real time) until the
		 * next record or tick. */
		if (flush_outputs(w) != 0)
			return w->failed;
		int64_t real_ns =
			next == INT64_MAX
				? -1 /* nothing ever due: sleep */
				: wm_scale_ns(next - now, 1 / w->speed);

		if (real_ns == 0)
			continue;
		wait_begins(w, WM_TIME_IDLE);
		int r = wm_wait(&idle, control_requested, w, real_ns);

		wait_ends(w);

		/* A wait that fails would return at once, every time: a
		 * core burnt in silence. */
		if (r != 0 && r != -ETIMEDOUT)
			return worker_fail(
				w, EX_OSERR,
				"could not wait for the next record: "
				"%s",
				strerror(-r));
	}
}

/* A restored window whose watermark came back to where it was at the
 * crash: when, for the summary's hold (metrics.h). */
static void
watch_catch_up(struct worker *w, int64_t now)
{
	const struct wm_window *win;

	if (w->catch_up_to == WM_TS_MIN)
		return;
	win = wm_task_window(w->task);
	if (win == NULL || wm_window_watermark(win) < w->catch_up_to)
		return;
	WM_METRIC_SET(w->metrics->caught_up_ns, now);
	w->catch_up_to = WM_TS_MIN;
}

/* A frame the task refused: a corrupt stream (a bug), or a window that
 * could not allocate the state of a record. */
static int
input_failed(struct worker *w, uint32_t ch, int r)
{
	const struct wm_plan_channel *pc =
		&w->args->plan->channels[w->me->inputs[ch]];
	int status = wm_exit_status(WM_EXIT_INTERNAL, r);
	char name[128];

	if (r == -ENOMEM)
		return worker_fail(w, status, "%s", wm_task_why(w->task));
	worker_fail(w, status,
		    "corrupt frame on channel %u from \"%s\" at position %llu",
		    ch, name_of(w, pc->producer, name, sizeof(name)),
		    (unsigned long long)w->inputs[ch].pos);
	wm_ring_dump(w->inputs[ch].ring, w->inputs[ch].pos, stderr);
	return w->failed;
}

/* The gate's flags as the task's alignment says (gate.h). */
static void
refresh_blocked(struct worker *w)
{
	for (uint32_t i = 0; w->blocked != NULL && i < w->me->n_inputs; i++)
		w->blocked[i] = wm_task_input_blocked(w->task, i);
}

/* The supervisor gave a checkpoint up (it timed out): if the task still
 * aligns it, its channels are read again (task.h). */
static void
take_abort(struct worker *w)
{
	uint64_t id = wm_shm_checkpoint_aborted(&w->seg);

	if (id <= w->abort_seen)
		return;
	w->abort_seen = id;
	wm_task_abort_checkpoint(w->task, (int64_t)id);
	refresh_blocked(w);
}

/* What the gate handed out, to the task: a run of records read in place,
 * consumed only once the task is done with it, or another frame. */
static inline int
input(struct worker *w, const struct wm_gate_take *t, int64_t now)
{
	int r;

	if (t->records == 0) {
		r = wm_task_input(w->task, t->channel, &t->frame, now);
		/* A barrier or an END may start or end an alignment: the
		 * gate leaves the channels that wait unread from the next
		 * take on. */
		if (t->frame.kind == WM_FRAME_BARRIER ||
		    t->frame.kind == WM_FRAME_END) {
			refresh_blocked(w);
			write_snapshot(w); /* the barrier went on first */
		}
		return r;
	}
	r = wm_task_input_records(w->task, t->channel, t->cells, t->records,
				  now);
	if (r == 0)
		wm_gate_consume(&w->gate, t);
	return r;
}

/* Any other task: frames in, frames out, sleep when the inputs are dry. */
static int
run_inputs(struct worker *w)
{
	for (;;) {
		/* One clock read per burst, not per frame (it costs about as
		 * much as handling a record): the frames of a burst were all
		 * waiting when it began, and are taken at that time, unless
		 * sending blocked on a full ring meanwhile (then from the
		 * next run or frame on). */
		int64_t now = processing_now(w);
		uint32_t n = 0;

		read_cpu_wait(w); /* before the burst, as a source does */
		if (w->blocked != NULL)
			take_abort(w);
		/* A processing-time window's timers due by now fire before the
		 * burst's frames, which come at now. */
		if (wm_task_timers_due(w->task) <= now)
			wm_task_run_timers(w->task, now);
		while (n < WORKER_BURST) {
			struct wm_gate_take t;
			int r = wm_gate_next(&w->gate, &t, WORKER_BURST - n);

			if (r == 0)
				break;
			if (w->clock_stale) {
				now = processing_now(w);
				w->clock_stale = false;
			}
			r = r > 0 ? input(w, &t, now) : -EBADMSG;
			if (r != 0)
				return input_failed(w, t.channel, r);
			if (w->failed != 0)
				return w->failed;
			n += t.records > 0 ? t.records : 1;
		}
		/* The burst's records go before anything else happens. */
		if (!flush_all(w))
			return w->failed;
		watch_catch_up(w, now);
		publish_metrics(w, now, n == 0);
		if (wm_task_finished(w->task))
			return 0;
		if (n == 0) {
			/* Idle: the results gathered go out before it sleeps,
			 * in one write per sink. */
			if (flush_outputs(w) != 0)
				return w->failed;
			/* Until input comes, or a processing-time window's
			 * next timer (in real time, at the job's speed). */
			int64_t due = wm_task_timers_due(w->task);
			int64_t real_ns =
				due == INT64_MAX
					? -1
					: wm_scale_ns(due - now, 1 / w->speed);

			if (due != INT64_MAX && real_ns <= 0)
				continue;
			wait_begins(w, WM_TIME_IDLE);
			int r = wm_gate_wait(&w->gate, real_ns);

			wait_ends(w);

			if (r != 0 && r != -ETIMEDOUT)
				return worker_fail(w, EX_OSERR,
						   "could not wait for input: "
						   "%s",
						   strerror(-r));
		} else {
			/* Busy: let the consumers see what this burst
			 * produced, and the producers what it freed,
			 * without paying a fence. */
			for (uint32_t i = 0; i < w->n_outputs; i++)
				wm_ring_nudge(&w->outputs[i].ring);
			wm_gate_nudge(&w->gate);
		}
	}
}

/*
 * The task takes its state from checkpoint args->restore_from, as the
 * supervisor found it complete: the blob is read through the store, which
 * checks it against the manifest again. 0, or a failure reported.
 */
static int
restore(struct worker *w)
{
	const struct wm_worker_args *a = w->args;
	struct wm_checkpoint_store_config cfg = {
		.dir = a->topo->job.checkpoint_dir,
		.fingerprint = wm_plan_fingerprint(a->plan, a->topo),
		/* With the exactly-once committer's blob and the
		 * dictionary's (checkpoint_cycle.h). */
		.subtasks = wm_checkpoint_cycle_blobs(
			a->plan, a->output_of != NULL, a->keys != NULL),
		.retained = a->topo->job.checkpoints_retained,
	};
	struct wm_checkpoint_store *store;
	char why[512];
	int r;

	if (a->restore_from == 0)
		return 0;
	r = wm_checkpoint_store_new(&store, &cfg, why, sizeof(why));
	if (r == 0) {
		r = wm_checkpoint_restore_task(store, a->restore_from,
					       a->subtask, w->task, why,
					       sizeof(why));
		wm_checkpoint_store_free(store);
	}
	if (r != 0) {
		/* For the supervisor, which falls back to the checkpoint
		 * before this one rather than restore it again (R1). */
		size_t n = strnlen(why, sizeof(w->metrics->restore_why) - 1);

		memcpy(w->metrics->restore_why, why, n);
		w->metrics->restore_why[n] = '\0';
		atomic_store_explicit(&w->metrics->restore_failed,
				      a->restore_from, memory_order_release);
		return worker_fail(w, EX_DATAERR,
				   "could not restore checkpoint %llu: %s",
				   (unsigned long long)a->restore_from, why);
	}
	return 0;
}

/* The subtask's task, made from its record source and aligned with the
 * sources of its group: 0, or the worker failed with why. */
static int
make_task(struct worker *w)
{
	const struct wm_worker_args *a = w->args;
	struct wm_sources_input in = {.trace = a->traces[w->me->stage],
				      .keys = a->keys,
				      .traces = a->traces};
	int r;

	if (w->stage->kind == WM_STAGE_SOURCE) {
		w->taps = calloc(a->topo->n_stages, sizeof(*w->taps));
		if (w->taps == NULL)
			return worker_fail(w, EX_OSERR,
					   "could not set up the subtask: %s",
					   strerror(ENOMEM));
		for (uint32_t d = 0; d < a->topo->n_stages; d++)
			if (a->sinks[d] != NULL &&
			    wm_sources_feeds(a->topo, w->me->stage, d))
				w->taps[w->n_taps++] = a->sinks[d];
	}
	w->task = wm_sources_new_task(
		a->topo, a->plan, a->subtask, &w->out,
		wm_shm_metrics_area(&w->seg), &in,
		w->stage->kind == WM_STAGE_SOURCE ? a->sinks : NULL);
	if (w->task == NULL) {
		/* The traces were read and checked before the fork: what is
		 * left to fail is the outside world (a Kafka source's
		 * brokers), or the machine's. */
		if (in.exit_code != 0)
			return worker_fail(w, in.exit_code, "%s", in.why);
		return worker_fail(w, EX_OSERR,
				   "could not set up the subtask: %s",
				   strerror(errno));
	}
	r = wm_task_align(w->task, wm_shm_metrics_area(&w->seg));
	if (r != 0) {
		wm_task_free(w->task);
		w->task = NULL;
		return worker_fail(w, EX_OSERR,
				   "could not set up the subtask: %s",
				   strerror(-r));
	}
	/* Real processes on a real scheduler: stalls that only their
	 * lateness made are no findings (progress.h). */
	wm_task_count_noise(w->task, w->speed);
	return 0;
}

/* Every subtask set up: processing time starts now, for all. A restarted
 * job's goes on from its first attempt's start (the records due while it
 * was down come at once, as in Flink, whose sources read from the
 * checkpointed offsets on the wall clock), a resumed job's from its
 * checkpoint's. 0, or the worker failed with why. */
static int
pass_start_line(struct worker *w)
{
	const struct wm_worker_args *a = w->args;
	int r = wm_shm_start_line(&w->seg, a->subtask, a->wait, &w->start_ns);

	if (r != 0)
		return worker_fail(w, EX_OSERR,
				   "could not wait for the start: %s",
				   strerror(-r));
	if (a->job_start_ns != 0) {
		w->start_ns = a->job_start_ns;
		wm_task_restarted_at(w->task, processing_now(w));
	} else if (a->resumed_at_ns != 0) {
		w->start_ns -= wm_scale_ns(a->resumed_at_ns, 1 / w->speed);
		wm_task_restarted_at(w->task, processing_now(w));
	}
	/* Processing time 0 on the wall clock: the first attempt's start
	 * (a resumed job's as if it had run from 0), for a Kafka job's
	 * event-time clock. */
	wm_task_set_clock_zero(
		w->task, wm_sources_clock_zero_ms(a->topo, a->traces,
						  wm_wall_ms_at(w->start_ns)));
	return 0;
}

int
wm_worker_run(const struct wm_worker_args *a)
{
	struct worker w = {.args = a};
	int status;

	w.me = &a->plan->subtasks[a->subtask];
	w.stage = &a->topo->stages[w.me->stage];
	w.speed = a->topo->job.speed;
	w.publish_every_ns = wm_scale_ns(WORKER_PUBLISH_NS, w.speed);
	w.out.frame = worker_frame;
	w.out.record = worker_record;
	w.out.records = worker_records;
	w.out.result = worker_result;
	w.out.pair = worker_pair;
	w.out.late = worker_late;
	if (a->topo->job.checkpoint_interval_ms != INT64_MAX)
		w.out.snapshot = worker_snapshot;
	w.checkpoint_seen = a->restore_from;
	w.catch_up_to = a->crash_watermark;
	find_outputs(&w);
	w.schedstat_fd = wm_schedstat_open(0);
	status = attach(&w);
	if (status == 0)
		status = make_task(&w);
	if (status == 0 && w.args->output_of != NULL)
		status = open_parts(&w);
	if (status == 0) {
		/* -1 while a restored window has a watermark to come back
		 * to, 0 when it has none (or is no window). */
		WM_METRIC_SET(w.metrics->caught_up_ns,
			      w.catch_up_to != WM_TS_MIN &&
					      wm_task_window(w.task) != NULL
				      ? -1
				      : 0);
		status = restore(&w);
	}
	if (status == 0)
		status = pass_start_line(&w);
	if (status == 0)
		status = w.has_gate ? run_inputs(&w) : run_source(&w);
	if (status == 0)
		status = flush_outputs(&w);
	/* The last parts, sealed once the task finished: the supervisor
	 * commits them when every worker ended well (part_commit.h). */
	if (status == 0)
		status = seal_parts(&w, 0);
	close_parts(&w);
	if (status == 0)
		before_sleep(&w); /* the last frames, announced */
	/* The figures as they end, a failed worker's too: the summary of a
	 * job that failed says what was done until then. */
	if (w.start_ns != 0)
		publish_metrics(&w, processing_now(&w), true);
	if (status == 0)
		atomic_store_explicit(&w.metrics->finished, 1,
				      memory_order_release);
	wm_task_free(w.task);
	free(w.taps);
	free(w.blocked);
	free(w.snap);
	if (w.schedstat_fd >= 0)
		close(w.schedstat_fd);
	return status;
}
