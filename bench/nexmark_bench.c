/*
 * nexmark_bench.c
 *	wmbench nexmark: the Nexmark queries wmrun runs from
 *	examples/nexmark/, on wmrun and on Apache Flink 2.3.0 over the same
 *	events, in turns, results checked equal before any figure.
 *
 * The events are the stream the query's topology describes with
 * `nexmark.events` set to --events, recorded once as the benchmark's JSON
 * lines (`wmrun --record-nexmark`). Flink runs the benchmark's own SQL on
 * them (flink/peer's NexmarkQueries, one MiniCluster, the query at one
 * parallelism P, the recording dealt by source partition into P files so
 * that P readers parse it, as they would P Kafka partitions); wmrun runs the example itself, its processing time at
 * speed 10^9 so that every event is due at once and the source emits as
 * fast as the job takes them. For each query and parallelism:
 *
 * 1. a run of each, whose rows must be equal (sorted; the query's own
 *    columns: for q11 bidder, bid_count, starttime, endtime), else
 *    nothing is printed and the exit status is 70;
 * 2. --reps repetitions of both in turns (bench/rotation.h), each run's
 *    rows again equal to the first's, and the events a second each
 *    managed, Flink's the reference:
 *
 *	bench=nexmark query=q11 parallelism=2 runtime=flink
 *	    metric=events_per_s median=... min=... max=...
 *	bench=nexmark query=q11 parallelism=2 runtime=wmrun ... ratio=...
 *
 *    and then each runtime's median over the machine's online cores:
 *	bench=nexmark query=q11 parallelism=2 runtime=wmrun
 *	    metric=events_per_s_per_core value=...
 *
 * What a run's time is. wmrun's: from its start to its exit, a process
 * of its own (reading the topology, starting its workers, the job, the
 * summary). Flink's: NexmarkQueries' wall_ms, from submitting the query
 * to its last row reaching the client, on a MiniCluster already up (the
 * JVM's start and the cluster's are outside it, as for a benchmark
 * submitting to a standing cluster); the rows are collected by the
 * client, not thrown away as the benchmark's blackhole sink does, which
 * costs Flink a little on queries of many rows (doc/performance.md
 * section 11).
 *
 * Queries so far: q0, q1, q2 (maps) and q11 (the queries whose stages
 * wmrun has); --queries picks some. q12 is
 * compared by the tests, not timed here: its windows are processing
 * time, which at wmrun's benchmark speed would be nanoseconds of the
 * wall clock, not the workload Flink's clock gives it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "base/countof.h"
#include "base/log.h"
#include "bench/flink_peer.h"
#include "bench/rotation.h"
#include "bench/wmbench.h"

#define NEXMARK_DEFAULT_EVENTS 10000000u
#define NEXMARK_DEFAULT_REPS 3u
#define NEXMARK_MAX_PARALLELISM 8u

/* A query this benchmark times: its example, and how wmrun's result
 * columns give the query's row. */
struct nexmark_query {
	const char *name;
	/* wmrun's sink columns, in the order of the query's SELECT; NULL:
	 * its sink writes the SELECT's own (a map's rows), lines as
	 * Flink's. */
	const char *const *columns;
	size_t n_columns;
};

static const char *const q11_columns[] = {"key", "count", "window_start",
					  "window_end"};

static const struct nexmark_query queries[] = {
	{"q0", NULL, 0},
	{"q1", NULL, 0},
	{"q2", NULL, 0},
	{"q11", q11_columns, N_ELEMS(q11_columns)},
};

/* Sorted lines of a query's rows, for comparing two runs. */
struct rows {
	char **lines;
	size_t n;
};

/* The two runtimes, in the rotation's order: Flink's the reference. */
static const char *const runtimes[] = {"flink", "wmrun"};

struct nexmark_run {
	const struct nexmark_query *query;
	const char *examples; /* the directory of the queries' topologies */
	uint64_t events;
	uint32_t parallelism;
	char dir[PATH_MAX - 64]; /* the scratch directory (0700), with room
				 * for its files' names in a path */
	char *class_path;	 /* the peer's, for java -cp */
	struct rows expect;	 /* the first check's rows */
};

static void
nexmark_help(FILE *out)
{
	fprintf(out,
		"Usage: wmbench nexmark [--events N] [--reps R] "
		"[--parallelism P[,P...]] [--queries Q[,Q...]]\n"
		"The Nexmark queries of examples/nexmark/ on wmrun and on "
		"Flink 2.3.0 (the\n"
		"benchmark's SQL) over the same recorded events, in turns; "
		"the rows of both\n"
		"are checked equal first. Needs java and mvn (exit %d "
		"without).\n"
		"\n"
		"  --events N        events of the stream, all kinds (default "
		"%u)\n"
		"  --reps R          timed runs of each (default %u)\n"
		"  --parallelism P   of every stage, a list (default 1,2)\n"
		"  --examples DIR    the queries' topologies, qN.conf (default "
		"%s)\n"
		"  --queries Q[,Q...]  which (default q0,q1,q2,q11)\n",
		EX_UNAVAILABLE, NEXMARK_DEFAULT_EVENTS, NEXMARK_DEFAULT_REPS,
		WM_NEXMARK_EXAMPLES);
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * argv as a child, its standard output and error into the files `out`
 * and `err` (created, truncated), waited for: 0 when it exited 0 (its
 * wall time in *wall_ns), else -1 after a message naming `what`.
 */
static int
run_child(const char *what, const char *const argv[], const char *out,
	  const char *err, uint64_t *wall_ns)
{
	uint64_t began = now_ns();
	int status;
	pid_t pid;

	fflush(NULL);
	if ((pid = fork()) < 0) {
		wm_log("wmbench: nexmark: cannot start %s: %s", what,
		       strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int o = open(out,
			     O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
				     O_NOFOLLOW,
			     0644);
		int e = open(err,
			     O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
				     O_NOFOLLOW,
			     0644);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(EX_CANTCREAT);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	*wall_ns = now_ns() - began;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	wm_log("wmbench: nexmark: %s failed (%s %d; its messages: %s)", what,
	       WIFEXITED(status) ? "exit status" : "signal",
	       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), err);
	return -1;
}

static void
rows_free(struct rows *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->lines[i]);
	free(r->lines);
	r->lines = NULL;
	r->n = 0;
}

static int
compare_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The rows of a results file, sorted (LC_ALL=C's order): Flink's as they
 * are after the header (`columns` NULL), wmrun's as the named columns of
 * its sink's CSV, joined by commas. 0, or -1 after a message.
 */
static int
rows_read(const char *path, const char *const *columns, size_t n_columns,
	  struct rows *out)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *fields[64];
	size_t cap = 0, room = 0;
	int at[16];
	ssize_t len;
	bool header = true;

	*out = (struct rows){0};
	if (f == NULL) {
		wm_log("wmbench: nexmark: cannot read \"%s\": %s", path,
		       strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		size_t nf = 0;
		char *p = line, row[1024];
		int w = 0;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (columns == NULL) {
			if (!header)
				goto keep_line;
			header = false;
			continue;
		}
		/* wmrun's CSV: no column the query reads holds a comma. */
		while (nf < N_ELEMS(fields)) {
			fields[nf++] = p;
			if ((p = strchr(p, ',')) == NULL)
				break;
			*p++ = '\0';
		}
		if (header) {
			for (size_t c = 0; c < n_columns; c++) {
				at[c] = -1;
				for (size_t k = 0; k < nf; k++)
					if (strcmp(fields[k], columns[c]) == 0)
						at[c] = (int)k;
				if (at[c] < 0) {
					wm_log("wmbench: nexmark: \"%s\" has "
					       "no column %s",
					       path, columns[c]);
					goto fail;
				}
			}
			header = false;
			continue;
		}
		for (size_t c = 0; c < n_columns; c++) {
			if ((size_t)at[c] >= nf)
				goto fail;
			w += snprintf(row + w, sizeof(row) - (size_t)w, "%s%s",
				      c > 0 ? "," : "", fields[at[c]]);
			if ((size_t)w >= sizeof(row))
				goto fail;
		}
		strcpy(line, row);
	keep_line:
		if (out->n == room) {
			size_t more = room ? 2 * room : 1024;
			char **bigger =
				realloc(out->lines, more * sizeof(*bigger));

			if (bigger == NULL)
				goto fail;
			out->lines = bigger;
			room = more;
		}
		if ((out->lines[out->n] = strdup(line)) == NULL)
			goto fail;
		out->n++;
	}
	free(line);
	fclose(f);
	qsort(out->lines, out->n, sizeof(*out->lines), compare_lines);
	return 0;
fail:
	wm_log("wmbench: nexmark: cannot read the rows of \"%s\"", path);
	free(line);
	fclose(f);
	rows_free(out);
	return -1;
}

/* Whether `got` holds the rows of `want`; says where not. */
static bool
rows_equal(const struct rows *want, const struct rows *got, const char *who,
	   const char *query)
{
	size_t i = 0;

	while (i < want->n && i < got->n &&
	       strcmp(want->lines[i], got->lines[i]) == 0)
		i++;
	if (i == want->n && i == got->n)
		return true;
	wm_log("wmbench: nexmark: %s: %s's rows differ at row %zu of %zu "
	       "(sorted): \"%s\" where \"%s\" was expected",
	       query, who, i + 1, want->n, i < got->n ? got->lines[i] : "",
	       i < want->n ? want->lines[i] : "");
	return false;
}

/* wmrun's run of the query: its rows into *rows, its wall time. */
static int
wmrun_once(struct nexmark_run *run, struct rows *rows, uint64_t *wall_ns)
{
	char events[64], parallelism[64], out[PATH_MAX + 16];
	char conf[PATH_MAX], results[PATH_MAX], log[PATH_MAX];
	const char *argv[] = {
		WM_WMRUN_PATH, "--quiet",   "--set",
		events,	       "--set",	    "job.speed=1000000000",
		"--set",       parallelism, "--set",
		out,	       conf,	    NULL};

	snprintf(events, sizeof(events), "bids.nexmark.events=%" PRIu64,
		 run->events);
	snprintf(parallelism, sizeof(parallelism), "global.parallelism=%u",
		 run->parallelism);
	snprintf(results, sizeof(results), "%s/wmrun.csv", run->dir);
	snprintf(out, sizeof(out), "out.path=%s", results);
	snprintf(conf, sizeof(conf), "%s/%s.conf", run->examples,
		 run->query->name);
	snprintf(log, sizeof(log), "%s/wmrun.log", run->dir);
	if (run_child("wmrun", argv, "/dev/null", log, wall_ns) != 0)
		return -1;
	return rows_read(results, run->query->columns, run->query->n_columns,
			 rows);
}

/* Flink's run of the query: its rows, and NexmarkQueries' wall time. */
static int
flink_once(struct nexmark_run *run, struct rows *rows, uint64_t *wall_ns)
{
	char recording[PATH_MAX], parallelism[16], log[PATH_MAX];
	char results[PATH_MAX], want[64], line[512];
	const char *argv[] = {"java",		"-cp",
			      run->class_path,	"wmrun.peer.NexmarkQueries",
			      "--recording",	recording,
			      "--out",		run->dir,
			      "--parallelism",	parallelism,
			      run->query->name, NULL};
	uint64_t jvm_ns, wall_ms = UINT64_MAX;
	FILE *f;

	snprintf(recording, sizeof(recording), "%s/splits", run->dir);
	snprintf(parallelism, sizeof(parallelism), "%u", run->parallelism);
	snprintf(log, sizeof(log), "%s/flink.log", run->dir);
	snprintf(results, sizeof(results), "%s/%s.csv", run->dir,
		 run->query->name);
	if (run_child("Flink's NexmarkQueries", argv, "/dev/null", log,
		      &jvm_ns) != 0)
		return -1;
	/* "nexmark q11 p2: rows=N wall_ms=MS" */
	snprintf(want, sizeof(want), "nexmark %s p%u: ", run->query->name,
		 run->parallelism);
	if ((f = fopen(log, "r")) != NULL) {
		while (fgets(line, sizeof(line), f) != NULL) {
			const char *ms = strstr(line, " wall_ms=");

			if (strncmp(line, want, strlen(want)) == 0 &&
			    ms != NULL) {
				wall_ms = strtoull(ms + 9, NULL, 10);
				break;
			}
		}
		fclose(f);
	}
	if (wall_ms == UINT64_MAX) {
		wm_log("wmbench: nexmark: %s: no wall time in \"%s\"",
		       run->query->name, log);
		return -1;
	}
	*wall_ns = wall_ms * 1000000u;
	return rows_read(results, NULL, 0, rows);
}

/* One timed run of runtime v: its events a second, its rows checked. */
static double
nexmark_variant_run(size_t v, void *ctx)
{
	struct nexmark_run *run = ctx;
	struct rows rows;
	uint64_t wall_ns;
	int r = v == 0 ? flink_once(run, &rows, &wall_ns)
		       : wmrun_once(run, &rows, &wall_ns);
	bool same;

	if (r != 0)
		return -1;
	same = rows_equal(&run->expect, &rows, runtimes[v], run->query->name);
	rows_free(&rows);
	if (!same || wall_ns == 0)
		return -1;
	return (double)run->events * 1e9 / (double)wall_ns;
}

/* The stream of the query's example with run->events events, recorded
 * for Flink. */
static int
record_stream(const struct nexmark_run *run)
{
	char events[64], path[PATH_MAX], conf[PATH_MAX], log[PATH_MAX];
	const char *argv[] = {
		WM_WMRUN_PATH, "--record-nexmark", path, "--set", events, conf,
		NULL};
	uint64_t wall_ns;

	snprintf(events, sizeof(events), "bids.nexmark.events=%" PRIu64,
		 run->events);
	snprintf(path, sizeof(path), "%s/recording.json", run->dir);
	snprintf(conf, sizeof(conf), "%s/%s.conf", run->examples,
		 run->query->name);
	snprintf(log, sizeof(log), "%s/record.log", run->dir);
	return run_child("wmrun --record-nexmark", argv, "/dev/null", log,
			 &wall_ns);
}

/* The path of split k of the recording's splits (split_recording()). */
static void
split_path(const struct nexmark_run *run, uint32_t k, char *buf, size_t len)
{
	snprintf(buf, len, "%s/splits/part-%u.json", run->dir, k);
}

/* Removes the splits of a query's recording, and their directory. */
static void
remove_splits(const struct nexmark_run *run)
{
	char path[PATH_MAX + 32];

	for (uint32_t k = 0; k < NEXMARK_MAX_PARALLELISM; k++) {
		split_path(run, k, path, sizeof(path));
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/splits", run->dir);
	rmdir(path);
}

/* The source partition of a recording's line: its last member,
 * "partition":N (NexmarkQueries' contract); -1 if it has none. */
static long
line_partition(const char *line)
{
	const char *at = NULL, *p = line;
	char *end;
	long n;

	while ((p = strstr(p, "\"partition\":")) != NULL)
		at = p++;
	if (at == NULL)
		return -1;
	n = strtol(at + strlen("\"partition\":"), &end, 10);
	return end != at && *end == '}' && n >= 0 ? n : -1;
}

/*
 * The recording as run->parallelism files in DIR/splits, each event's
 * line in file number (its partition mod P), so that Flink's file source has a split
 * for each of its P readers and P readers parse the JSON, as P Kafka
 * partitions give P readers; otherwise the one file is one split and one
 * reader parses every event whatever the parallelism, which would bound
 * Flink's figure by a single reader. Each file keeps the recording's
 * order, ascending in event time. 0, or -1 said.
 */
static int
split_recording(const struct nexmark_run *run)
{
	char path[PATH_MAX + 32];
	FILE *in, *out[NEXMARK_MAX_PARALLELISM] = {NULL};
	char *line = NULL;
	size_t cap = 0;
	uint32_t p = run->parallelism;
	int rc = 0;

	remove_splits(run);
	snprintf(path, sizeof(path), "%s/splits", run->dir);
	if (mkdir(path, 0700) != 0) {
		wm_log("wmbench: nexmark: cannot make \"%s\": %s", path,
		       strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/recording.json", run->dir);
	if ((in = fopen(path, "r")) == NULL) {
		wm_log("wmbench: nexmark: cannot read \"%s\": %s", path,
		       strerror(errno));
		return -1;
	}
	for (uint32_t k = 0; k < p && rc == 0; k++) {
		split_path(run, k, path, sizeof(path));
		/* O_EXCL in a fresh 0700 directory: our own new file. */
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			      0600);

		if (fd < 0 || (out[k] = fdopen(fd, "w")) == NULL) {
			wm_log("wmbench: nexmark: cannot write \"%s\": %s",
			       path, strerror(errno));
			if (fd >= 0)
				close(fd);
			rc = -1;
		}
	}
	while (rc == 0 && getline(&line, &cap, in) > 0) {
		long part = line_partition(line);

		if (part < 0) {
			wm_log("wmbench: nexmark: a line of the recording has "
			       "no partition: \"%.80s\"",
			       line);
			rc = -1;
		} else if (fputs(line, out[(unsigned long)part % p]) == EOF) {
			wm_log("wmbench: nexmark: cannot write the splits: %s",
			       strerror(errno));
			rc = -1;
		}
	}
	if (rc == 0 && ferror(in))
		rc = -1;
	for (uint32_t k = 0; k < p; k++)
		if (out[k] != NULL && fclose(out[k]) != 0 && rc == 0) {
			wm_log("wmbench: nexmark: cannot write the splits: %s",
			       strerror(errno));
			rc = -1;
		}
	fclose(in);
	free(line);
	return rc;
}

/* Query q at parallelism p: the check, then the turns. */
static int
nexmark_query(struct nexmark_run *run, uint64_t reps)
{
	char bench[96];
	double medians[N_ELEMS(runtimes)];
	/* The rotation's lines start "bench=%s": the query and parallelism
	 * ride in it, so that each line says what it measured. */
	struct wm_bench_rotation rot = {
		.bench = bench,
		.key = "runtime",
		.names = runtimes,
		.n = N_ELEMS(runtimes),
		.metric = "events_per_s",
		.over = "over_flink",
		.run = nexmark_variant_run,
		.ctx = run,
		.medians = medians,
	};
	struct rows theirs;
	uint64_t wall_ns;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int rc;

	if (split_recording(run) != 0)
		return EX_SOFTWARE;
	if (flink_once(run, &run->expect, &wall_ns) != 0)
		return EX_SOFTWARE;
	if (wmrun_once(run, &theirs, &wall_ns) != 0) {
		rows_free(&run->expect);
		return EX_SOFTWARE;
	}
	if (run->expect.n == 0)
		wm_log("wmbench: nexmark: %s: no row to compare",
		       run->query->name);
	if (run->expect.n == 0 ||
	    !rows_equal(&run->expect, &theirs, "wmrun", run->query->name)) {
		rows_free(&theirs);
		rows_free(&run->expect);
		return EX_SOFTWARE;
	}
	rows_free(&theirs);
	snprintf(bench, sizeof(bench), "nexmark query=%s parallelism=%u",
		 run->query->name, run->parallelism);
	printf("bench=%s events=%" PRIu64 " rows=%zu equal=yes cores=%ld\n",
	       bench, run->events, run->expect.n, cores);
	rc = wm_bench_rotate(&rot, reps);
	for (size_t v = 0; rc == 0 && v < N_ELEMS(runtimes); v++)
		printf("bench=%s runtime=%s metric=events_per_s_per_core "
		       "value=%.0f\n",
		       bench, runtimes[v],
		       medians[v] / (double)(cores > 0 ? cores : 1));
	rows_free(&run->expect);
	return rc;
}

/* The scratch directory's files (each query's rows among them), then
 * itself. */
static void
remove_scratch(const struct nexmark_run *run)
{
	static const char *const files[] = {
		"recording.json", "record.log", "wmrun.csv",
		"wmrun.log",	  "flink.log",
	};
	char path[PATH_MAX + 32];

	for (size_t i = 0; i < N_ELEMS(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", run->dir, files[i]);
		unlink(path);
	}
	for (size_t q = 0; q < N_ELEMS(queries); q++) {
		snprintf(path, sizeof(path), "%s/%s.csv", run->dir,
			 queries[q].name);
		unlink(path);
	}
	remove_splits(run);
	rmdir(run->dir);
}

/* The queries a comma-separated list names, into chosen[] (by the
 * table's order): whether each name is one. */
static bool
choose_queries(const char *list, bool *chosen)
{
	const char *p = list;

	for (size_t q = 0; q < N_ELEMS(queries); q++)
		chosen[q] = false;
	for (;;) {
		size_t len = strcspn(p, ",");
		size_t q = 0;

		while (q < N_ELEMS(queries) &&
		       (strlen(queries[q].name) != len ||
			strncmp(queries[q].name, p, len) != 0))
			q++;
		if (q == N_ELEMS(queries))
			return false;
		chosen[q] = true;
		if (p[len] == '\0')
			return true;
		p += len + 1;
	}
}

int
wm_bench_nexmark(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"events", required_argument, NULL, 'e'},
		{"reps", required_argument, NULL, 'r'},
		{"parallelism", required_argument, NULL, 'p'},
		{"examples", required_argument, NULL, 'x'},
		{"queries", required_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint32_t ps[NEXMARK_MAX_PARALLELISM] = {1, 2};
	size_t n_ps = 2;
	uint64_t events = NEXMARK_DEFAULT_EVENTS, reps = NEXMARK_DEFAULT_REPS;
	struct nexmark_run run = {.examples = WM_NEXMARK_EXAMPLES};
	bool chosen[N_ELEMS(queries)];
	int opt, rc = 0;

	for (size_t q = 0; q < N_ELEMS(queries); q++)
		chosen[q] = true;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:e:r:p:x:q:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'e':
			if (!wm_bench_parse_count(optarg, 1000, UINT64_MAX / 2,
						  &events))
				return wm_bench_usage_error(
					"nexmark", "invalid event count \"%s\"",
					optarg);
			break;
		case 'r':
			if (!wm_bench_parse_count(optarg, 1, 1000, &reps))
				return wm_bench_usage_error(
					"nexmark",
					"invalid repetition count \"%s\"",
					optarg);
			break;
		case 'p':
			n_ps = 0;
			if (!wm_bench_parse_count_list(
				    optarg, 1, NEXMARK_MAX_PARALLELISM, ps,
				    NEXMARK_MAX_PARALLELISM, &n_ps))
				return wm_bench_usage_error(
					"nexmark",
					"invalid parallelism list \"%s\"",
					optarg);
			break;
		case 'x':
			run.examples = optarg;
			break;
		case 'q':
			if (!choose_queries(optarg, chosen))
				return wm_bench_usage_error(
					"nexmark",
					"invalid query list \"%s\" (the "
					"queries: q0, q1, q2, q11)",
					optarg);
			break;
		case 'h':
			nexmark_help(stdout);
			return 0;
		default:
			return wm_bench_option_error("nexmark", opt, argv);
		}
	}
	if (optind < argc)
		return wm_bench_usage_error(
			"nexmark", "unexpected argument \"%s\"", argv[optind]);
	if ((rc = wm_flink_peer_build()) != 0)
		return rc;
	if ((run.class_path = wm_flink_peer_class_path()) == NULL)
		return EX_SOFTWARE;
	/* Fresh, 0700: nothing in it is another user's to replace. */
	snprintf(run.dir, sizeof(run.dir), "%s/wmbench-nexmark.XXXXXX",
		 getenv("TMPDIR") != NULL && *getenv("TMPDIR") == '/'
			 ? getenv("TMPDIR")
			 : "/tmp");
	if (mkdtemp(run.dir) == NULL) {
		wm_log("wmbench: nexmark: cannot make a directory: %s",
		       strerror(errno));
		free(run.class_path);
		return EX_OSERR;
	}
	run.events = events;
	for (size_t q = 0; q < N_ELEMS(queries) && rc == 0; q++) {
		if (!chosen[q])
			continue;
		run.query = &queries[q];
		if (record_stream(&run) != 0) {
			rc = EX_SOFTWARE;
			break;
		}
		for (size_t i = 0; i < n_ps && rc == 0; i++) {
			run.parallelism = ps[i];
			rc = nexmark_query(&run, reps);
		}
	}
	remove_scratch(&run);
	free(run.class_path);
	return rc;
}
