/*
 * check_edge.c
 *	Unit tests of output edges: keyBy routing with Flink's key groups,
 *	rebalance's round robin, and the announced-status rules
 *	(doc/semantics.md section 4.1, case T-4).
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "operators/edge.h"
#include "tests/unit/check_main.h"

START_TEST(test_hash_routes_long_keys_by_flink_key_groups)
{
	/* K-6: Long keys 0, 1, 2^32, -1, 1234567890123 with 128 key groups
	 * fall in key groups 94, 86, 86, 94, 92; with 4 subtasks that is
	 * kg * 4 / 128 = 2, 2, 2, 2, 2, and with 128 subtasks the group. */
	static const int64_t keys[] = {0, 1, 4294967296LL, -1, 1234567890123LL};
	static const uint32_t groups[] = {94, 86, 86, 94, 92};
	struct wm_edge e4, e128;

	ck_assert_int_eq(wm_edge_init(&e4, WM_PARTITION_HASH, 4, 128, 0), 0);
	ck_assert_int_eq(wm_edge_init(&e128, WM_PARTITION_HASH, 128, 128, 0),
			 0);
	for (int i = 0; i < 5; i++) {
		struct wm_record r = {.key = keys[i]};

		ck_assert_uint_eq(wm_edge_route(&e128, &r), groups[i]);
		ck_assert_uint_eq(wm_edge_route(&e4, &r), groups[i] * 4 / 128);
	}
}
END_TEST

/*
 * String keys route by the String.hashCode their word carries, not by the
 * word as a long: the subtask of each is the one Flink's
 * KeyGroupRangeAssignment gives the Java string (computed with jshell on
 * OpenJDK 17: "s".hashCode(), then MathUtils.murmurHash % maxP, then
 * kg * p / maxP). The ids are arbitrary: they must not matter.
 */
START_TEST(test_hash_routes_string_keys_by_their_java_hash)
{
	static const struct {
		int32_t hash;
		uint32_t kg128, kg1000;
	} keys[] = {
		{-836031601, 102, 110}, /* "user48" */
		{-565983330, 19, 43},	/* "zürich" */
		{57849694, 113, 721},	/* "a\U0001F600b" */
		{0, 94, 54},		/* "" */
		{1109190272, 31, 687},	/* "device-7" */
	};
	struct wm_edge e2, e3;

	ck_assert_int_eq(wm_edge_init(&e2, WM_PARTITION_HASH, 2, 128, 0), 0);
	ck_assert_int_eq(wm_edge_init(&e3, WM_PARTITION_HASH, 3, 1000, 0), 0);
	for (uint32_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		struct wm_record r = {
			.key = wm_keygroup_string_key(keys[i].hash,
						      7 + 1000 * i),
			.flags = WM_RECORD_STRING_KEY,
		};

		ck_assert_uint_eq(wm_edge_route(&e2, &r),
				  keys[i].kg128 * 2 / 128);
		ck_assert_uint_eq(wm_edge_route(&e3, &r),
				  keys[i].kg1000 * 3 / 1000);
	}
}
END_TEST

START_TEST(test_rebalance_is_round_robin_after_the_start)
{
	struct wm_edge e;
	struct wm_record r = {0};

	ck_assert_int_eq(wm_edge_init(&e, WM_PARTITION_REBALANCE, 3, 0, 7), 0);
	/* start 7 mod 3 = 1: the first record goes to 2, then 0, 1, 2... */
	ck_assert_uint_eq(wm_edge_route(&e, &r), 2);
	ck_assert_uint_eq(wm_edge_route(&e, &r), 0);
	ck_assert_uint_eq(wm_edge_route(&e, &r), 1);
	ck_assert_uint_eq(wm_edge_route(&e, &r), 2);
}
END_TEST

/*
 * A run routed at once goes where its records one by one go: hash edges
 * of one to many channels, with a power-of-two max parallelism (the
 * mask-and-shift path) and without, long and string keys mixed, and a
 * rebalance edge whose position moves alike (the record after the run
 * goes where it would have gone).
 */
START_TEST(test_a_run_is_routed_as_its_records_one_by_one)
{
	static const struct {
		enum wm_partitioning partitioning;
		uint32_t channels, max_p;
	} edges[] = {
		{WM_PARTITION_HASH, 1, 128},  {WM_PARTITION_HASH, 2, 128},
		{WM_PARTITION_HASH, 3, 128},  {WM_PARTITION_HASH, 7, 1000},
		{WM_PARTITION_HASH, 1, 1000}, {WM_PARTITION_HASH, 300, 32768},
		{WM_PARTITION_HASH, 5, 5},    {WM_PARTITION_REBALANCE, 3, 0},
		{WM_PARTITION_FORWARD, 1, 0},
	};
	enum { N = 1000 };
	static struct wm_record r[N + 1];
	static uint32_t channel[N];
	uint64_t x = 12345;

	for (uint32_t i = 0; i <= N; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		r[i].key = (int64_t)x;
		r[i].flags = i % 3 == 0 ? WM_RECORD_STRING_KEY : 0;
	}
	for (uint32_t k = 0; k < sizeof(edges) / sizeof(edges[0]); k++) {
		struct wm_edge one, run;

		ck_assert_int_eq(wm_edge_init(&one, edges[k].partitioning,
					      edges[k].channels, edges[k].max_p,
					      7 + k),
				 0);
		run = one;
		memset(channel, 0xff, sizeof(channel));
		wm_edge_route_run(&run, r, N, channel);
		for (uint32_t i = 0; i < N; i++) {
			uint32_t want = wm_edge_route(&one, &r[i]);

			if (channel[i] != want)
				ck_abort_msg("edge %u, record %u: channel %u, "
					     "not %u",
					     k, i, channel[i], want);
		}
		ck_assert_uint_eq(wm_edge_route(&run, &r[N]),
				  wm_edge_route(&one, &r[N]));
	}
}
END_TEST

START_TEST(test_idle_edge_drops_watermarks_and_dedups_statuses)
{
	/* T-4: announced IDLE; W(9) dropped, gauge not updated; ACTIVE sent;
	 * W(10) sent. */
	struct wm_edge e;

	ck_assert_int_eq(wm_edge_init(&e, WM_PARTITION_FORWARD, 1, 0, 0), 0);
	ck_assert(!wm_edge_status(&e, WM_STATUS_ACTIVE)); /* starts ACTIVE */
	ck_assert(wm_edge_watermark(&e, 5));
	ck_assert_int_eq(e.output_watermark, 5);
	ck_assert(wm_edge_status(&e, WM_STATUS_IDLE));
	ck_assert(!wm_edge_status(&e, WM_STATUS_IDLE));
	ck_assert(!wm_edge_watermark(&e, 9));
	ck_assert_int_eq(e.output_watermark, 5);
	ck_assert(wm_edge_status(&e, WM_STATUS_ACTIVE));
	ck_assert(wm_edge_watermark(&e, 10));
	ck_assert_int_eq(e.output_watermark, 10);
}
END_TEST

START_TEST(test_invalid_edges_are_refused)
{
	struct wm_edge e;

	ck_assert_int_eq(wm_edge_init(&e, WM_PARTITION_HASH, 0, 128, 0),
			 -EINVAL);
	ck_assert_int_eq(wm_edge_init(&e, WM_PARTITION_HASH, 200, 128, 0),
			 -EINVAL);
	ck_assert_int_eq(wm_edge_init(&e, WM_PARTITION_FORWARD, 2, 0, 0),
			 -EINVAL);
	ck_assert_int_eq(wm_edge_init(&e, WM_PARTITION_BROADCAST, 5, 0, 0), 0);
}
END_TEST

static Suite *
edge_suite(void)
{
	Suite *s = suite_create("edge");
	TCase *t = tcase_create("edge");

	tcase_add_test(t, test_hash_routes_long_keys_by_flink_key_groups);
	tcase_add_test(t, test_hash_routes_string_keys_by_their_java_hash);
	tcase_add_test(t, test_rebalance_is_round_robin_after_the_start);
	tcase_add_test(t, test_a_run_is_routed_as_its_records_one_by_one);
	tcase_add_test(t, test_idle_edge_drops_watermarks_and_dedups_statuses);
	tcase_add_test(t, test_invalid_edges_are_refused);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	return wm_check_main(edge_suite());
}
