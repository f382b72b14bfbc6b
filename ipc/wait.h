/*
 * wait.h
 *	Waiting without burning a core: one futex doorbell per subtask, in the
 *	shared segment; spin briefly, then sleep; wake only a peer that said it
 *	may sleep.
 *
 * A subtask waits for one thing at a time: data on any of its input rings,
 * or space on one of its output rings. Either way it waits on its own
 * doorbell, and whoever can change what it waits for (a producer that
 * published, a consumer that freed space) rings that doorbell.
 *
 * The protocol (W1 and W2 name the two full fences, W3 the release and
 * acquire that pair on the flag):
 *
 *   owner, about to sleep (wm_wait_slow())     waker, after publishing
 *                                                (wm_doorbell_ring())
 *     seen = load(bell)                          fence(seq_cst)       [W2]
 *     store-release(sleeping, 1)        [W3]     if (load(sleeping) &&
 *     fence(seq_cst)                    [W1]         exchange-acquire(
 *     if (ready()) { sleeping = 0; done }              sleeping, 0)) [W3]
 *     futex_wait(bell, seen)                       add(bell, 1);
 *                                                  futex_wake(bell)
 *
 * Each side stores one variable and then loads another; acquire and release
 * do not order a store before a later load, so without W1 and W2 the owner
 * could miss the data and the waker miss the flag, and the owner would sleep
 * on data. With them, at least one side sees the other. A waker that takes
 * the flag read the owner's store of it, which W3 orders after the owner's
 * load of `seen`, and adds to `bell` after that: futex_wait() then finds
 * `bell` changed and returns at once (EAGAIN), however late the wake comes.
 * Without W3 the load of `seen` could be satisfied after the store (load
 * buffering, allowed by C11 and on Arm) and read the waker's add already,
 * and the owner would sleep through the only wake; on x86 it costs
 * nothing. The exchange makes one sleep cost at most one wake system call
 * however many producers publish.
 *
 * The fence W2 costs as much as moving a record, so the fast path does
 * without it: after every few cells a waker only nudges (loads `sleeping`
 * unfenced; only if it sees 1 does it fence, as W2, and wake, where the
 * fence is small beside the system call, and that nudge then counts as a
 * full ring). A nudge that sees 0 can miss an owner that is just falling
 * asleep; the fenced ring then comes later, and it always comes:
 * every process rings (fenced) everyone it publishes to before it sleeps
 * itself (struct wm_waiter's before_sleep), after at most
 * WM_RING_FENCE_EVERY cells, and on its flush deadline while busy. A wake
 * is thus never lost, at worst late by that bound, and a stream whose
 * peers are awake pays no fence per record.
 *
 * Futex words live in a MAP_SHARED mapping used by several processes: the
 * operations are FUTEX_WAIT and FUTEX_WAKE, never the _PRIVATE variants.
 */
#ifndef WM_IPC_WAIT_H
#define WM_IPC_WAIT_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define WM_CACHELINE 64
/* Two lines: adjacent-line prefetch pairs them, so shared blocks written by
 * different sides are kept 128 bytes apart (doc/performance.md, lesson 3). */
#define WM_FALSE_SHARING_RANGE 128

/* One per subtask, in the segment. */
struct wm_doorbell {
	alignas(WM_FALSE_SHARING_RANGE) _Atomic uint32_t bell; /* futex word */
	_Atomic uint32_t sleeping; /* 1 while the owner may be asleep */
	/* Statistics, written by the owner only (relaxed). */
	_Atomic uint64_t parks;	  /* FUTEX_WAIT calls */
	_Atomic uint64_t wakeups; /* of which woken (not timed out) */
};

_Static_assert(sizeof(struct wm_doorbell) == WM_FALSE_SHARING_RANGE,
	       "a doorbell has its own two cache lines");

void wm_doorbell_init(struct wm_doorbell *db);

/* How the owner waits. */
enum wm_wait_mode {
	/* Pause loop, never sleep: lowest latency, burns a CPU. For
	 * benchmarks and tests, and only with a core per process. */
	WM_WAIT_SPIN,
	/* Spin up to the adaptive budget, then sleep on the futex. */
	WM_WAIT_FUTEX,
	/* sched_yield() instead of pausing, then sleep: for a waiter whose
	 * peer shares its CPU, where spinning holds the CPU the peer needs. */
	WM_WAIT_YIELD,
};

/* The owner's side: process-local, one per doorbell owner. */
struct wm_waiter {
	struct wm_doorbell *db;
	enum wm_wait_mode mode;
	/* Spin budget in nanoseconds: doubled after a wait that the spin
	 * satisfied or that slept only briefly, halved after one that slept
	 * long (wm_waiter_slept()), within [0, max]. So a busy pipeline
	 * spins through short gaps and an idle one stops spinning almost at
	 * once. */
	uint32_t spin_ns;
	uint32_t spin_max_ns;
	/* WM_WAIT_YIELD: sched_yield() calls before sleeping. */
	uint32_t yields;
	/* Called once before the owner sleeps: ring (fenced) every peer
	 * this process publishes to, so that no one waits on it while it
	 * sleeps (see the protocol above). NULL if it publishes nothing. */
	void (*before_sleep)(void *arg);
	void *before_sleep_arg;
};

#define WM_WAIT_DEFAULT_SPIN_MAX_NS 20000
#define WM_WAIT_DEFAULT_YIELDS 64

void wm_waiter_init(struct wm_waiter *w, struct wm_doorbell *db,
		    enum wm_wait_mode mode);

/* Parse "spin", "futex" or "yield"; -EINVAL otherwise. */
int wm_wait_mode_parse(const char *text, enum wm_wait_mode *mode);

/* CPU pause for spin loops. */
static inline void
wm_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

/* The rest of wm_wait() after its inline polls: timed spin, yield, sleep. */
int wm_wait_slow(struct wm_waiter *w, bool (*ready)(void *arg), void *arg,
		 int64_t timeout_ns);

/* Polls wm_wait() makes inline, a pause before each, before the rest. */
#define WM_WAIT_INLINE_POLLS 16

/* The smallest budget but zero: what a zero budget grows to first. */
#define WM_WAIT_FIRST_SPIN_NS 250

/*
 * A wait that spinning satisfied: double the spin budget, to the cap. A
 * streaming or ping-pong waiter is at the cap almost always, and then the
 * field is left alone: storing the same value again on every wait cost about
 * a tenth of a ping-pong round trip (doc/performance.md section 9.6).
 */
static inline void
wm_waiter_spun(struct wm_waiter *w)
{
	if (w->spin_ns == w->spin_max_ns)
		return;
	uint32_t next = w->spin_ns ? 2 * w->spin_ns : WM_WAIT_FIRST_SPIN_NS;

	w->spin_ns = next < w->spin_max_ns ? next : w->spin_max_ns;
}

/*
 * A wait that slept long: halve the budget, and below the first step make
 * it zero. Any budget costs its inline polls and a spin round, a
 * microsecond or two of pauses, so a budget decaying through 125, 62, ...
 * 1 ns would cost that on each of eight more waits of an idle stream.
 */
static inline void
wm_waiter_shrink(struct wm_waiter *w)
{
	w->spin_ns =
		w->spin_ns / 2 < WM_WAIT_FIRST_SPIN_NS ? 0 : w->spin_ns / 2;
}

/*
 * A wait that had to sleep and lasted `waited_ns` in all, spin and wake-up
 * included. If it ended within one and a half caps, the data came soon
 * after the spin gave up and a longer spin would have saved the sleep and
 * the peer's wake-up call: grow the budget as a spun wait does. Otherwise
 * the stream has gaps longer than any spin: halve it, towards sleeping at
 * once.
 *
 * Halving after every sleep would let two busy peers lock each other into
 * sleeping: once one sleeps, the other's next wait includes a futex
 * wake-up, longer than its budget, so it sleeps too, and both budgets halve
 * to zero while messages still flow; every message then costs a wake-up
 * (doc/performance.md section 9.7). The half cap of slack takes in the two
 * wake-ups of such a wait and keeps out the gaps of a paced input, whose
 * waits must end in sleeping at once to keep its consumer's CPU low.
 */
static inline void
wm_waiter_slept(struct wm_waiter *w, int64_t waited_ns)
{
	if (waited_ns <= (int64_t)w->spin_max_ns * 3 / 2)
		wm_waiter_spun(w);
	else
		wm_waiter_shrink(w);
}

/*
 * Wait until ready(arg) is true or `timeout_ns` (relative; < 0 = no
 * timeout) passes. Returns 0 when ready, -ETIMEDOUT, or a negative errno
 * if the futex call failed in a way retrying cannot fix. ready() may be
 * called many times, must not block, and must see through memory what the
 * wakers publish before they ring.
 *
 * The first polls are inline, where ready() (a static function of the
 * caller) inlines too: a wait that data ends within a few pauses, the
 * streaming and ping-pong case, costs neither a call nor a clock read. The
 * pause comes first because the caller has just found nothing. A waiter
 * that yields, or whose budget has adapted to sleeping at once, skips them.
 */
static inline int
wm_wait(struct wm_waiter *w, bool (*ready)(void *arg), void *arg,
	int64_t timeout_ns)
{
	if (w->mode == WM_WAIT_SPIN ||
	    (w->mode == WM_WAIT_FUTEX && w->spin_ns != 0)) {
		for (int i = 0; i < WM_WAIT_INLINE_POLLS; i++) {
			wm_cpu_relax();
			if (ready(arg)) {
				wm_waiter_spun(w);
				return 0;
			}
		}
	}
	return wm_wait_slow(w, ready, arg, timeout_ns);
}

void wm_doorbell_wake(struct wm_doorbell *db);

/* Take the sleeping flag and wake the owner; false if someone else took
 * the flag first. The caller has already fenced (W2). */
static inline bool
wm_doorbell_take(struct wm_doorbell *db)
{
	/* W3: acquire; pairs with the release of sleeping in
	 * wm_wait_slow(). */
	if (!atomic_exchange_explicit(&db->sleeping, 0, memory_order_acquire))
		return false;
	wm_doorbell_wake(db);
	return true;
}

/*
 * Wake `db`'s owner if it is seen asleep: the fast path's nudge. Without
 * the flag set it costs one relaxed load and no fence, and may miss an
 * owner falling asleep just now. With it set, the nudge is about to make a
 * system call anyway, so it fences first (W2) and becomes a full ring:
 * true then, and whatever the caller published before the call can no
 * longer be slept on (the caller may count it as rung, see ring.h).
 */
static inline bool
wm_doorbell_nudge(struct wm_doorbell *db)
{
	if (!atomic_load_explicit(&db->sleeping, memory_order_relaxed))
		return false;
	atomic_thread_fence(memory_order_seq_cst); /* W2 */
	(void)wm_doorbell_take(db);
	return true;
}

/*
 * Ring `db` if its owner may be asleep: the W2 side of the protocol, never
 * missing. Call after publishing (the fence orders the publication before
 * the check).
 */
static inline void
wm_doorbell_ring(struct wm_doorbell *db)
{
	atomic_thread_fence(memory_order_seq_cst); /* W2 */
	if (atomic_load_explicit(&db->sleeping, memory_order_relaxed))
		(void)wm_doorbell_take(db);
}

#endif /* WM_IPC_WAIT_H */
