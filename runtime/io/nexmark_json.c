/*
 * nexmark_json.c
 *	Nexmark events as JSON lines (nexmark_json.h).
 *
 * A line is built left to right in the caller's buffer, which holds the
 * longest line (checked once, not per field), from a table of each kind's
 * members: literal names by memcpy,
 * numbers by lib/decimal.h, strings by lib/json_escape.h, timestamps by a
 * calendar computed here (no gmtime_r, which takes the time zone lock's
 * path in glibc and formats through strftime on top).
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "base/countof.h"
#include "lib/decimal.h"
#include "lib/json_escape.h"
#include "runtime/io/nexmark_json.h"

/* Days from 0000-03-01 to 1970-01-01 in the proleptic Gregorian calendar:
 * counting years from March puts the leap day last. */
#define DAYS_0000_03_01_TO_EPOCH 719468
#define DAYS_PER_400_YEARS 146097

static inline char *
two(char *p, unsigned v)
{
	memcpy(p, wm_decimal_pairs + 2 * v, 2);
	return p + 2;
}

char *
wm_nexmark_json_time(char *p, wm_ts_t ms)
{
	uint64_t t, days, era, doe, yoe, doy, mp;
	unsigned year, month, day, sec_of_day, msec;

	if (ms < WM_NEXMARK_JSON_TIME_MIN)
		ms = WM_NEXMARK_JSON_TIME_MIN;
	if (ms > WM_NEXMARK_JSON_TIME_MAX)
		ms = WM_NEXMARK_JSON_TIME_MAX;
	t = (uint64_t)ms;
	days = t / WM_MS_PER_DAY;
	msec = (unsigned)(t % 1000);
	sec_of_day = (unsigned)(t % WM_MS_PER_DAY / 1000);

	/*
	 * The date of day `days` after 1970-01-01, in years that begin on
	 * 1 March, so that February, with the leap day, ends each year: a
	 * 400-year era has 146097 days; within it, the year is the day
	 * less the leap days before it (one every 4 years, none every 100,
	 * one every 400: the day count at which each is added) over 365;
	 * and the month, from March, follows from the day of that year by
	 * the 153-days-in-5-months pattern (31 30 31 30 31) of March to July
	 * and again of August to December.
	 */
	days += DAYS_0000_03_01_TO_EPOCH;
	era = days / DAYS_PER_400_YEARS;
	doe = days - era * DAYS_PER_400_YEARS; /* [0, 146096] */
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100); /* [0, 365] */
	mp = (5 * doy + 2) / 153;		       /* 0 = March */
	day = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	month = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	year = (unsigned)(era * 400 + yoe) + (month <= 2);

	p = two(p, year / 100);
	p = two(p, year % 100);
	*p++ = '-';
	p = two(p, month);
	*p++ = '-';
	p = two(p, day);
	*p++ = ' ';
	p = two(p, sec_of_day / 3600);
	*p++ = ':';
	p = two(p, sec_of_day / 60 % 60);
	*p++ = ':';
	p = two(p, sec_of_day % 60);
	*p++ = '.';
	*p++ = (char)('0' + msec / 100);
	return two(p, msec % 100);
}

/* A literal's bytes at p (no NUL); the end. */
#define PUT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

/* The length `len` claims, at most what `size` (the buffer, NUL included)
 * can hold. */
static inline size_t
held(size_t len, size_t size)
{
	return len < size ? len : size - 1;
}

/*
 * The members of a kind's object, in the DDL's order: what each is and
 * where its value lies in the kind's struct. One table a kind and one
 * writer for all three.
 */
enum member_type {
	MEMBER_NUMBER, /* an int64_t */
	MEMBER_TEXT,   /* a char buffer and its uint16_t length */
	MEMBER_CARD,   /* the card number: its buffer, its NUL ending it */
	MEMBER_TIME,   /* a wm_ts_t */
	MEMBER_NULL,   /* a member Beam's events lack: null */
};

struct member {
	const char *name; /* "name": with the '{' or ',' before it */
	uint8_t name_len;
	uint8_t type;
	uint16_t at;	 /* the value's offset */
	uint16_t len_at; /* MEMBER_TEXT: its length's offset */
	uint16_t size;	 /* MEMBER_TEXT, MEMBER_CARD: its buffer's size */
};

#define MEMBER(lit, type, s, f, len_at, size)                                  \
	{                                                                      \
		lit, sizeof(lit) - 1, type, offsetof(struct s, f), len_at,     \
			size                                                   \
	}
#define NUMBER(lit, s, f) MEMBER(lit, MEMBER_NUMBER, s, f, 0, 0)
#define TIME(lit, s, f) MEMBER(lit, MEMBER_TIME, s, f, 0, 0)
#define TEXT(lit, s, f)                                                        \
	MEMBER(lit, MEMBER_TEXT, s, f, offsetof(struct s, f##_len),            \
	       sizeof(((struct s *)0)->f))
#define ABSENT(lit)                                                            \
	{                                                                      \
		lit, sizeof(lit) - 1, MEMBER_NULL, 0, 0, 0                     \
	}

static const struct member person_members[] = {
	NUMBER("{\"id\":", wm_nexmark_person, id),
	TEXT(",\"name\":", wm_nexmark_person, name),
	TEXT(",\"emailAddress\":", wm_nexmark_person, email),
	MEMBER(",\"creditCard\":", MEMBER_CARD, wm_nexmark_person, credit_card,
	       0, WM_NEXMARK_CARD_LEN + 1),
	TEXT(",\"city\":", wm_nexmark_person, city),
	TEXT(",\"state\":", wm_nexmark_person, state),
	TIME(",\"dateTime\":", wm_nexmark_person, date_time),
	TEXT(",\"extra\":", wm_nexmark_person, extra),
};

static const struct member auction_members[] = {
	NUMBER("{\"id\":", wm_nexmark_auction, id),
	TEXT(",\"itemName\":", wm_nexmark_auction, item_name),
	TEXT(",\"description\":", wm_nexmark_auction, description),
	NUMBER(",\"initialBid\":", wm_nexmark_auction, initial_bid),
	NUMBER(",\"reserve\":", wm_nexmark_auction, reserve),
	TIME(",\"dateTime\":", wm_nexmark_auction, date_time),
	TIME(",\"expires\":", wm_nexmark_auction, expires),
	NUMBER(",\"seller\":", wm_nexmark_auction, seller),
	NUMBER(",\"category\":", wm_nexmark_auction, category),
	TEXT(",\"extra\":", wm_nexmark_auction, extra),
};

static const struct member bid_members[] = {
	NUMBER("{\"auction\":", wm_nexmark_bid, auction),
	NUMBER(",\"bidder\":", wm_nexmark_bid, bidder),
	NUMBER(",\"price\":", wm_nexmark_bid, price),
	ABSENT(",\"channel\":null"),
	ABSENT(",\"url\":null"),
	TIME(",\"dateTime\":", wm_nexmark_bid, date_time),
	TEXT(",\"extra\":", wm_nexmark_bid, extra),
};

/* The object of the `n` members `m` of the struct at `v`, at p; the end.
 * Inlined into each call and unrolled over its constant table, so that
 * each kind's members become straight code with no jump on their types:
 * a line took a quarter longer (gen + JSON) through the loop's switch. */
static inline __attribute__((always_inline)) char *
object(char *p, const struct member *m, size_t n, const void *v)
{
	const char *base = v;

#pragma GCC unroll 16
	for (; n > 0; n--, m++) {
		const char *at = base + m->at;
		int64_t x;
		uint16_t len;

		memcpy(p, m->name, m->name_len);
		p += m->name_len;
		switch (m->type) {
		case MEMBER_NUMBER:
			memcpy(&x, at, sizeof(x));
			p = wm_decimal_i64(p, x);
			break;
		case MEMBER_TIME:
			memcpy(&x, at, sizeof(x));
			*p++ = '"';
			p = wm_nexmark_json_time(p, x);
			*p++ = '"';
			break;
		case MEMBER_TEXT:
		case MEMBER_CARD:
			if (m->type == MEMBER_TEXT)
				memcpy(&len, base + m->len_at, sizeof(len));
			else
				len = (uint16_t)strnlen(at, m->size - 1u);
			*p++ = '"';
			p = wm_json_escape(p, at, held(len, m->size));
			*p++ = '"';
			break;
		default: /* MEMBER_NULL: its name holds the null */
			break;
		}
	}
	*p++ = '}';
	return p;
}

size_t
wm_nexmark_json_line(char *buf, size_t cap, const struct wm_nexmark_event *ev,
		     uint32_t partition)
{
	char *p = buf;

	if (cap < WM_NEXMARK_JSON_MAX)
		return 0;
	switch (ev->kind) {
	case WM_NEXMARK_PERSON:
		p = PUT(p, "{\"event_type\":0,\"person\":");
		p = object(p, person_members, N_ELEMS(person_members),
			   &ev->person);
		p = PUT(p, ",\"auction\":null,\"bid\":null");
		break;
	case WM_NEXMARK_AUCTION:
		p = PUT(p, "{\"event_type\":1,\"person\":null,\"auction\":");
		p = object(p, auction_members, N_ELEMS(auction_members),
			   &ev->auction);
		p = PUT(p, ",\"bid\":null");
		break;
	case WM_NEXMARK_BID:
		p = PUT(p, "{\"event_type\":2,\"person\":null,\"auction\":null,"
			   "\"bid\":");
		p = object(p, bid_members, N_ELEMS(bid_members), &ev->bid);
		break;
	default:
		return 0;
	}
	p = PUT(p, ",\"partition\":");
	p = wm_decimal_u64(p, partition);
	*p++ = '}';
	*p++ = '\n';
	return (size_t)(p - buf);
}
