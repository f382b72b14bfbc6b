/*
 * topology.c
 *	topology.conf -> struct wm_topology: the sections read stage by stage
 *	(job, sources, keyBys, windows, sinks), inputs resolved into edges,
 *	then the whole checked (checks.c) before anything runs. Which keys
 *	a section takes is key_table.c's, reading their values schema.c's,
 *	the load shapes shapes.c's, the queries on a loaded topology
 *	graph.c's.
 *
 * Values are looked up in the stage's section first, then in [global]
 * (for stage keys). Every lookup marks the entry used, so what is left
 * unused at the end is an unknown key, reported with a did-you-mean.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/behaviour.h"
#include "operators/keygroup.h"
#include "runtime/conf/loader.h"
#include "runtime/conf/topology.h"
#include "lib/units.h"

/* ------------------------------------------------------------------ */
/* [job] */

/* [job]'s defaults: what a topology without the section, or without a
 * key of it, runs with. */
static void
job_defaults(struct wm_job_conf *job)
{
	job->event_time_ms = INT64_MAX;
	job->processing_time_ms = INT64_MAX;
	job->records = UINT64_MAX;
	job->speed = 1.0;
	job->seed = 1;
	job->behaviour = WM_BEHAVIOUR_RELEASED;
	job->watermark_interval_ms = WM_WATERMARK_DEFAULT_INTERVAL_MS;
	job->stall_threshold_ms = 10000;
	job->max_delay_ms = INT64_MAX;
	job->origin_at_start = true;
	job->event_time_origin_ms = 0;
	job->ring_cells = WM_TOPOLOGY_RING_CELLS;
	job->checkpoint_interval_ms = INT64_MAX;
	job->checkpoints_retained = 1;
	job->fail_at_ms = INT64_MAX;
	job->restart = wm_restart_config_default(WM_RESTART_NONE);
	job->checkpoint_timeout_ms = 10 * 60 * 1000;
	job->max_parallelism = 0; /* Flink's default, per keyed stage */
}

/* all_idle: the study policy for an all-idle valve or multiplexer,
 * kept in the behaviour bits (operators/behaviour.h); flink sets none. */
static int
load_all_idle(struct loader *l, struct wm_ini_section *sec,
	      struct wm_job_conf *job)
{
	static const char *const policies[] = {"flink", "max", "hold"};
	static const unsigned bits[] = {0, WM_ALL_IDLE_MAX, WM_ALL_IDLE_HOLD};
	size_t idx = 0;
	int r;

	if ((r = wm_conf_get_enum(l, sec, "all_idle", policies, 3, &idx)) != 0)
		return r;
	job->behaviour = (job->behaviour & ~WM_ALL_IDLE_POLICY) | bits[idx];
	return 0;
}

/* The behaviour: flink_behaviour (baselines or flag names), then
 * one boolean key per flag, which may adjust it. 0 or a negative errno
 * with l->err set. */
static int
load_behaviour(struct loader *l, struct wm_ini_section *sec,
	       struct wm_job_conf *job)
{
	static const enum wm_behaviour_flag flags[] = {
		WM_IDLE_MARK_ONCE,
		WM_MUX_ALLIDLE_FLUSH_MAX,
		WM_VALVE_FLUSH_UNCONDITIONAL,
		WM_VALVE_REDERIVE_ON_ACTIVE,
		WM_MUX_EMPTY_IS_IDLE,
		WM_MUX_REACTIVATE,
		WM_DRAIN_ACTIVE_BEFORE_MAX,
	};
	struct wm_ini_entry *e = wm_ini_get(sec, "flink_behaviour");
	int r;

	if (e != NULL) {
		const char *bad;
		int bad_len;
		char why[160];

		if (wm_behaviour_parse(e->value, &job->behaviour, &bad,
				       &bad_len) != 0) {
			snprintf(why, sizeof(why),
				 "unrecognized behaviour \"%.*s\" (use "
				 "flink-2.1, flink-2.3, released, master "
				 "or flag names)",
				 bad_len > 40 ? 40 : bad_len, bad);
			return wm_conf_bad_value(l, e, why);
		}
	}
	/* One key per flag, after the setting, so it can adjust it. */
	for (size_t i = 0; i < N_ELEMS(flags); i++) {
		char key[64];
		bool on;

		snprintf(key, sizeof(key), "%s", wm_behaviour_name(flags[i]));
		for (char *p = key; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		on = wm_behaviour_has(job->behaviour, flags[i]);
		if ((r = wm_conf_get_bool(l, sec, key, &on)) != 0)
			return r;
		job->behaviour = on ? job->behaviour | flags[i]
				    : job->behaviour & ~(unsigned)flags[i];
	}
	return load_all_idle(l, sec, job);
}

/*
 * Checkpoints: checkpoint_interval and checkpoint_dir go together,
 * checkpoints_retained, fail_at, checkpoint_watermarks and
 * checkpoint_timeout need them (the first key given is the one named when
 * they are missing).
 */
static int
load_checkpoints(struct loader *l, struct wm_ini_section *sec,
		 struct wm_job_conf *job)
{
	static const char *const keys[] = {
		"checkpoint_interval",	 "checkpoint_dir",
		"checkpoints_retained",	 "fail_at",
		"checkpoint_watermarks", "checkpoint_timeout"};
	struct wm_ini_entry *first = NULL, *interval, *dir;
	int r;

	if ((r = wm_conf_get_duration(l, sec, "checkpoint_interval", true,
				      &job->checkpoint_interval_ms)) != 0 ||
	    (r = wm_conf_get_string(l, sec, "checkpoint_dir",
				    &job->checkpoint_dir)) != 0 ||
	    (r = wm_conf_get_u32(l, sec, "checkpoints_retained", 1, 1000000,
				 &job->checkpoints_retained)) != 0 ||
	    (r = wm_conf_get_duration(l, sec, "fail_at", false,
				      &job->fail_at_ms)) != 0 ||
	    (r = wm_conf_get_bool(l, sec, "checkpoint_watermarks",
				  &job->checkpoint_watermarks)) != 0 ||
	    (r = wm_conf_get_duration(l, sec, "checkpoint_timeout", true,
				      &job->checkpoint_timeout_ms)) != 0)
		return r;
	for (size_t i = 0; i < N_ELEMS(keys); i++) {
		struct wm_ini_entry *e = wm_conf_lookup(l, sec, keys[i]);

		if (e != NULL && (first == NULL || e->line < first->line))
			first = e;
	}
	if (first == NULL)
		return 0;
	interval = wm_conf_lookup(l, sec, "checkpoint_interval");
	dir = wm_conf_lookup(l, sec, "checkpoint_dir");
	if (interval == NULL || dir == NULL)
		return wm_conf_bad_value(
			l, first,
			"checkpoints need both checkpoint_interval and "
			"checkpoint_dir in [job]");
	if (job->checkpoint_dir[0] == '\0')
		return wm_conf_bad_value(l, dir, "an empty directory");
	return 0;
}

/* pipeline.max-parallelism, checked here whether or not a keyed stage
 * uses it (wm_conf_check_keyed()), so that a job without one does not
 * take a bad value in silence. */
static int
load_max_parallelism(struct loader *l, struct wm_ini_section *sec,
		     struct wm_job_conf *job)
{
	struct wm_ini_entry *e = wm_ini_get(sec, "pipeline.max-parallelism");
	char why[WM_UNITS_WHY_MAX];
	uint64_t v;

	if (e == NULL)
		return 0;
	if (wm_units_count(e->value, &v, why, sizeof(why)) != 0 || v == 0 ||
	    v > WM_KEYGROUP_MAX_PARALLELISM)
		return wm_conf_bad_value(l, e, "expected 1 to 32768");
	job->max_parallelism = (uint32_t)v;
	return 0;
}

/* event_time_origin: `start` (the default) or an instant (units.h). */
static int
load_origin(struct loader *l, struct wm_ini_section *sec,
	    struct wm_job_conf *job)
{
	struct wm_ini_entry *e = wm_ini_get(sec, "event_time_origin");
	char why[WM_UNITS_WHY_MAX];

	if (e == NULL || strcmp(e->value, "start") == 0)
		return 0;
	if (wm_units_instant_ms(e->value, &job->event_time_origin_ms, why,
				sizeof(why)) != 0)
		return wm_conf_bad_value(l, e, why);
	job->origin_at_start = false;
	return 0;
}

static int
load_job(struct loader *l, struct wm_ini_section *sec)
{
	struct wm_job_conf *job = &l->t->job;
	int r = 0;

	job_defaults(job);
	if (sec == NULL)
		return 0;
	if ((r = load_max_parallelism(l, sec, job)) != 0 ||
	    (r = load_origin(l, sec, job)) != 0 ||
	    (r = wm_conf_get_ring_size(l, sec, &job->ring_cells)) != 0)
		return r;
	if ((r = wm_conf_get_string(l, sec, "name", &job->name)) != 0 ||
	    (r = wm_conf_get_string(l, sec, "cpus", &job->cpus)) != 0 ||
	    (r = wm_conf_get_duration(l, sec, "event_time", true,
				      &job->event_time_ms)) != 0 ||
	    (r = wm_conf_get_duration(l, sec, "processing_time", true,
				      &job->processing_time_ms)) != 0 ||
	    (r = wm_conf_get_count(l, sec, "records", 1, UINT64_MAX - 1,
				   &job->records)) != 0 ||
	    (r = wm_conf_get_number(l, sec, "speed", 1e-6, 1e9, &job->speed)) !=
		    0 ||
	    (r = wm_conf_get_count(l, sec, "seed", 0, UINT64_MAX,
				   &job->seed)) != 0 ||
	    (r = wm_conf_get_duration(l, sec, "stall_threshold", true,
				      &job->stall_threshold_ms)) != 0 ||
	    (r = wm_conf_get_duration(l, sec, "max_delay", true,
				      &job->max_delay_ms)) != 0 ||
	    (r = wm_conf_get_bool(
		     l, sec,
		     "pipeline.watermark-alignment.allow-unaligned-"
		     "source-splits",
		     &job->allow_unaligned_source_splits)) != 0 ||
	    (r = wm_conf_get_duration(l, sec,
				      "pipeline.auto-watermark-interval", false,
				      &job->watermark_interval_ms)) != 0 ||
	    (r = wm_conf_load_alerts(l, sec, job)) != 0 ||
	    (r = wm_conf_load_plugin(l, sec, job)) != 0 ||
	    (r = load_checkpoints(l, sec, job)) != 0 ||
	    (r = wm_conf_load_restart(l, sec, job)) != 0)
		return r;
	return load_behaviour(l, sec, job);
}

/* withWatermarkAlignment(group, maxAllowedDrift, updateInterval). */
static int
load_alignment(struct loader *l, struct wm_ini_section *sec,
	       struct wm_source_conf *src)
{
	struct wm_ini_entry *group, *drift;
	char label[WM_INI_QUOTE_MAX];
	int r;

	src->alignment_update_interval_ms = 1000;
	if ((r = wm_conf_get_string(l, sec, "watermark_alignment_group",
				    &src->alignment_group)) != 0 ||
	    (r = wm_conf_get_duration(l, sec, "watermark_alignment_max_drift",
				      false, &src->alignment_max_drift_ms)) !=
		    0 ||
	    (r = wm_conf_get_duration(
		     l, sec, "watermark_alignment_update_interval", true,
		     &src->alignment_update_interval_ms)) != 0)
		return r;
	group = wm_conf_lookup(l, sec, "watermark_alignment_group");
	drift = wm_conf_lookup(l, sec, "watermark_alignment_max_drift");
	if ((group == NULL) != (drift == NULL)) {
		wm_ini_error_set(
			l->err, l->file, sec->line, sec->col,
			"%s: watermark_alignment_group and "
			"watermark_alignment_max_drift go together",
			wm_ini_section_label(label, sizeof(label), sec));
		return -EINVAL;
	}
	/* Alignment pauses partitions and subtasks by the watermark the
	 * source generates; with watermarks per subtask the source proper
	 * generates none (the operator after it does), so there is nothing
	 * to align on, as in Flink, where the group would never advance. */
	if (group != NULL && src->watermark_per_subtask)
		return wm_conf_bad_value(
			l, group,
			"watermark alignment needs watermark_at = split: "
			"with watermark_at = subtask the source itself "
			"generates no watermark to align on");
	return 0;
}

/* The generator's limit on delays (source_gen.h), checked here so that
 * the error names the line. */
static int
check_delay(struct loader *l, struct wm_ini_section *sec, const char *key,
	    int64_t ms)
{
	char why[100];

	if (ms <= WM_SOURCE_GEN_MAX_DELAY_MS)
		return 0;
	snprintf(why, sizeof(why), "at most %lld ms (31,000 years)",
		 (long long)WM_SOURCE_GEN_MAX_DELAY_MS);
	return wm_conf_bad_value(l, wm_conf_lookup(l, sec, key), why);
}

/* What a synthetic source generates: its rate, disorder, lateness, keys
 * and values. */
static int
load_generator(struct loader *l, struct wm_ini_section *sec,
	       struct wm_source_conf *src)
{
	static const char *const distributions[] = {"uniform", "zipf"};
	struct wm_ini_entry *e = wm_conf_lookup(l, sec, "rate");
	size_t idx = 0;
	int r;

	if (e != NULL) {
		char buf[WM_UNITS_WHY_MAX];

		if (wm_units_rate(e->value, &src->rate, buf, sizeof(buf)) != 0)
			return wm_conf_bad_value(l, e, buf);
		if (src->rate <= 0)
			return wm_conf_bad_value(l, e, "must be positive");
	}
	if ((r = wm_conf_get_duration(l, sec, "out_of_orderness", false,
				      &src->out_of_orderness_ms)) != 0 ||
	    (r = wm_conf_get_number(l, sec, "late_fraction", 0, 1,
				    &src->late_fraction)) != 0 ||
	    (r = wm_conf_get_duration(l, sec, "late_by", false,
				      &src->late_by_ms)) != 0 ||
	    (r = wm_conf_get_count(l, sec, "keys", 1, INT64_MAX, &src->keys)) !=
		    0 ||
	    (r = wm_conf_get_number(l, sec, "zipf_exponent", 0, 100,
				    &src->zipf_exponent)) != 0 ||
	    (r = wm_conf_get_u32(l, sec, "values", 1, UINT32_MAX,
				 &src->value_cycle)) != 0)
		return r;
	if ((r = check_delay(l, sec, "out_of_orderness",
			     src->out_of_orderness_ms)) != 0 ||
	    (r = check_delay(l, sec, "late_by", src->late_by_ms)) != 0)
		return r;
	if ((r = wm_conf_get_enum(l, sec, "key_distribution", distributions, 2,
				  &idx)) != 0)
		return r;
	src->zipf = idx == 1;
	return 0;
}

/*
 * `watermark = bounded, punctuated` (or ascending; in either order): one
 * generator of both (operators/watermark.h). 0 or the error at e.
 */
static int
load_combined_strategy(struct loader *l, struct wm_ini_entry *e,
		       struct wm_watermark_strategy *s)
{
	static const char usage[] =
		"combines a periodic generator with punctuated: "
		"\"bounded, punctuated\" or \"ascending, punctuated\"";
	const char *v = e->value;
	bool punctuated = false;
	int n = 0;

	s->kind = WM_WATERMARK_BOUNDED;
	for (size_t at = 0; v[at] != '\0';) {
		char word[16];
		size_t len;

		at += strspn(v + at, ", \t");
		len = strcspn(v + at, ", \t");
		if (len == 0)
			break;
		if (n == 2 || len >= sizeof(word))
			return wm_conf_bad_value_at(l, e, at, usage);
		memcpy(word, v + at, len);
		word[len] = '\0';
		if (strcmp(word, "punctuated") == 0 && !punctuated)
			punctuated = true;
		else if (strcmp(word, "ascending") == 0)
			s->kind = WM_WATERMARK_ASCENDING;
		else if (strcmp(word, "bounded") != 0)
			return wm_conf_bad_value_at(l, e, at, usage);
		n++;
		at += len;
	}
	if (n != 2 || !punctuated)
		return wm_conf_bad_value(l, e, usage);
	s->punctuated = true;
	return 0;
}

/* The source's WatermarkStrategy: the generator, idleness, interval. */
static int
load_strategy(struct loader *l, struct wm_ini_section *sec,
	      struct wm_source_conf *src)
{
	static const char *const generators[] = {"bounded", "ascending",
						 "punctuated"};
	static const enum wm_watermark_kind kinds[] = {WM_WATERMARK_BOUNDED,
						       WM_WATERMARK_ASCENDING,
						       WM_WATERMARK_PUNCTUATED};
	static const char *const places[] = {"split", "subtask"};
	struct wm_ini_entry *e;
	const char *why;
	size_t idx = 0;
	int r;

	e = wm_conf_lookup(l, sec, "watermark");
	if (e != NULL && strncmp(e->value, "plugin:", 7) == 0) {
		if ((r = wm_conf_load_plugin_watermark(l, e, &src->strategy)) !=
		    0)
			return r;
	} else if (e != NULL && strchr(e->value, ',') != NULL) {
		if ((r = load_combined_strategy(l, e, &src->strategy)) != 0)
			return r;
	} else {
		if ((r = wm_conf_get_enum(l, sec, "watermark", generators, 3,
					  &idx)) != 0)
			return r;
		src->strategy.kind = kinds[idx];
	}
	idx = 0;
	if ((r = wm_conf_get_enum(l, sec, "watermark_at", places, 2, &idx)) !=
	    0)
		return r;
	src->watermark_per_subtask = idx == 1;
	if (src->strategy.kind == WM_WATERMARK_BOUNDED)
		src->strategy.out_of_orderness_ms = src->out_of_orderness_ms;
	e = wm_conf_lookup(l, sec, "idle_timeout");
	if (e != NULL) {
		char buf[WM_UNITS_WHY_MAX];

		if (wm_units_duration_ms(e->value,
					 &src->strategy.idle_timeout_ms, buf,
					 sizeof(buf)) != 0)
			return wm_conf_bad_value(l, e, buf);
		if (src->strategy.idle_timeout_ms <= 0)
			return wm_conf_bad_value(
				l, e,
				"must be positive (Flink rejects "
				"withIdleness with zero)");
		src->strategy.with_idleness = true;
	}
	if ((r = wm_conf_get_duration(l, sec, "watermark_interval", false,
				      &src->strategy.interval_ms)) != 0)
		return r;
	e = wm_conf_lookup(l, sec, "reactivation_grace");
	if ((r = wm_conf_get_duration(l, sec, "reactivation_grace", false,
				      &src->strategy.reactivation_grace_ms)) !=
	    0)
		return r;
	/* The grace keeps a partition out of the minimum over a subtask's
	 * partitions; per subtask there is no such minimum to keep it out
	 * of, and a setting that cannot act is refused, not ignored. */
	if (src->strategy.reactivation_grace_ms > 0 &&
	    src->watermark_per_subtask)
		return wm_conf_bad_value(
			l, e,
			"reactivation_grace needs watermark_at = split: with "
			"watermark_at = subtask no partition has a watermark "
			"of its own");
	if (wm_watermark_strategy_check(&src->strategy, &why) != 0) {
		char label[WM_INI_QUOTE_MAX];

		wm_ini_error_set(
			l->err, l->file, sec->line, sec->col,
			"invalid watermark strategy in %s: %s",
			wm_ini_section_label(label, sizeof(label), sec), why);
		return -EINVAL;
	}
	return 0;
}

/* src->replay from the file's entry e: where the value is, and a relative
 * path taken from the topology file's directory (l->file's, when it has
 * one: a file named without a directory is in the current one, and so is
 * a path given by --set). 0 or -ENOMEM. */
static int
resolve_replay(struct loader *l, const struct wm_ini_entry *e,
	       struct wm_source_conf *src)
{
	const char *slash = strrchr(l->file, '/');
	char *resolved;

	src->replay_line = e->origin != NULL ? 0 : e->line;
	src->replay_col = e->origin != NULL ? 0 : e->value_col;
	if (src->replay[0] == '/' || slash == NULL || e->origin != NULL)
		return 0;
	if (asprintf(&resolved, "%.*s/%s", (int)(slash - l->file), l->file,
		     src->replay) < 0)
		return -ENOMEM;
	free(src->replay);
	src->replay = resolved;
	return 0;
}

/* A trace to replay instead of generating, and how. */
static int
load_replay(struct loader *l, struct wm_ini_section *sec,
	    struct wm_source_conf *src)
{
	static const char *const pacings[] = {"fast", "arrival", "event"};
	static const char *const on_bad[] = {"fail", "skip"};
	/* Unset: the trace's keys decide (WM_KEY_TYPE_TRACE). */
	static const char *const key_types[] = {"long", "string"};
	size_t k = 0;
	int r;

	if ((r = wm_conf_get_string(l, sec, "replay", &src->replay)) != 0 ||
	    (r = wm_conf_get_enum(l, sec, "pacing", pacings, 3, &k)) != 0)
		return r;
	if (src->replay != NULL && src->kind == WM_SOURCE_NEXMARK)
		return wm_conf_bad_value(l, wm_conf_lookup(l, sec, "replay"),
					 "a source makes a Nexmark stream "
					 "(generator = nexmark) or replays a "
					 "trace, not both");
	if (src->replay != NULL) {
		src->kind = WM_SOURCE_REPLAY;
		r = resolve_replay(l, wm_ini_get(sec, "replay"), src);
		if (r != 0)
			return r;
	}
	src->pacing = (enum wm_replay_pacing)k;
	k = 0;
	if ((r = wm_conf_get_enum(l, sec, "on_bad_record", on_bad, 2, &k)) != 0)
		return r;
	src->skip_bad_records = k == 1;
	src->replay_end_ms = -1;
	r = wm_conf_get_duration(l, sec, "replay_end", false,
				 &src->replay_end_ms);
	if (r != 0)
		return r;
	k = SIZE_MAX;
	if ((r = wm_conf_get_enum(l, sec, "key_type", key_types, 2, &k)) != 0)
		return r;
	src->key_type =
		k == SIZE_MAX ? WM_KEY_TYPE_TRACE : (enum wm_key_type)(k + 1);
	return 0;
}

/*
 * A punctuated generator and the records that carry its watermarks come
 * together: without marked records it would never emit one, and marks
 * without it would mark nothing. A generated source marks its records
 * (punctuate), a trace in its punctuate column, a topic in a punctuate
 * field of its values.
 */
static int
check_punctuation(struct loader *l, struct wm_ini_section *sec,
		  const struct wm_source_conf *src)
{
	struct wm_ini_entry *e = wm_conf_lookup(l, sec, "watermark");
	bool punctuated = wm_watermark_strategy_punctuated(&src->strategy);

	/* A trace marks its records itself (that some are marked is checked
	 * when it is read, replay.c), a topic in a field of its values (with
	 * its keys, kafka_keys.c); their punctuate is refused as a
	 * generator's key that has no effect there (checks.c). */
	if (src->kind != WM_SOURCE_GENERATED)
		return 0;
	if (punctuated && src->n_punctuations == 0)
		return wm_conf_bad_value(
			l, e,
			"needs punctuate = PARTITIONS every COUNT records (or "
			"every DURATION): without marked records a punctuated "
			"generator never "
			"emits a watermark");
	if (!punctuated && src->n_punctuations > 0)
		return wm_conf_bad_value(
			l, wm_conf_lookup(l, sec, "punctuate"),
			"marks records for watermark = punctuated, which this "
			"source does not have (its watermark is bounded or "
			"ascending, from every record; \"bounded, "
			"punctuated\" does both)");
	return 0;
}

static int
load_source(struct loader *l, struct wm_ini_section *sec, struct wm_stage *st)
{
	struct wm_source_conf *src = &st->u.source;
	int r;

	src->partitions = st->parallelism;
	src->rate = INFINITY;
	src->keys = 1000;
	src->zipf_exponent = 1.0;
	src->value_cycle = 1;
	src->late_by_ms = 0;
	src->strategy.kind = WM_WATERMARK_BOUNDED;
	src->strategy.interval_ms = l->t->job.watermark_interval_ms;
	src->strategy.behaviour = l->t->job.behaviour;
	if ((r = wm_conf_get_u32(l, sec, "partitions", 1,
				 WM_TOPOLOGY_MAX_PARTITIONS,
				 &src->partitions)) != 0 ||
	    (r = wm_conf_load_nexmark(l, sec, src)) != 0 ||
	    (r = load_generator(l, sec, src)) != 0 ||
	    (r = load_strategy(l, sec, src)) != 0 ||
	    (r = load_replay(l, sec, src)) != 0 ||
	    (r = wm_conf_get_string(l, sec, "topic", &src->topic)) != 0 ||
	    (r = wm_conf_load_kafka(l, sec, src)) != 0)
		return r;
	if (src->kind == WM_SOURCE_KAFKA)
		src->kafka->partitions_given =
			wm_ini_get(sec, "partitions") != NULL ||
			(l->global != NULL &&
			 wm_ini_get(l->global, "partitions") != NULL);
	if ((r = wm_conf_load_shapes(l, sec, src)) != 0)
		return r;
	return check_punctuation(l, sec, src);
}

/* A window's shape as its keys give it, before the assigner checks it. */
struct window_shape {
	size_t type; /* 0 tumbling, 1 sliding, 2 session */
	int64_t size, slide, gap, offset;
	struct wm_ini_entry *type_entry, *offset_entry; /* NULL: not given */
};

/* `offset`, which may be negative ("-8 h" for a UTC+8 day), into
 * shape->offset. 0 or a negative errno with l->err set. */
static int
load_window_offset(struct loader *l, struct wm_ini_section *sec,
		   struct window_shape *shape)
{
	struct wm_ini_entry *e = wm_conf_lookup(l, sec, "offset");
	char buf[WM_UNITS_WHY_MAX];
	bool negative;

	shape->offset_entry = e;
	if (e == NULL)
		return 0;
	negative = e->value[0] == '-';
	if (wm_units_duration_ms(e->value + negative, &shape->offset, buf,
				 sizeof(buf)) != 0)
		return wm_conf_bad_value(l, e, buf);
	if (negative)
		shape->offset = -shape->offset;
	return 0;
}

/* The assigner of the shape into *assigner, with the keys its type needs.
 * 0 or a negative errno with l->err set, pointing at what the assigner
 * refused: the offset, or the sizes (given by type and size). */
static int
window_assigner(struct loader *l, struct wm_ini_section *sec,
		const struct window_shape *shape,
		struct wm_window_assigner *assigner)
{
	const char *why = NULL;
	struct wm_ini_entry *e;
	int r;

	if (shape->type != 2 && shape->size == 0)
		return wm_conf_missing_key(l, sec, "size");
	if (shape->type == 1 && shape->slide == 0)
		return wm_conf_missing_key(l, sec, "slide");
	if (shape->type == 2 && shape->gap == 0)
		return wm_conf_missing_key(l, sec, "gap");
	if (shape->type == 0)
		r = wm_window_tumbling(assigner, shape->size, shape->offset,
				       &why);
	else if (shape->type == 1)
		r = wm_window_sliding(assigner, shape->size, shape->slide,
				      shape->offset, &why);
	else
		r = wm_window_session(assigner, shape->gap, &why);
	if (r == 0)
		return 0;
	e = strstr(why, "offset") && shape->offset_entry ? shape->offset_entry
	    : shape->type_entry				 ? shape->type_entry
				: wm_conf_lookup(l, sec, "size");
	return wm_conf_bad_value(l, e, why);
}

/*
 * `aggregates`, a list of names, into w->aggregates (count alone if the
 * key is not given), and of plugin:NAME(ARGS) into w->op's plugin
 * aggregates (plugins.c). Items are separated by commas and blanks
 * outside parentheses, so that a plugin's arguments may hold commas.
 * 0 or a negative errno with l->err set.
 */
static int
load_aggregates(struct loader *l, struct wm_ini_section *sec,
		struct wm_window_stage_conf *w)
{
	static const char *const aggs[] = {"count", "sum", "min", "max", "avg"};
	struct wm_ini_entry *e = wm_conf_lookup(l, sec, "aggregates");
	const char *v;
	size_t at = 0;

	w->aggregates = WM_AGG_COUNT;
	if (e == NULL)
		return 0;
	if (e->value_len >= 1024)
		return wm_conf_bad_value(l, e, "too long");
	v = e->value;
	w->aggregates = 0;
	for (;;) {
		char item[1024], buf[WM_UNITS_WHY_MAX];
		size_t len = 0, k;
		int depth = 0, r;

		at += strspn(v + at, ", \t");
		if (v[at] == '\0')
			break;
		while (v[at + len] != '\0' &&
		       (depth > 0 || strchr(", \t", v[at + len]) == NULL)) {
			depth += v[at + len] == '(';
			depth -= v[at + len] == ')' && depth > 0;
			len++;
		}
		memcpy(item, v + at, len);
		item[len] = '\0';
		if (strncmp(item, "plugin:", 7) == 0) {
			r = wm_conf_load_plugin_aggregate(l, e, at, item,
							  &w->op);
			if (r != 0)
				return r;
		} else if (wm_units_enum(item, "aggregate", aggs, N_ELEMS(aggs),
					 &k, buf, sizeof(buf)) != 0) {
			return wm_conf_bad_value_at(l, e, at, buf);
		} else {
			w->aggregates |= 1u << k;
		}
		at += len;
	}
	if (w->aggregates == 0 && w->op.n_plugin_aggregates == 0)
		return wm_conf_bad_value(l, e, "names no aggregate");
	return 0;
}

/*
 * `emit`: the aggregate a window's result carries as a record's value down
 * its edges, to the stages that read it (task_window.c). One of the
 * window's own count, sum, min and max, so that a stage reading the window
 * gets a value its sinks write, as an operator after a Flink window gets
 * its AggregateFunction's result; by default the first of those four the
 * window computes. NONE when it computes none of them (avg, plugins):
 * then only sinks may read it (check_input()). 0 or a negative errno with
 * l->err set.
 */
static int
load_emit(struct loader *l, struct wm_ini_section *sec,
	  struct wm_window_stage_conf *w)
{
	static const char *const names[] = {"count", "sum", "min", "max"};
	static const unsigned aggregate[] = {WM_AGG_COUNT, WM_AGG_SUM,
					     WM_AGG_MIN, WM_AGG_MAX};
	struct wm_ini_entry *e = wm_conf_lookup(l, sec, "emit");
	char why[WM_UNITS_WHY_MAX + 80];
	size_t k;

	w->emit = WM_WINDOW_EMIT_NONE;
	if (e == NULL) {
		for (k = 0; k < N_ELEMS(names); k++)
			if (w->aggregates & aggregate[k])
				break;
		if (k < N_ELEMS(names))
			w->emit =
				(enum wm_window_emit)(WM_WINDOW_EMIT_COUNT + k);
		return 0;
	}
	/* A record's value is a Java long: what is no long cannot be one. */
	if (strcmp(e->value, "avg") == 0)
		return wm_conf_bad_value(l, e,
					 "avg is a double and a record's value "
					 "a long: emit takes count, sum, min "
					 "or max");
	if (strncmp(e->value, "plugin:", 7) == 0)
		return wm_conf_bad_value(
			l, e,
			"a plugin's aggregate is no long, "
			"which a record's value is: emit takes "
			"count, sum, min or max");
	if (wm_units_enum(e->value, "emit", names, N_ELEMS(names), &k, why,
			  sizeof(why)) != 0)
		return wm_conf_bad_value(l, e, why);
	if ((w->aggregates & aggregate[k]) == 0) {
		snprintf(why, sizeof(why),
			 "%s is not among the window's aggregates (add it to "
			 "\"aggregates\")",
			 names[k]);
		return wm_conf_bad_value(l, e, why);
	}
	w->emit = (enum wm_window_emit)(WM_WINDOW_EMIT_COUNT + k);
	return 0;
}

/*
 * `time = processing`: the window's clock is processing time
 * (operators/window.h), which a session, allowed lateness or a late side
 * output cannot go with (a processing-time window is never late; Flink's
 * ProcessingTimeSessionWindows is not built here). 0 or a negative errno
 * with l->err set at the key at fault.
 */
static int
load_window_time(struct loader *l, struct wm_ini_section *sec,
		 struct wm_window_stage_conf *w)
{
	static const char *const times[] = {"event", "processing"};
	size_t time = 0;
	int r;

	if ((r = wm_conf_get_enum(l, sec, "time", times, 2, &time)) != 0)
		return r;
	w->op.processing_time = time == 1;
	if (!w->op.processing_time)
		return 0;
	if (w->op.assigner.kind == WM_WINDOW_SESSION)
		return wm_conf_bad_value(l, wm_conf_lookup(l, sec, "time"),
					 "processing-time windows are "
					 "tumbling or sliding");
	if (w->op.allowed_lateness != 0)
		return wm_conf_bad_value(
			l, wm_conf_lookup(l, sec, "allowed_lateness"),
			"a processing-time window is never late: allowed "
			"lateness is for event time");
	if (w->late_output != NULL)
		return wm_conf_bad_value(
			l, wm_conf_lookup(l, sec, "late_output"),
			"a processing-time window is never late: it has no "
			"late records");
	return 0;
}

int
wm_conf_load_assigner(struct loader *l, struct wm_ini_section *sec,
		      const char *type_key, struct wm_window_assigner *assigner)
{
	static const char *const types[] = {"tumbling", "sliding", "session"};
	struct window_shape shape = {
		.type_entry = wm_conf_lookup(l, sec, type_key),
	};
	int r;

	if ((r = wm_conf_get_enum(l, sec, type_key, types, 3, &shape.type)) !=
		    0 ||
	    (r = wm_conf_get_duration(l, sec, "size", true, &shape.size)) !=
		    0 ||
	    (r = wm_conf_get_duration(l, sec, "slide", true, &shape.slide)) !=
		    0 ||
	    (r = wm_conf_get_duration(l, sec, "gap", true, &shape.gap)) != 0 ||
	    (r = load_window_offset(l, sec, &shape)) != 0)
		return r;
	return window_assigner(l, sec, &shape, assigner);
}

static int
load_window(struct loader *l, struct wm_ini_section *sec, struct wm_stage *st)
{
	struct wm_window_stage_conf *w = &st->u.window;
	int r;

	if ((r = wm_conf_load_assigner(l, sec, "type", &w->op.assigner)) != 0 ||
	    (r = wm_conf_get_duration(l, sec, "allowed_lateness", false,
				      &w->op.allowed_lateness)) != 0 ||
	    (r = wm_conf_get_bool(l, sec, "purging", &w->op.purging)) != 0 ||
	    (r = wm_conf_get_string(l, sec, "late_output", &w->late_output)) !=
		    0 ||
	    (r = load_window_time(l, sec, w)) != 0)
		return r;
	w->op.late_side_output = w->late_output != NULL;
	if ((r = load_aggregates(l, sec, w)) != 0)
		return r;
	return load_emit(l, sec, w);
}

static int
load_sink(struct loader *l, struct wm_ini_section *sec, struct wm_stage *st)
{
	static const char *const formats[] = {"csv", "jsonl"};
	size_t format = 0;
	int r;

	if ((r = wm_conf_get_enum(l, sec, "format", formats, 2, &format)) !=
		    0 ||
	    (r = wm_conf_get_string(l, sec, "path", &st->u.sink.path)) != 0 ||
	    (r = wm_conf_get_bool(l, sec, "subtask_column",
				  &st->u.sink.subtask_column)) != 0)
		return r;
	st->u.sink.format = format == 0 ? WM_SINK_CSV : WM_SINK_JSONL;
	if (st->u.sink.path == NULL && (st->u.sink.path = strdup("-")) == NULL)
		return -ENOMEM;
	return 0;
}

static int
load_stage(struct loader *l, struct wm_ini_section *sec, struct wm_stage *st)
{
	char label[WM_INI_QUOTE_MAX];
	int r;

	st->line = sec->line;
	st->col = sec->col;
	st->parallelism = 1;
	if (sec->name == NULL || sec->name[0] == '\0') {
		wm_ini_error_set(
			l->err, l->file, sec->line, sec->col,
			"section %s needs a name, as in [%s NAME]",
			wm_ini_section_label(label, sizeof(label), sec),
			sec->kind);
		return -EINVAL;
	}
	if (sec->name[strcspn(sec->name, WM_TOPOLOGY_NAME_SEPARATORS)] !=
	    '\0') {
		/* `input` lists names separated by these: such a stage
		 * could be declared but never read. */
		wm_ini_error_set(l->err, l->file, sec->line, sec->col,
				 "stage name \"%s\" contains a blank or a "
				 "comma, which separate the names in an input "
				 "list",
				 sec->name);
		return -EINVAL;
	}
	st->name = strdup(sec->name);
	if (st->name == NULL)
		return -ENOMEM;
	if ((r = wm_conf_get_u32(l, sec, "parallelism", 1,
				 WM_TOPOLOGY_MAX_PARALLELISM,
				 &st->parallelism)) != 0)
		return r;
	switch (st->kind) {
	case WM_STAGE_SOURCE:
		return (r = load_source(l, sec, st)) != 0
			       ? r
			       : load_alignment(l, sec, &st->u.source);
	case WM_STAGE_KEYBY:
		return 0;
	case WM_STAGE_WINDOW:
		return load_window(l, sec, st);
	case WM_STAGE_SINK:
		return load_sink(l, sec, st);
	case WM_STAGE_JOIN:
		return wm_conf_load_join(l, sec, st);
	case WM_STAGE_MAP:
		return wm_conf_load_map(l, sec, st);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Edges */

static int
find_stage(const struct wm_topology *t, const char *name, size_t len)
{
	for (uint32_t i = 0; i < t->n_stages; i++)
		if (strlen(t->stages[i].name) == len &&
		    strncmp(t->stages[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

/* "no stage named ..." for the `len` bytes at `name` in entry e, with a
 * did-you-mean from the job's stage names. */
static int
no_such_stage(struct loader *l, const struct wm_ini_entry *e, const char *p,
	      size_t len)
{
	const struct wm_topology *t = l->t;
	char name[128], why[300];
	const char *names[256];
	const char *guess;
	uint32_t n = t->n_stages < 256 ? t->n_stages : 256;

	snprintf(name, sizeof(name), "%.*s", (int)(len < 100 ? len : 100), p);
	for (uint32_t i = 0; i < n; i++)
		names[i] = t->stages[i].name;
	guess = wm_ini_suggest(name, names, n);
	snprintf(why, sizeof(why), "no stage named \"%s\"%s%s%s", name,
		 guess ? " (did you mean \"" : "", guess ? guess : "",
		 guess ? "\"?)" : "");
	return wm_conf_bad_value(l, e, why);
}

/*
 * The edges of a map (doc/semantics.md section 16): it reads a Nexmark
 * source, whose events it makes rows of, and only sinks read it, for
 * its rows are no records (a key and a long) to send down an edge. A
 * source read by a map carries in each record the event's number, for
 * the map to make the event's row again in the source's task, not the
 * nexmark.key and nexmark.value another reader would want: so such a
 * source is read by maps alone. 0, or the error at e.
 */
static int
check_map_input(struct loader *l, const struct wm_ini_entry *e,
		const struct wm_stage *st, const struct wm_stage *up,
		uint32_t in)
{
	struct wm_topology_edge readers[WM_TOPOLOGY_MAX_OUTPUTS];
	uint32_t n, maps = 0;
	char why[300];

	if (up->kind == WM_STAGE_MAP && st->kind != WM_STAGE_SINK) {
		snprintf(why, sizeof(why),
			 "\"%s\" is a map: a map's rows go to sinks only so "
			 "far",
			 up->name);
		return wm_conf_bad_value(l, e, why);
	}
	if (st->kind == WM_STAGE_MAP &&
	    !wm_stage_source_is(up, WM_SOURCE_NEXMARK)) {
		snprintf(why, sizeof(why),
			 "a map reads a source with generator = nexmark, "
			 "whose events are its rows, and \"%s\" is %s",
			 up->name,
			 up->kind == WM_STAGE_SOURCE
				 ? "a source of records (a key and a value)"
				 : wm_stage_kind_name(up->kind));
		return wm_conf_bad_value(l, e, why);
	}
	if (up->kind != WM_STAGE_SOURCE)
		return 0;
	n = wm_topology_out_edges(l->t, in, readers, WM_TOPOLOGY_MAX_OUTPUTS);
	for (uint32_t i = 0; i < n; i++)
		maps += l->t->stages[readers[i].stage].kind == WM_STAGE_MAP;
	if (st->kind == WM_STAGE_MAP && maps >= WM_TOPOLOGY_MAX_MAPS) {
		snprintf(why, sizeof(why),
			 "source \"%s\" is read by %u maps already, the most "
			 "one source runs (their counters sit in its "
			 "subtasks' metrics)",
			 up->name, WM_TOPOLOGY_MAX_MAPS);
		return wm_conf_bad_value(l, e, why);
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct wm_stage *other = &l->t->stages[readers[i].stage];

		if ((other->kind == WM_STAGE_MAP) == (st->kind == WM_STAGE_MAP))
			continue;
		snprintf(why, sizeof(why),
			 "source \"%s\" is read by %s \"%s\" (line %d), and "
			 "a source read by a map is read by maps alone: its "
			 "records carry event numbers, not nexmark.key and "
			 "nexmark.value",
			 up->name, wm_stage_kind_name(other->kind), other->name,
			 other->line);
		return wm_conf_bad_value(l, e, why);
	}
	return 0;
}

/* Whether stage s may read stage `in` (entry e names it), as one more of
 * its inputs: 0, or the error at e. */
static int
check_input(struct loader *l, const struct wm_ini_entry *e, uint32_t s,
	    uint32_t in)
{
	const struct wm_topology *t = l->t;
	const struct wm_stage *st = &t->stages[s], *up = &t->stages[in];
	char why[200];
	int r;

	if (in == s)
		return wm_conf_bad_value(l, e, "a stage cannot read itself");
	if (wm_topology_out_edges(t, in, NULL, 0) == WM_TOPOLOGY_MAX_OUTPUTS) {
		snprintf(why, sizeof(why),
			 "\"%s\" feeds %u stages already, the most one stage "
			 "can",
			 up->name, WM_TOPOLOGY_MAX_OUTPUTS);
		return wm_conf_bad_value(l, e, why);
	}
	for (uint32_t k = 0; k < st->n_inputs; k++)
		if (st->inputs[k].stage == in) {
			/* Every record would be counted twice. */
			if (st->kind == WM_STAGE_JOIN)
				snprintf(why, sizeof(why),
					 "\"%s\" is the left side already: a "
					 "join of a stage with itself is not "
					 "built",
					 up->name);
			else
				snprintf(why, sizeof(why), "names \"%s\" twice",
					 up->name);
			return wm_conf_bad_value(l, e, why);
		}
	/* A join's two inputs are its `left` and `right`, one each. */
	if (st->n_inputs == WM_TOPOLOGY_MAX_INPUTS ||
	    (st->kind != WM_STAGE_WINDOW && st->kind != WM_STAGE_JOIN &&
	     st->n_inputs == 1))
		return wm_conf_bad_value(
			l, e,
			st->kind == WM_STAGE_WINDOW
				? "a window reads one or two "
				  "stages"
				: "this stage reads one stage");
	/* A sink is chained to the window, join or map it writes for (its
	 * parallelism: chained_parallelism()). */
	if (st->kind == WM_STAGE_SINK && !wm_stage_keyed(up->kind) &&
	    up->kind != WM_STAGE_MAP)
		return wm_conf_bad_value(l, e,
					 "a sink writes the results of a "
					 "window, a join or a map");
	if ((r = check_map_input(l, e, st, up, in)) != 0)
		return r;
	/* A window sends its results down its edges as records whose value
	 * is the aggregate `emit` names (task_window.c), as a join sends its
	 * pairs (task_join.c); a window with no such aggregate has no value
	 * to send, and only a sink can write its results. */
	if (st->kind != WM_STAGE_SINK && up->kind == WM_STAGE_WINDOW &&
	    up->u.window.emit == WM_WINDOW_EMIT_NONE) {
		snprintf(why, sizeof(why),
			 "\"%s\" is a window with no count, sum, min or max "
			 "to send as a record's value, so only a sink can "
			 "write its results (avg is no long)",
			 up->name);
		return wm_conf_bad_value(l, e, why);
	}
	return 0;
}

/*
 * A sink is chained to the window, join or map it writes for, and a map
 * to its source: the same subtasks, so the same parallelism. Without a
 * `parallelism` in its own section it takes theirs (a [global] one is
 * their default, not its choice); one given there that differs is an
 * error, at it.
 */
static int
chained_parallelism(struct loader *l, struct wm_ini_section *sec,
		    struct wm_stage *st, const struct wm_stage *window)
{
	struct wm_ini_entry *pe = wm_ini_get(sec, "parallelism");
	char why[200];

	if (pe == NULL) {
		st->parallelism = window->parallelism;
		return 0;
	}
	if (st->parallelism == window->parallelism)
		return 0;
	snprintf(why, sizeof(why),
		 "a %s is chained to its %s, so it needs its "
		 "parallelism (%u, not %u)",
		 wm_stage_kind_name(st->kind), wm_stage_kind_name(window->kind),
		 window->parallelism, st->parallelism);
	return wm_conf_bad_value(l, pe, why);
}

/* The partitioning of the edge from `up` into `st`: as `partitioning`
 * (entry pe) forces it, else as Flink wires it (topology.h). 0, or the
 * error at pe (or e) for a forward edge of unequal sides. */
static int
edge_kind(struct loader *l, const struct wm_ini_entry *e,
	  const struct wm_ini_entry *pe, const struct wm_stage *up,
	  const struct wm_stage *st, enum wm_partitioning *kind)
{
	char why[200];

	/* Forced: *kind holds the `partitioning` value already. */
	if (pe == NULL)
		*kind = wm_stage_keyed(st->kind) ? WM_PARTITION_HASH
			: up->parallelism == st->parallelism
				? WM_PARTITION_FORWARD
				: WM_PARTITION_REBALANCE;
	if (*kind == WM_PARTITION_FORWARD &&
	    up->parallelism != st->parallelism) {
		snprintf(why, sizeof(why),
			 "a forward edge needs equal parallelism, but \"%s\" "
			 "has %u and \"%s\" %u",
			 up->name, up->parallelism, st->name, st->parallelism);
		return wm_conf_bad_value(l, pe ? pe : e, why);
	}
	return 0;
}

/* One input of stage s named by entry e (the whole value: one name, or
 * a list of them), into its edges. */
static int
resolve_input_list(struct loader *l, struct wm_ini_section *sec, uint32_t s,
		   const struct wm_ini_entry *e, const struct wm_ini_entry *pe,
		   size_t edge)
{
	struct wm_topology *t = l->t;
	struct wm_stage *st = &t->stages[s];
	uint32_t before = st->n_inputs;
	int r;

	for (const char *p = e->value; *p != '\0';) {
		size_t len = strcspn(p, WM_TOPOLOGY_NAME_SEPARATORS);
		enum wm_partitioning kind = (enum wm_partitioning)edge;
		int in;

		if (len == 0) {
			p++;
			continue;
		}
		in = find_stage(t, p, len);
		if (in < 0)
			return no_such_stage(l, e, p, len);
		/* A join's side is one stage. */
		if (st->kind == WM_STAGE_JOIN && st->n_inputs > before)
			return wm_conf_bad_value(l, e,
						 "names one stage: each side "
						 "of a join reads one");
		if ((r = check_input(l, e, s, (uint32_t)in)) != 0 ||
		    ((st->kind == WM_STAGE_SINK || st->kind == WM_STAGE_MAP) &&
		     (r = chained_parallelism(l, sec, st, &t->stages[in])) !=
			     0) ||
		    (r = edge_kind(l, e, pe, &t->stages[in], st, &kind)) != 0)
			return r;
		st->inputs[st->n_inputs].stage = (uint32_t)in;
		st->inputs[st->n_inputs].edge = kind;
		st->n_inputs++;
		p += len;
	}
	if (st->n_inputs == before)
		return wm_conf_bad_value(l, e, "names no stage");
	return 0;
}

/* Stage s's `input` (one stage, or two for a window), or a join's `left`
 * and `right` (its inputs 0 and 1), into its edges. */
static int
resolve_inputs(struct loader *l, struct wm_ini_section *sec, uint32_t s)
{
	static const char *const edges[] = {"forward", "hash", "rebalance",
					    "broadcast"};
	static const char *const sides[] = {"left", "right"};
	struct wm_topology *t = l->t;
	struct wm_stage *st = &t->stages[s];
	struct wm_ini_entry *e, *pe;
	size_t edge = 0;
	int r;

	/* Before the lookup, which marks the key used: a source has no
	 * input, and wm_conf_check_unused() must say so. */
	if (st->kind == WM_STAGE_SOURCE)
		return 0;
	/* A join's edges are hash, as Flink's keyed inputs, and a map is
	 * chained to its source: neither has a `partitioning`. */
	pe = st->kind == WM_STAGE_JOIN || st->kind == WM_STAGE_MAP
		     ? NULL
		     : wm_conf_lookup(l, sec, "partitioning");
	if (pe != NULL && (r = wm_conf_get_enum(l, sec, "partitioning", edges,
						4, &edge)) != 0)
		return r;
	if (st->kind != WM_STAGE_JOIN) {
		e = wm_conf_lookup(l, sec, "input");
		if (e == NULL)
			return wm_conf_missing_key(l, sec, "input");
		l->input_entry[s] = e;
		return resolve_input_list(l, sec, s, e, pe, edge);
	}
	for (size_t side = 0; side < 2; side++) {
		e = wm_conf_lookup(l, sec, sides[side]);
		if (e == NULL)
			return wm_conf_missing_key(l, sec, sides[side]);
		if (side == 0)
			l->input_entry[s] = e;
		if ((r = resolve_input_list(l, sec, s, e, NULL, edge)) != 0)
			return r;
	}
	return 0;
}

/* Every section's kind known, [job] and [global] nameless; the stages
 * counted into t->n_stages. */
static int
count_stages(struct loader *l)
{
	static const char *const kinds[] = {"job",   "global", "source",
					    "keyby", "window", "join",
					    "sink",  "map"};
	struct wm_ini_doc *doc = l->doc;
	struct wm_topology *t = l->t;

	/* Section kinds first: a typo there would hide everything else. */
	for (size_t i = 0; i < doc->n_sections; i++) {
		struct wm_ini_section *sec = &doc->sections[i];
		enum wm_stage_kind k;

		if (strcmp(sec->kind, "job") == 0 ||
		    strcmp(sec->kind, "global") == 0) {
			if (sec->name != NULL) {
				wm_ini_error_set(l->err, l->file, sec->line,
						 sec->col,
						 "section [%s] takes no name",
						 sec->kind);
				return -EINVAL;
			}
			if (sec->kind[0] == 'g')
				l->global = sec;
			continue;
		}
		if (wm_conf_stage_kind(sec->kind, &k) != 0) {
			const char *guess = wm_ini_suggest(sec->kind, kinds,
							   N_ELEMS(kinds));

			wm_ini_error_set(
				l->err, l->file, sec->line, sec->col,
				"unrecognized section kind \"%s\"%s%s%s",
				sec->kind, guess ? " (did you mean \"" : "",
				guess ? guess : "", guess ? "\"?)" : "");
			return -EINVAL;
		}
		if (t->n_stages == WM_TOPOLOGY_MAX_STAGES) {
			wm_ini_error_set(l->err, l->file, sec->line, sec->col,
					 "too many stages: at most %u",
					 WM_TOPOLOGY_MAX_STAGES);
			return -EINVAL;
		}
		t->n_stages++;
	}
	return 0;
}

/* Every stage section read, in file order, into t->stages (secs[s] its
 * section); names unique. */
static int
load_stages(struct loader *l, struct wm_ini_section **secs)
{
	struct wm_ini_doc *doc = l->doc;
	struct wm_topology *t = l->t;
	uint32_t s = 0;
	int r;

	for (size_t i = 0; i < doc->n_sections; i++) {
		struct wm_ini_section *sec = &doc->sections[i];

		if (wm_conf_stage_kind(sec->kind, &t->stages[s].kind) != 0)
			continue;
		secs[s] = sec;
		if ((r = load_stage(l, sec, &t->stages[s])) != 0)
			return r;
		if (find_stage(t, t->stages[s].name,
			       strlen(t->stages[s].name)) != (int)s) {
			wm_ini_error_set(l->err, l->file, sec->line, sec->col,
					 "a stage named \"%s\" exists already",
					 t->stages[s].name);
			return -EINVAL;
		}
		s++;
	}
	return 0;
}

/* The edges between the stages, and every check of the whole (checks.c),
 * in the order in which one failure can hide another least. */
static int
connect_and_check(struct loader *l, struct wm_ini_section **secs,
		  unsigned char *colour)
{
	struct wm_topology *t = l->t;
	int r;

	for (uint32_t s = 0; s < t->n_stages; s++)
		if ((r = resolve_inputs(l, secs[s], s)) != 0 ||
		    (t->stages[s].kind == WM_STAGE_MAP &&
		     (r = wm_conf_compile_map(l, secs, s)) != 0) ||
		    (r = wm_conf_check_keyed(l, secs[s], &t->stages[s])) != 0 ||
		    (r = wm_conf_check_no_effect(l, secs[s], &t->stages[s])) !=
			    0)
			return r;
	if ((r = wm_conf_check_size(l, secs)) != 0 ||
	    (r = wm_conf_check_outputs(l, secs)) != 0)
		return r;
	for (uint32_t s = 0; s < t->n_stages; s++)
		if ((r = wm_conf_find_cycle(l, s, colour)) != 0)
			return r;
	if ((r = wm_conf_check_cpus(l)) != 0 ||
	    (r = wm_conf_check_unused(l)) != 0)
		return r;
	/* Last: a file with a mistyped key says so, not that a rate is
	 * missing. */
	for (uint32_t s = 0; s < t->n_stages; s++)
		if ((r = wm_conf_check_rate(l, secs[s], &t->stages[s])) != 0)
			return r;
	return 0;
}

static int
load(struct loader *l)
{
	struct wm_topology *t = l->t;
	struct wm_ini_section **secs;
	unsigned char *colour;
	int r;

	if ((r = count_stages(l)) != 0 ||
	    (r = load_job(l, wm_ini_section_find(l->doc, "job", NULL))) != 0)
		return r;
	if (t->n_stages == 0) {
		wm_ini_error_set(l->err, l->file, 0, 0,
				 "no stages: add [source NAME] and the stages "
				 "that read it");
		return -EINVAL;
	}
	t->stages = calloc(t->n_stages, sizeof(*t->stages));
	l->input_entry = calloc(t->n_stages, sizeof(*l->input_entry));
	colour = calloc(t->n_stages, 1);
	secs = calloc(t->n_stages, sizeof(*secs));
	r = t->stages == NULL || l->input_entry == NULL || colour == NULL ||
			    secs == NULL
		    ? -ENOMEM
		    : 0;
	if (r == 0)
		r = load_stages(l, secs);
	if (r == 0)
		r = connect_and_check(l, secs, colour);
	free(secs);
	free(colour);
	return r;
}

const struct wm_ini_options wm_topology_ini_options = {
	.may_repeat = wm_conf_may_repeat};

int
wm_topology_load_doc(struct wm_ini_doc *doc, const char *file,
		     struct wm_topology **topo, struct wm_ini_error *err)
{
	struct loader l = {.file = file, .doc = doc, .err = err};
	int r;

	*topo = NULL;
	l.t = calloc(1, sizeof(*l.t));
	if (l.t == NULL || (l.t->file = strdup(file)) == NULL) {
		free(l.t);
		return -ENOMEM;
	}
	r = load(&l);
	free(l.input_entry);
	if (r != 0) {
		if (r == -ENOMEM)
			wm_ini_error_set(err, NULL, 0, 0, "out of memory");
		wm_topology_free(l.t);
		return r;
	}
	*topo = l.t;
	return 0;
}

int
wm_topology_load_file(const char *path, struct wm_topology **topo,
		      struct wm_ini_error *err)
{
	struct wm_ini_doc *doc;
	int r = wm_ini_parse_file(path, &wm_topology_ini_options, &doc, err);

	*topo = NULL;
	if (r == 0)
		r = wm_topology_load_doc(doc, path, topo, err);
	wm_ini_free(doc);
	return r;
}

int
wm_topology_load_buffer(const char *text, size_t len, const char *name,
			struct wm_topology **topo, struct wm_ini_error *err)
{
	struct wm_ini_doc *doc;
	int r = wm_ini_parse_buffer(text, len, name, &wm_topology_ini_options,
				    &doc, err);

	*topo = NULL;
	if (r == 0)
		r = wm_topology_load_doc(doc, name, topo, err);
	wm_ini_free(doc);
	return r;
}

bool
wm_topology_section_word(const char *s)
{
	return strcmp(s, "job") == 0 || strcmp(s, "global") == 0;
}

struct wm_ini_section *
wm_topology_section_named(const struct wm_ini_doc *doc, const char *name)
{
	if (wm_topology_section_word(name))
		return wm_ini_section_find(doc, name, NULL);
	for (size_t i = 0; i < doc->n_sections; i++) {
		struct wm_ini_section *sec = &doc->sections[i];

		if (sec->name != NULL && !wm_topology_section_word(sec->kind) &&
		    strcmp(sec->name, name) == 0)
			return sec;
	}
	return NULL;
}

void
wm_topology_free(struct wm_topology *t)
{
	if (t == NULL)
		return;
	/* n_stages is counted before stages is allocated. */
	for (uint32_t i = 0; t->stages != NULL && i < t->n_stages; i++) {
		struct wm_stage *st = &t->stages[i];

		free(st->name);
		if (st->kind == WM_STAGE_SOURCE) {
			free(st->u.source.silences);
			free(st->u.source.outages);
			free(st->u.source.random_silences);
			free(st->u.source.punctuations);
			free(st->u.source.heartbeats);
			free(st->u.source.bursts);
			free(st->u.source.skew);
			free(st->u.source.replay);
			wm_conf_free_kafka(st->u.source.kafka);
			free(st->u.source.topic);
			free(st->u.source.record);
			free(st->u.source.alignment_group);
			free((char *)st->u.source.strategy.plugin_args);
		} else if (st->kind == WM_STAGE_WINDOW) {
			free(st->u.window.late_output);
			for (unsigned a = 0;
			     a < st->u.window.op.n_plugin_aggregates; a++)
				free((char *)st->u.window.op
					     .plugin_aggregates[a]
					     .args);
		} else if (st->kind == WM_STAGE_JOIN) {
			free(st->u.join.late_output[WM_JOIN_LEFT]);
			free(st->u.join.late_output[WM_JOIN_RIGHT]);
		} else if (st->kind == WM_STAGE_SINK) {
			free(st->u.sink.path);
		} else if (st->kind == WM_STAGE_MAP) {
			free(st->u.map.where);
			free(st->u.map.select);
		}
	}
	free(t->stages);
	free(t->file);
	free(t->job.name);
	free(t->job.cpus);
	free(t->job.cpus_at);
	free(t->job.checkpoint_dir);
	wm_conf_close_plugin(&t->job);
	free(t);
}

const char *
wm_source_split_id(const struct wm_stage *st, uint32_t partition, char *buf,
		   size_t len)
{
	snprintf(buf, len, "%s-%" PRIu32, wm_source_topic(st), partition);
	return buf;
}
