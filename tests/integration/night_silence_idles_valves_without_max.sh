#!/bin/sh
# Incident 4: every partition silent from 1 h to 9 h, idle timeout 1 min.
# Sources and valves go idle, but the watermark does not jump to MAX: the
# last evening window fires only when data returns at 9 h, at a watermark
# just before 9 h. Partitions 6 and 7 return with a 20-minute outage; idle
# all night, they no longer hold the watermark, so their records for
# windows that fired meanwhile are late, and only theirs. Without the
# idle timeout nothing is late but that window waits for them until 9:20.
. "$srcdir/tests/lib/lib.sh"

conf="$EXAMPLES/night_all_silent.conf"
sed "s|^late_output = .*|late_output = $scratch/late.csv|" "$conf" >"$scratch/idle.conf"
sed "/^idle_timeout/d; s|^late_output = .*|late_output = $scratch/late_stuck.csv|" \
	"$conf" >"$scratch/stuck.conf"
grep -q '^late_output = ' "$scratch/idle.conf" || fail "the example has no late output"

expect_status 0 "$WMRUN" --sim --summary "$scratch/idle.json" "$scratch/idle.conf"
cp "$scratch/out" "$scratch/idle.csv"
expect_status 0 "$WMRUN" --sim "$scratch/stuck.conf"
cp "$scratch/out" "$scratch/stuck.csv"

nine=32400000
# The last evening window [0:50, 1:00): when it fired, at which watermark.
fired=$(awk -F, 'NR > 1 && $3 == 3600000 { print $6; exit }' "$scratch/idle.csv")
wm=$(awk -F, 'NR > 1 && $3 == 3600000 { print $7; exit }' "$scratch/idle.csv")
stuck=$(awk -F, 'NR > 1 && $3 == 3600000 { print $6; exit }' "$scratch/stuck.csv")
echo "window [0:50, 1:00) fired at $fired ms (watermark $wm), without idleness at $stuck ms"
[ "$fired" -ge $nine ] || fail "the last evening window fired at $fired ms, before the data returned"
[ "$wm" -lt $nine ] && [ "$wm" -gt $((nine - 60000)) ] ||
	fail "it fired at watermark $wm, not just before 9 h (never MAX)"
[ "$stuck" -ge $((nine + 1200000)) ] || fail "without idleness it fired at $stuck ms, before 9:20"
# No window ending in the night fired before 9 h.
early=$(awk -F, -v n=$nine 'NR > 1 && $3 > 3600000 && $3 <= n && $6 < n' "$scratch/idle.csv" | wc -l)
[ "$early" -eq 0 ] || fail "$early windows fired during the night"
# The window subtasks' valves were idle for most of the night.
sed 's/.*"kind":"window"//' "$scratch/idle.json" | sed 's/"index":/\n/g' |
	grep '^[0-9]' | sed 's/.*"idle_ms":\([0-9]*\).*/\1/' >"$scratch/window_idle"
[ "$(wc -l <"$scratch/window_idle")" -eq 2 ] || fail "expected 2 window subtasks"
while read -r ms; do
	[ "$ms" -gt $((7 * 3600000)) ] || fail "a window subtask was idle only $ms ms"
done <"$scratch/window_idle"
# Late: only partitions 6 and 7, from around 9:00 to before 9:20.
late=$(($(wc -l <"$scratch/late.csv") - 1))
others=$(awk -F, 'NR > 1 && $1 != 6 && $1 != 7' "$scratch/late.csv" | wc -l)
range=$(awk -F, -v n=$nine 'NR > 1 && ($2 < n - 10000 || $2 >= n + 1200000)' "$scratch/late.csv" | wc -l)
echo "late records: $late"
[ "$late" -gt 1000 ] && [ "$late" -lt 1300 ] || fail "$late records late, expected about 1200"
[ "$others" -eq 0 ] || fail "$others late records from partitions other than 6 and 7"
[ "$range" -eq 0 ] || fail "$range late records outside 9:00-9:20"
[ "$(wc -l <"$scratch/late_stuck.csv")" -eq 1 ] || fail "records were late without idleness"
