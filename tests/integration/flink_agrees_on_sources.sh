#!/bin/sh
# Real Apache Flink as the oracle of the sources: watermarks per split and
# per subtask (watermark_at) over one trace, and a window over the union
# of two sources, in one job (one JVM), compared with wmrun's --sim and
# real run by flink_lib.sh's oracle, at two speeds.
#
# Watermark alignment: flink_agrees_on_alignment.sh.
# doc/architecture.md section 8.1 says why these outcomes do not hang on
# the wall clock. Skipped (77) as flink_lib.sh's flink_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
flink_require
flink_classpath

# A record every 50 ms per partition of event time from 31 s to 66 s,
# arriving 20 ms after its nominal time t less 30 s (arrivals from 1 s),
# 7 keys, disorder within the 1 s bound (never late, whatever the ticks)
# unless said:
#   lag.csv: partition 0 at t; partition 1, from 20 s after the start
#     (2 s of wall clock at speed 10: after any reader's start-up burst),
#     25 s behind: within its own bound, but beyond the bound of
#     the watermark partition 0 makes on a shared generator by 22 s of
#     event time (2.2 s of wall clock, which a stalled reader would have
#     to outlast).
#   second.csv and third.csv: one partition each, 500 ms behind; from
#     30 s after the start (3 s of wall clock at speed 10: a source whose
#     reader is not running yet holds the union's watermark, and a reader
#     deployed 3.3 s late on a loaded machine was seen), every 31st
#     record of second.csv 25 s behind: beyond the watermark of the union
#     by as much.
awk -v dir="$scratch" 'BEGIN {
	hdr = "partition,timestamp,key,value,arrival"
	print hdr >dir "/lag.csv"; print hdr >dir "/second.csv"
	print hdr >dir "/third.csv"
	for (i = 0; i < 700; i++) {
		t = 31000 + i * 50
		a = t - 30000 + 20
		d = (i * 7919) % 5 * 40
		k = (i * 3) % 7
		print 0 "," t - d "," k "," 1 + i % 9 "," a >dir "/lag.csv"
		if (i >= 400)
			print 1 "," t - 25000 - d "," k "," 2 + i % 7 "," a + 5 >dir "/lag.csv"
		s = t - 500 - d
		if (i >= 600 && i % 31 == 0) s = t - 25000
		print 0 "," s "," k "," 3 "," a >dir "/second.csv"
		print 0 "," t - 500 - d "," k + 1 "," 4 "," a + 5 >dir "/third.csv"
	}
}'

source() { # source NAME TRACE PARTITIONS KEYS...
	printf '[source %s]\nparallelism = 1\npartitions = %s\n' "$1" "$3"
	printf 'replay = %s\npacing = arrival\nout_of_orderness = 1 s\n' "$scratch/$2.csv"
	shift 3
	printf '%s\n' "$@"
}
window() { # window NAME INPUT
	printf '[window %s]\ninput = %s\nparallelism = 2\nsize = 2 s\n' "$1" "$2"
	printf 'aggregates = count, sum, min, max\n'
	printf 'late_output = %s\n' "$scratch/$run.$1.late"
	printf '[sink %s_out]\ninput = %s\npath = %s\n' "$1" "$1" "$scratch/$run.$1.out"
	printf 'subtask_column = true\n'
}
conf() {
	run=$1
	printf '[job]\nname = sources\nspeed = 10\n'
	source per_split lag 2
	source per_subtask lag 2 'watermark_at = subtask'
	source second second 1
	source third third 1
	window split per_split
	window subtask per_subtask
	window union 'second, third'
}
oracle sources

# What the traces are for, seen in wmrun's outputs (which Flink agreed on).
[ "$(wc -l <"$scratch/sources.sim.split.late")" -eq 1 ] ||
	fail "per split: late records"
[ "$(wc -l <"$scratch/sources.sim.subtask.late")" -gt 100 ] ||
	fail "per subtask: partition 1 is not late"
[ "$(wc -l <"$scratch/sources.sim.union.late")" -eq 4 ] ||
	fail "union: the late records are not late"
exit 0
