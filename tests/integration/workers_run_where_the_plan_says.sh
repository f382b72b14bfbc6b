#!/bin/sh
# Every worker runs on the CPU that the supervisor's plan gave it (what
# `wmrun --check` prints), pinned from that plan rather than by reading the
# machine again in each child; and the way workers wait follows the CPUs
# the job may use (taskset, cgroups), not the CPUs the machine has: under
# a one-CPU mask a two-subtask job yields instead of spinning.
. "$srcdir/tests/lib/lib.sh"

cat >"$scratch/job.conf" <<CONF
[job]
processing_time = 1 h
speed = 1
[source s]
parallelism = 1
partitions = 2
rate = 10/s
[window w]
input = s
parallelism = 1
size = 1 s
[sink o]
input = w
parallelism = 1
path = $scratch/results.csv
CONF

ncpu=$(nproc)
expect_status 0 taskset -c 0 "$WMRUN" --check "$scratch/job.conf"
expect_line '^waiting: yield the CPU, then sleep \(2 subtasks on 1 allowed CPU\)$' "$scratch/out"
if [ "$ncpu" -ge 2 ]; then
	expect_status 0 taskset -c 0,1 "$WMRUN" --check "$scratch/job.conf"
	expect_line '^waiting: spin briefly, then sleep \(2 subtasks on 2 allowed CPUs\)$' "$scratch/out"
fi

# pinned PID CPU -- process PID may run on CPU alone.
pinned() {
	[ "$(awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$1/status")" = "$2" ]
}

# Each worker's CPU, as planned.
expect_status 0 "$WMRUN" --check "$scratch/job.conf"
"$WMRUN" "$scratch/job.conf" >/dev/null 2>"$scratch/err" &
sup=$!
trap 'kill "$sup" 2>/dev/null; rm -rf "$scratch"' EXIT
for task in s/0 w/0; do
	cpu=$(awk -v t="$task" '$1 == t { print $2; exit }' "$scratch/out")
	[ -n "$cpu" ] || fail "no CPU planned for $task"
	await "worker $task" pgrep -P "$sup" -x "$task" >/dev/null
	pid=$(pgrep -P "$sup" -x "$task")
	# Pinning follows the fork: wait until it happened.
	await "$task on CPU $cpu" pinned "$pid" "$cpu"
done
kill "$sup"
wait "$sup"
echo ok
