/*
 * kafka_watch.h
 *	A thread beside a Kafka source's consumer that asks the brokers for
 *	the topic's metadata now and then: for partition discovery (the
 *	topic's partition count every discovery interval), and every second
 *	(sooner with a broker timeout under 3 s) to learn that the brokers
 *	answer although no record comes (an idle topic fetches nothing; a
 *	broker frozen with its connections open fails no connection) and
 *	that the topic still exists.
 *
 * Why a thread: a metadata request blocks until a broker answers or its
 * timeout passes, and the source's next() must never block; librdkafka
 * has no asynchronous metadata call in 2.0. The thread wakes the source's
 * subtask through the wake function whenever it learned something, and
 * the source reads what it learned with relaxed loads (one writer).
 */
#ifndef WM_RUNTIME_SOURCE_KAFKA_WATCH_H
#define WM_RUNTIME_SOURCE_KAFKA_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include <librdkafka/rdkafka.h>

struct wm_kafka_watch;

/*
 * Start watching `topic` through the client rk (which must outlive the
 * watch): its partitions every discovery_ms (0: no discovery), the
 * brokers' liveness every second or a third of timeout_ms, each request
 * waiting at most timeout_ms. wake(arg) is called, from the thread,
 * after each answer that changed something and when the topic is found
 * gone. NULL with errno (the thread could not start, ENOMEM).
 */
struct wm_kafka_watch *wm_kafka_watch_start(rd_kafka_t *rk, const char *topic,
					    int64_t discovery_ms,
					    int64_t timeout_ms,
					    void (*wake)(void *arg), void *arg);

/* Stop the thread (it waits for at most one request's timeout) and free
 * the watch; NULL: nothing. */
void wm_kafka_watch_stop(struct wm_kafka_watch *w);

/*
 * The brokers are gone as of now: ask every second until one answers.
 * Returns the generation of the outage; it is over once
 * wm_kafka_watch_answered() reaches it (an answer to a request sent
 * after this call: one in flight before does not count).
 */
uint64_t wm_kafka_watch_lost(struct wm_kafka_watch *w);
uint64_t wm_kafka_watch_answered(const struct wm_kafka_watch *w);

/* The topic's partition count at the latest answer; 0 before any. */
uint32_t wm_kafka_watch_partitions(const struct wm_kafka_watch *w);

/* The monotonic time (wm_monotonic_ns()) of the latest answer of a
 * broker; 0 before any. */
int64_t wm_kafka_watch_answered_at(const struct wm_kafka_watch *w);

/* Whether the brokers said, in two answers in a row, that the topic does
 * not exist (it did when the source opened: it was deleted). Two, so
 * that one broker's metadata cache lagging behind a topic just created
 * is not taken for a deletion. */
bool wm_kafka_watch_topic_gone(const struct wm_kafka_watch *w);

#endif /* WM_RUNTIME_SOURCE_KAFKA_WATCH_H */
