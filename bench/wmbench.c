/*
 * wmbench.c
 *	The wmbench front end: "wmbench <benchmark> [options]".
 *
 * Each benchmark is one entry of commands[] below: a name, a function
 * taking the benchmark's own argc/argv (argv[0] is the benchmark name), and
 * one line of help. Later benchmarks (ring, pipeline) add an entry; nothing
 * else here changes. Results go to stdout as key=value lines (bench/stats.h);
 * diagnostics go to stderr. Exit codes: 0 success, 64 (EX_USAGE) bad
 * command line, 69 (EX_UNAVAILABLE) a peer to compare with cannot run
 * (wmbench pipeline --peer flink without java or mvn), 70 (EX_SOFTWARE)
 * the two implementations disagreed,
 * 71 (EX_OSERR) memory could not be allocated.
 *
 * Targets are ratios measured in one run (doc/performance.md), so each
 * benchmark runs the implementations it compares in the same process,
 * repetition by repetition, alternating which goes first.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "bench/wmbench.h"
#include "base/log.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static const char *progname = "wmbench";

int
wm_bench_usage_error(const char *command, const char *fmt, ...)
{
	va_list ap;

	/* The message echoes arguments: escaped (log.h). */
	va_start(ap, fmt);
	wm_vlog("wmbench: ", fmt, ap);
	va_end(ap);
	wm_log("Try \"%s%s%s --help\" for more information.", progname,
	       command ? " " : "", command ? command : "");
	return EX_USAGE;
}

/* strtoull alone would accept "-1" and " 7". */
bool
wm_bench_parse_count(const char *text, uint64_t min, uint64_t max,
		     uint64_t *value)
{
	char *end;
	unsigned long long v;

	if (text[0] < '0' || text[0] > '9')
		return false;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return false;
	*value = v;
	return true;
}

bool
wm_bench_parse_count_list(const char *text, uint64_t min, uint64_t max,
			  uint32_t *values, size_t cap, size_t *n)
{
	char buf[256];
	char *save = NULL;

	if (strlen(text) >= sizeof(buf))
		return false;
	strcpy(buf, text);
	/* strtok_r would skip empty items: refuse them here. */
	if (buf[0] == '\0' || buf[0] == ',' || buf[strlen(buf) - 1] == ',' ||
	    strstr(buf, ",,") != NULL)
		return false;
	for (char *tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (*n == cap || !wm_bench_parse_count(tok, min, max, &v))
			return false;
		values[(*n)++] = (uint32_t)v;
	}
	return true;
}

int
wm_bench_option_error(const char *command, int opt, char **argv)
{
	/* The word as the user wrote it for a long option ("--reps"), else
	 * "-x" from optopt (the word may group several short options). */
	const char *word = argv[optind - 1];
	char name[3];

	if (strncmp(word, "--", 2) != 0 && optopt != 0) {
		snprintf(name, sizeof(name), "-%c", optopt);
		word = name;
	}
	if (opt == ':')
		return wm_bench_usage_error(
			command, "option \"%s\" requires an argument", word);
	return wm_bench_usage_error(command, "unrecognized option \"%s\"",
				    word);
}

/* ------------------------------------------------------------------ */
/* Front end */

struct wmbench_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
};

static const struct wmbench_command commands[] = {
	{"ring", wm_bench_ring,
	 "shared-memory rings between processes: throughput, round trip, "
	 "waiting"},
	{"valve", wm_bench_valve,
	 "heap valve against a linear-scan valve, 1 to 4096 channels"},
	{"pipeline", wm_bench_pipeline,
	 "source -> keyBy -> window -> sink as processes, beside one "
	 "thread"},
	{"stages", wm_bench_stages,
	 "what punctuation, heartbeats and processing-time windows cost "
	 "a record"},
	{"fields", wm_bench_fields,
	 "a record's fields read from a line of JSON, beside CSV"},
	{"writers", wm_bench_writers,
	 "a line of JSON written: a sink's result line by hand and by "
	 "jansson, a --metrics line"},
	{"nexmark", wm_bench_nexmark,
	 "Nexmark queries on wmrun and on Flink, same events, results "
	 "checked equal"},
};

static void
help(FILE *out)
{
	fprintf(out,
		"Usage: %s BENCHMARK [OPTION]...\n"
		"       %s BENCHMARK --help\n"
		"       %s --version\n"
		"Run one wmrun benchmark; results are key=value lines on "
		"stdout.\n"
		"\n"
		"Benchmarks:\n",
		progname, progname, progname);
	for (size_t i = 0; i < N_ELEMS(commands); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name,
			commands[i].help);
	fprintf(out,
		"\nExit status: 0 success, %d bad command line, "
		"%d a peer is unavailable,\n%d implementations disagree, "
		"%d out of memory.\n",
		EX_USAGE, EX_UNAVAILABLE, EX_SOFTWARE, EX_OSERR);
}

int
main(int argc, char **argv)
{
	if (argc < 2)
		return wm_bench_usage_error(NULL, "missing benchmark name");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		help(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("%s (%s) %s\n", progname, PACKAGE_NAME, PACKAGE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < N_ELEMS(commands); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	return wm_bench_usage_error(NULL, "unrecognized benchmark \"%s\"",
				    argv[1]);
}
