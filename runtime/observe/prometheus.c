/*
 * prometheus.c
 *	The exposition text of a snapshot (prometheus.h).
 *
 * Ids. Flink draws its ids at random (a job, a vertex, an attempt); wmrun
 * has no cluster to ask, so they are hashes of names, 32 hexadecimal
 * digits like Flink's: job_id of the job's name, task_id (Flink's
 * JobVertexID) of job_id and the stage's name, operator_id equal to task_id
 * (Flink derives a chain's vertex id from its head operator's, and every
 * wmrun task has one operator: a sink is chained to its window and shows
 * as its window), and task_attempt_id as Flink prints an
 * ExecutionAttemptID: graph id, vertex id, subtask index and attempt
 * number joined by '_'. Attempts are numbered from 0 and wmrun makes one.
 * task_name and operator_name are the stage's name. Every series of one
 * job is thus the same in every run; host and tm_id tell runs apart.
 *
 * The exposition groups each metric's samples under its one HELP and
 * TYPE, so the text goes metric by metric, subtask by subtask: a table
 * below lists the metrics, each with what reads it from a subtask, a
 * partition or a channel.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"
#include "runtime/observe/prometheus.h"

/* A label value the filter leaves never needs escaping, and no value of
 * ours is longer than this. */
#define LABEL_MAX 256

/* The label sets of one subtask: its task group's and its operator's. */
struct subtask_labels {
	char *task;	 /* host="...",...,task_attempt_num="0" */
	char *op;	 /* task's, then operator_id, operator_name */
	char *task_name; /* filtered, as in `task` */
};

struct wm_prometheus {
	const struct wm_topology *topo;
	const struct wm_plan *plan;
	char *job; /* host, job_id, job_name: a JobManager job's */
	struct subtask_labels *labels; /* by plan id */
};

const char *
wm_prometheus_label_value(const char *in, char *buf, size_t len)
{
	size_t i = 0;

	if (len == 0)
		return buf;
	for (; in[i] != '\0' && i + 1 < len; i++) {
		char c = in[i];
		bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9') || c == ':' || c == '_';

		buf[i] = keep ? c : '_';
	}
	buf[i] = '\0';
	return buf;
}

/* 128 bits of `a` and `b` as 32 hex digits: each byte mixed into two
 * differently seeded 64-bit states (stable for good: the ids are what
 * dashboards have stored). */
static void
hex_id(const char *a, const char *b, char out[33])
{
	uint64_t h[2] = {0x77d2756e20696473ULL, 0x666c696e6b20696eULL};

	for (int k = 0; k < 2; k++) {
		const char *parts[2] = {a, b};

		for (int p = 0; p < 2; p++) {
			for (const char *s = parts[p]; *s; s++)
				h[k] = wm_hash_mix64(
					h[k] ^ wm_hash_fibonacci(
						       (unsigned char)*s + 1));
			/* a part ends: "ab"+"c" is not "a"+"bc" */
			h[k] = wm_hash_mix64(h[k] + (uint64_t)p + 1);
		}
	}
	snprintf(out, 33, "%016" PRIx64 "%016" PRIx64, h[0], h[1]);
}

/* Appends `s` to buf[*n .. len), truncating. */
static void
append(char *buf, size_t len, size_t *n, const char *s)
{
	int k = snprintf(buf + *n, len - *n, "%s", s);

	if (k > 0)
		*n += (size_t)k < len - *n ? (size_t)k : len - *n - 1;
}

/*
 * The names Flink gives the exported job's task and head operator of
 * subtask `sub` (runtime/export/flink_job.c builds that job): a source
 * operator is "Source: NAME", chained to "Timestamps/Watermarks" when its
 * watermarks are per subtask; a window's task is the chain of the window
 * and what is chained to it, named as Flink's StreamingJobGraphGenerator
 * names a chain ("W -> X" for one chained output, "W -> (X, Y)" for more,
 * in the order the job adds them): the late side output's map and sink
 * ("Map -> W late: Writer") first, then each sink's writer, after the map
 * that drops the subtask column unless the sink keeps it ("Map -> S:
 * Writer", "S: Writer").
 */
static void
flink_names(const struct wm_topology *topo, const struct wm_plan_subtask *sub,
	    char *task, char *op, size_t len)
{
	const struct wm_stage *st = &topo->stages[sub->stage];
	bool late = st->kind == WM_STAGE_WINDOW && st->u.window.late_output;
	uint32_t outputs = sub->n_sinks + late;
	size_t n = 0;

	if (st->kind == WM_STAGE_SOURCE) {
		snprintf(op, len, "Source: %s", st->name);
		append(task, len, &n, op);
		if (st->u.source.watermark_per_subtask)
			append(task, len, &n, " -> Timestamps/Watermarks");
		return;
	}
	snprintf(op, len, "%s", st->name);
	append(task, len, &n, st->name);
	if (outputs == 0)
		return;
	append(task, len, &n, outputs > 1 ? " -> (" : " -> ");
	if (late) {
		append(task, len, &n, "Map -> ");
		append(task, len, &n, st->name);
		append(task, len, &n, " late: Writer");
	}
	for (uint32_t k = 0; k < sub->n_sinks; k++) {
		const struct wm_stage *sink = &topo->stages[sub->sinks[k]];

		if (late || k > 0)
			append(task, len, &n, ", ");
		/* The export drops the window's subtask column in a map before
		 * a sink that did not ask for it. */
		if (!sink->u.sink.subtask_column)
			append(task, len, &n, "Map -> ");
		append(task, len, &n, sink->name);
		append(task, len, &n, ": Writer");
	}
	if (outputs > 1)
		append(task, len, &n, ")");
}

/* The labels of subtask `id`, allocated; false without memory. */
static bool
make_labels(struct subtask_labels *l, const struct wm_topology *topo,
	    const struct wm_plan *plan, uint32_t id,
	    const struct wm_prometheus_ids *ids)
{
	const struct wm_plan_subtask *sub = &plan->subtasks[id];
	const char *job = topo->job.name != NULL ? topo->job.name : "";
	const char *stage = topo->stages[sub->stage].name;
	char host[LABEL_MAX], tm[LABEL_MAX], job_name[LABEL_MAX];
	char task_raw[LABEL_MAX], op_raw[LABEL_MAX];
	char task_name[LABEL_MAX], op_name[LABEL_MAX];
	char job_id[33], task_id[33], graph_id[33];

	hex_id("job", job, job_id);
	hex_id(job_id, stage, task_id);
	hex_id(job_id, "execution graph", graph_id);
	wm_prometheus_label_value(ids->host, host, sizeof(host));
	wm_prometheus_label_value(ids->tm_id, tm, sizeof(tm));
	wm_prometheus_label_value(job, job_name, sizeof(job_name));
	flink_names(topo, sub, task_raw, op_raw, sizeof(task_raw));
	wm_prometheus_label_value(task_raw, task_name, sizeof(task_name));
	wm_prometheus_label_value(op_raw, op_name, sizeof(op_name));
	l->task_name = strdup(task_name);
	if (l->task_name == NULL)
		return false;
	if (asprintf(&l->task,
		     "host=\"%s\",tm_id=\"%s\",job_id=\"%s\",job_name=\"%s\","
		     "task_id=\"%s\",task_attempt_id=\"%s_%s_%u_0\","
		     "task_name=\"%s\",subtask_index=\"%u\","
		     "task_attempt_num=\"0\"",
		     host, tm, job_id, job_name, task_id, graph_id, task_id,
		     sub->index, task_name, sub->index) < 0) {
		l->task = NULL;
		return false;
	}
	if (asprintf(&l->op, "%s,operator_id=\"%s\",operator_name=\"%s\"",
		     l->task, task_id, op_name) < 0) {
		l->op = NULL;
		return false;
	}
	return true;
}

/* The labels of the job's JobManager series (host, job_id, job_name, as
 * Flink's job scope has them) into p->job; false without memory. */
static bool
make_job_labels(struct wm_prometheus *p, const struct wm_topology *topo,
		const struct wm_prometheus_ids *ids)
{
	const char *job = topo->job.name != NULL ? topo->job.name : "";
	char host[LABEL_MAX], job_name[LABEL_MAX], job_id[33];

	hex_id("job", job, job_id);
	wm_prometheus_label_value(ids->host, host, sizeof(host));
	wm_prometheus_label_value(job, job_name, sizeof(job_name));
	if (asprintf(&p->job, "host=\"%s\",job_id=\"%s\",job_name=\"%s\"", host,
		     job_id, job_name) < 0) {
		p->job = NULL;
		return false;
	}
	return true;
}

struct wm_prometheus *
wm_prometheus_new(const struct wm_topology *topo, const struct wm_plan *plan,
		  const struct wm_prometheus_ids *ids)
{
	struct wm_prometheus *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return NULL;
	p->topo = topo;
	p->plan = plan;
	p->labels = calloc(plan->n_subtasks ? plan->n_subtasks : 1,
			   sizeof(*p->labels));
	if (p->labels == NULL || !make_job_labels(p, topo, ids)) {
		wm_prometheus_free(p);
		errno = ENOMEM;
		return NULL;
	}
	for (uint32_t id = 0; id < plan->n_subtasks; id++)
		if (!make_labels(&p->labels[id], topo, plan, id, ids)) {
			wm_prometheus_free(p);
			errno = ENOMEM;
			return NULL;
		}
	return p;
}

void
wm_prometheus_free(struct wm_prometheus *p)
{
	if (p == NULL)
		return;
	for (uint32_t id = 0; p->labels != NULL && id < p->plan->n_subtasks;
	     id++) {
		free(p->labels[id].task);
		free(p->labels[id].op);
		free(p->labels[id].task_name);
	}
	free(p->labels);
	free(p->job);
	free(p);
}

/* One sample's value: absent (no sample), a whole number (printed
 * exactly: Long.MIN_VALUE stays itself), or a figure. */
struct value {
	enum { NONE, WHOLE, FIGURE } kind;
	int64_t whole;
	double figure;
};

static struct value
whole(int64_t v)
{
	return (struct value){.kind = WHOLE, .whole = v};
}

static struct value
figure(double v)
{
	return (struct value){.kind = FIGURE, .figure = v};
}

static const struct value none = {.kind = NONE};

/* A per-second figure of the time split: NaN when unknown. */
static struct value
time_share(double v)
{
	return v < 0 ? figure(NAN) : figure(v);
}

/* A rate: 0 until two snapshots give one, as Flink's meters. */
static struct value
rate(double v)
{
	return figure(v < 0 ? 0.0 : v);
}

/* What a metric reads from. */
struct at {
	const struct wm_prometheus *p;
	const struct wm_snapshot *snap;
	uint32_t id;
	const struct wm_snap_subtask *s;
	const struct wm_snap_partition *part; /* split metrics */
	uint32_t channel;		      /* channel metrics */
};

static bool
is_source(const struct at *a)
{
	return a->p->topo->stages[a->p->plan->subtasks[a->id].stage].kind ==
	       WM_STAGE_SOURCE;
}

/* ---- subtask figures, for the task and operator scopes ---- */

static struct value
records_in(const struct at *a)
{
	return whole((int64_t)a->s->records_in);
}

/* Flink counts a record an operator emits once, however many outputs
 * take it; wmrun's records_out counts it once per output edge (metrics.h),
 * and a window's once (its results and late records). */
static uint64_t
edge_copies(const struct at *a)
{
	const struct wm_plan_subtask *sub = &a->p->plan->subtasks[a->id];
	bool window = wm_stage_keyed(a->p->topo->stages[sub->stage].kind);

	return window || sub->n_edges == 0 ? 1 : sub->n_edges;
}

static struct value
records_out(const struct at *a)
{
	return whole((int64_t)(a->s->records_out / edge_copies(a)));
}

static struct value
records_in_rate(const struct at *a)
{
	return rate(a->s->records_in_per_s);
}

static struct value
records_out_rate(const struct at *a)
{
	double r = a->s->records_out_per_s;

	return rate(r < 0 ? r : r / (double)edge_copies(a));
}

/* At task scope Flink counts what a task sends to other tasks; a window's
 * results go to the sinks chained to it, and over a channel only to the
 * stages that read the window. */
static bool
sends_to_tasks(const struct at *a)
{
	return a->p->plan->subtasks[a->id].n_edges > 0;
}

static struct value
task_records_out(const struct at *a)
{
	return sends_to_tasks(a) ? records_out(a) : whole(0);
}

static struct value
task_records_out_rate(const struct at *a)
{
	return sends_to_tasks(a) ? records_out_rate(a) : rate(0);
}

static struct value
idle_time(const struct at *a)
{
	return time_share(a->s->idle_ms_per_s);
}

static struct value
busy_time(const struct at *a)
{
	return time_share(a->s->busy_ms_per_s);
}

static struct value
backpressured_time(const struct at *a)
{
	return time_share(a->s->backpressured_ms_per_s);
}

/* The minimum over the operator's input channels, and over each input of
 * a two-input operator (snapshot.h), as the timeline gives them. */
static struct value
input_watermark(const struct at *a)
{
	return is_source(a) ? none
			    : whole(wm_snapshot_input_watermark(
				      a->s, 0, a->s->n_channels));
}

static struct value
port_watermark(const struct at *a, uint32_t k)
{
	const struct wm_plan_subtask *sub = &a->p->plan->subtasks[a->id];

	if (sub->n_ports != 2)
		return none;
	return whole(wm_snapshot_input_watermark(a->s, sub->ports[k].first,
						 sub->ports[k].width));
}

static struct value
input1_watermark(const struct at *a)
{
	return port_watermark(a, 0);
}

static struct value
input2_watermark(const struct at *a)
{
	return port_watermark(a, 1);
}

static struct value
output_watermark(const struct at *a)
{
	return whole(a->s->watermark);
}

/* A source's time now (processing time: wmrun's clock of "now") less its
 * watermark, as Flink's source reader defines it; none before the first
 * watermark or after the last. */
static struct value
watermark_lag(const struct at *a)
{
	const struct wm_snap_subtask *s = a->s;

	int64_t lag;

	if (!is_source(a) || !wm_snap_watermark_lag(a->snap, s, &lag))
		return none;
	return whole(lag);
}

/* currentEmitEventTimeLag: its last record's emit time less its event
 * time, on the job's clock (sources.h). */
static struct value
emit_lag(const struct at *a)
{
	if (!is_source(a) || a->s->emit_lag_ms == INT64_MIN)
		return none;
	return whole(a->s->emit_lag_ms);
}

static struct value
late_dropped(const struct at *a)
{
	if (a->p->topo->stages[a->p->plan->subtasks[a->id].stage].kind !=
	    WM_STAGE_WINDOW)
		return none;
	return whole((int64_t)a->s->late_dropped);
}

/* ---- the job's (JobManager) ---- */

/* The restarts so far, as Flink counts them: every restore from a
 * failure, the first attempt not counted. */
static struct value
num_restarts(const struct at *a)
{
	return whole(a->snap->restarts);
}

/* The checkpoints, under the names of Flink's checkpoint statistics:
 * only for a job that takes them (Flink's too has none without). The
 * duration is processing time, trigger to durable manifest; the last
 * one's figures are -1 before the first completes, as Flink's. */
static struct value
if_checkpointing(const struct at *a, int64_t v)
{
	return a->snap->checkpointing ? whole(v) : none;
}

static struct value
checkpoints_total(const struct at *a)
{
	const struct wm_snap_checkpoints *c = &a->snap->checkpoints;

	return if_checkpointing(
		a, (int64_t)(c->completed + c->failed + c->in_progress));
}

static struct value
checkpoints_completed(const struct at *a)
{
	return if_checkpointing(a, (int64_t)a->snap->checkpoints.completed);
}

static struct value
checkpoints_failed(const struct at *a)
{
	return if_checkpointing(a, (int64_t)a->snap->checkpoints.failed);
}

static struct value
checkpoints_in_progress(const struct at *a)
{
	return if_checkpointing(a, a->snap->checkpoints.in_progress);
}

static struct value
last_checkpoint_duration(const struct at *a)
{
	const struct wm_snap_checkpoints *c = &a->snap->checkpoints;

	return if_checkpointing(
		a, c->completed > 0 ? c->last_duration_ns / 1000000 : -1);
}

static struct value
last_checkpoint_size(const struct at *a)
{
	const struct wm_snap_checkpoints *c = &a->snap->checkpoints;

	return if_checkpointing(a,
				c->completed > 0 ? (int64_t)c->last_bytes : -1);
}

/* ---- split figures (the processing time of the job, ms) ---- */

static struct value
split_watermark(const struct at *a)
{
	return whole(a->part->watermark);
}

static struct value
split_idle(const struct at *a)
{
	return rate(a->part->idle_ms_per_s);
}

static struct value
split_paused(const struct at *a)
{
	return rate(a->part->paused_ms_per_s);
}

/* Active: neither idle nor paused (Flink: 1000 less both). */
static struct value
split_active(const struct at *a)
{
	return rate(a->part->active_ms_per_s);
}

static struct value
split_idle_total(const struct at *a)
{
	return whole(a->part->idle_ns / 1000000);
}

static struct value
split_paused_total(const struct at *a)
{
	return whole(a->part->paused_ns / 1000000);
}

static struct value
split_active_total(const struct at *a)
{
	int64_t active =
		a->snap->processing_ns - a->part->idle_ns - a->part->paused_ns;

	return whole(active > 0 ? active / 1000000 : 0);
}

static struct value
split_holds(const struct at *a)
{
	return whole(a->s->held_by == a->part->partition);
}

/* ---- wmrun's own: input channels ---- */

static struct value
channel_watermark(const struct at *a)
{
	return whole(a->s->channels[a->channel].watermark);
}

static struct value
channel_idle(const struct at *a)
{
	return whole(a->s->channels[a->channel].idle);
}

static struct value
channel_aligned(const struct at *a)
{
	return whole(a->s->channels[a->channel].aligned);
}

static struct value
channel_holds(const struct at *a)
{
	return whole(a->s->held_by == a->channel);
}

enum scope { JOB, TASK, OPERATOR, SPLIT, CHANNEL };

struct metric {
	enum scope scope;
	bool flinks; /* Flink's name and HELP; else wmrun's own */
	const char *name;
	struct value (*read)(const struct at *a);
	const char *help; /* wmrun's own only */
};

static const char *const scope_name[] = {
	[JOB] = "jobmanager_job",
	[TASK] = "taskmanager_job_task",
	[OPERATOR] = "taskmanager_job_task_operator",
	[SPLIT] = "taskmanager_job_task_operator_split_watermark",
	[CHANNEL] = "taskmanager_job_task_operator_inputChannel",
};

static const struct metric metrics[] = {
	{JOB, true, "numRestarts", num_restarts, NULL},
	{JOB, true, "totalNumberOfCheckpoints", checkpoints_total, NULL},
	{JOB, true, "numberOfCompletedCheckpoints", checkpoints_completed,
	 NULL},
	{JOB, true, "numberOfFailedCheckpoints", checkpoints_failed, NULL},
	{JOB, true, "numberOfInProgressCheckpoints", checkpoints_in_progress,
	 NULL},
	{JOB, true, "lastCheckpointDuration", last_checkpoint_duration, NULL},
	{JOB, true, "lastCheckpointSize", last_checkpoint_size, NULL},
	{TASK, true, "numRecordsIn", records_in, NULL},
	{TASK, true, "numRecordsOut", task_records_out, NULL},
	{TASK, true, "numRecordsInPerSecond", records_in_rate, NULL},
	{TASK, true, "numRecordsOutPerSecond", task_records_out_rate, NULL},
	{TASK, true, "idleTimeMsPerSecond", idle_time, NULL},
	{TASK, true, "busyTimeMsPerSecond", busy_time, NULL},
	{TASK, true, "backPressuredTimeMsPerSecond", backpressured_time, NULL},
	{OPERATOR, true, "numRecordsIn", records_in, NULL},
	{OPERATOR, true, "numRecordsOut", records_out, NULL},
	{OPERATOR, true, "numRecordsInPerSecond", records_in_rate, NULL},
	{OPERATOR, true, "numRecordsOutPerSecond", records_out_rate, NULL},
	{OPERATOR, true, "currentInputWatermark", input_watermark, NULL},
	{OPERATOR, true, "currentInput1Watermark", input1_watermark, NULL},
	{OPERATOR, true, "currentInput2Watermark", input2_watermark, NULL},
	{OPERATOR, true, "currentOutputWatermark", output_watermark, NULL},
	{OPERATOR, true, "watermarkLag", watermark_lag, NULL},
	{OPERATOR, true, "currentEmitEventTimeLag", emit_lag, NULL},
	{OPERATOR, true, "numLateRecordsDropped", late_dropped, NULL},
	{SPLIT, true, "currentWatermark", split_watermark, NULL},
	{SPLIT, true, "idleTimeMsPerSecond", split_idle, NULL},
	{SPLIT, true, "pausedTimeMsPerSecond", split_paused, NULL},
	{SPLIT, true, "activeTimeMsPerSecond", split_active, NULL},
	{SPLIT, true, "accumulatedIdleTimeMs", split_idle_total, NULL},
	{SPLIT, true, "accumulatedPausedTimeMs", split_paused_total, NULL},
	{SPLIT, true, "accumulatedActiveTimeMs", split_active_total, NULL},
	{SPLIT, false, "holdsWatermark", split_holds,
	 "wmrun's own, not Flink's: 1 for the split at its source subtask's "
	 "minimum, which holds the subtask's watermark"},
	{CHANNEL, false, "watermark", channel_watermark,
	 "wmrun's own, not Flink's: the last watermark of one input channel "
	 "of the operator (Long.MIN_VALUE before the first)"},
	{CHANNEL, false, "idle", channel_idle,
	 "wmrun's own, not Flink's: 1 while the input channel is IDLE"},
	{CHANNEL, false, "aligned", channel_aligned,
	 "wmrun's own, not Flink's: 1 while the input channel is ACTIVE and "
	 "caught up with the operator's input watermark"},
	{CHANNEL, false, "holdsWatermark", channel_holds,
	 "wmrun's own, not Flink's: 1 for the input channel at the minimum, "
	 "which holds the operator's watermark"},
};

static void
print_value(FILE *out, struct value v)
{
	if (v.kind == WHOLE)
		fprintf(out, " %" PRId64 "\n", v.whole);
	else if (v.figure != v.figure)
		fputs(" NaN\n", out);
	else
		fprintf(out, " %.6f\n", v.figure);
}

/* The samples of split metric `m` of source subtask a->id: one for each
 * partition, labelled split="PARTITION", the id of the exported job's
 * split (ReplaySplit.splitId() in flink/). */
static void
split_samples(FILE *out, const struct metric *m, struct at *a,
	      const char *family)
{
	const struct wm_stage *st =
		&a->p->topo->stages[a->p->plan->subtasks[a->id].stage];

	for (uint32_t i = 0; i < a->s->n_partitions; i++) {
		char raw[LABEL_MAX], split[LABEL_MAX];
		struct value v;

		a->part = &a->s->partitions[i];
		v = m->read(a);
		if (v.kind == NONE)
			continue;
		/* The split's id as Flink's Kafka source makes it, TOPIC-P,
		 * filtered as Flink's reporter filters label values. */
		wm_source_split_id(st, a->part->partition, raw, sizeof(raw));
		fprintf(out, "%s{%s,split=\"%s\"}", family,
			a->p->labels[a->id].op,
			wm_prometheus_label_value(raw, split, sizeof(split)));
		print_value(out, v);
	}
}

/* The logical input (port) of input channel `c` of subtask `sub`. */
static uint32_t
port_of(const struct wm_plan_subtask *sub, uint32_t c)
{
	for (uint32_t k = 0; k < sub->n_ports; k++)
		if (c >= sub->ports[k].first &&
		    c < sub->ports[k].first + sub->ports[k].width)
			return k;
	return 0;
}

/* The samples of channel metric `m` of subtask a->id, labelled with the
 * channel, its logical input and the subtask that sends on it. */
static void
channel_samples(FILE *out, const struct metric *m, struct at *a,
		const char *family)
{
	const struct wm_plan *plan = a->p->plan;
	const struct wm_plan_subtask *sub = &plan->subtasks[a->id];

	for (uint32_t c = 0; c < a->s->n_channels; c++) {
		uint32_t from = a->s->channels[c].producer;
		struct value v;

		a->channel = c;
		v = m->read(a);
		if (v.kind == NONE)
			continue;
		fprintf(out,
			"%s{%s,input=\"%u\",channel=\"%u\","
			"upstream_task_name=\"%s\","
			"upstream_subtask_index=\"%u\"}",
			family, a->p->labels[a->id].op, port_of(sub, c), c,
			a->p->labels[from].task_name,
			plan->subtasks[from].index);
		print_value(out, v);
	}
}

static void
metric_samples(FILE *out, const struct metric *m, struct at *a,
	       const char *family)
{
	struct value v;

	switch (m->scope) {
	case JOB:
		v = m->read(a);
		if (v.kind == NONE)
			return;
		fprintf(out, "%s{%s}", family, a->p->job);
		print_value(out, v);
		return;
	case SPLIT:
		split_samples(out, m, a, family);
		return;
	case CHANNEL:
		channel_samples(out, m, a, family);
		return;
	case TASK:
	case OPERATOR:
		break;
	}
	v = m->read(a);
	if (v.kind == NONE)
		return;
	fprintf(out, "%s{%s}", family,
		m->scope == TASK ? a->p->labels[a->id].task
				 : a->p->labels[a->id].op);
	print_value(out, v);
}

/* Whether metric `m` has a sample for any subtask: a family without
 * samples is left out, as Flink's reporter has no collector for it. */
static bool
has_samples(const struct wm_prometheus *p, const struct wm_snapshot *snap,
	    const struct metric *m)
{
	for (uint32_t id = 0; id < snap->n_subtasks; id++) {
		struct at a = {.p = p,
			       .snap = snap,
			       .id = id,
			       .s = &snap->subtasks[id]};

		if (m->scope == SPLIT) {
			for (uint32_t i = 0; i < a.s->n_partitions; i++) {
				a.part = &a.s->partitions[i];
				if (m->read(&a).kind != NONE)
					return true;
			}
		} else if (m->scope == CHANNEL) {
			if (a.s->n_channels > 0)
				return true;
		} else if (m->read(&a).kind != NONE) {
			return true;
		}
	}
	return false;
}

bool
wm_prometheus_write(const struct wm_prometheus *p,
		    const struct wm_snapshot *snap, FILE *out)
{
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
		const struct metric *m = &metrics[i];
		char family[160];

		if (!has_samples(p, snap, m))
			continue;
		snprintf(family, sizeof(family), "%s_%s_%s",
			 m->flinks ? "flink" : "wmrun", scope_name[m->scope],
			 m->name);
		if (m->flinks)
			fprintf(out, "# HELP %s %s (scope: %s)\n", family,
				m->name, scope_name[m->scope]);
		else
			fprintf(out, "# HELP %s %s\n", family, m->help);
		fprintf(out, "# TYPE %s gauge\n", family);
		/* A job's metric is one sample (read at subtask 0, whose
		 * snapshot is the job's too); the others one per subtask. */
		for (uint32_t id = 0;
		     id < (m->scope == JOB ? 1 : snap->n_subtasks); id++) {
			struct at a = {.p = p,
				       .snap = snap,
				       .id = id,
				       .s = &snap->subtasks[id]};

			metric_samples(out, m, &a, family);
		}
	}
	return !ferror(out);
}
