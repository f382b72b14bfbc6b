/*
 * wait.c
 *	Spin, yield, then sleep on a shared futex (protocol in wait.h).
 */
#include "config.h"

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "ipc/wait.h"

/* Clock reads in the spin loop are spaced this many pauses apart: a pause
 * is tens of cycles, a vDSO clock read about twenty nanoseconds. */
#define SPIN_CHECK_EVERY 16

void
wm_doorbell_init(struct wm_doorbell *db)
{
	memset(db, 0, sizeof(*db));
}

void
wm_waiter_init(struct wm_waiter *w, struct wm_doorbell *db,
	       enum wm_wait_mode mode)
{
	w->db = db;
	w->mode = mode;
	w->spin_max_ns = WM_WAIT_DEFAULT_SPIN_MAX_NS;
	w->spin_ns = w->spin_max_ns / 4;
	w->yields = WM_WAIT_DEFAULT_YIELDS;
	w->before_sleep = NULL;
	w->before_sleep_arg = NULL;
}

int
wm_wait_mode_parse(const char *text, enum wm_wait_mode *mode)
{
	if (strcmp(text, "spin") == 0)
		*mode = WM_WAIT_SPIN;
	else if (strcmp(text, "futex") == 0)
		*mode = WM_WAIT_FUTEX;
	else if (strcmp(text, "yield") == 0)
		*mode = WM_WAIT_YIELD;
	else
		return -EINVAL;
	return 0;
}

static long
futex(_Atomic uint32_t *word, int op, uint32_t val,
      const struct timespec *timeout)
{
	return syscall(SYS_futex, (uint32_t *)word, op, val, timeout, NULL, 0);
}

void
wm_doorbell_wake(struct wm_doorbell *db)
{
	/* The new bell value makes a futex_wait() that is about to start
	 * return at once; the wake gets one that already sleeps. */
	atomic_fetch_add_explicit(&db->bell, 1, memory_order_relaxed);
	futex(&db->bell, FUTEX_WAKE, 1, NULL);
}

/*
 * Spin (or yield) until ready or the budget is spent; true if ready. The
 * clock (tens of nanoseconds here) is read only after a first round of
 * polls, so a wait that data ends at once costs no clock read at all.
 */
static bool
spin_phase(struct wm_waiter *w, bool (*ready)(void *), void *arg,
	   int64_t timeout_ns, int64_t *start)
{
	if (w->mode == WM_WAIT_YIELD) {
		for (uint32_t i = 0; i < w->yields; i++) {
			if (ready(arg))
				return true;
			sched_yield();
		}
		*start = wm_monotonic_ns();
		return ready(arg);
	}
	/* An adapted budget of 0 (an idle stream) means one look, then
	 * sleep: every pause would be pure cost. */
	int polls = w->mode == WM_WAIT_FUTEX && w->spin_ns == 0
			    ? 1
			    : SPIN_CHECK_EVERY;

	for (int i = 0; i < polls; i++) {
		if (ready(arg))
			return true;
		wm_cpu_relax();
	}
	int64_t budget = w->mode == WM_WAIT_SPIN ? INT64_MAX : w->spin_ns;

	/* No budget and no deadline: nothing needs the clock. */
	if (budget == 0 && timeout_ns < 0)
		return ready(arg);
	*start = wm_monotonic_ns();
	if (budget == 0)
		return ready(arg);

	if (timeout_ns >= 0 && timeout_ns < budget)
		budget = timeout_ns;
	for (;;) {
		for (int i = 0; i < SPIN_CHECK_EVERY; i++) {
			if (ready(arg))
				return true;
			wm_cpu_relax();
		}
		if (wm_monotonic_ns() - *start >= budget)
			return ready(arg);
	}
}

int
wm_wait_slow(struct wm_waiter *w, bool (*ready)(void *), void *arg,
	     int64_t timeout_ns)
{
	struct wm_doorbell *db = w->db;
	int64_t start = -1; /* spin_phase() reads the clock only if it must */
	int64_t deadline;

	if (spin_phase(w, ready, arg, timeout_ns, &start)) {
		wm_waiter_spun(w);
		return 0;
	}
	if (w->mode == WM_WAIT_SPIN) {
		/* Spins to the deadline; only a timeout ends it unready. */
		return -ETIMEDOUT;
	}
	/* About to make system calls: a clock read is cheap beside them, and
	 * the budget's adaptation needs the wait's length. */
	if (start < 0)
		start = wm_monotonic_ns();
	/* A timeout past the end of time is no timeout (and start + timeout
	 * must not overflow). */
	deadline = timeout_ns < 0 || timeout_ns > INT64_MAX - start
			   ? INT64_MAX
			   : start + timeout_ns;
	if (w->before_sleep != NULL)
		w->before_sleep(w->before_sleep_arg);
	for (;;) {
		uint32_t seen =
			atomic_load_explicit(&db->bell, memory_order_relaxed);
		struct timespec rel, *timeout = NULL;

		/* W3: release, so `seen` is read before a waker can take
		 * the flag (wait.h); pairs with the acquire exchange in
		 * wm_doorbell_take(). */
		atomic_store_explicit(&db->sleeping, 1, memory_order_release);
		atomic_thread_fence(memory_order_seq_cst); /* W1 */
		if (ready(arg))
			break;
		if (deadline != INT64_MAX) {
			int64_t left = deadline - wm_monotonic_ns();

			if (left <= 0) {
				atomic_store_explicit(&db->sleeping, 0,
						      memory_order_relaxed);
				/* Nothing came: spinning longer would
				 * not have helped. */
				wm_waiter_shrink(w);
				return ready(arg) ? 0 : -ETIMEDOUT;
			}
			rel.tv_sec = left / 1000000000;
			rel.tv_nsec = left % 1000000000;
			timeout = &rel;
		}
		atomic_fetch_add_explicit(&db->parks, 1, memory_order_relaxed);
		if (futex(&db->bell, FUTEX_WAIT, seen, timeout) == 0)
			atomic_fetch_add_explicit(&db->wakeups, 1,
						  memory_order_relaxed);
		else if (errno != EAGAIN && errno != EINTR &&
			 errno != ETIMEDOUT) {
			/* The owner is not asleep and will not be: no waker
			 * may take the flag for a sleep that is over. */
			int e = errno;

			atomic_store_explicit(&db->sleeping, 0,
					      memory_order_relaxed);
			return -e;
		}
		if (ready(arg))
			break;
	}
	atomic_store_explicit(&db->sleeping, 0, memory_order_relaxed);
	wm_waiter_slept(w, wm_monotonic_ns() - start);
	return 0;
}
