/*
 * record_tap.c
 *	A record source that shows each record it returns to a callback
 *	(record_tap.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "base/container_of.h"
#include "runtime/source/record_tap.h"

/* The tapped source: the one it wraps, and what sees its records. */
struct tap {
	struct wm_record_source source; /* first: the interface */
	/* tap_ops, less what `inner` does not have: the task asks the ops
	 * whether a source can pause (task_source.c). */
	struct wm_record_source_ops ops;
	struct wm_record_source *inner;
	wm_record_tap_fn fn;
	void *arg;
	void (*free_arg)(void *arg);
};

static struct tap *
tap_of(const struct wm_record_source *src)
{
	return wm_container_of(src, struct tap, source);
}

static int
tap_next(struct wm_record_source *src, int64_t now_ns, struct wm_record *out)
{
	struct tap *r = tap_of(src);
	int got = wm_record_source_next(r->inner, now_ns, out);

	if (got == 1)
		r->fn(r->arg, r->inner, out, now_ns);
	return got;
}

static wm_ts_t
tap_carried_watermark(const struct wm_record_source *src)
{
	return wm_record_source_carried_watermark(tap_of(src)->inner);
}

static int64_t
tap_next_due(const struct wm_record_source *src)
{
	return wm_record_source_next_due_ns(tap_of(src)->inner);
}

static bool
tap_finished(const struct wm_record_source *src)
{
	return wm_record_source_finished(tap_of(src)->inner);
}

static uint32_t
tap_n_partitions(const struct wm_record_source *src)
{
	const struct wm_record_source *in = tap_of(src)->inner;

	return in->ops->n_partitions(in);
}

static uint32_t
tap_n_finished(const struct wm_record_source *src)
{
	const struct wm_record_source *in = tap_of(src)->inner;

	return in->ops->n_finished(in);
}

static uint32_t
tap_finished_partition(const struct wm_record_source *src, uint32_t k)
{
	const struct wm_record_source *in = tap_of(src)->inner;

	return in->ops->finished_partition(in, k);
}

static void
tap_partition_stats(const struct wm_record_source *src, uint32_t i,
		    int64_t now_ns, struct wm_source_partition_stats *st)
{
	const struct wm_record_source *in = tap_of(src)->inner;

	in->ops->partition_stats(in, i, now_ns, st);
}

static int64_t
tap_partition_next_due(const struct wm_record_source *src, uint32_t i)
{
	return wm_record_source_partition_next_due_ns(tap_of(src)->inner, i);
}

static void
tap_pause(struct wm_record_source *src, uint32_t i, bool paused, int64_t now_ns)
{
	struct wm_record_source *in = tap_of(src)->inner;

	in->ops->pause(in, i, paused, now_ns);
}

static void
tap_free(struct wm_record_source *src)
{
	struct tap *r = tap_of(src);

	wm_record_source_free(r->inner);
	if (r->free_arg != NULL)
		r->free_arg(r->arg);
	free(r);
}

/* The tap's position is the source's it taps. */
static void
tap_snapshot(const struct wm_record_source *src, struct wm_snap_writer *w)
{
	wm_record_source_snapshot(tap_of(src)->inner, w);
}

static int
tap_restore(struct wm_record_source *src, struct wm_snap_reader *r)
{
	return wm_record_source_restore(tap_of(src)->inner, r);
}

/* Records from outside wake the worker through the tap, which adds
 * nothing to when they arrive. */
static void
tap_set_wake(struct wm_record_source *src, void (*wake)(void *arg), void *arg)
{
	struct wm_record_source *in = tap_of(src)->inner;

	in->ops->set_wake(in, wake, arg);
}

static void
tap_health(const struct wm_record_source *src, struct wm_source_health *h)
{
	const struct wm_record_source *in = tap_of(src)->inner;

	in->ops->health(in, h);
}

static const struct wm_record_source_ops tap_ops = {
	.next = tap_next,
	.next_due_ns = tap_next_due,
	.partition_next_due_ns = tap_partition_next_due,
	.finished = tap_finished,
	.n_partitions = tap_n_partitions,
	.n_finished = tap_n_finished,
	.finished_partition = tap_finished_partition,
	.partition_stats = tap_partition_stats,
	.free = tap_free,
	.pause = tap_pause,
	.snapshot = tap_snapshot,
	.restore = tap_restore,
	.set_wake = tap_set_wake,
	.health = tap_health,
	.carried_watermark = tap_carried_watermark,
};

struct wm_record_source *
wm_record_tap(struct wm_record_source *inner, wm_record_tap_fn fn, void *arg,
	      void (*free_arg)(void *arg))
{
	struct tap *r = calloc(1, sizeof(*r));

	if (r == NULL) {
		wm_record_source_free(inner);
		if (free_arg != NULL)
			free_arg(arg);
		errno = ENOMEM;
		return NULL;
	}
	r->ops = tap_ops;
	if (inner->ops->pause == NULL)
		r->ops.pause = NULL;
	if (inner->ops->snapshot == NULL)
		r->ops.snapshot = NULL;
	if (inner->ops->set_wake == NULL)
		r->ops.set_wake = NULL;
	if (inner->ops->health == NULL)
		r->ops.health = NULL;
	if (inner->ops->restore == NULL)
		r->ops.restore = NULL;
	if (inner->ops->carried_watermark == NULL)
		r->ops.carried_watermark = NULL;
	r->source.ops = &r->ops;
	r->inner = inner;
	r->fn = fn;
	r->arg = arg;
	r->free_arg = free_arg;
	return &r->source;
}
