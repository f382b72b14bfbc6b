/*
 * schema.c
 *	The keys of topology.conf: which keys each section takes, the section
 *	kinds, and reading a key's value as a duration, a count, a number, a
 *	choice, a flag, a size or a string, with the error at its column.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipc/ring.h"
#include "runtime/conf/loader.h"
#include "runtime/conf/topology.h"
#include "lib/units.h"

static const char *const job_keys[] = {
	"name",
	"event_time",
	"processing_time",
	"records",
	"speed",
	"seed",
	"stall_threshold",
	"max_delay",
	"pipeline.watermark-alignment.allow-unaligned-source-splits",
	"cpus",
	"ring_size",
	"flink_behaviour",
	"pipeline.auto-watermark-interval",
	"pipeline.max-parallelism",
	"idle_mark_once",
	"mux_allidle_flush_max",
	"valve_flush_unconditional",
	"valve_rederive_on_active",
	"mux_empty_is_idle",
	"mux_reactivate",
	"drain_active_before_max",
	"all_idle",
	"alert_partition_idle",
	"alert_subtask_idle",
	"alert_watermark_stalled",
	"alert_partition_stalled",
	"alert_idle_partitions",
	"checkpoint_interval",
	"checkpoint_dir",
	"checkpoints_retained",
	"fail_at",
	"plugin",
	"restart_strategy",
	"restart_attempts",
	"restart_delay",
	"restart_initial_delay",
	"restart_max_delay",
	"restart_multiplier",
	"restart_reset_threshold",
	"restart_jitter",
	"checkpoint_watermarks",
	"checkpoint_timeout",
};

static const char *const source_keys[] = {
	"parallelism",
	"partitions",
	"rate",
	"out_of_orderness",
	"late_fraction",
	"late_by",
	"keys",
	"key_distribution",
	"zipf_exponent",
	"watermark",
	"watermark_at",
	"reactivation_grace",
	"idle_timeout",
	"watermark_interval",
	"values",
	"silence",
	"silence_random",
	"skew",
	"burst",
	"outage",
	"punctuate",
	"heartbeat",
	"replay",
	"pacing",
	"on_bad_record",
	"replay_end",
	"key_type",
	"watermark_alignment_group",
	"watermark_alignment_max_drift",
	"watermark_alignment_update_interval",
	"topic",
	"kafka.topic",
	"kafka.bootstrap_servers",
	"kafka.group_id",
	"kafka.starting_offsets",
	"kafka.stopping_offsets",
	"kafka.value_format",
	"kafka.value_fields",
	"kafka.timestamp",
	"kafka.key",
	"kafka.broker_timeout",
	"kafka.partition.discovery.interval.ms",
};

static const char *const keyby_keys[] = {"input", "parallelism",
					 "partitioning"};

static const char *const window_keys[] = {
	"input",	"parallelism",
	"partitioning", "max_parallelism",
	"type",		"size",
	"slide",	"gap",
	"offset",	"allowed_lateness",
	"purging",	"aggregates",
	"late_output",	"time",
};

static const char *const join_keys[] = {
	"left",
	"right",
	"parallelism",
	"max_parallelism",
	"between",
	"lower_bound_exclusive",
	"upper_bound_exclusive",
	"window",
	"size",
	"slide",
	"gap",
	"offset",
	"allowed_lateness",
	"left_late",
	"right_late",
	"value",
};

static const char *const sink_keys[] = {
	"input",  "parallelism", "partitioning",
	"format", "path",	 "subtask_column",
};

static const char *const stage_kind_names[] = {
	[WM_STAGE_SOURCE] = "source", [WM_STAGE_KEYBY] = "keyby",
	[WM_STAGE_WINDOW] = "window", [WM_STAGE_SINK] = "sink",
	[WM_STAGE_JOIN] = "join",
};
_Static_assert(N_ELEMS(stage_kind_names) == WM_STAGE_KINDS,
	       "a name for every stage kind");

static const char *const partitioning_names[] = {
	[WM_PARTITION_FORWARD] = "forward",
	[WM_PARTITION_HASH] = "hash",
	[WM_PARTITION_REBALANCE] = "rebalance",
	[WM_PARTITION_BROADCAST] = "broadcast",
};

static const char *const generator_keys[] = {
	"rate",		 "late_fraction", "late_by",
	"keys",		 "values",	  "key_distribution",
	"zipf_exponent", "silence",	  "skew",
	"burst",	 "outage",	  "silence_random",
	"punctuate",	 "heartbeat",
};
static const char *const replay_keys[] = {"pacing", "on_bad_record",
					  "replay_end", "key_type"};

void
wm_topology_source_record_keys(bool replay, const char *const **keys, size_t *n)
{
	*keys = replay ? replay_keys : generator_keys;
	*n = replay ? N_ELEMS(replay_keys) : N_ELEMS(generator_keys);
}

const char *
wm_stage_kind_name(enum wm_stage_kind kind)
{
	return stage_kind_names[kind];
}

static const char *const kafka_field_names[WM_KAFKA_N_FIELDS] = {
	[WM_KAFKA_FIELD_SKIP] = "_",
	[WM_KAFKA_FIELD_TIMESTAMP] = "timestamp",
	[WM_KAFKA_FIELD_KEY] = "key",
	[WM_KAFKA_FIELD_VALUE] = "value",
	[WM_KAFKA_FIELD_PUNCTUATE] = "punctuate",
	[WM_KAFKA_FIELD_HEARTBEAT] = "heartbeat",
	[WM_KAFKA_FIELD_WATERMARK] = "watermark",
};

const char *
wm_kafka_field_name(enum wm_kafka_field field)
{
	return kafka_field_names[field];
}

const char *
wm_partitioning_name(enum wm_partitioning kind)
{
	return partitioning_names[kind];
}

bool
wm_conf_in_list(const char *key, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(key, list[i]) == 0)
			return true;
	return false;
}

void
wm_conf_keys_of(enum wm_stage_kind kind, const char *const **keys, size_t *n)
{
	switch (kind) {
	case WM_STAGE_SOURCE:
		*keys = source_keys, *n = N_ELEMS(source_keys);
		return;
	case WM_STAGE_KEYBY:
		*keys = keyby_keys, *n = N_ELEMS(keyby_keys);
		return;
	case WM_STAGE_WINDOW:
		*keys = window_keys, *n = N_ELEMS(window_keys);
		return;
	case WM_STAGE_SINK:
		*keys = sink_keys, *n = N_ELEMS(sink_keys);
		return;
	case WM_STAGE_JOIN:
		*keys = join_keys, *n = N_ELEMS(join_keys);
		return;
	}
}

/* The keys of [job]. */
void
wm_conf_job_keys_of(const char *const **keys, size_t *n)
{
	*keys = job_keys, *n = N_ELEMS(job_keys);
}

/* The entry for `key` of a stage section: its own, else [global]'s. */
struct wm_ini_entry *
wm_conf_lookup(struct loader *l, struct wm_ini_section *sec, const char *key)
{
	struct wm_ini_entry *e = wm_ini_get(sec, key);

	if (e == NULL && sec != l->global && l->global != NULL &&
	    strcmp(sec->kind, "job") != 0)
		e = wm_ini_get(l->global, key);
	return e;
}

/* The column of byte `off` of e's value: columns count characters (UTF-8
 * code points), and a quoted value starts after its quote. Offset 0 is the
 * value's own column, quote included. */
int
wm_conf_value_col_at(const struct wm_ini_entry *e, size_t off)
{
	int col = e->value_col;

	if (off == 0)
		return col;
	col += e->quoted;
	for (size_t i = 0; i < off && i < e->value_len; i++)
		col += ((unsigned char)e->value[i] & 0xC0) != 0x80;
	return col;
}

/* "invalid value" for e, pointing at byte `off` of its value: the part
 * that is wrong by itself, or 0 for a value wrong as a whole. */
int
wm_conf_bad_value_at(struct loader *l, const struct wm_ini_entry *e, size_t off,
		     const char *why)
{
	char label[WM_INI_QUOTE_MAX];

	wm_ini_error_at(l->err, l->file, e, wm_conf_value_col_at(e, off),
			"invalid value for \"%s\" in %s: %s", e->key,
			wm_ini_section_label(label, sizeof(label), e->section),
			why);
	return -EINVAL;
}

int
wm_conf_bad_value(struct loader *l, const struct wm_ini_entry *e,
		  const char *why)
{
	return wm_conf_bad_value_at(l, e, 0, why);
}

int
wm_conf_missing_key(struct loader *l, const struct wm_ini_section *sec,
		    const char *key)
{
	char label[WM_INI_QUOTE_MAX];

	wm_ini_error_set(l->err, l->file, sec->line, sec->col,
			 "missing key \"%s\" in %s", key,
			 wm_ini_section_label(label, sizeof(label), sec));
	return -EINVAL;
}

/* Typed getters: 0 if absent (default kept) or valid, else -EINVAL. */

int
wm_conf_get_duration(struct loader *l, struct wm_ini_section *sec,
		     const char *key, bool positive, int64_t *ms)
{
	struct wm_ini_entry *e = wm_conf_lookup(l, sec, key);
	char why[WM_UNITS_WHY_MAX];

	if (e == NULL)
		return 0;
	if (wm_units_duration_ms(e->value, ms, why, sizeof(why)) != 0)
		return wm_conf_bad_value(l, e, why);
	if (positive && *ms <= 0)
		return wm_conf_bad_value(l, e, "must be positive");
	return 0;
}

int
wm_conf_get_count(struct loader *l, struct wm_ini_section *sec, const char *key,
		  uint64_t min, uint64_t max, uint64_t *v)
{
	struct wm_ini_entry *e = wm_conf_lookup(l, sec, key);
	char why[WM_UNITS_WHY_MAX];

	if (e == NULL)
		return 0;
	if (wm_units_count(e->value, v, why, sizeof(why)) != 0)
		return wm_conf_bad_value(l, e, why);
	if (*v < min || *v > max) {
		snprintf(why, sizeof(why), "must be between %llu and %llu",
			 (unsigned long long)min, (unsigned long long)max);
		return wm_conf_bad_value(l, e, why);
	}
	return 0;
}

int
wm_conf_get_u32(struct loader *l, struct wm_ini_section *sec, const char *key,
		uint32_t min, uint32_t max, uint32_t *v)
{
	uint64_t x = *v;
	int r = wm_conf_get_count(l, sec, key, min, max, &x);

	*v = (uint32_t)x;
	return r;
}

int
wm_conf_get_number(struct loader *l, struct wm_ini_section *sec,
		   const char *key, double min, double max, double *v)
{
	struct wm_ini_entry *e = wm_conf_lookup(l, sec, key);
	char why[WM_UNITS_WHY_MAX];
	double x;

	if (e == NULL)
		return 0;
	if (wm_units_number(e->value, &x, why, sizeof(why)) != 0)
		return wm_conf_bad_value(l, e, why);
	if (!(x >= min && x <= max)) {
		snprintf(why, sizeof(why), "expected a number from %g to %g",
			 min, max);
		return wm_conf_bad_value(l, e, why);
	}
	*v = x;
	return 0;
}

int
wm_conf_get_enum(struct loader *l, struct wm_ini_section *sec, const char *key,
		 const char *const *names, size_t n, size_t *idx)
{
	struct wm_ini_entry *e = wm_conf_lookup(l, sec, key);
	char why[WM_UNITS_WHY_MAX];

	if (e == NULL)
		return 0;
	if (wm_units_enum(e->value, key, names, n, idx, why, sizeof(why)) != 0)
		return wm_conf_bad_value(l, e, why);
	return 0;
}

int
wm_conf_get_bool(struct loader *l, struct wm_ini_section *sec, const char *key,
		 bool *v)
{
	struct wm_ini_entry *e = wm_conf_lookup(l, sec, key);
	char why[WM_UNITS_WHY_MAX];

	if (e == NULL)
		return 0;
	if (wm_units_bool(e->value, v, why, sizeof(why)) != 0)
		return wm_conf_bad_value(l, e, why);
	return 0;
}

/* ring_size: bytes of each channel's ring, a power of two of cells. */
int
wm_conf_get_ring_size(struct loader *l, struct wm_ini_section *sec,
		      uint32_t *cells)
{
	struct wm_ini_entry *e = wm_conf_lookup(l, sec, "ring_size");
	char why[WM_UNITS_WHY_MAX + 80];
	uint64_t bytes, n;

	if (e == NULL)
		return 0;
	if (wm_units_size(e->value, &bytes, why, sizeof(why)) != 0)
		return wm_conf_bad_value(l, e, why);
	n = bytes / WM_CELL_SIZE;
	if (bytes % WM_CELL_SIZE != 0 || n < WM_RING_MIN_CELLS ||
	    n > WM_RING_MAX_CELLS || (n & (n - 1)) != 0) {
		snprintf(why, sizeof(why),
			 "must be a power of two from %u to %u bytes (%u-byte "
			 "cells)",
			 WM_RING_MIN_CELLS * WM_CELL_SIZE,
			 WM_RING_MAX_CELLS * WM_CELL_SIZE, WM_CELL_SIZE);
		return wm_conf_bad_value(l, e, why);
	}
	*cells = (uint32_t)n;
	return 0;
}

int
wm_conf_get_string(struct loader *l, struct wm_ini_section *sec,
		   const char *key, char **v)
{
	struct wm_ini_entry *e = wm_conf_lookup(l, sec, key);

	if (e == NULL)
		return 0;
	if (e->value[0] == '\0')
		return wm_conf_bad_value(l, e, "must not be empty");
	free(*v);
	*v = strdup(e->value);
	return *v == NULL ? -ENOMEM : 0;
}

int
wm_conf_stage_kind(const char *kind, enum wm_stage_kind *out)
{
	for (size_t k = 0; k < N_ELEMS(stage_kind_names); k++)
		if (strcmp(kind, stage_kind_names[k]) == 0) {
			*out = (enum wm_stage_kind)k;
			return 0;
		}
	return -EINVAL;
}

bool
wm_topology_key_known(const char *kind, const char *key, const char **suggest)
{
	static const enum wm_stage_kind stage_kinds[] = {
		WM_STAGE_SOURCE, WM_STAGE_KEYBY, WM_STAGE_WINDOW, WM_STAGE_SINK,
		WM_STAGE_JOIN};
	bool global = strcmp(kind, "global") == 0;
	enum wm_stage_kind k;
	const char *const *keys = NULL;
	size_t n = 0;

	*suggest = NULL;
	if (strcmp(kind, "job") == 0) {
		*suggest = wm_ini_suggest(key, job_keys, N_ELEMS(job_keys));
		return wm_conf_in_list(key, job_keys, N_ELEMS(job_keys));
	}
	/* [global] gives defaults for the keys of every stage kind. */
	for (size_t i = 0; i < N_ELEMS(stage_kinds); i++) {
		if (global)
			k = stage_kinds[i];
		else if (wm_conf_stage_kind(kind, &k) != 0 || i > 0)
			break;
		wm_conf_keys_of(k, &keys, &n);
		if (wm_conf_in_list(key, keys, n))
			return true;
		if (*suggest == NULL)
			*suggest = wm_ini_suggest(key, keys, n);
	}
	return false;
}
