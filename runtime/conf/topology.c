/*
 * topology.c
 *	topology.conf -> struct wm_topology: keys, units, defaults, edges,
 *	and every check that can be made before anything runs.
 *
 * Values are looked up in the stage's section first, then in [global]
 * (for stage keys). Every lookup marks the entry used, so what is left
 * unused at the end is an unknown key, reported with a did-you-mean.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "operators/behaviour.h"
#include "operators/keygroup.h"
#include "ipc/ring.h"
#include "runtime/conf/cpulist.h"
#include "runtime/conf/topology.h"
#include "runtime/conf/units.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static const char *const job_keys[] = {
	"name",
	"event_time",
	"processing_time",
	"records",
	"speed",
	"seed",
	"stall_threshold",
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
	"idle_timeout",
	"watermark_interval",
	"values",
	"silence",
	"skew",
	"burst",
	"outage",
	"replay",
	"pacing",
	"on_bad_record",
	"watermark_alignment_group",
	"watermark_alignment_max_drift",
	"watermark_alignment_update_interval",
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
	"late_output",
};

static const char *const sink_keys[] = {"input", "parallelism", "partitioning",
					"format", "path"};

static const char *const stage_kind_names[] = {
	[WM_STAGE_SOURCE] = "source",
	[WM_STAGE_KEYBY] = "keyby",
	[WM_STAGE_WINDOW] = "window",
	[WM_STAGE_SINK] = "sink",
};

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

const char *
wm_partitioning_name(enum wm_partitioning kind)
{
	return partitioning_names[kind];
}

/* The edges out of `stage`, sinks included or not. */
static uint32_t
edges_from(const struct wm_topology *t, uint32_t stage, bool sinks,
	   struct wm_topology_edge *edges, uint32_t max)
{
	uint32_t n = 0;

	for (uint32_t s = 0; s < t->n_stages; s++) {
		if (!sinks && t->stages[s].kind == WM_STAGE_SINK)
			continue;
		for (uint32_t k = 0; k < t->stages[s].n_inputs; k++) {
			if (t->stages[s].inputs[k].stage != stage)
				continue;
			if (n < max)
				edges[n] = (struct wm_topology_edge){s, k};
			n++;
		}
	}
	return n;
}

uint32_t
wm_topology_out_edges(const struct wm_topology *t, uint32_t stage,
		      struct wm_topology_edge *edges, uint32_t max)
{
	return edges_from(t, stage, true, edges, max);
}

uint32_t
wm_topology_data_edges(const struct wm_topology *t, uint32_t stage,
		       struct wm_topology_edge *edges, uint32_t max)
{
	return edges_from(t, stage, false, edges, max);
}

uint32_t
wm_topology_input_width(const struct wm_topology *t, uint32_t stage,
			uint32_t input)
{
	const struct wm_stage_input *in = &t->stages[stage].inputs[input];

	return in->edge == WM_PARTITION_FORWARD
		       ? 1
		       : t->stages[in->stage].parallelism;
}

uint32_t
wm_topology_input_channels(const struct wm_topology *t, uint32_t stage)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < t->stages[stage].n_inputs; k++)
		n += wm_topology_input_width(t, stage, k);
	return n;
}

uint32_t
wm_topology_input_channel(const struct wm_topology *t, uint32_t stage,
			  uint32_t input, uint32_t up)
{
	uint32_t offset = 0;

	for (uint32_t k = 0; k < input; k++)
		offset += wm_topology_input_width(t, stage, k);
	/* A forward edge has one channel whatever the upstream index. */
	return offset +
	       (t->stages[stage].inputs[input].edge == WM_PARTITION_FORWARD
			? 0
			: up);
}

struct loader {
	/* The caller's name of the file: errors outlive the document. */
	const char *file;
	struct wm_ini_doc *doc;
	struct wm_ini_error *err;
	struct wm_topology *t;
	struct wm_ini_section *global;
	/* The input entry of each stage, to report unknown stage names. */
	struct wm_ini_entry **input_entry;
};

static bool
in_list(const char *key, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(key, list[i]) == 0)
			return true;
	return false;
}

static void
keys_of(enum wm_stage_kind kind, const char *const **keys, size_t *n)
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
	}
}

/* The entry for `key` of a stage section: its own, else [global]'s. */
static struct wm_ini_entry *
lookup(struct loader *l, struct wm_ini_section *sec, const char *key)
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
static int
value_col_at(const struct wm_ini_entry *e, size_t off)
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
static int
bad_value_at(struct loader *l, const struct wm_ini_entry *e, size_t off,
	     const char *why)
{
	char label[WM_INI_QUOTE_MAX];

	wm_ini_error_set(l->err, l->file, e->line, value_col_at(e, off),
			 "invalid value for \"%s\" in %s: %s", e->key,
			 wm_ini_section_label(label, sizeof(label), e->section),
			 why);
	return -EINVAL;
}

static int
bad_value(struct loader *l, const struct wm_ini_entry *e, const char *why)
{
	return bad_value_at(l, e, 0, why);
}

static int
missing_key(struct loader *l, const struct wm_ini_section *sec, const char *key)
{
	char label[WM_INI_QUOTE_MAX];

	wm_ini_error_set(l->err, l->file, sec->line, sec->col,
			 "missing key \"%s\" in %s", key,
			 wm_ini_section_label(label, sizeof(label), sec));
	return -EINVAL;
}

/* Typed getters: 0 if absent (default kept) or valid, else -EINVAL. */

static int
get_duration(struct loader *l, struct wm_ini_section *sec, const char *key,
	     bool positive, int64_t *ms)
{
	struct wm_ini_entry *e = lookup(l, sec, key);
	char why[WM_UNITS_WHY_MAX];

	if (e == NULL)
		return 0;
	if (wm_units_duration_ms(e->value, ms, why, sizeof(why)) != 0)
		return bad_value(l, e, why);
	if (positive && *ms <= 0)
		return bad_value(l, e, "must be positive");
	return 0;
}

static int
get_count(struct loader *l, struct wm_ini_section *sec, const char *key,
	  uint64_t min, uint64_t max, uint64_t *v)
{
	struct wm_ini_entry *e = lookup(l, sec, key);
	char why[WM_UNITS_WHY_MAX];

	if (e == NULL)
		return 0;
	if (wm_units_count(e->value, v, why, sizeof(why)) != 0)
		return bad_value(l, e, why);
	if (*v < min || *v > max) {
		snprintf(why, sizeof(why), "must be between %llu and %llu",
			 (unsigned long long)min, (unsigned long long)max);
		return bad_value(l, e, why);
	}
	return 0;
}

static int
get_u32(struct loader *l, struct wm_ini_section *sec, const char *key,
	uint32_t min, uint32_t max, uint32_t *v)
{
	uint64_t x = *v;
	int r = get_count(l, sec, key, min, max, &x);

	*v = (uint32_t)x;
	return r;
}

static int
get_number(struct loader *l, struct wm_ini_section *sec, const char *key,
	   double min, double max, double *v)
{
	struct wm_ini_entry *e = lookup(l, sec, key);
	char why[WM_UNITS_WHY_MAX];
	double x;

	if (e == NULL)
		return 0;
	if (wm_units_number(e->value, &x, why, sizeof(why)) != 0)
		return bad_value(l, e, why);
	if (!(x >= min && x <= max)) {
		snprintf(why, sizeof(why), "expected a number from %g to %g",
			 min, max);
		return bad_value(l, e, why);
	}
	*v = x;
	return 0;
}

static int
get_enum(struct loader *l, struct wm_ini_section *sec, const char *key,
	 const char *const *names, size_t n, size_t *idx)
{
	struct wm_ini_entry *e = lookup(l, sec, key);
	char why[WM_UNITS_WHY_MAX];

	if (e == NULL)
		return 0;
	if (wm_units_enum(e->value, key, names, n, idx, why, sizeof(why)) != 0)
		return bad_value(l, e, why);
	return 0;
}

static int
get_bool(struct loader *l, struct wm_ini_section *sec, const char *key, bool *v)
{
	struct wm_ini_entry *e = lookup(l, sec, key);
	char why[WM_UNITS_WHY_MAX];

	if (e == NULL)
		return 0;
	if (wm_units_bool(e->value, v, why, sizeof(why)) != 0)
		return bad_value(l, e, why);
	return 0;
}

/* ring_size: bytes of each channel's ring, a power of two of cells. */
static int
get_ring_size(struct loader *l, struct wm_ini_section *sec, uint32_t *cells)
{
	struct wm_ini_entry *e = lookup(l, sec, "ring_size");
	char why[WM_UNITS_WHY_MAX + 80];
	uint64_t bytes, n;

	if (e == NULL)
		return 0;
	if (wm_units_size(e->value, &bytes, why, sizeof(why)) != 0)
		return bad_value(l, e, why);
	n = bytes / WM_CELL_SIZE;
	if (bytes % WM_CELL_SIZE != 0 || n < WM_RING_MIN_CELLS ||
	    n > WM_RING_MAX_CELLS || (n & (n - 1)) != 0) {
		snprintf(why, sizeof(why),
			 "must be a power of two from %u to %u bytes (%u-byte "
			 "cells)",
			 WM_RING_MIN_CELLS * WM_CELL_SIZE,
			 WM_RING_MAX_CELLS * WM_CELL_SIZE, WM_CELL_SIZE);
		return bad_value(l, e, why);
	}
	*cells = (uint32_t)n;
	return 0;
}

static int
get_string(struct loader *l, struct wm_ini_section *sec, const char *key,
	   char **v)
{
	struct wm_ini_entry *e = lookup(l, sec, key);

	if (e == NULL)
		return 0;
	if (e->value[0] == '\0')
		return bad_value(l, e, "must not be empty");
	free(*v);
	*v = strdup(e->value);
	return *v == NULL ? -ENOMEM : 0;
}

/* ------------------------------------------------------------------ */
/* [job] */

static int
load_job(struct loader *l, struct wm_ini_section *sec)
{
	struct wm_job_conf *job = &l->t->job;
	static const enum wm_behaviour_flag flags[] = {
		WM_IDLE_MARK_ONCE,
		WM_MUX_ALLIDLE_FLUSH_MAX,
		WM_VALVE_FLUSH_UNCONDITIONAL,
		WM_VALVE_REDERIVE_ON_ACTIVE,
		WM_MUX_EMPTY_IS_IDLE,
		WM_MUX_REACTIVATE,
		WM_DRAIN_ACTIVE_BEFORE_MAX,
	};
	struct wm_ini_entry *e;
	int r = 0;

	job->event_time_ms = INT64_MAX;
	job->processing_time_ms = INT64_MAX;
	job->records = UINT64_MAX;
	job->speed = 1.0;
	job->seed = 1;
	job->behaviour = WM_BEHAVIOUR_RELEASED;
	job->watermark_interval_ms = WM_WATERMARK_DEFAULT_INTERVAL_MS;
	job->stall_threshold_ms = 10000;
	job->ring_cells = WM_TOPOLOGY_RING_CELLS;
	if (sec == NULL)
		return 0;
	if ((r = get_ring_size(l, sec, &job->ring_cells)) != 0)
		return r;
	if ((r = get_string(l, sec, "name", &job->name)) != 0 ||
	    (r = get_string(l, sec, "cpus", &job->cpus)) != 0 ||
	    (r = get_duration(l, sec, "event_time", true,
			      &job->event_time_ms)) != 0 ||
	    (r = get_duration(l, sec, "processing_time", true,
			      &job->processing_time_ms)) != 0 ||
	    (r = get_count(l, sec, "records", 1, UINT64_MAX - 1,
			   &job->records)) != 0 ||
	    (r = get_number(l, sec, "speed", 1e-6, 1e9, &job->speed)) != 0 ||
	    (r = get_count(l, sec, "seed", 0, UINT64_MAX, &job->seed)) != 0 ||
	    (r = get_duration(l, sec, "stall_threshold", true,
			      &job->stall_threshold_ms)) != 0 ||
	    (r = get_bool(l, sec,
			  "pipeline.watermark-alignment.allow-unaligned-"
			  "source-splits",
			  &job->allow_unaligned_source_splits)) != 0 ||
	    (r = get_duration(l, sec, "pipeline.auto-watermark-interval", false,
			      &job->watermark_interval_ms)) != 0)
		return r;
	e = wm_ini_get(sec, "flink_behaviour");
	if (e != NULL) {
		const char *bad;
		int bad_len;
		char why[160];

		if (wm_behaviour_parse(e->value, &job->behaviour, &bad,
				       &bad_len) != 0) {
			snprintf(why, sizeof(why),
				 "unrecognized behaviour \"%.*s\" (use "
				 "released, master or flag names)",
				 bad_len > 40 ? 40 : bad_len, bad);
			return bad_value(l, e, why);
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
		if ((r = get_bool(l, sec, key, &on)) != 0)
			return r;
		job->behaviour = on ? job->behaviour | flags[i]
				    : job->behaviour & ~(unsigned)flags[i];
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Stages */

/*
 * The values of skew, silence and burst ("shapes" of a synthetic source):
 * blank-separated words
 *
 *	PARTITIONS [xF] [every D] [for D] [from D] [to D]
 *
 * PARTITIONS	FIRST or FIRST-LAST (digits), partitions of the source
 * xF		a rate multiplier, F > 0 and finite: skew and burst need one,
 *		silence takes none
 * every D	periodic: a window starts every D from `from` on...
 * for D	... and lasts D (shorter than every D; needed with every);
 *		without every: the one window lasts D from `from` (instead
 *		of "to")
 * from D	the first window starts here (default 0: the job start)
 * to D		no window reaches past here (default: for ever)
 *
 * in processing time since the job start; D is a duration, possibly of
 * several words ("10 min"). The schedule words come in any order, each at
 * most once; skew takes none (it holds for the whole job). A part that is
 * wrong by itself is reported at its column, a wrong combination at the
 * value's.
 */
enum shape_kind { SHAPE_SKEW, SHAPE_SILENCE, SHAPE_BURST, SHAPE_OUTAGE };

struct shape_key {
	enum shape_kind kind;
	const char *key;
	bool multiplier; /* needs xF */
	bool schedule;	 /* takes every, for, from, to */
	const char *usage;
};

static const struct shape_key shape_keys[] = {
	{SHAPE_SKEW, "skew", true, false, "FIRST[-LAST] xFACTOR"},
	{SHAPE_SILENCE, "silence", false, true,
	 "FIRST[-LAST] [every DURATION] [for DURATION] [from DURATION] "
	 "[to DURATION]"},
	{SHAPE_BURST, "burst", true, true,
	 "FIRST[-LAST] xFACTOR [every DURATION] [for DURATION] "
	 "[from DURATION] [to DURATION]"},
	{SHAPE_OUTAGE, "outage", false, true,
	 "FIRST[-LAST] [every DURATION] [for DURATION] [from DURATION] "
	 "[to DURATION]"},
};

enum { SHAPE_EVERY, SHAPE_FOR, SHAPE_FROM, SHAPE_TO, SHAPE_N_WORDS };

static const char *const shape_words[SHAPE_N_WORDS] = {"every", "for", "from",
						       "to"};

struct word {
	size_t off, len; /* in the entry's value */
};

#define SHAPE_MAX_WORDS 16

static int
shape_word(const char *value, const struct word *w)
{
	for (int k = 0; k < SHAPE_N_WORDS; k++)
		if (strlen(shape_words[k]) == w->len &&
		    strncmp(value + w->off, shape_words[k], w->len) == 0)
			return k;
	return -1;
}

static int
shape_usage(struct loader *l, const struct wm_ini_entry *e,
	    const struct shape_key *sk)
{
	char why[200];

	snprintf(why, sizeof(why), "expected \"%s\"", sk->usage);
	return bad_value(l, e, why);
}

/* PARTITIONS: FIRST or FIRST-LAST, in digits. */
static int
parse_partitions(struct loader *l, const struct wm_ini_entry *e,
		 const struct shape_key *sk, const struct word *w,
		 uint64_t bound[2])
{
	const char *p = e->value + w->off, *end = p + w->len;
	int n = 0;

	bound[0] = bound[1] = 0;
	while (n < 2) {
		const char *digits = p;

		while (p < end && isdigit((unsigned char)*p) &&
		       bound[n] <= UINT32_MAX)
			bound[n] = bound[n] * 10 + (uint64_t)(*p++ - '0');
		if (p == digits || (p < end && isdigit((unsigned char)*p)))
			return shape_usage(l, e, sk);
		n++;
		if (p == end)
			break;
		if (*p++ != '-' || n == 2)
			return shape_usage(l, e, sk);
	}
	if (n == 1)
		bound[1] = bound[0];
	return 0;
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
	if ((r = get_string(l, sec, "watermark_alignment_group",
			    &src->alignment_group)) != 0 ||
	    (r = get_duration(l, sec, "watermark_alignment_max_drift", false,
			      &src->alignment_max_drift_ms)) != 0 ||
	    (r = get_duration(l, sec, "watermark_alignment_update_interval",
			      true, &src->alignment_update_interval_ms)) != 0)
		return r;
	group = lookup(l, sec, "watermark_alignment_group");
	drift = lookup(l, sec, "watermark_alignment_max_drift");
	if ((group == NULL) != (drift == NULL)) {
		wm_ini_error_set(
			l->err, l->file, sec->line, sec->col,
			"%s: watermark_alignment_group and "
			"watermark_alignment_max_drift go together",
			wm_ini_section_label(label, sizeof(label), sec));
		return -EINVAL;
	}
	/* A trace is one file read in order: it cannot hold back one
	 * partition while reading the others. Flink throws at run time for
	 * such readers unless told to align whole subtasks only. */
	if (group != NULL && src->replay != NULL &&
	    !l->t->job.allow_unaligned_source_splits)
		return bad_value(l, group,
				 "a replayed trace cannot pause single "
				 "partitions; set pipeline.watermark-"
				 "alignment.allow-unaligned-source-splits = "
				 "true in [job] to align whole subtasks only");
	return 0;
}

/* FIRST <= LAST < partitions, for the partitions in word w. */
static int
check_partitions(struct loader *l, const struct wm_ini_entry *e,
		 const struct word *w, const uint64_t bound[2],
		 uint32_t partitions, struct wm_source_gen_burst *sh)
{
	int len = (int)(w->len < 40 ? w->len : 40);
	char why[160];

	if (bound[0] > bound[1]) {
		snprintf(why, sizeof(why),
			 "expected FIRST <= LAST, not \"%.*s\"", len,
			 e->value + w->off);
		return bad_value_at(l, e, w->off, why);
	}
	if (bound[1] >= partitions) {
		snprintf(why, sizeof(why),
			 "expected partitions from 0 to %u (the source has "
			 "%u), not \"%.*s\"",
			 partitions - 1, partitions, len, e->value + w->off);
		return bad_value_at(l, e, w->off, why);
	}
	sh->first_partition = (uint32_t)bound[0];
	sh->last_partition = (uint32_t)bound[1];
	return 0;
}

/* xF: F a plain decimal number above 0. */
static int
parse_multiplier(struct loader *l, const struct wm_ini_entry *e,
		 const struct word *w, struct wm_source_gen_burst *sh)
{
	const char *p = e->value + w->off;
	char text[64], *end;
	char why[200];
	double f = 0;

	if (w->len < sizeof(text) && p[0] == 'x' &&
	    (isdigit((unsigned char)p[1]) || p[1] == '.')) {
		memcpy(text, p + 1, w->len - 1);
		text[w->len - 1] = '\0';
		errno = 0;
		f = strtod(text, &end);
		/* Decimal only: strtod() would take "0x10" and "inf". */
		if (*end != '\0' || errno != 0 ||
		    strspn(text, "0123456789.eE+-") != w->len - 1)
			f = 0;
	}
	if (!(f > 0) || !isfinite(f)) {
		snprintf(why, sizeof(why),
			 "invalid multiplier \"%.*s\" (expected x and a number "
			 "above 0, as in x10 or x0.01)",
			 (int)(w->len < 40 ? w->len : 40), p);
		return bad_value_at(l, e, w->off, why);
	}
	sh->factor = f;
	return 0;
}

/* The schedule words from words[i] on into dur[] (-1: not given). */
static int
parse_schedule(struct loader *l, const struct wm_ini_entry *e,
	       const struct shape_key *sk, const struct word *words, size_t i,
	       size_t n, int64_t dur[SHAPE_N_WORDS])
{
	char text[256], why[WM_UNITS_WHY_MAX + 64];

	while (i < n) {
		int k = sk->schedule ? shape_word(e->value, &words[i]) : -1;
		const struct word *w = &words[i];
		size_t j = i + 1, len;

		if (k < 0) {
			snprintf(why, sizeof(why), "unexpected \"%.*s\" %s",
				 (int)(w->len < 40 ? w->len : 40),
				 e->value + w->off,
				 sk->schedule
					 ? "(expected every, for, from or to)"
					 : "(a skew holds for the whole job; "
					   "a burst holds for a while)");
			return bad_value_at(l, e, w->off, why);
		}
		if (dur[k] >= 0) {
			snprintf(why, sizeof(why), "\"%s\" given twice",
				 shape_words[k]);
			return bad_value_at(l, e, w->off, why);
		}
		while (j < n && shape_word(e->value, &words[j]) < 0)
			j++;
		if (j == i + 1) {
			snprintf(why, sizeof(why), "\"%s\" needs a duration",
				 shape_words[k]);
			return bad_value_at(l, e, w->off, why);
		}
		/* The duration: its words and the blanks between them. */
		len = words[j - 1].off + words[j - 1].len - words[i + 1].off;
		if (len >= sizeof(text))
			return bad_value_at(l, e, words[i + 1].off, "too long");
		memcpy(text, e->value + words[i + 1].off, len);
		text[len] = '\0';
		if (wm_units_duration_ms(text, &dur[k], why, sizeof(why)) != 0)
			return bad_value_at(l, e, words[i + 1].off, why);
		if ((k == SHAPE_EVERY || k == SHAPE_FOR) && dur[k] == 0) {
			snprintf(why, sizeof(why), "\"%s\" must be positive",
				 shape_words[k]);
			return bad_value_at(l, e, words[i + 1].off, why);
		}
		i = j;
	}
	return 0;
}

/* The windows of a shape from its schedule words: checks that need more
 * than one word. */
static int
shape_windows(struct loader *l, const struct wm_ini_entry *e,
	      const int64_t dur[SHAPE_N_WORDS], struct wm_source_gen_burst *sh)
{
	sh->from_ms = dur[SHAPE_FROM] < 0 ? 0 : dur[SHAPE_FROM];
	sh->to_ms = dur[SHAPE_TO] < 0 ? INT64_MAX : dur[SHAPE_TO];
	sh->period_ms = 0;
	sh->length_ms = 0;
	if (dur[SHAPE_EVERY] >= 0) {
		if (dur[SHAPE_FOR] < 0)
			return bad_value(l, e,
					 "\"every\" needs \"for\": how long "
					 "each period's window lasts");
		if (dur[SHAPE_FOR] >= dur[SHAPE_EVERY])
			return bad_value(l, e,
					 "\"for\" must be shorter than "
					 "\"every\"");
		sh->period_ms = dur[SHAPE_EVERY];
		sh->length_ms = dur[SHAPE_FOR];
	} else if (dur[SHAPE_FOR] >= 0) {
		if (dur[SHAPE_TO] >= 0)
			return bad_value(l, e,
					 "give \"for\" or \"to\", not both "
					 "(without \"every\", both end the "
					 "window)");
		if (__builtin_add_overflow(sh->from_ms, dur[SHAPE_FOR],
					   &sh->to_ms))
			return bad_value(l, e,
					 "\"from\" plus \"for\" is out of "
					 "range");
	}
	if (sh->to_ms <= sh->from_ms)
		return bad_value(l, e, "\"to\" must come after \"from\"");
	return 0;
}

/* One skew, silence or burst value (see above) into *sh; its factor is 1
 * if the key takes none, its windows the whole job if it takes none. */
static int
parse_shape(struct loader *l, const struct wm_ini_entry *e,
	    const struct shape_key *sk, uint32_t partitions,
	    struct wm_source_gen_burst *sh)
{
	struct word words[SHAPE_MAX_WORDS];
	int64_t dur[SHAPE_N_WORDS] = {-1, -1, -1, -1};
	uint64_t bound[2];
	size_t n = 0, i = 1, off = 0;
	int r;

	for (;;) {
		off += strspn(e->value + off, " \t");
		if (e->value[off] == '\0')
			break;
		if (n == SHAPE_MAX_WORDS)
			return bad_value_at(l, e, off, "too many words");
		words[n].off = off;
		words[n].len = strcspn(e->value + off, " \t");
		off += words[n++].len;
	}
	if (n == 0)
		return shape_usage(l, e, sk);
	if ((r = parse_partitions(l, e, sk, &words[0], bound)) != 0)
		return r;
	sh->factor = 1;
	if (sk->multiplier) {
		if (n < 2)
			return bad_value_at(l, e, e->value_len,
					    "expected a multiplier after the "
					    "partitions, as in x10");
		if ((r = parse_multiplier(l, e, &words[1], sh)) != 0)
			return r;
		i = 2;
	}
	if ((r = parse_schedule(l, e, sk, words, i, n, dur)) != 0 ||
	    (r = shape_windows(l, e, dur, sh)) != 0)
		return r;
	return check_partitions(l, e, &words[0], bound, partitions, sh);
}

/* A silence or an outage: the partitions and windows of a shape. */
static int
add_window(struct wm_source_gen_silence **windows, uint32_t *n,
	   const struct wm_source_gen_burst *sh)
{
	void *grown = realloc(*windows, (*n + 1) * sizeof(**windows));

	if (grown == NULL)
		return -ENOMEM;
	*windows = grown;
	(*windows)[(*n)++] = (struct wm_source_gen_silence){
		.first_partition = sh->first_partition,
		.last_partition = sh->last_partition,
		.from_ms = sh->from_ms,
		.to_ms = sh->to_ms,
		.period_ms = sh->period_ms,
		.length_ms = sh->length_ms,
	};
	return 0;
}

/* Apply one parsed shape of the given kind to the source (a shape is
 * parsed as a burst: partitions, windows and a factor). */
static int
add_shape(struct wm_source_conf *src, enum shape_kind kind,
	  const struct wm_source_gen_burst *sh)
{
	void *grown;

	switch (kind) {
	case SHAPE_SKEW: /* later entries override earlier ones */
		if (src->skew == NULL) {
			src->skew = malloc(src->partitions * sizeof(double));
			if (src->skew == NULL)
				return -ENOMEM;
			src->n_skew = src->partitions;
			for (uint32_t p = 0; p < src->partitions; p++)
				src->skew[p] = 1.0;
		}
		for (uint32_t p = sh->first_partition; p <= sh->last_partition;
		     p++)
			src->skew[p] = sh->factor;
		return 0;
	case SHAPE_SILENCE:
		return add_window(&src->silences, &src->n_silences, sh);
	case SHAPE_OUTAGE:
		return add_window(&src->outages, &src->n_outages, sh);
	case SHAPE_BURST:
		grown = realloc(src->bursts,
				(src->n_bursts + 1) * sizeof(*src->bursts));
		if (grown == NULL)
			return -ENOMEM;
		src->bursts = grown;
		src->bursts[src->n_bursts++] = *sh;
		return 0;
	}
	return -EINVAL;
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
	return bad_value(l, lookup(l, sec, key), why);
}

/*
 * Whether every partition's rate stays finite and positive under all the
 * bursts at once, as the generator requires (source_gen.h). Bursts are
 * counted whatever partitions and times they cover: an upper bound, and
 * only factors near 1e300 can reach it.
 */
static bool
burst_rates_finite(const struct wm_source_conf *src)
{
	double base = isinf(src->rate) ? 1.0 : src->rate;
	double highest = base, lowest = base;

	for (uint32_t p = 0; p < src->n_skew; p++) {
		if (src->skew[p] * base > highest)
			highest = src->skew[p] * base;
		if (src->skew[p] * base < lowest)
			lowest = src->skew[p] * base;
	}
	for (uint32_t i = 0; i < src->n_bursts; i++) {
		if (src->bursts[i].factor > 1)
			highest *= src->bursts[i].factor;
		else
			lowest *= src->bursts[i].factor;
	}
	return isfinite(highest) && lowest > 0;
}

static int
load_source(struct loader *l, struct wm_ini_section *sec, struct wm_stage *st)
{
	static const char *const distributions[] = {"uniform", "zipf"};
	static const char *const generators[] = {"bounded", "ascending"};
	struct wm_source_conf *src = &st->u.source;
	struct wm_ini_entry *e;
	size_t idx;
	const char *why;
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
	if ((r = get_u32(l, sec, "partitions", 1, WM_TOPOLOGY_MAX_PARTITIONS,
			 &src->partitions)) != 0)
		return r;
	e = lookup(l, sec, "rate");
	if (e != NULL) {
		char buf[WM_UNITS_WHY_MAX];

		if (wm_units_rate(e->value, &src->rate, buf, sizeof(buf)) != 0)
			return bad_value(l, e, buf);
		if (src->rate <= 0)
			return bad_value(l, e, "must be positive");
	}
	if ((r = get_duration(l, sec, "out_of_orderness", false,
			      &src->out_of_orderness_ms)) != 0 ||
	    (r = get_number(l, sec, "late_fraction", 0, 1,
			    &src->late_fraction)) != 0 ||
	    (r = get_duration(l, sec, "late_by", false, &src->late_by_ms)) !=
		    0 ||
	    (r = get_count(l, sec, "keys", 1, INT64_MAX, &src->keys)) != 0 ||
	    (r = get_number(l, sec, "zipf_exponent", 0, 100,
			    &src->zipf_exponent)) != 0 ||
	    (r = get_u32(l, sec, "values", 1, UINT32_MAX, &src->value_cycle)) !=
		    0)
		return r;
	if ((r = check_delay(l, sec, "out_of_orderness",
			     src->out_of_orderness_ms)) != 0 ||
	    (r = check_delay(l, sec, "late_by", src->late_by_ms)) != 0)
		return r;
	idx = 0;
	if ((r = get_enum(l, sec, "key_distribution", distributions, 2,
			  &idx)) != 0)
		return r;
	src->zipf = idx == 1;
	idx = 0;
	if ((r = get_enum(l, sec, "watermark", generators, 2, &idx)) != 0)
		return r;
	src->strategy.kind =
		idx == 0 ? WM_WATERMARK_BOUNDED : WM_WATERMARK_ASCENDING;
	if (src->strategy.kind == WM_WATERMARK_BOUNDED)
		src->strategy.out_of_orderness_ms = src->out_of_orderness_ms;
	e = lookup(l, sec, "idle_timeout");
	if (e != NULL) {
		char buf[WM_UNITS_WHY_MAX];

		if (wm_units_duration_ms(e->value,
					 &src->strategy.idle_timeout_ms, buf,
					 sizeof(buf)) != 0)
			return bad_value(l, e, buf);
		if (src->strategy.idle_timeout_ms <= 0)
			return bad_value(l, e,
					 "must be positive (Flink rejects "
					 "withIdleness with zero)");
		src->strategy.with_idleness = true;
	}
	if ((r = get_duration(l, sec, "watermark_interval", false,
			      &src->strategy.interval_ms)) != 0)
		return r;
	if (wm_watermark_strategy_check(&src->strategy, &why) != 0) {
		char label[WM_INI_QUOTE_MAX];

		wm_ini_error_set(
			l->err, l->file, sec->line, sec->col,
			"invalid watermark strategy in %s: %s",
			wm_ini_section_label(label, sizeof(label), sec), why);
		return -EINVAL;
	}
	{
		static const char *const pacings[] = {"fast", "arrival",
						      "event"};
		static const char *const on_bad[] = {"fail", "skip"};
		size_t k = 0;

		if ((r = get_string(l, sec, "replay", &src->replay)) != 0 ||
		    (r = get_enum(l, sec, "pacing", pacings, 3, &k)) != 0)
			return r;
		src->pacing = (enum wm_replay_pacing)k;
		k = 0;
		if ((r = get_enum(l, sec, "on_bad_record", on_bad, 2, &k)) != 0)
			return r;
		src->skip_bad_records = k == 1;
	}
	for (size_t k = 0; k < N_ELEMS(shape_keys); k++)
		for (e = lookup(l, sec, shape_keys[k].key); e != NULL;
		     e = wm_ini_get_next((struct wm_ini_section *)e->section,
					 e)) {
			struct wm_source_gen_burst sh = {0};

			if ((r = parse_shape(l, e, &shape_keys[k],
					     src->partitions, &sh)) != 0 ||
			    (r = add_shape(src, shape_keys[k].kind, &sh)) != 0)
				return r;
		}
	if (!burst_rates_finite(src)) {
		struct wm_ini_entry *last = NULL;

		for (e = lookup(l, sec, "burst"); e != NULL;
		     e = wm_ini_get_next((struct wm_ini_section *)e->section,
					 e))
			last = e;
		if (last != NULL) /* else skews alone, which parse_shape
				   * bounds */
			return bad_value(l, last,
					 "with the other bursts and skews, "
					 "this takes a partition's rate past "
					 "what a double holds, or to 0");
	}
	return 0;
}

static int
load_window(struct loader *l, struct wm_ini_section *sec, struct wm_stage *st)
{
	static const char *const types[] = {"tumbling", "sliding", "session"};
	static const char *const aggs[] = {"count", "sum", "min", "max", "avg"};
	struct wm_window_stage_conf *w = &st->u.window;
	int64_t size = 0, slide = 0, gap = 0, offset = 0;
	struct wm_ini_entry *type_entry = lookup(l, sec, "type");
	struct wm_ini_entry *e;
	const char *why = NULL;
	size_t type = 0;
	int r;

	if ((r = get_enum(l, sec, "type", types, 3, &type)) != 0 ||
	    (r = get_duration(l, sec, "size", true, &size)) != 0 ||
	    (r = get_duration(l, sec, "slide", true, &slide)) != 0 ||
	    (r = get_duration(l, sec, "gap", true, &gap)) != 0 ||
	    (r = get_duration(l, sec, "allowed_lateness", false,
			      &w->op.allowed_lateness)) != 0 ||
	    (r = get_bool(l, sec, "purging", &w->op.purging)) != 0 ||
	    (r = get_string(l, sec, "late_output", &w->late_output)) != 0)
		return r;
	/* An offset may be negative ("-8 h" for a UTC+8 day). */
	struct wm_ini_entry *offset_entry = e = lookup(l, sec, "offset");

	if (e != NULL) {
		char buf[WM_UNITS_WHY_MAX];
		bool negative = e->value[0] == '-';

		if (wm_units_duration_ms(e->value + negative, &offset, buf,
					 sizeof(buf)) != 0)
			return bad_value(l, e, buf);
		if (negative)
			offset = -offset;
	}
	if (type != 2 && size == 0)
		return missing_key(l, sec, "size");
	if (type == 1 && slide == 0)
		return missing_key(l, sec, "slide");
	if (type == 2 && gap == 0)
		return missing_key(l, sec, "gap");
	if (type == 0)
		r = wm_window_tumbling(&w->op.assigner, size, offset, &why);
	else if (type == 1)
		r = wm_window_sliding(&w->op.assigner, size, slide, offset,
				      &why);
	else
		r = wm_window_session(&w->op.assigner, gap, &why);
	if (r != 0) {
		/* Point at what the assigner refused: the offset, or the
		 * sizes (given by type and size). */
		e = strstr(why, "offset") && offset_entry ? offset_entry
		    : type_entry			  ? type_entry
				 : lookup(l, sec, "size");
		return bad_value(l, e, why);
	}
	w->op.late_side_output = w->late_output != NULL;
	w->aggregates = WM_AGG_COUNT;
	e = lookup(l, sec, "aggregates");
	if (e != NULL) {
		char list[256];

		if (e->value_len >= sizeof(list))
			return bad_value(l, e, "too long");
		memcpy(list, e->value, e->value_len + 1);
		w->aggregates = 0;
		for (char *save = NULL, *a = strtok_r(list, ", ", &save);
		     a != NULL; a = strtok_r(NULL, ", ", &save)) {
			char buf[WM_UNITS_WHY_MAX];
			size_t k;

			if (wm_units_enum(a, "aggregate", aggs, N_ELEMS(aggs),
					  &k, buf, sizeof(buf)) != 0)
				return bad_value(l, e, buf);
			w->aggregates |= 1u << k;
		}
		if (w->aggregates == 0)
			return bad_value(l, e, "names no aggregate");
	}
	return 0;
}

static int
load_sink(struct loader *l, struct wm_ini_section *sec, struct wm_stage *st)
{
	static const char *const formats[] = {"csv", "jsonl"};
	size_t format = 0;
	int r;

	if ((r = get_enum(l, sec, "format", formats, 2, &format)) != 0 ||
	    (r = get_string(l, sec, "path", &st->u.sink.path)) != 0)
		return r;
	st->u.sink.format = format == 0 ? WM_SINK_CSV : WM_SINK_JSONL;
	if (st->u.sink.path == NULL && (st->u.sink.path = strdup("-")) == NULL)
		return -ENOMEM;
	return 0;
}

static int
stage_kind(const char *kind, enum wm_stage_kind *out)
{
	for (size_t k = 0; k < N_ELEMS(stage_kind_names); k++)
		if (strcmp(kind, stage_kind_names[k]) == 0) {
			*out = (enum wm_stage_kind)k;
			return 0;
		}
	return -EINVAL;
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
	if ((r = get_u32(l, sec, "parallelism", 1, WM_TOPOLOGY_MAX_PARALLELISM,
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

static int
resolve_inputs(struct loader *l, struct wm_ini_section *sec, uint32_t s)
{
	static const char *const edges[] = {"forward", "hash", "rebalance",
					    "broadcast"};
	struct wm_topology *t = l->t;
	struct wm_stage *st = &t->stages[s];
	struct wm_ini_entry *e, *pe;
	const char *p;
	size_t edge = 0;
	bool forced;
	int r;

	/* Before the lookup, which marks the key used: a source has no
	 * input, and check_unused() must say so. */
	if (st->kind == WM_STAGE_SOURCE)
		return 0;
	e = lookup(l, sec, "input");
	if (e == NULL)
		return missing_key(l, sec, "input");
	l->input_entry[s] = e;
	pe = lookup(l, sec, "partitioning");
	forced = pe != NULL;
	if ((r = get_enum(l, sec, "partitioning", edges, 4, &edge)) != 0)
		return r;
	for (p = e->value; *p != '\0';) {
		size_t len = strcspn(p, WM_TOPOLOGY_NAME_SEPARATORS);
		int in;

		if (len == 0) {
			p++;
			continue;
		}
		in = find_stage(t, p, len);
		if (in < 0) {
			char name[128], why[300];
			const char *names[256];
			const char *guess;
			uint32_t n = t->n_stages < 256 ? t->n_stages : 256;

			snprintf(name, sizeof(name), "%.*s",
				 (int)(len < 100 ? len : 100), p);
			for (uint32_t i = 0; i < n; i++)
				names[i] = t->stages[i].name;
			guess = wm_ini_suggest(name, names, n);
			snprintf(why, sizeof(why),
				 "no stage named \"%s\"%s%s%s", name,
				 guess ? " (did you mean \"" : "",
				 guess ? guess : "", guess ? "\"?)" : "");
			return bad_value(l, e, why);
		}
		if ((uint32_t)in == s)
			return bad_value(l, e, "a stage cannot read itself");
		if (wm_topology_out_edges(t, (uint32_t)in, NULL, 0) ==
		    WM_TOPOLOGY_MAX_OUTPUTS) {
			char why[200];

			snprintf(why, sizeof(why),
				 "\"%s\" feeds %u stages already, the most "
				 "one stage can",
				 t->stages[in].name, WM_TOPOLOGY_MAX_OUTPUTS);
			return bad_value(l, e, why);
		}
		for (uint32_t k = 0; k < st->n_inputs; k++)
			if (st->inputs[k].stage == (uint32_t)in) {
				char why[160];

				/* Every record would be counted twice. */
				snprintf(why, sizeof(why), "names \"%s\" twice",
					 t->stages[in].name);
				return bad_value(l, e, why);
			}
		if (st->n_inputs == WM_TOPOLOGY_MAX_INPUTS ||
		    (st->kind != WM_STAGE_WINDOW && st->n_inputs == 1))
			return bad_value(
				l, e,
				st->kind == WM_STAGE_WINDOW
					? "a window reads one or two "
					  "stages"
					: "this stage reads one stage");
		struct wm_stage *up = &t->stages[in];
		enum wm_partitioning kind;

		/* A sink is chained to the window it writes for: same
		 * subtasks, so same parallelism. */
		if (st->kind == WM_STAGE_SINK && up->kind != WM_STAGE_WINDOW)
			return bad_value(l, e,
					 "a sink writes the results of a "
					 "window stage");
		/* And only a sink: a window sends its results to its sinks
		 * and nothing but watermarks down its edges, so a stage
		 * reading it would get no record. */
		if (st->kind != WM_STAGE_SINK && up->kind == WM_STAGE_WINDOW) {
			char why[200];

			snprintf(why, sizeof(why),
				 "\"%s\" is a window, whose results only a "
				 "sink can write (a stage reading it would "
				 "get no record)",
				 up->name);
			return bad_value(l, e, why);
		}
		if (st->kind == WM_STAGE_SINK &&
		    up->parallelism != st->parallelism) {
			char why[200];

			snprintf(why, sizeof(why),
				 "a sink is chained to its window, so it "
				 "needs its parallelism (%u, not %u)",
				 up->parallelism, st->parallelism);
			return bad_value(l, e, why);
		}

		if (forced)
			kind = (enum wm_partitioning)edge;
		else if (st->kind == WM_STAGE_WINDOW)
			kind = WM_PARTITION_HASH;
		else if (up->parallelism == st->parallelism)
			kind = WM_PARTITION_FORWARD;
		else
			kind = WM_PARTITION_REBALANCE;
		if (kind == WM_PARTITION_FORWARD &&
		    up->parallelism != st->parallelism) {
			char why[200];

			snprintf(why, sizeof(why),
				 "a forward edge needs equal parallelism, but "
				 "\"%s\" has %u and \"%s\" %u",
				 up->name, up->parallelism, st->name,
				 st->parallelism);
			return bad_value(l, pe ? pe : e, why);
		}
		st->inputs[st->n_inputs].stage = (uint32_t)in;
		st->inputs[st->n_inputs].edge = kind;
		st->n_inputs++;
		p += len;
	}
	if (st->n_inputs == 0)
		return bad_value(l, e, "names no stage");
	return 0;
}

/* Depth-first search for a cycle through stage s; colour 1 = on the path. */
static int
find_cycle(struct loader *l, uint32_t s, unsigned char *colour)
{
	struct wm_stage *st = &l->t->stages[s];

	if (colour[s] == 2)
		return 0;
	if (colour[s] == 1) {
		const struct wm_ini_entry *e = l->input_entry[s];

		return bad_value(l, e, "the inputs form a cycle");
	}
	colour[s] = 1;
	for (uint32_t i = 0; i < st->n_inputs; i++) {
		int r = find_cycle(l, st->inputs[i].stage, colour);

		if (r != 0)
			return r;
	}
	colour[s] = 2;
	return 0;
}

static int
check_keyed(struct loader *l, struct wm_ini_section *sec, struct wm_stage *st)
{
	uint32_t maxp = 0;
	struct wm_ini_entry *e, *je;
	int r;

	/* Before any lookup: a lookup marks the key used, and a stage that
	 * has no such key must leave it to check_unused(). */
	if (st->kind != WM_STAGE_WINDOW)
		return 0;
	e = lookup(l, sec, "max_parallelism");
	je = wm_ini_get(wm_ini_section_find(l->doc, "job", NULL),
			"pipeline.max-parallelism");
	if (je != NULL) {
		uint64_t v;
		char why[WM_UNITS_WHY_MAX];

		if (wm_units_count(je->value, &v, why, sizeof(why)) != 0 ||
		    v == 0 || v > WM_KEYGROUP_MAX_PARALLELISM)
			return bad_value(l, je, "expected 1 to 32768");
		maxp = (uint32_t)v;
	}
	if ((r = get_u32(l, sec, "max_parallelism", 1,
			 WM_KEYGROUP_MAX_PARALLELISM, &maxp)) != 0)
		return r;
	if (maxp == 0)
		maxp = (uint32_t)wm_keygroup_default_max_parallelism(
			st->parallelism);
	if (wm_keygroup_check(st->parallelism, maxp) != 0) {
		char why[160];

		snprintf(why, sizeof(why),
			 "max parallelism %u is below the parallelism %u", maxp,
			 st->parallelism);
		if (e == NULL && je == NULL) /* cannot happen: the default
					     * is never below p */
			return -EINVAL;
		return bad_value(l, e ? e : je, why);
	}
	st->max_parallelism = maxp;
	return 0;
}

/* [job] cpus: a CPU list naming one CPU per subtask (every stage's but
 * the sinks', which are chained). Whether the CPUs exist is the machine's
 * business, checked when the job is placed (runtime/plan/placement.h). */
static int
check_cpus(struct loader *l)
{
	struct wm_ini_section *job = wm_ini_section_find(l->doc, "job", NULL);
	struct wm_ini_entry *e = job ? wm_ini_get(job, "cpus") : NULL;
	char why[WM_UNITS_WHY_MAX + 160];
	uint64_t subtasks = 0, count;

	if (e == NULL)
		return 0;
	if (wm_cpulist_parse(e->value, NULL, &count, why, sizeof(why)) != 0)
		return bad_value(l, e, why);
	if (asprintf(&l->t->job.cpus_at, "%s:%d:%d", l->file, e->line,
		     value_col_at(e, 0)) < 0) {
		l->t->job.cpus_at = NULL;
		return -ENOMEM;
	}
	for (uint32_t s = 0; s < l->t->n_stages; s++)
		if (l->t->stages[s].kind != WM_STAGE_SINK)
			subtasks += l->t->stages[s].parallelism;
	if (count != subtasks) {
		snprintf(why, sizeof(why),
			 "names %llu CPUs for %llu subtasks: give one CPU per "
			 "subtask, in the order wmrun --check lists them",
			 (unsigned long long)count,
			 (unsigned long long)subtasks);
		return bad_value(l, e, why);
	}
	return 0;
}

/* Unknown keys and sections, with a did-you-mean. */
static int
check_unused(struct loader *l)
{
	const struct wm_ini_entry *e;
	char label[WM_INI_QUOTE_MAX];
	const char *const *keys;
	size_t n;

	/* [global] keys that are some stage's keys were defaults that
	 * perhaps no stage needed: not unknown. */
	if (l->global != NULL)
		for (size_t i = 0; i < l->global->n_entries; i++) {
			struct wm_ini_entry *g = &l->global->entries[i];

			for (int k = 0; k < 4 && !g->used; k++) {
				keys_of((enum wm_stage_kind)k, &keys, &n);
				g->used = in_list(g->key, keys, n);
			}
		}
	if (!wm_ini_first_unused(l->doc, &e))
		return 0;
	const char *kind = e->section->kind;
	enum wm_stage_kind sk;
	const char *guess = NULL;

	if (strcmp(kind, "job") == 0) {
		guess = wm_ini_suggest(e->key, job_keys, N_ELEMS(job_keys));
	} else if (stage_kind(kind, &sk) == 0) {
		keys_of(sk, &keys, &n);
		guess = wm_ini_suggest(e->key, keys, n);
	} else {
		for (int k = 0; k < 4 && guess == NULL; k++) {
			keys_of((enum wm_stage_kind)k, &keys, &n);
			guess = wm_ini_suggest(e->key, keys, n);
		}
	}
	wm_ini_error_set(l->err, l->file, e->line, e->key_col,
			 "unrecognized key \"%s\" in %s%s%s%s", e->key,
			 wm_ini_section_label(label, sizeof(label), e->section),
			 guess ? " (did you mean \"" : "", guess ? guess : "",
			 guess ? "\"?)" : "");
	return -EINVAL;
}

/* Skews, silences and bursts add up; any other key is set once. */
static bool
may_repeat(const char *kind, const char *key, void *arg)
{
	(void)arg;
	if (strcmp(kind, "source") != 0)
		return false;
	for (size_t k = 0; k < N_ELEMS(shape_keys); k++)
		if (strcmp(key, shape_keys[k].key) == 0)
			return true;
	return false;
}

/* Where a stage's size is set: its parallelism entry, else its header. */
static int
too_big(struct loader *l, struct wm_ini_section *sec, const char *why)
{
	struct wm_ini_entry *e = lookup(l, sec, "parallelism");
	char label[WM_INI_QUOTE_MAX];

	if (e != NULL)
		return bad_value(l, e, why);
	wm_ini_error_set(l->err, l->file, sec->line, sec->col, "%s: %s",
			 wm_ini_section_label(label, sizeof(label), sec), why);
	return -EINVAL;
}

/*
 * The job must fit one machine's processes and segment: refused here, with
 * the stage that crosses the line, rather than by a supervisor that has
 * already filled gigabytes of shared memory with rings.
 */
static int
check_size(struct loader *l, struct wm_ini_section **secs)
{
	const struct wm_topology *t = l->t;
	uint64_t subtasks = 0, channels = 0;
	char why[200];

	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *st = &t->stages[s];

		if (st->kind == WM_STAGE_SINK) /* chained to its window */
			continue;
		subtasks += st->parallelism;
		channels += (uint64_t)wm_topology_input_channels(t, s) *
			    st->parallelism;
		if (subtasks > WM_TOPOLOGY_MAX_SUBTASKS) {
			snprintf(why, sizeof(why),
				 "the job would have %llu subtasks by here; "
				 "at most %u run on one machine",
				 (unsigned long long)subtasks,
				 WM_TOPOLOGY_MAX_SUBTASKS);
			return too_big(l, secs[s], why);
		}
		if (channels > WM_TOPOLOGY_MAX_CHANNELS) {
			snprintf(why, sizeof(why),
				 "the job would have %llu rings by here (one "
				 "per upstream and downstream subtask of an "
				 "all-to-all edge); at most %u",
				 (unsigned long long)channels,
				 WM_TOPOLOGY_MAX_CHANNELS);
			return too_big(l, secs[s], why);
		}
	}
	return 0;
}

/* A key given in the stage's own section that its other keys make
 * meaningless: refused, as a silent no-op would hide a mistake. Keys of
 * [global] are defaults for whichever stages use them, never refused. */
static int
no_effect(struct loader *l, struct wm_ini_section *sec, const char *const *keys,
	  size_t n, const char *because)
{
	char label[WM_INI_QUOTE_MAX];

	for (size_t i = 0; i < n; i++) {
		const struct wm_ini_entry *e = wm_ini_get(sec, keys[i]);

		if (e == NULL)
			continue;
		wm_ini_error_set(
			l->err, l->file, e->line, e->key_col,
			"\"%s\" has no effect in %s: %s", e->key,
			wm_ini_section_label(label, sizeof(label), sec),
			because);
		return -EINVAL;
	}
	return 0;
}

static int
check_no_effect(struct loader *l, struct wm_ini_section *sec,
		const struct wm_stage *st)
{
	static const char *const generator_only[] = {
		"rate",		 "late_fraction", "late_by",
		"keys",		 "values",	  "key_distribution",
		"zipf_exponent", "silence",	  "skew",
		"burst",	 "outage",
	};
	static const char *const replay_only[] = {"pacing", "on_bad_record"};
	static const char *const not_tumbling[] = {"slide", "gap"};
	static const char *const not_sliding[] = {"gap"};
	static const char *const not_session[] = {"size", "slide", "offset"};
	const struct wm_window_assigner *a;

	switch (st->kind) {
	case WM_STAGE_SOURCE:
		if (st->u.source.replay != NULL)
			return no_effect(l, sec, generator_only,
					 N_ELEMS(generator_only),
					 "the source replays a trace, which "
					 "gives the records");
		return no_effect(l, sec, replay_only, N_ELEMS(replay_only),
				 "only a replaying source (replay = FILE) "
				 "reads it");
	case WM_STAGE_WINDOW:
		a = &st->u.window.op.assigner;
		if (a->kind == WM_WINDOW_TUMBLING)
			return no_effect(l, sec, not_tumbling,
					 N_ELEMS(not_tumbling),
					 "a tumbling window has a size only");
		if (a->kind == WM_WINDOW_SLIDING)
			return no_effect(l, sec, not_sliding,
					 N_ELEMS(not_sliding),
					 "a sliding window has a size and a "
					 "slide");
		return no_effect(l, sec, not_session, N_ELEMS(not_session),
				 "a session window has a gap only");
	case WM_STAGE_KEYBY:
	case WM_STAGE_SINK:
		return 0;
	}
	return 0;
}

/* The file a stage writes, if it names one: a sink's path, a window's late
 * output. */
static const struct wm_ini_entry *
output_entry(struct loader *l, struct wm_ini_section *sec,
	     const struct wm_stage *st)
{
	if (st->kind == WM_STAGE_SINK)
		return lookup(l, sec, "path");
	if (st->kind == WM_STAGE_WINDOW)
		return lookup(l, sec, "late_output");
	return NULL;
}

/* Paths a and b name one file: the same text, or one existing file (a
 * stat() opens nothing). */
static bool
same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return strcmp(a, b) == 0 ||
	       (stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
		sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
}

/* An output that is a replayed trace would be emptied when it is opened,
 * before the source reads it: the recording lost, and a job that runs on
 * nothing. */
static int
check_output_not_trace(struct loader *l, struct wm_ini_section **secs,
		       const struct wm_ini_entry *e)
{
	const struct wm_topology *t = l->t;

	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_ini_entry *re;
		char why[300];

		if (t->stages[s].kind != WM_STAGE_SOURCE ||
		    (re = lookup(l, secs[s], "replay")) == NULL ||
		    !same_file(e->value, re->value))
			continue;
		snprintf(why, sizeof(why),
			 "\"%s\" is the trace that source \"%s\" replays "
			 "(line %d): writing it would erase it",
			 e->value, t->stages[s].name, re->line);
		return bad_value(l, e, why);
	}
	return 0;
}

/* Each file the job writes is written by one stage: two writers would
 * interleave two tables in one file. Standard output ("-") may be shared;
 * it is where a quick look goes. And no output is a trace it reads. */
static int
check_outputs(struct loader *l, struct wm_ini_section **secs)
{
	const struct wm_topology *t = l->t;

	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_ini_entry *e =
			output_entry(l, secs[s], &t->stages[s]);
		int r;

		if (e == NULL || strcmp(e->value, "-") == 0)
			continue;
		if ((r = check_output_not_trace(l, secs, e)) != 0)
			return r;
		for (uint32_t o = 0; o < s; o++) {
			const struct wm_ini_entry *oe =
				output_entry(l, secs[o], &t->stages[o]);
			char why[300];

			if (oe == NULL || strcmp(oe->value, e->value) != 0)
				continue;
			snprintf(why, sizeof(why),
				 "\"%s\" is also the %s of %s \"%s\" "
				 "(line %d): give each output its own file",
				 e->value, oe->key,
				 wm_stage_kind_name(t->stages[o].kind),
				 t->stages[o].name, oe->line);
			return bad_value(l, e, why);
		}
	}
	return 0;
}

static int
load(struct loader *l)
{
	struct wm_ini_doc *doc = l->doc;
	struct wm_topology *t = l->t;
	unsigned char *colour;
	int r;

	/* Section kinds first: a typo there would hide everything else. */
	for (size_t i = 0; i < doc->n_sections; i++) {
		struct wm_ini_section *sec = &doc->sections[i];
		enum wm_stage_kind k;
		static const char *const kinds[] = {"job",   "global", "source",
						    "keyby", "window", "sink"};

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
		if (stage_kind(sec->kind, &k) != 0) {
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
	if ((r = load_job(l, wm_ini_section_find(doc, "job", NULL))) != 0)
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
	if (t->stages == NULL || l->input_entry == NULL || colour == NULL) {
		free(colour);
		return -ENOMEM;
	}
	struct wm_ini_section **secs = calloc(t->n_stages, sizeof(*secs));
	uint32_t s = 0;

	if (secs == NULL) {
		free(colour);
		return -ENOMEM;
	}
	for (size_t i = 0; i < doc->n_sections; i++) {
		struct wm_ini_section *sec = &doc->sections[i];

		if (stage_kind(sec->kind, &t->stages[s].kind) != 0)
			continue;
		secs[s] = sec;
		if ((r = load_stage(l, sec, &t->stages[s])) != 0)
			goto out;
		if (find_stage(t, t->stages[s].name,
			       strlen(t->stages[s].name)) != (int)s) {
			wm_ini_error_set(l->err, l->file, sec->line, sec->col,
					 "a stage named \"%s\" exists already",
					 t->stages[s].name);
			r = -EINVAL;
			goto out;
		}
		s++;
	}
	for (s = 0; s < t->n_stages; s++)
		if ((r = resolve_inputs(l, secs[s], s)) != 0 ||
		    (r = check_keyed(l, secs[s], &t->stages[s])) != 0 ||
		    (r = check_no_effect(l, secs[s], &t->stages[s])) != 0)
			goto out;
	if ((r = check_size(l, secs)) != 0 || (r = check_outputs(l, secs)) != 0)
		goto out;
	for (s = 0; s < t->n_stages; s++)
		if ((r = find_cycle(l, s, colour)) != 0)
			goto out;
	if ((r = check_cpus(l)) != 0)
		goto out;
	r = check_unused(l);
out:
	free(secs);
	free(colour);
	return r;
}

static int
load_doc(const char *file, struct wm_ini_doc *doc, struct wm_topology **topo,
	 struct wm_ini_error *err)
{
	struct loader l = {.file = file, .doc = doc, .err = err};
	int r;

	l.t = calloc(1, sizeof(*l.t));
	if (l.t == NULL || (l.t->file = strdup(file)) == NULL) {
		free(l.t);
		wm_ini_free(doc);
		return -ENOMEM;
	}
	r = load(&l);
	free(l.input_entry);
	wm_ini_free(doc);
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
	struct wm_ini_options opts = {.may_repeat = may_repeat};
	struct wm_ini_doc *doc;
	int r = wm_ini_parse_file(path, &opts, &doc, err);

	*topo = NULL;
	return r != 0 ? r : load_doc(path, doc, topo, err);
}

int
wm_topology_load_buffer(const char *text, size_t len, const char *name,
			struct wm_topology **topo, struct wm_ini_error *err)
{
	struct wm_ini_options opts = {.may_repeat = may_repeat};
	struct wm_ini_doc *doc;
	int r = wm_ini_parse_buffer(text, len, name, &opts, &doc, err);

	*topo = NULL;
	return r != 0 ? r : load_doc(name, doc, topo, err);
}

const char *
wm_topology_file_use(const struct wm_topology *t, const char *path, char *buf,
		     size_t len)
{
	if (same_file(path, t->file)) {
		snprintf(buf, len, "the topology");
		return buf;
	}
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *st = &t->stages[s];
		const char *file = NULL, *role = "", *verb = "";

		if (st->kind == WM_STAGE_SOURCE) {
			file = st->u.source.replay;
			role = "trace that source";
			verb = " replays";
		} else if (st->kind == WM_STAGE_WINDOW) {
			file = st->u.window.late_output;
			role = "late output of window";
		} else if (st->kind == WM_STAGE_SINK &&
			   strcmp(st->u.sink.path, "-") != 0) {
			file = st->u.sink.path;
			role = "output of sink";
		}
		if (file != NULL && same_file(path, file)) {
			snprintf(buf, len, "the %s \"%s\"%s", role, st->name,
				 verb);
			return buf;
		}
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
			free(st->u.source.bursts);
			free(st->u.source.skew);
			free(st->u.source.replay);
			free(st->u.source.alignment_group);
		} else if (st->kind == WM_STAGE_WINDOW)
			free(st->u.window.late_output);
		else if (st->kind == WM_STAGE_SINK)
			free(st->u.sink.path);
	}
	free(t->stages);
	free(t->file);
	free(t->job.name);
	free(t->job.cpus);
	free(t->job.cpus_at);
	free(t);
}
