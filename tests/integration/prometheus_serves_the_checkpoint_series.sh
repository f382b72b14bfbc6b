#!/bin/sh
# A job that takes checkpoints has its JobManager's checkpoint series on
# --prometheus, under Flink's names and job labels: totalNumberOfCheckpoints
# (completed + failed + in progress), numberOfCompletedCheckpoints, ...,
# lastCheckpointDuration and lastCheckpointSize of the last one completed.
# While it runs they count what the summary counts at the end (never
# more), the size is the last checkpoint's bytes, and promtool accepts the
# exposition. A job without checkpoints has none of them, as Flink's.
. "$srcdir/tests/lib/lib.sh"

command -v curl >/dev/null || {
	echo "skipped: curl is not installed"
	exit 77
}

# A checkpoint every 10 min of processing time: every 0.4 s at speed 1500.
quiet_partition_job 1500 "$scratch/out.csv" |
	sed "s|^\[job\]$|&\ncheckpoint_interval = 10 min\ncheckpoint_dir = $scratch/chk|" \
		>"$scratch/job.conf"
grep -q '^checkpoint_interval = 10 min$' "$scratch/job.conf" || fail "no checkpoints in the job"

port() {
	sed -n 's|^wmrun: Prometheus metrics at http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' \
		"$scratch/job.err"
}
series() {
	sed -n "s/^flink_jobmanager_job_$1{host=\"[^\"]*\",job_id=\"[0-9a-f]\{32\}\",job_name=\"one_quiet_partition\"} \(-\{0,1\}[0-9]*\)$/\1/p" \
		"$scratch/metrics"
}
# two_completed PID -- the job PID serves 2 or more completed checkpoints.
two_completed() {
	kill -0 "$1" 2>/dev/null || {
		cat "$scratch/job.err" >&2
		fail "wmrun ended before two checkpoints were scraped"
	}
	p=$(port)
	[ -n "$p" ] && curl -sf "http://127.0.0.1:$p/metrics" >"$scratch/metrics" &&
		[ "$(series numberOfCompletedCheckpoints)" -ge 2 ] 2>/dev/null
}

$INTERRUPTIBLE "$WMRUN" --quiet --prometheus 0 --summary "$scratch/s.json" \
	"$scratch/job.conf" 2>"$scratch/job.err" &
job=$!
await "two completed checkpoints" two_completed "$job"
completed=$(series numberOfCompletedCheckpoints)
failed=$(series numberOfFailedCheckpoints)
pending=$(series numberOfInProgressCheckpoints)
total=$(series totalNumberOfCheckpoints)
duration=$(series lastCheckpointDuration)
size=$(series lastCheckpointSize)
echo "scraped: total $total, completed $completed, failed $failed, in progress $pending, last $duration ms, $size bytes"
[ -n "$failed" ] && [ -n "$pending" ] && [ -n "$total" ] && [ -n "$duration" ] && [ -n "$size" ] ||
	{ cat "$scratch/metrics" >&2; fail "a checkpoint series is missing, or without the job's labels"; }
[ "$total" -eq $((completed + failed + pending)) ] || fail "total is not completed + failed + in progress"
[ "$pending" -le 1 ] || fail "$pending checkpoints in progress: one at a time"
[ "$duration" -ge 0 ] && [ "$size" -gt 0 ] || fail "no duration or size of the last checkpoint"
if command -v promtool >/dev/null; then
	promtool check metrics <"$scratch/metrics" >"$scratch/lint" 2>&1
	! grep -v "should be written in 'snake_case' not 'camelCase'" "$scratch/lint" ||
		fail "promtool found more than camelCase names"
fi
wait "$job" || fail "the job failed"
# The summary's count at the end is at least what was served, and its
# last checkpoint's bytes are those of one served or a later one.
end=$(sed -n 's/.*"checkpoints":{"completed":\([0-9]*\),.*/\1/p' "$scratch/s.json")
[ -n "$end" ] && [ "$end" -ge "$completed" ] || fail "the summary counts $end completed, fewer than $completed served"

# Without checkpoints: no checkpoint series at all.
quiet_partition_job 1500 "$scratch/out2.csv" >"$scratch/plain.conf"
$INTERRUPTIBLE "$WMRUN" --quiet --prometheus 0 "$scratch/plain.conf" \
	2>"$scratch/job.err" &
job=$!
served() {
	kill -0 "$1" 2>/dev/null || fail "wmrun ended before it was scraped"
	p=$(port)
	[ -n "$p" ] && curl -sf "http://127.0.0.1:$p/metrics" >"$scratch/metrics" &&
		grep -q '^flink_jobmanager_job_numRestarts{' "$scratch/metrics"
}
await "the job's metrics" served "$job"
! grep -q 'Checkpoint' "$scratch/metrics" || fail "checkpoint series for a job without checkpoints"
kill -INT "$job"
wait "$job"
exit 0
