#!/bin/sh
# Real Apache Flink as the oracle of processing-time windows ([window]
# time = processing: TumblingProcessingTimeWindows and
# SlidingProcessingTimeWindows with their ProcessingTimeTrigger). A
# generated source sends 50 records a second on each of two partitions
# for 4 s, then nothing until the job ends at 8 s; three windows read it:
#
#   tumbling  1 s: every window closes by 5 s, while the source lives
#   sliding   2 s every 1 s: the same, each record in two windows
#   hour      1 h: no window closes before the end
#
# Which window a record falls in depends on when it arrives, so the
# comparison is what no timing changes: per key, the records and their
# sum over all of a stage's windows, each record counted once a window
# it belongs to (the sliding stage's twice: its records arrive after its
# first window began, and end long before its last closes). --sim, a
# real run and Flink 2.3.0's MiniCluster running the export agree on
# them; and no 1 h window fires in any of the three: timers pending at
# the end of input are dropped, in Flink as in wmrun, which says so
# ("windows left open"). A Flink side with event-time windows instead
# (MUTATE) fires the hour's windows at the end, and the check fails.
# Skipped (77) as flink_lib.sh's flink_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
flink_require
flink_classpath

# conf OUT: the topology, its sinks' paths beginning with OUT.
conf() {
	cat <<CONF
[job]
name = processing-windows
event_time = 8 s
seed = 4
[source s]
parallelism = 1
partitions = 2
rate = 50/s
keys = 4
values = 7
silence = 0-1 from 4 s
[window tumbling]
input = s
parallelism = 2
size = 1 s
time = processing
aggregates = count, sum
[sink tumbling_out]
input = tumbling
path = $1.tumbling
[window sliding]
input = s
parallelism = 2
type = sliding
size = 2 s
slide = 1 s
time = processing
aggregates = count, sum
[sink sliding_out]
input = sliding
path = $1.sliding
[window hour]
input = s
parallelism = 1
size = 1 h
time = processing
aggregates = count
[sink hour_out]
input = hour
path = $1.hour
CONF
}

# totals FILE: per key, the records and their sum over its windows.
totals() {
	awk -F, 'NR > 1 { n[$1] += $4; s[$1] += $5 }
		END { for (k in n) print k "," n[k] "," s[k] }' "$1" | LC_ALL=C sort
}

# check RUN: RUN's totals, against --sim's when RUN is another.
check() {
	for w in tumbling sliding; do
		totals "$scratch/$1.$w" >"$scratch/$1.$w.totals"
		[ -s "$scratch/$1.$w.totals" ] || fail "$1: no $w results"
		if [ "$1" != sim ]; then
			diff -u "$scratch/sim.$w.totals" "$scratch/$1.$w.totals" ||
				fail "$1: the $w windows' totals differ from --sim's"
		fi
	done
	[ "$(tail -n +2 "$scratch/$1.hour" | wc -l)" -eq 0 ] ||
		fail "$1: an hour's window fired before its end"
}

conf "$scratch/sim" >"$scratch/sim.conf"
expect_status 0 "$WMRUN" --sim "$scratch/sim.conf"
expect_line '^  records read            400$' "$scratch/err"
expect_line '^  every record accounted  yes$' "$scratch/err"
expect_line '^  windows left open       4 \(with records when the job ended\)$' "$scratch/err"
check sim
# Every record in its tumbling window once, in two sliding windows.
awk -F, '{ n += $2 } END { exit n != 400 }' "$scratch/sim.tumbling.totals" ||
	fail "--sim: the tumbling windows do not hold the 400 records"
awk -F, '{ n += $2 } END { exit n != 800 }' "$scratch/sim.sliding.totals" ||
	fail "--sim: the sliding windows do not hold each record twice"

conf "$scratch/real" >"$scratch/real.conf"
expect_status 0 timeout 120 "$WMRUN" --live=never "$scratch/real.conf"
expect_line '^  every record accounted  yes$' "$scratch/err"
check real

conf flink >"$scratch/flink.conf"
expect_status 0 "$WMRUN" --export-flink "$scratch/project" "$scratch/flink.conf"
grep -q 'ProcessingWindows.sliding(2000L, 1000L, 0L, start, SPEED)' \
	"$scratch/project/src/main/java/wmrun/flink/Job.java" ||
	fail "the export does not use Flink's processing-time windows"
flink_run "$scratch/project" "$scratch/flink.log"
for w in tumbling sliding hour; do
	cp "$scratch/project/flink.$w" "$scratch/flink.$w"
done
check flink

# Event-time windows on Flink's side: the hour's windows fire at the
# end (MAX watermark), which the processing-time ones never do.
sed 's/ProcessingWindows.tumbling(3600000L, 0L, start, SPEED)/TumblingEventTimeWindows.of(Duration.ofMillis(3600000))/' \
	"$scratch/project/src/main/java/wmrun/flink/Job.java" >"$scratch/Job.mutated"
cmp -s "$scratch/Job.mutated" "$scratch/project/src/main/java/wmrun/flink/Job.java" &&
	fail "the mutation changed nothing"
cp "$scratch/Job.mutated" "$scratch/project/src/main/java/wmrun/flink/Job.java"
rm -rf "$scratch/project/classes"
flink_run "$scratch/project" "$scratch/mutated.log"
[ "$(tail -n +2 "$scratch/project/flink.hour" | wc -l)" -gt 0 ] ||
	fail "event-time windows on Flink's side fired no hour: this check could not fail"
echo "Flink agrees on processing-time windows: $(cat "$scratch/flink.tumbling.totals" | wc -l) keys, none of the hour's windows fired"
exit 0
