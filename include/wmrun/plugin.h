/*
 * wmrun/plugin.h
 *	Your own watermark generator in C, run by wmrun in a source subtask:
 *	the interface of a shared library that a topology names.
 *
 *	[job]
 *	plugin = ./libmine.so
 *	[source events]
 *	watermark = plugin:adaptive_bound(1000, 30000)
 *
 * The library exports one function, wmrun_plugin(), that returns its
 * description: the ABI it was built against (WMRUN_PLUGIN_ABI, checked
 * when wmrun loads it: a library of another ABI is refused, naming the
 * topology's line) and its watermark generators by name.
 *
 * A generator is Flink's WatermarkGenerator: wmrun makes one per
 * partition (split) of the source, with the text between the
 * parentheses after its name (or "" without them), calls on_event()
 * for every record and every heartbeat of that partition, in order, and
 * on_periodic_emit() at every periodic tick (watermark_interval, Flink's
 * pipeline.auto-watermark-interval), and destroys it when the partition
 * ends or the job does. Through `out` it emits a watermark, marks the
 * partition idle, or marks it active again, as Flink's WatermarkOutput:
 * what it emits goes through wmrun's merging of the partitions'
 * watermarks exactly as a built-in generator's does (a watermark lower
 * than one emitted before goes no further). Unlike Flink's, the periodic
 * call is told the processing time, so that a generator that judges time
 * (idleness) needs no clock of its own and runs the same under --sim.
 * A generator's state is not in checkpoints (Flink's is not either): after
 * a restore each partition starts with a new one. withIdleness (an
 * idle_timeout on the source) wraps it as it wraps a built-in generator.
 *
 * The calls come from one thread, the source subtask's process; a
 * generator of one partition never sees another's events. A plugin that
 * crashes takes its subtask's process down, and the job reports it as
 * any worker's death. --export-flink refuses a source whose watermark is
 * a plugin's.
 *
 * Everything here is plain C (C99), no wmrun header needed.
 */
#ifndef WMRUN_PLUGIN_H
#define WMRUN_PLUGIN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI this header describes; bumped on any change to it. */
#define WMRUN_PLUGIN_ABI 1u

/* What an event is, besides its timestamp. */
enum wmrun_event_flag {
	/* Marked as carrying a watermark at its timestamp (a trace's or a
	 * topic's punctuate field, a generator's punctuate = ...). */
	WMRUN_EVENT_PUNCTUATE = 1u << 0,
	/* A heartbeat: no data, a sign of life of its partition, dropped
	 * after the generator saw it. */
	WMRUN_EVENT_HEARTBEAT = 1u << 2,
};

/* One event of the partition: a record or a heartbeat. */
struct wmrun_event {
	int64_t timestamp; /* event time, ms (Java's epoch milliseconds) */
	uint32_t flags;	   /* enum wmrun_event_flag */
};

/* Where a generator's watermarks and idleness go (Flink's
 * WatermarkOutput). Valid during the call it is passed to. */
struct wmrun_watermark_output {
	void (*emit_watermark)(struct wmrun_watermark_output *out,
			       int64_t watermark);
	void (*mark_idle)(struct wmrun_watermark_output *out);
	void (*mark_active)(struct wmrun_watermark_output *out);
};

struct wmrun_watermark_generator {
	/* As the topology names it after "plugin:": letters, digits, '_'. */
	const char *name;
	/* A generator for one partition, `args` the text in the
	 * parentheses ("" without them), or NULL when args are refused
	 * (wmrun stops the job, saying so). */
	void *(*create)(const char *args);
	void (*destroy)(void *generator);
	/* Flink's onEvent(event, eventTimestamp, output). */
	void (*on_event)(void *generator, const struct wmrun_event *event,
			 struct wmrun_watermark_output *out);
	/* Flink's onPeriodicEmit(output), told the processing time: ms
	 * since the job started, at the job's speed. */
	void (*on_periodic_emit)(void *generator, int64_t now_ms,
				 struct wmrun_watermark_output *out);
};

struct wmrun_plugin {
	uint32_t abi; /* WMRUN_PLUGIN_ABI */
	const struct wmrun_watermark_generator *generators;
	uint32_t n_generators;
};

/* What the library exports. */
const struct wmrun_plugin *wmrun_plugin(void);

/* Defines wmrun_plugin() for `generators`, an array of struct
 * wmrun_watermark_generator: WMRUN_PLUGIN_DEFINE(my_generators) */
#define WMRUN_PLUGIN_DEFINE(generators)                                        \
	const struct wmrun_plugin *wmrun_plugin(void)                          \
	{                                                                      \
		static const struct wmrun_plugin plugin = {                    \
			WMRUN_PLUGIN_ABI, (generators),                        \
			sizeof(generators) / sizeof((generators)[0])};         \
		return &plugin;                                                \
	}

#ifdef __cplusplus
}
#endif

#endif /* WMRUN_PLUGIN_H */
