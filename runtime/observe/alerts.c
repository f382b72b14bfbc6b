/*
 * alerts.c
 *	The alert state machine: one episode slot per thing watched, judged
 *	at every snapshot (alerts.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/units.h"
#include "runtime/observe/alerts.h"

/* One thing watched: a partition slot of a source subtask as idle or as
 * stalled, a subtask's output as idle or as stalled, or a source stage's
 * partitions idle at once. */
struct episode {
	bool open;
	uint32_t kind;	    /* enum wm_alert_kind */
	uint32_t next_tier; /* index into the rule: the next to raise */
	int64_t since_ns;   /* of the open episode */
};

struct wm_alerts {
	const struct wm_topology *topo;
	const struct wm_plan *plan;
	/* By subtask id: its first slot in `episodes`: one per partition
	 * slot as idle, one per partition slot as stalled, then its output
	 * as idle and as stalled. */
	uint32_t *first;
	struct episode *episodes;
	uint32_t n_episodes;
	/* By stage: its partitions idle at once (sources only), and room
	 * for the moments its idle partitions went idle. */
	struct episode *stage_episodes;
	int64_t *idle_since;
	uint32_t n_kept;
	uint64_t raised;
	struct wm_alert kept[WM_ALERTS_KEPT];
};

struct wm_alerts *
wm_alerts_new(const struct wm_topology *topo, const struct wm_plan *plan)
{
	struct wm_alerts *a = calloc(1, sizeof(*a));
	uint32_t n = 0;

	if (a == NULL)
		goto fail;
	a->topo = topo;
	a->plan = plan;
	a->first = calloc(plan->n_subtasks ? plan->n_subtasks : 1,
			  sizeof(*a->first));
	if (a->first == NULL)
		goto fail;
	for (uint32_t id = 0; id < plan->n_subtasks; id++) {
		a->first[id] = n;
		n += 2 * plan->subtasks[id].n_partitions + 2;
	}
	a->n_episodes = n;
	a->episodes = calloc(n ? n : 1, sizeof(*a->episodes));
	a->stage_episodes = calloc(topo->n_stages ? topo->n_stages : 1,
				   sizeof(*a->stage_episodes));
	/* A source's partition slots, all of its subtasks: at most the
	 * plan's. */
	a->idle_since = calloc(n ? n : 1, sizeof(*a->idle_since));
	if (a->episodes == NULL || a->stage_episodes == NULL ||
	    a->idle_since == NULL)
		goto fail;
	for (uint32_t id = 0; id < plan->n_subtasks; id++) {
		struct episode *e = &a->episodes[a->first[id]];
		uint32_t np = plan->subtasks[id].n_partitions;

		for (uint32_t i = 0; i < np; i++) {
			e[i].kind = WM_ALERT_PARTITION_IDLE;
			e[np + i].kind = WM_ALERT_PARTITION_STALLED;
		}
		e[2 * np].kind = WM_ALERT_SUBTASK_IDLE;
		e[2 * np + 1].kind = WM_ALERT_WATERMARK_STALLED;
	}
	for (uint32_t s = 0; s < topo->n_stages; s++)
		a->stage_episodes[s].kind = WM_ALERT_IDLE_PARTITIONS;
	return a;
fail:
	wm_alerts_free(a);
	errno = ENOMEM;
	return NULL;
}

void
wm_alerts_free(struct wm_alerts *a)
{
	if (a == NULL)
		return;
	free(a->first);
	free(a->episodes);
	free(a->stage_episodes);
	free(a->idle_since);
	free(a);
}

/* The episode of `e` (subject id, partition) ended at `now_ns`: so say
 * the alerts it raised. They are the latest of their subject, so the
 * search stops at the first alert of that subject raised before. */
static void
end_episode(struct wm_alerts *a, const struct episode *e, uint32_t id,
	    uint32_t partition, int64_t now_ns)
{
	for (uint32_t i = a->n_kept; i-- > 0;) {
		struct wm_alert *al = &a->kept[i];

		if (al->kind != e->kind || al->subtask != id ||
		    al->partition != partition)
			continue;
		if (al->since_ns != e->since_ns)
			break;
		al->ended_ns = now_ns;
	}
}

static struct wm_alert *
raise_alert(struct wm_alerts *a, const struct episode *e, uint32_t tier,
	    uint32_t id, uint32_t partition, const struct wm_snapshot *snap)
{
	a->raised++;
	if (a->n_kept == WM_ALERTS_KEPT)
		return NULL;
	a->kept[a->n_kept] = (struct wm_alert){
		.at_ns = snap->processing_ns,
		.real_ns = snap->real_ns,
		.since_ns = e->since_ns,
		.ended_ns = WM_ALERT_OPEN,
		.kind = e->kind,
		.tier = tier,
		.subtask = id,
		.stage = a->plan->subtasks[id].stage,
		.index = a->plan->subtasks[id].index,
		.partition = partition,
	};
	return &a->kept[a->n_kept++];
}

/* Episode slot `e` at `snap`: the condition holds (since `since_ns`) or
 * not. */
static void
judge(struct wm_alerts *a, struct episode *e, bool holds, int64_t since_ns,
      uint32_t id, uint32_t partition, const struct wm_snapshot *snap)
{
	const struct wm_alert_rule *rule = &a->topo->job.alerts[e->kind];

	if (e->open && (!holds || since_ns != e->since_ns)) {
		end_episode(a, e, id, partition, snap->processing_ns);
		e->open = false;
	}
	if (!holds || rule->n_tiers == 0)
		return;
	if (!e->open) {
		e->open = true;
		e->since_ns = since_ns;
		e->next_tier = 0;
	}
	/* Held for at least the tier's duration: at it, not only past. */
	while (e->next_tier < rule->n_tiers &&
	       snap->processing_ns - e->since_ns >=
		       rule->after_ms[e->next_tier] * 1000000) {
		raise_alert(a, e, rule->tier[e->next_tier], id, partition,
			    snap);
		e->next_tier++;
	}
}

/* Whether subtask `id` fires windows or pairs records: its watermark is
 * the job's. */
static bool
is_window(const struct wm_alerts *a, uint32_t id)
{
	return wm_stage_keyed(
		a->topo->stages[a->plan->subtasks[id].stage].kind);
}

static int
earlier(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * Source stage st's partitions IDLE at once, against the tiers' counts.
 * The episode is a stretch of at least the first tier's count: it begins
 * when that many of the partitions idle now had all gone idle (the
 * count-th earliest of their moments, exact whatever the sampling), and
 * each tier is raised at the first snapshot with its count idle. It ends
 * at the first snapshot with fewer.
 */
static void
judge_idle_partitions(struct wm_alerts *a, uint32_t st,
		      const struct wm_snapshot *snap)
{
	const struct wm_alert_rule *rule =
		&a->topo->job.alerts[WM_ALERT_IDLE_PARTITIONS];
	struct episode *e = &a->stage_episodes[st];
	uint32_t first = a->plan->first[st], idle = 0;

	for (uint32_t id = first;
	     id < snap->n_subtasks && a->plan->subtasks[id].stage == st; id++) {
		const struct wm_snap_subtask *s = &snap->subtasks[id];

		for (uint32_t i = 0; i < s->n_partitions && !s->finished; i++)
			if (s->partitions[i].idle)
				a->idle_since[idle++] =
					s->partitions[i].since_ns;
	}
	if (idle < rule->at_least[0]) {
		if (e->open)
			end_episode(a, e, first, UINT32_MAX,
				    snap->processing_ns);
		e->open = false;
		return;
	}
	qsort(a->idle_since, idle, sizeof(*a->idle_since), earlier);
	if (!e->open) {
		e->open = true;
		e->since_ns = a->idle_since[rule->at_least[0] - 1];
		e->next_tier = 0;
	}
	while (e->next_tier < rule->n_tiers &&
	       idle >= rule->at_least[e->next_tier]) {
		struct wm_alert *al =
			raise_alert(a, e, rule->tier[e->next_tier], first,
				    UINT32_MAX, snap);

		if (al != NULL)
			al->count = idle;
		e->next_tier++;
	}
}

uint32_t
wm_alerts_feed(struct wm_alerts *a, const struct wm_snapshot *snap)
{
	uint64_t before = a->raised;

	for (uint32_t id = 0; id < a->plan->n_subtasks && id < snap->n_subtasks;
	     id++) {
		const struct wm_snap_subtask *s = &snap->subtasks[id];
		struct episode *e = &a->episodes[a->first[id]];
		uint32_t np = a->plan->subtasks[id].n_partitions;

		/* A slot its subtask has not published yet is neither
		 * idle nor stalled. */
		for (uint32_t i = 0; i < np; i++) {
			const struct wm_snap_partition *p =
				i < s->n_partitions ? &s->partitions[i] : NULL;
			bool on = p != NULL && !s->finished;

			judge(a, &e[i], on && p->idle,
			      p != NULL ? p->since_ns : 0, id,
			      p != NULL ? p->partition : UINT32_MAX, snap);
			judge(a, &e[np + i],
			      on && !p->idle && p->watermark != WM_TS_MAX,
			      p != NULL ? p->since_ns : 0, id,
			      p != NULL ? p->partition : UINT32_MAX, snap);
		}
		judge(a, &e[2 * np], s->idle && !s->finished, s->since_ns, id,
		      UINT32_MAX, snap);
		judge(a, &e[2 * np + 1],
		      is_window(a, id) && !s->idle && !s->finished &&
			      s->watermark != WM_TS_MAX,
		      s->since_ns, id, UINT32_MAX, snap);
	}
	if (a->topo->job.alerts[WM_ALERT_IDLE_PARTITIONS].n_tiers > 0)
		for (uint32_t st = 0; st < a->topo->n_stages; st++)
			if (a->topo->stages[st].kind == WM_STAGE_SOURCE)
				judge_idle_partitions(a, st, snap);
	return (uint32_t)(a->raised - before);
}

const struct wm_alert *
wm_alerts_list(const struct wm_alerts *a, uint32_t *n)
{
	*n = a->n_kept;
	return a->kept;
}

uint64_t
wm_alerts_raised(const struct wm_alerts *a)
{
	return a->raised;
}

int64_t
wm_alerts_next_due(const struct wm_alerts *a)
{
	int64_t due = INT64_MAX;

	for (uint32_t i = 0; i < a->n_episodes; i++) {
		const struct episode *e = &a->episodes[i];
		const struct wm_alert_rule *rule =
			&a->topo->job.alerts[e->kind];

		if (e->open && e->next_tier < rule->n_tiers &&
		    e->since_ns + rule->after_ms[e->next_tier] * 1000000 < due)
			due = e->since_ns +
			      rule->after_ms[e->next_tier] * 1000000;
	}
	return due;
}

const char *
wm_alert_subject(const struct wm_alert *al, const struct wm_topology *topo,
		 char *buf, size_t len)
{
	const char *stage = topo->stages[al->stage].name;

	if (al->kind == WM_ALERT_PARTITION_IDLE ||
	    al->kind == WM_ALERT_PARTITION_STALLED)
		snprintf(buf, len, "%s-%u", stage, al->partition);
	else if (al->kind == WM_ALERT_IDLE_PARTITIONS)
		snprintf(buf, len, "%s", stage);
	else
		snprintf(buf, len, "%s/%u", stage, al->index);
	return buf;
}

bool
wm_alert_valid(const struct wm_alert *al, const struct wm_topology *topo,
	       const struct wm_plan *plan)
{
	return al->kind < WM_ALERT_KINDS && al->tier < WM_ALERT_TIERS &&
	       al->subtask < plan->n_subtasks &&
	       al->stage == plan->subtasks[al->subtask].stage &&
	       al->index == plan->subtasks[al->subtask].index &&
	       al->stage < topo->n_stages;
}

const char *
wm_alert_format(const struct wm_alert *al, const struct wm_topology *topo,
		char *buf, size_t len)
{
	char subject[300], held[64];
	int64_t held_ns = al->at_ns - al->since_ns;
	const char *tier = wm_alert_tier_name(al->tier);

	wm_alert_subject(al, topo, subject, sizeof(subject));
	/* A worker's clock may run a little ahead of the observer's. */
	wm_units_format_duration(held_ns > 0 ? held_ns : 0, held, sizeof(held));
	if (al->kind == WM_ALERT_WATERMARK_STALLED)
		snprintf(buf, len, "%s: watermark of %s has not moved for %s",
			 tier, subject, held);
	else if (al->kind == WM_ALERT_PARTITION_STALLED)
		snprintf(buf, len,
			 "%s: watermark of partition %s has not moved for %s, "
			 "and it is not idle",
			 tier, subject, held);
	else if (al->kind == WM_ALERT_IDLE_PARTITIONS)
		snprintf(buf, len, "%s: %u partitions of %s idle at once", tier,
			 al->count, subject);
	else
		snprintf(buf, len, "%s: %s %s idle for %s", tier,
			 al->kind == WM_ALERT_PARTITION_IDLE ? "partition"
							     : "subtask",
			 subject, held);
	return buf;
}
