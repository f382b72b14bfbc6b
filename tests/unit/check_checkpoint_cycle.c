/*
 * check_checkpoint_cycle.c
 *	Unit tests of a checkpoint's life (checkpoint_cycle.h) on a real
 *	store in a scratch directory: one at a time, ids after the
 *	directory's, what a give-up counts, the restore's choice and its
 *	fall-back, the grid after a time down.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/checkpoint/checkpoint_cycle.h"
#include "runtime/conf/topology.h"
#include "tests/unit/check_main.h"
#include "tests/unit/scratch_tree.h"

#define S ((int64_t)1000000000) /* one second of the driver's clock */

static char root[64];
static char dir[96];
static struct wm_topology *topo;
static struct wm_plan *plan;

static void
setup(void)
{
	char text[512];
	struct wm_ini_error err;

	snprintf(root, sizeof(root), "/tmp/check_checkpoint_cycle.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/ckpt", root);
	snprintf(text, sizeof(text),
		 "[job]\nevent_time = 1 h\ncheckpoint_interval = 10 s\n"
		 "checkpoint_timeout = 1 min\ncheckpoints_retained = 3\n"
		 "checkpoint_dir = %s\n"
		 "[source s]\nparallelism = 2\npartitions = 2\nrate = 1/s\n"
		 "[window w]\ninput = s\nparallelism = 1\nsize = 10 s\n",
		 dir);
	ck_assert_int_eq(wm_topology_load_buffer(text, strlen(text), "t.conf",
						 &topo, &err),
			 0);
	plan = wm_plan_new(topo);
	ck_assert_ptr_nonnull(plan);
}

static void
teardown(void)
{
	wm_plan_free(plan);
	wm_topology_free(topo);
	wm_scratch_remove_tree(root);
}

/* A cycle on the scratch directory, the driver's clock in seconds of
 * processing time, armed from 0. */
static struct wm_checkpoint_cycle *
cycle_open(void)
{
	struct wm_checkpoint_cycle_config cfg = {
		.topo = topo,
		.plan = plan,
		.every_ns = 10 * S,
		.timeout_ns = 60 * S,
		.speed = 1.0,
	};
	struct wm_checkpoint_cycle *c;
	char err[512];

	ck_assert_msg(wm_checkpoint_cycle_open(&c, &cfg, err, sizeof(err)) == 0,
		      "%s", err);
	wm_checkpoint_cycle_arm(c, 0);
	return c;
}

/* Every subtask's blob of the pending checkpoint in; 1 from the last. */
static void
put_all(struct wm_checkpoint_cycle *c, uint64_t id)
{
	char err[512];

	for (uint32_t s = 0; s < plan->n_subtasks; s++)
		ck_assert_int_eq(wm_checkpoint_cycle_put(c, id, s, "state", 5,
							 err, sizeof(err)),
				 s + 1 == plan->n_subtasks);
}

/* Checkpoint `id`, begun at `since`, completed at `done`. */
static void
complete(struct wm_checkpoint_cycle *c, uint64_t id, int64_t done)
{
	struct wm_checkpoint_figures fig;
	char err[512];
	int r;

	put_all(c, id);
	r = wm_checkpoint_cycle_complete_durably(c, &fig, err, sizeof(err));
	ck_assert_msg(r == 0, "%s", err);
	ck_assert_int_eq(wm_checkpoint_cycle_completed(c, r, err, &fig, done,
						       err, sizeof(err)),
			 0);
}

/* The next checkpoint begun at `now` (processing time `now`). */
static uint64_t
begin(struct wm_checkpoint_cycle *c, int64_t now)
{
	char err[512];
	uint64_t id;

	ck_assert_msg(wm_checkpoint_cycle_begin(c, now, now / 1000000, &id, err,
						sizeof(err)) == 0,
		      "%s", err);
	return id;
}

START_TEST(one_at_a_time)
{
	struct wm_checkpoint_cycle *c = cycle_open();
	const struct wm_checkpoint_tally *t = wm_checkpoint_cycle_tally(c);
	uint64_t id;

	ck_assert(!wm_checkpoint_cycle_due(c, 5 * S));
	ck_assert(wm_checkpoint_cycle_due(c, 10 * S));
	id = begin(c, 10 * S);
	ck_assert_uint_eq(id, 1);
	ck_assert_uint_eq(wm_checkpoint_cycle_pending(c), 1);
	/* Due while one is pending: not taken, and the grid goes on. */
	ck_assert(!wm_checkpoint_cycle_due(c, 20 * S));
	ck_assert_int_eq(wm_checkpoint_cycle_next_trigger(c), 30 * S);
	/* A blob of another checkpoint, or a second one, counts nothing. */
	char err[512];
	ck_assert_int_eq(
		wm_checkpoint_cycle_put(c, 2, 0, "x", 1, err, sizeof(err)), 0);
	ck_assert_int_eq(wm_checkpoint_cycle_acknowledged(c), 0);
	complete(c, id, 25 * S);
	ck_assert_uint_eq(wm_checkpoint_cycle_pending(c), 0);
	ck_assert_uint_eq(t->completed, 1);
	ck_assert_uint_eq(t->last_id, 1);
	ck_assert_int_eq(t->duration_max_ns, 15 * S);
	ck_assert_int_eq(t->duration_last_ns, 15 * S);
	ck_assert_uint_eq(wm_checkpoint_cycle_restore_id(c), 1);
	ck_assert_int_eq(wm_checkpoint_cycle_restore_time_ms(c), 10000);
	ck_assert_uint_eq(wm_checkpoint_cycle_first_epoch(c), 2);
	ck_assert(wm_checkpoint_cycle_due(c, 30 * S));
	/* The last one's duration, not the longest. */
	id = begin(c, 30 * S);
	complete(c, id, 35 * S);
	ck_assert_int_eq(t->duration_max_ns, 15 * S);
	ck_assert_int_eq(t->duration_last_ns, 5 * S);
	wm_checkpoint_cycle_free(c);
}
END_TEST

START_TEST(ids_go_on_after_the_directory)
{
	struct wm_checkpoint_cycle *c = cycle_open();
	char err[512];

	complete(c, begin(c, 10 * S), 10 * S);
	wm_checkpoint_cycle_free(c);
	/* A stray chk-5 too: the next run's ids start after it, and the
	 * earlier run's checkpoint is never this run's restore. */
	char stray[160];
	snprintf(stray, sizeof(stray), "%s/chk-5", dir);
	ck_assert_int_eq(mkdir(stray, 0700), 0);
	c = cycle_open();
	ck_assert_uint_eq(wm_checkpoint_cycle_first_epoch(c), 6);
	ck_assert_uint_eq(begin(c, 10 * S), 6);
	ck_assert_int_eq(wm_checkpoint_cycle_workers_gone(c, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(wm_checkpoint_cycle_restore_id(c), 0);
	wm_checkpoint_cycle_free(c);
}
END_TEST

START_TEST(a_give_up_counts_as_it_says)
{
	struct wm_checkpoint_cycle *c = cycle_open();
	const struct wm_checkpoint_tally *t = wm_checkpoint_cycle_tally(c);
	char err[512], path[160];
	struct stat st;
	uint64_t id = begin(c, 10 * S);

	ck_assert_int_eq(wm_checkpoint_cycle_deadline(c), 70 * S);
	ck_assert_int_eq(
		wm_checkpoint_cycle_put(c, id, 0, "x", 1, err, sizeof(err)), 0);
	ck_assert_int_eq(wm_checkpoint_cycle_give_up(c, WM_CHECKPOINT_TIMED_OUT,
						     err, sizeof(err)),
			 0);
	ck_assert_uint_eq(t->timed_out, 1);
	ck_assert_uint_eq(wm_checkpoint_cycle_pending(c), 0);
	ck_assert_int_eq(wm_checkpoint_cycle_deadline(c), INT64_MAX);
	snprintf(path, sizeof(path), "%s/chk-%llu", dir,
		 (unsigned long long)id);
	ck_assert_int_ne(stat(path, &st), 0);
	/* The name of the next one taken by a file: that one fails, counted,
	 * and the one after it takes the next id. */
	snprintf(path, sizeof(path), "%s/chk-2", dir);
	fclose(fopen(path, "w"));
	ck_assert_int_ne(wm_checkpoint_cycle_begin(c, 20 * S, 20000, &id, err,
						   sizeof(err)),
			 0);
	ck_assert_uint_eq(t->failed, 1);
	ck_assert_uint_eq(begin(c, 30 * S), 3);
	ck_assert_int_eq(wm_checkpoint_cycle_give_up(c, WM_CHECKPOINT_CUT_SHORT,
						     err, sizeof(err)),
			 0);
	ck_assert_uint_eq(t->failed + t->timed_out + t->completed, 2);
	wm_checkpoint_cycle_free(c);
}
END_TEST

START_TEST(the_restore_falls_back_then_runs_out)
{
	struct wm_checkpoint_cycle *c = cycle_open();
	char err[512];

	complete(c, begin(c, 10 * S), 10 * S);
	complete(c, begin(c, 20 * S), 20 * S);
	begin(c, 30 * S); /* cut short by the crash */
	ck_assert_int_eq(wm_checkpoint_cycle_workers_gone(c, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(wm_checkpoint_cycle_restore_id(c), 2);
	snprintf(err, sizeof(err), "subtask could not restore checkpoint 2");
	ck_assert_int_eq(wm_checkpoint_cycle_fall_back(c, 2, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(wm_checkpoint_cycle_restore_id(c), 1);
	ck_assert_int_eq(wm_checkpoint_cycle_restore_time_ms(c), 10000);
	snprintf(err, sizeof(err), "subtask could not restore checkpoint 1");
	ck_assert_int_eq(wm_checkpoint_cycle_fall_back(c, 1, err, sizeof(err)),
			 -EBADMSG);
	ck_assert_str_eq(err, "subtask could not restore checkpoint 1; no "
			      "complete checkpoint before it to fall back to");
	/* A checkpoint completed since is restored again. */
	complete(c, begin(c, 40 * S), 40 * S);
	ck_assert_int_eq(wm_checkpoint_cycle_workers_gone(c, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(wm_checkpoint_cycle_restore_id(c), 4);
	wm_checkpoint_cycle_free(c);
}
END_TEST

START_TEST(triggers_due_while_down_are_not_taken)
{
	struct wm_checkpoint_cycle *c = cycle_open();

	wm_checkpoint_cycle_skip_to(c, 35 * S);
	ck_assert_int_eq(wm_checkpoint_cycle_next_trigger(c), 40 * S);
	wm_checkpoint_cycle_skip_to(c, 40 * S);
	ck_assert_int_eq(wm_checkpoint_cycle_next_trigger(c), 40 * S);
	wm_checkpoint_cycle_arm(c, INT64_MAX);
	ck_assert_int_eq(wm_checkpoint_cycle_next_trigger(c), INT64_MAX);
	ck_assert(!wm_checkpoint_cycle_due(c, INT64_MAX - 1));
	wm_checkpoint_cycle_free(c);
}
END_TEST

static Suite *
checkpoint_cycle_suite(void)
{
	Suite *s = suite_create("checkpoint_cycle");
	TCase *life = tcase_create("life");
	TCase *restore = tcase_create("restore");

	tcase_add_checked_fixture(life, setup, teardown);
	tcase_add_test(life, one_at_a_time);
	tcase_add_test(life, ids_go_on_after_the_directory);
	tcase_add_test(life, a_give_up_counts_as_it_says);
	tcase_add_test(life, triggers_due_while_down_are_not_taken);
	suite_add_tcase(s, life);
	tcase_add_checked_fixture(restore, setup, teardown);
	tcase_add_test(restore, the_restore_falls_back_then_runs_out);
	suite_add_tcase(s, restore);
	return s;
}

int
main(void)
{
	return wm_check_main(checkpoint_cycle_suite());
}
