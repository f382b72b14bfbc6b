/*
 * report.c
 *	The job summary's figures from the subtasks' metrics blocks
 *	(report.h), and what is read off them alike by the summary for people
 *	(report_print.c) and its JSON (report_json.c): the outcome, whether
 *	every record is accounted for, records per second, the name of what
 *	held a watermark, the stalls within scheduling noise.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/report/advice.h"
#include "runtime/report/report.h"
#include "runtime/report/report_internal.h"

static void
read_progress(const struct wm_watermark_metrics *m,
	      struct wm_progress_reading *r)
{
	r->watermark = WM_METRIC_GET(m->watermark);
	r->idle = WM_METRIC_GET(m->idle) != 0;
	r->stalled_ns = WM_METRIC_GET(m->stalled_ns);
	r->longest_stall_ns = WM_METRIC_GET(m->longest_stall_ns);
	r->longest_cause = WM_METRIC_GET(m->longest_cause);
	r->stalls = WM_METRIC_GET(m->stalls);
	r->stalled_now = WM_METRIC_GET(m->stalled_now) != 0;
	r->idle_ns = WM_METRIC_GET(m->idle_ns);
	r->to_idle = WM_METRIC_GET(m->to_idle);
	r->to_active = WM_METRIC_GET(m->to_active);
	r->longest_starved_ns = WM_METRIC_GET(m->longest_starved_ns);
	r->noise_stalls = WM_METRIC_GET(m->noise_stalls);
	r->noise_stalled_ns = WM_METRIC_GET(m->noise_stalled_ns);
	r->noise_starved_ns = WM_METRIC_GET(m->noise_starved_ns);
	r->since_ns = WM_METRIC_GET(m->since_ns);
}

/* The upstream subtask (plan id) behind input channel `cause` of
 * subtask `id`, or UINT32_MAX. */
static uint32_t
upstream_of(const struct wm_plan *plan, uint32_t id, uint32_t cause)
{
	const struct wm_plan_subtask *sub = &plan->subtasks[id];

	if (cause >= sub->n_inputs)
		return UINT32_MAX;
	return plan->channels[sub->inputs[cause]].producer;
}

/* A task's cause (progress.h) as the report names it: a partition id for
 * a source, the upstream subtask's plan id for an operator. */
static uint32_t
who_held(const struct wm_topology *t, const struct wm_plan *plan, uint32_t id,
	 uint32_t cause)
{
	if (t->stages[plan->subtasks[id].stage].kind == WM_STAGE_SOURCE)
		return cause;
	return upstream_of(plan, id, cause);
}

static void
read_subtask(struct wm_subtask_report *s, const struct wm_subtask_metrics *m)
{
	/* Acquire pairs with the worker's release of `finished`: a finished
	 * subtask's figures read after it are final (an interrupted one
	 * gives what it had); the value itself is not needed. */
	(void)atomic_load_explicit(&m->finished, memory_order_acquire);
	s->records_in = WM_METRIC_GET(m->records_in);
	s->records_out = WM_METRIC_GET(m->records_out);
	s->bad_records_skipped = WM_METRIC_GET(m->bad_records_skipped);
	s->heartbeats = WM_METRIC_GET(m->heartbeats);
	s->records_windowed = WM_METRIC_GET(m->records_windowed);
	s->late_dropped = WM_METRIC_GET(m->late_dropped);
	s->late_side_output = WM_METRIC_GET(m->late_side_output);
	s->other_dropped = WM_METRIC_GET(m->other_dropped);
	s->windows_fired = WM_METRIC_GET(m->windows_fired);
	s->windows_fired_late = WM_METRIC_GET(m->windows_fired_late);
	s->windows_open = WM_METRIC_GET(m->windows_open);
	s->results = WM_METRIC_GET(m->results);
	for (int side = 0; side < 2; side++) {
		s->join_in[side] = WM_METRIC_GET(m->join_in[side]);
		s->join_late[side] = WM_METRIC_GET(m->join_late[side]);
		s->join_late_out[side] = WM_METRIC_GET(m->join_late_out[side]);
		s->join_buffered[side] = WM_METRIC_GET(m->join_buffered[side]);
	}
	s->alignment_waiting_ns = WM_METRIC_GET(m->alignment_waiting_ns);
	s->cpu_wait_ns = WM_METRIC_GET(m->cpu_wait_ns);
	s->late_max_ns = WM_METRIC_GET(m->late_max_ns);
	read_progress(&m->output, &s->wm);
	for (unsigned b = 0; b < WM_HISTOGRAM_BUCKETS; b++) {
		s->disorder[b] = WM_METRIC_GET(m->disorder[b]);
		s->lateness[b] = WM_METRIC_GET(m->lateness[b]);
	}
	s->lateness_max_ms = WM_METRIC_GET(m->lateness_max_ms);
	s->source_outages = WM_METRIC_GET(m->source_outages);
	s->source_outage_ns = WM_METRIC_GET(m->source_outage_ns);
	s->source_unreachable = WM_METRIC_GET(m->source_unreachable) != 0;
	s->source_exit_code = wm_metrics_source_failure(m, s->source_why,
							sizeof(s->source_why));
}

/* Per stage: what its subtasks received, what a window or join stage did
 * with it, and what it sent on as records (a window's results, a join's
 * pairs). */
struct stage_flow {
	uint64_t in, accounted, due, results;
};

/*
 * The flow into the window stages (report.h). Stages come after their
 * inputs (topology.h), so one pass computes what each stage is due:
 * a source is due what it read, a keyBy passes on what it received, a
 * window its results, a join its pairs, and an edge carries each record
 * once, or to every subtask if it broadcasts.
 */
static int
collect_flow(struct wm_job_report *rep, const struct wm_topology *t)
{
	struct stage_flow *f =
		calloc(t->n_stages ? t->n_stages : 1, sizeof(*f));

	if (f == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < rep->n_subtasks; i++) {
		const struct wm_subtask_report *s = &rep->subtasks[i];

		f[s->stage].in += s->records_in;
		f[s->stage].results += s->results;
		f[s->stage].accounted += s->records_windowed + s->late_dropped +
					 s->late_side_output + s->other_dropped;
	}
	rep->windows_account = true;
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *st = &t->stages[s];

		if (st->kind == WM_STAGE_SOURCE) {
			f[s].due = f[s].in;
			continue;
		}
		/* A window or a join sends on its results, every other
		 * stage what it took. */
		for (uint32_t k = 0; k < st->n_inputs; k++) {
			uint32_t up = st->inputs[k].stage;

			f[s].due +=
				(wm_stage_keyed(t->stages[up].kind)
					 ? f[up].results
					 : f[up].in) *
				(st->inputs[k].edge == WM_PARTITION_BROADCAST
					 ? st->parallelism
					 : 1);
		}
		if (!wm_stage_keyed(st->kind))
			continue;
		if (st->kind == WM_STAGE_WINDOW) {
			rep->records_to_windows += f[s].in;
			rep->records_due_to_windows += f[s].due;
		}
		if (f[s].accounted != f[s].in)
			rep->windows_account = false;
	}
	free(f);
	return 0;
}

/*
 * Every edge between stages: what the subtasks at its start sent on it,
 * what those at its end received on that input. What a stage does inside
 * (a source reads and sends, a keyBy passes on, a window takes in) cannot
 * lose a record; what travels between processes could, so each edge is
 * checked.
 */
static int
collect_edges(struct wm_job_report *rep, const struct wm_topology *t,
	      const struct wm_plan *plan, const void *metrics)
{
	uint32_t n = 0;

	/* Every subtask of a stage has its stage's edges: count subtask 0's. */
	for (uint32_t s = 0; s < t->n_stages; s++)
		if (!wm_stage_chained(t->stages[s].kind))
			n += plan->subtasks[plan->first[s]].n_edges;
	rep->edges = calloc(n ? n : 1, sizeof(*rep->edges));
	if (rep->edges == NULL)
		return -ENOMEM;
	rep->edges_consistent = true;
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_plan_subtask *first;

		if (wm_stage_chained(t->stages[s].kind))
			continue;
		first = &plan->subtasks[plan->first[s]];
		for (uint32_t e = 0; e < first->n_edges; e++) {
			struct wm_edge_report *r = &rep->edges[rep->n_edges++];
			uint32_t to = first->edges[e].to_stage;

			r->from = s;
			r->to = to;
			r->input = first->edges[e].to_input;
			/* What arrived first, then what was sent: counts only
			 * grow, so one read while the job runs cannot find
			 * more received than sent (metrics.h). */
			for (uint32_t i = 0; i < t->stages[to].parallelism; i++)
				r->received += WM_METRIC_GET(
					wm_plan_block(plan, metrics,
						      plan->first[to] + i)
						->records_received[r->input]);
			for (uint32_t i = 0; i < t->stages[s].parallelism; i++)
				r->sent += WM_METRIC_GET(
					wm_plan_block(plan, metrics,
						      plan->first[s] + i)
						->records_sent[e]);
			if (r->received > r->sent)
				rep->edges_consistent = false;
			else
				rep->in_flight += r->sent - r->received;
		}
	}
	return 0;
}

/* A partition's gaps and disorder, for the advice. */
static void
read_gaps(const struct wm_partition_metrics *m, struct wm_partition_report *p)
{
	uint64_t gaps[WM_HISTOGRAM_GAPS_BUCKETS];

	for (unsigned b = 0; b < WM_HISTOGRAM_GAPS_BUCKETS; b++)
		gaps[b] = wm_gaps_get(&m->gaps, b);
	wm_advice_gap_figures(gaps, WM_METRIC_GET(m->gap_max_ms), &p->gaps);
	p->disorder_max_ms = WM_METRIC_GET(m->disorder_max_ms);
}

/* The partitions of subtask s, from its block m and its entries parts,
 * into the report's array from *k on. */
static void
read_partitions(struct wm_job_report *rep, struct wm_subtask_report *s,
		const struct wm_subtask_metrics *m,
		const struct wm_partition_metrics *parts, uint32_t planned,
		uint32_t *k)
{
	uint32_t np = WM_METRIC_GET(m->n_partitions);

	/* A subtask that never published (interrupted early) says 0
	 * partitions; it cannot say more than the plan gave it. */
	if (np > planned)
		np = planned;
	s->n_partitions = np;
	s->partitions = &rep->partitions[*k];
	for (uint32_t p = 0; p < np; p++, (*k)++) {
		struct wm_partition_report *pr = &rep->partitions[*k];

		pr->partition = WM_METRIC_GET(parts[p].partition);
		pr->stage = s->stage;
		pr->subtask = s->index;
		pr->alignment_paused_ns =
			WM_METRIC_GET(parts[p].alignment_paused_ns);
		pr->records = WM_METRIC_GET(parts[p].records);
		read_progress(&parts[p].progress, &pr->wm);
		read_gaps(&parts[p], pr);
	}
}

/* Whether a sink writes stage s's results: a window's or a join's that
 * only other stages read go on as records, and are not written. */
static bool
written(const struct wm_topology *t, uint32_t s)
{
	for (uint32_t d = 0; d < t->n_stages; d++)
		for (uint32_t k = 0; k < t->stages[d].n_inputs; k++)
			if (t->stages[d].inputs[k].stage == s &&
			    t->stages[d].kind == WM_STAGE_SINK)
				return true;
	return false;
}

/* Subtask s's figures added to the job's. */
static void
add_up(struct wm_job_report *rep, const struct wm_topology *t,
       const struct wm_subtask_report *s, const struct wm_subtask_metrics *m)
{
	int64_t max_delay = WM_METRIC_GET(m->fire_delay_max_ms);

	if (t->stages[s->stage].kind == WM_STAGE_SOURCE)
		rep->records_read += s->records_in;
	rep->bad_records_skipped += s->bad_records_skipped;
	rep->heartbeats += s->heartbeats;
	if (t->stages[s->stage].kind == WM_STAGE_JOIN) {
		for (int side = 0; side < 2; side++) {
			rep->join_in[side] += s->join_in[side];
			rep->join_late[side] += s->join_late[side];
			rep->join_late_out[side] += s->join_late_out[side];
			rep->join_buffered += s->join_buffered[side];
		}
		rep->records_joined += s->records_windowed;
		rep->join_rejected += s->other_dropped;
		if (written(t, s->stage))
			rep->pairs_written += s->results;
		return;
	}
	rep->records_windowed += s->records_windowed;
	rep->late_dropped += s->late_dropped;
	rep->late_side_output += s->late_side_output;
	rep->other_dropped += s->other_dropped;
	rep->windows_fired += s->windows_fired;
	rep->windows_fired_late += s->windows_fired_late;
	rep->windows_open += s->windows_open;
	if (written(t, s->stage))
		rep->results_written += s->results;
	rep->fire_delays_excluded += WM_METRIC_GET(m->fire_delays_excluded);
	if (max_delay > rep->fire_delay_max_ms && s->windows_fired > 0)
		rep->fire_delay_max_ms = max_delay;
}

/*
 * The fire delays' p50 and p99: the window subtasks' WM_HISTOGRAM_FINE
 * counts added up, each percentile the nearest rank's value to 3
 * significant digits (exact below 2048 ms, at most 2^-10 below above;
 * histogram.h). -1 for both without an on-time firing. Only the groups a
 * subtask marked are read (metrics.h, fire_delay_groups): the others
 * hold no count, and reading them would fault in their pages.
 */
static int
fire_delay_percentiles(struct wm_job_report *rep, const struct wm_plan *plan,
		       const void *metrics)
{
	const struct wm_histogram_shape h = WM_HISTOGRAM_FINE;
	const unsigned per_group = 1u << WM_HISTOGRAM_FINE_GROUP_BITS;
	uint64_t *sum = calloc(h.buckets, sizeof(*sum));

	if (sum == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < plan->n_subtasks; i++) {
		const _Atomic uint64_t *c =
			wm_plan_fire_delays(plan, metrics, i);
		uint64_t groups = WM_METRIC_GET(
			wm_plan_block(plan, metrics, i)->fire_delay_groups);

		for (unsigned g = 0; c != NULL && g < WM_HISTOGRAM_FINE_GROUPS;
		     g++)
			for (unsigned b = g * per_group;
			     (groups >> g & 1) && b < (g + 1) * per_group; b++)
				sum[b] += WM_METRIC_GET(c[b]);
	}
	rep->fire_delay_p50_ms = wm_histogram_shape_quantile(h, sum, 0.5);
	rep->fire_delay_p99_ms = wm_histogram_shape_quantile(h, sum, 0.99);
	free(sum);
	return 0;
}

/* Each map's counts, from the slot wm_topology_map_slot() gives it in
 * the blocks of its source's subtasks. */
static int
collect_maps(struct wm_job_report *rep, const struct wm_topology *t,
	     const struct wm_plan *plan, const void *metrics)
{
	rep->maps_account = true;
	for (uint32_t s = 0; s < t->n_stages; s++)
		rep->n_maps += t->stages[s].kind == WM_STAGE_MAP;
	rep->maps = calloc(rep->n_maps ? rep->n_maps : 1, sizeof(*rep->maps));
	if (rep->maps == NULL)
		return -ENOMEM;
	for (uint32_t s = 0, k = 0; s < t->n_stages; s++) {
		const uint32_t src = t->stages[s].inputs[0].stage;
		const uint32_t slot = wm_topology_map_slot(t->stages, s);
		struct wm_map_report *r = &rep->maps[k];
		uint64_t errors = 0;

		if (t->stages[s].kind != WM_STAGE_MAP)
			continue;
		r->stage = s;
		k++;
		for (uint32_t i = 0; i < t->stages[src].parallelism; i++) {
			const struct wm_map_metrics *m =
				&wm_plan_block(plan, metrics,
					       plan->first[src] + i)
					 ->maps[slot];

			r->in += WM_METRIC_GET(m->in);
			r->out += WM_METRIC_GET(m->out);
			r->filtered += WM_METRIC_GET(m->filtered);
			for (uint32_t c = 1; c < WM_METRICS_MAP_CAUSES; c++)
				r->errors[c] += WM_METRIC_GET(m->errors[c]);
		}
		for (uint32_t c = 1; c < WM_METRICS_MAP_CAUSES; c++)
			errors += r->errors[c];
		if (r->out + r->filtered + errors != r->in)
			rep->maps_account = false;
	}
	return 0;
}

int
wm_report_collect(struct wm_job_report *rep, const struct wm_topology *t,
		  const struct wm_plan *plan, const void *metrics,
		  int64_t end_ns, int64_t wall_ns, bool sim)
{
	uint32_t n_parts = 0, k = 0;

	memset(rep, 0, sizeof(*rep));
	rep->sim = sim;
	rep->end_ns = end_ns;
	rep->wall_ns = wall_ns;
	rep->fire_delay_max_ms = -1;
	for (uint32_t i = 0; i < plan->n_subtasks; i++)
		n_parts += plan->subtasks[i].n_partitions;
	rep->subtasks = calloc(plan->n_subtasks ? plan->n_subtasks : 1,
			       sizeof(*rep->subtasks));
	rep->partitions =
		calloc(n_parts ? n_parts : 1, sizeof(*rep->partitions));
	if (rep->subtasks == NULL || rep->partitions == NULL) {
		wm_report_free(rep);
		return -ENOMEM;
	}
	rep->n_subtasks = plan->n_subtasks;
	for (uint32_t i = 0; i < plan->n_subtasks; i++) {
		const struct wm_subtask_metrics *m =
			wm_plan_block(plan, metrics, i);
		struct wm_subtask_report *s = &rep->subtasks[i];

		s->stage = plan->subtasks[i].stage;
		s->index = plan->subtasks[i].index;
		read_subtask(s, m);
		s->held_by = who_held(t, plan, i, s->wm.longest_cause);
		s->held_by_now =
			s->wm.stalled_now
				? who_held(t, plan, i,
					   WM_METRIC_GET(m->held_by_now))
				: UINT32_MAX;
		read_partitions(rep, s, m, wm_plan_partitions(plan, metrics, i),
				plan->subtasks[i].n_partitions, &k);
		add_up(rep, t, s, m);
	}
	rep->n_partitions = k;
	if (plan->n_subtasks > 0)
		rep->clock_zero_ms = WM_METRIC_GET(
			wm_plan_block(plan, metrics, 0)->clock_zero_ms);
	for (uint32_t s = 0; s < t->n_stages; s++) {
		rep->has_windows |= t->stages[s].kind == WM_STAGE_WINDOW;
		rep->has_joins |= t->stages[s].kind == WM_STAGE_JOIN;
	}
	if (collect_flow(rep, t) != 0 ||
	    collect_edges(rep, t, plan, metrics) != 0 ||
	    fire_delay_percentiles(rep, plan, metrics) != 0 ||
	    collect_maps(rep, t, plan, metrics) != 0) {
		wm_report_free(rep);
		return -ENOMEM;
	}
	if (rep->fire_delay_p50_ms < 0)
		rep->fire_delay_max_ms = -1; /* no on-time firing at all */
	return 0;
}

void
wm_report_free(struct wm_job_report *rep)
{
	free(rep->subtasks);
	free(rep->partitions);
	free(rep->edges);
	free(rep->alerts);
	free(rep->maps);
	rep->maps = NULL;
	rep->n_maps = 0;
	rep->subtasks = NULL;
	rep->partitions = NULL;
	rep->edges = NULL;
	rep->alerts = NULL;
	rep->n_subtasks = rep->n_partitions = rep->n_edges = 0;
	rep->n_alerts = 0;
}

int
wm_report_set_alerts(struct wm_job_report *rep, const struct wm_alert *alerts,
		     uint32_t n, uint64_t raised)
{
	struct wm_alert *copy = calloc(n ? n : 1, sizeof(*copy));

	if (copy == NULL)
		return -ENOMEM;
	if (n > 0)
		memcpy(copy, alerts, n * sizeof(*copy));
	free(rep->alerts);
	rep->alerts = copy;
	rep->n_alerts = n;
	rep->alerts_raised = raised;
	return 0;
}

bool
wm_report_accounted(const struct wm_job_report *rep)
{
	/* In flight is an account only of a job cut short: one that ran to
	 * its end delivered everything. */
	return rep->windows_account && rep->edges_consistent &&
	       rep->maps_account &&
	       (rep->in_flight == 0 || rep->stopped || rep->failed);
}

const char *
wm_report_outcome(const struct wm_job_report *rep)
{
	return rep->failed ? "failed" : rep->stopped ? "stopped" : "finished";
}

double
wm_report_records_per_s(const struct wm_job_report *rep)
{
	int64_t ns = rep->sim ? rep->end_ns : rep->wall_ns;

	return ns > 0 ? (double)rep->records_read * 1e9 / (double)ns : 0.0;
}

/* What held subtask s's longest stall, named: "events/2" (an upstream
 * subtask) or "events-13" (a partition of a source); false if unknown. */
bool
wm_report_held_by_name(const struct wm_topology *t,
		       const struct wm_job_report *rep,
		       const struct wm_subtask_report *s, uint32_t who,
		       char *buf, size_t len)
{
	const struct wm_subtask_report *u;

	if (who == UINT32_MAX)
		return false;
	if (t->stages[s->stage].kind == WM_STAGE_SOURCE) {
		snprintf(buf, len, "%s-%u", t->stages[s->stage].name, who);
		return true;
	}
	u = &rep->subtasks[who];
	snprintf(buf, len, "%s/%u", t->stages[u->stage].name, u->index);
	return true;
}

/* The stalls within scheduling noise of every subtask and partition
 * (progress.h), added up. */
void
wm_report_noise_total(const struct wm_job_report *rep, uint64_t *stalls,
		      int64_t *stalled_ns, int64_t *starved_ns)
{
	*stalls = 0;
	*stalled_ns = *starved_ns = 0;
	for (uint32_t i = 0; i < rep->n_subtasks; i++) {
		*stalls += rep->subtasks[i].wm.noise_stalls;
		*stalled_ns += rep->subtasks[i].wm.noise_stalled_ns;
		*starved_ns += rep->subtasks[i].wm.noise_starved_ns;
	}
	for (uint32_t i = 0; i < rep->n_partitions; i++) {
		*stalls += rep->partitions[i].wm.noise_stalls;
		*stalled_ns += rep->partitions[i].wm.noise_stalled_ns;
		*starved_ns += rep->partitions[i].wm.noise_starved_ns;
	}
}
