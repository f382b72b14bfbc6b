/*
 * shm.h
 *	The job's shared-memory segment: header, doorbells, channel table,
 *	per-subtask metrics and rings, in one sealed memfd.
 *
 * The supervisor creates the segment before forking; every subtask maps it
 * again after fork (wm_shm_attach() on the inherited descriptor) and checks
 * the header before trusting anything in it. The memfd has no name anyone
 * else could open, and its memory is freed when the last process holding
 * the descriptor or a mapping is gone, however it died: nothing is ever
 * left in /dev/shm. Its size is sealed (F_SEAL_GROW, F_SEAL_SHRINK,
 * F_SEAL_SEAL), so no process can truncate it under the others' mappings.
 *
 * Layout (offsets in bytes from the start; all offsets, never pointers):
 *
 *   0                 struct wm_shm_header
 *   doorbells_offset  struct wm_doorbell[n_subtasks]       (128 B each)
 *   channels_offset   struct wm_shm_channel[n_channels]
 *   metrics_offset    the metrics area, metrics_bytes in all: n_subtasks
 *                     blocks of metrics_stride bytes, then the plan's
 *                     tail (partition entries of each source subtask,
 *                     fire-delay histograms of each window subtask,
 *                     laid out by the plan: runtime/metrics/metrics.h).
 *                     Each block and each subtask's run of entries has
 *                     one writer, its subtask, from a cache line of its
 *                     own; the supervisor and the observer read them
 *   ring_offset of c  struct wm_ring, page-aligned so its pages can be
 *                     bound to the consumer's NUMA node
 *
 * Everything but the rings' cells, the metrics and the header's start line
 * is written by the supervisor before the first fork and read-only
 * afterwards.
 *
 * Pages: a process maps the whole segment but touches only what it uses,
 * so that only those pages cost it page tables (a page-table page for
 * each 2 MiB span it touches): the supervisor the tables (it writes the
 * rings' headers through the descriptor), a worker the tables and its own
 * rings. wm_shm_attach() therefore checks the header and the channel
 * table only; a worker checks each ring it uses with wm_shm_ring_check().
 * A job of 256 x 256 subtasks has 65536 rings in 8.3 GiB: when every
 * process touched every ring's header, each of its 513 processes paid 16
 * MiB of page tables for the whole segment.
 */
#ifndef WM_IPC_SHM_H
#define WM_IPC_SHM_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "ipc/ring.h"
#include "ipc/wait.h"

#define WM_SHM_MAGIC 0x4745534e55524d57ull /* "WMRUNSEG" in memory */
/* Bumped on any change to this header, frame.h or ring.h. */
#define WM_LAYOUT_VERSION 8u
#define WM_SHM_PAGE 4096u

/* What the supervisor publishes of the job's checkpoints (all atomics,
 * written by it alone; durations in processing time). */
struct wm_shm_checkpoint_stats {
	_Atomic uint64_t completed;
	_Atomic uint64_t failed;      /* given up: failed or timed out */
	_Atomic uint32_t in_progress; /* 1 while one is pending, else 0 */
	_Atomic uint32_t reserved;
	_Atomic int64_t last_duration_ns; /* while completed > 0 */
	_Atomic uint64_t last_bytes;
};

struct wm_shm_header {
	uint64_t magic;
	uint32_t version;
	uint32_t header_bytes; /* sizeof(struct wm_shm_header) */
	uint64_t size;	       /* of the whole segment */
	uint32_t n_subtasks;
	uint32_t n_channels;
	uint64_t doorbells_offset;
	uint64_t channels_offset;
	uint64_t metrics_offset;
	uint64_t metrics_stride;
	uint64_t metrics_bytes; /* the blocks and the plan's tail */
	/* The start line (wm_shm_start_line()), the one part of the header
	 * written after the forks, on a line of its own. */
	alignas(WM_FALSE_SHARING_RANGE) _Atomic uint32_t ready;
	_Atomic int64_t start_ns; /* 0 until every subtask is ready */
	/* Set once by the supervisor when the job is to stop: the sources
	 * end their streams with END(STOP) (wm_shm_request_stop()). */
	_Atomic uint32_t stop;
	/* The newest checkpoint the supervisor triggered (0: none yet),
	 * raised by it alone (wm_shm_trigger_checkpoint()). */
	_Atomic uint64_t checkpoint;
	/* The newest checkpoint the supervisor gave up (timed out): a task
	 * still aligning it unblocks its channels (task.h). */
	_Atomic uint64_t checkpoint_aborted;
	/* Restarts after a crash so far, written by the supervisor before
	 * it starts the workers again (wm_shm_reset() leaves it), for an
	 * observer to show: the restore is at the new start line. */
	_Atomic uint32_t restarts;
	/* The job's checkpoints so far, for an observer to show (Flink's
	 * JobManager figures): written by the supervisor alone, each value
	 * whole (relaxed), the set of about one moment; wm_shm_reset()
	 * leaves them, a restart going on counting. */
	struct wm_shm_checkpoint_stats checkpoints;
};

/* One channel: a ring from one subtask to another. */
struct wm_shm_channel {
	uint32_t producer; /* subtask index */
	uint32_t consumer;
	uint32_t cells;
	uint32_t reserved;
	uint64_t ring_offset;
	uint64_t ring_bytes;
};

/* What the supervisor asks for. */
struct wm_shm_channel_spec {
	uint32_t producer;
	uint32_t consumer;
	uint32_t cells; /* power of two, see WM_RING_MIN_CELLS / MAX_CELLS */
};

struct wm_shm_spec {
	uint32_t n_subtasks;
	uint32_t n_channels;
	const struct wm_shm_channel_spec *channels;
	size_t metrics_bytes; /* a block, per subtask */
	/* After the blocks: what the caller lays out there (the plan:
	 * the source subtasks' partition entries, then the window
	 * subtasks' fire-delay histograms); 0 for none. */
	size_t tail_bytes;
};

/* A mapping of the segment in this process. */
struct wm_shm {
	int fd;
	void *base;
	size_t size;
};

/*
 * Create, size, seal, map and lay out a segment for `spec`. Returns 0, or
 * a negative errno with a message in err: -EINVAL for an impossible spec,
 * else what the OS refused (EX_OSERR for the caller).
 */
int wm_shm_create(const struct wm_shm_spec *spec, struct wm_shm *seg, char *err,
		  size_t errlen);

/*
 * The layout wm_shm_create() gives `spec`, without creating anything: the
 * header (h->size is the segment's bytes) and, unless channels is NULL,
 * every channel's descriptor (spec->n_channels). 0, or -EINVAL with a
 * message for an impossible spec. For estimates of what a job needs.
 */
int wm_shm_layout(const struct wm_shm_spec *spec, struct wm_shm_header *h,
		  struct wm_shm_channel *channels, char *err, size_t errlen);

/*
 * The segment as wm_shm_create() left it, for a job that restarts after
 * a crash (the supervisor, once every worker is gone): doorbells, metrics
 * blocks and rings zeroed (their pages freed), the rings' headers
 * written again, the start line, stop flag and checkpoint reset. The
 * layout and the descriptor stay, so an observer that maps the segment
 * goes on reading it. 0, or a negative errno with a message.
 */
int wm_shm_reset(struct wm_shm *seg, char *err, size_t errlen);

/* Map the segment behind `fd` (inherited from the supervisor) and check
 * header, version, sizes and every channel's descriptor, touching no ring.
 * 0 or negative errno + err. */
int wm_shm_attach(int fd, struct wm_shm *seg, char *err, size_t errlen);

/* Check the ring of `channel` (its header: magic and size), before this
 * process first uses it; touches that ring's first page only. 0, or
 * -EBADMSG with a message naming the channel. */
int wm_shm_ring_check(const struct wm_shm *seg, uint32_t channel, char *err,
		      size_t errlen);

/*
 * The start line: subtask `subtask`, set up, counts itself ready and waits
 * (on its doorbell, in `mode`) until every subtask of the segment is; the
 * last to arrive reads the clock, stores the job's start there and rings
 * the others. So processing time starts when the whole job can run, not
 * while processes are still forking, pinning and mapping: at speed 2000 a
 * 20 ms start-up would otherwise be 40 s of processing time in which no
 * record could move. 0 and *start_ns (CLOCK_MONOTONIC, the same in every
 * process), or a negative errno if waiting failed.
 */
int wm_shm_start_line(struct wm_shm *seg, uint32_t subtask,
		      enum wm_wait_mode mode, int64_t *start_ns);

/* The start every subtask saw, or 0 if not every subtask got there. */
int64_t wm_shm_started(const struct wm_shm *seg);

/*
 * Ask the job to stop (the supervisor, on Ctrl-C): every source ends its
 * stream with END(STOP), the frames in the rings drain, and every worker
 * finishes with its final figures published, so that a stopped job's
 * summary is exact. Rings every subtask's doorbell, so a sleeping source
 * looks at once.
 */
void wm_shm_request_stop(struct wm_shm *seg);

/* Whether the job was asked to stop: a source's look, once a loop. */
static inline bool
wm_shm_stop_requested(const struct wm_shm *seg)
{
	/* Relaxed: the flag carries no data; whatever the source does next
	 * is its own. */
	return atomic_load_explicit(
		&((const struct wm_shm_header *)seg->base)->stop,
		memory_order_relaxed);
}

/*
 * Trigger checkpoint `id` (above every earlier one): each source, at its
 * next look, records its position and sends the barrier (task.h). Rings
 * every subtask's doorbell, as a stop request does, so a sleeping source
 * looks at once. The supervisor's only way to a checkpoint: it never
 * touches a ring.
 */
void wm_shm_trigger_checkpoint(struct wm_shm *seg, uint64_t id);

/* Give checkpoint `id` up (it timed out): every task still aligning it
 * stops, at its next look; doorbells rung as for a trigger. */
void wm_shm_abort_checkpoint(struct wm_shm *seg, uint64_t id);

/* The newest checkpoint given up: a look once a burst. */
static inline uint64_t
wm_shm_checkpoint_aborted(const struct wm_shm *seg)
{
	return atomic_load_explicit(
		&((const struct wm_shm_header *)seg->base)->checkpoint_aborted,
		memory_order_relaxed);
}

/* The newest checkpoint triggered: a source's look, once a loop. */
static inline uint64_t
wm_shm_checkpoint_triggered(const struct wm_shm *seg)
{
	/* Relaxed, as the stop flag: the id is all it carries. */
	return atomic_load_explicit(
		&((const struct wm_shm_header *)seg->base)->checkpoint,
		memory_order_relaxed);
}

/* Unmap; the descriptor is the caller's to close. */
void wm_shm_detach(struct wm_shm *seg);

static inline const struct wm_shm_header *
wm_shm_header(const struct wm_shm *seg)
{
	return (const struct wm_shm_header *)seg->base;
}

static inline const struct wm_shm_channel *
wm_shm_channel(const struct wm_shm *seg, uint32_t channel)
{
	const struct wm_shm_header *h = wm_shm_header(seg);

	return (const struct wm_shm_channel *)((const char *)seg->base +
					       h->channels_offset) +
	       channel;
}

static inline struct wm_ring *
wm_shm_ring(const struct wm_shm *seg, uint32_t channel)
{
	return (struct wm_ring *)((char *)seg->base +
				  wm_shm_channel(seg, channel)->ring_offset);
}

static inline struct wm_doorbell *
wm_shm_doorbell(const struct wm_shm *seg, uint32_t subtask)
{
	return (struct wm_doorbell *)((char *)seg->base +
				      wm_shm_header(seg)->doorbells_offset) +
	       subtask;
}

/* The metrics area: the blocks, then the plan's tail. A job's readers
 * find a subtask's block, partitions and fire delays in it through the
 * plan (runtime/plan/plan.h, wm_plan_block(), wm_plan_partitions(),
 * wm_plan_fire_delays()). */
static inline void *
wm_shm_metrics_area(const struct wm_shm *seg)
{
	return (char *)seg->base + wm_shm_header(seg)->metrics_offset;
}

/* Block `subtask` of the area, for a segment without a plan (bench/). */
static inline void *
wm_shm_metrics(const struct wm_shm *seg, uint32_t subtask)
{
	const struct wm_shm_header *h = wm_shm_header(seg);

	return (char *)seg->base + h->metrics_offset +
	       (size_t)subtask * h->metrics_stride;
}

#endif /* WM_IPC_SHM_H */
