/*
 * nexmark_json.h
 *	A Nexmark event as one line of the benchmark's Kafka JSON: the
 *	layout of Nexmark-Flink's table (ddl_kafka.sql), which Flink's JSON
 *	format reads back.
 *
 *	{"event_type":2,"person":null,"auction":null,"bid":{"auction":1000,
 *	 "bidder":1001,"price":326,"channel":null,"url":null,
 *	 "dateTime":"2015-07-15 00:00:00.000","extra":"orofu..."},
 *	 "partition":3}
 *
 * event_type 0, 1, 2 is person, auction, bid, and the two members of the
 * other kinds are null. Member names are the DDL's ROW fields as it
 * spells them (emailAddress, creditCard, itemName, initialBid, dateTime).
 * A bid's channel and url are null: the generator follows Beam's, which
 * has neither (operators/nexmark_gen.h). Timestamps are the text Flink's
 * JSON format reads for a TIMESTAMP(3) by default ("SQL" standard):
 * "yyyy-MM-dd HH:mm:ss.SSS", in UTC. "partition" is the caller's, for the
 * reader that wants to know where a line went; Flink's JSON format skips
 * members its table does not declare.
 *
 * Written by hand, as runtime/io/sink.c writes its lines: through
 * jansson a line costs several times as much (sink.c's note), and a
 * source writes one per event. Strings are escaped (lib/json_escape.h),
 * although the generator makes only letters, digits, spaces, '@' and '.'.
 */
#ifndef WM_RUNTIME_IO_NEXMARK_JSON_H
#define WM_RUNTIME_IO_NEXMARK_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "base/time.h"
#include "lib/json_escape.h"
#include "operators/nexmark_gen.h"

/*
 * The longest line: an auction's (its strings are the longest) with every
 * byte of its three strings escaped to six, plus at most 512 bytes of
 * names, punctuation, seven numbers of 20 characters, two timestamps of
 * 25 and the partition.
 */
#define WM_NEXMARK_JSON_MAX                                                    \
	(WM_JSON_ESCAPE_MAX(WM_NEXMARK_ITEM_BUF + WM_NEXMARK_DESC_BUF +        \
			    WM_NEXMARK_EXTRA_BUF) +                            \
	 512)

/* "yyyy-MM-dd HH:mm:ss.SSS": 23 bytes. */
#define WM_NEXMARK_JSON_TIME_LEN 23

/* The earliest and latest timestamps written as they are, 1970-01-01
 * 00:00:00.000 and 9999-12-31 23:59:59.999 UTC; one outside is written as
 * the nearer of the two (four-digit years, as the format has them). */
#define WM_NEXMARK_JSON_TIME_MIN ((wm_ts_t)0)
#define WM_NEXMARK_JSON_TIME_MAX ((wm_ts_t)253402300799999)

/* `ms` (epoch milliseconds, UTC) as "yyyy-MM-dd HH:mm:ss.SSS" at p, not
 * NUL-terminated; returns the end (p + WM_NEXMARK_JSON_TIME_LEN). */
char *wm_nexmark_json_time(char *p, wm_ts_t ms);

/*
 * Event `ev` as one JSON line ending in '\n', with "partition":partition,
 * into buf; returns its length, or 0 when cap is below WM_NEXMARK_JSON_MAX
 * or the kind is none of the three (a caller's bug). Not NUL-terminated. A string's length beyond its
 * buffer (a caller's bug) is cut to the buffer.
 */
size_t wm_nexmark_json_line(char *buf, size_t cap,
			    const struct wm_nexmark_event *ev,
			    uint32_t partition);

#endif /* WM_RUNTIME_IO_NEXMARK_JSON_H */
