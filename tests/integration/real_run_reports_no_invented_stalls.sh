#!/bin/sh
# A real run on a loaded machine (four busy loops on the two cores, which
# the test starts and stops) reports a stall or a silence of a partition
# only where the records' schedule has one, as --sim does: its workers'
# lateness is theirs, not the partitions'. A job with no silence that the
# loaded machine cannot keep up with (source, keyBy and window of two
# subtasks each; --sim: no partition stalled) names no partition stalled,
# idle or silent, and says at the top of its summary that it fell behind
# its schedule; one whose partition 5 is silent for two hours names that
# partition, and only it.
. "$srcdir/tests/lib/lib.sh"

loops=
trap 'for p in $loops; do kill "$p" 2>/dev/null; done; rm -rf "$scratch"' EXIT
for i in 1 2 3 4; do
	sh -c 'while :; do :; done' &
	loops="$loops $!"
done

# job NAME EVENT_TIME RATE [SILENCE] -- eight partitions at RATE each, at
# speed 2000.
job() {
	cat <<CONF
[job]
name = $1
event_time = $2
speed = 2000
seed = 5
[global]
parallelism = 2
[source events]
partitions = 8
rate = $3
out_of_orderness = 1 s
${4:-}
[keyby route]
input = events
[window counts]
input = route
type = tumbling
size = 1 min
aggregates = count
[sink out]
input = counts
format = jsonl
path = $scratch/$1.jsonl
CONF
}

# 576000 records due in 1.8 s of real time: more than the machine
# reads, so the run falls far behind its schedule.
job behind "1 h" 20/s >"$scratch/behind.conf"
expect_status 0 "$WMRUN" "$scratch/behind.conf"
expect_line 'partitions +8, 0 stalled or idle' "$scratch/err"
if grep -E 'partition events-[0-9]+:? silent' "$scratch/err" >&2; then
	fail "a job with no silence reported a silent partition"
fi
expect_line '^  behind its schedule +by up to ' "$scratch/err"

job one-silent "6 h" 1/s "silence = 5 from 2 h to 4 h" >"$scratch/silent.conf"
expect_status 0 "$WMRUN" "$scratch/silent.conf"
expect_line 'partitions +8, 1 stalled or idle' "$scratch/err"
expect_line 'partition events-5 .* watermark stalled 2 h 0 min' "$scratch/err"
expect_line 'source +events .* held by events-5' "$scratch/err"
expect_line 'partition events-5:? silent 2 h 0 min' "$scratch/err"
if grep -E 'partition events-[0-46-9]:? silent' "$scratch/err" >&2; then
	fail "a partition with no silence was reported silent"
fi
exit 0
