#!/bin/sh
# A worker that dies while a Ctrl-C stop drains is named, with its pid and
# signal, and the job's exit status says it failed (1), not that it was
# stopped (130). The job used to exit 130 with only "stopped by signal 2".
. "$srcdir/tests/lib/lib.sh"

flood_job "$scratch/results.csv" >"$scratch/flood.conf"

start_job "$scratch/flood.conf" "$scratch/results.csv"
# Stopped, the keyBy keeps the drain from ending; then it dies in it.
keyby=$(worker_of "$sup" k/0) || exit 1
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
