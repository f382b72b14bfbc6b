#!/bin/sh
# pacing = event releases a partition's records in file order: a record
# whose timestamp is behind the one above it comes right after that one,
# so the disorder of the trace stays, and a record recorded late is late
# (here: to the late side output), in --sim and in a real run alike. The
# records used to be sorted by timestamp, which hid it.
. "$srcdir/tests/lib/lib.sh"

# Partition 0 reads 1000, 3000, 5000, then 1100: due 2 s after 3000, and
# so after the watermark 3000 - 50 - 1 went out, 1100 is late for its
# window. Speed 1 leaves 2 s between those, so that a loaded machine
# does not release them in one burst. Partition 1 keeps the subtask's
# watermark from running ahead of partition 0 (and is late for nothing).
cat >"$scratch/trace.csv" <<TRACE
partition,timestamp,key,value
0,1000,1,1
1,1000,2,2
0,3000,1,3
1,3000,2,4
0,5000,1,5
1,5000,2,6
0,1100,1,7
TRACE

conf() { # conf NAME -- results to NAME.csv, late records to NAME.late
	cat <<CONF
[job]
name = event-pacing
speed = 1
[source t]
parallelism = 2
partitions = 2
replay = $scratch/trace.csv
pacing = event
out_of_orderness = 50 ms
watermark_interval = 100 ms
[window w]
input = t
size = 100 ms
aggregates = count, sum
late_output = $scratch/$1.late
[sink out]
input = w
path = $scratch/$1.csv
CONF
}

conf sim >"$scratch/sim.conf"
expect_status 0 "$WMRUN" --sim "$scratch/sim.conf"
expect_line '^  records read +7$' "$scratch/err"
expect_line '^  late, side output +1$' "$scratch/err"
expect_line '^0,1100,1,7$' "$scratch/sim.late"

conf real >"$scratch/real.conf"
expect_status 0 timeout 60 "$WMRUN" "$scratch/real.conf"
expect_line '^  records read +7$' "$scratch/err"
expect_line '^  late, side output +1$' "$scratch/err"
cmp "$scratch/sim.late" "$scratch/real.late" ||
	fail "the real run's late records differ from --sim's"
cut -d, -f1-5 "$scratch/sim.csv" | sort >"$scratch/a"
cut -d, -f1-5 "$scratch/real.csv" | sort >"$scratch/b"
[ "$(wc -l <"$scratch/a")" -eq 7 ] ||
	fail "expected a header and 6 windows, got $(wc -l <"$scratch/a") lines"
cmp "$scratch/a" "$scratch/b" ||
	fail "the real run's windows differ from --sim's"
echo ok
