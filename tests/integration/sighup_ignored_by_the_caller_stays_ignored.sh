#!/bin/sh
# `nohup wmrun job.conf` survives a hangup: a SIGHUP that the caller
# ignored stays ignored, by the supervisor and by every worker, and the
# job runs to its end (exit 0). It used to stop on it (exit 129). A
# SIGHUP that was not ignored still stops the job, as Ctrl-C does.
. "$srcdir/tests/lib/lib.sh"

cat >"$scratch/job.conf" <<CONF
[job]
processing_time = 3 s
speed = 1
[source s]
parallelism = 2
partitions = 2
rate = 50/s
[window w]
input = s
size = 100 ms
[sink o]
input = w
path = $scratch/results.csv
CONF

# hangup PID -- SIGHUP to the job and its workers, once they run.
hangup() {
	await "the workers starting" workers_up "$1" 3
	kill -HUP "$1" $(pgrep -P "$1")
}

nohup "$WMRUN" "$scratch/job.conf" >"$scratch/out" 2>"$scratch/err" &
pid=$!
hangup "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 0 ] || { cat "$scratch/err" >&2; fail "nohup: exit status $rc after SIGHUP, expected 0"; }
expect_line '^wmrun: job "[^"]*" finished after ' "$scratch/err"

"$WMRUN" "$scratch/job.conf" >"$scratch/out" 2>"$scratch/err" &
pid=$!
hangup "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 129 ] || { cat "$scratch/err" >&2; fail "exit status $rc after SIGHUP, expected 129"; }
expect_line '^wmrun: job "[^"]*" stopped after ' "$scratch/err"
echo ok
