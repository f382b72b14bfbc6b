/*
 * check_page_ahead.c
 *	Pages populated ahead of a writer: they come in ahead of it, never
 *	more than the lead ahead, the writer's bytes are never touched, and
 *	a writer that overtakes the thread loses nothing.
 */
#include "config.h"

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "lib/page_ahead.h"
#include "tests/unit/check_main.h"
#include "tests/unit/hot_assert.h"

#define MIB ((size_t)1 << 20)

static size_t
page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static char *
map(size_t len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	return p;
}

/* The pages of [base + from, base + to) that are resident. */
static size_t
resident(char *base, size_t from, size_t to)
{
	size_t page = page_size(), n = (to - from) / page, in = 0;
	unsigned char vec[4096];

	ck_assert_uint_le(n, sizeof(vec));
	ck_assert_int_eq(mincore(base + from, to - from, vec), 0);
	for (size_t i = 0; i < n; i++)
		in += vec[i] & 1;
	return in;
}

/* Waits (up to a minute: the machine may be loaded) until every page of
 * [base + from, base + to) is resident. */
static bool
wait_resident(char *base, size_t from, size_t to)
{
	struct timespec nap = {0, 1000000};

	for (int i = 0; i < 60000; i++) {
		if (resident(base, from, to) == (to - from) / page_size())
			return true;
		nanosleep(&nap, NULL);
	}
	return false;
}

START_TEST(test_pages_come_in_ahead_of_the_writer_within_the_lead)
{
	const size_t len = 16 * MIB, lead = 4 * MIB;
	char *base = map(len);
	struct wm_page_ahead *pa = wm_page_ahead_start(base, len, lead);

	ck_assert_ptr_nonnull(pa);
	/* From the start, the lead's pages come in, and no page past it. */
	ck_assert(wait_resident(base, 0, lead));
	ck_assert_uint_eq(resident(base, lead, len), 0);
	/* Written up to 6 MiB: pages to 10 MiB, none past. */
	memset(base, 7, 6 * MIB);
	wm_page_ahead_at(pa, 6 * MIB);
	ck_assert(wait_resident(base, 6 * MIB, 10 * MIB));
	ck_assert_uint_eq(resident(base, 10 * MIB, len), 0);
	wm_page_ahead_stop(pa);
	/* The writer's bytes as written, the pages ahead of it zero. */
	for (size_t i = 0; i < 10 * MIB; i++)
		WM_HOT_ASSERT(base[i] == (i < 6 * MIB ? 7 : 0),
			      "byte %zu is %d", i, base[i]);
	ck_assert_int_eq(munmap(base, len), 0);
}
END_TEST

START_TEST(test_a_writer_that_overtakes_it_loses_nothing)
{
	const size_t len = 32 * MIB, page = page_size();
	char *base = map(len);
	struct wm_page_ahead *pa = wm_page_ahead_start(base, len, 2 * MIB);

	ck_assert_ptr_nonnull(pa);
	/* Every page written as it is told of, faster than the thread
	 * may go: populating a written page must not undo the write. */
	for (size_t at = 0; at < len; at += page) {
		memset(base + at, (int)(at / page % 251) + 1, page);
		if (at % (64 * page) == 0)
			wm_page_ahead_at(pa, at + page);
	}
	wm_page_ahead_stop(pa);
	for (size_t at = 0; at < len; at += page)
		WM_HOT_ASSERT((unsigned char)base[at + page - 1] ==
				      (int)(at / page % 251) + 1,
			      "page at %zu", at);
	ck_assert_int_eq(munmap(base, len), 0);
}
END_TEST

START_TEST(test_stopped_at_once_and_nothing_for_null)
{
	const size_t len = 8 * MIB;
	char *base = map(len);

	wm_page_ahead_stop(wm_page_ahead_start(base, len, MIB));
	wm_page_ahead_at(NULL, 10);
	wm_page_ahead_stop(NULL);
	ck_assert_int_eq(munmap(base, len), 0);
}
END_TEST

static Suite *
page_ahead_suite(void)
{
	Suite *s = suite_create("page_ahead");
	TCase *tc = tcase_create("page_ahead");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc,
		       test_pages_come_in_ahead_of_the_writer_within_the_lead);
	tcase_add_test(tc, test_a_writer_that_overtakes_it_loses_nothing);
	tcase_add_test(tc, test_stopped_at_once_and_nothing_for_null);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(page_ahead_suite());
}
