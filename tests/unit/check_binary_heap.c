/*
 * check_binary_heap.c
 *	Unit tests of the binary min-heap template (lib/binary_heap.h):
 *	heap order, position tracking through the PLACED hook, ties, growth
 *	and its failure, and random operations against a reference model.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "bench/rng.h"
#include "tests/unit/alloc_limit.h"
#include "tests/unit/check_main.h"

/* Entries compare by key alone, so that equal keys (ties) happen. */
struct test_entry {
	int64_t key;
	uint32_t id;
};

#define IDS 4096

/* Where PLACED says each id is; SIZE_MAX: not in the heap. */
static size_t pos_of[IDS];
static unsigned long placed;

#define WM_HEAP_PREFIX test_heap
#define WM_HEAP_ENTRY struct test_entry
#define WM_HEAP_BEFORE(a, b) ((a)->key < (b)->key)
#define WM_HEAP_MIN_CAPACITY 8
#define WM_HEAP_PLACED(h, e, pos) (pos_of[(e)->id] = (pos), placed++)
#include "lib/binary_heap.h"

static struct test_heap h;

static void
setup(void)
{
	for (size_t i = 0; i < IDS; i++)
		pos_of[i] = SIZE_MAX;
	placed = 0;
	test_heap_init(&h);
}

static void
teardown(void)
{
	test_heap_destroy(&h);
	wm_alloc_limit = SIZE_MAX;
}

static void
push(int64_t key, uint32_t id)
{
	struct test_entry e = {.key = key, .id = id};

	ck_assert_int_eq(test_heap_reserve(&h, 1), 0);
	test_heap_push(&h, &e);
}

/* Remove id (in the heap) at the position PLACED gave it. */
static void
remove_id(uint32_t id)
{
	size_t pos = pos_of[id];

	ck_assert_uint_lt(pos, h.count);
	ck_assert_uint_eq(h.nodes[pos].id, id);
	pos_of[id] = SIZE_MAX;
	test_heap_remove_at(&h, pos);
}

/* Heap order everywhere, and every entry where PLACED said it went. */
static void
check_heap(void)
{
	for (size_t i = 0; i < h.count; i++) {
		ck_assert_uint_eq(pos_of[h.nodes[i].id], i);
		if (i > 0)
			ck_assert_msg(h.nodes[(i - 1) / 2].key <=
					      h.nodes[i].key,
				      "node %zu (%lld) above its parent (%lld)",
				      i, (long long)h.nodes[i].key,
				      (long long)h.nodes[(i - 1) / 2].key);
	}
}

/* ---- tcase order ---- */

START_TEST(test_new_heap_is_empty_without_memory)
{
	ck_assert_uint_eq(test_heap_count(&h), 0);
	ck_assert_ptr_null(test_heap_top(&h));
	ck_assert_ptr_null(h.nodes);
	ck_assert(test_heap_has_room(&h, 0));
	ck_assert(!test_heap_has_room(&h, 1));
}
END_TEST

START_TEST(test_pops_come_out_in_key_order)
{
	static const int64_t keys[] = {
		5, -3, 9, 0, 7, -3, 12, 1, 8, INT64_MIN, INT64_MAX, 4,
	};
	int64_t prev = INT64_MIN;

	for (uint32_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		push(keys[i], i);
		check_heap();
	}
	while (test_heap_count(&h) > 0) {
		const struct test_entry *top = test_heap_top(&h);

		ck_assert_int_ge(top->key, prev);
		prev = top->key;
		pos_of[top->id] = SIZE_MAX;
		test_heap_pop(&h);
		check_heap();
	}
	ck_assert_int_eq(prev, INT64_MAX);
}
END_TEST

/* Equal keys never pass each other: pushed in order they stay where they
 * were put (the valve starts every channel at MIN that way), and the first
 * to reach the top keeps it. */
START_TEST(test_ties_stay_where_they_are)
{
	for (uint32_t i = 0; i < 20; i++)
		push(7, i);
	for (uint32_t i = 0; i < 20; i++)
		ck_assert_uint_eq(pos_of[i], i);
	ck_assert_uint_eq(placed, 20); /* one store each, no moves */
	ck_assert_uint_eq(test_heap_top(&h)->id, 0);
	push(7, 20);
	ck_assert_uint_eq(test_heap_top(&h)->id, 0);
	push(6, 21);
	ck_assert_uint_eq(test_heap_top(&h)->id, 21);
	check_heap();
}
END_TEST

/* Of two equal children the left one, nearer the top in array order, is
 * the one that rises. */
START_TEST(test_equal_children_the_left_one_rises)
{
	push(1, 0);
	push(5, 1); /* left child of the top */
	push(5, 2); /* right child */
	push(9, 3);
	pos_of[0] = SIZE_MAX;
	test_heap_pop(&h);
	ck_assert_uint_eq(test_heap_top(&h)->id, 1);
	ck_assert_uint_eq(pos_of[2], 2);
	check_heap();
}
END_TEST

/* A key that rises sinks below the smaller of its children; one that does
 * not need to move is not stored again. */
START_TEST(test_sift_down_after_a_key_rises)
{
	for (uint32_t i = 0; i < 15; i++)
		push(10 * (int64_t)i, i);
	placed = 0;
	h.nodes[pos_of[3]].key = 35; /* children hold 70, 80: stays */
	test_heap_sift_down(&h, pos_of[3]);
	ck_assert_uint_eq(placed, 0);
	ck_assert_uint_eq(pos_of[3], 3);

	h.nodes[0].key = 1000; /* the top rises past everything */
	test_heap_sift_down(&h, 0);
	check_heap();
	ck_assert_uint_eq(test_heap_top(&h)->id, 1);
	ck_assert_uint_ge(pos_of[0], 7); /* a leaf now */
}
END_TEST

/* Removing from the middle: the last entry takes the place and goes up or
 * down as it must; positions stay right. */
START_TEST(test_remove_at_any_position)
{
	for (uint32_t i = 0; i < 31; i++)
		push((int64_t)(i * 37 % 31), i);
	check_heap();
	remove_id(h.nodes[h.count - 1].id); /* the last: nothing moves */
	check_heap();
	remove_id(h.nodes[5].id);
	check_heap();
	remove_id(h.nodes[0].id);
	check_heap();
	/* A small last entry moved under a large parent goes up. */
	for (uint32_t i = 31; i < 40; i++)
		push(100 + i, i);
	push(-1, 40);
	ck_assert_uint_eq(test_heap_top(&h)->id, 40);
	remove_id(h.nodes[2].id);
	check_heap();
}
END_TEST

START_TEST(test_clear_empties_the_heap)
{
	for (uint32_t i = 0; i < 10; i++)
		push(i, i);
	test_heap_clear(&h);
	ck_assert_uint_eq(test_heap_count(&h), 0);
	ck_assert_ptr_null(test_heap_top(&h));
	ck_assert(test_heap_has_room(&h, 10));
}
END_TEST

/* ---- tcase growth ---- */

START_TEST(test_first_allocation_is_the_least_or_what_is_asked)
{
	ck_assert_int_eq(test_heap_reserve(&h, 1), 0);
	ck_assert_uint_eq(h.capacity, 8);
	test_heap_destroy(&h);
	ck_assert_int_eq(test_heap_reserve(&h, 100), 0);
	ck_assert_uint_eq(h.capacity, 100);
}
END_TEST

START_TEST(test_growth_doubles_and_pushes_never_allocate)
{
	for (uint32_t i = 0; i < 8; i++)
		push(i, i);
	ck_assert_uint_eq(h.capacity, 8);
	ck_assert_int_eq(test_heap_reserve(&h, 20), 0);
	ck_assert_uint_eq(h.capacity, 32);
	/* Reserved: the next 20 pushes need no memory (nothing else runs
	 * meanwhile, Check included). */
	wm_alloc_limit = 0;
	for (uint32_t i = 8; i < 28; i++) {
		struct test_entry e = {.key = -(int64_t)i, .id = i};

		test_heap_push(&h, &e);
	}
	wm_alloc_limit = SIZE_MAX;
	ck_assert_uint_eq(h.capacity, 32);
	check_heap();
	ck_assert_uint_eq(test_heap_top(&h)->id, 27);
}
END_TEST

START_TEST(test_failed_growth_leaves_the_heap_as_it_was)
{
	struct test_entry before[8];
	struct test_entry *nodes;

	for (uint32_t i = 0; i < 8; i++)
		push(8 - i, i);
	for (size_t i = 0; i < 8; i++)
		before[i] = h.nodes[i];
	nodes = h.nodes;
	placed = 0;
	wm_alloc_limit = 8 * sizeof(struct test_entry);
	ck_assert_int_eq(test_heap_reserve(&h, 1), -ENOMEM);
	ck_assert_int_eq(test_heap_reserve(&h, SIZE_MAX), -ENOMEM);
	wm_alloc_limit = SIZE_MAX;
	ck_assert_ptr_eq(h.nodes, nodes);
	ck_assert_uint_eq(h.count, 8);
	ck_assert_uint_eq(h.capacity, 8);
	ck_assert_uint_eq(placed, 0);
	for (size_t i = 0; i < 8; i++) {
		ck_assert_int_eq(h.nodes[i].key, before[i].key);
		ck_assert_uint_eq(h.nodes[i].id, before[i].id);
	}
	ck_assert_int_eq(test_heap_reserve(&h, 1), 0);
	ck_assert_uint_eq(h.capacity, 16);
	check_heap();
}
END_TEST

/* ---- tcase model ---- */

/*
 * Random pushes, pops, removals at tracked positions and rising keys,
 * against model[] (each id's key, or absent): the top is always a least
 * key of the model, the heap in order, every position right.
 */
static void
run_model(uint64_t key_range, int ops, uint64_t seed)
{
	static int64_t model[IDS];
	static bool in[IDS];
	struct wm_rng r;
	size_t n = 0;

	wm_rng_seed(&r, seed);
	for (size_t i = 0; i < IDS; i++)
		in[i] = false;
	for (int op = 0; op < ops; op++) {
		uint32_t id = (uint32_t)(wm_rng_next(&r) % IDS);
		uint64_t what = wm_rng_next(&r) % 8;

		if (!in[id] && what < 4) {
			model[id] = (int64_t)(wm_rng_next(&r) % key_range);
			push(model[id], id);
			in[id] = true;
			n++;
		} else if (in[id] && what < 5) {
			remove_id(id);
			in[id] = false;
			n--;
		} else if (in[id] && what < 7) {
			model[id] += (int64_t)(wm_rng_next(&r) % 5);
			h.nodes[pos_of[id]].key = model[id];
			test_heap_sift_down(&h, pos_of[id]);
		} else if (n > 0) {
			const struct test_entry *top = test_heap_top(&h);

			ck_assert(in[top->id]);
			in[top->id] = false;
			pos_of[top->id] = SIZE_MAX;
			test_heap_pop(&h);
			n--;
		}
		ck_assert_uint_eq(test_heap_count(&h), n);
		if (op % 32 == 0 || n < 3) {
			int64_t least = INT64_MAX;

			check_heap();
			for (size_t i = 0; i < IDS; i++)
				if (in[i] && model[i] < least)
					least = model[i];
			if (n > 0)
				ck_assert_int_eq(test_heap_top(&h)->key, least);
		}
	}
	check_heap();
}

START_TEST(test_random_ops_match_model_with_many_ties)
{
	run_model(8, 60000, 1);
}
END_TEST

START_TEST(test_random_ops_match_model_with_spread_keys)
{
	run_model(1u << 30, 60000, 2);
}
END_TEST

#ifdef WM_ASSERT_ENABLED
/* Checked builds only (base/assert.h): misuse breaks the heap's contract
 * and the heap says so at once. A push needs room reserved first. */
START_TEST(test_push_without_room_is_a_broken_invariant)
{
	struct test_entry e = {.key = 1, .id = 0};

	test_heap_push(&h, &e);
}
END_TEST

/* sift_down() is for a key that rose; one that fell below its parent
 * would stay there, out of order. */
START_TEST(test_sift_down_of_a_key_that_fell_is_a_broken_invariant)
{
	for (uint32_t i = 0; i < 7; i++)
		push(10 * (int64_t)i, i);
	h.nodes[5].key = -1; /* below its parent, at 2 */
	test_heap_sift_down(&h, 5);
}
END_TEST
#endif

static Suite *
binary_heap_suite(void)
{
	Suite *s = suite_create("binary_heap");
	TCase *tc;

	tc = tcase_create("order");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_new_heap_is_empty_without_memory);
	tcase_add_test(tc, test_pops_come_out_in_key_order);
	tcase_add_test(tc, test_ties_stay_where_they_are);
	tcase_add_test(tc, test_equal_children_the_left_one_rises);
	tcase_add_test(tc, test_sift_down_after_a_key_rises);
	tcase_add_test(tc, test_remove_at_any_position);
	tcase_add_test(tc, test_clear_empties_the_heap);
	suite_add_tcase(s, tc);

	tc = tcase_create("growth");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_first_allocation_is_the_least_or_what_is_asked);
	tcase_add_test(tc, test_growth_doubles_and_pushes_never_allocate);
	tcase_add_test(tc, test_failed_growth_leaves_the_heap_as_it_was);
	suite_add_tcase(s, tc);

	tc = tcase_create("model");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_random_ops_match_model_with_many_ties);
	tcase_add_test(tc, test_random_ops_match_model_with_spread_keys);
	suite_add_tcase(s, tc);

#ifdef WM_ASSERT_ENABLED
	tc = tcase_create("contract");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test_raise_signal(
		tc, test_push_without_room_is_a_broken_invariant, SIGABRT);
	tcase_add_test_raise_signal(
		tc, test_sift_down_of_a_key_that_fell_is_a_broken_invariant,
		SIGABRT);
	suite_add_tcase(s, tc);
#endif
	return s;
}

int
main(void)
{
	return wm_check_main(binary_heap_suite());
}
