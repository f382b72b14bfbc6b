#!/bin/sh
# Real Apache Flink as the oracle of keyBy: a four-partition trace through
# a keyby stage into window stages at parallelism 1, 2 and 4, each with
# max parallelism 128 (Flink's default) and 7, in one job (one JVM). Each
# sink writes the subtask column, so a key must land on the subtask Flink
# puts it on (murmur hash of the Long's hashCode into a key group, the key
# group into a subtask), besides giving the same results and late
# records, under --sim and in a real run, at two speeds (flink_lib.sh's
# oracle).
#
# doc/architecture.md section 8.1 says why these outcomes do not hang on
# the wall clock. Skipped (77) as flink_lib.sh's flink_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
flink_require
flink_classpath

# 4 partitions, 23 keys (two of them -2^62 and Long.MAX_VALUE, whose
# hashCode folds the high half), 800 records 50 ms apart in event time,
# each arriving 20 ms after it happened and up to 120 ms out of order
# (bound: 1 s: never late, whatever the ticks); of the first 500, every
# 97th record arrives 30 s late: its window ended some 27 s of event time
# before the watermark the records ahead of it allow (2.7 s of wall clock
# at speed 10, which a stalled reader would have to outlast), and goes to
# the late side output.
awk 'BEGIN {
	print "partition,timestamp,key,value,arrival"
	for (i = 0; i < 800; i++) {
		ts = 1000 + i * 50 - (i * 7919) % 3 * 40
		arr = 1020 + i * 50
		if (i % 97 == 50 && i < 500) arr += 30000
		key = (i * 31) % 23
		if (key == 22) key = "-4611686018427387904"
		if (key == 21) key = "9223372036854775807"
		printf "%d,%d,%s,%d,%d\n", i % 4, ts, key, 1 + i % 9, arr
	}
}' | awk -F, 'NR == 1 { print; next } { print | "sort -t, -k5,5n -s" }' \
	>"$scratch/keyed.csv"

conf() {
	cat <<CONF
[job]
name = keyed
speed = 10
[source t]
parallelism = 2
partitions = 4
replay = $scratch/keyed.csv
pacing = arrival
out_of_orderness = 1 s
[keyby k]
input = t
parallelism = 2
CONF
	for p in 1 2 4; do
		for mp in 128 7; do
			cat <<CONF
[window w_p${p}_mp$mp]
input = k
parallelism = $p
max_parallelism = $mp
size = 2 s
aggregates = count, sum, min, max
late_output = $scratch/$1.w_p${p}_mp$mp.late
[sink out_p${p}_mp$mp]
input = w_p${p}_mp$mp
path = $scratch/$1.w_p${p}_mp$mp.out
subtask_column = true
CONF
		done
	done
}
oracle keyed

# Keys spread over the subtasks: each window stage's results name all of
# them (which Flink agreed on, key by key).
for p in 1 2 4; do
	for mp in 128 7; do
		n=$(tail -n +2 "$scratch/keyed.sim.w_p${p}_mp$mp.out" |
			awk -F, '{ print $NF }' | sort -u | wc -l)
		[ "$n" -eq "$p" ] || fail "p$p mp$mp: keys on $n subtasks of $p"
	done
done
exit 0
