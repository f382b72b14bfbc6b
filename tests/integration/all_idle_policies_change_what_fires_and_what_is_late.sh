#!/bin/sh
# The study knobs that are not Flink's (doc/semantics.md section 9.6).
# all_idle over a night when both inputs of a union are silent, the one
# 10 min behind going idle last: flink (under the default, Flink 2.3's
# flush to the maximum) raises the watermark to the ahead input's, so the
# window just below it fires at night; hold keeps the one behind, so that
# window waits for the morning; max jumps to MAX (every window fires at
# night, every morning record is late). Under Flink 2.1's rule, flink is
# hold. reactivation_grace on a flapping source lets windows fire earlier
# and turns more records late.
. "$srcdir/tests/lib/lib.sh"

examples=$(cd "$EXAMPLES" && pwd)
conf=$examples/all_idle_policies.conf
cd "$scratch" || fail "no scratch directory"
expect_status 0 "$WMRUN" --sim --sweep job.all_idle=flink,max,hold \
	--sweep-csv "$scratch/idle.csv" "$conf"
cat "$scratch/out"
# Columns: value, stall, p50, p99, max delay, late ratio, read, late, ...
col() { awk -F, -v v="$1" -v c="$2" '$1 == v { print $c }' "$scratch/idle.csv"; }
[ "$(grep -c ',true,0$' "$scratch/idle.csv")" -eq 3 ] ||
	fail "a run did not account for every record"
read_all=$(col flink 7)
for v in flink hold; do
	[ "$(col $v 8)" -eq 0 ] || fail "$v: $(col $v 8) records late, expected none"
done
[ "$(col max 8)" -eq $((read_all / 2)) ] ||
	fail "max: $(col max 8) records late, not every record after 9 h"

# When each evening window fired (processing time, ms) under each policy,
# and at which watermark: [0:40, 0:50) lies between the two inputs'
# watermarks at night, [0:50, 1:00) above both.
morning=32400000
for v in flink hold max; do
	sed "s/^all_idle = flink/all_idle = $v/" "$conf" >"$scratch/$v.conf"
	expect_status 0 "$WMRUN" --sim "$scratch/$v.conf"
	cp "$scratch/out" "$scratch/$v.csv"
done
# fired POLICY WINDOW_END: the latest fire time of that window's panes
fired() {
	awk -F, -v e="$2" 'NR > 1 && $3 == e && $6 > t { t = $6 } END { print t + 0 }' \
		"$scratch/$1.csv"
}
for v in flink hold max; do
	echo "$v: [0:40, 0:50) fired at $(fired $v 3000000) ms, [0:50, 1:00) at $(fired $v 3600000) ms"
done
[ "$(fired flink 3000000)" -gt 0 ] && [ "$(fired flink 3000000)" -lt $morning ] ||
	fail "flink: [0:40, 0:50) did not fire at night on the ahead input's watermark"
[ "$(fired flink 3600000)" -ge $morning ] ||
	fail "flink: [0:50, 1:00) fired before the morning"
[ "$(fired hold 3000000)" -ge $morning ] ||
	fail "hold: [0:40, 0:50) fired before the morning"
[ "$(col hold 5)" -gt "$(col flink 5)" ] ||
	fail "hold: the longest fire delay is not longer than flink's"
[ "$(fired max 3600000)" -gt 0 ] && [ "$(fired max 3600000)" -lt $morning ] ||
	fail "max: the last evening window did not fire before 9 h"
[ "$(awk -F, 'NR > 1 && $3 == 3600000 { print $7; exit }' "$scratch/max.csv")" = \
	9223372036854775807 ] || fail "max: the last evening window did not fire at MAX"
[ "$(awk -F, -v m=$morning 'NR > 1 && $2 >= m' "$scratch/max.csv" | wc -l)" -eq 0 ] ||
	fail "max: a window after 9 h fired"

# Flink 2.1's rule keeps the combination's value: flink is hold.
sed "s/^all_idle = flink.*/&\nflink_behaviour = flink-2.1/" "$conf" \
	>"$scratch/flink21.conf"
expect_status 0 "$WMRUN" --sim --sweep job.all_idle=flink,hold \
	--sweep-csv "$scratch/flink21.csv" "$scratch/flink21.conf"
[ "$(cut -d, -f2- "$scratch/flink21.csv" | sed -n 2p)" = \
	"$(cut -d, -f2- "$scratch/flink21.csv" | sed -n 3p)" ] ||
	fail "Flink 2.1: flink differs from hold on a two-input night"
[ "$(cut -d, -f2- "$scratch/flink21.csv" | sed -n 2p)" != \
	"$(cut -d, -f2- "$scratch/idle.csv" | sed -n 2p)" ] ||
	fail "Flink 2.1's rule gives the default's (2.3's) figures"

# reactivation_grace: sensors back from idle no longer hold the watermark.
expect_status 0 "$WMRUN" --sim --sweep "sensors.reactivation_grace=0,10s" \
	--sweep-csv "$scratch/grace.csv" "$examples/idle_flapping.conf"
cat "$scratch/out"
gcol() { awk -F, -v v="$1" -v c="$2" '$1 == v { print $c }' "$scratch/grace.csv"; }
# mean_delay GRACE: the mean delay (ms) from a window's end to its first
# firing, over every window (a window's results for all keys fire at once).
mean_delay() {
	sed "s/^idle_timeout = .*/&\nreactivation_grace = $1/" \
		"$examples/idle_flapping.conf" >"$scratch/grace.conf"
	expect_status 0 "$WMRUN" --sim "$scratch/grace.conf"
	awk -F, 'NR > 1 && !seen[$2]++ { n++; d += $6 - $3 }
		END { printf "%d\n", d / n }' "$scratch/out"
}
delay0=$(mean_delay 0)
delay10=$(mean_delay "10 s")
echo "grace 0: mean delay $delay0 ms, late $(gcol 0 8); 10s: mean delay $delay10 ms, late $(gcol 10s 8)"
[ "$delay10" -lt "$delay0" ] ||
	fail "the grace did not make windows fire earlier"
[ "$(gcol 10s 8)" -gt "$(gcol 0 8)" ] ||
	fail "the grace did not turn more records late"
