#!/bin/sh
# A checkpoint whose blobs were changed at random (bytes flipped, the
# blob cut short or grown, a count or a length overwritten) with every
# checksum made to match again is bad data, whatever the change: a
# --resume from it either restores (the change left a state the job can
# run from) or falls back to the checkpoint before it and finishes, or
# fails with 65 naming the checkpoint; never 70, never a signal, and at
# most one restart. A window blob with a count that did not add up used
# to stop the job with 70 "internal error". Fifty seeded changes
# (WM_MUTATION_SEEDS=FIRST:LAST to replay some), over a job with sources,
# a keyBy and windows; in every fourth, the checkpoint before is changed
# too, so that nothing is left to fall back to. In every third the blob
# changed is the file committer's (the exactly-once sink's): one it
# cannot have written used to fail the job with 74 and no fallback.
. "$srcdir/tests/lib/lib.sh"

command -v python3 >/dev/null || { echo "SKIP: no python3 to forge a checkpoint"; exit 77; }

seeds=${WM_MUTATION_SEEDS:-1:50}
first=${seeds%%:*} last=${seeds##*:}
pristine="$scratch/pristine"
cat >"$scratch/job.conf" <<CONF
[job]
name = mutated
event_time = 10 min
speed = 500
checkpoint_interval = 20 s
checkpoint_dir = $pristine
checkpoints_retained = 2
restart_attempts = 2
[source events]
parallelism = 2
partitions = 4
rate = 10/s
keys = 5
out_of_orderness = 2 s
[window counts]
input = events
parallelism = 2
size = 10 s
allowed_lateness = 3 s
[sink out]
input = counts
parallelism = 2
path = $scratch/out.csv
CONF

expect_status 0 "$WMRUN" --live=never "$scratch/job.conf"
cp "$scratch/out.csv" "$scratch/out.pristine"
set -- $(cd "$pristine" && ls -d chk-* | sed 's/^chk-//' | sort -n)
[ $# -eq 2 ] || fail "not two checkpoints kept: $*"
older=$1 newer=$2

seed=$first
while [ "$seed" -le "$last" ]; do
	ckpt="$scratch/ckpt-$seed"
	cp -R "$pristine" "$ckpt" || fail "could not copy the checkpoints"
	cp "$scratch/out.pristine" "$scratch/out.csv"
	which=subtask
	[ $((seed % 3)) -ne 0 ] || which=committer
	what=$(mutate_checkpoint "$ckpt/chk-$newer" "$seed" $which) || exit 1
	[ $((seed % 4)) -ne 0 ] ||
		what="$what; before: $(mutate_checkpoint "$ckpt/chk-$older" $((seed + 1000)) $which)" || exit 1
	timeout 120 "$WMRUN" --live=never --resume "$ckpt" "$scratch/job.conf" \
		>"$scratch/out" 2>"$scratch/err"
	status=$?
	case $status in
	0) ;;
	65) grep -Eq "^wmrun: (subtask \"[a-z]+/[0-9]\"|the file committer) could not restore checkpoint $older in \"$ckpt\": the (snapshot|file committer's blob) is unreadable: .*; no complete checkpoint before it to fall back to\$" "$scratch/err" ||
		{ cat "$scratch/err" >&2; fail "seed $seed ($what): 65 naming no checkpoint"; } ;;
	*) cat "$scratch/err" >&2; fail "seed $seed ($what): exited $status" ;;
	esac
	n=$(grep -c 'restarting from' "$scratch/err")
	[ "$n" -le 1 ] || { cat "$scratch/err" >&2; fail "seed $seed ($what): $n restarts"; }
	echo "seed $seed ($what): $status, $n restarts"
	rm -rf "$ckpt"
	seed=$((seed + 1))
done
echo ok
