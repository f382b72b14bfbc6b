/*
 * footprint.c
 *	Estimate a job's memory from its topology (the model and its
 *	limits are in footprint.h), and read this machine's.
 *
 * Counts are doubles: a window of size 9999 s and slide 1 ms over a
 * thousand keys keeps 10^10 states, and products of run lengths and rates
 * pass 2^64; infinity stands for "no bound known".
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>

#include "ipc/shm.h"
#include "runtime/plan/footprint.h"
#include "runtime/metrics/metrics.h"

/* Page-table levels the estimate counts: a page of PTEs maps 2 MiB, a
 * page of PMDs 1 GiB. */
#define PTE_SPAN_SHIFT 21
#define PMD_SPAN_SHIFT 30
#define TABLE_PAGE 4096u

/* The shortest line a trace can spend on a record: "0,0,0,0\n". */
#define TRACE_MIN_LINE 8

/* The run length in event (= processing) time, ms; INFINITY: none. */
static double
run_ms(const struct wm_topology *t)
{
	int64_t ms = t->job.event_time_ms < t->job.processing_time_ms
			     ? t->job.event_time_ms
			     : t->job.processing_time_ms;

	return ms == INT64_MAX ? INFINITY : (double)ms;
}

static bool
run_unbounded(const struct wm_topology *t)
{
	return isinf(run_ms(t)) && t->job.records == UINT64_MAX;
}

/* Factors of a source's rate: the sum over its partitions of their skews,
 * the least skew, and the bursts multiplied together (an upper bound: they
 * need not overlap) or the lowest of them together. */
static double
skew_sum(const struct wm_source_conf *src)
{
	double sum = 0;

	if (src->n_skew == 0)
		return src->partitions;
	for (uint32_t p = 0; p < src->n_skew; p++)
		sum += src->skew[p];
	return sum;
}

static double
skew_least(const struct wm_source_conf *src)
{
	double least = 1;

	for (uint32_t p = 0; p < src->n_skew; p++)
		if (p == 0 || src->skew[p] < least)
			least = src->skew[p];
	return least;
}

static double
burst_factor(const struct wm_source_conf *src, bool highest)
{
	double f = 1;

	for (uint32_t i = 0; i < src->n_bursts; i++) {
		double b = src->bursts[i].factor;

		if (highest ? b > 1 : b < 1)
			f *= b;
	}
	return f;
}

/* Records per ms from all of a source's partitions, at most; INFINITY
 * when unlimited or a trace's pacing decides. */
static double
source_rate(const struct wm_source_conf *src)
{
	if (src->kind == WM_SOURCE_NEXMARK) /* every event a record, at most */
		return (double)src->nexmark.gen.events_per_second / 1000;
	if (src->kind == WM_SOURCE_REPLAY || isinf(src->rate))
		return INFINITY;
	return src->rate * skew_sum(src) * burst_factor(src, true) / 1000;
}

/* Records a source can emit in the whole run, at most. */
static double
source_records(const struct wm_topology *t, const struct wm_source_conf *src)
{
	double n = INFINITY, rate = source_rate(src);
	struct stat st;

	if (src->kind == WM_SOURCE_REPLAY)
		return stat(src->replay, &st) == 0
			       ? floor((double)(st.st_size + 1) /
				       TRACE_MIN_LINE)
			       : INFINITY;
	if (src->kind == WM_SOURCE_NEXMARK)
		n = (double)src->nexmark.events;
	else if (t->job.records != UINT64_MAX)
		n = (double)t->job.records * src->partitions;
	if (!isinf(run_ms(t)) && !isinf(rate))
		n = fmin(n, ceil(rate * run_ms(t)) + src->partitions);
	return n;
}

/* How long a partition can hold the watermark: `ms`, cut to the idle
 * timeout if there is one. */
static double
held(const struct wm_source_conf *src, double ms)
{
	return src->strategy.with_idleness
		       ? fmin(ms, (double)src->strategy.idle_timeout_ms)
		       : ms;
}

static double
window_ms(const struct wm_source_gen_silence *s)
{
	if (s->period_ms > 0)
		return (double)s->length_ms;
	return s->to_ms == INT64_MAX ? INFINITY
				     : (double)s->to_ms - (double)s->from_ms;
}

/* A partition may hold the watermark for `ms`: the longest hold that
 * ends, or for ever. */
static void
hold_for(double ms, double *hold, bool *forever)
{
	if (isinf(ms))
		*forever = true;
	else
		*hold = fmax(*hold, ms);
}

/*
 * How far source stage `stage`'s watermark trails its newest event time,
 * at most (footprint.h), in ms, counting the holds that end; *forever is
 * set if something can hold it for ever.
 */
static double
source_lag(const struct wm_topology *t, const struct wm_plan *plan,
	   uint32_t stage, bool *forever)
{
	const struct wm_source_conf *src = &t->stages[stage].u.source;
	double lag = 1 + (double)src->strategy.interval_ms, hold = 0;

	if (src->strategy.kind == WM_WATERMARK_BOUNDED)
		lag += (double)src->strategy.out_of_orderness_ms;
	/* No periodic watermark at all: only the end moves it. */
	*forever = src->strategy.interval_ms == 0;
	if (src->kind != WM_SOURCE_REPLAY && !isinf(src->rate))
		hold_for(held(src, 1000 / (src->rate * skew_least(src) *
					   burst_factor(src, false))),
			 &hold, forever);
	for (uint32_t i = 0; i < src->n_silences; i++)
		hold_for(held(src, window_ms(&src->silences[i])), &hold,
			 forever);
	for (uint32_t i = 0; i < src->n_outages; i++)
		hold_for(held(src, window_ms(&src->outages[i])), &hold,
			 forever);
	/* A subtask without partitions of a source that never ends sends
	 * no watermark ever, unless idleness says it is idle (a bounded
	 * one finishes at once: source_gen.h; a Nexmark stream is bounded). */
	if (src->kind != WM_SOURCE_REPLAY && src->kind != WM_SOURCE_NEXMARK &&
	    !src->strategy.with_idleness && run_unbounded(t))
		for (uint32_t i = 0; i < t->stages[stage].parallelism; i++)
			if (plan->subtasks[plan->first[stage] + i]
				    .n_partitions == 0)
				*forever = true;
	return lag + hold;
}

/* What reaches a window from the sources behind it. */
struct feed {
	double keys;
	bool keys_unknown;
	double rate;	   /* records per ms */
	double records;	   /* in the whole run */
	double partitions; /* each may round its share of a span up */
	double lag_ms;	   /* finite holds only */
	bool forever;	   /* something holds the watermark for ever */
};

static void feed_from(const struct wm_topology *t, const struct wm_plan *plan,
		      uint32_t stage, double copies, struct feed *f);

/* Add the sources behind input k of `stage`, each record counted `copies`
 * times (a broadcast edge copies it to every subtask). */
static void
feed_from_input(const struct wm_topology *t, const struct wm_plan *plan,
		uint32_t stage, uint32_t k, double copies, struct feed *f)
{
	const struct wm_stage *st = &t->stages[stage];
	uint32_t up = st->inputs[k].stage;
	const struct wm_stage *u = &t->stages[up];
	double c = st->inputs[k].edge == WM_PARTITION_BROADCAST
			   ? copies * st->parallelism
			   : copies;

	if (u->kind != WM_STAGE_SOURCE) {
		/* a keyby: topology.c refuses windows and joins reading
		 * windows or joins, and cycles */
		feed_from(t, plan, up, c, f);
		return;
	}
	const struct wm_source_conf *src = &u->u.source;
	bool forever;
	double lag = source_lag(t, plan, up, &forever);

	/* A Nexmark stream's keys are ids that grow with the stream: as
	 * unknown as a trace's. */
	bool keys_unknown =
		src->kind == WM_SOURCE_REPLAY || src->kind == WM_SOURCE_NEXMARK;

	if (keys_unknown)
		f->keys_unknown = true;
	f->keys = fmax(f->keys, keys_unknown ? 1.0 : (double)src->keys);
	f->rate += source_rate(src) * c;
	f->records += source_records(t, src) * c;
	f->partitions += (double)src->partitions * c;
	f->forever = f->forever || forever;
	f->lag_ms = fmax(f->lag_ms, lag);
}

/* Add the sources behind every input of `stage`. */
static void
feed_from(const struct wm_topology *t, const struct wm_plan *plan,
	  uint32_t stage, double copies, struct feed *f)
{
	for (uint32_t k = 0; k < t->stages[stage].n_inputs; k++)
		feed_from_input(t, plan, stage, k, copies, f);
}

/*
 * The records join stage `stage` keeps at once, and their bytes
 * (footprint.h): a side's record is kept until the watermark passes its
 * timestamp plus the time the other side may still pair with it (upper
 * for a left record, -lower for a right one, none when that is not
 * positive), and the watermark trails the newest record by the lag of
 * both sides' sources (the join's watermark is the lower of the two).
 * So a side keeps what its sources send in lag + that time, at most all
 * of its records; a hold for ever, with no run length, keeps growing
 * (*unbounded).
 */
static double
join_records(const struct wm_topology *t, const struct wm_plan *plan,
	     uint32_t stage, bool *unbounded, double *bytes)
{
	const struct wm_join_stage_conf *jc = &t->stages[stage].u.join;
	const struct wm_interval_join_config *j = &jc->op;
	const struct wm_window_assigner *a = &jc->window.assigner;
	struct feed side[2] = {{0}};
	double lag, kept = 0, states = 0;

	feed_from_input(t, plan, stage, 0, 1, &side[0]);
	feed_from_input(t, plan, stage, 1, 1, &side[1]);
	lag = fmax(side[0].lag_ms, side[1].lag_ms);
	if (side[0].forever || side[1].forever) {
		if (isinf(run_ms(t)))
			*unbounded = true;
		else
			lag += run_ms(t);
	}
	for (int s = 0; s < 2; s++) {
		/* An interval join's record stays for the time the other side
		 * may still pair with it; a window join's for its windows'
		 * span and lateness (a session: its gap), in each of them. */
		double hold =
			jc->windowed
				? (double)a->size +
					  (double)jc->window.allowed_lateness
				: fmax(s == 0 ? (double)j->upper
					      : -(double)j->lower,
				       0);
		double copies = jc->windowed ? (double)a->max_windows : 1;
		double step = a->kind == WM_WINDOW_SLIDING ? (double)a->slide
							   : (double)a->size;
		double side_kept = fmin(side[s].records,
					ceil(side[s].rate * (lag + hold)) +
						side[s].partitions);

		kept += side_kept * copies;
		/* A window join's (key, window) entries and their two
		 * timers: the keys times the windows of each alive, at most
		 * one a record in a window. */
		if (jc->windowed)
			states += fmin(side_kept * copies,
				       fmax(side[s].keys, 1) *
					       ceil((hold + lag) / step));
	}
	*bytes = jc->windowed ? kept * WM_FOOTPRINT_WINDOW_JOIN_RECORD_BYTES +
					states * WM_FOOTPRINT_STATE_BYTES
			      : kept * WM_FOOTPRINT_JOIN_RECORD_BYTES;
	return kept;
}

/* The bytes of one (key, window) state of window `w`. */
static double
state_bytes(const struct wm_footprint_window *w)
{
	return (w->session ? WM_FOOTPRINT_SESSION_BYTES
			   : WM_FOOTPRINT_STATE_BYTES) +
	       (w->plugins ? WM_FOOTPRINT_PLUGIN_STATE_BYTES : 0);
}

/* The states window stage `stage` keeps alive at once (footprint.h). */
static void
window_states(const struct wm_topology *t, const struct wm_plan *plan,
	      uint32_t stage, struct wm_footprint_window *w)
{
	const struct wm_stage *st = &t->stages[stage];
	const struct wm_window_config *op = &st->u.window.op;
	const struct wm_window_assigner *a = &op->assigner;
	double lateness = (double)op->allowed_lateness, span, lag;
	struct feed f = {0};
	bool hashed = true;

	feed_from(t, plan, stage, 1, &f);
	for (uint32_t k = 0; k < st->n_inputs; k++)
		hashed = hashed && st->inputs[k].edge == WM_PARTITION_HASH;
	lag = f.lag_ms;
	if (op->processing_time) {
		/* Records go into the windows of their arrival: none lags
		 * behind them, and a window lives its size and no longer. */
		lag = 0;
	} else if (f.forever) {
		if (isinf(run_ms(t)))
			w->unbounded = true;
		else
			lag += run_ms(t);
	}
	w->stage = stage;
	w->session = a->kind == WM_WINDOW_SESSION;
	w->keys = f.keys * (hashed ? 1 : st->parallelism);
	w->keys_unknown = f.keys_unknown;
	w->lag_ms = lag;
	w->windows_per_record = a->max_windows;
	/* Starts of the windows alive at once (sessions: where they lie). */
	span = (double)a->size + lag + lateness;
	w->per_key = w->session ? 2 + ceil((lag + lateness) / (double)a->size)
				: ceil(span / (double)a->slide);
	/* The states alive at once were opened by records with timestamps
	 * in the span, which arrived within it and the lag after it. */
	w->records =
		fmin(f.records, ceil(f.rate * (span + lag)) + f.partitions);
	w->states = w->keys * w->per_key;
	if (w->records * w->windows_per_record < w->states) {
		w->states = w->records * w->windows_per_record;
		w->by_records = true;
	}
	w->plugins = op->n_plugin_aggregates > 0;
	w->bytes = w->states * state_bytes(w);
}

/* A stretch of the segment that a process touches. */
struct span {
	uint64_t start, end;
};

static int
span_order(const void *x, const void *y)
{
	const struct span *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

/* Page-table pages of a process touching spans[0..n): one per 2 MiB, and
 * one per 1 GiB, that any span reaches. Sorts spans. */
static uint64_t
table_pages(struct span *spans, size_t n)
{
	static const unsigned shifts[] = {PTE_SPAN_SHIFT, PMD_SPAN_SHIFT};
	uint64_t pages = 0;

	qsort(spans, n, sizeof(*spans), span_order);
	for (size_t k = 0; k < sizeof(shifts) / sizeof(shifts[0]); k++) {
		uint64_t next = 0; /* the first span index not yet counted */

		for (size_t i = 0; i < n; i++) {
			uint64_t first = spans[i].start >> shifts[k];
			uint64_t last = (spans[i].end - 1) >> shifts[k];

			if (spans[i].end <= spans[i].start)
				continue;
			if (first < next)
				first = next;
			if (first <= last) {
				pages += last - first + 1;
				next = last + 1;
			}
		}
	}
	return pages;
}

/* The segment as the supervisor will lay it out, and the page tables of
 * every process for what it touches (ipc/shm.h). */
static int
segment(const struct wm_topology *t, const struct wm_plan *plan,
	struct wm_footprint *fp, char *err, size_t errlen)
{
	struct wm_shm_channel_spec *specs;
	struct wm_shm_channel *ch;
	struct span *spans = NULL;
	struct wm_shm_header h;
	size_t most = 1;
	uint64_t pages;
	int r;

	specs = calloc(plan->n_channels ? plan->n_channels : 1, sizeof(*specs));
	ch = calloc(plan->n_channels ? plan->n_channels : 1, sizeof(*ch));
	for (uint32_t i = 0; i < plan->n_subtasks; i++) {
		const struct wm_plan_subtask *s = &plan->subtasks[i];
		size_t n = 1 + s->n_inputs;

		for (uint32_t e = 0; e < s->n_edges; e++)
			n += s->edges[e].width;
		if (n > most)
			most = n;
	}
	spans = calloc(most, sizeof(*spans));
	if (specs == NULL || ch == NULL || spans == NULL) {
		r = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	struct wm_shm_spec spec =
		wm_plan_shm_spec(plan, t->job.ring_cells, specs);

	r = wm_shm_layout(&spec, &h, ch, err, errlen);
	if (r != 0)
		goto out;
	fp->segment_bytes = h.size;
	/* Header, doorbells, channel table and metrics: everyone's. */
	struct span tables = {0, h.metrics_offset + h.metrics_bytes};

	pages = table_pages(&tables, 1); /* the supervisor's */
	for (uint32_t i = 0; i < plan->n_subtasks; i++) {
		const struct wm_plan_subtask *s = &plan->subtasks[i];
		size_t n = 0;

		spans[n++] = tables;
		for (uint32_t k = 0; k < s->n_inputs; k++, n++)
			spans[n] = (struct span){
				ch[s->inputs[k]].ring_offset,
				ch[s->inputs[k]].ring_offset +
					ch[s->inputs[k]].ring_bytes};
		for (uint32_t e = 0; e < s->n_edges; e++)
			for (uint32_t k = 0; k < s->edges[e].width; k++, n++) {
				const struct wm_shm_channel *c =
					&ch[s->edges[e].channels[k]];

				spans[n] = (struct span){c->ring_offset,
							 c->ring_offset +
								 c->ring_bytes};
			}
		pages += table_pages(spans, n);
	}
	fp->page_table_bytes = pages * TABLE_PAGE;
out:
	free(specs);
	free(ch);
	free(spans);
	return r;
}

int
wm_footprint_estimate(const struct wm_topology *t, const struct wm_plan *plan,
		      bool sim, struct wm_footprint *fp, char *err,
		      size_t errlen)
{
	uint64_t most_rings = 0;
	int r;

	memset(fp, 0, sizeof(*fp));
	fp->sim = sim;
	fp->rings = plan->n_channels;
	fp->ring_bytes = (wm_ring_size(t->job.ring_cells) + WM_SHM_PAGE - 1) /
			 WM_SHM_PAGE * WM_SHM_PAGE;
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *st = &t->stages[s];
		uint64_t rings = (uint64_t)wm_topology_input_channels(t, s) *
				 st->parallelism;

		if (wm_stage_chained(st->kind)) /* chained: no rings */
			continue;
		if (st->kind == WM_STAGE_WINDOW)
			fp->n_windows++;
		if (rings > most_rings) {
			most_rings = rings;
			fp->ring_stage = s;
		}
	}
	if (fp->n_windows > 0) {
		fp->windows = calloc(fp->n_windows, sizeof(*fp->windows));
		if (fp->windows == NULL) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	for (uint32_t s = 0, w = 0; s < t->n_stages; s++)
		if (t->stages[s].kind == WM_STAGE_WINDOW) {
			window_states(t, plan, s, &fp->windows[w]);
			fp->window_bytes += fp->windows[w++].bytes;
		} else if (t->stages[s].kind == WM_STAGE_JOIN) {
			double bytes;

			fp->join_records += join_records(
				t, plan, s, &fp->joins_unbounded, &bytes);
			fp->join_bytes += bytes;
		}

	if (sim) {
		fp->processes = 1;
		fp->process_bytes = (uint64_t)plan->n_subtasks *
					    WM_FOOTPRINT_SIM_SUBTASK_BYTES +
				    wm_plan_metrics_bytes(plan) +
				    (uint64_t)plan->n_channels *
					    WM_FOOTPRINT_CHANNEL_BYTES +
				    WM_FOOTPRINT_PROGRAM_BYTES;
	} else {
		r = segment(t, plan, fp, err, errlen);
		if (r != 0) {
			wm_footprint_free(fp);
			return r;
		}
		fp->processes = plan->n_subtasks + 1;
		fp->process_bytes =
			(uint64_t)fp->processes * WM_FOOTPRINT_PROCESS_BYTES +
			(uint64_t)plan->n_channels *
				(WM_FOOTPRINT_CHANNEL_BYTES +
				 WM_FOOTPRINT_STAGED_BYTES) +
			WM_FOOTPRINT_PROGRAM_BYTES;
	}
	fp->total_bytes =
		(double)fp->segment_bytes + (double)fp->page_table_bytes +
		(double)fp->process_bytes + fp->window_bytes + fp->join_bytes;
	return 0;
}

void
wm_footprint_free(struct wm_footprint *fp)
{
	free(fp->windows);
	fp->windows = NULL;
	fp->n_windows = 0;
}

/* ------------------------------------------------------------------ */
/* The machine */

/* Unescape the octal escapes (\040) mountinfo writes for blanks, in
 * place. */
static void
unescape(char *s)
{
	char *out = s;

	for (; *s != '\0'; s++, out++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 3;
		} else {
			*out = *s;
		}
	}
	*out = '\0';
}

/* The limit in file `path`: a byte count, or "max" (none). */
static bool
read_limit(const char *path, uint64_t *bytes)
{
	FILE *f = fopen(path, "r");
	char buf[64];
	char *end;
	bool ok = false;

	if (f == NULL)
		return false;
	if (fgets(buf, sizeof(buf), f) != NULL && buf[0] >= '0' &&
	    buf[0] <= '9') {
		errno = 0;
		unsigned long long v = strtoull(buf, &end, 10);

		ok = errno == 0 && (*end == '\n' || *end == '\0');
		*bytes = (uint64_t)v;
	}
	fclose(f);
	return ok;
}

/*
 * The lowest limit in file `name` from directory `mount` + `rel` up to
 * `mount` itself; false if none.
 */
static bool
lowest_limit(const char *mount, const char *rel, const char *name,
	     uint64_t *bytes)
{
	char dir[4096];
	size_t top = strlen(mount), len;
	bool found = false;

	while (top > 1 && mount[top - 1] == '/')
		top--;
	if (snprintf(dir, sizeof(dir), "%.*s/%s", (int)top, mount, rel) >=
	    (int)sizeof(dir))
		return false;
	len = strlen(dir);
	for (;;) {
		char file[4200];
		uint64_t v;

		while (len > top && dir[len - 1] == '/')
			dir[--len] = '\0';
		snprintf(file, sizeof(file), "%s/%s", dir, name);
		if (read_limit(file, &v) && (!found || v < *bytes)) {
			*bytes = v;
			found = true;
		}
		if (len <= top)
			return found;
		/* Up one directory, never above the mount. */
		while (len > top && dir[len - 1] != '/')
			len--;
		dir[len] = '\0';
	}
}

/* The cgroup path of this process in hierarchy v2 (v1: the one with the
 * memory controller) from /proc/PID/cgroup's text; NULL if none. */
static char *
cgroup_path(const char *cgroup, bool v1)
{
	FILE *f = fopen(cgroup, "r");
	char *line = NULL, *path = NULL;
	size_t cap = 0;

	if (f == NULL)
		return NULL;
	while (path == NULL && getline(&line, &cap, f) > 0) {
		char *ctl = strchr(line, ':');
		char *rest = ctl != NULL ? strchr(ctl + 1, ':') : NULL;
		bool match = false;

		if (rest == NULL)
			continue;
		*ctl++ = '\0';
		*rest++ = '\0';
		rest[strcspn(rest, "\n")] = '\0';
		if (!v1) {
			match = strcmp(line, "0") == 0 && ctl[0] == '\0';
		} else {
			char *save = NULL;

			for (char *c = strtok_r(ctl, ",", &save);
			     c != NULL && !match;
			     c = strtok_r(NULL, ",", &save))
				match = strcmp(c, "memory") == 0;
		}
		if (match)
			path = strdup(rest);
	}
	free(line);
	fclose(f);
	return path;
}

int
wm_footprint_cgroup_limit(const char *cgroup, const char *mountinfo,
			  uint64_t *bytes)
{
	FILE *f = fopen(mountinfo, "r");
	char *line = NULL;
	size_t cap = 0;
	bool found = false;

	if (f == NULL)
		return -ENOENT;
	/* "ID PARENT MAJ:MIN ROOT MOUNT OPTIONS [OPTIONAL...] - TYPE SOURCE
	 * SUPER_OPTIONS" */
	while (getline(&line, &cap, f) > 0) {
		char *field[6], *dash = strstr(line, " - "), *save = NULL;
		char type[32] = "", super[256] = "";
		int n = 0;

		if (dash == NULL)
			continue;
		*dash = '\0';
		if (sscanf(dash + 3, "%31s %*s %255s", type, super) < 1)
			continue;
		for (char *tok = strtok_r(line, " ", &save); tok && n < 6;
		     tok = strtok_r(NULL, " ", &save))
			field[n++] = tok;
		bool v2 = strcmp(type, "cgroup2") == 0;
		bool v1 = strcmp(type, "cgroup") == 0 &&
			  strstr(super, "memory") != NULL;

		if (n < 5 || (!v1 && !v2))
			continue;
		char *path = cgroup_path(cgroup, v1);
		const char *root = field[3], *rel;
		uint64_t v;

		if (path == NULL)
			continue;
		unescape(field[3]);
		unescape(field[4]);
		/* The cgroup's path is from the hierarchy's root; the mount
		 * shows the hierarchy from `root` down. */
		rel = path;
		if (strcmp(root, "/") != 0 &&
		    strncmp(path, root, strlen(root)) == 0)
			rel = path + strlen(root);
		if (lowest_limit(field[4], rel,
				 v2 ? "memory.max" : "memory.limit_in_bytes",
				 &v) &&
		    (!found || v < *bytes)) {
			*bytes = v;
			found = true;
		}
		free(path);
	}
	free(line);
	fclose(f);
	return found ? 0 : -ENOENT;
}

void
wm_footprint_machine(struct wm_footprint_machine *m)
{
	struct sysinfo si;
	struct rlimit rl;
	uint64_t v;

	m->bytes = UINT64_MAX;
	m->limit = "physical memory";
	if (sysinfo(&si) == 0)
		m->bytes = (uint64_t)si.totalram * si.mem_unit;
	if (wm_footprint_cgroup_limit("/proc/self/cgroup",
				      "/proc/self/mountinfo", &v) == 0 &&
	    v < m->bytes) {
		m->bytes = v;
		m->limit = "cgroup memory limit";
	}
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (uint64_t)rl.rlim_cur < m->bytes) {
		m->bytes = (uint64_t)rl.rlim_cur;
		m->limit = "RLIMIT_AS";
	}
}

/* ------------------------------------------------------------------ */
/* Words */

char *
wm_footprint_bytes_text(double bytes, char *buf, size_t len)
{
	static const char *const units[] = {"KiB", "MiB", "GiB",
					    "TiB", "PiB", "EiB"};
	size_t u = 0;

	if (isinf(bytes) || isnan(bytes)) {
		snprintf(buf, len, "unbounded");
		return buf;
	}
	if (bytes < 1024) {
		snprintf(buf, len, "%.0f B", bytes);
		return buf;
	}
	bytes /= 1024;
	while (bytes >= 1023.95 && u + 1 < sizeof(units) / sizeof(units[0])) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", bytes, units[u]);
	return buf;
}

/* A count for a person: digits, or 1.2e+19 past 10^15. */
static char *
count_text(double n, char *buf, size_t len)
{
	if (isinf(n))
		snprintf(buf, len, "unboundedly many");
	else
		snprintf(buf, len, n < 1e15 ? "%.0f" : "%.2g", n);
	return buf;
}

/* "8 keys x 2 windows alive each", and what bounded it, for window `w`. */
static void
describe_states(const struct wm_footprint_window *w, char *buf, size_t len)
{
	char a[32], b[32];
	const char *what = w->session ? "sessions" : "windows";

	if (w->by_records)
		snprintf(buf, len, "as many as %s records can open, %u %s each",
			 count_text(w->records, a, sizeof(a)),
			 w->windows_per_record,
			 w->windows_per_record == 1 ? "window" : "windows");
	else if (w->keys_unknown)
		snprintf(buf, len,
			 "keys unknown (a replayed trace or a Nexmark "
			 "stream), counted as %s x "
			 "%s %s alive each",
			 count_text(w->keys, a, sizeof(a)),
			 count_text(w->per_key, b, sizeof(b)), what);
	else
		snprintf(buf, len, "%s keys x %s %s alive each",
			 count_text(w->keys, a, sizeof(a)),
			 count_text(w->per_key, b, sizeof(b)), what);
}

/* One part of the estimate: "  LABEL  BYTES  WHAT". */
static void
print_part(FILE *out, const char *label, double bytes, const char *what)
{
	char b[32];

	fprintf(out, "  %-24s %10s  %s\n", label,
		wm_footprint_bytes_text(bytes, b, sizeof(b)), what);
}

/* Why --check can give no bound to the records of source `src`, or NULL
 * if it can; *word says how many there are then: "unbounded" (for ever),
 * "unlimited" (as many as it can make in the run length) or "as many as
 * ... holds". */
static const char *
unbounded_why(const struct wm_topology *t, const struct wm_source_conf *src,
	      const char **word)
{
	*word = "unbounded";
	if (src->kind == WM_SOURCE_KAFKA) {
		if (src->kafka->stopping.position == WM_KAFKA_UNBOUNDED)
			return "a Kafka topic, read until the job is stopped";
		*word = "as many as its topic holds";
		return "read to its stopping offsets";
	}
	if (src->kind == WM_SOURCE_NEXMARK)
		return NULL; /* nexmark.events */
	if (src->kind == WM_SOURCE_REPLAY) {
		*word = "as many as its trace holds";
		return isinf(source_records(t, src)) ? "it cannot be read now"
						     : NULL;
	}
	if (t->job.records != UINT64_MAX)
		return NULL;
	if (isinf(run_ms(t)))
		return "no run length: the job runs until it is stopped (give "
		       "[job] event_time, processing_time or records)";
	*word = "unlimited";
	if (isinf(src->rate))
		return "rate = unlimited makes as many as it can in the run "
		       "length (give [job] records to bound them)";
	return NULL;
}

void
wm_footprint_print_records(FILE *out, const struct wm_topology *t)
{
	static const char *const heads[] = {
		NULL, "as many as the sources' traces and topics hold",
		"unlimited", "unbounded"};
	int worst = 0; /* an index of heads */
	double total = 0;
	char a[32];

	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_source_conf *src = &t->stages[s].u.source;
		const char *word;
		int rank;

		if (t->stages[s].kind != WM_STAGE_SOURCE)
			continue;
		if (unbounded_why(t, src, &word) == NULL) {
			total += source_records(t, src);
			continue;
		}
		rank = strcmp(word, "unbounded") == 0	? 3
		       : strcmp(word, "unlimited") == 0 ? 2
							: 1;
		if (rank > worst)
			worst = rank;
	}
	if (worst == 0)
		fprintf(out, "records: at most %s\n",
			count_text(total, a, sizeof(a)));
	else
		fprintf(out, "records: %s\n", heads[worst]);
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_source_conf *src = &t->stages[s].u.source;
		char label[WM_INI_QUOTE_MAX + 16];
		const char *why, *word;

		if (t->stages[s].kind != WM_STAGE_SOURCE)
			continue;
		why = unbounded_why(t, src, &word);
		snprintf(label, sizeof(label), "source %s", t->stages[s].name);
		if (why != NULL)
			fprintf(out, "  %-24s %s: %s\n", label, word, why);
		else
			fprintf(out, "  %-24s at most %s%s\n", label,
				count_text(source_records(t, src), a,
					   sizeof(a)),
				src->kind == WM_SOURCE_REPLAY
					? " (by its trace's size)"
					: "");
	}
}

void
wm_footprint_print(FILE *out, const struct wm_topology *t,
		   const struct wm_footprint *fp,
		   const struct wm_footprint_machine *m)
{
	char a[32], b[32], c[32], why[256], what[512];

	fprintf(out, "memory: about %s%s, of this machine's %s (%s)\n",
		wm_footprint_bytes_text(fp->total_bytes, a, sizeof(a)),
		fp->sim ? " for --sim" : "",
		wm_footprint_bytes_text((double)m->bytes, b, sizeof(b)),
		m->limit);
	if (!fp->sim) {
		snprintf(what, sizeof(what), "%u ring%s of %s and the tables",
			 fp->rings, fp->rings == 1 ? "" : "s",
			 wm_footprint_bytes_text((double)fp->ring_bytes, a,
						 sizeof(a)));
		print_part(out, "segment", (double)fp->segment_bytes, what);
		print_part(out, "page tables", (double)fp->page_table_bytes,
			   "for the pages of it each process touches");
		snprintf(what, sizeof(what), "%u of about %s, and the program",
			 fp->processes,
			 wm_footprint_bytes_text(WM_FOOTPRINT_PROCESS_BYTES, a,
						 sizeof(a)));
		print_part(out, "processes", (double)fp->process_bytes, what);
	} else {
		print_part(out, "subtasks", (double)fp->process_bytes,
			   "in one process, and the program");
	}
	for (uint32_t i = 0; i < fp->n_windows; i++) {
		const struct wm_footprint_window *w = &fp->windows[i];
		char label[WM_INI_QUOTE_MAX + 16];

		describe_states(w, why, sizeof(why));
		snprintf(what, sizeof(what), "%s states of %s: %s%s%s",
			 count_text(w->states, b, sizeof(b)),
			 wm_footprint_bytes_text(state_bytes(w), c, sizeof(c)),
			 why,
			 w->unbounded ? "; more for as long as the watermark "
					"is held (the job has no run length)"
				      : "",
			 w->plugins ? "; and what its plugin aggregates keep, "
				      "unknown here"
				    : "");
		snprintf(label, sizeof(label), "window %s",
			 t->stages[w->stage].name);
		print_part(out, label, w->bytes, what);
	}
	if (fp->join_records > 0 || fp->joins_unbounded) {
		snprintf(what, sizeof(what),
			 "%s records kept at once, about %s each with their "
			 "windows and timers%s",
			 count_text(fp->join_records, b, sizeof(b)),
			 wm_footprint_bytes_text(
				 fp->join_bytes / fmax(fp->join_records, 1), c,
				 sizeof(c)),
			 fp->joins_unbounded
				 ? "; more for as long as the watermark is "
				   "held (the job has no run length)"
				 : "");
		print_part(out, "joins", fp->join_bytes, what);
	}
}

int
wm_footprint_verdict(const struct wm_topology *t, const struct wm_footprint *fp,
		     const struct wm_footprint_machine *m, char *err,
		     size_t errlen)
{
	const struct wm_footprint_window *worst = NULL;
	double rest = fp->total_bytes - fp->window_bytes - fp->join_bytes;
	char total[32], has[32], part[32], n[32], why[256];

	if (fp->total_bytes <= (double)m->bytes)
		return 0;
	for (uint32_t i = 0; i < fp->n_windows; i++)
		if (worst == NULL || fp->windows[i].bytes > worst->bytes)
			worst = &fp->windows[i];
	wm_footprint_bytes_text(fp->total_bytes, total, sizeof(total));
	wm_footprint_bytes_text((double)m->bytes, has, sizeof(has));
	if (fp->join_bytes >= rest &&
	    (worst == NULL || fp->join_bytes > worst->bytes)) {
		const struct wm_stage *st = &t->stages[0];

		for (uint32_t s = 0; s < t->n_stages; s++)
			if (t->stages[s].kind == WM_STAGE_JOIN) {
				st = &t->stages[s];
				break;
			}
		snprintf(err, errlen,
			 "%s:%d:%d: the job needs about %s of memory and this "
			 "machine has %s (%s): its joins keep about %s "
			 "records at once, which take %s",
			 t->file, st->line, st->col, total, has, m->limit,
			 count_text(fp->join_records, n, sizeof(n)),
			 wm_footprint_bytes_text(fp->join_bytes, part,
						 sizeof(part)));
	} else if (worst != NULL && worst->bytes >= rest) {
		const struct wm_stage *st = &t->stages[worst->stage];

		describe_states(worst, why, sizeof(why));
		snprintf(err, errlen,
			 "%s:%d:%d: the job needs about %s of memory and this "
			 "machine has %s (%s): window \"%s\" keeps about %s "
			 "(key, %s) states at once (%s), which take %s",
			 t->file, st->line, st->col, total, has, m->limit,
			 st->name, count_text(worst->states, n, sizeof(n)),
			 worst->session ? "session" : "window", why,
			 wm_footprint_bytes_text(worst->bytes, part,
						 sizeof(part)));
	} else {
		const struct wm_stage *st = &t->stages[fp->ring_stage];

		snprintf(err, errlen,
			 "%s:%d:%d: the job needs about %s of memory and this "
			 "machine has %s (%s): its %u processes and %u rings "
			 "of %s take %s",
			 t->file, st->line, st->col, total, has, m->limit,
			 fp->processes, fp->rings,
			 wm_footprint_bytes_text((double)fp->ring_bytes, n,
						 sizeof(n)),
			 wm_footprint_bytes_text(rest, part, sizeof(part)));
	}
	return -E2BIG;
}
