/*
 * report_json.c
 *	The job summary as one JSON object (wm_report_print_json(), --summary
 *	FILE), from the figures report.c collected, built as jansson values
 *	and written by jansson (lib/json_out.h).
 *
 * The fields are defined in report.h; scripts and tests read them, so a
 * field is added, never renamed, and the members keep their order. Every
 * string from the user or the system (job, stage and partition names,
 * causes, texts) goes through wm_json_text(), which keeps the document
 * valid JSON for any bytes. A --sim summary is compared byte for byte
 * across changes: it holds no wall-clock figure.
 *
 * Figures: counts and milliseconds are integers; the two reals are
 * rounded as they always were printed, records_per_s to one place ("%.1f",
 * the same text) and alignment_max_ms to three ("%.3f", the same figure,
 * without the zeros that end its fraction: 1.250 is 1.25), by
 * wm_json_fixed().
 *
 * Each builder below returns its value, or NULL when an allocation
 * failed, or adds members to an object and returns 0 or -1; a failure
 * anywhere fails the whole summary (-ENOMEM), never a summary short of a
 * field.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>

#include "lib/json_out.h"
#include "operators/expr.h"
#include "runtime/report/advice.h"
#include "runtime/report/report.h"
#include "runtime/report/report_internal.h"

/* Nanoseconds as the summary's whole milliseconds. */
static json_t *
ms(int64_t ns)
{
	return json_integer(ns / 1000000);
}

/* A pair of counts, one per input of a join: [left, right]. */
static json_t *
pair(uint64_t left, uint64_t right)
{
	json_t *a = json_array();
	int failed = wm_json_push(a, wm_json_u64(left));

	failed |= wm_json_push(a, wm_json_u64(right));
	return wm_json_done(a, failed);
}

/* The watermark's progress of a subtask or a partition, into `o`. */
static int
put_progress(json_t *o, const struct wm_job_report *rep,
	     const struct wm_progress_reading *r)
{
	int failed = wm_json_put(o, "watermark",
				 r->watermark == WM_TS_MIN
					 ? json_null()
					 : json_integer(r->watermark));

	failed |= wm_json_put(o, "idle", json_boolean(r->idle));
	failed |= wm_json_put(o, "watermark_stalled_ms", ms(r->stalled_ns));
	failed |= wm_json_put(o, "longest_stall_ms", ms(r->longest_stall_ns));
	failed |= wm_json_put(o, "stalls", wm_json_u64(r->stalls));
	failed |= wm_json_put(o, "idle_ms", ms(r->idle_ns));
	failed |= wm_json_put(o, "idle_transitions", wm_json_u64(r->to_idle));
	failed |=
		wm_json_put(o, "active_transitions", wm_json_u64(r->to_active));
	failed |= wm_json_put(o, "longest_stall_cpu_wait_ms",
			      ms(r->longest_starved_ns));
	/* Real runs only: --sim has no scheduler, and its summary stays
	 * byte-identical. */
	if (!rep->sim) {
		failed |= wm_json_put(o, "noise_stalls",
				      wm_json_u64(r->noise_stalls));
		failed |= wm_json_put(o, "noise_stalled_ms",
				      ms(r->noise_stalled_ns));
		failed |= wm_json_put(o, "noise_cpu_wait_ms",
				      ms(r->noise_starved_ns));
	}
	return failed;
}

/* "name" or null: what held a watermark (wm_report_held_by_name()). */
static json_t *
held_by(const struct wm_topology *t, const struct wm_job_report *rep,
	const struct wm_subtask_report *s, uint32_t who)
{
	char name[96];

	if (wm_report_held_by_name(t, rep, s, who, name, sizeof(name)))
		return wm_json_text(name);
	return json_null();
}

/* Each map's rows, as the summary's lines for them: in, out, filtered,
 * and record errors by cause (an object of the causes with any). */
static json_t *
maps(const struct wm_topology *t, const struct wm_job_report *rep)
{
	json_t *a = json_array();
	int failed = 0;

	for (uint32_t k = 0; k < rep->n_maps; k++) {
		const struct wm_map_report *m = &rep->maps[k];
		json_t *o = json_object();
		json_t *errors = json_object();
		int f = wm_json_put(o, "name",
				    wm_json_text(t->stages[m->stage].name));

		f |= wm_json_put(o, "in", wm_json_u64(m->in));
		f |= wm_json_put(o, "out", wm_json_u64(m->out));
		f |= wm_json_put(o, "filtered", wm_json_u64(m->filtered));
		for (uint32_t c = 1; c < WM_METRICS_MAP_CAUSES; c++)
			if (m->errors[c] > 0)
				f |= wm_json_put(errors,
						 wm_expr_status_name((
							 enum wm_expr_status)c),
						 wm_json_u64(m->errors[c]));
		f |= wm_json_put(o, "errors", errors);
		failed |= wm_json_push(a, wm_json_done(o, f));
	}
	return wm_json_done(a, failed);
}

/* One subtask of stage `st`, as an object. */
static json_t *
subtask(const struct wm_topology *t, const struct wm_job_report *rep,
	const struct wm_stage *st, const struct wm_subtask_report *s)
{
	json_t *o = json_object();
	int failed = wm_json_put(o, "index", json_integer(s->index));

	failed |= wm_json_put(o, "records_in", wm_json_u64(s->records_in));
	failed |= wm_json_put(o, "records_out", wm_json_u64(s->records_out));
	if (st->kind == WM_STAGE_WINDOW) {
		failed |= wm_json_put(o, "records_windowed",
				      wm_json_u64(s->records_windowed));
		failed |= wm_json_put(o, "late_records_dropped",
				      wm_json_u64(s->late_dropped));
		failed |= wm_json_put(o, "late_records_side_output",
				      wm_json_u64(s->late_side_output));
		failed |= wm_json_put(o, "windows_fired",
				      wm_json_u64(s->windows_fired));
	}
	if (st->kind == WM_STAGE_JOIN) {
		json_t *j = json_object();

		failed |= wm_json_put(j, "records_in",
				      pair(s->join_in[0], s->join_in[1]));
		failed |= wm_json_put(j, "late_records_dropped",
				      pair(s->join_late[0], s->join_late[1]));
		failed |= wm_json_put(
			j, "late_records_side_output",
			pair(s->join_late_out[0], s->join_late_out[1]));
		failed |= wm_json_put(
			j, "buffered",
			pair(s->join_buffered[0], s->join_buffered[1]));
		failed |= wm_json_put(j, "pairs", wm_json_u64(s->results));
		failed |= wm_json_put(o, "join", j);
	}
	if (st->kind == WM_STAGE_SOURCE && st->u.source.alignment_group != NULL)
		failed |= wm_json_put(o, "alignment_waiting_ms",
				      ms(s->alignment_waiting_ns));
	/* Real runs only: --sim's summary stays byte-identical. */
	if (!rep->sim) {
		failed |= wm_json_put(o, "cpu_wait_ms", ms(s->cpu_wait_ns));
		failed |= wm_json_put(o, "late_max_ms", ms(s->late_max_ns));
	}
	/* Only a source fed from outside has any (metrics.h). */
	if (s->source_outages > 0 || s->source_unreachable ||
	    s->source_exit_code != 0) {
		failed |= wm_json_put(o, "source_outages",
				      json_integer(s->source_outages));
		failed |= wm_json_put(o, "source_outage_ms",
				      ms(s->source_outage_ns));
		failed |= wm_json_put(o, "source_unreachable",
				      json_boolean(s->source_unreachable));
		failed |= wm_json_put(o, "source_exit_code",
				      json_integer(s->source_exit_code));
		failed |= wm_json_put(o, "source_stopped",
				      s->source_exit_code != 0
					      ? wm_json_text(s->source_why)
					      : json_null());
	}
	failed |= wm_json_put(o, "longest_stall_held_by",
			      held_by(t, rep, s, s->held_by));
	failed |= wm_json_put(o, "held_by_now",
			      held_by(t, rep, s, s->held_by_now));
	failed |= put_progress(o, rep, &s->wm);
	return wm_json_done(o, failed);
}

/* Every partition of source stage `stage`, in subtask order. */
static json_t *
partitions(const struct wm_job_report *rep, uint32_t stage)
{
	json_t *a = json_array();
	int failed = 0;

	for (uint32_t i = 0; i < rep->n_subtasks; i++) {
		const struct wm_subtask_report *s = &rep->subtasks[i];

		if (s->stage != stage)
			continue;
		for (uint32_t p = 0; p < s->n_partitions; p++) {
			const struct wm_partition_report *pr =
				&s->partitions[p];
			json_t *o = json_object();

			failed |= wm_json_put(o, "partition",
					      json_integer(pr->partition));
			failed |= wm_json_put(o, "subtask",
					      json_integer(pr->subtask));
			failed |= wm_json_put(o, "records",
					      wm_json_u64(pr->records));
			failed |= wm_json_put(o, "alignment_paused_ms",
					      ms(pr->alignment_paused_ns));
			failed |= put_progress(o, rep, &pr->wm);
			failed |= wm_json_push(a, o);
		}
	}
	return wm_json_done(a, failed);
}

static json_t *
stage(const struct wm_topology *t, const struct wm_job_report *rep,
      uint32_t stage)
{
	const struct wm_stage *st = &t->stages[stage];
	json_t *o = json_object(), *subtasks = json_array();
	uint64_t in = 0, out = 0;
	int failed = 0;

	for (uint32_t i = 0; i < rep->n_subtasks; i++)
		if (rep->subtasks[i].stage == stage) {
			in += rep->subtasks[i].records_in;
			out += rep->subtasks[i].records_out;
			failed |= wm_json_push(
				subtasks,
				subtask(t, rep, st, &rep->subtasks[i]));
		}
	failed |= wm_json_put(o, "name", wm_json_text(st->name));
	failed |= wm_json_put(o, "kind",
			      wm_json_text(wm_stage_kind_name(st->kind)));
	failed |= wm_json_put(o, "parallelism", json_integer(st->parallelism));
	failed |= wm_json_put(o, "records_in", wm_json_u64(in));
	failed |= wm_json_put(o, "records_out", wm_json_u64(out));
	failed |= wm_json_put(o, "subtasks", subtasks);
	if (st->kind == WM_STAGE_SOURCE)
		failed |= wm_json_put(o, "partitions", partitions(rep, stage));
	return wm_json_done(o, failed);
}

/* The alerts, into the summary `o`; "ended_ms" null for an episode still
 * going on at the end, "held_ms" the difference of the two times as
 * written, so that a reader finds at_ms - since_ms = held_ms whatever the
 * nanoseconds were. */
static int
put_alerts(json_t *o, const struct wm_topology *t,
	   const struct wm_job_report *rep)
{
	json_t *alerts = json_array();
	char subject[300];
	int failed = wm_json_put(o, "alerts_raised",
				 wm_json_u64(rep->alerts_raised));

	for (uint32_t i = 0; i < rep->n_alerts; i++) {
		const struct wm_alert *al = &rep->alerts[i];
		json_t *a = json_object();

		failed |= wm_json_put(a, "at_ms", ms(al->at_ns));
		failed |= wm_json_put(a, "tier",
				      wm_json_text(wm_alert_tier_name(
					      (enum wm_alert_tier)al->tier)));
		failed |= wm_json_put(a, "kind",
				      wm_json_text(wm_alert_kind_name(
					      (enum wm_alert_kind)al->kind)));
		failed |=
			wm_json_put(a, "subject",
				    wm_json_text(wm_alert_subject(
					    al, t, subject, sizeof(subject))));
		if (wm_alert_kind_counts((enum wm_alert_kind)al->kind))
			failed |= wm_json_put(a, "count",
					      json_integer(al->count));
		failed |= wm_json_put(a, "since_ms", ms(al->since_ns));
		failed |= wm_json_put(a, "held_ms",
				      json_integer(al->at_ns / 1000000 -
						   al->since_ns / 1000000));
		failed |= wm_json_put(a, "ended_ms",
				      al->ended_ns != WM_ALERT_OPEN
					      ? ms(al->ended_ns)
					      : json_null());
		failed |= wm_json_push(alerts, a);
	}
	failed |= wm_json_put(o, "alerts", alerts);
	return failed;
}

/* "diagnosis": the lines on what held each window subtask, from `a`. */
static json_t *
diagnosis(const struct wm_topology *t, const struct wm_job_report *rep,
	  const struct wm_advice *a)
{
	json_t *lines = json_array();
	int failed = 0;

	for (uint32_t i = 0; i < a->n; i++) {
		const struct wm_advice_line *l = &a->lines[i];
		const struct wm_subtask_report *s;
		json_t *d;

		if (l->kind == WM_ADVICE_FLAPPING) {
			d = json_object();
			failed |= wm_json_put(
				d, "source",
				wm_json_text(t->stages[l->stage].name));
			failed |= wm_json_put(d, "idle_spells",
					      wm_json_u64(l->idle_spells));
			failed |= wm_json_put(d, "text", wm_json_text(l->text));
			failed |= wm_json_push(lines, d);
			continue;
		}
		if (l->kind != WM_ADVICE_HELD)
			continue;
		s = &rep->subtasks[l->subtask];
		d = json_object();
		failed |= wm_json_put(d, "window",
				      wm_json_text(t->stages[s->stage].name));
		failed |= wm_json_put(d, "subtask", json_integer(s->index));
		failed |=
			wm_json_put(d, "waited_ms", ms(s->wm.longest_stall_ns));
		failed |= wm_json_put(d, "text", wm_json_text(l->text));
		failed |= wm_json_push(lines, d);
	}
	return wm_json_done(lines, failed);
}

/* "advice": the settings, each with its key, stage, value (null where
 * none fits), the figure it must clear (from_ms) and the figures as
 * text. */
static json_t *
advice(const struct wm_topology *t, const struct wm_advice *a)
{
	json_t *lines = json_array();
	int failed = 0;

	for (uint32_t i = 0; i < a->n; i++) {
		const struct wm_advice_line *l = &a->lines[i];
		const char *key = wm_advice_key(l->kind);
		json_t *s;

		if (wm_advice_is_diagnosis(l->kind))
			continue;
		s = json_object();
		failed |= wm_json_put(
			s, "key",
			wm_json_text(key != NULL ? key : "idle_timeout"));
		failed |= wm_json_put(s, "stage",
				      wm_json_text(t->stages[l->stage].name));
		failed |=
			wm_json_put(s, "value_ms",
				    l->value_ms >= 0 ? json_integer(l->value_ms)
						     : json_null());
		failed |= wm_json_put(s, "from_ms", json_integer(l->from_ms));
		failed |= wm_json_put(s, "text", wm_json_text(l->text));
		failed |= wm_json_push(lines, s);
	}
	return wm_json_done(lines, failed);
}

/* "diagnosis" and "advice", into the summary `o`. */
static int
put_advice(json_t *o, const struct wm_topology *t,
	   const struct wm_job_report *rep)
{
	struct wm_advice a;
	int failed;

	if (wm_advice_build(t, rep, &a) != 0)
		return -1;
	failed = wm_json_put(o, "diagnosis", diagnosis(t, rep, &a));
	failed |= wm_json_put(o, "advice", advice(t, &a));
	wm_advice_free(&a);
	return failed;
}

/* The restart that gave up ("gave_up" when the run restarted before it,
 * else "restart"), as print_checkpoints() (report_print.c) says it. */
static json_t *
gave_up(const struct wm_checkpoint_summary *c)
{
	json_t *o = json_object();
	int failed = wm_json_put(o, "at_ms", ms(c->restart_ns));

	failed |= wm_json_put(o, "strategy", wm_json_text(c->strategy));
	failed |= wm_json_put(o, "attempt", json_integer(c->attempt));
	failed |= wm_json_put(o, "gave_up", json_true());
	return wm_json_done(o, failed);
}

/* --sim's restart, with the replayed counts only it knows; held_ms -1:
 * never caught up. */
static json_t *
sim_restart(const struct wm_checkpoint_summary *c)
{
	json_t *o = json_object();
	int failed = wm_json_put(o, "at_ms", ms(c->restart_ns));

	failed |= wm_json_put(o, "strategy", wm_json_text(c->strategy));
	failed |= wm_json_put(o, "attempt", json_integer(c->attempt));
	failed |= wm_json_put(o, "delay_ms", ms(c->delay_ns));
	failed |= wm_json_put(o, "from_checkpoint",
			      wm_json_u64(c->restored_from));
	failed |= wm_json_put(o, "checkpoint_ms", ms(c->restored_from_ns));
	failed |= wm_json_put(o, "records_replayed",
			      wm_json_u64(c->records_replayed));
	failed |=
		wm_json_put(o, "results_again", wm_json_u64(c->results_again));
	failed |=
		wm_json_put(o, "held_ms",
			    c->held_ns < 0 ? json_integer(-1) : ms(c->held_ns));
	return wm_json_done(o, failed);
}

/* Each restart of a real run, its cause as the supervisor named it. */
static json_t *
restarts(const struct wm_checkpoint_summary *c)
{
	json_t *a = json_array();
	int failed = 0;

	for (uint32_t i = 0; i < c->restarts && i < WM_RESTART_NOTES; i++) {
		const struct wm_restart_note *n = &c->notes[i];
		json_t *o = json_object();

		failed |= wm_json_put(o, "at_ms", ms(n->at_ns));
		failed |= wm_json_put(o, "from_checkpoint",
				      wm_json_u64(n->restored_from));
		failed |= wm_json_put(o, "checkpoint_ms", ms(n->checkpoint_ns));
		failed |= wm_json_put(o, "delay_ms", ms(n->delay_ns));
		failed |= wm_json_put(o, "attempt", json_integer(n->attempt));
		failed |= wm_json_put(o, "held_ms",
				      n->held_ns < 0 ? json_integer(-1)
						     : ms(n->held_ns));
		failed |= wm_json_put(o, "cause", wm_json_text(n->cause));
		failed |= wm_json_push(a, o);
	}
	return wm_json_done(a, failed);
}

/* "checkpoints": the checkpoints and the restarts, as print_checkpoints()
 * (report_print.c) says them. */
static json_t *
checkpoints(const struct wm_job_report *rep)
{
	const struct wm_checkpoint_summary *c = &rep->checkpoints;
	json_t *o = json_object();
	int failed =
		wm_json_put(o, "completed", wm_json_u64(c->tally.completed));

	failed |= wm_json_put(o, "last_id", wm_json_u64(c->tally.last_id));
	failed |=
		wm_json_put(o, "last_bytes", wm_json_u64(c->tally.last_bytes));
	failed |= wm_json_put(o, "bytes", wm_json_u64(c->tally.bytes_total));
	failed |=
		wm_json_put(o, "duration_max_ms", ms(c->tally.duration_max_ns));
	/* A real run that restarted before its strategy gave up has
	 * "restart" (its last one) and "gave_up" apart. */
	if (c->gave_up)
		failed |= wm_json_put(o, c->restarted ? "gave_up" : "restart",
				      gave_up(c));
	/* A real run's restarts are in "restarts" below, without the
	 * replayed counts, which only --sim knows. */
	if (c->restarted && rep->sim)
		failed |= wm_json_put(o, "restart", sim_restart(c));
	failed |= wm_json_put(
		o, "alignment_max_ms",
		wm_json_fixed((double)c->tally.alignment_max_ns / 1e6, 3));
	failed |= wm_json_put(o, "timed_out", wm_json_u64(c->tally.timed_out));
	failed |= wm_json_put(o, "failed", wm_json_u64(c->tally.failed));
	failed |= wm_json_put(o, "restarts", restarts(c));
	return wm_json_done(o, failed);
}

/* "edges": records sent and received on each edge between stages, which
 * with records_in_flight account for what a stop left between them. */
static json_t *
edges(const struct wm_topology *t, const struct wm_job_report *rep)
{
	json_t *a = json_array();
	int failed = 0;

	for (uint32_t i = 0; i < rep->n_edges; i++) {
		const struct wm_edge_report *e = &rep->edges[i];
		json_t *o = json_object();

		failed |= wm_json_put(o, "from",
				      wm_json_text(t->stages[e->from].name));
		failed |= wm_json_put(o, "to",
				      wm_json_text(t->stages[e->to].name));
		failed |= wm_json_put(o, "input", json_integer(e->input));
		failed |= wm_json_put(o, "sent", wm_json_u64(e->sent));
		failed |= wm_json_put(o, "received", wm_json_u64(e->received));
		failed |= wm_json_push(a, o);
	}
	return wm_json_done(a, failed);
}

/* "joins": the job's joins, both inputs added up. */
static json_t *
joins(const struct wm_job_report *rep)
{
	json_t *o = json_object();
	int failed = wm_json_put(o, "records_in",
				 pair(rep->join_in[0], rep->join_in[1]));

	failed |= wm_json_put(o, "records_kept",
			      wm_json_u64(rep->records_joined));
	failed |= wm_json_put(o, "late_records_dropped",
			      pair(rep->join_late[0], rep->join_late[1]));
	failed |=
		wm_json_put(o, "late_records_side_output",
			    pair(rep->join_late_out[0], rep->join_late_out[1]));
	failed |= wm_json_put(o, "records_without_timestamp",
			      wm_json_u64(rep->join_rejected));
	failed |= wm_json_put(o, "pairs_written",
			      wm_json_u64(rep->pairs_written));
	failed |= wm_json_put(o, "buffered_at_end",
			      wm_json_u64(rep->join_buffered));
	return wm_json_done(o, failed);
}

/* The fire delays' percentiles, in milliseconds. */
static json_t *
fire_delays(const struct wm_job_report *rep)
{
	json_t *o = json_object();
	int failed =
		wm_json_put(o, "p50", json_integer(rep->fire_delay_p50_ms));

	failed |= wm_json_put(o, "p99", json_integer(rep->fire_delay_p99_ms));
	failed |= wm_json_put(o, "max", json_integer(rep->fire_delay_max_ms));
	return wm_json_done(o, failed);
}

/* The job's counts, up to the joins, into the summary `o`. */
static int
put_counts(json_t *o, const struct wm_job_report *rep)
{
	int failed =
		wm_json_put(o, "records_read", wm_json_u64(rep->records_read));

	failed |= wm_json_put(o, "bad_records_skipped",
			      wm_json_u64(rep->bad_records_skipped));
	failed |= wm_json_put(o, "heartbeats", wm_json_u64(rep->heartbeats));
	failed |= wm_json_put(o, "records_windowed",
			      wm_json_u64(rep->records_windowed));
	failed |= wm_json_put(o, "late_records_dropped",
			      wm_json_u64(rep->late_dropped));
	failed |= wm_json_put(o, "late_records_side_output",
			      wm_json_u64(rep->late_side_output));
	failed |= wm_json_put(o, "records_in_no_window",
			      wm_json_u64(rep->other_dropped));
	failed |= wm_json_put(o, "windows_fired",
			      wm_json_u64(rep->windows_fired));
	failed |= wm_json_put(o, "windows_fired_late",
			      wm_json_u64(rep->windows_fired_late));
	failed |= wm_json_put(o, "results_written",
			      wm_json_u64(rep->results_written));
	failed |= wm_json_put(o, "records_to_windows",
			      wm_json_u64(rep->records_to_windows));
	failed |= wm_json_put(o, "records_due_to_windows",
			      wm_json_u64(rep->records_due_to_windows));
	failed |= wm_json_put(o, "fire_delay_ms", fire_delays(rep));
	failed |= wm_json_put(o, "fire_delays_excluded",
			      wm_json_u64(rep->fire_delays_excluded));
	failed |= wm_json_put(o, "processing_time_ms", ms(rep->end_ns));
	failed |= wm_json_put(o, "clock_zero_ms",
			      json_integer(rep->clock_zero_ms));
	return failed;
}

/* The wall-clock figures of a real run, into the summary `o`: they would
 * make two --sim summaries differ. */
static int
put_wall_clock(json_t *o, const struct wm_job_report *rep)
{
	uint64_t stalls;
	int64_t stalled_ns, starved_ns;
	int failed;

	wm_report_noise_total(rep, &stalls, &stalled_ns, &starved_ns);
	failed = wm_json_put(o, "wall_time_ms", ms(rep->wall_ns));
	failed |= wm_json_put(o, "scheduling_noise_ms",
			      ms(wm_job_report_noise_ns(rep)));
	failed |= wm_json_put(o, "noise_stalls", wm_json_u64(stalls));
	failed |= wm_json_put(o, "noise_stalled_ms", ms(stalled_ns));
	failed |= wm_json_put(o, "noise_cpu_wait_ms", ms(starved_ns));
	return failed;
}

/* The summary, whole, or NULL when an allocation failed. */
static json_t *
summary(const struct wm_topology *t, const struct wm_job_report *rep)
{
	json_t *o = json_object(), *stages = json_array();
	int failed = wm_json_put(o, "job",
				 wm_json_text(t->job.name ? t->job.name : ""));

	failed |=
		wm_json_put(o, "mode", wm_json_text(rep->sim ? "sim" : "real"));
	failed |= put_counts(o, rep);
	if (rep->has_joins)
		failed |= wm_json_put(o, "joins", joins(rep));
	failed |=
		wm_json_put(o, "outcome", wm_json_text(wm_report_outcome(rep)));
	if (rep->stopped)
		failed |= wm_json_put(o, "stopped", json_true());
	failed |= wm_json_put(o, "records_in_flight",
			      wm_json_u64(rep->in_flight));
	failed |= wm_json_put(o, "edges", edges(t, rep));
	if (!rep->sim)
		failed |= put_wall_clock(o, rep);
	failed |= wm_json_put(o, "records_per_s",
			      wm_json_fixed(wm_report_records_per_s(rep), 1));
	failed |= wm_json_put(o, "all_records_accounted",
			      json_boolean(wm_report_accounted(rep)));
	for (uint32_t s = 0; s < t->n_stages; s++)
		if (!wm_stage_chained(t->stages[s].kind))
			failed |= wm_json_push(stages, stage(t, rep, s));
	failed |= wm_json_put(o, "stages", stages);
	if (rep->n_maps > 0)
		failed |= wm_json_put(o, "maps", maps(t, rep));
	if (wm_alerts_configured(&t->job))
		failed |= put_alerts(o, t, rep);
	if (rep->checkpointing)
		failed |= wm_json_put(o, "checkpoints", checkpoints(rep));
	failed |= put_advice(o, t, rep);
	return wm_json_done(o, failed);
}

int
wm_report_print_json(FILE *f, const struct wm_topology *t,
		     const struct wm_job_report *rep)
{
	json_t *o = summary(t, rep);
	int r;

	if (o == NULL)
		return -ENOMEM;
	r = wm_json_write_line(f, o);
	json_decref(o);
	if (r == 0)
		return 0;
	return ferror(f) ? -EIO : -ENOMEM;
}
