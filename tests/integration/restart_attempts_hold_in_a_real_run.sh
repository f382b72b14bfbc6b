#!/bin/sh
# A real run follows its restart strategy on the job's clock, as --sim
# does: processing time, the clock its backoffs are durations of. With its
# checkpoint directory (and so its exactly-once parts) on a full disk,
# every attempt fails at its first part; with restart_attempts = 2 the
# default strategy (exponential-delay) restarts twice, each backoff longer
# than the last, and the third failure fails the job (74, the disk's).
# The strategy used to read CLOCK_MONOTONIC: at speed 500 every failure
# within a second of real time of a restart was merged into it, counted
# no attempt, and the job restarted for ever with shrinking delays. Beside
# four busy loops on the two cores. A real full disk: a small tmpfs, which
# only root may mount.
. "$srcdir/tests/lib/lib.sh"

small="$scratch/small"
mkdir "$small"
trap 'stop_busy_loops; umount "$small" 2>/dev/null; rm -rf "$scratch"' EXIT
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: mounting the small tmpfs this test fills needs root"
	exit 77
fi
if ! mount -t tmpfs -o size=256k,mode=0700 wmtest "$small"; then
	echo "SKIP: could not mount a 256 KiB tmpfs on $small"
	exit 77
fi
head -c 1M /dev/zero >"$small/filler" 2>/dev/null
busy_loops 4

cat >"$scratch/job.conf" <<CONF
[job]
name = full-disk
event_time = 1 h
speed = 500
checkpoint_interval = 20 s
checkpoint_dir = $small/ckpt
restart_attempts = 2
[source events]
parallelism = 2
partitions = 4
rate = 10/s
[window counts]
input = events
parallelism = 2
size = 10 s
[sink out]
input = counts
parallelism = 2
path = $scratch/out.csv
CONF

expect_status 74 timeout 120 "$WMRUN" --live=never "$scratch/job.conf"
[ "$(grep -c 'restarting from' "$scratch/err")" -eq 2 ] || {
	cat "$scratch/err" >&2
	fail "not two restarts before the job failed"
}
expect_line 'No space left on device$' "$scratch/err"
expect_line '^wmrun: worker "counts/[01]" \(pid [0-9]+\) exited with status 74; restart_strategy = exponential-delay gave up after 2 restarts, caused by: \(1\) worker ' "$scratch/err"
# Flink's backoffs: 1 s, then 1.5 s, each with a jitter of 10 %.
expect_line 'in (9[0-9][0-9] ms|1\.[01] s), no checkpoint is complete yet \(restart 1,' "$scratch/err"
expect_line 'in 1\.[3-6] s, no checkpoint is complete yet \(restart 2,' "$scratch/err"
echo ok
