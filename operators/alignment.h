/*
 * alignment.h
 *	Source watermark alignment (Flink FLIP-182 per subtask, FLIP-217 per
 *	split; doc/semantics.md section 3.7): the rules, without the
 *	transport that carries reports and announcements.
 *
 * Every update interval each source subtask of an alignment group reports
 * a watermark, and the group's coordinator announces
 *
 *	maxAllowed = min(reports of the group) + maxAllowedDrift
 *
 * (saturating at MAX) to every subtask that has reported. A subtask whose
 * last emitted watermark is above maxAllowed stops reading (subtask
 * level); a partition whose own watermark is above it is paused (split
 * level) and resumed by a later maxAllowed at or above its watermark.
 * Alignment never changes a watermark; it only holds back reading, which
 * holds back the watermarks of the partitions that run ahead.
 *
 * Until its first announcement a subtask is bound by nothing (Flink's
 * currentMaxDesiredWatermark starts at Long.MAX_VALUE).
 */
#ifndef WM_OPERATORS_ALIGNMENT_H
#define WM_OPERATORS_ALIGNMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "operators/output.h"

/*
 * What a subtask reports, from its last emitted watermark (MIN before the
 * first), whether it announced IDLE, and whether its input ended: MAX
 * when finished or idle (an idle subtask must not hold the group), else
 * `latest`. False (nothing is reported) while `latest` is still MIN and
 * the subtask runs (FLINK-32414).
 */
bool wm_alignment_report(wm_ts_t latest, bool idle, bool finished,
			 wm_ts_t *report);

/* maxAllowed from the minimum of the group's reports: min + drift, MAX on
 * overflow (drift_ms >= 0). */
wm_ts_t wm_alignment_max_allowed(wm_ts_t group_min, int64_t drift_ms);

/* A subtask or a partition with watermark `w` must not read. */
static inline bool
wm_alignment_holds_back(wm_ts_t w, wm_ts_t max_allowed)
{
	return w > max_allowed;
}

#endif /* WM_OPERATORS_ALIGNMENT_H */
