#!/bin/sh
# idle_timeout removes the stall of the law at the cost of late data: the
# 16 partitions of examples/study_stall_law.conf (each silent 20 % of the
# time, watermarks per split) with no idle_timeout stall the window within
# 0.03 of 1-(1-p)^16; the shorter the timeout, the sooner a silent
# partition leaves the minimum, so the stall falls towards 0 (each
# silence now holds the watermark for at most the timeout) while the
# late ratio rises (the watermark follows the sending partitions, and the
# 1 % of records that arrive later than out_of_orderness allows find
# their window fired).
. "$srcdir/tests/lib/lib.sh"

conf="$EXAMPLES/study_stall_law.conf"

expect_status 0 "$WMRUN" --sim --sweep "events.idle_timeout=none,1 min,20 s,5 s" \
	--sweep-csv "$scratch/idle.csv" "$conf"
cat "$scratch/out"
sweep_rows "$scratch/idle.csv" 4
grep '^none,' "$scratch/idle.csv" | sed '1i\
events.idle_timeout,stall_fraction' | cut -d, -f1,2 >"$scratch/none.csv"
stall_law "$scratch/none.csv" 0.2 0.03 ||
	fail "without idle_timeout the stall is not within 0.03 of 1-(1-p)^16"
# Row after row: the stall falls and the late ratio rises; with 5 s the
# stall is nearly gone.
awk -F, 'NR > 2 && !($2 < stall && $6 > late) { exit 1 }
	{ stall = $2; late = $6 }
	END { exit !(stall < 0.15) }' "$scratch/idle.csv" ||
	fail "a shorter idle_timeout did not lower the stall and raise the late ratio"
