/*
 * output.h
 *	The output through which pure operators speak: watermarks and
 *	statuses, synchronously, to whoever embeds it.
 */
#ifndef WM_OPERATORS_OUTPUT_H
#define WM_OPERATORS_OUTPUT_H

#include "base/container_of.h"
#include "base/record.h"
#include "base/time.h"

/*
 * Where an operator sends watermarks and statuses. Callers embed it in their
 * own struct and recover that with wm_container_of(). Both callbacks must be
 * set. Calls happen synchronously, in emission order, on the caller's thread.
 */
struct wm_output {
	void (*watermark)(struct wm_output *out, wm_ts_t watermark);
	void (*status)(struct wm_output *out, enum wm_status status);
};

static inline void
wm_output_watermark(struct wm_output *out, wm_ts_t watermark)
{
	out->watermark(out, watermark);
}

static inline void
wm_output_status(struct wm_output *out, enum wm_status status)
{
	out->status(out, status);
}

#endif /* WM_OPERATORS_OUTPUT_H */
