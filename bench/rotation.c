/*
 * rotation.c
 *	Variants run repetition by repetition, beside the first
 *	(rotation.h).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>

#include "base/log.h"
#include "bench/rotation.h"
#include "bench/stats.h"
#include "bench/wmbench.h"

/* The figures by variant, then by repetition: fig[v * reps + r]. */
static void
report(const struct wm_bench_rotation *rot, uint64_t reps, double *fig,
       double *ratio)
{
	for (size_t v = 0; v < rot->n; v++) {
		char prefix[128];
		struct wm_stats s = wm_stats_summarize(&fig[v * reps], reps);
		struct wm_stats q = wm_stats_summarize(&ratio[v * reps], reps);

		snprintf(prefix, sizeof(prefix), "bench=%s %s=%s", rot->bench,
			 rot->key, rot->names[v]);
		wm_stats_print(stdout, prefix, rot->metric, &s, NULL);
		if (rot->medians != NULL)
			rot->medians[v] = s.median;
		if (v > 0)
			wm_stats_print_ratio(stdout, prefix, rot->over,
					     q.median);
	}
}

int
wm_bench_rotate(const struct wm_bench_rotation *rot, uint64_t reps)
{
	size_t n = rot->n;
	double *fig = calloc(n * reps, sizeof(*fig));
	double *ratio = calloc(n * reps, sizeof(*ratio));
	int rc = 0;

	if (fig == NULL || ratio == NULL) {
		wm_log("wmbench: out of memory");
		rc = EX_OSERR;
		goto out;
	}
	for (uint64_t r = 0; r < reps; r++) {
		for (size_t i = 0; i < n; i++) {
			size_t v = (i + r) % n;
			double x = rot->run(v, rot->ctx);

			if (x < 0) {
				rc = EX_SOFTWARE;
				goto out;
			}
			fig[v * reps + r] = x;
		}
		for (size_t v = 0; v < n; v++)
			ratio[v * reps + r] = fig[v * reps + r] / fig[r];
	}
	report(rot, reps, fig, ratio);
out:
	free(fig);
	free(ratio);
	return rc;
}

int
wm_bench_rotation_options(const struct wm_bench_rotation *rot, int argc,
			  char **argv, const char *unit, uint64_t min,
			  uint64_t *count, uint64_t *reps,
			  void (*help)(FILE *out))
{
	char units[32];
	struct option longopts[] = {
		{units, required_argument, NULL, 'n'},
		{"reps", required_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int opt;

	snprintf(units, sizeof(units), "%ss", unit);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:n:r:h", longopts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'n':
			if (!wm_bench_parse_count(optarg, min, UINT64_MAX / 2,
						  count))
				return wm_bench_usage_error(
					rot->bench, "invalid %s count \"%s\"",
					unit, optarg);
			break;
		case 'r':
			if (!wm_bench_parse_count(optarg, 1, 1000, reps))
				return wm_bench_usage_error(
					rot->bench,
					"invalid repetition count \"%s\"",
					optarg);
			break;
		case 'h':
			help(stdout);
			return 0;
		default:
			return wm_bench_option_error(rot->bench, opt, argv);
		}
	}
	if (optind < argc)
		return wm_bench_usage_error(
			rot->bench, "unexpected argument \"%s\"", argv[optind]);
	return -1;
}
