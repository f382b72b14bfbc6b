/*
 * source_gen_snapshot.c
 *	A generator's checkpoint: every partition's cursors, random streams
 *	and counts, the finishing order and both heaps, written and read
 *	back into a generator made from the same configuration.
 *
 * What follows from the configuration is not written: a segment is its
 * start and first arrival, the rest derived again (seg_begin()). A restore
 * checks what it reads against the configuration and the cursors' order
 * (source_gen.c's top comment) and refuses the rest with -EBADMSG, or
 * -EINVAL where the snapshot is another generator's.
 */
#include "config.h"

#include <errno.h>

#include "lib/snap.h"
#include "operators/source_gen_internal.h"

#define GEN_SNAP_TAG WM_SNAP_TAG('S', 'G', 'E', 'N')
#define GEN_SNAP_VERSION 1
/* The least bytes of a heap entry (key, index) in a snapshot. */
#define GEN_SNAP_HEAP_ENTRY 12

/* A segment is its start and first arrival; the rest follows from the
 * configuration (seg_begin()). */
static void
snap_put_segment(struct wm_snap_writer *w, const struct gen_segment *seg)
{
	wm_snap_put_i64(w, seg->start_ns);
	wm_snap_put_u64(w, seg->k0);
}

static void
snap_put_heap(struct wm_snap_writer *w, const struct gen_heap *h)
{
	wm_snap_put_u64(w, h->count);
	for (size_t i = 0; i < h->count; i++) {
		wm_snap_put_i64(w, h->nodes[i].key);
		wm_snap_put_u32(w, h->nodes[i].idx);
	}
}

void
wm_source_gen_snapshot(const struct wm_source_gen *g, struct wm_snap_writer *w)
{
	wm_snap_begin(w, GEN_SNAP_TAG, GEN_SNAP_VERSION);
	wm_snap_put_bool(w, g->fast);
	wm_snap_put_u32(w, g->n_parts);
	wm_snap_put_u32(w, g->n_rsil);
	wm_snap_put_u32(w, g->n_finished);
	for (uint32_t i = 0; i < g->n_finished; i++)
		wm_snap_put_u32(w, g->finish_order[i]);
	wm_snap_put_i64(w, g->last_now);
	wm_snap_put_i64(w, g->vclock);
	for (uint32_t i = 0; i < g->n_parts; i++) {
		const struct gen_part *p = &g->parts[i];

		wm_snap_put_u32(w, p->id);
		wm_snap_put_bool(w, p->finished);
		wm_snap_put_bool(w, p->ending);
		wm_snap_put_u64(w, p->k);
		wm_snap_put_i64(w, p->arrival_ns);
		wm_snap_put_u64(w, p->k_passed);
		wm_snap_put_u64(w, p->emitted);
		wm_snap_put_u64(w, p->skipped);
		wm_snap_put_u64(w, p->rng);
		wm_snap_put_i64(w, p->vt);
		wm_snap_put_i64(w, p->loud_from);
		wm_snap_put_i64(w, p->loud_until);
		snap_put_segment(w, &p->seg);
		snap_put_segment(w, &p->seg_passed);
		for (uint32_t j = 0; j < g->n_rsil; j++) {
			wm_snap_put_i64(w, p->rsil[j].start_ns);
			wm_snap_put_i64(w, p->rsil[j].end_ns);
			wm_snap_put_u64(w, p->rsil[j].rng);
		}
		/* Only where the configuration marks by time, which the
		 * restoring generator's has as well: other snapshots keep
		 * their bytes. */
		if (p->punctuate_every_ms != 0)
			wm_snap_put_i64(w, p->next_mark_ts);
	}
	snap_put_heap(w, &g->timed);
	snap_put_heap(w, &g->ready);
	wm_snap_end(w);
}

static int
snap_get_segment(struct wm_snap_reader *r, const struct wm_source_gen *g,
		 const struct gen_part *p, struct gen_segment *seg)
{
	int64_t start = wm_snap_get_i64(r);
	uint64_t k0 = wm_snap_get_u64(r);

	if (wm_snap_reader_error(r) == 0 && start < 0)
		wm_snap_reader_fail(r, -EBADMSG);
	if (wm_snap_reader_error(r) == 0)
		wm_source_gen_seg_begin(g, p, seg, start, k0);
	return wm_snap_reader_error(r);
}

/* Part i's state from the reader, its identity checked. */
static int
snap_get_part(struct wm_snap_reader *r, struct wm_source_gen *g, uint32_t i)
{
	struct gen_part *p = &g->parts[i];

	if (wm_snap_get_u32(r) != p->id)
		return wm_snap_reader_fail(r, -EINVAL);
	p->finished = wm_snap_get_bool(r);
	p->ending = wm_snap_get_bool(r);
	p->k = wm_snap_get_u64(r);
	p->arrival_ns = wm_snap_get_i64(r);
	p->k_passed = wm_snap_get_u64(r);
	p->emitted = wm_snap_get_u64(r);
	p->skipped = wm_snap_get_u64(r);
	p->rng = wm_snap_get_u64(r);
	p->vt = wm_snap_get_i64(r);
	p->loud_from = wm_snap_get_i64(r);
	p->loud_until = wm_snap_get_i64(r);
	if (snap_get_segment(r, g, p, &p->seg) != 0 ||
	    snap_get_segment(r, g, p, &p->seg_passed) != 0)
		return wm_snap_reader_error(r);
	for (uint32_t j = 0; j < g->n_rsil; j++) {
		p->rsil[j].start_ns = wm_snap_get_i64(r);
		p->rsil[j].end_ns = wm_snap_get_i64(r);
		p->rsil[j].rng = wm_snap_get_u64(r);
	}
	if (p->punctuate_every_ms != 0)
		p->next_mark_ts = wm_snap_get_i64(r);
	/* The cursors' order (see the top of the file). */
	if (wm_snap_reader_error(r) == 0 &&
	    (p->k_passed > p->k || p->seg.k0 > p->k ||
	     p->seg_passed.k0 > p->k_passed || p->vt < 0))
		wm_snap_reader_fail(r, -EBADMSG);
	if (g->fast)
		wm_source_gen_set_vstep(p);
	p->paused = false;
	p->in_heap = false;
	return wm_snap_reader_error(r);
}

/* One heap's entries, each a live partition in no heap yet. */
static int
snap_get_heap(struct wm_snap_reader *r, struct wm_source_gen *g,
	      struct gen_heap *h, bool used)
{
	uint64_t n = wm_snap_get_count(r, GEN_SNAP_HEAP_ENTRY);

	if (n > (used ? g->n_parts : 0))
		return wm_snap_reader_fail(r, -EBADMSG);
	for (uint64_t i = 0; i < n; i++) {
		int64_t key = wm_snap_get_i64(r);
		uint32_t idx = wm_snap_get_u32(r);

		if (wm_snap_reader_error(r) != 0)
			break;
		if (idx >= g->n_parts || g->parts[idx].finished ||
		    g->parts[idx].in_heap)
			return wm_snap_reader_fail(r, -EBADMSG);
		g->parts[idx].in_heap = true;
		wm_source_gen_heap_push(h, key, g->parts[idx].id, idx);
	}
	return wm_snap_reader_error(r);
}

/* The finishing order: distinct partitions, exactly those finished. */
static bool
finish_order_valid(const struct wm_source_gen *g)
{
	uint32_t finished = 0;

	for (uint32_t i = 0; i < g->n_parts; i++)
		finished += g->parts[i].finished;
	if (finished != g->n_finished)
		return false;
	for (uint32_t k = 0; k < g->n_finished; k++) {
		uint32_t idx = g->finish_order[k];

		if (idx >= g->n_parts || !g->parts[idx].finished)
			return false;
		for (uint32_t j = 0; j < k; j++)
			if (g->finish_order[j] == idx)
				return false;
	}
	return true;
}

int
wm_source_gen_restore(struct wm_source_gen *g, struct wm_snap_reader *r)
{
	for (uint32_t i = 0; i < g->n_parts; i++)
		if (g->parts[i].emitted != 0 || g->parts[i].paused)
			return wm_snap_reader_fail(r, -EINVAL);
	if (wm_snap_enter(r, GEN_SNAP_TAG, GEN_SNAP_VERSION) != 0)
		return wm_snap_reader_error(r);
	if (wm_snap_get_bool(r) != g->fast ||
	    wm_snap_get_u32(r) != g->n_parts || wm_snap_get_u32(r) != g->n_rsil)
		return wm_snap_reader_fail(r, -EINVAL);
	g->n_finished = wm_snap_get_u32(r);
	if (g->n_finished > g->n_parts)
		return wm_snap_reader_fail(r, -EBADMSG);
	for (uint32_t i = 0; i < g->n_finished; i++)
		g->finish_order[i] = wm_snap_get_u32(r);
	g->last_now = wm_snap_get_i64(r);
	g->vclock = wm_snap_get_i64(r);
	for (uint32_t i = 0; i < g->n_parts; i++)
		if (snap_get_part(r, g, i) != 0)
			return wm_snap_reader_error(r);
	if (!finish_order_valid(g))
		return wm_snap_reader_fail(r, -EBADMSG);
	wm_source_gen_heaps_clear(g);
	if (snap_get_heap(r, g, &g->timed, true) != 0 ||
	    snap_get_heap(r, g, &g->ready, g->fast) != 0 ||
	    wm_snap_leave(r) != 0)
		return wm_snap_reader_error(r);
	/* A partition paused for alignment at the snapshot may have left
	 * its heap; every partition reads after a restore. */
	for (uint32_t i = 0; i < g->n_parts; i++) {
		if (g->parts[i].finished || g->parts[i].in_heap)
			continue;
		g->parts[i].paused = true;
		wm_source_gen_pause(g, i, false, g->last_now);
	}
	return 0;
}
