/*
 * check_hash_table.c
 *	Unit tests of the open-addressing table template
 *	(lib/hash_table.h): exact slot positions after insertion and
 *	backward-shift removal, growth and its failure, and random operations
 *	against a reference model, checking after each one that every entry
 *	is reachable from its home slot and that the MOVED hook kept track.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/rng.h"
#include "lib/hash.h"
#include "tests/unit/alloc_limit.h"
#include "tests/unit/check_main.h"
#include "tests/unit/hot_assert.h"

/*
 * The table under test. Its hash is the key itself, so that the layout
 * tests choose home slots and build clusters, collisions and wrap-around
 * on purpose; the model tests hash groups of four keys alike (the same
 * home and the same hash), spread over the table. Keys are below KEYS;
 * value 0 marks an empty slot, so values are >= 1.
 */
#define KEYS 4096

struct test_slot {
	uint64_t value; /* 0: empty */
	uint64_t key;
};

static bool grouped_hash;

static inline uint64_t
key_hash(uint64_t k)
{
	return grouped_hash ? wm_hash_mix64(k >> 2) : k;
}

/* Where the MOVED hook and insertions say each key is; SIZE_MAX: absent. */
static size_t where[KEYS];
static unsigned long moves;

#define WM_HT_PREFIX test_table
#define WM_HT_ENTRY struct test_slot
#define WM_HT_KEY uint64_t
#define WM_HT_EMPTY(e) ((e)->value == 0)
#define WM_HT_HASH(tb, e) key_hash((e)->key)
#define WM_HT_MATCH(tb, e, k, hash) ((e)->key == (k))
#define WM_HT_MIN_SLOTS 16
#define WM_HT_FILL(slots) ((slots) / 4 * 3)
#define WM_HT_MOVED(tb, e, idx) (where[(e)->key] = (idx), moves++)
#include "lib/hash_table.h"

/* The same with a real hash and a ceiling of 64 slots, aligned. */
struct small_slot {
	uint64_t hash; /* 0: empty */
	uint64_t key;
};

#define WM_HT_PREFIX small_table
#define WM_HT_ENTRY struct small_slot
#define WM_HT_KEY uint64_t
#define WM_HT_EMPTY(e) ((e)->hash == 0)
#define WM_HT_HASH(tb, e) ((e)->hash)
#define WM_HT_MATCH(tb, e, k, hash_) ((e)->hash == (hash_) && (e)->key == (k))
#define WM_HT_MIN_SLOTS 16
#define WM_HT_FILL(slots) ((slots) / 2)
#define WM_HT_MAX_SLOTS 64
#define WM_HT_ALIGN 64
#include "lib/hash_table.h"

static struct test_table tb;

static void
setup(void)
{
	for (size_t k = 0; k < KEYS; k++)
		where[k] = SIZE_MAX;
	moves = 0;
	grouped_hash = false;
	test_table_init(&tb);
}

static void
teardown(void)
{
	test_table_destroy(&tb);
	wm_alloc_limit = SIZE_MAX;
}

/* Insert key k (absent) with value v, reserving room first. */
static void
put(uint64_t k, uint64_t v)
{
	struct test_slot *e;
	size_t idx;

	ck_assert_int_eq(test_table_reserve(&tb, 1), 0);
	ck_assert(!test_table_lookup(&tb, k, key_hash(k), &idx));
	e = test_table_insert_at(&tb, idx);
	ck_assert_uint_eq(e->value, 0);
	e->key = k;
	e->value = v;
	where[k] = idx;
}

/* Remove key k (present). */
static void
del(uint64_t k)
{
	size_t idx;

	ck_assert(test_table_lookup(&tb, k, key_hash(k), &idx));
	ck_assert_uint_eq(idx, where[k]);
	test_table_remove_at(&tb, idx);
	where[k] = SIZE_MAX;
}

/* The slot of key k, which must be present. */
static size_t
slot_of(uint64_t k)
{
	size_t idx;

	ck_assert_msg(test_table_lookup(&tb, k, key_hash(k), &idx),
		      "key %llu lost", (unsigned long long)k);
	return idx;
}

/*
 * The invariants: every occupied slot is reachable from its home without
 * crossing an empty slot (what backward-shift removal keeps), holds what
 * where[] says, and the count is right.
 */
static void
check_structure(void)
{
	size_t occupied = 0;

	for (size_t i = 0; i <= tb.mask; i++) {
		const struct test_slot *e = &tb.slots[i];

		if (e->value == 0)
			continue;
		occupied++;
		WM_HOT_ASSERT(where[e->key] == i, "key %llu in slot %zu",
			      (unsigned long long)e->key, i);
		for (size_t j = key_hash(e->key) & tb.mask; j != i;
		     j = (j + 1) & tb.mask)
			WM_HOT_ASSERT(tb.slots[j].value != 0,
				      "key %llu in slot %zu: gap at %zu on the "
				      "way from its home",
				      (unsigned long long)e->key, i, j);
	}
	ck_assert_uint_eq(occupied, test_table_count(&tb));
	ck_assert_uint_le(test_table_count(&tb), tb.grow_at);
}

/* ---- tcase layout: where entries go and how removal moves them ---- */

START_TEST(test_new_table_has_no_memory_and_finds_nothing)
{
	size_t idx = 99, pos = 0;

	ck_assert_uint_eq(test_table_count(&tb), 0);
	ck_assert(!test_table_has_room(&tb, 1));
	ck_assert(test_table_has_room(&tb, 0));
	ck_assert(!test_table_lookup(&tb, 5, 5, &idx));
	ck_assert_uint_eq(idx, 0);
	ck_assert_ptr_null(test_table_next(&tb, &pos));
	/* Nothing to free; then the first reservation allocates the least. */
	test_table_destroy(&tb);
	ck_assert_int_eq(test_table_reserve(&tb, 1), 0);
	ck_assert_uint_eq(tb.mask + 1, 16);
	ck_assert_uint_eq(tb.grow_at, 12);
}
END_TEST

START_TEST(test_colliding_keys_take_the_next_free_slots)
{
	put(3, 1);
	put(3 + 16, 2); /* home 3 too */
	put(4, 3);	/* home 4, taken: next free */
	put(3 + 32, 4);
	ck_assert_uint_eq(slot_of(3), 3);
	ck_assert_uint_eq(slot_of(3 + 16), 4);
	ck_assert_uint_eq(slot_of(4), 5);
	ck_assert_uint_eq(slot_of(3 + 32), 6);
	check_structure();
}
END_TEST

/*
 * Slots 3..6 hold keys with homes 3, 3, 4, 3. Removing the first: the home
 * 3 key at 4 moves back to 3; the home 4 key at 5 moves to 4 (its home);
 * the home 3 key at 6 moves to 5; slot 6 ends empty. Nothing is lost and
 * no probe crosses a hole.
 */
START_TEST(test_removal_shifts_the_cluster_back)
{
	put(3, 1);
	put(3 + 16, 2);
	put(4, 3);
	put(3 + 32, 4);
	moves = 0;
	del(3);
	ck_assert_uint_eq(slot_of(3 + 16), 3);
	ck_assert_uint_eq(slot_of(4), 4);
	ck_assert_uint_eq(slot_of(3 + 32), 5);
	ck_assert_uint_eq(tb.slots[6].value, 0);
	ck_assert_uint_eq(moves, 3);
	check_structure();
}
END_TEST

/* An entry already at its home, or whose path does not cross the hole,
 * stays where it is. */
START_TEST(test_removal_leaves_entries_whose_path_misses_the_hole)
{
	put(3, 1);
	put(3 + 16, 2); /* slot 4 */
	put(5, 3);	/* home 5, at home */
	put(4, 4);	/* home 4, slot 6 */
	moves = 0;
	del(3);
	/* home 3 at 4 -> 3; home 5 at 5 stays; home 4 at 6 -> 4. */
	ck_assert_uint_eq(slot_of(3 + 16), 3);
	ck_assert_uint_eq(slot_of(5), 5);
	ck_assert_uint_eq(slot_of(4), 4);
	ck_assert_uint_eq(tb.slots[6].value, 0);
	ck_assert_uint_eq(moves, 2);
	check_structure();
}
END_TEST

/* A cluster that wraps from the last slot to the first shifts back across
 * the end of the array. */
START_TEST(test_removal_shifts_back_across_the_end)
{
	put(14, 1);
	put(14 + 16, 2); /* 15 */
	put(15, 3);	 /* 0 */
	put(14 + 32, 4); /* 1 */
	put(0, 5);	 /* home 0: 2 */
	del(14 + 16);
	ck_assert_uint_eq(slot_of(14), 14);
	ck_assert_uint_eq(slot_of(15), 15);
	ck_assert_uint_eq(slot_of(14 + 32), 0);
	ck_assert_uint_eq(slot_of(0), 1);
	ck_assert_uint_eq(tb.slots[2].value, 0);
	check_structure();
	del(14);
	ck_assert_uint_eq(slot_of(15), 15);
	ck_assert_uint_eq(slot_of(14 + 32), 14);
	ck_assert_uint_eq(slot_of(0), 0);
	check_structure();
}
END_TEST

START_TEST(test_removal_zeroes_the_last_hole)
{
	put(7, 9);
	del(7);
	ck_assert_uint_eq(tb.slots[7].value, 0);
	ck_assert_uint_eq(tb.slots[7].key, 0);
	ck_assert_uint_eq(test_table_count(&tb), 0);
}
END_TEST

START_TEST(test_iteration_visits_every_entry_once)
{
	static bool seen[KEYS];
	struct test_slot *e;
	size_t pos = 0, n = 0;

	for (uint64_t k = 0; k < 200; k++)
		put(k * 7 % 1000, k + 1);
	while ((e = test_table_next(&tb, &pos)) != NULL) {
		ck_assert(!seen[e->key]);
		seen[e->key] = true;
		n++;
	}
	ck_assert_uint_eq(n, 200);
	for (uint64_t k = 0; k < 200; k++)
		ck_assert(seen[k * 7 % 1000]);
}
END_TEST

/* ---- tcase growth ---- */

START_TEST(test_growth_doubles_at_the_load_limit_and_keeps_entries)
{
	for (uint64_t k = 0; k < 12; k++)
		put(k * 5, k + 1);
	ck_assert_uint_eq(tb.mask + 1, 16);
	ck_assert(!test_table_has_room(&tb, 1));
	put(999, 13);
	ck_assert_uint_eq(tb.mask + 1, 32);
	ck_assert_uint_eq(tb.grow_at, 24);
	check_structure();
	for (uint64_t k = 0; k < 12; k++)
		ck_assert_uint_eq(tb.slots[slot_of(k * 5)].value, k + 1);
}
END_TEST

START_TEST(test_reserve_doubles_as_often_as_needed_at_once)
{
	put(1, 1);
	ck_assert_int_eq(test_table_reserve(&tb, 100), 0);
	/* 101 entries at a load of 3/4: 256 slots (192), not 128 (96). */
	ck_assert_uint_eq(tb.mask + 1, 256);
	ck_assert(test_table_has_room(&tb, 100));
	ck_assert(!test_table_has_room(&tb, 192));
	ck_assert_uint_eq(slot_of(1), 1);
	/* Room already there: nothing moves. */
	moves = 0;
	ck_assert_int_eq(test_table_reserve(&tb, 50), 0);
	ck_assert_uint_eq(tb.mask + 1, 256);
	ck_assert_uint_eq(moves, 0);
}
END_TEST

START_TEST(test_removals_never_shrink_the_table)
{
	for (uint64_t k = 0; k < 500; k++)
		put(k, k + 1);
	size_t slots = tb.mask + 1;

	for (uint64_t k = 0; k < 500; k++)
		del(k);
	ck_assert_uint_eq(tb.mask + 1, slots);
	ck_assert_uint_eq(test_table_count(&tb), 0);
	for (size_t i = 0; i < slots; i++)
		ck_assert_uint_eq(tb.slots[i].value, 0);
}
END_TEST

/* Out of memory: -ENOMEM, and the table is the one it was, entry for entry
 * and slot for slot; with memory back, the same reservation succeeds. */
START_TEST(test_failed_growth_leaves_the_table_as_it_was)
{
	struct test_slot before[64];
	struct test_slot *slots;
	size_t mask, used, grow_at;

	for (uint64_t k = 0; k < 40; k++)
		put(k * 3, k + 1);
	ck_assert_uint_eq(tb.mask + 1, 64);
	for (size_t i = 0; i < 64; i++)
		before[i] = tb.slots[i];
	slots = tb.slots;
	mask = tb.mask;
	used = tb.used;
	grow_at = tb.grow_at;
	moves = 0;

	wm_alloc_limit = 64 * sizeof(struct test_slot); /* not 128 slots */
	ck_assert_int_eq(test_table_reserve(&tb, 20), -ENOMEM);
	wm_alloc_limit = SIZE_MAX;
	ck_assert_ptr_eq(tb.slots, slots);
	ck_assert_uint_eq(tb.mask, mask);
	ck_assert_uint_eq(tb.used, used);
	ck_assert_uint_eq(tb.grow_at, grow_at);
	ck_assert_uint_eq(moves, 0);
	for (size_t i = 0; i < 64; i++) {
		ck_assert_uint_eq(tb.slots[i].value, before[i].value);
		ck_assert_uint_eq(tb.slots[i].key, before[i].key);
	}
	check_structure();

	ck_assert_int_eq(test_table_reserve(&tb, 20), 0);
	ck_assert_uint_eq(tb.mask + 1, 128);
	check_structure();
}
END_TEST

/* The first allocation failing leaves the table without memory, usable. */
START_TEST(test_failed_first_allocation_leaves_an_empty_table)
{
	size_t idx;

	/* 16 slots of 16 bytes; Check's own small allocations still pass. */
	wm_alloc_limit = 16 * sizeof(struct test_slot) - 1;
	ck_assert_int_eq(test_table_reserve(&tb, 1), -ENOMEM);
	wm_alloc_limit = SIZE_MAX;
	ck_assert(!test_table_lookup(&tb, 3, 3, &idx));
	ck_assert_uint_eq(test_table_count(&tb), 0);
	put(3, 1);
	ck_assert_uint_eq(slot_of(3), 3);
}
END_TEST

/* Past WM_HT_MAX_SLOTS: -ENOMEM without trying, nothing changed. */
START_TEST(test_growth_stops_at_the_most_slots)
{
	struct small_table st;
	size_t idx;

	small_table_init(&st);
	ck_assert_int_eq(small_table_reserve(&st, 32), 0);
	ck_assert_uint_eq(st.mask + 1, 64);
	ck_assert_uint_eq((uintptr_t)st.slots % 64, 0);
	for (uint64_t k = 1; k <= 32; k++) {
		uint64_t h = wm_hash_mix64(k);
		struct small_slot *e;

		ck_assert(!small_table_lookup(&st, k, h, &idx));
		e = small_table_insert_at(&st, idx);
		e->hash = h;
		e->key = k;
	}
	ck_assert_int_eq(small_table_reserve(&st, 1), -ENOMEM);
	ck_assert_int_eq(small_table_reserve(&st, SIZE_MAX), -ENOMEM);
	ck_assert_uint_eq(st.mask + 1, 64);
	ck_assert_uint_eq(small_table_count(&st), 32);
	for (uint64_t k = 1; k <= 32; k++)
		ck_assert(small_table_lookup(&st, k, wm_hash_mix64(k), &idx));
	small_table_destroy(&st);
}
END_TEST

/* ---- tcase model: random operations against a plain array ---- */

/*
 * Random inserts and removals of keys below `range`, four keys to a hash,
 * checked against model[]: after every operation the count and the key
 * touched, every 64 the structure and every key.
 */
static void
run_model(uint64_t range, int ops, uint64_t seed)
{
	static uint64_t model[KEYS]; /* value, or 0: absent */
	struct wm_rng r;
	size_t present = 0;

	wm_rng_seed(&r, seed);
	grouped_hash = true;
	for (uint64_t k = 0; k < KEYS; k++)
		model[k] = 0;
	for (int i = 0; i < ops; i++) {
		uint64_t k = wm_rng_next(&r) % range;
		size_t idx;

		if (model[k] == 0 && wm_rng_next(&r) % 3 != 0) {
			model[k] = (uint64_t)i + 1;
			put(k, model[k]);
			present++;
		} else if (model[k] != 0) {
			del(k);
			model[k] = 0;
			present--;
		}
		WM_HOT_ASSERT(test_table_count(&tb) == present, "op %d", i);
		/* The key just touched and a few others, every time. */
		WM_HOT_ASSERT(test_table_lookup(&tb, k, key_hash(k), &idx) ==
				      (model[k] != 0),
			      "op %d, key %llu", i, (unsigned long long)k);
		if (i % 64 == 0) {
			check_structure();
			for (uint64_t j = 0; j < range; j++) {
				bool found = test_table_lookup(
					&tb, j, key_hash(j), &idx);

				WM_HOT_ASSERT(found == (model[j] != 0),
					      "op %d, key %llu", i,
					      (unsigned long long)j);
				WM_HOT_ASSERT(!found || tb.slots[idx].value ==
								model[j],
					      "op %d, key %llu", i,
					      (unsigned long long)j);
			}
		}
	}
	check_structure();
}

START_TEST(test_random_ops_match_model_small_range)
{
	run_model(40, 20000, 1);
}
END_TEST

START_TEST(test_random_ops_match_model_wide_range)
{
	run_model(KEYS, 40000, 2);
}
END_TEST

#ifdef WM_ASSERT_ENABLED
/* Checked builds only (base/assert.h): an insertion needs room reserved
 * first, and the table says so at once instead of writing into the
 * shared empty slot or past its load limit. */
START_TEST(test_insertion_without_room_is_a_broken_invariant)
{
	size_t idx;

	ck_assert(!test_table_lookup(&tb, 3, key_hash(3), &idx));
	(void)test_table_insert_at(&tb, idx);
}
END_TEST
#endif

/*
 * wm_hash_fibonacci_low() spreads structured keys over the low bits a table
 * takes: n keys, consecutive, even, strided by 1000 or 60000 (timestamps),
 * by 2^12 or 2^32, apart only in their top bits, or in both halves, land
 * in at least 65 % as many homes of a table of 2n slots (uniform hashing
 * gives 79 %, wm_hash_mix64() 73 % to 80 % here, this 68 % to 100 %). A
 * byte-swapped product in place of the second fold gave 2,048 even keys
 * a third; without the first fold, keys apart only above bit 48 would
 * reach the home through the product's top half alone.
 */
START_TEST(test_fibonacci_low_spreads_structured_keys)
{
	static const unsigned bits[] = {8, 11, 13, 16};

	for (size_t b = 0; b < sizeof(bits) / sizeof(bits[0]); b++) {
		uint64_t n = (uint64_t)1 << bits[b];
		uint64_t mask = 2 * n - 1;
		unsigned char *home = malloc(mask + 1);

		ck_assert_ptr_nonnull(home);
		for (int p = 0; p < 8; p++) {
			uint64_t homes = 0;

			memset(home, 0, mask + 1);
			for (uint64_t i = 0; i < n; i++) {
				const uint64_t keys[] = {
					i,
					i << 1,
					i * 1000,
					i * 60000,
					i << 12,
					i << 32,
					i << (64 - bits[b]),
					i << 32 | i,
				};
				uint64_t k =
					wm_hash_fibonacci_low(keys[p]) & mask;

				homes += home[k] == 0;
				home[k] = 1;
			}
			ck_assert_msg(homes * 20 >= n * 13,
				      "%" PRIu64 " keys of pattern %d: %" PRIu64
				      " homes",
				      n, p, homes);
		}
		free(home);
	}
}
END_TEST

static Suite *
hash_table_suite(void)
{
	Suite *s = suite_create("hash_table");
	TCase *tc;

	tc = tcase_create("layout");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_new_table_has_no_memory_and_finds_nothing);
	tcase_add_test(tc, test_colliding_keys_take_the_next_free_slots);
	tcase_add_test(tc, test_removal_shifts_the_cluster_back);
	tcase_add_test(tc,
		       test_removal_leaves_entries_whose_path_misses_the_hole);
	tcase_add_test(tc, test_removal_shifts_back_across_the_end);
	tcase_add_test(tc, test_removal_zeroes_the_last_hole);
	tcase_add_test(tc, test_iteration_visits_every_entry_once);
	suite_add_tcase(s, tc);

	tc = tcase_create("growth");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc,
		       test_growth_doubles_at_the_load_limit_and_keeps_entries);
	tcase_add_test(tc, test_reserve_doubles_as_often_as_needed_at_once);
	tcase_add_test(tc, test_removals_never_shrink_the_table);
	tcase_add_test(tc, test_failed_growth_leaves_the_table_as_it_was);
	tcase_add_test(tc, test_failed_first_allocation_leaves_an_empty_table);
	tcase_add_test(tc, test_growth_stops_at_the_most_slots);
	suite_add_tcase(s, tc);

	tc = tcase_create("hash");
	tcase_add_test(tc, test_fibonacci_low_spreads_structured_keys);
	suite_add_tcase(s, tc);

	tc = tcase_create("model");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_random_ops_match_model_small_range);
	tcase_add_test(tc, test_random_ops_match_model_wide_range);
	suite_add_tcase(s, tc);

#ifdef WM_ASSERT_ENABLED
	tc = tcase_create("contract");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test_raise_signal(
		tc, test_insertion_without_room_is_a_broken_invariant, SIGABRT);
	suite_add_tcase(s, tc);
#endif
	return s;
}

int
main(void)
{
	return wm_check_main(hash_table_suite());
}
