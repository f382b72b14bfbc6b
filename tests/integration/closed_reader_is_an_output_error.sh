#!/bin/sh
# A sink whose reader went away (wmrun job.conf | head -2) is an output
# error: the job stops cleanly with exit 74, says which output failed and
# why, and still prints its summary on stderr; under --sim too. A real run
# used to exit 1 with "worker terminated by signal 13", --sim 141.
. "$srcdir/tests/lib/lib.sh"

cat >"$scratch/job.conf" <<CONF
[job]
processing_time = 1 h
speed = 1
[source s]
parallelism = 2
partitions = 4
rate = 200/s
keys = 100
[window w]
input = s
parallelism = 2
size = 10 ms
[sink out]
input = w
parallelism = 2
path = -
CONF

for mode in real --sim; do
	opt=$mode
	[ "$mode" = real ] && opt=
	# shellcheck disable=SC2086
	{
		timeout 120 "$WMRUN" $opt "$scratch/job.conf" 2>"$scratch/err"
		echo $? >"$scratch/rc"
	} | head -n 2 >"$scratch/head"
	rc=$(cat "$scratch/rc")
	[ "$rc" -eq 74 ] || {
		cat "$scratch/err" >&2
		fail "$mode: exit status $rc, expected 74"
	}
	[ "$(wc -l <"$scratch/head")" -eq 2 ] || fail "$mode: head got no lines"
	expect_line '^wmrun(\[w/[01]\]: error)?: could not write to standard output \(sink "out"\): Broken pipe$' "$scratch/err"
	expect_line '^wmrun: job "[^"]*" failed after ' "$scratch/err"
	expect_line '^  records read ' "$scratch/err"
	! grep -q 'signal 13' "$scratch/err" || fail "$mode: died of SIGPIPE"
done
echo ok
