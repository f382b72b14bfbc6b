#!/bin/sh
# Two alerts on what holds a job without its windows telling: three of 8
# partitions silent from 1 h to 2 h. Without an idle timeout they stay
# ACTIVE, their watermarks still, and hold every window:
# alert_partition_stalled raises each tier on each of them at its
# duration exactly (--sim) after its last advance. With one, they go IDLE
# 30 s into the silence: alert_idle_partitions counts them, all three at
# one periodic watermark tick, and raises the tiers of 2 and of 3 at the
# first sample after it, from the moment the count was reached; the
# episode ends when they send again at 2 h. A real run raises them too.
. "$srcdir/tests/lib/lib.sh"

cat >"$scratch/stuck.conf" <<'CONF'
[job]
name = quiet-night
event_time = 3 h
seed = 42
alert_partition_stalled = warning 10 min, severe 1 h

[source events]
parallelism = 2
partitions = 8
rate = 1/s
out_of_orderness = 5 s
keys = 4
silence = 5-7 from 1 h to 2 h

[window counts]
input = events
type = tumbling
size = 10 min

[sink out]
input = counts
path = out.csv
CONF
sed -e 's/^alert_partition_stalled = .*/alert_idle_partitions = warning 2, severe 3/' \
	-e 's/^keys = 4$/&\nidle_timeout = 30 s/' "$scratch/stuck.conf" >"$scratch/idle.conf"
grep -q '^idle_timeout = 30 s$' "$scratch/idle.conf" || fail "no idle timeout in idle.conf"
cd "$scratch" || exit 99
hour=3600000

expect_status 0 "$WMRUN" --sim --summary stuck.json stuck.conf
summary_alerts stuck.json >stuck.alerts
[ "$(wc -l <stuck.alerts)" -eq 6 ] || { cat stuck.alerts >&2; fail "expected 6 alerts without an idle timeout"; }
for p in 5 6 7; do
	grep "\"subject\":\"events-$p\"" stuck.alerts >mine
	[ "$(wc -l <mine)" -eq 2 ] || fail "events-$p: not 2 alerts"
	n=0
	for want in "warning 600000" "severe $hour"; do
		n=$((n + 1))
		line=$(sed -n ${n}p mine)
		[ "$(alert_field "$line" kind)" = partition_stalled ] &&
			[ "$(alert_field "$line" tier)" = "${want% *}" ] &&
			[ "$(alert_field "$line" held_ms)" -eq "${want#* }" ] ||
			fail "expected ${want% *} after ${want#* } ms: $line"
		# Still since its last record before 1 h; over once it sends.
		since=$(alert_field "$line" since_ms)
		[ "$since" -ge $((hour - 5000)) ] && [ "$since" -lt $hour ] ||
			fail "events-$p still since $since ms, expected just before 1 h"
		[ "$(alert_field "$line" ended_ms)" -ge $((2 * hour)) ] ||
			fail "events-$p: the episode ended before the silence: $line"
	done
done
expect_line '^wmrun: processing time 1 h 9 min: warning: watermark of partition events-5 has not moved for 10 min 0 s, and it is not idle$' "$scratch/err"
expect_line '^    at 1 h 59 min: severe: watermark of partition events-7 has not moved for 1 h 0 min, and it is not idle, until 2 h ' "$scratch/err"

expect_status 0 "$WMRUN" --sim --summary idle.json idle.conf
summary_alerts idle.json >idle.alerts
[ "$(wc -l <idle.alerts)" -eq 2 ] || { cat idle.alerts >&2; fail "expected 2 alerts with an idle timeout"; }
n=0
for tier in warning severe; do
	n=$((n + 1))
	line=$(sed -n ${n}p idle.alerts)
	[ "$(alert_field "$line" kind)" = idle_partitions ] && [ "$(alert_field "$line" tier)" = $tier ] &&
		[ "$(alert_field "$line" subject)" = events ] && [ "$(alert_field "$line" count)" -eq 3 ] ||
		fail "expected $tier idle_partitions of events, 3 of them: $line"
	since=$(alert_field "$line" since_ms)
	[ "$since" -ge $((hour + 29000)) ] && [ "$since" -le $((hour + 31000)) ] ||
		fail "3 partitions idle since $since ms, expected 30 s into the silence"
	# Seen at the first sample after the tick: one watermark interval.
	[ "$(alert_field "$line" held_ms)" -le 200 ] || fail "raised late: $line"
	ended=$(alert_field "$line" ended_ms)
	[ "$ended" -ge $((2 * hour)) ] && [ "$ended" -le $((2 * hour + 1000)) ] ||
		fail "the episode ended at $ended ms, expected at 2 h"
done
expect_line '^wmrun: processing time 1 h 0 min: severe: 3 partitions of events idle at once$' "$scratch/err"
expect_line '^    at 1 h 0 min: warning: 3 partitions of events idle at once, until 2 h 0 min$' "$scratch/err"

# A real run, at speed 2000 (the silence is 1.8 s of real time): a
# starved partition may go idle beside the three, so the count is at
# least theirs, and a warning of another moment is the machine's.
sed 's/^seed = 42$/&\nspeed = 2000/' idle.conf >real.conf
expect_status 0 timeout 120 "$WMRUN" --quiet --sample-interval=10ms \
	--summary real.json real.conf
summary_alerts real.json >real.alerts
grep '"tier":"severe"' real.alerts >real.severe ||
	{ cat real.alerts >&2; fail "no severe alert from a real run"; }
line=$(head -n 1 real.severe)
[ "$(alert_field "$line" count)" -ge 3 ] || fail "severe with fewer than 3: $line"
since=$(alert_field "$line" since_ms)
[ "$since" -ge $hour ] && [ "$since" -le $((2 * hour)) ] ||
	fail "the real run's severe alert is not of the silence: $line"
expect_line '^    at .*: severe: [0-9]+ partitions of events idle at once' "$scratch/err"
exit 0
