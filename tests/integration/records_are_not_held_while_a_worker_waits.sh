#!/bin/sh
# A worker stages the records it sends on a channel and pushes them as one
# run; a record followed by nothing must still reach its consumer as soon
# as the worker that holds it waits (for input, or for its next record),
# not when the next frame on that channel happens to come. Here a late
# record is the last thing a source sends for an hour: no watermark
# follows it (the watermark cannot go back), yet it must reach the window
# through the keyBy and appear in the late side output while the job
# still runs. Staged for good, it would come out only at the stop.
. "$srcdir/tests/lib/lib.sh"

# Record 1 makes the watermark 99 999 at the source's first tick (every
# 200 ms); record 2, three seconds later, belongs to a window that ended
# long before; record 3 is due in an hour and keeps the job running.
cat >"$scratch/trace.csv" <<TRACE
partition,timestamp,key,value,arrival
0,100000,1,1,0
0,1500,7,1,3000
0,200000,1,1,3600000
TRACE
cat >"$scratch/job.conf" <<CONF
[job]
speed = 1
[source s]
parallelism = 1
partitions = 1
replay = $scratch/trace.csv
pacing = arrival
out_of_orderness = 0
[keyby k]
input = s
parallelism = 1
[window w]
input = k
parallelism = 1
size = 1 s
late_output = $scratch/late.csv
[sink o]
input = w
parallelism = 1
path = $scratch/results.csv
CONF

late_record_out() {
	kill -0 "$1" 2>/dev/null || {
		cat "$scratch/err" >&2
		fail "wmrun ended before it was stopped"
	}
	grep -q '^0,1500,7,1$' "$scratch/late.csv" 2>/dev/null
}

$INTERRUPTIBLE "$WMRUN" --summary "$scratch/s.json" "$scratch/job.conf" \
	>"$scratch/out" 2>"$scratch/err" &
pid=$!
watch_job "$pid"
await "the late record in the late output of a running job" \
	late_record_out "$pid"
interrupt "$pid"
expect_line '"late_records_side_output":1,' "$scratch/s.json"
expect_line '"records_read":2,' "$scratch/s.json"
echo ok
