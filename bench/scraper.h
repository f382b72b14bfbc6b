/*
 * scraper.h
 *	A Prometheus scraper for wmbench pipeline --sampled: a process of its
 *	own that GETs http://127.0.0.1:PORT/metrics at a fixed interval while
 *	a job runs, so that the endpoint's cost is measured as it is paid.
 *
 * A process, not a thread: wmbench runs the job's supervisor in its own
 * process, and the supervisor forks workers, which must never happen in a
 * process with a second thread (doc/architecture.md section 6).
 */
#ifndef WM_BENCH_SCRAPER_H
#define WM_BENCH_SCRAPER_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

struct wm_scraper {
	pid_t pid;
	_Atomic uint64_t *scrapes; /* whole responses read (shared) */
};

/* A loopback TCP port free now (bound and let go: another program may
 * take it before the job does, which then fails to listen). 0: none. */
uint16_t wm_scraper_free_port(void);

/* Start scraping port `port` every `every_ns`; 0 or -errno. Connection
 * failures (the endpoint not up yet, or gone) are retried quietly. */
int wm_scraper_start(struct wm_scraper *s, uint16_t port, int64_t every_ns);

/* Stop it; returns the responses it read. */
uint64_t wm_scraper_stop(struct wm_scraper *s);

#endif /* WM_BENCH_SCRAPER_H */
