#!/bin/sh
# A real run (one pinned process per subtask, shared-memory rings, the
# monotonic clock times the job's speed) puts the same records in the same
# windows as --sim when no record is late: the synthetic source stamps each
# record with its scheduled arrival, not with when it was generated.
. "$srcdir/tests/lib/lib.sh"

cat >"$scratch/job.conf" <<CONF
[job]
name = real-vs-sim
event_time = 2 min
speed = 60
seed = 7
[source s]
parallelism = 2
partitions = 4
rate = 100/s
out_of_orderness = 1 s
keys = 10
[keyby k]
input = s
parallelism = 3
[window w]
input = k
parallelism = 2
size = 10 s
aggregates = count, sum
[sink out]
input = w
parallelism = 2
path = $scratch/real.csv
CONF
sed "s#$scratch/real.csv#$scratch/sim.csv#" "$scratch/job.conf" >"$scratch/sim.conf"

expect_status 0 timeout 60 "$WMRUN" --summary "$scratch/real.json" "$scratch/job.conf"
expect_line 'every record accounted  yes' "$scratch/err"
expect_line '"records_read":48000,' "$scratch/real.json"
expect_status 0 "$WMRUN" --sim "$scratch/sim.conf"
cut -d, -f1-5 "$scratch/real.csv" | sort >"$scratch/a"
cut -d, -f1-5 "$scratch/sim.csv" | sort >"$scratch/b"
[ "$(wc -l <"$scratch/a")" -gt 100 ] || fail "too few results: $(wc -l <"$scratch/a")"
cmp "$scratch/a" "$scratch/b" || fail "real and simulated runs put records in different windows"
