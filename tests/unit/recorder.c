/*
 * recorder.c
 *	Text recording of watermark and status emissions for unit tests.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/recorder.h"

static void
append(struct recorder *r, const char *item)
{
	int n = snprintf(r->text + r->len, sizeof(r->text) - r->len, "%s%s",
			 r->len ? " " : "", item);

	if (n > 0 && (size_t)n < sizeof(r->text) - r->len)
		r->len += (size_t)n;
}

static void
record_watermark(struct wm_output *out, wm_ts_t w)
{
	struct recorder *r = wm_container_of(out, struct recorder, out);
	char item[32];

	if (w == WM_TS_MIN)
		snprintf(item, sizeof(item), "W(MIN)");
	else if (w == WM_TS_MAX)
		snprintf(item, sizeof(item), "W(MAX)");
	else
		snprintf(item, sizeof(item), "W(%" PRId64 ")", w);
	append(r, item);
}

static void
record_status(struct wm_output *out, enum wm_status status)
{
	struct recorder *r = wm_container_of(out, struct recorder, out);

	append(r, status == WM_STATUS_IDLE ? "IDLE" : "ACTIVE");
}

void
recorder_note(struct recorder *r, const char *note)
{
	append(r, note);
}

void
recorder_init(struct recorder *r)
{
	r->out.watermark = record_watermark;
	r->out.status = record_status;
	r->len = 0;
	r->text[0] = '\0';
}

const char *
recorder_take(struct recorder *r)
{
	static char taken[sizeof(r->text)];

	memcpy(taken, r->text, r->len + 1);
	r->len = 0;
	r->text[0] = '\0';
	return taken;
}
