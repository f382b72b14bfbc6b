#!/bin/sh
# Exported jobs on a real Flink cluster of separate processes: a standalone
# session cluster started from Maven Central's Flink 2.3.0 jars
# (tests/flink/cluster.sh: one JobManager, two TaskManagers with one slot
# each, three JVMs on loopback), each job built with `mvn package` into
# the shaded jar the export's README names and submitted by Flink's own
# client (`flink run`, through the JobManager's REST endpoint). The
# cluster's class path holds no connector, as a distribution's lib/
# holds none: the Kafka job reads its topic with the connector its jar
# brings. One cluster for every case:
#
# 1. A keyed window job at parallelism 2: its two window subtasks run on
#    the two TaskManagers (the JobManager's REST API says which), and its
#    results (subtask column included) and late records are --sim's. Its
#    windows fire while it runs, each on-time one no earlier than its end
#    plus the bound after processing time's zero, and half of them within
#    4 s of processing time of that (0.4 s of wall clock at speed 10;
#    --sim's come 0.2-0.4 s of processing time after it): a fire_time
#    counted from the client's submission came seconds of wall clock
#    later, tens of seconds of processing time.
# 2. The same job with 3 s windows on Flink's side only: the comparison
#    fails, so the one above could have.
# 3. The topology of examples/kafka_quiet_partitions.conf, bounded
#    (stopping_offsets = latest), over a real topic of 12 partitions with
#    controlled timestamps, three of them quiet after 10 minutes and one
#    empty, read by wmrun (a real run) and by the job on the cluster:
#    their windows are the same (key, bounds, aggregates, late firing,
#    the window subtask that fired), and each partition was read by the
#    same source subtask in both (wmrun's summary, and the line
#    KafkaRecords writes at each partition's first record, which lands in
#    its TaskManager's output).
#
# Skipped (77) as kafka_lib.sh's kafka_require and flink_lib.sh's
# flink_require say, and where no cluster can be had (cluster.sh's 69).
. "$srcdir/tests/lib/lib.sh"
. "$srcdir/tests/lib/kafka_lib.sh"
. "$srcdir/tests/lib/flink_lib.sh"
kafka_require
flink_require
command -v curl >/dev/null 2>&1 || {
	echo "SKIP: no curl (apt-get install curl) to ask the cluster's REST API"
	exit 77
}
kafka_broker

cluster=$scratch/cluster
# The cluster's class path is resolved once per build directory.
FLINK_CLUSTER_CLASSPATH_CACHE=$PWD/flink-cluster.classpath \
	sh "$srcdir/tests/flink/cluster.sh" start "$cluster" $$ \
	>"$scratch/rest" 2>"$scratch/cluster-start"
case $? in
0) ;;
69)
	cat "$scratch/cluster-start"
	echo "SKIP: no Flink cluster can be had (cluster.sh above says why)"
	exit 77
	;;
*)
	cat "$scratch/cluster-start" >&2
	fail "the Flink cluster did not start"
	;;
esac
cat "$scratch/cluster-start"
rest=$(cat "$scratch/rest")
trap 'sh "$srcdir/tests/flink/cluster.sh" stop "$cluster"
	[ -z "${kafka_dir:-}" ] || sh "$srcdir/tests/kafka/broker.sh" stop "$kafka_dir"
	rm -rf "$scratch"' EXIT

# submit RUN JAR: `flink run JAR` of $scratch/RUN.project's job (its
# traces in its data/, its outputs where its topology says); the job's
# id in $job.
submit() {
	sh "$srcdir/tests/flink/cluster.sh" run "$cluster" "$2" \
		"$scratch/$1.project/data" "$scratch/$1.project" >"$scratch/$1.client" 2>&1 || {
		cat "$scratch/$1.client" >&2
		tail -40 "$cluster"/log/*.log >&2
		fail "flink run of $1 failed"
	}
	job=$(sed -n 's/^Job has been submitted with JobID \([0-9a-f]*\)$/\1/p' "$scratch/$1.client")
	[ -n "$job" ] || fail "flink run of $1 names no job: $(cat "$scratch/$1.client")"
	grep -q "^Job with JobID $job has finished" "$scratch/$1.client" ||
		fail "flink run of $1 did not wait for its job to finish"
}

# package RUN: `mvn package` of $scratch/RUN.project, which must give one
# jar with the job and its support classes and without Flink, which the
# cluster provides. Its path in $jar.
package() {
	flink_build "$scratch/$1.project"
	jar=$scratch/$1.project/target/wmrun-flink-job.jar
	[ -f "$jar" ] || fail "mvn package of $1 made no $jar"
	unzip -l "$jar" >"$scratch/$1.jar-list" || fail "$jar is no jar"
	grep -q 'wmrun/flink/Job.class$' "$scratch/$1.jar-list" &&
		grep -q 'wmrun/flink/JobOrigin.class$' "$scratch/$1.jar-list" ||
		fail "$jar lacks the job's classes"
	! grep -q 'org/apache/flink/streaming/api/' "$scratch/$1.jar-list" ||
		fail "$jar holds Flink itself, which the cluster provides"
}

# The subtasks of the window vertex of the job $job, one "subtask
# taskmanager" line each, from the JobManager's REST API.
window_subtasks() {
	curl -s -m 10 "http://$rest/jobs/$job" >"$scratch/job.json" ||
		fail "the cluster's REST API does not answer for job $job"
	vertex=$(sed 's/{"id":"/\n&/g' "$scratch/job.json" |
		sed -n 's/^{"id":"\([0-9a-f]*\)","slotSharingGroupId":"[^"]*","name":"w .*/\1/p;
			s/^{"id":"\([0-9a-f]*\)","name":"w .*/\1/p' | head -1)
	[ -n "$vertex" ] || fail "job $job has no vertex of window w: $(head -c 600 "$scratch/job.json")"
	curl -s -m 10 "http://$rest/jobs/$job/vertices/$vertex" |
		sed 's/{"subtask":/\n&/g' |
		sed -n 's/^{"subtask":\([0-9]*\),.*"taskmanager-id":"\([^"]*\)".*/\1 \2/p' |
		awk '{ print }' # the REST answer ends without a newline
}

# 1. The keyed window job over flink_lib.sh's keyed trace: records within
# the 1 s bound, and some 30 s late, whose outcome does not hang on the
# wall clock.
keyed_trace "$scratch/keyed.csv"

conf() {
	keyed_source
	cat <<CONF
[window w]
input = t
parallelism = 2
size = 2 s
aggregates = count, sum, min, max
late_output = $scratch/$1.w.late
[sink out]
input = w
path = $scratch/$1.w.out
subtask_column = true
CONF
}
name=keyed
conf keyed.sim >"$scratch/keyed.sim.conf"
expect_status 0 "$WMRUN" --sim "$scratch/keyed.sim.conf"
conf keyed.flink >"$scratch/keyed.flink.conf"
expect_status 0 "$WMRUN" --export-flink "$scratch/keyed.flink.project" \
	"$scratch/keyed.flink.conf"
package keyed.flink
submit keyed.flink "$jar"
same sim flink "the job on the cluster"
echo "keyed: the cluster agrees with --sim:$agreed lines"
window_subtasks >"$scratch/placement"
cat "$scratch/placement"
[ "$(wc -l <"$scratch/placement")" -eq 2 ] ||
	fail "the window has $(wc -l <"$scratch/placement") subtasks on the cluster, not 2"
[ "$(awk '{ print $2 }' "$scratch/placement" | sort -u | wc -l)" -eq 2 ] ||
	fail "the window's two subtasks ran on one TaskManager"

# fire_time - window_end of each on-time result: never under the 1 s
# bound plus the 20 ms a record arrives after it happened (less the 10 ms
# of one wall-clock millisecond at speed 10), and, for half of them,
# within 4 s of processing time of that.
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["late_firing"] == "false" { print $col["fire_time"] - $col["window_end"] }' \
	"$scratch/keyed.flink.w.out" | sort -n >"$scratch/delays"
n=$(wc -l <"$scratch/delays")
low=$(head -1 "$scratch/delays")
median=$(sed -n "$(((n + 1) / 2))p" "$scratch/delays")
echo "keyed: $n on-time results fired $low to $(tail -1 "$scratch/delays") ms after their window's end (median $median)"
[ "$n" -gt 300 ] || fail "only $n on-time results"
[ "$low" -ge 1010 ] ||
	fail "a window fired $low ms after its end, before a record beyond its end and the bound was due"
[ "$median" -le 5010 ] ||
	fail "half the windows fired more than 5010 ms after their end (median $median): fire_time is not counted from when the records were due"

# 2. 3 s windows on Flink's side: the same comparison must fail. The
# job's class alone differs, so it is compiled into a copy of the jar.
conf keyed.mutant | sed 's/^size = 2 s$/size = 3 s/' >"$scratch/keyed.mutant.conf"
expect_status 0 "$WMRUN" --export-flink "$scratch/keyed.mutant.project" \
	"$scratch/keyed.mutant.conf"
flink_classpath
javac -nowarn -d "$scratch/keyed.mutant.classes" -cp "$jar:$FLINK_CP" \
	"$scratch/keyed.mutant.project/src/main/java/wmrun/flink/Job.java" ||
	fail "the mutated Job.java does not compile"
cp "$jar" "$scratch/mutant.jar"
(cd "$scratch/keyed.mutant.classes" && jar uf "$scratch/mutant.jar" wmrun/flink/Job.class) ||
	fail "cannot put the mutated job into a jar"
submit keyed.mutant "$scratch/mutant.jar"
if (same sim mutant "the mutated job") >"$scratch/mutant.diff" 2>&1; then
	fail "3 s windows on the cluster compare equal to wmrun's 2 s windows"
fi
echo "keyed: 3 s windows on Flink's side differ, as they should"

# 3. The Kafka job. A record every 5 s of event time per partition for 40
# minutes from 2026-01-01 00:00 UTC, each up to 3 s out of order (the
# bound is 5 s); partitions 8-10 fall silent after 10 minutes, partition
# 11 holds nothing. Keys u0..u12, values the record's index in its
# partition.
topic=$(kafka_topic night)
kafka_create_topic "$topic" 12
t0=1767225600000
awk -v t0=$t0 'BEGIN {
	for (i = 0; i < 480; i++)
		for (p = 0; p < 11; p++) {
			if (p >= 8 && i >= 120)
				continue
			printf "%d,%.0f,u%d,%d\n", p, t0 + i * 5000 + (i * 7 + p) % 4 * 1000,
				(i * 7 + p) % 13, i
		}
}' >"$scratch/produced.csv"
kafka_produce "$topic" <"$scratch/produced.csv"
total=$(wc -l <"$scratch/produced.csv")

kafka_conf() {
	cat <<CONF
[job]
name = kafka-flink
[source events]
parallelism = 2
kafka.bootstrap_servers = $KAFKA
kafka.topic = $topic
kafka.starting_offsets = earliest
kafka.stopping_offsets = latest
kafka.value_format = number
out_of_orderness = 5 s
[window counts]
input = events
parallelism = 2
size = 10 min
aggregates = count, sum, min, max
[sink out]
input = counts
path = $1
subtask_column = true
CONF
}
kafka_conf "$scratch/wmrun.out" >"$scratch/wmrun.conf"
expect_status 0 timeout 300 "$WMRUN" --summary "$scratch/wmrun.json" \
	"$scratch/wmrun.conf"
expect_line "^  records read  *$total\$" "$scratch/err"
kafka_conf "$scratch/kafka.out" >"$scratch/kafka.conf"
expect_status 0 "$WMRUN" --export-flink "$scratch/kafka.project" "$scratch/kafka.conf"
grep -q 'KafkaSource.<TraceRecord>builder()' \
	"$scratch/kafka.project/src/main/java/wmrun/flink/Job.java" ||
	fail "the exported job does not read the topic with Flink's KafkaSource"
! tr ':' '\n' <"$cluster/classpath" | grep -q 'kafka' ||
	fail "the cluster's class path holds Kafka's jars, which the job's jar must bring"
package kafka
grep -q 'org/apache/flink/connector/kafka/source/KafkaSource.class$' "$scratch/kafka.jar-list" ||
	fail "the Kafka job's jar lacks Flink's Kafka connector"
started=$(date +%s)
submit kafka "$jar"
echo "kafka: the job on the cluster read the topic in $(($(date +%s) - started)) s"

results "$scratch/wmrun.out" >"$scratch/wmrun.windows"
results "$scratch/kafka.out" >"$scratch/kafka.windows"
# 4 windows of 10 minutes, 13 keys each.
[ "$(wc -l <"$scratch/wmrun.windows")" -eq $((4 * 13)) ] ||
	fail "wmrun fired $(wc -l <"$scratch/wmrun.windows") windows, not 52"
diff -u "$scratch/wmrun.windows" "$scratch/kafka.windows" ||
	fail "the cluster's windows over the topic differ from wmrun's"
[ "$(awk -F, '{ n += $4 } END { print n }' "$scratch/kafka.windows")" -eq "$total" ] ||
	fail "the cluster's windows do not count every record once"

# Each partition with records on the same source subtask in both.
sed 's/{"partition":/\n&/g' "$scratch/wmrun.json" | grep '^{"partition":' |
	sed 's/^{"partition":\([0-9]*\),"subtask":\([0-9]*\),"records":\([0-9]*\),.*/\1 \2 \3/' |
	awk '$3 > 0 { print $1, $2 }' | sort -n >"$scratch/wmrun.owners"
cat "$cluster"/log/taskmanager-*.out |
	sed -n "s/^wmrun-flink: source events: partition \([0-9]*\) read by subtask \([0-9]*\)\$/\1 \2/p" |
	sort -n >"$scratch/kafka.owners"
[ "$(wc -l <"$scratch/wmrun.owners")" -eq 11 ] ||
	fail "wmrun's summary lists $(wc -l <"$scratch/wmrun.owners") partitions with records, not 11"
diff -u "$scratch/wmrun.owners" "$scratch/kafka.owners" ||
	fail "Flink's KafkaSource on the cluster gave partitions to other subtasks than wmrun"
echo "kafka: the cluster agrees over $total records: $(wc -l <"$scratch/kafka.windows") windows, 11 partitions' owners"
exit 0
