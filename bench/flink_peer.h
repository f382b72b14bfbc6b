/*
 * flink_peer.h
 *	wmbench pipeline --peer flink: the benchmark's job on Apache Flink,
 *	in a JVM of wmbench's that runs it on request, so that its runs take
 *	turns with wmrun's in one benchmark run.
 *
 * The peer is the Maven project flink/peer/ (its class says what it runs
 * and how it times it). wmbench builds it once, when its jar is missing or
 * older than its sources, with `mvn -B -q -o package` (again without -o
 * if the cache lacks something), into flink-peer/ of the build tree: the
 * source tree is only read, as under make distcheck. The paths are
 * configure's (WM_FLINK_PEER_SRCDIR, WM_FLINK_PEER_BUILDDIR).
 *
 * The JVM reads the trace once, then runs the job once per request and
 * checks it (every record counted, in `results` results); its standard
 * input and output are one socket of wmbench's, its standard error is
 * wmbench's. A socket rather than pipes: a write to a peer that died
 * fails with EPIPE (MSG_NOSIGNAL) instead of raising SIGPIPE, which
 * wmbench must not ignore (wmrun's workers would inherit that).
 */
#ifndef WM_BENCH_FLINK_PEER_H
#define WM_BENCH_FLINK_PEER_H

#include <stdbool.h>
#include <stdint.h>

struct wm_flink_peer;

/* The figures of one run of the job on Flink. */
struct wm_flink_peer_run {
	/* From the first record a source reader emitted to the last result
	 * a sink received: the job's work once deployed. */
	uint64_t first_to_last_ns;
	/* env.execute(): the above, plus starting a MiniCluster, deploying
	 * the job and tearing both down. */
	uint64_t execute_ns;
};

/* Build the peer if it needs it: 0, or an exit status after a message
 * (EX_UNAVAILABLE without java or mvn, or when Maven fails). */
int wm_flink_peer_build(void);

/* The built peer's class path for java -cp ("JAR:DEPENDENCIES"): its
 * other classes run alike (wmbench nexmark's NexmarkQueries).
 * malloc()ed; NULL after a message. */
char *wm_flink_peer_class_path(void);

/*
 * Start the built peer's JVM on `trace` (`records` lines of wmbench's
 * long-keyed trace, `results` distinct key and window pairs, windows of
 * window_ms) and wait until it has read the trace. NULL after a message,
 * *status then the exit status: EX_OSERR when a process cannot be
 * started, EX_UNAVAILABLE when java does not run, else EX_SOFTWARE.
 */
struct wm_flink_peer *wm_flink_peer_start(const char *trace, uint64_t records,
					  uint64_t results, int64_t window_ms,
					  int *status);

/* One run at `parallelism`, with object reuse or Flink's defaults: 0, or
 * an exit status after a message (the peer's 70: a wrong result). */
int wm_flink_peer_run(struct wm_flink_peer *peer, uint32_t parallelism,
		      bool reuse, struct wm_flink_peer_run *out);

/* End the JVM (its input ends) and wait for it; 0 or an exit status after
 * a message. NULL is a no-op. */
int wm_flink_peer_stop(struct wm_flink_peer *peer);

#endif /* WM_BENCH_FLINK_PEER_H */
