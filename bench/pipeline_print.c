/*
 * pipeline_print.c
 *	wmbench pipeline's figures on standard output: for each
 *	implementation and variant, the median, least and most of the
 *	repetitions, and the medians of the per-repetition ratios.
 *
 * One line a figure, "bench=pipeline impl=... variant=... metric=...",
 * through bench/stats.h: tests/integration/wmbench_pipeline_*.sh and
 * doc/performance.md read these lines, so their words and order stay.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/pipeline_internal.h"
#include "bench/stats.h"

static const char *const peer_suffix[PEER_CONFIGS] = {"", "-reuse"};

static const char *const ckpt_metric[CKPT_FIGURES] = {
	"checkpoints",
	"checkpoint_bytes",
	"checkpoint_duration_max_ms",
	"checkpoint_duration_mean_ms",
	"checkpoint_alignment_max_ms",
};
/* The same durations in processing time (seconds), as the summary and
 * wmrun's report give them. */
static const char *const ckpt_processing_metric[CKPT_FIGURES] = {
	[CKPT_DURATION_MAX] = "checkpoint_duration_max_processing_s",
	[CKPT_DURATION_MEAN] = "checkpoint_duration_mean_processing_s",
	[CKPT_ALIGNMENT_MAX] = "checkpoint_alignment_max_processing_s",
};

/* The cost target: checkpoints every second lose less than this
 * share of throughput against none, in one run. */
#define CKPT_TARGET_LOSS_PCT 5.0

/* "<prefix> metric=<metric> median=X min=Y max=Z[ <suffix>]" of the
 * repetitions' samples[], summarized in copy[] (room for one figure a
 * repetition): samples[] stay in their order, by repetition, for the
 * ratios. */
static void
print_samples(const char *prefix, const char *metric, const double *samples,
	      double *copy, uint64_t reps, const char *suffix)
{
	struct wm_stats s;

	memcpy(copy, samples, reps * sizeof(*copy));
	s = wm_stats_summarize(copy, reps);
	wm_stats_print(stdout, prefix, metric, &s, suffix);
}

/* "<prefix> metric=<metric> ratio=X", X the median over the repetitions
 * of num[r] / den[r]; copy[] as above. */
static void
print_median_ratio(const char *prefix, const char *metric, const double *num,
		   const double *den, double *copy, uint64_t reps)
{
	for (uint64_t r = 0; r < reps; r++)
		copy[r] = num[r] / den[r];
	wm_stats_print_ratio(stdout, prefix, metric,
			     wm_stats_summarize(copy, reps).median);
}

/* --keys: the reading figures, then each parallelism's two jobs and the
 * median of the per-repetition ratios string over long; copy[] and
 * suffix as wm_pipeline_print() has them. */
static void
keys_print(const struct pipeline_options *o, const struct keys_bench *kb,
	   const struct variant *v, size_t nv, double *copy, const char *suffix)
{
	char prefix[96];

	for (int k = 0; k < KEYS_TYPES; k++) {
		snprintf(prefix, sizeof(prefix),
			 "bench=pipeline impl=read variant=%s",
			 wm_pipeline_keys_name[k]);
		print_samples(prefix, "ns_per_record", kb->read_ns[k], copy,
			      o->reps, suffix);
	}
	printf("bench=pipeline impl=read variant=string-keys metric=keys "
	       "value=%" PRIu32 "\n",
	       kb->distinct);
	print_median_ratio("bench=pipeline impl=read", "string_over_long_keys",
			   kb->read_ns[KEYS_STRING], kb->read_ns[KEYS_LONG],
			   copy, o->reps);
	for (size_t j = 0; j < nv; j++) {
		for (int k = 0; k < KEYS_TYPES; k++) {
			snprintf(prefix, sizeof(prefix),
				 "bench=pipeline impl=wmrun variant=p%" PRIu32
				 "-%s",
				 v[j].parallelism, wm_pipeline_keys_name[k]);
			print_samples(prefix, "mrec_per_s", v[j].keyed_mrec[k],
				      copy, o->reps, suffix);
		}
		snprintf(prefix, sizeof(prefix),
			 "bench=pipeline variant=p%" PRIu32, v[j].parallelism);
		print_median_ratio(prefix, "string_over_long_keys",
				   v[j].keyed_mrec[KEYS_STRING],
				   v[j].keyed_mrec[KEYS_LONG], copy, o->reps);
	}
}

/* --peer flink: the results each run was checked for; each parallelism's
 * wmrun job replaying the long-keyed trace (unless --keys printed it),
 * Flink's two configurations, and the median of the per-repetition ratios
 * of wmrun over each; copy[] and suffix as wm_pipeline_print() has them. */
static void
peer_print(const struct pipeline_options *o, const struct keys_bench *kb,
	   const struct variant *v, size_t nv, double *copy, const char *suffix)
{
	char prefix[96];

	printf("bench=pipeline impl=flink metric=results value=%" PRIu64 "\n",
	       kb->results);
	for (size_t j = 0; j < nv; j++) {
		if (!o->keys) {
			snprintf(prefix, sizeof(prefix),
				 "bench=pipeline impl=wmrun variant=p%" PRIu32
				 "-%s",
				 v[j].parallelism,
				 wm_pipeline_keys_name[KEYS_LONG]);
			print_samples(prefix, "mrec_per_s",
				      v[j].keyed_mrec[KEYS_LONG], copy, o->reps,
				      suffix);
		}
		for (int c = 0; c < PEER_CONFIGS; c++) {
			snprintf(prefix, sizeof(prefix),
				 "bench=pipeline impl=flink variant=p%" PRIu32
				 "%s",
				 v[j].parallelism, peer_suffix[c]);
			print_samples(prefix, "mrec_per_s", v[j].flink_mrec[c],
				      copy, o->reps, suffix);
			print_samples(prefix, "execute_mrec_per_s",
				      v[j].flink_execute_mrec[c], copy, o->reps,
				      suffix);
			snprintf(prefix, sizeof(prefix),
				 "bench=pipeline variant=p%" PRIu32 "%s",
				 v[j].parallelism, peer_suffix[c]);
			print_median_ratio(prefix, "wmrun_over_flink",
					   v[j].keyed_mrec[KEYS_LONG],
					   v[j].flink_mrec[c], copy, o->reps);
		}
	}
}

/*
 * --checkpoint-interval: variant v's throughput taking checkpoints, its
 * checkpoints' figures (real time, then the durations in processing time
 * as wmrun's summary gives them), and the cost against the same job
 * without: the median of the per-repetition ratios, and as a loss in
 * percent beside its target. copy[] and suffix as wm_pipeline_print() has
 * them.
 */
static void
ckpt_print(const struct pipeline_options *o, const struct variant *v,
	   double *copy, const char *suffix)
{
	char prefix[96], extra[160];
	double loss;
	struct wm_stats s;

	snprintf(prefix, sizeof(prefix),
		 "bench=pipeline impl=wmrun-checkpointed variant=p%" PRIu32,
		 v->parallelism);
	snprintf(extra, sizeof(extra), "%s interval_ms=%" PRId64, suffix,
		 o->checkpoint_ms);
	print_samples(prefix, "mrec_per_s", v->ckpt_mrec, copy, o->reps, extra);
	for (int f = 0; f < CKPT_FIGURES; f++)
		print_samples(prefix, ckpt_metric[f], v->ckpt[f], copy, o->reps,
			      ckpt_processing_metric[f] ? "time=real" : NULL);
	for (int f = 0; f < CKPT_FIGURES; f++) {
		if (ckpt_processing_metric[f] == NULL)
			continue;
		for (uint64_t r = 0; r < o->reps; r++)
			copy[r] = v->ckpt[f][r] * PIPELINE_SPEED / 1e3;
		s = wm_stats_summarize(copy, o->reps);
		snprintf(extra, sizeof(extra), "time=processing speed=%d",
			 PIPELINE_SPEED);
		wm_stats_print(stdout, prefix, ckpt_processing_metric[f], &s,
			       extra);
	}
	printf("%s metric=checkpoints_given_up value=%" PRIu64 "\n", prefix,
	       v->ckpt_given_up);
	snprintf(prefix, sizeof(prefix), "bench=pipeline variant=p%" PRIu32,
		 v->parallelism);
	for (uint64_t r = 0; r < o->reps; r++)
		copy[r] = v->ckpt_mrec[r] / v->mrec[r];
	s = wm_stats_summarize(copy, o->reps);
	wm_stats_print_ratio(stdout, prefix, "checkpointed_over_unchecked",
			     s.median);
	/* The repetitions' extremes beside the median say how much of the
	 * loss this machine can resolve at all. */
	loss = (1 - s.median) * 100;
	printf("%s metric=checkpoint_loss_pct value=%.2f min=%.2f max=%.2f "
	       "target_below=%.0f met=%s\n",
	       prefix, loss, (1 - s.max) * 100, (1 - s.min) * 100,
	       CKPT_TARGET_LOSS_PCT,
	       loss < CKPT_TARGET_LOSS_PCT ? "yes" : "no");
}

void
wm_pipeline_print(const struct pipeline_options *o, const double *loop_mrec,
		  struct variant *v, size_t nv, const struct keys_bench *kb)
{
	char prefix[96], suffix[96];
	double *copy = malloc(o->reps * sizeof(*copy));
	struct wm_stats s;

	if (copy == NULL)
		return;
	snprintf(suffix, sizeof(suffix), "reps=%" PRIu64 " records=%" PRIu64,
		 o->reps, o->records);
	print_samples("bench=pipeline impl=loop variant=p1", "mrec_per_s",
		      loop_mrec, copy, o->reps, suffix);
	for (size_t k = 0; k < nv; k++) {
		snprintf(prefix, sizeof(prefix),
			 "bench=pipeline impl=wmrun variant=p%" PRIu32,
			 v[k].parallelism);
		print_samples(prefix, "mrec_per_s", v[k].mrec, copy, o->reps,
			      suffix);
		printf("%s metric=shm_bytes value=%" PRIu64 "\n", prefix,
		       v[k].shm_bytes);
		s = wm_stats_summarize(v[k].rss, v[k].n_rss);
		wm_stats_print(stdout, prefix, "rss_kib_per_subtask", &s, NULL);
		snprintf(prefix, sizeof(prefix),
			 "bench=pipeline variant=p%" PRIu32, v[k].parallelism);
		print_median_ratio(prefix, "wmrun_over_loop", v[k].mrec,
				   loop_mrec, copy, o->reps);
		if (o->checkpoint_ms > 0)
			ckpt_print(o, &v[k], copy, suffix);
		if (!o->sampled)
			continue;
		snprintf(prefix, sizeof(prefix),
			 "bench=pipeline impl=wmrun-sampled variant=p%" PRIu32,
			 v[k].parallelism);
		print_samples(prefix, "mrec_per_s", v[k].sampled_mrec, copy,
			      o->reps, suffix);
		printf("%s metric=scrapes value=%" PRIu64 "\n", prefix,
		       v[k].scrapes);
		snprintf(prefix, sizeof(prefix),
			 "bench=pipeline variant=p%" PRIu32, v[k].parallelism);
		print_median_ratio(prefix, "sampled_over_unsampled",
				   v[k].sampled_mrec, v[k].mrec, copy, o->reps);
	}
	if (o->keys)
		keys_print(o, kb, v, nv, copy, suffix);
	if (o->flink)
		peer_print(o, kb, v, nv, copy, suffix);
	fflush(stdout);
	free(copy);
}
