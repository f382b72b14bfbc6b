/*
 * cmdline.c
 *	wmrun's command line read into struct wm_cmdline (cmdline.h), and its
 *	help text.
 *
 * Every refusal is exit 64 (EX_USAGE) with a message naming the options
 * that cannot go together; --help and --version answer on standard
 * output with 0. Nothing here opens a file or reads the topology.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "base/log.h"
#include "lib/units.h"
#include "runtime/export/flink_job.h"
#include "tools/wmrun/cmdline.h"

/* --live's words, in enum order. */
static const char *const live_words[] = {"auto", "always", "never"};

/* Help text, kept whole: one fprintf() as --help and wmrun.1 show it. */
static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: wmrun [OPTION]... [TOPOLOGY.conf]\n"
		"  or:  wmrun --resume CHECKPOINT_DIR [OPTION]... "
		"TOPOLOGY.conf\n"
		"  or:  wmrun [--sim] --sweep SECTION.KEY=V1,V2,... "
		"[OPTION]... "
		"[TOPOLOGY.conf]\n"
		"  or:  wmrun --export-flink DIR [--export-speed S] "
		"[TOPOLOGY.conf]\n"
		"  or:  wmrun --record-nexmark FILE [--sim] TOPOLOGY.conf\n"
		"  or:  wmrun --help | --version\n"
		"\n"
		"Run an event-time stream job with Apache Flink's watermark,\n"
		"idleness and window semantics.\n"
		"\n"
		"  --sim           run every subtask in this process on "
		"simulated\n"
		"                  time: deterministic, byte-identical output\n"
		"                  (default: one pinned process per subtask "
		"over\n"
		"                  shared-memory rings, real time x speed)\n"
		"  --check         validate the topology and print the plan "
		"(subtasks,\n"
		"                  CPUs, channels) and the memory it needs, "
		"without\n"
		"                  running\n"
		"  --summary FILE  also write the summary as JSON to FILE\n"
		"  --live=WHEN     while a real run runs, show on standard "
		"error\n"
		"                  every subtask's watermark and what holds "
		"it:\n"
		"                  auto (default) redraws a screen in place "
		"when\n"
		"                  standard error is a terminal that no sink "
		"writes\n"
		"                  to, and prints timestamped lines "
		"otherwise;\n"
		"                  always: the screen; never: the lines\n"
		"  --quiet         show nothing while the job runs, only the\n"
		"                  summary at the end\n"
		"  --metrics FILE  write every sample of a real run's metrics "
		"to FILE\n"
		"                  as JSON lines, one per subtask and "
		"partition,\n"
		"                  under Flink's metric names\n"
		"  --sample-interval=DURATION\n"
		"                  how often the metrics are sampled while the "
		"job\n"
		"                  runs (real time; default 250 ms, and with\n"
		"                  --report as often as its grid needs)\n"
		"  --prometheus [ADDR:]PORT\n"
		"                  while a real run runs, serve its metrics "
		"at\n"
		"                  http://ADDR:PORT/metrics in the Prometheus "
		"text\n"
		"                  format, named as Flink's Prometheus "
		"reporter\n"
		"                  names them (default ADDR 127.0.0.1; PORT 0 "
		"picks\n"
		"                  a free port and says which on standard "
		"error)\n"
		"  --report FILE.html\n"
		"                  also draw the job as one self-contained "
		"page:\n"
		"                  watermarks and newest event times, idle "
		"spans and\n"
		"                  stalls, partitions' records and silences, "
		"fire\n"
		"                  delays, late records by partition, the "
		"summary (a\n"
		"                  real run from its samples, every "
		"--sample-interval);\n"
		"                  with --sweep, the sweep's curves against "
		"its first\n"
		"                  key's values, and its table\n"
		"  --record-trace FILE\n"
		"                  write every record the sources emit into "
		"FILE, a\n"
		"                  trace with its arrival time (one file per "
		"source:\n"
		"                  FILE.NAME.csv when there are several), and "
		"the\n"
		"                  topology that replays it into FILE.conf (a\n"
		"                  Kafka topic's night, replayed offline "
		"under\n"
		"                  --sim, which a Kafka source refuses)\n"
		"  --record-nexmark FILE\n"
		"                  write the Nexmark stream the topology's "
		"sources\n"
		"                  read (generator = nexmark) into FILE, "
		"every event\n"
		"                  of every kind as a line of the "
		"benchmark's Kafka\n"
		"                  JSON with its partition, and run nothing; "
		"its\n"
		"                  times start at the job's event_time_origin "
		"(with\n"
		"                  start: 0 under --sim, else now)\n"
		"  --sweep SECTION.KEY=V1,V2,...\n"
		"                  run the job once per value of the key "
		"(SECTION:\n"
		"                  job, global or a stage's name; the value "
		"none\n"
		"                  removes the key), once per combination "
		"when\n"
		"                  repeated, and print a table of each run's "
		"stall\n"
		"                  fraction, fire delays, late ratio and "
		"throughput;\n"
		"                  sinks' output is discarded. With --sim the "
		"runs\n"
		"                  go in parallel; real runs go one after "
		"another,\n"
		"                  and Ctrl-C stops the running one and prints "
		"the\n"
		"                  rows so far, the cut one marked\n"
		"  --sweep-csv FILE\n"
		"                  also write the sweep's table to FILE as "
		"CSV\n"
		"  --export-flink DIR\n"
		"                  write the job into DIR as a Maven project "
		"of an\n"
		"                  Apache Flink " WM_EXPORT_FLINK_VERSION
		" job; generated sources are recorded\n"
		"                  under --sim into DIR/data and replayed "
		"from there\n"
		"  --export-speed S\n"
		"                  with --export-flink: the exported job runs "
		"at speed S\n"
		"                  (a number > 0) instead of the topology's, "
		"every\n"
		"                  duration and arrival scaled alike: a slow "
		"job\n"
		"                  runs faster on Flink, with the same "
		"records\n"
		"  --resume CHECKPOINT_DIR\n"
		"                  go on with a real run from the latest "
		"complete\n"
		"                  checkpoint in CHECKPOINT_DIR (its "
		"supervisor was\n"
		"                  killed, the machine went down), taking the "
		"next\n"
		"                  checkpoints there\n"
		"  --set SECTION.KEY=VALUE\n"
		"                  set a key of the topology for this run, as "
		"if the\n"
		"                  file said so (SECTION: job, global or a "
		"stage's\n"
		"                  name; repeatable, the last of a key wins; "
		"held to\n"
		"                  the file's rules, errors naming the "
		"option)\n"
		"  -h, --help      this text\n"
		"  --version       the version of wmrun\n"
		"\n"
		"Without a file, the built-in quiet-partition incident runs.\n"
		"\n"
		"Exit status:\n"
		"  0      the job finished and every record is accounted for\n"
		"  1      a worker failed or died\n"
		"  64     bad command line\n"
		"  65     a malformed record in a replayed trace\n"
		"  66     a topology file or trace cannot be read, or a Kafka "
		"topic was\n"
		"         deleted while the job read it\n"
		"  69     no Kafka broker answered for kafka.broker_timeout\n"
		"  70     internal error\n"
		"  71     the OS refused memory, shared memory, a fork or "
		"pinning\n"
		"  73     a checkpoint directory cannot be made\n"
		"  74     an output could not be written, or a read failed\n"
		"  75     another running job holds the checkpoint directory\n"
		"  77     a Kafka broker refused the client's rights\n"
		"  78     invalid topology, or a job too big for this "
		"machine's memory\n"
		"  128+n  stopped by signal n\n");
}

/* After a bad command line's message: one line pointing at --help, as
 * GNU programs do, rather than the whole help, which buried the message
 * above it. */
static void
try_help(void)
{
	wm_log("Try 'wmrun --help' for more information.");
}

/* An option's value through a unit parser: false after the message. */
static bool
option_value(const char *option, int r, const char *why)
{
	if (r == 0)
		return true;
	wm_log("wmrun: invalid %s: %s", option, why);
	return false;
}

/* The values of --live and --sample-interval into *cl: false after the
 * message. */
static bool
live_value(const char *arg, struct wm_cmdline *cl)
{
	char why[WM_UNITS_WHY_MAX];
	size_t word;

	if (!option_value("--live",
			  wm_units_enum(arg, "--live", live_words, 3, &word,
					why, sizeof(why)),
			  why))
		return false;
	cl->live = (enum wm_cmdline_live)word;
	return true;
}

static bool
interval_value(const char *arg, struct wm_cmdline *cl)
{
	char why[WM_UNITS_WHY_MAX];

	if (!option_value("--sample-interval",
			  wm_units_duration_ms(arg, &cl->sample_interval_ms,
					       why, sizeof(why)),
			  why))
		return false;
	cl->interval_given = true;
	if (cl->sample_interval_ms > 0 && cl->sample_interval_ms <= 3600000)
		return true;
	wm_log("wmrun: --sample-interval must be between 1 ms and 1 h, not "
	       "\"%s\"",
	       arg);
	return false;
}

/* Options that go together, or not: EX_USAGE after the message, or -1. */
static int
check_combination(const struct wm_cmdline *cl)
{
	if (cl->path != NULL && cl->path[0] == '\0') {
		wm_log("wmrun: the topology file name is empty");
		return EX_USAGE;
	}
	if (cl->sim && cl->metrics != NULL) {
		wm_log("wmrun: --metrics samples a real run while it "
		       "runs; --sim takes no samples");
		try_help();
		return EX_USAGE;
	}
	if (cl->check_only && (cl->sim || cl->summary != NULL)) {
		/* --check runs nothing, so there would be nothing to
		 * simulate or summarize: say so rather than ignore them. */
		wm_log("wmrun: --check runs nothing: it takes no "
		       "--sim or --summary");
		try_help();
		return EX_USAGE;
	}
	if (cl->report != NULL && cl->check_only) {
		wm_log("wmrun: --report draws a job that runs: it "
		       "takes no --check");
		try_help();
		return EX_USAGE;
	}
	if (cl->record != NULL &&
	    (cl->check_only || cl->sweep.n_axes > 0 ||
	     strcmp(cl->record, "-") == 0 || cl->record[0] == '\0')) {
		/* A sweep's runs would all write one recording. */
		wm_log("wmrun: --record-trace records one job that runs into "
		       "a "
		       "file that its replay topology can name: it takes no "
		       "--check or --sweep, and no \"-\" or empty name");
		return EX_USAGE;
	}
	if (cl->record_nexmark != NULL &&
	    (cl->check_only || cl->summary != NULL || cl->metrics != NULL ||
	     cl->report != NULL || cl->record != NULL || cl->prometheus.on ||
	     cl->sweep.n_axes > 0 || cl->export_flink != NULL ||
	     cl->resume != NULL || cl->record_nexmark[0] == '\0')) {
		/* It writes a file and runs nothing: --sim alone says which
		 * origin `start` stands for. */
		wm_log("wmrun: --record-nexmark writes a stream and runs "
		       "nothing: it takes no option but --sim (and --set), "
		       "and a file name");
		try_help();
		return EX_USAGE;
	}
	if (cl->sweep_csv != NULL && cl->sweep.n_axes == 0) {
		wm_log("wmrun: --sweep-csv writes the table of a "
		       "--sweep: give one");
		return EX_USAGE;
	}
	if (cl->sweep.n_axes > 0 &&
	    (cl->check_only || cl->summary != NULL || cl->metrics != NULL ||
	     cl->prometheus.on)) {
		wm_log("wmrun: --sweep prints a table of many runs: "
		       "it takes no --check, --summary, --metrics or "
		       "--prometheus");
		return EX_USAGE;
	}
	if (cl->export_speed > 0 && cl->export_flink == NULL) {
		wm_log("wmrun: --export-speed sets the speed of an "
		       "--export-flink: give one");
		return EX_USAGE;
	}
	if (cl->export_flink != NULL &&
	    (cl->sim || cl->check_only || cl->summary != NULL ||
	     cl->metrics != NULL || cl->report != NULL || cl->prometheus.on ||
	     cl->sweep.n_axes > 0)) {
		wm_log("wmrun: --export-flink runs nothing: it takes "
		       "no other option");
		try_help();
		return EX_USAGE;
	}
	if (cl->resume != NULL &&
	    (cl->sim || cl->check_only || cl->sweep.n_axes > 0 ||
	     cl->export_flink != NULL || cl->record != NULL)) {
		wm_log("wmrun: --resume continues one real run: it "
		       "takes no --sim, --check, --sweep, "
		       "--export-flink or --record-trace");
		try_help();
		return EX_USAGE;
	}
	if (cl->prometheus.on && (cl->sim || cl->check_only)) {
		/* Metrics of processes that never run would be made up. */
		wm_log("wmrun: --prometheus serves a real run: it "
		       "takes no --sim or --check");
		try_help();
		return EX_USAGE;
	}
	/* Which would win is not for the order of the options to say. */
	for (size_t i = 0; i < cl->n_sets; i++)
		for (size_t a = 0; a < cl->sweep.n_axes; a++)
			if (strcmp(cl->sets[i].section,
				   cl->sweep.axes[a].section) == 0 &&
			    strcmp(cl->sets[i].key, cl->sweep.axes[a].key) ==
				    0) {
				wm_log("wmrun: %s: --sweep %s=... sweeps that "
				       "key",
				       cl->sets[i].option,
				       cl->sweep.axes[a].option);
				try_help();
				return EX_USAGE;
			}
	return -1;
}

/* --prometheus's [ADDR:]PORT into cl: false after the message. */
static bool
prometheus_value(const char *arg, struct wm_cmdline *cl)
{
	char why[256];

	if (wm_listen_parse(arg, &cl->prometheus, why, sizeof(why)) == 0)
		return true;
	wm_log("wmrun: %s", why);
	return false;
}

/* One --sweep's axis into cl: false after the message. */
static bool
sweep_value(const char *arg, struct wm_cmdline *cl)
{
	char why[512];
	int r = wm_sweep_add_axis(&cl->sweep, arg, why, sizeof(why));

	if (r == 0)
		return true;
	wm_log("wmrun: %s", r == -ENOMEM ? "out of memory" : why);
	return false;
}

/* --set ARG appended to cl's settings: -1 to go on, or the exit status
 * after a message. */
static int
add_setting(const char *arg, struct wm_cmdline *cl)
{
	struct wm_key_setting *sets =
		realloc(cl->sets, (cl->n_sets + 1) * sizeof(*sets));
	char why[WM_INI_MSG_MAX];
	int r;

	if (sets == NULL) {
		wm_log("wmrun: out of memory");
		return EX_OSERR;
	}
	cl->sets = sets;
	r = wm_key_setting_parse(arg, &cl->sets[cl->n_sets], why, sizeof(why));
	if (r == -ENOMEM) {
		wm_log("wmrun: out of memory");
		return EX_OSERR;
	}
	if (r != 0) {
		wm_log("wmrun: %s", why);
		try_help();
		return EX_USAGE;
	}
	cl->n_sets++;
	return -1;
}

/* Option c (getopt_long()'s value, its argument in `arg`) into cl: -1 to
 * go on, or the exit status as wm_cmdline_parse() returns it. Apart from
 * the loop so that the table of options and what each one does read as
 * two lists, each short enough to check by eye. */
static int
take_option(int c, const char *arg, struct wm_cmdline *cl)
{
	switch (c) {
	case 'L':
		if (!live_value(arg, cl))
			return EX_USAGE;
		break;
	case 'q':
		cl->quiet = true;
		break;
	case 'M':
		cl->metrics = arg;
		break;
	case 'I':
		if (!interval_value(arg, cl))
			return EX_USAGE;
		break;
	case 'P':
		if (!prometheus_value(arg, cl))
			return EX_USAGE;
		break;
	case 'R':
		cl->report = arg;
		break;
	case 'T':
		cl->record = arg;
		break;
	case 'N':
		cl->record_nexmark = arg;
		break;
	case 'r':
		cl->resume = arg;
		break;
	case 'W':
		if (!sweep_value(arg, cl))
			return EX_USAGE;
		break;
	case 'C':
		cl->sweep_csv = arg;
		break;
	case 'F':
		cl->export_flink = arg;
		break;
	case 'E': {
		char why[WM_UNITS_WHY_MAX];

		if (wm_units_number(arg, &cl->export_speed, why, sizeof(why)) !=
			    0 ||
		    !(cl->export_speed > 0 && cl->export_speed <= 1e9)) {
			wm_log("wmrun: invalid --export-speed \"%s\": a "
			       "number above 0, at most 1e9",
			       arg);
			return EX_USAGE;
		}
		break;
	}
	case 's':
		cl->sim = true;
		break;
	case 'c':
		cl->check_only = true;
		break;
	case 'S':
		cl->summary = arg;
		break;
	case 'D':
		return add_setting(arg, cl);
	case 'h':
		usage(stdout);
		return EX_OK;
	case 'V':
		printf("%s\n", PACKAGE_STRING);
		return EX_OK;
	default:
		try_help();
		return EX_USAGE;
	}
	return -1;
}

/* What getopt_long() refused in `word` (optopt in `opt`: 0 for an
 * unknown long option, else the option's value, or an unknown short
 * option's letter), in one line, then the pointer to --help. */
static void
bad_option(const struct option *options, const char *word, int opt)
{
	const struct option *o = options;

	/* A short option other than -h is unknown, whatever its letter. */
	if (strncmp(word, "--", 2) != 0)
		opt = 0;
	while (opt != 0 && o->name != NULL && o->val != opt)
		o++;
	if (opt == 0 || o->name == NULL)
		wm_log("wmrun: unknown option \"%s\"", word);
	else if (o->has_arg == required_argument)
		wm_log("wmrun: option --%s needs a value", o->name);
	else
		wm_log("wmrun: option --%s takes no value", o->name);
	try_help();
}

/* argv into *cl. -1 to go on, or the exit status once --help or --version
 * has been answered or a bad command line refused with a usage message. */
int
wm_cmdline_parse(int argc, char **argv, struct wm_cmdline *cl)
{
	static const struct option options[] = {
		{"sim", no_argument, NULL, 's'},
		{"check", no_argument, NULL, 'c'},
		{"summary", required_argument, NULL, 'S'},
		{"live", required_argument, NULL, 'L'},
		{"quiet", no_argument, NULL, 'q'},
		{"metrics", required_argument, NULL, 'M'},
		{"sample-interval", required_argument, NULL, 'I'},
		{"prometheus", required_argument, NULL, 'P'},
		{"report", required_argument, NULL, 'R'},
		{"record-trace", required_argument, NULL, 'T'},
		{"record-nexmark", required_argument, NULL, 'N'},
		{"sweep", required_argument, NULL, 'W'},
		{"sweep-csv", required_argument, NULL, 'C'},
		{"export-flink", required_argument, NULL, 'F'},
		{"export-speed", required_argument, NULL, 'E'},
		{"resume", required_argument, NULL, 'r'},
		{"set", required_argument, NULL, 'D'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int c;

	*cl = (struct wm_cmdline){.live = WM_CMDLINE_LIVE_AUTO,
				  .sample_interval_ms = 250};
	/* getopt's own messages would print the word as it is: ours go
	 * through wm_log(), which escapes control characters. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		int r;

		if (c == '?') {
			bad_option(options, argv[optind - 1], optopt);
			return EX_USAGE;
		}
		r = take_option(c, optarg, cl);

		if (r != -1)
			return r;
	}
	if (argc - optind > 1) {
		wm_log("wmrun: too many arguments");
		try_help();
		return EX_USAGE;
	}
	if (optind < argc)
		cl->path = argv[optind];
	return check_combination(cl);
}

void
wm_cmdline_free(struct wm_cmdline *cl)
{
	for (size_t i = 0; i < cl->n_sets; i++)
		wm_key_setting_free(&cl->sets[i]);
	free(cl->sets);
	cl->sets = NULL;
	cl->n_sets = 0;
}
