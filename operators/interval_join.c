/*
 * interval_join.c
 *	The keyed interval join (interval_join.h): per key a sorted buffer
 *	of each side's records, cleanup timers per (key, side, timestamp).
 *
 * Flink keeps a side's records in a map from timestamp to a list, and
 * scans the whole map of the other side for every record. A buffer
 * sorted by timestamp holds the same lists in the same order (records of
 * one timestamp in arrival order), and finds the interval by a binary
 * search; records mostly come in timestamp order, so insertion is mostly
 * an append. Cleanup takes the lowest timestamps, so a buffer drops them
 * by moving its head, and slides its records down only when it has to
 * grow.
 *
 * Timers. Flink registers a cleanup timer per (key, side, timestamp) on
 * every record, the timer service keeping each once, and drops the
 * side's records of that key and timestamp when it fires. A record's
 * timer is pending exactly while its bucket (the side's records of its
 * key and timestamp) is in the buffer: the timer made the bucket's first
 * record, and firing removes the bucket. So a timer is pushed when a
 * record opens a bucket, and never twice: the set Flink holds, in a
 * binary heap by (time, key, side, bucket) with no index beside it
 * (nothing is ever deleted but the top), and a snapshot needs only the
 * buffers, from which a restore pushes the timers again.
 *
 * A key whose buffers empty gives their arrays back to a small cache of
 * first allocations, which the next new key takes: keys come and go with
 * every record where each has few, and malloc and free per key were a
 * third of the cost.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"
#include "lib/snap.h"
#include "operators/interval_join.h"

/* One buffered record. */
struct join_item {
	wm_ts_t ts;
	int64_t value;
};

/* A side's records of one key: items[head .. head + n), sorted by ts,
 * within room for cap. */
struct join_buffer {
	struct join_item *items;
	uint32_t head, n, cap;
};

/* A key's buffers; `live` is nonzero in every occupied slot. A key's
 * entry goes when both its buffers are empty. */
struct join_key {
	uint64_t hash;
	int64_t key;
	struct join_buffer side[2];
	uint32_t live;
};

#define WM_HT_PREFIX key_table
#define WM_HT_ENTRY struct join_key
#define WM_HT_KEY int64_t
#define WM_HT_EMPTY(e) ((e)->live == 0)
#define WM_HT_HASH(tb, e) ((e)->hash)
#define WM_HT_MATCH(tb, e, k, hash_) ((void)(hash_), (e)->key == (k))
#define WM_HT_MIN_SLOTS 64
#define WM_HT_FILL(slots) ((slots) / 4 * 3)
#include "lib/hash_table.h"

/* A cleanup timer: at `at` (the watermark reaching it), drop side
 * `side`'s records of `key` at `bucket`. */
struct cleanup {
	wm_ts_t at;
	int64_t key;
	wm_ts_t bucket;
	uint32_t side;
};

/* Firing order: by time, then key, side and bucket, a total order, as
 * timer.h's, so that a run is reproducible. */
static inline bool
cleanup_before(const struct cleanup *a, const struct cleanup *b)
{
	if (a->at != b->at)
		return a->at < b->at;
	if (a->key != b->key)
		return a->key < b->key;
	if (a->side != b->side)
		return a->side < b->side;
	return a->bucket < b->bucket;
}

#define WM_HEAP_PREFIX cleanup_heap
#define WM_HEAP_ENTRY struct cleanup
#define WM_HEAP_BEFORE(a, b) cleanup_before(a, b)
#define WM_HEAP_MIN_CAPACITY 64
#include "lib/binary_heap.h"

/* A buffer's first allocation, in records. */
#define BUFFER_FIRST 8
/* First allocations kept for new keys, at most: 512 KiB of them, which
 * a watermark that cleans thousands of keys at once refills (64 left
 * malloc and free at a seventh of the join's cost). */
#define SPARE_MOST 4096
/* A buffer never holds more (the count is 32 bits). */
#define BUFFER_MOST (UINT32_MAX / 2)

struct wm_interval_join {
	struct wm_interval_join_config conf;
	/* Flink's bounds after the exclusive ones moved inwards. */
	int64_t lower, upper;
	wm_ts_t watermark; /* MIN before the first */
	struct cleanup_heap timers;
	struct key_table keys;
	/* Arrays of BUFFER_FIRST records given back by keys that went. */
	struct join_item *spare[SPARE_MOST];
	uint32_t n_spare;
	size_t buffered[2];
	struct wm_interval_join_counters counters;
};

static inline uint64_t
key_hash(int64_t key)
{
	return wm_hash_fibonacci_low((uint64_t)key);
}

bool
wm_interval_join_counters_balanced(const struct wm_interval_join_counters *c)
{
	for (int s = 0; s < 2; s++) {
		const struct wm_interval_join_side_counters *x = &c->side[s];

		if (x->records_in != x->records_kept + x->late_records_dropped +
					     x->late_records_side_output +
					     x->records_rejected ||
		    x->records_cleaned > x->records_kept)
			return false;
	}
	return true;
}

struct wm_interval_join *
wm_interval_join_new(const struct wm_interval_join_config *config,
		     const char **why)
{
	struct wm_interval_join *op;

	if (config->lower > config->upper) {
		*why = "the lower bound is above the upper bound";
		errno = EINVAL;
		return NULL;
	}
	/* Flink's right-side cleanup timer of a lower bound of MIN is the
	 * record's own timestamp, from which its onEventTime() takes the
	 * bucket at timestamp + MIN: the records would never go. */
	if (config->lower == INT64_MIN) {
		*why = "a lower bound of -2^63 ms is refused";
		errno = EINVAL;
		return NULL;
	}
	op = calloc(1, sizeof(*op));
	if (op == NULL)
		return NULL;
	op->conf = *config;
	/* IntervalJoinOperator's constructor: lowerBound + 1 and
	 * upperBound - 1, Java's arithmetic. */
	op->lower = config->lower_exclusive ? wm_ts_add(config->lower, 1)
					    : config->lower;
	op->upper = config->upper_exclusive ? wm_ts_sub(config->upper, 1)
					    : config->upper;
	op->watermark = WM_TS_MIN;
	cleanup_heap_init(&op->timers);
	key_table_init(&op->keys);
	return op;
}

void
wm_interval_join_free(struct wm_interval_join *op)
{
	if (op == NULL)
		return;
	for (size_t i = 0; key_table_count(&op->keys) > 0 && i <= op->keys.mask;
	     i++) {
		struct join_key *e = &op->keys.slots[i];

		if (e->live == 0)
			continue;
		free(e->side[0].items);
		free(e->side[1].items);
	}
	key_table_destroy(&op->keys);
	cleanup_heap_destroy(&op->timers);
	while (op->n_spare > 0)
		free(op->spare[--op->n_spare]);
	free(op);
}

/* The first index in b at or after `from` whose timestamp is >= ts
 * (strictly > ts when `after`): a binary search. */
static uint32_t
buffer_search(const struct join_buffer *b, wm_ts_t ts, bool after)
{
	uint32_t lo = b->head, hi = b->head + b->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		bool left_of =
			after ? b->items[mid].ts <= ts : b->items[mid].ts < ts;

		if (left_of)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Room in b for one more record at its end: the records slid down to 0
 * when the head has moved, else twice the room. 0 or -ENOMEM (b as
 * before). */
static int
buffer_make_room(struct wm_interval_join *op, struct join_buffer *b)
{
	struct join_item *grown;
	uint32_t cap;

	if (b->head + b->n < b->cap)
		return 0;
	if (b->head > 0) {
		memmove(b->items, b->items + b->head, b->n * sizeof(*b->items));
		b->head = 0;
		return 0;
	}
	if (b->cap == 0 && op->n_spare > 0) {
		b->items = op->spare[--op->n_spare];
		b->cap = BUFFER_FIRST;
		return 0;
	}
	if (b->cap >= BUFFER_MOST)
		return -ENOMEM;
	cap = b->cap == 0 ? BUFFER_FIRST : b->cap * 2;
	grown = realloc(b->items, (size_t)cap * sizeof(*grown));
	if (grown == NULL)
		return -ENOMEM;
	b->items = grown;
	b->cap = cap;
	return 0;
}

/* A buffer's array, its records gone: to the cache of first allocations
 * if it is one and there is room, else freed. */
static void
buffer_release(struct wm_interval_join *op, struct join_buffer *b)
{
	if (b->cap == BUFFER_FIRST && op->n_spare < SPARE_MOST)
		op->spare[op->n_spare++] = b->items;
	else
		free(b->items);
	*b = (struct join_buffer){0};
}

/* Insert (ts, value) after every record of b at or before ts; room made.
 * Whether it opened a bucket (no record of b was at ts). */
static bool
buffer_insert(struct join_buffer *b, wm_ts_t ts, int64_t value)
{
	uint32_t at = b->head + b->n;
	bool opened;

	if (b->n > 0 && b->items[at - 1].ts >= ts) {
		opened = b->items[at - 1].ts != ts;
		if (opened) {
			at = buffer_search(b, ts, true);
			opened = at == b->head || b->items[at - 1].ts != ts;
			memmove(b->items + at + 1, b->items + at,
				(b->head + b->n - at) * sizeof(*b->items));
		}
	} else {
		opened = true;
	}
	b->items[at] = (struct join_item){.ts = ts, .value = value};
	b->n++;
	return opened;
}

/* Remove every record of b at ts; how many. */
static uint32_t
buffer_remove(struct join_buffer *b, wm_ts_t ts)
{
	uint32_t from = buffer_search(b, ts, false);
	uint32_t to = from;
	uint32_t end = b->head + b->n;

	while (to < end && b->items[to].ts == ts)
		to++;
	if (to == from)
		return 0;
	if (from == b->head)
		b->head = to;
	else
		memmove(b->items + from, b->items + to,
			(end - to) * sizeof(*b->items));
	b->n -= to - from;
	if (b->n == 0)
		b->head = 0;
	return to - from;
}

/* Emit the pairs of a record of `side` at ts with value `value` and the
 * other side's records of its key in [ts + rel_lower, ts + rel_upper]. */
static void
emit_pairs(struct wm_interval_join *op, const struct join_key *e,
	   enum wm_join_side side, wm_ts_t ts, int64_t value, int64_t rel_lower,
	   int64_t rel_upper, struct wm_interval_join_output *out)
{
	const struct join_buffer *other = &e->side[1 - side];
	wm_ts_t lo = wm_ts_add(ts, rel_lower);
	wm_ts_t hi = wm_ts_add(ts, rel_upper);

	/* Flink skips a bucket when its timestamp < ts + relativeLowerBound
	 * or > ts + relativeUpperBound, both sums wrapping: the records at
	 * lo..hi, none when they wrapped apart. */
	if (lo > hi || other->n == 0)
		return;
	for (uint32_t i = buffer_search(other, lo, false);
	     i < other->head + other->n && other->items[i].ts <= hi; i++) {
		const struct join_item *it = &other->items[i];
		struct wm_join_result r = {.key = e->key};

		if (side == WM_JOIN_LEFT) {
			r.left_ts = ts;
			r.left_value = value;
			r.right_ts = it->ts;
			r.right_value = it->value;
		} else {
			r.left_ts = it->ts;
			r.left_value = it->value;
			r.right_ts = ts;
			r.right_value = value;
		}
		r.timestamp = r.left_ts > r.right_ts ? r.left_ts : r.right_ts;
		op->counters.pairs++;
		out->pair(out, &r);
	}
}

/* The cleanup timer of side `side`'s bucket `bucket` of `key` (room
 * reserved), at Flink's time: the bucket plus the side's relative upper
 * bound when that is > 0, else the bucket. Flink's onEventTime() takes
 * the bucket back from that time (the time less upperBound, or plus
 * lowerBound), exactly the bucket for every bound but a lower one of MIN,
 * which wm_interval_join_new() refuses. */
static void
push_cleanup(struct wm_interval_join *op, int64_t key, enum wm_join_side side,
	     wm_ts_t bucket, int64_t rel_upper)
{
	struct cleanup c = {
		.at = rel_upper > 0 ? wm_ts_add(bucket, rel_upper) : bucket,
		.key = key,
		.bucket = bucket,
		.side = side,
	};

	cleanup_heap_push(&op->timers, &c);
}

int
wm_interval_join_process_element(struct wm_interval_join *op,
				 enum wm_join_side side,
				 const struct wm_record *record,
				 struct wm_interval_join_output *out)
{
	struct wm_interval_join_side_counters *c = &op->counters.side[side];
	wm_ts_t ts = record->ts;
	wm_ts_t watermark = op->watermark;
	/* processElement2 takes (-upperBound, -lowerBound). */
	int64_t rel_lower =
		side == WM_JOIN_LEFT ? op->lower : wm_ts_sub(0, op->upper);
	int64_t rel_upper =
		side == WM_JOIN_LEFT ? op->upper : wm_ts_sub(0, op->lower);
	uint64_t hash = key_hash(record->key);
	struct join_key *e;
	size_t idx;
	bool found, opened;

	if (ts == WM_TS_MIN) {
		c->records_in++;
		c->records_rejected++;
		return -EINVAL;
	}
	if (watermark != WM_TS_MIN && ts < watermark) {
		c->records_in++;
		if (op->conf.late_output[side]) {
			c->late_records_side_output++;
			out->late(out, side, record);
		} else {
			c->late_records_dropped++;
		}
		return 0;
	}
	/* Everything that can fail first, so that a failure changes
	 * nothing. */
	if (key_table_reserve(&op->keys, 1) != 0 ||
	    cleanup_heap_reserve(&op->timers, 1) != 0)
		return -ENOMEM;
	found = key_table_lookup(&op->keys, record->key, hash, &idx);
	if (found) {
		e = &op->keys.slots[idx];
		if (buffer_make_room(op, &e->side[side]) != 0)
			return -ENOMEM;
	} else {
		struct join_buffer fresh = {0};

		if (buffer_make_room(op, &fresh) != 0)
			return -ENOMEM;
		e = key_table_insert_at(&op->keys, idx);
		e->hash = hash;
		e->key = record->key;
		e->side[side] = fresh;
		e->side[1 - side] = (struct join_buffer){0};
		e->live = 1;
	}
	c->records_in++;
	c->records_kept++;
	opened = buffer_insert(&e->side[side], ts, record->value);
	op->buffered[side]++;
	emit_pairs(op, e, side, ts, record->value, rel_lower, rel_upper, out);
	/* The cleanup time: ts + relativeUpperBound when that is > 0, else
	 * ts; registered by the bucket's first record (see the top). */
	if (opened)
		push_cleanup(op, record->key, side, ts, rel_upper);
	return 0;
}

/* A cleanup timer: drop the records of its side, key and bucket. */
static void
on_cleanup(struct wm_interval_join *op, const struct cleanup *t)
{
	struct join_key *e;
	uint32_t gone;
	size_t idx;

	if (!key_table_lookup(&op->keys, t->key, key_hash(t->key), &idx))
		return; /* cannot happen: a pending timer's bucket is there */
	e = &op->keys.slots[idx];
	gone = buffer_remove(&e->side[t->side], t->bucket);
	op->buffered[t->side] -= gone;
	op->counters.side[t->side].records_cleaned += gone;
	if (e->side[0].n == 0 && e->side[1].n == 0) {
		buffer_release(op, &e->side[0]);
		buffer_release(op, &e->side[1]);
		key_table_remove_at(&op->keys, idx);
	}
}

void
wm_interval_join_process_watermark(struct wm_interval_join *op,
				   wm_ts_t watermark,
				   struct wm_interval_join_output *out)
{
	/* Every timer at or below the watermark, in timer order (Flink's
	 * advanceWatermark()); a cleanup sets none. */
	op->watermark = watermark;
	while (cleanup_heap_count(&op->timers) > 0 &&
	       cleanup_heap_top(&op->timers)->at <= watermark) {
		struct cleanup t = *cleanup_heap_top(&op->timers);

		cleanup_heap_pop(&op->timers);
		on_cleanup(op, &t);
	}
	wm_output_watermark(&out->base, watermark);
}

void
wm_interval_join_process_status(struct wm_interval_join *op,
				enum wm_status status,
				struct wm_interval_join_output *out)
{
	(void)op;
	wm_output_status(&out->base, status);
}

wm_ts_t
wm_interval_join_watermark(const struct wm_interval_join *op)
{
	return op->watermark;
}

const struct wm_interval_join_counters *
wm_interval_join_counters(const struct wm_interval_join *op)
{
	return &op->counters;
}

size_t
wm_interval_join_buffered(const struct wm_interval_join *op,
			  enum wm_join_side side)
{
	return op->buffered[side];
}

size_t
wm_interval_join_key_count(const struct wm_interval_join *op)
{
	return key_table_count(&op->keys);
}

size_t
wm_interval_join_timer_count(const struct wm_interval_join *op)
{
	return cleanup_heap_count(&op->timers);
}

/* ---- checkpoints ---- */

#define JOIN_SNAP_TAG WM_SNAP_TAG('I', 'J', 'O', 'N')
#define JOIN_SNAP_VERSION 1
#define JOIN_WM_SNAP_TAG WM_SNAP_TAG('I', 'J', 'W', 'M')
#define JOIN_WM_SNAP_VERSION 1
/* A key in a snapshot: the key and two counts, at least. */
#define JOIN_SNAP_KEY_BYTES (3 * 8)
/* A record in a snapshot: timestamp and value. */
#define JOIN_SNAP_ITEM_BYTES (2 * 8)

static void
snap_put_config(struct wm_snap_writer *w, const struct wm_interval_join *op)
{
	wm_snap_put_i64(w, op->conf.lower);
	wm_snap_put_i64(w, op->conf.upper);
	wm_snap_put_bool(w, op->conf.lower_exclusive);
	wm_snap_put_bool(w, op->conf.upper_exclusive);
	wm_snap_put_bool(w, op->conf.late_output[0]);
	wm_snap_put_bool(w, op->conf.late_output[1]);
}

static int
snap_check_config(struct wm_snap_reader *r, const struct wm_interval_join *op)
{
	bool same = wm_snap_get_i64(r) == op->conf.lower;

	same &= wm_snap_get_i64(r) == op->conf.upper;
	same &= wm_snap_get_bool(r) == op->conf.lower_exclusive;
	same &= wm_snap_get_bool(r) == op->conf.upper_exclusive;
	same &= wm_snap_get_bool(r) == op->conf.late_output[0];
	same &= wm_snap_get_bool(r) == op->conf.late_output[1];
	if (wm_snap_reader_error(r) == 0 && !same)
		wm_snap_reader_fail(r, -EINVAL);
	return wm_snap_reader_error(r);
}

static void
snap_put_counters(struct wm_snap_writer *w,
		  const struct wm_interval_join_counters *c)
{
	for (int s = 0; s < 2; s++) {
		wm_snap_put_u64(w, c->side[s].records_in);
		wm_snap_put_u64(w, c->side[s].records_kept);
		wm_snap_put_u64(w, c->side[s].late_records_dropped);
		wm_snap_put_u64(w, c->side[s].late_records_side_output);
		wm_snap_put_u64(w, c->side[s].records_rejected);
		wm_snap_put_u64(w, c->side[s].records_cleaned);
	}
	wm_snap_put_u64(w, c->pairs);
}

static int
snap_get_counters(struct wm_snap_reader *r, struct wm_interval_join_counters *c)
{
	for (int s = 0; s < 2; s++) {
		c->side[s].records_in = wm_snap_get_u64(r);
		c->side[s].records_kept = wm_snap_get_u64(r);
		c->side[s].late_records_dropped = wm_snap_get_u64(r);
		c->side[s].late_records_side_output = wm_snap_get_u64(r);
		c->side[s].records_rejected = wm_snap_get_u64(r);
		c->side[s].records_cleaned = wm_snap_get_u64(r);
	}
	c->pairs = wm_snap_get_u64(r);
	if (wm_snap_reader_error(r) == 0 &&
	    !wm_interval_join_counters_balanced(c))
		wm_snap_reader_fail(r, -EBADMSG);
	return wm_snap_reader_error(r);
}

void
wm_interval_join_snapshot(const struct wm_interval_join *op,
			  struct wm_snap_writer *w)
{
	const struct key_table *kt = &op->keys;

	wm_snap_begin(w, JOIN_SNAP_TAG, JOIN_SNAP_VERSION);
	snap_put_config(w, op);
	snap_put_counters(w, &op->counters);
	wm_snap_put_u64(w, key_table_count(kt));
	for (size_t i = 0; key_table_count(kt) > 0 && i <= kt->mask; i++) {
		const struct join_key *e = &kt->slots[i];

		if (e->live == 0)
			continue;
		wm_snap_put_i64(w, e->key);
		for (int s = 0; s < 2; s++) {
			const struct join_buffer *b = &e->side[s];

			wm_snap_put_u64(w, b->n);
			for (uint32_t j = b->head; j < b->head + b->n; j++) {
				wm_snap_put_i64(w, b->items[j].ts);
				wm_snap_put_i64(w, b->items[j].value);
			}
		}
	}
	wm_snap_end(w);
}

/* One side's records of a key from the snapshot into the empty buffer b:
 * 0 or the reader's error (records out of timestamp order are
 * malformed). */
static int
restore_buffer(struct wm_interval_join *op, struct join_buffer *b,
	       enum wm_join_side side, struct wm_snap_reader *r)
{
	uint64_t n = wm_snap_get_count(r, JOIN_SNAP_ITEM_BYTES);

	for (uint64_t j = 0; j < n && wm_snap_reader_error(r) == 0; j++) {
		wm_ts_t ts = wm_snap_get_i64(r);
		int64_t value = wm_snap_get_i64(r);

		if (wm_snap_reader_error(r) != 0)
			break;
		if (ts == WM_TS_MIN || (b->n > 0 && b->items[b->n - 1].ts > ts))
			return wm_snap_reader_fail(r, -EBADMSG);
		if (buffer_make_room(op, b) != 0)
			return wm_snap_reader_fail(r, -ENOMEM);
		b->items[b->n++] = (struct join_item){.ts = ts, .value = value};
		op->buffered[side]++;
	}
	return wm_snap_reader_error(r);
}

/* The timers of key e's buckets, pushed again: one a bucket of each side
 * (see the top). 0 or -ENOMEM. */
static int
restore_timers(struct wm_interval_join *op, const struct join_key *e)
{
	for (int s = 0; s < 2; s++) {
		const struct join_buffer *b = &e->side[s];
		int64_t rel_upper =
			s == WM_JOIN_LEFT ? op->upper : wm_ts_sub(0, op->lower);

		for (uint32_t j = b->head; j < b->head + b->n; j++) {
			if (j > b->head && b->items[j - 1].ts == b->items[j].ts)
				continue;
			if (cleanup_heap_reserve(&op->timers, 1) != 0)
				return -ENOMEM;
			push_cleanup(op, e->key, s, b->items[j].ts, rel_upper);
		}
	}
	return 0;
}

static int
restore_keys(struct wm_interval_join *op, struct wm_snap_reader *r)
{
	uint64_t n = wm_snap_get_count(r, JOIN_SNAP_KEY_BYTES);

	if (n > 0 && key_table_reserve(&op->keys, (size_t)n) != 0)
		return wm_snap_reader_fail(r, -ENOMEM);
	for (uint64_t i = 0; i < n && wm_snap_reader_error(r) == 0; i++) {
		int64_t key = wm_snap_get_i64(r);
		uint64_t hash = key_hash(key);
		struct join_key *e;
		size_t idx;

		/* No key twice. */
		if (wm_snap_reader_error(r) != 0 ||
		    key_table_lookup(&op->keys, key, hash, &idx))
			return wm_snap_reader_fail(r, -EBADMSG);
		e = key_table_insert_at(&op->keys, idx);
		*e = (struct join_key){.hash = hash, .key = key, .live = 1};
		if (restore_buffer(op, &e->side[0], WM_JOIN_LEFT, r) != 0 ||
		    restore_buffer(op, &e->side[1], WM_JOIN_RIGHT, r) != 0)
			return wm_snap_reader_error(r);
		if (restore_timers(op, e) != 0)
			return wm_snap_reader_fail(r, -ENOMEM);
		/* A key is kept only while it holds records. */
		if (e->side[0].n == 0 && e->side[1].n == 0)
			return wm_snap_reader_fail(r, -EBADMSG);
	}
	return wm_snap_reader_error(r);
}

int
wm_interval_join_restore(struct wm_interval_join *op, struct wm_snap_reader *r)
{
	struct wm_interval_join_counters counters;

	if (op->counters.side[0].records_in != 0 ||
	    op->counters.side[1].records_in != 0 ||
	    key_table_count(&op->keys) != 0 ||
	    cleanup_heap_count(&op->timers) != 0 || op->watermark != WM_TS_MIN)
		return wm_snap_reader_fail(r, -EINVAL);
	if (wm_snap_enter(r, JOIN_SNAP_TAG, JOIN_SNAP_VERSION) != 0 ||
	    snap_check_config(r, op) != 0 ||
	    snap_get_counters(r, &counters) != 0 || restore_keys(op, r) != 0 ||
	    wm_snap_leave(r) != 0)
		return wm_snap_reader_error(r);
	/* What the buffers hold is what was kept and not yet cleaned. */
	for (int s = 0; s < 2; s++)
		if (counters.side[s].records_kept -
			    counters.side[s].records_cleaned !=
		    op->buffered[s])
			return wm_snap_reader_fail(r, -EBADMSG);
	op->counters = counters;
	return 0;
}

void
wm_interval_join_snapshot_watermark(const struct wm_interval_join *op,
				    struct wm_snap_writer *w)
{
	wm_snap_begin(w, JOIN_WM_SNAP_TAG, JOIN_WM_SNAP_VERSION);
	wm_snap_put_i64(w, op->watermark);
	wm_snap_end(w);
}

int
wm_interval_join_restore_watermark(struct wm_interval_join *op,
				   struct wm_snap_reader *r)
{
	wm_ts_t w;

	if (wm_snap_enter(r, JOIN_WM_SNAP_TAG, JOIN_WM_SNAP_VERSION) != 0)
		return wm_snap_reader_error(r);
	w = wm_snap_get_i64(r);
	if (wm_snap_leave(r) != 0)
		return wm_snap_reader_error(r);
	op->watermark = w;
	return 0;
}
