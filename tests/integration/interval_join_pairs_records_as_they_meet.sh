#!/bin/sh
# An interval join ([join] between = LOWER, UPPER) pairs every left record
# with every right record of its key that lies within [left + LOWER, left
# + UPPER], under --sim and in a real run, as a brute-force join of the
# two traces says; records late for the join's watermark (the lower of
# its two inputs') join nothing and are counted per side; every record is
# accounted for, across a crash too; and bad [join] keys are refused at
# their line and column with exit 78.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/join_lib.sh"

# The traces of join_lib.sh, the clicks 7 ms after their arrival: odd
# distances from every impression, so that no click is ever exactly LOWER
# or UPPER from one, where whether a pair is made depends on when the
# cleanup timer fired (doc/semantics.md section 15.1).
join_traces 7

conf() { # conf PATH SPEED
	cat <<CONF
[job]
name = attribution
speed = $2
CONF
	join_sources
	cat <<CONF
[join attributed]
left = impressions
right = clicks
between = -1 s, 500 ms
parallelism = 2
[sink pairs]
input = attributed
path = $1
CONF
}

# The pairs, by brute force: every on-time click r and impression l of
# one key with -1000 <= r - l <= 500; key, the pair's timestamp (the
# later one), both timestamps and both values.
awk -F, 'FNR == 1 { file++; next }
file == 1 { n++; lk[n] = $3; lt[n] = $2; lv[n] = $4; next }
$2 >= $5 - 1000 {
	for (i = 1; i <= n; i++) {
		d = $2 - lt[i]
		if (lk[i] == $3 && d >= -1000 && d <= 500)
			printf "%d,%d,%d,%d,%d,%d\n", $3, ($2 > lt[i] ? $2 : lt[i]),
				lt[i], $2, lv[i], $4
	}
}' "$scratch/impressions.csv" "$scratch/clicks.csv" | LC_ALL=C sort \
	>"$scratch/want"
pairs=$(wc -l <"$scratch/want")
[ "$pairs" -gt 500 ] || fail "only $pairs pairs: the traces meet too little"

check() { # check RUN: its pairs and summary are the brute force's
	[ "$(head -n 1 "$scratch/$1.csv")" = \
		"key,timestamp,left_timestamp,right_timestamp,left_value,right_value,fire_time,watermark" ] ||
		fail "$1: the sink's header is $(head -n 1 "$scratch/$1.csv")"
	tail -n +2 "$scratch/$1.csv" | cut -d, -f1-6 | LC_ALL=C sort \
		>"$scratch/$1.got"
	diff -u "$scratch/want" "$scratch/$1.got" >"$scratch/$1.diff" ||
		{ head -20 "$scratch/$1.diff"; fail "$1: the pairs differ from a brute-force join"; }
	expect_line "^  into joins +1900 \(left 1500, right 400\)$" "$scratch/err"
	expect_line "^  join late, dropped +$late \(left 0, right $late\)$" "$scratch/err"
	expect_line "^  pairs written +$pairs$" "$scratch/err"
	expect_line "^  join buffers at the end +0 records$" "$scratch/err"
	expect_line '^  every record accounted +yes$' "$scratch/err"
	expect_line '^    join +attributed +in 1900 +out '"$pairs"' ' "$scratch/err"
}

conf "$scratch/sim.csv" 20 >"$scratch/sim.conf"
expect_status 0 "$WMRUN" --sim "$scratch/sim.conf"
check sim
conf "$scratch/real.csv" 20 >"$scratch/real.conf"
expect_status 0 timeout 120 "$WMRUN" --quiet "$scratch/real.conf"
check real

# Each side's late records to its late output (Flink's
# sideOutputLeftLateData and sideOutputRightLateData): the late clicks,
# exactly, as trace lines, none of the impressions; the same pairs; under
# --sim, in a real run, and across a crash with checkpoints (the late
# output's parts are exactly-once as a window's).
awk -F, 'NR > 1 && $2 < $5 - 1000 { print $1 "," $2 "," $3 "," $4 }' \
	"$scratch/clicks.csv" | LC_ALL=C sort >"$scratch/late.want"
for run in late_sim late_real late_crash; do
	conf "$scratch/$run.csv" 20 |
		sed "s|^between = .*|&\nleft_late = $scratch/$run.left\nright_late = $scratch/$run.right|" \
			>"$scratch/$run.conf"
done
sed -i "s|^speed = 20|&\ncheckpoint_interval = 5 s\ncheckpoint_dir = $scratch/ck\nfail_at = 37 s|" \
	"$scratch/late_crash.conf"
expect_status 0 "$WMRUN" --sim "$scratch/late_sim.conf"
expect_status 0 timeout 120 "$WMRUN" --quiet "$scratch/late_real.conf"
mv "$scratch/err" "$scratch/late_real.err"
expect_status 0 "$WMRUN" --sim "$scratch/late_crash.conf"
expect_line '^    records replayed ' "$scratch/err"
for run in late_sim late_real late_crash; do
	[ "$(cat "$scratch/$run.left")" = "partition,timestamp,key,value" ] ||
		fail "$run: an impression went to the left late output"
	[ "$(head -n 1 "$scratch/$run.right")" = "partition,timestamp,key,value" ] ||
		fail "$run: the right late output has no header"
	tail -n +2 "$scratch/$run.right" | LC_ALL=C sort >"$scratch/$run.late"
	cmp -s "$scratch/late.want" "$scratch/$run.late" ||
		fail "$run: the right late output is not the late clicks"
	tail -n +2 "$scratch/$run.csv" | cut -d, -f1-6 | LC_ALL=C sort |
		cmp -s "$scratch/want" - || fail "$run: the pairs changed"
done
expect_line "^  join late, dropped +0 \(left 0, right 0\)$" "$scratch/late_real.err"
expect_line "^  join late, side output +$late \(left 0, right $late\)$" "$scratch/late_real.err"
expect_line '^  every record accounted +yes$' "$scratch/late_real.err"
# One file for both sides, or for a late output and a sink, is refused.
sed "s|^right_late = .*|right_late = $scratch/late_sim.left|" \
	"$scratch/late_sim.conf" >"$scratch/one.conf"
expect_status 78 "$WMRUN" --check "$scratch/one.conf"
expect_line 'one.conf:19:14: invalid value for "right_late" in \[join attributed\]: ".*late_sim.left" is also the left_late of join "attributed" \(line 18\)' "$scratch/err"

# --check names the sides; the sink is chained to the join.
expect_status 0 "$WMRUN" --check "$scratch/sim.conf"
expect_line '^  join +attributed +parallelism 2, max parallelism 128, left hash from "impressions", right hash from "clicks"$' "$scratch/out"
expect_line '^  sink +pairs .*\(chained to its join\)$' "$scratch/out"

# Bad keys, each at its line and column, exit 78.
bad() { # bad NAME SED-SCRIPT EXPECTED-LINE
	sed "$2" "$scratch/sim.conf" >"$scratch/$1.conf"
	expect_status 78 "$WMRUN" --check "$scratch/$1.conf"
	expect_line "$3" "$scratch/err"
}
bad between-order 's/^between = .*/between = 2 s, -1 s/' \
	'between-order.conf:17:11: invalid value for "between" in \[join attributed\]: the lower bound \(2000 ms\) is above the upper bound \(-1000 ms\)'
bad between-one 's/^between = .*/between = 5 s/' \
	'between-one.conf:17:11: invalid value for "between" in \[join attributed\]: expected two durations, LOWER, UPPER'
bad between-unit 's/^between = .*/between = -1 s, 5 parsecs/' \
	'between-unit.conf:17:17: invalid value for "between" in \[join attributed\]: '
bad between-missing '/^between = /d' \
	'between-missing.conf:14:1: \[join attributed\] needs between = LOWER, UPPER \(an interval join\) or window'
bad right-missing '/^right = /d' \
	'right-missing.conf:14:1: .*"right"'
bad self 's/^right = .*/right = impressions/' \
	'self.conf:16:9: invalid value for "right" in \[join attributed\]: "impressions" is the left side already'
bad two 's/^left = .*/left = impressions, clicks/' \
	'two.conf:15:8: invalid value for "left" in \[join attributed\]: names one stage'
bad no-stage 's/^left = .*/left = impresions/' \
	'no-stage.conf:15:8: invalid value for "left" in \[join attributed\]: no stage named "impresions" \(did you mean "impressions"\?\)'
bad input '/^left = /a input = clicks' \
	'input.conf:16:1: unrecognized key "input" in \[join attributed\]'
# The pairs as records into a window (value = sum): each key's pairs of
# each second counted and their left and right values summed, as the
# pairs the join wrote say, under --sim and in a real run; every record
# accounted, the pairs as the window's input.
for run in feed_sim feed_real; do
	conf "$scratch/$run.csv" 20 |
		sed 's/^between = .*/&\nvalue = sum/' >"$scratch/$run.conf"
	printf '[window w]\ninput = attributed\nparallelism = 3\n' \
		>>"$scratch/$run.conf"
	printf 'size = 1 s\naggregates = count, sum\n' >>"$scratch/$run.conf"
	printf '[sink counts]\ninput = w\npath = %s\n' "$scratch/$run.w" \
		>>"$scratch/$run.conf"
done
expect_status 0 "$WMRUN" --sim "$scratch/feed_sim.conf"
expect_line "^  into windows +$pairs$" "$scratch/err"
expect_line '^  every record accounted +yes$' "$scratch/err"
expect_status 0 timeout 120 "$WMRUN" --quiet "$scratch/feed_real.conf"
expect_line "^  into windows +$pairs$" "$scratch/err"
awk -F, '{ w = $2 - $2 % 1000; c[$1 "," w]++; s[$1 "," w] += $5 + $6 }
END { for (k in c) print k "," c[k] "," s[k] }' "$scratch/want" |
	LC_ALL=C sort >"$scratch/feed.want"
for run in feed_sim feed_real; do
	awk -F, 'NR > 1 { print $1 "," $2 "," $4 "," $5 }' "$scratch/$run.w" |
		LC_ALL=C sort | cmp -s "$scratch/feed.want" - ||
		fail "$run: the window over the pairs differs from counting them"
done
# The export writes Flink's intervalJoin with the bounds as given
# (flink_agrees_on_interval_joins.sh runs it).
conf "$scratch/x.csv" 20 >"$scratch/x.conf"
expect_status 0 "$WMRUN" --export-flink "$scratch/export" "$scratch/x.conf"
expect_line '^            .intervalJoin\(source1.keyBy\(new TraceRecord.Key\(\)\)\)$' \
	"$scratch/export/src/main/java/wmrun/flink/Job.java"
expect_line '^            .between\(Duration.ofMillis\(-1000\), Duration.ofMillis\(500\)\)$' \
	"$scratch/export/src/main/java/wmrun/flink/Job.java"

# The example: an outage of a clicks partition holds the join's
# watermark 20 minutes, and the summary says which partition; the
# backlog is on time and pairs. With an idle timeout on the clicks the
# watermark moves on, the backlog is late, and it pairs with nothing.
expect_status 0 "$WMRUN" --sim "$EXAMPLES/interval_join_clicks.conf"
expect_line '^  join late, dropped +0 \(left 0, right 0\)$' "$scratch/err"
expect_line '^    join attributed/0 waited 20 min 0 s on clicks/0, partition clicks-1: silent 20 min' "$scratch/err"
expect_line '^  every record accounted +yes$' "$scratch/err"
held=$(sed -n 's/^  pairs written *//p' "$scratch/err")
sed 's/^outage = .*/&\nidle_timeout = 1 min/' "$EXAMPLES/interval_join_clicks.conf" \
	>"$scratch/idle.conf"
expect_status 0 "$WMRUN" --sim "$scratch/idle.conf"
expect_line '^  join late, dropped +[1-9][0-9]* \(left 0, right [1-9][0-9]*\)$' "$scratch/err"
expect_line '^  every record accounted +yes$' "$scratch/err"
idle=$(sed -n 's/^  pairs written *//p' "$scratch/err")
[ "$idle" -lt "$held" ] ||
	fail "with the idle timeout $idle pairs, not fewer than $held"

# A crash at 70 min, under --sim and in a real run (a join worker killed):
# restored from the checkpoint of its buffers and timers, the job writes
# exactly the pairs of a run without one.
for run in sim real; do
	sed -e "s|^seed = 11|&\ncheckpoint_interval = 10 min\ncheckpoint_dir = $scratch/$run.ck\nfail_at = 70 min|" \
		-e "s|^path = /dev/null.*|path = $scratch/$run.crash.csv|" \
		"$EXAMPLES/interval_join_clicks.conf" >"$scratch/$run.crash.conf"
done
sed "s|^path = /dev/null.*|path = $scratch/whole.csv|" \
	"$EXAMPLES/interval_join_clicks.conf" >"$scratch/whole.conf"
expect_status 0 "$WMRUN" --sim "$scratch/whole.conf"
cut -d, -f1-6 "$scratch/whole.csv" | LC_ALL=C sort >"$scratch/whole"
expect_status 0 "$WMRUN" --sim "$scratch/sim.crash.conf"
expect_line '^    records replayed ' "$scratch/err"
cut -d, -f1-6 "$scratch/sim.crash.csv" | LC_ALL=C sort >"$scratch/sim.crash"
cmp -s "$scratch/whole" "$scratch/sim.crash" ||
	fail "--sim: the pairs after a restore are not those of a whole run"
# On --sim's event-time origin, to compare with its pairs.
expect_status 0 timeout 120 "$WMRUN" --set job.event_time_origin=0 --quiet "$scratch/real.crash.conf"
expect_line 'worker "attributed/[01]" .* was terminated by signal 9' "$scratch/err"
expect_line '^  every record accounted +yes$' "$scratch/err"
cut -d, -f1-6 "$scratch/real.crash.csv" | LC_ALL=C sort >"$scratch/real.crash"
cmp -s "$scratch/whole" "$scratch/real.crash" ||
	fail "a real run: the pairs after a restore are not those of a whole run"
echo "$pairs pairs, $late late clicks, in --sim and a real run; the example: $held pairs, $idle with the idle timeout; the same pairs across a crash"
