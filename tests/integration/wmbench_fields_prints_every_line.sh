#!/bin/sh
# wmbench fields parses one record as CSV, flat JSON and JSON with its
# fields nested among members nobody reads, checks every line gives its
# fields (or it exits 70), and prints each form's ns a line and the JSON
# forms' ratio to CSV, positive. Tiny sizes: this checks that the
# benchmark works, never how fast anything is; a bad option is refused
# (64).
. "$srcdir/tests/lib/lib.sh"

expect_status 0 timeout 60 "$WMBENCH" fields --lines 20000 --reps 2
positive 'bench=fields form=csv metric=ns_per_line'
for f in json json-nested; do
	positive "bench=fields form=$f metric=ns_per_line"
	positive "bench=fields form=$f metric=over_csv"
done
[ "$(wc -l <"$scratch/out")" -eq 5 ] ||
	{ cat "$scratch/out" >&2; fail "expected 5 lines"; }
expect_status 64 "$WMBENCH" fields --lines 0
expect_line 'invalid line count "0"' "$scratch/err"
exit 0
