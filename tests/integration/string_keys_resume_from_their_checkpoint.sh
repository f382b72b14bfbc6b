#!/bin/sh
# String keys across --resume: a real run of a string-keyed trace fails
# (fail_at, restart_strategy = none) after complete checkpoints; each
# checkpoint holds the dictionary's strings in id order (the ids the
# windows' state holds); --resume loads them before anything is interned
# and the job ends with the fault-free run's results, every key printed
# as it came in. A trace whose keys come first in another order no
# longer gives the checkpoint's ids: the resume is refused (65), saying
# so, instead of printing other keys' strings.
. "$srcdir/tests/lib/lib.sh"

# trace FIRST SECOND -- 2 partitions, 4 records/s of event time each over
# 10 min, keys in turn from FIRST SECOND user-3 zürich "a,b" (first seen in
# that order).
trace() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		key[0] = a; key[1] = b; key[2] = "user-3"
		key[3] = "zürich"; key[4] = "\"a,b\""
		for (i = 0; i < 4800; i++)
			printf "%d,%d,%s,%d\n", i % 2, int(i / 2) * 250,
			       key[i % 5], i
	}'
}

# job NAME TRACE [FAIL_AT] -- the trace replayed at its event times, at
# speed 200 (3 s of real time), keyed, 10 s windows at parallelism 2, a
# checkpoint every 20 s of processing time into $scratch/NAME.chk, results
# in $scratch/NAME.csv; without a restart when it fails.
job() {
	cat >"$scratch/$1.conf" <<CONF
[job]
name = string-keys-resume
event_time = 10 min
speed = 200
checkpoint_interval = 20 s
checkpoint_dir = $scratch/$1.chk
checkpoints_retained = 2
restart_strategy = none
${3:+fail_at = $3}
[source s]
partitions = 2
replay = $2
pacing = event
out_of_orderness = 0 ms
[keyby k]
input = s
parallelism = 2
[window w]
input = k
parallelism = 2
size = 10 s
aggregates = count, sum
[sink out]
input = w
path = $scratch/$1.csv
CONF
}

# Results without fire_time, watermark and late_firing, sorted.
results() {
	sed -n '2,$s/,[^,]*,[^,]*,[^,]*$//p' "$1" | LC_ALL=C sort
}

trace user-1 user-2 >"$scratch/keys.csv"
trace user-2 user-1 >"$scratch/other.csv"

job clean "$scratch/keys.csv"
expect_status 0 timeout 60 "$WMRUN" "$scratch/clean.conf"
results "$scratch/clean.csv" >"$scratch/clean.results"
[ "$(wc -l <"$scratch/clean.results")" -eq 300 ] ||
	fail "not 300 results (60 windows x 5 keys)"
grep -q '^"a,b",' "$scratch/clean.results" || fail "no key \"a,b\" printed"

# The run that fails at 5 min, then its resume (the same job, without the
# failure, into the same directory).
job crash "$scratch/keys.csv" "5 min"
status=0
timeout 60 "$WMRUN" "$scratch/crash.conf" >"$scratch/out" 2>"$scratch/err" ||
	status=$?
[ "$status" -ne 0 ] || fail "the job with fail_at and no restart ended well"
chk=$(ls -d "$scratch"/crash.chk/chk-* | sed 's/.*chk-//' | sort -n | tail -n 1)
[ -e "$scratch/crash.chk/chk-$chk/_metadata" ] || fail "no complete checkpoint"
# The dictionary's blob, the last one: the keys in the order the trace
# first shows them.
last=$(ls "$scratch/crash.chk/chk-$chk" | sed -n 's/^subtask-//p' | sort -n | tail -n 1)
printf 'user-1\nuser-2\nuser-3\nzürich\na,b\n' |
	cmp - "$scratch/crash.chk/chk-$chk/subtask-$last" ||
	fail "the checkpoint does not hold the keys in id order"

job crash "$scratch/keys.csv"
expect_status 0 timeout 60 "$WMRUN" --resume "$scratch/crash.chk" "$scratch/crash.conf"
results "$scratch/crash.csv" | sort -u >"$scratch/crash.results"
cmp "$scratch/crash.results" "$scratch/clean.results" ||
	fail "the resumed job's results differ from the fault-free run's"

# The same checkpoint with a trace whose first keys come in another order.
job crash "$scratch/other.csv"
expect_status 65 timeout 60 "$WMRUN" --resume "$scratch/crash.chk" "$scratch/crash.conf"
expect_line "^wmrun: .*the string keys of checkpoint [0-9]+ in \"$scratch/crash.chk\": key 0 \"user-1\" has id 1 in this job: its string keys are not the checkpoint's \(a trace changed\?\)$" "$scratch/err"
exit 0
