#!/bin/sh
# Real Apache Flink as the oracle of heartbeats: a heartbeat is a record
# that its partition's watermark generator sees (bounded out-of-orderness
# here: its timestamp moves the partition's maximum) and that a filter
# after the source then drops. Two jobs:
#
#   generated  partition 1 of two goes silent at 20 s for good, and sends
#              a heartbeat every second (heartbeat = 1 every 1 s) from the
#              start. Partition 0 goes on, a fifth of its records up to
#              20 s behind its others. The export records it under --sim,
#              heartbeats and all, and Flink replays it through the same
#              strategy and a NoHeartbeats filter. Nothing in the first
#              15 s (while the Flink job starts); partition 1 arrives
#              250 ms after 0.
#   replayed   a trace of two partitions: 0 a record every 50 ms from 31 s
#              of event time, every 97th of them from 15 s of arrival on
#              25 s behind (none sooner: Flink's periodic watermark must
#              have gone out once, which a loaded machine can put off for
#              the first second or so); 1 only heartbeats (key and value
#              ignored), one a second. The 25 s behind records are late
#              only because the heartbeats keep partition 1's watermark
#              up with 0's: without them the window's watermark would
#              stand at the start.
#
# Then the replayed job without its heartbeats on Flink's side (MUTATE):
# the late records must differ and the cross-check fail.
#
# Skipped (77) as flink_lib.sh's flink_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
flink_require
flink_classpath

conf_generated() {
	cat <<CONF
[job]
name = generated
event_time = 60 s
speed = 3
seed = 11
[source s]
parallelism = 1
partitions = 2
rate = 2/s
burst = 1 x1 from 250 ms for 1 h  # partition 1 arrives 250 ms after 0
silence = 0-1 from 0 s to 15 s    # while the Flink job starts
silence = 1 from 20 s             # for good: heartbeats alone from here
out_of_orderness = 1 s
late_fraction = 0.2
late_by = 20 s
keys = 5
heartbeat = 1 every 1 s
CONF
	flink_window w s "$1"
}

# Partition 1's heartbeats say 1 in the seventh column; their key and
# value mean nothing.
awk -v f="$scratch/beats.csv" 'BEGIN {
	print "partition,timestamp,key,value,arrival,punctuate,heartbeat" >f
	for (i = 0; i < 700; i++) {
		t = 31000 + i * 50
		a = t - 30000
		ts = (i % 97 == 50 && i > 300) ? t - 25000 : t
		print 0 "," ts "," i % 7 "," 1 + i % 9 "," a ",0,0" >f
		if (i % 20 == 0)
			print 1 "," t ",0,0," a + 20 ",0,1" >f
	}
}'

conf_replayed() {
	printf '[job]\nname = replayed\nspeed = 10\n'
	printf '[source m]\nparallelism = 1\npartitions = 2\n'
	printf 'replay = %s\npacing = arrival\n' "$scratch/beats.csv"
	printf 'out_of_orderness = 1 s\n'
	flink_window w m "$1"
}

conf() { conf_generated "$@"; }
SIM_ONLY=1 oracle generated
[ "$(grep -c . "$scratch/generated.sim.w.late")" -gt 5 ] ||
	fail "generated: too few late records to compare"
grep -q ',heartbeat$' "$scratch/generated.flink.project/data/source0.csv" ||
	fail "generated: the export's recording has no heartbeat column"
grep -q 'NoHeartbeats' "$scratch/generated.flink.project/src/main/java/wmrun/flink/Job.java" ||
	fail "generated: the exported job does not drop the heartbeats"

conf() { conf_replayed "$@"; }
oracle replayed
# Every 97th record of partition 0 from the 342nd: 4 of them, all late.
[ "$(tail -n +2 "$scratch/replayed.sim.w.late" | wc -l)" -eq 4 ] ||
	fail "replayed: the 25 s-behind records are not exactly the late ones"
# No heartbeat is a result: partition 1's key 0 and value 0 count nowhere.
expect_status 0 "$WMRUN" --sim --summary "$scratch/replayed.json" \
	"$scratch/replayed.sim.conf"
grep -q '"records_read":700,' "$scratch/replayed.json" ||
	fail "replayed: the heartbeats were read as records"
grep -q '"heartbeats":35,' "$scratch/replayed.json" ||
	fail "replayed: the summary does not count the 35 heartbeats"

# Flink without the heartbeats must be caught: partition 1 then never
# has a watermark, the window's stands at the start, and nothing is late.
grep -v ',1$' "$scratch/beats.csv" >"$scratch/no_beats.csv"
if (MUTATE="s|^replay = .*|replay = $scratch/no_beats.csv|" \
	oracle replayed_mutated) >"$scratch/mutated.log" 2>&1; then
	cat "$scratch/mutated.log" >&2
	fail "heartbeats read as records on Flink's side went unnoticed"
fi
grep -q 'Flink (speed = 10) differs in' "$scratch/mutated.log" || {
	cat "$scratch/mutated.log" >&2
	fail "the mutated cross-check failed for another reason"
}
exit 0
