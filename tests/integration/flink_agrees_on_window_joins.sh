#!/bin/sh
# Real Apache Flink as the oracle of the window join: two replayed traces
# in bursts, three [join] stages with windows over them (tumbling with
# allowed lateness and its late firings, sliding, session), each with a
# sink with the subtask column, exported with --export-flink as
# left.join(right).where(..).equalTo(..).window(..), and compared with
# wmrun's --sim and real run by flink_lib.sh's oracle at two speeds:
# every pair, its timestamp (the window's maxTimestamp) and the subtask
# that made it. A join with other windows on Flink's side must be caught.
#
# Timing-robust (doc/architecture.md section 8.1): every timestamp is even
# and every watermark odd, so an on-time record is always above the
# watermark and its windows have not fired; a late record is 25 s or 70 s
# behind the records around it, its windows fired long before whatever
# the scheduling. Skipped (77) as flink_lib.sh's flink_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
flink_require
flink_classpath

# Bursts of 4 s every 7 s. Impressions (left): 2 partitions, one every
# 40 ms, up to 38 ms out of order. Clicks (right): one every 150 ms; after
# the first 30 s every 20th is 25 s behind (late: within the tumbling
# join's lateness of 40 s, a late firing; dropped by the others) and every
# 33rd is 70 s behind (dropped by every join).
awk 'BEGIN {
	print "partition,timestamp,key,value,arrival"
	for (i = 0; i < 1200; i++) {
		t = 10000 + int(i / 100) * 7000 + (i % 100) * 40
		printf "%d,%d,%d,%d,%d\n", i % 2, t - (i * 7919) % 20 * 2,
			(i * 7) % 11, i, t
	}
}' >"$scratch/impressions.csv"
awk 'BEGIN {
	print "partition,timestamp,key,value,arrival"
	for (j = 0; j < 312; j++) {
		t = 10000 + int(j / 26) * 7000 + (j % 26) * 150
		ts = t + 8
		if (t >= 40000 && j % 20 == 3)
			ts -= 25000
		if (t >= 40000 && j % 33 == 7)
			ts -= 70000
		printf "0,%d,%d,%d,%d\n", ts, (j * 5) % 11, 1000 + j, t
	}
}' >"$scratch/clicks.csv"

# join NAME PARALLELISM KEY = VALUE...: a window join of the two and its
# sink.
join() {
	j=$1 p=$2
	shift 2
	printf '[join %s]\nleft = impressions\nright = clicks\n' "$j"
	printf 'parallelism = %s\n' "$p"
	printf '%s\n' "$@"
	printf '[sink %s_out]\ninput = %s\npath = %s\n' "$j" "$j" "$scratch/$run.$j.out"
	printf 'subtask_column = true\n'
}
conf() {
	run=$1
	cat <<CONF
[job]
name = window joins
speed = 10
[source impressions]
parallelism = 2
partitions = 2
replay = $scratch/impressions.csv
pacing = arrival
out_of_orderness = 200 ms
[source clicks]
replay = $scratch/clicks.csv
pacing = arrival
out_of_orderness = 200 ms
CONF
	join tumbling 2 'window = tumbling' 'size = 2 s' 'offset = 500 ms' \
		'allowed_lateness = 40 s'
	join sliding 3 'window = sliding' 'size = 4 s' 'slide = 2 s'
	join session 1 'window = session' 'gap = 1 s'
}

oracle joins

# What the traces are for, seen in wmrun's outputs (which Flink agreed
# on): late firings of the tumbling join (a pair at least 25 s before the
# watermark it was made at), and late clicks dropped.
expect_status 0 "$WMRUN" --sim "$scratch/joins.sim.conf"
expect_line '^  join late, dropped +[1-9][0-9]* \(left 0, right [1-9][0-9]*\)$' "$scratch/err"
awk -F, 'NR > 1 && $8 - $2 > 20000 { n++ } END { exit n > 0 ? 0 : 1 }' \
	"$scratch/joins.sim.tumbling.out" ||
	fail "the tumbling join fired no window late"

# Windows Flink does not share must be caught.
if (MUTATE='s/^size = 2 s$/size = 3 s/' SIM_ONLY=1 oracle joins_mutated) \
	>"$scratch/mutated.log" 2>&1; then
	cat "$scratch/mutated.log" >&2
	fail "other windows on Flink's side went unnoticed"
fi
grep -q 'Flink (speed = 10) differs in' "$scratch/mutated.log" || {
	cat "$scratch/mutated.log" >&2
	fail "the mutated cross-check failed for another reason"
}
exit 0
