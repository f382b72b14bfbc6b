/*
 * nexmark_gen.c
 *	Nexmark events from event numbers: ids, kinds, timestamps and the
 *	random fields of persons, auctions and bids (nexmark_gen.h).
 *
 * Each event has its own random source: splitmix64 started at
 * mix(mix(seed) ^ id). mix is a bijection, so no two ids of one seed
 * start at one state; and the start is mixed, not seed + id * step, whose
 * sequences would be one another shifted by a draw (event id + 1's i-th
 * number would be event id's (i + 1)-th). splitmix64 is chosen for its
 * one-word state: seeding costs one mix, where xoshiro256** would take
 * four splitmix64 outputs before its first number, on every event.
 *
 * Cost: a bid is a division by the proportions' total (its kind and base
 * ids), one by the rate (its timestamp), three to five draws for its
 * picks and price, an exp() for the price and a draw per eight letters of
 * extra. No allocation, no table built at run time.
 */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "operators/nexmark_gen.h"

_Static_assert(sizeof("Deiter Bartels") <= WM_NEXMARK_NAME_BUF,
	       "the longest name and its NUL fit");
_Static_assert(sizeof("San Francisco") <= WM_NEXMARK_CITY_BUF,
	       "the longest city and its NUL fit");
_Static_assert(6 + 1 + 4 + sizeof(".com") <= WM_NEXMARK_EMAIL_BUF,
	       "str(7) @ str(5) .com and its NUL fit");
_Static_assert(WM_NEXMARK_EXTRA_BUF <= UINT16_MAX,
	       "an extra's length fits its uint16_t");

const char *const wm_nexmark_first_names[WM_NEXMARK_FIRST_NAMES] = {
	"Peter", "Paul",  "Luke",  "John",   "Saul",  "Vicky",
	"Kate",	 "Julie", "Sarah", "Deiter", "Walter"};
const char *const wm_nexmark_last_names[WM_NEXMARK_LAST_NAMES] = {
	"Shultz", "Abrams", "Spencer", "White", "Bartels",
	"Walton", "Smith",  "Jones",   "Noris"};
const char *const wm_nexmark_cities[WM_NEXMARK_CITIES] = {
	"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland",
	"Bend",	   "Redmond",	  "Seattle",	   "Kent",  "Cheyenne"};
const char *const wm_nexmark_states[WM_NEXMARK_STATES] = {"AZ", "CA", "ID",
							  "OR", "WA", "WY"};

/* The bytes of the fixed-size fields as Nexmark counts an event's size
 * (8 a number or timestamp): what extra pads from. */
#define PERSON_FIXED 8
#define AUCTION_FIXED 48 /* 8 + the 40 Nexmark adds to the two strings */
#define BID_FIXED 32

/* One event's random source: splitmix64, and 16-bit lanes of one of its
 * outputs handed out in turn (low lane first). */
struct rng {
	uint64_t state;
	uint64_t lanes;
	unsigned left; /* lanes not yet handed out */
};

static inline uint64_t
mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static inline void
rng_seed(struct rng *r, uint64_t seed, uint64_t id)
{
	r->state = mix64(mix64(seed) ^ id);
	r->left = 0;
}

static inline uint64_t
rng_next(struct rng *r)
{
	r->state += UINT64_C(0x9e3779b97f4a7c15);
	return mix64(r->state);
}

/* Uniform in [0, k), k >= 1 (Lemire): the high word of draw * k, drawn
 * again while the low word falls in the 2^64 mod k values that would
 * favour some results. */
static inline uint64_t
uniform(struct rng *r, uint64_t k)
{
	unsigned __int128 m = (unsigned __int128)rng_next(r) * k;
	uint64_t low = (uint64_t)m;

	if (low < k) {
		uint64_t t = (0 - k) % k; /* 2^64 mod k */

		while (low < t) {
			m = (unsigned __int128)rng_next(r) * k;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

static inline uint32_t
lane16(struct rng *r)
{
	uint32_t v;

	if (r->left == 0) {
		r->lanes = rng_next(r);
		r->left = 4;
	}
	v = (uint32_t)(r->lanes & 0xffff);
	r->lanes >>= 16;
	r->left--;
	return v;
}

/* Uniform in [0, k), 1 <= k <= 65536, from 16-bit lanes, as uniform(). */
static inline uint32_t
uniform16(struct rng *r, uint32_t k)
{
	uint32_t m = lane16(r) * k;

	if ((m & 0xffff) < k) {
		uint32_t t = (65536 - k) % k;

		while ((m & 0xffff) < t)
			m = lane16(r) * k;
	}
	return m >> 16;
}

/* round(10^(6u) * 100), u uniform in [0, 1): log-uniform cents from 100
 * to 10^8 (Java's Math.round: floor(x + 0.5), x > 0 here). */
static int64_t
price(struct rng *r)
{
	double u = (double)(rng_next(r) >> 11) * 0x1.0p-53;

	return (int64_t)(exp(u * 6.0 * M_LN10) * 100.0 + 0.5);
}

/* str(max) into buf, NUL-terminated: 3 + uniform[0, max - 3) characters,
 * each a space (1 in 13) or a letter (uniform), then trimmed of spaces at both
 * ends, as Java's trim() leaves it. Returns the length. */
static uint16_t
str(struct rng *r, unsigned max, char *buf)
{
	/* A copy the stores to buf (a char *, which may alias *r) leave
	 * alone, so that it stays in registers. */
	struct rng l = *r;
	unsigned len = 3 + (unsigned)uniform(&l, max - 3);
	unsigned start = 0;

	/* One draw of 13 * 26 outcomes a character: the first 26 a space
	 * (1 in 13), the other 312 each letter 12 times. One lane and no
	 * unpredictable branch, where a draw for space-or-not and another
	 * for the letter took two lanes and a jump on the first. */
	for (unsigned i = 0; i < len; i++) {
		uint32_t x = uniform16(&l, 13 * 26);

		buf[i] = x < 26 ? ' ' : (char)('a' + (x - 26) % 26);
	}
	*r = l;
	while (len > 0 && buf[len - 1] == ' ')
		len--;
	while (start < len && buf[start] == ' ')
		start++;
	len -= start;
	memmove(buf, buf + start, len);
	buf[len] = '\0';
	return (uint16_t)len;
}

/*
 * pad(cur, avg): the extra that brings an event of `cur` bytes to `avg`
 * on average, into buf (WM_NEXMARK_EXTRA_BUF bytes), NUL-terminated.
 * Empty when cur > avg; else d = avg - cur, delta = round(d / 5) and the
 * length d - delta + uniform[0, 2 delta) (d when delta is 0).
 */
static uint16_t
pad(struct rng *r, uint32_t cur, uint32_t avg, char *buf)
{
	uint32_t d, delta, len;

	if (cur > avg) {
		buf[0] = '\0';
		return 0;
	}
	d = avg - cur;
	delta = (2 * d + 5) / 10;
	len = d - delta;
	if (delta > 0)
		len += (uint32_t)uniform(r, 2 * (uint64_t)delta);
	/* Eight letters a draw, stored eight at a time: the last store may
	 * reach 7 bytes past len, which the buffer's slack takes. The state
	 * is a local: buf is a char *, which may alias *r, so that through r
	 * every store would reload it. */
	uint64_t state = r->state;

	for (uint32_t i = 0; i < len; i += 8) {
		uint64_t w, even, odd, eight;

		state += UINT64_C(0x9e3779b97f4a7c15);
		w = mix64(state);
		/* Bytes 0, 2, 4, 6, then 1, 3, 5, 7, each in a 16-bit quarter
		 * times 26 (below 2^13: no carry into the next quarter); a
		 * letter is bits 8-12 of its quarter, 'a' + (b * 26 >> 8). */
		even = ((w & UINT64_C(0x00ff00ff00ff00ff)) * 26 >> 8) &
		       UINT64_C(0x001f001f001f001f);
		odd = ((w >> 8 & UINT64_C(0x00ff00ff00ff00ff)) * 26 >> 8) &
		      UINT64_C(0x001f001f001f001f);
		eight = (even | odd << 8) + UINT64_C(0x6161616161616161);
		/* Low byte first on any byte order: the same text. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		eight = __builtin_bswap64(eight);
#endif
		memcpy(buf + i, &eight, 8);
	}
	r->state = state;
	buf[len] = '\0';
	return (uint16_t)len;
}

void
wm_nexmark_config_defaults(struct wm_nexmark_config *c)
{
	*c = (struct wm_nexmark_config){
		.seed = 0,
		.first_event_id = 0,
		.base_time = 0,
		.events_per_second = 10000,
		.person_proportion = 1,
		.auction_proportion = 3,
		.bid_proportion = 46,
		.hot_auction_ratio = 2,
		.hot_sellers_ratio = 4,
		.hot_bidders_ratio = 4,
		.in_flight_auctions = 100,
		.active_people = 1000,
		.avg_person_size = 200,
		.avg_auction_size = 500,
		.avg_bid_size = 100,
	};
}

const char *
wm_nexmark_config_check(const struct wm_nexmark_config *c)
{
	uint64_t total = (uint64_t)c->person_proportion +
			 c->auction_proportion + c->bid_proportion;

	if (c->events_per_second == 0)
		return "event rate must be at least 1 event a second";
	if (total == 0)
		return "person, auction and bid proportions sum to 0";
	if (total > UINT32_MAX)
		return "person, auction and bid proportions sum beyond 2^32 - "
		       "1";
	/* An auction's seller and a bid's bidder are persons, and a bid's
	 * auction an auction, counted from the first block: without any,
	 * the base ids would be negative. */
	if (c->person_proportion == 0)
		return "person proportion must be at least 1";
	if (c->bid_proportion > 0 && c->auction_proportion == 0)
		return "auction proportion must be at least 1 when there are "
		       "bids";
	if (c->hot_auction_ratio == 0)
		return "hot auction ratio must be at least 1";
	if (c->hot_sellers_ratio == 0)
		return "hot sellers ratio must be at least 1";
	if (c->hot_bidders_ratio == 0)
		return "hot bidders ratio must be at least 1";
	if (c->in_flight_auctions == 0)
		return "in-flight auctions must be at least 1";
	if (c->active_people == 0)
		return "active people must be at least 1";
	if (c->avg_person_size > WM_NEXMARK_AVG_SIZE_MAX ||
	    c->avg_auction_size > WM_NEXMARK_AVG_SIZE_MAX ||
	    c->avg_bid_size > WM_NEXMARK_AVG_SIZE_MAX)
		return "average person, auction and bid sizes must be at most "
		       "2048 bytes";
	return NULL;
}

wm_ts_t
wm_nexmark_gen_time(const struct wm_nexmark_config *c, uint64_t n)
{
	uint64_t ms;

	/* A 64-bit division where n * 1000 fits (n below 1.8e16). */
	if (n <= UINT64_MAX / 1000)
		ms = n * 1000 / c->events_per_second;
	else
		ms = (uint64_t)((unsigned __int128)n * 1000 /
				c->events_per_second);
	return (wm_ts_t)((uint64_t)c->base_time + ms);
}

static inline uint64_t
total_of(const struct wm_nexmark_config *c)
{
	return (uint64_t)c->person_proportion + c->auction_proportion +
	       c->bid_proportion;
}

enum wm_nexmark_kind
wm_nexmark_gen_kind(const struct wm_nexmark_config *c, uint64_t id)
{
	uint64_t off = id % total_of(c);

	if (off < c->person_proportion)
		return WM_NEXMARK_PERSON;
	if (off < (uint64_t)c->person_proportion + c->auction_proportion)
		return WM_NEXMARK_AUCTION;
	return WM_NEXMARK_BID;
}

/* The newest person: epoch * P + min(offset, P - 1). */
static inline int64_t
last_person(const struct wm_nexmark_config *c, uint64_t epoch, uint64_t off)
{
	uint64_t p = c->person_proportion;

	return (int64_t)(epoch * p + (off < p ? off : p - 1));
}

/* The newest auction: the previous block's last before this block's
 * auctions, this one's while they come, this block's last after them. */
static inline int64_t
last_auction(const struct wm_nexmark_config *c, uint64_t epoch, uint64_t off)
{
	uint64_t p = c->person_proportion, a = c->auction_proportion;

	if (off < p)
		return (int64_t)(epoch * a) - 1;
	if (off >= p + a)
		return (int64_t)(epoch * a + a) - 1;
	return (int64_t)(epoch * a + (off - p));
}

int64_t
wm_nexmark_gen_last_person(const struct wm_nexmark_config *c, uint64_t id)
{
	uint64_t t = total_of(c);

	return last_person(c, id / t, id % t);
}

int64_t
wm_nexmark_gen_last_auction(const struct wm_nexmark_config *c, uint64_t id)
{
	uint64_t t = total_of(c);

	return last_auction(c, id / t, id % t);
}

/* A random active person, base 0: one of the newest active_people, or up
 * to WM_NEXMARK_ID_LEAD - 1 beyond the newest (a person to come). */
static int64_t
next_person(const struct wm_nexmark_config *c, struct rng *r, int64_t last)
{
	uint64_t people = (uint64_t)last + 1;
	uint64_t active = people < c->active_people ? people : c->active_people;

	return (int64_t)(people - active +
			 uniform(r, active + WM_NEXMARK_ID_LEAD));
}

/* A random auction in flight, base 0: from in_flight_auctions before the
 * newest to WM_NEXMARK_ID_LEAD beyond it. */
static int64_t
next_auction(const struct wm_nexmark_config *c, struct rng *r, int64_t last)
{
	int64_t min = last - (int64_t)c->in_flight_auctions;

	if (min < 0)
		min = 0;
	return min + (int64_t)uniform(r, (uint64_t)(last - min) + 1 +
						 WM_NEXMARK_ID_LEAD);
}

static void
make_person(const struct wm_nexmark_config *c, struct rng *r, int64_t last_p,
	    bool with_extra, struct wm_nexmark_person *p)
{
	const char *first =
		wm_nexmark_first_names[uniform(r, WM_NEXMARK_FIRST_NAMES)];
	const char *surname =
		wm_nexmark_last_names[uniform(r, WM_NEXMARK_LAST_NAMES)];
	size_t n1 = strlen(first), n2 = strlen(surname), n;
	char *card = p->credit_card;
	const char *s;

	p->id = last_p + WM_NEXMARK_FIRST_PERSON_ID;
	memcpy(p->name, first, n1);
	p->name[n1] = ' ';
	memcpy(p->name + n1 + 1, surname, n2 + 1);
	p->name_len = (uint16_t)(n1 + 1 + n2);

	n = str(r, 7, p->email);
	p->email[n] = '@';
	n += 1 + str(r, 5, p->email + n + 1);
	memcpy(p->email + n, ".com", sizeof(".com"));
	p->email_len = (uint16_t)(n + 4);

	for (unsigned g = 0; g < 4; g++) {
		unsigned v = (unsigned)uniform(r, 10000);

		if (g > 0)
			*card++ = ' ';
		card[0] = (char)('0' + v / 1000);
		card[1] = (char)('0' + v / 100 % 10);
		card[2] = (char)('0' + v / 10 % 10);
		card[3] = (char)('0' + v % 10);
		card += 4;
	}
	*card = '\0';

	s = wm_nexmark_cities[uniform(r, WM_NEXMARK_CITIES)];
	p->city_len = (uint16_t)strlen(s);
	memcpy(p->city, s, p->city_len + 1u);
	s = wm_nexmark_states[uniform(r, WM_NEXMARK_STATES)];
	p->state_len = (uint16_t)strlen(s);
	memcpy(p->state, s, p->state_len + 1u);

	p->extra_len = 0;
	if (with_extra)
		p->extra_len = pad(r,
				   PERSON_FIXED + p->name_len + p->email_len +
					   WM_NEXMARK_CARD_LEN + p->city_len +
					   p->state_len,
				   c->avg_person_size, p->extra);
}

static void
make_auction(const struct wm_nexmark_config *c, struct rng *r, uint64_t n,
	     int64_t last_p, int64_t last_a, bool with_extra,
	     struct wm_nexmark_auction *a)
{
	/* The mean auction lasts as long as the stream takes for
	 * in_flight_auctions auctions to start: in_flight * total / A
	 * events. */
	uint64_t k = (uint64_t)c->in_flight_auctions * total_of(c) /
		     c->auction_proportion;
	int64_t horizon;

	a->id = last_a + WM_NEXMARK_FIRST_AUCTION_ID;
	if (uniform(r, c->hot_sellers_ratio) > 0)
		a->seller =
			last_p / WM_NEXMARK_HOT_BLOCK * WM_NEXMARK_HOT_BLOCK;
	else
		a->seller = next_person(c, r, last_p);
	a->seller += WM_NEXMARK_FIRST_PERSON_ID;
	a->category = WM_NEXMARK_FIRST_CATEGORY_ID +
		      (int64_t)uniform(r, WM_NEXMARK_CATEGORIES);
	a->initial_bid = price(r);
	horizon = wm_nexmark_gen_time(c, n + k) - a->date_time;
	a->expires =
		a->date_time + 1 +
		(int64_t)uniform(r, horizon > 0 ? 2 * (uint64_t)horizon : 1);
	a->item_name_len = str(r, 20, a->item_name);
	a->description_len = str(r, 100, a->description);
	a->reserve = a->initial_bid + price(r);
	a->extra_len = 0;
	if (with_extra)
		a->extra_len = pad(r,
				   AUCTION_FIXED + a->item_name_len +
					   a->description_len,
				   c->avg_auction_size, a->extra);
}

static void
make_bid(const struct wm_nexmark_config *c, struct rng *r, int64_t last_p,
	 int64_t last_a, bool with_extra, struct wm_nexmark_bid *b)
{
	if (uniform(r, c->hot_auction_ratio) > 0)
		b->auction =
			last_a / WM_NEXMARK_HOT_BLOCK * WM_NEXMARK_HOT_BLOCK;
	else
		b->auction = next_auction(c, r, last_a);
	b->auction += WM_NEXMARK_FIRST_AUCTION_ID;
	/* The hot bidder is one past the hot seller, so that the two never
	 * coincide. */
	if (uniform(r, c->hot_bidders_ratio) > 0)
		b->bidder =
			last_p / WM_NEXMARK_HOT_BLOCK * WM_NEXMARK_HOT_BLOCK +
			1;
	else
		b->bidder = next_person(c, r, last_p);
	b->bidder += WM_NEXMARK_FIRST_PERSON_ID; /* once: BM, not NF */
	b->price = price(r);
	b->extra_len = 0;
	if (with_extra)
		b->extra_len = pad(r, BID_FIXED, c->avg_bid_size, b->extra);
}

/* Event n, with its extra or not: extra is every kind's last draw, so the
 * fields before it come out the same either way. */
static void
make_event(const struct wm_nexmark_config *c, uint64_t n, bool with_extra,
	   struct wm_nexmark_event *out)
{
	uint64_t id = c->first_event_id + n;
	uint64_t t = total_of(c);
	uint64_t epoch = id / t, off = id % t;
	wm_ts_t ts = wm_nexmark_gen_time(c, n);
	int64_t last_p = last_person(c, epoch, off);
	struct rng r;

	rng_seed(&r, c->seed, id);
	out->id = id;
	if (off < c->person_proportion) {
		out->kind = WM_NEXMARK_PERSON;
		out->person.date_time = ts;
		make_person(c, &r, last_p, with_extra, &out->person);
	} else if (off <
		   (uint64_t)c->person_proportion + c->auction_proportion) {
		out->kind = WM_NEXMARK_AUCTION;
		out->auction.date_time = ts;
		make_auction(c, &r, n, last_p, last_auction(c, epoch, off),
			     with_extra, &out->auction);
	} else {
		out->kind = WM_NEXMARK_BID;
		out->bid.date_time = ts;
		make_bid(c, &r, last_p, last_auction(c, epoch, off), with_extra,
			 &out->bid);
	}
}

void
wm_nexmark_gen_event(const struct wm_nexmark_config *c, uint64_t n,
		     struct wm_nexmark_event *out)
{
	make_event(c, n, true, out);
}

void
wm_nexmark_gen_event_without_extra(const struct wm_nexmark_config *c,
				   uint64_t n, struct wm_nexmark_event *out)
{
	make_event(c, n, false, out);
}
