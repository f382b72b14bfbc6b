/*
 * key_table.c
 *	The table of topology.conf's keys (key_table.h): per section, each
 *	key's name, value, default, Flink counterpart, example and meaning.
 *
 * Order matters twice: the page lists keys in it, and a did-you-mean tie
 * goes to the earlier key. A source's generator keys keep among themselves
 * the order in which the parser names the first one given to a replaying
 * or a Kafka source (checks.c), and so do its replay keys.
 *
 * Defaults are written as the loaders apply them; when a loader changes a
 * default, change its line here (the unit test cannot see prose).
 */
#include "config.h"

#include <string.h>

#include "base/countof.h"
#include "runtime/conf/ini.h"
#include "runtime/conf/key_table.h"

/* The most keys a section has: room for wm_key_table_suggest()'s list. */
#define MAX_SECTION_KEYS 64

#define SCHEDULED_SHAPE "PARTITIONS [every D] [for D] [from D] [to D]"
#define CHECKPOINTS "checkpoint_interval = 10 s; checkpoint_dir = ckpt"
#define NEXMARK "generator = nexmark"
#define KAFKA "kafka.topic = clicks; kafka.bootstrap_servers = localhost:9092"

static const struct wm_key_table_entry job_keys[] = {
	{"name", "string", "none (shown as \"unnamed\")", "pipeline.name",
	 "nightly", "", "the job's name in reports and metrics", WM_KEY_ANY},
	{"event_time", "duration", "none: no event-time end", "none", "2 h", "",
	 "ends the job when the sources' event time has advanced this far",
	 WM_KEY_ANY},
	{"event_time_origin",
	 "start, or an instant: milliseconds since the epoch, a date or "
	 "an ISO 8601 time in UTC (2026-12-07T13:45:00Z)",
	 "start: a real run's start on the wall clock, rounded down to a "
	 "multiple of its windows' slides (at least a second); 0 under "
	 "--sim",
	 "none", "2026-12-07", "",
	 "the event time at which generated sources start, so that event "
	 "time reads as wall-clock time",
	 WM_KEY_ANY},
	{"processing_time", "duration", "none: no processing-time end", "none",
	 "10 min", "", "ends the job after this much processing time",
	 WM_KEY_ANY},
	{"records", "count", "none: no record limit", "none", "1000000", "",
	 "each partition of a generated source ends after this many records",
	 WM_KEY_ANY},
	{"speed", "number from 0.000001 to 1000000000", "1", "none", "600", "",
	 "how many times faster than real time processing time runs",
	 WM_KEY_ANY},
	{"seed", "count", "1", "none", "42", "",
	 "the seed of every random choice of the generators and restarts",
	 WM_KEY_ANY},
	{"stall_threshold", "duration", "10 s", "none", "30 s", "",
	 "a watermark that has not moved for longer is reported stalled",
	 WM_KEY_ANY},
	{"max_delay", "duration", "none", "none", "5 min", "",
	 "the longest wait for a result the user accepts: the advice's bound "
	 "on idle_timeout",
	 WM_KEY_ANY},
	{"pipeline.watermark-alignment.allow-unaligned-source-splits", "flag",
	 "false", "pipeline.watermark-alignment.allow-unaligned-source-splits",
	 "true", "",
	 "watermark alignment pauses whole source subtasks, not their "
	 "partitions",
	 WM_KEY_ANY},
	{"cpus",
	 "CPU list (as taskset -c), one CPU per subtask in the order "
	 "wmrun --check lists them",
	 "placed by wmrun's heuristic", "none", "0", "",
	 "pins each subtask to a CPU", WM_KEY_ANY},
	{"ring_size", "size in bytes, a power of two from 2 KiB to 256 MiB",
	 "128 KiB", "none", "256 KiB", "",
	 "the size of each channel's shared-memory ring", WM_KEY_ANY},
	{"flink_behaviour",
	 "choice: flink-2.1 | flink-2.3 | released | master, or a list of "
	 "behaviour flags",
	 "released (flink-2.3)", "none", "flink-2.1", "",
	 "which Flink release's watermark rules the operators follow",
	 WM_KEY_ANY},
	{"pipeline.auto-watermark-interval", "duration", "200 ms",
	 "pipeline.auto-watermark-interval", "100 ms", "",
	 "how often periodic watermark generators emit; each source's "
	 "watermark_interval defaults to it",
	 WM_KEY_ANY},
	{"pipeline.max-parallelism", "count from 1 to 32768",
	 "Flink's: min(max(the power of two at or above 1.5 x parallelism, "
	 "128), 32768), per keyed stage",
	 "pipeline.max-parallelism", "256", "",
	 "the key groups of every window and join without a max_parallelism",
	 WM_KEY_ANY},
	{"idle_mark_once", "flag", "from flink_behaviour (true for released)",
	 "none (FLINK-28975)", "false", "",
	 "the idleness wrapper marks a partition idle once, on the "
	 "active-to-idle edge",
	 WM_KEY_ANY},
	{"mux_allidle_flush_max", "flag",
	 "from flink_behaviour (true for released)", "none (FLINK-38454)",
	 "false", "",
	 "a source subtask whose partitions all go idle first advances to "
	 "their highest watermark",
	 WM_KEY_ANY},
	{"valve_flush_unconditional", "flag",
	 "from flink_behaviour (false for released)", "none (FLINK-40475)",
	 "true", "",
	 "a valve whose last channel goes idle flushes whatever that "
	 "channel's watermark",
	 WM_KEY_ANY},
	{"valve_rederive_on_active", "flag",
	 "from flink_behaviour (false for released)", "none (FLINK-40475)",
	 "true", "",
	 "a valve recomputes its aligned minimum when a channel comes back "
	 "from idle",
	 WM_KEY_ANY},
	{"mux_empty_is_idle", "flag",
	 "from flink_behaviour (false for released)", "none (FLINK-39586)",
	 "true", "", "a source subtask with no partitions left reports idle",
	 WM_KEY_ANY},
	{"mux_reactivate", "flag", "from flink_behaviour (false for released)",
	 "none (FLINK-40504)", "true", "",
	 "a partition back from idle announces itself active even when the "
	 "watermark does not advance",
	 WM_KEY_ANY},
	{"drain_active_before_max", "flag",
	 "from flink_behaviour (false for released)", "none (FLINK-40499)",
	 "true", "",
	 "an idle source turns active before its final watermark at the end "
	 "of input",
	 WM_KEY_ANY},
	{"all_idle", "choice: flink | max | hold", "flink", "none", "max", "",
	 "what a valve or source subtask does when every input is idle (a "
	 "study knob)",
	 WM_KEY_ANY},
	{"alert_partition_idle",
	 "tiers: TIER DURATION, ... (notice | warning "
	 "| severe | critical, rising)",
	 "none", "none", "notice 5 min, severe 30 min", "",
	 "raises an alert while a partition stays idle this long", WM_KEY_ANY},
	{"alert_subtask_idle", "tiers: TIER DURATION, ...", "none", "none",
	 "warning 1 min", "",
	 "raises an alert while a subtask's output stays idle this long",
	 WM_KEY_ANY},
	{"alert_watermark_stalled", "tiers: TIER DURATION, ...", "none", "none",
	 "critical 1 h", "",
	 "raises an alert while a window subtask's watermark stays still this "
	 "long",
	 WM_KEY_ANY},
	{"alert_partition_stalled", "tiers: TIER DURATION, ...", "none", "none",
	 "warning 10 min", "",
	 "raises an alert while a partition that is not idle holds its "
	 "watermark still this long",
	 WM_KEY_ANY},
	{"alert_idle_partitions", "tiers: TIER COUNT, ...", "none", "none",
	 "warning 3, severe 8", "",
	 "raises an alert while this many partitions of one source are idle "
	 "at once",
	 WM_KEY_ANY},
	{"checkpoint_interval", "duration", "none: no checkpoints",
	 "execution.checkpointing.interval", "10 s", "checkpoint_dir = ckpt",
	 "takes a checkpoint this often (with checkpoint_dir)", WM_KEY_ANY},
	{"checkpoint_dir", "path", "none: no checkpoints",
	 "execution.checkpointing.dir", "ckpt", "checkpoint_interval = 10 s",
	 "the directory the checkpoints are written to", WM_KEY_ANY},
	{"checkpoints_retained", "count from 1 to 1000000", "1",
	 "execution.checkpointing.num-retained", "3", CHECKPOINTS,
	 "how many completed checkpoints are kept", WM_KEY_ANY},
	{"fail_at", "duration", "none: no failure", "none", "1 min",
	 CHECKPOINTS,
	 "the job fails once then, to test restarts (--sim crashes every "
	 "subtask, a real run kills one worker)",
	 WM_KEY_ANY},
	{"plugin", "path, or wmrun:NAME for a plugin shipped with wmrun",
	 "none", "none", "wmrun:quantile", "",
	 "a shared library of watermark generators and aggregate functions",
	 WM_KEY_ANY},
	{"restart_strategy", "choice: none | fixed-delay | exponential-delay",
	 "exponential-delay with checkpoints, none without",
	 "restart-strategy.type", "fixed-delay", CHECKPOINTS,
	 "whether and when the job restarts from a checkpoint after a failure",
	 WM_KEY_ANY},
	{"restart_attempts", "count",
	 "1 (fixed-delay), unlimited "
	 "(exponential-delay)",
	 "restart-strategy.fixed-delay.attempts, "
	 "restart-strategy.exponential-delay.attempts-before-reset-backoff",
	 "3", CHECKPOINTS, "restarts before the job fails for good",
	 WM_KEY_ANY},
	{"restart_delay", "duration", "1 s",
	 "restart-strategy.fixed-delay.delay", "10 s",
	 CHECKPOINTS "; restart_strategy = fixed-delay",
	 "the wait before each restart of fixed-delay", WM_KEY_ANY},
	{"restart_initial_delay", "duration", "1 s",
	 "restart-strategy.exponential-delay.initial-backoff", "2 s",
	 CHECKPOINTS, "exponential-delay's first wait", WM_KEY_ANY},
	{"restart_max_delay", "duration", "1 min",
	 "restart-strategy.exponential-delay.max-backoff", "5 min", CHECKPOINTS,
	 "exponential-delay's longest wait", WM_KEY_ANY},
	{"restart_multiplier", "number above 1", "1.5",
	 "restart-strategy.exponential-delay.backoff-multiplier", "2",
	 CHECKPOINTS, "how much exponential-delay's wait grows per restart",
	 WM_KEY_ANY},
	{"restart_reset_threshold", "duration", "1 h",
	 "restart-strategy.exponential-delay.reset-backoff-threshold", "2 h",
	 CHECKPOINTS,
	 "a run this long without failure resets exponential-delay's wait",
	 WM_KEY_ANY},
	{"restart_jitter", "number from 0 to 1", "0.1",
	 "restart-strategy.exponential-delay.jitter-factor", "0.2", CHECKPOINTS,
	 "the random share of exponential-delay's wait", WM_KEY_ANY},
	{"checkpoint_watermarks", "flag", "false (Flink's restore)", "none",
	 "true", CHECKPOINTS,
	 "checkpoints keep the watermarks, and a restore starts from them",
	 WM_KEY_ANY},
	{"checkpoint_timeout", "duration", "10 min",
	 "execution.checkpointing.timeout", "1 min", CHECKPOINTS,
	 "a checkpoint not complete by then is abandoned", WM_KEY_ANY},
};

static const struct wm_key_table_entry source_keys[] = {
	{"parallelism", "count from 1 to 32768", "1", "setParallelism", "2", "",
	 "the source's subtasks", WM_KEY_ANY},
	{"partitions", "count from 1 to 65536",
	 "the source's parallelism (a Kafka topic's partition count)",
	 "the source's splits", "8", "",
	 "the partitions the subtasks share, as Flink assigns splits",
	 WM_KEY_ANY},
	{"generator", "choice: records | nexmark", "records", "none", "nexmark",
	 "",
	 "what makes the records of a source that neither replays nor "
	 "reads a topic: wmrun's generator, or the Nexmark benchmark's "
	 "stream of persons, auctions and bids (the nexmark.* keys)",
	 WM_KEY_ANY},
	{"nexmark.events", "count (k, M, G allowed)", "10M",
	 "Nexmark-Flink's events.num", "1M", NEXMARK,
	 "the events of every kind in the stream, after which it ends",
	 WM_KEY_NEXMARK},
	{"nexmark.rate", "whole events/s over the whole stream (N/s, N/min)",
	 "10000/s", "Nexmark-Flink's nexmark.next.event.rate", "50000/s",
	 NEXMARK,
	 "how fast the stream's events come: event n has the time "
	 "origin + floor(n * 1000 / rate) ms, due then",
	 WM_KEY_NEXMARK},
	{"nexmark.kind", "choice: person | auction | bid", "bid",
	 "the benchmark's views person, auction and bid", "auction", NEXMARK,
	 "the events that become records (the others are passed over)",
	 WM_KEY_NEXMARK},
	{"nexmark.key",
	 "an event's number by the DDL's name (bid: auction, "
	 "bidder, price, dateTime; auction: id, seller, category, "
	 "initialBid, reserve, expires, dateTime; person: id, dateTime), or 1",
	 "auction for bids, id for persons and auctions", "keyBy on the field",
	 "bidder", NEXMARK "; nexmark.kind = bid",
	 "which number of the event is the record's key", WM_KEY_NEXMARK},
	{"nexmark.value", "as nexmark.key", "1: every value is 1",
	 "the field the window aggregates", "price",
	 NEXMARK "; nexmark.kind = bid",
	 "which number of the event is the record's value", WM_KEY_NEXMARK},
	{"rate", "records/s per partition (N/s, N/min, ...), or unlimited",
	 "none: a generated source needs it", "none", "1000/s", "",
	 "how fast each partition generates records", WM_KEY_GENERATOR},
	{"out_of_orderness", "duration", "0",
	 "WatermarkStrategy.forBoundedOutOfOrderness(Duration)", "5 s", "",
	 "the disorder generated records have, and the bound a bounded "
	 "watermark allows",
	 WM_KEY_ANY},
	{"late_fraction", "number from 0 to 1", "0", "none", "0.01", "",
	 "the share of generated records made late", WM_KEY_GENERATOR},
	{"late_by", "duration", "0", "none", "1 min", "",
	 "how far behind its time a late record arrives", WM_KEY_GENERATOR},
	{"keys", "count", "1000", "none", "100", "",
	 "how many distinct keys the records have", WM_KEY_GENERATOR},
	{"values", "count", "1: every value is 1", "none", "10", "",
	 "each partition's values cycle through 1, 2, ..., N",
	 WM_KEY_GENERATOR},
	{"key_distribution", "choice: uniform | zipf", "uniform", "none",
	 "zipf", "", "how keys are drawn", WM_KEY_GENERATOR},
	{"zipf_exponent", "number from 0 to 100", "1", "none", "1.2",
	 "key_distribution = zipf", "the exponent of a zipf key distribution",
	 WM_KEY_GENERATOR},
	{"watermark",
	 "choice: bounded | ascending | punctuated | \"bounded, punctuated\" "
	 "| \"ascending, punctuated\" | plugin:NAME(ARGS)",
	 "bounded",
	 "WatermarkStrategy.forBoundedOutOfOrderness, "
	 "forMonotonousTimestamps, or a WatermarkGenerator",
	 "ascending", "", "the watermark generator", WM_KEY_ANY},
	{"watermark_at", "choice: split | subtask", "split",
	 "split: fromSource(source, strategy, name); subtask: "
	 "assignTimestampsAndWatermarks(strategy)",
	 "subtask", "",
	 "one generator per partition, or one per subtask over its partitions",
	 WM_KEY_ANY},
	{"reactivation_grace", "duration", "0 (Flink's)", "none", "1 s", "",
	 "a partition back from idle joins the minimum this much later "
	 "(watermark_at = split)",
	 WM_KEY_ANY},
	{"idle_timeout", "duration, above 0", "none: partitions never go idle",
	 "WatermarkStrategy.withIdleness(Duration)", "30 s", "",
	 "a partition without records for this long is idle", WM_KEY_ANY},
	{"watermark_interval", "duration",
	 "[job] pipeline.auto-watermark-"
	 "interval (200 ms)",
	 "pipeline.auto-watermark-interval (one per Flink job)", "100 ms", "",
	 "how often this source's periodic generators emit", WM_KEY_ANY},
	{"silence", "shape: " SCHEDULED_SHAPE " (repeatable)", "none", "none",
	 "0 every 10 min for 2 min", "", "the partitions send no records then",
	 WM_KEY_GENERATOR},
	{"skew", "shape: PARTITIONS xF (repeatable)", "none", "none", "0 x2",
	 "", "multiplies the partitions' rate for the whole job",
	 WM_KEY_GENERATOR},
	{"burst",
	 "shape: PARTITIONS xF [every D] [for D] [from D] [to D] "
	 "(repeatable)",
	 "none", "none", "0 x20 from 10 min for 30 s", "",
	 "multiplies the partitions' rate then", WM_KEY_GENERATOR},
	{"outage", "shape: " SCHEDULED_SHAPE " (repeatable)", "none", "none",
	 "0 from 1 min for 30 s", "",
	 "the partitions' records wait then, and are read when it ends",
	 WM_KEY_GENERATOR},
	{"silence_random",
	 "PARTITIONS fraction NUMBER mean DURATION "
	 "(repeatable)",
	 "none", "none", "0 fraction 0.1 mean 5 min", "",
	 "the partitions fall silent at random for this share of the time",
	 WM_KEY_GENERATOR},
	{"punctuate",
	 "PARTITIONS every COUNT records | PARTITIONS every "
	 "DURATION (repeatable)",
	 "none", "none", "0 every 100 records", "watermark = punctuated",
	 "which generated records carry a punctuated watermark",
	 WM_KEY_GENERATOR},
	{"heartbeat", "PARTITIONS every DURATION (repeatable)", "none", "none",
	 "0 every 1 s", "",
	 "the partitions send a heartbeat this often, silent or not",
	 WM_KEY_GENERATOR},
	{"replay", "path (relative to the topology's directory)",
	 "none: the source generates its records", "none", "trace.csv", "",
	 "a recorded trace whose records the source replays instead",
	 WM_KEY_ANY},
	{"pacing", "choice: fast | arrival | event", "fast", "none", "arrival",
	 "replay = trace.csv",
	 "releases the trace's records at once, at their arrival, or by "
	 "event time",
	 WM_KEY_REPLAY},
	{"on_bad_record", "choice: fail | skip", "fail", "none", "skip",
	 "replay = trace.csv",
	 "whether a malformed trace line stops the job or is skipped",
	 WM_KEY_REPLAY},
	{"replay_end", "duration",
	 "none: a partition ends with its last record", "none", "1 h",
	 "replay = trace.csv",
	 "the processing time at which the replayed partitions end",
	 WM_KEY_REPLAY},
	{"key_type", "choice: long | string", "what the trace's keys are",
	 "the key type of keyBy (Long or String)", "string",
	 "replay = trace.csv", "the Java type the trace's keys hash as",
	 WM_KEY_REPLAY},
	{"watermark_alignment_group", "string", "none: no alignment",
	 "WatermarkStrategy.withWatermarkAlignment(group, maxAllowedDrift, "
	 "updateInterval)",
	 "g", "watermark_alignment_max_drift = 1 s",
	 "the sources aligned together (with watermark_alignment_max_drift)",
	 WM_KEY_ANY},
	{"watermark_alignment_max_drift", "duration", "none: no alignment",
	 "withWatermarkAlignment's maxAllowedWatermarkDrift", "1 s",
	 "watermark_alignment_group = g",
	 "how far a partition may run ahead of its group's minimum watermark",
	 WM_KEY_ANY},
	{"watermark_alignment_update_interval", "duration, above 0", "1 s",
	 "withWatermarkAlignment's updateInterval", "500 ms",
	 "watermark_alignment_group = g; watermark_alignment_max_drift = 1 s",
	 "how often the group's minimum watermark is recomputed", WM_KEY_ANY},
	{"topic", "string", "the source's name", "none", "clicks", "",
	 "the name Flink's split enumerator hashes to spread the partitions",
	 WM_KEY_ANY},
	{"kafka.topic", "string", "none: not a Kafka source",
	 "KafkaSource.setTopics", "clicks",
	 "kafka.bootstrap_servers = localhost:9092",
	 "reads the records from this Kafka topic", WM_KEY_ANY},
	{"kafka.bootstrap_servers", "string: HOST:PORT, ...",
	 "none: a Kafka source needs it", "KafkaSource.setBootstrapServers",
	 "localhost:9092", "kafka.topic = clicks", "the brokers to connect to",
	 WM_KEY_ANY},
	{"kafka.group_id", "string", "none", "KafkaSource.setGroupId", "wmrun",
	 KAFKA, "the consumer group its offsets are committed for", WM_KEY_ANY},
	{"kafka.starting_offsets",
	 "earliest | latest | committed | timestamp MS | offsets P:OFFSET, ...",
	 "earliest", "KafkaSource.setStartingOffsets(OffsetsInitializer)",
	 "latest", KAFKA, "where each partition starts", WM_KEY_ANY},
	{"kafka.stopping_offsets",
	 "unbounded | latest | timestamp MS | offsets P:OFFSET, ...",
	 "unbounded", "KafkaSource.setBounded(OffsetsInitializer)", "latest",
	 KAFKA, "where each partition stops, if it does", WM_KEY_ANY},
	{"kafka.value_format", "choice: none | number | csv | json", "none",
	 "the KafkaRecordDeserializationSchema", "csv", KAFKA,
	 "how a record's value is read", WM_KEY_ANY},
	{"kafka.value_fields",
	 "list of timestamp | key | value | punctuate | heartbeat | watermark "
	 "| _ (csv only), each in json as NAME = PATH ($.a.b, $['a.b']) for "
	 "a nested member",
	 "timestamp, key, value", "the KafkaRecordDeserializationSchema",
	 "timestamp = $.payload.ts, value = $.payload.v",
	 KAFKA "; kafka.value_format = json",
	 "the fields of a csv value, in order, or the members of a json "
	 "value that hold them, top-level by name or nested by path",
	 WM_KEY_ANY},
	{"kafka.timestamp", "choice: kafka | value", "kafka",
	 "WatermarkStrategy.withTimestampAssigner", "value",
	 KAFKA "; kafka.value_format = csv",
	 "a record's event time: the Kafka timestamp, or the value's field",
	 WM_KEY_ANY},
	{"kafka.key", "choice: kafka | value", "kafka",
	 "the KafkaRecordDeserializationSchema", "value",
	 KAFKA "; kafka.value_format = csv",
	 "a record's key: the Kafka key, or the value's field", WM_KEY_ANY},
	{"kafka.broker_timeout", "duration, above 0", "30 s", "none", "1 min",
	 KAFKA, "how long an unreachable broker is waited for", WM_KEY_ANY},
	{"kafka.partition.discovery.interval.ms",
	 "count of milliseconds (0 or less: none)",
	 "30000 (0 for a bounded source)", "partition.discovery.interval.ms",
	 "60000", KAFKA, "how often new partitions of the topic are looked for",
	 WM_KEY_ANY},
};

static const struct wm_key_table_entry keyby_keys[] = {
	{"input", "stage name", "none: required",
	 "DataStream.map on the input stream", "a", "", "the stage it reads",
	 WM_KEY_ANY},
	{"parallelism", "count from 1 to 32768", "1", "setParallelism", "2", "",
	 "the stage's subtasks", WM_KEY_ANY},
	{"partitioning", "choice: forward | hash | rebalance | broadcast",
	 "forward with equal parallelism, else rebalance",
	 "forward(), keyBy(), rebalance(), broadcast()", "rebalance", "",
	 "how records go from the input's subtasks to this stage's",
	 WM_KEY_ANY},
};

static const struct wm_key_table_entry window_keys[] = {
	{"input", "stage name, or two separated by a comma (a union)",
	 "none: required", "keyBy(...).window(...) on the upstream stream", "a",
	 "", "the stage or stages it reads", WM_KEY_ANY},
	{"parallelism", "count from 1 to 32768", "1", "setParallelism", "2", "",
	 "the stage's subtasks", WM_KEY_ANY},
	{"partitioning", "choice: forward | hash | rebalance | broadcast",
	 "hash", "keyBy()", "hash", "",
	 "how records go from the input's subtasks to this stage's",
	 WM_KEY_ANY},
	{"max_parallelism", "count from 1 to 32768",
	 "[job] pipeline.max-parallelism, else Flink's default for the "
	 "parallelism",
	 "setMaxParallelism", "256", "", "the stage's key groups", WM_KEY_ANY},
	{"type", "choice: tumbling | sliding | session", "tumbling",
	 "TumblingEventTimeWindows, SlidingEventTimeWindows, "
	 "EventTimeSessionWindows",
	 "sliding", "size = 10 min; slide = 1 min", "the window assigner",
	 WM_KEY_ANY},
	{"size", "duration, above 0", "none: tumbling and sliding need it",
	 "TumblingEventTimeWindows.of(size, offset)", "10 min", "",
	 "the length of a window", WM_KEY_ANY},
	{"slide", "duration, above 0", "none: sliding needs it",
	 "SlidingEventTimeWindows.of(size, slide, offset)", "1 min",
	 "type = sliding; size = 10 min", "how far apart sliding windows start",
	 WM_KEY_ANY},
	{"gap", "duration, above 0", "none: session needs it",
	 "EventTimeSessionWindows.withGap(gap)", "5 min", "type = session",
	 "the quiet time that ends a session", WM_KEY_ANY},
	{"offset", "duration, may be negative", "0",
	 "TumblingEventTimeWindows.of(size, offset)", "-8 h", "size = 24 h",
	 "shifts the windows' starts (\"-8 h\" for a UTC+8 day)", WM_KEY_ANY},
	{"allowed_lateness", "duration", "0", "allowedLateness(Duration)",
	 "1 min", "", "how long a window keeps its state past its end",
	 WM_KEY_ANY},
	{"purging", "flag", "false", "PurgingTrigger.of(trigger)", "true", "",
	 "a firing clears the window's state", WM_KEY_ANY},
	{"aggregates",
	 "list of count | sum | min | max | avg | "
	 "plugin:NAME(ARGS)",
	 "count", "aggregate(AggregateFunction)", "count, avg", "",
	 "the results each firing writes", WM_KEY_ANY},
	{"emit", "choice: count | sum | min | max (one of aggregates)",
	 "the first of count, sum, min, max among aggregates; none if "
	 "there is none, and then only sinks may read the window",
	 "aggregate(AggregateFunction)'s result", "sum",
	 "aggregates = count, sum",
	 "a result's value as a record for the stages that read the window "
	 "(its key, timestamp end - 1)",
	 WM_KEY_ANY},
	{"late_output", "path", "none: late records are counted as dropped",
	 "sideOutputLateData(OutputTag)", "late.csv", "",
	 "the file late records are written to", WM_KEY_ANY},
	{"time", "choice: event | processing", "event",
	 "TumblingProcessingTimeWindows, SlidingProcessingTimeWindows",
	 "processing", "",
	 "the clock of the windows (processing: tumbling and sliding only)",
	 WM_KEY_ANY},
};

static const struct wm_key_table_entry join_keys[] = {
	{"left", "stage name", "none: required",
	 "left.intervalJoin(right) or left.join(right)", "a", "",
	 "the join's first input", WM_KEY_ANY},
	{"right", "stage name", "none: required",
	 "left.intervalJoin(right) or left.join(right)", "b", "",
	 "the join's second input", WM_KEY_ANY},
	{"parallelism", "count from 1 to 32768", "1", "setParallelism", "2", "",
	 "the stage's subtasks", WM_KEY_ANY},
	{"max_parallelism", "count from 1 to 32768",
	 "[job] pipeline.max-parallelism, else Flink's default for the "
	 "parallelism",
	 "setMaxParallelism", "256", "", "the stage's key groups", WM_KEY_ANY},
	{"between", "LOWER, UPPER: durations, either may be negative",
	 "none: an interval join needs it",
	 "KeyedStream.intervalJoin(right).between(lower, upper)", "-5 s, 10 s",
	 "",
	 "pairs a right record at r with a left one at l when l + LOWER <= "
	 "r <= l + UPPER",
	 WM_KEY_ANY},
	{"lower_bound_exclusive", "flag", "false", "lowerBoundExclusive()",
	 "true", "between = -5 s, 10 s", "excludes the lower bound",
	 WM_KEY_ANY},
	{"upper_bound_exclusive", "flag", "false", "upperBoundExclusive()",
	 "true", "between = -5 s, 10 s", "excludes the upper bound",
	 WM_KEY_ANY},
	{"window", "choice: tumbling | sliding | session",
	 "none: a window join needs it",
	 "left.join(right).where(...).equalTo(...).window(assigner)",
	 "tumbling", "size = 1 min",
	 "a window join instead of an interval join", WM_KEY_ANY},
	{"size", "duration, above 0", "none: tumbling and sliding need it",
	 "TumblingEventTimeWindows.of(size, offset)", "1 min",
	 "window = tumbling", "the length of a window", WM_KEY_ANY},
	{"slide", "duration, above 0", "none: sliding needs it",
	 "SlidingEventTimeWindows.of(size, slide, offset)", "10 s",
	 "window = sliding; size = 1 min",
	 "how far apart sliding windows start", WM_KEY_ANY},
	{"gap", "duration, above 0", "none: session needs it",
	 "EventTimeSessionWindows.withGap(gap)", "5 min", "window = session",
	 "the quiet time that ends a session", WM_KEY_ANY},
	{"offset", "duration, may be negative", "0",
	 "TumblingEventTimeWindows.of(size, offset)", "-8 h",
	 "window = tumbling; size = 24 h", "shifts the windows' starts",
	 WM_KEY_ANY},
	{"allowed_lateness", "duration", "0",
	 "JoinedStreams.WithWindow.allowedLateness(Duration)", "1 min",
	 "window = tumbling; size = 1 min",
	 "how long a window keeps its state past its end", WM_KEY_ANY},
	{"left_late", "path", "none: late records are counted as dropped",
	 "IntervalJoined.sideOutputLeftLateData(OutputTag)", "left-late.csv",
	 "between = -5 s, 10 s", "the file the left side's late records go to",
	 WM_KEY_ANY},
	{"right_late", "path", "none: late records are counted as dropped",
	 "IntervalJoined.sideOutputRightLateData(OutputTag)", "right-late.csv",
	 "between = -5 s, 10 s", "the file the right side's late records go to",
	 WM_KEY_ANY},
	{"value", "choice: left | right | sum", "left",
	 "the JoinFunction's result", "sum", "",
	 "a pair's value, as a record for the stages that read the join",
	 WM_KEY_ANY},
};

static const struct wm_key_table_entry sink_keys[] = {
	{"input", "stage name (a window, a join or a map)", "none: required",
	 "DataStream.sinkTo on the input stream", "w", "",
	 "the window, join or map whose results it writes", WM_KEY_ANY},
	{"parallelism", "count from 1 to 32768", "its input's",
	 "setParallelism", "1", "",
	 "the stage's subtasks: its input's, as it is chained to it",
	 WM_KEY_ANY},
	{"partitioning", "choice: forward | hash | rebalance | broadcast",
	 "forward", "forward()", "forward", "",
	 "how results go from the input's subtasks to the sink's", WM_KEY_ANY},
	{"format", "choice: csv | jsonl", "csv", "none", "jsonl", "",
	 "the format of the results", WM_KEY_ANY},
	{"path", "path, or - for standard output", "- (standard output)",
	 "none", "out.csv", "", "the file the results go to", WM_KEY_ANY},
	{"subtask_column", "flag", "false", "none", "true", "",
	 "adds the subtask that computed each result", WM_KEY_ANY},
};

static const struct wm_key_table_entry map_keys[] = {
	{"input", "stage name (a source with generator = nexmark)",
	 "none: required", "the table of a Nexmark view (FROM bid)", "a", "",
	 "the Nexmark source whose events, as rows of its nexmark.kind's "
	 "columns, the map reads",
	 WM_KEY_ANY},
	{"parallelism", "count from 1 to 32768", "its input's",
	 "setParallelism", "1", "",
	 "the stage's subtasks: its input's, as it is chained to it",
	 WM_KEY_ANY},
	{"where", "expression (doc/semantics.md section 16)",
	 "none: every row is kept", "WHERE", "auction % 123 = 0", "",
	 "the condition a row must meet to be kept", WM_KEY_ANY},
	{"select", "expression list: EXPR [AS NAME], ...",
	 "none: the input's columns", "SELECT",
	 "auction, price * 0.908 AS price", "", "the columns of each row kept",
	 WM_KEY_ANY},
};

static const struct wm_key_table_section sections[] = {
	{"job",
	 "the job as a whole: run length, clock, checkpoints, "
	 "restarts, alerts, Flink's version",
	 job_keys, N_ELEMS(job_keys)},
	{"source",
	 "a source of records: generated, a replayed trace or a "
	 "Kafka topic, and its watermarks",
	 source_keys, N_ELEMS(source_keys)},
	{"keyby",
	 "a stage that passes records on unchanged, redistributed between "
	 "subtasks (Flink: a map)",
	 keyby_keys, N_ELEMS(keyby_keys)},
	{"window", "a keyed event-time (or processing-time) window",
	 window_keys, N_ELEMS(window_keys)},
	{"join", "an interval join or a window join of two streams", join_keys,
	 N_ELEMS(join_keys)},
	{"sink",
	 "a file the results of a window, a join or a map are written to",
	 sink_keys, N_ELEMS(sink_keys)},
	{"map",
	 "the rows of a Nexmark source's events, filtered by a where and "
	 "made by a select, for sinks",
	 map_keys, N_ELEMS(map_keys)},
};

_Static_assert(N_ELEMS(job_keys) <= MAX_SECTION_KEYS &&
		       N_ELEMS(source_keys) <= MAX_SECTION_KEYS,
	       "wm_key_table_suggest() has room for every key of a section");

const struct wm_key_table_section *
wm_key_table_sections(size_t *n)
{
	*n = N_ELEMS(sections);
	return sections;
}

const struct wm_key_table_section *
wm_key_table_section(const char *kind)
{
	for (size_t i = 0; i < N_ELEMS(sections); i++)
		if (strcmp(kind, sections[i].kind) == 0)
			return &sections[i];
	return NULL;
}

const struct wm_key_table_entry *
wm_key_table_find(const struct wm_key_table_section *s, const char *key)
{
	for (size_t i = 0; i < s->n_keys; i++)
		if (strcmp(key, s->keys[i].name) == 0)
			return &s->keys[i];
	return NULL;
}

const char *
wm_key_table_suggest(const struct wm_key_table_section *s, const char *key)
{
	const char *names[MAX_SECTION_KEYS];

	for (size_t i = 0; i < s->n_keys; i++)
		names[i] = s->keys[i].name;
	return wm_ini_suggest(key, names, s->n_keys);
}
