#!/bin/sh
# Late data, end to end: records within allowed lateness fire their window
# again, records later than that go to the late side output (or, without
# one, are counted as dropped), and the windows' final counts plus the
# late records add up to the records read.
. "$srcdir/tests/lib/lib.sh"

# json_field JSON FIELD -- a top-level number of the summary (the job's
# figures come before the per-stage ones, which repeat some names).
json_field() {
	sed 's/"stages".*//' "$1" | sed "s/.*\"$2\":\\([0-9]*\\).*/\\1/"
}

sed "s|^late_output = .*|late_output = $scratch/late.csv|" \
	"$EXAMPLES/late_data.conf" >"$scratch/side.conf"
grep -q "^late_output = $scratch/late.csv" "$scratch/side.conf" ||
	fail "the example has no late_output line"
sed '/^late_output = /d' "$EXAMPLES/late_data.conf" >"$scratch/drop.conf"

expect_status 0 "$WMRUN" --sim --summary "$scratch/side.json" "$scratch/side.conf"
cp "$scratch/out" "$scratch/side.csv"
expect_status 0 "$WMRUN" --sim --summary "$scratch/drop.json" "$scratch/drop.conf"

read_n=$(json_field "$scratch/side.json" records_read)
side=$(json_field "$scratch/side.json" late_records_side_output)
dropped=$(json_field "$scratch/drop.json" late_records_dropped)
late_firings=$(json_field "$scratch/side.json" windows_fired_late)
lines=$(($(wc -l <"$scratch/late.csv") - 1))
echo "read $read_n, side output $side ($lines lines), dropped without it $dropped, late firings $late_firings"
[ "$side" -gt 0 ] || fail "no record was late"
[ "$lines" -eq "$side" ] || fail "the late file has $lines records, the summary says $side"
[ "$dropped" -eq "$side" ] || fail "without late_output $dropped were dropped, not $side"
expect_line '"late_records_dropped":0,' "$scratch/side.json"
[ "$late_firings" -gt 0 ] || fail "allowed lateness fired no window again"
expect_line ',true$' "$scratch/side.csv"

# A late firing carries every element so far: each window's last firing
# has its final count. Final counts and sums plus the late records must
# be everything that was read (the generator's values are all 1).
awk -F, 'NR > 1 { c[$1 "," $2] = $4 }
	 END { for (k in c) t += c[k]; print t }' "$scratch/side.csv" >"$scratch/windowed"
windowed=$(cat "$scratch/windowed")
[ $((windowed + side)) -eq "$read_n" ] ||
	fail "windows hold $windowed records and $side are late, but $read_n were read"
