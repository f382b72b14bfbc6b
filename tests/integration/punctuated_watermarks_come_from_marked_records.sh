#!/bin/sh
# examples/punctuated_watermarks.conf: watermark = punctuated with
# periodic emission off. Every window fires on a marker's timestamp (a
# marked record's: 2500 k - 50 ms for sensors 0-2, 25000 k - 50 for
# sensor 3) or at the end (MAX), never on anything periodic; sensor 3's
# seldom markers hold subtask 0 back, the summary says so, and marking it
# as often as the others takes the delay under one marker's spacing, by
# count or by event time (its first reading of each 2.5 s, at 2500 k). A
# real run gives the same results and fires on markers too. Its recording
# carries the marks in a punctuate column, and replaying it (watermark =
# punctuated over the trace) gives the same windows, fired on the same
# watermarks. (Flink agrees: flink_agrees_on_punctuated_watermarks.sh.)
#
# Combined, watermark = bounded, punctuated: on marks_lib.sh's trace a
# bound of 1 s makes exactly the 6 stragglers late, under --sim and in a
# real run, where the marks alone leave all but one on time; on the
# example, the bound pulls seldom-marked sensor 3 along: windows fire at
# most 6.2 s after their end instead of 24.95 s.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/marks_lib.sh"

# Absolute: the recording below is made from inside $scratch.
conf="$(cd "$EXAMPLES" && pwd)/punctuated_watermarks.conf"

# markers_only FILE: every result's watermark is a marker's or MAX.
markers_only() {
	awk -F, 'NR > 1 && $6 != 9223372036854775807 && ($6 + 50) % 2500 != 0 {
		print "window [" $2 ", " $3 ") fired at watermark " $6; bad = 1 }
		END { exit bad }' "$1" || fail "a window fired on no marker's timestamp"
}

expect_status 0 "$WMRUN" --sim --summary "$scratch/s.json" "$conf"
cp "$scratch/out" "$scratch/sim.csv"
expect_line '^  every record accounted  yes$' "$scratch/err"
expect_line '^  windows fired           480 \(0 late firings\)$' "$scratch/err"
markers_only "$scratch/sim.csv"
# Sensor 3 holds subtask 0 between its markers, 25 s apart.
expect_line '"fire_delay_ms":\{"p50":[0-9]+,"p99":[0-9]+,"max":24950\}' "$scratch/s.json"
expect_line 'partition sensors-3: records kept coming \(longest gap 50 ms\), its watermark behind$' "$scratch/err"

# Sensor 3 marked as often as the others: within one marker's spacing.
sed 's/^punctuate = 3 every 500 records.*/punctuate = 3 every 50 records/' \
	"$conf" >"$scratch/often.conf"
expect_status 0 "$WMRUN" --sim --summary "$scratch/s.json" "$scratch/often.conf"
expect_line '"fire_delay_ms":\{"p50":[0-9]+,"p99":[0-9]+,"max":2450\}' "$scratch/s.json"
expect_line '^    window  per_key        in 48000      out 480        watermark never stalled$' "$scratch/err"
cp "$scratch/out" "$scratch/often.csv"

# Or marked by event time: a marker per 2.5 s of it, each slot's first
# reading. The same windows; the watermarks at 2500 k, and the delay as
# above, which sensors 0-2 now bound.
sed 's/^punctuate = 3 every 500 records.*/punctuate = 3 every 2500 ms/' \
	"$conf" >"$scratch/slots.conf"
expect_status 0 "$WMRUN" --sim --summary "$scratch/s.json" "$scratch/slots.conf"
expect_line '"fire_delay_ms":\{"p50":[0-9]+,"p99":[0-9]+,"max":2450\}' "$scratch/s.json"
expect_line '^    window  per_key        in 48000      out 480        watermark never stalled$' "$scratch/err"
cut -d, -f1-4 "$scratch/often.csv" >"$scratch/often.windows"
cut -d, -f1-4 "$scratch/out" >"$scratch/slots.windows"
cmp -s "$scratch/often.windows" "$scratch/slots.windows" ||
	fail "marking by event time changed the windows' contents"
cd "$scratch"
expect_status 0 "$WMRUN" --sim --record-trace slots.csv slots.conf
awk -F, 'NR > 1 && $1 == 3 { want = $2 % 2500 == 0
	if ($6 != want) { print "line " NR ": ts " $2 ", punctuate " $6; bad = 1 }
	marks += $6 } END { exit bad || marks != 240 }' slots.csv ||
	fail "sensor 3 is not marked on the first reading of each 2.5 s"
cd - >/dev/null

# For real, 1000 times as fast: the paced generator makes the same
# records, so the same windows and counts; their watermarks are markers'.
sed 's/^seed = 5$/seed = 5\nspeed = 1000/' "$conf" >"$scratch/real.conf"
# On --sim's event-time origin (a real run's is the wall clock):
# the same windows.
expect_status 0 timeout 120 "$WMRUN" --set job.event_time_origin=0 --live=never "$scratch/real.conf"
expect_line '^  every record accounted  yes$' "$scratch/err"
markers_only "$scratch/out"
cut -d, -f1-4 "$scratch/sim.csv" | sort >"$scratch/sim.sorted"
cut -d, -f1-4 "$scratch/out" | sort >"$scratch/real.sorted"
diff -u "$scratch/sim.sorted" "$scratch/real.sorted" ||
	fail "the real run's windows differ from --sim's"

# The recording: a punctuate column, 1 on every 50th record of sensors
# 0-2 and every 500th of sensor 3, and the topology that replays it.
cd "$scratch"
expect_status 0 "$WMRUN" --sim --record-trace rec.csv "$conf"
head -n 1 rec.csv | grep -qx 'partition,timestamp,key,value,arrival,punctuate' ||
	fail "the recording has no punctuate column"
awk -F, 'NR > 1 { n[$1]++; want = n[$1] % ($1 == 3 ? 500 : 50) == 0
	if ($6 != want) { print "line " NR ": punctuate " $6; bad = 1 } }
	END { exit bad }' rec.csv || fail "the recording's marks are not the generator's"
[ -f rec.csv.conf ] || fail "no replay topology beside the recording"
expect_status 0 "$WMRUN" --sim rec.csv.conf
cmp "$scratch/out" "$scratch/sim.csv" || {
	diff "$scratch/sim.csv" "$scratch/out" | head >&2
	fail "replaying the recording gives other results"
}

# Combined with a bound: every straggler late, --sim and a real run alike.
combined_trace "$scratch/combined.csv"
combined_conf() {
	printf '[job]\nname = combined\nspeed = 10\n'
	printf '[source m]\npartitions = 2\nreplay = %s\npacing = arrival\n' \
		"$scratch/combined.csv"
	printf 'watermark = %s\nout_of_orderness = 1 s\n' "$1"
	printf '[window w]\ninput = m\nsize = 2 s\nlate_output = %s\n' "$2"
	printf '[sink out]\ninput = w\npath = %s\n' "$scratch/combined.out"
}
combined_conf 'bounded, punctuated' "$scratch/combined.late" >"$scratch/combined.conf"
expect_status 0 "$WMRUN" --sim "$scratch/combined.conf"
expect_line "^  late, side output       $stragglers\$" "$scratch/err"
cp "$scratch/combined.out" "$scratch/combined.sim"
awk -F, 'NR > 1 && $1 == 1 && $2 - $5 < 29000' "$scratch/combined.csv" | cut -d, -f1-4 >"$scratch/want.late"
tail -n +2 "$scratch/combined.late" | cut -d, -f1-4 >"$scratch/got.late"
cmp -s "$scratch/want.late" "$scratch/got.late" ||
	{ diff "$scratch/want.late" "$scratch/got.late" >&2; fail "the late records are not the stragglers"; }
# On --sim's event-time origin (a real run's is the wall clock):
# the same windows.
expect_status 0 timeout 120 "$WMRUN" --set job.event_time_origin=0 --live=never "$scratch/combined.conf"
expect_line "^  late, side output       $stragglers\$" "$scratch/err"
cut -d, -f1-4 "$scratch/combined.sim" | sort >"$scratch/combined.sim.sorted"
cut -d, -f1-4 "$scratch/combined.out" | sort >"$scratch/combined.real.sorted"
diff -u "$scratch/combined.sim.sorted" "$scratch/combined.real.sorted" ||
	fail "the combined generator's real run differs from --sim"
# The marks alone: the last straggler only (after partition 1's mark);
# the bound alone: every one, but no window fires on a mark.
combined_conf punctuated "$scratch/marks.late" | grep -v '^out_of_orderness' >"$scratch/marks.conf"
expect_status 0 "$WMRUN" --sim "$scratch/marks.conf"
expect_line '^  late, side output       1$' "$scratch/err"

# The example, combined with a 5 s bound: sensor 3's seldom markers no
# longer hold its subtask for 25 s, the bound's periodic watermark pulls
# it along (5 s and a tick behind its newest reading).
sed -e 's/^watermark = punctuated$/watermark = bounded, punctuated\nout_of_orderness = 5 s/' \
	-e 's/^watermark_interval = 0 ms.*//' "$conf" >"$scratch/both.conf"
expect_status 0 "$WMRUN" --sim --summary "$scratch/s.json" "$scratch/both.conf"
expect_line '^  every record accounted  yes$' "$scratch/err"
expect_line '"fire_delay_ms":\{"p50":[0-9]+,"p99":[0-9]+,"max":6200\}' "$scratch/s.json"
exit 0
