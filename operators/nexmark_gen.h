/*
 * nexmark_gen.h
 *	The Nexmark benchmark's events (persons, auctions, bids) made from an
 *	event number alone: a pure, deterministic generator.
 *
 * The rules are Nexmark's generator as Apache Beam's Nexmark suite has
 * it (BM), with the numbers of its configuration (doc/architecture.md
 * section 3.4 tells where it stands). Where the Nexmark-Flink
 * fork (NF) differs, this follows BM:
 * - a bidder id is the base-0 person id plus 1000 once (NF adds 1000 a
 *   second time, so its bidders never join a person);
 * - a bid has no channel and no url (NF draws them; the JSON line
 *   writes both as null);
 * - each event has its own random source, seeded from (config seed,
 *   event id) alone, as BM seeds one per event id: event n is the same
 *   whoever computes it, in whatever order, in however many processes
 *   (NF draws from one unseeded stream per generator);
 * - the timestamp rule is one timeline for the whole stream (below);
 *   BM spaces events by a whole number of microseconds, NF by a double.
 * The proportions are settings, as in NF (BM has them as constants); the
 * id rules use the configured ones.
 *
 * Event number n (0, 1, 2, ...) has
 *	id = first_event_id + n	(no reordering: outOfOrderGroupSize 1)
 *	ts = base_time + floor(n * 1000 / events_per_second)	(ms)
 * computed in integers (128 bits where n * 1000 does not fit 64), so
 * that event 10^10 at 7 events/s is exactly where the rule puts it, with
 * no drift from a rounded per-event step. There is one timeline for the
 * whole stream, not one per partition: a source that later deals events
 * to partitions by id hands every partition an ascending subsequence, so
 * each partition's events ascend and the ascending watermark strategy
 * holds on every partition.
 *
 * Draw order, the random numbers an event takes in turn (each field
 * below is fed by the draws named for it, no others; `[x]` only when the
 * draw before chose the cold side):
 *	person	first name, last name, email (str(7), str(5)), card (4
 *		groups), city, state, extra (length, letters)
 *	auction	hot seller?, [seller], category, initial bid, expires,
 *		item name str(20), description str(100), reserve, extra
 *	bid	hot auction?, [auction], hot bidder?, [bidder], price, extra
 * A choice among k is a 64-bit draw (Lemire's multiply, redrawn on the
 * rare biased product: exactly uniform). A str() takes its length so,
 * then a 16-bit lane a character, uniform over 13 * 26 outcomes in the
 * same way (a space for 26 of them, each letter for 12); lanes come four
 * to a 64-bit draw. Extra, the filler no query reads, is made on the path
 * every bid takes, where speed counts more: eight letters a 64-bit draw,
 * each byte b giving 'a' + (b * 26 >> 8), so that 22 letters come with
 * probability 10/256 and 4 (g, m, t, z) with 9/256.
 *
 * Pure: no allocation, no I/O, no global state; safe from any thread.
 */
#ifndef WM_OPERATORS_NEXMARK_GEN_H
#define WM_OPERATORS_NEXMARK_GEN_H

#include <stdint.h>

#include "base/time.h"

/* The ids' and categories' first values (Nexmark's GeneratorConfig). */
#define WM_NEXMARK_FIRST_PERSON_ID 1000
#define WM_NEXMARK_FIRST_AUCTION_ID 1000
#define WM_NEXMARK_FIRST_CATEGORY_ID 10
#define WM_NEXMARK_CATEGORIES 5
/* How far past the newest person or auction a random pick may land. */
#define WM_NEXMARK_ID_LEAD 10
/* The block whose first id is the hot one (the constant ratio 100, not
 * the configured probability ratios). */
#define WM_NEXMARK_HOT_BLOCK 100

/* The largest average size of a kind that the config check accepts: the
 * extra buffers are sized from it. NF's defaults are 200/500/100. */
#define WM_NEXMARK_AVG_SIZE_MAX 2048u

/*
 * pad(cur, avg) is at most d + round(d/5) - 1 bytes, d = avg - cur <= avg
 * (length d - delta + uniform[0, 2 delta), delta = round(d/5), which is
 * (2d + 5) / 10 in integers: d/5 never ends in .5). Its buffer holds
 * that, a NUL and up to 7 bytes the eight-letters-a-draw writer may put
 * past the end.
 */
#define WM_NEXMARK_EXTRA_MAX                                                   \
	(WM_NEXMARK_AVG_SIZE_MAX + (2 * WM_NEXMARK_AVG_SIZE_MAX + 5) / 10)
#define WM_NEXMARK_EXTRA_BUF (WM_NEXMARK_EXTRA_MAX + 8)

/* str(max) is at most max - 1 bytes; the name is a first name of at most
 * 6, a space and a last name of at most 7; the email at most str(7) "@"
 * str(5) ".com", 6 + 1 + 4 + 4; a card 4 groups of 4 digits and 3
 * spaces; the longest city "San Francisco". Each buffer adds the NUL. */
#define WM_NEXMARK_NAME_BUF 15
#define WM_NEXMARK_EMAIL_BUF 16
#define WM_NEXMARK_CARD_LEN 19
#define WM_NEXMARK_CITY_BUF 14
#define WM_NEXMARK_STATE_BUF 3
#define WM_NEXMARK_ITEM_BUF 20
#define WM_NEXMARK_DESC_BUF 100

/* The names, cities and states persons are made of (Nexmark's tables):
 * a name is a first name, a space and a last name. */
#define WM_NEXMARK_FIRST_NAMES 11
#define WM_NEXMARK_LAST_NAMES 9
#define WM_NEXMARK_CITIES 10
#define WM_NEXMARK_STATES 6
extern const char *const wm_nexmark_first_names[WM_NEXMARK_FIRST_NAMES];
extern const char *const wm_nexmark_last_names[WM_NEXMARK_LAST_NAMES];
extern const char *const wm_nexmark_cities[WM_NEXMARK_CITIES];
extern const char *const wm_nexmark_states[WM_NEXMARK_STATES];

/* Values as Nexmark's event_type column has them. */
enum wm_nexmark_kind {
	WM_NEXMARK_PERSON = 0,
	WM_NEXMARK_AUCTION = 1,
	WM_NEXMARK_BID = 2,
};

/*
 * The stream's settings. Fill with wm_nexmark_config_defaults(), change
 * what the user set, then wm_nexmark_config_check() before any event.
 */
struct wm_nexmark_config {
	uint64_t seed;
	uint64_t first_event_id; /* id of event number 0; default 0 */
	wm_ts_t base_time;	 /* epoch ms of event 0; default 0 */
	/* events a second over the whole stream: 10 000 (firstEventRate) */
	uint64_t events_per_second;
	uint32_t person_proportion;  /* 1 */
	uint32_t auction_proportion; /* 3 */
	uint32_t bid_proportion;     /* 46 */
	/* A pick is hot with probability 1 - 1/ratio: 2, 4, 4. */
	uint32_t hot_auction_ratio;
	uint32_t hot_sellers_ratio;
	uint32_t hot_bidders_ratio;
	uint32_t in_flight_auctions; /* 100 */
	uint32_t active_people;	     /* 1000 */
	/* Bytes an event is padded to on average: 200, 500, 100. */
	uint32_t avg_person_size;
	uint32_t avg_auction_size;
	uint32_t avg_bid_size;
};

/* Every string is NUL-terminated, its length beside it. */
struct wm_nexmark_person {
	int64_t id;
	wm_ts_t date_time;
	uint16_t name_len, email_len, city_len, state_len, extra_len;
	char name[WM_NEXMARK_NAME_BUF];
	char email[WM_NEXMARK_EMAIL_BUF];
	char credit_card[WM_NEXMARK_CARD_LEN + 1];
	char city[WM_NEXMARK_CITY_BUF];
	char state[WM_NEXMARK_STATE_BUF];
	char extra[WM_NEXMARK_EXTRA_BUF];
};

struct wm_nexmark_auction {
	int64_t id;
	int64_t initial_bid; /* cents */
	int64_t reserve;
	wm_ts_t date_time;
	wm_ts_t expires;
	int64_t seller;
	int64_t category;
	uint16_t item_name_len, description_len, extra_len;
	char item_name[WM_NEXMARK_ITEM_BUF];
	char description[WM_NEXMARK_DESC_BUF];
	char extra[WM_NEXMARK_EXTRA_BUF];
};

struct wm_nexmark_bid {
	int64_t auction;
	int64_t bidder;
	int64_t price; /* cents, 100 to 10^8 */
	wm_ts_t date_time;
	uint16_t extra_len;
	char extra[WM_NEXMARK_EXTRA_BUF];
};

/* One event: `kind` says which member is filled. */
struct wm_nexmark_event {
	enum wm_nexmark_kind kind;
	uint64_t id;
	union {
		struct wm_nexmark_person person;
		struct wm_nexmark_auction auction;
		struct wm_nexmark_bid bid;
	};
};

/* The defaults above, seed 0. */
void wm_nexmark_config_defaults(struct wm_nexmark_config *c);

/* NULL when `c` can make events; else what is wrong, a static text
 * naming the setting ("event rate must be at least 1"). */
const char *wm_nexmark_config_check(const struct wm_nexmark_config *c);

/* The timestamp of event number n (the rule above). Wraps (as Java
 * would) only where base_time + n * 1000 / rate leaves int64. */
wm_ts_t wm_nexmark_gen_time(const struct wm_nexmark_config *c, uint64_t n);

/* The kind of the event with id `id`. */
enum wm_nexmark_kind wm_nexmark_gen_kind(const struct wm_nexmark_config *c,
					 uint64_t id);

/*
 * The base-0 ids the rules count from, of the event with id `id`: the
 * newest person (counting this event if it is one), the newest auction
 * (likewise; -1 before the first). Exposed for the tests and for
 * readers that bound what a bid may refer to.
 */
int64_t wm_nexmark_gen_last_person(const struct wm_nexmark_config *c,
				   uint64_t id);
int64_t wm_nexmark_gen_last_auction(const struct wm_nexmark_config *c,
				    uint64_t id);

/*
 * Event number n of the stream `c` (checked) describes, into *out. A pure
 * function of (*c, n): the same event for the same arguments, in any
 * order, in any process. No allocation; fills only the member of its
 * kind.
 */
void wm_nexmark_gen_event(const struct wm_nexmark_config *c, uint64_t n,
			  struct wm_nexmark_event *out);

/*
 * The same event without its extra (extra_len 0, extra not written): for
 * readers that take numbers only (operators/nexmark_source.h), at a
 * fraction of the cost, as extra is the filler every event makes last.
 * Every other field is wm_nexmark_gen_event()'s: extra is each kind's
 * last draw, so nothing before it changes.
 */
void wm_nexmark_gen_event_without_extra(const struct wm_nexmark_config *c,
					uint64_t n,
					struct wm_nexmark_event *out);

#endif /* WM_OPERATORS_NEXMARK_GEN_H */
