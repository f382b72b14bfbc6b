#!/bin/sh
# Real Apache Flink as the oracle of punctuated watermarks (watermark =
# punctuated): a record marked in the trace's punctuate column carries a
# watermark at its timestamp, emitted at once, nothing periodic. Two jobs:
#
#   generated  a generator marks every 3rd record of partition 0 and the
#              first of partition 1 in each 3 s of event time (punctuate
#              by count and by time); the export records it under
#              --sim with its marks, Flink replays it through
#              PunctuatedWatermarks. Timing as in
#              flink_agrees_on_recorded_sources.sh: nothing in the first
#              15 s, the partitions 250 ms apart, late records beyond the
#              marks by up to 20 s.
#   replayed   a trace of two partitions, a record every 50 ms of each
#              from 31 s of event time, arriving in order from 1 s, marked
#              every 10th (partition 0) and every 40th (partition 1), and
#              every 97th record of partition 0 25 s behind: late by far
#              more than the marks lag, whatever the interleaving; the
#              others in order, never late. --sim, Flink at two speeds and
#              a real run agree.
#
#   combined   watermark = bounded, punctuated with a 1 s bound, on
#              marks_lib.sh's trace: partition 1 marks once, late in
#              the trace, so before that only the bound moves it; its 6
#              stragglers 20 s behind are late by some 19 s (1.9 s of
#              the wall clock at speed 10) whatever the scheduling. The export's PunctuatedWatermarks.combinedWith
#              on Flink's side agrees with --sim at two speeds.
#
# Then the replayed job with Flink's generator changed to bounded
# out-of-orderness of 30 s (MUTATE): the 25 s-behind records are no
# longer late there, and the cross-check must fail; and the combined job
# with Flink's generator punctuated alone: 5 of the stragglers are on
# time there.
#
# Skipped (77) as flink_lib.sh's flink_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
. "$srcdir/tests/lib/marks_lib.sh"
flink_require
flink_classpath

conf_generated() {
	cat <<CONF
[job]
name = generated
event_time = 60 s
speed = 3
seed = 9
[source s]
parallelism = 1
partitions = 2
rate = 2/s
burst = 1 x1 from 250 ms for 1 h  # partition 1 arrives 250 ms after 0
silence = 0-1 from 0 s to 15 s    # while the Flink job starts
silence = 0-1 from 35 s           # for ever: nothing in the last 25 s
out_of_orderness = 1 s
late_fraction = 0.2
late_by = 20 s
keys = 5
watermark = punctuated
punctuate = 0 every 3 records
punctuate = 1 every 3 s
CONF
	flink_window w s "$1"
}

awk -v f="$scratch/marked.csv" 'BEGIN {
	print "partition,timestamp,key,value,arrival,punctuate" >f
	for (i = 0; i < 700; i++) {
		t = 31000 + i * 50
		a = t - 30000
		ts = (i % 97 == 50) ? t - 25000 : t
		print 0 "," ts "," i % 7 "," 1 + i % 9 "," a "," (i % 10 == 9) >f
		print 1 "," t "," (i * 3) % 7 "," 2 + i % 5 "," a + 20 "," (i % 40 == 39) >f
	}
}'

conf_replayed() {
	printf '[job]\nname = replayed\nspeed = 10\n'
	printf '[source m]\nparallelism = 1\npartitions = 2\n'
	printf 'replay = %s\npacing = arrival\n' "$scratch/marked.csv"
	printf 'watermark = punctuated\nwatermark_interval = 0 ms\n'
	flink_window w m "$1"
}

conf() { conf_generated "$@"; }
SIM_ONLY=1 oracle generated
[ "$(grep -c . "$scratch/generated.sim.w.late")" -gt 5 ] ||
	fail "generated: too few late records to compare"
grep -q ',punctuate$' "$scratch/generated.flink.project/data/source0.csv" ||
	fail "generated: the export's recording has no punctuate column"

conf() { conf_replayed "$@"; }
oracle replayed
# Every 97th record of partition 0 from the 51st: 7 of them, all late.
[ "$(tail -n +2 "$scratch/replayed.sim.w.late" | wc -l)" -eq 7 ] ||
	fail "replayed: the 25 s-behind records are not exactly the late ones"

# A generator that is not Flink's punctuated one must be caught.
if (MUTATE='s/^watermark = punctuated$/watermark = bounded\nout_of_orderness = 30 s/' \
	oracle replayed_mutated) >"$scratch/mutated.log" 2>&1; then
	cat "$scratch/mutated.log" >&2
	fail "a bounded generator on Flink's side went unnoticed"
fi
grep -q 'Flink (speed = 10) differs in' "$scratch/mutated.log" || {
	cat "$scratch/mutated.log" >&2
	fail "the mutated cross-check failed for another reason"
}

combined_trace "$scratch/combined.csv"
conf() {
	printf '[job]\nname = combined\nspeed = 10\n'
	printf '[source m]\nparallelism = 1\npartitions = 2\n'
	printf 'replay = %s\npacing = arrival\n' "$scratch/combined.csv"
	printf 'watermark = bounded, punctuated\nout_of_orderness = 1 s\n'
	flink_window w m "$1"
}
SIM_ONLY=1 oracle combined
[ "$(tail -n +2 "$scratch/combined.sim.w.late" | wc -l)" -eq "$stragglers" ] ||
	fail "combined: the stragglers are not exactly the late records"
grep -q 'PunctuatedWatermarks.combinedWith(1000)' \
	"$scratch/combined.flink.project/src/main/java/wmrun/flink/Job.java" ||
	fail "combined: the export does not combine the bound with the marks"
if (MUTATE='s/^watermark = bounded, punctuated$/watermark = punctuated/; /^out_of_orderness/d' \
	SIM_ONLY=1 oracle combined_mutated) >"$scratch/mutated.log" 2>&1; then
	cat "$scratch/mutated.log" >&2
	fail "marks alone on Flink's side went unnoticed"
fi
grep -q 'Flink (speed = 10) differs in' "$scratch/mutated.log" || {
	cat "$scratch/mutated.log" >&2
	fail "the mutated combined cross-check failed for another reason"
}
exit 0
