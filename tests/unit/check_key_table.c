/*
 * check_key_table.c
 *	Unit tests of the key table (runtime/conf/key_table.h): every key is
 *	documented in every column, the parser takes its example in its own
 *	section and refuses the key in a section that has no such key.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "base/countof.h"
#include "runtime/conf/key_table.h"
#include "runtime/conf/topology.h"
#include "tests/unit/check_main.h"

/* Room for a whole test topology. */
#define TOPOLOGY_MAX 4096

/* Every stage needs a rate (a generated source) or a size (a window):
 * given in [global], they are defaults that no check refuses where they
 * do nothing, so one topology suits the examples of every source and
 * window key. */
static const char global[] = "[global]\n"
			     "rate = 100/s\n"
			     "size = 1 min\n";

/* The section of `kind` and the stages it reads: the sections before
 * it, its header, then the keys it needs that `lines` do not set. */
struct stage_frame {
	const char *kind;
	const char *upstream;
	const char *header;
	const char *wiring[2];
};

static const struct stage_frame frames[] = {
	{"job", "", "[job]\n", {NULL, NULL}},
	{"source", "", "[source a]\n", {NULL, NULL}},
	{"keyby", "[source a]\n", "[keyby k]\n", {"input = a", NULL}},
	{"window", "[source a]\n", "[window w]\n", {"input = a", NULL}},
	{"join",
	 "[source a]\n[source b]\n",
	 "[join j]\n",
	 {"left = a", "right = b"}},
	{"sink",
	 "[source a]\n[window w]\ninput = a\n",
	 "[sink o]\n",
	 {"input = w", NULL}},
	{"map",
	 "[source a]\ngenerator = nexmark\n",
	 "[map m]\n",
	 {"input = a", NULL}},
};

static const struct stage_frame *
frame_of(const char *kind)
{
	for (size_t i = 0; i < N_ELEMS(frames); i++)
		if (strcmp(frames[i].kind, kind) == 0)
			return &frames[i];
	ck_abort_msg("no frame for section kind \"%s\"", kind);
	return NULL;
}

/* Whether "a = 1; b = 2" (lines joined by "; ") sets `key`. */
static bool
sets(const char *lines, const char *key)
{
	size_t len = strlen(key);

	for (const char *p = lines; *p != '\0';) {
		if (strncmp(p, key, len) == 0 && strncmp(p + len, " =", 2) == 0)
			return true;
		p = strstr(p, "; ");
		if (p == NULL)
			break;
		p += 2;
	}
	return false;
}

/* Appends "a = 1; b = 2" to buf as lines. */
static void
append_lines(char *buf, size_t len, const char *lines)
{
	size_t at = strlen(buf);

	for (const char *p = lines; *p != '\0';) {
		const char *end = strstr(p, "; ");
		size_t n = end != NULL ? (size_t)(end - p) : strlen(p);

		at += (size_t)snprintf(buf + at, len - at, "%.*s\n", (int)n, p);
		ck_assert_uint_lt(at, len);
		p += n + (end != NULL ? 2 : 0);
	}
}

/*
 * A topology whose section of `kind` holds `lines` (joined by "; "),
 * with what that section needs around it: its inputs, and an interval
 * join's bounds unless `lines` make it a window join.
 */
static void
topology_with(char *buf, size_t len, const char *kind, const char *lines)
{
	const struct stage_frame *f = frame_of(kind);
	const char *first_source =
		strcmp(kind, "job") == 0 ? "[source a]\n" : "";

	snprintf(buf, len, "%s%s%s", global, f->upstream, f->header);
	for (size_t i = 0; i < N_ELEMS(f->wiring); i++) {
		const char *w = f->wiring[i];
		char key[WM_KEY_NAME_MAX];

		if (w == NULL)
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)strcspn(w, " "), w);
		if (!sets(lines, key))
			append_lines(buf, len, w);
	}
	if (strcmp(kind, "join") == 0 && !sets(lines, "window") &&
	    !sets(lines, "between"))
		append_lines(buf, len, "between = -1 s, 1 s");
	append_lines(buf, len, lines);
	snprintf(buf + strlen(buf), len - strlen(buf), "%s", first_source);
}

/* The lines of a key's example: what it needs, then the key. */
static void
example_lines(char *buf, size_t len, const struct wm_key_table_entry *k)
{
	snprintf(buf, len, "%s%s%s = %s", k->needs, k->needs[0] ? "; " : "",
		 k->name, k->example);
}

/* Loads `text`: 0, or the error's message in msg. */
static int
load(const char *text, char *msg, size_t len)
{
	struct wm_topology *t = NULL;
	struct wm_ini_error err;
	int r = wm_topology_load_buffer(text, strlen(text), "t.conf", &t, &err);

	if (r == 0)
		wm_topology_free(t);
	else
		wm_ini_error_format(&err, msg, len);
	return r;
}

/* Key number i of the whole table, counting [job]'s first, and its
 * section in *sec. */
static const struct wm_key_table_entry *
key_at(int i, const struct wm_key_table_section **sec)
{
	size_t n;
	const struct wm_key_table_section *s = wm_key_table_sections(&n);
	size_t at = (size_t)i;

	for (size_t j = 0; j < n; j++) {
		if (at < s[j].n_keys) {
			*sec = &s[j];
			return &s[j].keys[at];
		}
		at -= s[j].n_keys;
	}
	ck_abort_msg("no key %d", i);
	return NULL;
}

static int
keys_in_table(void)
{
	size_t n, keys = 0;
	const struct wm_key_table_section *s = wm_key_table_sections(&n);

	for (size_t j = 0; j < n; j++)
		keys += s[j].n_keys;
	return (int)keys;
}

START_TEST(test_every_key_has_every_column)
{
	const struct wm_key_table_section *s;
	const struct wm_key_table_entry *k = key_at(_i, &s);
	const char *columns[] = {k->units, k->fallback, k->flink, k->example,
				 k->about};

	ck_assert_msg(s->about[0] != '\0', "[%s] has no description", s->kind);
	ck_assert_uint_lt(strlen(k->name), WM_KEY_NAME_MAX);
	for (size_t c = 0; c < N_ELEMS(columns); c++)
		ck_assert_msg(columns[c] != NULL && columns[c][0] != '\0',
			      "key \"%s\" of [%s] has an empty column %zu",
			      k->name, s->kind, c);
	ck_assert_msg(wm_key_table_find(s, k->name) == k,
		      "key \"%s\" twice in [%s]", k->name, s->kind);
	ck_assert_msg(k->use == WM_KEY_ANY || strcmp(s->kind, "source") == 0,
		      "key \"%s\" of [%s] is about a source's records", k->name,
		      s->kind);
}
END_TEST

START_TEST(test_every_stage_kind_has_its_keys)
{
	for (int k = 0; k < WM_STAGE_KINDS; k++)
		ck_assert_ptr_nonnull(wm_key_table_section(
			wm_stage_kind_name((enum wm_stage_kind)k)));
	ck_assert_ptr_nonnull(wm_key_table_section("job"));
	ck_assert_ptr_null(wm_key_table_section("global"));
}
END_TEST

/* The examples parse where the table says, so the page shows forms the
 * parser takes. A plugin is looked up beside the running program, which
 * here is this test, not wmrun: for it, an error that the file is not
 * there means the key and the form of its value were taken. */
START_TEST(test_every_example_parses_in_its_section)
{
	const struct wm_key_table_section *s;
	const struct wm_key_table_entry *k = key_at(_i, &s);
	char lines[512], text[TOPOLOGY_MAX], msg[1024];

	example_lines(lines, sizeof(lines), k);
	topology_with(text, sizeof(text), s->kind, lines);
	if (load(text, msg, sizeof(msg)) == 0)
		return;
	ck_assert_msg(strcmp(k->name, "plugin") == 0 &&
			      strstr(msg, "cannot read the plugin") != NULL,
		      "the example of \"%s\" in [%s] is refused: %s\n%s",
		      k->name, s->kind, msg, text);
}
END_TEST

/* Each key, put in the first section kind without it, is refused there
 * as unknown: the table is what the parser takes, not more. */
START_TEST(test_every_key_is_refused_where_it_does_not_belong)
{
	const struct wm_key_table_section *s, *other = NULL;
	const struct wm_key_table_entry *k = key_at(_i, &s);
	const struct wm_key_table_section *all;
	char line[512], text[TOPOLOGY_MAX], msg[1024] = "";
	char want[WM_KEY_NAME_MAX + 40];
	size_t n;

	all = wm_key_table_sections(&n);
	for (size_t o = 0; o < n && other == NULL; o++)
		if (wm_key_table_find(&all[o], k->name) == NULL)
			other = &all[o];
	ck_assert_msg(other != NULL, "every section takes \"%s\"", k->name);
	snprintf(line, sizeof(line), "%s = %s", k->name, k->example);
	topology_with(text, sizeof(text), other->kind, line);
	snprintf(want, sizeof(want), "unrecognized key \"%s\"", k->name);
	ck_assert_msg(load(text, msg, sizeof(msg)) != 0 &&
			      strstr(msg, want) != NULL,
		      "\"%s\" in [%s] is not refused as unknown: %s\n%s",
		      k->name, other->kind, msg, text);
}
END_TEST

static Suite *
key_table_suite(void)
{
	Suite *s = suite_create("key_table");
	TCase *doc = tcase_create("documented");
	TCase *parsed = tcase_create("parsed");

	int keys = keys_in_table();

	tcase_add_loop_test(doc, test_every_key_has_every_column, 0, keys);
	tcase_add_test(doc, test_every_stage_kind_has_its_keys);
	tcase_add_loop_test(parsed, test_every_example_parses_in_its_section, 0,
			    keys);
	tcase_add_loop_test(parsed,
			    test_every_key_is_refused_where_it_does_not_belong,
			    0, keys);
	suite_add_tcase(s, doc);
	suite_add_tcase(s, parsed);
	return s;
}

int
main(void)
{
	return wm_check_main(key_table_suite());
}
