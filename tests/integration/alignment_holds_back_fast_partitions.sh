#!/bin/sh
# Watermark alignment: clicks run about 10 minutes ahead of orders in
# event time; with both in an alignment group with a maximum drift of one
# minute, the click partitions spend most of the job paused while the
# orders' partitions are hardly ever held back. Alignment changes when
# records are read, never a result: the windows hold the same records as
# without it, in --sim and in a real run.
. "$srcdir/tests/lib/lib.sh"

conf="$EXAMPLES/watermark_alignment.conf"
sed '/^watermark_alignment/d' "$conf" >"$scratch/unaligned.conf"

expect_status 0 "$WMRUN" --sim --summary "$scratch/al.json" "$conf"
cut -d, -f1-5 "$scratch/out" | sort >"$scratch/aligned"
expect_status 0 "$WMRUN" --sim --summary "$scratch/free.json" "$scratch/unaligned.conf"
cut -d, -f1-5 "$scratch/out" | sort >"$scratch/free"
cmp -s "$scratch/aligned" "$scratch/free" ||
	fail "alignment changed the window contents"
expect_line '"all_records_accounted":true' "$scratch/al.json"

# paused_ms JSON STAGE -- alignment_paused_ms of STAGE's partitions.
paused_ms() {
	sed "s/.*\"name\":\"$2\"//; s/\"name\":.*//" "$1" |
		sed 's/{"partition"/\n&/g' | grep '^{"partition"' |
		sed 's/.*"alignment_paused_ms":\([0-9]*\).*/\1/'
}
hour=3600000
for ms in $(paused_ms "$scratch/al.json" clicks); do
	[ "$ms" -gt $((hour * 3 / 4)) ] ||
		fail "a click partition was paused only $ms ms"
done
[ "$(paused_ms "$scratch/al.json" clicks | wc -l)" -eq 4 ] ||
	fail "expected 4 click partitions in the summary"
for ms in $(paused_ms "$scratch/al.json" orders); do
	[ "$ms" -lt 60000 ] || fail "an order partition was paused $ms ms"
done
for ms in $(paused_ms "$scratch/free.json" clicks); do
	[ "$ms" -eq 0 ] || fail "paused $ms ms without alignment"
done

# For real: one process per subtask, the reports in the shared segment.
# On --sim's event-time origin (a real run's is the wall clock):
# the same windows.
expect_status 0 timeout 120 "$WMRUN" --set job.event_time_origin=0 --summary "$scratch/real.json" "$conf"
cut -d, -f1-5 "$scratch/out" | sort >"$scratch/real"
cmp -s "$scratch/aligned" "$scratch/real" ||
	fail "the real run's windows differ from --sim's"
for ms in $(paused_ms "$scratch/real.json" clicks); do
	[ "$ms" -gt $((hour / 2)) ] ||
		fail "in the real run a click partition was paused only $ms ms"
done

# A bounded job in which a partition falls silent: it holds its subtask's
# watermark, alignment holds the other partition back, and only when the
# silent one finishes (and leaves the multiplexer, as a finished Flink
# split does) can the other's backlog come out. The job must end, having
# read every record: 2 partitions x 5/s, one of them for 5 min of 30.
cat >"$scratch/silent.conf" <<CONF
[job]
event_time = 30 min
[source s]
partitions = 2
rate = 5/s
out_of_orderness = 1 s
silence = 0 from 5 min
watermark_alignment_group = g
watermark_alignment_max_drift = 1 min
[window w]
input = s
size = 1 min
CONF
expect_status 0 timeout 60 "$WMRUN" --sim --summary "$scratch/silent.json" "$scratch/silent.conf"
expect_line '"records_read":10500,' "$scratch/silent.json"
expect_line '"all_records_accounted":true' "$scratch/silent.json"
