#!/bin/sh
# Checkpoint faults around a running job:
# (c) the supervisor SIGKILLed mid-run takes every worker with it
#     (PR_SET_PDEATHSIG) and leaves no segment behind, and wmrun --resume
#     finishes the job from its latest complete checkpoint;
# (a) the same, with the newest complete checkpoint's blob corrupted: the
#     resume warns naming the file and goes on from the one before
#     (checkpoints_retained = 2);
# (b) a disk that fills while the job checkpoints: the job goes on and
#     finishes with its results, the summary counts the failed
#     checkpoints, a warning names the file and "No space left on device",
#     and no partial checkpoint directory stays (root only: a small tmpfs);
# (d) a checkpoint that times out behind a stopped worker: given up,
#     reported, and the job finishes with its results.
. "$srcdir/tests/lib/lib.sh"

small="$scratch/small"
mkdir "$small"
trap 'umount "$small" 2>/dev/null; rm -rf "$scratch"' EXIT

# job NAME CHECKPOINTS [INTERVAL]: lib.sh's checkpoint_job, 10 min of
# processing time (3 s of real time).
job() {
	checkpoint_job "$@"
}

# results CSV -- the results without fire_time and watermark (columns 6
# and 7: when the window fired, which timing decides), sorted, their
# windows counted from the earliest: each run's event time starts on the
# wall clock (event_time_origin), and a resumed run's where its
# checkpoints' did, so that what it writes after the restore lines up
# with what the run it resumes wrote before.
results() {
	awk -F, -v OFS=, 'NR == FNR { if (FNR > 1 && (m == "" || $2 < m)) m = $2; next }
		FNR > 1 { print $1, $2 - m, $3 - m, $4, $5, $8 }' "$1" "$1" | sort
}

# complete DIR -- the complete checkpoints in DIR (those with a manifest),
# by id, one a line.
complete() {
	for m in "$1"/chk-*/_metadata; do
		[ -e "$m" ] && basename "$(dirname "$m")"
	done | sed 's/^chk-//' | sort -n
}

# two_complete DIR -- DIR holds two complete checkpoints or more.
two_complete() {
	[ "$(complete "$1" | wc -l)" -ge 2 ]
}

# trigger_ms DIR ID -- checkpoint ID's trigger time (processing time, ms),
# from its manifest.
trigger_ms() {
	sed -n 's/^trigger_time_ms //p' "$1/chk-$2/_metadata"
}

# dead PIDS -- every one of PIDS has ended: gone, or a zombie that runs no
# more code (reparented to init, which reaps it or not).
dead() {
	for p in "$@"; do
		st=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -c1)
		[ -z "$st" ] || [ "$st" = Z ] || return 1
	done
}

# unmapped INODE -- no process maps the memfd segment INODE any more.
unmapped() {
	! grep -qs " $1 *\/memfd:wmrun" /proc/[0-9]*/maps
}

# kill_supervisor NAME -- run NAME's job, SIGKILL its supervisor once two
# checkpoints are complete and results were written, and check that no
# worker and no segment outlives it.
kill_supervisor() {
	ls /dev/shm | grep -i wm >"$scratch/shm.before"
	"$WMRUN" "$scratch/$1.conf" >"$scratch/out" 2>"$scratch/err" &
	sup=$!
	start_watchdog "$sup" 120
	await "two complete checkpoints" two_complete "$scratch/$1.chk"
	await "a result" running_with_results "$sup" "$scratch/$1.csv"
	workers=$(pgrep -P "$sup")
	[ "$(echo "$workers" | wc -w)" -ge 4 ] || fail "workers: $workers"
	for w in $workers; do
		inode=$(awk '/\/memfd:wmrun/ { print $5; exit }' "/proc/$w/maps")
		[ -n "$inode" ] && break
	done
	[ -n "$inode" ] || fail "no worker maps the memfd segment"
	kill -9 "$sup"
	wait "$sup"
	kill "$watchdog"
	# PR_SET_PDEATHSIG: every worker (and the observer) dies with it.
	await "the workers to die with their supervisor" dead $workers
	await "the segment to go" unmapped "$inode"
	ls /dev/shm | grep -i wm | cmp -s - "$scratch/shm.before" ||
		fail "the job left something in /dev/shm: $(ls /dev/shm)"
}

# The fault-free results.
job clean "$scratch/clean.chk"
expect_status 0 timeout 60 "$WMRUN" "$scratch/clean.conf"
expect_line '^  every record accounted  yes$' "$scratch/err"
results "$scratch/clean.csv" >"$scratch/clean.results"
[ "$(wc -l <"$scratch/clean.results")" -eq 300 ] || fail "not 300 results"

# (c) The supervisor killed; --resume finishes the job.
#
# The file sink is exactly-once and a resumed run keeps what the first
# one committed (wm_sink_open_kept(), then the recovery to the restored
# checkpoint): the file must hold every fault-free result. Set this to
# false to check only the results fired from the restore on (a
# contiguous run of windows to the end), as a sink that started afresh
# would hold.
resume_keeps_earlier_results=true
job resumed "$scratch/resumed.chk"
kill_supervisor resumed
expect_status 0 timeout 60 "$WMRUN" --resume "$scratch/resumed.chk" "$scratch/resumed.conf"
expect_line '^  every record accounted  yes$' "$scratch/err"
expect_line '^  records read            24000$' "$scratch/err"
results "$scratch/resumed.csv" | sort -u >"$scratch/resumed.results"
if $resume_keeps_earlier_results; then
	cmp "$scratch/resumed.results" "$scratch/clean.results" ||
		fail "the resumed job's results differ from the fault-free run's"
else
	# Every result the resumed run wrote is a fault-free one, and from
	# its first window on none is missing.
	comm -13 "$scratch/clean.results" "$scratch/resumed.results" |
		grep . && fail "results no fault-free run gives"
	first=$(cut -d, -f2 "$scratch/resumed.results" | sort -n | head -n 1)
	[ -n "$first" ] || fail "the resumed run wrote no result"
	awk -F, -v first="$first" '$2 >= first' "$scratch/clean.results" |
		cmp -s - "$scratch/resumed.results" ||
		fail "results from window $first on are missing after the resume"
fi

# (a) The newest complete checkpoint corrupt: the resume skips it.
job corrupt "$scratch/corrupt.chk"
kill_supervisor corrupt
newest=$(complete "$scratch/corrupt.chk" | tail -n 1)
previous=$(complete "$scratch/corrupt.chk" | tail -n 2 | head -n 1)
[ "$previous" -lt "$newest" ] || fail "no checkpoint before chk-$newest"
from=$(trigger_ms "$scratch/corrupt.chk" "$previous")
to=$(trigger_ms "$scratch/corrupt.chk" "$newest")
blob="$scratch/corrupt.chk/chk-$newest/subtask-1"
# Flip the bits of four bytes in the middle of the blob.
size=$(wc -c <"$blob")
at=$((size / 2))
for b in $(od -An -tu1 -j "$at" -N 4 "$blob"); do
	printf "\\$(printf %03o $((255 - b)))"
done | dd of="$blob" bs=1 seek="$at" conv=notrunc 2>/dev/null
expect_status 0 timeout 60 "$WMRUN" --resume "$scratch/corrupt.chk" "$scratch/corrupt.conf"
expect_line "^wmrun: warning: skipping checkpoint \".*/chk-$newest\": \".*/chk-$newest/subtask-1\" has checksum [0-9a-f]+, the manifest says [0-9a-f]+\$" "$scratch/err"
expect_line '^  every record accounted  yes$' "$scratch/err"
expect_line '^  records read            24000$' "$scratch/err"
# Restored from the previous checkpoint, not the newest: the windows that
# ended between the two fired before the newest was taken, and fire again
# only in a job restored from the previous one. (2 s of margin: a window
# fires at the first watermark tick past its end, 200 ms later.)
results "$scratch/corrupt.csv" | sort -u >"$scratch/corrupt.results"
awk -F, -v from="$from" -v to="$to" '$3 > from && $3 <= to - 2000 { n++ }
	END { exit n == 0 }' "$scratch/corrupt.results" ||
	fail "no window ending between chk-$previous ($from ms) and chk-$newest ($to ms) fired again: not restored from chk-$previous"
comm -13 "$scratch/clean.results" "$scratch/corrupt.results" | grep . &&
	fail "results no fault-free run gives"

# (d) A checkpoint that times out: a window worker stopped (SIGSTOP) for
# 2 s of real time, 400 s of processing time at speed 200, while the
# checkpoint_timeout is 100 s. The checkpoint it holds up is given up and
# reported, the others complete, and the job finishes with the fault-free
# results (the stopped worker only delays them).
job slow "$scratch/slow.chk"
sed -i "s|^checkpoint_interval = .*|&\ncheckpoint_timeout = 100 s|" "$scratch/slow.conf"
"$WMRUN" "$scratch/slow.conf" >"$scratch/out" 2>"$scratch/err" &
sup=$!
await "two complete checkpoints" two_complete "$scratch/slow.chk"
victim=
for w in $(pgrep -P "$sup"); do
	[ "$(cat "/proc/$w/comm" 2>/dev/null)" = counts/0 ] && victim=$w
done
[ -n "$victim" ] || fail "no worker counts/0 under $sup"
kill -STOP "$victim"
sleep 2
kill -CONT "$victim"
wait "$sup" || fail "the job with a stopped worker exited $?"
expect_line '^wmrun: warning: checkpoint [0-9]+ timed out: [0-9]+ of 4 subtasks acknowledged it$' "$scratch/err"
expect_line '^    given up              [1-9][0-9]* timed out, 0 failed \(the job went on\)$' "$scratch/err"
expect_line '^  every record accounted  yes$' "$scratch/err"
results "$scratch/slow.csv" | cmp -s - "$scratch/clean.results" ||
	fail "the results of the job with a timed-out checkpoint differ from the fault-free run's"

# (b) A full disk under the checkpoints.
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP (b): mounting the small tmpfs this part fills needs root"
	exit 0
fi
mount -t tmpfs -o size=64k,mode=0700 wmtest "$small" ||
	fail "could not mount a 64 KiB tmpfs on $small"
# Room for two checkpoints of five pages (four blobs and the manifest,
# each under 4 KiB), then full: the third and every later one fails.
free=$(df -B 1 --output=avail "$small" | tail -n 1)
head -c $((free - 12 * 4096)) /dev/zero >"$small/filler" ||
	fail "could not fill $small"
# A checkpoint every 5 s: about 120 fail, each a chance for a subtask
# still writing its blob when the checkpoint was given up to leave it
# behind.
# The results on standard output: a file sink's parts live in the
# checkpoint directory (exactly-once, doc/architecture.md section 9.5), and
# a full disk there fails the writes of the job's results, not only its
# checkpoints; the job then restarts (and would for ever, as Flink's
# default strategy does).
job full "$small/chk" "5 s"
sed -i "s|^path = .*|path = -|" "$scratch/full.conf"
expect_status 0 timeout 60 "$WMRUN" "$scratch/full.conf"
cp "$scratch/out" "$scratch/full.csv"
expect_line '^  every record accounted  yes$' "$scratch/err"
expect_line '^  checkpoints             2 completed, the last chk-2 ' "$scratch/err"
expect_line '^    given up              0 timed out, [1-9][0-9]* failed \(the job went on\)$' "$scratch/err"
expect_line "^wmrun\\[counts/[01]\\]: warning: checkpoint [0-9]+: could not write checkpoint file \"$small/chk/chk-[0-9]+/subtask-[0-9]\": No space left on device\$" "$scratch/err"
expect_line '^wmrun: warning: checkpoint [0-9]+ failed: subtask ".*" could not write its snapshot$' "$scratch/err"
results "$scratch/full.csv" | cmp -s - "$scratch/clean.results" ||
	fail "the results of the job with a full disk differ from the fault-free run's"
# Only the two complete checkpoints stay, each whole, beside the
# directory's lock (runtime/checkpoint/dir_lock.h).
left=$(cd "$small/chk" && ls -A | grep -vx _lock | tr '\n' ' ')
[ "$left" = "chk-1 chk-2 " ] || fail "after the full disk: $small/chk holds $left"
for id in 1 2; do
	left=$(ls -A "$small/chk/chk-$id" | tr '\n' ' ')
	[ "$left" = "_metadata subtask-0 subtask-1 subtask-2 subtask-3 " ] ||
		fail "chk-$id holds $left"
done
exit 0
