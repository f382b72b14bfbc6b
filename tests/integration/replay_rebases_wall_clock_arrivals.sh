#!/bin/sh
# Arrivals recorded as wall-clock times (epoch milliseconds) are replayed
# from the earliest one, with a notice naming its line and the shift: a
# real run at speed 1 used to wait 55 years for its first record, and
# --sim to step through 18 minutes of empty ticks. Arrivals less than a
# year after the job start stay as they are: a trace recorded from the
# start of a job.
. "$srcdir/tests/lib/lib.sh"

conf() { # conf NAME -- replays $scratch/NAME.trace into $scratch/NAME.csv
	cat <<CONF
[job]
name = wall-clock
speed = 1
[source t]
parallelism = 2
partitions = 2
replay = $scratch/$1.trace
pacing = arrival
out_of_orderness = 50 ms
[window w]
input = t
size = 100 ms
aggregates = count
[sink out]
input = w
path = $scratch/$1.csv
CONF
}

# The earliest arrival is line 3's; the last is 300 ms after it.
cat >"$scratch/epoch.trace" <<TRACE
partition,timestamp,key,value,arrival
0,1733050000000,1,1,1733050000020
1,1733050000010,2,1,1733050000010
0,1733050000150,1,1,1733050000160
1,1733050000290,2,1,1733050000310
TRACE
notice="^wmrun: $scratch/epoch.trace:3: notice: the earliest arrival \\(1733050000010 ms\\) is more than a year after the job start: arrivals are read as wall-clock times and shifted 1733050000010 ms earlier\$"

conf epoch >"$scratch/real.conf"
expect_status 0 timeout 60 "$WMRUN" "$scratch/real.conf"
expect_line "$notice" "$scratch/err"
[ "$(grep -c notice "$scratch/err")" -eq 1 ] || fail "the notice is not one line"
expect_line '^  records read +4$' "$scratch/err"
cut -d, -f1-4 "$scratch/epoch.csv" | sort >"$scratch/real"

expect_status 0 timeout 60 "$WMRUN" --sim "$scratch/real.conf"
expect_line "$notice" "$scratch/err"
cut -d, -f1-4 "$scratch/epoch.csv" | sort >"$scratch/sim"
[ "$(wc -l <"$scratch/sim")" -eq 5 ] || fail "expected a header and 4 windows"
cmp "$scratch/real" "$scratch/sim" || fail "the real run differs from --sim"
# The shift makes the last arrival due at 300 ms: every window has fired
# by then (fire_time is column 5).
awk -F, 'NR > 1 && $5 > 1000 { exit 1 }' "$scratch/epoch.csv" ||
	fail "a window fired after 1 s of processing time"

# Arrivals from the job start, as recorded, are left alone: the first
# record is due at 5 s.
printf '0,1000,1,1,5000\n1,1000,2,1,5000\n' >"$scratch/start.trace"
conf start >"$scratch/start.conf"
expect_status 0 "$WMRUN" --sim "$scratch/start.conf"
! grep -q notice "$scratch/err" || fail "arrivals from the job start were shifted"
awk -F, 'NR > 1 && $5 < 5000 { exit 1 }' "$scratch/start.csv" ||
	fail "a window fired before its records were due"
echo ok
