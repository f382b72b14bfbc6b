#!/bin/sh
# A replayed trace whose disorder stays within the out-of-order bound gives
# exactly the windows a plain batch aggregation of the trace gives, in
# --sim and in a real run; a malformed line stops the job with file:line
# (exit 65) unless on_bad_record = skip, which reports every skipped line.
. "$srcdir/tests/lib/lib.sh"

# 4000 records over 4 partitions, 37 keys, timestamps rising with up to
# 40 ms of disorder (bound: 50 ms), values 1..9.
awk 'BEGIN {
	print "partition,timestamp,key,value"
	for (i = 0; i < 4000; i++)
		printf "%d,%d,%d,%d\n", i % 4, 1000 + i * 3 - (i * 7919) % 41,
			(i * 31) % 37, 1 + i % 9
}' >"$scratch/trace.csv"

conf() { # conf PATH PACING EXTRA
	cat <<CONF
[job]
name = replay
speed = 20
[source t]
parallelism = 2
partitions = 4
replay = $scratch/trace.csv
pacing = $2
out_of_orderness = 50 ms
${3:-}
[keyby k]
input = t
parallelism = 2
[window w]
input = k
parallelism = 2
size = 100 ms
aggregates = count, sum
[sink out]
input = w
parallelism = 2
path = $1
CONF
}

awk -F, 'NR > 1 {
	ts = $2; ws = ts - ((ts % 100) + 100) % 100
	c[$3 "," ws] += 1; s[$3 "," ws] += $4
} END { for (k in c) { split(k, a, ","); print a[1] "," a[2] "," a[2] + 100 "," c[k] "," s[k] } }' \
	"$scratch/trace.csv" | sort >"$scratch/batch"

conf "$scratch/sim.csv" fast >"$scratch/sim.conf"
expect_status 0 "$WMRUN" --sim "$scratch/sim.conf"
tail -n +2 "$scratch/sim.csv" | cut -d, -f1-5 | sort >"$scratch/a"
cmp "$scratch/a" "$scratch/batch" || fail "--sim replay differs from the batch aggregation"

conf "$scratch/real.csv" event >"$scratch/real.conf"
expect_status 0 timeout 60 "$WMRUN" "$scratch/real.conf"
expect_line 'late, dropped +0$' "$scratch/err"
tail -n +2 "$scratch/real.csv" | cut -d, -f1-5 | sort >"$scratch/b"
cmp "$scratch/b" "$scratch/batch" || fail "real replay differs from the batch aggregation"

# A malformed line: exit 65 naming it; with skip, it is reported and the
# rest runs.
sed -i '101s/.*/2,12x34,5,1/' "$scratch/trace.csv"
expect_status 65 "$WMRUN" --sim "$scratch/sim.conf"
expect_line 'trace.csv:101: invalid timestamp' "$scratch/err"
expect_status 65 timeout 60 "$WMRUN" "$scratch/real.conf"
expect_line 'trace.csv:101: invalid timestamp' "$scratch/err"
conf "$scratch/skip.csv" fast "on_bad_record = skip" >"$scratch/skip.conf"
expect_status 0 "$WMRUN" --sim "$scratch/skip.conf"
expect_line 'trace.csv:101: skipped: invalid timestamp' "$scratch/err"
expect_line 'records read +3999$' "$scratch/err"
