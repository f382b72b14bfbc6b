/*
 * kafka_source.c
 *	The record source of one source subtask over a Kafka topic
 *	(kafka_source.h): a librdkafka consumer assigned the partitions the
 *	subtask owns, read without ever blocking, its positions kept,
 *	snapshotted and restored here, not in Kafka.
 *
 * Reading. next() takes what the consumer's queue holds with a timeout
 * of 0, up to KAFKA_HELD messages a call of librdkafka, and hands them
 * over one a call from its own array (held[]): the queue's head, kept
 * here. The consumer queue's event callback (rd_kafka_queue_cb_event_
 * enable()) calls the driver's wake function from librdkafka's threads
 * when the queue turns non-empty; the callback rather than the pipe of
 * rd_kafka_queue_io_event_enable() because the worker waits on a futex,
 * not on descriptors: the callback bumps it directly, with no descriptor
 * per subtask and no byte to drain. The callback fires only on the edge
 * from empty, so next_due_ns() says "now" while messages are held or
 * the queue still holds something, and the driver comes back for them.
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
 * effect is dropped (those held at once, kafka_pause()), and the
 * partition sought back to `next` when it resumes: the record waits in
 * Kafka, as a paused split's records do in Flink (librdkafka's pause
 * fences off such messages in its queue, not those it handed out, which
 * are held here).
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
 *
 * The librdkafka client (configured, connected, probed, closed) is
 * kafka_client.c's, the lookup of the starting and stopping offsets
 * kafka_offsets.c's, the state they share kafka_internal.h's.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <librdkafka/rdkafka.h>

#include "base/clock.h"
#include "lib/snap.h"
#include "lib/units.h"
#include "runtime/source/kafka_source.h"
#include "runtime/source/kafka_internal.h"
#include "runtime/source/kafka_watch.h"
#include "base/log.h"
#include "runtime/source/record_fields.h"
#include "runtime/source/replay.h" /* WM_REPLAY_REPORTED */

static const struct wm_record_source_ops kafka_ops;

/* The source stops the job with `code` (sysexits) and the message fmt
 * makes, as health() then says (record_source.h). */
static void stop_source(struct ksource *s, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
stop_source(struct ksource *s, int code, const char *fmt, ...)
{
	va_list ap;

	s->health.exit_code = code;
	va_start(ap, fmt);
	vsnprintf(s->health.why, sizeof(s->health.why), fmt, ap);
	va_end(ap);
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
		stop_source(
			s, EX_SOFTWARE,
			"kafka: topic \"%s\": could not assign partitions: %s",
			s->topic, rd_kafka_error_string(e));
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
			stop_source(s, EX_OSERR, "kafka: out of memory");
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
 * The record of message m: 0, -EBADMSG with err, or -ENOMEM. The key
 * last, so that a record refused for another reason interns nothing.
 */
static int
read_record(struct ksource *s, const rd_kafka_message_t *m,
	    struct wm_record *out, char *err, size_t errlen)
{
	const char *text = m->payload;
	size_t len = m->len;
	int64_t f[WM_KAFKA_MAX_FIELDS];
	struct wm_key_field kf = {0};
	rd_kafka_timestamp_type_t tstype;
	uint64_t given = 0;
	int r;

	/* The layout's fields alone (every index in it is below n): the
	 * whole array is 512 bytes a record to zero. */
	memset(f, 0, s->layout.n * sizeof(f[0]));

	out->flags = 0;
	out->partition = (uint32_t)m->partition;
	out->value = 1;
	/* The end of a line a producer may have sent with it. */
	if (len > 0 && text[len - 1] == '\n')
		len--;
	if (len > 0 && text[len - 1] == '\r')
		len--;
	if (s->value_format != WM_KAFKA_VALUE_NONE && text == NULL) {
		snprintf(err, errlen, "no value (a tombstone)");
		return -EBADMSG;
	}
	if (s->value_format == WM_KAFKA_VALUE_NUMBER) {
		const char *bad = wm_units_int64(text, len, &out->value);

		if (bad != NULL)
			return wm_fields_refuse(err, errlen, "value", text, len,
						bad),
			       -EBADMSG;
	} else if (s->value_format == WM_KAFKA_VALUE_CSV ||
		   s->value_format == WM_KAFKA_VALUE_JSON) {
		if (wm_fields_parse(
			    text, len, s->value_format == WM_KAFKA_VALUE_JSON,
			    &s->layout, f, &kf, &given, err, errlen) < 0)
			return -EBADMSG;
		if (s->value_field >= 0)
			out->value = f[s->value_field];
	}
	if (s->timestamp_from_value) {
		out->ts = f[s->ts_field];
	} else {
		out->ts = rd_kafka_message_timestamp(m, &tstype);
		if (tstype == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE || out->ts < 0) {
			snprintf(err, errlen, "no timestamp");
			return -EBADMSG;
		}
	}
	if (!s->key_from_value) {
		if (m->key == NULL) {
			snprintf(err, errlen,
				 "no key (the record's key is "
				 "null)");
			return -EBADMSG;
		}
		kf = (struct wm_key_field){.text = m->key,
					   .len = m->key_len,
					   .col = 1,
					   .form = WM_KEY_BARE};
	}
	if (s->punctuate_field >= 0 && f[s->punctuate_field] != 0 &&
	    f[s->punctuate_field] != 1) {
		snprintf(err, errlen,
			 "invalid punctuate \"%" PRId64
			 "\" (1: the record carries a watermark at its "
			 "timestamp, 0: it does not)",
			 f[s->punctuate_field]);
		return -EBADMSG;
	}
	if (s->heartbeat_field >= 0 && f[s->heartbeat_field] != 0 &&
	    f[s->heartbeat_field] != 1) {
		snprintf(err, errlen,
			 "invalid heartbeat \"%" PRId64
			 "\" (1: a heartbeat, 0: a record)",
			 f[s->heartbeat_field]);
		return -EBADMSG;
	}
	r = wm_fields_key(&kf, s->key_type, s->key_type_stated, s->keys,
			  &out->key, &out->flags, err, errlen);
	if (r != 0)
		return r;
	if (s->punctuate_field >= 0 && f[s->punctuate_field] == 1)
		out->flags |= WM_RECORD_PUNCTUATE;
	if (s->heartbeat_field >= 0 && f[s->heartbeat_field] == 1)
		out->flags |= WM_RECORD_HEARTBEAT;
	if (s->watermark_field >= 0 && (given >> s->watermark_field & 1)) {
		out->flags |= WM_RECORD_WATERMARK;
		s->carried = f[s->watermark_field];
	}
	return 0;
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
		stop_source(s, EX_DATAERR, "%s", where);
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
		stop_source(s, EX_UNAVAILABLE,
			    "kafka: no broker of %s answered for %s",
			    s->servers,
			    wm_kafka_client_seconds(s->broker_timeout_ms, t,
						    sizeof(t)));
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
		stop_source(
			s, EX_NOINPUT,
			"kafka: topic \"%s\" was deleted while the job read it",
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
		stop_source(s, EX_UNAVAILABLE,
			    "kafka: no broker of %s reachable for %s",
			    s->servers,
			    wm_kafka_client_seconds(s->broker_timeout_ms, t,
						    sizeof(t)));
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
		stop_source(s, EX_NOPERM, "kafka: topic \"%s\": %s", s->topic,
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

/*
 * The index of the partition whose record message m holds, when the
 * record is to be read; -1 when m is to be dropped: an error of the
 * consumer's (consumer_error()), a partition not ours or finished, a
 * record of a paused partition fetched before the pause (sought back on
 * resume, kafka_pause()), or one past the partition's stop (which
 * finishes it). A message of one of our partitions is a sign of life of
 * the brokers. Out of kafka_next() to keep its loop readable; inline:
 * every record passes here.
 */
static inline int
message_slot(struct ksource *s, const rd_kafka_message_t *m, int64_t now_ns)
{
	struct kpart *p;
	uint32_t i;

	if (m->err != 0) {
		consumer_error(s, m);
		return -1;
	}
	if (m->partition < 0 || (uint32_t)m->partition >= s->room ||
	    s->slot[m->partition] == NO_SLOT)
		return -1;
	i = s->slot[m->partition];
	p = &s->part[i];
	outage_over(s, now_ns); /* a broker answered */
	s->heard_ns = now_ns;
	if (p->finished)
		return -1;
	if (p->next >= 0 && m->offset < p->next)
		offset_reset(s, p, m->offset);
	if (p->paused) {
		p->reseek = true;
		return -1;
	}
	if (m->offset >= p->stop) {
		/* Past the stop without a record at stop - 1 (a
		 * transaction marker, a compacted record). */
		finish(s, i);
		unassign(s, i);
		return -1;
	}
	return (int)i;
}

/* ---- the record source ---- */

/*
 * Refill s->held from the consumer's queue, without waiting: true when
 * it holds a message. The brokers' news is looked at once a refill, not
 * once a message: an outage cannot start while messages come, and its
 * timeout is seconds. The topic and the brokers' silence only when the
 * queue is empty: messages fetched before a deletion are read first.
 */
static bool
take_messages(struct ksource *s, int64_t now_ns)
{
	ssize_t n;

	watch_brokers(s, now_ns);
	if (s->health.exit_code != 0)
		return false;
	n = rd_kafka_consume_batch_queue(s->q, 0, s->held, KAFKA_HELD);
	s->held_at = 0;
	s->held_n = n > 0 ? (uint32_t)n : 0;
	if (s->held_n == 0) {
		watch_topic(s);
		watch_silence(s, now_ns);
		return false;
	}
	return true;
}

/*
 * The next record of the messages held, taken from the queue a run at a
 * time (take_messages()): one lock of the queue a message, as
 * rd_kafka_consume_queue() took, but no clock read and no call into
 * librdkafka's poll bookkeeping a message, and next_due_ns() asks the
 * queue nothing while messages are held.
 */
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
	/* A message stays held while the source fails: its position was
	 * not moved, and the record stays in Kafka. */
	while (s->health.exit_code == 0 &&
	       (s->held_at < s->held_n || take_messages(s, now_ns))) {
		rd_kafka_message_t *m = s->held[s->held_at];
		struct kpart *p;
		uint32_t i;
		int slot, r;

		slot = message_slot(s, m, now_ns);
		if (slot < 0) {
			s->held_at++;
			rd_kafka_message_destroy(m);
			continue;
		}
		i = (uint32_t)slot;
		p = &s->part[i];
		r = read_record(s, m, out, why, sizeof(why));
		if (r == -ENOMEM) {
			stop_source(s, EX_OSERR, "kafka: out of memory");
			return 0;
		}
		if (r != 0 && !bad_record(s, i, m, why))
			return 0;
		s->held_at++;
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
	return 0;
}

/* The messages held that are not handed over, destroyed; those of
 * partition `id` alone when id >= 0. How many. */
static uint32_t
drop_held(struct ksource *s, int32_t id)
{
	uint32_t kept = s->held_at, dropped = 0;

	for (uint32_t k = s->held_at; k < s->held_n; k++) {
		rd_kafka_message_t *m = s->held[k];

		if (id < 0 || (m->err == 0 && m->partition == id)) {
			rd_kafka_message_destroy(m);
			dropped++;
		} else {
			s->held[kept++] = m;
		}
	}
	s->held_n = kept;
	return dropped;
}

static int64_t
kafka_next_due(const struct wm_record_source *src)
{
	const struct ksource *s = (const struct ksource *)src;

	if (s->health.exit_code != 0)
		return INT64_MAX;
	/* Not assigned yet, messages held, or more in the queue than the
	 * wake said. */
	if (!s->assigned || s->held_at < s->held_n ||
	    rd_kafka_queue_length(s->q) > 0)
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
 * stops fetching it. A record of it fetched before that and held, or
 * met in the queue meanwhile, is dropped (here, next()), and the
 * partition sought back to its position when it resumes, after the
 * resume: librdkafka resumes a partition at the last record it handed
 * out plus one, which would skip the dropped ones.
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
		/* Its messages held are past what librdkafka would fetch
		 * again on resume: they go, and the resume seeks back. Kept,
		 * one resume could see some of them dropped while paused
		 * and the rest read after: a gap, then the seek's repeats. */
		if (drop_held(s, p->id) > 0)
			p->reseek = true;
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

static void
kafka_free(struct wm_record_source *src)
{
	struct ksource *s = (struct ksource *)src;

	/* The driver's wake function may be gone once this returns. */
	atomic_store(&s->wake, NULL);
	/* Before the client: a message holds a reference into it. */
	drop_held(s, -1);
	wm_kafka_client_close(s);
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

static wm_ts_t
kafka_carried_watermark(const struct wm_record_source *src)
{
	return ((const struct ksource *)src)->carried;
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
	.carried_watermark = kafka_carried_watermark,
};

/* ---- opening ---- */

/* The value's fields as the record-field parser reads them. */
static void
value_layout(struct ksource *s, const struct wm_kafka_conf *kc)
{
	s->ts_field = s->key_field = s->value_field = s->punctuate_field = -1;
	s->heartbeat_field = s->watermark_field = -1;
	for (uint32_t i = 0; i < kc->n_fields; i++) {
		enum wm_kafka_field f = kc->fields[i];

		s->names[i] = wm_kafka_field_name(f);
		s->kinds[i] = f == WM_KAFKA_FIELD_KEY	 ? WM_FIELD_KEY
			      : f == WM_KAFKA_FIELD_SKIP ? WM_FIELD_SKIP
			      : f == WM_KAFKA_FIELD_WATERMARK
				      ? WM_FIELD_MAYBE_INT
				      : WM_FIELD_INT;
		if (f == WM_KAFKA_FIELD_TIMESTAMP)
			s->ts_field = (int)i;
		else if (f == WM_KAFKA_FIELD_KEY)
			s->key_field = (int)i;
		else if (f == WM_KAFKA_FIELD_VALUE)
			s->value_field = (int)i;
		else if (f == WM_KAFKA_FIELD_PUNCTUATE)
			s->punctuate_field = (int)i;
		else if (f == WM_KAFKA_FIELD_HEARTBEAT)
			s->heartbeat_field = (int)i;
		else if (f == WM_KAFKA_FIELD_WATERMARK)
			s->watermark_field = (int)i;
	}
	s->layout = (struct wm_field_layout){
		.n = kc->n_fields,
		.names = s->names,
		.kinds = s->kinds,
		/* Where kafka.value_fields says; the topology outlives the
		 * source. */
		.paths = kc->paths,
		.required = kc->n_fields,
		/* A topic's JSON values carry what their producers put in
		 * them: the fields named are read, every other member read
		 * past, whatever its name. */
	};
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
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
	code = wm_kafka_offsets_resolve(s, &kc->starting, false, timeout, start,
					err, errlen);
	if (code == 0 && s->bounded)
		code = wm_kafka_offsets_resolve(s, &kc->stopping, true, timeout,
						stop, err, errlen);
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
	code = wm_kafka_client_connect(s, st, kc, err, errlen);
	if (code == 0)
		code = wm_kafka_client_partitions(s->rk, kc, &count, err,
						  errlen);
	if (code == 0)
		code = place(s, kc, count, err, errlen);
	if (code != 0)
		goto fail;
	s->watch = wm_kafka_watch_start(s->rk, s->topic, s->discovery_ms,
					s->broker_timeout_ms,
					wm_kafka_client_wake, s);
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
