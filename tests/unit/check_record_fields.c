/*
 * check_record_fields.c
 *	A record's fields from a line of JSON: members of other names read
 *	past whatever they hold, fields found by path, integral reals taken
 *	and fractions refused with their text, repeated names and trailing
 *	text refused, string keys decoded to their exact bytes.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/io/keys.h"
#include "runtime/source/record_fields.h"
#include "tests/unit/check_main.h"

/* A Kafka value's layout: timestamp, key, value, every one required. */
static const char *const names[] = {"timestamp", "key", "value"};
static const enum wm_field_kind kinds[] = {WM_FIELD_INT, WM_FIELD_KEY,
					   WM_FIELD_INT};

struct parsed {
	int n;
	int64_t f[3];
	struct wm_key_field kf;
	char err[256];
};

/* line read by the layout, its fields at `paths` (NULL: by name). */
static void
parse(const char *line, const struct wm_json_path *paths, struct parsed *p)
{
	struct wm_field_layout lo = {.n = 3,
				     .names = names,
				     .kinds = kinds,
				     .paths = paths,
				     .required = 3};
	uint64_t given = 0;

	memset(p, 0, sizeof(*p));
	p->n = wm_fields_parse(line, strlen(line), true, &lo, p->f, &p->kf,
			       &given, p->err, sizeof(p->err));
}

static void
assert_read(const char *line, const struct wm_json_path *paths, int64_t ts,
	    int64_t key, int64_t value)
{
	struct parsed p;

	parse(line, paths, &p);
	ck_assert_msg(p.n == 3, "%s: %s", line, p.err);
	ck_assert_int_eq(p.f[0], ts);
	ck_assert(p.kf.is_int);
	ck_assert_int_eq(p.kf.value, key);
	ck_assert_int_eq(p.f[2], value);
}

static void
assert_refused(const char *line, const struct wm_json_path *paths,
	       const char *err)
{
	struct parsed p;

	parse(line, paths, &p);
	ck_assert_msg(p.n < 0, "%s: read", line);
	ck_assert_str_eq(p.err, err);
}

START_TEST(test_nested_objects_and_arrays_are_read_past)
{
	assert_read("{\"meta\":{\"a\":{\"b\":[1,{\"c\":null}]},\"d\":[]},"
		    "\"timestamp\":1000,\"key\":7,\"tags\":[\"x\",\"y\"],"
		    "\"value\":3}",
		    NULL, 1000, 7, 3);
}
END_TEST

START_TEST(test_decimals_and_booleans_are_read_past)
{
	assert_read("{\"price\":12.5,\"rate\":-1.5e-3,\"ok\":true,"
		    "\"timestamp\":1000,\"key\":7,\"value\":3,\"gone\":false}",
		    NULL, 1000, 7, 3);
}
END_TEST

/* The three fields at paths parsed as kafka.value_fields gives them. */
static void
paths_of(const char *const texts[3], struct wm_json_path paths[3])
{
	for (int i = 0; i < 3; i++) {
		size_t used = 0, at = 0;
		const char *why = NULL;
		int r = wm_json_path_parse(texts[i], strlen(texts[i]),
					   &paths[i], &used, &at, &why);

		ck_assert_msg(r == 0, "%s: %s", texts[i], why);
		ck_assert_uint_eq(used, strlen(texts[i]));
	}
}

static void
paths_free(struct wm_json_path paths[3])
{
	for (int i = 0; i < 3; i++)
		wm_json_path_free(&paths[i]);
}

START_TEST(test_fields_are_found_by_path)
{
	static const char *const texts[3] = {"$.payload.ts", "$.payload.key",
					     "$.v"};
	struct wm_json_path paths[3];

	paths_of(texts, paths);
	assert_read("{\"payload\":{\"ts\":1000,\"key\":7,\"x\":{}},\"v\":3,"
		    "\"timestamp\":5}",
		    paths, 1000, 7, 3);
	assert_refused("{\"payload\":{\"key\":7},\"v\":3,\"timestamp\":5}",
		       paths, "invalid line: no timestamp at $.payload.ts");
	assert_refused("{\"payload\":[1000],\"v\":3}", paths,
		       "invalid line: no timestamp at $.payload.ts");
	paths_free(paths);
}
END_TEST

START_TEST(test_bracket_segments_name_any_member)
{
	static const char *const quoted[3] = {"$['event.time']", "$[\"k\"].id",
					      "$['it\\'s, a\\\\b'].n"};
	struct wm_json_path paths[3];

	paths_of(quoted, paths);
	assert_read("{\"event.time\":1000,\"k\":{\"id\":7},"
		    "\"it's, a\\\\b\":{\"n\":3}}",
		    paths, 1000, 7, 3);
	paths_free(paths);
}
END_TEST

START_TEST(test_paths_beyond_the_subset_are_refused)
{
	static const struct {
		const char *text;
		size_t at;
	} bad[] = {
		{"payload.ts", 0},
		{"$", 1},
		{"$.", 2},
		{"$..ts", 1},
		{"$.a[0]", 4},
		{"$.a.*", 4},
		{"$[*]", 2},
		{"$['a", 4},
		{"$['a'", 5},
		{"$['a\\x']", 4},
		/* A quote inside single quotes is \', not doubled. */
		{"$['it''s']", 6},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct wm_json_path path;
		size_t used = 0, at = 99;
		const char *why = NULL;
		int r = wm_json_path_parse(bad[i].text, strlen(bad[i].text),
					   &path, &used, &at, &why);

		ck_assert_msg(r != 0, "%s: read", bad[i].text);
		ck_assert_msg(at == bad[i].at, "%s: at %zu", bad[i].text, at);
		ck_assert_ptr_nonnull(why);
	}
}
END_TEST

START_TEST(test_integral_reals_are_integers)
{
	assert_read("{\"timestamp\":1700000000000.0,\"key\":7,\"value\":3e2}",
		    NULL, 1700000000000, 7, 300);
	assert_read("{\"timestamp\":-9007199254740992.0,\"key\":7,\"value\":0}",
		    NULL, -9007199254740992, 7, 0);
	assert_refused("{\"timestamp\":9007199254740994.0,\"key\":7,"
		       "\"value\":0}",
		       NULL,
		       "invalid timestamp \"9007199254740994\" (a real beyond "
		       "2^53, where reals are not exact: write it as an "
		       "integer)");
}
END_TEST

START_TEST(test_fractions_and_other_types_are_refused)
{
	assert_refused("{\"timestamp\":12.5,\"key\":7,\"value\":3}", NULL,
		       "invalid timestamp \"12.5\" (a fraction: expected an "
		       "integer)");
	assert_refused("{\"timestamp\":1,\"key\":7,\"value\":0.1}", NULL,
		       "invalid value \"0.1\" (a fraction: expected an "
		       "integer)");
	assert_refused("{\"timestamp\":\"12\",\"key\":7,\"value\":3}", NULL,
		       "invalid timestamp \"\"12\"\" (expected an integer)");
	assert_refused("{\"timestamp\":1,\"key\":{\"id\":7},\"value\":3}", NULL,
		       "invalid key \"{\"id\":7}\" (expected a string or an "
		       "integer)");
	assert_refused("{\"timestamp\":92233720368547758070,\"key\":7,"
		       "\"value\":3}",
		       NULL,
		       "invalid JSON: too big integer near "
		       "'92233720368547758070' at column 33");
}
END_TEST

START_TEST(test_a_name_given_twice_is_refused)
{
	assert_refused("{\"timestamp\":1,\"key\":7,\"value\":3,\"key\":8}",
		       NULL,
		       "invalid JSON: duplicate object key near '\"key\"' at "
		       "column 38");
	assert_refused("{\"timestamp\":1,\"key\":7,\"value\":3,"
		       "\"m\":{\"a\":1,\"a\":2}}",
		       NULL,
		       "invalid JSON: duplicate object key near '\"a\"' at "
		       "column 47");
}
END_TEST

START_TEST(test_text_after_the_object_is_refused)
{
	assert_refused("{\"timestamp\":1,\"key\":7,\"value\":3} x", NULL,
		       "invalid JSON: end of file expected near 'x' at column "
		       "35");
	assert_refused("{\"timestamp\":1,\"key\":7,\"value\":3}{}", NULL,
		       "invalid JSON: end of file expected near '{' at column "
		       "34");
	assert_refused("[{\"timestamp\":1,\"key\":7,\"value\":3}]", NULL,
		       "invalid JSON: expected an object");
	/* Blanks around the object are no text. */
	assert_read(" {\"timestamp\":1,\"key\":7,\"value\":3}\t ", NULL, 1, 7,
		    3);
}
END_TEST

/* line's string key interned, and its bytes read back from the
 * dictionary: 0 and the bytes in out, or the message in out. */
static int
key_of(const char *line, char *out, size_t outlen)
{
	struct wm_keys *keys = wm_keys_new();
	const char *bytes;
	struct parsed p;
	uint32_t flags = 0;
	int64_t key = 0;
	size_t len = 0;
	int r;

	ck_assert_ptr_nonnull(keys);
	parse(line, NULL, &p);
	ck_assert_msg(p.n == 3, "%s: %s", line, p.err);
	r = wm_fields_key(&p.kf, WM_KEY_TYPE_STRING, false, keys, &key, &flags,
			  out, outlen);
	if (r == 0) {
		bytes = wm_keys_string(keys, key, &len);
		ck_assert_ptr_nonnull(bytes);
		ck_assert_uint_lt(len, outlen);
		memcpy(out, bytes, len);
		out[len] = '\0';
	}
	wm_keys_free(keys);
	return r;
}

START_TEST(test_string_keys_are_their_exact_bytes)
{
	char out[512];

	ck_assert_int_eq(key_of("{\"timestamp\":1,\"value\":3,"
				"\"key\":\"a\\\"b\\\\c\\/../d\"}",
				out, sizeof(out)),
			 0);
	ck_assert_str_eq(out, "a\"b\\c/../d");
	ck_assert_int_eq(key_of("{\"timestamp\":1,\"value\":3,"
				"\"key\":\"\\u00e9\\ud83d\\ude00\"}",
				out, sizeof(out)),
			 0);
	ck_assert_str_eq(out, "\xc3\xa9\xf0\x9f\x98\x80");
	/* A key holds no control character (runtime/io/keys.h): refused,
	 * shown escaped. */
	ck_assert_int_ne(key_of("{\"timestamp\":1,\"value\":3,"
				"\"key\":\"a\\u000ab\"}",
				out, sizeof(out)),
			 0);
	ck_assert_str_eq(out, "invalid key \"a\\x0ab\" (control character "
			      "U+000A)");
}
END_TEST

/* A trace's layout reads past other members but for near misses of its
 * fields' names. */
START_TEST(test_near_misses_of_names_are_refused)
{
	static const char *const tnames[] = {"timestamp", "key", "value",
					     "arrival"};
	static const enum wm_field_kind tkinds[] = {WM_FIELD_INT, WM_FIELD_KEY,
						    WM_FIELD_INT, WM_FIELD_INT};
	struct wm_field_layout lo = {.n = 4,
				     .names = tnames,
				     .kinds = tkinds,
				     .required = 3,
				     .near_misses_refused = true,
				     .unknown_detail = " (not ours)"};
	const char *ok = "{\"timestamp\":1,\"key\":7,\"value\":3,"
			 "\"price\":{\"eur\":1.5}}";
	const char *typo = "{\"timestamp\":1,\"key\":7,\"value\":3,"
			   "\"arival\":5}";
	struct wm_key_field kf;
	int64_t f[4];
	char err[256];

	ck_assert_int_eq(wm_fields_parse(ok, strlen(ok), true, &lo, f, &kf,
					 NULL, err, sizeof(err)),
			 3);
	ck_assert_int_eq(wm_fields_parse(typo, strlen(typo), true, &lo, f, &kf,
					 NULL, err, sizeof(err)),
			 -1);
	ck_assert_str_eq(err, "invalid field \"arival\" (not ours)");
}
END_TEST

/* A value bigger than the reading thread's arena (json_arena.h): what
 * does not fit is malloc's, freed with the object, and the next line,
 * from the arena again, is read as any other. */
START_TEST(test_a_line_beyond_the_arena_is_read)
{
	enum { MEMBERS = 4000 };
	size_t cap = MEMBERS * 32 + 64, n = 0;
	char *line = malloc(cap);

	ck_assert_ptr_nonnull(line);
	n += (size_t)snprintf(line + n, cap - n, "{");
	for (int i = 0; i < MEMBERS; i++)
		n += (size_t)snprintf(line + n, cap - n,
				      "\"m%d\":[%d.5,\"x\"],", i, i);
	snprintf(line + n, cap - n, "\"timestamp\":7,\"key\":8,\"value\":9}");
	for (int round = 0; round < 3; round++) {
		assert_read(line, NULL, 7, 8, 9);
		assert_read("{\"timestamp\":1,\"key\":2,\"value\":3}", NULL, 1,
			    2, 3);
	}
	free(line);
}
END_TEST

static Suite *
record_fields_suite(void)
{
	Suite *s = suite_create("record_fields");
	TCase *past = tcase_create("read past");
	TCase *paths = tcase_create("paths");
	TCase *numbers = tcase_create("numbers");
	TCase *refused = tcase_create("refused");
	TCase *keys = tcase_create("keys");

	tcase_add_test(past, test_nested_objects_and_arrays_are_read_past);
	tcase_add_test(past, test_decimals_and_booleans_are_read_past);
	tcase_add_test(past, test_near_misses_of_names_are_refused);
	tcase_add_test(past, test_a_line_beyond_the_arena_is_read);
	suite_add_tcase(s, past);
	tcase_add_test(paths, test_fields_are_found_by_path);
	tcase_add_test(paths, test_bracket_segments_name_any_member);
	tcase_add_test(paths, test_paths_beyond_the_subset_are_refused);
	suite_add_tcase(s, paths);
	tcase_add_test(numbers, test_integral_reals_are_integers);
	tcase_add_test(numbers, test_fractions_and_other_types_are_refused);
	suite_add_tcase(s, numbers);
	tcase_add_test(refused, test_a_name_given_twice_is_refused);
	tcase_add_test(refused, test_text_after_the_object_is_refused);
	suite_add_tcase(s, refused);
	tcase_add_test(keys, test_string_keys_are_their_exact_bytes);
	suite_add_tcase(s, keys);
	return s;
}

int
main(void)
{
	return wm_check_main(record_fields_suite());
}
