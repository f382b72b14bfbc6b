/*
 * wmbench.h
 *	What the wmbench front end offers its benchmarks, and the benchmarks'
 *	entry points (one per subcommand).
 */
#ifndef WM_BENCH_WMBENCH_H
#define WM_BENCH_WMBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Print "wmbench: <message>" and a pointer to --help of `command` (or of
 * wmbench if NULL); returns EX_USAGE for the caller to return. */
int wm_bench_usage_error(const char *command, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Parse a decimal count in [min, max]: no sign, blanks, junk or overflow. */
bool wm_bench_parse_count(const char *text, uint64_t min, uint64_t max,
			  uint64_t *value);

/* Append a comma-separated list of such counts (each <= UINT32_MAX) to
 * values[*n], at most `cap` in all; false for an empty item, a bad count
 * or too many (values[] then holds those before it). */
bool wm_bench_parse_count_list(const char *text, uint64_t min, uint64_t max,
			       uint32_t *values, size_t cap, size_t *n);

/* After getopt_long() (opterr = 0, optstring starting "+:") returned ':'
 * or '?' as `opt`: print the refused option as the user wrote it, for
 * `command`, and return EX_USAGE. */
int wm_bench_option_error(const char *command, int opt, char **argv);

/* Benchmarks: argv[0] is the benchmark's name; return an exit status. */
int wm_bench_ring(int argc, char **argv);
int wm_bench_valve(int argc, char **argv);
int wm_bench_pipeline(int argc, char **argv);
int wm_bench_stages(int argc, char **argv);
int wm_bench_fields(int argc, char **argv);
int wm_bench_writers(int argc, char **argv);
int wm_bench_nexmark(int argc, char **argv);

#endif /* WM_BENCH_WMBENCH_H */
