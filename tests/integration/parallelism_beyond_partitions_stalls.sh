#!/bin/sh
# Incident 2: 6 partitions, two sparse, an unbounded source. At
# parallelism 2 the windows fire within a minute; at 8, two subtasks own
# no partition and, without an idle timeout, hold every window until the
# job is stopped; an idle timeout lets them go idle and the windows fire
# again. The window contents are the same in all three runs.
. "$srcdir/tests/lib/lib.sh"

conf="$EXAMPLES/parallelism_beyond_partitions.conf"
grep -q '^parallelism = 2$' "$conf" || fail "the example's parallelism line moved"
sed '0,/^parallelism = 2$/s//parallelism = 8/' "$conf" >"$scratch/p8.conf"
sed 's/^out_of_orderness = 5 s$/&\nidle_timeout = 30 s/' "$scratch/p8.conf" >"$scratch/p8idle.conf"
grep -q '^idle_timeout = 30 s' "$scratch/p8idle.conf" || fail "could not add an idle timeout"

expect_status 0 "$WMRUN" --sim "$conf"
cp "$scratch/out" "$scratch/p2.csv"
expect_status 0 "$WMRUN" --sim --summary "$scratch/p8.json" "$scratch/p8.conf"
cp "$scratch/out" "$scratch/p8.csv"
expect_status 0 "$WMRUN" --sim "$scratch/p8idle.conf"
cp "$scratch/out" "$scratch/p8idle.csv"

end=7200000
p2=$(max_fire_delay "$scratch/p2.csv" 0 $end)
p8idle=$(max_fire_delay "$scratch/p8idle.csv" 0 $end)
# Fire times of windows that ended in the first hour.
first_p8=$(awk -F, 'NR > 1 && $3 <= 3600000 { if (m == "" || $6 < m) m = $6 } END { print m + 0 }' "$scratch/p8.csv")
echo "max fire delay: p2 ${p2} ms, p8 with idle timeout ${p8idle} ms; p8 fires its first-hour windows at ${first_p8} ms"
[ "$p2" -lt 120000 ] || fail "at parallelism 2 windows fired ${p2} ms late"
[ "$first_p8" -ge $end ] || fail "at parallelism 8 a window fired at ${first_p8} ms, before the job was stopped"
[ "$p8idle" -lt 120000 ] || fail "at parallelism 8 with idleness windows fired ${p8idle} ms late"
# The summary blames a source subtask stalled for the whole run.
expect_line '"kind":"source","parallelism":8,' "$scratch/p8.json"
sed 's/"kind":"window".*//' "$scratch/p8.json" | grep -q '"longest_stall_ms":7200000' ||
	fail "no source subtask of p8 stalled for the whole run"
for r in p8 p8idle; do
	cut -d, -f1-5 "$scratch/p2.csv" | sort >"$scratch/a"
	cut -d, -f1-5 "$scratch/$r.csv" | sort >"$scratch/b"
	cmp -s "$scratch/a" "$scratch/b" || fail "window contents differ between p2 and $r"
done
