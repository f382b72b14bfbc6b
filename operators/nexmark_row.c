/*
 * nexmark_row.c
 *	A Nexmark event as a row of its view's columns (nexmark_row.h).
 */
#include "config.h"

#include "base/countof.h"
#include "operators/nexmark_row.h"

static const struct wm_expr_field person_columns[] = {
	{"id", WM_EXPR_BIGINT, 0, 0},
	{"name", WM_EXPR_STRING, 0, 0},
	{"emailAddress", WM_EXPR_STRING, 0, 0},
	{"creditCard", WM_EXPR_STRING, 0, 0},
	{"city", WM_EXPR_STRING, 0, 0},
	{"state", WM_EXPR_STRING, 0, 0},
	{"dateTime", WM_EXPR_TIMESTAMP, 0, 0},
	{"extra", WM_EXPR_STRING, 0, 0},
};

static const struct wm_expr_field auction_columns[] = {
	{"id", WM_EXPR_BIGINT, 0, 0},
	{"itemName", WM_EXPR_STRING, 0, 0},
	{"description", WM_EXPR_STRING, 0, 0},
	{"initialBid", WM_EXPR_BIGINT, 0, 0},
	{"reserve", WM_EXPR_BIGINT, 0, 0},
	{"dateTime", WM_EXPR_TIMESTAMP, 0, 0},
	{"expires", WM_EXPR_TIMESTAMP, 0, 0},
	{"seller", WM_EXPR_BIGINT, 0, 0},
	{"category", WM_EXPR_BIGINT, 0, 0},
	{"extra", WM_EXPR_STRING, 0, 0},
};

static const struct wm_expr_field bid_columns[] = {
	{"auction", WM_EXPR_BIGINT, 0, 0},
	{"bidder", WM_EXPR_BIGINT, 0, 0},
	{"price", WM_EXPR_BIGINT, 0, 0},
	{"dateTime", WM_EXPR_TIMESTAMP, 0, 0},
	{"extra", WM_EXPR_STRING, 0, 0},
};

_Static_assert(N_ELEMS(auction_columns) == WM_NEXMARK_ROW_MAX &&
		       N_ELEMS(person_columns) <= WM_NEXMARK_ROW_MAX &&
		       N_ELEMS(bid_columns) <= WM_NEXMARK_ROW_MAX,
	       "WM_NEXMARK_ROW_MAX is the widest view's width");

const struct wm_expr_field *
wm_nexmark_row_schema(enum wm_nexmark_kind kind, size_t *n)
{
	switch (kind) {
	case WM_NEXMARK_PERSON:
		*n = N_ELEMS(person_columns);
		return person_columns;
	case WM_NEXMARK_AUCTION:
		*n = N_ELEMS(auction_columns);
		return auction_columns;
	case WM_NEXMARK_BID:
		break;
	}
	*n = N_ELEMS(bid_columns);
	return bid_columns;
}

static struct wm_expr_value
number(int64_t v)
{
	return (struct wm_expr_value){.i = v};
}

static struct wm_expr_value
text(const char *p, uint32_t len)
{
	return (struct wm_expr_value){.s = {p, len}};
}

/* The values in the order of the tables above: a column added there
 * needs its value here, which the unit test checks column by column
 * against the event through the language itself. */
void
wm_nexmark_row(const struct wm_nexmark_event *e, struct wm_expr_value *row)
{
	const struct wm_nexmark_person *p = &e->person;
	const struct wm_nexmark_auction *a = &e->auction;
	const struct wm_nexmark_bid *b = &e->bid;

	switch (e->kind) {
	case WM_NEXMARK_PERSON:
		row[0] = number(p->id);
		row[1] = text(p->name, p->name_len);
		row[2] = text(p->email, p->email_len);
		row[3] = text(p->credit_card, WM_NEXMARK_CARD_LEN);
		row[4] = text(p->city, p->city_len);
		row[5] = text(p->state, p->state_len);
		row[6] = number(p->date_time);
		row[7] = text(p->extra, p->extra_len);
		return;
	case WM_NEXMARK_AUCTION:
		row[0] = number(a->id);
		row[1] = text(a->item_name, a->item_name_len);
		row[2] = text(a->description, a->description_len);
		row[3] = number(a->initial_bid);
		row[4] = number(a->reserve);
		row[5] = number(a->date_time);
		row[6] = number(a->expires);
		row[7] = number(a->seller);
		row[8] = number(a->category);
		row[9] = text(a->extra, a->extra_len);
		return;
	case WM_NEXMARK_BID:
		row[0] = number(b->auction);
		row[1] = number(b->bidder);
		row[2] = number(b->price);
		row[3] = number(b->date_time);
		row[4] = text(b->extra, b->extra_len);
		return;
	}
}
