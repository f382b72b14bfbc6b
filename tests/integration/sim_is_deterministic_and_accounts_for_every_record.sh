#!/bin/sh
# --sim gives byte-identical output on every run, and every record read is
# in a window or counted as late or dropped; with tumbling windows and no
# late data, the counts of all windows add up to the records read.
. "$srcdir/tests/lib/lib.sh"

expect_status 0 "$WMRUN" --sim --summary "$scratch/s1.json" "$EXAMPLES/quiet_partitions.conf"
cp "$scratch/out" "$scratch/run1.csv"
expect_status 0 "$WMRUN" --sim --summary "$scratch/s2.json" "$EXAMPLES/quiet_partitions.conf"
cmp "$scratch/out" "$scratch/run1.csv" || fail "two --sim runs differ"
cmp "$scratch/s1.json" "$scratch/s2.json" || fail "two --sim summaries differ"
# The text says the job's rate in its processing time, and how long its
# simulation took: 16 partitions of 1 record/s, 3 of them silent 8 h of
# the 12 (14 records/s over the job).
expect_line '^  rate                    14 records/s of processing time \(12 h 0 min of it simulated in [0-9.]+ m?s\)$' "$scratch/err"

expect_line '"all_records_accounted":true' "$scratch/s1.json"
read_count=$(sed 's/.*"records_read":\([0-9]*\).*/\1/' "$scratch/s1.json")
# 16 partitions x 1/s x 12 h, minus 3 partitions silent for 8 h.
[ "$read_count" -eq $((16 * 43200 - 3 * 28800)) ] ||
	fail "read $read_count records, expected $((16 * 43200 - 3 * 28800))"
counted=$(awk -F, 'NR > 1 { n += $4; s += $5 } END { print n " " s }' "$scratch/run1.csv")
[ "$counted" = "$read_count $read_count" ] ||
	fail "window counts and sums add up to \"$counted\", records read $read_count"
head -n 1 "$scratch/run1.csv" | grep -qx 'key,window_start,window_end,count,sum,fire_time,watermark,late_firing' ||
	fail "unexpected CSV header: $(head -n 1 "$scratch/run1.csv")"
