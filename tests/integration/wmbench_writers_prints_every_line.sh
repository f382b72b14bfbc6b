#!/bin/sh
# wmbench writers writes a JSON-lines sink's result line by the sink's
# own writer and through jansson, and samples of --metrics of a job of
# 64 subtasks, and prints each form's ns a line and jansson's ratio to
# the sink's writer, positive. Tiny sizes: this checks that the benchmark
# works, never how fast anything is; a bad option is refused (64).
. "$srcdir/tests/lib/lib.sh"

expect_status 0 timeout 60 "$WMBENCH" writers --lines 2000 --reps 2
for f in sink-hand sink-jansson metrics; do
	positive "bench=writers form=$f metric=ns_per_line"
done
positive 'bench=writers form=sink-jansson metric=over_hand'
[ "$(wc -l <"$scratch/out")" -eq 4 ] ||
	{ cat "$scratch/out" >&2; fail "expected 4 lines"; }
expect_status 64 "$WMBENCH" writers --lines 0
expect_line 'invalid line count "0"' "$scratch/err"
exit 0
