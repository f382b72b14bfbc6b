#!/bin/sh
# Watermark alignment on a replayed trace: one subtask reads two
# partitions of a trace, partition 0 ten minutes ahead of partition 1 in
# event time. In an alignment group with a maximum drift of one minute,
# partition 0 is paused, as Flink pauses one split of a reader, while
# partition 1 goes on: its records wait in the trace and come out when
# partition 1's watermark has caught up. Without alignment nothing is
# paused. Alignment changes when records are read, never a result: the
# windows hold the same records, in --sim and in a real run.
. "$srcdir/tests/lib/lib.sh"

# One hour of arrivals, one record a second in partition 1; partition 0
# sends for the first 50 minutes only, 10 minutes ahead, so that its last
# records are no further ahead than partition 1's last ones: a trace's
# partitions end together, and partition 1's watermark stays where its
# records end, so records of partition 0 beyond it plus the drift would
# wait for ever (--sim refuses that job, below).
trace() { # trace SECONDS -- partition 0 sends for SECONDS
	awk -v fast="$1" 'BEGIN {
		print "partition,timestamp,key,value,arrival"
		for (s = 0; s < 3600; s++) {
			if (s < fast)
				printf "0,%d,%d,1,%d\n", s * 1000 + 600000,
				       s % 7, s * 1000
			printf "1,%d,%d,1,%d\n", s * 1000, s % 5, s * 1000
		}
	}'
}
trace 3000 >"$scratch/trace.csv"

conf() { # conf ALIGNMENT -- the job, aligned if ALIGNMENT is "yes"
	cat <<CONF
[job]
name = replay-alignment
speed = 1000
[source t]
partitions = 2
replay = $scratch/trace.csv
pacing = arrival
out_of_orderness = 1 s
CONF
	[ "$1" = yes ] && cat <<CONF
watermark_alignment_group = g
watermark_alignment_max_drift = 1 min
watermark_alignment_update_interval = 1 s
CONF
	cat <<CONF
[window w]
input = t
size = 5 min
aggregates = count, sum
[sink out]
input = w
path = -
CONF
}
conf yes >"$scratch/aligned.conf"
conf no >"$scratch/free.conf"

expect_status 0 "$WMRUN" --sim --summary "$scratch/al.json" "$scratch/aligned.conf"
cut -d, -f1-5 "$scratch/out" | sort >"$scratch/aligned"
expect_status 0 "$WMRUN" --sim --summary "$scratch/free.json" "$scratch/free.conf"
cut -d, -f1-5 "$scratch/out" | sort >"$scratch/free"
[ -s "$scratch/aligned" ] || fail "no windows"
cmp -s "$scratch/aligned" "$scratch/free" ||
	fail "alignment changed the window contents"
expect_line '"records_read":6600,' "$scratch/al.json"
expect_line '"all_records_accounted":true' "$scratch/al.json"

# paused_ms JSON PARTITION -- alignment_paused_ms of the partition.
paused_ms() {
	sed 's/{"partition"/\n&/g' "$1" | grep "^{\"partition\":$2," |
		sed 's/.*"alignment_paused_ms":\([0-9]*\).*/\1/'
}
hour=3600000
fast=$(paused_ms "$scratch/al.json" 0)
slow=$(paused_ms "$scratch/al.json" 1)
[ -n "$fast" ] && [ -n "$slow" ] || fail "no alignment_paused_ms in the summary"
[ "$fast" -gt $((hour * 3 / 4)) ] ||
	fail "the fast partition was paused only $fast ms"
[ "$slow" -eq 0 ] || fail "the slow partition was paused $slow ms"
for p in 0 1; do
	ms=$(paused_ms "$scratch/free.json" $p)
	[ "$ms" -eq 0 ] || fail "partition $p paused $ms ms without alignment"
done

# What the source emitted, and when: partition 0's records leave the
# trace minutes after their arrival, partition 1's on time.
expect_status 0 "$WMRUN" --sim --record-trace "$scratch/rec.csv" "$scratch/aligned.conf"
held=$(awk -F, '$1 == 0 && $5 - ($2 - 600000) > 60000' "$scratch/rec.csv" | wc -l)
[ "$held" -gt 2000 ] ||
	fail "only $held records of the fast partition were held back a minute"
late=$(awk -F, 'NR > 1 && $1 == 1 && $5 - $2 > 1000' "$scratch/rec.csv" | wc -l)
[ "$late" -eq 0 ] || fail "$late records of the slow partition were held back"

# For real, at 1000 times the trace's speed.
expect_status 0 timeout 120 "$WMRUN" --summary "$scratch/real.json" "$scratch/aligned.conf"
cut -d, -f1-5 "$scratch/out" | sort >"$scratch/real"
cmp -s "$scratch/aligned" "$scratch/real" ||
	fail "the real run's windows differ from --sim's"
fast=$(paused_ms "$scratch/real.json" 0)
[ "$fast" -gt $((hour / 2)) ] ||
	fail "in the real run the fast partition was paused only $fast ms"

# Partition 0 to the end: its last 10 minutes wait for ever.
trace 3600 >"$scratch/trace.csv"
expect_status 78 "$WMRUN" --sim "$scratch/aligned.conf"
expect_line 'source "t" never ends: watermark alignment holds back' "$scratch/err"
