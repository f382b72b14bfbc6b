#!/bin/sh
# A replayed trace that is malformed or out of range stops the job naming
# file, line and what is wrong (exit 65); one that cannot be read names the
# path and why (exit 66); a source subtask that owns no line of the trace
# just has nothing to emit. Each case runs the real wmrun, so that a
# sanitizer build also catches undefined behaviour on the way.
. "$srcdir/tests/integration/lib.sh"

trace="$scratch/trace"

conf() { # conf PACING [PARALLELISM] -- a job replaying $trace
	cat <<CONF
[job]
name = bad-traces
speed = 20
[source t]
parallelism = ${2:-1}
partitions = 2
replay = $trace
pacing = $1
out_of_orderness = 50 ms
[window w]
input = t
size = 100 ms
aggregates = count
[sink out]
input = w
path = $scratch/results.csv
CONF
}

# replays STATUS PACING [PARALLELISM] -- $trace replayed under --sim exits
# with STATUS (its stderr in $scratch/err).
replays() {
	conf "$2" "${3:-1}" >"$scratch/job.conf"
	expect_status "$1" "$WMRUN" --sim "$scratch/job.conf"
}

# A subtask owning no line: partition 1 is absent, so one of the two
# subtasks has nothing; and an empty trace, for all of them. A real run
# too, where each subtask is its own process.
printf 'partition,timestamp,key,value\n0,1000,1,1\n0,1200,1,2\n' >"$trace"
replays 0 event 2
expect_line '^  records read +2$' "$scratch/err"
conf event 2 >"$scratch/job.conf"
expect_status 0 timeout 60 "$WMRUN" "$scratch/job.conf"
expect_line '^  records read +2$' "$scratch/err"
[ "$(wc -l <"$scratch/results.csv")" -eq 3 ] ||
	fail "expected a header and 2 windows in results.csv"
: >"$trace"
replays 0 fast 2
expect_line '^  records read +0$' "$scratch/err"

# A directory opens, but reading it fails: that is no empty trace. In a
# real run too, where the worker maps the error to its exit status.
rm -f "$trace"
mkdir "$trace"
replays 66 fast
expect_line "could not read trace \"$trace\": Is a directory" "$scratch/err"
conf fast >"$scratch/job.conf"
expect_status 66 timeout 60 "$WMRUN" "$scratch/job.conf"
expect_line "could not read trace \"$trace\": Is a directory" "$scratch/err"
rmdir "$trace"
echo "ok"
