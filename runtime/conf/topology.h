/*
 * topology.h
 *	A job as topology.conf describes it: stages, their parallelism and
 *	the edges between them, validated, with Flink's defaults applied.
 *
 * The file (read by runtime/conf/ini.c, values by lib/units.c) has a
 * [job] section, a [global] one whose keys are defaults for any stage's
 * keys, and one section a stage: [source NAME], [keyby NAME], [window
 * NAME], [join NAME], [sink NAME]. Which keys each takes, their values,
 * defaults and Flink counterparts are in runtime/conf/key_table.c, the
 * table the parser checks keys against and wmrun-topology(5) is printed
 * from (not repeated here, where it would drift); the grammar of a
 * source's load shapes is in shapes.c, its Kafka keys' in kafka_keys.c,
 * a join's in join_keys.c, the restart keys' in restart_keys.c, the
 * alerts' in alert_rules.c.
 *
 * Edges, as Flink wires them: into a window or a join, hash (keyBy: key
 * groups of its max parallelism); elsewhere forward when both sides have the
 * same parallelism, else rebalance. `partitioning` on a stage overrides
 * the edges into it (forward | hash | rebalance | broadcast); forward needs
 * equal parallelism.
 *
 * Every error names file, line and column and says what is wrong, in the
 * house style; unknown keys get a did-you-mean. Also refused: a key the
 * stage's other keys make meaningless (a generator key on a replaying
 * source, pacing without replay, slide on a tumbling window; [global]
 * defaults are exempt), an input named twice, a stage name with a blank or
 * comma, two stages writing one file, an output that is a replayed trace
 * (by path, or the same existing file), a stage other than a sink
 * reading a window that has no aggregate to send as a record's value
 * (`emit`), and
 * jobs past one machine's limits below (stages, subtasks, rings). The
 * model has no side effects: no files are opened but the topology itself.
 */
#ifndef WM_RUNTIME_CONF_TOPOLOGY_H
#define WM_RUNTIME_CONF_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

#include "operators/edge.h"
#include "operators/heartbeats.h"
#include "operators/interval_join.h"
#include "operators/nexmark_source.h"
#include "operators/source_gen.h"
#include "operators/watermark.h"
#include "operators/window.h"
#include "operators/window_join.h"
#include "lib/json_path.h"
#include "runtime/conf/ini.h"
#include "runtime/restart/restart_strategy.h"

enum wm_stage_kind {
	WM_STAGE_SOURCE,
	WM_STAGE_KEYBY,
	WM_STAGE_WINDOW,
	WM_STAGE_SINK,
	WM_STAGE_JOIN,
	WM_STAGE_MAP,
};
#define WM_STAGE_KINDS 6

/* A stage writes at most this many late outputs: a window one
 * (late_output), an interval join one a side (left_late, right_late). */
#define WM_STAGE_LATE_OUTPUTS 2

/* A keyed operator stage, a window or a join: its inputs come hashed by
 * key into its key groups (max_parallelism), it has a valve per input,
 * and its results go to the sinks chained to it and, as records, down
 * its edges to the stages that read it. */
static inline bool
wm_stage_keyed(enum wm_stage_kind kind)
{
	return kind == WM_STAGE_WINDOW || kind == WM_STAGE_JOIN;
}

/* A stage chained into the subtasks of the stage it reads, with no
 * subtask, ring or edge of its own: a sink (into its window, join or
 * source) and a map (into its Nexmark source, section 16.6). */
static inline bool
wm_stage_chained(enum wm_stage_kind kind)
{
	return kind == WM_STAGE_SINK || kind == WM_STAGE_MAP;
}

enum wm_aggregate {
	WM_AGG_COUNT = 1u << 0,
	WM_AGG_SUM = 1u << 1,
	WM_AGG_MIN = 1u << 2,
	WM_AGG_MAX = 1u << 3,
	WM_AGG_AVG = 1u << 4,
};

/* The longest name of a plugin's aggregate function: it heads a column
 * of results, NAME_2 ... when a window names it again. */
#define WM_PLUGIN_NAME_MAX 64

#define WM_TOPOLOGY_MAX_INPUTS 2
/* Stages reading one stage (sinks included): its out edges. */
#define WM_TOPOLOGY_MAX_OUTPUTS 64u
/* Maps reading one source: each has its counters in the source subtask's
 * metrics block (runtime/metrics/metrics.h, WM_METRICS_MAX_MAPS). */
#define WM_TOPOLOGY_MAX_MAPS 4u
/* Stages in a job: far more than any job on one machine needs, few enough
 * that the checks' searches and the cycle search's recursion stay small. */
#define WM_TOPOLOGY_MAX_STAGES 1024u
/* Subtask processes (sinks are chained to their windows, not counted): as
 * many as placement can pin (runtime/plan/affinity.h). */
#define WM_TOPOLOGY_MAX_SUBTASKS 4096u
/* Rings in the segment. Every ring costs a page as soon as the segment is
 * made, and an all-to-all edge has upstream x downstream of them. */
#define WM_TOPOLOGY_MAX_CHANNELS 65536u
/* What separates the stage names of an `input` list. */
#define WM_TOPOLOGY_NAME_SEPARATORS ", \t"
#define WM_TOPOLOGY_MAX_PARALLELISM 32768u
#define WM_TOPOLOGY_MAX_PARTITIONS 65536u

/* How a replayed trace's records are released (runtime/source/replay.h):
 * as fast as possible, at their arrival column, or by event time. */
enum wm_replay_pacing {
	WM_REPLAY_FAST,
	WM_REPLAY_ARRIVAL,
	WM_REPLAY_EVENT,
};

/* The type of a replayed trace's keys (key_type; runtime/source/replay.h):
 * as its keys say, Java Longs, or Java Strings. */
enum wm_key_type {
	WM_KEY_TYPE_TRACE,
	WM_KEY_TYPE_LONG,
	WM_KEY_TYPE_STRING,
};

/* Where a Kafka source starts or stops reading each partition
 * (kafka.starting_offsets, kafka.stopping_offsets; Flink's
 * OffsetsInitializer). */
enum wm_kafka_position {
	WM_KAFKA_EARLIEST,  /* the partition's first offset (start) */
	WM_KAFKA_LATEST,    /* its end offset when the job starts */
	WM_KAFKA_COMMITTED, /* the group's committed offset, else earliest */
	WM_KAFKA_TIMESTAMP, /* the first record at or after timestamp_ms */
	WM_KAFKA_OFFSETS,   /* per partition; others: earliest / unbounded */
	WM_KAFKA_UNBOUNDED, /* never stops (stopping only; the default) */
};

struct wm_kafka_offsets {
	enum wm_kafka_position position;
	int64_t timestamp_ms; /* WM_KAFKA_TIMESTAMP: epoch milliseconds */
	uint32_t n;	      /* WM_KAFKA_OFFSETS: partition, offset pairs */
	uint32_t *partitions;
	int64_t *offsets;
};

/* How a Kafka record's value is read (kafka.value_format). */
enum wm_kafka_value_format {
	WM_KAFKA_VALUE_NONE,   /* ignored: every record's value is 1 */
	WM_KAFKA_VALUE_NUMBER, /* a decimal integer: the record's value */
	WM_KAFKA_VALUE_CSV,    /* fields as kafka.value_fields lists them */
	WM_KAFKA_VALUE_JSON,   /* an object with those fields by name or path */
};

/* A field a CSV or JSON value can carry (kafka.value_fields). */
enum wm_kafka_field {
	WM_KAFKA_FIELD_SKIP, /* "_": a CSV column read past */
	WM_KAFKA_FIELD_TIMESTAMP,
	WM_KAFKA_FIELD_KEY,
	WM_KAFKA_FIELD_VALUE,
	/* 1: the record carries a watermark (watermark = punctuated), 0:
	 * it does not */
	WM_KAFKA_FIELD_PUNCTUATE,
	/* 1: a heartbeat, seen by its partition's generator and dropped
	 * (operators/heartbeats.h), 0: a record */
	WM_KAFKA_FIELD_HEARTBEAT,
	/* A watermark the record carries (watermark = punctuated emits it),
	 * or nothing: empty in CSV, null or absent in JSON */
	WM_KAFKA_FIELD_WATERMARK,
	WM_KAFKA_N_FIELDS
};
#define WM_KAFKA_MAX_FIELDS 64

/* A client property passed to librdkafka as it is (kafka.NAME with a
 * dot in NAME), with where it was set for messages. */
struct wm_kafka_property {
	char *name, *value;
	int line, col;
};

/* A source that reads a Kafka topic (runtime/source/kafka_source.h). */
struct wm_kafka_conf {
	char *bootstrap_servers;
	char *topic;
	char *group_id; /* NULL: no group, nothing committed */
	struct wm_kafka_offsets starting, stopping;
	enum wm_kafka_value_format value_format;
	uint32_t n_fields; /* CSV columns, or the JSON names to read */
	enum wm_kafka_field fields[WM_KAFKA_MAX_FIELDS];
	/* JSON: by field, its path ("timestamp = $.payload.ts"); n = 0 for
	 * the member of the field's name at the top level. */
	struct wm_json_path paths[WM_KAFKA_MAX_FIELDS];
	bool timestamp_from_value; /* else the Kafka record's timestamp */
	bool key_from_value;	   /* else the Kafka record's key */
	/* partition.discovery.interval.ms: how often the topic's partitions
	 * are listed again, new ones assigned as Flink's enumerator does;
	 * 0: never (a bounded source never discovers, as Flink's). */
	int64_t discovery_interval_ms;
	/* kafka.broker_timeout: how long a source waits for brokers that
	 * went away before it stops the job (EX_UNAVAILABLE). */
	int64_t broker_timeout_ms;
	/* `partitions` given: else the supervisor reserves room from the
	 * topic's count at the start (runtime/source/kafka_topology.c). */
	bool partitions_given;
	uint32_t n_properties;
	struct wm_kafka_property *properties;
	int line, col; /* of kafka.topic, for messages */
};

/* Where a source's records come from: the loader decides it once from
 * the source's keys (replay, kafka.topic), and every part of the runtime
 * that treats the kinds apart asks `kind`, not which pointers are set
 * (the pointers hold each kind's settings). */
enum wm_source_kind {
	WM_SOURCE_GENERATED, /* wmrun's own generator (source_gen.h) */
	WM_SOURCE_REPLAY,    /* a recorded trace: `replay` */
	WM_SOURCE_KAFKA,     /* a Kafka topic: `kafka` */
	WM_SOURCE_NEXMARK,   /* a Nexmark stream (generator = nexmark) */
};

struct wm_source_conf {
	enum wm_source_kind kind;
	uint32_t partitions;
	double rate; /* records per second per partition; inf */
	int64_t out_of_orderness_ms;
	double late_fraction; /* of records later than the bound */
	int64_t late_by_ms;   /* how much later than the bound, at most */
	uint64_t keys;
	bool zipf;
	double zipf_exponent;
	uint32_t value_cycle; /* values 1..value_cycle in turn; 1: all 1 */
	struct wm_watermark_strategy strategy;
	/* watermark_at = subtask: `strategy` runs once per subtask over the
	 * records of all its partitions (operators/subtask_watermarks.h),
	 * not once per partition (split, the default). */
	bool watermark_per_subtask;
	/* Shapes of the generated load, as operators/source_gen.h defines
	 * them (times: processing time since the job start). */
	uint32_t n_skew;
	double *skew; /* by partition id (n_skew = partitions); NULL: none */
	uint32_t n_silences;
	struct wm_source_gen_silence *silences;
	uint32_t n_bursts;
	struct wm_source_gen_burst *bursts;
	uint32_t n_outages;
	struct wm_source_gen_silence *outages;
	uint32_t n_random_silences;
	struct wm_source_gen_random_silence *random_silences;
	/* punctuate: which records carry a watermark (watermark =
	 * punctuated), a generated source's only. */
	uint32_t n_punctuations;
	struct wm_source_gen_punctuation *punctuations;
	/* heartbeat: partitions that send heartbeats, a generated
	 * source's only (operators/heartbeats.h). */
	uint32_t n_heartbeats;
	struct wm_heartbeat *heartbeats;
	/* --export-flink: its trace holds heartbeats (set as it reads the
	 * trace, flink_project.c), which the exported job then drops; its
	 * keys are strings, which the exported trace quotes and the job
	 * keys by as Java Strings. */
	bool trace_heartbeats;
	bool trace_string_keys;
	/* Replay a trace instead of generating (runtime/source/replay.h):
	 * a relative path in the file is resolved from the file's
	 * directory, as the file's author sees it (one from --set, from
	 * the current directory). */
	char *replay;
	int replay_line, replay_col; /* of its value; 0 from --set */
	enum wm_replay_pacing pacing;
	bool skip_bad_records; /* on_bad_record = skip */
	/* replay_end: processing time at which the replayed partitions end
	 * if their last record came earlier (a recording's end); -1: with
	 * the last record. */
	int64_t replay_end_ms;
	/* Where every record the source emits is recorded, as a trace
	 * (runtime/source/record_trace.h): set from --record-trace by the
	 * command line, or by --export-flink for a generated source
	 * (runtime/export/flink_record.h), never by the file; NULL: not
	 * recorded. */
	char *record;
	enum wm_key_type key_type;
	/* The topic whose name Flink's enumerator hashes to spread the
	 * partitions over the subtasks (topic; NULL: the source's name);
	 * a Kafka source's is its kafka.topic. */
	char *topic;
	/* Read a Kafka topic instead of generating; NULL: not Kafka. Its
	 * `partitions` is the room reserved for the topic's partitions,
	 * those at the start and those discovered later. */
	struct wm_kafka_conf *kafka;
	/* generator = nexmark (operators/nexmark_source.h): the stream's
	 * events, rate, kind and fields as the file gives them; the seed,
	 * base time and partitions are the job's and the source's, set
	 * where the source is opened (wm_sources_nexmark_conf()). */
	struct wm_nexmark_source_conf nexmark;
	int nexmark_line, nexmark_col; /* of `generator`, for messages */
	/* Watermark alignment (doc/semantics.md section 3.7): sources of
	 * one group hold back partitions whose watermark runs more than
	 * max_drift ahead of the group's slowest. */
	char *alignment_group; /* NULL: not aligned */
	int64_t alignment_max_drift_ms;
	int64_t alignment_update_interval_ms; /* 1 s */
};

/* What a window's result is as a record, for the stages that read the
 * window (`emit`): its key, the window's maxTimestamp, and this aggregate
 * as the value. A long aggregate only: avg is a double, a plugin's
 * result its own type. NONE: the window has no such aggregate, and only
 * sinks may read it. */
enum wm_window_emit {
	WM_WINDOW_EMIT_NONE,
	WM_WINDOW_EMIT_COUNT,
	WM_WINDOW_EMIT_SUM,
	WM_WINDOW_EMIT_MIN,
	WM_WINDOW_EMIT_MAX,
};

struct wm_window_stage_conf {
	struct wm_window_config op;
	unsigned aggregates;	  /* enum wm_aggregate */
	char *late_output;	  /* NULL: count late records as dropped */
	enum wm_window_emit emit; /* as a record */
};

/* A join's own keys: its first input is `left`, its second `right`
 * (wm_stage.inputs[0] and [1], as enum wm_join_side numbers them); an
 * interval join (`between`) or a window join (`window`). An interval
 * join's late records of a side go to its late output (left_late,
 * right_late) if it has one; the rest are counted as dropped, per side. */
/* What a pair is as a record, for the stages reading a join: its key,
 * its timestamp, and this value. */
enum wm_join_value {
	WM_JOIN_VALUE_LEFT,
	WM_JOIN_VALUE_RIGHT,
	WM_JOIN_VALUE_SUM
};

struct wm_join_stage_conf {
	char *late_output[2];		     /* by side; NULL: none */
	enum wm_join_value value;	     /* as a record */
	bool windowed;			     /* a window join: `window` below */
	struct wm_interval_join_config op;   /* an interval join's */
	struct wm_window_join_config window; /* a window join's */
};

enum wm_sink_format { WM_SINK_CSV, WM_SINK_JSONL };

struct wm_sink_conf {
	enum wm_sink_format format;
	char *path; /* "-" for stdout */
	/* A last column with the index of the window subtask that fired the
	 * result, as Flink numbers subtasks: where a key landed. */
	bool subtask_column;
};

/* A map (operators/map.h, doc/semantics.md section 16): the `where` and
 * `select` texts as the file gives them, NULL where absent, compiled
 * once by the loader to refuse a bad one at its FILE:LINE:COL (so a
 * driver's wm_map_new() of them cannot fail but for memory), over the
 * row schema of its input, a Nexmark source's `nexmark.kind` view
 * (operators/nexmark_row.h). A map is chained into its source's
 * subtasks, as a sink is to its window: same parallelism, no subtask of
 * its own; only sinks read it. */
struct wm_map_stage_conf {
	char *where;
	char *select;
};

struct wm_stage_input {
	uint32_t stage; /* index into wm_topology.stages */
	enum wm_partitioning edge;
};

struct wm_stage {
	enum wm_stage_kind kind;
	char *name;
	int line, col; /* of the section header, for messages */
	uint32_t parallelism;
	uint32_t max_parallelism; /* key groups of a keyed stage */
	uint32_t n_inputs;
	struct wm_stage_input inputs[WM_TOPOLOGY_MAX_INPUTS];
	union {
		struct wm_source_conf source;
		struct wm_window_stage_conf window;
		struct wm_join_stage_conf join;
		struct wm_sink_conf sink;
		struct wm_map_stage_conf map;
	} u;
};

/* Where late output k of stage st is configured (WM_STAGE_LATE_OUTPUTS
 * of them: a window's late_output is 0, an interval join's left_late 0
 * and right_late 1): the path's field, NULL for a stage that has no such
 * output; its key in the stage's section in *key (NULL to skip). */
static inline char **
wm_stage_late_output_field(struct wm_stage *st, unsigned k, const char **key)
{
	if (st->kind == WM_STAGE_WINDOW && k == 0) {
		if (key != NULL)
			*key = "late_output";
		return &st->u.window.late_output;
	}
	if (st->kind == WM_STAGE_JOIN && k < 2) {
		if (key != NULL)
			*key = k == WM_JOIN_LEFT ? "left_late" : "right_late";
		return &st->u.join.late_output[k];
	}
	return NULL;
}

/* Where a stage's late output k is in an array of every stage's late
 * outputs (as the drivers keep their sinks): by stage, then k. */
static inline uint32_t
wm_late_sink_index(uint32_t stage, unsigned k)
{
	return stage * WM_STAGE_LATE_OUTPUTS + k;
}

/* The path late output k of stage st writes; NULL where it has none. */
static inline const char *
wm_stage_late_output(const struct wm_stage *st, unsigned k)
{
	char **field =
		wm_stage_late_output_field((struct wm_stage *)st, k, NULL);

	return field != NULL ? *field : NULL;
}

/* Alert tiers, in rising severity (runtime/observe/alerts.h). */
enum wm_alert_tier {
	WM_ALERT_NOTICE,
	WM_ALERT_WARNING,
	WM_ALERT_SEVERE,
	WM_ALERT_CRITICAL,
};
#define WM_ALERT_TIERS 4

/* What an alert watches, one [job] key each (alert_rules.c). */
enum wm_alert_kind {
	WM_ALERT_PARTITION_IDLE,    /* a source partition IDLE */
	WM_ALERT_SUBTASK_IDLE,	    /* a subtask's output IDLE */
	WM_ALERT_WATERMARK_STALLED, /* a window subtask's watermark still */
	/* a source partition's watermark still while it is ACTIVE: what
	 * holds a job whose source has no idle timeout */
	WM_ALERT_PARTITION_STALLED,
	/* several partitions of one source IDLE at once: tiers by count */
	WM_ALERT_IDLE_PARTITIONS,
};
#define WM_ALERT_KINDS 5

/* The tiers of one kind: tier[i] is raised once its condition has held
 * for after_ms[i] of processing time, or, for a kind counted
 * (wm_alert_kind_counts()), once at_least[i] things are in it at once.
 * Both rise strictly with i; n_tiers 0: the kind is not watched. */
struct wm_alert_rule {
	uint32_t n_tiers;
	enum wm_alert_tier tier[WM_ALERT_TIERS];
	int64_t after_ms[WM_ALERT_TIERS];
	uint32_t at_least[WM_ALERT_TIERS];
};

struct wm_job_conf {
	char *name;
	int64_t event_time_ms;	    /* run length; INT64_MAX: unlimited */
	int64_t processing_time_ms; /* likewise */
	uint64_t records;	    /* per source partition; UINT64_MAX */
	double speed;		    /* processing time runs this much faster */
	uint64_t seed;
	unsigned behaviour; /* enum wm_behaviour_flag */
	int64_t watermark_interval_ms;
	int64_t stall_threshold_ms; /* runtime/engine/progress.h */
	/* max_delay: how long after event time the user can wait for a
	 * result, an upper bound for the advised idle_timeout
	 * (runtime/report/advice.h); INT64_MAX: not stated. */
	int64_t max_delay_ms;
	/* event_time_origin: the event time, in epoch milliseconds, at which
	 * generated sources start (operators/source_gen.h start_epoch_ms),
	 * and the job's event-time clock reads at processing time 0 when no
	 * source brings a clock of its own (runtime/source/sources.h).
	 * origin_at_start: `start`, the default, which wmrun fixes for the
	 * run (wm_sources_fix_origin()): a real run's wall clock at its
	 * start, rounded down, or 0 under --sim. */
	bool origin_at_start;
	int64_t event_time_origin_ms;
	bool allow_unaligned_source_splits; /* align whole subtasks only */
	/* pipeline.max-parallelism: the key groups of a keyed stage without
	 * a max_parallelism of its own; 0: Flink's default for the stage's
	 * parallelism (operators/keygroup.h). */
	uint32_t max_parallelism;
	char *cpus;    /* explicit placement (runtime/plan/placement.h); NULL */
	char *cpus_at; /* "FILE:LINE:COL" of cpus' value, for the errors of
			* a placement that cannot follow it */
	uint32_t ring_cells; /* of each channel's ring (ring_size) */
	struct wm_alert_rule alerts[WM_ALERT_KINDS]; /* none by default */
	/* Checkpoints (runtime/checkpoint/, runtime/run/coordinator.h): the
	 * processing time between two (Flink's
	 * execution.checkpointing.interval; INT64_MAX: none), where they go,
	 * how many complete ones are kept, and the processing time of an
	 * injected crash (INT64_MAX: none): --sim crashes every subtask
	 * then, a real run kills one worker with SIGKILL. */
	int64_t checkpoint_interval_ms;
	char *checkpoint_dir;
	uint32_t checkpoints_retained;
	int64_t fail_at_ms;
	/* Not a key: wmrun --resume DIR (DIR is then checkpoint_dir). A
	 * real run starts from the latest complete checkpoint there instead
	 * of from the beginning. */
	bool resume;
	/* What a failure of the job does (restart_strategy and its keys,
	 * which need checkpoints): Flink's default, exponential-delay, with
	 * checkpoints; none without. */
	struct wm_restart_config restart;
	/* Beyond Flink: each subtask's snapshot also holds its watermarks
	 * and idleness (task.h; doc/semantics.md section 12.5), and a
	 * restore requires the same setting. Default false, Flink's. */
	bool checkpoint_watermarks;
	/* A checkpoint not complete this long after its trigger is aborted
	 * (Flink's execution.checkpointing.timeout, 10 min by default). */
	int64_t checkpoint_timeout_ms;
	/* plugin = PATH: the user's watermark generators (wmrun/plugin.h),
	 * loaded by the topology and closed with it; NULL: none. */
	void *plugin_handle;
	const struct wmrun_plugin *plugin;
};

/* 4096 cells of 32 bytes: 128 KiB a channel, room for a few bursts of
 * 256 records while the consumer sleeps. */
#define WM_TOPOLOGY_RING_CELLS 4096u

struct wm_topology {
	char *file; /* the path or name it was loaded as, for messages */
	struct wm_job_conf job;
	uint32_t n_stages; /* in file order; inputs come before users */
	struct wm_stage *stages;
};

/*
 * Read and validate the topology at `path` (or `len` bytes at `text`,
 * named `name`). Returns 0 with *topo set (free with wm_topology_free()),
 * or fills *err and returns -EINVAL (the configuration is wrong: exit 78),
 * a negative errno from reading the file (exit 66), or -ENOMEM.
 */
int wm_topology_load_file(const char *path, struct wm_topology **topo,
			  struct wm_ini_error *err);
int wm_topology_load_buffer(const char *text, size_t len, const char *name,
			    struct wm_topology **topo,
			    struct wm_ini_error *err);

/* The options a topology's text is parsed with (wm_ini_parse_file() or
 * _buffer()), for a caller that edits the document before loading it
 * (--set: runtime/conf/set_keys.h). */
extern const struct wm_ini_options wm_topology_ini_options;

/* Validate the parsed document `doc` (of `file`, for messages) into
 * *topo, as wm_topology_load_file() does; doc stays the caller's (its
 * entries are marked used). */
int wm_topology_load_doc(struct wm_ini_doc *doc, const char *file,
			 struct wm_topology **topo, struct wm_ini_error *err);

/* The section a user names on the command line (--set, --sweep): "job"
 * for [job], "global" for [global], else the stage of that name; NULL if
 * the document has none. */
struct wm_ini_section *wm_topology_section_named(const struct wm_ini_doc *doc,
						 const char *name);

/* Whether a user's SECTION names a section by its kind ("job",
 * "global") rather than a stage by its name. */
bool wm_topology_section_word(const char *name);
void wm_topology_free(struct wm_topology *topo);

/* One output edge of a stage: input `input` of stage `stage` reads it. */
struct wm_topology_edge {
	uint32_t stage;
	uint32_t input;
};

/* The edges out of `stage`, in stage order, sinks included; returns how
 * many (at most `max` are stored). The plan (runtime/plan/plan.h) derives
 * from these the output edges that carry frames (all but those to sinks,
 * which are chained) and the chained sinks. */
uint32_t wm_topology_out_edges(const struct wm_topology *topo, uint32_t stage,
			       struct wm_topology_edge *edges, uint32_t max);

/* Channels of input `input` of `stage`: one per upstream subtask, or one
 * for a forward edge. */
uint32_t wm_topology_input_width(const struct wm_topology *topo, uint32_t stage,
				 uint32_t input);

/* The number of input channels of each subtask of `stage` (all inputs),
 * and the channel through which upstream subtask `up` reaches it on
 * input `input` (inputs numbered in order, input 0's channels first). */
uint32_t wm_topology_input_channels(const struct wm_topology *topo,
				    uint32_t stage);
uint32_t wm_topology_input_channel(const struct wm_topology *topo,
				   uint32_t stage, uint32_t input, uint32_t up);

/* What the job does with the file at `path` ("the topology", "the trace
 * that source \"s\" replays", "the output of sink \"o\""), written into
 * buf for a message, or NULL if nothing: by path, or the same existing
 * file. For a file the job must not also write (--summary). */
const char *wm_topology_file_use(const struct wm_topology *topo,
				 const char *path, char *buf, size_t len);

/* Whether a section of kind `kind` ("job", "global", "source", ...) takes
 * `key`, for a caller that edits a topology's text (--sweep); if not,
 * *suggest is the closest key (wm_ini_suggest()) or NULL. [global] takes
 * the keys of every stage kind. */
bool wm_topology_key_known(const char *kind, const char *key,
			   const char **suggest);

/* Names for messages and plans. */
const char *wm_stage_kind_name(enum wm_stage_kind kind);
const char *wm_alert_tier_name(enum wm_alert_tier tier);
/* The kind's name without "alert_": "partition_idle". */
const char *wm_alert_kind_name(enum wm_alert_kind kind);
/* Whether the kind's tiers are counts ("warning 3"), not durations. */
bool wm_alert_kind_counts(enum wm_alert_kind kind);
/* Whether any alert is configured. */
bool wm_alerts_configured(const struct wm_job_conf *job);
const char *wm_partitioning_name(enum wm_partitioning kind);

/* A Kafka value's field as kafka.value_fields names it ("_" for a column
 * read past): the one spelling the loader, the source and the export
 * share. */
const char *wm_kafka_field_name(enum wm_kafka_field field);

/* Whether a topic's values (kc, NULL: not a Kafka source) carry field f
 * (kafka.value_fields). */
bool wm_kafka_value_has(const struct wm_kafka_conf *kc, enum wm_kafka_field f);

/* Which of its source's maps map stage m is, in stage order: its slot
 * among the source subtask's map counters, and its place in the
 * subtask's wm_map_rows (wm_sources_new_task() adds them in that order). */
static inline uint32_t
wm_topology_map_slot(const struct wm_stage *stages, uint32_t m)
{
	uint32_t slot = 0;

	for (uint32_t s = 0; s < m; s++)
		slot += stages[s].kind == WM_STAGE_MAP &&
			stages[s].inputs[0].stage == stages[m].inputs[0].stage;
	return slot;
}

/* Whether stage `st` is a source of kind `kind`. */
static inline bool
wm_stage_source_is(const struct wm_stage *st, enum wm_source_kind kind)
{
	return st->kind == WM_STAGE_SOURCE && st->u.source.kind == kind;
}

/* The topic name by which a source's partitions are spread over its
 * subtasks (operators/source_gen.h, wm_source_gen_split_owner()). */
static inline const char *
wm_source_topic(const struct wm_stage *st)
{
	if (st->u.source.kind == WM_SOURCE_KAFKA)
		return st->u.source.kafka->topic;
	return st->u.source.topic != NULL ? st->u.source.topic : st->name;
}

/* Partition `partition` of source `st` as Flink's Kafka source names a
 * split, TOPIC-P ("events-13"), into buf (always terminated): the split
 * label of --metrics and, filtered, of Prometheus. Returns buf. */
const char *wm_source_split_id(const struct wm_stage *st, uint32_t partition,
			       char *buf, size_t len);

#endif /* WM_RUNTIME_CONF_TOPOLOGY_H */
