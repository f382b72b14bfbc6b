/*
 * check_prometheus.c
 *	Unit tests of the exposition text: Flink's reporter's names, labels,
 *	HELP and TYPE lines, its unset watermark, the split and channel
 *	series, and ids that stay the same from run to run.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/conf/topology.h"
#include "runtime/observe/prometheus.h"
#include "runtime/observe/snapshot.h"
#include "runtime/plan/plan.h"
#include "tests/unit/check_main.h"
#include "tests/unit/job_blocks.h"

#define SECOND 1000000000LL

static const struct wm_prometheus_ids ids = {.host = "box.example",
					     .tm_id = "wmrun-4242"};

/* Two source subtasks of two partitions each, feeding one window. */
struct job {
	struct wm_topology *topo;
	struct wm_plan *plan;
	char *blocks;
	uint32_t s0, w;
};

static void
job_open(struct job *j)
{
	memset(j, 0, sizeof(*j));
	job_blocks_open("[job]\nname = quiet-partitions\nevent_time = 1 h\n"
			"[source events]\nparallelism = 2\npartitions = 4\n"
			"rate = 1/s\n"
			"[window counts]\ninput = events\nsize = 10 s\n",
			&j->topo, &j->plan, &j->blocks);
	j->s0 = j->plan->first[0];
	j->w = j->plan->first[1];
	/* Every watermark unset, as a block starts. */
	for (uint32_t id = 0; id < j->plan->n_subtasks; id++) {
		struct wm_subtask_metrics *m =
			wm_plan_block(j->plan, j->blocks, id);

		WM_METRIC_SET(m->output.watermark, WM_TS_MIN);
		WM_METRIC_SET(m->newest_event_time, WM_TS_MIN);
		WM_METRIC_SET(m->held_by_now, UINT32_MAX);
	}
}

/* The exposition of `snap`, allocated. */
static char *
text_of(const struct job *j, const struct wm_snapshot *snap)
{
	struct wm_prometheus *p = wm_prometheus_new(j->topo, j->plan, &ids);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(m);
	ck_assert(wm_prometheus_write(p, snap, m));
	ck_assert_int_eq(fclose(m), 0);
	wm_prometheus_free(p);
	return text;
}

/* The value of the one sample whose line starts with `name{` and holds
 * every label of `labels` (a comma-separated list, each whole). */
static const char *
sample(const char *text, const char *name, const char *labels)
{
	static char value[64];
	size_t nlen = strlen(name);
	const char *found = NULL;

	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (strncmp(line, name, nlen) == 0 && line[nlen] == '{') {
			char buf[2048], want[256];
			bool all = true;
			const char *l = labels;

			ck_assert_uint_lt(len, sizeof(buf));
			memcpy(buf, line, len);
			buf[len] = '\0';
			while (*l) {
				size_t n = strcspn(l, ",");
				char *at;

				snprintf(want, sizeof(want), "%.*s", (int)n, l);
				at = strstr(buf, want);
				/* whole labels only: a name starts after
				 * '{' or ',' */
				if (at == NULL ||
				    (at[-1] != '{' && at[-1] != ','))
					all = false;
				l += n + (l[n] == ',');
			}
			if (all) {
				ck_assert_msg(found == NULL,
					      "two samples of %s {%s}", name,
					      labels);
				found = strrchr(buf, '}');
				ck_assert_ptr_nonnull(found);
				snprintf(value, sizeof(value), "%s", found + 2);
			}
		}
		line = end ? end + 1 : line + len;
	}
	return found != NULL ? value : NULL;
}

static int
count(const char *text, const char *what)
{
	int n = 0;

	for (const char *at = text; (at = strstr(at, what)) != NULL; at++)
		n++;
	return n;
}

START_TEST(test_names_labels_and_help_are_flinks)
{
	struct job j;
	struct wm_snapshot *snap;
	char *text;
	const char *op =
		"flink_taskmanager_job_task_operator_currentOutputWatermark";

	job_open(&j);
	WM_METRIC_SET(wm_plan_block(j.plan, j.blocks, j.w)->output.watermark,
		      60000);
	WM_METRIC_SET(wm_plan_block(j.plan, j.blocks, j.w)->late_dropped, 7);
	snap = wm_snapshot_take(j.plan, j.blocks, NULL, 0, 0);
	text = text_of(&j, snap);
	ck_assert_ptr_nonnull(strstr(
		text, "# HELP "
		      "flink_taskmanager_job_task_operator_"
		      "currentOutputWatermark currentOutputWatermark (scope: "
		      "taskmanager_job_task_operator)\n# TYPE "
		      "flink_"
		      "taskmanager_job_task_operator_currentOutputWatermark "
		      "gauge\n"));
	/* One HELP and one TYPE per family, every family a gauge. */
	ck_assert_int_eq(count(text, "# HELP "), count(text, "# TYPE "));
	ck_assert_int_eq(count(text, " gauge\n"), count(text, "# TYPE "));
	ck_assert_int_eq(count(text, "# TYPE "
				     "flink_taskmanager_job_task_"
				     "numRecordsIn gauge"),
			 1);
	/* Every label of Flink's operator scope, filtered as Flink does. */
	ck_assert_str_eq(
		sample(text, op,
		       "host=\"box_example\",tm_id=\"wmrun_4242\","
		       "job_name=\"quiet_partitions\",task_name=\"counts\","
		       "subtask_index=\"0\",task_attempt_num=\"0\","
		       "operator_name=\"counts\""),
		"60000");
	ck_assert_ptr_nonnull(strstr(text, "job_id=\""));
	ck_assert_ptr_nonnull(strstr(text, "task_id=\""));
	ck_assert_ptr_nonnull(strstr(text, "task_attempt_id=\""));
	ck_assert_ptr_nonnull(strstr(text, "operator_id=\""));
	ck_assert_str_eq(sample(text,
				"flink_taskmanager_job_task_operator_"
				"numLateRecordsDropped",
				"task_name=\"counts\""),
			 "7");
	/* The job's restarts, once, under the JobManager's job scope and
	 * its labels alone. */
	ck_assert_int_eq(count(text, "\nflink_jobmanager_job_numRestarts{"), 1);
	ck_assert_str_eq(sample(text, "flink_jobmanager_job_numRestarts",
				"host=\"box_example\",job_id=\""),
			 "0");
	ck_assert_ptr_null(
		sample(text, "flink_jobmanager_job_numRestarts", "task_name="));
	free(text);
	wm_snapshot_set_restarts(snap, 2, 0);
	text = text_of(&j, snap);
	ck_assert_str_eq(sample(text, "flink_jobmanager_job_numRestarts",
				"job_name=\"quiet_partitions\""),
			 "2");
	/* Task scope carries no operator labels. */
	ck_assert_ptr_nonnull(sample(text,
				     "flink_taskmanager_job_task_numRecordsIn",
				     "task_name=\"counts\""));
	ck_assert_ptr_null(sample(text,
				  "flink_taskmanager_job_task_numRecordsIn",
				  "operator_name=\"counts\""));
	/* No checkpoint series for a job that takes none. */
	ck_assert_ptr_null(strstr(text, "Checkpoint"));
	free(text);
	/* Its checkpoints, once each under the job scope: -1 for the last
	 * one's figures before the first completes; the duration in ms. */
	wm_snapshot_set_checkpoints(snap, &(struct wm_snap_checkpoints){
						  .in_progress = 1,
						  .last_duration_ns = 0,
					  });
	text = text_of(&j, snap);
	ck_assert_str_eq(sample(text,
				"flink_jobmanager_job_lastCheckpointDuration",
				"job_name=\"quiet_partitions\""),
			 "-1");
	ck_assert_str_eq(sample(text,
				"flink_jobmanager_job_totalNumberOfCheckpoints",
				"job_name=\"quiet_partitions\""),
			 "1");
	free(text);
	wm_snapshot_set_checkpoints(snap,
				    &(struct wm_snap_checkpoints){
					    .completed = 5,
					    .failed = 2,
					    .last_duration_ns = 1500000000,
					    .last_bytes = 4096,
				    });
	text = text_of(&j, snap);
	ck_assert_int_eq(
		count(text,
		      "\nflink_jobmanager_job_numberOfCompletedCheckpoints{"),
		1);
	ck_assert_str_eq(
		sample(text,
		       "flink_jobmanager_job_numberOfCompletedCheckpoints",
		       "job_name=\"quiet_partitions\""),
		"5");
	ck_assert_str_eq(
		sample(text, "flink_jobmanager_job_numberOfFailedCheckpoints",
		       "job_name=\"quiet_partitions\""),
		"2");
	ck_assert_str_eq(
		sample(text,
		       "flink_jobmanager_job_numberOfInProgressCheckpoints",
		       "job_name=\"quiet_partitions\""),
		"0");
	ck_assert_str_eq(sample(text,
				"flink_jobmanager_job_totalNumberOfCheckpoints",
				"job_name=\"quiet_partitions\""),
			 "7");
	ck_assert_str_eq(sample(text,
				"flink_jobmanager_job_lastCheckpointDuration",
				"job_name=\"quiet_partitions\""),
			 "1500");
	ck_assert_str_eq(sample(text, "flink_jobmanager_job_lastCheckpointSize",
				"job_name=\"quiet_partitions\""),
			 "4096");
	ck_assert_ptr_null(sample(
		text, "flink_jobmanager_job_lastCheckpointSize", "task_name="));
	free(text);
	wm_snapshot_free(snap);
	job_blocks_close(j.topo, j.plan, j.blocks);
}
END_TEST

START_TEST(test_an_unset_watermark_is_long_min_value)
{
	struct job j;
	struct wm_snapshot *snap;
	char *text;

	job_open(&j);
	snap = wm_snapshot_take(j.plan, j.blocks, NULL, 0, 0);
	text = text_of(&j, snap);
	ck_assert_str_eq(sample(text,
				"flink_taskmanager_job_task_operator_"
				"currentInputWatermark",
				"task_name=\"counts\""),
			 "-9223372036854775808");
	/* A source has no input watermark; no lag before any record. */
	ck_assert_ptr_null(
		sample(text,
		       "flink_taskmanager_job_task_operator_"
		       "currentInputWatermark",
		       "task_name=\"Source:_events\",subtask_index=\"0\""));
	ck_assert_ptr_null(strstr(text, "watermarkLag"));
	/* The first snapshot has no rates (0) and no time split (NaN). */
	ck_assert_str_eq(sample(text,
				"flink_taskmanager_job_task_"
				"numRecordsInPerSecond",
				"task_name=\"counts\""),
			 "0.000000");
	ck_assert_str_eq(sample(text,
				"flink_taskmanager_job_task_"
				"busyTimeMsPerSecond",
				"task_name=\"counts\""),
			 "NaN");
	free(text);
	wm_snapshot_free(snap);
	job_blocks_close(j.topo, j.plan, j.blocks);
}
END_TEST

START_TEST(test_splits_and_channels_say_what_holds_the_watermark)
{
	struct job j;
	struct wm_snapshot *a, *b;
	struct wm_subtask_metrics *m;
	struct wm_partition_metrics *parts;
	struct wm_channel_metrics *ch;
	const struct wm_plan_subtask *w;
	uint32_t held = UINT32_MAX;
	char *text;
	char labels[128];

	job_open(&j);
	m = wm_plan_block(j.plan, j.blocks, j.s0);
	parts = wm_plan_partitions(j.plan, j.blocks, j.s0);
	WM_METRIC_SET(m->n_partitions, 2);
	WM_METRIC_SET(parts[0].partition, 0);
	WM_METRIC_SET(parts[0].progress.watermark, 5000);
	WM_METRIC_SET(parts[1].partition, 2);
	WM_METRIC_SET(parts[1].progress.watermark, 1000);
	WM_METRIC_SET(m->output.watermark, 1000);
	WM_METRIC_SET(m->newest_event_time, 9000);
	WM_METRIC_SET(m->held_by_now, 2);
	w = &j.plan->subtasks[j.w];
	ch = wm_plan_block(j.plan, j.blocks, j.w)->channels;
	WM_METRIC_SET(wm_plan_block(j.plan, j.blocks, j.w)->n_channels,
		      w->n_inputs);
	for (uint32_t c = 0; c < w->n_inputs; c++) {
		bool from_s0 = j.plan->channels[w->inputs[c]].producer == j.s0;

		WM_METRIC_SET(ch[c].watermark, from_s0 ? 1000 : 8000);
		WM_METRIC_SET(ch[c].aligned, from_s0);
		if (from_s0)
			held = c;
	}
	ck_assert_uint_ne(held, UINT32_MAX);
	WM_METRIC_SET(wm_plan_block(j.plan, j.blocks, j.w)->held_by_now, held);
	a = wm_snapshot_take(j.plan, j.blocks, NULL, 0, 0);
	/* Partition 2 idle for half of the next second of processing time. */
	WM_METRIC_SET(parts[1].progress.idle_ns, SECOND / 2);
	WM_METRIC_SET(parts[1].progress.idle, 1);
	b = wm_snapshot_take(j.plan, j.blocks, a, SECOND, SECOND);
	text = text_of(&j, b);
	ck_assert_str_eq(
		sample(text,
		       "flink_taskmanager_job_task_operator_split_"
		       "watermark_currentWatermark",
		       "task_name=\"Source:_events\",split=\"events_2\""),
		"1000");
	ck_assert_str_eq(sample(text,
				"flink_taskmanager_job_task_operator_split_"
				"watermark_idleTimeMsPerSecond",
				"split=\"events_2\""),
			 "500.000000");
	ck_assert_str_eq(sample(text,
				"flink_taskmanager_job_task_operator_split_"
				"watermark_activeTimeMsPerSecond",
				"split=\"events_2\""),
			 "500.000000");
	ck_assert_str_eq(sample(text,
				"flink_taskmanager_job_task_operator_split_"
				"watermark_accumulatedIdleTimeMs",
				"split=\"events_2\""),
			 "500");
	ck_assert_str_eq(sample(text,
				"wmrun_taskmanager_job_task_operator_split_"
				"watermark_holdsWatermark",
				"split=\"events_2\""),
			 "1");
	ck_assert_str_eq(sample(text,
				"wmrun_taskmanager_job_task_operator_split_"
				"watermark_holdsWatermark",
				"split=\"events_0\""),
			 "0");
	/* A source's time now (1 s of processing time) less its watermark;
	 * a window has none. */
	ck_assert_str_eq(
		sample(text,
		       "flink_taskmanager_job_task_operator_"
		       "watermarkLag",
		       "task_name=\"Source:_events\",subtask_index=\"0\""),
		"0");
	ck_assert_ptr_null(sample(text,
				  "flink_taskmanager_job_task_operator_"
				  "watermarkLag",
				  "task_name=\"counts\""));
	snprintf(labels, sizeof(labels),
		 "task_name=\"counts\",channel=\"%u\","
		 "upstream_task_name=\"Source:_events\",upstream_subtask_index="
		 "\"0\"",
		 held);
	ck_assert_str_eq(sample(text,
				"wmrun_taskmanager_job_task_operator_"
				"inputChannel_watermark",
				labels),
			 "1000");
	ck_assert_str_eq(sample(text,
				"wmrun_taskmanager_job_task_operator_"
				"inputChannel_holdsWatermark",
				labels),
			 "1");
	ck_assert_ptr_nonnull(strstr(text, "# HELP wmrun_taskmanager_job_task_"
					   "operator_inputChannel_watermark "
					   "wmrun's own, not Flink's"));
	free(text);
	wm_snapshot_free(b);
	wm_snapshot_free(a);
	job_blocks_close(j.topo, j.plan, j.blocks);
}
END_TEST

START_TEST(test_the_same_job_has_the_same_series_every_run)
{
	struct job j;
	struct wm_snapshot *snap;
	char *one, *two;
	const char *id;

	job_open(&j);
	snap = wm_snapshot_take(j.plan, j.blocks, NULL, 0, 0);
	one = text_of(&j, snap);
	two = text_of(&j, snap);
	ck_assert_str_eq(one, two);
	/* A job_id is 32 hex digits, as Flink's JobID prints. */
	id = strstr(one, "job_id=\"");
	ck_assert_ptr_nonnull(id);
	id += strlen("job_id=\"");
	ck_assert_uint_eq(strspn(id, "0123456789abcdef"), 32);
	ck_assert_int_eq(id[32], '"');
	free(one);
	free(two);
	wm_snapshot_free(snap);
	job_blocks_close(j.topo, j.plan, j.blocks);
}
END_TEST

START_TEST(test_label_values_keep_only_what_flink_keeps)
{
	char buf[32];

	ck_assert_str_eq(
		wm_prometheus_label_value("a-b.c d:e_F9\"\\", buf, sizeof(buf)),
		"a_b_c_d:e_F9__");
	ck_assert_str_eq(wm_prometheus_label_value("abcdef", buf, 4), "abc");
}
END_TEST

static Suite *
prometheus_suite(void)
{
	Suite *s = suite_create("prometheus");
	TCase *t = tcase_create("exposition");

	tcase_add_test(t, test_names_labels_and_help_are_flinks);
	tcase_add_test(t, test_an_unset_watermark_is_long_min_value);
	tcase_add_test(t,
		       test_splits_and_channels_say_what_holds_the_watermark);
	tcase_add_test(t, test_the_same_job_has_the_same_series_every_run);
	tcase_add_test(t, test_label_values_keep_only_what_flink_keeps);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	return wm_check_main(prometheus_suite());
}
