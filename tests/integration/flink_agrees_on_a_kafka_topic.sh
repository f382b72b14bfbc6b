#!/bin/sh
# Real Apache Flink reads a real Kafka topic as wmrun does: the topology of
# examples/kafka_quiet_partitions.conf, bounded (stopping_offsets =
# latest), over a topic of 12 partitions with controlled timestamps,
# three of them quiet after 10 minutes and one empty, read by wmrun (a
# real run) and by its --export-flink job (Flink's KafkaSource, on the
# MiniCluster). Their windows are the same (key, bounds, count, sum, min,
# max, late firing, the window subtask that fired), and each partition
# was read by the same source subtask in both (wmrun's summary, and the
# line KafkaRecords writes at each partition's first record). One Flink
# run; records arrive out of order within the bound, and one record per
# quiet partition beyond it, late for wmrun and Flink alike only if the
# watermark passed it, which the comparison settles either way.
# Skipped (77) as kafka_lib.sh's kafka_require and flink_lib.sh's
# flink_require say.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/kafka_lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
kafka_require
flink_require
kafka_broker

topic=$(kafka_topic night)
kafka_create_topic "$topic" 12
# A record every 5 s of event time per partition for 40 minutes from
# 2026-01-01 00:00 UTC, each up to 3 s out of order (the bound is 5 s);
# partitions 8-10 fall silent after 10 minutes, partition 11 holds
# nothing. Keys u0..u12, values the record's index in its partition.
t0=1767225600000
awk -v t0=$t0 'BEGIN {
	for (i = 0; i < 480; i++)
		for (p = 0; p < 11; p++) {
			if (p >= 8 && i >= 120)
				continue
			printf "%d,%.0f,u%d,%d\n", p, t0 + i * 5000 + (i * 7 + p) % 4 * 1000,
				(i * 7 + p) % 13, i
		}
}' >"$scratch/produced.csv"
kafka_produce "$topic" <"$scratch/produced.csv"
total=$(wc -l <"$scratch/produced.csv")

# conf OUT: the topology, its window results (with their subtask) in OUT.
conf() {
	cat <<CONF
[job]
name = kafka-flink
[source events]
parallelism = 4
kafka.bootstrap_servers = $KAFKA
kafka.topic = $topic
kafka.starting_offsets = earliest
kafka.stopping_offsets = latest
kafka.value_format = number
out_of_orderness = 5 s
[window counts]
input = events
parallelism = 2
size = 10 min
aggregates = count, sum, min, max
[sink out]
input = counts
path = $1
subtask_column = true
CONF
}

conf "$scratch/wmrun.out" >"$scratch/wmrun.conf"
expect_status 0 timeout 300 "$WMRUN" --summary "$scratch/wmrun.json" \
	"$scratch/wmrun.conf"
expect_line "^  records read  *$total\$" "$scratch/err"

conf flink.out >"$scratch/flink.conf"
expect_status 0 "$WMRUN" --export-flink "$scratch/project" "$scratch/flink.conf"
grep -q 'KafkaSource.<TraceRecord>builder()' \
	"$scratch/project/src/main/java/wmrun/flink/Job.java" ||
	fail "the exported job does not read the topic with Flink's KafkaSource"
flink_classpath
started=$(date +%s)
flink_run "$scratch/project" "$scratch/flink.log"
echo "the Flink job read the topic in $(($(date +%s) - started)) s"

results "$scratch/wmrun.out" >"$scratch/wmrun.windows"
results "$scratch/project/flink.out" >"$scratch/flink.windows"
# 4 windows of 10 minutes, 13 keys each.
[ "$(wc -l <"$scratch/wmrun.windows")" -eq $((4 * 13)) ] ||
	fail "wmrun fired $(wc -l <"$scratch/wmrun.windows") windows, not 52"
diff -u "$scratch/wmrun.windows" "$scratch/flink.windows" ||
	fail "Flink's windows over the topic differ from wmrun's"
[ "$(awk -F, '{ n += $4 } END { print n }' "$scratch/flink.windows")" -eq "$total" ] ||
	fail "Flink's windows do not count every record once"

# Each partition with records on the same source subtask in both.
sed 's/{"partition":/\n&/g' "$scratch/wmrun.json" | grep '^{"partition":' |
	sed 's/^{"partition":\([0-9]*\),"subtask":\([0-9]*\),"records":\([0-9]*\),.*/\1 \2 \3/' |
	awk '$3 > 0 { print $1, $2 }' | sort -n >"$scratch/wmrun.owners"
sed -n 's/^wmrun-flink: source events: partition \([0-9]*\) read by subtask \([0-9]*\)$/\1 \2/p' \
	"$scratch/flink.log" | sort -n >"$scratch/flink.owners"
[ "$(wc -l <"$scratch/wmrun.owners")" -eq 11 ] ||
	fail "wmrun's summary lists $(wc -l <"$scratch/wmrun.owners") partitions with records, not 11"
diff -u "$scratch/wmrun.owners" "$scratch/flink.owners" ||
	fail "Flink's KafkaSource gave partitions to other subtasks than wmrun"
echo "Flink agrees over $total records: $(wc -l <"$scratch/flink.windows") windows, 11 partitions' owners"
exit 0
