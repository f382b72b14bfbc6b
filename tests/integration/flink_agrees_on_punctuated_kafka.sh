#!/bin/sh
# Punctuated watermarks from a real Kafka topic: each value is
# "value,punctuate" (kafka.value_fields = value, punctuate), and a record
# whose punctuate is 1 carries a watermark at its Kafka timestamp
# (watermark = punctuated, periodic emission off). One partition read by
# one subtask, so its order is the topic's and nothing hangs on the wall
# clock: wmrun fires every window on a marked record's timestamp (or at
# the end, MAX), the records written 20 s behind are the late ones, and
# Flink's KafkaSource with PunctuatedWatermarks, through the export, gives
# the same windows and late records. A punctuate of 2 stops wmrun (65)
# naming the topic, partition and offset.
# Skipped (77) as kafka_lib.sh's kafka_require and flink_lib.sh's
# flink_require say.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/kafka_lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
kafka_require
flink_require
kafka_broker

topic=$(kafka_topic marks)
kafka_create_topic "$topic" 1
# A record every 100 ms of event time from 2026-01-01 00:00 UTC for 60 s,
# keys u0..u4; every 10th marked; every 97th from the 50th written 20 s
# behind (late: the marks are at most 1 s behind the newest record).
t0=1767225600000
awk -v t0=$t0 'BEGIN {
	for (i = 0; i < 600; i++) {
		t = t0 + 100 + i * 100
		if (i % 97 == 50)
			t -= 20000
		printf "0,%.0f,u%d,%d,%d\n", t, i % 5, 1 + i % 9, i % 10 == 9
	}
}' >"$scratch/produced.csv"
kafka_produce "$topic" <"$scratch/produced.csv"

# conf OUT LATE: the topology, its results in OUT, its late records in LATE.
conf() {
	cat <<CONF
[job]
name = kafka-marks
[source events]
parallelism = 1
kafka.bootstrap_servers = $KAFKA
kafka.topic = $1
kafka.starting_offsets = earliest
kafka.stopping_offsets = latest
kafka.value_format = csv
kafka.value_fields = value, punctuate
watermark = punctuated
watermark_interval = 0 ms
[window counts]
input = events
parallelism = 1
size = 2 s
aggregates = count, sum
late_output = $3
[sink out]
input = counts
path = $2
CONF
}

conf "$topic" "$scratch/wmrun.out" "$scratch/wmrun.late" >"$scratch/wmrun.conf"
expect_status 0 timeout 300 "$WMRUN" --quiet "$scratch/wmrun.conf"
# Marks at t0 + 1000 k: every window fired on one, but the last ones at
# the end.
awk -F, -v t0=$t0 'NR > 1 && $7 != 9223372036854775807 && ($7 - t0) % 1000 != 0 {
	print "window [" $2 ", " $3 ") fired at watermark " $7; bad = 1 }
	END { exit bad }' "$scratch/wmrun.out" ||
	fail "a window fired on no marked record's timestamp"
[ "$(tail -n +2 "$scratch/wmrun.late" | wc -l)" -eq 6 ] ||
	fail "wmrun: not the 6 records written 20 s behind are late"

conf "$topic" flink.out flink.late >"$scratch/flink.conf"
expect_status 0 "$WMRUN" --export-flink "$scratch/project" "$scratch/flink.conf"
grep -q 'PunctuatedWatermarks.strategy()' \
	"$scratch/project/src/main/java/wmrun/flink/Job.java" ||
	fail "the exported job does not use the punctuated generator"
flink_classpath
flink_run "$scratch/project" "$scratch/flink.log"
results "$scratch/wmrun.out" >"$scratch/wmrun.windows"
results "$scratch/project/flink.out" >"$scratch/flink.windows"
diff -u "$scratch/wmrun.windows" "$scratch/flink.windows" ||
	fail "Flink's windows over the marked topic differ from wmrun's"
tail -n +2 "$scratch/wmrun.late" | LC_ALL=C sort >"$scratch/a"
tail -n +2 "$scratch/project/flink.late" | LC_ALL=C sort >"$scratch/b"
diff -u "$scratch/a" "$scratch/b" ||
	fail "Flink's late records over the marked topic differ from wmrun's"

# A mark that is neither 0 nor 1 stops the job at its offset.
bad=$(kafka_topic bad)
kafka_create_topic "$bad" 1
printf '0,%s,u0,1,0\n0,%s,u0,1,2\n' $((t0 + 100)) $((t0 + 200)) | kafka_produce "$bad"
conf "$bad" "$scratch/bad.out" "$scratch/bad.late" >"$scratch/bad.conf"
expect_status 65 timeout 300 "$WMRUN" --quiet "$scratch/bad.conf"
expect_line "partition 0 offset 1: invalid punctuate \"2\" \\(1: the record carries a watermark at its timestamp, 0: it does not\\)" "$scratch/err"
echo "Flink agrees over 600 marked records: $(wc -l <"$scratch/flink.windows") windows, 6 late"
exit 0
