/*
 * main.c
 *	wmrun: run a stream job described by a topology file.
 *
 *   wmrun [OPTION]... [TOPOLOGY.conf]
 *   wmrun --resume CHECKPOINT_DIR [OPTION]... TOPOLOGY.conf
 *   wmrun [--sim] --sweep SECTION.KEY=V1,V2,... [OPTION]... [TOPOLOGY.conf]
 *   wmrun --export-flink DIR [--export-speed S] [TOPOLOGY.conf]
 *   wmrun --help | --version
 *
 * The options are in cmdline.c's help text. Without a file, the built-in
 * default topology runs: the quiet-partition incident (16 partitions, 3
 * of them silent for the night, with an idle timeout). Exit status: the
 * table of base/exit.h, which --help repeats.
 *
 * cmdline.c reads and checks the command line (cmdline.h) and holds the
 * help text; this file loads the topology and runs what it asks for: a
 * --check, a job (--sim or real), a --sweep or an --export-flink.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#include "runtime/checkpoint/checkpoint_store.h"
#include "runtime/plan/affinity.h"
#include "runtime/io/outfile.h"
#include "runtime/source/kafka_topology.h"
#include "runtime/source/nexmark_record.h"
#include "runtime/source/record_trace.h"
#include "runtime/source/sources.h"
#include "runtime/plan/footprint.h"
#include "runtime/plan/placement.h"
#include "runtime/plan/plan.h"
#include "base/clock.h"
#include "base/exit.h"
#include "base/log.h"
#include "runtime/run/sim.h"
#include "runtime/run/supervisor.h"
#include "runtime/run/terminal.h"
#include "runtime/conf/topology.h"
#include "runtime/export/flink_job.h"
#include "runtime/export/flink_project.h"
#include "runtime/study/override.h"
#include "runtime/study/sweep.h"
#include "runtime/study/sweep_page.h"
#include "runtime/chart/job_page.h"
#include "runtime/chart/recorder.h"
#include "tools/wmrun/cmdline.h"

/* The quiet-partition incident, compressed: twelve hours of event time
 * (22 s of real time at speed 2000, or a fraction of a second with --sim),
 * partitions 13-15 silent from 1 h to 9 h. With the 30 s idle timeout the
 * ten-minute windows keep firing through the night; remove it and they
 * stop until the partitions return. */
static const char default_topology[] =
	"# Built-in default: the quiet-partition incident.\n"
	"[job]\n"
	"name = quiet-partitions\n"
	"event_time = 12 h\n"
	"speed = 2000\n"
	"seed = 42\n"
	"\n"
	"[source events]\n"
	"parallelism = 4\n"
	"partitions = 16\n"
	"rate = 1/s\n"
	"out_of_orderness = 5 s\n"
	"keys = 8\n"
	"idle_timeout = 30 s\n"
	"silence = 13-15 from 1 h to 9 h\n"
	"\n"
	"[window counts]\n"
	"input = events\n"
	"parallelism = 2\n"
	"type = tumbling\n"
	"size = 10 min\n"
	"aggregates = count, sum\n"
	"\n"
	"[sink out]\n"
	"input = counts\n"
	"parallelism = 2\n"
	"path = -\n";

/* What print() writes, into the file `path` (a `what`, for messages),
 * whole or not at all (outfile.h): print() returns 0, or a negative errno
 * when what it wrote is not whole. 0, or a negative errno with a
 * message. */
static int
write_whole(const char *what, const char *path,
	    int (*print)(FILE *f, const void *arg), const void *arg, char *err,
	    size_t errlen)
{
	struct wm_outfile f;
	char *json = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&json, &len);
	int r;

	if (mem == NULL) {
		snprintf(err, errlen, "could not write %s \"%s\": %s", what,
			 path, strerror(errno));
		return -errno;
	}
	r = print(mem, arg);
	/* A memory stream refuses a write only for want of memory. */
	if (fclose(mem) != 0 && r == 0)
		r = -ENOMEM;
	if (r != 0) {
		free(json);
		snprintf(err, errlen, "could not write %s \"%s\": %s", what,
			 path, strerror(-r));
		return r;
	}
	r = wm_outfile_open(&f, what, path, true, err, errlen);
	if (r == 0) {
		if (wm_outfile_write(&f, json, len) != 0) {
			char name[4200];

			snprintf(err, errlen, "could not write %s %s: %s", what,
				 wm_outfile_name(&f, name, sizeof(name)),
				 strerror(f.error));
			r = -f.error;
			wm_outfile_discard(&f);
		} else {
			r = wm_outfile_commit(&f, err, errlen);
		}
	}
	free(json);
	return r;
}

struct summary_arg {
	const struct wm_topology *t;
	const struct wm_job_report *rep;
};

static int
print_summary_json(FILE *f, const void *arg)
{
	const struct summary_arg *a = arg;

	return wm_report_print_json(f, a->t, a->rep);
}

/* The JSON summary into `path`, whole or not at all. */
static int
write_summary(const char *path, const struct wm_topology *t,
	      const struct wm_job_report *rep, char *err, size_t errlen)
{
	struct summary_arg a = {t, rep};

	return write_whole("summary file", path, print_summary_json, &a, err,
			   errlen);
}

struct csv_arg {
	const struct wm_sweep *s;
	const struct wm_sweep_row *rows;
};

static int
print_sweep_csv(FILE *f, const void *arg)
{
	const struct csv_arg *a = arg;

	wm_sweep_print_csv(f, a->s, a->rows);
	return 0;
}

/* --sweep-csv's table into `path`, whole or not at all. */
static int
write_csv(const char *path, const struct wm_sweep *s,
	  const struct wm_sweep_row *rows, char *err, size_t errlen)
{
	struct csv_arg a = {s, rows};

	return write_whole("sweep CSV file", path, print_sweep_csv, &a, err,
			   errlen);
}

struct sweep_page_arg {
	const struct wm_sweep *s;
	const struct wm_sweep_row *rows;
	const char *name;
};

static int
print_sweep_page(FILE *f, const void *arg)
{
	const struct sweep_page_arg *a = arg;

	wm_sweep_page_write(f, a->s, a->rows, a->name);
	return 0;
}

struct page_arg {
	const struct wm_topology *t;
	const struct wm_recorder *rec;
	const struct wm_job_report *rep;
};

static int
print_page(FILE *f, const void *arg)
{
	const struct page_arg *a = arg;

	wm_job_page_write(f, a->t, a->rec, a->rep);
	return 0;
}

/* --report's page into `path`, whole or not at all: a job that ran (it
 * has a summary) is drawn whatever ended it. `status` made worse by a
 * failed write. */
static int
write_report(const char *path, const struct wm_topology *t,
	     const struct wm_recorder *rec, const struct wm_job_report *rep,
	     int status)
{
	struct page_arg a = {t, rec, rep};
	char why[4400];

	if (path == NULL || rep->subtasks == NULL)
		return status;
	if (rec == NULL) {
		/* A real run's observer handed over nothing (it said why). */
		wm_log("wmrun: could not write report file \"%s\": the job "
		       "was not recorded",
		       path);
		return status == 0 ? EX_IOERR : status;
	}
	if (write_whole("report file", path, print_page, &a, why,
			sizeof(why)) != 0) {
		wm_log("wmrun: %s", why);
		if (status == 0)
			status = EX_IOERR;
	}
	return status;
}

/* The summary on stderr, in one write: whole lines, never mixed with
 * anyone else's. Piece by piece if memory is short. */
static void
print_summary(const struct wm_topology *t, const struct wm_job_report *rep)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (mem != NULL) {
		wm_report_print(mem, t, rep);
		if (fclose(mem) == 0)
			fwrite(text, 1, len, stderr);
		else
			wm_report_print(stderr, t, rep);
		free(text);
	} else {
		wm_report_print(stderr, t, rep);
	}
}

/*
 * Whether the job fits in this machine's memory (runtime/plan/footprint.h),
 * for a real run or for --sim; the same test and message for --check, a
 * run and --sim. EX_OK, or EX_CONFIG after saying where the memory goes
 * (EX_OSERR if memory ran out while estimating). With `out`, print the
 * estimate there first (--check).
 */
static int
fits_memory(const struct wm_topology *t, const struct wm_plan *plan, bool sim,
	    FILE *out)
{
	struct wm_footprint_machine m;
	struct wm_footprint fp;
	char err[1024];
	int r;

	r = wm_footprint_estimate(t, plan, sim, &fp, err, sizeof(err));
	if (r != 0) {
		wm_log("wmrun: could not estimate the job's memory: "
		       "%s",
		       err);
		return wm_exit_status(WM_EXIT_INTERNAL, r);
	}
	wm_footprint_machine(&m);
	if (out != NULL) {
		wm_footprint_print_records(out, t);
		wm_footprint_print(out, t, &fp, &m);
	}
	r = wm_footprint_verdict(t, &fp, &m, err, sizeof(err));
	wm_footprint_free(&fp);
	if (r == 0)
		return EX_OK;
	wm_log("wmrun: %s", err);
	return EX_CONFIG;
}

/* --check's look at the outputs: every sink and late output file could
 * be opened where the topology says, as the run will open them (its
 * directory there, writable), without anything being made. EX_OK, or
 * the run's exit status for an output it cannot open (74) after a
 * message per output. */
static int
probe_outputs(const struct wm_topology *t)
{
	int status = EX_OK;

	for (uint32_t s = 0; s < t->n_stages; s++) {
		struct wm_stage *st = &t->stages[s];
		char why[4400];

		if (st->kind == WM_STAGE_SINK &&
		    strcmp(st->u.sink.path, "-") != 0 &&
		    wm_outfile_probe("output file", st->u.sink.path, why,
				     sizeof(why)) != 0) {
			wm_log("wmrun: %s:%d:%d: sink %s: %s", t->file,
			       st->line, st->col, st->name, why);
			status = EX_IOERR;
		}
		for (unsigned k = 0; k < WM_STAGE_LATE_OUTPUTS; k++) {
			const char *key;
			char **path = wm_stage_late_output_field(st, k, &key);

			if (path == NULL || *path == NULL ||
			    strcmp(*path, "-") == 0 ||
			    wm_outfile_probe("late output file", *path, why,
					     sizeof(why)) == 0)
				continue;
			wm_log("wmrun: %s:%d:%d: %s of %s: %s", t->file,
			       st->line, st->col, key, st->name, why);
			status = EX_IOERR;
		}
	}
	return status;
}

/* Every replayed trace can be read, or a message naming the file, line
 * and column of its replay key and EX_NOINPUT: before anything runs, and
 * under --check. */
static int
check_traces(const struct wm_topology *t)
{
	int status = EX_OK;

	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_source_conf *src = &t->stages[s].u.source;
		struct wm_ini_error e;
		char msg[4400];

		if (!wm_stage_source_is(&t->stages[s], WM_SOURCE_REPLAY) ||
		    access(src->replay, R_OK) == 0)
			continue;
		wm_ini_error_set(&e, t->file, src->replay_line, src->replay_col,
				 "source %s: could not read trace \"%s\": %s",
				 t->stages[s].name, src->replay,
				 strerror(errno));
		wm_ini_error_format(&e, msg, sizeof(msg));
		wm_log("wmrun: %s", msg);
		status = EX_NOINPUT;
	}
	return status;
}

/* What a window or join gives that goes nowhere: a warning per stage
 * whose results no sink and no stage reads (the job runs, and its
 * results are counted, but nobody sees them). */
static void
warn_unread_results(const struct wm_topology *t)
{
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *st = &t->stages[s];
		bool read = false;

		if (st->kind != WM_STAGE_WINDOW && st->kind != WM_STAGE_JOIN)
			continue;
		for (uint32_t u = 0; u < t->n_stages && !read; u++)
			for (uint32_t k = 0; k < t->stages[u].n_inputs; k++)
				if (t->stages[u].inputs[k].stage == s)
					read = true;
		if (!read)
			wm_log("wmrun: %s:%d:%d: warning: %s %s has no sink: "
			       "its results go nowhere (a [sink] with input = "
			       "%s writes them)",
			       t->file, st->line, st->col,
			       wm_stage_kind_name(st->kind), st->name,
			       st->name);
	}
}

/* A sink writing JSON lines to standard output, or NULL. */
static const struct wm_stage *
jsonl_on_stdout(const struct wm_topology *t)
{
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *st = &t->stages[s];

		if (st->kind == WM_STAGE_SINK &&
		    st->u.sink.format == WM_SINK_JSONL &&
		    strcmp(st->u.sink.path, "-") == 0)
			return st;
	}
	return NULL;
}

/* Standard output holding JSON lines and CSV at once can be read as
 * neither: a warning per CSV output there (a late output, a CSV sink)
 * when a sink writes JSON lines to it. */
static void
warn_mixed_stdout(const struct wm_topology *t)
{
	const struct wm_stage *jsonl = jsonl_on_stdout(t);

	if (jsonl == NULL)
		return;
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *st = &t->stages[s];
		const char *late;

		if (st->kind == WM_STAGE_SINK &&
		    st->u.sink.format == WM_SINK_CSV &&
		    strcmp(st->u.sink.path, "-") == 0)
			wm_log("wmrun: %s:%d:%d: warning: sink %s writes CSV "
			       "to "
			       "standard output, where sink %s writes JSON "
			       "lines (give one of them a file)",
			       t->file, st->line, st->col, st->name,
			       jsonl->name);
		for (unsigned k = 0; k < WM_STAGE_LATE_OUTPUTS; k++)
			if ((late = wm_stage_late_output(st, k)) != NULL &&
			    strcmp(late, "-") == 0)
				wm_log("wmrun: %s:%d:%d: warning: the late "
				       "records of %s %s go to standard output "
				       "as CSV, where sink %s writes JSON "
				       "lines "
				       "(give one of them a file)",
				       t->file, st->line, st->col,
				       wm_stage_kind_name(st->kind), st->name,
				       jsonl->name);
	}
}

/* --check: every subtask on this machine, the rings between them, and the
 * memory it will take. */
static int
check(const struct wm_topology *t)
{
	struct wm_plan *plan = wm_plan_new(t);
	struct wm_affinity *a = NULL;
	struct wm_affinity_plan *placed = NULL;
	char err[512];
	int status = EX_OK;

	if (plan == NULL)
		return EX_OSERR;
	printf("job \"%s\": %u stages, %u subtasks, %u channels\n",
	       t->job.name ? t->job.name : "unnamed", t->n_stages,
	       plan->n_subtasks, plan->n_channels);
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *st = &t->stages[s];

		printf("  %-7s %-16s parallelism %u",
		       wm_stage_kind_name(st->kind), st->name, st->parallelism);
		if (wm_stage_keyed(st->kind))
			printf(", max parallelism %u", st->max_parallelism);
		for (uint32_t k = 0; k < st->n_inputs; k++)
			printf("%s%s from \"%s\"",
			       st->kind == WM_STAGE_JOIN
				       ? (k ? ", right " : ", left ")
			       : k ? ", "
				   : ", input ",
			       wm_partitioning_name(st->inputs[k].edge),
			       t->stages[st->inputs[k].stage].name);
		if (st->kind == WM_STAGE_SINK)
			printf(" (chained to its %s)",
			       wm_stage_kind_name(
				       t->stages[st->inputs[0].stage].kind));
		printf("\n");
	}
	if (wm_affinity_open(NULL, &a, err, sizeof(err)) != 0) {
		wm_log("wmrun: %s", err);
		status = EX_OSERR;
	} else if (wm_placement_plan(a, t, plan, &placed, err, sizeof(err)) !=
		   0) {
		wm_log("wmrun: %s", err);
		status = t->job.cpus ? EX_CONFIG : EX_OSERR;
	} else {
		unsigned cpus = wm_affinity_allowed_pus(a);

		wm_affinity_describe(a, placed, stdout);
		printf("waiting: %s (%u subtasks on %u allowed CPU%s)\n",
		       wm_placement_wait_mode(plan, cpus) == WM_WAIT_YIELD
			       ? "yield the CPU, then sleep"
			       : "spin briefly, then sleep",
		       plan->n_subtasks, cpus, cpus == 1 ? "" : "s");
	}
	int fits = fits_memory(t, plan, false, stdout);
	int outputs = probe_outputs(t);

	if (status == EX_OK)
		status = fits;
	if (status == EX_OK)
		status = outputs;
	wm_affinity_plan_free(placed);
	wm_affinity_close(a);
	wm_plan_free(plan);
	return status;
}

/* A job that cannot fit is refused before anything is opened or made. */
static int
refuse_unless_fits(const struct wm_topology *t, bool sim)
{
	struct wm_plan *plan = wm_plan_new(t);
	int status;

	if (plan == NULL) {
		wm_log("wmrun: out of memory");
		return EX_OSERR;
	}
	status = fits_memory(t, plan, sim, NULL);
	wm_plan_free(plan);
	return status;
}

/* The topology's document: the file cl->path, or the built-in text,
 * with the --set settings in it, into *doc (free with wm_ini_free(): a
 * message about a setting points into it). EX_OK, or the exit status
 * after a message naming file, line and column, or the option. */
static int
job_doc(const struct wm_cmdline *cl, struct wm_ini_doc **doc)
{
	struct wm_ini_error err;
	char msg[1024];
	int r;

	r = cl->path != NULL
		    ? wm_ini_parse_file(cl->path, &wm_topology_ini_options, doc,
					&err)
		    : wm_ini_parse_buffer(default_topology,
					  strlen(default_topology),
					  "(built-in topology)",
					  &wm_topology_ini_options, doc, &err);
	if (r != 0) {
		wm_ini_error_format(&err, msg, sizeof(msg));
		wm_log("wmrun: %s", msg);
		return wm_exit_status(WM_EXIT_INPUT, r);
	}
	r = wm_key_settings_apply(*doc, cl->sets, cl->n_sets, &err);
	if (r != 0) {
		wm_ini_error_format(&err, msg, sizeof(msg));
		wm_log("wmrun: %s", msg);
		wm_ini_free(*doc);
		*doc = NULL;
		return r == -ENOMEM ? EX_OSERR : EX_USAGE;
	}
	return EX_OK;
}

/* The topology of `doc` (job_doc()) into *t. EX_OK, or the exit status
 * after a message naming file, line and column, or the option. */
static int
load_topology(const struct wm_cmdline *cl, struct wm_ini_doc *doc,
	      struct wm_topology **t)
{
	struct wm_ini_error err;
	char msg[1024];
	int r = wm_topology_load_doc(
		doc, cl->path != NULL ? cl->path : "(built-in topology)", t,
		&err);

	if (r == 0)
		return EX_OK;
	wm_ini_error_format(&err, msg, sizeof(msg));
	wm_log("wmrun: %s", msg);
	return wm_exit_status(WM_EXIT_INPUT, r);
}

/*
 * A job with Kafka sources runs in real time, its records arriving when
 * they arrive, and every topic is probed before anything is created (the
 * room for its partitions set from it: runtime/source/kafka_topology.h).
 * EX_OK, or the exit status after a message.
 */
static int
prepare_kafka(struct wm_topology *t, const struct wm_cmdline *cl)
{
	char why[1024], unchecked[4096];
	int status;

	if (!cl->check_only) {
		status =
			wm_kafka_topology_prepare(t, cl->sim, why, sizeof(why));
		if (status != EX_OK)
			wm_log("wmrun: %s", why);
		return status;
	}
	/* --check checks the configuration: brokers it cannot reach within
	 * a few seconds leave their topics unchecked, said, not a failure. */
	status = wm_kafka_topology_check(t, unchecked, sizeof(unchecked), why,
					 sizeof(why));
	for (char *line = unchecked, *end; (end = strchr(line, '\n')) != NULL;
	     line = end + 1)
		wm_log("wmrun: --check: %.*s", (int)(end - line), line);
	if (status != EX_OK)
		wm_log("wmrun: %s", why);
	return status;
}

/* Whether output file `path` of `option` is a file the job reads or
 * writes, or the --summary file (`summary`, NULL if none): true after a
 * message. `what` ends it: "give WHAT". */
static bool
output_taken(const struct wm_topology *t, const char *option, const char *path,
	     const char *summary, const char *what)
{
	char why[4400];
	const char *use =
		summary != NULL && strcmp(summary, path) == 0
			? "the --summary file"
			: wm_topology_file_use(t, path, why, sizeof(why));

	if (use == NULL)
		return false;
	wm_log("wmrun: %s \"%s\" is %s: give %s", option, path, use, what);
	return true;
}

/*
 * What must hold before anything is opened or made: the summary file is
 * none the job reads or writes, the job fits in memory, and the summary
 * can be written. EX_OK, or the exit status after a message.
 */
static int
preflight(const struct wm_topology *t, const struct wm_cmdline *cl)
{
	char why[4400];
	int status;

	/* Opening them erases them: not files the job reads or writes. */
	if ((cl->summary != NULL &&
	     output_taken(t, "--summary", cl->summary, NULL,
			  "the summary its own file")) ||
	    (cl->metrics != NULL &&
	     output_taken(t, "--metrics", cl->metrics, cl->summary,
			  "the metrics their own file")) ||
	    (cl->report != NULL &&
	     output_taken(t, "--report", cl->report, cl->summary,
			  "the report its own file")))
		return EX_USAGE;
	status = refuse_unless_fits(t, cl->sim);
	if (status != EX_OK)
		return status;
	if (cl->report != NULL && wm_outfile_probe("report file", cl->report,
						   why, sizeof(why)) != 0) {
		wm_log("wmrun: %s", why);
		return EX_IOERR;
	}
	/* A summary that cannot be written is found now, not after hours of
	 * running; it is written whole at the end (outfile.h), so nothing is
	 * left at its path if the job never gets there. */
	if (cl->summary != NULL && wm_outfile_probe("summary file", cl->summary,
						    why, sizeof(why)) != 0) {
		wm_log("wmrun: %s", why);
		return EX_IOERR;
	}
	return EX_OK;
}

/* The files of another option, which a recording must not be. */
static const char *
other_option(const struct wm_cmdline *cl, const char *path)
{
	if (cl->summary != NULL && strcmp(path, cl->summary) == 0)
		return "the --summary file";
	if (cl->metrics != NULL && strcmp(path, cl->metrics) == 0)
		return "the --metrics file";
	if (cl->report != NULL && strcmp(path, cl->report) == 0)
		return "the --report file";
	return NULL;
}

/* What the job or another option does with `path`, for a message; NULL:
 * nothing, a recording may go there. */
static const char *
file_taken(const struct wm_topology *t, const struct wm_cmdline *cl,
	   const char *path, char *why, size_t len)
{
	const char *use = wm_topology_file_use(t, path, why, len);

	return use != NULL ? use : other_option(cl, path);
}

/* "FILE.conf": where --record-trace FILE writes the replay topology. NULL
 * after a message. */
static char *
replay_topology_path(const char *record)
{
	char *path;

	if (asprintf(&path, "%s.conf", record) < 0) {
		wm_log("wmrun: out of memory");
		return NULL;
	}
	return path;
}

/*
 * --record-trace: every source of `t` gets its recording's path (one
 * source: FILE; several: FILE.NAME.ext, record_trace.h), none a file the
 * job or another option already uses, and the replay topology's,
 * FILE.conf, none either and writable. EX_OK, or the exit status after a
 * message.
 */
static int
set_up_recording(struct wm_topology *t, const struct wm_cmdline *cl)
{
	uint32_t n_sources = 0;
	char why[4400];
	char *conf;
	const char *use;

	for (uint32_t s = 0; s < t->n_stages; s++)
		n_sources += t->stages[s].kind == WM_STAGE_SOURCE;
	for (uint32_t s = 0; s < t->n_stages; s++) {
		struct wm_stage *st = &t->stages[s];
		char *path;

		if (st->kind != WM_STAGE_SOURCE)
			continue;
		path = wm_record_trace_path(cl->record, st->name, n_sources);
		if (path == NULL) {
			wm_log("wmrun: out of memory");
			return EX_OSERR;
		}
		use = file_taken(t, cl, path, why, sizeof(why));
		if (use != NULL) {
			wm_log("wmrun: --record-trace \"%s\" is %s: give the "
			       "recording its own file",
			       path, use);
			free(path);
			return EX_USAGE;
		}
		st->u.source.record = path;
	}
	conf = replay_topology_path(cl->record);
	if (conf == NULL)
		return EX_OSERR;
	use = file_taken(t, cl, conf, why, sizeof(why));
	if (use != NULL) {
		wm_log("wmrun: --record-trace writes its replay topology into "
		       "\"%s\", which is %s: give the recording another "
		       "name",
		       conf, use);
		free(conf);
		return EX_USAGE;
	}
	if (wm_outfile_probe("replay topology", conf, why, sizeof(why)) != 0) {
		wm_log("wmrun: %s", why);
		free(conf);
		return EX_IOERR;
	}
	free(conf);
	return EX_OK;
}

/* What --record-trace wrote, on standard error. */
static void
recorded(const struct wm_topology *t, const char *conf)
{
	for (uint32_t s = 0; s < t->n_stages; s++)
		if (t->stages[s].kind == WM_STAGE_SOURCE)
			wm_log("wmrun: recorded source \"%s\" into \"%s\"",
			       t->stages[s].name, t->stages[s].u.source.record);
	wm_log("wmrun: replay the recording with: wmrun \"%s\"", conf);
}

static int
print_text(FILE *f, const void *arg)
{
	fputs(arg, f);
	return 0;
}

/* The topology text *text (NULL: the built-in one) with cl's --set
 * settings written into it, as the job ran (a key the section has
 * replaced, else added after its header), and the job's event-time clock
 * as its event_time_origin (`clock_zero_ms`, sources.h): a recording's
 * timestamps are on that clock, and its replay reads lags and fire
 * delays on it. *text and *len replaced. 0, or -ENOMEM. Already held to
 * the loader's rules, they cannot fail else. */
static int
with_settings(const struct wm_cmdline *cl, int64_t clock_zero_ms, char **text,
	      size_t *len)
{
	struct wm_override *ov;
	struct wm_override_text ot;
	char why[1024], origin[24];
	size_t bad;
	int r;

	ov = calloc(cl->n_sets + 1, sizeof(*ov));
	if (ov == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < cl->n_sets; i++)
		ov[i] = (struct wm_override){cl->sets[i].section,
					     cl->sets[i].key, cl->sets[i].value,
					     true};
	snprintf(origin, sizeof(origin), "%" PRId64, clock_zero_ms);
	ov[cl->n_sets] =
		(struct wm_override){"job", "event_time_origin", origin, true};
	r = wm_override_apply(*text != NULL ? *text : default_topology, *len,
			      "topology", ov, cl->n_sets + 1, &ot, &bad, why,
			      sizeof(why));
	free(ov);
	if (r != 0)
		return -ENOMEM;
	free(*text);
	*text = ot.text;
	*len = ot.len;
	ot.text = NULL;
	wm_override_text_free(&ot);
	return 0;
}

/*
 * The replay topology beside a job's recording (FILE.conf), once the job
 * ran, however it ended: what it recorded replays. `status` made worse by
 * what fails.
 */
static int
write_replay_topology(const struct wm_topology *t, const struct wm_cmdline *cl,
		      const struct wm_job_report *rep, int status)
{
	struct wm_ini_error ierr;
	char why[4400];
	char *text = NULL, *replay, *conf;
	size_t len = sizeof(default_topology) - 1;
	uint32_t *read; /* by stage: the partitions a Kafka source read */
	int r;

	if (cl->record == NULL || rep->subtasks == NULL)
		return status;
	if (cl->path != NULL) {
		r = wm_ini_read_file(cl->path, &text, &len, &ierr);
		if (r != 0) {
			wm_ini_error_format(&ierr, why, sizeof(why));
			wm_log("wmrun: %s", why);
			return status == 0 ? wm_exit_status(WM_EXIT_INPUT, r)
					   : status;
		}
	}
	/* The replay is this run's job: its --set keys go into the text. */
	r = with_settings(cl, rep->clock_zero_ms, &text, &len);
	if (r != 0) {
		free(text);
		wm_log("wmrun: out of memory");
		return status == 0 ? EX_OSERR : status;
	}
	read = calloc(t->n_stages, sizeof(*read));
	for (uint32_t i = 0; read != NULL && i < rep->n_partitions; i++) {
		const struct wm_partition_report *p = &rep->partitions[i];

		if (p->partition + 1 > read[p->stage])
			read[p->stage] = p->partition + 1;
	}
	replay = read != NULL
			 ? wm_record_trace_topology(
				   t, text ? text : default_topology, len, read)
			 : NULL;
	free(read);
	conf = replay_topology_path(cl->record);
	free(text);
	if (replay == NULL || conf == NULL) {
		wm_log("wmrun: out of memory");
		r = -ENOMEM;
	} else {
		r = write_whole("replay topology", conf, print_text, replay,
				why, sizeof(why));
		if (r != 0)
			wm_log("wmrun: %s", why);
		else if (!cl->quiet)
			recorded(t, conf);
	}
	free(replay);
	free(conf);
	if (r != 0 && status == 0)
		status = r == -ENOMEM ? EX_OSERR : EX_IOERR;
	return status;
}

/* Whether a sink of `t` writes to standard output. */
static bool
writes_stdout(const struct wm_topology *t)
{
	for (uint32_t s = 0; s < t->n_stages; s++)
		if (t->stages[s].kind == WM_STAGE_SINK &&
		    strcmp(t->stages[s].u.sink.path, "-") == 0)
			return true;
	return false;
}

/* Whether fds a and b are the same terminal. */
static bool
same_terminal(int a, int b)
{
	struct stat x, y;

	return isatty(a) && isatty(b) && fstat(a, &x) == 0 &&
	       fstat(b, &y) == 0 && x.st_rdev == y.st_rdev;
}

/* The least real time between a report's samples: each reads every
 * block and feeds the alerts and the recorder. */
#define REPORT_INTERVAL_MIN_NS ((int64_t)5000000)

/*
 * A real run's --report, unless --sample-interval says otherwise, samples
 * on the grid --sim draws the same job on (recorder.h), in real time: at
 * speed 2000 the default 250 ms were 8 min of processing time between
 * samples, and a watermark that moves all the time was drawn as a
 * staircase. Never more often than REPORT_INTERVAL_MIN_NS, nor less
 * often than `every_ns`.
 */
static int64_t
report_interval_ns(const struct wm_topology *t, int64_t every_ns)
{
	int64_t grid = wm_scale_ns(wm_recorder_first_step_ns(t, -1),
				   1.0 / t->job.speed);

	if (grid < REPORT_INTERVAL_MIN_NS)
		grid = REPORT_INTERVAL_MIN_NS;
	return grid < every_ns ? grid : every_ns;
}

/* The terminal the live screen draws on, read once (terminal.h). */
static struct wm_terminal terminal;

/*
 * What a real run shows while it runs. auto: a screen on standard error
 * when it is a terminal that can draw one, and no sink writes results
 * to that same terminal: they would scroll through the screen, so the
 * screen is off then, and one line says so and how to see it; lines
 * otherwise (a log, a pipe, TERM=dumb). always: the screen whatever
 * standard error is, if TERM names a terminal that can draw one.
 */
static struct wm_observe_options
observe_options(const struct wm_topology *t, const struct wm_cmdline *cl)
{
	struct wm_observe_options o = {
		.metrics = cl->metrics,
		.fd = STDERR_FILENO,
		.interval_ns = cl->sample_interval_ms * 1000000,
		.redraw_ns = 1000000000,
		.status_ns = 5000000000,
		.prometheus = cl->prometheus,
	};
	bool always = cl->live == WM_CMDLINE_LIVE_ALWAYS;
	bool screen =
		!cl->quiet && (always || (cl->live == WM_CMDLINE_LIVE_AUTO &&
					  isatty(STDERR_FILENO)));
	char why[160];

	if (screen && !always && writes_stdout(t) &&
	    same_terminal(STDOUT_FILENO, STDERR_FILENO)) {
		wm_log("wmrun: the live screen is off: results go to "
		       "standard output, this terminal (redirect them, > "
		       "FILE, or give the sink a path, to see it)");
		screen = false;
	}
	if (screen &&
	    wm_terminal_open(&terminal, STDERR_FILENO, why, sizeof(why)) != 0) {
		if (always)
			wm_log("wmrun: no live screen: %s; lines instead", why);
		screen = false;
	}
	if (cl->report != NULL && !cl->interval_given)
		o.interval_ns = report_interval_ns(t, o.interval_ns);
	o.live = cl->quiet ? WM_LIVE_OFF
		 : screen  ? WM_LIVE_SCREEN
			   : WM_LIVE_LINES;
	o.terminal = screen ? &terminal : NULL;
	if (o.redraw_ns < o.interval_ns)
		o.redraw_ns = o.interval_ns;
	return o;
}

/*
 * --resume DIR: the job goes on from the latest complete checkpoint in DIR
 * (a real run's, after its supervisor was killed or the machine went
 * down), and takes its next checkpoints there. The job must be the one
 * that wrote them (the coordinator checks the plan's fingerprint).
 */
static int
set_up_resume(struct wm_topology *t, const struct wm_cmdline *cl)
{
	char *dir;

	if (t->job.checkpoint_interval_ms == INT64_MAX) {
		wm_log("wmrun: --resume \"%s\": %s takes no checkpoints "
		       "(checkpoint_interval in [job])",
		       cl->resume, t->file);
		return EX_USAGE;
	}
	dir = strdup(cl->resume);
	if (dir == NULL)
		return EX_OSERR;
	free(t->job.checkpoint_dir);
	t->job.checkpoint_dir = dir;
	t->job.resume = true;
	return EX_OK;
}

/* The run's event-time origin (sources.h): --sim's is 0, a real run's
 * the wall clock now, rounded; a resumed job's the one its checkpoints
 * were taken with, so that its records go on where they left off. */
static int
fix_origin(struct wm_topology *t, const struct wm_cmdline *cl)
{
	struct wm_job_conf *job = &t->job;
	char why[2 * PATH_MAX];
	int64_t kept;
	int r = 0;

	if (job->resume)
		r = wm_checkpoint_store_origin(job->checkpoint_dir, &kept, why,
					       sizeof(why));
	if (r < 0) {
		wm_log("wmrun: %s", why);
		return wm_exit_status(WM_EXIT_INPUT, r);
	}
	if (r == 1 && !job->origin_at_start &&
	    job->event_time_origin_ms != kept) {
		wm_log("wmrun: %s: event_time_origin is %" PRId64
		       " ms, but the checkpoints in \"%s\" were taken with "
		       "%" PRId64
		       " ms: a resumed job's event time goes on from theirs "
		       "(remove the key, or set it to theirs)",
		       t->file, job->event_time_origin_ms, job->checkpoint_dir,
		       kept);
		return EX_USAGE;
	}
	if (r == 1) {
		job->origin_at_start = false;
		job->event_time_origin_ms = kept;
	}
	wm_sources_fix_origin(t,
			      cl->sim ? -1 : wm_wall_ms_at(wm_monotonic_ns()));
	return EX_OK;
}

/* --record-nexmark FILE: the topology's Nexmark stream into FILE, from
 * the origin the job would have (nexmark_record.h). Its exit status,
 * after a message if not 0. */
static int
record_nexmark(struct wm_topology *t, const struct wm_cmdline *cl)
{
	struct wm_nexmark_source_conf stream;
	char why[4400];
	int status = fix_origin(t, cl);

	if (status != EX_OK)
		return status;
	status = wm_nexmark_record_stream(t, &stream, why, sizeof(why));
	if (status == EX_OK)
		status = wm_nexmark_record_write(&stream, cl->record_nexmark,
						 why, sizeof(why));
	if (status != EX_OK)
		wm_log("wmrun: %s", why);
	return status;
}

/* Run the job, in this process on simulated time or supervised in pinned
 * workers, filling *rep. Its exit status, after a message if not 0. */
static int
run_job(const struct wm_topology *t, const struct wm_cmdline *cl,
	struct wm_job_report *rep, struct wm_recorder **rec)
{
	char why[4400];
	int r;

	if (!cl->sim) {
		struct wm_observe_options o = observe_options(t, cl);

		if (cl->report != NULL)
			o.recording = rec;
		r = wm_supervisor_run(t, &o, rep, why, sizeof(why));
		if (r != 0)
			wm_log("wmrun: %s", why);
		return r;
	}
	if (cl->report != NULL)
		r = wm_sim_run_recorded(
			t,
			cl->interval_given ? cl->sample_interval_ms * 1000000
					   : -1,
			rec, rep, why, sizeof(why));
	else
		r = wm_sim_run(t, rep, why, sizeof(why));
	if (r != 0)
		wm_log("wmrun: %s", why);
	if (r > 0)
		return r; /* stopped by a signal: 128 + n; failed at fail_at: 1 */
	return r != 0 ? wm_exit_status(WM_EXIT_SIM, r) : EX_OK;
}

/*
 * A job that ran has a summary, whatever ended it: finished, stopped by a
 * signal, or failed (figures as the workers last published them); one that
 * never started has none. Print it, write it to `summary` if given, and
 * return `status` made worse by what that finds.
 */
static int
report_job(const struct wm_topology *t, const struct wm_job_report *rep,
	   const char *summary, int status)
{
	char why[4400];

	if (rep->subtasks == NULL)
		return status;
	print_summary(t, rep);
	/* Exit 0 says every record is accounted for: a job whose own
	 * summary says otherwise did not succeed. */
	if (status == 0 && !wm_report_accounted(rep)) {
		wm_log("wmrun: the summary does not account for every "
		       "record: an internal error");
		status = EX_SOFTWARE;
	}
	if (summary != NULL &&
	    write_summary(summary, t, rep, why, sizeof(why)) != 0) {
		wm_log("wmrun: %s", why);
		if (status == 0)
			status = EX_IOERR;
	}
	return status;
}

/* What a stop signal left of a real sweep, on standard error. */
static void
sweep_stopped(const struct wm_sweep *s, const struct wm_sweep_row *rows,
	      int sig)
{
	size_t n = wm_sweep_combinations(s), skipped = 0, cut = n;

	for (size_t i = 0; i < n; i++) {
		skipped += rows[i].skipped;
		if (rows[i].cut)
			cut = i;
	}
	if (cut < n)
		wm_log("wmrun: --sweep stopped by signal %d: %s: run %zu of "
		       "%zu cut short, %zu not run",
		       sig, strsignal(sig), cut + 1, n, skipped);
	else
		wm_log("wmrun: --sweep stopped by signal %d: %s: %zu of %zu "
		       "runs not run",
		       sig, strsignal(sig), skipped, n);
}

/* --sweep: every combination, under --sim or as real jobs one after
 * another, the table on stdout (and as CSV into cl->sweep_csv). The exit
 * status: 128 + n when signal n stopped a real sweep, else the first
 * run's that failed, or EX_OK; before any ran, the one for what was
 * refused. */
static int
sweep(const struct wm_cmdline *cl)
{
	size_t n = wm_sweep_combinations(&cl->sweep);
	struct wm_sweep_row *rows = calloc(n, sizeof(*rows));
	const char *name = cl->path ? cl->path : "(built-in topology)";
	struct wm_ini_error ierr;
	char why[4400];
	char *text = NULL;
	size_t len = sizeof(default_topology) - 1;
	int status = EX_OK, stopped = 0;

	if (rows == NULL) {
		wm_log("wmrun: out of memory");
		return EX_OSERR;
	}
	if (cl->path != NULL) {
		int r = wm_ini_read_file(cl->path, &text, &len, &ierr);

		if (r != 0) {
			wm_ini_error_format(&ierr, why, sizeof(why));
			wm_log("wmrun: %s", why);
			free(rows);
			return wm_exit_status(WM_EXIT_INPUT, r);
		}
	}
	if (cl->sweep_csv != NULL &&
	    wm_outfile_probe("sweep CSV file", cl->sweep_csv, why,
			     sizeof(why)) != 0) {
		wm_log("wmrun: %s", why);
		status = EX_IOERR;
	}
	if (status == EX_OK && cl->report != NULL &&
	    wm_outfile_probe("report file", cl->report, why, sizeof(why)) !=
		    0) {
		wm_log("wmrun: %s", why);
		status = EX_IOERR;
	}
	if (status == EX_OK && cl->sim)
		status = wm_sweep_run(
			&cl->sweep, text ? text : default_topology, len, name,
			wm_sweep_jobs(), cl->quiet ? NULL : stderr, rows, why,
			sizeof(why));
	else if (status == EX_OK)
		status = wm_sweep_run_real(&cl->sweep,
					   text ? text : default_topology, len,
					   name, cl->quiet ? NULL : stderr,
					   rows, &stopped, why, sizeof(why));
	if (status != EX_OK) {
		wm_log("wmrun: %s", why);
	} else {
		wm_sweep_print_table(stdout, &cl->sweep, rows);
		for (size_t i = 0; i < n && status == EX_OK; i++)
			status = rows[i].skipped ? EX_OK : rows[i].status;
		if (stopped != 0) {
			sweep_stopped(&cl->sweep, rows, stopped);
			status = 128 + stopped;
		}
		if (cl->sweep_csv != NULL &&
		    write_csv(cl->sweep_csv, &cl->sweep, rows, why,
			      sizeof(why)) != 0) {
			wm_log("wmrun: %s", why);
			if (status == EX_OK)
				status = EX_IOERR;
		}
		if (cl->report != NULL &&
		    write_whole(
			    "report file", cl->report, print_sweep_page,
			    &(struct sweep_page_arg){&cl->sweep, rows, name},
			    why, sizeof(why)) != 0) {
			wm_log("wmrun: %s", why);
			if (status == EX_OK)
				status = EX_IOERR;
		}
	}
	free(text);
	free(rows);
	return status;
}

int
main(int argc, char **argv)
{
	struct wm_job_report rep = {0};
	struct wm_recorder *rec = NULL;
	struct wm_topology *t = NULL;
	struct wm_ini_doc *doc = NULL;
	struct wm_cmdline cl;
	int status;

	/* A reader that goes away (wmrun job.conf | head) makes a write fail
	 * with EPIPE, and a file grown to its size limit (ulimit -f) with
	 * EFBIG: output errors the job reports (exit 74) with its summary,
	 * rather than a death by SIGPIPE or SIGXFSZ. Inherited by the
	 * workers. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	status = wm_cmdline_parse(argc, argv, &cl);
	cl.sweep.sets = cl.sets;
	cl.sweep.n_sets = cl.n_sets;
	if (status < 0 && cl.sweep.n_axes > 0)
		status = sweep(&cl);
	if (status >= 0) {
		wm_sweep_free(&cl.sweep);
		wm_cmdline_free(&cl);
		return status;
	}
	status = job_doc(&cl, &doc);
	if (status == EX_OK)
		status = load_topology(&cl, doc, &t);
	if (status == EX_OK) {
		warn_unread_results(t);
		warn_mixed_stdout(t);
		status = check_traces(t);
	}
	if (status == EX_OK && cl.record_nexmark != NULL) {
		wm_ini_free(doc);
		status = record_nexmark(t, &cl);
		wm_topology_free(t);
		wm_cmdline_free(&cl);
		return status;
	}
	if (status == EX_OK && cl.export_flink != NULL) {
		/* The speed is the Flink job's alone: --sim's recording
		 * counts processing time in milliseconds whatever it is. */
		if (cl.export_speed > 0)
			t->job.speed = cl.export_speed;
		status = wm_export_flink_project(t, doc, cl.path,
						 cl.export_flink);
		wm_topology_free(t);
		wm_ini_free(doc);
		wm_cmdline_free(&cl);
		return status;
	}
	wm_ini_free(doc);
	if (status != EX_OK) {
		wm_topology_free(t);
		wm_cmdline_free(&cl);
		return status;
	}
	status = prepare_kafka(t, &cl);
	if (cl.resume != NULL && status == EX_OK)
		status = set_up_resume(t, &cl);
	if (status == EX_OK)
		status = fix_origin(t, &cl);
	if (status != EX_OK)
		;
	else if (cl.check_only)
		status = check(t);
	else if (cl.record != NULL)
		status = set_up_recording(t, &cl);
	if (!cl.check_only && status == EX_OK)
		status = preflight(t, &cl);
	if (status != EX_OK || cl.check_only) {
		wm_topology_free(t);
		wm_cmdline_free(&cl);
		return status;
	}
	status = run_job(t, &cl, &rep, &rec);
	status = report_job(t, &rep, cl.summary, status);
	status = write_report(cl.report, t, rec, &rep, status);
	status = write_replay_topology(t, &cl, &rep, status);
	wm_recorder_free(rec);
	wm_report_free(&rep);
	wm_topology_free(t);
	wm_cmdline_free(&cl);
	return status;
}
