#!/bin/sh
# Real Apache Flink 2.3.0 as the oracle for idleness (flink_lib.sh's
# oracle: the topology exported, built and run on Flink's MiniCluster over
# the trace wmrun replays; window results and late records must be
# wmrun's under --sim).
#
# quiet: two of four partitions fall silent far longer than the idle
# timeout while the other two keep the watermark moving, so windows keep
# firing; one comes back with a backlog of records from windows that
# fired meanwhile, which are late. Without idleness none would be.
#
# all_idle: both partitions of a source subtask fall silent, the one
# ahead and the one behind on either side of a window's end. Flink 2.3.0
# advances the subtask to the higher watermark when both are idle
# (MUX_ALLIDLE_FLUSH_MAX, in the default flink_behaviour = released), so
# that window fires at night and three records of it that arrive in the
# morning are late; under Flink 2.1's rules (flink-2.1, checked here with
# --sim) the window waits for them. Run at two speeds.
#
# Flink runs on the wall clock, so every margin is wide: silences of 11 s
# against an idle timeout of 2 s, which is ten ticks (200 ms) and twenty
# gaps between a partition's records; each partition's timestamps lag its
# arrivals by less than the 500 ms bound, so no record but the chosen ones
# can be late whenever a partition is found idle; and the window ends that
# decide are 80 ms and more of event time from the watermarks that pass
# them or not. fire_time and watermark are not compared (flink_lib.sh).
#
# Skipped (77) as flink_lib.sh's flink_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
flink_require
flink_classpath

# quiet.csv: p0 and p1 every 100 ms from 50 to 19950 ms of arrival, each
# record 30 ms old; p2 and p3 until 2950, then silent (p3 to the end); p2
# comes back at 14000 with 50 records of 3050..7950, then current ones.
awk 'BEGIN {
	print "partition,timestamp,key,value,arrival"
	for (a = 50; a <= 19950; a += 100) {
		for (p = 0; p < 4; p++) {
			if (p >= 2 && a > 2950 && !(p == 2 && a >= 14550))
				continue
			k = int(a / 100) + p
			printf "%d,%d,%d,%d,%d\n", p, a - 30, k % 5, 1 + k % 9, a
		}
		if (a == 13950)
			for (t = 3050; t <= 7950; t += 100)
				printf "2,%d,%d,%d,%d\n", t, int(t / 100) % 5,
					1 + int(t / 100) % 9, 14000 + (t - 3050) / 100
	}
}' >"$scratch/quiet.csv"

# all_idle.csv: one subtask's p0 and p1 every 100 ms from 250 to 4650 ms,
# p0's records 30 ms old and p1's 230 ms: their last watermarks are 4119
# and 3919, on either side of window [2000, 4000)'s 3999. Silent until
# 16000, when p1 first delivers three records of 3950..3970, then both
# resume from 16550 to 17550.
awk 'BEGIN {
	print "partition,timestamp,key,value,arrival"
	for (a = 250; a <= 17550; a += 100) {
		if (a > 4650 && a < 16550)
			continue
		if (a == 16550)
			for (i = 0; i < 3; i++)
				printf "1,%d,%d,%d,%d\n", 3950 + 10 * i, i, 10 + i,
					16000 + 10 * i
		k = int(a / 100)
		printf "0,%d,%d,%d,%d\n", a - 30, k % 3, 1 + k % 9, a
		printf "1,%d,%d,%d,%d\n", a - 230, (k + 1) % 3, 1 + (k + 1) % 9, a
	}
}' >"$scratch/all_idle.csv"

# topology NAME TRACE PARTITIONS PARALLELISM SPEED [JOB_LINE [IDLE_LINE]]
topology() {
	cat <<CONF
[job]
name = $1
speed = $5
${6:-}
[source s]
parallelism = $4
partitions = $3
replay = $scratch/$2
pacing = arrival
out_of_orderness = 500 ms
${7-idle_timeout = 2 s}
[window w]
input = s
parallelism = $4
size = 2 s
aggregates = count, sum, max
late_output = $scratch/$1.late
[sink out]
input = w
parallelism = $4
path = $scratch/$1.out
CONF
}

# late NAME: how many late records NAME's run wrote.
late() {
	tail -n +2 "$scratch/$1.late" | wc -l
}

# Idleness is what makes the backlog late: without it none is.
topology quiet_no_idleness quiet.csv 4 2 1 "" "" >"$scratch/q.conf"
expect_status 0 "$WMRUN" --sim "$scratch/q.conf"
[ "$(late quiet_no_idleness)" -eq 0 ] ||
	fail "quiet without idleness: $(late quiet_no_idleness) late records, expected 0"

conf() { topology "$1" quiet.csv 4 2 3; }
oracle quiet
[ "$(late quiet.sim)" -eq 50 ] ||
	fail "quiet: $(late quiet.sim) late records, expected the backlog's 50"

# The rule of Flink 2.1 fires window [2000, 4000) in the morning, with the
# three records: the trace tells the two rules apart.
topology all_idle_21 all_idle.csv 2 1 1 "flink_behaviour = flink-2.1" \
	>"$scratch/b.conf"
expect_status 0 "$WMRUN" --sim "$scratch/b.conf"
[ "$(late all_idle_21)" -eq 0 ] ||
	fail "all_idle under flink-2.1: $(late all_idle_21) late records, expected 0"
results "$scratch/all_idle_21.out" >"$scratch/all_idle_21.r"

SIM_ONLY=1 # the real run adds nothing here that quiet's did not
conf() { topology "$1" all_idle.csv 2 1 4; } # Flink at speeds 4 and 2
oracle all_idle
[ "$(late all_idle.sim)" -eq 3 ] ||
	fail "all_idle: $(late all_idle.sim) late records, expected 3"
results "$scratch/all_idle.flink.out" >"$scratch/all_idle.flink.r"
! cmp -s "$scratch/all_idle_21.r" "$scratch/all_idle.flink.r" ||
	fail "all_idle: Flink's results are those of Flink 2.1's rule"
exit 0
