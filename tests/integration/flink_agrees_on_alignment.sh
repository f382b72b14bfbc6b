#!/bin/sh
# Real Apache Flink as the oracle of watermark alignment over replayed
# traces: a source whose partition 0 runs 20 s of event time ahead of its
# partition 1 and of a second source, all three in one alignment group
# (drift 5 s), unioned into one window. Flink pauses partition 0's split
# through ReplayReader.pauseOrResumeSplits (without it the job fails:
# Flink throws UnsupportedOperationException for a reader that cannot
# pause splits), wmrun pauses the partition; the results and the late
# records must agree, in --sim, in a real run and on Flink at two speeds.
#
# Alignment changes when records are read, never a watermark: every
# record is within the bound of its split, so nothing is late whatever
# the timing, with or without alignment (doc/architecture.md 8.1 says
# why a trace cannot make Flink's outcome hang on alignment).
# Skipped (77) as flink_lib.sh's flink_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
flink_require
flink_classpath

# A record every 50 ms per partition of event time from 31 s to 66 s,
# arriving at its time less 30 s (from 1 s), disorder within the 1 s
# bound. ahead.csv: partition 0 20 s ahead for its first 300 records
# (so that it ends no further ahead than partition 1, whose end holds the
# group: a trace's partitions end together), partition 1 on time.
# behind.csv: one partition 500 ms behind.
awk -v dir="$scratch" 'BEGIN {
	hdr = "partition,timestamp,key,value,arrival"
	print hdr >dir "/ahead.csv"; print hdr >dir "/behind.csv"
	for (i = 0; i < 700; i++) {
		t = 31000 + i * 50
		a = t - 30000
		d = (i * 7919) % 5 * 40
		k = (i * 3) % 7
		if (i < 300)
			print 0 "," t + 20000 - d "," k "," 1 + i % 9 "," a >dir "/ahead.csv"
		print 1 "," t - d "," k "," 2 + i % 7 "," a >dir "/ahead.csv"
		print 0 "," t - 500 - d "," k + 1 "," 3 "," a + 5 >dir "/behind.csv"
	}
}'

conf() {
	run=$1
	printf '[job]\nname = alignment\nspeed = 10\n'
	for s in ahead behind; do
		printf '[source %s]\nparallelism = 1\n' $s
		[ $s = ahead ] && printf 'partitions = 2\n' || printf 'partitions = 1\n'
		printf 'replay = %s\npacing = arrival\nout_of_orderness = 1 s\n' "$scratch/$s.csv"
		printf 'watermark_alignment_group = g\n'
		printf 'watermark_alignment_max_drift = 5 s\n'
		printf 'watermark_alignment_update_interval = 1 s\n'
	done
	printf '[window union]\ninput = ahead, behind\nparallelism = 2\nsize = 2 s\n'
	printf 'aggregates = count, sum, min, max\n'
	printf 'late_output = %s\n' "$scratch/$run.union.late"
	printf '[sink union_out]\ninput = union\npath = %s\n' "$scratch/$run.union.out"
	printf 'subtask_column = true\n'
}
oracle alignment

# What the trace is for, seen in wmrun (which Flink agreed with): the
# partition ahead is paused, nothing else is, and nothing is late.
expect_status 0 "$WMRUN" --sim --summary "$scratch/al.json" "$scratch/alignment.sim.conf"
paused_ms() { # paused_ms JSON STAGE PARTITION
	sed "s/.*\"name\":\"$2\"//; s/\"name\":.*//" "$1" |
		sed 's/{"partition"/\n&/g' | grep "^{\"partition\":$3," |
		sed 's/.*"alignment_paused_ms":\([0-9]*\).*/\1/'
}
ms=$(paused_ms "$scratch/al.json" ahead 0)
[ "${ms:-0}" -gt 10000 ] || fail "partition 0 was paused only ${ms:-0} ms"
[ "$(paused_ms "$scratch/al.json" ahead 1)" -eq 0 ] ||
	fail "partition 1 was paused"
[ "$(paused_ms "$scratch/al.json" behind 0)" -eq 0 ] ||
	fail "the source behind was paused"
[ "$(wc -l <"$scratch/alignment.sim.union.late")" -le 1 ] ||
	fail "late records"
exit 0
