#!/bin/sh
# examples/carried_watermarks.conf: a change-data-capture feed whose every
# 10th record carries the feed's low watermark in the trace's watermark
# column, replayed with watermark = punctuated and periodic emission off.
# Every window fires on a carried watermark (or at the end, MAX), and no
# change is late. A bound guessed instead of the feed's word loses the
# changes of long transactions (5 s: 353 of 1200 late) or makes every
# window wait (22 s: none late, but the windows fire 5.0 s later on
# average than on the carried watermarks). A real run gives the same
# windows; the trace as JSON lines, with nulls for the records that carry
# none, the same results; the recording carries the watermark column and
# replays to the same results byte for byte. (Flink agrees:
# flink_agrees_on_kafka_marks.sh, over a topic and over a recording.)
. "$srcdir/tests/lib/lib.sh"

# Absolute, with its trace: the runs below are made from inside $scratch.
sed "s|^replay = |replay = $(cd "$EXAMPLES" && pwd)/|" \
	"$EXAMPLES/carried_watermarks.conf" >"$scratch/carried.conf"
trace="$(cd "$EXAMPLES" && pwd)/cdc_orders.csv"

expect_status 0 "$WMRUN" --sim "$scratch/carried.conf"
expect_line '^  every record accounted  yes$' "$scratch/err"
expect_line '^  records read            1200$' "$scratch/err"
expect_line '^  late, side output       0$' "$scratch/err"
expect_line '^  windows fired           305 \(0 late firings\)$' "$scratch/err"
# The results alone (the late output's header and lines go first).
grep '^[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,\(true\|false\)$' \
	"$scratch/out" >"$scratch/sim.csv"
[ "$(wc -l <"$scratch/sim.csv")" -eq 305 ] || fail "not 305 results"
# Every window fired on a watermark the trace carries, or at the end.
awk -F, 'NR == FNR { if (FNR > 7 && $8 != "") carried[$8] = 1; next }
	$7 != 9223372036854775807 && !($7 in carried) {
		print "window [" $2 ", " $3 ") fired at watermark " $7; bad = 1 }
	END { exit bad }' "$trace" "$scratch/sim.csv" ||
	fail "a window fired on a watermark the trace does not carry"
# All but the 12 windows after the last carried watermark fire on one.
[ "$(grep -vc ',9223372036854775807,false$' "$scratch/sim.csv")" -eq 293 ] ||
	fail "not 293 windows fired before the end on the carried watermarks"

# bounded CONF BOUND: the job with a guessed bound instead.
bounded() {
	sed "s/^watermark = punctuated/watermark = bounded\nout_of_orderness = $2/
		s/^watermark_interval = 0 ms.*/watermark_interval = 200 ms/" \
		"$scratch/carried.conf" >"$scratch/$1.conf"
	expect_status 0 "$WMRUN" --sim "$scratch/$1.conf"
	expect_line '^  every record accounted  yes$' "$scratch/err"
	cp "$scratch/out" "$scratch/$1.out"
}
bounded short '5 s'
expect_line '^  late, side output       353$' "$scratch/err"
bounded safe '22 s'
expect_line '^  late, side output       0$' "$scratch/err"
# Window by window, how much later the safe bound fires them (ms of
# processing time): 5037 on average.
later=$(join -t, \
	<(awk -F, 'NF == 8 && $8 ~ /^(true|false)$/ { print $1 "|" $2 "," $6 }' "$scratch/sim.csv" | sort) \
	<(awk -F, 'NF == 8 && $8 ~ /^(true|false)$/ { print $1 "|" $2 "," $6 }' "$scratch/safe.out" | sort) |
	awk -F, '{ d += $3 - $2; n++ } END { if (n != 305) exit 1; printf "%.0f", d / n }') ||
	fail "the safe bound fired other windows"
[ "$later" -eq 5037 ] || fail "the safe bound fires windows $later ms later on average, not 5037"

# For real, 1000 times as fast: the same windows, none late.
sed 's/^name = carried-watermarks$/name = carried-watermarks\nspeed = 1000/' \
	"$scratch/carried.conf" >"$scratch/real.conf"
expect_status 0 timeout 120 "$WMRUN" --live=never "$scratch/real.conf"
expect_line '^  every record accounted  yes$' "$scratch/err"
expect_line '^  late, side output       0$' "$scratch/err"
cut -d, -f1-5 "$scratch/sim.csv" | sort >"$scratch/a"
grep '^[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,\(true\|false\)$' \
	"$scratch/out" | cut -d, -f1-5 | sort >"$scratch/b"
diff -u "$scratch/a" "$scratch/b" || fail "the real run's windows differ from --sim's"

# The same trace as JSON lines, null where a record carries none.
awk -F, 'NR > 7 { printf "{\"partition\":%s,\"timestamp\":%s,\"key\":%s,\"value\":%s,\"arrival\":%s,\"watermark\":%s}\n",
	$1, $2, $3, $4, $5, $8 == "" ? "null" : $8 }' "$trace" >"$scratch/orders.jsonl"
sed "s|^replay = .*|replay = $scratch/orders.jsonl|" "$scratch/carried.conf" >"$scratch/json.conf"
expect_status 0 "$WMRUN" --sim "$scratch/json.conf"
grep '^[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,[0-9]*,\(true\|false\)$' \
	"$scratch/out" >"$scratch/json.csv"
cmp "$scratch/sim.csv" "$scratch/json.csv" || fail "the JSON trace gives other results"

# The recording carries the watermark column and replays to the same.
cd "$scratch"
expect_status 0 "$WMRUN" --sim --record-trace rec.csv carried.conf
head -n 1 rec.csv |
	grep -qx 'partition,timestamp,key,value,arrival,punctuate,heartbeat,watermark' ||
	fail "the recording has no watermark column"
tail -n +8 "$trace" | cut -d, -f8 | grep -v '^$' | sort >carried.want
tail -n +2 rec.csv | cut -d, -f8 | grep -v '^$' | sort >carried.got
cmp carried.want carried.got || fail "the recording's watermarks are not the trace's"
cp out first.out
expect_status 0 "$WMRUN" --sim rec.csv.conf
cmp first.out out || fail "the replayed recording's results differ"
exit 0
