/*
 * multi_input.c
 *	Flink's combination of an operator's inputs.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "operators/multi_input.h"

static void
port_watermark(struct wm_output *out, wm_ts_t w)
{
	struct wm_input_port *port =
		wm_container_of(out, struct wm_input_port, output);
	struct wm_multi_input *mi = port->owner;

	wm_partial_set_watermark(&port->partial, w);
	if (wm_combined_update(&mi->combined, mi->parts, mi->n_inputs))
		wm_output_watermark(mi->out, mi->combined.watermark);
}

static void
port_status(struct wm_output *out, enum wm_status status)
{
	struct wm_input_port *port =
		wm_container_of(out, struct wm_input_port, output);
	struct wm_multi_input *mi = port->owner;
	bool was_idle = mi->combined.all_idle;

	port->partial.idle = status == WM_STATUS_IDLE;
	/* The other inputs alone may now define a higher minimum. */
	if (wm_combined_update(&mi->combined, mi->parts, mi->n_inputs))
		wm_output_watermark(mi->out, mi->combined.watermark);
	if (mi->combined.all_idle != was_idle)
		wm_output_status(mi->out, status);
}

int
wm_multi_input_init(struct wm_multi_input *mi, size_t n_inputs,
		    struct wm_output *out, unsigned behaviour)
{
	if (n_inputs == 0)
		return -EINVAL;
	mi->ports = calloc(n_inputs, sizeof(*mi->ports));
	mi->parts = calloc(n_inputs, sizeof(*mi->parts));
	if (mi->ports == NULL || mi->parts == NULL) {
		free(mi->ports);
		free(mi->parts);
		return -ENOMEM;
	}
	mi->out = out;
	mi->n_inputs = n_inputs;
	wm_combined_init(&mi->combined, behaviour);
	for (size_t i = 0; i < n_inputs; i++) {
		struct wm_input_port *port = &mi->ports[i];

		port->output.watermark = port_watermark;
		port->output.status = port_status;
		port->owner = mi;
		wm_partial_init(&port->partial);
		mi->parts[i] = &port->partial;
	}
	return 0;
}

void
wm_multi_input_destroy(struct wm_multi_input *mi)
{
	free(mi->ports);
	free(mi->parts);
	mi->ports = NULL;
	mi->parts = NULL;
	mi->n_inputs = 0;
}

void
wm_multi_input_snapshot(const struct wm_multi_input *mi,
			struct wm_snap_writer *w)
{
	wm_combined_snapshot(&mi->combined, mi->parts, mi->n_inputs, w);
}

int
wm_multi_input_restore(struct wm_multi_input *mi, struct wm_snap_reader *r)
{
	return wm_combined_restore(&mi->combined, mi->parts, mi->n_inputs, r);
}
