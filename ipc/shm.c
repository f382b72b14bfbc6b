/*
 * shm.c
 *	Create, attach and check the job's memfd segment.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "ipc/shm.h"

static uint64_t
round_up(uint64_t x, uint64_t align)
{
	return (x + align - 1) / align * align;
}

int
wm_shm_layout(const struct wm_shm_spec *spec, struct wm_shm_header *h,
	      struct wm_shm_channel *channels, char *err, size_t errlen)
{
	uint64_t off;

	if (spec->n_subtasks == 0) {
		snprintf(err, errlen, "a segment needs at least one subtask");
		return -EINVAL;
	}
	memset(h, 0, sizeof(*h));
	h->magic = WM_SHM_MAGIC;
	h->version = WM_LAYOUT_VERSION;
	h->header_bytes = sizeof(*h);
	h->n_subtasks = spec->n_subtasks;
	h->n_channels = spec->n_channels;
	off = round_up(sizeof(*h), WM_FALSE_SHARING_RANGE);
	h->doorbells_offset = off;
	off += (uint64_t)spec->n_subtasks * sizeof(struct wm_doorbell);
	h->channels_offset = off;
	off += (uint64_t)spec->n_channels * sizeof(struct wm_shm_channel);
	off = round_up(off, WM_FALSE_SHARING_RANGE);
	h->metrics_offset = off;
	h->metrics_stride =
		round_up(spec->metrics_bytes, WM_FALSE_SHARING_RANGE);
	h->metrics_bytes = (uint64_t)spec->n_subtasks * h->metrics_stride +
			   round_up(spec->tail_bytes, WM_FALSE_SHARING_RANGE);
	off += h->metrics_bytes;
	for (uint32_t i = 0; i < spec->n_channels; i++) {
		const struct wm_shm_channel_spec *c = &spec->channels[i];
		size_t bytes = wm_ring_size(c->cells);

		if (c->producer >= spec->n_subtasks ||
		    c->consumer >= spec->n_subtasks) {
			snprintf(err, errlen,
				 "channel %" PRIu32 " names subtask %" PRIu32
				 " of %" PRIu32,
				 i,
				 c->producer >= spec->n_subtasks ? c->producer
								 : c->consumer,
				 spec->n_subtasks);
			return -EINVAL;
		}
		if (bytes == 0) {
			snprintf(err, errlen,
				 "channel %" PRIu32
				 ": invalid ring size %" PRIu32
				 " cells (a power of two from %u to %u)",
				 i, c->cells, WM_RING_MIN_CELLS,
				 WM_RING_MAX_CELLS);
			return -EINVAL;
		}
		off = round_up(off, WM_SHM_PAGE);
		if (channels != NULL)
			channels[i] = (struct wm_shm_channel){
				.producer = c->producer,
				.consumer = c->consumer,
				.cells = c->cells,
				.ring_offset = off,
				.ring_bytes = bytes,
			};
		off += bytes;
	}
	h->size = round_up(off, WM_SHM_PAGE);
	return 0;
}

/* A sealed memfd of `size` bytes, mapped into seg. 0, or a negative errno
 * with a message (seg->fd stays open for the caller to close). */
static int
create_memfd(struct wm_shm *seg, uint64_t size, char *err, size_t errlen)
{
	seg->fd = memfd_create("wmrun", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (seg->fd < 0) {
		snprintf(err, errlen, "could not create shared memory: %s",
			 strerror(errno));
		return -errno;
	}
	if (ftruncate(seg->fd, (off_t)size) != 0 ||
	    fcntl(seg->fd, F_ADD_SEALS,
		  F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) != 0) {
		int r = -errno;

		snprintf(err, errlen,
			 "could not size shared memory to %" PRIu64
			 " bytes: %s",
			 size, strerror(-r));
		return r;
	}
	seg->base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 seg->fd, 0);
	if (seg->base == MAP_FAILED) {
		int r = -errno;

		seg->base = NULL;
		snprintf(err, errlen, "could not map shared memory: %s",
			 strerror(-r));
		return r;
	}
	seg->size = size;
	return 0;
}

/*
 * Each ring's header goes in through the descriptor, not the mapping: a
 * store would map a page of every ring here, and with it a page-table page
 * for every 2 MiB of rings (16 MiB for 8 GiB), in a process that never
 * touches a ring again. The pages are allocated all the same; only this
 * process's page tables stay those of the tables. Nobody else has the
 * segment yet, so plain bytes will do for the atomics.
 */
static int
write_ring_headers(const struct wm_shm *seg,
		   const struct wm_shm_channel *channels, uint32_t n, char *err,
		   size_t errlen)
{
	for (uint32_t i = 0; i < n; i++) {
		struct wm_ring ring;
		int r;

		memset(&ring, 0, sizeof(ring));
		wm_ring_init(&ring, channels[i].cells);
		errno = 0;
		if (pwrite(seg->fd, &ring, sizeof(ring),
			   (off_t)channels[i].ring_offset) ==
		    (ssize_t)sizeof(ring))
			continue;
		r = errno != 0 ? -errno : -EIO;
		snprintf(err, errlen,
			 "could not set up ring %" PRIu32
			 " in shared memory: %s",
			 i, strerror(-r));
		return r;
	}
	return 0;
}

int
wm_shm_create(const struct wm_shm_spec *spec, struct wm_shm *seg, char *err,
	      size_t errlen)
{
	struct wm_shm_header h;
	struct wm_shm_channel *channels;
	int r;

	seg->fd = -1;
	seg->base = NULL;
	seg->size = 0;
	/* Lay out in a scratch table first: nothing is created for a spec
	 * that cannot work. */
	channels = calloc(spec->n_channels ? spec->n_channels : 1,
			  sizeof(*channels));
	if (channels == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r = wm_shm_layout(spec, &h, channels, err, errlen);
	if (r == 0)
		r = create_memfd(seg, h.size, err, errlen);
	if (r == 0) {
		/* A fresh memfd reads as zeros: doorbells, metrics and cells
		 * start zeroed without touching (and so placing) their
		 * pages. */
		memcpy(seg->base, &h, sizeof(h));
		memcpy((char *)seg->base + h.channels_offset, channels,
		       spec->n_channels * sizeof(*channels));
		r = write_ring_headers(seg, channels, spec->n_channels, err,
				       errlen);
	}
	if (r != 0 && seg->fd >= 0) {
		wm_shm_detach(seg);
		close(seg->fd);
		seg->fd = -1;
	}
	free(channels);
	return r;
}

/* Bytes [off, off + len) of the memfd as a fresh one's: zeros, their
 * pages given back (a hole reads as zeros; only size changes are
 * sealed). */
static int
punch(const struct wm_shm *seg, uint64_t off, uint64_t len)
{
	if (len == 0 ||
	    fallocate(seg->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      (off_t)off, (off_t)len) == 0)
		return 0;
	return -errno;
}

int
wm_shm_reset(struct wm_shm *seg, char *err, size_t errlen)
{
	struct wm_shm_header *h = seg->base;
	const struct wm_shm_channel *channels = wm_shm_channel(seg, 0);
	int r;

	/* Doorbells, then metrics and rings to the end: the channel table
	 * between them stays. A cell keeps its sequence number (frame.h)
	 * until zeroed: one left from before would read as a frame at a
	 * new ring's position. */
	r = punch(seg, h->doorbells_offset,
		  (uint64_t)h->n_subtasks * sizeof(struct wm_doorbell));
	if (r == 0)
		r = punch(seg, h->metrics_offset, h->size - h->metrics_offset);
	if (r != 0) {
		snprintf(err, errlen, "could not clear shared memory: %s",
			 strerror(-r));
		return r;
	}
	r = write_ring_headers(seg, channels, h->n_channels, err, errlen);
	if (r != 0)
		return r;
	atomic_store_explicit(&h->ready, 0, memory_order_relaxed);
	atomic_store_explicit(&h->start_ns, 0, memory_order_relaxed);
	atomic_store_explicit(&h->stop, 0, memory_order_relaxed);
	atomic_store_explicit(&h->checkpoint, 0, memory_order_relaxed);
	atomic_store_explicit(&h->checkpoint_aborted, 0, memory_order_relaxed);
	return 0;
}

/* `count` items of `each` bytes from `offset` lie within `size` bytes,
 * computed without overflow whatever the header says. */
static bool
fits(uint64_t offset, uint64_t count, uint64_t each, uint64_t size)
{
	return offset <= size && (each == 0 || count <= (size - offset) / each);
}

static int
bad_segment(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "invalid shared memory segment: %s", what);
	return -EBADMSG;
}

/* Everything in the header and channel table must hold before any of it
 * is used: another process wrote it. The rings' own headers are checked
 * by wm_shm_ring_check(), ring by ring, by the process that uses them. */
static int
check(const struct wm_shm *seg, char *err, size_t errlen)
{
	const struct wm_shm_header *h = wm_shm_header(seg);
	uint64_t size = seg->size;

	if (size < sizeof(*h) || h->magic != WM_SHM_MAGIC)
		return bad_segment(err, errlen, "bad magic");
	if (h->version != WM_LAYOUT_VERSION || h->header_bytes != sizeof(*h)) {
		snprintf(err, errlen,
			 "shared memory layout version %" PRIu32
			 " (header %" PRIu32 " bytes), expected %u (%zu): "
			 "supervisor and worker binaries differ",
			 h->version, h->header_bytes, WM_LAYOUT_VERSION,
			 sizeof(*h));
		return -EBADMSG;
	}
	if (h->size != size)
		return bad_segment(err, errlen, "size differs from header");
	if (h->n_subtasks == 0 ||
	    !fits(h->doorbells_offset, h->n_subtasks,
		  sizeof(struct wm_doorbell), size) ||
	    !fits(h->channels_offset, h->n_channels,
		  sizeof(struct wm_shm_channel), size) ||
	    h->metrics_bytes / h->n_subtasks < h->metrics_stride ||
	    !fits(h->metrics_offset, 1, h->metrics_bytes, size) ||
	    h->doorbells_offset % WM_FALSE_SHARING_RANGE != 0 ||
	    h->channels_offset % 8 != 0)
		return bad_segment(err, errlen, "tables out of bounds");
	/* Rings follow the tables in channel order without overlapping, as
	 * layout() places them; anything else was not written by us. */
	uint64_t end = h->metrics_offset + h->metrics_bytes;

	for (uint32_t i = 0; i < h->n_channels; i++) {
		const struct wm_shm_channel *c = wm_shm_channel(seg, i);

		if (c->producer >= h->n_subtasks ||
		    c->consumer >= h->n_subtasks ||
		    c->ring_offset % WM_SHM_PAGE != 0 || c->ring_offset < end ||
		    c->ring_bytes != wm_ring_size(c->cells) ||
		    !fits(c->ring_offset, 1, c->ring_bytes, size)) {
			snprintf(err, errlen,
				 "invalid shared memory segment: channel "
				 "%" PRIu32 " descriptor out of bounds",
				 i);
			return -EBADMSG;
		}
		end = c->ring_offset + c->ring_bytes;
	}
	return 0;
}

int
wm_shm_attach(int fd, struct wm_shm *seg, char *err, size_t errlen)
{
	struct stat st;
	int r;

	seg->fd = fd;
	seg->base = NULL;
	seg->size = 0;
	if (fstat(fd, &st) != 0) {
		r = -errno;
		snprintf(err, errlen, "could not attach shared memory: %s",
			 strerror(errno));
		return r;
	}
	if (st.st_size < (off_t)sizeof(struct wm_shm_header))
		return bad_segment(err, errlen, "too small");
	seg->base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0);
	if (seg->base == MAP_FAILED) {
		r = -errno;
		seg->base = NULL;
		snprintf(err, errlen, "could not attach shared memory: %s",
			 strerror(errno));
		return r;
	}
	seg->size = (size_t)st.st_size;
	r = check(seg, err, errlen);
	if (r != 0)
		wm_shm_detach(seg);
	return r;
}

int
wm_shm_ring_check(const struct wm_shm *seg, uint32_t channel, char *err,
		  size_t errlen)
{
	const struct wm_shm_channel *c;
	char why[128];

	/* wm_shm_attach() checked the descriptor: the ring lies within the
	 * segment. */
	if (channel >= wm_shm_header(seg)->n_channels) {
		snprintf(err, errlen,
			 "invalid shared memory segment: no channel %" PRIu32
			 " among %" PRIu32,
			 channel, wm_shm_header(seg)->n_channels);
		return -EBADMSG;
	}
	c = wm_shm_channel(seg, channel);
	if (wm_ring_check(wm_shm_ring(seg, channel), c->ring_bytes, why,
			  sizeof(why)) != 0) {
		snprintf(err, errlen,
			 "invalid shared memory segment: channel %" PRIu32
			 ": %s",
			 channel, why);
		return -EBADMSG;
	}
	return 0;
}

void
wm_shm_detach(struct wm_shm *seg)
{
	if (seg->base != NULL)
		munmap(seg->base, seg->size);
	seg->base = NULL;
	seg->size = 0;
}

/* The wait condition of the start line. S3: acquire, pairs with S2, so
 * the start time read after it is the one stored. */
static bool
started(void *arg)
{
	const struct wm_shm_header *h = arg;

	return atomic_load_explicit(&h->start_ns, memory_order_acquire) != 0;
}

int
wm_shm_start_line(struct wm_shm *seg, uint32_t subtask, enum wm_wait_mode mode,
		  int64_t *start_ns)
{
	struct wm_shm_header *h = seg->base;
	struct wm_waiter w;
	int r;

	/* S1: acq_rel: the last to arrive sees every other arrival. */
	if (atomic_fetch_add_explicit(&h->ready, 1, memory_order_acq_rel) + 1 ==
	    h->n_subtasks) {
		int64_t start = wm_monotonic_ns();

		/* S2: release, pairs with S3. The ring after it fences (W2),
		 * so no subtask sleeps through the start. */
		atomic_store_explicit(&h->start_ns, start ? start : 1,
				      memory_order_release);
		for (uint32_t i = 0; i < h->n_subtasks; i++)
			if (i != subtask)
				wm_doorbell_ring(wm_shm_doorbell(seg, i));
	} else {
		wm_waiter_init(&w, wm_shm_doorbell(seg, subtask), mode);
		r = wm_wait(&w, started, h, -1);
		if (r != 0)
			return r;
	}
	*start_ns = atomic_load_explicit(&h->start_ns, memory_order_acquire);
	return 0;
}

/* Wake every subtask to see what the caller just stored in the header:
 * the ring fences (W2) before it looks for sleepers, so a subtask that
 * sleeps after the fence saw the store in its own recheck (W1, wait.h). */
static void
ring_every_subtask(struct wm_shm *seg)
{
	const struct wm_shm_header *h = seg->base;

	for (uint32_t i = 0; i < h->n_subtasks; i++)
		wm_doorbell_ring(wm_shm_doorbell(seg, i));
}

void
wm_shm_request_stop(struct wm_shm *seg)
{
	struct wm_shm_header *h = seg->base;

	atomic_store_explicit(&h->stop, 1, memory_order_relaxed);
	/* W2: the ring orders it before the look for sleepers. */
	ring_every_subtask(seg);
}

void
wm_shm_trigger_checkpoint(struct wm_shm *seg, uint64_t id)
{
	struct wm_shm_header *h = seg->base;

	atomic_store_explicit(&h->checkpoint, id, memory_order_relaxed);
	/* W2: the ring orders it before the look for sleepers. */
	ring_every_subtask(seg);
}

void
wm_shm_abort_checkpoint(struct wm_shm *seg, uint64_t id)
{
	struct wm_shm_header *h = seg->base;

	atomic_store_explicit(&h->checkpoint_aborted, id, memory_order_relaxed);
	/* W2: the ring orders it before the look for sleepers. */
	ring_every_subtask(seg);
}

int64_t
wm_shm_started(const struct wm_shm *seg)
{
	/* S3 again: after the workers were reaped, a plain read would do. */
	return atomic_load_explicit(&wm_shm_header(seg)->start_ns,
				    memory_order_acquire);
}
