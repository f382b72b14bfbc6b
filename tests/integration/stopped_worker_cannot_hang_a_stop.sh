#!/bin/sh
# Ctrl-C with a stopped worker (SIGSTOP) cannot hang the job: after the
# drain's time limit (5 s) the workers left are named, sent SIGTERM and
# SIGCONT, then SIGKILL, and the job exits 1 (a worker did not stop), with
# no process left. Its summary says what the stop cut off: the records in
# flight between stages, edge by edge. The supervisor used to send
# SIGTERM, which a stopped process never acts on, and wait for ever.
. "$srcdir/tests/lib/lib.sh"

flood_job "$scratch/results.csv" >"$scratch/flood.conf"

start_job "$scratch/flood.conf" "$scratch/results.csv" \
	--summary "$scratch/s.json"
keyby=$(worker_of "$sup" k/0) || exit 1
kill -STOP "$keyby"
kill -INT "$sup"
ended_with "$sup" 1
expect_line "^wmrun: worker \"k/0\" \(pid $keyby\) is stopped \(SIGSTOP\) and did not stop within 5 s of the stop request: terminating it\$" "$scratch/err"
expect_line "^wmrun: worker \"k/0\" \(pid $keyby\) was stopped and did not stop within 5 s of the stop request on signal 2\$" "$scratch/err"
expect_line '^wmrun: job "[^"]*" failed after ' "$scratch/err"
expect_line '^  in flight when failed   [1-9][0-9]*$' "$scratch/err"
expect_line '^    s -> k: sent [0-9]+, received [0-9]+$' "$scratch/err"
expect_line '"outcome":"failed"' "$scratch/s.json"
expect_line '"records_in_flight":[1-9]' "$scratch/s.json"
kill -0 "$keyby" 2>/dev/null && fail "the stopped worker outlived the job"
! pgrep -P "$sup" >/dev/null || fail "workers left running"
echo ok
