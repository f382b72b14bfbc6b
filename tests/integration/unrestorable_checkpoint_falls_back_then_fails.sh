#!/bin/sh
# A checkpoint whose manifest and checksums are sound but whose snapshot
# this job cannot read (here a window's blob overwritten, its CRC-32C and
# the manifest's fixed up) is not a transient fault: restoring it again
# fails again. The job falls back to the complete checkpoint before it
# and goes on from there; when none before it restores either, it fails
# (65) naming the checkpoint and why. It used to restart from the same
# checkpoint for ever, at Flink's backoff. The same holds for the file
# committer's blob (the exactly-once sink's), found at the resume or at
# the restart after a subtask's: it used to fail the job with 74. Beside
# four busy loops on the two cores.
. "$srcdir/tests/lib/lib.sh"

command -v python3 >/dev/null || { echo "SKIP: no python3 to forge a checkpoint"; exit 77; }
busy_loops 4
trap 'stop_busy_loops; rm -rf "$scratch"' EXIT

ckpt="$scratch/ckpt"
# One event-time origin for every run, whose results are compared across
# runs (each would start on the wall clock, event_time_origin = start).
cat >"$scratch/job.conf" <<CONF
[job]
name = unrestorable
event_time_origin = 0
event_time = 10 min
speed = 500
checkpoint_interval = 20 s
checkpoint_dir = $ckpt
checkpoints_retained = 2
[source events]
parallelism = 2
partitions = 4
rate = 10/s
keys = 5
[window counts]
input = events
parallelism = 2
size = 10 s
[sink out]
input = counts
parallelism = 2
path = $scratch/out.csv
CONF

# forge CHK [BLOB] -- overwrite the first bytes of blob BLOB (window
# subtask 2's, or "committer": the last) in checkpoint CHK (its section's
# tag), and make its checksum and the manifest's match the bytes again.
forge() {
	blob=subtask-2
	[ "${2:-}" != committer ] ||
		blob=$(cd "$ckpt/chk-$1" && ls subtask-* | sort -t- -k2 -n | tail -1)
	printf XXXX | dd of="$ckpt/chk-$1/$blob" bs=1 conv=notrunc 2>/dev/null ||
		fail "could not forge checkpoint $1"
	reseal_checkpoint "$ckpt/chk-$1"
}

# fresh_checkpoints -- the job run to its end afresh, its two retained
# checkpoints in $older and $newer. A run that completed fewer than two
# (CI's sanitizer build, beside the busy loops and the Flink tests, once
# kept only one of its 1.2 s of wall clock) is run again at half the
# speed, at most twice (the runs after it take the same speed): what
# follows needs two to fall back between.
fresh_checkpoints() {
	for speed in 500 250 125; do
		sed "s/^speed = .*/speed = $speed/" "$scratch/job.conf" >"$scratch/job.conf.new" &&
			mv "$scratch/job.conf.new" "$scratch/job.conf"
		rm -rf "$ckpt"
		expect_status 0 "$WMRUN" --live=never "$scratch/job.conf"
		set -- $(cd "$ckpt" && ls -d chk-* | sed 's/^chk-//' | sort -n)
		[ $# -lt 2 ] || break
		echo "speed $speed: $# checkpoint(s) kept, not two: again slower"
	done
	[ $# -eq 2 ] || fail "not two checkpoints kept: $*"
	older=$1 newer=$2
}

fresh_checkpoints
cp "$scratch/out.csv" "$scratch/want.csv"

# The newest cannot be restored: the one before it is, and the job ends.
forge "$newer"
expect_status 0 timeout 120 "$WMRUN" --live=never --resume "$ckpt" "$scratch/job.conf"
expect_line "^wmrun\[counts/0\]: error: could not restore checkpoint $newer: the snapshot is unreadable: " "$scratch/err"
expect_line "^wmrun: notice: subtask \"counts/0\" could not restore checkpoint $newer in \"$ckpt\": the snapshot is unreadable: .*; restarting from checkpoint $older in " "$scratch/err"
[ "$(grep -c 'restarting from' "$scratch/err")" -eq 1 ] || { cat "$scratch/err" >&2; fail "not one restart"; }
expect_line '^wmrun: job "unrestorable" finished after ' "$scratch/err"

# Neither can: the job fails, naming the last one tried.
fresh_checkpoints
forge "$older"
forge "$newer"
expect_status 65 timeout 120 "$WMRUN" --live=never --resume "$ckpt" "$scratch/job.conf"
[ "$(grep -c 'restarting from' "$scratch/err")" -eq 1 ] || { cat "$scratch/err" >&2; fail "not one restart"; }
expect_line "^wmrun: subtask \"counts/0\" could not restore checkpoint $older in \"$ckpt\": the snapshot is unreadable: .*; no complete checkpoint before it to fall back to\$" "$scratch/err"
expect_line '^wmrun: job "unrestorable" failed after ' "$scratch/err"

# The newest's committer blob cannot be restored: the resume falls back
# to the one before it before any worker runs, and the file ends with the
# fault-free run's results (when each fired, in processing time and by
# which watermark, and so in which part and order it was written, are the
# real run's to vary).
fresh_checkpoints
forge "$newer" committer
expect_status 0 timeout 120 "$WMRUN" --live=never --resume "$ckpt" "$scratch/job.conf"
expect_line "^wmrun: notice: the file committer could not restore checkpoint $newer in \"$ckpt\": the file committer's blob is unreadable: .*; restoring checkpoint $older instead\$" "$scratch/err"
[ "$(grep -c 'restarting from' "$scratch/err")" -eq 0 ] || { cat "$scratch/err" >&2; fail "a restart"; }
window_results "$scratch/out.csv" >"$scratch/got.results"
window_results "$scratch/want.csv" >"$scratch/want.results"
cmp -s "$scratch/got.results" "$scratch/want.results" ||
	fail "the results differ from the fault-free run's after the fall back"

# The newest's window blob and the older one's committer blob: the
# restart after the window's failure falls back to the older one, whose
# committer blob fails it (65), naming it.
fresh_checkpoints
forge "$newer"
forge "$older" committer
expect_status 65 timeout 120 "$WMRUN" --live=never --resume "$ckpt" "$scratch/job.conf"
[ "$(grep -c 'restarting from' "$scratch/err")" -eq 0 ] || { cat "$scratch/err" >&2; fail "a restart"; }
expect_line "^wmrun: the file committer could not restore checkpoint $older in \"$ckpt\": the file committer's blob is unreadable: .*; no complete checkpoint before it to fall back to\$" "$scratch/err"
expect_line '^wmrun: job "unrestorable" failed after ' "$scratch/err"
echo ok
