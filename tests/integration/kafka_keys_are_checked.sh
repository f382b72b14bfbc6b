#!/bin/sh
# A Kafka source's keys: each checked where it is written (exit 78,
# file:line:col), client properties checked by librdkafka at load time,
# the properties wmrun sets itself refused naming the key that sets them,
# and keys without effect refused. Nothing here needs a broker: every
# error comes before the job looks for one.
. "$srcdir/tests/lib/lib.sh"

# job LINES...: a Kafka job with these [source s] lines from line 6, in
# $scratch/job.conf.
job() {
	{
		echo '[job]'
		echo 'event_time = 10 min'
		echo '[source s]'
		echo 'kafka.topic = clicks'
		echo 'kafka.bootstrap_servers = 127.0.0.1:9'
		for l in "$@"; do echo "$l"; done
		printf '[window w]\ninput = s\nsize = 1 min\n'
	} >"$scratch/job.conf"
}

# refused PATTERN LINE...: with these source lines --check exits 78 with
# a line matching PATTERN.
refused() {
	pattern=$1
	shift
	job "$@"
	expect_status 78 "$WMRUN" --check "$scratch/job.conf"
	expect_line "$pattern" "$scratch/err"
}

refused 'job.conf:6:26: invalid value for "kafka.starting_offsets" in \[source s\]: expected earliest, latest, committed, "timestamp MS" or "offsets P:OFFSET, \.\.\."$' \
	"kafka.starting_offsets = beginning"
refused 'job.conf:6:26: invalid value for "kafka.stopping_offsets" in \[source s\]: expected unbounded, latest, "timestamp MS" or "offsets P:OFFSET, \.\.\."$' \
	"kafka.stopping_offsets = committed"
refused 'job.conf:6:36: invalid value for "kafka.starting_offsets" .*"timestamp MS", MS the epoch milliseconds' \
	"kafka.starting_offsets = timestamp yesterday"
refused 'job.conf:6:39: .*expected "," between PARTITION:OFFSET pairs$' \
	"kafka.starting_offsets = offsets 0:42 1:300"
refused 'job.conf:6:40: .*a partition given twice$' \
	"kafka.starting_offsets = offsets 0:42, 0:300"
refused 'job.conf:6:26: .*committed offsets are a group.s: set kafka.group_id$' \
	"kafka.starting_offsets = committed"
refused 'job.conf:6:22: invalid value for "kafka.value_format"' \
	"kafka.value_format = avro"
refused 'job.conf:6:19: invalid value for "kafka.timestamp" .*the value has no timestamp field' \
	"kafka.timestamp = value"
refused 'job.conf:7:13: invalid value for "kafka.key" .*the value has no key field' \
	"kafka.value_format = csv" "kafka.key = value" "kafka.value_fields = timestamp, value"
refused 'job.conf:7:34: .*a field named twice$' \
	"kafka.value_format = csv" "kafka.value_fields = key, value, key"
refused 'job.conf:7:22: .*a JSON field is timestamp, key, value, punctuate, heartbeat or watermark, alone or as NAME = \$\.path\.to\.it$' \
	"kafka.value_format = json" "kafka.value_fields = _, key"
refused 'job.conf:6:1: key "kafka.fetch.min.bytez": librdkafka has no client property "fetch.min.bytez"$' \
	"kafka.fetch.min.bytez = 1"
refused 'job.conf:6:25: invalid value for "kafka.fetch.min.bytes" .*librdkafka refuses it' \
	"kafka.fetch.min.bytes = lots"
refused 'job.conf:6:1: key "kafka.group.id": set by kafka.group_id, not as a client property$' \
	"kafka.group.id = g"
refused 'job.conf:6:1: key "kafka.enable.auto.commit": wmrun sets enable.auto.commit itself' \
	"kafka.enable.auto.commit = true"
refused 'job.conf:6:1: "rate" has no effect in \[source s\]: the source reads a Kafka topic, which gives the records$' \
	"rate = 5/s"
refused 'job.conf:6:1: "pacing" has no effect in \[source s\]: the source reads a Kafka topic' \
	"pacing = event"
refused 'job.conf:6:1: unrecognized key "kafka.tmestamp" in \[source s\] \(did you mean "kafka.timestamp"\?\)$' \
	"kafka.tmestamp = value"
refused 'job.conf:6:41: invalid value for "kafka.partition.discovery.interval.ms"' \
	"kafka.partition.discovery.interval.ms = 30 s"

# A source without a topic reads no kafka key.
printf '[job]\nevent_time = 1 min\n[source s]\nrate = 10/s\nkafka.group_id = g\n[window w]\ninput = s\nsize = 1 s\n' >"$scratch/job.conf"
expect_status 78 "$WMRUN" --check "$scratch/job.conf"
expect_line 'job.conf:5:1: "kafka.group_id" has no effect in \[source s\]: only a source that reads a Kafka topic \(kafka.topic = TOPIC\) reads it$' "$scratch/err"

# A topic and a trace are two sources of records.
printf '[job]\nevent_time = 1 min\n[source s]\nreplay = t.csv\nkafka.topic = c\nkafka.bootstrap_servers = h:9\n[window w]\ninput = s\nsize = 1 s\n' >"$scratch/job.conf"
expect_status 78 "$WMRUN" --check "$scratch/job.conf"
expect_line 'job.conf:5:15: invalid value for "kafka.topic" in \[source s\]: a source reads a Kafka topic or replays a trace, not both$' "$scratch/err"

# Without brokers there is nothing to read.
printf '[job]\nevent_time = 1 min\n[source s]\nkafka.topic = c\n[window w]\ninput = s\nsize = 1 s\n' >"$scratch/job.conf"
expect_status 78 "$WMRUN" --check "$scratch/job.conf"
expect_line 'job.conf:3:1: missing key "kafka.bootstrap_servers" in \[source s\]$' "$scratch/err"
