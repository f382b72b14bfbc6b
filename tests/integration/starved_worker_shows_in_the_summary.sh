#!/bin/sh
# A watermark that stalls because its process could not run (runnable, but
# no CPU for it) says so in the summary: "..., 3.7 s of it waiting for a
# CPU" beside the longest stall, and cpu_wait_ms and
# longest_stall_cpu_wait_ms in the JSON, from the kernel's count of each
# worker's run delay. A stall of a starved job used to look like one of
# its data; one that only the process's lateness on its schedule made is
# now counted apart, as the scheduler's (runtime/engine/progress.h), and
# the summary says at its top how far the run fell behind its schedule.
# The job runs at nice 19 on CPU 0, for three seconds of it
# beside two busy loops at the highest priority the test may give them.
. "$srcdir/tests/lib/lib.sh"

[ -r /proc/self/schedstat ] || { echo "no /proc/PID/schedstat here"; exit 77; }

cat >"$scratch/job.conf" <<CONF
[job]
processing_time = 8 s
speed = 1
stall_threshold = 500 ms
[source s]
parallelism = 1
partitions = 1
rate = 100/s
[window w]
input = s
parallelism = 1
size = 1 s
[sink o]
input = w
parallelism = 1
path = $scratch/results.csv
CONF

taskset -c 0 nice -n 19 "$WMRUN" --summary "$scratch/s.json" \
	"$scratch/job.conf" >"$scratch/out" 2>"$scratch/err" &
job=$!
trap 'kill $hogs "$job" 2>/dev/null; rm -rf "$scratch"' EXIT
hogs=""
await "a window firing" running_with_results "$job" "$scratch/results.csv"
# Three seconds of two busy loops on the job's CPU, at the highest
# priority the test may give them: the job has next to no CPU meanwhile.
prio=-20
nice -n "$prio" true 2>/dev/null || prio=0
for i in 1 2; do
	taskset -c 0 nice -n "$prio" sh -c 'while :; do :; done' &
	hogs="$hogs $!"
done
sleep 3
kill $hogs
wait "$job"
rc=$?
[ "$rc" -eq 0 ] || { cat "$scratch/err" >&2; fail "exit status $rc, expected 0"; }
# A stall that only the process's lateness made (it could not run while
# its records were due) is the scheduler's: counted apart, with its wait,
# not as a stall; the noise is what the run measured, and a run that fell
# behind by more than the stall threshold says so at the top. A stall the
# lateness explains only in part stays a stall of its stage and says how
# much of it was the wait: the source, or the window it holds back,
# whichever stage's worst subtask had it.
expect_line '^  behind its schedule +by up to [0-9.]+ (ms|s) \([0-9.]+ (ms|s) of real time; its processes waited for a CPU [0-9]+ % of their time\): not counted as stalls$' "$scratch/err"
expect_line '^  scheduling noise        [0-9.]+ (ms|s) at speed 1 \([0-9.]+ (ms|s) of real time\), the most it fell behind its schedule: ' "$scratch/err"
grep -Eq '^  scheduling noise .*: [0-9]+ stalls? within it, .*, [0-9.]+ (ms|s) of it waiting for a CPU, not counted below$' "$scratch/err" ||
	grep -Eq '^    (source  s|window  w) .* watermark stalled .*, [0-9.]+ (ms|s) of it waiting for a CPU; [0-9]+ stalls?\)$' "$scratch/err" ||
	{ cat "$scratch/err" >&2; fail "no stall says its process waited for a CPU"; }
grep -q '"cpu_wait_ms":[1-9]' "$scratch/s.json" || fail "no worker waited for a CPU"
grep -Eq '"(longest_stall|noise)_cpu_wait_ms":[1-9]' "$scratch/s.json" ||
	fail "no stall waited for a CPU"
grep -Eq '"scheduling_noise_ms":[1-9][0-9]*,' "$scratch/s.json" ||
	fail "the JSON summary does not state the scheduling noise"
# --sim has no scheduler: nothing of the kind.
expect_status 0 "$WMRUN" --sim --summary "$scratch/sim.json" "$scratch/job.conf"
! grep -q 'waiting for a CPU' "$scratch/err" || fail "--sim waited for a CPU"
! grep -q '"cpu_wait_ms"' "$scratch/sim.json" || fail "--sim reports cpu_wait_ms"
! grep -q 'scheduling noise' "$scratch/err" || fail "--sim states a scheduling noise"
! grep -q '"noise_stalls"' "$scratch/sim.json" || fail "--sim reports noise_stalls"
echo ok
