/*
 * kafka_watch.c
 *	The metadata thread of a Kafka source (kafka_watch.h).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "runtime/io/kafka_watch.h"

/* How often the thread asks while the brokers are missing. */
#define LOST_INTERVAL_MS 1000

/* The longest a request waits: stopping the thread waits for one. */
#define MAX_REQUEST_MS 2000

struct wm_kafka_watch {
	rd_kafka_t *rk;
	rd_kafka_topic_t *rkt;
	int64_t discovery_ms, timeout_ms;
	void (*wake)(void *arg);
	void *arg;
	pthread_t thread;
	pthread_mutex_t lock; /* guards stop and the condition */
	pthread_cond_t cond;
	bool stop;
	/* Written by the source (lost) or the thread (the rest). */
	_Atomic uint64_t lost_gen, answered_gen;
	_Atomic uint32_t partitions;
};

static struct timespec
deadline_after(int64_t ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return ts;
}

/* One metadata request; true when a broker answered. */
static bool
ask(struct wm_kafka_watch *w)
{
	const struct rd_kafka_metadata *md = NULL;
	uint64_t gen = atomic_load(&w->lost_gen);
	bool changed = false;

	if (rd_kafka_metadata(w->rk, 0, w->rkt, &md, (int)w->timeout_ms) !=
	    RD_KAFKA_RESP_ERR_NO_ERROR)
		return false;
	if (md->topic_cnt == 1 && md->topics[0].err == 0) {
		uint32_t n = (uint32_t)md->topics[0].partition_cnt;

		changed = n > atomic_load_explicit(&w->partitions,
						   memory_order_relaxed);
		if (changed)
			atomic_store(&w->partitions, n);
	}
	rd_kafka_metadata_destroy(md);
	if (atomic_load(&w->answered_gen) < gen) {
		atomic_store(&w->answered_gen, gen);
		changed = true;
	}
	if (changed)
		w->wake(w->arg);
	return true;
}

static void *
watch_main(void *arg)
{
	struct wm_kafka_watch *w = arg;

	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		bool lost = atomic_load(&w->answered_gen) <
			    atomic_load(&w->lost_gen);
		int64_t ms = lost || w->discovery_ms <= 0 ? LOST_INTERVAL_MS
							  : w->discovery_ms;
		struct timespec until = deadline_after(ms);

		pthread_cond_timedwait(&w->cond, &w->lock, &until);
		if (w->stop)
			break;
		if (!lost && w->discovery_ms <= 0 &&
		    atomic_load(&w->answered_gen) >= atomic_load(&w->lost_gen))
			continue; /* nothing to learn */
		pthread_mutex_unlock(&w->lock);
		ask(w);
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct wm_kafka_watch *
wm_kafka_watch_start(rd_kafka_t *rk, const char *topic, int64_t discovery_ms,
		     int64_t timeout_ms, void (*wake)(void *arg), void *arg)
{
	struct wm_kafka_watch *w = calloc(1, sizeof(*w));
	pthread_condattr_t ca;
	int r;

	if (w == NULL)
		return NULL;
	w->rk = rk;
	w->rkt = rd_kafka_topic_new(rk, topic, NULL);
	w->discovery_ms = discovery_ms;
	w->timeout_ms = timeout_ms > 0 && timeout_ms < MAX_REQUEST_MS
				? timeout_ms
				: MAX_REQUEST_MS;
	w->wake = wake;
	w->arg = arg;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
	r = w->rkt == NULL ? ENOMEM
			   : pthread_create(&w->thread, NULL, watch_main, w);
	if (r != 0) {
		if (w->rkt != NULL)
			rd_kafka_topic_destroy(w->rkt);
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->lock);
		free(w);
		errno = r;
		return NULL;
	}
	return w;
}

void
wm_kafka_watch_stop(struct wm_kafka_watch *w)
{
	if (w == NULL)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	rd_kafka_topic_destroy(w->rkt);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

uint64_t
wm_kafka_watch_lost(struct wm_kafka_watch *w)
{
	uint64_t gen = atomic_fetch_add(&w->lost_gen, 1) + 1;

	/* Ask at once: the thread may be sleeping a discovery interval. */
	pthread_mutex_lock(&w->lock);
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return gen;
}

uint64_t
wm_kafka_watch_answered(const struct wm_kafka_watch *w)
{
	return atomic_load(&((struct wm_kafka_watch *)w)->answered_gen);
}

uint32_t
wm_kafka_watch_partitions(const struct wm_kafka_watch *w)
{
	return atomic_load(&((struct wm_kafka_watch *)w)->partitions);
}
