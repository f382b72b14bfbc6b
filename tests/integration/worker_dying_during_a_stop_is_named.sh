#!/bin/sh
# A worker that dies while a Ctrl-C stop drains is named, with its pid and
# signal, and the job's exit status says it failed (1), not that it was
# stopped (130). The job used to exit 130 with only "stopped by signal 2".
. "$srcdir/tests/integration/lib.sh"

cat >"$scratch/flood.conf" <<CONF
[job]
ring_size = 2 KiB
[source s]
parallelism = 1
partitions = 2
rate = unlimited
keys = 64
[keyby k]
input = s
parallelism = 1
[window w]
input = k
parallelism = 1
size = 1 ms
[sink o]
input = w
parallelism = 1
path = $scratch/results.csv
CONF

$INTERRUPTIBLE "$WMRUN" "$scratch/flood.conf" >"$scratch/out" 2>"$scratch/err" &
sup=$!
(sleep 120 && kill -9 "$sup") 2>/dev/null &
watchdog=$!
trap 'kill "$watchdog" 2>/dev/null; pkill -9 -P "$sup" 2>/dev/null; rm -rf "$scratch"' EXIT

await "a window firing" running_with_results "$sup" "$scratch/results.csv"
# Stopped, the keyBy keeps the drain from ending; then it dies in it.
keyby=$(pgrep -P "$sup" -x 'k/0') || fail "no process named k/0"
kill -STOP "$keyby"
kill -INT "$sup"
sleep 0.5
kill -9 "$keyby"
wait "$sup"
rc=$?
[ "$rc" -eq 1 ] || { cat "$scratch/err" >&2; fail "exit status $rc, expected 1"; }
expect_line "^wmrun: worker \"k/0\" \(pid $keyby\) was terminated by signal 9: Killed \(while the job stopped on signal 2\)\$" "$scratch/err"
! pgrep -P "$sup" >/dev/null || fail "workers left running"
echo ok
