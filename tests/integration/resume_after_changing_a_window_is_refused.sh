#!/bin/sh
# A job resumed after a change its snapshots cannot follow (here its window
# size, 10 s to 20 s) is refused before anything runs: its fingerprint
# covers what a snapshot's layout depends on, so the checkpoint is
# another job's (65), and nothing is restarted or written. It used to pass
# the check and then fail every restore, restarting for ever. A change
# that leaves the layout alone (the run's length, its speed, the sink's
# path) still resumes.
. "$srcdir/tests/lib/lib.sh"

ckpt="$scratch/ckpt"
# conf SIZE LENGTH SPEED -- the job with windows of SIZE, running LENGTH
# of event time at SPEED.
conf() {
	cat <<CONF
[job]
name = resumed
event_time = $2
speed = $3
checkpoint_interval = 20 s
checkpoint_dir = $ckpt
[source events]
parallelism = 2
partitions = 4
rate = 10/s
keys = 5
[window counts]
input = events
size = $1
[sink out]
input = counts
path = $scratch/out.csv
CONF
}

conf "10 s" "5 min" 500 >"$scratch/job.conf"
expect_status 0 "$WMRUN" --live=never "$scratch/job.conf"
cp "$scratch/out.csv" "$scratch/first.csv"

conf "20 s" "10 min" 500 >"$scratch/changed.conf"
expect_status 65 timeout 60 "$WMRUN" --live=never --resume "$ckpt" "$scratch/changed.conf"
expect_line "^wmrun: checkpoint \"$ckpt/chk-[0-9]+\" was written by another job: its fingerprint is [0-9a-f]{16}, this job's [0-9a-f]{16} \(its stages, windows or sources differ from this job's\)\$" "$scratch/err"
! grep -q 'restarting' "$scratch/err" || fail "the refused job restarted"
! grep -q '^wmrun: job ' "$scratch/err" || fail "the refused job ran"
cmp -s "$scratch/out.csv" "$scratch/first.csv" || fail "the refused job touched the output"

conf "10 s" "10 min" 1000 >"$scratch/longer.conf"
expect_status 0 timeout 60 "$WMRUN" --live=never --resume "$ckpt" "$scratch/longer.conf"
expect_line '^wmrun: job "resumed" finished after ' "$scratch/err"
echo ok
