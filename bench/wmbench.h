/*
 * wmbench.h
 *	What the wmbench front end offers its benchmarks, and the benchmarks'
 *	entry points (one per subcommand).
 */
#ifndef WM_BENCH_WMBENCH_H
#define WM_BENCH_WMBENCH_H

#include <stdbool.h>
#include <stdint.h>

/* Print "wmbench: <message>" and a pointer to --help of `command` (or of
 * wmbench if NULL); returns EX_USAGE for the caller to return. */
int wm_bench_usage_error(const char *command, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Parse a decimal count in [min, max]: no sign, blanks, junk or overflow. */
bool wm_bench_parse_count(const char *text, uint64_t min, uint64_t max,
			  uint64_t *value);

/* Benchmarks: argv[0] is the benchmark's name; return an exit status. */
int wm_bench_ring(int argc, char **argv);
int wm_bench_valve(int argc, char **argv);

#endif /* WM_BENCH_WMBENCH_H */
