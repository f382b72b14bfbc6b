#!/bin/sh
# A real run (one pinned process per subtask, shared-memory rings, the
# monotonic clock times the job's speed) puts the same records in the same
# windows as --sim when no record is late: the synthetic source stamps each
# record with its scheduled arrival, not with when it was generated. Its
# event time starts on the wall clock (event_time_origin = start), rounded
# down to a multiple of the window size, and --sim's at 0: the windows are
# --sim's shifted by that origin, which lies between the run's start and
# its end.
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

before=$(date +%s%3N)
expect_status 0 timeout 60 "$WMRUN" --summary "$scratch/real.json" "$scratch/job.conf"
after=$(date +%s%3N)
expect_line 'every record accounted  yes' "$scratch/err"
expect_line '"records_read":48000,' "$scratch/real.json"
expect_status 0 "$WMRUN" --sim "$scratch/sim.conf"
# The origin: the earliest window's start less --sim's (which holds the
# records stamped up to 1 s before the origin).
earliest() {
	awk -F, 'NR > 1 && (min == "" || $2 < min) { min = $2 } END { print min }' "$1"
}
origin=$(($(earliest "$scratch/real.csv") - $(earliest "$scratch/sim.csv")))
[ $((origin % 10000)) -eq 0 ] || fail "origin $origin is no multiple of the window size"
[ "$origin" -ge $((before - before % 10000)) ] && [ "$origin" -le "$after" ] ||
	fail "origin $origin is not the start ($before to $after) rounded down"
awk -F, -v OFS=, -v o="$origin" 'NR > 1 { print $1, $2 - o, $3 - o, $4, $5 }' \
	"$scratch/real.csv" | sort >"$scratch/a"
cut -d, -f1-5 "$scratch/sim.csv" | sed 1d | sort >"$scratch/b"
[ "$(wc -l <"$scratch/a")" -gt 100 ] || fail "too few results: $(wc -l <"$scratch/a")"
cmp "$scratch/a" "$scratch/b" || fail "real and simulated runs put records in different windows"
