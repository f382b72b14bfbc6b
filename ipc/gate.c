/*
 * gate.c
 *	Fair reading of a subtask's input rings, and waiting on them.
 */
#include "config.h"

#include <errno.h>

#include "ipc/gate.h"

int
wm_gate_init(struct wm_gate *g, struct wm_ring_consumer *inputs,
	     uint32_t n_inputs, struct wm_doorbell *own_bell,
	     enum wm_wait_mode mode)
{
	if (n_inputs == 0)
		return -EINVAL;
	g->inputs = inputs;
	g->n_inputs = n_inputs;
	g->current = 0;
	g->taken = 0;
	g->burst = WM_GATE_DEFAULT_BURST;
	g->blocked = NULL;
	g->wake_also = NULL;
	g->wake_also_arg = NULL;
	wm_waiter_init(&g->waiter, own_bell, mode);
	g->waiter.before_sleep = wm_gate_release;
	g->waiter.before_sleep_arg = g;
	return 0;
}

void
wm_gate_attach(struct wm_gate *g, uint32_t i, struct wm_ring *ring,
	       struct wm_doorbell *producer_bell)
{
	wm_ring_consumer_attach(&g->inputs[i], ring, producer_bell);
}

static inline bool
is_blocked(const struct wm_gate *g, uint32_t i)
{
	return g->blocked != NULL && g->blocked[i];
}

int
wm_gate_next(struct wm_gate *g, struct wm_gate_take *t, uint32_t max)
{
	/* Stay on the current input for up to `burst` frames, then visit
	 * every other input once before coming back. */
	for (uint32_t visited = 0; visited <= g->n_inputs; visited++) {
		struct wm_ring_consumer *in = &g->inputs[g->current];

		if (g->taken < g->burst && !is_blocked(g, g->current)) {
			uint32_t room = g->burst - g->taken;
			int r;

			t->channel = g->current;
			t->records = wm_ring_peek_records(
				in, &t->cells, room < max ? room : max);
			if (t->records > 0) {
				g->taken += t->records;
				return 1;
			}
			/* Not a record: another frame, none, or corrupt. */
			r = wm_ring_peek(in, &t->frame);
			if (r == 1) {
				/* A row is consumed with its parts. */
				int cells =
					t->frame.kind != WM_FRAME_ROW
						? 1
						: wm_ring_read_row(in, t->row,
								   &t->row_len);

				if (cells < 0)
					return cells;
				wm_ring_consume_run(in, (uint32_t)cells);
				g->taken++;
				return 1;
			}
			if (r != 0)
				return r;
		}
		g->taken = 0;
		g->current = g->current + 1 == g->n_inputs ? 0 : g->current + 1;
	}
	return 0;
}

static bool
any_ready(void *arg)
{
	const struct wm_gate *g = arg;

	for (uint32_t i = 0; i < g->n_inputs; i++)
		if (!is_blocked(g, i) && wm_ring_ready(&g->inputs[i]))
			return true;
	return g->wake_also != NULL && g->wake_also(g->wake_also_arg);
}

void
wm_gate_release(void *arg)
{
	struct wm_gate *g = arg;

	for (uint32_t i = 0; i < g->n_inputs; i++)
		wm_ring_release(&g->inputs[i]);
}

void
wm_gate_nudge(struct wm_gate *g)
{
	for (uint32_t i = 0; i < g->n_inputs; i++)
		wm_ring_nudge_producer(&g->inputs[i]);
}

int
wm_gate_wait(struct wm_gate *g, int64_t timeout_ns)
{
	return wm_wait(&g->waiter, any_ready, g, timeout_ns);
}
