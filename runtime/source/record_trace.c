/*
 * record_trace.c
 *	Recording a source's records as a replayable trace, and the topology
 *	that replays it (record_trace.h).
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lines.h"
#include "runtime/conf/key_table.h"
#include "runtime/source/record_tap.h"
#include "runtime/source/record_trace.h"

int64_t
wm_record_trace_arrival_ms(int64_t now_ns)
{
	/* now_ns >= 0: the job's processing time. */
	return now_ns / 1000000 + (now_ns % 1000000 != 0);
}

/* A failed write is kept by the sink, whose driver stops the job when it
 * sees it (wm_sink_failed()); the record still goes on, so that the
 * job's accounting stays whole up to the stop. */
static void
record_one(void *arg, const struct wm_record_source *inner,
	   const struct wm_record *r, int64_t now_ns)
{
	wm_sink_recorded(arg, r,
			 r->flags & WM_RECORD_WATERMARK
				 ? wm_record_source_carried_watermark(inner)
				 : WM_TS_MIN,
			 wm_record_trace_arrival_ms(now_ns));
}

struct wm_record_source *
wm_record_trace_source(struct wm_record_source *inner, struct wm_sink *sink)
{
	return wm_record_tap(inner, record_one, sink, NULL);
}

unsigned
wm_record_trace_columns(const struct wm_stage *st,
			const struct wm_replay_trace *trace)
{
	const struct wm_source_conf *sc = &st->u.source;
	unsigned columns = 0;

	if (wm_watermark_strategy_punctuated(&sc->strategy))
		columns |= WM_TRACE_PUNCTUATE;
	if (sc->n_heartbeats > 0 ||
	    (trace != NULL && wm_replay_heartbeats(trace) > 0) ||
	    wm_kafka_value_has(sc->kafka, WM_KAFKA_FIELD_HEARTBEAT))
		columns |= WM_TRACE_HEARTBEAT;
	if ((trace != NULL && wm_replay_carriers(trace) > 0) ||
	    wm_kafka_value_has(sc->kafka, WM_KAFKA_FIELD_WATERMARK))
		columns |= WM_TRACE_WATERMARK;
	return columns;
}

char *
wm_record_trace_path(const char *path, const char *name, uint32_t n_sources)
{
	const char *base = strrchr(path, '/');
	const char *dot;
	size_t stem;
	char *out;

	if (n_sources == 1)
		return strdup(path);
	base = base != NULL ? base + 1 : path;
	dot = strrchr(base, '.');

	/* ".hidden" has no extension: its dot starts the name. */
	stem = dot != NULL && dot != base ? (size_t)(dot - path) : strlen(path);
	if (asprintf(&out, "%.*s.%s%s", (int)stem, path, name, path + stem) < 0)
		return NULL;
	return out;
}

static bool
is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '-' || c == '.';
}

/*
 * The source stage whose section header is the line [p, end), if it is
 * one and its source is recorded; NULL otherwise. The text loaded, so
 * the header is well formed (ini.h): a kind word, then a bare or quoted
 * name.
 */
static const struct wm_stage *
recorded_section(const struct wm_topology *topo, const char *p, const char *end)
{
	const char *kind = p + 1, *k = kind;
	char name[1024];
	size_t n = 0;

	while (k < end && is_key_char(*k))
		k++;
	if ((size_t)(k - kind) != strlen("source") ||
	    memcmp(kind, "source", 6) != 0)
		return NULL;
	p = wm_line_skip_blanks(k, end);
	if (p < end && *p == '"') {
		for (p++; p < end && *p != '"' && n < sizeof(name) - 1; p++) {
			if (*p == '\\' && p + 1 < end)
				p++;
			name[n++] = *p;
		}
	} else {
		while (p < end && strchr(" \t]#;=\"[", *p) == NULL &&
		       n < sizeof(name) - 1)
			name[n++] = *p++;
	}
	name[n] = '\0';
	for (uint32_t s = 0; s < topo->n_stages; s++) {
		const struct wm_stage *st = &topo->stages[s];

		if (st->kind == WM_STAGE_SOURCE && st->u.source.record &&
		    strcmp(st->name, name) == 0)
			return st;
	}
	return NULL;
}

/* Whether `key` (`n` bytes) is one of the `count` names of `list`. */
static bool
key_in(const char *key, size_t n, const char *const *list, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (strlen(list[i]) == n && memcmp(list[i], key, n) == 0)
			return true;
	return false;
}

/* Whether the line [p, end) is an entry of a key that gives a source's
 * records, left out of the replay topology (commented out): the trace
 * gives them now. Those are the generators' keys (wmrun's and Nexmark's)
 * and the replay's, `replay` and `generator` themselves (conf: the use of
 * each in key_table.h). */
static bool
recorded_entry(const struct wm_stage *st, const char *p, const char *end)
{
	const struct wm_key_table_entry *entry;
	char key[WM_KEY_NAME_MAX];
	const char *k = p;

	while (k < end && is_key_char(*k))
		k++;
	if (key_in(p, (size_t)(k - p),
		   (const char *const[]){"replay", "generator"}, 2))
		return true;
	/* A Nexmark source's own default bound (nexmark_keys.c), which the
	 * replay states instead (replay_keys()). */
	if (st->u.source.kind == WM_SOURCE_NEXMARK &&
	    key_in(p, (size_t)(k - p),
		   (const char *const[]){"out_of_orderness"}, 1))
		return true;
	/* A Kafka source's keys: the recording holds what it read, of the
	 * partitions it read (replay_keys()). */
	if (k - p > 6 && strncmp(p, "kafka.", 6) == 0)
		return true;
	if (st->u.source.kind == WM_SOURCE_KAFKA &&
	    key_in(p, (size_t)(k - p), (const char *const[]){"partitions"}, 1))
		return true;
	if ((size_t)(k - p) >= sizeof(key))
		return false; /* longer than any key */
	memcpy(key, p, (size_t)(k - p));
	key[k - p] = '\0';
	entry = wm_key_table_find(wm_key_table_section("source"), key);
	return entry != NULL && entry->use != WM_KEY_ANY;
}

/* The keys that make `st` replay its recording, quoted as ini.h reads
 * them back; a Kafka source's of the `read` partitions it read (0: its
 * room). */
static void
replay_keys(FILE *f, const struct wm_topology *topo, const struct wm_stage *st,
	    uint32_t read)
{
	/* The trace beside the topology: a relative path is read from the
	 * topology's directory. */
	const char *slash = strrchr(st->u.source.record, '/');

	fputs("replay = \"", f);
	for (const char *c = slash ? slash + 1 : st->u.source.record; *c; c++) {
		if (*c == '"' || *c == '\\')
			fputc('\\', f);
		fputc(*c, f);
	}
	fputs("\"                    # recorded by --record-trace\n", f);
	fputs("pacing = arrival\n", f);
	if (wm_record_trace_end_ms(topo) >= 0)
		fprintf(f, "replay_end = %lld ms\n",
			(long long)wm_record_trace_end_ms(topo));
	if (st->u.source.kind == WM_SOURCE_NEXMARK)
		fprintf(f, "out_of_orderness = %lld ms\n",
			(long long)st->u.source.out_of_orderness_ms);
	if (st->u.source.kind != WM_SOURCE_KAFKA)
		return;
	/* A topic's keys are what its source read them as, which the
	 * trace's first key must not decide; and its partitions are those
	 * it read, not the room the recording job kept for more
	 * (kafka_topology.h), which would be partitions without records
	 * holding the replay's watermarks back. */
	fprintf(f, "key_type = %s\n",
		st->u.source.key_type == WM_KEY_TYPE_LONG ? "long" : "string");
	if (strcmp(st->u.source.kafka->topic, st->name) != 0) {
		fputs("topic = \"", f);
		for (const char *c = st->u.source.kafka->topic; *c; c++) {
			if (*c == '"' || *c == '\\')
				fputc('\\', f);
			fputc(*c, f);
		}
		fputs("\"\n", f);
	}
	fprintf(f, "partitions = %u\n",
		read > 0 ? read : st->u.source.partitions);
}

int64_t
wm_record_trace_end_ms(const struct wm_topology *topo)
{
	int64_t end = topo->job.event_time_ms;

	/* A generator bounded in event time ends every partition there, in
	 * processing time (source_gen.h, Limits), and a run length in
	 * processing time ends every source (task_source.c): the replay
	 * ends then too, not with its last record. */
	if (topo->job.processing_time_ms < end)
		end = topo->job.processing_time_ms;
	return end != INT64_MAX ? end : -1;
}

char *
wm_record_trace_topology(const struct wm_topology *topo, const char *text,
			 size_t len, const uint32_t *read)
{
	const char *p = text, *end = text + len;
	const struct wm_stage *in = NULL; /* the recorded section we are in */
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);

	if (f == NULL)
		return NULL;
	fputs("# Replays what --record-trace recorded: the topology it ran, "
	      "its\n# sources reading their recordings (the keys that "
	      "generated\n# records are left as comments).\n",
	      f);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl != NULL ? nl + 1 : end;
		const char *c = wm_line_skip_blanks(p, line_end);
		bool drop = false;

		if (c < line_end && *c == '[') {
			in = recorded_section(topo, c, line_end);
		} else if (in != NULL && c < line_end && is_key_char(*c)) {
			drop = recorded_entry(in, c, line_end);
		}
		if (drop)
			fputs("# ", f);
		fwrite(p, 1, (size_t)(line_end - p), f);
		if (nl == NULL)
			fputc('\n', f);
		if (c < line_end && *c == '[' && in != NULL)
			replay_keys(f, topo, in,
				    read != NULL ? read[in - topo->stages] : 0);
		p = line_end;
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}
