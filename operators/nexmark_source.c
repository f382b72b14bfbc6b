/*
 * nexmark_source.c
 *	A subtask's share of a Nexmark stream as narrow records
 *	(nexmark_source.h).
 *
 * The cursor walks the event numbers of the owned partitions in order:
 * block b of `partitions` numbers, and in it the owned residues in
 * ascending order, so number b * partitions + owned[i]. It always rests
 * on the next event of the wanted kind, or past the stream's end: the
 * events between are passed over as it moves (at most the stream's
 * proportions' total a match, 50 by default, for the rarest kind; a
 * check of the id's kind each, no generation).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/container_of.h"
#include "lib/snap.h"
#include "operators/nexmark_source.h"

#define NEXMARK_SNAP_TAG WM_SNAP_TAG('N', 'X', 'M', 'K')
#define NEXMARK_SNAP_VERSION 1

struct wm_nexmark_source {
	struct wm_record_source base;
	struct wm_nexmark_source_conf conf;
	uint32_t n_owned;
	uint32_t *owned;   /* ascending partition ids */
	uint64_t *emitted; /* records, by index into owned */
	/* The cursor: event number block * partitions + owned[slot]. */
	uint64_t block;
	uint32_t slot;
	bool finished;
	struct wm_nexmark_event event; /* scratch of the record being made */
};

/* ---- fields ---- */

/* Every kind's bit in a field's `kinds`. */
#define ALL_KINDS                                                              \
	(1u << WM_NEXMARK_PERSON | 1u << WM_NEXMARK_AUCTION |                  \
	 1u << WM_NEXMARK_BID)

static const struct {
	const char *name;
	enum wm_nexmark_field field;
	unsigned kinds; /* bit per enum wm_nexmark_kind */
} fields[] = {
	{"1", WM_NEXMARK_FIELD_ONE, ALL_KINDS},
	{"id", WM_NEXMARK_FIELD_ID,
	 1 << WM_NEXMARK_PERSON | 1 << WM_NEXMARK_AUCTION},
	{"auction", WM_NEXMARK_FIELD_AUCTION, 1 << WM_NEXMARK_BID},
	{"bidder", WM_NEXMARK_FIELD_BIDDER, 1 << WM_NEXMARK_BID},
	{"price", WM_NEXMARK_FIELD_PRICE, 1 << WM_NEXMARK_BID},
	{"seller", WM_NEXMARK_FIELD_SELLER, 1 << WM_NEXMARK_AUCTION},
	{"category", WM_NEXMARK_FIELD_CATEGORY, 1 << WM_NEXMARK_AUCTION},
	{"initialBid", WM_NEXMARK_FIELD_INITIAL_BID, 1 << WM_NEXMARK_AUCTION},
	{"reserve", WM_NEXMARK_FIELD_RESERVE, 1 << WM_NEXMARK_AUCTION},
	{"expires", WM_NEXMARK_FIELD_EXPIRES, 1 << WM_NEXMARK_AUCTION},
	{"dateTime", WM_NEXMARK_FIELD_DATE_TIME, ALL_KINDS},
	{"(event id)", WM_NEXMARK_FIELD_EVENT_ID, 0},
};

int
wm_nexmark_field_parse(const char *name, enum wm_nexmark_kind kind,
		       enum wm_nexmark_field *out)
{
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (strcmp(name, fields[i].name) == 0 &&
		    (fields[i].kinds & 1u << kind) != 0) {
			*out = fields[i].field;
			return 0;
		}
	return -1;
}

const char *
wm_nexmark_field_name(enum wm_nexmark_field f)
{
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i].field == f)
			return fields[i].name;
	return "?";
}

size_t
wm_nexmark_fields_of(enum wm_nexmark_kind kind, char *buf, size_t len)
{
	size_t at = 0;

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if ((fields[i].kinds & 1u << kind) == 0)
			continue;
		at += (size_t)snprintf(buf + (at < len ? at : len),
				       at < len ? len - at : 0, "%s%s",
				       at > 0 ? ", " : "", fields[i].name);
	}
	return at;
}

int64_t
wm_nexmark_field_value(const struct wm_nexmark_event *e,
		       enum wm_nexmark_field f)
{
	switch (f) {
	case WM_NEXMARK_FIELD_ONE:
		return 1;
	case WM_NEXMARK_FIELD_ID:
		return e->kind == WM_NEXMARK_PERSON ? e->person.id
						    : e->auction.id;
	case WM_NEXMARK_FIELD_AUCTION:
		return e->bid.auction;
	case WM_NEXMARK_FIELD_BIDDER:
		return e->bid.bidder;
	case WM_NEXMARK_FIELD_PRICE:
		return e->bid.price;
	case WM_NEXMARK_FIELD_SELLER:
		return e->auction.seller;
	case WM_NEXMARK_FIELD_CATEGORY:
		return e->auction.category;
	case WM_NEXMARK_FIELD_INITIAL_BID:
		return e->auction.initial_bid;
	case WM_NEXMARK_FIELD_RESERVE:
		return e->auction.reserve;
	case WM_NEXMARK_FIELD_EXPIRES:
		return e->auction.expires;
	case WM_NEXMARK_FIELD_DATE_TIME:
		return e->kind == WM_NEXMARK_PERSON    ? e->person.date_time
		       : e->kind == WM_NEXMARK_AUCTION ? e->auction.date_time
						       : e->bid.date_time;
	case WM_NEXMARK_FIELD_EVENT_ID:
		return (int64_t)e->id;
	}
	return 0;
}

/* ---- the cursor ---- */

static uint64_t
cursor(const struct wm_nexmark_source *s)
{
	return s->block * s->conf.partitions + s->owned[s->slot];
}

static void
step(struct wm_nexmark_source *s)
{
	if (++s->slot == s->n_owned) {
		s->slot = 0;
		s->block++;
	}
}

/* Move the cursor to the next event of the wanted kind at or after it,
 * or past the end. */
static void
seek_match(struct wm_nexmark_source *s)
{
	const struct wm_nexmark_config *g = &s->conf.gen;

	while (cursor(s) < s->conf.events &&
	       wm_nexmark_gen_kind(g, g->first_event_id + cursor(s)) !=
		       s->conf.kind)
		step(s);
}

/* When event n is due: its event time's distance from the stream's base,
 * as processing time; far in the future (never INT64_MAX, which says
 * "never" to the runtime) where it would overflow. */
static int64_t
due_ns(const struct wm_nexmark_source *s, uint64_t n)
{
	int64_t ms =
		wm_nexmark_gen_time(&s->conf.gen, n) - s->conf.gen.base_time;

	if (ms > (INT64_MAX - 1) / 1000000)
		return INT64_MAX - 1;
	return ms * 1000000;
}

/* When the partitions end, past the stream's last event: then, or at
 * end_ms if that is later. */
static int64_t
end_ns(const struct wm_nexmark_source *s)
{
	int64_t last = due_ns(s, s->conf.events - 1);

	if (s->conf.end_ms > (INT64_MAX - 1) / 1000000)
		return INT64_MAX - 1;
	return last > s->conf.end_ms * 1000000 ? last
					       : s->conf.end_ms * 1000000;
}

/* ---- as a wm_record_source ---- */

static struct wm_nexmark_source *
of(struct wm_record_source *src)
{
	return wm_container_of(src, struct wm_nexmark_source, base);
}

static const struct wm_nexmark_source *
of_const(const struct wm_record_source *src)
{
	return (const struct wm_nexmark_source
			*)(const void *)((const char *)src -
					 offsetof(struct wm_nexmark_source,
						  base));
}

static int64_t
src_next_due_ns(const struct wm_record_source *src)
{
	const struct wm_nexmark_source *s = of_const(src);

	if (s->finished)
		return INT64_MAX;
	if (cursor(s) < s->conf.events)
		return due_ns(s, cursor(s));
	if (s->conf.events == UINT64_MAX)
		return INT64_MAX;
	return end_ns(s);
}

static int
src_next(struct wm_record_source *src, int64_t now_ns, struct wm_record *out)
{
	struct wm_nexmark_source *s = of(src);
	uint64_t n = cursor(s);

	if (s->finished)
		return 0;
	if (n >= s->conf.events) {
		/* Past the last record: the partitions end with the stream,
		 * at its last event's time, or at end_ms. */
		if (s->conf.events != UINT64_MAX && end_ns(s) <= now_ns)
			s->finished = true;
		return 0;
	}
	if (due_ns(s, n) > now_ns)
		return 0;
	wm_nexmark_gen_event_without_extra(&s->conf.gen, n, &s->event);
	*out = (struct wm_record){
		.ts = wm_nexmark_field_value(&s->event,
					     WM_NEXMARK_FIELD_DATE_TIME),
		.key = wm_nexmark_field_value(&s->event, s->conf.key),
		.value = wm_nexmark_field_value(&s->event, s->conf.value),
		.partition = s->owned[s->slot],
	};
	s->emitted[s->slot]++;
	step(s);
	seek_match(s);
	return 1;
}

static uint32_t
src_next_run(struct wm_record_source *src, int64_t now_ns,
	     struct wm_record *out, int64_t *due, uint32_t cap)
{
	uint32_t k = 0;

	while (k < cap) {
		/* Asked only for a caller that wants it: not free per record. */
		int64_t d = due != NULL ? src_next_due_ns(src) : 0;

		if (src_next(src, now_ns, &out[k]) == 0)
			break;
		if (due != NULL)
			due[k] = d;
		k++;
	}
	return k;
}

static bool
src_finished(const struct wm_record_source *src)
{
	return of_const(src)->finished;
}

static uint32_t
src_n_partitions(const struct wm_record_source *src)
{
	return of_const(src)->n_owned;
}

static uint32_t
src_n_finished(const struct wm_record_source *src)
{
	const struct wm_nexmark_source *s = of_const(src);

	return s->finished ? s->n_owned : 0;
}

static uint32_t
src_finished_partition(const struct wm_record_source *src, uint32_t k)
{
	(void)src;
	return k; /* all at once, in the order they are owned */
}

static void
src_partition_stats(const struct wm_record_source *src, uint32_t i,
		    int64_t now_ns, struct wm_source_partition_stats *st)
{
	const struct wm_nexmark_source *s = of_const(src);

	(void)now_ns;
	*st = (struct wm_source_partition_stats){
		.partition = s->owned[i],
		.emitted = s->emitted[i],
		.finished = s->finished,
	};
}

static void
src_free(struct wm_record_source *src)
{
	struct wm_nexmark_source *s = of(src);

	free(s->owned);
	free(s->emitted);
	free(s);
}

/* The configuration the snapshot was taken under, then the position. */
static void
src_snapshot(const struct wm_record_source *src, struct wm_snap_writer *w)
{
	const struct wm_nexmark_source *s = of_const(src);

	wm_snap_begin(w, NEXMARK_SNAP_TAG, NEXMARK_SNAP_VERSION);
	wm_snap_put_u64(w, s->conf.gen.seed);
	wm_snap_put_u64(w, s->conf.events);
	wm_snap_put_u32(w, s->conf.partitions);
	wm_snap_put_u32(w, s->n_owned);
	for (uint32_t i = 0; i < s->n_owned; i++) {
		wm_snap_put_u32(w, s->owned[i]);
		wm_snap_put_u64(w, s->emitted[i]);
	}
	wm_snap_put_u64(w, s->block);
	wm_snap_put_u32(w, s->slot);
	wm_snap_put_bool(w, s->finished);
	wm_snap_end(w);
}

static int
src_restore(struct wm_record_source *src, struct wm_snap_reader *r)
{
	struct wm_nexmark_source *s = of(src);
	uint64_t block;
	uint32_t slot;

	if (wm_snap_enter(r, NEXMARK_SNAP_TAG, NEXMARK_SNAP_VERSION) != 0)
		return wm_snap_reader_error(r);
	/* Another stream or another split of it is not this source's. */
	if (wm_snap_get_u64(r) != s->conf.gen.seed ||
	    wm_snap_get_u64(r) != s->conf.events ||
	    wm_snap_get_u32(r) != s->conf.partitions ||
	    wm_snap_get_u32(r) != s->n_owned)
		return wm_snap_reader_fail(r, -EINVAL);
	for (uint32_t i = 0; i < s->n_owned; i++) {
		if (wm_snap_get_u32(r) != s->owned[i])
			return wm_snap_reader_fail(r, -EINVAL);
		s->emitted[i] = wm_snap_get_u64(r);
	}
	block = wm_snap_get_u64(r);
	slot = wm_snap_get_u32(r);
	s->finished = wm_snap_get_bool(r);
	if (wm_snap_reader_error(r) != 0)
		return wm_snap_reader_error(r);
	if (slot >= s->n_owned)
		return wm_snap_reader_fail(r, -EINVAL);
	s->block = block;
	s->slot = slot;
	seek_match(s);
	return wm_snap_leave(r);
}

static const struct wm_record_source_ops nexmark_ops = {
	.next = src_next,
	.next_due_ns = src_next_due_ns,
	.next_run = src_next_run,
	.finished = src_finished,
	.n_partitions = src_n_partitions,
	.n_finished = src_n_finished,
	.finished_partition = src_finished_partition,
	.partition_stats = src_partition_stats,
	.free = src_free,
	.snapshot = src_snapshot,
	.restore = src_restore,
};

struct wm_nexmark_source *
wm_nexmark_source_new(const struct wm_nexmark_source_conf *conf,
		      const uint32_t *owned, uint32_t n_owned)
{
	struct wm_nexmark_source *s;

	if (n_owned == 0)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return NULL;
	s->owned = malloc(n_owned * sizeof(*s->owned));
	s->emitted = calloc(n_owned, sizeof(*s->emitted));
	if (s->owned == NULL || s->emitted == NULL) {
		free(s->owned);
		free(s->emitted);
		free(s);
		return NULL;
	}
	s->base.ops = &nexmark_ops;
	s->conf = *conf;
	s->n_owned = n_owned;
	memcpy(s->owned, owned, n_owned * sizeof(*owned));
	seek_match(s);
	return s;
}

struct wm_record_source *
wm_nexmark_source_base(struct wm_nexmark_source *s)
{
	return &s->base;
}
