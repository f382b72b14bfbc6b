#!/bin/sh
# wmrun --prometheus serves a running job's metrics in the text exposition
# format, with Flink's reporter's names and labels, and promtool (the
# Prometheus project's checker) accepts them. A port that cannot be had
# fails the job before any worker starts (exit 71, naming the address); a
# join's operator has a watermark per input (currentInput1Watermark,
# currentInput2Watermark); a
# bad ADDR:PORT is a usage error (64), and so is --prometheus with --sim.
. "$srcdir/tests/lib/lib.sh"

command -v promtool >/dev/null || {
	echo "skipped: promtool (Debian package prometheus) is not installed"
	exit 77
}
command -v curl >/dev/null || {
	echo "skipped: curl is not installed"
	exit 77
}

# metrics_port -- the port the job says it serves on ($scratch/job.err).
metrics_port() {
	sed -n 's|^wmrun: Prometheus metrics at http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' \
		"$scratch/job.err"
}
# serves PID FILE PATTERN... -- the job PID serves lines matching every
# PATTERN (its metrics written to FILE): every worker the test reads has
# published (on a loaded machine one may not have yet); fails the test
# if the job ended first.
serves() {
	kill -0 "$1" 2>/dev/null || {
		cat "$scratch/job.err" >&2
		fail "wmrun ended before its metrics were scraped"
	}
	file=$2
	shift 2
	port=$(metrics_port)
	[ -n "$port" ] &&
		curl -sf "http://127.0.0.1:$port/metrics" >"$file" || return 1
	for pattern; do
		grep -q "$pattern" "$file" || return 1
	done
}
# scraped PID -- a watermark of the window's subtask 0 and of partition 3
# served, into $scratch/metrics.
scraped() {
	serves "$1" "$scratch/metrics" \
		'^flink_taskmanager_job_task_operator_currentOutputWatermark{.*task_name="counts____Map____out:_Writer",subtask_index="0"' \
		'^flink_taskmanager_job_task_operator_split_watermark_currentWatermark{.*split="events_3"}'
}

quiet_partition_job 200 "$scratch/out.csv" >"$scratch/job.conf"
$INTERRUPTIBLE "$WMRUN" --quiet --prometheus 0 "$scratch/job.conf" \
	2>"$scratch/job.err" &
job=$!
await "the job's metrics" scraped "$job"

# promtool: no error; its only lint is Flink's camelCase names, which
# Flink's dashboards depend on.
promtool check metrics <"$scratch/metrics" >"$scratch/lint" 2>&1
got=$?
[ "$got" -eq 0 ] || [ "$got" -eq 3 ] || {
	cat "$scratch/lint" >&2
	fail "promtool check metrics exited $got"
}
! grep -v "should be written in 'snake_case' not 'camelCase'" "$scratch/lint" ||
	fail "promtool found more than camelCase names"
# Every label of Flink's operator scope, and a split of FLIP-513.
for label in host tm_id job_id job_name task_id task_attempt_id task_name \
	subtask_index task_attempt_num operator_id operator_name; do
	expect_line "^flink_taskmanager_job_task_operator_numRecordsIn\{(.*,)?$label=\"[^\"]+\"" \
		"$scratch/metrics"
done
expect_line '^flink_taskmanager_job_task_operator_split_watermark_currentWatermark\{.*split="events_3"\} -?[0-9]+$' \
	"$scratch/metrics"
expect_line '^flink_taskmanager_job_task_busyTimeMsPerSecond\{.*task_name="counts____Map____out:_Writer",subtask_index="0",task_attempt_num="0"\} ' \
	"$scratch/metrics"
expect_line '^wmrun_taskmanager_job_task_operator_inputChannel_watermark\{.*,channel="[01]",upstream_task_name="Source:_events",upstream_subtask_index="[01]"\} ' \
	"$scratch/metrics"

# The port is taken: a second job fails before it runs, naming it.
port=$(metrics_port)
expect_status 71 "$WMRUN" --quiet --prometheus "127.0.0.1:$port" \
	"$scratch/job.conf"
expect_line "^wmrun: could not listen on 127\.0\.0\.1:$port: Address already in use$" \
	"$scratch/err"
! grep -q 'window' "$scratch/err" || fail "a job that never ran has a summary"
interrupt "$job"

# A join's operator has Flink's watermark per input: currentInput1Watermark
# (its left input) and currentInput2Watermark (its right), beside
# currentInputWatermark, their minimum.
quiet_join_job 100 >"$scratch/join.conf"
join_scraped() {
	serves "$1" "$scratch/join.metrics" \
		'^flink_taskmanager_job_task_operator_currentInput2Watermark{.*operator_name="pairs".*} [0-9]'
}
$INTERRUPTIBLE "$WMRUN" --quiet --prometheus 0 "$scratch/join.conf" \
	2>"$scratch/job.err" &
job=$!
await "the join's metrics" join_scraped "$job"
for input in 1 2; do
	expect_line "^flink_taskmanager_job_task_operator_currentInput${input}Watermark\{.*operator_name=\"pairs\".*\} -?[0-9]+$" \
		"$scratch/join.metrics"
done
promtool check metrics <"$scratch/join.metrics" >"$scratch/lint" 2>&1
got=$?
[ "$got" -eq 0 ] || [ "$got" -eq 3 ] || {
	cat "$scratch/lint" >&2
	fail "promtool check metrics of the join exited $got"
}
interrupt "$job"

expect_status 64 "$WMRUN" --prometheus 1.2.3:80 "$scratch/job.conf"
expect_line 'invalid --prometheus address "1\.2\.3"' "$scratch/err"
expect_status 64 "$WMRUN" --prometheus 65536 "$scratch/job.conf"
expect_line 'invalid --prometheus "65536": the port must be' "$scratch/err"
expect_status 64 "$WMRUN" --sim --prometheus 0 "$scratch/job.conf"
expect_line 'prometheus serves a real run' "$scratch/err"
echo ok
