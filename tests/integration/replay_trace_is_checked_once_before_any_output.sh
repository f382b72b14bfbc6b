#!/bin/sh
# A replayed trace is read and checked once, by the process that runs the
# job, before any output is opened: a bad or missing trace is reported in
# one line (not once per source subtask) and leaves no sink or late output
# file behind. With on_bad_record = skip, a flood of bad lines is reported
# by its first ten and one count, and the summary counts every one.
. "$srcdir/tests/lib/lib.sh"

trace="$scratch/trace.csv"

conf() { # conf [EXTRA] -- three source subtasks replaying $trace
	cat <<CONF
[job]
name = checked-once
speed = 20
[source t]
parallelism = 3
partitions = 3
replay = $trace
out_of_orderness = 50 ms
${1:-}
[window w]
input = t
size = 100 ms
aggregates = count
late_output = $scratch/late.csv
[sink out]
input = w
path = $scratch/results.csv
CONF
}

# no_output -- neither output file exists
no_output() {
	for f in results.csv late.csv; do
		[ ! -e "$scratch/$f" ] || fail "$f was left behind"
	done
}

# once STATUS PATTERN [--sim] -- the job exits STATUS, prints PATTERN on
# exactly one line of stderr, and leaves no output.
once() {
	expect_status "$1" timeout 60 "$WMRUN" ${3:-} "$scratch/job.conf"
	expect_line "$2" "$scratch/err"
	n=$(grep -c "$trace" "$scratch/err")
	[ "$n" -eq 1 ] || {
		cat "$scratch/err" >&2
		fail "the trace's error is on $n lines"
	}
	no_output
}

conf >"$scratch/job.conf"
printf 'x,1000,1,1\n0,1100,1,1\n' >"$trace"
once 65 "^wmrun: $trace:1: invalid partition \"x\"\$"
once 65 "^wmrun: $trace:1: invalid partition \"x\"\$" --sim
rm "$trace"
# Named at its replay key (job.conf's line 7), before anything runs.
once 66 "^wmrun: $scratch/job.conf:7:10: source t: could not read trace \"$trace\": No such file or directory\$"
once 66 "^wmrun: $scratch/job.conf:7:10: source t: could not read trace \"$trace\": No such file or directory\$" --sim

# 300,000 bad lines around 3 good ones: the first ten are named, the
# rest counted, once each, however many subtasks read the trace.
awk 'BEGIN {
	print "0,1000,1,1"
	for (i = 0; i < 300000; i++)
		print "garbage " i
	print "1,1000,2,1"
	print "2,1000,3,1"
}' >"$trace"
conf "on_bad_record = skip" >"$scratch/job.conf"
for how in "" --sim; do
	expect_status 0 timeout 120 "$WMRUN" $how "$scratch/job.conf"
	expect_line "^wmrun: $trace:2: skipped: invalid partition \"garbage 0\"\$" "$scratch/err"
	expect_line "^wmrun: $trace:11: skipped: invalid partition \"garbage 9\"\$" "$scratch/err"
	expect_line "^wmrun: $trace: 299990 more bad lines skipped\$" "$scratch/err"
	n=$(grep -c "$trace" "$scratch/err")
	[ "$n" -eq 11 ] || fail "the skipped lines take $n lines of stderr${how:+ under $how}"
	expect_line '^  bad records skipped +300000$' "$scratch/err"
	expect_line '^  records read +3$' "$scratch/err"
done
echo ok
