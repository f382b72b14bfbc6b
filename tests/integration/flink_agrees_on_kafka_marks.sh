#!/bin/sh
# Records of a real Kafka topic that mark themselves: each value is
# "value,punctuate,heartbeat,watermark" (kafka.value_fields = value,
# punctuate, heartbeat, watermark). A record whose punctuate is 1 carries
# a watermark at its Kafka timestamp, one with a watermark a watermark of
# its own (watermark = punctuated, periodic emission off); one whose
# heartbeat is 1 is a heartbeat: its generator sees it, then it is
# dropped and counted apart. One partition read by one subtask, so its
# order is the topic's and nothing hangs on the wall clock.
#
# The topic: a record every 100 ms of event time for 60 s, every 10th
# marked, every 97th from the 50th written 20 s behind (late). From 30 s
# to 40 s no data, but a marked heartbeat every second; then a record of
# 32.55 s, which the heartbeats made late (without them the watermark
# would wait at 30 s and it would fill a window of its own). The record of
# 45.1 s carries a watermark of 47.1 s, ahead of it: the 8 records after
# it up to 45.9 s are late.
#
# wmrun fires every window on a marked record's timestamp or a carried
# watermark (or at the end, MAX), counts the 10 heartbeats apart, and
# Flink's KafkaSource with PunctuatedWatermarks and the heartbeat filter,
# through the export, gives the same windows and late records. The same
# topic without its heartbeats, or read past its watermarks, gives other
# windows and late records, so a Flink side that lost either would
# differ; a heartbeat read as data would too. wmrun's recording of the
# topic carries both in its columns: its replay gives the same results,
# and so does Flink over the exported replay. A punctuate or heartbeat of
# 2, or a watermark that is no number, stops wmrun (65) naming the topic,
# partition and offset.
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
					printf "0,%.0f,0,0,1,1,\n", t
				continue
			}
			if (i == 400)
				printf "0,%.0f,1,7,0,0,\n", t0 + 32550
			if (i % 97 == 50)
				t -= 20000
			printf "0,%.0f,%d,%d,%d,0,%s\n", t, i % 5, 1 + i % 9,
				i % 10 == 9, i == 450 ? sprintf("%.0f", t + 2000) : ""
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
# Long keys, which the export of a replayed trace keeps (string keys
# there are issue 28's).
key_type = long
kafka.bootstrap_servers = $KAFKA
kafka.topic = $1
kafka.starting_offsets = earliest
kafka.stopping_offsets = latest
kafka.value_format = csv
kafka.value_fields = value, punctuate, heartbeat, watermark
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
expect_status 0 timeout 300 "$WMRUN" --record-trace "$scratch/rec.csv" \
	"$scratch/wmrun.conf"
expect_line '^  heartbeats, dropped     10 ' "$scratch/err"
# Marks at t0 + 1000 k, the carried one at t0 + 47100: every window fired
# on one, but the last ones at the end.
awk -F, -v t0=$t0 'NR > 1 && $7 != 9223372036854775807 && ($7 - t0) % 1000 != 0 &&
	$7 != t0 + 47100 {
	print "window [" $2 ", " $3 ") fired at watermark " $7; bad = 1 }
	END { exit bad }' "$scratch/wmrun.out" ||
	fail "a window fired on no marked record's timestamp and no carried watermark"
grep -q ",$((t0 + 47100)),false$" "$scratch/wmrun.out" ||
	fail "no window fired on the carried watermark"
[ "$(tail -n +2 "$scratch/wmrun.late" | wc -l)" -eq 14 ] ||
	fail "wmrun: not the 5 records written 20 s behind, the one after the heartbeats and the 8 behind the carried watermark are late"
grep -q "^0,$((t0 + 32550)),1,7$" "$scratch/wmrun.late" ||
	fail "wmrun: the record after the heartbeats is not late"
grep -q "^0,$((t0 + 45900)),3,9$" "$scratch/wmrun.late" ||
	fail "wmrun: the record of 45.9 s, behind the carried watermark, is not late"
awk -F, 'NR > 1 { n += $4 } END { exit n != 487 }' "$scratch/wmrun.out" ||
	fail "wmrun: the windows do not count the 487 records in time (a heartbeat counted?)"
results "$scratch/wmrun.out" >"$scratch/wmrun.windows"

# Without the heartbeats the watermark waits, and without the carried
# watermark it does not leap: other windows or late records, which a
# Flink side that lost either would give.
conf "$quiet" "$scratch/quiet.out" "$scratch/quiet.late" >"$scratch/quiet.conf"
sed 's/^kafka.value_fields = .*/kafka.value_fields = value, punctuate, heartbeat, _/' \
	"$scratch/wmrun.conf" |
	sed "s|$scratch/wmrun\.|$scratch/blind.|" >"$scratch/blind.conf"
for run in quiet blind; do
	expect_status 0 timeout 300 "$WMRUN" --quiet "$scratch/$run.conf"
	results "$scratch/$run.out" >"$scratch/$run.windows"
	if cmp -s "$scratch/wmrun.windows" "$scratch/$run.windows" &&
		cmp -s "$scratch/wmrun.late" "$scratch/$run.late"; then
		fail "$run: the marks changed nothing: this check could not fail"
	fi
done

# The recording carries the marks: replayed, the same results. It has
# the topic's one partition, not the room the job kept for more, whose
# partitions without records would hold the watermark at its start.
grep -qx 'partitions = 1' "$scratch/rec.csv.conf" ||
	fail "the replay topology does not have the topic's one partition"
head -n 1 "$scratch/rec.csv" |
	grep -qx 'partition,timestamp,key,value,arrival,punctuate,heartbeat,watermark' ||
	fail "the recording has not every marks' column"
grep -q ",0,0,$((t0 + 47100))$" "$scratch/rec.csv" ||
	fail "the recording lost the carried watermark"
sed "s|^path = .*|path = $scratch/replay.out|; s|^late_output = .*|late_output = $scratch/replay.late|" \
	"$scratch/rec.csv.conf" >"$scratch/replay.conf"
expect_status 0 "$WMRUN" --sim --quiet "$scratch/replay.conf"
results "$scratch/replay.out" >"$scratch/replay.windows"
cmp -s "$scratch/wmrun.windows" "$scratch/replay.windows" &&
	cmp -s "$scratch/wmrun.late" "$scratch/replay.late" ||
	fail "the replayed recording gives other results"

conf "$topic" flink.out flink.late >"$scratch/flink.conf"
expect_status 0 "$WMRUN" --export-flink "$scratch/project" "$scratch/flink.conf"
job="$scratch/project/src/main/java/wmrun/flink/Job.java"
grep -q 'PunctuatedWatermarks.strategy()' "$job" ||
	fail "the exported job does not use the punctuated generator"
grep -q 'new TraceRecord.NoHeartbeats()' "$job" ||
	fail "the exported job does not drop the heartbeats"
# Flink over the exported replay of the recording too (its trace's
# columns), the two jobs at once.
sed 's/^path = .*/path = replay.out/; s/^late_output = .*/late_output = replay.late/' \
	"$scratch/rec.csv.conf" >"$scratch/replay-flink.conf"
expect_status 0 "$WMRUN" --export-flink "$scratch/replay-project" \
	"$scratch/replay-flink.conf"
flink_classpath
flink_run_jobs "$scratch/flink.log" "$scratch/project" "$scratch/replay-project"
results "$scratch/project/flink.out" >"$scratch/flink.windows"
diff -u "$scratch/wmrun.windows" "$scratch/flink.windows" ||
	fail "Flink's windows over the marked topic differ from wmrun's"
tail -n +2 "$scratch/wmrun.late" | LC_ALL=C sort >"$scratch/a"
tail -n +2 "$scratch/project/flink.late" | LC_ALL=C sort >"$scratch/b"
diff -u "$scratch/a" "$scratch/b" ||
	fail "Flink's late records over the marked topic differ from wmrun's"

results "$scratch/replay-project/replay.out" >"$scratch/replay-flink.windows"
diff -u "$scratch/wmrun.windows" "$scratch/replay-flink.windows" ||
	fail "Flink's windows over the replayed recording differ from wmrun's"
tail -n +2 "$scratch/replay-project/replay.late" | LC_ALL=C sort >"$scratch/c"
diff -u "$scratch/a" "$scratch/c" ||
	fail "Flink's late records over the replayed recording differ from wmrun's"

# A mark that is neither 0 nor 1 stops the job at its offset.
bad=$(kafka_topic bad)
kafka_create_topic "$bad" 1
printf '0,%s,0,1,0,0,\n0,%s,0,1,2,0,\n0,%s,0,1,0,2,\n0,%s,0,1,0,0,1x\n' \
	$((t0 + 100)) $((t0 + 200)) $((t0 + 300)) $((t0 + 400)) | kafka_produce "$bad"
conf "$bad" "$scratch/bad.out" "$scratch/bad.late" >"$scratch/bad.conf"
expect_status 65 timeout 300 "$WMRUN" --quiet "$scratch/bad.conf"
expect_line "partition 0 offset 1: invalid punctuate \"2\" \\(1: the record carries a watermark at its timestamp, 0: it does not\\)" "$scratch/err"
sed 's/^kafka.starting_offsets = .*/kafka.starting_offsets = offsets 0:2/' \
	"$scratch/bad.conf" >"$scratch/bad2.conf"
expect_status 65 timeout 300 "$WMRUN" --quiet "$scratch/bad2.conf"
expect_line "partition 0 offset 2: invalid heartbeat \"2\" \\(1: a heartbeat, 0: a record\\)" "$scratch/err"
sed 's/^kafka.starting_offsets = .*/kafka.starting_offsets = offsets 0:3/' \
	"$scratch/bad.conf" >"$scratch/bad3.conf"
expect_status 65 timeout 300 "$WMRUN" --quiet "$scratch/bad3.conf"
expect_line "partition 0 offset 3: invalid watermark \"1x\"" "$scratch/err"
echo "Flink agrees over 501 marked records, 10 heartbeats and a carried watermark, read and replayed: $(wc -l <"$scratch/flink.windows") windows, 14 late"
exit 0
