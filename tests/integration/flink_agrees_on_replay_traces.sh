#!/bin/sh
# Real Apache Flink as the oracle of the replay traces the project ships:
# each topology is exported with --export-flink, run on Flink's local
# MiniCluster over the same trace that wmrun replays, at two speeds, and
# its window results (key, window, aggregates, late firing, the window
# subtask that fired) and late records must be wmrun's, under --sim and in
# a real run (flink_lib.sh's oracle). Covered: examples/replay_trace.conf
# (two partitions, watermarks per split, a record beyond the bound that
# goes to the late side output), and the traces of
# replay_matches_batch_aggregation.sh (4000 records, disorder within the
# bound) and replay_event_pacing_keeps_partition_order.sh (a record
# recorded late), read from those tests as they are; and a trace of 40
# string keys at window parallelism 4, keys with quotes, commas,
# backslashes, "*/", non-ASCII letters, and digits (a string all the
# same), at window parallelism 2 and 4: the exported trace quotes them,
# Flink keys by the Java Strings, and every result comes from the subtask
# wmrun gives its key. The
# support classes'
# unit tests and one export built with `mvn package` and run with
# `mvn exec:exec` prove the project builds and runs with Maven, and
# Maven writes no escape sequence into standard output there (the shaded
# jar, with the connectors and without Flink, runs on a real cluster in
# flink_cluster_runs_exported_jobs.sh). The other runs compile with
# javac (flink_lib.sh).
#
# doc/architecture.md section 8.1 says why these outcomes do not hang on
# the wall clock, and what the cross-check cannot cover. Skipped (77) as
# flink_lib.sh's flink_require says.
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
flink_require
top=$(cd "$srcdir" && pwd)

# The support classes' own unit tests, in a copy (the source tree may be
# read-only): the exported projects compile the same files.
cp -R "$srcdir/flink" "$scratch/flink"
chmod -R u+w "$scratch/flink"
# (Its package would shade a jar that nothing here runs.)
maven "$scratch/flink" "$scratch/mvn.log" package -Dmaven.shade.skip=true ||
	fail "the support classes' Maven project does not build"
flink_classpath

# The example as it is, four times faster, its outputs in files: the
# late click (9 s after it happened, 2 s bound) arrives 3 s of event time
# (750 ms of wall clock) after the records that put the watermark past
# its window, every other record is within the bound.
conf() {
	sed -e "s|^replay = \([^/]\)|replay = $top/examples/\1|" \
		-e "s|^path = -|path = $scratch/$1.out\nsubtask_column = true|" \
		-e "s|^late_output = -.*|late_output = $scratch/$1.late|" \
		-e "s|^name = replay-clicks|&\nspeed = 4|" \
		"$srcdir/examples/replay_trace.conf"
}
oracle replay_trace

# trace_of TEST FIRST LAST: the lines of TEST.sh from FIRST to LAST
# (regular expressions) make its trace, $scratch/trace.csv, as they are.
trace_of() {
	sed -n "/$2/,/$3/p" \
		"$srcdir/tests/integration/$1.sh" >"$scratch/gen.sh"
	[ -s "$scratch/gen.sh" ] || fail "no trace in $1.sh"
	. "$scratch/gen.sh"
}

# 4000 records, 37 keys, disorder within the 50 ms bound: nothing late.
trace_of replay_matches_batch_aggregation "^awk 'BEGIN {" '>"$scratch\/trace.csv"$'
mv "$scratch/trace.csv" "$scratch/batch.csv"
conf() {
	cat <<CONF
[job]
name = batch
speed = 20
[source t]
parallelism = 2
partitions = 4
replay = $scratch/batch.csv
pacing = event
out_of_orderness = 50 ms
[keyby k]
input = t
parallelism = 2
[window w]
input = k
parallelism = 2
size = 100 ms
aggregates = count, sum, min, max
late_output = $scratch/$1.late
[sink out]
input = w
path = $scratch/$1.out
subtask_column = true
CONF
}
oracle batch
# Built with Maven as a user would, and run with exec:exec.
conf batch.mvn >"$scratch/batch.mvn.conf"
expect_status 0 "$WMRUN" --export-flink "$scratch/mvn" "$scratch/batch.mvn.conf"
flink_build "$scratch/mvn"
maven "$scratch/mvn" "$scratch/mvn.log" exec:exec || fail "exec:exec failed"
same mvn sim "the Maven-built job"
# Maven 3.8's Jansi writes ESC [0m to standard output at its start and
# end, in batch mode too: the project's .mvn/jvm.config stops it, so
# that a sink on standard output under exec:exec writes results alone.
(cd "$scratch/mvn" && mvn -q -v) >"$scratch/mvn.version" 2>/dev/null
[ -s "$scratch/mvn.version" ] || fail "mvn -v printed nothing"
! LC_ALL=C grep -q "$(printf '\033')" "$scratch/mvn.version" ||
	fail "Maven writes escape sequences to standard output in the exported project"
[ -f "$scratch/mvn/README.md" ] || fail "the exported project has no README"

# Partition 0's 1100 comes right after its 5000, 1.75 s of event time
# (and of wall clock: speed 1, as in that test) after the watermark
# passed its window: late, whatever the tick.
trace_of replay_event_pacing_keeps_partition_order \
	'^cat >"$scratch\/trace.csv" <<TRACE$' '^TRACE$'
conf() {
	cat <<CONF
[job]
name = event-pacing
speed = 1
[source t]
parallelism = 2
partitions = 2
replay = $scratch/trace.csv
pacing = event
out_of_orderness = 50 ms
watermark_interval = 100 ms
[window w]
input = t
size = 100 ms
aggregates = count, sum
late_output = $scratch/$1.late
[sink out]
input = w
path = $scratch/$1.out
subtask_column = true
CONF
}
oracle event_pacing
[ "$(wc -l <"$scratch/event_pacing.sim.late")" -eq 2 ] ||
	fail "event_pacing: the late record is not late"
# String keys: each result's subtask is its key's, placed by the Java
# String's hash as wmrun places it (issue 28: the keys were exported as
# the dictionary's longs, placed by Long.hashCode).
awk 'BEGIN {
	print "partition,timestamp,key,value"
	for (i = 0; i < 400; i++) {
		k = i % 40
		f = k % 5
		key = f == 0 ? "user" k : f == 1 ? "\"q\"\"\\" k "\"" : f == 2 ? "\"c," k "\"" \
			: f == 3 ? "\303\274" k "*/" : k
		printf "%d,%d,%s,%d\n", i % 2, 1000 + 10 * i, key, 1 + i % 7
	}
}' >"$scratch/strings.csv"
for p in 2 4; do
conf() {
	cat <<CONF
[job]
name = string-keys
speed = 20
[source t]
parallelism = 2
partitions = 2
replay = $scratch/strings.csv
key_type = string
pacing = event
out_of_orderness = 0 ms
[window w]
input = t
parallelism = $p
size = 1 s
aggregates = count, sum
late_output = $scratch/$1.late
[sink out]
input = w
path = $scratch/$1.out
subtask_column = true
CONF
}
SIM_ONLY=1 oracle "string_keys_p$p"
[ "$(cut -d, -f1 "$scratch/string_keys_p$p.sim.out" | LC_ALL=C sort -u | wc -l)" -gt 30 ] ||
	fail "string_keys_p$p: fewer keys than the trace's in the results"
grep -q '^"q""\\' "$scratch/string_keys_p$p.sim.out" ||
	fail "string_keys_p$p: the key with a quote and a backslash is not in the results"
done
exit 0
