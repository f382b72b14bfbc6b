/*
 * view.c
 *	The screen and the log lines of a running job (view.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/time.h"
#include "lib/units.h"
#include "runtime/observe/view.h"

/* What a lines view last said about a subtask's watermark. */
/* What holds a subtask's watermark: the end of its blame chain. */
struct holder {
	uint32_t subtask, partition;
	enum wm_blame_cause cause;
};

struct said {
	bool held; /* a "held" line was the last */
	struct holder holder;
	wm_ts_t watermark;
	int64_t held_since_ns; /* processing time it stopped moving */
	/* Another holder seen since that line, and since when (processing
	 * time; -1: none): news once it has lasted news_after(). */
	struct holder next;
	int64_t next_since_ns;
};

struct wm_view {
	const struct wm_topology *topo;
	const struct wm_plan *plan;
	int64_t start_real_ns;
	int64_t status_every_ns;
	int64_t next_status_ns; /* real time of the next status line */
	int64_t stall_ns;	/* the job's stall threshold */
	int64_t noise_ns;	/* a real run's scheduling noise; 0 */
	uint32_t rows;		/* the terminal's; 0: unknown, no limit */
	struct said *said;	/* by plan id */
	/* By plan id, for one frame of a screen too short for every row:
	 * whether the subtask is on the way from a held subtask to what
	 * holds it (wm_view_screen()). */
	bool *on_chain;
};

struct wm_view *
wm_view_new(const struct wm_topology *topo, const struct wm_plan *plan,
	    int64_t start_real_ns, int64_t status_every_ns)
{
	struct wm_view *v = calloc(1, sizeof(*v));

	if (v == NULL)
		return NULL;
	v->said = calloc(plan->n_subtasks ? plan->n_subtasks : 1,
			 sizeof(*v->said));
	v->on_chain = calloc(plan->n_subtasks ? plan->n_subtasks : 1,
			     sizeof(*v->on_chain));
	if (v->said == NULL || v->on_chain == NULL) {
		free(v->said);
		free(v->on_chain);
		free(v);
		errno = ENOMEM;
		return NULL;
	}
	v->topo = topo;
	v->plan = plan;
	v->start_real_ns = start_real_ns;
	v->status_every_ns = status_every_ns;
	v->next_status_ns = start_real_ns + status_every_ns;
	v->stall_ns = wm_ms_to_ns(topo->job.stall_threshold_ms);
	return v;
}

void
wm_view_set_noise(struct wm_view *v, int64_t noise_ns)
{
	v->noise_ns = noise_ns;
}

void
wm_view_set_rows(struct wm_view *v, uint32_t rows)
{
	v->rows = rows;
}

/* How long a watermark must stand still to be news: the stall threshold,
 * and never less than what the scheduler alone can do. */
static int64_t
news_after(const struct wm_view *v)
{
	return v->stall_ns > v->noise_ns ? v->stall_ns : v->noise_ns;
}

void
wm_view_free(struct wm_view *v)
{
	if (v == NULL)
		return;
	free(v->said);
	free(v->on_chain);
	free(v);
}

static const char *
subtask_name(const struct wm_view *v, uint32_t id, char *buf, size_t len)
{
	return wm_plan_subtask_name(v->plan, v->topo, id, buf, len);
}

/* A source's partition as the summary names it: "events-13". */
static const char *
partition_name(const struct wm_view *v, uint32_t id, uint32_t partition,
	       char *buf, size_t len)
{
	snprintf(buf, len, "%s-%u",
		 v->topo->stages[v->plan->subtasks[id].stage].name, partition);
	return buf;
}

/* Done by the bound that ends the job first: processing time, the
 * slowest generated source's event time, or records per partition. */
double
wm_view_done(const struct wm_view *v, const struct wm_snapshot *snap)
{
	const struct wm_job_conf *job = &v->topo->job;
	double done = -1.0;
	uint64_t records = 0, partitions = 0;
	wm_ts_t slowest = WM_TS_MAX;
	bool generated = true;

	if (job->processing_time_ms != INT64_MAX && job->processing_time_ms > 0)
		done = (double)snap->processing_ns /
		       ((double)job->processing_time_ms * 1e6);
	for (uint32_t id = 0; id < snap->n_subtasks; id++) {
		const struct wm_plan_subtask *sub = &v->plan->subtasks[id];
		const struct wm_stage *st = &v->topo->stages[sub->stage];
		const struct wm_snap_subtask *s = &snap->subtasks[id];

		if (st->kind != WM_STAGE_SOURCE)
			continue;
		/* [job] records cuts neither a trace nor a Nexmark
		 * stream: the progress below does not apply. */
		generated = generated &&
			    st->u.source.kind != WM_SOURCE_REPLAY &&
			    st->u.source.kind != WM_SOURCE_NEXMARK;
		records += s->records_out;
		partitions += sub->n_partitions;
		if (s->newest_event_time < slowest)
			slowest = s->newest_event_time;
	}
	if (generated && job->event_time_ms != INT64_MAX &&
	    job->event_time_ms > 0 && slowest != WM_TS_MAX) {
		/* Generated event time runs from the origin. */
		double ran =
			(double)slowest - (double)job->event_time_origin_ms;
		double f = ran <= 0 ? 0.0 : ran / (double)job->event_time_ms;

		done = f > done ? f : done;
	}
	if (generated && job->records != UINT64_MAX && partitions > 0) {
		double f = (double)records /
			   ((double)job->records * (double)partitions);

		done = f > done ? f : done;
	}
	return done > 1.0 ? 1.0 : done;
}

/* A restarted job: how many restarts, and how long event time has been
 * (or was) held since the last restore, until the windows' watermarks came
 * back where they were at the crash. Nothing for a job that never
 * restarted. What holds it now is on the subtasks' lines. */
static void
restart_text(const struct wm_snapshot *snap, FILE *f)
{
	bool over;
	int64_t held = wm_snapshot_hold(snap, &over);
	char a[32], b[32];

	if (held < 0)
		return;
	fprintf(f,
		"restarts %" PRIu32 ", the last restored at %s: event time "
		"held %s%s",
		snap->restarts,
		wm_units_format_duration(snap->restored_ns, a, sizeof(a)),
		wm_units_format_duration(held, b, sizeof(b)),
		over ? " after it" : " so far");
}

/* The job, how far it is and how long it has left first (a narrow
 * terminal cuts the end of the line), then its real and processing
 * time. */
static void
head_line(const struct wm_view *v, const struct wm_snapshot *snap, FILE *f)
{
	int64_t real = snap->real_ns - v->start_real_ns;
	double done = wm_view_done(v, snap);
	char a[32], b[32], c[32], d[32];

	fprintf(f, "wmrun: job \"%s\": ",
		v->topo->job.name != NULL ? v->topo->job.name : "unnamed");
	if (done >= 0.01)
		fprintf(f, "%.0f %% done, %s left, ", done * 100.0,
			wm_units_format_duration(
				(int64_t)((double)real * (1.0 - done) / done),
				c, sizeof(c)));
	else if (done >= 0.0)
		fprintf(f, "%.0f %% done, ", done * 100.0);
	fprintf(f, "%s, processing time %s at speed %g",
		wm_units_format_duration(real, a, sizeof(a)),
		wm_units_format_duration(snap->processing_ns, b, sizeof(b)),
		v->topo->job.speed);
	if (v->noise_ns > 0)
		fprintf(f, " (noise %s)",
			wm_units_format_duration(v->noise_ns, d, sizeof(d)));
	fputc('\n', f);
	if (snap->restarts > 0) {
		fputs("  ", f);
		restart_text(snap, f);
		fputc('\n', f);
	}
}

/* "12.3 k" for figures per second; "-" when unknown. */
static const char *
rate(double per_s, char *buf, size_t len)
{
	if (per_s < 0)
		snprintf(buf, len, "-");
	else if (per_s < 10000)
		snprintf(buf, len, "%.0f", per_s);
	else if (per_s < 10e6)
		snprintf(buf, len, "%.1f k", per_s / 1e3);
	else
		snprintf(buf, len, "%.1f M", per_s / 1e6);
	return buf;
}

/* Days a screen counts from the job's first day before it shows a date. */
#define VIEW_MAX_DAYS 9

/* An event time `ms` as a clock shows it: the time of day alone on the
 * UTC day the job's clock started (`zero_ms`, sources.h), the same with
 * the days from it ("+1d 00:00:03.999") within VIEW_MAX_DAYS, a date
 * besides further off. So a screen of a job on the wall clock is not
 * eleven columns wider than one from 0, nor a job that runs past
 * midnight seven, and an 80-column screen keeps the mark of the input
 * that holds a watermark. */
static const char *
event_time(int64_t zero_ms, int64_t ms, char *buf, size_t len)
{
	int64_t day = zero_ms -
		      (zero_ms % WM_MS_PER_DAY + WM_MS_PER_DAY) % WM_MS_PER_DAY;
	int64_t since_day, days, of_day;
	char clock[32];

	if (ms == WM_TS_MIN || ms == WM_TS_MAX ||
	    __builtin_sub_overflow(ms, day, &since_day))
		return wm_units_format_event_time(ms, buf, len);
	/* Floor division: a time before the first day is on a day before. */
	days = since_day / WM_MS_PER_DAY -
	       (since_day % WM_MS_PER_DAY < 0 ? 1 : 0);
	of_day = since_day - days * WM_MS_PER_DAY;
	if (days == 0)
		return wm_units_format_event_time(of_day, buf, len);
	if (days < -VIEW_MAX_DAYS || days > VIEW_MAX_DAYS)
		return wm_units_format_event_time(ms, buf, len);
	snprintf(buf, len, "%+lldd %s", (long long)days,
		 wm_units_format_event_time(of_day, clock, sizeof(clock)));
	return buf;
}

static const char *
lag(const struct wm_snap_subtask *s, char *buf, size_t len)
{
	if (s->watermark == WM_TS_MIN || s->newest_event_time == WM_TS_MIN ||
	    s->watermark == WM_TS_MAX)
		return strcpy(buf, "-");
	if (s->newest_event_time <= s->watermark)
		return strcpy(buf, "0 ms");
	return wm_units_format_duration(
		wm_ms_to_ns(s->newest_event_time - s->watermark), buf, len);
}

static const char *
cause_word(enum wm_blame_cause c)
{
	switch (c) {
	case WM_BLAME_SILENCE:
		return "silence: nothing arrives";
	case WM_BLAME_BACKPRESSURE:
		return "back-pressure: its output rings are full";
	case WM_BLAME_STARVED:
		return "starved: its process waits for a CPU";
	case WM_BLAME_BEHIND:
		return "behind: records are due, its process does not run";
	case WM_BLAME_SLOW:
		return "its watermark is the lowest";
	case WM_BLAME_NONE:
		break;
	}
	return "nothing";
}

/* "events/3 partition events-13" or "counts/0 via events/3, ...": what
 * the blame chain ends at, and the way to it. */
static void
blame_text(const struct wm_view *v, const struct wm_blame *bl, FILE *f)
{
	uint32_t end = bl->hop[bl->n_hops - 1];
	char a[96], b[96];

	if (bl->partition != UINT32_MAX)
		fprintf(f, "partition %s of %s",
			partition_name(v, end, bl->partition, a, sizeof(a)),
			subtask_name(v, end, b, sizeof(b)));
	else
		fprintf(f, "%s", subtask_name(v, end, a, sizeof(a)));
	for (uint32_t h = bl->n_hops - 1; h > 1; h--)
		fprintf(f, " via %s",
			subtask_name(v, bl->hop[h - 1], a, sizeof(a)));
}

/* An input's line: what holds a subtask whose hold is news is the
 * answer the screen is for; the rest is detail. */
static void
mark_input(struct wm_screen *scr, bool holds, bool news, bool idle)
{
	if (holds && news)
		wm_screen_mark(scr, WM_SCREEN_HELD, WM_SCREEN_ANSWER);
	else
		wm_screen_mark(scr, idle ? WM_SCREEN_IDLE : WM_SCREEN_PLAIN,
			       WM_SCREEN_DETAIL);
}

/* A subtask's inputs: a source's partitions, an operator's channels,
 * the one that holds it marked; only that one unless `all`. */
static void
screen_inputs(const struct wm_view *v, uint32_t id,
	      const struct wm_snap_subtask *s, bool all, bool news,
	      struct wm_screen *scr)
{
	FILE *f = wm_screen_file(scr);
	char a[96], b[48], r[16];

	for (uint32_t i = 0; i < s->n_partitions; i++) {
		const struct wm_snap_partition *p = &s->partitions[i];

		if (!all && (s->idle || s->held_by != p->partition))
			continue;
		mark_input(scr, !s->idle && s->held_by == p->partition, news,
			   p->idle);
		fprintf(f, "    partition %-20s %-12s %-6s %s/s%s\n",
			partition_name(v, id, p->partition, a, sizeof(a)),
			event_time(s->clock_zero_ms, p->watermark, b,
				   sizeof(b)),
			p->idle ? "IDLE" : "ACTIVE",
			rate(p->records_per_s, r, sizeof(r)),
			!s->idle && s->held_by == p->partition ? "  <- minimum"
							       : "");
	}
	for (uint32_t c = 0; c < s->n_channels; c++) {
		const struct wm_snap_channel *ch = &s->channels[c];

		if (!all && (s->idle || s->held_by != c))
			continue;
		mark_input(scr, !s->idle && s->held_by == c, news, ch->idle);
		fprintf(f, "    from %-25s %-12s %-6s%s\n",
			subtask_name(v, ch->producer, a, sizeof(a)),
			event_time(s->clock_zero_ms, ch->watermark, b,
				   sizeof(b)),
			ch->idle ? "IDLE" : "ACTIVE",
			!s->idle && s->held_by == c ? "  <- minimum" : "");
	}
}

/* A stage's line above its subtasks: its lowest watermark (of subtasks
 * not IDLE), records per second in and out, and late records, summed. */
static void
stage_line(const struct wm_view *v, const struct wm_snapshot *snap,
	   uint32_t first, FILE *f)
{
	uint32_t stage = v->plan->subtasks[first].stage;
	const struct wm_stage *st = &v->topo->stages[stage];
	wm_ts_t lowest = WM_TS_MAX;
	double in = 0, out = 0;
	uint64_t late = 0;
	char wm[48], a[16], b[16];

	for (uint32_t id = first;
	     id < snap->n_subtasks && v->plan->subtasks[id].stage == stage;
	     id++) {
		const struct wm_snap_subtask *s = &snap->subtasks[id];

		if (!s->idle && s->watermark < lowest)
			lowest = s->watermark;
		in += s->records_in_per_s > 0 ? s->records_in_per_s : 0;
		out += s->records_out_per_s > 0 ? s->records_out_per_s : 0;
		late += s->late_dropped;
	}
	fprintf(f, "%-22s %-12s %-12s %9s %9s %17s %8" PRIu64 "\n", st->name,
		lowest == WM_TS_MAX
			? "IDLE"
			: event_time(snap->subtasks[first].clock_zero_ms,
				     lowest, wm, sizeof(wm)),
		"", rate(in, a, sizeof(a)), rate(out, b, sizeof(b)), "", late);
}

/* Whether subtask id's watermark is news: held for long enough, with
 * what holds it in *bl. */
static bool
held_news(const struct wm_view *v, const struct wm_snapshot *snap, uint32_t id,
	  struct wm_blame *bl)
{
	const struct wm_snap_subtask *s = &snap->subtasks[id];

	wm_snapshot_blame(snap, v->plan, id, bl);
	return bl->cause != WM_BLAME_NONE &&
	       snap->processing_ns - s->since_ns >= news_after(v);
}

/* Subtask id's row, then its inputs (all of them, or only the one that
 * holds it) and its blame line if it is news. A subtask `on_chain` of
 * another's blame line is part of that answer, its row and the input
 * that holds it too, whether or not its own hold is news yet. */
static void
subtask_rows(const struct wm_view *v, const struct wm_snapshot *snap,
	     uint32_t id, bool all_inputs, bool on_chain, struct wm_screen *scr)
{
	const struct wm_snap_subtask *s = &snap->subtasks[id];
	FILE *f = wm_screen_file(scr);
	char name[96], wm[48], lg[32], in[16], out[16], d[32];
	struct wm_blame bl;
	bool news = held_news(v, snap, id, &bl);

	if (news || on_chain)
		wm_screen_mark(scr, WM_SCREEN_HELD, WM_SCREEN_ANSWER);
	else
		wm_screen_mark(scr, s->idle ? WM_SCREEN_IDLE : WM_SCREEN_PLAIN,
			       WM_SCREEN_SUBTASK);
	fprintf(f, "  %-20s %-12s %-12s %9s %9s ",
		subtask_name(v, id, name, sizeof(name)),
		s->idle ? "IDLE"
			: event_time(s->clock_zero_ms, s->watermark, wm,
				     sizeof(wm)),
		lag(s, lg, sizeof(lg)),
		rate(s->records_in_per_s, in, sizeof(in)),
		rate(s->records_out_per_s, out, sizeof(out)));
	if (s->busy_ms_per_s < 0)
		fprintf(f, "%5s %5s %5s", "-", "-", "-");
	else
		fprintf(f, "%5.0f %5.0f %5.0f", s->busy_ms_per_s,
			s->idle_ms_per_s, s->backpressured_ms_per_s);
	fprintf(f, " %8" PRIu64 "%s", s->late_dropped,
		s->finished ? "  finished" : "");
	/* A source fed from outside that lost its brokers says so. */
	if (s->source_unreachable)
		fprintf(f, "  brokers unreachable");
	else if (s->source_outages > 0)
		fprintf(f, "  %" PRIu32 " outage%s ridden out",
			s->source_outages, s->source_outages == 1 ? "" : "s");
	fputc('\n', f);
	screen_inputs(v, id, s, all_inputs, news || on_chain, scr);
	if (!news)
		return;
	wm_screen_mark(scr, WM_SCREEN_HELD, WM_SCREEN_ANSWER);
	fprintf(f, "    held for %s by ",
		wm_units_format_duration(bl.for_ns, d, sizeof(d)));
	blame_text(v, &bl, f);
	fprintf(f, " (%s)\n", cause_word(bl.cause));
}

/* Lines the whole screen takes. */
static uint32_t
screen_lines(const struct wm_view *v, const struct wm_snapshot *snap)
{
	uint32_t n = snap->restarts > 0 ? 3 : 2;
	struct wm_blame bl;

	for (uint32_t id = 0; id < snap->n_subtasks; id++) {
		const struct wm_snap_subtask *s = &snap->subtasks[id];

		if (id == 0 || v->plan->subtasks[id - 1].stage !=
				       v->plan->subtasks[id].stage)
			n++;
		n += 1 + s->n_partitions + s->n_channels +
		     (held_news(v, snap, id, &bl) ? 1 : 0);
	}
	return n;
}

/* Marks in v->on_chain every subtask on the way from a subtask whose
 * hold is news to what holds it, itself included. A window held for the
 * stall threshold may blame a source subtask whose own hold began later
 * (the window waited on another input first): the screen must still show
 * the row it names. */
static void
mark_chains(struct wm_view *v, const struct wm_snapshot *snap)
{
	struct wm_blame bl;

	memset(v->on_chain, 0, snap->n_subtasks * sizeof(*v->on_chain));
	for (uint32_t id = 0; id < snap->n_subtasks; id++) {
		if (!held_news(v, snap, id, &bl))
			continue;
		for (uint32_t h = 0; h < bl.n_hops; h++)
			v->on_chain[bl.hop[h]] = true;
	}
}

void
wm_view_screen(struct wm_view *v, const struct wm_snapshot *snap,
	       struct wm_screen *scr)
{
	FILE *f = wm_screen_file(scr);
	/* Taller than the terminal: every stage still, but of its subtasks
	 * only those held and those that hold them, each with the input
	 * that holds it; the rest counted. What holds a watermark is what
	 * the screen is for. */
	bool compact = v->rows > 0 && screen_lines(v, snap) > v->rows;
	uint32_t hidden = 0;

	if (compact)
		mark_chains(v, snap);
	wm_screen_mark(scr, WM_SCREEN_HEAD, WM_SCREEN_ALWAYS);
	head_line(v, snap, f);
	wm_screen_mark(scr, WM_SCREEN_PLAIN, WM_SCREEN_OUTLINE);
	fprintf(f, "%-22s %-12s %-12s %9s %9s %5s %5s %5s %8s\n",
		"stage, subtask", "watermark", "lag", "in/s", "out/s", "busy",
		"idle", "bp", "late");
	for (uint32_t id = 0; id < snap->n_subtasks; id++) {
		bool first = id == 0 || v->plan->subtasks[id - 1].stage !=
						v->plan->subtasks[id].stage;
		bool last = id + 1 == snap->n_subtasks ||
			    v->plan->subtasks[id + 1].stage !=
				    v->plan->subtasks[id].stage;

		if (first) {
			wm_screen_mark(scr, WM_SCREEN_PLAIN, WM_SCREEN_OUTLINE);
			stage_line(v, snap, id, f);
		}
		if (!compact || v->on_chain[id])
			subtask_rows(v, snap, id, !compact,
				     compact && v->on_chain[id], scr);
		else
			hidden++;
		if (last && hidden > 0) {
			wm_screen_mark(scr, WM_SCREEN_PLAIN, WM_SCREEN_SUBTASK);
			fprintf(f, "  (%u more subtask%s, none held)\n", hidden,
				hidden == 1 ? "" : "s");
			hidden = 0;
		}
	}
}

/* "wmrun: 4.2 s (processing time 2 h 20 min): " */
static void
line_prefix(const struct wm_view *v, const struct wm_snapshot *snap, FILE *f)
{
	char a[32], b[32];

	fprintf(f, "wmrun: %s (processing time %s): ",
		wm_units_format_duration(snap->real_ns - v->start_real_ns, a,
					 sizeof(a)),
		wm_units_format_duration(snap->processing_ns, b, sizeof(b)));
}

static bool
same_holder(const struct holder *a, const struct holder *b)
{
	return a->subtask == b->subtask && a->partition == b->partition &&
	       a->cause == b->cause;
}

/* Whether a held watermark's holder `now`, other than the one said, is
 * news: once it has held for news_after(), as long as a stall must last.
 * A cause read from one sampling interval to the next can flip at every
 * reading (a source that waits for a CPU about half of each second is
 * starved in one interval and silent in the next): each flip a line was
 * a log of noise, and a holder that lasts is still said. */
static bool
held_by_another(const struct wm_view *v, const struct wm_snapshot *snap,
		struct said *said, const struct holder *now)
{
	if (same_holder(&said->holder, now)) {
		said->next_since_ns = -1;
		return false;
	}
	if (said->next_since_ns < 0 || !same_holder(&said->next, now)) {
		said->next = *now;
		said->next_since_ns = snap->processing_ns;
	}
	return snap->processing_ns - said->next_since_ns >= news_after(v);
}

/* The news of subtask id's watermark: held (for the stall threshold),
 * held by something else now, or moving again. */
static void
subtask_lines(struct wm_view *v, const struct wm_snapshot *snap, uint32_t id,
	      FILE *f)
{
	const struct wm_snap_subtask *s = &snap->subtasks[id];
	struct said *said = &v->said[id];
	struct wm_blame bl;
	char name[96], a[48], b[48], d[32];
	bool held = !s->idle && !s->finished &&
		    snap->processing_ns - s->since_ns >= news_after(v);

	wm_snapshot_blame(snap, v->plan, id, &bl);
	held = held && bl.cause != WM_BLAME_NONE;
	if (held) {
		struct holder now = {bl.hop[bl.n_hops - 1], bl.partition,
				     bl.cause};

		if (said->held && !held_by_another(v, snap, said, &now))
			return;
		line_prefix(v, snap, f);
		fprintf(f, "%s watermark %s held for %s by ",
			subtask_name(v, id, name, sizeof(name)),
			event_time(s->clock_zero_ms, s->watermark, a,
				   sizeof(a)),
			wm_units_format_duration(bl.for_ns, d, sizeof(d)));
		blame_text(v, &bl, f);
		fprintf(f, " (%s)\n", cause_word(bl.cause));
		*said = (struct said){.held = true,
				      .holder = now,
				      .watermark = s->watermark,
				      .held_since_ns = s->since_ns,
				      .next_since_ns = -1};
		return;
	}
	if (!said->held || s->watermark == said->watermark)
		return;
	line_prefix(v, snap, f);
	fprintf(f, "%s watermark moves again, %s to %s, after %s\n",
		subtask_name(v, id, name, sizeof(name)),
		event_time(s->clock_zero_ms, said->watermark, a, sizeof(a)),
		s->idle ? "IDLE"
			: event_time(s->clock_zero_ms, s->watermark, b,
				     sizeof(b)),
		wm_units_format_duration(s->since_ns - said->held_since_ns, d,
					 sizeof(d)));
	said->held = false;
}

static void
status_line(const struct wm_view *v, const struct wm_snapshot *snap, FILE *f)
{
	uint64_t in = 0;
	double per_s = 0;
	wm_ts_t lowest = WM_TS_MAX;
	double done = wm_view_done(v, snap);
	char a[48], b[16];

	for (uint32_t id = 0; id < snap->n_subtasks; id++) {
		const struct wm_snap_subtask *s = &snap->subtasks[id];

		if (v->plan->subtasks[id].n_inputs > 0)
			continue;
		in += s->records_out;
		per_s += s->records_out_per_s > 0 ? s->records_out_per_s : 0;
	}
	for (uint32_t id = 0; id < snap->n_subtasks; id++)
		if (!snap->subtasks[id].idle &&
		    snap->subtasks[id].watermark < lowest)
			lowest = snap->subtasks[id].watermark;
	line_prefix(v, snap, f);
	fprintf(f, "%" PRIu64 " records read (%s/s), lowest watermark %s", in,
		rate(per_s, b, sizeof(b)),
		lowest == WM_TS_MAX
			? "IDLE"
			: event_time(snap->subtasks[0].clock_zero_ms, lowest, a,
				     sizeof(a)));
	if (done >= 0.0)
		fprintf(f, ", %.0f %% done", done * 100.0);
	if (snap->restarts > 0) {
		fputs("; ", f);
		restart_text(snap, f);
	}
	fputc('\n', f);
}

void
wm_view_lines(struct wm_view *v, const struct wm_snapshot *snap, FILE *f)
{
	for (uint32_t id = 0; id < snap->n_subtasks; id++)
		subtask_lines(v, snap, id, f);
	if (v->status_every_ns > 0 && snap->real_ns >= v->next_status_ns) {
		status_line(v, snap, f);
		while (v->next_status_ns <= snap->real_ns)
			v->next_status_ns += v->status_every_ns;
	}
}
