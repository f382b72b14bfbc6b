/*
 * kafka_client.h
 *	The librdkafka client of the Kafka source, as the job's process uses
 *	it before any source opens: the probe of a topic. The rest of
 *	kafka_client.c is the source's own (kafka_internal.h).
 */
#ifndef WM_RUNTIME_SOURCE_KAFKA_CLIENT_H
#define WM_RUNTIME_SOURCE_KAFKA_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/conf/topology.h"

/*
 * What the job's process checks before it starts anything: the brokers
 * answer, the topic exists, and its partition count (*partitions). 0, or
 * a sysexits code with a message in err: EX_UNAVAILABLE (69) for brokers
 * that do not answer within kafka.broker_timeout, EX_CONFIG (78) for a
 * topic that does not exist, an authentication failure or a property
 * librdkafka refuses, EX_NOPERM (77) for an authorization failure.
 */
int wm_kafka_probe(const struct wm_kafka_conf *kc, uint32_t *partitions,
		   char *err, size_t errlen);

#endif /* WM_RUNTIME_SOURCE_KAFKA_CLIENT_H */
