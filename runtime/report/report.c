/*
 * report.c
 *	The job summary from the subtasks' metrics blocks (report.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "lib/units.h"
#include "runtime/report/advice.h"
#include "runtime/report/report.h"

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
	s->records_windowed = WM_METRIC_GET(m->records_windowed);
	s->late_dropped = WM_METRIC_GET(m->late_dropped);
	s->late_side_output = WM_METRIC_GET(m->late_side_output);
	s->other_dropped = WM_METRIC_GET(m->other_dropped);
	s->windows_fired = WM_METRIC_GET(m->windows_fired);
	s->windows_fired_late = WM_METRIC_GET(m->windows_fired_late);
	s->results = WM_METRIC_GET(m->results);
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

/* Per stage: what its subtasks received, and what a window stage did with
 * it. */
struct stage_flow {
	uint64_t in, accounted, due;
};

/*
 * The flow into the window stages (report.h). Stages come after their
 * inputs (topology.h), so one pass computes what each stage is due:
 * a source is due what it read, a keyBy passes on what it received, and
 * an edge carries each record once, or to every subtask if it broadcasts.
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
		for (uint32_t k = 0; k < st->n_inputs; k++)
			f[s].due +=
				f[st->inputs[k].stage].in *
				(st->inputs[k].edge == WM_PARTITION_BROADCAST
					 ? st->parallelism
					 : 1);
		if (st->kind != WM_STAGE_WINDOW)
			continue;
		rep->records_to_windows += f[s].in;
		rep->records_due_to_windows += f[s].due;
		if (f[s].accounted != f[s].in)
			rep->windows_account = false;
	}
	free(f);
	return 0;
}

/* The block of subtask `id`. */
static const struct wm_subtask_metrics *
block_of(const void *base, size_t stride, uint32_t id)
{
	return (const void *)((const char *)base + id * stride);
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
	      const struct wm_plan *plan, const void *base, size_t stride)
{
	uint32_t n = 0;

	/* Every subtask of a stage has its stage's edges: count subtask 0's. */
	for (uint32_t s = 0; s < t->n_stages; s++)
		if (t->stages[s].kind != WM_STAGE_SINK)
			n += plan->subtasks[plan->first[s]].n_edges;
	rep->edges = calloc(n ? n : 1, sizeof(*rep->edges));
	if (rep->edges == NULL)
		return -ENOMEM;
	rep->edges_consistent = true;
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_plan_subtask *first;

		if (t->stages[s].kind == WM_STAGE_SINK)
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
					block_of(base, stride,
						 plan->first[to] + i)
						->records_received[r->input]);
			for (uint32_t i = 0; i < t->stages[s].parallelism; i++)
				r->sent += WM_METRIC_GET(
					block_of(base, stride,
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
		gaps[b] = WM_METRIC_GET(m->gaps[b]);
	wm_advice_gap_figures(gaps, WM_METRIC_GET(m->gap_max_ms), &p->gaps);
	p->disorder_max_ms = WM_METRIC_GET(m->disorder_max_ms);
}

/* The partitions of subtask s, from its block m, into the report's array
 * from *k on. */
static void
read_partitions(struct wm_job_report *rep, struct wm_subtask_report *s,
		const struct wm_subtask_metrics *m, uint32_t planned,
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

		pr->partition = WM_METRIC_GET(m->partitions[p].partition);
		pr->stage = s->stage;
		pr->subtask = s->index;
		pr->alignment_paused_ns =
			WM_METRIC_GET(m->partitions[p].alignment_paused_ns);
		pr->records = WM_METRIC_GET(m->partitions[p].records);
		read_progress(&m->partitions[p].progress, &pr->wm);
		read_gaps(&m->partitions[p], pr);
	}
}

/* Subtask s's figures added to the job's (its fire delays to delays). */
static void
add_up(struct wm_job_report *rep, const struct wm_topology *t,
       const struct wm_subtask_report *s, const struct wm_subtask_metrics *m,
       uint64_t *delays)
{
	int64_t max_delay = WM_METRIC_GET(m->fire_delay_max_ms);

	if (t->stages[s->stage].kind == WM_STAGE_SOURCE)
		rep->records_read += s->records_in;
	rep->bad_records_skipped += s->bad_records_skipped;
	rep->records_windowed += s->records_windowed;
	rep->late_dropped += s->late_dropped;
	rep->late_side_output += s->late_side_output;
	rep->other_dropped += s->other_dropped;
	rep->windows_fired += s->windows_fired;
	rep->windows_fired_late += s->windows_fired_late;
	rep->results_written += s->results;
	rep->fire_delays_excluded += WM_METRIC_GET(m->fire_delays_excluded);
	if (max_delay > rep->fire_delay_max_ms && s->windows_fired > 0)
		rep->fire_delay_max_ms = max_delay;
	for (unsigned b = 0; b < WM_HISTOGRAM_BUCKETS; b++)
		delays[b] += WM_METRIC_GET(m->fire_delays[b]);
}

int
wm_report_collect(struct wm_job_report *rep, const struct wm_topology *t,
		  const struct wm_plan *plan, const void *base, size_t stride,
		  int64_t end_ns, int64_t wall_ns, bool sim)
{
	uint64_t delays[WM_HISTOGRAM_BUCKETS] = {0};
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
		const struct wm_subtask_metrics *m = block_of(base, stride, i);
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
		read_partitions(rep, s, m, plan->subtasks[i].n_partitions, &k);
		add_up(rep, t, s, m, delays);
	}
	rep->n_partitions = k;
	if (collect_flow(rep, t) != 0 ||
	    collect_edges(rep, t, plan, base, stride) != 0) {
		wm_report_free(rep);
		return -ENOMEM;
	}
	rep->fire_delay_p50_ms = wm_histogram_quantile(delays, 0.5);
	rep->fire_delay_p99_ms = wm_histogram_quantile(delays, 0.99);
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
	       (rep->in_flight == 0 || rep->stopped || rep->failed);
}

static const char *
outcome(const struct wm_job_report *rep)
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
static bool
held_by_name(const struct wm_topology *t, const struct wm_job_report *rep,
	     const struct wm_subtask_report *s, uint32_t who, char *buf,
	     size_t len)
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
static void
noise_total(const struct wm_job_report *rep, uint64_t *stalls,
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

/* ---- for people ---- */

/* One line per stage: records and the worst watermark of its subtasks. */
static void
print_stage(FILE *f, const struct wm_topology *t,
	    const struct wm_job_report *rep, uint32_t stage)
{
	const struct wm_stage *st = &t->stages[stage];
	const struct wm_subtask_report *worst = NULL;
	uint64_t in = 0, out = 0, to_idle = 0;
	int64_t idle_ns = 0;
	char a[32], b[32], c[32];

	for (uint32_t i = 0; i < rep->n_subtasks; i++) {
		const struct wm_subtask_report *s = &rep->subtasks[i];

		if (s->stage != stage)
			continue;
		in += s->records_in;
		out += s->records_out;
		idle_ns += s->wm.idle_ns;
		to_idle += s->wm.to_idle;
		if (worst == NULL || s->wm.stalled_ns > worst->wm.stalled_ns)
			worst = s;
	}
	fprintf(f, "    %-7s %-14s in %-10" PRIu64 " out %-10" PRIu64,
		wm_stage_kind_name(st->kind), st->name, in, out);
	if (worst == NULL || worst->wm.stalled_ns == 0) {
		fprintf(f, " watermark never stalled");
	} else {
		fprintf(f, " watermark stalled %s in subtask %u (longest %s",
			wm_units_format_duration(worst->wm.stalled_ns, a,
						 sizeof(a)),
			worst->index,
			wm_units_format_duration(worst->wm.longest_stall_ns, b,
						 sizeof(b)));
		char who[96];

		if (held_by_name(t, rep, worst, worst->held_by, who,
				 sizeof(who)))
			fprintf(f, ", held by %s", who);
		if (held_by_name(t, rep, worst, worst->held_by_now, who,
				 sizeof(who)))
			fprintf(f, ", stalled now, held by %s", who);
		/* Real time: a process that could not run for that long is
		 * why its watermark stood still, not the data. */
		if (worst->wm.longest_starved_ns >= 1000000)
			fprintf(f, ", %s of it waiting for a CPU",
				wm_units_format_duration(
					worst->wm.longest_starved_ns, c,
					sizeof(c)));
		fprintf(f, "; %" PRIu64 " stall%s)", worst->wm.stalls,
			worst->wm.stalls == 1 ? "" : "s");
	}
	if (to_idle > 0)
		fprintf(f, ", idle %s over its subtasks (%" PRIu64 " times)",
			wm_units_format_duration(idle_ns, c, sizeof(c)),
			to_idle);
	fputc('\n', f);
}

/* Partitions that went idle or stalled, most affected first: the first
 * place to look when windows stop firing. */
static int
by_trouble(const void *x, const void *y)
{
	const struct wm_partition_report *a = *(const void *const *)x;
	const struct wm_partition_report *b = *(const void *const *)y;
	int64_t ta = a->wm.stalled_ns + a->wm.idle_ns;
	int64_t tb = b->wm.stalled_ns + b->wm.idle_ns;

	if (ta != tb)
		return ta < tb ? 1 : -1;
	return (a->partition > b->partition) - (a->partition < b->partition);
}

#define WM_REPORT_PARTITION_LINES 8

/* Every alert raised, at the processing time it was, and until when its
 * condition held: the list of what a watcher would have been told. */
static void
print_alerts(FILE *f, const struct wm_topology *t,
	     const struct wm_job_report *rep)
{
	char at[32], end[32], until[48], what[512];

	fprintf(f, "  alerts                  %" PRIu64 " raised",
		rep->alerts_raised);
	if (rep->alerts_raised > rep->n_alerts)
		fprintf(f, ", the first %u listed", rep->n_alerts);
	fputc('\n', f);
	for (uint32_t i = 0; i < rep->n_alerts; i++) {
		const struct wm_alert *al = &rep->alerts[i];

		if (al->ended_ns != WM_ALERT_OPEN)
			snprintf(until, sizeof(until), "until %s",
				 wm_units_format_duration(al->ended_ns, end,
							  sizeof(end)));
		else
			snprintf(until, sizeof(until), "to the end");
		fprintf(f, "    at %s: %s, %s\n",
			wm_units_format_duration(al->at_ns, at, sizeof(at)),
			wm_alert_format(al, t, what, sizeof(what)), until);
	}
}

static void
print_partitions(FILE *f, const struct wm_topology *t,
		 const struct wm_job_report *rep)
{
	const struct wm_partition_report **sorted;
	uint32_t troubled = 0, per_subtask = 0;
	uint64_t flips = 0;
	char a[32], b[32];

	sorted = calloc(rep->n_partitions ? rep->n_partitions : 1,
			sizeof(*sorted));
	if (sorted == NULL)
		return;
	for (uint32_t i = 0; i < rep->n_partitions; i++) {
		const struct wm_partition_report *p = &rep->partitions[i];

		/* watermark_at = subtask: a partition has no watermark of its
		 * own (its subtask's generator sees them all), so none of its
		 * own can stall or idle; the source's line says what did. */
		if (t->stages[p->stage].u.source.watermark_per_subtask) {
			per_subtask++;
			continue;
		}
		flips += p->wm.to_idle + p->wm.to_active;
		if (p->wm.stalled_ns > 0 || p->wm.idle_ns > 0)
			sorted[troubled++] = p;
	}
	qsort(sorted, troubled, sizeof(*sorted), by_trouble);
	fprintf(f,
		"  partitions              %u, %u stalled or idle, %" PRIu64
		" idle/active transitions",
		rep->n_partitions, troubled, flips);
	if (per_subtask > 0)
		fprintf(f,
			" (%u with watermarks per subtask, in none of these)",
			per_subtask);
	fputc('\n', f);
	for (uint32_t i = 0; i < troubled && i < WM_REPORT_PARTITION_LINES;
	     i++) {
		const struct wm_partition_report *p = sorted[i];

		char name[48];

		snprintf(name, sizeof(name), "%s-%u", t->stages[p->stage].name,
			 p->partition);
		fprintf(f,
			"    partition %-12s (subtask %u) %-10" PRIu64
			" records, watermark stalled %s, idle %s (%" PRIu64
			" time%s)",
			name, p->subtask, p->records,
			wm_units_format_duration(p->wm.stalled_ns, a,
						 sizeof(a)),
			wm_units_format_duration(p->wm.idle_ns, b, sizeof(b)),
			p->wm.to_idle, p->wm.to_idle == 1 ? "" : "s");
		if (p->alignment_paused_ns > 0)
			fprintf(f, ", paused by alignment %s",
				wm_units_format_duration(p->alignment_paused_ns,
							 a, sizeof(a)));
		fputc('\n', f);
	}
	if (troubled > WM_REPORT_PARTITION_LINES)
		fprintf(f, "    ... %u more (see --summary)\n",
			troubled - WM_REPORT_PARTITION_LINES);
	free(sorted);
}

/* A real run's scheduling noise as it measured it (wm_job_report_noise_ns()),
 * and the still stretches that only its lateness made look stalls: the
 * scheduler's, left out of the stalls below, with the time their
 * processes waited for a CPU. What is left below is silence (idle time),
 * back-pressure or the data. */
static void
print_noise(FILE *f, const struct wm_topology *t,
	    const struct wm_job_report *rep)
{
	uint64_t stalls;
	int64_t stalled_ns, starved_ns;
	int64_t noise_ns = wm_job_report_noise_ns(rep);
	char a[32], b[32], c[32];

	noise_total(rep, &stalls, &stalled_ns, &starved_ns);
	fprintf(f,
		"  scheduling noise        %s at speed %g (%s of real time), "
		"the most it fell behind its schedule",
		wm_units_format_duration(noise_ns, a, sizeof(a)), t->job.speed,
		wm_units_format_duration(
			wm_scale_ns(noise_ns, 1.0 / t->job.speed), b,
			sizeof(b)));
	if (stalls == 0)
		fprintf(f, ": no stall within it\n");
	else
		fprintf(f,
			": %" PRIu64 " stall%s within it, %s, %s of it "
			"waiting for a CPU, not counted below\n",
			stalls, stalls == 1 ? "" : "s",
			wm_units_format_duration(stalled_ns, b, sizeof(b)),
			wm_units_format_duration(starved_ns, c, sizeof(c)));
}

/*
 * The one line at the top of a real run's summary that could not keep its
 * schedule: it fell behind by more than the stall threshold, so that its
 * lateness alone would have looked like stalls. The figures below leave
 * that lateness out (runtime/engine/progress.h `due`): a stall or a
 * silence is one of the records' schedule, not of this run's machine.
 */
static void
print_behind(FILE *f, const struct wm_topology *t,
	     const struct wm_job_report *rep)
{
	int64_t noise_ns = wm_job_report_noise_ns(rep);
	int64_t waited_ns = 0;
	char a[32], b[32];

	if (rep->sim || noise_ns <= wm_ms_to_ns(t->job.stall_threshold_ms))
		return;
	for (uint32_t i = 0; i < rep->n_subtasks; i++)
		waited_ns += rep->subtasks[i].cpu_wait_ns;
	fprintf(f,
		"  behind its schedule     by up to %s (%s of real time; its "
		"processes waited for a CPU %.0f %% of their time): not "
		"counted as stalls\n",
		wm_units_format_duration(noise_ns, a, sizeof(a)),
		wm_units_format_duration(
			wm_scale_ns(noise_ns, 1.0 / t->job.speed), b,
			sizeof(b)),
		rep->wall_ns > 0 && rep->n_subtasks > 0
			? 100.0 * (double)waited_ns /
				  ((double)rep->wall_ns * rep->n_subtasks)
			: 0.0);
}

/* Records that left a stage and did not reach the next: what a stop or a
 * failure cut off, edge by edge. */
static void
print_edges(FILE *f, const struct wm_topology *t,
	    const struct wm_job_report *rep)
{
	fprintf(f, "  in flight when %-8s %" PRIu64 "\n",
		rep->failed    ? "failed"
		: rep->stopped ? "stopped"
			       : "ended",
		rep->in_flight);
	for (uint32_t i = 0; i < rep->n_edges; i++) {
		const struct wm_edge_report *e = &rep->edges[i];

		if (e->sent == e->received)
			continue;
		fprintf(f,
			"    %s -> %s: sent %" PRIu64 ", received %" PRIu64
			"%s\n",
			t->stages[e->from].name, t->stages[e->to].name, e->sent,
			e->received,
			e->received > e->sent
				? " (figures of workers that died apart)"
				: "");
	}
}

/* What held event time back and the settings advised (advice.h), after
 * the rest; nothing for a job with nothing to say. */
static void
print_advice(FILE *f, const struct wm_topology *t,
	     const struct wm_job_report *rep)
{
	struct wm_advice a;
	bool held = false, advised = false;

	if (wm_advice_build(t, rep, &a) != 0)
		return;
	for (uint32_t i = 0; i < a.n; i++) {
		const struct wm_advice_line *l = &a.lines[i];
		const char *key = wm_advice_key(l->kind);

		if (l->kind == WM_ADVICE_HELD) {
			if (!held)
				fprintf(f, "  what held event time\n");
			held = true;
			fprintf(f, "    %s\n", l->text);
			continue;
		}
		if (!advised)
			fprintf(f, "  advice\n");
		advised = true;
		if (key != NULL)
			fprintf(f, "    %s = %s\n", key, l->text);
		else
			fprintf(f, "    %s\n", l->text);
	}
	wm_advice_free(&a);
}

/* The event time held after a restore, as one line. */
static void
print_hold(FILE *f, int64_t held_ns)
{
	char d[32];

	if (held_ns >= 0)
		fprintf(f,
			"    event time held       %s after the restore, until "
			"the window watermarks were back where they were\n",
			wm_units_format_duration(held_ns, d, sizeof(d)));
	else
		fprintf(f,
			"    event time held       until the end: the window "
			"watermarks never got back where they were\n");
}

/* A real run's restarts, each with its cause, its checkpoint and its
 * hold. */
static void
print_restarts(FILE *f, const struct wm_checkpoint_summary *c)
{
	char d[32];

	fprintf(f, "  restarts                %" PRIu32 "\n", c->restarts);
	for (uint32_t i = 0; i < c->restarts && i < WM_RESTART_NOTES; i++) {
		const struct wm_restart_note *n = &c->notes[i];

		fprintf(f, "    %-2" PRIu32 " at %s: %s\n", i + 1,
			wm_units_format_duration(n->at_ns, d, sizeof(d)),
			n->cause);
		fprintf(f,
			"       after %s (restart_strategy = %s, attempt "
			"%" PRIu32 "), ",
			wm_units_format_duration(n->delay_ns, d, sizeof(d)),
			c->strategy != NULL ? c->strategy : "none", n->attempt);
		if (n->restored_from != 0)
			fprintf(f, "restored from chk-%" PRIu64 ", ",
				n->restored_from);
		else
			fprintf(f, "from the start (no checkpoint yet), ");
		if (n->held_ns >= 0)
			fprintf(f, "event time held %s after the restore\n",
				wm_units_format_duration(n->held_ns, d,
							 sizeof(d)));
		else
			fprintf(f, "event time never caught up\n");
	}
	if (c->restarts > WM_RESTART_NOTES)
		fprintf(f, "    (the first %d shown)\n", WM_RESTART_NOTES);
}

/* Checkpoints completed, their size and longest duration (processing
 * time from the trigger to the last acknowledgement); in a real run also
 * the longest alignment, those given up, and the restarts. */
static void
print_checkpoints(FILE *f, const struct wm_topology *t,
		  const struct wm_job_report *rep)
{
	double speed = t->job.speed;
	const struct wm_checkpoint_summary *c = &rep->checkpoints;
	char d[32];

	fprintf(f, "  checkpoints             %" PRIu64 " completed",
		c->completed);
	if (c->completed > 0)
		fprintf(f,
			", the last chk-%" PRIu64 " of %" PRIu64
			" bytes, %" PRIu64 " bytes in all, longest %s",
			c->last_id, c->last_bytes, c->bytes_total,
			wm_units_format_duration(c->duration_max_ns, d,
						 sizeof(d)));
	if (!rep->sim && c->completed > 0 && speed != 1.0)
		fprintf(f, " (%s of real time)",
			wm_units_format_duration(
				wm_scale_ns(c->duration_max_ns, 1 / speed), d,
				sizeof(d)));
	fprintf(f, "\n");
	if (!rep->sim && c->completed > 0) {
		fprintf(f,
			"    alignment             at most %s, first barrier "
			"to last",
			wm_units_format_duration(c->alignment_max_ns, d,
						 sizeof(d)));
		if (speed != 1.0)
			fprintf(f, " (%s of real time)",
				wm_units_format_duration(
					wm_scale_ns(c->alignment_max_ns,
						    1 / speed),
					d, sizeof(d)));
		fprintf(f, "\n");
	}
	if (c->timed_out > 0 || c->failed > 0)
		fprintf(f,
			"    given up              %" PRIu64
			" timed out, %" PRIu64 " failed (the job went on)\n",
			c->timed_out, c->failed);
	if (c->gave_up)
		fprintf(f,
			"  restart                 none: the crash at %s "
			"failed "
			"the job (restart_strategy = %s, attempt %" PRIu32
			")\n",
			wm_units_format_duration(c->restart_ns, d, sizeof(d)),
			c->strategy, c->attempt);
	if (!rep->sim) {
		if (c->restarts > 0)
			print_restarts(f, c);
		return;
	}
	if (!c->restarted)
		return;
	fprintf(f, "  restart                 at %s, ",
		wm_units_format_duration(c->restart_ns, d, sizeof(d)));
	if (c->restored_from != 0)
		fprintf(f, "from chk-%" PRIu64 " (taken at %s)\n",
			c->restored_from,
			wm_units_format_duration(c->restored_from_ns, d,
						 sizeof(d)));
	else
		fprintf(f, "from the start (no checkpoint yet)\n");
	fprintf(f,
		"    restart delay         %s (restart_strategy = %s, attempt "
		"%" PRIu32 "): nothing ran meanwhile\n",
		wm_units_format_duration(c->delay_ns, d, sizeof(d)),
		c->strategy, c->attempt);
	fprintf(f,
		"    records replayed      %" PRIu64
		" (read before the crash and again after it; counted once "
		"above)\n"
		"    results emitted again %" PRIu64 " (at-least-once sinks)\n",
		c->records_replayed, c->results_again);
	print_hold(f, c->held_ns);
}

/* "once", "twice", "3 times". */
static const char *
times(uint32_t n, char *buf, size_t len)
{
	if (n == 1)
		return "once";
	if (n == 2)
		return "twice";
	snprintf(buf, len, "%" PRIu32 " times", n);
	return buf;
}

/*
 * Sources fed from outside that lost their brokers, or stopped the job: a
 * line each, as "source s subtask 0: brokers unreachable twice, 12.3 s in
 * all; resumed" (or "; unreachable at the end", "; stopped: WHY"). Nothing
 * for a source that never lost them: a generated or replayed one.
 */
static void
print_source_health(FILE *f, const struct wm_topology *t,
		    const struct wm_job_report *rep)
{
	for (uint32_t i = 0; i < rep->n_subtasks; i++) {
		const struct wm_subtask_report *s = &rep->subtasks[i];
		char n[32];

		if (s->source_outages == 0 && !s->source_unreachable &&
		    s->source_exit_code == 0)
			continue;
		fprintf(f, "  source %s subtask %u: ", t->stages[s->stage].name,
			s->index);
		if (s->source_outages > 0)
			fprintf(f, "brokers unreachable %s, %.1f s in all; ",
				times(s->source_outages, n, sizeof(n)),
				(double)s->source_outage_ns / 1e9);
		if (s->source_exit_code != 0)
			fprintf(f, "stopped: %s\n", s->source_why);
		else if (s->source_unreachable)
			fprintf(f, "unreachable at the end\n");
		else
			fprintf(f, "resumed\n");
	}
}

void
wm_report_print(FILE *f, const struct wm_topology *t,
		const struct wm_job_report *rep)
{
	char a[32];

	fprintf(f,
		"wmrun: job \"%s\" %s after %" PRId64
		" ms of processing time (%s)\n",
		t->job.name ? t->job.name : "unnamed", outcome(rep),
		rep->end_ns / 1000000,
		wm_units_format_duration(rep->end_ns, a, sizeof(a)));
	print_behind(f, t, rep);
	fprintf(f,
		"  records read            %" PRIu64 "\n"
		"  into windows            %" PRIu64 "\n"
		"  late, dropped           %" PRIu64 "\n"
		"  late, side output       %" PRIu64 "\n"
		"  in no window            %" PRIu64 "\n"
		"  windows fired           %" PRIu64 " (%" PRIu64
		" late firings)\n"
		"  results written         %" PRIu64 "\n"
		"  window fire delay (ms)  p50 %" PRId64 ", p99 %" PRId64
		", max %" PRId64 "\n"
		"  every record accounted  %s\n",
		rep->records_read, rep->records_windowed, rep->late_dropped,
		rep->late_side_output, rep->other_dropped, rep->windows_fired,
		rep->windows_fired_late, rep->results_written,
		rep->fire_delay_p50_ms, rep->fire_delay_p99_ms,
		rep->fire_delay_max_ms,
		wm_report_accounted(rep) ? "yes" : "NO");
	if (rep->fire_delays_excluded > 0)
		fprintf(f,
			"                          (%" PRIu64
			" window%s at the ends of time left out of the delay)"
			"\n",
			rep->fire_delays_excluded,
			rep->fire_delays_excluded == 1 ? "" : "s");
	if (rep->in_flight > 0 || !rep->edges_consistent)
		print_edges(f, t, rep);
	if (rep->bad_records_skipped > 0)
		fprintf(f, "  bad records skipped     %" PRIu64 "\n",
			rep->bad_records_skipped);
	print_source_health(f, t, rep);
	if (rep->checkpointing)
		print_checkpoints(f, t, rep);
	fprintf(f, "  throughput              %.0f records/s of %s time\n",
		wm_report_records_per_s(rep), rep->sim ? "simulated" : "real");
	if (!rep->sim)
		print_noise(f, t, rep);
	fprintf(f, "  stages\n");
	for (uint32_t s = 0; s < t->n_stages; s++)
		if (t->stages[s].kind != WM_STAGE_SINK)
			print_stage(f, t, rep, s);
	if (rep->n_partitions > 0)
		print_partitions(f, t, rep);
	if (wm_alerts_configured(&t->job))
		print_alerts(f, t, rep);
	print_advice(f, t, rep);
}

/* ---- JSON ---- */

/* A JSON string: the characters JSON cannot hold raw are escaped. */
static void
json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void
json_progress(FILE *f, const struct wm_job_report *rep,
	      const struct wm_progress_reading *r)
{
	if (r->watermark == WM_TS_MIN)
		fprintf(f, "\"watermark\":null");
	else
		fprintf(f, "\"watermark\":%" PRId64, r->watermark);
	fprintf(f,
		",\"idle\":%s,\"watermark_stalled_ms\":%" PRId64
		",\"longest_stall_ms\":%" PRId64 ",\"stalls\":%" PRIu64
		",\"idle_ms\":%" PRId64 ",\"idle_transitions\":%" PRIu64
		",\"active_transitions\":%" PRIu64
		",\"longest_stall_cpu_wait_ms\":%" PRId64,
		r->idle ? "true" : "false", r->stalled_ns / 1000000,
		r->longest_stall_ns / 1000000, r->stalls, r->idle_ns / 1000000,
		r->to_idle, r->to_active, r->longest_starved_ns / 1000000);
	/* Real runs only: --sim has no scheduler, and its summary stays
	 * byte-identical. */
	if (!rep->sim)
		fprintf(f,
			",\"noise_stalls\":%" PRIu64
			",\"noise_stalled_ms\":%" PRId64
			",\"noise_cpu_wait_ms\":%" PRId64,
			r->noise_stalls, r->noise_stalled_ns / 1000000,
			r->noise_starved_ns / 1000000);
}

/* "name" or null: what held a watermark (held_by_name()). */
static void
json_held_by(FILE *f, const struct wm_topology *t,
	     const struct wm_job_report *rep, const struct wm_subtask_report *s,
	     uint32_t who)
{
	char name[96];

	if (held_by_name(t, rep, s, who, name, sizeof(name)))
		json_string(f, name);
	else
		fprintf(f, "null");
}

/* One subtask of stage `st`, as an object. */
static void
json_subtask(FILE *f, const struct wm_topology *t,
	     const struct wm_job_report *rep, const struct wm_stage *st,
	     const struct wm_subtask_report *s)
{
	fprintf(f,
		"{\"index\":%u,\"records_in\":%" PRIu64
		",\"records_out\":%" PRIu64 ",",
		s->index, s->records_in, s->records_out);
	if (st->kind == WM_STAGE_WINDOW)
		fprintf(f,
			"\"records_windowed\":%" PRIu64
			",\"late_records_dropped\":%" PRIu64
			",\"late_records_side_output\":%" PRIu64
			",\"windows_fired\":%" PRIu64 ",",
			s->records_windowed, s->late_dropped,
			s->late_side_output, s->windows_fired);
	if (st->kind == WM_STAGE_SOURCE && st->u.source.alignment_group != NULL)
		fprintf(f, "\"alignment_waiting_ms\":%" PRId64 ",",
			s->alignment_waiting_ns / 1000000);
	/* Real runs only: --sim's summary stays byte-identical. */
	if (!rep->sim)
		fprintf(f,
			"\"cpu_wait_ms\":%" PRId64 ",\"late_max_ms\":%" PRId64
			",",
			s->cpu_wait_ns / 1000000, s->late_max_ns / 1000000);
	/* Only a source fed from outside has any (metrics.h). */
	if (s->source_outages > 0 || s->source_unreachable ||
	    s->source_exit_code != 0) {
		fprintf(f,
			"\"source_outages\":%" PRIu32
			",\"source_outage_ms\":%" PRId64
			",\"source_unreachable\":%s,\"source_exit_code\":"
			"%" PRIu32 ",\"source_stopped\":",
			s->source_outages, s->source_outage_ns / 1000000,
			s->source_unreachable ? "true" : "false",
			s->source_exit_code);
		if (s->source_exit_code != 0)
			json_string(f, s->source_why);
		else
			fputs("null", f);
		fputc(',', f);
	}
	fprintf(f, "\"longest_stall_held_by\":");
	json_held_by(f, t, rep, s, s->held_by);
	fprintf(f, ",\"held_by_now\":");
	json_held_by(f, t, rep, s, s->held_by_now);
	fputc(',', f);
	json_progress(f, rep, &s->wm);
	fputc('}', f);
}

/* Every partition of source stage `stage`, in subtask order. */
static void
json_partitions(FILE *f, const struct wm_job_report *rep, uint32_t stage)
{
	bool first = true;

	fprintf(f, ",\"partitions\":[");
	for (uint32_t i = 0; i < rep->n_subtasks; i++) {
		const struct wm_subtask_report *s = &rep->subtasks[i];

		if (s->stage != stage)
			continue;
		for (uint32_t p = 0; p < s->n_partitions; p++) {
			const struct wm_partition_report *pr =
				&s->partitions[p];

			fprintf(f,
				"%s{\"partition\":%u,\"subtask\":%u,"
				"\"records\":%" PRIu64
				",\"alignment_paused_ms\":%" PRId64 ",",
				first ? "" : ",", pr->partition, pr->subtask,
				pr->records, pr->alignment_paused_ns / 1000000);
			json_progress(f, rep, &pr->wm);
			fputc('}', f);
			first = false;
		}
	}
	fprintf(f, "]");
}

static void
json_stage(FILE *f, const struct wm_topology *t,
	   const struct wm_job_report *rep, uint32_t stage)
{
	const struct wm_stage *st = &t->stages[stage];
	uint64_t in = 0, out = 0;
	bool first = true;

	for (uint32_t i = 0; i < rep->n_subtasks; i++)
		if (rep->subtasks[i].stage == stage) {
			in += rep->subtasks[i].records_in;
			out += rep->subtasks[i].records_out;
		}
	fprintf(f, "{\"name\":");
	json_string(f, st->name);
	fprintf(f,
		",\"kind\":\"%s\",\"parallelism\":%u,\"records_in\":%" PRIu64
		",\"records_out\":%" PRIu64 ",\"subtasks\":[",
		wm_stage_kind_name(st->kind), st->parallelism, in, out);
	for (uint32_t i = 0; i < rep->n_subtasks; i++) {
		if (rep->subtasks[i].stage != stage)
			continue;
		if (!first)
			fputc(',', f);
		json_subtask(f, t, rep, st, &rep->subtasks[i]);
		first = false;
	}
	fprintf(f, "]");
	if (st->kind == WM_STAGE_SOURCE)
		json_partitions(f, rep, stage);
	fputc('}', f);
}

/* The alerts; "ended_ms" null for an episode still going on at the end,
 * "held_ms" the difference of the two times as printed, so that a reader
 * finds at_ms - since_ms = held_ms whatever the nanoseconds were. */
static void
json_alerts(FILE *f, const struct wm_topology *t,
	    const struct wm_job_report *rep)
{
	char subject[300];

	fprintf(f, ",\"alerts_raised\":%" PRIu64 ",\"alerts\":[",
		rep->alerts_raised);
	for (uint32_t i = 0; i < rep->n_alerts; i++) {
		const struct wm_alert *al = &rep->alerts[i];

		fprintf(f,
			"%s{\"at_ms\":%" PRId64
			",\"tier\":\"%s\",\"kind\":\"%s\",\"subject\":",
			i ? "," : "", al->at_ns / 1000000,
			wm_alert_tier_name(al->tier),
			wm_alert_kind_name(al->kind));
		json_string(f,
			    wm_alert_subject(al, t, subject, sizeof(subject)));
		fprintf(f, ",\"since_ms\":%" PRId64 ",\"held_ms\":%" PRId64,
			al->since_ns / 1000000,
			al->at_ns / 1000000 - al->since_ns / 1000000);
		if (al->ended_ns != WM_ALERT_OPEN)
			fprintf(f, ",\"ended_ms\":%" PRId64 "}",
				al->ended_ns / 1000000);
		else
			fprintf(f, ",\"ended_ms\":null}");
	}
	fputc(']', f);
}

/* "diagnosis": the lines on what held each window subtask; "advice": the
 * settings, each with its key, stage, value (null where none fits), the
 * figure it must clear (from_ms) and the figures as text. */
static void
json_advice(FILE *f, const struct wm_topology *t,
	    const struct wm_job_report *rep)
{
	struct wm_advice a;
	bool first = true;

	if (wm_advice_build(t, rep, &a) != 0)
		return;
	fprintf(f, ",\"diagnosis\":[");
	for (uint32_t i = 0; i < a.n; i++) {
		const struct wm_advice_line *l = &a.lines[i];
		const struct wm_subtask_report *s;

		if (l->kind != WM_ADVICE_HELD)
			continue;
		s = &rep->subtasks[l->subtask];
		fprintf(f, "%s{\"window\":", first ? "" : ",");
		json_string(f, t->stages[s->stage].name);
		fprintf(f,
			",\"subtask\":%u,\"waited_ms\":%" PRId64 ",\"text\":",
			s->index, s->wm.longest_stall_ns / 1000000);
		json_string(f, l->text);
		fputc('}', f);
		first = false;
	}
	fprintf(f, "],\"advice\":[");
	first = true;
	for (uint32_t i = 0; i < a.n; i++) {
		const struct wm_advice_line *l = &a.lines[i];
		const char *key = wm_advice_key(l->kind);

		if (l->kind == WM_ADVICE_HELD)
			continue;
		fprintf(f, "%s{\"key\":", first ? "" : ",");
		if (key != NULL)
			json_string(f, key);
		else
			fprintf(f, "\"idle_timeout\"");
		fprintf(f, ",\"stage\":");
		json_string(f, t->stages[l->stage].name);
		if (l->value_ms >= 0)
			fprintf(f, ",\"value_ms\":%" PRId64, l->value_ms);
		else
			fprintf(f, ",\"value_ms\":null");
		fprintf(f, ",\"from_ms\":%" PRId64, l->from_ms);
		fprintf(f, ",\"text\":");
		json_string(f, l->text);
		fputc('}', f);
		first = false;
	}
	fputc(']', f);
	wm_advice_free(&a);
}

/* The checkpoints and the restart, as print_checkpoints() says them;
 * held_ms -1: never caught up. */
static void
json_checkpoints(FILE *f, const struct wm_job_report *rep)
{
	const struct wm_checkpoint_summary *c = &rep->checkpoints;

	fprintf(f,
		",\"checkpoints\":{\"completed\":%" PRIu64
		",\"last_id\":%" PRIu64 ",\"last_bytes\":%" PRIu64
		",\"bytes\":%" PRIu64 ",\"duration_max_ms\":%" PRId64,
		c->completed, c->last_id, c->last_bytes, c->bytes_total,
		c->duration_max_ns / 1000000);
	/* A real run that restarted before its strategy gave up has
	 * "restart" (its last one) and "gave_up" apart. */
	if (c->gave_up)
		fprintf(f,
			",\"%s\":{\"at_ms\":%" PRId64
			",\"strategy\":\"%s\",\"attempt\":%" PRIu32
			",\"gave_up\":true}",
			c->restarted ? "gave_up" : "restart",
			c->restart_ns / 1000000, c->strategy, c->attempt);
	/* A real run's restarts are in "restarts" below, without the
	 * replayed counts, which only --sim knows. */
	if (c->restarted && rep->sim)
		fprintf(f,
			",\"restart\":{\"at_ms\":%" PRId64
			",\"strategy\":\"%s\",\"attempt\":%" PRIu32
			",\"delay_ms\":%" PRId64 ",\"from_checkpoint\":%" PRIu64
			",\"checkpoint_ms\":%" PRId64
			",\"records_replayed\":%" PRIu64
			",\"results_again\":%" PRIu64 ",\"held_ms\":%" PRId64
			"}",
			c->restart_ns / 1000000, c->strategy, c->attempt,
			c->delay_ns / 1000000, c->restored_from,
			c->restored_from_ns / 1000000, c->records_replayed,
			c->results_again,
			c->held_ns < 0 ? -1 : c->held_ns / 1000000);
	fprintf(f,
		",\"alignment_max_ms\":%.3f,\"timed_out\":%" PRIu64
		",\"failed\":%" PRIu64 ",\"restarts\":[",
		(double)c->alignment_max_ns / 1e6, c->timed_out, c->failed);
	for (uint32_t i = 0; i < c->restarts && i < WM_RESTART_NOTES; i++) {
		const struct wm_restart_note *n = &c->notes[i];

		fprintf(f,
			"%s{\"at_ms\":%" PRId64 ",\"from_checkpoint\":%" PRIu64
			",\"checkpoint_ms\":%" PRId64 ",\"delay_ms\":%" PRId64
			",\"attempt\":%" PRIu32 ",\"held_ms\":%" PRId64
			",\"cause\":",
			i > 0 ? "," : "", n->at_ns / 1000000, n->restored_from,
			n->checkpoint_ns / 1000000, n->delay_ns / 1000000,
			n->attempt, n->held_ns < 0 ? -1 : n->held_ns / 1000000);
		json_string(f, n->cause);
		fputc('}', f);
	}
	fputs("]}", f);
}

void
wm_report_print_json(FILE *f, const struct wm_topology *t,
		     const struct wm_job_report *rep)
{
	bool first = true;

	fprintf(f, "{\"job\":");
	json_string(f, t->job.name ? t->job.name : "");
	fprintf(f,
		",\"mode\":\"%s\",\"records_read\":%" PRIu64
		",\"bad_records_skipped\":%" PRIu64
		",\"records_windowed\":%" PRIu64
		",\"late_records_dropped\":%" PRIu64
		",\"late_records_side_output\":%" PRIu64
		",\"records_in_no_window\":%" PRIu64
		",\"windows_fired\":%" PRIu64 ",\"windows_fired_late\":%" PRIu64
		",\"results_written\":%" PRIu64
		",\"records_to_windows\":%" PRIu64
		",\"records_due_to_windows\":%" PRIu64
		",\"fire_delay_ms\":{\"p50\":%" PRId64 ",\"p99\":%" PRId64
		",\"max\":%" PRId64 "},\"fire_delays_excluded\":%" PRIu64
		",\"processing_time_ms\":%" PRId64,
		rep->sim ? "sim" : "real", rep->records_read,
		rep->bad_records_skipped, rep->records_windowed,
		rep->late_dropped, rep->late_side_output, rep->other_dropped,
		rep->windows_fired, rep->windows_fired_late,
		rep->results_written, rep->records_to_windows,
		rep->records_due_to_windows, rep->fire_delay_p50_ms,
		rep->fire_delay_p99_ms, rep->fire_delay_max_ms,
		rep->fire_delays_excluded, rep->end_ns / 1000000);
	fprintf(f, ",\"outcome\":\"%s\"", outcome(rep));
	if (rep->stopped)
		fprintf(f, ",\"stopped\":true");
	fprintf(f, ",\"records_in_flight\":%" PRIu64 ",\"edges\":[",
		rep->in_flight);
	for (uint32_t i = 0; i < rep->n_edges; i++) {
		const struct wm_edge_report *e = &rep->edges[i];

		fprintf(f, "%s{\"from\":", i ? "," : "");
		json_string(f, t->stages[e->from].name);
		fprintf(f, ",\"to\":");
		json_string(f, t->stages[e->to].name);
		fprintf(f,
			",\"input\":%u,\"sent\":%" PRIu64
			",\"received\":%" PRIu64 "}",
			e->input, e->sent, e->received);
	}
	fputc(']', f);
	/* Wall-clock time would make two --sim summaries differ. */
	if (!rep->sim) {
		uint64_t stalls;
		int64_t stalled_ns, starved_ns;

		noise_total(rep, &stalls, &stalled_ns, &starved_ns);
		fprintf(f,
			",\"wall_time_ms\":%" PRId64
			",\"scheduling_noise_ms\":%" PRId64
			",\"noise_stalls\":%" PRIu64
			",\"noise_stalled_ms\":%" PRId64
			",\"noise_cpu_wait_ms\":%" PRId64,
			rep->wall_ns / 1000000,
			wm_job_report_noise_ns(rep) / 1000000, stalls,
			stalled_ns / 1000000, starved_ns / 1000000);
	}
	fprintf(f, ",\"records_per_s\":%.1f,\"all_records_accounted\":%s",
		wm_report_records_per_s(rep),
		wm_report_accounted(rep) ? "true" : "false");
	fprintf(f, ",\"stages\":[");
	for (uint32_t s = 0; s < t->n_stages; s++) {
		if (t->stages[s].kind == WM_STAGE_SINK)
			continue;
		if (!first)
			fputc(',', f);
		json_stage(f, t, rep, s);
		first = false;
	}
	fputc(']', f);
	if (wm_alerts_configured(&t->job))
		json_alerts(f, t, rep);
	if (rep->checkpointing)
		json_checkpoints(f, rep);
	json_advice(f, t, rep);
	fprintf(f, "}\n");
}
