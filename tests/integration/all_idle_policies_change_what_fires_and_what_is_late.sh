#!/bin/sh
# The study knobs that are not Flink's (doc/semantics.md section 9.6).
# all_idle over a night when every partition is silent: flink keeps the
# watermark just short of 1 h (the evening's last window waits 8 h for the
# morning, only the records read through the outage are late); max jumps
# to MAX (every window fires within a minute, every morning record is
# late); hold, on this job, is flink. reactivation_grace on a flapping
# source lets windows fire earlier and turns more records late.
. "$srcdir/tests/integration/lib.sh"

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
echo "flink: late $(col flink 8), max delay $(col flink 5) ms"
[ "$(col flink 8)" -gt 1000 ] && [ "$(col flink 8)" -lt 1300 ] ||
	fail "flink: $(col flink 8) records late, expected about 1200"
[ "$(col flink 5)" -ge 28000000 ] ||
	fail "flink: the evening's last window did not wait for the morning"

echo "max: late $(col max 8) of $read_all, max delay $(col max 5) ms"
[ "$(col max 8)" -eq $((read_all / 2)) ] ||
	fail "max: $(col max 8) records late, not every record after 9 h"
[ "$(col max 5)" -lt 120000 ] ||
	fail "max: a window waited $(col max 5) ms, not fired at once by MAX"

[ "$(cut -d, -f2- "$scratch/idle.csv" | sed -n 2p)" = \
	"$(cut -d, -f2- "$scratch/idle.csv" | sed -n 4p)" ] ||
	fail "hold differs from flink on a night whose inputs idle in order"

# With max, the watermark the windows saw is MAX, before the morning.
sed "s/^all_idle = flink/all_idle = max/" "$conf" >"$scratch/max.conf"
expect_status 0 "$WMRUN" --sim "$scratch/max.conf"
evening=$(awk -F, 'NR > 1 && $3 == 3600000 { print $6 " " $7; exit }' "$scratch/out")
echo "max: window [0:50, 1:00) fired at, watermark: $evening"
[ "${evening#* }" = 9223372036854775807 ] && [ "${evening% *}" -lt 32400000 ] ||
	fail "max: the last evening window did not fire at MAX before 9 h"
[ "$(awk -F, 'NR > 1 && $2 >= 32400000' "$scratch/out" | wc -l)" -eq 0 ] ||
	fail "max: a window after 9 h fired"

# reactivation_grace: sensors back from idle no longer hold the watermark.
expect_status 0 "$WMRUN" --sim --sweep "sensors.reactivation_grace=0,10s" \
	--sweep-csv "$scratch/grace.csv" "$examples/idle_flapping.conf"
cat "$scratch/out"
gcol() { awk -F, -v v="$1" -v c="$2" '$1 == v { print $c }' "$scratch/grace.csv"; }
echo "grace 0: p99 $(gcol 0 4) ms, late $(gcol 0 8); 10s: p99 $(gcol 10s 4) ms, late $(gcol 10s 8)"
[ "$(gcol 10s 4)" -lt "$(gcol 0 4)" ] ||
	fail "the grace did not make windows fire earlier"
[ "$(gcol 10s 8)" -gt "$(gcol 0 8)" ] ||
	fail "the grace did not turn more records late"
