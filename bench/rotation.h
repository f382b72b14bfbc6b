/*
 * rotation.h
 *	Variants of one benchmark run repetition by repetition, in an order
 *	that turns, each reported beside the first (the reference) of the
 *	same repetition.
 *
 * Targets are ratios measured in one run (doc/performance.md section 1):
 * a machine whose load changes during a run slows the variants of one
 * repetition alike, and turning the order keeps any one variant from
 * always running first (a cold cache) or last. wmbench stages and
 * wmbench fields run their variants through here.
 */
#ifndef WM_BENCH_ROTATION_H
#define WM_BENCH_ROTATION_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct wm_bench_rotation {
	const char *bench;	  /* "stages": bench=stages */
	const char *key;	  /* what a variant is: variant=V, form=F */
	const char *const *names; /* by variant; the first is the reference */
	size_t n;
	const char *metric; /* what run() measures: ns_per_record */
	const char *over;   /* the ratio's metric: over_tumbling */
	/* Variant v measured once: its figure, or below 0 if it failed
	 * (it said why). */
	double (*run)(size_t v, void *ctx);
	void *ctx;
	/* Where each variant's median goes when it is printed (n of them),
	 * for a caller that derives more figures from it; NULL: nowhere. */
	double *medians;
};

/*
 * reps repetitions of every variant, repetition r starting at variant r
 * mod n; then, by variant, "bench=B KEY=NAME metric=M median=X min=Y
 * max=Z" and, but for the first, "... metric=OVER ratio=X" (the median of
 * its ratios to the first in each repetition). 0, EX_SOFTWARE when a run
 * failed (nothing printed), EX_OSERR out of memory.
 */
int wm_bench_rotate(const struct wm_bench_rotation *rot, uint64_t reps);

/*
 * The options of such a benchmark, command rot->bench: --UNITs N (N at
 * least min into *count: "--records", "invalid record count"), --reps R
 * (1 to 1000 into *reps) and --help (help() on stdout). -1 when the
 * benchmark is to run; else the exit status to return (0 after --help,
 * EX_USAGE with a message).
 */
int wm_bench_rotation_options(const struct wm_bench_rotation *rot, int argc,
			      char **argv, const char *unit, uint64_t min,
			      uint64_t *count, uint64_t *reps,
			      void (*help)(FILE *out));

#endif /* WM_BENCH_ROTATION_H */
