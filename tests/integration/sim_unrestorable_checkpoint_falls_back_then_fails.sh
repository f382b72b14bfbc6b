#!/bin/sh
# --sim as a real run (unrestorable_checkpoint_falls_back_then_fails.sh):
# when the checkpoint its crash at fail_at restores cannot be restored
# (here a window's blob overwritten, its checksums resealed, while the
# simulation is held between that checkpoint and the crash), the job falls
# back to the complete checkpoint before it and finishes; with none before
# it, it fails with 65 naming the checkpoint and why. It used to fail at
# once with whatever the snapshot's error mapped to. The same with the
# file committer's blob (the file sink's, exactly-once), which used to
# fail the job with 74. Then ten seeded random changes of that
# checkpoint: each restores, or falls back once.
#
# The simulation is held without a clock: its results go to standard
# output, a FIFO this test reads until the checkpoint before the crash is
# complete and then leaves unread; the results due between that checkpoint
# and the crash are far more than a pipe holds, so the simulation waits in
# a write until the test reads on.
. "$srcdir/tests/lib/lib.sh"

command -v python3 >/dev/null || { echo "SKIP: no python3 to forge a checkpoint"; exit 77; }
command -v mkfifo >/dev/null || { echo "SKIP: no mkfifo"; exit 77; }
trap 'exec 3<&-; [ -z "${pid:-}" ] || kill "$pid" 2>/dev/null; rm -rf "$scratch"' EXIT

ckpt="$scratch/ckpt"
# Checkpoints at 10, 20 and 30 s of processing time, the crash at 35 s:
# 5 windows of 3000 keys each fire in between, some 300 KB of results.
cat >"$scratch/job.conf" <<CONF
[job]
name = sim-unrestorable
event_time = 1 min
checkpoint_interval = 10 s
checkpoint_dir = $ckpt
checkpoints_retained = 2
fail_at = 35 s
[source events]
parallelism = 2
partitions = 2
rate = 6000/s
keys = 3000
[window counts]
input = events
parallelism = 2
size = 1 s
[sink out]
input = counts
parallelism = 2
path = -
[sink file]
input = counts
path = $scratch/out.csv
CONF

# run STATUS FORGE... -- --sim of the job, held once checkpoint 3 (the
# last before the crash) is complete; the checkpoints FORGE (of 2 and 3)
# forged then, and the job run on to its end with status STATUS (any: the
# status in $got). With SEED set, checkpoint 3 is mutated at random
# (mutate_checkpoint) instead. The blob forged is window subtask 2's, or
# with BLOB=committer the file committer's (the last).
run() {
	want=$1
	shift
	rm -rf "$ckpt" "$scratch/fifo"
	mkfifo "$scratch/fifo" || fail "could not make a FIFO"
	"$WMRUN" --sim "$scratch/job.conf" >"$scratch/fifo" 2>"$scratch/err" &
	pid=$!
	exec 3<"$scratch/fifo"
	# A read takes what the pipe holds, up to 64 KiB (4 KiB reads cost
	# two processes per 4 KiB of results: most of the test's time).
	until [ -f "$ckpt/chk-3/_metadata" ]; do
		n=$(dd bs=65536 count=1 <&3 2>/dev/null | wc -c)
		[ "$n" -gt 0 ] || { cat "$scratch/err" >&2; fail "the job ended before checkpoint 3"; }
	done
	[ -z "${SEED:-}" ] || what=$(mutate_checkpoint "$ckpt/chk-3" "$SEED") || exit 1
	for chk in "$@"; do
		blob=subtask-2
		[ "${BLOB:-}" != committer ] ||
			blob=$(cd "$ckpt/chk-$chk" && ls subtask-* | sort -t- -k2 -n | tail -1)
		printf XXXX | dd of="$ckpt/chk-$chk/$blob" bs=1 conv=notrunc 2>/dev/null ||
			fail "could not forge checkpoint $chk"
		reseal_checkpoint "$ckpt/chk-$chk"
	done
	cat <&3 >"$scratch/out"
	exec 3<&-
	wait "$pid"
	got=$?
	pid=
	[ "$want" = any ] || [ "$got" -eq "$want" ] || { cat "$scratch/err" >&2; fail "--sim exited $got, expected $want"; }
}

# The newest cannot be restored: the one before it is, and the job ends.
run 0 3
expect_line "^wmrun: notice: subtask \"counts/0\" could not restore checkpoint 3 in \"$ckpt\": the snapshot is unreadable: .*; restoring checkpoint 2 instead\$" "$scratch/err"
expect_line '^  every record accounted  yes$' "$scratch/err"
[ "$(grep -c 'restoring checkpoint [0-9]* instead' "$scratch/err")" -eq 1 ] || { cat "$scratch/err" >&2; fail "not one fall back"; }

# Neither can: the job fails, naming the last one tried.
run 65 2 3
expect_line "^wmrun: subtask \"counts/0\" could not restore checkpoint 2 in \"$ckpt\": the snapshot is unreadable: .*; no complete checkpoint before it to fall back to\$" "$scratch/err"

# The committer's blob of the newest cannot be restored: the one before it
# is, and the file holds the results of a run without the crash, each
# once (those the crash cut short are emitted again, at a later
# processing time and watermark, and in another order).
sed -i 's/^fail_at = 35 s$//' "$scratch/job.conf"
rm -rf "$ckpt"
expect_status 0 "$WMRUN" --sim "$scratch/job.conf"
cp "$scratch/out.csv" "$scratch/want.csv"
sed -i 's/^checkpoints_retained = 2$/checkpoints_retained = 2\nfail_at = 35 s/' "$scratch/job.conf"
BLOB=committer run 0 3
expect_line "^wmrun: notice: the file committer could not restore checkpoint 3 in \"$ckpt\": the file committer's blob is unreadable: .*; restoring checkpoint 2 instead\$" "$scratch/err"
expect_line '^  every record accounted  yes$' "$scratch/err"
window_results "$scratch/out.csv" >"$scratch/got.results"
window_results "$scratch/want.csv" >"$scratch/want.results"
cmp -s "$scratch/got.results" "$scratch/want.results" ||
	fail "the file's results differ from the run's without the crash"

# Neither can: the job fails, naming the last one tried.
BLOB=committer run 65 2 3
expect_line "^wmrun: the file committer could not restore checkpoint 2 in \"$ckpt\": the file committer's blob is unreadable: .*; no complete checkpoint before it to fall back to\$" "$scratch/err"

# Seeded mutations of checkpoint 3 (WM_MUTATION_SEEDS=FIRST:LAST to
# replay some): restored, or fallen back to checkpoint 2 once; never 70,
# never a signal.
seeds=${WM_MUTATION_SEEDS:-1:10}
SEED=${seeds%%:*}
while [ "$SEED" -le "${seeds##*:}" ]; do
	run any
	n=$(grep -c 'restoring checkpoint [0-9]* instead' "$scratch/err")
	case $got:$n in
	0:0 | 0:1) ;;
	*) cat "$scratch/err" >&2; fail "seed $SEED ($what): exited $got after $n fall backs" ;;
	esac
	expect_line '^  every record accounted  yes$' "$scratch/err"
	echo "seed $SEED ($what): $got, $n fall backs"
	SEED=$((SEED + 1))
done
echo ok
