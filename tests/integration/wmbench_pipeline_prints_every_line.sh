#!/bin/sh
# wmbench pipeline runs the single-thread loop and wmrun at parallelism 1,
# 2 and 4, accounts for every record (or it exits 70), and prints every
# result line with positive values; with --keys it also reads and replays
# its traces keyed by longs and by strings, and removes them. Tiny sizes:
# this checks that the benchmark works, never how fast anything is.
. "$srcdir/tests/lib/lib.sh"

expect_status 0 timeout 120 "$WMBENCH" pipeline --records 8000 --reps 1

positive 'bench=pipeline impl=loop variant=p1 metric=mrec_per_s'
for p in 1 2 4; do
	positive "bench=pipeline impl=wmrun variant=p$p metric=mrec_per_s"
	positive "bench=pipeline impl=wmrun variant=p$p metric=shm_bytes"
	positive "bench=pipeline impl=wmrun variant=p$p metric=rss_kib_per_subtask"
	positive "bench=pipeline variant=p$p metric=wmrun_over_loop"
done
[ "$(wc -l <"$scratch/out")" -eq 13 ] ||
	{ cat "$scratch/out" >&2; fail "expected 13 lines"; }

# Two repetitions, so that both orders of the key types run; enough
# records that every one of the 1024 keys is drawn.
mkdir "$scratch/tmp"
expect_status 0 env TMPDIR="$scratch/tmp" timeout 120 "$WMBENCH" pipeline \
	--keys --parallelism 1,2 --records 80000 --reps 2
for k in long string; do
	positive "bench=pipeline impl=read variant=$k-keys metric=ns_per_record"
done
positive 'bench=pipeline impl=read variant=string-keys metric=keys'
expect_line '^bench=pipeline impl=read variant=string-keys metric=keys value=1024$' \
	"$scratch/out"
positive 'bench=pipeline impl=read metric=string_over_long_keys'
for p in 1 2; do
	for k in long string; do
		positive "bench=pipeline impl=wmrun variant=p$p-$k-keys metric=mrec_per_s"
	done
	positive "bench=pipeline variant=p$p metric=string_over_long_keys"
done
# The loop's line, the four of the reading, seven a parallelism.
[ "$(wc -l <"$scratch/out")" -eq 19 ] ||
	{ cat "$scratch/out" >&2; fail "expected 19 lines"; }
[ -z "$(ls "$scratch/tmp")" ] || fail "traces left behind: $(ls "$scratch/tmp")"
# Traces that cannot be made stop it before anything runs (EX_CANTCREAT).
expect_status 73 env TMPDIR="$scratch/none" "$WMBENCH" pipeline --keys

expect_status 64 "$WMBENCH" pipeline --parallelism 1,,2
expect_status 64 "$WMBENCH" pipeline --records 7
