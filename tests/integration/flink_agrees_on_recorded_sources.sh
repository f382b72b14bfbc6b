#!/bin/sh
# Real Apache Flink as the oracle of a generated source: --export-flink
# records the source under --sim into the project's data/ (the very
# recording --record-trace --sim makes), Flink replays it on its
# MiniCluster, and its window results (key, window, aggregates, late
# firing) and late records must be wmrun's --sim run's. The job is bounded
# in event time: the generator ends its partitions at 60 s, 25 s after
# their last record, and so must Flink's replay (its last windows fire
# then, not with the last record).
#
# Timing is robust to the wall clock: nothing arrives in the first 15 s
# (5 s of wall time at speed 3), so a replay reader that starts late does
# not release the first records in one burst; then one source subtask's
# two partitions arrive 250 ms apart (83 ms of wall time) against a
# watermark tick of 10 ms (3 ms), so every record meets the watermark of
# all the records before it in wmrun and in Flink alike; disorder within
# the bound, late records beyond it by up to 20 s. No idleness.
#
# Skipped (77) as flink_lib.sh's flink_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
flink_require
flink_classpath

conf() {
	cat <<CONF
[job]
name = recorded
event_time = 60 s
speed = 3
seed = 9
[source s]
parallelism = 1
partitions = 2
rate = 2/s
burst = 1 x1 from 250 ms for 1 h  # partition 1 arrives 250 ms after 0
silence = 0-1 from 0 s to 15 s    # while the Flink job starts
silence = 0-1 from 35 s           # for ever: nothing in the last 25 s
out_of_orderness = 1 s
late_fraction = 0.2
late_by = 20 s
keys = 5
watermark_interval = 10 ms
[window w]
input = s
parallelism = 2
size = 2 s
allowed_lateness = 3 s
aggregates = count, sum, min, max
late_output = $scratch/$1.late
[sink out]
input = w
parallelism = 2
path = $scratch/$1.out
CONF
}
SIM_ONLY=1 oracle recorded

# The export's trace is --record-trace --sim's recording, byte for byte.
expect_status 0 "$WMRUN" --sim --quiet --record-trace "$scratch/rec.csv" \
	"$scratch/recorded.sim.conf"
cmp "$scratch/rec.csv" "$scratch/recorded.flink.project/data/source0.csv" ||
	fail "the export's recording is not --record-trace --sim's"
[ "$(grep -c . "$scratch/recorded.sim.late")" -gt 5 ] ||
	fail "too few late records to compare"

# Flink's replay ends at 60 s of arrival time, as the generator did, not
# with its last record at 35 s: from the first window's firing to the
# last there is as long in Flink as in wmrun (fire_time counts from the
# job's submission in Flink, so only the span compares), less 10 s of
# jitter allowed (3.3 s of wall time), not the 25 s a replay ending with
# its last record would lose.
# span FILE: the last fire_time less the first.
span() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "fire_time") c = i; next }
		{ t = $c; if (NR == 2 || t < min) min = t; if (t > max) max = t }
		END { print max - min }' "$1"
}
sim_span=$(span "$scratch/recorded.sim.out")
flink_span=$(span "$scratch/recorded.flink.out")
[ "$flink_span" -ge $((sim_span - 10000)) ] ||
	fail "Flink's windows fired over $flink_span ms, wmrun's over $sim_span: the replay ended early"
exit 0
