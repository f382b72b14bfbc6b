/*
 * kafka_internal.h
 *	What the files of the Kafka source share: one subtask's source (struct
 *	ksource) and its partitions (struct kpart), and the functions one file
 *	calls in another. For kafka_source.c (the record source: partitions,
 *	records, brokers' health, snapshots), kafka_client.c (the librdkafka
 *	client: configured, connected, probed, closed within a deadline) and
 *	kafka_offsets.c (the starting and stopping offsets looked up) only.
 *
 * The files call one way: kafka_source.c calls the other two,
 * kafka_offsets.c calls kafka_client.c, which calls neither. A struct
 * ksource is written by the subtask's thread alone, but for `lost`
 * (librdkafka's error callback) and `wake` (set_wake(), read by
 * librdkafka's and the watch's threads), both atomic.
 */
#ifndef WM_RUNTIME_SOURCE_KAFKA_INTERNAL_H
#define WM_RUNTIME_SOURCE_KAFKA_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <librdkafka/rdkafka.h>

#include "operators/record_source.h"
#include "runtime/conf/topology.h"
#include "runtime/source/kafka_watch.h"
#include "runtime/source/record_fields.h"

/* An offset not known yet: before the first record of a partition that
 * starts at its beginning (a discovered partition, Flink's EARLIEST). */
#define AT_BEGINNING RD_KAFKA_OFFSET_BEGINNING

/* A stop that never comes: unbounded. */
#define NO_STOP INT64_MAX

/* Messages taken from the consumer's queue in one call (kafka_source.c,
 * take_messages()). */
#define KAFKA_HELD 256

struct kpart {
	int32_t id;
	int64_t next; /* offset of the next record to read, or AT_BEGINNING */
	int64_t stop; /* the first offset not to read; NO_STOP */
	uint64_t emitted, bad;
	bool paused;
	bool reseek; /* dropped a record while paused: seek back on resume */
	bool finished;
};

struct ksource {
	struct wm_record_source source; /* first: the interface */
	rd_kafka_t *rk;
	rd_kafka_queue_t *q;
	struct wm_kafka_watch *watch;
	char *topic, *servers;
	char *group_id; /* the user's: offsets committed to it */
	uint32_t index, parallelism;
	uint32_t room; /* partition ids below it: the stage's `partitions` */
	bool bounded;
	int64_t discovery_ms, broker_timeout_ms;
	/* Values and keys. */
	enum wm_kafka_value_format value_format;
	struct wm_field_layout layout;
	const char *names[WM_KAFKA_MAX_FIELDS];
	enum wm_field_kind kinds[WM_KAFKA_MAX_FIELDS];
	int ts_field, key_field, value_field; /* in the layout; -1 */
	int punctuate_field;		      /* in the layout; -1 */
	int heartbeat_field;		      /* in the layout; -1 */
	int watermark_field;		      /* in the layout; -1 */
	/* The watermark of the record last returned, if it carries one
	 * (WM_RECORD_WATERMARK): its value's watermark field. */
	wm_ts_t carried;
	bool timestamp_from_value, key_from_value;
	enum wm_key_type key_type;
	bool key_type_stated;
	struct wm_keys *keys;
	bool skip_bad;
	uint64_t bad_total;
	uint64_t errors_reported; /* consumer errors logged */
	/* Partitions, in the order they were assigned (indexes stay). */
	uint32_t n, cap;
	struct kpart *part;
	uint32_t *slot; /* by partition id < room: index, or NO_SLOT */
	uint32_t *done; /* indexes, in the order they finished */
	uint32_t n_done;
	uint32_t topic_partitions; /* the topic's count as last seen */
	uint64_t beyond_room;	   /* partitions seen past `room` */
	bool assigned;		   /* the first next() assigned them */
	/* Messages taken from the consumer's queue and not handed over yet,
	 * held[held_at..held_n-1], in the queue's order: the queue's head,
	 * kept here (librdkafka counts them as handed out). None of a
	 * paused partition (kafka_pause() drops them). */
	rd_kafka_message_t *held[KAFKA_HELD];
	uint32_t held_at, held_n;
	int64_t last_now_ns;
	/* Brokers: the error callback sets lost; next() starts the outage. */
	atomic_bool lost;
	bool in_outage;
	uint64_t outage_gen;
	int64_t outage_start_ns;
	/* The latest sign of life of the brokers, in processing time: the
	 * first next(), a record, an answer to the watch's metadata
	 * request. Connections that stay open without answers (a frozen
	 * broker) fail nothing in librdkafka: only this silence tells. */
	int64_t heard_ns;
	struct wm_source_health health;
	/* The driver's wake function (set_wake()), called from librdkafka's
	 * and the watch's threads. */
	_Atomic(void (*)(void *)) wake;
	_Atomic(void *) wake_arg;
};

#define NO_SLOT UINT32_MAX

/* ---- kafka_client.c ---- */

/* The driver's wake function of s (an opaque struct ksource *), if it
 * gave one: the watch's thread calls it too. */
void wm_kafka_client_wake(void *arg);

/* The consumer of s, its queue waking the driver; 0 or a sysexits code
 * with a message. */
int wm_kafka_client_connect(struct ksource *s, const struct wm_stage *st,
			    const struct wm_kafka_conf *kc, char *err,
			    size_t errlen);

/* The topic's partition count as the brokers tell the client rk, within
 * the broker timeout: 0 or a sysexits code with a message (kafka_client.h,
 * wm_kafka_probe()). */
int wm_kafka_client_partitions(rd_kafka_t *rk, const struct wm_kafka_conf *kc,
			       uint32_t *partitions, char *err, size_t errlen);

/* Whether e is a refusal of the client's rights (EX_NOPERM), not of its
 * login or of the brokers. */
bool wm_kafka_client_authorization(rd_kafka_resp_err_t e);

/* The broker timeout for messages: "30 s", into buf. */
const char *wm_kafka_client_seconds(int64_t ms, char *buf, size_t len);

/* Close s's client within a deadline and free s, now or when the client
 * is closed (a client librdkafka cannot close is left to the process's
 * exit). */
void wm_kafka_client_close(struct ksource *s);

/* ---- kafka_offsets.c ---- */

/*
 * The offsets `o` gives each partition of s, into out[] (by index),
 * looked up with the brokers within timeout_ms; `stopping` for the
 * offsets to stop at. 0 or a sysexits code with a message.
 */
int wm_kafka_offsets_resolve(struct ksource *s,
			     const struct wm_kafka_offsets *o, bool stopping,
			     int timeout_ms, int64_t *out, char *err,
			     size_t errlen);

#endif /* WM_RUNTIME_SOURCE_KAFKA_INTERNAL_H */
