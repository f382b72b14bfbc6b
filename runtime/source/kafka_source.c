/*
 * kafka_source.c
 *	The record source of one source subtask over a Kafka topic
 *	(kafka_source.h): a librdkafka consumer assigned the partitions the
 *	subtask owns, read without ever blocking, its positions kept,
 *	snapshotted and restored here, not in Kafka.
 *
 * Reading. next() takes what the consumer's queue holds with a timeout
 * of 0. The consumer queue's event callback (rd_kafka_queue_cb_event_
 * enable()) calls the driver's wake function from librdkafka's threads
 * when the queue turns non-empty; the callback rather than the pipe of
 * rd_kafka_queue_io_event_enable() because the worker waits on a futex,
 * not on descriptors: the callback bumps it directly, with no descriptor
 * per subtask and no byte to drain. The callback fires only on the edge
 * from empty, so next_due_ns() says "now" while the queue still holds
 * something and the driver comes back for it.
 *
 * Positions. Each partition keeps the offset of the next record to read
 * (`next`), and follows what librdkafka delivers: within a session it
 * hands out each offset once (its seeks, pauses and refetches after a
 * broker returns fence off what was fetched before them). A position
 * that is no longer in the log (deleted by retention, past the end of a
 * recreated topic) is reset by librdkafka to the first offset
 * (auto.offset.reset = earliest, as Flink's reader for earliest and
 * committed starts); a reset backwards is reported. A message of a
 * partition paused for alignment that was fetched before the pause took
 * effect is dropped, and the partition sought back to `next` when it
 * resumes: the record waits in Kafka, as a paused split's records do in
 * Flink (librdkafka's pause fences such messages off already; this is
 * the belt to its braces).
 *
 * Brokers. librdkafka reports RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN through
 * the error callback, served in next(): an outage starts then. It ends
 * with the first record fetched or the first metadata answer after it
 * (kafka_watch.h asks every second: an idle topic fetches nothing).
 * Fetching goes on from the kept positions, so nothing is read twice or
 * skipped. After broker_timeout_ms of outage health() says
 * EX_UNAVAILABLE; so it does after broker_timeout_ms without a record or
 * a metadata answer (watch_silence(): a frozen broker fails no
 * connection, and librdkafka says nothing before its socket timeout). A
 * topic the watch finds gone stops the source with EX_NOINPUT.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>

#include <librdkafka/rdkafka.h>

#include "base/clock.h"
#include "lib/snap.h"
#include "lib/units.h"
#include "runtime/source/kafka_source.h"
#include "runtime/source/kafka_watch.h"
#include "base/log.h"
#include "runtime/source/record_fields.h"
#include "runtime/source/replay.h" /* WM_REPLAY_REPORTED */

/* An offset not known yet: before the first record of a partition that
 * starts at its beginning (a discovered partition, Flink's EARLIEST). */
#define AT_BEGINNING RD_KAFKA_OFFSET_BEGINNING

/* A stop that never comes: unbounded. */
#define NO_STOP INT64_MAX

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

static const struct wm_record_source_ops kafka_ops;

/* ---- the client ---- */

static void
call_wake(void *arg)
{
	struct ksource *s = arg;
	void (*wake)(void *) = atomic_load(&s->wake);

	if (wake != NULL)
		wake(atomic_load(&s->wake_arg));
}

static void
queue_event(rd_kafka_t *rk, void *arg)
{
	(void)rk;
	call_wake(arg);
}

/* librdkafka's errors, served in next() (the main queue is forwarded to
 * the consumer's). Only the loss of every broker matters here: a single
 * broker's transport error is retried by librdkafka itself. */
static void
on_error(rd_kafka_t *rk, int err, const char *reason, void *arg)
{
	struct ksource *s = arg;

	(void)rk;
	(void)reason;
	if (err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN)
		atomic_store(&s->lost, true);
}

/* librdkafka's own log lines go through ours, prefixed. */
static void
on_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
	(void)rk;
	if (level <= 3) /* errors: the rest is chatter */
		wm_log("wmrun: kafka: %s: %s", fac, buf);
}

/*
 * A client configuration with the user's properties, then ours (ours
 * win: the source's reading depends on them). NULL and a message naming
 * the property librdkafka refused.
 */
static rd_kafka_conf_t *
client_conf(const struct wm_kafka_conf *kc, const char *client_id,
	    const char *group_id, char *err, size_t errlen)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	char why[256];
	/* Defaults of ours, set first: the user's properties override
	 * them. Fetching up to 10 MiB a partition at once (librdkafka's
	 * default is 1 MiB, the Java consumer's too) read a local broker's
	 * 16-partition topic of 1 M small records in 0.65 s of wmrun's whole
	 * run instead of 2.1 to 5.4 s (doc/performance.md 9.21): with 1 MiB
	 * the consumer waited on fetches most of the time. A fetch is a
	 * transport matter; what is read, and in which order, is not
	 * changed by it. */
	const char *defaults[][2] = {
		{"max.partition.fetch.bytes", "10485760"},
	};
	const char *ours[][2] = {
		{"bootstrap.servers", kc->bootstrap_servers},
		{"client.id", client_id},
		{"group.id", group_id},
		{"enable.auto.commit", "false"},
		{"enable.auto.offset.store", "false"},
		{"enable.partition.eof", "false"},
		{"auto.offset.reset", "earliest"},
	};

	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		if (rd_kafka_conf_set(conf, defaults[i][0], defaults[i][1], why,
				      sizeof(why)) != RD_KAFKA_CONF_OK) {
			snprintf(err, errlen, "kafka: %s: %s", defaults[i][0],
				 why);
			rd_kafka_conf_destroy(conf);
			return NULL;
		}
	for (uint32_t i = 0; i < kc->n_properties; i++) {
		const struct wm_kafka_property *p = &kc->properties[i];

		if (rd_kafka_conf_set(conf, p->name, p->value, why,
				      sizeof(why)) != RD_KAFKA_CONF_OK) {
			snprintf(err, errlen,
				 "line %d: kafka.%s: librdkafka refuses it: %s",
				 p->line, p->name, why);
			rd_kafka_conf_destroy(conf);
			return NULL;
		}
	}
	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		if (rd_kafka_conf_set(conf, ours[i][0], ours[i][1], why,
				      sizeof(why)) != RD_KAFKA_CONF_OK) {
			snprintf(err, errlen, "kafka: %s: %s", ours[i][0], why);
			rd_kafka_conf_destroy(conf);
			return NULL;
		}
	rd_kafka_conf_set_log_cb(conf, on_log);
	return conf;
}

/* What the probe's client heard from librdkafka's error callback. */
struct probe_errors {
	int err; /* the last authentication error, or 0 */
	char reason[200];
};

/* How long the probe waits for metadata before it looks at the client's
 * events again. */
#define PROBE_SLICE_MS 250

static void
probe_error(rd_kafka_t *rk, int err, const char *reason, void *arg)
{
	struct probe_errors *pe = arg;

	(void)rk;
	if (err == RD_KAFKA_RESP_ERR__AUTHENTICATION ||
	    err == RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED) {
		pe->err = err;
		snprintf(pe->reason, sizeof(pe->reason), "%s", reason);
	}
}

static bool
authorization(rd_kafka_resp_err_t e)
{
	return e == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
	       e == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED ||
	       e == RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED;
}

/* The broker timeout for messages: "30 s". */
static const char *
seconds(int64_t ms, char *buf, size_t len)
{
	if (ms % 1000 == 0)
		snprintf(buf, len, "%" PRId64 " s", ms / 1000);
	else
		snprintf(buf, len, "%" PRId64 " ms", ms);
	return buf;
}

/*
 * The topic's partition count as the brokers say, within timeout_ms: 0 or
 * a sysexits code with a message (kafka_source.h, wm_kafka_probe()).
 */
static int
topic_partitions(rd_kafka_t *rk, const struct wm_kafka_conf *kc,
		 const struct probe_errors *pe, uint32_t *partitions, char *err,
		 size_t errlen)
{
	const struct rd_kafka_metadata *md = NULL;
	rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, kc->topic, NULL);
	int64_t left_ms =
		kc->broker_timeout_ms > 0 ? kc->broker_timeout_ms : 30000;
	rd_kafka_resp_err_t e;
	char t[32];
	int code = 0;

	if (rkt == NULL) {
		snprintf(err, errlen, "kafka: topic \"%s\": %s", kc->topic,
			 rd_kafka_err2str(rd_kafka_last_error()));
		return EX_CONFIG;
	}
	/* Asked in slices, the client's events served between them: a
	 * failed login arrives as an error event, and is final, so it ends
	 * the wait for brokers at once (the metadata request alone would
	 * time out, and read as brokers gone). */
	do {
		int64_t slice =
			left_ms < PROBE_SLICE_MS ? left_ms : PROBE_SLICE_MS;

		e = rd_kafka_metadata(rk, 0, rkt, &md, (int)slice);
		left_ms -= slice;
		rd_kafka_poll(rk, 0);
	} while (e == RD_KAFKA_RESP_ERR__TIMED_OUT && left_ms > 0 &&
		 (pe == NULL || pe->err == 0));
	rd_kafka_topic_destroy(rkt);
	if (e == 0 && md->topic_cnt == 1)
		e = md->topics[0].err;
	if (pe != NULL && pe->err != 0) {
		snprintf(err, errlen,
			 "kafka: authentication with %s failed: %s",
			 kc->bootstrap_servers, pe->reason);
		code = EX_CONFIG;
	} else if (authorization(e)) {
		snprintf(err, errlen, "kafka: topic \"%s\": %s", kc->topic,
			 rd_kafka_err2str(e));
		code = EX_NOPERM;
	} else if (e == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
		   e == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC) {
		snprintf(err, errlen,
			 "kafka: topic \"%s\" does not exist on %s", kc->topic,
			 kc->bootstrap_servers);
		code = EX_CONFIG;
	} else if (e == RD_KAFKA_RESP_ERR__AUTHENTICATION ||
		   e == RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED) {
		snprintf(err, errlen,
			 "kafka: authentication with %s failed: %s",
			 kc->bootstrap_servers, rd_kafka_err2str(e));
		code = EX_CONFIG;
	} else if (e != 0) {
		snprintf(err, errlen,
			 "kafka: no broker of %s reachable in %s (%s)",
			 kc->bootstrap_servers,
			 seconds(kc->broker_timeout_ms, t, sizeof(t)),
			 rd_kafka_err2str(e));
		code = EX_UNAVAILABLE;
	} else {
		*partitions = (uint32_t)md->topics[0].partition_cnt;
	}
	if (md != NULL)
		rd_kafka_metadata_destroy(md);
	return code;
}

int
wm_kafka_probe(const struct wm_kafka_conf *kc, uint32_t *partitions, char *err,
	       size_t errlen)
{
	struct probe_errors pe = {0};
	rd_kafka_conf_t *conf =
		client_conf(kc, "wmrun-probe", "wmrun-probe", err, errlen);
	rd_kafka_t *rk;
	char why[256];
	int code;

	if (conf == NULL)
		return EX_CONFIG;
	rd_kafka_conf_set_error_cb(conf, probe_error);
	rd_kafka_conf_set_opaque(conf, &pe);
	rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, why, sizeof(why));
	if (rk == NULL) {
		rd_kafka_conf_destroy(conf);
		snprintf(err, errlen, "kafka: %s", why);
		return EX_CONFIG;
	}
	code = topic_partitions(rk, kc, &pe, partitions, err, errlen);
	rd_kafka_destroy(rk);
	return code;
}

/* ---- partitions ---- */

/* Room for one more partition; -ENOMEM. */
static int
grow(struct ksource *s)
{
	uint32_t cap = s->cap ? 2 * s->cap : 8;
	struct kpart *part;
	uint32_t *done;

	if (s->n < s->cap)
		return 0;
	part = realloc(s->part, cap * sizeof(*part));
	if (part == NULL)
		return -ENOMEM;
	s->part = part;
	done = realloc(s->done, cap * sizeof(*done));
	if (done == NULL)
		return -ENOMEM;
	s->done = done;
	s->cap = cap;
	return 0;
}

/* Partition `id` appended at next..stop; its index, or -ENOMEM. */
static int
add_partition(struct ksource *s, int32_t id, int64_t next, int64_t stop)
{
	if (grow(s) != 0)
		return -ENOMEM;
	s->part[s->n] = (struct kpart){.id = id, .next = next, .stop = stop};
	s->slot[id] = s->n;
	return (int)s->n++;
}

static void
finish(struct ksource *s, uint32_t i)
{
	if (s->part[i].finished)
		return;
	s->part[i].finished = true;
	s->done[s->n_done++] = i;
}

static rd_kafka_topic_partition_list_t *
one_partition(const struct ksource *s, int32_t id, int64_t offset)
{
	rd_kafka_topic_partition_list_t *l =
		rd_kafka_topic_partition_list_new(1);

	rd_kafka_topic_partition_list_add(l, s->topic, id)->offset = offset;
	return l;
}

/* Stop fetching a finished partition; its queued records are dropped by
 * next() as they come. */
static void
unassign(struct ksource *s, uint32_t i)
{
	rd_kafka_topic_partition_list_t *l = one_partition(s, s->part[i].id, 0);
	rd_kafka_error_t *e = rd_kafka_incremental_unassign(s->rk, l);

	if (e != NULL)
		rd_kafka_error_destroy(e);
	rd_kafka_topic_partition_list_destroy(l);
}

/* Assign partitions first..n-1 (those not finished) at their positions,
 * paused ones paused. 0 or -EIO with why in the health report. */
static int
assign_from(struct ksource *s, uint32_t first)
{
	rd_kafka_topic_partition_list_t *l =
		rd_kafka_topic_partition_list_new((int)(s->n - first));
	rd_kafka_topic_partition_list_t *paused =
		rd_kafka_topic_partition_list_new(1);
	rd_kafka_error_t *e;
	int r = 0;

	for (uint32_t i = first; i < s->n; i++) {
		if (s->part[i].finished)
			continue;
		rd_kafka_topic_partition_list_add(l, s->topic, s->part[i].id)
			->offset = s->part[i].next;
		if (s->part[i].paused)
			rd_kafka_topic_partition_list_add(paused, s->topic,
							  s->part[i].id);
	}
	e = l->cnt > 0 ? rd_kafka_incremental_assign(s->rk, l) : NULL;
	if (e != NULL) {
		snprintf(s->health.why, sizeof(s->health.why),
			 "kafka: topic \"%s\": could not assign partitions: %s",
			 s->topic, rd_kafka_error_string(e));
		s->health.exit_code = EX_SOFTWARE;
		rd_kafka_error_destroy(e);
		r = -EIO;
	} else if (paused->cnt > 0) {
		rd_kafka_pause_partitions(s->rk, paused);
	}
	rd_kafka_topic_partition_list_destroy(l);
	rd_kafka_topic_partition_list_destroy(paused);
	return r;
}

/*
 * Partitions of the topic's `count` this subtask owns and has not got
 * yet: appended (starting at their beginning, as Flink's enumerator
 * starts newly discovered partitions) and assigned. Those at or past the
 * stage's room are counted and reported once, never read: the runtime
 * holds watermark state for `room` partitions.
 */
static void
discover(struct ksource *s, uint32_t count)
{
	uint32_t first = s->n;

	for (uint32_t p = s->topic_partitions; p < count; p++) {
		if (p >= s->room) {
			if (s->beyond_room++ == 0)
				wm_log("wmrun: kafka: topic \"%s\" has %" PRIu32
				       " partitions, more than the %" PRIu32
				       " the source reserved (partitions = "
				       "%" PRIu32 "): partitions from %" PRIu32
				       " on are not read",
				       s->topic, count, s->room, s->room,
				       s->room);
			continue;
		}
		if (wm_source_gen_split_owner(s->topic, p, s->parallelism) !=
			    s->index ||
		    s->slot[p] != NO_SLOT)
			continue;
		if (add_partition(s, (int32_t)p, AT_BEGINNING, NO_STOP) < 0) {
			s->health.exit_code = EX_OSERR;
			snprintf(s->health.why, sizeof(s->health.why),
				 "kafka: out of memory");
			return;
		}
	}
	s->topic_partitions = count;
	if (s->assigned && s->n > first)
		assign_from(s, first);
}

/* ---- records ---- */

/* Why a record is bad, with where it is. */
static void
bad_where(const struct ksource *s, const rd_kafka_message_t *m, const char *why,
	  char *out, size_t len)
{
	/* Cut if it must be: where comes first. */
	if (snprintf(out, len,
		     "kafka: topic \"%s\" partition %" PRId32 " offset %" PRId64
		     ": %s",
		     s->topic, m->partition, m->offset, why) >= (int)len)
		out[len - 1] = '\0';
}

/*
 * The record of message m: 0, -EBADMSG with why, or -ENOMEM. The key
 * last, so that a record refused for another reason interns nothing.
 */
static int
read_record(struct ksource *s, const rd_kafka_message_t *m,
	    struct wm_record *out, char *why, size_t whylen)
{
	const char *text = m->payload;
	size_t len = m->len;
	int64_t f[WM_KAFKA_MAX_FIELDS] = {0};
	struct wm_key_field kf = {0};
	rd_kafka_timestamp_type_t tstype;

	out->flags = 0;
	out->partition = (uint32_t)m->partition;
	out->value = 1;
	/* The end of a line a producer may have sent with it. */
	if (len > 0 && text[len - 1] == '\n')
		len--;
	if (len > 0 && text[len - 1] == '\r')
		len--;
	if (s->value_format != WM_KAFKA_VALUE_NONE && text == NULL) {
		snprintf(why, whylen, "no value (a tombstone)");
		return -EBADMSG;
	}
	if (s->value_format == WM_KAFKA_VALUE_NUMBER) {
		const char *bad = wm_units_int64(text, len, &out->value);

		if (bad != NULL)
			return wm_fields_refuse(why, whylen, "value", text, len,
						bad),
			       -EBADMSG;
	} else if (s->value_format == WM_KAFKA_VALUE_CSV ||
		   s->value_format == WM_KAFKA_VALUE_JSON) {
		if (wm_fields_parse(text, len,
				    s->value_format == WM_KAFKA_VALUE_JSON,
				    &s->layout, f, &kf, why, whylen) < 0)
			return -EBADMSG;
		if (s->value_field >= 0)
			out->value = f[s->value_field];
	}
	if (s->timestamp_from_value) {
		out->ts = f[s->ts_field];
	} else {
		out->ts = rd_kafka_message_timestamp(m, &tstype);
		if (tstype == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE || out->ts < 0) {
			snprintf(why, whylen, "no timestamp");
			return -EBADMSG;
		}
	}
	if (!s->key_from_value) {
		if (m->key == NULL) {
			snprintf(why, whylen,
				 "no key (the record's key is "
				 "null)");
			return -EBADMSG;
		}
		kf = (struct wm_key_field){m->key, m->key_len, 1, WM_KEY_BARE};
	}
	return wm_fields_key(&kf, s->key_type, s->key_type_stated, s->keys,
			     &out->key, &out->flags, why, whylen);
}

/* A bad record at its partition's position: skipped and counted, or the
 * source stops (health). True when skipped. */
static bool
bad_record(struct ksource *s, uint32_t i, const rd_kafka_message_t *m,
	   const char *why)
{
	char where[256];

	bad_where(s, m, why, where, sizeof(where));
	if (!s->skip_bad) {
		s->health.exit_code = EX_DATAERR;
		snprintf(s->health.why, sizeof(s->health.why), "%s", where);
		return false;
	}
	s->part[i].bad++;
	if (s->bad_total++ < WM_REPLAY_REPORTED)
		wm_log("wmrun: %s: skipped", where);
	else if (s->bad_total == WM_REPLAY_REPORTED + 1)
		wm_log("wmrun: kafka: topic \"%s\": more bad records skipped, "
		       "counted in the summary",
		       s->topic);
	return true;
}

/* ---- brokers ---- */

static void
outage_over(struct ksource *s, int64_t now_ns)
{
	if (!s->in_outage)
		return;
	s->in_outage = false;
	s->health.unreachable = false;
	s->health.outages++;
	s->health.outage_ns += now_ns - s->outage_start_ns;
}

/*
 * The brokers' silence: no record and no metadata answer for the broker
 * timeout stops the source with EX_UNAVAILABLE, as an outage does. The
 * watch's answer time is monotonic, the source's clock processing time:
 * the answer's age is carried over as it is (while brokers answer it is
 * about a second, whatever the job's speed). Read only when the last
 * sign of life is half a timeout old: a source that fetches records
 * never reads the clock here.
 */
static void
watch_silence(struct ksource *s, int64_t now_ns)
{
	int64_t timeout_ns = s->broker_timeout_ms * 1000000;
	int64_t at;
	char t[32];

	if (now_ns - s->heard_ns < timeout_ns / 2 || s->in_outage)
		return;
	at = wm_kafka_watch_answered_at(s->watch);
	if (at > 0 && now_ns - (wm_monotonic_ns() - at) > s->heard_ns)
		s->heard_ns = now_ns - (wm_monotonic_ns() - at);
	if (now_ns - s->heard_ns >= timeout_ns && s->health.exit_code == 0) {
		s->health.exit_code = EX_UNAVAILABLE;
		snprintf(s->health.why, sizeof(s->health.why),
			 "kafka: no broker of %s answered for %s", s->servers,
			 seconds(s->broker_timeout_ms, t, sizeof(t)));
	}
}

/* The topic was there when the source opened: if the watch finds it gone,
 * it was deleted. Its partitions are gone with their records, and
 * librdkafka waits for them for ever without a word (a consumer that
 * assigned its partitions is told nothing). Looked at when the queue is
 * empty: records fetched before the deletion are read first. */
static void
watch_topic(struct ksource *s)
{
	if (wm_kafka_watch_topic_gone(s->watch) && s->health.exit_code == 0) {
		s->health.exit_code = EX_NOINPUT;
		snprintf(s->health.why, sizeof(s->health.why),
			 "kafka: topic \"%s\" was deleted while the job read "
			 "it",
			 s->topic);
	}
}

/* What librdkafka said since the last call, and the broker timeout. */
static void
watch_brokers(struct ksource *s, int64_t now_ns)
{
	char t[32];

	if (atomic_exchange(&s->lost, false) && !s->in_outage) {
		s->in_outage = true;
		s->health.unreachable = true;
		s->outage_start_ns = now_ns;
		s->outage_gen = wm_kafka_watch_lost(s->watch);
	}
	if (s->in_outage && wm_kafka_watch_answered(s->watch) >= s->outage_gen)
		outage_over(s, now_ns);
	if (s->in_outage && s->health.exit_code == 0 &&
	    now_ns - s->outage_start_ns >= s->broker_timeout_ms * 1000000) {
		s->health.exit_code = EX_UNAVAILABLE;
		snprintf(s->health.why, sizeof(s->health.why),
			 "kafka: no broker of %s reachable for %s", s->servers,
			 seconds(s->broker_timeout_ms, t, sizeof(t)));
	}
}

/*
 * An error the consumer put in the stream: never a record. Most are
 * librdkafka's to retry (a fetch error, a leader moving, a broker
 * down); a topic that refuses this client is not, and stops the
 * source. The
 * first few are reported, so that a position reset by librdkafka
 * (auto.offset.reset, records deleted by retention) is not silent.
 */
static void
consumer_error(struct ksource *s, const rd_kafka_message_t *m)
{
	/* The topic refused: nothing can be read. A group refused only
	 * costs the commits, which are for observation (and the group of
	 * a source without kafka.group_id is ours, for librdkafka's
	 * consumer queue, and may well be refused on a secured cluster). */
	if (m->err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED) {
		s->health.exit_code = EX_NOPERM;
		snprintf(s->health.why, sizeof(s->health.why),
			 "kafka: topic \"%s\": %s", s->topic,
			 rd_kafka_err2str(m->err));
		return;
	}
	/* The end of a partition (enable.partition.eof set by the user) is
	 * no news; an outage is watched for (watch_brokers()). */
	if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF ||
	    m->err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN ||
	    m->err == RD_KAFKA_RESP_ERR__TRANSPORT)
		return;
	if (s->errors_reported++ < WM_REPLAY_REPORTED)
		wm_log("wmrun: kafka: topic \"%s\" partition %" PRId32 ": %s",
		       s->topic, m->partition, rd_kafka_message_errstr(m));
}

/* librdkafka moved partition p back to `offset`, below its position:
 * the position was not in the log any more. Said, then followed. */
static void
offset_reset(struct ksource *s, struct kpart *p, int64_t offset)
{
	wm_log("wmrun: kafka: topic \"%s\" partition %" PRId32
	       ": offset %" PRId64
	       " is not in the log; reading from offset %" PRId64
	       " (auto.offset.reset)",
	       s->topic, p->id, p->next, offset);
}

/* ---- the record source ---- */

static int
kafka_next(struct wm_record_source *src, int64_t now_ns, struct wm_record *out)
{
	struct ksource *s = (struct ksource *)src;
	char why[256];

	s->last_now_ns = now_ns;
	if (s->health.exit_code != 0)
		return 0;
	if (!s->assigned) {
		s->assigned = true;
		s->heard_ns = now_ns;
		if (assign_from(s, 0) != 0)
			return 0;
	}
	if (s->discovery_ms > 0 && !s->bounded) {
		uint32_t count = wm_kafka_watch_partitions(s->watch);

		if (count > s->topic_partitions)
			discover(s, count);
	}
	for (;;) {
		rd_kafka_message_t *m = rd_kafka_consume_queue(s->q, 0);
		struct kpart *p;
		uint32_t i;
		int r;

		watch_brokers(s, now_ns);
		if (m == NULL) {
			watch_topic(s);
			watch_silence(s, now_ns);
		}
		if (m == NULL || s->health.exit_code != 0) {
			/* A record taken with a failing source stays in
			 * Kafka: its position was not moved. */
			if (m != NULL)
				rd_kafka_message_destroy(m);
			return 0;
		}
		if (m->err != 0) {
			consumer_error(s, m);
			rd_kafka_message_destroy(m);
			continue;
		}
		if (m->partition < 0 || (uint32_t)m->partition >= s->room ||
		    s->slot[m->partition] == NO_SLOT) {
			rd_kafka_message_destroy(m);
			continue;
		}
		i = s->slot[m->partition];
		p = &s->part[i];
		outage_over(s, now_ns); /* a broker answered */
		s->heard_ns = now_ns;
		if (p->finished) {
			rd_kafka_message_destroy(m);
			continue;
		}
		if (p->next >= 0 && m->offset < p->next)
			offset_reset(s, p, m->offset);
		if (p->paused) {
			p->reseek = true;
			rd_kafka_message_destroy(m);
			continue;
		}
		if (m->offset >= p->stop) {
			/* Past the stop without a record at stop - 1 (a
			 * transaction marker, a compacted record). */
			finish(s, i);
			unassign(s, i);
			rd_kafka_message_destroy(m);
			continue;
		}
		r = read_record(s, m, out, why, sizeof(why));
		if (r == -ENOMEM) {
			s->health.exit_code = EX_OSERR;
			snprintf(s->health.why, sizeof(s->health.why),
				 "kafka: out of memory");
		} else if (r != 0 && !bad_record(s, i, m, why)) {
			r = -1;
		}
		if (r == -ENOMEM || r == -1) {
			rd_kafka_message_destroy(m);
			return 0;
		}
		p->next = m->offset + 1;
		if (p->next >= p->stop) {
			finish(s, i);
			unassign(s, i);
		}
		rd_kafka_message_destroy(m);
		if (r == 0) {
			p->emitted++;
			return 1;
		}
	}
}

static int64_t
kafka_next_due(const struct wm_record_source *src)
{
	const struct ksource *s = (const struct ksource *)src;

	if (s->health.exit_code != 0)
		return INT64_MAX;
	/* Not assigned yet, or more in the queue than the wake said. */
	if (!s->assigned || rd_kafka_queue_length(s->q) > 0)
		return s->last_now_ns;
	if (s->in_outage)
		return s->outage_start_ns + s->broker_timeout_ms * 1000000;
	/* The brokers' silence is looked at after half a timeout of it,
	 * then at its end (watch_silence()). */
	if (s->last_now_ns < s->heard_ns + s->broker_timeout_ms * 1000000 / 2)
		return s->heard_ns + s->broker_timeout_ms * 1000000 / 2;
	return s->heard_ns + s->broker_timeout_ms * 1000000;
}

static bool
kafka_finished(const struct wm_record_source *src)
{
	const struct ksource *s = (const struct ksource *)src;

	/* An unbounded subtask without partitions waits for some, as a
	 * Flink reader waits for splits; a bounded one ends. */
	return s->n_done == s->n && (s->n > 0 || s->bounded);
}

static uint32_t
kafka_n_partitions(const struct wm_record_source *src)
{
	return ((const struct ksource *)src)->n;
}

static uint32_t
kafka_n_finished(const struct wm_record_source *src)
{
	return ((const struct ksource *)src)->n_done;
}

static uint32_t
kafka_finished_partition(const struct wm_record_source *src, uint32_t k)
{
	return ((const struct ksource *)src)->done[k];
}

static void
kafka_partition_stats(const struct wm_record_source *src, uint32_t i,
		      int64_t now_ns, struct wm_source_partition_stats *st)
{
	const struct ksource *s = (const struct ksource *)src;

	(void)now_ns;
	st->partition = (uint32_t)s->part[i].id;
	st->emitted = s->part[i].emitted;
	st->skipped = s->part[i].bad; /* bad records skipped */
	st->finished = s->part[i].finished;
}

/*
 * Pause or resume the i-th partition (watermark alignment): librdkafka
 * stops fetching it. A record of it fetched before that and met in the
 * queue meanwhile is dropped (next()), and the partition sought back to
 * its position when it resumes, after the resume: librdkafka resumes a
 * partition at the last record it handed out plus one, which would skip
 * the dropped ones.
 */
static void
kafka_pause(struct wm_record_source *src, uint32_t i, bool paused,
	    int64_t now_ns)
{
	struct ksource *s = (struct ksource *)src;
	struct kpart *p = &s->part[i];
	rd_kafka_topic_partition_list_t *l;

	(void)now_ns;
	if (p->paused == paused || p->finished) {
		p->paused = paused;
		return;
	}
	p->paused = paused;
	if (!s->assigned)
		return; /* assign_from() pauses it */
	l = one_partition(s, p->id, p->next);
	if (paused) {
		rd_kafka_pause_partitions(s->rk, l);
	} else {
		rd_kafka_resume_partitions(s->rk, l);
		if (p->reseek) {
			rd_kafka_error_t *e =
				rd_kafka_seek_partitions(s->rk, l, 0);

			if (e != NULL)
				rd_kafka_error_destroy(e);
			p->reseek = false;
		}
	}
	rd_kafka_topic_partition_list_destroy(l);
}

static void
kafka_set_wake(struct wm_record_source *src, void (*wake)(void *arg), void *arg)
{
	struct ksource *s = (struct ksource *)src;

	atomic_store(&s->wake_arg, arg);
	atomic_store(&s->wake, wake);
}

static void
kafka_health(const struct wm_record_source *src, struct wm_source_health *h)
{
	const struct ksource *s = (const struct ksource *)src;

	*h = s->health;
	if (s->in_outage) /* the one going on counts too */
		h->outage_ns += s->last_now_ns - s->outage_start_ns;
}

/*
 * Closing. librdkafka's close and destroy can wait for ever: after the
 * topic was deleted under an assigned consumer, rd_kafka_destroy() (2.0)
 * joins a broker thread that never ends. A job that ends, by its own end
 * or by a stop signal, must not wait on that: the client is closed in a
 * thread of its own, waited for CLOSE_TIMEOUT_MS (the supervisor gives a
 * stopping worker 5 s, draining included), and left to finish, or to the
 * process's exit, if it takes longer. The source's memory goes with the
 * client (librdkafka's callbacks point into it).
 */
#define CLOSE_TIMEOUT_MS 2000

struct closing {
	struct ksource *s;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;	/* the client is closed */
	bool abandoned; /* kafka_free() returned: the thread frees all */
};

static void
free_memory(struct ksource *s)
{
	free(s->topic);
	free(s->servers);
	free(s->group_id);
	free(s->part);
	free(s->slot);
	free(s->done);
	free(s);
}

/* The watch, then the client: the watch asks through it. */
static void
close_client(struct ksource *s)
{
	wm_kafka_watch_stop(s->watch);
	if (s->q != NULL) {
		rd_kafka_queue_cb_event_enable(s->q, NULL, NULL);
		rd_kafka_queue_destroy(s->q);
	}
	if (s->rk != NULL) {
		/* No group membership (manual assignment) and no commits
		 * pending but async ones: closing does not wait for a
		 * rebalance. */
		rd_kafka_consumer_close(s->rk);
		rd_kafka_destroy(s->rk);
	}
}

static void
closing_free(struct closing *c)
{
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static void *
closing_main(void *arg)
{
	struct closing *c = arg;
	bool abandoned;

	close_client(c->s);
	pthread_mutex_lock(&c->lock);
	c->done = true;
	abandoned = c->abandoned;
	pthread_cond_signal(&c->cond);
	pthread_mutex_unlock(&c->lock);
	if (abandoned) {
		free_memory(c->s);
		closing_free(c);
	}
	return NULL;
}

/* Close s's client within CLOSE_TIMEOUT_MS and free s, now or when the
 * client is closed. */
static void
close_within(struct ksource *s)
{
	struct closing *c = calloc(1, sizeof(*c));
	pthread_condattr_t ca;
	struct timespec until;
	int64_t deadline;
	bool done;

	if (c == NULL)
		goto inline_close;
	c->s = s;
	pthread_mutex_init(&c->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&c->thread, NULL, closing_main, c) != 0) {
		closing_free(c);
		goto inline_close;
	}
	deadline = wm_monotonic_ns() + (int64_t)CLOSE_TIMEOUT_MS * 1000000;
	until.tv_sec = deadline / 1000000000;
	until.tv_nsec = deadline % 1000000000;
	pthread_mutex_lock(&c->lock);
	while (!c->done &&
	       pthread_cond_timedwait(&c->cond, &c->lock, &until) == 0)
		;
	done = c->done;
	c->abandoned = !done;
	pthread_mutex_unlock(&c->lock);
	if (!done) {
		wm_log("wmrun: kafka: topic \"%s\": the client did not close "
		       "within %d ms; it is left to the process's exit",
		       s->topic, CLOSE_TIMEOUT_MS);
		pthread_detach(c->thread);
		return;
	}
	pthread_join(c->thread, NULL);
	closing_free(c);
	free_memory(s);
	return;
inline_close:
	close_client(s);
	free_memory(s);
}

static void
kafka_free(struct wm_record_source *src)
{
	struct ksource *s = (struct ksource *)src;

	/* The driver's wake function may be gone once this returns. */
	atomic_store(&s->wake, NULL);
	close_within(s);
}

#define KAFKA_SNAP_TAG WM_SNAP_TAG('K', 'F', 'K', 'A')
#define KAFKA_SNAP_VERSION 1

/*
 * Per partition: its id, the offset of the next record to read and its
 * stopping offset (Flink's KafkaPartitionSplit: a bounded source stops
 * where it was to stop when it first started, not at the end it finds
 * on a restart). With a group.id the offsets are committed too, without
 * waiting, for the group's lag tools: never read back.
 */
static void
kafka_snapshot(const struct wm_record_source *src, struct wm_snap_writer *w)
{
	const struct ksource *s = (const struct ksource *)src;
	rd_kafka_topic_partition_list_t *l = NULL;

	wm_snap_begin(w, KAFKA_SNAP_TAG, KAFKA_SNAP_VERSION);
	wm_snap_put_u64(w, s->n);
	if (s->group_id != NULL)
		l = rd_kafka_topic_partition_list_new((int)s->n);
	for (uint32_t i = 0; i < s->n; i++) {
		wm_snap_put_u32(w, (uint32_t)s->part[i].id);
		wm_snap_put_i64(w, s->part[i].next);
		wm_snap_put_i64(w, s->part[i].stop);
		if (l != NULL && s->part[i].next >= 0)
			rd_kafka_topic_partition_list_add(l, s->topic,
							  s->part[i].id)
				->offset = s->part[i].next;
	}
	wm_snap_end(w);
	if (l != NULL) {
		if (l->cnt > 0)
			rd_kafka_commit(s->rk, l, 1);
		rd_kafka_topic_partition_list_destroy(l);
	}
}

/* A partition a snapshot names (restore_partitions()'s take): its
 * position and stop, added if it was discovered before the checkpoint. */
static int
take_partition(void *arg, uint32_t id, struct wm_snap_reader *rd)
{
	struct ksource *s = arg;
	int64_t next = wm_snap_get_i64(rd);
	int64_t stop = wm_snap_get_i64(rd);
	int i;

	if (wm_snap_reader_error(rd) != 0)
		return 0; /* the walk stops on it */
	if (wm_source_gen_split_owner(s->topic, id, s->parallelism) != s->index)
		return -EINVAL;
	if (s->slot[id] == NO_SLOT) {
		i = add_partition(s, (int32_t)id, next, stop);
		if (i < 0)
			return i;
		if (id >= s->topic_partitions)
			s->topic_partitions = id + 1;
	} else {
		i = (int)s->slot[id];
	}
	s->part[i].next = next;
	s->part[i].stop = stop;
	return 0;
}

/*
 * Seek a new source to a snapshot: each partition named takes the
 * snapshot's position and stop, partitions discovered before the
 * checkpoint are added; partitions the snapshot does not name start at
 * their beginning (new to the job, as Flink starts partitions it
 * discovers). A partition that is not this subtask's, or named twice:
 * -EINVAL.
 */
static int
kafka_restore(struct wm_record_source *src, struct wm_snap_reader *rd)
{
	struct ksource *s = (struct ksource *)src;
	bool *named;
	int err;

	if (s->assigned)
		return wm_snap_reader_fail(rd, -EINVAL);
	named = calloc(s->room, sizeof(*named));
	if (named == NULL)
		return wm_snap_reader_fail(rd, -ENOMEM);
	err = wm_record_source_restore_partitions(
		rd, KAFKA_SNAP_TAG, KAFKA_SNAP_VERSION, 20, s->room, named,
		take_partition, s);
	if (err == 0) {
		s->n_done = 0;
		for (uint32_t i = 0; i < s->n; i++) {
			struct kpart *p = &s->part[i];

			if (!named[p->id]) {
				p->next = AT_BEGINNING;
				p->stop = s->bounded ? p->stop : NO_STOP;
			}
			p->finished = false;
			if (p->next >= 0 && p->next >= p->stop)
				finish(s, i);
		}
	}
	free(named);
	return err;
}

static const struct wm_record_source_ops kafka_ops = {
	.next = kafka_next,
	.next_due_ns = kafka_next_due,
	.finished = kafka_finished,
	.n_partitions = kafka_n_partitions,
	.n_finished = kafka_n_finished,
	.finished_partition = kafka_finished_partition,
	.partition_stats = kafka_partition_stats,
	.free = kafka_free,
	.pause = kafka_pause,
	.snapshot = kafka_snapshot,
	.restore = kafka_restore,
	.set_wake = kafka_set_wake,
	.health = kafka_health,
};

/* ---- opening ---- */

/* The value's fields as the record-field parser reads them. */
static void
value_layout(struct ksource *s, const struct wm_kafka_conf *kc)
{
	static const char *const field_names[] = {
		[WM_KAFKA_FIELD_SKIP] = "_",
		[WM_KAFKA_FIELD_TIMESTAMP] = "timestamp",
		[WM_KAFKA_FIELD_KEY] = "key",
		[WM_KAFKA_FIELD_VALUE] = "value",
	};

	s->ts_field = s->key_field = s->value_field = -1;
	for (uint32_t i = 0; i < kc->n_fields; i++) {
		enum wm_kafka_field f = kc->fields[i];

		s->names[i] = field_names[f];
		s->kinds[i] = f == WM_KAFKA_FIELD_KEY	 ? WM_FIELD_KEY
			      : f == WM_KAFKA_FIELD_SKIP ? WM_FIELD_SKIP
							 : WM_FIELD_INT;
		if (f == WM_KAFKA_FIELD_TIMESTAMP)
			s->ts_field = (int)i;
		else if (f == WM_KAFKA_FIELD_KEY)
			s->key_field = (int)i;
		else if (f == WM_KAFKA_FIELD_VALUE)
			s->value_field = (int)i;
	}
	s->layout = (struct wm_field_layout){
		.n = kc->n_fields,
		.names = s->names,
		.kinds = s->kinds,
		.required = kc->n_fields,
		/* A topic's JSON values carry what their producers put in
		 * them; the fields named are read, the rest passed. */
		.others_ok = true,
		.unknown_detail = "",
	};
}

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
static int
resolve(struct ksource *s, const struct wm_kafka_offsets *o, bool stopping,
	int timeout_ms, int64_t *out, char *err, size_t errlen)
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
		code = authorization(e) ? EX_NOPERM : EX_UNAVAILABLE;
	}
	return code;
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

/* The consumer of s, its queue waking the driver; 0 or a sysexits
 * code with a message. */
static int
connect_client(struct ksource *s, const struct wm_stage *st,
	       const struct wm_kafka_conf *kc, char *err, size_t errlen)
{
	char client_id[128], group[160], why[256];
	rd_kafka_conf_t *conf;

	snprintf(client_id, sizeof(client_id), "wmrun-%s-%" PRIu32, st->name,
		 s->index);
	/* librdkafka has a consumer queue only with a group.id; without the
	 * user's, one of ours that nothing is committed to (manual
	 * assignment never joins the group). */
	snprintf(group, sizeof(group), "wmrun-%s", st->name);
	conf = client_conf(kc, client_id,
			   kc->group_id != NULL ? kc->group_id : group, err,
			   errlen);
	if (conf == NULL)
		return EX_CONFIG;
	rd_kafka_conf_set_error_cb(conf, on_error);
	rd_kafka_conf_set_opaque(conf, s);
	s->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, why, sizeof(why));
	if (s->rk == NULL) {
		rd_kafka_conf_destroy(conf);
		snprintf(err, errlen, "kafka: %s", why);
		return EX_CONFIG;
	}
	rd_kafka_poll_set_consumer(s->rk);
	s->q = rd_kafka_queue_get_consumer(s->rk);
	if (s->q == NULL) {
		snprintf(err, errlen, "kafka: no consumer queue");
		return EX_SOFTWARE;
	}
	rd_kafka_queue_cb_event_enable(s->q, queue_event, s);
	return 0;
}

/* The partitions s owns among the topic's `count`, at their starting
 * and stopping offsets. 0 or a sysexits code with a message. */
static int
place(struct ksource *s, const struct wm_kafka_conf *kc, uint32_t count,
      char *err, size_t errlen)
{
	int timeout = (int)(kc->broker_timeout_ms > 0 ? kc->broker_timeout_ms
						      : 30000);
	int64_t *start, *stop;
	int code;

	discover(s, count);
	if (s->health.exit_code != 0) {
		snprintf(err, errlen, "%s", s->health.why);
		return s->health.exit_code;
	}
	start = calloc(s->n ? s->n : 1, sizeof(*start));
	stop = calloc(s->n ? s->n : 1, sizeof(*stop));
	if (start == NULL || stop == NULL) {
		free(start);
		free(stop);
		snprintf(err, errlen, "kafka: out of memory");
		return EX_OSERR;
	}
	code = resolve(s, &kc->starting, false, timeout, start, err, errlen);
	if (code == 0 && s->bounded)
		code = resolve(s, &kc->stopping, true, timeout, stop, err,
			       errlen);
	for (uint32_t i = 0; code == 0 && i < s->n; i++) {
		s->part[i].next = start[i];
		s->part[i].stop = s->bounded ? stop[i] : NO_STOP;
		if (start[i] >= s->part[i].stop)
			finish(s, i); /* nothing to read: done at once */
	}
	free(start);
	free(stop);
	return code;
}

struct wm_record_source *
wm_kafka_source_open(const struct wm_stage *st, uint32_t index,
		     struct wm_keys *keys, int *exit_code, char *err,
		     size_t errlen)
{
	const struct wm_source_conf *sc = &st->u.source;
	const struct wm_kafka_conf *kc = sc->kafka;
	struct ksource *s = calloc(1, sizeof(*s));
	uint32_t count = 0;
	int code = 0;

	if (s == NULL)
		goto nomem;
	s->source.ops = &kafka_ops;
	s->index = index;
	s->parallelism = st->parallelism;
	s->room = sc->partitions;
	s->bounded = kc->stopping.position != WM_KAFKA_UNBOUNDED;
	s->discovery_ms = s->bounded ? 0 : kc->discovery_interval_ms;
	s->broker_timeout_ms =
		kc->broker_timeout_ms > 0 ? kc->broker_timeout_ms : 30000;
	s->value_format = kc->value_format;
	s->timestamp_from_value = kc->timestamp_from_value;
	s->key_from_value = kc->key_from_value;
	s->key_type = sc->key_type == WM_KEY_TYPE_STRING ? WM_KEY_TYPE_STRING
							 : WM_KEY_TYPE_LONG;
	s->key_type_stated = sc->key_type != WM_KEY_TYPE_TRACE;
	s->keys = keys;
	s->skip_bad = sc->skip_bad_records;
	value_layout(s, kc);
	s->topic = strdup(kc->topic);
	s->servers = strdup(kc->bootstrap_servers);
	s->group_id = dup_or_null(kc->group_id);
	s->slot = malloc((s->room ? s->room : 1) * sizeof(*s->slot));
	if (s->topic == NULL || s->servers == NULL || s->slot == NULL ||
	    (kc->group_id != NULL && s->group_id == NULL))
		goto nomem;
	for (uint32_t p = 0; p < s->room; p++)
		s->slot[p] = NO_SLOT;
	if (s->key_type == WM_KEY_TYPE_STRING && keys == NULL) {
		snprintf(err, errlen, "kafka: string keys need a dictionary");
		code = EX_SOFTWARE;
		goto fail;
	}
	code = connect_client(s, st, kc, err, errlen);
	if (code == 0)
		code = topic_partitions(s->rk, kc, NULL, &count, err, errlen);
	if (code == 0)
		code = place(s, kc, count, err, errlen);
	if (code != 0)
		goto fail;
	s->watch = wm_kafka_watch_start(s->rk, s->topic, s->discovery_ms,
					s->broker_timeout_ms, call_wake, s);
	if (s->watch == NULL) {
		snprintf(err, errlen, "kafka: could not start a thread: %s",
			 strerror(errno));
		code = EX_OSERR;
		goto fail;
	}
	return &s->source;
nomem:
	snprintf(err, errlen, "kafka: out of memory");
	code = EX_OSERR;
fail:
	if (s != NULL)
		kafka_free(&s->source);
	*exit_code = code;
	return NULL;
}
