#!/bin/sh
# A worker whose wait fails stops with a message naming itself and why,
# and the job with it (exit 71), instead of looping at full speed on a
# wait that returns at once. The futex waits of the job's doorbells are
# made to fail by a seccomp filter (futex_fails): those with a timeout
# only (a source waiting for its next record, which ignored the error and
# ran the job to its end burning a core), then all of them (the start
# line, input, room in a ring: whichever a worker sleeps in first).
. "$srcdir/tests/lib/lib.sh"

cat >"$scratch/job.conf" <<CONF
[job]
processing_time = 5 s
speed = 1
[source s]
parallelism = 1
partitions = 2
rate = 20/s
[window w]
input = s
size = 1 s
[sink out]
input = w
path = $scratch/out.csv
CONF

if ! "$FUTEX_FAILS" all true 2>"$scratch/err"; then
	cat "$scratch/err" >&2
	echo "seccomp filters cannot be installed here" >&2
	exit 77
fi

expect_status 71 timeout 60 "$FUTEX_FAILS" timed "$WMRUN" "$scratch/job.conf"
expect_line '^wmrun\[s/0\]: error: could not wait for the next record: Function not implemented$' "$scratch/err"
expect_line '^wmrun: worker "s/0" \(pid [0-9]+\) exited with status 71$' "$scratch/err"
# The job ran (the summary says so) and failed: no results, no output.
expect_line '^wmrun: job "[^"]*" failed after ' "$scratch/err"
[ ! -e "$scratch/out.csv" ] || fail "a job that wrote no result left its output"

expect_status 71 timeout 60 "$FUTEX_FAILS" all "$WMRUN" "$scratch/job.conf"
# Whichever wait comes first: the start line, input, room in a ring.
expect_line '^wmrun\[[sw]/0\]: error: could not wait for [a-z "/0-9]+: Function not implemented$' "$scratch/err"
echo ok
