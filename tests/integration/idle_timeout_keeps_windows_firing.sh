#!/bin/sh
# Incident 1: 16 partitions, 3 silent from 1 h to 9 h. Without an idle
# timeout the windows of the night fire only when the partitions return
# (hours late); with idle_timeout = 30 s they keep firing within seconds.
. "$srcdir/tests/lib/lib.sh"

expect_status 0 "$WMRUN" --sim "$EXAMPLES/quiet_partitions.conf"
cp "$scratch/out" "$scratch/idle.csv"
expect_status 0 "$WMRUN" --sim "$EXAMPLES/quiet_partitions_no_idleness.conf"
cp "$scratch/out" "$scratch/stuck.csv"

# Windows that start after the silence began (plus the idle timeout and
# the 10-minute window) and end before it is over.
from=$((1 * 3600000 + 600000))
to=$((9 * 3600000 - 600000))
idle=$(max_fire_delay "$scratch/idle.csv" $from $to)
stuck=$(max_fire_delay "$scratch/stuck.csv" $from $to)
echo "max fire delay during the silence: with idle timeout ${idle} ms, without ${stuck} ms"
[ "$idle" -gt 0 ] || fail "no window fired during the silence with the idle timeout"
[ "$idle" -lt 60000 ] || fail "with idle_timeout = 30 s windows fired ${idle} ms late"
[ "$stuck" -gt 3600000 ] || fail "without idleness windows fired only ${stuck} ms late"
# Same records, same windows: only the timing differs.
cut -d, -f1-5 "$scratch/idle.csv" | sort >"$scratch/a"
cut -d, -f1-5 "$scratch/stuck.csv" | sort >"$scratch/b"
cmp -s "$scratch/a" "$scratch/b" || fail "window contents differ between the runs"
