/*
 * window_join.c
 *	The window join (window_join.h): Flink's WindowOperator with list
 *	contents, the EventTimeTrigger and the coGroup of JoinedStreams as
 *	its window function, for tumbling, sliding and session windows.
 *
 * State table (lib/hash_table.h): one entry per live (key, window) keyed
 * by (key, window start), for sessions by (key, state window start) as in
 * window.c. An entry exists exactly while its window holds a record of
 * either side (Flink's "windowState.get() != null"): it is created with
 * its first record and removed at cleanup, so no occupied slot has two
 * empty lists and an all-zero slot is empty.
 *
 * Records: a window's two lists are chains of nodes in one pool, linked
 * by index, each list knowing its head, its tail and its length. Appending
 * takes a node, a cleanup gives a whole list back at once (its chain goes
 * onto the free chain), and a session merge appends one list to another
 * by linking a tail to a head, so that a merge, which cannot fail in the
 * middle of merging_windows.c's sweep, needs no memory. The pool grows by
 * doubling and never shrinks, as the timers do.
 *
 * Timers: each (key, window) has a trigger timer at maxTs and a cleanup
 * timer at maxTs + L (one timer when L = 0), both in namespace = window
 * start, registered with every record as Flink registers them; the timer
 * set drops the duplicates. Sessions find a timer's window again by its
 * start, as window.c's session_on_event_time() does.
 *
 * Everything a record can fail on is reserved before it changes anything:
 * table slots, timers and pool nodes for every window it enters.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "lib/hash.h"
#include "lib/snap.h"
#include "operators/merging_windows.h"
#include "operators/timer.h"
#include "operators/window_join.h"

/* A record in a window's list; `next` links it to the list's next record,
 * or a free node to the next free one. */
struct pooled_record {
	wm_ts_t ts;
	int64_t value;
	uint32_t next;
};

/* The end of a chain. */
#define NO_RECORD UINT32_MAX
/* Nodes of the pool's first allocation, and the most it ever holds (an
 * index stays below NO_RECORD, a list's length fits 32 bits). */
#define POOL_FIRST 256
#define POOL_MOST ((uint32_t)1 << 31)

/* nodes[0 .. cap): those not in some list are on the free chain from
 * free_head, n_free of them. */
struct record_pool {
	struct pooled_record *nodes;
	uint32_t cap;
	uint32_t free_head;
	uint32_t n_free;
};

/* One side's records of one window: n nodes from head to tail through
 * next, the tail's next NO_RECORD (head and tail mean nothing while n is
 * 0: an empty list is all zero). */
struct record_list {
	uint32_t head, tail, n;
};

struct window_contents {
	uint64_t hash; /* contents_hash(key, start), for moves */
	int64_t key;
	wm_ts_t start; /* sessions: the state window's start */
	struct record_list side[2];
};

struct contents_key {
	int64_t key;
	wm_ts_t start;
};

/* A slot without contents is a free one (see the top). */
static inline bool
contents_empty(const struct window_contents *e)
{
	return e->side[0].n == 0 && e->side[1].n == 0;
}

#define WM_HT_PREFIX contents_table
#define WM_HT_ENTRY struct window_contents
#define WM_HT_KEY struct contents_key
#define WM_HT_EMPTY(e) contents_empty(e)
#define WM_HT_HASH(tb, e) ((e)->hash)
#define WM_HT_MATCH(tb, e, k, hash_)                                           \
	((e)->hash == (hash_) && (e)->key == (k).key && (e)->start == (k).start)
#define WM_HT_MIN_SLOTS 64
#define WM_HT_FILL(slots) ((slots) / 4 * 3)
#include "lib/hash_table.h"

struct wm_window_join {
	struct wm_window_join_config conf;
	struct wm_timer_service *timers; /* also holds the watermark */
	/* Session windows: the merging window sets; NULL otherwise. */
	struct wm_merging_windows *sessions;
	struct contents_table windows;
	struct record_pool pool;
	size_t buffered[2];
	struct wm_window_join_counters counters;
};

/* The hash of (key, window start): the start through the finaliser, then
 * the key, folded (window.c's window_hash(), for the same keys). */
static inline uint64_t
contents_hash(int64_t key, wm_ts_t start)
{
	return wm_hash_fibonacci_low((uint64_t)key ^
				     wm_hash_mix64((uint64_t)start));
}

/* ---- the record pool ---- */

/* Room for n more records. 0, or -ENOMEM with the pool unchanged. */
static int
pool_reserve(struct record_pool *p, size_t n)
{
	struct pooled_record *grown;
	size_t used = p->cap - p->n_free;
	size_t cap = p->cap == 0 ? POOL_FIRST : p->cap;

	if (n <= p->n_free)
		return 0;
	while (cap - used < n) {
		if (cap >= POOL_MOST)
			return -ENOMEM;
		cap *= 2;
	}
	grown = realloc(p->nodes, cap * sizeof(*grown));
	if (grown == NULL)
		return -ENOMEM;
	p->nodes = grown;
	/* The new nodes go on the free chain, lowest index first. */
	for (size_t i = cap; i-- > p->cap;) {
		grown[i].next = p->free_head;
		p->free_head = (uint32_t)i;
	}
	p->n_free += (uint32_t)(cap - p->cap);
	p->cap = (uint32_t)cap;
	return 0;
}

/* Append (ts, value) to list l; room reserved. */
static void
list_append(struct record_pool *p, struct record_list *l, wm_ts_t ts,
	    int64_t value)
{
	uint32_t i = p->free_head;

	p->free_head = p->nodes[i].next;
	p->n_free--;
	p->nodes[i] = (struct pooled_record){
		.ts = ts, .value = value, .next = NO_RECORD};
	if (l->n == 0)
		l->head = i;
	else
		p->nodes[l->tail].next = i;
	l->tail = i;
	l->n++;
}

/* Move src's records to the end of dst, leaving src empty. */
static void
list_join(struct record_pool *p, struct record_list *dst,
	  struct record_list *src)
{
	if (src->n == 0)
		return;
	if (dst->n == 0)
		dst->head = src->head;
	else
		p->nodes[dst->tail].next = src->head;
	dst->tail = src->tail;
	dst->n += src->n;
	*src = (struct record_list){0};
}

/* Give l's records back to the pool. */
static void
list_release(struct record_pool *p, struct record_list *l)
{
	if (l->n == 0)
		return;
	p->nodes[l->tail].next = p->free_head;
	p->free_head = l->head;
	p->n_free += l->n;
	*l = (struct record_list){0};
}

/* ---- the operator ---- */

bool
wm_window_join_counters_balanced(const struct wm_window_join_counters *c)
{
	for (int s = 0; s < 2; s++) {
		const struct wm_window_join_side_counters *x = &c->side[s];

		if (x->records_in != x->records_kept + x->late_records_dropped +
					     x->records_ignored +
					     x->records_rejected)
			return false;
	}
	return true;
}

struct wm_window_join *
wm_window_join_new(const struct wm_window_join_config *config, const char **why)
{
	const struct wm_window_assigner *a = &config->assigner;
	struct wm_window_join *op;

	if (wm_window_check_config(a, config->allowed_lateness, why) != 0) {
		errno = EINVAL;
		return NULL;
	}
	op = calloc(1, sizeof(*op));
	if (op == NULL)
		return NULL;
	op->conf = *config;
	op->pool.free_head = NO_RECORD;
	contents_table_init(&op->windows);
	op->timers = wm_timer_new();
	if (a->kind == WM_WINDOW_SESSION)
		op->sessions = wm_merging_new();
	if (op->timers == NULL ||
	    (a->kind == WM_WINDOW_SESSION && op->sessions == NULL)) {
		wm_window_join_free(op);
		errno = ENOMEM;
		return NULL;
	}
	return op;
}

void
wm_window_join_free(struct wm_window_join *op)
{
	if (op == NULL)
		return;
	wm_timer_free(op->timers);
	wm_merging_free(op->sessions);
	contents_table_destroy(&op->windows);
	free(op->pool.nodes);
	free(op);
}

/* isWindowLate(): w's cleanup time has come under `watermark`. */
static inline bool
window_late(const struct wm_window_join *op, struct wm_time_window w,
	    wm_ts_t watermark)
{
	return wm_window_cleanup_time(wm_window_max_timestamp(w),
				      op->conf.allowed_lateness) <= watermark;
}

/* Room for a record entering `windows` windows, each perhaps new, with
 * its trigger and cleanup timers. 0 or -ENOMEM, nothing changed. */
static int
reserve_windows(struct wm_window_join *op, size_t windows)
{
	if (contents_table_reserve(&op->windows, windows) != 0 ||
	    wm_timer_reserve(op->timers, 2 * windows) != 0 ||
	    pool_reserve(&op->pool, windows) != 0)
		return -ENOMEM;
	return 0;
}

/* Append the record to side `side` of the contents (key, start), which
 * are created if the window has none; room reserved. Returns them, valid
 * until the table next changes. */
static struct window_contents *
contents_add(struct wm_window_join *op, enum wm_join_side side,
	     const struct wm_record *rec, wm_ts_t start)
{
	struct contents_key k = {.key = rec->key, .start = start};
	uint64_t hash = contents_hash(rec->key, start);
	struct window_contents *e;
	size_t idx;

	if (contents_table_lookup(&op->windows, k, hash, &idx)) {
		e = &op->windows.slots[idx];
	} else {
		e = contents_table_insert_at(&op->windows, idx);
		e->hash = hash;
		e->key = rec->key;
		e->start = start;
	}
	list_append(&op->pool, &e->side[side], rec->ts, rec->value);
	op->buffered[side]++;
	return e;
}

/* CoGroupWindowFunction and JoinCoGroupFunction: every left record (node
 * ln), in list order, with every right record (node rn), in list order,
 * timestamped with the firing window's maxTs. */
static void
emit_pairs(struct wm_window_join *op, const struct window_contents *e,
	   wm_ts_t max_ts, bool late_firing, struct wm_window_join_output *out)
{
	const struct pooled_record *nodes = op->pool.nodes;
	const struct record_list *left = &e->side[WM_JOIN_LEFT];
	const struct record_list *right = &e->side[WM_JOIN_RIGHT];
	struct wm_join_result r = {.key = e->key, .timestamp = max_ts};

	if (late_firing)
		op->counters.windows_fired_late++;
	else
		op->counters.windows_fired++;
	if (left->n == 0 || right->n == 0)
		return;
	for (uint32_t ln = left->head; ln != NO_RECORD; ln = nodes[ln].next) {
		r.left_ts = nodes[ln].ts;
		r.left_value = nodes[ln].value;
		for (uint32_t rn = right->head; rn != NO_RECORD;
		     rn = nodes[rn].next) {
			r.right_ts = nodes[rn].ts;
			r.right_value = nodes[rn].value;
			op->counters.pairs++;
			out->pair(out, &r);
		}
	}
}

/* EventTimeTrigger.onElement() on window w, whose contents e just took a
 * record, then registerCleanupTimer(); timer room reserved. */
static void
trigger_on_element(struct wm_window_join *op, const struct window_contents *e,
		   struct wm_time_window w, wm_ts_t watermark,
		   struct wm_window_join_output *out)
{
	wm_ts_t max_ts = wm_window_max_timestamp(w);
	wm_ts_t cleanup =
		wm_window_cleanup_time(max_ts, op->conf.allowed_lateness);

	if (max_ts <= watermark)
		emit_pairs(op, e, max_ts, true, out);
	else
		(void)wm_timer_add(op->timers, max_ts, e->key, w.start);
	if (cleanup != WM_TS_MAX)
		(void)wm_timer_add(op->timers, cleanup, e->key, w.start);
}

/* The end of processElement(): count the record of `side` (isElementLate()
 * for one that went into no window). */
static int
record_done(struct wm_window_join *op, enum wm_join_side side,
	    const struct wm_record *rec, bool skipped, wm_ts_t watermark)
{
	struct wm_window_join_side_counters *c = &op->counters.side[side];

	c->records_in++;
	if (!skipped)
		c->records_kept++;
	else if (wm_ts_add(rec->ts, op->conf.allowed_lateness) <= watermark)
		c->late_records_dropped++;
	else
		c->records_ignored++;
	return 0;
}

/* A record Flink fails the job on: counted, and `err` returned. */
static int
record_rejected(struct wm_window_join *op, enum wm_join_side side, int err)
{
	op->counters.side[side].records_in++;
	op->counters.side[side].records_rejected++;
	return err;
}

/* processElement(), tumbling and sliding windows: every window of the
 * record that is not late, in the assigner's order. */
static int
fixed_element(struct wm_window_join *op, enum wm_join_side side,
	      const struct wm_record *rec, wm_ts_t watermark,
	      struct wm_window_join_output *out)
{
	struct wm_window_iter it, walk;
	struct wm_time_window w;
	size_t open = 0;
	bool skipped = true;

	if (wm_window_assign(&op->conf.assigner, rec->ts, &it) != 0)
		return record_rejected(op, side, -EINVAL);
	/* All or nothing: room for every window the record enters before it
	 * enters any (window.c's sliding_element() says why). */
	walk = it;
	while (wm_window_next(&walk, &w))
		open += !window_late(op, w, watermark);
	if (reserve_windows(op, open) != 0)
		return -ENOMEM;
	while (wm_window_next(&it, &w)) {
		/* The record is dropped for this window alone. */
		if (window_late(op, w, watermark))
			continue;
		trigger_on_element(op, contents_add(op, side, rec, w.start), w,
				   watermark, out);
		skipped = false;
	}
	return record_done(op, side, rec, skipped, watermark);
}

/* The merge function's precondition in Flink (wm_merging_check_result()). */
static int
session_check(void *ctx, int64_t key, struct wm_time_window result)
{
	struct wm_window_join *op = ctx;

	(void)key;
	return wm_merging_check_result(op->timers, op->conf.allowed_lateness,
				       result);
}

/* mergeNamespaces() for one source: state window `from`'s lists go to the
 * end of state window `to`'s (Flink's list state appends the sources to
 * the target). A table slot reserved, for a target without contents. */
static void
session_move_contents(struct wm_window_join *op, int64_t key, wm_ts_t to,
		      wm_ts_t from)
{
	struct contents_key from_key = {.key = key, .start = from};
	struct contents_key to_key = {.key = key, .start = to};
	uint64_t to_hash = contents_hash(key, to);
	struct window_contents *src, *dst;
	size_t from_idx, to_idx;

	if (!contents_table_lookup(&op->windows, from_key,
				   contents_hash(key, from), &from_idx))
		return;
	src = &op->windows.slots[from_idx];
	if (contents_table_lookup(&op->windows, to_key, to_hash, &to_idx)) {
		dst = &op->windows.slots[to_idx];
		list_join(&op->pool, &dst->side[0], &src->side[0]);
		list_join(&op->pool, &dst->side[1], &src->side[1]);
	} else {
		/* Filling an empty slot moves no other entry. */
		dst = contents_table_insert_at(&op->windows, to_idx);
		*dst = *src;
		dst->hash = to_hash;
		dst->start = to;
	}
	contents_table_remove_at(&op->windows, from_idx);
}

/*
 * The merge function of Flink's processElement(): the timers of
 * onMerge() and of the absorbed windows (wm_merging_merge_timers()), then
 * the lists merged into the state window, the absorbed ones in start
 * order.
 */
static void
session_merge(void *ctx, int64_t key, struct wm_time_window result,
	      const struct wm_merging_entry *merged, size_t n,
	      wm_ts_t state_start)
{
	struct wm_window_join *op = ctx;

	wm_merging_merge_timers(op->timers, op->conf.allowed_lateness, key,
				result, merged, n);
	for (size_t i = 0; i < n; i++)
		if (merged[i].state_start != state_start)
			session_move_contents(op, key, state_start,
					      merged[i].state_start);
}

/* processElement(), merging branch (doc/semantics.md section 7.10). */
static int
session_element(struct wm_window_join *op, enum wm_join_side side,
		const struct wm_record *rec, wm_ts_t watermark,
		struct wm_window_join_output *out)
{
	struct wm_merging_callbacks cb = {
		.check = session_check,
		.merge = session_merge,
		.ctx = op,
	};
	struct wm_time_window w;
	struct wm_merging_entry act;
	bool skipped = true;
	int err;

	w.start = rec->ts;
	w.end = wm_ts_add(rec->ts, op->conf.assigner.size);
	/* A merge moves lists without memory, but may need a slot for a
	 * state window without contents, and sets one timer: room for that
	 * besides the record's window. */
	if (reserve_windows(op, 2) != 0)
		return -ENOMEM;
	err = wm_merging_add(op->sessions, rec->key, w, &cb, &act);
	if (err == -ENOMEM)
		return err;
	if (err != 0)
		return record_rejected(op, side, err);
	if (window_late(op, act.window, watermark)) {
		/* The session is gone: drop the record. */
		(void)wm_merging_retire(op->sessions, rec->key, act.window);
	} else {
		trigger_on_element(op,
				   contents_add(op, side, rec, act.state_start),
				   act.window, watermark, out);
		skipped = false;
	}
	return record_done(op, side, rec, skipped, watermark);
}

int
wm_window_join_process_element(struct wm_window_join *op,
			       enum wm_join_side side,
			       const struct wm_record *record,
			       struct wm_window_join_output *out)
{
	wm_ts_t watermark = wm_timer_watermark(op->timers);

	if (op->sessions != NULL)
		return session_element(op, side, record, watermark, out);
	return fixed_element(op, side, record, watermark, out);
}

/*
 * onEventTime() for timer t of window w, whose contents are under
 * (t->key, state_start): fire if t is w's trigger time, drop the contents
 * and the trigger timer if it is w's cleanup time. Returns whether it
 * cleaned up.
 */
static bool
on_event_time(struct wm_window_join *op, const struct wm_timer *t,
	      struct wm_time_window w, wm_ts_t state_start,
	      struct wm_window_join_output *out)
{
	struct contents_key k = {.key = t->key, .start = state_start};
	wm_ts_t max_ts = wm_window_max_timestamp(w);
	bool fire = t->ts == max_ts;
	bool clean = t->ts ==
		     wm_window_cleanup_time(max_ts, op->conf.allowed_lateness);
	struct window_contents *e;
	size_t idx;

	if (!fire && !clean)
		return false;
	if (contents_table_lookup(&op->windows, k,
				  contents_hash(t->key, state_start), &idx)) {
		e = &op->windows.slots[idx];
		if (fire)
			emit_pairs(op, e, max_ts, false, out);
		if (clean) {
			for (int s = 0; s < 2; s++) {
				op->buffered[s] -= e->side[s].n;
				list_release(&op->pool, &e->side[s]);
			}
			contents_table_remove_at(&op->windows, idx);
		}
	}
	/* clearAllState(): trigger.clear() deletes the trigger timer. */
	if (clean)
		(void)wm_timer_delete(op->timers, max_ts, t->key, w.start);
	return clean;
}

/* A due timer: its namespace is a window start; a session's window is
 * found again in its key's set, and a timer whose session has gone does
 * nothing (Flink: getStateWindow() == null). */
static void
fire_timer(struct wm_window_join *op, const struct wm_timer *t,
	   struct wm_window_join_output *out)
{
	struct wm_merging_entry ent;
	struct wm_time_window w;

	if (op->sessions == NULL) {
		w.start = t->ns;
		w.end = wm_ts_add(w.start, op->conf.assigner.size);
		(void)on_event_time(op, t, w, w.start, out);
		return;
	}
	if (!wm_merging_find(op->sessions, t->key, t->ns, &ent))
		return;
	if (on_event_time(op, t, ent.window, ent.state_start, out))
		(void)wm_merging_retire(op->sessions, t->key, ent.window);
}

void
wm_window_join_process_watermark(struct wm_window_join *op, wm_ts_t watermark,
				 struct wm_window_join_output *out)
{
	struct wm_timer t;

	wm_timer_set_watermark(op->timers, watermark);
	while (wm_timer_pop_due(op->timers, &t))
		fire_timer(op, &t, out);
	wm_output_watermark(&out->base, watermark);
}

void
wm_window_join_process_status(struct wm_window_join *op, enum wm_status status,
			      struct wm_window_join_output *out)
{
	(void)op;
	wm_output_status(&out->base, status);
}

wm_ts_t
wm_window_join_watermark(const struct wm_window_join *op)
{
	return wm_timer_watermark(op->timers);
}

const struct wm_window_join_counters *
wm_window_join_counters(const struct wm_window_join *op)
{
	return &op->counters;
}

size_t
wm_window_join_buffered(const struct wm_window_join *op, enum wm_join_side side)
{
	return op->buffered[side];
}

size_t
wm_window_join_window_count(const struct wm_window_join *op)
{
	return contents_table_count(&op->windows);
}

size_t
wm_window_join_timer_count(const struct wm_window_join *op)
{
	return wm_timer_count(op->timers);
}

/* ---- checkpoints ---- */

#define JOIN_SNAP_TAG WM_SNAP_TAG('W', 'J', 'O', 'N')
#define JOIN_SNAP_VERSION 1
#define JOIN_WM_SNAP_TAG WM_SNAP_TAG('W', 'J', 'W', 'M')
#define JOIN_WM_SNAP_VERSION 1
/* A window in a snapshot: key, start and two counts, at least. */
#define JOIN_SNAP_WINDOW_BYTES (4 * 8)
/* A record in a snapshot: timestamp and value. */
#define JOIN_SNAP_RECORD_BYTES (2 * 8)

static void
snap_put_config(struct wm_snap_writer *w, const struct wm_window_join_config *c)
{
	wm_snap_put_u32(w, (uint32_t)c->assigner.kind);
	wm_snap_put_i64(w, c->assigner.size);
	wm_snap_put_i64(w, c->assigner.slide);
	wm_snap_put_i64(w, c->assigner.offset);
	wm_snap_put_u32(w, c->assigner.max_windows);
	wm_snap_put_i64(w, c->allowed_lateness);
}

/* The snapshot's configuration is op's: else -EINVAL (a snapshot of
 * another join, or of this one before its window changed). */
static int
snap_check_config(struct wm_snap_reader *r,
		  const struct wm_window_join_config *c)
{
	bool same = wm_snap_get_u32(r) == (uint32_t)c->assigner.kind;

	same &= wm_snap_get_i64(r) == c->assigner.size;
	same &= wm_snap_get_i64(r) == c->assigner.slide;
	same &= wm_snap_get_i64(r) == c->assigner.offset;
	same &= wm_snap_get_u32(r) == c->assigner.max_windows;
	same &= wm_snap_get_i64(r) == c->allowed_lateness;
	if (wm_snap_reader_error(r) == 0 && !same)
		wm_snap_reader_fail(r, -EINVAL);
	return wm_snap_reader_error(r);
}

static void
snap_put_counters(struct wm_snap_writer *w,
		  const struct wm_window_join_counters *c)
{
	for (int s = 0; s < 2; s++) {
		wm_snap_put_u64(w, c->side[s].records_in);
		wm_snap_put_u64(w, c->side[s].records_kept);
		wm_snap_put_u64(w, c->side[s].late_records_dropped);
		wm_snap_put_u64(w, c->side[s].records_ignored);
		wm_snap_put_u64(w, c->side[s].records_rejected);
	}
	wm_snap_put_u64(w, c->pairs);
	wm_snap_put_u64(w, c->windows_fired);
	wm_snap_put_u64(w, c->windows_fired_late);
}

static int
snap_get_counters(struct wm_snap_reader *r, struct wm_window_join_counters *c)
{
	for (int s = 0; s < 2; s++) {
		c->side[s].records_in = wm_snap_get_u64(r);
		c->side[s].records_kept = wm_snap_get_u64(r);
		c->side[s].late_records_dropped = wm_snap_get_u64(r);
		c->side[s].records_ignored = wm_snap_get_u64(r);
		c->side[s].records_rejected = wm_snap_get_u64(r);
	}
	c->pairs = wm_snap_get_u64(r);
	c->windows_fired = wm_snap_get_u64(r);
	c->windows_fired_late = wm_snap_get_u64(r);
	if (wm_snap_reader_error(r) == 0 &&
	    !wm_window_join_counters_balanced(c))
		wm_snap_reader_fail(r, -EBADMSG);
	return wm_snap_reader_error(r);
}

void
wm_window_join_snapshot(const struct wm_window_join *op,
			struct wm_snap_writer *w)
{
	const struct contents_table *tb = &op->windows;
	const struct pooled_record *nodes = op->pool.nodes;

	wm_snap_begin(w, JOIN_SNAP_TAG, JOIN_SNAP_VERSION);
	snap_put_config(w, &op->conf);
	snap_put_counters(w, &op->counters);
	wm_snap_put_u64(w, contents_table_count(tb));
	for (size_t i = 0; contents_table_count(tb) > 0 && i <= tb->mask; i++) {
		const struct window_contents *e = &tb->slots[i];

		if (contents_empty(e))
			continue;
		wm_snap_put_i64(w, e->key);
		wm_snap_put_i64(w, e->start);
		for (int s = 0; s < 2; s++) {
			wm_snap_put_u64(w, e->side[s].n);
			for (uint32_t node = e->side[s].head;
			     e->side[s].n > 0 && node != NO_RECORD;
			     node = nodes[node].next) {
				wm_snap_put_i64(w, nodes[node].ts);
				wm_snap_put_i64(w, nodes[node].value);
			}
		}
	}
	wm_timer_snapshot(op->timers, w);
	if (op->sessions != NULL)
		wm_merging_snapshot(op->sessions, w);
	wm_snap_end(w);
}

/* One side's list of a window from the snapshot into the empty list l: 0
 * or the reader's error. */
static int
restore_list(struct wm_window_join *op, struct record_list *l,
	     enum wm_join_side side, struct wm_snap_reader *r)
{
	uint64_t n = wm_snap_get_count(r, JOIN_SNAP_RECORD_BYTES);

	if (n > 0 && pool_reserve(&op->pool, (size_t)n) != 0)
		return wm_snap_reader_fail(r, -ENOMEM);
	for (uint64_t j = 0; j < n && wm_snap_reader_error(r) == 0; j++) {
		wm_ts_t ts = wm_snap_get_i64(r);
		int64_t value = wm_snap_get_i64(r);

		list_append(&op->pool, l, ts, value);
		op->buffered[side]++;
	}
	return wm_snap_reader_error(r);
}

static int
restore_windows(struct wm_window_join *op, struct wm_snap_reader *r)
{
	uint64_t n = wm_snap_get_count(r, JOIN_SNAP_WINDOW_BYTES);

	if (n > 0 && contents_table_reserve(&op->windows, (size_t)n) != 0)
		return wm_snap_reader_fail(r, -ENOMEM);
	for (uint64_t i = 0; i < n && wm_snap_reader_error(r) == 0; i++) {
		struct window_contents v = {0};
		struct contents_key k;
		size_t idx;

		v.key = wm_snap_get_i64(r);
		v.start = wm_snap_get_i64(r);
		v.hash = contents_hash(v.key, v.start);
		k = (struct contents_key){.key = v.key, .start = v.start};
		if (restore_list(op, &v.side[0], WM_JOIN_LEFT, r) != 0 ||
		    restore_list(op, &v.side[1], WM_JOIN_RIGHT, r) != 0)
			return wm_snap_reader_error(r);
		/* Contents exist only with a record; no window twice. */
		if (contents_empty(&v) ||
		    contents_table_lookup(&op->windows, k, v.hash, &idx))
			return wm_snap_reader_fail(r, -EBADMSG);
		*contents_table_insert_at(&op->windows, idx) = v;
	}
	return wm_snap_reader_error(r);
}

int
wm_window_join_restore(struct wm_window_join *op, struct wm_snap_reader *r)
{
	struct wm_window_join_counters counters;

	if (op->counters.side[0].records_in != 0 ||
	    op->counters.side[1].records_in != 0 ||
	    contents_table_count(&op->windows) != 0 ||
	    wm_timer_count(op->timers) != 0 ||
	    wm_timer_watermark(op->timers) != WM_TS_MIN)
		return wm_snap_reader_fail(r, -EINVAL);
	if (wm_snap_enter(r, JOIN_SNAP_TAG, JOIN_SNAP_VERSION) != 0 ||
	    snap_check_config(r, &op->conf) != 0 ||
	    snap_get_counters(r, &counters) != 0 ||
	    restore_windows(op, r) != 0 ||
	    wm_timer_restore(op->timers, r) != 0 ||
	    (op->sessions != NULL &&
	     wm_merging_restore(op->sessions, r) != 0) ||
	    wm_snap_leave(r) != 0)
		return wm_snap_reader_error(r);
	op->counters = counters;
	return 0;
}

void
wm_window_join_snapshot_watermark(const struct wm_window_join *op,
				  struct wm_snap_writer *w)
{
	wm_snap_begin(w, JOIN_WM_SNAP_TAG, JOIN_WM_SNAP_VERSION);
	wm_snap_put_i64(w, wm_timer_watermark(op->timers));
	wm_snap_end(w);
}

int
wm_window_join_restore_watermark(struct wm_window_join *op,
				 struct wm_snap_reader *r)
{
	wm_ts_t w;

	if (wm_snap_enter(r, JOIN_WM_SNAP_TAG, JOIN_WM_SNAP_VERSION) != 0)
		return wm_snap_reader_error(r);
	w = wm_snap_get_i64(r);
	if (wm_snap_leave(r) != 0)
		return wm_snap_reader_error(r);
	wm_timer_set_watermark(op->timers, w);
	return 0;
}
