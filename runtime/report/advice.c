/*
 * advice.c
 *	What held event time back, and the settings the run's figures
 *	recommend (advice.h).
 *
 * The blame is followed here over the summary's figures of each subtask's
 * longest stall (longest_stall_held_by), which the end of a run has; the
 * blame chain of runtime/observe/snapshot.c follows what holds each
 * watermark at the moment of a live reading (held_by_now and the valves'
 * channels), which at the end of a run, every stall closed, says nothing.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"
#include "runtime/report/advice.h"

#define MS 1000000 /* ns */

/* Round durations, ms, rising: what a person would write in a topology. */
static const int64_t round_ms[] = {
	1,	  2,	     5,		10,	 20,	   50,	     100,
	200,	  500,	     1000,	2000,	 5000,	   10000,    15000,
	20000,	  30000,     60000,	120000,	 300000,   600000,   900000,
	1200000,  1800000,   3600000,	7200000, 10800000, 21600000, 43200000,
	86400000, 172800000, 604800000,
};

int64_t
wm_advice_round(int64_t ms)
{
	const int64_t week = 604800000;

	for (size_t i = 0; i < sizeof(round_ms) / sizeof(round_ms[0]); i++)
		if (round_ms[i] >= ms)
			return round_ms[i];
	if (ms > INT64_MAX - week)
		return ms;
	return (ms + week - 1) / week * week;
}

/*
 * The end of gap bucket `b`: every gap in it is below this. The last
 * bucket also holds the gaps beyond the shape's range (silences of more
 * than an hour), all of them at most the longest, which is exact.
 */
static int64_t
gap_upper(unsigned b, int64_t max_ms)
{
	if (b + 1 == WM_HISTOGRAM_GAPS_BUCKETS && max_ms < INT64_MAX)
		return max_ms + 1;
	return wm_histogram_shape_upper(WM_HISTOGRAM_GAPS, b);
}

void
wm_advice_gap_figures(const uint64_t *c, int64_t max_ms,
		      struct wm_gap_figures *g)
{
	const struct wm_histogram_shape h = WM_HISTOGRAM_GAPS;
	uint64_t tail = 0;
	double time = 0;
	unsigned pb;

	g->n = wm_histogram_shape_total(h, c);
	g->max_ms = max_ms;
	g->p50_ms = g->p99_ms = g->p99_upper_ms = g->period_ms = -1;
	if (g->n == 0)
		return;
	g->p50_ms = wm_histogram_shape_quantile(h, c, 0.5);
	g->p99_ms = wm_histogram_shape_quantile(h, c, 0.99);
	pb = wm_histogram_shape_bucket(h, g->p99_ms);
	g->p99_upper_ms = gap_upper(pb, max_ms);
	for (unsigned b = 0; b < h.buckets; b++)
		time += (double)c[b] * (double)wm_histogram_shape_lower(h, b);
	/*
	 * A burst period is a second mode above the p99: a pair of buckets
	 * (a period that jitters across a boundary) with at least 3 gaps,
	 * more than the pair just below it (a peak, not the falling tail of
	 * the p99's mass), at least half of the gaps at or above it (a
	 * period repeats at one length; silences of random lengths spread
	 * over many buckets, and a single long one is no period) and at
	 * least half of the time between records (between bursts is most of
	 * a bursty partition's time; a producer that pauses now and then is
	 * silent, not bursty, and idleness is for that). From the top, so
	 * that the longest such mode is taken.
	 */
	for (unsigned b = h.buckets - 2; b >= pb + 2; b--) {
		uint64_t pair = c[b] + c[b + 1];
		uint64_t below = c[b - 1] + c[b - 2];

		tail += c[b + 1];
		if (pair >= 3 && 2 * pair >= tail + c[b] && pair > below &&
		    2.0 * (double)pair *
				    (double)wm_histogram_shape_lower(h, b) >=
			    time) {
			g->period_ms =
				gap_upper(c[b + 1] > 0 ? b + 1 : b, max_ms);
			return;
		}
	}
}

/* ---- the lines ---- */

struct builder {
	const struct wm_topology *t;
	const struct wm_job_report *rep;
	struct wm_advice *out;
	uint32_t room;
	/* By stage: a diagnosis found a partition of this source silent,
	 * sparse or empty holding a window; idleness is advised only then,
	 * or where it flaps. */
	bool *silence_held;
};

static struct wm_advice_line *
add_line(struct builder *b, enum wm_advice_kind kind, uint32_t stage,
	 int64_t value_ms)
{
	struct wm_advice_line *l;

	if (b->out->n == b->room) {
		uint32_t room = b->room ? 2 * b->room : 8;
		void *p = realloc(b->out->lines, room * sizeof(*l));

		if (p == NULL)
			return NULL;
		b->out->lines = p;
		b->room = room;
	}
	l = &b->out->lines[b->out->n++];
	memset(l, 0, sizeof(*l));
	l->kind = kind;
	l->stage = stage;
	l->subtask = UINT32_MAX;
	l->value_ms = value_ms;
	l->from_ms = -1;
	return l;
}

/* Text appended to a line, cut at its end. */
static void
say(struct wm_advice_line *l, const char *fmt, ...)
{
	size_t used = strlen(l->text);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(l->text + used, sizeof(l->text) - used, fmt, ap);
	va_end(ap);
}

/* A duration in ms as the summary writes it ("1 min 40 s"). */
static const char *
dur(int64_t ms, char *buf, size_t len)
{
	if (ms > INT64_MAX / MS)
		return snprintf(buf, len, "for ever"), buf;
	return wm_units_format_duration(ms * MS, buf, len);
}

/* A setting as a topology writes it: "15 s", "2 min", "0". */
static const char *
setting(int64_t ms, char *buf, size_t len)
{
	static const struct {
		const char *unit;
		int64_t ms;
	} units[] = {
		{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}};

	if (ms == 0)
		return snprintf(buf, len, "0"), buf;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ms % units[i].ms == 0)
			return snprintf(buf, len, "%" PRId64 " %s",
					ms / units[i].ms, units[i].unit),
			       buf;
	snprintf(buf, len, "%" PRId64 " ms", ms);
	return buf;
}

static const struct wm_stage *
stage_of(const struct builder *b, const struct wm_subtask_report *s)
{
	return &b->t->stages[s->stage];
}

/* The partition `id` of source subtask s, or NULL. */
static const struct wm_partition_report *
partition_of(const struct wm_subtask_report *s, uint32_t id)
{
	for (uint32_t p = 0; p < s->n_partitions; p++)
		if (s->partitions[p].partition == id)
			return &s->partitions[p];
	return NULL;
}

/* How the source's idleness stands beside a silence of `gap_ms`. */
static void
say_idleness(struct wm_advice_line *l, const struct wm_stage *src,
	     int64_t gap_ms)
{
	const struct wm_watermark_strategy *w = &src->u.source.strategy;
	char a[32];

	if (!w->with_idleness)
		say(l, ", no idle_timeout set");
	else if (w->idle_timeout_ms >= gap_ms)
		say(l, ", idle_timeout %s is longer",
		    dur(w->idle_timeout_ms, a, sizeof(a)));
	else
		say(l, ", idle_timeout %s",
		    dur(w->idle_timeout_ms, a, sizeof(a)));
}

/* Why partition p of source subtask s held a stall of `stall_ms`. */
static bool
say_partition(struct wm_advice_line *l, const struct wm_stage *src,
	      const struct wm_partition_report *p, int64_t stall_ms)
{
	char a[32], b[32];

	say(l, ", partition %s-%u: ", src->name, p->partition);
	if (2 * (p->alignment_paused_ns / MS) >= stall_ms) {
		say(l, "held back by watermark alignment for %s",
		    dur(p->alignment_paused_ns / MS, a, sizeof(a)));
		return false;
	}
	if (p->records == 0) {
		say(l, "never produced a record");
		say_idleness(l, src, p->gaps.max_ms);
		return true;
	}
	if (2 * p->gaps.max_ms < stall_ms) {
		/* Records came: its watermark was low, not still. */
		say(l,
		    "records kept coming (longest gap %s), its watermark "
		    "behind",
		    dur(p->gaps.max_ms, a, sizeof(a)));
		return false;
	}
	if (p->gaps.n > 0 && 4 * p->gaps.p50_ms >= p->gaps.max_ms)
		say(l, "sparse, a record every %s or so (longest gap %s)",
		    dur(p->gaps.p50_ms, a, sizeof(a)),
		    dur(p->gaps.max_ms, b, sizeof(b)));
	else
		say(l, "silent %s", dur(p->gaps.max_ms, a, sizeof(a)));
	say_idleness(l, src, p->gaps.max_ms);
	return true;
}

/* What the source subtask s at the end of a chain held. */
static void
say_source(struct builder *b, struct wm_advice_line *l,
	   const struct wm_subtask_report *s, int64_t stall_ms)
{
	const struct wm_stage *src = stage_of(b, s);
	const struct wm_partition_report *p = NULL, *quietest = NULL;
	char a[32];

	if (s->n_partitions == 0) {
		say(l,
		    ": it owns no partition (parallelism %u, %u "
		    "partitions)",
		    src->parallelism, src->u.source.partitions);
		if (src->u.source.strategy.with_idleness)
			return;
		say(l, ", no idle_timeout set");
		return;
	}
	for (uint32_t i = 0; i < s->n_partitions; i++)
		if (quietest == NULL ||
		    s->partitions[i].gaps.max_ms > quietest->gaps.max_ms)
			quietest = &s->partitions[i];
	if (src->u.source.watermark_per_subtask) {
		/* One generator follows the newest event time of them all: it
		 * stands still only while all of them are quiet. */
		say(l,
		    ": one watermark for its %u partition%s "
		    "(watermark_at = subtask), the quietest %s-%u silent "
		    "%s",
		    s->n_partitions, s->n_partitions == 1 ? "" : "s", src->name,
		    quietest->partition,
		    dur(quietest->gaps.max_ms, a, sizeof(a)));
		say_idleness(l, src, quietest->gaps.max_ms);
		b->silence_held[s->stage] = true;
		return;
	}
	if (s->held_by != UINT32_MAX)
		p = partition_of(s, s->held_by);
	else if (s->held_by_now != UINT32_MAX)
		p = partition_of(s, s->held_by_now);
	/* A stall that lasted to the end of input was ended by the end, not
	 * by a partition moving: none is known to have ended it. A
	 * partition silent for at least half of it (say_partition()'s
	 * measure) is what held it, as it would have for a closed one. */
	if (p == NULL && 2 * quietest->gaps.max_ms >= stall_ms)
		p = quietest;
	if (p == NULL) {
		say(l,
		    ": what held it is not known; its quietest partition "
		    "%s-%u was silent %s",
		    src->name, quietest->partition,
		    dur(quietest->gaps.max_ms, a, sizeof(a)));
		return;
	}
	if (say_partition(l, src, p, stall_ms))
		b->silence_held[s->stage] = true;
}

/* The diagnosis of window or join subtask `id`, if its longest stall was
 * long: the chain of what held it, upstream to a source (for a join, the
 * side whose input held its watermark, which the chain names). */
static int
diagnose(struct builder *b, uint32_t id, int64_t long_ms, int64_t noise_ms)
{
	const struct wm_job_report *rep = b->rep;
	const struct wm_subtask_report *w = &rep->subtasks[id], *s = w;
	int64_t stall_ms = w->wm.longest_stall_ns / MS;
	int64_t stalled_ms = w->wm.stalled_ns / MS;
	struct wm_advice_line *l;
	uint32_t who = w->held_by;
	char a[32], c[32];

	/* Long: one stall, or many short ones that add up (a sparse
	 * partition holds every window a little). A processing-time window
	 * waits for no watermark: its stalls held nothing back. */
	if (stalled_ms < long_ms || stall_ms == 0 || stall_ms < noise_ms ||
	    (stage_of(b, w)->kind == WM_STAGE_WINDOW &&
	     stage_of(b, w)->u.window.op.processing_time))
		return 0;
	l = add_line(b, WM_ADVICE_HELD, w->stage, -1);
	if (l == NULL)
		return -ENOMEM;
	l->subtask = id;
	if (w->wm.stalls > 1)
		say(l,
		    "%s %s/%u waited %s in %" PRIu64 " stalls, the longest %s,",
		    wm_stage_kind_name(stage_of(b, w)->kind),
		    stage_of(b, w)->name, w->index,
		    dur(stalled_ms, a, sizeof(a)), w->wm.stalls,
		    dur(stall_ms, c, sizeof(c)));
	else
		say(l, "%s %s/%u waited %s",
		    wm_stage_kind_name(stage_of(b, w)->kind),
		    stage_of(b, w)->name, w->index,
		    dur(stall_ms, a, sizeof(a)));
	/* Upstream along what ended each longest stall, to a source. */
	for (unsigned hop = 0; hop < 64 && who < rep->n_subtasks; hop++) {
		s = &rep->subtasks[who];
		say(l, "%s %s/%u", hop == 0 ? " on" : " <-",
		    stage_of(b, s)->name, s->index);
		if (stage_of(b, s)->kind == WM_STAGE_SOURCE)
			break;
		who = s->held_by;
	}
	if (s == w) {
		say(l,
		    "; what held it is not known (the stall was still open)");
		return 0;
	}
	if (stage_of(b, s)->kind == WM_STAGE_SOURCE)
		say_source(b, l, s, stall_ms);
	return 0;
}

/* Where idleness must wait for source stage `stage`: the largest p99 gap
 * or burst period of its partitions (`by`, of those with
 * WM_ADVICE_MIN_GAPS gaps, and not sparse), and its longest silence
 * (`silent`). */
struct gap_bound {
	const struct wm_partition_report *by, *silent;
	int64_t need_ms, silence_ms;
	/* The partitions' median p50 gap (histogram.h, lower bound): a
	 * partition whose p50 is WM_ADVICE_SPARSE times that is sparse, and
	 * left idle between its records rather than waited for. */
	int64_t typical_ms;
};

#define WM_ADVICE_SPARSE 10

static bool
counts_for_bound(const struct wm_partition_report *p, uint32_t stage)
{
	return p->stage == stage && p->gaps.n >= WM_ADVICE_MIN_GAPS;
}

static bool
sparse(const struct gap_bound *g, const struct wm_partition_report *p)
{
	return g->typical_ms >= 0 && p->gaps.p50_ms >= 0 &&
	       p->gaps.p50_ms > WM_ADVICE_SPARSE * g->typical_ms;
}

static void
gap_bound(const struct wm_job_report *rep, uint32_t stage, struct gap_bound *g)
{
	uint64_t p50s[WM_HISTOGRAM_BUCKETS] = {0};

	memset(g, 0, sizeof(*g));
	g->need_ms = g->silence_ms = -1;
	for (uint32_t i = 0; i < rep->n_partitions; i++)
		if (counts_for_bound(&rep->partitions[i], stage))
			p50s[wm_histogram_bucket(
				rep->partitions[i].gaps.p50_ms)]++;
	g->typical_ms = wm_histogram_quantile(p50s, 0.5);
	for (uint32_t i = 0; i < rep->n_partitions; i++) {
		const struct wm_partition_report *p = &rep->partitions[i];
		int64_t need;

		if (p->stage != stage)
			continue;
		if (p->gaps.max_ms > g->silence_ms) {
			g->silence_ms = p->gaps.max_ms;
			g->silent = p;
		}
		if (!counts_for_bound(p, stage) || sparse(g, p))
			continue;
		need = WM_ADVICE_GAP_MARGIN * p->gaps.p99_upper_ms >
				       p->gaps.period_ms
			       ? WM_ADVICE_GAP_MARGIN * p->gaps.p99_upper_ms
			       : p->gaps.period_ms;
		if (need > g->need_ms) {
			g->need_ms = need;
			g->by = p;
		}
	}
}

/* Whether source stage `stage`'s idleness judges idle between records:
 * a timeout below what the gaps need (gap_bound()). */
static bool
timeout_below_the_gaps(const struct wm_stage *st, const struct gap_bound *g)
{
	const struct wm_watermark_strategy *w = &st->u.source.strategy;

	return w->kind != WM_WATERMARK_PLUGIN && w->with_idleness &&
	       g->by != NULL && w->idle_timeout_ms < g->need_ms;
}

/* Source stage `stage`'s partitions flapping between idle and active. */
static int
diagnose_flapping(struct builder *b, uint32_t stage)
{
	const struct wm_stage *st = &b->t->stages[stage];
	const struct wm_job_report *rep = b->rep;
	struct wm_advice_line *l;
	struct gap_bound g;
	uint64_t spells = 0;
	char a[32], c[32], d[32];

	/* One generator per subtask: its partitions are never idle alone. */
	if (st->u.source.watermark_per_subtask)
		return 0;
	gap_bound(rep, stage, &g);
	if (!timeout_below_the_gaps(st, &g))
		return 0;
	for (uint32_t i = 0; i < rep->n_partitions; i++)
		if (rep->partitions[i].stage == stage)
			spells += rep->partitions[i].wm.to_idle;
	if (spells < WM_ADVICE_MIN_GAPS || rep->end_ns <= 0)
		return 0;
	l = add_line(b, WM_ADVICE_FLAPPING, stage, -1);
	if (l == NULL)
		return -ENOMEM;
	l->idle_spells = spells;
	say(l,
	    "source %s: its partitions went idle %" PRIu64
	    " times in %s (%.0f an hour): idle_timeout %s is below their "
	    "gaps (partition %s-%u: p99 gap %s), so each gap is an idle "
	    "spell, and the record after it is late if its window fired "
	    "meanwhile",
	    st->name, spells, dur(rep->end_ns / MS, a, sizeof(a)),
	    (double)spells * 3600e9 / (double)rep->end_ns,
	    setting(st->u.source.strategy.idle_timeout_ms, c, sizeof(c)),
	    st->name, g.by->partition, dur(g.by->gaps.p99_ms, d, sizeof(d)));
	return 0;
}

static int
advise_idle_timeout(struct builder *b, uint32_t stage)
{
	const struct wm_stage *st = &b->t->stages[stage];
	const struct wm_watermark_strategy *w = &st->u.source.strategy;
	int64_t rec, max_delay = b->t->job.max_delay_ms;
	struct wm_advice_line *l;
	struct gap_bound g;
	bool by_period, by_interval, flaps;
	char a[32], c[32], d[32];

	/* A user's generator judges idleness as it likes (heartbeats,
	 * the business's word): no timeout of wmrun's to advise. */
	if (w->kind == WM_WATERMARK_PLUGIN)
		return 0;
	gap_bound(b->rep, stage, &g);
	if (g.by == NULL)
		return 0;
	/* Flapping is judged against the gaps alone, as
	 * diagnose_flapping() judges it; the watermark intervals only
	 * raise the value. */
	flaps = timeout_below_the_gaps(st, &g);
	by_period = g.by->gaps.period_ms >
		    WM_ADVICE_GAP_MARGIN * g.by->gaps.p99_upper_ms;
	by_interval = WM_ADVICE_INTERVALS * w->interval_ms > g.need_ms;
	if (by_interval)
		g.need_ms = WM_ADVICE_INTERVALS * w->interval_ms;
	rec = wm_advice_round(g.need_ms);
	/* Unless it flaps: idleness would never start, nothing silent held
	 * a window, or it is set where it fits. */
	if ((!flaps && (g.silence_ms <= rec || !b->silence_held[stage])) ||
	    (w->with_idleness && w->idle_timeout_ms >= g.need_ms &&
	     w->idle_timeout_ms < max_delay))
		return 0;
	if (rec >= max_delay) {
		l = add_line(b, WM_ADVICE_NO_IDLE_TIMEOUT, stage, -1);
		if (l == NULL)
			return -ENOMEM;
		l->from_ms = g.need_ms;
		say(l,
		    "no idle_timeout fits source %s: partition %s-%u's "
		    "gaps need %s or more (%d times its p99 gap %s), "
		    "max_delay is %s",
		    st->name, st->name, g.by->partition,
		    setting(rec, a, sizeof(a)), WM_ADVICE_GAP_MARGIN,
		    dur(g.by->gaps.p99_ms, c, sizeof(c)),
		    setting(max_delay, d, sizeof(d)));
		return 0;
	}
	l = add_line(b, WM_ADVICE_IDLE_TIMEOUT, stage, rec);
	if (l == NULL)
		return -ENOMEM;
	l->from_ms = g.need_ms;
	/* The figure that bound it, and the rule that made it the value. */
	say(l, "%s (", setting(rec, a, sizeof(a)));
	if (by_interval)
		say(l,
		    "%d watermark intervals of %s, at each of which "
		    "idleness is judged; ",
		    WM_ADVICE_INTERVALS, dur(w->interval_ms, c, sizeof(c)));
	say(l, "partition %s-%u: ", st->name, g.by->partition);
	if (by_period)
		say(l, "bursts every %s, above %d times its p99 gap %s",
		    dur(g.by->gaps.period_ms, c, sizeof(c)),
		    WM_ADVICE_GAP_MARGIN, dur(g.by->gaps.p99_ms, d, sizeof(d)));
	else
		say(l, "%d times its p99 gap %s", WM_ADVICE_GAP_MARGIN,
		    dur(g.by->gaps.p99_ms, c, sizeof(c)));
	if (g.silent == g.by)
		say(l, ", longest %s", dur(g.silence_ms, d, sizeof(d)));
	else if (sparse(&g, g.silent))
		say(l,
		    "; partition %s-%u sparse, a record every %s: idle "
		    "between its records, which may then come late",
		    st->name, g.silent->partition,
		    dur(g.silent->gaps.p50_ms, d, sizeof(d)));
	else
		say(l, "; partition %s-%u silent %s", st->name,
		    g.silent->partition, dur(g.silence_ms, d, sizeof(d)));
	if (!w->with_idleness) {
		say(l, "; none set)");
		return 0;
	}
	if (!flaps) {
		say(l, "; %s set, within %d watermark intervals)",
		    setting(w->idle_timeout_ms, c, sizeof(c)),
		    WM_ADVICE_INTERVALS);
		return 0;
	}
	say(l, "; %s set, below the gaps: it flaps",
	    setting(w->idle_timeout_ms, c, sizeof(c)));
	if (g.silence_ms <= rec)
		say(l, "; no partition was silent that long, so idleness "
		       "would not start");
	say(l, ")");
	return 0;
}

/* The bound a source's generator allows, or -1 if it has none to set. */
static int64_t
disorder_bound(const struct wm_stage *st)
{
	switch (st->u.source.strategy.kind) {
	case WM_WATERMARK_BOUNDED:
		return st->u.source.strategy.out_of_orderness_ms;
	case WM_WATERMARK_ASCENDING:
		return 0;
	default:
		return -1;
	}
}

static int
advise_out_of_orderness(struct builder *b, uint32_t stage)
{
	const struct wm_stage *st = &b->t->stages[stage];
	const struct wm_job_report *rep = b->rep;
	uint64_t counts[WM_HISTOGRAM_BUCKETS] = {0}, beyond = 0;
	int64_t max_ms = 0, set = disorder_bound(st), rec, p99, alt;
	struct wm_advice_line *l;
	char a[32], c[32], d[32], e[32];

	for (uint32_t i = 0; i < rep->n_partitions; i++)
		if (rep->partitions[i].stage == stage &&
		    rep->partitions[i].disorder_max_ms > max_ms)
			max_ms = rep->partitions[i].disorder_max_ms;
	if (set < 0 || max_ms <= set)
		return 0;
	for (uint32_t i = 0; i < rep->n_subtasks; i++)
		if (rep->subtasks[i].stage == stage)
			for (unsigned k = 0; k < WM_HISTOGRAM_BUCKETS; k++)
				counts[k] += rep->subtasks[i].disorder[k];
	rec = wm_advice_round(max_ms);
	l = add_line(b, WM_ADVICE_OUT_OF_ORDERNESS, stage, rec);
	if (l == NULL)
		return -ENOMEM;
	l->from_ms = max_ms;
	p99 = wm_histogram_quantile(counts, 0.99);
	say(l, "%s (source %s: records up to %s out of order",
	    setting(rec, a, sizeof(a)), st->name, dur(max_ms, c, sizeof(c)));
	if (p99 >= 0) {
		alt = wm_advice_round(p99);
		say(l, ", p99 %s", dur(p99, d, sizeof(d)));
		/* What the p99's round value would leave beyond it: the
		 * buckets wholly above it, so at least that many. */
		for (unsigned k = wm_histogram_bucket(alt) + 1;
		     k < WM_HISTOGRAM_BUCKETS; k++)
			beyond += counts[k];
		if (alt < rec && alt > set && beyond > 0)
			say(l,
			    "; %s would leave at least %" PRIu64
			    " record%s more out of order, each late if "
			    "its window fired before it came",
			    setting(alt, e, sizeof(e)), beyond,
			    beyond == 1 ? "" : "s");
	}
	say(l, "; %s set)", setting(set, d, sizeof(d)));
	return 0;
}

static int
advise_allowed_lateness(struct builder *b, uint32_t stage)
{
	const struct wm_stage *st = &b->t->stages[stage];
	const struct wm_job_report *rep = b->rep;
	int64_t max_ms = -1, rec;
	uint64_t late = 0;
	struct wm_advice_line *l;
	char a[32], c[32], d[32];

	for (uint32_t i = 0; i < rep->n_subtasks; i++) {
		const struct wm_subtask_report *s = &rep->subtasks[i];

		if (s->stage != stage)
			continue;
		late += s->late_dropped + s->late_side_output;
		if (s->lateness_max_ms > max_ms)
			max_ms = s->lateness_max_ms;
	}
	if (late == 0 || max_ms < 0 || max_ms == INT64_MAX)
		return 0;
	/* Strictly above: a record exactly the lateness behind is late. */
	rec = wm_advice_round(max_ms + 1);
	l = add_line(b, WM_ADVICE_ALLOWED_LATENESS, stage, rec);
	if (l == NULL)
		return -ENOMEM;
	l->from_ms = max_ms;
	say(l,
	    "%s (window %s: %" PRIu64 " late record%s, the latest %s "
	    "behind the watermark; %s set)",
	    setting(rec, a, sizeof(a)), st->name, late, late == 1 ? "" : "s",
	    dur(max_ms, c, sizeof(c)),
	    setting(st->u.window.op.allowed_lateness, d, sizeof(d)));
	return 0;
}

/* Whether a window of t is on event time, or t has a join (which is). */
static bool
event_time_windows(const struct wm_topology *t)
{
	for (uint32_t s = 0; s < t->n_stages; s++)
		if (t->stages[s].kind == WM_STAGE_JOIN ||
		    (t->stages[s].kind == WM_STAGE_WINDOW &&
		     !t->stages[s].u.window.op.processing_time))
			return true;
	return false;
}

int
wm_advice_build(const struct wm_topology *t, const struct wm_job_report *rep,
		struct wm_advice *out)
{
	struct builder b = {t, rep, out, 0, NULL};
	int64_t long_ms =
		(int64_t)((double)rep->end_ns / MS * WM_ADVICE_LONG_SHARE);
	/* A real run's stalls within its scheduling noise say nothing. */
	int64_t noise_ms = wm_job_report_noise_ns(rep) / MS;
	int r = 0;

	memset(out, 0, sizeof(*out));
	b.silence_held = calloc(t->n_stages ? t->n_stages : 1, sizeof(bool));
	if (b.silence_held == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < rep->n_subtasks && r == 0; i++)
		if (wm_stage_keyed(t->stages[rep->subtasks[i].stage].kind))
			r = diagnose(&b, i, long_ms, noise_ms);
	for (uint32_t s = 0; s < t->n_stages && r == 0; s++)
		if (t->stages[s].kind == WM_STAGE_SOURCE &&
		    event_time_windows(t))
			r = diagnose_flapping(&b, s);
	for (uint32_t s = 0; s < t->n_stages && r == 0; s++) {
		/* A source's watermark settings matter to event-time windows
		 * alone: processing-time ones judge nothing by them. */
		if (t->stages[s].kind == WM_STAGE_SOURCE &&
		    event_time_windows(t)) {
			r = advise_idle_timeout(&b, s);
			if (r == 0)
				r = advise_out_of_orderness(&b, s);
		} else if (t->stages[s].kind == WM_STAGE_WINDOW) {
			r = advise_allowed_lateness(&b, s);
		}
	}
	free(b.silence_held);
	if (r != 0)
		wm_advice_free(out);
	return r;
}

void
wm_advice_free(struct wm_advice *a)
{
	free(a->lines);
	a->lines = NULL;
	a->n = 0;
}

const char *
wm_advice_heading(enum wm_advice_kind kind)
{
	switch (kind) {
	case WM_ADVICE_HELD:
		return "what held event time";
	case WM_ADVICE_FLAPPING:
		return "idleness flapping";
	default:
		return "advice";
	}
}

const char *
wm_advice_key(enum wm_advice_kind kind)
{
	switch (kind) {
	case WM_ADVICE_IDLE_TIMEOUT:
		return "idle_timeout";
	case WM_ADVICE_OUT_OF_ORDERNESS:
		return "out_of_orderness";
	case WM_ADVICE_ALLOWED_LATENESS:
		return "allowed_lateness";
	default:
		return NULL;
	}
}
