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

keyed_trace "$scratch/keyed.csv"

conf() {
	keyed_source
	cat <<CONF
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
