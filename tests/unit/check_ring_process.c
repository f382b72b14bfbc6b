/*
 * check_ring_process.c
 *	The transport between real processes: a segment made with
 *	wm_shm_create(), children that fork and attach it with
 *	wm_shm_attach() on the inherited descriptor, real futex waits.
 *
 * What each test proves:
 *   stream	100 M records (default) through a 1024-cell ring in random
 *		batches, with control frames and random pauses on both sides:
 *		no loss, duplication or reordering across ~100 000 wraps, and
 *		neither side ever sleeps on work (every wait is timed). Once
 *		with each way of publishing a cell (four stores; two 16-byte
 *		stores where the processor allows them).
 *   tight	a fifth as many records through a 64-cell ring, both sides
 *		at full speed, the consumer reading runs in place as their
 *		tails appear: no record is ever seen half written. Both ways
 *		too.
 *   gate	3 producer processes into 1 consumer: the gate reads full
 *		inputs strictly round robin, `burst` frames each, and every
 *		channel's sequence arrives complete and in order.
 *   edges	a producer blocked on a full ring really sleeps and is woken
 *		by the consumer freeing space; a consumer blocked on an empty
 *		ring really sleeps and is woken by one flushed record.
 *   doorbell	ping-pong with random 0-200 us answers and no spinning, so
 *		nearly every wait parks in FUTEX_WAIT: no lost wake-up.
 *   corrupt	a cell forged by the producer process (bad sequence, bad
 *		kind) stops the consumer with -EBADMSG at exactly that
 *		position, and wm_ring_dump() names position and offset.
 *   segment	after SIGKILL of the creating process and all workers, no
 *		process on the machine holds the memfd's inode (fd or
 *		mapping) and nothing was left in /dev/shm; a worker attaching
 *		a segment of another layout version is refused with a
 *		message naming that version; neither the creating process
 *		nor a worker maps a page of rings it does not use (their
 *		page tables stay small however many rings there are).
 *
 * A lost wake-up shows as a wait that lasts WAIT_LIMIT_NS (5 s): wm_wait()
 * re-checks after its futex times out and would return 0, so every wait is
 * timed and a wait that long fails the test.
 *
 * Environment:
 *   WM_STRESS_RECORDS	records in each run of the stream test (the tight
 *			test takes a fifth); default 100000000: about 1.5 s
 *			on an idle 2-core machine, 3 s with ASan+UBSan, 5 s
 *			when the machine is busy. A slower CI may lower it
 *			(the integration harness may set it).
 *   WM_STRESS_SEED	seed of the random batches and pauses (printed on
 *			failure); default from the clock.
 *
 * Children report failures through a small shared page and their exit
 * status; they die with the test (PR_SET_PDEATHSIG) if it fails first.
 */
#include "config.h"

#include <check.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ipc/gate.h"
#include "ipc/ring.h"
#include "ipc/shm.h"
#include "ipc/wait.h"
#include "tests/unit/stress.h"

#define WAIT_LIMIT_NS (5 * 1000000000LL)
#define MAX_CHILDREN 8

#define STRESS_DEFAULT 100000000ull

/* --------------------------------------------------------------------- */
/* Helpers: time, randomness, children, failure reports */

/* Shared with the children (MAP_SHARED | MAP_ANONYMOUS): each child's
 * failure message, and the flags tests use to step through phases. */
struct report {
	char msg[MAX_CHILDREN][1024];
	_Atomic uint32_t phase;
	_Atomic uint32_t ready[MAX_CHILDREN];
	_Atomic int32_t result[MAX_CHILDREN];
	pid_t pids[MAX_CHILDREN];
	_Atomic int64_t arrived[MAX_CHILDREN], start[MAX_CHILDREN];
	int fd;
	char err[256];
};

static struct report *rep;
static pid_t children[MAX_CHILDREN];
static int n_children;
static uint64_t seed;

static void
setup(void)
{
	rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(rep, MAP_FAILED);
	n_children = 0;
	seed = env_u64("WM_STRESS_SEED", 0);
	if (seed == 0)
		seed = (uint64_t)now_ns() | 1;
}

static void
teardown(void)
{
	munmap(rep, sizeof(*rep));
}

/* Kill and reap every child still registered (the failure path). */
static void
kill_children(void)
{
	for (int i = 0; i < n_children; i++)
		if (children[i] > 0) {
			kill(children[i], SIGKILL);
			waitpid(children[i], NULL, 0);
			children[i] = 0;
		}
}

/* Fail the test with a message, after stopping the children. */
static void test_fail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static void
test_fail(const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kill_children();
	ck_abort_msg("%s (seed %" PRIu64 ")", msg, seed);
}

/* In a child: record why it failed and exit 1. */
static void child_fail(int slot, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static void
child_fail(int slot, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rep->msg[slot], sizeof(rep->msg[slot]), fmt, ap);
	va_end(ap);
	fprintf(stderr, "child %d: %s\n", slot, rep->msg[slot]);
	_exit(1);
}

/* Fork child `slot` running fn(slot, arg); it exits 0 unless it fails. */
static pid_t
spawn(int slot, void (*fn)(int slot, void *arg), void *arg)
{
	pid_t parent = getpid();
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		test_fail("could not fork: %s", strerror(errno));
	if (pid == 0) {
		/* Die with the test if it fails and exits first. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(2);
		fn(slot, arg);
		_exit(0);
	}
	children[n_children++] = pid;
	return pid;
}

static void
describe_status(int st, char *buf, size_t len)
{
	if (WIFEXITED(st))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "was terminated by signal %d: %s",
			 WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(buf, len, "ended with wait status %#x", st);
}

/* Reap child `slot` and assert it exited 0. */
static void
reap(int slot)
{
	pid_t pid = children[slot];
	char how[128];
	int st;

	if (waitpid(pid, &st, 0) != pid)
		test_fail("could not wait for child %d: %s", slot,
			  strerror(errno));
	children[slot] = 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		describe_status(st, how, sizeof(how));
		test_fail("child %d (pid %d) %s: %s", slot, (int)pid, how,
			  rep->msg[slot][0] ? rep->msg[slot] : "(no message)");
	}
}

/* A wait in the parent ended badly: if a child failed, that is the story. */
static void
test_fail_wait(const char *what)
{
	for (int i = 0; i < n_children; i++) {
		int st;
		char how[128];

		if (children[i] > 0 &&
		    waitpid(children[i], &st, WNOHANG) == children[i]) {
			children[i] = 0;
			if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
				continue;
			describe_status(st, how, sizeof(how));
			test_fail("%s; meanwhile child %d %s: %s", what, i, how,
				  rep->msg[i][0] ? rep->msg[i]
						 : "(no message)");
		}
	}
	test_fail("%s", what);
}

static void
dump_ring(const struct wm_ring *ring, uint64_t pos)
{
	fprintf(stderr, "ring at the failure:\n");
	wm_ring_dump(ring, pos, stderr);
}

/* Poll (a test condition, not the protocol) until `cond` or 5 s. */
#define POLL_UNTIL(cond, what)                                                 \
	do {                                                                   \
		int64_t poll_end_ = now_ns() + WAIT_LIMIT_NS;                  \
		while (!(cond)) {                                              \
			if (now_ns() > poll_end_)                              \
				test_fail_wait(                                \
					"timed out waiting until " what);      \
			sleep_ns(20000);                                       \
		}                                                              \
	} while (0)

/* --------------------------------------------------------------------- */
/* Segment and ring helpers */

static void
make_segment(struct wm_shm *seg, uint32_t n_subtasks,
	     const struct wm_shm_channel_spec *channels, uint32_t n_channels)
{
	struct wm_shm_spec spec = {n_subtasks, n_channels, channels, 64, 0};
	char err[256];

	if (wm_shm_create(&spec, seg, err, sizeof(err)) != 0)
		test_fail("could not create segment: %s", err);
}

/* In a child: map the inherited descriptor again, check it, and drop the
 * mapping inherited through fork, so only offsets carry over. */
static void
child_attach(int slot, struct wm_shm *inherited, struct wm_shm *mine)
{
	char err[256];
	int r = wm_shm_attach(inherited->fd, mine, err, sizeof(err));

	if (r != 0)
		child_fail(slot, "could not attach segment: %s", err);
	wm_shm_detach(inherited);
}

static void
destroy_segment(struct wm_shm *seg)
{
	wm_shm_detach(seg);
	close(seg->fd);
}

static bool
space_ready(void *arg)
{
	return wm_ring_free(arg, 1) > 0;
}

static bool
data_ready(void *arg)
{
	return wm_ring_ready(arg);
}

/* Producer: flush, then sleep until there is space. 0, or -ETIMEDOUT if
 * the wait failed or lasted the whole limit (a lost wake-up). */
static int
wait_space(struct wm_ring_producer *p, struct wm_waiter *w)
{
	int64_t t0;
	int r;

	wm_ring_flush(p);
	t0 = now_ns();
	r = wm_wait(w, space_ready, p, WAIT_LIMIT_NS);
	if (r != 0 || now_ns() - t0 >= WAIT_LIMIT_NS)
		return r != 0 ? r : -ETIMEDOUT;
	return 0;
}

/* Consumer: publish the position, then sleep until a frame is there. */
static int
wait_data(struct wm_ring_consumer *c, struct wm_waiter *w)
{
	int64_t t0;
	int r;

	wm_ring_release(c);
	t0 = now_ns();
	r = wm_wait(w, data_ready, c, WAIT_LIMIT_NS);
	if (r != 0 || now_ns() - t0 >= WAIT_LIMIT_NS)
		return r != 0 ? r : -ETIMEDOUT;
	return 0;
}

/* In a producer child: push records first .. first + n - 1 (n <= 64) as
 * one batch, waiting for space as often as the ring is full. */
static void
push_records_waiting(struct wm_ring_producer *p, struct wm_waiter *w, int slot,
		     uint64_t first, uint32_t n)
{
	uint32_t done = 0;

	while (done < n) {
		done += push_run(p, first + done, n - done);
		if (done < n && wait_space(p, w) != 0)
			child_fail(slot,
				   "lost wake-up: producer slept 5 s on a "
				   "full ring at position %" PRIu64,
				   p->pos);
	}
}

static void
set_no_spin(struct wm_waiter *w)
{
	w->spin_ns = 0;
	w->spin_max_ns = 0;
}

/* Process state letter from /proc/<pid>/stat ('S' = sleeping), or '?'. */
static char
proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p != NULL && p[1] == ' ' ? p[2] : '?';
}

/* --------------------------------------------------------------------- */
/* stream: 100 M records, random batches and pauses, across many wraps */

#define STREAM_CELLS 1024u

struct stream_arg {
	struct wm_shm *seg;
	uint64_t records;
	bool paired_stores; /* ring.h, wm_cell_publish() */
	bool records_only;  /* no control frames, no pauses (tight) */
};

/*
 * The stream tests run once for each way of publishing a cell: _i == 0
 * with four stores (the portable path), _i == 1 with two 16-byte stores
 * where this processor allows them. Returns the mode the producer uses,
 * after saying on stderr that a paired run falls back on this host.
 */
static bool
paired_stores_for(int mode, const char *test)
{
	if (mode == 1 && !wm_ring_paired_stores_supported()) {
		fprintf(stderr,
			"%s: this host cannot publish with paired stores; "
			"four stores again\n",
			test);
		return false;
	}
	return mode == 1;
}

/* In a stream test's producer child: map the segment, attach channel 0
 * (subtask 0 to 1), publishing cells as the test's run says, and wait on
 * subtask 0's doorbell. */
static void
attach_stream_producer(int slot, struct stream_arg *a, struct wm_shm *seg,
		       struct wm_ring_producer *p, struct wm_waiter *w)
{
	child_attach(slot, a->seg, seg);
	wm_ring_producer_attach(p, wm_shm_ring(seg, 0),
				wm_shm_doorbell(seg, 1));
	p->paired_stores = a->paired_stores;
	wm_waiter_init(w, wm_shm_doorbell(seg, 0), WM_WAIT_FUTEX);
}

/* Control frames carry (records before it, control frame number). */
static bool
push_control(struct wm_ring_producer *p, struct wm_waiter *w, int slot,
	     enum wm_frame_kind kind, uint32_t arg, uint64_t records,
	     uint64_t n)
{
	while (!wm_ring_try_push(p, kind, arg, records, n, 0))
		if (wait_space(p, w) != 0)
			child_fail(slot,
				   "lost wake-up: producer slept 5 s on a "
				   "full ring at position %" PRIu64,
				   p->pos);
	return true;
}

static void
stream_producer(int slot, void *varg)
{
	struct stream_arg *a = varg;
	struct wm_shm seg;
	struct wm_ring_producer p;
	struct wm_waiter w;
	uint64_t rs = seed ^ 0x5bd1e995u, next = 0, ctl = 0;

	attach_stream_producer(slot, a, &seg, &p, &w);
	while (next < a->records) {
		uint64_t r = rng_next(&rs);
		uint32_t n = (uint32_t)(r % 64) + 1;

		if (n > a->records - next)
			n = (uint32_t)(a->records - next);
		push_records_waiting(&p, &w, slot, next, n);
		next += n;
		if (a->records_only)
			continue;
		r >>= 6;
		switch (r % 128) {
		case 0:
			push_control(&p, &w, slot, WM_FRAME_WATERMARK, 0, next,
				     ctl++);
			break;
		case 1:
			push_control(&p, &w, slot, WM_FRAME_STATUS,
				     (uint32_t)(ctl % 2), next, ctl);
			ctl++;
			break;
		case 2:
			push_control(&p, &w, slot, WM_FRAME_BARRIER, 7, next,
				     ctl++);
			break;
		}
		r >>= 7;
		if (r % 4096 == 0)
			busy_ns(1000 + (int64_t)(r >> 12) % 8000);
		else if (r % 32768 == 1)
			sleep_ns(10000 + (int64_t)(r >> 15) % 90000);
	}
	push_control(&p, &w, slot, WM_FRAME_END, WM_END_DRAIN, next, ctl);
	wm_ring_flush(&p);
	wm_shm_detach(&seg);
}

/* Start a stream test set up in *a: the segment with channel `ch` (from
 * subtask 0 to 1), the producer child, and here the consumer's side of
 * the channel and its waiter. Returns the ring. */
static struct wm_ring *
start_stream(struct stream_arg *a, struct wm_shm *seg,
	     const struct wm_shm_channel_spec *ch, struct wm_ring_consumer *c,
	     struct wm_waiter *w)
{
	struct wm_ring *ring;

	make_segment(seg, 2, ch, 1);
	a->seg = seg;
	ring = wm_shm_ring(seg, 0);
	wm_ring_consumer_attach(c, ring, wm_shm_doorbell(seg, 0));
	wm_waiter_init(w, wm_shm_doorbell(seg, 1), WM_WAIT_FUTEX);
	spawn(0, stream_producer, a);
	return ring;
}

START_TEST(test_stream_survives_random_batches_and_pauses)
{
	static const struct wm_shm_channel_spec ch[] = {{0, 1, STREAM_CELLS}};
	struct stream_arg a;
	struct wm_shm seg;
	struct wm_ring *ring;
	struct wm_ring_consumer c;
	struct wm_waiter w;
	struct wm_frame f;
	uint64_t expect = 0, ctl = 0, rs = seed ^ 0x27d4eb2fu, waits = 0;
	int64_t t0 = now_ns();

	a.records = env_u64("WM_STRESS_RECORDS", STRESS_DEFAULT);
	a.paired_stores = paired_stores_for(_i, "stream");
	a.records_only = false;
	ring = start_stream(&a, &seg, ch, &c, &w);
	for (;;) {
		int r = wm_ring_pop(&c, &f);

		if (r == 0) {
			waits++;
			if (wait_data(&c, &w) != 0) {
				dump_ring(ring, c.pos);
				test_fail_wait(
					"lost wake-up: consumer slept 5 s "
					"with data in the ring");
			}
			continue;
		}
		if (r < 0) {
			dump_ring(ring, c.pos);
			test_fail("corrupt cell at position %" PRIu64
				  " after %" PRIu64 " records",
				  c.pos, expect);
		}
		if (f.kind == WM_FRAME_RECORD) {
			if (!is_record(&f, expect)) {
				dump_ring(ring, c.pos - 1);
				test_fail("record %" PRIu64
					  " at position %" PRIu64
					  " is record %" PRIu64 " (%s)",
					  expect, c.pos - 1, f.payload[0],
					  f.payload[0] > expect ? "loss"
					  : f.payload[0] < expect
						  ? "duplicate or "
						    "reordered"
						  : "damaged");
			}
			expect++;
		} else {
			if (f.payload[0] != expect || f.payload[1] != ctl) {
				dump_ring(ring, c.pos - 1);
				test_fail("%s frame %" PRIu64
					  " at position %" PRIu64
					  " follows record %" PRIu64
					  ", expected frame %" PRIu64
					  " after record %" PRIu64,
					  wm_frame_kind_name(f.kind),
					  f.payload[1], c.pos - 1, f.payload[0],
					  ctl, expect);
			}
			if (f.kind == WM_FRAME_END)
				break;
			ctl++;
		}
		uint64_t x = rng_next(&rs);

		if (x % 65536 == 0)
			busy_ns(1000 + (int64_t)(x >> 16) % 8000);
		else if (x % 1048576 == 1)
			sleep_ns(10000 + (int64_t)(x >> 20) % 90000);
	}
	ck_assert_uint_eq(expect, a.records);
	reap(0);
	/* Nothing after END. */
	ck_assert_int_eq(wm_ring_pop(&c, &f), 0);
	ck_assert_uint_eq(atomic_load(&ring->written), c.pos);
	fprintf(stderr,
		"stream (%s stores a cell): %" PRIu64 " records, %" PRIu64
		" control frames, %.1f wraps in %.2f s; consumer waited "
		"%" PRIu64 " times, parked %" PRIu64
		", producer parked %" PRIu64 "\n",
		a.paired_stores ? "two" : "four", expect, ctl,
		(double)c.pos / STREAM_CELLS, (double)(now_ns() - t0) / 1e9,
		waits, atomic_load(&wm_shm_doorbell(&seg, 1)->parks),
		atomic_load(&wm_shm_doorbell(&seg, 0)->parks));
	destroy_segment(&seg);
}
END_TEST

/* --------------------------------------------------------------------- */
/* tight: a 64-cell ring that both sides chase at full speed */

#define TIGHT_CELLS 64u
#define TIGHT_BURST 32u

/*
 * The stream test's ring is large and its sides pause, so the consumer
 * seldom reads a cell while the producer is writing it. Here the ring holds
 * 64 cells, nobody pauses, and the consumer reads runs in place the moment
 * their tails appear, checking every word: a publication that let a tail be seen
 * before its payload shows as a damaged record. Both such mistakes tried
 * (the two 16-byte stores of wm_cell_publish() swapped; the tail stored
 * before the last payload word) failed it in every run tried, within its
 * first 9 M records.
 */
START_TEST(test_tight_ring_never_shows_a_half_written_cell)
{
	static const struct wm_shm_channel_spec ch[] = {{0, 1, TIGHT_CELLS}};
	struct stream_arg a;
	struct wm_shm seg;
	struct wm_ring *ring;
	struct wm_ring_consumer c;
	struct wm_waiter w;
	uint64_t expect = 0;
	int64_t t0 = now_ns();
	bool ended = false;

	a.records = env_u64("WM_STRESS_RECORDS", STRESS_DEFAULT) / 5;
	a.paired_stores = paired_stores_for(_i, "tight");
	a.records_only = true;
	ring = start_stream(&a, &seg, ch, &c, &w);
	while (!ended) {
		/* Runs read in place, as a worker's gate reads them. */
		const struct wm_cell *run;
		uint32_t n = wm_ring_peek_records(&c, &run, TIGHT_BURST);
		struct wm_frame f;
		int r;

		for (uint32_t i = 0; i < n; i++, expect++) {
			if (is_record_cell(&run[i], expect))
				continue;
			dump_ring(ring, c.pos + i);
			test_fail("position %" PRIu64
				  " should hold record %" PRIu64
				  ": words %" PRIx64 " %" PRIx64 " %" PRIx64
				  ", argument %" PRIu32,
				  c.pos + i, expect, run[i].payload[0],
				  run[i].payload[1], run[i].payload[2],
				  wm_cell_arg(&run[i]));
		}
		if (n > 0) {
			wm_ring_consume_run(&c, n);
			continue;
		}
		/* Not a record: END, nothing yet, or corrupt. */
		r = wm_ring_pop(&c, &f);
		if (r == 0) {
			if (wait_data(&c, &w) != 0)
				test_fail_wait("lost wake-up: consumer slept "
					       "5 s with data in the ring");
			continue;
		}
		if (r < 0) {
			dump_ring(ring, c.pos);
			test_fail("corrupt cell at position %" PRIu64, c.pos);
		}
		if (f.kind == WM_FRAME_RECORD) {
			/* It arrived between the two looks. */
			if (!is_record(&f, expect))
				test_fail("position %" PRIu64
					  " should hold record %" PRIu64,
					  c.pos - 1, expect);
			expect++;
			continue;
		}
		if (f.kind != WM_FRAME_END || f.payload[0] != a.records)
			test_fail("%s frame at position %" PRIu64
				  " after %" PRIu64 " records",
				  wm_frame_kind_name(f.kind), c.pos - 1,
				  expect);
		ended = true;
	}
	ck_assert_uint_eq(expect, a.records);
	reap(0);
	fprintf(stderr,
		"tight (%s stores a cell): %" PRIu64 " records through %u "
		"cells in %.2f s\n",
		a.paired_stores ? "two" : "four", expect, TIGHT_CELLS,
		(double)(now_ns() - t0) / 1e9);
	destroy_segment(&seg);
}
END_TEST

/* --------------------------------------------------------------------- */
/* gate: 3 producers into 1 consumer */

#define GATE_INPUTS 3
#define GATE_CELLS 1024u
#define GATE_BURST 16u
#define GATE_RECORDS 1000000u

static void
gate_producer(int slot, void *varg)
{
	struct wm_shm *inherited = varg, seg;
	struct wm_ring_producer p;
	struct wm_waiter w;
	uint64_t rs = seed ^ (0x9e37u * (uint64_t)(slot + 1)), next = 0;

	child_attach(slot, inherited, &seg);
	wm_ring_producer_attach(&p, wm_shm_ring(&seg, (uint32_t)slot),
				wm_shm_doorbell(&seg, GATE_INPUTS));
	wm_waiter_init(&w, wm_shm_doorbell(&seg, (uint32_t)slot),
		       WM_WAIT_FUTEX);
	while (next < GATE_RECORDS) {
		uint64_t r = rng_next(&rs);
		uint32_t n = (uint32_t)(r % 64) + 1;

		if (n > GATE_RECORDS - next)
			n = (uint32_t)(GATE_RECORDS - next);
		push_records_waiting(&p, &w, slot, next, n);
		next += n;
		/* Channels run at different speeds. */
		if ((r >> 6) % (64u << (2 * slot)) == 0)
			sleep_ns(5000 + (int64_t)(r >> 20) % 50000);
	}
	while (!wm_ring_try_push(&p, WM_FRAME_END, WM_END_DRAIN, next, 0, 0))
		if (wait_space(&p, &w) != 0)
			child_fail(slot, "lost wake-up before END");
	wm_ring_flush(&p);
}

START_TEST(test_gate_reads_three_producers_fairly_and_completely)
{
	struct wm_shm_channel_spec ch[GATE_INPUTS];
	struct wm_shm seg;
	struct wm_gate g;
	struct wm_ring_consumer inputs[GATE_INPUTS];
	uint64_t next[GATE_INPUTS] = {0}, frames = 0;
	bool ended[GATE_INPUTS] = {false};
	uint32_t open_inputs = GATE_INPUTS;

	for (uint32_t i = 0; i < GATE_INPUTS; i++)
		ch[i] = (struct wm_shm_channel_spec){i, GATE_INPUTS,
						     GATE_CELLS};
	make_segment(&seg, GATE_INPUTS + 1, ch, GATE_INPUTS);
	ck_assert_int_eq(wm_gate_init(&g, inputs, GATE_INPUTS,
				      wm_shm_doorbell(&seg, GATE_INPUTS),
				      WM_WAIT_FUTEX),
			 0);
	g.burst = GATE_BURST;
	for (uint32_t i = 0; i < GATE_INPUTS; i++)
		wm_gate_attach(&g, i, wm_shm_ring(&seg, i),
			       wm_shm_doorbell(&seg, i));
	for (int i = 0; i < GATE_INPUTS; i++)
		spawn(i, gate_producer, &seg);
	/* Let every producer fill its ring and go to sleep on it. */
	for (uint32_t i = 0; i < GATE_INPUTS; i++)
		POLL_UNTIL(atomic_load(&wm_shm_ring(&seg, i)->written) ==
				   GATE_CELLS,
			   "every producer filled its ring");
	while (open_inputs > 0) {
		struct wm_gate_take t;
		uint32_t in;
		int r = wm_gate_next(&g, &t, UINT32_MAX);

		if (r == 0) {
			int64_t t0 = now_ns();

			r = wm_gate_wait(&g, WAIT_LIMIT_NS);
			if (r != 0 || now_ns() - t0 >= WAIT_LIMIT_NS)
				test_fail_wait(
					"lost wake-up: consumer slept 5 s "
					"with data in a ring of the gate");
			continue;
		}
		in = t.channel;
		if (r < 0) {
			dump_ring(wm_shm_ring(&seg, in), inputs[in].pos);
			test_fail("corrupt cell on input %" PRIu32, in);
		}
		/* While all three rings are still full from the start, the
		 * gate must take exactly `burst` frames from each in turn,
		 * the records of a run counting one by one. */
		for (uint32_t k = 0; k < (t.records > 0 ? t.records : 1); k++) {
			if (frames < GATE_INPUTS * GATE_CELLS &&
			    in != (frames / GATE_BURST) % GATE_INPUTS)
				test_fail("frame %" PRIu64
					  " came from input %" PRIu32
					  ", expected %" PRIu64
					  " (round robin by %u)",
					  frames, in,
					  (frames / GATE_BURST) % GATE_INPUTS,
					  GATE_BURST);
			frames++;
		}
		if (t.records == 0 && t.frame.kind == WM_FRAME_END) {
			if (t.frame.payload[0] != GATE_RECORDS)
				test_fail("input %" PRIu32
					  " ended after %" PRIu64 " records",
					  in, t.frame.payload[0]);
			if (ended[in])
				test_fail("input %" PRIu32 " ended twice", in);
			ended[in] = true;
			open_inputs--;
			continue;
		}
		for (uint32_t k = 0; k < (t.records > 0 ? t.records : 1); k++) {
			bool ok = t.records > 0 ? is_record_cell(&t.cells[k],
								 next[in])
						: is_record(&t.frame, next[in]);

			if (!ok) {
				dump_ring(wm_shm_ring(&seg, in),
					  t.records > 0 ? inputs[in].pos + k
							: inputs[in].pos - 1);
				test_fail("input %" PRIu32
					  ": expected record %" PRIu64,
					  in, next[in]);
			}
			next[in]++;
		}
		wm_gate_consume(&g, &t);
	}
	for (int i = 0; i < GATE_INPUTS; i++) {
		ck_assert(ended[i]);
		ck_assert_uint_eq(next[i], GATE_RECORDS);
		reap(i);
	}
	destroy_segment(&seg);
}
END_TEST

/* --------------------------------------------------------------------- */
/* edges: blocking on full and on empty, across processes */

#define EDGE_CELLS 64u
#define EDGE_ROUNDS 12

/* Phases, stepped through rep->phase:
 *   2k+1  child filled the ring and sleeps for space (parent frees 32)
 *   2k+2  child pushed into the freed space; parent drains, then sleeps
 *         on the empty ring until the child flushes one record */
static void
edge_producer(int slot, void *varg)
{
	struct wm_shm *inherited = varg, seg;
	struct wm_ring_producer p;
	struct wm_waiter w;
	uint64_t next = 0;
	struct wm_doorbell *cbell;
	pid_t parent = getppid();

	child_attach(slot, inherited, &seg);
	cbell = wm_shm_doorbell(&seg, 1);
	wm_ring_producer_attach(&p, wm_shm_ring(&seg, 0), cbell);
	wm_waiter_init(&w, wm_shm_doorbell(&seg, 0), WM_WAIT_FUTEX);
	set_no_spin(&w);
	for (uint32_t k = 0; k < EDGE_ROUNDS; k++) {
		uint64_t filled = 0, parks;
		int64_t t0;

		/* Full edge: fill, then block. */
		for (;;) {
			if (push_run(&p, next, 1) == 0)
				break;
			next++;
			filled++;
		}
		if (filled != EDGE_CELLS ||
		    wm_ring_try_push(&p, WM_FRAME_WATERMARK, 0, 0, 0, 0))
			child_fail(slot,
				   "round %u: pushed %" PRIu64
				   " into an empty ring of %u cells",
				   k, filled, EDGE_CELLS);
		parks = atomic_load(&w.db->parks);
		atomic_store(&rep->phase, 2 * k + 1);
		t0 = now_ns();
		if (wait_space(&p, &w) != 0)
			child_fail(slot,
				   "lost wake-up: producer slept 5 s on a full "
				   "ring after the consumer freed space");
		if (atomic_load(&w.db->parks) == parks)
			child_fail(slot,
				   "round %u: producer never slept on the full "
				   "ring",
				   k);
		/* The consumer freed exactly one publication's worth. */
		filled = 0;
		for (;;) {
			if (push_run(&p, next, 1) == 0)
				break;
			next++;
			filled++;
		}
		if (filled != WM_RING_PUBLISH_EVERY)
			child_fail(slot,
				   "round %u: woken after %.1f ms with %" PRIu64
				   " free cells, expected %u",
				   k, (double)(now_ns() - t0) / 1e6, filled,
				   WM_RING_PUBLISH_EVERY);
		wm_ring_flush(&p);
		atomic_store(&rep->phase, 2 * k + 2);
		/* Empty edge: the parent drains and sleeps; then one record
		 * with a flush must wake it. */
		while (atomic_load(&rep->ready[0]) != k + 1 ||
		       atomic_load(&cbell->sleeping) != 1 ||
		       proc_state(parent) != 'S')
			sleep_ns(20000);
		if (push_run(&p, next++, 1) != 1)
			child_fail(slot,
				   "round %u: could not push into an "
				   "empty ring",
				   k);
		wm_ring_flush(&p);
		/* Wait until the parent has taken it before the next fill. */
		while (atomic_load(&rep->ready[1]) != k + 1)
			sleep_ns(20000);
	}
}

START_TEST(test_blocked_sides_are_woken_on_full_and_empty)
{
	static const struct wm_shm_channel_spec ch[] = {{0, 1, EDGE_CELLS}};
	struct wm_shm seg;
	struct wm_ring *ring;
	struct wm_ring_consumer c;
	struct wm_waiter w;
	struct wm_doorbell *pbell;
	struct wm_frame f;
	uint64_t expect = 0;
	pid_t pid;

	make_segment(&seg, 2, ch, 1);
	ring = wm_shm_ring(&seg, 0);
	pbell = wm_shm_doorbell(&seg, 0);
	wm_ring_consumer_attach(&c, ring, pbell);
	wm_waiter_init(&w, wm_shm_doorbell(&seg, 1), WM_WAIT_FUTEX);
	set_no_spin(&w);
	pid = spawn(0, edge_producer, &seg);
	for (uint32_t k = 0; k < EDGE_ROUNDS; k++) {
		uint64_t parks;
		int64_t t0;

		/* The producer sleeps in the kernel on a full ring. */
		POLL_UNTIL(atomic_load(&rep->phase) == 2 * k + 1 &&
				   atomic_load(&pbell->parks) > 0 &&
				   atomic_load(&pbell->sleeping) == 1 &&
				   proc_state(pid) == 'S',
			   "the producer sleeps on the full ring");
		/* Free one publication's worth: that must wake it. */
		for (uint32_t i = 0; i < WM_RING_PUBLISH_EVERY; i++) {
			if (wm_ring_pop(&c, &f) != 1 || !is_record(&f, expect))
				test_fail("round %u: expected record %" PRIu64,
					  k, expect);
			expect++;
		}
		POLL_UNTIL(atomic_load(&rep->phase) == 2 * k + 2,
			   "the producer was woken and refilled the ring");
		/* Drain, then sleep on the empty ring. */
		for (uint32_t i = 0; i < EDGE_CELLS; i++) {
			if (wm_ring_pop(&c, &f) != 1 || !is_record(&f, expect))
				test_fail("round %u: expected record %" PRIu64,
					  k, expect);
			expect++;
		}
		if (wm_ring_pop(&c, &f) != 0)
			test_fail("round %u: ring not empty after draining", k);
		parks = atomic_load(&w.db->parks);
		atomic_store(&rep->ready[0], k + 1);
		t0 = now_ns();
		if (wait_data(&c, &w) != 0)
			test_fail_wait(
				"lost wake-up: consumer slept 5 s with data "
				"in the ring");
		if (atomic_load(&w.db->parks) == parks)
			test_fail("round %u: consumer never slept on the empty "
				  "ring",
				  k);
		if (wm_ring_pop(&c, &f) != 1 || !is_record(&f, expect))
			test_fail(
				"round %u: woken after %.1f ms without record "
				"%" PRIu64,
				k, (double)(now_ns() - t0) / 1e6, expect);
		expect++;
		/* Hand the producer the whole ring for the next fill. */
		wm_ring_release(&c);
		atomic_store(&rep->ready[1], k + 1);
	}
	reap(0);
	ck_assert_uint_eq(
		expect, EDGE_ROUNDS * (WM_RING_PUBLISH_EVERY + EDGE_CELLS + 1));
	ck_assert_uint_ge(atomic_load(&pbell->wakeups), 1);
	destroy_segment(&seg);
}
END_TEST

/* --------------------------------------------------------------------- */
/* doorbell: ping-pong where every wait parks */

#define PINGPONG_ROUNDS 2000u
#define TIGHT_ROUNDS 50000u

/* Set before the fork, so the child sees them too. */
static uint32_t pp_rounds;
static bool pp_delay;

/* Sleep 0-200 us, one time in eight not at all, to race the parking. */
static void
answer_delay(uint64_t *rs)
{
	uint64_t r = rng_next(rs);

	if (pp_delay && r % 8 != 0)
		sleep_ns((int64_t)((r >> 3) % 200001));
}

static void
pong(int slot, void *varg)
{
	struct wm_shm *inherited = varg, seg;
	struct wm_ring_consumer in;
	struct wm_ring_producer out;
	struct wm_waiter w;
	struct wm_frame f;
	uint64_t rs = seed ^ 0x85ebca6bu;

	child_attach(slot, inherited, &seg);
	/* Channel 0: parent (subtask 0) -> child (1); channel 1 back. */
	wm_ring_consumer_attach(&in, wm_shm_ring(&seg, 0),
				wm_shm_doorbell(&seg, 0));
	wm_ring_producer_attach(&out, wm_shm_ring(&seg, 1),
				wm_shm_doorbell(&seg, 0));
	wm_waiter_init(&w, wm_shm_doorbell(&seg, 1), WM_WAIT_FUTEX);
	set_no_spin(&w);
	for (uint64_t i = 0; i < pp_rounds; i++) {
		int r;

		while ((r = wm_ring_pop(&in, &f)) == 0)
			if (wait_data(&in, &w) != 0)
				child_fail(slot,
					   "lost wake-up: child slept 5 s "
					   "with ping %" PRIu64 " in the ring",
					   i);
		if (r != 1 || !is_record(&f, i))
			child_fail(slot, "round %" PRIu64 ": bad ping", i);
		answer_delay(&rs);
		if (push_run(&out, i, 1) != 1)
			child_fail(slot, "round %" PRIu64 ": pong ring full",
				   i);
		wm_ring_flush(&out);
	}
}

/* The parent pings, the child pongs, both wait without spinning. */
static void
ping_pong(void)
{
	static const struct wm_shm_channel_spec ch[] = {{0, 1, 64}, {1, 0, 64}};
	struct wm_shm seg;
	struct wm_ring_producer out;
	struct wm_ring_consumer in;
	struct wm_waiter w;
	struct wm_frame f;
	struct wm_doorbell *mine, *theirs;
	uint64_t rs = seed ^ 0xc2b2ae35u;
	int64_t t0 = now_ns();

	make_segment(&seg, 2, ch, 2);
	mine = wm_shm_doorbell(&seg, 0);
	theirs = wm_shm_doorbell(&seg, 1);
	wm_ring_producer_attach(&out, wm_shm_ring(&seg, 0), theirs);
	wm_ring_consumer_attach(&in, wm_shm_ring(&seg, 1), theirs);
	wm_waiter_init(&w, mine, WM_WAIT_FUTEX);
	set_no_spin(&w);
	spawn(0, pong, &seg);
	for (uint64_t i = 0; i < pp_rounds; i++) {
		int r;

		if (push_run(&out, i, 1) != 1)
			test_fail("round %" PRIu64 ": ping ring full", i);
		wm_ring_flush(&out);
		while ((r = wm_ring_pop(&in, &f)) == 0)
			if (wait_data(&in, &w) != 0) {
				dump_ring(wm_shm_ring(&seg, 1), in.pos);
				test_fail_wait("lost wake-up: parent slept 5 s "
					       "with pong in the ring");
			}
		if (r != 1 || !is_record(&f, i))
			test_fail("round %" PRIu64 ": bad pong", i);
		answer_delay(&rs);
	}
	reap(0);
	fprintf(stderr,
		"ping-pong%s: %u rounds in %.2f s; parent parked %" PRIu64
		" (woken %" PRIu64 "), child parked %" PRIu64 " (woken %" PRIu64
		")\n",
		pp_delay ? "" : " (no delay)", pp_rounds,
		(double)(now_ns() - t0) / 1e9, atomic_load(&mine->parks),
		atomic_load(&mine->wakeups), atomic_load(&theirs->parks),
		atomic_load(&theirs->wakeups));
	if (pp_delay) {
		/* The waits really parked in the kernel, on both sides. */
		ck_assert_uint_ge(atomic_load(&mine->parks), pp_rounds / 2);
		ck_assert_uint_ge(atomic_load(&theirs->parks), pp_rounds / 2);
		ck_assert_uint_ge(atomic_load(&mine->wakeups), pp_rounds / 4);
		ck_assert_uint_ge(atomic_load(&theirs->wakeups), pp_rounds / 4);
	}
	destroy_segment(&seg);
}

START_TEST(test_doorbell_ping_pong_never_loses_a_wakeup)
{
	pp_rounds = PINGPONG_ROUNDS;
	pp_delay = true;
	ping_pong();
}
END_TEST

/* The same without delays: each side publishes while the other is on its
 * way to sleep, which is where a missing W1/W2 fence would lose a wake. */
START_TEST(test_doorbell_tight_ping_pong_never_loses_a_wakeup)
{
	pp_rounds = TIGHT_ROUNDS;
	pp_delay = false;
	ping_pong();
}
END_TEST

/* --------------------------------------------------------------------- */
/* corrupt: a forged cell is caught at its position */

#define CORRUPT_CELLS 64u
#define CORRUPT_AT 209u /* > 3 laps; slot 17, offset 544 */

struct corrupt_arg {
	struct wm_shm *seg;
	uint64_t tail; /* what the producer forges at CORRUPT_AT */
};

static void
corrupt_producer(int slot, void *varg)
{
	struct corrupt_arg *a = varg;
	struct wm_shm seg;
	struct wm_ring_producer p;
	struct wm_waiter w;
	struct wm_ring *ring;
	struct wm_cell *cell;

	child_attach(slot, a->seg, &seg);
	ring = wm_shm_ring(&seg, 0);
	wm_ring_producer_attach(&p, ring, wm_shm_doorbell(&seg, 1));
	wm_waiter_init(&w, wm_shm_doorbell(&seg, 0), WM_WAIT_FUTEX);
	for (uint64_t i = 0; i < CORRUPT_AT; i++) {
		while (push_run(&p, i, 1) == 0)
			if (wait_space(&p, &w) != 0)
				child_fail(slot, "lost wake-up on a full ring");
	}
	while (wm_ring_free(&p, 1) == 0)
		if (wait_space(&p, &w) != 0)
			child_fail(slot, "lost wake-up on a full ring");
	/* Forge the next cell behind the ring's back, as a stray write
	 * would, then wake the consumer. */
	cell = &ring->cells[CORRUPT_AT & ring->mask];
	cell->payload[0] = 0xdeadbeef;
	atomic_store_explicit(&cell->tail, a->tail, memory_order_release);
	wm_ring_flush(&p);
	wm_doorbell_ring(wm_shm_doorbell(&seg, 1));
}

START_TEST(test_forged_cell_is_reported_at_its_position)
{
	static const struct wm_shm_channel_spec ch[] = {{0, 1, CORRUPT_CELLS}};
	const struct {
		uint64_t tail;
		const char *dump; /* expected in the dump's marked line */
	} forged[] = {
		/* A sequence neither this lap's nor the last one's. */
		{wm_frame_tail(WM_FRAME_RECORD, 0, CORRUPT_AT + 5),
		 "=> position 209 (offset 544): kind 1 (RECORD) arg 0 seq 214 "
		 "(expected 209)"},
		/* The right sequence with a kind that does not exist. */
		{wm_frame_tail(9, 0, CORRUPT_AT),
		 "=> position 209 (offset 544): kind 9 (unknown) arg 0 seq "
		 "209"},
		/* A STATUS frame with an impossible status. */
		{wm_frame_tail(WM_FRAME_STATUS, 7, CORRUPT_AT),
		 "=> position 209 (offset 544): kind 3 (STATUS) arg 7"},
	};

	for (size_t v = 0; v < sizeof(forged) / sizeof(forged[0]); v++) {
		struct corrupt_arg a;
		struct wm_shm seg;
		struct wm_ring *ring;
		struct wm_ring_consumer c;
		struct wm_waiter w;
		struct wm_frame f;
		uint64_t expect = 0;
		char *text = NULL;
		size_t len = 0;
		FILE *out;
		int r;

		make_segment(&seg, 2, ch, 1);
		ring = wm_shm_ring(&seg, 0);
		wm_ring_consumer_attach(&c, ring, wm_shm_doorbell(&seg, 0));
		wm_waiter_init(&w, wm_shm_doorbell(&seg, 1), WM_WAIT_FUTEX);
		a.seg = &seg;
		a.tail = forged[v].tail;
		n_children = 0;
		spawn(0, corrupt_producer, &a);
		for (;;) {
			r = wm_ring_pop(&c, &f);
			if (r == 0) {
				if (wait_data(&c, &w) != 0)
					test_fail_wait(
						"lost wake-up: consumer "
						"slept 5 s with data in the "
						"ring");
				continue;
			}
			if (r < 0)
				break;
			if (!is_record(&f, expect))
				test_fail(
					"variant %zu: expected record %" PRIu64,
					v, expect);
			expect++;
		}
		reap(0);
		ck_assert_int_eq(r, -EBADMSG);
		ck_assert_uint_eq(expect, CORRUPT_AT);
		/* The consumer stays on the bad cell: it is still reported,
		 * still wakes a waiter, and nothing past it is consumed. */
		ck_assert_uint_eq(c.pos, CORRUPT_AT);
		ck_assert_int_eq(wm_ring_pop(&c, &f), -EBADMSG);
		ck_assert(wm_ring_ready(&c));
		ck_assert_int_eq(wait_data(&c, &w), 0);
		out = open_memstream(&text, &len);
		ck_assert_ptr_nonnull(out);
		wm_ring_dump(ring, c.pos, out);
		fclose(out);
		if (strstr(text, forged[v].dump) == NULL)
			test_fail("variant %zu: dump lacks \"%s\":\n%s", v,
				  forged[v].dump, text);
		ck_assert_ptr_nonnull(strstr(text, "written 209, read"));
		free(text);
		destroy_segment(&seg);
	}
}
END_TEST

/* --------------------------------------------------------------------- */
/* segment: nothing survives SIGKILL; versions are checked on attach */

#define SEG_WORKERS 3

/* Slot 0 is the creating process; slots 1..SEG_WORKERS its workers:
 * 1 spins on an empty ring, 2 sleeps on its doorbell, 3 keeps only the
 * mapping (closes its descriptor) and sleeps. */
static void
seg_worker(int slot, void *varg)
{
	struct wm_shm *inherited = varg, seg;
	struct wm_ring_consumer c;
	struct wm_waiter w;

	child_attach(slot, inherited, &seg);
	wm_ring_consumer_attach(&c, wm_shm_ring(&seg, 0), NULL);
	wm_waiter_init(&w, wm_shm_doorbell(&seg, (uint32_t)slot),
		       slot == 1 ? WM_WAIT_SPIN : WM_WAIT_FUTEX);
	if (slot == 3)
		close(seg.fd);
	rep->pids[slot] = getpid();
	atomic_store(&rep->ready[slot], 1);
	for (;;)
		wm_wait(&w, data_ready, &c, -1);
}

static void
seg_creator(int slot, void *varg)
{
	static const struct wm_shm_channel_spec ch[] = {{0, 1, 1024}};
	struct wm_shm seg;
	struct wm_shm_spec spec = {SEG_WORKERS + 1, 1, ch, 64, 0};
	char err[256];

	(void)varg;
	if (wm_shm_create(&spec, &seg, err, sizeof(err)) != 0)
		child_fail(slot, "could not create segment: %s", err);
	n_children = 0;
	for (int i = 1; i <= SEG_WORKERS; i++)
		spawn(i, seg_worker, &seg);
	rep->fd = seg.fd;
	rep->pids[0] = getpid();
	atomic_store(&rep->ready[0], 1);
	for (;;)
		pause();
}

/* Processes holding inode (dev, ino) as a descriptor or a mapping;
 * entries that cannot be read (other users, processes gone) are skipped. */
static int
holders(dev_t dev, ino_t ino, char *who, size_t wholen)
{
	DIR *proc = opendir("/proc");
	struct dirent *de;
	int found = 0;

	who[0] = '\0';
	if (proc == NULL)
		test_fail("could not open /proc: %s", strerror(errno));
	while ((de = readdir(proc)) != NULL) {
		char path[512], line[1024];
		bool holds = false;
		DIR *fds;
		FILE *maps;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", de->d_name);
		fds = opendir(path);
		if (fds != NULL) {
			struct dirent *fe;

			while (!holds && (fe = readdir(fds)) != NULL) {
				char fdpath[800];
				struct stat st;

				snprintf(fdpath, sizeof(fdpath), "%s/%s", path,
					 fe->d_name);
				if (fe->d_name[0] != '.' &&
				    stat(fdpath, &st) == 0 &&
				    st.st_ino == ino && st.st_dev == dev)
					holds = true;
			}
			closedir(fds);
		}
		snprintf(path, sizeof(path), "/proc/%s/maps", de->d_name);
		maps = holds ? NULL : fopen(path, "r");
		if (maps != NULL) {
			while (!holds && fgets(line, sizeof(line), maps)) {
				unsigned maj, mn;
				unsigned long long inode;

				if (sscanf(line, "%*s %*s %*s %x:%x %llu", &maj,
					   &mn, &inode) == 3 &&
				    inode == (unsigned long long)ino &&
				    makedev(maj, mn) == dev)
					holds = true;
			}
			fclose(maps);
		}
		if (holds) {
			size_t l = strlen(who);

			found++;
			snprintf(who + l, wholen - l, " %s", de->d_name);
		}
	}
	closedir(proc);
	return found;
}

/* Names in /dev/shm that could be ours (contain "wm", any case): other
 * programs' files there must not fail this test. */
static int
shm_names(char names[][256], int max)
{
	DIR *d = opendir("/dev/shm");
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL && n < max)
		if (strcasestr(de->d_name, "wm") != NULL)
			snprintf(names[n++], 256, "%s", de->d_name);
	closedir(d);
	return n;
}

START_TEST(test_segment_is_gone_after_sigkill_of_every_process)
{
	char before[16][256], after[16][256], link[512], path[64], who[512];
	int n_before, n_after, n;
	struct stat st;
	ssize_t l;
	pid_t creator;

	n_before = shm_names(before, 16);
	/* Orphaned workers come back to this process to be reaped. */
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	creator = spawn(0, seg_creator, NULL);
	for (int i = 0; i <= SEG_WORKERS; i++)
		POLL_UNTIL(atomic_load(&rep->ready[i]) == 1,
			   "every process attached");
	/* The segment's identity, through the creator's descriptor. */
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)creator, rep->fd);
	l = readlink(path, link, sizeof(link) - 1);
	ck_assert_int_gt(l, 0);
	link[l] = '\0';
	ck_assert_msg(strncmp(link, "/memfd:wmrun", 12) == 0 &&
			      strstr(link, "(deleted)") != NULL,
		      "%s -> \"%s\", expected \"/memfd:wmrun (deleted)\"", path,
		      link);
	ck_assert_int_eq(stat(path, &st), 0);
	/* Positive control: the scan finds the creator and all workers
	 * (worker 3 by its mapping alone). */
	n = holders(st.st_dev, st.st_ino, who, sizeof(who));
	if (n < SEG_WORKERS + 1)
		test_fail("inode %lu held by%s, expected at least %d processes",
			  (unsigned long)st.st_ino, who, SEG_WORKERS + 1);
	for (int i = 1; i <= SEG_WORKERS; i++)
		ck_assert_int_eq(kill(rep->pids[i], SIGKILL), 0);
	ck_assert_int_eq(kill(creator, SIGKILL), 0);
	for (int i = 0; i <= SEG_WORKERS; i++) {
		pid_t pid = i == 0 ? creator : rep->pids[i];
		int ws;

		ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
		ck_assert_msg(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL,
			      "process %d ended with status %#x", (int)pid, ws);
	}
	children[0] = 0;
	n = holders(st.st_dev, st.st_ino, who, sizeof(who));
	if (n != 0)
		test_fail("segment (inode %lu) still held after SIGKILL by%s",
			  (unsigned long)st.st_ino, who);
	n_after = shm_names(after, 16);
	for (int i = 0; i < n_after; i++) {
		bool old = false;

		for (int j = 0; j < n_before; j++)
			old = old || strcmp(after[i], before[j]) == 0;
		if (!old)
			test_fail("/dev/shm/%s appeared during the test",
				  after[i]);
	}
}
END_TEST

static void
version_worker(int slot, void *varg)
{
	struct wm_shm *inherited = varg, seg;

	atomic_store(
		&rep->result[slot],
		wm_shm_attach(inherited->fd, &seg, rep->err, sizeof(rep->err)));
	if (seg.base != NULL)
		child_fail(slot, "a refused segment stayed mapped");
}

START_TEST(test_worker_refuses_other_layout_version)
{
	static const struct wm_shm_channel_spec ch[] = {{0, 1, 64}};
	struct wm_shm seg;
	char want[64];

	make_segment(&seg, 2, ch, 1);
	((struct wm_shm_header *)seg.base)->version = WM_LAYOUT_VERSION + 1;
	spawn(0, version_worker, &seg);
	reap(0);
	ck_assert_int_eq(atomic_load(&rep->result[0]), -EBADMSG);
	snprintf(want, sizeof(want), "layout version %u",
		 WM_LAYOUT_VERSION + 1);
	ck_assert_msg(strstr(rep->err, want) != NULL,
		      "message \"%s\" does not name \"%s\"", rep->err, want);
	destroy_segment(&seg);
}
END_TEST

/*
 * Page tables: every process that touches a page of the segment pays a
 * page-table page for the 2 MiB around it. A job of P x P subtasks has
 * P^2 rings; when every process touched every ring's header (creating
 * the segment, or checking it on attach), each of 2P processes paid for
 * the whole segment: 8.5 GB of page tables for 256 x 256. Here every ring
 * is just over 2 MiB, so each ring's header lies in a 2 MiB span of its
 * own and a process touching all of them would need one page-table page
 * per ring (PT_RINGS x 4 KiB), while one touching its own rings needs a
 * page per ring it uses and one for the tables.
 */
#define PT_SIDE 16 /* producers, and as many consumers */
#define PT_RINGS (PT_SIDE * PT_SIDE)
#define PT_CELLS 65536u /* 2 MiB of cells, and the ring's header */

/* This process's page tables (VmPTE), in KiB. */
static long
page_table_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmPTE: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/* Consumer subtask PT_SIDE + 0 attaches and reads the header of each of
 * its PT_SIDE input rings, as a worker does; reports what its page tables
 * grew by. */
static void
pt_consumer(int slot, void *varg)
{
	struct wm_shm *inherited = varg, seg;
	long before = page_table_kib();
	char err[256];

	if (before < 0)
		child_fail(slot, "could not read VmPTE from /proc/self/status");
	if (wm_shm_attach(inherited->fd, &seg, err, sizeof(err)) != 0)
		child_fail(slot, "could not attach segment: %s", err);
	for (uint32_t p = 0; p < PT_SIDE; p++) {
		uint32_t ch = p * PT_SIDE; /* producer p to consumer 0 */
		struct wm_ring_consumer c;

		if (wm_shm_ring_check(&seg, ch, err, sizeof(err)) != 0)
			child_fail(slot, "%s", err);
		wm_ring_consumer_attach(&c, wm_shm_ring(&seg, ch), NULL);
		if (c.mask != PT_CELLS - 1)
			child_fail(slot, "ring %u has mask %" PRIu64, ch,
				   c.mask);
	}
	atomic_store(&rep->result[slot], (int32_t)(page_table_kib() - before));
	wm_shm_detach(&seg);
}

START_TEST(test_processes_map_only_the_rings_they_use)
{
	static struct wm_shm_channel_spec ch[PT_RINGS];
	/* What touching one page of every ring costs, and the line: a
	 * quarter of it leaves room for the tables, the upper levels and a
	 * sanitizer's shadow pages, and is still far below. */
	const long every_ring_kib = PT_RINGS * 4, limit = every_ring_kib / 4;
	struct wm_shm seg;
	long before, created;

	for (uint32_t p = 0; p < PT_SIDE; p++)
		for (uint32_t c = 0; c < PT_SIDE; c++)
			ch[p * PT_SIDE + c] = (struct wm_shm_channel_spec){
				p, PT_SIDE + c, PT_CELLS};
	before = page_table_kib();
	ck_assert_int_ge(before, 0);
	make_segment(&seg, 2 * PT_SIDE, ch, PT_RINGS);
	created = page_table_kib() - before;
	ck_assert_msg(created < limit,
		      "creating %d rings grew the page tables by %ld KiB, "
		      "expected less than %ld (touching every ring: %ld)",
		      PT_RINGS, created, limit, every_ring_kib);
	spawn(0, pt_consumer, &seg);
	reap(0);
	ck_assert_msg(atomic_load(&rep->result[0]) < limit,
		      "attaching %d of %d rings grew the page tables by %d "
		      "KiB, expected less than %ld (touching every ring: %ld)",
		      PT_SIDE, PT_RINGS, (int)atomic_load(&rep->result[0]),
		      limit, every_ring_kib);
	destroy_segment(&seg);
}
END_TEST

/* Subtask `slot` reaches the start line late by slot x 20 ms. */
static void
start_worker(int slot, void *varg)
{
	struct wm_shm *inherited = varg, seg;
	int64_t start;

	child_attach(slot, inherited, &seg);
	usleep((useconds_t)slot * 20000);
	atomic_store(&rep->arrived[slot], now_ns());
	if (wm_shm_start_line(&seg, (uint32_t)slot, WM_WAIT_FUTEX, &start) != 0)
		child_fail(slot, "the start line failed");
	/* Nobody leaves before the last one arrived and set the start. */
	if (now_ns() < start)
		child_fail(slot, "left the start line before the start");
	atomic_store(&rep->start[slot], start);
}

START_TEST(test_every_subtask_starts_at_the_same_time)
{
	struct wm_shm seg;
	int64_t last = 0;

	make_segment(&seg, 4, NULL, 0);
	for (int i = 0; i < 4; i++)
		spawn(i, start_worker, &seg);
	for (int i = 0; i < 4; i++)
		reap(i);
	for (int i = 0; i < 4; i++)
		if (atomic_load(&rep->arrived[i]) > last)
			last = atomic_load(&rep->arrived[i]);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(atomic_load(&rep->start[i]),
				 atomic_load(&rep->start[0]));
		ck_assert_int_ge(atomic_load(&rep->start[i]), last);
	}
	ck_assert_int_eq(wm_shm_started(&seg), atomic_load(&rep->start[0]));
	destroy_segment(&seg);
}
END_TEST

/* --------------------------------------------------------------------- */

static Suite *
ring_process_suite(void)
{
	Suite *s = suite_create("ring_process");
	TCase *stream = tcase_create("stream");
	TCase *wake = tcase_create("wake");
	TCase *frame = tcase_create("corrupt");
	TCase *seg = tcase_create("segment");
	TCase *all[] = {stream, wake, frame, seg};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		tcase_add_checked_fixture(all[i], setup, teardown);
		/* Generous: a loaded 2-core machine, sanitizer builds. */
		tcase_set_timeout(all[i], 240);
	}
	tcase_add_loop_test(
		stream, test_stream_survives_random_batches_and_pauses, 0, 2);
	tcase_add_loop_test(
		stream, test_tight_ring_never_shows_a_half_written_cell, 0, 2);
	tcase_add_test(stream,
		       test_gate_reads_three_producers_fairly_and_completely);
	tcase_add_test(wake, test_blocked_sides_are_woken_on_full_and_empty);
	tcase_add_test(wake, test_doorbell_ping_pong_never_loses_a_wakeup);
	tcase_add_test(wake,
		       test_doorbell_tight_ping_pong_never_loses_a_wakeup);
	tcase_add_test(frame, test_forged_cell_is_reported_at_its_position);
	tcase_add_test(seg,
		       test_segment_is_gone_after_sigkill_of_every_process);
	tcase_add_test(seg, test_worker_refuses_other_layout_version);
	tcase_add_test(seg, test_every_subtask_starts_at_the_same_time);
	tcase_add_test(seg, test_processes_map_only_the_rings_they_use);
	suite_add_tcase(s, stream);
	suite_add_tcase(s, wake);
	suite_add_tcase(s, frame);
	suite_add_tcase(s, seg);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(ring_process_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
