/*
 * kafka_client.c
 *	The librdkafka client of a Kafka source: its configuration (the
 *	user's properties, then ours), the consumer connected with its queue
 *	waking the driver, the topic probed for its partition count before
 *	the job (wm_kafka_probe()), and the client closed within a deadline.
 *
 * librdkafka calls on_error(), on_log() and queue_event() from its own
 * threads: they touch only the source's atomics (`lost`, `wake`) and the
 * log. Closing may never end in librdkafka (a topic deleted under an
 * assigned consumer); it runs in a thread of its own so that a job's end
 * never waits for it (the comment at wm_kafka_client_close()).
 */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "runtime/source/kafka_client.h"
#include "runtime/source/kafka_internal.h"

void
wm_kafka_client_wake(void *arg)
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
	wm_kafka_client_wake(arg);
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
		/* librdkafka (2.0) stops fetching a partition while the
		 * consumer's queue holds queued.min.messages (100,000 by
		 * default, counted over the whole queue, every partition's
		 * messages forwarded to it) and looks again only when its
		 * broker thread wakes, up to a second later: reading the
		 * 2 M records of bench/kafka_read.sh at parallelism 1 took
		 * 1.2 s with the default, 0.67-0.73 s with the most it
		 * takes. The queue is bounded by its bytes instead, below. */
		{"queued.min.messages", "10000000"},
		/* The bound of the queue, librdkafka's default, now the
		 * only one: 64 MiB of keys and values (librdkafka's few
		 * hundred bytes a message come on top: the read above
		 * peaked at 230-360 MiB of resident memory, against
		 * 210-290 before). 16 MiB stalled the same read now and
		 * then (1.29 s against 0.65), 256 MiB gained nothing. */
		{"queued.max.messages.kbytes", "65536"},
		/* fetch.min.bytes stays 1 and fetch.wait.max.ms 500: the
		 * broker answers a fetch as soon as it has a record. A
		 * minimum of 1 MiB waited up to 100 ms made the same read
		 * slower (0.83-0.91 s), and on a live topic each record
		 * would wait at the broker for the rest, and the
		 * watermarks with it; a backlog fills its fetches anyway. */
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
	/* librdkafka's last error line, for the message: written by its
	 * threads (a log callback runs on any), read under the lock. */
	pthread_mutex_t lock;
	char last_log[200];
};

/* The probe's log: its own message says what failed, with the last of
 * librdkafka's error lines in it, rather than every retry's line raw
 * ("FAIL: [thrd:...]") before it. */
static void
probe_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
	struct probe_errors *pe = rd_kafka_opaque(rk);

	(void)fac;
	if (level > 3)
		return;
	pthread_mutex_lock(&pe->lock);
	snprintf(pe->last_log, sizeof(pe->last_log), "%s", buf);
	pthread_mutex_unlock(&pe->lock);
}

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

bool
wm_kafka_client_authorization(rd_kafka_resp_err_t e)
{
	return e == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
	       e == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED ||
	       e == RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED;
}

/* The broker timeout for messages: "30 s". */
const char *
wm_kafka_client_seconds(int64_t ms, char *buf, size_t len)
{
	if (ms % 1000 == 0)
		snprintf(buf, len, "%" PRId64 " s", ms / 1000);
	else
		snprintf(buf, len, "%" PRId64 " ms", ms);
	return buf;
}

/*
 * The topic's partition count as the brokers say, within timeout_ms: 0 or
 * a sysexits code with a message (kafka_client.h, wm_kafka_probe()).
 */
static int
topic_partitions(rd_kafka_t *rk, const struct wm_kafka_conf *kc,
		 struct probe_errors *pe, uint32_t *partitions, char *err,
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
	 * time out, and read as brokers gone). Brokers that refuse the
	 * connection answer at once (a transport failure, all brokers
	 * down): they are asked again after the slice, until the timeout,
	 * as brokers that do not answer are, so that a broker coming up
	 * within kafka.broker_timeout is found and "reachable in" says how
	 * long was waited. */
	do {
		int64_t slice =
			left_ms < PROBE_SLICE_MS ? left_ms : PROBE_SLICE_MS;
		uint64_t asked = wm_monotonic_ns();
		int64_t took_ms;

		e = rd_kafka_metadata(rk, 0, rkt, &md, (int)slice);
		took_ms = (int64_t)((wm_monotonic_ns() - asked) / 1000000);
		if (e != 0 && took_ms < slice)
			rd_kafka_poll(rk, (int)(slice - took_ms));
		else
			rd_kafka_poll(rk, 0);
		left_ms -= slice;
	} while ((e == RD_KAFKA_RESP_ERR__TIMED_OUT ||
		  e == RD_KAFKA_RESP_ERR__TRANSPORT ||
		  e == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN) &&
		 left_ms > 0 && (pe == NULL || pe->err == 0));
	rd_kafka_topic_destroy(rkt);
	if (e == 0 && md->topic_cnt == 1)
		e = md->topics[0].err;
	if (pe != NULL && pe->err != 0) {
		snprintf(err, errlen,
			 "kafka: authentication with %s failed: %s",
			 kc->bootstrap_servers, pe->reason);
		code = EX_CONFIG;
	} else if (wm_kafka_client_authorization(e)) {
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
		char last[sizeof(pe->last_log)] = "";

		if (pe != NULL) {
			pthread_mutex_lock(&pe->lock);
			memcpy(last, pe->last_log, sizeof(last));
			pthread_mutex_unlock(&pe->lock);
		}
		snprintf(err, errlen,
			 "kafka: no broker of %s reachable in %s (%s%s%s)",
			 kc->bootstrap_servers,
			 wm_kafka_client_seconds(kc->broker_timeout_ms, t,
						 sizeof(t)),
			 rd_kafka_err2str(e), last[0] ? "; last: " : "", last);
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
	struct probe_errors pe = {.lock = PTHREAD_MUTEX_INITIALIZER};
	rd_kafka_conf_t *conf =
		client_conf(kc, "wmrun-probe", "wmrun-probe", err, errlen);
	rd_kafka_t *rk;
	char why[256];
	int code;

	if (conf == NULL)
		return EX_CONFIG;
	rd_kafka_conf_set_error_cb(conf, probe_error);
	rd_kafka_conf_set_log_cb(conf, probe_log);
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

/* topic_partitions() for a source's own client, whose error callback is
 * the source's (on_error()), not the probe's. */
int
wm_kafka_client_partitions(rd_kafka_t *rk, const struct wm_kafka_conf *kc,
			   uint32_t *partitions, char *err, size_t errlen)
{
	return topic_partitions(rk, kc, NULL, partitions, err, errlen);
}

/* The consumer of s, its queue waking the driver; 0 or a sysexits
 * code with a message. */
int
wm_kafka_client_connect(struct ksource *s, const struct wm_stage *st,
			const struct wm_kafka_conf *kc, char *err,
			size_t errlen)
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
void
wm_kafka_client_close(struct ksource *s)
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
