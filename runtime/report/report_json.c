/*
 * report_json.c
 *	The job summary as one JSON object (wm_report_print_json(), --summary
 *	FILE), from the figures report.c collected.
 *
 * The fields are defined in report.h; scripts and tests read them, so a
 * field is added, never renamed. Every string from the user (job, stage
 * and partition names, causes) goes through json_string(). A --sim
 * summary is compared byte for byte across changes: it holds no
 * wall-clock figure.
 */
#include "config.h"

#include <inttypes.h>

#include "runtime/report/advice.h"
#include "runtime/report/report.h"
#include "runtime/report/report_internal.h"

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

/* "name" or null: what held a watermark (wm_report_held_by_name()). */
static void
json_held_by(FILE *f, const struct wm_topology *t,
	     const struct wm_job_report *rep, const struct wm_subtask_report *s,
	     uint32_t who)
{
	char name[96];

	if (wm_report_held_by_name(t, rep, s, who, name, sizeof(name)))
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
	if (st->kind == WM_STAGE_JOIN)
		fprintf(f,
			"\"join\":{\"records_in\":[%" PRIu64 ",%" PRIu64
			"],\"late_records_dropped\":[%" PRIu64 ",%" PRIu64
			"],\"late_records_side_output\":[%" PRIu64 ",%" PRIu64
			"],\"buffered\":[%" PRIu64 ",%" PRIu64
			"],\"pairs\":%" PRIu64 "},",
			s->join_in[0], s->join_in[1], s->join_late[0],
			s->join_late[1], s->join_late_out[0],
			s->join_late_out[1], s->join_buffered[0],
			s->join_buffered[1], s->results);
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
		if (wm_alert_kind_counts((enum wm_alert_kind)al->kind))
			fprintf(f, ",\"count\":%" PRIu32, al->count);
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

		if (l->kind == WM_ADVICE_FLAPPING) {
			fprintf(f, "%s{\"source\":", first ? "" : ",");
			json_string(f, t->stages[l->stage].name);
			fprintf(f, ",\"idle_spells\":%" PRIu64 ",\"text\":",
				l->idle_spells);
			json_string(f, l->text);
			fputc('}', f);
			first = false;
			continue;
		}
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

		if (wm_advice_is_diagnosis(l->kind))
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

/* The checkpoints and the restart, as print_checkpoints() (report_print.c)
 * says them; held_ms -1: never caught up. */
static void
json_checkpoints(FILE *f, const struct wm_job_report *rep)
{
	const struct wm_checkpoint_summary *c = &rep->checkpoints;

	fprintf(f,
		",\"checkpoints\":{\"completed\":%" PRIu64
		",\"last_id\":%" PRIu64 ",\"last_bytes\":%" PRIu64
		",\"bytes\":%" PRIu64 ",\"duration_max_ms\":%" PRId64,
		c->tally.completed, c->tally.last_id, c->tally.last_bytes,
		c->tally.bytes_total, c->tally.duration_max_ns / 1000000);
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
		(double)c->tally.alignment_max_ns / 1e6, c->tally.timed_out,
		c->tally.failed);
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

/* "edges": records sent and received on each edge between stages, which
 * with records_in_flight account for what a stop left between them. */
static void
json_edges(FILE *f, const struct wm_topology *t,
	   const struct wm_job_report *rep)
{
	fputs(",\"edges\":[", f);
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
		",\"bad_records_skipped\":%" PRIu64 ",\"heartbeats\":%" PRIu64
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
		",\"processing_time_ms\":%" PRId64
		",\"clock_zero_ms\":%" PRId64,
		rep->sim ? "sim" : "real", rep->records_read,
		rep->bad_records_skipped, rep->heartbeats,
		rep->records_windowed, rep->late_dropped, rep->late_side_output,
		rep->other_dropped, rep->windows_fired, rep->windows_fired_late,
		rep->results_written, rep->records_to_windows,
		rep->records_due_to_windows, rep->fire_delay_p50_ms,
		rep->fire_delay_p99_ms, rep->fire_delay_max_ms,
		rep->fire_delays_excluded, rep->end_ns / 1000000,
		rep->clock_zero_ms);
	if (rep->has_joins)
		fprintf(f,
			",\"joins\":{\"records_in\":[%" PRIu64 ",%" PRIu64
			"],\"records_kept\":%" PRIu64
			",\"late_records_dropped\":[%" PRIu64 ",%" PRIu64
			"],\"late_records_side_output\":[%" PRIu64 ",%" PRIu64
			"],\"records_without_timestamp\":%" PRIu64
			",\"pairs_written\":%" PRIu64
			",\"buffered_at_end\":%" PRIu64 "}",
			rep->join_in[0], rep->join_in[1], rep->records_joined,
			rep->join_late[0], rep->join_late[1],
			rep->join_late_out[0], rep->join_late_out[1],
			rep->join_rejected, rep->pairs_written,
			rep->join_buffered);
	fprintf(f, ",\"outcome\":\"%s\"", wm_report_outcome(rep));
	if (rep->stopped)
		fprintf(f, ",\"stopped\":true");
	fprintf(f, ",\"records_in_flight\":%" PRIu64, rep->in_flight);
	json_edges(f, t, rep);
	/* Wall-clock time would make two --sim summaries differ. */
	if (!rep->sim) {
		uint64_t stalls;
		int64_t stalled_ns, starved_ns;

		wm_report_noise_total(rep, &stalls, &stalled_ns, &starved_ns);
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
