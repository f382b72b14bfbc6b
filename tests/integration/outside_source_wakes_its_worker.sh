#!/bin/sh
# A source fed from outside (a thread of the worker's process hands it
# records, as librdkafka's do for a Kafka consumer) in a real job:
# - its worker sleeps while nothing came, wakes as soon as a record is
#   handed over (the wake rings its doorbell), and reads a partition that
#   appeared while it ran, whose records reach the window;
# - outages it rode out are in the summary, the job ends well;
# - a source that cannot go on stops the job with its exit code (69) and
#   its why in the supervisor's message and the summary.
# The driver is tests/tools/outside_source.c.
. "$srcdir/tests/lib/lib.sh"

: "${OUTSIDE_SOURCE:=./tests/tools/outside_source}"

# No periodic tick wakes the source: the watermark interval is an hour,
# so only the wake can end its sleep within the run.
cat >"$scratch/job.conf" <<CONF
[job]
name = outside
processing_time = 60 s
[source s]
partitions = 2
rate = unlimited
watermark_interval = 1 h
[window w]
input = s
size = 1 s
[sink out]
input = w
path = $scratch/out.csv
CONF

expect_status 0 timeout 120 "$OUTSIDE_SOURCE" wake "$scratch/job.conf"
line=$(grep '^wake: ' "$scratch/err") || { cat "$scratch/err" >&2; fail "no wake line"; }
latency_us=$(echo "$line" | sed 's/.*max latency \([0-9]*\) us.*/\1/')
cpu_ms=$(echo "$line" | sed 's/.*worker cpu \([0-9]*\) ms.*/\1/')
elapsed_ms=$(echo "$line" | sed 's/.* of \([0-9]*\) ms$/\1/')
# Woken, not polled: a record is read well within a second of being
# handed over (a loaded machine may take tens of ms), where a worker that
# missed the wake would sleep until the run's end, 60 s.
[ "$latency_us" -lt 1000000 ] || fail "a record waited $latency_us us to be read: $line"
# Asleep between records: a worker that spun would use its core for the
# whole run (~2 s); sleeping it uses a few ms.
[ $((cpu_ms * 4)) -lt "$elapsed_ms" ] || fail "the worker burnt $cpu_ms ms of CPU in $elapsed_ms ms: $line"
expect_line '^  records read +30$' "$scratch/err"
expect_line '^  every record accounted  yes$' "$scratch/err"
# The partition that appeared while it ran is in the summary.
expect_line '^  partitions +2, ' "$scratch/err"

expect_status 0 timeout 120 "$OUTSIDE_SOURCE" rideout "$scratch/job.conf"
expect_line '^  source s subtask 0: brokers unreachable twice, 12.3 s in all; resumed$' "$scratch/err"
expect_line '^  records read +10$' "$scratch/err"

expect_status 69 timeout 120 "$OUTSIDE_SOURCE" fail "$scratch/job.conf"
expect_line 'worker "s/0" \(pid [0-9]+\) exited with status 69: its source cannot go on: no broker of localhost:9 answered for 30 s \(kafka.broker_timeout\)$' "$scratch/err"
expect_line '^  source s subtask 0: brokers unreachable once, 30.0 s in all; stopped: no broker of localhost:9' "$scratch/err"
echo ok
