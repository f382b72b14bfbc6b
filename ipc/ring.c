/*
 * ring.c
 *	Ring set-up, checks and dumps: the cold path of ring.h.
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "ipc/ring.h"

size_t
wm_ring_size(uint32_t cells)
{
	if (cells < WM_RING_MIN_CELLS || cells > WM_RING_MAX_CELLS ||
	    (cells & (cells - 1)) != 0)
		return 0;
	return sizeof(struct wm_ring) + (size_t)cells * sizeof(struct wm_cell);
}

int
wm_ring_init(void *mem, uint32_t cells)
{
	struct wm_ring *ring = mem;

	if (wm_ring_size(cells) == 0)
		return -EINVAL;
	ring->magic = WM_RING_MAGIC;
	ring->size = cells;
	ring->mask = cells - 1;
	atomic_init(&ring->written, 0);
	atomic_init(&ring->read, 0);
	return 0;
}

int
wm_ring_check(const struct wm_ring *ring, size_t bytes, char *err,
	      size_t errlen)
{
	if (bytes < sizeof(*ring) || ring->magic != WM_RING_MAGIC) {
		snprintf(err, errlen, "bad ring magic");
		return -EBADMSG;
	}
	if (wm_ring_size(ring->size) == 0 || wm_ring_size(ring->size) > bytes ||
	    ring->mask != ring->size - 1) {
		snprintf(err, errlen,
			 "bad ring size %" PRIu32 " for %zu bytes of space",
			 ring->size, bytes);
		return -EBADMSG;
	}
	return 0;
}

bool
wm_ring_paired_stores_supported(void)
{
#if WM_RING_HAVE_PAIRED_STORES
	/* Each vendor promises atomic 16-byte stores for its own processors
	 * that report AVX (ring.h, wm_cell_publish()); other vendors, and
	 * emulators that may split such a store, get the portable path.
	 * GCC's AVX check also wants the OS to have enabled AVX, which only
	 * ever turns the paired stores off. The init makes the checks valid
	 * even if a constructor attaches a producer. */
	__builtin_cpu_init();
	return (__builtin_cpu_is("intel") || __builtin_cpu_is("amd")) &&
	       __builtin_cpu_supports("avx");
#else
	return false;
#endif
}

void
wm_ring_producer_attach(struct wm_ring_producer *p, struct wm_ring *ring,
			struct wm_doorbell *consumer_bell)
{
	memset(p, 0, sizeof(*p));
	p->ring = ring;
	p->cells = ring->cells;
	p->mask = ring->mask;
	p->size = ring->size;
	p->paired_stores = wm_ring_paired_stores_supported();
	p->consumer_bell = consumer_bell;
}

void
wm_ring_consumer_attach(struct wm_ring_consumer *c, struct wm_ring *ring,
			struct wm_doorbell *producer_bell)
{
	memset(c, 0, sizeof(*c));
	c->ring = ring;
	c->cells = ring->cells;
	c->mask = ring->mask;
	c->producer_bell = producer_bell;
}

void
wm_ring_dump(const struct wm_ring *ring, uint64_t position, FILE *out)
{
	uint64_t first = position >= 2 ? position - 2 : 0;

	fprintf(out,
		"ring: size %" PRIu32 " cells, written %" PRIu64
		", read %" PRIu64 "\n",
		ring->size,
		atomic_load_explicit(&ring->written, memory_order_relaxed),
		atomic_load_explicit(&ring->read, memory_order_relaxed));
	for (uint64_t p = first; p <= position + 2; p++) {
		const struct wm_cell *cell = &ring->cells[p & ring->mask];
		uint64_t tail =
			atomic_load_explicit(&cell->tail, memory_order_relaxed);

		fprintf(out,
			"%s position %" PRIu64 " (offset %" PRIu64
			"): kind %u (%s) arg %" PRIu32 " seq %" PRIu32
			" (expected %" PRIu64 ") payload %016" PRIx64
			" %016" PRIx64 " %016" PRIx64 "\n",
			p == position ? "=>" : "  ", p,
			(p & ring->mask) * WM_CELL_SIZE,
			wm_frame_tail_kind(tail),
			wm_frame_kind_name(wm_frame_tail_kind(tail)),
			wm_frame_tail_arg(tail), wm_frame_tail_seq(tail),
			p & WM_SEQ_MASK, cell->payload[0], cell->payload[1],
			cell->payload[2]);
	}
}
