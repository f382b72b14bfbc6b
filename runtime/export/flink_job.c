/*
 * flink_job.c
 *	The checks and the Java text of a topology exported to Flink.
 *
 * The text is made for a reader: one block per stage in file order, each
 * under a comment naming its section, every value written as a
 * Duration.ofMillis() of the configured milliseconds (processing-time ones
 * divided by the speed once, in Java, where the reader sees it), and the
 * parallelism of every operator set explicitly. Stage variables are named
 * by kind and stage index ("window1"), and the traces under data/ after
 * their source's ("source0.csv"): a name is the user's text, which no
 * filtering makes an identifier or a file name safely (two names could
 * filter alike), so it appears in the text as a string literal or in a
 * comment, escaped.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "operators/behaviour.h"
#include "runtime/export/flink_job.h"

/* Room for a stage's Java identifier, "window4294967295". */
#define IDENT_MAX 32
/* Room for a user string in a comment (comment_text()). */
#define COMMENT_MAX 1024

/* The entry of `key` in the section of `st` or, failing that, [global]
 * or [job] (`job` true), for a message's position; NULL if none. */
static const struct wm_ini_entry *
find_entry(const struct wm_ini_doc *doc, const struct wm_stage *st,
	   const char *key)
{
	const struct wm_ini_section *secs[2] = {NULL, NULL};

	if (doc == NULL)
		return NULL;
	for (size_t i = 0; i < doc->n_sections; i++) {
		const struct wm_ini_section *sec = &doc->sections[i];

		if (st == NULL ? strcmp(sec->kind, "job") == 0
			       : (sec->name != NULL &&
				  strcmp(sec->kind,
					 wm_stage_kind_name(st->kind)) == 0 &&
				  strcmp(sec->name, st->name) == 0))
			secs[0] = sec;
		else if (st != NULL && strcmp(sec->kind, "global") == 0)
			secs[1] = sec;
	}
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; secs[s] != NULL && i < secs[s]->n_entries;
		     i++)
			if (strcmp(secs[s]->entries[i].key, key) == 0)
				return &secs[s]->entries[i];
	return NULL;
}

/* Where to point a message about `key` of stage `st` (NULL: [job]): the
 * key if the file has it (or the --set that gave it, without a line),
 * else the stage's section header, or [job]'s (a value the key's
 * default, or other keys, gave). */
static void
position(const struct wm_topology *t, const struct wm_ini_doc *doc,
	 const struct wm_stage *st, const char *key, const char **file,
	 int *line, int *col)
{
	const struct wm_ini_entry *e = find_entry(doc, st, key);

	*file = e != NULL && e->origin != NULL ? e->origin : t->file;
	*line = e != NULL    ? (e->origin != NULL ? 0 : e->line)
		: st != NULL ? st->line
			     : 0;
	*col = e != NULL ? e->key_col : st != NULL ? st->col : 0;
	for (size_t i = 0;
	     e == NULL && st == NULL && doc != NULL && i < doc->n_sections; i++)
		if (strcmp(doc->sections[i].kind, "job") == 0) {
			*line = doc->sections[i].line;
			*col = doc->sections[i].col;
		}
}

#define REFUSE(st, key, ...)                                                   \
	do {                                                                   \
		const char *file_;                                             \
		int line_, col_;                                               \
		position(t, doc, (st), (key), &file_, &line_, &col_);          \
		wm_ini_error_set(err, file_, line_, col_, __VA_ARGS__);        \
		return -EINVAL;                                                \
	} while (0)

/*
 * The speed the exported job runs at: the job's, lowered where a
 * processing-time duration it exports would come to less than the least
 * Flink takes of it on its wall clock. Flink counts durations in whole
 * milliseconds: 200 ms of watermark interval at speed 2000 would be
 * 0.1 ms, read as 0, which turns periodic watermarks off (and an idle
 * timeout or a restart backoff of 0 is refused); and a checkpoint
 * interval or timeout under 10 ms is refused (Flink 2.3.0's
 * CheckpointCoordinatorConfiguration.MINIMAL_CHECKPOINT_TIME, which
 * CheckpointConfig's setters check). Lowering the speed instead of
 * rounding each duration up keeps every one in its ratio to the others
 * and to the records' arrivals, as wmrun runs them: the results are the
 * same, the run takes longer on the wall clock.
 */
struct export_speed {
	double speed;
	int64_t ms;	  /* the duration that set it (0: the job's speed) */
	int64_t least_ms; /* and the least Flink takes of that duration */
};

/* `ms` of processing time, which Flink takes from `least_ms` of wall
 * clock on: the speed lowered to keep it there. A duration of 0 lowers
 * nothing: it is 0 in Flink too (a fixed restart delay of 0 is allowed
 * there, and the other durations cannot be 0). */
static void
keep_above(struct export_speed *s, int64_t ms, int64_t least_ms)
{
	if (ms > 0 && (double)ms / (double)least_ms < s->speed) {
		s->speed = (double)ms / (double)least_ms;
		s->ms = ms;
		s->least_ms = least_ms;
	}
}

/* Whether [job] takes checkpoints (checkpoint_interval, with its dir). */
static bool
checkpoints(const struct wm_topology *t)
{
	return t->job.checkpoint_interval_ms != INT64_MAX;
}

static struct export_speed
export_speed_of(const struct wm_topology *t)
{
	const struct wm_restart_config *r = &t->job.restart;
	struct export_speed s = {t->job.speed, 0, 1};

	for (uint32_t i = 0; i < t->n_stages; i++) {
		const struct wm_source_conf *src = &t->stages[i].u.source;

		if (t->stages[i].kind != WM_STAGE_SOURCE)
			continue;
		keep_above(&s, src->strategy.interval_ms, 1);
		if (src->strategy.with_idleness)
			keep_above(&s, src->strategy.idle_timeout_ms, 1);
		if (src->alignment_group != NULL)
			keep_above(&s, src->alignment_update_interval_ms, 1);
	}
	if (!checkpoints(t))
		return s;
	keep_above(&s, t->job.checkpoint_interval_ms, 10);
	keep_above(&s, t->job.checkpoint_timeout_ms, 10);
	if (r->kind == WM_RESTART_FIXED_DELAY)
		keep_above(&s, r->delay_ms, 1);
	if (r->kind == WM_RESTART_EXPONENTIAL_DELAY) {
		keep_above(&s, r->initial_delay_ms, 1);
		keep_above(&s, r->max_delay_ms, 1);
		keep_above(&s, r->reset_threshold_ms, 1);
	}
	return s;
}

static double
export_speed(const struct wm_topology *t)
{
	return export_speed_of(t).speed;
}

/* Whether a processing-time window's durations come to whole
 * milliseconds of the wall clock at `speed` (ProcessingWindows.java). */
static bool
whole_wall_ms(const struct wm_window_assigner *a, double speed)
{
	const int64_t d[3] = {a->size, a->slide, a->offset};

	for (int i = 0; i < 3; i++) {
		double wall = (double)d[i] / speed;

		if (wall != (double)(int64_t)wall || (i < 2 && wall < 1))
			return false;
	}
	return true;
}

static void
warn(FILE *f, const struct wm_topology *t, const struct wm_ini_doc *doc,
     const struct wm_stage *st, const char *key, const char *msg)
{
	struct wm_ini_error e;
	char buf[WM_INI_MSG_MAX + 256];
	const char *file;
	int line, col;

	position(t, doc, st, key, &file, &line, &col);
	wm_ini_error_set(&e, file, line, col, "warning: %s", msg);
	wm_ini_error_format(&e, buf, sizeof(buf));
	fprintf(f, "wmrun: %s\n", buf);
}

/* The [job] key that set a behaviour differing from the export's: the
 * flink_behaviour setting if there is one, else the first per-flag key
 * (valve_flush_unconditional) that differs. */
static void
behaviour_key(const struct wm_ini_doc *doc, unsigned behaviour, char *key,
	      size_t len)
{
	snprintf(key, len, "flink_behaviour");
	if (find_entry(doc, NULL, key) != NULL)
		return;
	for (unsigned bit = 1; bit & WM_BEHAVIOUR_ALL; bit <<= 1) {
		const char *name = wm_behaviour_name(bit);

		if ((behaviour & bit) == (WM_EXPORT_FLINK_BEHAVIOUR & bit))
			continue;
		snprintf(key, len, "%s", name);
		for (char *p = key; *p != '\0'; p++)
			*p = (char)tolower((unsigned char)*p);
		if (find_entry(doc, NULL, key) != NULL)
			return;
	}
	snprintf(key, len, "flink_behaviour");
}

static int
check_job(const struct wm_topology *t, const struct wm_ini_doc *doc,
	  struct wm_ini_error *err)
{
	const struct wm_job_conf *job = &t->job;

	/* Flink restores no watermark (doc/semantics.md 12.3): the key would
	 * do nothing there. */
	if (job->checkpoint_watermarks)
		REFUSE(NULL, "checkpoint_watermarks",
		       "cannot export checkpoint_watermarks = true: a Flink "
		       "checkpoint holds no watermark, idleness or status, and "
		       "a restored Flink job starts event time again from MIN "
		       "(checkpoint_watermarks = false is Flink's restore)");
	if (job->behaviour & WM_ALL_IDLE_POLICY)
		REFUSE(NULL, "all_idle",
		       "cannot export all_idle = %s to Flink: it is a study "
		       "knob, and Flink's rule is all_idle = flink",
		       job->behaviour & WM_ALL_IDLE_MAX ? "max" : "hold");
	if ((job->behaviour & WM_BEHAVIOUR_ALL) != WM_EXPORT_FLINK_BEHAVIOUR) {
		char diff[256], key[64];

		behaviour_key(doc, job->behaviour, key, sizeof(key));
		REFUSE(NULL, key,
		       "cannot export these behaviour flags: the exported job "
		       "runs Flink " WM_EXPORT_FLINK_VERSION
		       ", whose rules are flink_behaviour = flink-2.3, and "
		       "this job's differ by %s",
		       wm_behaviour_difference(job->behaviour,
					       WM_EXPORT_FLINK_BEHAVIOUR, diff,
					       sizeof(diff)));
	}
	return 0;
}

/* Whether [job] has a run length, which a generated source needs to end
 * (and its recording with it). */
static bool
bounded(const struct wm_job_conf *job)
{
	return job->event_time_ms != INT64_MAX ||
	       job->processing_time_ms != INT64_MAX ||
	       job->records != UINT64_MAX;
}

/* The warnings of a Kafka source: what Flink's KafkaSource has no
 * setting for. */
static void
warn_kafka(FILE *f, const struct wm_topology *t, const struct wm_ini_doc *doc,
	   const struct wm_stage *st)
{
	const struct wm_kafka_conf *kc = st->u.source.kafka;

	if (find_entry(doc, st, "kafka.broker_timeout") != NULL)
		warn(f, t, doc, st, "kafka.broker_timeout",
		     "Flink's KafkaSource has no broker timeout: the exported "
		     "job waits for brokers that went away for ever");
	if (kc->partitions_given)
		warn(f, t, doc, st, "partitions",
		     "wmrun reads no partition at or beyond this count, the "
		     "exported job's KafkaSource reads every partition of "
		     "the topic");
}

/*
 * A Kafka source: Flink's KafkaSource with the same settings, but for what
 * it cannot say. A run length in processing time cuts wmrun's source; a
 * stopping offset per partition leaves the partitions not listed
 * unbounded in wmrun, where Flink's offsets initializer bounds them too.
 */
static int
check_kafka(const struct wm_topology *t, const struct wm_ini_doc *doc,
	    const struct wm_stage *st, const char *name,
	    struct wm_ini_error *err)
{
	const struct wm_kafka_conf *kc = st->u.source.kafka;

	if (t->job.processing_time_ms != INT64_MAX)
		REFUSE(NULL, "processing_time",
		       "cannot export a run length in processing time over "
		       "Kafka source %s: wmrun stops reading the topic then, "
		       "the exported job reads on",
		       name);
	if (kc->stopping.position == WM_KAFKA_OFFSETS)
		REFUSE(st, "kafka.stopping_offsets",
		       "cannot export stopping offsets per partition of Kafka "
		       "source %s: the partitions they do not list are "
		       "unbounded in wmrun, and Flink's "
		       "OffsetsInitializer.offsets() would stop them at their "
		       "first offset",
		       name);
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *o = &t->stages[s];

		if (wm_stage_source_is(o, WM_SOURCE_GENERATED))
			REFUSE(st, "kafka.topic",
			       "cannot export Kafka source %s beside generated "
			       "source \"%s\": a generated source is exported "
			       "as its recording under --sim, which cannot "
			       "read a topic",
			       name, o->name);
	}
	return 0;
}

/*
 * A source's records and their end: a generated source is recorded
 * (flink_record.h), and what its recording cannot carry is refused; a
 * replayed one is read as wmrun reads it. The run lengths act on
 * generated sources alone (event_time, records), which their recording
 * carries, except processing_time, which cuts every source.
 */
static int
check_records(const struct wm_topology *t, const struct wm_ini_doc *doc,
	      const struct wm_stage *st, const char *name,
	      struct wm_ini_error *err)
{
	const struct wm_source_conf *src = &st->u.source;

	if (src->kind == WM_SOURCE_KAFKA)
		return check_kafka(t, doc, st, name, err);
	/* Flink has its own Nexmark generator, whose events differ from
	 * this one's where the generators part (nexmark_gen.h); the job
	 * would need this stream as a file, which --record-nexmark writes
	 * but the export does not yet read. */
	if (src->kind == WM_SOURCE_NEXMARK)
		REFUSE(st, "generator",
		       "cannot export a Nexmark source yet (source %s): run "
		       "the benchmark's queries on a recording of its stream "
		       "instead (wmrun --record-nexmark)",
		       name);
	if (src->kind == WM_SOURCE_REPLAY) {
		if (t->job.processing_time_ms != INT64_MAX)
			REFUSE(NULL, "processing_time",
			       "cannot export a run length in processing "
			       "time over replayed source %s: wmrun stops "
			       "reading its trace then, the exported job "
			       "reads it to its end",
			       name);
		if (src->replay_end_ms >= 0 &&
		    st->parallelism > src->partitions)
			REFUSE(st, "replay_end",
			       "cannot export replay_end on source %s with "
			       "more subtasks than partitions: wmrun's "
			       "subtasks without partitions wait for the end, "
			       "the exported job ends them at once",
			       name);
		return 0;
	}
	if (!bounded(&t->job))
		REFUSE(st, "rate",
		       "cannot export generated source %s without a run "
		       "length: it is exported through a recording, which "
		       "would never end; give [job] event_time, "
		       "processing_time or records",
		       name);
	if (src->alignment_group != NULL && src->strategy.with_idleness)
		REFUSE(st, "watermark_alignment_group",
		       "cannot export watermark alignment of generated source "
		       "%s with idle_timeout: its recording holds the records "
		       "that alignment held back, but not that alignment "
		       "stopped the idleness clock meanwhile; the replay "
		       "could go idle where wmrun's source did not",
		       name);
	return 0;
}

/* Whether the records stage `s` reads have string keys (a Kafka source
 * with key_type = string upstream): 1, 0 for long keys, -1 when its
 * inputs mix the two. */
static int
string_keys(const struct wm_topology *t, uint32_t s)
{
	const struct wm_stage *st = &t->stages[s];
	int keys = -2;

	if (st->kind == WM_STAGE_SOURCE)
		return (st->u.source.kind == WM_SOURCE_KAFKA &&
			st->u.source.key_type == WM_KEY_TYPE_STRING) ||
		       st->u.source.trace_string_keys;
	for (uint32_t i = 0; i < st->n_inputs; i++) {
		int in = string_keys(t, st->inputs[i].stage);

		if (in < 0 || (keys != -2 && keys != in))
			return -1;
		keys = in;
	}
	return keys;
}

/* The key of stage s that names a window as its input (`input`, or a
 * join's `left` or `right`); NULL if it reads none. */
static const char *
window_input_key(const struct wm_topology *t, const struct wm_stage *st)
{
	static const char *const sides[] = {"left", "right"};

	if (st->kind == WM_STAGE_SINK)
		return NULL;
	for (uint32_t k = 0; k < st->n_inputs; k++)
		if (t->stages[st->inputs[k].stage].kind == WM_STAGE_WINDOW)
			return st->kind == WM_STAGE_JOIN ? sides[k] : "input";
	return NULL;
}

int
wm_export_flink_check(const struct wm_topology *t, const struct wm_ini_doc *doc,
		      FILE *warnings, struct wm_ini_error *err)
{
	const struct wm_source_conf *first = NULL;
	bool generated = false;
	struct export_speed speed;
	char name[WM_INI_QUOTE_MAX];

	/* Before the stages one by one: a map reads a Nexmark source, which
	 * is refused too, and the map is the more telling reason. */
	for (uint32_t s = 0; s < t->n_stages; s++)
		if (t->stages[s].kind == WM_STAGE_MAP)
			REFUSE(&t->stages[s], "input",
			       "cannot export map %s yet: the exported job "
			       "has no where and select of its own, and "
			       "NexmarkQueries runs the benchmark's queries "
			       "on the Flink side",
			       wm_ini_quote(name, sizeof(name),
					    t->stages[s].name));
	for (uint32_t s = 0; s < t->n_stages; s++) {
		const struct wm_stage *st = &t->stages[s];

		wm_ini_quote(name, sizeof(name), st->name);
		/* The export writes a window's results as its sinks' lines
		 * only (ResultLines), not as records for a stage after it. */
		if (window_input_key(t, st) != NULL)
			REFUSE(st, window_input_key(t, st),
			       "cannot export a window read by another stage "
			       "yet: the exported job writes a window's "
			       "results to its sinks only (a sink may read "
			       "it)");
		if (st->kind == WM_STAGE_SOURCE) {
			const struct wm_source_conf *src = &st->u.source;

			if (check_records(t, doc, st, name, err) != 0)
				return -EINVAL;
			if (src->kind == WM_SOURCE_KAFKA)
				warn_kafka(warnings, t, doc, st);
			generated =
				generated || src->kind == WM_SOURCE_GENERATED;
			if (src->strategy.kind == WM_WATERMARK_PLUGIN)
				REFUSE(st, "watermark",
				       "cannot export a plugin's watermark "
				       "generator: its code is C, run by wmrun "
				       "(write it as a Flink "
				       "WatermarkGenerator)");
			if (src->strategy.reactivation_grace_ms != 0)
				REFUSE(st, "reactivation_grace",
				       "cannot export reactivation_grace to "
				       "Flink: it is a study knob, and Flink "
				       "reactivates a split at once");
			if (first != NULL &&
			    src->strategy.interval_ms !=
				    first->strategy.interval_ms)
				REFUSE(st, "watermark_interval",
				       "cannot export source %s's watermark "
				       "interval: a Flink job has one "
				       "(pipeline.auto-watermark-interval), "
				       "and an earlier source has another",
				       name);
			if (first == NULL)
				first = src;
		} else if (string_keys(t, s) < 0) {
			REFUSE(st, "input",
			       "cannot export %s %s over string keys and long "
			       "keys at once: a Flink stream is keyed by one "
			       "type",
			       wm_stage_kind_name(st->kind), name);
		} else if (st->kind == WM_STAGE_WINDOW) {
			const struct wm_window_stage_conf *w = &st->u.window;

			if (w->op.assigner.kind == WM_WINDOW_SESSION &&
			    w->op.allowed_lateness > 0)
				REFUSE(st, "allowed_lateness",
				       "cannot export allowed lateness on "
				       "session windows yet: their late "
				       "firings cannot be told apart in "
				       "Flink's merging windows");
			if (w->op.processing_time &&
			    !whole_wall_ms(&w->op.assigner, export_speed(t)))
				REFUSE(st, "size",
				       "cannot export this processing-time "
				       "window at speed %g: Flink's count "
				       "whole "
				       "milliseconds of the wall clock, and "
				       "its "
				       "size, slide or offset divided by the "
				       "speed is none",
				       export_speed(t));
			if (w->op.n_plugin_aggregates > 0)
				REFUSE(st, "aggregates",
				       "cannot export a plugin's aggregate "
				       "function: its code is C, run by wmrun "
				       "(write it as a Flink "
				       "AggregateFunction)");
		} else if (st->kind == WM_STAGE_SINK &&
			   st->u.sink.format == WM_SINK_JSONL) {
			warn(warnings, t, doc, st, "format",
			     "the exported job writes this sink as CSV");
		}
	}
	speed = export_speed_of(t);
	if (speed.speed < t->job.speed) {
		char msg[512], least[128];

		if (speed.least_ms == 1)
			snprintf(least, sizeof(least),
				 "less than the millisecond Flink counts in (a "
				 "watermark interval of 0 turns periodic "
				 "watermarks off)");
		else
			snprintf(least, sizeof(least),
				 "less than Flink's shortest checkpoint "
				 "interval "
				 "and timeout, %" PRId64 " ms",
				 speed.least_ms);
		snprintf(msg, sizeof(msg),
			 "the exported job runs at speed %g, not %g: a "
			 "processing-time duration of %" PRId64
			 " ms would come to %s; every duration keeps its "
			 "ratio to the others and to the records' arrivals, "
			 "and the run takes %g times as long",
			 speed.speed, t->job.speed, speed.ms, least,
			 t->job.speed / speed.speed);
		warn(warnings, t, doc, NULL, "speed", msg);
	}
	if (generated && t->job.records != UINT64_MAX)
		warn(warnings, t, doc, NULL, "records",
		     "a generator ends each partition after its last record, "
		     "the replay of its recording ends a subtask's partitions "
		     "together, with the last of them: a partition that ended "
		     "early in wmrun holds the watermark in Flink until then");
	return check_job(t, doc, err);
}

/* The Java variable of stage `s`: its kind and index ("window2"), never
 * its name, which reaches the text only through java_string() and
 * comment_text(); distinct for distinct stages whatever their names. */
static void
stage_ident(const struct wm_topology *t, uint32_t s, char *buf, size_t len)
{
	snprintf(buf, len, "%s%" PRIu32, wm_stage_kind_name(t->stages[s].kind),
		 s);
}

void
wm_export_flink_trace_name(const struct wm_topology *t, uint32_t stage,
			   char *buf, size_t len)
{
	char id[IDENT_MAX];

	stage_ident(t, stage, id, sizeof(id));
	snprintf(buf, len, "%s.csv", id);
}

/*
 * Every user string (a name, a path, a topic, a property) reaches the Java
 * text through java_string() or comment_text(), and both double every
 * backslash: javac turns an eligible \uXXXX into its character before it
 * reads the source (JLS 3.3), and a backslash preceded by an odd number of
 * backslashes is not eligible, so no escape of the user's survives to
 * end a comment or a literal; java_char() says how every other character
 * is written (controls never as a \u escape, characters beyond ASCII only
 * as the export's own). Identifiers and file names are generated
 * (stage_ident()).
 */

/*
 * The character at s as Java source text inside a string literal or (with
 * `comment`) a // comment, in unit (16 bytes); returns its length, with
 * the bytes of s it took in *used. Every user string reaching Job.java
 * comes through here:
 * - a backslash is doubled, so javac, which turns an eligible \uXXXX into
 *   its character before it reads anything else (JLS 3.3), finds no escape
 *   of the user's; a quote in a literal is escaped; a control character
 *   is an octal escape in a literal, \xNN text in a comment;
 * - every character beyond ASCII is a \uXXXX escape of ours (two, a
 *   surrogate pair, beyond U+FFFF), so that Job.java is ASCII: JDK 17's
 *   javac reads a source in the locale's encoding, and under LANG=C a raw
 *   "\303\266" is an error. These escapes are safe to be translated first:
 *   none of them is a line end, a quote or a backslash.
 * Names and keys are well-formed UTF-8 (checked as they are read); a byte
 * that is not becomes U+FFFD.
 */
static size_t
java_char(char unit[16], const char *s, bool comment, size_t *used)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = wm_utf8_seq(u, SIZE_MAX);
	unsigned long cp;

	*used = len > 0 ? len : 1;
	if (len == 1) {
		if (u[0] == '\\')
			return (size_t)snprintf(unit, 16, "\\\\");
		if (u[0] == '"' && !comment)
			return (size_t)snprintf(unit, 16, "\\\"");
		if (u[0] < 0x20 || u[0] == 0x7f)
			return (size_t)snprintf(
				unit, 16, comment ? "\\x%02x" : "\\%03o", u[0]);
		return (size_t)snprintf(unit, 16, "%c", u[0]);
	}
	cp = len > 0 ? wm_utf8_decode(u, len) : 0xfffdUL;
	if (cp < 0x10000UL)
		return (size_t)snprintf(unit, 16, "\\u%04lx", cp);
	cp -= 0x10000UL;
	return (size_t)snprintf(unit, 16, "\\u%04lx\\u%04lx",
				0xd800UL + (cp >> 10),
				0xdc00UL + (cp & 0x3ffUL));
}

/* `s` as a Java string literal. */
static void
java_string(FILE *f, const char *s)
{
	char unit[16];
	size_t used;

	fputc('"', f);
	for (; *s != '\0'; s += used)
		fwrite(unit, 1, java_char(unit, s, false, &used), f);
	fputc('"', f);
}

/* `s` as text of a // comment, in buf (cut with "..." at `len`, never
 * inside a character), which it returns. */
static const char *
comment_text(char *buf, size_t len, const char *s)
{
	size_t n = 0, used;

	for (; *s != '\0'; s += used) {
		char unit[16];
		size_t k = java_char(unit, s, true, &used);

		if (n + k + 4 > len) {
			snprintf(buf + n, len - n, "...");
			return buf;
		}
		memcpy(buf + n, unit, k);
		n += k;
	}
	buf[n] = '\0';
	return buf;
}

/* The stream a stage reads: its input, or the union of its two. */
static void
input_expr(FILE *f, const struct wm_topology *t, const struct wm_stage *st)
{
	char id[IDENT_MAX];

	stage_ident(t, st->inputs[0].stage, id, sizeof(id));
	fputs(id, f);
	if (st->n_inputs > 1) {
		stage_ident(t, st->inputs[1].stage, id, sizeof(id));
		fprintf(f, ".union(%s)", id);
	}
}

/* The key selector of the records stage `s` reads. */
static const char *
key_selector(const struct wm_topology *t, uint32_t s)
{
	return string_keys(t, s) == 1 ? "new TraceRecord.StringKey()"
				      : "new TraceRecord.Key()";
}

/* The partitioning of a non-keyed edge, as Flink would choose it. */
static void
edge_call(FILE *f, const struct wm_topology *t, uint32_t s)
{
	enum wm_partitioning p = t->stages[s].inputs[0].edge;

	switch (p) {
	case WM_PARTITION_FORWARD:
		fputs(".forward()", f);
		return;
	case WM_PARTITION_REBALANCE:
		fputs(".rebalance()", f);
		return;
	case WM_PARTITION_BROADCAST:
		fputs(".broadcast()", f);
		return;
	case WM_PARTITION_HASH:
		break;
	}
	fprintf(f, ".keyBy(%s)", key_selector(t, s));
}

/* A source's watermark strategy; with a timestamp assigner when the
 * records' timestamps are not the ones the source gave Flink (watermarks
 * per subtask, after noWatermarks(); a Kafka value's timestamp field). */
static void
emit_strategy(FILE *f, const struct wm_source_conf *src, const char *indent)
{
	const struct wm_watermark_strategy *ws = &src->strategy;

	if (ws->punctuated)
		/* Combined: Flink's bounded (ascending: bound 0) generator
		 * and the marks in one, as a user's generator would. */
		fprintf(f, "PunctuatedWatermarks.combinedWith(%" PRId64 ")",
			ws->kind == WM_WATERMARK_BOUNDED
				? ws->out_of_orderness_ms
				: 0);
	else if (ws->kind == WM_WATERMARK_ASCENDING)
		fprintf(f, "WatermarkStrategy.<TraceRecord>"
			   "forMonotonousTimestamps()");
	else if (ws->kind == WM_WATERMARK_PUNCTUATED)
		/* The marks are the trace's punctuate column. */
		fprintf(f, "PunctuatedWatermarks.strategy()");
	else
		fprintf(f,
			"WatermarkStrategy.<TraceRecord>"
			"forBoundedOutOfOrderness(\n"
			"%s        Duration.ofMillis(%" PRId64 "))",
			indent, ws->out_of_orderness_ms);
	if (ws->with_idleness)
		fprintf(f, "\n%s    .withIdleness(processingTime(%" PRId64 "))",
			indent, ws->idle_timeout_ms);
	/* A recorded source's alignment held its records back in the
	 * recording already (flink_record.h). */
	if (src->alignment_group != NULL && src->record == NULL) {
		fprintf(f, "\n%s    .withWatermarkAlignment(", indent);
		java_string(f, src->alignment_group);
		fprintf(f,
			", Duration.ofMillis(%" PRId64 "),\n"
			"%s        processingTime(%" PRId64 "))",
			src->alignment_max_drift_ms, indent,
			src->alignment_update_interval_ms);
	}
	if (src->watermark_per_subtask ||
	    (src->kind == WM_SOURCE_KAFKA && src->kafka->timestamp_from_value))
		fprintf(f,
			"\n%s    .withTimestampAssigner((r, ts) -> "
			"r.timestamp)",
			indent);
}

/* An OffsetsInitializer of Flink for a Kafka position. */
static void
emit_offsets(FILE *f, const struct wm_kafka_conf *kc,
	     const struct wm_kafka_offsets *o)
{
	switch (o->position) {
	case WM_KAFKA_EARLIEST:
	case WM_KAFKA_UNBOUNDED:
		fputs("OffsetsInitializer.earliest()", f);
		return;
	case WM_KAFKA_LATEST:
		fputs("OffsetsInitializer.latest()", f);
		return;
	case WM_KAFKA_COMMITTED:
		fputs("OffsetsInitializer.committedOffsets("
		      "OffsetResetStrategy.EARLIEST)",
		      f);
		return;
	case WM_KAFKA_TIMESTAMP:
		fprintf(f, "OffsetsInitializer.timestamp(%" PRId64 "L)",
			o->timestamp_ms);
		return;
	case WM_KAFKA_OFFSETS:
		break;
	}
	/* Partitions not listed start at their first offset, in both. */
	fputs("OffsetsInitializer.offsets(KafkaRecords.offsets(", f);
	java_string(f, kc->topic);
	for (uint32_t i = 0; i < o->n; i++)
		fprintf(f, ", %" PRIu32 ", %" PRId64 "L", o->partitions[i],
			o->offsets[i]);
	fputs("))", f);
}

/* A client property of the KafkaSource. */
static void
emit_property(FILE *f, const char *name, const char *value)
{
	fputs("\n            .setProperty(", f);
	java_string(f, name);
	fputs(", ", f);
	java_string(f, value);
	fputs(")", f);
}

/* A field's JSON path as KafkaRecords takes it: the names on the way
 * ({"payload", "ts"}, each through java_string(): a path is the
 * user's text), or null for the member of the field's name. */
static void
emit_json_path(FILE *f, const struct wm_json_path *path)
{
	const char *name = path->names;

	if (path->n == 0) {
		fputs("null", f);
		return;
	}
	fputs("{", f);
	for (uint32_t s = 0; s < path->n; s++) {
		fputs(s ? ", " : "", f);
		java_string(f, name);
		name += strlen(name) + 1;
	}
	fputs("}", f);
}

/* Flink's KafkaSource with the settings of a Kafka source, as `id`_kafka. */
static void
emit_kafka_source(FILE *f, const struct wm_stage *st, const char *id)
{
	static const char *const formats[] = {"none", "number", "csv", "json"};
	const struct wm_source_conf *src = &st->u.source;
	const struct wm_kafka_conf *kc = src->kafka;
	bool fields = kc->value_format >= WM_KAFKA_VALUE_CSV;
	char ms[32];

	fprintf(f,
		"        KafkaSource<TraceRecord> %s_kafka = "
		"KafkaSource.<TraceRecord>builder()\n"
		"            .setBootstrapServers(",
		id);
	java_string(f, kc->bootstrap_servers);
	fputs(")\n            .setTopics(", f);
	java_string(f, kc->topic);
	fputs(")", f);
	if (kc->group_id != NULL) {
		fputs("\n            .setGroupId(", f);
		java_string(f, kc->group_id);
		fputs(")", f);
	} else {
		/* wmrun commits nothing without a group. */
		emit_property(f, "commit.offsets.on.checkpoint", "false");
	}
	fputs("\n            .setStartingOffsets(", f);
	emit_offsets(f, kc, &kc->starting);
	fputs(")", f);
	if (kc->stopping.position != WM_KAFKA_UNBOUNDED) {
		fputs("\n            .setBounded(", f);
		emit_offsets(f, kc, &kc->stopping);
		fputs(")", f);
	}
	/* Always: Flink's default interval is not wmrun's. */
	snprintf(ms, sizeof(ms), "%" PRId64, kc->discovery_interval_ms);
	emit_property(f, "partition.discovery.interval.ms", ms);
	for (uint32_t i = 0; i < kc->n_properties; i++)
		emit_property(f, kc->properties[i].name,
			      kc->properties[i].value);
	fputs("\n            .setDeserializer(new KafkaRecords(", f);
	java_string(f, st->name);
	fprintf(f, ", \"%s\", new String[] {", formats[kc->value_format]);
	for (uint32_t i = 0; fields && i < kc->n_fields; i++) {
		fputs(i ? ", " : "", f);
		java_string(f, wm_kafka_field_name(kc->fields[i]));
	}
	fputs("},\n                new String[][] {", f);
	for (uint32_t i = 0; fields && i < kc->n_fields; i++) {
		fputs(i ? ", " : "", f);
		emit_json_path(f, &kc->paths[i]);
	}
	fprintf(f,
		"},\n                %s, %s, %s, %s))\n            .build();\n",
		kc->timestamp_from_value ? "true" : "false",
		kc->key_from_value ? "true" : "false",
		src->key_type == WM_KEY_TYPE_STRING ? "true" : "false",
		src->skip_bad_records ? "true" : "false");
}

/* The ReplaySource of a replayed (or recorded) source, opened in `id`'s
 * fromSource(. */
static void
emit_replay_source(FILE *f, const struct wm_topology *t, uint32_t s,
		   const char *id)
{
	const struct wm_stage *st = &t->stages[s];
	const struct wm_source_conf *src = &st->u.source;
	char file[IDENT_MAX + 8], name[COMMENT_MAX], text[COMMENT_MAX];

	wm_export_flink_trace_name(t, s, file, sizeof(file));
	fprintf(f,
		"        // [source %s]: %s, %" PRIu32 " partitions, "
		"watermarks per %s\n",
		comment_text(name, sizeof(name), st->name),
		src->record != NULL
			? "generated, recorded by wmrun --sim"
			: comment_text(text, sizeof(text), src->replay),
		src->partitions,
		src->watermark_per_subtask ? "subtask" : "split");
	if (src->replay_end_ms >= 0)
		fprintf(f,
			"        // ends at %" PRId64
			" ms%s if its records end "
			"before\n",
			src->replay_end_ms,
			src->record != NULL
				? ", where wmrun's run length ended it,"
				: " (replay_end)");
	if (src->record != NULL && src->alignment_group != NULL)
		fprintf(f,
			"        // not aligned again: alignment (group "
			"\"%s\") "
			"held its records back in the recording\n",
			comment_text(text, sizeof(text), src->alignment_group));
	fprintf(f,
		"        DataStream<TraceRecord> %s = env\n"
		"            .fromSource(new ReplaySource(trace(data, ",
		id);
	java_string(f, file);
	fputs("), ", f);
	java_string(f, wm_source_topic(st)); /* of its split owners */
	fprintf(f, ", %" PRIu32 ", SPEED", src->partitions);
	if (src->replay_end_ms >= 0)
		fprintf(f, ", %" PRId64 "L", src->replay_end_ms);
	fputs(", origin)", f);
}

static void
emit_source(FILE *f, const struct wm_topology *t, uint32_t s)
{
	const struct wm_stage *st = &t->stages[s];
	const struct wm_source_conf *src = &st->u.source;
	char id[IDENT_MAX], name[COMMENT_MAX], topic[COMMENT_MAX];

	stage_ident(t, s, id, sizeof(id));
	if (src->kind == WM_SOURCE_KAFKA) {
		fprintf(f,
			"        // [source %s]: Kafka topic %s, watermarks "
			"per "
			"%s\n",
			comment_text(name, sizeof(name), st->name),
			comment_text(topic, sizeof(topic), src->kafka->topic),
			src->watermark_per_subtask ? "subtask" : "split");
		emit_kafka_source(f, st, id);
		fprintf(f,
			"        DataStream<TraceRecord> %s = env\n"
			"            .fromSource(%s_kafka",
			id, id);
	} else {
		emit_replay_source(f, t, s, id);
	}
	fprintf(f, ",\n                ");
	if (src->watermark_per_subtask)
		fprintf(f, "WatermarkStrategy.noWatermarks()");
	else
		emit_strategy(f, src, "                ");
	fprintf(f, ",\n                ");
	java_string(f, st->name);
	fprintf(f, ")\n            .setParallelism(%" PRIu32 ")",
		st->parallelism);
	if (src->watermark_per_subtask) {
		fprintf(f, "\n            .assignTimestampsAndWatermarks(");
		emit_strategy(f, src, "                ");
		fprintf(f, ")\n            .setParallelism(%" PRIu32 ")",
			st->parallelism);
	}
	/* [job] fail_at: every subtask of every source crashes then, once
	 * (FailAt.java), as every subtask does in wmrun. */
	if (t->job.fail_at_ms != INT64_MAX) {
		fprintf(f, "\n            .transform(");
		java_string(f, st->name);
		fprintf(f, " + \" fail_at\", FailAt.TYPE,\n"
			   "                new FailAt(");
		java_string(f, st->name);
		fprintf(f,
			", %" PRId64 "L, start, SPEED))\n"
			"            .setParallelism(%" PRIu32 ")",
			t->job.fail_at_ms, st->parallelism);
	}
	/* Heartbeats move the watermarks above, then go, as wmrun's source
	 * drops them: those a user's trace holds, a generated source's
	 * recording, or a topic's marked ones. Only then: a filter joins the
	 * source's chain, whose name Flink's metrics carry. */
	if (src->n_heartbeats > 0 || src->trace_heartbeats ||
	    wm_kafka_value_has(src->kafka, WM_KAFKA_FIELD_HEARTBEAT))
		fprintf(f,
			"\n            .filter(new TraceRecord.NoHeartbeats())"
			"\n            .name(\"heartbeats dropped\")"
			"\n            .setParallelism(%" PRIu32 ")",
			st->parallelism);
	fprintf(f, ";\n\n");
}

static void
emit_keyby(FILE *f, const struct wm_topology *t, uint32_t s)
{
	const struct wm_stage *st = &t->stages[s];
	char id[IDENT_MAX], name[COMMENT_MAX];

	stage_ident(t, s, id, sizeof(id));
	fprintf(f, "        // [keyby %s]: records pass unchanged\n",
		comment_text(name, sizeof(name), st->name));
	fprintf(f, "        DataStream<TraceRecord> %s = ", id);
	input_expr(f, t, st);
	edge_call(f, t, s);
	fprintf(f, "\n"
		   "            .map(new TraceRecord.Forward())\n"
		   "            .name(");
	java_string(f, st->name);
	fprintf(f, ")\n            .setParallelism(%" PRIu32 ");\n\n",
		st->parallelism);
}

/* A processing-time window's assigner (ProcessingWindows.java: on the
 * wall clock, aligned to the job's start). */
static void
emit_processing_assigner(FILE *f, const struct wm_window_assigner *a)
{
	if (a->kind == WM_WINDOW_SLIDING)
		fprintf(f,
			"ProcessingWindows.sliding(%" PRId64 "L, %" PRId64
			"L, %" PRId64 "L, start, SPEED)",
			a->size, a->slide, a->offset);
	else
		fprintf(f,
			"ProcessingWindows.tumbling(%" PRId64 "L, %" PRId64
			"L, start, SPEED)",
			a->size, a->offset);
}

static void
emit_assigner(FILE *f, const struct wm_window_assigner *a)
{
	switch (a->kind) {
	case WM_WINDOW_SLIDING:
		fprintf(f,
			"SlidingEventTimeWindows.of(Duration.ofMillis(%" PRId64
			"),\n"
			"                Duration.ofMillis(%" PRId64
			"), Duration.ofMillis(%" PRId64 "))",
			a->size, a->slide, a->offset);
		return;
	case WM_WINDOW_SESSION:
		fprintf(f,
			"EventTimeSessionWindows.withGap(Duration.ofMillis("
			"%" PRId64 "))",
			a->size);
		return;
	case WM_WINDOW_TUMBLING:
		break;
	}
	fprintf(f,
		"TumblingEventTimeWindows.of(Duration.ofMillis(%" PRId64
		"), Duration.ofMillis(%" PRId64 "))",
		a->size, a->offset);
}

/*
 * The sink of the output `path`: a file is exactly-once when the job takes
 * checkpoints, as wmrun's file sinks and late outputs are
 * (CommittedLineSink, its parts under the checkpoint directory in
 * parts/`output`, an identifier of the output alone); otherwise, and
 * always on standard output, which cannot take back what it was given,
 * LineSink's lines, at least once, as in wmrun.
 */
static void
emit_sink_to(FILE *f, const struct wm_topology *t, const char *path,
	     const char *output)
{
	if (checkpoints(t) && strcmp(path, "-") != 0) {
		fputs(".sinkTo(CommittedLineSink.of(output(out, ", f);
		java_string(f, path);
		fprintf(f,
			"),\n"
			"                Paths.get(checkpoints, \"parts\", "
			"\"%s\").toString(), run))",
			output);
		return;
	}
	fputs(".sinkTo(new LineSink(output(out, ", f);
	java_string(f, path);
	fputs(")))", f);
}

/* The sink of a late output of stage `st` (Java variable `id`): the side
 * output `tag`'s records as trace lines into `path`, named after the
 * stage and `side` ("left", "right"; NULL: a window's one late output). */
static void
emit_late_sink(FILE *f, const struct wm_topology *t, const struct wm_stage *st,
	       const char *id, const char *tag, const char *path,
	       const char *side)
{
	fprintf(f, "        LineSink.header(output(out, ");
	java_string(f, path);
	fprintf(f,
		"), \"partition,timestamp,key,value\");\n"
		"        %s.getSideOutput(%s)\n"
		"            .map(new TraceRecord.LateLine())\n"
		"            .setParallelism(%" PRIu32 ")\n"
		"            ",
		id, tag, st->parallelism);
	emit_sink_to(f, t, path, tag);
	fprintf(f, "\n            .name(");
	java_string(f, st->name);
	fprintf(f,
		" + \"%s%s late\")\n"
		"            .setParallelism(%" PRIu32 ");\n",
		side != NULL ? " " : "", side != NULL ? side : "",
		st->parallelism);
}

static void
emit_window(FILE *f, const struct wm_topology *t, uint32_t s)
{
	static const enum wm_aggregate order[] = {
		WM_AGG_COUNT, WM_AGG_SUM, WM_AGG_MIN, WM_AGG_MAX, WM_AGG_AVG};
	const struct wm_stage *st = &t->stages[s];
	const struct wm_window_stage_conf *w = &st->u.window;
	char id[IDENT_MAX], name[COMMENT_MAX];

	stage_ident(t, s, id, sizeof(id));
	fprintf(f, "        // [window %s]\n",
		comment_text(name, sizeof(name), st->name));
	fprintf(f, "        boolean[] %s_columns = {", id);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		fprintf(f, "%s%s", i ? ", " : "",
			w->aggregates & order[i] ? "true" : "false");
	fprintf(f, "};\n");
	if (w->late_output != NULL) {
		fprintf(f,
			"        OutputTag<TraceRecord> %s_late = new "
			"OutputTag<>(",
			id);
		java_string(f, st->name);
		fprintf(f, " + \" late\") {};\n");
	}
	fprintf(f, "        SingleOutputStreamOperator<String> %s = ", id);
	input_expr(f, t, st);
	fprintf(f,
		"\n            .keyBy(%s)\n"
		"            .window(",
		key_selector(t, s));
	if (w->op.processing_time) {
		/* The assigner's own ProcessingTimeTrigger; never late. */
		emit_processing_assigner(f, &w->op.assigner);
		fprintf(f, ")\n");
		if (w->op.purging)
			fprintf(f, "            "
				   ".trigger(org.apache.flink.streaming."
				   "api.windowing.triggers.PurgingTrigger.of(\n"
				   "                "
				   "org.apache.flink.streaming.api."
				   "windowing.triggers.ProcessingTimeTrigger."
				   "create()))\n");
	} else {
		emit_assigner(f, &w->op.assigner);
		fprintf(f,
			")\n"
			"            .trigger(new LateFiringTrigger(%s))\n"
			"            "
			".allowedLateness(Duration.ofMillis(%" PRId64 "))\n",
			w->op.purging ? "true" : "false",
			w->op.allowed_lateness);
	}
	if (w->late_output != NULL)
		fprintf(f, "            .sideOutputLateData(%s_late)\n", id);
	/* Session windows merge: Flink gives their window function no
	 * per-window state, and they have no late firings (refused above). */
	fprintf(f,
		"            .aggregate(new Aggregates(), new "
		"ResultLines<>(%s_columns, %s,\n"
		"                start, SPEED%s))\n"
		"            .name(",
		id,
		w->op.assigner.kind == WM_WINDOW_SESSION ||
				w->op.processing_time
			? "false"
			: "true",
		w->op.processing_time ? ", true" : "");
	java_string(f, st->name);
	fprintf(f,
		")\n"
		"            .setParallelism(%" PRIu32 ")\n"
		"            .setMaxParallelism(%" PRIu32 ");\n",
		st->parallelism, st->max_parallelism);
	if (w->late_output != NULL) {
		char tag[IDENT_MAX + 8];

		snprintf(tag, sizeof(tag), "%s_late", id);
		emit_late_sink(f, t, st, id, tag, w->late_output, NULL);
	}
	fputc('\n', f);
}

/* Whether stage s is read by a stage that is no sink (a join's pairs
 * go on as records), and by a sink. */
static bool
read_by(const struct wm_topology *t, uint32_t s, bool sink)
{
	for (uint32_t d = 0; d < t->n_stages; d++)
		for (uint32_t k = 0; k < t->stages[d].n_inputs; k++)
			if (t->stages[d].inputs[k].stage == s &&
			    (t->stages[d].kind == WM_STAGE_SINK) == sink)
				return true;
	return false;
}

/* A window join (JoinedStreams): both sides keyed alike in the windows
 * of the join's assigner, its pairs whole (JoinLines.WindowPairs). */
static void
emit_window_join(FILE *f, const struct wm_topology *t, uint32_t s,
		 const char *id, const char *left, const char *right)
{
	const struct wm_stage *st = &t->stages[s];
	const struct wm_window_join_config *w = &st->u.join.window;

	fprintf(f,
		"        SingleOutputStreamOperator<JoinLines.Pair> %s_pairs = "
		"%s\n"
		"            .join(%s)\n"
		"            .where(%s)\n"
		"            .equalTo(%s)\n"
		"            .window(",
		id, left, right, key_selector(t, s), key_selector(t, s));
	emit_assigner(f, &w->assigner);
	fprintf(f,
		")\n"
		"            .allowedLateness(Duration.ofMillis(%" PRId64 "))\n"
		"            .apply(new JoinLines.WindowPairs())\n",
		w->allowed_lateness);
}

/* A join: an interval join (Flink's intervalJoin with the bounds as
 * given, and its late outputs) or a window join, its pairs whole
 * (`ID_pairs`), then, chained at its parallelism (the same subtask), as
 * the lines of wmrun's join sink (`ID_lines`, JoinLines) for the sinks
 * that write it, and as records (`ID`, JoinLines.Records) for the stages
 * that read it. */
static void
emit_join(FILE *f, const struct wm_topology *t, uint32_t s)
{
	static const char *const sides[] = {"left", "right"};
	const struct wm_stage *st = &t->stages[s];
	const struct wm_interval_join_config *j = &st->u.join.op;
	char id[IDENT_MAX], left[IDENT_MAX], right[IDENT_MAX];
	char name[COMMENT_MAX];

	stage_ident(t, s, id, sizeof(id));
	stage_ident(t, st->inputs[0].stage, left, sizeof(left));
	stage_ident(t, st->inputs[1].stage, right, sizeof(right));
	fprintf(f, "        // [join %s]: left %s, right %s\n",
		comment_text(name, sizeof(name), st->name), left, right);
	if (st->u.join.windowed) {
		emit_window_join(f, t, s, id, left, right);
	} else {
		for (unsigned k = 0; k < 2; k++) {
			if (st->u.join.late_output[k] == NULL)
				continue;
			fprintf(f,
				"        OutputTag<TraceRecord> %s_%s = new "
				"OutputTag<>(",
				id, sides[k]);
			java_string(f, st->name);
			fprintf(f, " + \" %s late\") {};\n", sides[k]);
		}
		fprintf(f,
			"        SingleOutputStreamOperator<JoinLines.Pair> "
			"%s_pairs = %s\n"
			"            .keyBy(%s)\n"
			"            .intervalJoin(%s.keyBy(%s))\n"
			"            .between(Duration.ofMillis(%" PRId64
			"), Duration.ofMillis(%" PRId64 "))\n",
			id, left, key_selector(t, s), right, key_selector(t, s),
			j->lower, j->upper);
		if (j->lower_exclusive)
			fprintf(f, "            .lowerBoundExclusive()\n");
		if (j->upper_exclusive)
			fprintf(f, "            .upperBoundExclusive()\n");
		if (st->u.join.late_output[WM_JOIN_LEFT] != NULL)
			fprintf(f,
				"            "
				".sideOutputLeftLateData(%s_left)\n",
				id);
		if (st->u.join.late_output[WM_JOIN_RIGHT] != NULL)
			fprintf(f,
				"            "
				".sideOutputRightLateData(%s_right)\n",
				id);
		fprintf(f, "            .process(new "
			   "JoinLines.IntervalPairs())\n");
	}
	fprintf(f, "            .name(");
	java_string(f, st->name);
	fprintf(f,
		")\n"
		"            .setParallelism(%" PRIu32 ")\n"
		"            .setMaxParallelism(%" PRIu32 ");\n",
		st->parallelism, st->max_parallelism);
	if (read_by(t, s, true)) {
		fprintf(f,
			"        SingleOutputStreamOperator<String> %s_lines = "
			"%s_pairs\n"
			"            .process(new JoinLines(start, SPEED))\n"
			"            .name(",
			id, id);
		java_string(f, st->name);
		fprintf(f,
			" + \" pairs\")\n"
			"            .setParallelism(%" PRIu32 ");\n",
			st->parallelism);
	}
	if (read_by(t, s, false)) {
		fprintf(f,
			"        DataStream<TraceRecord> %s = %s_pairs\n"
			"            .process(new JoinLines.Records(%d))\n"
			"            .name(",
			id, id, (int)st->u.join.value);
		java_string(f, st->name);
		fprintf(f,
			" + \" records\")\n"
			"            .setParallelism(%" PRIu32 ");\n",
			st->parallelism);
	}
	for (unsigned k = 0; !st->u.join.windowed && k < 2; k++) {
		char tag[IDENT_MAX + 8], pairs[IDENT_MAX + 8];

		if (st->u.join.late_output[k] == NULL)
			continue;
		snprintf(tag, sizeof(tag), "%s_%s", id, sides[k]);
		snprintf(pairs, sizeof(pairs), "%s_pairs", id);
		emit_late_sink(f, t, st, pairs, tag, st->u.join.late_output[k],
			       sides[k]);
	}
	fputc('\n', f);
}

static void
emit_sink(FILE *f, const struct wm_topology *t, uint32_t s)
{
	const struct wm_stage *st = &t->stages[s];
	const struct wm_stage *win = &t->stages[st->inputs[0].stage];
	bool subtask = st->u.sink.subtask_column;
	char id[IDENT_MAX], output[IDENT_MAX], name[COMMENT_MAX];

	stage_ident(t, st->inputs[0].stage, id, sizeof(id));
	/* A join's lines are their own stream (emit_join()). */
	if (win->kind == WM_STAGE_JOIN)
		strcat(id, "_lines");
	/* At the window's parallelism, chained to it as wmrun chains its
	 * sinks; the window's lines end with its subtask's index, which only
	 * a sink with subtask_column keeps. */
	fprintf(f, "        // [sink %s]\n        LineSink.header(output(out, ",
		comment_text(name, sizeof(name), st->name));
	java_string(f, st->u.sink.path);
	if (win->kind == WM_STAGE_JOIN)
		fprintf(f, "), JoinLines.header(%s));\n",
			subtask ? "true" : "false");
	else
		fprintf(f, "), ResultLines.header(%s_columns, %s));\n", id,
			subtask ? "true" : "false");
	fprintf(f, "        %s", id);
	if (!subtask)
		fprintf(f,
			".map(new ResultLines.WithoutSubtask())\n"
			"            .setParallelism(%" PRIu32
			")\n            ",
			win->parallelism);
	stage_ident(t, s, output, sizeof(output));
	emit_sink_to(f, t, st->u.sink.path, output);
	fprintf(f, "\n            .name(");
	java_string(f, st->name);
	fprintf(f, ")\n            .setParallelism(%" PRIu32 ");\n\n",
		win->parallelism);
}

static const char *
job_name(const struct wm_topology *t)
{
	return t->job.name != NULL ? t->job.name : "wmrun";
}

static bool
has_kafka(const struct wm_topology *t)
{
	for (uint32_t s = 0; s < t->n_stages; s++)
		if (wm_stage_source_is(&t->stages[s], WM_SOURCE_KAFKA))
			return true;
	return false;
}

/* Job.java's opening: where it came from, how to build and run it, and
 * its imports (Kafka's only for a job that reads Kafka, the checkpoints'
 * only for a job that takes them). */
static void
emit_header(FILE *f, const struct wm_topology *t, const char *source_file)
{
	char name[COMMENT_MAX], file[COMMENT_MAX];

	fprintf(f,
		"// Job \"%s\", exported by wmrun " PACKAGE_VERSION
		" --export-flink from %s.\n"
		"// Flink " WM_EXPORT_FLINK_VERSION
		". Build with `mvn -q package`; run it locally on Flink's "
		"MiniCluster\n"
		"// with `mvn -q exec:exec`, or on a cluster with `flink run "
		"target/wmrun-flink-job.jar\n"
		"// DATA_DIR OUT_DIR` (default data and .: the traces, and "
		"where relative\n"
		"// output paths go). README.md says more.\n"
		"package wmrun.flink;\n"
		"\n"
		"import java.nio.file.Paths;\n"
		"import java.time.Duration;\n"
		"\n"
		"import "
		"org.apache.flink.api.common.eventtime.WatermarkStrategy;\n"
		"%s"
		"import org.apache.flink.configuration.Configuration;\n"
		"%s"
		"import org.apache.flink.configuration.PipelineOptions;\n"
		"%s"
		"%s"
		"%s"
		"import org.apache.flink.streaming.api.datastream.DataStream;\n"
		"import org.apache.flink.streaming.api.datastream."
		"SingleOutputStreamOperator;\n"
		"import org.apache.flink.streaming.api.environment."
		"StreamExecutionEnvironment;\n"
		"import org.apache.flink.streaming.api.windowing.assigners."
		"EventTimeSessionWindows;\n"
		"import org.apache.flink.streaming.api.windowing.assigners."
		"SlidingEventTimeWindows;\n"
		"import org.apache.flink.streaming.api.windowing.assigners."
		"TumblingEventTimeWindows;\n"
		"import org.apache.flink.util.OutputTag;\n"
		"%s"
		"\n",
		comment_text(name, sizeof(name), job_name(t)),
		comment_text(file, sizeof(file), source_file),
		checkpoints(t) ? "import org.apache.flink.configuration."
				 "CheckpointingOptions;\n"
			       : "",
		checkpoints(t) ? "import org.apache.flink.configuration."
				 "ExternalizedCheckpointRetention;\n"
				 "import org.apache.flink.configuration."
				 "JobManagerOptions;\n"
			       : "",
		checkpoints(t) ? "import org.apache.flink.configuration."
				 "RestartStrategyOptions;\n"
			       : "",
		has_kafka(t) ? "import org.apache.flink.connector.kafka.source."
			       "KafkaSource;\n"
			       "import org.apache.flink.connector.kafka.source."
			       "enumerator.initializer.OffsetsInitializer;\n"
			     : "",
		checkpoints(t) ? "import org.apache.flink.core.execution."
				 "CheckpointingMode;\n"
			       : "",
		has_kafka(t) ? "import org.apache.kafka.clients.consumer."
			       "OffsetResetStrategy;\n"
			     : "");
}

/* The sources Job.java replays (ReplaySource): every source but
 * Kafka's, which is read, not replayed. */
static uint32_t
replayed_sources(const struct wm_topology *t)
{
	uint32_t n = 0;

	for (uint32_t s = 0; s < t->n_stages; s++)
		if (t->stages[s].kind == WM_STAGE_SOURCE &&
		    t->stages[s].u.source.kind != WM_SOURCE_KAFKA)
			n++;
	return n;
}

/* The class's helpers (SPEED and the conversions of processing time and
 * paths) and the start of main() up to the configuration, which
 * wm_export_flink_job() then fills in. Apart from emit_header() so that
 * each says one part of Job.java: the file's opening, then the class's. */
static void
emit_class_start(FILE *f, const struct wm_topology *t)
{
	fprintf(f,
		"public final class Job {\n"
		"    /** [job] speed, or less where a processing-time "
		"duration would\n"
		"     *  come to under a millisecond: processing time runs "
		"this much\n"
		"     *  faster than the wall clock. */\n"
		"    static final double SPEED = %.17g;\n"
		"\n"
		"    /** A duration of wmrun's processing time on Flink's wall "
		"clock. */\n"
		"    static Duration processingTime(long millis) {\n"
		"        return Duration.ofNanos((long) (millis * 1e6 / "
		"SPEED));\n"
		"    }\n"
		"\n"
		"    static String trace(String dir, String name) {\n"
		"        return Paths.get(dir, "
		"name).toAbsolutePath().toString();\n"
		"    }\n"
		"\n"
		"    /** An output path of the topology: \"-\" and absolute "
		"paths as they are. */\n"
		"    static String output(String dir, String path) {\n"
		"        return path.equals(\"-\") || "
		"Paths.get(path).isAbsolute() "
		"? path\n"
		"                : Paths.get(dir, path).toString();\n"
		"    }\n"
		"\n"
		"    public static void main(String[] args) throws Exception "
		"{\n"
		"        String data = args.length > 0 ? args[0] : \"data\";\n"
		"        String out = args.length > 1 ? args[1] : \".\";\n"
		"        long start = System.currentTimeMillis();\n",
		export_speed(t));
	/* Processing time's zero: the moment the last reader of the
	 * replays has registered (JobOrigin.java); main()'s start is the
	 * zero of a job without replays, whose sources Kafka paces. */
	if (replayed_sources(t) > 0)
		fprintf(f,
			"        JobOrigin origin = new JobOrigin(%" PRIu32
			");\n",
			replayed_sources(t));
	fputs("        Configuration conf = new Configuration();\n"
	      "        PrometheusReporting.configure(conf);\n",
	      f);
}

/* `v` as a Java double literal: the shortest decimal that reads back as
 * `v` (0.1, not 0.10000000000000001), with a point or an exponent. */
static void
java_double(FILE *f, double v)
{
	char text[40];

	for (int digits = 1; digits <= 17; digits++) {
		snprintf(text, sizeof(text), "%.*g", digits, v);
		if (strtod(text, NULL) == v)
			break;
	}
	fprintf(f, "%s%s", text, strpbrk(text, ".eE") != NULL ? "" : ".0");
}

/* A RestartStrategyOptions setting: `option`'s name after
 * RESTART_STRATEGY_, then the value's text up to the end of the line. */
static void
restart_option(FILE *f, const char *option)
{
	fprintf(f,
		"        conf.set(RestartStrategyOptions.RESTART_STRATEGY_%s,\n"
		"            ",
		option);
}

/*
 * [job]'s checkpoints and restarts as Flink's options, every duration of
 * processing time on the wall clock (processingTime()): checkpoints every
 * checkpoint_interval, exactly once, aborted after checkpoint_timeout, in
 * checkpoint_dir (a file:// URI, relative to the outputs' directory), the
 * last checkpoints_retained kept, on failure too, as wmrun keeps them for
 * --resume. A checkpoint given up does not fail the job, as in wmrun
 * (Flink's default tolerates none); a failure restarts every task, as
 * wmrun's crash does (Flink's default restarts a failed task's region).
 * The restart strategy is always written: wmrun's default, Flink's with
 * checkpoints, counts its delays in processing time, which Flink's would
 * count on the wall clock. `checkpoints` (the directory's path) and `run`
 * (CommittedLineSink's id of this run) are for the file outputs.
 */
static void
emit_checkpoints(FILE *f, const struct wm_topology *t)
{
	static const char *const kinds[] = WM_RESTART_KIND_NAMES;
	const struct wm_job_conf *job = &t->job;
	const struct wm_restart_config *r = &job->restart;

	fputs("        // [job] checkpoints and restarts\n"
	      "        String checkpoints = output(out, ",
	      f);
	java_string(f, job->checkpoint_dir);
	fprintf(f,
		");\n"
		"        String run = CommittedLineSink.newRun();\n"
		"        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, "
		"processingTime(%" PRId64 "));\n"
		"        conf.set(CheckpointingOptions."
		"CHECKPOINTING_CONSISTENCY_MODE,\n"
		"            CheckpointingMode.EXACTLY_ONCE);\n"
		"        conf.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, "
		"processingTime(%" PRId64 "));\n"
		"        "
		"conf.set(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER, "
		"Integer.MAX_VALUE);\n"
		"        conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "
		"\"filesystem\");\n"
		"        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY,\n"
		"            Paths.get(checkpoints).toUri().toString());\n"
		"        "
		"conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, "
		"%" PRIu32 ");\n"
		"        conf.set(CheckpointingOptions."
		"EXTERNALIZED_CHECKPOINT_RETENTION,\n"
		"            ExternalizedCheckpointRetention."
		"RETAIN_ON_CANCELLATION);\n"
		"        "
		"conf.set(JobManagerOptions.EXECUTION_FAILOVER_STRATEGY, "
		"\"full\");\n"
		"        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "
		"\"%s\");\n",
		job->checkpoint_interval_ms, job->checkpoint_timeout_ms,
		job->checkpoints_retained, kinds[r->kind]);
	if (r->kind == WM_RESTART_FIXED_DELAY) {
		restart_option(f, "FIXED_DELAY_ATTEMPTS");
		fprintf(f, "%" PRIu32 ");\n", r->attempts);
		restart_option(f, "FIXED_DELAY_DELAY");
		fprintf(f, "processingTime(%" PRId64 "));\n", r->delay_ms);
	} else if (r->kind == WM_RESTART_EXPONENTIAL_DELAY) {
		restart_option(f, "EXPONENTIAL_DELAY_INITIAL_BACKOFF");
		fprintf(f, "processingTime(%" PRId64 "));\n",
			r->initial_delay_ms);
		restart_option(f, "EXPONENTIAL_DELAY_MAX_BACKOFF");
		fprintf(f, "processingTime(%" PRId64 "));\n", r->max_delay_ms);
		restart_option(f, "EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER");
		java_double(f, r->multiplier);
		fputs(");\n", f);
		restart_option(f, "EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD");
		fprintf(f, "processingTime(%" PRId64 "));\n",
			r->reset_threshold_ms);
		restart_option(f, "EXPONENTIAL_DELAY_JITTER_FACTOR");
		java_double(f, r->jitter);
		fputs(");\n", f);
		restart_option(f, "EXPONENTIAL_DELAY_ATTEMPTS");
		fprintf(f, "%" PRIu32 ");\n", r->attempts);
	}
}

void
wm_export_flink_job(FILE *f, const struct wm_topology *t,
		    const char *source_file)
{
	int64_t interval = t->job.watermark_interval_ms;

	for (uint32_t s = 0; s < t->n_stages; s++)
		if (t->stages[s].kind == WM_STAGE_SOURCE) {
			interval = t->stages[s].u.source.strategy.interval_ms;
			break;
		}
	emit_header(f, t, source_file);
	emit_class_start(f, t);
	fprintf(f,
		"        conf.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, "
		"processingTime(%" PRId64 "));\n",
		interval);
	/* The same leave in both: Flink's SourceOperator ignores a reader's
	 * UnsupportedOperationException from pauseOrResumeSplits, aligning
	 * its subtask only, and still pauses the splits of a reader that
	 * can; wmrun aligns per subtask only the sources without a pause
	 * op. ReplayReader and every wmrun source can pause a split. */
	if (t->job.allow_unaligned_source_splits)
		fputs("        conf.set(PipelineOptions."
		      "ALLOW_UNALIGNED_SOURCE_SPLITS, true);\n",
		      f);
	if (checkpoints(t))
		emit_checkpoints(f, t);
	fprintf(f, "        StreamExecutionEnvironment env =\n"
		   "            "
		   "StreamExecutionEnvironment.getExecutionEnvironment("
		   "conf);\n\n");
	for (uint32_t s = 0; s < t->n_stages; s++) {
		switch (t->stages[s].kind) {
		case WM_STAGE_SOURCE:
			emit_source(f, t, s);
			break;
		case WM_STAGE_KEYBY:
			emit_keyby(f, t, s);
			break;
		case WM_STAGE_WINDOW:
			emit_window(f, t, s);
			break;
		case WM_STAGE_SINK:
			emit_sink(f, t, s);
			break;
		case WM_STAGE_JOIN:
			emit_join(f, t, s);
			break;
		case WM_STAGE_MAP: /* refused by wm_export_flink_check() */
			break;
		}
	}
	fprintf(f, "        env.execute(");
	java_string(f, job_name(t));
	fprintf(f, ");\n    }\n}\n");
}
