#!/bin/sh
# An observer that cannot finish (its terminal stopped with Ctrl-S, a
# metrics file on a hung disk: here, stopped with SIGSTOP) holds the end
# of the job a few seconds at most: it is killed, the summary comes, and
# the exit status says whether anything asked for is missing (the view
# alone: 0; a metrics file cut short: 74), and the notice names the
# observer by its pid. Ctrl-C reaches the job whatever the observer does:
# with it stopped, the job stops (130), it does not run to its end. Beside
# four busy loops on the two cores.
. "$srcdir/tests/lib/lib.sh"
busy_loops 4
trap 'stop_busy_loops; rm -rf "$scratch"' EXIT

quiet_partition_job 4000 "$scratch/out.csv" >"$scratch/job.conf"

# stop_observer PID -- SIGSTOP the job PID's observer once it runs.
observer_of() { pgrep -P "$1" -x observer; }
observer_up() { observer_of "$1" >/dev/null; }
stop_observer() {
	await "the observer starting" observer_up "$1"
	kill -STOP "$(observer_of "$1")"
}

for metrics in no yes; do
	if [ $metrics = yes ]; then
		set -- --metrics "$scratch/m.jsonl"
		want=74
	else
		set --
		want=0
	fi
	"$WMRUN" --live=never "$@" "$scratch/job.conf" >"$scratch/out" \
		2>"$scratch/err" &
	sup=$!
	stop_observer $sup
	obs=$(observer_of $sup)
	wait $sup
	got=$?
	[ $got -eq $want ] || {
		cat "$scratch/err" >&2
		fail "exit status $got with a stopped observer (metrics: $metrics), expected $want"
	}
	expect_line "the live view \(observer pid $obs\) did not end within 5 s of the job; stopped" "$scratch/err"
	expect_line '^wmrun: job "one-quiet-partition" finished after ' "$scratch/err"
	expect_line 'every record accounted  yes' "$scratch/err"
	! pgrep -x observer -P $sup >/dev/null || fail "the observer outlived the job"
done

# Ctrl-C with the observer stopped: the job (of 29 s at speed 500) stops,
# and says so.
quiet_partition_job 500 "$scratch/out.csv" >"$scratch/slow.conf"
$INTERRUPTIBLE "$WMRUN" --live=never --metrics "$scratch/m.jsonl" \
	"$scratch/slow.conf" >"$scratch/out" 2>"$scratch/err" &
sup=$!
stop_observer $sup
obs=$(observer_of $sup)
await "a window firing" running_with_results "$sup" "$scratch/out.csv"
interrupt $sup
expect_line "the live view \(observer pid $obs\) did not end within 5 s of the job; stopped" "$scratch/err"
expect_line '^wmrun: job "one-quiet-partition" stopped after ' "$scratch/err"
! pgrep -x observer -P $sup >/dev/null || fail "the observer outlived the job"
echo ok
