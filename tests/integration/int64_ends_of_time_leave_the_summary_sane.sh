#!/bin/sh
# Timestamps at the ends of the int64 range: windows are assigned as
# Flink assigns them (a window at the end of time wraps, its end before
# its start), but the summary's fire delays leave those windows out, and
# say how many, instead of reporting a median of 8.6e18 ms.
. "$srcdir/tests/lib/lib.sh"

cat >"$scratch/trace.csv" <<TRACE
0,1000,1,1
0,2500,1,1
0,9223372036854775000,1,1
0,-9223372036854775000,1,1
0,3500,1,1
TRACE
cat >"$scratch/job.conf" <<CONF
[source s]
parallelism = 1
partitions = 1
replay = $scratch/trace.csv
[window w]
input = s
parallelism = 1
size = 1 s
[sink out]
input = w
parallelism = 1
path = $scratch/out.csv
CONF

for mode in --sim real; do
	opt=$mode
	[ "$mode" = real ] && opt=
	# shellcheck disable=SC2086
	expect_status 0 "$WMRUN" $opt --summary "$scratch/s.json" "$scratch/job.conf"
	# Flink's windows, the wrapped one included (its end below its start).
	expect_line '^1,9223372036854775000,-9223372036854775616,1,' "$scratch/out.csv"
	expect_line '^1,-9223372036854775000,-9223372036854774000,1,' "$scratch/out.csv"
	expect_line '"fire_delay_ms":\{"p50":-?[0-9]{1,6},"p99":-?[0-9]{1,6},"max":-?[0-9]{1,6}\}' "$scratch/s.json"
	expect_line '^ +\(2 windows at the ends of time left out of the delay\)$' "$scratch/err"
	expect_line '"fire_delays_excluded":2' "$scratch/s.json"
done
echo ok
