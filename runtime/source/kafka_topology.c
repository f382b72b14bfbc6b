/*
 * kafka_topology.c
 *	A job's Kafka sources made ready before anything is created: each
 *	topic probed (kafka_client.h), and the room reserved for its
 *	partitions (kafka_topology.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "runtime/source/kafka_client.h"
#include "runtime/source/kafka_topology.h"

uint32_t
wm_kafka_topology_room(uint32_t partitions)
{
	uint64_t room = (uint64_t)partitions * 2;

	if (room < (uint64_t)partitions + WM_KAFKA_MIN_SPARE_PARTITIONS)
		room = (uint64_t)partitions + WM_KAFKA_MIN_SPARE_PARTITIONS;
	return room > WM_TOPOLOGY_MAX_PARTITIONS ? WM_TOPOLOGY_MAX_PARTITIONS
						 : (uint32_t)room;
}

/* The partitions named by explicit offsets exist in the room. */
static int
check_offsets(const struct wm_stage *st, const struct wm_kafka_offsets *o,
	      const char *which, char *err, size_t errlen)
{
	const struct wm_kafka_conf *kc = st->u.source.kafka;

	if (o->position != WM_KAFKA_OFFSETS)
		return EX_OK;
	for (uint32_t i = 0; i < o->n; i++)
		if (o->partitions[i] >= st->u.source.partitions) {
			snprintf(err, errlen,
				 "source \"%s\": kafka.%s names partition %u "
				 "of topic \"%s\", which has room for %u "
				 "partitions (partitions)",
				 st->name, which, o->partitions[i], kc->topic,
				 st->u.source.partitions);
			return EX_CONFIG;
		}
	return EX_OK;
}

/* wm_kafka_topology_prepare() and _check(): each topic probed for its
 * source's broker_timeout, or for at most probe_ms (> 0: --check); with
 * `unchecked`, a source whose brokers do not answer is noted there and
 * passed over. */
static int
prepare(struct wm_topology *t, bool sim, int64_t probe_ms, char *unchecked,
	size_t unchecked_len, char *err, size_t errlen)
{
	size_t noted = 0;

	if (unchecked != NULL && unchecked_len > 0)
		unchecked[0] = '\0';
	for (uint32_t s = 0; s < t->n_stages; s++) {
		struct wm_stage *st = &t->stages[s];
		struct wm_source_conf *sc = &st->u.source;
		struct wm_kafka_conf probe;
		char why[768];
		uint32_t count = 0;
		int status;

		if (!wm_stage_source_is(st, WM_SOURCE_KAFKA))
			continue;
		if (sim) {
			snprintf(err, errlen,
				 "%s:%d:%d: source \"%s\" reads Kafka topic "
				 "\"%s\" as its records arrive, in real time, "
				 "and --sim runs a simulated clock: record the "
				 "topic with --record-trace FILE, then run the "
				 "replay topology written beside FILE under "
				 "--sim",
				 t->file, sc->kafka->line, sc->kafka->col,
				 st->name, sc->kafka->topic);
			return EX_USAGE;
		}
		probe = *sc->kafka;
		if (probe_ms > 0 && (probe.broker_timeout_ms <= 0 ||
				     probe.broker_timeout_ms > probe_ms))
			probe.broker_timeout_ms = probe_ms;
		status = wm_kafka_probe(&probe, &count, why, sizeof(why));
		if (status == EX_UNAVAILABLE && unchecked != NULL) {
			int n = snprintf(unchecked + noted,
					 unchecked_len - noted,
					 "source \"%s\": %s: topic \"%s\", its "
					 "partitions and their subtasks not "
					 "checked\n",
					 st->name, why, sc->kafka->topic);

			if (n > 0 && (size_t)n < unchecked_len - noted)
				noted += (size_t)n;
			continue;
		}
		if (status != EX_OK) {
			snprintf(err, errlen, "source \"%s\": %s", st->name,
				 why);
			return status;
		}
		if (!sc->kafka->partitions_given) {
			sc->partitions = wm_kafka_topology_room(count);
		} else if (count > sc->partitions) {
			snprintf(err, errlen,
				 "source \"%s\": topic \"%s\" has %u "
				 "partitions, more than the %u its partitions "
				 "key leaves room for",
				 st->name, sc->kafka->topic, count,
				 sc->partitions);
			return EX_CONFIG;
		}
		if ((status = check_offsets(st, &sc->kafka->starting,
					    "starting_offsets", err, errlen)) !=
			    EX_OK ||
		    (status = check_offsets(st, &sc->kafka->stopping,
					    "stopping_offsets", err, errlen)) !=
			    EX_OK)
			return status;
	}
	return EX_OK;
}

int
wm_kafka_topology_prepare(struct wm_topology *t, bool sim, char *err,
			  size_t errlen)
{
	return prepare(t, sim, 0, NULL, 0, err, errlen);
}

int
wm_kafka_topology_check(struct wm_topology *t, char *unchecked,
			size_t unchecked_len, char *err, size_t errlen)
{
	return prepare(t, false, WM_KAFKA_CHECK_PROBE_MS, unchecked,
		       unchecked_len, err, errlen);
}
