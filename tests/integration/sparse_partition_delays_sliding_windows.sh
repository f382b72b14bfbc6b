#!/bin/sh
# Incident 3: one partition of 8 with a click every 500 s holds back every
# sliding window (10 min / 1 min) by up to 500 s; with idle_timeout = 1 min
# they fire within about a minute. Each click is in 10 windows: the final
# counts add up to 10 times the clicks read, with or without idleness.
. "$srcdir/tests/lib/lib.sh"

conf="$EXAMPLES/sliding_windows_sparse_partition.conf"
sed 's/^out_of_orderness = 10 s$/&\nidle_timeout = 1 min/' "$conf" >"$scratch/idle.conf"
grep -q '^idle_timeout = 1 min' "$scratch/idle.conf" || fail "could not add an idle timeout"

expect_status 0 "$WMRUN" --sim --summary "$scratch/stuck.json" "$conf"
cp "$scratch/out" "$scratch/stuck.csv"
expect_status 0 "$WMRUN" --sim --summary "$scratch/idle.json" "$scratch/idle.conf"
cp "$scratch/out" "$scratch/idle.csv"

end=$((4 * 3600000))
stuck=$(max_fire_delay "$scratch/stuck.csv" 0 $end)
idle=$(max_fire_delay "$scratch/idle.csv" 0 $end)
echo "max fire delay: without idleness ${stuck} ms, with idle_timeout = 1 min ${idle} ms"
[ "$stuck" -gt 300000 ] && [ "$stuck" -le 510000 ] ||
	fail "without idleness windows fired at most ${stuck} ms late, expected about 500 s"
[ "$idle" -lt 90000 ] || fail "with idleness windows fired ${idle} ms late"
for r in stuck idle; do
	read_n=$(sed 's/.*"records_read":\([0-9]*\),.*/\1/' "$scratch/$r.json")
	counted=$(awk -F, 'NR > 1 { n += $4 } END { print n + 0 }' "$scratch/$r.csv")
	[ "$counted" -eq $((10 * read_n)) ] ||
		fail "$r: window counts add up to $counted, not 10 x $read_n"
done
cut -d, -f1-5 "$scratch/stuck.csv" | sort >"$scratch/a"
cut -d, -f1-5 "$scratch/idle.csv" | sort >"$scratch/b"
cmp -s "$scratch/a" "$scratch/b" || fail "window contents differ with idleness"
