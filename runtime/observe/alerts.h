/*
 * alerts.h
 *	Tiered alerts from a job's snapshots: the first snapshot at which a
 *	condition has held for a tier's duration of processing time raises
 *	that tier, once per episode.
 *
 * What is watched ([job] alert_*, topology.h), every condition on the
 * states the subtasks publish (progress.h):
 *   partition_idle     a source partition is IDLE (withIdleness marked it)
 *   partition_stalled  a source partition is ACTIVE and its watermark has
 *                      not advanced: silence (or records all behind its
 *                      watermark) that no idle timeout marks IDLE, which
 *                      holds every window downstream
 *   idle_partitions    at least a tier's count of one source's partitions
 *                      are IDLE at once (tiers by count, not duration)
 *   subtask_idle       a subtask's output is IDLE
 *   watermark_stalled  the job's watermark, i.e. the output watermark of
 *                      each window subtask (what fires the results), is
 *                      ACTIVE and has not advanced; a finished subtask or
 *                      one at the end of time is not stalled, and an IDLE
 *                      one is idle, not stalled (progress.h)
 *
 * An episode is one stretch of a condition: it begins at the moment the
 * subtask measured (since_ns), not at the snapshot that first saw it, so
 * a duration is exact however coarse the sampling. Tier i is raised at
 * the first snapshot whose processing time is at least since + after_ms[i]
 * (a snapshot that comes late raises every tier it passed, in order). The
 * episode ends at the first snapshot that finds the condition over, or
 * begun anew (another since_ns: it ended and began again between two
 * snapshots); its end is recorded on the alerts it raised, and no line
 * says so: an alert is news, the end of one is in the summary. A count
 * kind's episode is a stretch of at least its first tier's count; each
 * tier is raised at the first snapshot that counts as many.
 *
 * Pure: no clock, no I/O; one thread feeds a machine, in snapshot order.
 * The list keeps the first WM_ALERTS_KEPT alerts; later ones are counted
 * (wm_alerts_raised()), never dropped silently.
 */
#ifndef WM_RUNTIME_OBSERVE_ALERTS_H
#define WM_RUNTIME_OBSERVE_ALERTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/conf/topology.h"
#include "runtime/observe/snapshot.h"
#include "runtime/plan/plan.h"

#define WM_ALERTS_KEPT 256u

/* The end of an episode still going on. */
#define WM_ALERT_OPEN INT64_MAX

struct wm_alert {
	int64_t at_ns;	  /* processing time of the snapshot that raised it */
	int64_t real_ns;  /* that snapshot's real time */
	int64_t since_ns; /* when the episode began */
	int64_t ended_ns; /* when a snapshot found it over; WM_ALERT_OPEN */
	uint32_t kind;	  /* enum wm_alert_kind */
	uint32_t tier;	  /* enum wm_alert_tier */
	uint32_t subtask; /* plan id */
	uint32_t stage, index; /* of that subtask, for its name */
	uint32_t partition;    /* partition id (partition_*); UINT32_MAX */
	uint32_t count;	       /* idle_partitions: how many, when raised */
};

struct wm_alerts;

/* A machine for the rules of topo's [job] over the subtasks of `plan`
 * (both must outlive it). NULL, errno ENOMEM. */
struct wm_alerts *wm_alerts_new(const struct wm_topology *topo,
				const struct wm_plan *plan);
void wm_alerts_free(struct wm_alerts *a);

/* Judge `snap`, the next snapshot of the job (processing time never goes
 * back). Returns how many alerts it raised: the last ones of the list,
 * those past WM_ALERTS_KEPT only counted. */
uint32_t wm_alerts_feed(struct wm_alerts *a, const struct wm_snapshot *snap);

/* The alerts raised and kept, in the order raised; *n of them. */
const struct wm_alert *wm_alerts_list(const struct wm_alerts *a, uint32_t *n);

/* Every alert raised, kept or not. */
uint64_t wm_alerts_raised(const struct wm_alerts *a);

/* The earliest processing time at which an episode going on reaches its
 * next tier if nothing changes; INT64_MAX if none will. A driver on
 * simulated time takes a snapshot then, so that tiers fire exactly. */
int64_t wm_alerts_next_due(const struct wm_alerts *a);

/* What `al` says, for people: "notice: partition events-13 idle for 5 min
 * 0 s" (how long it had held when raised). Returns buf. */
const char *wm_alert_format(const struct wm_alert *al,
			    const struct wm_topology *topo, char *buf,
			    size_t len);

/* The alert's subject as the summary names it: "events-13" (a partition,
 * as Kafka names them) or "counts/1" (a subtask). Returns buf. */
const char *wm_alert_subject(const struct wm_alert *al,
			     const struct wm_topology *topo, char *buf,
			     size_t len);

/* Whether `al`, written by another process, names what `topo` and
 * `plan` have: a kind, a tier, a subtask and its stage and index. */
bool wm_alert_valid(const struct wm_alert *al, const struct wm_topology *topo,
		    const struct wm_plan *plan);

#endif /* WM_RUNTIME_OBSERVE_ALERTS_H */
