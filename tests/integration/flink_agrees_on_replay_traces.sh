#!/bin/sh
# Real Apache Flink as the oracle: each topology is exported with
# --export-flink, built with Maven and run on Flink's local MiniCluster
# over the same trace that wmrun replays, and its window results (key,
# window, aggregates, late firing) and late records must be wmrun's, under
# --sim and in a real run. Covered: examples/replay_trace.conf (two
# partitions, watermarks per split, a record beyond the bound that goes to
# the late side output), and a four-partition trace through a keyby stage
# into windows at parallelism 1 and 2 (max parallelism 128, and 7).
#
# Flink runs on the wall clock, so the traces are chosen to be robust to
# jitter: disorder well inside the out-of-orderness bound, late records
# far beyond it, no idleness. fire_time and watermark (when a window
# fired) are not compared: they depend on when Flink's timers ran.
#
# Skipped (77) as flink_lib.sh's flink_require says.
. "$srcdir/tests/integration/lib.sh"
. "$srcdir/tests/integration/flink_lib.sh"
flink_require
flink_exclusive

# The support classes' own unit tests, in a copy (the source tree may be
# read-only): the exported projects compile the same files.
cp -R "$srcdir/flink" "$scratch/flink"
chmod -R u+w "$scratch/flink"
flink_build "$scratch/flink"

# The example as it is, four times faster, its outputs in files: the
# late click (9 s after it happened, 2 s bound) is beyond the bound by
# seconds, every other record within it by far more than a tick.
conf() {
	sed -e "s|^replay = examples/|replay = $srcdir/examples/|" \
		-e "s|^path = -|path = $scratch/$1.out|" \
		-e "s|^late_output = -.*|late_output = $scratch/$1.late|" \
		-e "s|^format = jsonl|format = csv|" \
		-e "s|^name = replay-clicks|&\nspeed = 4|" \
		"$srcdir/examples/replay_trace.conf"
}
oracle replay_trace

# 4 partitions, 23 keys, 1200 records 50 ms apart in event time, each
# arriving 20 ms after it happened and up to 120 ms out of order (bound:
# 1 s); every 97th record arrives 20 s late, far beyond the bound, and
# goes to the late side output.
awk 'BEGIN {
	print "partition,timestamp,key,value,arrival"
	for (i = 0; i < 1200; i++) {
		ts = 1000 + i * 50 - (i * 7919) % 3 * 40
		arr = 1020 + i * 50
		if (i % 97 == 50) arr += 20000
		printf "%d,%d,%d,%d,%d\n", i % 4, ts, (i * 31) % 23, 1 + i % 9, arr
	}
}' | awk -F, 'NR == 1 { print; next } { print | "sort -t, -k5,5n -s" }' \
	>"$scratch/keyed.csv"
for p in 1 2; do
	conf() {
		cat <<CONF
[job]
name = keyed-p$p
speed = 10
[source t]
parallelism = 2
partitions = 4
replay = $scratch/keyed.csv
pacing = arrival
out_of_orderness = 1 s
[keyby k]
input = t
parallelism = $p
[window w]
input = k
parallelism = $p
max_parallelism = $([ "$p" = 1 ] && echo 128 || echo 7)
size = 2 s
aggregates = count, sum, min, max
late_output = $scratch/$1.late
[sink out]
input = w
parallelism = $p
path = $scratch/$1.out
CONF
	}
	oracle keyed_p$p
done
exit 0
