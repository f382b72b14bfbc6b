#!/bin/sh
# examples/heartbeats.conf: the quiet-partition incident with heartbeats
# on partitions 12-15 every 5 s and no idle timeout. The night's silence
# stalls nothing: every window fires within 10 s of its end (its 5 s
# bound and one heartbeat's spacing), no watermark stalls, no partition
# goes idle; the heartbeats are counted apart (4 partitions, one every
# 5 s of the 12 h, none at the end: 34,556) and the records and windows
# are the data's alone. Without them the night stalls every window for
# 8 h. The results are the same either way, but for when they fired. A
# real run gives the same windows and heartbeats; its recording carries a
# heartbeat column, and replaying it gives the --sim results byte for
# byte, and records the heartbeats again. (Flink agrees:
# flink_agrees_on_heartbeats.sh.)
. "$srcdir/tests/lib/lib.sh"

# Absolute: the recording below is made from inside $scratch.
conf="$(cd "$EXAMPLES" && pwd)/heartbeats.conf"

expect_status 0 "$WMRUN" --sim --summary "$scratch/sim.json" "$conf"
cp "$scratch/out" "$scratch/sim.csv"
expect_line '^  every record accounted  yes$' "$scratch/err"
expect_line '^  records read            604800$' "$scratch/err"
expect_line '^  heartbeats, dropped     34556 ' "$scratch/err"
expect_line '"fire_delay_ms":\{"p50":[0-9]+,"p99":[0-9]+,"max":10000\}' "$scratch/sim.json"
expect_line '^    window  counts         in 604800     out 584        watermark never stalled$' "$scratch/err"
expect_line '^  partitions              16, 0 stalled or idle, 0 idle/active transitions$' "$scratch/err"
grep -q '"records_read":604800,"bad_records_skipped":0,"heartbeats":34556,' \
	"$scratch/sim.json" || fail "the JSON summary does not count the heartbeats apart"

# Without heartbeats: the night stalls every window.
grep -v '^heartbeat = ' "$conf" >"$scratch/none.conf"
expect_status 0 "$WMRUN" --sim --summary "$scratch/none.json" "$scratch/none.conf"
expect_line '"fire_delay_ms":\{"p50":[0-9]+,"p99":[0-9]+,"max":2880[0-9]{4}\}' "$scratch/none.json"
if grep -q '^  heartbeats' "$scratch/err"; then
	fail "a source without heartbeats counted some"
fi
cut -d, -f1-5 "$scratch/sim.csv" | sort >"$scratch/a"
cut -d, -f1-5 "$scratch/out" | sort >"$scratch/b"
diff -u "$scratch/a" "$scratch/b" ||
	fail "heartbeats changed the windows' contents"

# For real, 20 times as fast as the example (40,000x): the same windows.
sed 's/^speed = 2000 /speed = 40000 /' "$conf" >"$scratch/real.conf"
# On --sim's event-time origin (a real run's is the wall clock):
# the same windows.
expect_status 0 timeout 120 "$WMRUN" --set job.event_time_origin=0 --live=never "$scratch/real.conf"
expect_line '^  every record accounted  yes$' "$scratch/err"
expect_line '^  heartbeats, dropped     34556 ' "$scratch/err"
cut -d, -f1-5 "$scratch/out" | sort >"$scratch/real"
diff -u "$scratch/a" "$scratch/real" || fail "the real run's windows differ from --sim's"

# The recording's heartbeat column replays to the same results.
cd "$scratch"
expect_status 0 "$WMRUN" --sim --record-trace rec.csv "$conf"
head -n 1 rec.csv | grep -qx 'partition,timestamp,key,value,arrival,punctuate,heartbeat' ||
	fail "the recording has no heartbeat column"
[ "$(grep -c ',0,1$' rec.csv)" -eq 34556 ] ||
	fail "the recording does not hold every heartbeat"
expect_status 0 "$WMRUN" --sim --record-trace again.csv rec.csv.conf
cmp sim.csv out || fail "the replayed recording's results differ"
expect_line '^  heartbeats, dropped     34556 ' "$scratch/err"
# Recorded again from the replay: the trace's heartbeats keep their column.
head -n 1 again.csv | grep -qx 'partition,timestamp,key,value,arrival,punctuate,heartbeat' ||
	fail "the recording of a replay lost the heartbeat column"
[ "$(grep -c ',0,1$' again.csv)" -eq 34556 ] ||
	fail "the recording of a replay does not hold every heartbeat"
exit 0
