/*
 * kafka_tool.c
 *	A real Kafka broker from the command line, through librdkafka, for
 *	the tests of the Kafka source (tests/lib/kafka_lib.sh):
 *
 *	kafka_tool create-topic BOOTSTRAP TOPIC PARTITIONS
 *		create TOPIC (replication factor 1) and wait until the
 *		broker's metadata shows it with PARTITIONS partitions, each
 *		with a leader
 *	kafka_tool add-partitions BOOTSTRAP TOPIC TOTAL
 *		grow TOPIC to TOTAL partitions and wait until metadata shows
 *		them
 *	kafka_tool produce BOOTSTRAP TOPIC
 *		produce the records of standard input, one a line
 *		"partition,timestamp_ms,key,value": to exactly that partition,
 *		with that CreateTime timestamp; the key and the value are
 *		bytes (the value is the rest of the line, commas and all), an
 *		empty key is a null key. The producer is idempotent, so each
 *		partition keeps the order of the lines through retries. Exit
 *		0 only when every record was acknowledged.
 *	kafka_tool end-offsets BOOTSTRAP TOPIC
 *		print "partition,low,high" for every partition of TOPIC
 *	kafka_tool delete-topic BOOTSTRAP TOPIC
 *		delete TOPIC and wait until the broker's metadata no longer
 *		shows it
 *
 *	Exit status: 64 usage, 65 a bad line of input (stdin:LINE:COLUMN
 *	names it) or a partition count the broker refused, 66 no such
 *	topic, 69 the broker did not answer or refused a record, 73 the
 *	topic exists already, 78 librdkafka refused the configuration.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>

#include <librdkafka/rdkafka.h>

/* How long a request may take on a loaded machine before it is an error. */
#define TIMEOUT_MS 60000

static int
usage(void)
{
	fprintf(stderr,
		"usage: kafka_tool create-topic BOOTSTRAP TOPIC PARTITIONS\n"
		"       kafka_tool add-partitions BOOTSTRAP TOPIC TOTAL\n"
		"       kafka_tool produce BOOTSTRAP TOPIC <LINES\n"
		"       kafka_tool end-offsets BOOTSTRAP TOPIC\n"
		"       kafka_tool delete-topic BOOTSTRAP TOPIC\n"
		"a line of produce: partition,timestamp_ms,key,value\n");
	return EX_USAGE;
}

/* A client of BOOTSTRAP made of CONF and SETTINGS (pairs of a name and a
 * value, NULL ended), or NULL after saying why (*status set). */
static rd_kafka_t *
client(const char *bootstrap, const char *const *settings,
       rd_kafka_conf_t *conf, int *status)
{
	char err[512];
	rd_kafka_t *rk;

	if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, err,
			      sizeof(err)) != RD_KAFKA_CONF_OK)
		goto refused;
	for (; settings != NULL && settings[0] != NULL; settings += 2)
		if (rd_kafka_conf_set(conf, settings[0], settings[1], err,
				      sizeof(err)) != RD_KAFKA_CONF_OK)
			goto refused;
	rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
	if (rk == NULL) {
		fprintf(stderr, "kafka_tool: %s\n", err);
		*status = EX_CONFIG;
	}
	return rk; /* rd_kafka_new() owns conf, also when it fails */
refused:
	fprintf(stderr, "kafka_tool: %s\n", err);
	rd_kafka_conf_destroy(conf);
	*status = EX_CONFIG;
	return NULL;
}

/* TOPIC's partitions in the broker's metadata: their number (-1 when
 * the topic does not exist), and whether each has a leader. 0, or an
 * exit status after saying why. */
static int
describe(rd_kafka_t *rk, const char *topic, int *partitions, bool *led)
{
	const struct rd_kafka_metadata *md;
	rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 1, NULL, &md, TIMEOUT_MS);

	if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
		fprintf(stderr, "kafka_tool: no metadata from the broker: %s\n",
			rd_kafka_err2str(e));
		return EX_UNAVAILABLE;
	}
	*partitions = -1;
	*led = false;
	for (int t = 0; t < md->topic_cnt; t++) {
		const struct rd_kafka_metadata_topic *mt = &md->topics[t];

		if (strcmp(mt->topic, topic) != 0 ||
		    mt->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART)
			continue;
		*partitions = mt->partition_cnt;
		*led = mt->err == RD_KAFKA_RESP_ERR_NO_ERROR;
		for (int p = 0; p < mt->partition_cnt; p++)
			*led = *led && mt->partitions[p].leader >= 0 &&
			       mt->partitions[p].err ==
				       RD_KAFKA_RESP_ERR_NO_ERROR;
	}
	rd_kafka_metadata_destroy(md);
	return 0;
}

/* Wait until the metadata shows TOPIC with WANT partitions, all led: a
 * created topic or added partitions reach the broker's metadata cache a
 * moment after the controller answered. 0, or an exit status. */
static int
await_partitions(rd_kafka_t *rk, const char *topic, int want)
{
	int got = -1;
	bool led = false;
	time_t deadline = time(NULL) + TIMEOUT_MS / 1000;

	for (;;) {
		int r = describe(rk, topic, &got, &led);

		if (r != 0)
			return r;
		if (got == want && led)
			return 0;
		if (time(NULL) > deadline)
			break;
		struct timespec pause = {0, 50 * 1000 * 1000};
		nanosleep(&pause, NULL);
	}
	fprintf(stderr,
		"kafka_tool: topic %s has %d partitions%s after %d s, not %d "
		"with leaders\n",
		topic, got, led ? "" : " (not all led)", TIMEOUT_MS / 1000,
		want);
	return EX_UNAVAILABLE;
}

/* A count of partitions from the command line (1 to 1,000,000). */
static int
count_arg(const char *what, const char *s)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || n < 1 || n > 1000000) {
		fprintf(stderr,
			"kafka_tool: %s \"%s\" is not a number from 1 to "
			"1000000\n",
			what, s);
		return -1;
	}
	return (int)n;
}

/* The one result of an admin request of TYPE on QUEUE, or NULL after
 * saying why. */
static rd_kafka_event_t *
admin_result(rd_kafka_queue_t *queue, rd_kafka_event_type_t type)
{
	rd_kafka_event_t *ev = rd_kafka_queue_poll(queue, 2 * TIMEOUT_MS);

	if (ev == NULL) {
		fprintf(stderr, "kafka_tool: the broker did not answer\n");
		return NULL;
	}
	if (rd_kafka_event_type(ev) != type ||
	    rd_kafka_event_error(ev) != RD_KAFKA_RESP_ERR_NO_ERROR) {
		fprintf(stderr, "kafka_tool: %s\n",
			rd_kafka_event_error_string(ev));
		rd_kafka_event_destroy(ev);
		return NULL;
	}
	return ev;
}

/* The exit status of a topic's result in an admin answer. */
static int
topic_status(const rd_kafka_topic_result_t *res)
{
	rd_kafka_resp_err_t e = rd_kafka_topic_result_error(res);
	const char *why = rd_kafka_topic_result_error_string(res);

	if (e == RD_KAFKA_RESP_ERR_NO_ERROR)
		return 0;
	fprintf(stderr, "kafka_tool: topic %s: %s\n",
		rd_kafka_topic_result_name(res),
		why != NULL ? why : rd_kafka_err2str(e));
	switch (e) {
	case RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS:
		return EX_CANTCREAT;
	case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
		return EX_NOINPUT;
	case RD_KAFKA_RESP_ERR_INVALID_PARTITIONS:
	case RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION:
		return EX_DATAERR;
	default:
		return EX_UNAVAILABLE;
	}
}

static rd_kafka_AdminOptions_t *
admin_options(rd_kafka_t *rk, rd_kafka_admin_op_t op)
{
	char err[512];
	rd_kafka_AdminOptions_t *o = rd_kafka_AdminOptions_new(rk, op);

	/* The controller answers once the change is done, not accepted. */
	rd_kafka_AdminOptions_set_operation_timeout(o, TIMEOUT_MS, err,
						    sizeof(err));
	rd_kafka_AdminOptions_set_request_timeout(o, 2 * TIMEOUT_MS, err,
						  sizeof(err));
	return o;
}

/* Create TOPIC with PARTITIONS partitions (CREATE), or grow it to
 * PARTITIONS, and wait until the metadata shows them. 0, or an exit
 * status after saying why. */
static int
change_topic(rd_kafka_t *rk, const char *topic, int partitions, bool create)
{
	char err[512];
	rd_kafka_queue_t *queue = rd_kafka_queue_new(rk);
	rd_kafka_AdminOptions_t *o =
		admin_options(rk, create ? RD_KAFKA_ADMIN_OP_CREATETOPICS
					 : RD_KAFKA_ADMIN_OP_CREATEPARTITIONS);
	rd_kafka_NewTopic_t *nt = NULL;
	rd_kafka_NewPartitions_t *np = NULL;
	rd_kafka_event_t *ev = NULL;
	const rd_kafka_topic_result_t **res = NULL;
	size_t n = 0;
	int r = EX_USAGE;

	if (create)
		nt = rd_kafka_NewTopic_new(topic, partitions, 1, err,
					   sizeof(err));
	else
		np = rd_kafka_NewPartitions_new(topic, (size_t)partitions, err,
						sizeof(err));
	if (nt == NULL && np == NULL) {
		fprintf(stderr, "kafka_tool: %s\n", err);
		goto out;
	}
	if (create) {
		rd_kafka_CreateTopics(rk, &nt, 1, o, queue);
		rd_kafka_NewTopic_destroy(nt);
		ev = admin_result(queue, RD_KAFKA_EVENT_CREATETOPICS_RESULT);
		if (ev != NULL)
			res = rd_kafka_CreateTopics_result_topics(
				rd_kafka_event_CreateTopics_result(ev), &n);
	} else {
		rd_kafka_CreatePartitions(rk, &np, 1, o, queue);
		rd_kafka_NewPartitions_destroy(np);
		ev = admin_result(queue,
				  RD_KAFKA_EVENT_CREATEPARTITIONS_RESULT);
		if (ev != NULL)
			res = rd_kafka_CreatePartitions_result_topics(
				rd_kafka_event_CreatePartitions_result(ev), &n);
	}
	if (ev == NULL) {
		r = EX_UNAVAILABLE;
		goto out;
	}
	r = n == 1 ? topic_status(res[0]) : EX_SOFTWARE;
	rd_kafka_event_destroy(ev);
	if (r == 0)
		r = await_partitions(rk, topic, partitions);
out:
	rd_kafka_AdminOptions_destroy(o);
	rd_kafka_queue_destroy(queue);
	return r;
}

/* Delete TOPIC and wait until the metadata no longer shows it. 0, or an
 * exit status after saying why (66: no such topic). */
static int
delete_topic(rd_kafka_t *rk, const char *topic)
{
	rd_kafka_queue_t *queue = rd_kafka_queue_new(rk);
	rd_kafka_AdminOptions_t *o =
		admin_options(rk, RD_KAFKA_ADMIN_OP_DELETETOPICS);
	rd_kafka_DeleteTopic_t *dt = rd_kafka_DeleteTopic_new(topic);
	const rd_kafka_topic_result_t **res = NULL;
	rd_kafka_event_t *ev;
	time_t deadline = time(NULL) + TIMEOUT_MS / 1000;
	size_t n = 0;
	int r = EX_UNAVAILABLE, got = 0;
	bool led;

	rd_kafka_DeleteTopics(rk, &dt, 1, o, queue);
	rd_kafka_DeleteTopic_destroy(dt);
	ev = admin_result(queue, RD_KAFKA_EVENT_DELETETOPICS_RESULT);
	if (ev != NULL) {
		res = rd_kafka_DeleteTopics_result_topics(
			rd_kafka_event_DeleteTopics_result(ev), &n);
		r = n == 1 ? topic_status(res[0]) : EX_SOFTWARE;
		rd_kafka_event_destroy(ev);
	}
	while (r == 0 && (r = describe(rk, topic, &got, &led)) == 0 &&
	       got >= 0) {
		struct timespec pause = {0, 50 * 1000 * 1000};

		if (time(NULL) > deadline) {
			fprintf(stderr,
				"kafka_tool: topic %s still shown after %d s\n",
				topic, TIMEOUT_MS / 1000);
			r = EX_UNAVAILABLE;
			break;
		}
		nanosleep(&pause, NULL);
	}
	rd_kafka_AdminOptions_destroy(o);
	rd_kafka_queue_destroy(queue);
	return r;
}

/* TOPIC's partitions; 0, or an exit status (66: no such topic). */
static int
existing_partitions(rd_kafka_t *rk, const char *topic, int *partitions)
{
	bool led;
	int r = describe(rk, topic, partitions, &led);

	if (r == 0 && *partitions < 0) {
		fprintf(stderr, "kafka_tool: topic %s does not exist\n", topic);
		r = EX_NOINPUT;
	}
	return r;
}

/* What the delivery reports said: records the broker refused, and the
 * line of the first. */
struct deliveries {
	uint64_t failed;
	uintptr_t first_line;
	rd_kafka_resp_err_t first_err;
};

static void
delivered(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
	struct deliveries *d = opaque;

	(void)rk;
	if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR)
		return;
	if (d->failed++ == 0) {
		d->first_line = (uintptr_t)m->_private;
		d->first_err = m->err;
	}
}

/* A field of LINE from *AT up to a comma (consumed), or NULL. */
static char *
field(char **at)
{
	char *start = *at, *comma = strchr(start, ',');

	if (comma == NULL)
		return NULL;
	*comma = '\0';
	*at = comma + 1;
	return start;
}

/* A decimal integer in [MIN, MAX] that is the whole of S. */
static bool
integer(const char *s, long long min, long long max, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno == 0 && end != s && *end == '\0' && *v >= min && *v <= max;
}

/* One line of input as a record for rd_kafka_producev(); 0, or 65 after
 * naming the line and column. PARTITIONS is the topic's count. */
static int
parse_line(char *line, uintptr_t lineno, int partitions, int32_t *partition,
	   int64_t *timestamp, char **key, char **value)
{
	char *at = line, *p, *ts;
	long long v;

	p = field(&at);
	ts = p != NULL ? field(&at) : NULL;
	*key = ts != NULL ? field(&at) : NULL;
	if (*key == NULL) {
		fprintf(stderr,
			"stdin:%" PRIuPTR ":1: not partition,timestamp_ms,key,"
			"value\n",
			lineno);
		return EX_DATAERR;
	}
	*value = at;
	if (!integer(p, 0, (long long)partitions - 1, &v)) {
		fprintf(stderr,
			"stdin:%" PRIuPTR ":1: partition \"%s\" is not one of "
			"the topic's 0 to %d\n",
			lineno, p, partitions - 1);
		return EX_DATAERR;
	}
	*partition = (int32_t)v;
	/* librdkafka reads a timestamp of 0 as "now": it cannot be sent. */
	if (!integer(ts, 1, INT64_MAX, &v)) {
		fprintf(stderr,
			"stdin:%" PRIuPTR ":%td: timestamp \"%s\" is not a "
			"number of milliseconds from 1 up (librdkafka sends 0 "
			"as the current time)\n",
			lineno, ts - line + 1, ts);
		return EX_DATAERR;
	}
	*timestamp = (int64_t)v;
	return 0;
}

static int
produce_line(rd_kafka_t *rk, const char *topic, char *line, uintptr_t lineno,
	     int partitions)
{
	int32_t partition;
	int64_t timestamp;
	char *key, *value;
	const char *record_key = NULL; /* an empty key is a null key */
	rd_kafka_resp_err_t e;
	int r = parse_line(line, lineno, partitions, &partition, &timestamp,
			   &key, &value);

	if (r != 0)
		return r;
	if (*key != '\0')
		record_key = key;
	for (;;) {
		e = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic),
				      RD_KAFKA_V_PARTITION(partition),
				      RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
				      RD_KAFKA_V_KEY(record_key, strlen(key)),
				      RD_KAFKA_V_VALUE(value, strlen(value)),
				      RD_KAFKA_V_TIMESTAMP(timestamp),
				      RD_KAFKA_V_OPAQUE((void *)lineno),
				      RD_KAFKA_V_END);
		if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL)
			break;
		/* The local queue is full: wait for deliveries. */
		rd_kafka_poll(rk, 100);
	}
	if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
		fprintf(stderr, "stdin:%" PRIuPTR ":1: %s\n", lineno,
			rd_kafka_err2str(e));
		return EX_DATAERR;
	}
	rd_kafka_poll(rk, 0);
	return 0;
}

static int
produce(const char *bootstrap, const char *topic)
{
	/* enable.idempotence keeps each partition's order through retries
	 * (and implies acks=all); a record not acknowledged in a minute is
	 * an error rather than a hang. */
	static const char *const settings[] = {
		"enable.idempotence", "true",  "linger.ms", "20",
		"message.timeout.ms", "60000", NULL,
	};
	struct deliveries d = {0};
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	rd_kafka_t *rk;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	uintptr_t lineno = 0;
	int partitions, r;

	rd_kafka_conf_set_opaque(conf, &d);
	rd_kafka_conf_set_dr_msg_cb(conf, delivered);
	rk = client(bootstrap, settings, conf, &r);
	if (rk == NULL)
		return r;
	r = existing_partitions(rk, topic, &partitions);
	while (r == 0 && (len = getline(&line, &cap, stdin)) >= 0) {
		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[len - 1] = '\0';
		r = produce_line(rk, topic, line, lineno, partitions);
	}
	free(line);
	if (r == 0 && ferror(stdin)) {
		fprintf(stderr, "kafka_tool: reading stdin: %s\n",
			strerror(errno));
		r = EX_IOERR;
	}
	/* Even after a bad line: what went before it is delivered. */
	if (rd_kafka_flush(rk, 2 * TIMEOUT_MS) != RD_KAFKA_RESP_ERR_NO_ERROR) {
		fprintf(stderr,
			"kafka_tool: %d records not acknowledged in %d s\n",
			rd_kafka_outq_len(rk), 2 * TIMEOUT_MS / 1000);
		r = r != 0 ? r : EX_UNAVAILABLE;
	}
	if (d.failed > 0) {
		fprintf(stderr,
			"kafka_tool: %" PRIu64 " records refused, the first "
			"(stdin:%" PRIuPTR ") with: %s\n",
			d.failed, d.first_line, rd_kafka_err2str(d.first_err));
		r = r != 0 ? r : EX_UNAVAILABLE;
	}
	rd_kafka_destroy(rk);
	return r;
}

static int
end_offsets(rd_kafka_t *rk, const char *topic)
{
	int partitions, r = existing_partitions(rk, topic, &partitions);

	for (int p = 0; r == 0 && p < partitions; p++) {
		int64_t low, high;
		rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(
			rk, topic, p, &low, &high, TIMEOUT_MS);

		if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
			fprintf(stderr, "kafka_tool: %s [%d]: %s\n", topic, p,
				rd_kafka_err2str(e));
			r = EX_UNAVAILABLE;
			break;
		}
		printf("%d,%" PRId64 ",%" PRId64 "\n", p, low, high);
	}
	if (fflush(stdout) != 0 && r == 0)
		r = EX_IOERR;
	return r;
}

int
main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	rd_kafka_t *rk;
	int n = 0, r;

	if (strcmp(cmd, "produce") == 0 && argc == 4)
		return produce(argv[2], argv[3]);
	if ((strcmp(cmd, "create-topic") == 0 ||
	     strcmp(cmd, "add-partitions") == 0) &&
	    argc == 5) {
		n = count_arg(cmd[0] == 'c' ? "PARTITIONS" : "TOTAL", argv[4]);
		if (n < 0)
			return EX_USAGE;
	} else if ((strcmp(cmd, "end-offsets") != 0 &&
		    strcmp(cmd, "delete-topic") != 0) ||
		   argc != 4) {
		return usage();
	}
	rk = client(argv[2], NULL, rd_kafka_conf_new(), &r);
	if (rk == NULL)
		return r;
	if (strcmp(cmd, "end-offsets") == 0)
		r = end_offsets(rk, argv[3]);
	else if (strcmp(cmd, "delete-topic") == 0)
		r = delete_topic(rk, argv[3]);
	else
		r = change_topic(rk, argv[3], n, cmd[0] == 'c');
	rd_kafka_destroy(rk);
	return r;
}
