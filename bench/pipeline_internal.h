/*
 * pipeline_internal.h
 *	What the files of wmbench pipeline share: the job's constants, the
 *	options, a variant's figures by repetition, the --keys traces, and
 *	the functions one file calls in another. For bench/pipeline_*.c only.
 *
 * pipeline_bench.c reads the options, builds the jobs and runs the
 * repetitions; pipeline_loop.c is impl=loop; pipeline_keys.c writes the
 * --keys traces and times their reading; pipeline_print.c prints the
 * figures, in the line format tests and doc/performance.md read.
 */
#ifndef WM_BENCH_PIPELINE_INTERNAL_H
#define WM_BENCH_PIPELINE_INTERNAL_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/log.h"
#include "runtime/conf/topology.h"

#define PIPELINE_PARTITIONS 8u
#define PIPELINE_KEYS 1024u
#define PIPELINE_SPEED 1000
#define PIPELINE_WINDOW_MS 60000
#define PIPELINE_MAX_LIST 8

struct pipeline_options {
	uint64_t records; /* in all; a multiple of the partitions */
	uint64_t reps;
	uint32_t parallelism[PIPELINE_MAX_LIST];
	size_t n_parallelism;
	bool sampled; /* also run each variant watched by an observer */
	bool keys;    /* also replay traces keyed by longs and by strings */
	bool flink;   /* also run the long-keyed trace's job on Flink */
	/* --checkpoint-interval: also run each variant taking checkpoints
	 * this often, in real time (0: not); they go into a new directory
	 * in checkpoint_parent, removed at the end. */
	int64_t checkpoint_ms;
	const char *checkpoint_parent;
};

enum keys_type { KEYS_LONG, KEYS_STRING, KEYS_TYPES };
/* The key types' names in the output lines and the traces' file names. */
extern const char *const wm_pipeline_keys_name[KEYS_TYPES];

/* --peer flink: Flink's default configuration, and with object reuse. */
#define PEER_CONFIGS 2

/* The traces and what reading them cost. */
struct keys_bench {
	bool wanted[KEYS_TYPES];     /* --keys: both; --peer alone: long */
	char path[KEYS_TYPES][512];  /* "" until made; unlinked at the end */
	uint32_t distinct;	     /* keys the records use */
	uint64_t results;	     /* distinct (key, window): the results */
	double *read_ns[KEYS_TYPES]; /* per record, by repetition */
};

/*
 * --checkpoint-interval: the figures of a checkpointed run, from its
 * report's checkpoint summary (report.h), by repetition. Durations are
 * kept in real time; the summary gives them in processing time, which
 * passes PIPELINE_SPEED times faster. The alignment is the longest time
 * any subtask held a channel blocked, first barrier to last.
 */
enum ckpt_figure {
	CKPT_COMPLETED,
	CKPT_BYTES, /* the last checkpoint's blobs */
	CKPT_DURATION_MAX,
	CKPT_DURATION_MEAN,
	CKPT_ALIGNMENT_MAX,
	CKPT_FIGURES
};

struct variant {
	uint32_t parallelism;
	struct wm_topology *topo;
	double *mrec;	      /* by repetition */
	double *sampled_mrec; /* --sampled: watched, by repetition */
	uint64_t scrapes;     /* --sampled: endpoint responses, in all */
	double *rss;	      /* KiB, every subtask of every repetition */
	size_t n_rss, cap_rss;
	uint64_t shm_bytes;
	/* --keys: the job replaying each trace, and its throughput from
	 * the start line, by repetition (--peer alone: the long one) */
	struct wm_topology *keyed_topo[KEYS_TYPES];
	double *keyed_mrec[KEYS_TYPES];
	/* --peer flink: the same job on Flink, with its defaults and with
	 * object reuse (peer_reuse[]), from its first record to its last
	 * result and as execute() took, by repetition */
	double *flink_mrec[PEER_CONFIGS];
	double *flink_execute_mrec[PEER_CONFIGS];
	/* --checkpoint-interval: the job taking checkpoints into its own
	 * directory (a plan's checkpoints are refused by another's), its
	 * throughput and figures by repetition, and checkpoints given up
	 * (timed out) in all */
	struct wm_topology *ckpt_topo;
	double *ckpt_mrec;
	double *ckpt[CKPT_FIGURES];
	uint64_t ckpt_given_up;
};

/* read == generated == windowed + late + dropped, or say what is off.
 * Here, not in a .c file, because both implementations check their runs
 * with it and pipeline_loop.c uses nothing else of pipeline_bench.c. */
static inline bool
wm_pipeline_accounted(const char *what, uint64_t expected, uint64_t read,
		      uint64_t windowed, uint64_t elsewhere)
{
	if (read == expected && windowed + elsewhere == read)
		return true;
	wm_log("wmbench: pipeline %s: %" PRIu64 " records generated, %" PRIu64
	       " read, %" PRIu64 " in windows, %" PRIu64 " late or dropped",
	       what, expected, read, windowed, elsewhere);
	return false;
}

/* impl=loop (pipeline_loop.c): one run of job t of `records` records in
 * this thread; Mrec/s, or -1 after a message. */
double wm_pipeline_loop_run(const struct wm_topology *t, uint64_t records);

/* --keys (pipeline_keys.c): the order of the key types in repetition r:
 * alternating, so that neither always runs on a machine (and a page
 * cache) the other warmed. */
enum keys_type wm_pipeline_keys_nth(uint64_t r, int i);
/* Write kb's wanted traces of `records` records; 0, or an exit status
 * after a message. */
int wm_pipeline_keys_write(struct keys_bench *kb, uint64_t records);
/* Repetition r of the traces' reading alone, into kb->read_ns; 0, or an
 * exit status after a message. */
int wm_pipeline_keys_read_rep(struct keys_bench *kb, uint64_t records,
			      uint64_t r);

/* Every figure of the repetitions on standard output (pipeline_print.c):
 * the loop's, then each variant's; nothing if out of memory. */
void wm_pipeline_print(const struct pipeline_options *o,
		       const double *loop_mrec, struct variant *v, size_t nv,
		       const struct keys_bench *kb);

#endif /* WM_BENCH_PIPELINE_INTERNAL_H */
