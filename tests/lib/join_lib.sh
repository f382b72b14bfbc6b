# join_lib.sh -- the two traces the join tests read (sourced after lib.sh).
#
# join_traces CLICK_OFFSET: $scratch/impressions.csv, the left side, 1500
# records over 2 partitions, one every 40 ms of event time from 10 s on,
# 13 keys, up to 38 ms out of order, every timestamp even; and
# $scratch/clicks.csv, the right side, 400 records, one every 150 ms, at
# CLICK_OFFSET ms after their arrival, where every 40th after the first
# 20 s is 40 s behind the clicks around it: late for a join whatever the
# scheduling (both inputs' watermarks are far past it when it comes).
# Every watermark of a 200 ms bound is odd (the newest even timestamp
# less 201): with an even offset no record ever arrives at the
# watermark, where the outcome would hang on when the watermark came
# (doc/semantics.md sections 15.1 and 15.2); an odd one keeps clicks and
# impressions an odd distance apart, off any even bound. $late: the late
# clicks.
join_traces() {
	awk 'BEGIN {
		print "partition,timestamp,key,value,arrival"
		for (i = 0; i < 1500; i++) {
			t = 10000 + i * 40
			printf "%d,%d,%d,%d,%d\n", i % 2,
				t - (i * 7919) % 20 * 2, (i * 7) % 13, i, t
		}
	}' >"$scratch/impressions.csv"
	awk -v offset="$1" 'BEGIN {
		print "partition,timestamp,key,value,arrival"
		for (j = 0; j < 400; j++) {
			t = 10000 + j * 150
			ts = t + offset
			if (t >= 30000 && j % 40 == 0)
				ts -= 40000
			printf "0,%d,%d,%d,%d\n", ts, (j * 5) % 13, 1000 + j, t
		}
	}' >"$scratch/clicks.csv"
	late=$(awk -F, 'NR > 1 && $2 < $5 - 1000 { n++ } END { print n + 0 }' \
		"$scratch/clicks.csv")
	[ "$late" -ge 5 ] || fail "the clicks trace has $late late clicks"
}

# join_sources: the [source] sections of the two traces, replayed at
# their arrivals with a 200 ms bound: impressions (2 subtasks) and
# clicks.
join_sources() {
	cat <<CONF
[source impressions]
parallelism = 2
partitions = 2
replay = $scratch/impressions.csv
pacing = arrival
out_of_orderness = 200 ms
[source clicks]
replay = $scratch/clicks.csv
pacing = arrival
out_of_orderness = 200 ms
CONF
}
