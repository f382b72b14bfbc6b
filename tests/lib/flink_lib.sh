# flink_lib.sh -- real Apache Flink as the oracle (sourced after lib.sh).
#
# flink_require skips (77) a test that needs real Flink where it cannot or
# should not run: the sanitizer build and `make distcheck` leave it to the
# plain build (CI runs the suite more than once and these tests add
# minutes), and a machine without java or mvn, or without Maven Central
# and a cache that holds Flink, has no Flink to ask. A test that goes on
# holds flink_exclusive's lock until it ends: one JVM of Flink at a time.
#
# flink_classpath compiles the support classes once per build and finds
# Flink's class path, for flink_run to compile and run an exported job
# with javac and java: a `mvn package` per export costs 20-30 s, this 2-4
# s (flink_build still builds a project with Maven where a test wants the
# proof that the export builds as it is).
#
# oracle NAME runs $scratch/NAME.*.conf, as the caller's conf() writes it,
# through wmrun (--sim, and a real run unless SIM_ONLY) and through the
# exported job on Flink's MiniCluster at two speeds, and fails on any
# difference in the window results (subtask column included) or the late
# records.

flink_require() {
	require_real "the Flink cross-check" "default-jdk-headless maven" \
		java javac mvn
	flink_exclusive
}

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

# flink_build DIR: `mvn package` of the Maven project in DIR.
flink_build() {
	maven "$1" "$scratch/mvn.log" package ||
		fail "the Maven project $1 does not build"
}

# flink_peer: $PEER_CP, the class path of flink/peer/'s classes (its
# jar) and of their dependencies (from Maven's cache), built where
# wmbench --peer flink builds and finds them (Makefile.am:
# WM_FLINK_PEER_BUILDDIR), with the same Maven command: once a build
# tree, again only when the pom or a source is newer than the jar or a
# jar left Maven's cache. flink_exclusive's lock, held here, keeps two
# tests from building it at once.
flink_peer() {
	peer=$(cd "$(dirname "$WMBENCH")" && pwd)/flink-peer
	jar=$peer/wmrun-flink-peer.jar
	if [ ! -f "$jar" ] || [ ! -f "$peer/classpath.txt" ] ||
		[ -n "$(find "$srcdir/flink/peer/pom.xml" "$srcdir/flink/peer/src" \
			-type f -newer "$jar")" ] ||
		! jars_present "$peer/classpath.txt"; then
		mkdir -p "$peer"
		maven "$srcdir/flink/peer" "$peer/mvn.log" -Dstyle.color=never \
			-Dpeer.build="$peer" package ||
			fail "the Flink peer (flink/peer/) does not build"
		# The jar plugin leaves a jar whose classes did not change
		# as it was: newer than the sources from now on.
		touch "$jar"
	fi
	PEER_CP=$jar:$(cat "$peer/classpath.txt")
}

# flink_classpath: $FLINK_CP, Flink's class path (the pom's compile
# scope, from Maven's cache), and $FLINK_CLASSES, the support classes of
# flink/ compiled against it. Both are kept in the build directory under
# a digest of flink/'s pom and sources (flink-support/DIGEST), so that
# only the first Flink test of a build asks Maven and javac (4-10 s a
# test); flink_exclusive's lock, held here, keeps two tests from filling
# one at once, and a half-filled one (no "done") or one whose jars left
# Maven's cache is filled again.
flink_classpath() {
	[ -d "$scratch/flink" ] || {
		cp -R "$srcdir/flink" "$scratch/flink"
		chmod -R u+w "$scratch/flink"
	}
	digest=$(cd "$scratch/flink" &&
		cat pom.xml src/main/java/wmrun/flink/*.java | sha256sum | cut -c1-16)
	support=$PWD/flink-support/$digest
	if [ ! -f "$support/done" ] || ! jars_present "$support/flink.cp"; then
		rm -rf "$support"
		mkdir -p "$support"
		maven "$scratch/flink" "$scratch/cp.log" dependency:build-classpath \
			-Dmdep.includeScope=compile -Dmdep.outputFile="$support/flink.cp" ||
			fail "Maven cannot give Flink's class path"
		javac -nowarn -d "$support/classes" -cp "$(cat "$support/flink.cp")" \
			"$scratch"/flink/src/main/java/wmrun/flink/*.java \
			>"$scratch/javac.log" 2>&1 || {
			cat "$scratch/javac.log" >&2
			fail "the support classes do not compile"
		}
		: >"$support/done"
	fi
	FLINK_CP=$(cat "$support/flink.cp")
	FLINK_CLASSES=$support/classes
}

# jars_present CLASSPATH_FILE: every entry of the class path exists.
jars_present() {
	tr ':' '\n' <"$1" | while read -r jar; do
		[ -e "$jar" ] || return 1
	done
}

# flink_run DIR LOG: the exported project in DIR compiled and run on the
# MiniCluster, as flink_run_jobs runs one.
flink_run() {
	flink_run_jobs "$2" "$1"
}

# flink_run_jobs LOG DIR...: the exported projects in DIR... compiled with
# javac (each one's Job.java as a class of its own, JobN; their support
# classes are flink/'s, byte for byte, which export_flink_golden.sh
# checks) and run at once in one JVM, each on a MiniCluster of its own
# (tests/tools/FlinkJobs.java): one JVM's start and one javac for them
# all, and the time of the slowest job instead of the sum of theirs.
flink_run_jobs() {
	log=$1
	shift
	classes=$(mktemp -d "$scratch/classes.XXXXXX")
	jobs="" n=0
	for dir in "$@"; do
		for j in "$dir"/src/main/java/wmrun/flink/*.java; do
			[ "${j##*/}" = Job.java ] ||
				cmp -s "$j" "$scratch/flink/src/main/java/wmrun/flink/${j##*/}" ||
				fail "$dir: ${j##*/} is not flink/'s"
		done
		n=$((n + 1))
		sed "s/^public final class Job {\$/public final class Job$n {/" \
			"$dir/src/main/java/wmrun/flink/Job.java" >"$classes/Job$n.java"
		grep -q "^public final class Job$n {" "$classes/Job$n.java" ||
			fail "$dir: Job.java has no class Job to rename"
		jobs="$jobs wmrun.flink.Job$n $dir/data $dir"
	done
	javac -nowarn -d "$classes" -cp "$FLINK_CLASSES:$FLINK_CP" \
		"$classes"/Job*.java "$srcdir/tests/tools/FlinkJobs.java" >"$log" 2>&1 ||
		{ cat "$log" >&2; fail "$*: Job.java does not compile"; }
	# shellcheck disable=SC2086
	timeout 300 java -cp "$classes:$FLINK_CLASSES:$FLINK_CP" FlinkJobs "$n" $jobs \
		>>"$log" 2>&1 || { tail -40 "$log" >&2; fail "$*: a Flink job failed"; }
}

# results FILE: a window sink's lines without the columns fire_time and
# watermark (when the window fired: the wall clock's in Flink), sorted.
# A quoted key may hold commas: a line's fields beyond the header's
# belong to its first column, the key.
results() {
	awk -F, 'NR == 1 {
		n = NF
		for (i = 1; i <= NF; i++) keep[i] = $i != "fire_time" && $i != "watermark"
		next
	} {
		extra = NF - n
		line = $1
		for (i = 2; i <= extra + 1; i++) line = line "," $i
		for (i = 2; i <= n; i++) if (keep[i]) line = line "," $(i + extra)
		print line
	}' "$1" | LC_ALL=C sort
}

# same WANT GOT WHAT: the outputs of two runs of NAME agree (every
# results file *.out and late output *.late that WANT's run wrote), or
# fail saying WHAT differs. Counts what agreed in $agreed.
same() {
	agreed=""
	for f in "$scratch/$name.$1".*out "$scratch/$name.$1".*late; do
		[ -e "$f" ] || continue
		suffix=${f#"$scratch/$name.$1"}
		g="$scratch/$name.$2$suffix"
		[ -e "$g" ] || fail "$name: $3 wrote no ${g##*/}"
		case $f in
		*late)
			tail -n +2 "$f" | LC_ALL=C sort >"$scratch/a"
			tail -n +2 "$g" | LC_ALL=C sort >"$scratch/b"
			;;
		*)
			results "$f" >"$scratch/a"
			results "$g" >"$scratch/b"
			[ -s "$scratch/a" ] || fail "$name: ${f##*/} holds no results"
			;;
		esac
		diff -u "$scratch/a" "$scratch/b" || fail "$name: $3 differs in $suffix"
		agreed="$agreed $suffix: $(wc -l <"$scratch/a")"
	done
	[ -n "$agreed" ] || fail "$name: no outputs to compare"
}

# oracle NAME: $scratch/NAME.conf run by wmrun (--sim, and real unless
# SIM_ONLY) and by Flink at the [job] speed and at two thirds of it, the
# two Flink jobs at once (flink_run_jobs): the same results at two speeds,
# the trace's outcome does not hang on the wall clock, nor on sharing the
# machine with another job. The traces' margins are made for the faster
# run, so they hold for the slower; two thirds, not half, keeps CI's
# time. wmrun's real run must agree too, or have fallen behind its
# schedule past the traces' margins and agree at a quarter of the speed.
# The caller's conf() RUN writes every sink to $scratch/RUN.*out
# and every late output to $scratch/RUN.*late. MUTATE, a sed script,
# changes Flink's topology only: to see that a difference is caught.
oracle() {
	name=$1
	conf "$name.sim" >"$scratch/$name.sim.conf"
	grep -q '^speed = ' "$scratch/$name.sim.conf" ||
		fail "$name: the topology needs a [job] speed"
	expect_status 0 "$WMRUN" --sim "$scratch/$name.sim.conf"
	for run in flink flink_slow; do
		conf "$name.$run" | sed -e "${MUTATE:-}" |
			awk -v run=$run '/^speed = / && run == "flink_slow" { $3 = $3 * 2 / 3 } 1' \
				>"$scratch/$name.$run.conf"
		expect_status 0 "$WMRUN" --export-flink "$scratch/$name.$run.project" \
			"$scratch/$name.$run.conf"
	done
	flink_run_jobs "$scratch/$name.flink.log" \
		"$scratch/$name.flink.project" "$scratch/$name.flink_slow.project"
	for run in flink flink_slow; do
		same sim $run "Flink ($(grep '^speed' "$scratch/$name.$run.conf"))"
	done
	echo "$name: Flink agrees with --sim at two speeds:$agreed lines"
	[ -n "${SIM_ONLY:-}" ] && return 0
	conf "$name.real" >"$scratch/$name.real.conf"
	expect_status 0 timeout 300 "$WMRUN" --quiet --summary "$scratch/$name.real.json" \
		"$scratch/$name.real.conf"
	(same sim real "wmrun's real run") >"$scratch/$name.same" 2>&1 && return 0
	# The traces' margins are 20 s of processing time and more (a late
	# record that far behind the records around it): a real run that
	# fell behind its schedule by less differs for a reason of its own.
	# One that fell further, on a machine too loaded for its speed (CI
	# saw a 25 s late click join its window beside the sanitizer build),
	# runs again at a quarter of the speed, where it must agree.
	noise=$(sed -n 's/.*"scheduling_noise_ms":\([0-9]*\).*/\1/p' "$scratch/$name.real.json")
	[ "${noise:-0}" -ge 10000 ] || { cat "$scratch/$name.same"; exit 1; }
	echo "$name: wmrun's real run fell $noise ms of processing time behind its schedule; again at a quarter of the speed"
	conf "$name.real" | awk '/^speed = / { $3 = $3 / 4 } 1' >"$scratch/$name.real.conf"
	expect_status 0 timeout 600 "$WMRUN" --quiet "$scratch/$name.real.conf"
	same sim real "wmrun's real run at a quarter of the speed"
}

# keyed_trace FILE: 4 partitions, 23 keys (two of them -2^62 and
# Long.MAX_VALUE, whose hashCode folds the high half), 800 records 50 ms
# apart in event time, each arriving 20 ms after it happened and up to 80
# ms out of order (bound: 1 s: never late, whatever the ticks); of the
# first 500, every 97th record arrives 30 s late: its window ended some
# 27 s of event time before the watermark the records ahead of it allow
# (2.7 s of wall clock at speed 10, which a stalled reader would have to
# outlast), and goes to the late side output.
keyed_trace() {
	awk 'BEGIN {
		print "partition,timestamp,key,value,arrival"
		for (i = 0; i < 800; i++) {
			ts = 1000 + i * 50 - (i * 7919) % 3 * 40
			arr = 1020 + i * 50
			if (i % 97 == 50 && i < 500) arr += 30000
			key = (i * 31) % 23
			if (key == 22) key = "-4611686018427387904"
			if (key == 21) key = "9223372036854775807"
			printf "%d,%d,%s,%d,%d\n", i % 4, ts, key, 1 + i % 9, arr
		}
	}' | awk -F, 'NR == 1 { print; next } { print | "sort -t, -k5,5n -s" }' >"$1"
}

# keyed_source: the [job] and the [source t] that replays keyed_trace's
# $scratch/keyed.csv at speed 10, two subtasks over its 4 partitions.
keyed_source() {
	printf '[job]\nname = keyed\nspeed = 10\n[source t]\nparallelism = 2\n'
	printf 'partitions = 4\nreplay = %s\n' "$scratch/keyed.csv"
	printf 'pacing = arrival\nout_of_orderness = 1 s\n'
}

# flink_window NAME INPUT RUN: a 2 s tumbling window over INPUT at
# parallelism 2 with every aggregate, its late output to
# $scratch/RUN.NAME.late and its sink NAME_out to $scratch/RUN.NAME.out,
# as oracle() compares them.
flink_window() {
	printf '[window %s]\ninput = %s\nparallelism = 2\nsize = 2 s\n' "$1" "$2"
	printf 'aggregates = count, sum, min, max\n'
	printf 'late_output = %s\n' "$scratch/$3.$1.late"
	printf '[sink %s_out]\ninput = %s\nparallelism = 2\npath = %s\n' \
		"$1" "$1" "$scratch/$3.$1.out"
}

# flink_exclusive: wait until no other test of this build directory that
# called it is running, and hold that until the calling script ends. A
# MiniCluster and its Maven build take the whole of a small machine: two
# at once under `make check -j2` starve wmrun's real runs, whose results
# then depend on timing. Without flock(1), nothing is waited for.
flink_exclusive() {
	command -v flock >/dev/null 2>&1 || return 0
	exec 9>"$PWD/flink-tests.lock"
	flock 9
}
