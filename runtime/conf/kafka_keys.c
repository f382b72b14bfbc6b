/*
 * kafka_keys.c
 *	The keys of a source that reads a Kafka topic (runtime/io/
 *	kafka_source.h), e.g.
 *
 *	    kafka.topic = clicks                      # setTopics
 *	    kafka.bootstrap_servers = localhost:9092  # setBootstrapServers
 *	    kafka.group_id = wmrun                    # setGroupId
 *	    kafka.starting_offsets = earliest         # setStartingOffsets
 *	    kafka.stopping_offsets = latest           # setBounded
 *	    kafka.value_format = json                 # the deserializer
 *	    kafka.value_fields = timestamp = $.payload.ts, key, value
 *	                                              # where each field is
 *	    kafka.security.protocol = SASL_SSL        # a client property
 *
 * A source is a Kafka source when its section sets kafka.topic; its other
 * keys may come from [global] (brokers shared by several sources). The
 * names with an underscore are wmrun's, after the KafkaSource builder's
 * methods; a name with a dot is a property: Flink's KafkaSource property
 * partition.discovery.interval.ms is read here, every other one is a
 * Kafka client property handed to librdkafka as it is, and checked by it
 * now, so that a misspelt property is refused at its line rather than when
 * the job starts. The properties wmrun sets itself (the brokers, the
 * group, manual commits) are refused there, naming the key that sets them.
 *
 * Positions (starting_offsets; stopping_offsets bounds the source):
 *	earliest | latest | committed       (start; committed falls back to
 *	                                     earliest, as Flink's
 *	                                     committedOffsets(EARLIEST))
 *	unbounded | latest                  (stop; unbounded the default;
 *	                                     latest: the end at the start)
 *	timestamp MS                        (epoch milliseconds: the first
 *	                                     record at or after it)
 *	offsets P:OFFSET, P:OFFSET, ...     (per partition; the others start
 *	                                     earliest and never stop)
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>

#include "runtime/conf/loader.h"

#define KAFKA_PREFIX "kafka."

/* Flink's default partition.discovery.interval.ms (KafkaSourceOptions). */
#define DEFAULT_DISCOVERY_MS 30000
#define DEFAULT_BROKER_TIMEOUT_MS 30000

/* Client properties wmrun sets itself, and the key that sets each. */
static const struct {
	const char *property, *instead;
} owned_properties[] = {
	{"bootstrap.servers", "kafka.bootstrap_servers"},
	{"metadata.broker.list", "kafka.bootstrap_servers"},
	{"group.id", "kafka.group_id"},
	{"enable.auto.commit", NULL},
	{"enable.auto.offset.store", NULL},
	{"enable.partition.eof", NULL},
	{"auto.offset.reset", "kafka.starting_offsets"},
};

bool
wm_conf_is_kafka_property(const char *key)
{
	return strncmp(key, KAFKA_PREFIX, strlen(KAFKA_PREFIX)) == 0 &&
	       strchr(key + strlen(KAFKA_PREFIX), '.') != NULL;
}

/* "P:OFFSET, P:OFFSET, ..." into o. */
static int
parse_offsets(struct loader *l, const struct wm_ini_entry *e, const char *s,
	      struct wm_kafka_offsets *o)
{
	const char *p = s;
	uint32_t cap = 0;

	while (*p != '\0') {
		char *end;
		unsigned long long part;
		long long off;
		const char *pair;

		while (*p == ' ' || *p == '\t')
			p++;
		pair = p;
		if (*p < '0' || *p > '9')
			return wm_conf_bad_value_at(
				l, e, (size_t)(p - e->value),
				"expected PARTITION:OFFSET, e.g. "
				"\"offsets 0:42, 1:300\"");
		errno = 0;
		part = strtoull(p, &end, 10);
		if (errno != 0 || part >= WM_TOPOLOGY_MAX_PARTITIONS ||
		    *end != ':')
			return wm_conf_bad_value_at(
				l, e, (size_t)(p - e->value),
				"expected PARTITION:OFFSET with a partition "
				"below 65536");
		p = end + 1;
		if (*p < '0' || *p > '9')
			return wm_conf_bad_value_at(l, e,
						    (size_t)(p - e->value),
						    "an offset is a whole "
						    "number, 0 or more");
		errno = 0;
		off = strtoll(p, &end, 10);
		if (errno != 0)
			return wm_conf_bad_value_at(l, e,
						    (size_t)(p - e->value),
						    "offset out of range");
		for (uint32_t i = 0; i < o->n; i++)
			if (o->partitions[i] == part)
				return wm_conf_bad_value_at(
					l, e, (size_t)(pair - e->value),
					"a partition given twice");
		if (o->n == cap) {
			uint32_t ncap = cap ? cap * 2 : 8;
			uint32_t *np =
				realloc(o->partitions, ncap * sizeof(*np));
			int64_t *no;

			if (np == NULL)
				return -ENOMEM;
			o->partitions = np;
			no = realloc(o->offsets, ncap * sizeof(*no));
			if (no == NULL)
				return -ENOMEM;
			o->offsets = no;
			cap = ncap;
		}
		o->partitions[o->n] = (uint32_t)part;
		o->offsets[o->n] = off;
		o->n++;
		p = end;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == ',')
			p++;
		else if (*p != '\0')
			return wm_conf_bad_value_at(l, e,
						    (size_t)(p - e->value),
						    "expected \",\" between "
						    "PARTITION:OFFSET pairs");
	}
	if (o->n == 0)
		return wm_conf_bad_value(l, e,
					 "\"offsets\" needs at least one "
					 "PARTITION:OFFSET");
	return 0;
}

/* A position key: "earliest", "timestamp MS", "offsets ...". */
static int
load_position(struct loader *l, struct wm_ini_section *sec, const char *key,
	      bool starting, struct wm_kafka_offsets *o)
{
	struct wm_ini_entry *e = wm_conf_lookup(l, sec, key);
	const char *v;

	o->position = starting ? WM_KAFKA_EARLIEST : WM_KAFKA_UNBOUNDED;
	if (e == NULL)
		return 0;
	v = e->value;
	if (strcmp(v, "latest") == 0) {
		o->position = WM_KAFKA_LATEST;
	} else if (starting && strcmp(v, "earliest") == 0) {
		o->position = WM_KAFKA_EARLIEST;
	} else if (starting && strcmp(v, "committed") == 0) {
		o->position = WM_KAFKA_COMMITTED;
	} else if (!starting && strcmp(v, "unbounded") == 0) {
		o->position = WM_KAFKA_UNBOUNDED;
	} else if (strncmp(v, "timestamp ", 10) == 0) {
		const char *p = v + 10;
		char *end;
		long long ms;

		while (*p == ' ')
			p++;
		errno = 0;
		ms = strtoll(p, &end, 10);
		if (*p < '0' || *p > '9' || errno != 0 || *end != '\0')
			return wm_conf_bad_value_at(
				l, e, (size_t)(p - v),
				"expected \"timestamp MS\", MS the epoch "
				"milliseconds (0 or more)");
		o->position = WM_KAFKA_TIMESTAMP;
		o->timestamp_ms = ms;
	} else if (strncmp(v, "offsets ", 8) == 0) {
		o->position = WM_KAFKA_OFFSETS;
		return parse_offsets(l, e, v + 8, o);
	} else {
		return wm_conf_bad_value(
			l, e,
			starting ? "expected earliest, latest, committed, "
				   "\"timestamp MS\" or \"offsets P:OFFSET, "
				   "...\""
				 : "expected unbounded, latest, \"timestamp "
				   "MS\" or \"offsets P:OFFSET, ...\"");
	}
	return 0;
}

/*
 * The path of a JSON field at p ("= $.payload.ts" after its name) into
 * kc->paths[i], and the byte after it in *end. 0, or EX_CONFIG naming
 * where and what is wrong, or -ENOMEM.
 */
static int
load_path(struct loader *l, struct wm_ini_entry *e, const char *p, uint32_t i,
	  struct wm_kafka_conf *kc, const char **end)
{
	const char *why = NULL;
	size_t used = 0, at = 0;
	int r;

	if (kc->value_format != WM_KAFKA_VALUE_JSON)
		return wm_conf_bad_value_at(l, e, (size_t)(p - e->value),
					    "a path (NAME = $.a.b) is for "
					    "JSON values");
	for (p++; *p == ' ' || *p == '\t'; p++)
		;
	r = wm_json_path_parse(p, strlen(p), &kc->paths[i], &used, &at, &why);
	if (r == -ENOMEM)
		return r;
	if (r == 0 && p[used] != '\0' && strchr(", \t", p[used]) == NULL) {
		wm_json_path_free(&kc->paths[i]);
		r = -EINVAL;
		at = used;
		why = "expected ',' after a path (['name'] for a name with "
		      "other characters)";
	}
	if (r != 0)
		return wm_conf_bad_value_at(l, e, (size_t)(p - e->value) + at,
					    why);
	*end = p + used;
	return 0;
}

/*
 * kafka.value_fields: the CSV columns in order, or the JSON fields read,
 * each the member of its name at the top level or, as "timestamp =
 * $.payload.ts", at a path (lib/json_path.h).
 */
static int
load_fields(struct loader *l, struct wm_ini_section *sec,
	    struct wm_kafka_conf *kc)
{
	struct wm_ini_entry *e = wm_conf_lookup(l, sec, "kafka.value_fields");
	const char *p;
	unsigned seen = 0;
	int r;

	kc->n_fields = 3;
	kc->fields[0] = WM_KAFKA_FIELD_TIMESTAMP;
	kc->fields[1] = WM_KAFKA_FIELD_KEY;
	kc->fields[2] = WM_KAFKA_FIELD_VALUE;
	if (e == NULL)
		return 0;
	if (kc->value_format != WM_KAFKA_VALUE_CSV &&
	    kc->value_format != WM_KAFKA_VALUE_JSON)
		return wm_conf_bad_value(l, e,
					 "only a CSV or JSON value "
					 "(kafka.value_format) has fields");
	kc->n_fields = 0;
	for (p = e->value; *p != '\0';) {
		size_t len, k;

		while (*p == ' ' || *p == '\t')
			p++;
		len = strcspn(p, ",= \t");
		for (k = 0; k < WM_KAFKA_N_FIELDS; k++)
			if (strlen(wm_kafka_field_name(k)) == len &&
			    strncmp(p, wm_kafka_field_name(k), len) == 0)
				break;
		if (k == WM_KAFKA_N_FIELDS ||
		    (k == WM_KAFKA_FIELD_SKIP &&
		     kc->value_format == WM_KAFKA_VALUE_JSON))
			return wm_conf_bad_value_at(
				l, e, (size_t)(p - e->value),
				kc->value_format == WM_KAFKA_VALUE_JSON
					? "a JSON field is timestamp, key, "
					  "value, punctuate, heartbeat or "
					  "watermark, alone or as NAME = "
					  "$.path.to.it"
					: "a CSV column is timestamp, key, "
					  "value, punctuate, heartbeat, "
					  "watermark or _ (read past)");
		if (k != WM_KAFKA_FIELD_SKIP && (seen & (1u << k)))
			return wm_conf_bad_value_at(l, e,
						    (size_t)(p - e->value),
						    "a field named twice");
		if (kc->n_fields == WM_KAFKA_MAX_FIELDS)
			return wm_conf_bad_value_at(l, e,
						    (size_t)(p - e->value),
						    "more than 64 columns");
		seen |= 1u << k;
		kc->fields[kc->n_fields++] = (enum wm_kafka_field)k;
		p += len;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '=' &&
		    (r = load_path(l, e, p, kc->n_fields - 1, kc, &p)) != 0)
			return r;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == ',')
			p++;
	}
	if (kc->n_fields == 0)
		return wm_conf_bad_value(l, e, "must name at least one field");
	return 0;
}

bool
wm_kafka_value_has(const struct wm_kafka_conf *kc, enum wm_kafka_field f)
{
	if (kc == NULL)
		return false;
	if (kc->value_format != WM_KAFKA_VALUE_CSV &&
	    kc->value_format != WM_KAFKA_VALUE_JSON)
		return false;
	for (uint32_t i = 0; i < kc->n_fields; i++)
		if (kc->fields[i] == f)
			return true;
	return false;
}

/* The records carry their marks in a field of their value
 * (kafka.value_fields names punctuate, or watermark for a watermark of
 * their own): a punctuated source needs one, and they mark records for a
 * punctuated source only. */
static int
check_marks(struct loader *l, struct wm_ini_section *sec,
	    const struct wm_source_conf *src)
{
	bool punctuated = wm_watermark_strategy_punctuated(&src->strategy);
	bool marks = wm_kafka_value_has(src->kafka, WM_KAFKA_FIELD_PUNCTUATE);
	bool carries = wm_kafka_value_has(src->kafka, WM_KAFKA_FIELD_WATERMARK);

	if (punctuated && !marks && !carries)
		return wm_conf_bad_value(
			l, wm_conf_lookup(l, sec, "watermark"),
			"a punctuated watermark comes from marked records: "
			"give the values a punctuate or watermark field "
			"(kafka.value_format = csv or json, and the field in "
			"kafka.value_fields)");
	if (!punctuated && (marks || carries))
		return wm_conf_bad_value(
			l, wm_conf_lookup(l, sec, KAFKA_PREFIX "value_fields"),
			marks ? "punctuate marks records for watermark = "
				"punctuated (alone or as \"bounded, "
				"punctuated\"), which this source does not "
				"have"
			      : "watermark carries watermarks for watermark = "
				"punctuated (alone or as \"bounded, "
				"punctuated\"), which this source does not "
				"have");
	return 0;
}

/* Where a record's time or key comes from: "kafka" or "value". */
static int
load_origin(struct loader *l, struct wm_ini_section *sec, const char *key,
	    const struct wm_kafka_conf *kc, enum wm_kafka_field field,
	    bool *from_value)
{
	static const char *const origins[] = {"kafka", "value"};
	size_t k = 0;
	int r;

	if ((r = wm_conf_get_enum(l, sec, key, origins, 2, &k)) != 0)
		return r;
	*from_value = k == 1;
	if (*from_value && !wm_kafka_value_has(kc, field)) {
		char why[160];

		snprintf(why, sizeof(why),
			 "the value has no %s field: set kafka.value_format "
			 "= csv or json, with %s in kafka.value_fields",
			 field == WM_KAFKA_FIELD_KEY ? "key" : "timestamp",
			 field == WM_KAFKA_FIELD_KEY ? "key" : "timestamp");
		return wm_conf_bad_value(l, wm_conf_lookup(l, sec, key), why);
	}
	return 0;
}

/* partition.discovery.interval.ms, Flink's: milliseconds, <= 0 off. */
static int
load_discovery(struct loader *l, struct wm_ini_section *sec,
	       struct wm_kafka_conf *kc)
{
	struct wm_ini_entry *e = wm_conf_lookup(
		l, sec, KAFKA_PREFIX "partition.discovery.interval.ms");
	char *end;
	long long ms;

	kc->discovery_interval_ms = DEFAULT_DISCOVERY_MS;
	if (e != NULL) {
		errno = 0;
		ms = strtoll(e->value, &end, 10);
		if (e->value[0] == '\0' || *end != '\0' || errno != 0)
			return wm_conf_bad_value(
				l, e,
				"expected milliseconds, as Flink's "
				"partition.discovery.interval.ms (0 or less: "
				"no discovery)");
		kc->discovery_interval_ms = ms > 0 ? ms : 0;
	}
	/* A bounded source reads the partitions of its start, as Flink's
	 * KafkaSourceBuilder turns discovery off for setBounded(). */
	if (kc->stopping.position != WM_KAFKA_UNBOUNDED)
		kc->discovery_interval_ms = 0;
	return 0;
}

/* Every other kafka.NAME.WITH.DOTS of the section: a client property,
 * checked by librdkafka now. */
static int
load_properties(struct loader *l, struct wm_ini_section *sec,
		struct wm_kafka_conf *kc)
{
	rd_kafka_conf_t *probe = rd_kafka_conf_new();
	int r = 0;

	if (probe == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < sec->n_entries && r == 0; i++) {
		struct wm_ini_entry *e = &sec->entries[i];
		const char *name = e->key + strlen(KAFKA_PREFIX);
		char errstr[512], why[700];
		struct wm_kafka_property *np;
		rd_kafka_conf_res_t res;

		if (!wm_conf_is_kafka_property(e->key) || e->used)
			continue;
		e->used = true;
		for (size_t k = 0; k < N_ELEMS(owned_properties); k++) {
			if (strcmp(name, owned_properties[k].property) != 0)
				continue;
			if (owned_properties[k].instead != NULL)
				snprintf(why, sizeof(why),
					 "set by %s, not as a client "
					 "property",
					 owned_properties[k].instead);
			else
				snprintf(why, sizeof(why),
					 "wmrun sets %s itself: a Flink source "
					 "keeps its positions in checkpoints "
					 "and commits them for observability "
					 "only",
					 name);
			wm_ini_error_at(l->err, l->file, e, e->key_col,
					"key \"%s\": %s", e->key, why);
			r = -EINVAL;
			break;
		}
		if (r != 0)
			break;
		res = rd_kafka_conf_set(probe, name, e->value, errstr,
					sizeof(errstr));
		if (res == RD_KAFKA_CONF_UNKNOWN) {
			wm_ini_error_at(l->err, l->file, e, e->key_col,
					"key \"%s\": librdkafka has no client "
					"property \"%s\"",
					e->key, name);
			r = -EINVAL;
			break;
		}
		if (res != RD_KAFKA_CONF_OK) {
			snprintf(why, sizeof(why), "librdkafka refuses it: %s",
				 errstr);
			r = wm_conf_bad_value(l, e, why);
			break;
		}
		np = realloc(kc->properties,
			     (kc->n_properties + 1) * sizeof(*np));
		if (np == NULL) {
			r = -ENOMEM;
			break;
		}
		kc->properties = np;
		np = &np[kc->n_properties];
		np->name = strdup(name);
		np->value = strdup(e->value);
		np->line = e->line;
		np->col = e->key_col;
		kc->n_properties++;
		if (np->name == NULL || np->value == NULL)
			r = -ENOMEM;
	}
	rd_kafka_conf_destroy(probe);
	return r;
}

int
wm_conf_load_kafka(struct loader *l, struct wm_ini_section *sec,
		   struct wm_source_conf *src)
{
	static const char *const formats[] = {"none", "number", "csv", "json"};
	struct wm_ini_entry *topic = wm_ini_get(sec, KAFKA_PREFIX "topic");
	struct wm_kafka_conf *kc;
	size_t k = 0;
	int r;

	if (topic == NULL)
		return 0;
	if (topic->value[0] == '\0')
		return wm_conf_bad_value(l, topic, "must not be empty");
	if (src->kind == WM_SOURCE_REPLAY)
		return wm_conf_bad_value(l, topic,
					 "a source reads a Kafka topic or "
					 "replays a trace, not both");
	if (src->kind == WM_SOURCE_NEXMARK)
		return wm_conf_bad_value(l, topic,
					 "a source reads a Kafka topic or "
					 "makes a Nexmark stream (generator = "
					 "nexmark), not both");
	kc = calloc(1, sizeof(*kc));
	if (kc == NULL)
		return -ENOMEM;
	src->kafka = kc;
	src->kind = WM_SOURCE_KAFKA;
	kc->line = topic->line;
	kc->col = topic->key_col;
	kc->broker_timeout_ms = DEFAULT_BROKER_TIMEOUT_MS;
	if ((kc->topic = strdup(topic->value)) == NULL)
		return -ENOMEM;
	if ((r = wm_conf_get_string(l, sec, KAFKA_PREFIX "bootstrap_servers",
				    &kc->bootstrap_servers)) != 0 ||
	    (r = wm_conf_get_string(l, sec, KAFKA_PREFIX "group_id",
				    &kc->group_id)) != 0)
		return r;
	if (kc->bootstrap_servers == NULL)
		return wm_conf_missing_key(l, sec,
					   KAFKA_PREFIX "bootstrap_servers");
	if ((r = load_position(l, sec, KAFKA_PREFIX "starting_offsets", true,
			       &kc->starting)) != 0 ||
	    (r = load_position(l, sec, KAFKA_PREFIX "stopping_offsets", false,
			       &kc->stopping)) != 0)
		return r;
	if (kc->starting.position == WM_KAFKA_COMMITTED && kc->group_id == NULL)
		return wm_conf_bad_value(
			l,
			wm_conf_lookup(l, sec, KAFKA_PREFIX "starting_offsets"),
			"committed offsets are a group's: set kafka.group_id");
	if ((r = wm_conf_get_enum(l, sec, KAFKA_PREFIX "value_format", formats,
				  N_ELEMS(formats), &k)) != 0)
		return r;
	kc->value_format = (enum wm_kafka_value_format)k;
	if ((r = load_fields(l, sec, kc)) != 0 ||
	    (r = load_origin(l, sec, KAFKA_PREFIX "timestamp", kc,
			     WM_KAFKA_FIELD_TIMESTAMP,
			     &kc->timestamp_from_value)) != 0 ||
	    (r = load_origin(l, sec, KAFKA_PREFIX "key", kc, WM_KAFKA_FIELD_KEY,
			     &kc->key_from_value)) != 0 ||
	    (r = wm_conf_get_duration(l, sec, KAFKA_PREFIX "broker_timeout",
				      true, &kc->broker_timeout_ms)) != 0 ||
	    (r = load_discovery(l, sec, kc)) != 0 ||
	    (r = check_marks(l, sec, src)) != 0)
		return r;
	/* Kafka keys are bytes: strings unless the job says long. */
	if (src->key_type == WM_KEY_TYPE_TRACE)
		src->key_type = WM_KEY_TYPE_STRING;
	return load_properties(l, sec, kc);
}

static void
free_offsets(struct wm_kafka_offsets *o)
{
	free(o->partitions);
	free(o->offsets);
}

void
wm_conf_free_kafka(struct wm_kafka_conf *kc)
{
	if (kc == NULL)
		return;
	free(kc->bootstrap_servers);
	free(kc->topic);
	free(kc->group_id);
	free_offsets(&kc->starting);
	free_offsets(&kc->stopping);
	for (uint32_t i = 0; i < kc->n_properties; i++) {
		free(kc->properties[i].name);
		free(kc->properties[i].value);
	}
	free(kc->properties);
	for (uint32_t i = 0; i < kc->n_fields; i++)
		wm_json_path_free(&kc->paths[i]);
	free(kc);
}
