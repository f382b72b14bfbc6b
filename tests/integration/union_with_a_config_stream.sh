#!/bin/sh
# Incident 6: a busy stream unioned with a configuration stream updated
# every 15 minutes, each source with its own idle timeout. With the config
# stream's idle timeout the windows fire seconds after their end; without
# it they wait for the next update, up to 15 minutes. Either way every
# record lands in the same window and none is late.
. "$srcdir/tests/lib/lib.sh"

conf="$EXAMPLES/union_config_stream.conf"
grep -q '^idle_timeout = 1 min' "$conf" || fail "the example lost its config idle timeout"
sed '/^idle_timeout = 1 min/d' "$conf" >"$scratch/no_idle.conf"

expect_status 0 "$WMRUN" --sim --summary "$scratch/idle.json" "$conf"
cp "$scratch/out" "$scratch/idle.csv"
expect_status 0 "$WMRUN" --sim --summary "$scratch/stuck.json" "$scratch/no_idle.conf"
cp "$scratch/out" "$scratch/stuck.csv"

end=$((4 * 3600000))
idle=$(max_fire_delay "$scratch/idle.csv" 0 $end)
stuck=$(max_fire_delay "$scratch/stuck.csv" 0 $end)
echo "max fire delay: with the config idle timeout ${idle} ms, without ${stuck} ms"
[ "$idle" -lt 60000 ] || fail "with the config idle timeout windows fired ${idle} ms late"
[ "$stuck" -gt 600000 ] && [ "$stuck" -le 900000 ] ||
	fail "without it windows fired at most ${stuck} ms late, expected 10 to 15 min"
for s in idle stuck; do
	expect_line '"late_records_dropped":0,' "$scratch/$s.json"
	expect_line '"all_records_accounted":true' "$scratch/$s.json"
done
# Both inputs read: 4 partitions x 5/s x 4 h, and 16 config updates.
expect_line '"records_read":288016,' "$scratch/idle.json"
cut -d, -f1-5 "$scratch/idle.csv" | sort >"$scratch/a"
cut -d, -f1-5 "$scratch/stuck.csv" | sort >"$scratch/b"
cmp -s "$scratch/a" "$scratch/b" || fail "window contents differ between the runs"
