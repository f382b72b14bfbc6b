/*
 * gate.h
 *	One subtask's input rings, read fairly (Flink's input gate).
 *
 * Frames come from one ring at a time, at most `burst` in a row, then the
 * gate moves on to the next ring, so a busy channel cannot starve a quiet
 * one (whose watermark may be the one holding event time back). Records
 * come as runs read in place (the burst pop: one call for up to `burst`
 * records, none copied), other frames one at a time. A ring whose channel
 * delivered END stays empty, and reading it costs one load of a tail per
 * round. When no input has a frame, wm_gate_wait() sleeps on the
 * subtask's doorbell, which every producer of this subtask rings.
 *
 * Process-local, in memory the caller owns (the gate allocates nothing);
 * the rings are in the shared segment.
 */
#ifndef WM_IPC_GATE_H
#define WM_IPC_GATE_H

#include <stdbool.h>
#include <stdint.h>

#include "ipc/ring.h"
#include "ipc/wait.h"

#define WM_GATE_DEFAULT_BURST 256u

struct wm_gate {
	uint32_t n_inputs;
	uint32_t current; /* the channel being read */
	uint32_t taken;	  /* frames taken from it in a row */
	uint32_t burst;
	struct wm_ring_consumer *inputs; /* the caller's, n_inputs of them */
	/* Inputs the gate must not read (a checkpoint's alignment: a
	 * channel that delivered its barrier waits for the others); the
	 * caller's, n_inputs of them, or NULL while none ever is. */
	const bool *blocked;
	/* What else ends wm_gate_wait() (a request of the supervisor's,
	 * announced by a ring of this subtask's doorbell); NULL: nothing. */
	bool (*wake_also)(void *arg);
	void *wake_also_arg;
	struct wm_waiter waiter;
};

/* A gate over the `n_inputs` consumers at `inputs` (the caller's memory,
 * which must outlive the gate); attach each ring with wm_gate_attach().
 * 0, or -EINVAL if there is no input. */
int wm_gate_init(struct wm_gate *g, struct wm_ring_consumer *inputs,
		 uint32_t n_inputs, struct wm_doorbell *own_bell,
		 enum wm_wait_mode mode);

/* Inputs to leave unread while blocked[i] is true (the caller's memory,
 * n_inputs flags, which it changes only between calls): wm_gate_next()
 * passes them by and wm_gate_wait() does not wake for them, so a
 * subtask whose open inputs are all dry sleeps even when a blocked one
 * holds frames. The producer of a blocked input fills its ring and then
 * waits: back-pressure, as Flink's aligned checkpoints exert. */
static inline void
wm_gate_set_blocked(struct wm_gate *g, const bool *blocked)
{
	g->blocked = blocked;
}

/* wm_gate_wait() also returns once `wake(arg)` is true: its caller then
 * looks at what the producer of that condition asked. */
static inline void
wm_gate_set_wake_also(struct wm_gate *g, bool (*wake)(void *arg), void *arg)
{
	g->wake_also = wake;
	g->wake_also_arg = arg;
}

/* Input `i` reads `ring`, produced by the subtask owning `producer_bell`. */
void wm_gate_attach(struct wm_gate *g, uint32_t i, struct wm_ring *ring,
		    struct wm_doorbell *producer_bell);

/*
 * What wm_gate_next() took from input `channel`: either a run of
 * `records` > 0 RECORD cells at `cells`, in the ring, which the caller
 * reads where they lie and then releases with wm_gate_consume(); or
 * (records == 0) one other frame, copied into `frame` and consumed
 * already (a ROW with its fields in `row`). A record that arrived just as the gate looked may come that
 * way too, as a RECORD frame.
 */
struct wm_gate_take {
	uint32_t channel;
	uint32_t records;
	const struct wm_cell *cells;
	struct wm_frame frame;
	/* A ROW frame's fields, copied out of its parts (ring.h,
	 * wm_ring_read_row()), all consumed with it. */
	uint32_t row_len;
	unsigned char row[WM_FRAME_ROW_MAX_BYTES];
};

/*
 * The next thing to read from any input, at most `max` (>= 1) records: 1
 * with *t filled, 0 if no input has a frame now, -EBADMSG if the cell at
 * input t->channel is corrupt (nothing consumed; see wm_ring_dump()).
 * Records of a run count against the burst as frames do. Until the run is
 * consumed the gate must not be asked again.
 */
int wm_gate_next(struct wm_gate *g, struct wm_gate_take *t, uint32_t max);

/* Release the run that wm_gate_next() handed out in *t (nothing to do for
 * a frame): its cells are the producer's again (ring.h). */
static inline void
wm_gate_consume(struct wm_gate *g, const struct wm_gate_take *t)
{
	if (t->records > 0)
		wm_ring_consume_run(&g->inputs[t->channel], t->records);
}

/* Sleep until some input has a frame (or the wake_also condition holds),
 * or `timeout_ns` (< 0: no limit) passes: 0, -ETIMEDOUT, or another negative errno. Before it
 * really sleeps it hands every producer all consumed space, fenced
 * (wm_gate_release(), the waiter's before_sleep; a subtask that also
 * produces chains its own flush in front of it). */
int wm_gate_wait(struct wm_gate *g, int64_t timeout_ns);

/* Publish every input's position and ring its producer, fenced. */
void wm_gate_release(void *gate);

/* The busy path's counterpart: publish every input's position and
 * nudge its producer, unfenced (wm_ring_nudge_producer()). After each
 * burst of a subtask that does not sleep, so that a producer asleep on a
 * full ring is woken even if the consumer stays busy with other inputs. */
void wm_gate_nudge(struct wm_gate *g);

#endif /* WM_IPC_GATE_H */
