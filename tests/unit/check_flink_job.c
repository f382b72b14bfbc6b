/*
 * check_flink_job.c
 *	Unit tests for runtime/export/flink_job.[ch]: what the Flink export
 *	refuses and where it says so, and the Java it writes for each setting
 *	that maps to a Flink call. The exported text as a whole is guarded by
 *	tests/integration/export_flink_golden.sh; real Flink runs it in
 *	tests/integration/flink_agrees_on_replay_traces.sh.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/conf/ini.h"
#include "runtime/conf/topology.h"
#include "runtime/export/flink_job.h"
#include "tests/unit/check_main.h"

/* A replay job with `source` and `window` lines added to its sections. */
static char *
job_text(const char *job, const char *source, const char *window)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	fprintf(f,
		"[job]\nname = j\n%s"
		"[source s]\nparallelism = 2\npartitions = 2\n"
		"replay = trace.csv\n%s"
		"[window w]\ninput = s\nparallelism = 2\nsize = 10 s\n"
		"aggregates = count, sum\n%s"
		"[sink o]\ninput = w\nparallelism = 2\npath = out.csv\n",
		job, source, window);
	fclose(f);
	return text;
}

/* Export check of that job: its return, *err filled; warnings into
 * *warned (free it). */
static int
check_text(const char *text, struct wm_ini_error *err, char **warned)
{
	struct wm_topology *t = NULL;
	struct wm_ini_doc *doc = NULL;
	struct wm_ini_error lerr;
	size_t len = 0;
	FILE *w = open_memstream(warned, &len);
	int r;

	ck_assert_int_eq(wm_topology_load_buffer(text, strlen(text), "t.conf",
						 &t, &lerr),
			 0);
	ck_assert_int_eq(wm_ini_parse_buffer(text, strlen(text), "t.conf", NULL,
					     &doc, &lerr),
			 0);
	r = wm_export_flink_check(t, doc, w, err);
	fclose(w);
	wm_ini_free(doc);
	wm_topology_free(t);
	return r;
}

/* The Java of that job (free it). */
static char *
java_of(const char *text)
{
	struct wm_topology *t = NULL;
	struct wm_ini_error err;
	char *java = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&java, &len);

	ck_assert_int_eq(
		wm_topology_load_buffer(text, strlen(text), "t.conf", &t, &err),
		0);
	ck_assert_int_eq(wm_export_flink_check(t, NULL, stderr, &err), 0);
	wm_export_flink_job(f, t, "t.conf");
	fclose(f);
	wm_topology_free(t);
	return java;
}

static void
expect_refused(const char *job, const char *source, int line, int col,
	       const char *words)
{
	struct wm_ini_error err;
	char *text = job_text(job, source, ""), *warned = NULL;

	ck_assert_int_eq(check_text(text, &err, &warned), -EINVAL);
	ck_assert_msg(err.line == line && err.col == col,
		      "refused at %d:%d, not %d:%d: %s", err.line, err.col,
		      line, col, err.msg);
	ck_assert_msg(strstr(err.msg, words) != NULL, "\"%s\" lacks \"%s\"",
		      err.msg, words);
	free(warned);
	free(text);
}

START_TEST(test_flink_export_refuses_study_knobs_at_their_key)
{
	expect_refused("all_idle = max\n", "", 3, 1,
		       "cannot export all_idle = max");
	expect_refused("flink_behaviour = master\n", "", 3, 1,
		       "differ by +VALVE_FLUSH_UNCONDITIONAL,"
		       "+VALVE_REDERIVE_ON_ACTIVE,+MUX_EMPTY_IS_IDLE,"
		       "+MUX_REACTIVATE,+DRAIN_ACTIVE_BEFORE_MAX");
	expect_refused("", "reactivation_grace = 1 s\n", 7, 1,
		       "reactivation_grace");
	expect_refused("processing_time = 1 h\n", "", 3, 1,
		       "run length in processing time over replayed source");
}
END_TEST

/* The exported job runs Flink 2.3.0: its rules export, no others, and a
 * refusal names the flags that differ at the key that set them. */
START_TEST(test_flink_export_takes_exactly_the_rules_of_its_flink)
{
	static const char *const same[] = {
		"",
		"flink_behaviour = flink-2.3\n",
		"flink_behaviour = released\n",
		"flink_behaviour = flink-2.1, MUX_ALLIDLE_FLUSH_MAX\n",
		"flink_behaviour = master\nvalve_flush_unconditional = false\n"
		"valve_rederive_on_active = false\nmux_empty_is_idle = no\n"
		"mux_reactivate = off\ndrain_active_before_max = false\n",
	};
	struct wm_ini_error err;
	char *warned = NULL;

	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		char *text = job_text(same[i], "", "");

		ck_assert_msg(check_text(text, &err, &warned) == 0,
			      "\"%s\" refused: %s", same[i], err.msg);
		ck_assert_str_eq(warned, "");
		free(warned);
		free(text);
	}
	expect_refused("flink_behaviour = flink-2.1\n", "", 3, 1,
		       "runs Flink 2.3.0, whose rules are flink_behaviour = "
		       "flink-2.3, and this job's differ by "
		       "-MUX_ALLIDLE_FLUSH_MAX");
	expect_refused("seed = 1\nmux_allidle_flush_max = false\n", "", 4, 1,
		       "differ by -MUX_ALLIDLE_FLUSH_MAX");
	expect_refused("seed = 1\nmux_reactivate = true\n", "", 4, 1,
		       "differ by +MUX_REACTIVATE");
	expect_refused("idle_mark_once = false\n", "", 3, 1,
		       "differ by -IDLE_MARK_ONCE");
}
END_TEST

/* A generated source in front of a window, its [job] lines `job` and its
 * source's `source`. */
static char *
generated_text(const char *job, const char *source)
{
	char *text = NULL;

	ck_assert_int_ge(asprintf(&text,
				  "[job]\n%s"
				  "[source s]\npartitions = 2\nrate = 1/s\n%s"
				  "[window w]\ninput = s\nsize = 1 s\n"
				  "[sink o]\ninput = w\npath = -\n",
				  job, source),
			 0);
	return text;
}

/* A generated source is exported through its recording, which needs a
 * run length to end, cannot carry what alignment did to idleness, and
 * ends partitions bounded by records later than wmrun (a warning). */
START_TEST(test_flink_export_records_what_a_recording_carries)
{
	static const struct {
		const char *job, *source;
		int r, line, col;
		const char *words;
	} cases[] = {
		{"", "", -EINVAL, 4, 1, "without a run length"},
		{"event_time = 1 h\n",
		 "idle_timeout = 1 s\nwatermark_alignment_group = g\n"
		 "watermark_alignment_max_drift = 1 s\n",
		 -EINVAL, 7, 1,
		 "alignment of generated source \"s\" with idle"},
		{"event_time = 1 h\n",
		 "watermark_alignment_group = g\nwatermark_alignment_max_drift "
		 "= 1 s\n",
		 0, 0, 0, NULL},
		{"processing_time = 1 h\n", "", 0, 0, 0, NULL},
		{"records = 10\n", "", 0, 2, 1,
		 "warning: a generator ends each"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = generated_text(cases[i].job, cases[i].source);
		char *warned = NULL, msg[WM_INI_MSG_MAX + 256];
		struct wm_ini_error err;

		ck_assert_int_eq(check_text(text, &err, &warned), cases[i].r);
		if (cases[i].r != 0) {
			ck_assert_int_eq(err.line, cases[i].line);
			ck_assert_int_eq(err.col, cases[i].col);
			ck_assert_msg(strstr(err.msg, cases[i].words) != NULL,
				      "%s", err.msg);
		} else if (cases[i].words != NULL) {
			snprintf(msg, sizeof(msg), "wmrun: t.conf:%d:%d: %s",
				 cases[i].line, cases[i].col, cases[i].words);
			ck_assert_msg(strncmp(warned, msg, strlen(msg)) == 0,
				      "%s", warned);
		} else {
			ck_assert_str_eq(warned, "");
		}
		free(warned);
		free(text);
	}
}
END_TEST

/* replay_end needs every subtask to have a partition: wmrun's without
 * one wait for the end, Flink's end at once. */
START_TEST(test_flink_export_refuses_an_end_for_subtasks_without_partitions)
{
	const char *text = "[source s]\npartitions = 1\nparallelism = 2\n"
			   "replay = t.csv\nreplay_end = 1 min\n"
			   "[window w]\ninput = s\nsize = 1 s\n"
			   "[sink o]\ninput = w\npath = -\n";
	struct wm_ini_error err;
	char *warned = NULL;

	ck_assert_int_eq(check_text(text, &err, &warned), -EINVAL);
	ck_assert_int_eq(err.line, 5);
	ck_assert_ptr_nonnull(strstr(err.msg, "more subtasks than partitions"));
	free(warned);
}
END_TEST

START_TEST(test_flink_export_warns_of_a_jsonl_sink)
{
	const char *text = "[source s]\npartitions = 1\nparallelism = 1\n"
			   "replay = t.csv\n"
			   "[window w]\ninput = s\nparallelism = 1\n"
			   "size = 1 s\n"
			   "[sink o]\ninput = w\nparallelism = 1\npath = -\n"
			   "format = jsonl\n";
	struct wm_ini_error err;
	char *warned = NULL;

	ck_assert_int_eq(check_text(text, &err, &warned), 0);
	ck_assert_str_eq(warned, "wmrun: t.conf:13:1: warning: the exported "
				 "job writes this sink as CSV\n");
	free(warned);
}
END_TEST

static void
expect_java(const char *java, const char *line)
{
	ck_assert_msg(strstr(java, line) != NULL, "no \"%s\" in:\n%s", line,
		      java);
}

START_TEST(test_flink_export_maps_watermarks_per_split)
{
	char *text = job_text("speed = 4\n",
			      "out_of_orderness = 2 s\nidle_timeout = 3 s\n"
			      "watermark_interval = 100 ms\n",
			      "max_parallelism = 7\noffset = 1 s\n"
			      "allowed_lateness = 5 s\nlate_output = l.csv\n");
	char *java = java_of(text);

	expect_java(java, "static final double SPEED = 4;");
	expect_java(java, "AUTO_WATERMARK_INTERVAL, processingTime(100));");
	expect_java(java, "JobOrigin origin = new JobOrigin(1);");
	expect_java(java, ".fromSource(new ReplaySource(trace(data, "
			  "\"source0.csv\"), \"s\", 2, SPEED, origin),\n"
			  "                WatermarkStrategy.<TraceRecord>"
			  "forBoundedOutOfOrderness(\n"
			  "                        Duration.ofMillis(2000))\n"
			  "                    .withIdleness(processingTime("
			  "3000)),");
	expect_java(java, "TumblingEventTimeWindows.of(Duration.ofMillis("
			  "10000), Duration.ofMillis(1000))");
	expect_java(java, ".allowedLateness(Duration.ofMillis(5000))\n"
			  "            .sideOutputLateData(window1_late)");
	expect_java(java, ".setParallelism(2)\n"
			  "            .setMaxParallelism(7);");
	expect_java(java, "boolean[] window1_columns = {true, true, false, "
			  "false, false};");
	free(java);
	free(text);
}
END_TEST

START_TEST(test_flink_export_maps_watermarks_per_subtask)
{
	char *text = job_text("",
			      "watermark = ascending\n"
			      "watermark_at = subtask\n",
			      "type = sliding\nslide = 5 s\n");
	char *java = java_of(text);

	expect_java(java, "WatermarkStrategy.noWatermarks(),");
	expect_java(java, ".assignTimestampsAndWatermarks("
			  "WatermarkStrategy.<TraceRecord>"
			  "forMonotonousTimestamps()\n"
			  "                    .withTimestampAssigner((r, ts) "
			  "-> r.timestamp))");
	expect_java(java, "SlidingEventTimeWindows.of(Duration.ofMillis(10000),"
			  "\n                Duration.ofMillis(5000), "
			  "Duration.ofMillis(0))");
	expect_java(java, ".setMaxParallelism(128);");
	free(java);
	free(text);
}
END_TEST

/* Alignment of a replayed source exports as it is, and so does the leave
 * to align readers that cannot pause splits per subtask only, which
 * means the same in Flink and in wmrun. */
START_TEST(test_flink_export_aligns_replayed_splits)
{
	char *text = job_text("pipeline.watermark-alignment.allow-unaligned-"
			      "source-splits = true\n",
			      "watermark_alignment_group = g\n"
			      "watermark_alignment_max_drift = 2 s\n"
			      "watermark_alignment_update_interval = 250 ms\n",
			      "");
	char *java = java_of(text);

	expect_java(java, "        conf.set(PipelineOptions."
			  "ALLOW_UNALIGNED_SOURCE_SPLITS, true);\n"
			  "        StreamExecutionEnvironment env =");
	expect_java(java, ".withWatermarkAlignment(\"g\", "
			  "Duration.ofMillis(2000),\n"
			  "                        processingTime(250)),");
	free(java);
	free(text);

	text = job_text("",
			"watermark_alignment_group = g\n"
			"watermark_alignment_max_drift = 2 s\n",
			"");
	java = java_of(text);
	expect_java(java, ".withWatermarkAlignment(\"g\", "
			  "Duration.ofMillis(2000),\n"
			  "                        processingTime(1000)),");
	ck_assert_ptr_null(strstr(java, "ALLOW_UNALIGNED_SOURCE_SPLITS"));
	free(java);
	free(text);
}
END_TEST

/* A recorded source, as flink_record.c leaves it: a replay of its
 * recording that ends where the run length ended it, not aligned again;
 * a replayed one ends at its replay_end. */
START_TEST(test_flink_export_replays_a_recording_to_its_end)
{
	char *text = generated_text("event_time = 1 h\n",
				    "watermark_alignment_group = g\n"
				    "watermark_alignment_max_drift = 1 s\n");
	struct wm_topology *t = NULL;
	struct wm_source_conf *src;
	struct wm_ini_error err;
	char *java = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&java, &len);

	ck_assert_int_eq(
		wm_topology_load_buffer(text, strlen(text), "t.conf", &t, &err),
		0);
	src = &t->stages[0].u.source;
	src->record = strdup("out/data/s.csv");
	src->replay = strdup("out/data/s.csv");
	src->kind = WM_SOURCE_REPLAY;
	src->replay_end_ms = 3600000;
	wm_export_flink_job(f, t, "t.conf");
	fclose(f);
	expect_java(java, "// [source s]: generated, recorded by wmrun --sim, "
			  "2 partitions");
	expect_java(java,
		    "new ReplaySource(trace(data, \"source0.csv\"), \"s\", 2, "
		    "SPEED, 3600000L, origin),");
	expect_java(java, "// not aligned again");
	ck_assert_ptr_null(strstr(java, "withWatermarkAlignment"));
	wm_topology_free(t);
	free(java);
	free(text);

	text = job_text("", "replay_end = 5 s\n", "");
	java = java_of(text);
	expect_java(java, "\"source0.csv\"), \"s\", 2, SPEED, 5000L, origin),");
	expect_java(java, "// ends at 5000 ms (replay_end) if its records "
			  "end before\n");
	free(java);
	free(text);
}
END_TEST

/* A session window's function reads no per-window state: Flink refuses
 * it for merging windows, and they have no late firings to note. */
START_TEST(test_flink_export_reads_no_window_state_of_sessions)
{
	char *session = job_text("", "", "type = session\n");
	char *tumbling = job_text("", "", "");
	char *size = strstr(session, "size");
	char *java;

	memcpy(size, "gap ", 4); /* "gap  = 10 s" */
	java = java_of(session);

	expect_java(java, "EventTimeSessionWindows.withGap(");
	expect_java(java, "new ResultLines<>(window1_columns, false,");
	free(java);
	java = java_of(tumbling);
	expect_java(java, "new ResultLines<>(window1_columns, true,");
	free(java);
	free(tumbling);
	free(session);
}
END_TEST

/* The window's lines end with its subtask: a sink keeps the column only
 * with subtask_column, as in wmrun. */
/* A Kafka job with `job` and `source` lines added to its sections. */
static char *
kafka_text(const char *job, const char *source)
{
	char *text = NULL;

	ck_assert_int_ge(asprintf(&text,
				  "[job]\nname = j\n%s"
				  "[source s]\nparallelism = 2\n"
				  "kafka.bootstrap_servers = b:9092\n"
				  "kafka.topic = events\n%s"
				  "[window w]\ninput = s\nsize = 10 s\n"
				  "[sink o]\ninput = w\npath = out.csv\n",
				  job, source),
			 0);
	return text;
}

/* A Kafka source is Flink's KafkaSource with its settings; what
 * Flink's cannot say is refused at its key (line 7: the first source
 * line added; 3: [job]'s). */
START_TEST(test_flink_export_reads_a_kafka_topic_with_kafka_source)
{
	static const struct {
		const char *job, *source;
		int line;
		const char *words;
	} refused[] = {
		{"processing_time = 1 h\n", "", 3,
		 "processing time over Kafka source"},
		{"", "kafka.stopping_offsets = offsets 0:5\n", 7,
		 "stopping offsets per partition"},
	};
	struct wm_ini_error err;
	char *text, *warned = NULL, *java;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		text = kafka_text(refused[i].job, refused[i].source);
		ck_assert_int_eq(check_text(text, &err, &warned), -EINVAL);
		ck_assert_int_eq(err.line, refused[i].line);
		ck_assert_msg(strstr(err.msg, refused[i].words) != NULL,
			      "\"%s\" lacks \"%s\"", err.msg, refused[i].words);
		free(warned);
		free(text);
	}
	text = kafka_text("", "kafka.broker_timeout = 5 s\n");
	ck_assert_int_eq(check_text(text, &err, &warned), 0);
	ck_assert_ptr_nonnull(strstr(warned, "t.conf:7:1: warning: Flink's "
					     "KafkaSource has no broker "
					     "timeout"));
	free(warned);
	free(text);
	text = kafka_text("", "kafka.group_id = g\n"
			      "kafka.starting_offsets = timestamp 1000\n"
			      "kafka.stopping_offsets = latest\n"
			      "kafka.value_format = json\n"
			      "kafka.value_fields = timestamp, key, value\n"
			      "kafka.timestamp = value\n"
			      "kafka.security.protocol = PLAINTEXT\n");
	java = java_of(text);
	ck_assert_ptr_nonnull(strstr(java, ".setGroupId(\"g\")"));
	ck_assert_ptr_nonnull(strstr(
		java,
		".setStartingOffsets(OffsetsInitializer.timestamp(1000L))"));
	ck_assert_ptr_nonnull(
		strstr(java, ".setBounded(OffsetsInitializer.latest())"));
	/* Kafka paces its own records: main()'s start is fire_time's zero. */
	ck_assert_ptr_null(strstr(java, "JobOrigin"));
	ck_assert_ptr_nonnull(strstr(java,
				     ".setProperty(\"security.protocol\", "
				     "\"PLAINTEXT\")"));
	ck_assert_ptr_nonnull(strstr(java, "\"json\", new String[] "
					   "{\"timestamp\", \"key\", "
					   "\"value\"}"));
	ck_assert_ptr_nonnull(
		strstr(java, ".withTimestampAssigner((r, ts) -> r.timestamp)"));
	ck_assert_ptr_nonnull(
		strstr(java, ".keyBy(new TraceRecord.StringKey())"));
	free(java);
	free(text);
}
END_TEST

/* JSON fields at paths reach KafkaRecords as the names on the way, each
 * a Java literal: a path is the user's text (a quote, a backslash before
 * u000a, which javac would translate first, must stay in the string). */
START_TEST(test_flink_export_passes_json_paths_as_literals)
{
	char *text =
		kafka_text("", "kafka.value_format = json\n"
			       "kafka.value_fields = timestamp = $.payload.ts, "
			       "key = $['x\\\\u000a\").halt(1);//'], value\n"
			       "kafka.timestamp = value\nkafka.key = value\n");
	char *java = java_of(text);

	ck_assert_msg(strstr(java,
			     "new String[][] {{\"payload\", \"ts\"}, "
			     "{\"x\\\\u000a\\\").halt(1);//\"}, null}") != NULL,
		      "%s", java);
	free(java);
	free(text);
	/* CSV columns have no paths. */
	text = kafka_text("", "kafka.value_format = csv\n"
			      "kafka.value_fields = timestamp, key, value\n"
			      "kafka.timestamp = value\n");
	java = java_of(text);
	ck_assert_ptr_nonnull(
		strstr(java, "new String[][] {null, null, null}"));
	free(java);
	free(text);
}
END_TEST

START_TEST(test_flink_export_keeps_the_subtask_column_where_asked)
{
	char *plain = job_text("", "", "");
	char *java = java_of(plain);
	size_t len = strlen(plain) + sizeof("subtask_column = true\n");
	char *with = malloc(len);

	expect_java(java,
		    "ResultLines.header(window1_columns, false));\n"
		    "        window1.map(new ResultLines.WithoutSubtask())"
		    "\n            .setParallelism(2)\n"
		    "            .sinkTo(new LineSink(");
	free(java);
	ck_assert_ptr_nonnull(with);
	snprintf(with, len, "%ssubtask_column = true\n", plain);
	java = java_of(with);
	expect_java(java, "ResultLines.header(window1_columns, true));\n"
			  "        window1.sinkTo(new LineSink(");
	ck_assert_ptr_null(strstr(java, "WithoutSubtask"));
	free(java);
	free(with);
	free(plain);
}
END_TEST

/* The checkpoint keys every test of the checkpoints starts from. */
#define CHECKPOINTS "checkpoint_interval = 1 min\ncheckpoint_dir = ck\n"

/* [job]'s checkpoints, restarts and crash as Flink's options, each
 * processing-time duration through processingTime() (divided by SPEED
 * once, in Java), and the file outputs exactly-once where wmrun's are. */
START_TEST(test_flink_export_takes_checkpoints_and_restarts)
{
	char *text =
		job_text("speed = 4\n" CHECKPOINTS "checkpoints_retained = 3\n"
			 "checkpoint_timeout = 2 min\nfail_at = 90 s\n"
			 "restart_strategy = fixed-delay\n"
			 "restart_attempts = 2\nrestart_delay = 5 s\n",
			 "", "late_output = late.csv\n");
	char *java = java_of(text);

	expect_java(java, "static final double SPEED = 4;");
	expect_java(java, "String checkpoints = output(out, \"ck\");");
	expect_java(java, "CHECKPOINTING_INTERVAL, processingTime(60000));");
	expect_java(java, "CHECKPOINTING_CONSISTENCY_MODE,\n"
			  "            CheckpointingMode.EXACTLY_ONCE);");
	expect_java(java, "CHECKPOINTING_TIMEOUT, processingTime(120000));");
	expect_java(java, "CHECKPOINTS_DIRECTORY,\n"
			  "            Paths.get(checkpoints).toUri()");
	expect_java(java, "MAX_RETAINED_CHECKPOINTS, 3);");
	expect_java(java, "TOLERABLE_FAILURE_NUMBER, Integer.MAX_VALUE);");
	expect_java(java, "EXECUTION_FAILOVER_STRATEGY, \"full\");");
	expect_java(java, "RESTART_STRATEGY, \"fixed-delay\");");
	expect_java(java, "RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS,\n"
			  "            2);");
	expect_java(java, "RESTART_STRATEGY_FIXED_DELAY_DELAY,\n"
			  "            processingTime(5000));");
	expect_java(java,
		    ".setParallelism(2)\n"
		    "            .transform(\"s\" + \" fail_at\", "
		    "FailAt.TYPE,\n"
		    "                new FailAt(\"s\", 90000L, start, SPEED))"
		    "\n            .setParallelism(2);");
	expect_java(java, ".sinkTo(CommittedLineSink.of(output(out, "
			  "\"out.csv\"),\n"
			  "                Paths.get(checkpoints, \"parts\", "
			  "\"sink2\").toString(), run))");
	expect_java(java, ".sinkTo(CommittedLineSink.of(output(out, "
			  "\"late.csv\"),\n"
			  "                Paths.get(checkpoints, \"parts\", "
			  "\"window1_late\").toString(), run))");
	free(java);
	free(text);
}
END_TEST

/* Without restart_strategy wmrun runs Flink's default with checkpoints,
 * which the export writes out, its delays in processing time; none is
 * none; standard output stays at least once; and without checkpoints
 * nothing of them is written. */
START_TEST(test_flink_export_writes_the_default_restart_strategy)
{
	char *dflt = job_text(CHECKPOINTS, "", "");
	char *none = job_text(CHECKPOINTS "restart_strategy = none\n", "", "");
	char *plain = job_text("", "", "");
	char *java = java_of(dflt);

	expect_java(java, "RESTART_STRATEGY, \"exponential-delay\");");
	expect_java(java, "EXPONENTIAL_DELAY_INITIAL_BACKOFF,\n"
			  "            processingTime(1000));");
	expect_java(java, "EXPONENTIAL_DELAY_MAX_BACKOFF,\n"
			  "            processingTime(60000));");
	expect_java(java, "EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER,\n"
			  "            1.5);");
	expect_java(java, "EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD,\n"
			  "            processingTime(3600000));");
	expect_java(java, "EXPONENTIAL_DELAY_JITTER_FACTOR,\n"
			  "            0.1);");
	expect_java(java, "EXPONENTIAL_DELAY_ATTEMPTS,\n"
			  "            2147483647);");
	expect_java(java, "MAX_RETAINED_CHECKPOINTS, 1);");
	expect_java(java, "CHECKPOINTING_TIMEOUT, processingTime(600000));");
	ck_assert_ptr_null(strstr(java, "FailAt"));
	free(java);
	java = java_of(none);
	expect_java(java, "RESTART_STRATEGY, \"none\");");
	ck_assert_ptr_null(strstr(java, "RESTART_STRATEGY_"));
	free(java);
	java = java_of(plain);
	ck_assert_ptr_null(strstr(java, "Checkpoint"));
	ck_assert_ptr_null(strstr(java, "RestartStrategy"));
	expect_java(java, ".sinkTo(new LineSink(output(out, \"out.csv\")))");
	free(java);
	free(dflt);
	free(none);
	free(plain);
}
END_TEST

/* A sink on standard output cannot take back what it wrote: LineSink, at
 * least once, checkpoints or not. */
START_TEST(test_flink_export_keeps_standard_output_at_least_once)
{
	const char *text = "[job]\n" CHECKPOINTS
			   "[source s]\npartitions = 1\nreplay = t.csv\n"
			   "[window w]\ninput = s\nsize = 1 s\n"
			   "[sink o]\ninput = w\npath = -\n";
	char *java = java_of(text);

	expect_java(java, ".sinkTo(new LineSink(output(out, \"-\")))");
	ck_assert_ptr_null(strstr(java, ".sinkTo(CommittedLineSink"));
	free(java);
}
END_TEST

/* The speed comes down so that a checkpoint interval stays at Flink's
 * least, 10 ms, and a restart backoff at a millisecond, with a warning
 * naming the duration and the limit. */
START_TEST(test_flink_export_keeps_checkpoints_above_flinks_least)
{
	static const struct {
		const char *job;
		const char *speed, *warning;
	} cases[] = {
		{"speed = 1000\ncheckpoint_interval = 50 ms\n"
		 "checkpoint_dir = ck\n",
		 "SPEED = 5;",
		 "wmrun: t.conf:3:1: warning: the exported job runs at speed "
		 "5, not 1000: a processing-time duration of 50 ms would "
		 "come to less than Flink's shortest checkpoint interval and "
		 "timeout, 10 ms;"},
		{"speed = 1000\n" CHECKPOINTS "checkpoint_timeout = 60 ms\n",
		 "SPEED = 6;",
		 "duration of 60 ms would come to less than Flink's"},
		{"speed = 4000\n" CHECKPOINTS, "SPEED = 1000;",
		 "duration of 1000 ms would come to less than the millisecond "
		 "Flink counts in"},
		{"speed = 4000\n" CHECKPOINTS
		 "restart_strategy = fixed-delay\nrestart_delay = 0 s\n",
		 "SPEED = 4000;", NULL},
	};
	struct wm_ini_error err;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* No other duration in the way. */
		char *text = job_text(cases[i].job,
				      "watermark_interval = 5 s\n", ""),
		     *warned = NULL;
		char *java;

		ck_assert_int_eq(check_text(text, &err, &warned), 0);
		if (cases[i].warning == NULL)
			ck_assert_str_eq(warned, "");
		else
			ck_assert_msg(strstr(warned, cases[i].warning) != NULL,
				      "\"%s\" lacks \"%s\"", warned,
				      cases[i].warning);
		java = java_of(text);
		expect_java(java, cases[i].speed);
		free(java);
		free(warned);
		free(text);
	}
}
END_TEST

/* What Flink's checkpoints cannot hold is refused at its key. */
START_TEST(test_flink_export_refuses_checkpointed_watermarks)
{
	expect_refused(CHECKPOINTS "checkpoint_watermarks = true\n", "", 5, 1,
		       "cannot export checkpoint_watermarks = true: a Flink "
		       "checkpoint holds no watermark");
	expect_refused(CHECKPOINTS "checkpoint_watermarks = false\n"
				   "processing_time = 1 h\n",
		       "", 6, 1, "run length in processing time");
}
END_TEST

/* A name beyond ASCII reaches Job.java as UTF-16 escapes of the export's
 * own (a surrogate pair beyond U+FFFF), in literals and comments alike,
 * so that the file is ASCII; a backslash before one stays doubled. */
START_TEST(test_flink_export_writes_names_as_ascii)
{
	const char *text =
		"[job]\nname = \"j\\\\\u00f6b\"\n"
		"[source s]\npartitions = 1\nreplay = trace.csv\n"
		"[window \"\u7a93\U0001f600\"]\ninput = s\nsize = 1 s\n"
		"[sink o]\ninput = \"\u7a93\U0001f600\"\n"
		"path = out.csv\n";
	char *java = java_of(text);

	expect_java(java, "// Job \"j\\\\\\u00f6b\", exported");
	expect_java(java, "env.execute(\"j\\\\\\u00f6b\");");
	expect_java(java, "// [window \\u7a93\\ud83d\\ude00]");
	expect_java(java, ".name(\"\\u7a93\\ud83d\\ude00\")");
	for (const char *c = java; *c != '\0'; c++)
		ck_assert_msg((unsigned char)*c < 0x80,
			      "a byte beyond ASCII at %zu", (size_t)(c - java));
	free(java);
}
END_TEST

static Suite *
flink_job_suite(void)
{
	Suite *s = suite_create("flink_job");
	TCase *tc = tcase_create("refusals");

	tcase_add_test(tc, test_flink_export_refuses_study_knobs_at_their_key);
	tcase_add_test(tc,
		       test_flink_export_takes_exactly_the_rules_of_its_flink);
	tcase_add_test(tc, test_flink_export_records_what_a_recording_carries);
	tcase_add_test(
		tc,
		test_flink_export_refuses_an_end_for_subtasks_without_partitions);
	tcase_add_test(tc, test_flink_export_warns_of_a_jsonl_sink);
	tcase_add_test(tc, test_flink_export_refuses_checkpointed_watermarks);
	tcase_add_test(tc,
		       test_flink_export_keeps_checkpoints_above_flinks_least);
	suite_add_tcase(s, tc);

	tc = tcase_create("java");
	tcase_add_test(tc, test_flink_export_maps_watermarks_per_split);
	tcase_add_test(tc, test_flink_export_maps_watermarks_per_subtask);
	tcase_add_test(tc, test_flink_export_replays_a_recording_to_its_end);
	tcase_add_test(tc, test_flink_export_aligns_replayed_splits);
	tcase_add_test(tc,
		       test_flink_export_keeps_the_subtask_column_where_asked);
	tcase_add_test(tc, test_flink_export_writes_names_as_ascii);
	tcase_add_test(tc, test_flink_export_reads_no_window_state_of_sessions);
	tcase_add_test(tc,
		       test_flink_export_reads_a_kafka_topic_with_kafka_source);
	tcase_add_test(tc, test_flink_export_passes_json_paths_as_literals);
	tcase_add_test(tc, test_flink_export_takes_checkpoints_and_restarts);
	tcase_add_test(tc,
		       test_flink_export_writes_the_default_restart_strategy);
	tcase_add_test(tc,
		       test_flink_export_keeps_standard_output_at_least_once);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(flink_job_suite());
}
