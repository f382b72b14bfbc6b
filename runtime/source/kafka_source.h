/*
 * kafka_source.h
 *	A source that reads a Kafka topic with librdkafka: each Kafka
 *	partition one split, owned by the subtask Flink's KafkaSource
 *	enumerator gives it (source_gen.h, wm_source_gen_split_owner()),
 *	read by one consumer per subtask with manual assignment (no group
 *	rebalancing), behind the record source interface that the generator
 *	and the replayed traces share (operators/record_source.h).
 *
 * What a record becomes (doc/semantics.md section 14):
 *	ts		the Kafka record's timestamp (CreateTime or
 *			LogAppendTime, whichever the topic keeps), or the
 *			value's timestamp field (kafka.timestamp = value)
 *	key		the Kafka key, or the value's key field, read as the
 *			source's key_type says (long: a decimal integer;
 *			string: interned in the job's shared dictionary)
 *	value		kafka.value_format: none (1), number, or the CSV or
 *			JSON value's value field
 *	partition	the Kafka partition
 * A record that cannot be read so (no timestamp, a bad field, a key the
 * dictionary refuses) is bad: with on_bad_record = fail the source fails
 * naming topic, partition and offset (EX_DATAERR); with skip it is
 * skipped and counted, the first WM_REPLAY_REPORTED reported.
 *
 * Position: per partition, the offset of the next record to read. That is
 * what a snapshot holds (Flink's KafkaPartitionSplit state) and what a
 * restore seeks to; with a group.id the offsets are also committed to the
 * group, for observability only, as Flink does.
 *
 * Waiting: records arrive from outside, not by processing time. While
 * nothing is fetched next_due_ns() is only the look at the brokers'
 * silence (below), half a broker timeout on; librdkafka calls the
 * wake function given to set_wake() from its own thread whenever the
 * consumer's queue turns non-empty, and the driver wakes the subtask.
 * next_due_ns() is "now" while the queue still holds records (the wake
 * comes only when it turns non-empty) and the end of the broker timeout
 * during an outage, so the driver wakes for those. Partition discovery
 * runs in a thread of the source's (kafka_watch.h: librdkafka's metadata
 * request blocks), which wakes the driver the same way when partitions
 * appear; the next next() assigns them.
 *
 * Brokers that go away: the source keeps its splits' positions and goes on
 * polling; when they come back it reads on from there (nothing read twice,
 * nothing skipped). After kafka.broker_timeout without any, or without a
 * record or a metadata answer (a frozen broker keeps its connections
 * open), health() says EX_UNAVAILABLE and why; next_due_ns() brings the
 * driver back half a timeout into a silence, then at its end. A topic
 * deleted under the source: health() says EX_NOINPUT, naming it.
 */
#ifndef WM_RUNTIME_SOURCE_KAFKA_SOURCE_H
#define WM_RUNTIME_SOURCE_KAFKA_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "operators/source_gen.h"
#include "runtime/conf/topology.h"

struct wm_keys;

/*
 * The record source of subtask `index` of the `parallelism` subtasks of
 * source stage `st` (whose kafka conf is set): a consumer assigned the
 * partitions it owns among the topic's current ones, each at the starting
 * position (looked up with the brokers: offsets for times, the end offsets
 * of a bounded source). `keys`: the job's shared dictionary for string
 * keys, or NULL for long keys (key_type trace, which a topic cannot
 * decide from a first record, reads longs). The partitions are assigned
 * by the first next() or after restore(); the wake function of
 * set_wake() may be given any time before. NULL with a sysexits code in
 * *exit_code and a message in err.
 */
struct wm_record_source *wm_kafka_source_open(const struct wm_stage *st,
					      uint32_t index,
					      struct wm_keys *keys,
					      int *exit_code, char *err,
					      size_t errlen);

#endif /* WM_RUNTIME_SOURCE_KAFKA_SOURCE_H */
