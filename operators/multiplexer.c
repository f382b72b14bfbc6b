/*
 * multiplexer.c
 *	Flink's WatermarkOutputMultiplexer over caller-owned splits.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/assert.h"
#include "operators/behaviour.h"
#include "operators/multiplexer.h"
#include "lib/snap.h"

/*
 * Flink's updateCombinedWatermark(): a raised combined watermark is emitted,
 * and an all-idle state is reported (on every call; the output dedups).
 * Released Flink never raises the watermark when all splits are idle, so
 * there it is one or the other; WM_MUX_ALLIDLE_FLUSH_MAX emits the flushed
 * maximum and then IDLE in the same call. WM_MUX_REACTIVATE adds: leaving
 * the all-idle state without a new watermark announces ACTIVE.
 */
static void
recompute(struct wm_multiplexer *m)
{
	bool was_all_idle = m->combined.all_idle;
	wm_ts_t before = m->combined.watermark;
	bool raised = wm_combined_update(&m->combined, m->parts, m->n_splits);

	/* The combined watermark never goes backwards (combine.h). */
	WM_ASSERT(m->combined.watermark >= before);
	WM_ASSERT(raised == (m->combined.watermark > before));

	if (raised)
		wm_output_watermark(m->out, m->combined.watermark);
	if (m->n_splits == 0 && m->had_splits && m->empty_is_idle)
		m->combined.all_idle = true;
	if (m->combined.all_idle)
		wm_output_status(m->out, WM_STATUS_IDLE);
	else if (!raised && was_all_idle && m->reactivate)
		wm_output_status(m->out, WM_STATUS_ACTIVE);
}

/* The split's idle flag becomes `idle`. With a grace, a split leaving
 * idleness starts joining (multiplexer.h); going idle ends it. */
static void
split_set_idle(struct wm_mux_split *s, bool idle)
{
	if (s->mux->grace_ns > 0 && s->partial.idle != idle) {
		s->partial.joining = !idle;
		s->joins_at_ns = WM_MUX_GRACE_UNSTARTED;
	}
	s->partial.idle = idle;
}

static void
immediate_watermark(struct wm_output *out, wm_ts_t w)
{
	struct wm_mux_split *s =
		wm_container_of(out, struct wm_mux_split, immediate);
	bool was_idle = s->partial.idle;
	bool increased;

	split_set_idle(s, false); /* a watermark ends idleness (combine.h) */
	increased = wm_partial_set_watermark(&s->partial, w);

	/* Only a raise above the combined value can move it; with
	 * WM_MUX_REACTIVATE a resumed idle split may also end all-idle. */
	if ((increased && w > s->mux->combined.watermark) ||
	    (was_idle && s->mux->reactivate))
		recompute(s->mux);
}

static void
immediate_status(struct wm_output *out, enum wm_status status)
{
	struct wm_mux_split *s =
		wm_container_of(out, struct wm_mux_split, immediate);

	split_set_idle(s, status == WM_STATUS_IDLE);
	recompute(s->mux);
}

static void
deferred_watermark(struct wm_output *out, wm_ts_t w)
{
	struct wm_mux_split *s =
		wm_container_of(out, struct wm_mux_split, deferred);

	split_set_idle(s, false);
	wm_partial_set_watermark(&s->partial, w);
}

static void
deferred_status(struct wm_output *out, enum wm_status status)
{
	struct wm_mux_split *s =
		wm_container_of(out, struct wm_mux_split, deferred);

	split_set_idle(s, status == WM_STATUS_IDLE);
}

void
wm_multiplexer_init(struct wm_multiplexer *m, struct wm_output *out,
		    unsigned behaviour)
{
	memset(m, 0, sizeof(*m));
	m->out = out;
	wm_combined_init(&m->combined, behaviour);
	m->empty_is_idle = wm_behaviour_has(behaviour, WM_MUX_EMPTY_IS_IDLE);
	m->reactivate = wm_behaviour_has(behaviour, WM_MUX_REACTIVATE);
}

void
wm_multiplexer_destroy(struct wm_multiplexer *m)
{
	free(m->parts);
	m->parts = NULL;
	m->n_splits = m->cap_splits = 0;
}

int
wm_multiplexer_register(struct wm_multiplexer *m, struct wm_mux_split *split)
{
	/* Not registered already (multiplexer.h): a registered split's
	 * index leads back to it. */
	WM_ASSERT(split->mux != m || split->index >= m->n_splits ||
		  m->parts[split->index] != &split->partial);
	if (m->n_splits == m->cap_splits) {
		size_t cap = m->cap_splits ? 2 * m->cap_splits : 8;
		void *parts = realloc(m->parts, cap * sizeof(*m->parts));

		if (parts == NULL)
			return -ENOMEM;
		m->parts = parts;
		m->cap_splits = cap;
	}
	split->mux = m;
	wm_partial_init(&split->partial);
	split->immediate.watermark = immediate_watermark;
	split->immediate.status = immediate_status;
	split->deferred.watermark = deferred_watermark;
	split->deferred.status = deferred_status;
	split->index = m->n_splits;
	m->parts[m->n_splits++] = &split->partial;
	m->had_splits = true;
	return 0;
}

int
wm_multiplexer_unregister(struct wm_multiplexer *m, struct wm_mux_split *split)
{
	size_t i = split->index;
	struct wm_mux_split *last;

	/* parts[] is the authority: a stale index (split unregistered, its
	 * position since reused or gone) does not point back at the split. */
	if (i >= m->n_splits || m->parts[i] != &split->partial)
		return -ENOENT;
	/* Fill the gap with the last split: the order is not observable
	 * (multiplexer.h). */
	last = wm_multiplexer_split(m, --m->n_splits);
	m->parts[i] = &last->partial;
	last->index = i;
	return 0;
}

void
wm_multiplexer_on_periodic(struct wm_multiplexer *m)
{
	recompute(m);
}

void
wm_multiplexer_set_grace(struct wm_multiplexer *m, int64_t grace_ns)
{
	WM_ASSERT(grace_ns >= 0);
	m->grace_ns = grace_ns;
}

void
wm_multiplexer_advance_grace(struct wm_multiplexer *m, int64_t now_ns)
{
	for (size_t i = 0; i < m->n_splits; i++) {
		struct wm_mux_split *s = wm_multiplexer_split(m, i);

		if (!s->partial.joining)
			continue;
		if (s->joins_at_ns == WM_MUX_GRACE_UNSTARTED)
			s->joins_at_ns = now_ns > INT64_MAX - m->grace_ns
						 ? INT64_MAX
						 : now_ns + m->grace_ns;
		if (now_ns >= s->joins_at_ns ||
		    s->partial.watermark >= m->combined.watermark)
			s->partial.joining = false;
	}
}

int64_t
wm_multiplexer_next_join(const struct wm_multiplexer *m)
{
	int64_t at = INT64_MAX;

	for (size_t i = 0; i < m->n_splits; i++) {
		const struct wm_mux_split *s = wm_multiplexer_split(m, i);

		if (s->partial.joining &&
		    s->joins_at_ns != WM_MUX_GRACE_UNSTARTED &&
		    s->joins_at_ns < at)
			at = s->joins_at_ns;
	}
	return at;
}

#define MUX_SNAP_TAG WM_SNAP_TAG('M', 'U', 'X', 'S')
#define MUX_SNAP_VERSION 1

void
wm_multiplexer_snapshot(const struct wm_multiplexer *m,
			struct wm_snap_writer *w)
{
	wm_snap_begin(w, MUX_SNAP_TAG, MUX_SNAP_VERSION);
	wm_snap_put_bool(w, m->empty_is_idle);
	wm_snap_put_bool(w, m->reactivate);
	wm_snap_put_i64(w, m->grace_ns);
	wm_snap_put_bool(w, m->had_splits);
	wm_combined_snapshot(&m->combined, m->parts, m->n_splits, w);
	for (size_t i = 0; i < m->n_splits; i++)
		wm_snap_put_i64(w, wm_multiplexer_split(m, i)->joins_at_ns);
	wm_snap_end(w);
}

int
wm_multiplexer_restore(struct wm_multiplexer *m, struct wm_snap_reader *r)
{
	bool same;
	bool had_splits;

	if (wm_snap_enter(r, MUX_SNAP_TAG, MUX_SNAP_VERSION) != 0)
		return wm_snap_reader_error(r);
	same = wm_snap_get_bool(r) == m->empty_is_idle;
	same &= wm_snap_get_bool(r) == m->reactivate;
	same &= wm_snap_get_i64(r) == m->grace_ns;
	had_splits = wm_snap_get_bool(r);
	if (wm_snap_reader_error(r) == 0 && !same)
		return wm_snap_reader_fail(r, -EINVAL);
	if (wm_combined_restore(&m->combined, m->parts, m->n_splits, r) != 0)
		return wm_snap_reader_error(r);
	for (size_t i = 0; i < m->n_splits; i++)
		wm_multiplexer_split(m, i)->joins_at_ns = wm_snap_get_i64(r);
	if (wm_snap_leave(r) != 0)
		return wm_snap_reader_error(r);
	m->had_splits = had_splits || m->n_splits > 0;
	return 0;
}
