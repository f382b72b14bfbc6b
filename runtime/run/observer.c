/*
 * observer.c
 *	The observer process: sampling, RCU publication, the view's thread
 *	(observer.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>
#include <urcu/urcu-bp.h>

#include "base/clock.h"
#include "base/container_of.h"
#include "base/write_all.h"
#include "runtime/chart/axis.h"
#include "lib/units.h"
#include "base/exit.h"
#include "base/log.h"
#include "runtime/io/outfile.h"
#include "base/schedstat.h"
#include "runtime/observe/alerts.h"
#include "runtime/observe/prometheus.h"
#include "runtime/observe/snapshot.h"
#include "runtime/observe/timeline.h"
#include "runtime/observe/view.h"
#include "runtime/run/endpoint.h"
#include "runtime/run/observer.h"
#include "runtime/run/terminal.h"

/* How long the observer may take to show the last snapshot once the job
 * ended, before it is killed. */
#define WM_OBSERVER_GRACE_NS ((int64_t)5000000000)
/* How long it may take to say whether its endpoint listens, while the
 * supervisor waits with the stop signals blocked: a bind takes
 * microseconds, but a stopped observer never answers, and Ctrl-C must
 * not wait on it for ever. Generous, for a loaded machine. */
#define WM_OBSERVER_READY_NS ((int64_t)30000000000)

/*
 * The alerts, from the observer to the supervisor (and to the observer's
 * own view thread), in a MAP_SHARED mapping the supervisor made before
 * the fork.
 *
 * list[]	written only by the observer's sampler: entry i before n
 *		covers it, never again while the job runs; at the end,
 *		after the view thread was joined, the whole list once more
 *		with the episodes' ends
 * n		stored with release after the entries it covers (H1); the
 *		view thread loads it with acquire (H2) and reads below it
 * raised	every alert raised, kept or not
 * The supervisor reads it all after reaping the observer (waitpid()
 * orders it after the observer's last write) and trusts none of it.
 */
struct handoff {
	_Atomic uint32_t n;
	uint32_t reserved;
	_Atomic uint64_t raised;
	struct wm_alert list[WM_ALERTS_KEPT];
};

/*
 * --report's recorder, from the observer to the supervisor, in a
 * MAP_SHARED mapping the supervisor made before the fork, sized for the
 * plan (wm_recorder_pack_size()).
 *
 * data[]	written only by the observer, once, after its last sample
 * packed	stored 1 with release after data[] (R1); the supervisor
 *		reads it after reaping the observer (waitpid() orders it
 *		after the observer's last write) with acquire (R2), and
 *		unpacks data[] only if it is 1, checking what it unpacks
 */
struct recording {
	_Atomic uint32_t packed;
	uint32_t reserved;
	uint64_t data[]; /* aligned for the packed recorder's int64s */
};

/* Alerts shown under a screen: the latest few. */
#define SCREEN_ALERTS 5

/* A published snapshot and what call_rcu() needs to free it. */
struct published {
	struct rcu_head rcu;
	struct wm_snapshot *snap;
};

struct observer {
	const struct wm_observe_options *o;
	const struct wm_topology *topo;
	const struct wm_plan *plan;
	const struct wm_shm *seg;
	int end_fd; /* read end: EOF when the job ended */
	int64_t start_ns;
	struct published *current;  /* RCU-protected */
	struct wm_view *view;	    /* NULL without a view (--quiet) */
	struct wm_outfile *metrics; /* the timeline's file; NULL */
	int status;		    /* the timeline thread's: EX_IOERR */
	struct wm_alerts *alerts;   /* NULL: none configured */
	struct handoff *handoff;
	/* --report: every snapshot fed to `rec`, packed into `recording` at
	 * the end (NULL: none asked) */
	struct wm_recorder *rec;
	struct recording *recording;
	size_t recording_size;
	/* --prometheus: the labels, and the endpoint whose thread reads
	 * `current`. */
	struct wm_prometheus *prom;
	struct wm_endpoint *endpoint;
	/* Each worker's /proc/PID/schedstat, opened once its pid is in its
	 * block; -1: not (yet) open. By plan id. */
	int *schedstat;
	/* The readers' threads: told to stop (release, after the last
	 * publication) and woken early, or at each publication, through the
	 * condition; `published` counts publications (under `lock`). */
	atomic_bool stopping;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	uint64_t published;
};

static void
free_published(struct rcu_head *head)
{
	struct published *p = wm_container_of(head, struct published, rcu);

	wm_snapshot_free(p->snap);
	free(p);
}

/* Make `snap` the current snapshot. The sampler is the only writer, so the
 * one it replaces is its own to hand to call_rcu(): freed once every
 * reader that could have loaded it has left its read-side section. */
static int
publish(struct observer *ob, struct wm_snapshot *snap)
{
	struct published *p = malloc(sizeof(*p)), *old;

	if (p == NULL) {
		wm_snapshot_free(snap);
		return -ENOMEM;
	}
	p->snap = snap;
	old = rcu_xchg_pointer(&ob->current, p);
	if (old != NULL)
		urcu_bp_call_rcu(&old->rcu, free_published);
	pthread_mutex_lock(&ob->lock);
	ob->published++;
	pthread_cond_broadcast(&ob->wake);
	pthread_mutex_unlock(&ob->lock);
	return 0;
}

/* All of buf to fd, or false. */

/* The alerts `snap` raised: appended for the supervisor and the screen
 * (H1), and each printed as one line unless the view shows them under
 * its screen or --quiet asked for none. */
static void
judge(struct observer *ob, const struct wm_snapshot *snap)
{
	uint32_t raised = wm_alerts_feed(ob->alerts, snap), n;
	const struct wm_alert *list = wm_alerts_list(ob->alerts, &n);
	uint32_t had =
		atomic_load_explicit(&ob->handoff->n, memory_order_relaxed);

	for (uint32_t i = had; i < n; i++) {
		char at[32], real[32], what[512], line[700];
		int len;

		ob->handoff->list[i] = list[i];
		if (ob->o->live != WM_LIVE_LINES)
			continue;
		wm_units_format_duration(snap->real_ns - ob->start_ns, real,
					 sizeof(real));
		wm_units_format_duration(snap->processing_ns, at, sizeof(at));
		len = snprintf(line, sizeof(line),
			       "wmrun: %s (processing time %s): %s\n", real, at,
			       wm_alert_format(&list[i], ob->topo, what,
					       sizeof(what)));
		/* One write: a whole line among the view's. */
		if (len > 0)
			wm_write_all(ob->o->fd, line,
				     (size_t)len < sizeof(line)
					     ? (size_t)len
					     : sizeof(line) - 1);
	}
	/* H1: the entries before the count that covers them. */
	atomic_store_explicit(&ob->handoff->n, n, memory_order_release);
	if (raised > 0)
		atomic_store_explicit(&ob->handoff->raised,
				      wm_alerts_raised(ob->alerts),
				      memory_order_relaxed);
}

/* The whole list once more, with the episodes' ends, for the summary:
 * after the view thread stopped reading it. */
static void
hand_over_alerts(struct observer *ob)
{
	uint32_t n;
	const struct wm_alert *list;

	if (ob->alerts == NULL)
		return;
	list = wm_alerts_list(ob->alerts, &n);
	memcpy(ob->handoff->list, list, n * sizeof(*list));
	atomic_store_explicit(&ob->handoff->n, n, memory_order_release);
	atomic_store_explicit(&ob->handoff->raised,
			      wm_alerts_raised(ob->alerts),
			      memory_order_relaxed);
}

/* The latest alerts under the screen, which would draw over lines. */
static void
screen_alerts(struct observer *ob, struct wm_screen *scr)
{
	FILE *m = wm_screen_file(scr);
	/* H2: pairs with H1 in judge(). */
	uint32_t n = ob->handoff != NULL
			     ? atomic_load_explicit(&ob->handoff->n,
						    memory_order_acquire)
			     : 0;

	if (n == 0)
		return;
	wm_screen_mark(scr, WM_SCREEN_PLAIN, WM_SCREEN_OUTLINE);
	fprintf(m, "\n");
	wm_screen_mark(scr, WM_SCREEN_ALERT, WM_SCREEN_ANSWER);
	fprintf(m, "alerts (the latest %u)\n",
		n < SCREEN_ALERTS ? n : SCREEN_ALERTS);
	for (uint32_t i = n > SCREEN_ALERTS ? n - SCREEN_ALERTS : 0; i < n;
	     i++) {
		char at[32], what[512];
		const struct wm_alert *al = &ob->handoff->list[i];

		fprintf(m, "  %-11s %s\n",
			wm_units_format_duration(al->at_ns, at, sizeof(at)),
			wm_alert_format(al, ob->topo, what, sizeof(what)));
	}
}

/* Each worker's wait for a CPU as the kernel counts it now, into `snap`:
 * a worker that is not scheduled publishes nothing, so its own figure
 * stops exactly while it matters (base/schedstat.h). One pread a
 * worker a sample; a worker that has no pid yet or is gone keeps its own
 * figure. */
static void
read_cpu_waits(struct observer *ob, struct wm_snapshot *snap,
	       const struct wm_snapshot *prev)
{
	for (uint32_t id = 0; ob->schedstat != NULL && id < snap->n_subtasks;
	     id++) {
		int64_t waited;

		if (ob->schedstat[id] < 0 && snap->subtasks[id].pid > 0)
			ob->schedstat[id] =
				wm_schedstat_open(snap->subtasks[id].pid);
		if (wm_schedstat_read(ob->schedstat[id], &waited))
			wm_snapshot_set_cpu_wait(snap, prev, id, waited);
	}
}

/* One snapshot of every block, as of now. */
static int
sample(struct observer *ob)
{
	int64_t real = wm_monotonic_ns();
	/* Only this thread replaces ob->current: reading it needs no
	 * read-side section here. */
	struct published *prev = ob->current;
	const struct wm_shm_header *h = wm_shm_header(ob->seg);
	struct wm_snapshot *snap = wm_snapshot_take(
		ob->plan, wm_shm_metrics_area(ob->seg),
		prev != NULL ? prev->snap : NULL, real,
		wm_scale_ns(real - ob->start_ns, ob->topo->job.speed));

	if (snap == NULL)
		return -ENOMEM;
	read_cpu_waits(ob, snap, prev != NULL ? prev->snap : NULL);
	/* The last restore is at the attempt's start line (0 while its
	 * workers start: not restored yet). */
	int64_t restarted =
		atomic_load_explicit(&h->start_ns, memory_order_relaxed);

	wm_snapshot_set_restarts(
		snap, atomic_load_explicit(&h->restarts, memory_order_relaxed),
		restarted != 0 ? wm_scale_ns(restarted - ob->start_ns,
					     ob->topo->job.speed)
			       : snap->processing_ns);
	if (ob->topo->job.checkpoint_interval_ms != INT64_MAX) {
		const struct wm_shm_checkpoint_stats *cs = &h->checkpoints;
		struct wm_snap_checkpoints c = {
			.completed = atomic_load_explicit(&cs->completed,
							  memory_order_relaxed),
			.failed = atomic_load_explicit(&cs->failed,
						       memory_order_relaxed),
			.in_progress = atomic_load_explicit(
				&cs->in_progress, memory_order_relaxed),
			.last_duration_ns = atomic_load_explicit(
				&cs->last_duration_ns, memory_order_relaxed),
			.last_bytes = atomic_load_explicit(
				&cs->last_bytes, memory_order_relaxed),
		};

		wm_snapshot_set_checkpoints(snap, &c);
	}
	/* Before publishing: once published, the snapshot is the readers'
	 * and may be freed under the sampler. */
	if (ob->alerts != NULL)
		judge(ob, snap);
	if (ob->rec != NULL)
		wm_recorder_feed(ob->rec, snap);
	return publish(ob, snap);
}

/* Draw the current snapshot's screen if it is new, fitted to the
 * terminal as it is now (a resized terminal redraws to fit at the next
 * frame); false once the terminal cannot be written to. */
static bool
show_screen(struct observer *ob, uint64_t *shown)
{
	const struct wm_terminal *term = ob->o->terminal;
	struct published *p;
	struct wm_screen scr;
	uint32_t rows, cols;
	bool drawn = false, ok = true;

	if (wm_screen_begin(&scr) != 0)
		return true; /* no memory this time; try at the next */
	wm_terminal_size(term, &rows, &cols);
	urcu_bp_read_lock();
	p = rcu_dereference(ob->current);
	if (p != NULL && p->snap->seq + 1 != *shown) {
		/* The noise as the run measured it so far. */
		if (p->snap->noise_ns != INT64_MAX)
			wm_view_set_noise(ob->view, p->snap->noise_ns);
		wm_view_set_rows(ob->view, rows);
		wm_view_screen(ob->view, p->snap, &scr);
		screen_alerts(ob, &scr);
		*shown = p->snap->seq + 1;
		drawn = true;
	}
	urcu_bp_read_unlock();
	if (wm_screen_end(&scr) == 0 && drawn)
		ok = wm_terminal_draw(term, &scr, rows, cols);
	wm_screen_free(&scr);
	return ok;
}

/* Write the lines the current snapshot makes news of; false once the
 * view cannot write any more (it then stops, the job goes on). */
static bool
show_lines(struct observer *ob, uint64_t *shown)
{
	struct published *p;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	bool ok = true;

	if (m == NULL)
		return true; /* no memory this time; try at the next */
	urcu_bp_read_lock();
	p = rcu_dereference(ob->current);
	if (p != NULL && p->snap->seq + 1 != *shown) {
		if (p->snap->noise_ns != INT64_MAX)
			wm_view_set_noise(ob->view, p->snap->noise_ns);
		wm_view_lines(ob->view, p->snap, m);
		*shown = p->snap->seq + 1;
	}
	urcu_bp_read_unlock();
	if (fclose(m) == 0 && len > 0)
		ok = wm_write_all(ob->o->fd, text, len);
	free(text);
	return ok;
}

static bool
show(struct observer *ob, uint64_t *shown)
{
	return ob->o->live == WM_LIVE_SCREEN ? show_screen(ob, shown)
					     : show_lines(ob, shown);
}

static void *
view_thread(void *arg)
{
	struct observer *ob = arg;
	int64_t every = ob->o->live == WM_LIVE_SCREEN ? ob->o->redraw_ns
						      : ob->o->interval_ns;
	uint64_t shown = 0;
	/* Names may be UTF-8: their width in columns, for cutting lines to
	 * the terminal, is known in a UTF-8 locale (screen.h), set for
	 * this thread alone. */
	locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);

	if (utf8 != (locale_t)0)
		uselocale(utf8);
	for (;;) {
		bool last = atomic_load_explicit(&ob->stopping,
						 memory_order_acquire);

		if (!show(ob, &shown) || last)
			break;
		struct timespec until;

		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += every / 1000000000;
		until.tv_nsec += every % 1000000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_mutex_lock(&ob->lock);
		while (!atomic_load_explicit(&ob->stopping,
					     memory_order_relaxed) &&
		       pthread_cond_timedwait(&ob->wake, &ob->lock, &until) !=
			       ETIMEDOUT)
			;
		pthread_mutex_unlock(&ob->lock);
	}
	if (utf8 != (locale_t)0) {
		uselocale(LC_GLOBAL_LOCALE);
		freelocale(utf8);
	}
	return NULL;
}

/* The timeline: every snapshot it sees, as JSON lines, rendered under the
 * read lock and written after it, so that a slow disk holds back nothing
 * but this thread. */
static void *
timeline_thread(void *arg)
{
	struct observer *ob = arg;
	uint64_t seen = 0, written = 0; /* publications; seq + 1 written */

	for (;;) {
		pthread_mutex_lock(&ob->lock);
		while (ob->published == seen &&
		       !atomic_load_explicit(&ob->stopping,
					     memory_order_relaxed))
			pthread_cond_wait(&ob->wake, &ob->lock);
		bool last = atomic_load_explicit(&ob->stopping,
						 memory_order_acquire) &&
			    ob->published == seen;

		seen = ob->published;
		pthread_mutex_unlock(&ob->lock);
		if (last)
			break;

		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		uint64_t rendered = written;
		int r = 0;

		if (m == NULL)
			continue; /* counted as missed at the next one */
		urcu_bp_read_lock();
		struct published *p = rcu_dereference(ob->current);

		if (p != NULL && p->snap->seq + 1 > written) {
			r = wm_timeline_write(m, ob->topo, ob->plan, p->snap,
					      ob->start_ns,
					      p->snap->seq - written);
			rendered = p->snap->seq + 1;
		}
		urcu_bp_read_unlock();
		/* A sample the memory stream could not hold whole (out of
		 * memory) is not written, not even in part, and is counted
		 * as missed at the next one. */
		if (fclose(m) != 0 || r != 0) {
			free(text);
			continue;
		}
		written = rendered;
		if (len > 0 && wm_outfile_write(ob->metrics, text, len) != 0) {
			char name[4200];

			wm_log("wmrun: error: could not write metrics file %s: "
			       "%s",
			       wm_outfile_name(ob->metrics, name, sizeof(name)),
			       strerror(ob->metrics->error));
			ob->status = EX_IOERR;
			free(text);
			break;
		}
		free(text);
	}
	return NULL;
}

/* Wait until `ms` passed or the job ended; false once it ended. */
static bool
wait_or_end(struct observer *ob, int64_t ns)
{
	struct pollfd p = {.fd = ob->end_fd, .events = POLLIN};
	int ms = (int)((ns + 999999) / 1000000);
	int r;

	do
		r = poll(&p, 1, ms);
	while (r < 0 && errno == EINTR);
	return r == 0;
}

static int
observe(struct observer *ob)
{
	const struct wm_shm_header *h = wm_shm_header(ob->seg);
	pthread_t view, timeline;
	bool viewing = ob->o->live != WM_LIVE_OFF;
	bool writing = ob->metrics != NULL;
	pthread_condattr_t ca;
	int status = 0;

	/* The start line: the moment every subtask is ready, processing
	 * time's zero. A job that ends before it shows nothing. */
	while ((ob->start_ns = atomic_load_explicit(&h->start_ns,
						    memory_order_acquire)) == 0)
		if (!wait_or_end(ob, 10000000))
			return 0;
	if (viewing) {
		ob->view = wm_view_new(ob->topo, ob->plan, ob->start_ns,
				       ob->o->status_ns);
		if (ob->view == NULL)
			return EX_OSERR;
	}
	if (ob->handoff != NULL) {
		ob->alerts = wm_alerts_new(ob->topo, ob->plan);
		if (ob->alerts == NULL)
			return EX_OSERR;
	}
	/* Without it the figures are the workers' own: no failure. */
	ob->schedstat = malloc(ob->plan->n_subtasks * sizeof(int));
	for (uint32_t id = 0;
	     ob->schedstat != NULL && id < ob->plan->n_subtasks; id++)
		ob->schedstat[id] = -1;
	/* The lock before the first publication, which takes it. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ob->wake, &ca);
	pthread_mutex_init(&ob->lock, NULL);
	if (sample(ob) != 0)
		return EX_OSERR;
	if (viewing && pthread_create(&view, NULL, view_thread, ob) != 0)
		return EX_OSERR;
	if (writing &&
	    pthread_create(&timeline, NULL, timeline_thread, ob) != 0)
		return EX_OSERR;
	while (wait_or_end(ob, ob->o->interval_ns))
		if (sample(ob) != 0) {
			status = EX_OSERR;
			break;
		}
	/* The last figures, then the readers show them and stop. */
	if (status == 0 && sample(ob) != 0)
		status = EX_OSERR;
	pthread_mutex_lock(&ob->lock);
	atomic_store_explicit(&ob->stopping, true, memory_order_release);
	pthread_cond_broadcast(&ob->wake);
	pthread_mutex_unlock(&ob->lock);
	if (viewing)
		pthread_join(view, NULL);
	if (writing)
		pthread_join(timeline, NULL);
	hand_over_alerts(ob);
	return status != 0 ? status : ob->status;
}

/* --report's recorder, on the grid --sim draws the same job on: its
 * first step is --sim's unless the samples come further apart in
 * processing time (a sample every interval_ns of real time is that
 * times the job's speed, rounded up to a human step). NULL when none is asked, or without memory
 * (the supervisor then finds nothing handed over and says so). */
static struct wm_recorder *
new_recorder(const struct observer *ob)
{
	int64_t step = wm_recorder_first_step_ns(ob->topo, -1);
	/* On a human step, as --sim's: "buckets of 10 min", not 6.7. */
	int64_t every =
		(int64_t)wm_axis_step(WM_AXIS_DURATION,
				      (double)wm_scale_ns(ob->o->interval_ns,
							  ob->topo->job.speed) /
					      1e6) *
		1000000;

	if (ob->recording == NULL)
		return NULL;
	return wm_recorder_new(ob->plan, every > step ? every : step,
			       WM_RECORDER_BUCKETS,
			       wm_ms_to_ns(ob->topo->job.stall_threshold_ms));
}

/* The recorder to the supervisor, whole (R1), after the last sample. */
static void
hand_over_recording(struct observer *ob)
{
	size_t room = ob->recording_size - sizeof(struct recording);

	if (ob->rec == NULL ||
	    wm_recorder_pack(ob->rec, ob->recording->data, room) != 0)
		return;
	/* R1: the bytes before the flag that says they are there. */
	atomic_store_explicit(&ob->recording->packed, 1, memory_order_release);
}

/* The exposition of the current snapshot, on the endpoint's thread; none
 * before the first sample. */
static bool
render_prometheus(void *arg, FILE *out)
{
	struct observer *ob = arg;
	struct published *p;
	bool ok = true;

	urcu_bp_read_lock();
	p = rcu_dereference(ob->current);
	if (p != NULL)
		ok = wm_prometheus_write(ob->prom, p->snap, out);
	urcu_bp_read_unlock();
	return ok;
}

/*
 * Start the --prometheus endpoint and say how that went on `ready_fd`,
 * in one line: "ready PORT", or the error message. False if it failed.
 * Flink's host is this machine's name; its tm_id, the supervisor's pid:
 * the process that runs the job's workers, as a TaskManager runs tasks.
 */
static bool
start_endpoint(struct observer *ob, int ready_fd, pid_t parent)
{
	char host[256], tm_id[64], line[512];
	uint16_t port = 0;

	if (gethostname(host, sizeof(host)) != 0)
		strcpy(host, "localhost");
	host[sizeof(host) - 1] = '\0';
	snprintf(tm_id, sizeof(tm_id), "wmrun-%d", (int)parent);
	ob->prom = wm_prometheus_new(
		ob->topo, ob->plan,
		&(struct wm_prometheus_ids){.host = host, .tm_id = tm_id});
	if (ob->prom == NULL)
		snprintf(line, sizeof(line), "could not start the endpoint: %s",
			 strerror(ENOMEM));
	else
		ob->endpoint =
			wm_endpoint_start(&ob->o->prometheus, render_prometheus,
					  ob, &port, line, sizeof(line));
	if (ob->endpoint != NULL)
		snprintf(line, sizeof(line), "ready %u", (unsigned)port);
	strcat(line, "\n");
	wm_write_all(ready_fd, line, strlen(line));
	return ob->endpoint != NULL;
}

static void
observer_main(const struct wm_observe_options *o,
	      const struct wm_topology *topo, const struct wm_plan *plan,
	      const struct wm_shm *seg, int end_fd, int ready_fd, pid_t parent,
	      struct wm_outfile *metrics, struct handoff *handoff,
	      struct recording *recording, size_t recording_size)
{
	struct observer ob = {.o = o,
			      .topo = topo,
			      .plan = plan,
			      .seg = seg,
			      .end_fd = end_fd,
			      .metrics = metrics,
			      .handoff = handoff,
			      .recording = recording,
			      .recording_size = recording_size};
	char err[4400];

	/* Gone with the supervisor; its signals (blocked since before the
	 * fork) stay blocked: a stop reaches it as the pipe's EOF. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	prctl(PR_SET_NAME, "observer"); /* as workers are named: ps, pgrep */
	if (o->prometheus.on && !start_endpoint(&ob, ready_fd, parent)) {
		/* The job never runs: no timeline of it stays. */
		if (metrics != NULL)
			wm_outfile_close(metrics, false, NULL, 0);
		_exit(EX_OSERR);
	}
	if (ready_fd >= 0)
		close(ready_fd);
	ob.rec = new_recorder(&ob);
	int status = observe(&ob);

	/* Even after a job that ended before its start line: the
	 * supervisor then draws an empty page rather than none. */
	hand_over_recording(&ob);

	/* Before anything it reads goes: its thread reads ob.current. */
	wm_endpoint_stop(ob.endpoint);

	/* Kept whatever ended the job: a timeline cut short is the record of
	 * what happened up to then. */
	if (metrics != NULL &&
	    wm_outfile_close(metrics, true, err, sizeof(err)) != 0) {
		wm_log("wmrun: error: %s", err);
		if (status == 0)
			status = EX_IOERR;
	}
	fflush(NULL);
	_exit(status);
}

static void
release_alerts(struct wm_observer *obs)
{
	if (obs->alerts != NULL)
		munmap(obs->alerts, sizeof(struct handoff));
	obs->alerts = NULL;
}

static void
release_recording(struct wm_observer *obs)
{
	if (obs->recording != NULL)
		munmap(obs->recording, obs->recording_size);
	obs->recording = NULL;
}

/* Every mapping shared with the observer. */
static void
release_shared(struct wm_observer *obs)
{
	release_alerts(obs);
	release_recording(obs);
}

/*
 * The observer's (`pid`) one line on the ready pipe (start_endpoint()): 0
 * with the port, or -1 with err set to its message, to its death's if it
 * died first (EOF before a line), or -2 with err set to its silence's
 * after WM_OBSERVER_READY_NS (the caller kills it: stuck, or stopped).
 */
static int
await_ready(int fd, pid_t pid, uint16_t *port, char *err, size_t errlen)
{
	int64_t deadline = wm_monotonic_ns() + WM_OBSERVER_READY_NS;
	char line[512];
	size_t len = 0;
	unsigned p;

	while (len + 1 < sizeof(line)) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int64_t left = deadline - wm_monotonic_ns();

		if (left <= 0) {
			snprintf(err, errlen,
				 "could not start the Prometheus endpoint: the "
				 "observer (pid %d) did not answer within %d s",
				 (int)pid,
				 (int)(WM_OBSERVER_READY_NS / 1000000000));
			return -2;
		}
		/* Nothing to read yet (or a signal): the deadline again. */
		if (poll(&pfd, 1, (int)((left + 999999) / 1000000)) <= 0)
			continue;
		ssize_t n = read(fd, line + len, sizeof(line) - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (memchr(line, '\n', len) != NULL)
			break;
	}
	line[len] = '\0';
	line[strcspn(line, "\n")] = '\0';
	if (sscanf(line, "ready %u", &p) == 1 && p <= 65535) {
		*port = (uint16_t)p;
		return 0;
	}
	snprintf(err, errlen, "%s",
		 len > 0 ? line
			 : "could not start the Prometheus endpoint: the "
			   "observer process ended first");
	return -1;
}

/* The endpoint is up: say where, if the user may not know (port 0) or
 * wants to be told things (not --quiet). */
static void
say_where(const struct wm_observe_options *o, uint16_t port)
{
	const struct wm_listen *l = &o->prometheus;

	if (l->port == 0 || o->live != WM_LIVE_OFF)
		wm_log("wmrun: Prometheus metrics at http://%s%s%s:%u/metrics",
		       l->v6 ? "[" : "", l->addr, l->v6 ? "]" : "",
		       (unsigned)port);
}

/* The observer failed to start: reap it, and close the job's pipe. */
static void
abandon(struct wm_observer *obs)
{
	close(obs->end_fd);
	obs->end_fd = -1;
	while (waitpid(obs->pid, NULL, 0) < 0 && errno == EINTR)
		;
	obs->pid = 0;
	release_shared(obs);
}

/*
 * The memory the observer hands back to the supervisor, mapped shared
 * before the fork so that both see one copy: the --report recording and,
 * when the job has alerts, the alerts. 0, or EX_OSERR after a message in
 * err with nothing left mapped.
 */
static int
map_shared(struct wm_observer *obs, const struct wm_observe_options *o,
	   const struct wm_topology *topo, const struct wm_plan *plan,
	   char *err, size_t errlen)
{
	if (o->recording != NULL) {
		/* Zeroed: nothing packed yet. Pages are only touched as the
		 * recorder's used buckets are copied in. */
		size_t size = sizeof(struct recording) +
			      wm_recorder_pack_size(plan, WM_RECORDER_BUCKETS);
		void *m = mmap(NULL, size, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED) {
			snprintf(err, errlen,
				 "could not map memory for the report: %s",
				 strerror(errno));
			return EX_OSERR;
		}
		obs->recording = m;
		obs->recording_size = size;
	}
	if (wm_alerts_configured(&topo->job)) {
		/* Zeroed: no alert yet. */
		void *m = mmap(NULL, sizeof(struct handoff),
			       PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED) {
			snprintf(err, errlen,
				 "could not map memory for alerts: %s",
				 strerror(errno));
			release_shared(obs);
			return EX_OSERR;
		}
		obs->alerts = m;
	}
	return 0;
}

/*
 * The job's pipe, fds (its EOF is the job's end), and for --prometheus
 * the one on which the observer says whether it serves, ready (left -1
 * without). 0, or EX_OSERR after a message in err with neither open.
 */
static int
make_pipes(const struct wm_observe_options *o, int fds[2], int ready[2],
	   char *err, size_t errlen)
{
	/* The workers forked after it inherit the write end too (fork keeps
	 * it; O_CLOEXEC only closes it at an exec): EOF comes once they and
	 * the supervisor are all done, which is when the job ended. */
	if (pipe2(fds, O_CLOEXEC) != 0) {
		int e = errno;

		snprintf(err, errlen, "could not make a pipe: %s", strerror(e));
		return EX_OSERR;
	}
	/* --prometheus: the observer says on it whether it serves. */
	if (o->prometheus.on && pipe2(ready, O_CLOEXEC) != 0) {
		int e = errno;

		snprintf(err, errlen, "could not make a pipe: %s", strerror(e));
		close(fds[0]);
		close(fds[1]);
		return EX_OSERR;
	}
	return 0;
}

/*
 * --prometheus: wait on ready_fd (closed here) until the observer serves
 * or says why it cannot, then say where it serves. 0, or EX_OSERR after a
 * message in err with the observer reaped and the job's pipe closed.
 */
static int
await_serving(struct wm_observer *obs, const struct wm_observe_options *o,
	      int ready_fd, char *err, size_t errlen)
{
	uint16_t port = 0;
	int r = await_ready(ready_fd, obs->pid, &port, err, errlen);

	close(ready_fd);
	if (r == -2)
		kill(obs->pid, SIGKILL);
	if (r != 0) {
		abandon(obs);
		return EX_OSERR;
	}
	say_where(o, port);
	return 0;
}

int
wm_observer_start(struct wm_observer *obs, const struct wm_observe_options *o,
		  const struct wm_topology *topo, const struct wm_plan *plan,
		  const struct wm_shm *seg, char *err, size_t errlen)
{
	pid_t parent = getpid();
	struct wm_outfile metrics, *mf = NULL;
	int fds[2], ready[2] = {-1, -1};
	int r;

	*obs = (struct wm_observer){
		.pid = 0, .end_fd = -1, .topo = topo, .plan = plan};
	if (o->live == WM_LIVE_OFF && o->metrics == NULL && !o->prometheus.on &&
	    !wm_alerts_configured(&topo->job) && o->recording == NULL)
		return 0;
	r = map_shared(obs, o, topo, plan, err, errlen);
	if (r != 0)
		return r;
	if (o->metrics != NULL) {
		r = wm_outfile_open(&metrics, "metrics file", o->metrics, false,
				    err, errlen);
		if (r != 0) {
			release_shared(obs);
			return wm_exit_status(WM_EXIT_OUTPUT, r);
		}
		mf = &metrics;
	}
	r = make_pipes(o, fds, ready, err, errlen);
	if (r != 0) {
		if (mf != NULL)
			wm_outfile_close(mf, false, NULL, 0);
		release_shared(obs);
		return r;
	}
	fflush(stdout);
	fflush(stderr);
	obs->pid = fork();
	if (obs->pid == 0) {
		close(fds[1]);
		if (ready[0] >= 0)
			close(ready[0]);
		observer_main(o, topo, plan, seg, fds[0], ready[1], parent, mf,
			      obs->alerts, obs->recording, obs->recording_size);
	}
	close(fds[0]);
	if (ready[1] >= 0)
		close(ready[1]);
	if (obs->pid < 0) {
		int e = errno;

		close(fds[1]);
		if (ready[0] >= 0)
			close(ready[0]);
		obs->pid = 0;
		release_shared(obs);
		snprintf(err, errlen, "could not fork: %s", strerror(e));
		if (mf != NULL)
			wm_outfile_close(mf, false, NULL, 0);
		return EX_OSERR;
	}
	/* The observer writes and closes it from here on. */
	if (mf != NULL)
		wm_outfile_hand_over(mf);
	obs->writes = mf != NULL;
	obs->end_fd = fds[1];
	if (ready[0] < 0)
		return 0;
	/* Before any worker: a port that cannot be had fails the job
	 * before it starts. */
	return await_serving(obs, o, ready[0], err, errlen);
}

int
wm_observer_finish(struct wm_observer *obs)
{
	int64_t deadline = wm_monotonic_ns() + WM_OBSERVER_GRACE_NS;
	pid_t r;
	int st;

	if (obs->end_fd >= 0) {
		close(obs->end_fd);
		obs->end_fd = -1;
	}
	if (obs->pid <= 0 || obs->reaped)
		return 0;
	/* It draws and writes its last snapshot and goes. One that cannot
	 * (a terminal stopped with Ctrl-S, a metrics file on a hung disk)
	 * must not hold the job's end and summary for ever. */
	while ((r = waitpid(obs->pid, &st, WNOHANG)) == 0 &&
	       wm_monotonic_ns() < deadline)
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	if (r == 0) {
		wm_log("wmrun: notice: the live view (observer pid %d) did "
		       "not end within %d s of the job; stopped",
		       (int)obs->pid, (int)(WM_OBSERVER_GRACE_NS / 1000000000));
		kill(obs->pid, SIGKILL);
		while ((r = waitpid(obs->pid, &st, 0)) < 0 && errno == EINTR)
			;
	}
	obs->reaped = true;
	if (r < 0)
		return 0;
	/* Killed: its view only stopped, but a metrics file lacks its end. */
	return WIFEXITED(st) ? WEXITSTATUS(st) : obs->writes ? EX_IOERR : 0;
}

int
wm_observer_alerts(struct wm_observer *obs, struct wm_job_report *rep)
{
	struct handoff *h = obs->alerts;
	uint32_t n, good = 0;
	uint64_t raised;
	struct wm_alert *list;
	int r;

	if (h == NULL || rep->subtasks == NULL) {
		release_alerts(obs);
		return 0;
	}
	/* Written by another process: nothing is taken on trust. */
	n = atomic_load_explicit(&h->n, memory_order_acquire);
	raised = atomic_load_explicit(&h->raised, memory_order_relaxed);
	if (n > WM_ALERTS_KEPT)
		n = WM_ALERTS_KEPT;
	list = malloc((n ? n : 1) * sizeof(*list));
	if (list == NULL) {
		release_alerts(obs);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		if (wm_alert_valid(&h->list[i], obs->topo, obs->plan))
			list[good++] = h->list[i];
	if (good < n)
		wm_log("wmrun: notice: %u alerts from the observer name "
		       "nothing of this job and were left out",
		       n - good);
	r = wm_report_set_alerts(rep, list, good,
				 raised > good ? raised : good);
	free(list);
	release_alerts(obs);
	return r;
}

struct wm_recorder *
wm_observer_recording(struct wm_observer *obs)
{
	struct recording *h = obs->recording;
	struct wm_recorder *rec = NULL;

	if (h == NULL)
		return NULL;
	/* R2: pairs with R1 in hand_over_recording(). */
	if (atomic_load_explicit(&h->packed, memory_order_acquire) != 1)
		wm_log("wmrun: notice: the observer handed over no samples "
		       "for the report");
	else if ((rec = wm_recorder_unpack(
			  obs->plan, WM_RECORDER_BUCKETS, h->data,
			  obs->recording_size - sizeof(*h))) == NULL)
		wm_log("wmrun: notice: could not read the observer's samples "
		       "for the report: %s",
		       errno == EINVAL ? "they do not describe this job"
				       : strerror(errno));
	release_recording(obs);
	return rec;
}
