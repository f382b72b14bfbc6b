/*
 * source_watermarks.c
 *	Partition generators, multiplexer, idleness gate and data output of
 *	one source subtask, wired as Flink wires them.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "operators/source_watermarks.h"

/*
 * The gate. A watermark from a side goes straight through and clears that
 * side's idle flag (even if the data output then drops it); IDLE from a side
 * reaches the data output only when both sides are idle; ACTIVE goes
 * straight through.
 */
static void
gate_watermark(struct wm_output *out, wm_ts_t w)
{
	struct wm_gate_side *side =
		wm_container_of(out, struct wm_gate_side, output);

	wm_data_output_watermark(&side->owner->data, w);
	side->idle = false;
}

static void
gate_status(struct wm_output *out, enum wm_status status)
{
	struct wm_gate_side *side =
		wm_container_of(out, struct wm_gate_side, output);
	struct wm_source_watermarks *sw = side->owner;

	if (status == WM_STATUS_ACTIVE) {
		side->idle = false;
		wm_data_output_status(&sw->data, WM_STATUS_ACTIVE);
		return;
	}
	side->idle = true;
	if (sw->split_side.idle && sw->main_side.idle)
		wm_data_output_status(&sw->data, WM_STATUS_IDLE);
}

static void
gate_side_init(struct wm_gate_side *side, struct wm_source_watermarks *owner)
{
	side->output.watermark = gate_watermark;
	side->output.status = gate_status;
	side->owner = owner;
	side->idle = true;
}

int
wm_source_watermarks_init(struct wm_source_watermarks *sw,
			  const struct wm_watermark_strategy *strategy,
			  struct wm_output *out)
{
	memset(sw, 0, sizeof(*sw));
	sw->strategy = *strategy;
	if (wm_watermark_init(&sw->main_generator, strategy) != 0)
		return -EINVAL;
	wm_data_output_init(&sw->data, out, strategy->behaviour);
	gate_side_init(&sw->split_side, sw);
	gate_side_init(&sw->main_side, sw);
	wm_multiplexer_init(&sw->mux, &sw->split_side.output,
			    strategy->behaviour);
	sw->next_tick_ns = INT64_MAX;
	return 0;
}

void
wm_source_watermarks_destroy(struct wm_source_watermarks *sw)
{
	for (size_t i = 0; i < sw->n_splits; i++)
		free(sw->splits[i]);
	free(sw->splits);
	sw->splits = NULL;
	sw->n_splits = sw->cap_splits = 0;
	wm_multiplexer_destroy(&sw->mux);
}

struct wm_source_split *
wm_source_watermarks_split(struct wm_source_watermarks *sw, uint64_t id)
{
	for (size_t i = 0; i < sw->n_splits; i++)
		if (sw->splits[i]->id == id)
			return sw->splits[i];
	return NULL;
}

struct wm_source_split *
wm_source_watermarks_add_split(struct wm_source_watermarks *sw, uint64_t id)
{
	struct wm_source_split *split;

	if (wm_source_watermarks_split(sw, id) != NULL) {
		errno = EEXIST;
		return NULL;
	}
	if (sw->n_splits == sw->cap_splits) {
		size_t cap = sw->cap_splits ? 2 * sw->cap_splits : 8;
		void *splits = realloc(sw->splits, cap * sizeof(*sw->splits));

		if (splits == NULL)
			return NULL;
		sw->splits = splits;
		sw->cap_splits = cap;
	}
	split = calloc(1, sizeof(*split));
	if (split == NULL)
		return NULL;
	split->id = id;
	/* The strategy was validated by init, so this cannot fail. */
	wm_watermark_init(&split->generator, &sw->strategy);
	if (wm_multiplexer_register(&sw->mux, &split->slot) != 0) {
		free(split);
		errno = ENOMEM;
		return NULL;
	}
	sw->splits[sw->n_splits++] = split;
	return split;
}

int
wm_source_watermarks_remove_split(struct wm_source_watermarks *sw, uint64_t id)
{
	for (size_t i = 0; i < sw->n_splits; i++) {
		struct wm_source_split *split = sw->splits[i];

		if (split->id != id)
			continue;
		wm_multiplexer_unregister(&sw->mux, &split->slot);
		memmove(&sw->splits[i], &sw->splits[i + 1],
			(sw->n_splits - i - 1) * sizeof(*sw->splits));
		sw->n_splits--;
		free(split);
		return 0;
	}
	return -ENOENT;
}

void
wm_source_watermarks_on_main_record(struct wm_source_watermarks *sw, wm_ts_t ts,
				    uint32_t flags)
{
	wm_watermark_on_event(&sw->main_generator, ts, flags,
			      &sw->main_side.output);
}

void
wm_source_watermarks_pause(struct wm_source_watermarks *sw, bool paused,
			   int64_t now_ns)
{
	if (paused)
		wm_pausable_clock_pause(&sw->clock, now_ns);
	else
		wm_pausable_clock_resume(&sw->clock, now_ns);
}

void
wm_source_split_pause(struct wm_source_watermarks *sw,
		      struct wm_source_split *split, bool paused,
		      int64_t now_ns)
{
	/* A partition's pauses are measured on the subtask's clock, so a
	 * stretch in which both were paused is not taken off twice. */
	int64_t subtask_now = wm_pausable_clock_read(&sw->clock, now_ns);

	if (paused)
		wm_pausable_clock_pause(&split->clock, subtask_now);
	else
		wm_pausable_clock_resume(&split->clock, subtask_now);
}

void
wm_source_watermarks_on_periodic(struct wm_source_watermarks *sw,
				 int64_t now_ns)
{
	int64_t subtask_now = wm_pausable_clock_read(&sw->clock, now_ns);

	for (size_t i = 0; i < sw->n_splits; i++) {
		struct wm_source_split *split = sw->splits[i];

		wm_watermark_on_periodic(
			&split->generator,
			wm_pausable_clock_read(&split->clock, subtask_now),
			&split->slot.deferred);
	}
	wm_multiplexer_on_periodic(&sw->mux);
	wm_watermark_on_periodic(&sw->main_generator, subtask_now,
				 &sw->main_side.output);
}

/* now + interval, saturating: a tick that would come after the end of
 * time never comes. Clocks are monotonic and start at 0, so now_ns >= 0. */
static int64_t
tick_after(const struct wm_source_watermarks *sw, int64_t now_ns)
{
	int64_t interval_ms = sw->strategy.interval_ms;

	return interval_ms == 0 ? INT64_MAX
				: wm_ns_after_ms(now_ns, interval_ms);
}

void
wm_source_watermarks_start(struct wm_source_watermarks *sw, int64_t now_ns)
{
	sw->next_tick_ns = tick_after(sw, now_ns);
}

bool
wm_source_watermarks_poll(struct wm_source_watermarks *sw, int64_t now_ns)
{
	if (now_ns < sw->next_tick_ns)
		return false;
	wm_source_watermarks_on_periodic(sw, now_ns);
	sw->next_tick_ns = tick_after(sw, now_ns);
	return true;
}

void
wm_source_watermarks_end_of_input(struct wm_source_watermarks *sw)
{
	wm_data_output_end_of_input(&sw->data);
}
