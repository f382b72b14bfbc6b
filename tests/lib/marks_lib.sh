# marks_lib.sh -- the trace of the tests of a generator that combines a
# bound with marks (watermark = bounded, punctuated; sourced after
# lib.sh).
#
# combined_trace FILE: two partitions, a record every 50 ms of each from
# 31 s of event time, arriving in order from 1 s (partition 1 20 ms
# after 0). Partition 0 marks every 10th record; partition 1 only its
# 600th (at 60.95 s), so that before it only a bound moves partition 1's
# watermark. Every 97th record of partition 1 from the 148th is 20 s
# behind its neighbours: with a bound of 1 s every one of those 6 is
# late by some 19 s whatever the scheduling, where marks alone would
# leave all but the last on time (nothing moves partition 1's watermark
# before its mark). $stragglers: 6.
combined_trace() {
	awk -v f="$1" 'BEGIN {
		print "partition,timestamp,key,value,arrival,punctuate" >f
		for (i = 0; i < 700; i++) {
			t = 31000 + i * 50
			a = t - 30000
			ts = (i % 97 == 50 && i > 100) ? t - 20000 : t
			print 0 "," t "," i % 7 "," 1 + i % 9 "," a "," (i % 10 == 9) >f
			print 1 "," ts "," (i * 3) % 7 "," 2 + i % 5 "," a + 20 "," (i == 599) >f
		}
	}'
	stragglers=6
}
