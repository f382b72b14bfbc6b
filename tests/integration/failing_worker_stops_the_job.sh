#!/bin/sh
# A worker that dies stops the job with an error naming the subtask, its
# pid and the signal; the other workers are stopped and none outlives the
# supervisor. An interrupt (SIGINT) stops the job and still summarizes.
. "$srcdir/tests/lib/lib.sh"

cat >"$scratch/long.conf" <<CONF
[job]
event_time = 1 h
speed = 1
[source s]
parallelism = 2
rate = 10/s
[window w]
input = s
size = 1 min
[sink out]
input = w
path = $scratch/out.csv
CONF

# workers PID: the supervisor's children, once all three are up (in fork
# order: --quiet, so that no observer is among them, live_view_*.sh).
workers() {
	for i in $(seq 100); do
		kids=$(pgrep -P "$1" | tr '\n' ' ')
		[ "$(echo $kids | wc -w)" -ge 3 ] && { echo "$kids"; return 0; }
		sleep 0.05
	done
	return 1
}

$INTERRUPTIBLE "$WMRUN" --quiet "$scratch/long.conf" >"$scratch/out" 2>"$scratch/err" &
sup=$!
kids=$(workers $sup) || { kill -9 $sup; fail "workers did not start"; }
victim=$(echo $kids | cut -d' ' -f2)
kill -9 "$victim"
wait $sup
status=$?
[ $status -eq 1 ] || { cat "$scratch/err" >&2; fail "exit status $status after a worker died, expected 1"; }
expect_line "worker \"s/1\" \(pid $victim\) was terminated by signal 9" "$scratch/err"
for k in $kids; do
	kill -0 "$k" 2>/dev/null && fail "worker $k outlived the job"
done

$INTERRUPTIBLE "$WMRUN" "$scratch/long.conf" >"$scratch/out" 2>"$scratch/err" &
sup=$!
kids=$(workers $sup) || { kill -9 $sup; fail "workers did not start"; }
interrupt $sup
expect_line 'stopped by signal 2' "$scratch/err"
expect_line '^wmrun: job "[^"]*" stopped after ' "$scratch/err"
expect_line 'records read' "$scratch/err"
for k in $kids; do
	kill -0 "$k" 2>/dev/null && fail "worker $k outlived the job"
done
echo ok
