#!/bin/sh
# wmbench stages runs the tumbling count and each variant (punctuated by
# count and by time, heartbeats, a processing-time window, an interval
# join, a window join, a plugin aggregate) in one
# thread, accounts for every record (or it exits 70), and prints each
# variant's ns a record and its ratio to the tumbling count, positive.
# Tiny sizes: this checks that the benchmark works, never how fast
# anything is; a bad option is refused (64).
. "$srcdir/tests/lib/lib.sh"

expect_status 0 timeout 120 "$WMBENCH" stages --records 80000 --reps 2
positive 'bench=stages variant=tumbling metric=ns_per_record'
for v in punctuated punctuated-d heartbeats processing interval-join \
	window-join quantile; do
	positive "bench=stages variant=$v metric=ns_per_record"
	positive "bench=stages variant=$v metric=over_tumbling"
done
[ "$(wc -l <"$scratch/out")" -eq 15 ] ||
	{ cat "$scratch/out" >&2; fail "expected 15 lines"; }
expect_status 64 "$WMBENCH" stages --reps 0
expect_line 'invalid repetition count "0"' "$scratch/err"
exit 0
