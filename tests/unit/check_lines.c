/*
 * check_lines.c
 *	Unit tests of bounded line reading: every kind of line end, and
 *	line ends at the bound.
 */
#include "config.h"

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/lines.h"
#include "tests/unit/check_main.h"
#include "tests/unit/hot_assert.h"

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

/* What wm_line_read() makes of text with bound max: expect_lines()'s
 * string, NUL bytes shown as '0', into out. */
static void
lines_by_bytes(const char *text, size_t len, size_t max, char *out,
	       size_t outlen)
{
	FILE *f = fmemopen((void *)text, len, "r");
	char buf[64];
	size_t n, used = 0;

	WM_HOT_ASSERT(f != NULL, "fmemopen");
	out[0] = '\0';
	while ((n = wm_line_read(f, buf, max)) > 0) {
		for (size_t i = 0; i < (n > max ? max : n); i++)
			out[used++] = buf[i] != '\0' ? buf[i] : '0';
		out[used++] = n > max ? '+' : '|';
		WM_HOT_ASSERT(used + max + 2 < outlen, "%zu bytes", used);
		if (n > max)
			wm_line_skip(f);
	}
	out[used] = '\0';
	WM_HOT_ASSERT(feof(f), "the text was not read to its end");
	fclose(f);
}

/*
 * Up to `take` of the lines wm_line_blocks_ahead() gives (as many as
 * there are for SIZE_MAX), each of at most max bytes, appended to out as
 * lines_by_bytes() writes them; the span checked on the way: whole lines
 * ending with '\n', no '\r' or NUL among them.
 */
static void
take_lines_ahead(struct wm_line_blocks *lb, size_t max, size_t take, char *out,
		 size_t *used)
{
	const char *lines, *end;
	size_t span = wm_line_blocks_ahead(lb, &lines);

	if (span == 0)
		return;
	end = lines + span;
	WM_HOT_ASSERT(end[-1] == '\n', "a span of %zu bytes", span);
	WM_HOT_ASSERT(memchr(lines, '\r', span) == NULL, "a CR in the span");
	WM_HOT_ASSERT(memchr(lines, '\0', span) == NULL, "a NUL in the span");
	for (const char *p = lines; p < end && take > 0; take--) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)(nl + 1 - p);

		/* A longer line is wm_line_blocks_next()'s to cut. */
		if (n > max)
			break;
		memcpy(out + *used, p, n);
		*used += n;
		out[(*used)++] = '|';
		wm_line_blocks_consume(lb, n);
		p = nl + 1;
	}
}

/* The same by wm_line_blocks_next() with a block of `block` bytes;
 * every line's nul flag checked against its bytes. With `ahead`, before
 * each line, up to that many lines are taken by wm_line_blocks_ahead()
 * instead. */
static void
lines_by_blocks(const char *text, size_t len, size_t max, size_t block,
		size_t ahead, char *out, size_t outlen)
{
	FILE *f = fmemopen((void *)text, len, "r");
	struct wm_line_blocks lb;
	const char *line;
	size_t n, used = 0;
	bool nul;

	WM_HOT_ASSERT(f != NULL, "fmemopen");
	WM_HOT_ASSERT(wm_line_blocks_open(&lb, f, max, block) == 0,
		      "max %zu, block %zu", max, block);
	out[0] = '\0';
	for (;;) {
		if (ahead > 0)
			take_lines_ahead(&lb, max, ahead, out, &used);
		WM_HOT_ASSERT(used + max + 2 < outlen, "%zu bytes", used);
		n = wm_line_blocks_next(&lb, &line, &nul);
		if (n == 0)
			break;
		size_t stored = n > max ? max : n;

		WM_HOT_ASSERT(nul == (memchr(line, '\0', stored) != NULL),
			      "nul flag %d", nul);
		for (size_t i = 0; i < stored; i++)
			out[used++] = line[i] != '\0' ? line[i] : '0';
		out[used++] = n > max ? '+' : '|';
		WM_HOT_ASSERT(used + max + 2 < outlen, "%zu bytes", used);
	}
	out[used] = '\0';
	WM_HOT_ASSERT(lb.error == 0, "error %d", lb.error);
	wm_line_blocks_close(&lb);
	fclose(f);
}

/* Lines taken by wm_line_blocks_ahead() before each of
 * wm_line_blocks_next()'s: none, one, or all it gives. */
static const size_t aheads[3] = {0, 1, SIZE_MAX};

/* Texts whose line ends fall everywhere a block can end: a CR as a
 * block's last byte (a CRLF cut in two, or a lone CR), a line of max
 * bytes whose end is in the next block, a longer line whose rest spans
 * blocks, NUL bytes. */
static const char *const block_texts[] = {
	"a\nb\r\nc\rd",
	"h\r0,1\r1,2\r",
	"a\r\r\nb",
	"\r\r\n\n",
	"abcd\r\nx",
	"abcd\rx",
	"abcd\nx",
	"abc\r\nx",
	"abcdefg\r\nz",
	"abcdefg\rz",
	"abcde",
	"abcdefghijklmnopqrstuvwxyz\r\nabcd\r",
	"ab\0c\r\n\0\n\r\0abcdefgh\0\r\n\0",
	"\n\n\r\r\r\n\r\n",
	"abcd",
	"",
};

START_TEST(test_blocks_read_the_same_lines_at_every_block_size)
{
	char want[512], got[512];

	for (size_t t = 0; t < sizeof(block_texts) / sizeof(*block_texts);
	     t++) {
		const char *text = block_texts[t];
		/* The NULs inside count: the texts end at their last
		 * non-NUL byte but for the one that ends with "\0". */
		size_t len = strlen(text);

		if (t == 12)
			len = 22;
		for (size_t max = 4; max <= 8; max++) {
			lines_by_bytes(text, len, max, want, sizeof(want));
			for (size_t block = 1; block <= len + 2; block++) {
				for (int a = 0; a < 3; a++) {
					lines_by_blocks(text, len, max, block,
							aheads[a], got,
							sizeof(got));
					ck_assert_msg(
						strcmp(got, want) == 0,
						"text %zu, max %zu, block %zu, "
						"ahead %zu: \"%s\", expected "
						"\"%s\"",
						t, max, block, aheads[a], got,
						want);
				}
			}
		}
	}
}
END_TEST

/* Random texts of line ends, NULs and letters: the same lines as
 * wm_line_read()'s at every bound and block size. */
START_TEST(test_blocks_read_random_texts_as_bytes_do)
{
	static const char alphabet[] = {'a', 'b', '\r', '\n', '\0', 'c'};
	uint64_t state = 88172645463325252ull;
	char text[48], want[512], got[512];

	for (int round = 0; round < 3000; round++) {
		size_t len;

		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		len = state % sizeof(text);
		for (size_t i = 0; i < len; i++) {
			state ^= state << 13;
			state ^= state >> 7;
			state ^= state << 17;
			text[i] = alphabet[state % sizeof(alphabet)];
		}
		for (size_t max = 1; max <= 6; max++) {
			lines_by_bytes(text, len, max, want, sizeof(want));
			for (size_t block = 1; block <= 9; block++) {
				for (int a = 0; a < 3; a++) {
					lines_by_blocks(text, len, max, block,
							aheads[a], got,
							sizeof(got));
					WM_HOT_ASSERT(strcmp(got, want) == 0,
						      "round %d, max %zu, "
						      "block %zu, ahead %zu",
						      round, max, block,
						      aheads[a]);
				}
			}
		}
	}
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
	t = tcase_create("blocks");
	/* Thousands of random texts at every block size: seconds alone,
	 * and past Check's 4 s (x CK_TIMEOUT_MULTIPLIER, 40 s in make
	 * check) beside CI's other builds, where it timed out in distcheck's
	 * fast tier. */
	tcase_set_timeout(t, 30);
	tcase_add_test(t, test_blocks_read_the_same_lines_at_every_block_size);
	tcase_add_test(t, test_blocks_read_random_texts_as_bytes_do);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	return wm_check_main(lines_suite());
}
