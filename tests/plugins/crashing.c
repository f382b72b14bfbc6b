/*
 * crashing.c
 *	A plugin whose generator crashes at its 100th event, and whose
 *	aggregate function at its 100th record (a segmentation fault): its
 *	subtask's process dies, and the job must say which (tests only).
 *
 *	watermark = plugin:crashing
 *	aggregates = plugin:crashing
 */
#include <signal.h>
#include <stdint.h>
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

/* The aggregate: its function counts the records it adds. */
static void *
create_accumulator(void *function)
{
	(void)function;
	return calloc(1, 1);
}

static void
destroy_accumulator(void *function, void *accumulator)
{
	(void)function;
	free(accumulator);
}

static void
add(void *function, void *accumulator, int64_t value, int64_t timestamp)
{
	struct crashing *c = function;

	(void)accumulator;
	(void)value;
	(void)timestamp;
	if (++c->events == 100)
		raise(SIGSEGV);
}

static void
merge(void *function, void *into, const void *from)
{
	(void)function;
	(void)into;
	(void)from;
}

static union wmrun_value
result(void *function, const void *accumulator)
{
	union wmrun_value v = {.as_long = 0};

	(void)function;
	(void)accumulator;
	return v;
}

static size_t
snapshot(void *function, const void *accumulator, unsigned char *buf,
	 size_t size)
{
	(void)function;
	(void)accumulator;
	(void)buf;
	(void)size;
	return 0;
}

static void *
restore(void *function, const unsigned char *bytes, size_t len)
{
	(void)bytes;
	(void)len;
	return create_accumulator(function);
}

static const struct wmrun_aggregate_function aggregates[] = {
	{"crashing", WMRUN_RESULT_LONG, create, free, create_accumulator,
	 destroy_accumulator, add, merge, result, snapshot, restore},
};

WMRUN_PLUGIN_DEFINE_BOTH(generators, aggregates)
