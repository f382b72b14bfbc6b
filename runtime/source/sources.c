/*
 * sources.c
 *	A source subtask's record source (sources.h).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/lcm.h"
#include "base/time.h"
#include "operators/heartbeats.h"
#include "operators/keygroup.h"
#include "operators/map.h"
#include "operators/nexmark_row.h"
#include "runtime/source/kafka_source.h"
#include "runtime/source/map_rows.h"
#include "runtime/source/record_tap.h"
#include "runtime/source/record_trace.h"
#include "runtime/source/sources.h"

/* The unit `unit` joined with an assigner's slide, on which its windows
 * start (window_assign.h): their least common multiple, or the larger of
 * the two where that passes a day. Sessions start anywhere. */
static int64_t
join_slide(int64_t unit, const struct wm_window_assigner *a)
{
	int64_t slide = a->slide;
	uint64_t lcm;

	if (a->kind == WM_WINDOW_SESSION || slide <= 0)
		return unit;
	lcm = wm_lcm_u64((uint64_t)unit, (uint64_t)slide);
	if (lcm > (uint64_t)WM_MS_PER_DAY)
		return unit > slide ? unit : slide;
	return (int64_t)lcm;
}

int64_t
wm_sources_origin_unit_ms(const struct wm_topology *topo)
{
	int64_t unit = 1000;

	for (uint32_t s = 0; s < topo->n_stages; s++) {
		const struct wm_stage *st = &topo->stages[s];

		if (st->kind == WM_STAGE_WINDOW &&
		    !st->u.window.op.processing_time)
			unit = join_slide(unit, &st->u.window.op.assigner);
		else if (st->kind == WM_STAGE_JOIN && st->u.join.windowed)
			unit = join_slide(unit, &st->u.join.window.assigner);
	}
	return unit;
}

void
wm_sources_fix_origin(struct wm_topology *topo, int64_t wall_ms)
{
	struct wm_job_conf *job = &topo->job;
	int64_t unit;

	if (!job->origin_at_start)
		return;
	if (wall_ms < 0) {
		job->event_time_origin_ms = 0;
		return;
	}
	unit = wm_sources_origin_unit_ms(topo);
	job->event_time_origin_ms = wall_ms - wall_ms % unit;
}

int64_t
wm_sources_clock_zero_ms(const struct wm_topology *topo,
			 struct wm_replay_trace *const *traces,
			 int64_t start_wall_ms)
{
	int64_t zero;

	for (uint32_t s = 0; s < topo->n_stages; s++)
		if (wm_stage_source_is(&topo->stages[s], WM_SOURCE_KAFKA))
			return start_wall_ms;
	for (uint32_t s = 0; traces != NULL && s < topo->n_stages; s++)
		if (traces[s] != NULL &&
		    wm_replay_clock_zero_ms(traces[s], &zero))
			return zero;
	for (uint32_t s = 0; s < topo->n_stages; s++)
		if (topo->stages[s].kind == WM_STAGE_SOURCE &&
		    topo->stages[s].u.source.kind != WM_SOURCE_REPLAY)
			return topo->job.event_time_origin_ms;
	return topo->job.origin_at_start ? 0 : topo->job.event_time_origin_ms;
}

/* The generator for `n` partitions: the stage's load, shapes and the job's
 * run length and randomness. */
static struct wm_record_source *
generator(const struct wm_topology *topo, const struct wm_stage *st,
	  const uint32_t *parts, size_t n)
{
	const struct wm_source_conf *sc = &st->u.source;
	const struct wm_job_conf *job = &topo->job;
	struct wm_source_gen_conf conf;
	struct wm_source_gen *gen;

	wm_source_gen_conf_init(&conf);
	conf.n_partitions = (uint32_t)n;
	conf.partitions = parts;
	conf.rate = sc->rate;
	conf.out_of_orderness_ms = sc->out_of_orderness_ms;
	conf.late_fraction = sc->late_fraction;
	conf.late_by_ms = sc->late_by_ms;
	conf.keys = sc->keys;
	conf.zipf = sc->zipf;
	conf.zipf_exponent = sc->zipf_exponent;
	conf.value_cycle = sc->value_cycle;
	conf.n_skew = sc->n_skew;
	conf.skew = sc->skew;
	conf.n_silences = sc->n_silences;
	conf.silences = sc->silences;
	conf.n_bursts = sc->n_bursts;
	conf.bursts = sc->bursts;
	conf.n_outages = sc->n_outages;
	conf.outages = sc->outages;
	conf.n_random_silences = sc->n_random_silences;
	conf.random_silences = sc->random_silences;
	conf.n_punctuations = sc->n_punctuations;
	conf.punctuations = sc->punctuations;
	/* Each source has its own stream of the job's randomness. */
	conf.seed = job->seed ^ (uint64_t)wm_keygroup_hash_string(
					st->name, strlen(st->name));
	conf.max_records = job->records;
	/* Event time starts at the origin and runs event_time from there. */
	conf.start_epoch_ms = job->event_time_origin_ms;
	if (job->event_time_ms == INT64_MAX ||
	    __builtin_add_overflow(job->event_time_origin_ms,
				   job->event_time_ms, &conf.end_ts))
		conf.end_ts = WM_TS_MAX; /* no end, or none before time's */
	gen = wm_source_gen_new(&conf);
	if (gen == NULL)
		return NULL;
	if (sc->n_heartbeats == 0)
		return wm_source_gen_source(gen);
	/* The heartbeats stop where the partitions end. */
	return wm_heartbeats_wrap(wm_source_gen_source(gen), sc->heartbeats,
				  sc->n_heartbeats, isinf(sc->rate),
				  conf.start_epoch_ms,
				  wm_source_gen_end_ns(gen));
}

const char *
wm_sources_nexmark_conf(const struct wm_topology *topo,
			const struct wm_stage *st,
			struct wm_nexmark_source_conf *out)
{
	const struct wm_job_conf *job = &topo->job;
	unsigned __int128 before_end;

	*out = st->u.source.nexmark;
	out->gen.seed = job->seed;
	out->gen.base_time = job->event_time_origin_ms;
	out->partitions = st->u.source.partitions;
	/* Event n comes before the end E when floor(n * 1000 / rate) < E,
	 * that is n < E * rate / 1000: the first ceil(E * rate / 1000). */
	if (job->event_time_ms != INT64_MAX) {
		before_end = ((unsigned __int128)job->event_time_ms *
				      out->gen.events_per_second +
			      999) /
			     1000;
		if (before_end < out->events)
			out->events = (uint64_t)before_end;
	}
	/* A job bounded in processing time keeps the partitions open to its
	 * end, past the stream's last event, as a topic stays open: windows
	 * of processing time then close (nexmark_source.h, end_ms). */
	if (job->processing_time_ms != INT64_MAX)
		out->end_ms = job->processing_time_ms;
	return wm_nexmark_config_check(&out->gen);
}

/* The subtask's share of the stage's Nexmark stream: its partitions. A
 * subtask without any (parallelism above partitions) is a bounded reader
 * without splits, which ends at once: an empty generator, bounded, is
 * that (source_gen.h). */
static struct wm_record_source *
nexmark(const struct wm_topology *topo, const struct wm_stage *st,
	const uint32_t *parts, size_t n)
{
	struct wm_nexmark_source_conf conf;
	struct wm_source_gen_conf none;
	struct wm_nexmark_source *s;
	struct wm_source_gen *gen;

	if (wm_sources_nexmark_conf(topo, st, &conf) != NULL) {
		errno = EINVAL; /* the loader checked what the file gives */
		return NULL;
	}
	if (n == 0) {
		wm_source_gen_conf_init(&none);
		none.start_epoch_ms = conf.gen.base_time;
		none.end_ts = conf.gen.base_time;
		gen = wm_source_gen_new(&none);
		return gen != NULL ? wm_source_gen_source(gen) : NULL;
	}
	s = wm_nexmark_source_new(&conf, parts, (uint32_t)n);
	return s != NULL ? wm_nexmark_source_base(s) : NULL;
}

struct wm_record_source *
wm_sources_open(const struct wm_topology *topo, uint32_t stage, uint32_t index,
		struct wm_sources_input *in, uint64_t *bad_records)
{
	const struct wm_replay_trace *trace = in != NULL ? in->trace : NULL;
	const struct wm_stage *st = &topo->stages[stage];
	const struct wm_source_conf *sc = &st->u.source;
	struct wm_record_source *src = NULL;
	uint32_t *parts;
	size_t n;

	*bad_records = 0;
	if (sc->kind == WM_SOURCE_KAFKA) {
		/* The topic's own partitions, assigned by the consumer. */
		if (in == NULL) {
			errno = EINVAL;
			return NULL;
		}
		return wm_kafka_source_open(st, index, in->keys, &in->exit_code,
					    in->why, sizeof(in->why));
	}
	parts = calloc(sc->partitions ? sc->partitions : 1, sizeof(*parts));
	if (parts == NULL)
		return NULL;
	n = wm_source_gen_partitions_of(index, st->parallelism, sc->partitions,
					wm_source_topic(st), parts,
					sc->partitions);
	if (sc->kind == WM_SOURCE_GENERATED) {
		src = generator(topo, st, parts, n);
	} else if (sc->kind == WM_SOURCE_NEXMARK) {
		src = nexmark(topo, st, parts, n);
	} else if (trace == NULL) {
		errno = EINVAL;
	} else {
		src = wm_replay_source(trace, parts, n);
		for (size_t i = 0; src != NULL && i < n; i++)
			if (parts[i] == 0)
				*bad_records = wm_replay_skipped(trace);
	}
	free(parts);
	return src;
}

/* wm_sources_set_opener()'s: one per process, set before any fork. */
static wm_sources_opener test_opener;

void
wm_sources_set_opener(wm_sources_opener open)
{
	test_opener = open;
}

bool
wm_sources_feeds(const struct wm_topology *topo, uint32_t source, uint32_t sink)
{
	const struct wm_stage *d = &topo->stages[sink];
	const struct wm_stage *up;

	if (sink == source)
		return d->kind == WM_STAGE_SOURCE && d->u.source.record != NULL;
	if (d->kind != WM_STAGE_SINK)
		return false;
	up = &topo->stages[d->inputs[0].stage];
	return up->kind == WM_STAGE_MAP && up->inputs[0].stage == source;
}

/* Map stage m of `topo` compiled again (the loader refused what would
 * not compile): 0, or a negative errno. */
static int
compile_map(const struct wm_topology *topo, uint32_t m, struct wm_map **out)
{
	const struct wm_stage *st = &topo->stages[m];
	const struct wm_stage *src = &topo->stages[st->inputs[0].stage];
	size_t n;
	const struct wm_expr_field *schema =
		wm_nexmark_row_schema(src->u.source.nexmark.kind, &n);
	struct wm_map_error why;
	int r = wm_map_new(schema, n, st->u.map.where, st->u.map.select, out,
			   &why);

	if (r != 0) {
		wm_map_free(*out);
		*out = NULL;
	}
	return r;
}

int
wm_sources_open_map_sink(const struct wm_topology *topo, uint32_t d,
			 struct wm_sink **out, char *err, size_t errlen)
{
	const struct wm_stage *st = &topo->stages[d];
	const struct wm_expr_field *cols;
	struct wm_map *map = NULL;
	size_t n;
	int r = compile_map(topo, st->inputs[0].stage, &map);

	if (r != 0) {
		snprintf(err, errlen, "sink %s: could not set up its map: %s",
			 st->name, strerror(-r));
		return r;
	}
	cols = wm_map_outputs(map, &n);
	r = wm_sink_open_rows(out, st, cols, n, err, errlen);
	wm_map_free(map);
	return r;
}

static void
map_rows_tap(void *arg, const struct wm_record_source *inner,
	     const struct wm_record *r, int64_t now_ns)
{
	(void)inner;
	(void)now_ns;
	/* A failed write is kept by the sink, for the driver to stop the
	 * job, as a recording's (record_trace.c). */
	(void)wm_map_rows_record(arg, r);
}

static void
map_rows_free(void *arg)
{
	wm_map_rows_free(arg);
}

/*
 * The maps reading source stage `s` (doc/semantics.md section 16.6),
 * each compiled again (the loader refused what would not compile), with
 * its sinks, sinks[d] for each sink stage d reading it: *out, NULL when
 * no map reads s. 0, or a negative errno.
 */
static int
chained_maps(const struct wm_topology *topo, uint32_t s,
	     struct wm_sink *const *sinks, struct wm_map_rows **out)
{
	const struct wm_stage *src = &topo->stages[s];
	struct wm_nexmark_source_conf conf;
	struct wm_sink *mine[WM_TOPOLOGY_MAX_OUTPUTS];

	*out = NULL;
	for (uint32_t m = 0; m < topo->n_stages; m++) {
		const struct wm_stage *st = &topo->stages[m];
		struct wm_map *map = NULL;
		uint32_t n = 0;
		int r;

		if (st->kind != WM_STAGE_MAP || st->inputs[0].stage != s)
			continue;
		if (*out == NULL) {
			if (wm_sources_nexmark_conf(topo, src, &conf) != NULL)
				return -EINVAL; /* the loader checked it */
			*out = wm_map_rows_new(&conf.gen,
					       src->u.source.nexmark.kind);
			if (*out == NULL)
				return -ENOMEM;
		}
		if ((r = compile_map(topo, m, &map)) != 0)
			return r;
		for (uint32_t d = 0; d < topo->n_stages; d++)
			if (sinks != NULL && sinks[d] != NULL &&
			    n < WM_TOPOLOGY_MAX_OUTPUTS &&
			    topo->stages[d].kind == WM_STAGE_SINK &&
			    topo->stages[d].inputs[0].stage == m)
				mine[n++] = sinks[d];
		if (wm_map_rows_add(*out, map, mine, n) != 0)
			return -ENOMEM;
	}
	return 0;
}

/* The record source of source subtask `sub`, tapped by its recording and
 * its maps when it has them, the maps' counts published to `block` (NULL:
 * nowhere). NULL with errno. */
static struct wm_record_source *
tapped_source(const struct wm_topology *topo, const struct wm_plan_subtask *sub,
	      struct wm_sources_input *in, struct wm_sink *const *sinks,
	      struct wm_subtask_metrics *block, uint64_t *bad)
{
	struct wm_record_source *src =
		test_opener != NULL ? test_opener(topo, sub->stage, sub->index)
				    : wm_sources_open(topo, sub->stage,
						      sub->index, in, bad);
	struct wm_map_rows *maps = NULL;
	int r;

	if (src != NULL && sinks != NULL && sinks[sub->stage] != NULL)
		src = wm_record_trace_source(src, sinks[sub->stage]);
	if (src == NULL)
		return NULL;
	r = chained_maps(topo, sub->stage, sinks, &maps);
	if (r != 0) {
		wm_map_rows_free(maps);
		wm_record_source_free(src);
		errno = -r;
		return NULL;
	}
	if (maps != NULL && block != NULL)
		wm_map_rows_publish(maps, block->maps);
	return maps != NULL
		       ? wm_record_tap(src, map_rows_tap, maps, map_rows_free)
		       : src;
}

struct wm_task *
wm_sources_new_task(const struct wm_topology *topo, const struct wm_plan *plan,
		    uint32_t id, struct wm_task_out *out, void *metrics,
		    struct wm_sources_input *in, struct wm_sink *const *sinks)
{
	const struct wm_plan_subtask *sub = &plan->subtasks[id];
	struct wm_record_source *src = NULL;
	struct wm_task *task;
	uint64_t bad = 0;

	if (topo->stages[sub->stage].kind == WM_STAGE_SOURCE) {
		src = tapped_source(topo, sub, in, sinks,
				    metrics != NULL
					    ? wm_plan_block(plan, metrics, id)
					    : NULL,
				    &bad);
		if (src == NULL)
			return NULL;
	}
	task = wm_task_new(topo, plan, id, out, metrics, src);
	if (task == NULL)
		return NULL;
	wm_task_bad_records(task, bad);
	if (in != NULL &&
	    wm_replay_stage_string_keys(in->traces, topo, sub->stage))
		wm_task_string_keys(task);
	return task;
}
