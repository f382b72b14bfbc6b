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

#include "base/clock.h"
#include "runtime/source/kafka_watch.h"

/* How often the thread asks while the brokers are missing, and at most
 * between two questions for liveness. */
#define LOST_INTERVAL_MS 1000

/* The shortest interval between questions. */
#define MIN_INTERVAL_MS 100

/* The longest a request waits: stopping the thread waits for one. */
#define MAX_REQUEST_MS 2000

struct wm_kafka_watch {
	rd_kafka_t *rk;
	rd_kafka_topic_t *rkt;
	int64_t discovery_ms, timeout_ms;
	int64_t live_ms;      /* between two questions for liveness */
	int64_t discover_ns;  /* monotonic: when discovery asks next (thread) */
	uint32_t unknown_row; /* answers in a row without the topic */
	void (*wake)(void *arg);
	void *arg;
	pthread_t thread;
	pthread_mutex_t lock; /* guards stop and the condition */
	pthread_cond_t cond;
	bool stop;
	/* Written by the source (lost) or the thread (the rest). */
	_Atomic uint64_t lost_gen, answered_gen;
	_Atomic uint32_t partitions;
	_Atomic int64_t answered_at; /* monotonic ns of the latest answer */
	atomic_bool gone;
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

/* One metadata request, the partition count taken when `discover`; true
 * when a broker answered. */
static bool
ask(struct wm_kafka_watch *w, bool discover)
{
	const struct rd_kafka_metadata *md = NULL;
	uint64_t gen = atomic_load(&w->lost_gen);
	bool changed = false;

	if (rd_kafka_metadata(w->rk, 0, w->rkt, &md, (int)w->timeout_ms) !=
	    RD_KAFKA_RESP_ERR_NO_ERROR)
		return false;
	atomic_store(&w->answered_at, wm_monotonic_ns());
	if (md->topic_cnt == 1 &&
	    (md->topics[0].err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
	     md->topics[0].err == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC)) {
		if (++w->unknown_row == 2 && !atomic_load(&w->gone)) {
			atomic_store(&w->gone, true);
			changed = true;
		}
	} else {
		w->unknown_row = 0;
	}
	if (discover && md->topic_cnt == 1 && md->topics[0].err == 0) {
		uint32_t n = (uint32_t)md->topics[0].partition_cnt;

		if (n > atomic_load_explicit(&w->partitions,
					     memory_order_relaxed)) {
			atomic_store(&w->partitions, n);
			changed = true;
		}
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

	/* One question every live_ms serves liveness and the topic's
	 * existence; the partition count is taken from the first answer
	 * after each discovery interval, so that partitions are discovered
	 * at the interval, not sooner. A loss of the brokers signals the
	 * condition, to ask at once. */
	pthread_mutex_lock(&w->lock);
	w->discover_ns = wm_monotonic_ns() + w->discovery_ms * 1000000;
	while (!w->stop) {
		int64_t ms = w->live_ms;
		struct timespec until;
		bool discover;

		if (w->discovery_ms > 0) {
			int64_t to_discovery =
				(w->discover_ns - wm_monotonic_ns()) / 1000000;

			if (to_discovery < ms)
				ms = to_discovery > 0 ? to_discovery : 0;
		}
		until = deadline_after(ms);

		pthread_cond_timedwait(&w->cond, &w->lock, &until);
		if (w->stop)
			break;
		discover = w->discovery_ms > 0 &&
			   wm_monotonic_ns() >= w->discover_ns;
		pthread_mutex_unlock(&w->lock);
		if (ask(w, discover) && discover)
			w->discover_ns =
				wm_monotonic_ns() + w->discovery_ms * 1000000;
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
	/* Three questions within the broker timeout: one that times out
	 * does not by itself make the source give up. */
	w->live_ms = timeout_ms / 3 < LOST_INTERVAL_MS ? timeout_ms / 3
						       : LOST_INTERVAL_MS;
	if (w->live_ms < MIN_INTERVAL_MS)
		w->live_ms = MIN_INTERVAL_MS;
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

int64_t
wm_kafka_watch_answered_at(const struct wm_kafka_watch *w)
{
	return atomic_load(&((struct wm_kafka_watch *)w)->answered_at);
}

bool
wm_kafka_watch_topic_gone(const struct wm_kafka_watch *w)
{
	return atomic_load(&((struct wm_kafka_watch *)w)->gone);
}
