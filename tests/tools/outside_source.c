/*
 * outside_source.c
 *	A real job (supervisor, workers, rings) whose source subtasks read a
 *	record source fed from outside (tests/unit/fake_source.h): records
 *	handed over by a thread of the worker's process, as librdkafka's
 *	threads hand a Kafka consumer its messages.
 *
 *	outside_source MODE TOPOLOGY.conf
 *
 * MODE says what the thread does, in real time:
 *	wake	hands a record of partition 0 every 100 ms, 20 in all, the
 *		second partition (1) appearing at the 10th and getting one
 *		too from then on; then ends. It waits for each record to be
 *		read and prints "wake: max latency N us, worker cpu M ms of
 *		E ms": how long the worker took to read a record handed over
 *		(the wake), and the CPU time of the process less its own
 *		thread's over the run, which a worker that spins instead of
 *		sleeping burns whole.
 *	rideout	hands 5 records, says it rode out 2 outages of 12.3 s in
 *		all, hands 5 more, ends.
 *	fail	hands 5 records, says it is without brokers, then that it
 *		cannot go on (exit 69, and why).
 * The job's summary goes to stderr; the exit status is the job's.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "base/clock.h"
#include "runtime/source/sources.h"
#include "runtime/report/report.h"
#include "runtime/run/supervisor.h"
#include "tests/unit/fake_source.h"

static const char *mode;

struct feeder {
	struct fake_source *f;
	pthread_t thread;
};

static void
sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

static int64_t
thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t
process_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
hand(struct fake_source *f, uint32_t partition, int64_t ts)
{
	struct wm_record r = {.ts = ts,
			      .key = (int64_t)partition,
			      .value = 1,
			      .partition = partition};

	fake_source_hand(f, &r);
}

/* Hand records over, one each 100 ms, waiting for each to be read. */
static void
wake_mode(struct fake_source *f)
{
	int64_t start = wm_monotonic_ns(), cpu0 = process_cpu_ns();
	int64_t own0 = thread_cpu_ns(), max_ns = 0;
	uint64_t handed = 0;

	for (int i = 0; i < 20; i++) {
		sleep_ms(100);
		if (i == 10)
			fake_source_add_partition(f, 1);
		int64_t at = wm_monotonic_ns();

		hand(f, 0, 1000 * i);
		handed++;
		if (i >= 10) {
			hand(f, 1, 1000 * i);
			handed++;
		}
		/* A worker that never wakes leaves this for the job's run
		 * length to end: the latency then says so. */
		while (fake_source_read(f) < handed &&
		       wm_monotonic_ns() - at < 5000000000)
			sleep_ms(1);
		if (wm_monotonic_ns() - at > max_ns)
			max_ns = wm_monotonic_ns() - at;
	}
	int64_t elapsed = wm_monotonic_ns() - start;
	int64_t worker = process_cpu_ns() - cpu0 - (thread_cpu_ns() - own0);

	fprintf(stderr,
		"wake: max latency %lld us, worker cpu %lld ms of %lld ms\n",
		(long long)(max_ns / 1000), (long long)(worker / 1000000),
		(long long)(elapsed / 1000000));
	fake_source_end(f);
}

static void *
feed(void *arg)
{
	struct fake_source *f = arg;
	struct wm_source_health h = {0};

	if (strcmp(mode, "wake") == 0) {
		wake_mode(f);
		return NULL;
	}
	for (int i = 0; i < 5; i++)
		hand(f, 0, 1000 * i);
	sleep_ms(50);
	if (strcmp(mode, "rideout") == 0) {
		h.outages = 2;
		h.outage_ns = 12300000000;
		fake_source_set_health(f, &h);
		for (int i = 5; i < 10; i++)
			hand(f, 0, 1000 * i);
		fake_source_end(f);
		return NULL;
	}
	h.outages = 1;
	h.outage_ns = 30000000000;
	h.unreachable = true;
	fake_source_set_health(f, &h);
	sleep_ms(50);
	h.exit_code = 69;
	snprintf(h.why, sizeof(h.why),
		 "no broker of localhost:9 answered for 30 s "
		 "(kafka.broker_timeout)");
	fake_source_set_health(f, &h);
	return NULL;
}

static void
join(void *arg)
{
	struct feeder *fd = arg;

	pthread_join(fd->thread, NULL);
	free(fd);
}

/* In the worker's process, after the fork: the source and its thread. */
static struct wm_record_source *
open_outside(const struct wm_topology *topo, uint32_t stage, uint32_t index)
{
	static const uint32_t first[] = {0};
	struct feeder *fd = calloc(1, sizeof(*fd));

	(void)topo;
	(void)stage;
	(void)index;
	if (fd == NULL || (fd->f = fake_source_new(first, 1)) == NULL)
		return NULL;
	fake_source_on_free(fd->f, join, fd);
	/* The wake is set (run_source) before the first record is read;
	 * records handed over before it are read at the first run. */
	if (pthread_create(&fd->thread, NULL, feed, fd->f) != 0)
		return NULL;
	return fake_source_base(fd->f);
}

int
main(int argc, char **argv)
{
	struct wm_topology *topo;
	struct wm_ini_error ierr;
	struct wm_job_report rep;
	char err[1024];
	int status;

	if (argc != 3) {
		fprintf(stderr, "usage: outside_source wake|rideout|fail "
				"TOPOLOGY.conf\n");
		return 64;
	}
	mode = argv[1];
	if (wm_topology_load_file(argv[2], &topo, &ierr) != 0) {
		fprintf(stderr, "%s:%d: %s\n", argv[2], ierr.line, ierr.msg);
		return 78;
	}
	wm_sources_set_opener(open_outside);
	status = wm_supervisor_run(topo, NULL, &rep, err, sizeof(err));
	if (err[0] != '\0')
		fprintf(stderr, "wmrun: error: %s\n", err);
	wm_report_print(stderr, topo, &rep);
	wm_report_free(&rep);
	wm_topology_free(topo);
	return status;
}
