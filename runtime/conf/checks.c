/*
 * checks.c
 *	The checks of a whole topology once every stage is read: cycles,
 *	keyed inputs, CPU lists, unknown keys, sizes past one machine, keys
 *	that would have no effect, outputs that clash.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "operators/keygroup.h"
#include "runtime/conf/cpulist.h"
#include "runtime/conf/loader.h"
#include "runtime/conf/topology.h"
#include "lib/units.h"

/* Depth-first search for a cycle through stage s; colour 1 = on the path. */
int
wm_conf_find_cycle(struct loader *l, uint32_t s, unsigned char *colour)
{
	struct wm_stage *st = &l->t->stages[s];

	if (colour[s] == 2)
		return 0;
	if (colour[s] == 1) {
		const struct wm_ini_entry *e = l->input_entry[s];

		return wm_conf_bad_value(l, e, "the inputs form a cycle");
	}
	colour[s] = 1;
	for (uint32_t i = 0; i < st->n_inputs; i++) {
		int r = wm_conf_find_cycle(l, st->inputs[i].stage, colour);

		if (r != 0)
			return r;
	}
	colour[s] = 2;
	return 0;
}

int
wm_conf_check_keyed(struct loader *l, struct wm_ini_section *sec,
		    struct wm_stage *st)
{
	uint32_t maxp = l->t->job.max_parallelism; /* checked in [job] */
	struct wm_ini_entry *e, *je;
	int r;

	/* Before any lookup: a lookup marks the key used, and a stage that
	 * has no such key must leave it to wm_conf_check_unused(). */
	if (!wm_stage_keyed(st->kind))
		return 0;
	e = wm_conf_lookup(l, sec, "max_parallelism");
	je = wm_ini_get(wm_ini_section_find(l->doc, "job", NULL),
			"pipeline.max-parallelism");
	if ((r = wm_conf_get_u32(l, sec, "max_parallelism", 1,
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
		return wm_conf_bad_value(l, e ? e : je, why);
	}
	st->max_parallelism = maxp;
	return 0;
}

/* [job] cpus: a CPU list naming one CPU per subtask (every stage's but
 * the sinks', which are chained). Whether the CPUs exist is the machine's
 * business, checked when the job is placed (runtime/plan/placement.h). */
int
wm_conf_check_cpus(struct loader *l)
{
	struct wm_ini_section *job = wm_ini_section_find(l->doc, "job", NULL);
	struct wm_ini_entry *e = job ? wm_ini_get(job, "cpus") : NULL;
	char why[WM_UNITS_WHY_MAX + 160];
	uint64_t subtasks = 0, count;

	if (e == NULL)
		return 0;
	if (wm_cpulist_parse(e->value, NULL, &count, why, sizeof(why)) != 0)
		return wm_conf_bad_value(l, e, why);
	if (asprintf(&l->t->job.cpus_at, "%s:%d:%d", l->file, e->line,
		     wm_conf_value_col_at(e, 0)) < 0) {
		l->t->job.cpus_at = NULL;
		return -ENOMEM;
	}
	for (uint32_t s = 0; s < l->t->n_stages; s++)
		if (l->t->stages[s].kind != WM_STAGE_SINK &&
		    l->t->stages[s].kind != WM_STAGE_MAP)
			subtasks += l->t->stages[s].parallelism;
	if (count != subtasks) {
		snprintf(why, sizeof(why),
			 "names %llu CPUs for %llu subtasks: give one CPU per "
			 "subtask, in the order wmrun --check lists them",
			 (unsigned long long)count,
			 (unsigned long long)subtasks);
		return wm_conf_bad_value(l, e, why);
	}
	return 0;
}

/* Unknown keys and sections, with a did-you-mean. */
int
wm_conf_check_unused(struct loader *l)
{
	const struct wm_key_table_section *keys;
	const struct wm_ini_entry *e;
	char label[WM_INI_QUOTE_MAX];

	/* [global] keys that are some stage's keys were defaults that
	 * perhaps no stage needed: not unknown. */
	if (l->global != NULL)
		for (size_t i = 0; i < l->global->n_entries; i++) {
			struct wm_ini_entry *g = &l->global->entries[i];

			g->used = g->used || wm_conf_stage_key(g->key);
		}
	if (!wm_ini_first_unused(l->doc, &e))
		return 0;
	const char *guess = NULL;

	/* [job] and a stage kind suggest their own keys; [global] any stage
	 * kind's. */
	keys = wm_key_table_section(e->section->kind);
	guess = keys != NULL ? wm_key_table_suggest(keys, e->key)
			     : wm_conf_stage_key_suggest(e->key);
	wm_ini_error_at(l->err, l->file, e, e->key_col,
			"unrecognized key \"%s\" in %s%s%s%s", e->key,
			wm_ini_section_label(label, sizeof(label), e->section),
			guess ? " (did you mean \"" : "", guess ? guess : "",
			guess ? "\"?)" : "");
	return -EINVAL;
}

/* Skews, silences and bursts add up; any other key is set once. */
bool
wm_conf_may_repeat(const char *kind, const char *key, void *arg)
{
	(void)arg;
	return strcmp(kind, "source") == 0 && wm_conf_is_shape_key(key);
}

/* Where a stage's size is set: its parallelism entry, else its header. */
static int
too_big(struct loader *l, struct wm_ini_section *sec, const char *why)
{
	struct wm_ini_entry *e = wm_conf_lookup(l, sec, "parallelism");
	char label[WM_INI_QUOTE_MAX];

	if (e != NULL)
		return wm_conf_bad_value(l, e, why);
	wm_ini_error_set(l->err, l->file, sec->line, sec->col, "%s: %s",
			 wm_ini_section_label(label, sizeof(label), sec), why);
	return -EINVAL;
}

/*
 * The job must fit one machine's processes and segment: refused here, with
 * the stage that crosses the line, rather than by a supervisor that has
 * already filled gigabytes of shared memory with rings.
 */
int
wm_conf_check_size(struct loader *l, struct wm_ini_section **secs)
{
	const struct wm_topology *t = l->t;
	uint64_t subtasks = 0, channels = 0;
	char why[200];

	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *st = &t->stages[s];

		/* chained to its window, or to its source */
		if (st->kind == WM_STAGE_SINK || st->kind == WM_STAGE_MAP)
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
no_effect_key(struct loader *l, struct wm_ini_section *sec, const char *key,
	      const char *because)
{
	const struct wm_ini_entry *e = wm_ini_get(sec, key);
	char label[WM_INI_QUOTE_MAX];

	if (e == NULL)
		return 0;
	wm_ini_error_at(l->err, l->file, e, e->key_col,
			"\"%s\" has no effect in %s: %s", e->key,
			wm_ini_section_label(label, sizeof(label), sec),
			because);
	return -EINVAL;
}

static int
no_effect(struct loader *l, struct wm_ini_section *sec, const char *const *keys,
	  size_t n, const char *because)
{
	for (size_t i = 0; i < n; i++)
		if (no_effect_key(l, sec, keys[i], because) != 0)
			return -EINVAL;
	return 0;
}

/* no_effect() over the source keys about generated records, or about
 * replayed ones (key_table.h), in the table's order. */
static int
no_effect_of_use(struct loader *l, struct wm_ini_section *sec,
		 enum wm_key_table_use use, const char *because)
{
	const struct wm_key_table_section *keys =
		wm_conf_keys_of(WM_STAGE_SOURCE);

	for (size_t i = 0; i < keys->n_keys; i++)
		if (keys->keys[i].use == use &&
		    no_effect_key(l, sec, keys->keys[i].name, because) != 0)
			return -EINVAL;
	return 0;
}

/* A kafka.* key on a source that reads no topic. */
static int
kafka_without_topic(struct loader *l, struct wm_ini_section *sec)
{
	char label[WM_INI_QUOTE_MAX];

	for (size_t i = 0; i < sec->n_entries; i++) {
		const struct wm_ini_entry *e = &sec->entries[i];

		if (strncmp(e->key, "kafka.", 6) != 0)
			continue;
		wm_ini_error_at(
			l->err, l->file, e, e->key_col,
			"\"%s\" has no effect in %s: only a source that reads "
			"a Kafka topic (kafka.topic = TOPIC) reads it",
			e->key,
			wm_ini_section_label(label, sizeof(label), sec));
		return -EINVAL;
	}
	return 0;
}

/*
 * A Nexmark source's records are the stream's (its own keys say which),
 * so the generator's keys and a trace's have nothing to act on; and its
 * partitions advance together, event by event, so none can be paused
 * alone as watermark alignment would (operators/nexmark_source.h). A
 * group from [global] is refused too: it would not be a default this
 * source could ever follow.
 */
static int
nexmark_no_effect(struct loader *l, struct wm_ini_section *sec,
		  const struct wm_source_conf *src)
{
	static const char because[] =
		"the source makes a Nexmark stream (generator = nexmark), "
		"whose nexmark.* keys give the records";

	if (no_effect_of_use(l, sec, WM_KEY_GENERATOR, because) != 0 ||
	    no_effect_of_use(l, sec, WM_KEY_REPLAY, because) != 0)
		return -EINVAL;
	if (src->alignment_group != NULL)
		return wm_conf_bad_value(
			l, wm_conf_lookup(l, sec, "watermark_alignment_group"),
			"a Nexmark source cannot be aligned: its partitions "
			"advance together, event by event, and none can be "
			"paused alone");
	return 0;
}

int
wm_conf_check_no_effect(struct loader *l, struct wm_ini_section *sec,
			const struct wm_stage *st)
{
	static const char *const not_tumbling[] = {"slide", "gap"};
	static const char *const not_sliding[] = {"gap"};
	static const char *const not_session[] = {"size", "slide", "offset"};
	static const char *const window_join_only[] = {
		"size", "slide", "gap", "offset", "allowed_lateness"};
	static const char *const interval_join_only[] = {
		"lower_bound_exclusive", "upper_bound_exclusive"};
	static const char *const late_outputs[] = {"left_late", "right_late"};
	const struct wm_window_assigner *a;
	int r;

	switch (st->kind) {
	case WM_STAGE_SOURCE:
		if (st->u.source.kind == WM_SOURCE_NEXMARK)
			return nexmark_no_effect(l, sec, &st->u.source);
		if (no_effect_of_use(l, sec, WM_KEY_NEXMARK,
				     "only a Nexmark source (generator = "
				     "nexmark) reads it") != 0)
			return -EINVAL;
		if (st->u.source.kind == WM_SOURCE_KAFKA) {
			static const char *const not_kafka[] = {"pacing",
								"replay_end"};
			static const char *const topic[] = {"topic"};

			r = no_effect_of_use(l, sec, WM_KEY_GENERATOR,
					     "the source reads a Kafka topic, "
					     "which gives the records");

			if (r == 0)
				r = no_effect(l, sec, not_kafka,
					      N_ELEMS(not_kafka),
					      "the source reads a Kafka topic, "
					      "at the pace its records arrive");
			return r != 0 ? r
				      : no_effect(l, sec, topic, 1,
						  "kafka.topic names the "
						  "topic");
		}
		if (kafka_without_topic(l, sec) != 0)
			return -EINVAL;
		if (st->u.source.kind == WM_SOURCE_REPLAY)
			return no_effect_of_use(l, sec, WM_KEY_GENERATOR,
						"the source replays a trace, "
						"which gives the records");
		return no_effect_of_use(l, sec, WM_KEY_REPLAY,
					"only a replaying source (replay = "
					"FILE) reads it");
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
	case WM_STAGE_JOIN:
		if (!st->u.join.windowed)
			return no_effect(l, sec, window_join_only,
					 N_ELEMS(window_join_only),
					 "an interval join (between) has no "
					 "windows");
		a = &st->u.join.window.assigner;
		if ((r = no_effect(l, sec, interval_join_only,
				   N_ELEMS(interval_join_only),
				   "a window join pairs the records of each "
				   "window, not by an interval")) != 0 ||
		    (r = no_effect(l, sec, late_outputs, N_ELEMS(late_outputs),
				   "a window join has no late side output "
				   "(Flink's JoinedStreams neither): its late "
				   "records are counted as dropped")) != 0)
			return r;
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
	case WM_STAGE_MAP:
		return 0;
	}
	return 0;
}

/* The files a stage writes, the entries that name them, into out[] (room
 * for 1 + WM_STAGE_LATE_OUTPUTS): a sink's path, a window's late output,
 * an interval join's two; how many. */
static size_t
output_entries(struct loader *l, struct wm_ini_section *sec,
	       const struct wm_stage *st, const struct wm_ini_entry **out)
{
	size_t n = 0;

	if (st->kind == WM_STAGE_SINK)
		out[n++] = wm_conf_lookup(l, sec, "path");
	else if (st->kind == WM_STAGE_WINDOW)
		out[n++] = wm_conf_lookup(l, sec, "late_output");
	else if (st->kind == WM_STAGE_JOIN && !st->u.join.windowed) {
		out[n++] = wm_conf_lookup(l, sec, "left_late");
		out[n++] = wm_conf_lookup(l, sec, "right_late");
	}
	return n;
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
		    (re = wm_conf_lookup(l, secs[s], "replay")) == NULL ||
		    !wm_conf_same_file(e->value, re->value))
			continue;
		snprintf(why, sizeof(why),
			 "\"%s\" is the trace that source \"%s\" replays "
			 "(line %d): writing it would erase it",
			 e->value, t->stages[s].name, re->line);
		return wm_conf_bad_value(l, e, why);
	}
	return 0;
}

/* Each file the job writes is written by one stage: two writers would
 * interleave two tables in one file. Standard output ("-") may be shared;
 * it is where a quick look goes. And no output is a trace it reads. */
/* Whether output e of stage s is the file of an output before it: of a
 * stage before s, or one of s's own before e. 0 or the error at e. */
static int
check_output_once(struct loader *l, struct wm_ini_section **secs, uint32_t s,
		  const struct wm_ini_entry *e)
{
	const struct wm_topology *t = l->t;

	for (uint32_t o = 0; o <= s; o++) {
		const struct wm_ini_entry *oes[1 + WM_STAGE_LATE_OUTPUTS];
		size_t n = output_entries(l, secs[o], &t->stages[o], oes);
		char why[300];

		for (size_t i = 0; i < n && oes[i] != e; i++) {
			const struct wm_ini_entry *oe = oes[i];

			if (oe == NULL || strcmp(oe->value, e->value) != 0)
				continue;
			snprintf(why, sizeof(why),
				 "\"%s\" is also the %s of %s \"%s\" "
				 "(line %d): give each output its own file",
				 e->value, oe->key,
				 wm_stage_kind_name(t->stages[o].kind),
				 t->stages[o].name, oe->line);
			return wm_conf_bad_value(l, e, why);
		}
	}
	return 0;
}

/* Each file the job writes is written by one output: two writers would
 * interleave two tables in one file. Standard output ("-") may be shared;
 * it is where a quick look goes. And no output is a trace it reads. */
int
wm_conf_check_outputs(struct loader *l, struct wm_ini_section **secs)
{
	const struct wm_topology *t = l->t;

	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_ini_entry *es[1 + WM_STAGE_LATE_OUTPUTS];
		size_t n = output_entries(l, secs[s], &t->stages[s], es);
		int r;

		for (size_t i = 0; i < n; i++) {
			if (es[i] == NULL || strcmp(es[i]->value, "-") == 0)
				continue;
			if ((r = check_output_not_trace(l, secs, es[i])) != 0 ||
			    (r = check_output_once(l, secs, s, es[i])) != 0)
				return r;
		}
	}
	return 0;
}

/*
 * A generated source runs at its rate for the run length; without `rate`
 * it would generate as fast as it can, a job of some 10^11 records where a
 * line was lost or mistyped, which --check would pass. So a generated
 * source states its rate, "unlimited" included.
 */
int
wm_conf_check_rate(struct loader *l, struct wm_ini_section *sec,
		   const struct wm_stage *st)
{
	char name[WM_INI_QUOTE_MAX];

	if (!wm_stage_source_is(st, WM_SOURCE_GENERATED) ||
	    wm_conf_lookup(l, sec, "rate") != NULL)
		return 0;
	wm_ini_error_set(l->err, l->file, sec->line, sec->col,
			 "source %s has no rate: give rate = N/s (per "
			 "partition), or rate = unlimited for as fast as the "
			 "job takes them",
			 wm_ini_quote(name, sizeof(name), st->name));
	return -EINVAL;
}
