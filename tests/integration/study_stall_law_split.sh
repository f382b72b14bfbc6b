#!/bin/sh
# The stall law with watermarks per split: n partitions, each silent a
# fraction p = 0.2 of the time independently, hold the window's watermark
# still whenever any of them is silent, 1-(1-p)^n of the time. The sweep
# over n = 1, 2, 4, 8, 16 lies within 0.03 of that curve on every row.
#
# Tolerance: the example runs 20000 min with silences of mean D = 2 min,
# T/D = 10000 silences per partition. The measured fraction is a time
# average of a two-state process whose correlation decays in D(1-p); its
# variance is 2/T times the integral of its autocovariance, which for
# one partition is 2p(1-p)^2 D/T: a standard deviation of 0.0051, and at
# most 0.006 over these n (at n = 2). Four of those, 0.024, plus the
# measure's own bias (a stall runs from the last advance before the
# silence to the first after it, up to ~1.3 s longer than the silence:
# +0.002 at most; overlaps shorter than stall_threshold are lost: less),
# round up to 0.03. --sim and a fixed seed make the figures the same on
# every run; the tolerance says what another seed could give.
. "$srcdir/tests/lib/lib.sh"

conf="$EXAMPLES/study_stall_law.conf"

expect_status 0 "$WMRUN" --sim --sweep events.partitions=1,2,4,8,16 \
	--sweep-csv "$scratch/n.csv" "$conf"
cat "$scratch/out"
sweep_rows "$scratch/n.csv" 5
stall_law "$scratch/n.csv" 0.2 0.03 ||
	fail "a row of the sweep over n is not within 0.03 of 1-(1-p)^n"
# And it grows with n, row after row.
awk -F, 'NR > 2 && $2 <= prev { exit 1 } { prev = $2 }' "$scratch/n.csv" ||
	fail "the stall does not grow with the number of partitions"
