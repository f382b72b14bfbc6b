#!/bin/sh
# Partitions added to a topic while wmrun reads it are picked up on the
# discovery interval, as Flink's KafkaSource picks them up: a topic of 8
# partitions grows to 12 while a job of 3 source subtasks follows it; the
# new partitions are read from their first record, each by the subtask
# Flink's enumerator gives it, and every record produced is read once.
# Skipped (77) as kafka_lib.sh's kafka_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/kafka_lib.sh"
kafka_require
kafka_broker

topic=$(kafka_topic grows)
kafka_create_topic "$topic" 8
t0=1767225600000
# records FIRST LAST: 30 minutes of a record every 10 s in partitions
# FIRST..LAST.
records() {
	awk -v t0=$t0 -v first="$1" -v last="$2" 'BEGIN {
		for (i = 0; i < 180; i++)
			for (p = first; p <= last; p++)
				printf "%d,%.0f,k%d,1\n", p, t0 + i * 10000, (i + p) % 5
	}'
}
records 0 7 >"$scratch/old.csv"
kafka_produce "$topic" <"$scratch/old.csv"

cat >"$scratch/job.conf" <<EOF
[job]
name = kafka-grows
processing_time = 15 s
[source s]
parallelism = 3
kafka.bootstrap_servers = $KAFKA
kafka.topic = $topic
kafka.starting_offsets = earliest
kafka.partition.discovery.interval.ms = 300
out_of_orderness = 1 s
[window w]
input = s
parallelism = 1
size = 1 min
[sink o]
input = w
path = $scratch/out.csv
EOF
"$WMRUN" --summary "$scratch/summary.json" "$scratch/job.conf" \
	>"$scratch/out" 2>"$scratch/err" &
job=$!
# Once windows fire the job reads the first 8 partitions.
await "results of the first partitions" has_results "$scratch/out.csv"
kafka_add_partitions "$topic" 12
records 8 11 >"$scratch/new.csv"
kafka_produce "$topic" <"$scratch/new.csv"
wait $job || {
	cat "$scratch/err" >&2
	fail "the job failed"
}
total=$(cat "$scratch/old.csv" "$scratch/new.csv" | wc -l)
expect_line "^  records read  *$total\$" "$scratch/err"
expect_line '^  every record accounted  yes$' "$scratch/err"

start=$(printf '%s' "$topic" | od -An -v -tu1 | awk '
	{ for (i = 1; i <= NF; i++) h = (h * 31 + $i) % 4294967296 }
	END { h = (h * 31) % 4294967296; print (h % 2147483648) % 3 }')
sed 's/{"partition":/\n&/g' "$scratch/summary.json" | grep '^{"partition":' |
	sed 's/^{"partition":\([0-9]*\),"subtask":\([0-9]*\),"records":\([0-9]*\),.*/\1 \2 \3/' |
	sort -n >"$scratch/owners"
[ "$(wc -l <"$scratch/owners")" -eq 12 ] ||
	fail "the summary lists $(wc -l <"$scratch/owners") partitions, not 12"
while read -r p subtask records; do
	[ "$subtask" -eq $(((start + p) % 3)) ] ||
		fail "partition $p read by subtask $subtask, Flink's owner is $(((start + p) % 3))"
	[ "$records" -eq 180 ] || fail "partition $p: $records records read, 180 produced"
done <"$scratch/owners"
