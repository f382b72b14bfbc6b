/*
 * fuzz_snapshot.c
 *	libFuzzer entry point for the restores of checkpoints (lib/snap.h
 *	and every wm_*_restore()). For manual runs; built by `make fuzz`, not
 *	by `make` or `make check`: see tests/fuzz/README.md.
 *
 * The first byte chooses what restores the rest: a window operator
 * (tumbling, sliding or session, with or without allowed lateness and
 * purging, with its watermark section after it or not), a valve, a
 * multiplexer of three splits, a two-input combination, a watermark
 * generator with idleness, or a paced generator. An input that is
 * refused must say why with a negative errno; one that is accepted is
 * then run a little (watermarks up to MAX, records, ticks), so that a
 * state the reader let through cannot crash what uses it.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "operators/behaviour.h"
#include "operators/multi_input.h"
#include "operators/multiplexer.h"
#include "lib/snap.h"
#include "operators/source_gen.h"
#include "operators/valve.h"
#include "operators/watermark.h"
#include "operators/window.h"
#include "tests/fuzz/fuzz.h"

static void
ignore_watermark(struct wm_output *out, wm_ts_t w)
{
	(void)out;
	(void)w;
}

static void
ignore_status(struct wm_output *out, enum wm_status s)
{
	(void)out;
	(void)s;
}

static void
ignore_result(struct wm_window_output *out, const struct wm_window_result *r)
{
	(void)out;
	(void)r;
}

static void
ignore_late(struct wm_window_output *out, const struct wm_record *rec)
{
	(void)out;
	(void)rec;
}

static struct wm_output sink = {ignore_watermark, ignore_status};

/* The reader's verdict: 0, or a negative errno it must have kept. */
static void
check_verdict(const struct wm_snap_reader *r, int rc)
{
	if (rc > 0 || rc != wm_snap_reader_error(r))
		abort();
}

static void
fuzz_window(uint8_t how, struct wm_snap_reader *r)
{
	struct wm_window_output out = {ignore_result, ignore_late, sink};
	struct wm_window_config conf = {0};
	struct wm_window *op;
	const char *why;
	int rc;

	switch (how % 3) {
	case 0:
		rc = wm_window_tumbling(&conf.assigner, 10, 0, &why);
		break;
	case 1:
		rc = wm_window_sliding(&conf.assigner, 30, 10, 0, &why);
		break;
	default:
		rc = wm_window_session(&conf.assigner, 10, &why);
		break;
	}
	if (rc != 0)
		abort();
	conf.allowed_lateness = how & 8 ? 25 : 0;
	conf.purging = how & 16;
	conf.late_side_output = how & 32;
	op = wm_window_new(&conf, &why);
	if (op == NULL)
		return;
	rc = wm_window_restore(op, r);
	if (rc == 0 && (how & 64))
		rc = wm_window_restore_watermark(op, r);
	check_verdict(r, rc);
	if (rc == 0) {
		for (int64_t t = 0; t < 100; t += 7) {
			struct wm_record rec = {.ts = t, .key = t % 3};

			(void)wm_window_process_element(op, &rec, &out);
			wm_window_process_watermark(op, t - 20, &out);
		}
		wm_window_process_watermark(op, WM_TS_MAX, &out);
	}
	wm_window_free(op);
}

static void
fuzz_valve(struct wm_snap_reader *r)
{
	struct wm_valve *v = wm_valve_new(5, WM_BEHAVIOUR_RELEASED);
	int rc;

	if (v == NULL)
		return;
	rc = wm_valve_restore(v, r);
	check_verdict(r, rc);
	if (rc == 0)
		for (uint32_t c = 0; c < 5; c++) {
			wm_valve_input_status(v, c, WM_STATUS_ACTIVE, &sink);
			wm_valve_input_watermark(v, c, WM_TS_MAX, &sink);
		}
	wm_valve_free(v);
}

static void
fuzz_multiplexer(struct wm_snap_reader *r)
{
	struct wm_multiplexer m;
	struct wm_mux_split split[3];
	int rc;

	wm_multiplexer_init(&m, &sink, WM_BEHAVIOUR_RELEASED);
	wm_multiplexer_set_grace(&m, 1000);
	for (int i = 0; i < 3; i++)
		if (wm_multiplexer_register(&m, &split[i]) != 0)
			goto out;
	rc = wm_multiplexer_restore(&m, r);
	check_verdict(r, rc);
	if (rc == 0)
		for (int i = 0; i < 3; i++) {
			wm_output_watermark(&split[i].deferred, 100 * i);
			wm_multiplexer_advance_grace(&m, 500 * i);
			wm_multiplexer_on_periodic(&m);
		}
out:
	wm_multiplexer_destroy(&m);
}

static void
fuzz_multi_input(struct wm_snap_reader *r)
{
	struct wm_multi_input mi;
	int rc;

	if (wm_multi_input_init(&mi, 2, &sink, WM_BEHAVIOUR_RELEASED) != 0)
		return;
	rc = wm_multi_input_restore(&mi, r);
	check_verdict(r, rc);
	if (rc == 0) {
		wm_output_watermark(wm_multi_input_port(&mi, 0), 5);
		wm_output_status(wm_multi_input_port(&mi, 1), WM_STATUS_IDLE);
	}
	wm_multi_input_destroy(&mi);
}

static void
fuzz_generator(struct wm_snap_reader *r)
{
	struct wm_watermark_strategy st = {
		.kind = WM_WATERMARK_BOUNDED,
		.out_of_orderness_ms = 50,
		.interval_ms = 200,
		.with_idleness = true,
		.idle_timeout_ms = 300,
	};
	struct wm_watermark_generator g;
	int rc;

	if (wm_watermark_init(&g, &st) != 0)
		abort();
	rc = wm_watermark_restore(&g, r);
	check_verdict(r, rc);
	if (rc == 0)
		for (int64_t t = 0; t < 5; t++) {
			wm_watermark_on_event(&g, t * 100, 0, &sink);
			wm_watermark_on_periodic(&g, t * 400000000, &sink);
		}
}

static void
fuzz_source(struct wm_snap_reader *r)
{
	static const uint32_t parts[] = {0, 1};
	struct wm_source_gen_conf c;
	struct wm_source_gen *g;
	struct wm_record rec;
	int rc;

	wm_source_gen_conf_init(&c);
	c.n_partitions = 2;
	c.partitions = parts;
	c.rate = 1000;
	c.end_ts = 1000;
	c.keys = 10;
	g = wm_source_gen_new(&c);
	if (g == NULL)
		return;
	rc = wm_record_source_restore(wm_source_gen_source(g), r);
	check_verdict(r, rc);
	if (rc == 0)
		for (int i = 0;
		     i < 1000 && wm_source_gen_next(g, 2000000000, &rec) == 1;
		     i++)
			;
	wm_source_gen_free(g);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wm_snap_reader r;
	uint8_t how;

	if (size == 0)
		return 0;
	how = data[0];
	wm_snap_reader_init(&r, data + 1, size - 1);
	switch ((how >> 7) * 4 + how % 4) {
	case 0:
	case 1:
	case 2:
	case 3:
		fuzz_window(how, &r);
		break;
	case 4:
		fuzz_valve(&r);
		break;
	case 5:
		fuzz_multiplexer(&r);
		break;
	case 6:
		fuzz_multi_input(&r);
		fuzz_generator(&r);
		break;
	default:
		fuzz_source(&r);
		break;
	}
	return 0;
}
