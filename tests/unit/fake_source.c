/*
 * fake_source.c
 *	A record source fed from outside, for tests (fake_source.h). One
 *	mutex guards everything the threads share; the wake is called
 *	outside it, as librdkafka calls its event callbacks.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/container_of.h"
#include "tests/unit/fake_source.h"

#define FAKE_MAX_PARTITIONS 64
#define FAKE_MAX_RECORDS 4096

struct fake_source {
	struct wm_record_source base; /* first: the interface */
	pthread_mutex_t lock;
	uint32_t n_parts;
	uint32_t parts[FAKE_MAX_PARTITIONS];
	uint64_t emitted[FAKE_MAX_PARTITIONS];
	/* handed over: records[taken .. handed) wait */
	struct wm_record records[FAKE_MAX_RECORDS];
	uint32_t handed, taken;
	bool ended;
	struct wm_source_health health;
	void (*wake)(void *arg);
	void *wake_arg;
	void (*on_free)(void *arg);
	void *on_free_arg;
};

static struct fake_source *
fake_of(const struct wm_record_source *src)
{
	return wm_container_of(src, struct fake_source, base);
}

static void
wake(struct fake_source *f)
{
	void (*fn)(void *);
	void *arg;

	pthread_mutex_lock(&f->lock);
	fn = f->wake;
	arg = f->wake_arg;
	pthread_mutex_unlock(&f->lock);
	if (fn != NULL)
		fn(arg);
}

static uint32_t
local_of(const struct fake_source *f, uint32_t partition)
{
	for (uint32_t i = 0; i < f->n_parts; i++)
		if (f->parts[i] == partition)
			return i;
	return UINT32_MAX;
}

static int
fake_next(struct wm_record_source *src, int64_t now_ns, struct wm_record *out)
{
	struct fake_source *f = fake_of(src);
	int got = 0;

	(void)now_ns;
	pthread_mutex_lock(&f->lock);
	if (f->taken < f->handed) {
		uint32_t i;

		*out = f->records[f->taken++];
		i = local_of(f, out->partition);
		if (i != UINT32_MAX)
			f->emitted[i]++;
		got = 1;
	}
	pthread_mutex_unlock(&f->lock);
	return got;
}

static int64_t
fake_next_due(const struct wm_record_source *src)
{
	struct fake_source *f = fake_of(src);
	int64_t due;

	pthread_mutex_lock(&f->lock);
	due = f->taken < f->handed ? 0 : INT64_MAX;
	pthread_mutex_unlock(&f->lock);
	return due;
}

static bool
fake_finished(const struct wm_record_source *src)
{
	struct fake_source *f = fake_of(src);
	bool done;

	pthread_mutex_lock(&f->lock);
	done = f->ended && f->taken == f->handed;
	pthread_mutex_unlock(&f->lock);
	return done;
}

static uint32_t
fake_n_partitions(const struct wm_record_source *src)
{
	struct fake_source *f = fake_of(src);
	uint32_t n;

	pthread_mutex_lock(&f->lock);
	n = f->n_parts;
	pthread_mutex_unlock(&f->lock);
	return n;
}

static uint32_t
fake_n_finished(const struct wm_record_source *src)
{
	return fake_finished(src) ? fake_n_partitions(src) : 0;
}

static uint32_t
fake_finished_partition(const struct wm_record_source *src, uint32_t k)
{
	(void)src;
	return k;
}

static void
fake_partition_stats(const struct wm_record_source *src, uint32_t i,
		     int64_t now_ns, struct wm_source_partition_stats *st)
{
	struct fake_source *f = fake_of(src);

	(void)now_ns;
	pthread_mutex_lock(&f->lock);
	st->partition = f->parts[i];
	st->emitted = f->emitted[i];
	st->skipped = 0;
	st->finished = f->ended && f->taken == f->handed;
	pthread_mutex_unlock(&f->lock);
}

static void
fake_free(struct wm_record_source *src)
{
	struct fake_source *f = fake_of(src);

	if (f->on_free != NULL)
		f->on_free(f->on_free_arg);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

static void
fake_set_wake(struct wm_record_source *src, void (*fn)(void *arg), void *arg)
{
	struct fake_source *f = fake_of(src);

	pthread_mutex_lock(&f->lock);
	f->wake = fn;
	f->wake_arg = arg;
	pthread_mutex_unlock(&f->lock);
}

static void
fake_health(const struct wm_record_source *src, struct wm_source_health *h)
{
	struct fake_source *f = fake_of(src);

	pthread_mutex_lock(&f->lock);
	*h = f->health;
	pthread_mutex_unlock(&f->lock);
}

static const struct wm_record_source_ops fake_ops = {
	.next = fake_next,
	.next_due_ns = fake_next_due,
	.finished = fake_finished,
	.n_partitions = fake_n_partitions,
	.n_finished = fake_n_finished,
	.finished_partition = fake_finished_partition,
	.partition_stats = fake_partition_stats,
	.free = fake_free,
	.set_wake = fake_set_wake,
	.health = fake_health,
};

struct fake_source *
fake_source_new(const uint32_t *parts, uint32_t n)
{
	struct fake_source *f = calloc(1, sizeof(*f));

	if (f == NULL || n > FAKE_MAX_PARTITIONS) {
		free(f);
		return NULL;
	}
	f->base.ops = &fake_ops;
	pthread_mutex_init(&f->lock, NULL);
	memcpy(f->parts, parts, n * sizeof(*parts));
	f->n_parts = n;
	return f;
}

struct wm_record_source *
fake_source_base(struct fake_source *f)
{
	return &f->base;
}

void
fake_source_add_partition(struct fake_source *f, uint32_t partition)
{
	pthread_mutex_lock(&f->lock);
	if (f->n_parts < FAKE_MAX_PARTITIONS)
		f->parts[f->n_parts++] = partition;
	pthread_mutex_unlock(&f->lock);
}

void
fake_source_hand(struct fake_source *f, const struct wm_record *r)
{
	pthread_mutex_lock(&f->lock);
	if (f->handed < FAKE_MAX_RECORDS)
		f->records[f->handed++] = *r;
	pthread_mutex_unlock(&f->lock);
	wake(f);
}

void
fake_source_end(struct fake_source *f)
{
	pthread_mutex_lock(&f->lock);
	f->ended = true;
	pthread_mutex_unlock(&f->lock);
	wake(f);
}

void
fake_source_set_health(struct fake_source *f, const struct wm_source_health *h)
{
	pthread_mutex_lock(&f->lock);
	f->health = *h;
	pthread_mutex_unlock(&f->lock);
	wake(f);
}

void
fake_source_on_free(struct fake_source *f, void (*fn)(void *arg), void *arg)
{
	f->on_free = fn;
	f->on_free_arg = arg;
}

uint64_t
fake_source_read(struct fake_source *f)
{
	uint64_t n;

	pthread_mutex_lock(&f->lock);
	n = f->taken;
	pthread_mutex_unlock(&f->lock);
	return n;
}
