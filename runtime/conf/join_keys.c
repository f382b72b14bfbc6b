/*
 * join_keys.c
 *	The keys of a [join NAME] section but its inputs (`left` and
 *	`right`, which topology.c resolves with every stage's inputs): an
 *	interval join's bounds, or a window join's windows.
 *
 *   between = LOWER, UPPER      an interval join (operators/
 *                               interval_join.h): a right record pairs
 *                               with a left one at l when l + LOWER <=
 *                               r <= l + UPPER; durations, either may
 *                               be negative ("-5 s, 10 s")
 *   lower_bound_exclusive,      Flink's lowerBoundExclusive() and
 *   upper_bound_exclusive       upperBoundExclusive() (false)
 *   left_late, right_late       a file for each side's late records
 *                               (sideOutputLeftLateData(),
 *                               sideOutputRightLateData()); without one
 *                               a side's are counted as dropped
 * or
 *   window = tumbling | sliding | session
 *                               a window join (operators/window_join.h):
 *                               JoinedStreams' windows, with size, slide,
 *                               gap, offset and allowed_lateness as a
 *                               [window]'s
 *
 *   value = left | right | sum  a pair as a record, for the stages that
 *                               read the join: its key, its timestamp
 *                               and this value (left)
 *
 * A window join's late records are counted as dropped, per side: Flink's
 * JoinedStreams has no late side output.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/units.h"
#include "runtime/conf/loader.h"

/* One bound of `between`, the `len` bytes at e->value + off, into *ms.
 * 0 or the error at its column. */
static int
load_bound(struct loader *l, const struct wm_ini_entry *e, size_t off,
	   size_t len, int64_t *ms)
{
	char text[64], why[WM_UNITS_WHY_MAX];
	bool negative;

	while (len > 0 && e->value[off] == ' ')
		off++, len--;
	while (len > 0 && e->value[off + len - 1] == ' ')
		len--;
	if (len == 0)
		return wm_conf_bad_value_at(
			l, e, off,
			"expected two durations, LOWER, UPPER (as \"-5 s, "
			"10 s\")");
	if (len >= sizeof(text))
		return wm_conf_bad_value_at(l, e, off, "too long");
	memcpy(text, e->value + off, len);
	text[len] = '\0';
	negative = text[0] == '-';
	if (wm_units_duration_ms(text + negative, ms, why, sizeof(why)) != 0)
		return wm_conf_bad_value_at(l, e, off, why);
	if (negative)
		*ms = -*ms;
	return 0;
}

/* `between` into the operator's bounds: 0 or the error at the key. */
static int
load_between(struct loader *l, struct wm_ini_section *sec,
	     struct wm_interval_join_config *op)
{
	struct wm_ini_entry *e = wm_conf_lookup(l, sec, "between");
	const char *comma;
	size_t at;
	char why[200];
	int r;

	comma = strchr(e->value, ',');
	if (comma == NULL || strchr(comma + 1, ',') != NULL)
		return wm_conf_bad_value(
			l, e,
			"expected two durations, LOWER, UPPER (as \"-5 s, "
			"10 s\")");
	at = (size_t)(comma - e->value);
	if ((r = load_bound(l, e, 0, at, &op->lower)) != 0 ||
	    (r = load_bound(l, e, at + 1, e->value_len - at - 1, &op->upper)) !=
		    0)
		return r;
	if (op->lower > op->upper) {
		snprintf(why, sizeof(why),
			 "the lower bound (%lld ms) is above the upper bound "
			 "(%lld ms): Flink refuses it",
			 (long long)op->lower, (long long)op->upper);
		return wm_conf_bad_value(l, e, why);
	}
	return 0;
}

/* `window` and the window keys into j->window: 0 or the error. */
static int
load_window_join(struct loader *l, struct wm_ini_section *sec,
		 struct wm_join_stage_conf *j)
{
	int r;

	j->windowed = true;
	if ((r = wm_conf_load_assigner(l, sec, "window",
				       &j->window.assigner)) != 0)
		return r;
	return wm_conf_get_duration(l, sec, "allowed_lateness", false,
				    &j->window.allowed_lateness);
}

int
wm_conf_load_join(struct loader *l, struct wm_ini_section *sec,
		  struct wm_stage *st)
{
	static const char *const values[] = {"left", "right", "sum"};
	struct wm_join_stage_conf *j = &st->u.join;
	size_t value = WM_JOIN_VALUE_LEFT;
	struct wm_ini_entry *between = wm_ini_get(sec, "between");
	struct wm_ini_entry *window = wm_ini_get(sec, "window");
	char label[WM_INI_QUOTE_MAX];
	int r;

	if ((r = wm_conf_get_enum(l, sec, "value", values, 3, &value)) != 0)
		return r;
	j->value = (enum wm_join_value)value;
	if (between != NULL && window != NULL) {
		const struct wm_ini_entry *second =
			between->line > window->line ? between : window;

		return wm_conf_bad_value(l, second,
					 "a join pairs by an interval "
					 "(between) or by windows (window), "
					 "not both");
	}
	if (between == NULL && window == NULL) {
		wm_ini_error_set(
			l->err, l->file, sec->line, sec->col,
			"%s needs between = LOWER, UPPER (an interval "
			"join) or window = tumbling | sliding | "
			"session (a window join)",
			wm_ini_section_label(label, sizeof(label), sec));
		return -EINVAL;
	}
	if (window != NULL)
		return load_window_join(l, sec, j);
	if ((r = load_between(l, sec, &j->op)) != 0 ||
	    (r = wm_conf_get_bool(l, sec, "lower_bound_exclusive",
				  &j->op.lower_exclusive)) != 0)
		return r;
	if ((r = wm_conf_get_bool(l, sec, "upper_bound_exclusive",
				  &j->op.upper_exclusive)) != 0 ||
	    (r = wm_conf_get_string(l, sec, "left_late",
				    &j->late_output[WM_JOIN_LEFT])) != 0 ||
	    (r = wm_conf_get_string(l, sec, "right_late",
				    &j->late_output[WM_JOIN_RIGHT])) != 0)
		return r;
	j->op.late_output[WM_JOIN_LEFT] = j->late_output[WM_JOIN_LEFT] != NULL;
	j->op.late_output[WM_JOIN_RIGHT] =
		j->late_output[WM_JOIN_RIGHT] != NULL;
	return 0;
}
