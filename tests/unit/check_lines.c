/*
 * check_lines.c
 *	Unit tests of bounded line reading: every kind of line end, and
 *	line ends at the bound.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "lib/lines.h"
#include "tests/unit/check_main.h"

/* `text` read with bound `max` gives `want`: each line as
 * wm_line_read() stored it, followed by "|", or, for a longer line, its
 * first max bytes followed by "+" (its rest skipped). */
static void
expect_lines(const char *text, size_t max, const char *want)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	char buf[64], got[256] = "";
	size_t n;

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_lt(max, sizeof(buf));
	while ((n = wm_line_read(f, buf, max)) > 0) {
		ck_assert_uint_eq(strlen(buf), n > max ? max : n);
		ck_assert_uint_lt(strlen(got) + strlen(buf) + 1, sizeof(got));
		strcat(got, buf);
		if (n > max)
			wm_line_skip(f);
		strcat(got, n > max ? "+" : "|");
	}
	ck_assert(feof(f));
	fclose(f);
	ck_assert_str_eq(got, want);
}

START_TEST(test_lines_end_with_lf_crlf_or_a_lone_cr)
{
	expect_lines("a\nb\r\nc\rd", 16, "a\n|b\r\n|c\r|d|");
	/* A CR-only file, as old Mac editors write it. */
	expect_lines("h\r0,1\r1,2\r", 16, "h\r|0,1\r|1,2\r|");
}
END_TEST

START_TEST(test_cr_before_crlf_ends_two_lines)
{
	expect_lines("a\r\r\nb", 16, "a\r|\r\n|b|");
	expect_lines("\r\r\n\n", 16, "\r|\r\n|\n|");
}
END_TEST

START_TEST(test_line_end_at_the_bound_is_read_not_stored)
{
	/* Four bytes, then the end: the line fits, and the next one
	 * starts after its end, whichever it is. */
	expect_lines("abcd\r\nx", 4, "abcd|x|");
	expect_lines("abcd\rx", 4, "abcd|x|");
	expect_lines("abcd\nx", 4, "abcd|x|");
	/* The CR of a CRLF is the fourth byte: the LF is read too. */
	expect_lines("abc\r\nx", 4, "abc\r|x|");
}
END_TEST

START_TEST(test_longer_line_is_skipped_to_any_line_end)
{
	expect_lines("abcdefg\r\nz", 4, "abcd+z|");
	expect_lines("abcdefg\rz", 4, "abcd+z|");
	expect_lines("abcde", 4, "abcd+");
}
END_TEST

static Suite *
lines_suite(void)
{
	Suite *s = suite_create("lines");
	TCase *t = tcase_create("line ends");

	tcase_add_test(t, test_lines_end_with_lf_crlf_or_a_lone_cr);
	tcase_add_test(t, test_cr_before_crlf_ends_two_lines);
	tcase_add_test(t, test_line_end_at_the_bound_is_read_not_stored);
	tcase_add_test(t, test_longer_line_is_skipped_to_any_line_end);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	return wm_check_main(lines_suite());
}
