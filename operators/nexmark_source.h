/*
 * nexmark_source.h
 *	One source subtask's share of a Nexmark stream (nexmark_gen.h) as
 *	narrow records: the events of one kind, each a record whose key and
 *	value are two of the event's numbers.
 *
 * The stream is a topic of `partitions` partitions: event number n is in
 * partition n % partitions, as a producer without keys deals them out in
 * turn, and the subtask reads the partitions it owns (wm_source_gen_
 * partitions_of(), Flink's split assignment). Every event is due at its
 * own time: processing time (ts - base_time) after the start, so that
 * event time and processing time run together as in a generated source,
 * and the job's speed paces the stream. As the stream's timestamps never
 * fall, the subtask's records come in event-number order, and each
 * partition ascends.
 *
 * Only events of `kind` become records (Nexmark's views: `bid` is the
 * stream's events of type 2); the others are passed over, not counted.
 * A record carries the event's timestamp, `key` and `value` as the
 * fields say, and its partition; made without the event's extra
 * (wm_nexmark_gen_event_without_extra()), which no number depends on.
 *
 * The stream ends after `events` events (of every kind): each partition
 * of the subtask finishes at the time of the stream's last event, once
 * its records are out, as a bounded topic's partitions do at their end
 * offsets, or at end_ms if that is later. UINT64_MAX events: it never
 * ends.
 *
 * Checkpoints keep the next event number and the per-partition counts;
 * a restored source goes on from there, the events due meanwhile due at
 * once. No partition can be paused on its own (the source's partitions
 * advance together, event by event), so watermark alignment is refused
 * for it when the topology is read.
 */
#ifndef WM_OPERATORS_NEXMARK_SOURCE_H
#define WM_OPERATORS_NEXMARK_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "operators/nexmark_gen.h"
#include "operators/record_source.h"

/* What of an event a record's key or value holds. */
enum wm_nexmark_field {
	WM_NEXMARK_FIELD_ONE, /* the number 1: a record to count */
	WM_NEXMARK_FIELD_ID,  /* person.id, auction.id */
	WM_NEXMARK_FIELD_AUCTION,
	WM_NEXMARK_FIELD_BIDDER,
	WM_NEXMARK_FIELD_PRICE,
	WM_NEXMARK_FIELD_SELLER,
	WM_NEXMARK_FIELD_CATEGORY,
	WM_NEXMARK_FIELD_INITIAL_BID,
	WM_NEXMARK_FIELD_RESERVE,
	WM_NEXMARK_FIELD_EXPIRES,
	WM_NEXMARK_FIELD_DATE_TIME,
	/* Not a key a user names: the event's id in the stream
	 * (first_event_id + its number n), the value of a record for a map,
	 * which makes the event's row again from it (runtime/source/
	 * map_rows.h). No kind lists it, so no name parses to it. */
	WM_NEXMARK_FIELD_EVENT_ID,
};

/* The field of `kind` named `name` as the benchmark's DDL spells it
 * ("auction", "initialBid", "dateTime"; "1" for the number 1): 0, or -1
 * if that kind has no such number. */
int wm_nexmark_field_parse(const char *name, enum wm_nexmark_kind kind,
			   enum wm_nexmark_field *out);

/* The DDL's name of a field ("1" for WM_NEXMARK_FIELD_ONE). */
const char *wm_nexmark_field_name(enum wm_nexmark_field f);

/* The names of the fields of `kind`, comma-separated, for messages,
 * into buf (len bytes, NUL-terminated when len > 0, cut if short), as
 * snprintf() does: the length the whole list needs. */
size_t wm_nexmark_fields_of(enum wm_nexmark_kind kind, char *buf, size_t len);

/* Field f of event e, which must have it (wm_nexmark_field_parse()). */
int64_t wm_nexmark_field_value(const struct wm_nexmark_event *e,
			       enum wm_nexmark_field f);

struct wm_nexmark_source_conf {
	struct wm_nexmark_config gen; /* checked (wm_nexmark_config_check) */
	uint64_t events;	      /* of every kind; UINT64_MAX: no end */
	uint32_t partitions;	      /* >= 1 */
	/* Processing time (ms) before which the partitions do not end,
	 * even past the stream's last event: the end of a job bounded in
	 * processing time, so that windows of processing time still close
	 * after the last bid, as on a topic that stays open. 0: they end
	 * with the stream. */
	int64_t end_ms;
	enum wm_nexmark_kind kind;	  /* the events that become records */
	enum wm_nexmark_field key, value; /* fields of `kind` */
};

struct wm_nexmark_source;

/*
 * The subtask's source over the `n_owned` partitions at `owned`, in
 * ascending order, each below conf->partitions (the caller's memory may
 * go after the call). NULL if memory is short or n_owned is 0.
 */
struct wm_nexmark_source *
wm_nexmark_source_new(const struct wm_nexmark_source_conf *conf,
		      const uint32_t *owned, uint32_t n_owned);

/* As the runtime sees it; its free() frees the source. */
struct wm_record_source *wm_nexmark_source_base(struct wm_nexmark_source *s);

#endif /* WM_OPERATORS_NEXMARK_SOURCE_H */
