/*
 * wmrun/plugin.h
 *	Your own watermark generator and aggregate function in C, run by
 *	wmrun in a source subtask and in a window subtask: the interface of
 *	a shared library that a topology names.
 *
 *	[job]
 *	plugin = ./libmine.so
 *	[source events]
 *	watermark = plugin:adaptive_bound(1000, 30000)
 *	[window w]
 *	aggregates = count, plugin:quantile(0.99)
 *
 * The library exports one function, wmrun_plugin(), that returns its
 * description: the ABI it was built against (WMRUN_PLUGIN_ABI, checked
 * when wmrun loads it: a library of another ABI is refused, naming the
 * topology's line), its watermark generators and its aggregate functions,
 * by name.
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

/* The ABI this header describes; bumped on any change to it. 2 added the
 * aggregate functions. */
#define WMRUN_PLUGIN_ABI 2u

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

/*
 * An aggregate function: Flink's AggregateFunction over the records'
 * values, for a window stage's `aggregates = plugin:NAME(ARGS)`. Its
 * result is a column of the window's results, after the built-in
 * aggregates, named NAME (NAME_2, NAME_3 ... for the same name again).
 *
 * wmrun makes one function per window subtask with the text between the
 * parentheses (create(args); a NULL refuses them, and the topology is
 * refused at that line, where wmrun makes one to check), and through it
 * one accumulator per key and window that has contents, exactly while
 * the window has them: made by the window's first record, given every
 * record the window takes (add(), in the order the subtask takes them),
 * read when the window fires (result(), as often as it fires: refinements
 * under allowed lateness), destroyed when the window is purged or cleaned
 * up. Session windows merge: merge() folds one accumulator into another,
 * after which wmrun destroys the one folded.
 *
 * Checkpoints hold every accumulator: snapshot() writes one's state as
 * bytes, restore() makes an accumulator from them, in a new process after
 * a restart. snapshot() returns how many bytes the state takes and writes
 * them into buf only when they fit in `size`; wmrun calls it again with
 * room enough when they did not. restore() returns NULL for bytes it
 * cannot read, and the restore fails.
 *
 * Every call comes from the window subtask's one thread. add() and
 * merge() cannot fail: a plugin that cannot go on (no memory) aborts,
 * which the job reports as any worker's death. A create_accumulator()
 * that returns NULL stops the job as wmrun's own out of memory does.
 */
/* What result() gives. */
enum wmrun_result_type {
	WMRUN_RESULT_LONG = 0,	 /* .as_long, printed as Java prints a long */
	WMRUN_RESULT_DOUBLE = 1, /* .as_double, to 17 significant digits */
};

union wmrun_value {
	int64_t as_long;
	double as_double;
};

struct wmrun_aggregate_function {
	/* As the topology names it after "plugin:": letters, digits, '_'. */
	const char *name;
	uint32_t result_type; /* enum wmrun_result_type */
	/* The function for `args` (the text in the parentheses, "" without
	 * them), or NULL when the args are refused. */
	void *(*create)(const char *args);
	void (*destroy)(void *function);
	/* Flink's createAccumulator(); NULL: no memory. */
	void *(*create_accumulator)(void *function);
	void (*destroy_accumulator)(void *function, void *accumulator);
	/* Flink's add(value, accumulator): a record of the window, its
	 * value and its timestamp. */
	void (*add)(void *function, void *accumulator, int64_t value,
		    int64_t timestamp);
	/* Flink's merge(a, b): `from` folded into `into` (from is destroyed
	 * after). */
	void (*merge)(void *function, void *into, const void *from);
	/* Flink's getResult(accumulator). */
	union wmrun_value (*result)(void *function, const void *accumulator);
	/* The accumulator's state: its length, written into buf[0, length)
	 * only if length <= size. */
	size_t (*snapshot)(void *function, const void *accumulator,
			   unsigned char *buf, size_t size);
	/* An accumulator from the bytes snapshot() wrote, or NULL. */
	void *(*restore)(void *function, const unsigned char *bytes,
			 size_t len);
};

struct wmrun_plugin {
	uint32_t abi; /* WMRUN_PLUGIN_ABI */
	const struct wmrun_watermark_generator *generators;
	uint32_t n_generators;
	const struct wmrun_aggregate_function *aggregates;
	uint32_t n_aggregates;
};

/* What the library exports. */
const struct wmrun_plugin *wmrun_plugin(void);

#define WMRUN_PLUGIN_N(array) (sizeof(array) / sizeof((array)[0]))

/* Defines wmrun_plugin() for `generators`, an array of struct
 * wmrun_watermark_generator: WMRUN_PLUGIN_DEFINE(my_generators) */
#define WMRUN_PLUGIN_DEFINE(generators)                                        \
	const struct wmrun_plugin *wmrun_plugin(void)                          \
	{                                                                      \
		static const struct wmrun_plugin plugin = {                    \
			WMRUN_PLUGIN_ABI, (generators),                        \
			WMRUN_PLUGIN_N(generators), NULL, 0};                  \
		return &plugin;                                                \
	}

/* Defines wmrun_plugin() for `aggregates`, an array of struct
 * wmrun_aggregate_function. */
#define WMRUN_PLUGIN_DEFINE_AGGREGATES(aggregates)                             \
	const struct wmrun_plugin *wmrun_plugin(void)                          \
	{                                                                      \
		static const struct wmrun_plugin plugin = {                    \
			WMRUN_PLUGIN_ABI, NULL, 0, (aggregates),               \
			WMRUN_PLUGIN_N(aggregates)};                           \
		return &plugin;                                                \
	}

/* Defines wmrun_plugin() for both. */
#define WMRUN_PLUGIN_DEFINE_BOTH(generators, aggregates)                       \
	const struct wmrun_plugin *wmrun_plugin(void)                          \
	{                                                                      \
		static const struct wmrun_plugin plugin = {                    \
			WMRUN_PLUGIN_ABI, (generators),                        \
			WMRUN_PLUGIN_N(generators), (aggregates),              \
			WMRUN_PLUGIN_N(aggregates)};                           \
		return &plugin;                                                \
	}

#ifdef __cplusplus
}
#endif

#endif /* WMRUN_PLUGIN_H */
