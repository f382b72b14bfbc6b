#!/bin/sh
# A watermark that stalls because its process could not run (runnable, but
# no CPU for it) says so in the summary: "..., 3.7 s of it waiting for a
# CPU" beside the longest stall, and cpu_wait_ms and
# longest_stall_cpu_wait_ms in the JSON, from the kernel's count of each
# worker's run delay. A stall of a starved job used to look like one of
# its data. The job runs at nice 19 on CPU 0, for three seconds of it
# beside two busy loops at the highest priority the test may give them.
. "$srcdir/tests/integration/lib.sh"

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
# The source, or the window it holds back (whichever stage's worst
# subtask had the longest stall while starved).
expect_line '^    (source  s|window  w) .* watermark stalled .*, [0-9.]+ (ms|s) of it waiting for a CPU; [0-9]+ stalls?\)$' "$scratch/err"
grep -q '"cpu_wait_ms":[1-9]' "$scratch/s.json" || fail "no worker waited for a CPU"
grep -q '"longest_stall_cpu_wait_ms":[1-9]' "$scratch/s.json" ||
	fail "no stall waited for a CPU"
# --sim has no scheduler: nothing of the kind.
expect_status 0 "$WMRUN" --sim --summary "$scratch/sim.json" "$scratch/job.conf"
! grep -q 'waiting for a CPU' "$scratch/err" || fail "--sim waited for a CPU"
! grep -q '"cpu_wait_ms"' "$scratch/sim.json" || fail "--sim reports cpu_wait_ms"
echo ok
