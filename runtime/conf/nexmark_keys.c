/*
 * nexmark_keys.c
 *	The keys of a source that makes a Nexmark stream (operators/
 *	nexmark_source.h), e.g.
 *
 *	    generator = nexmark
 *	    nexmark.events = 1M        # events of every kind in the stream
 *	    nexmark.rate = 10000/s     # events a second, the whole stream
 *	    nexmark.kind = bid         # the events that become records
 *	    nexmark.key = auction      # the record's key, by the DDL's name
 *	    nexmark.value = price      # its value; 1 to count
 *
 * `generator` picks wmrun's own generator (records, the default) or
 * Nexmark's; a source is a Nexmark source when its section says nexmark,
 * or [global] does and the section neither replays nor reads a topic. The key and the value are nexmark.key and nexmark.value,
 * not `key` and `value`, beside the generator's `keys` and `values`
 * (counts of distinct keys and values), which they would be read as.
 *
 * What the stream takes from elsewhere is set where the source is opened
 * (runtime/source/sources.c): the seed is [job] seed, the base time the
 * job's event-time origin, the partitions the source's `partitions`.
 * Which other keys a Nexmark source refuses is checks.c's (by the key
 * table's uses).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/units.h"
#include "runtime/conf/loader.h"

/* Nexmark-Flink's generator has no default length; a default this size
 * runs for 1000 s at the default rate, long enough to study and short
 * enough that a forgotten line does not make an endless job. */
#define DEFAULT_EVENTS 10000000u

/* The benchmark's DDL: WATERMARK FOR dateTime AS dateTime - INTERVAL '4'
 * SECOND. */
#define DEFAULT_OUT_OF_ORDERNESS_MS 4000

/* nexmark.kind's values, by enum wm_nexmark_kind. */
static const char *const kind_names[] = {"person", "auction", "bid"};

/* nexmark.key or nexmark.value: a number of the kind's events by the
 * DDL's name, else `fallback`. */
static int
load_field(struct loader *l, struct wm_ini_section *sec, const char *key,
	   enum wm_nexmark_kind kind, enum wm_nexmark_field fallback,
	   enum wm_nexmark_field *out)
{
	struct wm_ini_entry *e = wm_conf_lookup(l, sec, key);
	char names[256], why[400];

	*out = fallback;
	if (e == NULL || wm_nexmark_field_parse(e->value, kind, out) == 0)
		return 0;
	wm_nexmark_fields_of(kind, names, sizeof(names));
	snprintf(why, sizeof(why),
		 "a %s has no number of that name; its numbers are %s",
		 kind_names[kind], names);
	return wm_conf_bad_value(l, e, why);
}

/* nexmark.rate: whole events a second, as the generator's timeline is
 * (nexmark_gen.h); N/min and the like when they come out whole. */
static int
load_rate(struct loader *l, struct wm_ini_section *sec, uint64_t *out)
{
	struct wm_ini_entry *e = wm_conf_lookup(l, sec, "nexmark.rate");
	char why[WM_UNITS_WHY_MAX];
	double rate;

	if (e == NULL)
		return 0;
	if (wm_units_rate(e->value, &rate, why, sizeof(why)) != 0)
		return wm_conf_bad_value(l, e, why);
	if (isinf(rate) || rate < 1 || rate != floor(rate) || rate > 1e15)
		return wm_conf_bad_value(l, e,
					 "must be a whole number of events a "
					 "second from 1/s to 10^15/s: the "
					 "stream's timestamps are spaced by "
					 "it");
	*out = (uint64_t)rate;
	return 0;
}

int
wm_conf_load_nexmark(struct loader *l, struct wm_ini_section *sec,
		     struct wm_source_conf *src)
{
	static const char *const generators[] = {"records", "nexmark"};
	static const enum wm_nexmark_field keys[] = {WM_NEXMARK_FIELD_ID,
						     WM_NEXMARK_FIELD_ID,
						     WM_NEXMARK_FIELD_AUCTION};
	struct wm_nexmark_source_conf *nx = &src->nexmark;
	struct wm_ini_entry *e = wm_conf_lookup(l, sec, "generator");
	size_t which = 0, kind = WM_NEXMARK_BID;
	int r;

	/* [global]'s generator is a default: a source whose own section
	 * replays a trace or reads a topic does not take it (nor is it
	 * refused there, as no [global] key is). */
	if (e != NULL && wm_ini_get(sec, "generator") == NULL &&
	    (wm_ini_get(sec, "replay") != NULL ||
	     wm_ini_get(sec, "kafka.topic") != NULL))
		return 0;
	if ((r = wm_conf_get_enum(l, sec, "generator", generators, 2,
				  &which)) != 0 ||
	    which == 0)
		return r;
	src->kind = WM_SOURCE_NEXMARK;
	src->nexmark_line = e->line;
	src->nexmark_col = e->key_col;
	src->out_of_orderness_ms = DEFAULT_OUT_OF_ORDERNESS_MS;
	wm_nexmark_config_defaults(&nx->gen);
	nx->events = DEFAULT_EVENTS;
	if ((r = wm_conf_get_count(l, sec, "nexmark.events", 1, UINT64_MAX - 1,
				   &nx->events)) != 0 ||
	    (r = load_rate(l, sec, &nx->gen.events_per_second)) != 0 ||
	    (r = wm_conf_get_enum(l, sec, "nexmark.kind", kind_names, 3,
				  &kind)) != 0)
		return r;
	nx->kind = (enum wm_nexmark_kind)kind;
	if ((r = load_field(l, sec, "nexmark.key", nx->kind, keys[kind],
			    &nx->key)) != 0)
		return r;
	return load_field(l, sec, "nexmark.value", nx->kind,
			  WM_NEXMARK_FIELD_ONE, &nx->value);
}
