#!/bin/sh
# Real Apache Flink as the oracle of the window assigners, allowed
# lateness and the late side output: one source, one trace, five window
# stages in one job (one JVM for them all), each with its late output and
# a sink with the subtask column, compared with wmrun's --sim and real
# run by flink_lib.sh's oracle, at two speeds. Covered: tumbling windows
# with an offset, sliding windows, session windows, allowed lateness with
# its late firings (plain and purging), and records beyond the lateness
# to the side output.
#
# doc/architecture.md section 8.1 says why these outcomes do not hang on
# the wall clock. Skipped (77) as flink_lib.sh's flink_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
flink_require
flink_classpath

# 2 partitions, 10 keys, a record every 50 ms of event time in bursts of
# 4 s, 3 s of silence between bursts (the sessions: gap 1 s), each record
# arriving 20 ms after its nominal time and up to 240 ms out of order
# (bound 1 s: never late, whatever the ticks). After a lead-in of 21 s
# (2.1 s of wall clock at speed 10: the readers have started and caught
# up, a reader deployed late releases what is due in a burst), every 23rd
# record is 25 s behind: every window it falls in ended at least 17.7 s
# of event time before the watermark the records ahead of it allow
# (1.77 s of wall clock at speed 10, which a stalled reader would have to
# outlast): late, and within a lateness of 40 s, as a watermark never
# runs ahead of the records (late firings). Every 37th is 70 s behind:
# beyond that lateness by 23 s (side output). Timestamps start at 71 s,
# arrivals at 0.
awk 'BEGIN {
	print "partition,timestamp,key,value,arrival"
	for (i = 0; i < 480; i++) {
		t = 71000 + i * 50 + int(i / 80) * 3000
		ts = t - (i * 7919) % 7 * 40
		if (i >= 240 && i % 23 == 11) ts = t - 25000
		if (i >= 240 && i % 37 == 20) ts = t - 70000
		printf "%d,%d,%d,%d,%d\n", i % 2, ts, (i * 7) % 10, 1 + i % 9, t - 70000 + 20
	}
}' >"$scratch/windows.csv"

# window NAME PARALLELISM KEYS...: a window stage reading t, its late
# output and its sink.
window() {
	w=$1 p=$2
	shift 2
	printf '[window %s]\ninput = t\nparallelism = %s\n' "$w" "$p"
	printf '%s\n' "$@"
	printf 'aggregates = count, sum, min, max\n'
	printf 'late_output = %s\n' "$scratch/$run.$w.late"
	printf '[sink %s_out]\ninput = %s\npath = %s\n' "$w" "$w" "$scratch/$run.$w.out"
	printf 'subtask_column = true\n'
}
conf() {
	run=$1
	cat <<CONF
[job]
name = windows
speed = 10
[source t]
parallelism = 2
partitions = 2
replay = $scratch/windows.csv
pacing = arrival
out_of_orderness = 1 s
CONF
	window tumbling 2 'size = 2 s' 'offset = 700 ms'
	window sliding 2 'type = sliding' 'size = 3 s' 'slide = 1 s'
	window session 2 'type = session' 'gap = 1 s'
	window lateness 2 'size = 2 s' 'allowed_lateness = 40 s'
	window purging 1 'size = 2 s' 'allowed_lateness = 40 s' 'purging = true'
}
oracle windows

# What the trace is for, seen in wmrun's outputs (which Flink agreed on).
for w in lateness purging; do
	grep -q ',true,[0-9]*$' "$scratch/windows.sim.$w.out" ||
		fail "$w: no late firing"
done
for w in tumbling sliding session lateness; do
	[ "$(wc -l <"$scratch/windows.sim.$w.late")" -gt 2 ] ||
		fail "$w: too few late records"
done
exit 0
