#!/bin/sh
# wmbench pipeline --checkpoint-interval runs each parallelism without
# checkpoints and with them, in one invocation, and prints the cost
# against its target and the checkpoints' figures from the job's report;
# the checkpointed runs really take checkpoints, and the directory they
# went into is removed. Tiny sizes and an interval of a millisecond, so
# that a run of a tenth of a second still completes some: this checks
# that the comparison works, never how much checkpoints cost.
. "$srcdir/tests/lib/lib.sh"

mkdir "$scratch/tmp"
expect_status 0 env TMPDIR="$scratch/tmp" timeout 300 "$WMBENCH" pipeline \
	--parallelism 2 --records 4000000 --reps 2 --checkpoint-interval 1ms

positive 'bench=pipeline impl=wmrun variant=p2 metric=mrec_per_s'
ck='bench=pipeline impl=wmrun-checkpointed variant=p2'
positive "$ck metric=mrec_per_s"
expect_line "^$ck metric=mrec_per_s .* interval_ms=1\$" "$scratch/out"
# Every checkpointed run completed checkpoints (the least of the two
# repetitions is above zero), each with bytes and a duration.
positive "$ck metric=checkpoints"
positive "$ck metric=checkpoint_bytes"
for d in duration_max duration_mean; do
	positive "$ck metric=checkpoint_${d}_ms"
	expect_line "^$ck metric=checkpoint_${d}_ms .* time=real\$" "$scratch/out"
	positive "$ck metric=checkpoint_${d}_processing_s"
done
# A barrier can reach both channels of a window subtask in one burst:
# its alignment may be zero.
num='[0-9]+\.[0-9]{3}'
expect_line "^$ck metric=checkpoint_alignment_max_ms median=$num min=$num max=$num time=real\$" \
	"$scratch/out"
expect_line "^$ck metric=checkpoint_alignment_max_processing_s median=$num min=$num max=$num time=processing speed=1000\$" \
	"$scratch/out"
expect_line "^$ck metric=checkpoints_given_up value=[0-9]+\$" "$scratch/out"
positive 'bench=pipeline variant=p2 metric=checkpointed_over_unchecked'
# The loss may be negative on a noisy machine: only its form, and that
# the median lies between the repetitions' extremes, are checked.
loss='-?[0-9]+\.[0-9]{2}'
expect_line "^bench=pipeline variant=p2 metric=checkpoint_loss_pct value=$loss min=$loss max=$loss target_below=5 met=(yes|no)\$" \
	"$scratch/out"
grep '^bench=pipeline variant=p2 metric=checkpoint_loss_pct ' "$scratch/out" |
	tr ' =' '\n\n' |
	awk 'prev == "value" { v = $1 + 0 } prev == "min" { lo = $1 + 0 }
	     prev == "max" { hi = $1 + 0 } { prev = $1 }
	     END { exit !(lo <= v && v <= hi) }' ||
	fail "the loss is not between its extremes: $(cat "$scratch/out")"
# The loop's line, four of the plain run, twelve of the checkpointed.
[ "$(wc -l <"$scratch/out")" -eq 17 ] ||
	{ cat "$scratch/out" >&2; fail "expected 17 lines"; }
[ -z "$(ls "$scratch/tmp")" ] ||
	fail "checkpoints left behind: $(ls -R "$scratch/tmp")"

# --checkpoint-dir: there instead, and removed from there too.
mkdir "$scratch/ck"
expect_status 0 timeout 300 "$WMBENCH" pipeline --parallelism 1 \
	--records 4000000 --reps 1 -c 1ms --checkpoint-dir "$scratch/ck"
positive 'bench=pipeline impl=wmrun-checkpointed variant=p1 metric=checkpoints'
[ -z "$(ls "$scratch/ck")" ] ||
	fail "checkpoints left behind: $(ls -R "$scratch/ck")"
# A directory that cannot be made stops it before anything runs.
expect_status 73 "$WMBENCH" pipeline -c 1s --checkpoint-dir "$scratch/none"

expect_status 64 "$WMBENCH" pipeline --checkpoint-interval 0
expect_status 64 "$WMBENCH" pipeline --checkpoint-interval '5 parsecs'
expect_status 64 "$WMBENCH" pipeline --checkpoint-interval 2d
expect_status 64 "$WMBENCH" pipeline --checkpoint-dir "$scratch/ck"
