/*
 * exit.h
 *	The exit status of wmrun's processes: which sysexits code a failure
 *	is, decided here once for the program, its drivers and its workers.
 *
 *   0    every source finished; every worker drained and exited 0
 *   1    a worker failed or died (any status that is not one of these)
 *   64   EX_USAGE     bad command line
 *   65   EX_DATAERR   a malformed record in a replayed trace (file:line)
 *   66   EX_NOINPUT   a named input (topology.conf, a trace) cannot be
 *                     read, or a Kafka topic was deleted while read
 *   69   EX_UNAVAILABLE  no Kafka broker answered for kafka.broker_timeout
 *   70   EX_SOFTWARE  an internal invariant broken: a bug of ours
 *   71   EX_OSERR     the OS refused memory, shared memory, a fork, a
 *                     futex or pinning
 *   73   EX_CANTCREAT the checkpoint directory cannot be made
 *   74   EX_IOERR     an output could not be opened or written (a full
 *                     disk, a reader gone), or an input failed with EIO
 *   75   EX_TEMPFAIL  the checkpoint directory is another running job's
 *                     (runtime/checkpoint/dir_lock.h; EBUSY)
 *   77   EX_NOPERM    a Kafka broker refused the client's rights
 *   78   EX_CONFIG    topology.conf invalid (file:line:col), or the job
 *                     cannot fit in this machine's memory
 *   128+n             stopped by signal n, after a bounded drain
 *
 * wmrun's --help and the README say the same. Code that knows what went
 * wrong without an errno (an output that failed, a segment refused)
 * names the code itself; code that holds an errno asks
 * wm_exit_status() with what it was doing, because the same errno means
 * different things there: ENOENT is an unreadable input but a failed
 * output, EFBIG a topology file too large but a sink grown to its file
 * size limit, EBADMSG a malformed trace line but a corrupt frame.
 */
#ifndef WM_BASE_EXIT_H
#define WM_BASE_EXIT_H

#include <stdbool.h>

/* What a process was doing when it got the errno. */
enum wm_exit_cause {
	/* Reading a named input: topology.conf (wm_topology_load_*()) or a
	 * replayed trace (wm_replay_read()). EBADMSG malformed data (65),
	 * EINVAL and EFBIG an invalid or oversized topology (78), a file
	 * that cannot be opened or read as one (missing, forbidden, a
	 * directory...) 66, EIO 74, anything else the OS's (71). */
	WM_EXIT_INPUT,
	/* Opening, writing or closing an output (sink, late side output,
	 * summary): 74 whatever the errno, but memory. */
	WM_EXIT_OUTPUT,
	/* This process's own work on its own data (a task taking a frame,
	 * an estimate): only memory may fail it; any other errno (a corrupt
	 * frame, bytes another process wrote) is a bug of ours (70). */
	WM_EXIT_INTERNAL,
	/* A whole --sim run (wm_sim_run()), whose errno already says the
	 * kind (sim.h): EIO an output, EINVAL the topology, EBADMSG and an
	 * unreadable file a trace, as for WM_EXIT_INPUT, EBUSY a checkpoint
	 * directory another job holds (75); anything else 70. */
	WM_EXIT_SIM,
};

/*
 * The exit status for errno `err` (negative or positive; 0 gives 0) got
 * while doing `cause`. ENOMEM is 71 for every cause: memory is the
 * machine's.
 */
int wm_exit_status(enum wm_exit_cause cause, int err);

/*
 * The job's exit status for a worker that exited with `status` (not 0):
 * its own sysexits code (an output error, memory, an internal error), or 1
 * for any other status, a worker that failed in a way it did not name.
 */
int wm_exit_of_worker(int status);

#endif /* WM_BASE_EXIT_H */
