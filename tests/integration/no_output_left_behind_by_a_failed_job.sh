#!/bin/sh
# What a job that fails leaves behind: a summary file is whole or absent
# (written under a temporary name and renamed into place at the end), so
# neither a failed write of it nor a SIGKILL of wmrun leaves an empty one;
# and an output into which the job wrote no result (only its header) is
# removed when the job fails. Each used to leave an empty summary or a
# header-only CSV.
. "$srcdir/tests/lib/lib.sh"

cat >"$scratch/job.conf" <<CONF
[job]
processing_time = 1 h
speed = 1
[source s]
parallelism = 1
partitions = 2
rate = 100/s
[window w]
input = s
size = 100 ms
[sink out]
input = w
path = /dev/null
CONF
sed 's/^processing_time = 1 h$/event_time = 10 s/' "$scratch/job.conf" >"$scratch/short.conf"

# no_summary -- neither the summary nor its temporary file is there.
no_summary() {
	[ ! -e "$scratch/s.json" ] || fail "$1: a summary file was left"
	! ls -A "$scratch" | grep -q '^\.s\.json\.' ||
		fail "$1: a temporary summary file was left"
}

# The summary does not fit (a file size limit of 512 bytes): exit 74,
# said so, nothing at its path.
(
	ulimit -f 1
	expect_status 74 "$WMRUN" --sim --summary "$scratch/s.json" "$scratch/short.conf"
	expect_line '^wmrun: could not write summary file "[^"]*/s\.json": File too large$' "$scratch/err"
) || exit 1
no_summary "a summary too large"

# wmrun killed: the summary it would have written is not there.
"$WMRUN" --summary "$scratch/s.json" "$scratch/job.conf" >"$scratch/out" 2>"$scratch/err" &
pid=$!
await "the workers starting" workers_up "$pid" 2
kill -9 "$pid"
wait "$pid"
no_worker_left() { ! pgrep -f "$scratch/job.conf" >/dev/null; }
await "the workers ending with the supervisor" no_worker_left
no_summary "SIGKILL"

# A job failing before any result: its output is not left with only its
# header (every worker fails at the start line: futex_fails).
if "$FUTEX_FAILS" all true 2>/dev/null; then
	sed "s#^path = .*#path = $scratch/out.csv#" "$scratch/short.conf" >"$scratch/fails.conf"
	expect_status 71 "$FUTEX_FAILS" all "$WMRUN" --summary "$scratch/s.json" "$scratch/fails.conf"
	[ ! -e "$scratch/out.csv" ] || fail "a failed job left an output without results"
	# It ran, so its summary says how it failed.
	expect_line '"outcome":"failed"' "$scratch/s.json"
else
	echo "no seccomp filters here: the failing start is not tried"
fi
echo ok
