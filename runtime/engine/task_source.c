/*
 * task_source.c
 *	A source subtask: its partitions (Flink splits) read from the record
 *	source its driver opened (the generator or a replayed trace,
 *	runtime/source/sources.h), their watermarks (per split or per
 *	subtask, through one interface, operators/source_watermarking.h: the
 *	task never asks which), partitions that finish released; watermark
 *	alignment with the other sources of its group is
 *	task_source_align.c.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "base/assert.h"
#include "operators/alignment.h"
#include "runtime/engine/task_out.h"
#include "runtime/engine/task_source_align.h"
#include "runtime/engine/task_state.h"

/*
 * Partitions the record source lists and the task does not know yet:
 * those it had at the start, and those it discovered since (a Kafka
 * topic that grew), which come after the old ones, whose indexes stay
 * (operators/source_gen.h). Each is taken as Flink's source reader takes
 * a split the enumerator assigns while the job runs: its own generator
 * and multiplexer slot, at MIN and not idle (doc/semantics.md section
 * 3.12), its progress from now on, and a partition entry of the metrics
 * block, which the plan sized for every partition the subtask can own
 * (runtime/plan/plan.h). 0, or -EINVAL for a partition the source may
 * not list (an id past the stage's partitions, one it listed before,
 * more than the room), -ENOMEM; t->why says which.
 */
int
wm_task_source_adopt(struct wm_task *t)
{
	const struct wm_source_conf *sc = &t->stage->u.source;
	struct task_source *s = t->source;
	uint32_t n = s->src->ops->n_partitions(s->src);

	for (uint32_t i = s->n_parts; i < n; i++) {
		struct source_partition *p = &s->part[i];
		struct wm_source_partition_stats st;

		/* The source's order of its partitions is the task's. */
		s->src->ops->partition_stats(s->src, i, t->now_ns, &st);
		if (i >= s->room || st.partition >= sc->partitions ||
		    s->part_of[st.partition] != NULL) {
			snprintf(t->why, sizeof(t->why),
				 "the record source lists partition %u as "
				 "its partition %u, beyond the %u partitions "
				 "of the stage, the %u this subtask can own, "
				 "or twice",
				 st.partition, i, sc->partitions, s->room);
			return -EINVAL;
		}
		s->parts[i] = st.partition;
		s->part_of[st.partition] = p;
		memset(p, 0, sizeof(*p));
		p->local = i;
		p->newest_ts = WM_TS_MIN;
		p->last_ns = t->now_ns;
		p->last_due_ns = t->now_ns;
		p->pending.first_ns = p->pending.last_ns = INT64_MAX;
		wm_progress_init(&p->progress,
				 wm_task_stall_threshold_ns(t->topo));
		wm_progress_follow_starvation(&p->progress, &t->cpu_wait_ns);
		wm_progress_follow_due(&p->progress, &p->due);
		if (t->now_ns != 0)
			wm_progress_start_at(&p->progress, t->now_ns);
		if (s->noise_speed > 0)
			wm_progress_count_noise(&p->progress, s->noise_speed);
		if (wm_source_watermarking_add_partition(
			    &s->watermarks, st.partition,
			    &s->split_of[st.partition]) != 0) {
			snprintf(t->why, sizeof(t->why),
				 "no memory for partition %u", st.partition);
			return -ENOMEM;
		}
		if (s->split_of[st.partition] != NULL) {
			p->generator_newest = &p->newest_ts;
			p->generator_pending = &p->pending;
		} else {
			p->generator_newest = &t->newest_ts;
			p->generator_pending = &s->pending;
			s->subtask_newest = true;
		}
		s->n_parts = i + 1;
	}
	return 0;
}

/* The partitions of the record source the driver opened (io/sources.h),
 * and their watermarks where the source's `watermark_at` puts them. */
int
wm_task_init_source(struct wm_task *t, struct wm_record_source *src)
{
	const struct wm_source_conf *sc = &t->stage->u.source;
	struct task_source *s = calloc(1, sizeof(*s));
	uint32_t room = t->sub->n_partitions;

	if (s == NULL) {
		wm_record_source_free(src);
		return -ENOMEM;
	}
	t->source = s;
	s->src = src; /* the task's now, freed with it whatever happens */
	if (src == NULL)
		return -EINVAL;
	/* Room for every partition the subtask can own (plan.h), the
	 * metrics block's too. */
	s->room = room;
	s->parts = calloc(room ? room : 1, sizeof(*s->parts));
	s->part = calloc(room ? room : 1, sizeof(*s->part));
	s->split_of = calloc(sc->partitions ? sc->partitions : 1,
			     sizeof(*s->split_of));
	/* NULL: not (yet) this subtask's. */
	s->part_of = calloc(sc->partitions ? sc->partitions : 1,
			    sizeof(*s->part_of));
	if (s->parts == NULL || s->part == NULL || s->split_of == NULL ||
	    s->part_of == NULL)
		return -ENOMEM;
	s->max_allowed = WM_TS_MAX;
	s->next_alignment_ns = INT64_MAX;
	s->pending.first_ns = s->pending.last_ns = INT64_MAX;
	s->last_emit_ts = WM_TS_MIN;
	/* A run length in processing time ends every source's input then,
	 * whatever its records: drained, as a bounded source ends. The
	 * processing time [0, end) is read, as an event-time end is. */
	s->end_ns = wm_ms_to_ns(t->topo->job.processing_time_ms);
	if (wm_source_watermarking_init(&s->watermarks,
					sc->watermark_per_subtask
						? WM_WATERMARK_AT_SUBTASK
						: WM_WATERMARK_AT_SPLIT,
					&sc->strategy, &t->edges_out) != 0)
		return -EINVAL;
	s->watermarks_ready = true;
	return wm_task_source_adopt(t);
}

void
wm_task_free_source(struct wm_task *t)
{
	struct task_source *s = t->source;

	if (s == NULL)
		return;
	wm_record_source_free(s->src);
	if (s->watermarks_ready)
		wm_source_watermarking_destroy(&s->watermarks);
	free(s->split_of);
	free(s->parts);
	free(s->part_of);
	free(s->part);
	free(s->peers);
	free(s);
	t->source = NULL;
}

/* When the periodic emission is next due. */
static int64_t
next_tick(const struct task_source *s)
{
	return wm_source_watermarking_next_tick(&s->watermarks);
}

/* The partition (id) whose slot holds the multiplexer's minimum: the
 * lowest watermark among those in its minimum (not idle, not joining
 * behind it: combine.h), the first on a tie; NO_CAUSE if none is.
 * O(partitions), once a tick. */
uint32_t
wm_task_holding_partition(const struct wm_task *t)
{
	const struct task_source *s = t->source;
	uint32_t holder = WM_PROGRESS_NO_CAUSE;
	wm_ts_t low = WM_TS_MAX;

	if (wm_source_watermarking_handles(&s->watermarks) == 0)
		return holder; /* no slot holds anything */
	for (uint32_t i = 0; i < s->n_parts; i++) {
		const struct wm_source_split *split = s->split_of[s->parts[i]];

		if (wm_source_watermarking_counts(&s->watermarks, split) &&
		    (holder == WM_PROGRESS_NO_CAUSE ||
		     split->slot.partial.watermark < low)) {
			low = split->slot.partial.watermark;
			holder = s->parts[i];
		}
	}
	return holder;
}

void
wm_task_source_count_noise(struct wm_task *t, double speed)
{
	struct task_source *s = t->source;

	t->real = true;
	s->noise_speed = speed;
	for (uint32_t i = 0; i < s->n_parts; i++)
		wm_progress_count_noise(&s->part[i].progress, speed);
}

/* min(a + b, cap), saturating. */
static int64_t
due_after(int64_t a, int64_t b, int64_t cap)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		r = INT64_MAX;
	return r < cap ? r : cap;
}

/*
 * A real run's schedule of a stream's end (a partition's, or the
 * subtask's input): with records no tick took yet (the first due at
 * `pending_ns`; INT64_MAX: none), the watermark could have moved one
 * interval after the first, and --sim moves it on to the end; else the
 * end came where the subtask's schedule stands, its latest record's due
 * (a partition silent to its end was silent until then). Never after
 * now.
 */
static int64_t
end_due(const struct wm_task *t, int64_t pending_ns)
{
	const struct task_source *s = t->source;
	int64_t due = s->last_due_ns;

	if (pending_ns != INT64_MAX)
		due = due_after(
			pending_ns,
			wm_ms_to_ns(t->stage->u.source.strategy.interval_ms),
			due);
	return due < t->now_ns ? due : t->now_ns;
}

/*
 * Partitions that finished leave the multiplexer, as Flink releases a
 * finished split's output, its slot removed (doc/semantics.md section
 * 3.6): a finished partition no longer holds the subtask's watermark,
 * and alignment no longer waits on it. Each is retired once, in the order
 * the source finished them, as its count of finished partitions grows:
 * work per finished partition, not per partition each time one finishes
 * (quadratic for a source with tens of thousands of partitions ending one
 * by one).
 */
static void
retire_finished(struct wm_task *t)
{
	struct task_source *s = t->source;
	uint32_t n = s->src->ops->n_finished(s->src);

	for (; s->finished_parts < n; s->finished_parts++) {
		uint32_t i = s->src->ops->finished_partition(s->src,
							     s->finished_parts);

		wm_task_source_pause_partition(t, i, false);
		s->part[i].due.first_ns = s->part[i].due.last_ns =
			end_due(t, s->part[i].pending.first_ns);
		wm_progress_finish(&s->part[i].progress, t->now_ns);
		wm_source_watermarking_remove_partition(&s->watermarks,
							s->parts[i]);
		s->split_of[s->parts[i]] = NULL;
	}
}

/* A partition's slot in the multiplexer may have changed status or
 * watermark: follow it. */
static void
watch_partition(struct wm_task *t, uint32_t local)
{
	struct task_source *s = t->source;
	const struct wm_partial_watermark *slot =
		wm_task_source_slot_of(t, local);
	struct wm_progress *p = &s->part[local].progress;

	if (slot == NULL)
		return;
	/* A slot leaving idleness does so with a watermark: the status
	 * first, so the advance closes no idle time as stalled. */
	wm_progress_status(p, slot->idle, t->now_ns, WM_PROGRESS_NO_CAUSE);
	wm_progress_watermark(p, slot->watermark, t->now_ns,
			      WM_PROGRESS_NO_CAUSE);
	/* Alignment checks a partition on every update of its watermark
	 * (which only grows: resuming waits for an announcement). */
	if (s->peers != NULL &&
	    wm_alignment_holds_back(slot->watermark, s->max_allowed))
		wm_task_source_pause_partition(t, local, true);
}

void
wm_task_stop_source(struct wm_task *t)
{
	struct task_source *s = t->source;
	struct wm_frame end = {.kind = WM_FRAME_END, .arg = WM_END_STOP};

	if (s == NULL || t->finished)
		return;
	wm_task_send_all(t, &end);
	t->finished = true;
	/* A stopped source holds no aligned peer back either. */
	if (s->peers != NULL)
		wm_task_source_align_update(t);
}

/*
 * What the advice measures of a record of partition `local` due at
 * `now_ns` (metrics.h; in a real run when the record was due, not when
 * the process got to it, so that its lateness is no silence): the gap
 * since the partition's last record, and its disorder against the newest
 * event time its generator had seen, the partition's own or, with one
 * generator per subtask, the subtask's (before this record). Both go
 * straight into the block's histograms, as fire delays do: publishing
 * copies nothing per partition. measure_disorder() is the second half,
 * alone for a record whose gap is known to be 0 ms (take_run()).
 */
static inline void
measure_disorder(struct wm_task *t, struct source_partition *p,
		 const struct wm_record *rec)
{
	wm_ts_t newest = *p->generator_newest;
	int64_t disorder_ms;

	/* No event time is below WM_TS_MIN, the newest before any: no test
	 * of its own. */
	if (rec->ts < newest &&
	    !__builtin_sub_overflow(newest, rec->ts, &disorder_ms)) {
		WM_METRIC_ADD(
			t->metrics->disorder[wm_histogram_bucket(disorder_ms)],
			1);
		if (disorder_ms > p->disorder_max_ms)
			p->disorder_max_ms = disorder_ms;
	}
	if (rec->ts > p->newest_ts)
		p->newest_ts = rec->ts;
}

static void
measure_record(struct wm_task *t, uint32_t local, const struct wm_record *rec,
	       int64_t now_ns)
{
	struct task_source *s = t->source;
	struct source_partition *p = &s->part[local];
	struct wm_partition_metrics *pm = &t->partition_metrics[local];

	int64_t gap_ms = (now_ns - p->last_ns) / 1000000;

	/* The silence before the first record is no gap between records:
	 * only the longest silence counts it. */
	if (p->records > 1)
		wm_gaps_add(
			&pm->gaps,
			wm_histogram_shape_bucket(WM_HISTOGRAM_GAPS, gap_ms),
			1);
	if (gap_ms > p->gap_max_ms)
		p->gap_max_ms = gap_ms;
	p->last_ns = now_ns;
	measure_disorder(t, p, rec);
}

/* The task cannot go on with what its record source did (a partition it
 * may not list, a record of a partition it does not list): the job stops
 * as for a source that says so itself (wm_task_source_health()). */
static void
source_broken(struct wm_task *t)
{
	struct task_source *s = t->source;

	s->health.exit_code = EX_SOFTWARE;
	snprintf(s->health.why, sizeof(s->health.why), "%s", t->why);
}

/* The local index of a record's partition: one the source listed, taken
 * on first sight if it listed it since the last look; UINT32_MAX after
 * source_broken(). */
static uint32_t
local_of_record(struct wm_task *t, const struct wm_record *rec)
{
	struct task_source *s = t->source;
	uint32_t partitions = t->stage->u.source.partitions;

	if (rec->partition < partitions && s->part_of[rec->partition] != NULL)
		return s->part_of[rec->partition]->local;
	if (wm_task_source_adopt(t) == 0 && rec->partition < partitions &&
	    s->part_of[rec->partition] != NULL)
		return s->part_of[rec->partition]->local;
	if (t->why[0] == '\0')
		snprintf(t->why, sizeof(t->why),
			 "the record source returned a record of partition "
			 "%u, which it does not list",
			 rec->partition);
	source_broken(t);
	return UINT32_MAX;
}

/*
 * A real run's schedule of a record of partition `local` due at `due_ns`
 * (progress.h `due`): what its tracker and the output tracker take if
 * the record moves their watermark or status (a punctuated watermark, a
 * partition back from idle), and what the next tick takes (pending).
 */
static void
record_due(struct wm_task *t, uint32_t local, int64_t due_ns)
{
	struct task_source *s = t->source;
	struct source_partition *p = &s->part[local];

	p->last_due_ns = due_ns;
	if (due_ns > s->last_due_ns)
		s->last_due_ns = due_ns;
	p->due = (struct wm_progress_due){due_ns, due_ns};
	if (p->pending.first_ns == INT64_MAX)
		p->pending.first_ns = due_ns;
	p->pending.last_ns = due_ns;
	if (s->pending.first_ns == INT64_MAX)
		s->pending.first_ns = due_ns;
	s->pending.last_ns = due_ns;
	wm_task_due(t, due_ns, due_ns);
	wm_task_late(t, due_ns);
}

/*
 * The generator of rec's partition sees it (onEvent), and the watermark
 * it carries if it carries one: the last record of its run, whose
 * watermark the source holds until it is called again.
 */
static inline void
generator_sees(struct task_source *s, const struct wm_record *rec)
{
	wm_source_watermarking_on_record(&s->watermarks,
					 s->split_of[rec->partition], rec->ts,
					 rec->flags);
	if (rec->flags & WM_RECORD_WATERMARK)
		wm_source_watermarking_on_carried(
			&s->watermarks, s->split_of[rec->partition],
			wm_record_source_carried_watermark(s->src));
}

/*
 * A record of partition `local` (p) due at `due`, read into the staging,
 * the whole way: counted, measured, its schedule noted, staged to go,
 * then its partition's generator sees it (Flink emits the record, then
 * calls onEvent: generator_sees()) and its slot is followed.
 */
static inline void
take_record(struct wm_task *t, const struct wm_record *rec, uint32_t local,
	    int64_t due, uint64_t burst)
{
	struct task_source *s = t->source;
	struct source_partition *p = &s->part[local];

	if (p->burst_seen != burst) {
		s->burst_parts[s->n_burst_parts++] = local;
		p->burst_seen = burst;
	}
	p->records++;
	measure_record(t, local, rec, due);
	record_due(t, local, due);
	if (rec->ts > t->newest_ts)
		t->newest_ts = rec->ts;
	t->cause = rec->partition; /* a punctuated watermark */
	wm_task_stage_next(t);
	generator_sees(s, rec);
	watch_partition(t, local);
}

/*
 * A heartbeat of partition `local` (WM_RECORD_HEARTBEAT) due at `due`,
 * read into the staging: its partition's generator sees it as it sees a
 * record (Flink's onEvent: the newest event time, and activity for
 * withIdleness), so its schedule is noted and its slot followed as a
 * record's; then it is dropped, as the filter a user puts after Flink's
 * source drops it: counted apart, never staged, and no record of its
 * partition as the gaps and the disorder measure them. Its event time is
 * among what the generator has seen, which a later record's disorder is
 * measured against. It cuts the run (wm_task_stage_skip()) and never
 * takes the short way: heartbeats are rare.
 */
static void
take_heartbeat(struct wm_task *t, const struct wm_record *rec, uint32_t local,
	       int64_t due)
{
	struct task_source *s = t->source;
	struct source_partition *p = &s->part[local];

	s->heartbeats++;
	record_due(t, local, due);
	if (rec->ts > p->newest_ts)
		p->newest_ts = rec->ts;
	if (rec->ts > t->newest_ts)
		t->newest_ts = rec->ts;
	t->cause = rec->partition;
	wm_task_stage_skip(t);
	generator_sees(s, rec);
	watch_partition(t, local);
}

/*
 * Whether a record of a partition whose first record of this burst was
 * taken the whole way, due at `due`, finds what that noted unchanged, in
 * a real run (take_short()): its due is p's last one and the latest one
 * noted (record_due() would write what is there), and the task's
 * schedule's too (wm_task_due() and wm_task_late() would repeat
 * themselves); and its gap is 0 ms. The slot moves only at a tick or a
 * punctuated record, which always goes the whole way, so
 * watch_partition() would find it as it left it. Under --sim every record
 * of a burst is due at now_ns, and the partition's first set them all to
 * that.
 */
static inline bool
due_repeats(const struct wm_task *t, const struct source_partition *p,
	    int64_t due)
{
	return due == p->last_due_ns && due == p->last_ns &&
	       due == t->source->pending.last_ns && t->due.first_ns == due &&
	       t->due.last_ns == due;
}

/*
 * The short way of a record of partition p (take_short()): what
 * take_record() would change, no more: counted with its gap of 0 ms
 * (burst_more), its disorder and the newest event times, staged
 * (wm_task_stage_next() with `stage_each`, which sends it at once). The
 * count, the gaps and the generator's onEvent wait for the burst's end
 * (settle_burst()).
 */
static inline void
take_again(struct wm_task *t, struct source_partition *p,
	   const struct wm_record *rec, bool stage_each, bool subtask_newest)
{
	p->burst_more++;
	measure_disorder(t, p, rec);
	if (subtask_newest && rec->ts > t->newest_ts)
		t->newest_ts = rec->ts;
	if (stage_each)
		wm_task_stage_next(t);
	else
		t->n_staged++;
}

/*
 * The burst's end: each partition that had a record in it takes those of
 * the short way into its count, their gaps of 0 ms into its histogram,
 * and their newest event time into its watermark generator, once for the
 * burst. That is what taking them one by one leaves: a partition's count
 * and gaps are read between bursts (publishing, checkpoints, the next
 * burst's first record); a generator's onEvent keeps the maximum and
 * marks the input active, and what it keeps is read at a periodic
 * emission, a tick, never within a burst (a punctuated record, which
 * emits at once, takes the whole way).
 */
static void
settle_burst(struct wm_task *t)
{
	struct task_source *s = t->source;

	for (uint32_t k = 0; k < s->n_burst_parts; k++) {
		uint32_t local = s->burst_parts[k];
		struct source_partition *p = &s->part[local];

		if (p->burst_more == 0)
			continue;
		p->records += p->burst_more;
		/* The task's newest event time, which the short way leaves
		 * here where nothing reads it within the burst. */
		if (p->newest_ts > t->newest_ts)
			t->newest_ts = p->newest_ts;
		wm_gaps_add(&t->partition_metrics[local].gaps, 0,
			    p->burst_more);
		/* The newest event time of all the partition's records: the
		 * generator saw every one before this burst's short way, so
		 * it takes the newest of these. */
		wm_source_watermarking_on_record(&s->watermarks,
						 s->split_of[s->parts[local]],
						 p->newest_ts, 0);
		p->burst_more = 0;
	}
	s->n_burst_parts = 0;
}

/*
 * When a record of partition p, due_ns[i] by its source's schedule, was
 * due (a real run; NULL: --sim, now_ns). Records alignment held back were
 * due at their resume: the wait was the schedule's, not the process's
 * lateness. Under --sim a resume is never after now_ns: every record is
 * due then.
 */
static inline int64_t
due_of(const struct task_source *s, const struct source_partition *p,
       const int64_t *due_ns, uint32_t i, int64_t now_ns)
{
	int64_t due;

	if (due_ns == NULL)
		return now_ns;
	due = due_ns[i];
	if (due < s->resumed_ns)
		due = s->resumed_ns;
	if (due < p->resumed_ns)
		due = p->resumed_ns;
	return due < now_ns ? due : now_ns;
}

/*
 * The short way in a loop of its own, from run[i] on, for a task without
 * peers (alignment checks each record's watermark): the records of a
 * partition whose first record of this burst went the whole way, not
 * punctuated, and in a real run due as it was (due_repeats()), up to the
 * first that is not, whose index it returns (n: all). `stage_each`: the
 * driver takes no runs (wm_task_stage_next()). Nothing in it is called
 * out of line, so that what it reads of the task stays in registers.
 */
static inline __attribute__((always_inline)) uint32_t
take_short_as(struct wm_task *t, const struct wm_record *run,
	      const int64_t *due_ns, uint32_t i, uint32_t n, uint64_t burst,
	      int64_t now_ns, bool stage_each, bool subtask_newest)
{
	const struct task_source *s = t->source;
	const uint32_t partitions = t->stage->u.source.partitions;
	struct source_partition *const *const part_of = s->part_of;
	const bool real = t->real;

	for (; i < n; i++) {
		const struct wm_record *rec = &run[i];
		struct source_partition *p;

		if (rec->partition >= partitions)
			break;
		p = part_of[rec->partition];
		if (p == NULL)
			break;
		if (p->burst_seen != burst ||
		    (rec->flags & (WM_RECORD_PUNCTUATE | WM_RECORD_HEARTBEAT |
				   WM_RECORD_WATERMARK)) ||
		    (real &&
		     !due_repeats(t, p, due_of(s, p, due_ns, i, now_ns))))
			break;
		take_again(t, p, rec, stage_each, subtask_newest);
	}
	return i;
}

/* take_short_as(), its loop made once for each driver kind and each kind
 * of generator: constants cost the loop no test a record. */
static uint32_t
take_short(struct wm_task *t, const struct wm_record *run,
	   const int64_t *due_ns, uint32_t i, uint32_t n, uint64_t burst,
	   int64_t now_ns, bool stage_each)
{
	bool subtask_newest = t->source->subtask_newest;

	if (stage_each && subtask_newest)
		return take_short_as(t, run, due_ns, i, n, burst, now_ns, true,
				     true);
	if (stage_each)
		return take_short_as(t, run, due_ns, i, n, burst, now_ns, true,
				     false);
	if (subtask_newest)
		return take_short_as(t, run, due_ns, i, n, burst, now_ns, false,
				     true);
	return take_short_as(t, run, due_ns, i, n, burst, now_ns, false, false);
}

/*
 * The run of `n` records the source read into the staging
 * (wm_task_staging()), each due at due_ns[i] (a real run) or at now_ns
 * (--sim), taken in order: the short way where take_short() finds it
 * comes to the same, else the whole way (take_record()). Returns how
 * many it took: n, or fewer when the source broke (source_broken(): the
 * job stops, and the rest are not counted).
 */
static uint32_t
take_run(struct wm_task *t, int64_t now_ns, const int64_t *due_ns, uint32_t n,
	 uint64_t burst)
{
	struct task_source *s = t->source;
	const struct wm_record *run = t->staged;
	/* A user's generator sees every record (the short way gives the
	 * generator a burst's newest event time once, which is all a
	 * built-in one keeps). */
	bool shortcut = s->peers == NULL &&
			t->stage->u.source.strategy.kind != WM_WATERMARK_PLUGIN;
	bool stage_each = t->out->records == NULL;
	uint32_t i, heartbeats = 0;

	for (i = 0; i < n; i++) {
		if (shortcut) {
			i = take_short(t, run, due_ns, i, n, burst, now_ns,
				       stage_each);
			if (i == n)
				break;
		}
		const struct wm_record *rec = &run[i];
		uint32_t local = local_of_record(t, rec);

		if (local == UINT32_MAX)
			break;
		if (rec->flags & WM_RECORD_HEARTBEAT) {
			take_heartbeat(
				t, rec, local,
				due_of(s, &s->part[local], due_ns, i, now_ns));
			heartbeats++;
			continue;
		}
		take_record(t, rec, local,
			    due_of(s, &s->part[local], due_ns, i, now_ns),
			    burst);
	}
	/* The short way leaves the cause to here: nothing it calls reads
	 * it (a punctuated record takes the whole way). */
	if (i > 0)
		t->cause = run[i - 1].partition;
	t->counters.records_in += i - heartbeats;
	return i;
}

/* The last record of the `took` taken at `run` (heartbeats are dropped,
 * not emitted), for the emit lag: it leaves at now_ns. */
static inline void
note_last_emitted(struct task_source *s, const struct wm_record *run,
		  uint32_t took, int64_t now_ns)
{
	for (uint32_t i = took; i-- > 0;)
		if (!(run[i].flags & WM_RECORD_HEARTBEAT)) {
			s->last_emit_ts = run[i].ts;
			s->last_emit_ns = now_ns;
			return;
		}
}

/*
 * The records due by `due_by` (`now_ns`, but in a replayed backlog), read
 * from the source in runs straight into the staging and taken there
 * (take_run()); at most a burst per call, so that an unlimited-rate
 * source lets its caller move time on, run ticks and serve its other
 * duties. A subtask waiting for alignment reads nothing, nor one whose
 * source broke. Alignment may pause a partition at any record (its
 * watermark is checked on each), so with peers a run is one record. In a
 * real run a record is taken as due when the source's schedule said (it
 * may come later, the process being late); under --sim it comes then.
 * Returns how many it emitted.
 */
static uint32_t
emit_due(struct wm_task *t, int64_t now_ns, int64_t due_by)
{
	struct task_source *s = t->source;
	uint32_t run_max = s->peers != NULL ? 1 : WM_TASK_STAGED;
	int64_t *due_ns = t->real ? s->run_due : NULL;
	uint64_t burst = ++s->burst;
	uint32_t n = 0;

	while (!s->waiting.paused && now_ns < s->end_ns &&
	       n < WM_TASK_SOURCE_BURST && s->health.exit_code == 0) {
		uint32_t cap = WM_TASK_SOURCE_BURST - n < run_max
				       ? WM_TASK_SOURCE_BURST - n
				       : run_max;
		struct wm_record *run = wm_task_staging(t);
		uint32_t got = wm_record_source_next_run(s->src, due_by, run,
							 due_ns, cap);
		/* A record that carries a watermark ends its run, not what
		 * the source has now (record_source.h). */
		bool carried =
			got > 0 && (run[got - 1].flags & WM_RECORD_WATERMARK);
		uint32_t took = take_run(t, now_ns, due_ns, got, burst);

		note_last_emitted(s, run, took, now_ns);
		n += took;
		if (took < cap && !(carried && took == got))
			break; /* the source has no more now, or broke */
	}
	settle_burst(t);
	wm_task_flush_staged(t);
	return n;
}

/*
 * A real run's schedule of the tick at `now_ns` (progress.h `due`): a
 * partition whose records came since the last tick could have moved its
 * watermark one interval after the first of them was due, and the tick
 * after its last stands for those --sim runs in between; one with no
 * record could have gone idle its timeout after its last record. The
 * output takes the schedule of the partition holding it (t->cause).
 * Pending records are taken by this tick.
 */
static void
tick_due(struct wm_task *t, int64_t now_ns)
{
	struct task_source *s = t->source;
	const struct wm_watermark_strategy *st = &t->stage->u.source.strategy;
	int64_t interval = wm_ms_to_ns(st->interval_ms);
	int64_t idle = st->with_idleness
			       ? due_after(wm_ms_to_ns(st->idle_timeout_ms),
					   interval, INT64_MAX)
			       : 0;
	struct wm_progress_due out = {now_ns, now_ns};
	const struct wm_progress_due *generator = NULL;

	if (!t->real)
		return;
	for (uint32_t i = 0; i < s->n_parts; i++) {
		struct source_partition *p = &s->part[i];

		if (p->pending.first_ns != INT64_MAX) {
			p->due.first_ns = due_after(p->pending.first_ns,
						    interval, now_ns);
			p->due.last_ns =
				due_after(p->pending.last_ns, interval, now_ns);
		} else {
			p->due.first_ns = p->due.last_ns =
				st->with_idleness ? due_after(p->last_due_ns,
							      idle, now_ns)
						  : now_ns;
		}
		if (s->parts[i] == t->cause) {
			out = p->due;
			generator = p->generator_pending;
		}
		p->pending.first_ns = p->pending.last_ns = INT64_MAX;
	}
	/* The output follows the generator the cause's records feed: a
	 * partition's own took its pending records into its due just above
	 * (and has none left); the subtask's one takes every partition's. */
	if (generator != NULL && generator->first_ns != INT64_MAX) {
		out.first_ns = due_after(generator->first_ns, interval, now_ns);
		out.last_ns = due_after(generator->last_ns, interval, now_ns);
	}
	s->pending.first_ns = s->pending.last_ns = INT64_MAX;
	wm_task_due(t, out.first_ns, out.last_ns);
}

/* The periodic tick, if it is due, attributed as the watermarks say
 * (wm_source_watermarking_tick_cause()): if it moves the subtask's
 * watermark, the partition at the minimum before it was the one holding
 * it. */
static void
tick_if_due(struct wm_task *t, int64_t now_ns)
{
	struct task_source *s = t->source;

	if (now_ns >= next_tick(s)) {
		t->cause = wm_source_watermarking_tick_cause(
			&s->watermarks, wm_task_holding_partition(t), t->cause);
		tick_due(t, now_ns);
	}
	/* Only a partition with a handle has a slot to follow. */
	if (wm_source_watermarking_poll(&s->watermarks, now_ns) &&
	    wm_source_watermarking_handles(&s->watermarks) > 0)
		for (uint32_t i = 0; i < s->n_parts; i++)
			watch_partition(t, i);
	t->cause = wm_source_watermarking_tick_cause(
		&s->watermarks, WM_PROGRESS_NO_CAUSE, t->cause);
}

/* The periodic schedule, moved over the ticks before `until_ns` that
 * cannot change anything (periodic.h). */
static void
skip_ticks(struct task_source *s, int64_t until_ns)
{
	wm_source_watermarking_skip(&s->watermarks, until_ns);
}

/* Whether the source replays the backlog of its restore on due times:
 * restored with checkpoint_watermarks, time-driven (one fed from outside,
 * Kafka, says "now" of what it holds: its backlog runs on the clock), and
 * without watermark alignment, whose pauses are decided on the clock,
 * anew after a restore. Until the first run, whether it will. */
static bool
backlog_mode(const struct task_source *s)
{
	if (s->started)
		return s->replaying;
	return s->ticks_restored && s->peers == NULL &&
	       s->src->ops->set_wake == NULL;
}

/* The backlog's next instant at `now_ns`: its next record's due time or
 * its next tick's, whichever is first, the ticks that change nothing
 * skipped; now_ns once the backlog is over (none before now_ns, or the
 * input ended in it: replay_due()). */
static int64_t
backlog_instant(struct wm_task *t, int64_t now_ns)
{
	struct task_source *s = t->source;
	int64_t due = wm_record_source_next_due_ns(s->src);
	int64_t at;

	if (!backlog_mode(s) || wm_record_source_finished(s->src))
		return now_ns;
	skip_ticks(s, due < now_ns ? due : now_ns);
	at = next_tick(s) < due ? next_tick(s) : due;
	return at < now_ns ? at : now_ns;
}

int64_t
wm_task_source_backlog_instant(struct wm_task *t, int64_t now_ns)
{
	if (t->source == NULL || t->finished)
		return now_ns;
	return backlog_instant(t, now_ns);
}

/*
 * The backlog of a restore with checkpoint_watermarks (doc/semantics.md
 * section 12.5): the records due before the restore come at once, and
 * the run without the crash read them on time, between the periodic ticks
 * that fell due meanwhile. So the backlog runs one instant of its due
 * times a call, as the run without the crash ran that instant: the records
 * due then, the partitions that finished then retired, then the tick if
 * one is due then (Flink's order at one instant). The idleness countdowns
 * of a partition whose last records before a silence are in the backlog
 * therefore run from when they were due, not from the restore, and every
 * watermark of the subtask moves through the backlog as it moved in the
 * run without the crash. The backlog is over at the first instant after
 * `now_ns`: from then on the clock rules. An input that ends in the
 * backlog ends at once (replaying stays set, so that wm_task_run_source()
 * runs no tick of the quiet stretch since: it could mark the input idle,
 * and an IDLE announced loses the final watermark, end_of_input()).
 *
 * One instant a call: a driver that runs several sources (--sim) can run
 * their backlogs in the order of their instants
 * (wm_task_source_backlog_instant()).
 */
static void
replay_due(struct wm_task *t, int64_t now_ns)
{
	struct task_source *s = t->source;
	int64_t at;

	if (wm_record_source_finished(s->src))
		return;
	at = backlog_instant(t, now_ns);
	if (at >= now_ns) {
		s->replaying = false;
		wm_task_source_pause_clock(t); /* back-pressure counts again */
		return;
	}
	if (wm_record_source_next_due_ns(s->src) <= at) {
		(void)emit_due(t, now_ns, at);
		retire_finished(t);
	}
	if (next_tick(s) <= at)
		tick_if_due(t, at);
}

/* The input ended: drain, the MAX watermark (lost if IDLE is announced,
 * as in released Flink), then END. */
static void
end_of_input(struct wm_task *t)
{
	struct task_source *s = t->source;
	struct wm_frame end = {.kind = WM_FRAME_END, .arg = WM_END_DRAIN};

	int64_t due = s->end_ns <= t->now_ns ? s->end_ns
					     : end_due(t, s->pending.first_ns);

	wm_task_due(t, due, due);
	wm_source_watermarking_end_of_input(&s->watermarks, t->now_ns);
	wm_task_send_all(t, &end);
	t->finished = true;
	/* A finished source reports MAX: it holds no one back. */
	if (s->peers != NULL)
		wm_task_source_align_update(t);
}

/* After a run at `now_ns`: when the next thing is due (a record, a tick,
 * the end of input or an alignment update). */
static int64_t
next_due(struct wm_task *t, int64_t now_ns)
{
	struct task_source *s = t->source;
	int64_t due = s->waiting.paused ? INT64_MAX
					: wm_record_source_next_due_ns(s->src);
	int64_t tick = next_tick(s);

	s->behind = due <= now_ns;
	if (tick < due)
		due = tick;
	if (s->end_ns < due)
		due = s->end_ns;
	return s->next_alignment_ns < due ? s->next_alignment_ns : due;
}

/* The source's own word on whether it can go on, unless the task found
 * it broken already. */
static void
read_health(struct wm_task *t)
{
	struct task_source *s = t->source;

	if (s->health.exit_code != 0 || s->src->ops->health == NULL)
		return;
	s->src->ops->health(s->src, &s->health);
	s->health.why[sizeof(s->health.why) - 1] = '\0';
}

const struct wm_source_health *
wm_task_source_health(const struct wm_task *t)
{
	return t->source != NULL ? &t->source->health : NULL;
}

bool
wm_task_source_set_wake(struct wm_task *t, void (*wake)(void *arg), void *arg)
{
	struct wm_record_source *src =
		t->source != NULL ? t->source->src : NULL;

	if (src == NULL || src->ops->set_wake == NULL)
		return false;
	src->ops->set_wake(src, wake, arg);
	return true;
}

int64_t
wm_task_run_source(struct wm_task *t, int64_t now_ns)
{
	struct task_source *s = t->source;

	if (t->finished || s->health.exit_code != 0)
		return INT64_MAX;
	t->now_ns = now_ns;
	if (!s->started) {
		/* A restored schedule (checkpoint_watermarks) goes on. */
		if (!s->ticks_restored)
			wm_source_watermarking_start(&s->watermarks, now_ns);
		s->next_alignment_ns =
			s->peers != NULL ? wm_task_source_align_after(t, now_ns)
					 : INT64_MAX;
		s->replaying = backlog_mode(s);
		/* A subtask restarted after a crash starts its schedule at
		 * its restart too. */
		for (uint32_t i = 0; i < s->n_parts; i++)
			s->part[i].last_ns = s->part[i].last_due_ns = now_ns;
		s->last_due_ns = now_ns;
		s->started = true;
	}
	if (now_ns >= s->next_alignment_ns) {
		wm_task_source_align_update(t);
		s->next_alignment_ns = wm_task_source_align_after(t, now_ns);
	}
	if (s->replaying)
		replay_due(t, now_ns);
	/* Over now (or never begun): the records due at now_ns, before the
	 * tick at now_ns. */
	if (!s->replaying)
		(void)emit_due(t, now_ns, now_ns);
	/* Sending may have blocked on a full ring (wm_task_backpressure()
	 * read the clock meanwhile): go on from the later time, so that no
	 * clock is ever read backwards. */
	if (t->now_ns > now_ns)
		now_ns = t->now_ns;
	/* Partitions discovered during the burst, records or not, join
	 * before the tick, as splits assigned meanwhile do in Flink. */
	if (s->health.exit_code == 0 && wm_task_source_adopt(t) != 0)
		source_broken(t);
	read_health(t);
	if (s->health.exit_code != 0)
		return INT64_MAX; /* the driver stops the job (task.h) */
	retire_finished(t);
	/* A backlog not replayed yet has ticks before now_ns still to run;
	 * an input that ended in it has none (replay_due()). */
	if (!s->replaying)
		tick_if_due(t, now_ns);
	/* Subtask-level alignment is checked after every batch too. */
	if (s->peers != NULL &&
	    wm_alignment_holds_back(
		    wm_source_watermarking_current(&s->watermarks),
		    s->max_allowed))
		wm_task_source_set_waiting(t, true);
	if (wm_record_source_finished(s->src) || now_ns >= s->end_ns) {
		end_of_input(t);
		return INT64_MAX;
	}
	return next_due(t, now_ns);
}

int64_t
wm_task_source_next_event(const struct wm_task *t, int64_t from_ns)
{
	const struct task_source *s = t->source;
	int64_t due, tick;

	if (t->finished)
		return INT64_MAX;
	if (!s->started)
		return from_ns;
	due = wm_task_source_input_due(t);
	tick = wm_source_watermarking_next_change(&s->watermarks);
	if (tick < due)
		due = tick;
	if (wm_task_source_align_can_change(t)) {
		int64_t update = wm_ns_schedule_at_or_after(
			s->next_alignment_ns,
			t->stage->u.source.alignment_update_interval_ms,
			from_ns);

		if (update < due)
			due = update;
	}
	return due;
}

void
wm_task_source_skip(struct wm_task *t, int64_t now_ns)
{
	struct task_source *s = t->source;

	if (t->finished || !s->started || s->behind)
		return;
	skip_ticks(s, now_ns);
	if (s->peers != NULL)
		s->next_alignment_ns = wm_ns_schedule_at_or_after(
			s->next_alignment_ns,
			t->stage->u.source.alignment_update_interval_ms,
			now_ns);
}

int64_t
wm_task_source_input_due(const struct wm_task *t)
{
	const struct task_source *s = t->source;
	int64_t due = s->waiting.paused ? INT64_MAX
					: wm_record_source_next_due_ns(s->src);

	return s->end_ns < due ? s->end_ns : due;
}

void
wm_task_backpressure(struct wm_task *t, bool blocked, int64_t now_ns)
{
	struct task_source *s = t->source;

	if (s == NULL || blocked == s->backpressured)
		return;
	t->now_ns = now_ns;
	s->backpressured = blocked;
	wm_task_source_pause_clock(t);
}

void
wm_task_bad_records(struct wm_task *t, uint64_t n)
{
	if (t->source != NULL)
		t->source->bad_records = n;
}

/* Flink's currentEmitEventTimeLag: the job's clock when the last record
 * went out less its timestamp; INT64_MIN before the first (or for one
 * whose difference does not fit). */
static int64_t
emit_lag_ms(const struct wm_task *t)
{
	const struct task_source *s = t->source;
	int64_t at, lag;

	if (s->last_emit_ts == WM_TS_MIN ||
	    __builtin_add_overflow(t->clock_zero_ms, s->last_emit_ns / 1000000,
				   &at) ||
	    __builtin_sub_overflow(at, s->last_emit_ts, &lag))
		return INT64_MIN;
	return lag;
}

/* How long a clock on processing time stood still, up to now_ns. */
static int64_t
time_stopped(const struct wm_pausable_clock *c, int64_t now_ns)
{
	return now_ns - wm_pausable_clock_read(c, now_ns);
}

/* The longest silence of partition i so far, the one still open too, and
 * its largest disorder. */
static void
publish_silence(const struct task_source *s, uint32_t i, int64_t now_ns,
		struct wm_partition_metrics *pm)
{
	const struct source_partition *p = &s->part[i];
	int64_t open_ms = s->started && now_ns > p->last_ns
				  ? (now_ns - p->last_ns) / 1000000
				  : 0;

	WM_METRIC_SET(pm->gap_max_ms,
		      open_ms > p->gap_max_ms ? open_ms : p->gap_max_ms);
	WM_METRIC_SET(pm->disorder_max_ms, p->disorder_max_ms);
}

void
wm_task_publish_source(const struct wm_task *t, int64_t now_ns)
{
	const struct task_source *s = t->source;
	struct wm_subtask_metrics *m = t->metrics;
	int64_t reading_ns = wm_task_reading_ns(t, now_ns);

	WM_METRIC_SET(m->bad_records_skipped, s->bad_records);
	WM_METRIC_SET(m->heartbeats, s->heartbeats);
	WM_METRIC_SET(m->emit_lag_ms, emit_lag_ms(t));
	WM_METRIC_SET(m->n_partitions, s->n_parts);
	WM_METRIC_SET(m->next_record_due_ns,
		      t->finished || s->waiting.paused
			      ? INT64_MAX
			      : wm_record_source_next_due_ns(s->src));
	for (uint32_t i = 0; i < s->n_parts; i++) {
		struct wm_partition_metrics *pm = &t->partition_metrics[i];

		WM_METRIC_SET(pm->partition, s->parts[i]);
		WM_METRIC_SET(pm->records, s->part[i].records);
		WM_METRIC_SET(pm->alignment_paused_ns,
			      time_stopped(&s->part[i].held, now_ns));
		WM_METRIC_SET(pm->next_due_ns,
			      t->finished
				      ? INT64_MAX
				      : wm_record_source_partition_next_due_ns(
						s->src, i));
		wm_progress_publish(&s->part[i].progress, reading_ns,
				    &pm->progress);
		publish_silence(s, i, reading_ns, pm);
	}
	WM_METRIC_SET(m->source_outages, s->health.outages);
	WM_METRIC_SET(m->source_outage_ns, s->health.outage_ns);
	WM_METRIC_SET(m->source_unreachable, s->health.unreachable);
	if (s->health.exit_code != 0 &&
	    WM_METRIC_GET(m->source_exit_code) == 0) {
		memcpy(m->source_why, s->health.why, sizeof(m->source_why));
		/* H1: release, pairs with H2 (metrics.h). */
		atomic_store_explicit(&m->source_exit_code,
				      (uint32_t)s->health.exit_code,
				      memory_order_release);
	}
	if (s->peers != NULL) {
		WM_METRIC_SET(m->alignment_max_allowed, s->max_allowed);
		WM_METRIC_SET(m->alignment_waiting_ns,
			      time_stopped(&s->waiting, now_ns));
	}
}

/* A source's records are accounted for by partition. */
void
wm_task_check_source(const struct wm_task *t)
{
	const struct task_source *s = t->source;
	uint64_t by_partition = 0;

	for (uint32_t i = 0; i < s->n_parts; i++)
		by_partition += s->part[i].records;
	WM_ASSERT(by_partition == t->counters.records_in);
}
