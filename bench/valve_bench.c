/*
 * valve_bench.c
 *	wmbench valve: watermark updates per second through the heap valve
 *	(operators/valve.c) beside the linear-scan valve (bench/valve_scan.c),
 *	measured in the same run, for 1 to 4096 channels.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "bench/rng.h"
#include "bench/stats.h"
#include "bench/valve_scan.h"
#include "bench/wmbench.h"
#include "operators/behaviour.h"
#include "operators/valve.h"
#include "base/log.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

#define VALVE_DEFAULT_REPS 5
#define VALVE_MAX_CHANNELS 65536u
#define VALVE_MAX_LIST 64
/* Updates generated per channel count; longer runs replay them on fresh
 * valves. 16 bytes each: 16 MiB. */
#define VALVE_SEQUENCE_CAP (1u << 20)
#define VALVE_DEFAULT_TARGET_MS 100
/* Calibration stops once a trial takes this long. */
#define VALVE_CALIBRATE_NS 20000000u

static const uint32_t valve_default_channels[] = {1, 16, 256, 4096};

struct valve_update {
	wm_ts_t watermark;
	uint32_t channel;
};

/* The no-op output: counts emissions so the two valves can be checked to
 * have done the same thing, which costs one increment per emission. */
struct count_output {
	struct wm_output out;
	uint64_t watermarks;
};

static void
count_watermark(struct wm_output *out, wm_ts_t watermark)
{
	(void)watermark;
	wm_container_of(out, struct count_output, out)->watermarks++;
}

static void
count_status(struct wm_output *out, enum wm_status status)
{
	(void)out;
	(void)status;
}

/*
 * Rounds of updates: in each round every channel receives one watermark,
 * channels in a fresh random order, each channel's watermark rising by 1 to
 * 16. Every update is accepted, and the minimum moves about once a round,
 * as it does when partitions progress at similar rates.
 */
static int
valve_generate(struct valve_update *seq, size_t len, uint32_t channels,
	       uint64_t seed)
{
	uint32_t *order = malloc(sizeof(*order) * channels);
	wm_ts_t *next = malloc(sizeof(*next) * channels);
	struct wm_rng r;
	size_t i = 0;

	if (order == NULL || next == NULL) {
		free(order);
		free(next);
		return -ENOMEM;
	}
	wm_rng_seed(&r, seed ^ channels);
	for (uint32_t c = 0; c < channels; c++) {
		order[c] = c;
		next[c] = wm_rng_below(&r, 1024);
	}
	while (i < len) {
		for (uint32_t k = channels; k > 1; k--) {
			uint32_t j = wm_rng_below(&r, k);
			uint32_t t = order[k - 1];

			order[k - 1] = order[j];
			order[j] = t;
		}
		for (uint32_t k = 0; k < channels && i < len; k++, i++) {
			uint32_t c = order[k];

			next[c] += 1 + wm_rng_below(&r, 16);
			seq[i].channel = c;
			seq[i].watermark = next[c];
		}
	}
	free(order);
	free(next);
	return 0;
}

enum valve_impl { VALVE_HEAP, VALVE_SCAN };

static const char *const valve_impl_name[] = {"heap", "scan"};

/*
 * The timed loops: one call per update and nothing else, so that at one
 * channel the harness does not hide the valve's own cost.
 */
static uint64_t
valve_feed_heap(struct wm_valve *v, const struct valve_update *seq, size_t len,
		struct wm_output *out)
{
	uint64_t start = wm_stats_now_ns();

	for (size_t i = 0; i < len; i++)
		wm_valve_input_watermark(v, seq[i].channel, seq[i].watermark,
					 out);
	return wm_stats_now_ns() - start;
}

static uint64_t
valve_feed_scan(struct wm_valve_scan *v, const struct valve_update *seq,
		size_t len, struct wm_output *out)
{
	uint64_t start = wm_stats_now_ns();

	for (size_t i = 0; i < len; i++)
		wm_valve_scan_input_watermark(v, seq[i].channel,
					      seq[i].watermark, out);
	return wm_stats_now_ns() - start;
}

/*
 * Feed seq[0..len) `passes` times, each pass into a fresh valve (channel
 * watermarks only rise, so a sequence cannot be replayed into the same
 * valve). Only the feeding is timed. Returns the total time in ns, or 0
 * if a valve could not be allocated; *emitted counts output watermarks.
 */
static uint64_t
valve_run(enum valve_impl impl, uint32_t channels,
	  const struct valve_update *seq, size_t len, uint64_t passes,
	  uint64_t *emitted)
{
	struct count_output co = {{count_watermark, count_status}, 0};
	uint64_t total = 0;

	for (uint64_t p = 0; p < passes; p++) {
		if (impl == VALVE_HEAP) {
			struct wm_valve *v =
				wm_valve_new(channels, WM_BEHAVIOUR_RELEASED);

			if (v == NULL)
				return 0;
			total += valve_feed_heap(v, seq, len, &co.out);
			wm_valve_free(v);
		} else {
			struct wm_valve_scan *v = wm_valve_scan_new(
				channels, WM_BEHAVIOUR_RELEASED);

			if (v == NULL)
				return 0;
			total += valve_feed_scan(v, seq, len, &co.out);
			wm_valve_scan_free(v);
		}
	}
	*emitted = co.watermarks;
	/* A run too fast for the clock still counts as having taken time. */
	return total > 0 ? total : 1;
}

/* How many updates one repetition feeds: `len` updates `passes` times. */
struct valve_plan {
	size_t len;
	uint64_t passes;
};

/*
 * Size one repetition of `impl` to take about target_ns: time growing
 * prefixes until one takes VALVE_CALIBRATE_NS (this also warms caches and
 * the branch predictors), then extrapolate. The sequence holds `have`
 * updates; longer repetitions replay it.
 */
static int
valve_calibrate(enum valve_impl impl, uint32_t channels,
		const struct valve_update *seq, size_t have, uint64_t target_ns,
		struct valve_plan *plan)
{
	size_t n = have < 1024 ? have : 1024;
	uint64_t ns, emitted;
	double want;

	for (;;) {
		ns = valve_run(impl, channels, seq, n, 1, &emitted);
		if (ns == 0)
			return -ENOMEM;
		if (ns >= VALVE_CALIBRATE_NS || n == have)
			break;
		n = n * 2 < have ? n * 2 : have;
	}
	want = (double)n * (double)target_ns / (double)ns;
	if (want < (double)n)
		want = (double)n;
	if (want <= (double)have) {
		plan->len = (size_t)want;
		plan->passes = 1;
	} else {
		plan->len = have;
		plan->passes = (uint64_t)(want / (double)have + 0.5);
	}
	return 0;
}

struct valve_options {
	uint32_t channels[VALVE_MAX_LIST];
	size_t n_channels;
	uint64_t reps;
	uint64_t updates; /* 0: calibrate to target_ms */
	uint64_t target_ms;
	uint64_t seed;
};

/* Size each implementation's repetition into plan[impl]: calibrated to
 * --target-ms, or --updates in whole passes of the `have` updates of seq.
 * 0 or -ENOMEM. */
static int
valve_size(const struct valve_options *o, uint32_t channels,
	   const struct valve_update *seq, size_t have,
	   struct valve_plan plan[2])
{
	for (int impl = 0; impl < 2; impl++) {
		if (o->updates == 0) {
			if (valve_calibrate((enum valve_impl)impl, channels,
					    seq, have, o->target_ms * 1000000u,
					    &plan[impl]) != 0)
				return -ENOMEM;
		} else {
			/* At least `updates`, in whole passes. */
			plan[impl].len = have;
			plan[impl].passes = o->updates / have;
			if (o->updates % have != 0)
				plan[impl].passes++;
		}
	}
	return 0;
}

/* Untimed check that both valves do the same work: the same prefix must
 * make them emit the same number of watermarks. 0, -ENOMEM, or
 * EX_SOFTWARE after a message. */
static int
valve_agree(uint32_t channels, const struct valve_update *seq,
	    const struct valve_plan plan[2])
{
	size_t check_len =
		plan[0].len < plan[1].len ? plan[0].len : plan[1].len;
	uint64_t emitted[2];

	for (int impl = 0; impl < 2; impl++)
		if (valve_run((enum valve_impl)impl, channels, seq, check_len,
			      1, &emitted[impl]) == 0)
			return -ENOMEM;
	if (emitted[0] == emitted[1])
		return 0;
	wm_log("%s: heap and scan valves disagree at %" PRIu32
	       " channels: %" PRIu64 " and %" PRIu64 " watermarks emitted",
	       "wmbench", channels, emitted[0], emitted[1]);
	return EX_SOFTWARE;
}

/* The timed repetitions: rate[impl][r] in millions of updates per second
 * and ratio[r], heap over scan, for r < o->reps. 0 or -ENOMEM. */
static int
valve_repeat(const struct valve_options *o, uint32_t channels,
	     const struct valve_update *seq, const struct valve_plan plan[2],
	     double *const rate[2], double *ratio)
{
	uint64_t emitted;

	for (uint64_t r = 0; r < o->reps; r++) {
		/* Alternate which implementation goes first so that drifting
		 * machine conditions hit both alike. */
		for (int k = 0; k < 2; k++) {
			int impl = (int)((k + r) % 2);
			const struct valve_plan *p = &plan[impl];
			uint64_t ns =
				valve_run((enum valve_impl)impl, channels, seq,
					  p->len, p->passes, &emitted);

			if (ns == 0)
				return -ENOMEM;
			rate[impl][r] = (double)p->len * (double)p->passes /
					((double)ns / 1e9) / 1e6;
		}
		/* Paired per repetition: both ran back to back. */
		ratio[r] = rate[VALVE_HEAP][r] / rate[VALVE_SCAN][r];
	}
	return 0;
}

/* The three lines of one channel count: each rate, then the ratio
 * (summarizing sorts the samples in place). */
static void
valve_print(uint32_t channels, uint64_t reps, double *const rate[2],
	    double *ratio)
{
	char prefix[128];

	for (int impl = 0; impl < 2; impl++) {
		struct wm_stats s = wm_stats_summarize(rate[impl], reps);

		snprintf(prefix, sizeof(prefix),
			 "bench=valve channels=%" PRIu32 " impl=%s", channels,
			 valve_impl_name[impl]);
		wm_stats_print(stdout, prefix, "mupd_per_s", &s, NULL);
	}
	snprintf(prefix, sizeof(prefix), "bench=valve channels=%" PRIu32,
		 channels);
	wm_stats_print_ratio(stdout, prefix, "heap_over_scan",
			     wm_stats_summarize(ratio, reps).median);
	fflush(stdout);
}

/* Measure one channel count and print its three lines. 0, or the exit
 * status after a message. */
static int
valve_measure(const struct valve_options *o, uint32_t channels)
{
	size_t have = o->updates ? (o->updates < VALVE_SEQUENCE_CAP
					    ? (size_t)o->updates
					    : VALVE_SEQUENCE_CAP)
				 : VALVE_SEQUENCE_CAP;
	struct valve_update *seq = malloc(sizeof(*seq) * have);
	double *rate[2], *ratio;
	struct valve_plan plan[2];
	int rc = -ENOMEM;

	rate[0] = calloc(o->reps, sizeof(double));
	rate[1] = calloc(o->reps, sizeof(double));
	ratio = calloc(o->reps, sizeof(double));
	if (seq != NULL && rate[0] != NULL && rate[1] != NULL &&
	    ratio != NULL && valve_generate(seq, have, channels, o->seed) == 0)
		rc = valve_size(o, channels, seq, have, plan);
	if (rc == 0)
		rc = valve_agree(channels, seq, plan);
	if (rc == 0)
		rc = valve_repeat(o, channels, seq, plan, rate, ratio);
	if (rc == 0)
		valve_print(channels, o->reps, rate, ratio);
	if (rc == -ENOMEM) {
		wm_log("%s: could not allocate memory for %" PRIu32 " channels",
		       "wmbench", channels);
		rc = EX_OSERR;
	}
	free(seq);
	free(rate[0]);
	free(rate[1]);
	free(ratio);
	return rc;
}

static void
valve_help(FILE *out)
{
	fprintf(out,
		"Usage: %s valve [OPTION]...\n"
		"Compare the heap valve (operators/valve.c) with a linear-scan "
		"valve\n"
		"(bench/valve_scan.c) on the same pre-generated watermark "
		"updates.\n"
		"\n"
		"  -c, --channels N[,N...]  channel counts, 1 to %u "
		"(repeatable;\n"
		"                           default 1,16,256,4096)\n"
		"  -r, --reps R             repetitions per implementation "
		"(default %d)\n"
		"  -u, --updates U          updates per repetition (default: "
		"sized to\n"
		"                           take --target-ms each)\n"
		"  -t, --target-ms MS       time per repetition when sizing "
		"(default %d)\n"
		"  -s, --seed S             seed of the update sequence "
		"(default 1)\n"
		"  -h, --help               show this help\n"
		"\n"
		"Prints, per channel count N:\n"
		"  bench=valve channels=N impl=heap|scan metric=mupd_per_s "
		"median=X min=Y max=Z\n"
		"  bench=valve channels=N metric=heap_over_scan ratio=X\n"
		"(millions of updates per second; the ratio is the median of "
		"the\n"
		"per-repetition ratios, heap and scan running back to back).\n",
		"wmbench", VALVE_MAX_CHANNELS, VALVE_DEFAULT_REPS,
		VALVE_DEFAULT_TARGET_MS);
}

/* argv into *o (defaults first; the default channel counts if none is
 * given). -1 to go on, or the exit status once --help has been answered or
 * a bad command line refused. */
static int
valve_options(int argc, char **argv, struct valve_options *o)
{
	static const struct option longopts[] = {
		{"channels", required_argument, NULL, 'c'},
		{"reps", required_argument, NULL, 'r'},
		{"updates", required_argument, NULL, 'u'},
		{"target-ms", required_argument, NULL, 't'},
		{"seed", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int opt;

	*o = (struct valve_options){
		.reps = VALVE_DEFAULT_REPS,
		.target_ms = VALVE_DEFAULT_TARGET_MS,
		.seed = 1,
	};
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:c:r:u:t:s:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'c':
			if (!wm_bench_parse_count_list(
				    optarg, 1, VALVE_MAX_CHANNELS, o->channels,
				    VALVE_MAX_LIST, &o->n_channels))
				return wm_bench_usage_error(
					"valve",
					"invalid channel count list \"%s\"",
					optarg);
			break;
		case 'r':
			if (!wm_bench_parse_count(optarg, 1, 10000, &o->reps))
				return wm_bench_usage_error(
					"valve",
					"invalid repetition count "
					"\"%s\"",
					optarg);
			break;
		case 'u':
			if (!wm_bench_parse_count(optarg, 1, UINT64_MAX / 2,
						  &o->updates))
				return wm_bench_usage_error(
					"valve", "invalid update count \"%s\"",
					optarg);
			break;
		case 't':
			if (!wm_bench_parse_count(optarg, 1, 3600000,
						  &o->target_ms))
				return wm_bench_usage_error(
					"valve", "invalid target time \"%s\"",
					optarg);
			break;
		case 's':
			if (!wm_bench_parse_count(optarg, 0, UINT64_MAX,
						  &o->seed))
				return wm_bench_usage_error(
					"valve", "invalid seed \"%s\"", optarg);
			break;
		case 'h':
			valve_help(stdout);
			return 0;
		default:
			return wm_bench_option_error("valve", opt, argv);
		}
	}
	if (optind < argc)
		return wm_bench_usage_error(
			"valve", "unexpected argument \"%s\"", argv[optind]);
	if (o->n_channels == 0) {
		for (size_t i = 0; i < N_ELEMS(valve_default_channels); i++)
			o->channels[i] = valve_default_channels[i];
		o->n_channels = N_ELEMS(valve_default_channels);
	}
	return -1;
}

int
wm_bench_valve(int argc, char **argv)
{
	struct valve_options o;
	int rc = valve_options(argc, argv, &o);

	if (rc >= 0)
		return rc;
	for (size_t i = 0; i < o.n_channels; i++) {
		rc = valve_measure(&o, o.channels[i]);
		if (rc != 0)
			return rc;
	}
	return 0;
}
