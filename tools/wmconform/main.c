/*
 * conform_main.c
 *	wmconform: replay Flink conformance traces through wmrun's operators.
 *
 *   wmconform [--behaviour SETTING] [--quiet] FILE|DIR...
 *
 * SETTING starts from flink-2.1, the rules of the Flink the traces were
 * recorded from (operators/behaviour.h).
 * One line per trace, "PASS name" or "FAIL name line N: expected ... got
 * ...", then "N passed, M failed". A directory stands for every .valve and
 * .source file below it, in name order; a directory named without any is
 * an error (66). Exit status: 0 when every trace passed, 1 when one
 * differed, 65 (EX_DATAERR) when a trace is malformed, 66 (EX_NOINPUT) when
 * one cannot be read or a named directory holds none, 64 (EX_USAGE) for a
 * bad command line; the most serious wins.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>

#include "operators/behaviour.h"
#include "base/log.h"
#include "tools/wmconform/trace.h"

/* The traces were recorded from Flink 2.1's classes (doc/semantics.md
 * section 8.1), so they are replayed under 2.1's rules unless --behaviour
 * says otherwise; wmrun's own default is the newest release's. */
#define WM_CONFORM_DEFAULT WM_BEHAVIOUR_FLINK_2_1

struct tally {
	unsigned passed, failed;
	int status; /* exit status so far */
	bool quiet;
	unsigned behaviour;
	/* Directories walked so far: each once, whatever the symbolic
	 * links that lead to it again (a link to "." made the walk replay
	 * every trace 41 times, two such links for ever). */
	size_t n_dirs, cap_dirs;
	struct dir_id {
		dev_t dev;
		ino_t ino;
	} * dirs;
};

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: wmconform [--behaviour SETTING] [--quiet] FILE|DIR...\n"
		"\n"
		"Replay .valve and .source conformance traces (recorded from\n"
		"Apache Flink's own classes) through wmrun's operators.\n"
		"\n"
		"  -b, --behaviour SETTING  Flink rules: \"flink-2.1\" "
		"(default: the traces\n"
		"                           were recorded from Flink 2.1's "
		"classes),\n"
		"                           \"flink-2.3\" (= \"released\", "
		"wmrun's default),\n"
		"                           \"master\", or flags such as\n"
		"                           "
		"\"flink-2.1,VALVE_FLUSH_UNCONDITIONAL\"\n"
		"  -q, --quiet              print only failures and the total\n"
		"  -h, --help               this text\n"
		"      --version            the version of wmconform\n"
		"\n"
		"Exit status: 0 all passed, 1 a trace differed, 64 usage,\n"
		"65 malformed trace, 66 unreadable file.\n");
}

static void
raise_status(struct tally *t, int status)
{
	/* Most serious first: unreadable, malformed, differed. */
	static const int rank[] = {0, 1, EX_DATAERR, EX_NOINPUT};
	int have = 0, want = 0;

	for (int i = 0; i < 4; i++) {
		if (rank[i] == t->status)
			have = i;
		if (rank[i] == status)
			want = i;
	}
	if (want > have)
		t->status = status;
}

static void
replay_file(struct tally *t, const char *path)
{
	struct wm_trace_result r;
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	switch (wm_trace_replay(path, t->behaviour, &r)) {
	case WM_TRACE_PASS:
		t->passed++;
		if (!t->quiet)
			printf("PASS %s\n", name);
		return;
	case WM_TRACE_FAIL:
		raise_status(t, 1);
		break;
	case WM_TRACE_MALFORMED:
		raise_status(t, EX_DATAERR);
		break;
	case WM_TRACE_UNREADABLE:
		raise_status(t, EX_NOINPUT);
		break;
	}
	t->failed++;
	if (r.line > 0)
		printf("FAIL %s line %ld: %s\n", name, r.line, r.message);
	else
		printf("FAIL %s: %s\n", name, r.message);
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool
is_trace_name(const char *name)
{
	size_t n = strlen(name);

	return (n > 6 && strcmp(name + n - 6, ".valve") == 0) ||
	       (n > 7 && strcmp(name + n - 7, ".source") == 0);
}

static void replay_path(struct tally *t, const char *path, bool named,
			size_t *traces);

/* Whether the directory `st` was walked before; records it if not. */
static bool
walked(struct tally *t, const struct stat *st)
{
	for (size_t i = 0; i < t->n_dirs; i++)
		if (t->dirs[i].dev == st->st_dev &&
		    t->dirs[i].ino == st->st_ino)
			return true;
	if (t->n_dirs == t->cap_dirs) {
		t->cap_dirs = t->cap_dirs ? 2 * t->cap_dirs : 16;
		t->dirs = realloc(t->dirs, t->cap_dirs * sizeof(*t->dirs));
		if (t->dirs == NULL) {
			wm_log("wmconform: out of memory");
			exit(EX_OSERR);
		}
	}
	t->dirs[t->n_dirs++] = (struct dir_id){st->st_dev, st->st_ino};
	return false;
}

/* Replay the traces below `path`, counting them into *traces. False when
 * the directory could not be read (reported). */
static bool
replay_dir(struct tally *t, const char *path, size_t *traces)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if (d == NULL) {
		wm_log("wmconform: could not open directory \"%s\": %s", path,
		       strerror(errno));
		raise_status(t, EX_NOINPUT);
		return false;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			names = realloc(names, cap * sizeof(*names));
			if (names == NULL) {
				wm_log("wmconform: out of memory");
				exit(EX_OSERR);
			}
		}
		if (asprintf(&names[n], "%s/%s", path, e->d_name) < 0) {
			wm_log("wmconform: out of memory");
			exit(EX_OSERR);
		}
		n++;
	}
	closedir(d);
	/* names is NULL in an empty directory, which qsort() must not see. */
	if (n > 1)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		replay_path(t, names[i], false, traces);
		free(names[i]);
	}
	free(names);
	return true;
}

/*
 * A named file is replayed whatever its name (and then rejected if it is
 * no trace); inside directories only trace files are picked up, and a
 * directory is walked once however many links lead to it. A named
 * directory without any trace is an error (66, as a missing file): a
 * mistyped or not yet filled directory would otherwise pass, with the
 * others, as if its traces had. *traces counts the traces replayed.
 */
static void
replay_path(struct tally *t, const char *path, bool named, size_t *traces)
{
	struct stat st;
	size_t before = *traces;

	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		if (named || is_trace_name(path)) {
			replay_file(t, path);
			(*traces)++;
		}
		return;
	}
	/* A named directory is walked even if named twice; one found in a
	 * walk only the first time. */
	if (walked(t, &st) && !named)
		return;
	if (replay_dir(t, path, traces) && named && *traces == before) {
		wm_log("wmconform: no .valve or .source files in \"%s\"", path);
		raise_status(t, EX_NOINPUT);
	}
}

int
main(int argc, char **argv)
{
	static const struct option options[] = {
		{"behaviour", required_argument, NULL, 'b'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	struct tally t = {.behaviour = WM_CONFORM_DEFAULT};
	size_t traces = 0;
	int c;

	while ((c = getopt_long(argc, argv, "b:qh", options, NULL)) != -1) {
		const char *bad;
		int bad_len;

		switch (c) {
		case 'b':
			t.behaviour = WM_CONFORM_DEFAULT;
			if (wm_behaviour_parse(optarg, &t.behaviour, &bad,
					       &bad_len) != 0) {
				wm_log("wmconform: unrecognized behaviour "
				       "\"%.*s\" (expected flink-2.1, "
				       "flink-2.3, released, master or a "
				       "flag of doc/semantics.md section "
				       "1)",
				       bad_len, bad);
				return EX_USAGE;
			}
			break;
		case 'q':
			t.quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("wmconform (%s) %s\n", PACKAGE_NAME,
			       PACKAGE_VERSION);
			return 0;
		default:
			usage(stderr);
			return EX_USAGE;
		}
	}
	if (optind == argc) {
		wm_log("wmconform: no trace files given");
		usage(stderr);
		return EX_USAGE;
	}
	for (int i = optind; i < argc; i++)
		replay_path(&t, argv[i], true, &traces);
	printf("%u passed, %u failed\n", t.passed, t.failed);
	free(t.dirs);
	return t.status;
}
