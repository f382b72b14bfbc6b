#!/bin/sh
# Alert tiers fire when their condition has held for their duration of
# processing time, exactly under --sim: partition 3 falls silent from 1 h
# to 3 h. With an idle timeout of 30 s it is IDLE from about 1 h 0 min
# 30 s: a notice 5 min later and a severe alert 30 min later, nothing else
# (the window's watermark goes on, no subtask is idle). Without one, the
# window's watermark stops at about 1 h and the critical tier fires an
# hour after it last moved. A real run hands the alerts from its observer
# to the summary, also with --quiet, which prints none as they happen.
. "$srcdir/tests/lib/lib.sh"

cat >"$scratch/idle.conf" <<'CONF'
[job]
name = one-quiet-partition
event_time = 4 h
seed = 42
alert_partition_idle = notice 5 min, severe 30 min
alert_subtask_idle = warning 10 min
alert_watermark_stalled = critical 1 h

[source events]
parallelism = 2
partitions = 4
rate = 1/s
out_of_orderness = 5 s
keys = 4
idle_timeout = 30 s
silence = 3 from 1 h to 3 h

[window counts]
input = events
parallelism = 1
type = tumbling
size = 10 min

[sink out]
input = counts
path = out.csv
CONF
grep -v '^idle_timeout' "$scratch/idle.conf" >"$scratch/stuck.conf"

# check_alert LINE TIER KIND SUBJECT AFTER_MS [exact] -- the alert says
# what it should, raised at AFTER_MS after its episode began: exactly, or
# at the first sample at or after it.
check_alert() {
	[ "$(alert_field "$1" tier)" = "$2" ] && [ "$(alert_field "$1" kind)" = "$3" ] &&
		[ "$(alert_field "$1" subject)" = "$4" ] ||
		fail "expected $2 $3 of $4, got: $1"
	at=$(alert_field "$1" at_ms)
	since=$(alert_field "$1" since_ms)
	held=$(alert_field "$1" held_ms)
	[ "$held" -eq $((at - since)) ] || fail "held_ms is not at - since: $1"
	if [ "${6:-}" = exact ]; then
		[ "$held" -eq "$5" ] || fail "raised after $held ms, not $5: $1"
	else
		[ "$held" -ge "$5" ] || fail "raised after $held ms, before $5: $1"
	fi
}

cd "$scratch" || exit 99
hour=3600000

expect_status 0 "$WMRUN" --sim --summary idle.json idle.conf
summary_alerts idle.json >idle.alerts
[ "$(wc -l <idle.alerts)" -eq 2 ] || { cat idle.alerts >&2; fail "expected 2 alerts with an idle timeout"; }
expect_line '"alerts_raised":2,' idle.json
check_alert "$(sed -n 1p idle.alerts)" notice partition_idle events-3 300000 exact
check_alert "$(sed -n 2p idle.alerts)" severe partition_idle events-3 1800000 exact
# IDLE once the idle timeout passed after its last record before 1 h.
since=$(alert_field "$(sed -n 1p idle.alerts)" since_ms)
[ "$since" -ge $((hour + 29000)) ] && [ "$since" -le $((hour + 30000)) ] ||
	fail "partition 3 idle since $since ms, expected 30 s after its last record"
[ "$(alert_field "$(sed -n 2p idle.alerts)" since_ms)" = "$since" ] ||
	fail "the two tiers are not of one episode"
# Its end, seen by the first sample after the partition is back at 3 h.
ended=$(alert_field "$(sed -n 1p idle.alerts)" ended_ms)
[ "$ended" -ge $((3 * hour)) ] && [ "$ended" -le $((3 * hour + 300000)) ] ||
	fail "the episode ended at $ended ms, expected just after 3 h"
# As they happen, on stderr, and in the summary's text.
expect_line '^wmrun: processing time 1 h 5 min: notice: partition events-3 idle for 5 min 0 s$' "$scratch/err"
expect_line '^wmrun: processing time 1 h 30 min: severe: partition events-3 idle for 30 min 0 s$' "$scratch/err"
expect_line '^  alerts +2 raised$' "$scratch/err"
expect_line '^    at 1 h 5 min: notice: partition events-3 idle for 5 min 0 s, until 3 h' "$scratch/err"

expect_status 0 "$WMRUN" --sim --summary stuck.json stuck.conf
summary_alerts stuck.json >stuck.alerts
[ "$(wc -l <stuck.alerts)" -eq 1 ] || { cat stuck.alerts >&2; fail "expected 1 alert without an idle timeout"; }
check_alert "$(cat stuck.alerts)" critical watermark_stalled counts/0 $hour exact
since=$(alert_field "$(cat stuck.alerts)" since_ms)
[ "$since" -ge $((hour - 10000)) ] && [ "$since" -le $((hour + 10000)) ] ||
	fail "the window's watermark still since $since ms, expected about 1 h"
expect_line '^wmrun: processing time 2 h 0 min: critical: watermark of counts/0 has not moved for 1 h 0 min$' "$scratch/err"

# Without alert keys, the summary has no alerts at all.
grep -v '^alert_' idle.conf >none.conf
expect_status 0 "$WMRUN" --sim --summary none.json none.conf
grep -q alert none.json "$scratch/err" && fail "alerts in a job without alert keys"

# A real run: the observer raises them at its samples (not exactly at the
# thresholds) and hands them to the summary, printed or not. Speed 2000
# keeps the thresholds (30 s idle timeout, 1 h stall) at 15 ms and 1.8 s
# of real time; on a loaded machine a subtask starved that long may still
# raise an alert of its own: those are the machine's, and only the
# partition alerts are counted.
sed 's/^seed = 42$/&\nspeed = 2000/' idle.conf >real.conf
expect_status 0 timeout 120 "$WMRUN" --quiet --sample-interval=10ms \
	--summary real.json real.conf
summary_alerts real.json | grep '"kind":"partition_idle"' >real.alerts
grep -v '"subject":"events-3"' real.alerts >real.others
[ "$(wc -l <real.alerts)" -eq 2 ] || [ -s real.others ] ||
	{ cat real.alerts >&2; fail "expected 2 partition alerts from a real run"; }
if [ -s real.others ]; then
	# Another partition idle that long: only starvation can do it.
	expect_line '"cpu_wait_ms":[1-9]' real.json
	grep '"subject":"events-3"' real.alerts >real.mine
	mv real.mine real.alerts
fi
check_alert "$(sed -n 1p real.alerts)" notice partition_idle events-3 300000
check_alert "$(sed -n 2p real.alerts)" severe partition_idle events-3 1800000
grep -q '^wmrun: .*: notice: ' "$scratch/err" && fail "--quiet printed an alert before the summary"
expect_line '^    at .*: notice: partition events-3 idle for ' "$scratch/err"
expect_status 0 timeout 120 "$WMRUN" --live=never --sample-interval=10ms real.conf
expect_line '^wmrun: [0-9.]+ m?s \(processing time [0-9]+ h [0-9]+ min\): notice: partition events-3 idle for ' "$scratch/err"
exit 0
