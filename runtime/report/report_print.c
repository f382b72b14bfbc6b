/*
 * report_print.c
 *	The job summary for people (wm_report_print()): what wmrun prints at
 *	the end of a job, from the figures report.c collected.
 *
 * Every figure printed here is also in the JSON (report_json.c); the two
 * read the same report and the same helpers (report_internal.h), so that
 * they cannot disagree. --sim's output is compared byte for byte across
 * changes: nothing here may depend on wall-clock time in a --sim run.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>

#include "base/clock.h"
#include "lib/units.h"
#include "operators/expr.h"
#include "runtime/report/advice.h"
#include "runtime/report/report.h"
#include "runtime/report/report_internal.h"

/* One line per stage: records and the worst watermark of its subtasks. */
/* A map's line in the stage list, its rows accounted (in = out +
 * filtered + errors), then its record errors by cause, if any. */
static void
print_map(FILE *f, const struct wm_topology *t, const struct wm_map_report *m)
{
	uint64_t errors = 0;

	for (uint32_t c = 1; c < WM_METRICS_MAP_CAUSES; c++)
		errors += m->errors[c];
	fprintf(f,
		"    map     %-14s in %-10" PRIu64 " out %-10" PRIu64
		" filtered %" PRIu64 "  errors %" PRIu64 "\n",
		t->stages[m->stage].name, m->in, m->out, m->filtered, errors);
	for (uint32_t c = 1; c < WM_METRICS_MAP_CAUSES; c++)
		if (m->errors[c] > 0)
			fprintf(f, "      record errors: %s %" PRIu64 "\n",
				wm_expr_status_name((enum wm_expr_status)c),
				m->errors[c]);
}

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

		if (wm_report_held_by_name(t, rep, worst, worst->held_by, who,
					   sizeof(who)))
			fprintf(f, ", held by %s", who);
		if (wm_report_held_by_name(t, rep, worst, worst->held_by_now,
					   who, sizeof(who)))
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

	wm_report_noise_total(rep, &stalls, &stalled_ns, &starved_ns);
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
	const char *section = NULL;

	if (wm_advice_build(t, rep, &a) != 0)
		return;
	/* The lines come grouped by kind, diagnoses first: each group
	 * under its heading. */
	for (uint32_t i = 0; i < a.n; i++) {
		const struct wm_advice_line *l = &a.lines[i];
		const char *key = wm_advice_key(l->kind);
		const char *heading =
			l->kind == WM_ADVICE_HELD	? "what held event time"
			: l->kind == WM_ADVICE_FLAPPING ? "idleness flapping"
							: "advice";

		if (section == NULL || strcmp(section, heading) != 0)
			fprintf(f, "  %s\n", heading);
		section = heading;
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
		c->tally.completed);
	if (c->tally.completed > 0)
		fprintf(f,
			", the last chk-%" PRIu64 " of %" PRIu64
			" bytes, %" PRIu64 " bytes in all, longest %s",
			c->tally.last_id, c->tally.last_bytes,
			c->tally.bytes_total,
			wm_units_format_duration(c->tally.duration_max_ns, d,
						 sizeof(d)));
	if (!rep->sim && c->tally.completed > 0 && speed != 1.0)
		fprintf(f, " (%s of real time)",
			wm_units_format_duration(
				wm_scale_ns(c->tally.duration_max_ns,
					    1 / speed),
				d, sizeof(d)));
	fprintf(f, "\n");
	if (!rep->sim && c->tally.completed > 0) {
		fprintf(f,
			"    alignment             at most %s, first barrier "
			"to last",
			wm_units_format_duration(c->tally.alignment_max_ns, d,
						 sizeof(d)));
		if (speed != 1.0)
			fprintf(f, " (%s of real time)",
				wm_units_format_duration(
					wm_scale_ns(c->tally.alignment_max_ns,
						    1 / speed),
					d, sizeof(d)));
		fprintf(f, "\n");
	}
	if (c->tally.timed_out > 0 || c->tally.failed > 0)
		fprintf(f,
			"    given up              %" PRIu64
			" timed out, %" PRIu64 " failed (the job went on)\n",
			c->tally.timed_out, c->tally.failed);
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

/* What the joins did with their records: taken (by side), kept or late
 * (by side: dropped, or to a late output) or without a timestamp, the pairs they wrote, and what their
 * buffers held when the job ended (kept records waiting for a partner or
 * for their cleanup: no record is lost there, each was kept). */
static void
print_joins(FILE *f, const struct wm_job_report *rep)
{
	fprintf(f,
		"  into joins              %" PRIu64 " (left %" PRIu64
		", right %" PRIu64 ")\n"
		"  kept by joins           %" PRIu64 "\n"
		"  join late, dropped      %" PRIu64 " (left %" PRIu64
		", right %" PRIu64 ")\n",
		rep->join_in[0] + rep->join_in[1], rep->join_in[0],
		rep->join_in[1], rep->records_joined,
		rep->join_late[0] + rep->join_late[1], rep->join_late[0],
		rep->join_late[1]);
	if (rep->join_late_out[0] + rep->join_late_out[1] > 0)
		fprintf(f,
			"  join late, side output  %" PRIu64 " (left %" PRIu64
			", right %" PRIu64 ")\n",
			rep->join_late_out[0] + rep->join_late_out[1],
			rep->join_late_out[0], rep->join_late_out[1]);
	if (rep->join_rejected > 0)
		fprintf(f, "  join, no timestamp      %" PRIu64 "\n",
			rep->join_rejected);
	fprintf(f,
		"  pairs written           %" PRIu64 "\n"
		"  join buffers at the end %" PRIu64 " records\n",
		rep->pairs_written, rep->join_buffered);
}

void
wm_report_fire_delays(const struct wm_job_report *rep,
		      struct wm_report_delays *d)
{
	wm_units_format_duration_ms(rep->fire_delay_p50_ms, d->p50,
				    sizeof(d->p50));
	wm_units_format_duration_ms(rep->fire_delay_p99_ms, d->p99,
				    sizeof(d->p99));
	wm_units_format_duration_ms(rep->fire_delay_max_ms, d->max,
				    sizeof(d->max));
}

/* The fire delays in the units of the rest of the summary (the JSON
 * keeps the milliseconds): "p50 9.0 s, p99 29.4 s, max 29.4 s". */
static void
print_fire_delay(FILE *f, const struct wm_job_report *rep)
{
	struct wm_report_delays d;

	if (rep->fire_delay_p50_ms < 0) {
		fputs("  window fire delay       none (no window fired on "
		      "time)\n",
		      f);
		return;
	}
	wm_report_fire_delays(rep, &d);
	fprintf(f, "  window fire delay       p50 %s, p99 %s, max %s\n", d.p50,
		d.p99, d.max);
}

void
wm_report_print(FILE *f, const struct wm_topology *t,
		const struct wm_job_report *rep)
{
	char a[32];

	fprintf(f,
		"wmrun: job \"%s\" %s after %" PRId64
		" ms of processing time (%s)\n",
		t->job.name ? t->job.name : "unnamed", wm_report_outcome(rep),
		rep->end_ns / 1000000,
		wm_units_format_duration(rep->end_ns, a, sizeof(a)));
	print_behind(f, t, rep);
	/* Event time read on the wall clock (sources.h): where processing
	 * time 0 lies on it, to read the results' epoch times against. */
	if (rep->clock_zero_ms != 0)
		fprintf(f,
			"  event-time clock        %s UTC at processing time "
			"0\n",
			wm_units_format_event_time(rep->clock_zero_ms, a,
						   sizeof(a)));
	fprintf(f, "  records read            %" PRIu64 "\n",
		rep->records_read);
	/* A job of joins alone has no window lines. */
	if (rep->has_windows || !rep->has_joins)
		fprintf(f,
			"  into windows            %" PRIu64 "\n"
			"  late, dropped           %" PRIu64 "\n"
			"  late, side output       %" PRIu64 "\n"
			"  in no window            %" PRIu64 "\n"
			"  windows fired           %" PRIu64 " (%" PRIu64
			" late firings)\n"
			"  results written         %" PRIu64 "\n",
			rep->records_windowed, rep->late_dropped,
			rep->late_side_output, rep->other_dropped,
			rep->windows_fired, rep->windows_fired_late,
			rep->results_written);
	if (rep->has_windows || !rep->has_joins)
		print_fire_delay(f, rep);
	if (rep->has_joins)
		print_joins(f, rep);
	fprintf(f, "  every record accounted  %s\n",
		wm_report_accounted(rep) ? "yes" : "NO");
	if (rep->fire_delays_excluded > 0)
		fprintf(f,
			"                          (%" PRIu64
			" window%s at the ends of time left out of the delay)"
			"\n",
			rep->fire_delays_excluded,
			rep->fire_delays_excluded == 1 ? "" : "s");
	if (rep->windows_open > 0)
		fprintf(f,
			"  windows left open       %" PRIu64
			" (with records when the job ended)\n",
			rep->windows_open);
	if (rep->in_flight > 0 || !rep->edges_consistent)
		print_edges(f, t, rep);
	if (rep->bad_records_skipped > 0)
		fprintf(f, "  bad records skipped     %" PRIu64 "\n",
			rep->bad_records_skipped);
	if (rep->heartbeats > 0)
		fprintf(f,
			"  heartbeats, dropped     %" PRIu64
			" (no records: they moved their partitions' "
			"watermarks)\n",
			rep->heartbeats);
	print_source_health(f, t, rep);
	if (rep->checkpointing)
		print_checkpoints(f, t, rep);
	if (rep->sim) {
		/* The job's own rate, not wmrun's speed: that is how long
		 * the simulation of its processing time took. */
		char span[32], wall[32];

		fprintf(f,
			"  rate                    %.0f records/s of "
			"processing "
			"time (%s of it simulated in %s)\n",
			wm_report_records_per_s(rep),
			wm_units_format_duration(rep->end_ns, span,
						 sizeof(span)),
			wm_units_format_duration(rep->wall_ns, wall,
						 sizeof(wall)));
	} else {
		fprintf(f,
			"  throughput              %.0f records/s of real "
			"time\n",
			wm_report_records_per_s(rep));
		print_noise(f, t, rep);
	}
	fprintf(f, "  stages\n");
	for (uint32_t s = 0; s < t->n_stages; s++)
		if (!wm_stage_chained(t->stages[s].kind))
			print_stage(f, t, rep, s);
	for (uint32_t k = 0; k < rep->n_maps; k++)
		print_map(f, t, &rep->maps[k]);
	if (rep->n_partitions > 0)
		print_partitions(f, t, rep);
	if (wm_alerts_configured(&t->job))
		print_alerts(f, t, rep);
	print_advice(f, t, rep);
}
