#!/bin/sh
# examples/skew_bursts_gaps.conf runs, accounts for every record, and reads
# exactly the records its skews, bursts and silences give; a bad burst is a
# configuration error pointing at what is wrong.
. "$srcdir/tests/lib/lib.sh"

expect_status 0 "$WMRUN" --sim --summary "$scratch/s.json" "$EXAMPLES/skew_bursts_gaps.conf"
expect_line '"all_records_accounted":true' "$scratch/s.json"
read_count=$(sed 's/.*"records_read":\([0-9]*\).*/\1/' "$scratch/s.json")
# 2 h = 7200 s at 2/s per partition:
#   0-3   x10: 20/s, plus 30 s at x20 (+19 x 20/s); partition 2 also x5
#         for 60 s twice (at 0 and 1 h: +4 x 20/s)
#   4-7, 12    2/s
#   8-11  2/s less 9 windows of 2 min (5, 15, ..., 85 min)
#   13-14 x0.001: one arrival every 500 s, at 0, 500, ..., 7000 s
#   15    silent
want=$((4 * (7200 * 20 + 30 * 19 * 20) + 2 * 60 * 4 * 20 +
	5 * 7200 * 2 + 4 * (7200 - 9 * 120) * 2 + 2 * 15))
[ "$read_count" -eq "$want" ] || fail "read $read_count records, expected $want"

printf '[source s]\npartitions = 4\nburst = 0-3 x20 every 1 min for 2 min\n' >"$scratch/burst.conf"
expect_status 78 "$WMRUN" --check "$scratch/burst.conf"
expect_line 'burst.conf:3:9: invalid value for "burst" in \[source s\]: "for" must be shorter than "every"' "$scratch/err"
