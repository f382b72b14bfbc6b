/*
 * fuzz_topology.c
 *	libFuzzer entry point for the topology loader of runtime/conf/ (and
 *	the INI reader and unit parsers under it), then what `wmrun --check`
 *	does with a valid topology: the plan and its placement on this
 *	machine (runtime/plan/). For manual runs; built by `make fuzz`, not
 *	by `make` or `make check`: see tests/fuzz/README.md.
 *
 * Each input is a topology file, loaded with wm_topology_load_buffer() as
 * "fuzz.conf". An error must name that file, a line and column inside the
 * input (line 0 only for "no stages", which is about the whole file) and
 * come with -EINVAL (exit 78); anything else is abort()ed, which libFuzzer
 * reports with the input. A valid topology must plan, and placing it may
 * only fail for an explicit `cpus` list.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/plan/affinity.h"
#include "runtime/plan/placement.h"
#include "runtime/plan/plan.h"
#include "runtime/conf/topology.h"
#include "tests/fuzz/fuzz.h"

#define NAME "fuzz.conf"

static struct wm_affinity *machine;
static FILE *devnull;

static void
check_error(const uint8_t *data, size_t size, int rc,
	    const struct wm_ini_error *err)
{
	char msg[WM_INI_MSG_MAX + 64];

	if (rc == -EFBIG)
		return;
	if (rc != -EINVAL || err->file == NULL || strcmp(err->file, NAME) != 0)
		abort();
	if (err->line == 0) {
		/* About the whole file: only "no stages" is. */
		if (strncmp(err->msg, "no stages", 9) != 0)
			abort();
	} else if (err->line < 1 || err->line > fuzz_lines(data, size) ||
		   err->col < 1 || (size_t)err->col > size + 1) {
		abort();
	}
	if (err->msg[0] == '\0')
		abort();
	wm_ini_error_format(err, msg, sizeof(msg));
	if (strncmp(msg, NAME ":", sizeof(NAME)) != 0)
		abort();
}

/* What --check does after loading (tools/wmrun/main.c: check()). */
static void
check_plan(const struct wm_topology *t)
{
	struct wm_affinity_plan *placed = NULL;
	struct wm_plan *plan = wm_plan_new(t);
	char err[512];
	int r;

	if (plan == NULL)
		abort();
	for (uint32_t s = 0; s < t->n_stages; s++) {
		struct wm_topology_edge edges[WM_TOPOLOGY_MAX_OUTPUTS];

		(void)wm_topology_out_edges(t, s, edges,
					    WM_TOPOLOGY_MAX_OUTPUTS);
		if (t->stages[s].n_inputs > 0)
			(void)wm_topology_input_channels(t, s);
	}
	if (machine != NULL) {
		r = wm_placement_plan(machine, t, plan, &placed, err,
				      sizeof(err));
		if (r == 0)
			wm_affinity_describe(machine, placed, devnull);
		else if (t->job.cpus == NULL || err[0] == '\0')
			abort();
		wm_affinity_plan_free(placed);
	}
	wm_plan_free(plan);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wm_topology *t = NULL;
	struct wm_ini_error err;
	int rc;

	if (devnull == NULL) {
		char why[256];

		devnull = fopen("/dev/null", "w");
		if (wm_affinity_open(NULL, &machine, why, sizeof(why)) != 0)
			machine = NULL;
	}
	memset(&err, 0, sizeof(err));
	rc = wm_topology_load_buffer((const char *)data, size, NAME, &t, &err);
	if (rc != 0) {
		if (t != NULL)
			abort();
		check_error(data, size, rc, &err);
		return 0;
	}
	check_plan(t);
	wm_topology_free(t);
	return 0;
}
