/*
 * check_alerts.c
 *	Unit tests of the alert state machine (runtime/observe/alerts.h):
 *	tiers raised at their durations exactly and once per episode, an
 *	episode's end, which subtasks each kind watches, the next moment a
 *	tier falls due, and a list that counts what it cannot keep.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/conf/topology.h"
#include "runtime/observe/alerts.h"
#include "runtime/observe/snapshot.h"
#include "runtime/plan/plan.h"
#include "tests/unit/check_main.h"

#define SECOND 1000000000LL
#define MINUTE (60 * SECOND)

/* Two source subtasks of two partitions each, feeding one window of
 * parallelism 1, with the alerts given. */
struct job {
	struct wm_topology *topo;
	struct wm_plan *plan;
	struct wm_alerts *alerts;
	char *blocks;
	struct wm_snapshot *snap;
	uint32_t s0, w;
};

static void
job_open(struct job *j, const char *alerts)
{
	char text[1024];
	struct wm_ini_error err;

	snprintf(text, sizeof(text),
		 "[job]\nevent_time = 1 h\n%s\n"
		 "[source s]\nparallelism = 2\npartitions = 4\nrate = 1/s\n"
		 "[window w]\ninput = s\nparallelism = 1\nsize = 10 s\n",
		 alerts);
	memset(j, 0, sizeof(*j));
	ck_assert_int_eq(wm_topology_load_buffer(text, strlen(text), "job.conf",
						 &j->topo, &err),
			 0);
	j->plan = wm_plan_new(j->topo);
	ck_assert_ptr_nonnull(j->plan);
	j->alerts = wm_alerts_new(j->topo, j->plan);
	ck_assert_ptr_nonnull(j->alerts);
	j->blocks = calloc(1, wm_plan_metrics_bytes(j->plan));
	ck_assert_ptr_nonnull(j->blocks);
	j->s0 = j->plan->first[0];
	j->w = j->plan->first[1];
	/* Every source publishes its two partitions, ACTIVE since 0. */
	for (uint32_t id = j->s0; id < j->w; id++) {
		struct wm_partition_metrics *parts =
			wm_plan_partitions(j->plan, j->blocks, id);

		WM_METRIC_SET(
			wm_plan_block(j->plan, j->blocks, id)->n_partitions, 2);
		WM_METRIC_SET(parts[0].partition, 2 * (id - j->s0));
		WM_METRIC_SET(parts[1].partition, 2 * (id - j->s0) + 1);
	}
}

static void
job_close(struct job *j)
{
	wm_snapshot_free(j->snap);
	wm_alerts_free(j->alerts);
	free(j->blocks);
	wm_plan_free(j->plan);
	wm_topology_free(j->topo);
}

static struct wm_subtask_metrics *
block(struct job *j, uint32_t id)
{
	return wm_plan_block(j->plan, j->blocks, id);
}

/* Partition slot `slot` of source subtask `id` IDLE (or ACTIVE) since. */
static void
set_slot(struct job *j, uint32_t id, uint32_t slot, bool idle, int64_t since_ns)
{
	struct wm_watermark_metrics *p =
		&wm_plan_partitions(j->plan, j->blocks, id)[slot].progress;

	WM_METRIC_SET(p->idle, idle);
	WM_METRIC_SET(p->since_ns, since_ns);
}

/* Partition slot `slot` of source subtask s0 IDLE (or ACTIVE) since. */
static void
set_partition(struct job *j, uint32_t slot, bool idle, int64_t since_ns)
{
	set_slot(j, j->s0, slot, idle, since_ns);
}

static void
set_output(struct job *j, uint32_t id, bool idle, int64_t since_ns,
	   wm_ts_t watermark)
{
	struct wm_subtask_metrics *m = block(j, id);

	WM_METRIC_SET(m->output.idle, idle);
	WM_METRIC_SET(m->output.since_ns, since_ns);
	WM_METRIC_SET(m->output.watermark, watermark);
}

/* A snapshot at processing time `t`, fed to the machine: what it raised. */
static uint32_t
feed(struct job *j, int64_t t)
{
	struct wm_snapshot *s =
		wm_snapshot_take(j->plan, j->blocks, j->snap, t, t);

	ck_assert_ptr_nonnull(s);
	wm_snapshot_free(j->snap);
	j->snap = s;
	return wm_alerts_feed(j->alerts, s);
}

static const struct wm_alert *
alert(struct job *j, uint32_t i)
{
	uint32_t n;
	const struct wm_alert *list = wm_alerts_list(j->alerts, &n);

	ck_assert_uint_lt(i, n);
	return &list[i];
}

START_TEST(test_a_tier_is_raised_at_its_duration_not_before)
{
	struct job j;
	const struct wm_alert *a;
	char line[200];

	job_open(&j, "alert_partition_idle = notice 5 min, severe 30 min");
	set_partition(&j, 1, true, 100 * SECOND);
	ck_assert_uint_eq(feed(&j, 101 * SECOND), 0);
	ck_assert_uint_eq(feed(&j, 100 * SECOND + 5 * MINUTE - 1), 0);
	ck_assert_uint_eq(feed(&j, 100 * SECOND + 5 * MINUTE), 1);
	a = alert(&j, 0);
	ck_assert_int_eq(a->kind, WM_ALERT_PARTITION_IDLE);
	ck_assert_int_eq(a->tier, WM_ALERT_NOTICE);
	ck_assert_int_eq(a->at_ns, 100 * SECOND + 5 * MINUTE);
	ck_assert_int_eq(a->since_ns, 100 * SECOND);
	ck_assert_int_eq(a->ended_ns, WM_ALERT_OPEN);
	ck_assert_uint_eq(a->subtask, j.s0);
	ck_assert_uint_eq(a->partition, 1);
	ck_assert_str_eq(wm_alert_format(a, j.topo, line, sizeof(line)),
			 "notice: partition s-1 idle for 5 min 0 s");
	/* Once an episode. */
	ck_assert_uint_eq(feed(&j, 100 * SECOND + 29 * MINUTE), 0);
	ck_assert_uint_eq(feed(&j, 100 * SECOND + 30 * MINUTE), 1);
	ck_assert_int_eq(alert(&j, 1)->tier, WM_ALERT_SEVERE);
	ck_assert_uint_eq(feed(&j, 100 * SECOND + 300 * MINUTE), 0);
	ck_assert_uint_eq(wm_alerts_raised(j.alerts), 2);
	job_close(&j);
}
END_TEST

START_TEST(test_a_late_snapshot_raises_every_tier_it_passed_in_order)
{
	struct job j;

	job_open(&j, "alert_subtask_idle = notice 1 min, warning 2 min, "
		     "critical 3 min");
	set_output(&j, j.w, true, 10 * SECOND, 0);
	ck_assert_uint_eq(feed(&j, 10 * SECOND + 150 * SECOND), 2);
	ck_assert_int_eq(alert(&j, 0)->tier, WM_ALERT_NOTICE);
	ck_assert_int_eq(alert(&j, 1)->tier, WM_ALERT_WARNING);
	ck_assert_int_eq(alert(&j, 1)->at_ns, 160 * SECOND);
	ck_assert_uint_eq(feed(&j, 10 * SECOND + 3 * MINUTE), 1);
	ck_assert_int_eq(alert(&j, 2)->tier, WM_ALERT_CRITICAL);
	job_close(&j);
}
END_TEST

START_TEST(test_an_episode_ends_and_the_next_raises_again)
{
	struct job j;

	job_open(&j, "alert_partition_idle = notice 1 min, severe 2 min");
	set_partition(&j, 0, true, 0);
	ck_assert_uint_eq(feed(&j, 2 * MINUTE), 2);
	/* Over: both alerts of the episode say when a snapshot saw it end. */
	set_partition(&j, 0, false, 2 * MINUTE + SECOND);
	ck_assert_uint_eq(feed(&j, 3 * MINUTE), 0);
	ck_assert_int_eq(alert(&j, 0)->ended_ns, 3 * MINUTE);
	ck_assert_int_eq(alert(&j, 1)->ended_ns, 3 * MINUTE);
	/* Idle again: a new episode, measured from its own start. */
	set_partition(&j, 0, true, 4 * MINUTE);
	ck_assert_uint_eq(feed(&j, 4 * MINUTE + 59 * SECOND), 0);
	ck_assert_uint_eq(feed(&j, 5 * MINUTE), 1);
	ck_assert_int_eq(alert(&j, 2)->since_ns, 4 * MINUTE);
	/* Ended and begun again between two snapshots: another episode,
	 * and the old one's alert is closed. */
	set_partition(&j, 0, true, 5 * MINUTE + 30 * SECOND);
	ck_assert_uint_eq(feed(&j, 6 * MINUTE), 0);
	ck_assert_int_eq(alert(&j, 2)->ended_ns, 6 * MINUTE);
	ck_assert_uint_eq(feed(&j, 6 * MINUTE + 30 * SECOND), 1);
	ck_assert_int_eq(alert(&j, 3)->since_ns, 5 * MINUTE + 30 * SECOND);
	ck_assert_int_eq(alert(&j, 3)->ended_ns, WM_ALERT_OPEN);
	ck_assert_int_eq(alert(&j, 0)->ended_ns, 3 * MINUTE);
	job_close(&j);
}
END_TEST

START_TEST(test_the_stalled_watermark_is_a_windows_while_active)
{
	struct job j;
	char line[200];

	job_open(&j, "alert_watermark_stalled = critical 1 h");
	/* Every watermark still since 0: only the window's is the job's. */
	ck_assert_uint_eq(feed(&j, 60 * MINUTE), 1);
	ck_assert_uint_eq(alert(&j, 0)->subtask, j.w);
	ck_assert_str_eq(
		wm_alert_format(alert(&j, 0), j.topo, line, sizeof(line)),
		"critical: watermark of w/0 has not moved for 1 h 0 min");
	/* Idle is not stalled; back to ACTIVE, the still time starts anew. */
	set_output(&j, j.w, true, 61 * MINUTE, 5000);
	ck_assert_uint_eq(feed(&j, 200 * MINUTE), 0);
	set_output(&j, j.w, false, 201 * MINUTE, 5000);
	ck_assert_uint_eq(feed(&j, 260 * MINUTE), 0);
	ck_assert_uint_eq(feed(&j, 261 * MINUTE), 1);
	/* At the end of time, or finished, it is not stalled. */
	set_output(&j, j.w, false, 300 * MINUTE, WM_TS_MAX);
	ck_assert_uint_eq(feed(&j, 400 * MINUTE), 0);
	set_output(&j, j.w, false, 300 * MINUTE, 7000);
	atomic_store(&block(&j, j.w)->finished, 1);
	ck_assert_uint_eq(feed(&j, 500 * MINUTE), 0);
	ck_assert_uint_eq(wm_alerts_raised(j.alerts), 2);
	job_close(&j);
}
END_TEST

/* Every partition but slot 1 of s0 ACTIVE, its watermark moved at t. */
static void
others_move(struct job *j, int64_t t)
{
	for (uint32_t id = j->s0; id < j->w; id++)
		for (uint32_t slot = 0; slot < 2; slot++)
			if (id != j->s0 || slot != 1)
				set_slot(j, id, slot, false, t);
}

START_TEST(test_a_partition_is_stalled_while_active_and_still)
{
	struct job j;
	char line[200];

	job_open(&j, "alert_partition_stalled = warning 10 min");
	/* Every partition moved at 9 min but s-1, still since 0. */
	others_move(&j, 9 * MINUTE);
	set_partition(&j, 1, false, 0);
	ck_assert_uint_eq(feed(&j, 10 * MINUTE - 1), 0);
	ck_assert_uint_eq(feed(&j, 10 * MINUTE), 1);
	ck_assert_int_eq(alert(&j, 0)->kind, WM_ALERT_PARTITION_STALLED);
	ck_assert_uint_eq(alert(&j, 0)->partition, 1);
	ck_assert_str_eq(
		wm_alert_format(alert(&j, 0), j.topo, line, sizeof(line)),
		"warning: watermark of partition s-1 has not moved for 10 min "
		"0 s, and it is not idle");
	ck_assert_str_eq(
		wm_alert_subject(alert(&j, 0), j.topo, line, sizeof(line)),
		"s-1");
	/* IDLE is idle, not stalled: the episode ends. */
	set_partition(&j, 1, true, 11 * MINUTE);
	others_move(&j, 11 * MINUTE);
	ck_assert_uint_eq(feed(&j, 12 * MINUTE), 0);
	ck_assert_int_eq(alert(&j, 0)->ended_ns, 12 * MINUTE);
	others_move(&j, 99 * MINUTE);
	ck_assert_uint_eq(feed(&j, 100 * MINUTE), 0);
	/* At the end of time, or in a finished subtask, it is not. */
	set_partition(&j, 1, false, 100 * MINUTE);
	WM_METRIC_SET(wm_plan_partitions(j.plan, j.blocks, j.s0)[1]
			      .progress.watermark,
		      WM_TS_MAX);
	others_move(&j, 199 * MINUTE);
	ck_assert_uint_eq(feed(&j, 200 * MINUTE), 0);
	WM_METRIC_SET(wm_plan_partitions(j.plan, j.blocks, j.s0)[1]
			      .progress.watermark,
		      5000);
	atomic_store(&block(&j, j.s0)->finished, 1);
	others_move(&j, 299 * MINUTE);
	ck_assert_uint_eq(feed(&j, 300 * MINUTE), 0);
	ck_assert_uint_eq(wm_alerts_raised(j.alerts), 1);
	job_close(&j);
}
END_TEST

START_TEST(test_partitions_idle_at_once_raise_tiers_by_count)
{
	struct job j;
	char line[200];

	job_open(&j, "alert_idle_partitions = warning 2, severe 4");
	ck_assert_uint_eq(feed(&j, MINUTE), 0);
	set_partition(&j, 0, true, 100 * SECOND);
	ck_assert_uint_eq(feed(&j, 2 * MINUTE), 0);
	/* Two: the warning, since the second went idle, whenever seen. */
	set_partition(&j, 1, true, 110 * SECOND);
	ck_assert_uint_eq(feed(&j, 3 * MINUTE), 1);
	ck_assert_int_eq(alert(&j, 0)->kind, WM_ALERT_IDLE_PARTITIONS);
	ck_assert_int_eq(alert(&j, 0)->tier, WM_ALERT_WARNING);
	ck_assert_uint_eq(alert(&j, 0)->count, 2);
	ck_assert_int_eq(alert(&j, 0)->since_ns, 110 * SECOND);
	ck_assert_str_eq(
		wm_alert_format(alert(&j, 0), j.topo, line, sizeof(line)),
		"warning: 2 partitions of s idle at once");
	ck_assert_str_eq(
		wm_alert_subject(alert(&j, 0), j.topo, line, sizeof(line)),
		"s");
	/* Both of the other subtask's too: four, severe, of one episode;
	 * the warning is not raised again. */
	set_slot(&j, j.s0 + 1, 0, true, 150 * SECOND);
	set_slot(&j, j.s0 + 1, 1, true, 160 * SECOND);
	ck_assert_uint_eq(feed(&j, 4 * MINUTE), 1);
	ck_assert_int_eq(alert(&j, 1)->tier, WM_ALERT_SEVERE);
	ck_assert_uint_eq(alert(&j, 1)->count, 4);
	ck_assert_int_eq(alert(&j, 1)->since_ns, 110 * SECOND);
	/* Down to two: still the episode; to one: over, both ended. */
	set_slot(&j, j.s0 + 1, 0, false, 5 * MINUTE);
	set_slot(&j, j.s0 + 1, 1, false, 5 * MINUTE);
	ck_assert_uint_eq(feed(&j, 6 * MINUTE), 0);
	ck_assert_int_eq(alert(&j, 0)->ended_ns, WM_ALERT_OPEN);
	set_partition(&j, 0, false, 6 * MINUTE);
	ck_assert_uint_eq(feed(&j, 7 * MINUTE), 0);
	ck_assert_int_eq(alert(&j, 0)->ended_ns, 7 * MINUTE);
	ck_assert_int_eq(alert(&j, 1)->ended_ns, 7 * MINUTE);
	/* No duration to fall due. */
	ck_assert_int_eq(wm_alerts_next_due(j.alerts), INT64_MAX);
	ck_assert_uint_eq(wm_alerts_raised(j.alerts), 2);
	job_close(&j);
}
END_TEST

START_TEST(test_the_next_tier_due_is_known)
{
	struct job j;

	job_open(&j, "alert_partition_idle = notice 5 min, severe 30 min");
	ck_assert_uint_eq(feed(&j, SECOND), 0);
	ck_assert_int_eq(wm_alerts_next_due(j.alerts), INT64_MAX);
	set_partition(&j, 1, true, 100 * SECOND);
	set_partition(&j, 0, true, 200 * SECOND);
	ck_assert_uint_eq(feed(&j, 201 * SECOND), 0);
	ck_assert_int_eq(wm_alerts_next_due(j.alerts),
			 100 * SECOND + 5 * MINUTE);
	ck_assert_uint_eq(feed(&j, 100 * SECOND + 5 * MINUTE), 1);
	ck_assert_int_eq(wm_alerts_next_due(j.alerts),
			 200 * SECOND + 5 * MINUTE);
	ck_assert_uint_eq(feed(&j, 200 * SECOND + 5 * MINUTE), 1);
	ck_assert_int_eq(wm_alerts_next_due(j.alerts),
			 100 * SECOND + 30 * MINUTE);
	ck_assert_uint_eq(feed(&j, 100 * SECOND + 30 * MINUTE), 1);
	ck_assert_int_eq(wm_alerts_next_due(j.alerts),
			 200 * SECOND + 30 * MINUTE);
	ck_assert_uint_eq(feed(&j, 200 * SECOND + 30 * MINUTE), 1);
	ck_assert_int_eq(wm_alerts_next_due(j.alerts), INT64_MAX);
	job_close(&j);
}
END_TEST

START_TEST(test_alerts_past_the_list_are_counted)
{
	struct job j;
	uint32_t n;

	job_open(&j, "alert_partition_idle = notice 1 s");
	for (int64_t k = 0; k < WM_ALERTS_KEPT + 10; k++) {
		set_partition(&j, 0, true, 10 * k * SECOND);
		ck_assert_uint_eq(feed(&j, (10 * k + 1) * SECOND), 1);
	}
	wm_alerts_list(j.alerts, &n);
	ck_assert_uint_eq(n, WM_ALERTS_KEPT);
	ck_assert_uint_eq(wm_alerts_raised(j.alerts), WM_ALERTS_KEPT + 10);
	job_close(&j);
}
END_TEST

START_TEST(test_nothing_is_watched_without_a_rule)
{
	struct job j;

	job_open(&j, "");
	set_partition(&j, 0, true, 0);
	set_output(&j, j.w, true, 0, 0);
	ck_assert_uint_eq(feed(&j, 1000 * MINUTE), 0);
	ck_assert_int_eq(wm_alerts_next_due(j.alerts), INT64_MAX);
	job_close(&j);
}
END_TEST

static Suite *
alerts_suite(void)
{
	Suite *s = suite_create("alerts");
	TCase *tiers = tcase_create("tiers");
	TCase *episodes = tcase_create("episodes");

	tcase_add_test(tiers, test_a_tier_is_raised_at_its_duration_not_before);
	tcase_add_test(
		tiers,
		test_a_late_snapshot_raises_every_tier_it_passed_in_order);
	tcase_add_test(tiers, test_the_next_tier_due_is_known);
	tcase_add_test(tiers, test_nothing_is_watched_without_a_rule);
	tcase_add_test(episodes,
		       test_an_episode_ends_and_the_next_raises_again);
	tcase_add_test(episodes,
		       test_the_stalled_watermark_is_a_windows_while_active);
	tcase_add_test(episodes, test_alerts_past_the_list_are_counted);
	tcase_add_test(episodes,
		       test_a_partition_is_stalled_while_active_and_still);
	tcase_add_test(episodes,
		       test_partitions_idle_at_once_raise_tiers_by_count);
	suite_add_tcase(s, tiers);
	suite_add_tcase(s, episodes);
	return s;
}

int
main(void)
{
	return wm_check_main(alerts_suite());
}
