#!/bin/sh
# A replayed trace costs the same per line whatever the source's partition
# count: a subtask owning 65536 partitions used to look through all of them
# for every line read and every record released, so that 100,000 lines of
# its last partition took 17 s of CPU (minutes for a real trace) instead
# of a fraction of one.
. "$srcdir/tests/lib/lib.sh"

awk 'BEGIN { for (i = 0; i < 100000; i++) print "65535," i ",1,1" }' \
	>"$scratch/trace.csv"
cat >"$scratch/job.conf" <<CONF
[job]
name = many-partitions
[source t]
parallelism = 1
partitions = 65536
replay = $scratch/trace.csv
[window w]
input = t
parallelism = 1
size = 1 s
aggregates = count
[sink out]
input = w
path = $scratch/results.csv
CONF
expect_status 0 timeout 10 "$WMRUN" --sim "$scratch/job.conf"
expect_line '^  records read +100000$' "$scratch/err"
[ "$(wc -l <"$scratch/results.csv")" -eq 101 ] ||
	fail "expected a header and 100 windows in results.csv"
