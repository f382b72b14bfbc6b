/*
 * check_ini.c
 *	Unit tests for runtime/ini.[ch]: the document it builds, the position
 *	and wording of every kind of error, the lookup and did-you-mean
 *	helpers, and a randomized robustness test.
 *
 * Positions are worked out by hand and written beside each case: line:col,
 * columns from 1, counted in characters.
 *
 * The robustness test mutates valid documents and makes random byte
 * strings (fixed seed, our own PRNG, so a failure replays), tens of
 * thousands of inputs, and asserts that each one gives either a document
 * whose fields are consistent or an -EINVAL error whose line and column
 * lie inside the input. Crashes and memory errors are caught by the fork
 * mode and, in the --enable-sanitizers build, by ASan.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/conf/ini.h"
#include "tests/unit/check_main.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static struct wm_ini_doc *
parse_n(const char *text, size_t len)
{
	struct wm_ini_doc *doc = NULL;
	struct wm_ini_error err = {0};
	int rc;

	rc = wm_ini_parse_buffer(text, len, "t.conf", NULL, &doc, &err);
	ck_assert_msg(rc == 0, "parse failed (%d): %d:%d: %s", rc, err.line,
		      err.col, err.msg);
	ck_assert_ptr_nonnull(doc);
	return doc;
}

static struct wm_ini_doc *
parse(const char *text)
{
	return parse_n(text, strlen(text));
}

/* Parse text (len bytes) and expect an error at line:col whose message
 * contains `msg`. */
static void
expect_error_n(const char *text, size_t len, int line, int col, const char *msg)
{
	struct wm_ini_doc *doc = (struct wm_ini_doc *)1;
	struct wm_ini_error err = {0};
	int rc;

	rc = wm_ini_parse_buffer(text, len, "t.conf", NULL, &doc, &err);
	ck_assert_msg(rc == -EINVAL, "expected -EINVAL for \"%s\", got %d",
		      text, rc);
	ck_assert_ptr_null(doc);
	ck_assert_str_eq(err.file, "t.conf");
	ck_assert_msg(err.line == line && err.col == col,
		      "\"%s\": error at %d:%d (%s), expected %d:%d", text,
		      err.line, err.col, err.msg, line, col);
	ck_assert_msg(strstr(err.msg, msg) != NULL,
		      "\"%s\": message \"%s\" lacks \"%s\"", text, err.msg,
		      msg);
}

static void
expect_error(const char *text, int line, int col, const char *msg)
{
	expect_error_n(text, strlen(text), line, col, msg);
}

/* ------------------------------------------------------------------ */
/* tcase document: what a valid file turns into */

static const char sample[] = "# a topology\n"		     /* 1 */
			     "[global]\n"		     /* 2 */
			     "parallelism = 4\n"	     /* 3 */
			     "\n"			     /* 4 */
			     "[source clicks]\n"	     /* 5 */
			     "  idle_timeout=30 s   \n"	     /* 6 */
			     "\tpartitions = 16 # sixteen\n" /* 7 */
			     "[source \"my clicks\"]\n"	     /* 8 */
			     "topic = \"a # b\"\n"	     /* 9 */
			     "[job]\n";			     /* 10 */

START_TEST(test_ini_keeps_sections_entries_and_positions)
{
	struct wm_ini_doc *doc = parse(sample);
	const struct wm_ini_section *s;
	const struct wm_ini_entry *e;

	ck_assert_str_eq(doc->file, "t.conf");
	ck_assert_uint_eq(doc->n_sections, 4);

	s = &doc->sections[0];
	ck_assert_str_eq(s->kind, "global");
	ck_assert_ptr_null(s->name);
	ck_assert_int_eq(s->line, 2);
	ck_assert_int_eq(s->col, 1);
	ck_assert_uint_eq(s->n_entries, 1);
	e = &s->entries[0];
	ck_assert_str_eq(e->key, "parallelism");
	ck_assert_str_eq(e->value, "4");
	ck_assert_int_eq(e->line, 3);
	ck_assert_int_eq(e->key_col, 1);
	ck_assert_int_eq(e->value_col, 15);
	ck_assert_ptr_eq(e->section, s);

	s = &doc->sections[1];
	ck_assert_str_eq(s->kind, "source");
	ck_assert_str_eq(s->name, "clicks");
	ck_assert_int_eq(s->line, 5);
	ck_assert_uint_eq(s->n_entries, 2);
	e = &s->entries[0];
	ck_assert_str_eq(e->key, "idle_timeout");
	ck_assert_str_eq(e->value, "30 s"); /* trimmed, inner blank kept */
	ck_assert_uint_eq(e->value_len, 4);
	ck_assert_int_eq(e->line, 6);
	ck_assert_int_eq(e->key_col, 3);
	ck_assert_int_eq(e->value_col, 16);
	ck_assert(!e->quoted);
	e = &s->entries[1];
	ck_assert_str_eq(e->key, "partitions");
	ck_assert_str_eq(e->value, "16");
	ck_assert_int_eq(e->key_col, 2); /* a tab is one column */
	ck_assert_int_eq(e->value_col, 15);

	s = &doc->sections[2];
	ck_assert_str_eq(s->name, "my clicks");
	e = &s->entries[0];
	ck_assert_str_eq(e->value, "a # b");
	ck_assert(e->quoted);
	ck_assert_int_eq(e->value_col, 9); /* the opening quote */

	s = &doc->sections[3];
	ck_assert_str_eq(s->kind, "job");
	ck_assert_uint_eq(s->n_entries, 0);
	ck_assert_int_eq(s->line, 10);
	wm_ini_free(doc);
}
END_TEST

START_TEST(test_ini_comments_and_hash_inside_values)
{
	struct wm_ini_doc *doc = parse("; semicolon comment\n"
				       "   # indented comment\n"
				       "[job] # after a header\n"
				       "a = x#y\n"
				       "b = x # comment\n"
				       "c = # only a comment\n"
				       "d =#x\n"
				       "e = \"q\" ; after a quote\n"
				       "f = x ; y\n"
				       "[sink out] ; comment\n");
	struct wm_ini_section *s = &doc->sections[0];

	ck_assert_uint_eq(doc->n_sections, 2);
	ck_assert_str_eq(wm_ini_get(s, "a")->value, "x#y");
	ck_assert_str_eq(wm_ini_get(s, "b")->value, "x");
	ck_assert_str_eq(wm_ini_get(s, "c")->value, "");
	ck_assert_str_eq(wm_ini_get(s, "d")->value, "#x");
	ck_assert_str_eq(wm_ini_get(s, "e")->value, "q");
	/* ';' starts a comment only at the start of a line */
	ck_assert_str_eq(wm_ini_get(s, "f")->value, "x ; y");
	ck_assert_str_eq(doc->sections[1].name, "out");
	wm_ini_free(doc);
}
END_TEST

START_TEST(test_ini_empty_inputs_sections_and_values)
{
	struct wm_ini_doc *doc;
	struct wm_ini_entry *e;

	doc = parse("");
	ck_assert_uint_eq(doc->n_sections, 0);
	wm_ini_free(doc);
	doc = parse_n(NULL, 0);
	wm_ini_free(doc);
	doc = parse("\n\n# only comments\n   \n");
	ck_assert_uint_eq(doc->n_sections, 0);
	wm_ini_free(doc);

	doc = parse("[a]\n[b]\n[c x]\nk =\nq = \"\"\n");
	ck_assert_uint_eq(doc->n_sections, 3);
	ck_assert_uint_eq(doc->sections[0].n_entries, 0);
	ck_assert_uint_eq(doc->sections[1].n_entries, 0);
	e = wm_ini_get(&doc->sections[2], "k");
	ck_assert_str_eq(e->value, "");
	ck_assert_uint_eq(e->value_len, 0);
	ck_assert_int_eq(e->value_col, 4);
	e = wm_ini_get(&doc->sections[2], "q");
	ck_assert_str_eq(e->value, "");
	ck_assert(e->quoted);
	wm_ini_free(doc);
}
END_TEST

START_TEST(test_ini_crlf_is_a_line_end)
{
	struct wm_ini_doc *doc = parse("[source a]\r\n"
				       "k = v  \r\n"
				       "q = \"x\"\r\n"
				       "\r\n"
				       "last = end\r");
	struct wm_ini_section *s = &doc->sections[0];

	ck_assert_str_eq(s->name, "a");
	ck_assert_str_eq(wm_ini_get(s, "k")->value, "v");
	ck_assert_str_eq(wm_ini_get(s, "q")->value, "x");
	ck_assert_str_eq(wm_ini_get(s, "last")->value, "end");
	ck_assert_int_eq(wm_ini_get(s, "last")->line, 5);
	wm_ini_free(doc);
	expect_error("[job]\r\nfoo\r\n", 2, 4, "expected \"=\" after key");
}
END_TEST

START_TEST(test_ini_skips_a_byte_order_mark)
{
	struct wm_ini_doc *doc = parse("\xef\xbb\xbf[job]\nk = v\n");

	ck_assert_str_eq(doc->sections[0].kind, "job");
	ck_assert_int_eq(doc->sections[0].col, 1);
	wm_ini_free(doc);
	/* only at the very start */
	expect_error("[job]\n\xef\xbb\xbfk = v\n", 2, 1,
		     "invalid character \"\xef\xbb\xbf\" in key");
}
END_TEST

START_TEST(test_ini_quoted_values_and_names_unescape)
{
	struct wm_ini_doc *doc =
		parse("[source \"a ]#; \\\"b\\\\\"]\n"
		      "k = \"  say \\\"hi\\\" \\\\ #x  \"   # comment\n");
	struct wm_ini_section *s = &doc->sections[0];
	struct wm_ini_entry *e;
	char label[WM_INI_QUOTE_MAX];

	ck_assert_str_eq(s->name, "a ]#; \"b\\");
	e = wm_ini_get(s, "k");
	ck_assert_str_eq(e->value, "  say \"hi\" \\ #x  ");
	ck_assert_uint_eq(e->value_len, strlen(e->value));
	ck_assert_ptr_eq(wm_ini_section_find(doc, "source", "a ]#; \"b\\"), s);
	ck_assert_str_eq(wm_ini_section_label(label, sizeof(label), s),
			 "[source \"a ]#; \\\"b\\\\\"]");
	wm_ini_free(doc);
}
END_TEST

/* A 1 MiB value, unquoted and quoted, on lines of that length. */
START_TEST(test_ini_keeps_very_long_values_intact)
{
	size_t n = 1u << 20, i;
	char *val = malloc(n + 1), *text = malloc(2 * n + 64);
	struct wm_ini_doc *doc;
	struct wm_ini_entry *e;

	ck_assert_ptr_nonnull(val);
	ck_assert_ptr_nonnull(text);
	for (i = 0; i < n; i++)
		val[i] = (char)('a' + i % 26);
	val[n] = '\0';
	snprintf(text, 2 * n + 64, "[job]\nlong = %s\nq = \"%s\"\nafter = 1\n",
		 val, val);
	doc = parse(text);
	e = wm_ini_get(&doc->sections[0], "long");
	ck_assert_uint_eq(e->value_len, n);
	ck_assert(memcmp(e->value, val, n + 1) == 0);
	e = wm_ini_get(&doc->sections[0], "q");
	ck_assert_uint_eq(e->value_len, n);
	ck_assert(memcmp(e->value, val, n + 1) == 0);
	e = wm_ini_get(&doc->sections[0], "after");
	ck_assert_int_eq(e->line, 4);
	wm_ini_free(doc);

	/* an error after a long value still has the right column */
	snprintf(text, 2 * n + 64, "[job]\nq = \"%s\" x\n", val);
	expect_error(text, 2, (int)n + 8, "unexpected text after quoted value");
	free(val);
	free(text);
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase errors: every kind, with its line:col */

struct error_case {
	const char *text;
	int line;
	int col;
	const char *msg;
};

static const struct error_case error_cases[] = {
	/* structure */
	{"k = v\n", 1, 1, "text outside of any section"},
	{"# c\n\n  k = v\n", 3, 3, "text outside of any section"},
	{"[job]\nfoo\n", 2, 4, "expected \"=\" after key \"foo\""},
	{"[job]\nfoo bar\n", 2, 5, "expected \"=\" after key \"foo\""},
	{"[job]\n  = v\n", 2, 3, "empty key before \"=\""},
	{"[job]\nIdle = 1\n", 2, 1, "invalid character \"I\" in key"},
	{"[job]\nid$le = 1\n", 2, 3, "invalid character \"$\" in key"},
	{"[job]\nidle:1\n", 2, 5, "expected \"=\" after key \"idle\", not"},
	{"[job]\nclé = 1\n", 2, 3, "invalid character \"é\" in key"},
	{"[job]\n\"k\" = 1\n", 2, 1, "invalid character \"\\\"\" in key"},
	/* section headers */
	{"[source\n", 1, 1, "unterminated section header (missing \"]\")"},
	{"[job]\n  [source clicks\n", 2, 3, "unterminated section header"},
	{"[source \n", 1, 1, "unterminated section header"},
	{"[\n", 1, 1, "unterminated section header"},
	{"[]\n", 1, 1, "empty section header"},
	{"[  ]\n", 1, 1, "empty section header"},
	{"[Job]\n", 1, 2, "invalid character \"J\" in section kind"},
	{"[source a b]\n", 1, 11,
	 "unexpected character \"b\" in section "
	 "header"},
	{"[source a#b]\n", 1, 10, "invalid character \"#\" in section name"},
	{"[source =]\n", 1, 9, "invalid character \"=\" in section name"},
	{"[source \"a]\n", 1, 9, "unterminated quoted section name"},
	{"[source \"\"]\n", 1, 9, "empty section name"},
	{"[source \"a\\x\"]\n", 1, 11, "invalid escape \\x in quoted section"},
	{"[job] x\n", 1, 7, "unexpected text after section header"},
	{"[job]]\n", 1, 6, "unexpected text after section header"},
	/* quoted values */
	{"[job]\nk = \"abc\n", 2, 5, "unterminated quoted value"},
	{"[job]\nk = \"abc\\\"\n", 2, 5, "unterminated quoted value"},
	{"[job]\nk = \"abc\\\n", 2, 5, "unterminated quoted value"},
	{"[job]\nk = \"a\\qb\"\n", 2, 7, "invalid escape \\q in quoted value"},
	{"[job]\nk = \"a\" b\n", 2, 9, "unexpected text after quoted value"},
	{"[job]\nk = \"a\"\"b\"\n", 2, 8, "unexpected text after quoted"},
	/* bytes that are not text */
	{"[job]\nk = \xff\n", 2, 5, "invalid UTF-8 byte 0xff"},
	{"[job]\nk = é\xff\n", 2, 6, "invalid UTF-8 byte 0xff"},
	{"[job]\nk = caf\xc3\n", 2, 8,
	 "invalid UTF-8 sequence starting "
	 "with byte 0xc3"},
	{"[job]\nk = \xc3(\n", 2, 5, "invalid UTF-8 sequence"},
	{"[job]\nk = \xc0\xaf\n", 2, 5, "invalid UTF-8 byte 0xc0"},
	{"[job]\nk = \xe0\x80\xaf\n", 2, 5, "invalid UTF-8 sequence"},
	{"[job]\nk = \xed\xa0\x80\n", 2, 5, "invalid UTF-8 sequence"},
	{"[job]\nk = \xf4\x90\x80\x80\n", 2, 5, "invalid UTF-8 sequence"},
	{"[job]\n# \xfe in a comment\n", 2, 3, "invalid UTF-8 byte 0xfe"},
	{"[job]\nk = a\rb\n", 2, 6, "invalid carriage return"},
	{"[job]\r\r\n", 1, 6, "invalid carriage return"},
	{"[job]\nk = \x01\n", 2, 5, "invalid control character U+0001"},
	{"[job]\nk = \x7f\n", 2, 5, "invalid control character U+007F"},
	{"[job]\n\x1b[0m\n", 2, 1, "invalid control character U+001B"},
	/* duplicates */
	{"[source a]\nx = 1\ny = 2\n  x = 3\n", 4, 3,
	 "duplicate key \"x\" in [source a], first set at line 2"},
	{"[job]\n[source a]\n[job]\n", 3, 1,
	 "duplicate section [job], first at line 1"},
	{"[source a]\n\n [source \"a\"]\n", 3, 2,
	 "duplicate section [source a], first at line 1"},
	{"[source \"a b\"]\n[source \"a b\"]\n", 2, 1,
	 "duplicate section [source \"a b\"], first at line 1"},
	/* the first error wins */
	{"[job]\nk = 1\nk = 2\n[bad\n", 3, 1, "duplicate key"},
};

START_TEST(test_ini_reports_error_at_line_and_column)
{
	const struct error_case *c = &error_cases[_i];

	expect_error(c->text, c->line, c->col, c->msg);
}
END_TEST

START_TEST(test_ini_reports_nul_bytes)
{
	static const char text[] = "[job]\nk = a\0b\n";

	expect_error_n(text, sizeof(text) - 1, 2, 6, "invalid NUL byte");
	expect_error_n("\0", 1, 1, 1, "invalid NUL byte");
}
END_TEST

START_TEST(test_ini_same_key_in_other_sections_is_fine)
{
	struct wm_ini_doc *doc = parse("[source a]\nx = 1\n[source b]\nx = 2\n"
				       "[source]\nx = 3\n[window a]\nx = 4\n");

	ck_assert_uint_eq(doc->n_sections, 4);
	ck_assert_str_eq(
		wm_ini_get(wm_ini_section_find(doc, "source", NULL), "x")
			->value,
		"3");
	ck_assert_str_eq(
		wm_ini_get(wm_ini_section_find(doc, "window", "a"), "x")->value,
		"4");
	ck_assert_ptr_null(wm_ini_section_find(doc, "window", NULL));
	ck_assert_ptr_null(wm_ini_section_find(doc, "sink", "a"));
	wm_ini_free(doc);
}
END_TEST

START_TEST(test_ini_formats_errors_as_file_line_col)
{
	struct wm_ini_doc *doc = NULL;
	struct wm_ini_error err = {0};
	char buf[WM_INI_MSG_MAX + 64];
	int rc;

	rc = wm_ini_parse_buffer("[source clicks]\nidle = 1\nidle = 2\n", 34,
				 "topology.conf", NULL, &doc, &err);
	ck_assert_int_eq(rc, -EINVAL);
	wm_ini_error_format(&err, buf, sizeof(buf));
	ck_assert_str_eq(buf, "topology.conf:3:1: duplicate key \"idle\" in "
			      "[source clicks], first set at line 2");

	wm_ini_error_set(&err, "x.conf", 0, 0, "could not %s", "read");
	wm_ini_error_format(&err, buf, sizeof(buf));
	ck_assert_str_eq(buf, "x.conf: could not read");

	/* a short buffer is cut and terminated; the length needed is
	 * returned */
	wm_ini_error_set(&err, "x.conf", 12, 8, "unrecognized key");
	ck_assert_int_eq(wm_ini_error_format(&err, buf, 8), 29);
	ck_assert_str_eq(buf, "x.conf:");
}
END_TEST

START_TEST(test_ini_reads_files_and_reports_io_errors)
{
	char path[] = "/tmp/check_ini_XXXXXX";
	struct wm_ini_doc *doc = NULL;
	struct wm_ini_error err = {0};
	int fd, rc;
	FILE *f;

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs("[job]\nname = from a file\n", f);
	fclose(f);
	rc = wm_ini_parse_file(path, NULL, &doc, &err);
	unlink(path);
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(doc->file, path);
	ck_assert_str_eq(wm_ini_get(&doc->sections[0], "name")->value,
			 "from a file");
	wm_ini_free(doc);

	rc = wm_ini_parse_file(path, NULL, &doc, &err);
	ck_assert_int_eq(rc, -ENOENT);
	ck_assert_ptr_null(doc);
	ck_assert_int_eq(err.line, 0);
	ck_assert_str_eq(err.file, path);
	ck_assert_str_eq(err.msg,
			 "could not open file: No such file or directory");

	rc = wm_ini_parse_file("/", NULL, &doc, &err);
	ck_assert_int_eq(rc, -EISDIR);
	ck_assert_str_eq(err.msg, "could not read file: Is a directory");

	/* an empty file from /dev/null (not a regular file) */
	rc = wm_ini_parse_file("/dev/null", NULL, &doc, &err);
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(doc->n_sections, 0);
	wm_ini_free(doc);
}
END_TEST

START_TEST(test_ini_refuses_input_over_the_size_cap)
{
	size_t n = WM_INI_MAX_SIZE + 1;
	char *big = malloc(n);
	struct wm_ini_doc *doc = NULL;
	struct wm_ini_error err = {0};

	ck_assert_ptr_nonnull(big);
	memset(big, '#', n);
	ck_assert_int_eq(wm_ini_parse_buffer(big, n, "big", NULL, &doc, &err),
			 -EFBIG);
	ck_assert_ptr_null(doc);
	ck_assert_int_eq(err.line, 0);
	ck_assert_str_eq(err.msg, "input is larger than 16 MiB");
	/* exactly at the cap is fine */
	ck_assert_int_eq(
		wm_ini_parse_buffer(big, n - 1, "big", NULL, &doc, &err), 0);
	wm_ini_free(doc);
	free(big);
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase api: lookups, used marks, repeats, did-you-mean, quoting */

START_TEST(test_ini_first_unused_finds_unknown_keys_in_file_order)
{
	struct wm_ini_doc *doc =
		parse("[job]\nname = x\ncolour = red\n"
		      "[source a]\nrate = 1/s\nidle_timout = 1\n");
	struct wm_ini_section *job = wm_ini_section_find(doc, "job", NULL);
	struct wm_ini_section *src = wm_ini_section_find(doc, "source", "a");
	const struct wm_ini_entry *e = NULL;

	ck_assert_ptr_nonnull(wm_ini_get(job, "name"));
	ck_assert_ptr_nonnull(wm_ini_get(src, "rate"));
	ck_assert_ptr_null(wm_ini_get(src, "idle_timeout"));
	ck_assert_ptr_null(wm_ini_get(NULL, "rate"));

	ck_assert(wm_ini_first_unused(doc, &e));
	ck_assert_str_eq(e->key, "colour");
	ck_assert_int_eq(e->line, 3);
	ck_assert_ptr_eq(e->section, job);
	wm_ini_get(job, "colour");
	ck_assert(wm_ini_first_unused(doc, &e));
	ck_assert_str_eq(e->key, "idle_timout");
	ck_assert_ptr_eq(e->section, src);
	wm_ini_get(src, "idle_timout");
	ck_assert(!wm_ini_first_unused(doc, &e));
	wm_ini_free(doc);
}
END_TEST

static bool
partition_repeats(const char *kind, const char *key, void *arg)
{
	ck_assert_ptr_eq(arg, (void *)&partition_repeats);
	return strcmp(kind, "source") == 0 && strcmp(key, "partition") == 0;
}

START_TEST(test_ini_repeated_keys_only_where_the_caller_allows)
{
	static const char text[] = "[source a]\npartition = p0\nx = 1\n"
				   "partition = p1\npartition = p2\n"
				   "[job]\npartition = 1\npartition = 2\n";
	struct wm_ini_options opts = {
		.may_repeat = partition_repeats,
		.arg = (void *)&partition_repeats,
	};
	struct wm_ini_doc *doc = NULL;
	struct wm_ini_error err = {0};
	struct wm_ini_section *s;
	struct wm_ini_entry *e;
	const struct wm_ini_entry *u;

	ck_assert_int_eq(wm_ini_parse_buffer(text, sizeof(text) - 1, "t", &opts,
					     &doc, &err),
			 -EINVAL);
	ck_assert_int_eq(err.line, 8);
	ck_assert_str_eq(err.msg, "duplicate key \"partition\" in [job], "
				  "first set at line 7");

	/* without the [job] repeat it parses */
	ck_assert_int_eq(wm_ini_parse_buffer(text, sizeof(text) - 15, "t",
					     &opts, &doc, &err),
			 0);
	s = wm_ini_section_find(doc, "source", "a");
	e = wm_ini_get(s, "partition");
	ck_assert_str_eq(e->value, "p0");
	e = wm_ini_get_next(s, e);
	ck_assert_str_eq(e->value, "p1");
	e = wm_ini_get_next(s, e);
	ck_assert_str_eq(e->value, "p2");
	ck_assert_int_eq(e->line, 5);
	ck_assert_ptr_null(wm_ini_get_next(s, e));
	ck_assert(wm_ini_first_unused(doc, &u));
	ck_assert_str_eq(u->key, "x");
	wm_ini_free(doc);
}
END_TEST

START_TEST(test_ini_suggests_the_closest_key)
{
	static const char *const keys[] = {
		"idle_timeout",	    "partitions", "parallelism",
		"out_of_orderness", "rate",	  "max_parallelism",
	};
	size_t n = N_ELEMS(keys);

	ck_assert_str_eq(wm_ini_suggest("idle_timout", keys, n),
			 "idle_timeout");
	ck_assert_str_eq(wm_ini_suggest("idel_timeout", keys, n),
			 "idle_timeout"); /* a swap costs one */
	ck_assert_str_eq(wm_ini_suggest("paralelism", keys, n), "parallelism");
	ck_assert_str_eq(wm_ini_suggest("partition", keys, n), "partitions");
	ck_assert_str_eq(wm_ini_suggest("rte", keys, n), "rate");
	ck_assert_str_eq(wm_ini_suggest("outoforderness", keys, n),
			 "out_of_orderness");
	ck_assert_str_eq(wm_ini_suggest("max-parallelism", keys, n),
			 "max_parallelism");
	/* unrelated, too far, or too short to guess */
	ck_assert_ptr_null(wm_ini_suggest("colour", keys, n));
	ck_assert_ptr_null(wm_ini_suggest("watermark", keys, n));
	ck_assert_ptr_null(wm_ini_suggest("idle", keys, n));
	ck_assert_ptr_null(wm_ini_suggest("ra", keys, n));
	ck_assert_ptr_null(wm_ini_suggest("", keys, n));
	ck_assert_ptr_null(wm_ini_suggest("idle_timout", keys, 0));
	ck_assert_ptr_null(
		wm_ini_suggest("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
			       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
			       keys, n));
}
END_TEST

START_TEST(test_ini_quotes_names_for_messages)
{
	char buf[WM_INI_QUOTE_MAX], small[6];
	struct wm_ini_section sec = {.kind = "source", .name = "clicks"};

	ck_assert_str_eq(wm_ini_quote(buf, sizeof(buf), "idle"), "\"idle\"");
	ck_assert_str_eq(wm_ini_quote(buf, sizeof(buf), "a\"b\\c\td\x01"),
			 "\"a\\\"b\\\\c\\x09d\\x01\"");
	ck_assert_str_eq(wm_ini_quote(buf, sizeof(buf), "caf\xc3\xa9 \xff"),
			 "\"caf\xc3\xa9 \\xff\"");
	ck_assert_str_eq(
		wm_ini_quote(buf, sizeof(buf),
			     "0123456789012345678901234567890123456789XYZ"),
		"\"0123456789012345678901234567890123456789...\"");
	ck_assert_str_eq(wm_ini_quote(small, sizeof(small), "abcdefgh"),
			 "\"abcd");
	ck_assert_str_eq(wm_ini_section_label(buf, sizeof(buf), &sec),
			 "[source clicks]");
	sec.name = NULL;
	ck_assert_str_eq(wm_ini_section_label(buf, sizeof(buf), &sec),
			 "[source]");
	sec.name = "my clicks";
	ck_assert_str_eq(wm_ini_section_label(buf, sizeof(buf), &sec),
			 "[source \"my clicks\"]");
}
END_TEST

/* ------------------------------------------------------------------ */
/* tcase robustness: randomized inputs */

/* splitmix64: small, fast, good enough to drive mutations. */
static uint64_t
rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static size_t
rng_below(uint64_t *state, size_t n)
{
	return n ? (size_t)(rng_next(state) % n) : 0;
}

static const char *const seeds[] = {
	sample,
	"[job]\nname = wm\n[source clicks]\nrate = 1000/s\n"
	"partitions = 16\nidle_timeout = 30 s\n[keyby k]\nkey = user\n"
	"[window w]\nsize = 1 min\nallowed_lateness = 0\n[sink out]\n"
	"path = \"out #1.txt\"\n",
	"\xef\xbb\xbf[global]\r\nx = \"a \\\"q\\\" \\\\\"\r\n; c\r\n"
	"[s \"n m\"]\r\ny=caf\xc3\xa9 # c\r\n",
	"[a]\n[b c]\n[d]\nk=\nk2 = v # c\n",
};

/* Bytes that matter to the parser, and some that must be refused. */
static const char specials[] = "[]=#;\"\\ \t\n\r\0\xff\xc3\xa9\xe2\x82\xac"
			       "aZ_.-";

/* Apply 1 to 8 random edits to buf (len bytes, room for cap). */
static size_t
mutate(uint64_t *rng, char *buf, size_t len, size_t cap)
{
	size_t edits = 1 + rng_below(rng, 8), i, at, n;

	for (i = 0; i < edits; i++) {
		at = rng_below(rng, len + 1);
		switch (rng_below(rng, 6)) {
		case 0: /* flip bits */
			if (len > 0)
				buf[at % len] ^=
					(char)(1u << rng_below(rng, 8));
			break;
		case 1: /* insert a special byte */
			if (len < cap) {
				memmove(buf + at + 1, buf + at, len - at);
				buf[at] = specials[rng_below(
					rng, sizeof(specials) - 1)];
				len++;
			}
			break;
		case 2: /* delete a run */
			n = rng_below(rng, 4) + 1;
			if (at + n <= len) {
				memmove(buf + at, buf + at + n, len - at - n);
				len -= n;
			}
			break;
		case 3: /* truncate */
			len = at;
			break;
		case 4: /* duplicate a chunk elsewhere */
			n = rng_below(rng, 24);
			if (len > 0 && len + n <= cap) {
				size_t from = rng_below(rng, len);
				if (from + n > len)
					n = len - from;
				memmove(buf + at + n, buf + at, len - at);
				memmove(buf + at,
					buf + from + (from >= at ? n : 0), n);
				len += n;
			}
			break;
		default: /* overwrite with a special byte */
			if (len > 0)
				buf[at % len] = specials[rng_below(
					rng, sizeof(specials) - 1)];
			break;
		}
	}
	return len;
}

/* Bytes in line `line` (from 1) of buf, or SIZE_MAX if there is none. */
static size_t
line_bytes(const char *buf, size_t len, int line)
{
	size_t i = 0, start;
	int l = 1;

	while (l < line) {
		const char *nl = memchr(buf + i, '\n', len - i);
		if (nl == NULL)
			return SIZE_MAX;
		i = (size_t)(nl - buf) + 1;
		l++;
	}
	start = i;
	while (i < len && buf[i] != '\n')
		i++;
	if (start == len && line > 1)
		return SIZE_MAX; /* after the final newline: no such line */
	return i - start;
}

/* Check one input; returns a description of what is wrong, or NULL.
 * Counts the inputs that parse in *parsed. */
static const char *
check_one(const char *buf, size_t len, char *why, size_t why_len,
	  size_t *parsed)
{
	struct wm_ini_doc *doc = NULL;
	struct wm_ini_error err = {0};
	const struct wm_ini_entry *e;
	size_t i, j, lb;
	int rc;

	rc = wm_ini_parse_buffer(buf, len, "fuzz", NULL, &doc, &err);
	if (rc != 0) {
		if (rc != -EINVAL || doc != NULL)
			return "failed with something other than -EINVAL";
		lb = line_bytes(buf, len, err.line);
		if (err.line < 1 || lb == SIZE_MAX || err.col < 1 ||
		    (size_t)err.col > lb + 1) {
			snprintf(why, why_len,
				 "error at %d:%d outside input: %s", err.line,
				 err.col, err.msg);
			return why;
		}
		if (err.msg[0] == '\0' || strcmp(err.file, "fuzz") != 0)
			return "error without a message or file";
		return NULL;
	}
	for (i = 0; i < doc->n_sections; i++) {
		const struct wm_ini_section *s = &doc->sections[i];

		if (s->kind[0] == '\0' || (s->name && s->name[0] == '\0') ||
		    s->line < 1 || s->col < 1)
			return "bad section";
		for (j = 0; j < s->n_entries; j++) {
			e = &s->entries[j];
			lb = line_bytes(buf, len, e->line);
			if (e->section != s ||
			    strlen(e->value) != e->value_len ||
			    e->key[0] == '\0' ||
			    strspn(e->key, "abcdefghijklmnopqrstuvwxyz"
					   "0123456789_-.") != strlen(e->key) ||
			    lb == SIZE_MAX || e->key_col < 1 ||
			    e->value_col <= e->key_col ||
			    (size_t)e->value_col > lb + 1)
				return "bad entry";
		}
	}
	wm_ini_free(doc);
	(*parsed)++;
	return NULL;
}

START_TEST(test_ini_survives_mutated_documents)
{
	enum { ROUNDS = 40000, CAP = 1024 };
	uint64_t rng = 20240611;
	char buf[CAP], why[WM_INI_MSG_MAX + 64];
	const char *bad;
	size_t r, len, s, parsed = 0;

	for (r = 0; r < ROUNDS; r++) {
		s = rng_below(&rng, N_ELEMS(seeds));
		len = strlen(seeds[s]);
		memcpy(buf, seeds[s], len);
		len = mutate(&rng, buf, len, CAP);
		bad = check_one(buf, len, why, sizeof(why), &parsed);
		if (bad != NULL)
			ck_abort_msg("round %zu: %s (input %zu bytes)", r, bad,
				     len);
	}
	/* both outcomes are exercised, not just errors */
	ck_assert_uint_gt(parsed, ROUNDS / 10);
	ck_assert_uint_lt(parsed, ROUNDS * 9 / 10);
}
END_TEST

START_TEST(test_ini_survives_random_bytes)
{
	enum { ROUNDS = 30000, CAP = 256 };
	static const char alphabet[] = "[]=#;\"\\ \t\n\rabcxyz_.-0123\0\xff\x80"
				       "\xc3\xa9\xed\xa0\xf4";
	uint64_t rng = 77;
	char buf[CAP], why[WM_INI_MSG_MAX + 64];
	const char *bad;
	size_t r, i, len, parsed = 0;
	bool biased;

	for (r = 0; r < ROUNDS; r++) {
		len = rng_below(&rng, CAP + 1);
		biased = (r % 4) != 0;
		for (i = 0; i < len; i++)
			buf[i] = biased ? alphabet[rng_below(
						  &rng, sizeof(alphabet) - 1)]
					: (char)rng_next(&rng);
		/* often start with a header so that more gets parsed */
		if (r % 2 && len >= 5)
			memcpy(buf, "[a]\n", 4);
		bad = check_one(buf, len, why, sizeof(why), &parsed);
		if (bad != NULL)
			ck_abort_msg("round %zu: %s", r, bad);
	}
	ck_assert_uint_gt(parsed, 0);
}
END_TEST

/* Many keys and sections: linear time, and every duplicate still found. */
START_TEST(test_ini_handles_many_keys_and_sections)
{
	enum { N = 50000 };
	size_t cap = (size_t)N * 32, len = 0, i;
	char *text = malloc(cap);
	struct wm_ini_doc *doc = NULL;
	struct wm_ini_error err = {0};

	ck_assert_ptr_nonnull(text);
	len += (size_t)snprintf(text + len, cap - len, "[big]\n");
	for (i = 0; i < N; i++)
		len += (size_t)snprintf(text + len, cap - len, "k%zu = %zu\n",
					i, i);
	for (i = 0; i < N; i++)
		len += (size_t)snprintf(text + len, cap - len, "[s %zu]\n", i);
	doc = parse_n(text, len);
	ck_assert_uint_eq(doc->n_sections, N + 1);
	ck_assert_uint_eq(doc->sections[0].n_entries, N);
	ck_assert_str_eq(doc->sections[0].entries[N - 1].value, "49999");
	wm_ini_free(doc);

	len += (size_t)snprintf(text + len, cap - len, "[s 123]\n");
	ck_assert_int_eq(wm_ini_parse_buffer(text, len, "t", NULL, &doc, &err),
			 -EINVAL);
	ck_assert_int_eq(err.line, 2 * N + 2);
	ck_assert_str_eq(err.msg, "duplicate section [s 123], first at line "
				  "50125");
	free(text);
}
END_TEST

static Suite *
ini_suite(void)
{
	Suite *s = suite_create("ini");
	TCase *tc;

	tc = tcase_create("document");
	tcase_add_test(tc, test_ini_keeps_sections_entries_and_positions);
	tcase_add_test(tc, test_ini_comments_and_hash_inside_values);
	tcase_add_test(tc, test_ini_empty_inputs_sections_and_values);
	tcase_add_test(tc, test_ini_crlf_is_a_line_end);
	tcase_add_test(tc, test_ini_skips_a_byte_order_mark);
	tcase_add_test(tc, test_ini_quoted_values_and_names_unescape);
	tcase_add_test(tc, test_ini_keeps_very_long_values_intact);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_ini_reports_error_at_line_and_column, 0,
			    (int)N_ELEMS(error_cases));
	tcase_add_test(tc, test_ini_reports_nul_bytes);
	tcase_add_test(tc, test_ini_same_key_in_other_sections_is_fine);
	tcase_add_test(tc, test_ini_formats_errors_as_file_line_col);
	tcase_add_test(tc, test_ini_reads_files_and_reports_io_errors);
	tcase_add_test(tc, test_ini_refuses_input_over_the_size_cap);
	suite_add_tcase(s, tc);

	tc = tcase_create("api");
	tcase_add_test(tc,
		       test_ini_first_unused_finds_unknown_keys_in_file_order);
	tcase_add_test(tc, test_ini_repeated_keys_only_where_the_caller_allows);
	tcase_add_test(tc, test_ini_suggests_the_closest_key);
	tcase_add_test(tc, test_ini_quotes_names_for_messages);
	suite_add_tcase(s, tc);

	tc = tcase_create("robustness");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_ini_survives_mutated_documents);
	tcase_add_test(tc, test_ini_survives_random_bytes);
	tcase_add_test(tc, test_ini_handles_many_keys_and_sections);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return wm_check_main(ini_suite());
}
