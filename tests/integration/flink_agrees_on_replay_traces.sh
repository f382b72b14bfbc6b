#!/bin/sh
# Real Apache Flink as the oracle: each topology is exported with
# --export-flink, built with Maven and run on Flink's local MiniCluster
# over the same trace that wmrun replays, and its window results (key,
# window, aggregates, late firing) and late records must be wmrun's, under
# --sim and in a real run. Covered: examples/replay_trace.conf (two
# partitions, watermarks per split, a record beyond the bound that goes to
# the late side output), and a four-partition trace through a keyby stage
# into windows at parallelism 1 and 2 (max parallelism 128, and 7).
#
# Flink runs on the wall clock, so the traces are chosen to be robust to
# jitter: disorder well inside the out-of-orderness bound, late records
# far beyond it, no idleness. fire_time and watermark (when a window
# fired) are not compared: they depend on when Flink's timers ran.
#
# Skipped (77) without java or mvn, when Maven Central cannot be reached
# and the cache (~/.m2) lacks Flink, and in the sanitizer build: CI runs
# the suite twice and this test, which adds minutes, needs to run once.
. "$srcdir/tests/integration/lib.sh"

if [ "${WM_SANITIZERS:-no}" = yes ]; then
	echo "SKIP: the sanitizer build leaves the Flink cross-check to the plain build"
	exit 77
fi
if [ "${WM_REAL_FLINK_TESTS:-yes}" = no ]; then
	echo "SKIP: configured with --disable-real-flink-tests (make distcheck: the plain build runs it)"
	exit 77
fi
for tool in java mvn; do
	command -v $tool >/dev/null 2>&1 || {
		echo "SKIP: no $tool (apt-get install default-jdk-headless maven)"
		exit 77
	}
done

# maven DIR LOG GOAL...: run Maven in DIR, offline when the cache holds
# everything (a second run downloads nothing), else from Maven Central;
# skip when that cannot be reached.
maven() {
	dir=$1 log=$2
	shift 2
	(cd "$dir" && timeout 900 mvn -B -q -o "$@" >"$log" 2>&1) && return 0
	(cd "$dir" && timeout 900 mvn -B -q "$@" >"$log" 2>&1) && return 0
	if grep -Eq 'Could not (transfer|resolve)|UnknownHost|Network is unreachable|Connection (refused|timed out)' \
		"$log"; then
		tail -5 "$log"
		echo "SKIP: Maven Central cannot be reached and ~/.m2 lacks Flink"
		exit 77
	fi
	cat "$log" >&2
	return 1
}

build() {
	maven "$1" "$scratch/mvn.log" package ||
		fail "the Maven project $1 does not build"
}

# results FILE SKIP: a window sink's lines without fire_time and
# watermark (and Flink's subtask column: SKIP 1), sorted.
results() {
	tail -n +2 "$1" | awk -F, -v skip="$2" '{
		n = NF - skip
		line = $1
		for (i = 2; i <= n - 3; i++) line = line "," $i
		print line "," $n
	}' | LC_ALL=C sort
}

# oracle NAME: $scratch/NAME.conf run by wmrun (--sim, and real unless
# SIM_ONLY) and by Flink; its conf() writes sinks to $scratch/NAME.RUN.*
# (MUTATE, a sed script, changes Flink's topology only: to see that a
# difference is caught).
oracle() {
	name=$1
	conf "$name.sim" >"$scratch/$name.sim.conf"
	expect_status 0 "$WMRUN" --sim "$scratch/$name.sim.conf"
	results "$scratch/$name.sim.out" 0 >"$scratch/$name.sim.r"
	[ -s "$scratch/$name.sim.r" ] || fail "$name: wmrun --sim gave no results"
	conf "$name.flink" | sed -e "${MUTATE:-}" >"$scratch/$name.flink.conf"
	expect_status 0 "$WMRUN" --export-flink "$scratch/$name.project" \
		"$scratch/$name.flink.conf"
	build "$scratch/$name.project"
	maven "$scratch/$name.project" "$scratch/$name.flink.log" exec:exec ||
		fail "$name: the Flink job failed"
	results "$scratch/$name.flink.out" 1 >"$scratch/$name.flink.r"
	diff -u "$scratch/$name.sim.r" "$scratch/$name.flink.r" ||
		fail "$name: Flink's window results differ from wmrun's"
	tail -n +2 "$scratch/$name.sim.late" | LC_ALL=C sort >"$scratch/a"
	tail -n +2 "$scratch/$name.flink.late" | LC_ALL=C sort >"$scratch/b"
	diff -u "$scratch/a" "$scratch/b" ||
		fail "$name: Flink's late records differ from wmrun's"
	echo "$name: Flink agrees with --sim on $(wc -l <"$scratch/a") late" \
		"records and $(wc -l <"$scratch/$name.sim.r") results"
	[ -n "${SIM_ONLY:-}" ] && return 0
	conf "$name.real" >"$scratch/$name.real.conf"
	expect_status 0 timeout 300 "$WMRUN" --quiet "$scratch/$name.real.conf"
	results "$scratch/$name.real.out" 0 >"$scratch/$name.real.r"
	diff -u "$scratch/$name.sim.r" "$scratch/$name.real.r" ||
		fail "$name: wmrun's real run differs from Flink's and --sim's"
}

# The support classes' own unit tests, in a copy (the source tree may be
# read-only): the exported projects compile the same files.
cp -R "$srcdir/flink" "$scratch/flink"
chmod -R u+w "$scratch/flink"
build "$scratch/flink"

# The example as it is, four times faster, its outputs in files: the
# late click (9 s after it happened, 2 s bound) is beyond the bound by
# seconds, every other record within it by far more than a tick.
conf() {
	sed -e "s|^replay = examples/|replay = $srcdir/examples/|" \
		-e "s|^path = -|path = $scratch/$1.out|" \
		-e "s|^late_output = -.*|late_output = $scratch/$1.late|" \
		-e "s|^format = jsonl|format = csv|" \
		-e "s|^name = replay-clicks|&\nspeed = 4|" \
		"$srcdir/examples/replay_trace.conf"
}
oracle replay_trace

# 4 partitions, 23 keys, 1200 records 50 ms apart in event time, each
# arriving 20 ms after it happened and up to 120 ms out of order (bound:
# 1 s); every 97th record arrives 20 s late, far beyond the bound, and
# goes to the late side output.
awk 'BEGIN {
	print "partition,timestamp,key,value,arrival"
	for (i = 0; i < 1200; i++) {
		ts = 1000 + i * 50 - (i * 7919) % 3 * 40
		arr = 1020 + i * 50
		if (i % 97 == 50) arr += 20000
		printf "%d,%d,%d,%d,%d\n", i % 4, ts, (i * 31) % 23, 1 + i % 9, arr
	}
}' | awk -F, 'NR == 1 { print; next } { print | "sort -t, -k5,5n -s" }' \
	>"$scratch/keyed.csv"
for p in 1 2; do
	conf() {
		cat <<CONF
[job]
name = keyed-p$p
speed = 10
[source t]
parallelism = 2
partitions = 4
replay = $scratch/keyed.csv
pacing = arrival
out_of_orderness = 1 s
[keyby k]
input = t
parallelism = $p
[window w]
input = k
parallelism = $p
max_parallelism = $([ "$p" = 1 ] && echo 128 || echo 7)
size = 2 s
aggregates = count, sum, min, max
late_output = $scratch/$1.late
[sink out]
input = w
parallelism = $p
path = $scratch/$1.out
CONF
	}
	oracle keyed_p$p
done
exit 0
