/*
 * nexmark_row.h
 *	A Nexmark event as a row for the expression language (expr.h): the
 *	columns of each kind's view, named and typed as the benchmark's DDL
 *	has them, and an event's values in that order.
 *
 * The columns, by kind (Nexmark-Flink's ddl_views.sql; VARCHAR is
 * STRING here):
 *
 *   person   id BIGINT, name, emailAddress, creditCard, city, state
 *            STRING, dateTime TIMESTAMP(3), extra STRING
 *   auction  id BIGINT, itemName, description STRING, initialBid,
 *            reserve BIGINT, dateTime, expires TIMESTAMP(3), seller,
 *            category BIGINT, extra STRING
 *   bid      auction, bidder, price BIGINT, dateTime TIMESTAMP(3),
 *            extra STRING
 *
 * A bid has no channel and no url: the generator follows Beam's bid,
 * which has neither (nexmark_gen.h), and the recording the Flink side
 * reads writes them as null. The expression language has no NULL, so
 * the two columns are left out of the view rather than made up: a
 * `where` or `select` naming them is refused as naming an unknown field,
 * the list of the bid's fields in the message.
 *
 * Pure: static tables, no allocation; safe from any thread.
 */
#ifndef WM_OPERATORS_NEXMARK_ROW_H
#define WM_OPERATORS_NEXMARK_ROW_H

#include <stddef.h>

#include "operators/expr.h"
#include "operators/nexmark_gen.h"

/* The most columns of any kind (an auction's). */
#define WM_NEXMARK_ROW_MAX 10

/* The columns of `kind`'s view, in order (*n of them). */
const struct wm_expr_field *wm_nexmark_row_schema(enum wm_nexmark_kind kind,
						  size_t *n);

/*
 * Event e as a row of its kind's schema, into row[0..n): numbers and
 * times by value, strings pointing into e (valid while e is, and
 * unchanged). Fills wm_nexmark_row_schema(e->kind)'s count of values.
 */
void wm_nexmark_row(const struct wm_nexmark_event *e,
		    struct wm_expr_value *row);

#endif /* WM_OPERATORS_NEXMARK_ROW_H */
