/*
 * crashing.c
 *	A plugin whose generator crashes at its 100th event (a segmentation
 *	fault): its subtask's process dies, and the job must say which
 *	(tests only).
 *
 *	watermark = plugin:crashing
 */
#include <signal.h>
#include <stdlib.h>

#include "wmrun/plugin.h"

struct crashing {
	unsigned events;
};

static void *
create(const char *args)
{
	(void)args;
	return calloc(1, sizeof(struct crashing));
}

static void
on_event(void *generator, const struct wmrun_event *e,
	 struct wmrun_watermark_output *out)
{
	struct crashing *c = generator;

	(void)e;
	(void)out;
	if (++c->events == 100)
		raise(SIGSEGV);
}

static void
on_periodic_emit(void *generator, int64_t now_ms,
		 struct wmrun_watermark_output *out)
{
	(void)generator;
	(void)now_ms;
	(void)out;
}

static const struct wmrun_watermark_generator generators[] = {
	{"crashing", create, free, on_event, on_periodic_emit},
};

WMRUN_PLUGIN_DEFINE(generators)
