/*
 * check_screen.c
 *	A frame of the live screen: lines take the mark in force where they
 *	start, a short terminal keeps the lowest ranks first in their order,
 *	and a wide line is cut to the columns without splitting a character.
 */
#include "config.h"

#include <check.h>
#include <locale.h>
#include <string.h>

#include "runtime/observe/screen.h"
#include "tests/unit/check_main.h"

/* A frame of six lines: the head, an outline, a held subtask and its
 * blame line, a subtask not held, and one of its inputs. */
static void
six_lines(struct wm_screen *s)
{
	ck_assert_int_eq(wm_screen_begin(s), 0);
	wm_screen_mark(s, WM_SCREEN_HEAD, WM_SCREEN_ALWAYS);
	fprintf(wm_screen_file(s), "head\n");
	wm_screen_mark(s, WM_SCREEN_PLAIN, WM_SCREEN_OUTLINE);
	fprintf(wm_screen_file(s), "stage\n");
	wm_screen_mark(s, WM_SCREEN_PLAIN, WM_SCREEN_SUBTASK);
	fprintf(wm_screen_file(s), "quiet subtask\n");
	wm_screen_mark(s, WM_SCREEN_IDLE, WM_SCREEN_DETAIL);
	fprintf(wm_screen_file(s), "  its input\n");
	wm_screen_mark(s, WM_SCREEN_HELD, WM_SCREEN_ANSWER);
	/* Two lines under one mark. */
	fprintf(wm_screen_file(s), "held subtask\n  held for 1 h\n");
	ck_assert_int_eq(wm_screen_end(s), 0);
}

START_TEST(test_lines_take_the_mark_where_they_start)
{
	struct wm_screen s;

	six_lines(&s);
	ck_assert_uint_eq(s.n_lines, 6);
	ck_assert_str_eq(s.line[0].text, "head");
	ck_assert_int_eq(s.line[0].style, WM_SCREEN_HEAD);
	ck_assert_int_eq(s.line[0].rank, WM_SCREEN_ALWAYS);
	ck_assert_str_eq(s.line[3].text, "  its input");
	ck_assert_uint_eq(s.line[3].len, 11);
	ck_assert_int_eq(s.line[3].style, WM_SCREEN_IDLE);
	ck_assert_str_eq(s.line[5].text, "  held for 1 h");
	ck_assert_int_eq(s.line[5].style, WM_SCREEN_HELD);
	ck_assert_int_eq(s.line[5].rank, WM_SCREEN_ANSWER);
	wm_screen_free(&s);
}
END_TEST

START_TEST(test_a_short_terminal_keeps_the_answer_first)
{
	struct wm_screen s;
	bool keep[6];

	six_lines(&s);
	/* All fit: all kept, nothing said left out. */
	ck_assert_uint_eq(wm_screen_fit(&s, 6, keep), 0);
	for (int i = 0; i < 6; i++)
		ck_assert(keep[i]);
	ck_assert_uint_eq(wm_screen_fit(&s, 0, keep), 0);
	/* Four rows: three lines and the count of the rest. The head and
	 * the held subtask's two lines, never the stage above them. */
	ck_assert_uint_eq(wm_screen_fit(&s, 4, keep), 3);
	ck_assert(keep[0] && keep[4] && keep[5]);
	ck_assert(!keep[1] && !keep[2] && !keep[3]);
	/* Five: the outline next; the subtask not held and its input
	 * left out. */
	ck_assert_uint_eq(wm_screen_fit(&s, 5, keep), 2);
	ck_assert(keep[0] && keep[1] && keep[4] && keep[5]);
	ck_assert(!keep[2] && !keep[3]);
	/* One row: the head line alone is never dropped for the count. */
	ck_assert_uint_eq(wm_screen_fit(&s, 2, keep), 5);
	ck_assert(keep[0]);
	for (int i = 1; i < 6; i++)
		ck_assert(!keep[i]);
	wm_screen_free(&s);
}
END_TEST

START_TEST(test_a_wide_line_is_cut_with_room_for_the_mark)
{
	bool cut;
	uint32_t used;
	const char *text = "partition events-3";

	/* Fits exactly: not cut. */
	ck_assert_uint_eq(wm_screen_cut(text, 18, 18, &cut, &used), 18);
	ck_assert(!cut);
	ck_assert_uint_eq(used, 18);
	/* One column short: 16 bytes, and the mark makes 17. */
	ck_assert_uint_eq(wm_screen_cut(text, 18, 17, &cut, &used), 16);
	ck_assert(cut);
	ck_assert_uint_eq(used, 17);
	/* A column: the mark alone. */
	ck_assert_uint_eq(wm_screen_cut(text, 18, 1, &cut, &used), 0);
	ck_assert(cut);
	ck_assert_uint_eq(used, 1);
}
END_TEST

START_TEST(test_a_cut_never_splits_a_character)
{
	bool cut;
	uint32_t used;
	/* "vélo-日本" : v, é (2 bytes), l, o, -, 日 and 本 (3 bytes and two
	 * columns each, in a UTF-8 locale). */
	const char *text = "v\xc3\xa9lo-\xe6\x97\xa5\xe6\x9c\xac";
	size_t len = strlen(text);

	ck_assert_ptr_nonnull(setlocale(LC_CTYPE, "C.UTF-8"));
	/* Nine columns: all of it, in 12 bytes. */
	ck_assert_uint_eq(wm_screen_cut(text, len, 9, &cut, &used), len);
	ck_assert(!cut);
	ck_assert_uint_eq(used, 9);
	/* Eight: 日 fits in 7 with the mark's column, not 本. */
	ck_assert_uint_eq(wm_screen_cut(text, len, 8, &cut, &used), 9);
	ck_assert(cut);
	ck_assert_uint_eq(used, 8);
	/* Six: 日 would need columns 6 and 7, so "vélo-" and the mark. */
	ck_assert_uint_eq(wm_screen_cut(text, len, 6, &cut, &used), 6);
	ck_assert(cut);
	ck_assert_uint_eq(used, 6);
	/* Two: "v" and the mark, never half of é. */
	ck_assert_uint_eq(wm_screen_cut(text, len, 2, &cut, &used), 1);
	ck_assert_uint_eq(used, 2);
	/* A byte that starts nothing valid is one column. */
	ck_assert_uint_eq(wm_screen_cut("a\xff"
					"bc",
					4, 3, &cut, &used),
			  2);
	ck_assert(cut);
	setlocale(LC_CTYPE, "C");
}
END_TEST

static Suite *
screen_suite(void)
{
	Suite *s = suite_create("screen");
	TCase *t = tcase_create("screen");

	tcase_add_test(t, test_lines_take_the_mark_where_they_start);
	tcase_add_test(t, test_a_short_terminal_keeps_the_answer_first);
	tcase_add_test(t, test_a_wide_line_is_cut_with_room_for_the_mark);
	tcase_add_test(t, test_a_cut_never_splits_a_character);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	return wm_check_main(screen_suite());
}
