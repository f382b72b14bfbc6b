/*
 * kafka_offsets.c
 *	Where a Kafka source starts and stops reading: its offsets specs
 *	(kafka.starting_offsets, kafka.stopping_offsets: earliest, latest, a
 *	timestamp, committed, given offsets, unbounded) turned into an offset
 *	per partition, looked up with the brokers before the job reads.
 *
 * Lookups that fail for a moment (a topic just created, a leader moving)
 * are asked again within the broker timeout; any other failure is the
 * source's to report with a sysexits code, before a record is read.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>

#include "base/clock.h"
#include "runtime/source/kafka_internal.h"

/* What an offsets spec asks the brokers for partition id: a timestamp
 * (ListOffsets: -2 the first offset, -1 the end), or an offset as it is
 * (*given). */
static int64_t
query_of(const struct wm_kafka_offsets *o, int32_t id, bool *given,
	 bool stopping)
{
	*given = false;
	switch (o->position) {
	case WM_KAFKA_LATEST:
		return RD_KAFKA_OFFSET_END;
	case WM_KAFKA_TIMESTAMP:
		return o->timestamp_ms;
	case WM_KAFKA_OFFSETS:
		for (uint32_t k = 0; k < o->n; k++)
			if (o->partitions[k] == (uint32_t)id) {
				*given = true;
				return o->offsets[k];
			}
		if (stopping) {
			*given = true;
			return NO_STOP;
		}
		return RD_KAFKA_OFFSET_BEGINNING;
	case WM_KAFKA_UNBOUNDED:
		*given = true;
		return NO_STOP;
	case WM_KAFKA_EARLIEST:
	case WM_KAFKA_COMMITTED:
	default:
		return RD_KAFKA_OFFSET_BEGINNING;
	}
}

/* How long a lookup waits before it asks again. */
#define RETRY_PAUSE_MS 100

/* An error of an offset lookup that a moment cures: a topic just
 * created whose partitions have no leader yet, a leader moving. */
static bool
transient(rd_kafka_resp_err_t e)
{
	switch (e) {
	case RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION:
	case RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE:
	case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
	case RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE:
	case RD_KAFKA_RESP_ERR_FENCED_LEADER_EPOCH:
	case RD_KAFKA_RESP_ERR_UNKNOWN_LEADER_EPOCH:
	case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
	case RD_KAFKA_RESP_ERR__TRANSPORT:
		return true;
	default:
		return false;
	}
}

/* One lookup of the offsets asked for; the first error, or 0. */
static rd_kafka_resp_err_t
list_offsets_once(struct ksource *s, const bool *ask, int64_t *want,
		  int timeout_ms)
{
	rd_kafka_topic_partition_list_t *l =
		rd_kafka_topic_partition_list_new((int)s->n);
	rd_kafka_resp_err_t e = 0;

	for (uint32_t i = 0; i < s->n; i++)
		if (ask[i])
			rd_kafka_topic_partition_list_add(l, s->topic,
							  s->part[i].id)
				->offset = want[i];
	if (l->cnt > 0)
		e = rd_kafka_offsets_for_times(s->rk, l, timeout_ms);
	for (int k = 0, i = 0; e == 0 && k < l->cnt; k++, i++) {
		while (!ask[i])
			i++;
		e = l->elems[k].err;
		want[i] = l->elems[k].offset;
	}
	rd_kafka_topic_partition_list_destroy(l);
	return e;
}

/* The offsets for want[i]'s times (or BEGINNING, END) of the partitions
 * asked for, into want[], asked again while the error is transient,
 * within timeout_ms in all. */
static rd_kafka_resp_err_t
list_offsets(struct ksource *s, const bool *ask, int64_t *want, int timeout_ms)
{
	int64_t *asked = malloc((s->n ? s->n : 1) * sizeof(*asked));
	int64_t deadline = wm_monotonic_ns() / 1000000 + timeout_ms;
	rd_kafka_resp_err_t e;

	if (asked == NULL)
		return RD_KAFKA_RESP_ERR__FAIL; /* out of memory */
	memcpy(asked, want, s->n * sizeof(*asked));
	for (;;) {
		int64_t left = deadline - wm_monotonic_ns() / 1000000;

		e = list_offsets_once(s, ask, want, left > 0 ? (int)left : 1);
		if (e == 0 || !transient(e) || left <= RETRY_PAUSE_MS)
			break;
		memcpy(want, asked, s->n * sizeof(*want));
		nanosleep(
			&(struct timespec){.tv_nsec = RETRY_PAUSE_MS * 1000000},
			NULL);
	}
	free(asked);
	return e;
}

/*
 * The offsets `o` gives each partition of s, into out[] (by index):
 * looked up with the brokers (ListOffsets), a timestamp without a record
 * at or after it taken as the end (Flink's OffsetsInitializer
 * .timestamp()), committed offsets from the group, else the first
 * offset (committedOffsets(EARLIEST)). 0 or a sysexits code with a
 * message.
 */
int
wm_kafka_offsets_resolve(struct ksource *s, const struct wm_kafka_offsets *o,
			 bool stopping, int timeout_ms, int64_t *out, char *err,
			 size_t errlen)
{
	bool *ask = calloc(s->n ? s->n : 1, sizeof(*ask));
	rd_kafka_resp_err_t e = 0;
	int code = 0;

	if (ask == NULL) {
		snprintf(err, errlen, "kafka: out of memory");
		return EX_OSERR;
	}
	for (uint32_t i = 0; i < s->n; i++) {
		bool given;

		out[i] = query_of(o, s->part[i].id, &given, stopping);
		ask[i] = !given;
	}
	if (!stopping && o->position == WM_KAFKA_COMMITTED && s->n > 0) {
		rd_kafka_topic_partition_list_t *l =
			rd_kafka_topic_partition_list_new((int)s->n);

		for (uint32_t i = 0; i < s->n; i++)
			rd_kafka_topic_partition_list_add(l, s->topic,
							  s->part[i].id);
		e = rd_kafka_committed(s->rk, l, timeout_ms);
		for (uint32_t i = 0; e == 0 && i < s->n; i++)
			if (l->elems[i].offset >= 0) {
				out[i] = l->elems[i].offset;
				ask[i] = false;
			}
		rd_kafka_topic_partition_list_destroy(l);
	}
	if (e == 0)
		e = list_offsets(s, ask, out, timeout_ms);
	/* A timestamp after every record: the end. */
	for (uint32_t i = 0; i < s->n; i++) {
		ask[i] = ask[i] && out[i] < 0;
		if (ask[i])
			out[i] = RD_KAFKA_OFFSET_END;
	}
	if (e == 0)
		e = list_offsets(s, ask, out, timeout_ms);
	free(ask);
	if (e != 0) {
		snprintf(err, errlen,
			 "kafka: topic \"%s\": could not look up the %s "
			 "offsets: %s",
			 s->topic, stopping ? "stopping" : "starting",
			 rd_kafka_err2str(e));
		code = wm_kafka_client_authorization(e) ? EX_NOPERM
							: EX_UNAVAILABLE;
	}
	return code;
}
