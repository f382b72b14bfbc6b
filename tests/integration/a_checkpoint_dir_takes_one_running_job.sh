#!/bin/sh
# A checkpoint directory belongs to one running job
# (runtime/checkpoint/dir_lock.h). Two jobs on one checkpoint_dir, each
# with its own output file, used to both exit 0 while one committed or
# deleted the other's parts (DIR/parts/stage-N/s<w>-e<e> named alike):
# an output with 170 of 300 results, or the other job's. Now:
# (a) a second job, real or --sim, started while the first runs is
#     refused at once with 75 (EX_TEMPFAIL), naming the directory and
#     the holder's pid, and creates nothing (not even its output file);
#     the first finishes with every one of its 300 results;
# (b) a job whose supervisor was SIGKILLed holds nothing: the kernel
#     drops its lock, and the next job on the directory runs.
. "$srcdir/tests/lib/lib.sh"

dir="$scratch/shared.chk"

# job NAME EVENT_TIME -- lib.sh's checkpoint_job of EVENT_TIME into $dir.
job() {
	checkpoint_job "$1" "$dir" "20 s" "$2"
}

# checkpointed PID: the job PID runs and has completed a checkpoint.
checkpointed() {
	kill -0 "$1" 2>/dev/null || fail "the job ended before its first checkpoint"
	ls "$dir"/chk-*/_metadata >/dev/null 2>&1
}

# (a) A first job of 10 min (3 s), stopped (SIGSTOP: it holds the
# directory whatever the machine's load) once a checkpoint is complete,
# and a second job while it is.
job first "10 min"
job second "10 min"
"$WMRUN" --quiet "$scratch/first.conf" >"$scratch/first.out" 2>"$scratch/first.err" &
first=$!
watch_job "$first"
await "the first job's first checkpoint" checkpointed "$first"
kill -STOP "$first"
for mode in "" --sim; do
	"$WMRUN" $mode "$scratch/second.conf" >"$scratch/out" 2>"$scratch/err"
	got=$?
	[ "$got" -eq 75 ] || {
		kill -CONT "$first"
		cat "$scratch/err" >&2
		fail "a second job${mode:+ ($mode)} on the directory exited $got, expected 75"
	}
	expect_line "^wmrun: checkpoint directory \"$dir\" is in use by another job \\(pid $first holds " "$scratch/err"
	[ ! -e "$scratch/second.csv" ] || fail "the refused job${mode:+ ($mode)} created its output"
done
[ "$(cat "$dir/_lock")" = "$first" ] || fail "the lock file does not name the holder"
kill -CONT "$first"
wait "$first" || {
	cat "$scratch/first.err" >&2
	fail "the first job failed"
}
expect_line '^  every record accounted  yes$' "$scratch/first.err"
[ "$(tail -n +2 "$scratch/first.csv" | wc -l)" -eq 300 ] ||
	fail "the first job's output has not its 300 results"

# (b) A supervisor SIGKILLed while it holds the directory: the next job
# (the same, started afresh) runs and writes all of its results.
job long "1 h"
rm -rf "$dir"
"$WMRUN" --quiet "$scratch/long.conf" >/dev/null 2>"$scratch/long.err" &
long=$!
watch_job "$long"
await "the long job's first checkpoint" checkpointed "$long"
kill -9 "$long"
wait "$long"
expect_status 0 "$WMRUN" --quiet "$scratch/second.conf"
[ "$(tail -n +2 "$scratch/second.csv" | wc -l)" -eq 300 ] ||
	fail "the job after a killed one has not its 300 results"
exit 0
