/*
 * gate.h
 *	One subtask's input rings, read fairly (Flink's input gate).
 *
 * Frames come from one ring at a time, at most `burst` in a row, then the
 * gate moves on to the next ring, so a busy channel cannot starve a quiet
 * one (whose watermark may be the one holding event time back). A ring
 * whose channel delivered END stays empty, and reading it costs one load
 * of a tail per round. When no input has a frame, wm_gate_wait() sleeps
 * on the subtask's doorbell, which every producer of this subtask rings.
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
	struct wm_waiter waiter;
};

/* A gate over the `n_inputs` consumers at `inputs` (the caller's memory,
 * which must outlive the gate); attach each ring with wm_gate_attach().
 * 0, or -EINVAL if there is no input. */
int wm_gate_init(struct wm_gate *g, struct wm_ring_consumer *inputs,
		 uint32_t n_inputs, struct wm_doorbell *own_bell,
		 enum wm_wait_mode mode);

/* Input `i` reads `ring`, produced by the subtask owning `producer_bell`. */
void wm_gate_attach(struct wm_gate *g, uint32_t i, struct wm_ring *ring,
		    struct wm_doorbell *producer_bell);

/*
 * The next frame from any input: 1 with *channel and *f filled
 * (the frame is consumed), 0 if none has one now, -EBADMSG if the cell at
 * input *channel is corrupt (nothing consumed; see wm_ring_dump()).
 */
int wm_gate_next(struct wm_gate *g, uint32_t *channel, struct wm_frame *f);

/* Sleep until some input has a frame, or `timeout_ns` (< 0: no
 * limit) passes: 0, -ETIMEDOUT, or another negative errno. Before it
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
