#!/bin/sh
# A window that cannot allocate the state of a record stops the job with
# EX_OSERR (71) and a message naming the subtask and what it could not
# allocate, in a real run and under --sim; the record is in none of its
# windows. The job used to exit 0 with "windows fired 786432, every record
# accounted NO".
#
# Memory runs out for real: under `ulimit -d` (the data segment and
# private mappings of every process: the job's memory estimate, which
# goes by physical memory and the address space limit, lets the job
# start, as it would when others take the memory while it runs), or, in a
# sanitizer build whose shadow memory needs terabytes of mappings, with
# the sanitizer's allocator limiting single requests and returning NULL
# instead of aborting.
. "$srcdir/tests/lib/lib.sh"

# A million sliding windows per record (1000 s, slide 1 ms): about 300 MB
# of state for the first record alone.
cat >"$scratch/huge.conf" <<CONF
[job]
event_time = 1 s
[source s]
parallelism = 1
partitions = 1
rate = 10/s
keys = 1
[window w]
input = s
parallelism = 1
type = sliding
size = 1000 s
slide = 1 ms
[sink out]
input = w
path = $scratch/out.csv
CONF

limited() { # limited CMD... -- CMD with little memory
	if (ulimit -d 200000 && "$WMRUN" --help) >/dev/null 2>&1; then
		(ulimit -d 200000 && exec "$@")
	else
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1:max_allocation_size_mb=64" \
			"$@"
	fi
}

for mode in --sim real; do
	opt=$mode
	[ "$mode" = real ] && opt=
	# shellcheck disable=SC2086
	limited "$WMRUN" $opt "$scratch/huge.conf" >"$scratch/out" 2>"$scratch/err"
	got=$?
	[ "$got" -eq 71 ] || {
		cat "$scratch/err" >&2
		fail "$mode: exit status $got, expected 71"
	}
	expect_line 'w/0(\]: error)?: could not allocate the state of the 1000000 windows of a record \(key [0-9-]+, timestamp [0-9-]+\): out of memory$' "$scratch/err"
	! grep -q '^  every record accounted  NO' "$scratch/err" ||
		fail "$mode: the summary lost a record"
done
# The real run names the worker that failed.
expect_line '^wmrun\[w/0\]: error: could not allocate' "$scratch/err"
expect_line '^wmrun: worker "w/0" \(pid [0-9]+\) exited with status 71$' "$scratch/err"
echo ok
