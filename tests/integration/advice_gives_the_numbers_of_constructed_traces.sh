#!/bin/sh
# The end of a run says what held event time and which settings the
# figures it measured call for, each from the figure named, here on traces
# whose figures are known:
#  - a partition with a record every 10 s, silent for 2 h once, holds the
#    window 2 h with no idle timeout; the advice is idle_timeout 1 min
#    (three times the 10 s gaps, whose histogram bucket ends at 10.24 s:
#    30.72 s, rounded up), and with it set the
#    window no longer waits; a max_delay below the gaps leaves no value
#    that fits, and the advice says so;
#  - records 7 s out of order give out_of_orderness 10 s (the smallest
#    round value at or above 7 s);
#  - records 3 min behind the watermark give allowed_lateness 5 min
#    (strictly above 3 min), and with that set none is late.
. "$srcdir/tests/lib/lib.sh"

# job NAME TRACE PARTITIONS JOB_KEYS SOURCE_KEYS WINDOW_KEYS: a job of one
# source replaying TRACE by arrival into a window of 1 min.
job() {
	cat >"$scratch/$1.conf" <<CONF
[job]
name = $1
$4
[source s]
parallelism = 1
partitions = $3
replay = $scratch/$2
pacing = arrival
out_of_orderness = 1 s
$5
[window w]
input = s
parallelism = 1
size = 1 min
aggregates = count
$6
CONF
}
# run NAME: the job under --sim, its summary in $scratch/err and NAME.json.
run() {
	expect_status 0 timeout 60 "$WMRUN" --sim --summary "$scratch/$1.json" \
		"$scratch/$1.conf"
}
no_line() {
	! grep -Eq -- "$1" "$scratch/err" || fail "$2"
}

# Partition 0 every 10 s but from 1 h to 3 h; partition 1 every 10 s.
awk 'BEGIN { for (t = 0; t <= 4 * 3600000; t += 10000) {
	if (t <= 3600000 || t >= 3 * 3600000) print "0," t ",1,1," t
	print "1," t ",2,1," t } }' >"$scratch/silence.csv"
job none silence.csv 2 "" "" ""
run none
expect_line '^  what held event time$' "$scratch/err"
expect_line '^    window w/0 waited 2 h 0 min on s/0, partition s-0: silent 2 h 0 min, no idle_timeout set$' "$scratch/err"
expect_line '^  advice$' "$scratch/err"
expect_line '^    idle_timeout = 1 min \(partition s-0: 3 times its p99 gap 9\.2 s, longest 2 h 0 min; none set\)$' "$scratch/err"
expect_line '"diagnosis":\[\{"window":"w","subtask":0,"waited_ms":7200000,' "$scratch/none.json"
expect_line '"advice":\[\{"key":"idle_timeout","stage":"s","value_ms":60000,"from_ms":30720,' "$scratch/none.json"
# As advised: nothing held the window long, nothing is advised.
job advised silence.csv 2 "" "idle_timeout = 1 min" ""
run advised
expect_line '^    window  w .* \(longest 1 min [01] s, held by s/0; 1 stall\)' "$scratch/err"
no_line '^  (what held event time|advice)$' "a job run as advised still got advice"
# Results within 5 s of event time cannot wait out 10 s gaps.
job tight silence.csv 2 "max_delay = 5 s" "" ""
run tight
expect_line '^    no idle_timeout fits source s: partition s-0.s gaps need 1 min or more \(3 times its p99 gap 9\.2 s\), max_delay is 5 s$' "$scratch/err"
expect_line '"advice":\[\{"key":"idle_timeout","stage":"s","value_ms":null,"from_ms":30720,' "$scratch/tight.json"

# A record a second; every 100th 7 s older than the newest before it.
awk 'BEGIN { for (i = 1; i <= 2000; i++) { t = i * 1000
	print "0," ((i % 100 == 0) ? t - 8000 : t) ",1,1," t } }' \
	>"$scratch/disorder.csv"
job disorder disorder.csv 1 "" "" ""
run disorder
expect_line '^    out_of_orderness = 10 s \(source s: records up to 7\.0 s out of order, p99 6\.7 s; 1 s set\)$' "$scratch/err"
expect_line '"advice":\[\{"key":"out_of_orderness","stage":"s","value_ms":10000,"from_ms":7000,' "$scratch/disorder.json"

# A record a second, and every 500 s one that arrives half a second later
# 3 min behind the watermark then (1 s bound: the newest minus 1001 ms).
awk 'BEGIN { for (i = 1; i <= 2000; i++) { t = i * 1000
	print "0," t ",1,1," t
	if (i % 500 == 0) print "0," t - 1001 - 180000 ",1,1," t + 500 } }' \
	>"$scratch/late.csv"
job late late.csv 1 "" "" ""
run late
expect_line '^  late, dropped +4$' "$scratch/err"
expect_line '^    allowed_lateness = 5 min \(window w: 4 late records, the latest 3 min 0 s behind the watermark; 0 set\)$' "$scratch/err"
expect_line '\{"key":"allowed_lateness","stage":"w","value_ms":300000,"from_ms":180000,' "$scratch/late.json"
job covered late.csv 1 "" "" "allowed_lateness = 5 min"
run covered
expect_line '^  late, dropped +0$' "$scratch/err"
no_line 'allowed_lateness =' "allowed_lateness advised again once set as advised"
