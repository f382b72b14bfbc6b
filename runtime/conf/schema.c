/*
 * schema.c
 *	The section kinds of topology.conf and the keys each takes (from
 *	key_table.c), and reading a key's value as a duration, a count, a
 *	number, a choice, a flag, a size or a string, with the error at its
 *	column.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipc/ring.h"
#include "runtime/conf/key_table.h"
#include "runtime/conf/loader.h"
#include "runtime/conf/topology.h"
#include "lib/units.h"

static const char *const stage_kind_names[] = {
	[WM_STAGE_SOURCE] = "source", [WM_STAGE_KEYBY] = "keyby",
	[WM_STAGE_WINDOW] = "window", [WM_STAGE_SINK] = "sink",
	[WM_STAGE_JOIN] = "join",     [WM_STAGE_MAP] = "map",
};
_Static_assert(N_ELEMS(stage_kind_names) == WM_STAGE_KINDS,
	       "a name for every stage kind");

static const char *const partitioning_names[] = {
	[WM_PARTITION_FORWARD] = "forward",
	[WM_PARTITION_HASH] = "hash",
	[WM_PARTITION_REBALANCE] = "rebalance",
	[WM_PARTITION_BROADCAST] = "broadcast",
};

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

const struct wm_key_table_section *
wm_conf_keys_of(enum wm_stage_kind kind)
{
	return wm_key_table_section(stage_kind_names[kind]);
}

bool
wm_conf_stage_key(const char *key)
{
	for (int k = 0; k < WM_STAGE_KINDS; k++)
		if (wm_key_table_find(wm_conf_keys_of((enum wm_stage_kind)k),
				      key) != NULL)
			return true;
	return false;
}

const char *
wm_conf_stage_key_suggest(const char *key)
{
	const char *guess = NULL;

	for (int k = 0; k < WM_STAGE_KINDS && guess == NULL; k++)
		guess = wm_key_table_suggest(
			wm_conf_keys_of((enum wm_stage_kind)k), key);
	return guess;
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
	const struct wm_key_table_section *keys;

	*suggest = NULL;
	if (strcmp(kind, "global") != 0) {
		keys = wm_key_table_section(kind);
		if (keys == NULL)
			return false;
		if (wm_key_table_find(keys, key) != NULL)
			return true;
		*suggest = wm_key_table_suggest(keys, key);
		return false;
	}
	/* [global] gives defaults for the keys of every stage kind. */
	if (wm_conf_stage_key(key))
		return true;
	*suggest = wm_conf_stage_key_suggest(key);
	return false;
}
