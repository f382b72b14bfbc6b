/*
 * source_gen_source.c
 *	The generator as a wm_record_source (operators/record_source.h),
 *	the one object whose operations the source task calls, and its end:
 *	freeing either frees both.
 *
 * Each operation calls the generator's own function (source_gen.c, or
 * source_gen_snapshot.c for checkpoints); the task reaches the generator
 * only through this table.
 */
#include "config.h"

#include <stdlib.h>

#include "operators/source_gen_internal.h"

void
wm_source_gen_free(struct wm_source_gen *g)
{
	if (g == NULL)
		return;
	free(g->parts);
	free(g->finish_order);
	wm_source_gen_heaps_destroy(g);
	free(g->silences);
	free(g->bursts);
	free(g->outages);
	free(g->rsil);
	free(g->rsil_states);
	free(g);
}

struct wm_record_source *
wm_source_gen_source(struct wm_source_gen *g)
{
	return &g->base;
}

/* ---- as a wm_record_source ---- */

static struct wm_source_gen *
gen_of(struct wm_record_source *src)
{
	return wm_container_of(src, struct wm_source_gen, base);
}

static const struct wm_source_gen *
gen_of_const(const struct wm_record_source *src)
{
	return (const struct wm_source_gen
			*)(const void *)((const char *)src -
					 offsetof(struct wm_source_gen, base));
}

static int
gen_src_next(struct wm_record_source *src, int64_t now_ns,
	     struct wm_record *out)
{
	return wm_source_gen_next(gen_of(src), now_ns, out);
}

static uint32_t
gen_src_next_run(struct wm_record_source *src, int64_t now_ns,
		 struct wm_record *out, int64_t *due_ns, uint32_t cap)
{
	return wm_source_gen_next_run(gen_of(src), now_ns, out, due_ns, cap);
}

static int64_t
gen_src_next_due_ns(const struct wm_record_source *src)
{
	return wm_source_gen_next_due_ns(gen_of_const(src));
}

static bool
gen_src_finished(const struct wm_record_source *src)
{
	return wm_source_gen_finished(gen_of_const(src));
}

static uint32_t
gen_src_n_partitions(const struct wm_record_source *src)
{
	return wm_source_gen_n_partitions(gen_of_const(src));
}

static uint32_t
gen_src_n_finished(const struct wm_record_source *src)
{
	return gen_of_const(src)->n_finished;
}

static uint32_t
gen_src_finished_partition(const struct wm_record_source *src, uint32_t k)
{
	return gen_of_const(src)->finish_order[k];
}

static void
gen_src_partition_stats(const struct wm_record_source *src, uint32_t i,
			int64_t now_ns, struct wm_source_partition_stats *st)
{
	wm_source_gen_partition_stats(gen_of_const(src), i, now_ns, st);
}

static int64_t
gen_src_partition_next_due_ns(const struct wm_record_source *src, uint32_t i)
{
	return wm_source_gen_partition_next_due_ns(gen_of_const(src), i);
}

static void
gen_src_free(struct wm_record_source *src)
{
	wm_source_gen_free(gen_of(src));
}

static void
gen_src_pause(struct wm_record_source *src, uint32_t i, bool paused,
	      int64_t now_ns)
{
	wm_source_gen_pause(gen_of(src), i, paused, now_ns);
}

static void
gen_src_snapshot(const struct wm_record_source *src, struct wm_snap_writer *w)
{
	wm_source_gen_snapshot(gen_of_const(src), w);
}

static int
gen_src_restore(struct wm_record_source *src, struct wm_snap_reader *r)
{
	return wm_source_gen_restore(gen_of(src), r);
}

const struct wm_record_source_ops wm_source_gen_ops = {
	.next = gen_src_next,
	.next_due_ns = gen_src_next_due_ns,
	.partition_next_due_ns = gen_src_partition_next_due_ns,
	.next_run = gen_src_next_run,
	.finished = gen_src_finished,
	.n_partitions = gen_src_n_partitions,
	.n_finished = gen_src_n_finished,
	.finished_partition = gen_src_finished_partition,
	.partition_stats = gen_src_partition_stats,
	.free = gen_src_free,
	.pause = gen_src_pause,
	.snapshot = gen_src_snapshot,
	.restore = gen_src_restore,
};
