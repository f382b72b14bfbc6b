#!/bin/sh
# wmrun --sim jumps over simulated time in which nothing can happen: no
# record due, no watermark tick that can change anything, no alignment
# update that would read other reports. A trace with ten years between its
# records, partitions silent for 10000 hours, an alignment group waiting
# through them: each runs in a moment (--sim used to step through every
# 50 or 200 ms tick, for minutes), with exactly the results stepping
# gives (the CSVs below are what it wrote). And a source that alignment
# holds back between updates, over and over, runs to its end: --sim used
# to take it for one held back for ever and refuse the job.
. "$srcdir/tests/lib/lib.sh"

# run NAME -- wmrun --sim on $scratch/NAME.conf, a minute at the most:
# exit 0, the results in $scratch/out, the summary in $scratch/err.
run() {
	expect_status 0 timeout 60 "$WMRUN" --sim --summary "$scratch/$1.json" \
		"$scratch/$1.conf"
	expect_line '^  every record accounted  yes$' "$scratch/err"
}

# counts INPUTS SIZE -- the window stage of the jobs below, and its sink.
counts() {
	cat <<CONF
[window counts]
input = $1
parallelism = 2
size = $2
aggregates = count, sum
[sink out]
input = counts
parallelism = 2
path = -
CONF
}

# results NAME -- the results are the CSV on stdin.
results() {
	cat >"$scratch/$1.want"
	diff "$scratch/$1.want" "$scratch/out" >&2 ||
		fail "$1: not the results stepping gives"
}

# Four partitions, three clicks each at the start and three ten years
# (3650 days) later; idle after 10 s.
ten_years=315360000000
{
	echo "partition,timestamp,key,value,arrival"
	for later in 0 1; do
		for k in 0 1 2; do
			for p in 0 1 2 3; do
				t=$((later * ten_years + k * 1000 + p * 10))
				echo "$p,$t,$((k % 2)),$((later * 9 + 1 + k)),$t"
			done
		done
	done
} >"$scratch/gap.csv"
cat >"$scratch/gap.conf" <<CONF
[job]
name = ten-year-gap
[source clicks]
parallelism = 4
partitions = 4
replay = $scratch/gap.csv
pacing = arrival
out_of_orderness = 1 s
idle_timeout = 10 s
CONF
counts clicks "1 min" >>"$scratch/gap.conf"
run gap
results gap <<CSV
key,window_start,window_end,count,sum,fire_time,watermark,late_firing
0,0,60000,8,16,315360000000,315359998999,false
1,0,60000,4,8,315360000000,315359998999,false
0,315360000000,315360060000,8,88,315360002030,9223372036854775807,false
1,315360000000,315360060000,4,44,315360002030,9223372036854775807,false
CSV
expect_line '^wmrun: job "ten-year-gap" finished after 315360002030 ms of processing time' "$scratch/err"
expect_line '^  records read            24$' "$scratch/err"
expect_line '^  windows fired           4 \(0 late firings\)$' "$scratch/err"

# Eight partitions silent from 1 h to 10000 h, ticks every 50 ms.
cat >"$scratch/silent.conf" <<CONF
[job]
name = silent-for-years
event_time = 10001 h
seed = 3
[source events]
parallelism = 4
partitions = 8
rate = 1/min
keys = 4
out_of_orderness = 5 s
idle_timeout = 1 min
watermark_interval = 50 ms
silence = 0-7 from 1 h to 10000 h
CONF
counts events "1 h" >>"$scratch/silent.conf"
run silent
results silent <<CSV
key,window_start,window_end,count,sum,fire_time,watermark,late_firing
0,-3600000,0,1,1,60000,50589,false
1,-3600000,0,3,3,60000,50589,false
2,-3600000,0,2,2,60000,50589,false
3,-3600000,0,2,2,60000,50589,false
0,0,3600000,104,104,36000000000,35999990320,false
1,0,3600000,112,112,36000000000,35999990320,false
2,0,3600000,115,115,36000000000,35999990320,false
3,0,3600000,141,141,36000000000,35999990320,false
0,35996400000,36000000000,3,3,36000060000,36000050796,false
1,35996400000,36000000000,2,2,36000060000,36000050796,false
2,35996400000,36000000000,3,3,36000060000,36000050796,false
0,36000000000,36003600000,143,143,36003600000,9223372036854775807,false
1,36000000000,36003600000,110,110,36003600000,9223372036854775807,false
2,36000000000,36003600000,108,108,36003600000,9223372036854775807,false
3,36000000000,36003600000,111,111,36003600000,9223372036854775807,false
CSV
expect_line '^  records read            960$' "$scratch/err"
expect_line '^  windows fired           15 \(0 late firings\)$' "$scratch/err"

# The same silence in an alignment group with a source that has a
# record an hour: updates every second, ticks every 50 ms.
cat >"$scratch/aligned.conf" <<CONF
[job]
name = aligned-for-years
event_time = 10001 h
seed = 4
[source quiet]
parallelism = 2
partitions = 2
rate = 1/min
keys = 1
idle_timeout = 1 min
silence = 0-1 from 1 h to 10000 h
watermark_alignment_group = g
watermark_interval = 50 ms
watermark_alignment_max_drift = 1 min
[source hourly]
partitions = 2
rate = 1/h
keys = 1
out_of_orderness = 1 min
watermark_alignment_group = g
watermark_interval = 50 ms
watermark_alignment_max_drift = 1 min
CONF
counts "quiet, hourly" "1000 h" >>"$scratch/aligned.conf"
run aligned
results aligned <<CSV
key,window_start,window_end,count,sum,fire_time,watermark,late_firing
0,-3600000000,0,2,2,3600000,-1,false
0,0,3600000000,2120,2120,3603600000,3603483014,false
0,3600000000,7200000000,2000,2000,7203600000,7203487458,false
0,7200000000,10800000000,2000,2000,10803600000,10803512063,false
0,10800000000,14400000000,2000,2000,14403600000,14403490789,false
0,14400000000,18000000000,2000,2000,18003600000,18003487709,false
0,18000000000,21600000000,2000,2000,21603600000,21603483267,false
0,21600000000,25200000000,2000,2000,25203600000,25203506431,false
0,25200000000,28800000000,2000,2000,28803600000,28803493898,false
0,28800000000,32400000000,2000,2000,32403600000,32403519499,false
0,32400000000,36000000000,2000,2000,36003600000,35999999999,false
0,36000000000,39600000000,120,120,36003601000,9223372036854775807,false
CSV
expect_line '^  records read            20242$' "$scratch/err"

# No drift: each alignment update lets the partitions read up to the
# group's watermark, and then they wait for the next; after every instant
# the source has nothing due. It reads all 1200 records.
cat >"$scratch/bursts.conf" <<CONF
[job]
event_time = 1 min
[source s]
partitions = 2
rate = 10/s
watermark_alignment_group = g
watermark_alignment_max_drift = 0 s
watermark_alignment_update_interval = 5 s
[window w]
input = s
size = 10 s
aggregates = count
[sink o]
input = w
path = -
CONF
run bursts
expect_line '^wmrun: job "unnamed" finished after 60000 ms of processing time' "$scratch/err"
expect_line '^  records read            1200$' "$scratch/err"
expect_line '^  windows fired           1087 \(0 late firings\)$' "$scratch/err"
counted=$(awk -F, 'NR > 1 { n += $4 } END { print n }' "$scratch/out")
[ "$counted" -eq 1200 ] || fail "bursts: the windows count $counted records"
