#!/bin/sh
# A real Prometheus server, started here on loopback with a 1 s scrape
# interval and storage of its own, scrapes a running job, and a PromQL
# query through its HTTP API returns the watermark of the source subtask
# that a silent partition holds, by Flink's metric name and labels, as
# the job's own lines say it.
. "$srcdir/tests/lib/lib.sh"

skip_without prometheus curl python3
trap 'stop_prometheus; rm -rf "$scratch"' EXIT

# Partition 3 silent from 2 min of processing time to the end, without
# an idle timeout: it holds the source subtask that reads it for the rest
# of the job, about 35 s of real time at speed 200; the test stops the
# job once it has its answer.
quiet_partition_job 200 "$scratch/out.csv" "2 min" "2 h" "2 h" \
	>"$scratch/job.conf"

# On event time from 0, so that the time of day a line gives is the
# watermark in milliseconds.
$INTERRUPTIBLE "$WMRUN" --live=never --prometheus 0 \
	--set job.event_time_origin=0 "$scratch/job.conf" 2>"$scratch/job.err" &
job=$!
held='^wmrun: .*: events/[01] watermark [0-9:.]+ held for .* by partition events-3 of events/[01] \(silence'
# job_says PATTERN -- the job is running and said a line matching it.
job_says() {
	kill -0 "$job" 2>/dev/null || {
		cat "$scratch/job.err" >&2
		fail "wmrun ended first"
	}
	grep -Eq -- "$1" "$scratch/job.err"
}
await "the endpoint's port" job_says '^wmrun: Prometheus metrics at '
port=$(sed -n 's|^wmrun: Prometheus metrics at http://127\.0\.0\.1:\([0-9]*\)/metrics$|\1|p' \
	"$scratch/job.err")

start_prometheus "$port"

# What the job says: the source subtask held by the silent partition and
# its watermark (HH:MM:SS.mmm of event time, into milliseconds).
await "the job to say what holds its source" job_says "$held"
line=$(grep -E "$held" "$scratch/job.err" | head -n 1)
subtask=$(echo "$line" | sed -E 's/^wmrun: .*: events\/([01]) watermark .*/\1/')
want=$(echo "$line" | sed -E 's/.* watermark ([0-9:.]+) held .*/\1/' |
	awk -F'[:.]' '{ print (($1 * 60 + $2) * 60 + $3) * 1000 + $4 }')

# query_gives WANT -- PromQL through the server's HTTP API returns WANT
# for the held subtask's currentOutputWatermark.
query='flink_taskmanager_job_task_operator_currentOutputWatermark{job_name="one_quiet_partition",task_name="Source:_events",subtask_index="'$subtask'"}'
query_gives() {
	job_says . || return 1
	curl -sf "http://127.0.0.1:$api/api/v1/query" \
		--data-urlencode "query=$query" >"$scratch/answer" || return 1
	got=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["data"]["result"]
print(int(float(r[0]["value"][1])) if len(r) == 1 else "none")
' "$scratch/answer") || return 1
	[ "$got" = "$1" ]
}
await "PromQL to return the held watermark $want of events/$subtask" \
	query_gives "$want"
# The window behind it is held at the same watermark.
query='flink_taskmanager_job_task_operator_currentInputWatermark{operator_name="counts",subtask_index="0"}'
await "PromQL to return the window's input watermark $want" query_gives "$want"
interrupt "$job"
echo ok
