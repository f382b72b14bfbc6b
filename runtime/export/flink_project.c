/*
 * flink_project.c
 *	Write an exported Flink job's Maven project: the embedded files, the
 *	generated Job.java, and each replayed trace as wmrun replays it.
 *
 * Every file is built in memory first and written whole (outfile.h,
 * atomic), so a failed export leaves no half-written file behind.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>

#include "operators/source_gen.h"
#include "runtime/conf/ini.h"
#include "runtime/export/flink_files.h"
#include "runtime/export/flink_job.h"
#include "runtime/export/flink_project.h"
#include "runtime/export/flink_record.h"
#include "base/exit.h"
#include "base/log.h"
#include "runtime/io/keys.h"
#include "runtime/io/outfile.h"
#include "runtime/source/record_trace.h"
#include "runtime/source/replay.h"

#define JAVA_DIR "src/main/java/wmrun/flink/"

/* Make `path`'s directories below `dir` (and `dir`): 0 or EX_IOERR after
 * a message. */
static int
make_dirs(const char *dir, const char *rel)
{
	char path[4096];
	int n = snprintf(path, sizeof(path), "%s/%s", dir, rel);

	if (n < 0 || (size_t)n >= sizeof(path)) {
		wm_log("wmrun: export directory \"%s\" is too long", dir);
		return EX_USAGE;
	}
	for (char *p = path + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST) {
			wm_log("wmrun: could not create directory \"%s\": "
			       "%s",
			       path, strerror(errno));
			return EX_IOERR;
		}
		*p = '/';
	}
	return 0;
}

/* `len` bytes at `text` as the file `rel` below `dir`, whole: 0 or the
 * exit status after a message. */
static int
write_file(const char *dir, const char *rel, const char *text, size_t len)
{
	char path[4096], err[4400];
	struct wm_outfile f;
	int r = make_dirs(dir, rel);

	if (r != 0)
		return r;
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	r = wm_outfile_open(&f, "export file", path, true, err, sizeof(err));
	if (r == 0 && wm_outfile_write(&f, text, len) != 0) {
		snprintf(err, sizeof(err),
			 "could not write export file \"%s\": %s", path,
			 strerror(f.error));
		wm_outfile_discard(&f);
		r = -EIO;
	} else if (r == 0) {
		r = wm_outfile_commit(&f, err, sizeof(err));
	}
	if (r == 0)
		return 0;
	wm_log("wmrun: %s", err);
	return wm_exit_status(WM_EXIT_OUTPUT, r);
}

/* What a memory stream gathered, written as `rel`. */
static int
write_stream(const char *dir, const char *rel, FILE *mem, char **buf,
	     size_t *len)
{
	int r;

	if (fclose(mem) != 0) {
		free(*buf);
		wm_log("wmrun: out of memory");
		return EX_OSERR;
	}
	r = write_file(dir, rel, *buf, *len);
	free(*buf);
	return r;
}

/* A record's key in an exported trace: a long as it is, a string key
 * (the trace's dictionary has it) always quoted, each quote doubled, so
 * that TraceRecord.parse() knows it for a string whatever its
 * characters (keys hold no line end: runtime/io/keys.h). */
static void
print_key(FILE *f, const struct wm_replay_trace *trace,
	  const struct wm_record *rec)
{
	const struct wm_keys *keys = wm_replay_keys(trace);
	const char *s;
	size_t len;

	if (!(rec->flags & WM_RECORD_STRING_KEY) || keys == NULL ||
	    (s = wm_keys_string(keys, rec->key, &len)) == NULL) {
		fprintf(f, "%" PRId64, rec->key);
		return;
	}
	fputc('"', f);
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			fputc('"', f);
		fputc(s[i], f);
	}
	fputc('"', f);
}

/* The trace of source `st` in release order, each record's arrival its
 * due time under the source's pacing (flink_project.h). */
static int
print_trace(FILE *f, const struct wm_stage *st,
	    const struct wm_replay_trace *trace)
{
	uint32_t n = st->u.source.partitions;
	uint32_t *all = malloc(n * sizeof(*all));
	/* The marks go along in a recording's columns: a punctuated
	 * source's, a trace's heartbeats and carried watermarks. */
	unsigned columns =
		wm_trace_columns_written(wm_record_trace_columns(st, trace));
	bool carried = columns & WM_TRACE_WATERMARK;
	bool heartbeats = columns & WM_TRACE_HEARTBEAT;
	bool punctuated = columns & WM_TRACE_PUNCTUATE;
	struct wm_record_source *src;
	struct wm_record rec;

	if (all == NULL)
		return -ENOMEM;
	for (uint32_t p = 0; p < n; p++)
		all[p] = p;
	src = wm_replay_source(trace, all, n);
	free(all);
	if (src == NULL)
		return -errno;
	fputs(wm_trace_header(columns), f);
	while (!wm_record_source_finished(src)) {
		int64_t due = wm_record_source_next_due_ns(src);

		if (wm_record_source_next(src, due, &rec) != 1)
			break;
		fprintf(f, "%" PRIu32 ",%" PRId64 ",", rec.partition, rec.ts);
		print_key(f, trace, &rec);
		fprintf(f, ",%" PRId64 ",%" PRId64, rec.value, due / 1000000);
		if (punctuated)
			fprintf(f, ",%d",
				(rec.flags & WM_RECORD_PUNCTUATE) != 0);
		if (heartbeats)
			fprintf(f, ",%d",
				(rec.flags & WM_RECORD_HEARTBEAT) != 0);
		if (carried)
			fputc(',', f);
		if (carried && (rec.flags & WM_RECORD_WATERMARK))
			fprintf(f, "%" PRId64,
				wm_record_source_carried_watermark(src));
		fputc('\n', f);
	}
	src->ops->free(src);
	return 0;
}

static int
write_traces(struct wm_topology *t, const char *dir)
{
	struct wm_replay_trace **traces;
	char err[4400];
	int r = wm_replay_read_all(t, &traces, err, sizeof(err)), status = 0;

	if (r != 0) {
		wm_log("wmrun: %s", err);
		return wm_exit_status(WM_EXIT_INPUT, r);
	}
	for (uint32_t s = 0; s < t->n_stages && status == 0; s++) {
		char name[256], rel[300], *buf = NULL;
		size_t len = 0;
		FILE *mem;

		if (traces[s] == NULL)
			continue;
		t->stages[s].u.source.trace_heartbeats =
			wm_replay_heartbeats(traces[s]) > 0;
		t->stages[s].u.source.trace_string_keys =
			wm_replay_keys(traces[s]) != NULL;
		mem = open_memstream(&buf, &len);
		if (mem == NULL ||
		    print_trace(mem, &t->stages[s], traces[s]) != 0) {
			if (mem != NULL)
				fclose(mem);
			free(buf);
			wm_log("wmrun: out of memory");
			status = EX_OSERR;
			break;
		}
		wm_export_flink_trace_name(t, s, name, sizeof(name));
		snprintf(rel, sizeof(rel), "data/%s", name);
		status = write_stream(dir, rel, mem, &buf, &len);
	}
	wm_replay_free_all(traces, t->n_stages);
	return status;
}

/* The export's checks: 0, or EX_CONFIG after a message. Every line goes
 * through wm_log(), warnings included: they echo the topology's path. */
static int
check(const struct wm_topology *t, const struct wm_ini_doc *doc)
{
	struct wm_ini_error err;
	char msg[WM_INI_MSG_MAX + 4200], *warned = NULL;
	size_t len = 0;
	FILE *warnings = open_memstream(&warned, &len);
	int r;

	if (warnings == NULL) {
		wm_log("wmrun: out of memory");
		return EX_OSERR;
	}
	r = wm_export_flink_check(t, doc, warnings, &err);
	if (fclose(warnings) != 0) {
		free(warned);
		wm_log("wmrun: out of memory");
		return EX_OSERR;
	}
	for (char *line = warned, *end; *line != '\0'; line = end + 1) {
		end = strchr(line, '\n'); /* warn() ends every line */
		if (end == NULL)
			break;
		wm_log("%.*s", (int)(end - line), line);
	}
	free(warned);
	if (r == 0)
		return 0;
	wm_ini_error_format(&err, msg, sizeof(msg));
	wm_log("wmrun: %s", msg);
	return EX_CONFIG;
}

int
wm_export_flink_project(struct wm_topology *t, const struct wm_ini_doc *doc,
			const char *path, const char *dir)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int status = check(t, doc);

	/* The replayed traces first: the recording turns the generated
	 * sources into replays of traces already in place. */
	if (status == 0)
		status = make_dirs(dir, "data/");
	if (status == 0)
		status = write_traces(t, dir);
	if (status == 0)
		status = wm_export_flink_record(t, dir);
	for (size_t i = 0; i < wm_export_flink_n_files && status == 0; i++)
		status = write_file(dir, wm_export_flink_files[i].path,
				    wm_export_flink_files[i].text,
				    strlen(wm_export_flink_files[i].text));
	if (status != 0)
		return status;
	mem = open_memstream(&buf, &len);
	if (mem == NULL) {
		wm_log("wmrun: out of memory");
		return EX_OSERR;
	}
	wm_export_flink_job(mem, t,
			    path != NULL ? path : "the built-in topology");
	return write_stream(dir, JAVA_DIR "Job.java", mem, &buf, &len);
}
