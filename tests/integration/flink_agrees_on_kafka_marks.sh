#!/bin/sh
# Records of a real Kafka topic that mark themselves: each value is
# "value,punctuate,heartbeat" (kafka.value_fields = value, punctuate,
# heartbeat). A record whose punctuate is 1 carries a watermark at its
# Kafka timestamp (watermark = punctuated, periodic emission off); one
# whose heartbeat is 1 is a heartbeat: its generator sees it, then it is
# dropped and counted apart. One partition read by one subtask, so its
# order is the topic's and nothing hangs on the wall clock.
#
# The topic: a record every 100 ms of event time for 60 s, every 10th
# marked, every 97th from the 50th written 20 s behind (late). From 30 s
# to 40 s no data, but a marked heartbeat every second; then a record of
# 32.55 s, which the heartbeats made late (without them the watermark
# would wait at 30 s and it would fill a window of its own).
#
# wmrun fires every window on a marked record's timestamp (or at the end,
# MAX), counts the 10 heartbeats apart, and Flink's KafkaSource with
# PunctuatedWatermarks and the heartbeat filter, through the export, gives
# the same windows and late records. The same topic without its
# heartbeats gives other windows and late records, so a Flink side that
# lost them would differ; a heartbeat read as data would too. A punctuate
# or heartbeat of 2 stops wmrun (65) naming the topic, partition and
# offset.
# Skipped (77) as kafka_lib.sh's kafka_require and flink_lib.sh's
# flink_require say.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/kafka_lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
kafka_require
flink_require
kafka_broker

t0=1767225600000
# produce WITH_BEATS: the lines of the topic, with its heartbeats or not.
produce() {
	awk -v t0=$t0 -v beats="$1" 'BEGIN {
		for (i = 0; i < 600; i++) {
			t = t0 + 100 + i * 100
			if (i >= 300 && i < 400) {
				if (beats && i % 10 == 9)
					printf "0,%.0f,u0,0,1,1\n", t
				continue
			}
			if (i == 400)
				printf "0,%.0f,u1,7,0,0\n", t0 + 32550
			if (i % 97 == 50)
				t -= 20000
			printf "0,%.0f,u%d,%d,%d,0\n", t, i % 5, 1 + i % 9, i % 10 == 9
		}
	}'
}
topic=$(kafka_topic marks)
kafka_create_topic "$topic" 1
produce 1 | kafka_produce "$topic"
quiet=$(kafka_topic nobeats)
kafka_create_topic "$quiet" 1
produce 0 | kafka_produce "$quiet"

# conf TOPIC OUT LATE: the topology, its results in OUT, its late records
# in LATE.
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
kafka.value_fields = value, punctuate, heartbeat
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
expect_status 0 timeout 300 "$WMRUN" "$scratch/wmrun.conf"
expect_line '^  heartbeats, dropped     10 ' "$scratch/err"
# Marks at t0 + 1000 k: every window fired on one, but the last ones at
# the end.
awk -F, -v t0=$t0 'NR > 1 && $7 != 9223372036854775807 && ($7 - t0) % 1000 != 0 {
	print "window [" $2 ", " $3 ") fired at watermark " $7; bad = 1 }
	END { exit bad }' "$scratch/wmrun.out" ||
	fail "a window fired on no marked record's timestamp"
[ "$(tail -n +2 "$scratch/wmrun.late" | wc -l)" -eq 6 ] ||
	fail "wmrun: not the 5 records written 20 s behind and the one after the heartbeats are late"
grep -q "^0,$((t0 + 32550)),u1,7$" "$scratch/wmrun.late" ||
	fail "wmrun: the record after the heartbeats is not late"
awk -F, 'NR > 1 { n += $4 } END { exit n != 495 }' "$scratch/wmrun.out" ||
	fail "wmrun: the windows do not count the 495 records in time (a heartbeat counted?)"

# Without the heartbeats the watermark waits: other windows and late
# records, which a Flink side that lost the heartbeats would give.
conf "$quiet" "$scratch/quiet.out" "$scratch/quiet.late" >"$scratch/quiet.conf"
expect_status 0 timeout 300 "$WMRUN" --quiet "$scratch/quiet.conf"
results "$scratch/wmrun.out" >"$scratch/wmrun.windows"
results "$scratch/quiet.out" >"$scratch/quiet.windows"
if cmp -s "$scratch/wmrun.windows" "$scratch/quiet.windows" ||
	cmp -s "$scratch/wmrun.late" "$scratch/quiet.late"; then
	fail "the heartbeats changed nothing: this check could not fail"
fi

conf "$topic" flink.out flink.late >"$scratch/flink.conf"
expect_status 0 "$WMRUN" --export-flink "$scratch/project" "$scratch/flink.conf"
job="$scratch/project/src/main/java/wmrun/flink/Job.java"
grep -q 'PunctuatedWatermarks.strategy()' "$job" ||
	fail "the exported job does not use the punctuated generator"
grep -q 'new TraceRecord.NoHeartbeats()' "$job" ||
	fail "the exported job does not drop the heartbeats"
flink_classpath
flink_run "$scratch/project" "$scratch/flink.log"
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
printf '0,%s,u0,1,0,0\n0,%s,u0,1,2,0\n0,%s,u0,1,0,2\n' \
	$((t0 + 100)) $((t0 + 200)) $((t0 + 300)) | kafka_produce "$bad"
conf "$bad" "$scratch/bad.out" "$scratch/bad.late" >"$scratch/bad.conf"
expect_status 65 timeout 300 "$WMRUN" --quiet "$scratch/bad.conf"
expect_line "partition 0 offset 1: invalid punctuate \"2\" \\(1: the record carries a watermark at its timestamp, 0: it does not\\)" "$scratch/err"
sed 's/^kafka.starting_offsets = .*/kafka.starting_offsets = offsets 0:2/' \
	"$scratch/bad.conf" >"$scratch/bad2.conf"
expect_status 65 timeout 300 "$WMRUN" --quiet "$scratch/bad2.conf"
expect_line "partition 0 offset 2: invalid heartbeat \"2\" \\(1: a heartbeat, 0: a record\\)" "$scratch/err"
echo "Flink agrees over 501 marked records and 10 heartbeats: $(wc -l <"$scratch/flink.windows") windows, 6 late"
exit 0
