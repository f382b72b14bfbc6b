/*
 * alert_rules.c
 *	The alert keys of [job]: one list of tiers per thing an alert
 *	watches (topology.h, enum wm_alert_kind), e.g.
 *
 *	    alert_partition_idle = notice 5 min, severe 30 min
 *	    alert_watermark_stalled = critical 1 h
 *	    alert_idle_partitions = warning 3, severe 8
 *
 * An item is a tier's name and a positive duration of processing time
 * (units.h), or for a kind counted (idle_partitions) a positive count,
 * items separated by commas. Tiers rise: each item names a more severe
 * tier than the one before, and a longer duration or a larger count, so
 * that an episode raises its tiers in the order of the list and a tier
 * never says less than one raised before it. Errors point at the item's
 * column.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "runtime/conf/loader.h"
#include "lib/units.h"

static const char *const tier_names[WM_ALERT_TIERS] = {
	[WM_ALERT_NOTICE] = "notice",
	[WM_ALERT_WARNING] = "warning",
	[WM_ALERT_SEVERE] = "severe",
	[WM_ALERT_CRITICAL] = "critical",
};

static const char *const kind_names[WM_ALERT_KINDS] = {
	[WM_ALERT_PARTITION_IDLE] = "partition_idle",
	[WM_ALERT_SUBTASK_IDLE] = "subtask_idle",
	[WM_ALERT_WATERMARK_STALLED] = "watermark_stalled",
	[WM_ALERT_PARTITION_STALLED] = "partition_stalled",
	[WM_ALERT_IDLE_PARTITIONS] = "idle_partitions",
};

bool
wm_alert_kind_counts(enum wm_alert_kind kind)
{
	return kind == WM_ALERT_IDLE_PARTITIONS;
}

const char *
wm_alert_tier_name(enum wm_alert_tier tier)
{
	return tier_names[tier];
}

const char *
wm_alert_kind_name(enum wm_alert_kind kind)
{
	return kind_names[kind];
}

bool
wm_alerts_configured(const struct wm_job_conf *job)
{
	for (int k = 0; k < WM_ALERT_KINDS; k++)
		if (job->alerts[k].n_tiers > 0)
			return true;
	return false;
}

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Tier i's threshold, bytes [w, end) of e's value: a duration into
 * after_ms[i], or for a kind counted a count into at_least[i]. */
static int
load_threshold(struct loader *l, const struct wm_ini_entry *e, size_t w,
	       size_t end, bool counts, struct wm_alert_rule *rule, size_t i)
{
	char text[128], why[WM_UNITS_WHY_MAX + 64];
	const char *bad;
	int64_t n;

	if (end - w >= sizeof(text))
		return wm_conf_bad_value_at(l, e, w,
					    counts ? "count too long"
						   : "duration too long");
	snprintf(text, sizeof(text), "%.*s", (int)(end - w), e->value + w);
	if (!counts) {
		if (wm_units_duration_ms(text, &rule->after_ms[i], why,
					 sizeof(why)) != 0)
			return wm_conf_bad_value_at(l, e, w, why);
		return rule->after_ms[i] > 0
			       ? 0
			       : wm_conf_bad_value_at(l, e, w,
						      "an alert's duration "
						      "must be positive");
	}
	if ((bad = wm_units_int64(text, strlen(text), &n)) != NULL) {
		snprintf(why, sizeof(why), "invalid count \"%s\"%s", text, bad);
		return wm_conf_bad_value_at(l, e, w, why);
	}
	if (n <= 0 || n > UINT32_MAX)
		return wm_conf_bad_value_at(l, e, w,
					    "an alert's count must be a "
					    "positive number of partitions");
	rule->at_least[i] = (uint32_t)n;
	return 0;
}

/* One item, bytes [start, end) of e's value, into tier i of *rule, a
 * rule of `kind`. */
static int
load_tier(struct loader *l, const struct wm_ini_entry *e, size_t start,
	  size_t end, enum wm_alert_kind kind, struct wm_alert_rule *rule)
{
	bool counts = wm_alert_kind_counts(kind);
	const char *v = e->value;
	char word[16], why[WM_UNITS_WHY_MAX + 64];
	size_t w = start, i = rule->n_tiers;
	size_t tier;
	int r;

	while (w < end && !is_blank(v[w]))
		w++;
	if (w == start)
		return wm_conf_bad_value_at(
			l, e, start,
			counts ? "empty alert tier (write \"TIER COUNT\", "
				 "e.g. \"warning 3\")"
			       : "empty alert tier (write \"TIER DURATION\", "
				 "e.g. \"notice 5 min\")");
	/* Longer than any tier's name: the message quotes it cut. */
	snprintf(word, sizeof(word), "%.*s", (int)(w - start), v + start);
	if (wm_units_enum(word, "alert tier", tier_names, WM_ALERT_TIERS, &tier,
			  why, sizeof(why)) != 0)
		return wm_conf_bad_value_at(l, e, start, why);
	while (w < end && is_blank(v[w]))
		w++;
	if (w == end) {
		snprintf(why, sizeof(why),
			 counts ? "alert tier \"%s\" needs a count of "
				  "partitions, e.g. \"%s 3\""
				: "alert tier \"%s\" needs a duration, e.g. "
				  "\"%s 5 min\"",
			 word, word);
		return wm_conf_bad_value_at(l, e, start, why);
	}
	if ((r = load_threshold(l, e, w, end, counts, rule, i)) != 0)
		return r;
	rule->tier[i] = (enum wm_alert_tier)tier;
	if (i > 0 && (rule->tier[i] <= rule->tier[i - 1] ||
		      (counts ? rule->at_least[i] <= rule->at_least[i - 1]
			      : rule->after_ms[i] <= rule->after_ms[i - 1]))) {
		snprintf(why, sizeof(why),
			 "alert tier \"%s\" comes after \"%s\": list tiers "
			 "in rising severity and %s",
			 word, tier_names[rule->tier[i - 1]],
			 counts ? "count" : "duration");
		return wm_conf_bad_value_at(l, e, start, why);
	}
	rule->n_tiers++;
	return 0;
}

/* The list of e's value into *rule. */
static int
load_rule(struct loader *l, const struct wm_ini_entry *e,
	  enum wm_alert_kind kind, struct wm_alert_rule *rule)
{
	size_t pos = 0, len = e->value_len;

	*rule = (struct wm_alert_rule){0};
	for (;;) {
		size_t start, end;
		int r;

		while (pos < len && is_blank(e->value[pos]))
			pos++;
		start = pos;
		while (pos < len && e->value[pos] != ',')
			pos++;
		end = pos;
		while (end > start && is_blank(e->value[end - 1]))
			end--;
		if (rule->n_tiers == WM_ALERT_TIERS)
			return wm_conf_bad_value_at(
				l, e, start,
				"more tiers than there are (notice, "
				"warning, severe, critical)");
		if ((r = load_tier(l, e, start, end, kind, rule)) != 0)
			return r;
		if (pos == len)
			return 0;
		pos++; /* the comma */
	}
}

int
wm_conf_load_alerts(struct loader *l, struct wm_ini_section *sec,
		    struct wm_job_conf *job)
{
	for (int k = 0; k < WM_ALERT_KINDS; k++) {
		char key[64];
		struct wm_ini_entry *e;
		int r;

		snprintf(key, sizeof(key), "alert_%s", kind_names[k]);
		e = wm_conf_lookup(l, sec, key);
		if (e != NULL && (r = load_rule(l, e, (enum wm_alert_kind)k,
						&job->alerts[k])) != 0)
			return r;
	}
	return 0;
}
