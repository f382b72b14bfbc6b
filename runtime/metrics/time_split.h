/*
 * time_split.h
 *	Where a subtask's real time goes: waiting for input (idle), waiting
 *	for room in a full output ring (back-pressured), or working (busy),
 *	Flink's idleTimeMsPerSecond, backPressuredTimeMsPerSecond and
 *	busyTimeMsPerSecond once a reader takes differences per second.
 *
 * The worker is the only writer and marks the start and the end of every
 * wait (wm_time_split_begin(), wm_time_split_end()): a few stores per
 * sleep, nothing per record. The time of a wait still going on is not in
 * the totals yet; a reader adds it from `since_ns`, so that a subtask
 * asleep for ten seconds reads as idle during them, not as busy until it
 * wakes. Busy time is what is left of the real time elapsed, so it needs
 * no store at all.
 *
 * The reader (the supervisor's sampler, another process) needs `kind`,
 * `since_ns` and the totals of one moment: a wait ending between its
 * loads would be counted twice, once open and once closed. The fields are
 * under a sequence count, a seqlock with a single writer:
 *
 *   writer  T1  seq = s + 1 (odd: writing), relaxed; release fence
 *           T2  the fields, relaxed stores
 *           T3  seq = s + 2, release
 *   reader  R1  s1 = seq, acquire; odd: retry
 *           R2  the fields, relaxed loads
 *           R3  acquire fence; s2 = seq, relaxed; s2 != s1: retry
 *
 * A reader whose R2 saw any store of T2 has, by the T1 fence and the R3
 * fence, s2 >= s + 1 != s1 if s1 was older: it retries. A reader whose
 * R1 saw T3 (acquire) sees all of T2. A writer killed between T1 and T3
 * leaves seq odd for ever: the reader gives up after a bounded number of
 * tries and says it could not read, rather than wait on a dead process.
 *
 * Times are CLOCK_MONOTONIC nanoseconds (base/clock.h), the same clock in
 * every process of the machine.
 */
#ifndef WM_RUNTIME_METRICS_TIME_SPLIT_H
#define WM_RUNTIME_METRICS_TIME_SPLIT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* What a subtask is doing since `since_ns`. */
enum wm_time_kind {
	WM_TIME_BUSY = 0,
	WM_TIME_IDLE = 1,	   /* waiting for input or the next record */
	WM_TIME_BACKPRESSURED = 2, /* waiting for room in an output ring */
};

struct wm_time_split {
	_Atomic uint32_t seq;  /* odd while the writer is between T1 and T3 */
	_Atomic uint32_t kind; /* enum wm_time_kind */
	_Atomic int64_t since_ns;	  /* start of the current wait */
	_Atomic int64_t idle_ns;	  /* of the waits that ended */
	_Atomic int64_t backpressured_ns; /* of the waits that ended */
};

/* Totals as of a reader's `now_ns`, the wait going on included. */
struct wm_time_totals {
	int64_t idle_ns;
	int64_t backpressured_ns;
};

/* T1. */
static inline void
wm_time_split_lock(struct wm_time_split *t)
{
	uint32_t s = atomic_load_explicit(&t->seq, memory_order_relaxed);

	atomic_store_explicit(&t->seq, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
}

/* T3. */
static inline void
wm_time_split_unlock(struct wm_time_split *t)
{
	uint32_t s = atomic_load_explicit(&t->seq, memory_order_relaxed);

	atomic_store_explicit(&t->seq, s + 1, memory_order_release);
}

/* The writer: a wait of kind `kind` begins at `now_ns`. */
static inline void
wm_time_split_begin(struct wm_time_split *t, enum wm_time_kind kind,
		    int64_t now_ns)
{
	wm_time_split_lock(t);
	atomic_store_explicit(&t->kind, (uint32_t)kind, memory_order_relaxed);
	atomic_store_explicit(&t->since_ns, now_ns, memory_order_relaxed);
	wm_time_split_unlock(t);
}

/* The writer: the wait that began last ends at `now_ns` (no wait: no-op). */
static inline void
wm_time_split_end(struct wm_time_split *t, int64_t now_ns)
{
	uint32_t kind = atomic_load_explicit(&t->kind, memory_order_relaxed);
	int64_t since =
		atomic_load_explicit(&t->since_ns, memory_order_relaxed);
	_Atomic int64_t *total = kind == WM_TIME_IDLE ? &t->idle_ns
				 : kind == WM_TIME_BACKPRESSURED
					 ? &t->backpressured_ns
					 : NULL;

	if (total == NULL)
		return;
	wm_time_split_lock(t);
	atomic_store_explicit(
		total,
		atomic_load_explicit(total, memory_order_relaxed) +
			(now_ns > since ? now_ns - since : 0),
		memory_order_relaxed);
	atomic_store_explicit(&t->kind, WM_TIME_BUSY, memory_order_relaxed);
	wm_time_split_unlock(t);
}

/*
 * The reader: the totals as of `now_ns` into *out. False, and *out
 * untouched, when no consistent reading came within a bounded number of
 * tries (a writer killed mid-update, or one updating faster than the
 * reader reads).
 */
static inline bool
wm_time_split_read(const struct wm_time_split *t, int64_t now_ns,
		   struct wm_time_totals *out)
{
	for (int tries = 0; tries < 64; tries++) {
		uint32_t s1 =
			atomic_load_explicit(&t->seq, memory_order_acquire);

		if (s1 & 1)
			continue;
		uint32_t kind =
			atomic_load_explicit(&t->kind, memory_order_relaxed);
		int64_t since = atomic_load_explicit(&t->since_ns,
						     memory_order_relaxed);
		int64_t idle =
			atomic_load_explicit(&t->idle_ns, memory_order_relaxed);
		int64_t bp = atomic_load_explicit(&t->backpressured_ns,
						  memory_order_relaxed);

		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&t->seq, memory_order_relaxed) != s1)
			continue;
		/* The wait going on, up to the reader's moment (never
		 * negative: the reader's clock may be read before the
		 * writer's). */
		int64_t open = now_ns > since ? now_ns - since : 0;

		out->idle_ns = idle + (kind == WM_TIME_IDLE ? open : 0);
		out->backpressured_ns =
			bp + (kind == WM_TIME_BACKPRESSURED ? open : 0);
		return true;
	}
	return false;
}

#endif /* WM_RUNTIME_METRICS_TIME_SPLIT_H */
