/*
 * check_nexmark_json.c
 *	Unit tests of the Nexmark JSON lines: each line parses (jansson) and
 *	gives back every field of its event under the DDL's names, strings
 *	of any bytes come back as they went in, and timestamps read as
 *	gmtime_r() gives them from 1970 to 9999.
 */
#include "config.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "runtime/io/nexmark_json.h"
#include "tests/unit/check_main.h"

static char line[WM_NEXMARK_JSON_MAX];

/* "yyyy-MM-dd HH:mm:ss.SSS" of `ms` through gmtime_r(). */
static void
libc_time(char out[80], wm_ts_t ms)
{
	time_t secs = (time_t)(ms / 1000);
	struct tm tm;

	ck_assert_ptr_nonnull(gmtime_r(&secs, &tm));
	snprintf(out, 80, "%04d-%02d-%02d %02d:%02d:%02d.%03d",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

static void
expect_time(wm_ts_t ms)
{
	char want[80], got[WM_NEXMARK_JSON_TIME_LEN + 1];
	char *end = wm_nexmark_json_time(got, ms);

	ck_assert_int_eq(end - got, WM_NEXMARK_JSON_TIME_LEN);
	*end = '\0';
	libc_time(want, ms);
	ck_assert_msg(strcmp(got, want) == 0, "%" PRId64 ": %s, not %s", ms,
		      got, want);
}

/* The line parsed: one object, the line ending in its only '\n'. */
static json_t *
parse(size_t len)
{
	json_error_t err;
	json_t *doc;

	ck_assert_uint_gt(len, 0);
	ck_assert_int_eq(line[len - 1], '\n');
	ck_assert_ptr_null(memchr(line, '\n', len - 1));
	doc = json_loadb(line, len, JSON_ALLOW_NUL, &err);
	ck_assert_msg(doc != NULL, "%s in %.*s", err.text, (int)len, line);
	ck_assert(json_is_object(doc));
	return doc;
}

static void
expect_int(json_t *o, const char *key, int64_t want)
{
	json_t *v = json_object_get(o, key);

	ck_assert_msg(json_is_integer(v), "%s is no integer", key);
	ck_assert_int_eq(json_integer_value(v), want);
}

static void
expect_text(json_t *o, const char *key, const char *want, size_t len)
{
	json_t *v = json_object_get(o, key);

	ck_assert_msg(json_is_string(v), "%s is no string", key);
	ck_assert_uint_eq(json_string_length(v), len);
	ck_assert_msg(memcmp(json_string_value(v), want, len) == 0,
		      "%s: \"%s\", not \"%.*s\"", key, json_string_value(v),
		      (int)len, want);
}

static void
expect_time_text(json_t *o, const char *key, wm_ts_t ms)
{
	char want[80];

	libc_time(want, ms);
	expect_text(o, key, want, strlen(want));
}

static void
expect_null(json_t *o, const char *key)
{
	ck_assert_msg(json_is_null(json_object_get(o, key)), "%s not null",
		      key);
}

/* The object of `kind` in doc, with `members` members, the other two
 * kinds' members null. */
static json_t *
kind_object(json_t *doc, enum wm_nexmark_kind kind, size_t members)
{
	static const char *const names[] = {"person", "auction", "bid"};
	json_t *o = json_object_get(doc, names[kind]);

	for (int k = 0; k < 3; k++)
		if (k != (int)kind)
			expect_null(doc, names[k]);
	ck_assert_msg(json_is_object(o), "%s is no object", names[kind]);
	ck_assert_uint_eq(json_object_size(o), members);
	return o;
}

/* Every member of `ev`'s line: its kind's object with each field under
 * the DDL's name and nothing else, the other two null. */
static void
expect_round_trip(const struct wm_nexmark_event *ev, uint32_t partition)
{
	json_t *doc =
		parse(wm_nexmark_json_line(line, sizeof(line), ev, partition));
	json_t *o;

	ck_assert_uint_eq(json_object_size(doc), 5);
	expect_int(doc, "event_type", ev->kind);
	expect_int(doc, "partition", partition);
	if (ev->kind == WM_NEXMARK_PERSON) {
		const struct wm_nexmark_person *p = &ev->person;

		o = kind_object(doc, ev->kind, 8);
		expect_int(o, "id", p->id);
		expect_text(o, "name", p->name, p->name_len);
		expect_text(o, "emailAddress", p->email, p->email_len);
		expect_text(o, "creditCard", p->credit_card,
			    strlen(p->credit_card));
		expect_text(o, "city", p->city, p->city_len);
		expect_text(o, "state", p->state, p->state_len);
		expect_time_text(o, "dateTime", p->date_time);
		expect_text(o, "extra", p->extra, p->extra_len);
	} else if (ev->kind == WM_NEXMARK_AUCTION) {
		const struct wm_nexmark_auction *a = &ev->auction;

		o = kind_object(doc, ev->kind, 10);
		expect_int(o, "id", a->id);
		expect_text(o, "itemName", a->item_name, a->item_name_len);
		expect_text(o, "description", a->description,
			    a->description_len);
		expect_int(o, "initialBid", a->initial_bid);
		expect_int(o, "reserve", a->reserve);
		expect_time_text(o, "dateTime", a->date_time);
		expect_time_text(o, "expires", a->expires);
		expect_int(o, "seller", a->seller);
		expect_int(o, "category", a->category);
		expect_text(o, "extra", a->extra, a->extra_len);
	} else {
		const struct wm_nexmark_bid *b = &ev->bid;

		o = kind_object(doc, ev->kind, 7);
		expect_int(o, "auction", b->auction);
		expect_int(o, "bidder", b->bidder);
		expect_int(o, "price", b->price);
		expect_null(o, "channel");
		expect_null(o, "url");
		expect_time_text(o, "dateTime", b->date_time);
		expect_text(o, "extra", b->extra, b->extra_len);
	}
	json_decref(doc);
}

START_TEST(test_generated_events_round_trip)
{
	struct wm_nexmark_config c;
	struct wm_nexmark_event ev;

	wm_nexmark_config_defaults(&c);
	c.seed = 42;
	c.base_time = 1436918400000; /* 2015-07-15 */
	c.events_per_second = 3;     /* times across days */
	for (uint64_t n = 0; n < 3000; n++) {
		wm_nexmark_gen_event(&c, n * 97, &ev);
		expect_round_trip(&ev, (uint32_t)(n % 7) * 613566756u);
	}
}
END_TEST

START_TEST(test_hostile_strings_come_back_whole)
{
	/* Quotes, backslashes, every control character, DEL, UTF-8: each
	 * comes back as the same bytes. */
	struct wm_nexmark_event ev;
	struct wm_nexmark_person *p = &ev.person;
	char extra[64];
	size_t n = 0;

	memset(&ev, 0, sizeof(ev));
	ev.kind = WM_NEXMARK_PERSON;
	p->id = -1;
	p->date_time = 0;
	for (unsigned c = 1; c < 0x20; c++)
		extra[n++] = (char)c;
	memcpy(extra + n, "\"\\/\x7f\xc3\xb6\xe2\x82\xac", 9);
	n += 9;
	memcpy(p->extra, extra, n);
	p->extra_len = (uint16_t)n;
	memcpy(p->name, "a \"b\" \\c", 9);
	p->name_len = 8;
	memcpy(p->email, "\n\r\t", 4);
	p->email_len = 3;
	memcpy(p->credit_card, "\"", 2);
	memcpy(p->city, "\\", 2);
	p->city_len = 1;
	p->state_len = 0;
	expect_round_trip(&ev, 0);
	/* A NUL inside a string is a byte like another. */
	p->name[1] = '\0';
	expect_round_trip(&ev, UINT32_MAX);
}
END_TEST

START_TEST(test_escapes_at_every_place_in_a_word)
{
	/* The escaper copies 8 bytes at a time while none needs escaping:
	 * each byte that does (and a few that do not: space, DEL, '~', a
	 * two-byte UTF-8 letter), at every offset of a run of letters, still
	 * comes back as it went. */
	static const char *const specials[] = {
		"\x01", "\x1f", "\"", "\\", "\n",
		" ",	"\x7f", "~",  "!",  "\xc3\xb6",
	};
	struct wm_nexmark_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = WM_NEXMARK_BID;
	for (size_t k = 0; k < sizeof(specials) / sizeof(specials[0]); k++)
		for (size_t at = 0; at < 20; at++) {
			size_t n = strlen(specials[k]);

			memset(ev.bid.extra, 'q', 24);
			memcpy(ev.bid.extra + at, specials[k], n);
			ev.bid.extra[24] = '\0';
			ev.bid.extra_len = 24;
			expect_round_trip(&ev, (uint32_t)at);
		}
}
END_TEST

START_TEST(test_bytes_that_are_not_utf8_are_shown_as_hex)
{
	/* As wm_json_text() writes them: a stray byte is the text \xNN. */
	struct wm_nexmark_event ev;
	json_t *doc, *bid;

	memset(&ev, 0, sizeof(ev));
	ev.kind = WM_NEXMARK_BID;
	memcpy(ev.bid.extra,
	       "a\xff"
	       "b\xc3",
	       4);
	ev.bid.extra_len = 4;
	doc = parse(wm_nexmark_json_line(line, sizeof(line), &ev, 1));
	bid = json_object_get(doc, "bid");
	expect_text(bid, "extra", "a\\xffb\\xc3", 10);
	json_decref(doc);
}
END_TEST

START_TEST(test_worst_case_fits_and_small_buffers_are_refused)
{
	/* An auction whose three strings are all control characters, each
	 * six bytes escaped: within WM_NEXMARK_JSON_MAX. */
	struct wm_nexmark_event ev;
	struct wm_nexmark_auction *a = &ev.auction;
	size_t len;

	memset(&ev, 1, sizeof(ev));
	ev.kind = WM_NEXMARK_AUCTION;
	a->id = a->initial_bid = a->reserve = a->seller = a->category =
		INT64_MIN;
	a->date_time = a->expires = INT64_MAX;
	a->item_name_len = sizeof(a->item_name) - 1;
	a->description_len = sizeof(a->description) - 1;
	a->extra_len = sizeof(a->extra) - 1;
	a->item_name[a->item_name_len] = '\0';
	a->description[a->description_len] = '\0';
	a->extra[a->extra_len] = '\0';
	len = wm_nexmark_json_line(line, sizeof(line), &ev, UINT32_MAX);
	ck_assert_uint_gt(len, 6 * (size_t)a->extra_len);
	ck_assert_uint_le(len, sizeof(line));
	json_decref(parse(len));
	/* A length beyond its buffer is cut to it. */
	a->extra_len = UINT16_MAX;
	ck_assert_uint_eq(
		wm_nexmark_json_line(line, sizeof(line), &ev, UINT32_MAX), len);
	ck_assert_uint_eq(
		wm_nexmark_json_line(line, WM_NEXMARK_JSON_MAX - 1, &ev, 0), 0);
	ev.kind = (enum wm_nexmark_kind)3;
	ck_assert_uint_eq(wm_nexmark_json_line(line, sizeof(line), &ev, 0), 0);
}
END_TEST

START_TEST(test_times_match_gmtime)
{
	/* Every day's edges from 1970 to 2101 (leap years, 2000, 2100 that
	 * is not one), then strides over the whole range to 9999. */
	const wm_ts_t day = WM_MS_PER_DAY;
	uint64_t x = 88172645463325252ull;

	for (wm_ts_t d = 0; d < 48000; d++) {
		expect_time(d * day);
		expect_time(d * day + day - 1);
	}
	for (wm_ts_t ms = 0; ms <= WM_NEXMARK_JSON_TIME_MAX;
	     ms += (wm_ts_t)86399999 * 37) {
		expect_time(ms);
		/* and a pseudo-random one near it (xorshift) */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		expect_time((wm_ts_t)(x % (uint64_t)WM_NEXMARK_JSON_TIME_MAX));
	}
	expect_time(WM_NEXMARK_JSON_TIME_MAX);
}
END_TEST

START_TEST(test_times_outside_the_range_are_clamped)
{
	char got[WM_NEXMARK_JSON_TIME_LEN + 1];

	*wm_nexmark_json_time(got, -1) = '\0';
	ck_assert_str_eq(got, "1970-01-01 00:00:00.000");
	*wm_nexmark_json_time(got, INT64_MIN) = '\0';
	ck_assert_str_eq(got, "1970-01-01 00:00:00.000");
	*wm_nexmark_json_time(got, WM_NEXMARK_JSON_TIME_MAX + 1) = '\0';
	ck_assert_str_eq(got, "9999-12-31 23:59:59.999");
	*wm_nexmark_json_time(got, INT64_MAX) = '\0';
	ck_assert_str_eq(got, "9999-12-31 23:59:59.999");
}
END_TEST

static Suite *
nexmark_json_suite(void)
{
	Suite *s = suite_create("nexmark_json");
	TCase *lines = tcase_create("lines");
	TCase *times = tcase_create("times");

	tcase_add_test(lines, test_generated_events_round_trip);
	tcase_add_test(lines, test_hostile_strings_come_back_whole);
	tcase_add_test(lines, test_escapes_at_every_place_in_a_word);
	tcase_add_test(lines, test_bytes_that_are_not_utf8_are_shown_as_hex);
	tcase_add_test(lines,
		       test_worst_case_fits_and_small_buffers_are_refused);
	tcase_add_test(times, test_times_match_gmtime);
	tcase_add_test(times, test_times_outside_the_range_are_clamped);
	suite_add_tcase(s, lines);
	suite_add_tcase(s, times);
	return s;
}

int
main(void)
{
	return wm_check_main(nexmark_json_suite());
}
